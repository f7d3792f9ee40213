// SPDX-License-Identifier: GPL-2.0-only
// Host tests of the RPC-over-RDMA v1 chunk-list codec (RFC 8166) in
// include/cmkit/rpcrdma_chunk.h, and of the RPC test program's pattern.
#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "cmkit/rpc_testprog.h"
#include "cmkit/rpcrdma_chunk.h"
#include "cmkit/rpcrdma_msg.h"

namespace {

using Bytes = std::vector<cmkit_u8>;
using Chunks = cmkit_rpcrdma_chunks;

// XDR words, big endian, as a reader of RFC 8166 writes them down.
Bytes Words(std::initializer_list<cmkit_u32> words)
{
	Bytes b;
	for (cmkit_u32 w : words) {
		b.push_back((cmkit_u8)(w >> 24));
		b.push_back((cmkit_u8)(w >> 16));
		b.push_back((cmkit_u8)(w >> 8));
		b.push_back((cmkit_u8)w);
	}
	return b;
}

Bytes Cat(Bytes a, const Bytes &b)
{
	a.insert(a.end(), b.begin(), b.end());
	return a;
}

const cmkit_u32 kXid = 0x0badcafe;

cmkit_rpcrdma_seg Seg(cmkit_u32 handle, cmkit_u32 length, cmkit_u64 offset)
{
	cmkit_rpcrdma_seg s;
	s.handle = handle;
	s.length = length;
	s.offset = offset;
	return s;
}

// Segment i of a list: distinct handles, lengths and offsets above 4 GiB.
cmkit_rpcrdma_seg NthSeg(cmkit_u32 tag, cmkit_u32 i)
{
	return Seg(tag << 16 | i, 4096 + 4 * i, 0x7f0000000000ULL + 0x100000ULL * i + tag);
}

// The list builders: a count over CMKIT_RPCRDMA_MAX_SEGS is set, but only
// the segments the arrays hold are filled in.
Chunks ReadChunk(cmkit_u32 pos, cmkit_u32 nsegs, Chunks c = Chunks{})
{
	for (cmkit_u32 i = 0; i < nsegs; i++, c.nr_read++) {
		if (c.nr_read < CMKIT_RPCRDMA_MAX_SEGS) {
			c.read_pos[c.nr_read] = pos;
			c.read[c.nr_read] = NthSeg(0xa, c.nr_read);
		}
	}
	return c;
}

Chunks WriteChunk(cmkit_u32 nsegs, Chunks c = Chunks{})
{
	c.nr_write = 1;
	c.write_segs = nsegs;
	for (cmkit_u32 i = 0; i < nsegs && i < CMKIT_RPCRDMA_MAX_SEGS; i++)
		c.write[i] = NthSeg(0xb, i);
	return c;
}

Chunks ReplyChunk(cmkit_u32 nsegs, Chunks c = Chunks{})
{
	c.has_reply = 1;
	c.reply_segs = nsegs;
	for (cmkit_u32 i = 0; i < nsegs && i < CMKIT_RPCRDMA_MAX_SEGS; i++)
		c.reply[i] = NthSeg(0xc, i);
	return c;
}

bool SameSegs(const cmkit_rpcrdma_seg *a, const cmkit_rpcrdma_seg *b, cmkit_u32 n)
{
	for (cmkit_u32 i = 0; i < n; i++)
		if (a[i].handle != b[i].handle || a[i].length != b[i].length ||
		    a[i].offset != b[i].offset)
			return false;
	return true;
}

// Every field a decoder sets, compared; what a decoder leaves 0 must be 0.
::testing::AssertionResult SameChunks(const Chunks &want, const Chunks &got)
{
	if (want.nr_read != got.nr_read || want.nr_write != got.nr_write ||
	    want.has_reply != got.has_reply)
		return ::testing::AssertionFailure()
		       << "counts " << got.nr_read << "/" << got.nr_write << "/" << got.has_reply;
	for (cmkit_u32 i = 0; i < want.nr_read; i++)
		if (want.read_pos[i] != got.read_pos[i])
			return ::testing::AssertionFailure() << "read_pos[" << i << "]";
	if (!SameSegs(want.read, got.read, want.nr_read))
		return ::testing::AssertionFailure() << "read segments";
	if (want.nr_write && (want.write_segs != got.write_segs ||
			      !SameSegs(want.write, got.write, want.write_segs)))
		return ::testing::AssertionFailure() << "write chunk";
	if (!want.nr_write && got.write_segs)
		return ::testing::AssertionFailure() << "write_segs without a write chunk";
	if (want.has_reply && (want.reply_segs != got.reply_segs ||
			       !SameSegs(want.reply, got.reply, want.reply_segs)))
		return ::testing::AssertionFailure() << "reply chunk";
	if (!want.has_reply && got.reply_segs)
		return ::testing::AssertionFailure() << "reply_segs without a reply chunk";
	return ::testing::AssertionSuccess();
}

Bytes EncodeHdr(const Chunks &c, cmkit_u32 proc = CMKIT_RPCRDMA_MSG, cmkit_u32 credits = 32)
{
	Bytes buf(CMKIT_RPCRDMA_MAX_HDR_LEN);
	int n = cmkit_rpcrdma_encode_hdr(buf.data(), buf.size(), kXid, CMKIT_RPCRDMA_VERSION,
					 credits, proc, &c);
	EXPECT_GT(n, 0) << cmkit_rpcrdma_result_name(n);
	buf.resize(n > 0 ? n : 0);
	return buf;
}

// Decode from an exact-size heap copy, so that a read past the end is out
// of the allocation (ASan: make -C tests run SANITIZE=1).
int DecodeHdr(const Bytes &b, int is_call, cmkit_rpcrdma_hdr *h, Chunks *c)
{
	Bytes copy(b);
	return cmkit_rpcrdma_decode_hdr(copy.empty() ? nullptr : copy.data(), copy.size(), is_call,
					h, c);
}

// The list shapes of RFC 8166 that cmkit's bounds allow, and the procedure
// each goes with.
struct Shape {
	std::string name;
	Chunks ch;
	cmkit_u32 proc;
};

std::vector<Shape> Shapes()
{
	std::vector<Shape> v;
	v.push_back({ "empty", Chunks{}, CMKIT_RPCRDMA_MSG });
	v.push_back({ "read chunk at 48", ReadChunk(48, 1), CMKIT_RPCRDMA_MSG });
	v.push_back({ "read chunk at 48, 3 segments", ReadChunk(48, 3), CMKIT_RPCRDMA_MSG });
	v.push_back({ "read chunks at 44 and 96", ReadChunk(96, 2, ReadChunk(44, 1)),
		      CMKIT_RPCRDMA_MSG });
	v.push_back({ "8 read segments", ReadChunk(52, 8), CMKIT_RPCRDMA_MSG });
	v.push_back({ "position zero", ReadChunk(0, 1), CMKIT_RPCRDMA_NOMSG });
	v.push_back({ "position zero, 8 segments", ReadChunk(0, 8), CMKIT_RPCRDMA_NOMSG });
	for (cmkit_u32 n = 1; n <= CMKIT_RPCRDMA_MAX_SEGS; n++)
		v.push_back({ "write chunk of " + std::to_string(n), WriteChunk(n),
			      CMKIT_RPCRDMA_MSG });
	v.push_back({ "reply chunk of 1", ReplyChunk(1), CMKIT_RPCRDMA_MSG });
	v.push_back({ "reply chunk of 8", ReplyChunk(8), CMKIT_RPCRDMA_MSG });
	v.push_back({ "position zero and reply chunk", ReplyChunk(2, ReadChunk(0, 2)),
		      CMKIT_RPCRDMA_NOMSG });
	v.push_back({ "all three", ReplyChunk(3, WriteChunk(2, ReadChunk(64, 2))),
		      CMKIT_RPCRDMA_MSG });
	v.push_back({ "all three, full", ReplyChunk(8, WriteChunk(8, ReadChunk(64, 8))),
		      CMKIT_RPCRDMA_MSG });
	return v;
}

TEST(RpcrdmaChunk, EncodesAReadChunkByteForByte)
{
	// RFC 8166 section 4.3, written out by hand: an RDMA_MSG call whose
	// bulk argument is in one read segment at XDR position 44.
	const cmkit_u8 want[] = {
		0x0b, 0xad, 0xca, 0xfe,	// rdma_xid
		0x00, 0x00, 0x00, 0x01,	// rdma_vers 1
		0x00, 0x00, 0x00, 0x80,	// rdma_credit 128
		0x00, 0x00, 0x00, 0x00,	// rdma_proc RDMA_MSG
		0x00, 0x00, 0x00, 0x01,	// read list: an entry follows
		0x00, 0x00, 0x00, 0x2c,	//   position 44
		0x11, 0x22, 0x33, 0x44,	//   handle
		0x00, 0x00, 0x20, 0x00,	//   length 8192
		0x00, 0x00, 0x7f, 0x00,	//   offset, high word
		0x12, 0x34, 0x50, 0x00,	//   offset, low word
		0x00, 0x00, 0x00, 0x00,	// read list: end
		0x00, 0x00, 0x00, 0x00,	// write list: end
		0x00, 0x00, 0x00, 0x00,	// reply chunk: absent
	};
	Chunks c{};
	c.nr_read = 1;
	c.read_pos[0] = 44;
	c.read[0] = Seg(0x11223344, 8192, 0x7f0012345000ULL);
	Bytes buf(CMKIT_RPCRDMA_MAX_HDR_LEN, 0xee);
	ASSERT_EQ(int(sizeof(want)), cmkit_rpcrdma_encode_hdr(buf.data(), buf.size(), kXid, 1, 128,
							     CMKIT_RPCRDMA_MSG, &c));
	EXPECT_EQ(0, std::memcmp(buf.data(), want, sizeof(want)));
	EXPECT_EQ(0xee, buf[sizeof(want)]) << "wrote past the header";

	cmkit_rpcrdma_hdr h;
	Chunks got;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, DecodeHdr(Bytes(want, want + sizeof(want)), 1, &h, &got));
	EXPECT_TRUE(SameChunks(c, got));
	EXPECT_EQ(kXid, h.rdma_xid);
	EXPECT_EQ(128u, h.rdma_credit);
	EXPECT_EQ(1u, h.read_chunks);
	EXPECT_EQ(sizeof(want), h.len);
}

