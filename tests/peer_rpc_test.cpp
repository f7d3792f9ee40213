// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer's RPC-over-RDMA logic without a device: the client's credit
// window and xid matching (tools/peer/rpc_window.cpp), its send ring,
// completion tally and latency summary, and serve --rpc's answers
// (rpc_responder.cpp) fed to the client as they would arrive, the RPC
// test program's with their chunks among them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "cmkit/crc32c.h"
#include "cmkit/rpc_testprog.h"
#include "cmkit/rpcrdma_chunk.h"
#include "cmkit/rpcrdma_msg.h"
#include "options.h"
#include "rpc_responder.h"
#include "rpc_window.h"

using namespace cmkit_peer;

namespace {

std::vector<uint8_t> NullCall(uint32_t xid, uint32_t credits = 32, uint32_t prog = 100003,
			      uint32_t vers = 3)
{
	std::vector<uint8_t> b(CMKIT_RPCRDMA_NULL_CALL_LEN);
	EXPECT_EQ(cmkit_rpcrdma_encode_null_call(b.data(), b.size(), xid, credits, prog, vers),
		  CMKIT_RPCRDMA_NULL_CALL_LEN);
	return b;
}

std::vector<uint8_t> Reply(uint32_t xid, uint32_t grant)
{
	cmkit_rpcrdma_reply rep;
	memset(&rep, 0, sizeof(rep));
	rep.hdr.rdma_xid = xid;
	rep.hdr.rdma_credit = grant;
	rep.hdr.rdma_proc = CMKIT_RPCRDMA_MSG;
	std::vector<uint8_t> b(CMKIT_RPCRDMA_MAX_REPLY_LEN);
	int len = cmkit_rpcrdma_encode_reply(b.data(), b.size(), &rep);
	EXPECT_GT(len, 0);
	b.resize(static_cast<size_t>(len));
	return b;
}

ReplyOutcome Deliver(CallWindow *w, const std::vector<uint8_t> &m)
{
	return w->OnReply(m.data(), m.size());
}

// Open a window of @ring to @limit credits with one round trip.
void Open(CallWindow *w, uint32_t limit)
{
	ASSERT_TRUE(w->Add(0xffff0000U, 1));
	ASSERT_EQ(Deliver(w, Reply(0xffff0000U, limit)).kind, ReplyOutcome::kCompleted);
	ASSERT_EQ(w->limit(), limit);
}

Options RpcOptions()
{
	Options o;
	o.cmd = Command::kServe;
	o.rpc = true;
	return o;
}

} // namespace

