/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * cmkit shared layer: fixed-width types without any kernel or libc
 * header, so the same wire-format code compiles in the kernel, in host C++
 * tests and in user-space tools.  They are the kernel's own types: u8, u16
 * and u32 from the compiler's predefined macros, u64 as unsigned long long
 * (the kernel's choice on every architecture, not __UINT64_TYPE__, which is
 * unsigned long on LP64), and size_t; and the byte-order and byte-copy
 * helpers every wire format uses, which need no libc either.
 */
#ifndef CMKIT_TYPES_H
#define CMKIT_TYPES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef __UINT8_TYPE__ cmkit_u8;
typedef __UINT16_TYPE__ cmkit_u16;
typedef __UINT32_TYPE__ cmkit_u32;
typedef unsigned long long cmkit_u64;
typedef __SIZE_TYPE__ cmkit_size;

/* Big-endian (network order) loads and stores, byte by byte. */
static inline cmkit_u16 cmkit_get_be16(const cmkit_u8 *p)
{
	return (cmkit_u16)((p[0] << 8) | p[1]);
}

static inline cmkit_u32 cmkit_get_be32(const cmkit_u8 *p)
{
	return ((cmkit_u32)p[0] << 24) | ((cmkit_u32)p[1] << 16) |
	       ((cmkit_u32)p[2] << 8) | (cmkit_u32)p[3];
}

static inline cmkit_u64 cmkit_get_be64(const cmkit_u8 *p)
{
	return ((cmkit_u64)cmkit_get_be32(p) << 32) | cmkit_get_be32(p + 4);
}

static inline void cmkit_put_be16(cmkit_u8 *p, cmkit_u16 v)
{
	p[0] = (cmkit_u8)((v >> 8) & 0xff);
	p[1] = (cmkit_u8)(v & 0xff);
}

static inline void cmkit_put_be32(cmkit_u8 *p, cmkit_u32 v)
{
	p[0] = (cmkit_u8)((v >> 24) & 0xff);
	p[1] = (cmkit_u8)((v >> 16) & 0xff);
	p[2] = (cmkit_u8)((v >> 8) & 0xff);
	p[3] = (cmkit_u8)(v & 0xff);
}

static inline void cmkit_put_be64(cmkit_u8 *p, cmkit_u64 v)
{
	cmkit_put_be32(p, (cmkit_u32)((v >> 32) & 0xffffffffU));
	cmkit_put_be32(p + 4, (cmkit_u32)(v & 0xffffffffU));
}

/* Byte copies and comparisons, byte by byte (no memcpy without libc). */
static inline void cmkit_copy(void *dst, const void *src, cmkit_size n)
{
	const cmkit_u8 *s = (const cmkit_u8 *)src;
	cmkit_u8 *d = (cmkit_u8 *)dst;

	while (n--)
		*d++ = *s++;
}

static inline void cmkit_zero(void *p, cmkit_size n)
{
	cmkit_u8 *d = (cmkit_u8 *)p;

	while (n--)
		*d++ = 0;
}

/* 1 if the @n bytes at @a and @b are equal; never stops early (constant time). */
static inline int cmkit_equal(const void *a, const void *b, cmkit_size n)
{
	const cmkit_u8 *x = (const cmkit_u8 *)a, *y = (const cmkit_u8 *)b;
	cmkit_u8 diff = 0;

	while (n--)
		diff |= *x++ ^ *y++;
	return !diff;
}

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_TYPES_H */
