// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_srpt: races between a channel's release and the control plane,
 * what a peer can make srpt log, stop/restart/start, 64 concurrent logins,
 * unload and device removal with live channels.
 */
#include "srpt_test.h"

/*
 * A channel closes (its initiator rejects the REP) and its release work
 * destroys the cm_id while the control plane's disconnect walks the
 * device's channels under its mutex.
 *
 * Release first: the release is held just before ib_destroy_cm_id(); the
 * channel must be off the list by then, so the disconnect finds nothing.
 * Walk first: the disconnect is held after it claimed the channel
 * (DISCONNECTING) and before it uses the cm_id; the release runs up to the
 * channel list and must not have destroyed the cm_id by then; the
 * disconnect then uses a cm_id that must still exist (once what ib_cm
 * freed is freed, KASAN on the debug leg sees a use otherwise).
 */
void srpt_release_vs_ctl_disconnect(struct kunit *test)
{
	const struct srpt_choice *p = test->param_value;
	struct srpt_stop *walk, *rel, *dst;
	struct srpt_ctx ctx;
	struct srpt_ini *ini;
	struct srpt_bg *bg;
	int ret = -EINVAL;
	u64 *tag;

	srpt_setup(&ctx, test, false);
	ini = srpt_held_login(&ctx, "held", 0x5a01, 9);
	tag = &ini->req.tag;

	if (p->value == SRPT_RELEASE_FIRST) {
		rel = srpt_stop_arm(0, SRPT_HOOK_DESTROY, *tag, true);
		KUNIT_ASSERT_EQ(test, srpt_ibcm_reject(ini), 0);
		KUNIT_ASSERT_EQ(test, srpt_stop_wait(rel), 0);
		KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(*tag), -ENOENT);
		KUNIT_EXPECT_EQ(test, srpt_ctl_disconnect(*tag), -ENOENT);
		srpt_stop_go(rel);
	} else {
		walk = srpt_stop_arm(0, SRPT_HOOK_DISCONNECT, *tag, true);
		rel = srpt_stop_arm(1, SRPT_HOOK_RELEASE, *tag, false);
		dst = srpt_stop_arm(2, SRPT_HOOK_DESTROY, *tag, false);
		bg = srpt_bg_start(test, srpt_ctl_disconnect_fn, tag);
		KUNIT_ASSERT_EQ(test, srpt_stop_wait(walk), 0);
		KUNIT_ASSERT_EQ(test, srpt_ibcm_reject(ini), 0);
		KUNIT_ASSERT_EQ(test, srpt_stop_wait(rel), 0);
		KUNIT_EXPECT_FALSE_MSG(test, completion_done(&dst->reached),
				       "the cm_id was destroyed under the walker");
		srpt_wait_rcu_frees();
		srpt_stop_go(walk);
		KUNIT_ASSERT_EQ(test, srpt_bg_wait(bg, &ret), 0);
		/* It claimed the channel: whatever the CM said, it is closed. */
		KUNIT_EXPECT_EQ(test, ret, 0);
	}
	KUNIT_EXPECT_EQ(test, srpt_wait_state(*tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
}

static int srpt_relay_deliver_fn(void *arg)
{
	struct cmkit_srpt_relogin *rl = arg;

	return srpt_relay_deliver(rl->relay, rl->dev);
}

/*
 * The same race with the other walker: a single-channel login from the same
 * initiator port disconnects the closing channel, from its REQ handler
 * (relayed, so that the handler held at the hook is not one of ib_cm's
 * workers, which the closing channel's REJ needs).
 */
void srpt_release_vs_relayed_multichannel_login(struct kunit *test)
{
	const struct srpt_choice *p = test->param_value;
	struct cmkit_srp_login_rsp rsp;
	struct srpt_stop *walk, *rel, *dst;
	struct srpt_ini *held, *ini;
	struct cmkit_srpt_relogin *rl;
	struct srpt_outcome o;
	struct srpt_ctx ctx;
	struct srpt_bg *bg;
	int ret = -EINVAL;
	u8 flags;

	srpt_setup(&ctx, test, false);
	held = srpt_held_login(&ctx, "held", 0x5b01, 10);
	rl = kunit_kzalloc(test, sizeof(*rl), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rl);
	rl->dev = ctx.dev;
	rl->relay = srpt_relay_create(test, ctx.dev);
	ini = srpt_ini_create(&ctx, "relogin", 0x5b02, 10);
	ini->service_id = rl->relay->service_id;
	KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
	KUNIT_ASSERT_EQ(test, srpt_relay_wait(rl->relay), 0);

	if (p->value == SRPT_RELEASE_FIRST) {
		rel = srpt_stop_arm(0, SRPT_HOOK_DESTROY, held->req.tag, true);
		KUNIT_ASSERT_EQ(test, srpt_ibcm_reject(held), 0);
		KUNIT_ASSERT_EQ(test, srpt_stop_wait(rel), 0);
		ret = srpt_relay_deliver(rl->relay, ctx.dev);
		srpt_stop_go(rel);
		/* The closing channel was no longer there to terminate. */
		flags = CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN;
	} else {
		walk = srpt_stop_arm(0, SRPT_HOOK_DISCONNECT, held->req.tag, true);
		rel = srpt_stop_arm(1, SRPT_HOOK_RELEASE, held->req.tag, false);
		dst = srpt_stop_arm(2, SRPT_HOOK_DESTROY, held->req.tag, false);
		bg = srpt_bg_start(test, srpt_relay_deliver_fn, rl);
		KUNIT_ASSERT_EQ(test, srpt_stop_wait(walk), 0);
		KUNIT_ASSERT_EQ(test, srpt_ibcm_reject(held), 0);
		KUNIT_ASSERT_EQ(test, srpt_stop_wait(rel), 0);
		KUNIT_EXPECT_FALSE_MSG(test, completion_done(&dst->reached),
				       "the cm_id was destroyed under the walker");
		srpt_wait_rcu_frees();
		srpt_stop_go(walk);
		KUNIT_ASSERT_EQ(test, srpt_bg_wait(bg, &ret), 0);
		flags = CMKIT_SRP_LOGIN_RSP_MULTICHAN_TERMINATED;
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
	srpt_expect_accepted(test, &o, &ini->req);
	KUNIT_ASSERT_EQ(test, cmkit_srp_decode_login_rsp(o.pdata, sizeof(o.pdata),
							 &rsp), 1);
	KUNIT_EXPECT_EQ(test, rsp.flags, flags);
	KUNIT_ASSERT_EQ(test, srpt_wait_state(ini->req.tag, SRPT_CH_LIVE), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(held->req.tag, -ENOENT), 0);

	KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 2, 2);
}

/* ---- what a remote peer can make srpt log ------------------------------ */

/*
 * Everything a remote initiator can do to srpt, once each: bad logins of
 * both forms, a REQ with no rdma_cm header on the rdma_cm port, a REP
 * rejected, a REP never answered, a login, a relogin that replaces it, both
 * disconnects, a SIDR REQ.  srpt's decisions are tracepoints: none of this
 * may reach the kernel log, where a peer could flood it.
 */
void srpt_remote_events_log_nothing(struct kunit *test)
{
	struct ib_cm_sidr_req_param sidr = { };
	struct kmsg_dump_iter it;
	struct srpt_ini *ini, *first;
	struct srpt_outcome o;
	struct srpt_sidr *s;
	struct srpt_ctx ctx;
	int form;

	srpt_setup(&ctx, test, false);
	srpt_log_mark(&it);

	for (form = 0; form < 2; form++) {
		ctx.rdma_cm = form;
		ini = srpt_ini_create(&ctx, "bad", 0x5c01 + form, 1);
		ini->req.target_port_id[15] ^= 0x01;
		KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
		KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
		KUNIT_EXPECT_TRUE(test, o.rejected);
	}
	ctx.rdma_cm = false;

	ini = srpt_ini_create(&ctx, "no header", 0x5c03, 1);
	ini->service_id = CMKIT_CMA_TCP_SERVICE_ID(cmkit_srpt_rdma_cm_port());
	KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
	KUNIT_EXPECT_TRUE(test, o.rejected);

	ini = srpt_ini_create(&ctx, "rejecting", 0x5c04, 2);
	ini->ib->reject_rep = true;
	KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);

	ini = srpt_ini_create(&ctx, "silent", 0x5c05, 3);
	ini->ib->ignore_rep = true;
	KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
	KUNIT_ASSERT_EQ(test, srpt_ibcm_wait(ini->ib, BIT(IB_CM_REP_RECEIVED)), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);

	first = srpt_ini_create(&ctx, "first", 0x5c06, 4);
	ini = srpt_ini_create(&ctx, "second", 0x5c07, 4);
	srpt_login_live(test, first, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
	srpt_login_live(test, ini, CMKIT_SRP_LOGIN_RSP_MULTICHAN_TERMINATED);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_target_disconnect(first), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(first->req.tag, -ENOENT), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);

	s = kunit_alloc_resource(test, srpt_sidr_init, srpt_sidr_free, GFP_KERNEL,
				 ctx.dev);
	KUNIT_ASSERT_NOT_NULL(test, s);
	sidr.path = &ctx.route->id->route.path_rec[0];
	sidr.sgid_attr = ctx.route->id->route.addr.dev_addr.sgid_attr;
	sidr.service_id = cpu_to_be64(ctx.service_id);
	sidr.timeout_ms = 1000;
	sidr.max_cm_retries = 2;
	KUNIT_ASSERT_EQ(test, ib_send_cm_sidr_req(s->cm_id, &sidr), 0);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&s->done,
							  cmkit_test_timeout()), 0);

	srpt_expect_clean(&ctx, 4, 4);
	KUNIT_EXPECT_EQ(test, srpt_log_count(&it, "cmkit: srpt: "), 0U);
}

