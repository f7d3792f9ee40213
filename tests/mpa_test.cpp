// SPDX-License-Identifier: GPL-2.0-only
// Host tests of the MPA frame codec and IRD/ORD negotiation in include/cmkit/.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <vector>

#include "cmkit/mpa.h"

namespace {

using Bytes = std::vector<cmkit_u8>;

Bytes Header(const char *key, cmkit_u8 flags, cmkit_u8 rev, cmkit_u16 pd_len)
{
	Bytes b(key, key + CMKIT_MPA_KEY_LEN);
	b.push_back(flags);
	b.push_back(rev);
	b.push_back(static_cast<cmkit_u8>(pd_len >> 8));
	b.push_back(static_cast<cmkit_u8>(pd_len));
	return b;
}

// Parse a copy that ends exactly at @len, so a read past it is caught by
// ASan/valgrind and by the heap's guard instead of reading stale bytes.
int ParseExact(const Bytes &b, size_t len, cmkit_mpa_kind kind, cmkit_mpa_frame *f)
{
	std::unique_ptr<cmkit_u8[]> copy(new cmkit_u8[len ? len : 1]);
	if (len)
		std::memcpy(copy.get(), b.data(), len);
	int rc = cmkit_mpa_parse_strict(copy.get(), len, kind, f);
	if (rc > 0) {
		// Point pdata back into @b's storage so callers may inspect it.
		f->pdata = b.data() + (f->pdata - copy.get());
	}
	return rc;
}

TEST(Mpa, BuildsRevision1RequestByteForByte)
{
	cmkit_u8 buf[64];
	const char pd[] = "abc";
	int n = cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REQUEST, 0, pd, 3);
	ASSERT_EQ(n, 23);
	Bytes want = Header("MPA ID Req Frame", 0x00, 1, 3);
	want.insert(want.end(), pd, pd + 3);
	EXPECT_EQ(0, std::memcmp(buf, want.data(), want.size()));
}

TEST(Mpa, RejectFlagOnlyOnReplies)
{
	cmkit_u8 buf[64];
	ASSERT_EQ(20, cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REQUEST, 1, nullptr, 0));
	EXPECT_EQ(0, buf[16]);
	ASSERT_EQ(20, cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REPLY, 1, nullptr, 0));
	EXPECT_EQ(CMKIT_MPA_FLAG_REJECT, buf[16]);
	EXPECT_EQ(0, std::memcmp(buf, "MPA ID Rep Frame", 16));
}

// What siw sends as an initiator (measured): flags/revision word 0x1002,
// IRD = ORD = 1, no private data of the upper layer.
TEST(Mpa, BuildsTheEnhancedRequestSiwSends)
{
	cmkit_u8 buf[64];
	int n = cmkit_mpa_build_v2(buf, sizeof(buf), CMKIT_MPA_REQUEST, 0, 1, 1, 0, 0,
				   nullptr, 0);
	ASSERT_EQ(n, 24);
	Bytes want = Header("MPA ID Req Frame", 0x10, 2, 4);
	const cmkit_u8 ird_ord[] = { 0x00, 0x01, 0x00, 0x01 };
	want.insert(want.end(), ird_ord, ird_ord + 4);
	EXPECT_EQ(0, std::memcmp(buf, want.data(), want.size()));
}

// siw's measured reply to an enhanced request with IRD = ORD = 16.
TEST(Mpa, ParsesSiwsEnhancedReply)
{
	Bytes b = Header("MPA ID Rep Frame", 0x10, 2, 4);
	const cmkit_u8 ird_ord[] = { 0x00, 0x10, 0x00, 0x10 };
	b.insert(b.end(), ird_ord, ird_ord + 4);
	cmkit_mpa_frame f{};
	ASSERT_EQ(24, ParseExact(b, b.size(), CMKIT_MPA_REPLY, &f));
	EXPECT_EQ(2, f.rev);
	EXPECT_TRUE(f.enhanced);
	EXPECT_EQ(16, f.ird);
	EXPECT_EQ(16, f.ord);
	EXPECT_EQ(0, f.pdata_len);
	EXPECT_FALSE(f.flags & CMKIT_MPA_FLAG_REJECT);
}

