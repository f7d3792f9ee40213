// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_srpt: the SRP data path: SCSI commands with each kind of data
 * descriptor, sense data, malformed IUs, credits, task management, teardown
 * with I/O in flight.
 */
#include "srpt_test.h"

/* ---- SRP I/O cases ------------------------------------------------------ */

/*
 * What an initiator's scan reads describes LUN 0 as the RAM disk it is:
 * TEST UNIT READY, standard INQUIRY (into a larger buffer: the rest is
 * untouched and counted as underflow), VPD pages 0x80 and 0x83, READ
 * CAPACITY(10) and (16) with the configured size, REPORT LUNS with LUN 0
 * alone.  Each answer comes as an RDMA Write into the initiator's buffer,
 * then an SRP_RSP that returns the command's credit.
 */
void srpt_io_inquiry_and_read_capacity_describe_the_ram_lun(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u64 blocks;
	u8 *d, *p;
	u32 i, len, serial;

	srpt_setup(&ctx, test, form->rdma_cm);
	blocks = srpt_io_lun_blocks(test);
	io = srpt_io_login(&ctx, "srp initiator", 0x7101, 1);
	d = io->srp->data;

	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);

	/* Standard INQUIRY: 36 bytes into 96. */
	memset(d, 0xa5, 96);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_INQUIRY;
	cdb[4] = 96;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, 96);
	srpt_io_run(test, io, &cmd, &rsp);
	KUNIT_EXPECT_EQ(test, rsp.rsp.status, CMKIT_SCSI_STATUS_GOOD);
	KUNIT_EXPECT_EQ(test, rsp.rsp.flags, CMKIT_SRP_RSP_DIUNDER);
	KUNIT_EXPECT_EQ(test, rsp.rsp.data_in_res, 96U - CMKIT_SCSI_INQUIRY_LEN);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, d[0], 0x00);	/* connected, direct access */
	KUNIT_EXPECT_EQ(test, d[2], 0x06);
	KUNIT_EXPECT_EQ(test, d[3] & 0x0f, 0x02);
	KUNIT_EXPECT_EQ(test, d[4], CMKIT_SCSI_INQUIRY_LEN - 5);
	KUNIT_EXPECT_EQ(test, memcmp(d + 8, "CMKIT   ", 8), 0);
	KUNIT_EXPECT_EQ(test, memcmp(d + 16, "RAM DISK        ", 16), 0);
	for (i = CMKIT_SCSI_INQUIRY_LEN; i < 96; i++)
		if (d[i] != 0xa5)
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, 96U, "byte %u past the INQUIRY data written", i);

	/* VPD 0x80: a unit serial number. */
	memset(d, 0, 256);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_INQUIRY;
	cdb[1] = 0x01;
	cdb[2] = CMKIT_SCSI_VPD_SERIAL;
	cdb[4] = 255;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, 255);
	srpt_io_run(test, io, &cmd, &rsp);
	KUNIT_EXPECT_EQ(test, rsp.rsp.status, CMKIT_SCSI_STATUS_GOOD);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, d[1], CMKIT_SCSI_VPD_SERIAL);
	serial = cmkit_get_be16(d + 2);
	KUNIT_EXPECT_GT(test, serial, 0U);
	KUNIT_EXPECT_LE(test, serial, (u32)CMKIT_SCSI_SERIAL_MAX);
	KUNIT_EXPECT_EQ(test, rsp.rsp.data_in_res, 255U - 4 - serial);

	/* VPD 0x83: the T10 vendor ID designator, then an NAA one. */
	memset(d, 0, 256);
	cdb[2] = CMKIT_SCSI_VPD_DEVICE_ID;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, 255);
	srpt_io_run(test, io, &cmd, &rsp);
	KUNIT_EXPECT_EQ(test, rsp.rsp.status, CMKIT_SCSI_STATUS_GOOD);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, d[1], CMKIT_SCSI_VPD_DEVICE_ID);
	len = cmkit_get_be16(d + 2);
	KUNIT_EXPECT_EQ(test, len, 4 + 8 + serial + 4 + 8);
	p = d + 4;
	KUNIT_EXPECT_EQ(test, p[1] & 0x0f, 0x01);	/* T10 vendor ID */
	KUNIT_EXPECT_EQ(test, memcmp(p + 4, "CMKIT   ", 8), 0);
	p += 4 + p[3];
	KUNIT_EXPECT_EQ(test, p[1] & 0x0f, 0x03);	/* NAA */
	KUNIT_EXPECT_EQ(test, p[3], 8);
	KUNIT_EXPECT_EQ(test, p[4] >> 4, 0x3);	/* locally assigned */

	/* READ CAPACITY(10): the last LBA and 512-byte blocks. */
	memset(d, 0, 64);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_READ_CAPACITY_10;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, CMKIT_SCSI_READ_CAPACITY_10_LEN);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, (u64)cmkit_get_be32(d), blocks - 1);
	KUNIT_EXPECT_EQ(test, cmkit_get_be32(d + 4), 512U);

	/* READ CAPACITY(16). */
	memset(d, 0xff, 64);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_SERVICE_ACTION_IN_16;
	cdb[1] = CMKIT_SCSI_SAI_READ_CAPACITY_16;
	cmkit_put_be32(cdb + 10, CMKIT_SCSI_READ_CAPACITY_16_LEN);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, CMKIT_SCSI_READ_CAPACITY_16_LEN);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, cmkit_get_be64(d), blocks - 1);
	KUNIT_EXPECT_EQ(test, cmkit_get_be32(d + 8), 512U);
	KUNIT_EXPECT_EQ(test, d[12], 0);	/* no protection */

	/* REPORT LUNS: LUN 0 only. */
	memset(d, 0xff, 64);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_REPORT_LUNS;
	cmkit_put_be32(cdb + 6, 64);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, 0, 64);
	srpt_io_run(test, io, &cmd, &rsp);
	KUNIT_EXPECT_EQ(test, rsp.rsp.status, CMKIT_SCSI_STATUS_GOOD);
	KUNIT_EXPECT_EQ(test, rsp.rsp.data_in_res, 64U - 16);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	KUNIT_EXPECT_EQ(test, cmkit_get_be32(d), 8U);
	KUNIT_EXPECT_EQ(test, cmkit_get_be64(d + 8), 0ULL);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 7U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), 7U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_writes), 6U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* How the WRITE of a write-then-read-back case carries its data. */
enum srpt_io_kind {
	SRPT_IO_DIRECT,
	SRPT_IO_INDIRECT,
	SRPT_IO_IMMEDIATE,
};

#define SRPT_IO_BEFORE	(128 * 1024)

/* READ(10) of @blocks blocks at @lba into one direct buffer at @off. */
static void srpt_io_read(struct kunit *test, struct srpt_io *io, u32 lba,
			 u16 blocks, u32 off)
{
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	u8 cdb[CMKIT_SRP_CDB_LEN];

	srpt_cdb_rw10(cdb, CMKIT_SCSI_READ_10, lba, blocks);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, off, blocks * 512);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	cmkit_srp_peer_sync_for_cpu(io->srp);
}

/*
 * Split @len bytes into pieces of @sizes (the last one takes the rest),
 * from @off, @gap bytes apart.  Returns the number of pieces.
 */
static unsigned int srpt_io_split(struct srpt_seg *seg, const u32 *sizes,
				  unsigned int n, u32 len, u32 off, u32 gap)
{
	unsigned int i;
	u32 l;

	for (i = 0; i < n && len; i++) {
		l = i < n - 1 ? min(sizes[i], len) : len;
		seg[i] = (struct srpt_seg){ off, l };
		off += l + gap;
		len -= l;
	}
	return i;
}

/*
 * WRITE(10) @blocks blocks at @lba from the data-out area, carried as
 * @kind says, then READ(16) them back into the data-in area, carried the
 * other way (direct for indirect, indirect for direct and immediate: both
 * descriptor forms of data-in too).  The bytes read must be the ones
 * written, and the blocks either side of the range the ones there before.
 */