/* ---- start, stop and restart -------------------------------------------- */

/* One login on rxe0, live, then disconnected by its initiator. */
static void srpt_one_login(struct srpt_ctx *ctx, u64 tag)
{
	struct kunit *test = ctx->test;
	struct srpt_ini *ini;

	ini = srpt_ini_create(ctx, "initiator", tag, 1);
	srpt_login_live(test, ini, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
	KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
}

/*
 * ctl stop, then what unloading and loading cmkit does (restart), then ctl
 * start: srpt is listening after the restart, so start must refuse rather
 * than register the client a second time; stop and start then still work.
 */
void srpt_ctl_stop_restart_start(struct kunit *test)
{
	struct srpt_ctx ctx;

	srpt_setup(&ctx, test, true);
	srpt_leave_listening(test, ctx.dev);
	KUNIT_ASSERT_EQ(test, cmkit_srpt_ctl("stop"), 0);
	KUNIT_EXPECT_EQ(test, srpt_stat(test, "listening"), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ctl("stop"), -EALREADY);
	KUNIT_ASSERT_EQ(test, cmkit_srpt_restart(), 0);
	KUNIT_EXPECT_EQ(test, srpt_stat(test, "listening"), 1U);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ctl("start"), -EALREADY);
	srpt_one_login(&ctx, 0x5d01);

	KUNIT_ASSERT_EQ(test, cmkit_srpt_ctl("stop"), 0);
	KUNIT_EXPECT_TRUE(test, !cmkit_srpt_listen_context(ctx.dev));
	KUNIT_ASSERT_EQ(test, cmkit_srpt_ctl("start"), 0);
	srpt_one_login(&ctx, 0x5d02);
	srpt_expect_clean(&ctx, 2, 2);
}

