// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * RPC-over-RDMA version 1 connection private message (RFC 8797, section 7):
 * the bodies of include/cmkit/rpcrdma_cmp.h.  No kernel or libc header: built
 * into cmkit.ko by kbuild and, as C, into the host tests, the fuzz targets
 * and cmkit-peer.
 */
#include "cmkit/rpcrdma_cmp.h"

/**
 * cmkit_rpcrdma_cmp_encode_size - a size in the message's 1 KiB-minus-one units
 * @bytes: the size in bytes
 *
 * Return: the encoded size; sizes below 1 KiB and from 256 KiB are clamped
 * (to 0 and 255).
 */
cmkit_u8 cmkit_rpcrdma_cmp_encode_size(cmkit_u32 bytes)
{
	if (bytes < 1024U)
		return 0;
	if (bytes >= CMKIT_RPCRDMA_MAX_INLINE)
		return 255;
	return (cmkit_u8)((bytes >> 10) - 1);
}

static cmkit_u32 cmkit_rpcrdma_cmp_decode_size(cmkit_u8 v)
{
	return ((cmkit_u32)v + 1) << 10;
}

/**
 * cmkit_rpcrdma_cmp_encode - write a private message
 * @out: CMKIT_RPCRDMA_CMP_LEN bytes
 * @flags: CMKIT_RPCRDMA_CMP_F_* bits
 * @send_size: our inline send size in bytes
 * @recv_size: our inline receive size in bytes
 */
void cmkit_rpcrdma_cmp_encode(cmkit_u8 *out, cmkit_u8 flags,
			      cmkit_u32 send_size, cmkit_u32 recv_size)
{
	cmkit_put_be32(out, CMKIT_RPCRDMA_CMP_MAGIC);
	out[4] = CMKIT_RPCRDMA_CMP_VERSION;
	out[5] = flags & CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK;
	out[6] = cmkit_rpcrdma_cmp_encode_size(send_size);
	out[7] = cmkit_rpcrdma_cmp_encode_size(recv_size);
}

/**
 * cmkit_rpcrdma_cmp_decode - read a peer's private message
 * @buf: the private data, or NULL
 * @len: bytes available at @buf; nothing past them is read
 * @out: the decoded message
 *
 * Return: 1 if @buf holds a version 1 message, 0 if it is absent, short, or
 * of another format or version (then @out is untouched).
 */
int cmkit_rpcrdma_cmp_decode(const void *buf, cmkit_size len,
			     struct cmkit_rpcrdma_cmp *out)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;

	if (!p || len < CMKIT_RPCRDMA_CMP_LEN)
		return 0;
	if (cmkit_get_be32(p) != CMKIT_RPCRDMA_CMP_MAGIC ||
	    p[4] != CMKIT_RPCRDMA_CMP_VERSION)
		return 0;
	out->flags = p[5] & CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK;
	out->send_size = cmkit_rpcrdma_cmp_decode_size(p[6]);
	out->recv_size = cmkit_rpcrdma_cmp_decode_size(p[7]);
	return 1;
}

/**
 * cmkit_rpcrdma_cmp_negotiate - lower our inline sizes to what the peer allows
 * @buf: the peer's private data, or NULL
 * @len: bytes available at @buf
 * @inline_send: our inline send size, lowered to the peer's receive size
 * @inline_recv: our inline receive size, lowered to the peer's send size
 *
 * A peer without a valid message is taken to use the 1 KiB defaults.  Sizes
 * are only ever lowered.
 *
 * Return: 1 if the peer sent a valid message, else 0.
 */
int cmkit_rpcrdma_cmp_negotiate(const void *buf, cmkit_size len,
				cmkit_u32 *inline_send, cmkit_u32 *inline_recv)
{
	struct cmkit_rpcrdma_cmp peer;
	cmkit_u32 rsize = CMKIT_RPCRDMA_DEFAULT_INLINE;
	cmkit_u32 wsize = CMKIT_RPCRDMA_DEFAULT_INLINE;
	int valid = cmkit_rpcrdma_cmp_decode(buf, len, &peer);

	if (valid) {
		rsize = peer.send_size;
		wsize = peer.recv_size;
	}
	if (rsize < *inline_recv)
		*inline_recv = rsize;
	if (wsize < *inline_send)
		*inline_send = wsize;
	return valid;
}
