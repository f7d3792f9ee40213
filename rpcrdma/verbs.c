// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit rpcrdma: a transport's buffers and rings, after
 * net/sunrpc/xprtrdma/verbs.c.
 *
 * The buffer pool (struct rpcrdma_buffer) belongs to the transport and
 * outlives its connections:
 *
 *  - reqs: RPCRDMA_MAX_REQUESTS plus slack for Sends not yet reclaimed,
 *    made by cmkit_rpcrdma_buffer_create() with the transport.  Each has one send
 *    regbuf holding the whole call; cmkit_rpcrdma_req_setup() grows it to the
 *    connection's inline send size and maps it, cmkit_rpcrdma_reqs_reset()
 *    unmaps it when the connection ends.  A req holds a reference for its
 *    caller and one for its posted Send; the last put returns it to the
 *    free list.
 *  - reps: made on demand when Receives are posted, grown to the
 *    connection's inline receive size, mapped while posted or carrying a
 *    reply, all unmapped when the connection ends, freed with the pool.
 *
 * Per connection:
 *
 *  - the send-context ring: one context per posted Send, handed out under
 *    the transport's send lock (head) and released by Send completions
 *    (tail).  Most Sends are posted unsignaled; a signaled completion
 *    releases every context up to its own (the tail reclaim), so the ring
 *    and the reqs pinned by unsignaled Sends move on together.  A Send is
 *    signaled every re_send_batch Sends, and whenever the ring or the req
 *    pool would otherwise have nothing left to hand out, so that a waiter
 *    always has a completion coming;
 *  - Receives: the credit grant plus the backchannel allowance (none
 *    here), and RPCRDMA_MAX_RECV_BATCH beyond them, as xprtrdma's
 *    rpcrdma_post_recvs(): once no more than the grant are posted, they
 *    are topped up to the grant and the batch; the receive queue is sized
 *    for it.  A reply the server still owes to a call abandoned on a fatal
 *    signal takes one of the extra Receives, not one a call in flight
 *    counts on.
 *
 *  - MRs (frwr.c): a pool on the connection's protection domain, made when
 *    the connection is set up and grown when it runs dry, every MR
 *    deregistered once the QP is drained.
 */
#define pr_fmt(fmt) "cmkit: rpcrdma: " fmt

#include <linux/slab.h>

#include "core/cmkit.h"
#include "rpcrdma/rpcrdma.h"
#include "rpcrdma/trace.h"

/*
 * Reps are made and grown from the Receive completion handler, which must
 * not sleep for memory (upstream's XPRTRDMA_GFP_FLAGS likewise).
 */
#define RPCRDMA_REP_GFP		(GFP_NOWAIT | __GFP_NOWARN)

/* ---- regbufs -------------------------------------------------------------- */

static struct rpcrdma_regbuf *rpcrdma_regbuf_alloc(size_t size, enum dma_data_direction dir,
						   gfp_t flags)
{
	struct rpcrdma_regbuf *rb;

	rb = kmalloc_obj(*rb, flags);
	if (!rb)
		return NULL;
	rb->rg_data = kmalloc(size, flags);
	if (!rb->rg_data) {
		kfree(rb);
		return NULL;
	}
	rb->rg_device = NULL;
	rb->rg_direction = dir;
	rb->rg_iov.addr = 0;
	rb->rg_iov.length = size;
	rb->rg_iov.lkey = 0;
	return rb;
}

static void rpcrdma_regbuf_dma_unmap(struct rpcrdma_regbuf *rb)
{
	if (!rb || !rpcrdma_regbuf_is_mapped(rb))
		return;
	ib_dma_unmap_single(rb->rg_device, rdmab_addr(rb), rdmab_length(rb), rb->rg_direction);
	rb->rg_device = NULL;
	cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.dma_unmaps);
}

static void rpcrdma_regbuf_free(struct rpcrdma_regbuf *rb)
{
	if (!rb)
		return;
	rpcrdma_regbuf_dma_unmap(rb);
	kfree(rb->rg_data);
	kfree(rb);
}

/**
 * cmkit_rpcrdma_regbuf_realloc - give a regbuf a buffer of another size
 * @rb: the regbuf; unmapped first if it was mapped
 * @size: the new size, bytes
 * @flags: GFP flags
 *
 * The old contents are not kept.
 *
 * Return: true on success; false if memory is short, with @rb untouched.
 */
bool cmkit_rpcrdma_regbuf_realloc(struct rpcrdma_regbuf *rb, size_t size, gfp_t flags)
{
	void *data = kmalloc(size, flags);

	if (!data)
		return false;
	rpcrdma_regbuf_dma_unmap(rb);
	kfree(rb->rg_data);
	rb->rg_data = data;
	rb->rg_iov.length = size;
	return true;
}

/**
 * __cmkit_rpcrdma_regbuf_dma_map - DMA-map a regbuf for the current connection
 * @r_xprt: the transport, whose endpoint's device and PD are used
 * @rb: an unmapped regbuf
 *
 * Return: true if @rb is now mapped (its SGE is ready to post).
 */
