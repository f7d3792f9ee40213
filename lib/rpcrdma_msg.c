// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * RPC-over-RDMA version 1 messages (RFC 8166) carrying ONC RPC version 2 NULL
 * calls and their replies: the bodies of include/cmkit/rpcrdma_msg.h.  No
 * kernel or libc header: built into cmkit.ko by kbuild and, as C, into the
 * host tests, the fuzz targets and cmkit-peer.
 */
#include "cmkit/rpcrdma_msg.h"
#include "cmkit/rpcrdma_chunk.h"	/* cmkit_rpcrdma_decode_rpc_{call,reply}() */

static int cmkit_xdr_u32(struct cmkit_xdr_in *x, cmkit_u32 *v)
{
	if (x->len - x->off < 4)
		return 0;
	*v = cmkit_get_be32(x->p + x->off);
	x->off += 4;
	return 1;
}

/* Skip @n items of @size bytes each; 0 (and nothing skipped) if they are not all there. */
static int cmkit_xdr_skip(struct cmkit_xdr_in *x, cmkit_u32 n, cmkit_size size)
{
	if (n > (x->len - x->off) / size)
		return 0;
	x->off += (cmkit_size)n * size;
	return 1;
}

/*
 * Decode an opaque_auth: flavor, length, body padded to 4.  @flavor, @len
 * and @body are set together, and only when the whole body is there.
 */
static int cmkit_xdr_auth(struct cmkit_xdr_in *x, cmkit_u32 *flavor,
			  cmkit_u32 *len, const cmkit_u8 **body)
{
	cmkit_u32 f, n, padded;

	if (!cmkit_xdr_u32(x, &f) || !cmkit_xdr_u32(x, &n))
		return CMKIT_RPCRDMA_E_SHORT;
	if (n > CMKIT_RPC_MAX_AUTH_LEN)
		return CMKIT_RPCRDMA_E_AUTH_LEN;
	padded = (n + 3) & ~3U;
	if (x->len - x->off < padded)
		return CMKIT_RPCRDMA_E_SHORT;
	*flavor = f;
	*len = n;
	*body = n ? x->p + x->off : (const cmkit_u8 *)0;
	x->off += padded;
	return 0;
}

/* An XDR optional-data discriminator: 1 if present, 0 if absent, else < 0. */
static int cmkit_xdr_present(struct cmkit_xdr_in *x)
{
	cmkit_u32 d;

	if (!cmkit_xdr_u32(x, &d))
		return CMKIT_RPCRDMA_E_SHORT;
	if (d > 1)
		return CMKIT_RPCRDMA_E_XDR;
	return (int)d;
}

static void cmkit_xdr_init(struct cmkit_xdr_in *x, const void *buf,
			   cmkit_size len)
{
	x->p = (const cmkit_u8 *)buf;
	x->len = len;
	x->off = 0;
}

/* The fixed part of a transport header: 16 bytes, and version 1. */
static int cmkit_rpcrdma_decode_fixed(struct cmkit_xdr_in *x,
				      struct cmkit_rpcrdma_hdr *h)
{
	if (x->len - x->off < CMKIT_RPCRDMA_FIXED_LEN)
		return CMKIT_RPCRDMA_E_SHORT;
	cmkit_xdr_u32(x, &h->rdma_xid);
	cmkit_xdr_u32(x, &h->rdma_vers);
	cmkit_xdr_u32(x, &h->rdma_credit);
	cmkit_xdr_u32(x, &h->rdma_proc);
	if (h->rdma_vers != CMKIT_RPCRDMA_VERSION)
		return CMKIT_RPCRDMA_E_VERS;
	return 0;
}

/*
 * The read list, write list and reply chunk of an RDMA_MSG, each walked to
 * its end and counted, then refused unless all are empty (cmkit neither
 * offers nor takes chunks).  Read entries are 20 bytes after their
 * discriminator (position, handle, length, 64-bit offset); segments 16.
 */
static int cmkit_rpcrdma_decode_lists(struct cmkit_xdr_in *x,
				      struct cmkit_rpcrdma_hdr *h)
{
	cmkit_u32 nsegs;
	int rc;

