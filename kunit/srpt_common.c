// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_srpt: what the cmkit_srpt cases share: hooks, a thread of the case's own, a raw
 * IB CM initiator, a relay, a SIDR requester, the case context, logins,
 * the SRP I/O initiator's helpers (declared in srpt_test.h).
 */
#include "srpt_test.h"

#define SRPT_TEST_IU_LEN	4096

/* Not on a case's stack: a hook still waiting when its case ends finds it alive. */
struct srpt_hooks srpt_hk = {
	.lock = __SPIN_LOCK_UNLOCKED(srpt_hk.lock),
	.rx_wait = __WAIT_QUEUE_HEAD_INITIALIZER(srpt_hk.rx_wait),
};

static bool srpt_stop_matches(const struct srpt_stop *stop, enum cmkit_srpt_hook hook,
			      u64 tag, const void *data, u32 len)
{
	u64 cmd_tag;

	if (!stop->armed || stop->hook != hook || stop->tag != tag)
		return false;
	if (!stop->by_cmd)
		return true;
	if (!data || len != sizeof(cmd_tag))
		return false;
	memcpy(&cmd_tag, data, sizeof(cmd_tag));
	return cmd_tag == stop->cmd_tag;
}

void srpt_test_hook(enum cmkit_srpt_hook hook, u64 tag, const void *data, u32 len)
{
	struct srpt_stop *stop = NULL;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&srpt_hk.lock, flags);
	if (hook == SRPT_HOOK_RECV && tag == srpt_hk.rx_tag) {
		srpt_hk.rx_len = len;
		memcpy(srpt_hk.rx_buf, data, min_t(u32, len, sizeof(srpt_hk.rx_buf)));
		srpt_hk.rx_nr++;
	}
	if (tag == srpt_hk.rx_tag && hook < SRPT_NR_HOOKS)
		srpt_hk.hits[hook]++;
	for (i = 0; i < SRPT_NR_STOPS; i++) {
		if (srpt_stop_matches(&srpt_hk.stop[i], hook, tag, data, len)) {
			stop = &srpt_hk.stop[i];
			stop->armed = false;
			break;
		}
	}
	spin_unlock_irqrestore(&srpt_hk.lock, flags);
	if (tag == srpt_hk.rx_tag)
		wake_up_all(&srpt_hk.rx_wait);
	if (!stop)
		return;
	if (stop->act)
		stop->act(stop->arg);
	complete(&stop->reached);
	if (stop->hold && !wait_for_completion_timeout(&stop->go, cmkit_test_timeout()))
		pr_err("cmkit_test: srpt stopped at hook %d of tag %#llx: never let go\n",
		       hook, tag);
}

/* Arm stop @i: srpt signals (and with @hold waits) at @hook for @tag. */
struct srpt_stop *srpt_stop_arm(int i, enum cmkit_srpt_hook hook, u64 tag, bool hold)
{
	struct srpt_stop *stop = &srpt_hk.stop[i];
	unsigned long flags;

	spin_lock_irqsave(&srpt_hk.lock, flags);
	stop->hook = hook;
	stop->tag = tag;
	stop->hold = hold;
	stop->by_cmd = false;
	stop->act = NULL;
	init_completion(&stop->reached);
	init_completion(&stop->go);
	stop->armed = true;
	spin_unlock_irqrestore(&srpt_hk.lock, flags);
	return stop;
}

/*
 * Arm stop @i at a data path point (which runs in the channel's CQ work and
 * must not block) of channel @tag, for the command of SRP tag @cmd_tag
 * only: it signals, and runs @act(@arg) there if @act is set.
 */
struct srpt_stop *srpt_stop_arm_cmd(int i, enum cmkit_srpt_hook hook, u64 tag,
				    u64 cmd_tag, void (*act)(void *),
				    void *arg)
{
	struct srpt_stop *stop = &srpt_hk.stop[i];
	unsigned long flags;

	spin_lock_irqsave(&srpt_hk.lock, flags);
	stop->hook = hook;
	stop->tag = tag;
	stop->hold = false;
	stop->by_cmd = true;
	stop->cmd_tag = cmd_tag;
	stop->act = act;
	stop->arg = arg;
	init_completion(&stop->reached);
	init_completion(&stop->go);
	stop->armed = true;
	spin_unlock_irqrestore(&srpt_hk.lock, flags);
	return stop;
}

/* How often @hook fired for the channel srpt_rx_watch() watches. */
unsigned int srpt_hook_hits(enum cmkit_srpt_hook hook)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&srpt_hk.lock, flags);
	n = srpt_hk.hits[hook];
	spin_unlock_irqrestore(&srpt_hk.lock, flags);
	return n;
}

/* Wait until @hook fired @n times for the watched channel. */
int srpt_hook_wait_hits(enum cmkit_srpt_hook hook, unsigned int n)
{
	if (!wait_event_timeout(srpt_hk.rx_wait, srpt_hook_hits(hook) >= n,
				cmkit_test_timeout()))
		return -ETIMEDOUT;
	return 0;
}

int srpt_stop_wait(struct srpt_stop *stop)
{
	return wait_for_completion_timeout(&stop->reached, cmkit_test_timeout()) ?
	       0 : -ETIMEDOUT;
}

void srpt_stop_go(struct srpt_stop *stop)
{
	complete_all(&stop->go);
}

/* Disarm every stop and let go whatever still waits at one. */
void srpt_stops_reset(void)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&srpt_hk.lock, flags);
	for (i = 0; i < SRPT_NR_STOPS; i++) {
		srpt_hk.stop[i].armed = false;
		complete_all(&srpt_hk.stop[i].go);
	}
	srpt_hk.rx_tag = 0;
	srpt_hk.rx_nr = 0;
	memset(srpt_hk.hits, 0, sizeof(srpt_hk.hits));
	spin_unlock_irqrestore(&srpt_hk.lock, flags);
}

