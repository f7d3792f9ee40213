/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * RPC-over-RDMA version 1 messages (RFC 8166) carrying ONC RPC version 2
 * (RFC 5531) NULL calls and their replies: what a client sends and decodes,
 * and what a test server decodes and answers.  The name follows RFC 8166's
 * own: struct rdma_msg is the transport header every message starts with.
 *
 * Every field is a big-endian 32-bit XDR word (offsets are 64-bit).
 *
 *  0               1               2               3
 *  +---------------+---------------+---------------+---------------+
 *  |                           rdma_xid                            |
 *  +---------------------------------------------------------------+
 *  |                      rdma_vers (always 1)                     |
 *  +---------------------------------------------------------------+
 *  |          rdma_credit (call: request; reply: grant)            |
 *  +---------------------------------------------------------------+
 *  |    rdma_proc: RDMA_MSG 0, NOMSG 1, MSGP 2, DONE 3, ERROR 4    |
 *  +---------------------------------------------------------------+
 *  RDMA_MSG and RDMA_NOMSG go on with three chunk lists (XDR optional
 *  data: a 1 before each entry, a 0 at the end):
 *  |  read list:  { 1, position, handle, length, offset(8) }*  0   |
 *  |  write list: { 1, nsegs, { handle, length, offset(8) }[nsegs] }* 0
 *  |  reply chunk: 0, or 1, nsegs, { handle, length, offset(8) }[nsegs]
 *  +---------------------------------------------------------------+
 *  RDMA_ERROR goes on with an error code instead:
 *  |  ERR_VERS 1, vers_low, vers_high   or   ERR_CHUNK 2           |
 *  +---------------------------------------------------------------+
 *
 * The RPC message follows the chunk lists of an RDMA_MSG:
 *
 *   call:  xid, CALL 0, rpcvers 2, prog, vers, proc,
 *          cred { flavor, length, body[length] padded to 4 },
 *          verf { flavor, length, body[length] padded to 4 }, arguments
 *   reply: xid, REPLY 1, then
 *          MSG_ACCEPTED 0, verf { flavor, length, body }, accept_stat:
 *              SUCCESS 0 (results follow), PROG_UNAVAIL 1,
 *              PROG_MISMATCH 2 (low, high), PROC_UNAVAIL 3,
 *              GARBAGE_ARGS 4, SYSTEM_ERR 5
 *          MSG_DENIED 1, reject_stat:
 *              RPC_MISMATCH 0 (low, high), AUTH_ERROR 1 (auth_stat)
 *
 * Opaque auth bodies are at most 400 bytes.  A NULL call with AUTH_NONE
 * credential and verifier is 28 + 40 = 68 bytes; its SUCCESS reply 28 + 24
 * = 52.  The client here offers no chunks, so every chunk list of a reply it
 * decodes must be empty; the server here takes calls without chunks only.
 *
 * Credits (RFC 8166, sections 3.3.1 and 3.3.3).  A call's rdma_credit asks
 * for a number of outstanding calls, a reply's grants one; a requester must
 * not have more calls outstanding than the latest grant, and until the first
 * reply of a connection it may assume only one credit.  What upstream does:
 *  - xprtrdma (net/sunrpc/xprtrdma/rpc_rdma.c, rpcrdma_reply_handler) asks
 *    for its receive ring, re_max_requests (sunrpc.rdma_slot_table_entries,
 *    128 by default, lowered to what the device's max_qp_wr allows), in
 *    every call; resets its window to one credit at each connect; and
 *    sanitizes every grant before use: 0 becomes 1 ("don't deadlock"),
 *    more than re_max_requests becomes re_max_requests.  A grant is applied
 *    only from a reply that matched a waiting call; a short reply or one of
 *    another version leaves the previous grant in force.
 *  - svcrdma grants a constant sc_max_requests in every reply, RDMA_ERROR
 *    included, whatever the call asked for: svcrdma_max_requests
 *    (/proc/sys/sunrpc/svc_rdma/max_requests, 4..16384; 64 by default on
 *    6.1 and 6.12, 128 on 7.3), lowered only when the device's max_qp_wr
 *    cannot hold that many receives.
 * cmkit_rpcrdma_credit_limit() is xprtrdma's sanitizing rule.
 *
 * Nothing here reads or writes past the lengths it is given, and nothing
 * trusts a count from the wire before checking it against those lengths.
 */
#ifndef CMKIT_RPCRDMA_MSG_H
#define CMKIT_RPCRDMA_MSG_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* RFC 8166 */
#define CMKIT_RPCRDMA_VERSION		1
#define CMKIT_RPCRDMA_MSG		0
#define CMKIT_RPCRDMA_NOMSG		1
#define CMKIT_RPCRDMA_MSGP		2	/* v1: deprecated */
#define CMKIT_RPCRDMA_DONE		3	/* v1: deprecated */
#define CMKIT_RPCRDMA_ERROR		4
#define CMKIT_RPCRDMA_ERR_VERS		1
#define CMKIT_RPCRDMA_ERR_CHUNK		2

/* RFC 5531 */
#define CMKIT_RPC_VERSION		2
#define CMKIT_RPC_CALL			0
#define CMKIT_RPC_REPLY			1
#define CMKIT_RPC_MSG_ACCEPTED		0
#define CMKIT_RPC_MSG_DENIED		1
#define CMKIT_RPC_SUCCESS		0
#define CMKIT_RPC_PROG_UNAVAIL		1
#define CMKIT_RPC_PROG_MISMATCH		2
#define CMKIT_RPC_PROC_UNAVAIL		3
#define CMKIT_RPC_GARBAGE_ARGS		4
#define CMKIT_RPC_SYSTEM_ERR		5
#define CMKIT_RPC_MISMATCH		0	/* reject_stat */
#define CMKIT_RPC_AUTH_ERROR		1	/* reject_stat */
#define CMKIT_RPC_AUTH_BADCRED		1	/* auth_stat, 1..14 */
#define CMKIT_RPC_AUTH_REJECTEDCRED	2
#define CMKIT_RPC_AUTH_BADVERF		3
#define CMKIT_RPC_AUTH_REJECTEDVERF	4
#define CMKIT_RPC_AUTH_TOOWEAK		5
#define CMKIT_RPC_AUTH_STAT_MAX		14	/* RPCSEC_GSS_CTXPROBLEM */
#define CMKIT_RPC_AUTH_NONE		0	/* flavor */
#define CMKIT_RPC_AUTH_SYS		1
#define CMKIT_RPC_MAX_AUTH_LEN		400
#define CMKIT_RPC_NULL_PROC		0

/* Well-known programs a NULL call may be sent to. */
#define CMKIT_RPC_PROG_NFS		100003

/* Sizes on the wire. */
#define CMKIT_RPCRDMA_PEEK_LEN		12	/* rdma_xid, rdma_vers, rdma_credit */
#define CMKIT_RPCRDMA_FIXED_LEN		16	/* ... and rdma_proc */
#define CMKIT_RPCRDMA_HDR_LEN		28	/* RDMA_MSG with three empty lists */
#define CMKIT_RPCRDMA_NULL_CALL_LEN	(CMKIT_RPCRDMA_HDR_LEN + 40)
/*
 * The longest reply cmkit_rpcrdma_encode_reply() writes: xid, REPLY,
 * MSG_ACCEPTED, a 400-byte verifier (flavor, length, body), PROG_MISMATCH,
 * low, high.
 */
#define CMKIT_RPCRDMA_MAX_REPLY_LEN	(CMKIT_RPCRDMA_HDR_LEN + 32 + \
					 CMKIT_RPC_MAX_AUTH_LEN)

