/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * MPA FPDUs (RFC 5044, section 4) carrying one DDP segment (RFC 5041) with
 * its RDMAP header (RFC 5040), and the ready-to-receive (RTR) messages of
 * RFC 6581's peer-to-peer connection setup, which cmkit sends and checks
 * itself as it has no QP.  No markers: cmkit never negotiates them.
 *
 *  0               1               2               3
 *  +---------------+---------------+---------------+---------------+
 *  |         ULPDU_Length          |T|L| Rsvd  |DV |RV |Rsv|Opcode |
 *  +---------------+---------------+---------------+---------------+
 *  | tagged:   STag (4), Tagged Offset (8)                         |
 *  | untagged: RsvdULP (4), Queue Number (4), MSN (4), MO (4),     |
 *  |           and on queue 1 the RDMA Read Request: Sink STag (4),|
 *  |           Sink TO (8), Read Message Size (4), Source STag (4),|
 *  |           Source TO (8)                                       |
 *  ~ payload                                                       ~
 *  +---------------------------------------------------------------+
 *  | PAD (0-3 bytes: ULPDU_Length, ULPDU and PAD end 4-aligned)    |
 *  +---------------------------------------------------------------+
 *  |                        CRC32c (4 bytes)                       |
 *  +---------------------------------------------------------------+
 *
 * ULPDU_Length counts the DDP segment: its header (from the T bit) and
 * payload, without PAD and CRC.  The CRC (crc32c.h) covers every byte
 * before it, ULPDU_Length and PAD included, and is sent least significant
 * byte first, as siw sends it; without negotiated CRC the field is sent as
 * zero and not checked on receipt.  DDP and RDMAP are both version 1.
 * RDMA Write and Read Response are tagged, every other message untagged:
 * Sends on queue 0, Read Requests on queue 1, Terminates on queue 2.  Each
 * queue's MSN starts at 1.
 *
 * The zero-length RTR messages, as siw builds them (siw_qp_mpa_rts() and
 * siw_qp_prepare_tx()):
 *  - RDMA Write: tagged, last, STag 1, TO 0 ("some HW may treat STag 0
 *    special"); 16 bytes before the CRC;
 *  - RDMA Read Request: queue 1, MSN 1, MO 0, sink STag 0 and TO 0, size 0,
 *    source STag 1 and TO 0; 48 bytes before the CRC.  The responder answers
 *    with a zero-length Read Response to the sink STag and TO;
 *  - Send (siw never sends or takes one): queue 0, MSN 1, MO 0; 20 bytes.
 * Receivers check neither STag nor TO of an RTR: irdma sends its Write with
 * STag 0 and its Read with source STag 0x1234.
 *
 * Nothing here reads or writes past the lengths it is given.
 */
#ifndef CMKIT_MPA_FPDU_H
#define CMKIT_MPA_FPDU_H

#include "types.h"
#include "crc32c.h"
#include "mpa.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CMKIT_FPDU_LEN_LEN		2	/* ULPDU_Length */
#define CMKIT_FPDU_CRC_LEN		4
#define CMKIT_DDP_TAGGED_HDR_LEN	14	/* control to TO */
#define CMKIT_DDP_UNTAGGED_HDR_LEN	18	/* control to MO */
#define CMKIT_RDMAP_RREQ_HDR_LEN	28	/* the Read Request's own fields */
#define CMKIT_FPDU_MAX_ULPDU		0xffff
#define CMKIT_FPDU_MAX_LEN		(CMKIT_FPDU_LEN_LEN + CMKIT_FPDU_MAX_ULPDU + 3 + \
					 CMKIT_FPDU_CRC_LEN)

/* Byte 2 of the FPDU: DDP control. */
#define CMKIT_DDP_F_TAGGED		0x80
#define CMKIT_DDP_F_LAST		0x40
#define CMKIT_DDP_DV_MASK		0x03
#define CMKIT_DDP_VERSION		1
/* Byte 3: RDMAP control. */
#define CMKIT_RDMAP_RV_SHIFT		6
#define CMKIT_RDMAP_OPCODE_MASK		0x0f
#define CMKIT_RDMAP_VERSION		1

#define CMKIT_DDP_QN_SEND		0
#define CMKIT_DDP_QN_READ		1
#define CMKIT_DDP_QN_TERMINATE		2