	while ((rc = cmkit_xdr_present(x)) == 1) {
		if (!cmkit_xdr_skip(x, 1, 20))
			return CMKIT_RPCRDMA_E_SHORT;
		h->read_chunks++;
	}
	if (rc < 0)
		return rc;
	while ((rc = cmkit_xdr_present(x)) == 1) {
		if (!cmkit_xdr_u32(x, &nsegs) || !cmkit_xdr_skip(x, nsegs, 16))
			return CMKIT_RPCRDMA_E_SHORT;
		h->write_chunks++;
		h->write_segs += nsegs;
	}
	if (rc < 0)
		return rc;
	rc = cmkit_xdr_present(x);
	if (rc < 0)
		return rc;
	if (rc == 1) {
		if (!cmkit_xdr_u32(x, &nsegs) || !cmkit_xdr_skip(x, nsegs, 16))
			return CMKIT_RPCRDMA_E_SHORT;
		h->reply_chunk = 1;
		h->reply_segs = nsegs;
	}
	if (h->read_chunks || h->write_chunks || h->reply_chunk)
		return CMKIT_RPCRDMA_E_CHUNKS;
	h->len = x->off;
	return 0;
}

/**
 * cmkit_rpcrdma_encode_null_call - write an RPC NULL call over RDMA_MSG
 * @buf: output buffer
 * @buflen: its size; at least CMKIT_RPCRDMA_NULL_CALL_LEN
 * @xid: the xid, written both in the transport header and the RPC call
 * @credits: the credits to ask for (xprtrdma asks for its receive ring)
 * @prog: RPC program (e.g. CMKIT_RPC_PROG_NFS)
 * @vers: program version
 *
 * The call has empty chunk lists, procedure 0, AUTH_NONE credential and
 * verifier with empty bodies, and no arguments.
 *
 * Return: CMKIT_RPCRDMA_NULL_CALL_LEN, or CMKIT_RPCRDMA_E_ARG (@buf NULL) or
 * CMKIT_RPCRDMA_E_NOSPACE (then nothing was written).
 */
int cmkit_rpcrdma_encode_null_call(void *buf, cmkit_size buflen, cmkit_u32 xid,
				   cmkit_u32 credits, cmkit_u32 prog,
				   cmkit_u32 vers)
{
	const cmkit_u32 w[17] = {
		xid, CMKIT_RPCRDMA_VERSION, credits, CMKIT_RPCRDMA_MSG,
		0, 0, 0,			/* no read list, write list, reply chunk */
		xid, CMKIT_RPC_CALL, CMKIT_RPC_VERSION, prog, vers,
		CMKIT_RPC_NULL_PROC,
		CMKIT_RPC_AUTH_NONE, 0,		/* credential */
		CMKIT_RPC_AUTH_NONE, 0,		/* verifier */
	};
	cmkit_u8 *p = (cmkit_u8 *)buf;
	unsigned int i;

	if (!p)
		return CMKIT_RPCRDMA_E_ARG;
	if (buflen < CMKIT_RPCRDMA_NULL_CALL_LEN)
		return CMKIT_RPCRDMA_E_NOSPACE;
	for (i = 0; i < 17; i++)
		cmkit_put_be32(p + 4 * i, w[i]);
	return CMKIT_RPCRDMA_NULL_CALL_LEN;
}

/**
 * cmkit_rpcrdma_peek - read the transport xid and credit grant only
 * @buf: a received message
 * @len: its length; only the first CMKIT_RPCRDMA_PEEK_LEN bytes are read
 * @xid: rdma_xid, set when @len allows
 * @credits: rdma_credit (raw), set when @len allows
 *
 * For a receive handler that must find the waiting call before it decodes
 * the rest.  A grant that comes with CMKIT_RPCRDMA_E_VERS must not be used
 * (xprtrdma keeps the previous one).
 *
 * Return: CMKIT_RPCRDMA_OK, CMKIT_RPCRDMA_E_SHORT (nothing set),
 * CMKIT_RPCRDMA_E_VERS (rdma_vers other than 1; both set) or
 * CMKIT_RPCRDMA_E_ARG.
 */
int cmkit_rpcrdma_peek(const void *buf, cmkit_size len, cmkit_u32 *xid,
		       cmkit_u32 *credits)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;

	if (!xid || !credits || (len && !p))
		return CMKIT_RPCRDMA_E_ARG;
	if (len < CMKIT_RPCRDMA_PEEK_LEN)
		return CMKIT_RPCRDMA_E_SHORT;
	*xid = cmkit_get_be32(p);
	*credits = cmkit_get_be32(p + 8);
	if (cmkit_get_be32(p + 4) != CMKIT_RPCRDMA_VERSION)
		return CMKIT_RPCRDMA_E_VERS;
	return CMKIT_RPCRDMA_OK;
}

/* The RPC half of a reply, from its xid on. */
static int cmkit_rpc_decode_reply(struct cmkit_xdr_in *x,
				  struct cmkit_rpcrdma_reply *rep)
{
	cmkit_u32 mtype;
	int rc;

