// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_srpt: a failure injected at each step of the accept and disconnect
 * paths, and fail-nth over a relayed login and a target disconnect.
 */
#include "srpt_test.h"

/*
 * Each step of the accept and disconnect paths fails once, in turn.  What
 * the initiator sees tells what the handler returned: a REJ with an SRP
 * reason (a REJ was sent), a retried REQ that succeeds (-ENOMEM: ib_cm
 * dropped the REQ silently), or a connection that ends with a DREQ (the
 * channel's release destroyed its cm_id).  The stats count each login once:
 * accepted when its REP went out, rejected when its REJ did.
 */
void srpt_failure_injected(struct kunit *test)
{
	const struct srpt_fault_param *p = test->param_value;
	unsigned int accepted, rejected, acc = 0, rej = 0;
	struct srpt_counters c;
	struct srpt_outcome o;
	struct srpt_ctx ctx;
	struct srpt_ini *ini;
	u64 tag;

	srpt_setup(&ctx, test, p->rdma_cm);
	ini = srpt_ini_create(&ctx, "initiator", 0x5600 + p->fault, 1);
	tag = ini->req.tag;
	accepted = srpt_stat(test, "logins_accepted");
	rejected = srpt_stat(test, "logins_rejected");

	switch (p->fault) {
	case SRPT_FAULT_DREQ_SEND:
	case SRPT_FAULT_DREP_SEND:
		srpt_login_live(test, ini, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
		cmkit_fault_arm(&cmkit_srpt_fault_points, BIT(p->fault), 1);
		if (p->fault == SRPT_FAULT_DREQ_SEND) {
			/*
			 * No DREQ, and no DREP outside DREQ_RCVD: the channel
			 * closes and is released; the initiator ends its side.
			 */
			KUNIT_EXPECT_EQ(test, srpt_ctl_disconnect(tag), 0);
			KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
			KUNIT_ASSERT_EQ(test, srpt_ini_end(ini), 0);
		} else {
			/* No DREP: ib_cm's destroy of the cm_id sends it. */
			KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(ini), 0);
			KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
		}
		srpt_expect_clean(&ctx, 1, 1);
		acc = 1;
		break;
	case SRPT_FAULT_QP_RTS:
		cmkit_fault_arm(&cmkit_srpt_fault_points, BIT(p->fault), 1);
		KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
		KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
		KUNIT_EXPECT_EQ(test, srpt_req_ret(test, tag, 1), 0);
		srpt_expect_accepted(test, &o, &ini->req);
		/* The RTU finds no RTS: closed and released. */
		KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
		KUNIT_ASSERT_EQ(test, srpt_ini_end(ini), 0);
		srpt_expect_clean(&ctx, 1, 1);
		acc = 1;
		break;
	case SRPT_FAULT_CH_ALLOC:
		/*
		 * -ENOMEM before the hand-over: ib_cm sends no REJ, so the
		 * initiator retries its REQ, and the retry is accepted.
		 */
		cmkit_fault_arm(&cmkit_srpt_fault_points, BIT(p->fault), 1);
		KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
		KUNIT_EXPECT_EQ(test, srpt_req_ret(test, tag, 1), -ENOMEM);
		KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
		KUNIT_EXPECT_EQ(test, srpt_req_ret(test, tag, 2), 0);
		srpt_expect_accepted(test, &o, &ini->req);
		KUNIT_ASSERT_EQ(test, srpt_wait_state(tag, SRPT_CH_LIVE), 0);
		KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(ini), 0);
		KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
		srpt_expect_clean(&ctx, 1, 1);
		acc = 1;
		break;
	case SRPT_FAULT_QP_RTR:
	case SRPT_FAULT_REP_SEND:
		/* After the hand-over: REJ, close, 0; the release destroys. */
		cmkit_fault_arm(&cmkit_srpt_fault_points, BIT(p->fault), 1);
		KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
		KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
		KUNIT_EXPECT_EQ(test, srpt_req_ret(test, tag, 1), 0);
		srpt_expect_rejected(test, &o, tag,
				     CMKIT_SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
		KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
		srpt_expect_clean(&ctx, 1, 1);
		rej = 1;
		break;
	default:
		/* Before the hand-over: REJ, non-zero, ib_cm destroys the id. */
		cmkit_fault_arm(&cmkit_srpt_fault_points, BIT(p->fault), 1);
		KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
		KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
		KUNIT_EXPECT_EQ(test, srpt_req_ret(test, tag, 1), -ECONNREFUSED);
		srpt_expect_rejected(test, &o, tag,
				     CMKIT_SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
		KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(tag), -ENOENT);
		srpt_expect_clean(&ctx, 1, 0);
		rej = 1;
		break;
	}
	cmkit_srpt_counters(&c);
	KUNIT_EXPECT_EQ(test, c.faults_fired - ctx.base.faults_fired, 1U);
	KUNIT_EXPECT_EQ(test, srpt_stat(test, "logins_accepted") - accepted, acc);
	KUNIT_EXPECT_EQ(test, srpt_stat(test, "logins_rejected") - rejected, rej);
}

