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

#define SRPT_TEST_IU_LEN	4096
#define SRPT_TEST_MAX_INI	64
/* What the rdma_cm test peer asks for (kunit/cm_peer.c), and the raw one. */
#define SRPT_TEST_RDMA_CM_RETRY	6
#define SRPT_TEST_IB_CM_RETRY	7
#define SRPT_TEST_RNR_RETRY	7
/* The most srpt offers in its REP (ib_srpt's choice). */
#define SRPT_TEST_MAX_RD_ATOMIC	4

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

/* Static, so that a hook still waiting when its case ends finds it alive. */
static struct {
	spinlock_t lock;	/* everything below */
	struct srpt_stop stop[SRPT_NR_STOPS];
	u64 rx_tag;
	u32 rx_len;
	u8 rx_buf[64];
	unsigned int rx_nr;
	unsigned int hits[SRPT_NR_HOOKS];
	wait_queue_head_t rx_wait;
} srpt_hk = {
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

static void srpt_test_hook(enum cmkit_srpt_hook hook, u64 tag, const void *data, u32 len)
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
static struct srpt_stop *srpt_stop_arm(int i, enum cmkit_srpt_hook hook, u64 tag, bool hold)
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
static struct srpt_stop *srpt_stop_arm_cmd(int i, enum cmkit_srpt_hook hook, u64 tag,
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
static unsigned int srpt_hook_hits(enum cmkit_srpt_hook hook)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&srpt_hk.lock, flags);
	n = srpt_hk.hits[hook];
	spin_unlock_irqrestore(&srpt_hk.lock, flags);
	return n;
}

/* Wait until @hook fired @n times for the watched channel. */
static int srpt_hook_wait_hits(enum cmkit_srpt_hook hook, unsigned int n)
{
	if (!wait_event_timeout(srpt_hk.rx_wait, srpt_hook_hits(hook) >= n,
				cmkit_test_timeout()))
		return -ETIMEDOUT;
	return 0;
}

static int srpt_stop_wait(struct srpt_stop *stop)
{
	return wait_for_completion_timeout(&stop->reached, cmkit_test_timeout()) ?
	       0 : -ETIMEDOUT;
}

static void srpt_stop_go(struct srpt_stop *stop)
{
	complete_all(&stop->go);
}

/* Disarm every stop and let go whatever still waits at one. */
static void srpt_stops_reset(void)
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
static void srpt_rx_watch(u64 tag)
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
static void srpt_wait_rcu_frees(void)
{
	typeof(rcu_barrier) *barrier = __symbol_get("kvfree_rcu_barrier");

	if (barrier) {
		barrier();
		symbol_put_addr(barrier);
	} else {
		rcu_barrier();
	}
}

/* ---- a thread of the case's own, for the side of a race it pins -------- */

struct srpt_bg {
	struct work_struct work;
	int (*fn)(void *arg);
	void *arg;
	int ret;
	struct completion done;
};

static void srpt_bg_work(struct work_struct *work)
{
	struct srpt_bg *bg = container_of(work, struct srpt_bg, work);

	bg->ret = bg->fn(bg->arg);
	complete(&bg->done);
}

static int srpt_bg_res_init(struct kunit_resource *res, void *context)
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
static struct srpt_bg *srpt_bg_start(struct kunit *test, int (*fn)(void *), void *arg)
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

static int srpt_bg_wait(struct srpt_bg *bg, int *ret)
{
	if (!wait_for_completion_timeout(&bg->done, cmkit_test_timeout()))
		return -ETIMEDOUT;
	*ret = bg->ret;
	return 0;
}

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

static int srpt_ibcm_wait(struct srpt_ibcm *ini, u32 mask)
{
	if (!wait_event_timeout(ini->wait, srpt_ibcm_seen(ini, mask),
				cmkit_test_timeout()))
		return -ETIMEDOUT;
	return 0;
}

/* ---- one Send from an initiator's QP --------------------------------- */

struct srpt_send {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
};

static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_send *snd = container_of(wc->wr_cqe, struct srpt_send, cqe);

	snd->status = wc->status;
	complete(&snd->done);
}

/*
 * Send @len bytes of @data on @qp and wait for the Send's completion.  If it
 * never comes, the QP is moved to the error state to flush it; if even the
 * flush never comes, the buffer is left to the HCA (leaked) rather than
 * freed under it.
 *
 * Return: 0 and the completion's status in @status, or a negative errno.
 */
static int srpt_qp_send(struct ib_qp *qp, struct ib_pd *pd, const void *data,
			u32 len, enum ib_wc_status *status)
{
	struct ib_device *dev = qp->device;
	struct ib_qp_attr err = { .qp_state = IB_QPS_ERR };
	struct srpt_send *snd;
	struct ib_sge sge;
	struct ib_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	void *buf;
	u64 dma;
	int ret;

	snd = kzalloc_obj(*snd, GFP_KERNEL);
	buf = kmemdup(data, len, GFP_KERNEL);
	if (!snd || !buf) {
		kfree(snd);
		kfree(buf);
		return -ENOMEM;
	}
	init_completion(&snd->done);
	snd->cqe.done = srpt_send_done;
	dma = ib_dma_map_single(dev, buf, len, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(dev, dma)) {
		ret = -EIO;
		goto free;
	}
	sge = (struct ib_sge){ .addr = dma, .length = len, .lkey = pd->local_dma_lkey };
	wr.wr_cqe = &snd->cqe;
	ret = ib_post_send(qp, &wr, NULL);
	if (ret)
		goto unmap;
	if (!wait_for_completion_timeout(&snd->done, cmkit_test_timeout())) {
		ib_modify_qp(qp, &err, IB_QP_STATE);
		if (!wait_for_completion_timeout(&snd->done, cmkit_test_timeout())) {
			pr_err("cmkit_test: a Send never completed, not even flushed\n");
			return -ETIMEDOUT;
		}
		ret = -ETIMEDOUT;
	}
	*status = snd->status;
unmap:
	ib_dma_unmap_single(dev, dma, len, DMA_TO_DEVICE);
free:
	kfree(buf);
	kfree(snd);
	return ret;
}

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

static struct srpt_relay *srpt_relay_create(struct kunit *test, struct ib_device *dev)
{
	struct srpt_relay *r;

	r = kunit_alloc_resource(test, srpt_relay_init, srpt_relay_free,
				 GFP_KERNEL, dev);
	KUNIT_ASSERT_NOT_NULL(test, r);
	return r;
}

static int srpt_relay_wait(struct srpt_relay *r)
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
static int srpt_relay_deliver(struct srpt_relay *r, struct ib_device *dev)
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

/* ---- a SIDR requester -------------------------------------------------- */

struct srpt_sidr {
	struct ib_cm_id *cm_id;
	struct completion done;
	int event;
	int status;
};

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

static void srpt_sidr_free(struct kunit_resource *res)
{
	struct srpt_sidr *s = res->data;

	ib_destroy_cm_id(s->cm_id);
	kfree(s);
}

static int srpt_sidr_init(struct kunit_resource *res, void *context)
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
					       srpt_ibcm_free, GFP_KERNEL, ctx->dev);
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
	if (ini->rdma_cm && ini->peer->id->qp) {
		/* An SRP initiator's QP, already on the id (srpt_io_login()). */
		struct rdma_conn_param cp = {
			.private_data = len ? buf : NULL,
			.private_data_len = len,
			.responder_resources = 1,
			.initiator_depth = 1,
			.retry_count = SRPT_TEST_RDMA_CM_RETRY,
			.rnr_retry_count = SRPT_TEST_RNR_RETRY,
		};

		return rdma_connect(ini->peer->id, &cp);
	}
	if (ini->rdma_cm)
		return cmkit_peer_connect(ini->peer, len ? buf : NULL, len);

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
	param.rnr_retry_count = SRPT_TEST_RNR_RETRY;
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
		      !ini->ib->ignore_rep && !ini->ib->hold_rep;
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

/*
 * The target closed the connection without a DREQ of its own (its DREQ
 * failed, or its RTU handling did) and released the channel: destroying an
 * established cm_id makes ib_cm send a DREQ, but only as a best effort (it
 * cancels that DREQ's MAD at once).  The initiator ends its side either
 * way: it answers the DREQ if one came, or sends its own, which the
 * target's ib_cm answers for an id it no longer knows.
 */
static int srpt_ini_end(struct srpt_ini *ini)
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
	u8 retry = ini->rdma_cm ? SRPT_TEST_RDMA_CM_RETRY : SRPT_TEST_IB_CM_RETRY;

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
	srpt_expect_qp_match(test, ini);
	srpt_expect_data(test, ini);
}

/* ---- the control plane's stats, and the kernel log --------------------- */

/* A line "<name> <value>" of cmkit/srpt/stats. */
static unsigned int srpt_stat(struct kunit *test, const char *name)
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
static void srpt_log_mark(struct kmsg_dump_iter *it)
{
	kmsg_dump_rewind(it);
	it->cur_seq = it->next_seq;
}

/*
 * Kernel log lines since srpt_log_mark() that contain @needle (not counting
 * the copies this function logs itself).
 */
static unsigned int srpt_log_count(struct kmsg_dump_iter *it, const char *needle)
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

static int srpt_ctl_disconnect(u64 tag)
{
	char cmd[40];

	snprintf(cmd, sizeof(cmd), "disconnect %#llx", tag);
	return cmkit_srpt_ctl(cmd);
}

static int srpt_ctl_disconnect_fn(void *arg)
{
	return srpt_ctl_disconnect(*(u64 *)arg);
}

/*
 * The initiator answers the target's DREQ only now (an ib_cm initiator
 * with @hold_dreq; an rdma_cm initiator always leaves the DREP to its
 * consumer).
 */
static int srpt_ini_answer_disconnect(struct srpt_ini *ini)
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
static struct srpt_ini *srpt_held_login(struct srpt_ctx *ctx, const char *name,
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
static int srpt_ibcm_reject(struct srpt_ini *ini)
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

static void srpt_leave_listening(struct kunit *test, struct ib_device *dev)
{
	KUNIT_ASSERT_NOT_NULL(test, kunit_alloc_resource(test, srpt_bg_res_init,
							 srpt_restart_res_free,
							 GFP_KERNEL, dev));
}

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

static struct srpt_io *srpt_io_login_opt(struct srpt_ctx *ctx, const char *name,
					 u64 tag, u16 port, bool hold_rx)
{
	return srpt_io_login_full(ctx, name, tag, port, hold_rx, -1);
}

static struct srpt_io *srpt_io_login(struct srpt_ctx *ctx, const char *name,
				     u64 tag, u16 port)
{
	return srpt_io_login_full(ctx, name, tag, port, false, -1);
}

/* An ib_cm login offering @depth RDMA Reads each way (responder resources). */
static struct srpt_io *srpt_io_login_depth(struct srpt_ctx *ctx, const char *name,
					   u64 tag, u16 port, int depth)
{
	return srpt_io_login_full(ctx, name, tag, port, false, depth);
}

/* A command to LUN 0 with @cdb (16 bytes, zeroed by the caller), no data. */
static void srpt_io_cmd(struct srpt_io *io, struct cmkit_srp_cmd *cmd, u8 *cdb)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->tag = ++io->tag;
	cmd->cdb = cdb;
	cmd->cdb_len = CMKIT_SRP_CDB_LEN;
	cmd->task_attr = CMKIT_SRP_TASK_SIMPLE;
}