	if (!cmkit_xdr_u32(x, &rep->xid) || !cmkit_xdr_u32(x, &mtype))
		return CMKIT_RPCRDMA_E_SHORT;
	if (mtype == CMKIT_RPC_CALL)
		return CMKIT_RPCRDMA_E_MSG_TYPE;
	if (mtype != CMKIT_RPC_REPLY)
		return CMKIT_RPCRDMA_E_XDR;
	if (!cmkit_xdr_u32(x, &rep->reply_stat))
		return CMKIT_RPCRDMA_E_SHORT;
	if (rep->reply_stat == CMKIT_RPC_MSG_DENIED) {
		if (!cmkit_xdr_u32(x, &rep->reject_stat))
			return CMKIT_RPCRDMA_E_SHORT;
		if (rep->reject_stat == CMKIT_RPC_MISMATCH) {
			if (!cmkit_xdr_u32(x, &rep->low) ||
			    !cmkit_xdr_u32(x, &rep->high))
				return CMKIT_RPCRDMA_E_SHORT;
			return CMKIT_RPCRDMA_E_RPC_MISMATCH;
		}
		if (rep->reject_stat != CMKIT_RPC_AUTH_ERROR)
			return CMKIT_RPCRDMA_E_XDR;
		if (!cmkit_xdr_u32(x, &rep->auth_stat))
			return CMKIT_RPCRDMA_E_SHORT;
		if (rep->auth_stat < 1 || rep->auth_stat > CMKIT_RPC_AUTH_STAT_MAX)
			return CMKIT_RPCRDMA_E_XDR;
		return CMKIT_RPCRDMA_E_AUTH_ERROR;
	}
	if (rep->reply_stat != CMKIT_RPC_MSG_ACCEPTED)
		return CMKIT_RPCRDMA_E_XDR;
	rc = cmkit_xdr_auth(x, &rep->verf_flavor, &rep->verf_len, &rep->verf);
	if (rc)
		return rc;
	if (!cmkit_xdr_u32(x, &rep->accept_stat))
		return CMKIT_RPCRDMA_E_SHORT;
	switch (rep->accept_stat) {
	case CMKIT_RPC_SUCCESS:
		rep->results = x->p + x->off;
		rep->results_len = x->len - x->off;
		return CMKIT_RPCRDMA_OK;
	case CMKIT_RPC_PROG_UNAVAIL:
		return CMKIT_RPCRDMA_E_PROG_UNAVAIL;
	case CMKIT_RPC_PROG_MISMATCH:
		if (!cmkit_xdr_u32(x, &rep->low) || !cmkit_xdr_u32(x, &rep->high))
			return CMKIT_RPCRDMA_E_SHORT;
		return CMKIT_RPCRDMA_E_PROG_MISMATCH;
	case CMKIT_RPC_PROC_UNAVAIL:
		return CMKIT_RPCRDMA_E_PROC_UNAVAIL;
	case CMKIT_RPC_GARBAGE_ARGS:
		return CMKIT_RPCRDMA_E_GARBAGE_ARGS;
	case CMKIT_RPC_SYSTEM_ERR:
		return CMKIT_RPCRDMA_E_SYSTEM_ERR;
	default:
		return CMKIT_RPCRDMA_E_XDR;
	}
}

/* Results that mean the whole reply was read and is well formed. */
static int cmkit_rpcrdma_result_complete(int rc)
{
	return rc == CMKIT_RPCRDMA_OK ||
	       (rc <= CMKIT_RPCRDMA_E_ERR_VERS && rc >= CMKIT_RPCRDMA_E_AUTH_ERROR);
}

/* The RPC half of a reply, and its xid and verifier against the transport's. */
static int cmkit_rpc_decode_reply_checked(struct cmkit_xdr_in *x, cmkit_u32 rdma_xid,
					  struct cmkit_rpcrdma_reply *rep)
{
	int rc = cmkit_rpc_decode_reply(x, rep);

	if (!cmkit_rpcrdma_result_complete(rc))
		return rc;
	if (rep->xid != rdma_xid)
		return CMKIT_RPCRDMA_E_XID;
	if (rep->reply_stat == CMKIT_RPC_MSG_ACCEPTED &&
	    rep->verf_flavor != CMKIT_RPC_AUTH_NONE)
		return CMKIT_RPCRDMA_E_VERF;
	return rc;
}

