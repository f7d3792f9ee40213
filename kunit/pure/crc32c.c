// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_pure_crc32c: include/cmkit/crc32c.h against known vectors.
 *
 * RFC 3720, appendix B.4, gives the CRC of four 32-byte patterns and of an
 * iSCSI read command as the bytes sent, least significant byte first; the
 * values below are those bytes read as a little-endian u32.  "123456789" is
 * the usual check value of CRC-32C.
 */
#include <kunit/test.h>

#include "cmkit/crc32c.h"

struct crc_case {
	const char *name;
	u8 data[48];
	size_t len;
	u32 crc;
};

static const struct crc_case crc_cases[] = {
	{ "rfc3720 32 zero bytes", { 0 }, 32, 0x8a9136aa },
	{ "rfc3720 32 bytes of 0xff",
	  { [0 ... 31] = 0xff }, 32, 0x62a8ab43 },
	{ "rfc3720 32 incrementing bytes",
	  { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19,
	    20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31 }, 32, 0x46dd794e },
	{ "rfc3720 32 decrementing bytes",
	  { 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14,
	    13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0 }, 32, 0x113fdb5c },
	{ "rfc3720 iSCSI read command PDU",
	  { 0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
	    0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
	    0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 }, 48, 0xd9963a56 },
	{ "check value 123456789", "123456789", 9, 0xe3069283 },
	{ "empty buffer", { 0 }, 0, 0x00000000 },
};

static void crc_case_desc(const struct crc_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(crc, crc_cases, crc_case_desc);

/* The whole buffer at once gives the known CRC. */
static void crc32c_known_vector(struct kunit *test)
{
	const struct crc_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, ~cmkit_crc32c(CMKIT_CRC32C_SEED, c->data, c->len), c->crc);
}

/* Fed in two pieces at every split point, the register ends the same. */
static void crc32c_split_anywhere(struct kunit *test)
{
	const struct crc_case *c = test->param_value;
	size_t cut;

	for (cut = 0; cut <= c->len; cut++) {
		u32 reg = cmkit_crc32c(CMKIT_CRC32C_SEED, c->data, cut);

		reg = cmkit_crc32c(reg, c->data + cut, c->len - cut);
		KUNIT_EXPECT_EQ_MSG(test, ~reg, c->crc, "split at %zu", cut);
	}
}

/* Any one flipped bit changes the CRC (CRC32c detects every 1-bit error). */
static void crc32c_single_bit_flip_detected(struct kunit *test)
{
	const struct crc_case *c = test->param_value;
	u8 buf[48];
	size_t i;
	int bit;
	u32 crc;

	for (i = 0; i < c->len; i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(buf, c->data, c->len);
			buf[i] ^= 1U << bit;
			crc = ~cmkit_crc32c(CMKIT_CRC32C_SEED, buf, c->len);
			KUNIT_EXPECT_NE_MSG(test, crc, c->crc, "byte %zu bit %d", i, bit);
		}
	}
}

static struct kunit_case cmkit_pure_crc32c_cases[] = {
	KUNIT_CASE_PARAM(crc32c_known_vector, crc_gen_params),
	KUNIT_CASE_PARAM(crc32c_split_anywhere, crc_gen_params),
	KUNIT_CASE_PARAM(crc32c_single_bit_flip_detected, crc_gen_params),
	{}
};

static struct kunit_suite cmkit_pure_crc32c_suite = {
	.name = "cmkit_pure_crc32c",
	.test_cases = cmkit_pure_crc32c_cases,
};

kunit_test_suite(cmkit_pure_crc32c_suite);
