// SPDX-License-Identifier: GPL-2.0-only
// Host tests of the RPC-over-RDMA v1 / ONC RPC NULL-call codec in include/cmkit/.
#include <gtest/gtest.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "cmkit/rpcrdma_msg.h"

namespace {

using Bytes = std::vector<cmkit_u8>;

// XDR words, big endian, as a reader of RFC 8166/5531 writes them down.
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

// An opaque body of n bytes, padded with zeros to a multiple of 4.
Bytes Body(size_t n, cmkit_u8 fill = 0xa5)
{
	Bytes b(n, fill);
	b.resize((n + 3) & ~size_t(3), 0);
	return b;
}

const cmkit_u32 kXid = 0x1a2b3c4d;

// RDMA_MSG transport header with three empty chunk lists.
Bytes MsgHdr(cmkit_u32 xid = kXid, cmkit_u32 credits = 64)
{
	return Words({ xid, 1, credits, 0, 0, 0, 0 });
}

int DecodeReply(const Bytes &b, cmkit_rpcrdma_reply *rep)
{
	// An exact-size copy, so that a read past the end is at least out of
	// the vector (the fuzz target checks this with ASan).
	Bytes copy(b);
	int rc = cmkit_rpcrdma_decode_reply(copy.empty() ? nullptr : copy.data(),
					    copy.size(), rep);
	// Pointers into the copy die with it; the tests compare lengths only.
	rep->verf = nullptr;
	rep->results = nullptr;
	return rc;
}

Bytes EncodeReply(const cmkit_rpcrdma_reply &r)
{
	Bytes buf(CMKIT_RPCRDMA_MAX_REPLY_LEN);
	int n = cmkit_rpcrdma_encode_reply(buf.data(), buf.size(), &r);
	EXPECT_GT(n, 0) << cmkit_rpcrdma_strerror(n);
	buf.resize(n > 0 ? n : 0);
	return buf;
}

TEST(RpcrdmaMsg, EncodesTheNullCallByteForByte)
{
	// RFC 8166 section 4.2 transport header, RFC 5531 section 9 call body,
	// written out by hand: xid 0x1a2b3c4d, 32 credits, NFS (100003) v3.
	const cmkit_u8 want[] = {
		0x1a, 0x2b, 0x3c, 0x4d,	// rdma_xid
		0x00, 0x00, 0x00, 0x01,	// rdma_vers 1
		0x00, 0x00, 0x00, 0x20,	// rdma_credit 32
		0x00, 0x00, 0x00, 0x00,	// rdma_proc RDMA_MSG
		0x00, 0x00, 0x00, 0x00,	// read list: absent
		0x00, 0x00, 0x00, 0x00,	// write list: absent
		0x00, 0x00, 0x00, 0x00,	// reply chunk: absent
		0x1a, 0x2b, 0x3c, 0x4d,	// xid
		0x00, 0x00, 0x00, 0x00,	// msg_type CALL
		0x00, 0x00, 0x00, 0x02,	// rpcvers 2
		0x00, 0x01, 0x86, 0xa3,	// prog 100003
		0x00, 0x00, 0x00, 0x03,	// vers 3
		0x00, 0x00, 0x00, 0x00,	// proc 0 (NULL)
		0x00, 0x00, 0x00, 0x00,	// cred flavor AUTH_NONE
		0x00, 0x00, 0x00, 0x00,	// cred length 0
		0x00, 0x00, 0x00, 0x00,	// verf flavor AUTH_NONE
		0x00, 0x00, 0x00, 0x00,	// verf length 0
	};
	static_assert(sizeof(want) == CMKIT_RPCRDMA_NULL_CALL_LEN, "68 bytes");
	Bytes buf(100, 0xee);
	ASSERT_EQ(CMKIT_RPCRDMA_NULL_CALL_LEN,
		  cmkit_rpcrdma_encode_null_call(buf.data(), buf.size(), kXid, 32, 100003, 3));
	EXPECT_EQ(0, std::memcmp(buf.data(), want, sizeof(want)));
	EXPECT_EQ(0xee, buf[sizeof(want)]) << "wrote past the call";
}

TEST(RpcrdmaMsg, RefusesTooSmallABufferForTheCall)
{
	for (size_t len = 0; len < CMKIT_RPCRDMA_NULL_CALL_LEN; len++) {
		Bytes buf(CMKIT_RPCRDMA_NULL_CALL_LEN, 0xee);
		EXPECT_EQ(CMKIT_RPCRDMA_E_NOSPACE,
			  cmkit_rpcrdma_encode_null_call(buf.data(), len, 1, 1, 100003, 3)) << len;
		EXPECT_EQ(Bytes(CMKIT_RPCRDMA_NULL_CALL_LEN, 0xee), buf) << "wrote at " << len;
	}
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_encode_null_call(nullptr, 128, 1, 1, 1, 1));
}

TEST(RpcrdmaMsg, DecodesAHandWrittenSuccessReply)
{
	auto b = Cat(MsgHdr(kXid, 17), Words({ kXid, 1, 0, 0, 0, 0 }));
	ASSERT_EQ(52u, b.size());
	cmkit_rpcrdma_reply rep;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, DecodeReply(b, &rep));
	EXPECT_EQ(kXid, rep.hdr.rdma_xid);
	EXPECT_EQ(1u, rep.hdr.rdma_vers);
	EXPECT_EQ(17u, rep.hdr.rdma_credit);
	EXPECT_EQ(unsigned(CMKIT_RPCRDMA_MSG), rep.hdr.rdma_proc);
	EXPECT_EQ(size_t(CMKIT_RPCRDMA_HDR_LEN), rep.hdr.len);
	EXPECT_EQ(kXid, rep.xid);
	EXPECT_EQ(0u, rep.verf_len);
	EXPECT_EQ(0u, rep.results_len);
	EXPECT_EQ(CMKIT_RPCRDMA_ACCEPTED, cmkit_rpcrdma_result_class(CMKIT_RPCRDMA_OK));
	EXPECT_EQ(CMKIT_RPCRDMA_ERRNO_NONE, cmkit_rpcrdma_result_errno(CMKIT_RPCRDMA_OK));
}

