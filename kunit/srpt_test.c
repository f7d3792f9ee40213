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
 * Each case asserts what the handler returned, what the initiator saw (an
 * established connection whose REP carries a decodable SRP_LOGIN_RSP, or a
 * REJ carrying an SRP_LOGIN_REJ with the expected reason), the channel's
 * state, and at the end that every channel was freed and every channel's
 * cm_id destroyed exactly once, from cmkit.ko's counters.
 */
#include <linux/slab.h>
#include <kunit/resource.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_verbs.h>
#include <cmkit/srp.h>

#include "cmkit_test.h"
#include "srpt.h"

#define SRPT_TEST_IU_LEN	4096
#define SRPT_TEST_MAX_INI	64

/* ---- the listener form under test ------------------------------------ */

struct srpt_form {
	bool rdma_cm;
};

static const struct srpt_form srpt_forms[] = {
	{ .rdma_cm = true },
	{ .rdma_cm = false },
};

static void srpt_form_desc(const struct srpt_form *f, char *desc)
{
	strscpy(desc, f->rdma_cm ? "rdma_cm" : "ib_cm", KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(srpt_form, srpt_forms, srpt_form_desc);

/* ---- a raw IB CM initiator ------------------------------------------- */

/**
 * struct srpt_ibcm - an IB CM initiator with its own RC QP
 * @cm_id: the initiator's cm_id
 * @pd: protection domain of @qp
 * @cq: completion queue of @qp
 * @qp: the initiator's QP
 * @reject_rep: answer a REP with a REJ instead of an RTU
 * @ignore_rep: answer a REP with nothing, so the target's REP times out
 * @lock: protects the fields below
 * @wait: woken on every event
 * @seen: BIT(event) of every event seen
 * @rej_reason: the IB reject reason of a REJ
 * @ready_ret: moving the QP to RTS and sending the RTU after the REP
 * @pdata: the first bytes of the REP's or REJ's private data
 */
struct srpt_ibcm {
	struct ib_cm_id *cm_id;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;
	bool reject_rep;
	bool ignore_rep;
	spinlock_t lock;	/* the event record */
	wait_queue_head_t wait;
	u32 seen;
	int rej_reason;
	int ready_ret;
	u8 pdata[CMKIT_PEER_PDATA_MAX];
};

static int srpt_ibcm_qp_to(struct srpt_ibcm *ini, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(ini->cm_id, &attr, &mask);
	if (ret)
		return ret;
	return ib_modify_qp(ini->qp, &attr, mask);
}

static int srpt_ibcm_ready(struct srpt_ibcm *ini)
{
	int ret;

	ret = srpt_ibcm_qp_to(ini, IB_QPS_INIT);
	if (!ret)
		ret = srpt_ibcm_qp_to(ini, IB_QPS_RTR);
	if (!ret)
		ret = srpt_ibcm_qp_to(ini, IB_QPS_RTS);
	if (!ret)
		ret = ib_send_cm_rtu(ini->cm_id, NULL, 0);
	return ret;
}

static int srpt_ibcm_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	struct srpt_ibcm *ini = cm_id->context;
	const void *pdata = NULL;
	int ready = 0;

	switch (ev->event) {
	case IB_CM_REP_RECEIVED:
		pdata = ev->private_data;
		if (ini->reject_rep)
			ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				       NULL, 0);
		else if (!ini->ignore_rep)
			ready = srpt_ibcm_ready(ini);
		break;
	case IB_CM_REJ_RECEIVED:
		pdata = ev->private_data;
		break;
	case IB_CM_DREQ_RECEIVED:
		/* Answer so that the target's disconnect completes. */
		ib_send_cm_drep(cm_id, NULL, 0);
		break;
	default:
		break;
	}

	spin_lock(&ini->lock);
	if (pdata)
		memcpy(ini->pdata, pdata, sizeof(ini->pdata));
	if (ev->event == IB_CM_REJ_RECEIVED)
		ini->rej_reason = ev->param.rej_rcvd.reason;
	if (ev->event == IB_CM_REP_RECEIVED)
		ini->ready_ret = ready;
	ini->seen |= BIT(ev->event);
	spin_unlock(&ini->lock);
	pr_info("cmkit_test: ib_cm initiator %#x: event %d\n",
		be32_to_cpu(cm_id->local_id), ev->event);
	wake_up_all(&ini->wait);
	return 0;
}

