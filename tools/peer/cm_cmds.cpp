// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer serve, connect and srp-login: rdma_cm connection setup and
// teardown, each CM event one JSON line.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <memory>

#include "cmkit/rpcrdma_cmp.h"
#include "cmkit/srp.h"
#include "commands.h"
#include "json.h"
#include "rpc_serve.h"

namespace cmkit_peer {

namespace {

constexpr int kResolveMs = 5000;	// rdma_resolve_addr/route's own timeout

// Connection requests that came while serve --count was busy with an
// earlier connection, taken in order; the ids of those never taken are
// destroyed (refusing them) when serve ends.
class PendingRequests {
public:
	PendingRequests() = default;
	PendingRequests(const PendingRequests &) = delete;
	PendingRequests &operator=(const PendingRequests &) = delete;
	~PendingRequests()
	{
		for (const Event &ev : q_)
			rdma_destroy_id(ev.id);
	}
	// Keep @ev if it is another connection's request; false otherwise.
	bool Keep(const Event &ev, const Conn &current)
	{
		if (ev.type != RDMA_CM_EVENT_CONNECT_REQUEST || ev.id == current.id())
			return false;
		q_.push_back(ev);
		return true;
	}
	bool Take(Event *ev)
	{
		if (q_.empty())
			return false;
		*ev = q_.front();
		q_.pop_front();
		return true;
	}

private:
	std::deque<Event> q_;
};

// After ESTABLISHED: serve until the peer disconnects (or we do, after
// --disconnect-after or --rpc-disconnect-at, or once @rpc's connection is
// lost), answering RPC calls with @rpc.  Each wait is bounded by --timeout
// from the last activity.  Another connection's request goes to @pending.
int ServeConnection(const Options &o, rdma_event_channel *ch, Conn *conn, RpcServer *rpc,
		    PendingRequests *pending)
{
	const uint64_t timeout_ns = static_cast<uint64_t>(o.timeout_s) * 1000000000ULL;
	uint64_t now = NowNs();
	uint64_t idle_deadline = now + timeout_ns;
	uint64_t disconnect_due = o.has_disconnect_after
		? now + static_cast<uint64_t>(o.disconnect_after_ms) * 1000000ULL : 0;
	bool disconnected = false;	// we sent the disconnect
	int status = kExitOk;

	auto disconnect = [&]() {
		if (rdma_disconnect(conn->id()))
			Warn("rdma_disconnect", errno);
		disconnected = true;
	};
	for (;;) {
		now = NowNs();
		uint64_t wake = idle_deadline;
		if (disconnect_due && !disconnected)
			wake = std::min(wake, disconnect_due);
		int wait_ms = wake > now ? static_cast<int>((wake - now + 999999) / 1000000) : 0;
		if (rpc) {
			int due = rpc->NextDueMs(now);
			if (due >= 0)
				wait_ms = std::min(wait_ms, due);
		}
		int ready = WaitFds(ch->fd, rpc ? rpc->completion_fd() : -1, wait_ms);
		if (ready < 0) {
			status = kExitOther;
			break;
		}
		now = NowNs();
		if (ready)
			idle_deadline = now + timeout_ns;
		if ((ready & kCqReady) && !rpc->OnCompletions()) {
			status = kExitOther;
			break;
		}
		if (rpc)
			rpc->SendDue(now);
		if (!disconnected && ((rpc && rpc->wants_disconnect()) ||
				      (disconnect_due && now >= disconnect_due)))
			disconnect();
		if (ready & kCmReady) {
			Event ev;
			if (!ReadEvent(ch, "serve", &ev)) {
				status = kExitOther;
				break;
			}
			if (pending->Keep(ev, *conn))
				continue;
			if (ev.type == RDMA_CM_EVENT_DISCONNECTED && ev.id == conn->id())
				break;
		}
		if (!ready && now >= idle_deadline) {
			PrintTimeout("serve", TimeoutMs(o));
			status = kExitOther;
			break;
		}
	}
	if (status == kExitOk && !disconnected)
		disconnect();	// answer the peer's disconnect request
	if (rpc) {
		rpc->PrintSummary();
		if (rpc->failed() && status == kExitOk)
			status = kExitOther;
	}
	return status;
}

} // namespace

rdma_conn_param ConnParam(const std::vector<uint8_t> &pdata)
{
	rdma_conn_param param{};
	param.private_data = pdata.empty() ? nullptr : pdata.data();
	param.private_data_len = static_cast<uint8_t>(pdata.size());	// checked: <= 255
	param.responder_resources = 1;
	// Also what lets serve --rpc RDMA Read a call's read chunk: in
	// rdma_accept() this is the QP's max_rd_atomic (IB, RoCE) or its ORD
	// (iWARP), one Read in flight at a time; the client's side of it is
	// its responder_resources (cmkit's rpcrdma offers its device's
	// max_qp_rd_atom, at most 255).
	param.initiator_depth = 1;
	param.retry_count = 6;
	param.rnr_retry_count = 7;
	return param;
}

Resolved ResolveRoute(rdma_event_channel *ch, Conn *conn, const Options &o, const char *role,
		      Event *last)
{
	const int timeout_ms = TimeoutMs(o);
	const int resolve_ms = std::min(kResolveMs, timeout_ms);
	auto *dst = reinterpret_cast<sockaddr *>(const_cast<sockaddr_storage *>(&o.sa));

	last->type = RDMA_CM_EVENT_ADDR_ERROR;
	last->status = 0;
	if (rdma_resolve_addr(conn->id(), nullptr, dst, resolve_ms)) {
		last->status = -errno;
		Warn("rdma_resolve_addr", errno);
		return Resolved::kFailed;
	}
	Wait w = NextEvent(ch, timeout_ms, role, last);
	if (w != Wait::kEvent)
		return w == Wait::kTimeout ? Resolved::kTimeout : Resolved::kError;
	if (last->type != RDMA_CM_EVENT_ADDR_RESOLVED)
		return Resolved::kFailed;
	if (rdma_resolve_route(conn->id(), resolve_ms)) {
		last->type = RDMA_CM_EVENT_ROUTE_ERROR;
		last->status = -errno;
		Warn("rdma_resolve_route", errno);
		return Resolved::kFailed;
	}
	w = NextEvent(ch, timeout_ms, role, last);
	if (w != Wait::kEvent)
		return w == Wait::kTimeout ? Resolved::kTimeout : Resolved::kError;
	return last->type == RDMA_CM_EVENT_ROUTE_RESOLVED ? Resolved::kRoute : Resolved::kFailed;
}

namespace {

// One connection of serve: the next request (kept, or from @ch), accepted
// or rejected, and served until its end.
int ServeOne(const Options &o, rdma_event_channel *ch, PendingRequests *pending)
{
	const int timeout_ms = TimeoutMs(o);
	Event ev;
	if (!pending->Take(&ev) &&
	    (NextEvent(ch, timeout_ms, "serve", &ev) != Wait::kEvent ||
	     ev.type != RDMA_CM_EVENT_CONNECT_REQUEST))
		return kExitOther;
	Conn conn(ev.id);
	if (o.reject) {
		// Unbound listeners learn the transport only now; the request is
		// then refused without private data by destroying its id.
		if (!PrivateDataFits("serve", "--reject", o.reject_pdata.size(), conn, CmOp::kReject))
			return kExitUsage;
		if (rdma_reject(conn.id(), o.reject_pdata.data(),
				static_cast<uint8_t>(o.reject_pdata.size())))
			return Fail("rdma_reject", errno);
		return kExitOk;
	}

	std::vector<uint8_t> pdata;
	if (o.has_cmp) {
		pdata.resize(CMKIT_RPCRDMA_CMP_LEN);
		cmkit_rpcrdma_cmp_encode(pdata.data(), 0, o.cmp_send, o.cmp_recv);
	}
	std::unique_ptr<RpcServer> rpc;
	if (o.rpc) {
		rpc = std::make_unique<RpcServer>(o, &conn);
		if (!rpc->Prepare(ev.pdata))
			return kExitUsage;
	} else if (!conn.CreateQp(Conn::QpSetup())) {
		return kExitUsage;
	}
	rdma_conn_param param = ConnParam(pdata);
	if (rdma_accept(conn.id(), &param))
		return Fail("rdma_accept", errno);
	do {
		if (NextEvent(ch, timeout_ms, "serve", &ev) != Wait::kEvent)
			return kExitOther;
	} while (pending->Keep(ev, conn));
	if (ev.type != RDMA_CM_EVENT_ESTABLISHED)
		return kExitOther;
	if (rpc)
		rpc->PrintReady();
	return ServeConnection(o, ch, &conn, rpc.get(), pending);
}

} // namespace

int Serve(const Options &o)
{
	EventChannel ch = OpenChannel();
	Conn listener;
	if (!ch || !listener.Create(ch.get()))
		return kExitUsage;
	if (rdma_bind_addr(listener.id(), reinterpret_cast<sockaddr *>(
						   const_cast<sockaddr_storage *>(&o.sa))))
		return Fail("rdma_bind_addr", errno);
	// Bound to a device's address: its transport is known before any peer.
	if (o.reject && listener.id()->verbs &&
	    !PrivateDataFits("serve", "--reject", o.reject_pdata.size(), listener, CmOp::kReject))
		return kExitUsage;
	if (rdma_listen(listener.id(), 1))
		return Fail("rdma_listen", errno);
	Json().Str("role", "serve")
		.Str("listening", o.addr + ":" + std::to_string(o.port))
		.Print();

	// Destroyed before the listener and the channel.
	PendingRequests pending;
	for (uint32_t i = 0; i < o.count; i++) {
		int status = ServeOne(ServeOptionsFor(o, i), ch.get(), &pending);
		if (status != kExitOk)
			return status;
	}
	return kExitOk;
}

namespace {

// Resolve, connect with @pdata, and report how the connect ended in @last
// (ESTABLISHED, REJECTED, ...; ADDR_ERROR when resolution failed,
// CONNECT_ERROR with -errno when rdma_connect() itself failed).
// Disconnects an established connection.  Returns an exit status for
// setup errors, -1 otherwise.
int ConnectOnce(const Options &o, const char *role, const std::vector<uint8_t> &pdata,
		Event *last)
{
	const int timeout_ms = TimeoutMs(o);
	EventChannel ch = OpenChannel();
	Conn conn;
	if (!ch || !conn.Create(ch.get()))
		return kExitUsage;
	switch (ResolveRoute(ch.get(), &conn, o, role, last)) {
	case Resolved::kRoute:
		break;
	case Resolved::kError:
		return kExitUsage;
	default:
		return -1;
	}
	if (!PrivateDataFits(role, "the private data", pdata.size(), conn, CmOp::kConnect))
		return kExitUsage;
	if (!conn.CreateQp(Conn::QpSetup()))
		return kExitUsage;
	rdma_conn_param param = ConnParam(pdata);
	if (rdma_connect(conn.id(), &param)) {
		last->type = RDMA_CM_EVENT_CONNECT_ERROR;
		last->status = -errno;
		Warn("rdma_connect", errno);
		return -1;
	}
	Wait w = NextEvent(ch.get(), timeout_ms, role, last);
	if (w == Wait::kError)
		return kExitUsage;
	if (w == Wait::kEvent && last->type == RDMA_CM_EVENT_ESTABLISHED) {
		Event ev;
		if (rdma_disconnect(conn.id()))
			Warn("rdma_disconnect", errno);
		else if (NextEvent(ch.get(), timeout_ms, role, &ev) == Wait::kError)
			return kExitUsage;
	}
	return -1;
}

} // namespace

int Connect(const Options &o)
{
	const std::string expect = o.expect.empty() ? "established" : o.expect;
	Event last;
	int rc = ConnectOnce(o, "connect", o.pdata, &last);
	if (rc >= 0)
		return rc;
	switch (last.type) {
	case RDMA_CM_EVENT_ESTABLISHED:
		return expect == "established" ? kExitOk : kExitOther;
	case RDMA_CM_EVENT_REJECTED:
		return expect == "rejected" ? kExitOk : kExitOther;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		return expect == "unreachable" ? kExitOk : kExitOther;
	default:
		return expect == "error" ? kExitOk : kExitOther;
	}
}

int SrpLogin(const Options &o)
{
	const std::string expect = o.expect.empty() ? "accepted" : o.expect;
	cmkit_srp_login_req req{};
	req.opcode = o.opcode;
	req.tag = 0x636d6b6974ULL;	// "cmkit"
	req.it_iu_len = o.iu_len;
	req.buf_fmt = o.buf_fmt;
	req.flags = CMKIT_SRP_MULTICHAN_SINGLE;
	if (o.has_initiator_port_id)
		memcpy(req.initiator_port_id, o.initiator_port_id, CMKIT_SRP_PORT_ID_LEN);
	if (o.has_target_port_id)
		memcpy(req.target_port_id, o.target_port_id, CMKIT_SRP_PORT_ID_LEN);
	std::vector<uint8_t> pdata(CMKIT_SRP_LOGIN_REQ_RDMA_LEN);
	cmkit_srp_encode_login_req_rdma(pdata.data(), &req);

	Event last;
	int rc = ConnectOnce(o, "srp-login", pdata, &last);
	if (rc >= 0)
		return rc;
	cmkit_srp_login_rsp rsp{};
	cmkit_srp_login_rej rej{};
	if (last.type == RDMA_CM_EVENT_ESTABLISHED && !last.pdata.empty() &&
	    last.pdata[0] == CMKIT_SRP_LOGIN_RSP &&
	    cmkit_srp_decode_login_rsp(last.pdata.data(), last.pdata.size(), &rsp) &&
	    rsp.tag == req.tag)
		return expect == "accepted" ? kExitOk : kExitOther;
	if (last.type == RDMA_CM_EVENT_REJECTED) {
		if (expect == "rejected")
			return kExitOk;
		char want[32];
		bool has = !last.pdata.empty() && last.pdata[0] == CMKIT_SRP_LOGIN_REJ &&
			   cmkit_srp_decode_login_rej(last.pdata.data(), last.pdata.size(), &rej);
		snprintf(want, sizeof(want), "rejected:0x%08x", has ? rej.reason : 0);
		return expect == want ? kExitOk : kExitOther;
	}
	return kExitOther;
}

} // namespace cmkit_peer