/* A restart whose start fails leaves srpt stopped, and ctl start works. */
void srpt_failed_restart_leaves_start_usable(struct kunit *test)
{
	const struct srpt_choice *p = test->param_value;
	u8 tport[CMKIT_SRP_PORT_ID_LEN];
	struct srpt_ctx ctx;
	u64 sid;

	srpt_setup(&ctx, test, true);
	srpt_leave_listening(test, ctx.dev);
	cmkit_fault_arm(&cmkit_srpt_fault_points, BIT(p->value), 1);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_restart(), -ENOMEM);
	KUNIT_EXPECT_EQ(test, srpt_stat(test, "listening"), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_target(ctx.dev, &sid, tport), -ENODEV);
	KUNIT_ASSERT_EQ(test, cmkit_srpt_ctl("start"), 0);
	srpt_one_login(&ctx, 0x5e01 + p->value);
	srpt_expect_clean(&ctx, 1, 1);
}

/* ---- 64 concurrent logins ---------------------------------------------- */

void srpt_concurrent_logins(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_ini **ini;
	struct srpt_outcome o;
	struct srpt_ctx ctx;
	int i;

	srpt_setup(&ctx, test, form->rdma_cm);
	ini = kunit_kcalloc(test, SRPT_TEST_MAX_INI, sizeof(*ini), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ini);
	for (i = 0; i < SRPT_TEST_MAX_INI; i++)
		ini[i] = srpt_ini_create(&ctx, "initiator", 0x5700 + i, 100 + i);
	/* All REQs out before the first answer is looked at. */
	for (i = 0; i < SRPT_TEST_MAX_INI; i++)
		KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini[i], -1), 0);
	for (i = 0; i < SRPT_TEST_MAX_INI; i++) {
		KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini[i], &o), 0);
		srpt_expect_accepted(test, &o, &ini[i]->req);
		KUNIT_EXPECT_EQ(test, srpt_req_ret(test, ini[i]->req.tag, 1), 0);
	}
	for (i = 0; i < SRPT_TEST_MAX_INI; i++)
		KUNIT_ASSERT_EQ(test, srpt_wait_state(ini[i]->req.tag,
						      SRPT_CH_LIVE), 0);
	for (i = 0; i < SRPT_TEST_MAX_INI; i++)
		KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(ini[i]), 0);
	for (i = 0; i < SRPT_TEST_MAX_INI; i++)
		KUNIT_EXPECT_EQ(test, srpt_wait_state(ini[i]->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, SRPT_TEST_MAX_INI, SRPT_TEST_MAX_INI);
}

