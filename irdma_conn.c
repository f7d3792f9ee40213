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
 * malformed, truncated or oversized frame aborts the connection.  Nothing a
 * peer does is logged (a peer could fill the log): each decision is a
 * tracepoint (events/cmkit_irdma/), and aborts are counted in the core's
 * stats.
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
 * irdma_cm_sock_create - a kernel TCP socket for a connect or a listen
 * @sock: set to the socket
 *
 * Return: 0, or a negative errno (fault step sock_create: -ENOMEM).
 */
int irdma_cm_sock_create(struct socket **sock)
{
	if (irdma_fault(IRDMA_FAULT_SOCK_CREATE))
		return -ENOMEM;
	return sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, sock);
}

/**
 * irdma_cm_sock_bind - bind a socket of irdma_cm_sock_create()
 * @sock: the socket
 * @sin: the local IPv4 address and port (port 0: TCP's choice)
 *
 * Return: 0, or a negative errno (fault step bind: -EADDRINUSE).
 */
int irdma_cm_sock_bind(struct socket *sock, struct sockaddr_in *sin)
{
	if (irdma_fault(IRDMA_FAULT_BIND))
		return -EADDRINUSE;
	return kernel_bind(sock, CMKIT_SA(sin), sizeof(*sin));
}

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
	if (irdma_fault(IRDMA_FAULT_SENDMSG))
		return -EAGAIN;
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
	u8 *buf = NULL;
	int len, rc;

	if (!irdma_fault(IRDMA_FAULT_MPA_ALLOC))
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
	if (WARN_ONCE(len < 0, "cmkit: irdma: cannot build an MPA frame: %s\n",
		      cmkit_mpa_strerror(len))) {
		kfree(buf);	/* the API checked what it was given */
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
			trace_cmkit_irdma_bad_frame(cm_node, kind, rc, cm_node->rx_len);
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
			/* The peer closed mid-frame. */
			trace_cmkit_irdma_bad_frame(cm_node, kind, 0, cm_node->rx_len);
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

/* What a failed connect tells its upper layer: TCP's cause, else a reset. */
static int irdma_cm_connect_status(int err)
{
	switch (err) {
	case -ETIMEDOUT:	/* nobody answered the SYN */
	case -ECONNREFUSED:	/* RST to the SYN */
	case -EHOSTUNREACH:
	case -ENETUNREACH:
		return err;
	default:
		return -ECONNRESET;
	}
}

/*
 * End the connection with a reset (cm_node->lock held), and tell whom it
 * concerns: a connect still waiting gets ABORTED (CONNECT_REPLY with the
 * cause, see irdma_cm_connect_status()), an established connection RESET
 * (DISCONNECT(-ECONNRESET), CLOSE).  A passive connection the upper layer
 * has not heard of ends silently; one it has (an unanswered CONNECT_REQUEST)
 * keeps its base reference for the answer, which then finds the connection
 * gone.
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
	switch (state) {
	case IRDMA_CM_STATE_SYN_SENT:
	case IRDMA_CM_STATE_MPAREQ_SENT:
		cm_node->err = irdma_cm_connect_status(err);
		cm_node->pdata_len = 0;	/* ours, or a reply cut short: not the peer's */
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
 * layer has not heard of ends silently, and one it has been asked about (a
 * CONNECT_REQUEST) waits for the consumer's answer, which finds it gone.
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
	if (f->pdata_len > IRDMA_CM_MAX_PDATA) {
		/* Valid MPA, but an iw_cm_event cannot carry it. */
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

	if (f->pdata_len > IRDMA_CM_MAX_PDATA) {
		/* As for a request: the upper layer gets it whole or not at all. */
		irdma_cm_fail(cm_node, -EMSGSIZE);
		return;
	}
	irdma_cm_save_pdata(cm_node, f);
	if (f->flags & CMKIT_MPA_FLAG_REJECT) {
		cm_node->state = IRDMA_CM_STATE_MPAREJ_RCVD;
		irdma_cm_post_end(cm_node, IRDMA_CM_EVENT_MPA_REJECT);
		irdma_cm_node_release_sock(cm_node);
		return;
	}
	if (f->rev > cm_node->mpa_rev || (enhanced && !f->enhanced)) {
		/* A reply of another revision than our request (traced as rx). */
		irdma_cm_fail(cm_node, -EPROTO);
		return;
	}
	if (enhanced && irdma_negotiate_mpa_v2_ird_ord(1, &cm_node->ird_size,
						       &cm_node->ord_size,
						       f->ird, f->ord)) {
		/* Our IRD is short of the peer's ORD. */
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
		trace_cmkit_irdma_closed(cm_node, cm_node->state, cm_node->rx_dropped);
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

static int irdma_cm_check_param(const struct iw_cm_conn_param *conn_param)
{
	if (conn_param->private_data_len > IRDMA_CM_MAX_PDATA ||
	    (conn_param->private_data_len && !conn_param->private_data))
		return -EINVAL;
	return 0;
}

/**
 * cmkit_irdma_connect - connect to an iWARP peer
 * @cm_core: the core to connect through
 * @cm_id: the upper layer: m_local_addr (address or port 0 for any; both
 *	are set to TCP's choice), m_remote_addr,
 *	event_handler, add_ref and rem_ref set
 * @conn_param: private data (at most IRDMA_CM_MAX_PDATA bytes), IRD and
 *	ORD; qpn is ignored (no QP is bound)
 *
 * Sends an MPA request of cm_core->mpa_version (revision 2: enhanced, with
 * IRD and ORD) once TCP is up.  The upper layer then gets exactly one
 * CONNECT_REPLY: 0 with the peer's private data and the negotiated IRD/ORD;
 * -ECONNREFUSED with the peer's private data if it rejected, or without
 * any if TCP refused the connection; -ETIMEDOUT if TCP gave up on the SYN;
 * -ECONNRESET if the connection failed otherwise.  cm_id->provider_data
 * names the node from here until that CONNECT_REPLY fails, or until CLOSE.
 *
 * Return: 0, or a negative errno and then no event is delivered: -EINVAL
 * (bad parameters), -ENODEV (@cm_core is being cleaned up), -ENOMEM, or
 * what creating, binding or connecting the socket returned.
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
	if (irdma_cm_check_param(conn_param))
		return -EINVAL;
	info.cm_id = cm_id;
	info.loc_addr = ntohl(laddr->sin_addr.s_addr);
	info.loc_port = ntohs(laddr->sin_port);
	info.rem_addr = ntohl(raddr->sin_addr.s_addr);
	info.rem_port = ntohs(raddr->sin_port);
	cm_node = irdma_make_cm_node(cm_core, cm_id, &info);
	if (IS_ERR(cm_node)) {
		trace_cmkit_irdma_api(0, CMKIT_IRDMA_API_CONNECT, PTR_ERR(cm_node));
		return PTR_ERR(cm_node);
	}
	irdma_cm_hook(cm_core, IRDMA_HOOK_CONNECT_NODE_MADE, cm_node);
	irdma_add_ref_cm_node(cm_node);	/* ours, until we are done with it */
	cm_node->ird_size = min_t(u32, conn_param->ird, CMKIT_MPA_V2_IRD_ORD_MASK);
	cm_node->ord_size = min_t(u32, conn_param->ord, CMKIT_MPA_V2_IRD_ORD_MASK);
	if (cm_node->mpa_rev == CMKIT_MPA_REV2)
		set_bit(IRDMA_CM_NODE_ENHANCED, &cm_node->flags);
	cm_node->pdata_len = conn_param->private_data_len;
	memcpy(cm_node->pdata_buf, conn_param->private_data, cm_node->pdata_len);

	rc = irdma_cm_sock_create(&sock);
	if (rc)
		goto out_put;
	rc = irdma_cm_sock_bind(sock, laddr);
	if (rc) {
		sock_release(sock);
		goto out_put;
	}
	tcp_sock_set_nodelay(sock->sk);

	mutex_lock(&cm_node->lock);
	if (test_bit(IRDMA_CM_NODE_REAPED, &cm_node->flags)) {
		/* Cleanup began after the node was made and passed it by. */
		mutex_unlock(&cm_node->lock);
		sock_release(sock);
		rc = -ENODEV;
		goto out_put;
	}
	irdma_cm_node_attach_sock(cm_node, sock);
	cm_node->state = IRDMA_CM_STATE_SYN_SENT;
	rc = irdma_fault(IRDMA_FAULT_CONNECT) ? -ENETUNREACH :
	     kernel_connect(sock, CMKIT_SA(raddr), sizeof(*raddr), O_NONBLOCK);
	if (rc && rc != -EINPROGRESS) {
		cm_node->state = IRDMA_CM_STATE_CLOSED;
		irdma_cm_node_release_sock(cm_node);
		mutex_unlock(&cm_node->lock);
		goto out_put;
	}
	cm_id->add_ref(cm_id);
	set_bit(IRDMA_CM_NODE_ID_HELD, &cm_node->flags);
	/* The source address and port TCP chose, when the caller left them open. */
	if (kernel_getsockname(sock, (struct sockaddr *)laddr) >= 0) {
		cm_node->loc_addr = ntohl(laddr->sin_addr.s_addr);
		cm_node->loc_port = ntohs(laddr->sin_port);
		memcpy(&cm_id->local_addr, laddr, sizeof(*laddr));
	}
	cm_node->ul_state = IRDMA_CM_UL_CONN_SENT;
	irdma_cm_id_publish(cm_id, cm_node);
	trace_cmkit_irdma_api(cm_node->id, CMKIT_IRDMA_API_CONNECT, 0);
	irdma_cm_queue_sock_work(cm_node);
	mutex_unlock(&cm_node->lock);
	irdma_cm_hook(cm_core, IRDMA_HOOK_CONNECT_ISSUED, cm_node);
	irdma_rem_ref_cm_node(cm_node);
	return 0;

out_put:
	trace_cmkit_irdma_api(cm_node->id, CMKIT_IRDMA_API_CONNECT, rc);
	irdma_cm_node_put_base(cm_node);
	irdma_rem_ref_cm_node(cm_node);
	return rc;
}
CMKIT_EXPORT(cmkit_irdma_connect);

/*
 * The node a CONNECT_REQUEST named, for its one answer: referenced, or NULL
 * (-EINVAL) when @cm_id names none, or a node that is not a request or
 * was answered already.
 */
static struct irdma_cm_node *irdma_cm_answering(struct iw_cm_id *cm_id)
{
	struct irdma_cm_node *cm_node = irdma_cm_id_get_node(cm_id);

	if (!cm_node)
		return NULL;
	irdma_cm_hook(cm_node->cm_core, IRDMA_HOOK_API_NODE_HELD, cm_node);
	if (!cm_node->passive ||
	    test_and_set_bit(IRDMA_CM_NODE_ANSWERED, &cm_node->flags)) {
		irdma_rem_ref_cm_node(cm_node);
		return NULL;
	}
	return cm_node;
}

/**
 * cmkit_irdma_accept - accept a connection indicated by CONNECT_REQUEST
 * @cm_id: the upper layer's id for the connection; provider_data is the
 *	event's provider_data
 * @conn_param: private data for the reply (at most IRDMA_CM_MAX_PDATA
 *	bytes), our IRD and ORD (ORD lowered to the peer's IRD for an
 *	enhanced request)
 *
 * Sends the MPA reply; ESTABLISHED follows on @cm_id, then eventually
 * DISCONNECT and CLOSE.  Accept or reject must answer every request, once.
 *
 * Return: 0, or a negative errno and then no event is delivered on @cm_id:
 * -EINVAL for bad parameters (the request still awaits its answer) or an
 * id that names no unanswered request; -ECONNRESET when the peer is gone,
 * -ENOMEM, or the reply's send error (the peer is reset; the request is
 * answered).
 */
int cmkit_irdma_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *conn_param)
{
	struct irdma_cm_event *event;
	struct irdma_cm_node *cm_node;
	u16 ird, ord;
	int rc;

	if (irdma_cm_check_param(conn_param))
		return -EINVAL;
	cm_node = irdma_cm_answering(cm_id);
	if (!cm_node)
		return -EINVAL;
	/* ESTABLISHED can always be posted once the reply is out. */
	event = irdma_cm_alloc_event();
	mutex_lock(&cm_node->lock);
	if (!event)
		rc = -ENOMEM;
	else if (cm_node->state != IRDMA_CM_STATE_MPAREQ_RCVD || !cm_node->sock)
		rc = -ECONNRESET;
	else
		rc = 0;
	if (rc)
		goto out_fail;
	ird = min_t(u32, conn_param->ird, CMKIT_MPA_V2_IRD_ORD_MASK);
	ord = min_t(u32, conn_param->ord, CMKIT_MPA_V2_IRD_ORD_MASK);
	if (test_bit(IRDMA_CM_NODE_ENHANCED, &cm_node->flags))
		irdma_negotiate_mpa_v2_ird_ord(0, &ird, &ord, cm_node->ird_size,
					       cm_node->ord_size);
	cm_node->ird_size = ird;
	cm_node->ord_size = ord;
	rc = irdma_cm_send_mpa(cm_node, false, conn_param->private_data,
			       conn_param->private_data_len);
	if (rc)
		goto out_fail;

	cm_id->add_ref(cm_id);
	cm_node->cm_id = cm_id;
	set_bit(IRDMA_CM_NODE_ID_HELD, &cm_node->flags);
	cm_node->ul_state = IRDMA_CM_UL_ACCEPTED;
	cm_node->state = IRDMA_CM_STATE_OFFLOADED;
	/* Under the lock: the socket work cannot post a close before it. */
	irdma_cm_queue_event(cm_node, event, IRDMA_CM_EVENT_ESTABLISHED);
	irdma_cm_queue_sock_work(cm_node);
	mutex_unlock(&cm_node->lock);
	trace_cmkit_irdma_api(cm_node->id, CMKIT_IRDMA_API_ACCEPT, 0);
	irdma_rem_ref_cm_node(cm_node);
	return 0;

out_fail:
	if (cm_node->state != IRDMA_CM_STATE_CLOSED) {
		cm_node->state = IRDMA_CM_STATE_CLOSED;
		irdma_cm_reset_sock(cm_node);
	}
	cm_node->ul_state = IRDMA_CM_UL_CLOSED;
	mutex_unlock(&cm_node->lock);
	kfree(event);
	trace_cmkit_irdma_api(cm_node->id, CMKIT_IRDMA_API_ACCEPT, rc);
	irdma_cm_id_clear(cm_id, cm_node);
	irdma_cm_node_put_base(cm_node);
	irdma_rem_ref_cm_node(cm_node);
	return rc;
}
CMKIT_EXPORT(cmkit_irdma_accept);

/**
 * irdma_cm_node_reject - refuse a request with an MPA reject, and close
 * @cm_node: a passive node; the caller holds a reference, not its lock
 * @pdata: private data for the peer, or NULL
 * @pdata_len: its length
 *
 * A reject that cannot be sent (or a peer already gone) ends in a reset.
 */
void irdma_cm_node_reject(struct irdma_cm_node *cm_node, const void *pdata,
			  u8 pdata_len)
{
	mutex_lock(&cm_node->lock);
	if (cm_node->state == IRDMA_CM_STATE_MPAREQ_RCVD && cm_node->sock &&
	    !irdma_cm_send_mpa(cm_node, true, pdata, pdata_len))
		kernel_sock_shutdown(cm_node->sock, SHUT_WR);
	else if (cm_node->sock)
		sock_no_linger(cm_node->sock->sk);
	cm_node->state = IRDMA_CM_STATE_CLOSED;
	irdma_cm_node_release_sock(cm_node);
	mutex_unlock(&cm_node->lock);
}

/**
 * cmkit_irdma_reject - refuse a connection indicated by CONNECT_REQUEST
 * @cm_id: an id whose provider_data is the event's provider_data
 * @pdata: private data for the peer, or NULL
 * @pdata_len: its length
 *
 * Sends an MPA reply with the reject flag and closes the connection.  No
 * event follows, and @cm_id names no node any more.  This is also the
 * answer to a request whose CONNECT_REQUEST upcall returned non-zero.
 *
 * Return: 0; -EINVAL for @pdata_len without @pdata (the request is still
 * rejected, without private data), or for an id that names no unanswered
 * request.
 */
int cmkit_irdma_reject(struct iw_cm_id *cm_id, const void *pdata, u8 pdata_len)
{
	struct irdma_cm_node *cm_node = irdma_cm_answering(cm_id);
	int rc = 0;

	if (!cm_node)
		return -EINVAL;
	if (pdata_len && !pdata) {
		pdata_len = 0;
		rc = -EINVAL;
	}
	irdma_cm_id_clear(cm_id, cm_node);
	mutex_lock(&cm_node->lock);
	cm_node->ul_state = IRDMA_CM_UL_CLOSED;
	mutex_unlock(&cm_node->lock);
	irdma_cm_node_reject(cm_node, pdata, pdata_len);
	trace_cmkit_irdma_api(cm_node->id, CMKIT_IRDMA_API_REJECT, rc);
	irdma_cm_node_put_base(cm_node);
	irdma_rem_ref_cm_node(cm_node);
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
 * Return: 0, -EINVAL when @cm_id names no node (its connection ended: its
 * last upcall was made), or -ENOTCONN when the connection is not
 * established (or, for an orderly close, already closing).
 */
int cmkit_irdma_cm_close(struct iw_cm_id *cm_id, bool abrupt)
{
	struct irdma_cm_node *cm_node = irdma_cm_id_get_node(cm_id);
	int rc = 0;
	bool up;

	if (!cm_node)
		return -EINVAL;
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
	trace_cmkit_irdma_api(cm_node->id, abrupt ? CMKIT_IRDMA_API_RESET :
			      CMKIT_IRDMA_API_CLOSE, rc);
	irdma_rem_ref_cm_node(cm_node);
	return rc;
}
CMKIT_EXPORT(cmkit_irdma_cm_close);