/*
 * Results.
 *
 * One value per outcome, 0 or negative.  cmkit_rpcrdma_result_class() sorts
 * them into accepted, rejected, malformed and local;
 * cmkit_rpcrdma_result_errno() gives the errno a kernel client reports, the
 * one net/sunrpc/clnt.c (rpc_decode_header) and xprtrdma
 * (rpcrdma_complete_rqst) give for the same reply:
 *
 *   result               class      errno            upstream
 *   OK                   accepted   0                rpc_success
 *   E_SHORT              malformed  EIO              xprtrdma drops a reply
 *                                                    short of 16 bytes;
 *                                                    clnt.c: unparsable EIO
 *   E_VERS               malformed  EIO              xprtrdma drops it
 *   E_PROC               malformed  EIO              xprtrdma: -EIO (NOMSG
 *                                                    is -EIO without a
 *                                                    reply chunk offered)
 *   E_XDR                malformed  EIO              unparsable: -EIO
 *   E_CHUNKS             malformed  EIO              xprtrdma: -EIO
 *   E_XID                malformed  EIO              (upstream matches on
 *                                                    rdma_xid only)
 *   E_MSG_TYPE           malformed  EIO              unparsable: -EIO
 *   E_AUTH_LEN           malformed  EIO              unparsable: -EIO
 *   E_VERF               malformed  EIO              auth_null: -EIO
 *   E_RPCVERS            malformed  EIO              (calls only)
 *   E_ERR_VERS           rejected   EIO              rpcrdma_decode_error
 *   E_ERR_CHUNK          rejected   EIO              rpcrdma_decode_error
 *   E_PROG_UNAVAIL       rejected   EPFNOSUPPORT     rpc_decode_header
 *   E_PROG_MISMATCH      rejected   EPROTONOSUPPORT  rpc_decode_header
 *   E_PROC_UNAVAIL       rejected   EOPNOTSUPP       rpc_decode_header
 *   E_GARBAGE_ARGS       rejected   EIO              rpc_decode_header
 *   E_SYSTEM_ERR         rejected   EIO              rpc_decode_header
 *   E_RPC_MISMATCH       rejected   EPROTONOSUPPORT  rpc_decode_header
 *   E_AUTH_ERROR         rejected   EACCES           rpc_decode_header
 *   E_NOSPACE            local      EMSGSIZE         rpc_encode_header
 *   E_ARG                local      EINVAL
 *
 * Where cmkit differs: an AUTH_NONE reply verifier with a body is accepted
 * (RFC 5531, section 8.1, only recommends length 0; Linux's auth_null
 * refuses it with EIO); AUTH_ERROR is EACCES for every auth_stat of RFC 5531
 * (Linux retries some first and calls 6..12 unparsable).  ERR_VERS stays
 * EIO as in xprtrdma, although svcrdma sends it for what it calls
 * EPROTONOSUPPORT.  A kernel control plane that only says "malformed or
 * rejected" reports -EPROTO for both classes.  As in xprtrdma, a reply
 * that cmkit_rpcrdma_peek() finds short or of another version is counted
 * and dropped (no call can be matched to it, or trusted to be its own);
 * once a waiting call is found, every result of the full decode, E_SHORT
 * included, completes it.
 */

