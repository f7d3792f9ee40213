// SPDX-License-Identifier: GPL-2.0-only
// Host tests of the NFSv4.0 COMPOUND codec (RFC 7530, RFC 7531) and the
// AUTH_SYS call header in include/cmkit/nfs4.h.  Expected encodings are
// written down word by word from RFC 7531's XDR, not by the encoder.
#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "cmkit/nfs4.h"
#include "cmkit/rpcrdma_chunk.h"
#include "cmkit/rpcrdma_msg.h"

namespace {

using Bytes = std::vector<cmkit_u8>;

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

// Raw bytes, as written (the caller pads).
Bytes Raw(const std::string &s)
{
	return Bytes(s.begin(), s.end());
}

Bytes Cat(std::initializer_list<Bytes> parts)
{
	Bytes b;
	for (const Bytes &p : parts)
		b.insert(b.end(), p.begin(), p.end());
	return b;
}

// The attribute mask cmkit asks for: type (1), change (3), size (4),
// fileid (20), all in word 0.
const cmkit_u32 kMask0 = (1U << 1) | (1U << 3) | (1U << 4) | (1U << 20);

// Encode into an exact-size heap buffer: ASan sees any write past it.
struct Enc {
	explicit Enc(size_t n) : buf(n ? n : 1) { len = n; }
	Bytes buf;
	size_t len;
	cmkit_nfs4_enc e {};
	Bytes Out(int n) const { return Bytes(buf.begin(), buf.begin() + n); }
};

// --- encoder: byte-exact -------------------------------------------------

TEST(Nfs4Encode, LookupGetattrOfRfc7531)
{
	Enc x(512);
	const cmkit_u32 mask[2] = { kMask0, 0 };
	ASSERT_EQ(cmkit_nfs4_enc_begin(&x.e, x.buf.data(), x.len, "cmkit", 5), 0);
	ASSERT_EQ(cmkit_nfs4_enc_putrootfh(&x.e), 0);
	ASSERT_EQ(cmkit_nfs4_enc_lookup(&x.e, "hello.txt", 9), 0);
	ASSERT_EQ(cmkit_nfs4_enc_getfh(&x.e), 0);
	ASSERT_EQ(cmkit_nfs4_enc_getattr(&x.e, mask, 2), 0);
	int n = cmkit_nfs4_enc_end(&x.e);
	Bytes want = Cat({
		Words({ 5 }), Raw("cmkit"), Bytes(3, 0),	// tag<>
		Words({ 0, 4 }),				// minorversion, numops
		Words({ 24 }),					// PUTROOTFH
		Words({ 15, 9 }), Raw("hello.txt"), Bytes(3, 0),	// LOOKUP
		Words({ 10 }),					// GETFH
		Words({ 9, 2, 0x0010001a, 0 }),			// GETATTR
	});
	ASSERT_EQ(n, (int)want.size());
	EXPECT_EQ(x.Out(n), want);
}

TEST(Nfs4Encode, EmptyTagAndNoOps)
{
	Enc x(12);
	ASSERT_EQ(cmkit_nfs4_enc_begin(&x.e, x.buf.data(), x.len, nullptr, 0), 0);
	ASSERT_EQ(cmkit_nfs4_enc_end(&x.e), 12);
	EXPECT_EQ(x.Out(12), Words({ 0, 0, 0 }));
}

TEST(Nfs4Encode, PutfhReadWithBypassStateid)
{
	Enc x(256);
	const cmkit_u8 fh[6] = { 1, 2, 3, 4, 5, 6 };
	ASSERT_EQ(cmkit_nfs4_enc_begin(&x.e, x.buf.data(), x.len, "r", 1), 0);
	ASSERT_EQ(cmkit_nfs4_enc_putfh(&x.e, fh, sizeof(fh)), 0);
	ASSERT_EQ(cmkit_nfs4_enc_read(&x.e, &cmkit_nfs4_bypass_stateid, 0x100040000ULL, 262144), 0);
	int n = cmkit_nfs4_enc_end(&x.e);
	Bytes want = Cat({
		Words({ 1 }), Raw("r"), Bytes(3, 0), Words({ 0, 2 }),
		Words({ 22, 6 }), Bytes({ 1, 2, 3, 4, 5, 6, 0, 0 }),		// PUTFH
		Words({ 25, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,	// READ, stateid
			0x1, 0x00040000, 262144 }),				// offset, count
	});
	ASSERT_EQ(n, (int)want.size());
	EXPECT_EQ(x.Out(n), want);
}

TEST(Nfs4Encode, WriteInlineWithAnonymousStateid)
{
	Enc x(256);
	size_t pos = 0;
	ASSERT_EQ(cmkit_nfs4_enc_begin(&x.e, x.buf.data(), x.len, nullptr, 0), 0);
	ASSERT_EQ(cmkit_nfs4_enc_putrootfh(&x.e), 0);
	ASSERT_EQ(cmkit_nfs4_enc_write(&x.e, &cmkit_nfs4_anonymous_stateid, 8, CMKIT_NFS4_FILE_SYNC,
				       "abcde", 5, &pos), 0);
	ASSERT_EQ(cmkit_nfs4_enc_getfh(&x.e), 0);
	int n = cmkit_nfs4_enc_end(&x.e);
	Bytes want = Cat({
		Words({ 0, 0, 3, 24 }),
		Words({ 38, 0, 0, 0, 0, 0, 8, 2, 5 }), Raw("abcde"), Bytes(3, 0),
		Words({ 10 }),
	});
	ASSERT_EQ(n, (int)want.size());
	EXPECT_EQ(x.Out(n), want);
	EXPECT_EQ(pos, 16u + 36u);	// header, PUTROOTFH, then WRITE up to its data
	EXPECT_EQ(std::memcmp(x.buf.data() + pos, "abcde", 5), 0);
}

// RFC 8166, 3.4.5 / RFC 8267: the data goes in a read chunk; inline only
// its length word, the next operation right after it.
TEST(Nfs4Encode, WriteDataInReadChunk)
{
	Enc x(256);
	size_t pos = 0;
	ASSERT_EQ(cmkit_nfs4_enc_begin(&x.e, x.buf.data(), x.len, nullptr, 0), 0);
	ASSERT_EQ(cmkit_nfs4_enc_putrootfh(&x.e), 0);
	ASSERT_EQ(cmkit_nfs4_enc_write(&x.e, &cmkit_nfs4_anonymous_stateid, 0x10000,
				       CMKIT_NFS4_UNSTABLE, nullptr, 65536, &pos), 0);
	ASSERT_EQ(cmkit_nfs4_enc_getfh(&x.e), 0);
	int n = cmkit_nfs4_enc_end(&x.e);
	Bytes want = Cat({
		Words({ 0, 0, 3, 24 }),
		Words({ 38, 0, 0, 0, 0, 0, 0x10000, 0, 65536 }),
		Words({ 10 }),
	});
	ASSERT_EQ(n, (int)want.size());
	EXPECT_EQ(x.Out(n), want);
	EXPECT_EQ(pos, 52u);
	EXPECT_EQ(pos % 4, 0u);
}

// Every buffer shorter than the message: no success, nothing past it written.
TEST(Nfs4Encode, ShortBuffers)
{
	const cmkit_u32 mask[1] = { kMask0 };
	auto build = [&](cmkit_u8 *buf, size_t len) {
		cmkit_nfs4_enc e {};
		cmkit_nfs4_enc_begin(&e, buf, len, "tag", 3);
		cmkit_nfs4_enc_putrootfh(&e);
		cmkit_nfs4_enc_lookup(&e, "f", 1);
		cmkit_nfs4_enc_getattr(&e, mask, 1);
		cmkit_nfs4_enc_read(&e, &cmkit_nfs4_bypass_stateid, 0, 4096);
		cmkit_nfs4_enc_write(&e, &cmkit_nfs4_anonymous_stateid, 0, 0, "xyz", 3, nullptr);
		cmkit_nfs4_enc_getfh(&e);
		return cmkit_nfs4_enc_end(&e);
	};
	Bytes full(1024);
	int n = build(full.data(), full.size());
	ASSERT_GT(n, 0);
	for (int len = 0; len < n; len++) {
		Bytes b(len + 1, 0xee);
		EXPECT_EQ(build(b.data(), len), CMKIT_NFS4_E_NOSPACE) << len;
		EXPECT_EQ(b[len], 0xee) << len;
	}
	Bytes exact(n);
	EXPECT_EQ(build(exact.data(), n), n);
	EXPECT_EQ(exact, Bytes(full.begin(), full.begin() + n));
}

TEST(Nfs4Encode, StickyFailureAndBadArguments)
{
	Enc x(4096);
	const cmkit_u32 mask[4] = { 1, 2, 3, 4 };
	Bytes fh(129, 7);

	EXPECT_EQ(cmkit_nfs4_enc_begin(nullptr, x.buf.data(), x.len, nullptr, 0), CMKIT_NFS4_E_ARG);
	EXPECT_EQ(cmkit_nfs4_enc_begin(&x.e, nullptr, 16, nullptr, 0), CMKIT_NFS4_E_ARG);
	EXPECT_EQ(cmkit_nfs4_enc_begin(&x.e, x.buf.data(), x.len, nullptr, 1), CMKIT_NFS4_E_ARG);
	std::string tag(CMKIT_NFS4_MAX_TAG + 1, 't');
	EXPECT_EQ(cmkit_nfs4_enc_begin(&x.e, x.buf.data(), x.len, tag.data(), tag.size()),
		  CMKIT_NFS4_E_ARG);
	EXPECT_EQ(cmkit_nfs4_enc_end(&x.e), CMKIT_NFS4_E_ARG);
	EXPECT_EQ(cmkit_nfs4_enc_end(nullptr), CMKIT_NFS4_E_ARG);

	struct Bad {
		const char *what;
		int (*op)(cmkit_nfs4_enc *, const Bytes &);
	} bad[] = {
		{ "putfh 129", [](cmkit_nfs4_enc *e, const Bytes &f) {
			  return cmkit_nfs4_enc_putfh(e, f.data(), 129); } },
		{ "putfh 0", [](cmkit_nfs4_enc *e, const Bytes &f) {
			  return cmkit_nfs4_enc_putfh(e, f.data(), 0); } },
		{ "putfh NULL", [](cmkit_nfs4_enc *e, const Bytes &) {
			  return cmkit_nfs4_enc_putfh(e, nullptr, 8); } },
		{ "lookup empty", [](cmkit_nfs4_enc *e, const Bytes &) {
			  return cmkit_nfs4_enc_lookup(e, "", 0); } },
		{ "lookup 256", [](cmkit_nfs4_enc *e, const Bytes &) {
			  static const std::string s(256, 'n');
			  return cmkit_nfs4_enc_lookup(e, s.data(), 256); } },
		{ "getattr 0 words", [](cmkit_nfs4_enc *e, const Bytes &) {
			  static const cmkit_u32 m[1] = { 1 };
			  return cmkit_nfs4_enc_getattr(e, m, 0); } },
		{ "getattr 4 words", [](cmkit_nfs4_enc *e, const Bytes &) {
			  static const cmkit_u32 m[4] = { 1, 2, 3, 4 };
			  return cmkit_nfs4_enc_getattr(e, m, 4); } },
		{ "read NULL stateid", [](cmkit_nfs4_enc *e, const Bytes &) {
			  return cmkit_nfs4_enc_read(e, nullptr, 0, 1); } },
		{ "write stable 3", [](cmkit_nfs4_enc *e, const Bytes &) {
			  return cmkit_nfs4_enc_write(e, &cmkit_nfs4_anonymous_stateid, 0, 3,
						      nullptr, 4, nullptr); } },
	};
	(void)mask;
	for (auto &b : bad) {
		ASSERT_EQ(cmkit_nfs4_enc_begin(&x.e, x.buf.data(), x.len, nullptr, 0), 0);
		ASSERT_EQ(cmkit_nfs4_enc_putrootfh(&x.e), 0);
		size_t before = x.e.off;
		EXPECT_EQ(b.op(&x.e, fh), CMKIT_NFS4_E_ARG) << b.what;
		EXPECT_EQ(x.e.off, before) << b.what;
		// Sticky: what follows does nothing, the end reports the failure.
		EXPECT_EQ(cmkit_nfs4_enc_getfh(&x.e), CMKIT_NFS4_E_ARG) << b.what;
		EXPECT_EQ(x.e.off, before) << b.what;
		EXPECT_EQ(cmkit_nfs4_enc_end(&x.e), CMKIT_NFS4_E_ARG) << b.what;
	}

	// CMKIT_NFS4_MAX_OPS operations, then no more.
	ASSERT_EQ(cmkit_nfs4_enc_begin(&x.e, x.buf.data(), x.len, nullptr, 0), 0);
	for (int i = 0; i < CMKIT_NFS4_MAX_OPS; i++)
		ASSERT_EQ(cmkit_nfs4_enc_getfh(&x.e), 0);
	EXPECT_EQ(cmkit_nfs4_enc_getfh(&x.e), CMKIT_NFS4_E_ARG);
	EXPECT_EQ(cmkit_nfs4_enc_end(&x.e), CMKIT_NFS4_E_ARG);
	ASSERT_EQ(cmkit_nfs4_enc_begin(&x.e, x.buf.data(), x.len, nullptr, 0), 0);
	for (int i = 0; i < CMKIT_NFS4_MAX_OPS; i++)
		ASSERT_EQ(cmkit_nfs4_enc_getfh(&x.e), 0);
	EXPECT_EQ(cmkit_nfs4_enc_end(&x.e), 12 + 4 * CMKIT_NFS4_MAX_OPS);
	EXPECT_EQ(Bytes(x.buf.begin() + 8, x.buf.begin() + 12), Words({ CMKIT_NFS4_MAX_OPS }));
}

TEST(Nfs4Encode, SpecialStateids)
{
	EXPECT_EQ(cmkit_nfs4_anonymous_stateid.seqid, 0u);
	EXPECT_EQ(cmkit_nfs4_bypass_stateid.seqid, 0xffffffffu);
	for (int i = 0; i < CMKIT_NFS4_OTHER_SIZE; i++) {
		EXPECT_EQ(cmkit_nfs4_anonymous_stateid.other[i], 0);
		EXPECT_EQ(cmkit_nfs4_bypass_stateid.other[i], 0xff);
	}
}

// --- RPC call header ---------------------------------------------------

TEST(RpcCallHdr, AuthSysOfRfc5531)
{
	cmkit_rpc_authsys cred {};
	cred.stamp = 0x5eed;
	cred.machine = "cmkit-client";	// 12 bytes, no roundup
	cred.machine_len = 12;
	Bytes buf(72);
	int n = cmkit_rpc_encode_call_hdr(buf.data(), buf.size(), 0xabcd0001, 100003, 4, 1, &cred);
	Bytes want = Cat({
		Words({ 0xabcd0001, 0, 2, 100003, 4, 1 }),
		Words({ 1, 32, 0x5eed, 12 }), Raw("cmkit-client"), Words({ 0, 0, 0 }),
		Words({ 0, 0 }),
	});
	ASSERT_EQ(n, 72);
	EXPECT_EQ(buf, want);

	// A machine name with roundup, and two groups.
	const cmkit_u32 gids[2] = { 10, 20 };
	cred.machine = "vm";
	cred.machine_len = 2;
	cred.uid = 1000;
	cred.gid = 100;
	cred.ngids = 2;
	cred.gids = gids;
	Bytes b2(72);
	n = cmkit_rpc_encode_call_hdr(b2.data(), b2.size(), 7, 100003, 4, 1, &cred);
	want = Cat({
		Words({ 7, 0, 2, 100003, 4, 1 }),
		Words({ 1, 32, 0x5eed, 2 }), Bytes({ 'v', 'm', 0, 0 }),
		Words({ 1000, 100, 2, 10, 20 }), Words({ 0, 0 }),
	});
	ASSERT_EQ(n, 72);
	EXPECT_EQ(b2, want);
	for (size_t len = 0; len < 72; len++) {
		Bytes s(len + 1, 0xee);
		EXPECT_EQ(cmkit_rpc_encode_call_hdr(s.data(), len, 7, 100003, 4, 1, &cred),
			  CMKIT_NFS4_E_NOSPACE);
		EXPECT_EQ(s, Bytes(len + 1, 0xee));
	}
	cred.ngids = CMKIT_NFS4_MAX_GIDS + 1;
	EXPECT_EQ(cmkit_rpc_encode_call_hdr(b2.data(), b2.size(), 7, 1, 1, 1, &cred),
		  CMKIT_NFS4_E_ARG);
	cred.ngids = 0;
	cred.machine_len = CMKIT_NFS4_MAX_MACHINE + 1;
	EXPECT_EQ(cmkit_rpc_encode_call_hdr(b2.data(), b2.size(), 7, 1, 1, 1, &cred),
		  CMKIT_NFS4_E_ARG);
	cred.machine = nullptr;
	cred.machine_len = 1;
	EXPECT_EQ(cmkit_rpc_encode_call_hdr(b2.data(), b2.size(), 7, 1, 1, 1, &cred),
		  CMKIT_NFS4_E_ARG);
	EXPECT_EQ(cmkit_rpc_encode_call_hdr(nullptr, 100, 7, 1, 1, 1, nullptr), CMKIT_NFS4_E_ARG);
}

TEST(RpcCallHdr, AuthNoneIsWhatTheChunkEncoderWrites)
{
	Bytes a(CMKIT_RPCRDMA_RPC_CALL_LEN), b(CMKIT_RPCRDMA_RPC_CALL_LEN);
	ASSERT_EQ(cmkit_rpc_encode_call_hdr(a.data(), a.size(), 9, 100003, 4, 1, nullptr),
		  CMKIT_RPCRDMA_RPC_CALL_LEN);
	ASSERT_EQ(cmkit_rpcrdma_encode_rpc_call(b.data(), b.size(), 9, 100003, 4, 1, nullptr, 0),
		  CMKIT_RPCRDMA_RPC_CALL_LEN);
	EXPECT_EQ(a, b);
}

// The whole call as the client will send it: transport header with a read
// chunk at the WRITE data's position, AUTH_SYS call header, COMPOUND with
// the data not inline; the server-side decoder takes it.
TEST(RpcCallHdr, WriteCallWithReadChunkRoundTrip)
{
	cmkit_rpc_authsys cred {};
	cred.machine = "client";
	cred.machine_len = 6;
	Bytes rpc(512);
	int h = cmkit_rpc_encode_call_hdr(rpc.data(), rpc.size(), 0x77, 100003, 4, 1, &cred);
	ASSERT_GT(h, 0);
	cmkit_nfs4_enc e {};
	size_t pos = 0;
	const cmkit_u8 fh[8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
	ASSERT_EQ(cmkit_nfs4_enc_begin(&e, rpc.data() + h, rpc.size() - h, "w", 1), 0);
	cmkit_nfs4_enc_putfh(&e, fh, 8);
	cmkit_nfs4_enc_write(&e, &cmkit_nfs4_anonymous_stateid, 0, CMKIT_NFS4_FILE_SYNC, nullptr,
			     65536, &pos);
	int n = cmkit_nfs4_enc_end(&e);
	ASSERT_GT(n, 0);
	rpc.resize(h + n);

	cmkit_rpcrdma_chunks ch {};
	ch.nr_read = 1;
	ch.read_pos[0] = (cmkit_u32)(h + pos);
	ch.read[0].handle = 0x1234;
	ch.read[0].length = 65536;
	ch.read[0].offset = 0x10000;
	Bytes msg(1024);
	int hl = cmkit_rpcrdma_encode_hdr(msg.data(), msg.size(), 0x77, CMKIT_RPCRDMA_VERSION, 32,
					  CMKIT_RPCRDMA_MSG, &ch);
	ASSERT_GT(hl, 0);
	msg.resize(hl);
	msg.insert(msg.end(), rpc.begin(), rpc.end());

	cmkit_rpcrdma_call call {};
	cmkit_rpcrdma_chunks got {};
	ASSERT_EQ(cmkit_rpcrdma_decode_call_chunks(msg.data(), msg.size(), &call, &got),
		  CMKIT_RPCRDMA_OK);
	EXPECT_EQ(call.cred_flavor, (cmkit_u32)CMKIT_RPC_AUTH_SYS);
	EXPECT_EQ(call.cred_len, 4u + 4 + 8 + 12);
	EXPECT_EQ(call.prog, 100003u);
	EXPECT_EQ(call.vers, 4u);
	EXPECT_EQ(call.proc, 1u);
	ASSERT_EQ(call.args_len, (size_t)n);
	EXPECT_EQ(std::memcmp(call.args, rpc.data() + h, n), 0);
	EXPECT_EQ(got.read_pos[0], (cmkit_u32)(h + pos));
	// The length word sits just before the position, the data's 65536.
	EXPECT_EQ(Bytes(call.args + pos - 4, call.args + pos), Words({ 65536 }));
	EXPECT_EQ(pos, (size_t)n);	// WRITE was last: the position is the end
}

// --- decoder -----------------------------------------------------------

cmkit_nfs4_compound_res Decode(const Bytes &b, int want, cmkit_u32 flags = 0,
			       cmkit_u32 chunk_len = 0)
{
	// An exact-size heap copy: ASan catches a read past it.
	std::vector<cmkit_u8> copy(b);
	cmkit_nfs4_compound_res res;
	int rc = cmkit_nfs4_decode_compound(copy.empty() ? nullptr : copy.data(), copy.size(),
					    flags, chunk_len, &res);
	EXPECT_EQ(rc, want) << cmkit_nfs4_result_name(rc);
	// Pointers from the copy, rebased on @b for the caller.
	if (res.tag)
		res.tag = b.data() + (res.tag - copy.data());
	for (cmkit_u32 i = 0; i < res.numres; i++) {
		if (res.res[i].fh)
			res.res[i].fh = b.data() + (res.res[i].fh - copy.data());
		if (res.res[i].attr.vals)
			res.res[i].attr.vals = b.data() + (res.res[i].attr.vals - copy.data());
	}
	return res;
}

const Bytes kFh = Bytes({ 0x01, 0x00, 0x06, 0x01, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x11, 0x22 });

// PUTROOTFH, LOOKUP, GETFH, GETATTR(type, change, size, fileid), as nfsd answers.
Bytes LookupReply()
{
	return Cat({
		Words({ 0, 5 }), Raw("cmkit"), Bytes(3, 0), Words({ 4 }),
		Words({ 24, 0 }), Words({ 15, 0 }),
		Words({ 10, 0, 12 }), kFh,
		Words({ 9, 0, 1, 0x0010001a, 28,
			1,				// NF4REG
			0x00000001, 0x23456789,		// change
			0, 1048576,			// size
			0, 0x1234 }),			// fileid
	});
}

TEST(Nfs4Decode, LookupReply)
{
	Bytes b = LookupReply();
	auto r = Decode(b, CMKIT_NFS4_R_OK);
	EXPECT_EQ(r.status, 0u);
	ASSERT_EQ(r.tag_len, 5u);
	EXPECT_EQ(std::memcmp(r.tag, "cmkit", 5), 0);
	ASSERT_EQ(r.numres, 4u);
	EXPECT_EQ(r.res[0].op, 24u);
	EXPECT_EQ(r.res[1].op, 15u);
	EXPECT_EQ(r.res[2].op, 10u);
	ASSERT_EQ(r.res[2].fh_len, 12u);
	EXPECT_EQ(Bytes(r.res[2].fh, r.res[2].fh + 12), kFh);
	const cmkit_nfs4_fattr &a = r.res[3].attr;
	EXPECT_EQ(a.mask[0], 0x0010001au);
	EXPECT_EQ(a.mask_words, 1u);
	EXPECT_EQ(a.have, (cmkit_u32)(CMKIT_NFS4_HAVE_TYPE | CMKIT_NFS4_HAVE_CHANGE |
				      CMKIT_NFS4_HAVE_SIZE | CMKIT_NFS4_HAVE_FILEID));
	EXPECT_EQ(a.type, 1u);
	EXPECT_EQ(a.change, 0x0000000123456789ULL);
	EXPECT_EQ(a.size, 1048576u);
	EXPECT_EQ(a.fileid, 0x1234u);
	EXPECT_EQ(a.vals_len, 28u);
	EXPECT_EQ(r.len, b.size());
}

// Every attribute before fileid that nfsd may return, checked and skipped;
// one after it (mode, 33) left undecoded.
TEST(Nfs4Decode, GetattrSkipsKnownAttributes)
{
	const cmkit_u32 w0 = 0x001fffff;	// attributes 0..20
	const cmkit_u32 w1 = 1U << 1;		// mode
	Bytes vals = Cat({
		Words({ 2, w0, w1 }),			// 0 supported_attrs
		Words({ 2 }),				// 1 type: NF4DIR
		Words({ 0 }),				// 2 fh_expire_type
		Words({ 0, 7 }),			// 3 change
		Words({ 0, 4096 }),			// 4 size
		Words({ 1, 1, 0 }),			// 5..7 link, symlink, named_attr
		Words({ 0, 1, 0, 2 }),			// 8 fsid
		Words({ 0 }),				// 9 unique_handles
		Words({ 90 }),				// 10 lease_time
		Words({ 0 }),				// 11 rdattr_error
		Words({ 2, 0, 0, 0x1f, 6 }), Raw("OWNER@"), Bytes(2, 0),	// 12 acl
		Words({ 0, 0, 0x1f, 9 }), Raw("EVERYONE@"), Bytes(3, 0),
		Words({ 15 }),				// 13 aclsupport
		Words({ 0, 1, 0, 1, 1 }),		// 14..18 bools
		Words({ 12 }), kFh,			// 19 filehandle
		Words({ 0, 99 }),			// 20 fileid
		Words({ 0755 }),			// 33 mode
	});
	Bytes b = Cat({
		Words({ 0, 0, 1, 9, 0, 2, w0, w1, (cmkit_u32)vals.size() }), vals,
	});
	auto r = Decode(b, CMKIT_NFS4_R_OK);
	ASSERT_EQ(r.numres, 1u);
	const cmkit_nfs4_fattr &a = r.res[0].attr;
	EXPECT_EQ(a.type, 2u);
	EXPECT_EQ(a.change, 7u);
	EXPECT_EQ(a.size, 4096u);
	EXPECT_EQ(a.fileid, 99u);
	EXPECT_EQ(a.mask[1], w1);
	EXPECT_EQ(a.mask_words, 2u);
	EXPECT_EQ(a.have, 0xfu);

	// Without mode in the mask, its four bytes are left over: refused.
	Bytes b2 = b;
	b2[7 * 4 + 3] = 0;
	b2[36 + 8 + 3] = 0;	// supported_attrs' word 1 too, for tidiness
	Decode(b2, CMKIT_NFS4_E_XDR);
}

TEST(Nfs4Decode, GetattrBadValues)
{
	auto getattr = [](cmkit_u32 mask0, Bytes vals) {
		return Cat({ Words({ 0, 0, 1, 9, 0, 1, mask0, (cmkit_u32)vals.size() }), vals });
	};
	Decode(getattr(1U << 1, Words({ 1 })), CMKIT_NFS4_R_OK);
	Decode(getattr(1U << 1, Words({ 0 })), CMKIT_NFS4_E_XDR);	// type 0
	Decode(getattr(1U << 1, Words({ 10 })), CMKIT_NFS4_E_XDR);	// type 10
	Decode(getattr(1U << 5, Words({ 2 })), CMKIT_NFS4_E_XDR);	// bool 2
	Decode(getattr(1U << 4, Words({ 0 })), CMKIT_NFS4_E_XDR);	// size cut short
	Decode(getattr(1U << 4, Words({ 0, 1, 2 })), CMKIT_NFS4_E_XDR);	// one word too many
	Decode(getattr(1U << 19, Words({ 129 })), CMKIT_NFS4_E_LEN);	// fh over 128
	Decode(getattr(1U << 12, Words({ 0x10000000 })), CMKIT_NFS4_E_XDR);	// hostile acl count
	Decode(getattr(1U << 0, Words({ 9 })), CMKIT_NFS4_E_LEN);	// supported_attrs 9 words
	// attrlist length past the reply, and a hostile one.
	Decode(Words({ 0, 0, 1, 9, 0, 1, 2, 8, 1 }), CMKIT_NFS4_E_SHORT);
	Decode(Words({ 0, 0, 1, 9, 0, 1, 2, 0xfffffffd }), CMKIT_NFS4_E_SHORT);
	// attrmask of 9 words, and a hostile count.
	Decode(Words({ 0, 0, 1, 9, 0, 9 }), CMKIT_NFS4_E_LEN);
	Decode(Words({ 0, 0, 1, 9, 0, 0xffffffff }), CMKIT_NFS4_E_LEN);
	Decode(Words({ 0, 0, 1, 9, 0, 3, 0, 0 }), CMKIT_NFS4_E_SHORT);
	// Empty mask and list.
	auto r = Decode(Words({ 0, 0, 1, 9, 0, 0, 0 }), CMKIT_NFS4_R_OK);
	EXPECT_EQ(r.res[0].attr.have, 0u);
	EXPECT_EQ(r.res[0].attr.vals, nullptr);
}

TEST(Nfs4Decode, ReadInline)
{
	Bytes b = Cat({
		Words({ 0, 0, 2, 22, 0, 25, 0, 1, 5 }), Raw("hello"), Bytes(3, 0),
	});
	auto r = Decode(b, CMKIT_NFS4_R_OK);
	ASSERT_EQ(r.numres, 2u);
	EXPECT_EQ(r.res[1].eof, 1u);
	EXPECT_EQ(r.res[1].count, 5u);
	EXPECT_EQ(r.res[1].in_chunk, 0u);
	ASSERT_EQ(r.res[1].data_off, 36u);
	EXPECT_EQ(std::memcmp(b.data() + r.res[1].data_off, "hello", 5), 0);
	// Without its roundup: short.
	Decode(Bytes(b.begin(), b.end() - 3), CMKIT_NFS4_E_SHORT);
	Decode(Words({ 0, 0, 1, 25, 0, 2, 0 }), CMKIT_NFS4_E_XDR);	// eof 2
	Decode(Words({ 0, 0, 1, 25, 0, 0, 0xfffffffe }), CMKIT_NFS4_E_SHORT);
}

// RFC 8166 / 8267: the data went to the write chunk; inline has eof and
// the length word only, and the next result follows at once.
TEST(Nfs4Decode, ReadDataInWriteChunk)
{
	Bytes b = Words({ 0, 0, 3, 22, 0, 25, 0, 0, 262144, 9, 0, 1, 1U << 4, 8, 0, 1048576 });
	auto r = Decode(b, CMKIT_NFS4_R_OK, CMKIT_NFS4_DEC_READ_CHUNK, 262144);
	ASSERT_EQ(r.numres, 3u);
	EXPECT_EQ(r.res[1].eof, 0u);
	EXPECT_EQ(r.res[1].count, 262144u);
	EXPECT_EQ(r.res[1].in_chunk, 1u);
	EXPECT_EQ(r.res[1].data_off, 36u);
	EXPECT_EQ(r.res[2].attr.size, 1048576u);
	// Less than the length in the chunk: refused.
	Decode(b, CMKIT_NFS4_E_CHUNK, CMKIT_NFS4_DEC_READ_CHUNK, 262143);
	// The last piece: 200 bytes in the chunk, count 200, eof.
	Bytes last = Words({ 0, 0, 2, 22, 0, 25, 0, 1, 200 });
	auto r2 = Decode(last, CMKIT_NFS4_R_OK, CMKIT_NFS4_DEC_READ_CHUNK, 262144);
	EXPECT_EQ(r2.res[1].count, 200u);
	EXPECT_EQ(r2.res[1].eof, 1u);
	// Inline mode takes the GETATTR's words as data: malformed.
	Decode(b, CMKIT_NFS4_E_SHORT);
	// Only the first READ's data is in the chunk.
	Bytes two = Cat({ Words({ 0, 0, 2, 25, 0, 0, 8, 25, 0, 1, 3 }), Raw("abc"), Bytes(1, 0) });
	auto r3 = Decode(two, CMKIT_NFS4_R_OK, CMKIT_NFS4_DEC_READ_CHUNK, 8);
	EXPECT_EQ(r3.res[0].in_chunk, 1u);
	EXPECT_EQ(r3.res[1].in_chunk, 0u);
	EXPECT_EQ(r3.res[1].data_off, 44u);
	Decode(two, CMKIT_NFS4_E_ARG, 0x2, 8);
}

TEST(Nfs4Decode, WriteResult)
{
	Bytes b = Cat({
		Words({ 0, 0, 2, 22, 0, 38, 0, 65536, 2 }),
		Bytes({ 1, 2, 3, 4, 5, 6, 7, 8 }),
	});
	auto r = Decode(b, CMKIT_NFS4_R_OK);
	EXPECT_EQ(r.res[1].count, 65536u);
	EXPECT_EQ(r.res[1].committed, 2u);
	EXPECT_EQ(Bytes(r.res[1].verf, r.res[1].verf + 8), Bytes({ 1, 2, 3, 4, 5, 6, 7, 8 }));
	b[8 * 4 + 3] = 3;	// committed 3
	Decode(b, CMKIT_NFS4_E_XDR);
}

TEST(Nfs4Decode, StopsAtTheFirstFailure)
{
	// LOOKUP fails with NFS4ERR_NOENT: the last result, the COMPOUND's status.
	Bytes b = Words({ 2, 0, 2, 24, 0, 15, 2 });
	auto r = Decode(b, CMKIT_NFS4_R_OK);
	EXPECT_EQ(r.status, 2u);
	ASSERT_EQ(r.numres, 2u);
	EXPECT_EQ(r.res[1].status, 2u);
	// A result after the failed one, a status other than the last result's,
	// a failure status over all-successful results.
	Decode(Words({ 2, 0, 3, 24, 0, 15, 2, 10, 0 }), CMKIT_NFS4_E_XDR);
	// Three said, two sent (the GETFH's bytes pass the count's first check).
	Decode(Words({ 2, 0, 3, 10, 0, 8, 1, 2, 15, 2 }), CMKIT_NFS4_E_XDR);
	Decode(Words({ 5, 0, 2, 24, 0, 15, 2 }), CMKIT_NFS4_E_XDR);
	Decode(Words({ 2, 0, 1, 24, 0 }), CMKIT_NFS4_E_XDR);
	// An illegal operation, and a failed GETATTR whose body is void.
	r = Decode(Words({ 10044, 0, 1, 10044, 10044 }), CMKIT_NFS4_R_OK);
	EXPECT_EQ(r.res[0].op, 10044u);
	Decode(Words({ 13, 0, 2, 24, 0, 9, 13 }), CMKIT_NFS4_R_OK);
	// No results at all: any status (e.g. MINOR_VERS_MISMATCH).
	r = Decode(Words({ 10021, 0, 0 }), CMKIT_NFS4_R_OK);
	EXPECT_EQ(r.numres, 0u);
	// A success of an operation the decoder does not know.
	Decode(Words({ 0, 0, 1, 3, 0, 0, 0 }), CMKIT_NFS4_E_OP);
	// Bytes after the last result.
	Decode(Words({ 0, 0, 1, 24, 0, 0 }), CMKIT_NFS4_E_XDR);
}

TEST(Nfs4Decode, HostileLengths)
{
	Decode(Bytes(), CMKIT_NFS4_E_SHORT);
	Decode(Words({ 0, CMKIT_NFS4_MAX_TAG + 1 }), CMKIT_NFS4_E_LEN);
	Decode(Words({ 0, 0xffffffff }), CMKIT_NFS4_E_LEN);
	Decode(Words({ 0, 4, 0 }), CMKIT_NFS4_E_SHORT);
	Decode(Words({ 0, 0, CMKIT_NFS4_MAX_OPS + 1 }), CMKIT_NFS4_E_LEN);
	Decode(Words({ 0, 0, 0xffffffff }), CMKIT_NFS4_E_LEN);
	Decode(Words({ 0, 0, 3, 24, 0 }), CMKIT_NFS4_E_SHORT);
	Decode(Words({ 0, 0, 1, 10, 0, 129 }), CMKIT_NFS4_E_LEN);
	Decode(Words({ 0, 0, 1, 10, 0, 0xfffffffd }), CMKIT_NFS4_E_LEN);
	Decode(Words({ 0, 0, 1, 10, 0, 128 }), CMKIT_NFS4_E_SHORT);
	Bytes fh128 = Cat({ Words({ 0, 0, 1, 10, 0, 128 }), Bytes(128, 0x5a) });
	auto r = Decode(fh128, CMKIT_NFS4_R_OK);
	EXPECT_EQ(r.res[0].fh_len, 128u);
	cmkit_nfs4_compound_res res;
	EXPECT_EQ(cmkit_nfs4_decode_compound(nullptr, 4, 0, 0, &res), CMKIT_NFS4_E_ARG);
	EXPECT_EQ(cmkit_nfs4_decode_compound(fh128.data(), fh128.size(), 0, 0, nullptr),
		  CMKIT_NFS4_E_ARG);
}

// Every proper prefix of a well-formed reply is refused (none decodes as a
// shorter one: numres and the lengths say how much must come), never read past.
TEST(Nfs4Decode, EveryPrefixIsRefused)
{
	const Bytes replies[] = {
		LookupReply(),
		Cat({ Words({ 0, 0, 2, 22, 0, 25, 0, 1, 5 }), Raw("hello"), Bytes(3, 0) }),
		Cat({ Words({ 0, 0, 2, 22, 0, 38, 0, 65536, 2 }), Bytes(8, 1) }),
		Words({ 2, 0, 2, 24, 0, 15, 2 }),
	};
	for (const Bytes &b : replies) {
		Decode(b, CMKIT_NFS4_R_OK);
		for (size_t n = 0; n < b.size(); n++) {
			Bytes cut(b.begin(), b.begin() + n);
			std::vector<cmkit_u8> copy(cut);
			cmkit_nfs4_compound_res res;
			int rc = cmkit_nfs4_decode_compound(copy.empty() ? nullptr : copy.data(),
							    n, 0, 0, &res);
			EXPECT_LT(rc, 0) << n;
			EXPECT_LE(res.len, n);
		}
	}
}

// The whole reply as it comes back: transport header with the write chunk
// nfsd filled, RPC reply, COMPOUND4res with the READ data in the chunk.
TEST(Nfs4Decode, ReadReplyThroughRpcrdma)
{
	Bytes results = Words({ 0, 0, 2, 22, 0, 25, 0, 0, 262144 });
	cmkit_rpcrdma_chunks ch {};
	ch.nr_write = 1;
	ch.write_segs = 1;
	ch.write[0].handle = 0x99;
	ch.write[0].length = 262144;
	ch.write[0].offset = 0x7f0000000000ULL;
	cmkit_rpcrdma_reply rep {};
	rep.hdr.rdma_xid = 0x42;
	rep.hdr.rdma_credit = 64;
	rep.hdr.rdma_proc = CMKIT_RPCRDMA_MSG;
	Bytes msg(1024);
	int n = cmkit_rpcrdma_encode_reply_chunks(msg.data(), msg.size(), &rep, &ch,
						  results.data(), results.size());
	ASSERT_GT(n, 0);
	msg.resize(n);
	cmkit_rpcrdma_reply got {};
	cmkit_rpcrdma_chunks gch {};
	ASSERT_EQ(cmkit_rpcrdma_decode_reply_chunks(msg.data(), msg.size(), &got, &gch),
		  CMKIT_RPCRDMA_OK);
	cmkit_nfs4_compound_res res;
	ASSERT_EQ(cmkit_nfs4_decode_compound(got.results, got.results_len,
					     CMKIT_NFS4_DEC_READ_CHUNK,
					     cmkit_rpcrdma_write_len(&gch), &res),
		  CMKIT_NFS4_R_OK);
	EXPECT_EQ(res.res[1].count, 262144u);
	EXPECT_EQ(res.res[1].in_chunk, 1u);
}

TEST(Nfs4Decode, ResultNames)
{
	EXPECT_STREQ(cmkit_nfs4_result_name(CMKIT_NFS4_R_OK), "OK");
	EXPECT_STREQ(cmkit_nfs4_result_name(CMKIT_NFS4_E_CHUNK), "E_CHUNK");
	EXPECT_STREQ(cmkit_nfs4_result_name(-999), "?");
}

} // namespace
