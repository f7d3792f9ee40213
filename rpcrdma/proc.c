// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit rpcrdma: calls of cmkit's RPC test program (include/cmkit/rpc_testprog.h)
 * with their bulk data in chunks, after net/sunrpc/xprtrdma/rpc_rdma.c's
 * rpcrdma_marshal_req() and the reply handler's chunk checks.
 *
 * A call
 *  1. decides how its arguments and its reply travel
 *     (cmkit_rpcrdma_choose(), the connection's inline sizes): inline, or
 *     the bulk argument (ECHO's and SINK's data) in a read chunk, the bulk
 *     result (ECHO's and FILL's data) in a write chunk;
 *  2. maps the caller's pages for each chunk (one MR each, FRWR), and
 *     posts their registrations in one chain with the call's Send;
 *  3. is sent and waited for as a NULL call is (cmkit_rpcrdma_call_one());
 *     lost with its connection, it is sent again on the next one with its
 *     xid, its chunks mapped again into that connection's MRs
 *     (rpcrdma/reconnect.c);
 *  4. checks the reply's lists against what it offered
 *     (cmkit_rpcrdma_check_reply_chunks()) and the write chunk's length
 *     against the result's own, so a server's bad length is refused, never
 *     followed;
 *  5. fences its MRs before it reads the result, whatever the call's end:
 *     the one the server invalidated with its Send With Invalidate (RFC
 *     8797, advertised at connect) is put as it is, the others get
 *     LOCAL_INV; the server can no longer reach the pages.
 *
 * MIRROR's data is not DDP-eligible: a MIRROR call that does not fit
 * inline goes whole, its RPC call with its xid, in a position-zero read
 * chunk (RDMA_NOMSG), and a reply that may not fit inline is offered the
 * reply chunk, into which the server writes the whole RPC reply and which
 * is decoded once its MR is fenced.
 */
#define pr_fmt(fmt) "cmkit: rpcrdma: " fmt

#include <linux/highmem.h>
#include <linux/slab.h>

#include <cmkit/rpc_testprog.h>

#include "core/cmkit.h"
#include "rpcrdma/rpcrdma.h"
#include "rpcrdma/trace.h"

/*
 * The room kept for the transport header: the longest one a call of the
 * test program sends, a read list of one entry and a write list of one
 * one-segment chunk, and an empty reply chunk (76 bytes).
 */
#define RPCRDMA_PROC_HDR_LEN						\
	(CMKIT_RPCRDMA_FIXED_LEN + CMKIT_RPCRDMA_READ_ENTRY_LEN + 4 +	\
	 8 + CMKIT_RPCRDMA_SEG_LEN + 4 + 4)

/* The position of an opaque<> argument's bytes: after the RPC call header and the length. */
#define RPCRDMA_PROC_BULK_POS		(CMKIT_RPCRDMA_RPC_CALL_LEN + 4)

static u32 rpcrdma_xdr_pad(u32 len)
{
	return round_up(len, 4);
}

/* Copy @len bytes between @pages and @buf: to the pages if @to_pages. */
static void rpcrdma_pages_copy(struct page **pages, void *buf, u32 len, bool to_pages)
{
	u32 off = 0;

	while (off < len) {
		u32 n = min_t(u32, len - off, PAGE_SIZE);

		if (to_pages)
			memcpy_to_page(pages[off / PAGE_SIZE], 0, buf + off, n);
		else
			memcpy_from_page(buf + off, pages[off / PAGE_SIZE], 0, n);
		off += n;
	}
}

/* Copy @len bytes from @src at byte @soff to @dst at byte @doff. */
static void rpcrdma_pages_move(struct page **dst, u32 doff, struct page **src, u32 soff, u32 len)
{
	while (len) {
		u32 n = min_t(u32, len, PAGE_SIZE - offset_in_page(doff));

		n = min_t(u32, n, PAGE_SIZE - offset_in_page(soff));
		memcpy_page(dst[doff / PAGE_SIZE], offset_in_page(doff), src[soff / PAGE_SIZE],
			    offset_in_page(soff), n);
		doff += n;
		soff += n;
		len -= n;
	}
}

/*
 * Pages an MR maps for a whole RPC message: the call of a position-zero
 * read chunk, or the reply chunk.
 */
struct rpcrdma_proc_buf {
	struct page **pages;
	u32 nr;
};

static void rpcrdma_proc_buf_free(struct rpcrdma_proc_buf *b)
{
	u32 i;

	for (i = 0; i < b->nr; i++)
		__free_page(b->pages[i]);
	kfree(b->pages);
	b->pages = NULL;
	b->nr = 0;
}

static int rpcrdma_proc_buf_alloc(struct rpcrdma_proc_buf *b, u32 len)
{
	u32 n = DIV_ROUND_UP(len, PAGE_SIZE);

	b->pages = kcalloc(n, sizeof(*b->pages), GFP_KERNEL);
	if (!b->pages)
		return -ENOMEM;
	for (b->nr = 0; b->nr < n; b->nr++) {
		b->pages[b->nr] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!b->pages[b->nr]) {
			rpcrdma_proc_buf_free(b);
			return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Offer @len bytes of @pages in @seg: one MR maps them
 * (cmkit_rpcrdma_msg_map()), again on each connection the call is sent on.
 */
static void rpcrdma_proc_seg(struct rpcrdma_msg *msg, struct page **pages, u32 len,
			     bool writing, struct cmkit_rpcrdma_seg *seg)
{
	struct rpcrdma_mr_seg *s = &msg->segs[msg->nr_segs++];

	s->pages = pages;
	s->len = len;
	s->writing = writing;
	s->seg = seg;
}

/* What the call's arguments and its largest reply are, and their bulk parts. */
/*
 * The connection's limits for a call: its inline sizes (each pointer may
 * be NULL) and the bytes one MR maps.  -ENOTCONN unless connected.
 */
static int rpcrdma_ep_limits(struct rpcrdma_xprt *r_xprt, u32 *inline_send, u32 *inline_recv,
			     u32 *max_mr)
{
	struct rpcrdma_ep *ep;

	mutex_lock(&r_xprt->rx_lock);
	ep = r_xprt->rx_ep;
	if (!ep || rpcrdma_ep_status(ep) != 1) {
		mutex_unlock(&r_xprt->rx_lock);
		return -ENOTCONN;
	}
	if (inline_send)
		*inline_send = ep->re_inline_send;
	if (inline_recv)
		*inline_recv = ep->re_inline_recv;
	*max_mr = ep->re_max_fr_depth * PAGE_SIZE;
	mutex_unlock(&r_xprt->rx_lock);
	return 0;
}

/*
 * Fence a call's MRs before anything of its reply is read, whatever the
 * call's end (@rc): the MR the server invalidated with its reply is put as
 * it is, the rest by LOCAL_INV; a call never sent (no @req) never posted
 * its registrations either.  An rkey the call did not advertise fences
 * nothing and refuses the reply (-EPROTO).  Returns @rc, else the fence's
 * errno: 0 only if the results may be read.
 */
static int rpcrdma_fence(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req,
			 struct list_head *mrs, int rc)
{
	int inv;

	if (req && req->rl_reply && req->rl_reply->rr_remote_inv &&
	    !cmkit_rpcrdma_frwr_remote_inv(mrs, req->rl_reply->rr_inv_rkey) && !rc)
		rc = -EPROTO;
	if (!req)
		cmkit_rpcrdma_msg_unmap(mrs);
	inv = cmkit_rpcrdma_frwr_unmap_sync(r_xprt, mrs);
	return rc ?: inv;
}

static int rpcrdma_proc_sizes(const struct cmkit_rpcrdma_proc *p, u32 *call_len, u32 *bulk_arg,
			      u32 *reply_len, u32 *bulk_res)
{
	switch (p->proc) {
	case CMKIT_RPC_TESTPROG_ECHO:
		*bulk_arg = p->arg_len;
		*bulk_res = p->arg_len;
		*reply_len = CMKIT_RPCRDMA_RPC_REPLY_LEN + 4 + rpcrdma_xdr_pad(p->arg_len);
		break;
	case CMKIT_RPC_TESTPROG_SINK:
		*bulk_arg = p->arg_len;
		*bulk_res = 0;
		*reply_len = CMKIT_RPCRDMA_RPC_REPLY_LEN + 8;
		break;
	case CMKIT_RPC_TESTPROG_MIRROR:
		/* Nothing DDP-eligible: inline, or the whole message in a chunk. */
		*bulk_arg = 0;
		*bulk_res = 0;
		*reply_len = CMKIT_RPCRDMA_RPC_REPLY_LEN + 4 + rpcrdma_xdr_pad(p->arg_len);
		break;
	case CMKIT_RPC_TESTPROG_FILL:
		*bulk_arg = 0;
		*bulk_res = p->fill_len;
		*reply_len = CMKIT_RPCRDMA_RPC_REPLY_LEN + 4 + rpcrdma_xdr_pad(p->fill_len);
		*call_len = CMKIT_RPCRDMA_RPC_CALL_LEN + 8;
		return 0;
	default:
		return -EINVAL;
	}
	if (p->arg_len % 4)
		return -EINVAL;
	*call_len = CMKIT_RPCRDMA_RPC_CALL_LEN + 4 + p->arg_len;
	return 0;
}

/*
 * The call's inline arguments (XDR) in @args: FILL's two words, or the
 * opaque's length and, when the argument goes inline, its bytes.  A
 * MIRROR call not inline goes whole in a chunk (rpcrdma_proc_nomsg()).
 */
static u32 rpcrdma_proc_args(const struct cmkit_rpcrdma_proc *p, bool bulk_inline, u8 *args)
{
	if (p->proc == CMKIT_RPC_TESTPROG_FILL) {
		cmkit_put_be32(args, p->fill_len);
		cmkit_put_be32(args + 4, p->fill_seed);
		return 8;
	}
	cmkit_put_be32(args, p->arg_len);
	if (!bulk_inline)
		return 4;
	rpcrdma_pages_copy(p->arg, args + 4, p->arg_len, false);
	return 4 + p->arg_len;
}

/*
 * A call that goes whole in a position-zero read chunk: its RPC call, with
 * the xid it takes now, written into @b's pages before they are mapped.
 */
static int rpcrdma_proc_nomsg(struct rpcrdma_xprt *r_xprt, const struct cmkit_rpcrdma_proc *p,
			      u32 call_len, struct rpcrdma_proc_buf *b, u32 *xid)
{
	u8 head[CMKIT_RPCRDMA_RPC_CALL_LEN + 4], len[4];
	int rc;

	rc = rpcrdma_proc_buf_alloc(b, call_len);
	if (rc)
		return rc;
	*xid = cmkit_rpcrdma_xid_get(r_xprt);
	cmkit_put_be32(len, p->arg_len);
	rc = cmkit_rpcrdma_encode_rpc_call(head, sizeof(head), *xid, CMKIT_RPC_TESTPROG,
					   CMKIT_RPC_TESTPROG_VERS, p->proc, len, sizeof(len));
	if (rc != sizeof(head))
		return -EINVAL;
	memcpy_to_page(b->pages[0], 0, head, sizeof(head));
	rpcrdma_pages_move(b->pages, sizeof(head), p->arg, 0, p->arg_len);
	return 0;
}

/* A call's chunk lists: offered, and the reply's as the reply handler decoded them. */
struct rpcrdma_proc_lists {
	struct cmkit_rpcrdma_chunks offered;
	struct cmkit_rpcrdma_chunks got;
	struct cmkit_rpcrdma_reply reply;
};

/*
 * The RPC reply a server wrote whole into the reply chunk (RDMA_NOMSG),
 * @written bytes of @rb: decoded into @rpc from the first page, which the
 * caller keeps mapped (*@first) while it reads the results' words there;
 * *@off is where the results start in the chunk.  0, or the call's errno.
 */
static int rpcrdma_proc_reply_chunk(struct rpcrdma_req *req, const struct rpcrdma_proc_buf *rb,
				    u32 written, struct cmkit_rpcrdma_reply *rpc, void **first,
				    u32 *off)
{
	u32 n = min_t(u32, written, PAGE_SIZE);
	int rc;

	*first = kmap_local_page(rb->pages[0]);
	rc = cmkit_rpcrdma_decode_rpc_reply(*first, n, req->rl_xid, rpc);
	if (rc != CMKIT_RPCRDMA_OK)
		return cmkit_rpcrdma_result_class(rc) == CMKIT_RPCRDMA_MALFORMED ?
		       -EPROTO : cmkit_rpcrdma_result_to_errno(rc);
	*off = n - rpc->results_len;
	return 0;
}

/*
 * The results of a reply the handler decoded (the call ended with 0):
 * SINK's two words, or the data of ECHO, FILL and MIRROR, inline (copied
 * to the caller's pages), already in them (the write chunk, whose length
 * must be what the result's own length says), or in the reply chunk
 * @rb (RDMA_NOMSG, copied from there).
 */
static int rpcrdma_proc_results(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req,
				struct cmkit_rpcrdma_proc *p, const struct rpcrdma_proc_lists *l,
				const struct rpcrdma_proc_buf *rb)
{
	const struct cmkit_rpcrdma_chunks *offered = &l->offered;
	struct cmkit_rpcrdma_reply rpc = l->reply;
	u32 write_len = 0, reply_len = 0, len = 0, off = 0;
	void *first = NULL;
	u64 avail;
	int rc;

	rc = cmkit_rpcrdma_check_reply_chunks(offered, &l->got, &write_len, &reply_len);
	if (rc != CMKIT_RPCRDMA_OK)
		goto bad;
	p->write_len = write_len;
	p->reply_len = reply_len;
	avail = rpc.results_len;
	if (rpc.hdr.rdma_proc == CMKIT_RPCRDMA_NOMSG) {
		/* Only a call that offered the reply chunk gets here (the handler's check). */
		rc = rpcrdma_proc_reply_chunk(req, rb, reply_len, &rpc, &first, &off);
		if (rc)
			goto out;
		avail = reply_len - off;
	} else if (reply_len) {
		goto bad;
	}
	if (p->proc == CMKIT_RPC_TESTPROG_SINK) {
		if (avail != 8 || rpc.results_len < 8 || write_len)
			goto bad;
		p->sink_len = cmkit_get_be32(rpc.results);
		p->sink_crc = cmkit_get_be32(rpc.results + 4);
		goto out;
	}
	if (rpc.results_len < 4)
		goto bad;
	len = cmkit_get_be32(rpc.results);
	if (len > p->res_max)
		goto bad;
	if (offered->nr_write) {
		/* The data is in the write chunk: all of it, and nothing inline. */
		if (write_len != len || avail != 4)
			goto bad;
	} else if (write_len || avail < 4 + (u64)rpcrdma_xdr_pad(len)) {
		goto bad;
	} else if (first) {
		rpcrdma_pages_move(p->res, 0, rb->pages, off + 4, len);
	} else {
		rpcrdma_pages_copy(p->res, (void *)rpc.results + 4, len, true);
	}
	p->res_len = len;
	goto out;

bad:
	trace_cmkit_rpcrdma_reply_chunks_bad(r_xprt->rx_xid, req->rl_xid, rc, write_len,
					     rpc.results_len >= 4 ?
					     cmkit_get_be32(rpc.results) : 0);
	rc = -EPROTO;
out:
	if (first)
		kunmap_local(first);
	return rc;
}

/**
 * cmkit_rpcrdma_xprt_proc - call a procedure of cmkit's RPC test program
 * @r_xprt: a connected transport
 * @p: the procedure, its argument and room for its result; on return what
 *	it gave and how it travelled
 *
 * Registers the pages of a read chunk (the argument) and of a write chunk
 * (the result) when they do not fit inline, sends the call, waits for its
 * reply, and fences the MRs before it looks at the result.
 *
 * Return: 0 when the server answered and the reply kept to the terms of
 * the call (the result in @p); -EPROTO for a reply that did not (rejected,
 * malformed, or a chunk length not to be followed); -EMSGSIZE for a call
 * that needs a chunk cmkit does not offer yet, or data larger than one MR
 * maps; -EAGAIN when no MR was free; -EINVAL for an unknown procedure or a
 * length not a multiple of 4; -EIO when an MR could not be registered or
 * fenced (the connection is closing); else the call's errno
 * (cmkit_rpcrdma_call_one()).
 */
int cmkit_rpcrdma_xprt_proc(struct rpcrdma_xprt *r_xprt, struct cmkit_rpcrdma_proc *p)
{
	u32 call_len, bulk_arg, reply_len, bulk_res, inline_send, inline_recv, max_mr;
	struct rpcrdma_proc_buf call_buf = { }, reply_buf = { };
	struct rpcrdma_msg msg = { .proc = p->proc };
	struct cmkit_rpcrdma_chunks *ch;
	struct rpcrdma_proc_lists *l;
	struct rpcrdma_req *req;
	LIST_HEAD(mrs);
	u8 *args = NULL;
	int rc;

	p->res_len = 0;
	p->sink_len = 0;
	p->sink_crc = 0;
	p->write_len = 0;
	p->reply_len = 0;
	rc = rpcrdma_proc_sizes(p, &call_len, &bulk_arg, &reply_len, &bulk_res);
	if (rc)
		return rc;
	rc = rpcrdma_ep_limits(r_xprt, &inline_send, &inline_recv, &max_mr);
	if (rc)
		return rc;
	if (cmkit_rpcrdma_choose(call_len, bulk_arg, reply_len, bulk_res, inline_send,
				 inline_recv, RPCRDMA_PROC_HDR_LEN, &p->m))
		return -EINVAL;
	trace_cmkit_rpcrdma_marshal(r_xprt->rx_xid, p->proc, bulk_arg, bulk_res, p->m.rtype,
				    p->m.wtype);
	/* Each chunk is one MR. */
	if ((p->m.rtype == CMKIT_RPCRDMA_READCH && bulk_arg > max_mr) ||
	    (p->m.rtype == CMKIT_RPCRDMA_AREADCH && call_len > max_mr) ||
	    (p->m.wtype == CMKIT_RPCRDMA_WRITECH && bulk_res > max_mr) ||
	    (p->m.wtype == CMKIT_RPCRDMA_REPLYCH && reply_len > max_mr))
		return -EMSGSIZE;
	if (bulk_res > p->res_max)
		return -EINVAL;

	l = kzalloc_obj(*l, GFP_KERNEL);
	/* A call whole in a chunk has no inline arguments. */
	if (p->m.rtype != CMKIT_RPCRDMA_AREADCH)
		args = kmalloc(call_len, GFP_KERNEL);
	if (!l || (!args && p->m.rtype != CMKIT_RPCRDMA_AREADCH)) {
		rc = -ENOMEM;
		goto out_free;
	}
	ch = &l->offered;
	if (p->m.rtype == CMKIT_RPCRDMA_AREADCH) {
		rc = rpcrdma_proc_nomsg(r_xprt, p, call_len, &call_buf, &msg.xid);
		if (rc)
			goto out_free;
		rpcrdma_proc_seg(&msg, call_buf.pages, call_len, false, &ch->read[0]);
		ch->nr_read = 1;
		ch->read_pos[0] = 0;
		msg.nomsg = true;
	} else if (p->m.rtype == CMKIT_RPCRDMA_READCH) {
		rpcrdma_proc_seg(&msg, p->arg, bulk_arg, false, &ch->read[0]);
		ch->nr_read = 1;
		ch->read_pos[0] = RPCRDMA_PROC_BULK_POS;
	}
	if (p->m.wtype == CMKIT_RPCRDMA_WRITECH) {
		rpcrdma_proc_seg(&msg, p->res, bulk_res, true, &ch->write[0]);
		ch->nr_write = 1;
		ch->write_segs = 1;
	} else if (p->m.wtype == CMKIT_RPCRDMA_REPLYCH) {
		rc = rpcrdma_proc_buf_alloc(&reply_buf, reply_len);
		if (rc)
			goto out_free;
		rpcrdma_proc_seg(&msg, reply_buf.pages, reply_len, true, &ch->reply[0]);
		ch->has_reply = 1;
		ch->reply_segs = 1;
	}
	/*
	 * Registered in the Send's own chain (cmkit_rpcrdma_post_sends()); a
	 * call sent again after a reconnect maps them again on the new
	 * connection.
	 */
	msg.mrs = &mrs;
	rc = cmkit_rpcrdma_msg_map(r_xprt, &msg);
	if (rc)
		goto out_free;
	if (!msg.nomsg) {
		msg.args = args;
		msg.args_len = rpcrdma_proc_args(p, p->m.rtype == CMKIT_RPCRDMA_NOCH, args);
	}
	msg.ch = ch;
	msg.reply = &l->reply;
	msg.got = &l->got;

	rc = cmkit_rpcrdma_call_one(r_xprt, CMKIT_RPC_TESTPROG, CMKIT_RPC_TESTPROG_VERS, &msg,
				    &req);
	rc = rpcrdma_fence(r_xprt, req, &mrs, rc);
	if (req) {
		if (!rc)
			rc = rpcrdma_proc_results(r_xprt, req, p, l, &reply_buf);
		cmkit_rpcrdma_buffer_put(&r_xprt->rx_buf, req);
	}

out_free:
	rpcrdma_proc_buf_free(&reply_buf);
	rpcrdma_proc_buf_free(&call_buf);
	kfree(args);
	kfree(l);
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_xprt_proc);

/*
 * The results of a call_chunks call that ended with a reply: its lists
 * against the offer, then the inline results copied out.  0 or -EPROTO.
 */
static int rpcrdma_chunks_results(struct rpcrdma_xprt *r_xprt, struct rpcrdma_req *req,
				  struct cmkit_rpcrdma_chunked *c,
				  const struct rpcrdma_proc_lists *l)
{
	u32 write_len = 0, reply_len = 0;
	int rc;

	rc = cmkit_rpcrdma_check_reply_chunks(&l->offered, &l->got, &write_len, &reply_len);
	if (rc == CMKIT_RPCRDMA_OK && (reply_len || l->reply.hdr.rdma_proc != CMKIT_RPCRDMA_MSG))
		rc = CMKIT_RPCRDMA_E_CHUNKS;
	if (rc == CMKIT_RPCRDMA_OK && l->reply.results_len > c->res_max)
		rc = CMKIT_RPCRDMA_E_NOSPACE;
	trace_cmkit_rpcrdma_chunks_reply(r_xprt->rx_xid, req->rl_xid, rc, write_len,
					 l->reply.results_len);
	if (rc != CMKIT_RPCRDMA_OK)
		return -EPROTO;
	c->write_len = write_len;
	c->res_len = l->reply.results_len;
	memcpy(c->res, l->reply.results, c->res_len);
	return 0;
}

/**
 * cmkit_rpcrdma_call_chunks - send one call of any program with chunks
 * @r_xprt: a connected transport
 * @prog: RPC program
 * @vers: program version
 * @proc: procedure (for traces; @c->call carries it)
 * @c: the call, its chunks and room for its results; on return what the
 *	server said
 *
 * Registers the read chunk's pages (the bulk argument, at its position)
 * and the write chunk's (a bulk result) as one MR each, posts the
 * registrations in one chain with the Send, waits for the reply, and
 * fences the MRs (LOCAL_INV, or the server's Send With Invalidate) before
 * anything is read.  The reply's chunk lists must keep to the offer, and
 * its RPC results are copied to @c->res; what they say is the caller's.
 *
 * Return: 0 when the server accepted the call and its reply kept to the
 * terms of the offer; -EPROTO for a reply that did not (rejected,
 * malformed, a chunk not offered, results longer than @c->res_max);
 * -EINVAL for a bad @c; -EMSGSIZE for a chunk larger than one MR maps;
 * -EAGAIN when no MR was free; -EIO when an MR could not be registered or
 * fenced; else the call's errno (cmkit_rpcrdma_call_one()).
 */
int cmkit_rpcrdma_call_chunks(struct rpcrdma_xprt *r_xprt, u32 prog, u32 vers, u32 proc,
			      struct cmkit_rpcrdma_chunked *c)
{
	struct rpcrdma_msg msg = { .proc = proc, .whole = true, .xid = c->xid,
				   .args = c->call, .args_len = c->call_len };
	struct rpcrdma_proc_lists *l;
	struct rpcrdma_req *req;
	LIST_HEAD(mrs);
	u32 max_mr;
	int rc;

	c->res_len = 0;
	c->write_len = 0;
	if (!c->call || c->call_len < CMKIT_RPCRDMA_RPC_CALL_LEN || c->call_len % 4 ||
	    (c->read && (!c->read_len || c->read_pos % 4 || c->read_pos > c->call_len ||
			 c->read_pos < CMKIT_RPCRDMA_RPC_CALL_LEN)) ||
	    (c->write && !c->write_max) || (c->res_max && !c->res))
		return -EINVAL;
	rc = rpcrdma_ep_limits(r_xprt, NULL, NULL, &max_mr);
	if (rc)
		return rc;
	trace_cmkit_rpcrdma_marshal(r_xprt->rx_xid, proc, c->read ? c->read_len : 0,
				    c->write ? c->write_max : 0,
				    c->read ? CMKIT_RPCRDMA_READCH : CMKIT_RPCRDMA_NOCH,
				    c->write ? CMKIT_RPCRDMA_WRITECH : CMKIT_RPCRDMA_NOCH);
	if ((c->read && c->read_len > max_mr) || (c->write && c->write_max > max_mr))
		return -EMSGSIZE;

	l = kzalloc_obj(*l, GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	if (c->read) {
		rpcrdma_proc_seg(&msg, c->read, c->read_len, false, &l->offered.read[0]);
		l->offered.nr_read = 1;
		l->offered.read_pos[0] = c->read_pos;
	}
	if (c->write) {
		rpcrdma_proc_seg(&msg, c->write, c->write_max, true, &l->offered.write[0]);
		l->offered.nr_write = 1;
		l->offered.write_segs = 1;
	}
	/* Mapped again on the new connection if the call is sent again. */
	msg.mrs = &mrs;
	rc = cmkit_rpcrdma_msg_map(r_xprt, &msg);
	if (rc)
		goto out_free;
	msg.ch = &l->offered;
	msg.reply = &l->reply;
	msg.got = &l->got;

	rc = cmkit_rpcrdma_call_one(r_xprt, prog, vers, &msg, &req);
	rc = rpcrdma_fence(r_xprt, req, &mrs, rc);
	if (req) {
		if (!rc)
			rc = rpcrdma_chunks_results(r_xprt, req, c, l);
		cmkit_rpcrdma_buffer_put(&r_xprt->rx_buf, req);
	}

out_free:
	kfree(l);
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_call_chunks);