/* Record the IUs the channel of @tag receives from now on. */
void srpt_rx_watch(u64 tag)
{
	unsigned long flags;

	spin_lock_irqsave(&srpt_hk.lock, flags);
	srpt_hk.rx_tag = tag;
	srpt_hk.rx_nr = 0;
	srpt_hk.rx_len = 0;
	memset(srpt_hk.hits, 0, sizeof(srpt_hk.hits));
	spin_unlock_irqrestore(&srpt_hk.lock, flags);
}

static unsigned int srpt_rx_count(void)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&srpt_hk.lock, flags);
	n = srpt_hk.rx_nr;
	spin_unlock_irqrestore(&srpt_hk.lock, flags);
	return n;
}

/*
 * Let what RCU-deferred frees are pending happen now (ib_cm frees a
 * destroyed cm_id with kfree_rcu()), so that a use of freed memory the
 * case provokes next is one KASAN sees.  kvfree_rcu_barrier() is exported
 * only by some kernels (6.12); elsewhere rcu_barrier() does what it can.
 */
void srpt_wait_rcu_frees(void)
{
	typeof(rcu_barrier) *barrier = __symbol_get("kvfree_rcu_barrier");

	if (barrier) {
		barrier();
		symbol_put_addr(barrier);
	} else {
		rcu_barrier();
	}
}

static void srpt_bg_work(struct work_struct *work)
{
	struct srpt_bg *bg = container_of(work, struct srpt_bg, work);

	bg->ret = bg->fn(bg->arg);
	complete(&bg->done);
}

int srpt_bg_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void srpt_bg_res_free(struct kunit_resource *res)
{
	struct srpt_bg *bg = res->data;

	/* Let a hook the thread waits at go, then wait for the thread. */
	srpt_stops_reset();
	flush_work(&bg->work);
	kfree(bg);
}

/* Run @fn(@arg) on a work item; the case waits with srpt_bg_wait(). */
struct srpt_bg *srpt_bg_start(struct kunit *test, int (*fn)(void *), void *arg)
{
	struct srpt_bg *bg;

	bg = kzalloc_obj(*bg, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, bg);
	INIT_WORK(&bg->work, srpt_bg_work);
	init_completion(&bg->done);
	bg->fn = fn;
	bg->arg = arg;
	if (!kunit_alloc_resource(test, srpt_bg_res_init, srpt_bg_res_free,
				  GFP_KERNEL, bg)) {
		kfree(bg);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for a background thread");
	}
	queue_work(system_unbound_wq, &bg->work);
	return bg;
}

int srpt_bg_wait(struct srpt_bg *bg, int *ret)
{
	if (!wait_for_completion_timeout(&bg->done, cmkit_test_timeout()))
		return -ETIMEDOUT;
	*ret = bg->ret;
	return 0;
}

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
		else if (!ini->ignore_rep && !ini->hold_rep)
			ready = srpt_ibcm_ready(ini);
		break;
	case IB_CM_REJ_RECEIVED:
		pdata = ev->private_data;
		break;
	case IB_CM_DREQ_RECEIVED:
		/* Answer so that the target's disconnect completes. */
		if (!ini->hold_dreq)
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
	if (ev->event == IB_CM_REP_RECEIVED) {
		ini->ready_ret = ready;
		ini->rep_resp = ev->param.rep_rcvd.responder_resources;
		ini->rep_depth = ev->param.rep_rcvd.initiator_depth;
	}
	ini->seen |= BIT(ev->event);
	spin_unlock(&ini->lock);
	pr_info("cmkit_test: ib_cm initiator %#x: event %d\n",
		be32_to_cpu(cm_id->local_id), ev->event);
	wake_up_all(&ini->wait);
	return 0;
}

/* Release everything now; the KUnit resource then only frees @ini. */
void srpt_ibcm_destroy(struct srpt_ibcm *ini)
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
	ini->rd_atomic = 1;

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

int srpt_ibcm_wait(struct srpt_ibcm *ini, u32 mask)
{
	if (!wait_event_timeout(ini->wait, srpt_ibcm_seen(ini, mask),
				cmkit_test_timeout()))
		return -ETIMEDOUT;
	return 0;
}

/* ---- one Send from an initiator's QP --------------------------------- */

/* Send @len bytes of @data on @qp and wait for the Send's completion. */
static int srpt_qp_send(struct ib_qp *qp, struct ib_pd *pd, const void *data,
			u32 len, enum ib_wc_status *status)
{
	struct ib_send_wr wr = { .opcode = IB_WR_SEND };

	return cmkit_test_post_wait(qp, pd->local_dma_lkey, &wr, data, len, status);
}

static int srpt_relay_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	struct srpt_relay *r = cm_id->context;
	bool busy;

	if (ev->event != IB_CM_REQ_RECEIVED) {
		pr_warn("cmkit_test: relay: unexpected event %d\n", ev->event);
		return 0;
	}
	spin_lock(&r->lock);
	busy = r->cm_id;
	if (!busy) {
		r->ev = *ev;
		r->path = *ev->param.req_rcvd.primary_path;
		r->ev.param.req_rcvd.primary_path = &r->path;
		r->ev.param.req_rcvd.alternate_path = NULL;
		memcpy(r->pdata, ev->private_data, sizeof(r->pdata));
		r->ev.private_data = r->pdata;
		r->cm_id = cm_id;
	}
	spin_unlock(&r->lock);
	if (busy)
		return -EBUSY;	/* one REQ at a time: ib_cm rejects this one */
	complete(&r->req);
	return 0;
}

static void srpt_relay_free(struct kunit_resource *res)
{
	struct srpt_relay *r = res->data;

	if (r->cm_id)
		ib_destroy_cm_id(r->cm_id);
	if (r->listen)
		ib_destroy_cm_id(r->listen);
	kfree(r);
}

