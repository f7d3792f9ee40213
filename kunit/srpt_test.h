/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit_srpt: what the suite's files share (kunit/srpt_common.c), and
 * the cases each area file defines for the case table in kunit/srpt_test.c.
 */
#ifndef CMKIT_SRPT_TEST_H
#define CMKIT_SRPT_TEST_H

#include <linux/slab.h>
#include <linux/fs.h>
#include <linux/kmsg_dump.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/umh.h>
#include <kunit/resource.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <scsi/scsi_proto.h>
#include <cmkit/srp.h>
#include <cmkit/srp_iu.h>

#include "cmkit_test.h"
#include "srp_peer.h"
#include "srpt/srpt.h"

#define SRPT_TEST_MAX_INI	64

/* What the rdma_cm test peer asks for (kunit/cm_peer.c), and the raw one. */
#define SRPT_TEST_RDMA_CM_RETRY	6

/*
 * What an SRP I/O login asks for in either form: 7, which rxe takes as
 * unlimited (rxe_comp.c, as it does rnr_retry 7).  srpt_io_stall() keeps
 * an RDMA Read queued behind a Send the initiator answers with RNR NAKs;
 * every RNR round trip also draws a PSN sequence NAK for that Read, and
 * each one costs the target's QP a retry: with 6, a host slower than
 * six RNR timers (0.66 s each) ended the QP with RETRY_EXC_ERR mid-case.
 */
#define SRPT_TEST_IO_RETRY	7

#define SRPT_TEST_IB_CM_RETRY	7

#define SRPT_TEST_RNR_RETRY	7

/* The most srpt offers in its REP (ib_srpt's choice). */
#define SRPT_TEST_MAX_RD_ATOMIC	4

/* ---- the listener form under test ------------------------------------ */

struct srpt_form {
	bool rdma_cm;
};

/* ---- hooks: stop points and the IUs srpt received ---------------------- */

/**
 * struct srpt_stop - a point where srpt stops (or only signals) for a case
 * @hook: the point
 * @tag: the channel's login tag
 * @hold: wait at the point until srpt_stop_go() (never at a point that
 *	runs in a CQ work: those must not block)
 * @by_cmd: fire only for the command of SRP tag @cmd_tag (the hooks of the
 *	data path, whose data is that tag)
 * @cmd_tag: see @by_cmd
 * @act: if set, run at the point, in its context, before @reached is
 *	completed: it must not sleep where the point must not block
 * @arg: @act's argument
 * @armed: fires once; cleared when it fires
 * @reached: completed when srpt reached the point
 * @go: completed by the case to let srpt go on
 */
struct srpt_stop {
	enum cmkit_srpt_hook hook;
	u64 tag;
	bool hold;
	bool by_cmd;
	u64 cmd_tag;
	void (*act)(void *arg);
	void *arg;
	bool armed;
	struct completion reached;
	struct completion go;
};

#define SRPT_NR_STOPS	3

#define SRPT_NR_HOOKS	(SRPT_HOOK_TMF + 1)

/* What the hooks share with the cases. */
struct srpt_hooks {
	spinlock_t lock;	/* everything below */
	struct srpt_stop stop[SRPT_NR_STOPS];
	u64 rx_tag;
	u32 rx_len;
	u8 rx_buf[64];
	unsigned int rx_nr;
	unsigned int hits[SRPT_NR_HOOKS];
	wait_queue_head_t rx_wait;
};

/* ---- a thread of the case's own, for the side of a race it pins -------- */

struct srpt_bg {
	struct work_struct work;
	int (*fn)(void *arg);
	void *arg;
	int ret;
	struct completion done;
};

/* ---- a raw IB CM initiator ------------------------------------------- */

/**
 * struct srpt_ibcm - an IB CM initiator with its own RC QP
 * @cm_id: the initiator's cm_id
 * @pd: protection domain of @qp
 * @cq: completion queue of @qp
 * @qp: the initiator's QP
 * @reject_rep: answer a REP with a REJ instead of an RTU
 * @ignore_rep: answer a REP with nothing, so the target's REP times out
 *	within milliseconds
 * @hold_rep: answer a REP with nothing for as long as the case likes (the
 *	target waits a minute); the case may then reject it
 * @hold_dreq: answer a DREQ only when the case says so
 * @rd_atomic: the REQ's responder resources and initiator depth
 * @lock: protects the fields below
 * @wait: woken on every event
 * @seen: BIT(event) of every event seen
 * @rej_reason: the IB reject reason of a REJ
 * @ready_ret: moving the QP to RTS and sending the RTU after the REP
 * @rep_resp: the REP's responder resources
 * @rep_depth: the REP's initiator depth
 * @pdata: the first bytes of the REP's or REJ's private data
 */