/* Release everything now; the KUnit resource then only frees @ini. */
static void srpt_ibcm_destroy(struct srpt_ibcm *ini)
{
	if (ini->cm_id)
		ib_destroy_cm_id(ini->cm_id);
	if (ini->qp)
		ib_destroy_qp(ini->qp);
	if (ini->cq)
		ib_free_cq(ini->cq);
	if (ini->pd)
		ib_dealloc_pd(ini->pd);
	ini->cm_id = NULL;
	ini->qp = NULL;
	ini->cq = NULL;
	ini->pd = NULL;
}

static void srpt_ibcm_free(struct kunit_resource *res)
{
	struct srpt_ibcm *ini = res->data;

	srpt_ibcm_destroy(ini);
	kfree(ini);
}

static int srpt_ibcm_init(struct kunit_resource *res, void *context)
{
	struct ib_device *dev = context;
	struct ib_qp_init_attr attr;
	struct srpt_ibcm *ini;
	int ret;

	ini = kzalloc_obj(*ini, GFP_KERNEL);
	if (!ini)
		return -ENOMEM;
	spin_lock_init(&ini->lock);
	init_waitqueue_head(&ini->wait);

	ini->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(ini->pd)) {
		ret = PTR_ERR(ini->pd);
		ini->pd = NULL;
		goto fail;
	}
	ini->cq = ib_alloc_cq(dev, NULL, 8, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(ini->cq)) {
		ret = PTR_ERR(ini->cq);
		ini->cq = NULL;
		goto fail;
	}
	cmkit_test_qp_attr(&attr, ini->cq);
	ini->qp = ib_create_qp(ini->pd, &attr);
	if (IS_ERR(ini->qp)) {
		ret = PTR_ERR(ini->qp);
		ini->qp = NULL;
		goto fail;
	}
	ini->cm_id = ib_create_cm_id(dev, srpt_ibcm_handler, ini);
	if (IS_ERR(ini->cm_id)) {
		ret = PTR_ERR(ini->cm_id);
		ini->cm_id = NULL;
		goto fail;
	}
	res->data = ini;
	return 0;

fail:
	srpt_ibcm_destroy(ini);
	kfree(ini);
	return ret;
}

static bool srpt_ibcm_seen(struct srpt_ibcm *ini, u32 mask)
{
	bool seen;

	spin_lock(&ini->lock);
	seen = ini->seen & mask;
	spin_unlock(&ini->lock);
	return seen;
}

static int srpt_ibcm_wait(struct srpt_ibcm *ini, u32 mask)
{
	if (!wait_event_timeout(ini->wait, srpt_ibcm_seen(ini, mask),
				cmkit_test_timeout()))
		return -ETIMEDOUT;
	return 0;
}

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
 * @base: cmkit.ko's counters when the case began
 */
struct srpt_ctx {
	struct kunit *test;
	bool rdma_cm;
	struct cmkit_peer *route;
	struct sockaddr_in addr;
	u64 service_id;
	u8 tport[CMKIT_SRP_PORT_ID_LEN];
	struct srpt_counters base;
};

/**
 * struct srpt_ini - an initiator of either form
 * @ctx: the case
 * @rdma_cm: which form
 * @peer: the rdma_cm form's initiator
 * @ib: the ib_cm form's initiator
 * @req: the login it sends
 */
