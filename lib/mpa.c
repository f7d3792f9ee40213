// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * MPA connection setup frames (RFC 5044, section 7.1) with RFC 6581's
 * enhanced connection setup: the bodies of include/cmkit/mpa.h.  No kernel or
 * libc header: built into cmkit.ko by kbuild and, as C, into the host tests,
 * the fuzz targets and cmkit-peer.
 */
#include "cmkit/mpa.h"

static int cmkit_mpa_put_hdr(cmkit_u8 *buf, enum cmkit_mpa_kind kind,
			     cmkit_u8 flags, cmkit_u8 rev, cmkit_u16 pd_len)
{
	if (kind != CMKIT_MPA_REQUEST && kind != CMKIT_MPA_REPLY)
		return CMKIT_MPA_E_ARG;
	cmkit_copy(buf, kind == CMKIT_MPA_REQUEST ? CMKIT_MPA_KEY_REQ :
		       CMKIT_MPA_KEY_REP, CMKIT_MPA_KEY_LEN);
	buf[16] = flags;
	buf[17] = rev;
	cmkit_put_be16(buf + 18, pd_len);
	return 0;
}

/**
 * cmkit_mpa_build_v1 - write a revision 1 request or reply
 * @buf: output buffer
 * @buflen: its size
 * @kind: request or reply
 * @reject: a reply that rejects the connection (ignored for requests)
 * @pdata: the upper layer's private data, or NULL
 * @pdata_len: its length, at most CMKIT_MPA_MAX_PD_LEN
 *
 * No markers and no CRC are asked for.
 *
 * Return: the frame's length, or a negative CMKIT_MPA_E_* code (then
 * nothing useful was written).
 */
int cmkit_mpa_build_v1(cmkit_u8 *buf, cmkit_size buflen,
		       enum cmkit_mpa_kind kind, int reject, const void *pdata,
		       cmkit_u16 pdata_len)
{
	cmkit_u8 flags = 0;
	int rc;

	if (!buf || (pdata_len && !pdata))
		return CMKIT_MPA_E_ARG;
	if (pdata_len > CMKIT_MPA_MAX_PD_LEN)
		return CMKIT_MPA_E_PDATA;
	if (buflen < (cmkit_size)CMKIT_MPA_HDR_LEN + pdata_len)
		return CMKIT_MPA_E_NOSPACE;
	if (reject && kind == CMKIT_MPA_REPLY)
		flags |= CMKIT_MPA_FLAG_REJECT;
	rc = cmkit_mpa_put_hdr(buf, kind, flags, CMKIT_MPA_REV1, pdata_len);
	if (rc)
		return rc;
	if (pdata_len)
		cmkit_copy(buf + CMKIT_MPA_HDR_LEN, pdata, pdata_len);
	return CMKIT_MPA_HDR_LEN + pdata_len;
}

/**
 * cmkit_mpa_build_v2 - write a revision 2 enhanced request or reply
 * @buf: output buffer
 * @buflen: its size
 * @kind: request or reply
 * @reject: a reply that rejects the connection (ignored for requests)
 * @ird: IRD to advertise (values above 0x3fff are clamped to it)
 * @ord: ORD to advertise (likewise)
 * @ird_ctrl: CMKIT_MPA_V2_PEER_TO_PEER and/or CMKIT_MPA_V2_SEND_RTR
 * @ord_ctrl: CMKIT_MPA_V2_WRITE_RTR and/or CMKIT_MPA_V2_READ_RTR
 * @pdata: the upper layer's private data, or NULL
 * @pdata_len: its length, at most CMKIT_MPA_MAX_PD_LEN - 4
 *
 * Return: the frame's length, or a negative CMKIT_MPA_E_* code.
 */
