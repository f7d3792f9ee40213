// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
//
// cmkit-peer serve --rpc's answers (see rpc_responder.h).
#include "rpc_responder.h"

#include <algorithm>
#include <cstring>

#include "cmkit/crc32c.h"
#include "cmkit/rpc_testprog.h"
#include "cmkit/rpcrdma_cmp.h"

namespace cmkit_peer {

namespace {

const std::vector<uint8_t> kNoResults;

} // namespace

RpcResponder::RpcResponder(const Options &o)
	: credits_(o.credits), inline_send_(o.has_cmp ? o.cmp_send : CMKIT_RPCRDMA_DEFAULT_INLINE),
	  error_(o.rpc_error), reject_(o.rpc_reject),
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

uint64_t Pad4(uint64_t n)
{
	return (n + 3) & ~3ULL;
}

// Where a call's arguments start in its RPC message, counted from the
// xid as read chunk positions are: six words, then the credential and the
// verifier (flavor, length, body padded to 4).
uint32_t ArgsOffset(const cmkit_rpcrdma_call &c)
{
	return static_cast<uint32_t>(24 + 8 + Pad4(c.cred_len) + 8 + Pad4(c.verf_len));
}

bool IsTestProg(const cmkit_rpcrdma_call &c)
{
	return c.prog == CMKIT_RPC_TESTPROG && c.vers == CMKIT_RPC_TESTPROG_VERS;
}

// SINK's results: the length and the CRC32c of what arrived.
std::vector<uint8_t> SinkResults(uint32_t len, uint32_t crc)
{
	std::vector<uint8_t> r(8);
	cmkit_put_be32(r.data(), len);
	cmkit_put_be32(r.data() + 4, ~crc);
	return r;
}

// Whether a call's lists are well formed but for RDMA_NOMSG's own rule (a
// position-zero read chunk): decoded again as RDMA_MSG.
bool ListsWellFormed(const void *buf, size_t len)
{
	std::vector<uint8_t> m(static_cast<const uint8_t *>(buf),
			       static_cast<const uint8_t *>(buf) + len);
	cmkit_rpcrdma_hdr hdr;
	cmkit_rpcrdma_chunks ch;

	if (len < CMKIT_RPCRDMA_FIXED_LEN)
		return false;
	cmkit_put_be32(m.data() + 12, CMKIT_RPCRDMA_MSG);
	return cmkit_rpcrdma_decode_hdr(m.data(), m.size(), 1, &hdr, &ch) == CMKIT_RPCRDMA_OK;
}

// A SUCCESS reply of @results_len inline result bytes, to go whole into
// the reply chunk @ch offers: the chunk kept in @d->work ("pending"), or
// ERR_CHUNK when the reply does not fit it (svc_rdma_prepare_reply_chunk():
// -E2BIG, and svc_rdma_sendto() sends RDMA_ERROR ERR_CHUNK).
const char *ToReplyChunk(CallDecision *d, const cmkit_rpcrdma_chunks &ch, uint64_t results_len,
			 cmkit_rpcrdma_reply *rep)
{
	if (CMKIT_RPCRDMA_RPC_REPLY_LEN + results_len > cmkit_rpcrdma_reply_len(&ch)) {
		ErrChunk(rep);
		return "err_chunk";
	}
	d->work.reply_segs = ch.reply_segs;
	std::copy(ch.reply, ch.reply + ch.reply_segs, d->work.reply);
	return nullptr;
}

// The read list's segments (one chunk's, checked), RDMA Reads packed from
// offset 0 of the bulk buffer in order; empty segments skipped.
void PackReads(const cmkit_rpcrdma_chunks &ch, std::vector<BulkMove> *reads)
{
	uint32_t off = 0;
	for (uint32_t i = 0; i < ch.nr_read; i++) {
		if (!ch.read[i].length)
			continue;
		reads->push_back({ch.read[i].handle, ch.read[i].offset, ch.read[i].length, off});
		off += ch.read[i].length;
	}
}

// @len bytes from offset 0 of the bulk buffer into the @n segments @segs
// (together at least @len) in order, an RDMA Write for each that takes
// some; each goes back in @out with the bytes written there (0 for one
// left unused), as svcrdma's svc_rdma_encode_write_segment() says.
void Spread(const cmkit_rpcrdma_seg *segs, uint32_t n, uint32_t len, cmkit_rpcrdma_seg *out,
	    std::vector<BulkMove> *writes)
{
	uint32_t off = 0;
	for (uint32_t i = 0; i < n; i++) {
		const uint32_t k = std::min(segs[i].length, len - off);
		out[i] = segs[i];
		out[i].length = k;
		if (k)
			writes->push_back({segs[i].handle, segs[i].offset, k, off});
		off += k;
	}
}

// An opaque<> result inline: its length, @len bytes of @data, zero pad.
std::vector<uint8_t> OpaqueResults(const uint8_t *data, uint32_t len)
{
	std::vector<uint8_t> r(4 + Pad4(len), 0);
	cmkit_put_be32(r.data(), len);
	if (len)
		memcpy(r.data() + 4, data, len);
	return r;
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
		if (!d.call.hdr.len) {	// the transport header itself is bad
			ErrChunk(rep);
			return "err_chunk";
		}
		return "dropped";
	case CMKIT_RPCRDMA_E_CHUNKS:
		// decode_call_chunks(): lists over the bounds, or a read chunk
		// outside the arguments.
		ErrChunk(rep);
		return "err_chunk";
	default:
		return "dropped";
	}
}