/**
 * enum cmkit_rpcrdma_result - what decoding or encoding a message gave
 * @CMKIT_RPCRDMA_OK: a SUCCESS reply; a valid call
 * @CMKIT_RPCRDMA_E_SHORT: the message ends before its header or body does
 * @CMKIT_RPCRDMA_E_VERS: rdma_vers other than 1
 * @CMKIT_RPCRDMA_E_PROC: an rdma_proc not expected here
 * @CMKIT_RPCRDMA_E_XDR: a value outside its XDR type (a discriminator not
 *	0 or 1, a status no RFC defines)
 * @CMKIT_RPCRDMA_E_CHUNKS: a chunk list that is not empty
 * @CMKIT_RPCRDMA_E_XID: an RPC xid other than rdma_xid
 * @CMKIT_RPCRDMA_E_MSG_TYPE: a call where a reply belongs, or the reverse
 * @CMKIT_RPCRDMA_E_AUTH_LEN: an opaque_auth body over 400 bytes
 * @CMKIT_RPCRDMA_E_VERF: a reply verifier not of flavor AUTH_NONE
 * @CMKIT_RPCRDMA_E_RPCVERS: a call of an RPC version other than 2
 * @CMKIT_RPCRDMA_E_ERR_VERS: RDMA_ERROR, ERR_VERS
 * @CMKIT_RPCRDMA_E_ERR_CHUNK: RDMA_ERROR, ERR_CHUNK
 * @CMKIT_RPCRDMA_E_PROG_UNAVAIL: MSG_ACCEPTED, PROG_UNAVAIL
 * @CMKIT_RPCRDMA_E_PROG_MISMATCH: MSG_ACCEPTED, PROG_MISMATCH
 * @CMKIT_RPCRDMA_E_PROC_UNAVAIL: MSG_ACCEPTED, PROC_UNAVAIL
 * @CMKIT_RPCRDMA_E_GARBAGE_ARGS: MSG_ACCEPTED, GARBAGE_ARGS
 * @CMKIT_RPCRDMA_E_SYSTEM_ERR: MSG_ACCEPTED, SYSTEM_ERR
 * @CMKIT_RPCRDMA_E_RPC_MISMATCH: MSG_DENIED, RPC_MISMATCH
 * @CMKIT_RPCRDMA_E_AUTH_ERROR: MSG_DENIED, AUTH_ERROR
 * @CMKIT_RPCRDMA_E_NOSPACE: the output buffer is too small
 * @CMKIT_RPCRDMA_E_ARG: a bad argument
 */
