// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit rpcrdma: memory registration with FRWR, after
 * net/sunrpc/xprtrdma/frwr_ops.c and verbs.c (rpcrdma_mr_get,
 * rpcrdma_mrs_refresh, rpcrdma_mrs_destroy).
 *
 * A connection has a pool of MRs on its protection domain, each able to
 * map re_max_fr_depth pages (RPCRDMA_MAX_DATA_SEGS at most, 1 MiB):
 *
 *  - made when the connection is set up (cmkit_rpcrdma_mrs_create(),
 *    RPCRDMA_MR_BATCH of them) and, when a caller finds the pool empty,
 *    another batch (cmkit_rpcrdma_mrs_refresh()), up to RPCRDMA_MAX_MRS;
 *  - taken by a caller (cmkit_rpcrdma_mr_get()), mapped onto its pages and
 *    given a fresh rkey (cmkit_rpcrdma_frwr_map()), registered by an
 *    IB_WR_REG_MR posted before the Send that advertises it
 *    (cmkit_rpcrdma_frwr_reg_wrs()), and fenced once the peer is done with
 *    it by IB_WR_LOCAL_INV (cmkit_rpcrdma_frwr_unmap_sync()), or found
 *    invalidated by the peer's Send With Invalidate
 *    (cmkit_rpcrdma_frwr_remote_inv()); then back to the pool;
 *  - an MR whose registration or invalidation completed in error (a flush)
 *    is in an unknown state: it is deregistered when it is put, never
 *    reused, and the next refresh makes a new one;
 *  - every MR is deregistered once the connection's QP is drained and
 *    its callers have put theirs (cmkit_rpcrdma_mrs_destroy()), before its
 *    protection domain goes.
 *
 * Each step that can fail is a fault point: the MR's allocation, its
 * mapping, the post of its registration and of its invalidation.
 */
#define pr_fmt(fmt) "cmkit: rpcrdma: " fmt

#include <linux/scatterlist.h>
#include <linux/slab.h>

#include "core/cmkit.h"
#include "rpcrdma/rpcrdma.h"
#include "rpcrdma/trace.h"

static void rpcrdma_mr_unmap(struct rpcrdma_mr *mr)
{
	if (!mr->mr_device)
		return;
	ib_dma_unmap_sg(mr->mr_device, mr->mr_sg, mr->mr_nents, mr->mr_dir);
	mr->mr_device = NULL;
}

/* Deregister @mr (its QP drained, or it was never posted) and free it. */
static void rpcrdma_mr_release(struct rpcrdma_mr *mr)
{
	int rc;

	rpcrdma_mr_unmap(mr);
	if (mr->mr_ibmr) {
		rc = ib_dereg_mr(mr->mr_ibmr);
		trace_cmkit_rpcrdma_mr_dereg(mr->mr_xid, mr->mr_handle, rc);
	}
	kfree(mr->mr_sg);
	kfree(mr);
	cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.mrs_freed);
}

/* One new MR on the connection's protection domain, or NULL. */
static struct rpcrdma_mr *rpcrdma_mr_create(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_ep *ep = r_xprt->rx_ep;
	unsigned int depth = ep->re_max_fr_depth;
	struct rpcrdma_mr *mr;
	struct ib_mr *ibmr;

	mr = kzalloc_obj(*mr, GFP_KERNEL);
	if (!mr)
		return NULL;
	mr->mr_sg = kcalloc(depth, sizeof(*mr->mr_sg), GFP_KERNEL);
	if (!mr->mr_sg)
		goto out_free;
	ibmr = rpcrdma_fault(RPCRDMA_FAULT_MR_ALLOC) ? ERR_PTR(-ENOMEM) :
		ib_alloc_mr(ep->re_pd, IB_MR_TYPE_MEM_REG, depth);
	if (IS_ERR(ibmr)) {
		trace_cmkit_rpcrdma_mr_alloc(r_xprt->rx_xid, PTR_ERR(ibmr));
		goto out_free;
	}
	sg_init_table(mr->mr_sg, depth);
	mr->mr_ibmr = ibmr;
	mr->mr_xprt = r_xprt;
	mr->mr_xid = r_xprt->rx_xid;
	mr->mr_handle = ibmr->rkey;
	INIT_LIST_HEAD(&mr->mr_list);
	init_completion(&mr->mr_linv_done);
	atomic_inc(&cmkit_rpcrdma_stats.mrs_created);
	return mr;

out_free:
	kfree(mr->mr_sg);
	kfree(mr);
	return NULL;
}

