// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// libFuzzer target: the FPDU parser and the RTR checkers of mpa_fpdu.h.
// Input: one selector byte (bit 0: CRC negotiated; bits 1-2: the message
// expected, Write, Read, Send RTR or the Read Response to our Read), then
// the bytes received after the MPA reply.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cmkit/mpa_fpdu.h"

namespace {

const unsigned kRtr[] = { CMKIT_MPA_RTR_WRITE, CMKIT_MPA_RTR_READ, CMKIT_MPA_RTR_SEND };

void Require(bool ok)
{
	if (!ok)
		abort();
}

bool SameHdr(const cmkit_iwarp_hdr &a, const cmkit_iwarp_hdr &b)
{
	return a.opcode == b.opcode && a.tagged == b.tagged && a.last == b.last &&
	       a.stag == b.stag && a.to == b.to && a.rsvd_ulp == b.rsvd_ulp &&
	       a.qn == b.qn && a.msn == b.msn && a.mo == b.mo &&
	       a.sink_stag == b.sink_stag && a.sink_to == b.sink_to &&
	       a.read_size == b.read_size && a.src_stag == b.src_stag &&
	       a.src_to == b.src_to;
}

void CheckParse(const std::vector<uint8_t> &buf, int crc)
{
	const cmkit_u8 *p = buf.empty() ? nullptr : buf.data();
	cmkit_fpdu f{};
	int rc = cmkit_fpdu_parse(p, buf.size(), crc, &f);

	if (rc == 0) {
		// A prefix: what it needs lies within the largest FPDU.
		Require(f.need > 0 && buf.size() + f.need <= CMKIT_FPDU_MAX_LEN);
		if (buf.size() >= 2)
			Require(buf.size() + f.need ==
				cmkit_fpdu_total_len(cmkit_get_be16(buf.data())));
		return;
	}
	if (rc < 0) {
		Require(rc == CMKIT_FPDU_E_LEN || rc == CMKIT_FPDU_E_CRC ||
			rc == CMKIT_FPDU_E_VERSION || rc == CMKIT_FPDU_E_HDR);
		return;
	}
	size_t len = static_cast<size_t>(rc);
	Require(len == f.len && len <= buf.size() && len % 4 == 0);
	Require(len == cmkit_fpdu_total_len(f.ulpdu_len));
	Require(f.payload >= p + 2 && f.payload + f.payload_len == p + 2 + f.ulpdu_len);
	Require(f.hdr.opcode <= CMKIT_RDMAP_TERMINATE);
	Require(f.payload_len + cmkit_iwarp_hdr_len(f.hdr.opcode) == f.ulpdu_len);

	// Rebuilt from what was decoded, it decodes the same.
	std::vector<uint8_t> again(len + 8);
	int n = cmkit_fpdu_build(again.data(), again.size(), &f.hdr, f.payload,
				 f.payload_len, crc);
	Require(n == rc);
	again.resize(len);
	cmkit_fpdu g{};
	Require(cmkit_fpdu_parse(again.data(), again.size(), crc, &g) == rc);
	Require(SameHdr(f.hdr, g.hdr) && g.payload_len == f.payload_len);
	Require(!std::memcmp(g.payload, f.payload, f.payload_len));
	// And byte for byte, unless the input had reserved bits, PAD or (without
	// CRC) a CRC field that a sender writes as zero.
	bool clean = !(buf[2] & 0x3c) && !(buf[3] & 0x30) && (crc || !f.crc);
	for (size_t i = 2 + f.ulpdu_len; i < len - 4; i++)
		clean = clean && !buf[i];
	if (clean)
		Require(!std::memcmp(again.data(), buf.data(), len));
}

// The checker @sel picks, on @len bytes; @want and @full describe what it
// expects.
int RunCheck(const cmkit_u8 *p, size_t len, int crc, unsigned sel, cmkit_fpdu *f,
	     cmkit_iwarp_hdr *want, size_t *full)
{
	cmkit_iwarp_hdr rreq{};
	int rc;

	if (sel < 3) {
		Require(cmkit_rtr_hdr(kRtr[sel], want) == 0);
		rc = cmkit_rtr_check(p, len, kRtr[sel], crc, f);
	} else {
		Require(cmkit_rtr_hdr(CMKIT_MPA_RTR_READ, &rreq) == 0);
		rc = cmkit_rtr_check_read_resp(p, len, &rreq, crc, f);
		*want = cmkit_iwarp_hdr{};
		want->opcode = CMKIT_RDMAP_READ_RESP;
		want->tagged = 1;
		want->last = 1;
	}
	*full = cmkit_fpdu_total_len(cmkit_iwarp_hdr_len(want->opcode));
	return rc;
}

void CheckRtr(const std::vector<uint8_t> &buf, int crc, unsigned sel)
{
	const cmkit_u8 *p = buf.empty() ? nullptr : buf.data();
	cmkit_iwarp_hdr want{};
	cmkit_fpdu f{};
	size_t full;
	int rc = RunCheck(p, buf.size(), crc, sel, &f, &want, &full);

	if (rc == 0) {
		Require(f.need > 0 && buf.size() + f.need <= full);
		return;
	}
	if (rc < 0) {
		Require(rc == CMKIT_FPDU_E_CRC || rc == CMKIT_FPDU_E_VERSION ||
			rc == CMKIT_FPDU_E_RTR_TYPE || rc == CMKIT_FPDU_E_RTR_FIELDS);
		return;
	}
	// Exactly the message expected, which the plain parser agrees is one.
	Require(static_cast<size_t>(rc) == full);
	Require(f.hdr.opcode == want.opcode && f.hdr.tagged == want.tagged && f.hdr.last);
	Require(f.payload_len == 0);
	if (!f.hdr.tagged)
		Require(f.hdr.qn == want.qn && f.hdr.msn == 1 && f.hdr.mo == 0 &&
			f.hdr.read_size == 0);
	cmkit_fpdu g{};
	Require(cmkit_fpdu_parse(p, buf.size(), crc, &g) == rc && SameHdr(f.hdr, g.hdr));
	// Each prefix of it, on an exact-size copy, asks for exactly the rest.
	for (size_t len = 0; len < full; len++) {
		std::vector<uint8_t> pre(buf.begin(), buf.begin() + len);
		cmkit_fpdu h{};
		Require(RunCheck(pre.empty() ? nullptr : pre.data(), len, crc, sel, &h,
				 &want, &full) == 0);
		Require(h.need == full - len);
	}
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	int crc = data[0] & 1;
	unsigned sel = (data[0] >> 1) & 3;
	// Exact-size heap copy: ASan catches any read past the bytes received.
	std::vector<uint8_t> buf(data + 1, data + size);
	CheckParse(buf, crc);
	CheckRtr(buf, crc, sel);
	return 0;
}