struct srpt_ini {
	struct srpt_ctx *ctx;
	bool rdma_cm;
	struct cmkit_peer *peer;
	struct srpt_ibcm *ib;
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

static bool srpt_quiescent(void)
{
	struct srpt_counters c;

	cmkit_srpt_counters(&c);
	return c.ch_alloc == c.ch_freed;
}

static int srpt_wait_quiescent(void)
{
	if (!wait_event_timeout(cmkit_srpt_wait, srpt_quiescent(),
				cmkit_test_timeout()))
		return -ETIMEDOUT;
	return 0;
}

static void srpt_setup(struct srpt_ctx *ctx, struct kunit *test, bool rdma_cm)
{
	const struct cmkit_dev_param *rxe = &cmkit_dev_params[CMKIT_RXE];

	memset(ctx, 0, sizeof(*ctx));
	ctx->test = test;
	ctx->rdma_cm = rdma_cm;
	cmkit_test_require_device(test, rxe);
	/* Nothing left over from an earlier case. */
	KUNIT_ASSERT_EQ(test, srpt_wait_quiescent(), 0);
	cmkit_srpt_test_reset();
	cmkit_srpt_counters(&ctx->base);

	cmkit_test_addr(rxe, cmkit_srpt_rdma_cm_port(), &ctx->addr);
	ctx->route = cmkit_peer_create(test, "route");
	KUNIT_ASSERT_EQ(test, cmkit_peer_resolve(ctx->route, &ctx->addr), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srpt_target(ctx->route->id->device,
						&ctx->service_id, ctx->tport), 0);
}

/* A valid login: tag @tag, initiator port id number @port. */
static void srpt_login(struct srpt_ctx *ctx, struct cmkit_srp_login_req *req,
		       u64 tag, u16 port)
{
	memset(req, 0, sizeof(*req));
	req->opcode = CMKIT_SRP_LOGIN_REQ;
	req->tag = tag;
	req->it_iu_len = SRPT_TEST_IU_LEN;
	req->buf_fmt = CMKIT_SRP_BUF_FORMAT_ALL;
	req->flags = CMKIT_SRP_MULTICHAN_SINGLE;
	/* "cmkit-ini" and a number: one initiator port per number. */
	memcpy(req->initiator_port_id, "cmkit-ini", 9);
	req->initiator_port_id[14] = port >> 8;
	req->initiator_port_id[15] = port & 0xff;
	memcpy(req->target_port_id, ctx->tport, CMKIT_SRP_PORT_ID_LEN);
}

static struct srpt_ini *srpt_ini_create(struct srpt_ctx *ctx, const char *name,
					u64 tag, u16 port)
{
	struct kunit *test = ctx->test;
	struct srpt_ini *ini;

	ini = kunit_kzalloc(test, sizeof(*ini), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ini);
	ini->ctx = ctx;
	ini->rdma_cm = ctx->rdma_cm;
	srpt_login(ctx, &ini->req, tag, port);
	if (ini->rdma_cm) {
		ini->peer = cmkit_peer_create(test, name);
		KUNIT_ASSERT_EQ(test, cmkit_peer_resolve(ini->peer, &ctx->addr), 0);
	} else {
		ini->ib = kunit_alloc_resource(test, srpt_ibcm_init,
					       srpt_ibcm_free, GFP_KERNEL,
					       ctx->route->id->device);
		KUNIT_ASSERT_NOT_NULL(test, ini->ib);
	}
	return ini;
}

/*
 * Send the login; @len < 0 sends all of it, else only its first @len bytes
 * (IB pads the rest of the REQ private data with zeros).
 */
static int srpt_ini_connect(struct srpt_ini *ini, int len)
{
	struct rdma_route *route = &ini->ctx->route->id->route;
	u8 buf[CMKIT_SRP_LOGIN_REQ_LEN];
	struct ib_cm_req_param param = { };
	int full;

	if (ini->rdma_cm) {
		cmkit_srp_encode_login_req_rdma(buf, &ini->req);
		full = CMKIT_SRP_LOGIN_REQ_RDMA_LEN;
	} else {
		cmkit_srp_encode_login_req(buf, &ini->req);
		full = CMKIT_SRP_LOGIN_REQ_LEN;
	}
	if (len < 0 || len > full)
		len = full;
	if (ini->rdma_cm)
		return cmkit_peer_connect(ini->peer, len ? buf : NULL, len);

	param.primary_path = &route->path_rec[0];
	param.primary_path_inbound = route->path_rec_inbound;
	param.primary_path_outbound = route->path_rec_outbound;
	param.ppath_sgid_attr = route->addr.dev_addr.sgid_attr;
	param.service_id = cpu_to_be64(ini->ctx->service_id);
	param.qp_num = ini->ib->qp->qp_num;
	param.qp_type = IB_QPT_RC;
	param.starting_psn = ini->ib->qp->qp_num & 0xffffff;
	param.private_data = len ? buf : NULL;
	param.private_data_len = len;
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.remote_cm_response_timeout = 18;
	/* How long the target waits for our RTU: 1 ms, once, if ignoring. */
	param.local_cm_response_timeout = ini->ib->ignore_rep ? 8 : 18;
	param.flow_control = 1;
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	param.max_cm_retries = ini->ib->ignore_rep ? 1 : 15;
	return ib_send_cm_req(ini->ib->cm_id, &param);
}

static int srpt_ini_wait_outcome(struct srpt_ini *ini, struct srpt_outcome *o)
{
	struct cmkit_cm_record r;
	int ret;

	memset(o, 0, sizeof(*o));
	if (ini->rdma_cm) {
		ret = cmkit_peer_wait_any(ini->peer, BIT(RDMA_CM_EVENT_ESTABLISHED) |
					  CMKIT_ERROR_EVENTS, &r);
		if (ret)
			return ret;
		o->accepted = r.event == RDMA_CM_EVENT_ESTABLISHED;
		o->rejected = r.event == RDMA_CM_EVENT_REJECTED;
		o->ib_reason = o->rejected ? r.status : 0;
		memcpy(o->pdata, r.pdata, min_t(u8, r.pdata_len, sizeof(o->pdata)));
		return 0;
	}
	ret = srpt_ibcm_wait(ini->ib, BIT(IB_CM_REP_RECEIVED) |
			     BIT(IB_CM_REJ_RECEIVED) | BIT(IB_CM_REQ_ERROR));
	if (ret)
		return ret;
	spin_lock(&ini->ib->lock);
	o->accepted = (ini->ib->seen & BIT(IB_CM_REP_RECEIVED)) &&
		      !ini->ib->ready_ret && !ini->ib->reject_rep &&
		      !ini->ib->ignore_rep;
	o->rejected = ini->ib->seen & BIT(IB_CM_REJ_RECEIVED);
	o->ib_reason = ini->ib->rej_reason;
	memcpy(o->pdata, ini->ib->pdata, sizeof(o->pdata));
	spin_unlock(&ini->ib->lock);
	return 0;
}

/* The initiator disconnects and waits until the target answered. */
static int srpt_ini_disconnect(struct srpt_ini *ini)
{
	struct cmkit_cm_record r;
	int ret;

	if (ini->rdma_cm) {
		ret = rdma_disconnect(ini->peer->id);
		return ret ?: cmkit_peer_wait(ini->peer, RDMA_CM_EVENT_DISCONNECTED, &r);
	}
	ret = ib_send_cm_dreq(ini->ib->cm_id, NULL, 0);
	return ret ?: srpt_ibcm_wait(ini->ib, BIT(IB_CM_DREP_RECEIVED));
}

/* Wait for the target's DREQ and answer it. */
static int srpt_ini_wait_target_disconnect(struct srpt_ini *ini)
{
	struct cmkit_cm_record r;
	int ret;

	if (ini->rdma_cm) {
		ret = cmkit_peer_wait(ini->peer, RDMA_CM_EVENT_DISCONNECTED, &r);
		/* rdma_cm leaves the DREP to the consumer. */
		return ret ?: rdma_disconnect(ini->peer->id);
	}
	/* The handler sent the DREP. */
	return srpt_ibcm_wait(ini->ib, BIT(IB_CM_DREQ_RECEIVED));
}

static int srpt_wait_state(u64 tag, int state)
{
	if (!wait_event_timeout(cmkit_srpt_wait, cmkit_srpt_ch_state(tag) == state,
				cmkit_test_timeout()))
		return -ETIMEDOUT;
	return 0;
}

static bool srpt_has_results(u64 tag, unsigned int n)
{
	int ret[4];

	return cmkit_srpt_req_results(tag, ret, ARRAY_SIZE(ret)) >= n;
}

/* What the handler returned for the @n-th REQ with @tag (from 1). */
static int srpt_req_ret(struct kunit *test, u64 tag, unsigned int n)
{
	int ret[4];

	KUNIT_ASSERT_LE(test, n, ARRAY_SIZE(ret));
	KUNIT_ASSERT_NE_MSG(test, wait_event_timeout(cmkit_srpt_wait,
						     srpt_has_results(tag, n),
						     cmkit_test_timeout()), 0,
			    "no REQ result for tag %#llx", tag);
	cmkit_srpt_req_results(tag, ret, ARRAY_SIZE(ret));
	return ret[n - 1];
}

static void srpt_expect_accepted(struct kunit *test, const struct srpt_outcome *o,
				 const struct cmkit_srp_login_req *req)
{
	struct cmkit_srp_login_rsp rsp;

	KUNIT_ASSERT_TRUE(test, o->accepted);
	KUNIT_ASSERT_EQ(test, cmkit_srp_decode_login_rsp(o->pdata, sizeof(o->pdata),
							 &rsp), 1);
	KUNIT_EXPECT_EQ(test, (u64)rsp.tag, (u64)req->tag);
	KUNIT_EXPECT_EQ(test, rsp.max_ti_iu_len, req->it_iu_len);
	KUNIT_EXPECT_EQ(test, rsp.max_it_iu_len, cmkit_srpt_max_it_iu_len());
	KUNIT_EXPECT_GT(test, rsp.req_lim_delta, 0U);
	KUNIT_EXPECT_EQ(test, rsp.buf_fmt, CMKIT_SRP_BUF_FORMAT_ALL);
}

static void srpt_expect_rejected(struct kunit *test, const struct srpt_outcome *o,
				 u64 tag, u32 reason)
{
	struct cmkit_srp_login_rej rej;

	KUNIT_ASSERT_TRUE(test, o->rejected);
	KUNIT_EXPECT_EQ(test, o->ib_reason, IB_CM_REJ_CONSUMER_DEFINED);
	KUNIT_ASSERT_EQ(test, cmkit_srp_decode_login_rej(o->pdata, sizeof(o->pdata),
							 &rej), 1);
	KUNIT_EXPECT_EQ(test, (u64)rej.tag, tag);
	KUNIT_EXPECT_EQ(test, rej.reason, reason);
}

/*
 * At the end of a case: every channel freed, each handed-over cm_id
 * destroyed once by its channel's release, and exactly @channels channels
 * allocated, @handed_over of which took over their cm_id.
 */
static void srpt_expect_clean(struct srpt_ctx *ctx, unsigned int channels,
			      unsigned int handed_over)
{
	struct kunit *test = ctx->test;
	struct srpt_counters c;

	KUNIT_EXPECT_EQ(test, srpt_wait_quiescent(), 0);
	cmkit_srpt_counters(&c);
	KUNIT_EXPECT_EQ(test, c.ch_alloc - ctx->base.ch_alloc, channels);
	KUNIT_EXPECT_EQ(test, c.ch_freed - ctx->base.ch_freed, channels);
	KUNIT_EXPECT_EQ(test, c.ch_handed_over - ctx->base.ch_handed_over,
			handed_over);
	KUNIT_EXPECT_EQ(test, c.cm_id_destroyed - ctx->base.cm_id_destroyed,
			handed_over);
	KUNIT_EXPECT_EQ(test, c.release_twice, 0U);
}

/* Log in with @ini and expect the channel to go LIVE. */
static void srpt_login_live(struct kunit *test, struct srpt_ini *ini,
			    u8 rsp_flags)
{
	struct cmkit_srp_login_rsp rsp;
	struct srpt_outcome o;

	KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
	KUNIT_EXPECT_EQ(test, srpt_req_ret(test, ini->req.tag, 1), 0);
	srpt_expect_accepted(test, &o, &ini->req);
	cmkit_srp_decode_login_rsp(o.pdata, sizeof(o.pdata), &rsp);
	KUNIT_EXPECT_EQ(test, rsp.flags, rsp_flags);
	KUNIT_ASSERT_EQ(test, srpt_wait_state(ini->req.tag, SRPT_CH_LIVE), 0);
}

/* ---- the cases --------------------------------------------------------- */

static void srpt_valid_login_then_initiator_disconnects(struct kunit *test)
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

static void srpt_target_disconnects(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_ctx ctx;
	struct srpt_ini *ini;
	int state, ret;

	srpt_setup(&ctx, test, form->rdma_cm);
	ini = srpt_ini_create(&ctx, "initiator", 0x5201, 1);
	srpt_login_live(test, ini, CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN);

	KUNIT_ASSERT_EQ(test, cmkit_srpt_disconnect(ini->req.tag), 0);
	/* The ib_cm initiator's DREP may have released it already. */
	state = cmkit_srpt_ch_state(ini->req.tag);
	KUNIT_EXPECT_TRUE_MSG(test, state >= SRPT_CH_DISCONNECTING ||
			      state == -ENOENT, "state %d", state);
	/* A second disconnect finds it disconnecting, or gone. */
	ret = cmkit_srpt_disconnect(ini->req.tag);
	KUNIT_EXPECT_TRUE_MSG(test, ret == -ENOTCONN || ret == -ENOENT,
			      "second disconnect: %d", ret);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_target_disconnect(ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
}

static void srpt_relogin_replaces_channel(struct kunit *test)
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
static void srpt_initiator_rejects_rep(struct kunit *test)
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
static void srpt_rep_timeout_releases_channel(struct kunit *test)
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

static void srpt_bad_desc(const struct srpt_bad_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s",
		 p->rdma_cm ? "rdma_cm" : "ib_cm", p->what);
}

KUNIT_ARRAY_PARAM(srpt_bad, srpt_bad_params, srpt_bad_desc);

static void srpt_bad_login_rejected(struct kunit *test)
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

/* ---- failure injection ------------------------------------------------- */

struct srpt_fault_param {
	bool rdma_cm;
	enum srpt_fault fault;
	const char *what;
};

static const struct srpt_fault_param srpt_fault_params[] = {
	{ true, SRPT_FAULT_CH_ALLOC, "channel allocation" },
	{ false, SRPT_FAULT_CH_ALLOC, "channel allocation" },
	{ true, SRPT_FAULT_QP_CREATE, "QP creation" },
	{ false, SRPT_FAULT_QP_CREATE, "QP creation" },
	{ true, SRPT_FAULT_QP_RTR, "QP to RTR" },
	{ false, SRPT_FAULT_QP_RTR, "QP to RTR" },
	{ true, SRPT_FAULT_REP_SEND, "REP send" },
	{ false, SRPT_FAULT_REP_SEND, "REP send" },
};

static void srpt_fault_desc(const struct srpt_fault_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s",
		 p->rdma_cm ? "rdma_cm" : "ib_cm", p->what);
}

