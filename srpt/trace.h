/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit srpt: trace events, one at each decision of the SRP target's CM
 * handler and at every channel state change.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM cmkit_srpt

#if !defined(CMKIT_SRPT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define CMKIT_SRPT_TRACE_H

#include <linux/tracepoint.h>
#include <rdma/ib_cm.h>
#include <cmkit/srp.h>

#include "srpt/srpt.h"

#define srpt_show_cm_event(e)						\
	__print_symbolic(e,						\
		{ IB_CM_REQ_ERROR, "REQ_ERROR" },			\
		{ IB_CM_REQ_RECEIVED, "REQ_RECEIVED" },			\
		{ IB_CM_REP_ERROR, "REP_ERROR" },			\
		{ IB_CM_REP_RECEIVED, "REP_RECEIVED" },			\
		{ IB_CM_RTU_RECEIVED, "RTU_RECEIVED" },			\
		{ IB_CM_USER_ESTABLISHED, "USER_ESTABLISHED" },		\
		{ IB_CM_DREQ_ERROR, "DREQ_ERROR" },			\
		{ IB_CM_DREQ_RECEIVED, "DREQ_RECEIVED" },		\
		{ IB_CM_DREP_RECEIVED, "DREP_RECEIVED" },		\
		{ IB_CM_TIMEWAIT_EXIT, "TIMEWAIT_EXIT" },		\
		{ IB_CM_MRA_RECEIVED, "MRA_RECEIVED" },			\
		{ IB_CM_REJ_RECEIVED, "REJ_RECEIVED" },			\
		{ IB_CM_SIDR_REQ_RECEIVED, "SIDR_REQ_RECEIVED" })

#define srpt_show_ch_state(s)						\
	__print_symbolic(s,						\
		{ SRPT_CH_CONNECTING, "CONNECTING" },			\
		{ SRPT_CH_LIVE, "LIVE" },				\
		{ SRPT_CH_DISCONNECTING, "DISCONNECTING" },		\
		{ SRPT_CH_DRAINING, "DRAINING" },			\
		{ SRPT_CH_DISCONNECTED, "DISCONNECTED" })

TRACE_DEFINE_ENUM(IB_CM_REQ_ERROR);
TRACE_DEFINE_ENUM(IB_CM_REQ_RECEIVED);
TRACE_DEFINE_ENUM(IB_CM_REP_ERROR);
TRACE_DEFINE_ENUM(IB_CM_REP_RECEIVED);
TRACE_DEFINE_ENUM(IB_CM_RTU_RECEIVED);
TRACE_DEFINE_ENUM(IB_CM_USER_ESTABLISHED);
TRACE_DEFINE_ENUM(IB_CM_DREQ_ERROR);
TRACE_DEFINE_ENUM(IB_CM_DREQ_RECEIVED);
TRACE_DEFINE_ENUM(IB_CM_DREP_RECEIVED);
TRACE_DEFINE_ENUM(IB_CM_TIMEWAIT_EXIT);
TRACE_DEFINE_ENUM(IB_CM_MRA_RECEIVED);
TRACE_DEFINE_ENUM(IB_CM_REJ_RECEIVED);
TRACE_DEFINE_ENUM(IB_CM_SIDR_REQ_RECEIVED);
TRACE_DEFINE_ENUM(SRPT_CH_CONNECTING);
TRACE_DEFINE_ENUM(SRPT_CH_LIVE);
TRACE_DEFINE_ENUM(SRPT_CH_DISCONNECTING);
TRACE_DEFINE_ENUM(SRPT_CH_DRAINING);
TRACE_DEFINE_ENUM(SRPT_CH_DISCONNECTED);

