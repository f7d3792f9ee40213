// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_pure_rpcrdma: include/cmkit/rpcrdma_msg.h and rpcrdma_cmp.h with
 * no device.
 *
 * RFC 8166 credit rules (xprtrdma's sanitizing of a grant), the NULL call
 * and every kind of reply round trip through encoder and decoder,
 * truncated and malformed messages are refused with the right result, and
 * the RFC 8797 connection private message and inline-size negotiation.
 */
#include <kunit/test.h>

#include "cmkit/rpcrdma_msg.h"
#include "cmkit/rpcrdma_cmp.h"

/* cmkit_rpcrdma_credit_limit(): grant, ring -> limit. */
struct credit_case {
	const char *name;
	u32 grant, ring, want;
};

static const struct credit_case credit_cases[] = {
	{ "grant within the ring", 32, 128, 32 },
	{ "grant equal to the ring", 128, 128, 128 },
	{ "grant above the ring clamped", 129, 128, 128 },
	{ "huge grant clamped", 0xffffffffU, 128, 128 },
	{ "zero grant taken as one", 0, 128, 1 },
	{ "one grant", 1, 128, 1 },
	{ "zero ring counts as one", 64, 0, 1 },
	{ "zero grant zero ring", 0, 0, 1 },
	{ "svcrdma default 64 to xprtrdma 128", 64, 128, 64 },
	{ "svcrdma 7.3 default 128 to a ring of 32", 128, 32, 32 },
};

static void credit_case_desc(const struct credit_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(credit, credit_cases, credit_case_desc);

static void rpcrdma_credit_limit(struct kunit *test)
{
	const struct credit_case *c = test->param_value;
	u32 got = cmkit_rpcrdma_credit_limit(c->grant, c->ring);

	KUNIT_EXPECT_EQ(test, got, c->want);
	/* Always 1..max(ring, 1). */
	KUNIT_EXPECT_GE(test, got, 1);
	KUNIT_EXPECT_LE(test, got, c->ring ? c->ring : 1);
}

/* The grant is read from the first 12 bytes; another version's is not used. */
static void rpcrdma_peek_grant(struct kunit *test)
{
	u8 buf[CMKIT_RPCRDMA_NULL_CALL_LEN];
	u32 xid = 0, credits = 0;
	size_t n;

	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_encode_null_call(buf, sizeof(buf), 0xabcd, 128,
							     CMKIT_RPC_PROG_NFS, 3),
			CMKIT_RPCRDMA_NULL_CALL_LEN);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_peek(buf, 12, &xid, &credits), CMKIT_RPCRDMA_OK);
	KUNIT_EXPECT_EQ(test, xid, 0xabcd);
	KUNIT_EXPECT_EQ(test, credits, 128);
	for (n = 0; n < 12; n++)
		KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_peek(buf, n, &xid, &credits),
				CMKIT_RPCRDMA_E_SHORT);
	cmkit_put_be32(buf + 4, 2);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_peek(buf, 12, &xid, &credits),
			CMKIT_RPCRDMA_E_VERS);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_peek(buf, 12, NULL, &credits),
			CMKIT_RPCRDMA_E_ARG);
}

