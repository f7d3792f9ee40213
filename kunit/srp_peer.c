// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_test: the I/O half of an in-kernel SRP initiator, for the cases of
 * cmkit_srpt that drive the target's data path (kunit/srpt_common.c logs in;
 * this sends the IUs and takes the answers).
 *
 * One peer is one channel's initiator end: an RC QP (a raw one that the
 * caller moves through its states with ib_cm, or one on an rdma_cm id), a
 * CQ for both its queues, CMKIT_SRP_PEER_NR_RX receive IUs that are posted
 * again as soon as each is decoded, CMKIT_SRP_PEER_NR_TX send slots, and a
 * data buffer that the target reads (data-out: RDMA Read) and writes
 * (data-in: RDMA Write).
 *
 * The data buffer's remote key is the PD's unsafe global rkey
 * (IB_PD_UNSAFE_GLOBAL_RKEY): it lets a remote peer read and write all of
 * this host's memory through this PD, which no real initiator may allow,
 * and which is acceptable here only because the only remote peer is cmkit's
 * own target in a throwaway test guest, and it saves the peer a memory
 * registration per command (ib_srp registers each command's pages with a
 * fast registration WR instead).
 *
 * Every IU received is decoded and kept (the first CMKIT_SRP_PEER_MAX_IUS
 * of them) with the credits the initiator held once it was counted, so a
 * case can wait for a tag's answer and assert every field of it, and assert
 * the credit accounting across a whole exchange.
 *
 * The peer destroys its QP itself, before its CQ, with posting stopped
 * under its lock first: a receive completion that is still being handled
 * must not post to a QP that is gone.
 */
#include <linux/jhash.h>
#include <linux/slab.h>
#include <kunit/resource.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

#include "cmkit_test.h"
#include "srp_peer.h"

/**
 * struct cmkit_srp_buf - one receive IU or send slot
 * @cqe: its completion
 * @p: the peer
 * @buf: the bytes
 * @dma: @buf mapped for the device
 * @len: bytes of @buf
 * @busy: a send slot with a Send posted
 */
struct cmkit_srp_buf {
	struct ib_cqe cqe;
	struct cmkit_srp_peer *p;
	void *buf;
	u64 dma;
	u32 len;
	bool busy;
};

/* How a Send counts against the initiator's credits. */
enum cmkit_srp_credit {
	CMKIT_SRP_CREDIT_NONE,	/* a response IU: costs no credit */
	CMKIT_SRP_CREDIT_OBEY,	/* a request: needs a credit, spends it */
	CMKIT_SRP_CREDIT_FORCE,	/* a request sent whether or not it has one */
};

static void cmkit_srp_peer_wake(struct cmkit_srp_peer *p)
{
	wake_up_all(&p->wait);
}