int cmkit_mpa_build_v2(cmkit_u8 *buf, cmkit_size buflen,
		       enum cmkit_mpa_kind kind, int reject, cmkit_u16 ird,
		       cmkit_u16 ord, cmkit_u16 ird_ctrl, cmkit_u16 ord_ctrl,
		       const void *pdata, cmkit_u16 pdata_len)
{
	cmkit_u8 flags = CMKIT_MPA_FLAG_ENHANCED;
	cmkit_u16 pd_len;
	int rc;

	if (!buf || (pdata_len && !pdata))
		return CMKIT_MPA_E_ARG;
	if (pdata_len > CMKIT_MPA_MAX_PD_LEN - CMKIT_MPA_IRD_ORD_LEN)
		return CMKIT_MPA_E_PDATA;
	pd_len = (cmkit_u16)(pdata_len + CMKIT_MPA_IRD_ORD_LEN);
	if (buflen < (cmkit_size)CMKIT_MPA_HDR_LEN + pd_len)
		return CMKIT_MPA_E_NOSPACE;
	if (reject && kind == CMKIT_MPA_REPLY)
		flags |= CMKIT_MPA_FLAG_REJECT;
	rc = cmkit_mpa_put_hdr(buf, kind, flags, CMKIT_MPA_REV2, pd_len);
	if (rc)
		return rc;
	if (ird > CMKIT_MPA_V2_IRD_ORD_MASK)
		ird = CMKIT_MPA_V2_IRD_ORD_MASK;
	if (ord > CMKIT_MPA_V2_IRD_ORD_MASK)
		ord = CMKIT_MPA_V2_IRD_ORD_MASK;
	cmkit_put_be16(buf + 20, (cmkit_u16)(ird | (ird_ctrl & ~CMKIT_MPA_V2_IRD_ORD_MASK)));
	cmkit_put_be16(buf + 22, (cmkit_u16)(ord | (ord_ctrl & ~CMKIT_MPA_V2_IRD_ORD_MASK)));
	if (pdata_len)
		cmkit_copy(buf + CMKIT_MPA_HDR_LEN + CMKIT_MPA_IRD_ORD_LEN, pdata,
			   pdata_len);
	return CMKIT_MPA_HDR_LEN + pd_len;
}

/*
 * The parser behind cmkit_mpa_parse_strict() and cmkit_mpa_parse(): @strict
 * refuses revisions other than 1 and 2 and frames asking for markers as
 * soon as the header is in; otherwise both are left to the deciders.
 */
static int cmkit_mpa_parse_common(const cmkit_u8 *buf, cmkit_size len,
				  enum cmkit_mpa_kind kind, int strict,
				  struct cmkit_mpa_frame *out)
{
	cmkit_u16 pd_len, w;

	if (!out || (len && !buf))
		return CMKIT_MPA_E_ARG;
	if (len < CMKIT_MPA_HDR_LEN)
		return 0;
	if (!cmkit_equal(buf, kind == CMKIT_MPA_REQUEST ? CMKIT_MPA_KEY_REQ :
			 CMKIT_MPA_KEY_REP, CMKIT_MPA_KEY_LEN))
		return CMKIT_MPA_E_KEY;
	if (strict && buf[17] != CMKIT_MPA_REV1 && buf[17] != CMKIT_MPA_REV2)
		return CMKIT_MPA_E_REV;
	pd_len = cmkit_get_be16(buf + 18);
	if (pd_len > CMKIT_MPA_MAX_PD_LEN)
		return CMKIT_MPA_E_OVERSIZE;
	if (strict && (buf[16] & CMKIT_MPA_FLAG_MARKERS))
		return CMKIT_MPA_E_MARKERS;
	out->kind = kind;
	out->flags = buf[16];
	out->rev = buf[17];
	out->enhanced = out->rev == CMKIT_MPA_REV2 &&
			(out->flags & CMKIT_MPA_FLAG_ENHANCED);
	if (out->enhanced && pd_len < CMKIT_MPA_IRD_ORD_LEN)
		return CMKIT_MPA_E_V2_SHORT;
	if (len < (cmkit_size)CMKIT_MPA_HDR_LEN + pd_len)
		return 0;
	out->frame_len = (cmkit_size)CMKIT_MPA_HDR_LEN + pd_len;
	out->ird = 0;
	out->ord = 0;
	out->ird_ctrl = 0;
	out->ord_ctrl = 0;
	out->pdata = buf + CMKIT_MPA_HDR_LEN;
	out->pdata_len = pd_len;
	if (out->enhanced) {
		w = cmkit_get_be16(buf + 20);
		out->ird = w & CMKIT_MPA_V2_IRD_ORD_MASK;
		out->ird_ctrl = w & (cmkit_u16)~CMKIT_MPA_V2_IRD_ORD_MASK;
		w = cmkit_get_be16(buf + 22);
		out->ord = w & CMKIT_MPA_V2_IRD_ORD_MASK;
		out->ord_ctrl = w & (cmkit_u16)~CMKIT_MPA_V2_IRD_ORD_MASK;
		out->pdata += CMKIT_MPA_IRD_ORD_LEN;
		out->pdata_len -= CMKIT_MPA_IRD_ORD_LEN;
	}
	return (int)out->frame_len;
}

/**
 * cmkit_mpa_parse_strict - decode a request or reply from what has been received
 * @buf: the bytes received so far, from the frame's first byte
 * @len: how many; nothing past them is read
 * @kind: the key expected
 * @out: the decoded frame, valid when the return value is positive
 *
 * A caller that receives a frame piecemeal calls this after each read: the
 * header alone says how long the frame is, and an invalid header is
 * reported as soon as its 20 bytes are in.  CRC is accepted (siw may be
 * built to ask for it) and left for the caller to judge; markers are not.
 *
 * Return: the frame's total length (> 0) when @len holds the whole frame;
 * 0 when more bytes are needed; a negative CMKIT_MPA_E_* code when the bytes
 * can never become a valid frame.
 */
