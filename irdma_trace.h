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

#include "irdma_cm.h"

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
			     __field(u32, rem_addr)
			     __field(u16, rem_port)),
	    TP_fast_assign(__entry->node = cm_node->id;
			   __entry->type = type;
			   __entry->seq = seq;
			   __entry->rem_addr = cm_node->rem_addr;
			   __entry->rem_port = cm_node->rem_port;),
	    TP_printk("node=%u peer=%pI4h:%u %s seq=%u", __entry->node,
		      &__entry->rem_addr, __entry->rem_port,
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
	    TP_printk("node=%u state=%d err=%d", __entry->node, __entry->state,
		      __entry->err)
);

#endif /* CMKIT_IRDMA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#define TRACE_INCLUDE_FILE irdma_trace
#include <trace/define_trace.h>
