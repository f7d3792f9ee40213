// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer's layer over rdma-core (see rdma.h).
//
// rdma_* calls return -1 and set errno; ibv_* calls that return int give
// the errno value itself; those that return a pointer give NULL and set
// errno.
#include "rdma.h"

#include <poll.h>
#include <time.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "cmkit/rpcrdma_cmp.h"
#include "cmkit/srp.h"
#include "json.h"

namespace cmkit_peer {

void Warn(const char *what, int err)
{
	fprintf(stderr, "cmkit-peer: %s: %s\n", what, strerror(err));
}

int Fail(const char *what, int err)
{
	Warn(what, err);
	return kExitUsage;
}

uint64_t NowNs()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

EventChannel OpenChannel()
{
	EventChannel ch(rdma_create_event_channel());
	if (!ch)
		Warn("rdma_create_event_channel", errno);
	return ch;
}

Buffers::~Buffers()
{
	if (mr_) {
		int rc = ibv_dereg_mr(mr_);
		if (rc)
			Warn("ibv_dereg_mr", rc);
	}
}

bool Buffers::Register(ibv_pd *pd, uint32_t n, uint32_t size, int access)
{
	n_ = n;
	size_ = size;
	mem_.assign(static_cast<size_t>(n) * size, 0);
	mr_ = ibv_reg_mr(pd, mem_.data(), mem_.size(), access);
	if (!mr_) {
		Warn("ibv_reg_mr", errno);
		return false;
	}
	return true;
}

void Conn::Release()
{
	int rc;

	if (qp_)
		rdma_destroy_qp(id_);
	qp_ = false;
	buffers_.clear();
	if (cq_ && (rc = ibv_destroy_cq(cq_)))
		Warn("ibv_destroy_cq", rc);
	cq_ = nullptr;
	if (channel_ && (rc = ibv_destroy_comp_channel(channel_)))
		Warn("ibv_destroy_comp_channel", rc);
	channel_ = nullptr;
	if (pd_ && (rc = ibv_dealloc_pd(pd_)))
		Warn("ibv_dealloc_pd", rc);
	pd_ = nullptr;
	if (id_ && rdma_destroy_id(id_))
		Warn("rdma_destroy_id", errno);
	id_ = nullptr;
}

bool Conn::Create(rdma_event_channel *ch)
{
	rdma_cm_id *raw = nullptr;

	Release();
	if (rdma_create_id(ch, &raw, nullptr, RDMA_PS_TCP)) {
		Warn("rdma_create_id", errno);
		return false;
	}
	id_ = raw;
	return true;
}

Transport Conn::transport() const
{
	if (!id_ || !id_->verbs)
		return Transport::kOther;
	switch (id_->verbs->device->transport_type) {
	case IBV_TRANSPORT_IB:
		return Transport::kIb;
	case IBV_TRANSPORT_IWARP:
		return Transport::kIwarp;
	default:
		return Transport::kOther;
	}
}

std::string Conn::device() const
{
	if (!id_ || !id_->verbs)
		return "no device";
	return ibv_get_device_name(id_->verbs->device);
}

bool Conn::CreateQp(const QpSetup &s)
{
	pd_ = ibv_alloc_pd(id_->verbs);
	if (!pd_) {
		Warn("ibv_alloc_pd", errno);
		return false;
	}
	if (s.notify) {
		channel_ = ibv_create_comp_channel(id_->verbs);
		if (!channel_) {
			Warn("ibv_create_comp_channel", errno);
			return false;
		}
	}
	const int cqe = static_cast<int>(s.send_wr + s.recv_wr);
	cq_ = ibv_create_cq(id_->verbs, cqe, nullptr, channel_, 0);
	if (!cq_) {
		Warn("ibv_create_cq", errno);
		return false;
	}
	if (s.notify) {
		int rc = ibv_req_notify_cq(cq_, 0);
		if (rc) {
			Warn("ibv_req_notify_cq", rc);
			return false;
		}
	}
	ibv_qp_init_attr attr{};
	attr.send_cq = cq_;
	attr.recv_cq = cq_;
	attr.cap.max_send_wr = s.send_wr;
	attr.cap.max_recv_wr = s.recv_wr;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	attr.qp_type = IBV_QPT_RC;
	attr.sq_sig_all = 0;
	if (rdma_create_qp(id_, pd_, &attr)) {
		Warn("rdma_create_qp", errno);
		return false;
	}
	qp_ = true;
	return true;
}

Buffers *Conn::AddBuffers(uint32_t n, uint32_t size, int access)
{
	buffers_.push_back(std::make_unique<Buffers>());
	if (!buffers_.back()->Register(pd_, n, size, access))
		return nullptr;
	return buffers_.back().get();
}

int Conn::completion_fd() const
{
	return channel_ ? channel_->fd : -1;
}

bool Conn::TakeCompletionEvent()
{
	ibv_cq *cq;
	void *ctx;

	if (ibv_get_cq_event(channel_, &cq, &ctx)) {
		Warn("ibv_get_cq_event", errno);
		return false;
	}
	ibv_ack_cq_events(cq, 1);
	int rc = ibv_req_notify_cq(cq_, 0);
	if (rc) {
		Warn("ibv_req_notify_cq", rc);
		return false;
	}
	return true;
}

int Conn::Poll(ibv_wc *wc, int n)
{
	int got = ibv_poll_cq(cq_, n, wc);
	if (got < 0) {
		fprintf(stderr, "cmkit-peer: ibv_poll_cq failed (%d)\n", got);
		return -1;
	}
	return got;
}

bool Conn::PostRecv(Buffers *b, uint32_t slot)
{
	ibv_sge sge{};
	sge.addr = reinterpret_cast<uintptr_t>(b->slot(slot));
	sge.length = b->size();
	sge.lkey = b->lkey();
	ibv_recv_wr wr{}, *bad = nullptr;
	wr.wr_id = kWrRecv | slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	int rc = ibv_post_recv(id_->qp, &wr, &bad);
	if (rc)
		Warn("ibv_post_recv", rc);
	return rc == 0;
}

bool Conn::PostSend(Buffers *b, uint32_t slot, uint32_t len, bool signaled)
{
	ibv_sge sge{};
	sge.addr = reinterpret_cast<uintptr_t>(b->slot(slot));
	sge.length = len;
	sge.lkey = b->lkey();
	ibv_send_wr wr{}, *bad = nullptr;
	wr.wr_id = slot;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
	int rc = ibv_post_send(id_->qp, &wr, &bad);
	if (rc)
		Warn("ibv_post_send", rc);
	return rc == 0;
}

bool Conn::PostRdma(bool write, uint32_t id, Buffers *b, uint32_t local, uint32_t len,
		    uint32_t rkey, uint64_t remote)
{
	if (static_cast<size_t>(local) + len > b->bytes()) {
		fprintf(stderr, "cmkit-peer: RDMA %s of %u bytes at %u beyond its buffer\n",
			write ? "Write" : "Read", len, local);
		return false;
	}
	ibv_sge sge{};
	sge.addr = reinterpret_cast<uintptr_t>(b->slot(0) + local);
	sge.length = len;
	sge.lkey = b->lkey();
	ibv_send_wr wr{}, *bad = nullptr;
	wr.wr_id = kWrRdma | (write ? kWrRdmaWrite : 0) | id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = write ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = remote;
	wr.wr.rdma.rkey = rkey;
	int rc = ibv_post_send(id_->qp, &wr, &bad);
	if (rc)
		Warn(write ? "ibv_post_send (RDMA Write)" : "ibv_post_send (RDMA Read)", rc);
	return rc == 0;
}

bool PrivateDataFits(const char *cmd, const char *what, size_t len, const Conn &conn, CmOp op)
{
	const Transport t = conn.transport();
	const size_t limit = PrivateDataLimit(t, op);

	if (len <= limit)
		return true;
	fprintf(stderr, "cmkit-peer %s: %s is %zu bytes of private data, but %s: at most %zu on %s\n",
		cmd, what, len, PrivateDataLimitWhy(t, op).c_str(), limit, conn.device().c_str());
	return false;
}

namespace {

void PrintEvent(const char *role, const Event &ev)
{
	Json j;
	j.Str("role", role)
		.Str("event", rdma_event_str(ev.type))
		.Int("status", ev.status)
		.Uint("private_data_len", ev.pdata.size())
		.Str("private_data", Hex(ev.pdata));
	cmkit_rpcrdma_cmp cmp{};
	if (cmkit_rpcrdma_cmp_decode(ev.pdata.data(), ev.pdata.size(), &cmp))
		j.Obj("rpcrdma_cmp", Json()
					     .Uint("send_size", cmp.send_size)
					     .Uint("recv_size", cmp.recv_size)
					     .Uint("flags", cmp.flags));
	cmkit_srp_login_rsp rsp{};
	cmkit_srp_login_rej rej{};
	if (!ev.pdata.empty() && ev.pdata[0] == CMKIT_SRP_LOGIN_RSP &&
	    cmkit_srp_decode_login_rsp(ev.pdata.data(), ev.pdata.size(), &rsp))
		j.Obj("srp_login_rsp", Json()
					       .Uint("tag", rsp.tag)
					       .Uint("req_lim_delta", rsp.req_lim_delta)
					       .Uint("max_it_iu_len", rsp.max_it_iu_len)
					       .Uint("max_ti_iu_len", rsp.max_ti_iu_len)
					       .Uint("buf_fmt", rsp.buf_fmt));
	if (!ev.pdata.empty() && ev.pdata[0] == CMKIT_SRP_LOGIN_REJ &&
	    cmkit_srp_decode_login_rej(ev.pdata.data(), ev.pdata.size(), &rej)) {
		char reason[16];
		snprintf(reason, sizeof(reason), "0x%08x", rej.reason);
		j.Obj("srp_login_rej", Json().Uint("tag", rej.tag).Str("reason", reason));
	}
	j.Print();
}

} // namespace

void PrintTimeout(const char *role, int timeout_ms)
{
	Json().Str("role", role).Int("timeout_ms", timeout_ms).Print();
}

bool ReadEvent(rdma_event_channel *ch, const char *role, Event *out)
{
	rdma_cm_event *ev = nullptr;
	if (rdma_get_cm_event(ch, &ev)) {
		Warn("rdma_get_cm_event", errno);
		return false;
	}
	out->type = ev->event;
	out->status = ev->status;
	out->id = ev->id;
	out->pdata.clear();
	if (ev->param.conn.private_data && ev->param.conn.private_data_len) {
		const uint8_t *p = static_cast<const uint8_t *>(ev->param.conn.private_data);
		out->pdata.assign(p, p + ev->param.conn.private_data_len);
	}
	if (rdma_ack_cm_event(ev)) {
		Warn("rdma_ack_cm_event", errno);
		return false;
	}
	PrintEvent(role, *out);
	return true;
}

Wait NextEvent(rdma_event_channel *ch, int timeout_ms, const char *role, Event *out)
{
	int ready = WaitFds(ch->fd, -1, timeout_ms);
	if (ready < 0)
		return Wait::kError;
	if (!ready) {
		PrintTimeout(role, timeout_ms);
		return Wait::kTimeout;
	}
	return ReadEvent(ch, role, out) ? Wait::kEvent : Wait::kError;
}

int WaitFds(int cm_fd, int cq_fd, int timeout_ms)
{
	pollfd pfd[2] = {{cm_fd, POLLIN, 0}, {cq_fd, POLLIN, 0}};
	const nfds_t n = cq_fd >= 0 ? 2 : 1;
	int rc;

	do {
		rc = poll(pfd, n, timeout_ms);
	} while (rc < 0 && errno == EINTR);
	if (rc < 0) {
		Warn("poll", errno);
		return -1;
	}
	int bits = 0;
	if (pfd[0].revents)
		bits |= kCmReady;
	if (n == 2 && pfd[1].revents)
		bits |= kCqReady;
	return bits;
}

} // namespace cmkit_peer
