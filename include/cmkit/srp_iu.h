/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * SRP information units of a logged-in RDMA channel (T10 SRP r16a, with the
 * SRP-2 immediate data extension): what an SRP target receives (SRP_CMD,
 * SRP_TSK_MGMT, SRP_I_LOGOUT, and SRP_CRED_RSP and SRP_AER_RSP, the
 * initiator's answers to the target's own requests) and what it sends
 * (SRP_RSP, SRP_T_LOGOUT, SRP_CRED_REQ, SRP_AER_REQ).  Every IU has an
 * encoder and a decoder, so that a test initiator speaks the same code.  The
 * login IUs are in srp.h.
 *
 * Covered: every field, every count and length checked against the bytes
 * received, with a precise error; the descriptors of an SRP_CMD (direct,
 * indirect with its partial list, immediate); the residual fields of an
 * SRP_RSP; which task management functions a single-LUN target performs.
 * Refused: an immediate data-in buffer (SRP-2 defines immediate data for
 * data-out only), immediate data on a channel that did not negotiate it,
 * reserved descriptor formats, a partial list longer than its table, and a
 * table held whole in the IU whose lengths do not add up to its total.
 * Not done here: fetching an indirect table that is not whole in the IU (the
 * caller RDMA-reads @desc of the buffer), and any SCSI (see scsi.h).
 *
 * All multi-byte fields are big endian.  Tags are opaque: read and written
 * back as the same eight bytes.  Offsets are from the start of the IU.
 *
 * SRP_CMD (0x02), 48 bytes, then the additional CDB, the data-out buffer
 * descriptor, the data-in buffer descriptor, and immediate data:
 *
 *   0  opcode   1 sol_not   2..4 reserved
 *   5  buf_fmt: data-out format in bits 7:4, data-in format in bits 3:0
 *   6  data-out descriptor count   7 data-in descriptor count
 *   8  tag (8)   16..19 reserved   20 LUN (8)   28 reserved
 *  29  task attribute (bits 2:0)   30 reserved
 *  31  additional CDB length, in 4-byte words, in bits 7:2 (1:0 reserved)
 *  32  CDB (16)   48 additional CDB (4 * words)
 *  48 + additional CDB: the data-out descriptor, then the data-in one:
 *      direct (format 1), 16 bytes: va (8), key (4), len (4)
 *      indirect (format 2), 20 + 16 * count bytes: table descriptor (a
 *        direct descriptor of the whole table in the initiator's memory),
 *        total length (4), then the first @count entries of the table (the
 *        partial list; the count is byte 6 or 7)
 *      immediate (format 3, data-out only), 4 bytes: len (4); the data is
 *        at the imm_data_offset the login negotiated
 *
 * SRP_TSK_MGMT (0x01), 48 bytes:
 *
 *   0  opcode   1 sol_not   8 tag (8)   16..19 reserved   20 LUN (8)
 *  28  reserved (2)   30 function   31 reserved   32 task tag (8)
 *  40..47 reserved
 *
 * SRP_RSP (0xc1), 36 bytes, then the response data, then the sense data:
 *
 *   0  opcode   1 sol_not   4 req_lim_delta (4)   8 tag (8)
 *  16  reserved (2)   18 flags   19 SCSI status
 *  20  data-out residual count (4)   24 data-in residual count (4)
 *  28  sense data length (4)   32 response data length (4)
 *  36  response data (when RSPVALID), then sense data (when SNSVALID)
 *
 * SRP_AER_REQ (0x82), 36 bytes, then the sense data:
 *
 *   0  opcode   1 sol_not   4 req_lim_delta (4)   8 tag (8)
 *  16  reserved (4)   20 LUN (8)   28 sense data length (4)
 *  32  reserved (4)   36 sense data
 *
 * The 16-byte IUs: opcode at 0, tag at 8, and
 *
 *   SRP_I_LOGOUT  (0x03)  nothing else
 *   SRP_T_LOGOUT  (0x80)  1 sol_not, 4 reason (4)
 *   SRP_CRED_REQ  (0x81)  1 sol_not, 4 req_lim_delta (4)
 *   SRP_CRED_RSP  (0x41)  nothing else
 *   SRP_AER_RSP   (0x42)  nothing else
 *
 * Nothing here reads or writes past the lengths it is given.
 */
#ifndef CMKIT_SRP_IU_H
#define CMKIT_SRP_IU_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Information unit opcodes (the login ones are in srp.h). */
#define CMKIT_SRP_TSK_MGMT		0x01
#define CMKIT_SRP_CMD			0x02
#define CMKIT_SRP_I_LOGOUT		0x03
#define CMKIT_SRP_CRED_RSP		0x41
#define CMKIT_SRP_AER_RSP		0x42
#define CMKIT_SRP_T_LOGOUT		0x80
#define CMKIT_SRP_CRED_REQ		0x81
#define CMKIT_SRP_AER_REQ		0x82
#define CMKIT_SRP_RSP			0xc1

/* Sizes on the wire. */
#define CMKIT_SRP_CMD_LEN		48	/* without additional CDB */
#define CMKIT_SRP_CDB_LEN		16
#define CMKIT_SRP_MAX_ADD_CDB_LEN	252	/* 63 words */
#define CMKIT_SRP_MAX_CDB_LEN		(CMKIT_SRP_CDB_LEN + \
					 CMKIT_SRP_MAX_ADD_CDB_LEN)
