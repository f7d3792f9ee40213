// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit srpt: what a channel does with the IUs it receives.
 *
 * Every receive IU of a LIVE channel is handled in the channel's CQ work
 * (IB_POLL_WORKQUEUE), under the channel's io_mutex, which also serialises
 * the send and RDMA Read completions and the IUs that arrived before the
 * RTU (kept on ch->wait_list until the QP is in RTS: a response posted in
 * RTR would fail).  The decisions are pure functions of include/cmkit/:
 * cmkit_srp_decode_cmd() and friends for the IUs, cmkit_scsi_decide() for
 * the CDB; this file only moves bytes and keeps the books.
 *
 *  - SRP_CMD: a data-in command (READ, INQUIRY...) posts its RDMA Writes
 *    chained with its SRP_RSP in one post (RC ordering: the data lands
 *    before the response); a data-out command (WRITE) copies immediate
 *    data from the IU, or posts RDMA Reads into the disk's pages and
 *    answers when they complete (cmkit_srpt_rdma_read_done()).  One rdma_rw
 *    context per remote descriptor: direct, or indirect with the whole
 *    table in the IU.  A table that is not whole in the IU is refused
 *    (CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN INFORMATION UNIT)
 *    rather than fetched: ib_srp never sends one unless told to
 *    (allow_ext_sg), and fetching it would cost a round trip and a buffer.
 *  - Credits: the initiator holds rq_size at login; every SRP_CMD,
 *    SRP_TSK_MGMT, SRP_I_LOGOUT and unknown IU takes one, every SRP_RSP
 *    returns the one of its own IU plus those owed by IUs that got no
 *    SRP_RSP (aborted commands).  SRP_CRED_RSP and SRP_AER_RSP are answers
 *    to target requests and take none (ib_srp does not count them).  An IU
 *    that comes without a credit is counted and answered BUSY.
 *  - Send contexts: a context is held until its send completion is
 *    handled, which may come after the initiator already spent the credit
 *    its SRP_RSP returned.  A credited SRP_CMD or SRP_TSK_MGMT that finds
 *    no context but the reserve waits for one on ch->ctx_wait_list, its
 *    receive IU not reposted (as ib_srpt's cmd_wait_list), and every IU
 *    after it waits behind it; they are handled, in order, as completions
 *    free contexts.  The initiator's credits bound how many wait.
 *  - Task management: ABORT TASK, ABORT TASK SET, CLEAR TASK SET and LUN
 *    RESET abort the channel's commands that wait for their RDMA Reads (a
 *    command is otherwise handled within one completion, so nothing else
 *    is in flight but responses already posted: too late to abort).  An
 *    aborted command gets no SRP_RSP, as in ib_srpt: ib_srp's abort
 *    handler frees the command itself once the TMF's SRP_RSP says
 *    COMPLETE, and ignores a late SRP_RSP for it anyway.  It is freed when
 *    its RDMA Read completes (exactly once: counted), and only then is the
 *    TMF's SRP_RSP posted.
 *    A later TMF that finds a command already aborted waits for it too.
 *    The Read lands in the disk's pages, so an aborted WRITE's bytes are
 *    written anyway (SAM: its blocks are indeterminate).  LUN RESET and
 *    CLEAR TASK SET abort only this channel's commands, though LUN 0 is
 *    shared (SAM: every I_T nexus): a documented deviation.
 *  - An unknown IU gets an SRP_T_LOGOUT (INVALID_IU_TYPE), as SRP says;
 *    then the channel is disconnected.  SRP_I_LOGOUT disconnects it.
 *
 * Every post happens under ch->lock while the channel is below DRAINING;
 * from DRAINING on, whatever would have been posted is freed instead, and
 * the QP's flush completes what was posted.  The release work drains the
 * QP (srpt_cm.c), then cmkit_srpt_release_ctxs() frees what is left.
 */
#define pr_fmt(fmt) "cmkit: srpt: " fmt

#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_verbs.h>
#include <rdma/rw.h>
#include <scsi/scsi_proto.h>

#include "srpt/internal.h"
#include "srpt/trace.h"

/* ASCQ of INVALID FIELD IN INFORMATION UNIT (ASC 0x0e). */
#define SRPT_ASCQ_INVALID_FIELD_IN_IU	0x03

static atomic_t srpt_nr_cmds = ATOMIC_INIT(0);
static atomic_t srpt_nr_rsps = ATOMIC_INIT(0);
static atomic_t srpt_nr_cmd_errors = ATOMIC_INIT(0);
static atomic_t srpt_nr_busy = ATOMIC_INIT(0);
static atomic_t srpt_nr_bad_iu = ATOMIC_INIT(0);
static atomic_t srpt_nr_tmf = ATOMIC_INIT(0);
static atomic_t srpt_nr_aborted = ATOMIC_INIT(0);
static atomic_t srpt_nr_rdma_reads = ATOMIC_INIT(0);
static atomic_t srpt_nr_rdma_writes = ATOMIC_INIT(0);
static atomic_t srpt_nr_rw_ctx_alive = ATOMIC_INIT(0);
static atomic_t srpt_nr_over_credit = ATOMIC_INIT(0);
static atomic_t srpt_nr_no_ctx = ATOMIC_INIT(0);
static atomic_t srpt_nr_t_logouts = ATOMIC_INIT(0);
static atomic_t srpt_nr_abort_in_read = ATOMIC_INIT(0);

/**
 * cmkit_srpt_io_counters - fill in the data path's counters
 * @c: the counters; the CM's are filled in by the caller
 */