TEST(Mpa, RoundTripsPrivateDataAndControlBits)
{
	cmkit_u8 buf[CMKIT_MPA_MAX_FRAME];
	Bytes pd(100);
	for (size_t i = 0; i < pd.size(); i++)
		pd[i] = static_cast<cmkit_u8>(i * 7);
	int n = cmkit_mpa_build_v2(buf, sizeof(buf), CMKIT_MPA_REPLY, 1, 0x3000, 5,
				   CMKIT_MPA_V2_PEER_TO_PEER, CMKIT_MPA_V2_WRITE_RTR,
				   pd.data(), static_cast<cmkit_u16>(pd.size()));
	ASSERT_EQ(n, 124);
	Bytes b(buf, buf + n);
	cmkit_mpa_frame f{};
	ASSERT_EQ(n, ParseExact(b, b.size(), CMKIT_MPA_REPLY, &f));
	EXPECT_TRUE(f.flags & CMKIT_MPA_FLAG_REJECT);
	EXPECT_EQ(0x3000, f.ird);
	EXPECT_EQ(5, f.ord);
	EXPECT_EQ(CMKIT_MPA_V2_PEER_TO_PEER, f.ird_ctrl);
	EXPECT_EQ(CMKIT_MPA_V2_WRITE_RTR, f.ord_ctrl);
	ASSERT_EQ(pd.size(), f.pdata_len);
	EXPECT_EQ(0, std::memcmp(f.pdata, pd.data(), pd.size()));
}

TEST(Mpa, ClampsIrdOrdTo14Bits)
{
	cmkit_u8 buf[32];
	ASSERT_EQ(24, cmkit_mpa_build_v2(buf, sizeof(buf), CMKIT_MPA_REQUEST, 0, 0xffff,
					 0x4000, 0, 0, nullptr, 0));
	EXPECT_EQ(0x3f, buf[20]);
	EXPECT_EQ(0xff, buf[21]);
	EXPECT_EQ(0x3f, buf[22]);
	EXPECT_EQ(0xff, buf[23]);
}

TEST(Mpa, BuildRefusesSmallBuffersAndLongPrivateData)
{
	cmkit_u8 buf[CMKIT_MPA_MAX_FRAME + 8];
	Bytes pd(CMKIT_MPA_MAX_PD_LEN + 1, 0x55);
	EXPECT_EQ(CMKIT_MPA_E_NOSPACE,
		  cmkit_mpa_build_v1(buf, 22, CMKIT_MPA_REQUEST, 0, pd.data(), 3));
	EXPECT_EQ(CMKIT_MPA_E_NOSPACE,
		  cmkit_mpa_build_v2(buf, 23, CMKIT_MPA_REQUEST, 0, 1, 1, 0, 0, nullptr, 0));
	EXPECT_EQ(CMKIT_MPA_E_PDATA,
		  cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REQUEST, 0, pd.data(),
				     CMKIT_MPA_MAX_PD_LEN + 1));
	EXPECT_EQ(CMKIT_MPA_MAX_FRAME,
		  cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REQUEST, 0, pd.data(),
				     CMKIT_MPA_MAX_PD_LEN));
	EXPECT_EQ(CMKIT_MPA_E_PDATA,
		  cmkit_mpa_build_v2(buf, sizeof(buf), CMKIT_MPA_REQUEST, 0, 1, 1, 0, 0,
				     pd.data(), CMKIT_MPA_MAX_PD_LEN - 3));
	EXPECT_EQ(CMKIT_MPA_MAX_FRAME,
		  cmkit_mpa_build_v2(buf, sizeof(buf), CMKIT_MPA_REQUEST, 0, 1, 1, 0, 0,
				     pd.data(), CMKIT_MPA_MAX_PD_LEN - 4));
	EXPECT_EQ(CMKIT_MPA_E_ARG,
		  cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REQUEST, 0, nullptr, 1));
	EXPECT_EQ(CMKIT_MPA_E_ARG,
		  cmkit_mpa_build_v1(buf, sizeof(buf), static_cast<cmkit_mpa_kind>(7), 0,
				     nullptr, 0));
}