#define CMKIT_SRP_DIRECT_LEN		16
#define CMKIT_SRP_INDIRECT_LEN		20	/* without the partial list */
#define CMKIT_SRP_IMM_LEN		4
#define CMKIT_SRP_TSK_MGMT_LEN		48
#define CMKIT_SRP_RSP_LEN		36	/* without response and sense */
#define CMKIT_SRP_AER_REQ_LEN		36	/* without sense */
#define CMKIT_SRP_SHORT_IU_LEN		16
#define CMKIT_SRP_TSK_MGMT_RSP_DATA_LEN	4

/* The nibbles of buf_fmt: data buffer descriptor formats. */
#define CMKIT_SRP_DATA_DESC_NONE	0
#define CMKIT_SRP_DATA_DESC_DIRECT	1
#define CMKIT_SRP_DATA_DESC_INDIRECT	2
#define CMKIT_SRP_DATA_DESC_IMM		3	/* SRP-2, data-out only */

/* sol_not of SRP_CMD and SRP_TSK_MGMT: solicited notification wanted... */
#define CMKIT_SRP_SOLNT_SUCCESS		0x02	/* ...for a successful end */
#define CMKIT_SRP_SOLNT_FAILURE		0x04	/* ...for an unsuccessful one */
/* sol_not of SRP_RSP, SRP_T_LOGOUT, SRP_CRED_REQ and SRP_AER_REQ. */
#define CMKIT_SRP_SOLNT			0x01

/* SRP_CMD task attribute. */
#define CMKIT_SRP_TASK_ATTR_MASK	0x07
#define CMKIT_SRP_TASK_SIMPLE		0x0
#define CMKIT_SRP_TASK_HEAD_OF_QUEUE	0x1
#define CMKIT_SRP_TASK_ORDERED		0x2
#define CMKIT_SRP_TASK_ACA		0x4

/* SRP_TSK_MGMT functions. */
#define CMKIT_SRP_TSK_ABORT_TASK	0x01
#define CMKIT_SRP_TSK_ABORT_TASK_SET	0x02
#define CMKIT_SRP_TSK_CLEAR_TASK_SET	0x04
#define CMKIT_SRP_TSK_LUN_RESET		0x08
#define CMKIT_SRP_TSK_CLEAR_ACA		0x40

/* SRP_RSP flags. */
#define CMKIT_SRP_RSP_RSPVALID		0x01
#define CMKIT_SRP_RSP_SNSVALID		0x02
#define CMKIT_SRP_RSP_DOOVER		0x04
#define CMKIT_SRP_RSP_DOUNDER		0x08
#define CMKIT_SRP_RSP_DIOVER		0x10
#define CMKIT_SRP_RSP_DIUNDER		0x20
#define CMKIT_SRP_RSP_RESID_MASK	0x3c

