// SPDX-License-Identifier: GPL-2.0-only
// Host tests of the SCSI RAM-disk planner in include/cmkit/scsi.h.  Expected
// payloads are written out by hand from SPC-4 and SBC-3, not produced by the
// code under test.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cmkit/scsi.h"
#include "cmkit/srp_iu.h"

namespace {

using Bytes = std::vector<cmkit_u8>;

cmkit_scsi_disk Disk(cmkit_u64 nblocks = 2048)
{
	cmkit_scsi_disk d{};
	d.nblocks = nblocks;
	d.block_size = 512;
	d.vendor = "CMKIT";
	d.product = "RAMDISK";
	d.revision = "0001";
	d.serial = "cmkit-0001";
	d.naa_id = 0x123456789ULL;
	return d;
}

cmkit_scsi_plan Plan(const Bytes &cdb, const cmkit_scsi_disk &d, cmkit_u64 lun = 0)
{
	cmkit_scsi_plan p{};
	EXPECT_EQ(0, cmkit_scsi_decide(cdb.data(), cdb.size(), lun, &d, &p));
	return p;
}

// The payload, built into a heap buffer of exactly the plan's length.
Bytes Build(const cmkit_scsi_plan &p, const cmkit_scsi_disk &d)
{
	Bytes out(p.xfer_len);
	EXPECT_EQ(out.size(), cmkit_scsi_build(&p, &d, out.data(), out.size()));
	return out;
}

void ExpectGood(const cmkit_scsi_plan &p, cmkit_scsi_dir dir, cmkit_u64 len)
{
	EXPECT_EQ(CMKIT_SCSI_STATUS_GOOD, p.status);
	EXPECT_EQ(dir, p.dir);
	EXPECT_EQ(len, p.xfer_len);
}

void ExpectCheck(const cmkit_scsi_plan &p, cmkit_u8 key, cmkit_u8 asc, cmkit_u8 ascq = 0)
{
	EXPECT_EQ(CMKIT_SCSI_STATUS_CHECK_CONDITION, p.status);
	EXPECT_EQ(key, p.sense_key);
	EXPECT_EQ(asc, p.asc);
	EXPECT_EQ(ascq, p.ascq);
	EXPECT_EQ(CMKIT_SCSI_DIR_NONE, p.dir);
	EXPECT_EQ(0ULL, p.xfer_len);
}

void ExpectInvalidField(const cmkit_scsi_plan &p)
{
	ExpectCheck(p, CMKIT_SCSI_SK_ILLEGAL_REQUEST, CMKIT_SCSI_ASC_INVALID_FIELD_IN_CDB);
}

Bytes Cdb(std::initializer_list<int> v, size_t len = 16)
{
	Bytes b(len, 0);
	size_t i = 0;
	for (int x : v)
		b.at(i++) = (cmkit_u8)x;
	return b;
}

Bytes Read10(cmkit_u32 lba, cmkit_u16 n, int op = 0x28)
{
	return Cdb({ op, 0, (int)(lba >> 24), (int)(lba >> 16) & 0xff, (int)(lba >> 8) & 0xff,
		     (int)lba & 0xff, 0, n >> 8, n & 0xff, 0 });
}

Bytes Read16(cmkit_u64 lba, cmkit_u32 n, int op = 0x88)
{
	Bytes b(16, 0);
	b[0] = (cmkit_u8)op;
	for (int i = 0; i < 8; i++)
		b[2 + i] = (cmkit_u8)(lba >> (56 - 8 * i));
	for (int i = 0; i < 4; i++)
		b[10 + i] = (cmkit_u8)(n >> (24 - 8 * i));
	return b;
}

TEST(ScsiPlan, TestUnitReadyAndStartStopAreGoodWithoutData)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0x00 }), d);
	ExpectGood(p, CMKIT_SCSI_DIR_NONE, 0);
	EXPECT_EQ(CMKIT_SCSI_PAYLOAD_NONE, p.payload);
	p = Plan(Cdb({ 0x1b, 0x01, 0, 0, 0x01 }), d);	// IMMED, START
	ExpectGood(p, CMKIT_SCSI_DIR_NONE, 0);
}