/* The NULL call a client sends decodes as the server sees it. */
static void rpcrdma_null_call_round_trip(struct kunit *test)
{
	struct cmkit_rpcrdma_call call;
	u8 buf[CMKIT_RPCRDMA_NULL_CALL_LEN];
	size_t n;

	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_encode_null_call(buf, sizeof(buf), 7, 32,
							     CMKIT_RPC_PROG_NFS, 4),
			CMKIT_RPCRDMA_NULL_CALL_LEN);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_decode_call(buf, sizeof(buf), &call),
			CMKIT_RPCRDMA_OK);
	KUNIT_EXPECT_EQ(test, call.hdr.rdma_xid, 7);
	KUNIT_EXPECT_EQ(test, call.hdr.rdma_credit, 32);
	KUNIT_EXPECT_EQ(test, call.hdr.len, CMKIT_RPCRDMA_HDR_LEN);
	KUNIT_EXPECT_EQ(test, call.xid, 7);
	KUNIT_EXPECT_EQ(test, call.rpcvers, CMKIT_RPC_VERSION);
	KUNIT_EXPECT_EQ(test, call.prog, CMKIT_RPC_PROG_NFS);
	KUNIT_EXPECT_EQ(test, call.vers, 4);
	KUNIT_EXPECT_EQ(test, call.proc, CMKIT_RPC_NULL_PROC);
	KUNIT_EXPECT_EQ(test, call.args_len, 0);
	/* Every truncation is short, never accepted. */
	for (n = 0; n < sizeof(buf); n++)
		KUNIT_EXPECT_EQ_MSG(test, cmkit_rpcrdma_decode_call(buf, n, &call),
				    CMKIT_RPCRDMA_E_SHORT, "%zu bytes", n);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_encode_null_call(buf, sizeof(buf) - 1, 7, 32,
							     CMKIT_RPC_PROG_NFS, 4),
			CMKIT_RPCRDMA_E_NOSPACE);
}

/*
 * Calls a server must refuse, as one-word patches to a NULL call of xid 0:
 * words 0..3 the fixed header, 4..6 the chunk lists, 7 the RPC xid, 8 the
 * message type, 9..12 RPC version, program, version, procedure, 13..16
 * credential and verifier.
 */
struct bad_call {
	const char *name;
	unsigned int word;	/* 32-bit word of the call to replace */
	u32 value;
	int want;
};

static const struct bad_call bad_calls[] = {
	{ "transport version 2", 1, 2, CMKIT_RPCRDMA_E_VERS },
	{ "rdma_nomsg", 3, CMKIT_RPCRDMA_NOMSG, CMKIT_RPCRDMA_E_PROC },
	{ "rdma_done", 3, CMKIT_RPCRDMA_DONE, CMKIT_RPCRDMA_E_PROC },
	{ "read list entry then a bad discriminator", 4, 1, CMKIT_RPCRDMA_E_XDR },
	{ "write list with an empty chunk", 5, 1, CMKIT_RPCRDMA_E_CHUNKS },
	{ "reply chunk of no segments", 6, 1, CMKIT_RPCRDMA_E_CHUNKS },
	{ "list discriminator 2", 4, 2, CMKIT_RPCRDMA_E_XDR },
	{ "rpc xid other than rdma xid", 7, 8, CMKIT_RPCRDMA_E_XID },
	{ "a reply where a call belongs", 8, CMKIT_RPC_REPLY, CMKIT_RPCRDMA_E_MSG_TYPE },
	{ "message type 2", 8, 2, CMKIT_RPCRDMA_E_XDR },
	{ "rpc version 3", 9, 3, CMKIT_RPCRDMA_E_RPCVERS },
	{ "credential body of 401 bytes", 14, 401, CMKIT_RPCRDMA_E_AUTH_LEN },
	{ "credential body past the end", 14, 4, CMKIT_RPCRDMA_E_SHORT },
};

static void bad_call_desc(const struct bad_call *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad_call, bad_calls, bad_call_desc);

static void rpcrdma_call_malformed(struct kunit *test)
{
	const struct bad_call *c = test->param_value;
	struct cmkit_rpcrdma_call call;
	u8 buf[CMKIT_RPCRDMA_NULL_CALL_LEN];

	KUNIT_ASSERT_GT(test, cmkit_rpcrdma_encode_null_call(buf, sizeof(buf), 0, 32,
							     CMKIT_RPC_PROG_NFS, 3), 0);
	cmkit_put_be32(buf + 4 * c->word, c->value);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_decode_call(buf, sizeof(buf), &call), c->want);
}

/* Replies a server writes, decoded by the client. */
struct reply_case {
	const char *name;
	struct cmkit_rpcrdma_reply rep;
	int want_len;
	int want;		/* cmkit_rpcrdma_decode_reply() */
};

