// SPDX-License-Identifier: GPL-2.0-only
// Host tests of include/cmkit/crc32c.h and mpa_fpdu.h: lib/crc32c.c's CRC32c
// against RFC 3720's examples and the bitwise one it replaced, and the FPDUs of the RTR messages against bytes written
// here by hand from RFC 5040/5041/5044 and siw's layout (iwarp.h,
// siw_qp_mpa_rts(), siw_qp_prepare_tx()).  The CRCs of those bytes were
// computed once with a separate table-driven CRC32c, not with lib/crc32c.c.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "cmkit/crc32c.h"
#include "cmkit/mpa_fpdu.h"

namespace {

using Bytes = std::vector<cmkit_u8>;

constexpr unsigned W = CMKIT_MPA_RTR_WRITE;
constexpr unsigned R = CMKIT_MPA_RTR_READ;
constexpr unsigned S = CMKIT_MPA_RTR_SEND;

Bytes Cat(Bytes a, const Bytes &b)
{
	a.insert(a.end(), b.begin(), b.end());
	return a;
}

// siw's zero-length RDMA Write RTR: ULPDU_Length 14; T, L, DDP version 1;
// RDMAP version 1, opcode Write; STag 1; TO 0.
const Bytes kWrite = { 0x00, 0x0e, 0xc1, 0x40, 0x00, 0x00, 0x00, 0x01,
		       0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };
const Bytes kWriteCrc = { 0xeb, 0xd3, 0x4c, 0x5f };

// A zero-length Send: ULPDU_Length 18; L, DDP version 1; RDMAP version 1,
// opcode Send; RsvdULP 0; queue 0, MSN 1, MO 0.
const Bytes kSend = { 0x00, 0x12, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00,
		      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		      0x00, 0x00, 0x00, 0x00 };
const Bytes kSendCrc = { 0x58, 0x7b, 0xe8, 0xc4 };

// siw's zero-length RDMA Read Request RTR: ULPDU_Length 46; L, version 1;
// opcode Read Request; RsvdULP 0; queue 1, MSN 1, MO 0; sink STag 0, sink
// TO 0, size 0, source STag 1, source TO 0.
const Bytes kRead = { 0x00, 0x2e, 0x41, 0x41, 0x00, 0x00, 0x00, 0x00,
		      0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
		      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		      0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };
const Bytes kReadCrc = { 0xba, 0x10, 0xe3, 0xc9 };

// The zero-length Read Response to kRead: tagged, L, opcode Read Response,
// to the sink STag 0 and TO 0.
const Bytes kReadResp = { 0x00, 0x0e, 0xc1, 0x42, 0x00, 0x00, 0x00, 0x00,
			  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };
const Bytes kReadRespCrc = { 0x69, 0x75, 0xd6, 0xca };

const Bytes kZeroCrc = { 0, 0, 0, 0 };

Bytes Expected(unsigned rtr, bool crc)
{
	switch (rtr) {
	case W:
		return Cat(kWrite, crc ? kWriteCrc : kZeroCrc);
	case R:
		return Cat(kRead, crc ? kReadCrc : kZeroCrc);
	default:
		return Cat(kSend, crc ? kSendCrc : kZeroCrc);
	}
}

// Exact-size heap copies, so that any read past @len is caught by ASan.
int Check(const Bytes &b, size_t len, unsigned rtr, bool crc, cmkit_fpdu *out)
{
	std::unique_ptr<cmkit_u8[]> copy(new cmkit_u8[len ? len : 1]);
	if (len)
		std::memcpy(copy.get(), b.data(), len);
	return cmkit_rtr_check(len ? copy.get() : nullptr, len, rtr, crc, out);
}

int ParseFpdu(const Bytes &b, size_t len, bool crc, cmkit_fpdu *out)
{
	std::unique_ptr<cmkit_u8[]> copy(new cmkit_u8[len ? len : 1]);
	if (len)
		std::memcpy(copy.get(), b.data(), len);
	int rc = cmkit_fpdu_parse(len ? copy.get() : nullptr, len, crc, out);
	if (rc > 0)
		out->payload = b.data() + (out->payload - copy.get());
	return rc;
}

Bytes Build(unsigned rtr, bool crc)
{
	cmkit_u8 buf[64];
	int n = cmkit_rtr_build(buf, sizeof(buf), rtr, crc);
	EXPECT_GT(n, 0);
	return n > 0 ? Bytes(buf, buf + n) : Bytes();
}

// ---- CRC32c -----------------------------------------------------------------

// The CRC of a whole buffer, as RFC 3720 and RFC 5044 define it.
static cmkit_u32 Crc(const void *buf, size_t len)
{
	return ~cmkit_crc32c(CMKIT_CRC32C_SEED, buf, len);
}

// The bitwise CRC32c that include/cmkit/crc32c.h had before lib/crc32c.c's
// table: the register in and out, as cmkit_crc32c() and the kernel's crc32c().
static cmkit_u32 BitwiseCrc32c(cmkit_u32 reg, const void *buf, size_t len)
{
	const cmkit_u8 *p = static_cast<const cmkit_u8 *>(buf);

	while (len--) {
		reg ^= *p++;
		for (int bit = 0; bit < 8; bit++)
			reg = (reg >> 1) ^ (CMKIT_CRC32C_POLY & (0U - (reg & 1U)));
	}
	return reg;
}

// xorshift32: the same "random" buffers on every run.
static cmkit_u32 Next(cmkit_u32 &s)
{
	s ^= s << 13;
	s ^= s >> 17;
	s ^= s << 5;
	return s;
}

// RFC 3720, appendix B.4, and the usual check value.
TEST(Crc32c, Rfc3720Examples)
{
	Bytes b(32, 0x00);
	EXPECT_EQ(0x8a9136aaU, Crc(b.data(), b.size()));
	b.assign(32, 0xff);
	EXPECT_EQ(0x62a8ab43U, Crc(b.data(), b.size()));
	for (int i = 0; i < 32; i++)
		b[i] = static_cast<cmkit_u8>(i);
	EXPECT_EQ(0x46dd794eU, Crc(b.data(), b.size()));
	for (int i = 0; i < 32; i++)
		b[i] = static_cast<cmkit_u8>(31 - i);
	EXPECT_EQ(0x113fdb5cU, Crc(b.data(), b.size()));
	// An iSCSI Read (10) command PDU.
	const Bytes scsi = { 0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			     0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
			     0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
			     0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
			     0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00 };
	EXPECT_EQ(0xd9963a56U, Crc(scsi.data(), scsi.size()));
	EXPECT_EQ(0xe3069283U, Crc("123456789", 9));
	EXPECT_EQ(0U, Crc(nullptr, 0));
	// No inversion at either end, as the kernel's crc32c().
	EXPECT_EQ(0x12345678U, cmkit_crc32c(0x12345678U, nullptr, 0));
	EXPECT_EQ(0U, cmkit_crc32c(0, Bytes(32, 0x00).data(), 32));
}

TEST(Crc32c, PiecesGiveTheSameCrc)
{
	const char *s = "the quick brown fox jumps over the lazy dog";
	size_t n = std::strlen(s);
	for (size_t cut = 0; cut <= n; cut++) {
		cmkit_u32 reg = cmkit_crc32c(CMKIT_CRC32C_SEED, s, cut);
		reg = cmkit_crc32c(reg, s + cut, n - cut);
		EXPECT_EQ(Crc(s, n), ~reg) << cut;
	}
}

// What the bitwise implementation returned (recorded from it) on buffers
// from Next(): the CRC from the seed, and the register from another start.
TEST(Crc32c, TheBitwiseResultsOnRandomBuffers)
{
	static const struct {
		size_t len;
		cmkit_u32 start, crc, reg;
	} want[] = {
		{ 546, 0x3b9a22e9U, 0x2e5af489U, 0xe617a073U },
		{ 322, 0x1106269fU, 0x3def62c3U, 0xd79760c8U },
		{ 349, 0x48938871U, 0x0ca21b94U, 0xdbd1e88dU },
		{ 1263, 0x6cbbfc84U, 0x2bb3f815U, 0xf588d246U },
		{ 61, 0x9aa8c124U, 0x0c9cf334U, 0xcb0496e5U },
		{ 614, 0x2aab955aU, 0x2d258caaU, 0xe0906f2cU },
		{ 910, 0x53373cdaU, 0xdcc9a464U, 0xeaa14a95U },
		{ 812, 0x3fea8f32U, 0xe2bd5291U, 0x9f858dacU },
	};
	cmkit_u32 s = 0x2545f491U;

	for (const auto &w : want) {
		size_t n = Next(s) % 1500;
		Bytes b(n);
		for (auto &x : b)
			x = static_cast<cmkit_u8>(Next(s));
		cmkit_u32 start = Next(s);
		ASSERT_EQ(w.len, n);
		ASSERT_EQ(w.start, start);
		EXPECT_EQ(w.crc, Crc(b.data(), n)) << n;
		EXPECT_EQ(w.reg, cmkit_crc32c(start, b.data(), n)) << n;
	}
}

// The table against the bitwise loop on more buffers, lengths and starts.
TEST(Crc32c, TableMatchesTheBitwiseLoop)
{
	cmkit_u32 s = 0x9e3779b9U;

	for (int i = 0; i < 500; i++) {
		size_t n = Next(s) % 300;
		Bytes b(n);
		for (auto &x : b)
			x = static_cast<cmkit_u8>(Next(s));
		cmkit_u32 start = i % 3 ? Next(s) : CMKIT_CRC32C_SEED;
		EXPECT_EQ(BitwiseCrc32c(start, b.data(), n), cmkit_crc32c(start, b.data(), n))
			<< i;
	}
}

// ---- the RTR messages, byte for byte -----------------------------------------

TEST(Rtr, BuildsSiwsRtrMessagesByteForByte)
{
	for (unsigned rtr : { W, R, S })
		for (bool crc : { false, true })
			EXPECT_EQ(Expected(rtr, crc), Build(rtr, crc)) << rtr << crc;
	EXPECT_EQ(20u, Build(W, true).size());
	EXPECT_EQ(52u, Build(R, true).size());
	EXPECT_EQ(24u, Build(S, true).size());
}

TEST(Rtr, BuildsTheReadResponseByteForByte)
{
	cmkit_fpdu f{};
	Bytes rreq = Expected(R, true);
	ASSERT_EQ(52, Check(rreq, rreq.size(), R, true, &f));
	cmkit_u8 buf[32];
	for (bool crc : { false, true }) {
		ASSERT_EQ(20, cmkit_rtr_build_read_resp(buf, sizeof(buf), &f.hdr, crc));
		EXPECT_EQ(Cat(kReadResp, crc ? kReadRespCrc : kZeroCrc), Bytes(buf, buf + 20));
	}
	// To the sink STag and TO of the request, whatever they are.
	cmkit_iwarp_hdr h = f.hdr;
	h.sink_stag = 0xabcd;
	h.sink_to = 0x0102030405060708ULL;
	ASSERT_EQ(20, cmkit_rtr_build_read_resp(buf, sizeof(buf), &h, false));
	const Bytes want = { 0x00, 0x0e, 0xc1, 0x42, 0x00, 0x00, 0xab, 0xcd,
			     0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0, 0, 0, 0 };
	EXPECT_EQ(want, Bytes(buf, buf + 20));
	h.read_size = 1;	// not an RTR
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_rtr_build_read_resp(buf, sizeof(buf), &h, false));
	h.read_size = 0;
	h.opcode = CMKIT_RDMAP_SEND;
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_rtr_build_read_resp(buf, sizeof(buf), &h, false));
	EXPECT_EQ(CMKIT_FPDU_E_NOSPACE, cmkit_rtr_build_read_resp(buf, 19, &f.hdr, false));
}