/* Post one receive IU; the caller holds @p->lock. */
static int cmkit_srp_post_recv_locked(struct cmkit_srp_peer *p,
				      struct cmkit_srp_buf *b)
{
	struct ib_sge sge = {
		.addr = b->dma,
		.length = b->len,
		.lkey = p->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &b->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	if (p->dead)
		return -ESHUTDOWN;
	ib_dma_sync_single_for_device(p->dev, b->dma, b->len, DMA_FROM_DEVICE);
	return ib_post_recv(p->qp, &wr, NULL);
}

/* Decode what arrived into @iu; returns the credits it grants. */
static u32 cmkit_srp_decode(const u8 *buf, u32 len, struct cmkit_srp_iu *iu)
{
	struct cmkit_srp_short_iu s;

	memset(iu, 0, sizeof(*iu));
	iu->len = len;
	iu->opcode = len ? buf[0] : 0;
	if (cmkit_srp_iu_tag(buf, len, &iu->tag))
		iu->tag = 0;
	switch (iu->opcode) {
	case CMKIT_SRP_RSP:
		iu->err = cmkit_srp_decode_rsp(buf, len, &iu->rsp);
		if (iu->err)
			return 0;
		if (iu->rsp.resp)
			memcpy(iu->resp, iu->rsp.resp,
			       min_t(u32, iu->rsp.resp_len, sizeof(iu->resp)));
		if (iu->rsp.sense)
			memcpy(iu->sense, iu->rsp.sense,
			       min_t(u32, iu->rsp.sense_len, sizeof(iu->sense)));
		iu->rsp.resp = NULL;
		iu->rsp.sense = NULL;
		return iu->rsp.req_lim_delta;
	case CMKIT_SRP_T_LOGOUT:
	case CMKIT_SRP_CRED_REQ:
		iu->err = cmkit_srp_decode_short_iu(buf, len, iu->opcode, &s);
		iu->value = iu->err ? 0 : s.value;
		return iu->opcode == CMKIT_SRP_CRED_REQ ? iu->value : 0;
	default:
		iu->err = -EPROTO;
		return 0;
	}
}

/* An IU arrived (keep it, count its credits, post the buffer again). */
static void cmkit_srp_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cmkit_srp_buf *b = container_of(wc->wr_cqe, struct cmkit_srp_buf, cqe);
	struct cmkit_srp_peer *p = b->p;
	struct cmkit_srp_iu iu;
	unsigned long flags;
	u32 delta;

	if (wc->status != IB_WC_SUCCESS) {
		spin_lock_irqsave(&p->lock, flags);
		p->recv_errors++;
		spin_unlock_irqrestore(&p->lock, flags);
		cmkit_srp_peer_wake(p);
		return;
	}
	ib_dma_sync_single_for_cpu(p->dev, b->dma, b->len, DMA_FROM_DEVICE);
	delta = cmkit_srp_decode(b->buf, wc->byte_len, &iu);

	spin_lock_irqsave(&p->lock, flags);
	p->credits += delta;
	p->returned += delta;
	p->max_credits = max(p->max_credits, p->credits);
	iu.credits = p->credits;
	if (p->nr_ius < CMKIT_SRP_PEER_MAX_IUS)
		p->ius[p->nr_ius] = iu;
	p->nr_ius++;
	if (cmkit_srp_post_recv_locked(p, b) && !p->dead)
		p->repost_errors++;
	spin_unlock_irqrestore(&p->lock, flags);
	/* Debug only: 6.1's harness reads results from a 128 KiB kernel log. */
	pr_debug("cmkit_test: srp initiator: IU %#x tag %#llx, %u bytes, status %#x, delta %u\n",
		 iu.opcode, iu.tag, iu.len, iu.rsp.status, delta);
	cmkit_srp_peer_wake(p);
}

static void cmkit_srp_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cmkit_srp_buf *b = container_of(wc->wr_cqe, struct cmkit_srp_buf, cqe);
	struct cmkit_srp_peer *p = b->p;
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	if (wc->status == IB_WC_SUCCESS)
		p->sent++;
	else
		p->send_errors++;
	b->busy = false;
	p->tx_busy--;
	spin_unlock_irqrestore(&p->lock, flags);
	cmkit_srp_peer_wake(p);
}

static void cmkit_srp_free_bufs(struct cmkit_srp_peer *p, struct cmkit_srp_buf *bufs,
				unsigned int n, enum dma_data_direction dir)
{
	unsigned int i;

	if (!bufs)
		return;
	for (i = 0; i < n && bufs[i].buf; i++) {
		ib_dma_unmap_single(p->dev, bufs[i].dma, bufs[i].len, dir);
		kfree(bufs[i].buf);
	}
	kfree(bufs);
}