TEST(ScsiPlan, UnknownOpcodesGetInvalidCommandOperationCode)
{
	auto d = Disk();
	// READ(6), FORMAT UNIT, VERIFY(10), a variable-length CDB, vendor specific.
	for (int op : { 0x08, 0x04, 0x2f, 0x7f, 0xc0, 0xff }) {
		auto p = Plan(Cdb({ op }), d);
		ExpectCheck(p, CMKIT_SCSI_SK_ILLEGAL_REQUEST, CMKIT_SCSI_ASC_INVALID_OPCODE);
		EXPECT_EQ(op, p.opcode);
	}
	// The sense bytes for it, by hand: current, fixed format, ILLEGAL REQUEST,
	// additional length 10, ASC 0x20, ASCQ 0.
	const Bytes want = { 0x70, 0, 0x05, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x20, 0x00, 0, 0, 0, 0 };
	Bytes sense(CMKIT_SCSI_SENSE_LEN, 0xee);
	auto p = Plan(Cdb({ 0xff }), d);
	ASSERT_EQ(18U, cmkit_scsi_build_sense(sense.data(), sense.size(), p.sense_key, p.asc, p.ascq));
	EXPECT_EQ(want, sense);
	// Truncated to a short buffer, and nothing without one.
	Bytes small(7, 0xee);
	EXPECT_EQ(7U, cmkit_scsi_build_sense(small.data(), small.size(), 5, 0x20, 0));
	EXPECT_EQ(Bytes(want.begin(), want.begin() + 7), small);
	EXPECT_EQ(0U, cmkit_scsi_build_sense(nullptr, 18, 5, 0x20, 0));
	// No CDB at all.
	cmkit_scsi_plan q{};
	ASSERT_EQ(0, cmkit_scsi_decide(nullptr, 0, 0, &d, &q));
	ExpectCheck(q, CMKIT_SCSI_SK_ILLEGAL_REQUEST, CMKIT_SCSI_ASC_INVALID_OPCODE);
}

TEST(ScsiPlan, UnsupportedServiceActionIsAnInvalidField)
{
	auto d = Disk();
	ExpectInvalidField(Plan(Cdb({ 0x9e, 0x12 }), d));	// GET LBA STATUS
	ExpectInvalidField(Plan(Cdb({ 0x9e, 0x00 }), d));
}

TEST(ScsiPlan, ControlByteNacaAndLinkAreRefused)
{
	auto d = Disk();
	ExpectInvalidField(Plan(Cdb({ 0x00, 0, 0, 0, 0, 0x04 }), d));
	ExpectInvalidField(Plan(Cdb({ 0x00, 0, 0, 0, 0, 0x01 }), d));
	// Vendor bits of the control byte are fine.
	ExpectGood(Plan(Cdb({ 0x00, 0, 0, 0, 0, 0xc0 }), d), CMKIT_SCSI_DIR_NONE, 0);
	// The control byte of a 10-byte CDB is byte 9.
	Bytes r = Read10(0, 1);
	r[9] = 0x04;
	ExpectInvalidField(Plan(r, d));
	r[9] = 0;
	r[15] = 0x04;	// not a control byte for READ(10)
	ExpectGood(Plan(r, d), CMKIT_SCSI_DIR_IN, 512);
}

TEST(ScsiPlan, ACdbShorterThanItsCommandIsAnInvalidField)
{
	auto d = Disk();
	Bytes inq = { 0x12, 0, 0, 0, 36 };	// 5 of INQUIRY's 6 bytes
	ExpectInvalidField(Plan(inq, d));
	Bytes r16 = Read16(0, 1);
	r16.resize(15);
	ExpectInvalidField(Plan(r16, d));
}

TEST(ScsiPlan, OtherLunsAreNotSupportedButInquiryReportLunsAndRequestSenseAnswer)
{
	auto d = Disk();
	cmkit_u64 lun1 = 0;
	ASSERT_EQ(0, cmkit_scsi_lun_encode(1, &lun1));
	ExpectCheck(Plan(Read10(0, 1), d, lun1), CMKIT_SCSI_SK_ILLEGAL_REQUEST,
		    CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED);
	// Even an unknown opcode: the LUN is looked at first.
	ExpectCheck(Plan(Cdb({ 0xff }), d, lun1), CMKIT_SCSI_SK_ILLEGAL_REQUEST,
		    CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED);
	ExpectCheck(Plan(Cdb({ 0x00 }), d, lun1), CMKIT_SCSI_SK_ILLEGAL_REQUEST,
		    CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED);
	// A LUN that is not single-level is not LUN 0 either.
	ExpectCheck(Plan(Cdb({ 0x00 }), d, 0x0000000000000001ULL), CMKIT_SCSI_SK_ILLEGAL_REQUEST,
		    CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED);

	// INQUIRY: peripheral qualifier 011b, device type 0x1f.
	auto p = Plan(Cdb({ 0x12, 0, 0, 0, 36 }), d, lun1);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 36);
	Bytes inq = Build(p, d);
	ASSERT_EQ(36U, inq.size());
	EXPECT_EQ(0x7f, inq[0]);
	// But no VPD pages for it.
	ExpectCheck(Plan(Cdb({ 0x12, 1, 0x80, 0, 255 }), d, lun1),
		    CMKIT_SCSI_SK_ILLEGAL_REQUEST, CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED);

	// REPORT LUNS: the same list from anywhere.
	p = Plan(Cdb({ 0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 64 }), d, lun1);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 16);

	// REQUEST SENSE: GOOD, and the sense data says LUN NOT SUPPORTED.
	p = Plan(Cdb({ 0x03, 0, 0, 0, 18 }), d, lun1);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 18);
	Bytes s = Build(p, d);
	ASSERT_EQ(18U, s.size());
	EXPECT_EQ(0x70, s[0]);
	EXPECT_EQ(0x05, s[2]);
	EXPECT_EQ(0x25, s[12]);
	EXPECT_EQ(0x00, s[13]);
}

