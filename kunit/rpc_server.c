// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_test: an in-kernel RPC-over-RDMA server for the rpcrdma suite.
 *
 * Attached to a listening test peer (cmkit_rpc_srv_attach()), it gives the
 * peer's accepted connection a QP of its own: Receives posted before the
 * accept, each call decoded with cmkit_rpcrdma_decode_call() and answered
 * from a pool of Send buffers, every Send signaled.  The answer is a NULL
 * call's MSG_ACCEPTED SUCCESS, granting a set number of credits, unless the
 * test chose another action for some of a connection's calls (drop it,
 * RDMA_ERROR, PROG_MISMATCH, a reply cut short or with a wrong version or
 * xid, an extra reply to an xid no one sent).  Replies can be held (no
 * sleep: a list the test releases), so a test knows exactly which calls are
 * in flight when it acts.  The server checks the client's side of the
 * credit contract: a call that arrives while the client already has as
 * many calls outstanding as it was granted is an overrun.
 */
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "cmkit_test.h"
#include <cmkit/crc32c.h>
#include <cmkit/rpcrdma_chunk.h>
#include <cmkit/rpcrdma_cmp.h>
#include <cmkit/rpcrdma_msg.h>
#include <cmkit/rpc_testprog.h>

#define RPC_SRV_RECVS		40	/* above the client's ring (32) */
#define RPC_SRV_SENDS		40
#define RPC_SRV_RECV_LEN	1024
#define RPC_SRV_SEND_LEN	1024	/* the client's inline receive size without RFC 8797 */
#define RPC_SRV_DEFAULT_GRANT	32
#define RPC_SRV_EXTRA_XID	0x5a5a5a5aU
#define RPC_SRV_WRITE_LEN	(64U << 10)	/* an RDMA Write of cmkit_rpc_srv_rdma_write() */
#define RPC_SRV_XIDS		64	/* xids recorded (cmkit_rpc_srv_xids()) */

struct rpc_srv_buf {
	struct ib_cqe cqe;
	struct cmkit_rpc_srv *srv;
	struct list_head list;	/* a Send buffer: on free_sends while free */
	void *data;
	u64 dma;
	enum dma_data_direction dir;
	bool mapped;
};

/*
 * A call of the test program (ECHO, FILL, SINK, MIRROR): served in the
 * server's work, which moves its chunks' data with RDMA Read and Write and
 * then queues its reply (results inline, the write list's lengths, or the
 * whole reply in the reply chunk).
 */
struct rpc_srv_proc {
	u32 proc;
	u32 args_len;
	u8 args[RPC_SRV_RECV_LEN];
	struct cmkit_rpcrdma_chunks ch;		/* what the call offered */
	struct cmkit_rpcrdma_chunks wrote;	/* the reply's lists */
	bool served;				/* the work answered it */
	bool send_inv;				/* reply with Send With Invalidate */
	u32 inv_rkey;				/* of this rkey */
	bool err_chunk;				/* answer RDMA_ERROR ERR_CHUNK */
	bool nomsg;				/* the call is in its position-zero chunk */
	bool nomsg_reply;			/* the reply is in the reply chunk */
	u32 results_len;
	u8 results[RPC_SRV_SEND_LEN];
};

/* A reply to send: held, waiting for a Send buffer, or on its way. */
struct rpc_srv_reply {
	struct list_head list;
	u32 xid;
	enum cmkit_rpc_action action;
	bool extra;		/* the reply to an xid no one sent */
	struct rpc_srv_proc *proc;
};

/**
 * struct cmkit_rpc_srv - an RPC-over-RDMA server answering NULL calls
 * @peer: the test peer it serves
 * @lock: protects everything below
 * @wait: woken whenever a count changes
 * @grant: rdma_credit of every reply
 * @action: how the chosen calls are answered
 * @action_first: the first chosen call of a connection (1-based)
 * @action_count: how many from it (0: all)
 * @hold: replies wait for cmkit_rpc_srv_release()
 * @live: the connection's QP takes posts (false from its teardown on)
 * @dev: its device
 * @qp: its QP
 * @cq: its CQ
 * @lkey: its PD's local DMA lkey
 * @recv: the Receive buffers
 * @send: the Send buffers
 * @free_sends: Send buffers not in use
 * @held: replies held
 * @backlog: replies waiting for a Send buffer
 * @conn_calls: calls received on this connection
 * @conn_replied: calls answered on this connection
 * @send_inv_ok: the client's RFC 8797 message allows Send With Invalidate
 * @no_send_inv: never use it (cmkit_rpc_srv_no_send_inv())
 * @procs: test-program calls waiting for @proc_work
 * @proc_work: serves them, one at a time
 * @counts: what the tests read
 * @xids: the xids of the first RPC_SRV_XIDS calls received, over all
 *	connections (cmkit_rpc_srv_xids())
 * @nr_xids: calls received, of which the first RPC_SRV_XIDS are in @xids
 */
struct cmkit_rpc_srv {
	struct cmkit_peer *peer;
	spinlock_t lock;	/* knobs, lists, counts, posting vs. teardown */
	wait_queue_head_t wait;
	u32 grant;
	enum cmkit_rpc_action action;
	u32 action_first;
	u32 action_count;
	bool hold;
	bool live;
	struct ib_device *dev;
	struct ib_qp *qp;
	struct ib_cq *cq;
	u32 lkey;
	struct rpc_srv_buf recv[RPC_SRV_RECVS];
	struct rpc_srv_buf send[RPC_SRV_SENDS];
	struct list_head free_sends;
	struct list_head held;
	struct list_head backlog;
	u32 conn_calls;
	u32 conn_replied;
	bool send_inv_ok;
	bool no_send_inv;
	struct list_head procs;
	struct work_struct proc_work;
	struct cmkit_rpc_counts counts;
	u32 xids[RPC_SRV_XIDS];
	unsigned int nr_xids;
};

static void rpc_srv_recv_done(struct ib_cq *cq, struct ib_wc *wc);
static void rpc_srv_send_done(struct ib_cq *cq, struct ib_wc *wc);

static void rpc_srv_reply_free(struct rpc_srv_reply *r)
{
	if (r)
		kfree(r->proc);
	kfree(r);
}

/* Post a Receive, unless the connection is being torn down.  Under s->lock. */
static int rpc_srv_post_recv(struct cmkit_rpc_srv *s, struct rpc_srv_buf *b)
{
	struct ib_sge sge = { .addr = b->dma, .length = RPC_SRV_RECV_LEN, .lkey = s->lkey };
	struct ib_recv_wr wr = { .wr_cqe = &b->cqe, .sg_list = &sge, .num_sge = 1 };

	lockdep_assert_held(&s->lock);
	if (!s->live)
		return -ENOTCONN;
	return ib_post_recv(s->qp, &wr, NULL);
}

