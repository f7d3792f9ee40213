// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_srpt: logins and disconnects over both listener forms, bad logins,
 * SIDR, and the REP's RDMA Read depth.
 */
#include "srpt_test.h"

/* ---- the cases --------------------------------------------------------- */

void srpt_valid_login_then_initiator_disconnects(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_ctx ctx;
	struct srpt_ini *ini;

	srpt_setup(&ctx, test, form->rdma_cm);
	ini = srpt_ini_create(&ctx, "initiator", 0x5101, 1);
	srpt_login_live(test, ini, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);

	KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(ini), 0);
	/* DREP, then timewait: TIMEWAIT_EXIT closes, the release frees. */
	KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
}

/*
 * Data crosses a live channel: the QPs of both ends agree, a Send arrives
 * (srpt_login_live() checks both, for every login of the suite).
 */
void srpt_initiator_data_reaches_target(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_ctx ctx;
	struct srpt_ini *ini;
	unsigned int before;

	srpt_setup(&ctx, test, form->rdma_cm);
	ini = srpt_ini_create(&ctx, "initiator", 0x5151, 1);
	before = srpt_stat(test, "ius_received");
	srpt_login_live(test, ini, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);
	KUNIT_EXPECT_EQ(test, srpt_stat(test, "ius_received") - before, 1U);

	KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
}

/*
 * The target disconnects, and disconnects again before the initiator
 * answered its DREQ: the second finds the channel disconnecting.
 */
void srpt_target_disconnect_while_disconnecting(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_ctx ctx;
	struct srpt_ini *ini;
	u64 tag = 0x5201;

	srpt_setup(&ctx, test, form->rdma_cm);
	ini = srpt_ini_create(&ctx, "initiator", tag, 1);
	if (!ini->rdma_cm)
		ini->ib->hold_dreq = true;
	srpt_login_live(test, ini, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);

	KUNIT_ASSERT_EQ(test, srpt_ctl_disconnect(tag), 0);
	/* The initiator holds its DREP: nothing else can move the channel. */
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(tag), SRPT_CH_DISCONNECTING);
	KUNIT_EXPECT_EQ(test, srpt_ctl_disconnect(tag), -ENOTCONN);
	KUNIT_ASSERT_EQ(test, srpt_ini_answer_disconnect(ini), 0);
	/* DREP_RECEIVED closes, the release frees. */
	KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
	KUNIT_EXPECT_EQ(test, srpt_ctl_disconnect(tag), -ENOENT);
	srpt_expect_clean(&ctx, 1, 1);
}

/* The target disconnects again after the channel was released. */
void srpt_target_disconnect_after_release(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_ctx ctx;
	struct srpt_ini *ini;
	u64 tag = 0x5211;

	srpt_setup(&ctx, test, form->rdma_cm);
	ini = srpt_ini_create(&ctx, "initiator", tag, 1);
	if (!ini->rdma_cm)
		ini->ib->hold_dreq = true;
	srpt_login_live(test, ini, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);

	KUNIT_ASSERT_EQ(test, srpt_ctl_disconnect(tag), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_answer_disconnect(ini), 0);
	KUNIT_ASSERT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
	KUNIT_EXPECT_EQ(test, srpt_ctl_disconnect(tag), -ENOENT);
	srpt_expect_clean(&ctx, 1, 1);
}

void srpt_relogin_replaces_channel(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_ini *first, *second;
	struct srpt_ctx ctx;

	srpt_setup(&ctx, test, form->rdma_cm);
	first = srpt_ini_create(&ctx, "first", 0x5301, 7);
	second = srpt_ini_create(&ctx, "second", 0x5302, 7);
	srpt_login_live(test, first, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);

	/* Same initiator port id, single-channel login: the first goes. */
	srpt_login_live(test, second, CMKIT_SRP_LOGIN_RSP_MULTICHAN_TERMINATED);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_target_disconnect(first), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(first->req.tag, -ENOENT), 0);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(second->req.tag), SRPT_CH_LIVE);

	KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(second), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(second->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 2, 2);
}

/* ib_cm form only: an rdma_cm initiator cannot reject a REP. */
void srpt_initiator_rejects_rep(struct kunit *test)
{
	struct srpt_outcome o;
	struct srpt_ctx ctx;
	struct srpt_ini *ini;

	srpt_setup(&ctx, test, false);
	ini = srpt_ini_create(&ctx, "initiator", 0x5401, 1);
	ini->ib->reject_rep = true;
	KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
	KUNIT_EXPECT_EQ(test, srpt_req_ret(test, ini->req.tag, 1), 0);
	/* REJ_RECEIVED closes and releases the CONNECTING channel. */
	KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
}

/* ib_cm form only: rdma_cm initiators always answer a REP. */
void srpt_rep_timeout_releases_channel(struct kunit *test)
{
	struct srpt_ctx ctx;
	struct srpt_ini *ini;

	srpt_setup(&ctx, test, false);
	ini = srpt_ini_create(&ctx, "initiator", 0x5451, 1);
	ini->ib->ignore_rep = true;
	KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
	KUNIT_ASSERT_EQ(test, srpt_ibcm_wait(ini->ib, BIT(IB_CM_REP_RECEIVED)), 0);
	KUNIT_EXPECT_EQ(test, srpt_req_ret(test, ini->req.tag, 1), 0);
	/* No RTU: REP_ERROR closes and releases the CONNECTING channel. */
	KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
}