static int srpt_relay_init(struct kunit_resource *res, void *context)
{
	struct ib_device *dev = context;
	struct srpt_relay *r;
	int ret;

	r = kzalloc_obj(*r, GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	spin_lock_init(&r->lock);
	init_completion(&r->req);
	/* "CMKIT", and a port of its own for each relay. */
	r->service_id = 0x434d4b4954000000ULL | cmkit_test_port();
	r->listen = ib_create_cm_id(dev, srpt_relay_handler, r);
	if (IS_ERR(r->listen)) {
		ret = PTR_ERR(r->listen);
		kfree(r);
		return ret;
	}
	ret = ib_cm_listen(r->listen, cpu_to_be64(r->service_id));
	if (ret) {
		ib_destroy_cm_id(r->listen);
		kfree(r);
		return ret;
	}
	res->data = r;
	return 0;
}

struct srpt_relay *srpt_relay_create(struct kunit *test, struct ib_device *dev)
{
	struct srpt_relay *r;

	r = kunit_alloc_resource(test, srpt_relay_init, srpt_relay_free,
				 GFP_KERNEL, dev);
	KUNIT_ASSERT_NOT_NULL(test, r);
	return r;
}

int srpt_relay_wait(struct srpt_relay *r)
{
	return wait_for_completion_timeout(&r->req, cmkit_test_timeout()) ?
	       0 : -ETIMEDOUT;
}

/*
 * Deliver the REQ the relay holds to srpt_cm_handler() from this thread,
 * with the cm_id the REQ came on, as ib_cm does for srpt's own listeners:
 * the handler's context is srpt's, and a non-zero return destroys the id.
 * The id then belongs to srpt (or is gone) and the relay may take another.
 */
int srpt_relay_deliver(struct srpt_relay *r, struct ib_device *dev)
{
	struct ib_cm_id *cm_id;
	int ret;

	spin_lock(&r->lock);
	cm_id = r->cm_id;
	spin_unlock(&r->lock);
	if (!cm_id)
		return -ENOENT;
	reinit_completion(&r->req);
	cm_id->context = cmkit_srpt_listen_context(dev);
	cm_id->cm_handler = srpt_cm_handler;
	ret = srpt_cm_handler(cm_id, &r->ev);
	if (ret)
		ib_destroy_cm_id(cm_id);
	spin_lock(&r->lock);
	r->cm_id = NULL;
	spin_unlock(&r->lock);
	return ret;
}

static int srpt_sidr_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	struct srpt_sidr *s = cm_id->context;

	if (ev->event == IB_CM_SIDR_REP_RECEIVED)
		s->status = ev->param.sidr_rep_rcvd.status;
	s->event = ev->event;
	pr_info("cmkit_test: SIDR requester: event %d status %d\n", ev->event,
		s->status);
	complete(&s->done);
	return 0;
}

void srpt_sidr_free(struct kunit_resource *res)
{
	struct srpt_sidr *s = res->data;

	ib_destroy_cm_id(s->cm_id);
	kfree(s);
}

int srpt_sidr_init(struct kunit_resource *res, void *context)
{
	struct srpt_sidr *s;

	s = kzalloc_obj(*s, GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	init_completion(&s->done);
	s->event = -1;
	s->cm_id = ib_create_cm_id(context, srpt_sidr_handler, s);
	if (IS_ERR(s->cm_id)) {
		int ret = PTR_ERR(s->cm_id);

		kfree(s);
		return ret;
	}
	res->data = s;
	return 0;
}

static bool srpt_quiescent(void)
{
	struct srpt_counters c;

	cmkit_srpt_counters(&c);
	return c.ch_alloc == c.ch_freed;
}

int srpt_wait_quiescent(void)
{
	if (!wait_event_timeout(cmkit_srpt_wait, srpt_quiescent(),
				cmkit_test_timeout()))
		return -ETIMEDOUT;
	return 0;
}

void srpt_setup(struct srpt_ctx *ctx, struct kunit *test, bool rdma_cm)
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
	ctx->dev = ctx->route->id->device;
	KUNIT_ASSERT_EQ(test, cmkit_srpt_target(ctx->dev, &ctx->service_id,
						ctx->tport), 0);
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

struct srpt_ini *srpt_ini_create(struct srpt_ctx *ctx, const char *name,
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
					       srpt_ibcm_free, GFP_KERNEL, ctx->dev);
		KUNIT_ASSERT_NOT_NULL(test, ini->ib);
	}
	return ini;
}

/*
 * Send the login; @len < 0 sends all of it, else only its first @len bytes
 * (IB pads the rest of the REQ private data with zeros).
 */
int srpt_ini_connect(struct srpt_ini *ini, int len)
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
	if (ini->rdma_cm && ini->peer->id->qp) {
		/* An SRP initiator's QP, already on the id (srpt_io_login()). */
		struct rdma_conn_param cp = {
			.private_data = len ? buf : NULL,
			.private_data_len = len,
			.responder_resources = 1,
			.initiator_depth = 1,
			.retry_count = SRPT_TEST_IO_RETRY,
			.rnr_retry_count = SRPT_TEST_RNR_RETRY,
		};

		ini->retry = SRPT_TEST_IO_RETRY;
		return rdma_connect(ini->peer->id, &cp);
	}
	if (ini->rdma_cm) {
		ini->retry = SRPT_TEST_RDMA_CM_RETRY;
		return cmkit_peer_connect(ini->peer, len ? buf : NULL, len);
	}

	param.primary_path = &route->path_rec[0];
	param.primary_path_inbound = route->path_rec_inbound;
	param.primary_path_outbound = route->path_rec_outbound;
	param.ppath_sgid_attr = route->addr.dev_addr.sgid_attr;
	param.service_id = cpu_to_be64(ini->service_id ?: ini->ctx->service_id);
	param.qp_num = ini->ib->qp->qp_num;
	param.qp_type = IB_QPT_RC;
	param.starting_psn = ini->ib->qp->qp_num & 0xffffff;
	param.private_data = len ? buf : NULL;
	param.private_data_len = len;
	param.responder_resources = ini->ib->rd_atomic;
	param.initiator_depth = ini->ib->rd_atomic;
	param.remote_cm_response_timeout = 18;
	/*
	 * How long the target waits for our RTU: 1 ms, once, if ignoring; a
	 * minute if holding (4 s, 15 times).
	 */
	param.local_cm_response_timeout = ini->ib->ignore_rep ? 8 :
					  ini->ib->hold_rep ? 20 : 18;
	param.flow_control = 1;
	param.retry_count = SRPT_TEST_IB_CM_RETRY;
	ini->retry = SRPT_TEST_IB_CM_RETRY;
	param.rnr_retry_count = SRPT_TEST_RNR_RETRY;
	param.max_cm_retries = ini->ib->ignore_rep ? 1 : 15;
	return ib_send_cm_req(ini->ib->cm_id, &param);
}

