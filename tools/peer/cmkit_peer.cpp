// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer: a user-space rdma_cm peer for cmkit's handlers, on rdma-core.
//
//   cmkit-peer serve   --addr A --port P [--cmp SEND:RECV] [--reject HEX]
//                      [--disconnect-after MS] [--timeout S]
//   cmkit-peer connect --addr A --port P [--pdata HEX] [--expect WHAT] [--timeout S]
//   cmkit-peer srp-login --addr A --port P [--iu-len N] [--buf-fmt N] [--opcode N]
//                      [--initiator-port-id HEX] [--target-port-id HEX]
//                      [--expect accepted|rejected[:REASON]] [--timeout S]
//
// serve accepts one connection (with an RFC 8797 private message when --cmp
// is given, else with none), or rejects it with --reject's private data, then
// waits until the peer disconnects (or disconnects itself after a delay).
// connect resolves, connects with the given private data and disconnects.
// srp-login connects with an SRP login request (the compact layout rdma_cm
// initiators use: rdma_cm puts its IP header in front) and reports the login
// response or the reject reason.
// Every CM event is printed as one JSON line on stdout.  Every wait has a
// timeout.  Exit status: 0 when the expected outcome happened, 1 when
// another one did, 2 on usage or setup errors.
#include <arpa/inet.h>
#include <netdb.h>
#include <poll.h>
#include <rdma/rdma_cma.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cmkit/rpcrdma_cmp.h"
#include "cmkit/srp.h"

namespace {

// ---- RAII around rdma-core resources -------------------------------------

struct ChannelDeleter {
	void operator()(rdma_event_channel *c) const { rdma_destroy_event_channel(c); }
};
using Channel = std::unique_ptr<rdma_event_channel, ChannelDeleter>;

struct PdDeleter {
	void operator()(ibv_pd *p) const { ibv_dealloc_pd(p); }
};
using Pd = std::unique_ptr<ibv_pd, PdDeleter>;

struct CqDeleter {
	void operator()(ibv_cq *c) const { ibv_destroy_cq(c); }
};
using Cq = std::unique_ptr<ibv_cq, CqDeleter>;

// An rdma_cm id, its QP (if any) and the PD and CQ the QP uses.  Members
// are destroyed in reverse order: QP, id, then CQ and PD.
class CmId {
public:
	CmId() = default;
	explicit CmId(rdma_cm_id *id) : id_(id) {}
	CmId(const CmId &) = delete;
	CmId &operator=(const CmId &) = delete;
	~CmId() { Reset(); }

	void Reset()
	{
		if (id_ && id_->qp)
			rdma_destroy_qp(id_);
		if (id_)
			rdma_destroy_id(id_);
		id_ = nullptr;
		cq_.reset();
		pd_.reset();
	}
	void Adopt(rdma_cm_id *id)
	{
		Reset();
		id_ = id;
	}
	rdma_cm_id *get() const { return id_; }

