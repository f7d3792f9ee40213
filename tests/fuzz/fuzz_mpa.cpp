// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// libFuzzer target: the MPA frame parser (both kinds) and IRD/ORD negotiation.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "cmkit/mpa.h"

static void Check(const std::vector<uint8_t> &buf, enum cmkit_mpa_kind kind)
{
	const cmkit_u8 *p = buf.empty() ? nullptr : buf.data();
	struct cmkit_mpa_frame f {};
	int rc = irdma_parse_mpa(p, buf.size(), kind, &f);

	if (rc > 0) {
		// A whole frame: everything it names lies inside what was given.
		if ((size_t)rc != f.frame_len || f.frame_len > buf.size())
			abort();
		if (f.pdata < p || f.pdata + f.pdata_len > p + buf.size())
			abort();
		if (f.pdata_len > CMKIT_MPA_MAX_PD_LEN)
			abort();
		if (f.enhanced) {
			cmkit_u16 ird = 16, ord = 16;
			int n = irdma_negotiate_mpa_v2_ird_ord(kind == CMKIT_MPA_REPLY, &ird,
							       &ord, f.ird, f.ord);
			if (ord > 16 || ird != 16 || (n && n != CMKIT_MPA_E_IRD))
				abort();	// only ever lowered
		}
	} else if (rc == 0) {
		// More bytes needed: then the input really is a prefix.
		if (buf.size() >= CMKIT_MPA_MAX_FRAME)
			abort();
	} else if (rc < CMKIT_MPA_E_ARG) {
		abort();
	}
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// Exact-size heap copy: ASan catches any read past the bytes received.
	std::vector<uint8_t> buf(data, data + size);
	Check(buf, CMKIT_MPA_REQUEST);
	Check(buf, CMKIT_MPA_REPLY);
	return 0;
}