TEST(ScsiPlan, StandardInquiryData)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0x12, 0, 0, 0, 0xff }), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 36);
	EXPECT_EQ(CMKIT_SCSI_PAYLOAD_INQUIRY, p.payload);
	// By hand: disk, SPC-4, format 2, 31 more bytes, CMDQUE, padded strings.
	Bytes want = { 0x00, 0x00, 0x06, 0x02, 31, 0, 0, 0x02 };
	for (char c : std::string("CMKIT   RAMDISK         0001"))
		want.push_back((cmkit_u8)c);
	EXPECT_EQ(want, Build(p, d));
}

TEST(ScsiPlan, InquiryIsTruncatedToItsAllocationLength)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0x12, 0, 0, 0, 5 }), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 5);
	EXPECT_EQ(Bytes({ 0x00, 0x00, 0x06, 0x02, 31 }), Build(p, d));
	// A 16-bit allocation length.
	p = Plan(Cdb({ 0x12, 0, 0, 0x01, 0x00 }), d);
	EXPECT_EQ(36ULL, p.xfer_len);
	// Zero: no data, not an error.
	p = Plan(Cdb({ 0x12, 0, 0, 0, 0 }), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 0);
	// A caller buffer smaller than the plan gets only what fits.
	p = Plan(Cdb({ 0x12, 0, 0, 0, 36 }), d);
	Bytes small(3);
	EXPECT_EQ(3U, cmkit_scsi_build(&p, &d, small.data(), small.size()));
	EXPECT_EQ(Bytes({ 0x00, 0x00, 0x06 }), small);
	EXPECT_EQ(0U, cmkit_scsi_build(&p, &d, nullptr, 36));
	// A larger one gets the plan's bytes and no more.
	p = Plan(Cdb({ 0x12, 0, 0, 0, 5 }), d);
	Bytes large(64, 0xee);
	EXPECT_EQ(5U, cmkit_scsi_build(&p, &d, large.data(), large.size()));
	EXPECT_EQ(Bytes(59, 0xee), Bytes(large.begin() + 5, large.end()));
	// Nothing for a plan that failed.
	p = Plan(Cdb({ 0x12, 0x02, 0, 0, 36 }), d);
	EXPECT_EQ(0U, cmkit_scsi_build(&p, &d, large.data(), large.size()));
}

TEST(ScsiPlan, InquiryStringsAreBoundedAndPrintable)
{
	auto d = Disk();
	d.vendor = "ABCDEFGHIJK";	// longer than 8
	d.product = nullptr;
	d.revision = "1\t2";
	Bytes b = Build(Plan(Cdb({ 0x12, 0, 0, 0, 36 }), d), d);
	EXPECT_EQ("ABCDEFGH", std::string(b.begin() + 8, b.begin() + 16));
	EXPECT_EQ(std::string(16, ' '), std::string(b.begin() + 16, b.begin() + 32));
	EXPECT_EQ("1 2 ", std::string(b.begin() + 32, b.begin() + 36));
}

TEST(ScsiPlan, InquiryFieldsItDoesNotServe)
{
	auto d = Disk();
	ExpectInvalidField(Plan(Cdb({ 0x12, 0x02, 0, 0, 36 }), d));	// CMDDT
	ExpectInvalidField(Plan(Cdb({ 0x12, 0, 0x80, 0, 36 }), d));	// page, no EVPD
	ExpectInvalidField(Plan(Cdb({ 0x12, 1, 0xb0, 0, 36 }), d));	// block limits
	ExpectInvalidField(Plan(Cdb({ 0x12, 1, 0x81, 0, 36 }), d));
}

TEST(ScsiPlan, VpdSupportedPages)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0x12, 1, 0x00, 0, 0xff }), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 7);
	EXPECT_EQ(Bytes({ 0x00, 0x00, 0x00, 0x03, 0x00, 0x80, 0x83 }), Build(p, d));
}