/* RSP_CODE, byte 3 of an SRP_RSP's four bytes of response data. */
#define CMKIT_SRP_TSK_MGMT_COMPLETE		0x00
#define CMKIT_SRP_TSK_MGMT_FIELDS_INVALID	0x02
#define CMKIT_SRP_TSK_MGMT_FUNC_NOT_SUPPORTED	0x04
#define CMKIT_SRP_TSK_MGMT_FAILED		0x05

/* SRP_T_LOGOUT reasons. */
#define CMKIT_SRP_T_LOGOUT_NO_REASON		0x00000000U
#define CMKIT_SRP_T_LOGOUT_INACTIVE		0x00000001U
#define CMKIT_SRP_T_LOGOUT_INVALID_IU_TYPE	0x00000002U
#define CMKIT_SRP_T_LOGOUT_UNEXPECTED_RSP	0x00000003U
#define CMKIT_SRP_T_LOGOUT_MULTICHANNEL		0x00000004U
#define CMKIT_SRP_T_LOGOUT_DATA_OUT_FORMAT	0x00000005U
#define CMKIT_SRP_T_LOGOUT_DATA_IN_FORMAT	0x00000006U
#define CMKIT_SRP_T_LOGOUT_INVALID_IU_LEN	0x00000008U

/* Errors of the functions below; all are negative. */
enum cmkit_srp_iu_err {
	CMKIT_SRP_IU_E_SHORT = -1,	/* shorter than the IU's fixed part */
	CMKIT_SRP_IU_E_OPCODE = -2,	/* another IU */
	CMKIT_SRP_IU_E_CDB = -3,	/* additional CDB runs past the IU */
	/* data-out format reserved, or immediate on a channel without it */
	CMKIT_SRP_IU_E_FMT_OUT = -4,
	CMKIT_SRP_IU_E_FMT_IN = -5,	/* data-in format reserved or immediate */
	CMKIT_SRP_IU_E_DESC = -6,	/* a descriptor runs past the IU */
	CMKIT_SRP_IU_E_LIST = -7,	/* partial list runs past the IU */
	/* table length not a multiple of 16, or shorter than the partial list */
	CMKIT_SRP_IU_E_TABLE = -8,
	CMKIT_SRP_IU_E_TOTAL = -9,	/* whole table's lengths != total */
	CMKIT_SRP_IU_E_IMM_OFF = -10,	/* immediate data inside descriptors */
	CMKIT_SRP_IU_E_IMM_LEN = -11,	/* immediate data runs past the IU */
	CMKIT_SRP_IU_E_DATA = -12,	/* response or sense data past the IU */
	CMKIT_SRP_IU_E_NOSPACE = -13,	/* output buffer too small */
	CMKIT_SRP_IU_E_ARG = -14,	/* bad argument */
};

/**
 * struct cmkit_srp_direct - a memory descriptor
 * @va: virtual address in the initiator's memory
 * @key: its remote key
 * @len: its length in bytes
 */
struct cmkit_srp_direct {
	cmkit_u64 va;
	cmkit_u32 key;
	cmkit_u32 len;
};

/**
 * struct cmkit_srp_data_buf - one data buffer (data-out or data-in) of an SRP_CMD
 * @fmt: CMKIT_SRP_DATA_DESC_*
 * @count: memory descriptors the IU carries: 1 for direct, the partial
 *	list's length for indirect (the descriptor count byte), else 0
 * @ndesc: memory descriptors of the whole buffer: 1 for direct, the table's
 *	(its length / 16) for indirect, else 0
 * @whole: indirect: the IU carries the whole table (@count == @ndesc), no
 *	fetch needed; 1 for direct
 * @len: bytes of the buffer: the direct descriptor's length, the indirect
 *	total length, or the immediate data length
 * @desc: direct: the buffer; indirect: the table in the initiator's memory
 *	(what to RDMA-read when !@whole)
 * @list: indirect: the partial list, @count * 16 bytes inside the IU
 *	(read entries with cmkit_srp_buf_desc()); else NULL
 * @imm: immediate: the @len bytes of data inside the IU; else NULL
 */