#define MSG(x)	.hdr = { .rdma_xid = 9, .rdma_credit = 64, .rdma_proc = CMKIT_RPCRDMA_MSG }, x
#define ERR(x)	.hdr = { .rdma_xid = 9, .rdma_credit = 64, .rdma_proc = CMKIT_RPCRDMA_ERROR }, x

static const struct reply_case reply_cases[] = {
	{ "null success", { MSG(.reply_stat = CMKIT_RPC_MSG_ACCEPTED) }, 52,
	  CMKIT_RPCRDMA_OK },
	{ "prog unavail", { MSG(.accept_stat = CMKIT_RPC_PROG_UNAVAIL) }, 52,
	  CMKIT_RPCRDMA_E_PROG_UNAVAIL },
	{ "prog mismatch 2 to 4", { MSG(.accept_stat = CMKIT_RPC_PROG_MISMATCH),
	  .low = 2, .high = 4 }, 60, CMKIT_RPCRDMA_E_PROG_MISMATCH },
	{ "proc unavail", { MSG(.accept_stat = CMKIT_RPC_PROC_UNAVAIL) }, 52,
	  CMKIT_RPCRDMA_E_PROC_UNAVAIL },
	{ "garbage args", { MSG(.accept_stat = CMKIT_RPC_GARBAGE_ARGS) }, 52,
	  CMKIT_RPCRDMA_E_GARBAGE_ARGS },
	{ "system err", { MSG(.accept_stat = CMKIT_RPC_SYSTEM_ERR) }, 52,
	  CMKIT_RPCRDMA_E_SYSTEM_ERR },
	{ "denied rpc mismatch", { MSG(.reply_stat = CMKIT_RPC_MSG_DENIED),
	  .reject_stat = CMKIT_RPC_MISMATCH, .low = 2, .high = 2 }, 52,
	  CMKIT_RPCRDMA_E_RPC_MISMATCH },
	{ "denied auth badcred", { MSG(.reply_stat = CMKIT_RPC_MSG_DENIED),
	  .reject_stat = CMKIT_RPC_AUTH_ERROR, .auth_stat = CMKIT_RPC_AUTH_BADCRED },
	  48, CMKIT_RPCRDMA_E_AUTH_ERROR },
	{ "rdma error err_vers 1 to 1", { ERR(.rdma_err = CMKIT_RPCRDMA_ERR_VERS),
	  .low = 1, .high = 1 }, 28, CMKIT_RPCRDMA_E_ERR_VERS },
	{ "rdma error err_chunk", { ERR(.rdma_err = CMKIT_RPCRDMA_ERR_CHUNK) }, 20,
	  CMKIT_RPCRDMA_E_ERR_CHUNK },
	{ "verifier not auth_none", { MSG(.verf_flavor = CMKIT_RPC_AUTH_SYS) }, 52,
	  CMKIT_RPCRDMA_E_VERF },
};

static void reply_case_desc(const struct reply_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(reply, reply_cases, reply_case_desc);

static void rpcrdma_reply_round_trip(struct kunit *test)
{
	const struct reply_case *c = test->param_value;
	struct cmkit_rpcrdma_reply got;
	u8 buf[CMKIT_RPCRDMA_MAX_REPLY_LEN];
	int n, k;
	u32 limit;

	n = cmkit_rpcrdma_encode_reply(buf, sizeof(buf), &c->rep);
	KUNIT_ASSERT_EQ(test, n, c->want_len);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_decode_reply(buf, n, &got), c->want);
	KUNIT_EXPECT_EQ(test, got.hdr.rdma_xid, 9);
	KUNIT_EXPECT_EQ(test, got.hdr.rdma_credit, 64);
	KUNIT_EXPECT_EQ(test, got.hdr.rdma_proc, c->rep.hdr.rdma_proc);
	KUNIT_EXPECT_EQ(test, got.low, c->rep.low);
	KUNIT_EXPECT_EQ(test, got.high, c->rep.high);
	if (c->rep.hdr.rdma_proc == CMKIT_RPCRDMA_MSG) {
		KUNIT_EXPECT_EQ(test, got.xid, 9);
		KUNIT_EXPECT_EQ(test, got.reply_stat, c->rep.reply_stat);
		KUNIT_EXPECT_EQ(test, got.accept_stat, c->rep.accept_stat);
		KUNIT_EXPECT_EQ(test, got.reject_stat, c->rep.reject_stat);
		KUNIT_EXPECT_EQ(test, got.auth_stat, c->rep.auth_stat);
	} else {
		KUNIT_EXPECT_EQ(test, got.rdma_err, c->rep.rdma_err);
	}
	/* Any complete reply carries a usable grant: 64 against a ring of 32. */
	limit = cmkit_rpcrdma_credit_limit(got.hdr.rdma_credit, 32);
	KUNIT_EXPECT_EQ(test, limit, 32);
	/* Every truncation is short. */
	for (k = 0; k < n; k++)
		KUNIT_EXPECT_EQ_MSG(test, cmkit_rpcrdma_decode_reply(buf, k, &got),
				    CMKIT_RPCRDMA_E_SHORT, "%d bytes", k);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_encode_reply(buf, n - 1, &c->rep),
			CMKIT_RPCRDMA_E_NOSPACE);
}