TEST(Rtr, BuildRefusesBadTypesAndSmallBuffers)
{
	cmkit_u8 buf[64];
	for (unsigned rtr : { 0u, W | R, W | S, 8u, 0x80000000u })
		EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_rtr_build(buf, sizeof(buf), rtr, 0)) << rtr;
	EXPECT_EQ(CMKIT_FPDU_E_NOSPACE, cmkit_rtr_build(buf, 19, W, 0));
	EXPECT_EQ(CMKIT_FPDU_E_NOSPACE, cmkit_rtr_build(buf, 51, R, 0));
	EXPECT_EQ(CMKIT_FPDU_E_NOSPACE, cmkit_rtr_build(buf, 23, S, 0));
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_rtr_build(nullptr, 64, W, 0));
}

// ---- checking what arrives -----------------------------------------------------

TEST(Rtr, ChecksEachAgreedTypeWithAndWithoutCrc)
{
	for (unsigned rtr : { W, R, S })
		for (bool crc : { false, true }) {
			Bytes b = Expected(rtr, crc);
			cmkit_fpdu f{};
			ASSERT_EQ(static_cast<int>(b.size()), Check(b, b.size(), rtr, crc, &f));
			EXPECT_EQ(b.size(), f.len);
			EXPECT_EQ(1, f.hdr.last);
			EXPECT_EQ(0, f.payload_len);
			EXPECT_EQ(0u, f.need);
		}
}