/* Add up to @n MRs to the pool, never beyond RPCRDMA_MAX_MRS: how many were. */
static unsigned int rpcrdma_mrs_add(struct rpcrdma_xprt *r_xprt, unsigned int n)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	unsigned int added = 0;

	while (added < n) {
		struct rpcrdma_mr *mr;
		bool room;

		spin_lock(&buf->rb_lock);
		room = buf->rb_mrs_count < RPCRDMA_MAX_MRS;
		if (room)
			buf->rb_mrs_count++;
		spin_unlock(&buf->rb_lock);
		if (!room)
			break;
		mr = rpcrdma_mr_create(r_xprt);
		spin_lock(&buf->rb_lock);
		if (mr) {
			list_add(&mr->mr_all, &buf->rb_all_mrs);
			list_add(&mr->mr_list, &buf->rb_mrs);
		} else {
			buf->rb_mrs_count--;
		}
		spin_unlock(&buf->rb_lock);
		if (!mr)
			break;
		added++;
	}
	if (added)
		wake_up_all(&buf->rb_wait);
	return added;
}

/**
 * cmkit_rpcrdma_mrs_create - a new connection's pool of MRs
 * @r_xprt: the transport, its endpoint's QP created, under its rx_lock
 *
 * Sizes the MRs from the device (at most RPCRDMA_MAX_DATA_SEGS pages
 * each, as its max_fast_reg_page_list_len allows) and makes the first
 * batch.
 *
 * Return: 0, or -ENOMEM if not one MR could be made (the connection is
 * unusable for chunks: the caller fails it, as xprtrdma's connect does).
 */
int cmkit_rpcrdma_mrs_create(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_ep *ep = r_xprt->rx_ep;
	const struct ib_device_attr *attrs = &ep->re_id->device->attrs;
	unsigned int added;

	ep->re_max_fr_depth = min_t(u32, attrs->max_fast_reg_page_list_len,
				    RPCRDMA_MAX_DATA_SEGS);
	if (!ep->re_max_fr_depth)
		return -EOPNOTSUPP;
	spin_lock(&r_xprt->rx_buf.rb_lock);
	r_xprt->rx_buf.rb_mrs_open = true;
	spin_unlock(&r_xprt->rx_buf.rb_lock);
	added = rpcrdma_mrs_add(r_xprt, RPCRDMA_MR_BATCH);
	trace_cmkit_rpcrdma_mrs_refresh(r_xprt->rx_xid, added, r_xprt->rx_buf.rb_mrs_count);
	return added ? 0 : -ENOMEM;
}

/**
 * cmkit_rpcrdma_mrs_refresh - the pool ran dry: make another batch
 * @r_xprt: the transport
 *
 * As xprtrdma's rpcrdma_mrs_refresh(), which its callers run when
 * rpcrdma_mr_get() finds nothing; replaces the MRs a flush left unusable
 * (they were released at their put).  Never beyond RPCRDMA_MAX_MRS.
 *
 * Return: how many MRs were added (0: the pool is at its bound, the
 * connection is ending, or no memory).
 */
unsigned int cmkit_rpcrdma_mrs_refresh(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	unsigned int added = 0;
	bool open;

	/* Under the send lock a connected transport's ep and pool stay. */
	mutex_lock(&r_xprt->rx_send_lock);
	spin_lock(&buf->rb_lock);
	open = buf->rb_connected && buf->rb_mrs_open;
	spin_unlock(&buf->rb_lock);
	if (open)
		added = rpcrdma_mrs_add(r_xprt, RPCRDMA_MR_BATCH);
	mutex_unlock(&r_xprt->rx_send_lock);
	trace_cmkit_rpcrdma_mrs_refresh(r_xprt->rx_xid, added, READ_ONCE(buf->rb_mrs_count));
	return added;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_mrs_refresh);

