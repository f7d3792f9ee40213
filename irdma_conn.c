// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit irdma: the socket side of a connection.  TCP through kernel
 * sockets, the MPA exchange (RFC 5044, RFC 6581), and the consumer API:
 * upstream's irdma_connect(), irdma_accept(), irdma_reject() and
 * irdma_cm_close() as cmkit_irdma_connect(), cmkit_irdma_accept(),
 * cmkit_irdma_reject() and cmkit_irdma_cm_close(), exported into the CMKIT
 * namespace (listeners are in irdma_listen.c).
 *
 * Socket callbacks run in softirq: they only queue the node's (or the
 * listener's) work on the core's socket workqueue, holding a node
 * reference for it.  The work runs under cm_node->lock, reads no more than
 * the MPA frame it is receiving, and posts events for the handler.  A
 * malformed, truncated or oversized frame aborts the connection with a log
 * line naming the peer and the reason.
 */
#define pr_fmt(fmt) "cmkit: irdma: " fmt

#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "irdma_cm.h"
#include "irdma_trace.h"

static void irdma_cm_sock_work(struct work_struct *work);

/**
 * irdma_cm_queue_sock_work - have the node's socket work run
 * @cm_node: the node
 *
 * Queues the work with a reference for it, unless it is queued already:
 * that work has not started and will see what woke us.  The work clears
 * the bit before it reads the socket.
 *
 * Context: any, softirq included.
 */
void irdma_cm_queue_sock_work(struct irdma_cm_node *cm_node)
{
	if (test_and_set_bit(IRDMA_CM_NODE_SOCK_QUEUED, &cm_node->flags))
		return;
	if (!refcount_inc_not_zero(&cm_node->refcnt)) {
		clear_bit(IRDMA_CM_NODE_SOCK_QUEUED, &cm_node->flags);
		return;
	}
	WARN_ON_ONCE(!queue_work(cm_node->cm_core->sock_wq, &cm_node->sock_work));
}

static void irdma_cm_sk_wake(struct sock *sk)
{
	struct irdma_cm_node *cm_node;

	read_lock_bh(&sk->sk_callback_lock);
	cm_node = sk->sk_user_data;
	if (cm_node)
		irdma_cm_queue_sock_work(cm_node);
	read_unlock_bh(&sk->sk_callback_lock);
}

/**
 * irdma_cm_node_attach_sock - give a node its TCP socket
 * @cm_node: the node, its lock held
 * @sock: a connected or connecting socket; the node releases it
 *
 * The socket's callbacks now queue the node's socket work.
 */
void irdma_cm_node_attach_sock(struct irdma_cm_node *cm_node,
			       struct socket *sock)
{
	struct sock *sk = sock->sk;

	INIT_WORK(&cm_node->sock_work, irdma_cm_sock_work);
	write_lock_bh(&sk->sk_callback_lock);
	cm_node->saved_data_ready = sk->sk_data_ready;
	cm_node->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = cm_node;
	sk->sk_data_ready = irdma_cm_sk_wake;
	sk->sk_state_change = irdma_cm_sk_wake;
	write_unlock_bh(&sk->sk_callback_lock);
	cm_node->sock = sock;
}

static void irdma_cm_detach_sock(struct irdma_cm_node *cm_node)
{
	struct sock *sk = cm_node->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = cm_node->saved_data_ready;
	sk->sk_state_change = cm_node->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/**
 * irdma_cm_node_release_sock - detach and close a node's socket, if any
 * @cm_node: the node; its lock is held, or this is its last reference
 *
 * A queued socket work that runs later finds no socket and does nothing.
 */
void irdma_cm_node_release_sock(struct irdma_cm_node *cm_node)
{
	struct socket *sock = cm_node->sock;

	if (!sock)
		return;
	irdma_cm_detach_sock(cm_node);
	cm_node->sock = NULL;
	sock_release(sock);
}

/* Close with a reset rather than a FIN. */
static void irdma_cm_reset_sock(struct irdma_cm_node *cm_node)
{
	if (cm_node->sock)
		sock_no_linger(cm_node->sock->sk);
	irdma_cm_node_release_sock(cm_node);
}

static int irdma_cm_send(struct irdma_cm_node *cm_node, const u8 *buf, int len)
{
	struct kvec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	int rc;

	if (!cm_node->sock)
		return -ENOTCONN;
	rc = kernel_sendmsg(cm_node->sock, &msg, &iov, 1, len);
	if (rc < 0)
		return rc;
	return rc == len ? 0 : -EAGAIN;
}

static int irdma_cm_recv(struct irdma_cm_node *cm_node, u8 *buf, size_t len)
{
	struct kvec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };

	return kernel_recvmsg(cm_node->sock, &msg, &iov, 1, len, MSG_DONTWAIT);
}

