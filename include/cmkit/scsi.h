/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * SCSI for one RAM disk at LUN 0 (SPC-4, SBC-3), as pure decisions: what a
 * target does with a CDB, without touching the disk.  cmkit_scsi_decide() reads
 * the CDB and answers with a plan: the status and sense, the direction and
 * length of the data, the byte offset on the disk for READ and WRITE, and
 * for the other data-in commands what cmkit_scsi_build() writes into the
 * caller's buffer.  The caller only copies to or from its RAM and moves the
 * bytes (RDMA).  Also here: fixed-format sense data and single-level LUNs.
 *
 * Covered: TEST UNIT READY, REQUEST SENSE, INQUIRY (standard data; VPD
 * pages 0x00, 0x80 unit serial number and 0x83 device identification with
 * a T10 vendor ID designator and, when the disk has one, an NAA designator),
 * MODE SENSE(6) and (10) (caching page 0x08, control page 0x0a, all pages
 * 0x3f; block descriptors unless DBD, long ones with LLBAA), START STOP
 * UNIT, READ CAPACITY(10) and (16), READ(10) and (16), WRITE(10) and (16),
 * SYNCHRONIZE CACHE(10) and (16), REPORT LUNS.  Allocation lengths
 * truncate; zero is no data, not an error.
 *
 * Refused, with CHECK CONDITION and ILLEGAL REQUEST: any other operation
 * code or service action (INVALID COMMAND OPERATION CODE, 0x20/0x00;
 * INVALID FIELD IN CDB, 0x24/0x00, for a service action); an LBA past the
 * last block or a range past the end (LOGICAL BLOCK ADDRESS OUT OF RANGE,
 * 0x21/0x00); protection information, CMDDT, descriptor-format sense, NACA
 * or LINK in the control byte, unknown pages (INVALID FIELD IN CDB); saved
 * mode pages (SAVING PARAMETERS NOT SUPPORTED, 0x39/0x00); any LUN but 0
 * (LOGICAL UNIT NOT SUPPORTED, 0x25/0x00) except for REPORT LUNS, for a
 * standard INQUIRY (peripheral qualifier 011b, device type 0x1f) and for
 * REQUEST SENSE (GOOD, with LOGICAL UNIT NOT SUPPORTED as its sense data).
 * DPO and FUA are ignored: RAM has no cache to bypass.  There is no unit
 * attention, no reservation, no ACA.
 *
 * Standard INQUIRY data, 36 bytes:
 *
 *   0  peripheral qualifier (7:5), device type (4:0)   1 RMB (7)
 *   2  version (0x06: SPC-4)   3 response data format (3:0) = 2
 *   4  additional length (n - 5)   5..6 flags   7 CMDQUE (bit 1)
 *   8  T10 vendor (8)   16 product (16)   32 revision (4)
 *
 * Fixed-format sense data, 18 bytes:
 *
 *   0  response code 0x70 (current)   2 sense key (3:0)
 *   3  information (4)   7 additional length (10)   8 command-specific (4)
 *  12  ASC   13 ASCQ   14 FRU code   15 sense-key specific (3)
 *
 * All multi-byte fields are big endian.  Nothing here reads or writes past
 * the lengths it is given, and nothing divides 64-bit numbers.
 */
#ifndef CMKIT_SCSI_H
#define CMKIT_SCSI_H

#include "types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Status. */
#define CMKIT_SCSI_STATUS_GOOD			0x00
#define CMKIT_SCSI_STATUS_CHECK_CONDITION	0x02

/* Sense keys. */
#define CMKIT_SCSI_SK_NO_SENSE			0x0
#define CMKIT_SCSI_SK_NOT_READY			0x2
#define CMKIT_SCSI_SK_MEDIUM_ERROR		0x3
#define CMKIT_SCSI_SK_ILLEGAL_REQUEST		0x5
#define CMKIT_SCSI_SK_UNIT_ATTENTION		0x6
#define CMKIT_SCSI_SK_ABORTED_COMMAND		0xb

/* Additional sense codes (the ASCQ is 0 unless said). */
#define CMKIT_SCSI_ASC_INVALID_FIELD_IN_IU	0x0e	/* ASCQ 0x03: in
							 * command IU */
#define CMKIT_SCSI_ASC_INVALID_OPCODE		0x20
#define CMKIT_SCSI_ASC_LBA_OUT_OF_RANGE		0x21
#define CMKIT_SCSI_ASC_INVALID_FIELD_IN_CDB	0x24
#define CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED	0x25
#define CMKIT_SCSI_ASC_SAVING_NOT_SUPPORTED	0x39

/* Operation codes. */
#define CMKIT_SCSI_TEST_UNIT_READY		0x00
#define CMKIT_SCSI_REQUEST_SENSE		0x03
#define CMKIT_SCSI_INQUIRY			0x12
#define CMKIT_SCSI_MODE_SENSE_6			0x1a
#define CMKIT_SCSI_START_STOP_UNIT		0x1b
#define CMKIT_SCSI_READ_CAPACITY_10		0x25
#define CMKIT_SCSI_READ_10			0x28
#define CMKIT_SCSI_WRITE_10			0x2a
#define CMKIT_SCSI_SYNCHRONIZE_CACHE_10		0x35
#define CMKIT_SCSI_MODE_SENSE_10		0x5a
#define CMKIT_SCSI_READ_16			0x88
#define CMKIT_SCSI_WRITE_16			0x8a
#define CMKIT_SCSI_SYNCHRONIZE_CACHE_16		0x91
#define CMKIT_SCSI_SERVICE_ACTION_IN_16		0x9e
#define CMKIT_SCSI_SAI_READ_CAPACITY_16		0x10
#define CMKIT_SCSI_REPORT_LUNS			0xa0