struct srpt_ibcm {
	struct ib_cm_id *cm_id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	bool reject_rep;
	bool ignore_rep;
	bool hold_rep;
	bool hold_dreq;
	u8 rd_atomic;
	spinlock_t lock;	/* the event record */
	wait_queue_head_t wait;
	u32 seen;
	int rej_reason;
	int ready_ret;
	u8 rep_resp;
	u8 rep_depth;
	u8 pdata[CMKIT_PEER_PDATA_MAX];
};

/* ---- a relay: REQs the case delivers to srpt_cm_handler() itself ------- */

/**
 * struct srpt_relay - a listener of the test's own that keeps each REQ
 * @listen: listening on @service_id
 * @service_id: a service id no one else listens on
 * @lock: protects @cm_id
 * @req: completed when a REQ arrived
 * @cm_id: the REQ's cm_id, until it is delivered
 * @ev: a copy of the REQ event, pointing at @path and @pdata
 * @path: a copy of the REQ's primary path
 * @pdata: a copy of the REQ's private data
 */
struct srpt_relay {
	struct ib_cm_id *listen;
	u64 service_id;
	spinlock_t lock;	/* @cm_id */
	struct completion req;
	struct ib_cm_id *cm_id;
	struct ib_cm_event ev;
	struct sa_path_rec path;
	u8 pdata[IB_CM_REQ_PRIVATE_DATA_SIZE];
};

/* ---- a SIDR requester -------------------------------------------------- */

struct srpt_sidr {
	struct ib_cm_id *cm_id;
	struct completion done;
	int event;
	int status;
};

/* ---- one test's context ----------------------------------------------- */

/**
 * struct srpt_ctx - what a case sets up before its first login
 * @test: the running test
 * @rdma_cm: the form under test
 * @route: an rdma_cm id resolved to rxe0: the device, and the path of the
 *	ib_cm form's REQs
 * @addr: srpt's rdma_cm address on rxe0
 * @service_id: srpt's native service id on rxe0
 * @tport: srpt's target port id on rxe0
 * @dev: rxe0 (@route holds it)
 * @base: cmkit.ko's counters when the case began
 */
struct srpt_ctx {
	struct kunit *test;
	bool rdma_cm;
	struct cmkit_peer *route;
	struct sockaddr_in addr;
	u64 service_id;
	u8 tport[CMKIT_SRP_PORT_ID_LEN];
	struct ib_device *dev;
	struct srpt_counters base;
};

/**
 * struct srpt_ini - an initiator of either form
 * @ctx: the case
 * @rdma_cm: which form
 * @peer: the rdma_cm form's initiator
 * @ib: the ib_cm form's initiator
 * @service_id: the ib_cm form's REQs go here (a relay's), not to srpt's
 * @req: the login it sends
 */
struct srpt_ini {
	struct srpt_ctx *ctx;
	bool rdma_cm;
	u8 retry;
	struct cmkit_peer *peer;
	struct srpt_ibcm *ib;
	u64 service_id;
	struct cmkit_srp_login_req req;
};

/**
 * struct srpt_outcome - how a login ended for the initiator
 * @accepted: the connection is established
 * @rejected: a REJ came back
 * @ib_reason: the REJ's IB reject reason
 * @pdata: the REP's or the REJ's private data
 */
struct srpt_outcome {
	bool accepted;
	bool rejected;
	int ib_reason;
	u8 pdata[CMKIT_PEER_PDATA_MAX];
};

/* ---- SRP I/O: an initiator that sends commands (kunit/srp_peer.c) ------ */

/**
 * struct srpt_io - a live channel whose initiator sends SRP IUs
 * @ctx: the case
 * @ini: its login (either form)
 * @srp: its QP, rings and data buffer
 * @rsp: the SRP_LOGIN_RSP
 * @tag: the last command's tag: the login's tag in the upper bits
 */
struct srpt_io {
	struct srpt_ctx *ctx;
	struct srpt_ini *ini;
	struct cmkit_srp_peer *srp;
	struct cmkit_srp_login_rsp rsp;
	u64 tag;
};

