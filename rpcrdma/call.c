// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit rpcrdma: RPC NULL calls on the endpoint, after
 * net/sunrpc/xprtrdma/rpc_rdma.c (marshalling, the reply handler) and
 * transport.c (sending, the credit window, the retransmit timer).
 *
 * A call
 *  1. takes a req from the pool, then a credit: at most rb_credits calls
 *     outstanding, and never one more than Receives are posted for their
 *     replies (the server's RNR retry count is 0, as upstream's: a reply
 *     with no Receive would break the connection);
 *  2. is marshalled: RFC 8166 RDMA_MSG with three empty chunk lists,
 *     asking for the ring's worth of credits, carrying an RFC 5531 NULL
 *     call with AUTH_NONE credential and verifier;
 *  3. takes a send context and is posted under the transport's send lock,
 *     already on the list of calls waiting for a reply;
 *  4. waits for its reply.  The reply handler matches the transport xid;
 *     a reply shorter than a transport header or of another version, or
 *     whose xid no call waits for, is counted and dropped.  Only a matched
 *     reply updates the credits (0 counts as 1, more than the ring is
 *     clamped, as xprtrdma's cmkit_rpcrdma_reply_handler()).
 *
 * A call's round trip (rl_rtt_ns, the calls file's latencies) runs from
 * just before its ib_post_send() until its caller runs with the reply: the
 * thread that waits for the call, back from rpcrdma_call_wait() or, if
 * first, from the credit wait of its next call, before that call is
 * posted (rpcrdma_batch_returned()).  That is
 * cmkit-peer call's interval (tools/peer/rpc_call.cpp): NowNs() just before
 * ibv_post_send() in SendCalls(), to NowNs() on entry to OnReply(), which
 * its one thread runs once poll() on the completion channel returned and
 * ibv_get_cq_event() and ibv_poll_cq() handed it the reply's Receive
 * completion, before it decodes the reply and reposts the Receive.  Both
 * thus include the completion's way to the caller and the caller's wake-up;
 * the kernel's also includes the decoding, done in the reply handler.
 *
 * Every wait of a call is bounded by the transport's call timeout.  A call
 * without a reply in time closes the connection, as xprtrdma's
 * xprt_rdma_timer() does; the end of a connection completes every waiting
 * call with -ECONNABORTED.
 */
#define pr_fmt(fmt) "cmkit: rpcrdma: " fmt

#include <linux/slab.h>

#include "core/cmkit.h"
#include "rpcrdma/rpcrdma.h"
#include "rpcrdma/trace.h"

/**
 * cmkit_rpcrdma_result_to_errno - the errno a kernel client reports for a reply
 * @result: what cmkit_rpcrdma_decode_reply() or cmkit_rpcrdma_decode_rpc_reply()
 *	returned
 *
 * Return: 0 for an accepted, successful reply, else the kernel errno of
 * cmkit_rpcrdma_result_errno()'s abstract one (-EIO for what has none).
 */
int cmkit_rpcrdma_result_to_errno(int result)
{
	switch (cmkit_rpcrdma_result_errno(result)) {
	case CMKIT_RPCRDMA_ERRNO_NONE:
		return 0;
	case CMKIT_RPCRDMA_EPFNOSUPPORT:
		return -EPFNOSUPPORT;
	case CMKIT_RPCRDMA_EPROTONOSUPPORT:
		return -EPROTONOSUPPORT;
	case CMKIT_RPCRDMA_EOPNOTSUPP:
		return -EOPNOTSUPP;
	case CMKIT_RPCRDMA_EACCES:
		return -EACCES;
	case CMKIT_RPCRDMA_EMSGSIZE:
		return -EMSGSIZE;
	case CMKIT_RPCRDMA_EINVAL:
		return -EINVAL;
	default:
		return -EIO;
	}
}

static long rpcrdma_remaining(unsigned long deadline)
{
	long left = (long)(deadline - jiffies);

	return left > 0 ? left : 0;
}

/* The connection a call started on is gone, or another replaced it.  Under rb_lock. */
static bool rpcrdma_conn_lost(struct rpcrdma_buffer *buf, u32 gen)
{
	return !buf->rb_connected || buf->rb_gen != gen;
}

/* Receives to keep posted: the grant plus the backchannel allowance. */
static u32 rpcrdma_recv_target(struct rpcrdma_buffer *buf)
{
	return READ_ONCE(buf->rb_credits) + (buf->rb_bc_srv_max_requests << 1);
}

/* A free req: 1 with *@reqp set, 0 to wait, or -ECONNABORTED. */
static int rpcrdma_req_try(struct rpcrdma_buffer *buf, u32 gen, struct rpcrdma_req **reqp)
{
	bool lost;

	spin_lock(&buf->rb_lock);
	lost = rpcrdma_conn_lost(buf, gen);
	spin_unlock(&buf->rb_lock);
	if (lost)
		return -ECONNABORTED;
	*reqp = cmkit_rpcrdma_buffer_get(buf);
	return *reqp ? 1 : 0;
}

/*
 * Take a credit: 1 with *@outstanding set to the calls now outstanding,
 * 0 to wait, or -ECONNABORTED.
 */
static int rpcrdma_credit_try(struct rpcrdma_buffer *buf, u32 gen, u32 *outstanding)
{
	int rc = 0;

	spin_lock(&buf->rb_lock);
	if (rpcrdma_conn_lost(buf, gen)) {
		rc = -ECONNABORTED;
	} else if (buf->rb_outstanding < buf->rb_credits &&
		   buf->rb_outstanding < buf->rb_receive_count) {
		*outstanding = ++buf->rb_outstanding;
		rc = 1;
	}
	spin_unlock(&buf->rb_lock);
	return rc;
}