int srpt_ini_wait_outcome(struct srpt_ini *ini, struct srpt_outcome *o)
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
		      !ini->ib->ignore_rep && !ini->ib->hold_rep;
	o->rejected = ini->ib->seen & BIT(IB_CM_REJ_RECEIVED);
	o->ib_reason = ini->ib->rej_reason;
	memcpy(o->pdata, ini->ib->pdata, sizeof(o->pdata));
	spin_unlock(&ini->ib->lock);
	return 0;
}

/* The initiator disconnects and waits until the target answered. */
int srpt_ini_disconnect(struct srpt_ini *ini)
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
int srpt_ini_wait_target_disconnect(struct srpt_ini *ini)
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

/*
 * The target closed the connection without a DREQ of its own (its DREQ
 * failed, or its RTU handling did) and released the channel: destroying an
 * established cm_id makes ib_cm send a DREQ, but only as a best effort (it
 * cancels that DREQ's MAD at once).  The initiator ends its side either
 * way: it answers the DREQ if one came, or sends its own, which the
 * target's ib_cm answers for an id it no longer knows.
 */
int srpt_ini_end(struct srpt_ini *ini)
{
	struct cmkit_cm_record r;
	int ret;

	if (ini->rdma_cm) {
		if (cmkit_peer_count(ini->peer, BIT(RDMA_CM_EVENT_DISCONNECTED)))
			return rdma_disconnect(ini->peer->id);
		ret = rdma_disconnect(ini->peer->id);
		return ret ?: cmkit_peer_wait(ini->peer, RDMA_CM_EVENT_DISCONNECTED, &r);
	}
	if (srpt_ibcm_seen(ini->ib, BIT(IB_CM_DREQ_RECEIVED)))
		return 0;
	ret = ib_send_cm_dreq(ini->ib->cm_id, NULL, 0);
	if (ret == -EINVAL)	/* the DREQ came meanwhile */
		return srpt_ibcm_wait(ini->ib, BIT(IB_CM_DREQ_RECEIVED));
	return ret ?: srpt_ibcm_wait(ini->ib, BIT(IB_CM_DREP_RECEIVED) |
				     BIT(IB_CM_DREQ_RECEIVED) |
				     BIT(IB_CM_DREQ_ERROR));
}

int srpt_wait_state(u64 tag, int state)
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
int srpt_req_ret(struct kunit *test, u64 tag, unsigned int n)
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

