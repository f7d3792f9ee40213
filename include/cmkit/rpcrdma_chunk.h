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
 * offset into the RPC message; position 0 carries the whole message: the
 * call is RDMA_NOMSG).  In a reply, each segment's length is what the
 * responder wrote (at most the length offered); the handles and offsets
 * are the requester's, echoed.
 *
 * Bounds: at most CMKIT_RPCRDMA_MAX_SEGS segments per list (the read list
 * counts all its segments), at most one write chunk (what cmkit offers, as
 * one NFS READ needs).  A decoder given more refuses the header
 * (CMKIT_RPCRDMA_E_CHUNKS); nothing past the given length is read.
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
 * @write_segs: segments of the write chunk
 * @write: its segments
 * @has_reply: 1 if a reply chunk is present
 * @reply_segs: its segments
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
 *	chunk (RDMA_NOMSG): not even its header fits inline
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
 * rpcrdma_marshal_req() decides:
 *   call:  the whole RPC call (@call_len, header and arguments) fits in
 *          @inline_send less the transport header: NOCH; else, if it has
 *          a bulk payload (@bulk_arg, DDP-eligible data such as a WRITE's)
 *          and the call without it fits: READCH; else AREADCH;
 *   reply: the largest reply (@reply_len) fits in @inline_recv less the
 *          transport header: NOCH; else, if it has a bulk result
 *          (@bulk_result, such as a READ's data) and the reply without it
 *          fits: WRITECH; else REPLYCH.
 * @hdr_len is the transport header the call needs with its chunk lists.
 * Return 0, or CMKIT_RPCRDMA_E_ARG for a bulk part larger than its message.
 */
int cmkit_rpcrdma_choose(cmkit_u32 call_len, cmkit_u32 bulk_arg, cmkit_u32 reply_len,
			 cmkit_u32 bulk_result, cmkit_u32 inline_send, cmkit_u32 inline_recv,
			 cmkit_u32 hdr_len, struct cmkit_rpcrdma_marshal *m);

/*
 * cmkit_rpcrdma_encode_hdr - write a transport header with chunk lists
 * (RDMA_MSG or RDMA_NOMSG in @proc) into @buf.  Return its length, or a
 * negative result: E_NOSPACE, E_ARG (a bad @proc, more than
 * CMKIT_RPCRDMA_MAX_SEGS segments, more than one write chunk, read
 * positions not in ascending order, or a present chunk with no segment).
 */
int cmkit_rpcrdma_encode_hdr(void *buf, cmkit_size buflen, cmkit_u32 xid, cmkit_u32 vers,
			     cmkit_u32 credits, cmkit_u32 proc,
			     const struct cmkit_rpcrdma_chunks *ch);

/*
 * cmkit_rpcrdma_decode_hdr - decode a transport header and its chunk
 * lists from @buf (@len bytes): @hdr as cmkit_rpcrdma_decode_call() fills
 * it (counts included, @hdr->len where the RPC message starts), @ch the
 * lists.  Return CMKIT_RPCRDMA_OK, E_SHORT, E_VERS, E_PROC (not RDMA_MSG
 * or RDMA_NOMSG), E_XDR (an optional-data discriminator other than 0 or
 * 1), E_CHUNKS (over the bounds above, a chunk without segments, read
 * positions not ascending, RDMA_NOMSG without a position-zero read chunk
 * in a call (@is_call) or without a reply chunk in a reply).
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
 * E_CHUNKS, and nothing the reply says is to be followed.
 */
int cmkit_rpcrdma_check_reply_chunks(const struct cmkit_rpcrdma_chunks *offered,
				     const struct cmkit_rpcrdma_chunks *got,
				     cmkit_u32 *write_len, cmkit_u32 *reply_len);

/*
 * cmkit_rpcrdma_chunk_len - the bytes a list's segments cover; for the read
 * list, those of the chunk at @position only.
 */
cmkit_u32 cmkit_rpcrdma_write_len(const struct cmkit_rpcrdma_chunks *ch);
cmkit_u32 cmkit_rpcrdma_reply_len(const struct cmkit_rpcrdma_chunks *ch);
cmkit_u32 cmkit_rpcrdma_read_len(const struct cmkit_rpcrdma_chunks *ch, cmkit_u32 position);

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_RPCRDMA_CHUNK_H */