// A stream split anywhere: every prefix asks for more, never reads past
// what it was given, and says how much is missing.
TEST(Rtr, EverySplitPointAsksForTheRest)
{
	for (unsigned rtr : { W, R, S })
		for (bool crc : { false, true }) {
			Bytes b = Expected(rtr, crc);
			for (size_t len = 0; len < b.size(); len++) {
				cmkit_fpdu f{};
				ASSERT_EQ(0, Check(b, len, rtr, crc, &f)) << rtr << " " << len;
				EXPECT_EQ(b.size() - len, f.need) << rtr << " " << len;
			}
		}
}

// Segments of any sizes accumulate into the buffer the checker sees; the
// FPDU that follows is not consumed.
TEST(Rtr, ArrivesInThreePiecesFollowedByMore)
{
	for (unsigned rtr : { W, R, S }) {
		Bytes b = Expected(rtr, true);
		Bytes stream = Cat(b, Expected(W, true));
		for (size_t a = 0; a <= b.size(); a++)
			for (size_t c = a; c <= b.size(); c++) {
				Bytes rx;
				int rc = 0;
				for (size_t end : { a, c, stream.size() }) {
					rx.assign(stream.begin(), stream.begin() + end);
					cmkit_fpdu f{};
					rc = Check(rx, rx.size(), rtr, true, &f);
					if (end < b.size()) {
						ASSERT_EQ(0, rc);
						ASSERT_EQ(b.size() - end, f.need);
					}
				}
				EXPECT_EQ(static_cast<int>(b.size()), rc) << a << " " << c;
			}
	}
}

