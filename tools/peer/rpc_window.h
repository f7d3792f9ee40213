// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// The pure parts of cmkit-peer's RPC-over-RDMA client (no rdma-core, so host
// tests can drive them, tests/peer_rpc_test.cpp):
//  - CallWindow: the calls outstanding, matched to replies by xid, and the
//    credit limit (RFC 8166, section 3.3.1; xprtrdma's rules);
//  - SendRing: send-queue slots with unsignaled sends;
//  - CompletionTally: a connection's work completions by outcome;
//  - SummarizeLatencies: count, min, median, p99, max.
#ifndef CMKIT_PEER_RPC_WINDOW_H
#define CMKIT_PEER_RPC_WINDOW_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cmkit_peer {

// What one received message turned out to be.
struct ReplyOutcome {
	enum Kind {
		kDropped,	// too short to peek, or rdma_vers not 1: no call matched
		kUnknownXid,	// well-formed enough, but no call waits for its xid
		kCompleted,	// it completed the call of its xid
	} kind = kDropped;
	int peek = 0;		// cmkit_rpcrdma_peek()'s result
	uint32_t xid = 0;	// kUnknownXid, kCompleted
	uint32_t grant = 0;	// rdma_credit as received (kUnknownXid, kCompleted)
	int result = 0;		// kCompleted: cmkit_rpcrdma_decode_reply()'s result
	int cls = 0;		// kCompleted: enum cmkit_rpcrdma_class of result
	uint64_t sent_ns = 0;	// kCompleted: when the call was sent
};

// The calls a client has outstanding and its credit limit.
//
// The limit starts at one credit (until the first reply of a connection a
// requester may assume only one) and follows the grant of every reply that
// completes a call, through cmkit_rpcrdma_credit_limit(): 0 counts as 1, a
// grant above the ring is clamped to it.  A reply too short to peek, or of
// another version, is counted and dropped without touching the limit; one
// whose xid no call waits for is counted and dropped too.
class CallWindow {
public:
	// @ring: the receive ring, the credits asked for (0 counts as 1).
	explicit CallWindow(uint32_t ring);

	uint32_t ring() const { return ring_; }
	uint32_t limit() const { return limit_; }
	uint32_t outstanding() const { return static_cast<uint32_t>(calls_.size()); }
	bool CanSend() const { return outstanding() < limit_; }

	// Record a call sent at @now_ns; false (nothing recorded) when the
	// window is full or @xid is already outstanding.
	bool Add(uint32_t xid, uint64_t now_ns);

	// Match a received message of @len bytes to its call, and decode it.
	ReplyOutcome OnReply(const void *buf, size_t len);

	// The oldest outstanding call; false when none is.
	bool Oldest(uint32_t *xid, uint64_t *sent_ns) const;

	uint64_t completed() const { return completed_; }
	uint64_t accepted() const { return accepted_; }
	uint64_t rejected() const { return rejected_; }
	uint64_t malformed() const { return malformed_; }
	uint64_t unknown_xid() const { return unknown_xid_; }
	uint64_t dropped() const { return dropped_; }
	uint32_t max_outstanding() const { return max_outstanding_; }
	uint32_t last_grant() const { return last_grant_; }
	// Completed calls by result (enum cmkit_rpcrdma_result).
	const std::map<int, uint64_t> &results() const { return results_; }

private:
	uint32_t ring_;
	uint32_t limit_ = 1;
	uint32_t last_grant_ = 0;
	uint32_t max_outstanding_ = 0;
	std::unordered_map<uint32_t, uint64_t> calls_;		// xid -> sent
	std::set<std::pair<uint64_t, uint32_t>> by_time_;	// (sent, xid)
	uint64_t completed_ = 0, accepted_ = 0, rejected_ = 0, malformed_ = 0;
	uint64_t unknown_xid_ = 0, dropped_ = 0;
	std::map<int, uint64_t> results_;
};

// A send queue of @slots entries posted mostly unsignaled.
//
// Every interval-th send (interval = max(1, slots / 2)) is signaled, so any
// run of @slots sends holds a signaled one: when the ring is full, a
// completion is on its way.  Completions come in order, so a completion for
// one slot frees it and every older slot still in use.
class SendRing {
public:
	explicit SendRing(uint32_t slots);

	uint32_t slots() const { return slots_; }
	uint32_t in_use() const { return used_; }
	bool Full() const { return used_ == slots_; }

	// Take the next slot (the ring must not be full); *signaled says how
	// to post it.
	uint32_t Take(bool *signaled);

	// A completion for @slot (signaled, or flushed); returns how many
	// slots it freed (0 when @slot was not in use).
	uint32_t Complete(uint32_t slot);

private:
	uint32_t slots_;
	uint32_t interval_;
	uint32_t tail_ = 0;	// oldest slot in use
	uint32_t used_ = 0;
	uint32_t since_signal_ = 0;
};

// A connection's work completions by outcome (Messenger's, for call and
// serve --rpc).  Any completion in error means the connection is lost; a
// flush (IBV_WC_WR_FLUSH_ERR) is how its end completes what was posted,
// and is counted apart.  Other errors are counted by side, for they do not
// mean the same to a server:
//  - a Receive in error: the peer sent what could not be received;
//  - a Send in error: the connection went down under the Send, which a
//    peer's disconnect can do to a Send it already has.  siw completes a
//    Send with LOC_QP_OP_ERR when the peer's FIN (tx_suspend, set from
//    the socket's state change) lands between the transmission of the
//    Send's last segment and its completion (siw_qp_sq_proc_tx(): "Try
//    stopping sending after a full DDP segment if the connection goes
//    down"): a client that closes on its last reply can do that to it.
//    As svcrdma (svc_rdma_wc_send() -> svc_xprt_deferred_close()), a
//    server closes the connection on it, and does not fail; what was lost
//    shows at the client.
class CompletionTally {
public:
	enum Outcome { kSuccess, kFlushed, kError };

	// One completion of a Receive (@recv) or a Send: @success, else
	// @flushed or another error.  kError: report it.
	Outcome Count(bool recv, bool success, bool flushed);

	uint64_t flushed() const { return flushed_; }
	uint64_t errors() const { return recv_errors_ + send_errors_; }	// flushes aside
	uint64_t recv_errors() const { return recv_errors_; }
	uint64_t send_errors() const { return send_errors_; }
	// Whether these end a server's connection in failure: a Receive in
	// error does; a Send in error only closes it (see above).
	bool FailsServer() const { return recv_errors_ != 0; }

private:
	uint64_t flushed_ = 0, recv_errors_ = 0, send_errors_ = 0;
};

struct LatencySummary {
	size_t count = 0;
	double min_us = 0, median_us = 0, p99_us = 0, max_us = 0;
};

// Nearest-rank statistics of round trips in nanoseconds, in microseconds.
LatencySummary SummarizeLatencies(std::vector<uint64_t> ns);

// "OK", "E_SHORT", ...: the enumerator's name without CMKIT_RPCRDMA_.
const char *ResultName(int result);
// "accepted", "rejected", "malformed", "local".
const char *ClassName(int cls);

} // namespace cmkit_peer

#endif