static void rpcrdma_credit_put(struct rpcrdma_buffer *buf)
{
	spin_lock(&buf->rb_lock);
	buf->rb_outstanding--;
	spin_unlock(&buf->rb_lock);
	wake_up_all(&buf->rb_wait);
}

/*
 * Turn a wait's outcome and its condition's last value into 0 or an errno.
 * Every wait of a call is killable, not interruptible, as an RPC task's
 * (rpc_wait_bit_killable()): only a fatal signal abandons a call.  A signal
 * the caller handles (a shell's SIGCHLD) would otherwise end the write of a
 * "call" command with -EINTR, and the shell would write it again.
 */
static int rpcrdma_wait_result(long t, int cond)
{
	if (cond > 0)
		return 0;
	if (cond < 0)
		return cond;
	return t < 0 ? -EINTR : -ETIMEDOUT;
}

/* A call of a batch in flight (cmkit_rpcrdma_xprt_call()). */
struct rpcrdma_inflight {
	struct rpcrdma_req *req;
	unsigned long deadline;
};

/* A batch's calls in flight, oldest first: @n from @fifo[@head], a ring of @window. */
struct rpcrdma_batch {
	struct rpcrdma_inflight *fifo;
	unsigned int head;
	unsigned int n;
	unsigned int window;
};

/* The oldest call of batch @b has ended: its req comes back once it is reaped. */
static bool rpcrdma_batch_head_done(const struct rpcrdma_batch *b)
{
	return b->n && completion_done(&b->fifo[b->head].req->rl_done);
}

/*
 * Take a req from the pool for batch @b: 0 with *@reqp set, -EAGAIN when
 * the pool is empty and @b's oldest call has ended (the caller reaps it,
 * which gives its req back, and tries again), or the errno of the wait.
 *
 * A batch gives its reqs back only as it reaps its calls, oldest first.
 * Two batches on one transport can hold every req between them, each
 * with calls whose replies are in: were the wait only for a free req,
 * each would wait for the other until the deadline.  So the wait also
 * ends when the batch's own oldest call does (the reply handler and the
 * abort wake rb_wait after they complete a call).
 */
static int rpcrdma_get_req(struct rpcrdma_xprt *r_xprt, u32 gen, unsigned long deadline,
			   const struct rpcrdma_batch *b, struct rpcrdma_req **reqp)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	int cond;
	long t;

	cond = rpcrdma_req_try(buf, gen, reqp);
	if (cond)
		return rpcrdma_wait_result(0, cond);
	trace_cmkit_rpcrdma_req_wait(r_xprt->rx_xid, b->n, rpcrdma_batch_head_done(b));
	t = wait_event_killable_timeout(buf->rb_wait,
					(cond = rpcrdma_req_try(buf, gen, reqp)) != 0 ||
					rpcrdma_batch_head_done(b),
					rpcrdma_remaining(deadline));
	if (!cond && rpcrdma_batch_head_done(b))
		return -EAGAIN;
	return rpcrdma_wait_result(t, cond);
}

static int rpcrdma_get_credit(struct rpcrdma_xprt *r_xprt, u32 gen, unsigned long deadline,
			      u32 *outstanding)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	int cond;
	long t;

	cond = rpcrdma_credit_try(buf, gen, outstanding);
	if (cond)
		return rpcrdma_wait_result(0, cond);
	atomic_inc(&cmkit_rpcrdma_stats.credit_waits);
	trace_cmkit_rpcrdma_credit_wait(r_xprt->rx_xid, READ_ONCE(buf->rb_outstanding),
					READ_ONCE(buf->rb_credits),
					READ_ONCE(buf->rb_receive_count));
	/*
	 * Receives run short only when replenishing them failed: try again.
	 * Otherwise a reply to a call outstanding frees the credit.
	 */
	cmkit_rpcrdma_post_recvs(r_xprt, rpcrdma_recv_target(buf));
	t = wait_event_killable_timeout(buf->rb_wait,
					(cond = rpcrdma_credit_try(buf, gen, outstanding)),
					rpcrdma_remaining(deadline));
	return rpcrdma_wait_result(t, cond);
}

/**
 * cmkit_rpcrdma_xid_get - take the xid of a call that goes whole in a read chunk
 * @r_xprt: the transport
 *
 * The RPC call of an RDMA_NOMSG call is written, with its xid, into its
 * position-zero read chunk before the chunk is registered; it takes its
 * xid here, from the sequence every other call takes its own from when it
 * is marshalled.
 *
 * Return: the xid.
 */
u32 cmkit_rpcrdma_xid_get(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	u32 xid;

	spin_lock(&buf->rb_lock);
	xid = buf->rb_xid++;
	spin_unlock(&buf->rb_lock);
	return xid;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_xid_get);

/*
 * A call whose RPC message its caller wrote whole (msg->whole): an
 * RDMA_MSG header with its chunk lists, then the message as it is.  Its
 * length, or a negative result.
 */
static int rpcrdma_marshal_whole(struct rpcrdma_req *req, u32 credits,
				 const struct rpcrdma_msg *msg)
{
	u8 *p = rdmab_data(req->rl_sendbuf);
	u32 room = rdmab_length(req->rl_sendbuf);
	int len;

	len = cmkit_rpcrdma_encode_hdr(p, room, req->rl_xid, CMKIT_RPCRDMA_VERSION, credits,
				       CMKIT_RPCRDMA_MSG, msg->ch);
	if (len < 0)
		return len;
	if (msg->args_len > room - len)
		return CMKIT_RPCRDMA_E_NOSPACE;
	memcpy(p + len, msg->args, msg->args_len);
	return len + msg->args_len;
}

