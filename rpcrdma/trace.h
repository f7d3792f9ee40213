/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of cmkit's rpcrdma endpoint: every decision the CM handler
 * takes, the inline-threshold negotiation, connect/disconnect results, and
 * the transport's decisions: a call sent, a reply matched, dropped for its
 * length, version or unknown xid, credits updated, a call waiting for a
 * credit or a send context, Receives posted or flushed, calls ended.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cmkit_rpcrdma

#if !defined(_CMKIT_RPCRDMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CMKIT_RPCRDMA_TRACE_H

#include <linux/ktime.h>
#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ADDR_RESOLVED);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ADDR_ERROR);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ROUTE_RESOLVED);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ROUTE_ERROR);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_CONNECT_REQUEST);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_CONNECT_RESPONSE);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_CONNECT_ERROR);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_UNREACHABLE);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_REJECTED);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ESTABLISHED);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_DISCONNECTED);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_DEVICE_REMOVAL);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_MULTICAST_JOIN);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_MULTICAST_ERROR);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_ADDR_CHANGE);
TRACE_DEFINE_ENUM(RDMA_CM_EVENT_TIMEWAIT_EXIT);

#define cmkit_show_cm_event(e)						\
	__print_symbolic(e,						\
		{ RDMA_CM_EVENT_ADDR_RESOLVED, "ADDR_RESOLVED" },	\
		{ RDMA_CM_EVENT_ADDR_ERROR, "ADDR_ERROR" },		\
		{ RDMA_CM_EVENT_ROUTE_RESOLVED, "ROUTE_RESOLVED" },	\
		{ RDMA_CM_EVENT_ROUTE_ERROR, "ROUTE_ERROR" },		\
		{ RDMA_CM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST" },	\
		{ RDMA_CM_EVENT_CONNECT_RESPONSE, "CONNECT_RESPONSE" },	\
		{ RDMA_CM_EVENT_CONNECT_ERROR, "CONNECT_ERROR" },	\
		{ RDMA_CM_EVENT_UNREACHABLE, "UNREACHABLE" },		\
		{ RDMA_CM_EVENT_REJECTED, "REJECTED" },			\
		{ RDMA_CM_EVENT_ESTABLISHED, "ESTABLISHED" },		\
		{ RDMA_CM_EVENT_DISCONNECTED, "DISCONNECTED" },		\
		{ RDMA_CM_EVENT_DEVICE_REMOVAL, "DEVICE_REMOVAL" },	\
		{ RDMA_CM_EVENT_MULTICAST_JOIN, "MULTICAST_JOIN" },	\
		{ RDMA_CM_EVENT_MULTICAST_ERROR, "MULTICAST_ERROR" },	\
		{ RDMA_CM_EVENT_ADDR_CHANGE, "ADDR_CHANGE" },		\
		{ RDMA_CM_EVENT_TIMEWAIT_EXIT, "TIMEWAIT_EXIT" })

TRACE_EVENT(cmkit_rpcrdma_cm_event,
	    TP_PROTO(u32 xid, const struct rdma_cm_id *id,
		     const struct rdma_cm_event *event, int old_status,
		     int new_status, int rc),
	    TP_ARGS(xid, id, event, old_status, new_status, rc),
	    TP_STRUCT__entry(__field(u32, xid)
			     __field(unsigned int, event)
			     __field(int, status)
			     __field(int, old_status)
			     __field(int, new_status)
			     __field(int, rc)
			     __array(unsigned char, dst, sizeof(struct sockaddr_in6))),
	    TP_fast_assign(__entry->xid = xid;
			   __entry->event = event->event;
			   __entry->status = event->status;
			   __entry->old_status = old_status;
			   __entry->new_status = new_status;
			   __entry->rc = rc;
			   memcpy(__entry->dst, &id->route.addr.dst_addr,
				  sizeof(struct sockaddr_in6));),
	    TP_printk("xprt=%u dst=%pISpc %s (status %d) connect_status %d -> %d rc=%d",
		      __entry->xid, __entry->dst, cmkit_show_cm_event(__entry->event),
		      __entry->status, __entry->old_status, __entry->new_status,
		      __entry->rc)
);

TRACE_EVENT(cmkit_rpcrdma_inline_thresh,
	    TP_PROTO(u32 xid, bool peer_valid, u32 send, u32 recv),
	    TP_ARGS(xid, peer_valid, send, recv),
	    TP_STRUCT__entry(__field(u32, xid)
			     __field(bool, peer_valid)
			     __field(u32, send)
			     __field(u32, recv)),
	    TP_fast_assign(__entry->xid = xid;
			   __entry->peer_valid = peer_valid;
			   __entry->send = send;
			   __entry->recv = recv;),
	    TP_printk("xprt=%u peer private message %s: inline send=%u recv=%u",
		      __entry->xid,
		      __entry->peer_valid ? "valid" : "absent or invalid",
		      __entry->send, __entry->recv)
);

DECLARE_EVENT_CLASS(rpcrdma_xprt_class,
		    TP_PROTO(u32 xid, int rc),
		    TP_ARGS(xid, rc),
		    TP_STRUCT__entry(__field(u32, xid)
				     __field(int, rc)),
		    TP_fast_assign(__entry->xid = xid;
				   __entry->rc = rc;),
		    TP_printk("xprt=%u rc=%d", __entry->xid, __entry->rc)
);

#define DEFINE_RPCRDMA_XPRT_EVENT(name)					\
	DEFINE_EVENT(rpcrdma_xprt_class, name,				\
		     TP_PROTO(u32 xid, int rc),				\
		     TP_ARGS(xid, rc))

/* rc: the generation of the ep that asked (traced when its one-shot gate opens) */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_force_disconnect);
/* rc: the generation asked for; the transport's ep is another one, or none */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_force_stale);
/* rc: the connect result */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_connect);
/* rc: 1 if the final put freed the ep and the id was destroyed here */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_disconnect);
/* rc: 1 if the linger work freed the ep and destroyed the id */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_linger);
/* rc: the work completion status that asked for a disconnect */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_flush_disconnect);