TEST(RpcrdmaMsg, ResultsFollowingASuccessAreHandedBack)
{
	auto b = Cat(Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 0, 0 })), Words({ 7, 8 }));
	Bytes copy(b);
	cmkit_rpcrdma_reply rep;
	ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_decode_reply(copy.data(), copy.size(), &rep));
	ASSERT_EQ(8u, rep.results_len);
	EXPECT_EQ(copy.data() + 52, rep.results);
}

// A server that serves NFS v3 and v4, procedure NULL only, with AUTH_NONE.
cmkit_rpcrdma_reply Serve(const cmkit_rpcrdma_call &c, cmkit_u32 grant)
{
	cmkit_rpcrdma_reply r{};
	r.hdr.rdma_xid = c.hdr.rdma_xid;
	r.hdr.rdma_credit = grant;
	r.hdr.rdma_proc = CMKIT_RPCRDMA_MSG;
	if (c.cred_flavor != CMKIT_RPC_AUTH_NONE) {
		r.reply_stat = CMKIT_RPC_MSG_DENIED;
		r.reject_stat = CMKIT_RPC_AUTH_ERROR;
		r.auth_stat = CMKIT_RPC_AUTH_TOOWEAK;
	} else if (c.prog != CMKIT_RPC_PROG_NFS) {
		r.accept_stat = CMKIT_RPC_PROG_UNAVAIL;
	} else if (c.vers < 3 || c.vers > 4) {
		r.accept_stat = CMKIT_RPC_PROG_MISMATCH;
		r.low = 3;
		r.high = 4;
	} else if (c.proc != 0) {
		r.accept_stat = CMKIT_RPC_PROC_UNAVAIL;
	}
	return r;
}

TEST(RpcrdmaMsg, RoundTripsClientServerClient)
{
	struct {
		cmkit_u32 prog, vers;
		int want;
	} cases[] = {
		{ 100003, 3, CMKIT_RPCRDMA_OK },
		{ 100003, 4, CMKIT_RPCRDMA_OK },
		{ 100005, 3, CMKIT_RPCRDMA_E_PROG_UNAVAIL },
		{ 100003, 2, CMKIT_RPCRDMA_E_PROG_MISMATCH },
	};
	cmkit_u32 xid = 0xfffffff0;
	for (auto &t : cases) {
		Bytes call(CMKIT_RPCRDMA_NULL_CALL_LEN);
		ASSERT_EQ(CMKIT_RPCRDMA_NULL_CALL_LEN,
			  cmkit_rpcrdma_encode_null_call(call.data(), call.size(), ++xid, 128,
							 t.prog, t.vers));
		cmkit_rpcrdma_call c;
		ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_decode_call(call.data(), call.size(), &c));
		EXPECT_EQ(xid, c.hdr.rdma_xid);
		EXPECT_EQ(xid, c.xid);
		EXPECT_EQ(128u, c.hdr.rdma_credit);
		EXPECT_EQ(2u, c.rpcvers);
		EXPECT_EQ(t.prog, c.prog);
		EXPECT_EQ(t.vers, c.vers);
		EXPECT_EQ(0u, c.proc);
		EXPECT_EQ(0u, c.cred_flavor);
		EXPECT_EQ(0u, c.cred_len);
		EXPECT_EQ(0u, c.verf_flavor);
		EXPECT_EQ(0u, c.verf_len);
		EXPECT_EQ(0u, c.args_len);
		EXPECT_EQ(size_t(CMKIT_RPCRDMA_HDR_LEN), c.hdr.len);

		auto reply = EncodeReply(Serve(c, 64));
		cmkit_rpcrdma_reply rep;
		EXPECT_EQ(t.want, DecodeReply(reply, &rep)) << t.prog << " v" << t.vers;
		EXPECT_EQ(xid, rep.hdr.rdma_xid);
		EXPECT_EQ(xid, rep.xid);
		EXPECT_EQ(64u, rep.hdr.rdma_credit);
		if (t.want == CMKIT_RPCRDMA_E_PROG_MISMATCH) {
			EXPECT_EQ(3u, rep.low);
			EXPECT_EQ(4u, rep.high);
		}
	}
}

struct Variant {
	const char *name;
	Bytes bytes;
	int result;
	int cls;
	int err;
};

