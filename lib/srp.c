// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * SRP login information units and the rdma_cm IP header (T10 SRP, SRP-2): the
 * bodies of include/cmkit/srp.h.  No kernel or libc header: built into
 * cmkit.ko by kbuild and, as C, into the host tests, the fuzz targets and
 * cmkit-peer.
 */
#include "cmkit/srp.h"

/**
 * cmkit_srp_port_id_eq - compare two 16-byte port identifiers
 * @a: one
 * @b: the other
 *
 * Return: 1 if equal, else 0.
 */
int cmkit_srp_port_id_eq(const cmkit_u8 *a, const cmkit_u8 *b)
{
	return cmkit_equal(a, b, CMKIT_SRP_PORT_ID_LEN);
}

/**
 * cmkit_srp_port_id_make - build a port identifier from its two halves
 * @out: CMKIT_SRP_PORT_ID_LEN bytes
 * @id_ext: identifier extension, the first eight bytes
 * @guid: EUI-64 (an IOC or port GUID), the last eight bytes
 */
void cmkit_srp_port_id_make(cmkit_u8 *out, cmkit_u64 id_ext, cmkit_u64 guid)
{
	cmkit_put_be64(out, id_ext);
	cmkit_put_be64(out + 8, guid);
}

/**
 * cmkit_srp_encode_login_req - write a 64-byte SRP_LOGIN_REQ
 * @out: CMKIT_SRP_LOGIN_REQ_LEN bytes
 * @req: the login; @req->opcode is written as given
 */
void cmkit_srp_encode_login_req(cmkit_u8 *out,
				const struct cmkit_srp_login_req *req)
{
	cmkit_zero(out, CMKIT_SRP_LOGIN_REQ_LEN);
	out[0] = req->opcode;
	cmkit_put_be64(out + 8, req->tag);
	cmkit_put_be32(out + 16, req->it_iu_len);
	cmkit_put_be16(out + 24, req->buf_fmt);
	out[26] = req->flags;
	cmkit_put_be16(out + 28, req->imm_data_offset);
	cmkit_copy(out + 32, req->initiator_port_id, CMKIT_SRP_PORT_ID_LEN);
	cmkit_copy(out + 48, req->target_port_id, CMKIT_SRP_PORT_ID_LEN);
}

/**
 * cmkit_srp_decode_login_req - read a 64-byte SRP_LOGIN_REQ
 * @buf: the private data, or NULL
 * @len: bytes available at @buf; nothing past them is read
 * @out: the decoded login
 *
 * The opcode is decoded, not checked: see cmkit_srp_login_check().
 *
 * Return: 1 if @buf holds a whole login, 0 if it is absent or short (then
 * @out is untouched).
 */
int cmkit_srp_decode_login_req(const void *buf, cmkit_size len,
			       struct cmkit_srp_login_req *out)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;

	if (!p || len < CMKIT_SRP_LOGIN_REQ_LEN)
		return 0;
	out->opcode = p[0];
	out->tag = cmkit_get_be64(p + 8);
	out->it_iu_len = cmkit_get_be32(p + 16);
	out->buf_fmt = cmkit_get_be16(p + 24);
	out->flags = p[26];
	out->imm_data_offset = cmkit_get_be16(p + 28);
	cmkit_copy(out->initiator_port_id, p + 32, CMKIT_SRP_PORT_ID_LEN);
	cmkit_copy(out->target_port_id, p + 48, CMKIT_SRP_PORT_ID_LEN);
	return 1;
}

/**
 * cmkit_srp_encode_login_req_rdma - write the 56-byte compact login
 * @out: CMKIT_SRP_LOGIN_REQ_RDMA_LEN bytes
 * @req: the login; @req->opcode is written as given
 */
void cmkit_srp_encode_login_req_rdma(cmkit_u8 *out,
				     const struct cmkit_srp_login_req *req)
{
	cmkit_zero(out, CMKIT_SRP_LOGIN_REQ_RDMA_LEN);
	cmkit_put_be64(out, req->tag);
	cmkit_put_be16(out + 8, req->buf_fmt);
	out[10] = req->flags;
	out[11] = req->opcode;
	cmkit_put_be32(out + 12, req->it_iu_len);
	cmkit_copy(out + 16, req->initiator_port_id, CMKIT_SRP_PORT_ID_LEN);
	cmkit_copy(out + 32, req->target_port_id, CMKIT_SRP_PORT_ID_LEN);
	cmkit_put_be16(out + 48, req->imm_data_offset);
}

/**
 * cmkit_srp_decode_login_req_rdma - read the 56-byte compact login
 * @buf: the login (after the rdma_cm IP header), or NULL
 * @len: bytes available at @buf; nothing past them is read
 * @out: the decoded login
 *
 * Return: 1 if @buf holds a whole compact login, 0 if it is absent or short
 * (then @out is untouched).
 */
