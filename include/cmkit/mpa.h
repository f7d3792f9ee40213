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
 * After the frame codec: the RFC 6581 decisions of each side over parsed
 * frames (cmkit_mpa_respond(), cmkit_mpa_initiate(), cmkit_mpa_fallback())
 * and the reject frames with a reason that a refusal sends.  The RTR
 * messages themselves are FPDUs: see mpa_fpdu.h.
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
	CMKIT_MPA_E_REJECTED = -10,	/* the reply rejects the connection */
	CMKIT_MPA_E_REPLY_REV = -11,	/* reply's revision or format not the request's */
	CMKIT_MPA_E_CRC = -12,		/* reply without the CRC that was asked for */
	CMKIT_MPA_E_P2P = -13,		/* P2P required and refused, or granted unasked */
	CMKIT_MPA_E_RTR = -14,		/* reply's RTR type not one of those offered */
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

int cmkit_mpa_build_v1(cmkit_u8 *buf, cmkit_size buflen,
		       enum cmkit_mpa_kind kind, int reject, const void *pdata,
		       cmkit_u16 pdata_len);

int cmkit_mpa_build_v2(cmkit_u8 *buf, cmkit_size buflen,
		       enum cmkit_mpa_kind kind, int reject, cmkit_u16 ird,
		       cmkit_u16 ord, cmkit_u16 ird_ctrl, cmkit_u16 ord_ctrl,
		       const void *pdata, cmkit_u16 pdata_len);

int cmkit_mpa_parse_strict(const cmkit_u8 *buf, cmkit_size len,
			   enum cmkit_mpa_kind kind,
			   struct cmkit_mpa_frame *out);

int cmkit_mpa_parse(const cmkit_u8 *buf, cmkit_size len,
		    enum cmkit_mpa_kind kind, struct cmkit_mpa_frame *out);

int cmkit_mpa_negotiate_ird_ord(int initiator, cmkit_u16 *ird, cmkit_u16 *ord,
				cmkit_u16 peer_ird, cmkit_u16 peer_ord);

/*
 * Peer-to-peer connection setup (RFC 6581).  iWARP lets the initiator send
 * first; in the peer-to-peer (P2P) model the responder may not send until
 * it has received the initiator's ready-to-receive (RTR) message, a
 * zero-length Send, RDMA Write or RDMA Read Request (mpa_fpdu.h builds and
 * checks them).  The initiator offers the RTR types it can send in its
 * revision 2 request; an accepting responder picks exactly one of them.
 *
 * The deciders below are pure logic over parsed frames (cmkit_mpa_parse()).
 * Every refusal by the responder is a reject frame (R set) whose private
 * data names the reason, never a reset:
 *
 *  0               1               2               3
 *  +---------------+---------------+---------------+---------------+
 *  |      'C'      |      'M'      |      'K'      |      'R'      |
 *  +---------------+---------------+---------------+---------------+
 *  |      Reason (CMKIT_MPA_REJ_*)  |
 *  +---------------+---------------+
 *
 * siw defines no reject private data of its own: a reject it decides on
 * (markers, or CRC against its compile-time policy) carries none, and one
 * its consumer decides on carries the consumer's.  Neither is a "CMKR" tag,
 * so both decode as CMKIT_MPA_REJ_NONE.
 */

/* RTR message types, as a set; on the wire, bits B, C and D. */
#define CMKIT_MPA_RTR_SEND		0x01	/* zero-length Send */
#define CMKIT_MPA_RTR_WRITE		0x02	/* zero-length RDMA Write */
#define CMKIT_MPA_RTR_READ		0x04	/* zero-length RDMA Read Request */
#define CMKIT_MPA_RTR_ALL		0x07

/**
 * enum cmkit_mpa_p2p - a side's stance on the peer-to-peer model
 * @CMKIT_MPA_P2P_OFF: never asks for it; a responder grants it to nobody
 * @CMKIT_MPA_P2P_ON: asks for it (initiator) or grants it when asked
 *	(responder), but connects without it too
 * @CMKIT_MPA_P2P_REQUIRED: connects only with it (needs revision 2)
 */
enum cmkit_mpa_p2p {
	CMKIT_MPA_P2P_OFF,
	CMKIT_MPA_P2P_ON,
	CMKIT_MPA_P2P_REQUIRED,
};

/**
 * enum cmkit_mpa_reject_reason - why a responder refused, in its reject
 * @CMKIT_MPA_REJ_NONE: no cmkit reason (a consumer's reject, or another
 *	stack's): never sent as a reason, only decoded
 * @CMKIT_MPA_REJ_REVISION: the request's revision is not one we speak;
 *	the reject carries our highest revision
 * @CMKIT_MPA_REJ_MARKERS: the request asks for markers
 * @CMKIT_MPA_REJ_P2P_REQUIRED: we require P2P; the request does not offer it
 * @CMKIT_MPA_REJ_NO_RTR: P2P asked, but no RTR type both sides accept
 * @CMKIT_MPA_REJ_IRD: our IRD is short of the initiator's ORD (strict IRD)
 * @CMKIT_MPA_REJ_PDATA: the request's private data is longer than our upper
 *	layer takes (a valid frame: RFC 5044 allows 512 bytes); the caller
 *	decides this one, cmkit_mpa_respond() never does
 */