// Every reply a NULL call can get, written by hand.
std::vector<Variant> HandWrittenVariants()
{
	const int A = CMKIT_RPCRDMA_ACCEPTED, R = CMKIT_RPCRDMA_REJECTED;
	return {
		{ "success", Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 0, 0 })),
		  CMKIT_RPCRDMA_OK, A, CMKIT_RPCRDMA_ERRNO_NONE },
		{ "prog_unavail", Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 0, 1 })),
		  CMKIT_RPCRDMA_E_PROG_UNAVAIL, R, CMKIT_RPCRDMA_EPFNOSUPPORT },
		{ "prog_mismatch", Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 0, 2, 3, 4 })),
		  CMKIT_RPCRDMA_E_PROG_MISMATCH, R, CMKIT_RPCRDMA_EPROTONOSUPPORT },
		{ "proc_unavail", Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 0, 3 })),
		  CMKIT_RPCRDMA_E_PROC_UNAVAIL, R, CMKIT_RPCRDMA_EOPNOTSUPP },
		{ "garbage_args", Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 0, 4 })),
		  CMKIT_RPCRDMA_E_GARBAGE_ARGS, R, CMKIT_RPCRDMA_EIO },
		{ "system_err", Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 0, 5 })),
		  CMKIT_RPCRDMA_E_SYSTEM_ERR, R, CMKIT_RPCRDMA_EIO },
		{ "rpc_mismatch", Cat(MsgHdr(), Words({ kXid, 1, 1, 0, 2, 2 })),
		  CMKIT_RPCRDMA_E_RPC_MISMATCH, R, CMKIT_RPCRDMA_EPROTONOSUPPORT },
		{ "auth_error", Cat(MsgHdr(), Words({ kXid, 1, 1, 1, 5 })),
		  CMKIT_RPCRDMA_E_AUTH_ERROR, R, CMKIT_RPCRDMA_EACCES },
		{ "err_vers", Words({ kXid, 1, 64, 4, 1, 1, 1 }),
		  CMKIT_RPCRDMA_E_ERR_VERS, R, CMKIT_RPCRDMA_EIO },
		{ "err_chunk", Words({ kXid, 1, 64, 4, 2 }),
		  CMKIT_RPCRDMA_E_ERR_CHUNK, R, CMKIT_RPCRDMA_EIO },
		{ "verifier_4", Cat(Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 4 })),
				    Cat(Body(4), Words({ 0 }))),
		  CMKIT_RPCRDMA_OK, A, CMKIT_RPCRDMA_ERRNO_NONE },
		{ "verifier_400", Cat(Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 400 })),
				      Cat(Body(400), Words({ 2, 2, 3 }))),
		  CMKIT_RPCRDMA_E_PROG_MISMATCH, R, CMKIT_RPCRDMA_EPROTONOSUPPORT },
	};
}

TEST(RpcrdmaMsg, DecodesEveryReplyVariantToItsResult)
{
	for (auto &v : HandWrittenVariants()) {
		cmkit_rpcrdma_reply rep;
		int rc = DecodeReply(v.bytes, &rep);
		EXPECT_EQ(v.result, rc) << v.name << ": " << cmkit_rpcrdma_strerror(rc);
		EXPECT_EQ(v.cls, cmkit_rpcrdma_result_class(rc)) << v.name;
		EXPECT_EQ(v.err, cmkit_rpcrdma_result_errno(rc)) << v.name;
		EXPECT_EQ(kXid, rep.hdr.rdma_xid) << v.name;
	}
}

TEST(RpcrdmaMsg, DecodesTheFieldsOfEachVariant)
{
	cmkit_rpcrdma_reply rep;
	ASSERT_EQ(CMKIT_RPCRDMA_E_PROG_MISMATCH,
		  DecodeReply(Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 0, 2, 3, 4 })), &rep));
	EXPECT_EQ(3u, rep.low);
	EXPECT_EQ(4u, rep.high);
	ASSERT_EQ(CMKIT_RPCRDMA_E_RPC_MISMATCH,
		  DecodeReply(Cat(MsgHdr(), Words({ kXid, 1, 1, 0, 2, 2 })), &rep));
	EXPECT_EQ(unsigned(CMKIT_RPC_MSG_DENIED), rep.reply_stat);
	EXPECT_EQ(unsigned(CMKIT_RPC_MISMATCH), rep.reject_stat);
	EXPECT_EQ(2u, rep.low);
	EXPECT_EQ(2u, rep.high);
	for (cmkit_u32 s = 1; s <= CMKIT_RPC_AUTH_STAT_MAX; s++) {
		ASSERT_EQ(CMKIT_RPCRDMA_E_AUTH_ERROR,
			  DecodeReply(Cat(MsgHdr(), Words({ kXid, 1, 1, 1, s })), &rep)) << s;
		EXPECT_EQ(s, rep.auth_stat);
	}
	ASSERT_EQ(CMKIT_RPCRDMA_E_ERR_VERS, DecodeReply(Words({ kXid, 1, 9, 4, 1, 1, 2 }), &rep));
	EXPECT_EQ(unsigned(CMKIT_RPCRDMA_ERR_VERS), rep.rdma_err);
	EXPECT_EQ(1u, rep.low);
	EXPECT_EQ(2u, rep.high);
	EXPECT_EQ(9u, rep.hdr.rdma_credit);
	ASSERT_EQ(CMKIT_RPCRDMA_E_ERR_CHUNK, DecodeReply(Words({ kXid, 1, 9, 4, 2 }), &rep));
	EXPECT_EQ(unsigned(CMKIT_RPCRDMA_ERR_CHUNK), rep.rdma_err);
}