TEST(ScsiPlan, VpdUnitSerialNumber)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0x12, 1, 0x80, 0, 0xff }), d);
	Bytes want = { 0x00, 0x80, 0x00, 10 };
	for (char c : std::string("cmkit-0001"))
		want.push_back((cmkit_u8)c);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, want.size());
	EXPECT_EQ(want, Build(p, d));
	// Bounded to CMKIT_SCSI_SERIAL_MAX.
	std::string longer(40, 'x');
	d.serial = longer.c_str();
	p = Plan(Cdb({ 0x12, 1, 0x80, 0, 0xff }), d);
	EXPECT_EQ(4ULL + CMKIT_SCSI_SERIAL_MAX, p.xfer_len);
}

TEST(ScsiPlan, VpdDeviceIdentification)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0x12, 1, 0x83, 0, 0xff }), d);
	// Header, then a T10 vendor ID designator (ASCII, LU, type 1: vendor
	// padded to 8, then the serial), then NAA 3 (binary, LU, type 3).
	Bytes want = { 0x00, 0x83, 0x00, 4 + 18 + 4 + 8,
		       0x02, 0x01, 0x00, 18 };
	for (char c : std::string("CMKIT   cmkit-0001"))
		want.push_back((cmkit_u8)c);
	for (int x : { 0x01, 0x03, 0x00, 8, 0x30, 0x00, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89 })
		want.push_back((cmkit_u8)x);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, want.size());
	EXPECT_EQ(want, Build(p, d));
	// Without an NAA identifier, the T10 one alone.
	d.naa_id = 0;
	p = Plan(Cdb({ 0x12, 1, 0x83, 0, 0xff }), d);
	Bytes b = Build(p, d);
	ASSERT_EQ(4U + 4 + 18, b.size());
	EXPECT_EQ(22, b[3]);
	// The NAA nibble is 3 whatever the high bits given.
	d.naa_id = 0xffffffffffffffffULL;
	b = Build(Plan(Cdb({ 0x12, 1, 0x83, 0, 0xff }), d), d);
	EXPECT_EQ(0x3f, b[30]);
	EXPECT_EQ(0xff, b[31]);
}

TEST(ScsiPlan, ReportLuns)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0xa0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0x00 }), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 16);
	EXPECT_EQ(CMKIT_SCSI_PAYLOAD_REPORT_LUNS, p.payload);
	Bytes want(16, 0);
	want[3] = 8;	// one LUN: 0
	EXPECT_EQ(want, Build(p, d));
	// Well-known LUs only: none.
	p = Plan(Cdb({ 0xa0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0xff }), d);
	EXPECT_EQ(Bytes(8, 0), Build(p, d));
	p = Plan(Cdb({ 0xa0, 0, 0x02, 0, 0, 0, 0, 0, 0, 0xff }), d);
	EXPECT_EQ(16ULL, p.xfer_len);
	ExpectInvalidField(Plan(Cdb({ 0xa0, 0, 0x03, 0, 0, 0, 0, 0, 0, 0xff }), d));
	// Truncated, the 32-bit allocation length honoured.
	p = Plan(Cdb({ 0xa0, 0, 0, 0, 0, 0, 0, 0, 0, 12 }), d);
	EXPECT_EQ(12ULL, p.xfer_len);
	p = Plan(Cdb({ 0xa0, 0, 0, 0, 0, 0, 0x01, 0, 0, 0 }), d);
	EXPECT_EQ(16ULL, p.xfer_len);
}

TEST(ScsiPlan, ReadCapacity10)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0x25 }), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 8);
	EXPECT_EQ(Bytes({ 0, 0, 0x07, 0xff, 0, 0, 0x02, 0x00 }), Build(p, d));
	// The last LBA that fits, and the ones that do not.
	d.nblocks = 0xffffffffULL;
	EXPECT_EQ(Bytes({ 0xff, 0xff, 0xff, 0xfe, 0, 0, 2, 0 }), Build(Plan(Cdb({ 0x25 }), d), d));
	d.nblocks = 0x100000000ULL;
	EXPECT_EQ(Bytes({ 0xff, 0xff, 0xff, 0xff, 0, 0, 2, 0 }), Build(Plan(Cdb({ 0x25 }), d), d));
	d.nblocks = 0x123456789ULL;
	EXPECT_EQ(Bytes({ 0xff, 0xff, 0xff, 0xff, 0, 0, 2, 0 }), Build(Plan(Cdb({ 0x25 }), d), d));
	// An LBA without PMI is invalid; with PMI it is ignored.
	ExpectInvalidField(Plan(Cdb({ 0x25, 0, 0, 0, 0, 1 }), d));
	ExpectGood(Plan(Cdb({ 0x25, 0, 0, 0, 0, 1, 0, 0, 1 }), d), CMKIT_SCSI_DIR_IN, 8);
	d.block_size = 4096;
	d.nblocks = 256;
	EXPECT_EQ(Bytes({ 0, 0, 0, 0xff, 0, 0, 0x10, 0x00 }), Build(Plan(Cdb({ 0x25 }), d), d));
}