struct cmkit_srp_data_buf {
	cmkit_u8 fmt;
	cmkit_u8 count;
	cmkit_u8 whole;
	cmkit_u32 ndesc;
	cmkit_u32 len;
	struct cmkit_srp_direct desc;
	const cmkit_u8 *list;
	const cmkit_u8 *imm;
};

/**
 * struct cmkit_srp_cmd - a decoded SRP_CMD
 * @tag: opaque tag, echoed in the SRP_RSP
 * @lun: the eight LUN bytes as a big-endian number (see cmkit_scsi_lun_*())
 * @sol_not: CMKIT_SRP_SOLNT_SUCCESS and CMKIT_SRP_SOLNT_FAILURE
 * @task_attr: CMKIT_SRP_TASK_* (bits 2:0 of byte 29; not checked)
 * @cdb_len: 16 plus the additional CDB length in bytes
 * @cdb: the CDB, @cdb_len bytes inside the IU
 * @out: the data-out buffer (initiator to target)
 * @in: the data-in buffer (target to initiator)
 * @iu_len: bytes of the IU the command takes: the end of its descriptors,
 *	or of its immediate data
 */
struct cmkit_srp_cmd {
	cmkit_u64 tag;
	cmkit_u64 lun;
	cmkit_u8 sol_not;
	cmkit_u8 task_attr;
	cmkit_u16 cdb_len;
	const cmkit_u8 *cdb;
	struct cmkit_srp_data_buf out;
	struct cmkit_srp_data_buf in;
	cmkit_u32 iu_len;
};

/**
 * struct cmkit_srp_tsk_mgmt - a decoded SRP_TSK_MGMT
 * @tag: opaque tag of this request, echoed in the SRP_RSP
 * @lun: the eight LUN bytes as a big-endian number
 * @sol_not: CMKIT_SRP_SOLNT_SUCCESS and CMKIT_SRP_SOLNT_FAILURE
 * @func: CMKIT_SRP_TSK_* (not checked: see cmkit_srp_tsk_mgmt_rsp_code())
 * @task_tag: ABORT TASK: the tag of the SRP_CMD to abort
 */
struct cmkit_srp_tsk_mgmt {
	cmkit_u64 tag;
	cmkit_u64 lun;
	cmkit_u8 sol_not;
	cmkit_u8 func;
	cmkit_u64 task_tag;
};

/**
 * struct cmkit_srp_rsp - an SRP_RSP
 * @tag: the tag of the request answered
 * @req_lim_delta: credits returned to the initiator
 * @sol_not: CMKIT_SRP_SOLNT
 * @flags: CMKIT_SRP_RSP_*; the encoder sets RSPVALID and SNSVALID itself,
 *	from @resp_len and @sense_len
 * @status: SCSI status
 * @data_out_res: data-out residual count (valid with DOOVER or DOUNDER)
 * @data_in_res: data-in residual count (valid with DIOVER or DIUNDER)
 * @resp: response data, or NULL when @resp_len is 0
 * @resp_len: its length (4 for task management)
 * @sense: sense data, or NULL when @sense_len is 0
 * @sense_len: its length
 * @rsp_code: decoder only: RSP_CODE when RSPVALID and at least four bytes of
 *	response data, else 0xff
 */
struct cmkit_srp_rsp {
	cmkit_u64 tag;
	cmkit_u32 req_lim_delta;
	cmkit_u8 sol_not;
	cmkit_u8 flags;
	cmkit_u8 status;
	cmkit_u32 data_out_res;
	cmkit_u32 data_in_res;
	const cmkit_u8 *resp;
	cmkit_u32 resp_len;
	const cmkit_u8 *sense;
	cmkit_u32 sense_len;
	cmkit_u8 rsp_code;
};