void srpt_expect_accepted(struct kunit *test, const struct srpt_outcome *o,
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

void srpt_expect_rejected(struct kunit *test, const struct srpt_outcome *o,
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
void srpt_expect_clean(struct srpt_ctx *ctx, unsigned int channels,
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

/* ---- what crosses a channel, and what the target's QP says ------------- */

static struct ib_qp *srpt_ini_qp(struct srpt_ini *ini)
{
	return ini->rdma_cm ? ini->peer->id->qp : ini->ib->qp;
}

static struct ib_pd *srpt_ini_pd(struct srpt_ini *ini)
{
	return ini->rdma_cm ? ini->peer->pd : ini->ib->pd;
}

/*
 * The two ends of a live channel agree: each side starts sending at the
 * PSN the other expects, both use the same path MTU, the target's QP names
 * the initiator's, RDMA Reads and atomics fit what the other end accepts
 * and what srpt offers, and the retry counts are the ones the REQ and the
 * REP carried.  Compared before any traffic.
 */
static void srpt_expect_qp_match(struct kunit *test, struct srpt_ini *ini)
{
	struct ib_qp *qp = srpt_ini_qp(ini);
	struct ib_qp_init_attr init;
	struct ib_qp_attr *t, *i;
	u8 retry = ini->retry;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	i = kunit_kzalloc(test, sizeof(*i), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	KUNIT_ASSERT_NOT_NULL(test, i);
	KUNIT_ASSERT_EQ(test, cmkit_srpt_query_qp(ini->req.tag, t), 0);
	KUNIT_ASSERT_EQ(test, ib_query_qp(qp, i, ~0, &init), 0);

	KUNIT_EXPECT_EQ(test, t->qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_EQ(test, i->qp_state, IB_QPS_RTS);
	KUNIT_EXPECT_EQ_MSG(test, t->rq_psn, i->sq_psn,
			    "the target expects PSN %#x, the initiator starts at %#x",
			    t->rq_psn, i->sq_psn);
	KUNIT_EXPECT_EQ_MSG(test, i->rq_psn, t->sq_psn,
			    "the initiator expects PSN %#x, the target starts at %#x",
			    i->rq_psn, t->sq_psn);
	KUNIT_EXPECT_EQ(test, t->dest_qp_num, qp->qp_num);
	KUNIT_EXPECT_EQ(test, t->path_mtu, i->path_mtu);
	KUNIT_EXPECT_GE(test, t->max_dest_rd_atomic, i->max_rd_atomic);
	KUNIT_EXPECT_GE(test, i->max_dest_rd_atomic, t->max_rd_atomic);
	KUNIT_EXPECT_LE(test, t->max_dest_rd_atomic, SRPT_TEST_MAX_RD_ATOMIC);
	KUNIT_EXPECT_LE(test, t->max_rd_atomic, SRPT_TEST_MAX_RD_ATOMIC);
	KUNIT_EXPECT_EQ(test, i->retry_cnt, retry);
	KUNIT_EXPECT_EQ(test, t->retry_cnt, retry);
	KUNIT_EXPECT_EQ(test, t->rnr_retry, SRPT_TEST_RNR_RETRY);
	/* srpt's REP asks for unlimited RNR retries, as ib_srpt's. */
	KUNIT_EXPECT_EQ(test, i->rnr_retry, 7);
}

/*
 * The initiator sends one IU (an SRP_CRED_RSP: nothing the target answers);
 * the Send must complete and the target must receive exactly those bytes.
 */
static void srpt_expect_data(struct kunit *test, struct srpt_ini *ini)
{
	struct cmkit_srp_short_iu rsp = {
		.opcode = CMKIT_SRP_CRED_RSP,
		.tag = ini->req.tag ^ 0xc0ffee,
	};
	struct cmkit_srp_short_iu got_iu = { };
	enum ib_wc_status status = IB_WC_GENERAL_ERR;
	u8 iu[CMKIT_SRP_SHORT_IU_LEN], got[CMKIT_SRP_SHORT_IU_LEN];
	unsigned long flags;
	unsigned int nr;
	u32 len;
	int ret;

	KUNIT_ASSERT_EQ(test, cmkit_srp_encode_short_iu(iu, sizeof(iu), &rsp),
			CMKIT_SRP_SHORT_IU_LEN);
	srpt_rx_watch(ini->req.tag);
	ret = srpt_qp_send(srpt_ini_qp(ini), srpt_ini_pd(ini), iu, sizeof(iu),
			   &status);
	KUNIT_ASSERT_EQ_MSG(test, ret, 0, "the initiator's Send: %d", ret);
	KUNIT_ASSERT_EQ_MSG(test, status, IB_WC_SUCCESS, "the initiator's Send: %s",
			    ib_wc_status_msg(status));
	KUNIT_ASSERT_NE_MSG(test, wait_event_timeout(srpt_hk.rx_wait,
						     srpt_rx_count() > 0,
						     cmkit_test_timeout()), 0,
			    "the Send completed, but the target received nothing");
	spin_lock_irqsave(&srpt_hk.lock, flags);
	nr = srpt_hk.rx_nr;
	len = srpt_hk.rx_len;
	memcpy(got, srpt_hk.rx_buf, sizeof(got));
	spin_unlock_irqrestore(&srpt_hk.lock, flags);
	KUNIT_EXPECT_EQ(test, nr, 1U);
	KUNIT_EXPECT_EQ(test, len, (u32)sizeof(iu));
	KUNIT_EXPECT_EQ_MSG(test, memcmp(got, iu, sizeof(iu)), 0,
			    "the target received other bytes than were sent");
	KUNIT_EXPECT_EQ(test, cmkit_srp_decode_short_iu(got, len, CMKIT_SRP_CRED_RSP,
							&got_iu), 0);
	KUNIT_EXPECT_EQ(test, (u64)got_iu.tag, (u64)rsp.tag);
}

/*
 * Log in with @ini and expect the channel to go LIVE, its QP to match the
 * initiator's, and a Send from the initiator to reach it.
 */
void srpt_login_live(struct kunit *test, struct srpt_ini *ini,
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
	srpt_expect_qp_match(test, ini);
	srpt_expect_data(test, ini);
}

/* ---- the control plane's stats, and the kernel log --------------------- */

/* A line "<name> <value>" of cmkit/srpt/stats. */
unsigned int srpt_stat(struct kunit *test, const char *name)
{
	size_t n = strlen(name);
	unsigned int v;
	char *buf, *p;

	buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_GT(test, cmkit_srpt_stats_read(buf, 1024), 0);
	for (p = buf; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		if (!strncmp(p, name, n) && p[n] == ' ' && sscanf(p + n + 1, "%u", &v) == 1)
			return v;
	}
	KUNIT_ASSERT_TRUE_MSG(test, false, "no %s in cmkit/srpt/stats:\n%s", name, buf);
	return 0;
}

/* From now on, srpt_log_count() sees what is logged. */
void srpt_log_mark(struct kmsg_dump_iter *it)
{
	kmsg_dump_rewind(it);
	it->cur_seq = it->next_seq;
}

/*
 * Kernel log lines since srpt_log_mark() that contain @needle (not counting
 * the copies this function logs itself).
 */
unsigned int srpt_log_count(struct kmsg_dump_iter *it, const char *needle)
{
	unsigned int n = 0;
	char line[256];
	size_t len;

	while (kmsg_dump_get_line(it, false, line, sizeof(line) - 1, &len)) {
		line[len] = '\0';
		if (strstr(line, needle) && !strstr(line, "cmkit_test: logged: ")) {
			pr_info("cmkit_test: logged: %s", line);
			n++;
		}
	}
	return n;
}

/* ---- logins and disconnects the cases share ---------------------------- */

int srpt_ctl_disconnect(u64 tag)
{
	char cmd[40];

	snprintf(cmd, sizeof(cmd), "disconnect %#llx", tag);
	return cmkit_srpt_ctl(cmd);
}

int srpt_ctl_disconnect_fn(void *arg)
{
	return srpt_ctl_disconnect(*(u64 *)arg);
}

/*
 * The initiator answers the target's DREQ only now (an ib_cm initiator
 * with @hold_dreq; an rdma_cm initiator always leaves the DREP to its
 * consumer).
 */
int srpt_ini_answer_disconnect(struct srpt_ini *ini)
{
	struct cmkit_cm_record r;
	int ret;

	if (ini->rdma_cm) {
		ret = cmkit_peer_wait(ini->peer, RDMA_CM_EVENT_DISCONNECTED, &r);
		return ret ?: rdma_disconnect(ini->peer->id);
	}
	ret = srpt_ibcm_wait(ini->ib, BIT(IB_CM_DREQ_RECEIVED));
	return ret ?: ib_send_cm_drep(ini->ib->cm_id, NULL, 0);
}

/*
 * An ib_cm login whose REP the initiator holds: the channel stays
 * CONNECTING, its REP unanswered, until the case rejects it.
 */
struct srpt_ini *srpt_held_login(struct srpt_ctx *ctx, const char *name,
				 u64 tag, u16 port)
{
	struct kunit *test = ctx->test;
	struct srpt_ini *ini;

	ctx->rdma_cm = false;
	ini = srpt_ini_create(ctx, name, tag, port);
	ini->ib->hold_rep = true;
	KUNIT_ASSERT_EQ(test, srpt_ini_connect(ini, -1), 0);
	KUNIT_ASSERT_EQ(test, srpt_ibcm_wait(ini->ib, BIT(IB_CM_REP_RECEIVED)), 0);
	KUNIT_ASSERT_EQ(test, srpt_req_ret(test, tag, 1), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srpt_ch_state(tag), SRPT_CH_CONNECTING);
	return ini;
}

/* The held login's initiator rejects the REP: the target's channel closes. */
int srpt_ibcm_reject(struct srpt_ini *ini)
{
	return ib_send_cm_rej(ini->ib->cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			      NULL, 0);
}

/* Cases that stop or restart srpt leave it listening, even when they fail. */
static void srpt_restart_res_free(struct kunit_resource *res)
{
	struct ib_device *dev = res->data;
	int ret;

	cmkit_fault_disarm(&cmkit_srpt_fault_points);
	ret = cmkit_srpt_ctl("start");
	if (!cmkit_srpt_listen_context(dev))
		ret = cmkit_srpt_restart();
	if (ret && ret != -EALREADY)
		pr_err("cmkit_test: srpt does not start again: %d\n", ret);
}

void srpt_leave_listening(struct kunit *test, struct ib_device *dev)
{
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, srpt_bg_res_init,
							 srpt_restart_res_free,
							 GFP_KERNEL, dev));
}

/*
 * Log in as ib_srp does (immediate data asked for, at offset 68), with a QP
 * of the SRP initiator's in place of the test peer's own, and send the
 * SRP_CRED_RSP every login of the suite sends (a response IU: no credit).
 * The channel is LIVE on return, and the initiator's receive ring posted
 * unless @hold_rx (see srpt_io_stall()).
 */
static struct srpt_io *srpt_io_login_full(struct srpt_ctx *ctx, const char *name,
					  u64 tag, u16 port, bool hold_rx, int depth)
{
	struct cmkit_srp_short_iu cred = {
		.opcode = CMKIT_SRP_CRED_RSP,
		.tag = tag ^ 0xc0ffee,
	};
	struct kunit *test = ctx->test;
	u8 iu[CMKIT_SRP_SHORT_IU_LEN];
	struct srpt_outcome o;
	struct srpt_io *io;

	io = kunit_kzalloc(test, sizeof(*io), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, io);
	io->ctx = ctx;
	io->tag = tag << 16;
	io->ini = srpt_ini_create(ctx, name, tag, port);
	io->ini->req.it_iu_len = CMKIT_SRP_PEER_RX_LEN;
	io->ini->req.flags |= CMKIT_SRP_IMMED_REQUESTED;
	io->ini->req.imm_data_offset = CMKIT_SRP_PEER_IMM_OFF;
	/* After the login's own objects: released first, the QP with it. */
	io->srp = cmkit_srp_peer_create(test, ctx->dev);
	if (io->ini->rdma_cm) {
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_create_qp(io->srp, io->ini->peer,
							       NULL), 0);
	} else {
		if (depth >= 0)
			io->ini->ib->rd_atomic = depth;
		/* The raw initiator's small QP makes way for the SRP one. */
		ib_destroy_qp(io->ini->ib->qp);
		io->ini->ib->qp = NULL;
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_create_qp(io->srp, NULL,
							       &io->ini->ib->qp), 0);
	}

	KUNIT_ASSERT_EQ(test, srpt_ini_connect(io->ini, -1), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_outcome(io->ini, &o), 0);
	KUNIT_EXPECT_EQ(test, srpt_req_ret(test, tag, 1), 0);
	srpt_expect_accepted(test, &o, &io->ini->req);
	KUNIT_ASSERT_EQ(test, cmkit_srp_decode_login_rsp(o.pdata, sizeof(o.pdata),
							 &io->rsp), 1);
	/* Immediate data granted, as asked: ib_srp's default. */
	KUNIT_EXPECT_EQ(test, io->rsp.flags, CMKIT_SRP_LOGIN_RSP_IMMED_SUPP);
	KUNIT_ASSERT_LE(test, io->rsp.req_lim_delta, (u32)CMKIT_SRP_PEER_NR_RX);
	KUNIT_ASSERT_EQ(test, srpt_wait_state(tag, SRPT_CH_LIVE), 0);
	srpt_expect_qp_match(test, io->ini);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_start(io->srp, &io->rsp, hold_rx), 0);

	srpt_rx_watch(tag);
	KUNIT_ASSERT_EQ(test, cmkit_srp_encode_short_iu(iu, sizeof(iu), &cred),
			CMKIT_SRP_SHORT_IU_LEN);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send_rsp(io->srp, iu, sizeof(iu)), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_sent(io->srp), 0);
	KUNIT_ASSERT_NE_MSG(test, wait_event_timeout(srpt_hk.rx_wait,
						     srpt_rx_count() > 0,
						     cmkit_test_timeout()), 0,
			    "the SRP_CRED_RSP never reached the target");
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp),
			(s32)io->rsp.req_lim_delta);
	return io;
}