static void irdma_cm_trace_tx(struct irdma_cm_node *cm_node, const u8 *buf, int len)
{
	struct cmkit_mpa_frame f;

	if (irdma_parse_mpa(buf, len, cm_node->passive ? CMKIT_MPA_REPLY :
			    CMKIT_MPA_REQUEST, &f) > 0)
		trace_cmkit_irdma_mpa(cm_node, false, &f);
}

/*
 * Build and send our request or reply.  Revision 2 requests (and replies
 * to enhanced requests) carry IRD/ORD; we never ask for peer-to-peer mode,
 * as there is no QP to send a ready-to-receive message from.
 */
static int irdma_cm_send_mpa(struct irdma_cm_node *cm_node, bool reject,
			     const void *pdata, u16 pdata_len)
{
	enum cmkit_mpa_kind kind = cm_node->passive ? CMKIT_MPA_REPLY :
				   CMKIT_MPA_REQUEST;
	u8 *buf;
	int len, rc;

	buf = kmalloc(CMKIT_MPA_MAX_FRAME, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (test_bit(IRDMA_CM_NODE_ENHANCED, &cm_node->flags))
		len = irdma_build_mpa_v2(buf, CMKIT_MPA_MAX_FRAME, kind, reject,
					 cm_node->ird_size, cm_node->ord_size, 0, 0,
					 pdata, pdata_len);
	else
		len = irdma_build_mpa_v1(buf, CMKIT_MPA_MAX_FRAME, kind, reject,
					 pdata, pdata_len);
	if (len < 0) {
		pr_warn("%pI4h:%u: cannot build the MPA %s: %s\n",
			&cm_node->rem_addr, cm_node->rem_port,
			kind == CMKIT_MPA_REQUEST ? "request" : "reply",
			cmkit_mpa_strerror(len));
		kfree(buf);
		return -EINVAL;
	}
	irdma_cm_trace_tx(cm_node, buf, len);
	rc = irdma_cm_send(cm_node, buf, len);
	kfree(buf);
	return rc;
}

/*
 * Receive the rest of an MPA frame, never more than it: 20 header bytes
 * first, then exactly PD_Length more.
 * Return: 1 with @f filled when the frame is complete, 0 when more bytes
 * are due, or a negative errno that ends the connection.
 */
static int irdma_cm_recv_mpa(struct irdma_cm_node *cm_node,
			     enum cmkit_mpa_kind kind, struct cmkit_mpa_frame *f)
{
	size_t want;
	int rc;

	for (;;) {
		rc = irdma_parse_mpa(cm_node->rx_buf, cm_node->rx_len, kind, f);
		if (rc < 0) {
			pr_warn("%pI4h:%u: bad MPA %s (%s): aborting the connection\n",
				&cm_node->rem_addr, cm_node->rem_port,
				kind == CMKIT_MPA_REQUEST ? "request" : "reply",
				cmkit_mpa_strerror(rc));
			return -EPROTO;
		}
		if (rc > 0) {
			trace_cmkit_irdma_mpa(cm_node, true, f);
			return 1;
		}
		if (cm_node->rx_len < CMKIT_MPA_HDR_LEN)
			want = CMKIT_MPA_HDR_LEN - cm_node->rx_len;
		else
			want = CMKIT_MPA_HDR_LEN +
			       cmkit_get_be16(cm_node->rx_buf + 18) - cm_node->rx_len;
		rc = irdma_cm_recv(cm_node, cm_node->rx_buf + cm_node->rx_len, want);
		if (rc == -EAGAIN)
			return 0;
		if (rc == 0) {
			pr_warn("%pI4h:%u: peer closed after %zu bytes of the MPA %s\n",
				&cm_node->rem_addr, cm_node->rem_port,
				cm_node->rx_len,
				kind == CMKIT_MPA_REQUEST ? "request" : "reply");
			return -ECONNABORTED;
		}
		if (rc < 0)
			return rc;
		cm_node->rx_len += rc;
	}
}

/*
 * After the MPA exchange there is no data path: count and drop what the
 * peer sends.  Return: 0 when nothing more is readable now, -ENODATA at the
 * peer's FIN, or the socket's error.
 */
static int irdma_cm_drain(struct irdma_cm_node *cm_node)
{
	int rc;

	for (;;) {
		rc = irdma_cm_recv(cm_node, cm_node->rx_buf, sizeof(cm_node->rx_buf));
		if (rc == -EAGAIN)
			return 0;
		if (rc == 0)
			return -ENODATA;
		if (rc < 0)
			return rc;
		cm_node->rx_dropped += rc;
	}
}

/* Post an event that ends the connection; the node's spare makes this sure. */
static void irdma_cm_post_end(struct irdma_cm_node *cm_node,
			      enum irdma_cm_event_type type)
{
	if (!irdma_create_event(cm_node, type))
		WARN_ONCE(1, "cmkit: irdma: lost the %s of %pI4h:%u\n",
			  irdma_cm_event_name(type), &cm_node->rem_addr,
			  cm_node->rem_port);
}

static const char *irdma_cm_state_name(enum irdma_cm_node_state state)
{
	static const char * const names[] = {
		[IRDMA_CM_STATE_UNKNOWN] = "UNKNOWN",
		[IRDMA_CM_STATE_SYN_SENT] = "SYN_SENT",
		[IRDMA_CM_STATE_ESTABLISHED] = "ESTABLISHED",
		[IRDMA_CM_STATE_MPAREQ_SENT] = "MPAREQ_SENT",
		[IRDMA_CM_STATE_MPAREQ_RCVD] = "MPAREQ_RCVD",
		[IRDMA_CM_STATE_MPAREJ_RCVD] = "MPAREJ_RCVD",
		[IRDMA_CM_STATE_OFFLOADED] = "OFFLOADED",
		[IRDMA_CM_STATE_FIN_WAIT1] = "FIN_WAIT1",
		[IRDMA_CM_STATE_CLOSED] = "CLOSED",
	};

	if ((unsigned int)state < ARRAY_SIZE(names))
		return names[state];
	return "?";
}

/*
 * End the connection with a reset (cm_node->lock held), and tell whom it
 * concerns: a connect still waiting gets ABORTED (CONNECT_REPLY
 * (-ECONNRESET)), an established connection RESET (DISCONNECT(-ECONNRESET),
 * CLOSE).  A passive connection the upper layer has not heard of ends
 * silently; one it has (an unanswered CONNECT_REQUEST) keeps its base
 * reference for the answer, which then finds the connection gone.
 */
static void irdma_cm_fail(struct irdma_cm_node *cm_node, int err)
{
	enum irdma_cm_node_state state = cm_node->state;

	cm_node->state = IRDMA_CM_STATE_CLOSED;
	if (state == IRDMA_CM_STATE_CLOSED || state == IRDMA_CM_STATE_MPAREJ_RCVD ||
	    state == IRDMA_CM_STATE_UNKNOWN) {
		irdma_cm_reset_sock(cm_node);
		return;
	}
	trace_cmkit_irdma_abort(cm_node, state, err);
	atomic_inc(&cm_node->cm_core->stats.aborts);
	pr_info("%pI4h:%u: connection ends in state %s: %d\n", &cm_node->rem_addr,
		cm_node->rem_port, irdma_cm_state_name(state), err);
	switch (state) {
	case IRDMA_CM_STATE_SYN_SENT:
	case IRDMA_CM_STATE_MPAREQ_SENT:
		irdma_cm_post_end(cm_node, IRDMA_CM_EVENT_ABORTED);
		break;
	case IRDMA_CM_STATE_OFFLOADED:
	case IRDMA_CM_STATE_FIN_WAIT1:
		irdma_cm_post_end(cm_node, IRDMA_CM_EVENT_RESET);
		break;
	case IRDMA_CM_STATE_ESTABLISHED:
		irdma_cm_node_put_base(cm_node);
		break;
	default:
		break;
	}
	irdma_cm_reset_sock(cm_node);
}

/**
 * irdma_cm_node_abort - reset a connection and tell whom it concerns
 * @cm_node: the node; the caller holds a reference, not its lock
 *
 * A connect still waiting gets CONNECT_REPLY(-ECONNRESET), an established
 * connection DISCONNECT(-ECONNRESET) and CLOSE; a connection the upper
 * layer has not heard of ends silently.
 */
void irdma_cm_node_abort(struct irdma_cm_node *cm_node)
{
	mutex_lock(&cm_node->lock);
	irdma_cm_fail(cm_node, -ECONNRESET);
	mutex_unlock(&cm_node->lock);
}
EXPORT_SYMBOL_IF_KUNIT(irdma_cm_node_abort);

/**
 * irdma_cm_abort_unindicated - reset a passive connection not yet indicated
 * @cm_node: the node; the caller holds a reference, not its lock
 *
 * For a listener going away: a peer that connected but has not sent its
 * whole MPA request would never be answered, so it is reset (upstream frees
 * such hanging nodes with their listener too).  A request already received
 * is left to the event handler, which indicates or refuses it.
 */
void irdma_cm_abort_unindicated(struct irdma_cm_node *cm_node)
{
	mutex_lock(&cm_node->lock);
	if (cm_node->passive && cm_node->state == IRDMA_CM_STATE_ESTABLISHED)
		irdma_cm_fail(cm_node, -ECONNABORTED);
	mutex_unlock(&cm_node->lock);
}

static void irdma_cm_save_pdata(struct irdma_cm_node *cm_node,
				const struct cmkit_mpa_frame *f)
{
	cm_node->pdata_len = f->pdata_len;
	memcpy(cm_node->pdata_buf, f->pdata, f->pdata_len);
}

static void irdma_cm_process_request(struct irdma_cm_node *cm_node,
				     const struct cmkit_mpa_frame *f)
{
	if (f->pdata_len > U8_MAX) {
		/* Valid MPA, but an iw_cm_event cannot carry it. */
		pr_warn("%pI4h:%u: %u bytes of private data: more than an upcall carries\n",
			&cm_node->rem_addr, cm_node->rem_port, f->pdata_len);
		irdma_cm_fail(cm_node, -EMSGSIZE);
		return;
	}
	cm_node->mpa_rev = f->rev;
	if (f->enhanced)
		set_bit(IRDMA_CM_NODE_ENHANCED, &cm_node->flags);
	cm_node->ird_size = f->ird;
	cm_node->ord_size = f->ord;
	irdma_cm_save_pdata(cm_node, f);
	cm_node->state = IRDMA_CM_STATE_MPAREQ_RCVD;
	if (!irdma_create_event(cm_node, IRDMA_CM_EVENT_MPA_REQ)) {
		/* No upcall was made: refuse the peer with a reset. */
		cm_node->state = IRDMA_CM_STATE_ESTABLISHED;
		irdma_cm_fail(cm_node, -ENOMEM);
	}
}

static void irdma_cm_process_reply(struct irdma_cm_node *cm_node,
				   const struct cmkit_mpa_frame *f)
{
	bool enhanced = test_bit(IRDMA_CM_NODE_ENHANCED, &cm_node->flags);

	irdma_cm_save_pdata(cm_node, f);
	if (f->flags & CMKIT_MPA_FLAG_REJECT) {
		pr_info("%pI4h:%u: peer rejected the connection (%u bytes of private data)\n",
			&cm_node->rem_addr, cm_node->rem_port, f->pdata_len);
		cm_node->state = IRDMA_CM_STATE_MPAREJ_RCVD;
		irdma_cm_post_end(cm_node, IRDMA_CM_EVENT_MPA_REJECT);
		irdma_cm_node_release_sock(cm_node);
		return;
	}
	if (f->rev > cm_node->mpa_rev || (enhanced && !f->enhanced)) {
		pr_warn("%pI4h:%u: MPA reply revision %u%s to a revision %u%s request\n",
			&cm_node->rem_addr, cm_node->rem_port, f->rev,
			f->enhanced ? " enhanced" : "", cm_node->mpa_rev,
			enhanced ? " enhanced" : "");
		irdma_cm_fail(cm_node, -EPROTO);
		return;
	}
	if (enhanced && irdma_negotiate_mpa_v2_ird_ord(1, &cm_node->ird_size,
						       &cm_node->ord_size,
						       f->ird, f->ord)) {
		pr_warn("%pI4h:%u: our IRD %u is short of the peer's ORD %u\n",
			&cm_node->rem_addr, cm_node->rem_port, cm_node->ird_size,
			f->ord);
		irdma_cm_fail(cm_node, -EPROTO);
		return;
	}
	cm_node->state = IRDMA_CM_STATE_OFFLOADED;
	if (!irdma_create_event(cm_node, IRDMA_CM_EVENT_CONNECTED))
		irdma_cm_fail(cm_node, -ENOMEM);
}

/* The socket side's state machine; cm_node->lock is held. */
static void irdma_cm_sock_process(struct irdma_cm_node *cm_node)
{
	struct cmkit_mpa_frame f;
	int rc;

	if (!cm_node->sock)
		return;
	switch (cm_node->state) {
	case IRDMA_CM_STATE_SYN_SENT:
		switch (READ_ONCE(cm_node->sock->sk->sk_state)) {
		case TCP_SYN_SENT:
			return;
		case TCP_ESTABLISHED:
			break;
		default:
			irdma_cm_fail(cm_node, sock_error(cm_node->sock->sk) ?: -ECONNREFUSED);
			return;
		}
		rc = irdma_cm_send_mpa(cm_node, false, cm_node->pdata_buf,
				       cm_node->pdata_len);
		cm_node->pdata_len = 0;
		if (rc) {
			irdma_cm_fail(cm_node, rc);
			return;
		}
		cm_node->state = IRDMA_CM_STATE_MPAREQ_SENT;
		fallthrough;
	case IRDMA_CM_STATE_MPAREQ_SENT:
		rc = irdma_cm_recv_mpa(cm_node, CMKIT_MPA_REPLY, &f);
		if (rc < 0)
			irdma_cm_fail(cm_node, rc);
		else if (rc > 0)
			irdma_cm_process_reply(cm_node, &f);
		if (cm_node->state != IRDMA_CM_STATE_OFFLOADED)
			return;
		break;
	case IRDMA_CM_STATE_ESTABLISHED:
		rc = irdma_cm_recv_mpa(cm_node, CMKIT_MPA_REQUEST, &f);
		if (rc < 0)
			irdma_cm_fail(cm_node, rc);
		else if (rc > 0)
			irdma_cm_process_request(cm_node, &f);
		return;
	case IRDMA_CM_STATE_MPAREQ_RCVD:
	case IRDMA_CM_STATE_OFFLOADED:
	case IRDMA_CM_STATE_FIN_WAIT1:
		break;
	default:
		return;
	}

	rc = irdma_cm_drain(cm_node);
	if (!rc)
		return;
	if (rc == -ENODATA && cm_node->state != IRDMA_CM_STATE_MPAREQ_RCVD) {
		/* Orderly close; answer the peer's FIN with ours. */
		pr_info("%pI4h:%u: closed by %s (%llu bytes dropped)\n",
			&cm_node->rem_addr, cm_node->rem_port,
			cm_node->state == IRDMA_CM_STATE_FIN_WAIT1 ? "us" : "the peer",
			cm_node->rx_dropped);
		irdma_cm_post_end(cm_node, IRDMA_CM_EVENT_DISCONN);
		cm_node->state = IRDMA_CM_STATE_CLOSED;
		kernel_sock_shutdown(cm_node->sock, SHUT_RDWR);
		irdma_cm_node_release_sock(cm_node);
		return;
	}
	irdma_cm_fail(cm_node, rc == -ENODATA ? -ECONNRESET : rc);
}

static void irdma_cm_sock_work(struct work_struct *work)
{
	struct irdma_cm_node *cm_node = container_of(work, struct irdma_cm_node,
						     sock_work);

	clear_bit(IRDMA_CM_NODE_SOCK_QUEUED, &cm_node->flags);
	smp_mb__after_atomic();	/* before reading the socket */
	mutex_lock(&cm_node->lock);
	irdma_cm_sock_process(cm_node);
	mutex_unlock(&cm_node->lock);
	irdma_rem_ref_cm_node(cm_node);
}

static int irdma_cm_sin_check(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET ? 0 : -EAFNOSUPPORT;
}

/**
 * cmkit_irdma_connect - connect to an iWARP peer
 * @cm_core: the core to connect through
 * @cm_id: the upper layer: m_local_addr (address or port 0 for any; both
 *	are set to TCP's choice), m_remote_addr,
 *	event_handler, add_ref and rem_ref set
 * @conn_param: private data, IRD and ORD; qpn is ignored (no QP is bound)
 *
 * Sends an MPA request of cm_core->mpa_version (revision 2: enhanced, with
 * IRD and ORD) once TCP is up.  The upper layer then gets exactly one
 * CONNECT_REPLY: 0 with the peer's private data and the negotiated IRD/ORD,
 * -ECONNREFUSED with the peer's private data if it rejected, -ECONNRESET if
 * the connection failed.  cm_id->provider_data names the node from here on.
 *
 * Return: 0, or a negative errno and then no event is delivered.
 */
int cmkit_irdma_connect(struct irdma_cm_core *cm_core, struct iw_cm_id *cm_id,
		  struct iw_cm_conn_param *conn_param)
{
	struct sockaddr_in *laddr = (struct sockaddr_in *)&cm_id->m_local_addr;
	struct sockaddr_in *raddr = (struct sockaddr_in *)&cm_id->m_remote_addr;
	struct irdma_cm_info info = {};
	struct irdma_cm_node *cm_node;
	struct socket *sock;
	int rc;

	if (irdma_cm_sin_check(&cm_id->m_local_addr) ||
	    irdma_cm_sin_check(&cm_id->m_remote_addr))
		return -EAFNOSUPPORT;
	if (conn_param->private_data_len > CMKIT_MPA_MAX_PD_LEN - CMKIT_MPA_IRD_ORD_LEN ||
	    (conn_param->private_data_len && !conn_param->private_data))
		return -EINVAL;
	info.cm_id = cm_id;
	info.loc_addr = ntohl(laddr->sin_addr.s_addr);
	info.loc_port = ntohs(laddr->sin_port);
	info.rem_addr = ntohl(raddr->sin_addr.s_addr);
	info.rem_port = ntohs(raddr->sin_port);
	cm_node = irdma_make_cm_node(cm_core, cm_id, &info);
	if (!cm_node)
		return -ENOMEM;
	irdma_cm_hook(cm_core, IRDMA_HOOK_CONNECT_NODE_MADE, cm_node);
	irdma_add_ref_cm_node(cm_node);	/* ours, until we are done with it */
	cm_node->ird_size = min_t(u32, conn_param->ird, CMKIT_MPA_V2_IRD_ORD_MASK);
	cm_node->ord_size = min_t(u32, conn_param->ord, CMKIT_MPA_V2_IRD_ORD_MASK);
	if (cm_node->mpa_rev == CMKIT_MPA_REV2)
		set_bit(IRDMA_CM_NODE_ENHANCED, &cm_node->flags);
	cm_node->pdata_len = conn_param->private_data_len;
	memcpy(cm_node->pdata_buf, conn_param->private_data, cm_node->pdata_len);

	rc = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &sock);
	if (rc)
		goto out_put;
	rc = kernel_bind(sock, CMKIT_SA(laddr), sizeof(*laddr));
	if (rc) {
		sock_release(sock);
		goto out_put;
	}
	tcp_sock_set_nodelay(sock->sk);

	mutex_lock(&cm_node->lock);
	irdma_cm_node_attach_sock(cm_node, sock);
	cm_id->add_ref(cm_id);
	set_bit(IRDMA_CM_NODE_ID_HELD, &cm_node->flags);
	cm_id->provider_data = cm_node;
	cm_node->state = IRDMA_CM_STATE_SYN_SENT;
	rc = kernel_connect(sock, CMKIT_SA(raddr), sizeof(*raddr), O_NONBLOCK);
	if (rc && rc != -EINPROGRESS) {
		cm_node->state = IRDMA_CM_STATE_CLOSED;
		irdma_cm_node_release_sock(cm_node);
		mutex_unlock(&cm_node->lock);
		cm_id->provider_data = NULL;
		goto out_put;
	}
	/* The source address and port TCP chose, when the caller left them open. */
	if (kernel_getsockname(sock, (struct sockaddr *)laddr) >= 0) {
		cm_node->loc_addr = ntohl(laddr->sin_addr.s_addr);
		cm_node->loc_port = ntohs(laddr->sin_port);
		memcpy(&cm_id->local_addr, laddr, sizeof(*laddr));
	}
	cm_node->ul_state = IRDMA_CM_UL_CONN_SENT;
	pr_info("%pI4h:%u: connecting to %pI4h:%u, MPA revision %u\n",
		&cm_node->loc_addr, cm_node->loc_port, &cm_node->rem_addr,
		cm_node->rem_port, cm_node->mpa_rev);
	irdma_cm_queue_sock_work(cm_node);
	mutex_unlock(&cm_node->lock);
	irdma_cm_hook(cm_core, IRDMA_HOOK_CONNECT_ISSUED, cm_node);
	irdma_rem_ref_cm_node(cm_node);
	return 0;

out_put:
	pr_info("connect to %pI4h:%u failed: %d\n", &info.rem_addr, info.rem_port, rc);
	irdma_cm_node_put_base(cm_node);
	irdma_rem_ref_cm_node(cm_node);
	return rc;
}
CMKIT_EXPORT(cmkit_irdma_connect);