bool __cmkit_rpcrdma_regbuf_dma_map(struct rpcrdma_xprt *r_xprt, struct rpcrdma_regbuf *rb)
{
	struct rpcrdma_ep *ep = r_xprt->rx_ep;
	struct ib_device *device = ep->re_id->device;
	u64 addr;

	if (rb->rg_direction == DMA_NONE)
		return false;
	addr = ib_dma_map_single(device, rdmab_data(rb), rdmab_length(rb), rb->rg_direction);
	if (ib_dma_mapping_error(device, addr))
		return false;
	rb->rg_iov.addr = addr;
	rb->rg_iov.lkey = ep->re_pd->local_dma_lkey;
	rb->rg_device = device;
	atomic_inc(&cmkit_rpcrdma_stats.dma_maps);
	return true;
}

static bool rpcrdma_regbuf_dma_map(struct rpcrdma_xprt *r_xprt, struct rpcrdma_regbuf *rb)
{
	if (rpcrdma_regbuf_is_mapped(rb))
		return true;
	return __cmkit_rpcrdma_regbuf_dma_map(r_xprt, rb);
}

/* ---- reqs ---------------------------------------------------------------- */

/**
 * cmkit_rpcrdma_req_create - allocate a req and its send buffer
 * @r_xprt: the transport whose pool it joins
 * @size: initial size of its send buffer, bytes
 *
 * The req is on the pool's list of every req, not yet on its free list.
 *
 * Return: the req, or NULL if memory is short.
 */
struct rpcrdma_req *cmkit_rpcrdma_req_create(struct rpcrdma_xprt *r_xprt, size_t size)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_req *req;

	if (rpcrdma_fault(RPCRDMA_FAULT_BUFFER_CREATE))
		return NULL;
	req = kzalloc_obj(*req, GFP_KERNEL);
	if (!req)
		return NULL;
	req->rl_sendbuf = rpcrdma_regbuf_alloc(size, DMA_TO_DEVICE, GFP_KERNEL);
	if (!req->rl_sendbuf) {
		kfree(req);
		return NULL;
	}
	req->rl_buf = buf;
	INIT_LIST_HEAD(&req->rl_list);
	INIT_LIST_HEAD(&req->rl_pending);
	init_completion(&req->rl_done);
	spin_lock(&buf->rb_lock);
	list_add(&req->rl_all, &buf->rb_allreqs);
	buf->rb_reqs++;
	spin_unlock(&buf->rb_lock);
	atomic_inc(&cmkit_rpcrdma_stats.reqs_created);
	return req;
}

/**
 * cmkit_rpcrdma_req_setup - prepare a req for the current connection
 * @r_xprt: the transport, connected
 * @req: one of its reqs
 *
 * Grows the send buffer to the connection's inline send size if it is
 * smaller (RFC 8797 may have raised it since the last connection), and
 * maps it on the connection's device.
 *
 * Return: 0, -ENOMEM, or -EIO if the mapping failed.
 */
int cmkit_rpcrdma_req_setup(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req)
{
	struct rpcrdma_regbuf *rb = req->rl_sendbuf;
	u32 size = r_xprt->rx_ep->re_inline_send;

	if (rdmab_length(rb) < size && !cmkit_rpcrdma_regbuf_realloc(rb, size, GFP_KERNEL))
		return -ENOMEM;
	if (rpcrdma_fault(RPCRDMA_FAULT_REGBUF_MAP) || !rpcrdma_regbuf_dma_map(r_xprt, rb))
		return -EIO;
	return 0;
}

/* cmkit_rpcrdma_req_setup() for every req of the pool; 0 or the first error. */
static int rpcrdma_reqs_setup(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_req *req;
	int rc;

	/* rb_allreqs changes only when the transport is created or destroyed. */
	list_for_each_entry(req, &r_xprt->rx_buf.rb_allreqs, rl_all) {
		rc = cmkit_rpcrdma_req_setup(r_xprt, req);
		if (rc)
			return rc;
	}
	return 0;
}

/**
 * cmkit_rpcrdma_reqs_reset - the connection ended: unmap every req's send buffer
 * @r_xprt: the transport, drained, under its rx_lock
 */
void cmkit_rpcrdma_reqs_reset(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_req *req;

	list_for_each_entry(req, &r_xprt->rx_buf.rb_allreqs, rl_all)
		rpcrdma_regbuf_dma_unmap(req->rl_sendbuf);
}

/**
 * cmkit_rpcrdma_req_destroy - free a req the pool no longer lends
 * @req: the req, not in use
 */
void cmkit_rpcrdma_req_destroy(struct rpcrdma_req *req)
{
	list_del(&req->rl_all);
	rpcrdma_regbuf_free(req->rl_sendbuf);
	kfree(req);
	cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.reqs_freed);
}

/* The last reference (the caller's or its Send's) is gone: back to the pool. */
static void rpcrdma_req_release(struct kref *kref)
{
	struct rpcrdma_req *req = container_of(kref, struct rpcrdma_req, rl_kref);
	struct rpcrdma_buffer *buf = req->rl_buf;

	spin_lock(&buf->rb_lock);
	list_add(&req->rl_list, &buf->rb_send_bufs);
	spin_unlock(&buf->rb_lock);
	cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.reqs_put);
	wake_up_all(&buf->rb_wait);
}