TEST(Rtr, BadCrcIsDetected)
{
	for (unsigned rtr : { W, R, S }) {
		Bytes good = Expected(rtr, true);
		for (size_t i = 4; i < good.size(); i++)
			for (cmkit_u8 bit = 1; bit; bit = static_cast<cmkit_u8>(bit << 1)) {
				Bytes b = good;
				b[i] ^= bit;
				cmkit_fpdu f{};
				int rc = Check(b, b.size(), rtr, true, &f);
				// Past the length and control bytes every flip is
				// the CRC's to catch (fields come after it).
				EXPECT_EQ(CMKIT_FPDU_E_CRC, rc) << rtr << " " << i << " " << int(bit);
			}
		// The length and control bytes are judged first: never accepted.
		for (size_t i = 0; i < 4; i++) {
			Bytes b = good;
			b[i] ^= 0x01;
			cmkit_fpdu f{};
			EXPECT_LT(Check(b, b.size(), rtr, true, &f), 0) << rtr << " " << i;
		}
	}
	// Without CRC the field is not looked at, nor STag and TO.
	Bytes b = Expected(W, false);
	b[17] = 0x55;
	b[7] = 0x07;
	cmkit_fpdu f{};
	EXPECT_EQ(20, Check(b, b.size(), W, false, &f));
	EXPECT_EQ(7u, f.hdr.stag);
	EXPECT_EQ(0x5500u, f.crc);
	// With CRC, a zero CRC field is a mismatch.
	EXPECT_EQ(CMKIT_FPDU_E_CRC, Check(Expected(W, false), 20, W, true, &f));
}