TEST(RpcrdmaMsg, EncoderWritesWhatTheDecoderReadsForEveryVariant)
{
	std::vector<cmkit_rpcrdma_reply> rs;
	cmkit_rpcrdma_reply r{};
	r.hdr.rdma_xid = kXid;
	r.hdr.rdma_credit = 5;
	for (cmkit_u32 s = 0; s <= CMKIT_RPC_SYSTEM_ERR; s++) {
		r.accept_stat = s;
		r.low = s == CMKIT_RPC_PROG_MISMATCH ? 3 : 0;
		r.high = s == CMKIT_RPC_PROG_MISMATCH ? 4 : 0;
		rs.push_back(r);
	}
	r = cmkit_rpcrdma_reply{};
	r.hdr.rdma_xid = kXid;
	r.reply_stat = CMKIT_RPC_MSG_DENIED;
	r.reject_stat = CMKIT_RPC_MISMATCH;
	r.low = r.high = 2;
	rs.push_back(r);
	r.reject_stat = CMKIT_RPC_AUTH_ERROR;
	r.low = r.high = 0;
	r.auth_stat = CMKIT_RPC_AUTH_BADCRED;
	rs.push_back(r);
	r = cmkit_rpcrdma_reply{};
	r.hdr.rdma_xid = kXid;
	r.hdr.rdma_proc = CMKIT_RPCRDMA_ERROR;
	r.rdma_err = CMKIT_RPCRDMA_ERR_VERS;
	r.low = r.high = 1;
	rs.push_back(r);
	r.rdma_err = CMKIT_RPCRDMA_ERR_CHUNK;
	r.low = r.high = 0;
	rs.push_back(r);

	const int want[] = {
		CMKIT_RPCRDMA_OK, CMKIT_RPCRDMA_E_PROG_UNAVAIL, CMKIT_RPCRDMA_E_PROG_MISMATCH,
		CMKIT_RPCRDMA_E_PROC_UNAVAIL, CMKIT_RPCRDMA_E_GARBAGE_ARGS,
		CMKIT_RPCRDMA_E_SYSTEM_ERR, CMKIT_RPCRDMA_E_RPC_MISMATCH,
		CMKIT_RPCRDMA_E_AUTH_ERROR, CMKIT_RPCRDMA_E_ERR_VERS, CMKIT_RPCRDMA_E_ERR_CHUNK,
	};
	ASSERT_EQ(sizeof(want) / sizeof(want[0]), rs.size());
	for (size_t i = 0; i < rs.size(); i++) {
		auto b = EncodeReply(rs[i]);
		cmkit_rpcrdma_reply d;
		ASSERT_EQ(want[i], DecodeReply(b, &d)) << i;
		EXPECT_EQ(rs[i].hdr.rdma_credit, d.hdr.rdma_credit) << i;
		EXPECT_EQ(rs[i].hdr.rdma_proc, d.hdr.rdma_proc) << i;
		EXPECT_EQ(rs[i].rdma_err, d.rdma_err) << i;
		EXPECT_EQ(rs[i].reply_stat, d.reply_stat) << i;
		EXPECT_EQ(rs[i].accept_stat, d.accept_stat) << i;
		EXPECT_EQ(rs[i].reject_stat, d.reject_stat) << i;
		EXPECT_EQ(rs[i].auth_stat, d.auth_stat) << i;
		EXPECT_EQ(rs[i].low, d.low) << i;
		EXPECT_EQ(rs[i].high, d.high) << i;
	}
}

TEST(RpcrdmaMsg, EncodesTheSuccessReplyAsWrittenByHand)
{
	cmkit_rpcrdma_reply r{};
	r.hdr.rdma_xid = kXid;
	r.hdr.rdma_credit = 64;
	EXPECT_EQ(Cat(MsgHdr(kXid, 64), Words({ kXid, 1, 0, 0, 0, 0 })), EncodeReply(r));
	r.hdr.rdma_proc = CMKIT_RPCRDMA_ERROR;
	r.rdma_err = CMKIT_RPCRDMA_ERR_VERS;
	r.low = 1;
	r.high = 1;
	EXPECT_EQ(Words({ kXid, 1, 64, 4, 1, 1, 1 }), EncodeReply(r));
}

TEST(RpcrdmaMsg, TransportProtocolErrorsAreMalformed)
{
	struct {
		const char *name;
		Bytes b;
		int want;
	} cases[] = {
		{ "rdma_vers 0", Words({ kXid, 0, 1, 0, 0, 0, 0, kXid, 1, 0, 0, 0, 0 }),
		  CMKIT_RPCRDMA_E_VERS },
		{ "rdma_vers 2", Words({ kXid, 2, 1, 0, 0, 0, 0, kXid, 1, 0, 0, 0, 0 }),
		  CMKIT_RPCRDMA_E_VERS },
		{ "RDMA_NOMSG", Words({ kXid, 1, 1, 1, 0, 0, 1, 1, 7, 64, 0, 0 }),
		  CMKIT_RPCRDMA_E_PROC },
		{ "RDMA_MSGP", Words({ kXid, 1, 1, 2, 4, 1024, 0, 0, 0 }), CMKIT_RPCRDMA_E_PROC },
		{ "RDMA_DONE", Words({ kXid, 1, 1, 3 }), CMKIT_RPCRDMA_E_PROC },
		{ "rdma_proc 5", Words({ kXid, 1, 1, 5, 0, 0, 0 }), CMKIT_RPCRDMA_E_PROC },
		{ "errcode 3", Words({ kXid, 1, 1, 4, 3 }), CMKIT_RPCRDMA_E_XDR },
		{ "discriminator 2", Words({ kXid, 1, 1, 0, 2, 0, 0, kXid, 1, 0, 0, 0, 0 }),
		  CMKIT_RPCRDMA_E_XDR },
		{ "write discriminator 0x100",
		  Words({ kXid, 1, 1, 0, 0, 0x100, 0, kXid, 1, 0, 0, 0, 0 }), CMKIT_RPCRDMA_E_XDR },
		{ "msg_type CALL", Cat(MsgHdr(), Words({ kXid, 0, 2, 100003, 3, 0, 0, 0, 0, 0 })),
		  CMKIT_RPCRDMA_E_MSG_TYPE },
		{ "msg_type 2", Cat(MsgHdr(), Words({ kXid, 2, 0, 0, 0, 0 })), CMKIT_RPCRDMA_E_XDR },
		{ "reply_stat 2", Cat(MsgHdr(), Words({ kXid, 1, 2, 0, 0, 0 })), CMKIT_RPCRDMA_E_XDR },
		{ "accept_stat 6", Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 0, 6 })), CMKIT_RPCRDMA_E_XDR },
		{ "reject_stat 2", Cat(MsgHdr(), Words({ kXid, 1, 1, 2, 0 })), CMKIT_RPCRDMA_E_XDR },
		{ "auth_stat 0", Cat(MsgHdr(), Words({ kXid, 1, 1, 1, 0 })), CMKIT_RPCRDMA_E_XDR },
		{ "auth_stat 15", Cat(MsgHdr(), Words({ kXid, 1, 1, 1, 15 })), CMKIT_RPCRDMA_E_XDR },
		{ "AUTH_SYS verifier", Cat(MsgHdr(), Words({ kXid, 1, 0, 1, 0, 0 })),
		  CMKIT_RPCRDMA_E_VERF },
	};
	for (auto &t : cases) {
		cmkit_rpcrdma_reply rep;
		int rc = DecodeReply(t.b, &rep);
		EXPECT_EQ(t.want, rc) << t.name << ": " << cmkit_rpcrdma_strerror(rc);
		EXPECT_EQ(CMKIT_RPCRDMA_MALFORMED, cmkit_rpcrdma_result_class(rc)) << t.name;
		EXPECT_EQ(CMKIT_RPCRDMA_EIO, cmkit_rpcrdma_result_errno(rc)) << t.name;
	}
}