/**
 * cmkit_rpcrdma_decode_reply - decode a reply to a call that offered no chunks
 * @buf: the received message
 * @len: its length; nothing past it is read
 * @rep: the decoded reply; zeroed first, then filled as far as decoding went
 *
 * In order: the fixed header (short of 16 bytes is E_SHORT), rdma_vers,
 * rdma_proc; for RDMA_ERROR the error code and, for ERR_VERS, its range;
 * for RDMA_MSG the three chunk lists, each walked to its end (any entry is
 * E_CHUNKS, since the client offered none), then the RPC reply, whose xid
 * must equal rdma_xid and whose verifier must be AUTH_NONE.  RDMA_NOMSG
 * would put the reply in a reply chunk that was never offered; it and the
 * deprecated RDMA_MSGP and RDMA_DONE are E_PROC.  Every truncation is
 * E_SHORT.  Bytes after a complete reply are the procedure's results.
 *
 * Return: CMKIT_RPCRDMA_OK for an accepted SUCCESS, else a negative
 * enum cmkit_rpcrdma_result (see its table).
 */
int cmkit_rpcrdma_decode_reply(const void *buf, cmkit_size len,
			       struct cmkit_rpcrdma_reply *rep)
{
	struct cmkit_rpcrdma_hdr *h;
	struct cmkit_xdr_in x;
	int rc;

	if (!rep || (len && !buf))
		return CMKIT_RPCRDMA_E_ARG;
	cmkit_zero(rep, sizeof(*rep));
	h = &rep->hdr;
	cmkit_xdr_init(&x, buf, len);
	rc = cmkit_rpcrdma_decode_fixed(&x, h);
	if (rc)
		return rc;
	if (h->rdma_proc == CMKIT_RPCRDMA_ERROR) {
		if (!cmkit_xdr_u32(&x, &rep->rdma_err))
			return CMKIT_RPCRDMA_E_SHORT;
		if (rep->rdma_err == CMKIT_RPCRDMA_ERR_CHUNK) {
			h->len = x.off;
			return CMKIT_RPCRDMA_E_ERR_CHUNK;
		}
		if (rep->rdma_err != CMKIT_RPCRDMA_ERR_VERS)
			return CMKIT_RPCRDMA_E_XDR;
		if (!cmkit_xdr_u32(&x, &rep->low) || !cmkit_xdr_u32(&x, &rep->high))
			return CMKIT_RPCRDMA_E_SHORT;
		h->len = x.off;
		return CMKIT_RPCRDMA_E_ERR_VERS;
	}
	if (h->rdma_proc != CMKIT_RPCRDMA_MSG)
		return CMKIT_RPCRDMA_E_PROC;
	rc = cmkit_rpcrdma_decode_lists(&x, h);
	if (rc)
		return rc;
	return cmkit_rpc_decode_reply_checked(&x, h->rdma_xid, rep);
}

/**
 * cmkit_rpcrdma_decode_rpc_reply - decode an RPC reply message alone
 * @buf: the message, from its xid on (a reply chunk's memory, or inline)
 * @len: its length; nothing past it is read
 * @rdma_xid: the transport xid the RPC xid must equal
 * @rep: the decoded reply; @rep->hdr is kept, the rest zeroed first
 *
 * What cmkit_rpcrdma_decode_reply() does after the transport header.
 *
 * Return: CMKIT_RPCRDMA_OK for an accepted SUCCESS, else a negative
 * enum cmkit_rpcrdma_result.
 */
int cmkit_rpcrdma_decode_rpc_reply(const void *buf, cmkit_size len, cmkit_u32 rdma_xid,
				   struct cmkit_rpcrdma_reply *rep)
{
	struct cmkit_rpcrdma_hdr h;
	struct cmkit_xdr_in x;

	if (!rep || (len && !buf))
		return CMKIT_RPCRDMA_E_ARG;
	cmkit_copy(&h, &rep->hdr, sizeof(h));
	cmkit_zero(rep, sizeof(*rep));
	cmkit_copy(&rep->hdr, &h, sizeof(h));
	cmkit_xdr_init(&x, buf, len);
	return cmkit_rpc_decode_reply_checked(&x, rdma_xid, rep);
}

/*
 * The RPC half of a call, from its xid on: the arguments are the rest; the
 * xid must equal @call->hdr.rdma_xid.
 */