static struct cmkit_srp_buf *cmkit_srp_alloc_bufs(struct cmkit_srp_peer *p,
						  unsigned int n, u32 len,
						  enum dma_data_direction dir,
						  void (*done)(struct ib_cq *, struct ib_wc *))
{
	struct cmkit_srp_buf *bufs;
	unsigned int i;

	bufs = kcalloc(n, sizeof(*bufs), GFP_KERNEL);
	if (!bufs)
		return NULL;
	for (i = 0; i < n; i++) {
		bufs[i].p = p;
		bufs[i].len = len;
		bufs[i].cqe.done = done;
		bufs[i].buf = kzalloc(len, GFP_KERNEL);
		if (!bufs[i].buf)
			goto fail;
		bufs[i].dma = ib_dma_map_single(p->dev, bufs[i].buf, len, dir);
		if (ib_dma_mapping_error(p->dev, bufs[i].dma)) {
			kfree(bufs[i].buf);
			bufs[i].buf = NULL;
			goto fail;
		}
	}
	return bufs;

fail:
	cmkit_srp_free_bufs(p, bufs, n, dir);
	return NULL;
}

/* Stop posting, destroy the QP (whoever's id holds it), then the rest. */
static void cmkit_srp_peer_release(struct cmkit_srp_peer *p)
{
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	p->dead = true;
	spin_unlock_irqrestore(&p->lock, flags);
	if (p->qp && p->cm) {
		/* Unless the peer's DEVICE_REMOVAL handler destroyed it. */
		mutex_lock(&p->cm->res_lock);
		if (p->cm->id && p->cm->id->qp == p->qp)
			rdma_destroy_qp(p->cm->id);
		mutex_unlock(&p->cm->res_lock);
	} else if (p->qp) {
		ib_destroy_qp(p->qp);
	}
	if (p->qp_owner)
		*p->qp_owner = NULL;
	p->qp = NULL;
	p->qp_owner = NULL;
	if (p->cq)
		ib_free_cq(p->cq);
	p->cq = NULL;
	cmkit_srp_free_bufs(p, p->rx, CMKIT_SRP_PEER_NR_RX, DMA_FROM_DEVICE);
	cmkit_srp_free_bufs(p, p->tx, CMKIT_SRP_PEER_NR_TX, DMA_TO_DEVICE);
	p->rx = NULL;
	p->tx = NULL;
	if (p->data) {
		if (p->data_dma)
			ib_dma_unmap_single(p->dev, p->data_dma, CMKIT_SRP_PEER_DATA_LEN,
					    DMA_BIDIRECTIONAL);
		kfree(p->data);
	}
	p->data = NULL;
	p->data_dma = 0;
	if (p->pd)
		ib_dealloc_pd(p->pd);
	p->pd = NULL;
}

static void cmkit_srp_peer_free(struct kunit_resource *res)
{
	struct cmkit_srp_peer *p = res->data;

	cmkit_srp_peer_release(p);
	kfree(p);
}

