// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// libFuzzer target: the RFC 8797 private-message decoder and negotiation.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cmkit/rpcrdma_cmp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// An exact-size heap copy: ASan catches any read past the peer's data.
	std::vector<uint8_t> buf(data, data + size);
	const void *p = size ? buf.data() : nullptr;
	struct cmkit_rpcrdma_cmp m {};
	cmkit_u32 send = 4096, recv = 4096;

	int valid = cmkit_rpcrdma_cmp_decode(p, size, &m);
	int negotiated = cmkit_rpcrdma_cmp_negotiate(p, size, &send, &recv);
	if (valid != negotiated)
		abort();
	if (send > 4096 || recv > 4096)
		abort();	// sizes are only ever lowered
	if (valid) {
		// Decoding what we encode gives the same message back.
		cmkit_u8 again[CMKIT_RPCRDMA_CMP_LEN];
		struct cmkit_rpcrdma_cmp m2 {};
		cmkit_rpcrdma_cmp_encode(again, m.flags, m.send_size, m.recv_size);
		if (!cmkit_rpcrdma_cmp_decode(again, sizeof(again), &m2) ||
		    m2.flags != m.flags || m2.send_size != m.send_size ||
		    m2.recv_size != m.recv_size)
			abort();
	} else if (send != CMKIT_RPCRDMA_DEFAULT_INLINE || recv != CMKIT_RPCRDMA_DEFAULT_INLINE) {
		abort();	// invalid data means the 1 KiB defaults
	}
	return 0;
}
