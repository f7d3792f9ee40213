// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit srpt: a channel's receive ring and send contexts.
 *
 * Before its REP, each channel posts as many receive IUs as the request
 * limit it grants in the login response (req_lim_delta), each as large as
 * the largest initiator-to-target IU it grants (max_it_iu_len), so that the
 * initiator's first SRP_CMD finds a buffer.  A consumed IU is posted again.
 * When the channel closes its QP moves to the error state, which flushes
 * the ring; the release work drains the QP before the ring is freed.
 *
 * What an IU says is srpt_io.c's business (cmkit_srpt_handle_recv()), which
 * also reposts it.
 *
 * The send contexts are a bounded ring of @rq_size + SRPT_CTX_RESERVE
 * per channel, each with a DMA-mapped buffer for the IU it sends: one per
 * credit, so that a command that came with a credit always finds one, plus
 * a few for the send completions that lag behind the credits already
 * returned and for the answers that need no credit (BUSY, SRP_T_LOGOUT).
 * A credited IU that still finds none (more lagging completions than
 * that) waits for one, unreposted (srpt_io.c), so it is never refused.
 */
#define pr_fmt(fmt) "cmkit: srpt: " fmt

#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "srpt/internal.h"
#include "srpt/trace.h"

static atomic_t srpt_nr_iu_received = ATOMIC_INIT(0);
static atomic_t srpt_nr_ctx_alive = ATOMIC_INIT(0);

/**
 * cmkit_srpt_ctx_alive - send contexts in use on any channel now
 *
 * Return: the count.
 */
unsigned int cmkit_srpt_ctx_alive(void)
{
	return atomic_read(&srpt_nr_ctx_alive);
}

/**
 * cmkit_srpt_nr_received - receive IUs that arrived on any channel since loading
 *
 * Return: the count.
 */
unsigned int cmkit_srpt_nr_received(void)
{
	return atomic_read(&srpt_nr_iu_received);
}

static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc);

/**
 * cmkit_srpt_post_recv - post one receive IU
 * @ch: its channel
 * @ioctx: the IU
 *
 * Called before the REP, and once the IU was consumed, with @ch->lock held
 * and @ch not yet DRAINING.
 *
 * Return: 0, or ib_post_recv()'s error.
 */
int cmkit_srpt_post_recv(struct srpt_rdma_ch *ch, struct srpt_recv_ioctx *ioctx)
{
	struct ib_sge sge = {
		.addr = ioctx->dma,
		.length = ch->max_it_iu_len,
		.lkey = ch->sdev->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &ioctx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	ib_dma_sync_single_for_device(ch->sdev->device, ioctx->dma,
				      ch->max_it_iu_len, DMA_FROM_DEVICE);
	return ib_post_recv(ch->qp, &wr, NULL);
}

/**
 * cmkit_srpt_wc_failed - a work request of a channel completed in error
 * @ch: the channel
 * @wc: the completion, its status not IB_WC_SUCCESS
 * @srp_tag: the SRP tag of the IU it was for (0: none)
 * @what: what completed, for the log
 *
 * Below DRAINING srpt did not put the QP in the error state itself: a WR
 * failed (perhaps an unsignaled one whose completion the core dropped,
 * hence even a flush counts), so the channel is closed.  Once srpt closed
 * it, the flushes that follow are expected and stay silent.  Called from
 * the channel's CQ work, with or without its io_mutex.
 */
void cmkit_srpt_wc_failed(struct srpt_rdma_ch *ch, const struct ib_wc *wc,
			  u64 srp_tag, const char *what)
{
	if (srpt_get_ch_state(ch) >= SRPT_CH_DRAINING)
		return;
	trace_cmkit_srpt_wc_close(ch->id, ch->tag, srp_tag, wc->status);
	pr_warn_ratelimited("channel of tag %#llx: %s failed: %s; closing\n",
			    ch->tag, what, ib_wc_status_msg(wc->status));
	cmkit_srpt_ch_close(ch);
}

/* An IU arrived, or a posted receive failed or was flushed. */
static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = cq->cq_context;
	struct srpt_recv_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_recv_ioctx, cqe);

	if (wc->status != IB_WC_SUCCESS) {
		trace_cmkit_srpt_recv_err(ch->id, ch->tag, wc->status);
		cmkit_srpt_wc_failed(ch, wc, 0, "receive");
		return;
	}
	ib_dma_sync_single_for_cpu(ch->sdev->device, ioctx->dma,
				   ch->max_it_iu_len, DMA_FROM_DEVICE);
	atomic_inc(&srpt_nr_iu_received);
	trace_cmkit_srpt_recv(ch->id, ch->tag, wc->byte_len,
			      wc->byte_len ? *(u8 *)ioctx->buf : 0);
	cmkit_srpt_hook(SRPT_HOOK_RECV, ch->tag, ioctx->buf, wc->byte_len);
	cmkit_srpt_handle_recv(ch, ioctx, wc->byte_len);
}