static int cmkit_srp_peer_init(struct kunit_resource *res, void *context)
{
	struct ib_device *dev = context;
	struct cmkit_srp_peer *p;
	int ret = -ENOMEM;

	p = kzalloc_obj(*p, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->dev = dev;
	spin_lock_init(&p->lock);
	init_waitqueue_head(&p->wait);

	/* A test peer's shortcut: see the top of this file. */
	p->pd = ib_alloc_pd(dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(p->pd)) {
		ret = PTR_ERR(p->pd);
		p->pd = NULL;
		goto fail;
	}
	p->cq = ib_alloc_cq(dev, p, CMKIT_SRP_PEER_NR_RX + CMKIT_SRP_PEER_NR_TX + 2,
			    0, IB_POLL_WORKQUEUE);
	if (IS_ERR(p->cq)) {
		ret = PTR_ERR(p->cq);
		p->cq = NULL;
		goto fail;
	}
	p->rx = cmkit_srp_alloc_bufs(p, CMKIT_SRP_PEER_NR_RX, CMKIT_SRP_PEER_RX_LEN,
				     DMA_FROM_DEVICE, cmkit_srp_recv_done);
	p->tx = cmkit_srp_alloc_bufs(p, CMKIT_SRP_PEER_NR_TX, CMKIT_SRP_PEER_TX_LEN,
				     DMA_TO_DEVICE, cmkit_srp_send_done);
	/* Physically contiguous: rxe's DMA MR reaches pages by address. */
	p->data = kzalloc(CMKIT_SRP_PEER_DATA_LEN, GFP_KERNEL);
	if (!p->rx || !p->tx || !p->data)
		goto fail;
	p->data_dma = ib_dma_map_single(dev, p->data, CMKIT_SRP_PEER_DATA_LEN,
					DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(dev, p->data_dma)) {
		p->data_dma = 0;
		goto fail;
	}
	res->data = p;
	return 0;

fail:
	cmkit_srp_peer_release(p);
	kfree(p);
	return ret;
}

/**
 * cmkit_srp_peer_create - an SRP initiator's verbs objects, without a QP
 * @test: the running test; the peer is released when it ends
 * @dev: the device
 *
 * Create it after whatever owns the connection (a cmkit_peer, a raw IB CM
 * id), so that the peer, released first, destroys its QP before that
 * connection's id goes.
 *
 * Return: the peer; a failure aborts the test.
 */
struct cmkit_srp_peer *cmkit_srp_peer_create(struct kunit *test, struct ib_device *dev)
{
	struct cmkit_srp_peer *p;

	p = kunit_alloc_resource(test, cmkit_srp_peer_init, cmkit_srp_peer_free,
				 GFP_KERNEL, dev);
	KUNIT_ASSERT_NOT_NULL_MSG(test, p, "no SRP initiator on %s", dev_name(&dev->dev));
	p->test = test;
	return p;
}

/**
 * cmkit_srp_peer_create_qp - create the peer's RC QP
 * @p: the peer
 * @cm: the rdma_cm form's peer, whose (route-resolved) id gets the QP and
 *	moves it through its states; NULL for a raw QP that the caller moves
 * @owner: the caller's own pointer to the QP (or NULL), cleared when the
 *	peer destroys it
 *
 * Return: 0, or the verbs error.
 */
int cmkit_srp_peer_create_qp(struct cmkit_srp_peer *p, struct cmkit_peer *cm,
			     struct ib_qp **owner)
{
	struct ib_qp_init_attr attr = {
		.cap = {
			.max_send_wr = CMKIT_SRP_PEER_NR_TX,
			.max_recv_wr = CMKIT_SRP_PEER_NR_RX,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
		.send_cq = p->cq,
		.recv_cq = p->cq,
	};
	struct ib_qp *qp;
	int ret;

	if (cm) {
		ret = rdma_create_qp(cm->id, p->pd, &attr);
		if (ret)
			return ret;
		p->cm = cm;
		p->qp = cm->id->qp;
	} else {
		qp = ib_create_qp(p->pd, &attr);
		if (IS_ERR(qp))
			return PTR_ERR(qp);
		p->qp = qp;
	}
	p->qp_owner = owner;
	if (owner)
		*owner = p->qp;
	return 0;
}

/**
 * cmkit_srp_peer_start - the login was accepted: take what it granted, and
 *	post the receive ring (unless held)
 * @p: the peer, its QP in RTS (or at least INIT)
 * @rsp: the SRP_LOGIN_RSP
 * @hold_rx: post no receive yet (cmkit_srp_peer_post_rx() does): the
 *	target's first Send then meets an RNR NAK and, with the initiator's
 *	RNR retries unlimited, keeps the target's send queue, and every RDMA
 *	Read queued behind it, waiting until the ring is posted
 *
 * Takes the login's credits, the largest IU the target accepts and (when
 * granted) the offset of immediate data.
 *
 * Return: 0, or the first failing post's error.
 */
int cmkit_srp_peer_start(struct cmkit_srp_peer *p, const struct cmkit_srp_login_rsp *rsp,
			 bool hold_rx)
{
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	p->grant = rsp->req_lim_delta;
	p->credits = rsp->req_lim_delta;
	p->max_credits = p->credits;
	p->max_it_iu_len = rsp->max_it_iu_len;
	p->imm_off = rsp->flags & CMKIT_SRP_LOGIN_RSP_IMMED_SUPP ?
		     CMKIT_SRP_PEER_IMM_OFF : 0;
	spin_unlock_irqrestore(&p->lock, flags);
	return hold_rx ? 0 : cmkit_srp_peer_post_rx(p);
}

/**
 * cmkit_srp_peer_post_rx - post the receive ring
 * @p: the peer, started
 *
 * Return: 0 (also if it was posted already), or the first failing post's
 * error.
 */
int cmkit_srp_peer_post_rx(struct cmkit_srp_peer *p)
{
	unsigned long flags;
	unsigned int i;
	int ret = 0;

	spin_lock_irqsave(&p->lock, flags);
	for (i = 0; i < CMKIT_SRP_PEER_NR_RX && !p->rx_posted && !ret; i++)
		ret = cmkit_srp_post_recv_locked(p, &p->rx[i]);
	p->rx_posted = true;
	spin_unlock_irqrestore(&p->lock, flags);
	return ret;
}

/**
 * cmkit_srp_peer_destroy - release the peer now, not at the end of the test
 * @p: the peer
 *
 * For a device removal, whose end waits for every verbs object on the
 * device: the QP is destroyed unless the rdma_cm peer's removal handler
 * already did.
 */
void cmkit_srp_peer_destroy(struct cmkit_srp_peer *p)
{
	cmkit_srp_peer_release(p);
}

/**
 * cmkit_srp_peer_stop - post nothing more (receives included)
 * @p: the peer
 *
 * Before something else may destroy the QP under the peer (a device
 * removal: the rdma_cm peer's handler destroys it): IUs still arrive and
 * are kept, their buffers are not posted again.
 */
void cmkit_srp_peer_stop(struct cmkit_srp_peer *p)
{
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	p->dead = true;
	spin_unlock_irqrestore(&p->lock, flags);
}

static int cmkit_srp_peer_post(struct cmkit_srp_peer *p, const void *iu, u32 len,
			       enum cmkit_srp_credit credit)
{
	struct cmkit_srp_buf *b = NULL;
	struct ib_sge sge;
	struct ib_send_wr wr = {
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};
	unsigned long flags;
	unsigned int i;
	int ret;

	if (len > CMKIT_SRP_PEER_TX_LEN)
		return -EMSGSIZE;
	spin_lock_irqsave(&p->lock, flags);
	if (p->dead) {
		ret = -ESHUTDOWN;
		goto unlock;
	}
	if (credit == CMKIT_SRP_CREDIT_OBEY && p->credits <= 0) {
		ret = -EAGAIN;
		goto unlock;
	}
	for (i = 0; i < CMKIT_SRP_PEER_NR_TX && !b; i++)
		if (!p->tx[i].busy)
			b = &p->tx[i];
	if (!b) {
		ret = -EBUSY;
		goto unlock;
	}
	memcpy(b->buf, iu, len);
	ib_dma_sync_single_for_device(p->dev, b->dma, len, DMA_TO_DEVICE);
	sge = (struct ib_sge){ .addr = b->dma, .length = len,
			       .lkey = p->pd->local_dma_lkey };
	wr.wr_cqe = &b->cqe;
	ret = ib_post_send(p->qp, &wr, NULL);
	if (ret)
		goto unlock;
	b->busy = true;
	p->tx_busy++;
	if (credit != CMKIT_SRP_CREDIT_NONE)
		p->credits--;
unlock:
	spin_unlock_irqrestore(&p->lock, flags);
	return ret;
}

/**
 * cmkit_srp_peer_send - send a request IU (SRP_CMD, SRP_TSK_MGMT,
 *	SRP_I_LOGOUT), as an initiator that obeys its credits does
 * @p: the peer
 * @iu: the IU
 * @len: its length
 *
 * Does not wait for the Send's completion (cmkit_srp_peer_wait_sent()).
 *
 * Return: 0 once posted; -EAGAIN with no credit left, -EBUSY with every
 * send slot in use, -ESHUTDOWN once stopped, or the post's error.
 */
int cmkit_srp_peer_send(struct cmkit_srp_peer *p, const void *iu, u32 len)
{
	return cmkit_srp_peer_post(p, iu, len, CMKIT_SRP_CREDIT_OBEY);
}

/**
 * cmkit_srp_peer_send_over - send a request IU whether or not a credit is
 *	left (it still spends one: the credits go below zero)
 * @p: the peer
 * @iu: the IU
 * @len: its length
 *
 * Return: as cmkit_srp_peer_send(), never -EAGAIN.
 */
int cmkit_srp_peer_send_over(struct cmkit_srp_peer *p, const void *iu, u32 len)
{
	return cmkit_srp_peer_post(p, iu, len, CMKIT_SRP_CREDIT_FORCE);
}

/**
 * cmkit_srp_peer_send_rsp - send a response IU (SRP_CRED_RSP, SRP_AER_RSP),
 *	which costs no credit
 * @p: the peer
 * @iu: the IU
 * @len: its length
 *
 * Return: as cmkit_srp_peer_send(), never -EAGAIN.
 */
int cmkit_srp_peer_send_rsp(struct cmkit_srp_peer *p, const void *iu, u32 len)
{
	return cmkit_srp_peer_post(p, iu, len, CMKIT_SRP_CREDIT_NONE);
}

static bool cmkit_srp_peer_idle(struct cmkit_srp_peer *p)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&p->lock, flags);
	idle = !p->tx_busy;
	spin_unlock_irqrestore(&p->lock, flags);
	return idle;
}

