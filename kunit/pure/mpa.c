// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_pure_mpa: include/cmkit/mpa.h and mpa_fpdu.h with no device.
 *
 * MPA request and reply frames round trip through the builders and both
 * parsers; malformed frames (bad key, revision, length, markers, truncated)
 * are refused or wait for more bytes; the RFC 6581 IRD/ORD negotiation, the
 * responder's and initiator's decisions, the reject reasons and the
 * revision 1 fallback follow their tables; FPDUs and RTR messages round
 * trip and their damage is caught.
 */
#include <kunit/test.h>

#include "cmkit/mpa.h"
#include "cmkit/mpa_fpdu.h"

static const u8 pd_bytes[CMKIT_MPA_MAX_PD_LEN] = {
	[0 ... CMKIT_MPA_MAX_PD_LEN - 1] = 0xa5
};

/* ---------------------------------------------------------------------- */
/* Frame codec */

struct frame_case {
	const char *name;
	enum cmkit_mpa_kind kind;
	int rev;		/* 1: cmkit_mpa_build_v1(), 2: _v2() */
	int reject;
	u16 ird, ord, ird_ctrl, ord_ctrl;
	u16 pdata_len;
	/* what the parser must see */
	u8 want_flags;
	u16 want_ird, want_ord;
};

static const struct frame_case frame_cases[] = {
	{ "v1 request without private data", CMKIT_MPA_REQUEST, 1, 0,
	  0, 0, 0, 0, 0, 0x00, 0, 0 },
	{ "v1 request with 1 byte", CMKIT_MPA_REQUEST, 1, 0,
	  0, 0, 0, 0, 1, 0x00, 0, 0 },
	{ "v1 request with 512 bytes", CMKIT_MPA_REQUEST, 1, 0,
	  0, 0, 0, 0, 512, 0x00, 0, 0 },
	{ "v1 reply accept", CMKIT_MPA_REPLY, 1, 0,
	  0, 0, 0, 0, 7, 0x00, 0, 0 },
	{ "v1 reply reject sets R", CMKIT_MPA_REPLY, 1, 1,
	  0, 0, 0, 0, 7, CMKIT_MPA_FLAG_REJECT, 0, 0 },
	{ "v1 request ignores reject", CMKIT_MPA_REQUEST, 1, 1,
	  0, 0, 0, 0, 0, 0x00, 0, 0 },
	{ "v2 request ird 16 ord 8", CMKIT_MPA_REQUEST, 2, 0,
	  16, 8, 0, 0, 0, CMKIT_MPA_FLAG_ENHANCED, 16, 8 },
	{ "v2 request p2p with every rtr", CMKIT_MPA_REQUEST, 2, 0,
	  4, 4, CMKIT_MPA_V2_PEER_TO_PEER | CMKIT_MPA_V2_SEND_RTR,
	  CMKIT_MPA_V2_WRITE_RTR | CMKIT_MPA_V2_READ_RTR, 3,
	  CMKIT_MPA_FLAG_ENHANCED, 4, 4 },
	{ "v2 request with 508 bytes", CMKIT_MPA_REQUEST, 2, 0,
	  1, 1, 0, 0, 508, CMKIT_MPA_FLAG_ENHANCED, 1, 1 },
	{ "v2 reply reject", CMKIT_MPA_REPLY, 2, 1,
	  0, 0, 0, 0, 6, CMKIT_MPA_FLAG_ENHANCED | CMKIT_MPA_FLAG_REJECT, 0, 0 },
	{ "v2 ird ord above 0x3fff clamp", CMKIT_MPA_REPLY, 2, 0,
	  0xffff, 0x4000, 0, 0, 0, CMKIT_MPA_FLAG_ENHANCED, 0x3fff, 0x3fff },
	{ "v2 ird ord unspecified", CMKIT_MPA_REQUEST, 2, 0,
	  0x3fff, 0x3fff, 0, 0, 0, CMKIT_MPA_FLAG_ENHANCED, 0x3fff, 0x3fff },
};