// Every prefix of a valid frame asks for more; none reads past its length.
TEST(Mpa, TruncatedFramesNeedMoreAndNeverReadPastTheirLength)
{
	cmkit_u8 buf[128];
	const char pd[] = "private";
	int n = cmkit_mpa_build_v2(buf, sizeof(buf), CMKIT_MPA_REQUEST, 0, 4, 4, 0, 0,
				   pd, sizeof(pd));
	ASSERT_GT(n, 0);
	Bytes b(buf, buf + n);
	cmkit_mpa_frame f{};
	for (int len = 0; len < n; len++)
		EXPECT_EQ(0, ParseExact(b, len, CMKIT_MPA_REQUEST, &f)) << len;
	EXPECT_EQ(n, ParseExact(b, n, CMKIT_MPA_REQUEST, &f));
	EXPECT_EQ(sizeof(pd), f.pdata_len);
}

TEST(Mpa, TrailingBytesAreNotPartOfTheFrame)
{
	Bytes b = Header("MPA ID Rep Frame", 0, 1, 2);
	b.push_back('h');
	b.push_back('i');
	b.push_back(0xde);	// the peer's first FPDU, not ours to parse
	b.push_back(0xad);
	cmkit_mpa_frame f{};
	EXPECT_EQ(22, ParseExact(b, b.size(), CMKIT_MPA_REPLY, &f));
	EXPECT_EQ(2, f.pdata_len);
	EXPECT_FALSE(f.enhanced);
}

TEST(Mpa, RejectsWrongKeyRevisionMarkersAndOversize)
{
	cmkit_mpa_frame f{};
	Bytes req = Header("MPA ID Req Frame", 0, 1, 0);
	EXPECT_EQ(CMKIT_MPA_E_KEY, ParseExact(req, req.size(), CMKIT_MPA_REPLY, &f));
	Bytes garbage(20, 'G');
	EXPECT_EQ(CMKIT_MPA_E_KEY, ParseExact(garbage, garbage.size(), CMKIT_MPA_REQUEST, &f));
	for (int rev : { 0, 3, 255 }) {
		Bytes b = Header("MPA ID Req Frame", 0, static_cast<cmkit_u8>(rev), 0);
		EXPECT_EQ(CMKIT_MPA_E_REV, ParseExact(b, b.size(), CMKIT_MPA_REQUEST, &f)) << rev;
	}
	Bytes m = Header("MPA ID Req Frame", CMKIT_MPA_FLAG_MARKERS, 1, 0);
	EXPECT_EQ(CMKIT_MPA_E_MARKERS, ParseExact(m, m.size(), CMKIT_MPA_REQUEST, &f));
	// Oversized frames are refused from the header alone: no waiting for
	// bytes the peer should never send.
	for (cmkit_u16 pd : { 513, 0x8000, 0xffff }) {
		Bytes b = Header("MPA ID Req Frame", 0, 2, pd);
		EXPECT_EQ(CMKIT_MPA_E_OVERSIZE, ParseExact(b, b.size(), CMKIT_MPA_REQUEST, &f))
			<< pd;
	}
	Bytes max = Header("MPA ID Req Frame", 0, 1, 512);
	EXPECT_EQ(0, ParseExact(max, max.size(), CMKIT_MPA_REQUEST, &f));
}

TEST(Mpa, EnhancedFrameNeedsRoomForIrdOrd)
{
	cmkit_mpa_frame f{};
	for (cmkit_u16 pd = 0; pd < 4; pd++) {
		Bytes b = Header("MPA ID Req Frame", CMKIT_MPA_FLAG_ENHANCED, 2, pd);
		b.resize(b.size() + pd, 0);
		EXPECT_EQ(CMKIT_MPA_E_V2_SHORT, ParseExact(b, b.size(), CMKIT_MPA_REQUEST, &f))
			<< pd;
	}
	// The E flag on a revision 1 frame means nothing: no IRD/ORD is read.
	Bytes v1 = Header("MPA ID Req Frame", CMKIT_MPA_FLAG_ENHANCED, 1, 2);
	v1.push_back(1);
	v1.push_back(2);
	ASSERT_EQ(22, ParseExact(v1, v1.size(), CMKIT_MPA_REQUEST, &f));
	EXPECT_FALSE(f.enhanced);
	EXPECT_EQ(2, f.pdata_len);
	// Revision 2 without the E flag carries plain private data.
	Bytes v2 = Header("MPA ID Req Frame", 0, 2, 2);
	v2.push_back(1);
	v2.push_back(2);
	ASSERT_EQ(22, ParseExact(v2, v2.size(), CMKIT_MPA_REQUEST, &f));
	EXPECT_FALSE(f.enhanced);
	EXPECT_EQ(2, f.pdata_len);
}