TEST(RpcrdmaMsg, XidMismatchBetweenTransportAndRpcIsAnError)
{
	const Bytes rpc_parts[] = {
		Words({ kXid + 1, 1, 0, 0, 0, 0 }),	// success
		Words({ kXid + 1, 1, 0, 0, 0, 1 }),	// prog_unavail
		Words({ kXid + 1, 1, 1, 0, 2, 2 }),	// rpc_mismatch
		Words({ 0, 1, 1, 1, 1 }),		// auth_error
	};
	for (auto &rpc : rpc_parts) {
		cmkit_rpcrdma_reply rep;
		int rc = DecodeReply(Cat(MsgHdr(), rpc), &rep);
		EXPECT_EQ(CMKIT_RPCRDMA_E_XID, rc);
		EXPECT_EQ(CMKIT_RPCRDMA_MALFORMED, cmkit_rpcrdma_result_class(rc));
		EXPECT_EQ(kXid, rep.hdr.rdma_xid);
		EXPECT_NE(kXid, rep.xid);
	}
	// The same on a call.
	Bytes call(CMKIT_RPCRDMA_NULL_CALL_LEN);
	cmkit_rpcrdma_encode_null_call(call.data(), call.size(), kXid, 1, 100003, 3);
	call[CMKIT_RPCRDMA_HDR_LEN + 3] ^= 1;
	cmkit_rpcrdma_call c;
	EXPECT_EQ(CMKIT_RPCRDMA_E_XID, cmkit_rpcrdma_decode_call(call.data(), call.size(), &c));
}

Bytes ReplyWithVerifier(size_t n, cmkit_u32 flavor = CMKIT_RPC_AUTH_NONE)
{
	return Cat(Cat(MsgHdr(), Words({ kXid, 1, 0, flavor, cmkit_u32(n) })),
		   Cat(Body(n), Words({ 0 })));
}

TEST(RpcrdmaMsg, VerifierBodiesUpTo400BytesAreSkippedWithTheirPadding)
{
	for (size_t n : { 0, 1, 2, 3, 4, 5, 399, 400 }) {
		auto b = ReplyWithVerifier(n);
		Bytes copy(b);
		cmkit_rpcrdma_reply rep;
		ASSERT_EQ(CMKIT_RPCRDMA_OK,
			  cmkit_rpcrdma_decode_reply(copy.data(), copy.size(), &rep)) << n;
		EXPECT_EQ(n, rep.verf_len);
		EXPECT_EQ(0u, rep.results_len) << n << ": padding not skipped";
		if (n) {
			ASSERT_EQ(copy.data() + CMKIT_RPCRDMA_HDR_LEN + 20, rep.verf);
			EXPECT_EQ(0xa5, rep.verf[n - 1]);
		} else {
			EXPECT_EQ(nullptr, rep.verf);
		}
		// The encoder writes the same bytes.
		cmkit_rpcrdma_reply r{};
		r.hdr.rdma_xid = kXid;
		r.hdr.rdma_credit = 64;
		r.verf_len = cmkit_u32(n);
		r.verf = copy.data() + CMKIT_RPCRDMA_HDR_LEN + 20;
		EXPECT_EQ(b, EncodeReply(r)) << n;
	}
}

TEST(RpcrdmaMsg, AVerifierOf401BytesIsRefused)
{
	cmkit_rpcrdma_reply rep;
	EXPECT_EQ(CMKIT_RPCRDMA_E_AUTH_LEN, DecodeReply(ReplyWithVerifier(401), &rep));
	// A length that could never fit is refused before the buffer is consulted.
	EXPECT_EQ(CMKIT_RPCRDMA_E_AUTH_LEN,
		  DecodeReply(Cat(MsgHdr(), Words({ kXid, 1, 0, 0, 0xffffffffU, 0 })), &rep));
	Bytes body(401);
	cmkit_rpcrdma_reply r{};
	r.verf_len = 401;
	r.verf = body.data();
	Bytes buf(1024);
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_encode_reply(buf.data(), buf.size(), &r));
}

TEST(RpcrdmaMsg, AVerifierOfAnotherFlavorIsRefusedWhateverItsLength)
{
	for (size_t n : { 0, 4, 400 }) {
		cmkit_rpcrdma_reply rep;
		EXPECT_EQ(CMKIT_RPCRDMA_E_VERF,
			  DecodeReply(ReplyWithVerifier(n, CMKIT_RPC_AUTH_SYS), &rep)) << n;
		EXPECT_EQ(n, rep.verf_len);
	}
}

TEST(RpcrdmaMsg, TruncatingAnyValidReplyAtAnyByteIsShort)
{
	auto variants = HandWrittenVariants();
	variants.push_back({ "verifier_3", ReplyWithVerifier(3), CMKIT_RPCRDMA_OK, 0, 0 });
	for (auto &v : variants) {
		for (size_t len = 0; len < v.bytes.size(); len++) {
			Bytes cut(v.bytes.begin(), v.bytes.begin() + len);
			cmkit_rpcrdma_reply rep;
			EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT, DecodeReply(cut, &rep))
				<< v.name << " cut at " << len;
		}
	}
}