/* ---- unload and device removal with live channels ---------------------- */

/* One live channel of each form, both in @ctx (whose form is ib_cm). */
static void srpt_two_live(struct kunit *test, struct srpt_ctx *ctx,
			  struct srpt_ini **rdma, struct srpt_ini **ib, u64 tag)
{
	ctx->rdma_cm = true;
	*rdma = srpt_ini_create(ctx, "rdma_cm initiator", tag, 1);
	ctx->rdma_cm = false;
	*ib = srpt_ini_create(ctx, "ib_cm initiator", tag + 1, 2);
	srpt_login_live(test, *rdma, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
	srpt_login_live(test, *ib, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
}

void srpt_unload_with_live_channels(struct kunit *test)
{
	struct srpt_ini *rdma, *ib, *after;
	struct cmkit_cm_record r;
	struct srpt_ctx ctx;

	srpt_setup(&ctx, test, false);
	srpt_two_live(test, &ctx, &rdma, &ib, 0x5800);

	/* What rmmod cmkit does to srpt: must not hang or leak. */
	KUNIT_ASSERT_EQ(test, cmkit_srpt_restart(), 0);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(rdma->req.tag), -ENOENT);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(ib->req.tag), -ENOENT);
	srpt_expect_clean(&ctx, 2, 2);
	/* Destroying an established cm_id sent a DREQ to each initiator. */
	KUNIT_EXPECT_EQ(test, cmkit_peer_wait(rdma->peer, RDMA_CM_EVENT_DISCONNECTED,
					      &r), 0);
	KUNIT_EXPECT_EQ(test, srpt_ibcm_wait(ib->ib, BIT(IB_CM_DREQ_RECEIVED)), 0);

	/* And srpt listens again. */
	cmkit_srpt_counters(&ctx.base);
	after = srpt_ini_create(&ctx, "after", 0x5810, 3);
	srpt_login_live(test, after, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
	KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(after), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(after->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
}

void srpt_device_removal_with_live_channels(struct kunit *test)
{
	const struct cmkit_dev_param *rxe = &cmkit_dev_params[CMKIT_RXE];
	struct srpt_ini *rdma, *ib;
	struct cmkit_removal *removal;
	struct cmkit_cm_record r;
	struct ib_device *dev;
	struct srpt_ctx ctx;
	u64 sid;
	u8 tport[CMKIT_SRP_PORT_ID_LEN];

	srpt_setup(&ctx, test, false);
	srpt_two_live(test, &ctx, &rdma, &ib, 0x5900);

	/*
	 * Hold the device until the raw initiator's verbs objects are gone:
	 * the removal removes the clients, then waits for this reference.
	 */
	dev = ctx.route->id->device;
	KUNIT_ASSERT_TRUE(test, ib_device_try_get(dev));
	removal = cmkit_test_remove_device(test, rxe);
	if (!removal)
		ib_device_put(dev);
	KUNIT_ASSERT_NOT_NULL(test, removal);

	/* srpt's remove closes both channels and waits for their release. */
	KUNIT_EXPECT_EQ(test, srpt_wait_state(rdma->req.tag, -ENOENT), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(ib->req.tag, -ENOENT), 0);
	KUNIT_EXPECT_EQ(test, cmkit_peer_wait(rdma->peer,
					      RDMA_CM_EVENT_DEVICE_REMOVAL, &r), 0);
	KUNIT_EXPECT_EQ(test, cmkit_peer_wait(ctx.route,
					      RDMA_CM_EVENT_DEVICE_REMOVAL, &r), 0);
	srpt_ibcm_destroy(ib->ib);
	ib_device_put(dev);
	KUNIT_ASSERT_EQ(test, cmkit_test_wait_removed(removal), 0);

	srpt_expect_clean(&ctx, 2, 2);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_target(dev, &sid, tport), -ENODEV);
}