static int cmkit_rpc_decode_call(struct cmkit_xdr_in *x, struct cmkit_rpcrdma_call *call)
{
	cmkit_u32 mtype;
	int rc;

	if (!cmkit_xdr_u32(x, &call->xid) || !cmkit_xdr_u32(x, &mtype))
		return CMKIT_RPCRDMA_E_SHORT;
	if (mtype == CMKIT_RPC_REPLY)
		return CMKIT_RPCRDMA_E_MSG_TYPE;
	if (mtype != CMKIT_RPC_CALL)
		return CMKIT_RPCRDMA_E_XDR;
	if (!cmkit_xdr_u32(x, &call->rpcvers) || !cmkit_xdr_u32(x, &call->prog) ||
	    !cmkit_xdr_u32(x, &call->vers) || !cmkit_xdr_u32(x, &call->proc))
		return CMKIT_RPCRDMA_E_SHORT;
	if (call->rpcvers != CMKIT_RPC_VERSION)
		return CMKIT_RPCRDMA_E_RPCVERS;
	rc = cmkit_xdr_auth(x, &call->cred_flavor, &call->cred_len, &call->cred);
	if (rc)
		return rc;
	rc = cmkit_xdr_auth(x, &call->verf_flavor, &call->verf_len, &call->verf);
	if (rc)
		return rc;
	call->args = x->p + x->off;
	call->args_len = x->len - x->off;
	if (call->xid != call->hdr.rdma_xid)
		return CMKIT_RPCRDMA_E_XID;
	return CMKIT_RPCRDMA_OK;
}

/**
 * cmkit_rpcrdma_decode_call - decode a call, as a server without chunks
 * @buf: the received message
 * @len: its length; nothing past it is read
 * @call: the decoded call; zeroed first, then filled as far as decoding went
 *
 * What a server answers, as svcrdma and the sunrpc server do:
 *  - E_VERS: RDMA_ERROR ERR_VERS with the range 1..1;
 *  - rdma_proc RDMA_DONE or RDMA_ERROR (E_PROC): nothing, drop it;
 *  - E_SHORT, E_XDR, E_PROC or E_CHUNKS while @call->hdr.len is 0 (the
 *    transport header): RDMA_ERROR ERR_CHUNK;
 *  - E_RPCVERS: MSG_DENIED RPC_MISMATCH 2..2;
 *  - E_AUTH_LEN: MSG_DENIED AUTH_ERROR AUTH_BADCRED;
 *  - E_SHORT, E_XDR, E_MSG_TYPE, E_XID in the RPC message: drop it.
 * A valid call names any program, version, procedure and auth flavors: a
 * server that serves only some answers PROG_UNAVAIL, PROG_MISMATCH,
 * PROC_UNAVAIL or AUTH_ERROR itself.
 *
 * Return: CMKIT_RPCRDMA_OK, or a negative enum cmkit_rpcrdma_result.
 */
int cmkit_rpcrdma_decode_call(const void *buf, cmkit_size len,
			      struct cmkit_rpcrdma_call *call)
{
	struct cmkit_xdr_in x;
	int rc;

	if (!call || (len && !buf))
		return CMKIT_RPCRDMA_E_ARG;
	cmkit_zero(call, sizeof(*call));
	cmkit_xdr_init(&x, buf, len);
	rc = cmkit_rpcrdma_decode_fixed(&x, &call->hdr);
	if (rc)
		return rc;
	if (call->hdr.rdma_proc != CMKIT_RPCRDMA_MSG)
		return CMKIT_RPCRDMA_E_PROC;
	rc = cmkit_rpcrdma_decode_lists(&x, &call->hdr);
	if (rc)
		return rc;
	return cmkit_rpc_decode_call(&x, call);
}

/**
 * cmkit_rpcrdma_decode_rpc_call - decode an RPC call message alone
 * @buf: the message, from its xid on (a position-zero read chunk's memory,
 *	or inline)
 * @len: its length; nothing past it is read
 * @call: the decoded call; @call->hdr is kept (the RPC xid must equal its
 *	rdma_xid), the rest zeroed first
 *
 * What cmkit_rpcrdma_decode_call() does after the transport header.
 *
 * Return: CMKIT_RPCRDMA_OK, or a negative enum cmkit_rpcrdma_result.
 */
int cmkit_rpcrdma_decode_rpc_call(const void *buf, cmkit_size len,
				  struct cmkit_rpcrdma_call *call)
{
	struct cmkit_rpcrdma_hdr h;
	struct cmkit_xdr_in x;

	if (!call || (len && !buf))
		return CMKIT_RPCRDMA_E_ARG;
	cmkit_copy(&h, &call->hdr, sizeof(h));
	cmkit_zero(call, sizeof(*call));
	cmkit_copy(&call->hdr, &h, sizeof(h));
	cmkit_xdr_init(&x, buf, len);
	return cmkit_rpc_decode_call(&x, call);
}