static bool rpc_srv_chosen(struct cmkit_rpc_srv *s, u32 n)
{
	return n >= s->action_first && (!s->action_count || n - s->action_first < s->action_count);
}

/* Write a reply into @b; return its length. */
static int rpc_srv_encode(struct cmkit_rpc_srv *s, struct rpc_srv_buf *b,
			  const struct rpc_srv_reply *r, u32 grant)
{
	struct cmkit_rpcrdma_reply rep = { };
	u8 *p = b->data;
	int len;

	rep.hdr.rdma_xid = r->extra ? r->xid ^ RPC_SRV_EXTRA_XID : r->xid;
	rep.hdr.rdma_credit = grant;
	rep.hdr.rdma_proc = CMKIT_RPCRDMA_MSG;
	rep.reply_stat = CMKIT_RPC_MSG_ACCEPTED;
	rep.verf_flavor = CMKIT_RPC_AUTH_NONE;
	rep.accept_stat = CMKIT_RPC_SUCCESS;
	if (!r->extra) {
		switch (r->action) {
		case CMKIT_RPC_SRV_ERR_VERS:
			rep.hdr.rdma_proc = CMKIT_RPCRDMA_ERROR;
			rep.rdma_err = CMKIT_RPCRDMA_ERR_VERS;
			rep.low = 1;
			rep.high = 1;
			break;
		case CMKIT_RPC_SRV_ERR_CHUNK:
			rep.hdr.rdma_proc = CMKIT_RPCRDMA_ERROR;
			rep.rdma_err = CMKIT_RPCRDMA_ERR_CHUNK;
			break;
		case CMKIT_RPC_SRV_PROG_MISMATCH:
			rep.accept_stat = CMKIT_RPC_PROG_MISMATCH;
			rep.low = 4;
			rep.high = 4;
			break;
		default:
			break;
		}
	}
	if (r->proc && r->proc->served && !r->extra) {
		if (r->proc->err_chunk) {
			rep.hdr.rdma_proc = CMKIT_RPCRDMA_ERROR;
			rep.rdma_err = CMKIT_RPCRDMA_ERR_CHUNK;
		} else {
			if (r->proc->nomsg_reply)
				rep.hdr.rdma_proc = CMKIT_RPCRDMA_NOMSG;
			return cmkit_rpcrdma_encode_reply_chunks(p, RPC_SRV_SEND_LEN, &rep,
								 &r->proc->wrote,
								 r->proc->results,
								 r->proc->results_len);
		}
	}
	len = cmkit_rpcrdma_encode_reply(p, RPC_SRV_SEND_LEN, &rep);
	if (len < 0 || r->extra)
		return len;
	switch (r->action) {
	case CMKIT_RPC_SRV_SHORT:
		return 12;
	case CMKIT_RPC_SRV_TRUNCATED:
		return 44;
	case CMKIT_RPC_SRV_BAD_VERS:
		cmkit_put_be32(p + 4, 2);
		break;
	case CMKIT_RPC_SRV_XID_MISMATCH:
		cmkit_put_be32(p + CMKIT_RPCRDMA_HDR_LEN, r->xid ^ 1);
		break;
	default:
		break;
	}
	return len;
}

/* Send @r now, or put it on the backlog until a Send buffer is free.  Frees @r. */
static void rpc_srv_send(struct cmkit_rpc_srv *s, struct rpc_srv_reply *r)
{
	struct ib_send_wr wr = { .num_sge = 1, .opcode = IB_WR_SEND,
				 .send_flags = IB_SEND_SIGNALED };
	struct ib_sge sge;
	struct rpc_srv_buf *b;
	int len, rc = -ENOTCONN;

	spin_lock(&s->lock);
	b = list_first_entry_or_null(&s->free_sends, struct rpc_srv_buf, list);
	if (s->live && !b) {
		list_add_tail(&r->list, &s->backlog);
		spin_unlock(&s->lock);
		return;
	}
	if (s->live) {
		list_del(&b->list);
		len = rpc_srv_encode(s, b, r, s->grant);
		if (r->proc && r->proc->send_inv && !r->proc->err_chunk) {
			wr.opcode = IB_WR_SEND_WITH_INV;
			wr.ex.invalidate_rkey = r->proc->inv_rkey;
			s->counts.send_inv++;
		}
		ib_dma_sync_single_for_device(s->dev, b->dma, RPC_SRV_SEND_LEN, DMA_TO_DEVICE);
		sge = (struct ib_sge){ .addr = b->dma, .length = len, .lkey = s->lkey };
		wr.sg_list = &sge;
		wr.wr_cqe = &b->cqe;
		/* Counted before the post: the next call can only follow it. */
		s->conn_replied += !r->extra;
		s->counts.replies++;
		rc = len < 0 ? -EINVAL : ib_post_send(s->qp, &wr, NULL);
		if (rc) {
			list_add(&b->list, &s->free_sends);
			s->counts.send_errors++;
		}
	}
	spin_unlock(&s->lock);
	wake_up_all(&s->wait);
	rpc_srv_reply_free(r);
}

/* Send @r, or hold it. */
static void rpc_srv_queue(struct cmkit_rpc_srv *s, struct rpc_srv_reply *r)
{
	spin_lock(&s->lock);
	if (s->hold) {
		list_add_tail(&r->list, &s->held);
		s->counts.held++;
		spin_unlock(&s->lock);
		wake_up_all(&s->wait);
		return;
	}
	spin_unlock(&s->lock);
	rpc_srv_send(s, r);
}

/* ---- the test program's procedures, with chunks ------------------------ */

static bool rpc_srv_is_proc(const struct cmkit_rpcrdma_call *call)
{
	return call->prog == CMKIT_RPC_TESTPROG && call->vers == CMKIT_RPC_TESTPROG_VERS &&
	       call->proc >= CMKIT_RPC_TESTPROG_ECHO && call->proc <= CMKIT_RPC_TESTPROG_MIRROR;
}

/*
 * A call with chunk lists: RDMA_MSG, or RDMA_NOMSG with the whole call in
 * its position-zero read chunk (the work reads and decodes it).
 */
static int rpc_srv_decode_proc(const void *buf, u32 len, struct cmkit_rpcrdma_call *call,
			       struct rpc_srv_reply *r)
{
	int rc;

