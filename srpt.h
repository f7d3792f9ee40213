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
 * enum srpt_fault - steps of srpt_cm_req_recv() that can be made to fail
 * (srpt_fault_points: cmkit/srpt/fail_steps, cmkit_fault_arm())
 * @SRPT_FAULT_CH_ALLOC: channel allocation, before the hand-over
 * @SRPT_FAULT_QP_CREATE: CQ and QP creation, before the hand-over
 * @SRPT_FAULT_QP_RTR: moving the QP to RTR, after the hand-over
 * @SRPT_FAULT_REP_SEND: sending the REP, after the hand-over
 * @SRPT_FAULT_NR: number of steps
 */
enum srpt_fault {
	SRPT_FAULT_CH_ALLOC,
	SRPT_FAULT_QP_CREATE,
	SRPT_FAULT_QP_RTR,
	SRPT_FAULT_REP_SEND,
	SRPT_FAULT_NR,
};

/**
 * struct srpt_counters - what the srpt consumer did since it was loaded
 * @ch_alloc: channels allocated
 * @ch_handed_over: channels that took over their cm_id
 * @ch_freed: channels freed
 * @cm_id_destroyed: channel cm_ids destroyed by the release work
 * @release_twice: release work run twice for one channel (must stay 0)
 * @req_rejected: REQs answered with an SRP_LOGIN_REJ
 * @faults_fired: injected failures that fired
 */
struct srpt_counters {
	unsigned int ch_alloc;
	unsigned int ch_handed_over;
	unsigned int ch_freed;
	unsigned int cm_id_destroyed;
	unsigned int release_twice;
	unsigned int req_rejected;
	unsigned int faults_fired;
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
int cmkit_srpt_restart(void);

struct seq_file;
void srpt_show_targets(struct seq_file *m);

#endif /* CMKIT_SRPT_H */