TEST(Rtr, WrongTypeIsDetected)
{
	for (unsigned got : { W, R, S })
		for (unsigned want : { W, R, S }) {
			if (got == want)
				continue;
			for (bool crc : { false, true }) {
				Bytes b = Expected(got, crc);
				cmkit_fpdu f{};
				// Known from the first four bytes.
				EXPECT_EQ(CMKIT_FPDU_E_RTR_TYPE, Check(b, 4, want, crc, &f));
				EXPECT_EQ(CMKIT_FPDU_E_RTR_TYPE, Check(b, b.size(), want, crc, &f))
					<< got << " for " << want;
			}
		}
	// Other messages: a Terminate, a Send with Solicited Event, a Read
	// Response.
	cmkit_u8 buf[64];
	cmkit_iwarp_hdr h{};
	h.opcode = CMKIT_RDMAP_TERMINATE;
	h.last = 1;
	h.qn = CMKIT_DDP_QN_TERMINATE;
	h.msn = 1;
	int n = cmkit_fpdu_build(buf, sizeof(buf), &h, "term", 4, 1);
	ASSERT_GT(n, 0);
	cmkit_fpdu f{};
	EXPECT_EQ(CMKIT_FPDU_E_RTR_TYPE, Check(Bytes(buf, buf + n), n, S, true, &f));
	EXPECT_EQ(CMKIT_RDMAP_TERMINATE, f.hdr.opcode);
	Bytes se = Expected(S, false);
	se[3] = 0x45;
	EXPECT_EQ(CMKIT_FPDU_E_RTR_TYPE, Check(se, se.size(), S, false, &f));
	Bytes rresp = Cat(kReadResp, kZeroCrc);
	EXPECT_EQ(CMKIT_FPDU_E_RTR_TYPE, Check(rresp, rresp.size(), W, false, &f));
}

TEST(Rtr, WrongFieldsAreDetected)
{
	struct Case {
		const char *what;
		unsigned rtr;
		size_t at;
		cmkit_u8 value;
	} cases[] = {
		{ "Write not last", W, 2, 0x81 },
		{ "Send not last", S, 2, 0x01 },
		{ "Send on queue 1", S, 11, 0x01 },
		{ "Send MSN 2", S, 15, 0x02 },
		{ "Send MSN 0", S, 15, 0x00 },
		{ "Send MO 4", S, 19, 0x04 },
		{ "Read on queue 0", R, 11, 0x00 },
		{ "Read MSN 2", R, 15, 0x02 },
		{ "Read MO 1", R, 19, 0x01 },
		{ "Read of one byte", R, 35, 0x01 },
		{ "Read of 16 MiB", R, 32, 0x01 },
	};
	for (const Case &c : cases) {
		Bytes b = Expected(c.rtr, false);
		b[c.at] = c.value;
		cmkit_fpdu f{};
		EXPECT_EQ(CMKIT_FPDU_E_RTR_FIELDS, Check(b, b.size(), c.rtr, false, &f)) << c.what;
	}
	// Not zero-length: refused from the length, without waiting for it.
	cmkit_u8 buf[64];
	struct cmkit_iwarp_hdr h;
	ASSERT_EQ(0, cmkit_rtr_hdr(S, &h));
	int n = cmkit_fpdu_build(buf, sizeof(buf), &h, "x", 1, 0);
	ASSERT_EQ(28, n);
	cmkit_fpdu f{};
	EXPECT_EQ(CMKIT_FPDU_E_RTR_FIELDS, Check(Bytes(buf, buf + n), 4, S, false, &f));
	Bytes huge = { 0xff, 0xff, 0xc1, 0x40 };
	EXPECT_EQ(CMKIT_FPDU_E_RTR_FIELDS, Check(huge, huge.size(), W, false, &f));
	// A DDP version other than 1.
	Bytes v2 = Expected(W, false);
	v2[2] = 0xc2;
	EXPECT_EQ(CMKIT_FPDU_E_VERSION, Check(v2, v2.size(), W, false, &f));
	Bytes rv = Expected(W, false);
	rv[3] = 0x80;
	EXPECT_EQ(CMKIT_FPDU_E_VERSION, Check(rv, rv.size(), W, false, &f));
}