/**
 * cmkit_rpcrdma_buffer_get - take a req from the pool for a call
 * @buffers: the pool
 *
 * The req comes with one reference, the caller's, which
 * cmkit_rpcrdma_buffer_put() drops.
 *
 * Return: a req, or NULL if none is free.
 */
struct rpcrdma_req *cmkit_rpcrdma_buffer_get(struct rpcrdma_buffer *buffers)
{
	struct rpcrdma_req *req;

	spin_lock(&buffers->rb_lock);
	req = list_first_entry_or_null(&buffers->rb_send_bufs, struct rpcrdma_req, rl_list);
	if (req)
		list_del_init(&req->rl_list);
	spin_unlock(&buffers->rb_lock);
	if (!req)
		return NULL;
	kref_init(&req->rl_kref);
	req->rl_reply = NULL;
	req->rl_result = CMKIT_RPCRDMA_OK;
	req->rl_status = 0;
	req->rl_rtt_ns = 0;
	req->rl_msg = NULL;
	req->rl_xmits = 0;
	reinit_completion(&req->rl_done);
	atomic_inc(&cmkit_rpcrdma_stats.reqs_got);
	return req;
}

/**
 * cmkit_rpcrdma_buffer_put - a call is done with its req
 * @buffers: the pool
 * @req: the req
 *
 * Returns the reply's rep, and drops the caller's reference: the req is
 * back in the pool once its Send's send context is released too.
 */
void cmkit_rpcrdma_buffer_put(struct rpcrdma_buffer *buffers, struct rpcrdma_req *req)
{
	cmkit_rpcrdma_reply_put(buffers, req);
	kref_put(&req->rl_kref, rpcrdma_req_release);
}

/**
 * cmkit_rpcrdma_reply_put - return the rep that carried a req's reply
 * @buffers: the pool
 * @req: the req, whose caller has read the reply
 */
void cmkit_rpcrdma_reply_put(struct rpcrdma_buffer *buffers, struct rpcrdma_req *req)
{
	struct rpcrdma_rep *rep = req->rl_reply;

	if (rep) {
		req->rl_reply = NULL;
		cmkit_rpcrdma_rep_put(buffers, rep);
	}
}

/* ---- reps ---------------------------------------------------------------- */

static void rpcrdma_wc_receive(struct ib_cq *cq, struct ib_wc *wc);

static struct rpcrdma_rep *rpcrdma_rep_create(struct rpcrdma_xprt *r_xprt, u32 size)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_rep *rep;

	if (rpcrdma_fault(RPCRDMA_FAULT_RECV_ALLOC))
		return NULL;
	rep = kzalloc_obj(*rep, RPCRDMA_REP_GFP);
	if (!rep)
		return NULL;
	rep->rr_rdmabuf = rpcrdma_regbuf_alloc(size, DMA_FROM_DEVICE, RPCRDMA_REP_GFP);
	if (!rep->rr_rdmabuf) {
		kfree(rep);
		return NULL;
	}
	rep->rr_rxprt = r_xprt;
	rep->rr_cqe.done = rpcrdma_wc_receive;
	rep->rr_recv_wr.wr_cqe = &rep->rr_cqe;
	rep->rr_recv_wr.sg_list = &rep->rr_rdmabuf->rg_iov;
	rep->rr_recv_wr.num_sge = 1;
	INIT_LIST_HEAD(&rep->rr_list);
	spin_lock(&buf->rb_lock);
	list_add(&rep->rr_all, &buf->rb_all_reps);
	spin_unlock(&buf->rb_lock);
	atomic_inc(&cmkit_rpcrdma_stats.reps_created);
	return rep;
}

/**
 * cmkit_rpcrdma_rep_put - a rep is free again
 * @buf: the pool
 * @rep: a rep neither posted nor carrying a reply anyone will read
 */
void cmkit_rpcrdma_rep_put(struct rpcrdma_buffer *buf, struct rpcrdma_rep *rep)
{
	spin_lock(&buf->rb_lock);
	list_add(&rep->rr_list, &buf->rb_free_reps);
	spin_unlock(&buf->rb_lock);
	cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.reps_put);
}

/* A receive buffer at least as long as the connection's inline receive size. */
static bool rpcrdma_rep_resize(struct rpcrdma_xprt *r_xprt, struct rpcrdma_rep *rep)
{
	u32 size = r_xprt->rx_ep->re_inline_recv;

	if (rdmab_length(rep->rr_rdmabuf) >= size)
		return true;
	return cmkit_rpcrdma_regbuf_realloc(rep->rr_rdmabuf, size, RPCRDMA_REP_GFP);
}

/**
 * cmkit_rpcrdma_reps_unmap - the connection ended: unmap every rep
 * @r_xprt: the transport, its QP drained, under its rx_lock
 *
 * Reps that still carry a reply stay with their req; they are mapped again
 * when next posted.  Every Receive must have completed by now.
 */