void cmkit_srpt_io_counters(struct srpt_counters *c)
{
	c->cmds = atomic_read(&srpt_nr_cmds);
	c->rsps = atomic_read(&srpt_nr_rsps);
	c->cmd_errors = atomic_read(&srpt_nr_cmd_errors);
	c->busy = atomic_read(&srpt_nr_busy);
	c->bad_iu = atomic_read(&srpt_nr_bad_iu);
	c->tmf = atomic_read(&srpt_nr_tmf);
	c->aborted = atomic_read(&srpt_nr_aborted);
	c->rdma_reads = atomic_read(&srpt_nr_rdma_reads);
	c->rdma_writes = atomic_read(&srpt_nr_rdma_writes);
	c->ctx_alive = cmkit_srpt_ctx_alive();
	c->rw_ctx_alive = atomic_read(&srpt_nr_rw_ctx_alive);
	c->over_credit = atomic_read(&srpt_nr_over_credit);
	c->no_ctx = atomic_read(&srpt_nr_no_ctx);
	c->t_logouts = atomic_read(&srpt_nr_t_logouts);
	c->abort_in_read = atomic_read(&srpt_nr_abort_in_read);
}

static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc);
static void cmkit_srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc);

/* Destroy a context's rdma_rw contexts (each exactly once), free its data. */
static void srpt_ctx_free_data(struct srpt_send_ioctx *ctx)
{
	struct srpt_rdma_ch *ch = ctx->ch;
	struct srpt_rw *rw;
	unsigned int i;

	for (i = 0; i < ctx->nr_rw; i++) {
		rw = &ctx->rw[i];
		rdma_rw_ctx_destroy(&rw->ctx, ch->qp, SRPT_PORT, rw->sgt.sgl,
				    rw->sgt.orig_nents, ctx->dir);
		sg_free_table(&rw->sgt);
		atomic_dec(&srpt_nr_rw_ctx_alive);
	}
	ctx->nr_rw = 0;
	ctx->rw_wrs = 0;
	kfree(ctx->rw);
	ctx->rw = NULL;
	kfree(ctx->data);
	ctx->data = NULL;
}

/* A context is done with: free what it holds, give it back. */
static void srpt_ctx_done(struct srpt_send_ioctx *ctx)
{
	srpt_ctx_free_data(ctx);
	cmkit_srpt_put_send_ctx(ctx);
}

/* A scatterlist of the pages of [@addr, @addr + @len): vmalloc or kmalloc. */
static int srpt_map_range(struct sg_table *sgt, u8 *addr, u32 len)
{
	unsigned int off = offset_in_page(addr);
	unsigned int n = DIV_ROUND_UP(off + len, PAGE_SIZE);
	struct scatterlist *sg;
	struct page *page;
	unsigned int i;
	u32 chunk;
	int ret;

	ret = sg_alloc_table(sgt, n, GFP_NOIO);
	if (ret)
		return ret;
	for_each_sg(sgt->sgl, sg, n, i) {
		chunk = min_t(u32, len, PAGE_SIZE - off);
		page = is_vmalloc_addr(addr) ? vmalloc_to_page(addr) :
					       virt_to_page(addr);
		sg_set_page(sg, page, chunk, off);
		addr += chunk;
		len -= chunk;
		off = 0;
	}
	return 0;
}

/*
 * One rdma_rw context per remote descriptor of @b, moving @xfer bytes at
 * @addr in @dir.  Return: 0, -ENOMEM (answer BUSY), or another errno (the
 * descriptors cannot be used: refuse the IU); on failure nothing is left.
 */
static int srpt_rw_init(struct srpt_rdma_ch *ch, struct srpt_send_ioctx *ctx,
			const struct cmkit_srp_data_buf *b, u8 *addr, u32 xfer,
			enum dma_data_direction dir)
{
	struct cmkit_srp_direct d;
	struct srpt_rw *rw;
	u32 i, len, left = xfer;
	int ret;

	ctx->rw = kcalloc(b->count, sizeof(*ctx->rw), GFP_NOIO);
	if (!ctx->rw)
		return -ENOMEM;
	ctx->dir = dir;
	for (i = 0; i < b->count && left; i++) {
		if (cmkit_srp_buf_desc(b, i, &d)) {
			ret = -EINVAL;
			goto fail;
		}
		len = min(d.len, left);
		if (!len)
			continue;
		rw = &ctx->rw[ctx->nr_rw];
		ret = srpt_map_range(&rw->sgt, addr, len);
		if (ret)
			goto fail;
		ret = rdma_rw_ctx_init(&rw->ctx, ch->qp, SRPT_PORT, rw->sgt.sgl,
				       rw->sgt.orig_nents, 0, d.va, d.key, dir);
		if (ret < 0) {
			sg_free_table(&rw->sgt);
			goto fail;
		}
		atomic_inc(&srpt_nr_rw_ctx_alive);
		rw->nr_wrs = ret;
		ctx->rw_wrs += ret;
		ctx->nr_rw++;
		addr += len;
		left -= len;
	}
	if (left || ctx->rw_wrs > SRPT_SQ_DATA_WRS) {
		ret = -EINVAL;
		goto fail;
	}
	return 0;

fail:
	srpt_ctx_free_data(ctx);
	/* -EAGAIN: a device that registers MRs ran out of them for now. */
	return ret == -ENOMEM || ret == -EAGAIN ? -ENOMEM : -EINVAL;
}

/* The SRP_RSP of @ctx answers GOOD. */
static void srpt_respond_good(struct srpt_send_ioctx *ctx)
{
	ctx->rsp.status = CMKIT_SCSI_STATUS_GOOD;
	ctx->state = SRPT_CTX_RESPOND;
}