/* A direct buffer: @len bytes at @off of the initiator's data buffer. */
static void srpt_io_direct(struct srpt_io *io, struct cmkit_srp_data_buf *b,
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

/* One piece of an indirect buffer. */
struct srpt_seg {
	u32 off;
	u32 len;
};

/*
 * An indirect buffer of @n pieces: its table, written at @table_off of the
 * data buffer (where a target that fetches it would read it), and the
 * first @count of its entries carried in the IU (@list, @n * 16 bytes of
 * the caller's).
 */
static void srpt_io_indirect(struct srpt_io *io, struct cmkit_srp_data_buf *b,
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
static void srpt_io_immediate(struct srpt_io *io, struct cmkit_srp_data_buf *b,
			      u32 off, u32 len)
{
	memset(b, 0, sizeof(*b));
	b->fmt = CMKIT_SRP_DATA_DESC_IMM;
	b->len = len;
	b->imm = io->srp->data + off;
}

/* READ(10)/WRITE(10) (@op) of @blocks 512-byte blocks at @lba. */
static void srpt_cdb_rw10(u8 *cdb, u8 op, u32 lba, u16 blocks)
{
	memset(cdb, 0, CMKIT_SRP_CDB_LEN);
	cdb[0] = op;
	cmkit_put_be32(cdb + 2, lba);
	cmkit_put_be16(cdb + 7, blocks);
}

/* READ(16)/WRITE(16). */
static void srpt_cdb_rw16(u8 *cdb, u8 op, u64 lba, u32 blocks)
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
static int srpt_io_send_opt(struct srpt_io *io, const struct cmkit_srp_cmd *cmd,
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

static int srpt_io_send(struct srpt_io *io, const struct cmkit_srp_cmd *cmd)
{
	return srpt_io_send_opt(io, cmd, false);
}

/* Send @cmd and wait for its SRP_RSP, which must decode. */
static void srpt_io_run(struct kunit *test, struct srpt_io *io,
			const struct cmkit_srp_cmd *cmd, struct cmkit_srp_iu *rsp)
{
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, cmd), 0);
	KUNIT_ASSERT_EQ_MSG(test, cmkit_srp_peer_wait_tag(io->srp, cmd->tag, rsp), 0,
			    "no SRP_RSP for the command of tag %#llx", cmd->tag);
	KUNIT_EXPECT_EQ(test, rsp->opcode, CMKIT_SRP_RSP);
	KUNIT_EXPECT_EQ(test, rsp->err, 0);
}

/* GOOD, no sense, no residual, one credit back. */
static void srpt_io_expect_good(struct kunit *test, const struct cmkit_srp_iu *rsp)
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
static void srpt_io_expect_sense(struct kunit *test, const struct cmkit_srp_iu *rsp,
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
static struct srpt_counters srpt_io_now(void)
{
	struct srpt_counters c;

	cmkit_srpt_counters(&c);
	return c;
}

static unsigned int srpt_io_delta_at(const struct srpt_ctx *ctx, size_t off)
{
	struct srpt_counters c = srpt_io_now();
	unsigned int now, then;

	memcpy(&now, (u8 *)&c + off, sizeof(now));
	memcpy(&then, (const u8 *)&ctx->base + off, sizeof(then));
	return now - then;
}

/* One of the data path's counters, since @ctx's case began. */
#define srpt_io_delta(ctx, field) \
	srpt_io_delta_at(ctx, offsetof(struct srpt_counters, field))

/*
 * The RAM LUN's size in 512-byte blocks, as srpt reports it.  That it
 * follows cmkit.srpt_lun_mib is the shell suite's case
 * (srp_lun_size_follows_srpt_lun_mib).  filp_open() of its sysfs file from
 * the KUnit thread returned -ENOENT on 7.3.4 (6.1 and 6.12 found it).
 */
static u64 srpt_io_lun_blocks(struct kunit *test)
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
static void srpt_io_logout(struct kunit *test, struct srpt_io *io)
{
	KUNIT_ASSERT_EQ(test, srpt_ini_disconnect(io->ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(io->ini->req.tag, -ENOENT), 0);
}

/* Every case ends here: nothing of the data path is left alive. */
static void srpt_io_expect_idle(struct kunit *test)
{
	struct srpt_counters c = srpt_io_now();

	KUNIT_EXPECT_EQ_MSG(test, c.ctx_alive, 0U, "send contexts still in use");
	KUNIT_EXPECT_EQ_MSG(test, c.rw_ctx_alive, 0U, "rdma_rw contexts not destroyed");
}

/*
 * Keep the target's send queue waiting, with the initiator's receive ring
 * held back (srpt_io_login_opt(..., true)): a TEST UNIT READY whose SRP_RSP
 * meets an RNR NAK.  The initiator's RNR retries are unlimited, so the
 * target retries that Send until cmkit_srp_peer_post_rx(), and an RDMA
 * Read the target posts meanwhile cannot complete: the initiator's QP
 * answers requests in PSN order only, and the Send comes first.  This is
 * what pins "an RDMA Read is outstanding" for as long as a case needs,
 * without blocking srpt's CQ work (its hooks must not block).  Returns once
 * the target posted the SRP_RSP; the command's tag in @tag.
 */
static void srpt_io_stall(struct kunit *test, struct srpt_io *io, u64 *tag)
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
static void srpt_io_cmd_write(struct srpt_io *io, struct cmkit_srp_cmd *cmd, u8 *cdb,
			      u32 lba, u16 blocks, u32 off)
{
	srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, lba, blocks);
	srpt_io_cmd(io, cmd, cdb);
	srpt_io_direct(io, &cmd->out, off, blocks * 512);
}

/* An SRP_TSK_MGMT IU for @func on LUN 0 (@task: ABORT TASK's tag). */
static int srpt_io_tmf_iu(struct srpt_io *io, u8 *iu, u8 func, u64 task, u64 *tag)
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
static const u8 *srpt_io_disk(struct kunit *test, u32 lba, u32 len)
{
	u8 *disk = cmkit_srpt_lun_data();

	KUNIT_ASSERT_NOT_NULL(test, disk);
	KUNIT_ASSERT_LE(test, (u64)lba * 512 + len, cmkit_srpt_lun_bytes());
	return disk + (u64)lba * 512;
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

/*
 * Data crosses a live channel: the QPs of both ends agree, a Send arrives
 * (srpt_login_live() checks both, for every login of the suite).
 */
static void srpt_initiator_data_reaches_target(struct kunit *test)
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
static void srpt_target_disconnect_while_disconnecting(struct kunit *test)
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
static void srpt_target_disconnect_after_release(struct kunit *test)
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

/* ---- SIDR: no channel ever owns such an id ----------------------------- */

/*
 * A SIDR REQ to either of srpt's service ids: srpt runs RC channels only,
 * so the requester must get a SIDR REP that refuses, not silence.
 */
static void srpt_sidr_req_refused(struct kunit *test)
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
static void srpt_rd_atomic_clamped_to_rep(struct kunit *test)
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

/* ---- failure injection ------------------------------------------------- */

struct srpt_fault_param {
	bool rdma_cm;
	enum srpt_fault fault;
	const char *what;
};

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

static void srpt_fault_desc(const struct srpt_fault_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s %s",
		 p->rdma_cm ? "rdma_cm" : "ib_cm", p->what);
}

KUNIT_ARRAY_PARAM(srpt_fault, srpt_fault_params, srpt_fault_desc);

/*
 * Each step of the accept and disconnect paths fails once, in turn.  What
 * the initiator sees tells what the handler returned: a REJ with an SRP
 * reason (a REJ was sent), a retried REQ that succeeds (-ENOMEM: ib_cm
 * dropped the REQ silently), or a connection that ends with a DREQ (the
 * channel's release destroyed its cm_id).  The stats count each login once:
 * accepted when its REP went out, rejected when its REJ did.
 */
static void srpt_failure_injected(struct kunit *test)
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
/* More failure points than this in one login and disconnect is a bug. */
#define SRPT_FAIL_NTH_MAX	400

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
static void srpt_fail_nth_relayed_login_and_disconnect(struct kunit *test)
{
	struct srpt_counters c;
	struct srpt_relay *relay;
	struct srpt_ctx ctx;
	unsigned int n, injected = 0;
	bool done = false;

	cmkit_skip_rxe_failed_create_qp(test);
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
static void srpt_fail_nth_relayed_login_and_disconnect(struct kunit *test)
{
	kunit_skip(test, "the kernel has no CONFIG_FAULT_INJECTION");
}
#endif

/* ---- races between a channel's release and a walk of the channel list --- */

/* A parameter that is one choice, and what it is called. */
struct srpt_choice {
	int value;
	const char *what;
};

static void srpt_choice_desc(const struct srpt_choice *p, char *desc)
{
	strscpy(desc, p->what, KUNIT_PARAM_DESC_SIZE);
}

enum srpt_order {
	SRPT_RELEASE_FIRST,
	SRPT_WALKER_FIRST,
};

static const struct srpt_choice srpt_orders[] = {
	{ SRPT_RELEASE_FIRST, "release about to destroy, then the walk" },
	{ SRPT_WALKER_FIRST, "walk holds the channel, then the release" },
};

KUNIT_ARRAY_PARAM(srpt_order, srpt_orders, srpt_choice_desc);

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
static void srpt_release_vs_ctl_disconnect(struct kunit *test)
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

struct cmkit_srpt_relogin {
	struct srpt_relay *relay;
	struct ib_device *dev;
};

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
static void srpt_release_vs_relayed_multichannel_login(struct kunit *test)
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
static void srpt_remote_events_log_nothing(struct kunit *test)
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
static void srpt_ctl_stop_restart_start(struct kunit *test)
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

static const struct srpt_choice srpt_start_params[] = {
	{ SRPT_FAULT_WQ_ALLOC, "workqueue allocation" },
	{ SRPT_FAULT_CLIENT_REG, "client registration" },
};

KUNIT_ARRAY_PARAM(srpt_start, srpt_start_params, srpt_choice_desc);

/* A restart whose start fails leaves srpt stopped, and ctl start works. */
static void srpt_failed_restart_leaves_start_usable(struct kunit *test)
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

	cmkit_skip_rxe_removal_under_kasan(test, rxe);
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

/* ---- SRP I/O cases ------------------------------------------------------ */

/*
 * What an initiator's scan reads describes LUN 0 as the RAM disk it is:
 * TEST UNIT READY, standard INQUIRY (into a larger buffer: the rest is
 * untouched and counted as underflow), VPD pages 0x80 and 0x83, READ
 * CAPACITY(10) and (16) with the configured size, REPORT LUNS with LUN 0
 * alone.  Each answer comes as an RDMA Write into the initiator's buffer,
 * then an SRP_RSP that returns the command's credit.
 */
static void srpt_io_inquiry_and_read_capacity_describe_the_ram_lun(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u64 blocks;
	u8 *d, *p;
	u32 i, len, serial;

	srpt_setup(&ctx, test, form->rdma_cm);
	blocks = srpt_io_lun_blocks(test);
	io = srpt_io_login(&ctx, "srp initiator", 0x7101, 1);
	d = io->srp->data;

	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);

	/* Standard INQUIRY: 36 bytes into 96. */
	memset(d, 0xa5, 96);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_INQUIRY;
	cdb[4] = 96;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, 96);
	srpt_io_run(test, io, &cmd, &rsp);
	KUNIT_EXPECT_EQ(test, rsp.rsp.status, CMKIT_SCSI_STATUS_GOOD);
	KUNIT_EXPECT_EQ(test, rsp.rsp.flags, CMKIT_SRP_RSP_DIUNDER);
	KUNIT_EXPECT_EQ(test, rsp.rsp.data_in_res, 96U - CMKIT_SCSI_INQUIRY_LEN);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, d[0], 0x00);	/* connected, direct access */
	KUNIT_EXPECT_EQ(test, d[2], 0x06);
	KUNIT_EXPECT_EQ(test, d[3] & 0x0f, 0x02);
	KUNIT_EXPECT_EQ(test, d[4], CMKIT_SCSI_INQUIRY_LEN - 5);
	KUNIT_EXPECT_EQ(test, memcmp(d + 8, "CMKIT   ", 8), 0);
	KUNIT_EXPECT_EQ(test, memcmp(d + 16, "RAM DISK        ", 16), 0);
	for (i = CMKIT_SCSI_INQUIRY_LEN; i < 96; i++)
		if (d[i] != 0xa5)
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, 96U, "byte %u past the INQUIRY data written", i);

	/* VPD 0x80: a unit serial number. */
	memset(d, 0, 256);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_INQUIRY;
	cdb[1] = 0x01;
	cdb[2] = CMKIT_SCSI_VPD_SERIAL;
	cdb[4] = 255;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, 255);
	srpt_io_run(test, io, &cmd, &rsp);
	KUNIT_EXPECT_EQ(test, rsp.rsp.status, CMKIT_SCSI_STATUS_GOOD);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, d[1], CMKIT_SCSI_VPD_SERIAL);
	serial = cmkit_get_be16(d + 2);
	KUNIT_EXPECT_GT(test, serial, 0U);
	KUNIT_EXPECT_LE(test, serial, (u32)CMKIT_SCSI_SERIAL_MAX);
	KUNIT_EXPECT_EQ(test, rsp.rsp.data_in_res, 255U - 4 - serial);

	/* VPD 0x83: the T10 vendor ID designator, then an NAA one. */
	memset(d, 0, 256);
	cdb[2] = CMKIT_SCSI_VPD_DEVICE_ID;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, 255);
	srpt_io_run(test, io, &cmd, &rsp);
	KUNIT_EXPECT_EQ(test, rsp.rsp.status, CMKIT_SCSI_STATUS_GOOD);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, d[1], CMKIT_SCSI_VPD_DEVICE_ID);
	len = cmkit_get_be16(d + 2);
	KUNIT_EXPECT_EQ(test, len, 4 + 8 + serial + 4 + 8);
	p = d + 4;
	KUNIT_EXPECT_EQ(test, p[1] & 0x0f, 0x01);	/* T10 vendor ID */
	KUNIT_EXPECT_EQ(test, memcmp(p + 4, "CMKIT   ", 8), 0);
	p += 4 + p[3];
	KUNIT_EXPECT_EQ(test, p[1] & 0x0f, 0x03);	/* NAA */
	KUNIT_EXPECT_EQ(test, p[3], 8);
	KUNIT_EXPECT_EQ(test, p[4] >> 4, 0x3);	/* locally assigned */

	/* READ CAPACITY(10): the last LBA and 512-byte blocks. */
	memset(d, 0, 64);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_READ_CAPACITY_10;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, CMKIT_SCSI_READ_CAPACITY_10_LEN);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, (u64)cmkit_get_be32(d), blocks - 1);
	KUNIT_EXPECT_EQ(test, cmkit_get_be32(d + 4), 512U);

	/* READ CAPACITY(16). */
	memset(d, 0xff, 64);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_SERVICE_ACTION_IN_16;
	cdb[1] = CMKIT_SCSI_SAI_READ_CAPACITY_16;
	cmkit_put_be32(cdb + 10, CMKIT_SCSI_READ_CAPACITY_16_LEN);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, CMKIT_SCSI_READ_CAPACITY_16_LEN);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, cmkit_get_be64(d), blocks - 1);
	KUNIT_EXPECT_EQ(test, cmkit_get_be32(d + 8), 512U);
	KUNIT_EXPECT_EQ(test, d[12], 0);	/* no protection */

	/* REPORT LUNS: LUN 0 only. */
	memset(d, 0xff, 64);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_REPORT_LUNS;
	cmkit_put_be32(cdb + 6, 64);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, 64);
	srpt_io_run(test, io, &cmd, &rsp);
	KUNIT_EXPECT_EQ(test, rsp.rsp.status, CMKIT_SCSI_STATUS_GOOD);
	KUNIT_EXPECT_EQ(test, rsp.rsp.data_in_res, 64U - 16);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, cmkit_get_be32(d), 8U);
	KUNIT_EXPECT_EQ(test, cmkit_get_be64(d + 8), 0ULL);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 7U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), 7U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_writes), 6U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* How the WRITE of a write-then-read-back case carries its data. */