TEST(RpcrdmaChunk, EncodesAWriteListReplyByteForByte)
{
	// A reply to a READ: the responder wrote 4096 + 2048 bytes into the
	// two segments of the write chunk the call offered.
	const cmkit_u8 want[] = {
		0x0b, 0xad, 0xca, 0xfe,	// rdma_xid
		0x00, 0x00, 0x00, 0x01,	// rdma_vers 1
		0x00, 0x00, 0x00, 0x40,	// rdma_credit 64
		0x00, 0x00, 0x00, 0x00,	// rdma_proc RDMA_MSG
		0x00, 0x00, 0x00, 0x00,	// read list: end
		0x00, 0x00, 0x00, 0x01,	// write list: a chunk follows
		0x00, 0x00, 0x00, 0x02,	//   2 segments
		0xaa, 0x00, 0x00, 0x01,	//   handle
		0x00, 0x00, 0x10, 0x00,	//   length 4096
		0x00, 0x00, 0x00, 0x00,	//   offset, high word
		0x00, 0x10, 0x00, 0x00,	//   offset, low word
		0xaa, 0x00, 0x00, 0x02,	//   handle
		0x00, 0x00, 0x08, 0x00,	//   length 2048
		0x00, 0x00, 0x00, 0x01,	//   offset, high word
		0x00, 0x00, 0x00, 0x00,	//   offset, low word
		0x00, 0x00, 0x00, 0x00,	// write list: end
		0x00, 0x00, 0x00, 0x00,	// reply chunk: absent
	};
	Chunks c{};
	c.nr_write = 1;
	c.write_segs = 2;
	c.write[0] = Seg(0xaa000001, 4096, 0x100000);
	c.write[1] = Seg(0xaa000002, 2048, 0x100000000ULL);
	Bytes buf(CMKIT_RPCRDMA_MAX_HDR_LEN, 0xee);
	ASSERT_EQ(int(sizeof(want)), cmkit_rpcrdma_encode_hdr(buf.data(), buf.size(), kXid, 1, 64,
							     CMKIT_RPCRDMA_MSG, &c));
	EXPECT_EQ(0, std::memcmp(buf.data(), want, sizeof(want)));
	EXPECT_EQ(0xee, buf[sizeof(want)]) << "wrote past the header";
	EXPECT_EQ(6144u, cmkit_rpcrdma_write_len(&c));

	cmkit_rpcrdma_hdr h;
	Chunks got;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, DecodeHdr(Bytes(want, want + sizeof(want)), 0, &h, &got));
	EXPECT_TRUE(SameChunks(c, got));
	EXPECT_EQ(1u, h.write_chunks);
	EXPECT_EQ(2u, h.write_segs);
	EXPECT_EQ(0u, h.reply_chunk);
}

TEST(RpcrdmaChunk, EncodesAPositionZeroCallWithAReplyChunkByteForByte)
{
	// RDMA_NOMSG: the whole call in a position-zero read chunk, and a
	// reply chunk for a reply that may not fit inline.
	const Bytes want = Words({
		1, 1, 32, 1,				// xid 1, vers 1, credit 32, NOMSG
		1, 0, 0x55, 0x400, 0, 0x1000,		// read: position 0, 1 KiB
		0,					// read list: end
		0,					// write list: end
		1, 1, 0x66, 0x800, 0, 0x2000,		// reply chunk: 1 segment of 2 KiB
	});
	Chunks c{};
	c.nr_read = 1;
	c.read[0] = Seg(0x55, 0x400, 0x1000);
	c.has_reply = 1;
	c.reply_segs = 1;
	c.reply[0] = Seg(0x66, 0x800, 0x2000);
	Bytes buf(want.size());
	ASSERT_EQ(int(want.size()), cmkit_rpcrdma_encode_hdr(buf.data(), buf.size(), 1, 1, 32,
							    CMKIT_RPCRDMA_NOMSG, &c));
	EXPECT_EQ(want, buf);
	EXPECT_EQ(72u, want.size());
	cmkit_rpcrdma_hdr h;
	Chunks got;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, DecodeHdr(want, 1, &h, &got));
	EXPECT_TRUE(SameChunks(c, got));
	EXPECT_EQ(0x400u, cmkit_rpcrdma_read_len(&got, 0));
	EXPECT_EQ(0x800u, cmkit_rpcrdma_reply_len(&got));
}

TEST(RpcrdmaChunk, EmptyListsAreTheNullCallsHeader)
{
	Bytes null_call(CMKIT_RPCRDMA_NULL_CALL_LEN);
	ASSERT_EQ(CMKIT_RPCRDMA_NULL_CALL_LEN,
		  cmkit_rpcrdma_encode_null_call(null_call.data(), null_call.size(), kXid, 32,
						 100003, 3));
	Bytes hdr(CMKIT_RPCRDMA_HDR_LEN);
	ASSERT_EQ(CMKIT_RPCRDMA_HDR_LEN,
		  cmkit_rpcrdma_encode_hdr(hdr.data(), hdr.size(), kXid, 1, 32, CMKIT_RPCRDMA_MSG,
					   nullptr));
	EXPECT_EQ(Bytes(null_call.begin(), null_call.begin() + CMKIT_RPCRDMA_HDR_LEN), hdr);
	// And with no chunks, no arguments and procedure 0, encode_call writes
	// the NULL call itself.
	Bytes call(CMKIT_RPCRDMA_NULL_CALL_LEN);
	ASSERT_EQ(CMKIT_RPCRDMA_NULL_CALL_LEN,
		  cmkit_rpcrdma_encode_call(call.data(), call.size(), kXid, 32, 100003, 3, 0,
					    nullptr, nullptr, 0));
	EXPECT_EQ(null_call, call);
	Chunks none{};
	ASSERT_EQ(CMKIT_RPCRDMA_NULL_CALL_LEN,
		  cmkit_rpcrdma_encode_call(call.data(), call.size(), kXid, 32, 100003, 3, 0,
					    &none, nullptr, 0));
	EXPECT_EQ(null_call, call);
}

TEST(RpcrdmaChunk, RoundTripsEveryListShape)
{
	for (const auto &s : Shapes()) {
		SCOPED_TRACE(s.name);
		Bytes b = EncodeHdr(s.ch, s.proc);
		size_t want_len = 28 + 24 * s.ch.nr_read +
				  (s.ch.nr_write ? 8 + 16 * s.ch.write_segs : 0) +
				  (s.ch.has_reply ? 4 + 16 * s.ch.reply_segs : 0);
		ASSERT_EQ(want_len, b.size());
		cmkit_rpcrdma_hdr h;
		Chunks got;
		// As a call; as a reply too, but RDMA_NOMSG without a reply chunk.
		ASSERT_EQ(CMKIT_RPCRDMA_OK, DecodeHdr(b, 1, &h, &got));
		EXPECT_TRUE(SameChunks(s.ch, got));
		EXPECT_EQ(kXid, h.rdma_xid);
		EXPECT_EQ(1u, h.rdma_vers);
		EXPECT_EQ(32u, h.rdma_credit);
		EXPECT_EQ(s.proc, h.rdma_proc);
		EXPECT_EQ(s.ch.nr_read, h.read_chunks);
		EXPECT_EQ(s.ch.nr_write, h.write_chunks);
		EXPECT_EQ(s.ch.nr_write ? s.ch.write_segs : 0, h.write_segs);
		EXPECT_EQ(s.ch.has_reply, h.reply_chunk);
		EXPECT_EQ(s.ch.has_reply ? s.ch.reply_segs : 0, h.reply_segs);
		EXPECT_EQ(b.size(), h.len);
		EXPECT_EQ(b, EncodeHdr(got, h.rdma_proc));
		bool nomsg_reply_ok = s.proc == CMKIT_RPCRDMA_MSG || s.ch.has_reply;
		EXPECT_EQ(nomsg_reply_ok ? CMKIT_RPCRDMA_OK : CMKIT_RPCRDMA_E_CHUNKS,
			  DecodeHdr(b, 0, &h, &got));
		// Bytes after the header are the RPC message's: not looked at.
		Bytes more = Cat(b, Words({ 0xffffffff }));
		ASSERT_EQ(CMKIT_RPCRDMA_OK, DecodeHdr(more, 1, &h, &got));
		EXPECT_EQ(b.size(), h.len);
	}
}