/* RDMAP opcodes (RFC 5040, section 4.3). */
enum cmkit_rdmap_opcode {
	CMKIT_RDMAP_WRITE = 0,
	CMKIT_RDMAP_READ_REQ = 1,
	CMKIT_RDMAP_READ_RESP = 2,
	CMKIT_RDMAP_SEND = 3,
	CMKIT_RDMAP_SEND_INV = 4,
	CMKIT_RDMAP_SEND_SE = 5,
	CMKIT_RDMAP_SEND_SE_INV = 6,
	CMKIT_RDMAP_TERMINATE = 7,
};

/* Errors of the functions below; all are negative. */
enum cmkit_fpdu_err {
	CMKIT_FPDU_E_NOSPACE = -1,	/* output buffer too small */
	CMKIT_FPDU_E_ARG = -2,		/* bad argument */
	CMKIT_FPDU_E_LEN = -3,		/* ULPDU_Length short of the header */
	CMKIT_FPDU_E_CRC = -4,		/* CRC mismatch */
	CMKIT_FPDU_E_VERSION = -5,	/* DDP or RDMAP version not 1 */
	CMKIT_FPDU_E_HDR = -6,		/* unknown opcode, or T bit against it */
	CMKIT_FPDU_E_RTR_TYPE = -7,	/* not the message expected */
	CMKIT_FPDU_E_RTR_FIELDS = -8,	/* the message expected, wrong fields */
};

/**
 * struct cmkit_iwarp_hdr - the DDP and RDMAP headers of one DDP segment
 * @opcode: enum cmkit_rdmap_opcode
 * @tagged: the T bit
 * @last: the L bit (last segment of the message)
 * @stag: tagged: the STag
 * @to: tagged: the tagged offset
 * @rsvd_ulp: untagged: the 32-bit RsvdULP word (a Send with Invalidate's
 *	STag to invalidate)
 * @qn: untagged: queue number
 * @msn: untagged: message sequence number
 * @mo: untagged: message offset
 * @sink_stag: Read Request: STag of the requester's buffer
 * @sink_to: Read Request: its tagged offset
 * @read_size: Read Request: bytes to read
 * @src_stag: Read Request: STag of the buffer to read
 * @src_to: Read Request: its tagged offset
 */
struct cmkit_iwarp_hdr {
	cmkit_u8 opcode;
	cmkit_u8 tagged;
	cmkit_u8 last;
	cmkit_u32 stag;
	cmkit_u64 to;
	cmkit_u32 rsvd_ulp;
	cmkit_u32 qn;
	cmkit_u32 msn;
	cmkit_u32 mo;
	cmkit_u32 sink_stag;
	cmkit_u64 sink_to;
	cmkit_u32 read_size;
	cmkit_u32 src_stag;
	cmkit_u64 src_to;
};

/**
 * struct cmkit_fpdu - a decoded FPDU
 * @hdr: its DDP and RDMAP headers
 * @ulpdu_len: ULPDU_Length
 * @payload: the payload, inside the parsed buffer
 * @payload_len: its length
 * @crc: the CRC field as received
 * @len: bytes of the buffer the FPDU takes, PAD and CRC included
 * @need: when a parser returns 0, how many more bytes it needs at least;
 *	reading no more than that never reads past the FPDU
 */
struct cmkit_fpdu {
	struct cmkit_iwarp_hdr hdr;
	cmkit_u16 ulpdu_len;
	const cmkit_u8 *payload;
	cmkit_u16 payload_len;
	cmkit_u32 crc;
	cmkit_size len;
	cmkit_size need;
};

static inline int cmkit_rdmap_is_tagged(cmkit_u8 opcode)
{
	return opcode == CMKIT_RDMAP_WRITE || opcode == CMKIT_RDMAP_READ_RESP;
}

/* DDP and RDMAP header bytes of a segment, after ULPDU_Length. */
static inline cmkit_size cmkit_iwarp_hdr_len(cmkit_u8 opcode)
{
	if (cmkit_rdmap_is_tagged(opcode))
		return CMKIT_DDP_TAGGED_HDR_LEN;
	if (opcode == CMKIT_RDMAP_READ_REQ)
		return CMKIT_DDP_UNTAGGED_HDR_LEN + CMKIT_RDMAP_RREQ_HDR_LEN;
	return CMKIT_DDP_UNTAGGED_HDR_LEN;
}

/* The whole FPDU for a ULPDU_Length: PAD to 4 bytes, then the CRC. */
static inline cmkit_size cmkit_fpdu_total_len(cmkit_size ulpdu_len)
{
	return ((CMKIT_FPDU_LEN_LEN + ulpdu_len + 3) & ~(cmkit_size)3) +
	       CMKIT_FPDU_CRC_LEN;
}