	r->proc = kzalloc_obj(*r->proc, GFP_KERNEL);
	if (!r->proc)
		return CMKIT_RPCRDMA_E_ARG;
	rc = cmkit_rpcrdma_decode_call_chunks(buf, len, call, &r->proc->ch);
	if (rc == CMKIT_RPCRDMA_OK && call->hdr.rdma_proc == CMKIT_RPCRDMA_NOMSG) {
		r->proc->nomsg = true;
		call->xid = call->hdr.rdma_xid;
	} else if (rc == CMKIT_RPCRDMA_OK && call->hdr.rdma_proc != CMKIT_RPCRDMA_MSG) {
		rc = CMKIT_RPCRDMA_E_PROC;
	}
	return rc;
}

/* Keep a test-program call's procedure and inline arguments; 0 or -ENOMEM. */
static int rpc_srv_proc_args(struct rpc_srv_reply *r, const struct cmkit_rpcrdma_call *call)
{
	if (!r->proc)
		r->proc = kzalloc_obj(*r->proc, GFP_KERNEL);
	if (!r->proc)
		return -ENOMEM;
	r->proc->proc = call->proc;
	r->proc->args_len = min_t(size_t, call->args_len, sizeof(r->proc->args));
	memcpy(r->proc->args, call->args, r->proc->args_len);
	return 0;
}

/*
 * One RDMA Write of @len bytes from @out, or Read into @in, waited for:
 * 0, -EIO (it completed in error: the connection is broken), -ENOTCONN,
 * or the post's errno.
 */
static int rpc_srv_rdma(struct cmkit_rpc_srv *s, u32 rkey, u64 addr, const void *out,
			void *in, u32 len)
{
	struct ib_rdma_wr wr = {
		.wr.opcode = in ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE,
		.remote_addr = addr,
		.rkey = rkey,
	};
	enum ib_wc_status status;
	int rc;

	if (!READ_ONCE(s->live))
		return -ENOTCONN;
	rc = in ? cmkit_test_post_read_wait(s->qp, s->lkey, &wr.wr, in, len, &status) :
		  cmkit_test_post_wait(s->qp, s->lkey, &wr.wr, out, len, &status);
	if (!rc && status != IB_WC_SUCCESS)
		rc = -EIO;
	return rc;
}

/*
 * Where byte @pos of a chunk's data lies: its segment's index in @seg
 * (@n of them) and the bytes left in it from there, in *@left.  -1 past
 * the last.
 */
static int rpc_srv_seg_at(const struct cmkit_rpcrdma_seg *seg, u32 n, u32 pos, u32 *left,
			  u64 *addr)
{
	u32 i;

	for (i = 0; i < n; i++) {
		if (pos < seg[i].length) {
			*left = seg[i].length - pos;
			*addr = seg[i].offset + pos;
			return i;
		}
		pos -= seg[i].length;
	}
	return -1;
}

/*
 * Does the call advertise exactly one rkey (all its segments in one MR)?
 * Then, as svcrdma, the reply may invalidate it; with more, it cannot
 * invalidate them all, and sends a plain Send.
 */
static bool rpc_srv_one_rkey(const struct cmkit_rpcrdma_chunks *ch, u32 *rkey)
{
	const struct cmkit_rpcrdma_seg *segs[3] = { ch->read, ch->write, ch->reply };
	u32 n[3] = { ch->nr_read, ch->nr_write ? ch->write_segs : 0,
		     ch->has_reply ? ch->reply_segs : 0 }, i, j;
	bool any = false;

	for (i = 0; i < 3; i++)
		for (j = 0; j < n[i] && j < CMKIT_RPCRDMA_MAX_SEGS; j++) {
			if (any && segs[i][j].handle != *rkey)
				return false;
			*rkey = segs[i][j].handle;
			any = true;
		}
	return any;
}

/* The read chunk at the argument's position: its segments in @ch->read from *@first. */
static u32 rpc_srv_read_chunk(const struct cmkit_rpcrdma_chunks *ch, u32 *first)
{
	u32 i, n = 0;

	*first = 0;
	for (i = 0; i < ch->nr_read && i < CMKIT_RPCRDMA_MAX_SEGS; i++) {
		if (ch->read_pos[i] != CMKIT_RPCRDMA_RPC_CALL_LEN + 4)
			continue;
		if (!n)
			*first = i;
		n++;
	}
	return n;
}

/*
 * Serve one test-program call: its argument's bytes from the read chunk
 * (RDMA Read) or inline, its result's bytes into the write chunk (RDMA
 * Write) or inline, piece by piece.  A call whose chunks cannot carry
 * what it says is answered RDMA_ERROR ERR_CHUNK, as svcrdma answers one.
 */
/*
 * The segments a reply announces for a chunk the server wrote @len bytes
 * into: the offer's @n segments @offer echoed in @wrote, each with the
 * length it holds, as svcrdma announces them; the last one's length is
 * then made to lie as @action asks (the cases that check the client
 * refuses lengths that break its offer).  True if it was made longer.
 */
static bool rpc_srv_wrote(struct cmkit_rpcrdma_seg *wrote, const struct cmkit_rpcrdma_seg *offer,
			  u32 n, u32 len, enum cmkit_rpc_action action)
{
	u32 i;

	for (i = 0; i < n; i++) {
		wrote[i] = offer[i];
		wrote[i].length = min(len, offer[i].length);
		len -= wrote[i].length;
	}
	if (action == CMKIT_RPC_SRV_WRITE_LONGER) {
		wrote[n - 1].length += 4;
		return true;
	}
	if (action == CMKIT_RPC_SRV_WRITE_SHORTER)
		wrote[n - 1].length -= min(4U, wrote[n - 1].length);
	return false;
}