TEST(ScsiPlan, ReadCapacity16)
{
	auto d = Disk(0x123456789ULL);
	auto p = Plan(Cdb({ 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32 }), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 32);
	EXPECT_EQ(CMKIT_SCSI_PAYLOAD_READ_CAPACITY_16, p.payload);
	Bytes want(32, 0);
	for (int i = 0; i < 8; i++)
		want[i] = (cmkit_u8)(0x123456788ULL >> (56 - 8 * i));
	want[10] = 0x02;	// 512
	EXPECT_EQ(want, Build(p, d));
	// Truncated to 12 bytes: LBA and block length only.
	p = Plan(Cdb({ 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 12 }), d);
	EXPECT_EQ(Bytes(want.begin(), want.begin() + 12), Build(p, d));
	// Zero allocation length.
	p = Plan(Cdb({ 0x9e, 0x10 }), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 0);
	// LBA without PMI.
	ExpectInvalidField(Plan(Cdb({ 0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 32 }), d));
}

TEST(ScsiPlan, ReadsAndWritesGiveTheirOffsetAndLength)
{
	auto d = Disk();
	auto p = Plan(Read10(0x10, 8), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 4096);
	EXPECT_EQ(CMKIT_SCSI_PAYLOAD_DISK, p.payload);
	EXPECT_EQ(0x10ULL * 512, p.offset);
	Bytes none(16, 0xee);
	EXPECT_EQ(0U, cmkit_scsi_build(&p, &d, none.data(), none.size()));
	EXPECT_EQ(Bytes(16, 0xee), none);

	p = Plan(Read10(0x20, 2, 0x2a), d);
	ExpectGood(p, CMKIT_SCSI_DIR_OUT, 1024);
	EXPECT_EQ(0x20ULL * 512, p.offset);

	p = Plan(Read16(100, 3), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 1536);
	EXPECT_EQ(51200ULL, p.offset);
	p = Plan(Read16(100, 3, 0x8a), d);
	ExpectGood(p, CMKIT_SCSI_DIR_OUT, 1536);

	// DPO and FUA are ignored; RDPROTECT and WRPROTECT are not.
	Bytes r = Read10(0, 1);
	r[1] = 0x18;
	ExpectGood(Plan(r, d), CMKIT_SCSI_DIR_IN, 512);
	r[1] = 0x20;
	ExpectInvalidField(Plan(r, d));
	Bytes w = Read16(0, 1, 0x8a);
	w[1] = 0xe0;
	ExpectInvalidField(Plan(w, d));

	// A 4096-byte block disk shifts by 12.
	d.block_size = 4096;
	p = Plan(Read10(3, 2), d);
	EXPECT_EQ(3ULL * 4096, p.offset);
	EXPECT_EQ(8192ULL, p.xfer_len);
}