/* Write the call, a NULL call unless @msg says otherwise, into the req's send buffer. */
static int rpcrdma_marshal_req(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req,
			       u32 prog, u32 vers, const struct rpcrdma_msg *msg)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	u32 credits;
	int len;

	spin_lock(&buf->rb_lock);
	/* Sent again, a call keeps its xid: the server's reply cache knows it by it. */
	if (!req->rl_xmits)
		req->rl_xid = msg && (msg->nomsg || msg->whole) ? msg->xid : buf->rb_xid++;
	credits = buf->rb_max_requests;
	spin_unlock(&buf->rb_lock);
	/* xprtrdma asks for its whole ring in every call. */
	if (msg && msg->nomsg)
		/* The RPC call, its xid written with it, is in the position-zero chunk. */
		len = cmkit_rpcrdma_encode_hdr(rdmab_data(req->rl_sendbuf),
					       rdmab_length(req->rl_sendbuf), req->rl_xid,
					       CMKIT_RPCRDMA_VERSION, credits, CMKIT_RPCRDMA_NOMSG,
					       msg->ch);
	else if (msg && msg->whole)
		/* The caller wrote the RPC call, its xid and credential with it. */
		len = rpcrdma_marshal_whole(req, credits, msg);
	else if (msg)
		len = cmkit_rpcrdma_encode_call(rdmab_data(req->rl_sendbuf),
						rdmab_length(req->rl_sendbuf), req->rl_xid,
						credits, prog, vers, msg->proc, msg->ch,
						msg->args, msg->args_len);
	else
		len = cmkit_rpcrdma_encode_null_call(rdmab_data(req->rl_sendbuf),
						     rdmab_length(req->rl_sendbuf), req->rl_xid,
						     credits, prog, vers);
	if (len < 0)
		return -EMSGSIZE;
	req->rl_len = len;
	req->rl_msg = msg;
	return 0;
}

/* Is the send-context ring usable, or the connection gone? */
static bool rpcrdma_sendctx_ready(struct rpcrdma_buffer *buf, u32 gen)
{
	bool lost;

	spin_lock(&buf->rb_lock);
	lost = rpcrdma_conn_lost(buf, gen);
	spin_unlock(&buf->rb_lock);
	return lost || cmkit_rpcrdma_sendctx_available(buf);
}

/*
 * Marshal and post the call, under the send lock, on the connection it
 * started on (a reconnect reallocates send buffers under the same lock).
 * Return 0, -EAGAIN if the ring is full, or the errno of the failure.
 */
static int rpcrdma_post_call(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req, u32 gen,
			     u32 prog, u32 vers, const struct rpcrdma_msg *msg)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_sendctx *sc;
	bool lost;
	int rc;

	mutex_lock(&r_xprt->rx_send_lock);
	spin_lock(&buf->rb_lock);
	lost = rpcrdma_conn_lost(buf, gen);
	spin_unlock(&buf->rb_lock);
	if (lost) {
		rc = -ECONNABORTED;
		goto out;
	}
	sc = cmkit_rpcrdma_sendctx_get_locked(r_xprt);
	if (!sc) {
		rc = -EAGAIN;
		goto out;
	}
	rc = rpcrdma_marshal_req(r_xprt, req, prog, vers, msg);
	if (rc) {
		cmkit_rpcrdma_sendctx_unget_locked(r_xprt, sc);
		goto out;
	}
	/* The Send's reference, dropped when the context is released. */
	kref_get(&req->rl_kref);
	sc->sc_req = req;
	req->rl_gen = gen;
	req->rl_prog = prog;
	req->rl_vers = vers;
	/*
	 * Waiting, and counted, before the Send goes: the reply cannot come
	 * before it, and whoever sees the server hold the call sees it in
	 * xprts' calls= too.
	 */
	spin_lock(&buf->rb_lock);
	list_add_tail(&req->rl_pending, &buf->rb_pending);
	buf->rb_calls += !req->rl_xmits;
	spin_unlock(&buf->rb_lock);
	rc = cmkit_rpcrdma_post_sends(r_xprt, req, sc);
	if (rc) {
		spin_lock(&buf->rb_lock);
		list_del_init(&req->rl_pending);
		buf->rb_calls -= !req->rl_xmits;
		spin_unlock(&buf->rb_lock);
		/* Drops the Send's reference: never the last, the caller holds one. */
		cmkit_rpcrdma_sendctx_unget_locked(r_xprt, sc);
		/* Upstream drops the connection when a Send cannot be posted. */
		cmkit_rpcrdma_force_disconnect(r_xprt->rx_ep);
		rc = -ENOTCONN;
		goto out;
	}
	atomic_inc(req->rl_xmits ? &cmkit_rpcrdma_stats.calls_resent :
		   &cmkit_rpcrdma_stats.calls_sent);
	req->rl_xmits++;
out:
	mutex_unlock(&r_xprt->rx_send_lock);
	return rc;
}

/*
 * The caller runs with its ended call: a reply's round trip ends here, in
 * the thread that waited for it (woken by the reply handler's complete(),
 * or finding the call already completed), as cmkit-peer call's ends in its
 * calling thread.  Once: the first time the caller runs after the reply
 * (rpcrdma_batch_returned() may have been first).
 */
static void rpcrdma_call_returned(struct rpcrdma_req *req)
{
	if (!req->rl_status && !req->rl_rtt_ns)
		req->rl_rtt_ns = ktime_to_ns(ktime_sub(ktime_get(), req->rl_sent));
}