enum cmkit_rpcrdma_result {
	CMKIT_RPCRDMA_OK		= 0,
	CMKIT_RPCRDMA_E_SHORT		= -1,
	CMKIT_RPCRDMA_E_VERS		= -2,
	CMKIT_RPCRDMA_E_PROC		= -3,
	CMKIT_RPCRDMA_E_XDR		= -4,
	CMKIT_RPCRDMA_E_CHUNKS		= -5,
	CMKIT_RPCRDMA_E_XID		= -6,
	CMKIT_RPCRDMA_E_MSG_TYPE	= -7,
	CMKIT_RPCRDMA_E_AUTH_LEN	= -8,
	CMKIT_RPCRDMA_E_VERF		= -9,
	CMKIT_RPCRDMA_E_RPCVERS		= -10,
	CMKIT_RPCRDMA_E_ERR_VERS	= -20,
	CMKIT_RPCRDMA_E_ERR_CHUNK	= -21,
	CMKIT_RPCRDMA_E_PROG_UNAVAIL	= -22,
	CMKIT_RPCRDMA_E_PROG_MISMATCH	= -23,
	CMKIT_RPCRDMA_E_PROC_UNAVAIL	= -24,
	CMKIT_RPCRDMA_E_GARBAGE_ARGS	= -25,
	CMKIT_RPCRDMA_E_SYSTEM_ERR	= -26,
	CMKIT_RPCRDMA_E_RPC_MISMATCH	= -27,
	CMKIT_RPCRDMA_E_AUTH_ERROR	= -28,
	CMKIT_RPCRDMA_E_NOSPACE		= -40,
	CMKIT_RPCRDMA_E_ARG		= -41,
};

/* The classes of cmkit_rpcrdma_result_class(). */
enum cmkit_rpcrdma_class {
	CMKIT_RPCRDMA_ACCEPTED,		/* the call succeeded */
	CMKIT_RPCRDMA_REJECTED,		/* a well-formed refusal */
	CMKIT_RPCRDMA_MALFORMED,	/* breaks RFC 8166/5531 or the call's terms */
	CMKIT_RPCRDMA_LOCAL,		/* our own message could not be built */
};

/*
 * Abstract errno values of cmkit_rpcrdma_result_errno(): the kernel maps
 * each to the errno of the same name (no errno header here).
 */
enum cmkit_rpcrdma_errno {
	CMKIT_RPCRDMA_ERRNO_NONE = 0,
	CMKIT_RPCRDMA_EIO,
	CMKIT_RPCRDMA_EPFNOSUPPORT,
	CMKIT_RPCRDMA_EPROTONOSUPPORT,
	CMKIT_RPCRDMA_EOPNOTSUPP,
	CMKIT_RPCRDMA_EACCES,
	CMKIT_RPCRDMA_EMSGSIZE,
	CMKIT_RPCRDMA_EINVAL,
};

/**
 * struct cmkit_rpcrdma_hdr - a transport header, decoded or to encode
 * @rdma_xid: transport xid
 * @rdma_vers: transport version
 * @rdma_credit: a call's credit request, a reply's raw credit grant (see
 *	cmkit_rpcrdma_credit_limit())
 * @rdma_proc: transport procedure, CMKIT_RPCRDMA_MSG ... CMKIT_RPCRDMA_ERROR
 * @read_chunks: read list entries found (decoding only)
 * @write_chunks: write list chunks found (decoding only)
 * @write_segs: segments over all those write chunks (decoding only)
 * @reply_chunk: 1 if a reply chunk was present (decoding only)
 * @reply_segs: its segments (decoding only)
 * @len: bytes of transport header, where an RPC message starts; 0 until
 *	the header is fully decoded (decoding only)
 */
struct cmkit_rpcrdma_hdr {
	cmkit_u32 rdma_xid;
	cmkit_u32 rdma_vers;
	cmkit_u32 rdma_credit;
	cmkit_u32 rdma_proc;
	cmkit_u32 read_chunks;
	cmkit_u32 write_chunks;
	cmkit_u32 write_segs;
	cmkit_u32 reply_chunk;
	cmkit_u32 reply_segs;
	cmkit_size len;
};