static void srpt_io_write_read_back(struct kunit *test, struct srpt_io *io,
				    enum srpt_io_kind kind, u32 lba, u16 blocks,
				    u32 seed)
{
	/* Pieces of odd sizes, apart from each other in memory. */
	static const u32 out_len[] = { 1000, 20000, 8192, 0 };
	static const u32 in_len[] = { 512, 1000, 6068, 100, 16384, 0 };
	struct srpt_seg seg[8];
	u32 len = blocks * 512, i, n, nseg;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u8 *d = io->srp->data, *want, *list;

	KUNIT_ASSERT_LE(test, len, 32768U);
	want = kunit_kzalloc(test, len, GFP_KERNEL);
	list = kunit_kzalloc(test, ARRAY_SIZE(seg) * CMKIT_SRP_DIRECT_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);
	KUNIT_ASSERT_NOT_NULL(test, list);

	/* What the disk holds in and around the range before. */
	srpt_io_read(test, io, lba - 1, blocks + 2, SRPT_IO_BEFORE);

	srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, lba, blocks);
	srpt_io_cmd(io, &cmd, cdb);
	switch (kind) {
	case SRPT_IO_DIRECT:
	case SRPT_IO_IMMEDIATE:
		cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, len, seed);
		memcpy(want, d + SRPT_IO_OUT, len);
		if (kind == SRPT_IO_DIRECT)
			srpt_io_direct(io, &cmd.out, SRPT_IO_OUT, len);
		else
			srpt_io_immediate(io, &cmd.out, SRPT_IO_OUT, len);
		break;
	case SRPT_IO_INDIRECT:
		nseg = srpt_io_split(seg, out_len, ARRAY_SIZE(out_len), len,
				     SRPT_IO_OUT, 1000);
		KUNIT_ASSERT_EQ(test, nseg, (u32)ARRAY_SIZE(out_len));
		for (i = 0, n = 0; i < nseg; n += seg[i].len, i++) {
			cmkit_srp_peer_fill(io->srp, seg[i].off, seg[i].len, seed + i);
			memcpy(want + n, d + seg[i].off, seg[i].len);
		}
		KUNIT_ASSERT_LE(test, seg[nseg - 1].off + seg[nseg - 1].len,
				(u32)SRPT_IO_IN);
		srpt_io_indirect(io, &cmd.out, seg, nseg, nseg, SRPT_IO_TABLE, list);
		break;
	}
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);

	/* Read it back, the other way. */
	memset(d + SRPT_IO_IN, 0x5a, SRPT_IO_BEFORE - SRPT_IO_IN);
	srpt_cdb_rw16(cdb, CMKIT_SCSI_READ_16, lba, blocks);
	srpt_io_cmd(io, &cmd, cdb);
	if (kind == SRPT_IO_INDIRECT) {
		srpt_io_direct(io, &cmd.in, SRPT_IO_IN, len);
		nseg = 0;
	} else {
		nseg = srpt_io_split(seg, in_len, ARRAY_SIZE(in_len), len,
				     SRPT_IO_IN, 8);
		KUNIT_ASSERT_GE(test, nseg, 3U);
		srpt_io_indirect(io, &cmd.in, seg, nseg, nseg, SRPT_IO_TABLE + 1024,
				 list);
	}
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	if (!nseg)
		KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN, want, len), 0);
	for (i = 0, n = 0; i < nseg; n += seg[i].len, i++) {
		KUNIT_EXPECT_EQ_MSG(test, memcmp(d + seg[i].off, want + n, seg[i].len),
				    0, "data-in piece %u", i);
		/* Nothing between the pieces was written. */
		KUNIT_EXPECT_EQ(test, d[seg[i].off + seg[i].len], 0x5a);
	}

	/* The blocks either side of the range are untouched. */
	srpt_io_read(test, io, lba - 1, blocks + 2, SRPT_IO_IN);
	KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN, d + SRPT_IO_BEFORE, 512), 0);
	KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN + 512, want, len), 0);
	KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN + 512 + len,
				     d + SRPT_IO_BEFORE + 512 + len, 512), 0);
}

static void srpt_io_write_then_read_back(struct kunit *test, enum srpt_io_kind kind,
					 u64 tag)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u32 lba = 2048 + 256 * kind + 128 * form->rdma_cm;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login(&ctx, "srp initiator", tag, 1);
	/* 32 KiB; immediate data: 4 KiB, which fits in one IU. */
	srpt_io_write_read_back(test, io, kind, lba,
				kind == SRPT_IO_IMMEDIATE ? 8 : 64, (u32)tag);

	/* Two READs of the range around it, the WRITE, the READ back. */
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 4U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), 4U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_writes), 3U);
	/* Immediate data needs no RDMA Read. */
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads),
			kind == SRPT_IO_IMMEDIATE ? 0U : 1U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* Data-out and data-in each as one direct descriptor (and indirect back). */
void srpt_io_write_then_read_back_direct(struct kunit *test)
{
	srpt_io_write_then_read_back(test, SRPT_IO_DIRECT, 0x7201);
}

/*
 * Data-out as an indirect table of four odd-sized pieces, whole in the IU
 * (the partial list is the table); read back into one direct buffer.
 */
void srpt_io_write_then_read_back_indirect(struct kunit *test)
{
	srpt_io_write_then_read_back(test, SRPT_IO_INDIRECT, 0x7211);
}

/* Data-out as immediate data inside the SRP_CMD (granted at login). */
void srpt_io_write_then_read_back_immediate(struct kunit *test)
{
	srpt_io_write_then_read_back(test, SRPT_IO_IMMEDIATE, 0x7221);
}

/*
 * An indirect table that the IU does not carry whole: srpt does not fetch
 * it, and refuses the command with CHECK CONDITION, ILLEGAL REQUEST,
 * INVALID FIELD IN INFORMATION UNIT, for data-out and data-in alike;
 * nothing moves.  The table (2 KiB, 2 KiB, then two empty entries) holds
 * the command's 4 KiB: it is refused with no partial list, and with a
 * partial list of its first two entries, which would do for the transfer
 * (so only the rule refuses it: not a length, not a short list).
 */
/* The external table of the case below, its pieces from @off. */
static unsigned int srpt_io_ext_table(struct srpt_seg *seg, u32 off)
{
	seg[0] = (struct srpt_seg){ off, 2048 };
	seg[1] = (struct srpt_seg){ off + 2048 + 64, 2048 };
	seg[2] = (struct srpt_seg){ off + 4096 + 128, 0 };
	seg[3] = (struct srpt_seg){ off + 4096 + 128, 0 };
	return 4;
}

void srpt_io_external_indirect_table_is_refused_with_sense(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_seg seg[4];
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu *rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], list[4 * CMKIT_SRP_DIRECT_LEN];
	u32 lba = 3072 + 64 * form->rdma_cm, i, count, n;
	u8 *d, *before;

	srpt_setup(&ctx, test, form->rdma_cm);
	rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsp);
	io = srpt_io_login(&ctx, "srp initiator", 0x7301, 1);
	d = io->srp->data;
	before = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	memcpy(before, srpt_io_disk(test, lba, 4096), 4096);

	for (count = 0; count < 4; count += 2) {
		/* WRITE: the data-out table in the initiator's memory. */
		n = srpt_io_ext_table(seg, SRPT_IO_OUT);
		for (i = 0; i < n; i++)
			cmkit_srp_peer_fill(io->srp, seg[i].off, seg[i].len, 0x7301 + i);
		srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, lba, 8);
		srpt_io_cmd(io, &cmd, cdb);
		srpt_io_indirect(io, &cmd.out, seg, n, count, SRPT_IO_TABLE, list);
		KUNIT_ASSERT_FALSE(test, cmd.out.whole);
		srpt_io_run(test, io, &cmd, rsp);
		srpt_io_expect_sense(test, rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				     CMKIT_SCSI_ASC_INVALID_FIELD_IN_IU, 0x03);

		/* READ: the data-in table in the initiator's memory. */
		memset(d + SRPT_IO_IN, 0x5a, 16384);
		n = srpt_io_ext_table(seg, SRPT_IO_IN);
		srpt_cdb_rw10(cdb, CMKIT_SCSI_READ_10, lba, 8);
		srpt_io_cmd(io, &cmd, cdb);
		srpt_io_indirect(io, &cmd.in, seg, n, count, SRPT_IO_TABLE + 1024, list);
		srpt_io_run(test, io, &cmd, rsp);
		srpt_io_expect_sense(test, rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				     CMKIT_SCSI_ASC_INVALID_FIELD_IN_IU, 0x03);
		cmkit_srp_peer_sync_for_cpu(io->srp);
		for (i = 0; i < 16384; i++)
			if (d[SRPT_IO_IN + i] != 0x5a)
				break;
		KUNIT_EXPECT_EQ_MSG(test, i, 16384U, "a refused READ wrote byte %u", i);
	}
	KUNIT_EXPECT_EQ_MSG(test, memcmp(srpt_io_disk(test, lba, 4096), before, 4096), 0,
			    "a refused WRITE changed the disk");
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 4U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 4U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_writes), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rw_ctx_alive), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/*
 * Three SCSI errors, each with its sense: an operation code srpt does not
 * know (INVALID COMMAND OPERATION CODE), a READ that starts past the last
 * block and one that runs past it (LOGICAL BLOCK ADDRESS OUT OF RANGE,
 * nothing written to the initiator), and LUN 1 (LOGICAL UNIT NOT
 * SUPPORTED).  The channel stays usable: a READ of the last block works.
 */