int cmkit_srp_decode_login_req_rdma(const void *buf, cmkit_size len,
				    struct cmkit_srp_login_req *out)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;

	if (!p || len < CMKIT_SRP_LOGIN_REQ_RDMA_LEN)
		return 0;
	out->tag = cmkit_get_be64(p);
	out->buf_fmt = cmkit_get_be16(p + 8);
	out->flags = p[10];
	out->opcode = p[11];
	out->it_iu_len = cmkit_get_be32(p + 12);
	cmkit_copy(out->initiator_port_id, p + 16, CMKIT_SRP_PORT_ID_LEN);
	cmkit_copy(out->target_port_id, p + 32, CMKIT_SRP_PORT_ID_LEN);
	out->imm_data_offset = cmkit_get_be16(p + 48);
	return 1;
}

/**
 * cmkit_srp_encode_login_rsp - write an SRP_LOGIN_RSP
 * @out: CMKIT_SRP_LOGIN_RSP_LEN bytes
 * @rsp: the response
 */
void cmkit_srp_encode_login_rsp(cmkit_u8 *out,
				const struct cmkit_srp_login_rsp *rsp)
{
	cmkit_zero(out, CMKIT_SRP_LOGIN_RSP_LEN);
	out[0] = CMKIT_SRP_LOGIN_RSP;
	cmkit_put_be32(out + 4, rsp->req_lim_delta);
	cmkit_put_be64(out + 8, rsp->tag);
	cmkit_put_be32(out + 16, rsp->max_it_iu_len);
	cmkit_put_be32(out + 20, rsp->max_ti_iu_len);
	cmkit_put_be16(out + 24, rsp->buf_fmt);
	out[26] = rsp->flags;
}

/**
 * cmkit_srp_decode_login_rsp - read an SRP_LOGIN_RSP
 * @buf: the REP private data, or NULL
 * @len: bytes available at @buf; nothing past them is read
 * @out: the decoded response
 *
 * Return: 1 if @buf holds a whole SRP_LOGIN_RSP, 0 if it is absent, short
 * or another IU (then @out is untouched).
 */
int cmkit_srp_decode_login_rsp(const void *buf, cmkit_size len,
			       struct cmkit_srp_login_rsp *out)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;

	if (!p || len < CMKIT_SRP_LOGIN_RSP_LEN || p[0] != CMKIT_SRP_LOGIN_RSP)
		return 0;
	out->req_lim_delta = cmkit_get_be32(p + 4);
	out->tag = cmkit_get_be64(p + 8);
	out->max_it_iu_len = cmkit_get_be32(p + 16);
	out->max_ti_iu_len = cmkit_get_be32(p + 20);
	out->buf_fmt = cmkit_get_be16(p + 24);
	out->flags = p[26];
	return 1;
}

/**
 * cmkit_srp_encode_login_rej - write an SRP_LOGIN_REJ
 * @out: CMKIT_SRP_LOGIN_REJ_LEN bytes
 * @rej: the reject
 */
void cmkit_srp_encode_login_rej(cmkit_u8 *out,
				const struct cmkit_srp_login_rej *rej)
{
	cmkit_zero(out, CMKIT_SRP_LOGIN_REJ_LEN);
	out[0] = CMKIT_SRP_LOGIN_REJ;
	cmkit_put_be32(out + 4, rej->reason);
	cmkit_put_be64(out + 8, rej->tag);
	cmkit_put_be16(out + 24, rej->buf_fmt);
}

/**
 * cmkit_srp_decode_login_rej - read an SRP_LOGIN_REJ
 * @buf: the REJ private data, or NULL
 * @len: bytes available at @buf; nothing past them is read
 * @out: the decoded reject
 *
 * Return: 1 if @buf holds a whole SRP_LOGIN_REJ, 0 if it is absent, short
 * or another IU (then @out is untouched).
 */
int cmkit_srp_decode_login_rej(const void *buf, cmkit_size len,
			       struct cmkit_srp_login_rej *out)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;

	if (!p || len < CMKIT_SRP_LOGIN_REJ_LEN || p[0] != CMKIT_SRP_LOGIN_REJ)
		return 0;
	out->reason = cmkit_get_be32(p + 4);
	out->tag = cmkit_get_be64(p + 8);
	out->buf_fmt = cmkit_get_be16(p + 24);
	return 1;
}

/**
 * cmkit_cma_hdr_encode - write an rdma_cm IP header
 * @out: CMKIT_CMA_HDR_LEN bytes
 * @hdr: the header; @hdr->ip_version is 4 or 6
 */
