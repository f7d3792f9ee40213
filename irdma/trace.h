/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Tracepoints of cmkit's irdma connection manager: event creation, each
 * decision of the event handler, each upcall, each MPA frame and each
 * abort.  Enable with "echo 1 > /sys/kernel/tracing/events/cmkit_irdma/enable".
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cmkit_irdma

#if !defined(CMKIT_IRDMA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define CMKIT_IRDMA_TRACE_H

#include <linux/tracepoint.h>

#include "irdma/irdma.h"
#include <cmkit/mpa_fpdu.h>

TRACE_DEFINE_ENUM(IRDMA_CM_EVENT_UNKNOWN);
TRACE_DEFINE_ENUM(IRDMA_CM_EVENT_ESTABLISHED);
TRACE_DEFINE_ENUM(IRDMA_CM_EVENT_MPA_REQ);
TRACE_DEFINE_ENUM(IRDMA_CM_EVENT_MPA_CONNECT);
TRACE_DEFINE_ENUM(IRDMA_CM_EVENT_MPA_ACCEPT);
TRACE_DEFINE_ENUM(IRDMA_CM_EVENT_MPA_REJECT);
TRACE_DEFINE_ENUM(IRDMA_CM_EVENT_MPA_ESTABLISHED);
TRACE_DEFINE_ENUM(IRDMA_CM_EVENT_CONNECTED);
TRACE_DEFINE_ENUM(IRDMA_CM_EVENT_RESET);
TRACE_DEFINE_ENUM(IRDMA_CM_EVENT_ABORTED);
TRACE_DEFINE_ENUM(IRDMA_CM_EVENT_DISCONN);

TRACE_DEFINE_ENUM(IW_CM_EVENT_CONNECT_REQUEST);
TRACE_DEFINE_ENUM(IW_CM_EVENT_CONNECT_REPLY);
TRACE_DEFINE_ENUM(IW_CM_EVENT_ESTABLISHED);
TRACE_DEFINE_ENUM(IW_CM_EVENT_DISCONNECT);
TRACE_DEFINE_ENUM(IW_CM_EVENT_CLOSE);

TRACE_DEFINE_ENUM(CMKIT_IRDMA_API_CONNECT);
TRACE_DEFINE_ENUM(CMKIT_IRDMA_API_ACCEPT);
TRACE_DEFINE_ENUM(CMKIT_IRDMA_API_REJECT);
TRACE_DEFINE_ENUM(CMKIT_IRDMA_API_CLOSE);
TRACE_DEFINE_ENUM(CMKIT_IRDMA_API_RESET);

TRACE_DEFINE_ENUM(IRDMA_CM_STATE_UNKNOWN);
TRACE_DEFINE_ENUM(IRDMA_CM_STATE_SYN_SENT);
TRACE_DEFINE_ENUM(IRDMA_CM_STATE_ESTABLISHED);
TRACE_DEFINE_ENUM(IRDMA_CM_STATE_MPAREQ_SENT);
TRACE_DEFINE_ENUM(IRDMA_CM_STATE_MPAREQ_RCVD);
TRACE_DEFINE_ENUM(IRDMA_CM_STATE_MPAREJ_RCVD);
TRACE_DEFINE_ENUM(IRDMA_CM_STATE_RTR_WAIT);
TRACE_DEFINE_ENUM(IRDMA_CM_STATE_OFFLOADED);
TRACE_DEFINE_ENUM(IRDMA_CM_STATE_FIN_WAIT1);
TRACE_DEFINE_ENUM(IRDMA_CM_STATE_CLOSED);