void srpt_io_unknown_opcode_and_lba_past_end_and_other_lun_get_sense(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u64 blocks, lun1;
	u8 *d;
	u32 i;

	srpt_setup(&ctx, test, form->rdma_cm);
	blocks = srpt_io_lun_blocks(test);
	io = srpt_io_login(&ctx, "srp initiator", 0x7401, 1);
	d = io->srp->data;

	/* REZERO UNIT: obsolete, not srpt's. */
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = 0x01;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_sense(test, &rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_INVALID_OPCODE, 0);

	memset(d + SRPT_IO_IN, 0x5a, 1024);
	srpt_cdb_rw16(cdb, CMKIT_SCSI_READ_16, blocks, 1);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, SRPT_IO_IN, 512);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_sense(test, &rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_LBA_OUT_OF_RANGE, 0);

	srpt_cdb_rw16(cdb, CMKIT_SCSI_READ_16, blocks - 1, 2);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, SRPT_IO_IN, 1024);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_sense(test, &rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_LBA_OUT_OF_RANGE, 0);
	cmkit_srp_peer_sync_for_cpu(io->srp);
	for (i = 0; i < 1024; i++)
		if (d[SRPT_IO_IN + i] != 0x5a)
			break;
	KUNIT_EXPECT_EQ_MSG(test, i, 1024U, "a refused READ wrote byte %u", i);

	KUNIT_ASSERT_EQ(test, cmkit_scsi_lun_encode(1, &lun1), 0);
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
	srpt_io_cmd(io, &cmd, cdb);
	cmd.lun = lun1;
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_sense(test, &rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_LUN_NOT_SUPPORTED, 0);

	/* The last block itself is fine. */
	srpt_cdb_rw16(cdb, CMKIT_SCSI_READ_16, blocks - 1, 1);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.in, SRPT_IO_IN, 512);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 5U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), 5U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 4U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_writes), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, bad_iu), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/*
 * A WRITE whose CDB asks for more than its data-out buffer holds (32
 * blocks; 4 KiB by RDMA Read, 512 bytes of immediate data): refused, both
 * ways alike, with CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN CDB
 * (cmkit_scsi_check_data_out()), and nothing of it reaches the disk (the
 * immediate form would otherwise copy from past the IU it came in).
 */
void srpt_io_write_longer_than_its_data_out_buffer(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu *rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], *before;
	u32 lba = 7424 + 64 * form->rdma_cm, len = 32 * 512;

	srpt_setup(&ctx, test, form->rdma_cm);
	rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	before = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsp);
	KUNIT_ASSERT_NOT_NULL(test, before);
	io = srpt_io_login(&ctx, "srp initiator", 0x7f11, 1);
	memcpy(before, srpt_io_disk(test, lba, len), len);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7f11);

	srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, lba, 32);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_direct(io, &cmd.out, SRPT_IO_OUT, 4096);
	srpt_io_run(test, io, &cmd, rsp);
	srpt_io_expect_sense(test, rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_INVALID_FIELD_IN_CDB, 0);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(srpt_io_disk(test, lba, len), before, len), 0,
			    "a refused WRITE (RDMA Read) changed the disk");

	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_immediate(io, &cmd.out, SRPT_IO_OUT, 512);
	srpt_io_run(test, io, &cmd, rsp);
	srpt_io_expect_sense(test, rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_INVALID_FIELD_IN_CDB, 0);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(srpt_io_disk(test, lba, len), before, len), 0,
			    "a refused WRITE (immediate data) changed the disk");

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 2U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* Ways an SRP_CMD can fail to decode, its tag still readable. */
enum srpt_io_bad {
	SRPT_IO_BAD_SHORT,	/* 40 bytes */
	SRPT_IO_BAD_FMT_OUT,	/* data-out format 4 (reserved) */
	SRPT_IO_BAD_FMT_IN,	/* data-in format 3 (immediate: data-out only) */
	SRPT_IO_BAD_DESC,	/* a direct data-in descriptor past the IU */
	SRPT_IO_BAD_CDB,	/* an additional CDB past the IU */
	SRPT_IO_BAD_TABLE,	/* a table length not a multiple of 16 */
	SRPT_IO_BAD_TOTAL,	/* a whole table whose lengths miss its total */
	SRPT_IO_BAD_IMM,	/* immediate data past the IU */
	SRPT_IO_BAD_NR,
};

/* Build the malformed SRP_CMD @bad into @iu (a READ(10) of 8 blocks). */
static u32 srpt_io_bad_iu(struct srpt_io *io, enum srpt_io_bad bad, u8 *iu, u64 *tag)
{
	static const struct srpt_seg seg[2] = { { 0, 2048 }, { 4096, 2048 } };
	u8 cdb[CMKIT_SRP_CDB_LEN], list[2 * CMKIT_SRP_DIRECT_LEN];
	struct cmkit_srp_cmd cmd;
	int len;

	srpt_cdb_rw10(cdb, CMKIT_SCSI_READ_10, 100, 8);
	srpt_io_cmd(io, &cmd, cdb);
	*tag = cmd.tag;
	if (bad == SRPT_IO_BAD_TABLE || bad == SRPT_IO_BAD_TOTAL)
		srpt_io_indirect(io, &cmd.in, seg, 2, 2, SRPT_IO_TABLE, list);
	else if (bad == SRPT_IO_BAD_IMM)
		srpt_io_immediate(io, &cmd.out, 0, 1024);
	else
		srpt_io_direct(io, &cmd.in, SRPT_IO_IN, 4096);
	if (bad == SRPT_IO_BAD_IMM)
		cdb[0] = CMKIT_SCSI_WRITE_10;
	len = cmkit_srp_encode_cmd(iu, CMKIT_SRP_PEER_TX_LEN, CMKIT_SRP_PEER_IMM_OFF, &cmd);
	if (len < 0)
		return 0;
	switch (bad) {
	case SRPT_IO_BAD_SHORT:
		return 40;
	case SRPT_IO_BAD_FMT_OUT:
		iu[5] = 0x40 | (iu[5] & 0x0f);
		break;
	case SRPT_IO_BAD_FMT_IN:
		iu[5] = (iu[5] & 0xf0) | CMKIT_SRP_DATA_DESC_IMM;
		break;
	case SRPT_IO_BAD_DESC:
		return CMKIT_SRP_CMD_LEN + CMKIT_SRP_DIRECT_LEN - 4;
	case SRPT_IO_BAD_CDB:
		iu[31] = 8 << 2;	/* 32 more CDB bytes; the IU has 16 */
		return CMKIT_SRP_CMD_LEN + 16;
	case SRPT_IO_BAD_TABLE:
		/* The table's own descriptor: 40 bytes. */
		cmkit_put_be32(iu + CMKIT_SRP_CMD_LEN + 12, 40);
		break;
	case SRPT_IO_BAD_TOTAL:
		cmkit_put_be32(iu + CMKIT_SRP_CMD_LEN + 16, 4096 + 512);
		break;
	case SRPT_IO_BAD_IMM:
		/* 1024 bytes of immediate data said, 512 sent. */
		return CMKIT_SRP_PEER_IMM_OFF + 512;
	default:
		break;
	}
	return len;
}

/*
 * SRP_CMDs that do not decode, one of each kind: each gets an SRP_RSP with
 * its own tag, CHECK CONDITION, ILLEGAL REQUEST, INVALID FIELD IN
 * INFORMATION UNIT, and its credit back; none moves data; the channel
 * goes on (a TEST UNIT READY after them works).
 */
void srpt_io_malformed_iu_gets_check_condition(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu *rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], *iu;
	unsigned int bad;
	u64 tag;
	u32 len;

	srpt_setup(&ctx, test, form->rdma_cm);
	rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsp);
	iu = kunit_kzalloc(test, CMKIT_SRP_PEER_TX_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, iu);
	io = srpt_io_login(&ctx, "srp initiator", 0x7501, 1);

	for (bad = 0; bad < SRPT_IO_BAD_NR; bad++) {
		len = srpt_io_bad_iu(io, bad, iu, &tag);
		KUNIT_ASSERT_GT_MSG(test, len, 16U, "malformed IU %u", bad);
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, len), 0);
		KUNIT_ASSERT_EQ_MSG(test, cmkit_srp_peer_wait_tag(io->srp, tag, rsp), 0,
				    "malformed IU %u: no SRP_RSP", bad);
		KUNIT_EXPECT_EQ(test, rsp->opcode, CMKIT_SRP_RSP);
		srpt_io_expect_sense(test, rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
				     CMKIT_SCSI_ASC_INVALID_FIELD_IN_IU, 0x03);
		KUNIT_EXPECT_EQ_MSG(test, srpt_io_delta(&ctx, bad_iu), bad + 1,
				    "malformed IU %u", bad);
	}
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_run(test, io, &cmd, rsp);
	srpt_io_expect_good(test, rsp);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(io->ini->req.tag), SRPT_CH_LIVE);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, bad_iu), (u32)SRPT_IO_BAD_NR);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), (u32)SRPT_IO_BAD_NR);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), SRPT_IO_BAD_NR + 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_writes), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* srpt's count of the initiator's credits must be @want (and <= the grant). */