static void rpc_srv_serve(struct cmkit_rpc_srv *s, struct rpc_srv_reply *r, u8 *piece)
{
	struct rpc_srv_proc *p = r->proc;
	const struct cmkit_rpcrdma_chunks *ch = &p->ch;
	u32 len, seed = 0, off, rfirst = 0, rn, crc = CMKIT_CRC32C_SEED;
	bool echo = p->proc == CMKIT_RPC_TESTPROG_ECHO;
	bool fill = p->proc == CMKIT_RPC_TESTPROG_FILL;
	bool write = ch->nr_write && (echo || fill);
	u64 read_bytes = 0, written = 0;
	int rc = 0;

	p->served = true;
	if (p->args_len < (fill ? 8U : 4U))
		goto bad;
	len = cmkit_get_be32(p->args);
	if (fill)
		seed = cmkit_get_be32(p->args + 4);
	rn = fill ? 0 : rpc_srv_read_chunk(ch, &rfirst);
	if (rn && cmkit_rpcrdma_read_len(ch, CMKIT_RPCRDMA_RPC_CALL_LEN + 4) != len)
		goto bad;
	if (!rn && !fill && p->args_len < 4 + round_up(len, 4))
		goto bad;
	if (write && cmkit_rpcrdma_write_len(ch) < len)
		goto bad;
	if ((echo || fill) && !write && 4 + round_up(len, 4) > RPC_SRV_SEND_LEN - 128)
		goto bad;

	for (off = 0; !rc && off < len; ) {
		u32 n = min_t(u32, len - off, RPC_SRV_WRITE_LEN), left, i;
		u64 addr;

		if (rn) {
			int seg = rpc_srv_seg_at(&ch->read[rfirst], rn, off, &left, &addr);

			if (seg < 0)
				goto bad;
			n = min(n, left);
			rc = rpc_srv_rdma(s, ch->read[rfirst + seg].handle, addr, NULL, piece, n);
			read_bytes += n;
		} else if (fill) {
			for (i = 0; i < n; i++)
				piece[i] = cmkit_rpc_testprog_byte(seed, off + i);
		} else {
			memcpy(piece, p->args + 4 + off, n);
		}
		if (rc)
			break;
		if (p->proc == CMKIT_RPC_TESTPROG_SINK) {
			crc = cmkit_crc32c(crc, piece, n);
		} else if (write) {
			int seg = rpc_srv_seg_at(ch->write, ch->write_segs, off, &left, &addr);

			if (seg < 0)
				goto bad;
			n = min(n, left);
			rc = rpc_srv_rdma(s, ch->write[seg].handle, addr, piece, NULL, n);
			written += n;
		} else {
			memcpy(p->results + 4 + off, piece, n);
		}
		off += n;
	}
	spin_lock(&s->lock);
	s->counts.read_bytes += read_bytes;
	s->counts.written_bytes += written;
	s->counts.procs++;
	spin_unlock(&s->lock);
	if (rc) {
		/* The connection is broken: no reply. */
		rpc_srv_reply_free(r);
		return;
	}

	if (p->proc == CMKIT_RPC_TESTPROG_SINK) {
		cmkit_put_be32(p->results, len);
		cmkit_put_be32(p->results + 4, ~crc);
		p->results_len = 8;
	} else {
		cmkit_put_be32(p->results, len);
		p->results_len = 4;
		if (!write) {
			memset(p->results + 4 + len, 0, round_up(len, 4) - len);
			p->results_len += round_up(len, 4);
		}
	}
	if (write) {
		p->wrote.nr_write = 1;
		p->wrote.write_segs = ch->write_segs;
		/* A longer write chunk comes with a result that agrees with it. */
		if (rpc_srv_wrote(p->wrote.write, ch->write, ch->write_segs, len, r->action))
			cmkit_put_be32(p->results, len + 4);
	}
	p->send_inv = READ_ONCE(s->send_inv_ok) && rpc_srv_one_rkey(ch, &p->inv_rkey);
	rpc_srv_queue(s, r);
	return;

bad:
	p->err_chunk = true;
	rpc_srv_queue(s, r);
}

/*
 * Move @len bytes between @buf and the chunk @seg (@n segments) from its
 * start, piece by piece: RDMA Read into @buf if @read, else RDMA Write
 * from it.  0, -ERANGE if the chunk is shorter, or rpc_srv_rdma()'s errno.
 */
static int rpc_srv_move(struct cmkit_rpc_srv *s, const struct cmkit_rpcrdma_seg *seg, u32 n,
			u8 *buf, u32 len, bool read)
{
	u32 off, left, this;
	u64 addr;
	int i, rc = 0;

	for (off = 0; !rc && off < len; off += this) {
		i = rpc_srv_seg_at(seg, n, off, &left, &addr);
		if (i < 0)
			return -ERANGE;
		this = min3(len - off, left, RPC_SRV_WRITE_LEN);
		rc = rpc_srv_rdma(s, seg[i].handle, addr, read ? NULL : buf + off,
				  read ? buf + off : NULL, this);
	}
	return rc;
}

/* The largest whole message the server takes in or gives out through a chunk. */
#define RPC_SRV_MSG_MAX		((1U << 20) + PAGE_SIZE)

/*
 * The whole RPC call of an RDMA_NOMSG call, RDMA-read from its position-zero
 * chunk into *@msg (the caller frees it) and decoded into @call: 0, -EIO
 * for a broken connection, -EINVAL for what cannot be served.
 */
static int rpc_srv_read_nomsg(struct cmkit_rpc_srv *s, struct rpc_srv_reply *r, u8 **msg,
			      struct cmkit_rpcrdma_call *call)
{
	const struct cmkit_rpcrdma_chunks *ch = &r->proc->ch;
	u32 len = cmkit_rpcrdma_read_len(ch, 0), n = 0;
	int rc;

	/* Position-zero segments come first: positions ascend. */
	while (n < ch->nr_read && n < CMKIT_RPCRDMA_MAX_SEGS && !ch->read_pos[n])
		n++;
	if (!n || len > RPC_SRV_MSG_MAX)
		return -EINVAL;
	*msg = kvmalloc(len, GFP_KERNEL);
	if (!*msg)
		return -EINVAL;
	rc = rpc_srv_move(s, ch->read, n, *msg, len, true);
	if (rc)
		return rc == -ERANGE ? -EINVAL : -EIO;
	spin_lock(&s->lock);
	s->counts.read_bytes += len;
	s->counts.nomsg_calls++;
	spin_unlock(&s->lock);
	*call = (struct cmkit_rpcrdma_call){ };
	call->hdr.rdma_xid = r->xid;
	if (cmkit_rpcrdma_decode_rpc_call(*msg, len, call) != CMKIT_RPCRDMA_OK)
		return -EINVAL;
	/* Chunks past position zero (data of this message) are not served here. */
	return n < ch->nr_read ? -EINVAL : 0;
}

/*
 * Serve MIRROR: its argument inline, or in the whole call an RDMA_NOMSG
 * call carried in its position-zero chunk; its reply inline, or, when the
 * call offered a reply chunk, written whole there and announced RDMA_NOMSG
 * (svcrdma uses an offered reply chunk for any reply).  A reply that fits
 * neither is answered RDMA_ERROR ERR_CHUNK, as svcrdma answers one.  Other
 * procedures in a position-zero chunk are not served here: cmkit sends
 * only MIRROR that way.
 */