static void frame_case_desc(const struct frame_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(frame, frame_cases, frame_case_desc);

static int frame_build(const struct frame_case *c, u8 *buf, size_t buflen)
{
	if (c->rev == 1)
		return cmkit_mpa_build_v1(buf, buflen, c->kind, c->reject,
					  pd_bytes, c->pdata_len);
	return cmkit_mpa_build_v2(buf, buflen, c->kind, c->reject, c->ird, c->ord,
				  c->ird_ctrl, c->ord_ctrl, pd_bytes, c->pdata_len);
}

/* Built, then parsed by both parsers: every field comes back. */
static void mpa_frame_round_trip(struct kunit *test)
{
	const struct frame_case *c = test->param_value;
	int extra = c->rev == 2 ? CMKIT_MPA_IRD_ORD_LEN : 0;
	int len = CMKIT_MPA_HDR_LEN + extra + c->pdata_len;
	struct cmkit_mpa_frame f;
	u8 buf[CMKIT_MPA_MAX_FRAME + 8];
	int strict;

	KUNIT_ASSERT_EQ(test, frame_build(c, buf, sizeof(buf)), len);
	KUNIT_EXPECT_EQ(test, cmkit_get_be16(buf + 18), c->pdata_len + extra);
	for (strict = 0; strict < 2; strict++) {
		memset(&f, 0, sizeof(f));
		KUNIT_ASSERT_EQ(test, strict ? cmkit_mpa_parse_strict(buf, len, c->kind, &f) :
				cmkit_mpa_parse(buf, len, c->kind, &f), len);
		KUNIT_EXPECT_EQ(test, f.kind, c->kind);
		KUNIT_EXPECT_EQ(test, f.rev, c->rev);
		KUNIT_EXPECT_EQ(test, f.flags, c->want_flags);
		KUNIT_EXPECT_EQ(test, f.enhanced, c->rev == 2);
		KUNIT_EXPECT_EQ(test, f.ird, c->want_ird);
		KUNIT_EXPECT_EQ(test, f.ord, c->want_ord);
		KUNIT_EXPECT_EQ(test, f.ird_ctrl, c->ird_ctrl);
		KUNIT_EXPECT_EQ(test, f.ord_ctrl, c->ord_ctrl);
		KUNIT_EXPECT_EQ(test, f.pdata_len, c->pdata_len);
		KUNIT_EXPECT_EQ(test, f.frame_len, (size_t)len);
		KUNIT_EXPECT_PTR_EQ(test, f.pdata, (const u8 *)buf + CMKIT_MPA_HDR_LEN + extra);
		KUNIT_EXPECT_MEMEQ(test, f.pdata, pd_bytes, c->pdata_len);
	}
	/* The other key is refused. */
	KUNIT_EXPECT_EQ(test, cmkit_mpa_parse_strict(buf, len, !c->kind, &f), CMKIT_MPA_E_KEY);
}

/* Every proper prefix of a frame asks for more bytes, never decodes. */
static void mpa_frame_prefix_needs_more(struct kunit *test)
{
	const struct frame_case *c = test->param_value;
	struct cmkit_mpa_frame f;
	u8 buf[CMKIT_MPA_MAX_FRAME + 8];
	int len, n;

	len = frame_build(c, buf, sizeof(buf));
	KUNIT_ASSERT_GT(test, len, 0);
	for (n = 0; n < len; n++)
		KUNIT_EXPECT_EQ_MSG(test, cmkit_mpa_parse_strict(buf, n, c->kind, &f), 0,
				    "prefix of %d bytes", n);
	/* Bytes after the frame are not its own. */
	KUNIT_EXPECT_EQ(test, cmkit_mpa_parse_strict(buf, len + 8, c->kind, &f), len);
}

/* Each builder refuses a buffer one byte short. */
static void mpa_frame_build_no_space(struct kunit *test)
{
	const struct frame_case *c = test->param_value;
	int extra = c->rev == 2 ? CMKIT_MPA_IRD_ORD_LEN : 0;
	u8 buf[CMKIT_MPA_MAX_FRAME];

	KUNIT_EXPECT_EQ(test, frame_build(c, buf, CMKIT_MPA_HDR_LEN + extra +
					  c->pdata_len - 1), CMKIT_MPA_E_NOSPACE);
}

static void mpa_build_bad_arguments(struct kunit *test)
{
	u8 buf[CMKIT_MPA_MAX_FRAME + 8];

	KUNIT_EXPECT_EQ(test, cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REQUEST,
						 0, pd_bytes, 513), CMKIT_MPA_E_PDATA);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_build_v2(buf, sizeof(buf), CMKIT_MPA_REQUEST,
						 0, 1, 1, 0, 0, pd_bytes, 509),
			CMKIT_MPA_E_PDATA);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_build_v1(NULL, sizeof(buf), CMKIT_MPA_REQUEST,
						 0, NULL, 0), CMKIT_MPA_E_ARG);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REQUEST,
						 0, NULL, 4), CMKIT_MPA_E_ARG);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_build_v2(buf, sizeof(buf), 7, 0, 1, 1, 0, 0,
						 NULL, 0), CMKIT_MPA_E_ARG);
}

/* Malformed frames: what each parser makes of them. */
struct bad_frame {
	const char *name;
	enum cmkit_mpa_kind expect;
	u8 flags, rev;
	u16 pd_len;
	int len;		/* bytes handed to the parser */
	int key;		/* 0: the expected one, 1: the other, 2: damaged */
	int want_strict;	/* cmkit_mpa_parse_strict() */
	int want_lenient;	/* cmkit_mpa_parse() */
};

static const struct bad_frame bad_frames[] = {
	{ "bad key", CMKIT_MPA_REQUEST, 0, 1, 0, 20, 2,
	  CMKIT_MPA_E_KEY, CMKIT_MPA_E_KEY },
	{ "reply key where request expected", CMKIT_MPA_REQUEST, 0, 1, 0, 20, 1,
	  CMKIT_MPA_E_KEY, CMKIT_MPA_E_KEY },
	{ "revision 0", CMKIT_MPA_REPLY, 0, 0, 0, 20, 0, CMKIT_MPA_E_REV, 20 },
	{ "revision 3", CMKIT_MPA_REPLY, 0, 3, 0, 20, 0, CMKIT_MPA_E_REV, 20 },
	{ "revision 255", CMKIT_MPA_REPLY, 0, 255, 0, 20, 0, CMKIT_MPA_E_REV, 20 },
	{ "pd length 513", CMKIT_MPA_REPLY, 0, 1, 513, 20, 0,
	  CMKIT_MPA_E_OVERSIZE, CMKIT_MPA_E_OVERSIZE },
	{ "pd length 0xffff", CMKIT_MPA_REPLY, 0, 2, 0xffff, 20, 0,
	  CMKIT_MPA_E_OVERSIZE, CMKIT_MPA_E_OVERSIZE },
	{ "markers", CMKIT_MPA_REPLY, CMKIT_MPA_FLAG_MARKERS, 1, 0, 20, 0,
	  CMKIT_MPA_E_MARKERS, 20 },
	{ "enhanced without ird ord", CMKIT_MPA_REPLY, CMKIT_MPA_FLAG_ENHANCED, 2, 3,
	  23, 0, CMKIT_MPA_E_V2_SHORT, CMKIT_MPA_E_V2_SHORT },
	{ "enhanced with empty pd", CMKIT_MPA_REPLY, CMKIT_MPA_FLAG_ENHANCED, 2, 0,
	  20, 0, CMKIT_MPA_E_V2_SHORT, CMKIT_MPA_E_V2_SHORT },
	{ "E flag in revision 1 is not enhanced", CMKIT_MPA_REPLY,
	  CMKIT_MPA_FLAG_ENHANCED, 1, 0, 20, 0, 20, 20 },
	{ "header truncated at 19 bytes", CMKIT_MPA_REPLY, 0, 1, 0, 19, 0, 0, 0 },
	{ "body truncated", CMKIT_MPA_REPLY, 0, 1, 100, 119, 0, 0, 0 },
	{ "bad key judged before the body", CMKIT_MPA_REPLY, 0, 1, 100, 20, 2,
	  CMKIT_MPA_E_KEY, CMKIT_MPA_E_KEY },
};

static void bad_frame_desc(const struct bad_frame *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad_frame, bad_frames, bad_frame_desc);