/**
 * cmkit_rpcrdma_mr_get - take an MR from the connection's pool
 * @r_xprt: the transport
 *
 * Return: an MR, or NULL when the pool is empty (the caller may refresh
 * it, or wait for an MR to be put).
 */
struct rpcrdma_mr *cmkit_rpcrdma_mr_get(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_mr *mr;

	spin_lock(&buf->rb_lock);
	/*
	 * Not from a pool its connection's end closed: once
	 * cmkit_rpcrdma_mrs_destroy() found none lent, none may be taken.
	 */
	mr = buf->rb_mrs_open ?
		list_first_entry_or_null(&buf->rb_mrs, struct rpcrdma_mr, mr_list) : NULL;
	if (mr) {
		list_del_init(&mr->mr_list);
		buf->rb_mrs_lent++;
	}
	spin_unlock(&buf->rb_lock);
	if (mr)
		atomic_inc(&cmkit_rpcrdma_stats.mrs_got);
	return mr;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_mr_get);

/**
 * cmkit_rpcrdma_mr_put - a caller is done with an MR
 * @mr: the MR, fenced (invalidated) or never registered
 *
 * Unmaps its pages.  An MR in an unknown state (a registration or an
 * invalidation completed in error) is released; any other goes back to
 * the pool.
 */
void cmkit_rpcrdma_mr_put(struct rpcrdma_mr *mr)
{
	struct rpcrdma_buffer *buf = &mr->mr_xprt->rx_buf;
	bool stale = READ_ONCE(mr->mr_stale);

	rpcrdma_mr_unmap(mr);
	spin_lock(&buf->rb_lock);
	if (stale) {
		list_del(&mr->mr_all);
		buf->rb_mrs_count--;
	} else {
		list_add(&mr->mr_list, &buf->rb_mrs);
	}
	buf->rb_mrs_lent--;
	spin_unlock(&buf->rb_lock);
	cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.mrs_put);
	/* The connection waits for its lent MRs before its PD can go. */
	if (stale)
		rpcrdma_mr_release(mr);
	wake_up_all(&buf->rb_wait);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_mr_put);

static bool rpcrdma_mrs_returned(struct rpcrdma_buffer *buf)
{
	bool returned;

	spin_lock(&buf->rb_lock);
	returned = !buf->rb_mrs_lent;
	spin_unlock(&buf->rb_lock);
	return returned;
}

/**
 * cmkit_rpcrdma_mrs_destroy - the connection ended: deregister its MRs
 * @r_xprt: the transport, its QP drained and its calls aborted, under its
 *	rx_lock
 *
 * Closes the pool to refreshes, waits for the MRs callers hold (each call
 * that holds some was ended by the abort, and puts them as it returns),
 * then deregisters and frees every MR, before the protection domain can
 * go.
 */
void cmkit_rpcrdma_mrs_destroy(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_mr *mr, *tmp;
	LIST_HEAD(all);

	spin_lock(&buf->rb_lock);
	buf->rb_mrs_open = false;
	spin_unlock(&buf->rb_lock);
	wait_event(buf->rb_wait, rpcrdma_mrs_returned(buf));

	spin_lock(&buf->rb_lock);
	list_splice_init(&buf->rb_all_mrs, &all);
	INIT_LIST_HEAD(&buf->rb_mrs);
	buf->rb_mrs_count = 0;
	spin_unlock(&buf->rb_lock);
	list_for_each_entry_safe(mr, tmp, &all, mr_all) {
		list_del(&mr->mr_all);
		rpcrdma_mr_release(mr);
	}
}