static inline void cmkit_fpdu_put_le32(cmkit_u8 *p, cmkit_u32 v)
{
	p[0] = (cmkit_u8)(v & 0xff);
	p[1] = (cmkit_u8)((v >> 8) & 0xff);
	p[2] = (cmkit_u8)((v >> 16) & 0xff);
	p[3] = (cmkit_u8)((v >> 24) & 0xff);
}

static inline cmkit_u32 cmkit_fpdu_get_le32(const cmkit_u8 *p)
{
	return (cmkit_u32)p[0] | ((cmkit_u32)p[1] << 8) | ((cmkit_u32)p[2] << 16) |
	       ((cmkit_u32)p[3] << 24);
}

/**
 * cmkit_fpdu_build - write an FPDU around one DDP segment
 * @buf: output buffer
 * @buflen: its size
 * @h: the headers; @h->tagged must agree with @h->opcode, and the fields
 *	of the other kind (and of a Read Request, for other opcodes) are
 *	not written
 * @payload: the payload, or NULL
 * @payload_len: its length
 * @crc: CRC negotiated: write the CRC32c, else zero
 *
 * Reserved bits are written as zero, PAD bytes too.
 *
 * Return: the FPDU's length, or a negative CMKIT_FPDU_E_* code.
 */
static inline int cmkit_fpdu_build(cmkit_u8 *buf, cmkit_size buflen,
				   const struct cmkit_iwarp_hdr *h,
				   const void *payload, cmkit_size payload_len,
				   int crc)
{
	cmkit_size hlen, ulpdu, total, i;
	cmkit_u8 *p;

	if (!buf || !h || (payload_len && !payload) ||
	    h->opcode > CMKIT_RDMAP_TERMINATE ||
	    !h->tagged != !cmkit_rdmap_is_tagged(h->opcode))
		return CMKIT_FPDU_E_ARG;
	hlen = cmkit_iwarp_hdr_len(h->opcode);
	if (payload_len > CMKIT_FPDU_MAX_ULPDU - hlen)
		return CMKIT_FPDU_E_LEN;
	ulpdu = hlen + payload_len;
	total = cmkit_fpdu_total_len(ulpdu);
	if (buflen < total)
		return CMKIT_FPDU_E_NOSPACE;
	cmkit_put_be16(buf, (cmkit_u16)ulpdu);
	p = buf + CMKIT_FPDU_LEN_LEN;
	p[0] = (cmkit_u8)((h->tagged ? CMKIT_DDP_F_TAGGED : 0) |
			  (h->last ? CMKIT_DDP_F_LAST : 0) | CMKIT_DDP_VERSION);
	p[1] = (cmkit_u8)((CMKIT_RDMAP_VERSION << CMKIT_RDMAP_RV_SHIFT) | h->opcode);
	if (h->tagged) {
		cmkit_put_be32(p + 2, h->stag);
		cmkit_put_be64(p + 6, h->to);
	} else {
		cmkit_put_be32(p + 2, h->rsvd_ulp);
		cmkit_put_be32(p + 6, h->qn);
		cmkit_put_be32(p + 10, h->msn);
		cmkit_put_be32(p + 14, h->mo);
		if (h->opcode == CMKIT_RDMAP_READ_REQ) {
			cmkit_put_be32(p + 18, h->sink_stag);
			cmkit_put_be64(p + 22, h->sink_to);
			cmkit_put_be32(p + 30, h->read_size);
			cmkit_put_be32(p + 34, h->src_stag);
			cmkit_put_be64(p + 38, h->src_to);
		}
	}
	if (payload_len)
		cmkit_copy(p + hlen, payload, payload_len);
	for (i = CMKIT_FPDU_LEN_LEN + ulpdu; i < total - CMKIT_FPDU_CRC_LEN; i++)
		buf[i] = 0;
	cmkit_fpdu_put_le32(buf + total - CMKIT_FPDU_CRC_LEN,
			    crc ? cmkit_crc32c(buf, total - CMKIT_FPDU_CRC_LEN) : 0);
	return (int)total;
}