TEST(RpcrdmaChunk, TruncatingAHeaderAtAnyByteIsShort)
{
	for (const auto &s : Shapes()) {
		SCOPED_TRACE(s.name);
		Bytes b = EncodeHdr(s.ch, s.proc);
		for (size_t len = 0; len < b.size(); len++) {
			Bytes cut(b.begin(), b.begin() + len);
			cmkit_rpcrdma_hdr h;
			Chunks got;
			EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT, DecodeHdr(cut, 1, &h, &got)) << len;
			EXPECT_EQ(0u, h.len) << len;
			EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT, DecodeHdr(cut, 0, &h, &got)) << len;
		}
	}
}

TEST(RpcrdmaChunk, EncoderRefusesASmallBufferWithoutWriting)
{
	for (const auto &s : Shapes()) {
		SCOPED_TRACE(s.name);
		size_t n = EncodeHdr(s.ch, s.proc).size();
		for (size_t len = 0; len < n; len++) {
			Bytes buf(n, 0xee);
			EXPECT_EQ(CMKIT_RPCRDMA_E_NOSPACE,
				  cmkit_rpcrdma_encode_hdr(buf.data(), len, kXid, 1, 1, s.proc, &s.ch))
				<< len;
			EXPECT_EQ(Bytes(n, 0xee), buf) << "wrote at " << len;
		}
	}
	EXPECT_EQ(CMKIT_RPCRDMA_MAX_HDR_LEN,
		  int(EncodeHdr(ReplyChunk(8, WriteChunk(8, ReadChunk(4, 8)))).size()));
	EXPECT_EQ(488, CMKIT_RPCRDMA_MAX_HDR_LEN);
}

TEST(RpcrdmaChunk, EncoderRefusesListsOverTheBounds)
{
	struct {
		const char *name;
		Chunks ch;
		cmkit_u32 proc;
	} cases[] = {
		{ "9 read segments", ReadChunk(48, 9 - 1, ReadChunk(44, 1)), CMKIT_RPCRDMA_MSG },
		{ "9 write segments", WriteChunk(9), CMKIT_RPCRDMA_MSG },
		{ "9 reply segments", ReplyChunk(9), CMKIT_RPCRDMA_MSG },
		{ "2 write chunks", WriteChunk(1), CMKIT_RPCRDMA_MSG },
		{ "a write chunk of no segment", WriteChunk(0), CMKIT_RPCRDMA_MSG },
		{ "a reply chunk of no segment", ReplyChunk(0), CMKIT_RPCRDMA_MSG },
		{ "has_reply 2", ReplyChunk(1), CMKIT_RPCRDMA_MSG },
		{ "positions descending", ReadChunk(44, 1, ReadChunk(48, 1)), CMKIT_RPCRDMA_MSG },
		{ "position 46", ReadChunk(46, 1), CMKIT_RPCRDMA_MSG },
		{ "RDMA_ERROR", Chunks{}, CMKIT_RPCRDMA_ERROR },
		{ "RDMA_MSGP", Chunks{}, CMKIT_RPCRDMA_MSGP },
	};
	cases[3].ch.nr_write = 2;
	cases[6].ch.has_reply = 2;
	for (auto &t : cases) {
		Bytes buf(1024, 0xee);
		EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_encode_hdr(buf.data(), buf.size(), 1, 1, 1,
									 t.proc, &t.ch))
			<< t.name;
		EXPECT_EQ(Bytes(1024, 0xee), buf) << t.name;
	}
	Chunks none{};
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_encode_hdr(nullptr, 64, 1, 1, 1, 0, &none));
	// The segments of an absent chunk are not looked at.
	Chunks stale{};
	stale.write_segs = 99;
	stale.reply_segs = 99;
	EXPECT_EQ(CMKIT_RPCRDMA_HDR_LEN, int(EncodeHdr(stale).size()));
}

// A header written by hand: fixed part, then the given list words.
Bytes Hand(cmkit_u32 proc, Bytes lists)
{
	return Cat(Words({ kXid, 1, 8, proc }), lists);
}

Bytes ReadEntry(cmkit_u32 pos, cmkit_u32 n = 1)
{
	Bytes b;
	for (cmkit_u32 i = 0; i < n; i++)
		b = Cat(b, Words({ 1, pos, 0x100 + i, 512, 0, 0x1000 * i }));
	return b;
}

Bytes SegWords(cmkit_u32 n)
{
	Bytes b = Words({ n });
	for (cmkit_u32 i = 0; i < n; i++)
		b = Cat(b, Words({ 0x200 + i, 512, 0, 0x1000 * i }));
	return b;
}

TEST(RpcrdmaChunk, DecoderRefusesHeadersOverTheBounds)
{
	const Bytes end = Words({ 0 });
	const Bytes one = Words({ 1 });
	const Bytes seg8 = SegWords(8);
	struct {
		const char *name;
		Bytes b;
		int is_call;
		int want;
	} cases[] = {
		{ "9 read segments", Hand(0, Cat(ReadEntry(44, 9), Words({ 0, 0, 0 }))), 1,
		  CMKIT_RPCRDMA_E_CHUNKS },
		{ "9 read segments at two positions",
		  Hand(0, Cat(Cat(ReadEntry(44, 4), ReadEntry(48, 5)), Words({ 0, 0, 0 }))), 1,
		  CMKIT_RPCRDMA_E_CHUNKS },
		{ "9 write segments", Hand(0, Cat(Cat(Cat(end, one), SegWords(9)), Words({ 0, 0 }))),
		  0, CMKIT_RPCRDMA_E_CHUNKS },
		{ "2 write chunks",
		  Hand(0, Cat(Cat(Cat(Cat(Cat(end, one), SegWords(1)), one), SegWords(1)),
			      Words({ 0, 0 }))),
		  0, CMKIT_RPCRDMA_E_CHUNKS },
		{ "a write chunk of 0 segments", Hand(0, Cat(Cat(end, one), Words({ 0, 0, 0 }))), 0,
		  CMKIT_RPCRDMA_E_CHUNKS },
		{ "9 reply segments", Hand(0, Cat(Cat(Words({ 0, 0 }), one), SegWords(9))), 0,
		  CMKIT_RPCRDMA_E_CHUNKS },
		{ "a reply chunk of 0 segments", Hand(0, Words({ 0, 0, 1, 0 })), 0,
		  CMKIT_RPCRDMA_E_CHUNKS },
		// A count as large as it gets, with nothing after it: refused on
		// the bound, before anything is read for it.
		{ "0xffffffff write segments", Hand(0, Words({ 0, 1, 0xffffffff })), 0,
		  CMKIT_RPCRDMA_E_CHUNKS },
		{ "0xffffffff reply segments", Hand(0, Words({ 0, 0, 1, 0xffffffff })), 0,
		  CMKIT_RPCRDMA_E_CHUNKS },
		{ "8 write segments, 7 there",
		  Hand(0, Cat(Words({ 0, 1 }), Bytes(seg8.begin(), seg8.end() - 16))),
		  0, CMKIT_RPCRDMA_E_SHORT },
		{ "positions descending",
		  Hand(0, Cat(Cat(ReadEntry(48), ReadEntry(44)), Words({ 0, 0, 0 }))), 1,
		  CMKIT_RPCRDMA_E_CHUNKS },
		{ "position 45", Hand(0, Cat(ReadEntry(45), Words({ 0, 0, 0 }))), 1,
		  CMKIT_RPCRDMA_E_CHUNKS },
		{ "NOMSG call without a read chunk", Hand(1, Words({ 0, 0, 0 })), 1,
		  CMKIT_RPCRDMA_E_CHUNKS },
		{ "NOMSG call whose read chunk is at 44",
		  Hand(1, Cat(ReadEntry(44), Words({ 0, 0, 0 }))), 1, CMKIT_RPCRDMA_E_CHUNKS },
		{ "NOMSG call with a reply chunk only",
		  Hand(1, Cat(Words({ 0, 0, 1 }), SegWords(1))), 1, CMKIT_RPCRDMA_E_CHUNKS },
		{ "NOMSG reply without a reply chunk", Hand(1, Words({ 0, 0, 0 })), 0,
		  CMKIT_RPCRDMA_E_CHUNKS },
		{ "read discriminator 2", Hand(0, Words({ 2, 0, 0 })), 1, CMKIT_RPCRDMA_E_XDR },
		{ "write discriminator 2", Hand(0, Words({ 0, 2, 0 })), 1, CMKIT_RPCRDMA_E_XDR },
		{ "reply discriminator 2", Hand(0, Words({ 0, 0, 2 })), 1, CMKIT_RPCRDMA_E_XDR },
		{ "second read discriminator 2", Hand(0, Cat(ReadEntry(44), Words({ 2, 0, 0 }))), 1,
		  CMKIT_RPCRDMA_E_XDR },
		{ "rdma_vers 2", Cat(Words({ kXid, 2, 8, 0 }), Words({ 0, 0, 0 })), 1,
		  CMKIT_RPCRDMA_E_VERS },
		{ "RDMA_MSGP", Hand(2, Words({ 0, 0, 0 })), 1, CMKIT_RPCRDMA_E_PROC },
		{ "RDMA_DONE", Hand(3, Words({ 0, 0, 0 })), 0, CMKIT_RPCRDMA_E_PROC },
		{ "RDMA_ERROR", Hand(4, Words({ 2 })), 0, CMKIT_RPCRDMA_E_PROC },
	};
	for (auto &t : cases) {
		cmkit_rpcrdma_hdr h;
		Chunks c;
		EXPECT_EQ(t.want, DecodeHdr(t.b, t.is_call, &h, &c)) << t.name;
		EXPECT_EQ(0u, h.len) << t.name;
	}
	// And the same headers at the bounds are taken.
	cmkit_rpcrdma_hdr h;
	Chunks c;
	EXPECT_EQ(CMKIT_RPCRDMA_OK,
		  DecodeHdr(Hand(0, Cat(ReadEntry(44, 8), Words({ 0, 0, 0 }))), 1, &h, &c));
	EXPECT_EQ(8u, c.nr_read);
	EXPECT_EQ(CMKIT_RPCRDMA_OK,
		  DecodeHdr(Hand(0, Cat(Cat(Cat(Cat(end, one), SegWords(8)), end),
					Cat(one, SegWords(8)))),
			    0, &h, &c));
	EXPECT_EQ(8u, c.write_segs);
	EXPECT_EQ(8u, c.reply_segs);
	Chunks z;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_decode_hdr(nullptr, 4, 1, &h, &z));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_decode_hdr(end.data(), 4, 1, nullptr, &z));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_decode_hdr(end.data(), 4, 1, &h, nullptr));
	EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT, cmkit_rpcrdma_decode_hdr(nullptr, 0, 1, &h, &z));
}

