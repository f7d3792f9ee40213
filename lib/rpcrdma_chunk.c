// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * RPC-over-RDMA version 1 chunk lists (RFC 8166): the bodies of
 * include/cmkit/rpcrdma_chunk.h, but the RPC-message decoders, which share
 * lib/rpcrdma_msg.c's.  No kernel or libc header: built into cmkit.ko by
 * kbuild and, as C, into the host tests, the fuzz targets and cmkit-peer.
 */
#include "cmkit/rpcrdma_chunk.h"

/* The largest message length an int result carries. */
#define CMKIT_CHUNK_INT_MAX	0x7fffffffU

/* A bounded reader: 0 (nothing read) if fewer than 4 bytes are left. */
static int cmkit_chunk_u32(struct cmkit_xdr_in *x, cmkit_u32 *v)
{
	if (x->len - x->off < 4)
		return 0;
	*v = cmkit_get_be32(x->p + x->off);
	x->off += 4;
	return 1;
}

/* An XDR optional-data discriminator: 1 if present, 0 if absent, else < 0. */
static int cmkit_chunk_present(struct cmkit_xdr_in *x)
{
	cmkit_u32 d;

	if (!cmkit_chunk_u32(x, &d))
		return CMKIT_RPCRDMA_E_SHORT;
	if (d > 1)
		return CMKIT_RPCRDMA_E_XDR;
	return (int)d;
}

/* One segment; the caller has checked that its 16 bytes are there. */
static void cmkit_chunk_get_seg(struct cmkit_xdr_in *x, struct cmkit_rpcrdma_seg *s)
{
	s->handle = cmkit_get_be32(x->p + x->off);
	s->length = cmkit_get_be32(x->p + x->off + 4);
	s->offset = cmkit_get_be64(x->p + x->off + 8);
	x->off += CMKIT_RPCRDMA_SEG_LEN;
}

/*
 * A counted array of segments (a write chunk or the reply chunk, after its
 * discriminator): the count against the bounds first, then against the
 * bytes left.
 */
static int cmkit_chunk_get_segs(struct cmkit_xdr_in *x, cmkit_u32 *nsegs,
				struct cmkit_rpcrdma_seg *segs)
{
	cmkit_u32 n, i;

	if (!cmkit_chunk_u32(x, &n))
		return CMKIT_RPCRDMA_E_SHORT;
	if (n == 0 || n > CMKIT_RPCRDMA_MAX_SEGS)
		return CMKIT_RPCRDMA_E_CHUNKS;
	if (x->len - x->off < (cmkit_size)n * CMKIT_RPCRDMA_SEG_LEN)
		return CMKIT_RPCRDMA_E_SHORT;
	for (i = 0; i < n; i++)
		cmkit_chunk_get_seg(x, &segs[i]);
	*nsegs = n;
	return 0;
}

static cmkit_u32 cmkit_chunk_sum(const struct cmkit_rpcrdma_seg *segs, cmkit_u32 n)
{
	cmkit_u64 sum = 0;
	cmkit_u32 i;

	if (n > CMKIT_RPCRDMA_MAX_SEGS)
		n = CMKIT_RPCRDMA_MAX_SEGS;
	for (i = 0; i < n; i++)
		sum += segs[i].length;
	return sum > 0xffffffffULL ? 0xffffffffU : (cmkit_u32)sum;
}

/* 1 if @ch is within the bounds of rpcrdma_chunk.h; NULL is three empty lists. */
static int cmkit_chunk_valid(const struct cmkit_rpcrdma_chunks *ch)
{
	cmkit_u32 i;

	if (!ch)
		return 1;
	if (ch->nr_read > CMKIT_RPCRDMA_MAX_SEGS || ch->nr_write > 1 || ch->has_reply > 1)
		return 0;
	for (i = 0; i < ch->nr_read; i++)
		if ((ch->read_pos[i] & 3) || (i && ch->read_pos[i] < ch->read_pos[i - 1]))
			return 0;
	if (ch->nr_write && (!ch->write_segs || ch->write_segs > CMKIT_RPCRDMA_MAX_SEGS))
		return 0;
	if (ch->has_reply && (!ch->reply_segs || ch->reply_segs > CMKIT_RPCRDMA_MAX_SEGS))
		return 0;
	return 1;
}

