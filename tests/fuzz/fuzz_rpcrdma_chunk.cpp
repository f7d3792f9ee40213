// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// libFuzzer target: the RPC-over-RDMA v1 chunk-list decoders (transport
// header as a call and as a reply, replies and calls with chunks, the RPC
// messages alone as a chunk's memory holds them), with the encoders as
// oracles: every header decoded is written back byte for byte.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cmkit/rpcrdma_chunk.h"
#include "cmkit/rpcrdma_msg.h"

namespace {

using Chunks = struct cmkit_rpcrdma_chunks;

bool Inside(const cmkit_u8 *p, cmkit_size n, const uint8_t *base, size_t size)
{
	if (!p)
		return n == 0;
	return p >= base && p <= base + size && n <= size_t(base + size - p);
}

bool KnownResult(int rc)
{
	return rc == CMKIT_RPCRDMA_OK || (rc <= CMKIT_RPCRDMA_E_SHORT && rc >= CMKIT_RPCRDMA_E_RPCVERS) ||
	       (rc <= CMKIT_RPCRDMA_E_ERR_VERS && rc >= CMKIT_RPCRDMA_E_AUTH_ERROR);
}

// What any decoder leaves in @ch, finished or not, is within the bounds.
void CheckBounds(const Chunks &ch)
{
	if (ch.nr_read > CMKIT_RPCRDMA_MAX_SEGS || ch.nr_write > 1 || ch.has_reply > 1 ||
	    ch.write_segs > CMKIT_RPCRDMA_MAX_SEGS || ch.reply_segs > CMKIT_RPCRDMA_MAX_SEGS ||
	    (ch.nr_write && !ch.write_segs) || (!ch.nr_write && ch.write_segs) ||
	    (ch.has_reply && !ch.reply_segs) || (!ch.has_reply && ch.reply_segs))
		abort();
	for (cmkit_u32 i = 0; i < ch.nr_read; i++)
		if ((ch.read_pos[i] & 3) || (i && ch.read_pos[i] < ch.read_pos[i - 1]))
			abort();
}

// A decoded header, written back, is the input's first @h.len bytes; one
// byte less of it is short.
void CheckReencoded(const uint8_t *p, const struct cmkit_rpcrdma_hdr &h, const Chunks &ch,
		    int is_call)
{
	std::vector<cmkit_u8> again(CMKIT_RPCRDMA_MAX_HDR_LEN);
	int n = cmkit_rpcrdma_encode_hdr(again.data(), again.size(), h.rdma_xid, h.rdma_vers,
					 h.rdma_credit, h.rdma_proc, &ch);
	if (n <= 0 || size_t(n) != h.len || std::memcmp(again.data(), p, n))
		abort();
	if (h.read_chunks != ch.nr_read || h.write_chunks != ch.nr_write ||
	    h.write_segs != ch.write_segs || h.reply_chunk != ch.has_reply ||
	    h.reply_segs != ch.reply_segs)
		abort();
	std::vector<uint8_t> cut(p, p + n - 1);
	struct cmkit_rpcrdma_hdr h2;
	Chunks ch2;
	if (cmkit_rpcrdma_decode_hdr(cut.data(), cut.size(), is_call, &h2, &ch2) !=
	    CMKIT_RPCRDMA_E_SHORT)
		abort();
}

void CheckHdr(const uint8_t *p, size_t size, int is_call)
{
	struct cmkit_rpcrdma_hdr h;
	Chunks ch;
	int rc = cmkit_rpcrdma_decode_hdr(size ? p : nullptr, size, is_call, &h, &ch);

	if (rc != CMKIT_RPCRDMA_OK && rc != CMKIT_RPCRDMA_E_SHORT && rc != CMKIT_RPCRDMA_E_VERS &&
	    rc != CMKIT_RPCRDMA_E_PROC && rc != CMKIT_RPCRDMA_E_XDR && rc != CMKIT_RPCRDMA_E_CHUNKS)
		abort();
	if (size < CMKIT_RPCRDMA_FIXED_LEN && rc != CMKIT_RPCRDMA_E_SHORT)
		abort();
	CheckBounds(ch);
	if (rc != CMKIT_RPCRDMA_OK) {
		if (h.len)
			abort();
		return;
	}
	if (h.len > size || h.len > CMKIT_RPCRDMA_MAX_HDR_LEN || h.rdma_vers != CMKIT_RPCRDMA_VERSION)
		abort();
	if (h.rdma_proc == CMKIT_RPCRDMA_NOMSG &&
	    (is_call ? !ch.nr_read || ch.read_pos[0] : !ch.has_reply))
		abort();
	CheckReencoded(p, h, ch, is_call);
	// The lengths: the read chunks' add up to the read list's, the offer
	// is within itself.
	cmkit_u64 total = 0, by_pos = 0;
	for (cmkit_u32 i = 0; i < ch.nr_read; i++) {
		total += ch.read[i].length;
		if (!i || ch.read_pos[i] != ch.read_pos[i - 1])
			by_pos += cmkit_rpcrdma_read_len(&ch, ch.read_pos[i]);
	}
	if (total <= 0xffffffffULL && total != by_pos)
		abort();
	cmkit_u32 wlen, rlen;
	Chunks no_read = ch;
	no_read.nr_read = 0;
	if (cmkit_rpcrdma_check_reply_chunks(&ch, &no_read, &wlen, &rlen) == CMKIT_RPCRDMA_OK &&
	    (wlen != cmkit_rpcrdma_write_len(&ch) || rlen != cmkit_rpcrdma_reply_len(&ch)))
		abort();
	if (ch.nr_read && cmkit_rpcrdma_check_reply_chunks(&ch, &ch, &wlen, &rlen) == CMKIT_RPCRDMA_OK)
		abort();	// a reply's read list is never within an offer
}

// A SUCCESS reply written back equals the input but for the verifier's
// padding, which the encoder zeroes.
void CheckSameReply(const uint8_t *p, size_t size, const cmkit_u8 *again, int n,
		    size_t rpc_off, cmkit_u32 verf_len)
{
	if (n <= 0 || size_t(n) != size)
		abort();
	size_t pad_from = rpc_off + 20 + verf_len, pad_to = rpc_off + 20 + ((verf_len + 3) & ~3U);
	for (size_t i = 0; i < size; i++)
		if ((i < pad_from || i >= pad_to) && again[i] != p[i])
			abort();
}

void CheckReply(const uint8_t *p, size_t size)
{
	struct cmkit_rpcrdma_reply rep;
	Chunks ch;
	int rc = cmkit_rpcrdma_decode_reply_chunks(size ? p : nullptr, size, &rep, &ch);

	if (!KnownResult(rc) || cmkit_rpcrdma_result_class(rc) == CMKIT_RPCRDMA_LOCAL)
		abort();
	CheckBounds(ch);
	if (!Inside(rep.verf, rep.verf_len, p, size) || rep.verf_len > CMKIT_RPC_MAX_AUTH_LEN ||
	    !Inside(rep.results, rep.results_len, p, size) || rep.hdr.len > size)
		abort();
	if (rc != CMKIT_RPCRDMA_OK)
		return;
	if (ch.nr_read)
		abort();
	CheckReencoded(p, rep.hdr, ch, 0);
	std::vector<cmkit_u8> again(size + 1);
	if (rep.hdr.rdma_proc == CMKIT_RPCRDMA_NOMSG) {
		if (rep.xid || rep.results || rep.verf || !cmkit_rpcrdma_reply_len(&ch) ||
		    cmkit_rpcrdma_write_len(&ch))
			abort();
		int n = cmkit_rpcrdma_encode_reply_chunks(again.data(), again.size(), &rep, &ch,
							  nullptr, 0);
		if (n <= 0 || size_t(n) != rep.hdr.len || std::memcmp(again.data(), p, n))
			abort();
		return;
	}
	if (rep.hdr.rdma_proc != CMKIT_RPCRDMA_MSG || cmkit_rpcrdma_reply_len(&ch) ||
	    rep.xid != rep.hdr.rdma_xid || rep.results + rep.results_len != p + size)
		abort();
	int n = cmkit_rpcrdma_encode_reply_chunks(again.data(), again.size(), &rep, &ch,
						  rep.results, rep.results_len);
	CheckSameReply(p, size, again.data(), n, rep.hdr.len, rep.verf_len);
}

void CheckCall(const uint8_t *p, size_t size)
{
	struct cmkit_rpcrdma_call call;
	Chunks ch;
	int rc = cmkit_rpcrdma_decode_call_chunks(size ? p : nullptr, size, &call, &ch);

	if (!KnownResult(rc) || rc <= CMKIT_RPCRDMA_E_ERR_VERS)
		abort();	// a call decoder never reports a reply's outcomes
	CheckBounds(ch);
	if (!Inside(call.cred, call.cred_len, p, size) || call.cred_len > CMKIT_RPC_MAX_AUTH_LEN ||
	    !Inside(call.verf, call.verf_len, p, size) || call.verf_len > CMKIT_RPC_MAX_AUTH_LEN ||
	    !Inside(call.args, call.args_len, p, size) || call.hdr.len > size)
		abort();
	if (rc != CMKIT_RPCRDMA_OK)
		return;
	CheckReencoded(p, call.hdr, ch, 1);
	if (call.hdr.rdma_proc == CMKIT_RPCRDMA_NOMSG) {
		if (call.xid || call.prog || call.args || !ch.nr_read || ch.read_pos[0])
			abort();
		return;
	}
	if (call.args + call.args_len != p + size || call.xid != call.hdr.rdma_xid ||
	    call.rpcvers != CMKIT_RPC_VERSION)
		abort();
	size_t args_off = size_t(call.args - (p + call.hdr.len));
	for (cmkit_u32 i = 0; i < ch.nr_read; i++)
		if (ch.read_pos[i] < args_off || ch.read_pos[i] > size - call.hdr.len)
			abort();
	// A call as cmkit writes one (AUTH_NONE, empty bodies) is exactly what
	// the encoder writes.
	if (call.cred_flavor == CMKIT_RPC_AUTH_NONE && call.verf_flavor == CMKIT_RPC_AUTH_NONE &&
	    !call.cred_len && !call.verf_len) {
		std::vector<cmkit_u8> again(size + 1);
		int n = cmkit_rpcrdma_encode_call(again.data(), again.size(), call.xid,
						  call.hdr.rdma_credit, call.prog, call.vers,
						  call.proc, &ch, call.args, call.args_len);
		if (n <= 0 || size_t(n) != size || std::memcmp(again.data(), p, size))
			abort();
	}
}

// The whole input as a chunk's memory: an RPC reply (its xid taken as the
// transport's) and an RPC call.
void CheckRpcMessages(const uint8_t *p, size_t size)
{
	cmkit_u32 xid = size >= 4 ? cmkit_get_be32(p) : 0;
	struct cmkit_rpcrdma_reply rep {};
	rep.hdr.rdma_xid = 0x5a5a5a5a;
	rep.hdr.len = 77;
	int rc = cmkit_rpcrdma_decode_rpc_reply(size ? p : nullptr, size, xid, &rep);
	if (!KnownResult(rc) || rc == CMKIT_RPCRDMA_E_ERR_VERS || rc == CMKIT_RPCRDMA_E_ERR_CHUNK ||
	    rep.hdr.rdma_xid != 0x5a5a5a5a || rep.hdr.len != 77 ||
	    !Inside(rep.verf, rep.verf_len, p, size) || !Inside(rep.results, rep.results_len, p, size))
		abort();
	if (rc == CMKIT_RPCRDMA_OK) {
		std::vector<cmkit_u8> again(size + 1);
		rep.hdr.rdma_xid = xid;
		int n = cmkit_rpcrdma_encode_rpc_reply(again.data(), again.size(), &rep, rep.results,
						       rep.results_len);
		CheckSameReply(p, size, again.data(), n, 0, rep.verf_len);
	}

	struct cmkit_rpcrdma_call call {};
	call.hdr.rdma_xid = xid;
	call.hdr.rdma_proc = CMKIT_RPCRDMA_NOMSG;
	rc = cmkit_rpcrdma_decode_rpc_call(size ? p : nullptr, size, &call);
	if (!KnownResult(rc) || rc <= CMKIT_RPCRDMA_E_ERR_VERS || call.hdr.rdma_xid != xid ||
	    call.hdr.rdma_proc != CMKIT_RPCRDMA_NOMSG || !Inside(call.cred, call.cred_len, p, size) ||
	    !Inside(call.verf, call.verf_len, p, size) || !Inside(call.args, call.args_len, p, size))
		abort();
	if (rc == CMKIT_RPCRDMA_OK && call.cred_flavor == CMKIT_RPC_AUTH_NONE &&
	    call.verf_flavor == CMKIT_RPC_AUTH_NONE && !call.cred_len && !call.verf_len) {
		std::vector<cmkit_u8> again(size + 1);
		int n = cmkit_rpcrdma_encode_rpc_call(again.data(), again.size(), call.xid, call.prog,
						      call.vers, call.proc, call.args,
						      call.args_len);
		if (n <= 0 || size_t(n) != size || std::memcmp(again.data(), p, size))
			abort();
	}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// An exact-size heap copy: ASan catches any read past the message.
	std::vector<uint8_t> buf(data, data + size);
	CheckHdr(buf.data(), size, 1);
	CheckHdr(buf.data(), size, 0);
	CheckReply(buf.data(), size);
	CheckCall(buf.data(), size);
	CheckRpcMessages(buf.data(), size);
	return 0;
}