static void mpa_parse_malformed(struct kunit *test)
{
	const struct bad_frame *c = test->param_value;
	struct cmkit_mpa_frame f;
	u8 buf[CMKIT_MPA_MAX_FRAME + 4] = { 0 };

	memcpy(buf, (c->expect == CMKIT_MPA_REQUEST) == (c->key != 1) ?
	       CMKIT_MPA_KEY_REQ : CMKIT_MPA_KEY_REP, CMKIT_MPA_KEY_LEN);
	if (c->key == 2)
		buf[3] ^= 0x20;
	buf[16] = c->flags;
	buf[17] = c->rev;
	cmkit_put_be16(buf + 18, c->pd_len);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_parse_strict(buf, c->len, c->expect, &f), c->want_strict);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_parse(buf, c->len, c->expect, &f), c->want_lenient);
	if (c->want_lenient > 0)
		KUNIT_EXPECT_EQ(test, f.rev, c->rev);
}

/* ---------------------------------------------------------------------- */
/* cmkit_mpa_negotiate_ird_ord() */

struct ird_ord_case {
	const char *name;
	int initiator;
	u16 ird, ord, peer_ird, peer_ord;
	int want_rc;
	u16 want_ird, want_ord;
};

static const struct ird_ord_case ird_ord_cases[] = {
	{ "responder ord lowered to peer ird", 0, 16, 16, 4, 4, 0, 16, 4 },
	{ "responder ord below peer ird kept", 0, 16, 2, 8, 4, 0, 16, 2 },
	{ "responder ird short of peer ord still accepts", 0, 1, 1, 8, 8, 0, 1, 1 },
	{ "initiator ird short of peer ord fails", 1, 4, 4, 8, 8,
	  CMKIT_MPA_E_IRD, 4, 4 },
	{ "initiator ird equal to peer ord ok", 1, 8, 16, 4, 8, 0, 8, 4 },
	{ "initiator ord lowered to zero", 1, 8, 8, 0, 0, 0, 8, 0 },
	{ "peer ird unspecified negotiates nothing", 1, 1, 16, 0x3fff, 8, 0, 1, 16 },
	{ "peer ord unspecified negotiates nothing", 1, 1, 16, 4, 0x3fff, 0, 1, 16 },
	{ "peer control bits are masked", 0, 16, 16, 0x8000 | 4, 0x4000 | 4, 0, 16, 4 },
	{ "control bits unmasked would be unspecified", 1, 2, 16,
	  0xc000 | 0x3fff, 1, 0, 2, 16 },
};