/* ---- the transport ------------------------------------------------------- */

TRACE_EVENT(cmkit_rpcrdma_call_sent,
	    TP_PROTO(u32 xprt, u32 xid, u32 credits, u32 outstanding, bool signaled),
	    TP_ARGS(xprt, xid, credits, outstanding, signaled),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, xid)
			     __field(u32, credits)
			     __field(u32, outstanding)
			     __field(bool, signaled)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->xid = xid;
			   __entry->credits = credits;
			   __entry->outstanding = outstanding;
			   __entry->signaled = signaled;),
	    TP_printk("xprt=%u xid=0x%08x sent (%u of %u credits outstanding), %s",
		      __entry->xprt, __entry->xid, __entry->outstanding, __entry->credits,
		      __entry->signaled ? "signaled" : "unsignaled")
);

/*
 * A reply matched, in the reply handler (the Receive completion's context):
 * matched_ns is from the call's Send to here.  The call's round trip
 * (cmkit_rpcrdma_call_done's rtt_ns) ends later, when its caller runs with the
 * reply; the difference is the caller's wake-up.
 */
TRACE_EVENT(cmkit_rpcrdma_reply,
	    TP_PROTO(u32 xprt, u32 xid, u32 grant, u32 credits, int result, ktime_t sent),
	    TP_ARGS(xprt, xid, grant, credits, result, sent),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, xid)
			     __field(u32, grant)
			     __field(u32, credits)
			     __field(int, result)
			     __field(u64, matched_ns)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->xid = xid;
			   __entry->grant = grant;
			   __entry->credits = credits;
			   __entry->result = result;
			   __entry->matched_ns = ktime_to_ns(ktime_sub(ktime_get(), sent));),
	    TP_printk("xprt=%u xid=0x%08x reply matched: result %d, grant %u -> credits %u, %llu ns after its Send",
		      __entry->xprt, __entry->xid, __entry->result, __entry->grant,
		      __entry->credits, __entry->matched_ns)
);