/* One piece of an indirect buffer. */
struct srpt_seg {
	u32 off;
	u32 len;
};

/* One of the data path's counters, since @ctx's case began. */
#define srpt_io_delta(ctx, field) \
	srpt_io_delta_at(ctx, offsetof(struct srpt_counters, field))

/* ---- bad logins --------------------------------------------------------- */

enum srpt_bad {
	SRPT_BAD_OPCODE,
	SRPT_BAD_IU_SMALL,
	SRPT_BAD_IU_LARGE,
	SRPT_BAD_BUF_FMT,
	SRPT_BAD_TPORT,
	SRPT_BAD_SHORT,
	SRPT_BAD_NONE,
};

struct srpt_bad_param {
	bool rdma_cm;
	enum srpt_bad bad;
	const char *what;
	u32 reason;
};

/*
 * IB CM REQs always carry 92 bytes of private data, zero-padded: a login cut
 * short loses its target port id to zeros, and no login at all reads as an
 * SRP_LOGIN_REQ whose IU length is 0.
 */
#define SRPT_BAD(f, b, w, r)	{ f, b, w, CMKIT_SRP_LOGIN_REJ_##r }

/* ---- failure injection ------------------------------------------------- */

struct srpt_fault_param {
	bool rdma_cm;
	enum srpt_fault fault;
	const char *what;
};

/* More failure points than this in one login and disconnect is a bug. */
#define SRPT_FAIL_NTH_MAX	400

/* ---- races between a channel's release and a walk of the channel list --- */

/* A parameter that is one choice, and what it is called. */
struct srpt_choice {
	int value;
	const char *what;
};

enum srpt_order {
	SRPT_RELEASE_FIRST,
	SRPT_WALKER_FIRST,
};

struct cmkit_srpt_relogin {
	struct srpt_relay *relay;
	struct ib_device *dev;
};

/*
 * The initiator's data buffer, for the write-then-read-back cases:
 * [0, 64K) data-out, [64K, 128K) data-in, [128K, 192K) what the disk held
 * before, [192K, ...) descriptor tables.
 */
#define SRPT_IO_OUT	0

#define SRPT_IO_IN	(64 * 1024)

#define SRPT_IO_TABLE	(192 * 1024)

/* What SRPT_HOOK_CMD_RESPOND does in the after-completion case. */
struct srpt_io_late_tmf {
	struct cmkit_srp_peer *srp;
	u8 iu[CMKIT_SRP_TSK_MGMT_LEN];
	int ret;
};

#define SRPT_IO_RESET_NR	3

/* Send contexts per channel beyond the grant (API: rq_size + 4). */
#define SRPT_IO_SPARE_CTX	4

/* Of a channel's send contexts, the last ones are the reserve (API: 2). */
#define SRPT_IO_RESERVE_CTX	2

/* Commands that find only the reserve in the next case. */
#define SRPT_IO_CTX_WAITERS	4

/* The IUs after which srpt closes the channel, and what it says first. */
enum srpt_io_close {
	SRPT_IO_CLOSE_UNKNOWN,		/* opcode 0x7f: SRP_T_LOGOUT INVALID_IU_TYPE */
	SRPT_IO_CLOSE_SHORT_TMF,	/* 40 bytes: SRP_T_LOGOUT INVALID_IU_LEN */
	SRPT_IO_CLOSE_I_LOGOUT,		/* the initiator logs out: no answer */
};

struct srpt_io_close_param {
	bool rdma_cm;
	enum srpt_io_close what;
	const char *name;
};

/* kunit/srpt_common.c */
extern struct srpt_hooks srpt_hk;
void srpt_test_hook(enum cmkit_srpt_hook hook, u64 tag, const void *data, u32 len);
struct srpt_stop *srpt_stop_arm(int i, enum cmkit_srpt_hook hook, u64 tag, bool hold);
struct srpt_stop *srpt_stop_arm_cmd(int i, enum cmkit_srpt_hook hook, u64 tag,
				    u64 cmd_tag, void (*act)(void *),
				    void *arg);
