// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer serve --rpc's answers (see rpc_responder.h).
#include "rpc_responder.h"

#include <cstring>

namespace cmkit_peer {

RpcResponder::RpcResponder(const Options &o)
	: credits_(o.credits), error_(o.rpc_error), reject_(o.rpc_reject),
	  corrupt_(o.rpc_corrupt), drop_(o.rpc_drop), disconnect_at_(o.rpc_disconnect_at),
	  bad_xid_pending_(o.rpc_bad_xid)
{
}

namespace {

void ErrVers(cmkit_rpcrdma_reply *rep)
{
	rep->hdr.rdma_proc = CMKIT_RPCRDMA_ERROR;
	rep->rdma_err = CMKIT_RPCRDMA_ERR_VERS;
	rep->low = CMKIT_RPCRDMA_VERSION;
	rep->high = CMKIT_RPCRDMA_VERSION;
}

void ErrChunk(cmkit_rpcrdma_reply *rep)
{
	rep->hdr.rdma_proc = CMKIT_RPCRDMA_ERROR;
	rep->rdma_err = CMKIT_RPCRDMA_ERR_CHUNK;
}

void Denied(cmkit_rpcrdma_reply *rep, uint32_t reject_stat)
{
	rep->reply_stat = CMKIT_RPC_MSG_DENIED;
	rep->reject_stat = reject_stat;
}

} // namespace

const char *RpcResponder::ChooseMalformed(const CallDecision &d, size_t len,
					  cmkit_rpcrdma_reply *rep) const
{
	const uint32_t proc = d.call.hdr.rdma_proc;

	if (len < CMKIT_RPCRDMA_FIXED_LEN)
		return "dropped";	// not even an xid to answer
	switch (d.decode) {
	case CMKIT_RPCRDMA_E_VERS:
		ErrVers(rep);
		return "err_vers";
	case CMKIT_RPCRDMA_E_RPCVERS:
		Denied(rep, CMKIT_RPC_MISMATCH);
		rep->low = CMKIT_RPC_VERSION;
		rep->high = CMKIT_RPC_VERSION;
		return "rpc_mismatch";
	case CMKIT_RPCRDMA_E_AUTH_LEN:
		Denied(rep, CMKIT_RPC_AUTH_ERROR);
		rep->auth_stat = CMKIT_RPC_AUTH_BADCRED;
		return "auth_error";
	case CMKIT_RPCRDMA_E_PROC:
		if (proc == CMKIT_RPCRDMA_DONE || proc == CMKIT_RPCRDMA_ERROR)
			return "dropped";
		/* fall through */
	case CMKIT_RPCRDMA_E_SHORT:
	case CMKIT_RPCRDMA_E_XDR:
	case CMKIT_RPCRDMA_E_CHUNKS:
		if (!d.call.hdr.len) {	// the transport header itself is bad
			ErrChunk(rep);
			return "err_chunk";
		}
		return "dropped";
	default:
		return "dropped";
	}
}

const char *RpcResponder::Choose(const CallDecision &d, cmkit_rpcrdma_reply *rep) const
{
	switch (error_) {
	case RpcError::kVers:
		ErrVers(rep);
		return "err_vers";
	case RpcError::kChunk:
		ErrChunk(rep);
		return "err_chunk";
	case RpcError::kNone:
		break;
	}
	rep->reply_stat = CMKIT_RPC_MSG_ACCEPTED;
	rep->verf_flavor = CMKIT_RPC_AUTH_NONE;
	switch (reject_) {
	case RpcReject::kProg:
		rep->accept_stat = CMKIT_RPC_PROG_UNAVAIL;
		return "prog_unavail";
	case RpcReject::kProgVers:
		// Supported: only the version after the one asked for.
		rep->accept_stat = CMKIT_RPC_PROG_MISMATCH;
		rep->low = d.call.vers + 1;
		rep->high = d.call.vers + 1;
		return "prog_mismatch";
	case RpcReject::kProc:
		rep->accept_stat = CMKIT_RPC_PROC_UNAVAIL;
		return "proc_unavail";
	case RpcReject::kGarbage:
		rep->accept_stat = CMKIT_RPC_GARBAGE_ARGS;
		return "garbage_args";
	case RpcReject::kSystem:
		rep->accept_stat = CMKIT_RPC_SYSTEM_ERR;
		return "system_err";
	case RpcReject::kRpcVers:
		Denied(rep, CMKIT_RPC_MISMATCH);
		rep->low = CMKIT_RPC_VERSION;
		rep->high = CMKIT_RPC_VERSION;
		return "rpc_mismatch";
	case RpcReject::kAuth:
		Denied(rep, CMKIT_RPC_AUTH_ERROR);
		rep->auth_stat = CMKIT_RPC_AUTH_TOOWEAK;
		return "auth_error";
	case RpcReject::kNone:
		break;
	}
	if (d.call.proc != CMKIT_RPC_NULL_PROC) {	// only NULL is served
		rep->accept_stat = CMKIT_RPC_PROC_UNAVAIL;
		return "proc_unavail";
	}
	rep->accept_stat = CMKIT_RPC_SUCCESS;
	return "success";
}

void RpcResponder::Encode(const cmkit_rpcrdma_reply &rep, ServerMsg *m)
{
	int len = cmkit_rpcrdma_encode_reply(m->bytes, sizeof(m->bytes), &rep);

	// Every reply built here fits CMKIT_RPCRDMA_MAX_REPLY_LEN.
	m->len = len > 0 ? static_cast<uint32_t>(len) : 0;
	switch (corrupt_) {
	case RpcCorrupt::kShort:
		if (m->len > CMKIT_RPCRDMA_FIXED_LEN)
			m->len = CMKIT_RPCRDMA_FIXED_LEN;
		break;
	case RpcCorrupt::kXid:
		// The RPC xid of an RDMA_MSG follows the three empty lists.
		if (rep.hdr.rdma_proc == CMKIT_RPCRDMA_MSG && m->len >= CMKIT_RPCRDMA_HDR_LEN + 4)
			cmkit_put_be32(m->bytes + CMKIT_RPCRDMA_HDR_LEN, ~rep.hdr.rdma_xid);
		break;
	case RpcCorrupt::kVers:
		cmkit_put_be32(m->bytes + 4, CMKIT_RPCRDMA_VERSION + 1);
		break;
	case RpcCorrupt::kNone:
		break;
	}
	replies_++;
}

void RpcResponder::OnCall(const void *buf, size_t len, CallDecision *d)
{
	*d = CallDecision();
	d->n = ++calls_;
	d->decode = cmkit_rpcrdma_decode_call(buf, len, &d->call);
	if (d->decode != CMKIT_RPCRDMA_OK)
		malformed_++;
	if (d->n == disconnect_at_) {
		d->result = "disconnect";
		d->disconnect = true;
		dropped_++;
		return;
	}
	if (d->n == drop_) {
		d->result = "dropped";
		dropped_++;
		return;
	}

	cmkit_rpcrdma_reply rep;
	memset(&rep, 0, sizeof(rep));
	rep.hdr.rdma_xid = d->call.hdr.rdma_xid;
	rep.hdr.rdma_credit = credits_;
	rep.hdr.rdma_proc = CMKIT_RPCRDMA_MSG;
	d->result = d->decode == CMKIT_RPCRDMA_OK ? Choose(*d, &rep)
						  : ChooseMalformed(*d, len, &rep);
	if (!strcmp(d->result, "dropped")) {
		dropped_++;
		return;
	}
	if (bad_xid_pending_) {
		// A SUCCESS reply to an xid no call of this connection has.
		cmkit_rpcrdma_reply other;
		memset(&other, 0, sizeof(other));
		other.hdr.rdma_xid = rep.hdr.rdma_xid ^ 0x80000000U;
		other.hdr.rdma_credit = credits_;
		other.hdr.rdma_proc = CMKIT_RPCRDMA_MSG;
		Encode(other, &d->replies[d->nreplies++]);
		d->bad_xid = true;
		d->bad_xid_value = other.hdr.rdma_xid;
		bad_xid_pending_ = false;
		bad_xid_++;
	}
	Encode(rep, &d->replies[d->nreplies++]);
	if (!strcmp(d->result, "success"))
		success_++;
	else
		errors_++;
}

} // namespace cmkit_peer