DECLARE_EVENT_CLASS(rpcrdma_reply_drop_class,
		    TP_PROTO(u32 xprt, u32 xid, u32 len),
		    TP_ARGS(xprt, xid, len),
		    TP_STRUCT__entry(__field(u32, xprt)
				     __field(u32, xid)
				     __field(u32, len)),
		    TP_fast_assign(__entry->xprt = xprt;
				   __entry->xid = xid;
				   __entry->len = len;),
		    TP_printk("xprt=%u xid=0x%08x len=%u dropped", __entry->xprt, __entry->xid,
			      __entry->len)
);

#define DEFINE_RPCRDMA_REPLY_DROP_EVENT(name)				\
	DEFINE_EVENT(rpcrdma_reply_drop_class, name,			\
		     TP_PROTO(u32 xprt, u32 xid, u32 len),		\
		     TP_ARGS(xprt, xid, len))

/* shorter than a transport header (xid not read: 0) */
DEFINE_RPCRDMA_REPLY_DROP_EVENT(cmkit_rpcrdma_reply_short);
/* rdma_vers other than 1 */
DEFINE_RPCRDMA_REPLY_DROP_EVENT(cmkit_rpcrdma_reply_vers);
/* no call waits for this xid */
DEFINE_RPCRDMA_REPLY_DROP_EVENT(cmkit_rpcrdma_reply_unknown_xid);

TRACE_EVENT(cmkit_rpcrdma_credits,
	    TP_PROTO(u32 xprt, u32 old, u32 credits, u32 grant),
	    TP_ARGS(xprt, old, credits, grant),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, old)
			     __field(u32, credits)
			     __field(u32, grant)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->old = old;
			   __entry->credits = credits;
			   __entry->grant = grant;),
	    TP_printk("xprt=%u credits %u -> %u (granted %u)", __entry->xprt, __entry->old,
		      __entry->credits, __entry->grant)
);

TRACE_EVENT(cmkit_rpcrdma_credit_wait,
	    TP_PROTO(u32 xprt, u32 outstanding, u32 credits, u32 receives),
	    TP_ARGS(xprt, outstanding, credits, receives),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, outstanding)
			     __field(u32, credits)
			     __field(u32, receives)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->outstanding = outstanding;
			   __entry->credits = credits;
			   __entry->receives = receives;),
	    TP_printk("xprt=%u a call waits: %u outstanding, %u credits, %u Receives posted",
		      __entry->xprt, __entry->outstanding, __entry->credits, __entry->receives)
);

TRACE_EVENT(cmkit_rpcrdma_mr_alloc,
	    TP_PROTO(u32 xprt, long rc),
	    TP_ARGS(xprt, rc),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(long, rc)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->rc = rc;),
	    TP_printk("xprt=%u an MR could not be allocated: %ld", __entry->xprt, __entry->rc)
);

TRACE_EVENT(cmkit_rpcrdma_mrs_refresh,
	    TP_PROTO(u32 xprt, unsigned int added, unsigned int count),
	    TP_ARGS(xprt, added, count),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(unsigned int, added)
			     __field(unsigned int, count)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->added = added;
			   __entry->count = count;),
	    TP_printk("xprt=%u %u MRs made, %u in the pool", __entry->xprt, __entry->added,
		      __entry->count)
);

DECLARE_EVENT_CLASS(cmkit_rpcrdma_mr_class,
		    TP_PROTO(u32 xprt, u32 handle, int rc),
		    TP_ARGS(xprt, handle, rc),
		    TP_STRUCT__entry(__field(u32, xprt)
				     __field(u32, handle)
				     __field(int, rc)),
		    TP_fast_assign(__entry->xprt = xprt;
				   __entry->handle = handle;
				   __entry->rc = rc;),
		    TP_printk("xprt=%u rkey=0x%08x rc=%d", __entry->xprt, __entry->handle,
			      __entry->rc)
);

DEFINE_EVENT(cmkit_rpcrdma_mr_class, cmkit_rpcrdma_mr_reg,
	     TP_PROTO(u32 xprt, u32 handle, int rc), TP_ARGS(xprt, handle, rc));