void cmkit_rpcrdma_reps_unmap(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_rep *rep;

	if (buf->rb_receive_count)
		pr_err("ERROR: xprt %u: %u Receives still posted after the drain\n",
		       r_xprt->rx_xid, buf->rb_receive_count);
	/* The drain ended every Receive: rb_all_reps only grows while posting. */
	list_for_each_entry(rep, &buf->rb_all_reps, rr_all)
		rpcrdma_regbuf_dma_unmap(rep->rr_rdmabuf);
}

static void rpcrdma_reps_destroy(struct rpcrdma_buffer *buf)
{
	struct rpcrdma_rep *rep, *tmp;

	list_for_each_entry_safe(rep, tmp, &buf->rb_all_reps, rr_all) {
		list_del(&rep->rr_all);
		rpcrdma_regbuf_free(rep->rr_rdmabuf);
		kfree(rep);
		cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.reps_freed);
	}
	INIT_LIST_HEAD(&buf->rb_free_reps);
}

/* ---- the pool ------------------------------------------------------------- */

/*
 * Unsignaled Sends keep their req out of the pool until a later signaled
 * completion releases them: one batch beyond what the credits allow.
 */
static unsigned int rpcrdma_req_pool_slack(unsigned int max_reqs)
{
	return DIV_ROUND_UP(max_reqs, 8);
}

/**
 * cmkit_rpcrdma_buffer_create - a new transport's pool of reqs
 * @r_xprt: the transport, being created
 *
 * Return: 0, or -ENOMEM with nothing left behind.
 */
int cmkit_rpcrdma_buffer_create(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	unsigned int i, n;

	spin_lock_init(&buf->rb_lock);
	INIT_LIST_HEAD(&buf->rb_send_bufs);
	INIT_LIST_HEAD(&buf->rb_allreqs);
	INIT_LIST_HEAD(&buf->rb_free_reps);
	INIT_LIST_HEAD(&buf->rb_all_reps);
	INIT_LIST_HEAD(&buf->rb_pending);
	INIT_LIST_HEAD(&buf->rb_mrs);
	INIT_LIST_HEAD(&buf->rb_all_mrs);
	init_waitqueue_head(&buf->rb_wait);
	buf->rb_bc_srv_max_requests = RPCRDMA_BC_MAX_REQUESTS;
	buf->rb_max_requests = RPCRDMA_MAX_REQUESTS;
	buf->rb_xid = get_random_u32();

	n = RPCRDMA_MAX_REQUESTS + rpcrdma_req_pool_slack(RPCRDMA_MAX_REQUESTS);
	for (i = 0; i < n; i++) {
		struct rpcrdma_req *req = cmkit_rpcrdma_req_create(r_xprt, RPCRDMA_MIN_INLINE);

		if (!req) {
			cmkit_rpcrdma_buffer_destroy(buf);
			return -ENOMEM;
		}
		list_add(&req->rl_list, &buf->rb_send_bufs);
	}
	return 0;
}

/**
 * cmkit_rpcrdma_buffer_destroy - free a transport's reqs and reps
 * @buf: the pool; its transport is disconnected and no call uses it
 */
void cmkit_rpcrdma_buffer_destroy(struct rpcrdma_buffer *buf)
{
	struct rpcrdma_req *req, *tmp;

	rpcrdma_reps_destroy(buf);
	list_for_each_entry_safe(req, tmp, &buf->rb_allreqs, rl_all)
		cmkit_rpcrdma_req_destroy(req);
	INIT_LIST_HEAD(&buf->rb_send_bufs);
	buf->rb_reqs = 0;
}

/* ---- the send-context ring ------------------------------------------------ */

static void rpcrdma_wc_send(struct ib_cq *cq, struct ib_wc *wc);

/* The ring is not a power of two long: no circ_buf.h, no modulus. */
static unsigned long rpcrdma_sendctx_next(struct rpcrdma_buffer *buf, unsigned long item)
{
	return item < buf->rb_sc_last ? item + 1 : 0;
}

static unsigned long rpcrdma_sendctx_prev(struct rpcrdma_buffer *buf, unsigned long item)
{
	return item > 0 ? item - 1 : buf->rb_sc_last;
}

/* A Send's context is released: its req loses the Send's reference. */
static void rpcrdma_sendctx_unmap(struct rpcrdma_sendctx *sc)
{
	struct rpcrdma_req *req = sc->sc_req;

	if (!req)
		return;
	sc->sc_req = NULL;
	cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.sendctx_put);
	kref_put(&req->rl_kref, rpcrdma_req_release);
}

/*
 * A connection's send-context ring: one context per Send the send queue
 * holds (the credits plus the backchannel's), and one more since the ring
 * keeps a slot empty.  0 or -ENOMEM (cmkit_rpcrdma_sendctxs_destroy() cleans up
 * either way).
 */
static int rpcrdma_sendctxs_create(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_ep *ep = r_xprt->rx_ep;
	unsigned long i, n;

	n = ep->re_max_requests + RPCRDMA_BC_MAX_REQUESTS + 1;
	if (rpcrdma_fault(RPCRDMA_FAULT_SENDCTX))
		return -ENOMEM;
	buf->rb_sc_ctxs = kcalloc(n, sizeof(*buf->rb_sc_ctxs), GFP_KERNEL);
	if (!buf->rb_sc_ctxs)
		return -ENOMEM;
	buf->rb_sc_last = n - 1;
	buf->rb_sc_head = 0;
	buf->rb_sc_tail = 0;
	for (i = 0; i < n; i++) {
		struct rpcrdma_sendctx *sc = kzalloc_obj(*sc, GFP_KERNEL);

		if (!sc)
			return -ENOMEM;
		sc->sc_cqe.done = rpcrdma_wc_send;
		sc->sc_xprt = r_xprt;
		buf->rb_sc_ctxs[i] = sc;
	}
	return 0;
}