/* The encoded length of a valid @ch's three lists (NULL: 12). */
static cmkit_size cmkit_chunk_lists_len(const struct cmkit_rpcrdma_chunks *ch)
{
	cmkit_size n = 12;	/* the three closing discriminators */

	if (!ch)
		return n;
	n += (cmkit_size)ch->nr_read * CMKIT_RPCRDMA_READ_ENTRY_LEN;
	if (ch->nr_write)
		n += 8 + (cmkit_size)ch->write_segs * CMKIT_RPCRDMA_SEG_LEN;
	if (ch->has_reply)
		n += 4 + (cmkit_size)ch->reply_segs * CMKIT_RPCRDMA_SEG_LEN;
	return n;
}

static cmkit_u8 *cmkit_chunk_put_seg(cmkit_u8 *p, const struct cmkit_rpcrdma_seg *s)
{
	cmkit_put_be32(p, s->handle);
	cmkit_put_be32(p + 4, s->length);
	cmkit_put_be64(p + 8, s->offset);
	return p + CMKIT_RPCRDMA_SEG_LEN;
}

/* Write a valid @ch's three lists at @p, room checked; return the end. */
static cmkit_u8 *cmkit_chunk_put_lists(cmkit_u8 *p, const struct cmkit_rpcrdma_chunks *ch)
{
	cmkit_u32 i;

	if (ch) {
		for (i = 0; i < ch->nr_read; i++) {
			cmkit_put_be32(p, 1);
			cmkit_put_be32(p + 4, ch->read_pos[i]);
			p = cmkit_chunk_put_seg(p + 8, &ch->read[i]);
		}
	}
	cmkit_put_be32(p, 0);
	p += 4;
	if (ch && ch->nr_write) {
		cmkit_put_be32(p, 1);
		cmkit_put_be32(p + 4, ch->write_segs);
		p += 8;
		for (i = 0; i < ch->write_segs; i++)
			p = cmkit_chunk_put_seg(p, &ch->write[i]);
	}
	cmkit_put_be32(p, 0);
	p += 4;
	if (ch && ch->has_reply) {
		cmkit_put_be32(p, 1);
		cmkit_put_be32(p + 4, ch->reply_segs);
		p += 8;
		for (i = 0; i < ch->reply_segs; i++)
			p = cmkit_chunk_put_seg(p, &ch->reply[i]);
	} else {
		cmkit_put_be32(p, 0);
		p += 4;
	}
	return p;
}

/* The fixed part and the lists; room checked, @ch valid. */
static cmkit_u8 *cmkit_chunk_put_hdr(cmkit_u8 *p, cmkit_u32 xid, cmkit_u32 vers,
				     cmkit_u32 credits, cmkit_u32 proc,
				     const struct cmkit_rpcrdma_chunks *ch)
{
	cmkit_put_be32(p, xid);
	cmkit_put_be32(p + 4, vers);
	cmkit_put_be32(p + 8, credits);
	cmkit_put_be32(p + 12, proc);
	return cmkit_chunk_put_lists(p + CMKIT_RPCRDMA_FIXED_LEN, ch);
}

/* 1 if @hdr_len + @len - @bulk fits in @limit, without overflow. */
static int cmkit_chunk_fits(cmkit_u32 hdr_len, cmkit_u32 len, cmkit_u32 bulk, cmkit_u32 limit)
{
	return (cmkit_u64)hdr_len + len - bulk <= limit;
}

/**
 * cmkit_rpcrdma_choose - how a call and its reply travel
 * @call_len: the whole RPC call, header and arguments
 * @bulk_arg: its bulk (DDP-eligible) argument, 0 if none
 * @reply_len: the largest reply
 * @bulk_result: its bulk result, 0 if none
 * @inline_send: the largest Send the peer receives
 * @inline_recv: the largest Send the peer may send back
 * @hdr_len: room for the transport header in each inline message
 * @m: the choice
 *
 * See include/cmkit/rpcrdma_chunk.h for the rules and where they differ
 * from xprtrdma's.
 *
 * Return: 0, or CMKIT_RPCRDMA_E_ARG (@m untouched).
 */
