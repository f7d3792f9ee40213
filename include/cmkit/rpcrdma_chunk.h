/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * RPC-over-RDMA version 1 chunks (RFC 8166, sections 3.4 and 4): the
 * transport header's three chunk lists, encoded by a requester that
 * registered memory for them and decoded by a responder that moves the
 * data with RDMA Read and Write; the lengths a responder reports back,
 * checked against what was offered; and the marshalling choice a
 * requester makes for each call (xprtrdma's rpcrdma_marshal_req()).
 *
 *   read list:   { 1, position, handle, length, offset(8) }*  0
 *   write list:  { 1, nsegs, { handle, length, offset(8) }[nsegs] }*  0
 *   reply chunk: 0, or 1, nsegs, { handle, length, offset(8) }[nsegs]
 *
 * A read chunk is the run of read segments with one position (an XDR
 * offset into the RPC message, counted from its xid; position 0 carries
 * the whole message: the call is RDMA_NOMSG).  In a reply, each segment's
 * length is what the responder wrote (at most the length offered); the
 * handles and offsets are the requester's, echoed.
 *
 * Bounds: at most CMKIT_RPCRDMA_MAX_SEGS segments per list (the read list
 * counts all its segments), at most one write chunk (what cmkit offers, as
 * one NFS READ needs); no chunk without a segment (svcrdma refuses a
 * zero segment count too); read positions multiples of 4 (XDR's unit, as
 * svcrdma checks) and in ascending order (segments of one chunk are
 * adjacent).  A decoder given more refuses the header (CMKIT_RPCRDMA_E_CHUNKS)
 * and checks a count against these bounds before it checks it against the
 * bytes left (E_SHORT); nothing past the given length is read.  An encoder
 * given more refuses (CMKIT_RPCRDMA_E_ARG) and writes nothing, so whatever
 * a decoder accepts, the encoder writes back byte for byte.
 *
 * The messages, with the RPC part that cmkit writes (AUTH_NONE):
 *
 *   call, inline or with a read chunk at position P > 0 (RDMA_MSG):
 *     header + lists | xid CALL 2 prog vers proc 0 0 0 0 | inline args
 *     the read chunk's bytes sit, logically, at offset P of the RPC call
 *     (P counts from the xid: 40 is the first argument byte);
 *     cmkit_rpcrdma_encode_call(), cmkit_rpcrdma_decode_call_chunks()
 *   call in a position-zero read chunk (RDMA_NOMSG):
 *     header + lists, nothing after; the chunk holds the RPC call:
 *     cmkit_rpcrdma_encode_hdr() + cmkit_rpcrdma_encode_rpc_call(), and
 *     cmkit_rpcrdma_decode_call_chunks() + cmkit_rpcrdma_decode_rpc_call()
 *   reply inline, or with its bulk result in the write chunk (RDMA_MSG):
 *     header + lists | xid REPLY 0 verf SUCCESS | inline results
 *     cmkit_rpcrdma_encode_reply_chunks(), cmkit_rpcrdma_decode_reply_chunks()
 *   reply in the reply chunk (RDMA_NOMSG):
 *     header + lists, nothing after; the reply chunk holds the RPC reply:
 *     cmkit_rpcrdma_encode_reply_chunks() + cmkit_rpcrdma_encode_rpc_reply(),
 *     and cmkit_rpcrdma_decode_reply_chunks() + cmkit_rpcrdma_decode_rpc_reply()
 */
#ifndef CMKIT_RPCRDMA_CHUNK_H
#define CMKIT_RPCRDMA_CHUNK_H

#include "cmkit/types.h"
#include "cmkit/rpcrdma_msg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Segments per chunk list; xprtrdma's RPCRDMA_MAX_SEGS is 260 pages. */
#define CMKIT_RPCRDMA_MAX_SEGS		8
/* The encoded size of one segment: handle, length, offset. */
#define CMKIT_RPCRDMA_SEG_LEN		16
/* The encoded size of one read list entry: discriminator, position, segment. */
#define CMKIT_RPCRDMA_READ_ENTRY_LEN	24
/*
 * The longest transport header with chunk lists: the fixed part, a full
 * read list, a write list of one full chunk and a full reply chunk (488).
 */
#define CMKIT_RPCRDMA_MAX_HDR_LEN					\
	(CMKIT_RPCRDMA_FIXED_LEN +					\
	 4 + CMKIT_RPCRDMA_MAX_SEGS * CMKIT_RPCRDMA_READ_ENTRY_LEN +	\
	 4 + 8 + CMKIT_RPCRDMA_MAX_SEGS * CMKIT_RPCRDMA_SEG_LEN +	\
	 8 + CMKIT_RPCRDMA_MAX_SEGS * CMKIT_RPCRDMA_SEG_LEN)
/* An RPC call up to its arguments, AUTH_NONE credential and verifier. */
#define CMKIT_RPCRDMA_RPC_CALL_LEN	40
/* An RPC SUCCESS reply up to its results, empty AUTH_NONE verifier. */
#define CMKIT_RPCRDMA_RPC_REPLY_LEN	24

/**
 * struct cmkit_rpcrdma_seg - an RDMA segment (RFC 8166, section 4.1.1)
 * @handle: the rkey of the registered memory
 * @length: bytes offered (a call) or written (a reply)
 * @offset: the memory's address as the rkey names it
 */
struct cmkit_rpcrdma_seg {
	cmkit_u32 handle;
	cmkit_u32 length;
	cmkit_u64 offset;
};

/**
 * struct cmkit_rpcrdma_chunks - the three chunk lists of one header
 * @nr_read: read segments in @read (0: empty read list)
 * @read_pos: each read segment's position
 * @read: the read segments
 * @nr_write: write chunks (0 or 1)
 * @write_segs: segments of the write chunk (1..CMKIT_RPCRDMA_MAX_SEGS when
 *	@nr_write is 1; ignored by the encoders, 0 from the decoders, when 0)
 * @write: its segments
 * @has_reply: 1 if a reply chunk is present, else 0
 * @reply_segs: its segments (1..CMKIT_RPCRDMA_MAX_SEGS when @has_reply;
 *	ignored by the encoders, 0 from the decoders, when not)
 * @reply: its segments
 */
struct cmkit_rpcrdma_chunks {
	cmkit_u32 nr_read;
	cmkit_u32 read_pos[CMKIT_RPCRDMA_MAX_SEGS];
	struct cmkit_rpcrdma_seg read[CMKIT_RPCRDMA_MAX_SEGS];
	cmkit_u32 nr_write;
	cmkit_u32 write_segs;
	struct cmkit_rpcrdma_seg write[CMKIT_RPCRDMA_MAX_SEGS];
	cmkit_u32 has_reply;
	cmkit_u32 reply_segs;
	struct cmkit_rpcrdma_seg reply[CMKIT_RPCRDMA_MAX_SEGS];
};

/**
 * enum cmkit_rpcrdma_chunktype - how one side of a call travels
 * @CMKIT_RPCRDMA_NOCH: inline, in the Send (no chunk)
 * @CMKIT_RPCRDMA_READCH: a call whose bulk argument goes in a read chunk at
 *	its XDR position, the rest inline (RDMA_MSG)
 * @CMKIT_RPCRDMA_AREADCH: a call that goes whole in a position-zero read
 *	chunk (RDMA_NOMSG): not even its non-bulk part fits inline
 * @CMKIT_RPCRDMA_WRITECH: a reply whose bulk result the responder writes
 *	into a write chunk, the rest inline
 * @CMKIT_RPCRDMA_REPLYCH: a reply that may not fit inline at all: the
 *	responder writes it whole into the reply chunk (RDMA_NOMSG)
 */
enum cmkit_rpcrdma_chunktype {
	CMKIT_RPCRDMA_NOCH = 0,
	CMKIT_RPCRDMA_READCH,
	CMKIT_RPCRDMA_AREADCH,
	CMKIT_RPCRDMA_WRITECH,
	CMKIT_RPCRDMA_REPLYCH,
};

/**
 * struct cmkit_rpcrdma_marshal - what rpcrdma_marshal_req() decides
 * @rtype: the call: NOCH, READCH or AREADCH
 * @wtype: the reply: NOCH, WRITECH or REPLYCH
 */
struct cmkit_rpcrdma_marshal {
	enum cmkit_rpcrdma_chunktype rtype;
	enum cmkit_rpcrdma_chunktype wtype;
};

/*
 * cmkit_rpcrdma_choose - how a call and its reply travel, as xprtrdma's
 * rpcrdma_marshal_req() decides.  @hdr_len is the room kept for the
 * transport header in every inline message, both ways: the longest header
 * the caller sends with the chunk lists it may offer (at least
 * CMKIT_RPCRDMA_HDR_LEN, at most CMKIT_RPCRDMA_MAX_HDR_LEN for cmkit's
 * bounds).  A reply's header is never longer than its call's: it echoes at
 * most the write list and reply chunk the call offered, with an empty read
 * list.  xprtrdma keeps such room too (rpcrdma_set_max_header_sizes(): the
 * header of its largest lists, taken off its inline thresholds once).
 *   call:  NOCH when @hdr_len + @call_len <= @inline_send (@call_len the
 *          whole RPC call, header and arguments); else READCH when it has
 *          a bulk argument (@bulk_arg bytes, DDP-eligible data such as a
 *          WRITE's) and @hdr_len + @call_len - @bulk_arg <= @inline_send;
 *          else AREADCH.
 *   reply: NOCH when @hdr_len + @reply_len <= @inline_recv (@reply_len the
 *          largest reply); else WRITECH when it has a bulk result
 *          (@bulk_result, such as a READ's data) and @hdr_len + @reply_len -
 *          @bulk_result <= @inline_recv; else REPLYCH.
 * Where xprtrdma differs: it sends READCH for any call with a bulk
 * argument, without checking that the rest fits (its comment assumes the
 * upper layer never presents such a call), and its WRITECH test is strict
 * (<); its send-SGE limit for inline calls is no business of the wire
 * format, and is left out.
 * Return 0 (@m set), or CMKIT_RPCRDMA_E_ARG (@m untouched) for a bulk part
 * larger than its message, @hdr_len under CMKIT_RPCRDMA_HDR_LEN, or @m NULL.
 */
int cmkit_rpcrdma_choose(cmkit_u32 call_len, cmkit_u32 bulk_arg, cmkit_u32 reply_len,
			 cmkit_u32 bulk_result, cmkit_u32 inline_send, cmkit_u32 inline_recv,
			 cmkit_u32 hdr_len, struct cmkit_rpcrdma_marshal *m);

/*
 * cmkit_rpcrdma_encode_hdr - write a transport header with chunk lists
 * (RDMA_MSG or RDMA_NOMSG in @proc; @vers is written as given, normally
 * CMKIT_RPCRDMA_VERSION) into @buf; @ch NULL writes three empty lists.
 * RDMA_NOMSG's own rules (a position-zero read chunk in a call, a reply
 * chunk in a reply) are the caller's: the decoders check them.  Return its
 * length (at most CMKIT_RPCRDMA_MAX_HDR_LEN), or a negative result
 * (nothing written): E_NOSPACE, E_ARG (@buf NULL, a bad @proc, more than
 * CMKIT_RPCRDMA_MAX_SEGS segments, more than one write chunk, a present
 * chunk with no segment, @ch->has_reply other than 0 or 1, read positions
 * not multiples of 4 or not in ascending order).
 */
int cmkit_rpcrdma_encode_hdr(void *buf, cmkit_size buflen, cmkit_u32 xid, cmkit_u32 vers,
			     cmkit_u32 credits, cmkit_u32 proc,
			     const struct cmkit_rpcrdma_chunks *ch);

/*
 * cmkit_rpcrdma_decode_hdr - decode a transport header and its chunk
 * lists from @buf (@len bytes): @hdr as cmkit_rpcrdma_decode_call() fills
 * it (@hdr->read_chunks the read segments; counts and @hdr->len, where the
 * RPC message starts, only on CMKIT_RPCRDMA_OK), @ch the lists (filled as
 * far as decoding went).  Both are zeroed first.  Bytes after the header
 * are not looked at.  Return CMKIT_RPCRDMA_OK, E_ARG, E_SHORT, E_VERS,
 * E_PROC (not RDMA_MSG or RDMA_NOMSG), E_XDR (an optional-data
 * discriminator other than 0 or 1), E_CHUNKS (over the bounds above, a
 * chunk without segments, read positions not multiples of 4 or not
 * ascending, RDMA_NOMSG without a position-zero read chunk in a call
 * (@is_call) or without a reply chunk in a reply).
 */
int cmkit_rpcrdma_decode_hdr(const void *buf, cmkit_size len, int is_call,
			     struct cmkit_rpcrdma_hdr *hdr, struct cmkit_rpcrdma_chunks *ch);

/*
 * cmkit_rpcrdma_check_reply_chunks - a reply's chunk lists against what
 * the call offered (RFC 8166, section 3.5.5): an empty read list; in the
 * write list at most the chunks offered, each with at most the segments
 * offered, each segment's handle and offset the offered ones and its
 * length at most the offered; a reply chunk only if one was offered, the
 * same rule.  On CMKIT_RPCRDMA_OK, *@write_len and *@reply_len are the
 * bytes the responder says it wrote (the sums of the lengths); else
 * E_CHUNKS (@got breaks the rules or the bounds) or E_ARG (@offered or
 * @got NULL, or @offered over the bounds or offering more than 4 GiB - 1
 * in one list), both set to 0, and nothing the reply says is to be
 * followed.  @write_len and @reply_len may be NULL.
 */
int cmkit_rpcrdma_check_reply_chunks(const struct cmkit_rpcrdma_chunks *offered,
				     const struct cmkit_rpcrdma_chunks *got,
				     cmkit_u32 *write_len, cmkit_u32 *reply_len);

/*
 * cmkit_rpcrdma_write_len, cmkit_rpcrdma_reply_len, cmkit_rpcrdma_read_len -
 * the bytes a list's segments cover: the write chunk's (0 without one), the
 * reply chunk's (0 without one), and of the read list those of the chunk at
 * @position only.  A sum over 0xffffffff gives 0xffffffff; counts over
 * CMKIT_RPCRDMA_MAX_SEGS are taken as CMKIT_RPCRDMA_MAX_SEGS.
 */
cmkit_u32 cmkit_rpcrdma_write_len(const struct cmkit_rpcrdma_chunks *ch);
cmkit_u32 cmkit_rpcrdma_reply_len(const struct cmkit_rpcrdma_chunks *ch);
cmkit_u32 cmkit_rpcrdma_read_len(const struct cmkit_rpcrdma_chunks *ch, cmkit_u32 position);

/*
 * cmkit_rpcrdma_encode_rpc_call - write an RPC call message alone (xid,
 * CALL, RPC version 2, @prog, @vers, @proc, AUTH_NONE credential and
 * verifier, then @args_len bytes of @args): what a position-zero read
 * chunk holds.  Return CMKIT_RPCRDMA_RPC_CALL_LEN + @args_len, or E_ARG
 * (@buf NULL, @args NULL with @args_len, a length beyond an int) or
 * E_NOSPACE (nothing written).
 */
int cmkit_rpcrdma_encode_rpc_call(void *buf, cmkit_size buflen, cmkit_u32 xid, cmkit_u32 prog,
				  cmkit_u32 vers, cmkit_u32 proc, const void *args,
				  cmkit_size args_len);

/*
 * cmkit_rpcrdma_encode_call - write an RDMA_MSG call: the transport header
 * with @ch's lists (NULL: none), then the RPC call and its inline @args as
 * cmkit_rpcrdma_encode_rpc_call() writes them.  Every read segment's
 * position must lie in the call's arguments, from
 * CMKIT_RPCRDMA_RPC_CALL_LEN to CMKIT_RPCRDMA_RPC_CALL_LEN + @args_len
 * (the end: a bulk argument that is the last), as
 * cmkit_rpcrdma_decode_call_chunks() requires; a call in a position-zero
 * read chunk is RDMA_NOMSG: cmkit_rpcrdma_encode_hdr() and
 * cmkit_rpcrdma_encode_rpc_call() into the chunk's memory.  With no chunks,
 * no arguments and procedure 0 it writes what
 * cmkit_rpcrdma_encode_null_call() does.  Return the length of header,
 * RPC call and inline arguments, or E_ARG (as cmkit_rpcrdma_encode_hdr()
 * and cmkit_rpcrdma_encode_rpc_call() say, or a read position outside the
 * arguments) or E_NOSPACE (nothing written).
 */
int cmkit_rpcrdma_encode_call(void *buf, cmkit_size buflen, cmkit_u32 xid, cmkit_u32 credits,
			      cmkit_u32 prog, cmkit_u32 vers, cmkit_u32 proc,
			      const struct cmkit_rpcrdma_chunks *ch, const void *args,
			      cmkit_size args_len);

/*
 * cmkit_rpcrdma_encode_rpc_reply - write an RPC SUCCESS reply alone: xid
 * (@rep->hdr.rdma_xid), REPLY, MSG_ACCEPTED, @rep's verifier
 * (@rep->verf_flavor, @rep->verf_len, @rep->verf), SUCCESS, then
 * @results_len bytes of @results: what a reply chunk holds.  Return its
 * length, or E_ARG (@buf or @rep NULL, @rep->reply_stat not MSG_ACCEPTED
 * or @rep->accept_stat not SUCCESS, a verifier over 400 bytes or without
 * its body, @results NULL with @results_len, a length beyond an int) or
 * E_NOSPACE (nothing written).
 */
int cmkit_rpcrdma_encode_rpc_reply(void *buf, cmkit_size buflen,
				   const struct cmkit_rpcrdma_reply *rep, const void *results,
				   cmkit_size results_len);

/*
 * cmkit_rpcrdma_encode_reply_chunks - write a reply as a server to a call
 * that offered chunks: the transport header (@rep->hdr.rdma_xid,
 * @rep->hdr.rdma_credit, @rep->hdr.rdma_proc RDMA_MSG or RDMA_NOMSG) with
 * @ch's lists (NULL: none), each segment's length the bytes written there;
 * then, for RDMA_MSG, the RPC reply as cmkit_rpcrdma_encode_rpc_reply()
 * writes it, with the inline @results.  The lists must be what
 * cmkit_rpcrdma_decode_reply_chunks() takes: an empty read list; for
 * RDMA_MSG no byte in a reply chunk; for RDMA_NOMSG a reply chunk with
 * bytes in it, none in the write chunk, and no @results (the RPC reply is
 * in the reply chunk: cmkit_rpcrdma_encode_rpc_reply() writes it there).
 * Other fields of @rep are ignored.  Return the length, or E_ARG (as
 * cmkit_rpcrdma_encode_hdr() and cmkit_rpcrdma_encode_rpc_reply() say, or
 * lists against the rules above) or E_NOSPACE (nothing written).
 */
int cmkit_rpcrdma_encode_reply_chunks(void *buf, cmkit_size buflen,
				      const struct cmkit_rpcrdma_reply *rep,
				      const struct cmkit_rpcrdma_chunks *ch, const void *results,
				      cmkit_size results_len);

/*
 * cmkit_rpcrdma_decode_rpc_reply - decode an RPC reply message alone (xid
 * to results), as cmkit_rpcrdma_decode_reply() decodes the one after the
 * transport header: from a reply chunk's memory, or inline.  @rep->hdr is
 * kept, the rest of @rep zeroed first; the RPC xid must equal @rdma_xid
 * (E_XID) and an accepted reply's verifier be AUTH_NONE (E_VERF).  Return
 * as cmkit_rpcrdma_decode_reply() does, less its transport results.
 */
int cmkit_rpcrdma_decode_rpc_reply(const void *buf, cmkit_size len, cmkit_u32 rdma_xid,
				   struct cmkit_rpcrdma_reply *rep);

/*
 * cmkit_rpcrdma_decode_reply_chunks - decode a reply to a call that
 * offered chunks.  RDMA_ERROR, RDMA_MSGP and RDMA_DONE give what
 * cmkit_rpcrdma_decode_reply() gives (@ch empty).  Else the header and
 * lists as cmkit_rpcrdma_decode_hdr() decodes them (a reply), then, as
 * xprtrdma's rpcrdma_decode_msg() and rpcrdma_decode_nomsg() check:
 *  - a read list is E_CHUNKS (a reply has none);
 *  - RDMA_MSG: no byte in a reply chunk (E_CHUNKS); the RPC reply follows
 *    inline and is decoded as cmkit_rpcrdma_decode_reply() does; the bulk
 *    result, if any, is in the write chunk
 *    (cmkit_rpcrdma_write_len() bytes);
 *  - RDMA_NOMSG: a reply chunk with bytes in it and none in the write chunk
 *    (E_CHUNKS); no RPC reply inline (bytes after the header are not
 *    looked at): @rep is zero but @rep->hdr, and the caller decodes the
 *    RPC reply from the reply chunk's memory (cmkit_rpcrdma_reply_len()
 *    bytes) with cmkit_rpcrdma_decode_rpc_reply().
 * The lists are not checked against the offer here: the caller does that
 * with cmkit_rpcrdma_check_reply_chunks() before it uses any length.
 * Return CMKIT_RPCRDMA_OK (RDMA_NOMSG: the header is well formed), or a
 * negative enum cmkit_rpcrdma_result.
 */
int cmkit_rpcrdma_decode_reply_chunks(const void *buf, cmkit_size len,
				      struct cmkit_rpcrdma_reply *rep,
				      struct cmkit_rpcrdma_chunks *ch);

/*
 * cmkit_rpcrdma_decode_rpc_call - decode an RPC call message alone (xid to
 * arguments), as cmkit_rpcrdma_decode_call() decodes the one after the
 * transport header: from a position-zero read chunk's memory, or inline.
 * @call->hdr is kept (its rdma_xid is what the RPC xid must equal: E_XID),
 * the rest of @call zeroed first.  Return as cmkit_rpcrdma_decode_call()
 * does for the RPC message.
 */
int cmkit_rpcrdma_decode_rpc_call(const void *buf, cmkit_size len,
				  struct cmkit_rpcrdma_call *call);

/*
 * cmkit_rpcrdma_decode_call_chunks - decode a call, as a server that takes
 * chunks.  The header and lists as cmkit_rpcrdma_decode_hdr() decodes them
 * (a call), then:
 *  - RDMA_MSG: the RPC call follows inline and is decoded as
 *    cmkit_rpcrdma_decode_call() does (@call->args are the inline
 *    arguments); each read chunk at position P holds bulk argument bytes
 *    that sit, logically, at offset P of the RPC call (from its xid), and P
 *    must lie in the arguments: from where they start (@call->args) to the
 *    end of the inline message, both included (else E_CHUNKS);
 *  - RDMA_NOMSG: the call is in the position-zero read chunk (its bytes:
 *    cmkit_rpcrdma_read_len(@ch, 0)); no RPC call inline (bytes after the
 *    header are not looked at): @call is zero but @call->hdr; the server
 *    reads the chunk and decodes it with cmkit_rpcrdma_decode_rpc_call().
 * A server answers as cmkit_rpcrdma_decode_call() says, and E_CHUNKS always
 * with RDMA_ERROR ERR_CHUNK.  Return CMKIT_RPCRDMA_OK or a negative enum
 * cmkit_rpcrdma_result.
 */
int cmkit_rpcrdma_decode_call_chunks(const void *buf, cmkit_size len,
				     struct cmkit_rpcrdma_call *call,
				     struct cmkit_rpcrdma_chunks *ch);

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_RPCRDMA_CHUNK_H */