#define cmkit_irdma_show_state(x)						\
	__print_symbolic(x,							\
			 { IRDMA_CM_STATE_UNKNOWN, "UNKNOWN" },			\
			 { IRDMA_CM_STATE_SYN_SENT, "SYN_SENT" },		\
			 { IRDMA_CM_STATE_ESTABLISHED, "ESTABLISHED" },		\
			 { IRDMA_CM_STATE_MPAREQ_SENT, "MPAREQ_SENT" },		\
			 { IRDMA_CM_STATE_MPAREQ_RCVD, "MPAREQ_RCVD" },		\
			 { IRDMA_CM_STATE_MPAREJ_RCVD, "MPAREJ_RCVD" },		\
			 { IRDMA_CM_STATE_RTR_WAIT, "RTR_WAIT" },		\
			 { IRDMA_CM_STATE_OFFLOADED, "OFFLOADED" },		\
			 { IRDMA_CM_STATE_FIN_WAIT1, "FIN_WAIT1" },		\
			 { IRDMA_CM_STATE_CLOSED, "CLOSED" })

#define cmkit_irdma_show_api(x)							\
	__print_symbolic(x,							\
			 { CMKIT_IRDMA_API_CONNECT, "connect" },		\
			 { CMKIT_IRDMA_API_ACCEPT, "accept" },			\
			 { CMKIT_IRDMA_API_REJECT, "reject" },			\
			 { CMKIT_IRDMA_API_CLOSE, "close" },			\
			 { CMKIT_IRDMA_API_RESET, "reset" })

#define cmkit_irdma_show_event(x)						\
	__print_symbolic(x,							\
			 { IRDMA_CM_EVENT_UNKNOWN, "UNKNOWN" },			\
			 { IRDMA_CM_EVENT_ESTABLISHED, "ESTABLISHED" },		\
			 { IRDMA_CM_EVENT_MPA_REQ, "MPA_REQ" },			\
			 { IRDMA_CM_EVENT_MPA_CONNECT, "MPA_CONNECT" },		\
			 { IRDMA_CM_EVENT_MPA_ACCEPT, "MPA_ACCEPT" },		\
			 { IRDMA_CM_EVENT_MPA_REJECT, "MPA_REJECT" },		\
			 { IRDMA_CM_EVENT_MPA_ESTABLISHED, "MPA_ESTABLISHED" },	\
			 { IRDMA_CM_EVENT_CONNECTED, "CONNECTED" },		\
			 { IRDMA_CM_EVENT_RESET, "RESET" },			\
			 { IRDMA_CM_EVENT_ABORTED, "ABORTED" },			\
			 { IRDMA_CM_EVENT_DISCONN, "DISCONN" })

#define cmkit_irdma_show_iw_event(x)						\
	__print_symbolic(x,							\
			 { IW_CM_EVENT_CONNECT_REQUEST, "CONNECT_REQUEST" },	\
			 { IW_CM_EVENT_CONNECT_REPLY, "CONNECT_REPLY" },	\
			 { IW_CM_EVENT_ESTABLISHED, "ESTABLISHED" },		\
			 { IW_CM_EVENT_DISCONNECT, "DISCONNECT" },		\
			 { IW_CM_EVENT_CLOSE, "CLOSE" })

TRACE_EVENT(cmkit_irdma_create_event,
	    TP_PROTO(const struct irdma_cm_node *cm_node, int type, u32 seq),
	    TP_ARGS(cm_node, type, seq),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(int, type)
			     __field(u32, seq)
			     __array(u8, peer, sizeof(struct sockaddr_in6))),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->type = type;
			   __entry->seq = seq;
			   irdma_sa_trace(__entry->peer, &cm_node->rem);),
	    TP_printk("node=%u peer=%pISpc %s seq=%u", __entry->node, __entry->peer,
		      cmkit_irdma_show_event(__entry->type), __entry->seq)
);

TRACE_EVENT(cmkit_irdma_handle_event,
	    TP_PROTO(const struct irdma_cm_node *cm_node, int type, u32 seq,
		     int ul_state),
	    TP_ARGS(cm_node, type, seq, ul_state),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(int, type)
			     __field(u32, seq)
			     __field(int, ul_state)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->type = type;
			   __entry->seq = seq;
			   __entry->ul_state = ul_state;),
	    TP_printk("node=%u %s seq=%u ul_state=%d", __entry->node,
		      cmkit_irdma_show_event(__entry->type), __entry->seq,
		      __entry->ul_state)
);

