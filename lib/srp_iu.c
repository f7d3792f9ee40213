// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * SRP information units of a logged-in RDMA channel (T10 SRP r16a, SRP-2
 * immediate data): the bodies of include/cmkit/srp_iu.h.  No kernel or libc
 * header: built into cmkit.ko by kbuild and, as C, into the host tests, the
 * fuzz targets and cmkit-peer.
 */
#include "cmkit/srp_iu.h"

/**
 * cmkit_srp_iu_tag - the tag of any SRP IU
 * @buf: the IU, or NULL
 * @len: bytes received; nothing past them is read
 * @tag: the tag (bytes 8..15 of every IU)
 *
 * For answering an IU the decoders refused, when its tag is there.
 *
 * Return: 0, or CMKIT_SRP_IU_E_SHORT (then @tag is untouched).
 */
int cmkit_srp_iu_tag(const void *buf, cmkit_size len, cmkit_u64 *tag)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;

	if (!p || len < 16)
		return CMKIT_SRP_IU_E_SHORT;
	*tag = cmkit_get_be64(p + 8);
	return 0;
}

/*
 * The first 16 bytes every target-to-initiator IU shares (and the
 * initiator's 16-byte IUs, whose other fields are reserved): opcode,
 * sol_not, a 32-bit field (req_lim_delta or reason) at 4, the tag at 8.
 */
static void cmkit_srp_put_hdr(cmkit_u8 *out, cmkit_u8 opcode, cmkit_u8 sol_not,
			      cmkit_u32 value, cmkit_u64 tag)
{
	out[0] = opcode;
	out[1] = sol_not;
	out[2] = 0;
	out[3] = 0;
	cmkit_put_be32(out + 4, value);
	cmkit_put_be64(out + 8, tag);
}

/**
 * cmkit_srp_put_direct - write a 16-byte memory descriptor
 * @out: CMKIT_SRP_DIRECT_LEN bytes
 * @d: the descriptor
 */
void cmkit_srp_put_direct(cmkit_u8 *out, const struct cmkit_srp_direct *d)
{
	cmkit_put_be64(out, d->va);
	cmkit_put_be32(out + 8, d->key);
	cmkit_put_be32(out + 12, d->len);
}

/**
 * cmkit_srp_get_direct - read a 16-byte memory descriptor
 * @p: CMKIT_SRP_DIRECT_LEN bytes
 * @d: the descriptor
 */
static void cmkit_srp_get_direct(const cmkit_u8 *p, struct cmkit_srp_direct *d)
{
	d->va = cmkit_get_be64(p);
	d->key = cmkit_get_be32(p + 8);
	d->len = cmkit_get_be32(p + 12);
}

/**
 * cmkit_srp_buf_desc - memory descriptor @i of a decoded data buffer
 * @b: the buffer, from cmkit_srp_decode_cmd()
 * @i: index, below @b->count
 * @d: the descriptor
 *
 * Return: 0, or CMKIT_SRP_IU_E_ARG when the IU does not carry entry @i
 * (then @d is untouched).
 */
int cmkit_srp_buf_desc(const struct cmkit_srp_data_buf *b, cmkit_u32 i,
		       struct cmkit_srp_direct *d)
{
	if (i >= b->count)
		return CMKIT_SRP_IU_E_ARG;
	if (b->fmt == CMKIT_SRP_DATA_DESC_DIRECT)
		*d = b->desc;
	else
		cmkit_srp_get_direct(b->list + (cmkit_size)i * CMKIT_SRP_DIRECT_LEN, d);
	return 0;
}

/* One data buffer descriptor at @p + *@pos; advances *@pos past it. */
static int cmkit_srp_get_data_buf(const cmkit_u8 *p, cmkit_size len,
				  cmkit_size *pos, cmkit_u8 fmt, cmkit_u8 count,
				  struct cmkit_srp_data_buf *b)
{
	cmkit_size left = len - *pos, list_len, i;
	cmkit_u64 sum = 0;