// A reply with every chunk list populated, then a valid RPC reply.
Bytes ReplyWithChunks()
{
	return Cat(Words({ kXid, 1, 8, 0,
			   1, 0, 0x11, 512, 0, 0x1000,		// read: pos 0
			   1, 64, 0x12, 512, 0, 0x2000,		// read: pos 64
			   0,
			   1, 1, 0x21, 4096, 0, 0x3000,		// write: 1 segment
			   1, 3, 0x22, 4096, 0, 0x4000,		// write: 3 segments
			         0x23, 4096, 0, 0x5000,
			         0x24, 4096, 0, 0x6000,
			   0,
			   1, 2, 0x31, 1024, 0, 0x7000,		// reply chunk: 2 segs
			         0x32, 1024, 0, 0x8000 }),
		   Words({ kXid, 1, 0, 0, 0, 0 }));
}

TEST(RpcrdmaMsg, ChunkListsAreWalkedCountedAndRefused)
{
	auto b = ReplyWithChunks();
	cmkit_rpcrdma_reply rep;
	ASSERT_EQ(CMKIT_RPCRDMA_E_CHUNKS, DecodeReply(b, &rep));
	EXPECT_EQ(2u, rep.hdr.read_chunks);
	EXPECT_EQ(2u, rep.hdr.write_chunks);
	EXPECT_EQ(4u, rep.hdr.write_segs);
	EXPECT_EQ(1u, rep.hdr.reply_chunk);
	EXPECT_EQ(2u, rep.hdr.reply_segs);
	EXPECT_EQ(0u, rep.hdr.len) << "a header with chunks is never complete";
	EXPECT_EQ(CMKIT_RPCRDMA_MALFORMED, cmkit_rpcrdma_result_class(CMKIT_RPCRDMA_E_CHUNKS));

	// Each list alone is refused too.
	const Bytes one_each[] = {
		Words({ kXid, 1, 8, 0, 1, 0, 1, 2, 0, 3, 0, 0, 0 }),
		Words({ kXid, 1, 8, 0, 0, 1, 0, 0, 0 }),	// a write chunk of no segments
		Words({ kXid, 1, 8, 0, 0, 0, 1, 0 }),		// a reply chunk of no segments
	};
	for (auto &o : one_each)
		EXPECT_EQ(CMKIT_RPCRDMA_E_CHUNKS, DecodeReply(Cat(o, Words({ kXid, 1, 0, 0, 0, 0 })), &rep));

	// Cut anywhere inside the lists, the reply is short.
	const size_t lists_end = b.size() - 24;
	for (size_t len = 0; len < lists_end; len++) {
		Bytes cut(b.begin(), b.begin() + len);
		EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT, DecodeReply(cut, &rep)) << len;
	}
}

TEST(RpcrdmaMsg, SegmentCountsBeyondTheBufferAreShortNotTrusted)
{
	for (cmkit_u32 n : { 2u, 0x10000000u, 0x7fffffffu, 0xffffffffu }) {
		cmkit_rpcrdma_reply rep;
		// One segment present, n claimed.
		auto w = Words({ kXid, 1, 8, 0, 0, 1, n, 1, 2, 0, 3, 0, 0 });
		EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT, DecodeReply(w, &rep)) << n;
		auto r = Words({ kXid, 1, 8, 0, 0, 0, 1, n, 1, 2, 0, 3 });
		EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT, DecodeReply(r, &rep)) << n;
		cmkit_rpcrdma_call c;
		EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT, cmkit_rpcrdma_decode_call(w.data(), w.size(), &c)) << n;
	}
}

TEST(RpcrdmaMsg, PeekReadsOnlyTheFirstTwelveBytes)
{
	auto b = Cat(MsgHdr(kXid, 99), Words({ kXid, 1, 0, 0, 0, 0 }));
	cmkit_u32 xid = 0, credits = 0;
	EXPECT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_peek(b.data(), CMKIT_RPCRDMA_PEEK_LEN, &xid, &credits));
	EXPECT_EQ(kXid, xid);
	EXPECT_EQ(99u, credits);
	for (size_t len = 0; len < CMKIT_RPCRDMA_PEEK_LEN; len++) {
		xid = credits = 7;
		EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT, cmkit_rpcrdma_peek(b.data(), len, &xid, &credits));
		EXPECT_EQ(7u, xid);
		EXPECT_EQ(7u, credits);
	}
	b[7] = 2;
	EXPECT_EQ(CMKIT_RPCRDMA_E_VERS, cmkit_rpcrdma_peek(b.data(), b.size(), &xid, &credits));
	EXPECT_EQ(kXid, xid);
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_peek(b.data(), b.size(), nullptr, &credits));
	EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT, cmkit_rpcrdma_peek(nullptr, 0, &xid, &credits));
}

TEST(RpcrdmaMsg, ShortFixedHeaderIsShortEvenIfPeekable)
{
	for (size_t len = 0; len < CMKIT_RPCRDMA_FIXED_LEN; len++) {
		Bytes b(len, 0);
		cmkit_rpcrdma_reply rep;
		cmkit_rpcrdma_call c;
		EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT, DecodeReply(b, &rep)) << len;
		EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT,
			  cmkit_rpcrdma_decode_call(len ? b.data() : nullptr, len, &c)) << len;
	}
}