/* ---- fail-nth over a relayed login and a target disconnect ------------- */

#ifdef CONFIG_FAULT_INJECTION

static void srpt_fail_nth_res_free(struct kunit_resource *res)
{
	current->fail_nth = 0;
	cmkit_fault_disarm(&cmkit_srpt_fault_points);
}

/*
 * Make this task's fail-nth count every failure point a login passes:
 * failslab's, sleeping allocations included (the guest sets its
 * ignore-gfp-wait to N and its stack dumps off before the suites:
 * cmkit_test_require_failslab()), and srpt's own steps, armed with a
 * probability of 0 so that they fail only when fail-nth says so.
 */
static void srpt_fail_nth_setup(struct kunit *test)
{
	struct fault_attr *attr = &cmkit_srpt_fault_points.attr;

	cmkit_test_require_failslab(test);
	/* The resource's data is only a non-NULL token here. */
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, srpt_bg_res_init,
							 srpt_fail_nth_res_free,
							 GFP_KERNEL, test));
	attr->probability = 0;
	attr->interval = 1;
	attr->verbose = 0;
	attr->task_filter = false;
	atomic_set(&attr->times, -1);
	WRITE_ONCE(cmkit_srpt_fault_points.armed,
		   GENMASK(SRPT_FAULT_DREP_SEND, SRPT_FAULT_CH_ALLOC) &
		   ~BIT(SRPT_FAULT_QP_RTS));
}

/*
 * One login, relayed so that srpt_cm_handler() runs in this task with
 * fail-nth @n, then (if it was accepted and @n was not used up) a target
 * disconnect with what is left of @n.  Whatever failed, the handler's
 * contract holds as the initiator sees it, and nothing is left behind.
 *
 * Return: true if @n outlasted every failure point of both.
 */