/**
 * cmkit_rpcrdma_encode_reply - write a reply as a server
 * @buf: output buffer
 * @buflen: its size (CMKIT_RPCRDMA_MAX_REPLY_LEN always suffices)
 * @rep: what to answer: @rep->hdr.rdma_xid (the call's),
 *	@rep->hdr.rdma_credit (the grant), @rep->hdr.rdma_proc and the fields
 *	it selects: for RDMA_ERROR
 *	@rep->rdma_err and, for ERR_VERS, @rep->low and @rep->high; for
 *	RDMA_MSG @rep->reply_stat and then either the verifier
 *	(@rep->verf_flavor, @rep->verf_len, @rep->verf) and @rep->accept_stat
 *	(with @rep->low and @rep->high for PROG_MISMATCH), or
 *	@rep->reject_stat (with @rep->low and @rep->high for RPC_MISMATCH, or
 *	@rep->auth_stat for AUTH_ERROR)
 *
 * Writes rdma_vers 1, empty chunk lists, @rep->hdr.rdma_xid as the RPC xid,
 * and no results.  Other fields are ignored.  Whatever this writes,
 * cmkit_rpcrdma_decode_reply() decodes to the same fields.
 *
 * Return: the reply's length, or CMKIT_RPCRDMA_E_ARG (a value outside its
 * type, a verifier over 400 bytes) or CMKIT_RPCRDMA_E_NOSPACE (then nothing
 * was written).
 */
int cmkit_rpcrdma_encode_reply(void *buf, cmkit_size buflen,
			       const struct cmkit_rpcrdma_reply *rep)
{
	cmkit_u32 w[10];
	cmkit_u8 *p = (cmkit_u8 *)buf;
	cmkit_u32 padded = 0;
	unsigned int n = 0, tail = 0, i;
	cmkit_size total;

	if (!p || !rep)
		return CMKIT_RPCRDMA_E_ARG;
	if (rep->hdr.rdma_proc == CMKIT_RPCRDMA_ERROR) {
		w[n++] = rep->rdma_err;
		if (rep->rdma_err == CMKIT_RPCRDMA_ERR_VERS) {
			w[n++] = rep->low;
			w[n++] = rep->high;
		} else if (rep->rdma_err != CMKIT_RPCRDMA_ERR_CHUNK) {
			return CMKIT_RPCRDMA_E_ARG;
		}
	} else if (rep->hdr.rdma_proc == CMKIT_RPCRDMA_MSG) {
		w[n++] = 0;			/* no read list */
		w[n++] = 0;			/* no write list */
		w[n++] = 0;			/* no reply chunk */
		w[n++] = rep->hdr.rdma_xid;
		w[n++] = CMKIT_RPC_REPLY;
		w[n++] = rep->reply_stat;
		if (rep->reply_stat == CMKIT_RPC_MSG_ACCEPTED) {
			if (rep->verf_len > CMKIT_RPC_MAX_AUTH_LEN ||
			    (rep->verf_len && !rep->verf) ||
			    rep->accept_stat > CMKIT_RPC_SYSTEM_ERR)
				return CMKIT_RPCRDMA_E_ARG;
			w[n++] = rep->verf_flavor;
			w[n++] = rep->verf_len;
			padded = (rep->verf_len + 3) & ~3U;
			tail = rep->accept_stat == CMKIT_RPC_PROG_MISMATCH ? 3 : 1;
		} else if (rep->reply_stat == CMKIT_RPC_MSG_DENIED) {
			w[n++] = rep->reject_stat;
			if (rep->reject_stat == CMKIT_RPC_MISMATCH) {
				w[n++] = rep->low;
				w[n++] = rep->high;
			} else if (rep->reject_stat == CMKIT_RPC_AUTH_ERROR &&
				   rep->auth_stat >= 1 &&
				   rep->auth_stat <= CMKIT_RPC_AUTH_STAT_MAX) {
				w[n++] = rep->auth_stat;
			} else {
				return CMKIT_RPCRDMA_E_ARG;
			}
		} else {
			return CMKIT_RPCRDMA_E_ARG;
		}
	} else {
		return CMKIT_RPCRDMA_E_ARG;
	}
	total = CMKIT_RPCRDMA_FIXED_LEN + 4 * (cmkit_size)(n + tail) + padded;
	if (buflen < total)
		return CMKIT_RPCRDMA_E_NOSPACE;
	cmkit_put_be32(p, rep->hdr.rdma_xid);
	cmkit_put_be32(p + 4, CMKIT_RPCRDMA_VERSION);
	cmkit_put_be32(p + 8, rep->hdr.rdma_credit);
	cmkit_put_be32(p + 12, rep->hdr.rdma_proc);
	p += CMKIT_RPCRDMA_FIXED_LEN;
	for (i = 0; i < n; i++, p += 4)
		cmkit_put_be32(p, w[i]);
	if (tail) {
		if (rep->verf_len)
			cmkit_copy(p, rep->verf, rep->verf_len);
		cmkit_zero(p + rep->verf_len, padded - rep->verf_len);
		p += padded;
		cmkit_put_be32(p, rep->accept_stat);
		if (tail == 3) {
			cmkit_put_be32(p + 4, rep->low);
			cmkit_put_be32(p + 8, rep->high);
		}
	}
	return (int)total;
}

