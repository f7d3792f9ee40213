// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_crc32c() (include/cmkit/crc32c.h) in the kernel: the kernel's own
 * crc32c(), which has the same convention (the register in and out, neither
 * inverted).  User space has lib/crc32c.c's table instead.  Where crc32c()
 * is declared differs by kernel: scripts/probes/have_linux_crc32c_h.c.
 */
#ifdef CMKIT_HAVE_LINUX_CRC32C_H
#include <linux/crc32c.h>
#else
#include <linux/crc32.h>
#endif

#include "cmkit/crc32c.h"

/**
 * cmkit_crc32c - run bytes through a CRC32c register
 * @crc: the register: CMKIT_CRC32C_SEED before the first byte, else what the
 *	previous call returned
 * @buf: the bytes (may be NULL when @len is 0)
 * @len: how many; the shared layer's buffers (MPA FPDUs) are far below 4 GiB,
 *	the most some kernels' crc32c() takes
 *
 * Return: the register after @len bytes: crc32c(@crc, @buf, @len).
 */
cmkit_u32 cmkit_crc32c(cmkit_u32 crc, const void *buf, cmkit_size len)
{
	return crc32c(crc, buf, len);
}