int cmkit_mpa_parse_strict(const cmkit_u8 *buf, cmkit_size len,
			   enum cmkit_mpa_kind kind,
			   struct cmkit_mpa_frame *out)
{
	return cmkit_mpa_parse_common(buf, len, kind, 1, out);
}

/**
 * cmkit_mpa_parse - decode a frame for the RFC 6581 deciders
 * @buf: the bytes received so far, from the frame's first byte
 * @len: how many; nothing past them is read
 * @kind: the key expected
 * @out: the decoded frame, valid when the return value is positive
 *
 * As cmkit_mpa_parse_strict(), except that a frame asking for markers, or of a
 * revision other than 1 and 2, is decoded whole (@out->flags and @out->rev
 * as received; only revision 2 has IRD/ORD) rather than refused: so that
 * cmkit_mpa_respond() can answer it with a reject frame instead of a reset,
 * and cmkit_mpa_initiate() can say what was wrong with a reply.
 *
 * Return: as cmkit_mpa_parse_strict().
 */
int cmkit_mpa_parse(const cmkit_u8 *buf, cmkit_size len,
		    enum cmkit_mpa_kind kind, struct cmkit_mpa_frame *out)
{
	return cmkit_mpa_parse_common(buf, len, kind, 0, out);
}

/**
 * cmkit_mpa_negotiate_ird_ord - fit our IRD/ORD to the peer's
 * @initiator: we sent the request and @peer_* come from the reply;
 *	otherwise we are the responder and @peer_* come from the request
 * @ird: our IRD (reads we can take), adjusted
 * @ord: our ORD (reads we may issue), adjusted
 * @peer_ird: the peer's IRD
 * @peer_ord: the peer's ORD
 *
 * Neither side may issue more RDMA Reads than the other can take: our ORD
 * is lowered to the peer's IRD.  A responder leaves its IRD as it is (an
 * initiator whose ORD exceeds it lowers its ORD on the reply); an initiator
 * whose IRD is short of the responder's ORD cannot go on.  A peer that
 * leaves IRD or ORD unspecified (0x3fff) negotiates nothing.
 *
 * Return: 0, or CMKIT_MPA_E_IRD (initiator only) when our IRD is short.
 */
int cmkit_mpa_negotiate_ird_ord(int initiator, cmkit_u16 *ird, cmkit_u16 *ord,
				cmkit_u16 peer_ird, cmkit_u16 peer_ord)
{
	peer_ird &= CMKIT_MPA_V2_IRD_ORD_MASK;
	peer_ord &= CMKIT_MPA_V2_IRD_ORD_MASK;
	if (peer_ird == CMKIT_MPA_V2_NO_IRD_ORD || peer_ord == CMKIT_MPA_V2_NO_IRD_ORD)
		return 0;
	if (*ord > peer_ird)
		*ord = peer_ird;
	if (initiator && *ird < peer_ord)
		return CMKIT_MPA_E_IRD;
	return 0;
}

/**
 * cmkit_mpa_rtr_offered - the RTR types named by a frame's control bits
 * @f: a parsed enhanced frame
 *
 * Return: a set of CMKIT_MPA_RTR_* bits; empty unless @f is enhanced.
 */
cmkit_u8 cmkit_mpa_rtr_offered(const struct cmkit_mpa_frame *f)
{
	cmkit_u8 rtr = 0;

	if (!f->enhanced)
		return 0;
	if (f->ird_ctrl & CMKIT_MPA_V2_SEND_RTR)
		rtr |= CMKIT_MPA_RTR_SEND;
	if (f->ord_ctrl & CMKIT_MPA_V2_WRITE_RTR)
		rtr |= CMKIT_MPA_RTR_WRITE;
	if (f->ord_ctrl & CMKIT_MPA_V2_READ_RTR)
		rtr |= CMKIT_MPA_RTR_READ;
	return rtr;
}

/* The control bits of the IRD and ORD words for @p2p and an RTR set. */
static void cmkit_mpa_ctrl_bits(int p2p, cmkit_u8 rtr, cmkit_u16 *ird_ctrl,
				cmkit_u16 *ord_ctrl)
{
	*ird_ctrl = 0;
	*ord_ctrl = 0;
	if (!p2p)
		return;
	*ird_ctrl = CMKIT_MPA_V2_PEER_TO_PEER;
	if (rtr & CMKIT_MPA_RTR_SEND)
		*ird_ctrl |= CMKIT_MPA_V2_SEND_RTR;
	if (rtr & CMKIT_MPA_RTR_WRITE)
		*ord_ctrl |= CMKIT_MPA_V2_WRITE_RTR;
	if (rtr & CMKIT_MPA_RTR_READ)
		*ord_ctrl |= CMKIT_MPA_V2_READ_RTR;
}