static void rpc_srv_mirror(struct cmkit_rpc_srv *s, struct rpc_srv_reply *r)
{
	struct rpc_srv_proc *p = r->proc;
	const struct cmkit_rpcrdma_chunks *ch = &p->ch;
	struct cmkit_rpcrdma_reply rep = { };
	struct cmkit_rpcrdma_call call;
	u8 *msg = NULL, *res = NULL, *out = NULL;
	const u8 *args = p->args;
	u32 args_len = p->args_len, len, res_len, out_len;
	int rc = 0;

	p->served = true;
	if (p->nomsg) {
		rc = rpc_srv_read_nomsg(s, r, &msg, &call);
		if (rc == -EIO)
			goto broken;
		if (rc || !rpc_srv_is_proc(&call) || call.proc != CMKIT_RPC_TESTPROG_MIRROR)
			goto bad;
		args = call.args;
		args_len = call.args_len;
	}
	if (args_len < 4)
		goto bad;
	len = cmkit_get_be32(args);
	if (len > args_len - 4)
		goto bad;
	res_len = 4 + round_up(len, 4);
	res = kvzalloc(res_len, GFP_KERNEL);
	if (!res)
		goto bad;
	memcpy(res, args, 4 + len);

	if (!ch->has_reply) {
		if (res_len > RPC_SRV_SEND_LEN - 128)
			goto bad;
		memcpy(p->results, res, res_len);
		p->results_len = res_len;
		goto done;
	}
	out_len = CMKIT_RPCRDMA_RPC_REPLY_LEN + res_len;
	out = kvmalloc(out_len, GFP_KERNEL);
	if (!out || out_len > cmkit_rpcrdma_reply_len(ch))
		goto bad;
	rep.hdr.rdma_xid = r->xid;
	rep.reply_stat = CMKIT_RPC_MSG_ACCEPTED;
	rep.verf_flavor = CMKIT_RPC_AUTH_NONE;
	rep.accept_stat = CMKIT_RPC_SUCCESS;
	if (cmkit_rpcrdma_encode_rpc_reply(out, out_len, &rep, res, res_len) != out_len)
		goto bad;
	rc = rpc_srv_move(s, ch->reply, ch->reply_segs, out, out_len, false);
	if (rc)
		goto broken;
	p->nomsg_reply = true;
	p->wrote.has_reply = 1;
	p->wrote.reply_segs = ch->reply_segs;
	rpc_srv_wrote(p->wrote.reply, ch->reply, ch->reply_segs, out_len, r->action);
	spin_lock(&s->lock);
	s->counts.written_bytes += out_len;
	s->counts.reply_chunks++;
	spin_unlock(&s->lock);
done:
	spin_lock(&s->lock);
	s->counts.procs++;
	spin_unlock(&s->lock);
	p->send_inv = READ_ONCE(s->send_inv_ok) && rpc_srv_one_rkey(ch, &p->inv_rkey);
	rpc_srv_queue(s, r);
	goto out;

broken:
	/* The connection is broken: no reply. */
	rpc_srv_reply_free(r);
	goto out;
bad:
	p->err_chunk = true;
	rpc_srv_queue(s, r);
out:
	kvfree(out);
	kvfree(res);
	kvfree(msg);
}

static void rpc_srv_proc_work(struct work_struct *work)
{
	struct cmkit_rpc_srv *s = container_of(work, struct cmkit_rpc_srv, proc_work);
	struct rpc_srv_reply *r;
	u8 *piece = kmalloc(RPC_SRV_WRITE_LEN, GFP_KERNEL);

	for (;;) {
		spin_lock(&s->lock);
		r = list_first_entry_or_null(&s->procs, struct rpc_srv_reply, list);
		if (r)
			list_del(&r->list);
		spin_unlock(&s->lock);
		if (!r)
			break;
		if (!piece) {
			/* No memory to serve it: answered as a server in trouble would. */
			r->proc->served = true;
			r->proc->err_chunk = true;
			rpc_srv_queue(s, r);
			continue;
		}
		if (r->proc->nomsg || r->proc->proc == CMKIT_RPC_TESTPROG_MIRROR)
			rpc_srv_mirror(s, r);
		else
			rpc_srv_serve(s, r, piece);
	}
	kfree(piece);
}

static void rpc_srv_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rpc_srv_buf *b = container_of(wc->wr_cqe, struct rpc_srv_buf, cqe);
	struct cmkit_rpc_srv *s = b->srv;
	struct rpc_srv_reply *r, *extra = NULL;
	struct cmkit_rpcrdma_call call;
	enum cmkit_rpc_action action;
	u32 n, allowed, out;
	int rc;

	if (wc->status != IB_WC_SUCCESS) {
		spin_lock(&s->lock);
		s->counts.recv_flushed++;
		spin_unlock(&s->lock);
		wake_up_all(&s->wait);
		return;
	}
	ib_dma_sync_single_for_cpu(s->dev, b->dma, RPC_SRV_RECV_LEN, DMA_FROM_DEVICE);
	r = kzalloc_obj(*r, GFP_KERNEL);
	rc = cmkit_rpcrdma_decode_call(b->data, wc->byte_len, &call);
	/* Chunk lists, or RDMA_NOMSG (a call in its position-zero chunk). */
	if ((rc == CMKIT_RPCRDMA_E_CHUNKS || rc == CMKIT_RPCRDMA_E_PROC) && r)
		rc = rpc_srv_decode_proc(b->data, wc->byte_len, &call, r);
	/* Its arguments copied before the buffer takes the next call. */
	if (rc == CMKIT_RPCRDMA_OK && r && rpc_srv_is_proc(&call) && rpc_srv_proc_args(r, &call))
		rc = CMKIT_RPCRDMA_E_ARG;

	spin_lock(&s->lock);
	if (rc != CMKIT_RPCRDMA_OK || !r) {
		s->counts.bad_calls++;
		rpc_srv_post_recv(s, b);
		spin_unlock(&s->lock);
		rpc_srv_reply_free(r);
		wake_up_all(&s->wait);
		return;
	}
	n = ++s->conn_calls;
	s->counts.calls++;
	/* Until our first reply the client may assume one credit (RFC 8166). */
	allowed = s->conn_replied ? cmkit_rpcrdma_credit_limit(s->grant, call.hdr.rdma_credit) : 1;
	out = n - s->conn_replied;
	if (out > allowed)
		s->counts.overruns++;
	s->counts.max_outstanding = max(s->counts.max_outstanding, out);
	s->counts.last_xid = call.xid;
	if (s->nr_xids < RPC_SRV_XIDS)
		s->xids[s->nr_xids] = call.xid;
	s->nr_xids++;
	s->counts.last_prog = call.prog;
	s->counts.last_vers = call.vers;
	s->counts.last_credit = call.hdr.rdma_credit;
	action = rpc_srv_chosen(s, n) ? s->action : CMKIT_RPC_SRV_ANSWER;
	if (action == CMKIT_RPC_SRV_DROP)
		s->counts.dropped++;
	/* The call is decoded: its buffer can take the next one. */
	rpc_srv_post_recv(s, b);
	spin_unlock(&s->lock);

	if (action == CMKIT_RPC_SRV_DROP) {
		rpc_srv_reply_free(r);
		wake_up_all(&s->wait);
		return;
	}
	r->xid = call.xid;
	r->action = action;
	if (r->proc && (action == CMKIT_RPC_SRV_ANSWER || action == CMKIT_RPC_SRV_WRITE_LONGER ||
			action == CMKIT_RPC_SRV_WRITE_SHORTER)) {
		spin_lock(&s->lock);
		list_add_tail(&r->list, &s->procs);
		spin_unlock(&s->lock);
		queue_work(system_unbound_wq, &s->proc_work);
		return;
	}
	if (action == CMKIT_RPC_SRV_EXTRA_UNKNOWN) {
		extra = kmemdup(r, sizeof(*r), GFP_KERNEL);
		if (extra) {
			extra->extra = true;
			rpc_srv_queue(s, extra);
		}
	}
	rpc_srv_queue(s, r);
}

