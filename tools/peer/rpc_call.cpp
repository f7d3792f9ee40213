// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer call: a user-space RPC-over-RDMA version 1 client sending NULL
// calls on rdma_cm, for tests and for the benchmark against cmkit's
// in-kernel endpoint.
//
// Receives are posted before connecting (the ring plus an allowance, sized
// to the inline receive size announced) and reposted as each is consumed;
// calls go out while the credit window and the send queue allow, signaled
// only every half send queue; each round trip is CLOCK_MONOTONIC from just
// before ibv_post_send() to the reply's receive completion, taken from a
// completion channel (no busy polling).
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cmkit/rpcrdma_cmp.h"
#include "cmkit/rpcrdma_msg.h"
#include "commands.h"
#include "json.h"
#include "messenger.h"
#include "rpc_window.h"

namespace cmkit_peer {

namespace {

constexpr uint32_t kRecvAllowance = 2;	// for unknown-xid replies and the like
constexpr uint32_t kSendSlot = 128;	// a NULL call is 68 bytes

enum class Ending { kDone, kTimeout, kDisconnected, kLocalError };

class Client {
public:
	Client(const Options &o, Conn *conn, rdma_event_channel *ch)
		: o_(o), conn_(conn), ch_(ch), msgr_("call", conn), window_(o.call_credits),
		  inline_send_(o.inline_send), inline_recv_(o.inline_recv)
	{
		// xids differ from one run to the next, as a kernel client's do.
		next_xid_ = static_cast<uint32_t>(NowNs() / 1000) ^
			    (static_cast<uint32_t>(getpid()) << 16);
	}

	bool Prepare();
	bool Connect(Event *last);
	Ending Run();
	void Disconnect();
	int Summarize(Ending end, const Event *not_connected) const;

private:
	bool SendCalls();
	void OnReply(const uint8_t *msg, uint32_t len);
	Json Line(const char *what) const { return Json().Str("role", "call").Str("rpc", what); }

