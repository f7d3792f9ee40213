// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// libFuzzer target: the RPC-over-RDMA v1 reply decoder (client side) and
// call decoder (server side), with their encoders as oracles.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cmkit/rpcrdma_msg.h"

namespace {

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

void CheckReply(const uint8_t *p, size_t size)
{
	struct cmkit_rpcrdma_reply rep {};
	int rc = cmkit_rpcrdma_decode_reply(size ? p : nullptr, size, &rep);

	if (!KnownResult(rc) || cmkit_rpcrdma_result_class(rc) == CMKIT_RPCRDMA_LOCAL)
		abort();
	if (size < CMKIT_RPCRDMA_FIXED_LEN && rc != CMKIT_RPCRDMA_E_SHORT)
		abort();
	if (size >= CMKIT_RPCRDMA_FIXED_LEN) {
		// The early look agrees with the full decode.
		cmkit_u32 xid, credits;
		int peek = cmkit_rpcrdma_peek(p, size, &xid, &credits);
		if (xid != rep.hdr.rdma_xid || credits != rep.hdr.rdma_credit ||
		    (peek == CMKIT_RPCRDMA_E_VERS) != (rep.hdr.rdma_vers != CMKIT_RPCRDMA_VERSION) ||
		    (peek == CMKIT_RPCRDMA_E_VERS) != (rc == CMKIT_RPCRDMA_E_VERS))
			abort();
	}
	if (!Inside(rep.verf, rep.verf_len, p, size) || rep.verf_len > CMKIT_RPC_MAX_AUTH_LEN ||
	    !Inside(rep.results, rep.results_len, p, size) || rep.hdr.len > size)
		abort();
	if (rc == CMKIT_RPCRDMA_OK && rep.results + rep.results_len != p + size)
		abort();
	if (cmkit_rpcrdma_result_class(rc) == CMKIT_RPCRDMA_MALFORMED)
		return;

	// A complete reply: the encoder writes it back, the decoder reads the
	// same fields from that, and one byte less of the input is short.
	std::vector<cmkit_u8> again(CMKIT_RPCRDMA_MAX_REPLY_LEN);
	int n = cmkit_rpcrdma_encode_reply(again.data(), again.size(), &rep);
	if (n <= 0 || size_t(n) > size)
		abort();
	again.resize(n);
	struct cmkit_rpcrdma_reply rep2 {};
	if (cmkit_rpcrdma_decode_reply(again.data(), again.size(), &rep2) != rc ||
	    rep2.hdr.rdma_xid != rep.hdr.rdma_xid || rep2.hdr.rdma_credit != rep.hdr.rdma_credit ||
	    rep2.hdr.rdma_proc != rep.hdr.rdma_proc || rep2.rdma_err != rep.rdma_err ||
	    rep2.xid != rep.xid || rep2.reply_stat != rep.reply_stat ||
	    rep2.verf_flavor != rep.verf_flavor || rep2.verf_len != rep.verf_len ||
	    (rep.verf_len && std::memcmp(rep2.verf, rep.verf, rep.verf_len)) ||
	    rep2.accept_stat != rep.accept_stat || rep2.reject_stat != rep.reject_stat ||
	    rep2.auth_stat != rep.auth_stat || rep2.low != rep.low || rep2.high != rep.high ||
	    rep2.hdr.len != rep.hdr.len || rep2.results_len != 0)
		abort();
	std::vector<uint8_t> cut(p, p + n - 1);
	struct cmkit_rpcrdma_reply rep3 {};
	if (cmkit_rpcrdma_decode_reply(cut.data(), cut.size(), &rep3) != CMKIT_RPCRDMA_E_SHORT)
		abort();
}

void CheckCall(const uint8_t *p, size_t size)
{
	struct cmkit_rpcrdma_call call {};
	int rc = cmkit_rpcrdma_decode_call(size ? p : nullptr, size, &call);

	if (!KnownResult(rc) || rc <= CMKIT_RPCRDMA_E_ERR_VERS)
		abort();	// a call decoder never reports a reply's outcomes
	if (!Inside(call.cred, call.cred_len, p, size) || call.cred_len > CMKIT_RPC_MAX_AUTH_LEN ||
	    !Inside(call.verf, call.verf_len, p, size) || call.verf_len > CMKIT_RPC_MAX_AUTH_LEN ||
	    !Inside(call.args, call.args_len, p, size) || call.hdr.len > size)
		abort();
	if (rc != CMKIT_RPCRDMA_OK)
		return;
	if (call.args + call.args_len != p + size || call.xid != call.hdr.rdma_xid ||
	    call.rpcvers != CMKIT_RPC_VERSION || call.hdr.len != CMKIT_RPCRDMA_HDR_LEN)
		abort();
	// A NULL call as the client writes it is exactly what the encoder writes.
	if (call.proc == CMKIT_RPC_NULL_PROC && call.cred_flavor == CMKIT_RPC_AUTH_NONE &&
	    call.verf_flavor == CMKIT_RPC_AUTH_NONE && !call.cred_len && !call.verf_len &&
	    !call.args_len) {
		cmkit_u8 again[CMKIT_RPCRDMA_NULL_CALL_LEN];
		if (cmkit_rpcrdma_encode_null_call(again, sizeof(again), call.xid, call.hdr.rdma_credit,
						   call.prog, call.vers) != CMKIT_RPCRDMA_NULL_CALL_LEN ||
		    size != sizeof(again) || std::memcmp(again, p, size))
			abort();
	}
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// An exact-size heap copy: ASan catches any read past the message.
	std::vector<uint8_t> buf(data, data + size);
	CheckReply(buf.data(), size);
	CheckCall(buf.data(), size);
	return 0;
}