int cmkit_rpcrdma_choose(cmkit_u32 call_len, cmkit_u32 bulk_arg, cmkit_u32 reply_len,
			 cmkit_u32 bulk_result, cmkit_u32 inline_send, cmkit_u32 inline_recv,
			 cmkit_u32 hdr_len, struct cmkit_rpcrdma_marshal *m)
{
	if (!m || bulk_arg > call_len || bulk_result > reply_len ||
	    hdr_len < CMKIT_RPCRDMA_HDR_LEN)
		return CMKIT_RPCRDMA_E_ARG;
	if (cmkit_chunk_fits(hdr_len, reply_len, 0, inline_recv))
		m->wtype = CMKIT_RPCRDMA_NOCH;
	else if (bulk_result && cmkit_chunk_fits(hdr_len, reply_len, bulk_result, inline_recv))
		m->wtype = CMKIT_RPCRDMA_WRITECH;
	else
		m->wtype = CMKIT_RPCRDMA_REPLYCH;
	if (cmkit_chunk_fits(hdr_len, call_len, 0, inline_send))
		m->rtype = CMKIT_RPCRDMA_NOCH;
	else if (bulk_arg && cmkit_chunk_fits(hdr_len, call_len, bulk_arg, inline_send))
		m->rtype = CMKIT_RPCRDMA_READCH;
	else
		m->rtype = CMKIT_RPCRDMA_AREADCH;
	return 0;
}

/**
 * cmkit_rpcrdma_encode_hdr - write a transport header with chunk lists
 * @buf: output buffer
 * @buflen: its size (CMKIT_RPCRDMA_MAX_HDR_LEN always suffices)
 * @xid: rdma_xid
 * @vers: rdma_vers, written as given
 * @credits: rdma_credit
 * @proc: CMKIT_RPCRDMA_MSG or CMKIT_RPCRDMA_NOMSG
 * @ch: the lists, or NULL for three empty ones
 *
 * Return: the header's length, or CMKIT_RPCRDMA_E_ARG or
 * CMKIT_RPCRDMA_E_NOSPACE (then nothing was written).
 */
int cmkit_rpcrdma_encode_hdr(void *buf, cmkit_size buflen, cmkit_u32 xid, cmkit_u32 vers,
			     cmkit_u32 credits, cmkit_u32 proc,
			     const struct cmkit_rpcrdma_chunks *ch)
{
	cmkit_size n;

	if (!buf || (proc != CMKIT_RPCRDMA_MSG && proc != CMKIT_RPCRDMA_NOMSG) ||
	    !cmkit_chunk_valid(ch))
		return CMKIT_RPCRDMA_E_ARG;
	n = CMKIT_RPCRDMA_FIXED_LEN + cmkit_chunk_lists_len(ch);
	if (buflen < n)
		return CMKIT_RPCRDMA_E_NOSPACE;
	cmkit_chunk_put_hdr((cmkit_u8 *)buf, xid, vers, credits, proc, ch);
	return (int)n;
}

/**
 * cmkit_rpcrdma_decode_hdr - decode a transport header and its chunk lists
 * @buf: the received message
 * @len: its length; nothing past it is read
 * @is_call: nonzero for a call (RDMA_NOMSG needs a position-zero read
 *	chunk), zero for a reply (RDMA_NOMSG needs a reply chunk)
 * @hdr: the fixed fields, counts and length; zeroed first
 * @ch: the lists; zeroed first, filled as far as decoding went
 *
 * Return: CMKIT_RPCRDMA_OK, or a negative enum cmkit_rpcrdma_result.
 */
int cmkit_rpcrdma_decode_hdr(const void *buf, cmkit_size len, int is_call,
			     struct cmkit_rpcrdma_hdr *hdr, struct cmkit_rpcrdma_chunks *ch)
{
	struct cmkit_xdr_in x;
	cmkit_u32 pos;
	int rc;

	if (!hdr || !ch || (len && !buf))
		return CMKIT_RPCRDMA_E_ARG;
	cmkit_zero(hdr, sizeof(*hdr));
	cmkit_zero(ch, sizeof(*ch));
	x.p = (const cmkit_u8 *)buf;
	x.len = len;
	x.off = 0;
	if (len < CMKIT_RPCRDMA_FIXED_LEN)
		return CMKIT_RPCRDMA_E_SHORT;
	cmkit_chunk_u32(&x, &hdr->rdma_xid);
	cmkit_chunk_u32(&x, &hdr->rdma_vers);
	cmkit_chunk_u32(&x, &hdr->rdma_credit);
	cmkit_chunk_u32(&x, &hdr->rdma_proc);
	if (hdr->rdma_vers != CMKIT_RPCRDMA_VERSION)
		return CMKIT_RPCRDMA_E_VERS;
	if (hdr->rdma_proc != CMKIT_RPCRDMA_MSG && hdr->rdma_proc != CMKIT_RPCRDMA_NOMSG)
		return CMKIT_RPCRDMA_E_PROC;