DEFINE_EVENT(cmkit_rpcrdma_mr_class, cmkit_rpcrdma_mr_localinv,
	     TP_PROTO(u32 xprt, u32 handle, int rc), TP_ARGS(xprt, handle, rc));
DEFINE_EVENT(cmkit_rpcrdma_mr_class, cmkit_rpcrdma_mr_dereg,
	     TP_PROTO(u32 xprt, u32 handle, int rc), TP_ARGS(xprt, handle, rc));

TRACE_EVENT(cmkit_rpcrdma_mr_map,
	    TP_PROTO(u32 xprt, u32 handle, u32 length, bool writing),
	    TP_ARGS(xprt, handle, length, writing),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, handle)
			     __field(u32, length)
			     __field(bool, writing)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->handle = handle;
			   __entry->length = length;
			   __entry->writing = writing;),
	    TP_printk("xprt=%u rkey=0x%08x %u bytes for the peer to %s (0: not mapped)",
		      __entry->xprt, __entry->handle, __entry->length,
		      __entry->writing ? "write" : "read")
);

TRACE_EVENT(cmkit_rpcrdma_wc_mr,
	    TP_PROTO(u32 xprt, u32 handle, int status, bool inv),
	    TP_ARGS(xprt, handle, status, inv),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, handle)
			     __field(int, status)
			     __field(bool, inv)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->handle = handle;
			   __entry->status = status;
			   __entry->inv = inv;),
	    TP_printk("xprt=%u rkey=0x%08x %s completed: status %d", __entry->xprt,
		      __entry->handle, __entry->inv ? "LOCAL_INV" : "REG_MR", __entry->status)
);

TRACE_EVENT(cmkit_rpcrdma_req_wait,
	    TP_PROTO(u32 xprt, u32 unreaped, bool head_done),
	    TP_ARGS(xprt, unreaped, head_done),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, unreaped)
			     __field(bool, head_done)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->unreaped = unreaped;
			   __entry->head_done = head_done;),
	    TP_printk("xprt=%u the req pool is empty: a call waits, its batch holding %u calls (oldest %s)",
		      __entry->xprt, __entry->unreaped,
		      __entry->head_done ? "ended" : "in flight")
);

TRACE_EVENT(cmkit_rpcrdma_sendctx_exhausted,
	    TP_PROTO(u32 xprt, u32 outstanding),
	    TP_ARGS(xprt, outstanding),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, outstanding)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->outstanding = outstanding;),
	    TP_printk("xprt=%u send-context ring full (%u calls outstanding): a call waits",
		      __entry->xprt, __entry->outstanding)
);

TRACE_EVENT(cmkit_rpcrdma_post_recvs,
	    TP_PROTO(u32 xprt, u32 posted, u32 total, u32 target, int rc),
	    TP_ARGS(xprt, posted, total, target, rc),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, posted)
			     __field(u32, total)
			     __field(u32, target)
			     __field(int, rc)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->posted = posted;
			   __entry->total = total;
			   __entry->target = target;
			   __entry->rc = rc;),
	    TP_printk("xprt=%u posted %u Receives: %u posted of %u wanted, rc=%d",
		      __entry->xprt, __entry->posted, __entry->total, __entry->target,
		      __entry->rc)
);

DECLARE_EVENT_CLASS(rpcrdma_wc_class,
		    TP_PROTO(u32 xprt, enum ib_wc_status status),
		    TP_ARGS(xprt, status),
		    TP_STRUCT__entry(__field(u32, xprt)
				     __field(unsigned int, status)),
		    TP_fast_assign(__entry->xprt = xprt;
				   __entry->status = status;),
		    TP_printk("xprt=%u status=%u", __entry->xprt, __entry->status)
);

/* a Receive completed in error (flushed) */
DEFINE_EVENT(rpcrdma_wc_class, cmkit_rpcrdma_wc_receive_flushed,
	     TP_PROTO(u32 xprt, enum ib_wc_status status),
	     TP_ARGS(xprt, status));