/*
 * Work requests of @mrs could not all be posted: some may still complete
 * (flushed) and use the MRs.  Take them from the caller and leave them on
 * the connection's list of every MR, to cmkit_rpcrdma_mrs_destroy() after
 * the drain; the connection closes.
 */
static void rpcrdma_mrs_post_failed(struct rpcrdma_xprt *r_xprt, struct list_head *mrs)
{
	cmkit_rpcrdma_frwr_post_failed(r_xprt, mrs);
}

/**
 * cmkit_rpcrdma_frwr_post_failed - a chain with @mrs' registrations was not posted
 * @r_xprt: the transport, whose connection is closing
 * @mrs: the MRs; empty on return
 *
 * Part of a chain may have been posted: the MRs are in an unknown state.
 * They are the connection's to release after its drain (they stay on its
 * list of every MR), no longer the caller's.
 */
void cmkit_rpcrdma_frwr_post_failed(struct rpcrdma_xprt *r_xprt, struct list_head *mrs)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_mr *mr, *tmp;
	unsigned int n = 0;

	list_for_each_entry_safe(mr, tmp, mrs, mr_list) {
		list_del_init(&mr->mr_list);
		WRITE_ONCE(mr->mr_stale, true);
		atomic_inc(&cmkit_rpcrdma_stats.mrs_put);
		n++;
	}
	spin_lock(&buf->rb_lock);
	buf->rb_mrs_lent -= n;
	spin_unlock(&buf->rb_lock);
	wake_up_all(&buf->rb_wait);
}

/* Post @first on the connection's QP, if it is still connected. */
static int rpcrdma_mrs_post(struct rpcrdma_xprt *r_xprt, struct ib_send_wr *first,
			    enum rpcrdma_fault step)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	const struct ib_send_wr *bad_wr = NULL;
	bool connected;
	int rc;

	/* Under the send lock a connected transport's QP is not drained yet. */
	mutex_lock(&r_xprt->rx_send_lock);
	spin_lock(&buf->rb_lock);
	connected = buf->rb_connected;
	spin_unlock(&buf->rb_lock);
	rc = !connected ? -ENOTCONN : rpcrdma_fault(step) ? -ENOMEM :
		ib_post_send(r_xprt->rx_ep->re_id->qp, first, &bad_wr);
	if (rc && connected)
		cmkit_rpcrdma_force_disconnect(r_xprt->rx_ep);
	mutex_unlock(&r_xprt->rx_send_lock);
	return rc;
}

/**
 * cmkit_rpcrdma_frwr_map - map pages into an MR with a fresh rkey
 * @r_xprt: the transport
 * @mr: an MR from cmkit_rpcrdma_mr_get()
 * @pages: the pages of the data
 * @offset: where the data starts in the first page
 * @len: bytes of data; at most the MR's depth of pages
 * @writing: the peer writes into them (a write or reply chunk); else it
 *	reads them (a read chunk)
 *
 * DMA-maps the pages and maps them into the MR; a fresh rkey keeps a
 * late access with the old one out.  @mr's handle, length and offset are
 * then what a chunk's segment advertises.  Not yet registered: post its
 * registration (cmkit_rpcrdma_frwr_reg_wrs()) before the Send that
 * advertises it.
 *
 * Return: 0, -EINVAL (@len too long for the MR, or 0), or -EIO.
 */
int cmkit_rpcrdma_frwr_map(struct rpcrdma_xprt *r_xprt, struct rpcrdma_mr *mr,
			   struct page **pages, unsigned int offset, u32 len, bool writing)
{
	struct rpcrdma_ep *ep = r_xprt->rx_ep;
	struct ib_device *device = ep->re_id->device;
	unsigned int i, n, nents;
	struct ib_mr *ibmr = mr->mr_ibmr;
	u8 key;