	while ((rc = cmkit_chunk_present(&x)) == 1) {
		if (ch->nr_read == CMKIT_RPCRDMA_MAX_SEGS)
			return CMKIT_RPCRDMA_E_CHUNKS;
		if (x.len - x.off < CMKIT_RPCRDMA_READ_ENTRY_LEN - 4)
			return CMKIT_RPCRDMA_E_SHORT;
		cmkit_chunk_u32(&x, &pos);
		if ((pos & 3) || (ch->nr_read && pos < ch->read_pos[ch->nr_read - 1]))
			return CMKIT_RPCRDMA_E_CHUNKS;
		ch->read_pos[ch->nr_read] = pos;
		cmkit_chunk_get_seg(&x, &ch->read[ch->nr_read]);
		ch->nr_read++;
	}
	if (rc < 0)
		return rc;

	while ((rc = cmkit_chunk_present(&x)) == 1) {
		if (ch->nr_write)
			return CMKIT_RPCRDMA_E_CHUNKS;
		rc = cmkit_chunk_get_segs(&x, &ch->write_segs, ch->write);
		if (rc)
			return rc;
		ch->nr_write = 1;
	}
	if (rc < 0)
		return rc;

	rc = cmkit_chunk_present(&x);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		rc = cmkit_chunk_get_segs(&x, &ch->reply_segs, ch->reply);
		if (rc)
			return rc;
		ch->has_reply = 1;
	}

	if (hdr->rdma_proc == CMKIT_RPCRDMA_NOMSG) {
		if (is_call && (!ch->nr_read || ch->read_pos[0] != 0))
			return CMKIT_RPCRDMA_E_CHUNKS;
		if (!is_call && !ch->has_reply)
			return CMKIT_RPCRDMA_E_CHUNKS;
	}
	hdr->read_chunks = ch->nr_read;
	hdr->write_chunks = ch->nr_write;
	hdr->write_segs = ch->write_segs;
	hdr->reply_chunk = ch->has_reply;
	hdr->reply_segs = ch->reply_segs;
	hdr->len = x.off;
	return CMKIT_RPCRDMA_OK;
}

/*
 * One list's segments against the offered ones: at most as many, each with
 * the offered handle and offset and at most the offered length.
 */
static int cmkit_chunk_segs_within(const struct cmkit_rpcrdma_seg *offered, cmkit_u32 n_off,
				   const struct cmkit_rpcrdma_seg *got, cmkit_u32 n_got)
{
	cmkit_u32 i;

	if (n_got > n_off)
		return 0;
	for (i = 0; i < n_got; i++)
		if (got[i].handle != offered[i].handle || got[i].offset != offered[i].offset ||
		    got[i].length > offered[i].length)
			return 0;
	return 1;
}

/* 1 if the segments' lengths add up to no more than 0xffffffff. */
static int cmkit_chunk_sum_fits(const struct cmkit_rpcrdma_seg *segs, cmkit_u32 n)
{
	cmkit_u64 sum = 0;
	cmkit_u32 i;

	for (i = 0; i < n; i++)
		sum += segs[i].length;
	return sum <= 0xffffffffULL;
}

/**
 * cmkit_rpcrdma_check_reply_chunks - a reply's chunk lists against the offer
 * @offered: the lists the call carried
 * @got: the lists of the reply (cmkit_rpcrdma_decode_reply_chunks())
 * @write_len: the bytes written into the write chunk, or NULL
 * @reply_len: the bytes written into the reply chunk, or NULL
 *
 * Return: CMKIT_RPCRDMA_OK, CMKIT_RPCRDMA_E_CHUNKS or CMKIT_RPCRDMA_E_ARG
 * (then both lengths 0).
 */