enum srpt_io_kind {
	SRPT_IO_DIRECT,
	SRPT_IO_INDIRECT,
	SRPT_IO_IMMEDIATE,
};

/*
 * The initiator's data buffer, for the write-then-read-back cases:
 * [0, 64K) data-out, [64K, 128K) data-in, [128K, 192K) what the disk held
 * before, [192K, ...) descriptor tables.
 */
#define SRPT_IO_OUT	0
#define SRPT_IO_IN	(64 * 1024)
#define SRPT_IO_BEFORE	(128 * 1024)
#define SRPT_IO_TABLE	(192 * 1024)

/* READ(10) of @blocks blocks at @lba into one direct buffer at @off. */
static void srpt_io_read(struct kunit *test, struct srpt_io *io, u32 lba,
			 u16 blocks, u32 off)
{
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	u8 cdb[CMKIT_SRP_CDB_LEN];

	srpt_cdb_rw10(cdb, CMKIT_SCSI_READ_10, lba, blocks);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, off, blocks * 512);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	cmkit_srp_peer_sync_for_cpu(io->srp);
}

/*
 * Split @len bytes into pieces of @sizes (the last one takes the rest),
 * from @off, @gap bytes apart.  Returns the number of pieces.
 */
static unsigned int srpt_io_split(struct srpt_seg *seg, const u32 *sizes,
				  unsigned int n, u32 len, u32 off, u32 gap)
{
	unsigned int i;
	u32 l;

	for (i = 0; i < n && len; i++) {
		l = i < n - 1 ? min(sizes[i], len) : len;
		seg[i] = (struct srpt_seg){ off, l };
		off += l + gap;
		len -= l;
	}
	return i;
}

/*
 * WRITE(10) @blocks blocks at @lba from the data-out area, carried as
 * @kind says, then READ(16) them back into the data-in area, carried the
 * other way (direct for indirect, indirect for direct and immediate: both
 * descriptor forms of data-in too).  The bytes read must be the ones
 * written, and the blocks either side of the range the ones there before.
 */
static void srpt_io_write_read_back(struct kunit *test, struct srpt_io *io,
				    enum srpt_io_kind kind, u32 lba, u16 blocks,
				    u32 seed)
{
	/* Pieces of odd sizes, apart from each other in memory. */
	static const u32 out_len[] = { 1000, 20000, 8192, 0 };
	static const u32 in_len[] = { 512, 1000, 6068, 100, 16384, 0 };
	struct srpt_seg seg[8];
	u32 len = blocks * 512, i, n, nseg;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u8 *d = io->srp->data, *want, *list;

	KUNIT_ASSERT_LE(test, len, 32768U);
	want = kunit_kzalloc(test, len, GFP_KERNEL);
	list = kunit_kzalloc(test, ARRAY_SIZE(seg) * CMKIT_SRP_DIRECT_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, list);

	/* What the disk holds in and around the range before. */
	srpt_io_read(test, io, lba - 1, blocks + 2, SRPT_IO_BEFORE);

	srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, lba, blocks);
	srpt_io_cmd(io, &cmd, cdb);
	switch (kind) {
	case SRPT_IO_DIRECT:
	case SRPT_IO_IMMEDIATE:
		cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, len, seed);
		memcpy(want, d + SRPT_IO_OUT, len);
		if (kind == SRPT_IO_DIRECT)
			srpt_io_direct(io, &cmd.out, SRPT_IO_OUT, len);
		else
			srpt_io_immediate(io, &cmd.out, SRPT_IO_OUT, len);
		break;
	case SRPT_IO_INDIRECT:
		nseg = srpt_io_split(seg, out_len, ARRAY_SIZE(out_len), len,
				     SRPT_IO_OUT, 1000);
		KUNIT_ASSERT_EQ(test, nseg, (u32)ARRAY_SIZE(out_len));
		for (i = 0, n = 0; i < nseg; n += seg[i].len, i++) {
			cmkit_srp_peer_fill(io->srp, seg[i].off, seg[i].len, seed + i);
			memcpy(want + n, d + seg[i].off, seg[i].len);
		}
		KUNIT_ASSERT_LE(test, seg[nseg - 1].off + seg[nseg - 1].len,
				(u32)SRPT_IO_IN);
		srpt_io_indirect(io, &cmd.out, seg, nseg, nseg, SRPT_IO_TABLE, list);
		break;
	}
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);

	/* Read it back, the other way. */
	memset(d + SRPT_IO_IN, 0x5a, SRPT_IO_BEFORE - SRPT_IO_IN);
	srpt_cdb_rw16(cdb, CMKIT_SCSI_READ_16, lba, blocks);
	srpt_io_cmd(io, &cmd, cdb);
	if (kind == SRPT_IO_INDIRECT) {
		srpt_io_direct(io, &cmd.in, SRPT_IO_IN, len);
		nseg = 0;
	} else {
		nseg = srpt_io_split(seg, in_len, ARRAY_SIZE(in_len), len,
				     SRPT_IO_IN, 8);
		KUNIT_ASSERT_GE(test, nseg, 3U);
		srpt_io_indirect(io, &cmd.in, seg, nseg, nseg, SRPT_IO_TABLE + 1024,
				 list);
	}
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	if (!nseg)
		KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN, want, len), 0);
	for (i = 0, n = 0; i < nseg; n += seg[i].len, i++) {
		KUNIT_EXPECT_EQ_MSG(test, memcmp(d + seg[i].off, want + n, seg[i].len),
				    0, "data-in piece %u", i);
		/* Nothing between the pieces was written. */
		KUNIT_EXPECT_EQ(test, d[seg[i].off + seg[i].len], 0x5a);
	}

	/* The blocks either side of the range are untouched. */
	srpt_io_read(test, io, lba - 1, blocks + 2, SRPT_IO_IN);
	KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN, d + SRPT_IO_BEFORE, 512), 0);
	KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN + 512, want, len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN + 512 + len,
				     d + SRPT_IO_BEFORE + 512 + len, 512), 0);
}

static void srpt_io_write_then_read_back(struct kunit *test, enum srpt_io_kind kind,
					 u64 tag)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u32 lba = 2048 + 256 * kind + 128 * form->rdma_cm;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login(&ctx, "srp initiator", tag, 1);
	/* 32 KiB; immediate data: 4 KiB, which fits in one IU. */
	srpt_io_write_read_back(test, io, kind, lba,
				kind == SRPT_IO_IMMEDIATE ? 8 : 64, (u32)tag);

	/* Two READs of the range around it, the WRITE, the READ back. */
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 4U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), 4U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_writes), 3U);
	/* Immediate data needs no RDMA Read. */
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads),
			kind == SRPT_IO_IMMEDIATE ? 0U : 1U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* Data-out and data-in each as one direct descriptor (and indirect back). */