static void srpt_io_expect_target_credits(struct kunit *test, struct srpt_io *io,
					  u32 want)
{
	u32 granted = 0, outstanding = 0;

	KUNIT_ASSERT_EQ(test, cmkit_srpt_ch_credits(io->ini->req.tag, &granted,
						    &outstanding), 0);
	KUNIT_EXPECT_EQ(test, granted, io->rsp.req_lim_delta);
	KUNIT_EXPECT_LE(test, outstanding, granted);
	KUNIT_EXPECT_EQ(test, outstanding, want);
}

/*
 * The credits an initiator holds never exceed what the login granted, on
 * either side's count.  Round 1: the whole grant spent at once on a mix of
 * commands (no data, data-in, data-out by RDMA Read and immediate, one
 * that fails), one more refused by the initiator itself; every SRP_RSP
 * returns exactly one, so the sum of req_lim_delta is the grant.  Round 2:
 * with the target's responses held back (srpt_io_stall()), srpt's count
 * mid-flight: one credit returned (the stalled response), the WRITEs'
 * not yet; then every credit comes back.
 */
void srpt_io_credits_never_exceed_the_grant(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd *cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u32 grant, i, sum = 0;
	u64 first, stall;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7601, 1, true);
	grant = io->rsp.req_lim_delta;
	KUNIT_ASSERT_GE(test, grant, 5U);
	cmd = kunit_kcalloc(test, grant, sizeof(*cmd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	srpt_io_expect_target_credits(test, io, grant);

	/*
	 * The peer's receive ring is posted only once every command is sent:
	 * a response that came back meanwhile would return its credit before
	 * the check below (seen on the debug leg, where sending is slower).
	 */
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7601);
	first = io->tag + 1;
	for (i = 0; i < grant; i++) {
		switch (i % 5) {
		case 0:
			memset(cdb, 0, sizeof(cdb));
			cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
			srpt_io_cmd(io, &cmd[i], cdb);
			break;
		case 1:
			srpt_cdb_rw10(cdb, CMKIT_SCSI_READ_10, 4096 + i, 1);
			srpt_io_cmd(io, &cmd[i], cdb);
			srpt_io_direct(io, &cmd[i].in, SRPT_IO_IN + 512 * i, 512);
			break;
		case 2:
			srpt_io_cmd_write(io, &cmd[i], cdb, 4096 + i, 1, SRPT_IO_OUT);
			break;
		case 3:
			srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, 4096 + i, 1);
			srpt_io_cmd(io, &cmd[i], cdb);
			srpt_io_immediate(io, &cmd[i].out, SRPT_IO_OUT, 512);
			break;
		case 4:
			memset(cdb, 0, sizeof(cdb));
			cdb[0] = 0x01;	/* fails: still one credit back */
			srpt_io_cmd(io, &cmd[i], cdb);
			break;
		}
		KUNIT_ASSERT_EQ_MSG(test, srpt_io_send(io, &cmd[i]), 0, "command %u", i);
	}
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), 0);
	KUNIT_EXPECT_EQ(test, srpt_io_send(io, &cmd[0]), -EAGAIN);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	for (i = 0; i < grant; i++) {
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, first + i, &rsp), 0);
		KUNIT_EXPECT_EQ_MSG(test, rsp.rsp.req_lim_delta, 1U, "command %u", i);
		KUNIT_EXPECT_LE(test, rsp.credits, (s32)grant);
		sum += rsp.rsp.req_lim_delta;
	}
	KUNIT_EXPECT_EQ(test, sum, grant);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)grant);
	KUNIT_EXPECT_EQ(test, io->srp->max_credits, (s32)grant);
	srpt_io_expect_target_credits(test, io, grant);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, over_credit), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, busy), 0U);

	/*
	 * Round 2, on a second login whose ring is held: the stall's
	 * response is posted (srpt counts its credit returned), each WRITE
	 * waits for its RDMA Read (no credit back yet).
	 */
	srpt_io_logout(test, io);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7602, 1, true);
	srpt_rx_watch(io->ini->req.tag);
	srpt_io_stall(test, io, &stall);
	for (i = 1; i < grant; i++) {
		srpt_io_cmd_write(io, &cmd[i], cdb, 4200 + i, 1, SRPT_IO_OUT);
		KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd[i]), 0);
	}
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_READ_POSTED, grant - 1), 0);
	srpt_io_expect_target_credits(test, io, 1);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, stall, &rsp), 0);
	srpt_io_expect_good(test, &rsp);
	for (i = 1; i < grant; i++) {
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, cmd[i].tag, &rsp), 0);
		srpt_io_expect_good(test, &rsp);
	}
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)grant);
	KUNIT_EXPECT_EQ(test, io->srp->max_credits, (s32)grant);
	srpt_io_expect_target_credits(test, io, grant);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, over_credit), 0U);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 2, 2);
	srpt_io_expect_idle(test);
}

/* The SRP_RSP of a task management function: RSPVALID, four bytes, @code. */
static void srpt_io_expect_tmf_rsp(struct kunit *test, const struct cmkit_srp_iu *rsp,
				   u8 code, u32 delta)
{
	KUNIT_EXPECT_EQ(test, rsp->opcode, CMKIT_SRP_RSP);
	KUNIT_EXPECT_TRUE(test, rsp->rsp.flags & CMKIT_SRP_RSP_RSPVALID);
	KUNIT_EXPECT_EQ(test, rsp->rsp.resp_len, (u32)CMKIT_SRP_TSK_MGMT_RSP_DATA_LEN);
	KUNIT_EXPECT_EQ_MSG(test, rsp->rsp.rsp_code, code, "TMF tag %#llx", rsp->tag);
	KUNIT_EXPECT_EQ_MSG(test, rsp->rsp.req_lim_delta, delta, "TMF tag %#llx", rsp->tag);
}

/* No SRP_RSP for @tag, even after a command sent later was answered. */
static void srpt_io_expect_no_rsp(struct kunit *test, struct srpt_io *io, u64 tag)
{
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	u8 cdb[CMKIT_SRP_CDB_LEN] = { CMKIT_SCSI_TEST_UNIT_READY };

	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	KUNIT_EXPECT_FALSE_MSG(test, cmkit_srp_peer_has_tag(io->srp, tag),
			       "an aborted command (tag %#llx) got an SRP_RSP", tag);
}

/*
 * ABORT TASK reaches a WRITE while its RDMA Read is outstanding (pinned:
 * SRPT_HOOK_CMD_READ_POSTED said it was posted, and srpt_io_stall() keeps
 * it from completing; SRPT_HOOK_TMF says the TMF found it).  The command
 * is aborted once, freed by its Read's completion (rw_ctx_alive back to
 * 0), never answered; the TMF answers FUNCTION COMPLETE only after that,
 * returning its own credit and the aborted command's.  (What the aborted
 * WRITE's blocks hold is not asserted: SAM leaves an aborted WRITE's
 * blocks indeterminate, and srpt's Read lands in the disk's pages.)
 */