/* 0x3fff ("not specified") is the largest 14-bit count: min() needs no case. */
static cmkit_u16 cmkit_mpa_min_rd(cmkit_u16 a, cmkit_u16 b)
{
	return a < b ? a : b;
}

/**
 * cmkit_mpa_offer_ok - whether an offer is one the deciders can act on
 * @o: the offer
 *
 * Revision 1 or 2; a known peer-to-peer mode, required only in revision 2;
 * only known RTR types, and at least one unless peer-to-peer is off; IRD
 * and ORD within 14 bits.
 *
 * Return: 1 if @o is valid, else 0.
 */
int cmkit_mpa_offer_ok(const struct cmkit_mpa_offer *o)
{
	if (o->rev != CMKIT_MPA_REV1 && o->rev != CMKIT_MPA_REV2)
		return 0;
	if (o->p2p > CMKIT_MPA_P2P_REQUIRED || (o->rtr & ~CMKIT_MPA_RTR_ALL))
		return 0;
	if (o->p2p != CMKIT_MPA_P2P_OFF && !o->rtr)
		return 0;
	if (o->p2p == CMKIT_MPA_P2P_REQUIRED && o->rev != CMKIT_MPA_REV2)
		return 0;
	return o->ird <= CMKIT_MPA_V2_IRD_ORD_MASK && o->ord <= CMKIT_MPA_V2_IRD_ORD_MASK;
}

/**
 * cmkit_mpa_reject_reason_put - write the private data of a reasoned reject
 * @buf: output buffer
 * @buflen: its size
 * @reason: CMKIT_MPA_REJ_REVISION to CMKIT_MPA_REJ_MAX
 *
 * Return: CMKIT_MPA_REJ_PD_LEN, or CMKIT_MPA_E_NOSPACE or CMKIT_MPA_E_ARG.
 */
int cmkit_mpa_reject_reason_put(cmkit_u8 *buf, cmkit_size buflen,
				enum cmkit_mpa_reject_reason reason)
{
	if (!buf || reason <= CMKIT_MPA_REJ_NONE || reason > CMKIT_MPA_REJ_MAX)
		return CMKIT_MPA_E_ARG;
	if (buflen < CMKIT_MPA_REJ_PD_LEN)
		return CMKIT_MPA_E_NOSPACE;
	cmkit_copy(buf, CMKIT_MPA_REJ_TAG, CMKIT_MPA_REJ_TAG_LEN);
	cmkit_put_be16(buf + CMKIT_MPA_REJ_TAG_LEN, (cmkit_u16)reason);
	return CMKIT_MPA_REJ_PD_LEN;
}

/**
 * cmkit_mpa_reject_reason_get - the reason in a reject's private data
 * @pdata: the private data (after IRD/ORD in an enhanced frame)
 * @len: its length
 *
 * Only exactly CMKIT_MPA_REJ_PD_LEN bytes with the "CMKR" tag and a known
 * reason count: anything else is a consumer's private data.
 *
 * Return: the reason, or CMKIT_MPA_REJ_NONE.
 */
enum cmkit_mpa_reject_reason cmkit_mpa_reject_reason_get(const cmkit_u8 *pdata,
							 cmkit_size len)
{
	cmkit_u16 v;

	if (!pdata || len != CMKIT_MPA_REJ_PD_LEN ||
	    !cmkit_equal(pdata, CMKIT_MPA_REJ_TAG, CMKIT_MPA_REJ_TAG_LEN))
		return CMKIT_MPA_REJ_NONE;
	v = cmkit_get_be16(pdata + CMKIT_MPA_REJ_TAG_LEN);
	if (v > CMKIT_MPA_REJ_MAX)
		return CMKIT_MPA_REJ_NONE;
	return (enum cmkit_mpa_reject_reason)v;
}

/**
 * cmkit_mpa_build_request - write an initiator's request for an offer
 * @buf: output buffer
 * @buflen: its size
 * @me: our offer
 * @rev: the revision to ask for: @me->rev, or 1 on a fallback
 * @pdata: the consumer's private data, or NULL
 * @pdata_len: its length
 *
 * Revision 2 is always enhanced: IRD and ORD, and with @me->p2p the P2P bit
 * and the RTR types of @me->rtr.  Revision 1 carries no IRD/ORD and no P2P.
 * C is set when @me->crc; M never is.
 *
 * Return: the frame's length, or a negative CMKIT_MPA_E_* code.
 */
