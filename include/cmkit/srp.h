/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * SCSI RDMA Protocol (SRP, T10 INCITS 365-2002, with the SRP-2 immediate
 * data extension) login information units, as an SRP target sees them in the
 * private data of an IB CM REQ and answers them in a REP or a REJ, and the
 * rdma_cm IP header that precedes a login sent by an rdma_cm initiator.
 *
 * All multi-byte fields are big endian.  The tag is opaque to the target: it
 * is read and written back as the same eight bytes.
 *
 * SRP_LOGIN_REQ, 64 bytes (IB CM initiators):
 *
 *   0  opcode (0x00)   1..7 reserved        8..15 tag
 *  16  req_it_iu_len (4)                   20..23 reserved
 *  24  req_buf_fmt (2) 26 req_flags  27 reserved  28 imm_data_offset (2)
 *  30..31 reserved    32..47 initiator port id   48..63 target port id
 *
 * The compact login of rdma_cm initiators, 56 bytes: the same fields,
 * reordered so that 36 bytes of rdma_cm IP header plus the login fit in the
 * 92 bytes of REQ private data:
 *
 *   0  tag (8)   8 req_buf_fmt (2)   10 req_flags   11 opcode
 *  12  req_it_iu_len (4)   16..31 initiator port id   32..47 target port id
 *  48  imm_data_offset (2)   50..55 reserved
 *
 * SRP_LOGIN_RSP, 52 bytes:
 *
 *   0  opcode (0xc0)   4 req_lim_delta (4)   8 tag (8)
 *  16  max_it_iu_len (4)   20 max_ti_iu_len (4)   24 buf_fmt (2)
 *  26  rsp_flags   27..51 reserved
 *
 * SRP_LOGIN_REJ, 32 bytes:
 *
 *   0  opcode (0xc2)   4 reason (4)   8 tag (8)   24 buf_fmt (2)
 *
 * rdma_cm IP header, 36 bytes (rdma_cm puts it in front of the initiator's
 * private data in a REQ to a service id of its port spaces):
 *
 *   0  version (0x00)   1 IP version in bits 7:4 (4 or 6)   2 source port
 *   4  source address (16)   20 destination address (16)
 *
 * An IPv4 address fills the last four bytes of its 16-byte field.
 */
#ifndef CMKIT_SRP_H
#define CMKIT_SRP_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Information unit opcodes. */
#define CMKIT_SRP_LOGIN_REQ		0x00
#define CMKIT_SRP_LOGIN_RSP		0xc0
#define CMKIT_SRP_LOGIN_REJ		0xc2

/* Sizes on the wire. */
#define CMKIT_SRP_LOGIN_REQ_LEN		64
#define CMKIT_SRP_LOGIN_REQ_RDMA_LEN	56
#define CMKIT_SRP_LOGIN_RSP_LEN		52
#define CMKIT_SRP_LOGIN_REJ_LEN		32
#define CMKIT_SRP_PORT_ID_LEN		16
/* No initiator-to-target IU can be shorter than an SRP_LOGIN_REQ. */
#define CMKIT_SRP_MIN_IT_IU_LEN		64

/* req_buf_fmt and buf_fmt: the data buffer descriptor formats. */
#define CMKIT_SRP_BUF_FORMAT_DIRECT	0x0002
#define CMKIT_SRP_BUF_FORMAT_INDIRECT	0x0004
#define CMKIT_SRP_BUF_FORMAT_ALL	(CMKIT_SRP_BUF_FORMAT_DIRECT | \
					 CMKIT_SRP_BUF_FORMAT_INDIRECT)

/* req_flags: multi-channel action and immediate data. */
#define CMKIT_SRP_MULTICHAN_MASK	0x03
#define CMKIT_SRP_MULTICHAN_SINGLE	0x00
#define CMKIT_SRP_MULTICHAN_MULTI	0x01
#define CMKIT_SRP_IMMED_REQUESTED	0x80

/* rsp_flags: what the target did with the initiator's other channels. */
#define CMKIT_SRP_LOGIN_RSP_MULTICHAN_NO_CHAN		0x00
#define CMKIT_SRP_LOGIN_RSP_MULTICHAN_TERMINATED	0x01
#define CMKIT_SRP_LOGIN_RSP_MULTICHAN_MAINTAINED	0x02
#define CMKIT_SRP_LOGIN_RSP_IMMED_SUPP			0x80

/* SRP_LOGIN_REJ reasons. */
#define CMKIT_SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL	0x00010000U
#define CMKIT_SRP_LOGIN_REJ_INSUFFICIENT_RESOURCES	0x00010001U
#define CMKIT_SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE	0x00010002U
#define CMKIT_SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL	0x00010003U
#define CMKIT_SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT	0x00010004U
#define CMKIT_SRP_LOGIN_REJ_MULTI_CHANNEL_UNSUPPORTED	0x00010005U
#define CMKIT_SRP_LOGIN_REJ_CHANNEL_LIMIT_REACHED	0x00010006U

/* The rdma_cm IP header and rdma_cm's IB service ids. */
#define CMKIT_CMA_HDR_LEN		36
#define CMKIT_CMA_VERSION		0x00
#define CMKIT_RDMA_PS_TCP		0x0106
/* IB service id of rdma_cm's TCP port space for @port (host order). */
#define CMKIT_CMA_TCP_SERVICE_ID(port) \
	(((cmkit_u64)CMKIT_RDMA_PS_TCP << 16) | (cmkit_u16)(port))

/* IB CM REQ private data: all of it is always delivered, zero-padded. */
#define CMKIT_IB_CM_REQ_PDATA_LEN	92