void srpt_io_abort_task_before_completion(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_stop *posted, *found;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu *rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], iu[CMKIT_SRP_TSK_MGMT_LEN];
	u32 lba = 5120 + 32 * form->rdma_cm;
	u64 stall, tmf, login;

	srpt_setup(&ctx, test, form->rdma_cm);
	rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsp);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7701, 1, true);
	login = io->ini->req.tag;
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7701);
	srpt_io_stall(test, io, &stall);

	srpt_io_cmd_write(io, &cmd, cdb, lba, 8, SRPT_IO_OUT);
	posted = srpt_stop_arm_cmd(0, SRPT_HOOK_CMD_READ_POSTED, login, cmd.tag, NULL, NULL);
	found = srpt_stop_arm_cmd(1, SRPT_HOOK_TMF, login, cmd.tag, NULL, NULL);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd), 0);
	KUNIT_ASSERT_EQ(test, srpt_stop_wait(posted), 0);
	KUNIT_ASSERT_EQ(test, srpt_io_tmf_iu(io, iu, CMKIT_SRP_TSK_ABORT_TASK, cmd.tag, &tmf),
			CMKIT_SRP_TSK_MGMT_LEN);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, sizeof(iu)), 0);
	KUNIT_ASSERT_EQ(test, srpt_stop_wait(found), 0);
	/* Counted when freed: not yet, its Read is still outstanding. */
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 0U);
	KUNIT_EXPECT_GE(test, srpt_io_now().rw_ctx_alive, 1U);

	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, stall, rsp), 0);
	srpt_io_expect_good(test, rsp);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, tmf, rsp), 0);
	/* Answered only once the aborted command was freed. */
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, abort_in_read), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_now().rw_ctx_alive, 0U);
	srpt_io_expect_tmf_rsp(test, rsp, CMKIT_SRP_TSK_MGMT_COMPLETE, 2);
	srpt_io_expect_no_rsp(test, io, cmd.tag);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, tmf), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 1U);
	KUNIT_EXPECT_EQ(test, srpt_hook_hits(SRPT_HOOK_TMF), 1U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* In srpt's CQ work: post the ABORT TASK (ib_post_send does not sleep). */
static void srpt_io_send_late_tmf(void *arg)
{
	struct srpt_io_late_tmf *late = arg;

	late->ret = cmkit_srp_peer_send(late->srp, late->iu, sizeof(late->iu));
}

/*
 * ABORT TASK sent when the WRITE is about to post its SRP_RSP (from
 * SRPT_HOOK_CMD_RESPOND, so srpt handles the TMF only after the response
 * was posted): the command completes normally (GOOD, its data on the
 * disk), the TMF finds nothing to abort and answers FUNCTION COMPLETE, as
 * for a task that no longer exists; nothing is counted aborted.
 */
void srpt_io_abort_task_after_completion(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_io_late_tmf *late;
	struct srpt_stop *respond;
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u32 lba = 5376 + 32 * form->rdma_cm;
	u64 tmf;

	srpt_setup(&ctx, test, form->rdma_cm);
	late = kunit_kzalloc(test, sizeof(*late), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, late);
	io = srpt_io_login(&ctx, "srp initiator", 0x7711, 1);
	late->srp = io->srp;
	late->ret = -EINPROGRESS;
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7711);

	srpt_io_cmd_write(io, &cmd, cdb, lba, 8, SRPT_IO_OUT);
	KUNIT_ASSERT_EQ(test, srpt_io_tmf_iu(io, late->iu, CMKIT_SRP_TSK_ABORT_TASK,
					     cmd.tag, &tmf), CMKIT_SRP_TSK_MGMT_LEN);
	respond = srpt_stop_arm_cmd(0, SRPT_HOOK_CMD_RESPOND, io->ini->req.tag, cmd.tag,
				    srpt_io_send_late_tmf, late);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd), 0);
	KUNIT_ASSERT_EQ(test, srpt_stop_wait(respond), 0);
	KUNIT_EXPECT_EQ(test, late->ret, 0);

	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, cmd.tag, &rsp), 0);
	srpt_io_expect_good(test, &rsp);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, tmf, &rsp), 0);
	srpt_io_expect_tmf_rsp(test, &rsp, CMKIT_SRP_TSK_MGMT_COMPLETE, 1);
	KUNIT_EXPECT_EQ(test, memcmp(srpt_io_disk(test, lba, 4096),
				     io->srp->data + SRPT_IO_OUT, 4096), 0);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, tmf), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 1U);
	KUNIT_EXPECT_EQ(test, srpt_hook_hits(SRPT_HOOK_TMF), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/*
 * LOGICAL UNIT RESET with three WRITEs waiting for their RDMA Reads
 * (srpt_io_stall()): all three are aborted, once each, freed by their
 * Reads' completions, never answered; the reset answers FUNCTION COMPLETE
 * only after that, returning its credit and the three aborted commands'.
 * On LUN 1 the same function FAILS; CLEAR ACA is not supported.
 */
void srpt_io_lun_reset_aborts_outstanding(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd *cmd;
	struct cmkit_srp_tsk_mgmt tm = { };
	u8 cdb[SRPT_IO_RESET_NR][CMKIT_SRP_CDB_LEN], iu[CMKIT_SRP_TSK_MGMT_LEN];
	struct cmkit_srp_iu *rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u32 lba = 5632 + 64 * form->rdma_cm, i;
	u64 stall, reset;

	srpt_setup(&ctx, test, form->rdma_cm);
	rsp = kunit_kzalloc(test, sizeof(*rsp), GFP_KERNEL);
	cmd = kunit_kcalloc(test, SRPT_IO_RESET_NR, sizeof(*cmd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, rsp);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7801, 1, true);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, SRPT_IO_RESET_NR * 4096, 0x7801);
	srpt_io_stall(test, io, &stall);
	for (i = 0; i < SRPT_IO_RESET_NR; i++) {
		srpt_io_cmd_write(io, &cmd[i], cdb[i], lba + 8 * i, 8, SRPT_IO_OUT + 4096 * i);
		KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd[i]), 0);
	}
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_READ_POSTED,
						  SRPT_IO_RESET_NR), 0);
	KUNIT_ASSERT_EQ(test, srpt_io_tmf_iu(io, iu, CMKIT_SRP_TSK_LUN_RESET, 0, &reset),
			CMKIT_SRP_TSK_MGMT_LEN);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, sizeof(iu)), 0);
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_TMF, SRPT_IO_RESET_NR), 0);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 0U);

	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, stall, rsp), 0);
	srpt_io_expect_good(test, rsp);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, reset, rsp), 0);
	/* Answered only once the three were freed. */
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), (u32)SRPT_IO_RESET_NR);
	KUNIT_EXPECT_EQ(test, srpt_io_now().rw_ctx_alive, 0U);
	srpt_io_expect_tmf_rsp(test, rsp, CMKIT_SRP_TSK_MGMT_COMPLETE,
			       1 + SRPT_IO_RESET_NR);
	for (i = 0; i < SRPT_IO_RESET_NR; i++)
		srpt_io_expect_no_rsp(test, io, cmd[i].tag);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), (u32)SRPT_IO_RESET_NR);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, abort_in_read), (u32)SRPT_IO_RESET_NR);
	KUNIT_EXPECT_EQ(test, srpt_hook_hits(SRPT_HOOK_TMF), (u32)SRPT_IO_RESET_NR);

	/* The same on LUN 1 fails; CLEAR ACA is not supported. */
	tm.tag = ++io->tag;
	tm.func = CMKIT_SRP_TSK_LUN_RESET;
	KUNIT_ASSERT_EQ(test, cmkit_scsi_lun_encode(1, &tm.lun), 0);
	cmkit_srp_encode_tsk_mgmt(iu, sizeof(iu), &tm);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, sizeof(iu)), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, tm.tag, rsp), 0);
	srpt_io_expect_tmf_rsp(test, rsp, CMKIT_SRP_TSK_MGMT_FAILED, 1);
	KUNIT_ASSERT_EQ(test, srpt_io_tmf_iu(io, iu, CMKIT_SRP_TSK_CLEAR_ACA, 0, &reset),
			CMKIT_SRP_TSK_MGMT_LEN);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, sizeof(iu)), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, reset, rsp), 0);
	srpt_io_expect_tmf_rsp(test, rsp, CMKIT_SRP_TSK_MGMT_FUNC_NOT_SUPPORTED, 1);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, tmf), 3U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/*
 * The control plane disconnects a channel with a WRITE waiting for its
 * RDMA Read and a READ whose RDMA Write and SRP_RSP are queued (both held
 * by srpt_io_stall()): the initiator gets the DREQ, the release drains
 * the QP and frees both commands' contexts, with no answer for either.
 */
void srpt_io_target_disconnect_with_io_in_flight(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd w, r;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[2][CMKIT_SRP_CDB_LEN];
	u64 stall, tag;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7901, 1, true);
	tag = io->ini->req.tag;
	srpt_io_stall(test, io, &stall);
	srpt_io_cmd_write(io, &w, cdb[0], 6144, 8, SRPT_IO_OUT);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &w), 0);
	srpt_cdb_rw10(cdb[1], CMKIT_SCSI_READ_10, 6144, 8);
	srpt_io_cmd(io, &r, cdb[1]);
	srpt_io_direct(io, &r.in, SRPT_IO_IN, 4096);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &r), 0);
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_READ_POSTED, 1), 0);
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_RESPOND, 2), 0);
	KUNIT_EXPECT_GE(test, srpt_io_now().ctx_alive, 3U);
	KUNIT_EXPECT_GE(test, srpt_io_now().rw_ctx_alive, 2U);

	KUNIT_ASSERT_EQ(test, srpt_ctl_disconnect(tag), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_target_disconnect(io->ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_nr_ius(io->srp), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, no_ctx), 0U);
}

/*
 * rxe0 goes away while a WRITE's RDMA Read is outstanding (pinned by
 * SRPT_HOOK_CMD_READ_POSTED and srpt_io_stall()): srpt's removal closes
 * the channel, drains its QP, frees every context (the Read's rdma_rw
 * context destroyed once) and the channel, and the removal finishes.
 */