/* The SRP_RSP of @ctx answers CHECK CONDITION with this sense. */
static void srpt_respond_check_condition(struct srpt_send_ioctx *ctx, u8 key, u8 asc, u8 ascq,
					 u32 in_have, u32 out_have)
{
	ctx->rsp.status = CMKIT_SCSI_STATUS_CHECK_CONDITION;
	ctx->rsp.sense_len = cmkit_scsi_build_sense(ctx->sense,
						    sizeof(ctx->sense), key,
						    asc, ascq);
	ctx->rsp.sense = ctx->sense;
	/* Nothing moved: each buffer's whole length is residual. */
	cmkit_srp_residual(&ctx->rsp, 0, in_have, 0, out_have);
	ctx->state = SRPT_CTX_RESPOND;
	atomic_inc(&srpt_nr_cmd_errors);
}

/* CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN INFORMATION UNIT. */
static void srpt_refuse_iu(struct srpt_send_ioctx *ctx, u32 in_have,
			   u32 out_have)
{
	srpt_respond_check_condition(ctx, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				     CMKIT_SCSI_ASC_INVALID_FIELD_IN_IU,
		   SRPT_ASCQ_INVALID_FIELD_IN_IU, in_have, out_have);
}

/* The SRP_RSP of @ctx answers BUSY, whatever it was going to say. */
static void srpt_make_busy(struct srpt_rdma_ch *ch, struct srpt_send_ioctx *ctx,
			   int why)
{
	srpt_ctx_free_data(ctx);
	memset(&ctx->rsp, 0, sizeof(ctx->rsp));
	ctx->opcode = CMKIT_SRP_RSP;
	ctx->rsp.status = SAM_STAT_BUSY;
	ctx->busy_tried = true;
	ctx->state = SRPT_CTX_RESPOND;
	atomic_inc(&srpt_nr_busy);
	trace_cmkit_srpt_busy(ch->id, ch->tag, ctx->tag, why);
}

/*
 * Set up @ctx's RDMA transfer of @xfer bytes at @addr: true when it is
 * ready; else @ctx already answers BUSY (no memory for now) or refuses the
 * IU (descriptors rdma_rw cannot take).
 */
static bool srpt_rw_setup(struct srpt_rdma_ch *ch, struct srpt_send_ioctx *ctx,
			  const struct cmkit_srp_data_buf *b, void *addr, u32 xfer,
			  enum dma_data_direction dir, u32 in_have, u32 out_have)
{
	int ret = srpt_rw_init(ch, ctx, b, addr, xfer, dir);

	if (ret == -ENOMEM)
		srpt_make_busy(ch, ctx, ret);
	else if (ret)
		srpt_refuse_iu(ctx, in_have, out_have);
	return !ret;
}

/*
 * Post what @ctx sends, behind its RDMA Writes if it has any.  Return: 0,
 * -ESHUTDOWN if the channel is closing (nothing posted), or an error.
 */
