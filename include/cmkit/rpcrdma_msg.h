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
 * = 52.  cmkit_rpcrdma_decode_reply() is for a call that offered no chunks,
 * so every chunk list of the reply must be empty; cmkit_rpcrdma_decode_call()
 * takes calls without chunks only.  Calls and replies with chunks are
 * include/cmkit/rpcrdma_chunk.h's.
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
 * @CMKIT_RPCRDMA_E_CHUNKS: a chunk list that is not empty (rpcrdma_chunk.h:
 *	one over its bounds, or against the offer)
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

int cmkit_rpcrdma_encode_null_call(void *buf, cmkit_size buflen, cmkit_u32 xid,
				   cmkit_u32 credits, cmkit_u32 prog,
				   cmkit_u32 vers);

int cmkit_rpcrdma_peek(const void *buf, cmkit_size len, cmkit_u32 *xid,
		       cmkit_u32 *credits);

int cmkit_rpcrdma_decode_reply(const void *buf, cmkit_size len,
			       struct cmkit_rpcrdma_reply *rep);

int cmkit_rpcrdma_decode_call(const void *buf, cmkit_size len,
			      struct cmkit_rpcrdma_call *call);

int cmkit_rpcrdma_encode_reply(void *buf, cmkit_size buflen,
			       const struct cmkit_rpcrdma_reply *rep);

cmkit_u32 cmkit_rpcrdma_credit_limit(cmkit_u32 grant, cmkit_u32 ring);

int cmkit_rpcrdma_result_class(int result);

int cmkit_rpcrdma_result_errno(int result);

const char *cmkit_rpcrdma_strerror(int result);

const char *cmkit_rpcrdma_result_name(int result);

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_RPCRDMA_MSG_H */