int cmkit_rpcrdma_check_reply_chunks(const struct cmkit_rpcrdma_chunks *offered,
				     const struct cmkit_rpcrdma_chunks *got,
				     cmkit_u32 *write_len, cmkit_u32 *reply_len)
{
	int rc = CMKIT_RPCRDMA_E_CHUNKS;

	if (write_len)
		*write_len = 0;
	if (reply_len)
		*reply_len = 0;
	if (!offered || !got || !cmkit_chunk_valid(offered) ||
	    (offered->nr_write && !cmkit_chunk_sum_fits(offered->write, offered->write_segs)) ||
	    (offered->has_reply && !cmkit_chunk_sum_fits(offered->reply, offered->reply_segs)))
		return CMKIT_RPCRDMA_E_ARG;
	if (got->nr_read || got->nr_write > offered->nr_write ||
	    got->has_reply > offered->has_reply)
		return rc;
	if (got->nr_write &&
	    !cmkit_chunk_segs_within(offered->write, offered->write_segs,
				     got->write, got->write_segs))
		return rc;
	if (got->has_reply &&
	    !cmkit_chunk_segs_within(offered->reply, offered->reply_segs,
				     got->reply, got->reply_segs))
		return rc;
	if (write_len)
		*write_len = cmkit_rpcrdma_write_len(got);
	if (reply_len)
		*reply_len = cmkit_rpcrdma_reply_len(got);
	return CMKIT_RPCRDMA_OK;
}

/**
 * cmkit_rpcrdma_write_len - the bytes the write chunk's segments cover
 * @ch: the lists
 *
 * Return: the sum of the lengths (0 without a write chunk), at most
 * 0xffffffff.
 */
cmkit_u32 cmkit_rpcrdma_write_len(const struct cmkit_rpcrdma_chunks *ch)
{
	if (!ch || !ch->nr_write)
		return 0;
	return cmkit_chunk_sum(ch->write, ch->write_segs);
}

/**
 * cmkit_rpcrdma_reply_len - the bytes the reply chunk's segments cover
 * @ch: the lists
 *
 * Return: the sum of the lengths (0 without a reply chunk), at most
 * 0xffffffff.
 */
cmkit_u32 cmkit_rpcrdma_reply_len(const struct cmkit_rpcrdma_chunks *ch)
{
	if (!ch || !ch->has_reply)
		return 0;
	return cmkit_chunk_sum(ch->reply, ch->reply_segs);
}

/**
 * cmkit_rpcrdma_read_len - the bytes of the read chunk at one position
 * @ch: the lists
 * @position: the chunk's position
 *
 * Return: the sum of the lengths of the read segments at @position (0 if
 * none), at most 0xffffffff.
 */
cmkit_u32 cmkit_rpcrdma_read_len(const struct cmkit_rpcrdma_chunks *ch, cmkit_u32 position)
{
	cmkit_u64 sum = 0;
	cmkit_u32 i, n;

	if (!ch)
		return 0;
	n = ch->nr_read > CMKIT_RPCRDMA_MAX_SEGS ? CMKIT_RPCRDMA_MAX_SEGS : ch->nr_read;
	for (i = 0; i < n; i++)
		if (ch->read_pos[i] == position)
			sum += ch->read[i].length;
	return sum > 0xffffffffULL ? 0xffffffffU : (cmkit_u32)sum;
}

/* The RPC call up to its arguments; room checked. */
static cmkit_u8 *cmkit_chunk_put_rpc_call(cmkit_u8 *p, cmkit_u32 xid, cmkit_u32 prog,
					  cmkit_u32 vers, cmkit_u32 proc)
{
	const cmkit_u32 w[10] = {
		xid, CMKIT_RPC_CALL, CMKIT_RPC_VERSION, prog, vers, proc,
		CMKIT_RPC_AUTH_NONE, 0,		/* credential */
		CMKIT_RPC_AUTH_NONE, 0,		/* verifier */
	};
	unsigned int i;

	for (i = 0; i < 10; i++)
		cmkit_put_be32(p + 4 * i, w[i]);
	return p + CMKIT_RPCRDMA_RPC_CALL_LEN;
}

/**
 * cmkit_rpcrdma_encode_rpc_call - write an RPC call message alone
 * @buf: output buffer
 * @buflen: its size
 * @xid: the RPC xid
 * @prog: program
 * @vers: program version
 * @proc: procedure
 * @args: the arguments, XDR-encoded
 * @args_len: their length
 *
 * Return: CMKIT_RPCRDMA_RPC_CALL_LEN + @args_len, or CMKIT_RPCRDMA_E_ARG
 * or CMKIT_RPCRDMA_E_NOSPACE (then nothing was written).
 */
