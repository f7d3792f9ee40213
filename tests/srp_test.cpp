// SPDX-License-Identifier: GPL-2.0-only
// Host tests of the SRP login codecs and the rdma_cm IP header in include/cmkit/.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cmkit/srp.h"

namespace {

const cmkit_u8 kIport[16] = { 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
			      0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f };
const cmkit_u8 kTport[16] = { 0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
			      0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f };

cmkit_srp_login_req Login()
{
	cmkit_srp_login_req req{};
	req.opcode = CMKIT_SRP_LOGIN_REQ;
	req.tag = 0x0102030405060708ULL;
	req.it_iu_len = 0x00002044;
	req.buf_fmt = CMKIT_SRP_BUF_FORMAT_ALL;
	req.flags = CMKIT_SRP_MULTICHAN_MULTI | CMKIT_SRP_IMMED_REQUESTED;
	req.imm_data_offset = 0x0050;
	std::memcpy(req.initiator_port_id, kIport, 16);
	std::memcpy(req.target_port_id, kTport, 16);
	return req;
}

void ExpectSameLogin(const cmkit_srp_login_req &a, const cmkit_srp_login_req &b)
{
	EXPECT_EQ(a.opcode, b.opcode);
	EXPECT_EQ(a.tag, b.tag);
	EXPECT_EQ(a.it_iu_len, b.it_iu_len);
	EXPECT_EQ(a.buf_fmt, b.buf_fmt);
	EXPECT_EQ(a.flags, b.flags);
	EXPECT_EQ(a.imm_data_offset, b.imm_data_offset);
	EXPECT_EQ(0, std::memcmp(a.initiator_port_id, b.initiator_port_id, 16));
	EXPECT_EQ(0, std::memcmp(a.target_port_id, b.target_port_id, 16));
}

TEST(SrpLoginReq, EncodesTheSrpLayout)
{
	std::vector<cmkit_u8> buf(CMKIT_SRP_LOGIN_REQ_LEN, 0xee);
	auto req = Login();
	cmkit_srp_encode_login_req(buf.data(), &req);

	std::vector<cmkit_u8> want(64, 0);
	want[0] = 0x00;
	for (int i = 0; i < 8; i++)
		want[8 + i] = (cmkit_u8)(i + 1);
	want[16] = 0x00; want[17] = 0x00; want[18] = 0x20; want[19] = 0x44;
	want[24] = 0x00; want[25] = 0x06;
	want[26] = 0x81;
	want[28] = 0x00; want[29] = 0x50;
	std::memcpy(&want[32], kIport, 16);
	std::memcpy(&want[48], kTport, 16);
	EXPECT_EQ(want, buf);
}

TEST(SrpLoginReq, EncodesTheCompactRdmaCmLayout)
{
	std::vector<cmkit_u8> buf(CMKIT_SRP_LOGIN_REQ_RDMA_LEN, 0xee);
	auto req = Login();
	cmkit_srp_encode_login_req_rdma(buf.data(), &req);

	std::vector<cmkit_u8> want(56, 0);
	for (int i = 0; i < 8; i++)
		want[i] = (cmkit_u8)(i + 1);
	want[8] = 0x00; want[9] = 0x06;
	want[10] = 0x81;
	want[11] = 0x00;
	want[12] = 0x00; want[13] = 0x00; want[14] = 0x20; want[15] = 0x44;
	std::memcpy(&want[16], kIport, 16);
	std::memcpy(&want[32], kTport, 16);
	want[48] = 0x00; want[49] = 0x50;
	EXPECT_EQ(want, buf);
}

TEST(SrpLoginReq, BothLayoutsRoundTrip)
{
	auto req = Login();
	cmkit_u8 buf[64];
	cmkit_srp_login_req out{};

	cmkit_srp_encode_login_req(buf, &req);
	ASSERT_EQ(1, cmkit_srp_decode_login_req(buf, sizeof(buf), &out));
	ExpectSameLogin(req, out);

	out = {};
	cmkit_srp_encode_login_req_rdma(buf, &req);
	ASSERT_EQ(1, cmkit_srp_decode_login_req_rdma(buf, 56, &out));
	ExpectSameLogin(req, out);
}

TEST(SrpLoginReq, TheTagIsOpaqueBytes)
{
	// The target echoes the eight bytes it received, whatever they mean.
	cmkit_u8 in[64] = {};
	const cmkit_u8 tag[8] = { 0xde, 0xad, 0xbe, 0xef, 0x00, 0x11, 0x22, 0x33 };
	std::memcpy(in + 8, tag, 8);
	cmkit_srp_login_req req{};
	ASSERT_EQ(1, cmkit_srp_decode_login_req(in, sizeof(in), &req));

	cmkit_srp_login_rsp rsp{};
	rsp.tag = req.tag;
	cmkit_u8 out[CMKIT_SRP_LOGIN_RSP_LEN];
	cmkit_srp_encode_login_rsp(out, &rsp);
	EXPECT_EQ(0, std::memcmp(out + 8, tag, 8));
}

TEST(SrpLoginReq, ShortOrAbsentDataIsNotDecoded)
{
	auto req = Login();
	cmkit_u8 buf[64];
	cmkit_srp_encode_login_req(buf, &req);

	cmkit_srp_login_req out{};
	out.tag = 42;
	EXPECT_EQ(0, cmkit_srp_decode_login_req(nullptr, 64, &out));
	for (size_t len = 0; len < CMKIT_SRP_LOGIN_REQ_LEN; len++)
		EXPECT_EQ(0, cmkit_srp_decode_login_req(buf, len, &out)) << len;
	for (size_t len = 0; len < CMKIT_SRP_LOGIN_REQ_RDMA_LEN; len++)
		EXPECT_EQ(0, cmkit_srp_decode_login_req_rdma(buf, len, &out)) << len;
	EXPECT_EQ(42U, out.tag);	// untouched
}

TEST(SrpLoginReq, DecodesNothingPastTheGivenLength)
{
	// The exact length in a heap buffer of exactly that size: ASan or
	// valgrind would flag a read past it.
	auto req = Login();
	std::vector<cmkit_u8> exact(CMKIT_SRP_LOGIN_REQ_RDMA_LEN);
	cmkit_srp_encode_login_req_rdma(exact.data(), &req);
	cmkit_srp_login_req out{};
	ASSERT_EQ(1, cmkit_srp_decode_login_req_rdma(exact.data(), exact.size(), &out));
	ExpectSameLogin(req, out);
}

TEST(SrpLoginRsp, EncodesTheSrpLayoutAndRoundTrips)
{
	cmkit_srp_login_rsp rsp{};
	rsp.tag = 0x1122334455667788ULL;
	rsp.req_lim_delta = 128;
	rsp.max_it_iu_len = 8260;
	rsp.max_ti_iu_len = 8192;
	rsp.buf_fmt = CMKIT_SRP_BUF_FORMAT_ALL;
	rsp.flags = CMKIT_SRP_LOGIN_RSP_MULTICHAN_TERMINATED;

	std::vector<cmkit_u8> buf(CMKIT_SRP_LOGIN_RSP_LEN, 0xee);
	cmkit_srp_encode_login_rsp(buf.data(), &rsp);
	std::vector<cmkit_u8> want(52, 0);
	want[0] = 0xc0;
	want[7] = 128;
	for (int i = 0; i < 8; i++)
		want[8 + i] = (cmkit_u8)(0x11 * (i + 1));
	want[18] = 0x20; want[19] = 0x44;
	want[22] = 0x20; want[23] = 0x00;
	want[25] = 0x06;
	want[26] = 0x01;
	EXPECT_EQ(want, buf);

	cmkit_srp_login_rsp out{};
	ASSERT_EQ(1, cmkit_srp_decode_login_rsp(buf.data(), buf.size(), &out));
	EXPECT_EQ(rsp.tag, out.tag);
	EXPECT_EQ(rsp.req_lim_delta, out.req_lim_delta);
	EXPECT_EQ(rsp.max_it_iu_len, out.max_it_iu_len);
	EXPECT_EQ(rsp.max_ti_iu_len, out.max_ti_iu_len);
	EXPECT_EQ(rsp.buf_fmt, out.buf_fmt);
	EXPECT_EQ(rsp.flags, out.flags);
}

TEST(SrpLoginRsp, DecodesFromPaddedRepDataOnlyWithItsOpcode)
{
	// IB delivers 196 bytes of REP private data; the tail is padding.
	std::vector<cmkit_u8> rep(196, 0xee);
	cmkit_srp_login_rsp rsp{};
	rsp.tag = 7;
	cmkit_srp_encode_login_rsp(rep.data(), &rsp);
	cmkit_srp_login_rsp out{};
	ASSERT_EQ(1, cmkit_srp_decode_login_rsp(rep.data(), rep.size(), &out));
	EXPECT_EQ(7U, out.tag);

	for (size_t len = 0; len < CMKIT_SRP_LOGIN_RSP_LEN; len++)
		EXPECT_EQ(0, cmkit_srp_decode_login_rsp(rep.data(), len, &out)) << len;
	EXPECT_EQ(0, cmkit_srp_decode_login_rsp(nullptr, 196, &out));
	rep[0] = CMKIT_SRP_LOGIN_REJ;
	EXPECT_EQ(0, cmkit_srp_decode_login_rsp(rep.data(), rep.size(), &out));
}

TEST(SrpLoginRej, EncodesTheSrpLayoutAndRoundTrips)
{
	cmkit_srp_login_rej rej{};
	rej.tag = 0x0a0b0c0d0e0f1011ULL;
	rej.reason = CMKIT_SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	rej.buf_fmt = CMKIT_SRP_BUF_FORMAT_ALL;

	std::vector<cmkit_u8> buf(CMKIT_SRP_LOGIN_REJ_LEN, 0xee);
	cmkit_srp_encode_login_rej(buf.data(), &rej);
	std::vector<cmkit_u8> want(32, 0);
	want[0] = 0xc2;
	want[5] = 0x01; want[7] = 0x03;
	for (int i = 0; i < 8; i++)
		want[8 + i] = (cmkit_u8)(0x0a + i);
	want[25] = 0x06;
	EXPECT_EQ(want, buf);

	// In 148 bytes of padded REJ private data.
	std::vector<cmkit_u8> padded(148, 0);
	std::memcpy(padded.data(), buf.data(), buf.size());
	cmkit_srp_login_rej out{};
	ASSERT_EQ(1, cmkit_srp_decode_login_rej(padded.data(), padded.size(), &out));
	EXPECT_EQ(rej.tag, out.tag);
	EXPECT_EQ(rej.reason, out.reason);
	EXPECT_EQ(rej.buf_fmt, out.buf_fmt);
}

TEST(SrpLoginRej, RejectsShortAbsentAndOtherIus)
{
	cmkit_srp_login_rej rej{};
	rej.reason = CMKIT_SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES;
	cmkit_u8 buf[CMKIT_SRP_LOGIN_REJ_LEN];
	cmkit_srp_encode_login_rej(buf, &rej);
	cmkit_srp_login_rej out{};
	out.reason = 1;
	for (size_t len = 0; len < sizeof(buf); len++)
		EXPECT_EQ(0, cmkit_srp_decode_login_rej(buf, len, &out)) << len;
	EXPECT_EQ(0, cmkit_srp_decode_login_rej(nullptr, 32, &out));
	buf[0] = CMKIT_SRP_LOGIN_RSP;
	EXPECT_EQ(0, cmkit_srp_decode_login_rej(buf, sizeof(buf), &out));
	EXPECT_EQ(1U, out.reason);	// untouched
}

TEST(SrpLoginRej, ReasonsHaveTheirSrpValues)
{
	EXPECT_EQ(0x00010000U, CMKIT_SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL);
	EXPECT_EQ(0x00010001U, CMKIT_SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES);
	EXPECT_EQ(0x00010002U, CMKIT_SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE);
	EXPECT_EQ(0x00010003U, CMKIT_SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL);
	EXPECT_EQ(0x00010004U, CMKIT_SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT);
	EXPECT_EQ(0x00010005U, CMKIT_SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED);
	EXPECT_EQ(0x00010006U, CMKIT_SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED);
}

// The header of an IPv4 rping REQ as measured on rxe0 (measured.md).
std::vector<cmkit_u8> Ip4Header(cmkit_u16 sport)
{
	std::vector<cmkit_u8> h(CMKIT_CMA_HDR_LEN, 0);
	h[0] = 0x00;
	h[1] = 0x40;
	h[2] = (cmkit_u8)(sport >> 8);
	h[3] = (cmkit_u8)sport;
	const cmkit_u8 src[4] = { 10, 77, 0, 1 }, dst[4] = { 10, 77, 0, 1 };
	std::memcpy(&h[4 + 12], src, 4);
	std::memcpy(&h[20 + 12], dst, 4);
	return h;
}

TEST(CmaHdr, DecodesAnIpv4Header)
{
	auto h = Ip4Header(0xc123);
	cmkit_cma_hdr out{};
	ASSERT_EQ(1, cmkit_cma_hdr_decode(h.data(), h.size(), &out));
	EXPECT_EQ(4, out.ip_version);
	EXPECT_EQ(0xc123, out.src_port);
	EXPECT_EQ(0x0a4d0001U, cmkit_cma_hdr_ip4(out.src_addr));
	EXPECT_EQ(0x0a4d0001U, cmkit_cma_hdr_ip4(out.dst_addr));

	std::vector<cmkit_u8> again(CMKIT_CMA_HDR_LEN, 0xee);
	cmkit_cma_hdr_encode(again.data(), &out);
	EXPECT_EQ(h, again);
}

TEST(CmaHdr, RejectsOtherVersionsFamiliesAndShortData)
{
	auto h = Ip4Header(1);
	cmkit_cma_hdr out{};
	out.src_port = 9;
	for (size_t len = 0; len < CMKIT_CMA_HDR_LEN; len++)
		EXPECT_EQ(0, cmkit_cma_hdr_decode(h.data(), len, &out)) << len;
	EXPECT_EQ(0, cmkit_cma_hdr_decode(nullptr, 36, &out));
	auto v = h;
	v[0] = 1;
	EXPECT_EQ(0, cmkit_cma_hdr_decode(v.data(), v.size(), &out));
	EXPECT_EQ(9, out.src_port);	// untouched by every failed decode
	for (int ipv = 0; ipv < 16; ipv++) {
		auto f = h;
		f[1] = (cmkit_u8)(ipv << 4);
		EXPECT_EQ(ipv == 4 || ipv == 6,
			  cmkit_cma_hdr_decode(f.data(), f.size(), &out)) << ipv;
	}
}

TEST(CmaHdr, TcpServiceIdMatchesRdmaCm)
{
	EXPECT_EQ(0x0000000001060000ULL | 5555, CMKIT_CMA_TCP_SERVICE_ID(5555));
	EXPECT_EQ(0x000000000106ffffULL, CMKIT_CMA_TCP_SERVICE_ID(0xffff));
}

std::vector<cmkit_u8> RdmaCmPdata(const cmkit_srp_login_req &req)
{
	auto p = Ip4Header(4242);
	p.resize(CMKIT_IB_CM_REQ_PDATA_LEN, 0);
	cmkit_srp_encode_login_req_rdma(&p[CMKIT_CMA_HDR_LEN], &req);
	return p;
}

TEST(ReqPdata, TheCompactLoginFillsAnIbReqExactly)
{
	EXPECT_EQ(CMKIT_IB_CM_REQ_PDATA_LEN,
		  CMKIT_CMA_HDR_LEN + CMKIT_SRP_LOGIN_REQ_RDMA_LEN);
	EXPECT_GT(CMKIT_CMA_HDR_LEN + CMKIT_SRP_LOGIN_REQ_LEN,
		  CMKIT_IB_CM_REQ_PDATA_LEN);
}

TEST(ReqPdata, ParsesBothForms)
{
	auto req = Login();
	cmkit_srp_login_req out{};
	cmkit_cma_hdr hdr{};

	auto rdma = RdmaCmPdata(req);
	ASSERT_EQ(CMKIT_SRP_PDATA_OK,
		  cmkit_srp_parse_req_pdata(rdma.data(), rdma.size(), 1, &hdr, &out));
	ExpectSameLogin(req, out);
	EXPECT_EQ(4242, hdr.src_port);

	std::vector<cmkit_u8> ib(CMKIT_IB_CM_REQ_PDATA_LEN, 0);
	cmkit_srp_encode_login_req(ib.data(), &req);
	out = {};
	ASSERT_EQ(CMKIT_SRP_PDATA_OK,
		  cmkit_srp_parse_req_pdata(ib.data(), ib.size(), 0, nullptr, &out));
	ExpectSameLogin(req, out);
}

TEST(ReqPdata, ShortDataAndBadHeaders)
{
	auto req = Login();
	auto rdma = RdmaCmPdata(req);
	cmkit_srp_login_req out{};
	cmkit_cma_hdr hdr{};

	EXPECT_EQ(CMKIT_SRP_PDATA_SHORT,
		  cmkit_srp_parse_req_pdata(nullptr, 0, 1, &hdr, &out));
	EXPECT_EQ(CMKIT_SRP_PDATA_SHORT,
		  cmkit_srp_parse_req_pdata(nullptr, 0, 0, &hdr, &out));
	for (size_t len = 0; len < rdma.size(); len++)
		EXPECT_EQ(CMKIT_SRP_PDATA_SHORT,
			  cmkit_srp_parse_req_pdata(rdma.data(), len, 1, &hdr, &out))
			<< len;
	for (size_t len = 0; len < CMKIT_SRP_LOGIN_REQ_LEN; len++)
		EXPECT_EQ(CMKIT_SRP_PDATA_SHORT,
			  cmkit_srp_parse_req_pdata(rdma.data(), len, 0, nullptr, &out))
			<< len;
	auto v6bad = rdma;
	v6bad[1] = 0x50;
	EXPECT_EQ(CMKIT_SRP_PDATA_BAD_CMA_HDR,
		  cmkit_srp_parse_req_pdata(v6bad.data(), v6bad.size(), 1, &hdr, &out));
	auto ver = rdma;
	ver[0] = 0x01;
	EXPECT_EQ(CMKIT_SRP_PDATA_BAD_CMA_HDR,
		  cmkit_srp_parse_req_pdata(ver.data(), ver.size(), 1, &hdr, &out));
	auto v6 = rdma;
	v6[1] = 0x60;
	EXPECT_EQ(CMKIT_SRP_PDATA_OK,
		  cmkit_srp_parse_req_pdata(v6.data(), v6.size(), 1, &hdr, &out));
	EXPECT_EQ(6, hdr.ip_version);
}

TEST(LoginCheck, AcceptsAValidLogin)
{
	auto req = Login();
	EXPECT_EQ(0U, cmkit_srp_login_check(&req, 8260, kTport));
	req.it_iu_len = CMKIT_SRP_MIN_IT_IU_LEN;
	EXPECT_EQ(0U, cmkit_srp_login_check(&req, 8260, kTport));
	req.it_iu_len = 8260;
	EXPECT_EQ(0U, cmkit_srp_login_check(&req, 8260, kTport));
	req.buf_fmt = CMKIT_SRP_BUF_FORMAT_DIRECT;
	EXPECT_EQ(0U, cmkit_srp_login_check(&req, 8260, kTport));
	req.buf_fmt = 0;
	EXPECT_EQ(0U, cmkit_srp_login_check(&req, 8260, kTport));
}

TEST(LoginCheck, RejectsEachFaultWithItsReason)
{
	auto op = Login();
	op.opcode = CMKIT_SRP_LOGIN_RSP;
	EXPECT_EQ(CMKIT_SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL,
		  cmkit_srp_login_check(&op, 8260, kTport));

	auto small = Login();
	small.it_iu_len = CMKIT_SRP_MIN_IT_IU_LEN - 1;
	EXPECT_EQ(CMKIT_SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE,
		  cmkit_srp_login_check(&small, 8260, kTport));
	auto large = Login();
	large.it_iu_len = 8261;
	EXPECT_EQ(CMKIT_SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE,
		  cmkit_srp_login_check(&large, 8260, kTport));

	auto fmt = Login();
	fmt.buf_fmt = CMKIT_SRP_BUF_FORMAT_ALL | 0x0008;
	EXPECT_EQ(CMKIT_SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT,
		  cmkit_srp_login_check(&fmt, 8260, kTport));

	for (int i = 0; i < 16; i++) {
		auto tp = Login();
		tp.target_port_id[i] ^= 0x80;
		EXPECT_EQ(CMKIT_SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL,
			  cmkit_srp_login_check(&tp, 8260, kTport)) << i;
	}
}

TEST(LoginCheck, AZeroFilledLoginIsRejectedForItsLength)
{
	// IB pads REQ private data with zeros: a missing login reads as
	// opcode SRP_LOGIN_REQ with an IU length of 0.
	std::vector<cmkit_u8> zeros(CMKIT_IB_CM_REQ_PDATA_LEN, 0);
	cmkit_srp_login_req out{};
	ASSERT_EQ(CMKIT_SRP_PDATA_OK,
		  cmkit_srp_parse_req_pdata(zeros.data(), zeros.size(), 0, nullptr, &out));
	EXPECT_EQ(CMKIT_SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE,
		  cmkit_srp_login_check(&out, 8260, kTport));
}

TEST(PortId, MakesAndCompares)
{
	cmkit_u8 a[16], b[16];
	cmkit_srp_port_id_make(a, 0x0102030405060708ULL, 0x1112131415161718ULL);
	EXPECT_EQ(0x01, a[0]);
	EXPECT_EQ(0x08, a[7]);
	EXPECT_EQ(0x11, a[8]);
	EXPECT_EQ(0x18, a[15]);
	std::memcpy(b, a, 16);
	EXPECT_EQ(1, cmkit_srp_port_id_eq(a, b));
	b[15] ^= 1;
	EXPECT_EQ(0, cmkit_srp_port_id_eq(a, b));
}

}  // namespace