/* VPD and mode pages. */
#define CMKIT_SCSI_VPD_SUPPORTED		0x00
#define CMKIT_SCSI_VPD_SERIAL			0x80
#define CMKIT_SCSI_VPD_DEVICE_ID		0x83
#define CMKIT_SCSI_MODE_CACHING			0x08
#define CMKIT_SCSI_MODE_CONTROL			0x0a
#define CMKIT_SCSI_MODE_ALL			0x3f

/* Control byte bits the target refuses. */
#define CMKIT_SCSI_CONTROL_NACA			0x04
#define CMKIT_SCSI_CONTROL_LINK			0x01

/* Sizes. */
#define CMKIT_SCSI_SENSE_LEN			18
#define CMKIT_SCSI_INQUIRY_LEN			36
#define CMKIT_SCSI_VENDOR_LEN			8
#define CMKIT_SCSI_PRODUCT_LEN			16
#define CMKIT_SCSI_REVISION_LEN			4
#define CMKIT_SCSI_SERIAL_MAX			32
#define CMKIT_SCSI_READ_CAPACITY_10_LEN		8
#define CMKIT_SCSI_READ_CAPACITY_16_LEN		32
#define CMKIT_SCSI_LUN_MAX			0x3fff

/* Errors of the functions below; all are negative. */
enum cmkit_scsi_err {
	CMKIT_SCSI_E_ARG = -1,		/* NULL where something is needed */
	CMKIT_SCSI_E_DISK = -2,		/* the disk description is invalid */
	CMKIT_SCSI_E_LUN = -3,		/* not a single-level LUN */
};

/**
 * enum cmkit_scsi_dir - which way a command moves data
 * @CMKIT_SCSI_DIR_NONE: no data
 * @CMKIT_SCSI_DIR_IN: to the initiator (data-in)
 * @CMKIT_SCSI_DIR_OUT: from the initiator (data-out)
 */
enum cmkit_scsi_dir {
	CMKIT_SCSI_DIR_NONE,
	CMKIT_SCSI_DIR_IN,
	CMKIT_SCSI_DIR_OUT,
};

/**
 * enum cmkit_scsi_payload - what the data of a plan is
 * @CMKIT_SCSI_PAYLOAD_NONE: nothing
 * @CMKIT_SCSI_PAYLOAD_DISK: the disk's bytes at the plan's offset: READ
 *	sends them, WRITE replaces them (the caller copies)
 * @CMKIT_SCSI_PAYLOAD_INQUIRY: standard INQUIRY data
 * @CMKIT_SCSI_PAYLOAD_VPD: the VPD page in the plan's @page
 * @CMKIT_SCSI_PAYLOAD_REPORT_LUNS: the LUN list
 * @CMKIT_SCSI_PAYLOAD_READ_CAPACITY_10: its 8 bytes
 * @CMKIT_SCSI_PAYLOAD_READ_CAPACITY_16: its 32 bytes
 * @CMKIT_SCSI_PAYLOAD_MODE_SENSE: header, block descriptor, pages
 * @CMKIT_SCSI_PAYLOAD_REQUEST_SENSE: fixed-format sense data
 *
 * All but NONE and DISK are written by cmkit_scsi_build().
 */
enum cmkit_scsi_payload {
	CMKIT_SCSI_PAYLOAD_NONE,
	CMKIT_SCSI_PAYLOAD_DISK,
	CMKIT_SCSI_PAYLOAD_INQUIRY,
	CMKIT_SCSI_PAYLOAD_VPD,
	CMKIT_SCSI_PAYLOAD_REPORT_LUNS,
	CMKIT_SCSI_PAYLOAD_READ_CAPACITY_10,
	CMKIT_SCSI_PAYLOAD_READ_CAPACITY_16,
	CMKIT_SCSI_PAYLOAD_MODE_SENSE,
	CMKIT_SCSI_PAYLOAD_REQUEST_SENSE,
};

/**
 * struct cmkit_scsi_disk - the RAM disk behind LUN 0
 * @nblocks: number of logical blocks, at least 1
 * @block_size: bytes per block: a power of two from 512 to 65536
 * @vendor: T10 vendor identification, up to 8 ASCII characters, or NULL
 * @product: product identification, up to 16, or NULL
 * @revision: product revision level, up to 4, or NULL
 * @serial: unit serial number, up to CMKIT_SCSI_SERIAL_MAX, or NULL
 * @naa_id: 0, or the 60 low bits of an NAA 3 (locally assigned) identifier
 *	that VPD page 0x83 reports besides the T10 vendor ID one
 *
 * Strings end at a NUL or at their maximum, whichever comes first; bytes
 * outside printable ASCII are sent as spaces.  @nblocks * @block_size must
 * fit in 64 bits.
 */
struct cmkit_scsi_disk {
	cmkit_u64 nblocks;
	cmkit_u32 block_size;
	const char *vendor;
	const char *product;
	const char *revision;
	const char *serial;
	cmkit_u64 naa_id;
};