struct srpt_io *srpt_io_login_opt(struct srpt_ctx *ctx, const char *name,
				  u64 tag, u16 port, bool hold_rx)
{
	return srpt_io_login_full(ctx, name, tag, port, hold_rx, -1);
}

struct srpt_io *srpt_io_login(struct srpt_ctx *ctx, const char *name,
			      u64 tag, u16 port)
{
	return srpt_io_login_full(ctx, name, tag, port, false, -1);
}

/* An ib_cm login offering @depth RDMA Reads each way (responder resources). */
struct srpt_io *srpt_io_login_depth(struct srpt_ctx *ctx, const char *name,
				    u64 tag, u16 port, int depth)
{
	return srpt_io_login_full(ctx, name, tag, port, false, depth);
}

/* A command to LUN 0 with @cdb (16 bytes, zeroed by the caller), no data. */
void srpt_io_cmd(struct srpt_io *io, struct cmkit_srp_cmd *cmd, u8 *cdb)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->tag = ++io->tag;
	cmd->cdb = cdb;
	cmd->cdb_len = CMKIT_SRP_CDB_LEN;
	cmd->task_attr = CMKIT_SRP_TASK_SIMPLE;
}

/* A direct buffer: @len bytes at @off of the initiator's data buffer. */
void srpt_io_direct(struct srpt_io *io, struct cmkit_srp_data_buf *b,
		    u32 off, u32 len)
{
	memset(b, 0, sizeof(*b));
	b->fmt = CMKIT_SRP_DATA_DESC_DIRECT;
	b->count = 1;
	b->ndesc = 1;
	b->whole = 1;
	b->len = len;
	cmkit_srp_peer_desc(io->srp, off, len, &b->desc);
}