void srpt_io_removal_with_rdma_reads_outstanding(struct kunit *test)
{
	const struct cmkit_dev_param *rxe = &cmkit_dev_params[CMKIT_RXE];
	const struct srpt_form *form = test->param_value;
	struct cmkit_removal *removal;
	struct cmkit_cm_record rec;
	struct cmkit_srp_cmd w;
	struct ib_device *dev;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN];
	u64 stall, tag, sid;
	u8 tport[CMKIT_SRP_PORT_ID_LEN];

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7a01 + form->rdma_cm, 1, true);
	tag = io->ini->req.tag;
	srpt_io_stall(test, io, &stall);
	srpt_io_cmd_write(io, &w, cdb, 6400, 8, SRPT_IO_OUT);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &w), 0);
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_READ_POSTED, 1), 0);
	KUNIT_EXPECT_GE(test, srpt_io_now().rw_ctx_alive, 1U);

	/* Hold the device until the initiator's verbs objects are gone. */
	dev = ctx.dev;
	KUNIT_ASSERT_TRUE(test, ib_device_try_get(dev));
	cmkit_srp_peer_stop(io->srp);
	removal = cmkit_test_remove_device(test, rxe);
	if (!removal)
		ib_device_put(dev);
	KUNIT_ASSERT_NOT_NULL(test, removal);

	KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	/* The initiator's QP before its id (or with it, by rdma_cm's handler). */
	cmkit_srp_peer_destroy(io->srp);
	if (io->ini->rdma_cm)
		KUNIT_EXPECT_EQ(test, cmkit_peer_wait(io->ini->peer,
						      RDMA_CM_EVENT_DEVICE_REMOVAL, &rec), 0);
	else
		srpt_ibcm_destroy(io->ini->ib);
	KUNIT_EXPECT_EQ(test, cmkit_peer_wait(ctx.route, RDMA_CM_EVENT_DEVICE_REMOVAL,
					      &rec), 0);
	ib_device_put(dev);
	KUNIT_ASSERT_EQ(test, cmkit_test_wait_removed(removal), 0);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_target(dev, &sid, tport), -ENODEV);
}

/*
 * A failed post is answered, not dropped: the SRP_RSP of a TEST UNIT READY
 * (SRPT_FAULT_SEND_POST), the RDMA Writes and SRP_RSP of a READ (the same
 * point: nothing reaches the initiator's buffer), and the RDMA Read of a
 * WRITE (SRPT_FAULT_RW_POST: the disk keeps its bytes) each fail once and
 * the command gets SRP_RSP BUSY instead, with its credit; the channel
 * goes on.
 */
void srpt_io_failed_send_post_answers_busy(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	static const enum srpt_fault faults[] = {
		SRPT_FAULT_SEND_POST, SRPT_FAULT_SEND_POST, SRPT_FAULT_RW_POST,
	};
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], *d, *before;
	u32 lba = 6656 + 16 * form->rdma_cm, i, j;

	srpt_setup(&ctx, test, form->rdma_cm);
	before = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	io = srpt_io_login(&ctx, "srp initiator", 0x7b01, 1);
	d = io->srp->data;
	memcpy(before, srpt_io_disk(test, lba, 4096), 4096);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7b01);

	for (i = 0; i < ARRAY_SIZE(faults); i++) {
		memset(cdb, 0, sizeof(cdb));
		switch (i) {
		case 0:
			cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
			srpt_io_cmd(io, &cmd, cdb);
			break;
		case 1:
			memset(d + SRPT_IO_IN, 0x5a, 4096);
			srpt_cdb_rw10(cdb, CMKIT_SCSI_READ_10, lba, 8);
			srpt_io_cmd(io, &cmd, cdb);
			srpt_io_direct(io, &cmd.in, SRPT_IO_IN, 4096);
			break;
		case 2:
			srpt_io_cmd_write(io, &cmd, cdb, lba, 8, SRPT_IO_OUT);
			break;
		}
		cmkit_fault_arm(&cmkit_srpt_fault_points, BIT(faults[i]), 1);
		srpt_io_run(test, io, &cmd, &rsp);
		KUNIT_EXPECT_EQ_MSG(test, rsp.rsp.status, SAM_STAT_BUSY, "step %u", i);
		KUNIT_EXPECT_EQ_MSG(test, rsp.rsp.req_lim_delta, 1U, "step %u", i);
		KUNIT_EXPECT_EQ(test, srpt_io_now().faults_fired - ctx.base.faults_fired, i + 1);
		KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, busy), i + 1);
		cmkit_fault_disarm(&cmkit_srpt_fault_points);
	}
	cmkit_srp_peer_sync_for_cpu(io->srp);
	for (j = 0; j < 4096; j++)
		if (d[SRPT_IO_IN + j] != 0x5a)
			break;
	KUNIT_EXPECT_EQ_MSG(test, j, 4096U, "a READ answered BUSY wrote byte %u", j);
	KUNIT_EXPECT_EQ_MSG(test, memcmp(srpt_io_disk(test, lba, 4096), before, 4096), 0,
			    "a WRITE answered BUSY reached the disk");

	/* And then all three work. */
	memset(cdb, 0, sizeof(cdb));
	cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	srpt_io_cmd_write(io, &cmd, cdb, lba, 8, SRPT_IO_OUT);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	srpt_io_read(test, io, lba, 8, SRPT_IO_IN);
	KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN, d + SRPT_IO_OUT, 4096), 0);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 1U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/*
 * A consumed receive IU that cannot be posted again (SRPT_FAULT_RECV_REPOST)
 * closes the channel: it is released with every context (its cm_id
 * destroyed, which ends the connection), and srpt says so once in the
 * kernel log.
 */
void srpt_io_failed_repost_closes_the_channel(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct kmsg_dump_iter it;
	struct cmkit_srp_cmd cmd;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN] = { CMKIT_SCSI_TEST_UNIT_READY };
	u64 tag;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login(&ctx, "srp initiator", 0x7c01, 1);
	tag = io->ini->req.tag;
	srpt_log_mark(&it);
	cmkit_fault_arm(&cmkit_srpt_fault_points, BIT(SRPT_FAULT_RECV_REPOST), 1);
	srpt_io_cmd(io, &cmd, cdb);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd), 0);
	/* Closed: the release destroys the cm_id (ib_cm's best-effort DREQ). */
	KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_end(io->ini), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
	KUNIT_EXPECT_EQ(test, srpt_io_now().faults_fired - ctx.base.faults_fired, 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 1U);
	KUNIT_EXPECT_EQ(test, srpt_log_count(&it, "reposting a receive IU failed"), 1U);
}

/*
 * Spend every credit with the target's responses held (srpt_io_stall()):
 * the stall, then @grant WRITEs that wait for their RDMA Reads (the last
 * one sent on the stall's credit, which srpt counts as returned and the
 * initiator has not seen yet).  srpt's count is then 0.
 */
static void srpt_io_spend_all(struct kunit *test, struct srpt_io *io,
			      struct cmkit_srp_cmd *cmd, u8 (*cdb)[CMKIT_SRP_CDB_LEN],
			      u32 lba, u64 *stall)
{
	u32 grant = io->rsp.req_lim_delta, i;

	srpt_io_stall(test, io, stall);
	for (i = 0; i < grant; i++) {
		srpt_io_cmd_write(io, &cmd[i], cdb[i], lba + i, 1, SRPT_IO_OUT);
		KUNIT_ASSERT_EQ(test, srpt_io_send_opt(io, &cmd[i], i == grant - 1), 0);
	}
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_READ_POSTED, grant), 0);
	srpt_io_expect_target_credits(test, io, 0);
}

/* Send @n TEST UNIT READYs whatever the credits; their tags from @cmd. */
static void srpt_io_send_over(struct kunit *test, struct srpt_io *io,
			      struct cmkit_srp_cmd *cmd, u8 *cdb, u32 n)
{
	u32 i;

	memset(cdb, 0, CMKIT_SRP_CDB_LEN);
	cdb[0] = CMKIT_SCSI_TEST_UNIT_READY;
	for (i = 0; i < n; i++) {
		srpt_io_cmd(io, &cmd[i], cdb);
		KUNIT_ASSERT_EQ(test, srpt_io_send_opt(io, &cmd[i], true), 0);
	}
}

/*
 * An initiator that ignores its credits.  Every credit spent
 * (srpt_io_spend_all()), two more IUs: each is counted over credit and
 * answered SRP_RSP BUSY returning no credit (a reserve send context was
 * free); the channel survives and, once the responses flow, answers
 * everything else GOOD and counts every credit back.  A second channel
 * floods on until no send context is left at all: the channel is closed,
 * and released with every context.
 */
void srpt_io_flood_beyond_the_credit_limit_is_refused(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd *cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 (*cdb)[CMKIT_SRP_CDB_LEN];
	u32 grant, i, over = 2, to_close;
	u64 stall;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7d01, 1, true);
	grant = io->rsp.req_lim_delta;
	cmd = kunit_kcalloc(test, grant + 8, sizeof(*cmd), GFP_KERNEL);
	cdb = kunit_kcalloc(test, grant + 8, CMKIT_SRP_CDB_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_ASSERT_NOT_NULL(test, cdb);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 512, 0x7d01);

	srpt_io_spend_all(test, io, cmd, cdb, 6912, &stall);
	srpt_io_send_over(test, io, cmd + grant, cdb[grant], over);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, stall, &rsp), 0);
	srpt_io_expect_good(test, &rsp);
	for (i = 0; i < grant; i++) {
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, cmd[i].tag, &rsp), 0);
		srpt_io_expect_good(test, &rsp);
	}
	for (i = grant; i < grant + over; i++) {
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, cmd[i].tag, &rsp), 0);
		KUNIT_EXPECT_EQ(test, rsp.rsp.status, SAM_STAT_BUSY);
		KUNIT_EXPECT_EQ(test, rsp.rsp.req_lim_delta, 0U);
	}
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, over_credit), over);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, busy), over);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, no_ctx), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), grant);
	srpt_io_expect_target_credits(test, io, grant);
	srpt_io_expect_no_rsp(test, io, 0);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(io->ini->req.tag), SRPT_CH_LIVE);
	srpt_io_logout(test, io);

	/*
	 * Past the reserve: @grant + 1 contexts hold the stall and the
	 * WRITEs, the rest answer BUSY, and the next IU finds none.
	 */
	KUNIT_ASSERT_EQ(test, srpt_wait_quiescent(), 0);
	cmkit_srpt_counters(&ctx.base);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7d02, 1, true);
	to_close = SRPT_IO_SPARE_CTX;
	srpt_io_spend_all(test, io, cmd, cdb, 6912, &stall);
	srpt_io_send_over(test, io, cmd + grant, cdb[grant], to_close);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(io->ini->req.tag, -ENOENT), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_end(io->ini), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, over_credit), to_close);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, busy), to_close - 1);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, no_ctx), 1U);
}