	cmkit_zero(b, sizeof(*b));
	b->fmt = fmt;
	switch (fmt) {
	case CMKIT_SRP_DATA_DESC_NONE:
		return 0;
	case CMKIT_SRP_DATA_DESC_DIRECT:
		if (left < CMKIT_SRP_DIRECT_LEN)
			return CMKIT_SRP_IU_E_DESC;
		cmkit_srp_get_direct(p + *pos, &b->desc);
		b->count = 1;
		b->ndesc = 1;
		b->whole = 1;
		b->len = b->desc.len;
		*pos += CMKIT_SRP_DIRECT_LEN;
		return 0;
	case CMKIT_SRP_DATA_DESC_INDIRECT:
		if (left < CMKIT_SRP_INDIRECT_LEN)
			return CMKIT_SRP_IU_E_DESC;
		list_len = (cmkit_size)count * CMKIT_SRP_DIRECT_LEN;
		if (left - CMKIT_SRP_INDIRECT_LEN < list_len)
			return CMKIT_SRP_IU_E_LIST;
		cmkit_srp_get_direct(p + *pos, &b->desc);
		b->len = cmkit_get_be32(p + *pos + 16);
		if (b->desc.len & (CMKIT_SRP_DIRECT_LEN - 1))
			return CMKIT_SRP_IU_E_TABLE;
		b->ndesc = b->desc.len / CMKIT_SRP_DIRECT_LEN;
		if (b->ndesc < count)
			return CMKIT_SRP_IU_E_TABLE;
		b->count = count;
		b->whole = b->ndesc == count;
		b->list = p + *pos + CMKIT_SRP_INDIRECT_LEN;
		if (b->whole) {
			for (i = 0; i < count; i++)
				sum += cmkit_get_be32(b->list + i * CMKIT_SRP_DIRECT_LEN + 12);
			if (sum != b->len)
				return CMKIT_SRP_IU_E_TOTAL;
		}
		*pos += CMKIT_SRP_INDIRECT_LEN + list_len;
		return 0;
	case CMKIT_SRP_DATA_DESC_IMM:
		if (left < CMKIT_SRP_IMM_LEN)
			return CMKIT_SRP_IU_E_DESC;
		b->len = cmkit_get_be32(p + *pos);
		*pos += CMKIT_SRP_IMM_LEN;
		return 0;
	}
	return CMKIT_SRP_IU_E_ARG;
}

/**
 * cmkit_srp_decode_cmd - read an SRP_CMD
 * @buf: the IU as received, or NULL
 * @len: bytes received; nothing past them is read
 * @imm_data_offset: where immediate data starts in this channel's IUs, as
 *	the login negotiated; 0 when the target did not grant immediate data
 * @out: the decoded command; its pointers point into @buf
 *
 * The descriptor count of a direct or absent buffer is ignored (ib_srp
 * leaves it zero); an indirect one's is the length of the partial list.
 * An indirect table held whole in the IU must have lengths that add up to
 * its total length.  Immediate data must start at or after the end of both
 * descriptors and end within @len.
 *
 * Return: 0, or a negative CMKIT_SRP_IU_E_* code (then @out is undefined;
 * cmkit_srp_iu_tag() still finds the tag of any IU of 16 bytes or more).
 */
int cmkit_srp_decode_cmd(const void *buf, cmkit_size len,
			 cmkit_u16 imm_data_offset, struct cmkit_srp_cmd *out)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;
	cmkit_u8 fmt_out, fmt_in, add;
	cmkit_size pos;
	int rc;

	if (!p || len < CMKIT_SRP_CMD_LEN)
		return CMKIT_SRP_IU_E_SHORT;
	if (p[0] != CMKIT_SRP_CMD)
		return CMKIT_SRP_IU_E_OPCODE;
	fmt_out = p[5] >> 4;
	fmt_in = p[5] & 0x0f;
	if (fmt_out > CMKIT_SRP_DATA_DESC_IMM ||
	    (fmt_out == CMKIT_SRP_DATA_DESC_IMM && !imm_data_offset))
		return CMKIT_SRP_IU_E_FMT_OUT;
	if (fmt_in > CMKIT_SRP_DATA_DESC_INDIRECT)
		return CMKIT_SRP_IU_E_FMT_IN;
	add = p[31] & 0xfc;
	if (len - CMKIT_SRP_CMD_LEN < add)
		return CMKIT_SRP_IU_E_CDB;

	out->sol_not = p[1];
	out->tag = cmkit_get_be64(p + 8);
	out->lun = cmkit_get_be64(p + 20);
	out->task_attr = p[29] & CMKIT_SRP_TASK_ATTR_MASK;
	out->cdb = p + 32;
	out->cdb_len = (cmkit_u16)(CMKIT_SRP_CDB_LEN + add);

	pos = CMKIT_SRP_CMD_LEN + add;
	rc = cmkit_srp_get_data_buf(p, len, &pos, fmt_out, p[6], &out->out);
	if (rc)
		return rc;
	rc = cmkit_srp_get_data_buf(p, len, &pos, fmt_in, p[7], &out->in);
	if (rc)
		return rc;
	out->iu_len = (cmkit_u32)pos;
	if (fmt_out == CMKIT_SRP_DATA_DESC_IMM) {
		if (imm_data_offset < pos)
			return CMKIT_SRP_IU_E_IMM_OFF;
		if (imm_data_offset > len ||
		    len - imm_data_offset < out->out.len)
			return CMKIT_SRP_IU_E_IMM_LEN;
		out->out.imm = p + imm_data_offset;
		out->iu_len = imm_data_offset + out->out.len;
	}
	return 0;
}

