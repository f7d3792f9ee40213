// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit: the connection side of an SRP target on the IB CM.
 *
 * For every device whose port 1 speaks the IB CM (InfiniBand and RoCE, so
 * rxe but not siw), two listeners are created with
 * ib_create_cm_id(device, srpt_cm_handler, sdev) and ib_cm_listen():
 *
 *  - the native form, as ib_srpt: the service id is the device's node GUID
 *    (or the srpt_service_id parameter), and the REQ private data is a
 *    64-byte SRP_LOGIN_REQ;
 *  - the rdma_cm form: the service id of port srpt_rdma_cm_port in rdma_cm's
 *    TCP port space, so that rdma_cm initiators (in the kernel, or in user
 *    space through librdmacm) reach the same handler.  Their REQ private
 *    data is rdma_cm's 36-byte IP header followed by the 56-byte compact
 *    login, the only form of a login that fits in 92 bytes behind it.
 *
 * A login that passes its checks gets a channel (struct srpt_rdma_ch) with
 * an RC QP, the channel takes over the cm_id, and a REP carries an
 * SRP_LOGIN_RSP; a bad one gets a REJ carrying an SRP_LOGIN_REJ.  Behind
 * each channel is LUN 0, a RAM disk (srpt_lun.c), served by srpt_io.c.
 *
 * Ownership of a cm_id, which srpt_cm_handler()'s return value encodes:
 * until srpt_cm_req_recv() hands the cm_id over to a channel
 * (cm_id->context = ch), ib_cm owns it and destroys it when the handler
 * returns non-zero.  From the hand-over on, the channel owns it, and the
 * channel's release work is the only place that destroys it; the handler
 * then returns 0 for every event, whatever happens.
 *
 * Locking: sdev->mutex serialises logins against disconnects and protects
 * sdev->enabled and every change of sdev->ch_list.  Whoever walks the list
 * under the mutex may use a listed channel's cm_id: the release work
 * unlists a channel under the mutex before it destroys the cm_id.  Lookups
 * that only read a channel's tag and state walk the list under RCU;
 * channels are freed after a grace period.  ch->lock protects ch->state,
 * which only ever moves up.
 */
#define pr_fmt(fmt) "cmkit: srpt: " fmt

#include <linux/module.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <cmkit/srp.h>

#include "core/cmkit.h"
#include "srpt/internal.h"

#define CREATE_TRACE_POINTS
#include "srpt/trace.h"

static unsigned long long srpt_service_id;
module_param(srpt_service_id, ullong, 0444);
MODULE_PARM_DESC(srpt_service_id,
		 "srpt: native SRP service id; 0 (default): each device's node GUID");

static ushort srpt_rdma_cm_port = 5555;
module_param(srpt_rdma_cm_port, ushort, 0444);
MODULE_PARM_DESC(srpt_rdma_cm_port,
		 "srpt: rdma_cm TCP port of the rdma_cm-form listener; 0: none");

static uint srpt_max_req_size = 8260;
module_param(srpt_max_req_size, uint, 0444);
MODULE_PARM_DESC(srpt_max_req_size,
		 "srpt: largest initiator-to-target IU accepted, in bytes");

/* Request limit granted at login: the receive IUs of each channel. */
#define SRPT_RQ_SIZE		16
/* Responder resources and initiator depth offered at most, as ib_srpt. */
#define SRPT_RD_ATOMIC		4
/* REQ results remembered for tests. */
#define SRPT_NR_RESULTS		256

/* Protects srpt_devices and the REQ results. */
static DEFINE_SPINLOCK(srpt_lock);
static LIST_HEAD(srpt_devices);
static struct workqueue_struct *srpt_wq;
static struct ib_client srpt_client;
static bool srpt_registered;	/* under srpt_start_mutex */

static atomic_t srpt_nr_ch_alloc = ATOMIC_INIT(0);
static atomic_t srpt_nr_ch_handed_over = ATOMIC_INIT(0);
static atomic_t srpt_nr_ch_freed = ATOMIC_INIT(0);
static atomic_t srpt_nr_cm_id_destroyed = ATOMIC_INIT(0);
static atomic_t srpt_nr_release_twice = ATOMIC_INIT(0);
static atomic_t srpt_nr_req_rejected = ATOMIC_INIT(0);
static atomic_t srpt_nr_req_accepted = ATOMIC_INIT(0);

static struct {
	u64 tag;
	int ret;
} srpt_results[SRPT_NR_RESULTS];
static unsigned int srpt_nr_results;

/*
 * Woken on every channel state change, every channel freed and every REQ
 * handled, for tests that wait for one of them.
 */
DECLARE_WAIT_QUEUE_HEAD(cmkit_srpt_wait);
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_wait);

static void srpt_record_result(u64 tag, int ret)
{
	unsigned int i;

	spin_lock(&srpt_lock);
	i = srpt_nr_results++ % SRPT_NR_RESULTS;
	srpt_results[i].tag = tag;
	srpt_results[i].ret = ret;
	spin_unlock(&srpt_lock);
	wake_up_all(&cmkit_srpt_wait);
}

static void srpt_release_device(struct kref *kref)
{
	struct srpt_device *sdev = container_of(kref, struct srpt_device, kref);

	wake_up_var(&sdev->kref);
}

static void srpt_put_device(struct srpt_device *sdev)
{
	kref_put(&sdev->kref, srpt_release_device);
}

/* The channel's cm_id, as traces and ib_cm's own tracepoints show it. */
static u32 srpt_ch_id(const struct srpt_rdma_ch *ch)
{
	return ch->id;
}

/*
 * Move @ch up to @next.  Because states only move up, of all the paths that
 * race to close a channel exactly one wins each step.
 */