enum cmkit_mpa_reject_reason {
	CMKIT_MPA_REJ_NONE = 0,
	CMKIT_MPA_REJ_REVISION = 1,
	CMKIT_MPA_REJ_MARKERS = 2,
	CMKIT_MPA_REJ_P2P_REQUIRED = 3,
	CMKIT_MPA_REJ_NO_RTR = 4,
	CMKIT_MPA_REJ_IRD = 5,
	CMKIT_MPA_REJ_PDATA = 6,
};

#define CMKIT_MPA_REJ_MAX		CMKIT_MPA_REJ_PDATA
#define CMKIT_MPA_REJ_TAG		"CMKR"
#define CMKIT_MPA_REJ_TAG_LEN		4
#define CMKIT_MPA_REJ_PD_LEN		6

/**
 * struct cmkit_mpa_offer - what one side of an MPA exchange offers
 * @rev: the highest revision spoken, 1 or 2; an initiator asks for it
 * @crc: ask for CRC (CRC is on when either side asks: RFC 5044)
 * @p2p: enum cmkit_mpa_p2p
 * @rtr: CMKIT_MPA_RTR_* types an initiator can send or a responder takes;
 *	not empty unless @p2p is off
 * @rev1_fallback: initiator: retry in revision 1 after a revision 2
 *	request was refused for its revision (cmkit_mpa_fallback())
 * @ird_strict: responder: refuse an initiator whose ORD exceeds our IRD;
 *	otherwise accept with our IRD and let it lower its ORD (as siw's
 *	relaxed_ird_negotiation and cxgb4's RELAXED_IRD_NEGOTIATION do)
 * @ird: RDMA Reads we can take, 0 (no read resources) to 0x3ffe, or
 *	CMKIT_MPA_V2_NO_IRD_ORD (not specified: no limit)
 * @ord: RDMA Reads we may issue, likewise
 */
struct cmkit_mpa_offer {
	cmkit_u8 rev;
	cmkit_u8 crc;
	cmkit_u8 p2p;
	cmkit_u8 rtr;
	cmkit_u8 rev1_fallback;
	cmkit_u8 ird_strict;
	cmkit_u16 ird;
	cmkit_u16 ord;
};

/**
 * struct cmkit_mpa_result - what a decider decided
 * @accept: 1 when the connection goes on
 * @reason: responder: why it refuses (CMKIT_MPA_REJ_*); initiator: the
 *	reason a reject named, CMKIT_MPA_REJ_NONE if it named none
 * @rev: the revision of the reply (and of the connection)
 * @enhanced: the reply carries IRD/ORD (revision 2, E flag)
 * @crc: FPDUs carry a CRC
 * @p2p: an RTR message follows the reply; for a refusal, whether the
 *	reject advertises P2P
 * @rtr: the RTR type (one CMKIT_MPA_RTR_* bit) when @p2p; for a refusal,
 *	every type the responder takes
 * @ird: responder: the IRD to reply with; initiator: the reads to be
 *	ready for (at most its own IRD)
 * @ord: the reads this side may issue (at most the peer's IRD)
 */
struct cmkit_mpa_result {
	int accept;
	enum cmkit_mpa_reject_reason reason;
	cmkit_u8 rev;
	cmkit_u8 enhanced;
	cmkit_u8 crc;
	cmkit_u8 p2p;
	cmkit_u8 rtr;
	cmkit_u16 ird;
	cmkit_u16 ord;
};

cmkit_u8 cmkit_mpa_rtr_offered(const struct cmkit_mpa_frame *f);

int cmkit_mpa_offer_ok(const struct cmkit_mpa_offer *o);

int cmkit_mpa_reject_reason_put(cmkit_u8 *buf, cmkit_size buflen,
				enum cmkit_mpa_reject_reason reason);

enum cmkit_mpa_reject_reason cmkit_mpa_reject_reason_get(const cmkit_u8 *pdata,
							 cmkit_size len);

int cmkit_mpa_build_request(cmkit_u8 *buf, cmkit_size buflen,
			    const struct cmkit_mpa_offer *me, cmkit_u8 rev,
			    const void *pdata, cmkit_u16 pdata_len);

int cmkit_mpa_respond(const struct cmkit_mpa_offer *me,
		      const struct cmkit_mpa_frame *req,
		      struct cmkit_mpa_result *out);

int cmkit_mpa_build_reply(cmkit_u8 *buf, cmkit_size buflen,
			  const struct cmkit_mpa_result *r, const void *pdata,
			  cmkit_u16 pdata_len);

int cmkit_mpa_initiate(const struct cmkit_mpa_offer *me, cmkit_u8 sent_rev,
		       const struct cmkit_mpa_frame *rep,
		       struct cmkit_mpa_result *out);

int cmkit_mpa_fallback(const struct cmkit_mpa_offer *me, cmkit_u8 sent_rev,
		       const struct cmkit_mpa_frame *rep);

const char *cmkit_mpa_reason_str(enum cmkit_mpa_reject_reason reason);

const char *cmkit_mpa_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_MPA_H */