/* Bytes a data buffer's descriptor takes in an SRP_CMD. */
static cmkit_size cmkit_srp_data_buf_len(const struct cmkit_srp_data_buf *b)
{
	switch (b->fmt) {
	case CMKIT_SRP_DATA_DESC_DIRECT:
		return CMKIT_SRP_DIRECT_LEN;
	case CMKIT_SRP_DATA_DESC_INDIRECT:
		return CMKIT_SRP_INDIRECT_LEN +
		       (cmkit_size)b->count * CMKIT_SRP_DIRECT_LEN;
	case CMKIT_SRP_DATA_DESC_IMM:
		return CMKIT_SRP_IMM_LEN;
	}
	return 0;
}

/* Write a data buffer's descriptor; the caller checked the room. */
static void cmkit_srp_put_data_buf(cmkit_u8 *out,
				   const struct cmkit_srp_data_buf *b)
{
	switch (b->fmt) {
	case CMKIT_SRP_DATA_DESC_DIRECT:
		cmkit_srp_put_direct(out, &b->desc);
		break;
	case CMKIT_SRP_DATA_DESC_INDIRECT:
		cmkit_srp_put_direct(out, &b->desc);
		cmkit_put_be32(out + 16, b->len);
		if (b->count)
			cmkit_copy(out + CMKIT_SRP_INDIRECT_LEN, b->list,
				   (cmkit_size)b->count * CMKIT_SRP_DIRECT_LEN);
		break;
	case CMKIT_SRP_DATA_DESC_IMM:
		cmkit_put_be32(out, b->len);
		break;
	}
}

/**
 * cmkit_srp_encode_cmd - write an SRP_CMD
 * @buf: output buffer
 * @buflen: its size
 * @imm_data_offset: where immediate data goes (the login's offset); used
 *	only with an immediate data-out buffer
 * @cmd: the command.  Used: @tag, @lun, @sol_not, @task_attr, @cdb and
 *	@cdb_len (1..268; padded with zeros to 16 plus a multiple of four),
 *	and of each buffer @fmt, @desc (direct: the buffer; indirect: the
 *	table), @len (indirect: the total length; immediate: the data length),
 *	@count and @list (indirect: the partial list, @count * 16 bytes, as
 *	written by cmkit_srp_put_direct()) and @imm (immediate: the data)
 *
 * The descriptor count bytes are written for indirect buffers only, as
 * ib_srp does.  Bytes between the descriptors and immediate data are zero.
 *
 * Return: the IU's length, or a negative CMKIT_SRP_IU_E_* code.
 */