static void srpt_io_write_then_read_back_direct(struct kunit *test)
{
	srpt_io_write_then_read_back(test, SRPT_IO_DIRECT, 0x7201);
}

/*
 * Data-out as an indirect table of four odd-sized pieces, whole in the IU
 * (the partial list is the table); read back into one direct buffer.
 */
static void srpt_io_write_then_read_back_indirect(struct kunit *test)
{
	srpt_io_write_then_read_back(test, SRPT_IO_INDIRECT, 0x7211);
}

/* Data-out as immediate data inside the SRP_CMD (granted at login). */
static void srpt_io_write_then_read_back_immediate(struct kunit *test)
{
	srpt_io_write_then_read_back(test, SRPT_IO_IMMEDIATE, 0x7221);
}

/*
 * An indirect table that the IU does not carry whole: srpt does not fetch
 * it, and refuses the command with CHECK CONDITION, ILLEGAL REQUEST,
 * INVALID FIELD IN INFORMATION UNIT, for data-out and data-in alike;
 * nothing moves.  The table (2 KiB, 2 KiB, then two empty entries) holds
 * the command's 4 KiB: it is refused with no partial list, and with a
 * partial list of its first two entries, which would do for the transfer
 * (so only the rule refuses it: not a length, not a short list).
 */
/* The external table of the case below, its pieces from @off. */
static unsigned int srpt_io_ext_table(struct srpt_seg *seg, u32 off)
{
	seg[0] = (struct srpt_seg){ off, 2048 };
	seg[1] = (struct srpt_seg){ off + 2048 + 64, 2048 };
	seg[2] = (struct srpt_seg){ off + 4096 + 128, 0 };
	seg[3] = (struct srpt_seg){ off + 4096 + 128, 0 };
	return 4;
}

static void srpt_io_external_indirect_table_is_refused_with_sense(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_seg seg[4];
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu *rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], list[4 * CMKIT_SRP_DIRECT_LEN];
	u32 lba = 3072 + 64 * form->rdma_cm, i, count, n;
	u8 *d, *before;

	srpt_setup(&ctx, test, form->rdma_cm);
	rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsp);
	io = srpt_io_login(&ctx, "srp initiator", 0x7301, 1);
	d = io->srp->data;
	before = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	memcpy(before, srpt_io_disk(test, lba, 4096), 4096);

	for (count = 0; count < 4; count += 2) {
		/* WRITE: the data-out table in the initiator's memory. */
		n = srpt_io_ext_table(seg, SRPT_IO_OUT);
		for (i = 0; i < n; i++)
			cmkit_srp_peer_fill(io->srp, seg[i].off, seg[i].len, 0x7301 + i);
		srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, lba, 8);
		srpt_io_cmd(io, &cmd, cdb);
		srpt_io_indirect(io, &cmd.out, seg, n, count, SRPT_IO_TABLE, list);
		KUNIT_ASSERT_FALSE(test, cmd.out.whole);
		srpt_io_run(test, io, &cmd, rsp);
		srpt_io_expect_sense(test, rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				     CMKIT_SCSI_ASC_INVALID_FIELD_IN_IU, 0x03);

		/* READ: the data-in table in the initiator's memory. */
		memset(d + SRPT_IO_IN, 0x5a, 16384);
		n = srpt_io_ext_table(seg, SRPT_IO_IN);
		srpt_cdb_rw10(cdb, CMKIT_SCSI_READ_10, lba, 8);
		srpt_io_cmd(io, &cmd, cdb);
		srpt_io_indirect(io, &cmd.in, seg, n, count, SRPT_IO_TABLE + 1024, list);
		srpt_io_run(test, io, &cmd, rsp);
		srpt_io_expect_sense(test, rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				     CMKIT_SCSI_ASC_INVALID_FIELD_IN_IU, 0x03);
		cmkit_srp_peer_sync_for_cpu(io->srp);
		for (i = 0; i < 16384; i++)
			if (d[SRPT_IO_IN + i] != 0x5a)
				break;
		KUNIT_EXPECT_EQ_MSG(test, i, 16384U, "a refused READ wrote byte %u", i);
	}
	KUNIT_EXPECT_EQ_MSG(test, memcmp(srpt_io_disk(test, lba, 4096), before, 4096), 0,
			    "a refused WRITE changed the disk");
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 4U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 4U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_writes), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rw_ctx_alive), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/*
 * Three SCSI errors, each with its sense: an operation code srpt does not
 * know (INVALID COMMAND OPERATION CODE), a READ that starts past the last
 * block and one that runs past it (LOGICAL BLOCK ADDRESS OUT OF RANGE,
 * nothing written to the initiator), and LUN 1 (LOGICAL UNIT NOT
 * SUPPORTED).  The channel stays usable: a READ of the last block works.
 */
static void srpt_io_unknown_opcode_and_lba_past_end_and_other_lun_get_sense(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u64 blocks, lun1;
	u8 *d;
	u32 i;

	srpt_setup(&ctx, test, form->rdma_cm);
	blocks = srpt_io_lun_blocks(test);
	io = srpt_io_login(&ctx, "srp initiator", 0x7401, 1);
	d = io->srp->data;

	/* REZERO UNIT: obsolete, not srpt's. */
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x01;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_sense(test, &rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_INVALID_OPCODE, 0);

	memset(d + SRPT_IO_IN, 0x5a, 1024);
	srpt_cdb_rw16(cdb, CMKIT_SCSI_READ_16, blocks, 1);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, SRPT_IO_IN, 512);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_sense(test, &rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_LBA_OUT_OF_RANGE, 0);

	srpt_cdb_rw16(cdb, CMKIT_SCSI_READ_16, blocks - 1, 2);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, SRPT_IO_IN, 1024);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_sense(test, &rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_LBA_OUT_OF_RANGE, 0);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	for (i = 0; i < 1024; i++)
		if (d[SRPT_IO_IN + i] != 0x5a)
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, 1024U, "a refused READ wrote byte %u", i);

	KUNIT_ASSERT_EQ(test, cmkit_scsi_lun_encode(1, &lun1), 0);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
	srpt_io_cmd(io, &cmd, cdb);
	cmd.lun = lun1;
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_sense(test, &rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED, 0);

	/* The last block itself is fine. */
	srpt_cdb_rw16(cdb, CMKIT_SCSI_READ_16, blocks - 1, 1);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, SRPT_IO_IN, 512);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 5U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), 5U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 4U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_writes), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, bad_iu), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/*
 * A WRITE whose CDB asks for more than its data-out buffer holds (32
 * blocks; 4 KiB by RDMA Read, 512 bytes of immediate data): refused, both
 * ways alike, with CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN CDB
 * (cmkit_scsi_check_data_out()), and nothing of it reaches the disk (the
 * immediate form would otherwise copy from past the IU it came in).
 */
static void srpt_io_write_longer_than_its_data_out_buffer(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu *rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], *before;
	u32 lba = 7424 + 64 * form->rdma_cm, len = 32 * 512;

	srpt_setup(&ctx, test, form->rdma_cm);
	rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	before = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsp);
	KUNIT_ASSERT_NOT_NULL(test, before);
	io = srpt_io_login(&ctx, "srp initiator", 0x7f11, 1);
	memcpy(before, srpt_io_disk(test, lba, len), len);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7f11);

	srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, lba, 32);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.out, SRPT_IO_OUT, 4096);
	srpt_io_run(test, io, &cmd, rsp);
	srpt_io_expect_sense(test, rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_INVALID_FIELD_IN_CDB, 0);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(srpt_io_disk(test, lba, len), before, len), 0,
			    "a refused WRITE (RDMA Read) changed the disk");

	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_immediate(io, &cmd.out, SRPT_IO_OUT, 512);
	srpt_io_run(test, io, &cmd, rsp);
	srpt_io_expect_sense(test, rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_INVALID_FIELD_IN_CDB, 0);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(srpt_io_disk(test, lba, len), before, len), 0,
			    "a refused WRITE (immediate data) changed the disk");

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 2U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* Ways an SRP_CMD can fail to decode, its tag still readable. */
enum srpt_io_bad {
	SRPT_IO_BAD_SHORT,	/* 40 bytes */
	SRPT_IO_BAD_FMT_OUT,	/* data-out format 4 (reserved) */
	SRPT_IO_BAD_FMT_IN,	/* data-in format 3 (immediate: data-out only) */
	SRPT_IO_BAD_DESC,	/* a direct data-in descriptor past the IU */
	SRPT_IO_BAD_CDB,	/* an additional CDB past the IU */
	SRPT_IO_BAD_TABLE,	/* a table length not a multiple of 16 */
	SRPT_IO_BAD_TOTAL,	/* a whole table whose lengths miss its total */
	SRPT_IO_BAD_IMM,	/* immediate data past the IU */
	SRPT_IO_BAD_NR,
};

/* Build the malformed SRP_CMD @bad into @iu (a READ(10) of 8 blocks). */
static u32 srpt_io_bad_iu(struct srpt_io *io, enum srpt_io_bad bad, u8 *iu, u64 *tag)
{
	static const struct srpt_seg seg[2] = { { 0, 2048 }, { 4096, 2048 } };
	u8 cdb[CMKIT_SRP_CDB_LEN], list[2 * CMKIT_SRP_DIRECT_LEN];
	struct cmkit_srp_cmd cmd;
	int len;

	srpt_cdb_rw10(cdb, CMKIT_SCSI_READ_10, 100, 8);
	srpt_io_cmd(io, &cmd, cdb);
	*tag = cmd.tag;
	if (bad == SRPT_IO_BAD_TABLE || bad == SRPT_IO_BAD_TOTAL)
		srpt_io_indirect(io, &cmd.in, seg, 2, 2, SRPT_IO_TABLE, list);
	else if (bad == SRPT_IO_BAD_IMM)
		srpt_io_immediate(io, &cmd.out, 0, 1024);
	else
		srpt_io_direct(io, &cmd.in, SRPT_IO_IN, 4096);
	if (bad == SRPT_IO_BAD_IMM)
		cdb[0] = CMKIT_SCSI_WRITE_10;
	len = cmkit_srp_encode_cmd(iu, CMKIT_SRP_PEER_TX_LEN, CMKIT_SRP_PEER_IMM_OFF, &cmd);
	if (len < 0)
		return 0;
	switch (bad) {
	case SRPT_IO_BAD_SHORT:
		return 40;
	case SRPT_IO_BAD_FMT_OUT:
		iu[5] = 0x40 | (iu[5] & 0x0f);
		break;
	case SRPT_IO_BAD_FMT_IN:
		iu[5] = (iu[5] & 0xf0) | CMKIT_SRP_DATA_DESC_IMM;
		break;
	case SRPT_IO_BAD_DESC:
		return CMKIT_SRP_CMD_LEN + CMKIT_SRP_DIRECT_LEN - 4;
	case SRPT_IO_BAD_CDB:
		iu[31] = 8 << 2;	/* 32 more CDB bytes; the IU has 16 */
		return CMKIT_SRP_CMD_LEN + 16;
	case SRPT_IO_BAD_TABLE:
		/* The table's own descriptor: 40 bytes. */
		cmkit_put_be32(iu + CMKIT_SRP_CMD_LEN + 12, 40);
		break;
	case SRPT_IO_BAD_TOTAL:
		cmkit_put_be32(iu + CMKIT_SRP_CMD_LEN + 16, 4096 + 512);
		break;
	case SRPT_IO_BAD_IMM:
		/* 1024 bytes of immediate data said, 512 sent. */
		return CMKIT_SRP_PEER_IMM_OFF + 512;
	default:
		break;
	}
	return len;
}