/*
 * A WRITE whose indirect buffer names two pieces, the first with an rkey
 * the initiator never gave out.  The target posts the two RDMA Reads as
 * one chain; rdma_rw signals only the last WR, so the first one's failure
 * (remote access error) comes with no wr_cqe and the core drops it: srpt
 * sees only the second Read flushed.  That flush, and the receives
 * flushed with it, must still close the channel (the QP left RTS behind
 * srpt's back): it is released with every send and rdma_rw context, the
 * WRITE gets no answer, and srpt says so once in the kernel log (the
 * flushes after its own close stay silent).
 */
void srpt_io_failed_rdma_read_closes_the_channel(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct srpt_seg seg[2] = {
		{ SRPT_IO_OUT, 2048 },
		{ SRPT_IO_OUT + 8192, 2048 },
	};
	struct cmkit_srp_direct bad;
	struct kmsg_dump_iter it;
	struct cmkit_srp_cmd cmd;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], *list;
	char needle[40];
	u64 tag;

	srpt_setup(&ctx, test, form->rdma_cm);
	list = kunit_kzalloc(test, ARRAY_SIZE(seg) * CMKIT_SRP_DIRECT_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, list);
	io = srpt_io_login(&ctx, "srp initiator", 0x7c11, 1);
	tag = io->ini->req.tag;
	snprintf(needle, sizeof(needle), "channel of tag %#llx: ", tag);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 12288, 0x7c11);

	srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, 7936 + 16 * form->rdma_cm, 8);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_indirect(io, &cmd.out, seg, ARRAY_SIZE(seg), ARRAY_SIZE(seg),
			 SRPT_IO_TABLE, list);
	/* The first piece's key, with its key byte changed: no such MR. */
	cmkit_srp_peer_desc(io->srp, seg[0].off, seg[0].len, &bad);
	bad.key ^= 0x5a;
	cmkit_srp_put_direct(list, &bad);
	srpt_log_mark(&it);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &cmd), 0);

	KUNIT_EXPECT_EQ(test, srpt_wait_state(tag, -ENOENT), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_end(io->ini), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_nr_ius(io->srp), 0U);
	KUNIT_EXPECT_EQ(test, srpt_log_count(&it, needle), 1U);
}

/*
 * Send contexts held past the credits they returned: with the initiator's
 * receive ring held back, every SRP_RSP meets an RNR NAK, so no send
 * completes and no context comes back, while srpt counts each response's
 * credit as returned when it posts it.  The initiator sends TEST UNIT
 * READYs on those credits (srpt's count never drops below the grant less
 * one: none comes over credit), as a conforming initiator does when its
 * SRP_RSPs overtake the target's send completions.  The commands past the
 * last context but the reserve must wait for one, not be answered BUSY
 * (nor close the channel once the reserve is gone too): once the ring is
 * posted, every command is answered GOOD, in the order sent, each with
 * its credit.
 */
void srpt_io_commands_wait_for_a_send_context_in_order(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	struct cmkit_srp_cmd *cmd;
	struct cmkit_srp_iu *ius;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN] = { CMKIT_SCSI_TEST_UNIT_READY };
	u32 grant, run, total, recv, i;
	unsigned long flags;

	srpt_setup(&ctx, test, form->rdma_cm);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7c21, 1, true);
	grant = io->rsp.req_lim_delta;
	/* The contexts a credited IU may take, then some that must wait. */
	run = grant + SRPT_IO_SPARE_CTX - SRPT_IO_RESERVE_CTX;
	total = run + SRPT_IO_CTX_WAITERS;
	KUNIT_ASSERT_LE(test, total, (u32)CMKIT_SRP_PEER_NR_TX);
	KUNIT_ASSERT_LE(test, total, (u32)CMKIT_SRP_PEER_MAX_IUS);
	cmd = kunit_kcalloc(test, total, sizeof(*cmd), GFP_KERNEL);
	ius = kunit_kcalloc(test, total, sizeof(*ius), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_ASSERT_NOT_NULL(test, ius);

	recv = srpt_hook_hits(SRPT_HOOK_RECV);
	for (i = 0; i < total; i++) {
		srpt_io_cmd(io, &cmd[i], cdb);
		KUNIT_ASSERT_EQ_MSG(test, srpt_io_send_opt(io, &cmd[i], true), 0,
				    "command %u", i);
	}
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_RECV, recv + total), 0);
	KUNIT_ASSERT_EQ(test, srpt_hook_wait_hits(SRPT_HOOK_CMD_RESPOND, run), 0);
	/* Every context but the reserve holds a response; the rest wait. */
	KUNIT_EXPECT_EQ(test, srpt_io_now().ctx_alive, run);
	srpt_io_expect_target_credits(test, io, grant);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(io->ini->req.tag), SRPT_CH_LIVE);

	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ_MSG(test, cmkit_srp_peer_wait_ius(io->srp, total), 0,
			    "%u of %u commands answered", cmkit_srp_peer_nr_ius(io->srp),
			    total);
	spin_lock_irqsave(&io->srp->lock, flags);
	memcpy(ius, io->srp->ius, total * sizeof(*ius));
	spin_unlock_irqrestore(&io->srp->lock, flags);
	for (i = 0; i < total; i++) {
		KUNIT_EXPECT_EQ_MSG(test, ius[i].opcode, CMKIT_SRP_RSP, "answer %u", i);
		KUNIT_EXPECT_EQ_MSG(test, ius[i].tag, cmd[i].tag,
				    "answer %u is for tag %#llx, not %#llx", i,
				    ius[i].tag, cmd[i].tag);
		srpt_io_expect_good(test, &ius[i]);
	}
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, busy), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, no_ctx), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, over_credit), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmds), total);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rsps), total);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)grant);
	KUNIT_EXPECT_EQ(test, io->srp->max_credits, (s32)grant);
	srpt_io_expect_target_credits(test, io, grant);
	KUNIT_EXPECT_EQ(test, cmkit_srpt_ch_state(io->ini->req.tag), SRPT_CH_LIVE);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/* In srpt's CQ work: srpt's counters as they are there (does not sleep). */
static void srpt_io_snap_counters(void *arg)
{
	cmkit_srpt_counters(arg);
}

/*
 * A WRITE waits for its RDMA Read (srpt_io_stall()) and ABORT TASK aborts
 * it (SRPT_HOOK_TMF); then, as ib_srp's error handling escalates, LOGICAL
 * UNIT RESET and another ABORT TASK of the same WRITE come while its Read
 * is still outstanding.  Both find the command already aborted: they must
 * wait for it to be freed too, so none of the three is answered before
 * the Read completes (checked when the TEST UNIT READY sent after them is
 * handled: only the stall's SRP_RSP was posted), and then they are
 * answered in order, each FUNCTION COMPLETE, after the TEST UNIT READY's.
 * The command is aborted once (one SRPT_HOOK_TMF, aborted 1) and never
 * answered; the first TMF returns its credit and the command's.
 */
