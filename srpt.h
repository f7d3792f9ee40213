/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit srpt: the SRP target's CM handler, and what cmkit_test.ko needs to
 * observe and steer it (kernel only).
 */
#ifndef CMKIT_SRPT_H
#define CMKIT_SRPT_H

#include <linux/types.h>
#include <linux/wait.h>

#include "cmkit.h"

struct ib_cm_id;
struct ib_cm_event;
struct ib_device;
struct ib_qp_attr;

int srpt_cm_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *event);

/**
 * enum srpt_ch_state - channel states; a channel only ever moves up
 * @SRPT_CH_CONNECTING: REQ accepted, REP sent or about to be
 * @SRPT_CH_LIVE: RTU or COMM_EST seen, QP in RTS
 * @SRPT_CH_DISCONNECTING: DREQ sent, or DREP sent for a received DREQ
 * @SRPT_CH_DRAINING: closing: the QP is moving to the error state
 * @SRPT_CH_DISCONNECTED: closed, queued for release
 */
enum srpt_ch_state {
	SRPT_CH_CONNECTING,
	SRPT_CH_LIVE,
	SRPT_CH_DISCONNECTING,
	SRPT_CH_DRAINING,
	SRPT_CH_DISCONNECTED,
};

/**
 * enum srpt_fault - steps that can be made to fail (srpt_fault_points:
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
	SRPT_FAULT_NR,
};

/**
 * enum srpt_hook - points where a KUnit case can pin the order of a race
 * (cmkit_srpt_set_hook(); only in kernels built with KUnit)
 * @SRPT_HOOK_DISCONNECT: srpt_disconnect_ch() moved a channel to
 *	DISCONNECTING and is about to use its cm_id (DREQ, DREP)
 * @SRPT_HOOK_RELEASE: a channel's release work is about to take
 *	sdev->mutex to unlist the channel
 * @SRPT_HOOK_DESTROY: a channel's release work is about to destroy the
 *	channel's cm_id
 * @SRPT_HOOK_RECV: a receive IU arrived on a channel (its bytes)
 */
enum srpt_hook {
	SRPT_HOOK_DISCONNECT,
	SRPT_HOOK_RELEASE,
	SRPT_HOOK_DESTROY,
	SRPT_HOOK_RECV,
};

/*
 * Called at each enum srpt_hook point with the channel's login tag (and for
 * SRPT_HOOK_RECV the IU's bytes), in the context of that point: it may
 * sleep, except at SRPT_HOOK_RECV (a completion handler).
 */
typedef void (*srpt_hook_fn)(enum srpt_hook hook, u64 tag, const void *data,
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
};

extern wait_queue_head_t cmkit_srpt_wait;
extern struct cmkit_fault srpt_fault_points;

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

struct seq_file;
void srpt_show_targets(struct seq_file *m);

#endif /* CMKIT_SRPT_H */