const char *RpcResponder::Choose(const CallDecision &d, const cmkit_rpcrdma_chunks &ch,
				 cmkit_rpcrdma_reply *rep) const
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
	if (d.call.proc == CMKIT_RPC_NULL_PROC) {
		if (ch.nr_read) {	// NULL has no argument to carry
			ErrChunk(rep);
			return "err_chunk";
		}
		rep->accept_stat = CMKIT_RPC_SUCCESS;	// a write or reply chunk goes unused
		return "success";
	}
	if (IsTestProg(d.call) && d.call.proc <= CMKIT_RPC_TESTPROG_MIRROR)
		return nullptr;
	// Only NULL and the test program's procedures are served.
	rep->accept_stat = CMKIT_RPC_PROC_UNAVAIL;
	return "proc_unavail";
}

// The rules, as svcrdma moves a procedure's data:
//  - the argument of ECHO, SINK and MIRROR is an opaque<>: its length word
//    inline, its bytes inline after it or in the read chunk at the
//    position right after the length word (one chunk, any number of
//    segments, together exactly the length); FILL takes two words inline
//    and no read chunk.  (svcrdma pulls any read chunk into the call
//    before the procedure decodes it, MIRROR's too: DDP-eligibility is a
//    requester's choice.)
//  - when the call offers a reply chunk, the whole reply goes there
//    (svc_rdma_sendto(): RDMA_NOMSG whenever the reply chunk is present),
//    if it fits (else ERR_CHUNK), and a write chunk offered too is left
//    unused: svcrdma would write the bulk result there and the rest into
//    the reply chunk, an RDMA_NOMSG with write chunk bytes that
//    xprtrdma's rpcrdma_decode_nomsg() (and
//    cmkit_rpcrdma_decode_reply_chunks()) refuse;
//  - else the result of ECHO and FILL is an opaque<>: with a write chunk,
//    its bytes go there (the chunk must hold them all) and only the length
//    word inline; MIRROR's result (not DDP-eligible) and the others go all
//    inline, if the reply fits the client's inline receive size;
// else ERR_CHUNK.  Arguments short of what they say are GARBAGE_ARGS; data
// over kBulkMax that would pass through the bulk buffer is SYSTEM_ERR.
const char *RpcResponder::Serve(CallDecision *d, const cmkit_rpcrdma_chunks &ch,
				cmkit_rpcrdma_reply *rep, std::vector<uint8_t> *results) const
{
	const cmkit_rpcrdma_call &c = d->call;
	BulkWork &w = d->work;
	const uint32_t proc = c.proc;

	w.proc = proc;
	if (c.args_len < (proc == CMKIT_RPC_TESTPROG_FILL ? 8U : 4U)) {
		rep->accept_stat = CMKIT_RPC_GARBAGE_ARGS;
		return "garbage_args";
	}
	w.len = cmkit_get_be32(c.args);
	if (proc == CMKIT_RPC_TESTPROG_FILL) {
		w.seed = cmkit_get_be32(c.args + 4);
		if (ch.nr_read) {
			ErrChunk(rep);
			return "err_chunk";
		}
	} else if (ch.nr_read) {
		const uint32_t pos = ArgsOffset(c) + 4;
		for (uint32_t i = 0; i < ch.nr_read; i++) {
			if (ch.read_pos[i] != pos) {
				ErrChunk(rep);
				return "err_chunk";
			}
		}
		if (cmkit_rpcrdma_read_len(&ch, pos) != w.len) {
			ErrChunk(rep);
			return "err_chunk";
		}
		w.from_chunk = true;
	} else if (c.args_len - 4 < w.len) {
		rep->accept_stat = CMKIT_RPC_GARBAGE_ARGS;
		return "garbage_args";
	}

	// The inline results: SINK's two words, else an opaque<> of the data.
	const uint64_t results_len = proc == CMKIT_RPC_TESTPROG_SINK ? 8 : 4 + Pad4(w.len);
	const bool to_reply = ch.has_reply;
	const bool to_chunk = !to_reply && ch.nr_write &&
		(proc == CMKIT_RPC_TESTPROG_ECHO || proc == CMKIT_RPC_TESTPROG_FILL);
	if (to_reply) {
		const char *refused = ToReplyChunk(d, ch, results_len, rep);
		if (refused)
			return refused;
	}
	if (to_chunk && cmkit_rpcrdma_write_len(&ch) < w.len) {
		ErrChunk(rep);
		return "err_chunk";
	}
	if (proc != CMKIT_RPC_TESTPROG_SINK && !to_chunk && !to_reply &&
	    CMKIT_RPCRDMA_HDR_LEN + CMKIT_RPCRDMA_RPC_REPLY_LEN + results_len > inline_send_) {
		ErrChunk(rep);	// too large to go inline, and no write or reply chunk
		return "err_chunk";
	}
	if ((w.from_chunk || to_chunk || to_reply) && w.len > kBulkMax) {
		rep->accept_stat = CMKIT_RPC_SYSTEM_ERR;
		return "system_err";
	}

	const uint8_t *arg = c.args + 4;	// an inline argument's bytes
	if (w.from_chunk || to_chunk) {
		if (w.from_chunk)
			PackReads(ch, &w.reads);
		if (to_chunk) {
			w.write_segs = ch.write_segs;
			std::copy(ch.write, ch.write + ch.write_segs, w.write);
		}
		if (!w.from_chunk && proc == CMKIT_RPC_TESTPROG_ECHO)
			w.data.assign(arg, arg + w.len);
		d->bulk = true;
		return "pending";
	}
	rep->accept_stat = CMKIT_RPC_SUCCESS;
	if (proc == CMKIT_RPC_TESTPROG_SINK) {
		*results = SinkResults(w.len, cmkit_crc32c(CMKIT_CRC32C_SEED, arg, w.len));
	} else if (proc == CMKIT_RPC_TESTPROG_FILL) {
		results->assign(4 + Pad4(w.len), 0);
		cmkit_put_be32(results->data(), w.len);
		for (uint32_t i = 0; i < w.len; i++)
			(*results)[4 + i] = cmkit_rpc_testprog_byte(w.seed, i);
	} else {	// ECHO, MIRROR
		*results = OpaqueResults(arg, w.len);
	}
	if (to_reply) {	// the bulk buffer only to write them from
		w.ready = true;
		w.results = *results;
		d->bulk = true;
		return "pending";
	}
	return "success";
}