/**
 * cmkit_rpcrdma_sendctxs_destroy - the connection ended: free its ring
 * @r_xprt: the transport, its QP drained, under its rx_lock
 *
 * Sends posted unsignaled after the last signaled completion were never
 * walked by one: their contexts (between the tail and the head) are
 * released here, and with them their reqs' Send references.
 */
void cmkit_rpcrdma_sendctxs_destroy(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	unsigned long i;

	if (!buf->rb_sc_ctxs)
		return;
	for (i = rpcrdma_sendctx_next(buf, buf->rb_sc_tail);
	     i != rpcrdma_sendctx_next(buf, buf->rb_sc_head);
	     i = rpcrdma_sendctx_next(buf, i))
		if (buf->rb_sc_ctxs[i])
			rpcrdma_sendctx_unmap(buf->rb_sc_ctxs[i]);
	for (i = 0; i <= buf->rb_sc_last; i++)
		kfree(buf->rb_sc_ctxs[i]);
	kfree(buf->rb_sc_ctxs);
	buf->rb_sc_ctxs = NULL;
}

/**
 * cmkit_rpcrdma_sendctx_get_locked - a send context for the next Send
 * @r_xprt: the transport, under its rx_send_lock, connected
 *
 * Return: a free context, or NULL if the ring is full: too few Send
 * completions have come back lately; the caller waits for one.
 */
struct rpcrdma_sendctx *cmkit_rpcrdma_sendctx_get_locked(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	unsigned long next_head = rpcrdma_sendctx_next(buf, buf->rb_sc_head);
	struct rpcrdma_sendctx *sc;

	/* Pairs with the release in rpcrdma_sendctx_put_locked(). */
	if (next_head == smp_load_acquire(&buf->rb_sc_tail)) {
		atomic_inc(&cmkit_rpcrdma_stats.sendctx_exhausted);
		trace_cmkit_rpcrdma_sendctx_exhausted(r_xprt->rx_xid,
						      READ_ONCE(buf->rb_outstanding));
		return NULL;
	}
	sc = buf->rb_sc_ctxs[next_head];
	buf->rb_sc_head = next_head;
	atomic_inc(&cmkit_rpcrdma_stats.sendctx_got);
	return sc;
}

/**
 * cmkit_rpcrdma_sendctx_unget_locked - give back a context whose Send was not posted
 * @r_xprt: the transport, under its rx_send_lock
 * @sc: the context cmkit_rpcrdma_sendctx_get_locked() returned last; the
 *	reference it holds on its req, if any, is dropped
 */
void cmkit_rpcrdma_sendctx_unget_locked(struct rpcrdma_xprt *r_xprt, struct rpcrdma_sendctx *sc)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;

	if (WARN_ON_ONCE(buf->rb_sc_ctxs[buf->rb_sc_head] != sc))
		return;
	buf->rb_sc_head = rpcrdma_sendctx_prev(buf, buf->rb_sc_head);
	if (sc->sc_req)
		rpcrdma_sendctx_unmap(sc);
	else
		cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.sendctx_put);
	wake_up_all(&buf->rb_wait);
}

/**
 * cmkit_rpcrdma_sendctx_available - would cmkit_rpcrdma_sendctx_get_locked() succeed?
 * @buf: the pool
 *
 * A hint for waiters, without the send lock: the answer can change at once.
 *
 * Return: true if a context looks free, or there is no ring.
 */
bool cmkit_rpcrdma_sendctx_available(struct rpcrdma_buffer *buf)
{
	unsigned long tail;

	if (!READ_ONCE(buf->rb_sc_ctxs))
		return true;
	/* Pairs with the release in rpcrdma_sendctx_put_locked(). */
	tail = smp_load_acquire(&buf->rb_sc_tail);
	return rpcrdma_sendctx_next(buf, READ_ONCE(buf->rb_sc_head)) != tail;
}

/*
 * A Send completed: release every context up to its own.  Unsignaled Sends
 * before it completed too (a send queue completes in order).  Called only
 * from Send completions, which the CQ serialises.
 */
static void rpcrdma_sendctx_put_locked(struct rpcrdma_xprt *r_xprt, struct rpcrdma_sendctx *sc)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	unsigned long next_tail = buf->rb_sc_tail;

	do {
		next_tail = rpcrdma_sendctx_next(buf, next_tail);
		rpcrdma_sendctx_unmap(buf->rb_sc_ctxs[next_tail]);
	} while (buf->rb_sc_ctxs[next_tail] != sc);
	/* The contexts are free before the tail says so. */
	smp_store_release(&buf->rb_sc_tail, next_tail);
	wake_up_all(&buf->rb_wait);
}