static void rpc_srv_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rpc_srv_buf *b = container_of(wc->wr_cqe, struct rpc_srv_buf, cqe);
	struct cmkit_rpc_srv *s = b->srv;
	struct rpc_srv_reply *r;

	spin_lock(&s->lock);
	list_add(&b->list, &s->free_sends);
	s->counts.sends_done++;
	if (wc->status != IB_WC_SUCCESS)
		s->counts.send_errors++;
	r = s->live ? list_first_entry_or_null(&s->backlog, struct rpc_srv_reply, list) : NULL;
	if (r)
		list_del(&r->list);
	spin_unlock(&s->lock);
	wake_up_all(&s->wait);
	if (r)
		rpc_srv_send(s, r);
}

static void rpc_srv_unmap(struct cmkit_rpc_srv *s, struct rpc_srv_buf *b, size_t len)
{
	if (!b->mapped)
		return;
	ib_dma_unmap_single(s->dev, b->dma, len, b->dir);
	b->mapped = false;
}

static int rpc_srv_map(struct cmkit_rpc_srv *s, struct rpc_srv_buf *b, size_t len)
{
	b->dma = ib_dma_map_single(s->dev, b->data, len, b->dir);
	if (ib_dma_mapping_error(s->dev, b->dma))
		return -EIO;
	b->mapped = true;
	return 0;
}

static void rpc_srv_free_list(struct list_head *list)
{
	struct rpc_srv_reply *r, *tmp;

	list_for_each_entry_safe(r, tmp, list, list) {
		list_del(&r->list);
		rpc_srv_reply_free(r);
	}
}

/*
 * The client's RFC 8797 message, in the CONNECT_REQUEST the peer recorded
 * last (before its handler made this QP): may replies invalidate?
 */
static bool rpc_srv_client_inv_ok(struct cmkit_rpc_srv *s)
{
	struct cmkit_peer *p = s->peer;
	struct cmkit_rpcrdma_cmp cmp;
	bool ok = false;
	int i;

	spin_lock(&p->lock);
	for (i = (int)p->nr - 1; i >= 0; i--) {
		const struct cmkit_cm_record *r = &p->rec[i];

		if (r->event != RDMA_CM_EVENT_CONNECT_REQUEST)
			continue;
		ok = cmkit_rpcrdma_cmp_decode(r->pdata, r->pdata_len, &cmp) == 1 &&
		     (cmp.flags & CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK);
		break;
	}
	spin_unlock(&p->lock);
	return ok;
}

/**
 * cmkit_rpc_srv_create_qp - the QP of a server's accepted connection
 * @s: the server
 * @id: the accepted (child) id
 * @pd: the peer's PD on its device
 *
 * Creates a CQ and a QP, maps the buffers and posts every Receive, so the
 * client's first call finds one.
 *
 * Return: 0, or a negative errno with nothing left behind.
 */