/**
 * struct cmkit_rpcrdma_reply - a reply, decoded or to encode
 * @hdr: the transport header (@hdr.rdma_proc RDMA_MSG or RDMA_ERROR)
 * @rdma_err: RDMA_ERROR: CMKIT_RPCRDMA_ERR_VERS or CMKIT_RPCRDMA_ERR_CHUNK
 * @xid: RPC xid (equal to @hdr.rdma_xid when valid; the encoder writes
 *	@hdr.rdma_xid)
 * @reply_stat: CMKIT_RPC_MSG_ACCEPTED or CMKIT_RPC_MSG_DENIED
 * @verf_flavor: MSG_ACCEPTED: the verifier's flavor
 * @verf_len: its body length, at most CMKIT_RPC_MAX_AUTH_LEN
 * @verf: its body (inside the decoded buffer), or NULL when @verf_len is 0
 * @accept_stat: MSG_ACCEPTED: CMKIT_RPC_SUCCESS ... CMKIT_RPC_SYSTEM_ERR
 * @reject_stat: MSG_DENIED: CMKIT_RPC_MISMATCH or CMKIT_RPC_AUTH_ERROR
 * @auth_stat: AUTH_ERROR: 1..CMKIT_RPC_AUTH_STAT_MAX
 * @low: lowest version of ERR_VERS, PROG_MISMATCH or RPC_MISMATCH
 * @high: highest version of the same
 * @results: SUCCESS: the procedure's results (empty for NULL), inside the
 *	decoded buffer (decoding only)
 * @results_len: their length (decoding only)
 *
 * A zeroed struct with @hdr.rdma_xid set encodes the SUCCESS reply to a NULL
 * call: RDMA_MSG, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS, grant 0.
 */
struct cmkit_rpcrdma_reply {
	struct cmkit_rpcrdma_hdr hdr;
	cmkit_u32 rdma_err;
	cmkit_u32 xid;
	cmkit_u32 reply_stat;
	cmkit_u32 verf_flavor;
	cmkit_u32 verf_len;
	const cmkit_u8 *verf;
	cmkit_u32 accept_stat;
	cmkit_u32 reject_stat;
	cmkit_u32 auth_stat;
	cmkit_u32 low;
	cmkit_u32 high;
	const cmkit_u8 *results;
	cmkit_size results_len;
};

/**
 * struct cmkit_rpcrdma_call - a decoded call
 * @hdr: the transport header (only @hdr.rdma_proc RDMA_MSG is valid)
 * @xid: RPC xid
 * @rpcvers: RPC version (2)
 * @prog: program
 * @vers: program version
 * @proc: procedure (0 is NULL)
 * @cred_flavor: credential flavor
 * @cred_len: credential body length, at most CMKIT_RPC_MAX_AUTH_LEN
 * @cred: credential body inside the decoded buffer, or NULL if empty
 * @verf_flavor: verifier flavor
 * @verf_len: verifier body length, at most CMKIT_RPC_MAX_AUTH_LEN
 * @verf: verifier body inside the decoded buffer, or NULL if empty
 * @args: the procedure's arguments, inside the decoded buffer
 * @args_len: their length
 */
struct cmkit_rpcrdma_call {
	struct cmkit_rpcrdma_hdr hdr;
	cmkit_u32 xid;
	cmkit_u32 rpcvers;
	cmkit_u32 prog;
	cmkit_u32 vers;
	cmkit_u32 proc;
	cmkit_u32 cred_flavor;
	cmkit_u32 cred_len;
	const cmkit_u8 *cred;
	cmkit_u32 verf_flavor;
	cmkit_u32 verf_len;
	const cmkit_u8 *verf;
	const cmkit_u8 *args;
	cmkit_size args_len;
};

/* A bounded XDR reader: @off never passes @len. */
struct cmkit_xdr_in {
	const cmkit_u8 *p;
	cmkit_size len;
	cmkit_size off;
};

static inline int cmkit_xdr_u32(struct cmkit_xdr_in *x, cmkit_u32 *v)
{
	if (x->len - x->off < 4)
		return 0;
	*v = cmkit_get_be32(x->p + x->off);
	x->off += 4;
	return 1;
}