/*
 * An indirect buffer of @n pieces: its table, written at @table_off of the
 * data buffer (where a target that fetches it would read it), and the
 * first @count of its entries carried in the IU (@list, @n * 16 bytes of
 * the caller's).
 */
void srpt_io_indirect(struct srpt_io *io, struct cmkit_srp_data_buf *b,
		      const struct srpt_seg *seg, unsigned int n,
		      unsigned int count, u32 table_off, u8 *list)
{
	struct cmkit_srp_direct d;
	unsigned int i;

	memset(b, 0, sizeof(*b));
	b->fmt = CMKIT_SRP_DATA_DESC_INDIRECT;
	for (i = 0; i < n; i++) {
		cmkit_srp_peer_desc(io->srp, seg[i].off, seg[i].len, &d);
		cmkit_srp_put_direct(list + i * CMKIT_SRP_DIRECT_LEN, &d);
		b->len += seg[i].len;
	}
	memcpy(io->srp->data + table_off, list, n * CMKIT_SRP_DIRECT_LEN);
	cmkit_srp_peer_desc(io->srp, table_off, n * CMKIT_SRP_DIRECT_LEN, &b->desc);
	b->count = count;
	b->ndesc = n;
	b->whole = count == n;
	b->list = list;
}

/* Immediate data-out: @len bytes from @off of the data buffer, in the IU. */
void srpt_io_immediate(struct srpt_io *io, struct cmkit_srp_data_buf *b,
		       u32 off, u32 len)
{
	memset(b, 0, sizeof(*b));
	b->fmt = CMKIT_SRP_DATA_DESC_IMM;
	b->len = len;
	b->imm = io->srp->data + off;
}

/* READ(10)/WRITE(10) (@op) of @blocks 512-byte blocks at @lba. */
void srpt_cdb_rw10(u8 *cdb, u8 op, u32 lba, u16 blocks)
{
	memset(cdb, 0, CMKIT_SRP_CDB_LEN);
	cdb[0] = op;
	cmkit_put_be32(cdb + 2, lba);
	cmkit_put_be16(cdb + 7, blocks);
}

/* READ(16)/WRITE(16). */
void srpt_cdb_rw16(u8 *cdb, u8 op, u64 lba, u32 blocks)
{
	memset(cdb, 0, CMKIT_SRP_CDB_LEN);
	cdb[0] = op;
	cmkit_put_be64(cdb + 2, lba);
	cmkit_put_be32(cdb + 10, blocks);
}

/*
 * Encode @cmd and send it as an initiator that keeps to its credits, or
 * with @over whatever they are.
 */
int srpt_io_send_opt(struct srpt_io *io, const struct cmkit_srp_cmd *cmd,
		     bool over)
{
	u8 *buf;
	int len, ret;

	buf = kmalloc(CMKIT_SRP_PEER_TX_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	len = cmkit_srp_encode_cmd(buf, CMKIT_SRP_PEER_TX_LEN,
				   io->srp->imm_off ?: CMKIT_SRP_PEER_IMM_OFF, cmd);
	if (len < 0)
		ret = -EINVAL;
	else if (over)
		ret = cmkit_srp_peer_send_over(io->srp, buf, len);
	else
		ret = cmkit_srp_peer_send(io->srp, buf, len);
	kfree(buf);
	return ret;
}

int srpt_io_send(struct srpt_io *io, const struct cmkit_srp_cmd *cmd)
{
	return srpt_io_send_opt(io, cmd, false);
}

/* Send @cmd and wait for its SRP_RSP, which must decode. */
void srpt_io_run(struct kunit *test, struct srpt_io *io,
		 const struct cmkit_srp_cmd *cmd, struct cmkit_srp_iu *rsp)
{
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, cmd), 0);
	KUNIT_ASSERT_EQ_MSG(test, cmkit_srp_peer_wait_tag(io->srp, cmd->tag, rsp), 0,
			    "no SRP_RSP for the command of tag %#llx", cmd->tag);
	KUNIT_EXPECT_EQ(test, rsp->opcode, CMKIT_SRP_RSP);
	KUNIT_EXPECT_EQ(test, rsp->err, 0);
}

/* GOOD, no sense, no residual, one credit back. */
void srpt_io_expect_good(struct kunit *test, const struct cmkit_srp_iu *rsp)
{
	KUNIT_EXPECT_EQ_MSG(test, rsp->rsp.status, CMKIT_SCSI_STATUS_GOOD,
			    "tag %#llx: status %#x, sense key %#x ASC %#x/%#x",
			    rsp->tag, rsp->rsp.status, rsp->sense[2] & 0xf,
			    rsp->sense[12], rsp->sense[13]);
	KUNIT_EXPECT_EQ(test, rsp->rsp.flags, 0);
	KUNIT_EXPECT_EQ(test, rsp->rsp.sense_len, 0U);
	KUNIT_EXPECT_EQ(test, rsp->rsp.req_lim_delta, 1U);
}