/*
 * The caller runs again after its credit wait, woken (normally) by a
 * reply's handler after it completed its call: the calls of @b that ended
 * meanwhile have their round trips end now, before the next call is
 * marshalled and posted, as cmkit-peer call handles a reply before it
 * sends its next call.
 */
static void rpcrdma_batch_returned(const struct rpcrdma_batch *b)
{
	unsigned int i;

	for (i = 0; i < b->n; i++) {
		struct rpcrdma_req *req = b->fifo[(b->head + i) % b->window].req;

		if (completion_done(&req->rl_done))
			rpcrdma_call_returned(req);
	}
}

/* rpcrdma_post_call(), waiting for a send context until @deadline. */
static int rpcrdma_post_call_wait(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req, u32 gen,
				  u32 prog, u32 vers, const struct rpcrdma_msg *msg,
				  unsigned long deadline)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	long t;
	int rc;

	while ((rc = rpcrdma_post_call(r_xprt, req, gen, prog, vers, msg)) == -EAGAIN) {
		/* Too few Send completions lately: wait for one. */
		t = wait_event_killable_timeout(buf->rb_wait, rpcrdma_sendctx_ready(buf, gen),
						rpcrdma_remaining(deadline));
		if (t <= 0) {
			rc = t < 0 ? -EINTR : -ETIMEDOUT;
			break;
		}
	}
	return rc;
}

/*
 * Send one call (@msg, or a NULL call) on connection @gen (xprtrdma:
 * xprt_rdma_send_request) for batch @b.  On success *@reqp waits for its
 * reply; on failure nothing is left.  -EAGAIN: no req, and @b's oldest
 * call has ended: reap it first.
 */
static int rpcrdma_send_request(struct rpcrdma_xprt *r_xprt, u32 gen, u32 prog, u32 vers,
				const struct rpcrdma_msg *msg, unsigned long deadline,
				struct rpcrdma_req **reqp, u32 *outstanding,
				const struct rpcrdma_batch *b)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_req *req = NULL;
	int rc;

	rc = rpcrdma_get_req(r_xprt, gen, deadline, b, &req);
	if (rc)
		return rc;
	rc = rpcrdma_get_credit(r_xprt, gen, deadline, outstanding);
	rpcrdma_batch_returned(b);
	if (rc)
		goto out_req;
	if (r_xprt->rx_ops && r_xprt->rx_ops->send)
		r_xprt->rx_ops->send(r_xprt, req);
	rc = rpcrdma_post_call_wait(r_xprt, req, gen, prog, vers, msg, deadline);
	if (rc)
		goto out_credit;
	*reqp = req;
	return 0;

out_credit:
	rpcrdma_credit_put(buf);
out_req:
	cmkit_rpcrdma_buffer_put(buf, req);
	return rc;
}

static struct rpcrdma_req *rpcrdma_lookup_req(struct rpcrdma_buffer *buf, u32 xid)
{
	struct rpcrdma_req *req;

	list_for_each_entry(req, &buf->rb_pending, rl_pending)
		if (req->rl_xid == xid)
			return req;
	return NULL;
}

/* The call's reply is decoded (or the call ended without one): wake its caller. */
static void rpcrdma_complete_rqst(struct rpcrdma_req *req)
{
	complete(&req->rl_done);
}

/*
 * A reply to a call that offered chunks: its result, as the caller will
 * take it.  The RPC reply of an RDMA_NOMSG reply is in the reply chunk:
 * only a call that offered one can take it, and its caller decodes it
 * once its MRs are fenced.  The lists are checked against the offer by
 * the caller (proc.c).
 */
static int rpcrdma_decode_chunked(const void *data, u32 len, const struct rpcrdma_msg *msg)
{
	int rc = cmkit_rpcrdma_decode_reply_chunks(data, len, msg->reply, msg->got);

	if (rc == CMKIT_RPCRDMA_OK && msg->reply->hdr.rdma_proc == CMKIT_RPCRDMA_NOMSG &&
	    !msg->ch->has_reply)
		rc = CMKIT_RPCRDMA_E_CHUNKS;
	return rc;
}

/**
 * cmkit_rpcrdma_reply_handler - process a received message
 * @rep: the Receive that carried it; rep->rr_len bytes are valid
 *
 * Called from the Receive completion (process context).  A message too
 * short for a transport header, of another version, or for an xid no call
 * waits for is counted and dropped; nothing past rr_len is read.  A match
 * updates the credits from the reply's grant, decodes the reply (every
 * decoding result, a short RPC message included, completes the call), and
 * keeps @rep until the caller is done with it.  Receives are replenished
 * before the call is completed, so its caller's next call finds one.
 * The call's round trip does not end here but when its caller runs with
 * the reply (rpcrdma_call_wait()); the cmkit_rpcrdma_reply trace event gives the
 * time from the Send to the match here.
 */