static void ird_ord_case_desc(const struct ird_ord_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(ird_ord, ird_ord_cases, ird_ord_case_desc);

static void mpa_v2_ird_ord_negotiation(struct kunit *test)
{
	const struct ird_ord_case *c = test->param_value;
	u16 ird = c->ird, ord = c->ord;

	KUNIT_EXPECT_EQ(test, cmkit_mpa_negotiate_ird_ord(c->initiator, &ird, &ord,
							  c->peer_ird, c->peer_ord),
			c->want_rc);
	KUNIT_EXPECT_EQ(test, ird, c->want_ird);
	KUNIT_EXPECT_EQ(test, ord, c->want_ord);
}

/* ---------------------------------------------------------------------- */
/* The RFC 6581 handshake end to end: request, respond, reply, initiate */

#define OFF	CMKIT_MPA_P2P_OFF
#define ON	CMKIT_MPA_P2P_ON
#define REQ	CMKIT_MPA_P2P_REQUIRED
#define W	CMKIT_MPA_RTR_WRITE
#define R	CMKIT_MPA_RTR_READ
#define S	CMKIT_MPA_RTR_SEND

struct hs_case {
	const char *name;
	struct cmkit_mpa_offer init, resp;
	bool markers;		/* set M in the request */
	int want_reason;	/* cmkit_mpa_respond() */
	int want_init;		/* cmkit_mpa_initiate() */
	u8 want_rev, want_crc, want_rtr;	/* both sides, when accepted */
	u16 resp_ird, resp_ord, init_ird, init_ord;
	int want_fallback;
};

static const struct hs_case hs_cases[] = {
	{ "v2 both no p2p ord to peer ird",
	  { .rev = 2, .ird = 8, .ord = 4 }, { .rev = 2, .ird = 16, .ord = 16 },
	  false, 0, 0, 2, 0, 0, 16, 8, 8, 4, 0 },
	{ "v2 initiator ird lowered to responder ord",
	  { .rev = 2, .ird = 32, .ord = 32 }, { .rev = 2, .ird = 4, .ord = 2 },
	  false, 0, 0, 2, 0, 0, 4, 2, 2, 4, 0 },
	{ "v1 request to v2 responder is v1",
	  { .rev = 1, .ird = 8, .ord = 8 }, { .rev = 2, .ird = 16, .ord = 16 },
	  false, 0, 0, 1, 0, 0, 16, 16, 8, 8, 0 },
	{ "v2 request to v1 responder rejected for revision",
	  { .rev = 2, .rev1_fallback = 1, .ird = 8, .ord = 8 },
	  { .rev = 1, .ird = 16, .ord = 16 },
	  false, CMKIT_MPA_REJ_REVISION, CMKIT_MPA_E_REJECTED, 0, 0, 0, 0, 0, 0, 0, 1 },
	{ "revision reject without fallback stays down",
	  { .rev = 2, .ird = 8, .ord = 8 }, { .rev = 1, .ird = 16, .ord = 16 },
	  false, CMKIT_MPA_REJ_REVISION, CMKIT_MPA_E_REJECTED, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "markers rejected",
	  { .rev = 2, .rev1_fallback = 1, .ird = 8, .ord = 8 },
	  { .rev = 2, .ird = 16, .ord = 16 },
	  true, CMKIT_MPA_REJ_MARKERS, CMKIT_MPA_E_REJECTED, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "crc asked by initiator",
	  { .rev = 2, .crc = 1, .ird = 8, .ord = 8 }, { .rev = 2, .ird = 8, .ord = 8 },
	  false, 0, 0, 2, 1, 0, 8, 8, 8, 8, 0 },
	{ "crc asked by responder only",
	  { .rev = 1, .ird = 8, .ord = 8 }, { .rev = 2, .crc = 1, .ird = 8, .ord = 8 },
	  false, 0, 0, 1, 1, 0, 8, 8, 8, 8, 0 },
	{ "p2p required without p2p offered",
	  { .rev = 2, .rev1_fallback = 1, .ird = 8, .ord = 8 },
	  { .rev = 2, .p2p = REQ, .rtr = W, .ird = 8, .ord = 8 },
	  false, CMKIT_MPA_REJ_P2P_REQUIRED, CMKIT_MPA_E_REJECTED,
	  0, 0, 0, 0, 0, 0, 0, 0 },
	{ "p2p write preferred over read and send",
	  { .rev = 2, .p2p = ON, .rtr = W | R | S, .ird = 8, .ord = 8 },
	  { .rev = 2, .p2p = ON, .rtr = W | R | S, .ird = 8, .ord = 8 },
	  false, 0, 0, 2, 0, W, 8, 8, 8, 8, 0 },
	{ "p2p read preferred over send",
	  { .rev = 2, .p2p = ON, .rtr = R | S, .ird = 8, .ord = 8 },
	  { .rev = 2, .p2p = REQ, .rtr = W | R | S, .ird = 8, .ord = 8 },
	  false, 0, 0, 2, 0, R, 8, 8, 8, 8, 0 },
	{ "p2p send when only send is common",
	  { .rev = 2, .p2p = REQ, .rtr = S | W, .ird = 8, .ord = 8 },
	  { .rev = 2, .p2p = ON, .rtr = S | R, .ird = 8, .ord = 8 },
	  false, 0, 0, 2, 0, S, 8, 8, 8, 8, 0 },
	{ "p2p read refused when our ird is 0",
	  { .rev = 2, .p2p = ON, .rtr = R, .ird = 8, .ord = 8 },
	  { .rev = 2, .p2p = ON, .rtr = R, .ird = 0, .ord = 8 },
	  false, CMKIT_MPA_REJ_NO_RTR, CMKIT_MPA_E_REJECTED, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "p2p asked of a responder with p2p off",
	  { .rev = 2, .p2p = ON, .rtr = W, .ird = 8, .ord = 8 },
	  { .rev = 2, .ird = 8, .ord = 8 },
	  false, CMKIT_MPA_REJ_NO_RTR, CMKIT_MPA_E_REJECTED, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "p2p with no common rtr type",
	  { .rev = 2, .p2p = ON, .rtr = S, .ird = 8, .ord = 8 },
	  { .rev = 2, .p2p = ON, .rtr = W | R, .ird = 8, .ord = 8 },
	  false, CMKIT_MPA_REJ_NO_RTR, CMKIT_MPA_E_REJECTED, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "p2p on initiator in v1 asks nothing",
	  { .rev = 1, .p2p = ON, .rtr = W, .ird = 8, .ord = 8 },
	  { .rev = 2, .p2p = ON, .rtr = W, .ird = 8, .ord = 8 },
	  false, 0, 0, 1, 0, 0, 8, 8, 8, 8, 0 },
	{ "strict ird refuses a larger initiator ord",
	  { .rev = 2, .rev1_fallback = 1, .ird = 8, .ord = 8 },
	  { .rev = 2, .ird_strict = 1, .ird = 4, .ord = 4 },
	  false, CMKIT_MPA_REJ_IRD, CMKIT_MPA_E_REJECTED, 0, 0, 0, 0, 0, 0, 0, 0 },
	{ "relaxed ird accepts and initiator lowers ord",
	  { .rev = 2, .ird = 8, .ord = 8 }, { .rev = 2, .ird = 4, .ord = 4 },
	  false, 0, 0, 2, 0, 0, 4, 4, 4, 4, 0 },
	{ "strict ird takes an unspecified ord",
	  { .rev = 2, .ird = 8, .ord = 0x3fff },
	  { .rev = 2, .ird_strict = 1, .ird = 4, .ord = 4 },
	  false, 0, 0, 2, 0, 0, 4, 4, 4, 4, 0 },
	{ "unspecified ird ord limit nothing",
	  { .rev = 2, .ird = 0x3fff, .ord = 0x3fff },
	  { .rev = 2, .ird = 0x3fff, .ord = 0x3fff },
	  false, 0, 0, 2, 0, 0, 0x3fff, 0x3fff, 0x3fff, 0x3fff, 0 },
};

static void hs_case_desc(const struct hs_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(hs, hs_cases, hs_case_desc);

static void mpa_handshake(struct kunit *test)
{
	const struct hs_case *c = test->param_value;
	struct cmkit_mpa_frame req, rep;
	struct cmkit_mpa_result rr, ir;
	u8 buf[CMKIT_MPA_MAX_FRAME];
	int n, rc;

	n = cmkit_mpa_build_request(buf, sizeof(buf), &c->init, c->init.rev, "hi", 2);
	KUNIT_ASSERT_GT(test, n, 0);
	if (c->markers)
		buf[16] |= CMKIT_MPA_FLAG_MARKERS;
	KUNIT_ASSERT_EQ(test, cmkit_mpa_parse(buf, n, CMKIT_MPA_REQUEST, &req), n);
	KUNIT_EXPECT_MEMEQ(test, req.pdata, "hi", 2);

	rc = cmkit_mpa_respond(&c->resp, &req, &rr);
	KUNIT_EXPECT_EQ(test, rc, c->want_reason);
	KUNIT_EXPECT_EQ(test, rr.accept, !c->want_reason);
	KUNIT_EXPECT_EQ(test, (int)rr.reason, c->want_reason);
	if (!rc) {
		KUNIT_EXPECT_EQ(test, rr.rev, c->want_rev);
		KUNIT_EXPECT_EQ(test, rr.crc, c->want_crc);
		KUNIT_EXPECT_EQ(test, rr.p2p, !!c->want_rtr);
		KUNIT_EXPECT_EQ(test, rr.rtr, c->want_rtr);
		KUNIT_EXPECT_EQ(test, rr.ird, c->resp_ird);
		KUNIT_EXPECT_EQ(test, rr.ord, c->resp_ord);
	}
	n = cmkit_mpa_build_reply(buf, sizeof(buf), &rr, NULL, 0);
	KUNIT_ASSERT_GT(test, n, 0);
	KUNIT_ASSERT_EQ(test, cmkit_mpa_parse(buf, n, CMKIT_MPA_REPLY, &rep), n);
	KUNIT_EXPECT_EQ(test, !!(rep.flags & CMKIT_MPA_FLAG_REJECT), !!c->want_reason);

	rc = cmkit_mpa_initiate(&c->init, c->init.rev, &rep, &ir);
	KUNIT_EXPECT_EQ(test, rc, c->want_init);
	KUNIT_EXPECT_EQ(test, ir.accept, !c->want_init);
	if (!rc) {
		KUNIT_EXPECT_EQ(test, ir.rev, c->want_rev);
		KUNIT_EXPECT_EQ(test, ir.crc, c->want_crc);
		KUNIT_EXPECT_EQ(test, ir.p2p, !!c->want_rtr);
		KUNIT_EXPECT_EQ(test, ir.rtr, c->want_rtr);
		KUNIT_EXPECT_EQ(test, ir.ird, c->init_ird);
		KUNIT_EXPECT_EQ(test, ir.ord, c->init_ord);
	} else {
		/* The reject's reason reaches the initiator. */
		KUNIT_EXPECT_EQ(test, (int)ir.reason, c->want_reason);
	}
	KUNIT_EXPECT_EQ(test, cmkit_mpa_fallback(&c->init, c->init.rev, &rep),
			c->want_fallback);
}

/* Replies an initiator must refuse, built by hand. */
struct bad_reply {
	const char *name;
	struct cmkit_mpa_offer me;
	u8 sent_rev;
	u8 rev;			/* 1: v1 frame, 2: v2 enhanced, 3: v2 without E */
	u8 flags;		/* ORed into byte 16 */
	u16 ird, ord, ird_ctrl, ord_ctrl;
	int want;
};

static const struct bad_reply bad_replies[] = {
	{ "v2 reply to a v1 request", { .rev = 2, .ird = 8, .ord = 8 }, 1,
	  2, 0, 8, 8, 0, 0, CMKIT_MPA_E_REPLY_REV },
	{ "v2 reply without E to an enhanced request", { .rev = 2, .ird = 8, .ord = 8 },
	  2, 3, 0, 8, 8, 0, 0, CMKIT_MPA_E_REPLY_REV },
	{ "markers in the reply", { .rev = 2, .ird = 8, .ord = 8 }, 2,
	  2, CMKIT_MPA_FLAG_MARKERS, 8, 8, 0, 0, CMKIT_MPA_E_MARKERS },
	{ "crc asked and not granted", { .rev = 2, .crc = 1, .ird = 8, .ord = 8 }, 2,
	  2, 0, 8, 8, 0, 0, CMKIT_MPA_E_CRC },
	{ "p2p granted unasked", { .rev = 2, .ird = 8, .ord = 8 }, 2,
	  2, 0, 8, 8, CMKIT_MPA_V2_PEER_TO_PEER, CMKIT_MPA_V2_WRITE_RTR,
	  CMKIT_MPA_E_P2P },
	{ "p2p required and not granted",
	  { .rev = 2, .p2p = REQ, .rtr = W, .ird = 8, .ord = 8 }, 2,
	  2, 0, 8, 8, 0, 0, CMKIT_MPA_E_P2P },
	{ "p2p with two rtr types", { .rev = 2, .p2p = ON, .rtr = W | R, .ird = 8,
	  .ord = 8 }, 2, 2, 0, 8, 8, CMKIT_MPA_V2_PEER_TO_PEER,
	  CMKIT_MPA_V2_WRITE_RTR | CMKIT_MPA_V2_READ_RTR, CMKIT_MPA_E_RTR },
	{ "p2p with no rtr type", { .rev = 2, .p2p = ON, .rtr = W, .ird = 8,
	  .ord = 8 }, 2, 2, 0, 8, 8, CMKIT_MPA_V2_PEER_TO_PEER, 0, CMKIT_MPA_E_RTR },
	{ "p2p rtr not offered", { .rev = 2, .p2p = ON, .rtr = W, .ird = 8,
	  .ord = 8 }, 2, 2, 0, 8, 8, CMKIT_MPA_V2_PEER_TO_PEER | CMKIT_MPA_V2_SEND_RTR,
	  0, CMKIT_MPA_E_RTR },
	{ "read rtr with peer ird 0", { .rev = 2, .p2p = ON, .rtr = R, .ird = 8,
	  .ord = 8 }, 2, 2, 0, 0, 8, CMKIT_MPA_V2_PEER_TO_PEER, CMKIT_MPA_V2_READ_RTR,
	  CMKIT_MPA_E_RTR },
	{ "peer ord above our ird", { .rev = 2, .ird = 4, .ord = 8 }, 2,
	  2, 0, 8, 5, 0, 0, CMKIT_MPA_E_IRD },
	{ "v1 reply to a v2 request is accepted", { .rev = 2, .ird = 4, .ord = 8 }, 2,
	  1, 0, 0, 0, 0, 0, 0 },
	{ "rtr bits without p2p ignored", { .rev = 2, .ird = 8, .ord = 8 }, 2,
	  2, 0, 8, 8, CMKIT_MPA_V2_SEND_RTR, CMKIT_MPA_V2_WRITE_RTR, 0 },
};

static void bad_reply_desc(const struct bad_reply *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(bad_reply, bad_replies, bad_reply_desc);

static void mpa_initiate_refuses_reply(struct kunit *test)
{
	const struct bad_reply *c = test->param_value;
	struct cmkit_mpa_result out;
	struct cmkit_mpa_frame rep;
	u8 buf[64];
	int n;

	if (c->rev == 1)
		n = cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REPLY, 0, NULL, 0);
	else
		n = cmkit_mpa_build_v2(buf, sizeof(buf), CMKIT_MPA_REPLY, 0, c->ird,
				       c->ord, c->ird_ctrl, c->ord_ctrl, NULL, 0);
	KUNIT_ASSERT_GT(test, n, 0);
	if (c->rev == 3)
		buf[16] &= ~CMKIT_MPA_FLAG_ENHANCED;
	buf[16] |= c->flags;
	KUNIT_ASSERT_EQ(test, cmkit_mpa_parse(buf, n, CMKIT_MPA_REPLY, &rep), n);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_initiate(&c->me, c->sent_rev, &rep, &out), c->want);
	KUNIT_EXPECT_EQ(test, out.accept, !c->want);
}

/* ---------------------------------------------------------------------- */
/* Reject reasons and the revision 1 fallback */

static void mpa_reject_reason_round_trip(struct kunit *test)
{
	u8 pd[CMKIT_MPA_REJ_PD_LEN + 1];
	int r;

	for (r = CMKIT_MPA_REJ_REVISION; r <= CMKIT_MPA_REJ_MAX; r++) {
		KUNIT_ASSERT_EQ(test, cmkit_mpa_reject_reason_put(pd, sizeof(pd), r),
				CMKIT_MPA_REJ_PD_LEN);
		KUNIT_EXPECT_MEMEQ(test, pd, "CMKR", 4);
		KUNIT_EXPECT_EQ(test, (int)cmkit_mpa_reject_reason_get(pd, 6), r);
		/* Only exactly six bytes count. */
		KUNIT_EXPECT_EQ(test, (int)cmkit_mpa_reject_reason_get(pd, 7), 0);
		KUNIT_EXPECT_EQ(test, (int)cmkit_mpa_reject_reason_get(pd, 5), 0);
		KUNIT_EXPECT_STRNEQ(test, cmkit_mpa_reason_str(r), "unknown reason");
	}
	KUNIT_EXPECT_EQ(test, cmkit_mpa_reject_reason_put(pd, sizeof(pd), 0), CMKIT_MPA_E_ARG);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_reject_reason_put(pd, sizeof(pd), 7), CMKIT_MPA_E_ARG);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_reject_reason_put(pd, 5, 1), CMKIT_MPA_E_NOSPACE);
	/* A wrong tag or an unknown reason is a consumer's private data. */
	memcpy(pd, "CMKX\0\1", 6);
	KUNIT_EXPECT_EQ(test, (int)cmkit_mpa_reject_reason_get(pd, 6), 0);
	memcpy(pd, "CMKR\0\7", 6);
	KUNIT_EXPECT_EQ(test, (int)cmkit_mpa_reject_reason_get(pd, 6), 0);
	KUNIT_EXPECT_EQ(test, (int)cmkit_mpa_reject_reason_get(NULL, 6), 0);
}