int cmkit_rpc_srv_create_qp(struct cmkit_rpc_srv *s, struct rdma_cm_id *id, struct ib_pd *pd)
{
	struct ib_qp_init_attr attr = {
		.cap = {
			.max_send_wr = RPC_SRV_SENDS + 2,	/* and one RDMA Write */
			.max_recv_wr = RPC_SRV_RECVS + 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	bool inv_ok;
	int i, rc;

	s->cq = ib_alloc_cq(id->device, s, RPC_SRV_RECVS + RPC_SRV_SENDS + 2, 0,
			    IB_POLL_WORKQUEUE);
	if (IS_ERR(s->cq)) {
		rc = PTR_ERR(s->cq);
		s->cq = NULL;
		return rc;
	}
	attr.send_cq = s->cq;
	attr.recv_cq = s->cq;
	rc = rdma_create_qp(id, pd, &attr);
	if (rc) {
		ib_free_cq(s->cq);
		s->cq = NULL;
		return rc;
	}
	s->dev = id->device;
	s->qp = id->qp;
	s->lkey = pd->local_dma_lkey;
	INIT_LIST_HEAD(&s->free_sends);
	for (i = 0; i < RPC_SRV_SENDS; i++) {
		rc = rpc_srv_map(s, &s->send[i], RPC_SRV_SEND_LEN);
		if (rc)
			goto out;
		list_add_tail(&s->send[i].list, &s->free_sends);
	}
	for (i = 0; i < RPC_SRV_RECVS; i++) {
		rc = rpc_srv_map(s, &s->recv[i], RPC_SRV_RECV_LEN);
		if (rc)
			goto out;
	}
	inv_ok = rpc_srv_client_inv_ok(s);
	spin_lock(&s->lock);
	s->conn_calls = 0;
	s->conn_replied = 0;
	s->send_inv_ok = inv_ok && !s->no_send_inv;
	s->live = true;
	for (i = 0; i < RPC_SRV_RECVS && !rc; i++)
		rc = rpc_srv_post_recv(s, &s->recv[i]);
	spin_unlock(&s->lock);
	if (!rc)
		return 0;
out:
	cmkit_rpc_srv_destroy_qp(s, id);
	return rc;
}

/**
 * cmkit_rpc_srv_destroy_qp - tear a server's connection down
 * @s: the server
 * @id: the id whose QP cmkit_rpc_srv_create_qp() made
 *
 * No post after this starts; every posted request completes (flushed)
 * before the QP and CQ are destroyed and the buffers unmapped.  Replies
 * still held or waiting are dropped.
 */
void cmkit_rpc_srv_destroy_qp(struct cmkit_rpc_srv *s, struct rdma_cm_id *id)
{
	LIST_HEAD(drop);
	int i;

	spin_lock(&s->lock);
	s->live = false;
	list_splice_init(&s->held, &drop);
	list_splice_init(&s->backlog, &drop);
	s->counts.held = 0;
	spin_unlock(&s->lock);
	if (id->qp) {
		/* The drain flushes what the work posted; then it has nothing left to post. */
		ib_drain_qp(id->qp);
		flush_work(&s->proc_work);
		rdma_destroy_qp(id);
	}
	spin_lock(&s->lock);
	list_splice_init(&s->procs, &drop);
	list_splice_init(&s->held, &drop);
	list_splice_init(&s->backlog, &drop);
	spin_unlock(&s->lock);
	if (s->cq)
		ib_free_cq(s->cq);
	s->cq = NULL;
	s->qp = NULL;
	for (i = 0; i < RPC_SRV_RECVS; i++)
		rpc_srv_unmap(s, &s->recv[i], RPC_SRV_RECV_LEN);
	for (i = 0; i < RPC_SRV_SENDS; i++)
		rpc_srv_unmap(s, &s->send[i], RPC_SRV_SEND_LEN);
	rpc_srv_free_list(&drop);
	wake_up_all(&s->wait);
}

/**
 * cmkit_rpc_srv_free - free a server (its peer is being freed)
 * @s: the server, whose connection is torn down
 */
void cmkit_rpc_srv_free(struct cmkit_rpc_srv *s)
{
	int i;

	for (i = 0; i < RPC_SRV_RECVS; i++)
		kfree(s->recv[i].data);
	for (i = 0; i < RPC_SRV_SENDS; i++)
		kfree(s->send[i].data);
	cancel_work_sync(&s->proc_work);
	rpc_srv_free_list(&s->procs);
	rpc_srv_free_list(&s->held);
	rpc_srv_free_list(&s->backlog);
	kfree(s);
}

static int rpc_srv_bufs_init(struct cmkit_rpc_srv *s, struct rpc_srv_buf *b, int n,
			     size_t len, enum dma_data_direction dir,
			     void (*done)(struct ib_cq *cq, struct ib_wc *wc))
{
	int i;

	for (i = 0; i < n; i++) {
		b[i].srv = s;
		b[i].dir = dir;
		b[i].cqe.done = done;
		INIT_LIST_HEAD(&b[i].list);
		b[i].data = kzalloc(len, GFP_KERNEL);
		if (!b[i].data)
			return -ENOMEM;
	}
	return 0;
}

/**
 * cmkit_rpc_srv_attach - make a test peer an RPC-over-RDMA server
 * @test: the running test
 * @srv: a peer not yet listening
 *
 * Freed with the peer.  Answers every call MSG_ACCEPTED SUCCESS granting
 * 32 credits until told otherwise.
 *
 * Return: the server; allocation failure aborts the test.
 */
struct cmkit_rpc_srv *cmkit_rpc_srv_attach(struct kunit *test, struct cmkit_peer *srv)
{
	struct cmkit_rpc_srv *s = kzalloc(sizeof(*s), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	s->peer = srv;
	spin_lock_init(&s->lock);
	init_waitqueue_head(&s->wait);
	INIT_LIST_HEAD(&s->free_sends);
	INIT_LIST_HEAD(&s->held);
	INIT_LIST_HEAD(&s->backlog);
	INIT_LIST_HEAD(&s->procs);
	INIT_WORK(&s->proc_work, rpc_srv_proc_work);
	s->grant = RPC_SRV_DEFAULT_GRANT;
	s->action = CMKIT_RPC_SRV_ANSWER;
	if (rpc_srv_bufs_init(s, s->recv, RPC_SRV_RECVS, RPC_SRV_RECV_LEN, DMA_FROM_DEVICE,
			      rpc_srv_recv_done) ||
	    rpc_srv_bufs_init(s, s->send, RPC_SRV_SENDS, RPC_SRV_SEND_LEN, DMA_TO_DEVICE,
			      rpc_srv_send_done)) {
		cmkit_rpc_srv_free(s);
		KUNIT_ASSERT_TRUE_MSG(test, false, "no memory for the RPC server's buffers");
	}
	srv->rpc = s;
	return s;
}

/**
 * cmkit_rpc_srv_set - answer some calls of each connection otherwise
 * @s: the server
 * @action: how
 * @first: the first such call of a connection, 1-based
 * @count: how many from @first (0: every one)
 */
void cmkit_rpc_srv_set(struct cmkit_rpc_srv *s, enum cmkit_rpc_action action, u32 first,
		       u32 count)
{
	spin_lock(&s->lock);
	s->action = action;
	s->action_first = first;
	s->action_count = count;
	spin_unlock(&s->lock);
}

/**
 * cmkit_rpc_srv_grant - the credits every reply grants from now on
 * @s: the server
 * @grant: rdma_credit of each reply (0 and huge values included)
 */
void cmkit_rpc_srv_grant(struct cmkit_rpc_srv *s, u32 grant)
{
	spin_lock(&s->lock);
	s->grant = grant;
	spin_unlock(&s->lock);
}

/**
 * cmkit_rpc_srv_hold - hold every reply from now on
 * @s: the server
 */
void cmkit_rpc_srv_hold(struct cmkit_rpc_srv *s)
{
	spin_lock(&s->lock);
	s->hold = true;
	spin_unlock(&s->lock);
}

/* Send every reply of @list, taken off the held list: how many. */
static unsigned int rpc_srv_send_list(struct cmkit_rpc_srv *s, struct list_head *list)
{
	struct rpc_srv_reply *r, *tmp;
	unsigned int n = 0;

	list_for_each_entry_safe(r, tmp, list, list) {
		list_del(&r->list);
		rpc_srv_send(s, r);
		n++;
	}
	return n;
}

/**
 * cmkit_rpc_srv_release - stop holding, and send the held replies in order
 * @s: the server
 *
 * Return: how many replies were held (sent, if the connection still was).
 */
unsigned int cmkit_rpc_srv_release(struct cmkit_rpc_srv *s)
{
	LIST_HEAD(held);

	spin_lock(&s->lock);
	s->hold = false;
	list_splice_init(&s->held, &held);
	s->counts.held = 0;
	spin_unlock(&s->lock);
	return rpc_srv_send_list(s, &held);
}

/* Take the oldest (or newest) held reply and send it; 1 if one was held. */
static unsigned int rpc_srv_release_end(struct cmkit_rpc_srv *s, bool newest)
{
	struct rpc_srv_reply *r = NULL;

	spin_lock(&s->lock);
	if (!list_empty(&s->held)) {
		r = newest ? list_last_entry(&s->held, struct rpc_srv_reply, list) :
			list_first_entry(&s->held, struct rpc_srv_reply, list);
		list_del(&r->list);
		s->counts.held--;
	}
	spin_unlock(&s->lock);
	if (!r)
		return 0;
	rpc_srv_send(s, r);
	return 1;
}

/**
 * cmkit_rpc_srv_release_one - send the oldest held reply, keep holding the rest
 * @s: the server
 *
 * Return: 1 if a reply was held (and sent, if the connection still was), else 0.
 */
unsigned int cmkit_rpc_srv_release_one(struct cmkit_rpc_srv *s)
{
	return rpc_srv_release_end(s, false);
}

/**
 * cmkit_rpc_srv_release_newest - send the newest held reply, keep holding the rest
 * @s: the server
 *
 * Return: 1 if a reply was held (and sent, if the connection still was), else 0.
 */
unsigned int cmkit_rpc_srv_release_newest(struct cmkit_rpc_srv *s)
{
	return rpc_srv_release_end(s, true);
}

/**
 * cmkit_rpc_srv_release_all_but_oldest - send every held reply but the oldest
 * @s: the server
 *
 * The oldest held reply, and every reply from now on, stay held.
 *
 * Return: how many replies were sent (if the connection still was).
 */
unsigned int cmkit_rpc_srv_release_all_but_oldest(struct cmkit_rpc_srv *s)
{
	struct rpc_srv_reply *r;
	LIST_HEAD(held);

	spin_lock(&s->lock);
	r = list_first_entry_or_null(&s->held, struct rpc_srv_reply, list);
	if (r) {
		list_splice_init(&s->held, &held);
		list_move(&r->list, &s->held);
		s->counts.held = 1;
	}
	spin_unlock(&s->lock);
	return rpc_srv_send_list(s, &held);
}

/**
 * cmkit_rpc_srv_rdma_write - RDMA Write the test program's FILL data to the client
 * @s: the server, connected
 * @rkey: the client's rkey
 * @addr: the address it names
 * @len: bytes: cmkit_rpc_testprog_byte(@seed, i) for i in 0..@len-1
 * @seed: the pattern's seed
 *
 * In writes of at most 64 KiB, each waited for.
 *
 * Return: 0; -EIO if a write completed in error (the connection is then
 * broken); -ENOTCONN; -ENOMEM; -ETIMEDOUT if a write never completed (the
 * QP is then moved to the error state).
 */
int cmkit_rpc_srv_rdma_write(struct cmkit_rpc_srv *s, u32 rkey, u64 addr, u32 len, u32 seed)
{
	u8 *data = kmalloc(RPC_SRV_WRITE_LEN, GFP_KERNEL);
	u32 off = 0, i;
	int rc = 0;

	if (!data)
		return -ENOMEM;
	while (!rc && off < len) {
		u32 this = min(len - off, RPC_SRV_WRITE_LEN);

		for (i = 0; i < this; i++)
			data[i] = cmkit_rpc_testprog_byte(seed, off + i);
		rc = rpc_srv_rdma(s, rkey, addr + off, data, NULL, this);
		off += this;
	}
	kfree(data);
	return rc;
}

/**
 * cmkit_rpc_srv_no_send_inv - never reply with Send With Invalidate
 * @s: the server, before the client connects
 *
 * As a server that ignores the client's RFC 8797 Remote Invalidation bit:
 * the client fences every MR itself.
 */
void cmkit_rpc_srv_no_send_inv(struct cmkit_rpc_srv *s)
{
	spin_lock(&s->lock);
	s->no_send_inv = true;
	spin_unlock(&s->lock);
}

/**
 * cmkit_rpc_srv_counts - a snapshot of what the server saw and did
 * @s: the server
 *
 * Return: the counts.
 */
struct cmkit_rpc_counts cmkit_rpc_srv_counts(struct cmkit_rpc_srv *s)
{
	struct cmkit_rpc_counts c;

	spin_lock(&s->lock);
	c = s->counts;
	spin_unlock(&s->lock);
	return c;
}

/**
 * cmkit_rpc_srv_wait_calls - wait until the server has received @calls calls
 * @s: the server
 * @calls: over all its connections
 *
 * Return: 0, or -ETIMEDOUT after cmkit_test_timeout().
 */
int cmkit_rpc_srv_wait_calls(struct cmkit_rpc_srv *s, unsigned int calls)
{
	return wait_event_timeout(s->wait, cmkit_rpc_srv_counts(s).calls >= calls,
				  cmkit_test_timeout()) ? 0 : -ETIMEDOUT;
}

/**
 * cmkit_rpc_srv_wait_sends - wait until @sends of the server's Sends have completed
 * @s: the server
 * @sends: Send completions, successful or not, over all its connections
 *
 * Return: 0, or -ETIMEDOUT after cmkit_test_timeout().
 */
int cmkit_rpc_srv_wait_sends(struct cmkit_rpc_srv *s, unsigned int sends)
{
	return wait_event_timeout(s->wait, cmkit_rpc_srv_counts(s).sends_done >= sends,
				  cmkit_test_timeout()) ? 0 : -ETIMEDOUT;
}

/**
 * cmkit_rpc_srv_wait_held - wait until the server holds @held replies
 * @s: the server
 * @held: replies held
 *
 * Return: 0, or -ETIMEDOUT after cmkit_test_timeout().
 */
int cmkit_rpc_srv_wait_held(struct cmkit_rpc_srv *s, unsigned int held)
{
	return wait_event_timeout(s->wait, cmkit_rpc_srv_counts(s).held >= held,
				  cmkit_test_timeout()) ? 0 : -ETIMEDOUT;
}

/**
 * cmkit_rpc_srv_xids - the xids of the calls a server received, in order
 * @s: the server
 * @xids: room for @max of them
 * @max: how many to copy at most
 *
 * Return: how many calls the server received over all its connections
 * (the first RPC_SRV_XIDS are recorded).
 */
unsigned int cmkit_rpc_srv_xids(struct cmkit_rpc_srv *s, u32 *xids, unsigned int max)
{
	unsigned int n;

	spin_lock(&s->lock);
	n = s->nr_xids;
	memcpy(xids, s->xids, min3(n, max, (unsigned int)RPC_SRV_XIDS) * sizeof(*xids));
	spin_unlock(&s->lock);
	return n;
}