/*
 * SRP_CMDs that do not decode, one of each kind: each gets an SRP_RSP with
 * its own tag, CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN
 * INFORMATION UNIT, and its credit back; none moves data; the channel
 * goes on (a TEST UNIT READY after them works).
 */
static void srpt_io_malformed_iu_gets_check_condition(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu *rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], *iu;
	unsigned int bad;
	u64 tag;
	u32 len;

	srpt_setup(&ctx, test, form->rdma_cm);
	rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsp);
	iu = kunit_kzalloc(test, CMKIT_SRP_PEER_TX_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, iu);
	io = srpt_io_login(&ctx, "srp initiator", 0x7501, 1);

	for (bad = 0; bad < SRPT_IO_BAD_NR; bad++) {
		len = srpt_io_bad_iu(io, bad, iu, &tag);
		KUNIT_ASSERT_GT_MSG(test, len, 16U, "malformed IU %u", bad);
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, len), 0);
		KUNIT_ASSERT_EQ_MSG(test, cmkit_srp_peer_wait_tag(io->srp, tag, rsp), 0,
				    "malformed IU %u: no SRP_RSP", bad);
		KUNIT_EXPECT_EQ(test, rsp->opcode, CMKIT_SRP_RSP);
		srpt_io_expect_sense(test, rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				     CMKIT_SCSI_ASC_INVALID_FIELD_IN_IU, 0x03);
		KUNIT_EXPECT_EQ_MSG(test, srpt_io_delta(&ctx, bad_iu), bad + 1,
				    "malformed IU %u", bad);
	}
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_run(test, io, &cmd, rsp);
	srpt_io_expect_good(test, rsp);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(io->ini->req.tag), SRPT_CH_LIVE);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, bad_iu), (u32)SRPT_IO_BAD_NR);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), (u32)SRPT_IO_BAD_NR);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), SRPT_IO_BAD_NR + 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_writes), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* srpt's count of the initiator's credits must be @want (and <= the grant). */
static void srpt_io_expect_target_credits(struct kunit *test, struct srpt_io *io,
					  u32 want)
{
	u32 granted = 0, outstanding = 0;

	KUNIT_ASSERT_EQ(test, cmkit_srpt_ch_credits(io->ini->req.tag, &granted,
						    &outstanding), 0);
	KUNIT_EXPECT_EQ(test, granted, io->rsp.req_lim_delta);
	KUNIT_EXPECT_LE(test, outstanding, granted);
	KUNIT_EXPECT_EQ(test, outstanding, want);
}

/*
 * The credits an initiator holds never exceed what the login granted, on
 * either side's count.  Round 1: the whole grant spent at once on a mix of
 * commands (no data, data-in, data-out by RDMA Read and immediate, one
 * that fails), one more refused by the initiator itself; every SRP_RSP
 * returns exactly one, so the sum of req_lim_delta is the grant.  Round 2:
 * with the target's responses held back (srpt_io_stall()), srpt's count
 * mid-flight: one credit returned (the stalled response), the WRITEs'
 * not yet; then every credit comes back.
 */
static void srpt_io_credits_never_exceed_the_grant(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd *cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u32 grant, i, sum = 0;
	u64 first, stall;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7601, 1, true);
	grant = io->rsp.req_lim_delta;
	KUNIT_ASSERT_GE(test, grant, 5U);
	cmd = kunit_kcalloc(test, grant, sizeof(*cmd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	srpt_io_expect_target_credits(test, io, grant);

	/*
	 * The peer's receive ring is posted only once every command is sent:
	 * a response that came back meanwhile would return its credit before
	 * the check below (seen on the debug leg, where sending is slower).
	 */
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7601);
	first = io->tag + 1;
	for (i = 0; i < grant; i++) {
		switch (i % 5) {
		case 0:
			memset(cdb, 0, sizeof(cdb));
			cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
			srpt_io_cmd(io, &cmd[i], cdb);
			break;
		case 1:
			srpt_cdb_rw10(cdb, CMKIT_SCSI_READ_10, 4096 + i, 1);
			srpt_io_cmd(io, &cmd[i], cdb);
			srpt_io_direct(io, &cmd[i].in, SRPT_IO_IN + 512 * i, 512);
			break;
		case 2:
			srpt_io_cmd_write(io, &cmd[i], cdb, 4096 + i, 1, SRPT_IO_OUT);
			break;
		case 3:
			srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, 4096 + i, 1);
			srpt_io_cmd(io, &cmd[i], cdb);
			srpt_io_immediate(io, &cmd[i].out, SRPT_IO_OUT, 512);
			break;
		case 4:
			memset(cdb, 0, sizeof(cdb));
			cdb[0] = 0x01;	/* fails: still one credit back */
			srpt_io_cmd(io, &cmd[i], cdb);
			break;
		}
		KUNIT_ASSERT_EQ_MSG(test, srpt_io_send(io, &cmd[i]), 0, "command %u", i);
	}
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), 0);
	KUNIT_EXPECT_EQ(test, srpt_io_send(io, &cmd[0]), -EAGAIN);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	for (i = 0; i < grant; i++) {
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, first + i, &rsp), 0);
		KUNIT_EXPECT_EQ_MSG(test, rsp.rsp.req_lim_delta, 1U, "command %u", i);
		KUNIT_EXPECT_LE(test, rsp.credits, (s32)grant);
		sum += rsp.rsp.req_lim_delta;
	}
	KUNIT_EXPECT_EQ(test, sum, grant);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)grant);
	KUNIT_EXPECT_EQ(test, io->srp->max_credits, (s32)grant);
	srpt_io_expect_target_credits(test, io, grant);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, over_credit), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, busy), 0U);

	/*
	 * Round 2, on a second login whose ring is held: the stall's
	 * response is posted (srpt counts its credit returned), each WRITE
	 * waits for its RDMA Read (no credit back yet).
	 */
	srpt_io_logout(test, io);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7602, 1, true);
	srpt_rx_watch(io->ini->req.tag);
	srpt_io_stall(test, io, &stall);
	for (i = 1; i < grant; i++) {
		srpt_io_cmd_write(io, &cmd[i], cdb, 4200 + i, 1, SRPT_IO_OUT);
		KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd[i]), 0);
	}
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_READ_POSTED, grant - 1), 0);
	srpt_io_expect_target_credits(test, io, 1);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, stall, &rsp), 0);
	srpt_io_expect_good(test, &rsp);
	for (i = 1; i < grant; i++) {
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, cmd[i].tag, &rsp), 0);
		srpt_io_expect_good(test, &rsp);
	}
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)grant);
	KUNIT_EXPECT_EQ(test, io->srp->max_credits, (s32)grant);
	srpt_io_expect_target_credits(test, io, grant);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, over_credit), 0U);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 2, 2);
	srpt_io_expect_idle(test);
}

/* The SRP_RSP of a task management function: RSPVALID, four bytes, @code. */
static void srpt_io_expect_tmf_rsp(struct kunit *test, const struct cmkit_srp_iu *rsp,
				   u8 code, u32 delta)
{
	KUNIT_EXPECT_EQ(test, rsp->opcode, CMKIT_SRP_RSP);
	KUNIT_EXPECT_TRUE(test, rsp->rsp.flags & CMKIT_SRP_RSP_RSPVALID);
	KUNIT_EXPECT_EQ(test, rsp->rsp.resp_len, (u32)CMKIT_SRP_TSK_MGMT_RSP_DATA_LEN);
	KUNIT_EXPECT_EQ_MSG(test, rsp->rsp.rsp_code, code, "TMF tag %#llx", rsp->tag);
	KUNIT_EXPECT_EQ_MSG(test, rsp->rsp.req_lim_delta, delta, "TMF tag %#llx", rsp->tag);
}

/* No SRP_RSP for @tag, even after a command sent later was answered. */
static void srpt_io_expect_no_rsp(struct kunit *test, struct srpt_io *io, u64 tag)
{
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	u8 cdb[CMKIT_SRP_CDB_LEN] = { CMKIT_SCSI_TEST_UNIT_READY };

	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	KUNIT_EXPECT_FALSE_MSG(test, cmkit_srp_peer_has_tag(io->srp, tag),
			       "an aborted command (tag %#llx) got an SRP_RSP", tag);
}

/*
 * ABORT TASK reaches a WRITE while its RDMA Read is outstanding (pinned:
 * SRPT_HOOK_CMD_READ_POSTED said it was posted, and srpt_io_stall() keeps
 * it from completing; SRPT_HOOK_TMF says the TMF found it).  The command
 * is aborted once, freed by its Read's completion (rw_ctx_alive back to
 * 0), never answered; the TMF answers FUNCTION COMPLETE only after that,
 * returning its own credit and the aborted command's.  (What the aborted
 * WRITE's blocks hold is not asserted: SAM leaves an aborted WRITE's
 * blocks indeterminate, and srpt's Read lands in the disk's pages.)
 */