/**
 * struct cmkit_scsi_plan - what a target does with one CDB
 * @status: CMKIT_SCSI_STATUS_GOOD or _CHECK_CONDITION
 * @sense_key: CHECK CONDITION: the sense key (build the sense data with
 *	cmkit_scsi_build_sense())
 * @asc: CHECK CONDITION: additional sense code
 * @ascq: CHECK CONDITION: its qualifier
 * @opcode: the CDB's operation code
 * @dir: the direction of the data; NONE when CHECK CONDITION
 * @payload: what the data is
 * @xfer_len: bytes the command moves: the blocks' bytes for READ and WRITE,
 *	else the payload's length truncated to the allocation length
 * @offset: READ and WRITE: byte offset on the disk
 * @page: VPD page or mode page code (for cmkit_scsi_build())
 * @subpage: mode subpage
 * @pc: mode page control: 0 current, 1 changeable, 2 default
 * @mode_flags: CMKIT_SCSI_MODE_F_*
 * @lun_present: the CDB's LUN is 0
 * @select: REPORT LUNS: the SELECT REPORT field
 */
struct cmkit_scsi_plan {
	cmkit_u8 status;
	cmkit_u8 sense_key;
	cmkit_u8 asc;
	cmkit_u8 ascq;
	cmkit_u8 opcode;
	enum cmkit_scsi_dir dir;
	enum cmkit_scsi_payload payload;
	cmkit_u64 xfer_len;
	cmkit_u64 offset;
	cmkit_u8 page;
	cmkit_u8 subpage;
	cmkit_u8 pc;
	cmkit_u8 mode_flags;
	cmkit_u8 lun_present;
	cmkit_u8 select;
};

#define CMKIT_SCSI_MODE_F_TEN		0x01	/* MODE SENSE(10) */
#define CMKIT_SCSI_MODE_F_DBD		0x02	/* no block descriptors */
#define CMKIT_SCSI_MODE_F_LLBAA		0x04	/* long LBA descriptors */

/**
 * cmkit_scsi_lun_encode - the eight LUN bytes of a single-level LUN
 * @lun: 0..CMKIT_SCSI_LUN_MAX
 * @raw: the eight bytes as a big-endian number: peripheral device
 *	addressing (bus 0) below 256, flat space addressing above, as Linux
 *	int_to_scsilun() lays them out
 *
 * Return: 0, or CMKIT_SCSI_E_LUN for a LUN above CMKIT_SCSI_LUN_MAX (then
 * @raw is untouched).
 */
static inline int cmkit_scsi_lun_encode(cmkit_u32 lun, cmkit_u64 *raw)
{
	if (lun > CMKIT_SCSI_LUN_MAX)
		return CMKIT_SCSI_E_LUN;
	if (lun < 256)
		*raw = (cmkit_u64)lun << 48;
	else
		*raw = (cmkit_u64)(0x4000 | lun) << 48;
	return 0;
}

/**
 * cmkit_scsi_lun_decode - the LUN of eight single-level LUN bytes
 * @raw: the eight bytes as a big-endian number
 * @lun: the LUN
 *
 * Accepted: peripheral device addressing with bus 0, and flat space
 * addressing, with the second to fourth levels all zero.
 *
 * Return: 0, or CMKIT_SCSI_E_LUN (then @lun is untouched).
 */
static inline int cmkit_scsi_lun_decode(cmkit_u64 raw, cmkit_u32 *lun)
{
	cmkit_u32 first = (cmkit_u32)(raw >> 48);

	if (raw & 0x0000ffffffffffffULL)
		return CMKIT_SCSI_E_LUN;
	switch (first >> 14) {
	case 0:		/* peripheral device addressing */
		if (first >> 8)
			return CMKIT_SCSI_E_LUN;	/* a bus other than 0 */
		*lun = first;
		return 0;
	case 1:		/* flat space addressing */
		*lun = first & CMKIT_SCSI_LUN_MAX;
		return 0;
	}
	return CMKIT_SCSI_E_LUN;
}

/**
 * cmkit_scsi_build_sense - write fixed-format sense data
 * @buf: output buffer, or NULL
 * @len: its size; the sense data is truncated to it
 * @key: sense key
 * @asc: additional sense code
 * @ascq: its qualifier
 *
 * Current error, no information, no sense-key specific data.
 *
 * Return: the bytes written, at most CMKIT_SCSI_SENSE_LEN.
 */
static inline cmkit_size cmkit_scsi_build_sense(cmkit_u8 *buf, cmkit_size len,
						cmkit_u8 key, cmkit_u8 asc,
						cmkit_u8 ascq)
{
	cmkit_u8 s[CMKIT_SCSI_SENSE_LEN] = { 0 };

	if (!buf)
		return 0;
	s[0] = 0x70;
	s[2] = key & 0x0f;
	s[7] = CMKIT_SCSI_SENSE_LEN - 8;
	s[12] = asc;
	s[13] = ascq;
	if (len > CMKIT_SCSI_SENSE_LEN)
		len = CMKIT_SCSI_SENSE_LEN;
	cmkit_copy(buf, s, len);
	return len;
}

/*
 * A payload writer that counts every byte but stores only the first @cap:
 * truncation to an allocation length, and a dry run with @cap 0 that
 * measures the full length.
 */
struct cmkit_scsi_out {
	cmkit_u8 *buf;
	cmkit_size cap;
	cmkit_size pos;
};

static inline void cmkit_scsi_put(struct cmkit_scsi_out *o, cmkit_u8 v)
{
	if (o->pos < o->cap)
		o->buf[o->pos] = v;
	o->pos++;
}

static inline void cmkit_scsi_put_be(struct cmkit_scsi_out *o, cmkit_u64 v,
				     unsigned int bytes)
{
	while (bytes--)
		cmkit_scsi_put(o, (cmkit_u8)(v >> (8 * bytes)));
}