unsigned int srpt_hook_hits(enum cmkit_srpt_hook hook);
int srpt_hook_wait_hits(enum cmkit_srpt_hook hook, unsigned int n);
int srpt_stop_wait(struct srpt_stop *stop);
void srpt_stop_go(struct srpt_stop *stop);
void srpt_stops_reset(void);
void srpt_rx_watch(u64 tag);
void srpt_wait_rcu_frees(void);
int srpt_bg_res_init(struct kunit_resource *res, void *context);
struct srpt_bg *srpt_bg_start(struct kunit *test, int (*fn)(void *), void *arg);
int srpt_bg_wait(struct srpt_bg *bg, int *ret);
void srpt_ibcm_destroy(struct srpt_ibcm *ini);
int srpt_ibcm_wait(struct srpt_ibcm *ini, u32 mask);
struct srpt_relay *srpt_relay_create(struct kunit *test, struct ib_device *dev);
int srpt_relay_wait(struct srpt_relay *r);
int srpt_relay_deliver(struct srpt_relay *r, struct ib_device *dev);
void srpt_sidr_free(struct kunit_resource *res);
int srpt_sidr_init(struct kunit_resource *res, void *context);
int srpt_wait_quiescent(void);
void srpt_setup(struct srpt_ctx *ctx, struct kunit *test, bool rdma_cm);
struct srpt_ini *srpt_ini_create(struct srpt_ctx *ctx, const char *name,
				 u64 tag, u16 port);
int srpt_ini_connect(struct srpt_ini *ini, int len);
int srpt_ini_wait_outcome(struct srpt_ini *ini, struct srpt_outcome *o);
int srpt_ini_disconnect(struct srpt_ini *ini);
int srpt_ini_wait_target_disconnect(struct srpt_ini *ini);
int srpt_ini_end(struct srpt_ini *ini);
int srpt_wait_state(u64 tag, int state);
int srpt_req_ret(struct kunit *test, u64 tag, unsigned int n);
void srpt_expect_accepted(struct kunit *test, const struct srpt_outcome *o,
			  const struct cmkit_srp_login_req *req);
void srpt_expect_rejected(struct kunit *test, const struct srpt_outcome *o,
			  u64 tag, u32 reason);
void srpt_expect_clean(struct srpt_ctx *ctx, unsigned int channels,
		       unsigned int handed_over);
void srpt_login_live(struct kunit *test, struct srpt_ini *ini,
		     u8 rsp_flags);
unsigned int srpt_stat(struct kunit *test, const char *name);
void srpt_log_mark(struct kmsg_dump_iter *it);
unsigned int srpt_log_count(struct kmsg_dump_iter *it, const char *needle);
int srpt_ctl_disconnect(u64 tag);
int srpt_ctl_disconnect_fn(void *arg);
int srpt_ini_answer_disconnect(struct srpt_ini *ini);
struct srpt_ini *srpt_held_login(struct srpt_ctx *ctx, const char *name,
				 u64 tag, u16 port);
int srpt_ibcm_reject(struct srpt_ini *ini);
void srpt_leave_listening(struct kunit *test, struct ib_device *dev);
struct srpt_io *srpt_io_login_opt(struct srpt_ctx *ctx, const char *name,
				  u64 tag, u16 port, bool hold_rx);
struct srpt_io *srpt_io_login(struct srpt_ctx *ctx, const char *name,
			      u64 tag, u16 port);
struct srpt_io *srpt_io_login_depth(struct srpt_ctx *ctx, const char *name,
				    u64 tag, u16 port, int depth);
void srpt_io_cmd(struct srpt_io *io, struct cmkit_srp_cmd *cmd, u8 *cdb);
void srpt_io_direct(struct srpt_io *io, struct cmkit_srp_data_buf *b,
		    u32 off, u32 len);
void srpt_io_indirect(struct srpt_io *io, struct cmkit_srp_data_buf *b,
		      const struct srpt_seg *seg, unsigned int n,
		      unsigned int count, u32 table_off, u8 *list);
void srpt_io_immediate(struct srpt_io *io, struct cmkit_srp_data_buf *b,
		       u32 off, u32 len);
void srpt_cdb_rw10(u8 *cdb, u8 op, u32 lba, u16 blocks);
void srpt_cdb_rw16(u8 *cdb, u8 op, u64 lba, u32 blocks);
int srpt_io_send_opt(struct srpt_io *io, const struct cmkit_srp_cmd *cmd,
		     bool over);
int srpt_io_send(struct srpt_io *io, const struct cmkit_srp_cmd *cmd);
void srpt_io_run(struct kunit *test, struct srpt_io *io,
		 const struct cmkit_srp_cmd *cmd, struct cmkit_srp_iu *rsp);