void cmkit_cma_hdr_encode(cmkit_u8 *out, const struct cmkit_cma_hdr *hdr)
{
	out[0] = CMKIT_CMA_VERSION;
	out[1] = (cmkit_u8)(hdr->ip_version << 4);
	cmkit_put_be16(out + 2, hdr->src_port);
	cmkit_copy(out + 4, hdr->src_addr, 16);
	cmkit_copy(out + 20, hdr->dst_addr, 16);
}

/**
 * cmkit_cma_hdr_decode - read an rdma_cm IP header
 * @buf: the REQ private data, or NULL
 * @len: bytes available at @buf; nothing past them is read
 * @out: the decoded header
 *
 * Return: 1 if @buf starts with a version 0 header for IPv4 or IPv6, 0 if it
 * is absent, short, of another version or another address family (then
 * @out is untouched).
 */
int cmkit_cma_hdr_decode(const void *buf, cmkit_size len,
			 struct cmkit_cma_hdr *out)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;
	cmkit_u8 ipv;

	if (!p || len < CMKIT_CMA_HDR_LEN || p[0] != CMKIT_CMA_VERSION)
		return 0;
	ipv = p[1] >> 4;
	if (ipv != 4 && ipv != 6)
		return 0;
	out->ip_version = ipv;
	out->src_port = cmkit_get_be16(p + 2);
	cmkit_copy(out->src_addr, p + 4, 16);
	cmkit_copy(out->dst_addr, p + 20, 16);
	return 1;
}

/**
 * cmkit_cma_hdr_ip4 - the IPv4 address in a 16-byte header address field
 * @addr: the field
 *
 * Return: the address in host order.
 */
cmkit_u32 cmkit_cma_hdr_ip4(const cmkit_u8 *addr)
{
	return cmkit_get_be32(addr + 12);
}

/**
 * cmkit_srp_parse_req_pdata - decode the login in a REQ's private data
 * @buf: the REQ private data, or NULL
 * @len: bytes available at @buf; nothing past them is read
 * @rdma_cm: the REQ reached the rdma_cm-form listener: @buf is an rdma_cm
 *	IP header followed by a compact login; otherwise @buf is a 64-byte
 *	SRP_LOGIN_REQ
 * @hdr: the decoded IP header (rdma_cm form only; may be NULL otherwise)
 * @req: the decoded login
 *
 * Return: an enum cmkit_srp_pdata.
 */
enum cmkit_srp_pdata cmkit_srp_parse_req_pdata(const void *buf, cmkit_size len,
					       int rdma_cm,
					       struct cmkit_cma_hdr *hdr,
					       struct cmkit_srp_login_req *req)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;

	if (!rdma_cm)
		return cmkit_srp_decode_login_req(p, len, req) ?
		       CMKIT_SRP_PDATA_OK : CMKIT_SRP_PDATA_SHORT;
	if (!p || len < CMKIT_CMA_HDR_LEN)
		return CMKIT_SRP_PDATA_SHORT;
	if (!cmkit_cma_hdr_decode(p, len, hdr))
		return CMKIT_SRP_PDATA_BAD_CMA_HDR;
	return cmkit_srp_decode_login_req_rdma(p + CMKIT_CMA_HDR_LEN,
					       len - CMKIT_CMA_HDR_LEN, req) ?
	       CMKIT_SRP_PDATA_OK : CMKIT_SRP_PDATA_SHORT;
}

/**
 * cmkit_srp_login_check - decide whether a target accepts a login
 * @req: the decoded login
 * @max_it_iu_len: largest initiator-to-target IU the target accepts
 * @target_port_id: the target's port identifier, 16 bytes
 *
 * Checked in this order: the opcode, the IU length against
 * [CMKIT_SRP_MIN_IT_IU_LEN, @max_it_iu_len] (one reason for both bounds, as
 * SRP defines only "too large"), buffer formats the target does not
 * support, then the target port identifier.
 *
 * Return: 0 to accept, or the CMKIT_SRP_LOGIN_REJ_* reason to reject with.
 */
cmkit_u32 cmkit_srp_login_check(const struct cmkit_srp_login_req *req,
				cmkit_u32 max_it_iu_len,
				const cmkit_u8 *target_port_id)
{
	if (req->opcode != CMKIT_SRP_LOGIN_REQ)
		return CMKIT_SRP_LOGIN_REJ_UNABLE_ESTABLISH_CHANNEL;
	if (req->it_iu_len < CMKIT_SRP_MIN_IT_IU_LEN ||
	    req->it_iu_len > max_it_iu_len)
		return CMKIT_SRP_LOGIN_REJ_REQ_IT_IU_LENGTH_TOO_LARGE;
	if (req->buf_fmt & ~CMKIT_SRP_BUF_FORMAT_ALL)
		return CMKIT_SRP_LOGIN_REJ_UNSUPPORTED_DESCRIPTOR_FMT;
	if (!cmkit_srp_port_id_eq(req->target_port_id, target_port_id))
		return CMKIT_SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	return 0;
}