static void mpa_fallback_rules(struct kunit *test)
{
	struct cmkit_mpa_offer me = { .rev = 2, .rev1_fallback = 1, .ird = 8, .ord = 8 };
	struct cmkit_mpa_frame rep;
	u8 buf[64], pd[CMKIT_MPA_REJ_PD_LEN];
	int n;

	/* No reply at all (reset): retry once, from revision 2 only. */
	KUNIT_EXPECT_EQ(test, cmkit_mpa_fallback(&me, 2, NULL), 1);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_fallback(&me, 1, NULL), 0);
	/* A v1 reject with a consumer's private data counts. */
	n = cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REPLY, 1, "no", 2);
	KUNIT_ASSERT_EQ(test, cmkit_mpa_parse(buf, n, CMKIT_MPA_REPLY, &rep), n);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_fallback(&me, 2, &rep), 1);
	/* A v1 accept does not (it is a revision 1 connection). */
	n = cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REPLY, 0, NULL, 0);
	KUNIT_ASSERT_EQ(test, cmkit_mpa_parse(buf, n, CMKIT_MPA_REPLY, &rep), n);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_fallback(&me, 2, &rep), 0);
	/* A v2 reject for the revision counts, for another reason not. */
	cmkit_mpa_reject_reason_put(pd, sizeof(pd), CMKIT_MPA_REJ_REVISION);
	n = cmkit_mpa_build_v2(buf, sizeof(buf), CMKIT_MPA_REPLY, 1, 0, 0, 0, 0, pd, 6);
	KUNIT_ASSERT_EQ(test, cmkit_mpa_parse(buf, n, CMKIT_MPA_REPLY, &rep), n);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_fallback(&me, 2, &rep), 1);
	cmkit_mpa_reject_reason_put(pd, sizeof(pd), CMKIT_MPA_REJ_IRD);
	n = cmkit_mpa_build_v2(buf, sizeof(buf), CMKIT_MPA_REPLY, 1, 0, 0, 0, 0, pd, 6);
	KUNIT_ASSERT_EQ(test, cmkit_mpa_parse(buf, n, CMKIT_MPA_REPLY, &rep), n);
	KUNIT_EXPECT_EQ(test, cmkit_mpa_fallback(&me, 2, &rep), 0);
	/* Not when asked not to, nor when P2P is required (needs revision 2). */
	me.rev1_fallback = 0;
	KUNIT_EXPECT_EQ(test, cmkit_mpa_fallback(&me, 2, NULL), 0);
	me.rev1_fallback = 1;
	me.p2p = CMKIT_MPA_P2P_REQUIRED;
	me.rtr = CMKIT_MPA_RTR_WRITE;
	KUNIT_EXPECT_EQ(test, cmkit_mpa_fallback(&me, 2, NULL), 0);
}