// irdma's RTRs: a Write with STag 0, a Read with sink STag 0xabcd and source
// STag 0x1234 (irdma_sc_send_rtt()).  STags and TOs are not ours to judge.
TEST(Rtr, AcceptsIrdmaStyleStags)
{
	Bytes w = Expected(W, false);
	w[7] = 0x00;
	cmkit_fpdu f{};
	EXPECT_EQ(20, Check(w, w.size(), W, false, &f));
	EXPECT_EQ(0u, f.hdr.stag);
	Bytes r = Expected(R, false);
	r[22] = 0xab;
	r[23] = 0xcd;
	r[38] = 0x12;
	r[39] = 0x34;
	r[39 + 8] = 0x99;	// source TO
	ASSERT_EQ(52, Check(r, r.size(), R, false, &f));
	EXPECT_EQ(0xabcdu, f.hdr.sink_stag);
	EXPECT_EQ(0x1234u, f.hdr.src_stag);
	EXPECT_EQ(0x99u, f.hdr.src_to);
}

TEST(Rtr, ChecksTheReadResponseToOurRead)
{
	struct cmkit_iwarp_hdr rreq;
	ASSERT_EQ(0, cmkit_rtr_hdr(R, &rreq));
	Bytes b = Cat(kReadResp, kReadRespCrc);
	cmkit_fpdu f{};
	for (size_t len = 0; len < b.size(); len++) {
		std::unique_ptr<cmkit_u8[]> copy(new cmkit_u8[len + 1]);
		std::memcpy(copy.get(), b.data(), len);
		ASSERT_EQ(0, cmkit_rtr_check_read_resp(copy.get(), len, &rreq, 1, &f));
		EXPECT_EQ(b.size() - len, f.need);
	}
	EXPECT_EQ(20, cmkit_rtr_check_read_resp(b.data(), b.size(), &rreq, 1, &f));
	// Another sink STag or TO than ours.
	Bytes other = Cat(kReadResp, kZeroCrc);
	other[7] = 1;
	EXPECT_EQ(CMKIT_FPDU_E_RTR_FIELDS,
		  cmkit_rtr_check_read_resp(other.data(), other.size(), &rreq, 0, &f));
	other = Cat(kReadResp, kZeroCrc);
	other[15] = 1;
	EXPECT_EQ(CMKIT_FPDU_E_RTR_FIELDS,
		  cmkit_rtr_check_read_resp(other.data(), other.size(), &rreq, 0, &f));
	Bytes w = Expected(W, false);
	EXPECT_EQ(CMKIT_FPDU_E_RTR_TYPE, cmkit_rtr_check_read_resp(w.data(), w.size(), &rreq, 0, &f));
	struct cmkit_iwarp_hdr notread;
	ASSERT_EQ(0, cmkit_rtr_hdr(W, &notread));
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_rtr_check_read_resp(b.data(), b.size(), &notread, 1, &f));
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_rtr_check_read_resp(b.data(), b.size(), nullptr, 1, &f));
}

TEST(Rtr, CheckArguments)
{
	cmkit_fpdu f{};
	Bytes b = Expected(W, false);
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_rtr_check(b.data(), b.size(), W | R, 0, &f));
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_rtr_check(b.data(), b.size(), 0, 0, &f));
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_rtr_check(b.data(), b.size(), W, 0, nullptr));
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_rtr_check(nullptr, 4, W, 0, &f));
	EXPECT_EQ(0, cmkit_rtr_check(nullptr, 0, W, 0, &f));
	EXPECT_EQ(20u, f.need);
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_rtr_hdr(W, nullptr));
}

// ---- any FPDU -----------------------------------------------------------------

// ULPDU_Length, ULPDU and PAD end 4-aligned; the CRC covers the PAD.
TEST(Fpdu, PadsToFourBytesAndCoversThePad)
{
	struct cmkit_iwarp_hdr h;
	ASSERT_EQ(0, cmkit_rtr_hdr(S, &h));
	cmkit_u8 buf[64];
	ASSERT_EQ(28, cmkit_fpdu_build(buf, sizeof(buf), &h, "x", 1, 1));
	const Bytes want = { 0x00, 0x13, 0x41, 0x43, 0x00, 0x00, 0x00, 0x00,
			     0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
			     0x00, 0x00, 0x00, 0x00, 'x', 0x00, 0x00, 0x00,
			     0x19, 0xfa, 0x31, 0x8c };
	EXPECT_EQ(want, Bytes(buf, buf + 28));
	// A PAD byte that is not zero still counts in the CRC.
	Bytes b = want;
	b[22] = 1;
	cmkit_fpdu f{};
	EXPECT_EQ(CMKIT_FPDU_E_CRC, ParseFpdu(b, b.size(), true, &f));
	EXPECT_EQ(28, ParseFpdu(b, b.size(), false, &f));
}