/* a Send completed in error */
DEFINE_EVENT(rpcrdma_wc_class, cmkit_rpcrdma_wc_send_err,
	     TP_PROTO(u32 xprt, enum ib_wc_status status),
	     TP_ARGS(xprt, status));

/*
 * A call ended, in its caller: rtt_ns is its round trip (rl_rtt_ns: from
 * its Send until its caller ran with the reply), 0 without a reply.
 */
TRACE_EVENT(cmkit_rpcrdma_call_done,
	    TP_PROTO(u32 xprt, u32 xid, int err, int result, u64 rtt_ns),
	    TP_ARGS(xprt, xid, err, result, rtt_ns),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, xid)
			     __field(int, err)
			     __field(int, result)
			     __field(u64, rtt_ns)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->xid = xid;
			   __entry->err = err;
			   __entry->result = result;
			   __entry->rtt_ns = rtt_ns;),
	    TP_printk("xprt=%u xid=0x%08x call done: errno %d (reply result %d), rtt %llu ns",
		      __entry->xprt, __entry->xid, __entry->err, __entry->result,
		      __entry->rtt_ns)
);

TRACE_EVENT(cmkit_rpcrdma_call_timeout,
	    TP_PROTO(u32 xprt, u32 xid),
	    TP_ARGS(xprt, xid),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, xid)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->xid = xid;),
	    TP_printk("xprt=%u xid=0x%08x no reply in time: the connection is closed",
		      __entry->xprt, __entry->xid)
);

TRACE_EVENT(cmkit_rpcrdma_marshal,
	    TP_PROTO(u32 xprt, u32 proc, u32 arg_len, u32 res_len, int rtype, int wtype),
	    TP_ARGS(xprt, proc, arg_len, res_len, rtype, wtype),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, proc)
			     __field(u32, arg_len)
			     __field(u32, res_len)
			     __field(int, rtype)
			     __field(int, wtype)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->proc = proc;
			   __entry->arg_len = arg_len;
			   __entry->res_len = res_len;
			   __entry->rtype = rtype;
			   __entry->wtype = wtype;),
	    TP_printk("xprt=%u proc=%u args %u bytes (%s), result %u bytes (%s)",
		      __entry->xprt, __entry->proc, __entry->arg_len,
		      __print_symbolic(__entry->rtype, { 0, "inline" }, { 1, "read chunk" },
				       { 2, "position-zero read chunk" }),
		      __entry->res_len,
		      __print_symbolic(__entry->wtype, { 0, "inline" }, { 3, "write chunk" },
				       { 4, "reply chunk" }))
);

/* The server's reply broke the terms of the call's chunks: not followed. */
TRACE_EVENT(cmkit_rpcrdma_reply_chunks_bad,
	    TP_PROTO(u32 xprt, u32 xid, int result, u32 write_len, u32 expected),
	    TP_ARGS(xprt, xid, result, write_len, expected),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, xid)
			     __field(int, result)
			     __field(u32, write_len)
			     __field(u32, expected)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->xid = xid;
			   __entry->result = result;
			   __entry->write_len = write_len;
			   __entry->expected = expected;),
	    TP_printk("xprt=%u xid=0x%08x reply refused (%d): write chunk %u bytes, the result says %u",
		      __entry->xprt, __entry->xid, __entry->result, __entry->write_len,
		      __entry->expected)
);

/* rc: how many waiting calls the connection's end completed */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_calls_aborted);
/* rc: Receives posted when the drain begins */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_drain);

/* ---- reconnecting (reconnect.c) -------------------------------------------- */

TRACE_EVENT(cmkit_rpcrdma_reconnect_schedule,
	    TP_PROTO(u32 xprt, unsigned long delay, u32 tries, u32 resend),
	    TP_ARGS(xprt, delay, tries, resend),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(unsigned int, delay_ms)
			     __field(u32, tries)
			     __field(u32, resend)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->delay_ms = jiffies_to_msecs(delay);
			   __entry->tries = tries;
			   __entry->resend = resend;),
	    TP_printk("xprt=%u reconnect in %u ms (attempts so far %u, calls to resend %u)",
		      __entry->xprt, __entry->delay_ms, __entry->tries, __entry->resend)
);

