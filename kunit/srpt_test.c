// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_srpt: the SRP target's srpt_cm_handler() on rxe0, driven by
 * in-kernel initiators of both listener forms:
 *
 *  - rdma_cm: a cmkit_peer connects to srpt's rdma_cm port with a 56-byte
 *    compact login; rdma_cm puts its IP header in front;
 *  - ib_cm: a raw IB CM initiator (route resolved through rdma_cm, then
 *    ib_send_cm_req() with that path) sends a 64-byte SRP_LOGIN_REQ to the
 *    native service id.
 *
 * Each case asserts what the initiator saw (an established connection whose
 * REP carries a decodable SRP_LOGIN_RSP and whose QP carries a Send to the
 * target, or a REJ carrying an SRP_LOGIN_REJ with the expected reason), what
 * the handler returned, the channel's state, and at the end that every
 * channel was freed and every channel's cm_id destroyed exactly once, from
 * cmkit.ko's counters.
 *
 * The srpt_io_* cases drive the data path from an SRP initiator of either
 * form (kunit/srp_peer.c gives the login a QP, a receive ring and a data
 * buffer): SCSI commands with each kind of data descriptor, bytes compared
 * on both sides, sense data, malformed IUs, credits, task management,
 * teardown with I/O in flight.  Each ends with every send context and
 * rdma_rw context of srpt released (ctx_alive, rw_ctx_alive back to 0).
 * srpt's data path hooks run in its CQ work and must not block; what keeps
 * an RDMA Read outstanding for as long as a case needs is the initiator
 * holding back its receive ring (srpt_io_stall()).
 *
 * Two tools make orders and failures deterministic:
 *
 *  - hooks (cmkit_srpt_set_hook()): a case stops srpt at a named point of a
 *    race (a disconnect about to use a channel's cm_id, a release about to
 *    unlist a channel or destroy its cm_id) until the other side has reached
 *    its own point, so each race case runs one order, every time;
 *  - a relay: a REQ sent to a service id of the test's own is received by
 *    the test, which then delivers it to srpt_cm_handler() from a thread of
 *    its choice, as ib_cm would (same cm_id, same event, the cm_id destroyed
 *    if the handler returns non-zero).  Cases that use it say "relayed": a
 *    login handler paused in ib_cm's own workqueue would stall the CM events
 *    the case needs, and fail-nth counts the failure points of one task.
 */
#include "srpt_test.h"

/*
 * KUNIT_ARRAY_PARAM() over a table whose entries name their listener form
 * (@rdma_cm) and what they do (@what): "<form> <what>".
 */