int cmkit_mpa_build_request(cmkit_u8 *buf, cmkit_size buflen,
			    const struct cmkit_mpa_offer *me, cmkit_u8 rev,
			    const void *pdata, cmkit_u16 pdata_len)
{
	cmkit_u16 ird_ctrl, ord_ctrl;
	int n;

	if (!me || !cmkit_mpa_offer_ok(me) || rev < CMKIT_MPA_REV1 || rev > me->rev)
		return CMKIT_MPA_E_ARG;
	if (rev == CMKIT_MPA_REV1) {
		n = cmkit_mpa_build_v1(buf, buflen, CMKIT_MPA_REQUEST, 0, pdata,
				       pdata_len);
	} else {
		cmkit_mpa_ctrl_bits(me->p2p != CMKIT_MPA_P2P_OFF, me->rtr,
				    &ird_ctrl, &ord_ctrl);
		n = cmkit_mpa_build_v2(buf, buflen, CMKIT_MPA_REQUEST, 0, me->ird,
				       me->ord, ird_ctrl, ord_ctrl, pdata, pdata_len);
	}
	if (n > 0 && me->crc)
		buf[16] |= CMKIT_MPA_FLAG_CRC;
	return n;
}

/*
 * Preference among the RTR types both sides take: a zero-length RDMA
 * Write needs nothing of the responder; a Read takes one of its IRD slots
 * (and a Read Response back); a Send needs a posted receive.  siw and cxgb4
 * prefer Write to Read too; irdma prefers Read.
 */
static cmkit_u8 cmkit_mpa_rtr_pick(cmkit_u8 rtr)
{
	if (rtr & CMKIT_MPA_RTR_WRITE)
		return CMKIT_MPA_RTR_WRITE;
	if (rtr & CMKIT_MPA_RTR_READ)
		return CMKIT_MPA_RTR_READ;
	if (rtr & CMKIT_MPA_RTR_SEND)
		return CMKIT_MPA_RTR_SEND;
	return 0;
}

static int cmkit_mpa_refuse(struct cmkit_mpa_result *out,
			    enum cmkit_mpa_reject_reason reason)
{
	out->accept = 0;
	out->reason = reason;
	return (int)reason;
}

/**
 * cmkit_mpa_respond - a responder's decision on a request
 * @me: our offer
 * @req: the request, from cmkit_mpa_parse()
 * @out: the decision, for cmkit_mpa_build_reply()
 *
 * In order, the request is refused when:
 *  - its revision is neither 1 nor 2, or above @me->rev: REVISION (the
 *    reject is in @me->rev, so a revision 1 responder answers a revision
 *    2 request with a revision 1 reject);
 *  - it asks for markers: MARKERS;
 *  - @me->p2p is required and the request is not an enhanced one with the
 *    P2P bit: P2P_REQUIRED;
 *  - it asks for P2P and no RTR type is both offered and in @me->rtr (a
 *    Read only counts when our IRD is not 0, as the Read takes one of our
 *    IRD slots; with @me->p2p off, none does): NO_RTR.  RFC 6581 section
 *    9.2: "If Control Flag A is 1 in the MPA Request message, then the
 *    responder MUST set Control Flag A to 1 in the MPA reply message", so
 *    a responder that cannot take P2P refuses it rather than accepting
 *    without it (cxgb4 terminates on such a reply);
 *  - @me->ird_strict, and the initiator's ORD (when specified) exceeds
 *    our IRD: IRD.
 * Otherwise the reply is accepted in the request's revision (a revision 2
 * responder answers a revision 1 request in revision 1, as siw, irdma and
 * cxgb4 do), enhanced when the request was; CRC is on when either side
 * asks; P2P is echoed whenever asked, with one RTR type, in order of
 * preference zero-length Write, Read, Send.  The reply's IRD is ours, unchanged (0 says we take
 * no Reads); its ORD is ours lowered to the initiator's IRD.  0x3fff,
 * "not specified", is the largest count and so limits nothing.
 *
 * For a refusal, @out holds what the reject frame says: the revision, IRD
 * and ORD, and (enhanced) whether we do P2P and every RTR type we take.
 *
 * Return: 0 to accept; a positive CMKIT_MPA_REJ_* reason to refuse (send
 * the reject cmkit_mpa_build_reply() writes, then close, never reset); or
 * CMKIT_MPA_E_ARG.
 */
int cmkit_mpa_respond(const struct cmkit_mpa_offer *me,
		      const struct cmkit_mpa_frame *req,
		      struct cmkit_mpa_result *out)
{
	cmkit_u8 common = 0;
	int peer_p2p;