TRACE_EVENT(cmkit_rpcrdma_reconnect,
	    TP_PROTO(u32 xprt, u32 try, int rc),
	    TP_ARGS(xprt, try, rc),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, try)
			     __field(int, rc)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->try = try;
			   __entry->rc = rc;),
	    TP_printk("xprt=%u reconnect attempt %u: rc=%d", __entry->xprt, __entry->try,
		      __entry->rc)
);

TRACE_EVENT(cmkit_rpcrdma_call_resend,
	    TP_PROTO(u32 xprt, u32 xid, u32 xmits, int rc),
	    TP_ARGS(xprt, xid, xmits, rc),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, xid)
			     __field(u32, xmits)
			     __field(int, rc)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->xid = xid;
			   __entry->xmits = xmits;
			   __entry->rc = rc;),
	    TP_printk("xprt=%u xid=0x%08x sent again (transmissions %u): rc=%d",
		      __entry->xprt, __entry->xid, __entry->xmits, __entry->rc)
);

/* A call's chunks mapped into MRs of the current connection (frwr.c). */
TRACE_EVENT(cmkit_rpcrdma_msg_map,
	    TP_PROTO(u32 xprt, unsigned int segs, int rc),
	    TP_ARGS(xprt, segs, rc),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(unsigned int, segs)
			     __field(int, rc)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->segs = segs;
			   __entry->rc = rc;),
	    TP_printk("xprt=%u %u chunk segments mapped: rc=%d", __entry->xprt,
		      __entry->segs, __entry->rc)
);

/*
 * A call to send again after a reconnect: its MRs of the lost connection
 * left to that connection's teardown (old), and whether its chunks are
 * registered again on the new one (remap) or the call ends unsent.
 */
TRACE_EVENT(cmkit_rpcrdma_resend_mrs,
	    TP_PROTO(u32 xprt, u32 xid, unsigned int old, bool remap),
	    TP_ARGS(xprt, xid, old, remap),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, xid)
			     __field(unsigned int, old)
			     __field(bool, remap)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->xid = xid;
			   __entry->old = old;
			   __entry->remap = remap;),
	    TP_printk("xprt=%u xid=0x%08x %u MRs of the lost connection dropped; chunks %s",
		      __entry->xprt, __entry->xid, __entry->old,
		      __entry->remap ? "registered again on the next" : "not resent")
);

/*
 * rc: a batch lost its connection before a call was sent: the calls it
 * goes on with on the new connection, or -ECONNABORTED (none is up)
 */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_batch_resume);
/* rc: 1 if the reconnect was not needed (connected meanwhile), else 0 */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_reconnect_done);
/* rc: calls that were waiting to be sent again (they end with -ECONNABORTED) */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_reconnect_stop);

/* A call_chunks reply: its lists and results taken (result 0) or refused. */
TRACE_EVENT(cmkit_rpcrdma_chunks_reply,
	    TP_PROTO(u32 xprt, u32 xid, int result, u32 write_len, u32 results_len),
	    TP_ARGS(xprt, xid, result, write_len, results_len),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, xid)
			     __field(int, result)
			     __field(u32, write_len)
			     __field(u32, results_len)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->xid = xid;
			   __entry->result = result;
			   __entry->write_len = write_len;
			   __entry->results_len = results_len;),
	    TP_printk("xprt=%u xid=0x%08x result=%d write chunk %u bytes, results %u bytes inline",
		      __entry->xprt, __entry->xid, __entry->result, __entry->write_len,
		      __entry->results_len)
);

/*
 * An NFSv4.0 COMPOUND's end: the call's errno, the decoder's result, the
 * COMPOUND's nfsstat4 and its last operation.
 */
