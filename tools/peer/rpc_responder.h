// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// What cmkit-peer serve --rpc answers to each received message: a pure
// policy (no rdma-core), so host tests can feed it calls and hand its
// replies to the client's CallWindow (tests/peer_rpc_test.cpp).
//
// Besides NULL calls it serves cmkit's RPC test program
// (include/cmkit/rpc_testprog.h) as svcrdma serves a program with chunks:
// an ECHO, SINK or MIRROR argument may come in a read chunk, an ECHO or
// FILL result goes into the write chunk the call offers, else inline.  A
// call may come whole in a position-zero read chunk (RDMA_NOMSG); a
// SUCCESS reply goes whole into the reply chunk whenever the call offers
// one (RDMA_NOMSG).  OnCall() decides all it can from the call alone: the
// answer at once, or, for a call that needs the bulk buffer (a read chunk
// or a position-zero chunk to fetch, a write or reply chunk to fill), the
// RDMA Reads to do first (CallDecision::work); Finish() then answers it
// from the bulk buffer and says which RDMA Writes go before the reply.
#ifndef CMKIT_PEER_RPC_RESPONDER_H
#define CMKIT_PEER_RPC_RESPONDER_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cmkit/rpcrdma_chunk.h"
#include "cmkit/rpcrdma_msg.h"
#include "options.h"

namespace cmkit_peer {

// The most bulk data one call moves (an ECHO's, FILL's, SINK's or MIRROR's
// data<>), and the size of the bulk buffer: that and a page of slack, for
// a call or reply that carries such data whole (a position-zero chunk, a
// reply chunk).
constexpr uint32_t kBulkMax = 1U << 20;
constexpr uint32_t kBulkBytes = kBulkMax + 4096;

struct ServerMsg {
	std::vector<uint8_t> bytes;
	uint32_t len = 0;	// bytes to send (--rpc-corrupt short cuts it)
};

// One RDMA Read or Write: @len bytes at @local in the bulk buffer, from or
// to the peer's memory at @remote under @rkey (a chunk's segment, or its
// part).
struct BulkMove {
	uint32_t rkey = 0;
	uint64_t remote = 0;
	uint32_t len = 0;
	uint32_t local = 0;
};

// A test program call that needs the bulk buffer.
struct BulkWork {
	uint32_t proc = 0;
	uint32_t len = 0;		// the data's length: ECHO's and SINK's argument, FILL's result
	uint32_t seed = 0;		// FILL's
	bool from_chunk = false;	// the argument is in the read chunk (reads)
	std::vector<uint8_t> data;	// else ECHO's inline argument, copied
	std::vector<BulkMove> reads;	// the read chunk's segments, packed from offset 0
	uint32_t write_segs = 0;	// the write chunk offered (0: none)
	cmkit_rpcrdma_seg write[CMKIT_RPCRDMA_MAX_SEGS] = {};
	uint32_t reply_segs = 0;	// the reply chunk offered, for the reply (0: none)
	cmkit_rpcrdma_seg reply[CMKIT_RPCRDMA_MAX_SEGS] = {};
	// A SUCCESS whose inline results are known at once (@results), that
	// needs the bulk buffer only to write them into the reply chunk.
	bool ready = false;
	std::vector<uint8_t> results;
	// RDMA_NOMSG: the reads fetch the whole RPC call (@call_len bytes,
	// the position-zero chunk); Finish() decodes it and serves it with
	// @lists (the call's write list and reply chunk).
	bool nomsg = false;
	uint32_t call_len = 0;
	cmkit_rpcrdma_chunks lists{};
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
	const char *procedure = "";	// the test program's "null", "echo", "fill", "sink", "mirror"
	bool nomsg = false;		// the call came in a position-zero read chunk
	uint32_t read_bytes = 0;	// RDMA Read: the read chunk's data, or the whole call
	uint32_t written_bytes = 0;	// data RDMA Written into the write chunk
	uint32_t reply_bytes = 0;	// RPC reply RDMA Written into the reply chunk
	// The call needs the bulk buffer: no reply yet (result "pending"); do
	// work.reads, then Finish().  (call's pointers into the received
	// message are not to be used after it is reposted.)
	bool bulk = false;
	BulkWork work;
	std::vector<BulkMove> writes;	// after Finish(): RDMA Writes, before the replies
};

class RpcResponder {
public:
	explicit RpcResponder(const Options &o);

	void OnCall(const void *buf, size_t len, CallDecision *d);
	// Answer a call OnCall() left pending (@d->bulk): its reads are done,
	// their bytes in @bulk (kBulkBytes at least), where FILL's and an
	// inline argument's bytes, or the RPC reply for the reply chunk, go
	// too for the writes.
	void Finish(CallDecision *d, uint8_t *bulk);