const char *RpcResponder::ReadCall(CallDecision *d, const cmkit_rpcrdma_chunks &ch,
				   cmkit_rpcrdma_reply *rep)
{
	BulkWork &w = d->work;

	// svcrdma also takes read chunks at other positions with a
	// position-zero chunk (svc_rdma_read_call_chunk() splices them in);
	// cmkit sends the whole call in one chunk, and here that is all.
	for (uint32_t i = 0; i < ch.nr_read; i++) {
		if (ch.read_pos[i]) {
			ErrChunk(rep);
			return "err_chunk";
		}
	}
	// Over the buffer, as over svcrdma's page budget
	// (xdr_count_read_segments(): -EINVAL, answered ERR_CHUNK).
	const uint32_t call_len = cmkit_rpcrdma_read_len(&ch, 0);
	if (call_len > kBulkBytes) {
		ErrChunk(rep);
		return "err_chunk";
	}
	w.nomsg = true;
	w.call_len = call_len;
	w.lists = ch;
	w.lists.nr_read = 0;
	PackReads(ch, &w.reads);
	d->nomsg = true;
	d->bulk = true;
	nomsg_calls_++;
	return "pending";
}

bool RpcResponder::Conclude(CallDecision *d, const cmkit_rpcrdma_chunks &ch,
			    cmkit_rpcrdma_reply *rep, std::vector<uint8_t> *results)
{
	// NULL's SUCCESS goes into a reply chunk too.
	if (!strcmp(d->result, "success") && ch.has_reply) {
		const char *refused = ToReplyChunk(d, ch, results->size(), rep);
		if (refused) {
			d->result = refused;
		} else {
			d->work.ready = true;
			d->work.results = *results;
			d->bulk = true;
			d->result = "pending";
		}
	}
	if (!strcmp(d->result, "dropped")) {
		dropped_++;
		return false;
	}
	if (d->bulk)
		return true;	// Finish() answers it
	Answer(d, *rep, nullptr, !strcmp(d->result, "success") ? results : nullptr);
	return false;
}