static void srpt_io_abort_task_before_completion(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_stop *posted, *found;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu *rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], iu[CMKIT_SRP_TSK_MGMT_LEN];
	u32 lba = 5120 + 32 * form->rdma_cm;
	u64 stall, tmf, login;

	srpt_setup(&ctx, test, form->rdma_cm);
	rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsp);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7701, 1, true);
	login = io->ini->req.tag;
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7701);
	srpt_io_stall(test, io, &stall);

	srpt_io_cmd_write(io, &cmd, cdb, lba, 8, SRPT_IO_OUT);
	posted = srpt_stop_arm_cmd(0, SRPT_HOOK_CMD_READ_POSTED, login, cmd.tag, NULL, NULL);
	found = srpt_stop_arm_cmd(1, SRPT_HOOK_TMF, login, cmd.tag, NULL, NULL);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd), 0);
	KUNIT_ASSERT_EQ(test, srpt_stop_wait(posted), 0);
	KUNIT_ASSERT_EQ(test, srpt_io_tmf_iu(io, iu, CMKIT_SRP_TSK_ABORT_TASK, cmd.tag, &tmf),
			CMKIT_SRP_TSK_MGMT_LEN);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, sizeof(iu)), 0);
	KUNIT_ASSERT_EQ(test, srpt_stop_wait(found), 0);
	/* Counted when freed: not yet, its Read is still outstanding. */
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 0U);
	KUNIT_EXPECT_GE(test, srpt_io_now().rw_ctx_alive, 1U);

	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, stall, rsp), 0);
	srpt_io_expect_good(test, rsp);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, tmf, rsp), 0);
	/* Answered only once the aborted command was freed. */
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, abort_in_read), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_now().rw_ctx_alive, 0U);
	srpt_io_expect_tmf_rsp(test, rsp, CMKIT_SRP_TSK_MGMT_COMPLETE, 2);
	srpt_io_expect_no_rsp(test, io, cmd.tag);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, tmf), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 1U);
	KUNIT_EXPECT_EQ(test, srpt_hook_hits(SRPT_HOOK_TMF), 1U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* What SRPT_HOOK_CMD_RESPOND does in the after-completion case. */
struct srpt_io_late_tmf {
	struct cmkit_srp_peer *srp;
	u8 iu[CMKIT_SRP_TSK_MGMT_LEN];
	int ret;
};

/* In srpt's CQ work: post the ABORT TASK (ib_post_send does not sleep). */
static void srpt_io_send_late_tmf(void *arg)
{
	struct srpt_io_late_tmf *late = arg;

	late->ret = cmkit_srp_peer_send(late->srp, late->iu, sizeof(late->iu));
}

/*
 * ABORT TASK sent when the WRITE is about to post its SRP_RSP (from
 * SRPT_HOOK_CMD_RESPOND, so srpt handles the TMF only after the response
 * was posted): the command completes normally (GOOD, its data on the
 * disk), the TMF finds nothing to abort and answers FUNCTION COMPLETE, as
 * for a task that no longer exists; nothing is counted aborted.
 */
static void srpt_io_abort_task_after_completion(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_io_late_tmf *late;
	struct srpt_stop *respond;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u32 lba = 5376 + 32 * form->rdma_cm;
	u64 tmf;

	srpt_setup(&ctx, test, form->rdma_cm);
	late = kunit_kzalloc(test, sizeof(*late), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, late);
	io = srpt_io_login(&ctx, "srp initiator", 0x7711, 1);
	late->srp = io->srp;
	late->ret = -EINPROGRESS;
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7711);

	srpt_io_cmd_write(io, &cmd, cdb, lba, 8, SRPT_IO_OUT);
	KUNIT_ASSERT_EQ(test, srpt_io_tmf_iu(io, late->iu, CMKIT_SRP_TSK_ABORT_TASK,
					     cmd.tag, &tmf), CMKIT_SRP_TSK_MGMT_LEN);
	respond = srpt_stop_arm_cmd(0, SRPT_HOOK_CMD_RESPOND, io->ini->req.tag, cmd.tag,
				    srpt_io_send_late_tmf, late);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd), 0);
	KUNIT_ASSERT_EQ(test, srpt_stop_wait(respond), 0);
	KUNIT_EXPECT_EQ(test, late->ret, 0);

	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, cmd.tag, &rsp), 0);
	srpt_io_expect_good(test, &rsp);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, tmf, &rsp), 0);
	srpt_io_expect_tmf_rsp(test, &rsp, CMKIT_SRP_TSK_MGMT_COMPLETE, 1);
	KUNIT_EXPECT_EQ(test, memcmp(srpt_io_disk(test, lba, 4096),
				     io->srp->data + SRPT_IO_OUT, 4096), 0);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, tmf), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 1U);
	KUNIT_EXPECT_EQ(test, srpt_hook_hits(SRPT_HOOK_TMF), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

#define SRPT_IO_RESET_NR	3

/*
 * LOGICAL UNIT RESET with three WRITEs waiting for their RDMA Reads
 * (srpt_io_stall()): all three are aborted, once each, freed by their
 * Reads' completions, never answered; the reset answers FUNCTION COMPLETE
 * only after that, returning its credit and the three aborted commands'.
 * On LUN 1 the same function FAILS; CLEAR ACA is not supported.
 */
static void srpt_io_lun_reset_aborts_outstanding(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd *cmd;
	struct cmkit_srp_tsk_mgmt tm = { };
	u8 cdb[SRPT_IO_RESET_NR][CMKIT_SRP_CDB_LEN], iu[CMKIT_SRP_TSK_MGMT_LEN];
	struct cmkit_srp_iu *rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u32 lba = 5632 + 64 * form->rdma_cm, i;
	u64 stall, reset;

	srpt_setup(&ctx, test, form->rdma_cm);
	rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	cmd = kunit_kcalloc(test, SRPT_IO_RESET_NR, sizeof(*cmd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsp);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7801, 1, true);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, SRPT_IO_RESET_NR * 4096, 0x7801);
	srpt_io_stall(test, io, &stall);
	for (i = 0; i < SRPT_IO_RESET_NR; i++) {
		srpt_io_cmd_write(io, &cmd[i], cdb[i], lba + 8 * i, 8, SRPT_IO_OUT + 4096 * i);
		KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd[i]), 0);
	}
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_READ_POSTED,
						  SRPT_IO_RESET_NR), 0);
	KUNIT_ASSERT_EQ(test, srpt_io_tmf_iu(io, iu, CMKIT_SRP_TSK_LUN_RESET, 0, &reset),
			CMKIT_SRP_TSK_MGMT_LEN);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, sizeof(iu)), 0);
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_TMF, SRPT_IO_RESET_NR), 0);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 0U);

	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, stall, rsp), 0);
	srpt_io_expect_good(test, rsp);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, reset, rsp), 0);
	/* Answered only once the three were freed. */
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), (u32)SRPT_IO_RESET_NR);
	KUNIT_EXPECT_EQ(test, srpt_io_now().rw_ctx_alive, 0U);
	srpt_io_expect_tmf_rsp(test, rsp, CMKIT_SRP_TSK_MGMT_COMPLETE,
			       1 + SRPT_IO_RESET_NR);
	for (i = 0; i < SRPT_IO_RESET_NR; i++)
		srpt_io_expect_no_rsp(test, io, cmd[i].tag);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), (u32)SRPT_IO_RESET_NR);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, abort_in_read), (u32)SRPT_IO_RESET_NR);
	KUNIT_EXPECT_EQ(test, srpt_hook_hits(SRPT_HOOK_TMF), (u32)SRPT_IO_RESET_NR);

	/* The same on LUN 1 fails; CLEAR ACA is not supported. */
	tm.tag = ++io->tag;
	tm.func = CMKIT_SRP_TSK_LUN_RESET;
	KUNIT_ASSERT_EQ(test, cmkit_scsi_lun_encode(1, &tm.lun), 0);
	cmkit_srp_encode_tsk_mgmt(iu, sizeof(iu), &tm);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, sizeof(iu)), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, tm.tag, rsp), 0);
	srpt_io_expect_tmf_rsp(test, rsp, CMKIT_SRP_TSK_MGMT_FAILED, 1);
	KUNIT_ASSERT_EQ(test, srpt_io_tmf_iu(io, iu, CMKIT_SRP_TSK_CLEAR_ACA, 0, &reset),
			CMKIT_SRP_TSK_MGMT_LEN);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, sizeof(iu)), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, reset, rsp), 0);
	srpt_io_expect_tmf_rsp(test, rsp, CMKIT_SRP_TSK_MGMT_FUNC_NOT_SUPPORTED, 1);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, tmf), 3U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/*
 * The control plane disconnects a channel with a WRITE waiting for its
 * RDMA Read and a READ whose RDMA Write and SRP_RSP are queued (both held
 * by srpt_io_stall()): the initiator gets the DREQ, the release drains
 * the QP and frees both commands' contexts, with no answer for either.
 */
static void srpt_io_target_disconnect_with_io_in_flight(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd w, r;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[2][CMKIT_SRP_CDB_LEN];
	u64 stall, tag;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7901, 1, true);
	tag = io->ini->req.tag;
	srpt_io_stall(test, io, &stall);
	srpt_io_cmd_write(io, &w, cdb[0], 6144, 8, SRPT_IO_OUT);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &w), 0);
	srpt_cdb_rw10(cdb[1], CMKIT_SCSI_READ_10, 6144, 8);
	srpt_io_cmd(io, &r, cdb[1]);
	srpt_io_direct(io, &r.in, SRPT_IO_IN, 4096);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &r), 0);
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_READ_POSTED, 1), 0);
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_RESPOND, 2), 0);
	KUNIT_EXPECT_GE(test, srpt_io_now().ctx_alive, 3U);
	KUNIT_EXPECT_GE(test, srpt_io_now().rw_ctx_alive, 2U);

	KUNIT_ASSERT_EQ(test, srpt_ctl_disconnect(tag), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_target_disconnect(io->ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_nr_ius(io->srp), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, no_ctx), 0U);
}

/*
 * rxe0 goes away while a WRITE's RDMA Read is outstanding (pinned by
 * SRPT_HOOK_CMD_READ_POSTED and srpt_io_stall()): srpt's removal closes
 * the channel, drains its QP, frees every context (the Read's rdma_rw
 * context destroyed once) and the channel, and the removal finishes.
 */
static void srpt_io_removal_with_rdma_reads_outstanding(struct kunit *test)
{
	const struct cmkit_dev_param *rxe = &cmkit_dev_params[CMKIT_RXE];
	const struct srpt_form *form = test->param_value;
	struct cmkit_removal *removal;
	struct cmkit_cm_record rec;
	struct cmkit_srp_cmd w;
	struct ib_device *dev;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u64 stall, tag, sid;
	u8 tport[CMKIT_SRP_PORT_ID_LEN];

	cmkit_skip_rxe_removal_under_kasan(test, rxe);
	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7a01 + form->rdma_cm, 1, true);
	tag = io->ini->req.tag;
	srpt_io_stall(test, io, &stall);
	srpt_io_cmd_write(io, &w, cdb, 6400, 8, SRPT_IO_OUT);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &w), 0);
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_READ_POSTED, 1), 0);
	KUNIT_EXPECT_GE(test, srpt_io_now().rw_ctx_alive, 1U);

	/* Hold the device until the initiator's verbs objects are gone. */
	dev = ctx.dev;
	KUNIT_ASSERT_TRUE(test, ib_device_try_get(dev));
	cmkit_srp_peer_stop(io->srp);
	removal = cmkit_test_remove_device(test, rxe);
	if (!removal)
		ib_device_put(dev);
	KUNIT_ASSERT_NOT_NULL(test, removal);

	KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	/* The initiator's QP before its id (or with it, by rdma_cm's handler). */
	cmkit_srp_peer_destroy(io->srp);
	if (io->ini->rdma_cm)
		KUNIT_EXPECT_EQ(test, cmkit_peer_wait(io->ini->peer,
						      RDMA_CM_EVENT_DEVICE_REMOVAL, &rec), 0);
	else
		srpt_ibcm_destroy(io->ini->ib);
	KUNIT_EXPECT_EQ(test, cmkit_peer_wait(ctx.route, RDMA_CM_EVENT_DEVICE_REMOVAL,
					      &rec), 0);
	ib_device_put(dev);
	KUNIT_ASSERT_EQ(test, cmkit_test_wait_removed(removal), 0);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_target(dev, &sid, tport), -ENODEV);
}

/*
 * A failed post is answered, not dropped: the SRP_RSP of a TEST UNIT READY
 * (SRPT_FAULT_SEND_POST), the RDMA Writes and SRP_RSP of a READ (the same
 * point: nothing reaches the initiator's buffer), and the RDMA Read of a
 * WRITE (SRPT_FAULT_RW_POST: the disk keeps its bytes) each fail once and
 * the command gets SRP_RSP BUSY instead, with its credit; the channel
 * goes on.
 */