	// The largest reply the client receives (its RFC 8797 receive size, or
	// the default inline size): a result that does not fit goes into a
	// write chunk, or is refused.
	void set_inline_send(uint32_t n) { inline_send_ = n; }

	uint64_t calls() const { return calls_; }
	uint64_t replies() const { return replies_; }	// messages sent, bad xid included
	uint64_t success() const { return success_; }	// SUCCESS replies to calls
	uint64_t errors() const { return errors_; }	// RDMA_ERROR and refusals
	uint64_t dropped() const { return dropped_; }	// calls left unanswered
	uint64_t malformed() const { return malformed_; }	// calls that did not decode
	uint64_t bad_xid() const { return bad_xid_; }
	uint64_t procs() const { return procs_; }	// test program calls answered SUCCESS
	uint64_t read_bytes() const { return read_bytes_; }
	uint64_t written_bytes() const { return written_bytes_; }
	uint64_t nomsg_calls() const { return nomsg_calls_; }	// position-zero calls read
	uint64_t reply_chunks() const { return reply_chunks_; }	// replies in a reply chunk
	uint64_t reply_bytes() const { return reply_bytes_; }	// written into them

private:
	// Answer @d->call per the knobs; the result's name, or nullptr for a
	// test program procedure with data (Serve()).
	const char *Choose(const CallDecision &d, const cmkit_rpcrdma_chunks &ch,
			   cmkit_rpcrdma_reply *rep) const;
	// ECHO, FILL, SINK, MIRROR: the answer, or the work for the bulk
	// buffer ("pending"); *@results the inline results of a SUCCESS.
	const char *Serve(CallDecision *d, const cmkit_rpcrdma_chunks &ch,
			  cmkit_rpcrdma_reply *rep, std::vector<uint8_t> *results) const;
	// The server's answer to a call that did not decode (decode_call's table).
	const char *ChooseMalformed(const CallDecision &d, size_t len,
				    cmkit_rpcrdma_reply *rep) const;
	// An RDMA_NOMSG call: the position-zero chunk to read, or the refusal.
	const char *ReadCall(CallDecision *d, const cmkit_rpcrdma_chunks &ch,
			     cmkit_rpcrdma_reply *rep);
	// Finish() of an RDMA_NOMSG call: decode the call from @bulk and
	// answer it; true when it is to be finished as a bulk call still.
	bool ServeCall(CallDecision *d, uint8_t *bulk);
	// After Choose() and Serve(): a NULL SUCCESS for the reply chunk too,
	// then the answer queued, the call dropped, or left for Finish()
	// (true).
	bool Conclude(CallDecision *d, const cmkit_rpcrdma_chunks &ch,
		      cmkit_rpcrdma_reply *rep, std::vector<uint8_t> *results);
	// A SUCCESS with inline @results: into the reply chunk @d->work keeps
	// (written from @bulk), else inline.
	void Reply(CallDecision *d, cmkit_rpcrdma_reply *rep, const std::vector<uint8_t> &results,
		   uint8_t *bulk);
	void Encode(const cmkit_rpcrdma_reply &rep, ServerMsg *m);
	// A SUCCESS reply with @results inline and @ch's write list (NULL: none).
	void EncodeResults(const cmkit_rpcrdma_reply &rep, const cmkit_rpcrdma_chunks *ch,
			   const std::vector<uint8_t> &results, ServerMsg *m);
	// --rpc-corrupt on a reply whose RPC message starts at @xid_off.
	void Corrupt(const cmkit_rpcrdma_reply &rep, size_t xid_off, ServerMsg *m);
	// Queue @d's replies (the --rpc-bad-xid one first) and count the answer.
	void Answer(CallDecision *d, const cmkit_rpcrdma_reply &rep,
		    const cmkit_rpcrdma_chunks *ch, const std::vector<uint8_t> *results);

	uint32_t credits_;
	uint32_t inline_send_;
	RpcError error_;
	RpcReject reject_;
	RpcCorrupt corrupt_;
	uint32_t drop_, disconnect_at_;
	bool bad_xid_pending_;
	uint64_t calls_ = 0, replies_ = 0, success_ = 0, errors_ = 0, dropped_ = 0;
	uint64_t malformed_ = 0, bad_xid_ = 0;
	uint64_t procs_ = 0, read_bytes_ = 0, written_bytes_ = 0;
	uint64_t nomsg_calls_ = 0, reply_chunks_ = 0, reply_bytes_ = 0;
};

} // namespace cmkit_peer

#endif