/**
 * cmkit_irdma_accept - accept a connection indicated by CONNECT_REQUEST
 * @cm_id: the upper layer's id for the connection; provider_data is the
 *	event's provider_data
 * @conn_param: private data for the reply, our IRD and ORD (ORD lowered
 *	to the peer's IRD for an enhanced request)
 *
 * Sends the MPA reply; ESTABLISHED follows on @cm_id, then eventually
 * DISCONNECT and CLOSE.  Accept or reject must answer every request.
 *
 * Return: 0, or a negative errno (-ECONNRESET when the peer is gone) and
 * then no event is delivered on @cm_id.
 */
int cmkit_irdma_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *conn_param)
{
	struct irdma_cm_node *cm_node = cm_id->provider_data;
	u16 ird, ord;
	int rc = 0;

	if (!cm_node)
		return -EINVAL;
	/* The handler may end the connection before we are done with it. */
	irdma_add_ref_cm_node(cm_node);
	irdma_cm_hook(cm_node->cm_core, IRDMA_HOOK_API_NODE_HELD, cm_node);
	mutex_lock(&cm_node->lock);
	if (cm_node->state != IRDMA_CM_STATE_MPAREQ_RCVD || !cm_node->sock) {
		rc = -ECONNRESET;
		goto out_fail;
	}
	if (conn_param->private_data_len > CMKIT_MPA_MAX_PD_LEN - CMKIT_MPA_IRD_ORD_LEN ||
	    (conn_param->private_data_len && !conn_param->private_data)) {
		rc = -EINVAL;
		goto out_fail;
	}
	ird = min_t(u32, conn_param->ird, CMKIT_MPA_V2_IRD_ORD_MASK);
	ord = min_t(u32, conn_param->ord, CMKIT_MPA_V2_IRD_ORD_MASK);
	if (test_bit(IRDMA_CM_NODE_ENHANCED, &cm_node->flags))
		irdma_negotiate_mpa_v2_ird_ord(0, &ird, &ord, cm_node->ird_size,
					       cm_node->ord_size);
	cm_node->ird_size = ird;
	cm_node->ord_size = ord;

	cm_id->add_ref(cm_id);
	cm_node->cm_id = cm_id;
	set_bit(IRDMA_CM_NODE_ID_HELD, &cm_node->flags);
	cm_node->ul_state = IRDMA_CM_UL_ACCEPTED;
	/* Queued before the reply goes out, so it precedes any close. */
	if (!irdma_create_event(cm_node, IRDMA_CM_EVENT_ESTABLISHED)) {
		cm_node->ul_state = IRDMA_CM_UL_CLOSED;
		rc = -ENOMEM;
		goto out_fail;
	}
	cm_node->state = IRDMA_CM_STATE_OFFLOADED;
	rc = irdma_cm_send_mpa(cm_node, false, conn_param->private_data,
			       conn_param->private_data_len);
	if (rc)
		irdma_cm_fail(cm_node, rc);	/* RESET follows ESTABLISHED */
	else
		irdma_cm_queue_sock_work(cm_node);
	mutex_unlock(&cm_node->lock);
	irdma_rem_ref_cm_node(cm_node);
	return 0;

out_fail:
	if (cm_node->state != IRDMA_CM_STATE_CLOSED) {
		cm_node->state = IRDMA_CM_STATE_CLOSED;
		irdma_cm_reset_sock(cm_node);
	}
	mutex_unlock(&cm_node->lock);
	irdma_cm_node_put_base(cm_node);
	irdma_rem_ref_cm_node(cm_node);
	return rc;
}
CMKIT_EXPORT(cmkit_irdma_accept);