void srpt_io_second_tmf_waits_for_the_aborted_command(struct kunit *test)
{
	const struct srpt_form *form = test->param_value;
	static const u8 func[] = {
		CMKIT_SRP_TSK_ABORT_TASK, CMKIT_SRP_TSK_LUN_RESET,
		CMKIT_SRP_TSK_ABORT_TASK,
	};
	struct srpt_stop *posted, *found, *fenced;
	struct cmkit_srp_cmd w, fence;
	struct srpt_counters *snap;
	struct cmkit_srp_iu *ius;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[2][CMKIT_SRP_CDB_LEN] = { }, iu[CMKIT_SRP_TSK_MGMT_LEN];
	u64 stall, tmf[ARRAY_SIZE(func)], want[2 + ARRAY_SIZE(func)], login;
	unsigned long flags;
	u32 i, n = ARRAY_SIZE(want);

	srpt_setup(&ctx, test, form->rdma_cm);
	snap = kunit_kzalloc(test, sizeof(*snap), GFP_KERNEL);
	ius = kunit_kcalloc(test, n, sizeof(*ius), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, snap);
	KUNIT_ASSERT_NOT_NULL(test, ius);
	io = srpt_io_login_opt(&ctx, "srp initiator", 0x7c31, 1, true);
	login = io->ini->req.tag;
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7c31);
	srpt_io_stall(test, io, &stall);

	srpt_io_cmd_write(io, &w, cdb[0], 8192 + 32 * form->rdma_cm, 8, SRPT_IO_OUT);
	posted = srpt_stop_arm_cmd(0, SRPT_HOOK_CMD_READ_POSTED, login, w.tag, NULL, NULL);
	found = srpt_stop_arm_cmd(1, SRPT_HOOK_TMF, login, w.tag, NULL, NULL);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &w), 0);
	KUNIT_ASSERT_EQ(test, srpt_stop_wait(posted), 0);
	for (i = 0; i < ARRAY_SIZE(func); i++) {
		KUNIT_ASSERT_EQ(test, srpt_io_tmf_iu(io, iu, func[i], w.tag, &tmf[i]),
				CMKIT_SRP_TSK_MGMT_LEN);
		KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, sizeof(iu)), 0);
		if (!i)
			KUNIT_ASSERT_EQ(test, srpt_stop_wait(found), 0);
	}
	/* Handled after the three TMFs, while the Read is still held. */
	cdb[1][0] = CMKIT_SCSI_TEST_UNIT_READY;
	srpt_io_cmd(io, &fence, cdb[1]);
	fenced = srpt_stop_arm_cmd(2, SRPT_HOOK_CMD_RESPOND, login, fence.tag,
				   srpt_io_snap_counters, snap);
	KUNIT_ASSERT_EQ(test, srpt_io_send(io, &fence), 0);
	KUNIT_ASSERT_EQ(test, srpt_stop_wait(fenced), 0);
	KUNIT_EXPECT_EQ(test, snap->tmf - ctx.base.tmf, (u32)ARRAY_SIZE(func));
	KUNIT_EXPECT_EQ_MSG(test, snap->rsps - ctx.base.rsps, 1U,
			    "a TMF was answered while the command it aborts still had its RDMA Read outstanding");
	KUNIT_EXPECT_EQ(test, snap->aborted - ctx.base.aborted, 0U);
	KUNIT_EXPECT_GE(test, snap->rw_ctx_alive, 1U);

	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_post_rx(io->srp), 0);
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_ius(io->srp, n), 0);
	spin_lock_irqsave(&io->srp->lock, flags);
	memcpy(ius, io->srp->ius, n * sizeof(*ius));
	spin_unlock_irqrestore(&io->srp->lock, flags);
	/* The stall, the TEST UNIT READY, then the TMFs in the order sent. */
	want[0] = stall;
	want[1] = fence.tag;
	memcpy(want + 2, tmf, sizeof(tmf));
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, ius[i].tag, want[i],
				    "answer %u is for tag %#llx, not %#llx", i,
				    ius[i].tag, want[i]);
	srpt_io_expect_good(test, &ius[0]);
	srpt_io_expect_good(test, &ius[1]);
	for (i = 0; i < ARRAY_SIZE(func); i++)
		srpt_io_expect_tmf_rsp(test, &ius[2 + i], CMKIT_SRP_TSK_MGMT_COMPLETE,
				       i ? 1 : 2);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, aborted), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, abort_in_read), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, tmf), (u32)ARRAY_SIZE(func));
	KUNIT_EXPECT_EQ(test, srpt_hook_hits(SRPT_HOOK_TMF), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_now().rw_ctx_alive, 0U);
	srpt_io_expect_no_rsp(test, io, w.tag);
	KUNIT_EXPECT_EQ(test, cmkit_srp_peer_credits(io->srp), (s32)io->rsp.req_lim_delta);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}

/*
 * IUs after which SRP wants the channel gone: an unknown opcode and a
 * short SRP_TSK_MGMT get an SRP_T_LOGOUT with the reason, then a DREQ; an
 * SRP_I_LOGOUT gets the DREQ alone.  The channel is released with every
 * context either way.
 */
void srpt_io_logout_ius_close_the_channel(struct kunit *test)
{
	const struct srpt_io_close_param *p = test->param_value;
	struct cmkit_srp_short_iu out = { .opcode = CMKIT_SRP_I_LOGOUT };
	struct cmkit_srp_tsk_mgmt tm = { .func = CMKIT_SRP_TSK_ABORT_TASK };
	struct cmkit_srp_iu got;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 iu[CMKIT_SRP_TSK_MGMT_LEN] = { };
	u32 len = 0;
	u64 tag;

	srpt_setup(&ctx, test, p->rdma_cm);
	io = srpt_io_login(&ctx, "srp initiator", 0x7e01 + p->what, 1);
	tag = ++io->tag;
	switch (p->what) {
	case SRPT_IO_CLOSE_UNKNOWN:
		iu[0] = 0x7f;
		cmkit_put_be64(iu + 8, tag);
		len = 32;
		break;
	case SRPT_IO_CLOSE_SHORT_TMF:
		tm.tag = tag;
		cmkit_srp_encode_tsk_mgmt(iu, sizeof(iu), &tm);
		len = 40;
		break;
	case SRPT_IO_CLOSE_I_LOGOUT:
		out.tag = tag;
		len = cmkit_srp_encode_short_iu(iu, sizeof(iu), &out);
		break;
	}
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_send(io->srp, iu, len), 0);
	KUNIT_ASSERT_EQ(test, srpt_ini_wait_target_disconnect(io->ini), 0);
	KUNIT_EXPECT_EQ(test, srpt_wait_state(io->ini->req.tag, -ENOENT), 0);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);

	if (p->what == SRPT_IO_CLOSE_I_LOGOUT) {
		KUNIT_EXPECT_EQ(test, cmkit_srp_peer_nr_ius(io->srp), 0U);
		KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, t_logouts), 0U);
		KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, bad_iu), 0U);
		return;
	}
	KUNIT_ASSERT_EQ(test, cmkit_srp_peer_wait_tag(io->srp, tag, &got), 0);
	KUNIT_EXPECT_EQ(test, got.opcode, CMKIT_SRP_T_LOGOUT);
	KUNIT_EXPECT_EQ(test, got.err, 0);
	KUNIT_EXPECT_EQ(test, got.value, p->what == SRPT_IO_CLOSE_UNKNOWN ?
			CMKIT_SRP_T_LOGOUT_INVALID_IU_TYPE :
			CMKIT_SRP_T_LOGOUT_INVALID_IU_LEN);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, t_logouts), 1U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, bad_iu), 1U);
}

/*
 * A login that offers the target no RDMA Read depth (responder resources
 * 0, ib_cm form: the rdma_cm peer always offers one): a WRITE whose data
 * the target would have to RDMA-read is refused with INVALID FIELD IN
 * INFORMATION UNIT; the same data as immediate data is written, and a READ
 * (RDMA Writes need no depth) reads it back.
 */
void srpt_io_write_without_read_depth_gets_sense(struct kunit *test)
{
	struct cmkit_srp_cmd cmd;
	struct cmkit_srp_iu rsp;
	struct srpt_ctx ctx;
	struct srpt_io *io;
	u8 cdb[CMKIT_SRP_CDB_LEN], *d, *before;
	u32 lba = 7168;

	srpt_setup(&ctx, test, false);
	before = kunit_kzalloc(test, 4096, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, before);
	io = srpt_io_login_depth(&ctx, "srp initiator", 0x7f01, 1, 0);
	d = io->srp->data;
	memcpy(before, srpt_io_disk(test, lba, 4096), 4096);
	cmkit_srp_peer_fill(io->srp, SRPT_IO_OUT, 4096, 0x7f01);

	srpt_io_cmd_write(io, &cmd, cdb, lba, 8, SRPT_IO_OUT);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_sense(test, &rsp, CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			     CMKIT_SCSI_ASC_INVALID_FIELD_IN_IU, 0x03);
	KUNIT_EXPECT_EQ(test, memcmp(srpt_io_disk(test, lba, 4096), before, 4096), 0);

	srpt_cdb_rw10(cdb, CMKIT_SCSI_WRITE_10, lba, 8);
	srpt_io_cmd(io, &cmd, cdb);
	srpt_io_immediate(io, &cmd.out, SRPT_IO_OUT, 4096);
	srpt_io_run(test, io, &cmd, &rsp);
	srpt_io_expect_good(test, &rsp);
	srpt_io_read(test, io, lba, 8, SRPT_IO_IN);
	KUNIT_EXPECT_EQ(test, memcmp(d + SRPT_IO_IN, d + SRPT_IO_OUT, 4096), 0);

	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, rdma_reads), 0U);
	KUNIT_EXPECT_EQ(test, srpt_io_delta(&ctx, cmd_errors), 1U);
	srpt_io_logout(test, io);
	srpt_expect_clean(&ctx, 1, 1);
	srpt_io_expect_idle(test);
}