TEST(Fpdu, RoundTripsEveryOpcodeAndPayloadLength)
{
	for (cmkit_u8 op = 0; op <= CMKIT_RDMAP_TERMINATE; op++)
		for (size_t plen = 0; plen < 12; plen++)
			for (bool crc : { false, true }) {
		cmkit_iwarp_hdr h{};
		h.opcode = op;
		h.tagged = cmkit_rdmap_is_tagged(op);
		h.last = static_cast<cmkit_u8>(plen & 1);
		h.stag = 0x11223344;
		h.to = 0x5566778899aabbccULL;
		h.rsvd_ulp = 0xdeadbeef;
		h.qn = 7;
		h.msn = 0x01020304;
		h.mo = 0x0a0b0c0d;
		h.sink_stag = 0x10;
		h.sink_to = 0x20;
		h.read_size = 0x30;
		h.src_stag = 0x40;
		h.src_to = 0x50;
		Bytes payload(plen);
		for (size_t i = 0; i < plen; i++)
			payload[i] = static_cast<cmkit_u8>(0xa0 + i);
		cmkit_u8 buf[128];
		int n = cmkit_fpdu_build(buf, sizeof(buf), &h, payload.data(), plen, crc);
		size_t hlen = h.tagged ? 14 : op == CMKIT_RDMAP_READ_REQ ? 46 : 18;
		size_t total = ((2 + hlen + plen + 3) / 4) * 4 + 4;
		ASSERT_EQ(static_cast<int>(total), n) << int(op) << " " << plen;
		Bytes b(buf, buf + n);
		cmkit_fpdu f{};
		ASSERT_EQ(n, ParseFpdu(b, b.size(), crc, &f)) << int(op) << " " << plen;
		EXPECT_EQ(hlen + plen, f.ulpdu_len);
		EXPECT_EQ(op, f.hdr.opcode);
		EXPECT_EQ(h.tagged, f.hdr.tagged);
		EXPECT_EQ(h.last, f.hdr.last);
		if (h.tagged) {
			EXPECT_EQ(h.stag, f.hdr.stag);
			EXPECT_EQ(h.to, f.hdr.to);
		} else {
			EXPECT_EQ(h.rsvd_ulp, f.hdr.rsvd_ulp);
			EXPECT_EQ(h.qn, f.hdr.qn);
			EXPECT_EQ(h.msn, f.hdr.msn);
			EXPECT_EQ(h.mo, f.hdr.mo);
		}
		if (op == CMKIT_RDMAP_READ_REQ) {
			EXPECT_EQ(h.sink_stag, f.hdr.sink_stag);
			EXPECT_EQ(h.sink_to, f.hdr.sink_to);
			EXPECT_EQ(h.read_size, f.hdr.read_size);
			EXPECT_EQ(h.src_stag, f.hdr.src_stag);
			EXPECT_EQ(h.src_to, f.hdr.src_to);
		}
		ASSERT_EQ(plen, f.payload_len);
		EXPECT_EQ(Bytes(f.payload, f.payload + plen), payload);
		for (size_t i = 2 + hlen + plen; i < total - 4; i++)
			EXPECT_EQ(0, b[i]);	// PAD
		for (size_t len = 0; len < b.size(); len++) {
			ASSERT_EQ(0, ParseFpdu(b, len, crc, &f)) << len;
			EXPECT_GT(f.need, 0u);
			EXPECT_LE(len + f.need, b.size());
		}
	}
}