TEST(PeerCallWindow, OneCreditUntilTheFirstReply)
{
	CallWindow w(32);
	EXPECT_EQ(w.limit(), 1U);
	EXPECT_TRUE(w.CanSend());
	EXPECT_TRUE(w.Add(1, 100));
	EXPECT_FALSE(w.CanSend());
	EXPECT_FALSE(w.Add(2, 101)) << "a second call before any reply";
	EXPECT_EQ(w.outstanding(), 1U);
	ReplyOutcome r = Deliver(&w, Reply(1, 32));
	EXPECT_EQ(r.kind, ReplyOutcome::kCompleted);
	EXPECT_EQ(r.sent_ns, 100U);
	EXPECT_EQ(r.result, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(w.limit(), 32U);
	EXPECT_EQ(w.outstanding(), 0U);
}

TEST(PeerCallWindow, GrantOfZeroIsOne)
{
	CallWindow w(8);
	Open(&w, 8);
	ASSERT_TRUE(w.Add(1, 1));
	ASSERT_TRUE(w.Add(2, 2));
	EXPECT_EQ(Deliver(&w, Reply(1, 0)).kind, ReplyOutcome::kCompleted);
	EXPECT_EQ(w.last_grant(), 0U);
	EXPECT_EQ(w.limit(), 1U);
	EXPECT_FALSE(w.CanSend()) << "call 2 is still out and only one credit remains";
	EXPECT_EQ(Deliver(&w, Reply(2, 0)).kind, ReplyOutcome::kCompleted);
	EXPECT_TRUE(w.CanSend()) << "a grant of 0 must not stop the client for good";
}

TEST(PeerCallWindow, GrantAboveTheRingIsClamped)
{
	CallWindow w(16);
	ASSERT_TRUE(w.Add(1, 1));
	Deliver(&w, Reply(1, 4000000000U));
	EXPECT_EQ(w.last_grant(), 4000000000U);
	EXPECT_EQ(w.limit(), 16U);
	for (uint32_t x = 10; x < 26; x++)
		EXPECT_TRUE(w.Add(x, x));
	EXPECT_FALSE(w.CanSend());
	EXPECT_FALSE(w.Add(99, 99));
	EXPECT_EQ(w.max_outstanding(), 16U);
}

TEST(PeerCallWindow, RingOfZeroCountsAsOne)
{
	CallWindow w(0);
	EXPECT_EQ(w.ring(), 1U);
	ASSERT_TRUE(w.Add(1, 1));
	Deliver(&w, Reply(1, 64));
	EXPECT_EQ(w.limit(), 1U);
}

TEST(PeerCallWindow, RepliesOutOfOrder)
{
	CallWindow w(4);
	Open(&w, 4);
	for (uint32_t x : {10U, 11U, 12U, 13U})
		ASSERT_TRUE(w.Add(x, 1000 + x));
	for (uint32_t x : {12U, 10U, 13U, 11U}) {
		ReplyOutcome r = Deliver(&w, Reply(x, 4));
		EXPECT_EQ(r.kind, ReplyOutcome::kCompleted);
		EXPECT_EQ(r.xid, x);
		EXPECT_EQ(r.sent_ns, 1000 + x) << "the reply must complete its own call";
	}
	EXPECT_EQ(w.outstanding(), 0U);
	EXPECT_EQ(w.completed(), 5U);
	EXPECT_EQ(w.accepted(), 5U);
	EXPECT_EQ(w.unknown_xid(), 0U);
}

TEST(PeerCallWindow, UnknownXidCountedAndDropped)
{
	CallWindow w(4);
	Open(&w, 4);
	ASSERT_TRUE(w.Add(7, 7));
	ReplyOutcome r = Deliver(&w, Reply(8, 1));
	EXPECT_EQ(r.kind, ReplyOutcome::kUnknownXid);
	EXPECT_EQ(r.xid, 8U);
	EXPECT_EQ(w.unknown_xid(), 1U);
	EXPECT_EQ(w.limit(), 4U) << "a grant from an unknown xid must not be applied";
	EXPECT_EQ(w.outstanding(), 1U);
	EXPECT_EQ(w.completed(), 1U);
	// A second reply to a completed call is unknown too.
	EXPECT_EQ(Deliver(&w, Reply(7, 4)).kind, ReplyOutcome::kCompleted);
	EXPECT_EQ(Deliver(&w, Reply(7, 4)).kind, ReplyOutcome::kUnknownXid);
	EXPECT_EQ(w.unknown_xid(), 2U);
	EXPECT_EQ(w.completed(), 2U);
}

TEST(PeerCallWindow, ShortOrOtherVersionDroppedWithoutGrant)
{
	CallWindow w(8);
	Open(&w, 8);
	ASSERT_TRUE(w.Add(5, 5));
	std::vector<uint8_t> m = Reply(5, 2);
	ReplyOutcome r = w.OnReply(m.data(), CMKIT_RPCRDMA_PEEK_LEN - 1);
	EXPECT_EQ(r.kind, ReplyOutcome::kDropped);
	EXPECT_EQ(r.peek, CMKIT_RPCRDMA_E_SHORT);
	cmkit_put_be32(m.data() + 4, 2);	// rdma_vers 2
	r = Deliver(&w, m);
	EXPECT_EQ(r.kind, ReplyOutcome::kDropped);
	EXPECT_EQ(r.peek, CMKIT_RPCRDMA_E_VERS);
	EXPECT_EQ(w.dropped(), 2U);
	EXPECT_EQ(w.limit(), 8U) << "a dropped reply leaves the previous grant in force";
	EXPECT_EQ(w.outstanding(), 1U) << "a dropped reply completes no call";
	EXPECT_EQ(w.OnReply(nullptr, 0).kind, ReplyOutcome::kDropped);
}

TEST(PeerCallWindow, MatchedButMalformedCompletesTheCall)
{
	CallWindow w(8);
	ASSERT_TRUE(w.Add(5, 5));
	std::vector<uint8_t> m = Reply(5, 3);
	ReplyOutcome r = w.OnReply(m.data(), CMKIT_RPCRDMA_FIXED_LEN);	// header only
	EXPECT_EQ(r.kind, ReplyOutcome::kCompleted);
	EXPECT_EQ(r.result, CMKIT_RPCRDMA_E_SHORT);
	EXPECT_EQ(r.cls, CMKIT_RPCRDMA_MALFORMED);
	EXPECT_EQ(w.malformed(), 1U);
	EXPECT_EQ(w.accepted(), 0U);
	EXPECT_EQ(w.limit(), 3U) << "the grant of a matched reply applies";
	EXPECT_EQ(w.results().at(CMKIT_RPCRDMA_E_SHORT), 1U);
}

TEST(PeerCallWindow, OldestOutstanding)
{
	CallWindow w(4);
	uint32_t xid;
	uint64_t t;
	EXPECT_FALSE(w.Oldest(&xid, &t));
	Open(&w, 4);
	w.Add(30, 300);
	w.Add(10, 100);
	w.Add(20, 200);
	ASSERT_TRUE(w.Oldest(&xid, &t));
	EXPECT_EQ(xid, 10U);
	EXPECT_EQ(t, 100U);
	Deliver(&w, Reply(10, 4));
	ASSERT_TRUE(w.Oldest(&xid, &t));
	EXPECT_EQ(xid, 20U);
	EXPECT_FALSE(w.Add(20, 400)) << "an xid already outstanding";
}

TEST(PeerSendRing, SignalsEveryHalfRing)
{
	SendRing r(8);
	std::vector<bool> sig;
	for (int i = 0; i < 8; i++) {
		bool s;
		EXPECT_EQ(r.Take(&s), static_cast<uint32_t>(i));
		sig.push_back(s);
	}
	EXPECT_EQ(sig, (std::vector<bool>{false, false, false, true, false, false, false, true}));
	EXPECT_TRUE(r.Full());
	EXPECT_EQ(r.Complete(3), 4U) << "a completion frees its slot and every older one";
	EXPECT_EQ(r.in_use(), 4U);
	EXPECT_EQ(r.Complete(3), 0U) << "a slot no longer in use";
	EXPECT_EQ(r.Complete(9), 0U);
	bool s;
	EXPECT_EQ(r.Take(&s), 0U) << "slots wrap around";
	EXPECT_EQ(r.Complete(0), 5U);
	EXPECT_EQ(r.in_use(), 0U);
}

TEST(PeerSendRing, FullRingAlwaysHoldsASignaledSend)
{
	for (uint32_t slots = 1; slots <= 40; slots++) {
		SendRing r(slots);
		std::vector<bool> signaled(slots);
		uint64_t sends = 0;
		// Fill, free up to the newest signaled slot, refill: many rounds.
		for (int round = 0; round < 50; round++) {
			while (!r.Full()) {
				bool s;
				uint32_t slot = r.Take(&s);
				signaled[slot] = s;
				sends++;
			}
			int newest = -1;
			for (uint32_t i = 0; i < slots; i++) {
				uint32_t slot = (slots + sends - 1 - i) % slots;
				if (signaled[slot]) {
					newest = static_cast<int>(slot);
					break;
				}
			}
			ASSERT_GE(newest, 0) << slots << " slots: full and nothing signaled";
			ASSERT_GT(r.Complete(static_cast<uint32_t>(newest)), 0U);
		}
	}
}

TEST(PeerCompletionTally, FlushesAreTheEndNotErrors)
{
	CompletionTally t;
	EXPECT_EQ(t.Count(true, true, false), CompletionTally::kSuccess);
	EXPECT_EQ(t.Count(false, true, false), CompletionTally::kSuccess);
	EXPECT_EQ(t.Count(true, false, true), CompletionTally::kFlushed);
	EXPECT_EQ(t.Count(false, false, true), CompletionTally::kFlushed);
	EXPECT_EQ(t.flushed(), 2U);
	EXPECT_EQ(t.errors(), 0U);
	EXPECT_FALSE(t.FailsServer());
}

// The siw race: the client has every reply and disconnects; its FIN lands
// while the server's last Send is between transmission and completion, so
// the Send completes with LOC_QP_OP_ERR, then the receives are flushed.
// The server closes on it, and its run does not fail.
TEST(PeerCompletionTally, SendErrorAtThePeersDisconnectDoesNotFailServe)
{
	CompletionTally t;
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(t.Count(true, true, false), CompletionTally::kSuccess);
	EXPECT_EQ(t.Count(false, false, false), CompletionTally::kError) << "reported";
	for (int i = 0; i < 34; i++)
		ASSERT_EQ(t.Count(true, false, true), CompletionTally::kFlushed);
	EXPECT_EQ(t.send_errors(), 1U);
	EXPECT_EQ(t.recv_errors(), 0U);
	EXPECT_EQ(t.errors(), 1U);
	EXPECT_EQ(t.flushed(), 34U);
	EXPECT_FALSE(t.FailsServer());
}

TEST(PeerCompletionTally, ReceiveErrorFailsServe)
{
	CompletionTally t;
	EXPECT_EQ(t.Count(false, false, false), CompletionTally::kError);
	EXPECT_FALSE(t.FailsServer());
	EXPECT_EQ(t.Count(true, false, false), CompletionTally::kError);
	EXPECT_EQ(t.recv_errors(), 1U);
	EXPECT_EQ(t.send_errors(), 1U);
	EXPECT_EQ(t.errors(), 2U);
	EXPECT_TRUE(t.FailsServer());
}

TEST(PeerLatency, NearestRankStatistics)
{
	EXPECT_EQ(SummarizeLatencies({}).count, 0U);
	LatencySummary one = SummarizeLatencies({2500});
	EXPECT_EQ(one.count, 1U);
	EXPECT_DOUBLE_EQ(one.min_us, 2.5);
	EXPECT_DOUBLE_EQ(one.median_us, 2.5);
	EXPECT_DOUBLE_EQ(one.p99_us, 2.5);
	EXPECT_DOUBLE_EQ(one.max_us, 2.5);

	std::vector<uint64_t> v;
	for (uint64_t i = 100; i >= 1; i--)	// 100..1 us, unsorted
		v.push_back(i * 1000);
	LatencySummary s = SummarizeLatencies(v);
	EXPECT_EQ(s.count, 100U);
	EXPECT_DOUBLE_EQ(s.min_us, 1);
	EXPECT_DOUBLE_EQ(s.median_us, 50);
	EXPECT_DOUBLE_EQ(s.p99_us, 99);
	EXPECT_DOUBLE_EQ(s.max_us, 100);

	LatencySummary three = SummarizeLatencies({3000, 1000, 1000000});
	EXPECT_DOUBLE_EQ(three.median_us, 3);
	EXPECT_DOUBLE_EQ(three.p99_us, 1000);
}

TEST(PeerResultNames, EveryResultNamed)
{
	for (int r = 0; r >= CMKIT_RPCRDMA_E_ARG; r--) {
		std::string name = ResultName(r);
		EXPECT_FALSE(name.empty());
		if (std::string(cmkit_rpcrdma_strerror(r)) != "unknown result") {
			EXPECT_NE(name, "E_UNKNOWN") << r;
		}
	}
	EXPECT_STREQ(ClassName(CMKIT_RPCRDMA_ACCEPTED), "accepted");
	EXPECT_STREQ(ClassName(CMKIT_RPCRDMA_MALFORMED), "malformed");
}

// ---- serve --rpc's answers, taken by the client ------------------------

struct Exchange {
	CallDecision d;
	std::vector<ReplyOutcome> got;	// what the client made of each reply
};

Exchange Roundtrip(RpcResponder *server, CallWindow *client, uint32_t xid,
		   const std::vector<uint8_t> &call)
{
	Exchange e;
	EXPECT_TRUE(client->Add(xid, xid));
	server->OnCall(call.data(), call.size(), &e.d);
	for (unsigned i = 0; i < e.d.nreplies; i++)
		e.got.push_back(client->OnReply(e.d.replies[i].bytes.data(), e.d.replies[i].len));
	return e;
}

Exchange Roundtrip(RpcResponder *server, CallWindow *client, uint32_t xid)
{
	return Roundtrip(server, client, xid, NullCall(xid));
}

TEST(PeerResponder, SuccessGrantsTheCredits)
{
	Options o = RpcOptions();
	o.credits = 64;
	RpcResponder server(o);
	CallWindow client(32);
	Exchange e = Roundtrip(&server, &client, 42);
	EXPECT_STREQ(e.d.result, "success");
	EXPECT_EQ(e.d.decode, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(e.d.call.prog, 100003U);
	EXPECT_EQ(e.d.call.vers, 3U);
	EXPECT_EQ(e.d.call.hdr.rdma_credit, 32U) << "the client asks for its ring";
	ASSERT_EQ(e.got.size(), 1U);
	EXPECT_EQ(e.got[0].kind, ReplyOutcome::kCompleted);
	EXPECT_EQ(e.got[0].result, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(e.got[0].grant, 64U);
	EXPECT_EQ(client.limit(), 32U) << "64 granted, clamped to the ring";
	EXPECT_EQ(e.d.replies[0].len, 52U) << "RDMA_MSG + MSG_ACCEPTED AUTH_NONE SUCCESS";
	EXPECT_EQ(server.calls(), 1U);
	EXPECT_EQ(server.replies(), 1U);
	EXPECT_EQ(server.success(), 1U);
	EXPECT_EQ(server.errors(), 0U);
}

TEST(PeerResponder, CreditsZeroLetsTheClientGoOn)
{
	Options o = RpcOptions();
	o.credits = 0;
	RpcResponder server(o);
	CallWindow client(32);
	for (uint32_t x = 1; x <= 3; x++) {
		Exchange e = Roundtrip(&server, &client, x);
		ASSERT_EQ(e.got.size(), 1U);
		EXPECT_EQ(e.got[0].grant, 0U);
		EXPECT_EQ(client.limit(), 1U);
		EXPECT_TRUE(client.CanSend());
	}
	EXPECT_EQ(client.accepted(), 3U);
}

TEST(PeerResponder, RdmaErrors)
{
	const struct {
		RpcError knob;
		const char *result;
		int client;
	} cases[] = {
		{RpcError::kVers, "err_vers", CMKIT_RPCRDMA_E_ERR_VERS},
		{RpcError::kChunk, "err_chunk", CMKIT_RPCRDMA_E_ERR_CHUNK},
	};
	for (const auto &c : cases) {
		Options o = RpcOptions();
		o.rpc_error = c.knob;
		o.credits = 5;
		RpcResponder server(o);
		CallWindow client(8);
		Exchange e = Roundtrip(&server, &client, 9);
		EXPECT_STREQ(e.d.result, c.result);
		ASSERT_EQ(e.got.size(), 1U);
		EXPECT_EQ(e.got[0].result, c.client) << c.result;
		EXPECT_EQ(e.got[0].cls, CMKIT_RPCRDMA_REJECTED);
		EXPECT_EQ(client.limit(), 5U) << "an RDMA_ERROR's grant applies too";
		EXPECT_EQ(server.errors(), 1U);
		EXPECT_EQ(server.success(), 0U);
	}
	// ERR_VERS names version 1 as both the lowest and the highest.
	Options o = RpcOptions();
	o.rpc_error = RpcError::kVers;
	RpcResponder server(o);
	CallDecision d;
	std::vector<uint8_t> call = NullCall(3);
	server.OnCall(call.data(), call.size(), &d);
	cmkit_rpcrdma_reply rep;
	ASSERT_EQ(cmkit_rpcrdma_decode_reply(d.replies[0].bytes.data(), d.replies[0].len, &rep),
		  CMKIT_RPCRDMA_E_ERR_VERS);
	EXPECT_EQ(rep.low, 1U);
	EXPECT_EQ(rep.high, 1U);
}

TEST(PeerResponder, RpcRefusals)
{
	const struct {
		RpcReject knob;
		const char *result;
		int client;
	} cases[] = {
		{RpcReject::kProg, "prog_unavail", CMKIT_RPCRDMA_E_PROG_UNAVAIL},
		{RpcReject::kProgVers, "prog_mismatch", CMKIT_RPCRDMA_E_PROG_MISMATCH},
		{RpcReject::kProc, "proc_unavail", CMKIT_RPCRDMA_E_PROC_UNAVAIL},
		{RpcReject::kGarbage, "garbage_args", CMKIT_RPCRDMA_E_GARBAGE_ARGS},
		{RpcReject::kSystem, "system_err", CMKIT_RPCRDMA_E_SYSTEM_ERR},
		{RpcReject::kRpcVers, "rpc_mismatch", CMKIT_RPCRDMA_E_RPC_MISMATCH},
		{RpcReject::kAuth, "auth_error", CMKIT_RPCRDMA_E_AUTH_ERROR},
	};
	for (const auto &c : cases) {
		Options o = RpcOptions();
		o.rpc_reject = c.knob;
		RpcResponder server(o);
		CallWindow client(8);
		Exchange e = Roundtrip(&server, &client, 77);
		EXPECT_STREQ(e.d.result, c.result);
		ASSERT_EQ(e.got.size(), 1U) << c.result;
		EXPECT_EQ(e.got[0].kind, ReplyOutcome::kCompleted);
		EXPECT_EQ(e.got[0].result, c.client) << c.result;
		EXPECT_EQ(e.got[0].cls, CMKIT_RPCRDMA_REJECTED) << c.result;
		EXPECT_EQ(client.rejected(), 1U);
	}
}

TEST(PeerResponder, OnlyTheNullProcedureIsServed)
{
	RpcResponder server(RpcOptions());
	CallWindow client(8);
	std::vector<uint8_t> call = NullCall(5);
	cmkit_put_be32(call.data() + CMKIT_RPCRDMA_HDR_LEN + 20, 1);	// proc 1
	Exchange e = Roundtrip(&server, &client, 5, call);
	EXPECT_EQ(e.d.call.proc, 1U);
	EXPECT_STREQ(e.d.result, "proc_unavail");
	ASSERT_EQ(e.got.size(), 1U);
	EXPECT_EQ(e.got[0].result, CMKIT_RPCRDMA_E_PROC_UNAVAIL);
}

TEST(PeerResponder, DropsTheNthCallOnly)
{
	Options o = RpcOptions();
	o.rpc_drop = 2;
	RpcResponder server(o);
	CallWindow client(8);
	Open(&client, 8);
	EXPECT_EQ(Roundtrip(&server, &client, 1).got.size(), 1U);
	Exchange dropped = Roundtrip(&server, &client, 2);
	EXPECT_STREQ(dropped.d.result, "dropped");
	EXPECT_EQ(dropped.d.nreplies, 0U);
	EXPECT_EQ(Roundtrip(&server, &client, 3).got.size(), 1U);
	EXPECT_EQ(server.dropped(), 1U);
	EXPECT_EQ(server.success(), 2U);
	EXPECT_EQ(client.outstanding(), 1U) << "call 2 waits (and times out)";
	uint32_t xid;
	uint64_t t;
	ASSERT_TRUE(client.Oldest(&xid, &t));
	EXPECT_EQ(xid, 2U);
}

TEST(PeerResponder, DisconnectAtTheNthCall)
{
	Options o = RpcOptions();
	o.rpc_disconnect_at = 2;
	RpcResponder server(o);
	CallDecision d;
	std::vector<uint8_t> call = NullCall(1);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_FALSE(d.disconnect);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_TRUE(d.disconnect);
	EXPECT_EQ(d.nreplies, 0U);
	EXPECT_STREQ(d.result, "disconnect");
}

TEST(PeerResponder, BadXidBeforeTheFirstReplyOnly)
{
	Options o = RpcOptions();
	o.rpc_bad_xid = true;
	RpcResponder server(o);
	CallWindow client(8);
	Exchange first = Roundtrip(&server, &client, 100);
	EXPECT_TRUE(first.d.bad_xid);
	ASSERT_EQ(first.got.size(), 2U);
	EXPECT_EQ(first.got[0].kind, ReplyOutcome::kUnknownXid);
	EXPECT_EQ(first.got[0].xid, first.d.bad_xid_value);
	EXPECT_NE(first.d.bad_xid_value, 100U);
	EXPECT_EQ(first.got[1].kind, ReplyOutcome::kCompleted);
	EXPECT_EQ(first.got[1].result, CMKIT_RPCRDMA_OK);
	Exchange second = Roundtrip(&server, &client, 101);
	EXPECT_FALSE(second.d.bad_xid);
	EXPECT_EQ(second.got.size(), 1U);
	EXPECT_EQ(client.unknown_xid(), 1U);
	EXPECT_EQ(client.accepted(), 2U);
	EXPECT_EQ(server.bad_xid(), 1U);
	EXPECT_EQ(server.replies(), 3U);
	EXPECT_EQ(server.success(), 2U);
}

TEST(PeerResponder, CorruptReplies)
{
	const struct {
		RpcCorrupt knob;
		ReplyOutcome::Kind kind;
		int result;	// kCompleted: the client's result; kDropped: the peek's
	} cases[] = {
		{RpcCorrupt::kShort, ReplyOutcome::kCompleted, CMKIT_RPCRDMA_E_SHORT},
		{RpcCorrupt::kXid, ReplyOutcome::kCompleted, CMKIT_RPCRDMA_E_XID},
		{RpcCorrupt::kVers, ReplyOutcome::kDropped, CMKIT_RPCRDMA_E_VERS},
	};
	for (const auto &c : cases) {
		Options o = RpcOptions();
		o.rpc_corrupt = c.knob;
		RpcResponder server(o);
		CallWindow client(8);
		Exchange e = Roundtrip(&server, &client, 55);
		ASSERT_EQ(e.got.size(), 1U);
		EXPECT_EQ(e.got[0].kind, c.kind);
		if (c.kind == ReplyOutcome::kCompleted) {
			EXPECT_EQ(e.got[0].result, c.result);
			EXPECT_EQ(client.malformed(), 1U);
		} else {
			EXPECT_EQ(e.got[0].peek, c.result);
			EXPECT_EQ(client.outstanding(), 1U);
		}
	}
}

TEST(PeerResponder, MalformedCallsAnsweredAsDecodeCallSays)
{
	RpcResponder server(RpcOptions());
	CallDecision d;
	auto answer = [&](std::vector<uint8_t> m) {
		server.OnCall(m.data(), m.size(), &d);
		return std::string(d.result);
	};
	std::vector<uint8_t> m = NullCall(1);
	EXPECT_EQ(answer(std::vector<uint8_t>(m.begin(), m.begin() + 15)), "dropped")
		<< "no transport header: nothing to answer";
	m = NullCall(1);
	cmkit_put_be32(m.data() + 4, 2);
	EXPECT_EQ(answer(m), "err_vers");
	cmkit_rpcrdma_reply rep;
	ASSERT_EQ(cmkit_rpcrdma_decode_reply(d.replies[0].bytes.data(), d.replies[0].len, &rep),
		  CMKIT_RPCRDMA_E_ERR_VERS);
	m = NullCall(1);
	cmkit_put_be32(m.data() + 16, 1);	// a read list entry
	EXPECT_EQ(answer(m), "err_chunk");
	m = NullCall(1);
	cmkit_put_be32(m.data() + 12, CMKIT_RPCRDMA_NOMSG);
	EXPECT_EQ(answer(m), "dropped") << "RDMA_NOMSG without a position-zero chunk";
	m = NullCall(1);
	cmkit_put_be32(m.data() + 12, CMKIT_RPCRDMA_DONE);
	EXPECT_EQ(answer(m), "dropped");
	m = NullCall(1);
	cmkit_put_be32(m.data() + CMKIT_RPCRDMA_HDR_LEN + 8, 3);	// RPC version 3
	EXPECT_EQ(answer(m), "rpc_mismatch");
	m = NullCall(1);
	cmkit_put_be32(m.data() + CMKIT_RPCRDMA_HDR_LEN + 28, 401);	// credential length
	EXPECT_EQ(answer(m), "auth_error");
	m = NullCall(1);
	m.resize(CMKIT_RPCRDMA_HDR_LEN + 12);	// RPC call cut short
	EXPECT_EQ(answer(m), "dropped");
	EXPECT_EQ(server.calls(), 8U);
	EXPECT_EQ(server.malformed(), 8U);
	EXPECT_EQ(server.errors(), 4U);
	EXPECT_EQ(server.dropped(), 4U);
	EXPECT_EQ(server.success(), 0U);
}

// ---- serve --rpc: the RPC test program, with chunks --------------------

namespace {

// A call of the test program: @args inline, @ch's lists (NULL: none).
std::vector<uint8_t> TestProgCall(uint32_t xid, uint32_t proc, const std::vector<uint8_t> &args,
				  const cmkit_rpcrdma_chunks *ch = nullptr)
{
	std::vector<uint8_t> b(CMKIT_RPCRDMA_MAX_HDR_LEN + CMKIT_RPCRDMA_RPC_CALL_LEN + args.size());
	int len = cmkit_rpcrdma_encode_call(b.data(), b.size(), xid, 32, CMKIT_RPC_TESTPROG,
					    CMKIT_RPC_TESTPROG_VERS, proc, ch, args.data(),
					    args.size());
	EXPECT_GT(len, 0);
	b.resize(len > 0 ? static_cast<size_t>(len) : 0);
	return b;
}

std::vector<uint8_t> Words(std::initializer_list<uint32_t> w)
{
	std::vector<uint8_t> b(4 * w.size());
	size_t i = 0;
	for (uint32_t v : w)
		cmkit_put_be32(b.data() + 4 * i++, v);
	return b;
}

// An opaque<> inline: length, bytes, pad.
std::vector<uint8_t> Opaque(const std::vector<uint8_t> &data)
{
	std::vector<uint8_t> b = Words({static_cast<uint32_t>(data.size())});
	b.insert(b.end(), data.begin(), data.end());
	b.resize((b.size() + 3) & ~size_t(3), 0);
	return b;
}

std::vector<uint8_t> Pattern(size_t n, uint8_t salt)
{
	std::vector<uint8_t> b(n);
	for (size_t i = 0; i < n; i++)
		b[i] = static_cast<uint8_t>(i * 7 + salt);
	return b;
}

// A read chunk at the position of an opaque<> argument's bytes, one
// segment per length.
void ReadChunk(cmkit_rpcrdma_chunks *ch, std::initializer_list<uint32_t> lens)
{
	uint64_t addr = 0x10000;
	for (uint32_t l : lens) {
		ch->read_pos[ch->nr_read] = CMKIT_RPCRDMA_RPC_CALL_LEN + 4;
		ch->read[ch->nr_read] = {0x100 + ch->nr_read, l, addr};
		addr += l;
		ch->nr_read++;
	}
}

void WriteChunk(cmkit_rpcrdma_chunks *ch, std::initializer_list<uint32_t> lens)
{
	uint64_t addr = 0x900000;
	ch->nr_write = 1;
	for (uint32_t l : lens) {
		ch->write[ch->write_segs] = {0x200 + ch->write_segs, l, addr};
		addr += l + 0x1000;
		ch->write_segs++;
	}
}

// The reply @d carries (its last), decoded as cmkit's client decodes it
// and checked against the lists the call offered.
struct DecodedReply {
	int rc = 0;
	int check = 0;
	cmkit_rpcrdma_reply rep{};
	cmkit_rpcrdma_chunks got{};
	uint32_t write_len = 0;
};

DecodedReply Decode(const CallDecision &d, const cmkit_rpcrdma_chunks &offered)
{
	DecodedReply r;
	const ServerMsg &m = d.replies[d.nreplies - 1];
	r.rc = cmkit_rpcrdma_decode_reply_chunks(m.bytes.data(), m.len, &r.rep, &r.got);
	r.check = cmkit_rpcrdma_check_reply_chunks(&offered, &r.got, &r.write_len, nullptr);
	return r;
}

Options TestProgOptions(uint32_t inline_send = 4096)
{
	Options o = RpcOptions();
	o.has_cmp = true;
	o.cmp_send = inline_send;
	o.cmp_recv = inline_send;
	return o;
}

} // namespace

TEST(PeerTestProg, InlineEchoFillSink)
{
	RpcResponder server(TestProgOptions());
	cmkit_rpcrdma_chunks none{};
	CallDecision d;

	std::vector<uint8_t> data = Pattern(301, 3);
	std::vector<uint8_t> call = TestProgCall(1, CMKIT_RPC_TESTPROG_ECHO, Opaque(data));
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "success");
	EXPECT_STREQ(d.procedure, "echo");
	EXPECT_FALSE(d.bulk);
	ASSERT_EQ(d.nreplies, 1U);
	DecodedReply r = Decode(d, none);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(std::vector<uint8_t>(r.rep.results, r.rep.results + r.rep.results_len),
		  Opaque(data));

	call = TestProgCall(2, CMKIT_RPC_TESTPROG_FILL, Words({10, 99}));
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "success");
	r = Decode(d, none);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	ASSERT_EQ(r.rep.results_len, 16U) << "length, 10 bytes, 2 of pad";
	EXPECT_EQ(cmkit_get_be32(r.rep.results), 10U);
	for (uint32_t i = 0; i < 10; i++)
		EXPECT_EQ(r.rep.results[4 + i], cmkit_rpc_testprog_byte(99, i)) << i;

	// RFC 3720's example: 32 bytes of zeros have the CRC 0x8a9136aa.
	call = TestProgCall(3, CMKIT_RPC_TESTPROG_SINK, Opaque(std::vector<uint8_t>(32, 0)));
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "success");
	r = Decode(d, none);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	ASSERT_EQ(r.rep.results_len, 8U);
	EXPECT_EQ(cmkit_get_be32(r.rep.results), 32U);
	EXPECT_EQ(cmkit_get_be32(r.rep.results + 4), 0x8a9136aaU);

	EXPECT_EQ(server.procs(), 3U);
	EXPECT_EQ(server.read_bytes(), 0U);
	EXPECT_EQ(server.written_bytes(), 0U);
}