static inline void cmkit_scsi_put_zero(struct cmkit_scsi_out *o, cmkit_size n)
{
	while (n--)
		cmkit_scsi_put(o, 0);
}

/* Overwrite the byte at @at if it was stored. */
static inline void cmkit_scsi_patch(struct cmkit_scsi_out *o, cmkit_size at,
				    cmkit_u8 v)
{
	if (at < o->cap && at < o->pos)
		o->buf[at] = v;
}

/* Length of @s, at most @max (no libc). */
static inline cmkit_size cmkit_scsi_strnlen(const char *s, cmkit_size max)
{
	cmkit_size n = 0;

	while (s && n < max && s[n])
		n++;
	return n;
}

/* @s as printable ASCII, space-padded to @n when @pad. */
static inline void cmkit_scsi_put_str(struct cmkit_scsi_out *o, const char *s,
				      cmkit_size n, int pad)
{
	cmkit_size len = cmkit_scsi_strnlen(s, n), i;
	cmkit_u8 c;

	for (i = 0; i < len; i++) {
		c = (cmkit_u8)s[i];
		cmkit_scsi_put(o, c >= 0x20 && c <= 0x7e ? c : ' ');
	}
	for (; pad && i < n; i++)
		cmkit_scsi_put(o, ' ');
}

/* log2 of a valid block size. */
static inline unsigned int cmkit_scsi_block_shift(const struct cmkit_scsi_disk *d)
{
	unsigned int shift = 0;

	while (shift < 31 && (1U << shift) < d->block_size)
		shift++;
	return shift;
}

/**
 * cmkit_scsi_disk_ok - whether a disk description is usable
 * @d: the disk
 *
 * Return: 1 if it has at least one block, a block size that is a power of
 * two from 512 to 65536, and a byte size that fits in 64 bits; else 0.
 */
static inline int cmkit_scsi_disk_ok(const struct cmkit_scsi_disk *d)
{
	unsigned int shift;

	if (!d || !d->nblocks || d->block_size < 512 ||
	    d->block_size > 65536 || (d->block_size & (d->block_size - 1)))
		return 0;
	shift = cmkit_scsi_block_shift(d);
	return !(d->nblocks >> (64 - shift));
}

static inline void cmkit_scsi_emit_inquiry(const struct cmkit_scsi_plan *p,
					   const struct cmkit_scsi_disk *d,
					   struct cmkit_scsi_out *o)
{
	cmkit_scsi_put(o, p->lun_present ? 0x00 : 0x7f);
	cmkit_scsi_put(o, 0);		/* not removable */
	cmkit_scsi_put(o, 0x06);	/* SPC-4 */
	cmkit_scsi_put(o, 0x02);	/* response data format 2 */
	cmkit_scsi_put(o, CMKIT_SCSI_INQUIRY_LEN - 5);
	cmkit_scsi_put(o, 0);
	cmkit_scsi_put(o, 0);
	cmkit_scsi_put(o, 0x02);	/* CMDQUE */
	cmkit_scsi_put_str(o, d->vendor, CMKIT_SCSI_VENDOR_LEN, 1);
	cmkit_scsi_put_str(o, d->product, CMKIT_SCSI_PRODUCT_LEN, 1);
	cmkit_scsi_put_str(o, d->revision, CMKIT_SCSI_REVISION_LEN, 1);
}

static inline void cmkit_scsi_emit_vpd(const struct cmkit_scsi_plan *p,
				       const struct cmkit_scsi_disk *d,
				       struct cmkit_scsi_out *o)
{
	cmkit_size serial = cmkit_scsi_strnlen(d->serial, CMKIT_SCSI_SERIAL_MAX);
	cmkit_size len = 0;

	switch (p->page) {
	case CMKIT_SCSI_VPD_SUPPORTED:
		len = 3;
		break;
	case CMKIT_SCSI_VPD_SERIAL:
		len = serial;
		break;
	case CMKIT_SCSI_VPD_DEVICE_ID:
		len = 4 + CMKIT_SCSI_VENDOR_LEN + serial;
		if (d->naa_id)
			len += 4 + 8;
		break;
	}
	cmkit_scsi_put(o, 0x00);	/* connected, direct access block */
	cmkit_scsi_put(o, p->page);
	cmkit_scsi_put_be(o, len, 2);
	switch (p->page) {
	case CMKIT_SCSI_VPD_SUPPORTED:
		cmkit_scsi_put(o, CMKIT_SCSI_VPD_SUPPORTED);
		cmkit_scsi_put(o, CMKIT_SCSI_VPD_SERIAL);
		cmkit_scsi_put(o, CMKIT_SCSI_VPD_DEVICE_ID);
		break;
	case CMKIT_SCSI_VPD_SERIAL:
		cmkit_scsi_put_str(o, d->serial, serial, 0);
		break;
	case CMKIT_SCSI_VPD_DEVICE_ID:
		/* T10 vendor ID: ASCII, logical unit, type 1. */
		cmkit_scsi_put(o, 0x02);
		cmkit_scsi_put(o, 0x01);
		cmkit_scsi_put(o, 0);
		cmkit_scsi_put(o, (cmkit_u8)(CMKIT_SCSI_VENDOR_LEN + serial));
		cmkit_scsi_put_str(o, d->vendor, CMKIT_SCSI_VENDOR_LEN, 1);
		cmkit_scsi_put_str(o, d->serial, serial, 0);
		if (!d->naa_id)
			break;
		/* NAA: binary, logical unit, type 3; NAA 3, locally assigned. */
		cmkit_scsi_put(o, 0x01);
		cmkit_scsi_put(o, 0x03);
		cmkit_scsi_put(o, 0);
		cmkit_scsi_put(o, 8);
		cmkit_scsi_put_be(o, (0x3ULL << 60) |
				  (d->naa_id & 0x0fffffffffffffffULL), 8);
		break;
	}
}