TEST(Fpdu, ParseRefusesMalformedHeaders)
{
	cmkit_fpdu f{};
	// ULPDU_Length too short for any DDP header.
	Bytes b = { 0x00, 0x02, 0xc1, 0x40, 0, 0, 0, 0 };
	EXPECT_EQ(CMKIT_FPDU_E_LEN, ParseFpdu(b, b.size(), false, &f));
	// Untagged, but only a tagged header's length.
	b = Cat(Bytes{ 0x00, 0x0e, 0x41, 0x43 }, Bytes(16, 0));
	EXPECT_EQ(CMKIT_FPDU_E_LEN, ParseFpdu(b, b.size(), false, &f));
	// A Read Request with a Send's length.
	b = Expected(S, false);
	b[3] = 0x41;
	EXPECT_EQ(CMKIT_FPDU_E_LEN, ParseFpdu(b, b.size(), false, &f));
	// Opcode 8 and up; a tagged Send; an untagged Write.
	b = Expected(S, false);
	b[3] = 0x48;
	EXPECT_EQ(CMKIT_FPDU_E_HDR, ParseFpdu(b, b.size(), false, &f));
	b[3] = 0x43;
	b[2] = 0xc1;
	EXPECT_EQ(CMKIT_FPDU_E_HDR, ParseFpdu(b, b.size(), false, &f));
	b = Expected(W, false);
	b[2] = 0x41;
	EXPECT_EQ(CMKIT_FPDU_E_HDR, ParseFpdu(b, b.size(), false, &f));
	b = Expected(W, false);
	b[2] = 0xc0;
	EXPECT_EQ(CMKIT_FPDU_E_VERSION, ParseFpdu(b, b.size(), false, &f));
	// Reserved bits are ignored.
	b = Expected(W, false);
	b[2] |= 0x3c;
	b[3] |= 0x30;
	EXPECT_EQ(20, ParseFpdu(b, b.size(), false, &f));
	// The largest FPDU is asked for, never read past.
	b = { 0xff, 0xff };
	EXPECT_EQ(0, ParseFpdu(b, b.size(), true, &f));
	EXPECT_EQ(static_cast<size_t>(CMKIT_FPDU_MAX_LEN) - 2, f.need);
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_fpdu_parse(nullptr, 2, 0, &f));
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_fpdu_parse(b.data(), 2, 0, nullptr));
	EXPECT_EQ(0, cmkit_fpdu_parse(nullptr, 0, 0, &f));
	EXPECT_EQ(2u, f.need);
}

TEST(Fpdu, BuildRefusesInconsistentHeaders)
{
	cmkit_u8 buf[128];
	cmkit_iwarp_hdr h{};
	h.opcode = CMKIT_RDMAP_WRITE;		// tagged, but T clear
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_fpdu_build(buf, sizeof(buf), &h, nullptr, 0, 0));
	h.opcode = CMKIT_RDMAP_SEND;
	h.tagged = 1;
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_fpdu_build(buf, sizeof(buf), &h, nullptr, 0, 0));
	h.opcode = 8;
	h.tagged = 0;
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_fpdu_build(buf, sizeof(buf), &h, nullptr, 0, 0));
	h.opcode = CMKIT_RDMAP_SEND;
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_fpdu_build(buf, sizeof(buf), &h, nullptr, 1, 0));
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_fpdu_build(buf, sizeof(buf), nullptr, nullptr, 0, 0));
	EXPECT_EQ(CMKIT_FPDU_E_ARG, cmkit_fpdu_build(nullptr, 128, &h, nullptr, 0, 0));
	EXPECT_EQ(CMKIT_FPDU_E_LEN, cmkit_fpdu_build(buf, sizeof(buf), &h, buf, 0xffff - 17, 0));
	EXPECT_EQ(CMKIT_FPDU_E_NOSPACE, cmkit_fpdu_build(buf, sizeof(buf), &h, buf,
							 0xffff - 18, 0));
	EXPECT_EQ(CMKIT_FPDU_E_NOSPACE, cmkit_fpdu_build(buf, 27, &h, buf, 1, 0));
}

TEST(Fpdu, ErrorStrings)
{
	for (int e = CMKIT_FPDU_E_RTR_FIELDS; e <= CMKIT_FPDU_E_NOSPACE; e++) {
		EXPECT_STRNE("unknown error", cmkit_fpdu_strerror(e)) << e;
		for (int o = CMKIT_FPDU_E_RTR_FIELDS; o < e; o++)
			EXPECT_STRNE(cmkit_fpdu_strerror(o), cmkit_fpdu_strerror(e));
	}
	EXPECT_STREQ("unknown error", cmkit_fpdu_strerror(0));
}

}  // namespace