#define SRPT_FORM_ARRAY_PARAM(name, array)					\
	static void name##_desc(typeof(&(array)[0]) p, char *desc)		\
	{									\
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s",			\
			 p->rdma_cm ? "rdma_cm" : "ib_cm", p->what);		\
	}									\
	KUNIT_ARRAY_PARAM(name, array, name##_desc)

static const struct srpt_form srpt_forms[] = {
	{ .rdma_cm = true },
	{ .rdma_cm = false },
};

static void srpt_form_desc(const struct srpt_form *f, char *desc)
{
	strscpy(desc, f->rdma_cm ? "rdma_cm" : "ib_cm", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(srpt_form, srpt_forms, srpt_form_desc);

static const struct srpt_bad_param srpt_bad_params[] = {
	SRPT_BAD(true, SRPT_BAD_OPCODE, "wrong opcode", UNABLE_ESTABLISH_CHANNEL),
	SRPT_BAD(false, SRPT_BAD_OPCODE, "wrong opcode", UNABLE_ESTABLISH_CHANNEL),
	SRPT_BAD(true, SRPT_BAD_IU_SMALL, "IU length too small",
		 REQ_IT_IU_LENGTH_TOO_LARGE),
	SRPT_BAD(false, SRPT_BAD_IU_SMALL, "IU length too small",
		 REQ_IT_IU_LENGTH_TOO_LARGE),
	SRPT_BAD(true, SRPT_BAD_IU_LARGE, "IU length too large",
		 REQ_IT_IU_LENGTH_TOO_LARGE),
	SRPT_BAD(false, SRPT_BAD_IU_LARGE, "IU length too large",
		 REQ_IT_IU_LENGTH_TOO_LARGE),
	SRPT_BAD(true, SRPT_BAD_BUF_FMT, "unsupported buffer format",
		 UNSUPPORTED_DESCRIPTOR_FMT),
	SRPT_BAD(false, SRPT_BAD_BUF_FMT, "unsupported buffer format",
		 UNSUPPORTED_DESCRIPTOR_FMT),
	SRPT_BAD(true, SRPT_BAD_TPORT, "wrong target port id",
		 UNABLE_ASSOCIATE_CHANNEL),
	SRPT_BAD(false, SRPT_BAD_TPORT, "wrong target port id",
		 UNABLE_ASSOCIATE_CHANNEL),
	SRPT_BAD(true, SRPT_BAD_SHORT, "short private data",
		 UNABLE_ASSOCIATE_CHANNEL),
	SRPT_BAD(false, SRPT_BAD_SHORT, "short private data",
		 UNABLE_ASSOCIATE_CHANNEL),
	SRPT_BAD(true, SRPT_BAD_NONE, "no SRP data", REQ_IT_IU_LENGTH_TOO_LARGE),
	SRPT_BAD(false, SRPT_BAD_NONE, "no SRP data", REQ_IT_IU_LENGTH_TOO_LARGE),
};

SRPT_FORM_ARRAY_PARAM(srpt_bad, srpt_bad_params);

static const struct srpt_fault_param srpt_fault_params[] = {
	{ true, SRPT_FAULT_CH_ALLOC, "channel allocation" },
	{ false, SRPT_FAULT_CH_ALLOC, "channel allocation" },
	{ true, SRPT_FAULT_CQ_CREATE, "CQ creation" },
	{ false, SRPT_FAULT_CQ_CREATE, "CQ creation" },
	{ true, SRPT_FAULT_QP_CREATE, "QP creation" },
	{ false, SRPT_FAULT_QP_CREATE, "QP creation" },
	{ true, SRPT_FAULT_QP_INIT, "QP to INIT" },
	{ false, SRPT_FAULT_QP_INIT, "QP to INIT" },
	{ true, SRPT_FAULT_RECV_ALLOC, "receive IU allocation" },
	{ false, SRPT_FAULT_RECV_ALLOC, "receive IU allocation" },
	{ true, SRPT_FAULT_RECV_POST, "receive IU post" },
	{ false, SRPT_FAULT_RECV_POST, "receive IU post" },
	{ true, SRPT_FAULT_QP_RTR, "QP to RTR" },
	{ false, SRPT_FAULT_QP_RTR, "QP to RTR" },
	{ true, SRPT_FAULT_REP_SEND, "REP send" },
	{ false, SRPT_FAULT_REP_SEND, "REP send" },
	{ true, SRPT_FAULT_QP_RTS, "QP to RTS at RTU" },
	{ false, SRPT_FAULT_QP_RTS, "QP to RTS at RTU" },
	{ true, SRPT_FAULT_DREQ_SEND, "DREQ send" },
	{ false, SRPT_FAULT_DREQ_SEND, "DREQ send" },
	{ true, SRPT_FAULT_DREP_SEND, "DREP send" },
	{ false, SRPT_FAULT_DREP_SEND, "DREP send" },
};

SRPT_FORM_ARRAY_PARAM(srpt_fault, srpt_fault_params);

static void srpt_choice_desc(const struct srpt_choice *p, char *desc)
{
	strscpy(desc, p->what, KUNIT_PARAM_DESC_SIZE);
}

static const struct srpt_choice srpt_orders[] = {
	{ SRPT_RELEASE_FIRST, "release about to destroy, then the walk" },
	{ SRPT_WALKER_FIRST, "walk holds the channel, then the release" },
};

KUNIT_ARRAY_PARAM(srpt_order, srpt_orders, srpt_choice_desc);

static const struct srpt_choice srpt_start_params[] = {
	{ SRPT_FAULT_WQ_ALLOC, "workqueue allocation" },
	{ SRPT_FAULT_CLIENT_REG, "client registration" },
};

KUNIT_ARRAY_PARAM(srpt_start, srpt_start_params, srpt_choice_desc);

static const struct srpt_io_close_param srpt_io_close_params[] = {
	{ true, SRPT_IO_CLOSE_UNKNOWN, "unknown IU" },
	{ false, SRPT_IO_CLOSE_UNKNOWN, "unknown IU" },
	{ true, SRPT_IO_CLOSE_SHORT_TMF, "short SRP_TSK_MGMT" },
	{ false, SRPT_IO_CLOSE_SHORT_TMF, "short SRP_TSK_MGMT" },
	{ true, SRPT_IO_CLOSE_I_LOGOUT, "SRP_I_LOGOUT" },
	{ false, SRPT_IO_CLOSE_I_LOGOUT, "SRP_I_LOGOUT" },
};

static void srpt_io_close_desc(const struct srpt_io_close_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s",
		 p->rdma_cm ? "rdma_cm" : "ib_cm", p->name);
}

KUNIT_ARRAY_PARAM(srpt_io_close, srpt_io_close_params, srpt_io_close_desc);

static struct kunit_case srpt_cases[] = {
	KUNIT_CASE_PARAM(srpt_valid_login_then_initiator_disconnects,
			 srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_initiator_data_reaches_target, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_target_disconnect_while_disconnecting,
			 srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_target_disconnect_after_release, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_relogin_replaces_channel, srpt_form_gen_params),
	KUNIT_CASE(srpt_initiator_rejects_rep),
	KUNIT_CASE(srpt_rep_timeout_releases_channel),
	KUNIT_CASE_PARAM(srpt_bad_login_rejected, srpt_bad_gen_params),
	KUNIT_CASE_PARAM(srpt_sidr_req_refused, srpt_form_gen_params),
	KUNIT_CASE(srpt_rd_atomic_clamped_to_rep),
	KUNIT_CASE_PARAM(srpt_failure_injected, srpt_fault_gen_params),
	KUNIT_CASE(srpt_fail_nth_relayed_login_and_disconnect),
	KUNIT_CASE_PARAM(srpt_concurrent_logins, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_release_vs_ctl_disconnect, srpt_order_gen_params),
	KUNIT_CASE_PARAM(srpt_release_vs_relayed_multichannel_login,
			 srpt_order_gen_params),
	KUNIT_CASE(srpt_remote_events_log_nothing),
	KUNIT_CASE(srpt_ctl_stop_restart_start),
	KUNIT_CASE_PARAM(srpt_failed_restart_leaves_start_usable,
			 srpt_start_gen_params),
	KUNIT_CASE(srpt_unload_with_live_channels),
	KUNIT_CASE_PARAM(srpt_io_inquiry_and_read_capacity_describe_the_ram_lun,
			 srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_write_then_read_back_direct, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_write_then_read_back_indirect, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_write_then_read_back_immediate, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_external_indirect_table_is_refused_with_sense,
			 srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_unknown_opcode_and_lba_past_end_and_other_lun_get_sense,
			 srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_write_longer_than_its_data_out_buffer, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_malformed_iu_gets_check_condition, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_logout_ius_close_the_channel, srpt_io_close_gen_params),
	KUNIT_CASE(srpt_io_write_without_read_depth_gets_sense),
	KUNIT_CASE_PARAM(srpt_io_credits_never_exceed_the_grant, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_flood_beyond_the_credit_limit_is_refused,
			 srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_abort_task_before_completion, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_abort_task_after_completion, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_lun_reset_aborts_outstanding, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_target_disconnect_with_io_in_flight, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_failed_send_post_answers_busy, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_failed_repost_closes_the_channel, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_failed_rdma_read_closes_the_channel, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_commands_wait_for_a_send_context_in_order,
			 srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_io_second_tmf_waits_for_the_aborted_command,
			 srpt_form_gen_params),
	/* rxe0 is removed, and added back when each parameter ends. */
	KUNIT_CASE_PARAM(srpt_io_removal_with_rdma_reads_outstanding, srpt_form_gen_params),
	/* Last: rxe0 is gone until the next suite re-creates it. */
	KUNIT_CASE(srpt_device_removal_with_live_channels),
	{}
};

static int srpt_suite_init(struct kunit_suite *suite)
{
	int i;

	for (i = 0; i < SRPT_NR_STOPS; i++) {
		init_completion(&srpt_hk.stop[i].reached);
		init_completion(&srpt_hk.stop[i].go);
	}
	cmkit_srpt_set_hook(srpt_test_hook);
	return 0;
}

static void srpt_suite_exit(struct kunit_suite *suite)
{
	/* Every channel is freed at the end of each case: no hook still runs. */
	cmkit_srpt_set_hook(NULL);
}

/* No fault or stop a case armed outlives it, whether or not it fired. */
static void srpt_case_exit(struct kunit *test)
{
	cmkit_fault_disarm(&cmkit_srpt_fault_points);
	srpt_stops_reset();
}

struct kunit_suite cmkit_srpt_suite = {
	.name = "cmkit_srpt",
	.suite_init = srpt_suite_init,
	.suite_exit = srpt_suite_exit,
	.exit = srpt_case_exit,
	.test_cases = srpt_cases,
};
