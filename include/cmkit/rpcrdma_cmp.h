/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * RPC-over-RDMA version 1 connection private message (RFC 8797, section 7):
 * what a client sends in its connect request and a server in its accept,
 * so each side may lower its inline send and receive sizes to the other's.
 *
 *  0               1               2               3
 *  +---------------+---------------+---------------+---------------+
 *  |                Format Identifier (0xf6ab0e18)                 |
 *  +---------------+-------------+-+---------------+---------------+
 *  |    Version    |  Reserved   |I|   Send Size   | Receive Size  |
 *  +---------------+-------------+-+---------------+---------------+
 *
 * I: the sender can do Send With Invalidate.  Sizes are in 1 KiB units,
 * minus one: 0 means 1 KiB, 255 means 256 KiB.
 */
#ifndef CMKIT_RPCRDMA_CMP_H
#define CMKIT_RPCRDMA_CMP_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMKIT_RPCRDMA_CMP_MAGIC		0xf6ab0e18U
#define CMKIT_RPCRDMA_CMP_VERSION	1
#define CMKIT_RPCRDMA_CMP_LEN		8
#define CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK	0x01
/* RPC-over-RDMA v1's default inline threshold (RFC 8166, section 3.3.3). */
#define CMKIT_RPCRDMA_DEFAULT_INLINE	1024U
#define CMKIT_RPCRDMA_MAX_INLINE	(256U * 1024U)

/**
 * struct cmkit_rpcrdma_cmp - a decoded private message
 * @flags: CMKIT_RPCRDMA_CMP_F_* bits
 * @send_size: largest message the sender will send, in bytes
 * @recv_size: size of the sender's receive buffers, in bytes
 */
struct cmkit_rpcrdma_cmp {
	cmkit_u8 flags;
	cmkit_u32 send_size;
	cmkit_u32 recv_size;
};

cmkit_u8 cmkit_rpcrdma_cmp_encode_size(cmkit_u32 bytes);

void cmkit_rpcrdma_cmp_encode(cmkit_u8 *out, cmkit_u8 flags,
			      cmkit_u32 send_size, cmkit_u32 recv_size);

int cmkit_rpcrdma_cmp_decode(const void *buf, cmkit_size len,
			     struct cmkit_rpcrdma_cmp *out);

int cmkit_rpcrdma_cmp_negotiate(const void *buf, cmkit_size len,
				cmkit_u32 *inline_send, cmkit_u32 *inline_recv);

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_RPCRDMA_CMP_H */