/**
 * cmkit_fpdu_parse - decode the FPDU at the start of the bytes received
 * @buf: the bytes received so far, from the FPDU's first byte
 * @len: how many; nothing past them is read
 * @crc: CRC negotiated: check it
 * @out: the decoded FPDU when the return value is positive; @out->need
 *	when it is 0
 *
 * Called again after each read with everything received so far: the first
 * two bytes say how long the FPDU is.  The CRC is checked first, then the
 * versions, the opcode against the T bit, and ULPDU_Length against the
 * opcode's header.  Reserved bits and PAD are ignored.
 *
 * Return: the FPDU's length (> 0) when @len holds all of it; 0 when more
 * bytes are needed; a negative CMKIT_FPDU_E_* code when the bytes can never
 * become a valid FPDU.
 */
static inline int cmkit_fpdu_parse(const cmkit_u8 *buf, cmkit_size len, int crc,
				   struct cmkit_fpdu *out)
{
	struct cmkit_iwarp_hdr *h;
	cmkit_size total, hlen;
	const cmkit_u8 *p;

	if (!out || (len && !buf))
		return CMKIT_FPDU_E_ARG;
	cmkit_zero(out, sizeof(*out));
	if (len < CMKIT_FPDU_LEN_LEN) {
		out->need = CMKIT_FPDU_LEN_LEN - len;
		return 0;
	}
	out->ulpdu_len = cmkit_get_be16(buf);
	total = cmkit_fpdu_total_len(out->ulpdu_len);
	if (len < total) {
		out->need = total - len;
		return 0;
	}
	out->crc = cmkit_fpdu_get_le32(buf + total - CMKIT_FPDU_CRC_LEN);
	if (crc && out->crc != cmkit_crc32c(buf, total - CMKIT_FPDU_CRC_LEN))
		return CMKIT_FPDU_E_CRC;
	if (out->ulpdu_len < CMKIT_DDP_TAGGED_HDR_LEN)
		return CMKIT_FPDU_E_LEN;
	p = buf + CMKIT_FPDU_LEN_LEN;
	h = &out->hdr;
	h->tagged = (p[0] & CMKIT_DDP_F_TAGGED) ? 1 : 0;
	h->last = (p[0] & CMKIT_DDP_F_LAST) ? 1 : 0;
	h->opcode = p[1] & CMKIT_RDMAP_OPCODE_MASK;
	if ((p[0] & CMKIT_DDP_DV_MASK) != CMKIT_DDP_VERSION ||
	    (p[1] >> CMKIT_RDMAP_RV_SHIFT) != CMKIT_RDMAP_VERSION)
		return CMKIT_FPDU_E_VERSION;
	if (h->opcode > CMKIT_RDMAP_TERMINATE ||
	    !h->tagged != !cmkit_rdmap_is_tagged(h->opcode))
		return CMKIT_FPDU_E_HDR;
	hlen = cmkit_iwarp_hdr_len(h->opcode);
	if (out->ulpdu_len < hlen)
		return CMKIT_FPDU_E_LEN;
	if (h->tagged) {
		h->stag = cmkit_get_be32(p + 2);
		h->to = cmkit_get_be64(p + 6);
	} else {
		h->rsvd_ulp = cmkit_get_be32(p + 2);
		h->qn = cmkit_get_be32(p + 6);
		h->msn = cmkit_get_be32(p + 10);
		h->mo = cmkit_get_be32(p + 14);
		if (h->opcode == CMKIT_RDMAP_READ_REQ) {
			h->sink_stag = cmkit_get_be32(p + 18);
			h->sink_to = cmkit_get_be64(p + 22);
			h->read_size = cmkit_get_be32(p + 30);
			h->src_stag = cmkit_get_be32(p + 34);
			h->src_to = cmkit_get_be64(p + 38);
		}
	}
	out->payload = p + hlen;
	out->payload_len = (cmkit_u16)(out->ulpdu_len - hlen);
	out->len = total;
	return (int)total;
}

/**
 * cmkit_rtr_hdr - the headers of a zero-length RTR message, as siw sends it
 * @rtr: one CMKIT_MPA_RTR_* type
 * @h: the headers
 *
 * Return: 0, or CMKIT_FPDU_E_ARG unless @rtr is exactly one type.
 */
static inline int cmkit_rtr_hdr(unsigned int rtr, struct cmkit_iwarp_hdr *h)
{
	if (!h)
		return CMKIT_FPDU_E_ARG;
	cmkit_zero(h, sizeof(*h));
	h->last = 1;
	switch (rtr) {
	case CMKIT_MPA_RTR_WRITE:
		h->opcode = CMKIT_RDMAP_WRITE;
		h->tagged = 1;
		h->stag = 1;
		return 0;
	case CMKIT_MPA_RTR_READ:
		h->opcode = CMKIT_RDMAP_READ_REQ;
		h->qn = CMKIT_DDP_QN_READ;
		h->msn = 1;
		h->src_stag = 1;
		return 0;
	case CMKIT_MPA_RTR_SEND:
		h->opcode = CMKIT_RDMAP_SEND;
		h->qn = CMKIT_DDP_QN_SEND;
		h->msn = 1;
		return 0;
	default:
		return CMKIT_FPDU_E_ARG;
	}
}