/**
 * struct cmkit_srp_login_req - a decoded SRP_LOGIN_REQ, of either layout
 * @tag: opaque tag, echoed in the answer
 * @it_iu_len: largest initiator-to-target IU the initiator will send
 * @buf_fmt: CMKIT_SRP_BUF_FORMAT_* the initiator will use
 * @flags: CMKIT_SRP_MULTICHAN_* and CMKIT_SRP_IMMED_REQUESTED
 * @opcode: CMKIT_SRP_LOGIN_REQ in a login
 * @imm_data_offset: offset of immediate data in an SRP_CMD
 * @initiator_port_id: the initiator port
 * @target_port_id: the target port the initiator wants
 */
struct cmkit_srp_login_req {
	cmkit_u64 tag;
	cmkit_u32 it_iu_len;
	cmkit_u16 buf_fmt;
	cmkit_u8 flags;
	cmkit_u8 opcode;
	cmkit_u16 imm_data_offset;
	cmkit_u8 initiator_port_id[CMKIT_SRP_PORT_ID_LEN];
	cmkit_u8 target_port_id[CMKIT_SRP_PORT_ID_LEN];
};

/**
 * struct cmkit_srp_login_rsp - a decoded SRP_LOGIN_RSP
 * @tag: the login's tag
 * @req_lim_delta: initial request limit (credits)
 * @max_it_iu_len: largest initiator-to-target IU the target accepts
 * @max_ti_iu_len: largest target-to-initiator IU the target will send
 * @buf_fmt: CMKIT_SRP_BUF_FORMAT_* the target supports
 * @flags: CMKIT_SRP_LOGIN_RSP_* bits
 */
struct cmkit_srp_login_rsp {
	cmkit_u64 tag;
	cmkit_u32 req_lim_delta;
	cmkit_u32 max_it_iu_len;
	cmkit_u32 max_ti_iu_len;
	cmkit_u16 buf_fmt;
	cmkit_u8 flags;
};

/**
 * struct cmkit_srp_login_rej - a decoded SRP_LOGIN_REJ
 * @tag: the login's tag
 * @reason: CMKIT_SRP_LOGIN_REJ_* reason
 * @buf_fmt: CMKIT_SRP_BUF_FORMAT_* the target supports
 */
struct cmkit_srp_login_rej {
	cmkit_u64 tag;
	cmkit_u32 reason;
	cmkit_u16 buf_fmt;
};

/**
 * struct cmkit_cma_hdr - a decoded rdma_cm IP header
 * @ip_version: 4 or 6
 * @src_port: the initiator's port, host order
 * @src_addr: source address; IPv4 in the last four bytes
 * @dst_addr: destination address; IPv4 in the last four bytes
 */
struct cmkit_cma_hdr {
	cmkit_u8 ip_version;
	cmkit_u16 src_port;
	cmkit_u8 src_addr[16];
	cmkit_u8 dst_addr[16];
};

int cmkit_srp_port_id_eq(const cmkit_u8 *a, const cmkit_u8 *b);

void cmkit_srp_port_id_make(cmkit_u8 *out, cmkit_u64 id_ext, cmkit_u64 guid);

void cmkit_srp_encode_login_req(cmkit_u8 *out,
				const struct cmkit_srp_login_req *req);

int cmkit_srp_decode_login_req(const void *buf, cmkit_size len,
			       struct cmkit_srp_login_req *out);

void cmkit_srp_encode_login_req_rdma(cmkit_u8 *out,
				     const struct cmkit_srp_login_req *req);

int cmkit_srp_decode_login_req_rdma(const void *buf, cmkit_size len,
				    struct cmkit_srp_login_req *out);

void cmkit_srp_encode_login_rsp(cmkit_u8 *out,
				const struct cmkit_srp_login_rsp *rsp);

int cmkit_srp_decode_login_rsp(const void *buf, cmkit_size len,
			       struct cmkit_srp_login_rsp *out);

void cmkit_srp_encode_login_rej(cmkit_u8 *out,
				const struct cmkit_srp_login_rej *rej);

int cmkit_srp_decode_login_rej(const void *buf, cmkit_size len,
			       struct cmkit_srp_login_rej *out);

void cmkit_cma_hdr_encode(cmkit_u8 *out, const struct cmkit_cma_hdr *hdr);

int cmkit_cma_hdr_decode(const void *buf, cmkit_size len,
			 struct cmkit_cma_hdr *out);

cmkit_u32 cmkit_cma_hdr_ip4(const cmkit_u8 *addr);

/**
 * enum cmkit_srp_pdata - what a listener found in a REQ's private data
 * @CMKIT_SRP_PDATA_OK: a whole login, decoded
 * @CMKIT_SRP_PDATA_SHORT: absent or shorter than the form's login
 * @CMKIT_SRP_PDATA_BAD_CMA_HDR: the rdma_cm form without a valid IP header
 */
enum cmkit_srp_pdata {
	CMKIT_SRP_PDATA_OK,
	CMKIT_SRP_PDATA_SHORT,
	CMKIT_SRP_PDATA_BAD_CMA_HDR,
};

enum cmkit_srp_pdata cmkit_srp_parse_req_pdata(const void *buf, cmkit_size len,
					       int rdma_cm,
					       struct cmkit_cma_hdr *hdr,
					       struct cmkit_srp_login_req *req);

cmkit_u32 cmkit_srp_login_check(const struct cmkit_srp_login_req *req,
				cmkit_u32 max_it_iu_len,
				const cmkit_u8 *target_port_id);

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_SRP_H */