static void rpcrdma_reply_malformed(struct kunit *test)
{
	struct cmkit_rpcrdma_reply rep = { MSG(.reply_stat = CMKIT_RPC_MSG_ACCEPTED) }, got;
	u8 buf[CMKIT_RPCRDMA_MAX_REPLY_LEN];
	int n;

	n = cmkit_rpcrdma_encode_reply(buf, sizeof(buf), &rep);
	KUNIT_ASSERT_EQ(test, n, 52);
	cmkit_put_be32(buf + 28, 10);		/* RPC xid != rdma_xid */
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_decode_reply(buf, n, &got), CMKIT_RPCRDMA_E_XID);
	cmkit_put_be32(buf + 28, 9);
	cmkit_put_be32(buf + 32, CMKIT_RPC_CALL);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_decode_reply(buf, n, &got),
			CMKIT_RPCRDMA_E_MSG_TYPE);
	cmkit_put_be32(buf + 32, CMKIT_RPC_REPLY);
	cmkit_put_be32(buf + 12, CMKIT_RPCRDMA_NOMSG);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_decode_reply(buf, n, &got), CMKIT_RPCRDMA_E_PROC);
	cmkit_put_be32(buf + 12, CMKIT_RPCRDMA_MSG);
	cmkit_put_be32(buf + 4, 0);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_decode_reply(buf, n, &got), CMKIT_RPCRDMA_E_VERS);
	cmkit_put_be32(buf + 4, 1);
	/* An RDMA_ERROR of an unknown code. */
	rep.hdr.rdma_proc = CMKIT_RPCRDMA_ERROR;
	rep.rdma_err = 3;
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_encode_reply(buf, sizeof(buf), &rep),
			CMKIT_RPCRDMA_E_ARG);
	/* A verifier over 400 bytes is not written. */
	rep.hdr.rdma_proc = CMKIT_RPCRDMA_MSG;
	rep.verf_len = 401;
	rep.verf = buf;
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_encode_reply(buf, sizeof(buf), &rep),
			CMKIT_RPCRDMA_E_ARG);
}

/* RFC 8797 private message: sizes in KiB minus one, clamped. */
struct cmp_case {
	const char *name;
	u32 send, recv;
	u32 want_send, want_recv;	/* decoded */
	u32 mine_send, mine_recv;	/* ours before */
	u32 neg_send, neg_recv;		/* ours after */
};

static const struct cmp_case cmp_cases[] = {
	{ "defaults 1 KiB", 1024, 1024, 1024, 1024, 4096, 4096, 1024, 1024 },
	{ "4 KiB each way", 4096, 4096, 4096, 4096, 8192, 8192, 4096, 4096 },
	{ "peer larger than us leaves us", 65536, 65536, 65536, 65536,
	  4096, 4096, 4096, 4096 },
	{ "send and receive cross over", 2048, 8192, 2048, 8192,
	  16384, 16384, 8192, 2048 },
	{ "below 1 KiB clamps to 1 KiB", 100, 0, 1024, 1024, 4096, 4096, 1024, 1024 },
	{ "not a KiB multiple rounds down", 5000, 3071, 4096, 2048,
	  8192, 8192, 2048, 4096 },
	{ "256 KiB and more clamp to 256 KiB", 1U << 20, 262144, 262144, 262144,
	  1U << 20, 1U << 20, 262144, 262144 },
};

