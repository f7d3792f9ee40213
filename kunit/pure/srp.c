// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_pure_srp: include/cmkit/srp.h and srp_iu.h with no device.
 *
 * Login IUs of both layouts, the login response and reject, and the
 * rdma_cm IP header round trip; short or foreign private data is refused;
 * the target's login decision and task management codes follow their
 * tables; SRP_RSP round trips and its residual rules hold.
 */
#include <kunit/test.h>

#include "cmkit/srp.h"
#include "cmkit/srp_iu.h"

static void srp_sample_req(struct cmkit_srp_login_req *req)
{
	memset(req, 0, sizeof(*req));
	req->opcode = CMKIT_SRP_LOGIN_REQ;
	req->tag = 0x0102030405060708ULL;
	req->it_iu_len = 8260;
	req->buf_fmt = CMKIT_SRP_BUF_FORMAT_ALL;
	req->flags = CMKIT_SRP_MULTICHAN_MULTI | CMKIT_SRP_IMMED_REQUESTED;
	req->imm_data_offset = 80;
	cmkit_srp_port_id_make(req->initiator_port_id, 0x1111, 0x2222);
	cmkit_srp_port_id_make(req->target_port_id, 0x3333, 0x4444);
}

static void srp_expect_req_eq(struct kunit *test, const struct cmkit_srp_login_req *a,
			      const struct cmkit_srp_login_req *b)
{
	KUNIT_EXPECT_EQ(test, a->opcode, b->opcode);
	KUNIT_EXPECT_EQ(test, a->tag, b->tag);
	KUNIT_EXPECT_EQ(test, a->it_iu_len, b->it_iu_len);
	KUNIT_EXPECT_EQ(test, a->buf_fmt, b->buf_fmt);
	KUNIT_EXPECT_EQ(test, a->flags, b->flags);
	KUNIT_EXPECT_EQ(test, a->imm_data_offset, b->imm_data_offset);
	KUNIT_EXPECT_MEMEQ(test, a->initiator_port_id, b->initiator_port_id, 16);
	KUNIT_EXPECT_MEMEQ(test, a->target_port_id, b->target_port_id, 16);
}

/* Both login layouts round trip, and every shorter length is refused. */
static void srp_login_req_round_trip(struct kunit *test)
{
	struct cmkit_srp_login_req req, got;
	u8 buf[CMKIT_IB_CM_REQ_PDATA_LEN];
	size_t n;

	srp_sample_req(&req);
	cmkit_srp_encode_login_req(buf, &req);
	KUNIT_EXPECT_EQ(test, buf[0], CMKIT_SRP_LOGIN_REQ);
	KUNIT_EXPECT_EQ(test, cmkit_get_be32(buf + 16), 8260);
	KUNIT_ASSERT_EQ(test, cmkit_srp_decode_login_req(buf, 64, &got), 1);
	srp_expect_req_eq(test, &req, &got);
	for (n = 0; n < 64; n++)
		KUNIT_EXPECT_EQ(test, cmkit_srp_decode_login_req(buf, n, &got), 0);
	KUNIT_EXPECT_EQ(test, cmkit_srp_decode_login_req(NULL, 64, &got), 0);

	cmkit_srp_encode_login_req_rdma(buf, &req);
	KUNIT_EXPECT_EQ(test, buf[11], CMKIT_SRP_LOGIN_REQ);
	memset(&got, 0, sizeof(got));
	KUNIT_ASSERT_EQ(test, cmkit_srp_decode_login_req_rdma(buf, 56, &got), 1);
	srp_expect_req_eq(test, &req, &got);
	for (n = 0; n < 56; n++)
		KUNIT_EXPECT_EQ(test, cmkit_srp_decode_login_req_rdma(buf, n, &got), 0);
}

