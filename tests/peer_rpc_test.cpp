// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer's RPC-over-RDMA logic without a device: the client's credit
// window and xid matching (tools/peer/rpc_window.cpp), its send ring,
// completion tally and latency summary, and serve --rpc's answers
// (rpc_responder.cpp) fed to the client as they would arrive.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

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
		e.got.push_back(client->OnReply(e.d.replies[i].bytes, e.d.replies[i].len));
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
	ASSERT_EQ(cmkit_rpcrdma_decode_reply(d.replies[0].bytes, d.replies[0].len, &rep),
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
	ASSERT_EQ(cmkit_rpcrdma_decode_reply(d.replies[0].bytes, d.replies[0].len, &rep),
		  CMKIT_RPCRDMA_E_ERR_VERS);
	m = NullCall(1);
	cmkit_put_be32(m.data() + 16, 1);	// a read list entry
	EXPECT_EQ(answer(m), "err_chunk");
	m = NullCall(1);
	cmkit_put_be32(m.data() + 12, CMKIT_RPCRDMA_NOMSG);
	EXPECT_EQ(answer(m), "err_chunk");
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
	EXPECT_EQ(server.errors(), 5U);
	EXPECT_EQ(server.dropped(), 3U);
	EXPECT_EQ(server.success(), 0U);
}