/**
 * cmkit_irdma_reject - refuse a connection indicated by CONNECT_REQUEST
 * @cm_id: an id whose provider_data is the event's provider_data
 * @pdata: private data for the peer, or NULL
 * @pdata_len: its length
 *
 * Sends an MPA reply with the reject flag and closes the connection.  No
 * event follows.
 *
 * Return: 0, or -EINVAL for a bad argument (the request is still rejected).
 */
int cmkit_irdma_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len)
{
	struct irdma_cm_node *cm_node = cm_id->provider_data;
	int rc = 0;

	if (!cm_node)
		return -EINVAL;
	if (pdata_len && !pdata) {
		pdata_len = 0;
		rc = -EINVAL;
	}
	irdma_cm_hook(cm_node->cm_core, IRDMA_HOOK_API_NODE_HELD, cm_node);
	mutex_lock(&cm_node->lock);
	if (cm_node->state == IRDMA_CM_STATE_MPAREQ_RCVD && cm_node->sock) {
		if (irdma_cm_send_mpa(cm_node, true, pdata, pdata_len) == 0)
			kernel_sock_shutdown(cm_node->sock, SHUT_WR);
		pr_info("%pI4h:%u: rejected, %u bytes of private data\n",
			&cm_node->rem_addr, cm_node->rem_port, pdata_len);
	}
	cm_node->state = IRDMA_CM_STATE_CLOSED;
	cm_node->ul_state = IRDMA_CM_UL_CLOSED;
	irdma_cm_node_release_sock(cm_node);
	mutex_unlock(&cm_node->lock);
	irdma_cm_node_put_base(cm_node);
	return rc;
}
CMKIT_EXPORT(cmkit_irdma_reject);

