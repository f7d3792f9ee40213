// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit srpt: a channel's receive ring.
 *
 * Before its REP, each channel posts as many receive IUs as the request
 * limit it grants in the login response (req_lim_delta), each as large as
 * the largest initiator-to-target IU it grants (max_it_iu_len), so that the
 * initiator's first SRP_CMD finds a buffer.  A consumed IU is posted again.
 * When the channel closes its QP moves to the error state, which flushes
 * the ring; the release work drains the QP before the ring is freed.
 *
 * No IU is interpreted yet: each one that arrives is traced and reposted.
 */
#define pr_fmt(fmt) "cmkit: srpt: " fmt

#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "srpt_int.h"
#include "srpt_trace.h"

static atomic_t srpt_nr_iu_received = ATOMIC_INIT(0);

/**
 * srpt_nr_received - receive IUs that arrived on any channel since loading
 *
 * Return: the count.
 */
unsigned int srpt_nr_received(void)
{
	return atomic_read(&srpt_nr_iu_received);
}

static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc);

/*
 * Post one receive IU.  Called before the REP, and from its completion
 * handler once the IU was consumed.
 */
static int srpt_post_recv(struct srpt_rdma_ch *ch, struct srpt_recv_ioctx *ioctx)
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

	if (srpt_fault(SRPT_FAULT_RECV_POST))
		return -ENOMEM;
	ib_dma_sync_single_for_device(ch->sdev->device, ioctx->dma,
				      ch->max_it_iu_len, DMA_FROM_DEVICE);
	return ib_post_recv(ch->qp, &wr, NULL);
}

/* An IU arrived, or a posted receive was flushed. */
static void srpt_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_rdma_ch *ch = cq->cq_context;
	struct srpt_recv_ioctx *ioctx =
		container_of(wc->wr_cqe, struct srpt_recv_ioctx, cqe);
	int ret;

	if (wc->status != IB_WC_SUCCESS) {
		/* A flush: the channel is closing. */
		trace_srpt_recv_err(ch->id, ch->tag, wc->status);
		return;
	}
	ib_dma_sync_single_for_cpu(ch->sdev->device, ioctx->dma,
				   ch->max_it_iu_len, DMA_FROM_DEVICE);
	atomic_inc(&srpt_nr_iu_received);
	trace_srpt_recv(ch->id, ch->tag, wc->byte_len,
			wc->byte_len ? *(u8 *)ioctx->buf : 0);
	srpt_hook(SRPT_HOOK_RECV, ch->tag, ioctx->buf, wc->byte_len);

	if (srpt_get_ch_state(ch) >= SRPT_CH_DRAINING)
		return;
	ret = srpt_post_recv(ch, ioctx);
	if (ret)
		pr_warn_ratelimited("reposting a receive IU of tag %#llx failed: %d\n",
				    ch->tag, ret);
}

/**
 * srpt_alloc_recv_ring - allocate and map a channel's receive IUs
 * @ch: a channel whose @rq_size and @max_it_iu_len are set
 *
 * Return: 0, or -ENOMEM (then nothing is left allocated).
 */
int srpt_alloc_recv_ring(struct srpt_rdma_ch *ch)
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
	srpt_free_recv_ring(ch);
	return -ENOMEM;
}

/**
 * srpt_free_recv_ring - unmap and free a channel's receive IUs
 * @ch: a channel whose QP is drained or was never given the ring
 */
void srpt_free_recv_ring(struct srpt_rdma_ch *ch)
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
 * srpt_post_recv_ring - post every receive IU of a channel
 * @ch: a channel whose QP is in INIT or later
 *
 * On failure the IUs posted so far stay posted; they are flushed when the
 * QP is drained.
 *
 * Return: 0, or the first failing post's error.
 */
int srpt_post_recv_ring(struct srpt_rdma_ch *ch)
{
	u32 i;
	int ret;

	for (i = 0; i < ch->rq_size; i++) {
		ret = srpt_post_recv(ch, &ch->recv_ring[i]);
		if (ret)
			return ret;
	}
	return 0;
}