static void srp_login_rsp_rej_round_trip(struct kunit *test)
{
	struct cmkit_srp_login_rsp rsp = {
		.tag = 0xfeedULL << 40, .req_lim_delta = 127, .max_it_iu_len = 8260,
		.max_ti_iu_len = 4148, .buf_fmt = CMKIT_SRP_BUF_FORMAT_DIRECT,
		.flags = CMKIT_SRP_LOGIN_RSP_MULTICHAN_MAINTAINED |
			 CMKIT_SRP_LOGIN_RSP_IMMED_SUPP,
	}, r;
	struct cmkit_srp_login_rej rej = {
		.tag = 42, .reason = CMKIT_SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED,
		.buf_fmt = CMKIT_SRP_BUF_FORMAT_ALL,
	}, j;
	u8 buf[64];
	size_t n;

	cmkit_srp_encode_login_rsp(buf, &rsp);
	KUNIT_ASSERT_EQ(test, cmkit_srp_decode_login_rsp(buf, 52, &r), 1);
	KUNIT_EXPECT_EQ(test, r.tag, rsp.tag);
	KUNIT_EXPECT_EQ(test, r.req_lim_delta, 127);
	KUNIT_EXPECT_EQ(test, r.max_it_iu_len, 8260);
	KUNIT_EXPECT_EQ(test, r.max_ti_iu_len, 4148);
	KUNIT_EXPECT_EQ(test, r.buf_fmt, CMKIT_SRP_BUF_FORMAT_DIRECT);
	KUNIT_EXPECT_EQ(test, r.flags, rsp.flags);
	for (n = 0; n < 52; n++)
		KUNIT_EXPECT_EQ(test, cmkit_srp_decode_login_rsp(buf, n, &r), 0);
	/* A reject is not a response, nor the reverse. */
	KUNIT_EXPECT_EQ(test, cmkit_srp_decode_login_rej(buf, 52, &j), 0);

	cmkit_srp_encode_login_rej(buf, &rej);
	KUNIT_ASSERT_EQ(test, cmkit_srp_decode_login_rej(buf, 32, &j), 1);
	KUNIT_EXPECT_EQ(test, j.tag, 42);
	KUNIT_EXPECT_EQ(test, j.reason, CMKIT_SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED);
	KUNIT_EXPECT_EQ(test, j.buf_fmt, CMKIT_SRP_BUF_FORMAT_ALL);
	KUNIT_EXPECT_EQ(test, cmkit_srp_decode_login_rej(buf, 31, &j), 0);
	KUNIT_EXPECT_EQ(test, cmkit_srp_decode_login_rsp(buf, 52, &r), 0);
}

/* What a listener makes of a REQ's private data. */
struct pdata_case {
	const char *name;
	int rdma_cm;
	u8 cma_version, ip_version;
	size_t len;
	enum cmkit_srp_pdata want;
};

static const struct pdata_case pdata_cases[] = {
	{ "ib cm login of 64 bytes", 0, 0, 0, 64, CMKIT_SRP_PDATA_OK },
	{ "ib cm login of 92 bytes", 0, 0, 0, 92, CMKIT_SRP_PDATA_OK },
	{ "ib cm login short by one", 0, 0, 0, 63, CMKIT_SRP_PDATA_SHORT },
	{ "ib cm no private data", 0, 0, 0, 0, CMKIT_SRP_PDATA_SHORT },
	{ "rdma cm ipv4 header and login", 1, 0, 4, 92, CMKIT_SRP_PDATA_OK },
	{ "rdma cm ipv6 header and login", 1, 0, 6, 92, CMKIT_SRP_PDATA_OK },
	{ "rdma cm header only", 1, 0, 4, 36, CMKIT_SRP_PDATA_SHORT },
	{ "rdma cm login short by one", 1, 0, 4, 91, CMKIT_SRP_PDATA_SHORT },
	{ "rdma cm header short", 1, 0, 4, 35, CMKIT_SRP_PDATA_SHORT },
	{ "rdma cm header version 1", 1, 1, 4, 92, CMKIT_SRP_PDATA_BAD_CMA_HDR },
	{ "rdma cm header ip version 5", 1, 0, 5, 92, CMKIT_SRP_PDATA_BAD_CMA_HDR },
};