static inline void cmkit_scsi_emit_mode(const struct cmkit_scsi_plan *p,
					const struct cmkit_scsi_disk *d,
					struct cmkit_scsi_out *o)
{
	int ten = p->mode_flags & CMKIT_SCSI_MODE_F_TEN;
	int chg = p->pc == 1;	/* changeable: no field is */
	cmkit_size bd = 0, start = o->pos, total;

	if (!(p->mode_flags & CMKIT_SCSI_MODE_F_DBD))
		bd = p->mode_flags & CMKIT_SCSI_MODE_F_LLBAA ? 16 : 8;
	/* Header; the mode data length is patched in at the end. */
	if (ten) {
		cmkit_scsi_put_zero(o, 2);
		cmkit_scsi_put(o, 0);	/* medium type */
		cmkit_scsi_put(o, 0);	/* not write protected, no DPOFUA */
		cmkit_scsi_put(o, bd == 16 ? 0x01 : 0x00);	/* LONGLBA */
		cmkit_scsi_put(o, 0);
		cmkit_scsi_put_be(o, bd, 2);
	} else {
		cmkit_scsi_put(o, 0);
		cmkit_scsi_put(o, 0);
		cmkit_scsi_put(o, 0);
		cmkit_scsi_put(o, (cmkit_u8)bd);
	}
	if (bd == 8) {
		cmkit_scsi_put_be(o, d->nblocks > 0xffffffffULL ?
				  0xffffffffULL : d->nblocks, 4);
		cmkit_scsi_put(o, 0);
		cmkit_scsi_put_be(o, d->block_size, 3);
	} else if (bd == 16) {
		cmkit_scsi_put_be(o, d->nblocks, 8);
		cmkit_scsi_put_zero(o, 4);
		cmkit_scsi_put_be(o, d->block_size, 4);
	}
	if (p->page == CMKIT_SCSI_MODE_CACHING || p->page == CMKIT_SCSI_MODE_ALL) {
		/* No volatile cache: WCE 0, RCD 0; nothing else set. */
		cmkit_scsi_put(o, CMKIT_SCSI_MODE_CACHING);
		cmkit_scsi_put(o, 0x12);
		cmkit_scsi_put_zero(o, 0x12);
	}
	if (p->page == CMKIT_SCSI_MODE_CONTROL || p->page == CMKIT_SCSI_MODE_ALL) {
		cmkit_scsi_put(o, CMKIT_SCSI_MODE_CONTROL);
		cmkit_scsi_put(o, 0x0a);
		cmkit_scsi_put(o, chg ? 0 : 0x02);	/* GLTSD: no saved logs */
		cmkit_scsi_put_zero(o, 5);	/* restricted reordering, QERR 0 */
		cmkit_scsi_put_be(o, chg ? 0 : 0xffff, 2);	/* busy timeout */
		cmkit_scsi_put_zero(o, 2);
	}
	total = o->pos - start;
	if (ten) {
		cmkit_scsi_patch(o, start, (cmkit_u8)((total - 2) >> 8));
		cmkit_scsi_patch(o, start + 1, (cmkit_u8)(total - 2));
	} else {
		cmkit_scsi_patch(o, start, (cmkit_u8)(total - 1));
	}
}

/* Write @p's payload through @o (nothing for NONE and DISK). */
static inline void cmkit_scsi_emit(const struct cmkit_scsi_plan *p,
				   const struct cmkit_scsi_disk *d,
				   struct cmkit_scsi_out *o)
{
	cmkit_u64 last = d->nblocks - 1;
	cmkit_u8 sense[CMKIT_SCSI_SENSE_LEN];
	cmkit_size i;

	switch (p->payload) {
	case CMKIT_SCSI_PAYLOAD_NONE:
	case CMKIT_SCSI_PAYLOAD_DISK:
		break;
	case CMKIT_SCSI_PAYLOAD_INQUIRY:
		cmkit_scsi_emit_inquiry(p, d, o);
		break;
	case CMKIT_SCSI_PAYLOAD_VPD:
		cmkit_scsi_emit_vpd(p, d, o);
		break;
	case CMKIT_SCSI_PAYLOAD_REPORT_LUNS:
		/* SELECT REPORT 1: well-known LUs only; there are none. */
		cmkit_scsi_put_be(o, p->select == 1 ? 0 : 8, 4);
		cmkit_scsi_put_zero(o, 4);
		if (p->select != 1)
			cmkit_scsi_put_zero(o, 8);	/* LUN 0 */
		break;
	case CMKIT_SCSI_PAYLOAD_READ_CAPACITY_10:
		cmkit_scsi_put_be(o, last > 0xfffffffeULL ? 0xffffffffULL : last, 4);
		cmkit_scsi_put_be(o, d->block_size, 4);
		break;
	case CMKIT_SCSI_PAYLOAD_READ_CAPACITY_16:
		cmkit_scsi_put_be(o, last, 8);
		cmkit_scsi_put_be(o, d->block_size, 4);
		/* No protection, one logical block per physical, no LBP. */
		cmkit_scsi_put_zero(o, 20);
		break;
	case CMKIT_SCSI_PAYLOAD_MODE_SENSE:
		cmkit_scsi_emit_mode(p, d, o);
		break;
	case CMKIT_SCSI_PAYLOAD_REQUEST_SENSE:
		if (p->lun_present)
			cmkit_scsi_build_sense(sense, sizeof(sense),
					       CMKIT_SCSI_SK_NO_SENSE, 0, 0);
		else
			cmkit_scsi_build_sense(sense, sizeof(sense),
					       CMKIT_SCSI_SK_ILLEGAL_REQUEST,
					       CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED, 0);
		for (i = 0; i < sizeof(sense); i++)
			cmkit_scsi_put(o, sense[i]);
		break;
	}
}