/**
 * cmkit_rpcrdma_credit_limit - the calls a client may have outstanding
 * @grant: rdma_credit of a reply
 * @ring: the client's receive ring, the credits it asks for (0 counts as 1)
 *
 * xprtrdma's rule: a grant of 0 would stop the client for good, so it is
 * taken as 1; a grant above what the client can receive is clamped to it.
 *
 * Return: the credit limit, 1..max(@ring, 1).
 */
cmkit_u32 cmkit_rpcrdma_credit_limit(cmkit_u32 grant, cmkit_u32 ring)
{
	if (!ring)
		ring = 1;
	if (!grant)
		return 1;
	return grant > ring ? ring : grant;
}

/**
 * cmkit_rpcrdma_result_class - accepted, rejected, malformed or local
 * @result: an enum cmkit_rpcrdma_result
 *
 * Return: an enum cmkit_rpcrdma_class; unknown values are malformed.
 */
int cmkit_rpcrdma_result_class(int result)
{
	if (result == CMKIT_RPCRDMA_OK)
		return CMKIT_RPCRDMA_ACCEPTED;
	if (result <= CMKIT_RPCRDMA_E_ERR_VERS && result >= CMKIT_RPCRDMA_E_AUTH_ERROR)
		return CMKIT_RPCRDMA_REJECTED;
	if (result == CMKIT_RPCRDMA_E_NOSPACE || result == CMKIT_RPCRDMA_E_ARG)
		return CMKIT_RPCRDMA_LOCAL;
	return CMKIT_RPCRDMA_MALFORMED;
}

/**
 * cmkit_rpcrdma_result_errno - the errno a kernel client reports for a result
 * @result: an enum cmkit_rpcrdma_result
 *
 * Return: an enum cmkit_rpcrdma_errno (see the table at
 * enum cmkit_rpcrdma_result); unknown values give CMKIT_RPCRDMA_EIO.
 */
int cmkit_rpcrdma_result_errno(int result)
{
	switch (result) {
	case CMKIT_RPCRDMA_OK:
		return CMKIT_RPCRDMA_ERRNO_NONE;
	case CMKIT_RPCRDMA_E_PROG_UNAVAIL:
		return CMKIT_RPCRDMA_EPFNOSUPPORT;
	case CMKIT_RPCRDMA_E_PROG_MISMATCH:
	case CMKIT_RPCRDMA_E_RPC_MISMATCH:
		return CMKIT_RPCRDMA_EPROTONOSUPPORT;
	case CMKIT_RPCRDMA_E_PROC_UNAVAIL:
		return CMKIT_RPCRDMA_EOPNOTSUPP;
	case CMKIT_RPCRDMA_E_AUTH_ERROR:
		return CMKIT_RPCRDMA_EACCES;
	case CMKIT_RPCRDMA_E_NOSPACE:
		return CMKIT_RPCRDMA_EMSGSIZE;
	case CMKIT_RPCRDMA_E_ARG:
		return CMKIT_RPCRDMA_EINVAL;
	default:
		return CMKIT_RPCRDMA_EIO;
	}
}

/**
 * cmkit_rpcrdma_strerror - a short description of a result
 * @result: an enum cmkit_rpcrdma_result
 *
 * Return: a static string.
 */
