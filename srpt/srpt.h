/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit srpt: the SRP target's CM handler, and what cmkit_test.ko needs to
 * observe and steer it (kernel only).
 */
#ifndef CMKIT_SRPT_H
#define CMKIT_SRPT_H

#include <linux/types.h>
#include <linux/wait.h>

#include "core/cmkit.h"

struct ib_cm_id;
struct ib_cm_event;
struct ib_device;
struct ib_qp_attr;

int srpt_cm_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *event);

/**
 * enum cmkit_srpt_ch_state - channel states; a channel only ever moves up
 * @SRPT_CH_CONNECTING: REQ accepted, REP sent or about to be
 * @SRPT_CH_LIVE: RTU or COMM_EST seen, QP in RTS
 * @SRPT_CH_DISCONNECTING: DREQ sent, or DREP sent for a received DREQ
 * @SRPT_CH_DRAINING: closing: the QP is moving to the error state
 * @SRPT_CH_DISCONNECTED: closed, queued for release
 */
enum cmkit_srpt_ch_state {
	SRPT_CH_CONNECTING,
	SRPT_CH_LIVE,
	SRPT_CH_DISCONNECTING,
	SRPT_CH_DRAINING,
	SRPT_CH_DISCONNECTED,
};

/**
 * enum srpt_fault - steps that can be made to fail (cmkit_srpt_fault_points:
 * cmkit/srpt/fail_steps, cmkit_fault_arm())
 * @SRPT_FAULT_CH_ALLOC: channel allocation (a login, before the hand-over)
 * @SRPT_FAULT_CQ_CREATE: CQ creation (before the hand-over)
 * @SRPT_FAULT_QP_CREATE: QP creation (before the hand-over)
 * @SRPT_FAULT_QP_INIT: moving the QP to INIT (before the hand-over)
 * @SRPT_FAULT_RECV_ALLOC: allocating the receive IUs (before the hand-over)
 * @SRPT_FAULT_RECV_POST: posting a receive IU (before the hand-over)
 * @SRPT_FAULT_QP_RTR: moving the QP to RTR (after the hand-over)
 * @SRPT_FAULT_REP_SEND: sending the REP (after the hand-over)
 * @SRPT_FAULT_QP_RTS: moving the QP to RTS at RTU
 * @SRPT_FAULT_DREQ_SEND: sending a DREQ
 * @SRPT_FAULT_DREP_SEND: sending a DREP
 * @SRPT_FAULT_WQ_ALLOC: allocating the workqueue (start, load)
 * @SRPT_FAULT_CLIENT_REG: registering the ib_client (start, load)
 * @SRPT_FAULT_SEND_POST: posting a response (SRP_RSP, SRP_T_LOGOUT), with
 *	the RDMA Writes of a data-in command chained before it
 * @SRPT_FAULT_RW_POST: posting the RDMA Reads of a data-out command
 * @SRPT_FAULT_RECV_REPOST: reposting a consumed receive IU
 * @SRPT_FAULT_NR: number of steps
 */
enum srpt_fault {
	SRPT_FAULT_CH_ALLOC,
	SRPT_FAULT_CQ_CREATE,
	SRPT_FAULT_QP_CREATE,
	SRPT_FAULT_QP_INIT,
	SRPT_FAULT_RECV_ALLOC,
	SRPT_FAULT_RECV_POST,
	SRPT_FAULT_QP_RTR,
	SRPT_FAULT_REP_SEND,
	SRPT_FAULT_QP_RTS,
	SRPT_FAULT_DREQ_SEND,
	SRPT_FAULT_DREP_SEND,
	SRPT_FAULT_WQ_ALLOC,
	SRPT_FAULT_CLIENT_REG,
	SRPT_FAULT_SEND_POST,
	SRPT_FAULT_RW_POST,
	SRPT_FAULT_RECV_REPOST,
	SRPT_FAULT_NR,
};

/**
 * enum cmkit_srpt_hook - points where a KUnit case can pin the order of a race
 * (cmkit_srpt_set_hook(); only in kernels built with KUnit)
 * @SRPT_HOOK_DISCONNECT: srpt_disconnect_ch() moved a channel to
 *	DISCONNECTING and is about to use its cm_id (DREQ, DREP)
 * @SRPT_HOOK_RELEASE: a channel's release work is about to take
 *	sdev->mutex to unlist the channel
 * @SRPT_HOOK_DESTROY: a channel's release work is about to destroy the
 *	channel's cm_id
 * @SRPT_HOOK_RECV: a receive IU arrived on a channel (its bytes)
 * @SRPT_HOOK_CMD_READ_POSTED: the RDMA Reads of a data-out command were
 *	posted and are outstanding (data: the command's SRP tag)
 * @SRPT_HOOK_CMD_RESPOND: a command is about to post its SRP_RSP (for a
 *	data-in command, chained behind its RDMA Writes; data: its SRP tag)
 * @SRPT_HOOK_TMF: an SRP_TSK_MGMT found a command of the channel it
 *	aborts, before marking it aborted (data: the command's SRP tag)
 */
enum cmkit_srpt_hook {
	SRPT_HOOK_DISCONNECT,
	SRPT_HOOK_RELEASE,
	SRPT_HOOK_DESTROY,
	SRPT_HOOK_RECV,
	SRPT_HOOK_CMD_READ_POSTED,
	SRPT_HOOK_CMD_RESPOND,
	SRPT_HOOK_TMF,
};