/**
 * cmkit_rtr_build - write the RTR message an initiator sends after the reply
 * @buf: output buffer
 * @buflen: its size: 20, 24 or 52 bytes for Write, Send and Read
 * @rtr: the type the reply chose (cmkit_mpa_initiate()'s @out->rtr)
 * @crc: CRC negotiated
 *
 * Return: the FPDU's length, or a negative CMKIT_FPDU_E_* code.
 */
static inline int cmkit_rtr_build(cmkit_u8 *buf, cmkit_size buflen,
				  unsigned int rtr, int crc)
{
	struct cmkit_iwarp_hdr h;
	int rc = cmkit_rtr_hdr(rtr, &h);

	if (rc)
		return rc;
	return cmkit_fpdu_build(buf, buflen, &h, (const void *)0, 0, crc);
}

/*
 * The checker behind cmkit_rtr_check() and cmkit_rtr_check_read_resp():
 * the FPDU at @buf must be a zero-length, last segment of @want->opcode;
 * untagged, on @want's queue with MSN 1 and MO 0; a Read Request of size
 * 0; with @match_stag, tagged to @want's STag and TO.
 */
static inline int cmkit_fpdu_expect(const cmkit_u8 *buf, cmkit_size len, int crc,
				    const struct cmkit_iwarp_hdr *want,
				    int match_stag, struct cmkit_fpdu *out)
{
	cmkit_size ulpdu = cmkit_iwarp_hdr_len(want->opcode);
	const struct cmkit_iwarp_hdr *h = &out->hdr;
	int rc;

	if (len && !buf)
		return CMKIT_FPDU_E_ARG;
	cmkit_zero(out, sizeof(*out));
	if (len < CMKIT_FPDU_LEN_LEN + 2) {
		out->need = cmkit_fpdu_total_len(ulpdu) - len;
		return 0;
	}
	/* The length and control bytes settle what this can become. */
	out->ulpdu_len = cmkit_get_be16(buf);
	out->hdr.tagged = (buf[2] & CMKIT_DDP_F_TAGGED) ? 1 : 0;
	out->hdr.last = (buf[2] & CMKIT_DDP_F_LAST) ? 1 : 0;
	out->hdr.opcode = buf[3] & CMKIT_RDMAP_OPCODE_MASK;
	if (out->hdr.opcode != want->opcode || out->hdr.tagged != want->tagged)
		return CMKIT_FPDU_E_RTR_TYPE;
	if (out->ulpdu_len != ulpdu)
		return CMKIT_FPDU_E_RTR_FIELDS;
	rc = cmkit_fpdu_parse(buf, len, crc, out);
	if (rc <= 0)
		return rc;
	if (!h->last)
		return CMKIT_FPDU_E_RTR_FIELDS;
	if (!h->tagged && (h->qn != want->qn || h->msn != 1 || h->mo != 0))
		return CMKIT_FPDU_E_RTR_FIELDS;
	if (h->opcode == CMKIT_RDMAP_READ_REQ && h->read_size != 0)
		return CMKIT_FPDU_E_RTR_FIELDS;
	if (match_stag && (h->stag != want->stag || h->to != want->to))
		return CMKIT_FPDU_E_RTR_FIELDS;
	return rc;
}

/**
 * cmkit_rtr_check - check the first FPDU a P2P responder receives
 * @buf: the bytes received after the MPA reply, from the first
 * @len: how many; nothing past them is read
 * @rtr: the type the reply chose (cmkit_mpa_respond()'s @out->rtr)
 * @crc: CRC negotiated: check it
 * @out: the decoded FPDU when the return value is positive; @out->need
 *	when it is 0
 *
 * The FPDU must be exactly the zero-length RTR of type @rtr: the opcode
 * and T bit of the type, the L bit, a ULPDU_Length of the bare header;
 * untagged, queue 0 (Send) or 1 (Read), MSN 1 and MO 0; a Read of size 0.
 * STag and TO are not checked (siw sends STag 1, irdma 0).  Bytes after the
 * FPDU are not looked at.  A header that can never become the agreed RTR
 * is refused as soon as its first four bytes are in, before a CRC could
 * be checked; until then @out->need counts up to the whole agreed RTR.
 *
 * Return: the RTR's length (> 0, the bytes it consumed) when it is all in
 * and right; 0 when more bytes are needed; CMKIT_FPDU_E_RTR_TYPE for
 * another message, CMKIT_FPDU_E_RTR_FIELDS for the agreed one with wrong
 * fields, or another negative CMKIT_FPDU_E_* code.
 */