/**
 * cmkit_srp_peer_wait_sent - wait until every Send posted has completed
 * @p: the peer
 *
 * Return: 0, -EIO if any Send completed in error, or -ETIMEDOUT.
 */
int cmkit_srp_peer_wait_sent(struct cmkit_srp_peer *p)
{
	if (!wait_event_timeout(p->wait, cmkit_srp_peer_idle(p), cmkit_test_timeout()))
		return -ETIMEDOUT;
	return READ_ONCE(p->send_errors) ? -EIO : 0;
}

static bool cmkit_srp_peer_find(struct cmkit_srp_peer *p, u64 tag,
				struct cmkit_srp_iu *out)
{
	unsigned long flags;
	unsigned int i, n;
	bool found = false;

	spin_lock_irqsave(&p->lock, flags);
	n = min_t(unsigned int, p->nr_ius, CMKIT_SRP_PEER_MAX_IUS);
	for (i = 0; i < n && !found; i++) {
		if (p->ius[i].tag == tag) {
			if (out)
				*out = p->ius[i];
			found = true;
		}
	}
	spin_unlock_irqrestore(&p->lock, flags);
	return found;
}

/**
 * cmkit_srp_peer_has_tag - whether an IU with @tag arrived
 * @p: the peer
 * @tag: the tag
 *
 * Return: true if one did.
 */