void srpt_io_expect_good(struct kunit *test, const struct cmkit_srp_iu *rsp);
void srpt_io_expect_sense(struct kunit *test, const struct cmkit_srp_iu *rsp,
			  u8 key, u8 asc, u8 ascq);
struct srpt_counters srpt_io_now(void);
unsigned int srpt_io_delta_at(const struct srpt_ctx *ctx, size_t off);
u64 srpt_io_lun_blocks(struct kunit *test);
void srpt_io_logout(struct kunit *test, struct srpt_io *io);
void srpt_io_expect_idle(struct kunit *test);
void srpt_io_stall(struct kunit *test, struct srpt_io *io, u64 *tag);
void srpt_io_cmd_write(struct srpt_io *io, struct cmkit_srp_cmd *cmd, u8 *cdb,
		       u32 lba, u16 blocks, u32 off);
int srpt_io_tmf_iu(struct srpt_io *io, u8 *iu, u8 func, u64 task, u64 *tag);
const u8 *srpt_io_disk(struct kunit *test, u32 lba, u32 len);

/* kunit/srpt_login_test.c */
void srpt_valid_login_then_initiator_disconnects(struct kunit *test);
void srpt_initiator_data_reaches_target(struct kunit *test);
void srpt_target_disconnect_while_disconnecting(struct kunit *test);
void srpt_target_disconnect_after_release(struct kunit *test);
void srpt_relogin_replaces_channel(struct kunit *test);
void srpt_initiator_rejects_rep(struct kunit *test);
void srpt_rep_timeout_releases_channel(struct kunit *test);
void srpt_bad_login_rejected(struct kunit *test);
void srpt_sidr_req_refused(struct kunit *test);
void srpt_rd_atomic_clamped_to_rep(struct kunit *test);

/* kunit/srpt_fault_test.c */
void srpt_failure_injected(struct kunit *test);
void srpt_fail_nth_relayed_login_and_disconnect(struct kunit *test);

/* kunit/srpt_teardown_test.c */
void srpt_release_vs_ctl_disconnect(struct kunit *test);
void srpt_release_vs_relayed_multichannel_login(struct kunit *test);
void srpt_remote_events_log_nothing(struct kunit *test);
void srpt_ctl_stop_restart_start(struct kunit *test);
void srpt_failed_restart_leaves_start_usable(struct kunit *test);
void srpt_concurrent_logins(struct kunit *test);
void srpt_unload_with_live_channels(struct kunit *test);
void srpt_device_removal_with_live_channels(struct kunit *test);

/* kunit/srpt_io_test.c */
void srpt_io_inquiry_and_read_capacity_describe_the_ram_lun(struct kunit *test);
void srpt_io_write_then_read_back_direct(struct kunit *test);
void srpt_io_write_then_read_back_indirect(struct kunit *test);
void srpt_io_write_then_read_back_immediate(struct kunit *test);
void srpt_io_external_indirect_table_is_refused_with_sense(struct kunit *test);
void srpt_io_unknown_opcode_and_lba_past_end_and_other_lun_get_sense(struct kunit *test);
void srpt_io_write_longer_than_its_data_out_buffer(struct kunit *test);
void srpt_io_malformed_iu_gets_check_condition(struct kunit *test);
void srpt_io_credits_never_exceed_the_grant(struct kunit *test);
void srpt_io_abort_task_before_completion(struct kunit *test);
void srpt_io_abort_task_after_completion(struct kunit *test);
void srpt_io_lun_reset_aborts_outstanding(struct kunit *test);
void srpt_io_target_disconnect_with_io_in_flight(struct kunit *test);
void srpt_io_removal_with_rdma_reads_outstanding(struct kunit *test);
void srpt_io_failed_send_post_answers_busy(struct kunit *test);
void srpt_io_failed_repost_closes_the_channel(struct kunit *test);
void srpt_io_flood_beyond_the_credit_limit_is_refused(struct kunit *test);
void srpt_io_failed_rdma_read_closes_the_channel(struct kunit *test);
void srpt_io_commands_wait_for_a_send_context_in_order(struct kunit *test);
void srpt_io_second_tmf_waits_for_the_aborted_command(struct kunit *test);
void srpt_io_logout_ius_close_the_channel(struct kunit *test);
void srpt_io_write_without_read_depth_gets_sense(struct kunit *test);

#endif /* CMKIT_SRPT_TEST_H */