KUNIT_ARRAY_PARAM(srpt_fault, srpt_fault_params, srpt_fault_desc);

static void srpt_failure_injected(struct kunit *test)
{
	const struct srpt_fault_param *p = test->param_value;
	struct srpt_counters c;
	struct srpt_outcome o;
	struct srpt_ctx ctx;
	struct srpt_ini *ini;

	srpt_setup(&ctx, test, p->rdma_cm);
	ini = srpt_ini_create(&ctx, "initiator", 0x5600 + p->fault, 1);
	/* The first REQ to reach the step fails there, once. */
	cmkit_fault_arm(&srpt_fault_points, BIT(p->fault), 1);
	KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);

	switch (p->fault) {
	case SRPT_FAULT_CH_ALLOC:
		/*
		 * -ENOMEM before the hand-over: ib_cm sends no REJ, so the
		 * initiator retries its REQ, and the retry is accepted.
		 */
		KUNIT_EXPECT_EQ(test, srpt_req_ret(test, ini->req.tag, 1), -ENOMEM);
		KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
		KUNIT_EXPECT_EQ(test, srpt_req_ret(test, ini->req.tag, 2), 0);
		srpt_expect_accepted(test, &o, &ini->req);
		KUNIT_ASSERT_EQ(test, srpt_wait_state(ini->req.tag, SRPT_CH_LIVE), 0);
		KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(ini), 0);
		KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);
		srpt_expect_clean(&ctx, 1, 1);
		break;
	case SRPT_FAULT_QP_CREATE:
		/* Before the hand-over: REJ, non-zero, ib_cm destroys the id. */
		KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
		KUNIT_EXPECT_EQ(test, srpt_req_ret(test, ini->req.tag, 1),
				-ECONNREFUSED);
		srpt_expect_rejected(test, &o, ini->req.tag,
				     CMKIT_SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
		srpt_expect_clean(&ctx, 1, 0);
		break;
	case SRPT_FAULT_QP_RTR:
	case SRPT_FAULT_REP_SEND:
	default:
		/* After the hand-over: REJ, close, 0; the release destroys. */
		KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(ini, &o), 0);
		KUNIT_EXPECT_EQ(test, srpt_req_ret(test, ini->req.tag, 1), 0);
		srpt_expect_rejected(test, &o, ini->req.tag,
				     CMKIT_SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
		KUNIT_EXPECT_EQ(test, srpt_wait_state(ini->req.tag, -ENOENT), 0);
		srpt_expect_clean(&ctx, 1, 1);
		break;
	}
	cmkit_srpt_counters(&c);
	KUNIT_EXPECT_EQ(test, c.faults_fired - ctx.base.faults_fired, 1U);
}