static bool srpt_fail_nth_once(struct srpt_ctx *ctx, struct srpt_relay *relay,
			       unsigned int n)
{
	struct kunit *test = ctx->test;
	struct srpt_counters before, after;
	struct srpt_outcome o;
	struct srpt_ini *ini;
	unsigned int left;
	u64 tag = 0x6000 + n;
	int ret;

	cmkit_srpt_counters(&before);
	ini = srpt_ini_create(ctx, "fail-nth", tag, 20);
	ini->service_id = relay->service_id;
	KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
	KUNIT_ASSERT_EQ(test, srpt_relay_wait(relay), 0);

	current->fail_nth = n;
	ret = srpt_relay_deliver(relay, ctx->dev);
	left = current->fail_nth;
	current->fail_nth = 0;

	KUNIT_ASSERT_EQ_MSG(test, srpt_ini_wait_outcome(ini, &o), 0,
			    "fail-nth %u: the initiator got no answer", n);
	if (ret) {
		/* Before the hand-over: a REJ (srpt's or ib_cm's), no channel. */
		KUNIT_EXPECT_TRUE_MSG(test, o.rejected, "fail-nth %u: ret %d", n, ret);
		KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(tag), -ENOENT);
	} else if (o.accepted) {
		KUNIT_ASSERT_EQ(test, srpt_wait_state(tag, SRPT_CH_LIVE), 0);
		current->fail_nth = left;
		KUNIT_EXPECT_EQ(test, cmkit_srpt_disconnect(tag), 0);
		left = current->fail_nth;
		current->fail_nth = 0;
		/* Released, with srpt's DREQ or without (its DREQ failed). */
		KUNIT_EXPECT_EQ_MSG(test, srpt_wait_state(tag, -ENOENT), 0,
				    "fail-nth %u: not released", n);
		KUNIT_ASSERT_EQ_MSG(test, srpt_ini_end(ini), 0,
				    "fail-nth %u: the initiator's side did not end", n);
	} else {
		/* After the hand-over: a REJ, and the channel closes. */
		KUNIT_EXPECT_TRUE_MSG(test, o.rejected, "fail-nth %u", n);
	}
	KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
	KUNIT_ASSERT_EQ(test, srpt_wait_quiescent(), 0);
	cmkit_srpt_counters(&after);
	KUNIT_EXPECT_EQ(test, after.ch_alloc - before.ch_alloc,
			after.ch_freed - before.ch_freed);
	KUNIT_EXPECT_EQ_MSG(test, after.cm_id_destroyed - before.cm_id_destroyed,
			    after.ch_handed_over - before.ch_handed_over,
			    "fail-nth %u: a handed-over cm_id not destroyed once", n);
	KUNIT_EXPECT_EQ(test, after.release_twice, 0U);
	srpt_ibcm_destroy(ini->ib);
	return left > 0;
}

/*
 * failslab with a task filter over a full login and disconnect: the
 * kernel's fail-nth (what /proc/<pid>/fail-nth sets) for N = 1, 2, ...
 * until N outlasts every failure point.  The login is relayed: ib_cm runs
 * REQ handlers in its own workqueue, whose kworkers run other ids' events
 * too, so fail-nth set on one of them would fail whatever it ran next; the
 * relay runs srpt_cm_handler() for this REQ, with this cm_id, in the
 * test's own task, and destroys the id on a non-zero return as ib_cm
 * would.  The target disconnect is the control plane's, in this task too.
 */
void srpt_fail_nth_relayed_login_and_disconnect(struct kunit *test)
{
	struct srpt_counters c;
	struct srpt_relay *relay;
	struct srpt_ctx ctx;
	unsigned int n, injected = 0;
	bool done = false;

	srpt_setup(&ctx, test, false);
	relay = srpt_relay_create(test, ctx.dev);
	srpt_fail_nth_setup(test);
	for (n = 1; n <= SRPT_FAIL_NTH_MAX && !done; n++) {
		done = srpt_fail_nth_once(&ctx, relay, n);
		if (!done)	/* fail-nth used up: its Nth point failed */
			injected++;
	}
	KUNIT_EXPECT_TRUE_MSG(test, done, "still failing at fail-nth %u",
			      SRPT_FAIL_NTH_MAX);
	kunit_info(test, "%u failure points in a login and a disconnect\n", injected);
	cmkit_srpt_counters(&c);
	KUNIT_EXPECT_EQ(test, c.ch_alloc - ctx.base.ch_alloc, c.ch_freed - ctx.base.ch_freed);
	KUNIT_EXPECT_EQ(test, c.cm_id_destroyed - ctx.base.cm_id_destroyed,
			c.ch_handed_over - ctx.base.ch_handed_over);
	/* A sweep that injected nothing proved nothing. */
	KUNIT_ASSERT_GT_MSG(test, injected, 0U, "fail-nth 1 failed nothing");
}

#else

/* No fail-nth, no failslab: the sweep cannot run, and that fails it. */
void srpt_fail_nth_relayed_login_and_disconnect(struct kunit *test)
{
	cmkit_test_require_failslab(test);
	KUNIT_FAIL(test, "the kernel has no CONFIG_FAULT_INJECTION: no fail-nth to sweep");
}

#endif