	// A small RC QP, as the kernel side expects a real one (siw needs it).
	bool CreateQp()
	{
		pd_.reset(ibv_alloc_pd(id_->verbs));
		if (!pd_)
			return false;
		cq_.reset(ibv_create_cq(id_->verbs, 8, nullptr, nullptr, 0));
		if (!cq_)
			return false;
		ibv_qp_init_attr attr{};
		attr.send_cq = cq_.get();
		attr.recv_cq = cq_.get();
		attr.cap.max_send_wr = 2;
		attr.cap.max_recv_wr = 2;
		attr.cap.max_send_sge = 1;
		attr.cap.max_recv_sge = 1;
		attr.qp_type = IBV_QPT_RC;
		return rdma_create_qp(id_, pd_.get(), &attr) == 0;
	}

private:
	rdma_cm_id *id_ = nullptr;
	Pd pd_;
	Cq cq_;
};

// ---- events ------------------------------------------------------------------

struct Event {
	rdma_cm_event_type type = RDMA_CM_EVENT_ADDR_ERROR;
	int status = 0;
	rdma_cm_id *id = nullptr;
	std::vector<uint8_t> pdata;
};

std::string Hex(const std::vector<uint8_t> &v)
{
	static const char digits[] = "0123456789abcdef";
	std::string s;
	for (uint8_t b : v) {
		s += digits[b >> 4];
		s += digits[b & 15];
	}
	return s;
}

bool Unhex(const std::string &s, std::vector<uint8_t> *out)
{
	if (s.size() % 2)
		return false;
	out->clear();
	for (size_t i = 0; i < s.size(); i += 2) {
		char *end = nullptr;
		std::string byte = s.substr(i, 2);
		unsigned long v = strtoul(byte.c_str(), &end, 16);
		if (*end)
			return false;
		out->push_back(static_cast<uint8_t>(v));
	}
	return true;
}

void PrintEvent(const char *role, const Event &ev)
{
	printf("{\"role\":\"%s\",\"event\":\"%s\",\"status\":%d,\"private_data_len\":%zu,"
	       "\"private_data\":\"%s\"",
	       role, rdma_event_str(ev.type), ev.status, ev.pdata.size(),
	       Hex(ev.pdata).c_str());
	cmkit_rpcrdma_cmp cmp{};
	if (cmkit_rpcrdma_cmp_decode(ev.pdata.data(), ev.pdata.size(), &cmp))
		printf(",\"rpcrdma_cmp\":{\"send_size\":%u,\"recv_size\":%u,\"flags\":%u}",
		       cmp.send_size, cmp.recv_size, cmp.flags);
	cmkit_srp_login_rsp rsp{};
	cmkit_srp_login_rej rej{};
	if (!ev.pdata.empty() && ev.pdata[0] == CMKIT_SRP_LOGIN_RSP &&
	    cmkit_srp_decode_login_rsp(ev.pdata.data(), ev.pdata.size(), &rsp))
		printf(",\"srp_login_rsp\":{\"tag\":%llu,\"req_lim_delta\":%u,"
		       "\"max_it_iu_len\":%u,\"max_ti_iu_len\":%u,\"buf_fmt\":%u}",
		       static_cast<unsigned long long>(rsp.tag), rsp.req_lim_delta,
		       rsp.max_it_iu_len, rsp.max_ti_iu_len, rsp.buf_fmt);
	if (!ev.pdata.empty() && ev.pdata[0] == CMKIT_SRP_LOGIN_REJ &&
	    cmkit_srp_decode_login_rej(ev.pdata.data(), ev.pdata.size(), &rej))
		printf(",\"srp_login_rej\":{\"tag\":%llu,\"reason\":\"0x%08x\"}",
		       static_cast<unsigned long long>(rej.tag), rej.reason);
	printf("}\n");
	fflush(stdout);
}

// Wait up to timeout_ms for the next event; false on timeout or error.
bool NextEvent(rdma_event_channel *ch, int timeout_ms, const char *role, Event *out)
{
	pollfd pfd{ch->fd, POLLIN, 0};
	if (poll(&pfd, 1, timeout_ms) != 1) {
		printf("{\"role\":\"%s\",\"timeout_ms\":%d}\n", role, timeout_ms);
		fflush(stdout);
		return false;
	}
	rdma_cm_event *ev = nullptr;
	if (rdma_get_cm_event(ch, &ev))
		return false;
	out->type = ev->event;
	out->status = ev->status;
	out->id = ev->id;
	out->pdata.clear();
	if (ev->param.conn.private_data && ev->param.conn.private_data_len) {
		const uint8_t *p = static_cast<const uint8_t *>(ev->param.conn.private_data);
		out->pdata.assign(p, p + ev->param.conn.private_data_len);
	}
	rdma_ack_cm_event(ev);
	PrintEvent(role, *out);
	return true;
}

// ---- command line ------------------------------------------------------------

struct Options {
	std::map<std::string, std::string> kv;
	std::string Get(const std::string &k, const std::string &def = "") const
	{
		auto it = kv.find(k);
		return it == kv.end() ? def : it->second;
	}
	bool Has(const std::string &k) const { return kv.count(k) != 0; }
};

bool ParseOptions(int argc, char **argv, Options *o)
{
	for (int i = 2; i < argc; i += 2) {
		if (strncmp(argv[i], "--", 2) || i + 1 >= argc)
			return false;
		o->kv[argv[i] + 2] = argv[i + 1];
	}
	return o->Has("addr") && o->Has("port");
}

bool MakeAddr(const Options &o, sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(static_cast<uint16_t>(atoi(o.Get("port").c_str())));
	return inet_pton(AF_INET, o.Get("addr").c_str(), &sin->sin_addr) == 1;
}

int Fail(const char *what)
{
	fprintf(stderr, "cmkit-peer: %s: %s\n", what, strerror(errno));
	return 2;
}

// ---- roles --------------------------------------------------------------------

int Serve(const Options &o)
{
	const int timeout_ms = atoi(o.Get("timeout", "30").c_str()) * 1000;
	sockaddr_in sin;
	if (!MakeAddr(o, &sin))
		return Fail("bad address");

	std::vector<uint8_t> pdata;
	bool reject = o.Has("reject");
	if (reject && !Unhex(o.Get("reject"), &pdata))
		return Fail("bad --reject hex");
	if (o.Has("cmp")) {
		unsigned send = 0, recv = 0;
		if (sscanf(o.Get("cmp").c_str(), "%u:%u", &send, &recv) != 2)
			return Fail("bad --cmp SEND:RECV");
		pdata.resize(CMKIT_RPCRDMA_CMP_LEN);
		cmkit_rpcrdma_cmp_encode(pdata.data(), 0, send, recv);
	}

	Channel ch(rdma_create_event_channel());
	if (!ch)
		return Fail("rdma_create_event_channel");
	rdma_cm_id *raw = nullptr;
	if (rdma_create_id(ch.get(), &raw, nullptr, RDMA_PS_TCP))
		return Fail("rdma_create_id");
	CmId listener(raw);
	if (rdma_bind_addr(listener.get(), reinterpret_cast<sockaddr *>(&sin)) ||
	    rdma_listen(listener.get(), 1))
		return Fail("bind/listen");
	printf("{\"role\":\"serve\",\"listening\":\"%s:%s\"}\n", o.Get("addr").c_str(),
	       o.Get("port").c_str());
	fflush(stdout);

	Event ev;
	if (!NextEvent(ch.get(), timeout_ms, "serve", &ev) ||
	    ev.type != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 1;
	CmId conn(ev.id);
	rdma_conn_param param{};
	param.private_data = pdata.empty() ? nullptr : pdata.data();
	param.private_data_len = static_cast<uint8_t>(pdata.size());
	if (reject) {
		rdma_reject(conn.get(), param.private_data, param.private_data_len);
		return 0;
	}
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.rnr_retry_count = 7;
	if (!conn.CreateQp() || rdma_accept(conn.get(), &param))
		return Fail("accept");
	if (!NextEvent(ch.get(), timeout_ms, "serve", &ev) ||
	    ev.type != RDMA_CM_EVENT_ESTABLISHED)
		return 1;
	if (o.Has("disconnect-after")) {
		poll(nullptr, 0, atoi(o.Get("disconnect-after").c_str()));
		rdma_disconnect(conn.get());
	}
	if (!NextEvent(ch.get(), timeout_ms, "serve", &ev) ||
	    ev.type != RDMA_CM_EVENT_DISCONNECTED)
		return 1;
	if (!o.Has("disconnect-after"))
		rdma_disconnect(conn.get());	// answer the DREQ
	return 0;
}

// Resolve, connect with @pdata, and report how the connect ended in @last
// (ESTABLISHED, REJECTED, ...; ADDR_ERROR when resolution failed, with
// status 0 when rdma_connect() itself failed).  Disconnects an established
// connection.  Returns false on setup errors.
bool ConnectOnce(const Options &o, const char *role, const std::vector<uint8_t> &pdata,
		 Event *last)
{
	const int timeout_ms = atoi(o.Get("timeout", "30").c_str()) * 1000;
	sockaddr_in sin;
	if (!MakeAddr(o, &sin))
		return Fail("bad address") == 0;
	Channel ch(rdma_create_event_channel());
	if (!ch)
		return Fail("rdma_create_event_channel") == 0;
	rdma_cm_id *raw = nullptr;
	if (rdma_create_id(ch.get(), &raw, nullptr, RDMA_PS_TCP))
		return Fail("rdma_create_id") == 0;
	CmId id(raw);
	last->type = RDMA_CM_EVENT_ADDR_ERROR;
	if (rdma_resolve_addr(id.get(), nullptr, reinterpret_cast<sockaddr *>(&sin), 5000) ||
	    !NextEvent(ch.get(), timeout_ms, role, last) ||
	    last->type != RDMA_CM_EVENT_ADDR_RESOLVED)
		return true;
	if (rdma_resolve_route(id.get(), 5000) ||
	    !NextEvent(ch.get(), timeout_ms, role, last) ||
	    last->type != RDMA_CM_EVENT_ROUTE_RESOLVED)
		return true;
	if (!id.CreateQp())
		return Fail("create QP") == 0;
	rdma_conn_param param{};
	param.private_data = pdata.empty() ? nullptr : pdata.data();
	param.private_data_len = static_cast<uint8_t>(pdata.size());
	param.responder_resources = 1;
	param.initiator_depth = 1;
	param.retry_count = 6;
	param.rnr_retry_count = 7;
	if (rdma_connect(id.get(), &param)) {
		last->type = RDMA_CM_EVENT_CONNECT_ERROR;
		last->status = -errno;
		return true;
	}
	if (!NextEvent(ch.get(), timeout_ms, role, last))
		return true;
	if (last->type == RDMA_CM_EVENT_ESTABLISHED) {
		Event ev;
		rdma_disconnect(id.get());
		NextEvent(ch.get(), timeout_ms, role, &ev);
	}
	return true;
}

int Connect(const Options &o)
{
	const std::string expect = o.Get("expect", "established");
	std::vector<uint8_t> pdata;
	if (o.Has("pdata") && !Unhex(o.Get("pdata"), &pdata))
		return Fail("bad --pdata hex");
	Event last;
	if (!ConnectOnce(o, "connect", pdata, &last))
		return 2;
	switch (last.type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		return expect == "established" ? 0 : 1;
	case RDMA_CM_EVENT_REJECTED:
		return expect == "rejected" ? 0 : 1;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		return expect == "unreachable" ? 0 : 1;
	default:
		return expect == "error" ? 0 : 1;
	}
}

bool PortId(const std::string &hex, cmkit_u8 *out)
{
	std::vector<uint8_t> v;
	if (!Unhex(hex, &v) || v.size() != CMKIT_SRP_PORT_ID_LEN)
		return false;
	memcpy(out, v.data(), v.size());
	return true;
}

int SrpLogin(const Options &o)
{
	const std::string expect = o.Get("expect", "accepted");
	cmkit_srp_login_req req{};
	req.opcode = static_cast<cmkit_u8>(strtoul(o.Get("opcode", "0").c_str(), nullptr, 0));
	req.tag = 0x636d6b6974ULL;	/* "cmkit" */
	req.it_iu_len = static_cast<cmkit_u32>(strtoul(o.Get("iu-len", "4096").c_str(),
						       nullptr, 0));
	req.buf_fmt = static_cast<cmkit_u16>(strtoul(o.Get("buf-fmt", "6").c_str(), nullptr, 0));
	req.flags = CMKIT_SRP_MULTICHAN_SINGLE;
	if (o.Has("initiator-port-id") &&
	    !PortId(o.Get("initiator-port-id"), req.initiator_port_id))
		return Fail("bad --initiator-port-id (16 bytes of hex)");
	if (o.Has("target-port-id") && !PortId(o.Get("target-port-id"), req.target_port_id))
		return Fail("bad --target-port-id (16 bytes of hex)");
	std::vector<uint8_t> pdata(CMKIT_SRP_LOGIN_REQ_RDMA_LEN);
	cmkit_srp_encode_login_req_rdma(pdata.data(), &req);

	Event last;
	if (!ConnectOnce(o, "srp-login", pdata, &last))
		return 2;
	cmkit_srp_login_rsp rsp{};
	cmkit_srp_login_rej rej{};
	if (last.type == RDMA_CM_EVENT_ESTABLISHED &&
	    cmkit_srp_decode_login_rsp(last.pdata.data(), last.pdata.size(), &rsp) &&
	    last.pdata[0] == CMKIT_SRP_LOGIN_RSP && rsp.tag == req.tag)
		return expect == "accepted" ? 0 : 1;
	if (last.type == RDMA_CM_EVENT_REJECTED) {
		if (expect == "rejected")
			return 0;
		char want[32];
		bool has = !last.pdata.empty() && last.pdata[0] == CMKIT_SRP_LOGIN_REJ &&
			   cmkit_srp_decode_login_rej(last.pdata.data(), last.pdata.size(), &rej);
		snprintf(want, sizeof(want), "rejected:0x%08x", has ? rej.reason : 0);
		return expect == want ? 0 : 1;
	}
	return 1;
}

int Usage()
{
	fprintf(stderr,
		"usage: cmkit-peer serve --addr A --port P [--cmp SEND:RECV] [--reject HEX]\n"
		"                        [--disconnect-after MS] [--timeout S]\n"
		"       cmkit-peer connect --addr A --port P [--pdata HEX]\n"
		"                        [--expect established|rejected|unreachable|error]"
		" [--timeout S]\n"
		"       cmkit-peer srp-login --addr A --port P [--iu-len N] [--buf-fmt N]"
		" [--opcode N]\n"
		"                        [--initiator-port-id HEX] [--target-port-id HEX]\n"
		"                        [--expect accepted|rejected|rejected:0xREASON]"
		" [--timeout S]\n");
	return 2;
}

} // namespace

int main(int argc, char **argv)
{
	Options o;
	if (argc < 2 || !ParseOptions(argc, argv, &o))
		return Usage();
	std::string role = argv[1];
	if (role == "serve")
		return Serve(o);
	if (role == "connect")
		return Connect(o);
	if (role == "srp-login")
		return SrpLogin(o);
	return Usage();
}
