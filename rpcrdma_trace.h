/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of cmkit's rpcrdma endpoint: every decision the CM handler
 * takes, the inline-threshold negotiation, and connect/disconnect results.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cmkit_rpcrdma

#if !defined(_CMKIT_RPCRDMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _CMKIT_RPCRDMA_TRACE_H

#include <linux/tracepoint.h>
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

TRACE_EVENT(rpcrdma_cm_event,
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

TRACE_EVENT(rpcrdma_inline_thresh,
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
DEFINE_RPCRDMA_XPRT_EVENT(rpcrdma_force_disconnect);
/* rc: the generation asked for; the transport's ep is another one, or none */
DEFINE_RPCRDMA_XPRT_EVENT(rpcrdma_force_stale);
/* rc: the connect result */
DEFINE_RPCRDMA_XPRT_EVENT(rpcrdma_connect);
/* rc: 1 if the final put freed the ep and the id was destroyed here */
DEFINE_RPCRDMA_XPRT_EVENT(rpcrdma_disconnect);
/* rc: 1 if the linger work freed the ep and destroyed the id */
DEFINE_RPCRDMA_XPRT_EVENT(rpcrdma_linger);
/* rc: the work completion status that asked for a disconnect */
DEFINE_RPCRDMA_XPRT_EVENT(rpcrdma_flush_disconnect);

TRACE_EVENT(rpcrdma_fault,
	    TP_PROTO(unsigned int step),
	    TP_ARGS(step),
	    TP_STRUCT__entry(__field(unsigned int, step)),
	    TP_fast_assign(__entry->step = step;),
	    TP_printk("injected a failure at step %u", __entry->step)
);

#endif /* _CMKIT_RPCRDMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE rpcrdma_trace
#include <trace/define_trace.h>