static void rpcrdma_wc_send(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rpcrdma_sendctx *sc = container_of(wc->wr_cqe, struct rpcrdma_sendctx, sc_cqe);
	struct rpcrdma_xprt *r_xprt = sc->sc_xprt;

	/* Only wr_cqe and status are valid unless the status is success. */
	if (wc->status != IB_WC_SUCCESS)
		trace_cmkit_rpcrdma_wc_send_err(r_xprt->rx_xid, wc->status);
	rpcrdma_sendctx_put_locked(r_xprt, sc);
	cmkit_rpcrdma_flush_disconnect(r_xprt, wc);
}

/* Will the ring have nothing to hand out after the context just taken? */
static bool rpcrdma_sendctx_ring_full(struct rpcrdma_buffer *buf)
{
	/* Pairs with the release in rpcrdma_sendctx_put_locked(). */
	return rpcrdma_sendctx_next(buf, buf->rb_sc_head) == smp_load_acquire(&buf->rb_sc_tail);
}

/**
 * cmkit_rpcrdma_post_sends - post a req's Send
 * @r_xprt: the transport, under its rx_send_lock, connected
 * @req: the marshalled req
 * @sc: the context cmkit_rpcrdma_sendctx_get_locked() returned last, already
 *	holding the Send's reference on @req
 *
 * The registrations of the call's MRs (req->rl_msg->mrs) go first in the
 * same chain, unsignaled, as xprtrdma's frwr_send(): the send queue
 * executes them in order, so the Send that advertises an rkey follows its
 * registration.  Most Sends go
 * unsignaled; a signaled one every re_send_batch, and whenever the ring or
 * the req pool has nothing left to hand out, so that a waiter for either
 * has a completion coming that releases it.
 *
 * Return: 0, or ib_post_send()'s errno (nothing was posted).
 */
int cmkit_rpcrdma_post_sends(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req,
			     struct rpcrdma_sendctx *sc)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_ep *ep = r_xprt->rx_ep;
	struct rpcrdma_regbuf *rb = req->rl_sendbuf;
	struct ib_sge sge = {
		.addr = rdmab_addr(rb),
		.length = req->rl_len,
		.lkey = rb->rg_iov.lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &sc->sc_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
	};
	struct list_head *mrs = req->rl_msg ? req->rl_msg->mrs : NULL;
	const struct ib_send_wr *bad_wr = NULL;
	struct ib_send_wr *first = &wr;
	bool pool_empty;
	int rc;

	if (mrs)
		first = cmkit_rpcrdma_frwr_reg_wrs(mrs, &wr, false);
	spin_lock(&buf->rb_lock);
	pool_empty = list_empty(&buf->rb_send_bufs);
	spin_unlock(&buf->rb_lock);
	if (!ep->re_send_count || pool_empty || rpcrdma_sendctx_ring_full(buf)) {
		wr.send_flags = IB_SEND_SIGNALED;
		ep->re_send_count = ep->re_send_batch;
	} else {
		ep->re_send_count--;
	}
	ib_dma_sync_single_for_device(rb->rg_device, sge.addr, sge.length, DMA_TO_DEVICE);
	req->rl_sent = ktime_get();
	rc = rpcrdma_fault(RPCRDMA_FAULT_POST_SEND) ? -ENOMEM :
		ib_post_send(ep->re_id->qp, first, &bad_wr);
	if (rc) {
		if (mrs)
			cmkit_rpcrdma_frwr_post_failed(r_xprt, mrs);
		return rc;
	}
	atomic_inc(&cmkit_rpcrdma_stats.sends_posted);
	if (wr.send_flags & IB_SEND_SIGNALED)
		atomic_inc(&cmkit_rpcrdma_stats.sends_signaled);
	trace_cmkit_rpcrdma_call_sent(r_xprt->rx_xid, req->rl_xid, READ_ONCE(buf->rb_credits),
				      READ_ONCE(buf->rb_outstanding),
				!!(wr.send_flags & IB_SEND_SIGNALED));
	return 0;
}

/* ---- Receives ------------------------------------------------------------- */

static void rpcrdma_wc_receive(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rpcrdma_rep *rep = container_of(wc->wr_cqe, struct rpcrdma_rep, rr_cqe);
	struct rpcrdma_xprt *r_xprt = rep->rr_rxprt;
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_regbuf *rb = rep->rr_rdmabuf;

	if (!rep->rr_posted) {
		atomic_inc(&cmkit_rpcrdma_stats.recvs_twice);
		pr_err("ERROR: xprt %u: a Receive completed that was not posted\n",
		       r_xprt->rx_xid);
		return;
	}
	rep->rr_posted = false;
	spin_lock(&buf->rb_lock);
	buf->rb_receive_count--;
	spin_unlock(&buf->rb_lock);

	/* Only wr_cqe and status are valid unless the status is success. */
	if (wc->status != IB_WC_SUCCESS) {
		trace_cmkit_rpcrdma_wc_receive_flushed(r_xprt->rx_xid, wc->status);
		cmkit_rpcrdma_flush_disconnect(r_xprt, wc);
		cmkit_rpcrdma_rep_put(buf, rep);
		cmkit_rpcrdma_count_end(&cmkit_rpcrdma_stats.recvs_flushed);
		return;
	}
	atomic_inc(&cmkit_rpcrdma_stats.recvs_done);
	rep->rr_len = min(wc->byte_len, rdmab_length(rb));
	rep->rr_remote_inv = wc->wc_flags & IB_WC_WITH_INVALIDATE;
	rep->rr_inv_rkey = rep->rr_remote_inv ? wc->ex.invalidate_rkey : 0;
	ib_dma_sync_single_for_cpu(rb->rg_device, rdmab_addr(rb), rep->rr_len, DMA_FROM_DEVICE);
	cmkit_rpcrdma_reply_handler(rep);
}