/* ---- 64 concurrent logins ---------------------------------------------- */

static void srpt_concurrent_logins(struct kunit *test)
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

static void srpt_unload_with_live_channels(struct kunit *test)
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

static void srpt_device_removal_with_live_channels(struct kunit *test)
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

static struct kunit_case srpt_cases[] = {
	KUNIT_CASE_PARAM(srpt_valid_login_then_initiator_disconnects,
			 srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_target_disconnects, srpt_form_gen_params),
	KUNIT_CASE_PARAM(srpt_relogin_replaces_channel, srpt_form_gen_params),
	KUNIT_CASE(srpt_initiator_rejects_rep),
	KUNIT_CASE(srpt_rep_timeout_releases_channel),
	KUNIT_CASE_PARAM(srpt_bad_login_rejected, srpt_bad_gen_params),
	KUNIT_CASE_PARAM(srpt_failure_injected, srpt_fault_gen_params),
	KUNIT_CASE_PARAM(srpt_concurrent_logins, srpt_form_gen_params),
	KUNIT_CASE(srpt_unload_with_live_channels),
	/* Last: rxe0 is gone until the next suite re-creates it. */
	KUNIT_CASE(srpt_device_removal_with_live_channels),
	{}
};

/* No fault a case armed outlives it, whether or not it fired. */
static void srpt_case_exit(struct kunit *test)
{
	cmkit_fault_disarm(&srpt_fault_points);
}

struct kunit_suite cmkit_srpt_suite = {
	.name = "cmkit_srpt",
	.exit = srpt_case_exit,
	.test_cases = srpt_cases,
};