void cmkit_rpcrdma_reply_handler(struct rpcrdma_rep *rep)
{
	struct rpcrdma_xprt *r_xprt = rep->rr_rxprt;
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	const void *data = rdmab_data(rep->rr_rdmabuf);
	struct cmkit_rpcrdma_reply reply;
	u32 xid, grant, credits, old;
	struct rpcrdma_req *req;
	int rc;

	if (rep->rr_len < CMKIT_RPCRDMA_FIXED_LEN) {
		atomic_inc(&cmkit_rpcrdma_stats.replies_short);
		trace_cmkit_rpcrdma_reply_short(r_xprt->rx_xid, 0, rep->rr_len);
		goto out_drop;
	}
	rc = cmkit_rpcrdma_peek(data, rep->rr_len, &xid, &grant);
	if (rc != CMKIT_RPCRDMA_OK) {
		/* A grant of another version is not ours to use. */
		atomic_inc(&cmkit_rpcrdma_stats.replies_bad_vers);
		trace_cmkit_rpcrdma_reply_vers(r_xprt->rx_xid, xid, rep->rr_len);
		goto out_drop;
	}
	/* The grant from the wire is sanitised before anything uses it. */
	credits = cmkit_rpcrdma_credit_limit(grant, buf->rb_max_requests);

	spin_lock(&buf->rb_lock);
	req = rpcrdma_lookup_req(buf, xid);
	if (!req) {
		buf->rb_unknown_xid++;
		spin_unlock(&buf->rb_lock);
		atomic_inc(&cmkit_rpcrdma_stats.replies_unknown_xid);
		trace_cmkit_rpcrdma_reply_unknown_xid(r_xprt->rx_xid, xid, rep->rr_len);
		goto out_drop;
	}
	list_del_init(&req->rl_pending);
	buf->rb_outstanding--;
	old = buf->rb_credits;
	buf->rb_credits = credits;
	spin_unlock(&buf->rb_lock);
	rpcrdma_reconnect_reset(r_xprt);
	if (credits != old)
		trace_cmkit_rpcrdma_credits(r_xprt->rx_xid, old, credits, grant);

	req->rl_reply = rep;
	if (req->rl_msg && req->rl_msg->ch)
		req->rl_result = rpcrdma_decode_chunked(data, rep->rr_len, req->rl_msg);
	else
		req->rl_result = cmkit_rpcrdma_decode_reply(data, rep->rr_len, &reply);
	/* From the Send to here; the round trip ends in the caller. */
	trace_cmkit_rpcrdma_reply(r_xprt->rx_xid, xid, grant, credits, req->rl_result,
				  req->rl_sent);
	if (r_xprt->rx_ops && r_xprt->rx_ops->reply)
		r_xprt->rx_ops->reply(r_xprt, req);
	cmkit_rpcrdma_post_recvs(r_xprt, credits + (buf->rb_bc_srv_max_requests << 1));
	rpcrdma_complete_rqst(req);
	wake_up_all(&buf->rb_wait);
	return;

out_drop:
	cmkit_rpcrdma_rep_put(buf, rep);
	cmkit_rpcrdma_post_recvs(r_xprt, rpcrdma_recv_target(buf));
	wake_up_all(&buf->rb_wait);
}

/*
 * Can the call be sent again on another connection?  Its chunks' MRs were
 * registered on the lost one: only a call that says what they map
 * (msg->segs) can have them registered again on the next connection.
 */
static bool rpcrdma_req_resendable(const struct rpcrdma_req *req)
{
	const struct rpcrdma_msg *msg = req->rl_msg;

	return !msg || !msg->mrs || list_empty(msg->mrs) || msg->nr_segs;
}

/**
 * cmkit_rpcrdma_reqs_abort - the connection ended: end every call waiting for a reply
 * @r_xprt: the transport, its QP drained (no reply can be matched any more)
 * @resend: the connection was lost and the transport may reconnect
 *
 * Each waiting call completes with -ECONNABORTED, unless @resend: then
 * each one without MRs, or whose chunks can be registered again
 * (rpcrdma_msg.segs), completes with -EAGAIN, to be sent again on the
 * next connection (rpcrdma_call_resend()), and the transport reconnects if
 * any call waits for it, including calls marked by an earlier loss and not
 * sent again yet.
 *
 * Return: true if the caller must queue the reconnect (rb_reconnecting is
 * set, before any call sees its completion).
 */
bool cmkit_rpcrdma_reqs_abort(struct rpcrdma_xprt *r_xprt, bool resend)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_req *req, *tmp;
	unsigned int n = 0, again = 0;
	bool reconnect;

	spin_lock(&buf->rb_lock);
	list_for_each_entry_safe(req, tmp, &buf->rb_pending, rl_pending) {
		list_del_init(&req->rl_pending);
		buf->rb_outstanding--;
		if (resend && rpcrdma_req_resendable(req)) {
			req->rl_status = -EAGAIN;
			buf->rb_resend++;
			again++;
		} else {
			req->rl_status = -ECONNABORTED;
		}
		/* Its caller looks at rb_reconnecting under rb_lock: set below. */
		rpcrdma_complete_rqst(req);
		n++;
	}
	if (resend && (buf->rb_resend || buf->rb_reconnecting))
		buf->rb_reconnecting = true;
	reconnect = resend && buf->rb_reconnecting;
	spin_unlock(&buf->rb_lock);
	wake_up_all(&buf->rb_wait);
	if (n)
		trace_cmkit_rpcrdma_calls_aborted(r_xprt->rx_xid, n - again);
	return reconnect;
}

/*
 * Connected (1, with the connection in *@gen), the transport no longer
 * reconnecting (-ECONNABORTED), or 0 to wait.
 */
static int rpcrdma_resend_ready(struct rpcrdma_buffer *buf, u32 *gen)
{
	int rc = 0;

	spin_lock(&buf->rb_lock);
	if (buf->rb_connected) {
		*gen = buf->rb_gen;
		rc = 1;
	} else if (!buf->rb_reconnecting) {
		rc = -ECONNABORTED;
	}
	spin_unlock(&buf->rb_lock);
	return rc;
}

/*
 * A call to send again: its MRs were registered on the lost connection,
 * whose teardown waits for them (cmkit_rpcrdma_mrs_destroy()).  They are
 * in an unknown state (registered, never invalidated, the QP drained):
 * they stay on that connection's list to be deregistered with it, and the
 * call's list is empty for the MRs of the next connection.
 */
