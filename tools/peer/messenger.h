// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// The send and receive side of an RPC-over-RDMA connection, for both
// cmkit-peer call and serve --rpc: receives posted up front and reposted
// as consumed, sends copied into registered slots and posted mostly
// unsignaled (SendRing), completions taken from a completion channel with
// every error reported.
#ifndef CMKIT_PEER_MESSENGER_H
#define CMKIT_PEER_MESSENGER_H

#include <functional>
#include <memory>

#include "rdma.h"
#include "rpc_window.h"

namespace cmkit_peer {

class Messenger {
public:
	Messenger(const char *role, Conn *conn) : role_(role), conn_(conn) {}

	// Create @conn's QP for @recvs receives of @recv_size bytes and @sends
	// sends of @send_size, with room in its send queue for @rdma_wrs RDMA
	// Reads and Writes besides, and post every receive.  Says on stderr
	// what does not fit the device (and @hint) or failed.
	bool Setup(uint32_t recvs, uint32_t recv_size, uint32_t sends, uint32_t send_size,
		   const char *hint, uint32_t rdma_wrs = 0);

	// Whether a message can be posted now.
	bool CanSend() const { return !ring_->Full(); }
	bool Send(const void *msg, uint32_t len);
	// A signaled RDMA Read or Write (Conn::PostRdma()); the caller keeps
	// at most @rdma_wrs of them outstanding.  A failed post is counted and
	// the connection taken as lost.
	bool PostRdma(bool write, uint32_t id, Buffers *b, uint32_t local, uint32_t len,
		      uint32_t rkey, uint64_t remote);

	// The completion channel fired: each received message goes to
	// @on_receive(bytes, len), then its receive is reposted (unless the
	// connection is lost); each RDMA Read's or Write's completion to
	// @on_rdma(id, ok), flushed and failed ones too (ok false).  False on a
	// local error (reported).
	using ReceiveFn = std::function<void(const uint8_t *msg, uint32_t len)>;
	using RdmaFn = std::function<void(uint32_t id, bool ok)>;
	bool OnCompletions(const ReceiveFn &on_receive, const RdmaFn &on_rdma = nullptr);

	// Stop reposting receives (the connection is going away).
	void Stop() { stopped_ = true; }

	int completion_fd() const { return conn_->completion_fd(); }
	bool lost() const { return lost_; }	// a completion failed or a post did
	uint32_t recvs() const { return recvs_; }
	uint32_t sends() const { return sends_; }
	uint64_t flushed() const { return tally_.flushed(); }
	// Completions in error other than flushes; the send queue's among them
	// (Sends, RDMA Reads and Writes).
	uint64_t wc_errors() const { return tally_.errors(); }
	uint64_t send_errors() const { return tally_.send_errors(); }
	const CompletionTally &tally() const { return tally_; }
	uint64_t post_errors() const { return post_errors_; }

private:
	const char *role_;
	Conn *conn_;
	Buffers *recv_bufs_ = nullptr, *send_bufs_ = nullptr;
	std::unique_ptr<SendRing> ring_;
	uint32_t recvs_ = 0, sends_ = 0;
	bool lost_ = false;
	bool stopped_ = false;
	CompletionTally tally_;
	uint64_t post_errors_ = 0;
};

} // namespace cmkit_peer

#endif