// ---- check_reply_chunks ----

// What a call offers: a write chunk of 3 segments and a reply chunk of 2.
Chunks Offer()
{
	return ReplyChunk(2, WriteChunk(3));
}

TEST(RpcrdmaChunk, ReplyListsWithinTheOfferAreTaken)
{
	Chunks off = Offer();
	cmkit_u32 wlen = 99, rlen = 99;
	// Everything written: the lengths offered.
	ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_check_reply_chunks(&off, &off, &wlen, &rlen));
	EXPECT_EQ(3 * 4096u + 4 + 8, wlen);
	EXPECT_EQ(2 * 4096u + 4, rlen);
	// Less written, fewer segments, no chunk at all.
	Chunks got = off;
	got.write[0].length = 0;
	got.write[1].length = 100;
	got.write_segs = 2;
	got.reply[0].length = 4096;
	got.reply_segs = 1;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_check_reply_chunks(&off, &got, &wlen, &rlen));
	EXPECT_EQ(100u, wlen);
	EXPECT_EQ(4096u, rlen);
	Chunks none{};
	ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_check_reply_chunks(&off, &none, &wlen, &rlen));
	EXPECT_EQ(0u, wlen);
	EXPECT_EQ(0u, rlen);
	EXPECT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_check_reply_chunks(&none, &none, nullptr, nullptr));
	// A read list in the offer is the call's own business.
	Chunks with_read = ReadChunk(44, 2, off);
	EXPECT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_check_reply_chunks(&with_read, &off, &wlen, &rlen));
}

TEST(RpcrdmaChunk, ReplyListsBeyondTheOfferAreRefused)
{
	const Chunks off = Offer();
	struct {
		const char *name;
		Chunks offered, got;
	} cases[] = {
		{ "a write segment longer", off, off },
		{ "a reply segment longer", off, off },
		{ "a write segment of another handle", off, off },
		{ "a reply segment of another handle", off, off },
		{ "a write segment at another offset", off, off },
		{ "a reply segment at another offset", off, off },
		{ "more write segments", off, WriteChunk(4, off) },
		{ "more reply segments", off, ReplyChunk(3, off) },
		{ "a write chunk not offered", ReplyChunk(2), off },
		{ "a reply chunk not offered", WriteChunk(3), off },
		{ "a read list", off, ReadChunk(44, 1, off) },
		{ "two write chunks", off, off },
		{ "has_reply 2", off, off },
	};
	cases[0].got.write[2].length++;
	cases[1].got.reply[0].length++;
	cases[2].got.write[1].handle ^= 1;
	cases[3].got.reply[1].handle ^= 0x80000000;
	cases[4].got.write[0].offset += 4;
	cases[5].got.reply[1].offset ^= 1ULL << 63;
	cases[11].got.nr_write = 2;
	cases[12].got.has_reply = 2;
	for (auto &t : cases) {
		cmkit_u32 wlen = 99, rlen = 99;
		EXPECT_EQ(CMKIT_RPCRDMA_E_CHUNKS,
			  cmkit_rpcrdma_check_reply_chunks(&t.offered, &t.got, &wlen, &rlen))
			<< t.name;
		EXPECT_EQ(0u, wlen) << t.name;
		EXPECT_EQ(0u, rlen) << t.name;
	}
	// A bad offer, or none, is the caller's mistake.
	Chunks bad = off;
	bad.write_segs = 9;
	cmkit_u32 wlen = 99;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_check_reply_chunks(&bad, &off, &wlen, nullptr));
	EXPECT_EQ(0u, wlen);
	Chunks huge = WriteChunk(2);
	huge.write[0].length = huge.write[1].length = 0x80000000;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_check_reply_chunks(&huge, &huge, nullptr, nullptr));
	huge.write[1].length = 0x7fffffff;
	EXPECT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_check_reply_chunks(&huge, &huge, &wlen, nullptr));
	EXPECT_EQ(0xffffffffu, wlen);
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_check_reply_chunks(nullptr, &off, nullptr, nullptr));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_check_reply_chunks(&off, nullptr, nullptr, nullptr));
}

TEST(RpcrdmaChunk, ListLengthsAddUpAndSaturate)
{
	Chunks c = ReplyChunk(2, WriteChunk(3, ReadChunk(96, 2, ReadChunk(0, 3))));
	EXPECT_EQ(3 * 4096u + 12, cmkit_rpcrdma_write_len(&c));
	EXPECT_EQ(2 * 4096u + 4, cmkit_rpcrdma_reply_len(&c));
	EXPECT_EQ(3 * 4096u + 12, cmkit_rpcrdma_read_len(&c, 0));	// segments 0..2
	EXPECT_EQ(2 * 4096u + 12 + 16, cmkit_rpcrdma_read_len(&c, 96));	// segments 3, 4
	EXPECT_EQ(0u, cmkit_rpcrdma_read_len(&c, 44));
	Chunks none{};
	none.write_segs = 3;
	none.reply_segs = 3;
	none.write[0].length = none.reply[0].length = 1;
	EXPECT_EQ(0u, cmkit_rpcrdma_write_len(&none));
	EXPECT_EQ(0u, cmkit_rpcrdma_reply_len(&none));
	EXPECT_EQ(0u, cmkit_rpcrdma_write_len(nullptr));
	EXPECT_EQ(0u, cmkit_rpcrdma_reply_len(nullptr));
	EXPECT_EQ(0u, cmkit_rpcrdma_read_len(nullptr, 0));
	Chunks big = WriteChunk(8, ReadChunk(4, 8));
	for (int i = 0; i < 8; i++)
		big.write[i].length = big.read[i].length = 0x40000000;
	EXPECT_EQ(0xffffffffu, cmkit_rpcrdma_write_len(&big));
	EXPECT_EQ(0xffffffffu, cmkit_rpcrdma_read_len(&big, 4));
	big.write_segs = 1000;	// taken as 8, never read past the array
	EXPECT_EQ(0xffffffffu, cmkit_rpcrdma_write_len(&big));
}