/**
 * cmkit_scsi_build - write a plan's data-in payload
 * @plan: a GOOD plan from cmkit_scsi_decide()
 * @disk: the disk the plan was made for
 * @buf: output buffer, or NULL
 * @len: its size
 *
 * Writes the first min(@len, @plan->xfer_len) bytes of the payload.  For
 * CMKIT_SCSI_PAYLOAD_DISK and _NONE it writes nothing: READ data is the
 * caller's copy of its RAM at @plan->offset.
 *
 * Return: the bytes written.
 */
static inline cmkit_size cmkit_scsi_build(const struct cmkit_scsi_plan *plan,
					  const struct cmkit_scsi_disk *disk,
					  void *buf, cmkit_size len)
{
	struct cmkit_scsi_out o = { (cmkit_u8 *)buf, 0, 0 };

	if (!buf || !plan || !cmkit_scsi_disk_ok(disk) ||
	    plan->status != CMKIT_SCSI_STATUS_GOOD ||
	    plan->dir != CMKIT_SCSI_DIR_IN)
		return 0;
	o.cap = len < plan->xfer_len ? len : (cmkit_size)plan->xfer_len;
	cmkit_scsi_emit(plan, disk, &o);
	return o.pos < o.cap ? o.pos : o.cap;
}

/* End @p with CHECK CONDITION and the given sense. */
static inline void cmkit_scsi_fail(struct cmkit_scsi_plan *p, cmkit_u8 key,
				   cmkit_u8 asc, cmkit_u8 ascq)
{
	p->status = CMKIT_SCSI_STATUS_CHECK_CONDITION;
	p->sense_key = key;
	p->asc = asc;
	p->ascq = ascq;
	p->dir = CMKIT_SCSI_DIR_NONE;
	p->payload = CMKIT_SCSI_PAYLOAD_NONE;
	p->xfer_len = 0;
	p->offset = 0;
}

static inline void cmkit_scsi_invalid_field(struct cmkit_scsi_plan *p)
{
	cmkit_scsi_fail(p, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			CMKIT_SCSI_ASC_INVALID_FIELD_IN_CDB, 0);
}

/* A data-in plan of @payload, truncated to @alloc. */
static inline void cmkit_scsi_data_in(struct cmkit_scsi_plan *p,
				      const struct cmkit_scsi_disk *d,
				      enum cmkit_scsi_payload payload,
				      cmkit_u32 alloc)
{
	struct cmkit_scsi_out dry = { (cmkit_u8 *)0, 0, 0 };

	p->dir = CMKIT_SCSI_DIR_IN;
	p->payload = payload;
	cmkit_scsi_emit(p, d, &dry);
	p->xfer_len = alloc < dry.pos ? alloc : dry.pos;
}

/*
 * The blocks [@lba, @lba + @n) must lie on the disk; with @n 0, @lba must
 * still name a block.  No sum can wrap.
 */
static inline int cmkit_scsi_range_ok(const struct cmkit_scsi_disk *d,
				      cmkit_u64 lba, cmkit_u64 n)
{
	return lba < d->nblocks && n <= d->nblocks - lba;
}

/*
 * LBA and block count of READ, WRITE and SYNCHRONIZE CACHE: bytes 2..5 and
 * 7..8 of the 10-byte CDBs, 2..9 and 10..13 of the 16-byte ones (group 4).
 */
static inline void cmkit_scsi_lba_len(const cmkit_u8 *cdb, cmkit_u64 *lba,
				      cmkit_u64 *n)
{
	if (cdb[0] >> 5 == 4) {
		*lba = cmkit_get_be64(cdb + 2);
		*n = cmkit_get_be32(cdb + 10);
	} else {
		*lba = cmkit_get_be32(cdb + 2);
		*n = cmkit_get_be16(cdb + 7);
	}
}

/* READ or WRITE of @n blocks at @lba; @protect is RDPROTECT or WRPROTECT. */
static inline void cmkit_scsi_rw(struct cmkit_scsi_plan *p,
				 const struct cmkit_scsi_disk *d,
				 enum cmkit_scsi_dir dir, cmkit_u8 protect,
				 cmkit_u64 lba, cmkit_u64 n)
{
	unsigned int shift = cmkit_scsi_block_shift(d);

	if (protect) {
		cmkit_scsi_invalid_field(p);	/* no protection information */
		return;
	}
	if (!cmkit_scsi_range_ok(d, lba, n)) {
		cmkit_scsi_fail(p, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				CMKIT_SCSI_ASC_LBA_OUT_OF_RANGE, 0);
		return;
	}
	p->dir = dir;
	p->payload = CMKIT_SCSI_PAYLOAD_DISK;
	p->offset = lba << shift;
	p->xfer_len = n << shift;
}