/* Offers that make no sense are refused by every decider. */
static void mpa_bad_offers_refused(struct kunit *test)
{
	static const struct cmkit_mpa_offer bad[] = {
		{ .rev = 0 }, { .rev = 3 },
		{ .rev = 2, .p2p = CMKIT_MPA_P2P_ON },			/* no RTR */
		{ .rev = 1, .p2p = CMKIT_MPA_P2P_REQUIRED, .rtr = W },	/* needs v2 */
		{ .rev = 2, .p2p = 3, .rtr = W },
		{ .rev = 2, .p2p = CMKIT_MPA_P2P_ON, .rtr = 0x08 },
		{ .rev = 2, .ird = 0x4000 },
		{ .rev = 2, .ord = 0x4000 },
	};
	struct cmkit_mpa_frame f = { .kind = CMKIT_MPA_REQUEST, .rev = 1 };
	struct cmkit_mpa_result out;
	u8 buf[64];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		KUNIT_EXPECT_EQ_MSG(test, cmkit_mpa_build_request(buf, sizeof(buf), &bad[i],
								  1, NULL, 0),
				    CMKIT_MPA_E_ARG, "offer %zu", i);
		f.kind = CMKIT_MPA_REQUEST;
		KUNIT_EXPECT_EQ_MSG(test, cmkit_mpa_respond(&bad[i], &f, &out),
				    CMKIT_MPA_E_ARG, "offer %zu", i);
		f.kind = CMKIT_MPA_REPLY;
		KUNIT_EXPECT_EQ_MSG(test, cmkit_mpa_initiate(&bad[i], 1, &f, &out),
				    CMKIT_MPA_E_ARG, "offer %zu", i);
	}
}

/* ---------------------------------------------------------------------- */
/* FPDUs and RTR messages */

struct fpdu_case {
	const char *name;
	u8 opcode;
	size_t payload_len;
	int crc;
	size_t want_len;
};