int cmkit_srp_encode_cmd(cmkit_u8 *buf, cmkit_size buflen,
			 cmkit_u16 imm_data_offset,
			 const struct cmkit_srp_cmd *cmd)
{
	const struct cmkit_srp_data_buf *o = &cmd->out, *i = &cmd->in;
	cmkit_size add = 0, pos, end;

	if (!buf || !cmd->cdb || !cmd->cdb_len ||
	    cmd->cdb_len > CMKIT_SRP_MAX_CDB_LEN)
		return CMKIT_SRP_IU_E_ARG;
	if (o->fmt > CMKIT_SRP_DATA_DESC_IMM)
		return CMKIT_SRP_IU_E_FMT_OUT;
	if (i->fmt > CMKIT_SRP_DATA_DESC_INDIRECT)
		return CMKIT_SRP_IU_E_FMT_IN;
	if ((o->fmt == CMKIT_SRP_DATA_DESC_INDIRECT && o->count && !o->list) ||
	    (i->fmt == CMKIT_SRP_DATA_DESC_INDIRECT && i->count && !i->list) ||
	    (o->fmt == CMKIT_SRP_DATA_DESC_IMM && o->len && !o->imm))
		return CMKIT_SRP_IU_E_ARG;
	if (cmd->cdb_len > CMKIT_SRP_CDB_LEN)
		add = (cmd->cdb_len - CMKIT_SRP_CDB_LEN + 3) & ~(cmkit_size)3;
	pos = CMKIT_SRP_CMD_LEN + add;
	end = pos + cmkit_srp_data_buf_len(o) + cmkit_srp_data_buf_len(i);
	if (o->fmt == CMKIT_SRP_DATA_DESC_IMM) {
		if (!imm_data_offset || imm_data_offset < end)
			return CMKIT_SRP_IU_E_IMM_OFF;
		if (o->len > 0x7fffffffU - imm_data_offset)
			return CMKIT_SRP_IU_E_ARG;
		end = (cmkit_size)imm_data_offset + o->len;
	}
	if (buflen < end)
		return CMKIT_SRP_IU_E_NOSPACE;

	cmkit_zero(buf, end);
	buf[0] = CMKIT_SRP_CMD;
	buf[1] = cmd->sol_not;
	buf[5] = (cmkit_u8)(o->fmt << 4 | i->fmt);
	if (o->fmt == CMKIT_SRP_DATA_DESC_INDIRECT)
		buf[6] = o->count;
	if (i->fmt == CMKIT_SRP_DATA_DESC_INDIRECT)
		buf[7] = i->count;
	cmkit_put_be64(buf + 8, cmd->tag);
	cmkit_put_be64(buf + 20, cmd->lun);
	buf[29] = cmd->task_attr & CMKIT_SRP_TASK_ATTR_MASK;
	buf[31] = (cmkit_u8)add;
	cmkit_copy(buf + 32, cmd->cdb, cmd->cdb_len);
	cmkit_srp_put_data_buf(buf + pos, o);
	pos += cmkit_srp_data_buf_len(o);
	cmkit_srp_put_data_buf(buf + pos, i);
	if (o->fmt == CMKIT_SRP_DATA_DESC_IMM && o->len)
		cmkit_copy(buf + imm_data_offset, o->imm, o->len);
	return (int)end;
}

/**
 * cmkit_srp_decode_tsk_mgmt - read an SRP_TSK_MGMT
 * @buf: the IU as received, or NULL
 * @len: bytes received; nothing past them is read
 * @out: the decoded request
 *
 * Return: 0, or CMKIT_SRP_IU_E_SHORT or _OPCODE (then @out is untouched).
 */
int cmkit_srp_decode_tsk_mgmt(const void *buf, cmkit_size len,
			      struct cmkit_srp_tsk_mgmt *out)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;

	if (!p || len < CMKIT_SRP_TSK_MGMT_LEN)
		return CMKIT_SRP_IU_E_SHORT;
	if (p[0] != CMKIT_SRP_TSK_MGMT)
		return CMKIT_SRP_IU_E_OPCODE;
	out->sol_not = p[1];
	out->tag = cmkit_get_be64(p + 8);
	out->lun = cmkit_get_be64(p + 20);
	out->func = p[30];
	out->task_tag = cmkit_get_be64(p + 32);
	return 0;
}

/**
 * cmkit_srp_encode_tsk_mgmt - write an SRP_TSK_MGMT
 * @buf: output buffer
 * @buflen: its size
 * @tm: the request
 *
 * Return: CMKIT_SRP_TSK_MGMT_LEN, or CMKIT_SRP_IU_E_NOSPACE.
 */
int cmkit_srp_encode_tsk_mgmt(cmkit_u8 *buf, cmkit_size buflen,
			      const struct cmkit_srp_tsk_mgmt *tm)
{
	if (!buf || buflen < CMKIT_SRP_TSK_MGMT_LEN)
		return CMKIT_SRP_IU_E_NOSPACE;
	cmkit_zero(buf, CMKIT_SRP_TSK_MGMT_LEN);
	buf[0] = CMKIT_SRP_TSK_MGMT;
	buf[1] = tm->sol_not;
	cmkit_put_be64(buf + 8, tm->tag);
	cmkit_put_be64(buf + 20, tm->lun);
	buf[30] = tm->func;
	cmkit_put_be64(buf + 32, tm->task_tag);
	return CMKIT_SRP_TSK_MGMT_LEN;
}