	if (!me || !req || !out || !cmkit_mpa_offer_ok(me) ||
	    req->kind != CMKIT_MPA_REQUEST)
		return CMKIT_MPA_E_ARG;
	cmkit_zero(out, sizeof(*out));
	out->ird = me->ird;
	out->ord = me->ord;
	out->p2p = me->p2p != CMKIT_MPA_P2P_OFF;
	out->rtr = out->p2p ? me->rtr : 0;
	if ((req->rev != CMKIT_MPA_REV1 && req->rev != CMKIT_MPA_REV2) ||
	    req->rev > me->rev) {
		out->rev = me->rev;
		return cmkit_mpa_refuse(out, CMKIT_MPA_REJ_REVISION);
	}
	out->rev = req->rev;
	out->enhanced = req->enhanced ? 1 : 0;
	out->crc = (req->flags & CMKIT_MPA_FLAG_CRC) || me->crc;
	if (req->flags & CMKIT_MPA_FLAG_MARKERS)
		return cmkit_mpa_refuse(out, CMKIT_MPA_REJ_MARKERS);
	peer_p2p = req->enhanced && (req->ird_ctrl & CMKIT_MPA_V2_PEER_TO_PEER);
	if (me->p2p == CMKIT_MPA_P2P_REQUIRED && !peer_p2p)
		return cmkit_mpa_refuse(out, CMKIT_MPA_REJ_P2P_REQUIRED);
	if (peer_p2p) {
		/* RFC 6581, 9.2: a reply to a request with A set has A set. */
		common = cmkit_mpa_rtr_offered(req) &
			 (me->p2p != CMKIT_MPA_P2P_OFF ? me->rtr : 0);
		if (!me->ird)
			common &= (cmkit_u8)~CMKIT_MPA_RTR_READ;
		common = cmkit_mpa_rtr_pick(common);
		if (!common)
			return cmkit_mpa_refuse(out, CMKIT_MPA_REJ_NO_RTR);
	}
	if (req->enhanced) {
		if (me->ird_strict && req->ord != CMKIT_MPA_V2_NO_IRD_ORD &&
		    me->ird < req->ord)
			return cmkit_mpa_refuse(out, CMKIT_MPA_REJ_IRD);
		out->ord = cmkit_mpa_min_rd(me->ord, req->ird);
	}
	out->accept = 1;
	out->p2p = common != 0;
	out->rtr = common;
	return 0;
}

/**
 * cmkit_mpa_build_reply - write the reply a decision calls for
 * @buf: output buffer
 * @buflen: its size
 * @r: the decision, from cmkit_mpa_respond()
 * @pdata: the consumer's private data, or NULL; must be empty for a
 *	refusal with a reason (its private data is the reason)
 * @pdata_len: its length
 *
 * An accept or a refusal; a consumer's own reject is @r with @r->accept
 * cleared and @r->reason CMKIT_MPA_REJ_NONE, carrying @pdata.  IRD/ORD
 * words are written when @r->enhanced, with the P2P bit and RTR bits when
 * @r->p2p.
 *
 * Return: the frame's length, or a negative CMKIT_MPA_E_* code.
 */
int cmkit_mpa_build_reply(cmkit_u8 *buf, cmkit_size buflen,
			  const struct cmkit_mpa_result *r, const void *pdata,
			  cmkit_u16 pdata_len)
{
	cmkit_u8 reason_pd[CMKIT_MPA_REJ_PD_LEN];
	cmkit_u16 ird_ctrl, ord_ctrl;
	cmkit_u8 flags = 0;
	int n;

	if (!buf || !r || (r->rev != CMKIT_MPA_REV1 && r->rev != CMKIT_MPA_REV2) ||
	    (r->enhanced && r->rev != CMKIT_MPA_REV2) || (r->rtr & ~CMKIT_MPA_RTR_ALL))
		return CMKIT_MPA_E_ARG;
	if (r->accept && r->p2p && (!r->rtr || cmkit_mpa_rtr_pick(r->rtr) != r->rtr))
		return CMKIT_MPA_E_ARG;		/* exactly one RTR type */
	if (!r->accept && r->reason != CMKIT_MPA_REJ_NONE) {
		if (pdata_len)
			return CMKIT_MPA_E_ARG;
		n = cmkit_mpa_reject_reason_put(reason_pd, sizeof(reason_pd), r->reason);
		if (n < 0)
			return n;
		pdata = reason_pd;
		pdata_len = (cmkit_u16)n;
	}
	if (r->enhanced) {
		cmkit_mpa_ctrl_bits(r->p2p, r->rtr, &ird_ctrl, &ord_ctrl);
		n = cmkit_mpa_build_v2(buf, buflen, CMKIT_MPA_REPLY, !r->accept,
				       r->ird, r->ord, ird_ctrl, ord_ctrl, pdata,
				       pdata_len);
	} else {
		if (!pdata && pdata_len)
			return CMKIT_MPA_E_ARG;
		if (pdata_len > CMKIT_MPA_MAX_PD_LEN)
			return CMKIT_MPA_E_PDATA;
		if (buflen < (cmkit_size)CMKIT_MPA_HDR_LEN + pdata_len)
			return CMKIT_MPA_E_NOSPACE;
		if (!r->accept)
			flags |= CMKIT_MPA_FLAG_REJECT;
		cmkit_mpa_put_hdr(buf, CMKIT_MPA_REPLY, flags, r->rev, pdata_len);
		if (pdata_len)
			cmkit_copy(buf + CMKIT_MPA_HDR_LEN, pdata, pdata_len);
		n = CMKIT_MPA_HDR_LEN + pdata_len;
	}
	if (n > 0 && r->crc)
		buf[16] |= CMKIT_MPA_FLAG_CRC;
	return n;
}