/* Every event srpt_cm_handler() is called with, before it acts. */
TRACE_EVENT(cmkit_srpt_cm_event,
	    TP_PROTO(const struct ib_cm_id *cm_id, int event,
		     const void *context),
	    TP_ARGS(cm_id, event, context),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u32, remote_id)
			     __field(int, event)
			     __field(bool, has_context)),
	    TP_fast_assign(__entry->local_id = be32_to_cpu(cm_id->local_id);
			   __entry->remote_id = be32_to_cpu(cm_id->remote_id);
			   __entry->event = event;
			   __entry->has_context = context;),
	    /*
	     * Who owns the id, not where (%p is hashed anyway): a REQ's or
	     * SIDR REQ's context is its listener's port, any other event's a
	     * channel.
	     */
	    TP_printk("cm_id %#x/%#x %s owner %s",
		      __entry->local_id, __entry->remote_id,
		      srpt_show_cm_event(__entry->event),
		      !__entry->has_context ? "none" :
		      __entry->event == IB_CM_REQ_RECEIVED ||
		      __entry->event == IB_CM_SIDR_REQ_RECEIVED ? "port" : "channel")
);

/* What srpt_cm_handler() returned for a REQ: non-zero destroys the id. */
TRACE_EVENT(cmkit_srpt_req_done,
	    TP_PROTO(const struct ib_cm_id *cm_id, u64 tag, int ret),
	    TP_ARGS(cm_id, tag, ret),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u64, tag)
			     __field(int, ret)),
	    TP_fast_assign(__entry->local_id = be32_to_cpu(cm_id->local_id);
			   __entry->tag = tag;
			   __entry->ret = ret;),
	    TP_printk("cm_id %#x tag %#llx ret %d%s", __entry->local_id,
		      __entry->tag, __entry->ret,
		      __entry->ret ? " (ib_cm destroys the id)" : "")
);

/* A REQ whose private data holds no login this listener understands. */
TRACE_EVENT(cmkit_srpt_login_malformed,
	    TP_PROTO(const struct ib_cm_id *cm_id, bool rdma_cm, int what),
	    TP_ARGS(cm_id, rdma_cm, what),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(bool, rdma_cm)
			     __field(int, what)),
	    TP_fast_assign(__entry->local_id = be32_to_cpu(cm_id->local_id);
			   __entry->rdma_cm = rdma_cm;
			   __entry->what = what;),
	    TP_printk("cm_id %#x %s form: %s", __entry->local_id,
		      __entry->rdma_cm ? "rdma_cm" : "ib_cm",
		      __entry->what == CMKIT_SRP_PDATA_BAD_CMA_HDR ?
		      "no rdma_cm IP header" : "short private data")
);

/* A SIDR REQ refused: srpt has no UD service; ib_cm destroys the id. */
TRACE_EVENT(cmkit_srpt_sidr_reject,
	    TP_PROTO(const struct ib_cm_id *cm_id, int rep_ret),
	    TP_ARGS(cm_id, rep_ret),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u64, service_id)
			     __field(int, rep_ret)),
	    TP_fast_assign(__entry->local_id = be32_to_cpu(cm_id->local_id);
			   __entry->service_id = be64_to_cpu(cm_id->service_id);
			   __entry->rep_ret = rep_ret;),
	    TP_printk("cm_id %#x service id %#llx: SIDR REP reject (send %d)",
		      __entry->local_id, __entry->service_id, __entry->rep_ret)
);

/* A login answered with an SRP_LOGIN_REJ. */
TRACE_EVENT(cmkit_srpt_login_reject,
	    TP_PROTO(const struct ib_cm_id *cm_id, u64 tag, u32 reason,
		     int rej_ret),
	    TP_ARGS(cm_id, tag, reason, rej_ret),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u64, tag)
			     __field(u32, reason)
			     __field(int, rej_ret)),
	    TP_fast_assign(__entry->local_id = be32_to_cpu(cm_id->local_id);
			   __entry->tag = tag;
			   __entry->reason = reason;
			   __entry->rej_ret = rej_ret;),
	    TP_printk("cm_id %#x tag %#llx reason %#x (REJ send %d)",
		      __entry->local_id, __entry->tag, __entry->reason,
		      __entry->rej_ret)
);

