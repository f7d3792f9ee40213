// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer serve --rpc (see rpc_serve.h).
#include "rpc_serve.h"

#include <algorithm>

#include "cmkit/rpcrdma_cmp.h"
#include "json.h"

namespace cmkit_peer {

namespace {

// Receives beyond the credit grant, as xprtrdma keeps a few for its
// backchannel: here they absorb a reply-less message or two.
constexpr uint32_t kRecvAllowance = 2;
// The most receives a grant posts by itself (--rpc-recvs posts more).
constexpr uint32_t kAutoRecvMax = 1024;
// RDMA Reads or Writes outstanding at once: one bulk call's, one per
// segment of its read or write chunk.
constexpr uint32_t kRdmaWrs = CMKIT_RPCRDMA_MAX_SEGS;

const char *CorruptName(RpcCorrupt c)
{
	switch (c) {
	case RpcCorrupt::kShort:
		return "short";
	case RpcCorrupt::kXid:
		return "xid";
	case RpcCorrupt::kVers:
		return "vers";
	case RpcCorrupt::kNone:
		break;
	}
	return "";
}

} // namespace

RpcServer::RpcServer(const Options &o, Conn *conn)
	: o_(o), conn_(conn), msgr_("serve", conn), responder_(o),
	  inline_send_(o.has_cmp ? o.cmp_send : CMKIT_RPCRDMA_DEFAULT_INLINE),
	  inline_recv_(o.has_cmp ? o.cmp_recv : CMKIT_RPCRDMA_DEFAULT_INLINE)
{
}

bool RpcServer::Prepare(const std::vector<uint8_t> &client_pdata)
{
	peer_cmp_ = cmkit_rpcrdma_cmp_negotiate(client_pdata.data(), client_pdata.size(),
						&inline_send_, &inline_recv_);
	const uint32_t recvs = o_.rpc_recvs ? o_.rpc_recvs
		: std::min(std::max(o_.credits, 1U), kAutoRecvMax) + kRecvAllowance;
	responder_.set_inline_send(inline_send_);
	// Replies never outnumber calls by more than the one --rpc-bad-xid
	// adds; a reply with results is at most the client's inline size.
	if (!msgr_.Setup(recvs, inline_recv_, recvs + 1,
			 std::max<uint32_t>(CMKIT_RPCRDMA_MAX_REPLY_LEN, inline_send_),
			 "lower --rpc-recvs", kRdmaWrs))
		return false;
	// The RDMA Reads' sink needs local write access; on iWARP also remote
	// write, as a Read Response is placed like an RDMA Write (the kernel's
	// rdma_rw registers an iWARP sink so).  Its rkey is never advertised.
	int access = IBV_ACCESS_LOCAL_WRITE;
	if (conn_->transport() == Transport::kIwarp)
		access |= IBV_ACCESS_REMOTE_WRITE;
	bulk_ = conn_->AddBuffers(1, kBulkBytes, access);
	return bulk_ != nullptr;
}

void RpcServer::PrintReady() const
{
	Json()
		.Str("role", "serve")
		.Str("rpc", "ready")
		.Uint("inline_send", inline_send_)
		.Uint("inline_recv", inline_recv_)
		.Bool("peer_cmp", peer_cmp_)
		.Uint("recvs", msgr_.recvs())
		.Uint("credits", o_.credits)
		.Print();
}

void RpcServer::PrintSummary() const
{
	Json()
		.Str("role", "serve")
		.Str("rpc", "summary")
		.Uint("calls", responder_.calls())
		.Uint("replies", responder_.replies())
		.Uint("success", responder_.success())
		.Uint("errors", responder_.errors())
		.Uint("dropped", responder_.dropped())
		.Uint("malformed", responder_.malformed())
		.Uint("bad_xid", responder_.bad_xid())
		.Uint("unsent", pending_.size())
		.Uint("flushed", msgr_.flushed())
		.Uint("wc_errors", msgr_.wc_errors())
		.Uint("send_errors", msgr_.send_errors())
		.Uint("post_errors", msgr_.post_errors())
		.Uint("procs", responder_.procs())
		.Uint("read_bytes", responder_.read_bytes())
		.Uint("written_bytes", responder_.written_bytes())
		.Uint("nomsg_calls", responder_.nomsg_calls())
		.Uint("reply_chunks", responder_.reply_chunks())
		.Uint("reply_bytes", responder_.reply_bytes())
		.Uint("unfinished", bulk_calls_.size())
		.Print();
}

void RpcServer::PrintCall(const CallDecision &d) const
{
	if (o_.rpc_quiet)
		return;
	Json j;
	j.Str("role", "serve")
		.Str("rpc", "call")
		.Uint("n", d.n)
		.Str("decode", ResultName(d.decode))
		.Uint("xid", d.call.hdr.rdma_xid)
		.Uint("prog", d.call.prog)
		.Uint("vers", d.call.vers)
		.Uint("proc", d.call.proc)
		.Uint("credit", d.call.hdr.rdma_credit)
		.Str("result", d.result);
	if (d.nreplies)
		j.Uint("grant", o_.credits);
	if (*d.procedure)
		j.Str("procedure", d.procedure);
	if (d.nomsg)
		j.Bool("nomsg", true);
	j.Uint("read_bytes", d.read_bytes).Uint("written_bytes", d.written_bytes);
	if (d.reply_bytes)
		j.Uint("reply_bytes", d.reply_bytes);
	if (d.bad_xid)
		j.Uint("bad_xid", d.bad_xid_value);
	if (d.nreplies && o_.rpc_corrupt != RpcCorrupt::kNone)
		j.Str("corrupt", CorruptName(o_.rpc_corrupt));
	j.Print();
}

void RpcServer::OnReceive(const uint8_t *msg, uint32_t len)
{
	if (wants_disconnect_)
		return;	// the connection is being torn down: no more answers
	CallDecision d;
	responder_.OnCall(msg, len, &d);
	if (d.bulk) {
		bulk_calls_.push_back(std::move(d));
		StartBulk();
		return;
	}
	PrintCall(d);
	QueueReplies(d);
	if (d.disconnect) {
		wants_disconnect_ = true;
		msgr_.Stop();
	}
}

void RpcServer::QueueReplies(const CallDecision &d)
{
	const uint64_t due = NowNs() + static_cast<uint64_t>(o_.rpc_delay_ms) * 1000000ULL;
	for (unsigned i = 0; i < d.nreplies; i++)
		pending_.push_back({due, d.replies[i]});
}

void RpcServer::StartBulk()
{
	while (bulk_state_ == Bulk::kIdle && !bulk_calls_.empty() && !msgr_.lost() &&
	       !wants_disconnect_) {
		const BulkWork &w = bulk_calls_.front().work;
		rdma_failed_ = false;
		bulk_state_ = Bulk::kReading;
		for (const BulkMove &m : w.reads) {
			if (!msgr_.PostRdma(false, 0, bulk_, m.local, m.len, m.rkey, m.remote))
				return;	// lost: those posted complete flushed
			rdma_outstanding_++;
		}
		if (!rdma_outstanding_)
			FinishBulk();	// nothing to read: a write chunk to fill
	}
}

void RpcServer::FinishBulk()
{
	CallDecision d = std::move(bulk_calls_.front());
	bulk_calls_.pop_front();
	responder_.Finish(&d, bulk_->slot(0));
	bulk_state_ = Bulk::kIdle;
	PrintCall(d);
	for (const BulkMove &m : d.writes) {
		if (!msgr_.PostRdma(true, 0, bulk_, m.local, m.len, m.rkey, m.remote))
			break;	// lost: no reply goes out
		rdma_outstanding_++;
		bulk_state_ = Bulk::kWriting;
	}
	// Posted after the Writes when due: the client sees the data first.
	QueueReplies(d);
}

void RpcServer::OnRdma(bool ok)
{
	if (!ok)
		rdma_failed_ = true;	// reported; the connection is lost
	if (!rdma_outstanding_ || --rdma_outstanding_)
		return;
	if (bulk_state_ == Bulk::kReading && !rdma_failed_ && !msgr_.lost() &&
	    !wants_disconnect_) {
		FinishBulk();
	} else {
		// Written (the buffer is free), or the connection is going (a
		// Read failed, say): the call stays unanswered ("unfinished").
		bulk_state_ = Bulk::kIdle;
	}
	StartBulk();
}

bool RpcServer::OnCompletions()
{
	return msgr_.OnCompletions(
		[this](const uint8_t *msg, uint32_t len) { OnReceive(msg, len); },
		[this](uint32_t, bool ok) { OnRdma(ok); });
}

int RpcServer::NextDueMs(uint64_t now) const
{
	if (pending_.empty() || !msgr_.CanSend())
		return -1;	// a send completion (or nothing) comes first
	const uint64_t due = pending_.front().due_ns;
	return due <= now ? 0 : static_cast<int>((due - now + 999999) / 1000000);
}

void RpcServer::SendDue(uint64_t now)
{
	while (!pending_.empty() && pending_.front().due_ns <= now && msgr_.CanSend()) {
		if (msgr_.lost()) {	// the QP is in error: nothing goes out
			pending_.clear();
			break;
		}
		const ServerMsg &m = pending_.front().msg;
		if (!msgr_.Send(m.bytes.data(), m.len)) {
			// Reported and counted; the QP is going away (a peer's
			// disconnect makes posts fail on some providers).
			pending_.clear();
			break;
		}
		pending_.pop_front();
	}
}

} // namespace cmkit_peer
