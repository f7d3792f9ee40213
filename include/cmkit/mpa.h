/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * MPA connection setup frames (RFC 5044, section 7.1) with the enhanced
 * connection setup of RFC 6581 (MPA revision 2): the request an iWARP
 * initiator sends on a fresh TCP connection, the reply (accept or reject) of
 * the responder, and the IRD/ORD negotiation the two carry.
 *
 *  0               1               2               3
 *  +---------------+---------------+---------------+---------------+
 *  |                                                               |
 *  +         Key: "MPA ID Req Frame" or "MPA ID Rep Frame"         +
 *  |                          (16 bytes)                           |
 *  +-+-+-+-+-------+---------------+---------------+---------------+
 *  |M|C|R|E| Res   |   Revision    |           PD_Length           |
 *  +-+-+-+-+-------+---------------+---------------+---------------+
 *  |A|B|           IRD             |C|D|           ORD             |  (E)
 *  +-+-+-----------+---------------+-+-+---------------------------+
 *  |        Private data of the upper layer (PD_Length bytes,      |
 *  ~        less the 4 bytes above when E is set), at most 512    ~
 *  +---------------------------------------------------------------+
 *
 * M: markers, C: CRC, R: reject (replies only), E: enhanced connection
 * setup (revision 2).  A: peer-to-peer connection model, B: a zero-length
 * Send is acceptable as ready-to-receive (RTR) message; C and D: a
 * zero-length RDMA Write or RDMA Read is.  IRD and ORD are 14-bit counts;
 * 0x3fff means "not specified".
 *
 * Nothing here reads or writes past the lengths it is given.
 */
#ifndef CMKIT_MPA_H
#define CMKIT_MPA_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMKIT_MPA_KEY_LEN		16
#define CMKIT_MPA_HDR_LEN		20
#define CMKIT_MPA_IRD_ORD_LEN		4
#define CMKIT_MPA_MAX_PD_LEN		512
#define CMKIT_MPA_MAX_FRAME		(CMKIT_MPA_HDR_LEN + CMKIT_MPA_MAX_PD_LEN)

#define CMKIT_MPA_REV1			1
#define CMKIT_MPA_REV2			2

/* Byte 16 of the frame. */
#define CMKIT_MPA_FLAG_MARKERS		0x80
#define CMKIT_MPA_FLAG_CRC		0x40
#define CMKIT_MPA_FLAG_REJECT		0x20
#define CMKIT_MPA_FLAG_ENHANCED		0x10

/* High bits of the IRD and ORD words of an enhanced frame. */
#define CMKIT_MPA_V2_PEER_TO_PEER	0x8000	/* A, in the IRD word */
#define CMKIT_MPA_V2_SEND_RTR		0x4000	/* B, in the IRD word */
#define CMKIT_MPA_V2_WRITE_RTR		0x8000	/* C, in the ORD word */
#define CMKIT_MPA_V2_READ_RTR		0x4000	/* D, in the ORD word */
#define CMKIT_MPA_V2_IRD_ORD_MASK	0x3fff
#define CMKIT_MPA_V2_NO_IRD_ORD		0x3fff

/* Errors of the functions below; all are negative. */
enum cmkit_mpa_err {
	CMKIT_MPA_E_NOSPACE = -1,	/* output buffer too small */
	CMKIT_MPA_E_PDATA = -2,		/* private data longer than allowed */
	CMKIT_MPA_E_KEY = -3,		/* not the key expected */
	CMKIT_MPA_E_REV = -4,		/* revision other than 1 or 2 */
	CMKIT_MPA_E_OVERSIZE = -5,	/* PD_Length above 512 */
	CMKIT_MPA_E_MARKERS = -6,	/* markers requested (unsupported) */
	CMKIT_MPA_E_V2_SHORT = -7,	/* enhanced, but no room for IRD/ORD */
	CMKIT_MPA_E_IRD = -8,		/* our IRD is short of the peer's ORD */
	CMKIT_MPA_E_ARG = -9,		/* bad argument */
};

/* Which key a frame carries. */
enum cmkit_mpa_kind {
	CMKIT_MPA_REQUEST,
	CMKIT_MPA_REPLY,
};

#define CMKIT_MPA_KEY_REQ		"MPA ID Req Frame"
#define CMKIT_MPA_KEY_REP		"MPA ID Rep Frame"

/**
 * struct cmkit_mpa_frame - a decoded MPA request or reply
 * @kind: request or reply
 * @flags: byte 16 (CMKIT_MPA_FLAG_*)
 * @rev: revision, 1 or 2
 * @enhanced: revision 2 with the E flag: @ird and @ord are valid
 * @ird: the sender's IRD, without the control bits
 * @ord: the sender's ORD, without the control bits
 * @ird_ctrl: the A and B bits of the IRD word
 * @ord_ctrl: the C and D bits of the ORD word
 * @pdata: the upper layer's private data, inside the parsed buffer
 * @pdata_len: its length
 * @frame_len: bytes of the buffer the frame takes
 */
struct cmkit_mpa_frame {
	enum cmkit_mpa_kind kind;
	cmkit_u8 flags;
	cmkit_u8 rev;
	int enhanced;
	cmkit_u16 ird;
	cmkit_u16 ord;
	cmkit_u16 ird_ctrl;
	cmkit_u16 ord_ctrl;
	const cmkit_u8 *pdata;
	cmkit_u16 pdata_len;
	cmkit_size frame_len;
};

static inline int cmkit_mpa_put_hdr(cmkit_u8 *buf, enum cmkit_mpa_kind kind,
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
 * irdma_build_mpa_v1 - write a revision 1 request or reply
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
static inline int irdma_build_mpa_v1(cmkit_u8 *buf, cmkit_size buflen,
				     enum cmkit_mpa_kind kind, int reject,
				     const void *pdata, cmkit_u16 pdata_len)
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
 * irdma_build_mpa_v2 - write a revision 2 enhanced request or reply
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
static inline int irdma_build_mpa_v2(cmkit_u8 *buf, cmkit_size buflen,
				     enum cmkit_mpa_kind kind, int reject,
				     cmkit_u16 ird, cmkit_u16 ord,
				     cmkit_u16 ird_ctrl, cmkit_u16 ord_ctrl,
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

/**
 * irdma_parse_mpa - decode a request or reply from what has been received
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
static inline int irdma_parse_mpa(const cmkit_u8 *buf, cmkit_size len,
				  enum cmkit_mpa_kind kind,
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
	if (buf[17] != CMKIT_MPA_REV1 && buf[17] != CMKIT_MPA_REV2)
		return CMKIT_MPA_E_REV;
	pd_len = cmkit_get_be16(buf + 18);
	if (pd_len > CMKIT_MPA_MAX_PD_LEN)
		return CMKIT_MPA_E_OVERSIZE;
	if (buf[16] & CMKIT_MPA_FLAG_MARKERS)
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
 * irdma_negotiate_mpa_v2_ird_ord - fit our IRD/ORD to the peer's
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
static inline int irdma_negotiate_mpa_v2_ird_ord(int initiator, cmkit_u16 *ird,
						 cmkit_u16 *ord, cmkit_u16 peer_ird,
						 cmkit_u16 peer_ord)
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
 * cmkit_mpa_strerror - a short description of a CMKIT_MPA_E_* code
 * @err: the code
 *
 * Return: a static string.
 */
static inline const char *cmkit_mpa_strerror(int err)
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
	default:
		return "unknown error";
	}
}

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_MPA_H */
