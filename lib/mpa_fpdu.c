// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * MPA FPDUs (RFC 5044, section 4) carrying one DDP segment with its RDMAP
 * header, and the RTR messages of RFC 6581: the bodies of
 * include/cmkit/mpa_fpdu.h.  No kernel or libc header: built into cmkit.ko by
 * kbuild and, as C, into the host tests, the fuzz targets and cmkit-peer.
 */
#include "cmkit/mpa_fpdu.h"

/**
 * cmkit_rdmap_is_tagged - whether an RDMAP message travels in tagged buffers
 * @opcode: CMKIT_RDMAP_* opcode
 *
 * Return: 1 for RDMA Write and RDMA Read Response (DDP's tagged model),
 * else 0.
 */
int cmkit_rdmap_is_tagged(cmkit_u8 opcode)
{
	return opcode == CMKIT_RDMAP_WRITE || opcode == CMKIT_RDMAP_READ_RESP;
}

/**
 * cmkit_iwarp_hdr_len - DDP and RDMAP header bytes of a segment
 * @opcode: CMKIT_RDMAP_* opcode
 *
 * Return: the bytes after ULPDU_Length: the tagged or untagged DDP header,
 * plus an RDMA Read Request's RDMAP header.
 */
cmkit_size cmkit_iwarp_hdr_len(cmkit_u8 opcode)
{
	if (cmkit_rdmap_is_tagged(opcode))
		return CMKIT_DDP_TAGGED_HDR_LEN;
	if (opcode == CMKIT_RDMAP_READ_REQ)
		return CMKIT_DDP_UNTAGGED_HDR_LEN + CMKIT_RDMAP_RREQ_HDR_LEN;
	return CMKIT_DDP_UNTAGGED_HDR_LEN;
}

/**
 * cmkit_fpdu_total_len - the length of a whole FPDU
 * @ulpdu_len: its ULPDU_Length
 *
 * Return: ULPDU_Length's 2 bytes and the ULPDU, PAD to 4 bytes, then the CRC.
 */
cmkit_size cmkit_fpdu_total_len(cmkit_size ulpdu_len)
{
	return ((CMKIT_FPDU_LEN_LEN + ulpdu_len + 3) & ~(cmkit_size)3) +
	       CMKIT_FPDU_CRC_LEN;
}

static void cmkit_fpdu_put_le32(cmkit_u8 *p, cmkit_u32 v)
{
	p[0] = (cmkit_u8)(v & 0xff);
	p[1] = (cmkit_u8)((v >> 8) & 0xff);
	p[2] = (cmkit_u8)((v >> 16) & 0xff);
	p[3] = (cmkit_u8)((v >> 24) & 0xff);
}

static cmkit_u32 cmkit_fpdu_get_le32(const cmkit_u8 *p)
{
	return (cmkit_u32)p[0] | ((cmkit_u32)p[1] << 8) | ((cmkit_u32)p[2] << 16) |
	       ((cmkit_u32)p[3] << 24);
}

/* The CRC32c of an FPDU's first @len bytes, as sent (RFC 5044, section 6.5). */
static cmkit_u32 cmkit_fpdu_crc(const cmkit_u8 *buf, cmkit_size len)
{
	return ~cmkit_crc32c(CMKIT_CRC32C_SEED, buf, len);
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
int cmkit_fpdu_build(cmkit_u8 *buf, cmkit_size buflen,
		     const struct cmkit_iwarp_hdr *h, const void *payload,
		     cmkit_size payload_len, int crc)
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
			    crc ? cmkit_fpdu_crc(buf, total - CMKIT_FPDU_CRC_LEN) : 0);
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
int cmkit_fpdu_parse(const cmkit_u8 *buf, cmkit_size len, int crc,
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
	if (crc && out->crc != cmkit_fpdu_crc(buf, total - CMKIT_FPDU_CRC_LEN))
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
int cmkit_rtr_hdr(unsigned int rtr, struct cmkit_iwarp_hdr *h)
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
int cmkit_rtr_build(cmkit_u8 *buf, cmkit_size buflen, unsigned int rtr, int crc)
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
static int cmkit_fpdu_expect(const cmkit_u8 *buf, cmkit_size len, int crc,
			     const struct cmkit_iwarp_hdr *want, int match_stag,
			     struct cmkit_fpdu *out)
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
int cmkit_rtr_check(const cmkit_u8 *buf, cmkit_size len, unsigned int rtr,
		    int crc, struct cmkit_fpdu *out)
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
int cmkit_rtr_build_read_resp(cmkit_u8 *buf, cmkit_size buflen,
			      const struct cmkit_iwarp_hdr *rreq, int crc)
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
int cmkit_rtr_check_read_resp(const cmkit_u8 *buf, cmkit_size len,
			      const struct cmkit_iwarp_hdr *rreq, int crc,
			      struct cmkit_fpdu *out)
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
const char *cmkit_fpdu_strerror(int err)
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