TRACE_EVENT(cmkit_irdma_send_cm_event,
	    TP_PROTO(const struct irdma_cm_node *cm_node, int type, int status),
	    TP_ARGS(cm_node, type, status),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(int, type)
			     __field(int, status)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->type = type;
			   __entry->status = status;),
	    TP_printk("node=%u %s status=%d", __entry->node,
		      cmkit_irdma_show_iw_event(__entry->type), __entry->status)
);

TRACE_EVENT(cmkit_irdma_mpa,
	    TP_PROTO(const struct irdma_cm_node *cm_node, bool rx,
		     const struct cmkit_mpa_frame *f),
	    TP_ARGS(cm_node, rx, f),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(bool, rx)
			     __field(u8, flags)
			     __field(u8, rev)
			     __field(u16, ird)
			     __field(u16, ord)
			     __field(u16, pdata_len)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->rx = rx;
			   __entry->flags = f->flags;
			   __entry->rev = f->rev;
			   __entry->ird = f->ird;
			   __entry->ord = f->ord;
			   __entry->pdata_len = f->pdata_len;),
	    TP_printk("node=%u %s flags=%#x rev=%u ird=%u ord=%u pdata_len=%u",
		      __entry->node, __entry->rx ? "rx" : "tx", __entry->flags,
		      __entry->rev, __entry->ird, __entry->ord, __entry->pdata_len)
);

TRACE_EVENT(cmkit_irdma_abort,
	    TP_PROTO(const struct irdma_cm_node *cm_node, int state, int err),
	    TP_ARGS(cm_node, state, err),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(int, state)
			     __field(int, err)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->state = state;
			   __entry->err = err;),
	    TP_printk("node=%u state=%s err=%d", __entry->node,
		      cmkit_irdma_show_state(__entry->state), __entry->err)
);

/* A frame that can never be a valid MPA frame, or a peer gone mid-frame (err 0). */
TRACE_EVENT(cmkit_irdma_bad_frame,
	    TP_PROTO(const struct irdma_cm_node *cm_node, int kind, int mpa_err,
		     size_t rx_len),
	    TP_ARGS(cm_node, kind, mpa_err, rx_len),
	    TP_STRUCT__entry(__field(u32, node)
			     __array(u8, peer, sizeof(struct sockaddr_in6))
			     __field(int, kind)
			     __field(int, mpa_err)
			     __field(u32, rx_len)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   irdma_sa_trace(__entry->peer, &cm_node->rem);
			   __entry->kind = kind;
			   __entry->mpa_err = mpa_err;
			   __entry->rx_len = rx_len;),
	    TP_printk("node=%u peer=%pISpc %s %s after %u bytes", __entry->node,
		      __entry->peer, __entry->kind ? "reply" : "request",
		      __entry->mpa_err ? cmkit_mpa_strerror(__entry->mpa_err) :
		      "peer closed", __entry->rx_len)
);

/* An orderly close completed (the peer's FIN arrived). */
TRACE_EVENT(cmkit_irdma_closed,
	    TP_PROTO(const struct irdma_cm_node *cm_node, int state, u64 dropped),
	    TP_ARGS(cm_node, state, dropped),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(int, state)
			     __field(u64, dropped)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->state = state;
			   __entry->dropped = dropped;),
	    TP_printk("node=%u closed by %s, %llu bytes dropped", __entry->node,
		      __entry->state == IRDMA_CM_STATE_FIN_WAIT1 ? "us" : "the peer",
		      __entry->dropped)
);

/*
 * The socket work left bytes unread: a request awaits its answer (@read 0,
 * nothing is read until then), or the run read its budget and requeued.
 */