static inline void cmkit_scsi_mode_sense(struct cmkit_scsi_plan *p,
					 const struct cmkit_scsi_disk *d,
					 const cmkit_u8 *cdb, int ten)
{
	cmkit_u8 page = cdb[2] & 0x3f;

	p->pc = cdb[2] >> 6;
	p->page = page;
	p->subpage = cdb[3];
	p->mode_flags = ten ? CMKIT_SCSI_MODE_F_TEN : 0;
	if (cdb[1] & 0x08)
		p->mode_flags |= CMKIT_SCSI_MODE_F_DBD;
	if (ten && (cdb[1] & 0x10))
		p->mode_flags |= CMKIT_SCSI_MODE_F_LLBAA;
	if (p->pc == 3) {
		cmkit_scsi_fail(p, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				CMKIT_SCSI_ASC_SAVING_NOT_SUPPORTED, 0);
		return;
	}
	if ((page != CMKIT_SCSI_MODE_CACHING && page != CMKIT_SCSI_MODE_CONTROL &&
	     page != CMKIT_SCSI_MODE_ALL) ||
	    (p->subpage != 0x00 && p->subpage != 0xff)) {
		cmkit_scsi_invalid_field(p);
		return;
	}
	cmkit_scsi_data_in(p, d, CMKIT_SCSI_PAYLOAD_MODE_SENSE,
			   ten ? cmkit_get_be16(cdb + 7) : cdb[4]);
}

static inline void cmkit_scsi_inquiry(struct cmkit_scsi_plan *p,
				      const struct cmkit_scsi_disk *d,
				      const cmkit_u8 *cdb)
{
	int evpd = cdb[1] & 0x01;

	p->page = cdb[2];
	if ((cdb[1] & 0x02) || (!evpd && p->page)) {	/* CMDDT, or a page */
		cmkit_scsi_invalid_field(p);
		return;
	}
	if (!evpd) {
		cmkit_scsi_data_in(p, d, CMKIT_SCSI_PAYLOAD_INQUIRY,
				   cmkit_get_be16(cdb + 3));
		return;
	}
	if (!p->lun_present) {
		cmkit_scsi_fail(p, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED, 0);
		return;
	}
	if (p->page != CMKIT_SCSI_VPD_SUPPORTED && p->page != CMKIT_SCSI_VPD_SERIAL &&
	    p->page != CMKIT_SCSI_VPD_DEVICE_ID) {
		cmkit_scsi_invalid_field(p);
		return;
	}
	cmkit_scsi_data_in(p, d, CMKIT_SCSI_PAYLOAD_VPD, cmkit_get_be16(cdb + 3));
}

/* CDB length of each operation code served; 0 for the others. */
static inline cmkit_size cmkit_scsi_cdb_len(cmkit_u8 opcode)
{
	switch (opcode) {
	case CMKIT_SCSI_TEST_UNIT_READY:
	case CMKIT_SCSI_REQUEST_SENSE:
	case CMKIT_SCSI_INQUIRY:
	case CMKIT_SCSI_MODE_SENSE_6:
	case CMKIT_SCSI_START_STOP_UNIT:
		return 6;
	case CMKIT_SCSI_READ_CAPACITY_10:
	case CMKIT_SCSI_READ_10:
	case CMKIT_SCSI_WRITE_10:
	case CMKIT_SCSI_SYNCHRONIZE_CACHE_10:
	case CMKIT_SCSI_MODE_SENSE_10:
		return 10;
	case CMKIT_SCSI_REPORT_LUNS:
		return 12;
	case CMKIT_SCSI_READ_16:
	case CMKIT_SCSI_WRITE_16:
	case CMKIT_SCSI_SYNCHRONIZE_CACHE_16:
	case CMKIT_SCSI_SERVICE_ACTION_IN_16:
		return 16;
	}
	return 0;
}

/**
 * cmkit_scsi_decide - decide what a target does with a CDB
 * @cdb: the CDB, or NULL when @cdb_len is 0
 * @cdb_len: its length (SRP gives 16 or more); nothing past it is read
 * @lun: the eight LUN bytes of the command as a big-endian number
 * @disk: the disk behind LUN 0
 * @plan: the decision
 *
 * Checked in this order: the LUN (another LUN than 0 gets LOGICAL UNIT NOT
 * SUPPORTED, except for INQUIRY, REPORT LUNS and REQUEST SENSE), the
 * operation code (and its service action), the CDB's length, the control
 * byte, then the command's own fields.
 *
 * Return: 0 with @plan filled in, whether GOOD or CHECK CONDITION;
 * CMKIT_SCSI_E_ARG or CMKIT_SCSI_E_DISK for arguments no CDB can make right.
 */
static inline int cmkit_scsi_decide(const cmkit_u8 *cdb, cmkit_size cdb_len,
				  cmkit_u64 lun,
				  const struct cmkit_scsi_disk *disk,
				  struct cmkit_scsi_plan *plan)
{
	cmkit_u32 lun_nr = 1;
	cmkit_u64 lba, n;
	cmkit_size need;
	cmkit_u8 op;