static const struct fpdu_case fpdu_cases[] = {
	{ "write tagged no payload no crc", CMKIT_RDMAP_WRITE, 0, 0, 20 },
	{ "write tagged 1 byte pads to 4", CMKIT_RDMAP_WRITE, 1, 1, 24 },
	{ "read response 2 bytes", CMKIT_RDMAP_READ_RESP, 2, 1, 24 },
	{ "send 0 bytes", CMKIT_RDMAP_SEND, 0, 1, 24 },
	{ "send 3 bytes", CMKIT_RDMAP_SEND, 3, 0, 28 },
	{ "send 100 bytes", CMKIT_RDMAP_SEND, 100, 1, 124 },
	{ "read request", CMKIT_RDMAP_READ_REQ, 0, 1, 52 },
	{ "send with invalidate", CMKIT_RDMAP_SEND_INV, 5, 1, 32 },
	{ "terminate", CMKIT_RDMAP_TERMINATE, 28, 1, 52 },
};

static void fpdu_case_desc(const struct fpdu_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fpdu, fpdu_cases, fpdu_case_desc);

static void fpdu_hdr(const struct fpdu_case *c, struct cmkit_iwarp_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->opcode = c->opcode;
	h->tagged = cmkit_rdmap_is_tagged(c->opcode);
	h->last = 1;
	h->stag = 0x11223344;
	h->to = 0x0102030405060708ULL;
	if (!h->tagged) {
		h->rsvd_ulp = 0xdeadbeef;
		h->qn = c->opcode == CMKIT_RDMAP_READ_REQ ? 1 : 0;
		h->msn = 7;
		h->mo = 9;
		h->stag = 0;
		h->to = 0;
	}
	if (c->opcode == CMKIT_RDMAP_READ_REQ) {
		h->sink_stag = 0xaabbccdd;
		h->sink_to = 0x1000;
		h->read_size = 4096;
		h->src_stag = 0x55;
		h->src_to = 0x2000;
	}
}

static void mpa_fpdu_round_trip(struct kunit *test)
{
	const struct fpdu_case *c = test->param_value;
	struct cmkit_iwarp_hdr h;
	struct cmkit_fpdu f;
	u8 buf[160];
	int n, k;

	fpdu_hdr(c, &h);
	n = cmkit_fpdu_build(buf, sizeof(buf), &h, pd_bytes, c->payload_len, c->crc);
	KUNIT_ASSERT_EQ(test, n, (int)c->want_len);
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_parse(buf, n, c->crc, &f), n);
	KUNIT_EXPECT_EQ(test, f.len, (size_t)n);
	KUNIT_EXPECT_EQ(test, f.hdr.opcode, h.opcode);
	KUNIT_EXPECT_EQ(test, f.hdr.tagged, h.tagged);
	KUNIT_EXPECT_EQ(test, f.hdr.last, 1);
	KUNIT_EXPECT_EQ(test, f.hdr.stag, h.stag);
	KUNIT_EXPECT_EQ(test, f.hdr.to, h.to);
	KUNIT_EXPECT_EQ(test, f.hdr.rsvd_ulp, h.rsvd_ulp);
	KUNIT_EXPECT_EQ(test, f.hdr.qn, h.qn);
	KUNIT_EXPECT_EQ(test, f.hdr.msn, h.msn);
	KUNIT_EXPECT_EQ(test, f.hdr.mo, h.mo);
	KUNIT_EXPECT_EQ(test, f.hdr.sink_stag, h.sink_stag);
	KUNIT_EXPECT_EQ(test, f.hdr.sink_to, h.sink_to);
	KUNIT_EXPECT_EQ(test, f.hdr.read_size, h.read_size);
	KUNIT_EXPECT_EQ(test, f.hdr.src_stag, h.src_stag);
	KUNIT_EXPECT_EQ(test, f.hdr.src_to, h.src_to);
	KUNIT_EXPECT_EQ(test, f.payload_len, c->payload_len);
	KUNIT_EXPECT_MEMEQ(test, f.payload, pd_bytes, c->payload_len);
	KUNIT_EXPECT_EQ(test, f.crc, c->crc ? ~cmkit_crc32c(CMKIT_CRC32C_SEED, buf, n - 4) : 0);
	/* Every prefix waits, and says how much more it needs at least. */
	for (k = 0; k < n; k++) {
		KUNIT_EXPECT_EQ(test, cmkit_fpdu_parse(buf, k, c->crc, &f), 0);
		KUNIT_EXPECT_GT(test, f.need, 0);
		KUNIT_EXPECT_LE(test, k + f.need, (size_t)n);
	}
	/* One byte short of room is refused. */
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_build(buf, n - 1, &h, pd_bytes,
					       c->payload_len, c->crc),
			CMKIT_FPDU_E_NOSPACE);
}

/* With CRC, any flipped bit is caught; without, the CRC field is not read. */
static void mpa_fpdu_crc_catches_damage(struct kunit *test)
{
	const struct fpdu_case *c = test->param_value;
	struct cmkit_iwarp_hdr h;
	struct cmkit_fpdu f;
	u8 buf[160];
	int n, i;

	fpdu_hdr(c, &h);
	n = cmkit_fpdu_build(buf, sizeof(buf), &h, pd_bytes, c->payload_len, 1);
	KUNIT_ASSERT_GT(test, n, 0);
	for (i = 2; i < n; i++) {
		buf[i] ^= 0x10;
		KUNIT_EXPECT_EQ_MSG(test, cmkit_fpdu_parse(buf, n, 1, &f), CMKIT_FPDU_E_CRC,
				    "byte %d", i);
		buf[i] ^= 0x10;
	}
	buf[n - 1] ^= 0xff;
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_parse(buf, n, 0, &f), n);
}