void srpt_bad_login_rejected(struct kunit *test)
{
	const struct srpt_bad_param *p = test->param_value;
	struct srpt_outcome o;
	struct srpt_ctx ctx;
	struct srpt_ini *ini;
	int len = -1;
	u64 tag;

	srpt_setup(&ctx, test, p->rdma_cm);
	ini = srpt_ini_create(&ctx, "initiator", 0x5500 + p->bad, 1);
	switch (p->bad) {
	case SRPT_BAD_OPCODE:
		ini->req.opcode = CMKIT_SRP_LOGIN_RSP;
		break;
	case SRPT_BAD_IU_SMALL:
		ini->req.it_iu_len = CMKIT_SRP_MIN_IT_IU_LEN - 1;
		break;
	case SRPT_BAD_IU_LARGE:
		ini->req.it_iu_len = cmkit_srpt_max_it_iu_len() + 1;
		break;
	case SRPT_BAD_BUF_FMT:
		ini->req.buf_fmt |= 0x0008;
		break;
	case SRPT_BAD_TPORT:
		ini->req.target_port_id[15] ^= 0x01;
		break;
	case SRPT_BAD_SHORT:
		/* Up to, not including, the target port id. */
		len = p->rdma_cm ? 32 : 48;
		break;
	case SRPT_BAD_NONE:
		len = 0;
		break;
	}
	tag = p->bad == SRPT_BAD_NONE ? 0 : ini->req.tag;

	KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, len), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
	KUNIT_EXPECT_EQ(test, srpt_req_ret(test, tag, 1), -EINVAL);
	srpt_expect_rejected(test, &o, tag, p->reason);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(tag), -ENOENT);
	srpt_expect_clean(&ctx, 0, 0);
}

/* ---- SIDR: no channel ever owns such an id ----------------------------- */

/*
 * A SIDR REQ to either of srpt's service ids: srpt runs RC channels only,
 * so the requester must get a SIDR REP that refuses, not silence.
 */
void srpt_sidr_req_refused(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct ib_cm_sidr_req_param param = { };
	struct rdma_route *route;
	struct srpt_sidr *s;
	struct srpt_ctx ctx;
	u64 sid;

	srpt_setup(&ctx, test, form->rdma_cm);
	route = &ctx.route->id->route;
	s = kunit_alloc_resource(test, srpt_sidr_init, srpt_sidr_free, GFP_KERNEL,
				 ctx.dev);
	KUNIT_ASSERT_NOT_NULL(test, s);
	sid = form->rdma_cm ? CMKIT_CMA_TCP_SERVICE_ID(cmkit_srpt_rdma_cm_port()) :
	      ctx.service_id;
	param.path = &route->path_rec[0];
	param.sgid_attr = route->addr.dev_addr.sgid_attr;
	param.service_id = cpu_to_be64(sid);
	/* Unanswered, the requester gives up after 3 s: SIDR_REQ_ERROR. */
	param.timeout_ms = 1000;
	param.max_cm_retries = 2;
	KUNIT_ASSERT_EQ(test, ib_send_cm_sidr_req(s->cm_id, &param), 0);
	KUNIT_ASSERT_NE(test, wait_for_completion_timeout(&s->done,
							  cmkit_test_timeout()), 0);
	KUNIT_EXPECT_EQ_MSG(test, s->event, IB_CM_SIDR_REP_RECEIVED,
			    "event %d: the SIDR REQ to %#llx was never answered",
			    s->event, sid);
	KUNIT_EXPECT_EQ(test, s->status, IB_SIDR_REJECT);
	srpt_expect_clean(&ctx, 0, 0);
}

/* ---- what the REP offers is what the QP gets --------------------------- */

/*
 * An initiator asking for 255 RDMA Reads and atomics each way gets what the
 * REP offers (at most 4, at most the device's limits), and the target's QP
 * is set to exactly that, not to the REQ's 255.
 */
void srpt_rd_atomic_clamped_to_rep(struct kunit *test)
{
	struct ib_qp_attr *t;
	struct srpt_ctx ctx;
	struct srpt_ini *ini;

	srpt_setup(&ctx, test, false);
	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	ini = srpt_ini_create(&ctx, "greedy initiator", 0x5471, 1);
	ini->ib->rd_atomic = 255;
	srpt_login_live(test, ini, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);

	KUNIT_EXPECT_GT(test, ini->ib->rep_resp, 0);
	KUNIT_EXPECT_LE(test, ini->ib->rep_resp, SRPT_TEST_MAX_RD_ATOMIC);
	KUNIT_EXPECT_LE(test, ini->ib->rep_depth, SRPT_TEST_MAX_RD_ATOMIC);
	KUNIT_ASSERT_EQ(test, cmkit_srpt_query_qp(ini->req.tag, t), 0);
	KUNIT_EXPECT_EQ_MSG(test, t->max_dest_rd_atomic, ini->ib->rep_resp,
			    "the REP offered %u responder resources, the QP has %u",
			    ini->ib->rep_resp, t->max_dest_rd_atomic);
	KUNIT_EXPECT_LE(test, t->max_dest_rd_atomic, ctx.dev->attrs.max_qp_rd_atom);
	KUNIT_EXPECT_EQ(test, t->max_rd_atomic, ini->ib->rep_depth);
	KUNIT_EXPECT_LE(test, t->max_rd_atomic, ctx.dev->attrs.max_qp_init_rd_atom);

	KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
}