TEST(Mpa, NullArguments)
{
	cmkit_mpa_frame f{};
	cmkit_u8 b[20] = {};
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_parse_strict(nullptr, 20, CMKIT_MPA_REQUEST, &f));
	EXPECT_EQ(CMKIT_MPA_E_ARG, cmkit_mpa_parse_strict(b, 20, CMKIT_MPA_REQUEST, nullptr));
	EXPECT_EQ(0, cmkit_mpa_parse_strict(nullptr, 0, CMKIT_MPA_REQUEST, &f));
}

// Feed every byte value at each header position: the parser either asks for
// more, rejects, or accepts a frame no longer than what it was given.
TEST(Mpa, FuzzedHeadersStayInBounds)
{
	Bytes base = Header("MPA ID Rep Frame", CMKIT_MPA_FLAG_ENHANCED, 2, 8);
	base.resize(base.size() + 8, 0x11);
	for (size_t pos = 16; pos < 24; pos++) {
		for (int v = 0; v < 256; v++) {
			Bytes b = base;
			b[pos] = static_cast<cmkit_u8>(v);
			for (size_t len = 0; len <= b.size(); len += 3) {
				cmkit_mpa_frame f{};
				int rc = ParseExact(b, len, CMKIT_MPA_REPLY, &f);
				if (rc > 0) {
					EXPECT_LE(static_cast<size_t>(rc), len);
					EXPECT_LE(f.pdata + f.pdata_len, b.data() + rc);
				}
			}
		}
	}
}

TEST(MpaNegotiate, ResponderLowersOrdToInitiatorsIrd)
{
	cmkit_u16 ird = 16, ord = 16;
	EXPECT_EQ(0, cmkit_mpa_negotiate_ird_ord(0, &ird, &ord, 1, 1));
	EXPECT_EQ(16, ird);
	EXPECT_EQ(1, ord);
}

TEST(MpaNegotiate, ResponderKeepsItsIrdEvenIfShort)
{
	cmkit_u16 ird = 2, ord = 2;
	EXPECT_EQ(0, cmkit_mpa_negotiate_ird_ord(0, &ird, &ord, 8, 8));
	EXPECT_EQ(2, ird);
	EXPECT_EQ(2, ord);
}

TEST(MpaNegotiate, InitiatorFailsWhenItsIrdIsShort)
{
	cmkit_u16 ird = 1, ord = 4;
	EXPECT_EQ(CMKIT_MPA_E_IRD, cmkit_mpa_negotiate_ird_ord(1, &ird, &ord, 2, 8));
	ird = 8;
	ord = 4;
	EXPECT_EQ(0, cmkit_mpa_negotiate_ird_ord(1, &ird, &ord, 2, 8));
	EXPECT_EQ(2, ord);
}

TEST(MpaNegotiate, UnspecifiedMeansNoNegotiation)
{
	cmkit_u16 ird = 1, ord = 9;
	EXPECT_EQ(0, cmkit_mpa_negotiate_ird_ord(1, &ird, &ord, 0x3fff, 100));
	EXPECT_EQ(9, ord);
	EXPECT_EQ(0, cmkit_mpa_negotiate_ird_ord(1, &ird, &ord, 0, 0x3fff));
	EXPECT_EQ(9, ord);
}

TEST(MpaNegotiate, ControlBitsDoNotCount)
{
	cmkit_u16 ird = 4, ord = 4;
	EXPECT_EQ(0, cmkit_mpa_negotiate_ird_ord(0, &ird, &ord,
						 CMKIT_MPA_V2_PEER_TO_PEER | 2,
						 CMKIT_MPA_V2_WRITE_RTR | 2));
	EXPECT_EQ(2, ord);
}

TEST(Mpa, ErrorStrings)
{
	for (int e = CMKIT_MPA_E_RTR; e <= CMKIT_MPA_E_NOSPACE; e++)
		EXPECT_STRNE("unknown error", cmkit_mpa_strerror(e)) << e;
	EXPECT_STREQ("unknown error", cmkit_mpa_strerror(0));
}

}  // namespace
