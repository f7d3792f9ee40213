// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer's RPC client logic (see rpc_window.h).
#include "rpc_window.h"

#include <algorithm>

#include "cmkit/rpcrdma_msg.h"

namespace cmkit_peer {

CallWindow::CallWindow(uint32_t ring) : ring_(ring ? ring : 1) {}

bool CallWindow::Add(uint32_t xid, uint64_t now_ns)
{
	if (!CanSend() || calls_.count(xid))
		return false;
	calls_.emplace(xid, now_ns);
	by_time_.emplace(now_ns, xid);
	max_outstanding_ = std::max(max_outstanding_, outstanding());
	return true;
}

ReplyOutcome CallWindow::OnReply(const void *buf, size_t len)
{
	ReplyOutcome out;
	uint32_t xid = 0, grant = 0;

	out.peek = cmkit_rpcrdma_peek(buf, len, &xid, &grant);
	if (out.peek != CMKIT_RPCRDMA_OK) {
		dropped_++;
		return out;
	}
	out.xid = xid;
	out.grant = grant;
	auto it = calls_.find(xid);
	if (it == calls_.end()) {
		out.kind = ReplyOutcome::kUnknownXid;
		unknown_xid_++;
		return out;
	}
	out.kind = ReplyOutcome::kCompleted;
	out.sent_ns = it->second;
	by_time_.erase({it->second, xid});
	calls_.erase(it);
	last_grant_ = grant;
	limit_ = cmkit_rpcrdma_credit_limit(grant, ring_);

	cmkit_rpcrdma_reply rep;
	out.result = cmkit_rpcrdma_decode_reply(buf, len, &rep);
	out.cls = cmkit_rpcrdma_result_class(out.result);
	completed_++;
	results_[out.result]++;
	if (out.cls == CMKIT_RPCRDMA_ACCEPTED)
		accepted_++;
	else if (out.cls == CMKIT_RPCRDMA_REJECTED)
		rejected_++;
	else
		malformed_++;
	return out;
}

bool CallWindow::Oldest(uint32_t *xid, uint64_t *sent_ns) const
{
	if (by_time_.empty())
		return false;
	*sent_ns = by_time_.begin()->first;
	*xid = by_time_.begin()->second;
	return true;
}

SendRing::SendRing(uint32_t slots)
	: slots_(slots ? slots : 1), interval_(std::max(1U, slots_ / 2))
{
}

uint32_t SendRing::Take(bool *signaled)
{
	uint32_t slot = (tail_ + used_) % slots_;
	used_++;
	if (++since_signal_ >= interval_) {
		since_signal_ = 0;
		*signaled = true;
	} else {
		*signaled = false;
	}
	return slot;
}

uint32_t SendRing::Complete(uint32_t slot)
{
	if (slot >= slots_)
		return 0;
	uint32_t age = (slot + slots_ - tail_) % slots_;	// 0: the oldest
	if (age >= used_)
		return 0;
	uint32_t freed = age + 1;
	tail_ = (slot + 1) % slots_;
	used_ -= freed;
	return freed;
}

CompletionTally::Outcome CompletionTally::Count(bool recv, bool success, bool flushed)
{
	if (success)
		return kSuccess;
	if (flushed) {
		flushed_++;
		return kFlushed;
	}
	if (recv)
		recv_errors_++;
	else
		send_errors_++;
	return kError;
}

LatencySummary SummarizeLatencies(std::vector<uint64_t> ns)
{
	LatencySummary s;
	if (ns.empty())
		return s;
	std::sort(ns.begin(), ns.end());
	auto us = [](uint64_t v) { return static_cast<double>(v) / 1000.0; };
	// Nearest rank: the smallest value with at least q of all at or below it.
	auto rank = [&ns](unsigned percent) {
		size_t r = (ns.size() * percent + 99) / 100;
		return ns[r ? r - 1 : 0];
	};
	s.count = ns.size();
	s.min_us = us(ns.front());
	s.median_us = us(rank(50));
	s.p99_us = us(rank(99));
	s.max_us = us(ns.back());
	return s;
}

const char *ResultName(int result)
{
	return cmkit_rpcrdma_result_name(result);
}

const char *ClassName(int cls)
{
	switch (cls) {
	case CMKIT_RPCRDMA_ACCEPTED: return "accepted";
	case CMKIT_RPCRDMA_REJECTED: return "rejected";
	case CMKIT_RPCRDMA_MALFORMED: return "malformed";
	default: return "local";
	}
}

} // namespace cmkit_peer