bool cmkit_srp_peer_has_tag(struct cmkit_srp_peer *p, u64 tag)
{
	return cmkit_srp_peer_find(p, tag, NULL);
}

/**
 * cmkit_srp_peer_wait_tag - wait for the (first) IU that carries @tag
 * @p: the peer
 * @tag: the tag of the request it answers
 * @out: a copy of it
 *
 * Return: 0, or -ETIMEDOUT.
 */
int cmkit_srp_peer_wait_tag(struct cmkit_srp_peer *p, u64 tag, struct cmkit_srp_iu *out)
{
	if (!wait_event_timeout(p->wait, cmkit_srp_peer_find(p, tag, out),
				cmkit_test_timeout())) {
		pr_warn("cmkit_test: srp initiator: no answer to tag %#llx\n", tag);
		return -ETIMEDOUT;
	}
	return 0;
}

/**
 * cmkit_srp_peer_nr_ius - IUs received so far
 * @p: the peer
 *
 * Return: the count.
 */
unsigned int cmkit_srp_peer_nr_ius(struct cmkit_srp_peer *p)
{
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&p->lock, flags);
	n = p->nr_ius;
	spin_unlock_irqrestore(&p->lock, flags);
	return n;
}

/**
 * cmkit_srp_peer_wait_ius - wait until @n IUs have arrived in all
 * @p: the peer
 * @n: the count
 *
 * Return: 0, or -ETIMEDOUT.
 */
