/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * CRC32c (Castagnoli), the CRC of iSCSI (RFC 3720, appendix B.4) that MPA
 * puts at the end of every FPDU (RFC 5044, section 6.5).
 *
 * The generator polynomial is 0x1edc6f41, used bit-reflected (0x82f63b78):
 * the register starts at all ones, each byte enters least significant bit
 * first, and the result is the register inverted.  RFC 3720's examples give
 * the CRC as the bytes sent, least significant byte first: 32 bytes of
 * zeros have the CRC 0x8a9136aa, sent as aa 36 91 8a.
 *
 * cmkit_crc32c() has the kernel's crc32c() convention: it runs bytes through
 * the register and inverts nothing, so a CRC is
 * ~cmkit_crc32c(CMKIT_CRC32C_SEED, buf, len), and bytes that arrive in pieces
 * go through one call each.  Its body differs by build: in the kernel,
 * core/crc32c.c calls the kernel's crc32c(); in user space, lib/crc32c.c is
 * table-driven.
 */
#ifndef CMKIT_CRC32C_H
#define CMKIT_CRC32C_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMKIT_CRC32C_POLY		0x82f63b78U	/* 0x1edc6f41, reflected */
#define CMKIT_CRC32C_SEED		0xffffffffU

cmkit_u32 cmkit_crc32c(cmkit_u32 crc, const void *buf, cmkit_size len);

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_CRC32C_H */
