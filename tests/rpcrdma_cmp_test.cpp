// SPDX-License-Identifier: GPL-2.0-only
// Host tests of the RFC 8797 private-message codec in include/cmkit/.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cmkit/rpcrdma_cmp.h"

namespace {

std::vector<cmkit_u8> Encode(cmkit_u8 flags, cmkit_u32 send, cmkit_u32 recv)
{
	std::vector<cmkit_u8> buf(CMKIT_RPCRDMA_CMP_LEN);
	cmkit_rpcrdma_cmp_encode(buf.data(), flags, send, recv);
	return buf;
}

TEST(RpcrdmaCmp, EncodesTheRfc8797Layout)
{
	auto buf = Encode(CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK, 4096, 8192);
	const cmkit_u8 want[] = { 0xf6, 0xab, 0x0e, 0x18, 1, 0x01, 3, 7 };
	ASSERT_EQ(buf.size(), sizeof(want));
	EXPECT_EQ(0, std::memcmp(buf.data(), want, sizeof(want)));
}

TEST(RpcrdmaCmp, RoundTripsEverySize)
{
	for (unsigned v = 0; v < 256; v++) {
		cmkit_u32 bytes = (v + 1) * 1024;
		auto buf = Encode(0, bytes, bytes);
		cmkit_rpcrdma_cmp m{};
		ASSERT_EQ(1, cmkit_rpcrdma_cmp_decode(buf.data(), buf.size(), &m));
		EXPECT_EQ(bytes, m.send_size);
		EXPECT_EQ(bytes, m.recv_size);
		EXPECT_EQ(0, m.flags);
	}
}

TEST(RpcrdmaCmp, ClampsSizesOutOfRange)
{
	EXPECT_EQ(0, cmkit_rpcrdma_cmp_encode_size(0));
	EXPECT_EQ(0, cmkit_rpcrdma_cmp_encode_size(1023));
	EXPECT_EQ(255, cmkit_rpcrdma_cmp_encode_size(256 * 1024));
	EXPECT_EQ(255, cmkit_rpcrdma_cmp_encode_size(0xffffffffU));
}

TEST(RpcrdmaCmp, RejectsAbsentShortForeignAndOtherVersions)
{
	auto good = Encode(0, 4096, 4096);
	cmkit_rpcrdma_cmp m{};
	EXPECT_EQ(0, cmkit_rpcrdma_cmp_decode(nullptr, 8, &m));
	for (size_t len = 0; len < CMKIT_RPCRDMA_CMP_LEN; len++)
		EXPECT_EQ(0, cmkit_rpcrdma_cmp_decode(good.data(), len, &m)) << len;
	auto magic = good;
	magic[3] ^= 1;
	EXPECT_EQ(0, cmkit_rpcrdma_cmp_decode(magic.data(), magic.size(), &m));
	auto version = good;
	version[4] = 2;
	EXPECT_EQ(0, cmkit_rpcrdma_cmp_decode(version.data(), version.size(), &m));
}

TEST(RpcrdmaCmp, DecodesOnlyTheFirstEightBytesOfPaddedData)
{
	// IB delivers 196 bytes of REP private data; the tail is padding.
	std::vector<cmkit_u8> rep(196, 0xee);
	cmkit_rpcrdma_cmp_encode(rep.data(), 0, 2048, 2048);
	cmkit_rpcrdma_cmp m{};
	ASSERT_EQ(1, cmkit_rpcrdma_cmp_decode(rep.data(), rep.size(), &m));
	EXPECT_EQ(2048U, m.send_size);
	EXPECT_EQ(0, m.flags);
}

TEST(RpcrdmaCmp, NegotiationOnlyLowers)
{
	cmkit_u32 send = 4096, recv = 4096;
	auto peer = Encode(0, 2048, 8192);
	EXPECT_EQ(1, cmkit_rpcrdma_cmp_negotiate(peer.data(), peer.size(), &send, &recv));
	EXPECT_EQ(4096U, send);	// peer receives 8 KiB: ours stays 4 KiB
	EXPECT_EQ(2048U, recv);	// peer sends at most 2 KiB
}

TEST(RpcrdmaCmp, InvalidPeerDataYieldsTheDefaults)
{
	const cmkit_u8 junk[] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	const void *cases[] = { nullptr, junk };
	for (const void *c : cases) {
		cmkit_u32 send = 4096, recv = 4096;
		EXPECT_EQ(0, cmkit_rpcrdma_cmp_negotiate(c, c ? sizeof(junk) : 0, &send, &recv));
		EXPECT_EQ(CMKIT_RPCRDMA_DEFAULT_INLINE, send);
		EXPECT_EQ(CMKIT_RPCRDMA_DEFAULT_INLINE, recv);
	}
}

} // namespace
