// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer's message layer (see messenger.h).
#include "messenger.h"

#include <cstdio>
#include <cstring>

#include "json.h"

namespace cmkit_peer {

bool Messenger::Setup(uint32_t recvs, uint32_t recv_size, uint32_t sends, uint32_t send_size,
		      const char *hint, uint32_t rdma_wrs)
{
	recvs_ = recvs;
	sends_ = sends;
	ibv_device_attr attr{};
	int rc = ibv_query_device(conn_->id()->verbs, &attr);
	if (rc) {
		Warn("ibv_query_device", rc);
		return false;
	}
	if (recvs > static_cast<uint32_t>(attr.max_qp_wr) ||
	    sends + rdma_wrs > static_cast<uint32_t>(attr.max_qp_wr) ||
	    recvs + sends + rdma_wrs > static_cast<uint32_t>(attr.max_cqe)) {
		fprintf(stderr,
			"cmkit-peer %s: %u receives and %u sends do not fit %s (max_qp_wr %d, "
			"max_cqe %d); %s\n",
			role_, recvs, sends, conn_->device().c_str(), attr.max_qp_wr,
			attr.max_cqe, hint);
		return false;
	}
	Conn::QpSetup s;
	s.send_wr = sends + rdma_wrs;
	s.recv_wr = recvs;
	s.notify = true;
	if (!conn_->CreateQp(s))
		return false;
	recv_bufs_ = conn_->AddBuffers(recvs, recv_size);
	send_bufs_ = conn_->AddBuffers(sends, send_size);
	if (!recv_bufs_ || !send_bufs_)
		return false;
	ring_ = std::make_unique<SendRing>(sends);
	for (uint32_t i = 0; i < recvs; i++)
		if (!conn_->PostRecv(recv_bufs_, i))
			return false;
	return true;
}

bool Messenger::Send(const void *msg, uint32_t len)
{
	if (len > send_bufs_->size())
		return false;
	bool signaled;
	const uint32_t slot = ring_->Take(&signaled);
	memcpy(send_bufs_->slot(slot), msg, len);
	if (!conn_->PostSend(send_bufs_, slot, len, signaled)) {
		post_errors_++;
		lost_ = true;
		return false;
	}
	return true;
}

bool Messenger::PostRdma(bool write, uint32_t id, Buffers *b, uint32_t local, uint32_t len,
			 uint32_t rkey, uint64_t remote)
{
	if (!conn_->PostRdma(write, id, b, local, len, rkey, remote)) {
		post_errors_++;
		lost_ = true;
		return false;
	}
	return true;
}

bool Messenger::OnCompletions(const ReceiveFn &on_receive, const RdmaFn &on_rdma)
{
	if (!conn_->TakeCompletionEvent())
		return false;
	ibv_wc wc[32];
	int n;
	while ((n = conn_->Poll(wc, 32)) > 0) {
		for (int i = 0; i < n; i++) {
			const bool recv = wc[i].wr_id & Conn::kWrRecv;
			const bool rdma = wc[i].wr_id & Conn::kWrRdma;
			const uint32_t slot = static_cast<uint32_t>(wc[i].wr_id);
			if (!recv && !rdma)
				ring_->Complete(slot);
			const CompletionTally::Outcome o =
				tally_.Count(recv, wc[i].status == IBV_WC_SUCCESS,
					     wc[i].status == IBV_WC_WR_FLUSH_ERR);
			if (o == CompletionTally::kError) {
				const char *wr = recv ? "recv" : !rdma ? "send"
					: (wc[i].wr_id & Conn::kWrRdmaWrite) ? "write" : "read";
				Json()
					.Str("role", role_)
					.Str("rpc", "wc_error")
					.Str("wr", wr)
					.Str("status", ibv_wc_status_str(wc[i].status))
					.Uint("vendor_err", wc[i].vendor_err)
					.Print();
			}
			if (o != CompletionTally::kSuccess)
				lost_ = true;
			if (rdma) {
				if (on_rdma)
					on_rdma(slot, o == CompletionTally::kSuccess);
				continue;
			}
			if (o != CompletionTally::kSuccess || !recv)
				continue;
			on_receive(recv_bufs_->slot(slot), wc[i].byte_len);
			if (!lost_ && !stopped_ && !conn_->PostRecv(recv_bufs_, slot)) {
				post_errors_++;
				lost_ = true;
			}
		}
	}
	return n == 0;
}

} // namespace cmkit_peer