/**
 * cmkit_srpt_alloc_recv_ring - allocate and map a channel's receive IUs
 * @ch: a channel whose @rq_size and @max_it_iu_len are set
 *
 * Return: 0, or -ENOMEM (then nothing is left allocated).
 */
int cmkit_srpt_alloc_recv_ring(struct srpt_rdma_ch *ch)
{
	struct ib_device *dev = ch->sdev->device;
	struct srpt_recv_ioctx *ioctx;
	u32 i;

	if (srpt_fault(SRPT_FAULT_RECV_ALLOC))
		return -ENOMEM;
	ch->recv_ring = kcalloc(ch->rq_size, sizeof(*ch->recv_ring), GFP_KERNEL);
	if (!ch->recv_ring)
		return -ENOMEM;
	for (i = 0; i < ch->rq_size; i++) {
		ioctx = &ch->recv_ring[i];
		ioctx->cqe.done = srpt_recv_done;
		INIT_LIST_HEAD(&ioctx->wait);
		ioctx->buf = kmalloc(ch->max_it_iu_len, GFP_KERNEL);
		if (!ioctx->buf)
			goto free;
		ioctx->dma = ib_dma_map_single(dev, ioctx->buf, ch->max_it_iu_len,
					       DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(dev, ioctx->dma)) {
			kfree(ioctx->buf);
			ioctx->buf = NULL;
			goto free;
		}
	}
	return 0;

free:
	cmkit_srpt_free_recv_ring(ch);
	return -ENOMEM;
}

/**
 * cmkit_srpt_free_recv_ring - unmap and free a channel's receive IUs
 * @ch: a channel whose QP is drained or was never given the ring
 */
void cmkit_srpt_free_recv_ring(struct srpt_rdma_ch *ch)
{
	struct ib_device *dev = ch->sdev->device;
	struct srpt_recv_ioctx *ioctx;
	u32 i;

	if (!ch->recv_ring)
		return;
	for (i = 0; i < ch->rq_size; i++) {
		ioctx = &ch->recv_ring[i];
		if (!ioctx->buf)
			break;
		ib_dma_unmap_single(dev, ioctx->dma, ch->max_it_iu_len,
				    DMA_FROM_DEVICE);
		kfree(ioctx->buf);
	}
	kfree(ch->recv_ring);
	ch->recv_ring = NULL;
}

/**
 * cmkit_srpt_post_recv_ring - post every receive IU of a channel
 * @ch: a channel whose QP is in INIT or later
 *
 * On failure the IUs posted so far stay posted; they are flushed when the
 * QP is drained.
 *
 * Return: 0, or the first failing post's error.
 */