TEST(PeerTestProg, ReadChunkEchoPlan)
{
	RpcResponder server(TestProgOptions());
	cmkit_rpcrdma_chunks ch{};
	ReadChunk(&ch, {1000, 2000});	// what cmkit sends is one segment: take more
	std::vector<uint8_t> call = TestProgCall(7, CMKIT_RPC_TESTPROG_ECHO, Words({3000}), &ch);
	CallDecision d;
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_EQ(d.decode, CMKIT_RPCRDMA_OK);
	ASSERT_TRUE(d.bulk);
	EXPECT_STREQ(d.result, "pending");
	EXPECT_EQ(d.nreplies, 0U) << "no answer before the data is read";
	ASSERT_EQ(d.work.reads.size(), 2U);
	EXPECT_EQ(d.work.reads[0].rkey, 0x100U);
	EXPECT_EQ(d.work.reads[0].remote, 0x10000U);
	EXPECT_EQ(d.work.reads[0].len, 1000U);
	EXPECT_EQ(d.work.reads[0].local, 0U);
	EXPECT_EQ(d.work.reads[1].rkey, 0x101U);
	EXPECT_EQ(d.work.reads[1].len, 2000U);
	EXPECT_EQ(d.work.reads[1].local, 1000U) << "the pieces packed in order";
	EXPECT_EQ(server.success(), 0U);

	// The Reads land; the result goes inline (no write chunk offered).
	std::vector<uint8_t> data = Pattern(3000, 11), bulk(kBulkMax);
	std::copy(data.begin(), data.end(), bulk.begin());
	server.Finish(&d, bulk.data());
	EXPECT_STREQ(d.result, "success");
	EXPECT_EQ(d.read_bytes, 3000U);
	EXPECT_EQ(d.written_bytes, 0U);
	EXPECT_TRUE(d.writes.empty());
	ASSERT_EQ(d.nreplies, 1U);
	cmkit_rpcrdma_chunks none{};
	DecodedReply r = Decode(d, none);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(r.rep.hdr.rdma_xid, 7U);
	EXPECT_EQ(std::vector<uint8_t>(r.rep.results, r.rep.results + r.rep.results_len),
		  Opaque(data));
	EXPECT_LE(d.replies[0].len, 4096U) << "within the client's inline size";
	EXPECT_EQ(server.success(), 1U);
	EXPECT_EQ(server.procs(), 1U);
	EXPECT_EQ(server.read_bytes(), 3000U);
}

