// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer's layer over rdma-core: RAII for every resource, each call's
// return value checked and its errno reported, CM events as JSON lines.
#ifndef CMKIT_PEER_RDMA_H
#define CMKIT_PEER_RDMA_H

#include <rdma/rdma_cma.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "options.h"

namespace cmkit_peer {

// "cmkit-peer: <what>: <strerror(err)>" on stderr.
void Warn(const char *what, int err);
// Warn, then the exit status of a setup error.
int Fail(const char *what, int err);

uint64_t NowNs();	// CLOCK_MONOTONIC

struct EventChannelDeleter {
	void operator()(rdma_event_channel *c) const { rdma_destroy_event_channel(c); }
};
using EventChannel = std::unique_ptr<rdma_event_channel, EventChannelDeleter>;
// A new event channel, or null (reported).
EventChannel OpenChannel();

// @n buffers of @size bytes in one registered memory region.
class Buffers {
public:
	Buffers() = default;
	Buffers(const Buffers &) = delete;
	Buffers &operator=(const Buffers &) = delete;
	~Buffers();

	bool Register(ibv_pd *pd, uint32_t n, uint32_t size, int access);
	uint8_t *slot(uint32_t i) { return mem_.data() + static_cast<size_t>(i) * size_; }
	size_t bytes() const { return mem_.size(); }
	uint32_t size() const { return size_; }
	uint32_t count() const { return n_; }
	uint32_t lkey() const { return mr_->lkey; }

private:
	std::vector<uint8_t> mem_;
	uint32_t n_ = 0, size_ = 0;
	ibv_mr *mr_ = nullptr;
};

// An rdma_cm id and the verbs resources of its connection.  Released in
// dependency order: QP, memory regions, CQ, completion channel, PD, id.
class Conn {
public:
	Conn() = default;
	explicit Conn(rdma_cm_id *id) : id_(id) {}
	Conn(const Conn &) = delete;
	Conn &operator=(const Conn &) = delete;
	~Conn() { Release(); }

	void Release();
	// A new id on @ch (RDMA_PS_TCP), replacing what this held.
	bool Create(rdma_event_channel *ch);
	rdma_cm_id *id() const { return id_; }
	Transport transport() const;
	std::string device() const;

	struct QpSetup {
		uint32_t send_wr = 2;
		uint32_t recv_wr = 2;
		bool notify = false;	// a completion channel, CQ armed
	};
	// An RC QP (a real one: siw needs it even when nothing is sent).
	bool CreateQp(const QpSetup &s);
	// Registered buffers (ibv_access_flags @access), owned by the connection.
	Buffers *AddBuffers(uint32_t n, uint32_t size, int access = IBV_ACCESS_LOCAL_WRITE);

	int completion_fd() const;
	// The completion channel fired: take and ack its event, re-arm the CQ.
	bool TakeCompletionEvent();
	// Up to @n completions; -1 on error (reported).
	int Poll(ibv_wc *wc, int n);

	// Work request ids: the slot, with kWrRecv set for receives, kWrRdma
	// for RDMA Reads and Writes (and kWrRdmaWrite for Writes) (a failed
	// completion's opcode is undefined, its wr_id is not).
	static constexpr uint64_t kWrRecv = 1ULL << 32;
	static constexpr uint64_t kWrRdma = 1ULL << 33;
	static constexpr uint64_t kWrRdmaWrite = 1ULL << 34;
	bool PostRecv(Buffers *b, uint32_t slot);
	bool PostSend(Buffers *b, uint32_t slot, uint32_t len, bool signaled);
	// A signaled RDMA Read (into @b) or Write (from @b) of @len bytes at
	// offset @local of @b's memory, from or to @remote under @rkey; @id
	// (the low 32 bits) comes back with kWrRdma (and kWrRdmaWrite) set.
	bool PostRdma(bool write, uint32_t id, Buffers *b, uint32_t local, uint32_t len,
		      uint32_t rkey, uint64_t remote);

private:
	rdma_cm_id *id_ = nullptr;
	ibv_pd *pd_ = nullptr;
	ibv_comp_channel *channel_ = nullptr;
	ibv_cq *cq_ = nullptr;
	bool qp_ = false;
	std::vector<std::unique_ptr<Buffers>> buffers_;
};

// Whether @len bytes of private data fit @op on @conn's device; if not,
// says why on stderr.
bool PrivateDataFits(const char *cmd, const char *what, size_t len, const Conn &conn, CmOp op);

struct Event {
	rdma_cm_event_type type = RDMA_CM_EVENT_ADDR_ERROR;
	int status = 0;
	rdma_cm_id *id = nullptr;
	std::vector<uint8_t> pdata;
};

enum class Wait { kEvent, kTimeout, kError };
// Wait up to @timeout_ms for the next CM event and print it as @role.
Wait NextEvent(rdma_event_channel *ch, int timeout_ms, const char *role, Event *out);
// Read the next CM event (the channel is readable) and print it.
bool ReadEvent(rdma_event_channel *ch, const char *role, Event *out);
void PrintTimeout(const char *role, int timeout_ms);

// Poll the CM channel and a completion channel (-1: none).
enum { kCmReady = 1, kCqReady = 2 };
int WaitFds(int cm_fd, int cq_fd, int timeout_ms);	// bits; 0 timeout; -1 error

} // namespace cmkit_peer

#endif