static void pdata_case_desc(const struct pdata_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(pdata, pdata_cases, pdata_case_desc);

static void srp_req_pdata(struct kunit *test)
{
	const struct pdata_case *c = test->param_value;
	struct cmkit_cma_hdr hdr = { .ip_version = c->ip_version, .src_port = 4791 }, h;
	struct cmkit_srp_login_req req, got;
	u8 buf[CMKIT_IB_CM_REQ_PDATA_LEN] = { 0 };

	srp_sample_req(&req);
	hdr.src_addr[15] = 1;
	hdr.dst_addr[12] = 10;
	if (c->rdma_cm) {
		cmkit_cma_hdr_encode(buf, &hdr);
		buf[0] = c->cma_version;
		cmkit_srp_encode_login_req_rdma(buf + CMKIT_CMA_HDR_LEN, &req);
	} else {
		cmkit_srp_encode_login_req(buf, &req);
	}
	memset(&h, 0, sizeof(h));
	KUNIT_EXPECT_EQ(test, cmkit_srp_parse_req_pdata(c->len ? buf : NULL, c->len,
							c->rdma_cm, &h, &got), c->want);
	if (c->want != CMKIT_SRP_PDATA_OK)
		return;
	srp_expect_req_eq(test, &req, &got);
	if (c->rdma_cm) {
		KUNIT_EXPECT_EQ(test, h.ip_version, c->ip_version);
		KUNIT_EXPECT_EQ(test, h.src_port, 4791);
		KUNIT_EXPECT_MEMEQ(test, h.src_addr, hdr.src_addr, 16);
		KUNIT_EXPECT_EQ(test, cmkit_cma_hdr_ip4(h.dst_addr), 0x0a000000);
	}
}

/* The target's login decision, in its order of checks. */
struct login_case {
	const char *name;
	u8 opcode;
	u32 it_iu_len;
	u16 buf_fmt;
	bool other_port;
	u32 want;
};

static const struct login_case login_cases[] = {
	{ "accepted", CMKIT_SRP_LOGIN_REQ, 8260, CMKIT_SRP_BUF_FORMAT_ALL, 0, 0 },
	{ "iu length at the minimum 64", CMKIT_SRP_LOGIN_REQ, 64, 0, 0, 0 },
	{ "iu length at the maximum", CMKIT_SRP_LOGIN_REQ, 8260,
	  CMKIT_SRP_BUF_FORMAT_DIRECT, 0, 0 },
	{ "another opcode", CMKIT_SRP_LOGIN_RSP, 8260, 0, 0,
	  CMKIT_SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL },
	{ "iu length 63 below the minimum", CMKIT_SRP_LOGIN_REQ, 63, 0, 0,
	  CMKIT_SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE },
	{ "iu length one above the maximum", CMKIT_SRP_LOGIN_REQ, 8261, 0, 0,
	  CMKIT_SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE },
	{ "reserved buffer format bit", CMKIT_SRP_LOGIN_REQ, 8260, 0x0008, 0,
	  CMKIT_SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT },
	{ "another target port", CMKIT_SRP_LOGIN_REQ, 8260, 0, 1,
	  CMKIT_SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL },
	{ "opcode judged before the port", CMKIT_SRP_LOGIN_REQ + 1, 8260, 0, 1,
	  CMKIT_SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL },
	{ "length judged before the format", CMKIT_SRP_LOGIN_REQ, 9000, 0xff, 1,
	  CMKIT_SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE },
};

static void login_case_desc(const struct login_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(login, login_cases, login_case_desc);

static void srp_login_check(struct kunit *test)
{
	const struct login_case *c = test->param_value;
	struct cmkit_srp_login_req req;
	u8 port[16];

	srp_sample_req(&req);
	req.opcode = c->opcode;
	req.it_iu_len = c->it_iu_len;
	req.buf_fmt = c->buf_fmt;
	memcpy(port, req.target_port_id, 16);
	if (c->other_port)
		port[15] ^= 1;
	KUNIT_EXPECT_EQ(test, cmkit_srp_login_check(&req, 8260, port), c->want);
}

static void srp_tsk_mgmt_codes(struct kunit *test)
{
	static const u8 performed[] = { CMKIT_SRP_TSK_ABORT_TASK,
		CMKIT_SRP_TSK_ABORT_TASK_SET, CMKIT_SRP_TSK_CLEAR_TASK_SET,
		CMKIT_SRP_TSK_LUN_RESET };
	u8 data[4];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(performed); i++) {
		KUNIT_EXPECT_EQ(test, cmkit_srp_tsk_mgmt_rsp_code(performed[i], 1),
				CMKIT_SRP_TSK_MGMT_COMPLETE);
		KUNIT_EXPECT_EQ(test, cmkit_srp_tsk_mgmt_rsp_code(performed[i], 0),
				CMKIT_SRP_TSK_MGMT_FAILED);
	}
	KUNIT_EXPECT_EQ(test, cmkit_srp_tsk_mgmt_rsp_code(CMKIT_SRP_TSK_CLEAR_ACA, 1),
			CMKIT_SRP_TSK_MGMT_FUNC_NOT_SUPPORTED);
	KUNIT_EXPECT_EQ(test, cmkit_srp_tsk_mgmt_rsp_code(0x20, 1),
			CMKIT_SRP_TSK_MGMT_FUNC_NOT_SUPPORTED);
	cmkit_srp_tsk_mgmt_rsp_data(data, CMKIT_SRP_TSK_MGMT_FAILED);
	KUNIT_EXPECT_MEMEQ(test, data, "\0\0\0\5", 4);
}

/* SRP_RSP with and without response and sense data. */
static void srp_rsp_round_trip(struct kunit *test)
{
	static const u8 resp[4] = { 0, 0, 0, CMKIT_SRP_TSK_MGMT_FAILED };
	static const u8 sense[18] = { 0x70, 0, 5, [7] = 10, [12] = 0x24 };
	struct cmkit_srp_rsp rsp = {
		.tag = 77, .req_lim_delta = 3, .status = 2, .flags = CMKIT_SRP_RSP_DIUNDER,
		.data_in_res = 512, .resp = resp, .resp_len = 4,
		.sense = sense, .sense_len = sizeof(sense),
	}, got;
	u8 buf[128];
	int n;

	n = cmkit_srp_encode_rsp(buf, sizeof(buf), &rsp);
	KUNIT_ASSERT_EQ(test, n, 36 + 4 + 18);
	KUNIT_ASSERT_EQ(test, cmkit_srp_decode_rsp(buf, n, &got), 0);
	KUNIT_EXPECT_EQ(test, got.tag, 77);
	KUNIT_EXPECT_EQ(test, got.req_lim_delta, 3);
	KUNIT_EXPECT_EQ(test, got.status, 2);
	KUNIT_EXPECT_EQ(test, got.flags, CMKIT_SRP_RSP_DIUNDER | CMKIT_SRP_RSP_RSPVALID |
			CMKIT_SRP_RSP_SNSVALID);
	KUNIT_EXPECT_EQ(test, got.data_in_res, 512);
	KUNIT_EXPECT_EQ(test, got.rsp_code, CMKIT_SRP_TSK_MGMT_FAILED);
	KUNIT_EXPECT_EQ(test, got.sense_len, 18);
	KUNIT_EXPECT_MEMEQ(test, got.sense, sense, sizeof(sense));
	/* Sense data cut short, the wrong opcode, a short header. */
	KUNIT_EXPECT_EQ(test, cmkit_srp_decode_rsp(buf, n - 1, &got), CMKIT_SRP_IU_E_DATA);
	KUNIT_EXPECT_EQ(test, cmkit_srp_decode_rsp(buf, 35, &got), CMKIT_SRP_IU_E_SHORT);
	buf[0] = CMKIT_SRP_CMD;
	KUNIT_EXPECT_EQ(test, cmkit_srp_decode_rsp(buf, n, &got), CMKIT_SRP_IU_E_OPCODE);
	/* No room, or a length without its data. */
	KUNIT_EXPECT_EQ(test, cmkit_srp_encode_rsp(buf, n - 1, &rsp), CMKIT_SRP_IU_E_NOSPACE);
	rsp.sense = NULL;
	KUNIT_EXPECT_EQ(test, cmkit_srp_encode_rsp(buf, sizeof(buf), &rsp), CMKIT_SRP_IU_E_ARG);
	/* Without data: 36 bytes, no valid flags, rsp_code 0xff. */
	memset(&rsp, 0, sizeof(rsp));
	rsp.flags = CMKIT_SRP_RSP_RSPVALID | CMKIT_SRP_RSP_SNSVALID;
	n = cmkit_srp_encode_rsp(buf, sizeof(buf), &rsp);
	KUNIT_ASSERT_EQ(test, n, 36);
	KUNIT_ASSERT_EQ(test, cmkit_srp_decode_rsp(buf, n, &got), 0);
	KUNIT_EXPECT_EQ(test, got.flags, 0);
	KUNIT_EXPECT_EQ(test, got.rsp_code, 0xff);
}

/* Residual flags and counts of an SRP_RSP. */
struct resid_case {
	const char *name;
	u64 in_want;
	u32 in_have;
	u64 out_want;
	u32 out_have;
	u8 want_flags;
	u32 want_in, want_out;
};

static const struct resid_case resid_cases[] = {
	{ "exact transfer", 4096, 4096, 0, 0, 0, 0, 0 },
	{ "data in underflow", 512, 4096, 0, 0, CMKIT_SRP_RSP_DIUNDER, 3584, 0 },
	{ "data in overflow", 8192, 4096, 0, 0, CMKIT_SRP_RSP_DIOVER, 4096, 0 },
	{ "data out underflow", 0, 0, 100, 200, CMKIT_SRP_RSP_DOUNDER, 0, 100 },
	{ "data out overflow", 0, 0, 300, 200, CMKIT_SRP_RSP_DOOVER, 0, 100 },
	{ "both directions", 10, 20, 30, 20,
	  CMKIT_SRP_RSP_DIUNDER | CMKIT_SRP_RSP_DOOVER, 10, 10 },
	{ "overflow count saturates", 0x100000000ULL * 2, 0, 0, 0,
	  CMKIT_SRP_RSP_DIOVER, 0xffffffffU, 0 },
};

static void resid_case_desc(const struct resid_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(resid, resid_cases, resid_case_desc);

static void srp_residual(struct kunit *test)
{
	const struct resid_case *c = test->param_value;
	/* Stale residual flags are replaced; the others are kept. */
	struct cmkit_srp_rsp rsp = { .flags = CMKIT_SRP_RSP_RESID_MASK |
					      CMKIT_SRP_RSP_SNSVALID };

	cmkit_srp_residual(&rsp, c->in_want, c->in_have, c->out_want, c->out_have);
	KUNIT_EXPECT_EQ(test, rsp.flags, c->want_flags | CMKIT_SRP_RSP_SNSVALID);
	KUNIT_EXPECT_EQ(test, rsp.data_in_res, c->want_in);
	KUNIT_EXPECT_EQ(test, rsp.data_out_res, c->want_out);
	KUNIT_EXPECT_EQ(test, cmkit_srp_xfer_len(c->in_want, c->in_have),
			c->in_want < c->in_have ? (u32)c->in_want : c->in_have);
}

static struct kunit_case cmkit_pure_srp_cases[] = {
	KUNIT_CASE(srp_login_req_round_trip),
	KUNIT_CASE(srp_login_rsp_rej_round_trip),
	KUNIT_CASE_PARAM(srp_req_pdata, pdata_gen_params),
	KUNIT_CASE_PARAM(srp_login_check, login_gen_params),
	KUNIT_CASE(srp_tsk_mgmt_codes),
	KUNIT_CASE(srp_rsp_round_trip),
	KUNIT_CASE_PARAM(srp_residual, resid_gen_params),
	{}
};

static struct kunit_suite cmkit_pure_srp_suite = {
	.name = "cmkit_pure_srp",
	.test_cases = cmkit_pure_srp_cases,
};

kunit_test_suite(cmkit_pure_srp_suite);