TEST(PeerTestProg, ReadChunkEchoIntoAWriteChunk)
{
	RpcResponder server(TestProgOptions());
	cmkit_rpcrdma_chunks ch{};
	ReadChunk(&ch, {65536});
	WriteChunk(&ch, {65536});
	std::vector<uint8_t> call = TestProgCall(8, CMKIT_RPC_TESTPROG_ECHO, Words({65536}), &ch);
	CallDecision d;
	server.OnCall(call.data(), call.size(), &d);
	ASSERT_TRUE(d.bulk);
	ASSERT_EQ(d.work.reads.size(), 1U);
	std::vector<uint8_t> data = Pattern(65536, 5), bulk(kBulkMax);
	std::copy(data.begin(), data.end(), bulk.begin());
	server.Finish(&d, bulk.data());
	ASSERT_EQ(d.writes.size(), 1U);
	EXPECT_EQ(d.writes[0].rkey, 0x200U);
	EXPECT_EQ(d.writes[0].remote, 0x900000U);
	EXPECT_EQ(d.writes[0].len, 65536U);
	EXPECT_EQ(d.writes[0].local, 0U) << "written from where it was read";
	EXPECT_EQ(d.read_bytes, 65536U);
	EXPECT_EQ(d.written_bytes, 65536U);
	DecodedReply r = Decode(d, ch);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	ASSERT_EQ(r.check, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(r.write_len, 65536U);
	ASSERT_EQ(r.rep.results_len, 4U) << "only the length word inline";
	EXPECT_EQ(cmkit_get_be32(r.rep.results), 65536U);
}

TEST(PeerTestProg, WriteChunkFillPlan)
{
	RpcResponder server(TestProgOptions());
	cmkit_rpcrdma_chunks ch{};
	WriteChunk(&ch, {4096, 4096, 4096});	// cmkit offers one segment: take more
	std::vector<uint8_t> call = TestProgCall(9, CMKIT_RPC_TESTPROG_FILL, Words({5000, 42}), &ch);
	CallDecision d;
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.procedure, "fill");
	ASSERT_TRUE(d.bulk);
	EXPECT_TRUE(d.work.reads.empty()) << "nothing to read";
	EXPECT_EQ(d.nreplies, 0U);

	std::vector<uint8_t> bulk(kBulkMax);
	server.Finish(&d, bulk.data());
	EXPECT_STREQ(d.result, "success");
	for (uint32_t i = 0; i < 5000; i++)
		ASSERT_EQ(bulk[i], cmkit_rpc_testprog_byte(42, i)) << i;
	ASSERT_EQ(d.writes.size(), 2U) << "the third segment is not needed";
	EXPECT_EQ(d.writes[0].rkey, 0x200U);
	EXPECT_EQ(d.writes[0].remote, ch.write[0].offset);
	EXPECT_EQ(d.writes[0].len, 4096U);
	EXPECT_EQ(d.writes[0].local, 0U);
	EXPECT_EQ(d.writes[1].rkey, 0x201U);
	EXPECT_EQ(d.writes[1].remote, ch.write[1].offset);
	EXPECT_EQ(d.writes[1].len, 904U);
	EXPECT_EQ(d.writes[1].local, 4096U);
	EXPECT_EQ(d.read_bytes, 0U);
	EXPECT_EQ(d.written_bytes, 5000U);

	DecodedReply r = Decode(d, ch);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	ASSERT_EQ(r.check, CMKIT_RPCRDMA_OK) << "the write list keeps to the offer";
	EXPECT_EQ(r.write_len, 5000U);
	ASSERT_EQ(r.got.write_segs, 3U) << "each offered segment echoed";
	EXPECT_EQ(r.got.write[0].length, 4096U);
	EXPECT_EQ(r.got.write[1].length, 904U);
	EXPECT_EQ(r.got.write[2].length, 0U);
	ASSERT_EQ(r.rep.results_len, 4U);
	EXPECT_EQ(cmkit_get_be32(r.rep.results), 5000U);
	EXPECT_EQ(server.written_bytes(), 5000U);
	EXPECT_EQ(server.procs(), 1U);
}