TRACE_EVENT(cmkit_rpcrdma_nfs4_compound,
	    TP_PROTO(u32 xprt, u32 first_op, int rc, int decoded, u32 status, u32 last_op),
	    TP_ARGS(xprt, first_op, rc, decoded, status, last_op),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, first_op)
			     __field(int, rc)
			     __field(int, decoded)
			     __field(u32, status)
			     __field(u32, last_op)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->first_op = first_op;
			   __entry->rc = rc;
			   __entry->decoded = decoded;
			   __entry->status = status;
			   __entry->last_op = last_op;),
	    TP_printk("xprt=%u compound from op %u: rc=%d decoded=%d status=%u last op %u",
		      __entry->xprt, __entry->first_op, __entry->rc, __entry->decoded,
		      __entry->status, __entry->last_op)
);

/* NFS4ERR_GRACE: the COMPOUND is sent again after a wait (rc: tries so far). */
DEFINE_RPCRDMA_XPRT_EVENT(cmkit_rpcrdma_nfs4_grace);

/* An NFSv4.0 READ or WRITE: what was asked and what the server did. */
TRACE_EVENT(cmkit_rpcrdma_nfs4_io,
	    TP_PROTO(u32 xprt, u32 op, u64 offset, u32 count, u32 done, int rc),
	    TP_ARGS(xprt, op, offset, count, done, rc),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, op)
			     __field(u64, offset)
			     __field(u32, count)
			     __field(u32, done)
			     __field(int, rc)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->op = op;
			   __entry->offset = offset;
			   __entry->count = count;
			   __entry->done = done;
			   __entry->rc = rc;),
	    TP_printk("xprt=%u %s offset %llu count %u: %u bytes, rc=%d", __entry->xprt,
		      __entry->op == 25 ? "READ" : "WRITE",
		      __entry->offset, __entry->count, __entry->done, __entry->rc)
);

/*
 * An nfs4 read command's READ size: a READ at @offset that ended short
 * of the end of the file found it (@known false), or,
 * with it known, the rest of the file from @offset goes at the depth
 * asked (@known true).
 */
TRACE_EVENT(cmkit_rpcrdma_nfs4_rsize,
	    TP_PROTO(u32 xprt, u64 offset, u32 rsize, bool known),
	    TP_ARGS(xprt, offset, rsize, known),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u64, offset)
			     __field(u32, rsize)
			     __field(bool, known)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->offset = offset;
			   __entry->rsize = rsize;
			   __entry->known = known;),
	    TP_printk("xprt=%u offset %llu: READ size %u %s", __entry->xprt, __entry->offset,
		      __entry->rsize, __entry->known ? "known: the rest at depth" : "found")
);

/* An nfs4 read at a depth over 1: @items work items read from @offset in pieces of @rsize. */
TRACE_EVENT(cmkit_rpcrdma_nfs4_depth,
	    TP_PROTO(u32 xprt, u32 depth, u32 items, u64 offset, u32 rsize),
	    TP_ARGS(xprt, depth, items, offset, rsize),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, depth)
			     __field(u32, items)
			     __field(u64, offset)
			     __field(u32, rsize)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->depth = depth;
			   __entry->items = items;
			   __entry->offset = offset;
			   __entry->rsize = rsize;),
	    TP_printk("xprt=%u depth %u: %u work items from offset %llu, READs of %u",
		      __entry->xprt, __entry->depth, __entry->items, __entry->offset,
		      __entry->rsize)
);

/* Its work items are done: the READs they sent, the most outstanding at once, the first error. */
TRACE_EVENT(cmkit_rpcrdma_nfs4_depth_done,
	    TP_PROTO(u32 xprt, u32 reads, u32 in_flight, int rc),
	    TP_ARGS(xprt, reads, in_flight, rc),
	    TP_STRUCT__entry(__field(u32, xprt)
			     __field(u32, reads)
			     __field(u32, in_flight)
			     __field(int, rc)),
	    TP_fast_assign(__entry->xprt = xprt;
			   __entry->reads = reads;
			   __entry->in_flight = in_flight;
			   __entry->rc = rc;),
	    TP_printk("xprt=%u %u READs, at most %u in flight: rc=%d", __entry->xprt,
		      __entry->reads, __entry->in_flight, __entry->rc)
);

#endif /* _CMKIT_RPCRDMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH rpcrdma
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