bool RpcResponder::ServeCall(CallDecision *d, uint8_t *bulk)
{
	const BulkWork w = std::move(d->work);
	cmkit_rpcrdma_reply rep;
	std::vector<uint8_t> results;

	d->work = BulkWork();
	d->bulk = false;
	d->read_bytes = w.call_len;
	memset(&rep, 0, sizeof(rep));
	rep.hdr.rdma_xid = d->call.hdr.rdma_xid;
	rep.hdr.rdma_credit = credits_;
	rep.hdr.rdma_proc = CMKIT_RPCRDMA_MSG;
	// The call from its xid on, as decode_call() takes one inline (its
	// table answers a bad one: the transport header was good).
	d->decode = cmkit_rpcrdma_decode_rpc_call(bulk, w.call_len, &d->call);
	if (d->decode != CMKIT_RPCRDMA_OK) {
		malformed_++;
		d->result = ChooseMalformed(*d, CMKIT_RPCRDMA_FIXED_LEN, &rep);
	} else {
		if (IsTestProg(d->call))
			d->procedure = cmkit_rpc_testprog_name(d->call.proc);
		d->result = Choose(*d, w.lists, &rep);
		if (!d->result)
			d->result = Serve(d, w.lists, &rep, &results);
	}
	return Conclude(d, w.lists, &rep, &results);
}

void RpcResponder::Finish(CallDecision *d, uint8_t *bulk)
{
	if (d->work.nomsg && !ServeCall(d, bulk))
		return;	// answered (or dropped) at once

	const BulkWork &w = d->work;
	cmkit_rpcrdma_reply rep;
	cmkit_rpcrdma_chunks ch;
	std::vector<uint8_t> results;

	memset(&rep, 0, sizeof(rep));
	memset(&ch, 0, sizeof(ch));
	rep.hdr.rdma_xid = d->call.hdr.rdma_xid;
	rep.hdr.rdma_credit = credits_;
	rep.hdr.rdma_proc = CMKIT_RPCRDMA_MSG;
	rep.reply_stat = CMKIT_RPC_MSG_ACCEPTED;
	rep.verf_flavor = CMKIT_RPC_AUTH_NONE;
	rep.accept_stat = CMKIT_RPC_SUCCESS;
	d->result = "success";
	if (w.ready) {	// the results known, for the reply chunk
		Reply(d, &rep, w.results, bulk);
		return;
	}
	if (w.from_chunk)
		d->read_bytes = w.len;
	if (w.proc == CMKIT_RPC_TESTPROG_SINK) {
		// The CRC runs on through the pieces as they were read.
		uint32_t crc = CMKIT_CRC32C_SEED;
		for (const BulkMove &m : w.reads)
			crc = cmkit_crc32c(crc, bulk + m.local, m.len);
		Reply(d, &rep, SinkResults(w.len, crc), bulk);
		return;
	}
	if (w.proc == CMKIT_RPC_TESTPROG_FILL) {
		for (uint32_t i = 0; i < w.len; i++)
			bulk[i] = cmkit_rpc_testprog_byte(w.seed, i);
	} else if (!w.from_chunk && w.len) {
		memcpy(bulk, w.data.data(), w.len);
	}
	if (!w.write_segs) {	// ECHO or MIRROR from the read chunk
		Reply(d, &rep, OpaqueResults(bulk, w.len), bulk);
		return;
	}
	// The data into the write chunk.
	ch.nr_write = 1;
	ch.write_segs = w.write_segs;
	Spread(w.write, w.write_segs, w.len, ch.write, &d->writes);
	d->written_bytes = w.len;
	results.assign(4, 0);	// the length word alone inline
	cmkit_put_be32(results.data(), w.len);
	Answer(d, rep, &ch, &results);
}