/*
 * How many Receives to post now, for a target of @target posted, or 0:
 * none while more than the target are posted, else up to the target and
 * RPCRDMA_MAX_RECV_BATCH beyond it (xprtrdma's rpcrdma_post_recvs()).
 * Under rb_lock.
 */
static u32 rpcrdma_recvs_wanted(struct rpcrdma_buffer *buf, u32 target)
{
	if (buf->rb_receive_count > target)
		return 0;
	return target - buf->rb_receive_count + RPCRDMA_MAX_RECV_BATCH;
}

/* Take @n reps to post: free ones first, then new ones.  Unlocked. */
static unsigned int rpcrdma_reps_take(struct rpcrdma_xprt *r_xprt, struct list_head *reps,
				      unsigned int n, int *rc)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	struct rpcrdma_rep *rep;
	unsigned int got = 0;

	spin_lock(&buf->rb_lock);
	while (got < n && (rep = list_first_entry_or_null(&buf->rb_free_reps,
							  struct rpcrdma_rep, rr_list))) {
		list_move_tail(&rep->rr_list, reps);
		got++;
	}
	spin_unlock(&buf->rb_lock);
	for (; got < n; got++) {
		rep = rpcrdma_rep_create(r_xprt, r_xprt->rx_ep->re_inline_recv);
		if (!rep) {
			*rc = -ENOMEM;
			break;
		}
		list_add_tail(&rep->rr_list, reps);
	}
	atomic_add(got, &cmkit_rpcrdma_stats.reps_got);
	return got;
}

/**
 * cmkit_rpcrdma_post_recvs - replenish the receive queue
 * @r_xprt: the transport
 * @needed: how many Receives should be posted: the credit grant plus the
 *	backchannel allowance; never more than the ring
 *
 * Once no more than @needed are posted, posts in one chain what is missing
 * to @needed and RPCRDMA_MAX_RECV_BATCH beyond it.  One poster at a time: a
 * concurrent call returns at once (the poster covers it).  Does nothing
 * once the connection's drain has begun.
 *
 * Return: 0, or the first error (-ENOMEM, -EIO for a mapping, or
 * ib_post_recv()'s); what could be posted was.
 */
int cmkit_rpcrdma_post_recvs(struct rpcrdma_xprt *r_xprt, u32 needed)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	const struct ib_recv_wr *bad_wr = NULL;
	struct ib_recv_wr *first = NULL, **link = &first;
	struct rpcrdma_rep *rep, *tmp;
	unsigned int count, posted = 0;
	LIST_HEAD(reps);
	bool stop = false;
	u32 target;
	int rc = 0;

	spin_lock(&buf->rb_lock);
	target = min(needed, buf->rb_max_requests + (buf->rb_bc_srv_max_requests << 1));
	count = buf->rb_recv_open && !buf->rb_posting ? rpcrdma_recvs_wanted(buf, target) : 0;
	if (count)
		buf->rb_posting = true;
	spin_unlock(&buf->rb_lock);
	if (!count)
		return 0;

	/* rb_posting keeps the drain, and so the ep, waiting until the end. */
	/*
	 * A rep that could not be had, sized or mapped ends the chain: what
	 * is before it is posted all the same, as upstream's.
	 */
	count = rpcrdma_reps_take(r_xprt, &reps, count, &rc);
	list_for_each_entry_safe(rep, tmp, &reps, rr_list) {
		if (!stop && !rpcrdma_rep_resize(r_xprt, rep)) {
			rc = rc ?: -ENOMEM;
			stop = true;
		}
		if (!stop && (rpcrdma_fault(RPCRDMA_FAULT_RECV_MAP) ||
			      !rpcrdma_regbuf_dma_map(r_xprt, rep->rr_rdmabuf))) {
			rc = rc ?: -EIO;
			stop = true;
		}
		if (stop) {
			list_del(&rep->rr_list);
			cmkit_rpcrdma_rep_put(buf, rep);
			continue;
		}
		rep->rr_posted = true;
		rep->rr_recv_wr.next = NULL;
		*link = &rep->rr_recv_wr;
		link = &rep->rr_recv_wr.next;
		posted++;
	}

	if (first) {
		/*
		 * Off our list first: once posted, a rep may complete and go
		 * back to the free list at any time.  Counted first too: a
		 * completion may come before ib_post_recv() returns.
		 */
		list_for_each_entry_safe(rep, tmp, &reps, rr_list)
			list_del_init(&rep->rr_list);
		spin_lock(&buf->rb_lock);
		buf->rb_receive_count += posted;
		spin_unlock(&buf->rb_lock);
		if (rpcrdma_fault(RPCRDMA_FAULT_POST_RECV)) {
			bad_wr = first;
			rc = -ENOMEM;
		} else {
			rc = ib_post_recv(r_xprt->rx_ep->re_id->qp, first, &bad_wr) ?: rc;
		}
		/* bad_wr and what is chained after it were not posted. */
		while (bad_wr) {
			rep = container_of(bad_wr, struct rpcrdma_rep, rr_recv_wr);
			bad_wr = bad_wr->next;
			rep->rr_posted = false;
			posted--;
			spin_lock(&buf->rb_lock);
			buf->rb_receive_count--;
			spin_unlock(&buf->rb_lock);
			cmkit_rpcrdma_rep_put(buf, rep);
		}
	}

	spin_lock(&buf->rb_lock);
	buf->rb_recv_high = max(buf->rb_recv_high, buf->rb_receive_count);
	buf->rb_posting = false;
	spin_unlock(&buf->rb_lock);
	atomic_add(posted, &cmkit_rpcrdma_stats.recvs_posted);
	wake_up_all(&buf->rb_wait);
	trace_cmkit_rpcrdma_post_recvs(r_xprt->rx_xid, posted, READ_ONCE(buf->rb_receive_count),
				       target, rc);
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_post_recvs);

