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

int cmkit_rdmap_is_tagged(cmkit_u8 opcode);

cmkit_size cmkit_iwarp_hdr_len(cmkit_u8 opcode);

cmkit_size cmkit_fpdu_total_len(cmkit_size ulpdu_len);

int cmkit_fpdu_build(cmkit_u8 *buf, cmkit_size buflen,
		     const struct cmkit_iwarp_hdr *h, const void *payload,
		     cmkit_size payload_len, int crc);

int cmkit_fpdu_parse(const cmkit_u8 *buf, cmkit_size len, int crc,
		     struct cmkit_fpdu *out);

int cmkit_rtr_hdr(unsigned int rtr, struct cmkit_iwarp_hdr *h);

int cmkit_rtr_build(cmkit_u8 *buf, cmkit_size buflen, unsigned int rtr, int crc);

int cmkit_rtr_check(const cmkit_u8 *buf, cmkit_size len, unsigned int rtr,
		    int crc, struct cmkit_fpdu *out);

int cmkit_rtr_build_read_resp(cmkit_u8 *buf, cmkit_size buflen,
			      const struct cmkit_iwarp_hdr *rreq, int crc);

int cmkit_rtr_check_read_resp(const cmkit_u8 *buf, cmkit_size len,
			      const struct cmkit_iwarp_hdr *rreq, int crc,
			      struct cmkit_fpdu *out);

const char *cmkit_fpdu_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_MPA_FPDU_H */
