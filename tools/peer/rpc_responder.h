// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// What cmkit-peer serve --rpc answers to each received message: a pure
// policy (no rdma-core), so host tests can feed it calls and hand its
// replies to the client's CallWindow (tests/peer_rpc_test.cpp).
#ifndef CMKIT_PEER_RPC_RESPONDER_H
#define CMKIT_PEER_RPC_RESPONDER_H

#include <cstddef>
#include <cstdint>

#include "cmkit/rpcrdma_msg.h"
#include "options.h"

namespace cmkit_peer {

struct ServerMsg {
	uint8_t bytes[CMKIT_RPCRDMA_MAX_REPLY_LEN];
	uint32_t len;
};

// The answer to one received message.
struct CallDecision {
	uint64_t n = 0;			// 1-based number of the message
	int decode = 0;			// cmkit_rpcrdma_decode_call()'s result
	cmkit_rpcrdma_call call{};	// as far as it decoded
	const char *result = "";	// "success", "err_vers", "dropped", ...
	bool disconnect = false;	// --rpc-disconnect-at: disconnect, no reply
	bool bad_xid = false;		// replies[0] answers an xid nobody asked for
	uint32_t bad_xid_value = 0;
	unsigned nreplies = 0;		// replies to send, in order
	ServerMsg replies[2];
};

class RpcResponder {
public:
	explicit RpcResponder(const Options &o);

	void OnCall(const void *buf, size_t len, CallDecision *d);

	uint64_t calls() const { return calls_; }
	uint64_t replies() const { return replies_; }	// messages sent, bad xid included
	uint64_t success() const { return success_; }	// SUCCESS replies to calls
	uint64_t errors() const { return errors_; }	// RDMA_ERROR and refusals
	uint64_t dropped() const { return dropped_; }	// calls left unanswered
	uint64_t malformed() const { return malformed_; }	// calls that did not decode
	uint64_t bad_xid() const { return bad_xid_; }

private:
	// Answer @d->call per the knobs; the result's name.
	const char *Choose(const CallDecision &d, cmkit_rpcrdma_reply *rep) const;
	// The server's answer to a call that did not decode (decode_call's table).
	const char *ChooseMalformed(const CallDecision &d, size_t len,
				    cmkit_rpcrdma_reply *rep) const;
	void Encode(const cmkit_rpcrdma_reply &rep, ServerMsg *m);

	uint32_t credits_;
	RpcError error_;
	RpcReject reject_;
	RpcCorrupt corrupt_;
	uint32_t drop_, disconnect_at_;
	bool bad_xid_pending_;
	uint64_t calls_ = 0, replies_ = 0, success_ = 0, errors_ = 0, dropped_ = 0;
	uint64_t malformed_ = 0, bad_xid_ = 0;
};

} // namespace cmkit_peer

#endif