static inline int cmkit_rtr_check(const cmkit_u8 *buf, cmkit_size len,
				  unsigned int rtr, int crc, struct cmkit_fpdu *out)
{
	struct cmkit_iwarp_hdr want;

	if (!out || cmkit_rtr_hdr(rtr, &want))
		return CMKIT_FPDU_E_ARG;
	return cmkit_fpdu_expect(buf, len, crc, &want, 0, out);
}

/**
 * cmkit_rtr_build_read_resp - answer a zero-length Read Request RTR
 * @buf: output buffer
 * @buflen: its size (20 bytes)
 * @rreq: the Read Request, from cmkit_rtr_check()
 * @crc: CRC negotiated
 *
 * A responder that took a Read RTR owes the initiator its Read Response: a
 * zero-length, last, tagged segment to the request's sink STag and TO
 * (siw's initiator checks both).
 *
 * Return: the FPDU's length, or a negative CMKIT_FPDU_E_* code.
 */
static inline int cmkit_rtr_build_read_resp(cmkit_u8 *buf, cmkit_size buflen,
					    const struct cmkit_iwarp_hdr *rreq,
					    int crc)
{
	struct cmkit_iwarp_hdr h;

	if (!rreq || rreq->opcode != CMKIT_RDMAP_READ_REQ || rreq->read_size)
		return CMKIT_FPDU_E_ARG;
	cmkit_zero(&h, sizeof(h));
	h.opcode = CMKIT_RDMAP_READ_RESP;
	h.tagged = 1;
	h.last = 1;
	h.stag = rreq->sink_stag;
	h.to = rreq->sink_to;
	return cmkit_fpdu_build(buf, buflen, &h, (const void *)0, 0, crc);
}

/**
 * cmkit_rtr_check_read_resp - check the Read Response to our Read RTR
 * @buf: the bytes received after the MPA reply, from the first
 * @len: how many; nothing past them is read
 * @rreq: the Read Request we sent (cmkit_rtr_hdr(CMKIT_MPA_RTR_READ, ...))
 * @crc: CRC negotiated: check it
 * @out: as for cmkit_rtr_check()
 *
 * The FPDU must be a zero-length, last Read Response to @rreq's sink STag
 * and TO.
 *
 * Return: as cmkit_rtr_check().
 */
static inline int cmkit_rtr_check_read_resp(const cmkit_u8 *buf, cmkit_size len,
					    const struct cmkit_iwarp_hdr *rreq,
					    int crc, struct cmkit_fpdu *out)
{
	struct cmkit_iwarp_hdr want;

	if (!out || !rreq || rreq->opcode != CMKIT_RDMAP_READ_REQ)
		return CMKIT_FPDU_E_ARG;
	cmkit_zero(&want, sizeof(want));
	want.opcode = CMKIT_RDMAP_READ_RESP;
	want.tagged = 1;
	want.stag = rreq->sink_stag;
	want.to = rreq->sink_to;
	return cmkit_fpdu_expect(buf, len, crc, &want, 1, out);
}

/**
 * cmkit_fpdu_strerror - a short description of a CMKIT_FPDU_E_* code
 * @err: the code
 *
 * Return: a static string.
 */
static inline const char *cmkit_fpdu_strerror(int err)
{
	switch (err) {
	case CMKIT_FPDU_E_NOSPACE:
		return "buffer too small";
	case CMKIT_FPDU_E_ARG:
		return "bad argument";
	case CMKIT_FPDU_E_LEN:
		return "ULPDU length short of the header";
	case CMKIT_FPDU_E_CRC:
		return "CRC mismatch";
	case CMKIT_FPDU_E_VERSION:
		return "DDP or RDMAP version not 1";
	case CMKIT_FPDU_E_HDR:
		return "unknown opcode or wrong T bit";
	case CMKIT_FPDU_E_RTR_TYPE:
		return "not the RTR message agreed";
	case CMKIT_FPDU_E_RTR_FIELDS:
		return "RTR message with wrong fields";
	default:
		return "unknown error";
	}
}

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_MPA_FPDU_H */