// ---- choose ----

struct Choice {
	int rtype, wtype;
};

Choice Choose(cmkit_u32 call_len, cmkit_u32 bulk_arg, cmkit_u32 reply_len, cmkit_u32 bulk_result,
	      cmkit_u32 hdr_len = 100)
{
	// Values neither side can take, so that both are seen to be set.
	cmkit_rpcrdma_marshal m;
	m.rtype = CMKIT_RPCRDMA_REPLYCH;
	m.wtype = CMKIT_RPCRDMA_READCH;
	int rc = cmkit_rpcrdma_choose(call_len, bulk_arg, reply_len, bulk_result, 1024, 1024,
				      hdr_len, &m);
	EXPECT_EQ(0, rc);
	return { m.rtype, m.wtype };
}

TEST(RpcrdmaChunk, ChoosesTheCallsChunkAtTheThreshold)
{
	// 1 KiB inline, 100 bytes kept for the header: 924 bytes of RPC call.
	EXPECT_EQ(CMKIT_RPCRDMA_NOCH, Choose(924, 0, 0, 0).rtype);
	EXPECT_EQ(CMKIT_RPCRDMA_NOCH, Choose(924, 500, 0, 0).rtype);
	EXPECT_EQ(CMKIT_RPCRDMA_AREADCH, Choose(925, 0, 0, 0).rtype);
	EXPECT_EQ(CMKIT_RPCRDMA_READCH, Choose(925, 1, 0, 0).rtype);
	// With a bulk argument, the rest must fit: exactly, and one byte over.
	EXPECT_EQ(CMKIT_RPCRDMA_READCH, Choose(1 << 20, (1 << 20) - 924, 0, 0).rtype);
	EXPECT_EQ(CMKIT_RPCRDMA_AREADCH, Choose(1 << 20, (1 << 20) - 925, 0, 0).rtype);
	EXPECT_EQ(CMKIT_RPCRDMA_READCH, Choose(1 << 20, 1 << 20, 0, 0).rtype);
	// The header room counts: the least header, 28 bytes.
	EXPECT_EQ(CMKIT_RPCRDMA_NOCH, Choose(996, 0, 0, 0, 28).rtype);
	EXPECT_EQ(CMKIT_RPCRDMA_AREADCH, Choose(997, 0, 0, 0, 28).rtype);
	// No sum wraps around.
	EXPECT_EQ(CMKIT_RPCRDMA_AREADCH, Choose(0xffffffff, 0, 0, 0, 28).rtype);
	EXPECT_EQ(CMKIT_RPCRDMA_READCH, Choose(0xffffffff, 0xffffffff - 996, 0, 0, 28).rtype);
}

TEST(RpcrdmaChunk, ChoosesTheReplysChunkAtTheThreshold)
{
	EXPECT_EQ(CMKIT_RPCRDMA_NOCH, Choose(0, 0, 924, 0).wtype);
	EXPECT_EQ(CMKIT_RPCRDMA_NOCH, Choose(0, 0, 924, 900).wtype);
	EXPECT_EQ(CMKIT_RPCRDMA_REPLYCH, Choose(0, 0, 925, 0).wtype);
	EXPECT_EQ(CMKIT_RPCRDMA_WRITECH, Choose(0, 0, 925, 1).wtype);
	EXPECT_EQ(CMKIT_RPCRDMA_WRITECH, Choose(0, 0, 1 << 20, (1 << 20) - 924).wtype);
	EXPECT_EQ(CMKIT_RPCRDMA_REPLYCH, Choose(0, 0, 1 << 20, (1 << 20) - 925).wtype);
	EXPECT_EQ(CMKIT_RPCRDMA_NOCH, Choose(0, 0, 996, 0, 28).wtype);
	EXPECT_EQ(CMKIT_RPCRDMA_REPLYCH, Choose(0, 0, 997, 0, 28).wtype);
	EXPECT_EQ(CMKIT_RPCRDMA_REPLYCH, Choose(0, 0, 0xffffffff, 0, 28).wtype);
	// Both at once: a big WRITE's call, a big READ's reply.
	Choice c = Choose(65536 + 200, 65536, 65536 + 120, 65536);
	EXPECT_EQ(CMKIT_RPCRDMA_READCH, c.rtype);
	EXPECT_EQ(CMKIT_RPCRDMA_WRITECH, c.wtype);
}

TEST(RpcrdmaChunk, ChooseRefusesBadArguments)
{
	cmkit_rpcrdma_marshal m;
	m.rtype = CMKIT_RPCRDMA_READCH;
	m.wtype = CMKIT_RPCRDMA_WRITECH;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_choose(10, 11, 0, 0, 1024, 1024, 28, &m));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_choose(0, 0, 10, 11, 1024, 1024, 28, &m));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_choose(0, 0, 0, 0, 1024, 1024, 27, &m));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_choose(0, 0, 0, 0, 1024, 1024, 28, nullptr));
	EXPECT_EQ(CMKIT_RPCRDMA_READCH, m.rtype) << "changed on a refusal";
	EXPECT_EQ(CMKIT_RPCRDMA_WRITECH, m.wtype) << "changed on a refusal";
	EXPECT_EQ(0, cmkit_rpcrdma_choose(0, 0, 0, 0, 1024, 1024, 28, &m));
	EXPECT_EQ(CMKIT_RPCRDMA_NOCH, m.rtype);
	EXPECT_EQ(CMKIT_RPCRDMA_NOCH, m.wtype);
}

// ---- calls with chunks ----

Bytes Args(size_t n)
{
	Bytes b(n);
	for (size_t i = 0; i < n; i++)
		b[i] = cmkit_rpc_testprog_byte(7, (cmkit_u32)i);
	return b;
}

Bytes EncodeCall(const Chunks *ch, const Bytes &args, cmkit_u32 proc = CMKIT_RPC_TESTPROG_ECHO)
{
	Bytes buf(CMKIT_RPCRDMA_MAX_HDR_LEN + CMKIT_RPCRDMA_RPC_CALL_LEN + args.size());
	int n = cmkit_rpcrdma_encode_call(buf.data(), buf.size(), kXid, 64, CMKIT_RPC_TESTPROG,
					  CMKIT_RPC_TESTPROG_VERS, proc, ch, args.data(),
					  args.size());
	EXPECT_GT(n, 0) << cmkit_rpcrdma_result_name(n);
	buf.resize(n > 0 ? n : 0);
	return buf;
}

TEST(RpcrdmaChunk, ACallWithAReadChunkRoundTrips)
{
	// ECHO with its data<> in a read chunk: the length word inline, the
	// bytes at position 44 (after the 40-byte call header and that word).
	Bytes args = Words({ 8192 });
	Chunks ch = ReplyChunk(1, ReadChunk(44, 2));
	Bytes b = EncodeCall(&ch, args);
	size_t hlen = 28 + 2 * 24 + 4 + 16;
	ASSERT_EQ(hlen + 40 + 4, b.size());
	EXPECT_EQ(Words({ kXid, 0, 2, CMKIT_RPC_TESTPROG, 1, 1, 0, 0, 0, 0, 8192 }),
		  Bytes(b.begin() + hlen, b.end()));
	cmkit_rpcrdma_call call;
	Chunks got;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_decode_call_chunks(b.data(), b.size(), &call, &got));
	EXPECT_TRUE(SameChunks(ch, got));
	EXPECT_EQ(hlen, call.hdr.len);
	EXPECT_EQ(kXid, call.xid);
	EXPECT_EQ(CMKIT_RPC_TESTPROG, call.prog);
	EXPECT_EQ(1u, call.vers);
	EXPECT_EQ(1u, call.proc);
	EXPECT_EQ(64u, call.hdr.rdma_credit);
	EXPECT_EQ(b.data() + hlen + 40, call.args);
	EXPECT_EQ(4u, call.args_len);
	EXPECT_EQ(2 * 4096u + 4, cmkit_rpcrdma_read_len(&got, 44));

	// The positions a server takes: from the arguments' start (40) to the
	// inline message's end (44 here), both included.
	for (cmkit_u32 pos : { 0u, 36u, 40u, 44u, 48u }) {
		Chunks c = ReadChunk(pos, 1);
		Bytes hand = EncodeHdr(c);
		Bytes rpc = Words({ kXid, 0, 2, 100003, 3, 6, 0, 0, 0, 0, 8192 });
		Bytes m = Cat(hand, rpc);
		bool inside = pos >= 40 && pos <= 44;
		EXPECT_EQ(inside ? CMKIT_RPCRDMA_OK : CMKIT_RPCRDMA_E_CHUNKS,
			  cmkit_rpcrdma_decode_call_chunks(m.data(), m.size(), &call, &got))
			<< pos;
		EXPECT_EQ(hand.size(), call.hdr.len) << pos;
		// The encoder holds to the same rule.
		Bytes buf(256);
		EXPECT_EQ(inside ? int(m.size()) : CMKIT_RPCRDMA_E_ARG,
			  cmkit_rpcrdma_encode_call(buf.data(), buf.size(), kXid, 32, 100003, 3, 6, &c,
						    rpc.data() + 40, 4))
			<< pos;
		if (inside) {
			EXPECT_EQ(m, Bytes(buf.begin(), buf.begin() + m.size())) << pos;
		}
	}
}

