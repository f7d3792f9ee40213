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
 * the MPA frame (or RTR message) it is receiving, nothing at all while a
 * request awaits its answer, and at most IRDMA_CM_RX_BUDGET bytes per run
 * after the exchange (then it requeues itself), so a peer that streams
 * cannot keep the consumer API from the lock; it posts events for the
 * handler.  A malformed, truncated or oversized frame aborts the
 * connection; a request cmkit refuses for what it asks (revision, markers,
 * P2P, RTR type, IRD, private data an upcall cannot carry) is answered
 * with a reasoned MPA reject.  Each wait for the peer (request, reply,
 * RTR) has a timer.  Nothing a peer does is
 * logged (a peer could fill the log): each decision is a tracepoint
 * (events/cmkit_irdma/), and aborts are counted in the core's stats.
 *
 * Peer-to-peer (RFC 6581): an initiator whose reply grants P2P sends the
 * RTR message the reply chose, then is connected (a Read RTR's Read
 * Response is checked when it comes); a responder that granted P2P returns
 * from its accept once the reply is out, and its socket work indicates
 * ESTABLISHED when the initiator's RTR arrives (answering a Read RTR with
 * its Read Response), as siw does: no accept sleeps, so none made from an
 * upcall holds up the core's event workqueue.  An accepted connection whose
 * RTR never comes (the node's timer), or comes wrong, ends as iw_cm allows
 * an accepted one to end (a CLOSE before ESTABLISHED is a BUG() there):
 * ESTABLISHED, DISCONNECT(-ECONNRESET), CLOSE, as irdma's first generation,
 * which indicates ESTABLISHED at its accept, would say it.
 */
#define pr_fmt(fmt) "cmkit: irdma: " fmt

#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include <cmkit/mpa_fpdu.h>
#include "irdma/irdma.h"
#include "irdma/trace.h"

static void irdma_cm_sock_work(struct work_struct *work);

/**
 * cmkit_irdma_cm_sock_create - a kernel TCP socket for a connect or a listen
 * @family: AF_INET or AF_INET6
 * @sock: set to the socket
 *
 * Return: 0, or a negative errno (fault step sock_create: -ENOMEM).
 */
int cmkit_irdma_cm_sock_create(int family, struct socket **sock)
{
	if (irdma_fault(IRDMA_FAULT_SOCK_CREATE))
		return -ENOMEM;
	return sock_create_kern(&init_net, family, SOCK_STREAM, IPPROTO_TCP, sock);
}

/**
 * cmkit_irdma_cm_sock_bind - bind a socket of cmkit_irdma_cm_sock_create()
 * @sock: the socket
 * @ss: the local address and port (port 0: TCP's choice), of the socket's
 *	family
 *
 * Return: 0, or a negative errno (fault step bind: -EADDRINUSE).
 */
int cmkit_irdma_cm_sock_bind(struct socket *sock, struct sockaddr_storage *ss)
{
	if (irdma_fault(IRDMA_FAULT_BIND))
		return -EADDRINUSE;
	return kernel_bind(sock, CMKIT_KSOCKADDR(ss), irdma_sa_len(ss));
}

/**
 * cmkit_irdma_cm_node_unpend - a passive node no longer counts in its backlog
 * @cm_node: the node; its request was answered, or it ended
 *
 * Safe to call more than once.
 */
void cmkit_irdma_cm_node_unpend(struct irdma_cm_node *cm_node)
{
	if (test_and_clear_bit(IRDMA_CM_NODE_PENDING, &cm_node->flags))
		atomic_dec(&cm_node->listener->pending);
}

/**
 * cmkit_irdma_cm_timer_start - arm the node's MPA timer
 * @cm_node: the node, its lock held
 * @ms: milliseconds from now
 *
 * The timer holds a node reference while it is queued; irdma_cm_fail()
 * runs when it expires, unless the wait it guards is over by then
 * (irdma_cm_timer_stop()).
 */
void cmkit_irdma_cm_timer_start(struct irdma_cm_node *cm_node, unsigned int ms)
{
	unsigned long delay = msecs_to_jiffies(ms);

	cm_node->timer_due = (jiffies + delay) ?: 1;
	cmkit_irdma_add_ref_cm_node(cm_node);
	if (mod_delayed_work(cm_node->cm_core->sock_wq, &cm_node->mpa_timer, delay))
		cmkit_irdma_rem_ref_cm_node(cm_node);	/* it was queued: holds one already */
}

/* The wait the timer guards is over (cm_node->lock held, or the last reference). */
static void irdma_cm_timer_stop(struct irdma_cm_node *cm_node)
{
	cm_node->timer_due = 0;
	if (cancel_delayed_work(&cm_node->mpa_timer))
		cmkit_irdma_rem_ref_cm_node(cm_node);
}

/**
 * cmkit_irdma_cm_queue_sock_work - have the node's socket work run
 * @cm_node: the node
 *
 * Queues the work with a reference for it, unless it is queued already:
 * that work has not started and will see what woke us.  The work clears
 * the bit before it reads the socket.
 *
 * Context: any, softirq included.
 */
void cmkit_irdma_cm_queue_sock_work(struct irdma_cm_node *cm_node)
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
		cmkit_irdma_cm_queue_sock_work(cm_node);
	read_unlock_bh(&sk->sk_callback_lock);
}

/**
 * cmkit_irdma_cm_node_attach_sock - give a node its TCP socket
 * @cm_node: the node, its lock held
 * @sock: a connected or connecting socket; the node releases it
 *
 * The socket's callbacks now queue the node's socket work.
 */
void cmkit_irdma_cm_node_attach_sock(struct irdma_cm_node *cm_node,
				     struct socket *sock)
{
	struct sock *sk = sock->sk;