TEST(ScsiPlan, TheLastBlockIsInRangeAndOnePastIsNot)
{
	auto d = Disk();	// blocks 0..2047
	const auto oor = CMKIT_SCSI_ASC_LBA_OUT_OF_RANGE;
	ExpectGood(Plan(Read10(2047, 1), d), CMKIT_SCSI_DIR_IN, 512);
	ExpectGood(Plan(Read10(2040, 8), d), CMKIT_SCSI_DIR_IN, 4096);
	ExpectCheck(Plan(Read10(2048, 1), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
	ExpectCheck(Plan(Read10(2040, 9), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
	ExpectCheck(Plan(Read10(2047, 2, 0x2a), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
	ExpectCheck(Plan(Read10(0, 2049), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
	ExpectGood(Plan(Read10(0, 2048), d), CMKIT_SCSI_DIR_IN, 2048 * 512);
	// Zero blocks: no data, but the LBA must still name a block.
	ExpectGood(Plan(Read10(2047, 0), d), CMKIT_SCSI_DIR_IN, 0);
	ExpectCheck(Plan(Read10(2048, 0), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
	// LBA + length wrapping 64 bits must not look small.
	ExpectCheck(Plan(Read16(~0ULL, 2), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
	ExpectCheck(Plan(Read16(~0ULL - 1, 0xffffffffU), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
	ExpectCheck(Plan(Read16(1ULL << 63, 1, 0x8a), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
	// A disk as big as 64 bits of bytes allow: the last block still works.
	d.nblocks = (1ULL << 55) - 1;
	auto p = Plan(Read16((1ULL << 55) - 2, 1), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 512);
	EXPECT_EQ(((1ULL << 55) - 2) << 9, p.offset);
	ExpectCheck(Plan(Read16((1ULL << 55) - 1, 1), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
}

TEST(ScsiPlan, TheRangeCheckCannotWrap)
{
	// Wider than any CDB can ask, so the check itself is on trial.
	auto d = Disk();
	EXPECT_EQ(1, cmkit_scsi_range_ok(&d, 0, 2048));
	EXPECT_EQ(1, cmkit_scsi_range_ok(&d, 2047, 1));
	EXPECT_EQ(0, cmkit_scsi_range_ok(&d, 2047, 2));
	EXPECT_EQ(0, cmkit_scsi_range_ok(&d, 1, ~0ULL));
	EXPECT_EQ(0, cmkit_scsi_range_ok(&d, 2, ~0ULL - 1));
	EXPECT_EQ(0, cmkit_scsi_range_ok(&d, 2048, 0));
}

TEST(ScsiPlan, SynchronizeCacheChecksItsRange)
{
	auto d = Disk();
	const auto oor = CMKIT_SCSI_ASC_LBA_OUT_OF_RANGE;
	ExpectGood(Plan(Read10(0, 0, 0x35), d), CMKIT_SCSI_DIR_NONE, 0);
	ExpectGood(Plan(Read10(2047, 1, 0x35), d), CMKIT_SCSI_DIR_NONE, 0);
	ExpectCheck(Plan(Read10(2047, 2, 0x35), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
	ExpectCheck(Plan(Read10(2048, 0, 0x35), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
	ExpectGood(Plan(Read16(5, 0, 0x91), d), CMKIT_SCSI_DIR_NONE, 0);
	ExpectCheck(Plan(Read16(~0ULL, 1, 0x91), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST, oor);
}

// Caching page, by hand: code 0x08, length 0x12, all zero (WCE 0, RCD 0).
Bytes CachingPage()
{
	Bytes b(20, 0);
	b[0] = 0x08;
	b[1] = 0x12;
	return b;
}

// Control page: code 0x0a, length 0x0a, GLTSD, busy timeout 0xffff.
Bytes ControlPage()
{
	return { 0x0a, 0x0a, 0x02, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0 };
}

TEST(ScsiPlan, ModeSense6AllPagesWithABlockDescriptor)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0x1a, 0, 0x3f, 0, 0xff }), d);
	Bytes want = { 43, 0, 0, 8,			// header
		       0, 0, 0x08, 0x00, 0, 0, 0x02, 0x00 };	// 2048 blocks of 512
	Bytes c = CachingPage(), k = ControlPage();
	want.insert(want.end(), c.begin(), c.end());
	want.insert(want.end(), k.begin(), k.end());
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 44);
	EXPECT_EQ(want, Build(p, d));
	// Truncated: the header still says the full length.
	p = Plan(Cdb({ 0x1a, 0, 0x3f, 0, 10 }), d);
	EXPECT_EQ(Bytes(want.begin(), want.begin() + 10), Build(p, d));
}

TEST(ScsiPlan, ModeSense6CachingPageWithDbd)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0x1a, 0x08, 0x08, 0, 0xff }), d);
	Bytes want = { 23, 0, 0, 0 };
	Bytes c = CachingPage();
	want.insert(want.end(), c.begin(), c.end());
	EXPECT_EQ(want, Build(p, d));
	// All subpages of the caching page: the same.
	p = Plan(Cdb({ 0x1a, 0x08, 0x08, 0xff, 0xff }), d);
	EXPECT_EQ(want, Build(p, d));
	// A big disk's short descriptor saturates.
	d.nblocks = 0x100000001ULL;
	Bytes b = Build(Plan(Cdb({ 0x1a, 0, 0x08, 0, 0xff }), d), d);
	EXPECT_EQ(Bytes({ 0xff, 0xff, 0xff, 0xff }), Bytes(b.begin() + 4, b.begin() + 8));
}

TEST(ScsiPlan, ModeSense10WithLongLbaDescriptor)
{
	auto d = Disk(0x123456789ULL);
	auto p = Plan(Cdb({ 0x5a, 0x10, 0x0a, 0, 0, 0, 0, 0x01, 0x00, 0 }), d);
	Bytes want = { 0, 34, 0, 0, 0x01 /* LONGLBA */, 0, 0, 16,
		       0, 0, 0, 0x01, 0x23, 0x45, 0x67, 0x89, 0, 0, 0, 0, 0, 0, 0x02, 0x00 };
	Bytes k = ControlPage();
	want.insert(want.end(), k.begin(), k.end());
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 36);
	EXPECT_EQ(want, Build(p, d));
	// Without LLBAA, the short descriptor; with DBD, none.
	p = Plan(Cdb({ 0x5a, 0x00, 0x0a, 0, 0, 0, 0, 0x01, 0x00, 0 }), d);
	EXPECT_EQ(8ULL + 8 + 12, p.xfer_len);
	p = Plan(Cdb({ 0x5a, 0x18, 0x0a, 0, 0, 0, 0, 0x01, 0x00, 0 }), d);
	Bytes b = Build(p, d);
	ASSERT_EQ(8U + 12, b.size());
	EXPECT_EQ(Bytes({ 0, 18, 0, 0, 0, 0, 0, 0 }), Bytes(b.begin(), b.begin() + 8));
}

TEST(ScsiPlan, ModeSensePageControl)
{
	auto d = Disk();
	// Changeable values: nothing is.
	auto p = Plan(Cdb({ 0x1a, 0x08, 0x4a, 0, 0xff }), d);
	Bytes b = Build(p, d);
	ASSERT_EQ(16U, b.size());
	EXPECT_EQ(Bytes({ 0x0a, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 }), Bytes(b.begin() + 4, b.end()));
	// Default values: the current ones.
	p = Plan(Cdb({ 0x1a, 0x08, 0x8a, 0, 0xff }), d);
	b = Build(p, d);
	EXPECT_EQ(ControlPage(), Bytes(b.begin() + 4, b.end()));
	// Saved values: not supported.
	ExpectCheck(Plan(Cdb({ 0x1a, 0x08, 0xca, 0, 0xff }), d), CMKIT_SCSI_SK_ILLEGAL_REQUEST,
		    CMKIT_SCSI_ASC_SAVING_NOT_SUPPORTED);
	// Pages and subpages it does not have.
	ExpectInvalidField(Plan(Cdb({ 0x1a, 0, 0x1c, 0, 0xff }), d));
	ExpectInvalidField(Plan(Cdb({ 0x1a, 0, 0x01, 0, 0xff }), d));
	ExpectInvalidField(Plan(Cdb({ 0x1a, 0, 0x08, 0x01, 0xff }), d));
	ExpectInvalidField(Plan(Cdb({ 0x5a, 0, 0x3f, 0x02, 0, 0, 0, 0, 0xff, 0 }), d));
}

TEST(ScsiPlan, RequestSense)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0x03, 0, 0, 0, 0xff }), d);
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 18);
	Bytes want(18, 0);
	want[0] = 0x70;
	want[7] = 10;
	EXPECT_EQ(want, Build(p, d));
	p = Plan(Cdb({ 0x03, 0, 0, 0, 8 }), d);
	EXPECT_EQ(8ULL, p.xfer_len);
	ExpectInvalidField(Plan(Cdb({ 0x03, 0x01, 0, 0, 0xff }), d));	// DESC
}

TEST(ScsiPlan, AWriteMustMatchItsBuffer)
{
	auto d = Disk();
	auto p = Plan(Read10(0, 2, 0x2a), d);
	EXPECT_EQ(1, cmkit_scsi_check_data_out(&p, 1024));
	EXPECT_EQ(CMKIT_SCSI_STATUS_GOOD, p.status);
	EXPECT_EQ(0, cmkit_scsi_check_data_out(&p, 512));
	ExpectInvalidField(p);
	p = Plan(Read10(0, 2, 0x2a), d);
	EXPECT_EQ(0, cmkit_scsi_check_data_out(&p, 1536));
	ExpectInvalidField(p);
	// A READ has no data-out; it is left alone.
	p = Plan(Read10(0, 2), d);
	EXPECT_EQ(0, cmkit_scsi_check_data_out(&p, 1024));
	ExpectGood(p, CMKIT_SCSI_DIR_IN, 1024);
}

TEST(ScsiPlan, ItsLengthsFeedTheSrpResiduals)
{
	auto d = Disk();
	auto p = Plan(Cdb({ 0x12, 0, 0, 0, 0xff }), d);
	cmkit_srp_rsp r{};
	cmkit_srp_residual(&r, p.xfer_len, 255, 0, 0);
	EXPECT_EQ(CMKIT_SRP_RSP_DIUNDER, r.flags);
	EXPECT_EQ(255U - 36, r.data_in_res);
	p = Plan(Read10(0, 8), d);
	cmkit_srp_residual(&r, p.xfer_len, 4096, 0, 0);
	EXPECT_EQ(0, r.flags);
}

TEST(ScsiPlan, RefusesDisksItCannotServe)
{
	const cmkit_u8 tur[6] = { 0 };
	cmkit_scsi_plan p{};
	auto d = Disk();
	EXPECT_EQ(CMKIT_SCSI_E_ARG, cmkit_scsi_decide(tur, 6, 0, &d, nullptr));
	EXPECT_EQ(CMKIT_SCSI_E_ARG, cmkit_scsi_decide(nullptr, 6, 0, &d, &p));
	EXPECT_EQ(CMKIT_SCSI_E_DISK, cmkit_scsi_decide(tur, 6, 0, nullptr, &p));
	for (cmkit_u32 bs : { 0u, 256u, 513u, 1000u, 131072u }) {
		d = Disk();
		d.block_size = bs;
		EXPECT_EQ(CMKIT_SCSI_E_DISK, cmkit_scsi_decide(tur, 6, 0, &d, &p)) << bs;
	}
	for (cmkit_u32 bs : { 512u, 1024u, 4096u, 65536u }) {
		d = Disk();
		d.block_size = bs;
		EXPECT_EQ(0, cmkit_scsi_decide(tur, 6, 0, &d, &p)) << bs;
	}
	d = Disk(0);
	EXPECT_EQ(CMKIT_SCSI_E_DISK, cmkit_scsi_decide(tur, 6, 0, &d, &p));
	d = Disk((1ULL << 55) - 1);	// 2^64 - 512 bytes: fits
	EXPECT_EQ(1, cmkit_scsi_disk_ok(&d));
	d.nblocks = 1ULL << 55;		// 2^64 bytes: does not
	EXPECT_EQ(CMKIT_SCSI_E_DISK, cmkit_scsi_decide(tur, 6, 0, &d, &p));
	d = Disk(1ULL << 48);
	d.block_size = 65536;
	EXPECT_EQ(CMKIT_SCSI_E_DISK, cmkit_scsi_decide(tur, 6, 0, &d, &p));
}

TEST(ScsiLun, SingleLevelLunsBothWays)
{
	cmkit_u64 raw = 1;
	ASSERT_EQ(0, cmkit_scsi_lun_encode(0, &raw));
	EXPECT_EQ(0ULL, raw);
	ASSERT_EQ(0, cmkit_scsi_lun_encode(5, &raw));
	EXPECT_EQ(0x0005000000000000ULL, raw);
	ASSERT_EQ(0, cmkit_scsi_lun_encode(255, &raw));
	EXPECT_EQ(0x00ff000000000000ULL, raw);
	ASSERT_EQ(0, cmkit_scsi_lun_encode(256, &raw));
	EXPECT_EQ(0x4100000000000000ULL, raw);
	ASSERT_EQ(0, cmkit_scsi_lun_encode(0x3fff, &raw));
	EXPECT_EQ(0x7fff000000000000ULL, raw);
	EXPECT_EQ(CMKIT_SCSI_E_LUN, cmkit_scsi_lun_encode(0x4000, &raw));
	EXPECT_EQ(0x7fff000000000000ULL, raw);

	for (cmkit_u32 lun : { 0u, 1u, 255u, 256u, 300u, 0x3fffu }) {
		cmkit_u32 back = ~0u;
		ASSERT_EQ(0, cmkit_scsi_lun_encode(lun, &raw));
		ASSERT_EQ(0, cmkit_scsi_lun_decode(raw, &back));
		EXPECT_EQ(lun, back);
	}
	cmkit_u32 lun = 7;
	ASSERT_EQ(0, cmkit_scsi_lun_decode(0x4005000000000000ULL, &lun));	// flat 5
	EXPECT_EQ(5U, lun);
	lun = 7;
	EXPECT_EQ(CMKIT_SCSI_E_LUN, cmkit_scsi_lun_decode(0x0105000000000000ULL, &lun));	// bus 1
	EXPECT_EQ(CMKIT_SCSI_E_LUN, cmkit_scsi_lun_decode(0x0000000100000000ULL, &lun));	// level 2
	EXPECT_EQ(CMKIT_SCSI_E_LUN, cmkit_scsi_lun_decode(0x8000000000000000ULL, &lun));	// LU addressing
	EXPECT_EQ(CMKIT_SCSI_E_LUN, cmkit_scsi_lun_decode(0xc000000000000000ULL, &lun));	// extended
	EXPECT_EQ(7U, lun);
	// A flat-addressed 0 is LUN 0 to the planner.
	auto d = Disk();
	ExpectGood(Plan(Cdb({ 0x00 }), d, 0x4000000000000000ULL), CMKIT_SCSI_DIR_NONE, 0);
}

} // namespace