// As svc_rdma_prepare_reply_chunk() and svc_rdma_encode_reply_chunk(): the
// whole RPC reply written into the reply chunk's segments in order, each
// segment echoed with the bytes written there, and an RDMA_NOMSG header
// alone sent.
void RpcResponder::Reply(CallDecision *d, cmkit_rpcrdma_reply *rep,
			 const std::vector<uint8_t> &results, uint8_t *bulk)
{
	const BulkWork &w = d->work;

	if (!w.reply_segs) {
		Answer(d, *rep, nullptr, &results);
		return;
	}
	std::vector<uint8_t> msg(CMKIT_RPCRDMA_RPC_REPLY_LEN + results.size());
	const int len = cmkit_rpcrdma_encode_rpc_reply(msg.data(), msg.size(), rep,
						       results.data(), results.size());
	uint32_t room = 0;
	for (uint32_t i = 0; i < w.reply_segs; i++)
		room += w.reply[i].length;
	if (len <= 0 || static_cast<uint32_t>(len) > std::min(room, kBulkBytes)) {
		// Checked before (ToReplyChunk()): only a bug gets here.
		memset(rep, 0, sizeof(*rep));
		rep->hdr.rdma_xid = d->call.hdr.rdma_xid;
		rep->hdr.rdma_credit = credits_;
		ErrChunk(rep);
		d->result = "err_chunk";
		Answer(d, *rep, nullptr, nullptr);
		return;
	}
	if (corrupt_ == RpcCorrupt::kXid)	// the RPC xid is in the chunk
		cmkit_put_be32(msg.data(), ~rep->hdr.rdma_xid);
	memcpy(bulk, msg.data(), static_cast<size_t>(len));

	cmkit_rpcrdma_chunks ch;
	memset(&ch, 0, sizeof(ch));
	ch.has_reply = 1;
	ch.reply_segs = w.reply_segs;
	Spread(w.reply, w.reply_segs, static_cast<uint32_t>(len), ch.reply, &d->writes);
	d->reply_bytes = static_cast<uint32_t>(len);
	rep->hdr.rdma_proc = CMKIT_RPCRDMA_NOMSG;
	Answer(d, *rep, &ch, &kNoResults);
}

void RpcResponder::Corrupt(const cmkit_rpcrdma_reply &rep, size_t xid_off, ServerMsg *m)
{
	switch (corrupt_) {
	case RpcCorrupt::kShort:
		if (m->len > CMKIT_RPCRDMA_FIXED_LEN)
			m->len = CMKIT_RPCRDMA_FIXED_LEN;
		break;
	case RpcCorrupt::kXid:
		if (rep.hdr.rdma_proc == CMKIT_RPCRDMA_MSG && m->len >= xid_off + 4)
			cmkit_put_be32(m->bytes.data() + xid_off, ~rep.hdr.rdma_xid);
		break;
	case RpcCorrupt::kVers:
		if (m->len >= 8)
			cmkit_put_be32(m->bytes.data() + 4, CMKIT_RPCRDMA_VERSION + 1);
		break;
	case RpcCorrupt::kNone:
		break;
	}
}

void RpcResponder::Encode(const cmkit_rpcrdma_reply &rep, ServerMsg *m)
{
	m->bytes.assign(CMKIT_RPCRDMA_MAX_REPLY_LEN, 0);
	int len = cmkit_rpcrdma_encode_reply(m->bytes.data(), m->bytes.size(), &rep);

	// Every reply built here fits CMKIT_RPCRDMA_MAX_REPLY_LEN.
	m->len = len > 0 ? static_cast<uint32_t>(len) : 0;
	m->bytes.resize(m->len);
	// The RPC xid of an RDMA_MSG follows the three empty lists.
	Corrupt(rep, CMKIT_RPCRDMA_HDR_LEN, m);
	replies_++;
}