TEST(RpcrdmaChunk, ACallInAPositionZeroReadChunkRoundTrips)
{
	// AREADCH: an RDMA_NOMSG header, and the RPC call in the chunk's memory.
	Bytes args = Cat(Words({ 3000 }), Args(3000));
	Bytes memory(CMKIT_RPCRDMA_RPC_CALL_LEN + args.size());
	ASSERT_EQ(int(memory.size()),
		  cmkit_rpcrdma_encode_rpc_call(memory.data(), memory.size(), kXid,
						CMKIT_RPC_TESTPROG, 1, CMKIT_RPC_TESTPROG_SINK,
						args.data(), args.size()));
	Chunks ch = ReadChunk(0, 1);
	ch.read[0].length = (cmkit_u32)memory.size();
	Bytes b = EncodeHdr(ch, CMKIT_RPCRDMA_NOMSG);
	cmkit_rpcrdma_call call;
	Chunks got;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_decode_call_chunks(b.data(), b.size(), &call, &got));
	EXPECT_EQ(unsigned(CMKIT_RPCRDMA_NOMSG), call.hdr.rdma_proc);
	EXPECT_EQ(b.size(), call.hdr.len);
	EXPECT_EQ(0u, call.xid);
	EXPECT_EQ(0u, call.prog);
	EXPECT_EQ(nullptr, call.args);
	EXPECT_EQ(0u, call.args_len);
	EXPECT_EQ(memory.size(), cmkit_rpcrdma_read_len(&got, 0));

	// The server reads the chunk, then decodes the call from it.
	ASSERT_EQ(CMKIT_RPCRDMA_OK,
		  cmkit_rpcrdma_decode_rpc_call(memory.data(), memory.size(), &call));
	EXPECT_EQ(unsigned(CMKIT_RPCRDMA_NOMSG), call.hdr.rdma_proc) << "hdr kept";
	EXPECT_EQ(b.size(), call.hdr.len) << "hdr kept";
	EXPECT_EQ(kXid, call.xid);
	EXPECT_EQ(CMKIT_RPC_TESTPROG, call.prog);
	EXPECT_EQ(unsigned(CMKIT_RPC_TESTPROG_SINK), call.proc);
	EXPECT_EQ(memory.data() + 40, call.args);
	EXPECT_EQ(args.size(), call.args_len);
	// An RPC xid other than the transport's.
	call.hdr.rdma_xid ^= 1;
	EXPECT_EQ(CMKIT_RPCRDMA_E_XID,
		  cmkit_rpcrdma_decode_rpc_call(memory.data(), memory.size(), &call));
	// Truncated: short at every byte of the call header.
	for (size_t len = 0; len < CMKIT_RPCRDMA_RPC_CALL_LEN; len++) {
		Bytes cut(memory.begin(), memory.begin() + len);
		call.hdr.rdma_xid = kXid;
		EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT,
			  cmkit_rpcrdma_decode_rpc_call(len ? cut.data() : nullptr, len, &call))
			<< len;
	}
	// An RDMA_MSG call may not carry a position-zero chunk.
	Bytes buf(8192);
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_call(buf.data(), buf.size(), kXid, 1, 1, 1, 1, &ch,
					    args.data(), args.size()));
}

TEST(RpcrdmaChunk, CallChunkDecoderIsTheCallDecoderWithoutChunks)
{
	// Every NULL call, and every breakage of one the plain decoder knows,
	// gives the same result and fields from both.
	Bytes good(CMKIT_RPCRDMA_NULL_CALL_LEN);
	cmkit_rpcrdma_encode_null_call(good.data(), good.size(), kXid, 1, 100003, 3);
	const size_t offs[] = { 4, 12, 16, 20, 24, 28, 32, 36, 40, 56, 60 };
	for (size_t cut = 0; cut <= good.size(); cut++) {
		for (size_t i = 0; i <= sizeof(offs) / sizeof(offs[0]); i++) {
			Bytes b(good.begin(), good.begin() + cut);
			if (i < sizeof(offs) / sizeof(offs[0]) && offs[i] + 4 <= cut)
				cmkit_put_be32(b.data() + offs[i], 2 + cmkit_u32(i));
			cmkit_rpcrdma_call a, c;
			Chunks ch;
			int ra = cmkit_rpcrdma_decode_call(cut ? b.data() : nullptr, cut, &a);
			int rc = cmkit_rpcrdma_decode_call_chunks(cut ? b.data() : nullptr, cut, &c, &ch);
			EXPECT_EQ(ra, rc) << cut << " " << i;
			EXPECT_EQ(a.hdr.len, c.hdr.len);
			EXPECT_EQ(a.xid, c.xid);
			EXPECT_EQ(a.prog, c.prog);
			EXPECT_EQ(a.args, c.args);
			EXPECT_EQ(a.args_len, c.args_len);
		}
	}
}

// ---- replies with chunks ----

cmkit_rpcrdma_reply ReplyTo(cmkit_u32 xid, cmkit_u32 proc = CMKIT_RPCRDMA_MSG)
{
	cmkit_rpcrdma_reply r{};
	r.hdr.rdma_xid = xid;
	r.hdr.rdma_credit = 64;
	r.hdr.rdma_proc = proc;
	return r;
}

TEST(RpcrdmaChunk, AReplyWithAWriteChunkRoundTrips)
{
	// FILL's reply: data<> written into the write chunk, its length word
	// inline (and the 3 bytes of XDR padding, as xprtrdma expects, too).
	Chunks offered = ReplyChunk(1, WriteChunk(3));
	Chunks wrote = offered;
	wrote.has_reply = 0;
	wrote.write[2].length = 5;	// 4096 + 4100 + 5 bytes
	Bytes results = Words({ 4096 + 4100 + 5 });
	cmkit_rpcrdma_reply r = ReplyTo(kXid);
	Bytes buf(1024);
	int n = cmkit_rpcrdma_encode_reply_chunks(buf.data(), buf.size(), &r, &wrote,
						  results.data(), results.size());
	size_t hlen = 28 + 8 + 3 * 16;
	ASSERT_EQ(int(hlen + 24 + 4), n);
	buf.resize(n);
	EXPECT_EQ(Words({ kXid, 1, 0, 0, 0, 0, 4096 + 4100 + 5 }),
		  Bytes(buf.begin() + hlen, buf.end()));

	cmkit_rpcrdma_reply rep;
	Chunks got;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_decode_reply_chunks(buf.data(), buf.size(), &rep, &got));
	EXPECT_TRUE(SameChunks(wrote, got));
	EXPECT_EQ(hlen, rep.hdr.len);
	EXPECT_EQ(64u, rep.hdr.rdma_credit);
	EXPECT_EQ(kXid, rep.xid);
	EXPECT_EQ(buf.data() + hlen + 24, rep.results);
	EXPECT_EQ(4u, rep.results_len);
	cmkit_u32 wlen, rlen;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_check_reply_chunks(&offered, &got, &wlen, &rlen));
	EXPECT_EQ(4096u + 4100 + 5, wlen);
	EXPECT_EQ(0u, rlen);
	// An unused reply chunk may come back with nothing in it.
	wrote.has_reply = 1;
	wrote.reply_segs = 1;
	wrote.reply[0] = offered.reply[0];
	wrote.reply[0].length = 0;
	Bytes again(1024);
	n = cmkit_rpcrdma_encode_reply_chunks(again.data(), again.size(), &r, &wrote,
					      results.data(), results.size());
	ASSERT_GT(n, 0);
	EXPECT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_decode_reply_chunks(again.data(), n, &rep, &got));
	EXPECT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_check_reply_chunks(&offered, &got, &wlen, &rlen));
	// But not with bytes in it: the reply was inline.
	wrote.reply[0].length = 1;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_reply_chunks(again.data(), again.size(), &r, &wrote,
						    results.data(), results.size()));
	Bytes hand = Cat(EncodeHdr(wrote), Bytes(buf.begin() + hlen, buf.end()));
	EXPECT_EQ(CMKIT_RPCRDMA_E_CHUNKS,
		  cmkit_rpcrdma_decode_reply_chunks(hand.data(), hand.size(), &rep, &got));
}