static void rpcrdma_resend_drop_mrs(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req)
{
	const struct rpcrdma_msg *msg = req->rl_msg;
	struct rpcrdma_mr *mr;
	unsigned int n = 0;

	if (!msg || !msg->mrs)
		return;
	list_for_each_entry(mr, msg->mrs, mr_list)
		n++;
	cmkit_rpcrdma_frwr_post_failed(r_xprt, msg->mrs);
	trace_cmkit_rpcrdma_resend_mrs(r_xprt->rx_xid, req->rl_xid, n, msg->nr_segs);
}

/*
 * A call with chunks, to be sent on connection @gen: its chunks mapped
 * into MRs of that connection's pool, their handles in its offer, before
 * it is marshalled again.  0, -ECONNABORTED if the connection was lost
 * meanwhile (wait for the next), else the errno of the mapping.
 */
static int rpcrdma_resend_map(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req, u32 gen)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	bool lost;
	int rc;

	if (!req->rl_msg || !req->rl_msg->nr_segs)
		return 0;
	rc = cmkit_rpcrdma_msg_map(r_xprt, req->rl_msg);
	if (!rc)
		return 0;
	spin_lock(&buf->rb_lock);
	lost = rpcrdma_conn_lost(buf, gen);
	spin_unlock(&buf->rb_lock);
	return lost ? -ECONNABORTED : rc;
}

/*
 * The connection of a sent call was lost and the transport reconnects
 * (cmkit_rpcrdma_reqs_abort() marked the call): wait for the next
 * connection, take a credit on it and send the call again with its xid,
 * as xprt_transmit() sends a request again after a reconnect; a call with
 * chunks has them registered again from the new connection's MR pool and
 * is marshalled again with their new handles, as xprtrdma's
 * rpcrdma_marshal_req() and frwr_map() run for a retransmit.  If that
 * connection is lost before the Send, wait for the one after.  All within
 * the call's own @deadline, which started at its first Send.  Return 0
 * once it is sent (it waits for its reply again), else the call's errno
 * (its MRs given back: none is left on the call).
 */
static int rpcrdma_call_resend(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req,
			       unsigned long deadline)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct list_head *mrs = req->rl_msg ? req->rl_msg->mrs : NULL;
	u32 gen = 0, outstanding;
	int cond, rc;
	long t;

	rpcrdma_resend_drop_mrs(r_xprt, req);
	do {
		if (!rpcrdma_remaining(deadline)) {
			rc = -ETIMEDOUT;
			break;
		}
		t = wait_event_killable_timeout(buf->rb_wait,
						(cond = rpcrdma_resend_ready(buf, &gen)) != 0,
						rpcrdma_remaining(deadline));
		rc = rpcrdma_wait_result(t, cond);
		if (rc)
			break;
		rc = rpcrdma_get_credit(r_xprt, gen, deadline, &outstanding);
		if (rc)
			continue;
		rc = rpcrdma_resend_map(r_xprt, req, gen);
		if (rc) {
			rpcrdma_credit_put(buf);
			continue;
		}
		reinit_completion(&req->rl_done);
		req->rl_status = 0;
		rc = rpcrdma_post_call_wait(r_xprt, req, gen, req->rl_prog, req->rl_vers,
					    req->rl_msg, deadline);
		if (rc) {
			rpcrdma_credit_put(buf);
			/* Mapped, never registered (a failed post took them already). */
			if (mrs)
				cmkit_rpcrdma_msg_unmap(mrs);
		}
	} while (rc == -ECONNABORTED);
	spin_lock(&buf->rb_lock);
	buf->rb_resend--;
	spin_unlock(&buf->rb_lock);
	trace_cmkit_rpcrdma_call_resend(r_xprt->rx_xid, req->rl_xid, req->rl_xmits, rc);
	return rc;
}

/*
 * Wait for a sent call's end, until @deadline.  A call abandoned (no reply
 * in time, or a fatal signal) leaves the waiting list and gives its credit back;
 * one that timed out closes its connection, as xprt_rdma_timer() does.
 * A call whose connection was lost while the transport reconnects is sent
 * again on the next connection, and waited for there.
 * A call with a reply has its round trip (rl_rtt_ns) set on return.
 */
static void rpcrdma_call_wait(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req,
			      unsigned long deadline)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	bool waiting, lost;
	long t;
	int rc;

again:
	t = wait_for_completion_killable_timeout(&req->rl_done, rpcrdma_remaining(deadline));
	if (t <= 0) {
		spin_lock(&buf->rb_lock);
		waiting = !list_empty(&req->rl_pending);
		if (waiting) {
			list_del_init(&req->rl_pending);
			buf->rb_outstanding--;
		}
		spin_unlock(&buf->rb_lock);
		if (waiting)
			goto abandoned;
		/* Matched or aborted meanwhile: its completion is on its way. */
		wait_for_completion(&req->rl_done);
	}
	if (req->rl_status == -EAGAIN) {
		rc = rpcrdma_call_resend(r_xprt, req, deadline);
		if (!rc)
			goto again;
		req->rl_status = rc;
		if (rc == -ETIMEDOUT)
			atomic_inc(&cmkit_rpcrdma_stats.call_timeouts);
		return;
	}
	rpcrdma_call_returned(req);
	return;

