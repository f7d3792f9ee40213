// SPDX-License-Identifier: GPL-2.0-only
// Host tests of the SRP data-path IU codecs in include/cmkit/srp_iu.h.  The
// reference IUs are written out byte by byte from the SRP r16a layouts (and
// ib_srp's choices), never produced by the encoders under test.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cmkit/srp_iu.h"

namespace {

using Bytes = std::vector<cmkit_u8>;

void Put(Bytes &b, size_t at, std::initializer_list<int> v)
{
	for (int x : v)
		b.at(at++) = (cmkit_u8)x;
}

// READ(10) of 8 blocks at LBA 0x1234 on LUN 0, one direct data-in
// descriptor, as ib_srp sends it: descriptor counts left 0 for direct.
Bytes ReadCmdBytes()
{
	Bytes b(64, 0);
	Put(b, 0, { 0x02, 0x00, 0, 0, 0, 0x01 /* in: direct */, 0x00, 0x00 });
	Put(b, 8, { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 });
	// 16..19 reserved, 20..27 LUN 0, 28 reserved, 29 simple, 30, 31: no add CDB
	Put(b, 32, { 0x28, 0x00, 0x00, 0x00, 0x12, 0x34, 0x00, 0x00, 0x08, 0x00 });
	Put(b, 48, { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
		     0xaa, 0xbb, 0xcc, 0xdd, 0x00, 0x00, 0x10, 0x00 });
	return b;
}

// WRITE(10) of one 512-byte block with immediate data, as ib_srp lays it
// out: imm_data_offset 68 (48 + 16 spare additional CDB bytes + 4), the
// 4-byte length right after the CDB, zeros up to 68, then the data.
Bytes ImmWriteBytes()
{
	Bytes b(68 + 512, 0);
	Put(b, 0, { 0x02, 0x00, 0, 0, 0, 0x30 /* out: immediate */, 0, 0 });
	Put(b, 8, { 0, 0, 0, 0, 0, 0, 0, 0x2a });
	Put(b, 20, { 0x00, 0x05 });	// LUN 5, peripheral addressing
	Put(b, 32, { 0x2a, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x01, 0x00 });
	Put(b, 48, { 0x00, 0x00, 0x02, 0x00 });
	for (size_t i = 68; i < b.size(); i++)
		b[i] = (cmkit_u8)(i * 7);
	return b;
}

// An indirect data-in buffer whose table (two descriptors) is whole in the IU.
Bytes IndirectBytes()
{
	Bytes b(48 + 20 + 32, 0);
	Put(b, 0, { 0x02, 0x00, 0, 0, 0, 0x02 /* in: indirect */, 0x00, 0x02 });
	Put(b, 8, { 0, 0, 0, 0, 0, 0, 0, 0x99 });
	Put(b, 32, { 0x88 });	// READ(16)
	// Table descriptor: va 0x1000, key 0x77, len 32; total length 0x3000.
	Put(b, 48, { 0, 0, 0, 0, 0, 0, 0x10, 0x00, 0, 0, 0, 0x77, 0, 0, 0, 0x20 });
	Put(b, 64, { 0x00, 0x00, 0x30, 0x00 });
	Put(b, 68, { 0, 0, 0, 0, 0, 0xa0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0x10, 0 });
	Put(b, 84, { 0, 0, 0, 0, 0, 0xb0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0x20, 0 });
	return b;
}

TEST(SrpCmd, DecodesAHandWrittenReadWithADirectDescriptor)
{
	Bytes b = ReadCmdBytes();
	cmkit_srp_cmd c{};
	ASSERT_EQ(0, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	EXPECT_EQ(0x0102030405060708ULL, c.tag);
	EXPECT_EQ(0ULL, c.lun);
	EXPECT_EQ(CMKIT_SRP_TASK_SIMPLE, c.task_attr);
	EXPECT_EQ(16, c.cdb_len);
	EXPECT_EQ(b.data() + 32, c.cdb);
	EXPECT_EQ(CMKIT_SRP_DATA_DESC_NONE, c.out.fmt);
	EXPECT_EQ(CMKIT_SRP_DATA_DESC_DIRECT, c.in.fmt);
	EXPECT_EQ(1, c.in.count);
	EXPECT_EQ(1U, c.in.ndesc);
	EXPECT_EQ(1, c.in.whole);
	EXPECT_EQ(0x1122334455667788ULL, c.in.desc.va);
	EXPECT_EQ(0xaabbccddU, c.in.desc.key);
	EXPECT_EQ(4096U, c.in.len);
	EXPECT_EQ(64U, c.iu_len);
	cmkit_srp_direct d{};
	ASSERT_EQ(0, cmkit_srp_buf_desc(&c.in, 0, &d));
	EXPECT_EQ(0x1122334455667788ULL, d.va);
	EXPECT_EQ(CMKIT_SRP_IU_E_ARG, cmkit_srp_buf_desc(&c.in, 1, &d));
}

TEST(SrpCmd, EncodesTheHandWrittenReadByteForByte)
{
	Bytes want = ReadCmdBytes();
	const cmkit_u8 cdb[10] = { 0x28, 0, 0, 0, 0x12, 0x34, 0, 0, 0x08, 0 };
	cmkit_srp_cmd c{};
	c.tag = 0x0102030405060708ULL;
	c.cdb = cdb;
	c.cdb_len = sizeof(cdb);
	c.in.fmt = CMKIT_SRP_DATA_DESC_DIRECT;
	c.in.desc = { 0x1122334455667788ULL, 0xaabbccdd, 4096 };
	Bytes got(100, 0xee);
	ASSERT_EQ(64, cmkit_srp_encode_cmd(got.data(), got.size(), 0, &c));
	got.resize(64);
	EXPECT_EQ(want, got);
}

TEST(SrpCmd, DecodesImmediateDataWhereIbSrpPutsIt)
{
	Bytes b = ImmWriteBytes();
	cmkit_srp_cmd c{};
	ASSERT_EQ(0, cmkit_srp_decode_cmd(b.data(), b.size(), 68, &c));
	EXPECT_EQ(0x2aULL, c.tag);
	EXPECT_EQ(0x0005000000000000ULL, c.lun);
	EXPECT_EQ(CMKIT_SRP_DATA_DESC_IMM, c.out.fmt);
	EXPECT_EQ(512U, c.out.len);
	EXPECT_EQ(b.data() + 68, c.out.imm);
	EXPECT_EQ(0, c.out.count);
	EXPECT_EQ(nullptr, c.out.list);
	EXPECT_EQ(CMKIT_SRP_DATA_DESC_NONE, c.in.fmt);
	EXPECT_EQ(68U + 512U, c.iu_len);

	// And the encoder lays it out the same way, gap zeroed.
	cmkit_srp_cmd e{};
	const cmkit_u8 cdb[10] = { 0x2a, 0, 0, 0, 0, 0x07, 0, 0, 0x01, 0 };
	e.tag = 0x2a;
	e.lun = 0x0005000000000000ULL;
	e.cdb = cdb;
	e.cdb_len = 10;
	e.out.fmt = CMKIT_SRP_DATA_DESC_IMM;
	e.out.len = 512;
	e.out.imm = b.data() + 68;
	Bytes got(b.size(), 0xee);
	ASSERT_EQ((int)b.size(), cmkit_srp_encode_cmd(got.data(), got.size(), 68, &e));
	EXPECT_EQ(b, got);
}

TEST(SrpCmd, ImmediateDataNeedsTheLoginsConsent)
{
	Bytes b = ImmWriteBytes();
	cmkit_srp_cmd c{};
	EXPECT_EQ(CMKIT_SRP_IU_E_FMT_OUT, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	EXPECT_EQ(CMKIT_SRP_T_LOGOUT_DATA_OUT_FORMAT,
		  cmkit_srp_logout_reason(CMKIT_SRP_IU_E_FMT_OUT));
}

TEST(SrpCmd, ImmediateDataMustFollowTheDescriptorsAndFitTheIu)
{
	Bytes b = ImmWriteBytes();
	cmkit_srp_cmd c{};
	// The descriptor ends at 52: an offset of 51 overlaps it, 52 does not.
	EXPECT_EQ(CMKIT_SRP_IU_E_IMM_OFF, cmkit_srp_decode_cmd(b.data(), b.size(), 51, &c));
	EXPECT_EQ(CMKIT_SRP_IU_E_IMM_OFF, cmkit_srp_decode_cmd(b.data(), b.size(), 48, &c));
	EXPECT_EQ(0, cmkit_srp_decode_cmd(b.data(), 52 + 512, 52, &c));
	// One byte short of the data.
	EXPECT_EQ(CMKIT_SRP_IU_E_IMM_LEN, cmkit_srp_decode_cmd(b.data(), b.size() - 1, 68, &c));
	// An offset past the IU.
	EXPECT_EQ(CMKIT_SRP_IU_E_IMM_LEN, cmkit_srp_decode_cmd(b.data(), 60, 68, &c));
	// A length that would wrap a 32-bit sum.
	Put(b, 48, { 0xff, 0xff, 0xff, 0xff });
	EXPECT_EQ(CMKIT_SRP_IU_E_IMM_LEN, cmkit_srp_decode_cmd(b.data(), b.size(), 68, &c));
	// Zero bytes of immediate data at the very end is fine.
	Put(b, 48, { 0, 0, 0, 0 });
	ASSERT_EQ(0, cmkit_srp_decode_cmd(b.data(), 68, 68, &c));
	EXPECT_EQ(0U, c.out.len);
}

TEST(SrpCmd, DecodesAWholeIndirectTable)
{
	Bytes b = IndirectBytes();
	cmkit_srp_cmd c{};
	ASSERT_EQ(0, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	EXPECT_EQ(CMKIT_SRP_DATA_DESC_INDIRECT, c.in.fmt);
	EXPECT_EQ(2, c.in.count);
	EXPECT_EQ(2U, c.in.ndesc);
	EXPECT_EQ(1, c.in.whole);
	EXPECT_EQ(0x3000U, c.in.len);
	EXPECT_EQ(0x1000ULL, c.in.desc.va);
	EXPECT_EQ(0x77U, c.in.desc.key);
	EXPECT_EQ(32U, c.in.desc.len);
	EXPECT_EQ(b.data() + 68, c.in.list);
	cmkit_srp_direct d{};
	ASSERT_EQ(0, cmkit_srp_buf_desc(&c.in, 1, &d));
	EXPECT_EQ(0xb00000ULL, d.va);
	EXPECT_EQ(2U, d.key);
	EXPECT_EQ(0x2000U, d.len);
	EXPECT_EQ(CMKIT_SRP_IU_E_ARG, cmkit_srp_buf_desc(&c.in, 2, &d));
	EXPECT_EQ(b.size(), (size_t)c.iu_len);
}

TEST(SrpCmd, APartialListMeansTheTableMustBeFetched)
{
	Bytes b = IndirectBytes();
	Put(b, 60, { 0, 0, 0, 0x40 });		// table of four descriptors
	Put(b, 64, { 0x00, 0x01, 0x00, 0x00 });	// any total: not checkable
	cmkit_srp_cmd c{};
	ASSERT_EQ(0, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	EXPECT_EQ(0, c.in.whole);
	EXPECT_EQ(2, c.in.count);
	EXPECT_EQ(4U, c.in.ndesc);
	EXPECT_EQ(0x10000U, c.in.len);
}

TEST(SrpCmd, RefusesInconsistentIndirectTables)
{
	cmkit_srp_cmd c{};
	Bytes b = IndirectBytes();
	Put(b, 60, { 0, 0, 0, 0x21 });	// 33: not a multiple of 16
	EXPECT_EQ(CMKIT_SRP_IU_E_TABLE, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	Put(b, 60, { 0, 0, 0, 0x10 });	// one entry, but two in the IU
	EXPECT_EQ(CMKIT_SRP_IU_E_TABLE, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	b = IndirectBytes();
	Put(b, 64, { 0, 0, 0x30, 0x01 });	// total one byte off the sum
	EXPECT_EQ(CMKIT_SRP_IU_E_TOTAL, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	EXPECT_EQ(CMKIT_SRP_T_LOGOUT_NO_REASON, cmkit_srp_logout_reason(CMKIT_SRP_IU_E_TOTAL));
}

TEST(SrpCmd, RefusesAPartialListLongerThanTheIu)
{
	Bytes b = IndirectBytes();
	cmkit_srp_cmd c{};
	b[7] = 3;	// three in the IU, room for two
	Put(b, 60, { 0, 0, 0, 0x30 });
	EXPECT_EQ(CMKIT_SRP_IU_E_LIST, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	b[7] = 255;
	EXPECT_EQ(CMKIT_SRP_IU_E_LIST, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	// Every truncation of the good IU fails, at the step that runs out.
	b = IndirectBytes();
	for (size_t len = 48; len < 68; len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_DESC, cmkit_srp_decode_cmd(b.data(), len, 0, &c)) << len;
	for (size_t len = 68; len < b.size(); len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_LIST, cmkit_srp_decode_cmd(b.data(), len, 0, &c)) << len;
}

TEST(SrpCmd, RefusesTruncatedAbsentAndOtherIus)
{
	Bytes b = ReadCmdBytes();
	cmkit_srp_cmd c{};
	EXPECT_EQ(CMKIT_SRP_IU_E_SHORT, cmkit_srp_decode_cmd(nullptr, 64, 0, &c));
	for (size_t len = 0; len < CMKIT_SRP_CMD_LEN; len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_SHORT, cmkit_srp_decode_cmd(b.data(), len, 0, &c)) << len;
	for (size_t len = CMKIT_SRP_CMD_LEN; len < 64; len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_DESC, cmkit_srp_decode_cmd(b.data(), len, 0, &c)) << len;
	b[0] = CMKIT_SRP_TSK_MGMT;
	EXPECT_EQ(CMKIT_SRP_IU_E_OPCODE, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	EXPECT_EQ(CMKIT_SRP_T_LOGOUT_INVALID_IU_TYPE,
		  cmkit_srp_logout_reason(CMKIT_SRP_IU_E_OPCODE));
	EXPECT_EQ(CMKIT_SRP_T_LOGOUT_INVALID_IU_LEN,
		  cmkit_srp_logout_reason(CMKIT_SRP_IU_E_SHORT));
}

TEST(SrpCmd, AdditionalCdbIsCountedInWordsAndChecked)
{
	// A 32-byte CDB: 4 words, byte 31 = 4 << 2; the descriptor moves to 64.
	Bytes b(80, 0);
	Put(b, 0, { 0x02, 0, 0, 0, 0, 0x01, 0, 0 });
	b[31] = 4 << 2;
	for (int i = 0; i < 32; i++)
		b[32 + i] = (cmkit_u8)(0x40 + i);
	Put(b, 64, { 0, 0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0, 0x02, 0, 0, 0, 0x03 });
	cmkit_srp_cmd c{};
	ASSERT_EQ(0, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	EXPECT_EQ(32, c.cdb_len);
	EXPECT_EQ(0x5f, c.cdb[31]);
	EXPECT_EQ(1ULL, c.in.desc.va);
	EXPECT_EQ(3U, c.in.len);
	// The two reserved low bits are ignored.
	b[31] = (4 << 2) | 0x03;
	ASSERT_EQ(0, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	EXPECT_EQ(32, c.cdb_len);
	// An additional CDB past the IU.
	EXPECT_EQ(CMKIT_SRP_IU_E_CDB, cmkit_srp_decode_cmd(b.data(), 63, 0, &c));
	b[31] = 63 << 2;
	EXPECT_EQ(CMKIT_SRP_IU_E_CDB, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
}

TEST(SrpCmd, RefusesReservedFormats)
{
	Bytes b = ReadCmdBytes();
	cmkit_srp_cmd c{};
	for (int f = 4; f < 16; f++) {
		b[5] = (cmkit_u8)(f << 4);
		EXPECT_EQ(CMKIT_SRP_IU_E_FMT_OUT, cmkit_srp_decode_cmd(b.data(), b.size(), 68, &c)) << f;
	}
	for (int f = 3; f < 16; f++) {	// 3: immediate is data-out only
		b[5] = (cmkit_u8)f;
		EXPECT_EQ(CMKIT_SRP_IU_E_FMT_IN, cmkit_srp_decode_cmd(b.data(), b.size(), 68, &c)) << f;
	}
	EXPECT_EQ(CMKIT_SRP_T_LOGOUT_DATA_IN_FORMAT,
		  cmkit_srp_logout_reason(CMKIT_SRP_IU_E_FMT_IN));
}

TEST(SrpCmd, BidirectionalPutsDataOutFirst)
{
	Bytes b(48 + 32, 0);
	Put(b, 0, { 0x02, 0x06, 0, 0, 0, 0x11, 0, 0 });
	b[29] = 0x04 | 0xf8;	// ACA, with high bits that are not ours
	Put(b, 48, { 0, 0, 0, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0x0b, 0, 0, 0, 0x0c });
	Put(b, 64, { 0, 0, 0, 0, 0, 0, 0, 0x1a, 0, 0, 0, 0x1b, 0, 0, 0, 0x1c });
	cmkit_srp_cmd c{};
	ASSERT_EQ(0, cmkit_srp_decode_cmd(b.data(), b.size(), 0, &c));
	EXPECT_EQ(CMKIT_SRP_SOLNT_SUCCESS | CMKIT_SRP_SOLNT_FAILURE, c.sol_not);
	EXPECT_EQ(CMKIT_SRP_TASK_ACA, c.task_attr);
	EXPECT_EQ(0x0aULL, c.out.desc.va);
	EXPECT_EQ(0x0cU, c.out.len);
	EXPECT_EQ(0x1aULL, c.in.desc.va);
	EXPECT_EQ(0x1cU, c.in.len);
	EXPECT_EQ(CMKIT_SRP_IU_E_DESC, cmkit_srp_decode_cmd(b.data(), b.size() - 1, 0, &c));
}

void ExpectSameBuf(const cmkit_srp_data_buf &a, const cmkit_srp_data_buf &b)
{
	EXPECT_EQ(a.fmt, b.fmt);
	EXPECT_EQ(a.len, b.len);
	if (a.fmt == CMKIT_SRP_DATA_DESC_DIRECT || a.fmt == CMKIT_SRP_DATA_DESC_INDIRECT) {
		EXPECT_EQ(a.desc.va, b.desc.va);
		EXPECT_EQ(a.desc.key, b.desc.key);
		EXPECT_EQ(a.desc.len, b.desc.len);
	}
	if (a.fmt == CMKIT_SRP_DATA_DESC_INDIRECT) {
		ASSERT_EQ(a.count, b.count);
		EXPECT_EQ(0, std::memcmp(a.list, b.list, a.count * 16u));
	}
	if (a.fmt == CMKIT_SRP_DATA_DESC_IMM) {
		EXPECT_EQ(0, std::memcmp(a.imm, b.imm, a.len));
	}
}

TEST(SrpCmd, EveryLayoutRoundTripsThroughExactBuffers)
{
	cmkit_u8 list[3 * 16];
	cmkit_u32 total = 0;
	for (int i = 0; i < 3; i++) {
		cmkit_srp_direct d = { 0x1000ULL * (i + 1), (cmkit_u32)(0x50 + i),
				       (cmkit_u32)(512 * (i + 1)) };
		cmkit_srp_put_direct(list + 16 * i, &d);
		total += d.len;
	}
	cmkit_u8 cdb[40];
	for (int i = 0; i < 40; i++)
		cdb[i] = (cmkit_u8)(i + 1);
	cmkit_u8 data[300];
	for (int i = 0; i < 300; i++)
		data[i] = (cmkit_u8)(255 - i);

	const cmkit_u16 cdb_lens[] = { 6, 16, 17, 32, 40 };
	for (cmkit_u16 cdb_len : cdb_lens) {
		for (int out = 0; out < 4; out++) {
			for (int in = 0; in < 3; in++) {
				cmkit_srp_cmd c{};
				c.tag = 0xfedcba9876543210ULL;
				c.lun = 0x4123000000000000ULL;
				c.sol_not = CMKIT_SRP_SOLNT_FAILURE;
				c.task_attr = CMKIT_SRP_TASK_ORDERED;
				c.cdb = cdb;
				c.cdb_len = cdb_len;
				cmkit_srp_data_buf *bufs[2] = { &c.out, &c.in };
				int fmts[2] = { out, in };
				for (int k = 0; k < 2; k++) {
					cmkit_srp_data_buf &b = *bufs[k];
					b.fmt = (cmkit_u8)fmts[k];
					if (b.fmt == CMKIT_SRP_DATA_DESC_DIRECT) {
						b.desc = { 0xabcdefULL + k, 9u + k, 4096u + k };
						b.len = b.desc.len;
					} else if (b.fmt == CMKIT_SRP_DATA_DESC_INDIRECT) {
						b.desc = { 0x7000ULL, 0x33, 3 * 16 };
						b.count = 3;
						b.list = list;
						b.len = total;
					} else if (b.fmt == CMKIT_SRP_DATA_DESC_IMM) {
						b.len = sizeof(data);
						b.imm = data;
					}
				}
				const cmkit_u16 imm_off = 48 + 40 + 2 * (20 + 48) + 4;
				Bytes big(2048);
				int n = cmkit_srp_encode_cmd(big.data(), big.size(), imm_off, &c);
				ASSERT_GT(n, 0) << cdb_len << " " << out << " " << in;
				// Exactly that many bytes on the heap: ASan sees overreads.
				Bytes exact(big.begin(), big.begin() + n);
				cmkit_srp_cmd d{};
				ASSERT_EQ(0, cmkit_srp_decode_cmd(exact.data(), exact.size(), imm_off, &d));
				EXPECT_EQ((cmkit_u32)n, d.iu_len);
				EXPECT_EQ(c.tag, d.tag);
				EXPECT_EQ(c.lun, d.lun);
				EXPECT_EQ(c.sol_not, d.sol_not);
				EXPECT_EQ(c.task_attr, d.task_attr);
				EXPECT_EQ(16 + ((cdb_len > 16 ? cdb_len - 16 + 3 : 0) & ~3), d.cdb_len);
				EXPECT_EQ(0, std::memcmp(cdb, d.cdb, cdb_len));
				for (int i = cdb_len; i < d.cdb_len; i++)
					EXPECT_EQ(0, d.cdb[i]);
				ExpectSameBuf(c.out, d.out);
				ExpectSameBuf(c.in, d.in);
				// Every shorter prefix is refused.
				for (int len = 0; len < n; len++) {
					Bytes pre(exact.begin(), exact.begin() + len);
					EXPECT_LT(cmkit_srp_decode_cmd(pre.data(), pre.size(), imm_off, &d), 0)
						<< len;
				}
			}
		}
	}
}

TEST(SrpCmd, EncoderChecksItsRoomAndArguments)
{
	const cmkit_u8 cdb[16] = { 0x00 };
	cmkit_srp_cmd c{};
	c.cdb = cdb;
	c.cdb_len = 16;
	c.in.fmt = CMKIT_SRP_DATA_DESC_DIRECT;
	Bytes buf(64);
	for (size_t len = 0; len < 64; len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_NOSPACE, cmkit_srp_encode_cmd(buf.data(), len, 0, &c)) << len;
	EXPECT_EQ(64, cmkit_srp_encode_cmd(buf.data(), 64, 0, &c));
	c.cdb_len = 0;
	EXPECT_EQ(CMKIT_SRP_IU_E_ARG, cmkit_srp_encode_cmd(buf.data(), 64, 0, &c));
	c.cdb_len = CMKIT_SRP_MAX_CDB_LEN + 1;
	EXPECT_EQ(CMKIT_SRP_IU_E_ARG, cmkit_srp_encode_cmd(buf.data(), 64, 0, &c));
	c.cdb_len = 16;
	c.in.fmt = CMKIT_SRP_DATA_DESC_IMM;
	EXPECT_EQ(CMKIT_SRP_IU_E_FMT_IN, cmkit_srp_encode_cmd(buf.data(), 64, 0, &c));
	c.in.fmt = 0;
	c.out.fmt = CMKIT_SRP_DATA_DESC_IMM;
	EXPECT_EQ(CMKIT_SRP_IU_E_IMM_OFF, cmkit_srp_encode_cmd(buf.data(), 64, 0, &c));
	EXPECT_EQ(CMKIT_SRP_IU_E_IMM_OFF, cmkit_srp_encode_cmd(buf.data(), 64, 51, &c));
	EXPECT_EQ(52, cmkit_srp_encode_cmd(buf.data(), 64, 52, &c));
	c.out.len = 1;	// a length without data
	EXPECT_EQ(CMKIT_SRP_IU_E_ARG, cmkit_srp_encode_cmd(buf.data(), 64, 52, &c));
	c.out.fmt = CMKIT_SRP_DATA_DESC_INDIRECT;
	c.out.count = 1;	// a list without entries
	EXPECT_EQ(CMKIT_SRP_IU_E_ARG, cmkit_srp_encode_cmd(buf.data(), 64, 0, &c));
}

TEST(SrpIu, TheTagIsAtEightInEveryIu)
{
	Bytes b = ReadCmdBytes();
	cmkit_u64 tag = 0;
	ASSERT_EQ(0, cmkit_srp_iu_tag(b.data(), 16, &tag));
	EXPECT_EQ(0x0102030405060708ULL, tag);
	tag = 1;
	EXPECT_EQ(CMKIT_SRP_IU_E_SHORT, cmkit_srp_iu_tag(b.data(), 15, &tag));
	EXPECT_EQ(CMKIT_SRP_IU_E_SHORT, cmkit_srp_iu_tag(nullptr, 16, &tag));
	EXPECT_EQ(1ULL, tag);
}

// LOGICAL UNIT RESET of LUN 0, as ib_srp's srp_send_tsk_mgmt() fills it.
Bytes LunResetBytes()
{
	Bytes b(48, 0);
	b[0] = 0x01;
	Put(b, 8, { 0x80, 0, 0, 0, 0, 0, 0, 0x03 });
	b[30] = 0x08;
	return b;
}

TEST(SrpTskMgmt, DecodesAndEncodesTheHandWrittenLunReset)
{
	Bytes b = LunResetBytes();
	cmkit_srp_tsk_mgmt tm{};
	ASSERT_EQ(0, cmkit_srp_decode_tsk_mgmt(b.data(), b.size(), &tm));
	EXPECT_EQ(0x8000000000000003ULL, tm.tag);
	EXPECT_EQ(0ULL, tm.lun);
	EXPECT_EQ(CMKIT_SRP_TSK_LUN_RESET, tm.func);
	EXPECT_EQ(0ULL, tm.task_tag);
	Bytes got(48, 0xee);
	ASSERT_EQ(48, cmkit_srp_encode_tsk_mgmt(got.data(), got.size(), &tm));
	EXPECT_EQ(b, got);
}

TEST(SrpTskMgmt, AbortTaskRoundTripsAndShortOnesAreRefused)
{
	cmkit_srp_tsk_mgmt tm{};
	tm.tag = 11;
	tm.lun = 0x0001000000000000ULL;
	tm.sol_not = CMKIT_SRP_SOLNT_SUCCESS;
	tm.func = CMKIT_SRP_TSK_ABORT_TASK;
	tm.task_tag = 0x1122334455667788ULL;
	Bytes b(48);
	ASSERT_EQ(48, cmkit_srp_encode_tsk_mgmt(b.data(), b.size(), &tm));
	EXPECT_EQ(0x11, b[32]);
	EXPECT_EQ(0x01, b[21]);
	cmkit_srp_tsk_mgmt out{};
	ASSERT_EQ(0, cmkit_srp_decode_tsk_mgmt(b.data(), b.size(), &out));
	EXPECT_EQ(tm.tag, out.tag);
	EXPECT_EQ(tm.lun, out.lun);
	EXPECT_EQ(tm.sol_not, out.sol_not);
	EXPECT_EQ(tm.func, out.func);
	EXPECT_EQ(tm.task_tag, out.task_tag);
	for (size_t len = 0; len < 48; len++) {
		EXPECT_EQ(CMKIT_SRP_IU_E_SHORT, cmkit_srp_decode_tsk_mgmt(b.data(), len, &out));
		EXPECT_EQ(CMKIT_SRP_IU_E_NOSPACE, cmkit_srp_encode_tsk_mgmt(b.data(), len, &tm));
	}
	b[0] = CMKIT_SRP_CMD;
	EXPECT_EQ(CMKIT_SRP_IU_E_OPCODE, cmkit_srp_decode_tsk_mgmt(b.data(), b.size(), &out));
}

TEST(SrpTskMgmt, ASingleLunTargetPerformsTheFourAbortsAndResets)
{
	const cmkit_u8 done[] = { CMKIT_SRP_TSK_ABORT_TASK, CMKIT_SRP_TSK_ABORT_TASK_SET,
				  CMKIT_SRP_TSK_CLEAR_TASK_SET, CMKIT_SRP_TSK_LUN_RESET };
	for (cmkit_u8 f : done) {
		EXPECT_EQ(CMKIT_SRP_TSK_MGMT_COMPLETE, cmkit_srp_tsk_mgmt_rsp_code(f, 1)) << (int)f;
		EXPECT_EQ(CMKIT_SRP_TSK_MGMT_FAILED, cmkit_srp_tsk_mgmt_rsp_code(f, 0)) << (int)f;
	}
	for (int f = 0; f < 256; f++) {
		bool known = f == 1 || f == 2 || f == 4 || f == 8;
		if (known)
			continue;
		EXPECT_EQ(CMKIT_SRP_TSK_MGMT_FUNC_NOT_SUPPORTED,
			  cmkit_srp_tsk_mgmt_rsp_code((cmkit_u8)f, 1)) << f;
	}
	EXPECT_EQ(0x00, CMKIT_SRP_TSK_MGMT_COMPLETE);
	EXPECT_EQ(0x04, CMKIT_SRP_TSK_MGMT_FUNC_NOT_SUPPORTED);
	EXPECT_EQ(0x05, CMKIT_SRP_TSK_MGMT_FAILED);
}

// CHECK CONDITION with 18 bytes of fixed-format sense (ILLEGAL REQUEST,
// INVALID COMMAND OPERATION CODE), a data-in underflow of 0x200, and 1 credit.
Bytes CheckConditionRspBytes()
{
	Bytes b(36 + 18, 0);
	Put(b, 0, { 0xc1, 0x00, 0, 0, 0, 0, 0, 0x01 });
	Put(b, 8, { 0xca, 0xfe, 0, 0, 0, 0, 0, 0x01 });
	Put(b, 16, { 0, 0, 0x22 /* DIUNDER | SNSVALID */, 0x02 });
	Put(b, 24, { 0, 0, 0x02, 0x00 });	// data-in residual
	Put(b, 28, { 0, 0, 0, 18 });		// sense length
	Put(b, 36, { 0x70, 0, 0x05, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x20, 0x00 });
	return b;
}

TEST(SrpRsp, EncodesTheHandWrittenCheckConditionByteForByte)
{
	Bytes want = CheckConditionRspBytes();
	cmkit_srp_rsp r{};
	r.tag = 0xcafe000000000001ULL;
	r.req_lim_delta = 1;
	r.status = 0x02;
	cmkit_srp_residual(&r, 0, 0x200, 0, 0);
	r.sense = want.data() + 36;
	r.sense_len = 18;
	Bytes got(want.size(), 0xee);
	ASSERT_EQ((int)want.size(), cmkit_srp_encode_rsp(got.data(), got.size(), &r));
	EXPECT_EQ(want, got);

	cmkit_srp_rsp d{};
	ASSERT_EQ(0, cmkit_srp_decode_rsp(want.data(), want.size(), &d));
	EXPECT_EQ(r.tag, d.tag);
	EXPECT_EQ(1U, d.req_lim_delta);
	EXPECT_EQ(0x02, d.status);
	EXPECT_EQ(CMKIT_SRP_RSP_DIUNDER | CMKIT_SRP_RSP_SNSVALID, d.flags);
	EXPECT_EQ(0x200U, d.data_in_res);
	EXPECT_EQ(18U, d.sense_len);
	EXPECT_EQ(want.data() + 36, d.sense);
	EXPECT_EQ(0U, d.resp_len);
	EXPECT_EQ(nullptr, d.resp);
	EXPECT_EQ(0xff, d.rsp_code);
}

TEST(SrpRsp, TaskManagementAnswersCarryTheirCodeInByteThree)
{
	cmkit_u8 code[CMKIT_SRP_TSK_MGMT_RSP_DATA_LEN];
	cmkit_srp_tsk_mgmt_rsp_data(code, CMKIT_SRP_TSK_MGMT_FUNC_NOT_SUPPORTED);
	cmkit_srp_rsp r{};
	r.tag = 5;
	r.resp = code;
	r.resp_len = sizeof(code);
	r.flags = CMKIT_SRP_RSP_SNSVALID;	// cleared: no sense given
	Bytes b(40);
	ASSERT_EQ(40, cmkit_srp_encode_rsp(b.data(), b.size(), &r));
	Bytes want(40, 0);
	Put(want, 0, { 0xc1 });
	want[15] = 5;
	want[18] = 0x01;	// RSPVALID
	want[35] = 4;
	want[39] = 0x04;
	EXPECT_EQ(want, b);
	cmkit_srp_rsp d{};
	ASSERT_EQ(0, cmkit_srp_decode_rsp(b.data(), b.size(), &d));
	EXPECT_EQ(0x04, d.rsp_code);
	EXPECT_EQ(0U, d.sense_len);
}

TEST(SrpRsp, SenseFollowsResponseData)
{
	const cmkit_u8 resp[4] = { 0, 0, 0, 0x05 };
	const cmkit_u8 sense[3] = { 0x70, 0, 0x0b };
	cmkit_srp_rsp r{};
	r.resp = resp;
	r.resp_len = 4;
	r.sense = sense;
	r.sense_len = 3;
	Bytes b(43);
	ASSERT_EQ(43, cmkit_srp_encode_rsp(b.data(), b.size(), &r));
	EXPECT_EQ(0x05, b[39]);
	EXPECT_EQ(0x70, b[40]);
	EXPECT_EQ(0x0b, b[42]);
	cmkit_srp_rsp d{};
	ASSERT_EQ(0, cmkit_srp_decode_rsp(b.data(), b.size(), &d));
	EXPECT_EQ(b.data() + 40, d.sense);
	EXPECT_EQ(0x05, d.rsp_code);
	for (size_t len = 0; len < 43; len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_NOSPACE, cmkit_srp_encode_rsp(b.data(), len, &r)) << len;
}

TEST(SrpRsp, DecoderRefusesDataPastTheIu)
{
	Bytes b = CheckConditionRspBytes();
	cmkit_srp_rsp d{};
	d.tag = 77;
	for (size_t len = 0; len < 36; len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_SHORT, cmkit_srp_decode_rsp(b.data(), len, &d));
	for (size_t len = 36; len < b.size(); len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_DATA, cmkit_srp_decode_rsp(b.data(), len, &d)) << len;
	// Huge lengths do not wrap.
	Put(b, 28, { 0xff, 0xff, 0xff, 0xff });
	Put(b, 32, { 0xff, 0xff, 0xff, 0xff });
	b[18] |= CMKIT_SRP_RSP_RSPVALID;
	EXPECT_EQ(CMKIT_SRP_IU_E_DATA, cmkit_srp_decode_rsp(b.data(), b.size(), &d));
	// Lengths whose flags are clear count as zero.
	b[18] = 0;
	ASSERT_EQ(0, cmkit_srp_decode_rsp(b.data(), 36, &d));
	EXPECT_EQ(0U, d.sense_len);
	EXPECT_EQ(0U, d.resp_len);
	b[0] = 0xc0;	// SRP_LOGIN_RSP
	EXPECT_EQ(CMKIT_SRP_IU_E_OPCODE, cmkit_srp_decode_rsp(b.data(), b.size(), &d));
}

TEST(SrpRsp, ResidualsSayWhichWayAndHowMuch)
{
	cmkit_srp_rsp r{};
	r.flags = CMKIT_SRP_RSP_SNSVALID | CMKIT_SRP_RSP_DOOVER;
	// INQUIRY: 36 bytes into a 255-byte buffer.
	cmkit_srp_residual(&r, 36, 255, 0, 0);
	EXPECT_EQ(CMKIT_SRP_RSP_SNSVALID | CMKIT_SRP_RSP_DIUNDER, r.flags);
	EXPECT_EQ(219U, r.data_in_res);
	EXPECT_EQ(0U, r.data_out_res);
	EXPECT_EQ(36U, cmkit_srp_xfer_len(36, 255));
	// READ of 8 blocks into 2048 bytes.
	cmkit_srp_residual(&r, 4096, 2048, 0, 0);
	EXPECT_EQ(CMKIT_SRP_RSP_SNSVALID | CMKIT_SRP_RSP_DIOVER, r.flags);
	EXPECT_EQ(2048U, r.data_in_res);
	EXPECT_EQ(2048U, cmkit_srp_xfer_len(4096, 2048));
	// Data-out both ways.
	cmkit_srp_residual(&r, 0, 0, 512, 1024);
	EXPECT_EQ(CMKIT_SRP_RSP_SNSVALID | CMKIT_SRP_RSP_DOUNDER, r.flags);
	EXPECT_EQ(512U, r.data_out_res);
	cmkit_srp_residual(&r, 0, 0, 1024, 512);
	EXPECT_EQ(CMKIT_SRP_RSP_SNSVALID | CMKIT_SRP_RSP_DOOVER, r.flags);
	EXPECT_EQ(512U, r.data_out_res);
	// Exact: no residual at all.
	cmkit_srp_residual(&r, 4096, 4096, 0, 0);
	EXPECT_EQ(CMKIT_SRP_RSP_SNSVALID, r.flags);
	EXPECT_EQ(0U, r.data_in_res);
	// A READ(16) of 2^32 blocks against a 1-byte buffer saturates.
	cmkit_srp_residual(&r, 512ULL << 32, 1, 0, 0);
	EXPECT_EQ(0xffffffffU, r.data_in_res);
	EXPECT_EQ(1U, cmkit_srp_xfer_len(512ULL << 32, 1));
	// A command that moved nothing: the whole buffer is residual.
	cmkit_srp_residual(&r, 0, 4096, 0, 0);
	EXPECT_EQ(4096U, r.data_in_res);
	EXPECT_TRUE(r.flags & CMKIT_SRP_RSP_DIUNDER);
}

TEST(SrpShortIu, EachOneHasItsLayout)
{
	// SRP_T_LOGOUT, solicited, reason 8, tag 0x42, by hand.
	Bytes want = { 0x80, 0x01, 0, 0, 0, 0, 0, 0x08, 0, 0, 0, 0, 0, 0, 0, 0x42 };
	cmkit_srp_short_iu iu{};
	iu.opcode = CMKIT_SRP_T_LOGOUT;
	iu.sol_not = CMKIT_SRP_SOLNT;
	iu.value = CMKIT_SRP_T_LOGOUT_INVALID_IU_LEN;
	iu.tag = 0x42;
	Bytes got(16, 0xee);
	ASSERT_EQ(16, cmkit_srp_encode_short_iu(got.data(), got.size(), &iu));
	EXPECT_EQ(want, got);

	// SRP_CRED_REQ: req_lim_delta where the reason was.
	iu.opcode = CMKIT_SRP_CRED_REQ;
	iu.value = 0x10;
	ASSERT_EQ(16, cmkit_srp_encode_short_iu(got.data(), got.size(), &iu));
	want[0] = 0x81;
	want[7] = 0x10;
	EXPECT_EQ(want, got);

	// The others have nothing but opcode and tag.
	const cmkit_u8 plain[] = { CMKIT_SRP_I_LOGOUT, CMKIT_SRP_CRED_RSP, CMKIT_SRP_AER_RSP };
	for (cmkit_u8 op : plain) {
		iu.opcode = op;
		ASSERT_EQ(16, cmkit_srp_encode_short_iu(got.data(), got.size(), &iu));
		Bytes w(16, 0);
		w[0] = op;
		w[15] = 0x42;
		EXPECT_EQ(w, got) << (int)op;
	}
	EXPECT_EQ(0x03, CMKIT_SRP_I_LOGOUT);
	EXPECT_EQ(0x41, CMKIT_SRP_CRED_RSP);
	EXPECT_EQ(0x42, CMKIT_SRP_AER_RSP);
}

TEST(SrpShortIu, DecodesWhatTheTargetReceivesAndIgnoresReservedBytes)
{
	// SRP_CRED_RSP as ib_srp sends it, with junk where SRP reserves bytes.
	Bytes b = { 0x41, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		    1, 2, 3, 4, 5, 6, 7, 8 };
	cmkit_srp_short_iu iu{};
	ASSERT_EQ(0, cmkit_srp_decode_short_iu(b.data(), b.size(), CMKIT_SRP_CRED_RSP, &iu));
	EXPECT_EQ(CMKIT_SRP_CRED_RSP, iu.opcode);
	EXPECT_EQ(0, iu.sol_not);
	EXPECT_EQ(0U, iu.value);
	EXPECT_EQ(0x0102030405060708ULL, iu.tag);
	EXPECT_EQ(CMKIT_SRP_IU_E_OPCODE,
		  cmkit_srp_decode_short_iu(b.data(), b.size(), CMKIT_SRP_AER_RSP, &iu));
	EXPECT_EQ(CMKIT_SRP_IU_E_ARG,
		  cmkit_srp_decode_short_iu(b.data(), b.size(), CMKIT_SRP_CMD, &iu));
	for (size_t len = 0; len < 16; len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_SHORT,
			  cmkit_srp_decode_short_iu(b.data(), len, CMKIT_SRP_CRED_RSP, &iu));

	const cmkit_u8 all[] = { CMKIT_SRP_I_LOGOUT, CMKIT_SRP_T_LOGOUT, CMKIT_SRP_CRED_REQ,
				 CMKIT_SRP_CRED_RSP, CMKIT_SRP_AER_RSP };
	for (cmkit_u8 op : all) {
		cmkit_srp_short_iu in{ op, CMKIT_SRP_SOLNT, 0x01020304, 0x99 };
		Bytes e(16);
		ASSERT_EQ(16, cmkit_srp_encode_short_iu(e.data(), e.size(), &in));
		cmkit_srp_short_iu out{};
		ASSERT_EQ(0, cmkit_srp_decode_short_iu(e.data(), e.size(), op, &out));
		bool fields = op == CMKIT_SRP_T_LOGOUT || op == CMKIT_SRP_CRED_REQ;
		EXPECT_EQ(fields ? in.value : 0U, out.value) << (int)op;
		EXPECT_EQ(fields ? in.sol_not : 0, out.sol_not) << (int)op;
		EXPECT_EQ(in.tag, out.tag);
		EXPECT_EQ(CMKIT_SRP_IU_E_NOSPACE, cmkit_srp_encode_short_iu(e.data(), 15, &in));
	}
	cmkit_srp_short_iu bad{ CMKIT_SRP_RSP, 0, 0, 0 };
	Bytes e(16);
	EXPECT_EQ(CMKIT_SRP_IU_E_ARG, cmkit_srp_encode_short_iu(e.data(), e.size(), &bad));
}

TEST(SrpAerReq, RoundTripsWithItsSenseData)
{
	const cmkit_u8 sense[18] = { 0x70, 0, 0x06, 0, 0, 0, 0, 10, 0, 0, 0, 0, 0x29 };
	cmkit_srp_aer_req a{};
	a.tag = 3;
	a.req_lim_delta = 2;
	a.sol_not = CMKIT_SRP_SOLNT;
	a.lun = 0;
	a.sense = sense;
	a.sense_len = sizeof(sense);
	Bytes b(36 + 18);
	ASSERT_EQ(54, cmkit_srp_encode_aer_req(b.data(), b.size(), &a));
	Bytes want(54, 0);
	Put(want, 0, { 0x82, 0x01, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0, 0x03 });
	want[31] = 18;
	std::memcpy(&want[36], sense, 18);
	EXPECT_EQ(want, b);
	cmkit_srp_aer_req d{};
	ASSERT_EQ(0, cmkit_srp_decode_aer_req(b.data(), b.size(), &d));
	EXPECT_EQ(3ULL, d.tag);
	EXPECT_EQ(2U, d.req_lim_delta);
	EXPECT_EQ(18U, d.sense_len);
	EXPECT_EQ(b.data() + 36, d.sense);
	for (size_t len = 0; len < 36; len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_SHORT, cmkit_srp_decode_aer_req(b.data(), len, &d));
	for (size_t len = 36; len < 54; len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_DATA, cmkit_srp_decode_aer_req(b.data(), len, &d));
	for (size_t len = 0; len < 54; len++)
		EXPECT_EQ(CMKIT_SRP_IU_E_NOSPACE, cmkit_srp_encode_aer_req(b.data(), len, &a));
	b[0] = CMKIT_SRP_AER_RSP;
	EXPECT_EQ(CMKIT_SRP_IU_E_OPCODE, cmkit_srp_decode_aer_req(b.data(), b.size(), &d));
}

TEST(SrpIu, OpcodesHaveTheirSrpValues)
{
	EXPECT_EQ(0x01, CMKIT_SRP_TSK_MGMT);
	EXPECT_EQ(0x02, CMKIT_SRP_CMD);
	EXPECT_EQ(0x03, CMKIT_SRP_I_LOGOUT);
	EXPECT_EQ(0x80, CMKIT_SRP_T_LOGOUT);
	EXPECT_EQ(0x81, CMKIT_SRP_CRED_REQ);
	EXPECT_EQ(0x82, CMKIT_SRP_AER_REQ);
	EXPECT_EQ(0xc1, CMKIT_SRP_RSP);
}

} // namespace