const char *cmkit_rpcrdma_strerror(int result)
{
	switch (result) {
	case CMKIT_RPCRDMA_OK:
		return "success";
	case CMKIT_RPCRDMA_E_SHORT:
		return "message too short";
	case CMKIT_RPCRDMA_E_VERS:
		return "transport version not 1";
	case CMKIT_RPCRDMA_E_PROC:
		return "unexpected transport procedure";
	case CMKIT_RPCRDMA_E_XDR:
		return "value outside its XDR type";
	case CMKIT_RPCRDMA_E_CHUNKS:
		return "unexpected chunk";
	case CMKIT_RPCRDMA_E_XID:
		return "RPC xid differs from transport xid";
	case CMKIT_RPCRDMA_E_MSG_TYPE:
		return "wrong RPC message type";
	case CMKIT_RPCRDMA_E_AUTH_LEN:
		return "auth body over 400 bytes";
	case CMKIT_RPCRDMA_E_VERF:
		return "reply verifier not AUTH_NONE";
	case CMKIT_RPCRDMA_E_RPCVERS:
		return "RPC version not 2";
	case CMKIT_RPCRDMA_E_ERR_VERS:
		return "RDMA_ERROR ERR_VERS";
	case CMKIT_RPCRDMA_E_ERR_CHUNK:
		return "RDMA_ERROR ERR_CHUNK";
	case CMKIT_RPCRDMA_E_PROG_UNAVAIL:
		return "program unavailable";
	case CMKIT_RPCRDMA_E_PROG_MISMATCH:
		return "program version mismatch";
	case CMKIT_RPCRDMA_E_PROC_UNAVAIL:
		return "procedure unavailable";
	case CMKIT_RPCRDMA_E_GARBAGE_ARGS:
		return "garbage arguments";
	case CMKIT_RPCRDMA_E_SYSTEM_ERR:
		return "system error";
	case CMKIT_RPCRDMA_E_RPC_MISMATCH:
		return "RPC version mismatch";
	case CMKIT_RPCRDMA_E_AUTH_ERROR:
		return "authentication error";
	case CMKIT_RPCRDMA_E_NOSPACE:
		return "buffer too small";
	case CMKIT_RPCRDMA_E_ARG:
		return "bad argument";
	default:
		return "unknown result";
	}
}

/**
 * cmkit_rpcrdma_result_name - the name of a result, as in its enum
 * @result: an enum cmkit_rpcrdma_result
 *
 * Return: "OK", "E_SHORT", ... (the enumerator without CMKIT_RPCRDMA_), or
 * "E_UNKNOWN"; a static string.
 */
const char *cmkit_rpcrdma_result_name(int result)
{
	switch (result) {
	case CMKIT_RPCRDMA_OK:
		return "OK";
	case CMKIT_RPCRDMA_E_SHORT:
		return "E_SHORT";
	case CMKIT_RPCRDMA_E_VERS:
		return "E_VERS";
	case CMKIT_RPCRDMA_E_PROC:
		return "E_PROC";
	case CMKIT_RPCRDMA_E_XDR:
		return "E_XDR";
	case CMKIT_RPCRDMA_E_CHUNKS:
		return "E_CHUNKS";
	case CMKIT_RPCRDMA_E_XID:
		return "E_XID";
	case CMKIT_RPCRDMA_E_MSG_TYPE:
		return "E_MSG_TYPE";
	case CMKIT_RPCRDMA_E_AUTH_LEN:
		return "E_AUTH_LEN";
	case CMKIT_RPCRDMA_E_VERF:
		return "E_VERF";
	case CMKIT_RPCRDMA_E_RPCVERS:
		return "E_RPCVERS";
	case CMKIT_RPCRDMA_E_ERR_VERS:
		return "E_ERR_VERS";
	case CMKIT_RPCRDMA_E_ERR_CHUNK:
		return "E_ERR_CHUNK";
	case CMKIT_RPCRDMA_E_PROG_UNAVAIL:
		return "E_PROG_UNAVAIL";
	case CMKIT_RPCRDMA_E_PROG_MISMATCH:
		return "E_PROG_MISMATCH";
	case CMKIT_RPCRDMA_E_PROC_UNAVAIL:
		return "E_PROC_UNAVAIL";
	case CMKIT_RPCRDMA_E_GARBAGE_ARGS:
		return "E_GARBAGE_ARGS";
	case CMKIT_RPCRDMA_E_SYSTEM_ERR:
		return "E_SYSTEM_ERR";
	case CMKIT_RPCRDMA_E_RPC_MISMATCH:
		return "E_RPC_MISMATCH";
	case CMKIT_RPCRDMA_E_AUTH_ERROR:
		return "E_AUTH_ERROR";
	case CMKIT_RPCRDMA_E_NOSPACE:
		return "E_NOSPACE";
	case CMKIT_RPCRDMA_E_ARG:
		return "E_ARG";
	default:
		return "E_UNKNOWN";
	}
}