static void srpt_io_failed_send_post_answers_busy(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	static const enum srpt_fault faults[] = {
		SRPT_FAULT_SEND_POST, SRPT_FAULT_SEND_POST, SRPT_FAULT_RW_POST,
	};
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], *d, *before;
	u32 lba = 6656 + 16 * form->rdma_cm, i, j;

	srpt_setup(&ctx, test, form->rdma_cm);
	before = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	io = srpt_io_login(&ctx, "srp initiator", 0x7b01, 1);
	d = io->srp->data;
	memcpy(before, srpt_io_disk(test, lba, 4096), 4096);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7b01);

	for (i = 0; i < ARRAY_SIZE(faults); i++) {
		memset(cdb, 0, sizeof(cdb));
		switch (i) {
		case 0:
			cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
			srpt_io_cmd(io, &cmd, cdb);
			break;
		case 1:
			memset(d + SRPT_IO_IN, 0x5a, 4096);
			srpt_cdb_rw10(cdb, CMKIT_SCSI_READ_10, lba, 8);
			srpt_io_cmd(io, &cmd, cdb);
			srpt_io_direct(io, &cmd.in, SRPT_IO_IN, 4096);
			break;
		case 2:
			srpt_io_cmd_write(io, &cmd, cdb, lba, 8, SRPT_IO_OUT);
			break;
		}
		cmkit_fault_arm(&cmkit_srpt_fault_points, BIT(faults[i]), 1);
		srpt_io_run(test, io, &cmd, &rsp);
		KUNIT_EXPECT_EQ_MSG(test, rsp.rsp.status, SAM_STAT_BUSY, "step %u", i);
		KUNIT_EXPECT_EQ_MSG(test, rsp.rsp.req_lim_delta, 1U, "step %u", i);
		KUNIT_EXPECT_EQ(test, srpt_io_now().faults_fired - ctx.base.faults_fired, i + 1);
		KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, busy), i + 1);
		cmkit_fault_disarm(&cmkit_srpt_fault_points);
	}
	cmkit_srp_peer_sync_for_cpu(io->srp);
	for (j = 0; j < 4096; j++)
		if (d[SRPT_IO_IN + j] != 0x5a)
			break;
	KUNIT_EXPECT_EQ_MSG(test, j, 4096U, "a READ answered BUSY wrote byte %u", j);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(srpt_io_disk(test, lba, 4096), before, 4096), 0,
			    "a WRITE answered BUSY reached the disk");

	/* And then all three work. */
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	srpt_io_cmd_write(io, &cmd, cdb, lba, 8, SRPT_IO_OUT);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	srpt_io_read(test, io, lba, 8, SRPT_IO_IN);
	KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN, d + SRPT_IO_OUT, 4096), 0);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 1U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/*
 * A consumed receive IU that cannot be posted again (SRPT_FAULT_RECV_REPOST)
 * closes the channel: it is released with every context (its cm_id
 * destroyed, which ends the connection), and srpt says so once in the
 * kernel log.
 */
static void srpt_io_failed_repost_closes_the_channel(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct kmsg_dump_iter it;
	struct cmkit_srp_cmd cmd;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN] = { CMKIT_SCSI_TEST_UNIT_READY };
	u64 tag;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login(&ctx, "srp initiator", 0x7c01, 1);
	tag = io->ini->req.tag;
	srpt_log_mark(&it);
	cmkit_fault_arm(&cmkit_srpt_fault_points, BIT(SRPT_FAULT_RECV_REPOST), 1);
	srpt_io_cmd(io, &cmd, cdb);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd), 0);
	/* Closed: the release destroys the cm_id (ib_cm's best-effort DREQ). */
	KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_end(io->ini), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
	KUNIT_EXPECT_EQ(test, srpt_io_now().faults_fired - ctx.base.faults_fired, 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 1U);
	KUNIT_EXPECT_EQ(test, srpt_log_count(&it, "reposting a receive IU failed"), 1U);
}

/*
 * Spend every credit with the target's responses held (srpt_io_stall()):
 * the stall, then @grant WRITEs that wait for their RDMA Reads (the last
 * one sent on the stall's credit, which srpt counts as returned and the
 * initiator has not seen yet).  srpt's count is then 0.
 */
static void srpt_io_spend_all(struct kunit *test, struct srpt_io *io,
			      struct cmkit_srp_cmd *cmd, u8 (*cdb)[CMKIT_SRP_CDB_LEN],
			      u32 lba, u64 *stall)
{
	u32 grant = io->rsp.req_lim_delta, i;

	srpt_io_stall(test, io, stall);
	for (i = 0; i < grant; i++) {
		srpt_io_cmd_write(io, &cmd[i], cdb[i], lba + i, 1, SRPT_IO_OUT);
		KUNIT_ASSERT_EQ(test, srpt_io_send_opt(io, &cmd[i], i == grant - 1), 0);
	}
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_READ_POSTED, grant), 0);
	srpt_io_expect_target_credits(test, io, 0);
}

/* Send @n TEST UNIT READYs whatever the credits; their tags from @cmd. */
static void srpt_io_send_over(struct kunit *test, struct srpt_io *io,
			      struct cmkit_srp_cmd *cmd, u8 *cdb, u32 n)
{
	u32 i;

	memset(cdb, 0, CMKIT_SRP_CDB_LEN);
	cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
	for (i = 0; i < n; i++) {
		srpt_io_cmd(io, &cmd[i], cdb);
		KUNIT_ASSERT_EQ(test, srpt_io_send_opt(io, &cmd[i], true), 0);
	}
}

/* Send contexts per channel beyond the grant (API: rq_size + 4). */
#define SRPT_IO_SPARE_CTX	4

/*
 * An initiator that ignores its credits.  Every credit spent
 * (srpt_io_spend_all()), two more IUs: each is counted over credit and
 * answered SRP_RSP BUSY returning no credit (a reserve send context was
 * free); the channel survives and, once the responses flow, answers
 * everything else GOOD and counts every credit back.  A second channel
 * floods on until no send context is left at all: the channel is closed,
 * and released with every context.
 */
static void srpt_io_flood_beyond_the_credit_limit_is_refused(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd *cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 (*cdb)[CMKIT_SRP_CDB_LEN];
	u32 grant, i, over = 2, to_close;
	u64 stall;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7d01, 1, true);
	grant = io->rsp.req_lim_delta;
	cmd = kunit_kcalloc(test, grant + 8, sizeof(*cmd), GFP_KERNEL);
	cdb = kunit_kcalloc(test, grant + 8, CMKIT_SRP_CDB_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_ASSERT_NOT_NULL(test, cdb);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 512, 0x7d01);

	srpt_io_spend_all(test, io, cmd, cdb, 6912, &stall);
	srpt_io_send_over(test, io, cmd + grant, cdb[grant], over);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, stall, &rsp), 0);
	srpt_io_expect_good(test, &rsp);
	for (i = 0; i < grant; i++) {
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, cmd[i].tag, &rsp), 0);
		srpt_io_expect_good(test, &rsp);
	}
	for (i = grant; i < grant + over; i++) {
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, cmd[i].tag, &rsp), 0);
		KUNIT_EXPECT_EQ(test, rsp.rsp.status, SAM_STAT_BUSY);
		KUNIT_EXPECT_EQ(test, rsp.rsp.req_lim_delta, 0U);
	}
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, over_credit), over);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, busy), over);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, no_ctx), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), grant);
	srpt_io_expect_target_credits(test, io, grant);
	srpt_io_expect_no_rsp(test, io, 0);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(io->ini->req.tag), SRPT_CH_LIVE);
	srpt_io_logout(test, io);

	/*
	 * Past the reserve: @grant + 1 contexts hold the stall and the
	 * WRITEs, the rest answer BUSY, and the next IU finds none.
	 */
	KUNIT_ASSERT_EQ(test, srpt_wait_quiescent(), 0);
	cmkit_srpt_counters(&ctx.base);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7d02, 1, true);
	to_close = SRPT_IO_SPARE_CTX;
	srpt_io_spend_all(test, io, cmd, cdb, 6912, &stall);
	srpt_io_send_over(test, io, cmd + grant, cdb[grant], to_close);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(io->ini->req.tag, -ENOENT), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_end(io->ini), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, over_credit), to_close);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, busy), to_close - 1);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, no_ctx), 1U);
}

/*
 * A WRITE whose indirect buffer names two pieces, the first with an rkey
 * the initiator never gave out.  The target posts the two RDMA Reads as
 * one chain; rdma_rw signals only the last WR, so the first one's failure
 * (remote access error) comes with no wr_cqe and the core drops it: srpt
 * sees only the second Read flushed.  That flush, and the receives
 * flushed with it, must still close the channel (the QP left RTS behind
 * srpt's back): it is released with every send and rdma_rw context, the
 * WRITE gets no answer, and srpt says so once in the kernel log (the
 * flushes after its own close stay silent).
 */
static void srpt_io_failed_rdma_read_closes_the_channel(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_seg seg[2] = {
		{ SRPT_IO_OUT, 2048 },
		{ SRPT_IO_OUT + 8192, 2048 },
	};
	struct cmkit_srp_direct bad;
	struct kmsg_dump_iter it;
	struct cmkit_srp_cmd cmd;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], *list;
	char needle[40];
	u64 tag;

	srpt_setup(&ctx, test, form->rdma_cm);
	list = kunit_kzalloc(test, ARRAY_SIZE(seg) * CMKIT_SRP_DIRECT_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, list);
	io = srpt_io_login(&ctx, "srp initiator", 0x7c11, 1);
	tag = io->ini->req.tag;
	snprintf(needle, sizeof(needle), "channel of tag %#llx: ", tag);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 12288, 0x7c11);

	srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, 7936 + 16 * form->rdma_cm, 8);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_indirect(io, &cmd.out, seg, ARRAY_SIZE(seg), ARRAY_SIZE(seg),
			 SRPT_IO_TABLE, list);
	/* The first piece's key, with its key byte changed: no such MR. */
	cmkit_srp_peer_desc(io->srp, seg[0].off, seg[0].len, &bad);
	bad.key ^= 0x5a;
	cmkit_srp_put_direct(list, &bad);
	srpt_log_mark(&it);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd), 0);

	KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_end(io->ini), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_nr_ius(io->srp), 0U);
	KUNIT_EXPECT_EQ(test, srpt_log_count(&it, needle), 1U);
}

/* Of a channel's send contexts, the last ones are the reserve (API: 2). */
#define SRPT_IO_RESERVE_CTX	2
/* Commands that find only the reserve in the next case. */
#define SRPT_IO_CTX_WAITERS	4

/*
 * Send contexts held past the credits they returned: with the initiator's
 * receive ring held back, every SRP_RSP meets an RNR NAK, so no send
 * completes and no context comes back, while srpt counts each response's
 * credit as returned when it posts it.  The initiator sends TEST UNIT
 * READYs on those credits (srpt's count never drops below the grant less
 * one: none comes over credit), as a conforming initiator does when its
 * SRP_RSPs overtake the target's send completions.  The commands past the
 * last context but the reserve must wait for one, not be answered BUSY
 * (nor close the channel once the reserve is gone too): once the ring is
 * posted, every command is answered GOOD, in the order sent, each with
 * its credit.
 */