TEST(RpcrdmaChunk, AReplyInTheReplyChunkRoundTrips)
{
	// REPLYCH: RDMA_NOMSG, and the RPC reply in the reply chunk's memory.
	Bytes results = Cat(Words({ 2000 }), Args(2000));
	cmkit_rpcrdma_reply r = ReplyTo(kXid, CMKIT_RPCRDMA_NOMSG);
	Bytes memory(CMKIT_RPCRDMA_RPC_REPLY_LEN + results.size());
	ASSERT_EQ(int(memory.size()),
		  cmkit_rpcrdma_encode_rpc_reply(memory.data(), memory.size(), &r, results.data(),
						 results.size()));
	Chunks offered = ReplyChunk(1);
	offered.reply[0].length = 4096;
	Chunks wrote = offered;
	wrote.reply[0].length = (cmkit_u32)memory.size();
	Bytes buf(CMKIT_RPCRDMA_MAX_HDR_LEN);
	int n = cmkit_rpcrdma_encode_reply_chunks(buf.data(), buf.size(), &r, &wrote, nullptr, 0);
	ASSERT_EQ(28 + 4 + 16, n);
	buf.resize(n);
	EXPECT_EQ(Words({ kXid, 1, 64, 1, 0, 0, 1, 1, wrote.reply[0].handle,
			  (cmkit_u32)memory.size(), (cmkit_u32)(wrote.reply[0].offset >> 32),
			  (cmkit_u32)wrote.reply[0].offset }),
		  buf);

	cmkit_rpcrdma_reply rep;
	Chunks got;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_decode_reply_chunks(buf.data(), buf.size(), &rep, &got));
	EXPECT_EQ(unsigned(CMKIT_RPCRDMA_NOMSG), rep.hdr.rdma_proc);
	EXPECT_EQ(buf.size(), rep.hdr.len);
	EXPECT_EQ(0u, rep.xid);
	EXPECT_EQ(nullptr, rep.results);
	cmkit_u32 wlen, rlen;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_check_reply_chunks(&offered, &got, &wlen, &rlen));
	EXPECT_EQ(memory.size(), rlen);

	// The client decodes the RPC reply from the reply chunk's memory.
	ASSERT_EQ(CMKIT_RPCRDMA_OK,
		  cmkit_rpcrdma_decode_rpc_reply(memory.data(), rlen, rep.hdr.rdma_xid, &rep));
	EXPECT_EQ(unsigned(CMKIT_RPCRDMA_NOMSG), rep.hdr.rdma_proc) << "hdr kept";
	EXPECT_EQ(kXid, rep.xid);
	EXPECT_EQ(memory.data() + 24, rep.results);
	EXPECT_EQ(results.size(), rep.results_len);
	EXPECT_EQ(CMKIT_RPCRDMA_E_XID,
		  cmkit_rpcrdma_decode_rpc_reply(memory.data(), rlen, kXid + 1, &rep));
	for (size_t len = 0; len < CMKIT_RPCRDMA_RPC_REPLY_LEN; len++) {
		Bytes cut(memory.begin(), memory.begin() + len);
		EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT,
			  cmkit_rpcrdma_decode_rpc_reply(len ? cut.data() : nullptr, len, kXid, &rep))
			<< len;
	}

	// What xprtrdma's rpcrdma_decode_nomsg() refuses, refused both ways:
	// bytes in the write chunk, or none in the reply chunk.
	struct {
		const char *name;
		Chunks ch;
	} bad[] = {
		{ "bytes in the write chunk", WriteChunk(1, wrote) },
		{ "nothing in the reply chunk", wrote },
		{ "no reply chunk", Chunks{} },
	};
	bad[1].ch.reply[0].length = 0;
	for (auto &t : bad) {
		Bytes out(CMKIT_RPCRDMA_MAX_HDR_LEN);
		EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
			  cmkit_rpcrdma_encode_reply_chunks(out.data(), out.size(), &r, &t.ch,
							    nullptr, 0))
			<< t.name;
		Bytes hand = EncodeHdr(t.ch, CMKIT_RPCRDMA_NOMSG);
		EXPECT_EQ(CMKIT_RPCRDMA_E_CHUNKS,
			  cmkit_rpcrdma_decode_reply_chunks(hand.data(), hand.size(), &rep, &got))
			<< t.name;
	}
	// A read list in a reply, as xprtrdma's decode_read_list() refuses it.
	Bytes with_read = EncodeHdr(ReadChunk(0, 1, wrote), CMKIT_RPCRDMA_NOMSG);
	EXPECT_EQ(CMKIT_RPCRDMA_E_CHUNKS,
		  cmkit_rpcrdma_decode_reply_chunks(with_read.data(), with_read.size(), &rep, &got));
	with_read = Cat(EncodeHdr(ReadChunk(44, 1)), Words({ kXid, 1, 0, 0, 0, 0 }));
	EXPECT_EQ(CMKIT_RPCRDMA_E_CHUNKS,
		  cmkit_rpcrdma_decode_reply_chunks(with_read.data(), with_read.size(), &rep, &got));
	// A write chunk that came back empty is fine.
	Chunks empty_write = WriteChunk(1, wrote);
	empty_write.write[0].length = 0;
	Bytes out(CMKIT_RPCRDMA_MAX_HDR_LEN);
	n = cmkit_rpcrdma_encode_reply_chunks(out.data(), out.size(), &r, &empty_write, nullptr, 0);
	ASSERT_GT(n, 0);
	EXPECT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_decode_reply_chunks(out.data(), n, &rep, &got));
	// Inline results with RDMA_NOMSG have nowhere to go.
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_reply_chunks(out.data(), out.size(), &r, &wrote,
						    results.data(), 4));
}

TEST(RpcrdmaChunk, ReplyChunkDecoderIsTheReplyDecoderWithoutChunks)
{
	// Every reply cmkit_rpcrdma_encode_reply() writes, decoded both ways.
	Bytes verf(400, 0x5a);
	std::vector<cmkit_rpcrdma_reply> replies;
	for (cmkit_u32 s = CMKIT_RPC_SUCCESS; s <= CMKIT_RPC_SYSTEM_ERR; s++) {
		cmkit_rpcrdma_reply r = ReplyTo(kXid);
		r.accept_stat = s;
		r.low = 3;
		r.high = 4;
		replies.push_back(r);
	}
	cmkit_rpcrdma_reply r = ReplyTo(kXid);
	r.verf_flavor = CMKIT_RPC_AUTH_SYS;	// E_VERF
	replies.push_back(r);
	r = ReplyTo(kXid);
	r.verf_len = 400;
	r.verf = verf.data();
	replies.push_back(r);
	r = ReplyTo(kXid);
	r.reply_stat = CMKIT_RPC_MSG_DENIED;
	r.reject_stat = CMKIT_RPC_AUTH_ERROR;
	r.auth_stat = CMKIT_RPC_AUTH_TOOWEAK;
	replies.push_back(r);
	r.reject_stat = CMKIT_RPC_MISMATCH;
	r.low = r.high = 2;
	replies.push_back(r);
	r = ReplyTo(kXid, CMKIT_RPCRDMA_ERROR);
	r.rdma_err = CMKIT_RPCRDMA_ERR_VERS;
	r.low = r.high = 1;
	replies.push_back(r);
	r.rdma_err = CMKIT_RPCRDMA_ERR_CHUNK;
	replies.push_back(r);
	for (const auto &x : replies) {
		Bytes b(CMKIT_RPCRDMA_MAX_REPLY_LEN);
		int n = cmkit_rpcrdma_encode_reply(b.data(), b.size(), &x);
		ASSERT_GT(n, 0);
		for (int len = 0; len <= n; len++) {
			Bytes cut(b.begin(), b.begin() + len);
			cmkit_rpcrdma_reply a, c;
			Chunks ch;
			int ra = cmkit_rpcrdma_decode_reply(len ? cut.data() : nullptr, len, &a);
			int rc = cmkit_rpcrdma_decode_reply_chunks(len ? cut.data() : nullptr, len, &c,
								   &ch);
			ASSERT_EQ(ra, rc) << len << " " << x.accept_stat;
			EXPECT_EQ(0, std::memcmp(&a, &c, sizeof(a))) << len;
			EXPECT_EQ(0u, ch.nr_read + ch.nr_write + ch.has_reply);
		}
	}
	// The transport procedures neither takes, and versions.
	Bytes b = Words({ kXid, 1, 1, CMKIT_RPCRDMA_DONE, 0, 0, 0 });
	cmkit_rpcrdma_reply rep;
	Chunks ch;
	EXPECT_EQ(CMKIT_RPCRDMA_E_PROC, cmkit_rpcrdma_decode_reply_chunks(b.data(), b.size(), &rep, &ch));
	b = Words({ kXid, 2, 1, CMKIT_RPCRDMA_ERROR, 1, 1, 1 });
	EXPECT_EQ(CMKIT_RPCRDMA_E_VERS, cmkit_rpcrdma_decode_reply_chunks(b.data(), b.size(), &rep, &ch));
	b = Words({ kXid, 2, 1, CMKIT_RPCRDMA_MSG, 0, 0, 0 });
	EXPECT_EQ(CMKIT_RPCRDMA_E_VERS, cmkit_rpcrdma_decode_reply_chunks(b.data(), b.size(), &rep, &ch));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_decode_reply_chunks(b.data(), b.size(), nullptr, &ch));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_decode_reply_chunks(b.data(), b.size(), &rep, nullptr));
}