DECLARE_EVENT_CLASS(srpt_ch_class,
		    TP_PROTO(u32 local_id, u64 tag, int state),
		    TP_ARGS(local_id, tag, state),
		    TP_STRUCT__entry(__field(u32, local_id)
				     __field(u64, tag)
				     __field(int, state)),
		    TP_fast_assign(__entry->local_id = local_id;
				   __entry->tag = tag;
				   __entry->state = state;),
		    TP_printk("cm_id %#x tag %#llx %s", __entry->local_id,
			      __entry->tag, srpt_show_ch_state(__entry->state))
);

/* The cm_id now belongs to the channel. */
DEFINE_EVENT(srpt_ch_class, cmkit_srpt_handover,
	     TP_PROTO(u32 local_id, u64 tag, int state),
	     TP_ARGS(local_id, tag, state));

/* The REP carrying the SRP_LOGIN_RSP is on its way. */
DEFINE_EVENT(srpt_ch_class, cmkit_srpt_login_accept,
	     TP_PROTO(u32 local_id, u64 tag, int state),
	     TP_ARGS(local_id, tag, state));

/* The release work: destroys the cm_id, the QP and the CQ. */
DEFINE_EVENT(srpt_ch_class, cmkit_srpt_release,
	     TP_PROTO(u32 local_id, u64 tag, int state),
	     TP_ARGS(local_id, tag, state));

TRACE_EVENT(cmkit_srpt_ch_state,
	    TP_PROTO(u32 local_id, u64 tag, int prev, int next),
	    TP_ARGS(local_id, tag, prev, next),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u64, tag)
			     __field(int, prev)
			     __field(int, next)),
	    TP_fast_assign(__entry->local_id = local_id;
			   __entry->tag = tag;
			   __entry->prev = prev;
			   __entry->next = next;),
	    TP_printk("cm_id %#x tag %#llx %s -> %s", __entry->local_id,
		      __entry->tag, srpt_show_ch_state(__entry->prev),
		      srpt_show_ch_state(__entry->next))
);

/* A disconnect: what sending the DREQ and, if that failed, the DREP gave. */
TRACE_EVENT(cmkit_srpt_disconnect,
	    TP_PROTO(u32 local_id, u64 tag, int dreq_ret, int drep_ret),
	    TP_ARGS(local_id, tag, dreq_ret, drep_ret),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u64, tag)
			     __field(int, dreq_ret)
			     __field(int, drep_ret)),
	    TP_fast_assign(__entry->local_id = local_id;
			   __entry->tag = tag;
			   __entry->dreq_ret = dreq_ret;
			   __entry->drep_ret = drep_ret;),
	    TP_printk("cm_id %#x tag %#llx DREQ %d DREP %d", __entry->local_id,
		      __entry->tag, __entry->dreq_ret, __entry->drep_ret)
);

/* A receive IU arrived: its length and first byte (the SRP opcode). */
TRACE_EVENT(cmkit_srpt_recv,
	    TP_PROTO(u32 local_id, u64 tag, u32 len, u8 opcode),
	    TP_ARGS(local_id, tag, len, opcode),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u64, tag)
			     __field(u32, len)
			     __field(u8, opcode)),
	    TP_fast_assign(__entry->local_id = local_id;
			   __entry->tag = tag;
			   __entry->len = len;
			   __entry->opcode = opcode;),
	    TP_printk("cm_id %#x tag %#llx IU of %u bytes, opcode %#x",
		      __entry->local_id, __entry->tag, __entry->len,
		      __entry->opcode)
);

/* A single-channel login disconnected an older channel of its initiator. */
TRACE_EVENT(cmkit_srpt_relogin,
	    TP_PROTO(u32 local_id, u64 tag, u64 new_tag),
	    TP_ARGS(local_id, tag, new_tag),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u64, tag)
			     __field(u64, new_tag)),
	    TP_fast_assign(__entry->local_id = local_id;
			   __entry->tag = tag;
			   __entry->new_tag = new_tag;),
	    TP_printk("cm_id %#x tag %#llx disconnected by the login of tag %#llx",
		      __entry->local_id, __entry->tag, __entry->new_tag)
);