abandoned:
	wake_up_all(&buf->rb_wait);
	if (t < 0) {
		req->rl_status = -EINTR;
		return;
	}
	req->rl_status = -ETIMEDOUT;
	atomic_inc(&cmkit_rpcrdma_stats.call_timeouts);
	trace_cmkit_rpcrdma_call_timeout(r_xprt->rx_xid, req->rl_xid);
	/* The server does not answer: assume the connection is lost. */
	mutex_lock(&r_xprt->rx_send_lock);
	spin_lock(&buf->rb_lock);
	lost = rpcrdma_conn_lost(buf, req->rl_gen);
	spin_unlock(&buf->rb_lock);
	if (!lost)
		cmkit_rpcrdma_force_disconnect(r_xprt->rx_ep);
	mutex_unlock(&r_xprt->rx_send_lock);
}

/* A call ended: count it, trace it, and return its errno. */
static int rpcrdma_call_end(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	int err = req->rl_status ?: cmkit_rpcrdma_result_to_errno(req->rl_result);

	spin_lock(&buf->rb_lock);
	if (err)
		buf->rb_errors++;
	else
		buf->rb_replies++;
	spin_unlock(&buf->rb_lock);
	atomic_inc(err ? &cmkit_rpcrdma_stats.calls_failed : &cmkit_rpcrdma_stats.calls_accepted);
	if (req->rl_status == -ECONNABORTED)
		atomic_inc(&cmkit_rpcrdma_stats.calls_aborted);
	trace_cmkit_rpcrdma_call_done(r_xprt->rx_xid, req->rl_xid, err, req->rl_result,
				      req->rl_rtt_ns);
	return err;
}

/* The oldest call of a batch ended: account for it in @res. */
static bool rpcrdma_calls_reap(struct rpcrdma_xprt *r_xprt, struct rpcrdma_inflight *f,
			       struct cmkit_rpcrdma_calls *res, ktime_t *last)
{
	struct rpcrdma_req *req = f->req;
	int err, status;

	rpcrdma_call_wait(r_xprt, req, f->deadline);
	err = rpcrdma_call_end(r_xprt, req);
	status = req->rl_status;
	if (status == -ETIMEDOUT) {
		res->timedout++;
	} else if (status == -ECONNABORTED) {
		res->aborted++;
	} else if (!status) {
		switch (cmkit_rpcrdma_result_class(req->rl_result)) {
		case CMKIT_RPCRDMA_ACCEPTED:
			res->accepted++;
			break;
		case CMKIT_RPCRDMA_REJECTED:
			res->rejected++;
			break;
		default:
			res->malformed++;
			break;
		}
		if (req->rl_result <= 0 && -req->rl_result < ARRAY_SIZE(res->results))
			res->results[-req->rl_result]++;
		if (res->rtt_ns && res->nr_rtt < res->count)
			res->rtt_ns[res->nr_rtt++] = min_t(u64, req->rl_rtt_ns, U32_MAX);
		*last = max_t(ktime_t, *last, ktime_add_ns(req->rl_sent, req->rl_rtt_ns));
	}
	/* The ctl's contract: any reply but an accepted one is -EPROTO. */
	if (err && !res->status)
		res->status = status ?: -EPROTO;
	cmkit_rpcrdma_buffer_put(&r_xprt->rx_buf, req);
	return status != 0;
}

/*
 * The batch's connection @*gen was lost before its next call was sent,
 * and the calls it had in flight all ended well: sent again on a new
 * connection if the transport reconnected for them.  If a new connection
 * is up, the batch goes on there (*@gen is its generation): true.  Traced
 * with the calls still to send, or -ECONNABORTED.
 */
static bool rpcrdma_batch_resume(struct rpcrdma_xprt *r_xprt, u32 *gen, u32 left)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	bool resume;

	spin_lock(&buf->rb_lock);
	resume = buf->rb_connected && buf->rb_gen != *gen;
	if (resume)
		*gen = buf->rb_gen;
	spin_unlock(&buf->rb_lock);
	trace_cmkit_rpcrdma_batch_resume(r_xprt->rx_xid, resume ? (int)left : -ECONNABORTED);
	return resume;
}

/**
 * cmkit_rpcrdma_xprt_call - send NULL calls and wait for their replies
 * @r_xprt: a connected transport
 * @prog: RPC program (100003 is NFS)
 * @vers: program version
 * @count: how many calls
 * @res: what they gave; @res->rtt_ns, if set, has room for @count entries
 *
 * Keeps as many calls outstanding as the credits allow, replies reaped in
 * send order.  A call that times out or whose connection ends stops the
 * batch: no further call is sent, those in flight are waited for.  When
 * the connection is lost and the transport reconnects, the calls in
 * flight are sent again (rpcrdma_call_resend()); once they all ended well
 * the batch sends its remaining calls on the new connection.  May be
 * called by several threads on one transport.
 *
 * Return: 0 if every call got an accepted reply, else @res->status: the
 * errno of the first call, in send order, that did not: -EPROTO (rejected
 * or malformed), -ETIMEDOUT, -ECONNABORTED (the connection ended under
 * it), -ENOTCONN (not connected, or a Send could not be posted), -EINTR,
 * -ENOMEM.
 */