TEST(RpcrdmaMsg, CreditLimitFollowsXprtrdma)
{
	EXPECT_EQ(1u, cmkit_rpcrdma_credit_limit(0, 128));	// don't deadlock
	EXPECT_EQ(1u, cmkit_rpcrdma_credit_limit(1, 128));
	EXPECT_EQ(64u, cmkit_rpcrdma_credit_limit(64, 128));
	EXPECT_EQ(128u, cmkit_rpcrdma_credit_limit(128, 128));
	EXPECT_EQ(128u, cmkit_rpcrdma_credit_limit(129, 128));
	EXPECT_EQ(128u, cmkit_rpcrdma_credit_limit(0xffffffffU, 128));
	EXPECT_EQ(1u, cmkit_rpcrdma_credit_limit(5, 1));
	EXPECT_EQ(1u, cmkit_rpcrdma_credit_limit(5, 0));
	EXPECT_EQ(1u, cmkit_rpcrdma_credit_limit(0, 0));
}

// A call written by hand with credential and verifier bodies of the given sizes.
Bytes CallWithAuth(size_t cred, size_t verf, cmkit_u32 rpcvers = 2)
{
	Bytes b = Cat(MsgHdr(kXid, 32), Words({ kXid, 0, rpcvers, 100003, 4, 0,
						 CMKIT_RPC_AUTH_SYS, cmkit_u32(cred) }));
	b = Cat(b, Body(cred, 0x11));
	b = Cat(b, Words({ 6, cmkit_u32(verf) }));
	return Cat(b, Body(verf, 0x22));
}

TEST(RpcrdmaMsg, CallDecoderTakesAuthBodiesUpTo400Bytes)
{
	for (size_t n : { 0, 4, 7, 400 }) {
		auto b = Cat(CallWithAuth(n, 400 - n), Words({ 0xabcdef }));
		cmkit_rpcrdma_call c;
		ASSERT_EQ(CMKIT_RPCRDMA_OK, cmkit_rpcrdma_decode_call(b.data(), b.size(), &c)) << n;
		EXPECT_EQ(unsigned(CMKIT_RPC_AUTH_SYS), c.cred_flavor);
		EXPECT_EQ(n, c.cred_len);
		EXPECT_EQ(6u, c.verf_flavor);
		EXPECT_EQ(400 - n, c.verf_len);
		if (n) {
			EXPECT_EQ(0x11, c.cred[n - 1]);
		}
		if (n != 400) {
			EXPECT_EQ(0x22, c.verf[400 - n - 1]);
		}
		EXPECT_EQ(4u, c.args_len);
		EXPECT_EQ(b.data() + b.size() - 4, c.args);
		EXPECT_EQ(32u, c.hdr.rdma_credit);
		EXPECT_EQ(4u, c.vers);
	}
	auto b = CallWithAuth(401, 0);
	cmkit_rpcrdma_call c;
	EXPECT_EQ(CMKIT_RPCRDMA_E_AUTH_LEN, cmkit_rpcrdma_decode_call(b.data(), b.size(), &c));
	b = CallWithAuth(0, 401);
	EXPECT_EQ(CMKIT_RPCRDMA_E_AUTH_LEN, cmkit_rpcrdma_decode_call(b.data(), b.size(), &c));
}

TEST(RpcrdmaMsg, CallDecoderRefusesWhatAServerCannotTake)
{
	Bytes good(CMKIT_RPCRDMA_NULL_CALL_LEN);
	cmkit_rpcrdma_encode_null_call(good.data(), good.size(), kXid, 1, 100003, 3);
	struct {
		const char *name;
		size_t off;
		cmkit_u32 word;
		int want;
		bool hdr_done;
	} cases[] = {
		{ "rdma_vers 2", 4, 2, CMKIT_RPCRDMA_E_VERS, false },
		{ "RDMA_NOMSG", 12, 1, CMKIT_RPCRDMA_E_PROC, false },
		{ "RDMA_DONE", 12, 3, CMKIT_RPCRDMA_E_PROC, false },
		{ "RDMA_ERROR", 12, 4, CMKIT_RPCRDMA_E_PROC, false },
		{ "read list discriminator 2", 16, 2, CMKIT_RPCRDMA_E_XDR, false },
		{ "reply chunk present", 24, 1, CMKIT_RPCRDMA_E_SHORT, false },
		{ "msg_type REPLY", 32, 1, CMKIT_RPCRDMA_E_MSG_TYPE, true },
		{ "msg_type 9", 32, 9, CMKIT_RPCRDMA_E_XDR, true },
		{ "rpcvers 3", 36, 3, CMKIT_RPCRDMA_E_RPCVERS, true },
	};
	for (auto &t : cases) {
		Bytes b(good);
		cmkit_put_be32(b.data() + t.off, t.word);
		cmkit_rpcrdma_call c;
		EXPECT_EQ(t.want, cmkit_rpcrdma_decode_call(b.data(), b.size(), &c)) << t.name;
		EXPECT_EQ(t.hdr_done, c.hdr.len != 0) << t.name;
		if (t.want == CMKIT_RPCRDMA_E_RPCVERS) {
			EXPECT_EQ(3u, c.rpcvers);
			EXPECT_EQ(100003u, c.prog);
			EXPECT_EQ(3u, c.vers);
		}
	}
	// A call with a reply chunk (one segment) is walked and refused.
	auto chunked = Cat(Words({ kXid, 1, 1, 0, 0, 0, 1, 1, 5, 4096, 0, 0 }),
			   Bytes(good.begin() + CMKIT_RPCRDMA_HDR_LEN, good.end()));
	cmkit_rpcrdma_call c;
	EXPECT_EQ(CMKIT_RPCRDMA_E_CHUNKS, cmkit_rpcrdma_decode_call(chunked.data(), chunked.size(), &c));
	EXPECT_EQ(1u, c.hdr.reply_chunk);
	EXPECT_EQ(1u, c.hdr.reply_segs);
}