int cmkit_rpcrdma_encode_rpc_call(void *buf, cmkit_size buflen, cmkit_u32 xid, cmkit_u32 prog,
				  cmkit_u32 vers, cmkit_u32 proc, const void *args,
				  cmkit_size args_len)
{
	cmkit_u8 *p = (cmkit_u8 *)buf;

	if (!p || (args_len && !args) ||
	    args_len > CMKIT_CHUNK_INT_MAX - CMKIT_RPCRDMA_RPC_CALL_LEN)
		return CMKIT_RPCRDMA_E_ARG;
	if (buflen < CMKIT_RPCRDMA_RPC_CALL_LEN + args_len)
		return CMKIT_RPCRDMA_E_NOSPACE;
	p = cmkit_chunk_put_rpc_call(p, xid, prog, vers, proc);
	if (args_len)
		cmkit_copy(p, args, args_len);
	return (int)(CMKIT_RPCRDMA_RPC_CALL_LEN + args_len);
}

/**
 * cmkit_rpcrdma_encode_call - write an RDMA_MSG call with chunk lists
 * @buf: output buffer
 * @buflen: its size
 * @xid: the xid, in the transport header and the RPC call
 * @credits: the credits to ask for
 * @prog: program
 * @vers: program version
 * @proc: procedure
 * @ch: the lists, or NULL for none; no position-zero read chunk
 * @args: the inline arguments, XDR-encoded
 * @args_len: their length
 *
 * Return: the length of header, RPC call and inline arguments, or
 * CMKIT_RPCRDMA_E_ARG or CMKIT_RPCRDMA_E_NOSPACE (then nothing was
 * written).
 */
int cmkit_rpcrdma_encode_call(void *buf, cmkit_size buflen, cmkit_u32 xid, cmkit_u32 credits,
			      cmkit_u32 prog, cmkit_u32 vers, cmkit_u32 proc,
			      const struct cmkit_rpcrdma_chunks *ch, const void *args,
			      cmkit_size args_len)
{
	cmkit_u8 *p = (cmkit_u8 *)buf;
	cmkit_size hlen;
	cmkit_u32 i;

	if (!p || !cmkit_chunk_valid(ch) || (args_len && !args) ||
	    args_len > CMKIT_CHUNK_INT_MAX - CMKIT_RPCRDMA_MAX_HDR_LEN - CMKIT_RPCRDMA_RPC_CALL_LEN)
		return CMKIT_RPCRDMA_E_ARG;
	for (i = 0; ch && i < ch->nr_read; i++)
		if (ch->read_pos[i] < CMKIT_RPCRDMA_RPC_CALL_LEN ||
		    ch->read_pos[i] - CMKIT_RPCRDMA_RPC_CALL_LEN > args_len)
			return CMKIT_RPCRDMA_E_ARG;
	hlen = CMKIT_RPCRDMA_FIXED_LEN + cmkit_chunk_lists_len(ch);
	if (buflen < hlen + CMKIT_RPCRDMA_RPC_CALL_LEN + args_len)
		return CMKIT_RPCRDMA_E_NOSPACE;
	p = cmkit_chunk_put_hdr(p, xid, CMKIT_RPCRDMA_VERSION, credits, CMKIT_RPCRDMA_MSG, ch);
	p = cmkit_chunk_put_rpc_call(p, xid, prog, vers, proc);
	if (args_len)
		cmkit_copy(p, args, args_len);
	return (int)(hlen + CMKIT_RPCRDMA_RPC_CALL_LEN + args_len);
}

/* The length of the RPC SUCCESS reply of @rep with @results_len bytes, or 0 if refused. */
static cmkit_size cmkit_chunk_rpc_reply_len(const struct cmkit_rpcrdma_reply *rep,
					    cmkit_size results_len)
{
	if (rep->reply_stat != CMKIT_RPC_MSG_ACCEPTED || rep->accept_stat != CMKIT_RPC_SUCCESS ||
	    rep->verf_len > CMKIT_RPC_MAX_AUTH_LEN || (rep->verf_len && !rep->verf) ||
	    results_len > CMKIT_CHUNK_INT_MAX - CMKIT_RPCRDMA_MAX_HDR_LEN -
			  CMKIT_RPCRDMA_RPC_REPLY_LEN - CMKIT_RPC_MAX_AUTH_LEN)
		return 0;
	return CMKIT_RPCRDMA_RPC_REPLY_LEN + ((rep->verf_len + 3) & ~3U) + results_len;
}