TEST(RpcrdmaChunk, ReplyEncodersRefuseBadFieldsAndSmallBuffers)
{
	Bytes buf(1024, 0xee);
	Bytes results = Words({ 1, 2 });
	cmkit_rpcrdma_reply r = ReplyTo(kXid);
	auto enc = [&](const cmkit_rpcrdma_reply &x, const Chunks *ch) {
		return cmkit_rpcrdma_encode_reply_chunks(buf.data(), buf.size(), &x, ch,
							 results.data(), results.size());
	};
	EXPECT_EQ(CMKIT_RPCRDMA_HDR_LEN + CMKIT_RPCRDMA_RPC_REPLY_LEN + 8, enc(r, nullptr));
	buf.assign(1024, 0xee);
	r.accept_stat = CMKIT_RPC_GARBAGE_ARGS;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r, nullptr));
	r = ReplyTo(kXid);
	r.reply_stat = CMKIT_RPC_MSG_DENIED;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r, nullptr));
	r = ReplyTo(kXid);
	r.verf_len = 401;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r, nullptr));
	r.verf_len = 4;	// no body
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r, nullptr));
	r = ReplyTo(kXid, CMKIT_RPCRDMA_ERROR);
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r, nullptr));
	r = ReplyTo(kXid);
	Chunks with_read = ReadChunk(44, 1);
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r, &with_read));
	Chunks over = WriteChunk(9);
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r, &over));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_reply_chunks(buf.data(), buf.size(), &r, nullptr, nullptr, 4));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_reply_chunks(nullptr, 64, &r, nullptr, nullptr, 0));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_reply_chunks(buf.data(), 64, nullptr, nullptr, nullptr, 0));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_rpc_reply(buf.data(), 64, nullptr, nullptr, 0));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_encode_rpc_reply(nullptr, 64, &r, nullptr, 0));
	EXPECT_EQ(Bytes(1024, 0xee), buf) << "wrote on a refusal";

	// A verifier body, padded; and every buffer one byte short.
	Bytes verf = { 1, 2, 3, 4, 5 };
	r.verf_flavor = 6;
	r.verf_len = 5;
	r.verf = verf.data();
	Chunks w = WriteChunk(8);
	int n = enc(r, &w);
	ASSERT_EQ(28 + 8 + 128 + 24 + 8 + 8, n);
	EXPECT_EQ(Cat(Words({ kXid, 1, 0, 6, 5, 0x01020304, 0x05000000, 0 }), results),
		  Bytes(buf.begin() + 28 + 8 + 128, buf.begin() + n));
	for (int len = 0; len < n; len++) {
		Bytes small(n, 0xee);
		EXPECT_EQ(CMKIT_RPCRDMA_E_NOSPACE,
			  cmkit_rpcrdma_encode_reply_chunks(small.data(), len, &r, &w,
							    results.data(), results.size()))
			<< len;
		EXPECT_EQ(Bytes(n, 0xee), small) << len;
	}
	int m = cmkit_rpcrdma_encode_rpc_reply(buf.data(), buf.size(), &r, results.data(),
					       results.size());
	ASSERT_EQ(24 + 8 + 8, m);
	for (int len = 0; len < m; len++) {
		Bytes small(m, 0xee);
		EXPECT_EQ(CMKIT_RPCRDMA_E_NOSPACE,
			  cmkit_rpcrdma_encode_rpc_reply(small.data(), len, &r, results.data(),
							 results.size()))
			<< len;
		EXPECT_EQ(Bytes(m, 0xee), small) << len;
	}
}

TEST(RpcrdmaChunk, CallEncodersRefuseBadFieldsAndSmallBuffers)
{
	Bytes args = Words({ 7, 8 });
	Chunks ch = WriteChunk(2, ReadChunk(48, 1));
	Bytes want = EncodeCall(&ch, args);
	ASSERT_EQ(size_t(28 + 24 + 8 + 32 + 40 + 8), want.size());
	for (size_t len = 0; len < want.size(); len++) {
		Bytes small(want.size(), 0xee);
		EXPECT_EQ(CMKIT_RPCRDMA_E_NOSPACE,
			  cmkit_rpcrdma_encode_call(small.data(), len, kXid, 64, CMKIT_RPC_TESTPROG,
						    1, 1, &ch, args.data(), args.size()))
			<< len;
		EXPECT_EQ(Bytes(want.size(), 0xee), small) << len;
	}
	for (size_t len = 0; len < 48; len++) {
		Bytes small(48, 0xee);
		EXPECT_EQ(CMKIT_RPCRDMA_E_NOSPACE,
			  cmkit_rpcrdma_encode_rpc_call(small.data(), len, 1, 2, 3, 4, args.data(),
							args.size()))
			<< len;
		EXPECT_EQ(Bytes(48, 0xee), small) << len;
	}
	Bytes buf(1024);
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_call(nullptr, 1024, 1, 1, 1, 1, 1, nullptr, nullptr, 0));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_call(buf.data(), buf.size(), 1, 1, 1, 1, 1, nullptr,
					    nullptr, 4));
	Chunks over = ReadChunk(48, 9);
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_call(buf.data(), buf.size(), 1, 1, 1, 1, 1, &over,
					    args.data(), args.size()));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_rpc_call(nullptr, 64, 1, 1, 1, 1, nullptr, 0));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_rpc_call(buf.data(), 64, 1, 1, 1, 1, nullptr, 4));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG,
		  cmkit_rpcrdma_encode_rpc_call(buf.data(), 64, 1, 1, 1, 1, args.data(),
						cmkit_size(0x80000000U)));
}

TEST(RpcrdmaChunk, TruncatingACallOrReplyWithChunksIsShort)
{
	// Up to the end of the RPC header, every cut is short: then the rest
	// is arguments or results.
	Chunks ch = ReplyChunk(2, WriteChunk(3, ReadChunk(44, 2)));
	Bytes call = EncodeCall(&ch, Words({ 100 }));
	size_t hlen = call.size() - 44;
	for (size_t len = 0; len < hlen + 40; len++) {
		Bytes cut(call.begin(), call.begin() + len);
		cmkit_rpcrdma_call c;
		Chunks got;
		EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT,
			  cmkit_rpcrdma_decode_call_chunks(len ? cut.data() : nullptr, len, &c, &got))
			<< len;
	}
	Chunks wrote = WriteChunk(3);
	cmkit_rpcrdma_reply r = ReplyTo(kXid);
	Bytes reply(1024);
	int n = cmkit_rpcrdma_encode_reply_chunks(reply.data(), reply.size(), &r, &wrote, nullptr, 0);
	ASSERT_GT(n, 0);
	for (int len = 0; len < n; len++) {
		Bytes cut(reply.begin(), reply.begin() + len);
		cmkit_rpcrdma_reply rep;
		Chunks got;
		EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT,
			  cmkit_rpcrdma_decode_reply_chunks(len ? cut.data() : nullptr, len, &rep,
							    &got))
			<< len;
	}
}

TEST(RpcTestprog, ThePatternIsFixedAndSpread)
{
	// Byte 0 for seed 0, by hand: x = 0x9e3779b1; (x >> 24) ^ (x >> 13)
	// = 0x9e ^ 0x4f1bb, low byte 0x25.
	EXPECT_EQ(0x25, cmkit_rpc_testprog_byte(0, 0));
	int seen[256] = {};
	int differ = 0;
	for (cmkit_u32 i = 0; i < 4096; i++) {
		seen[cmkit_rpc_testprog_byte(0x10000, i)]++;
		differ += cmkit_rpc_testprog_byte(0x10000, i) != cmkit_rpc_testprog_byte(0x20000, i);
	}
	for (int v = 0; v < 256; v++)
		EXPECT_GT(seen[v], 0) << v;
	EXPECT_GT(differ, 3500);
	// Small seeds too: a case that writes seed 2 over seed 1 must see it.
	differ = 0;
	for (cmkit_u32 i = 0; i < 4096; i++)
		differ += cmkit_rpc_testprog_byte(1, i) != cmkit_rpc_testprog_byte(2, i);
	EXPECT_GT(differ, 3500);
}

} // namespace