/* Skip @n items of @size bytes each; 0 (and nothing skipped) if they are not all there. */
static inline int cmkit_xdr_skip(struct cmkit_xdr_in *x, cmkit_u32 n, cmkit_size size)
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
static inline int cmkit_xdr_auth(struct cmkit_xdr_in *x, cmkit_u32 *flavor,
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
static inline int cmkit_xdr_present(struct cmkit_xdr_in *x)
{
	cmkit_u32 d;

	if (!cmkit_xdr_u32(x, &d))
		return CMKIT_RPCRDMA_E_SHORT;
	if (d > 1)
		return CMKIT_RPCRDMA_E_XDR;
	return (int)d;
}

static inline void cmkit_xdr_init(struct cmkit_xdr_in *x, const void *buf,
				  cmkit_size len)
{
	x->p = (const cmkit_u8 *)buf;
	x->len = len;
	x->off = 0;
}

/* The fixed part of a transport header: 16 bytes, and version 1. */
static inline int cmkit_rpcrdma_decode_fixed(struct cmkit_xdr_in *x,
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
static inline int cmkit_rpcrdma_decode_lists(struct cmkit_xdr_in *x,
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
static inline int cmkit_rpcrdma_encode_null_call(void *buf, cmkit_size buflen,
						 cmkit_u32 xid, cmkit_u32 credits,
						 cmkit_u32 prog, cmkit_u32 vers)
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
static inline int cmkit_rpcrdma_peek(const void *buf, cmkit_size len,
				     cmkit_u32 *xid, cmkit_u32 *credits)
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
static inline int cmkit_rpc_decode_reply(struct cmkit_xdr_in *x,
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
static inline int cmkit_rpcrdma_result_complete(int rc)
{
	return rc == CMKIT_RPCRDMA_OK ||
	       (rc <= CMKIT_RPCRDMA_E_ERR_VERS && rc >= CMKIT_RPCRDMA_E_AUTH_ERROR);
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
static inline int cmkit_rpcrdma_decode_reply(const void *buf, cmkit_size len,
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
	rc = cmkit_rpc_decode_reply(&x, rep);
	if (!cmkit_rpcrdma_result_complete(rc))
		return rc;
	if (rep->xid != h->rdma_xid)
		return CMKIT_RPCRDMA_E_XID;
	if (rep->reply_stat == CMKIT_RPC_MSG_ACCEPTED &&
	    rep->verf_flavor != CMKIT_RPC_AUTH_NONE)
		return CMKIT_RPCRDMA_E_VERF;
	return rc;
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
static inline int cmkit_rpcrdma_decode_call(const void *buf, cmkit_size len,
					    struct cmkit_rpcrdma_call *call)
{
	struct cmkit_xdr_in x;
	cmkit_u32 mtype;
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
	if (!cmkit_xdr_u32(&x, &call->xid) || !cmkit_xdr_u32(&x, &mtype))
		return CMKIT_RPCRDMA_E_SHORT;
	if (mtype == CMKIT_RPC_REPLY)
		return CMKIT_RPCRDMA_E_MSG_TYPE;
	if (mtype != CMKIT_RPC_CALL)
		return CMKIT_RPCRDMA_E_XDR;
	if (!cmkit_xdr_u32(&x, &call->rpcvers) || !cmkit_xdr_u32(&x, &call->prog) ||
	    !cmkit_xdr_u32(&x, &call->vers) || !cmkit_xdr_u32(&x, &call->proc))
		return CMKIT_RPCRDMA_E_SHORT;
	if (call->rpcvers != CMKIT_RPC_VERSION)
		return CMKIT_RPCRDMA_E_RPCVERS;
	rc = cmkit_xdr_auth(&x, &call->cred_flavor, &call->cred_len, &call->cred);
	if (rc)
		return rc;
	rc = cmkit_xdr_auth(&x, &call->verf_flavor, &call->verf_len, &call->verf);
	if (rc)
		return rc;
	call->args = x.p + x.off;
	call->args_len = x.len - x.off;
	if (call->xid != call->hdr.rdma_xid)
		return CMKIT_RPCRDMA_E_XID;
	return CMKIT_RPCRDMA_OK;
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
static inline int cmkit_rpcrdma_encode_reply(void *buf, cmkit_size buflen,
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
static inline cmkit_u32 cmkit_rpcrdma_credit_limit(cmkit_u32 grant, cmkit_u32 ring)
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
static inline int cmkit_rpcrdma_result_class(int result)
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
static inline int cmkit_rpcrdma_result_errno(int result)
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
static inline const char *cmkit_rpcrdma_strerror(int result)
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
static inline const char *cmkit_rpcrdma_result_name(int result)
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

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_RPCRDMA_MSG_H */