/* A channel event with one number, which the event's name says. */
DECLARE_EVENT_CLASS(srpt_ch_value_class,
		    TP_PROTO(u32 local_id, u64 tag, int value),
		    TP_ARGS(local_id, tag, value),
		    TP_STRUCT__entry(__field(u32, local_id)
				     __field(u64, tag)
				     __field(int, value)),
		    TP_fast_assign(__entry->local_id = local_id;
				   __entry->tag = tag;
				   __entry->value = value;),
		    TP_printk("cm_id %#x tag %#llx: %d", __entry->local_id,
			      __entry->tag, __entry->value)
);

/* A posted receive completed in error (its status): flushed, closing. */
DEFINE_EVENT(srpt_ch_value_class, cmkit_srpt_recv_err,
	     TP_PROTO(u32 local_id, u64 tag, int value),
	     TP_ARGS(local_id, tag, value));

/* The initiator rejected srpt's REP (the IB reason): the channel closes. */
DEFINE_EVENT(srpt_ch_value_class, cmkit_srpt_rej_recv,
	     TP_PROTO(u32 local_id, u64 tag, int value),
	     TP_ARGS(local_id, tag, value));

/* A step of a channel's life failed (SRPT_FAULT_NR: QP to error). */
TRACE_EVENT(cmkit_srpt_step_failed,
	    TP_PROTO(u32 local_id, u64 tag, int step, int ret),
	    TP_ARGS(local_id, tag, step, ret),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u64, tag)
			     __field(int, step)
			     __field(int, ret)),
	    TP_fast_assign(__entry->local_id = local_id;
			   __entry->tag = tag;
			   __entry->step = step;
			   __entry->ret = ret;),
	    TP_printk("cm_id %#x tag %#llx step %d failed: %d",
		      __entry->local_id, __entry->tag, __entry->step,
		      __entry->ret)
);

/* An SRP_CMD decoded and decided: its CDB's opcode, where, how much, which way. */
TRACE_EVENT(cmkit_srpt_cmd,
	    TP_PROTO(u32 local_id, u64 tag, u64 srp_tag, u8 opcode, u64 offset,
		     u64 len, int dir),
	    TP_ARGS(local_id, tag, srp_tag, opcode, offset, len, dir),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u64, tag)
			     __field(u64, srp_tag)
			     __field(u8, opcode)
			     __field(u64, offset)
			     __field(u64, len)
			     __field(int, dir)),
	    TP_fast_assign(__entry->local_id = local_id;
			   __entry->tag = tag;
			   __entry->srp_tag = srp_tag;
			   __entry->opcode = opcode;
			   __entry->offset = offset;
			   __entry->len = len;
			   __entry->dir = dir;),
	    TP_printk("cm_id %#x tag %#llx: cmd %#llx cdb %#x offset %llu len %llu dir %s",
		      __entry->local_id, __entry->tag, __entry->srp_tag,
		      __entry->opcode, __entry->offset, __entry->len,
		      __print_symbolic(__entry->dir, { 0, "none" }, { 1, "in" },
				       { 2, "out" }))
);

/* An SRP_RSP posted: its SCSI status and the credits it returns. */
TRACE_EVENT(cmkit_srpt_rsp,
	    TP_PROTO(u32 local_id, u64 tag, u64 srp_tag, u8 status, u32 delta),
	    TP_ARGS(local_id, tag, srp_tag, status, delta),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u64, tag)
			     __field(u64, srp_tag)
			     __field(u8, status)
			     __field(u32, delta)),
	    TP_fast_assign(__entry->local_id = local_id;
			   __entry->tag = tag;
			   __entry->srp_tag = srp_tag;
			   __entry->status = status;
			   __entry->delta = delta;),
	    TP_printk("cm_id %#x tag %#llx: rsp %#llx status %#x req_lim_delta %u",
		      __entry->local_id, __entry->tag, __entry->srp_tag,
		      __entry->status, __entry->delta)
);

