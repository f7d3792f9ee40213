// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// libFuzzer target: every SRP data-path IU decoder of cmkit/srp_iu.h.
// Input: two bytes of imm_data_offset (big endian), then the IU.  Whatever
// a decoder accepts must point inside the IU, and must come back the same
// through its encoder and the decoder again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cmkit/srp_iu.h"

namespace {

#define CHECK(x) do { if (!(x)) abort(); } while (0)

const cmkit_u8 *g_lo, *g_hi;

void Inside(const cmkit_u8 *p, size_t n)
{
	if (!n)
		return;
	CHECK(p >= g_lo && p <= g_hi && n <= (size_t)(g_hi - p));
}

void SameBuf(const cmkit_srp_data_buf &a, const cmkit_srp_data_buf &b)
{
	CHECK(a.fmt == b.fmt && a.len == b.len && a.count == b.count &&
	      a.ndesc == b.ndesc && a.whole == b.whole);
	if (a.fmt == CMKIT_SRP_DATA_DESC_DIRECT || a.fmt == CMKIT_SRP_DATA_DESC_INDIRECT)
		CHECK(a.desc.va == b.desc.va && a.desc.key == b.desc.key &&
		      a.desc.len == b.desc.len);
	if (a.fmt == CMKIT_SRP_DATA_DESC_INDIRECT)
		CHECK(!memcmp(a.list, b.list, a.count * 16u));
	if (a.fmt == CMKIT_SRP_DATA_DESC_IMM && a.len)
		CHECK(!memcmp(a.imm, b.imm, a.len));
}

void Buf(const cmkit_srp_data_buf &b)
{
	cmkit_srp_direct d;
	cmkit_u64 sum = 0;

	if (b.fmt == CMKIT_SRP_DATA_DESC_INDIRECT)
		Inside(b.list, (size_t)b.count * 16);
	else
		CHECK(!b.list);
	if (b.fmt == CMKIT_SRP_DATA_DESC_IMM)
		Inside(b.imm, b.len);
	else
		CHECK(!b.imm);
	CHECK(b.count <= b.ndesc || b.fmt != CMKIT_SRP_DATA_DESC_INDIRECT);
	for (cmkit_u32 i = 0; i < b.count; i++) {
		CHECK(cmkit_srp_buf_desc(&b, i, &d) == 0);
		sum += d.len;
	}
	CHECK(cmkit_srp_buf_desc(&b, b.count, &d) == CMKIT_SRP_IU_E_ARG);
	if (b.fmt == CMKIT_SRP_DATA_DESC_INDIRECT && b.whole)
		CHECK(sum == b.len);
}

void Cmd(const cmkit_u8 *p, size_t n, cmkit_u16 imm)
{
	cmkit_srp_cmd c, d;
	int rc = cmkit_srp_decode_cmd(p, n, imm, &c);

	if (rc) {
		CHECK(rc <= CMKIT_SRP_IU_E_SHORT && rc >= CMKIT_SRP_IU_E_IMM_LEN);
		(void)cmkit_srp_logout_reason(rc);
		return;
	}
	Inside(c.cdb, c.cdb_len);
	CHECK(c.cdb_len >= 16 && (c.cdb_len & 3) == 0 && c.iu_len <= n);
	Buf(c.out);
	Buf(c.in);
	std::vector<cmkit_u8> again(n ? n : 1);
	int len = cmkit_srp_encode_cmd(again.data(), n, imm, &c);
	CHECK(len > 0 && (cmkit_u32)len == c.iu_len);
	again.resize(len);	// exact size: ASan sees overreads
	g_lo = again.data();
	g_hi = again.data() + again.size();
	CHECK(cmkit_srp_decode_cmd(again.data(), again.size(), imm, &d) == 0);
	CHECK(c.tag == d.tag && c.lun == d.lun && c.sol_not == d.sol_not &&
	      c.task_attr == d.task_attr && c.cdb_len == d.cdb_len &&
	      !memcmp(c.cdb, d.cdb, c.cdb_len) && c.iu_len == d.iu_len);
	SameBuf(c.out, d.out);
	SameBuf(c.in, d.in);
}

void Rsp(const cmkit_u8 *p, size_t n)
{
	cmkit_srp_rsp r, s;

	if (cmkit_srp_decode_rsp(p, n, &r))
		return;
	Inside(r.resp, r.resp_len);
	Inside(r.sense, r.sense_len);
	std::vector<cmkit_u8> again(36 + (size_t)r.resp_len + r.sense_len);
	int len = cmkit_srp_encode_rsp(again.data(), again.size(), &r);
	CHECK(len == (int)again.size());
	CHECK(cmkit_srp_decode_rsp(again.data(), again.size(), &s) == 0);
	CHECK(r.tag == s.tag && r.req_lim_delta == s.req_lim_delta &&
	      r.sol_not == s.sol_not && r.status == s.status &&
	      r.data_in_res == s.data_in_res && r.data_out_res == s.data_out_res &&
	      r.resp_len == s.resp_len && r.sense_len == s.sense_len &&
	      r.rsp_code == s.rsp_code);
	// Flags: the valid bits follow the lengths.
	CHECK((s.flags & ~3) == (r.flags & ~3));
	cmkit_srp_residual(&s, r.data_in_res, r.data_out_res, r.data_out_res, r.data_in_res);
	CHECK(!(s.flags & CMKIT_SRP_RSP_DIUNDER) || !(s.flags & CMKIT_SRP_RSP_DIOVER));
}

void Others(const cmkit_u8 *p, size_t n)
{
	cmkit_srp_tsk_mgmt t, t2;
	cmkit_srp_aer_req a, a2;
	cmkit_srp_short_iu s, s2;
	cmkit_u8 out[48];
	cmkit_u64 tag;

	if (cmkit_srp_decode_tsk_mgmt(p, n, &t) == 0) {
		CHECK(cmkit_srp_encode_tsk_mgmt(out, sizeof(out), &t) == 48);
		CHECK(cmkit_srp_decode_tsk_mgmt(out, sizeof(out), &t2) == 0);
		CHECK(t.tag == t2.tag && t.lun == t2.lun && t.func == t2.func &&
		      t.task_tag == t2.task_tag && t.sol_not == t2.sol_not);
		(void)cmkit_srp_tsk_mgmt_rsp_code(t.func, t.lun == 0);
	}
	if (cmkit_srp_decode_aer_req(p, n, &a) == 0) {
		Inside(a.sense, a.sense_len);
		std::vector<cmkit_u8> again(36 + (size_t)a.sense_len);
		CHECK(cmkit_srp_encode_aer_req(again.data(), again.size(), &a) ==
		      (int)again.size());
		CHECK(cmkit_srp_decode_aer_req(again.data(), again.size(), &a2) == 0);
		CHECK(a.tag == a2.tag && a.lun == a2.lun && a.sense_len == a2.sense_len);
	}
	const cmkit_u8 ops[] = { CMKIT_SRP_I_LOGOUT, CMKIT_SRP_T_LOGOUT, CMKIT_SRP_CRED_REQ,
				 CMKIT_SRP_CRED_RSP, CMKIT_SRP_AER_RSP };
	for (cmkit_u8 op : ops) {
		if (cmkit_srp_decode_short_iu(p, n, op, &s))
			continue;
		CHECK(cmkit_srp_encode_short_iu(out, 16, &s) == 16);
		CHECK(cmkit_srp_decode_short_iu(out, 16, op, &s2) == 0);
		CHECK(s.tag == s2.tag && s.value == s2.value && s.sol_not == s2.sol_not);
	}
	if (cmkit_srp_iu_tag(p, n, &tag) == 0)
		CHECK(n >= 16);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	cmkit_u16 imm = (cmkit_u16)(data[0] << 8 | data[1]);
	// Exact-size heap copy: ASan catches any read past the IU.
	std::vector<uint8_t> buf(data + 2, data + size);
	const cmkit_u8 *p = buf.empty() ? nullptr : buf.data();
	size_t n = buf.size();

	g_lo = p;
	g_hi = p + n;
	Cmd(p, n, imm);
	g_lo = p;
	g_hi = p + n;
	Rsp(p, n);
	g_lo = p;
	g_hi = p + n;
	Others(p, n);
	return 0;
}