TEST(PeerTestProg, SinkCrcOverPieces)
{
	RpcResponder server(TestProgOptions());
	std::vector<uint8_t> data = Pattern(5000, 77);
	const uint32_t whole = ~cmkit_crc32c(CMKIT_CRC32C_SEED, data.data(), data.size());

	cmkit_rpcrdma_chunks ch{};
	ReadChunk(&ch, {100, 4, 4096, 800});
	WriteChunk(&ch, {8192});	// SINK has no bulk result: left unused
	std::vector<uint8_t> call = TestProgCall(10, CMKIT_RPC_TESTPROG_SINK, Words({5000}), &ch);
	CallDecision d;
	server.OnCall(call.data(), call.size(), &d);
	ASSERT_TRUE(d.bulk);
	ASSERT_EQ(d.work.reads.size(), 4U);
	std::vector<uint8_t> bulk(kBulkMax);
	for (const BulkMove &m : d.work.reads)	// each Read lands at its place
		std::copy(data.begin() + m.local, data.begin() + m.local + m.len,
			  bulk.begin() + m.local);
	server.Finish(&d, bulk.data());
	EXPECT_TRUE(d.writes.empty());
	EXPECT_EQ(d.read_bytes, 5000U);
	DecodedReply r = Decode(d, ch);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	ASSERT_EQ(r.check, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(r.got.nr_write, 0U);
	ASSERT_EQ(r.rep.results_len, 8U);
	EXPECT_EQ(cmkit_get_be32(r.rep.results), 5000U);
	EXPECT_EQ(cmkit_get_be32(r.rep.results + 4), whole);

	// The same bytes inline give the same CRC.
	call = TestProgCall(11, CMKIT_RPC_TESTPROG_SINK, Opaque(std::vector<uint8_t>(
								 data.begin(), data.begin() + 2000)));
	server.OnCall(call.data(), call.size(), &d);
	cmkit_rpcrdma_chunks none{};
	r = Decode(d, none);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(cmkit_get_be32(r.rep.results + 4),
		  ~cmkit_crc32c(CMKIT_CRC32C_SEED, data.data(), 2000));
}

TEST(PeerTestProg, ErrChunkOnAShortWriteChunk)
{
	RpcResponder server(TestProgOptions());
	CallWindow client(8);
	cmkit_rpcrdma_chunks ch{};
	WriteChunk(&ch, {4096});
	CallDecision d;
	std::vector<uint8_t> call = TestProgCall(12, CMKIT_RPC_TESTPROG_FILL, Words({5000, 1}), &ch);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "err_chunk");
	EXPECT_FALSE(d.bulk) << "nothing moved";
	ASSERT_EQ(d.nreplies, 1U);
	ASSERT_TRUE(client.Add(12, 1));
	EXPECT_EQ(client.OnReply(d.replies[0].bytes.data(), d.replies[0].len).result,
		  CMKIT_RPCRDMA_E_ERR_CHUNK);

	// ECHO's result over the write chunk too.
	cmkit_rpcrdma_chunks both{};
	ReadChunk(&both, {8192});
	WriteChunk(&both, {8188});
	call = TestProgCall(13, CMKIT_RPC_TESTPROG_ECHO, Words({8192}), &both);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "err_chunk");
	EXPECT_TRUE(d.work.reads.empty()) << "refused before anything is read";

	// A result too large to go inline, and no write chunk.
	call = TestProgCall(14, CMKIT_RPC_TESTPROG_FILL, Words({4096, 1}));
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "err_chunk");
	call = TestProgCall(15, CMKIT_RPC_TESTPROG_FILL, Words({4096 - 56, 1}));
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "success") << "28 + 24 + 4 + 4040: just fits 4096";
	EXPECT_EQ(d.replies[0].len, 4096U);
	EXPECT_EQ(server.errors(), 3U);
	EXPECT_EQ(server.success(), 1U);
}

TEST(PeerTestProg, ErrChunkOnAReadChunkOfAnotherLength)
{
	RpcResponder server(TestProgOptions());
	CallDecision d;
	for (uint32_t chunk_len : {996U, 1004U}) {
		cmkit_rpcrdma_chunks ch{};
		ReadChunk(&ch, {chunk_len});
		std::vector<uint8_t> call =
			TestProgCall(20, CMKIT_RPC_TESTPROG_ECHO, Words({1000}), &ch);
		server.OnCall(call.data(), call.size(), &d);
		EXPECT_STREQ(d.result, "err_chunk") << chunk_len;
		EXPECT_FALSE(d.bulk);
		cmkit_rpcrdma_reply rep;
		ASSERT_EQ(cmkit_rpcrdma_decode_reply(d.replies[0].bytes.data(), d.replies[0].len,
						     &rep),
			  CMKIT_RPCRDMA_E_ERR_CHUNK);
	}
	// Split over two segments that fall short together.
	cmkit_rpcrdma_chunks ch{};
	ReadChunk(&ch, {500, 496});
	std::vector<uint8_t> call = TestProgCall(21, CMKIT_RPC_TESTPROG_SINK, Words({1000}), &ch);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "err_chunk");
	// The right length at another position (the length word's own).
	ch = cmkit_rpcrdma_chunks{};
	ReadChunk(&ch, {1000});
	ch.read_pos[0] = CMKIT_RPCRDMA_RPC_CALL_LEN;
	call = TestProgCall(22, CMKIT_RPC_TESTPROG_ECHO, Words({1000}), &ch);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "err_chunk");
	// FILL and NULL have no argument for a read chunk to carry.
	ch = cmkit_rpcrdma_chunks{};
	ReadChunk(&ch, {8});
	call = TestProgCall(23, CMKIT_RPC_TESTPROG_FILL, Words({8, 1}), &ch);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "err_chunk");
	EXPECT_EQ(server.errors(), 5U);
	EXPECT_EQ(server.malformed(), 0U) << "each call decoded";
}

TEST(PeerTestProg, OtherAnswers)
{
	RpcResponder server(TestProgOptions());
	CallWindow client(8);
	CallDecision d;
	// An unknown procedure of the program.
	std::vector<uint8_t> call = TestProgCall(30, CMKIT_RPC_TESTPROG_MIRROR + 1, {});
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "proc_unavail");
	EXPECT_STREQ(d.procedure, "");
	// Arguments short of what they say.
	call = TestProgCall(31, CMKIT_RPC_TESTPROG_ECHO, Words({100, 0}));
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "garbage_args");
	call = TestProgCall(32, CMKIT_RPC_TESTPROG_FILL, Words({100}));
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "garbage_args");
	// More than the bulk buffer holds.
	cmkit_rpcrdma_chunks ch{};
	WriteChunk(&ch, {kBulkMax, 4096});
	call = TestProgCall(33, CMKIT_RPC_TESTPROG_FILL, Words({kBulkMax + 4, 1}), &ch);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "system_err");
	// NULL to the program, with a write chunk it leaves unused.
	call = TestProgCall(34, CMKIT_RPC_TESTPROG_NULL, {}, &ch);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "success");
	EXPECT_STREQ(d.procedure, "null");
	ASSERT_TRUE(client.Add(34, 1));
	EXPECT_EQ(client.OnReply(d.replies[0].bytes.data(), d.replies[0].len).result,
		  CMKIT_RPCRDMA_OK);
	// The knobs come first.
	Options o = TestProgOptions();
	o.rpc_reject = RpcReject::kSystem;
	RpcResponder refusing(o);
	cmkit_rpcrdma_chunks rd{};
	ReadChunk(&rd, {64});
	call = TestProgCall(35, CMKIT_RPC_TESTPROG_ECHO, Words({64}), &rd);
	refusing.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "system_err");
	EXPECT_FALSE(d.bulk);
	EXPECT_EQ(server.procs(), 1U) << "the NULL call";
}