int cmkit_srpt_post_recv_ring(struct srpt_rdma_ch *ch)
{
	u32 i;
	int ret;

	for (i = 0; i < ch->rq_size; i++) {
		if (srpt_fault(SRPT_FAULT_RECV_POST))
			return -ENOMEM;
		ret = cmkit_srpt_post_recv(ch, &ch->recv_ring[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * cmkit_srpt_alloc_send_ring - allocate and map a channel's send contexts
 * @ch: a channel whose @rq_size is set
 *
 * Return: 0, or -ENOMEM (then nothing is left allocated).
 */
int cmkit_srpt_alloc_send_ring(struct srpt_rdma_ch *ch)
{
	struct ib_device *dev = ch->sdev->device;
	struct srpt_send_ioctx *ctx;
	u32 i;

	INIT_LIST_HEAD(&ch->free_list);
	ch->nr_free = 0;
	ch->nr_send = ch->rq_size + SRPT_CTX_RESERVE;
	ch->send_ring = kcalloc(ch->nr_send, sizeof(*ch->send_ring), GFP_KERNEL);
	if (!ch->send_ring)
		return -ENOMEM;
	for (i = 0; i < ch->nr_send; i++) {
		ctx = &ch->send_ring[i];
		ctx->ch = ch;
		ctx->buf = kzalloc(SRPT_SEND_BUF_LEN, GFP_KERNEL);
		if (!ctx->buf)
			goto free;
		ctx->dma = ib_dma_map_single(dev, ctx->buf, SRPT_SEND_BUF_LEN,
					     DMA_TO_DEVICE);
		if (ib_dma_mapping_error(dev, ctx->dma)) {
			kfree(ctx->buf);
			ctx->buf = NULL;
			goto free;
		}
		ctx->state = SRPT_CTX_FREE;
		list_add_tail(&ctx->entry, &ch->free_list);
		ch->nr_free++;
	}
	return 0;

free:
	cmkit_srpt_free_send_ring(ch);
	return -ENOMEM;
}

/**
 * cmkit_srpt_free_send_ring - unmap and free a channel's send contexts
 * @ch: a channel whose contexts are all free again (cmkit_srpt_release_ctxs())
 */
void cmkit_srpt_free_send_ring(struct srpt_rdma_ch *ch)
{
	struct ib_device *dev = ch->sdev->device;
	struct srpt_send_ioctx *ctx;
	u32 i;

	if (!ch->send_ring)
		return;
	for (i = 0; i < ch->nr_send; i++) {
		ctx = &ch->send_ring[i];
		if (!ctx->buf)
			break;
		ib_dma_unmap_single(dev, ctx->dma, SRPT_SEND_BUF_LEN,
				    DMA_TO_DEVICE);
		kfree(ctx->buf);
	}
	kfree(ch->send_ring);
	ch->send_ring = NULL;
}

/**
 * cmkit_srpt_get_send_ctx - take a free send context of a channel
 * @ch: the channel
 * @reserve: the context may be one of the last SRPT_CTX_FLOOR (for a BUSY
 *	answer or an SRP_T_LOGOUT)
 *
 * Return: the context, in state NEW, or NULL if none is left for the
 * caller.
 */
struct srpt_send_ioctx *cmkit_srpt_get_send_ctx(struct srpt_rdma_ch *ch, bool reserve)
{
	struct srpt_send_ioctx *ctx = NULL;
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	if (ch->nr_free > SRPT_CTX_FLOOR || (reserve && ch->nr_free)) {
		ctx = list_first_entry(&ch->free_list, struct srpt_send_ioctx,
				       entry);
		list_del_init(&ctx->entry);
		ch->nr_free--;
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!ctx)
		return NULL;
	atomic_inc(&srpt_nr_ctx_alive);
	ctx->state = SRPT_CTX_NEW;
	ctx->opcode = CMKIT_SRP_RSP;
	ctx->for_cmd = false;
	ctx->credit = false;
	ctx->aborted = false;
	ctx->logout = false;
	ctx->busy_tried = false;
	ctx->tag = 0;
	ctx->lun = 0;
	ctx->sol_not = 0;
	memset(&ctx->rsp, 0, sizeof(ctx->rsp));
	ctx->tmf = NULL;
	ctx->tmf_wait = 0;
	ctx->rw = NULL;
	ctx->nr_rw = 0;
	ctx->rw_wrs = 0;
	ctx->data = NULL;
	ctx->addr = NULL;
	ctx->xfer = 0;
	return ctx;
}

/**
 * cmkit_srpt_put_send_ctx - give a send context back to its channel
 * @ctx: a context whose RDMA contexts are destroyed and data freed
 */
void cmkit_srpt_put_send_ctx(struct srpt_send_ioctx *ctx)
{
	struct srpt_rdma_ch *ch = ctx->ch;
	unsigned long flags;

	if (WARN_ON_ONCE(ctx->state == SRPT_CTX_FREE))
		return;
	ctx->state = SRPT_CTX_FREE;
	spin_lock_irqsave(&ch->lock, flags);
	list_add_tail(&ctx->entry, &ch->free_list);
	ch->nr_free++;
	spin_unlock_irqrestore(&ch->lock, flags);
	atomic_dec(&srpt_nr_ctx_alive);
}