/**
 * cmkit_srp_tsk_mgmt_rsp_code - what a single-LUN target answers a function
 * @func: the request's function
 * @lun_exists: the request's LUN names the target's logical unit
 *
 * ABORT TASK, ABORT TASK SET, CLEAR TASK SET and LOGICAL UNIT RESET are
 * performed (the caller does the work: ends the tasks and sends no SRP_RSP
 * for them); ABORT TASK for a task that no longer exists completes too, as
 * SAM-5 wants.  CLEAR ACA and unknown functions are not supported (the
 * target never sets NACA).  A performed function on another LUN fails:
 * SRP has no "incorrect logical unit" code.
 *
 * Return: the CMKIT_SRP_TSK_MGMT_* RSP_CODE for the SRP_RSP.
 */
cmkit_u8 cmkit_srp_tsk_mgmt_rsp_code(cmkit_u8 func, int lun_exists)
{
	switch (func) {
	case CMKIT_SRP_TSK_ABORT_TASK:
	case CMKIT_SRP_TSK_ABORT_TASK_SET:
	case CMKIT_SRP_TSK_CLEAR_TASK_SET:
	case CMKIT_SRP_TSK_LUN_RESET:
		return lun_exists ? CMKIT_SRP_TSK_MGMT_COMPLETE :
				    CMKIT_SRP_TSK_MGMT_FAILED;
	}
	return CMKIT_SRP_TSK_MGMT_FUNC_NOT_SUPPORTED;
}

/**
 * cmkit_srp_tsk_mgmt_rsp_data - the four bytes of response data of a code
 * @out: CMKIT_SRP_TSK_MGMT_RSP_DATA_LEN bytes
 * @rsp_code: CMKIT_SRP_TSK_MGMT_*
 */
void cmkit_srp_tsk_mgmt_rsp_data(cmkit_u8 *out, cmkit_u8 rsp_code)
{
	cmkit_zero(out, CMKIT_SRP_TSK_MGMT_RSP_DATA_LEN);
	out[3] = rsp_code;
}

/**
 * cmkit_srp_encode_rsp - write an SRP_RSP
 * @buf: output buffer
 * @buflen: its size (the channel's max_ti_iu_len at most)
 * @rsp: the response; response data and sense data are copied after the
 *	36 bytes, RSPVALID and SNSVALID set from their lengths
 *
 * Return: the IU's length, or CMKIT_SRP_IU_E_NOSPACE, or
 * CMKIT_SRP_IU_E_ARG for a length without its data.
 */
int cmkit_srp_encode_rsp(cmkit_u8 *buf, cmkit_size buflen,
			 const struct cmkit_srp_rsp *rsp)
{
	cmkit_u8 flags = rsp->flags &
			 ~(CMKIT_SRP_RSP_RSPVALID | CMKIT_SRP_RSP_SNSVALID);
	cmkit_u64 total;

	if ((rsp->resp_len && !rsp->resp) || (rsp->sense_len && !rsp->sense))
		return CMKIT_SRP_IU_E_ARG;
	total = (cmkit_u64)CMKIT_SRP_RSP_LEN + rsp->resp_len + rsp->sense_len;
	if (total > 0x7fffffffU)
		return CMKIT_SRP_IU_E_ARG;
	if (!buf || buflen < total)
		return CMKIT_SRP_IU_E_NOSPACE;
	if (rsp->resp_len)
		flags |= CMKIT_SRP_RSP_RSPVALID;
	if (rsp->sense_len)
		flags |= CMKIT_SRP_RSP_SNSVALID;
	cmkit_srp_put_hdr(buf, CMKIT_SRP_RSP, rsp->sol_not, rsp->req_lim_delta,
			  rsp->tag);
	buf[16] = 0;
	buf[17] = 0;
	buf[18] = flags;
	buf[19] = rsp->status;
	cmkit_put_be32(buf + 20, rsp->data_out_res);
	cmkit_put_be32(buf + 24, rsp->data_in_res);
	cmkit_put_be32(buf + 28, rsp->sense_len);
	cmkit_put_be32(buf + 32, rsp->resp_len);
	if (rsp->resp_len)
		cmkit_copy(buf + CMKIT_SRP_RSP_LEN, rsp->resp, rsp->resp_len);
	if (rsp->sense_len)
		cmkit_copy(buf + CMKIT_SRP_RSP_LEN + rsp->resp_len, rsp->sense,
			   rsp->sense_len);
	return (int)total;
}