TRACE_EVENT(cmkit_irdma_rx_yield,
	    TP_PROTO(const struct irdma_cm_node *cm_node, int state, u32 read),
	    TP_ARGS(cm_node, state, read),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(int, state)
			     __field(u32, read)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->state = state;
			   __entry->read = read;),
	    TP_printk("node=%u state=%s %s %u bytes", __entry->node,
		      cmkit_irdma_show_state(__entry->state),
		      __entry->read ? "requeued after" : "request pending: read",
		      __entry->read)
);

/* A listener's accept work took its batch of connections and requeued. */
TRACE_EVENT(cmkit_irdma_accept_yield,
	    TP_PROTO(const struct sockaddr_storage *loc, u32 accepted),
	    TP_ARGS(loc, accepted),
	    TP_STRUCT__entry(__array(u8, loc, sizeof(struct sockaddr_in6))
			     __field(u32, accepted)),
	    TP_fast_assign(irdma_sa_trace(__entry->loc, loc);
			   __entry->accepted = accepted;),
	    TP_printk("listener=%pISpc requeued after %u connections", __entry->loc,
		      __entry->accepted)
);

/* A CONNECT_REQUEST indicated (rc: the upper layer's answer), or refused. */
TRACE_EVENT(cmkit_irdma_indicate,
	    TP_PROTO(const struct irdma_cm_node *cm_node, int rc),
	    TP_ARGS(cm_node, rc),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(int, rc)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->rc = rc;),
	    TP_printk("node=%u %s rc=%d", __entry->node,
		      __entry->rc == -ENOENT ? "refused: listener gone" :
		      __entry->rc == -EAGAIN ? "deferred: listener coming up" :
		      __entry->rc ? "indicated, refused: the consumer rejects" :
		      "indicated", __entry->rc)
);

/* A consumer API call and its result (node 0: none was made). */
TRACE_EVENT(cmkit_irdma_api,
	    TP_PROTO(u32 node, int op, int rc),
	    TP_ARGS(node, op, rc),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(int, op)
			     __field(int, rc)),
	    TP_fast_assign(__entry->node = node;
			   __entry->op = op;
			   __entry->rc = rc;),
	    TP_printk("node=%u %s rc=%d", __entry->node,
		      cmkit_irdma_show_api(__entry->op), __entry->rc)
);

/* A listener started (on) or stopped. */
TRACE_EVENT(cmkit_irdma_listen,
	    TP_PROTO(const struct sockaddr_storage *addr, bool on, int rc),
	    TP_ARGS(addr, on, rc),
	    TP_STRUCT__entry(__array(u8, addr, sizeof(struct sockaddr_in6))
			     __field(bool, on)
			     __field(int, rc)),
	    TP_fast_assign(irdma_sa_trace(__entry->addr, addr);
			   __entry->on = on;
			   __entry->rc = rc;),
	    TP_printk("%pISpc %s rc=%d", __entry->addr,
		      __entry->on ? "listen" : "stopped", __entry->rc)
);

/*
 * A TCP connection to a listener refused before it had a node (reset):
 * -EBUSY when the listener's backlog of pending requests is full.
 */
TRACE_EVENT(cmkit_irdma_refused,
	    TP_PROTO(const struct irdma_cm_listener *listener,
		     const struct sockaddr_storage *rem, int err),
	    TP_ARGS(listener, rem, err),
	    TP_STRUCT__entry(__array(u8, addr, sizeof(struct sockaddr_in6))
			     __array(u8, peer, sizeof(struct sockaddr_in6))
			     __field(int, err)),
	    TP_fast_assign(irdma_sa_trace(__entry->addr, &listener->loc);
			   irdma_sa_trace(__entry->peer, rem);
			   __entry->err = err;),
	    TP_printk("listener=%pISpc peer=%pISpc err=%d", __entry->addr,
		      __entry->peer, __entry->err)
);

/*
 * The MPA decision on a request (passive) or a reply (active): rc 0 goes
 * on, a positive rc is the reason of our reject, a negative one the
 * CMKIT_MPA_E_* that ends the connection.
 */