int cmkit_srp_peer_wait_ius(struct cmkit_srp_peer *p, unsigned int n)
{
	if (!wait_event_timeout(p->wait, cmkit_srp_peer_nr_ius(p) >= n,
				cmkit_test_timeout()))
		return -ETIMEDOUT;
	return 0;
}

/**
 * cmkit_srp_peer_credits - the credits the initiator holds now
 * @p: the peer
 *
 * Return: the login's grant, minus the requests sent, plus what came back.
 */
s32 cmkit_srp_peer_credits(struct cmkit_srp_peer *p)
{
	unsigned long flags;
	s32 c;

	spin_lock_irqsave(&p->lock, flags);
	c = p->credits;
	spin_unlock_irqrestore(&p->lock, flags);
	return c;
}

/**
 * cmkit_srp_peer_desc - a memory descriptor of part of the data buffer
 * @p: the peer
 * @off: offset in the data buffer
 * @len: bytes
 * @d: the descriptor, for an SRP_CMD
 */
void cmkit_srp_peer_desc(struct cmkit_srp_peer *p, u32 off, u32 len,
			 struct cmkit_srp_direct *d)
{
	WARN_ON(off > CMKIT_SRP_PEER_DATA_LEN || len > CMKIT_SRP_PEER_DATA_LEN - off);
	d->va = p->data_dma + off;
	d->key = p->pd->unsafe_global_rkey;
	d->len = len;
}

/**
 * cmkit_srp_peer_fill - write a pattern into part of the data buffer
 * @p: the peer
 * @off: offset in the data buffer
 * @len: bytes, a multiple of four
 * @seed: the pattern: each 32-bit word is a hash of @seed and its index,
 *	so no two words, blocks or seeds look alike
 */
void cmkit_srp_peer_fill(struct cmkit_srp_peer *p, u32 off, u32 len, u32 seed)
{
	u32 i, w;

	for (i = 0; i + 4 <= len; i += 4) {
		w = jhash_1word(i, seed);
		memcpy(p->data + off + i, &w, sizeof(w));
	}
	ib_dma_sync_single_for_device(p->dev, p->data_dma, CMKIT_SRP_PEER_DATA_LEN,
				      DMA_BIDIRECTIONAL);
}

/**
 * cmkit_srp_peer_sync_for_cpu - let the CPU see what the target wrote
 * @p: the peer
 */
void cmkit_srp_peer_sync_for_cpu(struct cmkit_srp_peer *p)
{
	ib_dma_sync_single_for_cpu(p->dev, p->data_dma, CMKIT_SRP_PEER_DATA_LEN,
				   DMA_BIDIRECTIONAL);
}

/**
 * cmkit_srp_peer_same - whether two parts of the data buffer hold the same
 *	bytes
 * @p: the peer
 * @a: offset of one
 * @b: offset of the other
 * @len: bytes
 *
 * Return: true if they do.
 */
bool cmkit_srp_peer_same(struct cmkit_srp_peer *p, u32 a, u32 b, u32 len)
{
	cmkit_srp_peer_sync_for_cpu(p);
	return !memcmp(p->data + a, p->data + b, len);
}
