// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer serve --rpc: the RPC-over-RDMA side of an accepted connection.
//
// Calls that need the bulk buffer (rpc_responder.h) take it one at a time,
// in the order they came: the call's RDMA Reads are posted, and when the
// last completes the call is answered (RpcResponder::Finish()), its RDMA
// Writes posted and its reply queued behind them (a Send after Writes on
// one QP is not placed before them); the next such call waits until those
// Writes complete, as they read the buffer.  Every Read and Write is
// signaled and its completion checked: one in error ends the connection.
// Other calls are answered at once, as before.
#ifndef CMKIT_PEER_RPC_SERVE_H
#define CMKIT_PEER_RPC_SERVE_H

#include <deque>
#include <vector>

#include "messenger.h"
#include "options.h"
#include "rdma.h"
#include "rpc_responder.h"

namespace cmkit_peer {

class RpcServer {
public:
	RpcServer(const Options &o, Conn *conn);

	// Before accepting: lower the inline sizes to the client's RFC 8797
	// message, create the QP and post the receives.  Reports failures.
	bool Prepare(const std::vector<uint8_t> &client_pdata);
	void PrintReady() const;
	void PrintSummary() const;

	int completion_fd() const { return msgr_.completion_fd(); }
	// Milliseconds until the next delayed reply is due (0: now), -1: none.
	int NextDueMs(uint64_t now) const;
	// The completion channel fired; false on a local error (reported).
	bool OnCompletions();
	// Send the replies that are due, as far as the send queue allows;
	// after a failed post, none (the failure is reported and counted).
	void SendDue(uint64_t now);

	// --rpc-disconnect-at was reached, or the connection is lost (a
	// completion or a post failed): the caller disconnects.
	bool wants_disconnect() const { return wants_disconnect_ || msgr_.lost(); }
	// A completion error ended the connection in failure: a Receive in
	// error.  A Send in error only closes it (CompletionTally).
	bool failed() const { return msgr_.tally().FailsServer(); }

private:
	struct Pending {
		uint64_t due_ns;
		ServerMsg msg;
	};
	void OnReceive(const uint8_t *msg, uint32_t len);
	void PrintCall(const CallDecision &d) const;
	// Queue @d's replies, due after --rpc-delay-ms.
	void QueueReplies(const CallDecision &d);
	// Start the next bulk call while the bulk buffer is free.
	void StartBulk();
	// The bulk call's Reads are done: answer it, post its Writes.
	void FinishBulk();
	void OnRdma(bool ok);

	const Options &o_;
	Conn *conn_;
	Messenger msgr_;
	RpcResponder responder_;
	uint32_t inline_send_, inline_recv_;
	bool peer_cmp_ = false;
	std::deque<Pending> pending_;
	bool wants_disconnect_ = false;

	enum class Bulk { kIdle, kReading, kWriting };
	Buffers *bulk_ = nullptr;		// the bulk buffer, registered
	std::deque<CallDecision> bulk_calls_;	// waiting; the front one reading
	Bulk bulk_state_ = Bulk::kIdle;
	uint32_t rdma_outstanding_ = 0;		// Reads or Writes posted, not completed
	bool rdma_failed_ = false;
};

} // namespace cmkit_peer

#endif