TEST(RpcrdmaMsg, TruncatingTheCallAtAnyByteIsShort)
{
	for (auto b : { CallWithAuth(0, 0), CallWithAuth(5, 400) }) {
		for (size_t len = 0; len < b.size(); len++) {
			Bytes cut(b.begin(), b.begin() + len);
			cmkit_rpcrdma_call c;
			EXPECT_EQ(CMKIT_RPCRDMA_E_SHORT,
				  cmkit_rpcrdma_decode_call(len ? cut.data() : nullptr, len, &c)) << len;
		}
	}
}

TEST(RpcrdmaMsg, ReplyEncoderRefusesBadFieldsAndSmallBuffers)
{
	cmkit_rpcrdma_reply r{};
	Bytes buf(CMKIT_RPCRDMA_MAX_REPLY_LEN);
	auto enc = [&](const cmkit_rpcrdma_reply &x) {
		return cmkit_rpcrdma_encode_reply(buf.data(), buf.size(), &x);
	};
	r.hdr.rdma_proc = CMKIT_RPCRDMA_NOMSG;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r));
	r.hdr.rdma_proc = CMKIT_RPCRDMA_ERROR;
	r.rdma_err = 3;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r));
	r = cmkit_rpcrdma_reply{};
	r.reply_stat = 2;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r));
	r.reply_stat = CMKIT_RPC_MSG_ACCEPTED;
	r.accept_stat = 6;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r));
	r.accept_stat = 0;
	r.verf_len = 4;	// no body given
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r));
	r = cmkit_rpcrdma_reply{};
	r.reply_stat = CMKIT_RPC_MSG_DENIED;
	r.reject_stat = 2;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r));
	r.reject_stat = CMKIT_RPC_AUTH_ERROR;
	r.auth_stat = 0;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r));
	r.auth_stat = 15;
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, enc(r));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_encode_reply(nullptr, 64, &r));
	EXPECT_EQ(CMKIT_RPCRDMA_E_ARG, cmkit_rpcrdma_encode_reply(buf.data(), 64, nullptr));

	// The largest reply fits CMKIT_RPCRDMA_MAX_REPLY_LEN exactly; one byte
	// less is refused without a write.
	Bytes body(400, 1);
	r = cmkit_rpcrdma_reply{};
	r.verf_len = 400;
	r.verf = body.data();
	r.accept_stat = CMKIT_RPC_PROG_MISMATCH;
	EXPECT_EQ(CMKIT_RPCRDMA_MAX_REPLY_LEN, enc(r));
	for (size_t len = 0; len < CMKIT_RPCRDMA_MAX_REPLY_LEN; len++) {
		Bytes small(CMKIT_RPCRDMA_MAX_REPLY_LEN, 0xee);
		EXPECT_EQ(CMKIT_RPCRDMA_E_NOSPACE, cmkit_rpcrdma_encode_reply(small.data(), len, &r));
		EXPECT_EQ(Bytes(CMKIT_RPCRDMA_MAX_REPLY_LEN, 0xee), small) << len;
	}
}

TEST(RpcrdmaMsg, EveryResultHasAClassAnErrnoAndAName)
{
	struct {
		int result, cls, err;
		const char *name;
	} table[] = {
#define R(res, cls, err) { CMKIT_RPCRDMA_##res, CMKIT_RPCRDMA_##cls, CMKIT_RPCRDMA_##err, #res }
		R(OK, ACCEPTED, ERRNO_NONE),
		R(E_SHORT, MALFORMED, EIO),
		R(E_VERS, MALFORMED, EIO),
		R(E_PROC, MALFORMED, EIO),
		R(E_XDR, MALFORMED, EIO),
		R(E_CHUNKS, MALFORMED, EIO),
		R(E_XID, MALFORMED, EIO),
		R(E_MSG_TYPE, MALFORMED, EIO),
		R(E_AUTH_LEN, MALFORMED, EIO),
		R(E_VERF, MALFORMED, EIO),
		R(E_RPCVERS, MALFORMED, EIO),
		R(E_ERR_VERS, REJECTED, EIO),
		R(E_ERR_CHUNK, REJECTED, EIO),
		R(E_PROG_UNAVAIL, REJECTED, EPFNOSUPPORT),
		R(E_PROG_MISMATCH, REJECTED, EPROTONOSUPPORT),
		R(E_PROC_UNAVAIL, REJECTED, EOPNOTSUPP),
		R(E_GARBAGE_ARGS, REJECTED, EIO),
		R(E_SYSTEM_ERR, REJECTED, EIO),
		R(E_RPC_MISMATCH, REJECTED, EPROTONOSUPPORT),
		R(E_AUTH_ERROR, REJECTED, EACCES),
		R(E_NOSPACE, LOCAL, EMSGSIZE),
		R(E_ARG, LOCAL, EINVAL),
#undef R
	};
	std::vector<std::string> names;
	for (auto &t : table) {
		EXPECT_EQ(t.cls, cmkit_rpcrdma_result_class(t.result)) << t.result;
		EXPECT_EQ(t.err, cmkit_rpcrdma_result_errno(t.result)) << t.result;
		std::string name = cmkit_rpcrdma_strerror(t.result);
		EXPECT_NE("unknown result", name) << t.result;
		for (auto &n : names)
			EXPECT_NE(n, name);
		names.push_back(name);
		// The short name is the enumerator's, as the kernel's calls file shows it.
		EXPECT_STREQ(t.name, cmkit_rpcrdma_result_name(t.result)) << t.result;
	}
	EXPECT_STREQ("unknown result", cmkit_rpcrdma_strerror(-99));
	EXPECT_STREQ("E_UNKNOWN", cmkit_rpcrdma_result_name(-99));
	EXPECT_EQ(CMKIT_RPCRDMA_MALFORMED, cmkit_rpcrdma_result_class(-99));
	EXPECT_EQ(CMKIT_RPCRDMA_EIO, cmkit_rpcrdma_result_errno(-99));
}

} // namespace