/**
 * cmkit_srp_decode_rsp - read an SRP_RSP
 * @buf: the IU as received, or NULL
 * @len: bytes received; nothing past them is read
 * @out: the decoded response; @resp and @sense point into @buf
 *
 * A length whose valid flag is clear is taken as zero, as SRP says.
 *
 * Return: 0, or CMKIT_SRP_IU_E_SHORT, _OPCODE, or _DATA when the response
 * or sense data runs past @len (then @out is untouched).
 */
int cmkit_srp_decode_rsp(const void *buf, cmkit_size len,
			 struct cmkit_srp_rsp *out)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;
	cmkit_u32 resp_len = 0, sense_len = 0;
	cmkit_u8 flags;

	if (!p || len < CMKIT_SRP_RSP_LEN)
		return CMKIT_SRP_IU_E_SHORT;
	if (p[0] != CMKIT_SRP_RSP)
		return CMKIT_SRP_IU_E_OPCODE;
	flags = p[18];
	if (flags & CMKIT_SRP_RSP_RSPVALID)
		resp_len = cmkit_get_be32(p + 32);
	if (flags & CMKIT_SRP_RSP_SNSVALID)
		sense_len = cmkit_get_be32(p + 28);
	if ((cmkit_u64)CMKIT_SRP_RSP_LEN + resp_len + sense_len > len)
		return CMKIT_SRP_IU_E_DATA;
	out->sol_not = p[1];
	out->req_lim_delta = cmkit_get_be32(p + 4);
	out->tag = cmkit_get_be64(p + 8);
	out->flags = flags;
	out->status = p[19];
	out->data_out_res = cmkit_get_be32(p + 20);
	out->data_in_res = cmkit_get_be32(p + 24);
	out->resp_len = resp_len;
	out->resp = resp_len ? p + CMKIT_SRP_RSP_LEN : (const cmkit_u8 *)0;
	out->sense_len = sense_len;
	out->sense = sense_len ? p + CMKIT_SRP_RSP_LEN + resp_len :
				 (const cmkit_u8 *)0;
	out->rsp_code = resp_len >= CMKIT_SRP_TSK_MGMT_RSP_DATA_LEN ?
			p[CMKIT_SRP_RSP_LEN + 3] : 0xff;
	return 0;
}

/**
 * cmkit_srp_xfer_len - the bytes a target moves for one direction
 * @want: bytes the command moves (the SCSI plan's length; 0 for none)
 * @have: bytes of the SRP_CMD's buffer for that direction
 *
 * Return: the smaller of the two.
 */
cmkit_u32 cmkit_srp_xfer_len(cmkit_u64 want, cmkit_u32 have)
{
	return want < have ? (cmkit_u32)want : have;
}

/* One direction's residual count; sets @under or @over in *@flags. */
static cmkit_u32 cmkit_srp_resid_one(cmkit_u8 *flags, cmkit_u64 want,
				     cmkit_u32 have, cmkit_u8 under,
				     cmkit_u8 over)
{
	if (want < have) {
		*flags |= under;
		return have - (cmkit_u32)want;
	}
	if (want > have) {
		*flags |= over;
		return want - have > 0xffffffffU ? 0xffffffffU :
						   (cmkit_u32)(want - have);
	}
	return 0;
}

/**
 * cmkit_srp_residual - set an SRP_RSP's residual flags and counts
 * @rsp: its DI and DO flags are replaced, its residual counts written
 * @in_want: bytes the command sends to the initiator (0 when none)
 * @in_have: bytes of the SRP_CMD's data-in buffer (0 when none)
 * @out_want: bytes the command takes from the initiator (0 when none)
 * @out_have: bytes of the SRP_CMD's data-out buffer (0 when none)
 *
 * A buffer larger than what the command moves is an underflow (DIUNDER,
 * DOUNDER); a command that would move more than the buffer holds is an
 * overflow (DIOVER, DOOVER), and moves cmkit_srp_xfer_len() bytes.  A
 * count too large for the 32-bit field saturates.
 */