/**
 * cmkit_mpa_initiate - an initiator's decision on the reply it got
 * @me: our offer
 * @sent_rev: the revision of the request we sent (cmkit_mpa_build_request())
 * @rep: the reply, from cmkit_mpa_parse()
 * @out: the decision; @out->reason holds a reject's reason
 *
 * The connection is established unless:
 *  - the reply rejects it: CMKIT_MPA_E_REJECTED (see cmkit_mpa_fallback());
 *  - its revision is neither 1 nor 2, above @sent_rev, or 2 without the E
 *    flag to our enhanced request: CMKIT_MPA_E_REPLY_REV (a revision 1
 *    reply to a revision 2 request is a revision 1 connection, as irdma
 *    and cxgb4 take it; siw refuses it);
 *  - it asks for markers: CMKIT_MPA_E_MARKERS;
 *  - we asked for CRC and it has none: CMKIT_MPA_E_CRC;
 *  - @me->p2p is required and the reply has no P2P bit, or it has one we
 *    did not ask for: CMKIT_MPA_E_P2P;
 *  - it has P2P, but its RTR bits are not exactly one type of @me->rtr, or
 *    choose Read while its IRD is 0: CMKIT_MPA_E_RTR;
 *  - its ORD (when specified) exceeds our IRD: CMKIT_MPA_E_IRD.
 * RTR bits without the P2P bit mean nothing and are ignored.  On success
 * @out->p2p says whether we must now send the RTR of type @out->rtr;
 * @out->ord is our ORD lowered to the peer's IRD, @out->ird our IRD lowered
 * to the peer's ORD (without IRD/ORD in the reply, both are ours).
 *
 * Return: 0 when established, or a negative CMKIT_MPA_E_* code.
 */
int cmkit_mpa_initiate(const struct cmkit_mpa_offer *me, cmkit_u8 sent_rev,
		       const struct cmkit_mpa_frame *rep,
		       struct cmkit_mpa_result *out)
{
	int asked, peer_p2p;
	cmkit_u8 rtr;

	if (!me || !rep || !out || !cmkit_mpa_offer_ok(me) ||
	    rep->kind != CMKIT_MPA_REPLY || sent_rev < CMKIT_MPA_REV1 ||
	    sent_rev > me->rev)
		return CMKIT_MPA_E_ARG;
	cmkit_zero(out, sizeof(*out));
	out->rev = rep->rev;
	out->ird = me->ird;
	out->ord = me->ord;
	if (rep->flags & CMKIT_MPA_FLAG_REJECT) {
		out->reason = cmkit_mpa_reject_reason_get(rep->pdata, rep->pdata_len);
		return CMKIT_MPA_E_REJECTED;
	}
	if ((rep->rev != CMKIT_MPA_REV1 && rep->rev != CMKIT_MPA_REV2) ||
	    rep->rev > sent_rev ||
	    (sent_rev == CMKIT_MPA_REV2 && rep->rev == CMKIT_MPA_REV2 && !rep->enhanced))
		return CMKIT_MPA_E_REPLY_REV;
	if (rep->flags & CMKIT_MPA_FLAG_MARKERS)
		return CMKIT_MPA_E_MARKERS;
	if (me->crc && !(rep->flags & CMKIT_MPA_FLAG_CRC))
		return CMKIT_MPA_E_CRC;
	out->crc = (rep->flags & CMKIT_MPA_FLAG_CRC) ? 1 : 0;
	out->enhanced = rep->enhanced ? 1 : 0;
	asked = sent_rev == CMKIT_MPA_REV2 && me->p2p != CMKIT_MPA_P2P_OFF;
	peer_p2p = rep->enhanced && (rep->ird_ctrl & CMKIT_MPA_V2_PEER_TO_PEER);
	if (peer_p2p && !asked)
		return CMKIT_MPA_E_P2P;
	if (!peer_p2p && me->p2p == CMKIT_MPA_P2P_REQUIRED)
		return CMKIT_MPA_E_P2P;
	if (peer_p2p) {
		rtr = cmkit_mpa_rtr_offered(rep);
		if (!rtr || cmkit_mpa_rtr_pick(rtr) != rtr || (rtr & ~me->rtr) ||
		    (rtr == CMKIT_MPA_RTR_READ && !rep->ird))
			return CMKIT_MPA_E_RTR;
		out->p2p = 1;
		out->rtr = rtr;
	}
	if (rep->enhanced) {
		if (rep->ord != CMKIT_MPA_V2_NO_IRD_ORD && me->ird < rep->ord)
			return CMKIT_MPA_E_IRD;
		out->ord = cmkit_mpa_min_rd(me->ord, rep->ird);
		out->ird = cmkit_mpa_min_rd(me->ird, rep->ord);
	}
	out->accept = 1;
	return 0;
}