	const Options &o_;
	Conn *conn_;
	rdma_event_channel *ch_;
	Messenger msgr_;
	CallWindow window_;
	uint32_t inline_send_, inline_recv_;
	bool peer_cmp_ = false;
	uint32_t next_xid_;
	uint32_t sent_ = 0;
	bool peer_disconnected_ = false;	// DISCONNECTED came
	uint64_t first_send_ns_ = 0, last_reply_ns_ = 0;
	std::vector<uint64_t> rtt_ns_;
};

bool Client::Prepare()
{
	// Receives sized to what we announce: the negotiation only lowers it.
	const uint32_t ring = window_.ring();
	if (!msgr_.Setup(ring + kRecvAllowance, inline_recv_, ring + kRecvAllowance, kSendSlot,
			 "lower --credits"))
		return false;
	rtt_ns_.reserve(o_.count);
	return true;
}

// Connect with the RFC 8797 private message; true once ESTABLISHED.
bool Client::Connect(Event *last)
{
	std::vector<uint8_t> cmp(CMKIT_RPCRDMA_CMP_LEN);
	cmkit_rpcrdma_cmp_encode(cmp.data(), 0, inline_send_, inline_recv_);
	rdma_conn_param param = ConnParam(cmp);
	if (rdma_connect(conn_->id(), &param)) {
		last->type = RDMA_CM_EVENT_CONNECT_ERROR;
		last->status = -errno;
		Warn("rdma_connect", errno);
		return false;
	}
	if (NextEvent(ch_, TimeoutMs(o_), "call", last) != Wait::kEvent ||
	    last->type != RDMA_CM_EVENT_ESTABLISHED)
		return false;
	peer_cmp_ = cmkit_rpcrdma_cmp_negotiate(last->pdata.data(), last->pdata.size(),
						&inline_send_, &inline_recv_);
	Line("ready")
		.Uint("inline_send", inline_send_)
		.Uint("inline_recv", inline_recv_)
		.Bool("peer_cmp", peer_cmp_)
		.Uint("credits", window_.ring())
		.Uint("recvs", msgr_.recvs())
		.Uint("sends", msgr_.sends())
		.Print();
	return true;
}

bool Client::SendCalls()
{
	uint8_t call[CMKIT_RPCRDMA_NULL_CALL_LEN];

	while (sent_ < o_.count && window_.CanSend() && msgr_.CanSend()) {
		const uint32_t xid = next_xid_++;
		int len = cmkit_rpcrdma_encode_null_call(call, sizeof(call), xid, window_.ring(),
							 o_.program, o_.version);
		if (len < 0) {
			fprintf(stderr, "cmkit-peer call: cannot encode a call: %s\n",
				cmkit_rpcrdma_strerror(len));
			return false;
		}
		const uint64_t now = NowNs();
		if (!first_send_ns_)
			first_send_ns_ = now;
		window_.Add(xid, now);
		if (!msgr_.Send(call, static_cast<uint32_t>(len)))
			return false;
		sent_++;
	}
	return true;
}

void Client::OnReply(const uint8_t *msg, uint32_t len)
{
	const uint64_t now = NowNs();
	const ReplyOutcome r = window_.OnReply(msg, len);
	switch (r.kind) {
	case ReplyOutcome::kDropped:
		Line("dropped").Uint("len", len).Str("peek", ResultName(r.peek)).Print();
		break;
	case ReplyOutcome::kUnknownXid:
		Line("unknown_xid").Uint("xid", r.xid).Uint("grant", r.grant).Print();
		break;
	case ReplyOutcome::kCompleted:
		rtt_ns_.push_back(now - r.sent_ns);
		last_reply_ns_ = now;
		if (o_.verbose || r.cls != CMKIT_RPCRDMA_ACCEPTED)
			Line("reply")
				.Uint("xid", r.xid)
				.Str("result", ResultName(r.result))
				.Str("class", ClassName(r.cls))
				.Uint("grant", r.grant)
				.Uint("credits", window_.limit())
				.Us("rtt_us", static_cast<double>(now - r.sent_ns) / 1000.0)
				.Print();
		break;
	}
}

Ending Client::Run()
{
	const uint64_t timeout_ns = static_cast<uint64_t>(o_.timeout_s) * 1000000000ULL;
	uint64_t idle_since = NowNs();

	for (;;) {
		if (!SendCalls())
			return msgr_.lost() ? Ending::kDisconnected : Ending::kLocalError;
		if (sent_ == o_.count && !window_.outstanding())
			return Ending::kDone;
		// Bounded by the oldest call's deadline, or (when only the send
		// queue holds us) by the timeout from the last progress.
		const uint64_t now = NowNs();
		uint32_t xid;
		uint64_t since = idle_since;
		window_.Oldest(&xid, &since);
		const uint64_t deadline = since + timeout_ns;
		if (now >= deadline) {
			Line("timeout").Uint("xid", window_.outstanding() ? xid : 0).Print();
			return Ending::kTimeout;
		}
		const int wait_ms = static_cast<int>((deadline - now + 999999) / 1000000);
		int ready = WaitFds(ch_->fd, msgr_.completion_fd(), wait_ms);
		if (ready < 0)
			return Ending::kLocalError;
		if (ready)
			idle_since = NowNs();
		if ((ready & kCqReady) &&
		    !msgr_.OnCompletions([this](const uint8_t *msg, uint32_t len) {
			    OnReply(msg, len);
		    }))
			return Ending::kLocalError;
		if (msgr_.lost())
			return Ending::kDisconnected;
		if (ready & kCmReady) {
			Event ev;
			if (!ReadEvent(ch_, "call", &ev))
				return Ending::kLocalError;
			peer_disconnected_ = ev.type == RDMA_CM_EVENT_DISCONNECTED;
			// DISCONNECTED, DEVICE_REMOVAL, ...: nothing else comes now.
			if (sent_ == o_.count && !window_.outstanding())
				return Ending::kDone;
			return Ending::kDisconnected;
		}
	}
}

// Disconnect (answering the peer's, when it went first) and wait, bounded,
// for DISCONNECTED.
void Client::Disconnect()
{
	if (rdma_disconnect(conn_->id())) {
		Warn("rdma_disconnect", errno);
		return;
	}
	Event ev;
	while (!peer_disconnected_ && NextEvent(ch_, TimeoutMs(o_), "call", &ev) == Wait::kEvent)
		peer_disconnected_ = ev.type == RDMA_CM_EVENT_DISCONNECTED;
}

int Client::Summarize(Ending end, const Event *not_connected) const
{
	const char *status = "ok";
	int code = kExitOk;
	if (not_connected) {
		status = "not_connected";
		code = kExitOther;
	} else if (end == Ending::kLocalError) {
		status = "error";
		code = kExitUsage;
	} else if (end == Ending::kDisconnected) {
		status = "disconnected";
		code = kExitDisconnected;
	} else if (end == Ending::kTimeout) {
		status = "timeout";
		code = kExitTimeout;
	} else if (window_.malformed()) {
		status = "malformed";
		code = kExitMalformed;
	} else if (window_.rejected()) {
		status = "rejected";
		code = kExitRejected;
	}

	Json results;
	for (const auto &r : window_.results())
		results.Uint(ResultName(r.first), r.second);
	const LatencySummary l = SummarizeLatencies(rtt_ns_);
	Json j = Line("summary");
	j.Str("status", status)
		.Uint("calls", o_.count)
		.Uint("sent", sent_)
		.Uint("replies", window_.completed())
		.Uint("accepted", window_.accepted())
		.Uint("rejected", window_.rejected())
		.Uint("malformed", window_.malformed())
		.Uint("unknown_xid", window_.unknown_xid())
		.Uint("dropped", window_.dropped())
		.Uint("unanswered", window_.outstanding())
		.Uint("flushed", msgr_.flushed())
		.Uint("wc_errors", msgr_.wc_errors())
		.Uint("send_errors", msgr_.send_errors())
		.Uint("credits", window_.limit())
		.Uint("last_grant", window_.last_grant())
		.Uint("max_outstanding", window_.max_outstanding())
		.Uint("inline_send", inline_send_)
		.Uint("inline_recv", inline_recv_)
		.Obj("results", results)
		.Us("elapsed_us", last_reply_ns_ > first_send_ns_
			? static_cast<double>(last_reply_ns_ - first_send_ns_) / 1000.0 : 0.0)
		.Obj("rtt_us", Json()
				       .Uint("count", l.count)
				       .Us("min", l.min_us)
				       .Us("median", l.median_us)
				       .Us("p99", l.p99_us)
				       .Us("max", l.max_us));
	if (not_connected)
		j.Str("cm_event", rdma_event_str(not_connected->type))
			.Int("cm_status", not_connected->status);
	if (o_.json_latencies) {
		std::string list = "[";
		char buf[32];
		for (size_t i = 0; i < rtt_ns_.size(); i++) {
			snprintf(buf, sizeof(buf), "%s%.1f", i ? "," : "",
				 static_cast<double>(rtt_ns_[i]) / 1000.0);
			list += buf;
		}
		j.Raw("latencies_us", list + "]");
	}
	j.Print();
	return code;
}

} // namespace

int Call(const Options &o)
{
	EventChannel ch = OpenChannel();
	Conn conn;
	if (!ch || !conn.Create(ch.get()))
		return kExitUsage;
	Client client(o, &conn, ch.get());
	Event last;
	switch (ResolveRoute(ch.get(), &conn, o, "call", &last)) {
	case Resolved::kRoute:
		break;
	case Resolved::kError:
		return kExitUsage;
	default:
		return client.Summarize(Ending::kDone, &last);
	}
	if (!client.Prepare())
		return kExitUsage;
	if (!client.Connect(&last))
		return client.Summarize(Ending::kDone, &last);
	const Ending end = client.Run();
	client.Disconnect();
	return client.Summarize(end, nullptr);
}

} // namespace cmkit_peer