/*
 * Called at each enum cmkit_srpt_hook point with the channel's login tag and
 * @data: for SRPT_HOOK_RECV the IU's bytes (@len of them); for
 * SRPT_HOOK_CMD_READ_POSTED, _CMD_RESPOND and _TMF a const u64 (@len 8)
 * holding the command's SRP tag as cmkit_srp_decode_cmd() reads it (the
 * value an initiator gave cmkit_srp_encode_cmd()); else NULL.  It runs in
 * the context of that point: it may sleep at DISCONNECT, RELEASE and
 * DESTROY; at RECV, CMD_READ_POSTED, CMD_RESPOND and TMF it runs in the
 * channel's CQ work (IB_POLL_WORKQUEUE; CMD_* and TMF also from the RTU's
 * CM handler for IUs that came before it), no spinlock held (CMD_* and
 * TMF under the channel's io_mutex), and must not block: every completion
 * of the channel waits behind it.  A test pins a race from there without
 * sleeping (queue a work, complete a completion, post a WR).
 */
typedef void (*srpt_hook_fn)(enum cmkit_srpt_hook hook, u64 tag, const void *data,
			     u32 len);

/**
 * struct srpt_counters - what the srpt consumer did since it was loaded
 * @ch_alloc: channels allocated
 * @ch_handed_over: channels that took over their cm_id
 * @ch_freed: channels freed
 * @cm_id_destroyed: channel cm_ids destroyed by the release work
 * @release_twice: release work run twice for one channel (must stay 0)
 * @req_rejected: REQs answered with a REJ (an SRP_LOGIN_REJ, or ib_cm's own
 *	for private data that holds no login), before or after the hand-over
 * @req_accepted: REQs answered with a REP
 * @faults_fired: injected failures that fired
 * @iu_received: receive IUs that arrived on a channel
 * @cmds: SRP_CMDs received
 * @rsps: SRP_RSPs posted (commands, task management, BUSY, bad IUs)
 * @cmd_errors: commands answered CHECK CONDITION
 * @busy: IUs answered BUSY (no send context, no send queue room, or a
 *	failed post)
 * @bad_iu: malformed IUs (an SRP_CMD that does not decode, an unknown
 *	opcode, a short SRP_TSK_MGMT)
 * @tmf: SRP_TSK_MGMT IUs received
 * @aborted: commands aborted by task management (each freed exactly once)
 * @rdma_reads: RDMA Read transfers (one per data-out command) completed
 *	successfully
 * @rdma_writes: RDMA Write transfers (one per data-in command) posted
 * @ctx_alive: send contexts in use now (0 once every channel is released)
 * @rw_ctx_alive: rdma_rw contexts initialised and not yet destroyed now
 *	(0 once every channel is released)
 * @over_credit: IUs that arrived while the initiator held no credit
 * @no_ctx: IUs that found no send context at all (the channel was closed)
 * @t_logouts: SRP_T_LOGOUTs posted
 * @abort_in_read: of @aborted, those whose RDMA Read was outstanding when
 *	the abort came (freed by the Read's completion)
 */
struct srpt_counters {
	unsigned int ch_alloc;
	unsigned int ch_handed_over;
	unsigned int ch_freed;
	unsigned int cm_id_destroyed;
	unsigned int release_twice;
	unsigned int req_rejected;
	unsigned int req_accepted;
	unsigned int faults_fired;
	unsigned int iu_received;
	unsigned int cmds;
	unsigned int rsps;
	unsigned int cmd_errors;
	unsigned int busy;
	unsigned int bad_iu;
	unsigned int tmf;
	unsigned int aborted;
	unsigned int rdma_reads;
	unsigned int rdma_writes;
	unsigned int ctx_alive;
	unsigned int rw_ctx_alive;
	unsigned int over_credit;
	unsigned int no_ctx;
	unsigned int t_logouts;
	unsigned int abort_in_read;
};

extern wait_queue_head_t cmkit_srpt_wait;
extern struct cmkit_fault cmkit_srpt_fault_points;

void cmkit_srpt_counters(struct srpt_counters *c);
void cmkit_srpt_test_reset(void);
unsigned int cmkit_srpt_req_results(u64 tag, int *ret, unsigned int max);
int cmkit_srpt_ch_state(u64 tag);
int cmkit_srpt_disconnect(u64 tag);
int cmkit_srpt_target(struct ib_device *device, u64 *service_id, u8 *port_id);
u16 cmkit_srpt_rdma_cm_port(void);
u32 cmkit_srpt_max_it_iu_len(void);
int cmkit_srpt_start(void);
int cmkit_srpt_stop(void);
bool cmkit_srpt_listening(void);
int cmkit_srpt_restart(void);
void cmkit_srpt_set_hook(srpt_hook_fn fn);
int cmkit_srpt_query_qp(u64 tag, struct ib_qp_attr *attr);
void *cmkit_srpt_listen_context(struct ib_device *device);
int cmkit_srpt_ctl(const char *cmd);
int cmkit_srpt_stats_read(char *buf, size_t len);
int cmkit_srpt_ch_credits(u64 tag, u32 *granted, u32 *outstanding);
u64 cmkit_srpt_lun_bytes(void);
void *cmkit_srpt_lun_data(void);

struct seq_file;
void cmkit_srpt_show_targets(struct seq_file *m);

#endif /* CMKIT_SRPT_H */