	if (!len || offset >= PAGE_SIZE)
		return -EINVAL;
	nents = DIV_ROUND_UP(offset + len, PAGE_SIZE);
	if (nents > ep->re_max_fr_depth)
		return -EINVAL;
	sg_init_table(mr->mr_sg, nents);
	for (i = 0; i < nents; i++) {
		unsigned int off = i ? 0 : offset;
		unsigned int this = min_t(u32, PAGE_SIZE - off, len);

		sg_set_page(&mr->mr_sg[i], pages[i], this, off);
		len -= this;
	}
	mr->mr_dir = writing ? DMA_FROM_DEVICE : DMA_TO_DEVICE;
	mr->mr_nents = nents;
	n = rpcrdma_fault(RPCRDMA_FAULT_MR_MAP) ? 0 :
		ib_dma_map_sg(device, mr->mr_sg, nents, mr->mr_dir);
	if (!n)
		goto out_err;
	mr->mr_device = device;
	if (ib_map_mr_sg(ibmr, mr->mr_sg, n, NULL, PAGE_SIZE) != n) {
		rpcrdma_mr_unmap(mr);
		goto out_err;
	}
	key = (u8)(ibmr->rkey & 0xff);
	ib_update_fast_reg_key(ibmr, ++key);

	mr->mr_regwr.mr = ibmr;
	mr->mr_regwr.key = ibmr->rkey;
	mr->mr_regwr.access = writing ? IB_ACCESS_REMOTE_WRITE | IB_ACCESS_LOCAL_WRITE :
		IB_ACCESS_REMOTE_READ;
	mr->mr_handle = ibmr->rkey;
	mr->mr_length = ibmr->length;
	mr->mr_offset = ibmr->iova;
	trace_cmkit_rpcrdma_mr_map(r_xprt->rx_xid, mr->mr_handle, mr->mr_length, writing);
	return 0;

out_err:
	trace_cmkit_rpcrdma_mr_map(r_xprt->rx_xid, mr->mr_handle, 0, writing);
	return -EIO;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_frwr_map);

/* A registration completes only when it failed (it is posted unsignaled). */
static void rpcrdma_wc_fastreg(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rpcrdma_mr *mr = container_of(wc->wr_cqe, struct rpcrdma_mr, mr_cqe);

	/* Only wr_cqe and status are reliable in a flushed completion. */
	if (wc->status != IB_WC_SUCCESS)
		WRITE_ONCE(mr->mr_stale, true);
	trace_cmkit_rpcrdma_wc_mr(mr->mr_xid, mr->mr_handle, wc->status, false);
	complete(&mr->mr_linv_done);
	cmkit_rpcrdma_flush_disconnect(cq->cq_context, wc);
}

/**
 * cmkit_rpcrdma_frwr_reg_wrs - chain the registrations of @mrs before @next
 * @mrs: mapped MRs, on their mr_list
 * @next: the work request that follows them (the Send), or NULL
 * @signal_last: signal the last registration (when no Send follows)
 *
 * Return: the first work request of the chain (@next if @mrs is empty).
 */
struct ib_send_wr *cmkit_rpcrdma_frwr_reg_wrs(struct list_head *mrs, struct ib_send_wr *next,
					      bool signal_last)
{
	struct ib_send_wr *post = next;
	struct rpcrdma_mr *mr;

	list_for_each_entry_reverse(mr, mrs, mr_list) {
		mr->mr_cqe.done = rpcrdma_wc_fastreg;
		mr->mr_regwr.wr.next = post;
		mr->mr_regwr.wr.wr_cqe = &mr->mr_cqe;
		mr->mr_regwr.wr.num_sge = 0;
		mr->mr_regwr.wr.opcode = IB_WR_REG_MR;
		mr->mr_regwr.wr.send_flags = signal_last && post == next && !next ?
			IB_SEND_SIGNALED : 0;
		reinit_completion(&mr->mr_linv_done);
		post = &mr->mr_regwr.wr;
	}
	return post;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_frwr_reg_wrs);