TEST(PeerTestProg, CorruptXidOfAReplyWithAWriteList)
{
	Options o = TestProgOptions();
	o.rpc_corrupt = RpcCorrupt::kXid;
	o.rpc_bad_xid = true;
	RpcResponder server(o);
	cmkit_rpcrdma_chunks ch{};
	WriteChunk(&ch, {4096});
	std::vector<uint8_t> call = TestProgCall(40, CMKIT_RPC_TESTPROG_FILL, Words({100, 3}), &ch);
	CallDecision d;
	server.OnCall(call.data(), call.size(), &d);
	ASSERT_TRUE(d.bulk);
	EXPECT_EQ(d.nreplies, 0U);
	std::vector<uint8_t> bulk(kBulkMax);
	server.Finish(&d, bulk.data());
	ASSERT_EQ(d.nreplies, 2U) << "--rpc-bad-xid's first";
	EXPECT_TRUE(d.bad_xid);
	DecodedReply r = Decode(d, ch);
	EXPECT_EQ(r.rc, CMKIT_RPCRDMA_E_XID) << "the RPC xid after the write list";
}

// ---- position-zero read chunks, reply chunks, MIRROR --------------------

namespace {

// A client's memory, as the server's RDMA Reads and Writes see it: byte
// ranges at remote addresses.
struct ClientMemory {
	std::map<uint64_t, std::vector<uint8_t>> regions;	// address -> bytes

	uint8_t *At(uint64_t addr, uint32_t len)
	{
		for (auto &r : regions) {
			if (addr >= r.first && addr + len <= r.first + r.second.size())
				return r.second.data() + (addr - r.first);
		}
		ADD_FAILURE() << "no client memory at " << addr << " for " << len;
		return nullptr;
	}
	// Land @d's RDMA Reads in @bulk.
	void Read(const CallDecision &d, uint8_t *bulk)
	{
		for (const BulkMove &m : d.work.reads) {
			const uint8_t *p = At(m.remote, m.len);
			if (p)
				memcpy(bulk + m.local, p, m.len);
		}
	}
	// Do @d's RDMA Writes from @bulk.
	void Write(const CallDecision &d, const uint8_t *bulk)
	{
		for (const BulkMove &m : d.writes) {
			uint8_t *p = At(m.remote, m.len);
			if (p)
				memcpy(p, bulk + m.local, m.len);
		}
	}
};

// An RDMA_NOMSG call: the transport header, its read list the
// position-zero chunk over @seg_lens segments (together the RPC call's
// length; the last takes what is left) and @ch's write list and reply
// chunk; the RPC call itself put in @mem at the segments' addresses.
std::vector<uint8_t> NomsgCall(uint32_t xid, uint32_t proc, const std::vector<uint8_t> &args,
			       std::initializer_list<uint32_t> seg_lens, ClientMemory *mem,
			       const cmkit_rpcrdma_chunks *ch = nullptr)
{
	std::vector<uint8_t> rpc(CMKIT_RPCRDMA_RPC_CALL_LEN + args.size());
	EXPECT_EQ(cmkit_rpcrdma_encode_rpc_call(rpc.data(), rpc.size(), xid, CMKIT_RPC_TESTPROG,
						CMKIT_RPC_TESTPROG_VERS, proc, args.data(),
						args.size()),
		  static_cast<int>(rpc.size()));
	cmkit_rpcrdma_chunks lists{};
	if (ch)
		lists = *ch;
	lists.nr_read = 0;
	uint64_t addr = 0x40000;
	uint32_t off = 0;
	size_t i = 0;
	for (uint32_t l : seg_lens) {
		if (++i == seg_lens.size())
			l = static_cast<uint32_t>(rpc.size()) - off;
		lists.read_pos[lists.nr_read] = 0;
		lists.read[lists.nr_read] = {0x300 + lists.nr_read, l, addr};
		lists.nr_read++;
		mem->regions[addr].assign(rpc.begin() + off, rpc.begin() + off + l);
		addr += l + 0x1000;	// apart: each segment its own place
		off += l;
	}
	std::vector<uint8_t> b(CMKIT_RPCRDMA_MAX_HDR_LEN);
	int len = cmkit_rpcrdma_encode_hdr(b.data(), b.size(), xid, CMKIT_RPCRDMA_VERSION, 32,
					   CMKIT_RPCRDMA_NOMSG, &lists);
	EXPECT_GT(len, 0);
	b.resize(len > 0 ? static_cast<size_t>(len) : 0);
	return b;
}

// A reply chunk of one segment per length, its memory in @mem.
void ReplyChunk(cmkit_rpcrdma_chunks *ch, std::initializer_list<uint32_t> lens, ClientMemory *mem)
{
	uint64_t addr = 0x700000;
	ch->has_reply = 1;
	for (uint32_t l : lens) {
		ch->reply[ch->reply_segs] = {0x500 + ch->reply_segs, l, addr};
		mem->regions[addr].assign(l, 0xee);
		addr += l + 0x1000;
		ch->reply_segs++;
	}
}

// A reply in the reply chunk, as cmkit's client takes it: the RDMA_NOMSG
// header, its lists against the offer, then the RPC reply from the chunk's
// memory, the segments' bytes in order.
struct ChunkReply {
	int rc = 0;		// cmkit_rpcrdma_decode_reply_chunks()
	int check = 0;		// cmkit_rpcrdma_check_reply_chunks()
	int rpc = 0;		// cmkit_rpcrdma_decode_rpc_reply()
	uint32_t reply_len = 0;
	cmkit_rpcrdma_chunks got{};
	std::vector<uint8_t> bytes;	// the RPC reply as written
	std::vector<uint8_t> results;
};

ChunkReply DecodeChunkReply(const CallDecision &d, const cmkit_rpcrdma_chunks &offered,
			    ClientMemory *mem)
{
	ChunkReply r;
	const ServerMsg &m = d.replies[d.nreplies - 1];
	cmkit_rpcrdma_reply rep;
	r.rc = cmkit_rpcrdma_decode_reply_chunks(m.bytes.data(), m.len, &rep, &r.got);
	r.check = cmkit_rpcrdma_check_reply_chunks(&offered, &r.got, nullptr, &r.reply_len);
	if (r.rc != CMKIT_RPCRDMA_OK || r.check != CMKIT_RPCRDMA_OK)
		return r;
	for (uint32_t i = 0; i < r.got.reply_segs; i++) {
		const uint8_t *p = mem->At(r.got.reply[i].offset, r.got.reply[i].length);
		if (p)
			r.bytes.insert(r.bytes.end(), p, p + r.got.reply[i].length);
	}
	r.rpc = cmkit_rpcrdma_decode_rpc_reply(r.bytes.data(), r.bytes.size(), rep.hdr.rdma_xid,
					       &rep);
	if (r.rpc == CMKIT_RPCRDMA_OK)
		r.results.assign(rep.results, rep.results + rep.results_len);
	return r;
}

} // namespace