TRACE_EVENT(cmkit_irdma_negotiate,
	    TP_PROTO(const struct irdma_cm_node *cm_node, int rc,
		     const struct cmkit_mpa_result *r),
	    TP_ARGS(cm_node, rc, r),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(bool, passive)
			     __field(int, rc)
			     __field(u8, rev)
			     __field(u8, crc)
			     __field(u8, p2p)
			     __field(u8, rtr)
			     __field(u16, ird)
			     __field(u16, ord)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->passive = cm_node->passive;
			   __entry->rc = rc;
			   __entry->rev = r->rev;
			   __entry->crc = r->crc;
			   __entry->p2p = r->p2p;
			   __entry->rtr = r->rtr;
			   __entry->ird = r->ird;
			   __entry->ord = r->ord;),
	    TP_printk("node=%u %s rc=%d (%s) rev=%u crc=%u p2p=%u rtr=%#x ird=%u ord=%u",
		      __entry->node, __entry->passive ? "request" : "reply", __entry->rc,
		      __entry->rc > 0 ? cmkit_mpa_reason_str(__entry->rc) :
		      __entry->rc ? cmkit_mpa_strerror(__entry->rc) : "goes on",
		      __entry->rev, __entry->crc, __entry->p2p, __entry->rtr,
		      __entry->ird, __entry->ord)
);

/* An MPA reject we send: with a reason, or the consumer's private data. */
TRACE_EVENT(cmkit_irdma_reject,
	    TP_PROTO(const struct irdma_cm_node *cm_node, int reason, u16 pdata_len),
	    TP_ARGS(cm_node, reason, pdata_len),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(int, reason)
			     __field(u16, pdata_len)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->reason = reason;
			   __entry->pdata_len = pdata_len;),
	    TP_printk("node=%u reason=%d (%s) pdata_len=%u", __entry->node,
		      __entry->reason, cmkit_mpa_reason_str(__entry->reason),
		      __entry->pdata_len)
);

/*
 * An RTR message, or its Read Response: sent (rx false; rc 1 for a Read
 * Response), or received and checked (rc > 0: right; < 0: the
 * CMKIT_FPDU_E_* that ends the connection).
 */
TRACE_EVENT(cmkit_irdma_rtr,
	    TP_PROTO(const struct irdma_cm_node *cm_node, bool rx, u8 rtr, int rc),
	    TP_ARGS(cm_node, rx, rtr, rc),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(bool, rx)
			     __field(u8, rtr)
			     __field(int, rc)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->rx = rx;
			   __entry->rtr = rtr;
			   __entry->rc = rc;),
	    TP_printk("node=%u %s rtr=%s rc=%d (%s)", __entry->node,
		      __entry->rx ? "rx" : "tx",
		      __entry->rtr == CMKIT_MPA_RTR_WRITE ? "write" :
		      __entry->rtr == CMKIT_MPA_RTR_READ ? "read" : "send", __entry->rc,
		      __entry->rc < 0 ? cmkit_fpdu_strerror(__entry->rc) : "ok")
);

/* A peer kept us waiting in @state longer than the MPA timer allows. */
TRACE_EVENT(cmkit_irdma_timeout,
	    TP_PROTO(const struct irdma_cm_node *cm_node, int state),
	    TP_ARGS(cm_node, state),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(int, state)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->state = state;),
	    TP_printk("node=%u state=%s", __entry->node,
		      cmkit_irdma_show_state(__entry->state))
);

/* A revision 2 request refused for its revision (rev 0: reset): retried in 1. */
TRACE_EVENT(cmkit_irdma_fallback,
	    TP_PROTO(const struct irdma_cm_node *cm_node, u8 rev),
	    TP_ARGS(cm_node, rev),
	    TP_STRUCT__entry(__field(u32, node)
			     __field(u8, rev)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->rev = rev;),
	    TP_printk("node=%u refused by a %s: retrying in revision 1", __entry->node,
		      __entry->rev ? "revision 1 reject" : "reset or close")
);

#endif /* CMKIT_IRDMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH irdma
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