/**
 * cmkit_rpcrdma_frwr_reg_sync - register @mrs with no Send after them
 * @r_xprt: the transport
 * @mrs: mapped MRs, on their mr_list
 *
 * Posts the registrations, the last signaled, and waits for it (the send
 * queue completes in order).  For registrations a Send does not follow
 * (a test's, or one before a peer's RDMA Read the caller starts itself).
 *
 * Return: 0; -EIO if they completed in error (the MRs are stale: put
 * them, they are released); -EIO with @mrs emptied if they could not be
 * posted (the MRs are the connection's to release after its drain).  The
 * connection is closing after either failure.
 */
int cmkit_rpcrdma_frwr_reg_sync(struct rpcrdma_xprt *r_xprt, struct list_head *mrs)
{
	struct ib_send_wr *first;
	struct rpcrdma_mr *last;
	int rc;

	if (list_empty(mrs))
		return 0;
	first = cmkit_rpcrdma_frwr_reg_wrs(mrs, NULL, true);
	last = list_last_entry(mrs, struct rpcrdma_mr, mr_list);
	rc = rpcrdma_mrs_post(r_xprt, first, RPCRDMA_FAULT_MR_REG);
	trace_cmkit_rpcrdma_mr_reg(r_xprt->rx_xid, last->mr_handle, rc);
	if (rc) {
		rpcrdma_mrs_post_failed(r_xprt, mrs);
		return -EIO;
	}
	wait_for_completion(&last->mr_linv_done);
	return READ_ONCE(last->mr_stale) ? -EIO : 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_frwr_reg_sync);

static void rpcrdma_wc_localinv(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rpcrdma_mr *mr = container_of(wc->wr_cqe, struct rpcrdma_mr, mr_cqe);

	if (wc->status != IB_WC_SUCCESS)
		WRITE_ONCE(mr->mr_stale, true);
	trace_cmkit_rpcrdma_wc_mr(mr->mr_xid, mr->mr_handle, wc->status, true);
	complete(&mr->mr_linv_done);
	cmkit_rpcrdma_flush_disconnect(cq->cq_context, wc);
}

/**
 * cmkit_rpcrdma_frwr_remote_inv - the peer invalidated an MR with its reply
 * @mrs: the call's registered MRs, on their mr_list
 * @rkey: the rkey of the reply's Send With Invalidate
 *
 * The MR with @rkey is fenced already: it leaves @mrs and is put.  Only
 * one MR per reply is invalidated so (RFC 8797, section 4.3).
 *
 * Return: true if one of @mrs had @rkey.
 */
bool cmkit_rpcrdma_frwr_remote_inv(struct list_head *mrs, u32 rkey)
{
	struct rpcrdma_mr *mr;

	list_for_each_entry(mr, mrs, mr_list)
		if (mr->mr_handle == rkey) {
			list_del_init(&mr->mr_list);
			atomic_inc(&cmkit_rpcrdma_stats.mrs_remote_inv);
			cmkit_rpcrdma_mr_put(mr);
			return true;
		}
	return false;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_frwr_remote_inv);

/**
 * cmkit_rpcrdma_frwr_unmap_sync - fence @mrs from the peer, then put them
 * @r_xprt: the transport
 * @mrs: registered MRs, on their mr_list; empty on return
 *
 * Posts a chain of LOCAL_INV, the last signaled, and waits for it (the
 * send queue completes in order): when this returns, the peer can no
 * longer reach the pages, and the caller may read them.  A chain that
 * completed in error leaves the MRs in an unknown state: they are
 * released; one that could not be posted leaves them to the connection's
 * drain.  Either way the connection closes, as xprtrdma's
 * frwr_unmap_sync() does, and the pages are unreachable once the QP is
 * out of RTS.
 *
 * Return: 0, or -EIO.
 */