/**
 * cmkit_mpa_fallback - may an initiator retry in revision 1?
 * @me: our offer
 * @sent_rev: the revision of the request that failed
 * @rep: the reply, from cmkit_mpa_parse(); NULL when the connection was
 *	reset or closed before a whole reply came
 *
 * A revision 2 request counts as refused for its revision when the reply
 * is a reject in revision 1 (a responder that speaks only revision 1
 * answers in its own revision: cmkit_mpa_respond() does), a reject naming
 * CMKIT_MPA_REJ_REVISION, or no reply at all: cxgb4 (mpa_rev below the
 * request's) and irdma (a revision above its own) reset the connection
 * instead of rejecting, and cxgb4 and irdma as initiators retry in
 * revision 1 after a reset in that state.  siw takes revisions 1 and 2 and
 * never rejects for revision.  A reject for any other reason does not
 * count.  Retry once: a revision 1 request has nothing to fall back to.
 *
 * Return: 1 to reconnect with cmkit_mpa_build_request(..., 1, ...), else 0.
 */
int cmkit_mpa_fallback(const struct cmkit_mpa_offer *me, cmkit_u8 sent_rev,
		       const struct cmkit_mpa_frame *rep)
{
	if (!me || !cmkit_mpa_offer_ok(me) || !me->rev1_fallback ||
	    sent_rev != CMKIT_MPA_REV2 || me->p2p == CMKIT_MPA_P2P_REQUIRED)
		return 0;
	if (!rep)
		return 1;
	if (rep->kind != CMKIT_MPA_REPLY || !(rep->flags & CMKIT_MPA_FLAG_REJECT))
		return 0;
	return rep->rev == CMKIT_MPA_REV1 ||
	       cmkit_mpa_reject_reason_get(rep->pdata, rep->pdata_len) ==
	       CMKIT_MPA_REJ_REVISION;
}

/**
 * cmkit_mpa_reason_str - a short description of a reject reason
 * @reason: a CMKIT_MPA_REJ_* value
 *
 * Return: a static string.
 */
const char *cmkit_mpa_reason_str(enum cmkit_mpa_reject_reason reason)
{
	switch (reason) {
	case CMKIT_MPA_REJ_NONE:
		return "no reason given";
	case CMKIT_MPA_REJ_REVISION:
		return "unsupported revision";
	case CMKIT_MPA_REJ_MARKERS:
		return "markers requested";
	case CMKIT_MPA_REJ_P2P_REQUIRED:
		return "peer-to-peer required";
	case CMKIT_MPA_REJ_NO_RTR:
		return "no common RTR type";
	case CMKIT_MPA_REJ_IRD:
		return "IRD short of the initiator's ORD";
	case CMKIT_MPA_REJ_PDATA:
		return "private data longer than the upper layer takes";
	default:
		return "unknown reason";
	}
}

/**
 * cmkit_mpa_strerror - a short description of a CMKIT_MPA_E_* code
 * @err: the code
 *
 * Return: a static string.
 */
const char *cmkit_mpa_strerror(int err)
{
	switch (err) {
	case CMKIT_MPA_E_NOSPACE:
		return "buffer too small";
	case CMKIT_MPA_E_PDATA:
		return "private data too long";
	case CMKIT_MPA_E_KEY:
		return "bad key";
	case CMKIT_MPA_E_REV:
		return "unsupported revision";
	case CMKIT_MPA_E_OVERSIZE:
		return "private data length above 512";
	case CMKIT_MPA_E_MARKERS:
		return "markers requested";
	case CMKIT_MPA_E_V2_SHORT:
		return "enhanced frame without IRD/ORD";
	case CMKIT_MPA_E_IRD:
		return "IRD short of the peer's ORD";
	case CMKIT_MPA_E_ARG:
		return "bad argument";
	case CMKIT_MPA_E_REJECTED:
		return "connection rejected by the peer";
	case CMKIT_MPA_E_REPLY_REV:
		return "reply revision or format does not match the request";
	case CMKIT_MPA_E_CRC:
		return "reply without the CRC asked for";
	case CMKIT_MPA_E_P2P:
		return "peer-to-peer mode not as required";
	case CMKIT_MPA_E_RTR:
		return "reply chose an RTR type not offered";
	default:
		return "unknown error";
	}
}
