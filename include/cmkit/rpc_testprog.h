/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cmkit's RPC test program: procedures that move N bytes each way, so a
 * client's chunks can be exercised end to end against cmkit's in-kernel
 * test server and cmkit-peer serve --rpc, with the data checked.
 *
 *   program CMKIT_RPC_TESTPROG, version 1 (a number in RFC 5531's range
 *   0x20000000-0x3fffffff, "defined by user"):
 *
 *   proc 0 NULL:  void -> void
 *   proc 1 ECHO:  opaque data<> -> opaque data<>   (the same bytes)
 *   proc 2 FILL:  unsigned len, unsigned seed -> opaque data<len>
 *                 (data[i] = cmkit_rpc_testprog_byte(seed, i))
 *   proc 3 SINK:  opaque data<> -> unsigned len, unsigned crc32c
 *                 (of the bytes received; crc32c as include/cmkit/crc32c.h)
 *   proc 4 MIRROR: opaque data<> -> opaque data<>   (the same bytes)
 *
 * opaque<> is XDR's: a length word, the bytes, zero padding to 4.  Each
 * data<> of ECHO, FILL and SINK is the procedure's bulk (DDP-eligible)
 * part: an ECHO or SINK argument may travel in a read chunk, an ECHO or
 * FILL result in a write chunk (RFC 8166, section 6).  MIRROR's data is
 * not DDP-eligible (as a READDIR's or an ACL's): a MIRROR call that does
 * not fit inline travels whole in a position-zero read chunk (RDMA_NOMSG),
 * a reply that may not fit inline whole in the reply chunk (RDMA_NOMSG).
 */
#ifndef CMKIT_RPC_TESTPROG_H
#define CMKIT_RPC_TESTPROG_H

#include "cmkit/types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMKIT_RPC_TESTPROG		0x2000c4b1U
#define CMKIT_RPC_TESTPROG_VERS		1
#define CMKIT_RPC_TESTPROG_NULL		0
#define CMKIT_RPC_TESTPROG_ECHO		1
#define CMKIT_RPC_TESTPROG_FILL		2
#define CMKIT_RPC_TESTPROG_SINK		3
#define CMKIT_RPC_TESTPROG_MIRROR	4

/* A procedure's name ("null", "echo", "fill", "sink", "mirror"), or "" for another. */
static inline const char *cmkit_rpc_testprog_name(cmkit_u32 proc)
{
	switch (proc) {
	case CMKIT_RPC_TESTPROG_NULL:
		return "null";
	case CMKIT_RPC_TESTPROG_ECHO:
		return "echo";
	case CMKIT_RPC_TESTPROG_FILL:
		return "fill";
	case CMKIT_RPC_TESTPROG_SINK:
		return "sink";
	case CMKIT_RPC_TESTPROG_MIRROR:
		return "mirror";
	default:
		return "";
	}
}

/* The FILL pattern: byte @i of the data for @seed. */
static inline cmkit_u8 cmkit_rpc_testprog_byte(cmkit_u32 seed, cmkit_u32 i)
{
	/* The seed multiplied in too: a small seed moves the high bits. */
	cmkit_u32 x = (i + 1) * 0x9e3779b1U ^ seed * 0x85ebca6bU;

	return (cmkit_u8)((x >> 24) ^ (x >> 13) ^ i);
}

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_RPC_TESTPROG_H */