static int srpt_post_send(struct srpt_rdma_ch *ch, struct srpt_send_ioctx *ctx)
{
	struct ib_sge sge = {
		.addr = ctx->dma,
		.lkey = ch->sdev->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &ctx->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct cmkit_srp_short_iu iu = { };
	const struct ib_send_wr *bad;
	struct ib_send_wr *first = &wr;
	bool fail = srpt_fault(SRPT_FAULT_SEND_POST);
	bool good = ctx->rsp.status == CMKIT_SCSI_STATUS_GOOD;
	unsigned long flags;
	u32 delta = 0;
	unsigned int i;
	int ret;

	ctx->send_cqe.done = srpt_send_done;
	spin_lock_irqsave(&ch->lock, flags);
	if (ch->state >= SRPT_CH_DRAINING) {
		ret = -ESHUTDOWN;
		goto unlock;
	}
	if (ctx->rw_wrs > ch->sq_wr_avail) {
		ret = -ENOSPC;
		goto unlock;
	}
	if (ctx->opcode == CMKIT_SRP_RSP) {
		delta = ctx->credit + ch->req_lim_delta;
		ctx->rsp.tag = ctx->tag;
		ctx->rsp.req_lim_delta = delta;
		if ((good && (ctx->sol_not & CMKIT_SRP_SOLNT_SUCCESS)) ||
		    (!good && (ctx->sol_not & CMKIT_SRP_SOLNT_FAILURE))) {
			ctx->rsp.sol_not = CMKIT_SRP_SOLNT;
			wr.send_flags |= IB_SEND_SOLICITED;
		}
		ret = cmkit_srp_encode_rsp(ctx->buf, SRPT_SEND_BUF_LEN, &ctx->rsp);
	} else {
		iu.opcode = CMKIT_SRP_T_LOGOUT;
		iu.sol_not = CMKIT_SRP_SOLNT;
		iu.value = ctx->reason;
		iu.tag = ctx->tag;
		ret = cmkit_srp_encode_short_iu(ctx->buf, SRPT_SEND_BUF_LEN, &iu);
	}
	if (WARN_ON_ONCE(ret < 0)) {
		ret = -EINVAL;
		goto unlock;
	}
	ctx->len = ret;
	sge.length = ctx->len;
	ib_dma_sync_single_for_device(ch->sdev->device, ctx->dma, ctx->len,
				      DMA_TO_DEVICE);
	for (i = ctx->nr_rw; i-- > 0; )
		first = rdma_rw_ctx_wrs(&ctx->rw[i].ctx, ch->qp, SRPT_PORT, NULL,
					first);
	ret = fail ? -ENOMEM : ib_post_send(ch->qp, first, &bad);
	if (!ret) {
		ch->req_lim += delta;
		ch->req_lim_delta = 0;
		ctx->credit = false;
		ch->sq_wr_avail -= ctx->rw_wrs;
		ctx->sq_wrs = ctx->rw_wrs;
	}
unlock:
	spin_unlock_irqrestore(&ch->lock, flags);
	if (ret)
		return ret;
	if (ctx->nr_rw) {
		atomic_inc(&srpt_nr_rdma_writes);
		trace_cmkit_srpt_rdma_write(ch->id, ch->tag, ctx->tag, ctx->rw_wrs);
	}
	if (ctx->opcode == CMKIT_SRP_RSP) {
		atomic_inc(&srpt_nr_rsps);
		trace_cmkit_srpt_rsp(ch->id, ch->tag, ctx->tag, ctx->rsp.status, delta);
	} else {
		atomic_inc(&srpt_nr_t_logouts);
		trace_cmkit_srpt_t_logout(ch->id, ch->tag, ctx->tag, ctx->reason);
	}
	return 0;
}

/*
 * Post the answer of @ctx.  A post that fails is answered BUSY instead,
 * once; if that fails too, the channel is closed.
 */
static void srpt_post_rsp(struct srpt_rdma_ch *ch, struct srpt_send_ioctx *ctx)
{
	int ret;

	if (ctx->for_cmd)
		cmkit_srpt_hook(SRPT_HOOK_CMD_RESPOND, ch->tag, &ctx->tag,
				sizeof(ctx->tag));
	for (;;) {
		ret = srpt_post_send(ch, ctx);
		if (!ret)
			return;
		if (ret == -ESHUTDOWN)
			break;
		if (ctx->opcode != CMKIT_SRP_RSP || ctx->busy_tried) {
			pr_warn_ratelimited("channel of tag %#llx: posting a response failed: %d; closing\n",
					    ch->tag, ret);
			cmkit_srpt_ch_close(ch);
			break;
		}
		srpt_make_busy(ch, ctx, ret);
	}
	srpt_ctx_done(ctx);
}

/*
 * Post the RDMA Reads of a data-out command.  Return: 0, -ESHUTDOWN if
 * the channel is closing, or an error (nothing posted either way).
 */
static int srpt_post_read(struct srpt_rdma_ch *ch, struct srpt_send_ioctx *ctx)
{
	const struct ib_send_wr *bad;
	struct ib_send_wr *first = NULL;
	bool fail = srpt_fault(SRPT_FAULT_RW_POST);
	unsigned long flags;
	unsigned int i;
	int ret;

	ctx->read_cqe.done = cmkit_srpt_rdma_read_done;
	spin_lock_irqsave(&ch->lock, flags);
	if (ch->state >= SRPT_CH_DRAINING) {
		ret = -ESHUTDOWN;
	} else if (ctx->rw_wrs > ch->sq_wr_avail) {
		ret = -ENOSPC;
	} else {
		for (i = ctx->nr_rw; i-- > 0; )
			first = rdma_rw_ctx_wrs(&ctx->rw[i].ctx, ch->qp, SRPT_PORT,
						i == ctx->nr_rw - 1 ?
						&ctx->read_cqe : NULL, first);
		ret = fail ? -ENOMEM : ib_post_send(ch->qp, first, &bad);
		if (!ret) {
			ch->sq_wr_avail -= ctx->rw_wrs;
			ctx->sq_wrs = ctx->rw_wrs;
		}
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (!ret)
		trace_cmkit_srpt_rdma_read(ch->id, ch->tag, ctx->tag, ctx->rw_wrs);
	return ret;
}

/* Post what a context handled by srpt_handle_iu() is waiting for. */
static void srpt_post_ctx(struct srpt_rdma_ch *ch, struct srpt_send_ioctx *ctx)
{
	int ret;

	if (ctx->state == SRPT_CTX_READ) {
		ret = srpt_post_read(ch, ctx);
		if (!ret) {
			cmkit_srpt_hook(SRPT_HOOK_CMD_READ_POSTED, ch->tag, &ctx->tag,
					sizeof(ctx->tag));
			return;
		}
		if (ret == -ESHUTDOWN) {
			srpt_ctx_done(ctx);
			return;
		}
		srpt_make_busy(ch, ctx, ret);
	}
	srpt_post_rsp(ch, ctx);
}

/*
 * A data-in command: the disk's bytes (or the payload cmkit_scsi_build()
 * writes) go out by RDMA Write, chained before the SRP_RSP.
 */
static void srpt_cmd_data_in(struct srpt_rdma_ch *ch,
			     struct srpt_send_ioctx *ctx,
			     const struct cmkit_srp_cmd *cmd,
			     const struct cmkit_scsi_plan *plan,
			     const struct cmkit_scsi_disk *disk,
			     u32 in_have, u32 out_have)
{
	const struct cmkit_srp_data_buf *b = &cmd->in;
	u32 xfer = cmkit_srp_xfer_len(plan->xfer_len, in_have);

	if (!xfer) {
		srpt_respond_good(ctx);
		cmkit_srp_residual(&ctx->rsp, plan->xfer_len, in_have, 0, out_have);
		return;
	}
	if (b->fmt == CMKIT_SRP_DATA_DESC_INDIRECT &&
	    (!b->whole || b->count > SRPT_MAX_DESC)) {
		srpt_refuse_iu(ctx, in_have, out_have);
		return;
	}
	if (xfer > SRPT_MAX_XFER) {
		srpt_respond_check_condition(ctx, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
					     CMKIT_SCSI_ASC_INVALID_FIELD_IN_CDB, 0, in_have,
			   out_have);
		return;
	}
	if (plan->payload == CMKIT_SCSI_PAYLOAD_DISK) {
		ctx->addr = cmkit_srpt_lun_addr(plan->offset);
		flush_kernel_vmap_range(ctx->addr, xfer);
	} else {
		ctx->data = kmalloc(xfer, GFP_NOIO);
		if (!ctx->data) {
			srpt_make_busy(ch, ctx, -ENOMEM);
			return;
		}
		cmkit_scsi_build(plan, disk, ctx->data, xfer);
		ctx->addr = ctx->data;
	}
	ctx->xfer = xfer;
	if (!srpt_rw_setup(ch, ctx, b, ctx->addr, xfer, DMA_TO_DEVICE, in_have,
			   out_have))
		return;
	srpt_respond_good(ctx);
	cmkit_srp_residual(&ctx->rsp, plan->xfer_len, in_have, 0, out_have);
}

/*
 * A data-out command (WRITE): immediate data is copied from the IU; else
 * the initiator's buffer is RDMA-read straight into the disk's pages.
 */
static void srpt_cmd_data_out(struct srpt_rdma_ch *ch,
			      struct srpt_send_ioctx *ctx,
			      const struct cmkit_srp_cmd *cmd,
			      const struct cmkit_scsi_plan *plan,
			      u32 in_have, u32 out_have)
{
	const struct cmkit_srp_data_buf *b = &cmd->out;
	u32 xfer = plan->xfer_len;

	if (xfer > SRPT_MAX_XFER) {
		srpt_respond_check_condition(ctx, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
					     CMKIT_SCSI_ASC_INVALID_FIELD_IN_CDB, 0, in_have,
			   out_have);
		return;
	}
	srpt_respond_good(ctx);
	cmkit_srp_residual(&ctx->rsp, 0, in_have, xfer, out_have);
	if (!xfer)
		return;
	ctx->addr = cmkit_srpt_lun_addr(plan->offset);
	ctx->xfer = xfer;
	if (b->fmt == CMKIT_SRP_DATA_DESC_IMM) {
		memcpy(ctx->addr, b->imm, xfer);
		/* No dirty lines left in the vmalloc alias (cachetlb.rst). */
		flush_kernel_vmap_range(ctx->addr, xfer);
		return;
	}
	if ((b->fmt == CMKIT_SRP_DATA_DESC_INDIRECT &&
	     (!b->whole || b->count > SRPT_MAX_DESC)) || !ch->initiator_depth) {
		/* An external table, or a channel without RDMA Read depth. */
		srpt_refuse_iu(ctx, in_have, out_have);
		return;
	}
	/*
	 * Flush the vmalloc alias before the device writes the pages: a dirty
	 * line there would be written back over the Read's bytes (and the
	 * invalidate after the Read cleans on some aliasing caches).
	 */
	flush_kernel_vmap_range(ctx->addr, xfer);
	if (!srpt_rw_setup(ch, ctx, b, ctx->addr, xfer, DMA_FROM_DEVICE,
			   in_have, out_have))
		return;
	ctx->state = SRPT_CTX_READ;
}

/* An SRP_CMD, with a context: decode, decide, set up the transfer. */
static void srpt_handle_cmd(struct srpt_rdma_ch *ch, struct srpt_send_ioctx *ctx,
			    const void *buf, u32 len)
{
	const struct cmkit_scsi_disk *disk = cmkit_srpt_lun_disk_get();
	struct cmkit_scsi_plan plan;
	struct cmkit_srp_cmd cmd;
	u32 in_have, out_have;
	int ret;

	ctx->for_cmd = true;
	ret = cmkit_srp_decode_cmd(buf, len, ch->imm_data_offset, &cmd);
	if (ret) {
		atomic_inc(&srpt_nr_bad_iu);
		trace_cmkit_srpt_bad_iu(ch->id, ch->tag, ctx->tag, ret);
		pr_warn_ratelimited("channel of tag %#llx: malformed SRP_CMD %#llx (%d)\n",
				    ch->tag, ctx->tag, ret);
		srpt_refuse_iu(ctx, 0, 0);
		return;
	}
	ctx->tag = cmd.tag;
	ctx->lun = cmd.lun;
	ctx->sol_not = cmd.sol_not;
	in_have = cmd.in.fmt ? cmd.in.len : 0;
	out_have = cmd.out.fmt ? cmd.out.len : 0;
	if (cmkit_scsi_decide(cmd.cdb, cmd.cdb_len, cmd.lun, disk, &plan)) {
		srpt_respond_check_condition(ctx, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
					     CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED, 0, in_have,
					     out_have);
		return;
	}
	if (plan.dir == CMKIT_SCSI_DIR_OUT)
		cmkit_scsi_check_data_out(&plan, out_have);
	trace_cmkit_srpt_cmd(ch->id, ch->tag, cmd.tag, cmd.cdb[0], plan.offset,
			     plan.xfer_len, plan.dir);
	if (plan.status != CMKIT_SCSI_STATUS_GOOD) {
		srpt_respond_check_condition(ctx, plan.sense_key, plan.asc, plan.ascq, in_have,
					     out_have);
		return;
	}
	switch (plan.dir) {
	case CMKIT_SCSI_DIR_IN:
		srpt_cmd_data_in(ch, ctx, &cmd, &plan, disk, in_have, out_have);
		break;
	case CMKIT_SCSI_DIR_OUT:
		srpt_cmd_data_out(ch, ctx, &cmd, &plan, in_have, out_have);
		break;
	default:
		srpt_respond_good(ctx);
		cmkit_srp_residual(&ctx->rsp, 0, in_have, 0, out_have);
		break;
	}
}

/*
 * @ctx, a task management context, found a command that the waiting @tmf
 * aborted already: @ctx answers only after the last TMF chained behind
 * @tmf did (so after that command was freed: SAM, a reset completes once
 * the tasks it aborts transfer no data).  Called with ch->io_mutex held.
 */
static void srpt_tmf_wait_for(struct srpt_send_ioctx *ctx,
			      struct srpt_send_ioctx *tmf)
{
	if (!tmf)
		return;
	while (tmf->tmf && tmf->tmf != ctx)
		tmf = tmf->tmf;
	if (tmf == ctx || tmf->tmf == ctx)
		return;
	tmf->tmf = ctx;
	ctx->tmf_wait++;
}

/*
 * An SRP_TSK_MGMT, with a context.  Return: the context if its SRP_RSP
 * can go now, NULL if it waits for the commands it aborted.
 */
static struct srpt_send_ioctx *srpt_handle_tmf(struct srpt_rdma_ch *ch,
					       struct srpt_send_ioctx *ctx,
					       const void *buf, u32 len)
{
	struct cmkit_srp_tsk_mgmt tm;
	struct srpt_send_ioctx *c;
	u32 lun = 1, i;
	u8 code;
	int ret;

	atomic_inc(&srpt_nr_tmf);
	ret = cmkit_srp_decode_tsk_mgmt(buf, len, &tm);
	if (ret) {
		atomic_inc(&srpt_nr_bad_iu);
		trace_cmkit_srpt_bad_iu(ch->id, ch->tag, ctx->tag, ret);
		pr_warn_ratelimited("channel of tag %#llx: malformed SRP_TSK_MGMT (%d); logging out\n",
				    ch->tag, ret);
		ctx->opcode = CMKIT_SRP_T_LOGOUT;
		ctx->reason = cmkit_srp_logout_reason(ret);
		ctx->logout = true;
		ctx->state = SRPT_CTX_RESPOND;
		return ctx;
	}
	ctx->tag = tm.tag;
	ctx->lun = tm.lun;
	ctx->sol_not = tm.sol_not;
	code = cmkit_srp_tsk_mgmt_rsp_code(tm.func,
					   !cmkit_scsi_lun_decode(tm.lun, &lun) &&
					   lun == 0);
	trace_cmkit_srpt_tmf(ch->id, ch->tag, tm.tag, tm.func, tm.task_tag, code);
	if (code == CMKIT_SRP_TSK_MGMT_COMPLETE) {
		/* Only LUN 0 exists: every function performed names it. */
		for (i = 0; i < ch->nr_send; i++) {
			c = &ch->send_ring[i];
			if (c->state != SRPT_CTX_READ)
				continue;
			if (tm.func == CMKIT_SRP_TSK_ABORT_TASK &&
			    c->tag != tm.task_tag)
				continue;
			if (c->aborted) {
				srpt_tmf_wait_for(ctx, c->tmf);
				continue;
			}
			cmkit_srpt_hook(SRPT_HOOK_TMF, ch->tag, &c->tag, sizeof(c->tag));
			c->aborted = true;
			c->tmf = ctx;
			ctx->tmf_wait++;
			trace_cmkit_srpt_abort(ch->id, ch->tag, c->tag, 0);
		}
	}
	cmkit_srp_tsk_mgmt_rsp_data(ctx->rsp_data, code);
	ctx->rsp.resp = ctx->rsp_data;
	ctx->rsp.resp_len = sizeof(ctx->rsp_data);
	ctx->rsp.status = CMKIT_SCSI_STATUS_GOOD;
	if (ctx->tmf_wait) {
		ctx->state = SRPT_CTX_TMF_WAIT;
		return NULL;
	}
	ctx->state = SRPT_CTX_RESPOND;
	return ctx;
}

/* Give back a credit owed without an SRP_RSP of its own. */
static void srpt_owe_credit(struct srpt_rdma_ch *ch)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ch->req_lim_delta++;
	spin_unlock_irqrestore(&ch->lock, flags);
}

/*
 * Answer BUSY from the reserve: an IU without a credit, or one that found
 * no context.  Without any context left the channel is closed.
 */
static struct srpt_send_ioctx *srpt_answer_busy(struct srpt_rdma_ch *ch,
						u64 tag, bool credit,
						bool for_cmd, int why)
{
	struct srpt_send_ioctx *ctx = cmkit_srpt_get_send_ctx(ch, true);

	if (!ctx) {
		atomic_inc(&srpt_nr_no_ctx);
		if (credit)
			srpt_owe_credit(ch);
		pr_warn_ratelimited("channel of tag %#llx: no send context left; closing\n",
				    ch->tag);
		cmkit_srpt_ch_close(ch);
		return NULL;
	}
	ctx->tag = tag;
	ctx->credit = credit;
	ctx->for_cmd = for_cmd;
	srpt_make_busy(ch, ctx, why);
	return ctx;
}

/*
 * Handle one IU.  Return: a context whose RDMA Reads or answer are to be
 * posted once the IU's buffer is reposted, or NULL.
 */
static struct srpt_send_ioctx *srpt_handle_iu(struct srpt_rdma_ch *ch,
					      const u8 *buf, u32 len)
{
	struct srpt_send_ioctx *ctx;
	u8 op = len ? buf[0] : 0xff;
	unsigned long flags;
	bool credit = false;
	u64 tag = 0;

	cmkit_srp_iu_tag(buf, len, &tag);
	if (op != CMKIT_SRP_CRED_RSP && op != CMKIT_SRP_AER_RSP) {
		spin_lock_irqsave(&ch->lock, flags);
		if (ch->req_lim) {
			ch->req_lim--;
			credit = true;
		}
		spin_unlock_irqrestore(&ch->lock, flags);
		if (!credit) {
			atomic_inc(&srpt_nr_over_credit);
			trace_cmkit_srpt_over_credit(ch->id, ch->tag, tag, op);
		}
	}
	switch (op) {
	case CMKIT_SRP_CMD:
	case CMKIT_SRP_TSK_MGMT:
		if (op == CMKIT_SRP_CMD)
			atomic_inc(&srpt_nr_cmds);
		if (!credit)
			return srpt_answer_busy(ch, tag, false,
						op == CMKIT_SRP_CMD, 1);
		ctx = cmkit_srpt_get_send_ctx(ch, false);
		if (!ctx)
			return srpt_answer_busy(ch, tag, true,
						op == CMKIT_SRP_CMD, 0);
		ctx->credit = true;
		ctx->tag = tag;
		if (op == CMKIT_SRP_TSK_MGMT)
			return srpt_handle_tmf(ch, ctx, buf, len);
		srpt_handle_cmd(ch, ctx, buf, len);
		return ctx;
	case CMKIT_SRP_I_LOGOUT:
		trace_cmkit_srpt_iu_other(ch->id, ch->tag, tag, op);
		cmkit_srpt_ch_logout(ch);
		return NULL;
	case CMKIT_SRP_CRED_RSP:
	case CMKIT_SRP_AER_RSP:
		/* Answers to requests srpt never sends: nothing to do. */
		trace_cmkit_srpt_iu_other(ch->id, ch->tag, tag, op);
		return NULL;
	}
	atomic_inc(&srpt_nr_bad_iu);
	trace_cmkit_srpt_bad_iu(ch->id, ch->tag, tag, op);
	pr_warn_ratelimited("channel of tag %#llx: IU of unknown type %#x; logging out\n",
			    ch->tag, op);
	ctx = cmkit_srpt_get_send_ctx(ch, true);
	if (!ctx) {
		atomic_inc(&srpt_nr_no_ctx);
		cmkit_srpt_ch_close(ch);
		return NULL;
	}
	ctx->opcode = CMKIT_SRP_T_LOGOUT;
	ctx->reason = CMKIT_SRP_T_LOGOUT_INVALID_IU_TYPE;
	ctx->tag = tag;
	ctx->logout = true;
	ctx->state = SRPT_CTX_RESPOND;
	return ctx;
}

/* Handle an IU of a LIVE channel, repost its buffer, post the answer. */
static void srpt_run_iu(struct srpt_rdma_ch *ch,
			struct srpt_recv_ioctx *ioctx, u32 len)
{
	struct srpt_send_ioctx *ctx;
	unsigned long flags;
	bool fail;
	int ret;

	ctx = srpt_handle_iu(ch, ioctx->buf, len);
	fail = srpt_fault(SRPT_FAULT_RECV_REPOST);
	spin_lock_irqsave(&ch->lock, flags);
	if (ch->state >= SRPT_CH_DRAINING)
		ret = -ESHUTDOWN;
	else
		ret = fail ? -ENOMEM : cmkit_srpt_post_recv(ch, ioctx);
	spin_unlock_irqrestore(&ch->lock, flags);
	if (ret && ret != -ESHUTDOWN) {
		trace_cmkit_srpt_repost_failed(ch->id, ch->tag, 0, ret);
		pr_warn_ratelimited("channel of tag %#llx: reposting a receive IU failed: %d; closing\n",
				    ch->tag, ret);
		cmkit_srpt_ch_close(ch);
	}
	if (ctx)
		srpt_post_ctx(ch, ctx);
}

/*
 * Whether an IU must wait for a send context: it would take a credit and
 * find none but the reserve.  Called with ch->lock held.
 */
static bool srpt_iu_needs_ctx(struct srpt_rdma_ch *ch,
			      struct srpt_recv_ioctx *ioctx, u32 len)
{
	u8 op = len ? *(u8 *)ioctx->buf : 0xff;

	return (op == CMKIT_SRP_CMD || op == CMKIT_SRP_TSK_MGMT) &&
	       ch->req_lim && ch->nr_free <= SRPT_CTX_FLOOR;
}

/*
 * Handle an IU of a LIVE channel, or keep it (unreposted) on
 * ch->ctx_wait_list behind the IUs already waiting for a send context.
 */
static void srpt_process_iu(struct srpt_rdma_ch *ch,
			    struct srpt_recv_ioctx *ioctx, u32 len)
{
	unsigned long flags;
	bool wait;

	spin_lock_irqsave(&ch->lock, flags);
	wait = !list_empty(&ch->ctx_wait_list) ||
	       srpt_iu_needs_ctx(ch, ioctx, len);
	if (wait) {
		ioctx->byte_len = len;
		list_add_tail(&ioctx->wait, &ch->ctx_wait_list);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (wait)
		trace_cmkit_srpt_iu_parked(ch->id, ch->tag, 1, len);
	else
		srpt_run_iu(ch, ioctx, len);
}

/*
 * A send context was freed: handle the IUs that wait for one, in order,
 * while they find one.  Called with ch->io_mutex held.
 */
static void srpt_run_ctx_waiters(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_ioctx *ioctx;
	unsigned long flags;

	while (srpt_get_ch_state(ch) < SRPT_CH_DRAINING) {
		spin_lock_irqsave(&ch->lock, flags);
		ioctx = list_first_entry_or_null(&ch->ctx_wait_list,
						 struct srpt_recv_ioctx, wait);
		if (ioctx && srpt_iu_needs_ctx(ch, ioctx, ioctx->byte_len))
			ioctx = NULL;
		if (ioctx)
			list_del_init(&ioctx->wait);
		spin_unlock_irqrestore(&ch->lock, flags);
		if (!ioctx)
			break;
		srpt_run_iu(ch, ioctx, ioctx->byte_len);
	}
}

/**
 * cmkit_srpt_handle_recv - an IU arrived on a channel
 * @ch: the channel
 * @ioctx: the receive IU holding it
 * @byte_len: its length
 *
 * Called from the receive completion, in the channel's CQ work.  An IU that
 * comes before the channel is LIVE (the initiator's first SEND overtook
 * its RTU) waits for cmkit_srpt_ch_live(); one that comes once the channel is
 * closing is dropped (its buffer is not reposted).
 */
void cmkit_srpt_handle_recv(struct srpt_rdma_ch *ch, struct srpt_recv_ioctx *ioctx,
			    u32 byte_len)
{
	enum cmkit_srpt_ch_state state;
	unsigned long flags;

	mutex_lock(&ch->io_mutex);
	spin_lock_irqsave(&ch->lock, flags);
	state = ch->state;
	if (state == SRPT_CH_CONNECTING) {
		ioctx->byte_len = byte_len;
		list_add_tail(&ioctx->wait, &ch->wait_list);
	}
	spin_unlock_irqrestore(&ch->lock, flags);
	if (state == SRPT_CH_CONNECTING)
		trace_cmkit_srpt_iu_parked(ch->id, ch->tag, 0, byte_len);
	else if (state < SRPT_CH_DRAINING)
		srpt_process_iu(ch, ioctx, byte_len);
	mutex_unlock(&ch->io_mutex);
}

/**
 * cmkit_srpt_ch_live - handle the IUs that arrived before the channel was LIVE
 * @ch: a channel that just went LIVE (its QP is in RTS)
 *
 * Called from the CM handler (RTU, USER_ESTABLISHED), with @ch->io_mutex
 * held since before @ch was marked LIVE, so that no IU that came later is
 * handled first.
 */
void cmkit_srpt_ch_live(struct srpt_rdma_ch *ch)
{
	struct srpt_recv_ioctx *ioctx;
	unsigned long flags;

	lockdep_assert_held(&ch->io_mutex);
	for (;;) {
		spin_lock_irqsave(&ch->lock, flags);
		ioctx = list_first_entry_or_null(&ch->wait_list,
						 struct srpt_recv_ioctx, wait);
		if (ioctx)
			list_del_init(&ioctx->wait);
		spin_unlock_irqrestore(&ch->lock, flags);
		if (!ioctx)
			break;
		if (srpt_get_ch_state(ch) < SRPT_CH_DRAINING)
			srpt_process_iu(ch, ioctx, ioctx->byte_len);
	}
}

/* An aborted command's RDMA Read is over: free it, maybe answer its TMF. */
static void srpt_free_aborted(struct srpt_rdma_ch *ch,
			      struct srpt_send_ioctx *ctx)
{
	struct srpt_send_ioctx *tmf = ctx->tmf, *next;

	if (ctx->credit)
		srpt_owe_credit(ch);
	atomic_inc(&srpt_nr_aborted);
	atomic_inc(&srpt_nr_abort_in_read);
	trace_cmkit_srpt_abort(ch->id, ch->tag, ctx->tag, 1);
	srpt_ctx_done(ctx);
	/* Answer the TMF, then each later one that waited only for it. */
	while (tmf && !--tmf->tmf_wait) {
		next = tmf->tmf;
		tmf->tmf = NULL;
		tmf->state = SRPT_CTX_RESPOND;
		srpt_post_rsp(ch, tmf);
		tmf = next;
	}
}

/* Give back the send queue WRs a context held. */
static void srpt_put_sq_wrs(struct srpt_rdma_ch *ch, struct srpt_send_ioctx *ctx)
{
	unsigned long flags;

	spin_lock_irqsave(&ch->lock, flags);
	ch->sq_wr_avail += ctx->sq_wrs;
	ctx->sq_wrs = 0;
	spin_unlock_irqrestore(&ch->lock, flags);
}

/* The RDMA Reads of a data-out command completed, or were flushed. */
static void cmkit_srpt_rdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_send_ioctx *ctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, read_cqe);
	struct srpt_rdma_ch *ch = ctx->ch;

	mutex_lock(&ch->io_mutex);
	srpt_put_sq_wrs(ch, ctx);
	trace_cmkit_srpt_rdma_read_done(ch->id, ch->tag, ctx->tag, wc->status);
	if (wc->status != IB_WC_SUCCESS)
		cmkit_srpt_wc_failed(ch, wc, ctx->tag, "RDMA Read");
	if (ctx->aborted) {
		srpt_free_aborted(ch, ctx);
	} else if (wc->status != IB_WC_SUCCESS) {
		srpt_ctx_done(ctx);
	} else {
		atomic_inc(&srpt_nr_rdma_reads);
		/* Unmapped first, then the vmalloc alias sees the new bytes. */
		srpt_ctx_free_data(ctx);
		invalidate_kernel_vmap_range(ctx->addr, ctx->xfer);
		ctx->state = SRPT_CTX_RESPOND;
		srpt_post_rsp(ch, ctx);
	}
	srpt_run_ctx_waiters(ch);
	mutex_unlock(&ch->io_mutex);
}

