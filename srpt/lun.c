// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit srpt: LUN 0, a RAM disk shared by every channel.
 *
 * cmkit.srpt_lun_mib= MiB of vmalloc()ed memory (default 32), zeroed, in
 * 512-byte blocks, allocated when srpt starts (load, ctl start) and freed
 * when it stops, once every channel is released.  What a CDB does to it is
 * decided by cmkit_scsi_decide() (include/cmkit/scsi.h); data moves between
 * the disk's pages and the initiator's buffers by RDMA, zero-copy: the
 * channel builds scatterlists of the disk's pages (vmalloc_to_page()).
 * Commands of several channels may touch the same blocks at once, as on any
 * disk: ordering them is the initiators' business.
 */
#define pr_fmt(fmt) "cmkit: srpt: " fmt

#include <linux/math64.h>
#include <linux/module.h>
#include <linux/vmalloc.h>

#include "srpt/internal.h"

static uint srpt_lun_mib = 32;
module_param(srpt_lun_mib, uint, 0444);
MODULE_PARM_DESC(srpt_lun_mib,
		 "srpt: size of the RAM disk behind LUN 0, in MiB (1..4096, default 32)");

#define SRPT_LUN_BLOCK_SIZE	512
#define SRPT_LUN_MAX_MIB	4096

static void *srpt_lun_mem;
static u64 srpt_lun_size;	/* bytes; 0 while no disk */

static struct cmkit_scsi_disk srpt_lun_disk = {
	.block_size = SRPT_LUN_BLOCK_SIZE,
	.vendor = "CMKIT",
	.product = "RAM DISK",
	.revision = "0001",
	.serial = "cmkit-srpt-0",
	/* NAA 3 (locally assigned): 60 bits of cmkit's own choosing. */
	.naa_id = 0x0c3c17000000001ULL,
};

/**
 * cmkit_srpt_lun_init - allocate the RAM disk (start)
 *
 * Return: 0, -EINVAL for a size out of range, or -ENOMEM.
 */
int cmkit_srpt_lun_init(void)
{
	u64 size;

	if (!srpt_lun_mib || srpt_lun_mib > SRPT_LUN_MAX_MIB) {
		pr_err("srpt_lun_mib %u is not in 1..%u\n", srpt_lun_mib,
		       SRPT_LUN_MAX_MIB);
		return -EINVAL;
	}
	size = (u64)srpt_lun_mib << 20;
	srpt_lun_mem = vzalloc(size);
	if (!srpt_lun_mem)
		return -ENOMEM;
	srpt_lun_disk.nblocks = div_u64(size, SRPT_LUN_BLOCK_SIZE);
	WRITE_ONCE(srpt_lun_size, size);
	return 0;
}

/**
 * cmkit_srpt_lun_exit - free the RAM disk (stop, once no channel is left)
 */
void cmkit_srpt_lun_exit(void)
{
	WRITE_ONCE(srpt_lun_size, 0);
	vfree(srpt_lun_mem);
	srpt_lun_mem = NULL;
}

/**
 * cmkit_srpt_lun_disk_get - the description of LUN 0 for cmkit_scsi_decide()
 *
 * Return: the disk, valid while srpt is started.
 */
const struct cmkit_scsi_disk *cmkit_srpt_lun_disk_get(void)
{
	return &srpt_lun_disk;
}

/**
 * cmkit_srpt_lun_addr - the address of a byte of the disk
 * @offset: byte offset; the caller checked the range with the SCSI plan
 *
 * Return: the address in the disk's vmalloc() area.
 */
void *cmkit_srpt_lun_addr(u64 offset)
{
	return srpt_lun_mem + offset;
}

/**
 * cmkit_srpt_lun_bytes - the size of LUN 0
 *
 * Return: its size in bytes, 0 while srpt is stopped.
 */
u64 cmkit_srpt_lun_bytes(void)
{
	return READ_ONCE(srpt_lun_size);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_lun_bytes);

/**
 * cmkit_srpt_lun_data - the bytes of LUN 0, for a test that checks them
 *
 * Return: the disk's memory (cmkit_srpt_lun_bytes() of it), or NULL while
 * srpt is stopped.
 */
void *cmkit_srpt_lun_data(void)
{
	return srpt_lun_mem;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_lun_data);
