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
 * Bitwise and table-free: MPA's control messages are a few dozen bytes, and
 * a table would be 1 KiB of data in every user of the header.
 */
#ifndef CMKIT_CRC32C_H
#define CMKIT_CRC32C_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMKIT_CRC32C_POLY		0x82f63b78U	/* 0x1edc6f41, reflected */
#define CMKIT_CRC32C_SEED		0xffffffffU

/**
 * cmkit_crc32c_update - run bytes through a CRC32c register
 * @reg: the register: CMKIT_CRC32C_SEED before the first byte
 * @buf: the bytes
 * @len: how many
 *
 * For a CRC over bytes that arrive in pieces: feed each piece in order and
 * invert the register at the end (cmkit_crc32c() does all three steps for
 * bytes that are all in one place).
 *
 * Return: the register after @len bytes.
 */
static inline cmkit_u32 cmkit_crc32c_update(cmkit_u32 reg, const void *buf,
					    cmkit_size len)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;
	int bit;

	while (len--) {
		reg ^= *p++;
		for (bit = 0; bit < 8; bit++)
			reg = (reg >> 1) ^ (CMKIT_CRC32C_POLY & (0U - (reg & 1U)));
	}
	return reg;
}

/**
 * cmkit_crc32c - the CRC32c of a buffer
 * @buf: the bytes
 * @len: how many
 *
 * Return: the CRC, to be sent least significant byte first.
 */
static inline cmkit_u32 cmkit_crc32c(const void *buf, cmkit_size len)
{
	return ~cmkit_crc32c_update(CMKIT_CRC32C_SEED, buf, len);
}

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_CRC32C_H */