/* An SRP_RSP or SRP_T_LOGOUT (and its RDMA Writes) completed, or flushed. */
static void srpt_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct srpt_send_ioctx *ctx =
		container_of(wc->wr_cqe, struct srpt_send_ioctx, send_cqe);
	struct srpt_rdma_ch *ch = ctx->ch;
	bool logout;

	mutex_lock(&ch->io_mutex);
	srpt_put_sq_wrs(ch, ctx);
	logout = ctx->logout && wc->status == IB_WC_SUCCESS;
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			trace_cmkit_srpt_send_err(ch->id, ch->tag, ctx->tag, wc->status);
		cmkit_srpt_wc_failed(ch, wc, ctx->tag, "send");
	}
	srpt_ctx_done(ctx);
	srpt_run_ctx_waiters(ch);
	mutex_unlock(&ch->io_mutex);
	if (logout)
		cmkit_srpt_ch_logout(ch);
}

/**
 * cmkit_srpt_release_ctxs - free every send context still in use
 * @ch: a channel whose QP is drained (or never reached RTR)
 *
 * After the drain every posted WR has completed, so normally all are free;
 * whatever is not (a TMF answer whose post was refused) is freed here, its
 * rdma_rw contexts destroyed once.
 */
void cmkit_srpt_release_ctxs(struct srpt_rdma_ch *ch)
{
	struct srpt_send_ioctx *ctx;
	u32 i;

	if (!ch->send_ring)
		return;
	mutex_lock(&ch->io_mutex);
	for (i = 0; i < ch->nr_send; i++) {
		ctx = &ch->send_ring[i];
		if (!ctx->buf || ctx->state == SRPT_CTX_FREE)
			continue;
		if (ctx->aborted)
			atomic_inc(&srpt_nr_aborted);
		srpt_ctx_done(ctx);
	}
	mutex_unlock(&ch->io_mutex);
}