	if (!plan || (!cdb && cdb_len))
		return CMKIT_SCSI_E_ARG;
	if (!cmkit_scsi_disk_ok(disk))
		return CMKIT_SCSI_E_DISK;
	cmkit_zero(plan, sizeof(*plan));
	plan->dir = CMKIT_SCSI_DIR_NONE;
	plan->payload = CMKIT_SCSI_PAYLOAD_NONE;
	if (!cdb_len) {
		cmkit_scsi_fail(plan, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				CMKIT_SCSI_ASC_INVALID_OPCODE, 0);
		return 0;
	}
	op = cdb[0];
	plan->opcode = op;
	plan->lun_present = !cmkit_scsi_lun_decode(lun, &lun_nr) && lun_nr == 0;
	if (!plan->lun_present && op != CMKIT_SCSI_INQUIRY &&
	    op != CMKIT_SCSI_REPORT_LUNS && op != CMKIT_SCSI_REQUEST_SENSE) {
		cmkit_scsi_fail(plan, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED, 0);
		return 0;
	}
	need = cmkit_scsi_cdb_len(op);
	if (!need) {
		cmkit_scsi_fail(plan, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				CMKIT_SCSI_ASC_INVALID_OPCODE, 0);
		return 0;
	}
	if (cdb_len < need ||
	    (cdb[need - 1] & (CMKIT_SCSI_CONTROL_NACA | CMKIT_SCSI_CONTROL_LINK))) {
		cmkit_scsi_invalid_field(plan);
		return 0;
	}

	switch (op) {
	case CMKIT_SCSI_TEST_UNIT_READY:
	case CMKIT_SCSI_START_STOP_UNIT:
		break;
	case CMKIT_SCSI_REQUEST_SENSE:
		if (cdb[1] & 0x01)	/* DESC: descriptor format unsupported */
			cmkit_scsi_invalid_field(plan);
		else
			cmkit_scsi_data_in(plan, disk,
					   CMKIT_SCSI_PAYLOAD_REQUEST_SENSE, cdb[4]);
		break;
	case CMKIT_SCSI_INQUIRY:
		cmkit_scsi_inquiry(plan, disk, cdb);
		break;
	case CMKIT_SCSI_REPORT_LUNS:
		plan->select = cdb[2];
		if (plan->select > 2)
			cmkit_scsi_invalid_field(plan);
		else
			cmkit_scsi_data_in(plan, disk, CMKIT_SCSI_PAYLOAD_REPORT_LUNS,
					   cmkit_get_be32(cdb + 6));
		break;
	case CMKIT_SCSI_MODE_SENSE_6:
		cmkit_scsi_mode_sense(plan, disk, cdb, 0);
		break;
	case CMKIT_SCSI_MODE_SENSE_10:
		cmkit_scsi_mode_sense(plan, disk, cdb, 1);
		break;
	case CMKIT_SCSI_READ_CAPACITY_10:
		/* Without PMI the LBA field must be zero. */
		if (!(cdb[8] & 0x01) && cmkit_get_be32(cdb + 2))
			cmkit_scsi_invalid_field(plan);
		else
			cmkit_scsi_data_in(plan, disk,
					   CMKIT_SCSI_PAYLOAD_READ_CAPACITY_10,
					   CMKIT_SCSI_READ_CAPACITY_10_LEN);
		break;
	case CMKIT_SCSI_SERVICE_ACTION_IN_16:
		if ((cdb[1] & 0x1f) != CMKIT_SCSI_SAI_READ_CAPACITY_16 ||
		    (!(cdb[14] & 0x01) && cmkit_get_be64(cdb + 2)))
			cmkit_scsi_invalid_field(plan);
		else
			cmkit_scsi_data_in(plan, disk,
					   CMKIT_SCSI_PAYLOAD_READ_CAPACITY_16,
					   cmkit_get_be32(cdb + 10));
		break;
	case CMKIT_SCSI_READ_10:
	case CMKIT_SCSI_WRITE_10:
	case CMKIT_SCSI_READ_16:
	case CMKIT_SCSI_WRITE_16:
		cmkit_scsi_lba_len(cdb, &lba, &n);
		cmkit_scsi_rw(plan, disk, op == CMKIT_SCSI_READ_10 ||
			      op == CMKIT_SCSI_READ_16 ? CMKIT_SCSI_DIR_IN :
			      CMKIT_SCSI_DIR_OUT, cdb[1] >> 5, lba, n);
		break;
	case CMKIT_SCSI_SYNCHRONIZE_CACHE_10:
	case CMKIT_SCSI_SYNCHRONIZE_CACHE_16:
		/* Nothing to flush; the range is still checked (0: to the end). */
		cmkit_scsi_lba_len(cdb, &lba, &n);
		if (!cmkit_scsi_range_ok(disk, lba, n))
			cmkit_scsi_fail(plan, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
					CMKIT_SCSI_ASC_LBA_OUT_OF_RANGE, 0);
		break;
	}
	return 0;
}

/**
 * cmkit_scsi_check_data_out - hold a WRITE to the initiator's buffer size
 * @plan: a plan from cmkit_scsi_decide()
 * @have: bytes of the initiator's data-out buffer
 *
 * A WRITE whose data-out buffer is not exactly its blocks' bytes would
 * write part of a block or leave blocks stale: like Linux's target core,
 * refuse it with INVALID FIELD IN CDB rather than write some of it.  Other
 * plans are left alone (their residuals say what moved).
 *
 * Return: 1 if @plan still moves data-out, else 0.
 */
static inline int cmkit_scsi_check_data_out(struct cmkit_scsi_plan *plan,
					    cmkit_u64 have)
{
	if (plan->status != CMKIT_SCSI_STATUS_GOOD ||
	    plan->dir != CMKIT_SCSI_DIR_OUT)
		return 0;
	if (plan->payload == CMKIT_SCSI_PAYLOAD_DISK && have != plan->xfer_len) {
		cmkit_scsi_invalid_field(plan);
		return 0;
	}
	return 1;
}

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_SCSI_H */