void cmkit_srp_residual(struct cmkit_srp_rsp *rsp, cmkit_u64 in_want,
			cmkit_u32 in_have, cmkit_u64 out_want,
			cmkit_u32 out_have)
{
	rsp->flags &= ~CMKIT_SRP_RSP_RESID_MASK;
	rsp->data_in_res = cmkit_srp_resid_one(&rsp->flags, in_want, in_have,
					       CMKIT_SRP_RSP_DIUNDER,
					       CMKIT_SRP_RSP_DIOVER);
	rsp->data_out_res = cmkit_srp_resid_one(&rsp->flags, out_want, out_have,
						CMKIT_SRP_RSP_DOUNDER,
						CMKIT_SRP_RSP_DOOVER);
}

/**
 * cmkit_srp_encode_aer_req - write an SRP_AER_REQ
 * @buf: output buffer
 * @buflen: its size
 * @aer: the request; its sense data is copied after the 36 bytes
 *
 * Return: the IU's length, or CMKIT_SRP_IU_E_NOSPACE or _ARG.
 */
int cmkit_srp_encode_aer_req(cmkit_u8 *buf, cmkit_size buflen,
			     const struct cmkit_srp_aer_req *aer)
{
	cmkit_u64 total = (cmkit_u64)CMKIT_SRP_AER_REQ_LEN + aer->sense_len;

	if ((aer->sense_len && !aer->sense) || total > 0x7fffffffU)
		return CMKIT_SRP_IU_E_ARG;
	if (!buf || buflen < total)
		return CMKIT_SRP_IU_E_NOSPACE;
	cmkit_zero(buf, CMKIT_SRP_AER_REQ_LEN);
	cmkit_srp_put_hdr(buf, CMKIT_SRP_AER_REQ, aer->sol_not,
			  aer->req_lim_delta, aer->tag);
	cmkit_put_be64(buf + 20, aer->lun);
	cmkit_put_be32(buf + 28, aer->sense_len);
	if (aer->sense_len)
		cmkit_copy(buf + CMKIT_SRP_AER_REQ_LEN, aer->sense, aer->sense_len);
	return (int)total;
}

/**
 * cmkit_srp_decode_aer_req - read an SRP_AER_REQ
 * @buf: the IU as received, or NULL
 * @len: bytes received; nothing past them is read
 * @out: the decoded request; @sense points into @buf
 *
 * Return: 0, or CMKIT_SRP_IU_E_SHORT, _OPCODE, or _DATA when the sense data
 * runs past @len (then @out is untouched).
 */
int cmkit_srp_decode_aer_req(const void *buf, cmkit_size len,
			     struct cmkit_srp_aer_req *out)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;
	cmkit_u32 sense_len;

	if (!p || len < CMKIT_SRP_AER_REQ_LEN)
		return CMKIT_SRP_IU_E_SHORT;
	if (p[0] != CMKIT_SRP_AER_REQ)
		return CMKIT_SRP_IU_E_OPCODE;
	sense_len = cmkit_get_be32(p + 28);
	if (len - CMKIT_SRP_AER_REQ_LEN < sense_len)
		return CMKIT_SRP_IU_E_DATA;
	out->sol_not = p[1];
	out->req_lim_delta = cmkit_get_be32(p + 4);
	out->tag = cmkit_get_be64(p + 8);
	out->lun = cmkit_get_be64(p + 20);
	out->sense_len = sense_len;
	out->sense = sense_len ? p + CMKIT_SRP_AER_REQ_LEN : (const cmkit_u8 *)0;
	return 0;
}

/* 1 if @opcode is one of the 16-byte IUs; @fields: it has sol_not and value. */
static int cmkit_srp_short_iu_kind(cmkit_u8 opcode, int *fields)
{
	switch (opcode) {
	case CMKIT_SRP_T_LOGOUT:
	case CMKIT_SRP_CRED_REQ:
		*fields = 1;
		return 1;
	case CMKIT_SRP_I_LOGOUT:
	case CMKIT_SRP_CRED_RSP:
	case CMKIT_SRP_AER_RSP:
		*fields = 0;
		return 1;
	}
	return 0;
}