TEST(PeerTestProg, PositionZeroCallReadAndAnswered)
{
	RpcResponder server(TestProgOptions());
	ClientMemory mem;
	std::vector<uint8_t> bulk(kBulkBytes);
	std::vector<uint8_t> data = Pattern(1500, 9);
	std::vector<uint8_t> call = NomsgCall(50, CMKIT_RPC_TESTPROG_MIRROR, Opaque(data),
					      {100, 1000, 0}, &mem);
	CallDecision d;
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_EQ(d.decode, CMKIT_RPCRDMA_OK);
	ASSERT_TRUE(d.bulk);
	EXPECT_TRUE(d.nomsg);
	EXPECT_STREQ(d.result, "pending");
	EXPECT_EQ(d.nreplies, 0U) << "nothing known before the call is read";
	ASSERT_EQ(d.work.reads.size(), 3U) << "every position-zero segment";
	EXPECT_EQ(d.work.reads[0].rkey, 0x300U);
	EXPECT_EQ(d.work.reads[0].len, 100U);
	EXPECT_EQ(d.work.reads[0].local, 0U);
	EXPECT_EQ(d.work.reads[1].rkey, 0x301U);
	EXPECT_EQ(d.work.reads[1].local, 100U);
	EXPECT_EQ(d.work.reads[2].rkey, 0x302U);
	EXPECT_EQ(d.work.reads[2].len, 40U + 4 + 1500 - 1100);
	EXPECT_EQ(d.work.reads[2].local, 1100U) << "the pieces packed in order";
	EXPECT_EQ(server.nomsg_calls(), 1U);

	mem.Read(d, bulk.data());
	server.Finish(&d, bulk.data());
	EXPECT_EQ(d.decode, CMKIT_RPCRDMA_OK);
	EXPECT_STREQ(d.result, "success");
	EXPECT_STREQ(d.procedure, "mirror");
	EXPECT_EQ(d.call.hdr.rdma_xid, 50U);
	EXPECT_EQ(d.call.proc, CMKIT_RPC_TESTPROG_MIRROR);
	EXPECT_EQ(d.read_bytes, 40U + 4 + 1500) << "the whole call";
	EXPECT_TRUE(d.writes.empty());
	ASSERT_EQ(d.nreplies, 1U);
	cmkit_rpcrdma_chunks none{};
	DecodedReply r = Decode(d, none);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(r.rep.hdr.rdma_proc, CMKIT_RPCRDMA_MSG) << "no reply chunk: inline";
	EXPECT_EQ(std::vector<uint8_t>(r.rep.results, r.rep.results + r.rep.results_len),
		  Opaque(data));

	// Any procedure may come so: FILL's result into the write chunk it
	// offers, SINK's CRC over what came in the chunk.
	cmkit_rpcrdma_chunks wr{};
	WriteChunk(&wr, {4096});
	call = NomsgCall(51, CMKIT_RPC_TESTPROG_FILL, Words({3000, 7}), {0}, &mem, &wr);
	server.OnCall(call.data(), call.size(), &d);
	ASSERT_TRUE(d.bulk);
	mem.Read(d, bulk.data());
	server.Finish(&d, bulk.data());
	EXPECT_STREQ(d.result, "success");
	EXPECT_STREQ(d.procedure, "fill");
	ASSERT_EQ(d.writes.size(), 1U);
	EXPECT_EQ(d.writes[0].len, 3000U);
	for (uint32_t i = 0; i < 3000; i++)
		ASSERT_EQ(bulk[d.writes[0].local + i], cmkit_rpc_testprog_byte(7, i)) << i;
	r = Decode(d, wr);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	ASSERT_EQ(r.check, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(r.write_len, 3000U);

	call = NomsgCall(52, CMKIT_RPC_TESTPROG_SINK, Opaque(data), {600, 0}, &mem);
	server.OnCall(call.data(), call.size(), &d);
	mem.Read(d, bulk.data());
	server.Finish(&d, bulk.data());
	EXPECT_STREQ(d.result, "success");
	r = Decode(d, none);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	ASSERT_EQ(r.rep.results_len, 8U);
	EXPECT_EQ(cmkit_get_be32(r.rep.results), 1500U);
	EXPECT_EQ(cmkit_get_be32(r.rep.results + 4),
		  ~cmkit_crc32c(CMKIT_CRC32C_SEED, data.data(), data.size()));

	// A call that does not decode from the chunk: decode_call()'s table.
	call = NomsgCall(53, CMKIT_RPC_TESTPROG_NULL, {}, {0}, &mem);
	server.OnCall(call.data(), call.size(), &d);
	mem.Read(d, bulk.data());
	cmkit_put_be32(bulk.data() + 8, 3);	// RPC version 3
	server.Finish(&d, bulk.data());
	EXPECT_EQ(d.decode, CMKIT_RPCRDMA_E_RPCVERS);
	EXPECT_STREQ(d.result, "rpc_mismatch");
	call = NomsgCall(54, CMKIT_RPC_TESTPROG_NULL, {}, {0}, &mem);
	server.OnCall(call.data(), call.size(), &d);
	mem.Read(d, bulk.data());
	cmkit_put_be32(bulk.data(), 99);	// another xid than the transport's
	server.Finish(&d, bulk.data());
	EXPECT_EQ(d.decode, CMKIT_RPCRDMA_E_XID);
	EXPECT_STREQ(d.result, "dropped");
	EXPECT_EQ(d.nreplies, 0U);

	EXPECT_EQ(server.nomsg_calls(), 5U);
	EXPECT_EQ(server.procs(), 3U);
	EXPECT_EQ(server.malformed(), 2U);
	EXPECT_EQ(server.read_bytes(), 2U * (44 + 1500) + 48 + 40) << "the chunks read";
}

TEST(PeerTestProg, ReplyChunkWrittenWithLengthsAndNomsgHeader)
{
	RpcResponder server(TestProgOptions(1024));
	ClientMemory mem;
	std::vector<uint8_t> bulk(kBulkBytes);
	std::vector<uint8_t> data = Pattern(5000, 21);	// a reply well over 1024

	// A position-zero MIRROR call whose reply goes into the reply chunk.
	cmkit_rpcrdma_chunks rc{};
	ReplyChunk(&rc, {4096, 4096, 4096}, &mem);
	std::vector<uint8_t> call =
		NomsgCall(60, CMKIT_RPC_TESTPROG_MIRROR, Opaque(data), {2000, 0}, &mem, &rc);
	CallDecision d;
	server.OnCall(call.data(), call.size(), &d);
	ASSERT_TRUE(d.bulk);
	mem.Read(d, bulk.data());
	server.Finish(&d, bulk.data());
	EXPECT_STREQ(d.result, "success");
	const uint32_t rpc_len = 24 + 4 + 5000;
	ASSERT_EQ(d.writes.size(), 2U) << "the third segment is not needed";
	EXPECT_EQ(d.writes[0].rkey, 0x500U);
	EXPECT_EQ(d.writes[0].remote, rc.reply[0].offset);
	EXPECT_EQ(d.writes[0].len, 4096U);
	EXPECT_EQ(d.writes[0].local, 0U);
	EXPECT_EQ(d.writes[1].rkey, 0x501U);
	EXPECT_EQ(d.writes[1].remote, rc.reply[1].offset);
	EXPECT_EQ(d.writes[1].len, rpc_len - 4096);
	EXPECT_EQ(d.writes[1].local, 4096U);
	EXPECT_EQ(d.reply_bytes, rpc_len);
	EXPECT_EQ(d.written_bytes, 0U);
	mem.Write(d, bulk.data());

	ASSERT_EQ(d.nreplies, 1U);
	const ServerMsg &m = d.replies[0];
	EXPECT_EQ(cmkit_get_be32(m.bytes.data() + 12), CMKIT_RPCRDMA_NOMSG);
	EXPECT_EQ(m.len, 16U + 4 + 4 + 8 + 3 * 16) << "the header alone: lists, no RPC reply";
	ChunkReply r = DecodeChunkReply(d, rc, &mem);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	ASSERT_EQ(r.check, CMKIT_RPCRDMA_OK) << "the reply chunk keeps to the offer";
	EXPECT_EQ(r.got.nr_read, 0U);
	EXPECT_EQ(r.got.nr_write, 0U);
	ASSERT_EQ(r.got.reply_segs, 3U) << "each offered segment echoed";
	EXPECT_EQ(r.got.reply[0].length, 4096U);
	EXPECT_EQ(r.got.reply[1].length, rpc_len - 4096);
	EXPECT_EQ(r.got.reply[2].length, 0U);
	EXPECT_EQ(r.reply_len, rpc_len);
	ASSERT_EQ(r.rpc, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(r.results, Opaque(data));

	// An inline ECHO with a reply chunk (and a write chunk, left unused):
	// the reply chunk whenever one is offered.
	cmkit_rpcrdma_chunks both{};
	WriteChunk(&both, {8192});
	ReplyChunk(&both, {600}, &mem);
	std::vector<uint8_t> small = Pattern(500, 1);
	call = TestProgCall(61, CMKIT_RPC_TESTPROG_ECHO, Opaque(small), &both);
	server.OnCall(call.data(), call.size(), &d);
	ASSERT_TRUE(d.bulk) << "the reply chunk needs the bulk buffer";
	EXPECT_TRUE(d.work.reads.empty());
	server.Finish(&d, bulk.data());
	EXPECT_STREQ(d.result, "success");
	ASSERT_EQ(d.writes.size(), 1U);
	EXPECT_EQ(d.writes[0].rkey, 0x500U);
	mem.Write(d, bulk.data());
	r = DecodeChunkReply(d, both, &mem);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	ASSERT_EQ(r.check, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(r.got.nr_write, 0U);
	EXPECT_EQ(r.reply_len, 24U + 4 + 500);
	ASSERT_EQ(r.rpc, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(r.results, Opaque(small));
	EXPECT_EQ(d.written_bytes, 0U);

	// NULL's empty SUCCESS too.
	cmkit_rpcrdma_chunks one{};
	ReplyChunk(&one, {64}, &mem);
	call = TestProgCall(62, CMKIT_RPC_TESTPROG_NULL, {}, &one);
	server.OnCall(call.data(), call.size(), &d);
	ASSERT_TRUE(d.bulk);
	server.Finish(&d, bulk.data());
	mem.Write(d, bulk.data());
	r = DecodeChunkReply(d, one, &mem);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	ASSERT_EQ(r.check, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(r.reply_len, 24U);
	EXPECT_EQ(r.rpc, CMKIT_RPCRDMA_OK);

	EXPECT_EQ(server.reply_chunks(), 3U);
	EXPECT_EQ(server.reply_bytes(), rpc_len + 528U + 24U);
	EXPECT_EQ(server.success(), 3U);
}

TEST(PeerTestProg, TooLargeForInlineOrTheReplyChunkIsErrChunk)
{
	RpcResponder server(TestProgOptions(1024));
	CallWindow client(8);
	ClientMemory mem;
	std::vector<uint8_t> bulk(kBulkBytes);
	CallDecision d;
	auto rdma_error = [&](uint32_t xid) {
		EXPECT_STREQ(d.result, "err_chunk") << xid;
		EXPECT_TRUE(d.writes.empty()) << xid;
		if (!client.Add(xid, xid) || d.nreplies != 1)
			return 0;
		return client.OnReply(d.replies[0].bytes.data(), d.replies[0].len).result;
	};

	// No reply chunk, and the reply over the client's inline size.
	std::vector<uint8_t> call =
		NomsgCall(70, CMKIT_RPC_TESTPROG_MIRROR, Opaque(Pattern(2000, 2)), {0}, &mem);
	server.OnCall(call.data(), call.size(), &d);
	mem.Read(d, bulk.data());
	server.Finish(&d, bulk.data());
	EXPECT_EQ(rdma_error(70), CMKIT_RPCRDMA_E_ERR_CHUNK);
	// MIRROR's result is not DDP-eligible: a write chunk does not help.
	cmkit_rpcrdma_chunks wr{};
	WriteChunk(&wr, {4096});
	call = TestProgCall(71, CMKIT_RPC_TESTPROG_MIRROR, Opaque(Pattern(2000, 2)), &wr);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_FALSE(d.bulk);
	EXPECT_EQ(rdma_error(71), CMKIT_RPCRDMA_E_ERR_CHUNK);
	// Just fits: 28 + 24 + 4 + 968 = 1024.
	call = TestProgCall(72, CMKIT_RPC_TESTPROG_MIRROR, Opaque(Pattern(968, 2)));
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "success");
	EXPECT_EQ(d.replies[0].len, 1024U);

	// A reply chunk too small for the reply, by one byte: refused before
	// anything is read or written.
	cmkit_rpcrdma_chunks rc{};
	ReplyChunk(&rc, {1000, 1027}, &mem);	// 24 + 4 + 2000 = 2028
	call = TestProgCall(73, CMKIT_RPC_TESTPROG_MIRROR, Opaque(Pattern(2000, 2)), &rc);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_FALSE(d.bulk);
	EXPECT_EQ(rdma_error(73), CMKIT_RPCRDMA_E_ERR_CHUNK);
	// The same for a call read from its position-zero chunk, and NULL.
	call = NomsgCall(74, CMKIT_RPC_TESTPROG_MIRROR, Opaque(Pattern(2000, 2)), {0}, &mem, &rc);
	server.OnCall(call.data(), call.size(), &d);
	ASSERT_TRUE(d.bulk);
	mem.Read(d, bulk.data());
	server.Finish(&d, bulk.data());
	EXPECT_EQ(rdma_error(74), CMKIT_RPCRDMA_E_ERR_CHUNK);
	cmkit_rpcrdma_chunks tiny{};
	ReplyChunk(&tiny, {20}, &mem);
	call = TestProgCall(75, CMKIT_RPC_TESTPROG_NULL, {}, &tiny);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_EQ(rdma_error(75), CMKIT_RPCRDMA_E_ERR_CHUNK);
	// One more byte of chunk and it goes.
	cmkit_rpcrdma_chunks enough{};
	ReplyChunk(&enough, {1000, 1028}, &mem);
	call = TestProgCall(76, CMKIT_RPC_TESTPROG_MIRROR, Opaque(Pattern(2000, 2)), &enough);
	server.OnCall(call.data(), call.size(), &d);
	server.Finish(&d, bulk.data());
	EXPECT_STREQ(d.result, "success");
	EXPECT_EQ(d.reply_bytes, 2028U);

	// A position-zero chunk over the bulk buffer (svcrdma: over its page
	// budget).
	cmkit_rpcrdma_chunks big{};
	big.nr_read = 2;
	big.read[0] = {0x300, kBulkBytes, 0x40000};
	big.read[1] = {0x301, 1, 0x80000000};
	std::vector<uint8_t> hdr(CMKIT_RPCRDMA_MAX_HDR_LEN);
	int len = cmkit_rpcrdma_encode_hdr(hdr.data(), hdr.size(), 77, CMKIT_RPCRDMA_VERSION, 32,
					   CMKIT_RPCRDMA_NOMSG, &big);
	ASSERT_GT(len, 0);
	server.OnCall(hdr.data(), static_cast<size_t>(len), &d);
	EXPECT_FALSE(d.bulk);
	EXPECT_EQ(rdma_error(77), CMKIT_RPCRDMA_E_ERR_CHUNK);
	EXPECT_EQ(server.errors(), 6U);
	EXPECT_EQ(server.reply_chunks(), 1U);
}

TEST(PeerTestProg, NomsgWithoutAPositionZeroChunkIsDropped)
{
	RpcResponder server(TestProgOptions());
	CallDecision d;
	auto nomsg = [&](const cmkit_rpcrdma_chunks &ch) {
		std::vector<uint8_t> b(CMKIT_RPCRDMA_MAX_HDR_LEN);
		int len = cmkit_rpcrdma_encode_hdr(b.data(), b.size(), 80, CMKIT_RPCRDMA_VERSION,
						   32, CMKIT_RPCRDMA_NOMSG, &ch);
		EXPECT_GT(len, 0);
		server.OnCall(b.data(), len > 0 ? static_cast<size_t>(len) : 0, &d);
		return std::string(d.result);
	};
	// No read list at all, or a read chunk at another position only:
	// svcrdma finds no call after the header, and drops it.
	cmkit_rpcrdma_chunks ch{};
	EXPECT_EQ(nomsg(ch), "dropped");
	EXPECT_EQ(d.decode, CMKIT_RPCRDMA_E_CHUNKS);
	EXPECT_EQ(d.nreplies, 0U);
	EXPECT_FALSE(d.bulk);
	ReadChunk(&ch, {100});
	EXPECT_EQ(nomsg(ch), "dropped");
	EXPECT_EQ(d.nreplies, 0U);
	// With a reply chunk to answer into, still nothing.
	ClientMemory mem;
	ReplyChunk(&ch, {4096}, &mem);
	EXPECT_EQ(nomsg(ch), "dropped");
	EXPECT_EQ(server.dropped(), 3U);
	EXPECT_EQ(server.malformed(), 3U);
	EXPECT_EQ(server.nomsg_calls(), 0U);

	// Lists that are bad in themselves are ERR_CHUNK, RDMA_NOMSG or not.
	std::vector<uint8_t> b(CMKIT_RPCRDMA_MAX_HDR_LEN);
	cmkit_rpcrdma_chunks one{};
	ReadChunk(&one, {100});
	int len = cmkit_rpcrdma_encode_hdr(b.data(), b.size(), 81, CMKIT_RPCRDMA_VERSION, 32,
					   CMKIT_RPCRDMA_NOMSG, &one);
	ASSERT_GT(len, 0);
	cmkit_put_be32(b.data() + 20, 2);	// a read position not a multiple of 4
	server.OnCall(b.data(), static_cast<size_t>(len), &d);
	EXPECT_STREQ(d.result, "err_chunk");
	// A position-zero chunk with a read chunk elsewhere: not taken here.
	cmkit_rpcrdma_chunks two{};
	two.nr_read = 2;
	two.read_pos[1] = 44;
	two.read[0] = {0x300, 44, 0x40000};
	two.read[1] = {0x301, 100, 0x50000};
	EXPECT_EQ(nomsg(two), "err_chunk");
	EXPECT_EQ(server.errors(), 2U);
	EXPECT_EQ(server.nomsg_calls(), 0U);
}

TEST(PeerTestProg, MirrorInline)
{
	RpcResponder server(TestProgOptions());
	cmkit_rpcrdma_chunks none{};
	std::vector<uint8_t> data = Pattern(777, 4);
	std::vector<uint8_t> call = TestProgCall(90, CMKIT_RPC_TESTPROG_MIRROR, Opaque(data));
	CallDecision d;
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "success");
	EXPECT_STREQ(d.procedure, "mirror");
	EXPECT_FALSE(d.bulk);
	EXPECT_FALSE(d.nomsg);
	DecodedReply r = Decode(d, none);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(r.rep.hdr.rdma_proc, CMKIT_RPCRDMA_MSG);
	EXPECT_EQ(std::vector<uint8_t>(r.rep.results, r.rep.results + r.rep.results_len),
		  Opaque(data));

	// A write chunk offered is left unused: the result is not DDP-eligible.
	cmkit_rpcrdma_chunks wr{};
	WriteChunk(&wr, {4096});
	call = TestProgCall(91, CMKIT_RPC_TESTPROG_MIRROR, Opaque(data), &wr);
	server.OnCall(call.data(), call.size(), &d);
	EXPECT_STREQ(d.result, "success");
	EXPECT_FALSE(d.bulk);
	r = Decode(d, wr);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	ASSERT_EQ(r.check, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(r.got.nr_write, 0U);
	EXPECT_EQ(std::vector<uint8_t>(r.rep.results, r.rep.results + r.rep.results_len),
		  Opaque(data));

	// Its argument in a read chunk is taken (svcrdma pulls any read chunk
	// in), the result inline.
	cmkit_rpcrdma_chunks rd{};
	ReadChunk(&rd, {777});
	call = TestProgCall(92, CMKIT_RPC_TESTPROG_MIRROR, Words({777}), &rd);
	server.OnCall(call.data(), call.size(), &d);
	ASSERT_TRUE(d.bulk);
	std::vector<uint8_t> bulk(kBulkBytes);
	std::copy(data.begin(), data.end(), bulk.begin());
	server.Finish(&d, bulk.data());
	EXPECT_STREQ(d.result, "success");
	r = Decode(d, none);
	ASSERT_EQ(r.rc, CMKIT_RPCRDMA_OK);
	EXPECT_EQ(std::vector<uint8_t>(r.rep.results, r.rep.results + r.rep.results_len),
		  Opaque(data));
	EXPECT_EQ(server.procs(), 3U);
	EXPECT_EQ(server.written_bytes(), 0U);
	EXPECT_EQ(server.reply_chunks(), 0U);
}
