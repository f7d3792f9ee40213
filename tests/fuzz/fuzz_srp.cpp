// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// libFuzzer target: SRP login request (both layouts), response and reject
// decoders, the rdma_cm IP header, and the REQ private-data parser.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "cmkit/srp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// Exact-size heap copy: ASan catches any read past the private data.
	std::vector<uint8_t> buf(data, data + size);
	const void *p = buf.empty() ? nullptr : buf.data();
	struct cmkit_srp_login_req req {};
	struct cmkit_srp_login_rsp rsp {};
	struct cmkit_srp_login_rej rej {};
	struct cmkit_cma_hdr hdr {};
	static const cmkit_u8 port[CMKIT_SRP_PORT_ID_LEN] = { 1 };

	if (cmkit_srp_decode_login_req(p, size, &req))
		(void)cmkit_srp_login_check(&req, 8192, port);
	if (cmkit_srp_decode_login_req_rdma(p, size, &req))
		(void)cmkit_srp_login_check(&req, 8192, port);
	(void)cmkit_srp_decode_login_rsp(p, size, &rsp);
	(void)cmkit_srp_decode_login_rej(p, size, &rej);
	if (cmkit_cma_hdr_decode(p, size, &hdr) && hdr.ip_version != 4 &&
	    hdr.ip_version != 6)
		abort();
	for (int form = 0; form < 2; form++) {
		enum cmkit_srp_pdata r = cmkit_srp_parse_req_pdata(p, size, form, &hdr, &req);
		if (r != CMKIT_SRP_PDATA_OK && r != CMKIT_SRP_PDATA_SHORT &&
		    r != CMKIT_SRP_PDATA_BAD_CMA_HDR)
			abort();
	}
	return 0;
}