static bool srpt_set_ch_state(struct srpt_rdma_ch *ch, enum cmkit_srpt_ch_state next)
{
	enum cmkit_srpt_ch_state prev;
	unsigned long flags;
	bool changed = false;

	spin_lock_irqsave(&ch->lock, flags);
	prev = ch->state;
	if (next > prev) {
		ch->state = next;
		changed = true;
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (changed) {
		trace_cmkit_srpt_ch_state(srpt_ch_id(ch), ch->tag, prev, next);
		wake_up_all(&cmkit_srpt_wait);
	}
	return changed;
}

/*
 * A step of a channel's life failed: traced, and logged at a bounded rate
 * (a flood of logins can make allocations fail).  @step is the fault
 * point of the step, SRPT_FAULT_NR for moving the QP to the error state.
 */
static void cmkit_srpt_step_failed(struct srpt_rdma_ch *ch, int step, int ret)
{
	trace_cmkit_srpt_step_failed(ch->id, ch->tag, step, ret);
	pr_warn_ratelimited("%s: channel of tag %#llx: %s failed: %d\n",
			    dev_name(&ch->sdev->device->dev), ch->tag,
			    step < SRPT_FAULT_NR ? cmkit_srpt_fault_points.steps[step] : "qp_err",
			    ret);
}

static void srpt_free_ch(struct kref *kref)
{
	struct srpt_rdma_ch *ch = container_of(kref, struct srpt_rdma_ch, kref);
	struct srpt_device *sdev = ch->sdev;

	/* An RCU lookup may still be reading its tag or state. */
	kfree_rcu(ch, rcu);
	atomic_inc(&srpt_nr_ch_freed);
	srpt_put_device(sdev);
	wake_up_all(&cmkit_srpt_wait);
}

/*
 * Move @ch's QP to @state with the attributes ib_cm derives for it, except
 * at RTR: the QP goes there before the REP is sent, when ib_cm knows
 * neither the PSN the REP will announce nor what it will offer, so the
 * channel's own values are used, the ones the REP then carries.
 */
static int srpt_ch_qp_modify(struct srpt_rdma_ch *ch, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	if (state == IB_QPS_ERR)
		return ib_modify_qp(ch->qp, &attr, IB_QP_STATE);
	ret = ib_cm_init_qp_attr(ch->cm_id, &attr, &mask);
	if (ret)
		return ret;
	if (state == IB_QPS_RTR) {
		attr.rq_psn = ch->psn;
		attr.max_dest_rd_atomic = ch->responder_resources;
	}
	return ib_modify_qp(ch->qp, &attr, mask);
}

/*
 * Undo srpt_create_ch_ib().  A QP that reached RTR may have received IUs
 * and posted answers and RDMA transfers: drain both its queues, so that
 * every completion (a flush, once the QP is in the error state) has run,
 * then free the send contexts still in use (each rdma_rw context is
 * destroyed once, while the QP exists) before the rings.  A QP that never
 * reached RTR received nothing and posted nothing, and may not be
 * drainable at all (rxe leaves the receive side of a QP whose RTR failed
 * for lack of memory stopped, so a drain would wait forever); destroying
 * it and freeing the CQ (which waits for its completion handler) is
 * enough.
 */
static void srpt_destroy_ch_ib(struct srpt_rdma_ch *ch)
{
	if (ch->qp_rtr)
		ib_drain_qp(ch->qp);
	cmkit_srpt_release_ctxs(ch);
	ib_destroy_qp(ch->qp);
	ib_free_cq(ch->cq);
	cmkit_srpt_free_send_ring(ch);
	cmkit_srpt_free_recv_ring(ch);
}

/* The release work item: the only place that destroys a channel's cm_id. */
static void srpt_release_channel_work(struct work_struct *work)
{
	struct srpt_rdma_ch *ch = container_of(work, struct srpt_rdma_ch,
					       release_work);
	struct srpt_device *sdev = ch->sdev;

	trace_cmkit_srpt_release(srpt_ch_id(ch), ch->tag, srpt_get_ch_state(ch));
	if (WARN_ON_ONCE(ch->released)) {
		atomic_inc(&srpt_nr_release_twice);
		return;
	}
	ch->released = true;

	/*
	 * Off the list first, under the mutex: whoever walks the list under
	 * it (a relogin's single-channel policy, a disconnect, a removal) and
	 * still finds the channel may use its cm_id until it lets go.
	 */
	cmkit_srpt_hook(SRPT_HOOK_RELEASE, ch->tag, NULL, 0);
	mutex_lock(&sdev->mutex);
	list_del_rcu(&ch->list);
	mutex_unlock(&sdev->mutex);

	/*
	 * Waits for a handler running on this cm_id to return; a handler never
	 * waits for this work, so this cannot deadlock.  No handler sees @ch
	 * after this.  An established connection gets a DREQ from ib_cm.
	 */
	cmkit_srpt_hook(SRPT_HOOK_DESTROY, ch->tag, NULL, 0);
	ib_destroy_cm_id(ch->cm_id);
	atomic_inc(&srpt_nr_cm_id_destroyed);

	srpt_destroy_ch_ib(ch);
	kref_put(&ch->kref, srpt_free_ch);
}

/**
 * srpt_close_ch - close a channel and queue its release
 * @ch: a channel that owns its cm_id
 *
 * Moves @ch to DRAINING, its QP to the error state (which flushes the
 * receive IUs; the release work drains them), then to DISCONNECTED, and
 * queues the release work.  Called from a CM callback or with sdev->mutex
 * held.
 *
 * Return: true if this call closed @ch, false if it was closed already.
 */
static bool srpt_close_ch(struct srpt_rdma_ch *ch)
{
	int ret;

	if (!srpt_set_ch_state(ch, SRPT_CH_DRAINING))
		return false;
	kref_get(&ch->kref);
	ret = srpt_ch_qp_modify(ch, IB_QPS_ERR);
	if (ret)
		cmkit_srpt_step_failed(ch, SRPT_FAULT_NR, ret);
	srpt_set_ch_state(ch, SRPT_CH_DISCONNECTED);
	queue_work(srpt_wq, &ch->release_work);
	kref_put(&ch->kref, srpt_free_ch);
	return true;
}

/**
 * cmkit_srpt_ch_close - close a channel from its data path
 * @ch: a channel that owns its cm_id, in its CQ work or CM handler
 *
 * As srpt_close_ch(): the QP goes to the error state, the release work
 * (which destroys the cm_id, and so disconnects) is queued.
 *
 * Return: true if this call closed @ch.
 */
bool cmkit_srpt_ch_close(struct srpt_rdma_ch *ch)
{
	return srpt_close_ch(ch);
}

static int srpt_disconnect_ch(struct srpt_rdma_ch *ch);

/**
 * cmkit_srpt_ch_logout - disconnect a channel from its data path (DREQ)
 * @ch: a channel that owns its cm_id, in its CQ work or CM handler
 *
 * Under sdev->mutex, a channel below DRAINING is still listed and its
 * release work (which must take the mutex to unlist it) cannot destroy
 * its cm_id meanwhile.
 */
void cmkit_srpt_ch_logout(struct srpt_rdma_ch *ch)
{
	mutex_lock(&ch->sdev->mutex);
	if (srpt_get_ch_state(ch) < SRPT_CH_DRAINING)
		srpt_disconnect_ch(ch);
	mutex_unlock(&ch->sdev->mutex);
}

/**
 * srpt_disconnect_ch - start disconnecting a channel
 * @ch: a channel that owns its cm_id
 *
 * Sends a DREQ, or a DREP if the peer's DREQ came first; if neither can be
 * sent (the connection is gone, or the send failed), closes the channel.
 * Called from a CM callback on @ch's cm_id or with sdev->mutex held on a
 * listed channel: either way the release work cannot destroy the cm_id
 * meanwhile, and no REP of srpt_cm_req_recv() runs concurrently.
 *
 * Return: 0 once this call claimed @ch (DISCONNECTING), whatever the CM
 * said; -ENOTCONN if @ch was disconnecting already.
 */
static int srpt_disconnect_ch(struct srpt_rdma_ch *ch)
{
	int dreq, drep = 0;

	if (!srpt_set_ch_state(ch, SRPT_CH_DISCONNECTING))
		return -ENOTCONN;
	cmkit_srpt_hook(SRPT_HOOK_DISCONNECT, ch->tag, NULL, 0);
	dreq = srpt_fault(SRPT_FAULT_DREQ_SEND) ? -ENOMEM :
	       ib_send_cm_dreq(ch->cm_id, NULL, 0);
	if (dreq)
		drep = srpt_fault(SRPT_FAULT_DREP_SEND) ? -ENOMEM :
		       ib_send_cm_drep(ch->cm_id, NULL, 0);
	trace_cmkit_srpt_disconnect(srpt_ch_id(ch), ch->tag, dreq, drep);
	if (drep)
		srpt_close_ch(ch);
	return 0;
}

static void srpt_qp_event(struct ib_event *event, void *context)
{
	struct srpt_rdma_ch *ch = context;
	unsigned long flags;

	if (event->event != IB_EVENT_COMM_EST)
		return;
	/*
	 * Data before the RTU: let ib_cm deliver USER_ESTABLISHED.  The state
	 * check keeps this away from a cm_id the release work is destroying.
	 */
	spin_lock_irqsave(&ch->lock, flags);
	if (ch->state == SRPT_CH_CONNECTING)
		ib_cm_notify(ch->cm_id, event->event);
	spin_unlock_irqrestore(&ch->lock, flags);
}

/*
 * The channel's CQ and QP, its QP in INIT, and its receive IUs allocated and
 * posted: everything a login needs before the hand-over.
 */
static int srpt_create_ch_ib(struct srpt_rdma_ch *ch)
{
	struct srpt_device *sdev = ch->sdev;
	u32 nr_ctx = ch->rq_size + SRPT_CTX_RESERVE;
	struct ib_qp_init_attr init = {
		.event_handler = srpt_qp_event,
		.qp_context = ch,
		.cap = {
			/*
			 * RDMA transfers, one answer per send context, and
			 * ib_drain_sq()'s marker; rdma_rw adds its own.
			 */
			.max_send_wr = SRPT_SQ_DATA_WRS + nr_ctx + 1,
			/* One more for ib_drain_rq()'s marker. */
			.max_recv_wr = ch->rq_size + 1,
			.max_send_sge = min_t(u32, sdev->device->attrs.max_send_sge,
					      32),
			.max_recv_sge = 1,
			.max_rdma_ctxs = nr_ctx,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.port_num = SRPT_PORT,
	};
	int step, ret;

	/*
	 * Every WR that can be outstanding, flushes included (a flush
	 * completes unsignaled WRs too): the send queue as asked, the WRs
	 * rdma_rw_init_qp() adds (at most three per context: a registration,
	 * the transfer, an invalidation), the receive queue.
	 */
	step = SRPT_FAULT_CQ_CREATE;
	if (srpt_fault(step))
		ch->cq = ERR_PTR(-ENOMEM);
	else
		ch->cq = ib_alloc_cq(sdev->device, ch,
				     init.cap.max_send_wr + 3 * nr_ctx +
				     init.cap.max_recv_wr + 1,
				     0, IB_POLL_WORKQUEUE);
	if (IS_ERR(ch->cq)) {
		ret = PTR_ERR(ch->cq);
		goto fail;
	}
	init.send_cq = ch->cq;
	init.recv_cq = ch->cq;
	step = SRPT_FAULT_QP_CREATE;
	if (srpt_fault(step))
		ch->qp = ERR_PTR(-ENOMEM);
	else
		ch->qp = ib_create_qp(sdev->pd, &init);
	if (IS_ERR(ch->qp)) {
		ret = PTR_ERR(ch->qp);
		goto free_cq;
	}
	step = SRPT_FAULT_QP_INIT;
	if (srpt_fault(step))
		ret = -EINVAL;
	else
		ret = srpt_ch_qp_modify(ch, IB_QPS_INIT);
	if (ret)
		goto destroy_qp;
	step = SRPT_FAULT_RECV_ALLOC;
	ret = cmkit_srpt_alloc_recv_ring(ch);
	if (ret)
		goto destroy_qp;
	ret = cmkit_srpt_alloc_send_ring(ch);
	if (ret) {
		cmkit_srpt_free_recv_ring(ch);
		goto destroy_qp;
	}
	step = SRPT_FAULT_RECV_POST;
	ret = cmkit_srpt_post_recv_ring(ch);
	if (ret)
		goto destroy_ib;
	return 0;

destroy_ib:
	srpt_destroy_ch_ib(ch);
	goto fail;
destroy_qp:
	ib_destroy_qp(ch->qp);
free_cq:
	ib_free_cq(ch->cq);
fail:
	cmkit_srpt_step_failed(ch, step, ret);
	return ret;
}

static void srpt_send_rej(struct ib_cm_id *cm_id,
			  const struct cmkit_srp_login_req *req, u32 reason)
{
	struct cmkit_srp_login_rej rej = {
		.tag = req->tag,
		.reason = reason,
		.buf_fmt = CMKIT_SRP_BUF_FORMAT_ALL,
	};
	u8 buf[CMKIT_SRP_LOGIN_REJ_LEN];
	u64 tag = req->tag;
	int ret;

	cmkit_srp_encode_login_rej(buf, &rej);
	ret = ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			     buf, sizeof(buf));
	trace_cmkit_srpt_login_reject(cm_id, tag, reason, ret);
	atomic_inc(&srpt_nr_req_rejected);
}

/*
 * The single-channel policy: a new login from an initiator port disconnects
 * that port's other channels on this device.  Called with sdev->mutex held.
 */
static u8 srpt_apply_multichan(struct srpt_device *sdev,
			       const struct cmkit_srp_login_req *req)
{
	struct srpt_rdma_ch *old;
	u8 flags = CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN;

	lockdep_assert_held(&sdev->mutex);
	if ((req->flags & CMKIT_SRP_MULTICHAN_MASK) != CMKIT_SRP_MULTICHAN_SINGLE)
		return CMKIT_SRP_LOGIN_RSP_MULTICHAN_MAINTAINED;
	list_for_each_entry(old, &sdev->ch_list, list) {
		if (!cmkit_srp_port_id_eq(old->i_port_id, req->initiator_port_id))
			continue;
		if (srpt_disconnect_ch(old) < 0)
			continue;
		trace_cmkit_srpt_relogin(srpt_ch_id(old), old->tag, req->tag);
		flags = CMKIT_SRP_LOGIN_RSP_MULTICHAN_TERMINATED;
	}
	return flags;
}

static int srpt_send_rep(struct srpt_rdma_ch *ch,
			 const struct cmkit_srp_login_req *req, u8 rsp_flags)
{
	struct srpt_device *sdev = ch->sdev;
	struct cmkit_srp_login_rsp rsp = {
		.tag = req->tag,
		.req_lim_delta = ch->rq_size,
		.max_it_iu_len = ch->max_it_iu_len,
		.max_ti_iu_len = req->it_iu_len,
		.buf_fmt = CMKIT_SRP_BUF_FORMAT_ALL,
		.flags = rsp_flags,
	};
	u8 buf[CMKIT_SRP_LOGIN_RSP_LEN];
	struct ib_cm_rep_param rep = {
		.qp_num = ch->qp->qp_num,
		.starting_psn = ch->psn,
		.private_data = buf,
		.private_data_len = sizeof(buf),
		.responder_resources = ch->responder_resources,
		.initiator_depth = ch->initiator_depth,
		.flow_control = 1,
		.rnr_retry_count = 7,
	};
	int ret;

	cmkit_srp_encode_login_rsp(buf, &rsp);
	/*
	 * Under the mutex, so that no disconnect runs between the state check
	 * and the REP: a channel that began closing is not accepted.
	 */
	mutex_lock(&sdev->mutex);
	if (!sdev->enabled || srpt_get_ch_state(ch) != SRPT_CH_CONNECTING)
		ret = -ECONNABORTED;
	else if (srpt_fault(SRPT_FAULT_REP_SEND))
		ret = -EIO;
	else
		ret = ib_send_cm_rep(ch->cm_id, &rep);
	mutex_unlock(&sdev->mutex);
	return ret;
}

/**
 * srpt_cm_req_recv - handle a login (IB_CM_REQ_RECEIVED)
 * @sdev: the device of the listener the REQ matched
 * @cm_id: the REQ's new cm_id; its context is @sdev
 * @param: the REQ's parameters
 * @pdata: its IB_CM_REQ_PRIVATE_DATA_SIZE bytes of private data
 * @req: the decoded login, for the caller's trace
 *
 * Validates the login, creates a channel and its QP, hands @cm_id over to
 * the channel and sends a REP carrying an SRP_LOGIN_RSP.
 *
 * Return: 0 once @cm_id belongs to a channel, even if the login then
 * failed (the channel was closed and its release destroys @cm_id).  Before
 * the hand-over: -ENOMEM if no REJ was sent and the peer may retry, or
 * -EINVAL or -ECONNREFUSED once a REJ was sent; ib_cm destroys @cm_id.
 */
static int srpt_cm_req_recv(struct srpt_device *sdev, struct ib_cm_id *cm_id,
			    const struct ib_cm_req_event_param *param,
			    const void *pdata, struct cmkit_srp_login_req *req)
{
	bool rdma_cm = param->listen_id == sdev->rdma_listen;
	struct cmkit_cma_hdr hdr;
	enum cmkit_srp_pdata what;
	struct srpt_rdma_ch *ch;
	u32 reason;
	u8 rsp_flags;
	int ret;

	WARN_ON_ONCE(irqs_disabled());

	what = cmkit_srp_parse_req_pdata(pdata, IB_CM_REQ_PRIVATE_DATA_SIZE,
					 rdma_cm, &hdr, req);
	if (what != CMKIT_SRP_PDATA_OK) {
		/* No tag to answer with: ib_cm sends a plain REJ. */
		trace_cmkit_srpt_login_malformed(cm_id, rdma_cm, what);
		atomic_inc(&srpt_nr_req_rejected);
		return -EINVAL;
	}
	reason = cmkit_srp_login_check(req, srpt_max_req_size, sdev->port_id);
	if (reason) {
		srpt_send_rej(cm_id, req, reason);
		return -EINVAL;
	}

	if (srpt_fault(SRPT_FAULT_CH_ALLOC))
		ch = NULL;
	else
		ch = kzalloc_obj(*ch, GFP_KERNEL);
	if (!ch)
		return -ENOMEM;	/* no REJ: the peer may retry */
	atomic_inc(&srpt_nr_ch_alloc);
	kref_get(&sdev->kref);
	ch->sdev = sdev;
	ch->cm_id = cm_id;
	ch->id = be32_to_cpu(cm_id->local_id);
	ch->rq_size = SRPT_RQ_SIZE;
	ch->max_it_iu_len = srpt_max_req_size;
	ch->req_lim = ch->rq_size;
	ch->sq_wr_avail = SRPT_SQ_DATA_WRS;
	/*
	 * Immediate data, when asked for: a small WRITE's data comes inside
	 * its SRP_CMD, which saves the RDMA Read round trip (ib_srp asks, and
	 * sends up to 8 KiB so, at offset 68).  Granted for an offset past
	 * the SRP_CMD's fixed part and inside the IU length granted.
	 */
	if ((req->flags & CMKIT_SRP_IMMED_REQUESTED) &&
	    req->imm_data_offset >= CMKIT_SRP_CMD_LEN &&
	    req->imm_data_offset < ch->max_it_iu_len)
		ch->imm_data_offset = req->imm_data_offset;
	mutex_init(&ch->io_mutex);
	INIT_LIST_HEAD(&ch->wait_list);
	INIT_LIST_HEAD(&ch->ctx_wait_list);
	/* The first PSN the initiator sends: the REP's, and the QP's at RTR. */
	ch->psn = get_random_u32() & 0xffffff;
	/*
	 * What the REP offers, and the QP gets: no more than the initiator
	 * asked for, than srpt offers, or than the device supports.
	 */
	ch->responder_resources =
		min_t(u32, param->responder_resources,
		      min_t(u32, SRPT_RD_ATOMIC, sdev->device->attrs.max_qp_rd_atom));
	ch->initiator_depth =
		min_t(u32, param->initiator_depth,
		      min_t(u32, SRPT_RD_ATOMIC, sdev->device->attrs.max_qp_init_rd_atom));
	kref_init(&ch->kref);
	spin_lock_init(&ch->lock);
	ch->state = SRPT_CH_CONNECTING;
	INIT_LIST_HEAD(&ch->list);
	INIT_WORK(&ch->release_work, srpt_release_channel_work);
	ch->rdma_cm = rdma_cm;
	ch->tag = req->tag;
	memcpy(ch->i_port_id, req->initiator_port_id, sizeof(ch->i_port_id));

	ret = srpt_create_ch_ib(ch);
	if (ret)
		goto reject_free;

	mutex_lock(&sdev->mutex);
	if (!sdev->enabled) {
		mutex_unlock(&sdev->mutex);
		srpt_destroy_ch_ib(ch);
		goto reject_free;
	}
	rsp_flags = srpt_apply_multichan(sdev, req);
	if (ch->imm_data_offset)
		rsp_flags |= CMKIT_SRP_LOGIN_RSP_IMMED_SUPP;
	list_add_tail_rcu(&ch->list, &sdev->ch_list);
	/* The hand-over: from here on the release work destroys cm_id. */
	cm_id->context = ch;
	atomic_inc(&srpt_nr_ch_handed_over);
	mutex_unlock(&sdev->mutex);
	trace_cmkit_srpt_handover(srpt_ch_id(ch), ch->tag, srpt_get_ch_state(ch));

	if (srpt_fault(SRPT_FAULT_QP_RTR))
		ret = -EIO;
	else
		ret = srpt_ch_qp_modify(ch, IB_QPS_RTR);
	ch->qp_rtr = !ret;
	if (ret) {
		cmkit_srpt_step_failed(ch, SRPT_FAULT_QP_RTR, ret);
		goto reject_close;
	}
	ret = srpt_send_rep(ch, req, rsp_flags);
	if (ret) {
		cmkit_srpt_step_failed(ch, SRPT_FAULT_REP_SEND, ret);
		goto reject_close;
	}
	/* Accepted once its REP is out; a REJ after the hand-over rejects. */
	atomic_inc(&srpt_nr_req_accepted);
	trace_cmkit_srpt_login_accept(srpt_ch_id(ch), ch->tag,
				      srpt_get_ch_state(ch));
	return 0;

reject_close:
	srpt_send_rej(cm_id, req, CMKIT_SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
	srpt_close_ch(ch);
	/* The channel owns cm_id: a non-zero return would destroy it twice. */
	return 0;

reject_free:
	srpt_send_rej(cm_id, req, CMKIT_SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
	kref_put(&ch->kref, srpt_free_ch);
	return -ECONNREFUSED;
}

static void srpt_cm_rtu_recv(struct srpt_rdma_ch *ch)
{
	int ret;

	/* RTU after USER_ESTABLISHED, or either after a close: nothing to do. */
	if (srpt_get_ch_state(ch) != SRPT_CH_CONNECTING)
		return;
	if (srpt_fault(SRPT_FAULT_QP_RTS))
		ret = -EINVAL;
	else
		ret = srpt_ch_qp_modify(ch, IB_QPS_RTS);
	if (ret) {
		cmkit_srpt_step_failed(ch, SRPT_FAULT_QP_RTS, ret);
		srpt_close_ch(ch);
		return;
	}
	/*
	 * LIVE under io_mutex: an IU the CQ work handles next sees LIVE only
	 * after the IUs that came before the RTU were handled (SRP order).
	 */
	mutex_lock(&ch->io_mutex);
	srpt_set_ch_state(ch, SRPT_CH_LIVE);
	cmkit_srpt_ch_live(ch);
	mutex_unlock(&ch->io_mutex);
}

static void srpt_cm_dreq_recv(struct srpt_rdma_ch *ch)
{
	/*
	 * The DREQ cannot be sent in DREQ_RCVD, so this sends the DREP; then
	 * ib_cm enters timewait and TIMEWAIT_EXIT closes the channel.  A DREQ
	 * that crossed our own is answered too.
	 */
	if (srpt_disconnect_ch(ch) == -ENOTCONN)
		ib_send_cm_drep(ch->cm_id, NULL, 0);
}

/**
 * srpt_cm_handler - the IB CM callback of both srpt listeners and channels
 * @cm_id: the id the event is for; on IB_CM_REQ_RECEIVED and
 *	IB_CM_SIDR_REQ_RECEIVED a new id whose context is the &struct
 *	srpt_device of the listener, on every later event the &struct
 *	srpt_rdma_ch that took it over
 * @event: the event
 *
 * Called by ib_cm in process context without CM locks held; may sleep.  It
 * never destroys a cm_id itself: ib_destroy_cm_id() waits for the callback
 * that is running, so calling it here would deadlock.
 *
 * Unlike ib_srpt, which only logs them, REJ_RECEIVED and REP_ERROR close
 * and release the channel: in REP_SENT ib_cm resets the id to idle without
 * a timewait, so no later event would ever close a channel left CONNECTING.
 *
 * Return: a non-zero value makes the caller destroy @cm_id.  It is non-zero
 * only when no channel owns @cm_id: when srpt_cm_req_recv() failed before
 * handing @cm_id over to a channel, and for every SIDR REQ (srpt serves RC
 * channels only; the requester gets a SIDR REP that refuses).  Any other
 * non-zero return would race with the channel's release work destroying
 * the same id, so every other event returns 0.
 */
int srpt_cm_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *event)
{
	struct cmkit_srp_login_req req = { };
	struct srpt_rdma_ch *ch;
	int ret;

	trace_cmkit_srpt_cm_event(cm_id, event->event, cm_id->context);
	switch (event->event) {
	case IB_CM_REQ_RECEIVED:
		/* cm_id->context is the listener's device, not a channel. */
		ret = srpt_cm_req_recv(cm_id->context, cm_id,
				       &event->param.req_rcvd,
				       event->private_data, &req);
		trace_cmkit_srpt_req_done(cm_id, req.tag, ret);
		srpt_record_result(req.tag, ret);
		return ret;
	case IB_CM_SIDR_REQ_RECEIVED:
		/* The listener's device again: no channel, none to come. */
		ret = ib_send_cm_sidr_rep(cm_id, &(struct ib_cm_sidr_rep_param){
						.status = IB_SIDR_REJECT });
		trace_cmkit_srpt_sidr_reject(cm_id, ret);
		return -EOPNOTSUPP;
	default:
		break;
	}

	/* Every other event is on an id a channel took over. */
	ch = cm_id->context;
	switch (event->event) {
	case IB_CM_REJ_RECEIVED:
		trace_cmkit_srpt_rej_recv(srpt_ch_id(ch), ch->tag,
					  event->param.rej_rcvd.reason);
		srpt_close_ch(ch);
		break;
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		srpt_cm_rtu_recv(ch);
		break;
	case IB_CM_DREQ_RECEIVED:
		srpt_cm_dreq_recv(ch);
		break;
	case IB_CM_DREP_RECEIVED:
	case IB_CM_TIMEWAIT_EXIT:
		srpt_close_ch(ch);
		break;
	case IB_CM_REP_ERROR:
		/* No RTU: the trace of the event says so; close. */
		srpt_close_ch(ch);
		break;
	case IB_CM_DREQ_ERROR:
		/* ib_cm enters timewait; TIMEWAIT_EXIT closes the channel. */
	case IB_CM_MRA_RECEIVED:
		break;
	default:
		/* Nothing srpt asked for (LAP, APR): the trace above says which. */
		break;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(srpt_cm_handler);

static struct ib_cm_id *srpt_listen(struct srpt_device *sdev, u64 service_id)
{
	struct ib_cm_id *cm_id;
	int ret;

	cm_id = ib_create_cm_id(sdev->device, srpt_cm_handler, sdev);
	if (IS_ERR(cm_id))
		return cm_id;
	ret = ib_cm_listen(cm_id, cpu_to_be64(service_id));
	if (ret) {
		ib_destroy_cm_id(cm_id);
		return ERR_PTR(ret);
	}
	return cm_id;
}

/*
 * Stop the listeners.  Destroying a listener waits for the REQ callbacks
 * running on its behalf, so afterwards every channel is on ch_list.
 */
static void srpt_unlisten(struct srpt_device *sdev)
{
	if (sdev->rdma_listen)
		ib_destroy_cm_id(sdev->rdma_listen);
	ib_destroy_cm_id(sdev->ib_listen);
}

static int srpt_add_one(struct ib_device *device)
{
	struct srpt_device *sdev;
	u64 guid = be64_to_cpu(device->node_guid);
	int ret;

	if (!rdma_cap_ib_cm(device, 1))
		return -EOPNOTSUPP;
	sdev = kzalloc_obj(*sdev, GFP_KERNEL);
	if (!sdev)
		return -ENOMEM;
	sdev->device = device;
	sdev->service_id = srpt_service_id ?: guid;
	cmkit_srp_port_id_make(sdev->port_id, sdev->service_id, guid);
	kref_init(&sdev->kref);
	mutex_init(&sdev->mutex);
	INIT_LIST_HEAD(&sdev->ch_list);
	sdev->enabled = true;

	sdev->pd = ib_alloc_pd(device, 0);
	if (IS_ERR(sdev->pd)) {
		ret = PTR_ERR(sdev->pd);
		goto free;
	}
	sdev->ib_listen = srpt_listen(sdev, sdev->service_id);
	if (IS_ERR(sdev->ib_listen)) {
		ret = PTR_ERR(sdev->ib_listen);
		goto dealloc_pd;
	}
	if (srpt_rdma_cm_port) {
		sdev->rdma_listen =
			srpt_listen(sdev, CMKIT_CMA_TCP_SERVICE_ID(srpt_rdma_cm_port));
		if (IS_ERR(sdev->rdma_listen)) {
			ret = PTR_ERR(sdev->rdma_listen);
			goto destroy_ib_listen;
		}
	}

	spin_lock(&srpt_lock);
	list_add_tail(&sdev->entry, &srpt_devices);
	spin_unlock(&srpt_lock);
	ib_set_client_data(device, &srpt_client, sdev);
	pr_info("%s: listening on service id %#llx and rdma_cm port %u\n",
		dev_name(&device->dev), sdev->service_id, srpt_rdma_cm_port);
	return 0;

destroy_ib_listen:
	ib_destroy_cm_id(sdev->ib_listen);
dealloc_pd:
	ib_dealloc_pd(sdev->pd);
free:
	kfree(sdev);
	pr_err("%s: not listening: %d\n", dev_name(&device->dev), ret);
	return ret;
}

static void srpt_remove_one(struct ib_device *device, void *client_data)
{
	struct srpt_device *sdev = client_data;
	struct srpt_rdma_ch *ch;

	mutex_lock(&sdev->mutex);
	sdev->enabled = false;
	mutex_unlock(&sdev->mutex);
	srpt_unlisten(sdev);

	mutex_lock(&sdev->mutex);
	list_for_each_entry(ch, &sdev->ch_list, list)
		srpt_close_ch(ch);
	mutex_unlock(&sdev->mutex);

	spin_lock(&srpt_lock);
	list_del(&sdev->entry);
	spin_unlock(&srpt_lock);

	/*
	 * Every channel holds a reference until its release work is done.
	 * Bounded: a channel that is never released is a leak, said so.
	 */
	srpt_put_device(sdev);
	cmkit_wait_released(&sdev->kref, !kref_read(&sdev->kref),
			    "srpt: %s: %u channels never released\n",
			    dev_name(&device->dev), kref_read(&sdev->kref));
	ib_dealloc_pd(sdev->pd);
	pr_info("%s: stopped\n", dev_name(&device->dev));
	kfree(sdev);
}

static struct ib_client srpt_client = {
	.name = "cmkit_srpt",
	.add = srpt_add_one,
	.remove = srpt_remove_one,
};

/**
 * cmkit_srpt_counters - read what the srpt consumer did since loading
 * @c: filled in
 */
void cmkit_srpt_counters(struct srpt_counters *c)
{
	c->ch_alloc = atomic_read(&srpt_nr_ch_alloc);
	c->ch_handed_over = atomic_read(&srpt_nr_ch_handed_over);
	c->ch_freed = atomic_read(&srpt_nr_ch_freed);
	c->cm_id_destroyed = atomic_read(&srpt_nr_cm_id_destroyed);
	c->release_twice = atomic_read(&srpt_nr_release_twice);
	c->req_rejected = atomic_read(&srpt_nr_req_rejected);
	c->req_accepted = atomic_read(&srpt_nr_req_accepted);
	c->faults_fired = atomic_read(&cmkit_srpt_fault_points.fired);
	c->iu_received = cmkit_srpt_nr_received();
	cmkit_srpt_io_counters(c);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_counters);

/**
 * cmkit_srpt_ch_credits - the request limit of a login's channel
 * @tag: the login's tag
 * @granted: the request limit granted at login
 * @outstanding: the credits the initiator holds now, as srpt counts them
 *
 * Does not sleep: usable as a wait_event() condition.
 *
 * Return: 0, or -ENOENT if there is no such channel.
 */
int cmkit_srpt_ch_credits(u64 tag, u32 *granted, u32 *outstanding)
{
	struct srpt_device *sdev;
	struct srpt_rdma_ch *ch;
	unsigned long flags;
	int ret = -ENOENT;

	spin_lock(&srpt_lock);
	rcu_read_lock();
	list_for_each_entry(sdev, &srpt_devices, entry) {
		list_for_each_entry_rcu(ch, &sdev->ch_list, list) {
			if (ch->tag != tag)
				continue;
			spin_lock_irqsave(&ch->lock, flags);
			*granted = ch->rq_size;
			*outstanding = ch->req_lim;
			spin_unlock_irqrestore(&ch->lock, flags);
			ret = 0;
		}
	}
	rcu_read_unlock();
	spin_unlock(&srpt_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_ch_credits);

/**
 * cmkit_srpt_test_reset - forget the REQ results and disarm every fault
 */
void cmkit_srpt_test_reset(void)
{
	spin_lock(&srpt_lock);
	memset(srpt_results, 0, sizeof(srpt_results));
	srpt_nr_results = 0;
	spin_unlock(&srpt_lock);
	cmkit_fault_disarm(&cmkit_srpt_fault_points);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_test_reset);

/**
 * cmkit_srpt_req_results - what srpt_cm_handler() returned for a login
 * @tag: the login's tag (0 for private data without a login)
 * @ret: filled in with the return values, oldest first
 * @max: room at @ret
 *
 * Does not sleep: usable as a wait_event() condition.
 *
 * Return: how many REQs with @tag were handled since the last reset (a
 * retried REQ counts again).
 */
unsigned int cmkit_srpt_req_results(u64 tag, int *ret, unsigned int max)
{
	unsigned int i, n, found = 0;

	spin_lock(&srpt_lock);
	n = min_t(unsigned int, srpt_nr_results, SRPT_NR_RESULTS);
	for (i = 0; i < n; i++) {
		if (srpt_results[i].tag != tag)
			continue;
		if (found < max)
			ret[found] = srpt_results[i].ret;
		found++;
	}
	spin_unlock(&srpt_lock);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_req_results);

/**
 * cmkit_srpt_ch_state - the state of the channel of a login
 * @tag: the login's tag
 *
 * Does not sleep: usable as a wait_event() condition.
 *
 * Return: an enum cmkit_srpt_ch_state, or -ENOENT once the channel is released
 * (or if it never took over its cm_id).
 */
int cmkit_srpt_ch_state(u64 tag)
{
	struct srpt_device *sdev;
	struct srpt_rdma_ch *ch;
	int state = -ENOENT;

	spin_lock(&srpt_lock);
	rcu_read_lock();
	list_for_each_entry(sdev, &srpt_devices, entry)
		list_for_each_entry_rcu(ch, &sdev->ch_list, list)
			if (ch->tag == tag)
				state = srpt_get_ch_state(ch);
	rcu_read_unlock();
	spin_unlock(&srpt_lock);
	return state;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_ch_state);

/* The device with a channel of login @tag, with a reference, or NULL. */
static struct srpt_device *srpt_get_device_of(u64 tag)
{
	struct srpt_device *sdev, *found = NULL;
	struct srpt_rdma_ch *ch;

	spin_lock(&srpt_lock);
	rcu_read_lock();
	list_for_each_entry(sdev, &srpt_devices, entry) {
		list_for_each_entry_rcu(ch, &sdev->ch_list, list) {
			if (ch->tag == tag) {
				found = sdev;
				break;
			}
		}
		if (found)
			break;
	}
	rcu_read_unlock();
	if (found)
		kref_get(&found->kref);
	spin_unlock(&srpt_lock);
	return found;
}

/**
 * cmkit_srpt_disconnect - the target disconnects the channel of a login
 * @tag: the login's tag
 *
 * Return: 0 if a DREQ was sent, -ENOTCONN if the channel was already
 * disconnecting, -ENOENT if there is no such channel.
 */
int cmkit_srpt_disconnect(u64 tag)
{
	struct srpt_device *sdev;
	struct srpt_rdma_ch *ch;
	int ret = -ENOENT;

	sdev = srpt_get_device_of(tag);
	if (!sdev)
		return ret;
	mutex_lock(&sdev->mutex);
	list_for_each_entry(ch, &sdev->ch_list, list)
		if (ch->tag == tag)
			ret = srpt_disconnect_ch(ch);
	mutex_unlock(&sdev->mutex);
	srpt_put_device(sdev);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_disconnect);

/**
 * cmkit_srpt_target - the native service id and target port id of a device
 * @device: an RDMA device
 * @service_id: filled in
 * @port_id: CMKIT_SRP_PORT_ID_LEN bytes, filled in
 *
 * Return: 0, or -ENODEV if srpt does not listen on @device.
 */
int cmkit_srpt_target(struct ib_device *device, u64 *service_id, u8 *port_id)
{
	struct srpt_device *sdev;
	int ret = -ENODEV;

	spin_lock(&srpt_lock);
	list_for_each_entry(sdev, &srpt_devices, entry) {
		if (sdev->device != device)
			continue;
		*service_id = sdev->service_id;
		memcpy(port_id, sdev->port_id, CMKIT_SRP_PORT_ID_LEN);
		ret = 0;
	}
	spin_unlock(&srpt_lock);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_target);

/**
 * cmkit_srpt_query_qp - the attributes of the QP of a login's channel
 * @tag: the login's tag
 * @attr: filled in by ib_query_qp()
 *
 * Return: 0, -ENOENT if there is no such channel, or ib_query_qp()'s error.
 */
int cmkit_srpt_query_qp(u64 tag, struct ib_qp_attr *attr)
{
	struct ib_qp_init_attr init;
	struct srpt_device *sdev;
	struct srpt_rdma_ch *ch;
	int ret = -ENOENT;

	sdev = srpt_get_device_of(tag);
	if (!sdev)
		return ret;
	/* Under the device's mutex a listed channel keeps its QP. */
	mutex_lock(&sdev->mutex);
	list_for_each_entry(ch, &sdev->ch_list, list) {
		if (ch->tag == tag) {
			ret = ib_query_qp(ch->qp, attr, ~0, &init);
			break;
		}
	}
	mutex_unlock(&sdev->mutex);
	srpt_put_device(sdev);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_query_qp);

/**
 * cmkit_srpt_listen_context - the context of a device's listeners' cm_ids
 * @device: an RDMA device
 *
 * What srpt_cm_handler() finds in cm_id->context on IB_CM_REQ_RECEIVED, for
 * a test that delivers a REQ it received itself.
 *
 * Return: the context, or NULL if srpt does not listen on @device.
 */
void *cmkit_srpt_listen_context(struct ib_device *device)
{
	struct srpt_device *sdev, *found = NULL;

	spin_lock(&srpt_lock);
	list_for_each_entry(sdev, &srpt_devices, entry)
		if (sdev->device == device)
			found = sdev;
	spin_unlock(&srpt_lock);
	return found;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_listen_context);

/**
 * cmkit_srpt_show_targets - one line per device with listeners, for debugfs
 * @m: the seq_file
 *
 * Each line: device, native service id, rdma_cm port, target port id.
 */
void cmkit_srpt_show_targets(struct seq_file *m)
{
	struct srpt_device *sdev;

	spin_lock(&srpt_lock);
	list_for_each_entry(sdev, &srpt_devices, entry)
		seq_printf(m, "%s service_id=0x%016llx rdma_cm_port=%u target_port_id=%*phN\n",
			   dev_name(&sdev->device->dev), sdev->service_id,
			   sdev->rdma_listen ? srpt_rdma_cm_port : 0,
			   CMKIT_SRP_PORT_ID_LEN, sdev->port_id);
	spin_unlock(&srpt_lock);
}

/**
 * cmkit_srpt_rdma_cm_port - the rdma_cm port of the rdma_cm-form listeners
 *
 * Return: the port in host order, 0 if there are none.
 */
u16 cmkit_srpt_rdma_cm_port(void)
{
	return srpt_rdma_cm_port;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_rdma_cm_port);

/**
 * cmkit_srpt_max_it_iu_len - the largest initiator-to-target IU accepted
 *
 * Return: the length in bytes.
 */
u32 cmkit_srpt_max_it_iu_len(void)
{
	return srpt_max_req_size;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_max_it_iu_len);

/*
 * Start and stop: at load and unload, from the control plane, and (for the
 * tests) a restart that does what unloading and loading cmkit would.  One
 * mutex makes each of them whole, so the client is registered at most once
 * and a failed start leaves srpt stopped, ready to be started again.
 */
static DEFINE_MUTEX(srpt_start_mutex);

static int srpt_start_locked(void)
{
	int ret;

	lockdep_assert_held(&srpt_start_mutex);
	if (srpt_registered)
		return -EALREADY;
	if (srpt_max_req_size < CMKIT_SRP_MIN_IT_IU_LEN) {
		pr_err("srpt_max_req_size %u is below %u\n", srpt_max_req_size,
		       CMKIT_SRP_MIN_IT_IU_LEN);
		return -EINVAL;
	}
	ret = cmkit_srpt_lun_init();
	if (ret)
		return ret;
	if (srpt_fault(SRPT_FAULT_WQ_ALLOC))
		srpt_wq = NULL;
	else
		srpt_wq = alloc_workqueue("cmkit_srpt", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!srpt_wq) {
		cmkit_srpt_lun_exit();
		return -ENOMEM;
	}
	if (srpt_fault(SRPT_FAULT_CLIENT_REG))
		ret = -ENOMEM;
	else
		ret = ib_register_client(&srpt_client);
	if (ret) {
		destroy_workqueue(srpt_wq);
		srpt_wq = NULL;
		cmkit_srpt_lun_exit();
		return ret;
	}
	srpt_registered = true;
	return 0;
}

/*
 * Removing the client from each device closes that device's channels and
 * waits until each is released.
 */
static int srpt_stop_locked(void)
{
	lockdep_assert_held(&srpt_start_mutex);
	if (!srpt_registered)
		return -EALREADY;
	ib_unregister_client(&srpt_client);
	destroy_workqueue(srpt_wq);
	srpt_wq = NULL;
	cmkit_srpt_lun_exit();
	srpt_registered = false;
	return 0;
}

/**
 * cmkit_srpt_start - listen on every device that speaks the IB CM
 *
 * Return: 0, -EALREADY if srpt is started already, or the errno of the
 * step that failed (srpt is then stopped).
 */
int cmkit_srpt_start(void)
{
	int ret;

	mutex_lock(&srpt_start_mutex);
	ret = srpt_start_locked();
	mutex_unlock(&srpt_start_mutex);
	return ret;
}

/**
 * cmkit_srpt_stop - close every channel and stop listening
 *
 * Return: 0 once every channel is released, or -EALREADY if srpt was
 * stopped.
 */
int cmkit_srpt_stop(void)
{
	int ret;

	mutex_lock(&srpt_start_mutex);
	ret = srpt_stop_locked();
	mutex_unlock(&srpt_start_mutex);
	return ret;
}

/**
 * cmkit_srpt_listening - is srpt started?
 *
 * Return: true between a successful start and the next stop.
 */
bool cmkit_srpt_listening(void)
{
	return READ_ONCE(srpt_registered);
}

/**
 * cmkit_srpt_restart - run the unload path, then the load path again
 *
 * What unloading cmkit does to srpt, with whatever channels are live, for a
 * test module that keeps cmkit loaded by depending on it; as one step, so
 * that no start or stop of the control plane runs in between.
 *
 * Return: the start's result (0 whether or not srpt was started before).
 */
int cmkit_srpt_restart(void)
{
	int ret;

	mutex_lock(&srpt_start_mutex);
	srpt_stop_locked();
	ret = srpt_start_locked();
	mutex_unlock(&srpt_start_mutex);
	return ret;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_restart);

/**
 * cmkit_srpt_init - bring up the srpt consumer on every device (load)
 *
 * Return: 0 on success, or a negative errno.
 */
int cmkit_srpt_init(void)
{
	return cmkit_srpt_start();
}

/**
 * cmkit_srpt_exit - tear down every srpt object still alive (unload)
 */
void cmkit_srpt_exit(void)
{
	cmkit_srpt_stop();
}