/* A task management request: its function, the task, the answer. */
TRACE_EVENT(cmkit_srpt_tmf,
	    TP_PROTO(u32 local_id, u64 tag, u64 srp_tag, u8 func, u64 task_tag,
		     u8 code),
	    TP_ARGS(local_id, tag, srp_tag, func, task_tag, code),
	    TP_STRUCT__entry(__field(u32, local_id)
			     __field(u64, tag)
			     __field(u64, srp_tag)
			     __field(u8, func)
			     __field(u64, task_tag)
			     __field(u8, code)),
	    TP_fast_assign(__entry->local_id = local_id;
			   __entry->tag = tag;
			   __entry->srp_tag = srp_tag;
			   __entry->func = func;
			   __entry->task_tag = task_tag;
			   __entry->code = code;),
	    TP_printk("cm_id %#x tag %#llx: tmf %#llx function %#x task %#llx rsp_code %#x",
		      __entry->local_id, __entry->tag, __entry->srp_tag,
		      __entry->func, __entry->task_tag, __entry->code)
);

/* An IU's decision with one number, which the event's name says. */
DECLARE_EVENT_CLASS(srpt_iu_class,
		    TP_PROTO(u32 local_id, u64 tag, u64 srp_tag, int value),
		    TP_ARGS(local_id, tag, srp_tag, value),
		    TP_STRUCT__entry(__field(u32, local_id)
				     __field(u64, tag)
				     __field(u64, srp_tag)
				     __field(int, value)),
		    TP_fast_assign(__entry->local_id = local_id;
				   __entry->tag = tag;
				   __entry->srp_tag = srp_tag;
				   __entry->value = value;),
		    TP_printk("cm_id %#x tag %#llx: iu %#llx: %d",
			      __entry->local_id, __entry->tag,
			      __entry->srp_tag, __entry->value)
);

#define SRPT_IU_EVENT(name)						\
	DEFINE_EVENT(srpt_iu_class, name,				\
		     TP_PROTO(u32 local_id, u64 tag, u64 srp_tag, int value), \
		     TP_ARGS(local_id, tag, srp_tag, value))

/* An IU that does not decode (the decoder's error, or the opcode). */
SRPT_IU_EVENT(cmkit_srpt_bad_iu);
/* Answered BUSY (why: 0 no context, 1 over credit, else the post's errno). */
SRPT_IU_EVENT(cmkit_srpt_busy);
/* An IU that came while the initiator held no credit (its opcode). */
SRPT_IU_EVENT(cmkit_srpt_over_credit);
/* SRP_I_LOGOUT, SRP_CRED_RSP or SRP_AER_RSP received (the opcode). */
SRPT_IU_EVENT(cmkit_srpt_iu_other);
/*
 * An IU kept (its bytes): srp_tag 0: it came before the RTU, until the
 * channel is LIVE; 1: until a send context is free.
 */
SRPT_IU_EVENT(cmkit_srpt_iu_parked);
/* An SRP_T_LOGOUT posted (the reason). */
SRPT_IU_EVENT(cmkit_srpt_t_logout);
/* A data-in command's RDMA Writes posted, chained with its SRP_RSP (WRs). */
SRPT_IU_EVENT(cmkit_srpt_rdma_write);
/* A data-out command's RDMA Reads posted (WRs). */
SRPT_IU_EVENT(cmkit_srpt_rdma_read);
/* A data-out command's RDMA Reads completed (the status). */
SRPT_IU_EVENT(cmkit_srpt_rdma_read_done);
/* A command marked aborted by a TMF (value 0), and freed (value 1). */
SRPT_IU_EVENT(cmkit_srpt_abort);
/* A send completed in error other than a flush (the status). */
SRPT_IU_EVENT(cmkit_srpt_send_err);
/* Reposting a receive IU failed (the errno): the channel closes. */
SRPT_IU_EVENT(cmkit_srpt_repost_failed);
/*
 * A completion in error (the status) while the channel was below DRAINING:
 * the QP left RTS behind srpt's back, the channel closes.
 */
SRPT_IU_EVENT(cmkit_srpt_wc_close);

#endif /* CMKIT_SRPT_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH srpt
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