int cmkit_rpcrdma_xprt_call(struct rpcrdma_xprt *r_xprt, u32 prog, u32 vers, u32 count,
			    struct cmkit_rpcrdma_calls *res)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	/* As many as the pool lends: the credit wait, not the window, paces. */
	const unsigned int window = buf->rb_reqs;
	struct rpcrdma_batch b = { .window = window };
	struct rpcrdma_inflight *fifo;
	unsigned int head = 0, n = 0;
	u32 *rtt_ns = res->rtt_ns;
	ktime_t first = 0, last = 0;
	bool connected, stop = false;
	u64 unknown;
	int rc = 0;
	u32 gen;

	memset(res, 0, sizeof(*res));
	res->rtt_ns = rtt_ns;
	res->count = count;
	fifo = kcalloc(window, sizeof(*fifo), GFP_KERNEL);
	if (!fifo) {
		res->status = -ENOMEM;
		return res->status;
	}
	b.fifo = fifo;
	spin_lock(&buf->rb_lock);
	connected = buf->rb_connected;
	gen = buf->rb_gen;
	unknown = buf->rb_unknown_xid;
	spin_unlock(&buf->rb_lock);
	if (!connected)
		rc = -ENOTCONN;

	while (!rc && !stop && res->sent < count) {
		struct rpcrdma_inflight *f;
		u32 outstanding = 0;

		if (n == window) {
			stop = rpcrdma_calls_reap(r_xprt, &fifo[head], res, &last);
			head = (head + 1) % window;
			n--;
			continue;
		}
		f = &fifo[(head + n) % window];
		f->deadline = jiffies + READ_ONCE(r_xprt->rx_call_timeout);
		b.head = head;
		b.n = n;
		rc = rpcrdma_send_request(r_xprt, gen, prog, vers, NULL, f->deadline, &f->req,
					  &outstanding, &b);
		if (rc == -EAGAIN) {
			/* Every req is taken and our oldest call ended: give its req back. */
			rc = 0;
			stop = rpcrdma_calls_reap(r_xprt, &fifo[head], res, &last);
			head = (head + 1) % window;
			n--;
			continue;
		}
		if (rc == -ECONNABORTED && n) {
			/*
			 * Lost before this call was sent.  If the transport
			 * reconnects for the calls in flight, they are sent
			 * again there: reap them, then continue on the new
			 * connection (xprt_transmit() sends what is queued
			 * once the transport is connected again).
			 */
			while (n && !stop) {
				stop = rpcrdma_calls_reap(r_xprt, &fifo[head], res, &last);
				head = (head + 1) % window;
				n--;
			}
			if (!stop && rpcrdma_batch_resume(r_xprt, &gen, count - res->sent)) {
				rc = 0;
				continue;
			}
		}
		if (rc)
			break;
		/*
		 * The wait for the reply starts at the Send, as an RPC task's
		 * timer starts at its transmit: time queued for a req, a credit
		 * and the send lock is not taken from it.
		 */
		f->deadline = jiffies + READ_ONCE(r_xprt->rx_call_timeout);
		if (!res->sent)
			first = f->req->rl_sent;
		res->sent++;
		res->max_outstanding = max(res->max_outstanding, outstanding);
		n++;
		/* Reap what already ended, so the window stays short. */
		while (n && !stop && completion_done(&fifo[head].req->rl_done)) {
			stop = rpcrdma_calls_reap(r_xprt, &fifo[head], res, &last);
			head = (head + 1) % window;
			n--;
		}
	}
	while (n) {
		rpcrdma_calls_reap(r_xprt, &fifo[head], res, &last);
		head = (head + 1) % window;
		n--;
	}
	kfree(fifo);

	/* A call that could not be sent comes after every call that was. */
	if (!res->status)
		res->status = rc;
	spin_lock(&buf->rb_lock);
	res->credits = buf->rb_connected ? buf->rb_credits : 0;
	res->unknown_xid = buf->rb_unknown_xid - unknown;
	spin_unlock(&buf->rb_lock);
	if (res->sent && last > first)
		res->elapsed_ns = ktime_to_ns(ktime_sub(last, first));
	return res->status;
}
EXPORT_SYMBOL_NS_GPL(cmkit_rpcrdma_xprt_call, CMKIT_NS);

/**
 * cmkit_rpcrdma_call_one - send one call and wait for its end
 * @r_xprt: a connected transport
 * @prog: RPC program
 * @vers: program version
 * @msg: the call: procedure, inline arguments, chunks offered
 * @reqp: the ended call, with its reply (rl_reply) if one came; the
 *	caller reads it and gives the req back with cmkit_rpcrdma_buffer_put()
 *
 * As one call of cmkit_rpcrdma_xprt_call(): a req, a credit, the Send, the
 * wait for the reply until the call timeout, which starts at the Send.
 *
 * Return: 0 with *@reqp set (the call's own errno, from its reply or its
 * end, is rpcrdma_call_end()'s: returned as the call's result), or the
 * errno of a call that could not be sent (*@reqp NULL): -ENOTCONN,
 * -ECONNABORTED, -ETIMEDOUT, -EINTR, -ENOMEM, -EMSGSIZE.
 */
int cmkit_rpcrdma_call_one(struct rpcrdma_xprt *r_xprt, u32 prog, u32 vers,
			   const struct rpcrdma_msg *msg, struct rpcrdma_req **reqp)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_inflight f = { };
	struct rpcrdma_batch b = { .fifo = &f, .window = 1 };
	u32 outstanding, gen;
	bool connected;
	int rc;

	*reqp = NULL;
	spin_lock(&buf->rb_lock);
	connected = buf->rb_connected;
	gen = buf->rb_gen;
	spin_unlock(&buf->rb_lock);
	if (!connected)
		return -ENOTCONN;
	f.deadline = jiffies + READ_ONCE(r_xprt->rx_call_timeout);
	rc = rpcrdma_send_request(r_xprt, gen, prog, vers, msg, f.deadline, &f.req,
				  &outstanding, &b);
	if (rc)
		return rc;
	f.deadline = jiffies + READ_ONCE(r_xprt->rx_call_timeout);
	rpcrdma_call_wait(r_xprt, f.req, f.deadline);
	rc = rpcrdma_call_end(r_xprt, f.req);
	*reqp = f.req;
	return rc;
}