	/* Once: a revision 1 retry attaches a second socket from this very work. */
	if (!cm_node->sock_work.func)
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
 * cmkit_irdma_cm_node_release_sock - detach and close a node's socket, if any
 * @cm_node: the node; its lock is held, or this is its last reference
 *
 * Whatever the node waited for the peer for is over: its timer is stopped.
 * A queued socket work that runs later finds no socket and does nothing.
 */
void cmkit_irdma_cm_node_release_sock(struct irdma_cm_node *cm_node)
{
	struct socket *sock = cm_node->sock;

	irdma_cm_timer_stop(cm_node);
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
	cmkit_irdma_cm_node_release_sock(cm_node);
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

	if (cmkit_mpa_parse(buf, len, cm_node->passive ? CMKIT_MPA_REPLY :
			    CMKIT_MPA_REQUEST, &f) > 0)
		trace_cmkit_irdma_mpa(cm_node, false, &f);
}

/*
 * Build and send our request (@r NULL: our offer, in cm_node->mpa_rev) or
 * our reply (@r: an accept, a consumer's reject, or a refusal with a
 * reason, whose private data is the reason).
 */
static int irdma_cm_send_mpa(struct irdma_cm_node *cm_node,
			     const struct cmkit_mpa_result *r,
			     const void *pdata, u16 pdata_len)
{
	u8 *buf = NULL;
	int len, rc;

	if (!irdma_fault(IRDMA_FAULT_MPA_ALLOC))
		buf = kmalloc(CMKIT_MPA_MAX_FRAME, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (r)
		len = cmkit_mpa_build_reply(buf, CMKIT_MPA_MAX_FRAME, r, pdata, pdata_len);
	else
		len = cmkit_mpa_build_request(buf, CMKIT_MPA_MAX_FRAME, &cm_node->offer,
					      cm_node->mpa_rev, pdata, pdata_len);
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

/* Send a reject (cm_node->lock held): with @reason, or the consumer's @pdata. */
static int irdma_cm_send_reject(struct irdma_cm_node *cm_node,
				enum cmkit_mpa_reject_reason reason,
				const void *pdata, u16 pdata_len)
{
	struct cmkit_mpa_result r = cm_node->neg;

	r.accept = 0;
	r.reason = reason;
	if (reason != CMKIT_MPA_REJ_NONE)
		pdata_len = 0;
	trace_cmkit_irdma_reject(cm_node, reason, pdata_len);
	return irdma_cm_send_mpa(cm_node, &r, pdata, pdata_len);
}

/* Send the RTR message, or the Read Response to one (cm_node->lock held). */
static int irdma_cm_send_fpdu(struct irdma_cm_node *cm_node, const struct cmkit_fpdu *rreq)
{
	u8 buf[CMKIT_FPDU_LEN_LEN + CMKIT_DDP_UNTAGGED_HDR_LEN + CMKIT_RDMAP_RREQ_HDR_LEN +
	       CMKIT_FPDU_CRC_LEN];
	int len;

	if (rreq)
		len = cmkit_rtr_build_read_resp(buf, sizeof(buf), &rreq->hdr, cm_node->neg.crc);
	else
		len = cmkit_rtr_build(buf, sizeof(buf), cm_node->neg.rtr, cm_node->neg.crc);
	if (WARN_ONCE(len < 0, "cmkit: irdma: cannot build an RTR: %s\n",
		      cmkit_fpdu_strerror(len)))
		return -EINVAL;	/* the deciders chose a type that exists */
	trace_cmkit_irdma_rtr(cm_node, false, cm_node->neg.rtr, rreq ? 1 : 0);
	return irdma_cm_send(cm_node, buf, len);
}

/* TCP keepalive for an established connection (cm_node->lock held). */
static void irdma_cm_keepalive(struct irdma_cm_node *cm_node)
{
	unsigned int idle = cm_node->cm_core->keepalive_idle;
	struct sock *sk;

	if (!idle || !cm_node->sock)
		return;
	sk = cm_node->sock->sk;
	tcp_sock_set_keepidle(sk, idle);
	tcp_sock_set_keepintvl(sk, min_t(unsigned int, idle, 10));
	tcp_sock_set_keepcnt(sk, 6);
	sock_set_keepalive(sk);
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
		rc = cmkit_mpa_parse(cm_node->rx_buf, cm_node->rx_len, kind, f);
		if (rc < 0) {
			trace_cmkit_irdma_bad_frame(cm_node, kind, rc, cm_node->rx_len);
			return -EPROTO;
		}
		if (rc > 0) {
			trace_cmkit_irdma_mpa(cm_node, true, f);
			cm_node->rx_len = 0;	/* @f points into rx_buf still */
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
 * Receive the FPDU a P2P exchange expects next, never more than it: the
 * initiator's RTR (responder), or the Read Response to our Read RTR
 * (initiator, @rreq).  Return: 1 with @fpdu filled when it is in and
 * right, 0 when more bytes are due, or a negative errno that ends the
 * connection.
 */
static int irdma_cm_recv_rtr(struct irdma_cm_node *cm_node,
			     const struct cmkit_iwarp_hdr *rreq, struct cmkit_fpdu *fpdu)
{
	int rc;

	for (;;) {
		if (rreq)
			rc = cmkit_rtr_check_read_resp(cm_node->rx_buf, cm_node->rx_len, rreq,
						       cm_node->neg.crc, fpdu);
		else
			rc = cmkit_rtr_check(cm_node->rx_buf, cm_node->rx_len, cm_node->neg.rtr,
					     cm_node->neg.crc, fpdu);
		if (rc) {
			trace_cmkit_irdma_rtr(cm_node, true, cm_node->neg.rtr, rc);
			cm_node->rx_len = 0;
			return rc > 0 ? 1 : -EPROTO;
		}
		if (cm_node->rx_len + fpdu->need > sizeof(cm_node->rx_buf))
			return -EPROTO;	/* cannot be: an RTR is at most 56 bytes */
		rc = irdma_cm_recv(cm_node, cm_node->rx_buf + cm_node->rx_len, fpdu->need);
		if (rc == -EAGAIN)
			return 0;
		if (rc == 0) {
			trace_cmkit_irdma_bad_frame(cm_node, CMKIT_MPA_REPLY, 0, cm_node->rx_len);
			return -ECONNABORTED;
		}
		if (rc < 0)
			return rc;
		cm_node->rx_len += rc;
	}
}

/*
 * After the MPA exchange there is no data path: count and drop what the
 * peer sends, at most IRDMA_CM_RX_BUDGET bytes per run of the socket work,
 * which then queues itself again behind the other work and lets the
 * consumer API have cm_node->lock meanwhile.  Return: 0 when nothing more
 * is readable now (or the rest is left to the next run), -ENODATA at the
 * peer's FIN, or the socket's error.
 */
static int irdma_cm_drain(struct irdma_cm_node *cm_node)
{
	size_t done = 0;
	int rc;

	while (done < IRDMA_CM_RX_BUDGET) {
		rc = irdma_cm_recv(cm_node, cm_node->rx_buf,
				   min(sizeof(cm_node->rx_buf), IRDMA_CM_RX_BUDGET - done));
		if (rc == -EAGAIN)
			return 0;
		if (rc == 0)
			return -ENODATA;
		if (rc < 0)
			return rc;
		cm_node->rx_dropped += rc;
		done += rc;
	}
	atomic_inc(&cm_node->cm_core->stats.rx_yields);
	trace_cmkit_irdma_rx_yield(cm_node, cm_node->state, done);
	cmkit_irdma_cm_queue_sock_work(cm_node);
	return 0;
}

/* Post an event that ends the connection; the node's spare makes this sure. */
static void irdma_cm_post_end(struct irdma_cm_node *cm_node,
			      enum irdma_cm_event_type type)
{
	if (!cmkit_irdma_create_event(cm_node, type))
		WARN_ONCE(1, "cmkit: irdma: lost the %s of %pISpc\n",
			  cmkit_irdma_cm_event_name(type), &cm_node->rem);
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
	case IRDMA_CM_STATE_RTR_WAIT:	/* accepted: the handler says ESTABLISHED first */
	case IRDMA_CM_STATE_OFFLOADED:
	case IRDMA_CM_STATE_FIN_WAIT1:
		irdma_cm_post_end(cm_node, IRDMA_CM_EVENT_RESET);
		break;
	case IRDMA_CM_STATE_ESTABLISHED:
		cmkit_irdma_cm_node_unpend(cm_node);
		cmkit_irdma_cm_node_put_base(cm_node);
		break;
	default:
		break;
	}
	irdma_cm_reset_sock(cm_node);
}

/*
 * A request awaits its answer: read nothing (what the peer sends meanwhile
 * stays in the socket, and TCP's window stops a peer that streams), but
 * notice that the peer went away (its FIN or reset): the answer then finds
 * the connection gone.
 */
static void irdma_cm_watch_request(struct irdma_cm_node *cm_node)
{
	struct sock *sk = cm_node->sock->sk;

	if (READ_ONCE(sk->sk_state) == TCP_ESTABLISHED && !READ_ONCE(sk->sk_err)) {
		atomic_inc(&cm_node->cm_core->stats.rx_held);
		trace_cmkit_irdma_rx_yield(cm_node, cm_node->state, 0);
		return;
	}
	irdma_cm_fail(cm_node, sock_error(sk) ?: -ECONNRESET);
}

/**
 * cmkit_irdma_cm_mpa_timeout - a peer kept us waiting too long
 * @work: the node's mpa_timer
 *
 * For the MPA request (passive: the connection ends, unindicated), the
 * peer's FIN after our orderly close (DISCONNECT(-ECONNRESET), CLOSE), the MPA
 * reply (active: CONNECT_REPLY(-ETIMEDOUT)) or the RTR (an accepted P2P
 * connection: ESTABLISHED, DISCONNECT(-ECONNRESET), CLOSE): the peer is
 * reset.  A timer whose wait ended meanwhile, or that
 * was re-armed, does nothing.
 */
void cmkit_irdma_cm_mpa_timeout(struct work_struct *work)
{
	struct irdma_cm_node *cm_node = container_of(to_delayed_work(work),
						     struct irdma_cm_node, mpa_timer);

	mutex_lock(&cm_node->lock);
	if (cm_node->timer_due && !time_before(jiffies, cm_node->timer_due)) {
		cm_node->timer_due = 0;
		trace_cmkit_irdma_timeout(cm_node, cm_node->state);
		irdma_cm_fail(cm_node, -ETIMEDOUT);
	}
	mutex_unlock(&cm_node->lock);
	cmkit_irdma_rem_ref_cm_node(cm_node);
}

/**
 * cmkit_irdma_cm_node_abort - reset a connection and tell whom it concerns
 * @cm_node: the node; the caller holds a reference, not its lock
 *
 * A connect still waiting gets CONNECT_REPLY(-ECONNRESET), an established
 * connection DISCONNECT(-ECONNRESET) and CLOSE; a connection the upper
 * layer has not heard of ends silently, and one it has been asked about (a
 * CONNECT_REQUEST) waits for the consumer's answer, which finds it gone.
 */
void cmkit_irdma_cm_node_abort(struct irdma_cm_node *cm_node)
{
	mutex_lock(&cm_node->lock);
	irdma_cm_fail(cm_node, -ECONNRESET);
	mutex_unlock(&cm_node->lock);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_cm_node_abort);

/**
 * cmkit_irdma_cm_abort_unindicated - reset a passive connection not yet indicated
 * @cm_node: the node; the caller holds a reference, not its lock
 *
 * For a listener going away: a peer that connected but has not sent its
 * whole MPA request would never be answered, so it is reset (upstream frees
 * such hanging nodes with their listener too).  A request already received
 * is left to the event handler, which indicates or refuses it.
 */
void cmkit_irdma_cm_abort_unindicated(struct irdma_cm_node *cm_node)
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

/*
 * Refuse a request cmkit will not take, before any upcall: a reject frame
 * with the reason, then our FIN (cm_node->lock held).
 */
static void irdma_cm_refuse(struct irdma_cm_node *cm_node,
			    enum cmkit_mpa_reject_reason reason)
{
	if (!irdma_cm_send_reject(cm_node, reason, NULL, 0))
		kernel_sock_shutdown(cm_node->sock, SHUT_WR);
	else
		sock_no_linger(cm_node->sock->sk);
	cm_node->state = IRDMA_CM_STATE_CLOSED;
	cmkit_irdma_cm_node_release_sock(cm_node);
	cmkit_irdma_cm_node_unpend(cm_node);
	cmkit_irdma_cm_node_put_base(cm_node);
}

static void irdma_cm_process_request(struct irdma_cm_node *cm_node,
				     const struct cmkit_mpa_frame *f)
{
	int rc;

	irdma_cm_timer_stop(cm_node);
	rc = cmkit_mpa_respond(&cm_node->offer, f, &cm_node->neg);
	if (!rc && f->pdata_len > IRDMA_CM_MAX_PDATA) {
		/* Valid MPA, but an iw_cm_event cannot carry it: refused whole. */
		cm_node->neg.p2p = cm_node->offer.p2p != CMKIT_MPA_P2P_OFF;
		cm_node->neg.rtr = cm_node->neg.p2p ? cm_node->offer.rtr : 0;
		rc = CMKIT_MPA_REJ_PDATA;
	}
	trace_cmkit_irdma_negotiate(cm_node, rc, &cm_node->neg);
	if (rc < 0) {
		irdma_cm_fail(cm_node, -EINVAL);	/* a listener's offer is checked */
		return;
	}
	if (rc > 0) {
		irdma_cm_refuse(cm_node, rc);
		return;
	}
	cm_node->mpa_rev = f->rev;
	cm_node->ird_size = f->ird;
	cm_node->ord_size = f->ord;
	irdma_cm_save_pdata(cm_node, f);
	cm_node->req = *f;
	cm_node->req.pdata = cm_node->pdata_buf;
	cm_node->state = IRDMA_CM_STATE_MPAREQ_RCVD;
	if (!cmkit_irdma_create_event(cm_node, IRDMA_CM_EVENT_MPA_REQ)) {
		/* No upcall was made: refuse the peer with a reset. */
		cm_node->state = IRDMA_CM_STATE_ESTABLISHED;
		irdma_cm_fail(cm_node, -ENOMEM);
	}
}

/*
 * A fresh TCP connection to the same peer, for a request in revision 1
 * (cmkit_mpa_fallback()): cm_node->lock held, the old socket released.
 */
static int irdma_cm_reconnect(struct irdma_cm_node *cm_node)
{
	struct sockaddr_storage local = cm_node->loc;
	struct socket *sock;
	int rc;

	rc = cmkit_irdma_cm_sock_create(cm_node->rem.ss_family, &sock);
	if (rc)
		return rc;
	if (local.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&local)->sin6_port = 0;
	else
		((struct sockaddr_in *)&local)->sin_port = 0;
	rc = cmkit_irdma_cm_sock_bind(sock, &local);
	if (rc) {
		sock_release(sock);
		return rc;
	}
	tcp_sock_set_nodelay(sock->sk);
	cmkit_irdma_cm_node_attach_sock(cm_node, sock);
	cm_node->state = IRDMA_CM_STATE_SYN_SENT;
	rc = irdma_fault(IRDMA_FAULT_CONNECT) ? -ENETUNREACH :
	     kernel_connect(sock, CMKIT_KSOCKADDR(&cm_node->rem), irdma_sa_len(&cm_node->rem),
			    O_NONBLOCK);
	if (rc && rc != -EINPROGRESS)
		return rc;
	if (kernel_getsockname(sock, (struct sockaddr *)&local) >= 0)
		cm_node->loc = local;
	cmkit_irdma_cm_queue_sock_work(cm_node);
	return 0;
}

/*
 * The responder refused our revision 2 request for its revision, or went
 * away before it replied (@f NULL): retry once in revision 1 if our offer
 * says so (cxgb4's and irdma's fallback).  Return: true if retrying.
 */
static bool irdma_cm_fallback(struct irdma_cm_node *cm_node, const struct cmkit_mpa_frame *f)
{
	int rc;

	if (test_bit(IRDMA_CM_NODE_FALLBACK, &cm_node->flags) ||
	    !cmkit_mpa_fallback(&cm_node->offer, cm_node->mpa_rev, f))
		return false;
	set_bit(IRDMA_CM_NODE_FALLBACK, &cm_node->flags);
	trace_cmkit_irdma_fallback(cm_node, f ? f->rev : 0);
	irdma_cm_reset_sock(cm_node);
	cm_node->mpa_rev = CMKIT_MPA_REV1;
	cm_node->rx_len = 0;
	rc = irdma_cm_reconnect(cm_node);
	if (rc) {
		cm_node->state = IRDMA_CM_STATE_SYN_SENT;
		irdma_cm_fail(cm_node, rc);
	}
	return true;
}

static void irdma_cm_process_reply(struct irdma_cm_node *cm_node,
				   const struct cmkit_mpa_frame *f)
{
	int rc;

	if (f->pdata_len > IRDMA_CM_MAX_PDATA) {
		/* As for a request: the upper layer gets it whole or not at all. */
		irdma_cm_fail(cm_node, -EMSGSIZE);
		return;
	}
	irdma_cm_timer_stop(cm_node);
	if (f->flags & CMKIT_MPA_FLAG_REJECT) {
		if (irdma_cm_fallback(cm_node, f))
			return;
		irdma_cm_save_pdata(cm_node, f);
		cm_node->state = IRDMA_CM_STATE_MPAREJ_RCVD;
		irdma_cm_post_end(cm_node, IRDMA_CM_EVENT_MPA_REJECT);
		cmkit_irdma_cm_node_release_sock(cm_node);
		return;
	}
	/*
	 * A revision 1 accept of our revision 2 request loses the IRD/ORD we
	 * asked for: not the connection we asked for (siw refuses it too).
	 */
	if (cm_node->mpa_rev == CMKIT_MPA_REV2 && f->rev == CMKIT_MPA_REV1)
		rc = CMKIT_MPA_E_REPLY_REV;
	else
		rc = cmkit_mpa_initiate(&cm_node->offer, cm_node->mpa_rev, f, &cm_node->neg);
	trace_cmkit_irdma_negotiate(cm_node, rc, &cm_node->neg);
	if (rc) {
		irdma_cm_fail(cm_node, -EPROTO);
		return;
	}
	irdma_cm_save_pdata(cm_node, f);
	cm_node->ird_size = cm_node->neg.ird;
	cm_node->ord_size = cm_node->neg.ord;
	if (cm_node->neg.p2p) {
		rc = irdma_cm_send_fpdu(cm_node, NULL);
		if (rc) {
			irdma_cm_fail(cm_node, rc);
			return;
		}
		if (cm_node->neg.rtr == CMKIT_MPA_RTR_READ)
			set_bit(IRDMA_CM_NODE_RRESP_DUE, &cm_node->flags);
	}
	cm_node->state = IRDMA_CM_STATE_OFFLOADED;
	irdma_cm_keepalive(cm_node);
	if (!cmkit_irdma_create_event(cm_node, IRDMA_CM_EVENT_CONNECTED))
		irdma_cm_fail(cm_node, -ENOMEM);
}

/*
 * Passive P2P, accepted: the RTR, then the connection is up and ESTABLISHED
 * goes to the upper layer (cm_node->lock held).  Return: true when it is.
 */
static bool irdma_cm_process_rtr(struct irdma_cm_node *cm_node)
{
	struct irdma_cm_event *event;
	struct cmkit_fpdu fpdu;
	int rc;

	rc = irdma_cm_recv_rtr(cm_node, NULL, &fpdu);
	if (!rc)
		return false;
	if (rc > 0 && cm_node->neg.rtr == CMKIT_MPA_RTR_READ)
		rc = irdma_cm_send_fpdu(cm_node, &fpdu) ?: 1;
	if (rc < 0) {
		irdma_cm_fail(cm_node, rc);
		return false;
	}
	irdma_cm_timer_stop(cm_node);
	cm_node->state = IRDMA_CM_STATE_OFFLOADED;
	irdma_cm_keepalive(cm_node);
	/* The accept allocated it: ESTABLISHED cannot be lost. */
	event = xchg(&cm_node->est_event, NULL);
	cmkit_irdma_cm_queue_event(cm_node, event, IRDMA_CM_EVENT_ESTABLISHED);
	return true;
}

/* Active P2P, Read RTR: the Read Response comes first (cm_node->lock held). */
static int irdma_cm_process_rresp(struct irdma_cm_node *cm_node)
{
	struct cmkit_iwarp_hdr rreq;
	struct cmkit_fpdu fpdu;
	int rc;

	cmkit_rtr_hdr(CMKIT_MPA_RTR_READ, &rreq);
	rc = irdma_cm_recv_rtr(cm_node, &rreq, &fpdu);
	if (rc > 0)
		clear_bit(IRDMA_CM_NODE_RRESP_DUE, &cm_node->flags);
	return rc;
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
		rc = irdma_cm_send_mpa(cm_node, NULL, cm_node->conn_pdata,
				       cm_node->conn_pdata_len);
		if (rc) {
			irdma_cm_fail(cm_node, rc);
			return;
		}
		cm_node->state = IRDMA_CM_STATE_MPAREQ_SENT;
		cmkit_irdma_cm_timer_start(cm_node, cm_node->cm_core->mpa_rep_timeout);
		fallthrough;
	case IRDMA_CM_STATE_MPAREQ_SENT:
		rc = irdma_cm_recv_mpa(cm_node, CMKIT_MPA_REPLY, &f);
		if ((rc == -ECONNABORTED || rc == -ECONNRESET) && irdma_cm_fallback(cm_node, NULL))
			return;
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
	case IRDMA_CM_STATE_RTR_WAIT:
		if (!irdma_cm_process_rtr(cm_node))
			return;
		break;
	case IRDMA_CM_STATE_MPAREQ_RCVD:
		irdma_cm_watch_request(cm_node);
		return;
	case IRDMA_CM_STATE_OFFLOADED:
	case IRDMA_CM_STATE_FIN_WAIT1:
		break;
	default:
		return;
	}

	if (test_bit(IRDMA_CM_NODE_RRESP_DUE, &cm_node->flags)) {
		rc = irdma_cm_process_rresp(cm_node);
		if (rc < 0) {
			irdma_cm_fail(cm_node, rc);
			return;
		}
		if (!rc)
			return;
	}
	rc = irdma_cm_drain(cm_node);
	if (!rc)
		return;
	if (rc == -ENODATA) {
		/* Orderly close; answer the peer's FIN with ours. */
		trace_cmkit_irdma_closed(cm_node, cm_node->state, cm_node->rx_dropped);
		irdma_cm_post_end(cm_node, IRDMA_CM_EVENT_DISCONN);
		cm_node->state = IRDMA_CM_STATE_CLOSED;
		kernel_sock_shutdown(cm_node->sock, SHUT_RDWR);
		cmkit_irdma_cm_node_release_sock(cm_node);
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
	cmkit_irdma_rem_ref_cm_node(cm_node);
}

static bool irdma_cm_family_supported(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET || ss->ss_family == AF_INET6;
}

static int irdma_cm_check_param(const struct iw_cm_conn_param *conn_param)
{
	if (conn_param->private_data_len > IRDMA_CM_MAX_PDATA ||
	    (conn_param->private_data_len && !conn_param->private_data))
		return -EINVAL;
	return 0;
}

/**
 * cmkit_irdma_connect - connect to an iWARP peer, as the core's defaults say
 * @cm_core: the core to connect through
 * @cm_id: the upper layer (see cmkit_irdma_connect_mpa())
 * @conn_param: private data, IRD and ORD
 *
 * cmkit_irdma_connect_mpa() with cmkit_irdma_cm_default_offer(): a request of
 * cm_core->mpa_version (revision 2: enhanced), no CRC, no P2P, no fallback.
 *
 * Return: as cmkit_irdma_connect_mpa().
 */
int cmkit_irdma_connect(struct irdma_cm_core *cm_core, struct iw_cm_id *cm_id,
			struct iw_cm_conn_param *conn_param)
{
	return cmkit_irdma_connect_mpa(cm_core, cm_id, conn_param, NULL);
}
EXPORT_SYMBOL_NS_GPL(cmkit_irdma_connect, CMKIT_NS);

/**
 * cmkit_irdma_connect_mpa - connect to an iWARP peer
 * @cm_core: the core to connect through
 * @cm_id: the upper layer: m_local_addr (IPv4 or IPv6 address, or port 0
 *	for any; both are set to TCP's choice), m_remote_addr of the same
 *	family, event_handler, add_ref and rem_ref set
 * @conn_param: private data (at most IRDMA_CM_MAX_PDATA bytes), IRD and
 *	ORD (above 0x3fff: 0x3fff, not specified); qpn is ignored (no QP)
 * @offer: revision, CRC, P2P and the RTR types to offer, revision 1
 *	fallback; its IRD and ORD are @conn_param's.  NULL: the core's
 *	defaults (cmkit_irdma_cm_default_offer())
 *
 * Sends the MPA request once TCP is up (revision 2: enhanced, with IRD
 * and ORD, and with @offer->p2p the P2P bit and RTR types).  A reply that
 * grants P2P is followed by the RTR message it chose.  The upper layer then
 * gets exactly one CONNECT_REPLY: 0 with the peer's private data and the
 * negotiated IRD/ORD; -ECONNREFUSED with the peer's private data if it
 * rejected (after a revision 1 retry, when @offer asks for one and the
 * peer refused revision 2), or without any if TCP refused the connection;
 * -ETIMEDOUT if TCP gave up on the SYN or the MPA reply did not come in
 * time (cm_core->mpa_rep_timeout); -ECONNRESET if the connection failed
 * otherwise (a reply that breaks the request's terms among them).
 * cm_id->provider_data names the node from here until that CONNECT_REPLY
 * fails, or until CLOSE.
 *
 * Return: 0, or a negative errno and then no event is delivered: -EINVAL
 * (bad parameters or offer), -EAFNOSUPPORT (addresses neither IPv4 nor
 * IPv6, or of two families), -ENODEV (@cm_core is being cleaned up),
 * -ENOMEM, or what creating, binding or connecting the socket returned.
 */
int cmkit_irdma_connect_mpa(struct irdma_cm_core *cm_core, struct iw_cm_id *cm_id,
			    struct iw_cm_conn_param *conn_param,
			    const struct cmkit_mpa_offer *offer)
{
	struct sockaddr_storage *laddr = &cm_id->m_local_addr;
	struct sockaddr_storage *raddr = &cm_id->m_remote_addr;
	struct irdma_cm_info info = {};
	struct irdma_cm_node *cm_node;
	struct cmkit_mpa_offer me;
	struct socket *sock;
	int rc;

	if (!irdma_cm_family_supported(laddr) || laddr->ss_family != raddr->ss_family)
		return -EAFNOSUPPORT;
	if (irdma_cm_check_param(conn_param))
		return -EINVAL;
	if (offer)
		me = *offer;
	else
		cmkit_irdma_cm_default_offer(cm_core, false, &me);
	me.ird = min_t(u32, conn_param->ird, CMKIT_MPA_V2_IRD_ORD_MASK);
	me.ord = min_t(u32, conn_param->ord, CMKIT_MPA_V2_IRD_ORD_MASK);
	if (!cmkit_mpa_offer_ok(&me))
		return -EINVAL;
	info.cm_id = cm_id;
	info.loc = *laddr;
	info.rem = *raddr;
	cm_node = cmkit_irdma_make_cm_node(cm_core, cm_id, &info);
	if (IS_ERR(cm_node)) {
		trace_cmkit_irdma_api(0, CMKIT_IRDMA_API_CONNECT, PTR_ERR(cm_node));
		return PTR_ERR(cm_node);
	}
	irdma_cm_hook(cm_core, IRDMA_HOOK_CONNECT_NODE_MADE, cm_node);
	cmkit_irdma_add_ref_cm_node(cm_node);	/* ours, until we are done with it */
	cm_node->offer = me;
	cm_node->mpa_rev = me.rev;
	cm_node->ird_size = me.ird;
	cm_node->ord_size = me.ord;
	cm_node->conn_pdata_len = conn_param->private_data_len;
	memcpy(cm_node->conn_pdata, conn_param->private_data, cm_node->conn_pdata_len);

	rc = cmkit_irdma_cm_sock_create(raddr->ss_family, &sock);
	if (rc)
		goto out_put;
	rc = cmkit_irdma_cm_sock_bind(sock, laddr);
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
	cmkit_irdma_cm_node_attach_sock(cm_node, sock);
	cm_node->state = IRDMA_CM_STATE_SYN_SENT;
	rc = irdma_fault(IRDMA_FAULT_CONNECT) ? -ENETUNREACH :
	     kernel_connect(sock, CMKIT_KSOCKADDR(raddr), irdma_sa_len(raddr), O_NONBLOCK);
	if (rc && rc != -EINPROGRESS) {
		cm_node->state = IRDMA_CM_STATE_CLOSED;
		cmkit_irdma_cm_node_release_sock(cm_node);
		mutex_unlock(&cm_node->lock);
		goto out_put;
	}
	cm_id->add_ref(cm_id);
	set_bit(IRDMA_CM_NODE_ID_HELD, &cm_node->flags);
	/* The source address and port TCP chose, when the caller left them open. */
	if (kernel_getsockname(sock, (struct sockaddr *)laddr) >= 0) {
		cm_node->loc = *laddr;
		cm_id->local_addr = *laddr;
	}
	cm_node->ul_state = IRDMA_CM_UL_CONN_SENT;
	cmkit_irdma_cm_id_publish(cm_id, cm_node);
	trace_cmkit_irdma_api(cm_node->id, CMKIT_IRDMA_API_CONNECT, 0);
	cmkit_irdma_cm_queue_sock_work(cm_node);
	mutex_unlock(&cm_node->lock);
	irdma_cm_hook(cm_core, IRDMA_HOOK_CONNECT_ISSUED, cm_node);
	cmkit_irdma_rem_ref_cm_node(cm_node);
	return 0;

out_put:
	trace_cmkit_irdma_api(cm_node->id, CMKIT_IRDMA_API_CONNECT, rc);
	cmkit_irdma_cm_node_put_base(cm_node);
	cmkit_irdma_rem_ref_cm_node(cm_node);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(cmkit_irdma_connect_mpa, CMKIT_NS);

/**
 * cmkit_irdma_mpa_info - what a connection's MPA exchange settled
 * @cm_id: an id whose provider_data names a connection (from a connect,
 *	or set from a CONNECT_REQUEST)
 * @info: filled in
 *
 * Meaningful once the exchange is over: from CONNECT_REPLY(0) or
 * ESTABLISHED on (for a CONNECT_REQUEST, what the accept would settle
 * with the request's terms).
 *
 * Return: 0, or -EINVAL when @cm_id names no connection.
 */
int cmkit_irdma_mpa_info(struct iw_cm_id *cm_id, struct cmkit_irdma_mpa_info *info)
{
	struct irdma_cm_node *cm_node = cmkit_irdma_cm_id_get_node(cm_id);

	if (!cm_node)
		return -EINVAL;
	mutex_lock(&cm_node->lock);
	info->rev = cm_node->neg.rev ?: cm_node->mpa_rev;
	info->enhanced = cm_node->neg.enhanced;
	info->crc = cm_node->neg.crc;
	info->p2p = cm_node->neg.p2p;
	info->rtr = cm_node->neg.rtr;
	info->fallback = test_bit(IRDMA_CM_NODE_FALLBACK, &cm_node->flags);
	info->ird = cm_node->ird_size;
	info->ord = cm_node->ord_size;
	mutex_unlock(&cm_node->lock);
	cmkit_irdma_rem_ref_cm_node(cm_node);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(cmkit_irdma_mpa_info, CMKIT_NS);

/*
 * The node a CONNECT_REQUEST named, for its one answer: referenced, or NULL
 * (-EINVAL) when @cm_id names none, or a node that is not a request or
 * was answered already.  An answered request leaves its listener's backlog.
 */
static struct irdma_cm_node *irdma_cm_request_to_answer(struct iw_cm_id *cm_id)
{
	struct irdma_cm_node *cm_node = cmkit_irdma_cm_id_get_node(cm_id);

	if (!cm_node)
		return NULL;
	irdma_cm_hook(cm_node->cm_core, IRDMA_HOOK_API_NODE_HELD, cm_node);
	if (!cm_node->passive ||
	    test_and_set_bit(IRDMA_CM_NODE_ANSWERED, &cm_node->flags)) {
		cmkit_irdma_rem_ref_cm_node(cm_node);
		return NULL;
	}
	cmkit_irdma_cm_node_unpend(cm_node);
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
 * Sends the MPA reply (CRC echoed, P2P granted with one RTR type when the
 * request asked and the listener's offer agrees).  Without P2P,
 * ESTABLISHED follows on @cm_id; with it, ESTABLISHED follows when the
 * initiator's RTR arrives (a Read RTR answered with its Read Response), and
 * an RTR that is wrong or does not come within cm_core->mpa_req_timeout
 * ends the connection with ESTABLISHED, DISCONNECT(-ECONNRESET) and CLOSE
 * (iw_cm has no way to end an accepted connection before ESTABLISHED).
 * Then eventually DISCONNECT and CLOSE.  Accept or reject must answer every
 * request, once.
 *
 * Context: process context, an upcall included: this never waits for the
 * peer.
 * Return: 0, or a negative errno and then no event is delivered on @cm_id:
 * -EINVAL for bad parameters (the request still awaits its answer) or an
 * id that names no unanswered request; -ECONNREFUSED when our IRD cannot
 * serve the request (strict offer) or leaves no RTR type (a reasoned MPA
 * reject was sent); -ECONNRESET when the peer is gone, -ENOMEM, or the
 * reply's send error (the peer is reset; the request is answered).
 */
int cmkit_irdma_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *conn_param)
{
	struct irdma_cm_event *event;
	struct irdma_cm_node *cm_node;
	struct cmkit_mpa_offer me;
	int rc;

	if (irdma_cm_check_param(conn_param))
		return -EINVAL;
	cm_node = irdma_cm_request_to_answer(cm_id);
	if (!cm_node)
		return -EINVAL;
	/* ESTABLISHED can always be posted once the reply is out. */
	event = cmkit_irdma_cm_alloc_event();
	mutex_lock(&cm_node->lock);
	if (!event)
		rc = -ENOMEM;
	else if (cm_node->state != IRDMA_CM_STATE_MPAREQ_RCVD || !cm_node->sock)
		rc = -ECONNRESET;
	else
		rc = 0;
	if (rc)
		goto out_fail;
	/* The request's terms, decided again with the consumer's IRD and ORD. */
	me = cm_node->offer;
	me.ird = min_t(u32, conn_param->ird, CMKIT_MPA_V2_IRD_ORD_MASK);
	me.ord = min_t(u32, conn_param->ord, CMKIT_MPA_V2_IRD_ORD_MASK);
	rc = cmkit_mpa_respond(&me, &cm_node->req, &cm_node->neg);
	trace_cmkit_irdma_negotiate(cm_node, rc, &cm_node->neg);
	if (rc > 0) {
		if (!irdma_cm_send_reject(cm_node, rc, NULL, 0))
			kernel_sock_shutdown(cm_node->sock, SHUT_WR);
		cm_node->state = IRDMA_CM_STATE_CLOSED;
		cmkit_irdma_cm_node_release_sock(cm_node);
		rc = -ECONNREFUSED;
		goto out_fail;
	}
	if (rc < 0) {
		rc = -EINVAL;	/* the listener's offer was checked */
		goto out_fail;
	}
	cm_node->ird_size = cm_node->neg.ird;
	cm_node->ord_size = cm_node->neg.ord;
	rc = irdma_cm_send_mpa(cm_node, &cm_node->neg, conn_param->private_data,
			       conn_param->private_data_len);
	if (rc)
		goto out_fail;

	cm_id->add_ref(cm_id);
	cm_node->cm_id = cm_id;
	set_bit(IRDMA_CM_NODE_ID_HELD, &cm_node->flags);
	cm_node->ul_state = IRDMA_CM_UL_ACCEPTED;
	if (cm_node->neg.p2p) {
		/* The socket work indicates ESTABLISHED when the RTR is in. */
		cm_node->est_event = event;
		cm_node->state = IRDMA_CM_STATE_RTR_WAIT;
		cmkit_irdma_cm_timer_start(cm_node, cm_node->cm_core->mpa_req_timeout);
	} else {
		cm_node->state = IRDMA_CM_STATE_OFFLOADED;
		irdma_cm_keepalive(cm_node);
		/* Under the lock: the socket work cannot post a close before it. */
		cmkit_irdma_cm_queue_event(cm_node, event, IRDMA_CM_EVENT_ESTABLISHED);
	}
	cmkit_irdma_cm_queue_sock_work(cm_node);	/* the RTR may be in already */
	mutex_unlock(&cm_node->lock);
	irdma_cm_hook(cm_node->cm_core, IRDMA_HOOK_ACCEPTED, cm_node);
	trace_cmkit_irdma_api(cm_node->id, CMKIT_IRDMA_API_ACCEPT, 0);
	cmkit_irdma_rem_ref_cm_node(cm_node);
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
	cmkit_irdma_cm_id_clear(cm_id, cm_node);
	cmkit_irdma_cm_node_put_base(cm_node);
	cmkit_irdma_rem_ref_cm_node(cm_node);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(cmkit_irdma_accept, CMKIT_NS);

/**
 * cmkit_irdma_cm_node_reject - refuse a request with an MPA reject, and close
 * @cm_node: a passive node; the caller holds a reference, not its lock
 * @pdata: private data for the peer, or NULL
 * @pdata_len: its length
 *
 * The reject is in the request's revision and format, with its CRC and
 * P2P terms.  A reject that cannot be sent (or a peer already gone) ends
 * in a reset.
 */
void cmkit_irdma_cm_node_reject(struct irdma_cm_node *cm_node, const void *pdata,
				u8 pdata_len)
{
	mutex_lock(&cm_node->lock);
	if (cm_node->state == IRDMA_CM_STATE_MPAREQ_RCVD && cm_node->sock &&
	    !irdma_cm_send_reject(cm_node, CMKIT_MPA_REJ_NONE, pdata, pdata_len))
		kernel_sock_shutdown(cm_node->sock, SHUT_WR);
	else if (cm_node->sock)
		sock_no_linger(cm_node->sock->sk);
	cm_node->state = IRDMA_CM_STATE_CLOSED;
	cmkit_irdma_cm_node_release_sock(cm_node);
	cmkit_irdma_cm_node_unpend(cm_node);
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
	struct irdma_cm_node *cm_node = irdma_cm_request_to_answer(cm_id);
	int rc = 0;

	if (!cm_node)
		return -EINVAL;
	if (pdata_len && !pdata) {
		pdata_len = 0;
		rc = -EINVAL;
	}
	cmkit_irdma_cm_id_clear(cm_id, cm_node);
	mutex_lock(&cm_node->lock);
	cm_node->ul_state = IRDMA_CM_UL_CLOSED;
	mutex_unlock(&cm_node->lock);
	cmkit_irdma_cm_node_reject(cm_node, pdata, pdata_len);
	trace_cmkit_irdma_api(cm_node->id, CMKIT_IRDMA_API_REJECT, rc);
	cmkit_irdma_cm_node_put_base(cm_node);
	cmkit_irdma_rem_ref_cm_node(cm_node);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(cmkit_irdma_reject, CMKIT_NS);

/**
 * cmkit_irdma_cm_close - close an established connection
 * @cm_id: the connection's id (provider_data names its node)
 * @abrupt: reset instead of an orderly close
 *
 * Orderly: our FIN goes out, and when the peer's arrives the upper layer
 * gets DISCONNECT(0) and CLOSE; a peer that sends no FIN within
 * cm_core->close_timeout is reset (DISCONNECT(-ECONNRESET), CLOSE).
 * Abrupt: a reset, then DISCONNECT(-ECONNRESET) and CLOSE; this also ends
 * an orderly close whose peer has not sent its FIN yet (as iw_cm's destroy
 * does after a disconnect), and an
 * accepted P2P connection still waiting for its RTR (ESTABLISHED comes
 * first then).
 *
 * Return: 0, -EINVAL when @cm_id names no node (its connection ended: its
 * last upcall was made), or -ENOTCONN when the connection is not
 * established (or, for an orderly close, already closing or still waiting
 * for its RTR).
 */
int cmkit_irdma_cm_close(struct iw_cm_id *cm_id, bool abrupt)
{
	struct irdma_cm_node *cm_node = cmkit_irdma_cm_id_get_node(cm_id);
	int rc = 0;
	bool up;

	if (!cm_node)
		return -EINVAL;
	irdma_cm_hook(cm_node->cm_core, IRDMA_HOOK_API_NODE_HELD, cm_node);
	mutex_lock(&cm_node->lock);
	/* A reset may also end our orderly close. */
	up = cm_node->state == IRDMA_CM_STATE_OFFLOADED ||
	     (abrupt && (cm_node->state == IRDMA_CM_STATE_FIN_WAIT1 ||
			 cm_node->state == IRDMA_CM_STATE_RTR_WAIT));
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
		else
			cmkit_irdma_cm_timer_start(cm_node, cm_node->cm_core->close_timeout);
		rc = 0;
	}
	mutex_unlock(&cm_node->lock);
	trace_cmkit_irdma_api(cm_node->id, abrupt ? CMKIT_IRDMA_API_RESET :
			      CMKIT_IRDMA_API_CLOSE, rc);
	cmkit_irdma_rem_ref_cm_node(cm_node);
	return rc;
}
EXPORT_SYMBOL_NS_GPL(cmkit_irdma_cm_close, CMKIT_NS);