/**
 * cmkit_srp_encode_short_iu - write a 16-byte IU
 * @buf: output buffer
 * @buflen: its size
 * @iu: the IU; @sol_not and @value are written only for SRP_T_LOGOUT and
 *	SRP_CRED_REQ (they are reserved in the others)
 *
 * Return: CMKIT_SRP_SHORT_IU_LEN, or CMKIT_SRP_IU_E_NOSPACE, or
 * CMKIT_SRP_IU_E_ARG for another opcode.
 */
int cmkit_srp_encode_short_iu(cmkit_u8 *buf, cmkit_size buflen,
			      const struct cmkit_srp_short_iu *iu)
{
	int fields;

	if (!cmkit_srp_short_iu_kind(iu->opcode, &fields))
		return CMKIT_SRP_IU_E_ARG;
	if (!buf || buflen < CMKIT_SRP_SHORT_IU_LEN)
		return CMKIT_SRP_IU_E_NOSPACE;
	cmkit_srp_put_hdr(buf, iu->opcode, fields ? iu->sol_not : 0,
			  fields ? iu->value : 0, iu->tag);
	if (!fields)
		cmkit_zero(buf + 1, 7);
	return CMKIT_SRP_SHORT_IU_LEN;
}

/**
 * cmkit_srp_decode_short_iu - read a 16-byte IU
 * @buf: the IU as received, or NULL
 * @len: bytes received; nothing past them is read
 * @opcode: the IU expected: CMKIT_SRP_I_LOGOUT, _T_LOGOUT, _CRED_REQ,
 *	_CRED_RSP or _AER_RSP
 * @out: the decoded IU; @sol_not and @value are 0 where reserved
 *
 * Return: 0, or CMKIT_SRP_IU_E_ARG (@opcode is not a 16-byte IU),
 * _SHORT or _OPCODE (then @out is untouched).
 */
int cmkit_srp_decode_short_iu(const void *buf, cmkit_size len, cmkit_u8 opcode,
			      struct cmkit_srp_short_iu *out)
{
	const cmkit_u8 *p = (const cmkit_u8 *)buf;
	int fields;

	if (!cmkit_srp_short_iu_kind(opcode, &fields))
		return CMKIT_SRP_IU_E_ARG;
	if (!p || len < CMKIT_SRP_SHORT_IU_LEN)
		return CMKIT_SRP_IU_E_SHORT;
	if (p[0] != opcode)
		return CMKIT_SRP_IU_E_OPCODE;
	out->opcode = opcode;
	out->sol_not = fields ? p[1] : 0;
	out->value = fields ? cmkit_get_be32(p + 4) : 0;
	out->tag = cmkit_get_be64(p + 8);
	return 0;
}

/**
 * cmkit_srp_logout_reason - the SRP_T_LOGOUT reason for an IU refused
 * @err: a negative CMKIT_SRP_IU_E_* code from a decoder
 *
 * For a target that logs the channel out rather than answer an IU it cannot
 * decode.  (An SRP_CMD whose tag is readable may instead be answered with
 * CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN COMMAND INFORMATION
 * UNIT; ib_srp ignores an SRP_T_LOGOUT but not a missing SRP_RSP.)
 *
 * Return: CMKIT_SRP_T_LOGOUT_INVALID_IU_TYPE for an unknown opcode,
 * _DATA_OUT_FORMAT and _DATA_IN_FORMAT for an unsupported format, _INVALID_IU_LEN
 * for anything that runs past the IU, else _NO_REASON.
 */
cmkit_u32 cmkit_srp_logout_reason(int err)
{
	switch (err) {
	case CMKIT_SRP_IU_E_OPCODE:
		return CMKIT_SRP_T_LOGOUT_INVALID_IU_TYPE;
	case CMKIT_SRP_IU_E_FMT_OUT:
		return CMKIT_SRP_T_LOGOUT_DATA_OUT_FORMAT;
	case CMKIT_SRP_IU_E_FMT_IN:
		return CMKIT_SRP_T_LOGOUT_DATA_IN_FORMAT;
	case CMKIT_SRP_IU_E_SHORT:
	case CMKIT_SRP_IU_E_CDB:
	case CMKIT_SRP_IU_E_DESC:
	case CMKIT_SRP_IU_E_LIST:
	case CMKIT_SRP_IU_E_IMM_LEN:
	case CMKIT_SRP_IU_E_DATA:
		return CMKIT_SRP_T_LOGOUT_INVALID_IU_LEN;
	}
	return CMKIT_SRP_T_LOGOUT_NO_REASON;
}