/* The RPC SUCCESS reply; room checked, @rep checked. */
static void cmkit_chunk_put_rpc_reply(cmkit_u8 *p, const struct cmkit_rpcrdma_reply *rep,
				      const void *results, cmkit_size results_len)
{
	cmkit_u32 padded = (rep->verf_len + 3) & ~3U;

	cmkit_put_be32(p, rep->hdr.rdma_xid);
	cmkit_put_be32(p + 4, CMKIT_RPC_REPLY);
	cmkit_put_be32(p + 8, CMKIT_RPC_MSG_ACCEPTED);
	cmkit_put_be32(p + 12, rep->verf_flavor);
	cmkit_put_be32(p + 16, rep->verf_len);
	p += 20;
	if (rep->verf_len)
		cmkit_copy(p, rep->verf, rep->verf_len);
	cmkit_zero(p + rep->verf_len, padded - rep->verf_len);
	p += padded;
	cmkit_put_be32(p, CMKIT_RPC_SUCCESS);
	if (results_len)
		cmkit_copy(p + 4, results, results_len);
}

/**
 * cmkit_rpcrdma_encode_rpc_reply - write an RPC SUCCESS reply message alone
 * @buf: output buffer
 * @buflen: its size
 * @rep: @rep->hdr.rdma_xid (the RPC xid), the verifier, and
 *	@rep->reply_stat MSG_ACCEPTED with @rep->accept_stat SUCCESS
 * @results: the results, XDR-encoded
 * @results_len: their length
 *
 * Return: the reply's length, or CMKIT_RPCRDMA_E_ARG or
 * CMKIT_RPCRDMA_E_NOSPACE (then nothing was written).
 */
int cmkit_rpcrdma_encode_rpc_reply(void *buf, cmkit_size buflen,
				   const struct cmkit_rpcrdma_reply *rep, const void *results,
				   cmkit_size results_len)
{
	cmkit_size n;

	if (!buf || !rep || (results_len && !results))
		return CMKIT_RPCRDMA_E_ARG;
	n = cmkit_chunk_rpc_reply_len(rep, results_len);
	if (!n)
		return CMKIT_RPCRDMA_E_ARG;
	if (buflen < n)
		return CMKIT_RPCRDMA_E_NOSPACE;
	cmkit_chunk_put_rpc_reply((cmkit_u8 *)buf, rep, results, results_len);
	return (int)n;
}

/**
 * cmkit_rpcrdma_encode_reply_chunks - write a reply with chunk lists
 * @buf: output buffer
 * @buflen: its size
 * @rep: @rep->hdr.rdma_xid, @rep->hdr.rdma_credit, @rep->hdr.rdma_proc
 *	(RDMA_MSG or RDMA_NOMSG) and, for RDMA_MSG, what
 *	cmkit_rpcrdma_encode_rpc_reply() takes
 * @ch: the lists, each segment's length the bytes written; NULL for none
 * @results: RDMA_MSG: the inline results, XDR-encoded
 * @results_len: their length (RDMA_NOMSG: 0)
 *
 * Return: the reply's length, or CMKIT_RPCRDMA_E_ARG or
 * CMKIT_RPCRDMA_E_NOSPACE (then nothing was written).
 */
int cmkit_rpcrdma_encode_reply_chunks(void *buf, cmkit_size buflen,
				      const struct cmkit_rpcrdma_reply *rep,
				      const struct cmkit_rpcrdma_chunks *ch, const void *results,
				      cmkit_size results_len)
{
	cmkit_size hlen, rlen = 0;
	cmkit_u8 *p = (cmkit_u8 *)buf;

	if (!p || !rep || !cmkit_chunk_valid(ch) || (ch && ch->nr_read) ||
	    (results_len && !results))
		return CMKIT_RPCRDMA_E_ARG;
	if (rep->hdr.rdma_proc == CMKIT_RPCRDMA_MSG) {
		if (cmkit_rpcrdma_reply_len(ch))
			return CMKIT_RPCRDMA_E_ARG;
		rlen = cmkit_chunk_rpc_reply_len(rep, results_len);
		if (!rlen)
			return CMKIT_RPCRDMA_E_ARG;
	} else if (rep->hdr.rdma_proc == CMKIT_RPCRDMA_NOMSG) {
		if (!cmkit_rpcrdma_reply_len(ch) || cmkit_rpcrdma_write_len(ch) || results_len)
			return CMKIT_RPCRDMA_E_ARG;
	} else {
		return CMKIT_RPCRDMA_E_ARG;
	}
	hlen = CMKIT_RPCRDMA_FIXED_LEN + cmkit_chunk_lists_len(ch);
	if (buflen < hlen + rlen)
		return CMKIT_RPCRDMA_E_NOSPACE;
	p = cmkit_chunk_put_hdr(p, rep->hdr.rdma_xid, CMKIT_RPCRDMA_VERSION,
				rep->hdr.rdma_credit, rep->hdr.rdma_proc, ch);
	if (rlen)
		cmkit_chunk_put_rpc_reply(p, rep, results, results_len);
	return (int)(hlen + rlen);
}