int cmkit_rpcrdma_frwr_unmap_sync(struct rpcrdma_xprt *r_xprt, struct list_head *mrs)
{
	struct ib_send_wr *first = NULL, **prev = &first, *last = NULL;
	struct rpcrdma_mr *mr, *tmp;
	int rc;

	if (list_empty(mrs))
		return 0;
	list_for_each_entry(mr, mrs, mr_list) {
		last = &mr->mr_invwr;
		memset(last, 0, sizeof(*last));
		mr->mr_cqe.done = rpcrdma_wc_localinv;
		last->wr_cqe = &mr->mr_cqe;
		last->opcode = IB_WR_LOCAL_INV;
		last->ex.invalidate_rkey = mr->mr_handle;
		reinit_completion(&mr->mr_linv_done);
		*prev = last;
		prev = &last->next;
	}
	last->send_flags = IB_SEND_SIGNALED;
	mr = container_of(last, struct rpcrdma_mr, mr_invwr);

	rc = rpcrdma_mrs_post(r_xprt, first, RPCRDMA_FAULT_MR_INV);
	trace_cmkit_rpcrdma_mr_localinv(r_xprt->rx_xid, mr->mr_handle, rc);
	if (rc) {
		rpcrdma_mrs_post_failed(r_xprt, mrs);
		return -EIO;
	}
	/* The last one signals; the send queue completes in order. */
	wait_for_completion(&mr->mr_linv_done);
	list_for_each_entry_safe(mr, tmp, mrs, mr_list) {
		list_del_init(&mr->mr_list);
		if (READ_ONCE(mr->mr_stale))
			rc = -EIO;
		cmkit_rpcrdma_mr_put(mr);
	}
	/* A flushed completion asked for the close already. */
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_frwr_unmap_sync);

/**
 * cmkit_rpcrdma_msg_unmap - give back MRs that were mapped but never registered
 * @mrs: the MRs, on their mr_list; empty on return
 */
void cmkit_rpcrdma_msg_unmap(struct list_head *mrs)
{
	struct rpcrdma_mr *mr, *tmp;

	list_for_each_entry_safe(mr, tmp, mrs, mr_list) {
		list_del_init(&mr->mr_list);
		cmkit_rpcrdma_mr_put(mr);
	}
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_msg_unmap);

/**
 * cmkit_rpcrdma_msg_map - map a call's chunks into MRs of the current connection
 * @r_xprt: the transport
 * @msg: the call; its @mrs empty, its @segs what to map
 *
 * Takes an MR from the connection's pool for each of @msg->segs (a new
 * batch if the pool is dry), maps the segment's pages into it with a
 * fresh rkey and writes the MR's handle, length and offset into the
 * offer's segment; the MRs go on @msg->mrs, in order.  Run when the call
 * is first marshalled and again, on the new connection's pool, each time
 * it is sent again after a reconnect, as xprtrdma's rpcrdma_marshal_req()
 * runs frwr_map() for every transmission.
 *
 * Return: 0; else -EAGAIN (no MR free), -EINVAL or -EIO
 * (cmkit_rpcrdma_frwr_map()), with @msg->mrs empty.
 */
int cmkit_rpcrdma_msg_map(struct rpcrdma_xprt *r_xprt, const struct rpcrdma_msg *msg)
{
	unsigned int i;
	int rc = 0;

	for (i = 0; i < msg->nr_segs; i++) {
		const struct rpcrdma_mr_seg *s = &msg->segs[i];
		struct rpcrdma_mr *mr;

		mr = cmkit_rpcrdma_mr_get(r_xprt);
		if (!mr && cmkit_rpcrdma_mrs_refresh(r_xprt))
			mr = cmkit_rpcrdma_mr_get(r_xprt);
		if (!mr) {
			rc = -EAGAIN;
			break;
		}
		rc = cmkit_rpcrdma_frwr_map(r_xprt, mr, s->pages, 0, s->len, s->writing);
		if (rc) {
			cmkit_rpcrdma_mr_put(mr);
			break;
		}
		list_add_tail(&mr->mr_list, msg->mrs);
		s->seg->handle = mr->mr_handle;
		s->seg->length = mr->mr_length;
		s->seg->offset = mr->mr_offset;
	}
	if (rc)
		cmkit_rpcrdma_msg_unmap(msg->mrs);
	trace_cmkit_rpcrdma_msg_map(r_xprt->rx_xid, msg->nr_segs, rc);
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_msg_map);