static void srpt_io_commands_wait_for_a_send_context_in_order(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd *cmd;
	struct cmkit_srp_iu *ius;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN] = { CMKIT_SCSI_TEST_UNIT_READY };
	u32 grant, run, total, recv, i;
	unsigned long flags;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7c21, 1, true);
	grant = io->rsp.req_lim_delta;
	/* The contexts a credited IU may take, then some that must wait. */
	run = grant + SRPT_IO_SPARE_CTX - SRPT_IO_RESERVE_CTX;
	total = run + SRPT_IO_CTX_WAITERS;
	KUNIT_ASSERT_LE(test, total, (u32)CMKIT_SRP_PEER_NR_TX);
	KUNIT_ASSERT_LE(test, total, (u32)CMKIT_SRP_PEER_MAX_IUS);
	cmd = kunit_kcalloc(test, total, sizeof(*cmd), GFP_KERNEL);
	ius = kunit_kcalloc(test, total, sizeof(*ius), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_ASSERT_NOT_NULL(test, ius);

	recv = srpt_hook_hits(SRPT_HOOK_RECV);
	for (i = 0; i < total; i++) {
		srpt_io_cmd(io, &cmd[i], cdb);
		KUNIT_ASSERT_EQ_MSG(test, srpt_io_send_opt(io, &cmd[i], true), 0,
				    "command %u", i);
	}
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_RECV, recv + total), 0);
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_RESPOND, run), 0);
	/* Every context but the reserve holds a response; the rest wait. */
	KUNIT_EXPECT_EQ(test, srpt_io_now().ctx_alive, run);
	srpt_io_expect_target_credits(test, io, grant);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(io->ini->req.tag), SRPT_CH_LIVE);

	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ_MSG(test, cmkit_srp_peer_wait_ius(io->srp, total), 0,
			    "%u of %u commands answered", cmkit_srp_peer_nr_ius(io->srp),
			    total);
	spin_lock_irqsave(&io->srp->lock, flags);
	memcpy(ius, io->srp->ius, total * sizeof(*ius));
	spin_unlock_irqrestore(&io->srp->lock, flags);
	for (i = 0; i < total; i++) {
		KUNIT_EXPECT_EQ_MSG(test, ius[i].opcode, CMKIT_SRP_RSP, "answer %u", i);
		KUNIT_EXPECT_EQ_MSG(test, ius[i].tag, cmd[i].tag,
				    "answer %u is for tag %#llx, not %#llx", i,
				    ius[i].tag, cmd[i].tag);
		srpt_io_expect_good(test, &ius[i]);
	}
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, busy), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, no_ctx), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, over_credit), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), total);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), total);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)grant);
	KUNIT_EXPECT_EQ(test, io->srp->max_credits, (s32)grant);
	srpt_io_expect_target_credits(test, io, grant);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(io->ini->req.tag), SRPT_CH_LIVE);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* In srpt's CQ work: srpt's counters as they are there (does not sleep). */
static void srpt_io_snap_counters(void *arg)
{
	cmkit_srpt_counters(arg);
}

/*
 * A WRITE waits for its RDMA Read (srpt_io_stall()) and ABORT TASK aborts
 * it (SRPT_HOOK_TMF); then, as ib_srp's error handling escalates, LOGICAL
 * UNIT RESET and another ABORT TASK of the same WRITE come while its Read
 * is still outstanding.  Both find the command already aborted: they must
 * wait for it to be freed too, so none of the three is answered before
 * the Read completes (checked when the TEST UNIT READY sent after them is
 * handled: only the stall's SRP_RSP was posted), and then they are
 * answered in order, each FUNCTION COMPLETE, after the TEST UNIT READY's.
 * The command is aborted once (one SRPT_HOOK_TMF, aborted 1) and never
 * answered; the first TMF returns its credit and the command's.
 */
static void srpt_io_second_tmf_waits_for_the_aborted_command(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	static const u8 func[] = {
		CMKIT_SRP_TSK_ABORT_TASK, CMKIT_SRP_TSK_LUN_RESET,
		CMKIT_SRP_TSK_ABORT_TASK,
	};
	struct srpt_stop *posted, *found, *fenced;
	struct cmkit_srp_cmd w, fence;
	struct srpt_counters *snap;
	struct cmkit_srp_iu *ius;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[2][CMKIT_SRP_CDB_LEN] = { }, iu[CMKIT_SRP_TSK_MGMT_LEN];
	u64 stall, tmf[ARRAY_SIZE(func)], want[2 + ARRAY_SIZE(func)], login;
	unsigned long flags;
	u32 i, n = ARRAY_SIZE(want);

	srpt_setup(&ctx, test, form->rdma_cm);
	snap = kunit_kzalloc(test, sizeof(*snap), GFP_KERNEL);
	ius = kunit_kcalloc(test, n, sizeof(*ius), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_ASSERT_NOT_NULL(test, ius);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7c31, 1, true);
	login = io->ini->req.tag;
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7c31);
	srpt_io_stall(test, io, &stall);

	srpt_io_cmd_write(io, &w, cdb[0], 8192 + 32 * form->rdma_cm, 8, SRPT_IO_OUT);
	posted = srpt_stop_arm_cmd(0, SRPT_HOOK_CMD_READ_POSTED, login, w.tag, NULL, NULL);
	found = srpt_stop_arm_cmd(1, SRPT_HOOK_TMF, login, w.tag, NULL, NULL);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &w), 0);
	KUNIT_ASSERT_EQ(test, srpt_stop_wait(posted), 0);
	for (i = 0; i < ARRAY_SIZE(func); i++) {
		KUNIT_ASSERT_EQ(test, srpt_io_tmf_iu(io, iu, func[i], w.tag, &tmf[i]),
				CMKIT_SRP_TSK_MGMT_LEN);
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, sizeof(iu)), 0);
		if (!i)
			KUNIT_ASSERT_EQ(test, srpt_stop_wait(found), 0);
	}
	/* Handled after the three TMFs, while the Read is still held. */
	cdb[1][0] = CMKIT_SCSI_TEST_UNIT_READY;
	srpt_io_cmd(io, &fence, cdb[1]);
	fenced = srpt_stop_arm_cmd(2, SRPT_HOOK_CMD_RESPOND, login, fence.tag,
				   srpt_io_snap_counters, snap);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &fence), 0);
	KUNIT_ASSERT_EQ(test, srpt_stop_wait(fenced), 0);
	KUNIT_EXPECT_EQ(test, snap->tmf - ctx.base.tmf, (u32)ARRAY_SIZE(func));
	KUNIT_EXPECT_EQ_MSG(test, snap->rsps - ctx.base.rsps, 1U,
			    "a TMF was answered while the command it aborts still had its RDMA Read outstanding");
	KUNIT_EXPECT_EQ(test, snap->aborted - ctx.base.aborted, 0U);
	KUNIT_EXPECT_GE(test, snap->rw_ctx_alive, 1U);

	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_ius(io->srp, n), 0);
	spin_lock_irqsave(&io->srp->lock, flags);
	memcpy(ius, io->srp->ius, n * sizeof(*ius));
	spin_unlock_irqrestore(&io->srp->lock, flags);
	/* The stall, the TEST UNIT READY, then the TMFs in the order sent. */
	want[0] = stall;
	want[1] = fence.tag;
	memcpy(want + 2, tmf, sizeof(tmf));
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, ius[i].tag, want[i],
				    "answer %u is for tag %#llx, not %#llx", i,
				    ius[i].tag, want[i]);
	srpt_io_expect_good(test, &ius[0]);
	srpt_io_expect_good(test, &ius[1]);
	for (i = 0; i < ARRAY_SIZE(func); i++)
		srpt_io_expect_tmf_rsp(test, &ius[2 + i], CMKIT_SRP_TSK_MGMT_COMPLETE,
				       i ? 1 : 2);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, abort_in_read), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, tmf), (u32)ARRAY_SIZE(func));
	KUNIT_EXPECT_EQ(test, srpt_hook_hits(SRPT_HOOK_TMF), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_now().rw_ctx_alive, 0U);
	srpt_io_expect_no_rsp(test, io, w.tag);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

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

/*
 * IUs after which SRP wants the channel gone: an unknown opcode and a
 * short SRP_TSK_MGMT get an SRP_T_LOGOUT with the reason, then a DREQ; an
 * SRP_I_LOGOUT gets the DREQ alone.  The channel is released with every
 * context either way.
 */
static void srpt_io_logout_ius_close_the_channel(struct kunit *test)
{
	const struct srpt_io_close_param *p = test->param_value;
	struct cmkit_srp_short_iu out = { .opcode = CMKIT_SRP_I_LOGOUT };
	struct cmkit_srp_tsk_mgmt tm = { .func = CMKIT_SRP_TSK_ABORT_TASK };
	struct cmkit_srp_iu got;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 iu[CMKIT_SRP_TSK_MGMT_LEN] = { };
	u32 len = 0;
	u64 tag;

	srpt_setup(&ctx, test, p->rdma_cm);
	io = srpt_io_login(&ctx, "srp initiator", 0x7e01 + p->what, 1);
	tag = ++io->tag;
	switch (p->what) {
	case SRPT_IO_CLOSE_UNKNOWN:
		iu[0] = 0x7f;
		cmkit_put_be64(iu + 8, tag);
		len = 32;
		break;
	case SRPT_IO_CLOSE_SHORT_TMF:
		tm.tag = tag;
		cmkit_srp_encode_tsk_mgmt(iu, sizeof(iu), &tm);
		len = 40;
		break;
	case SRPT_IO_CLOSE_I_LOGOUT:
		out.tag = tag;
		len = cmkit_srp_encode_short_iu(iu, sizeof(iu), &out);
		break;
	}
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, len), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_target_disconnect(io->ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(io->ini->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);

	if (p->what == SRPT_IO_CLOSE_I_LOGOUT) {
		KUNIT_EXPECT_EQ(test, cmkit_srp_peer_nr_ius(io->srp), 0U);
		KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, t_logouts), 0U);
		KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, bad_iu), 0U);
		return;
	}
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, tag, &got), 0);
	KUNIT_EXPECT_EQ(test, got.opcode, CMKIT_SRP_T_LOGOUT);
	KUNIT_EXPECT_EQ(test, got.err, 0);
	KUNIT_EXPECT_EQ(test, got.value, p->what == SRPT_IO_CLOSE_UNKNOWN ?
			CMKIT_SRP_T_LOGOUT_INVALID_IU_TYPE :
			CMKIT_SRP_T_LOGOUT_INVALID_IU_LEN);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, t_logouts), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, bad_iu), 1U);
}

/*
 * A login that offers the target no RDMA Read depth (responder resources
 * 0, ib_cm form: the rdma_cm peer always offers one): a WRITE whose data
 * the target would have to RDMA-read is refused with INVALID FIELD IN
 * INFORMATION UNIT; the same data as immediate data is written, and a READ
 * (RDMA Writes need no depth) reads it back.
 */
static void srpt_io_write_without_read_depth_gets_sense(struct kunit *test)
{
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], *d, *before;
	u32 lba = 7168;

	srpt_setup(&ctx, test, false);
	before = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	io = srpt_io_login_depth(&ctx, "srp initiator", 0x7f01, 1, 0);
	d = io->srp->data;
	memcpy(before, srpt_io_disk(test, lba, 4096), 4096);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7f01);

	srpt_io_cmd_write(io, &cmd, cdb, lba, 8, SRPT_IO_OUT);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_sense(test, &rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_INVALID_FIELD_IN_IU, 0x03);
	KUNIT_EXPECT_EQ(test, memcmp(srpt_io_disk(test, lba, 4096), before, 4096), 0);

	srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, lba, 8);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_immediate(io, &cmd.out, SRPT_IO_OUT, 4096);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	srpt_io_read(test, io, lba, 8, SRPT_IO_IN);
	KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN, d + SRPT_IO_OUT, 4096), 0);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 1U);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

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