/**
 * cmkit_rpcrdma_decode_reply_chunks - decode a reply to a call that offered chunks
 * @buf: the received message
 * @len: its length; nothing past it is read
 * @rep: the decoded reply; zeroed first, then filled as far as decoding went
 * @ch: the reply's lists; zeroed first
 *
 * See include/cmkit/rpcrdma_chunk.h.
 *
 * Return: CMKIT_RPCRDMA_OK, or a negative enum cmkit_rpcrdma_result.
 */
int cmkit_rpcrdma_decode_reply_chunks(const void *buf, cmkit_size len,
				      struct cmkit_rpcrdma_reply *rep,
				      struct cmkit_rpcrdma_chunks *ch)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;
	int rc;

	if (!rep || !ch || (len && !p))
		return CMKIT_RPCRDMA_E_ARG;
	cmkit_zero(rep, sizeof(*rep));
	cmkit_zero(ch, sizeof(*ch));
	if (len >= CMKIT_RPCRDMA_FIXED_LEN && cmkit_get_be32(p + 12) != CMKIT_RPCRDMA_MSG &&
	    cmkit_get_be32(p + 12) != CMKIT_RPCRDMA_NOMSG)
		return cmkit_rpcrdma_decode_reply(buf, len, rep);
	rc = cmkit_rpcrdma_decode_hdr(buf, len, 0, &rep->hdr, ch);
	if (rc)
		return rc;
	if (ch->nr_read)
		return CMKIT_RPCRDMA_E_CHUNKS;
	if (rep->hdr.rdma_proc == CMKIT_RPCRDMA_NOMSG) {
		if (cmkit_rpcrdma_write_len(ch) || !cmkit_rpcrdma_reply_len(ch))
			return CMKIT_RPCRDMA_E_CHUNKS;
		return CMKIT_RPCRDMA_OK;
	}
	if (cmkit_rpcrdma_reply_len(ch))
		return CMKIT_RPCRDMA_E_CHUNKS;
	return cmkit_rpcrdma_decode_rpc_reply(p + rep->hdr.len, len - rep->hdr.len,
					      rep->hdr.rdma_xid, rep);
}

/**
 * cmkit_rpcrdma_decode_call_chunks - decode a call, as a server that takes chunks
 * @buf: the received message
 * @len: its length; nothing past it is read
 * @call: the decoded call; zeroed first, then filled as far as decoding went
 * @ch: the call's lists; zeroed first
 *
 * See include/cmkit/rpcrdma_chunk.h.
 *
 * Return: CMKIT_RPCRDMA_OK, or a negative enum cmkit_rpcrdma_result.
 */
int cmkit_rpcrdma_decode_call_chunks(const void *buf, cmkit_size len,
				     struct cmkit_rpcrdma_call *call,
				     struct cmkit_rpcrdma_chunks *ch)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;
	cmkit_size args_off, end;
	cmkit_u32 i;
	int rc;

	if (!call || !ch || (len && !p))
		return CMKIT_RPCRDMA_E_ARG;
	cmkit_zero(call, sizeof(*call));
	rc = cmkit_rpcrdma_decode_hdr(buf, len, 1, &call->hdr, ch);
	if (rc || call->hdr.rdma_proc == CMKIT_RPCRDMA_NOMSG)
		return rc;
	rc = cmkit_rpcrdma_decode_rpc_call(p + call->hdr.len, len - call->hdr.len, call);
	if (rc)
		return rc;
	/* Where the arguments start and the inline message ends, from the xid. */
	args_off = (cmkit_size)(call->args - (p + call->hdr.len));
	end = len - call->hdr.len;
	for (i = 0; i < ch->nr_read; i++)
		if (ch->read_pos[i] < args_off || ch->read_pos[i] > end)
			return CMKIT_RPCRDMA_E_CHUNKS;
	return CMKIT_RPCRDMA_OK;
}