void RpcResponder::EncodeResults(const cmkit_rpcrdma_reply &rep, const cmkit_rpcrdma_chunks *ch,
				 const std::vector<uint8_t> &results, ServerMsg *m)
{
	m->bytes.assign(CMKIT_RPCRDMA_MAX_HDR_LEN + CMKIT_RPCRDMA_RPC_REPLY_LEN + results.size(), 0);
	int len = cmkit_rpcrdma_encode_reply_chunks(m->bytes.data(), m->bytes.size(), &rep, ch,
						    results.data(), results.size());

	// Room for the longest header: only a bug makes it fail (an empty reply).
	m->len = len > 0 ? static_cast<uint32_t>(len) : 0;
	m->bytes.resize(m->len);
	// The RPC reply (AUTH_NONE verifier) ends an RDMA_MSG; an RDMA_NOMSG
	// has none (Corrupt() leaves its xid alone).
	if (m->len)
		Corrupt(rep, rep.hdr.rdma_proc == CMKIT_RPCRDMA_MSG
			? m->len - CMKIT_RPCRDMA_RPC_REPLY_LEN - results.size() : 0, m);
	replies_++;
}

void RpcResponder::Answer(CallDecision *d, const cmkit_rpcrdma_reply &rep,
			  const cmkit_rpcrdma_chunks *ch, const std::vector<uint8_t> *results)
{
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
	if (results)
		EncodeResults(rep, ch, *results, &d->replies[d->nreplies++]);
	else
		Encode(rep, &d->replies[d->nreplies++]);
	if (!strcmp(d->result, "success")) {
		success_++;
		if (IsTestProg(d->call))
			procs_++;
	} else {
		errors_++;
	}
	read_bytes_ += d->read_bytes;
	written_bytes_ += d->written_bytes;
	if (d->reply_bytes) {
		reply_chunks_++;
		reply_bytes_ += d->reply_bytes;
	}
}

void RpcResponder::OnCall(const void *buf, size_t len, CallDecision *d)
{
	cmkit_rpcrdma_chunks ch;
	bool unread = false;	// RDMA_NOMSG without a position-zero chunk

	*d = CallDecision();
	d->n = ++calls_;
	memset(&ch, 0, sizeof(ch));
	d->decode = cmkit_rpcrdma_decode_call(buf, len, &d->call);
	if (d->decode == CMKIT_RPCRDMA_E_CHUNKS ||
	    (d->decode == CMKIT_RPCRDMA_E_PROC && d->call.hdr.rdma_proc == CMKIT_RPCRDMA_NOMSG)) {
		// Decoded again, taking its chunks (and RDMA_NOMSG).
		d->decode = cmkit_rpcrdma_decode_call_chunks(buf, len, &d->call, &ch);
		unread = d->decode == CMKIT_RPCRDMA_E_CHUNKS &&
			 d->call.hdr.rdma_proc == CMKIT_RPCRDMA_NOMSG && ListsWellFormed(buf, len);
	}
	if (d->decode != CMKIT_RPCRDMA_OK)
		malformed_++;
	else if (IsTestProg(d->call))
		d->procedure = cmkit_rpc_testprog_name(d->call.proc);
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
	std::vector<uint8_t> results;
	if (unread) {
		// svcrdma does not look at rdma_proc: without a read chunk it
		// takes the bytes after the transport header as the call
		// (svc_rdma_recvfrom()), none for an RDMA_NOMSG, and a call of
		// length 0 is dropped unanswered (svc_handle_xprt()).
		d->result = "dropped";
	} else if (d->decode != CMKIT_RPCRDMA_OK) {
		d->result = ChooseMalformed(*d, len, &rep);
	} else if (d->call.hdr.rdma_proc == CMKIT_RPCRDMA_NOMSG) {
		d->result = ReadCall(d, ch, &rep);
	} else {
		d->result = Choose(*d, ch, &rep);
		if (!d->result)
			d->result = Serve(d, ch, &rep, &results);
	}
	Conclude(d, ch, &rep, &results);
}

} // namespace cmkit_peer