/**
 * cmkit_irdma_cm_close - close an established connection
 * @cm_id: the connection's id (provider_data names its node)
 * @abrupt: reset instead of an orderly close
 *
 * Orderly: our FIN goes out, and when the peer's arrives the upper layer
 * gets DISCONNECT(0) and CLOSE.  Abrupt: a reset, then DISCONNECT
 * (-ECONNRESET) and CLOSE; this also ends an orderly close whose peer never
 * sends its FIN (as iw_cm's destroy does after a disconnect).
 *
 * Return: 0, or -ENOTCONN when the connection is not established (or, for
 * an orderly close, already closing).
 */
int cmkit_irdma_cm_close(struct iw_cm_id *cm_id, bool abrupt)
{
	struct irdma_cm_node *cm_node = cm_id->provider_data;
	int rc = 0;
	bool up;

	if (!cm_node)
		return -EINVAL;
	/* A RESET posted here may free the node before we unlock. */
	irdma_add_ref_cm_node(cm_node);
	irdma_cm_hook(cm_node->cm_core, IRDMA_HOOK_API_NODE_HELD, cm_node);
	mutex_lock(&cm_node->lock);
	/* A reset may also end our orderly close. */
	up = cm_node->state == IRDMA_CM_STATE_OFFLOADED ||
	     (abrupt && cm_node->state == IRDMA_CM_STATE_FIN_WAIT1);
	if (!up || !cm_node->sock) {
		rc = -ENOTCONN;
	} else if (abrupt) {
		irdma_cm_post_end(cm_node, IRDMA_CM_EVENT_RESET);
		cm_node->state = IRDMA_CM_STATE_CLOSED;
		irdma_cm_reset_sock(cm_node);
	} else {
		cm_node->state = IRDMA_CM_STATE_FIN_WAIT1;
		rc = kernel_sock_shutdown(cm_node->sock, SHUT_WR);
		if (rc)
			irdma_cm_fail(cm_node, rc);
		rc = 0;
	}
	mutex_unlock(&cm_node->lock);
	irdma_rem_ref_cm_node(cm_node);
	return rc;
}
CMKIT_EXPORT(cmkit_irdma_cm_close);