/**
 * struct cmkit_srp_aer_req - an SRP_AER_REQ
 * @tag: opaque tag, echoed in the SRP_AER_RSP
 * @req_lim_delta: credits given to the initiator
 * @sol_not: CMKIT_SRP_SOLNT
 * @lun: the eight LUN bytes as a big-endian number
 * @sense: sense data, or NULL when @sense_len is 0
 * @sense_len: its length
 */
struct cmkit_srp_aer_req {
	cmkit_u64 tag;
	cmkit_u32 req_lim_delta;
	cmkit_u8 sol_not;
	cmkit_u64 lun;
	const cmkit_u8 *sense;
	cmkit_u32 sense_len;
};

/**
 * struct cmkit_srp_short_iu - one of the 16-byte IUs
 * @opcode: CMKIT_SRP_I_LOGOUT, _T_LOGOUT, _CRED_REQ, _CRED_RSP or _AER_RSP
 * @sol_not: CMKIT_SRP_SOLNT (SRP_T_LOGOUT and SRP_CRED_REQ; else 0)
 * @value: SRP_T_LOGOUT: the reason; SRP_CRED_REQ: req_lim_delta; else 0
 * @tag: opaque tag
 */
struct cmkit_srp_short_iu {
	cmkit_u8 opcode;
	cmkit_u8 sol_not;
	cmkit_u32 value;
	cmkit_u64 tag;
};

int cmkit_srp_iu_tag(const void *buf, cmkit_size len, cmkit_u64 *tag);

void cmkit_srp_put_direct(cmkit_u8 *out, const struct cmkit_srp_direct *d);

int cmkit_srp_buf_desc(const struct cmkit_srp_data_buf *b, cmkit_u32 i,
		       struct cmkit_srp_direct *d);

int cmkit_srp_decode_cmd(const void *buf, cmkit_size len,
			 cmkit_u16 imm_data_offset, struct cmkit_srp_cmd *out);

int cmkit_srp_encode_cmd(cmkit_u8 *buf, cmkit_size buflen,
			 cmkit_u16 imm_data_offset,
			 const struct cmkit_srp_cmd *cmd);

int cmkit_srp_decode_tsk_mgmt(const void *buf, cmkit_size len,
			      struct cmkit_srp_tsk_mgmt *out);

int cmkit_srp_encode_tsk_mgmt(cmkit_u8 *buf, cmkit_size buflen,
			      const struct cmkit_srp_tsk_mgmt *tm);

cmkit_u8 cmkit_srp_tsk_mgmt_rsp_code(cmkit_u8 func, int lun_exists);

void cmkit_srp_tsk_mgmt_rsp_data(cmkit_u8 *out, cmkit_u8 rsp_code);

int cmkit_srp_encode_rsp(cmkit_u8 *buf, cmkit_size buflen,
			 const struct cmkit_srp_rsp *rsp);

int cmkit_srp_decode_rsp(const void *buf, cmkit_size len,
			 struct cmkit_srp_rsp *out);

cmkit_u32 cmkit_srp_xfer_len(cmkit_u64 want, cmkit_u32 have);

void cmkit_srp_residual(struct cmkit_srp_rsp *rsp, cmkit_u64 in_want,
			cmkit_u32 in_have, cmkit_u64 out_want,
			cmkit_u32 out_have);

int cmkit_srp_encode_aer_req(cmkit_u8 *buf, cmkit_size buflen,
			     const struct cmkit_srp_aer_req *aer);

int cmkit_srp_decode_aer_req(const void *buf, cmkit_size len,
			     struct cmkit_srp_aer_req *out);

int cmkit_srp_encode_short_iu(cmkit_u8 *buf, cmkit_size buflen,
			      const struct cmkit_srp_short_iu *iu);

int cmkit_srp_decode_short_iu(const void *buf, cmkit_size len, cmkit_u8 opcode,
			      struct cmkit_srp_short_iu *out);

cmkit_u32 cmkit_srp_logout_reason(int err);

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_SRP_IU_H */