static void cmp_case_desc(const struct cmp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(cmp, cmp_cases, cmp_case_desc);

static void rpcrdma_cmp_negotiation(struct kunit *test)
{
	const struct cmp_case *c = test->param_value;
	struct cmkit_rpcrdma_cmp got;
	u32 send = c->mine_send, recv = c->mine_recv;
	u8 buf[CMKIT_RPCRDMA_CMP_LEN];

	cmkit_rpcrdma_cmp_encode(buf, 0xff, c->send, c->recv);
	KUNIT_EXPECT_EQ(test, cmkit_get_be32(buf), CMKIT_RPCRDMA_CMP_MAGIC);
	KUNIT_ASSERT_EQ(test, cmkit_rpcrdma_cmp_decode(buf, sizeof(buf), &got), 1);
	KUNIT_EXPECT_EQ(test, got.flags, CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK);
	KUNIT_EXPECT_EQ(test, got.send_size, c->want_send);
	KUNIT_EXPECT_EQ(test, got.recv_size, c->want_recv);
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_cmp_negotiate(buf, sizeof(buf), &send, &recv), 1);
	KUNIT_EXPECT_EQ(test, send, c->neg_send);
	KUNIT_EXPECT_EQ(test, recv, c->neg_recv);
}

/* Without a valid message the peer is taken to use 1 KiB each way. */
static void rpcrdma_cmp_invalid_means_defaults(struct kunit *test)
{
	struct cmkit_rpcrdma_cmp got;
	u8 buf[CMKIT_RPCRDMA_CMP_LEN];
	u32 send, recv;
	int i;

	for (i = 0; i < 4; i++) {
		cmkit_rpcrdma_cmp_encode(buf, 0, 65536, 65536);
		if (i == 1)
			buf[0] ^= 1;		/* magic */
		if (i == 2)
			buf[4] = 2;		/* version */
		send = 8192;
		recv = 8192;
		KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_cmp_negotiate(buf, i == 3 ? 7 : 8,
								  &send, &recv), i == 0);
		KUNIT_EXPECT_EQ(test, send, i ? 1024 : 8192);
		KUNIT_EXPECT_EQ(test, recv, i ? 1024 : 8192);
		if (i)
			KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_cmp_decode(buf, i == 3 ? 7 : 8,
								       &got), 0);
	}
	send = 8192;
	recv = 8192;
	KUNIT_EXPECT_EQ(test, cmkit_rpcrdma_cmp_negotiate(NULL, 0, &send, &recv), 0);
	KUNIT_EXPECT_EQ(test, send, 1024);
}

static struct kunit_case cmkit_pure_rpcrdma_cases[] = {
	KUNIT_CASE_PARAM(rpcrdma_credit_limit, credit_gen_params),
	KUNIT_CASE(rpcrdma_peek_grant),
	KUNIT_CASE(rpcrdma_null_call_round_trip),
	KUNIT_CASE_PARAM(rpcrdma_call_malformed, bad_call_gen_params),
	KUNIT_CASE_PARAM(rpcrdma_reply_round_trip, reply_gen_params),
	KUNIT_CASE(rpcrdma_reply_malformed),
	KUNIT_CASE_PARAM(rpcrdma_cmp_negotiation, cmp_gen_params),
	KUNIT_CASE(rpcrdma_cmp_invalid_means_defaults),
	{}
};

static struct kunit_suite cmkit_pure_rpcrdma_suite = {
	.name = "cmkit_pure_rpcrdma",
	.test_cases = cmkit_pure_rpcrdma_cases,
};

kunit_test_suite(cmkit_pure_rpcrdma_suite);