/* CHECK CONDITION with fixed-format sense data: @key, @asc/@ascq. */
void srpt_io_expect_sense(struct kunit *test, const struct cmkit_srp_iu *rsp,
			  u8 key, u8 asc, u8 ascq)
{
	KUNIT_EXPECT_EQ(test, rsp->rsp.status, CMKIT_SCSI_STATUS_CHECK_CONDITION);
	KUNIT_EXPECT_TRUE(test, rsp->rsp.flags & CMKIT_SRP_RSP_SNSVALID);
	KUNIT_EXPECT_GE(test, rsp->rsp.sense_len, 14U);
	KUNIT_EXPECT_EQ(test, rsp->sense[0] & 0x7f, 0x70);
	KUNIT_EXPECT_EQ_MSG(test, rsp->sense[2] & 0xf, key, "tag %#llx", rsp->tag);
	KUNIT_EXPECT_EQ_MSG(test, rsp->sense[12], asc, "tag %#llx", rsp->tag);
	KUNIT_EXPECT_EQ_MSG(test, rsp->sense[13], ascq, "tag %#llx", rsp->tag);
	KUNIT_EXPECT_EQ(test, rsp->rsp.req_lim_delta, 1U);
}

/* The data path's counters now. */
struct srpt_counters srpt_io_now(void)
{
	struct srpt_counters c;

	cmkit_srpt_counters(&c);
	return c;
}

unsigned int srpt_io_delta_at(const struct srpt_ctx *ctx, size_t off)
{
	struct srpt_counters c = srpt_io_now();
	unsigned int now, then;

	memcpy(&now, (u8 *)&c + off, sizeof(now));
	memcpy(&then, (const u8 *)&ctx->base + off, sizeof(then));
	return now - then;
}

/*
 * The RAM LUN's size in 512-byte blocks, as srpt reports it.  That it
 * follows cmkit.srpt_lun_mib is the shell suite's case
 * (srp_lun_size_follows_srpt_lun_mib).  filp_open() of its sysfs file from
 * the KUnit thread returned -ENOENT on 7.3.4 (6.1 and 6.12 found it).
 */
u64 srpt_io_lun_blocks(struct kunit *test)
{
	u64 bytes = cmkit_srpt_lun_bytes();

	KUNIT_ASSERT_GT(test, bytes, 0ULL);
	KUNIT_ASSERT_EQ(test, bytes & 511, 0ULL);
	return bytes >> 9;
}

/*
 * The initiator logs out (disconnects), the channel is released, and with
 * it every send context and rdma_rw context the data path held.
 */
void srpt_io_logout(struct kunit *test, struct srpt_io *io)
{
	KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(io->ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(io->ini->req.tag, -ENOENT), 0);
}

/* Every case ends here: nothing of the data path is left alive. */
void srpt_io_expect_idle(struct kunit *test)
{
	struct srpt_counters c = srpt_io_now();

	KUNIT_EXPECT_EQ_MSG(test, c.ctx_alive, 0U, "send contexts still in use");
	KUNIT_EXPECT_EQ_MSG(test, c.rw_ctx_alive, 0U, "rdma_rw contexts not destroyed");
}

/*
 * Keep the target's send queue waiting, with the initiator's receive ring
 * held back (srpt_io_login_opt(..., true)): a TEST UNIT READY whose SRP_RSP
 * meets an RNR NAK.  The target's RNR retries and its retries are
 * unlimited (SRPT_TEST_IO_RETRY), so it retries that Send until
 * cmkit_srp_peer_post_rx(), however slow the host, and an RDMA
 * Read the target posts meanwhile cannot complete: the initiator's QP
 * answers requests in PSN order only, and the Send comes first.  This is
 * what pins "an RDMA Read is outstanding" for as long as a case needs,
 * without blocking srpt's CQ work (its hooks must not block).  Returns once
 * the target posted the SRP_RSP; the command's tag in @tag.
 */
void srpt_io_stall(struct kunit *test, struct srpt_io *io, u64 *tag)
{
	struct cmkit_srp_cmd cmd;
	u8 cdb[CMKIT_SRP_CDB_LEN] = { CMKIT_SCSI_TEST_UNIT_READY };
	unsigned int n = srpt_hook_hits(SRPT_HOOK_CMD_RESPOND);

	srpt_io_cmd(io, &cmd, cdb);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd), 0);
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_RESPOND, n + 1), 0);
	*tag = cmd.tag;
}

/*
 * WRITE(10) of @blocks blocks at @lba from @off of the data buffer (a
 * direct descriptor: the target RDMA-reads it); not waited for.
 */
void srpt_io_cmd_write(struct srpt_io *io, struct cmkit_srp_cmd *cmd, u8 *cdb,
		       u32 lba, u16 blocks, u32 off)
{
	srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, lba, blocks);
	srpt_io_cmd(io, cmd, cdb);
	srpt_io_direct(io, &cmd->out, off, blocks * 512);
}

/* An SRP_TSK_MGMT IU for @func on LUN 0 (@task: ABORT TASK's tag). */
int srpt_io_tmf_iu(struct srpt_io *io, u8 *iu, u8 func, u64 task, u64 *tag)
{
	struct cmkit_srp_tsk_mgmt tm = {
		.tag = ++io->tag,
		.func = func,
		.task_tag = task,
	};

	*tag = tm.tag;
	return cmkit_srp_encode_tsk_mgmt(iu, CMKIT_SRP_TSK_MGMT_LEN, &tm);
}

/* The disk's bytes at @lba, straight from srpt's RAM. */
const u8 *srpt_io_disk(struct kunit *test, u32 lba, u32 len)
{
	u8 *disk = cmkit_srpt_lun_data();

	KUNIT_ASSERT_NOT_NULL(test, disk);
	KUNIT_ASSERT_LE(test, (u64)lba * 512 + len, cmkit_srpt_lun_bytes());
	return disk + (u64)lba * 512;
}