static bool rpcrdma_recvs_posting(struct rpcrdma_buffer *buf)
{
	bool posting;

	spin_lock(&buf->rb_lock);
	posting = buf->rb_posting;
	spin_unlock(&buf->rb_lock);
	return posting;
}

/**
 * cmkit_rpcrdma_recvs_close - the connection is ending: post no more Receives
 * @r_xprt: the transport, under its rx_lock
 *
 * Waits for a poster that is under way (it does not block), so that the
 * drain that follows flushes everything that was posted.
 */
void cmkit_rpcrdma_recvs_close(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;

	spin_lock(&buf->rb_lock);
	buf->rb_recv_open = false;
	spin_unlock(&buf->rb_lock);
	wait_event(buf->rb_wait, !rpcrdma_recvs_posting(buf));
}

/* ---- connection state ----------------------------------------------------- */

/**
 * cmkit_rpcrdma_reset_cwnd - a new connection starts with one credit
 * @r_xprt: the transport, under its rx_lock, with a new endpoint
 *
 * Credits are valid for one connection (RFC 8166, section 3.3.1): until
 * the first reply, one call may be outstanding.  Opens the receive queue
 * to cmkit_rpcrdma_post_recvs().
 */
void cmkit_rpcrdma_reset_cwnd(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;

	spin_lock(&buf->rb_lock);
	buf->rb_max_requests = r_xprt->rx_ep->re_max_requests;
	buf->rb_credits = 1;
	/*
	 * rb_outstanding is not reset: the last connection's end took back
	 * every credit of a call it had sent, and a call that took a credit
	 * but was not sent before that end gives it back itself.
	 */
	buf->rb_receive_count = 0;
	buf->rb_recv_high = 0;
	buf->rb_recv_open = true;
	spin_unlock(&buf->rb_lock);
}

/**
 * cmkit_rpcrdma_xprt_set_connected - set up the connection's Sends, then let calls go
 * @r_xprt: the transport, ESTABLISHED, under its rx_lock
 *
 * Creates the send-context ring and sets the reqs up for the negotiated
 * inline sizes (cmkit_rpcrdma_req_setup()), under the send lock: a call still
 * marshalling for the previous connection is not writing into a buffer
 * reallocated here.
 *
 * Return: 0, or -ENOMEM or -EIO (calls stay refused; the caller's
 * disconnect cleans up).
 */
int cmkit_rpcrdma_xprt_set_connected(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;
	int rc;

	mutex_lock(&r_xprt->rx_send_lock);
	rc = rpcrdma_sendctxs_create(r_xprt) ?: rpcrdma_reqs_setup(r_xprt);
	if (!rc) {
		spin_lock(&buf->rb_lock);
		buf->rb_connected = true;
		buf->rb_gen++;
		spin_unlock(&buf->rb_lock);
	}
	mutex_unlock(&r_xprt->rx_send_lock);
	return rc;
}

/**
 * cmkit_rpcrdma_xprt_clear_connected - the connection is ending: no more Sends
 * @r_xprt: the transport, under its rx_lock
 *
 * Once this returns no Send is being posted or will be: calls that were
 * about to send, and calls waiting for a credit, a req or a send context,
 * fail with -ECONNABORTED.  Calls already sent wait for cmkit_rpcrdma_reqs_abort().
 */
void cmkit_rpcrdma_xprt_clear_connected(struct rpcrdma_xprt *r_xprt)
{
	struct rpcrdma_buffer *buf = &r_xprt->rx_buf;

	mutex_lock(&r_xprt->rx_send_lock);
	spin_lock(&buf->rb_lock);
	buf->rb_connected = false;
	buf->rb_gen++;
	spin_unlock(&buf->rb_lock);
	mutex_unlock(&r_xprt->rx_send_lock);
	wake_up_all(&buf->rb_wait);
}