static void mpa_fpdu_malformed(struct kunit *test)
{
	struct cmkit_iwarp_hdr h = { .opcode = CMKIT_RDMAP_SEND, .last = 1 };
	struct cmkit_fpdu f;
	u8 buf[64];
	int n;

	/* T bit against the opcode: refused to build, and refused to parse. */
	h.tagged = 1;
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_build(buf, sizeof(buf), &h, NULL, 0, 0),
			CMKIT_FPDU_E_ARG);
	h.tagged = 0;
	h.opcode = 8;
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_build(buf, sizeof(buf), &h, NULL, 0, 0),
			CMKIT_FPDU_E_ARG);
	h.opcode = CMKIT_RDMAP_SEND;
	n = cmkit_fpdu_build(buf, sizeof(buf), &h, NULL, 0, 0);
	KUNIT_ASSERT_EQ(test, n, 24);
	buf[2] |= CMKIT_DDP_F_TAGGED;
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_parse(buf, n, 0, &f), CMKIT_FPDU_E_HDR);
	buf[2] &= ~CMKIT_DDP_F_TAGGED;
	/* Unknown opcode. */
	buf[3] = (buf[3] & ~CMKIT_RDMAP_OPCODE_MASK) | 9;
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_parse(buf, n, 0, &f), CMKIT_FPDU_E_HDR);
	buf[3] = (buf[3] & ~CMKIT_RDMAP_OPCODE_MASK) | CMKIT_RDMAP_SEND;
	/* DDP version 0 and 2, RDMAP version 2. */
	buf[2] &= ~CMKIT_DDP_DV_MASK;
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_parse(buf, n, 0, &f), CMKIT_FPDU_E_VERSION);
	buf[2] |= 2;
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_parse(buf, n, 0, &f), CMKIT_FPDU_E_VERSION);
	buf[2] = (buf[2] & ~CMKIT_DDP_DV_MASK) | CMKIT_DDP_VERSION;
	buf[3] = (2 << CMKIT_RDMAP_RV_SHIFT) | CMKIT_RDMAP_SEND;
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_parse(buf, n, 0, &f), CMKIT_FPDU_E_VERSION);
	buf[3] = (CMKIT_RDMAP_VERSION << CMKIT_RDMAP_RV_SHIFT) | CMKIT_RDMAP_SEND;
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_parse(buf, n, 0, &f), n);
	/* ULPDU_Length short of the opcode's header: 14 fits a tagged one only. */
	cmkit_put_be16(buf, 14);
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_parse(buf, n, 0, &f), CMKIT_FPDU_E_LEN);
	cmkit_put_be16(buf, 13);
	KUNIT_EXPECT_EQ(test, cmkit_fpdu_parse(buf, n, 0, &f), CMKIT_FPDU_E_LEN);
}

static const unsigned int rtr_types[] = { CMKIT_MPA_RTR_WRITE, CMKIT_MPA_RTR_READ,
					  CMKIT_MPA_RTR_SEND };

static void mpa_rtr_build_and_check(struct kunit *test)
{
	static const int want_len[] = { 20, 52, 24 };
	struct cmkit_iwarp_hdr rreq;
	struct cmkit_fpdu f;
	u8 buf[64], resp[32];
	size_t i, j;
	int n, m, crc;

	for (crc = 0; crc < 2; crc++) {
		for (i = 0; i < ARRAY_SIZE(rtr_types); i++) {
			n = cmkit_rtr_build(buf, sizeof(buf), rtr_types[i], crc);
			KUNIT_ASSERT_EQ(test, n, want_len[i]);
			KUNIT_EXPECT_EQ(test, cmkit_rtr_check(buf, n, rtr_types[i], crc, &f), n);
			/* The others' checks refuse it as another message. */
			for (j = 0; j < ARRAY_SIZE(rtr_types); j++)
				if (j != i)
					KUNIT_EXPECT_EQ(test, cmkit_rtr_check(buf, n, rtr_types[j],
									      crc, &f),
							CMKIT_FPDU_E_RTR_TYPE);
			/* MSN 2 is not the first message of the queue. */
			if (rtr_types[i] != CMKIT_MPA_RTR_WRITE) {
				cmkit_put_be32(buf + 12, 2);
				KUNIT_EXPECT_LT(test, cmkit_rtr_check(buf, n, rtr_types[i], 0,
								      &f), 0);
			}
		}
	}
	KUNIT_EXPECT_EQ(test, cmkit_rtr_build(buf, sizeof(buf), W | R, 0), CMKIT_FPDU_E_ARG);
	KUNIT_EXPECT_EQ(test, cmkit_rtr_build(buf, sizeof(buf), 0, 0), CMKIT_FPDU_E_ARG);
	/* The Read RTR's response goes to its sink STag and TO. */
	KUNIT_ASSERT_EQ(test, cmkit_rtr_hdr(CMKIT_MPA_RTR_READ, &rreq), 0);
	rreq.sink_stag = 0x77;
	rreq.sink_to = 0x88;
	m = cmkit_rtr_build_read_resp(resp, sizeof(resp), &rreq, 1);
	KUNIT_ASSERT_EQ(test, m, 20);
	KUNIT_EXPECT_EQ(test, cmkit_rtr_check_read_resp(resp, m, &rreq, 1, &f), m);
	rreq.sink_stag = 0x78;
	KUNIT_EXPECT_EQ(test, cmkit_rtr_check_read_resp(resp, m, &rreq, 1, &f),
			CMKIT_FPDU_E_RTR_FIELDS);
}

static struct kunit_case cmkit_pure_mpa_cases[] = {
	KUNIT_CASE_PARAM(mpa_frame_round_trip, frame_gen_params),
	KUNIT_CASE_PARAM(mpa_frame_prefix_needs_more, frame_gen_params),
	KUNIT_CASE_PARAM(mpa_frame_build_no_space, frame_gen_params),
	KUNIT_CASE(mpa_build_bad_arguments),
	KUNIT_CASE_PARAM(mpa_parse_malformed, bad_frame_gen_params),
	KUNIT_CASE_PARAM(mpa_v2_ird_ord_negotiation, ird_ord_gen_params),
	KUNIT_CASE_PARAM(mpa_handshake, hs_gen_params),
	KUNIT_CASE_PARAM(mpa_initiate_refuses_reply, bad_reply_gen_params),
	KUNIT_CASE(mpa_reject_reason_round_trip),
	KUNIT_CASE(mpa_fallback_rules),
	KUNIT_CASE(mpa_bad_offers_refused),
	KUNIT_CASE_PARAM(mpa_fpdu_round_trip, fpdu_gen_params),
	KUNIT_CASE_PARAM(mpa_fpdu_crc_catches_damage, fpdu_gen_params),
	KUNIT_CASE(mpa_fpdu_malformed),
	KUNIT_CASE(mpa_rtr_build_and_check),
	{}
};

static struct kunit_suite cmkit_pure_mpa_suite = {
	.name = "cmkit_pure_mpa",
	.test_cases = cmkit_pure_mpa_cases,
};

kunit_test_suite(cmkit_pure_mpa_suite);
