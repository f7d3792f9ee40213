// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// libFuzzer target: the SCSI planner of cmkit/scsi.h with random CDBs and
// disks, its payloads built into exact-size heap buffers (ASan sees any
// overrun), and the plan's promises checked.
// Input: block size selector (1), block count (8, big endian), LUN selector
// (1), serial length (1), initiator buffer length (4), then the CDB.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "cmkit/scsi.h"

#define CHECK(x) do { if (!(x)) abort(); } while (0)

enum { HDR = 15 };

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char serial[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEF";
	if (size < HDR)
		return 0;
	std::vector<char> ser(serial, serial + (data[10] % sizeof(serial)));
	ser.push_back('\0');

	cmkit_scsi_disk d{};
	d.block_size = data[0] == 0xff ? 513 : 1u << (9 + data[0] % 8);
	for (int i = 0; i < 8; i++)
		d.nblocks = d.nblocks << 8 | data[1 + i];
	d.vendor = "CMKIT";
	d.product = "RAMDISK";
	d.revision = "0001";
	d.serial = ser.data();
	d.naa_id = data[10] & 0x80 ? 0x123456789ULL : 0;
	const cmkit_u64 luns[] = { 0, 0x0001000000000000ULL, 0x4000000000000000ULL,
				   0x0100000000000000ULL };
	cmkit_u64 lun = data[9] < 4 ? luns[data[9]] : (cmkit_u64)data[9] << 56 | data[9];
	cmkit_u32 have = (cmkit_u32)data[11] << 24 | (cmkit_u32)data[12] << 16 |
			 (cmkit_u32)data[13] << 8 | data[14];

	// The CDB in an exact-size heap buffer.
	std::vector<cmkit_u8> cdb(data + HDR, data + size);
	cmkit_scsi_plan p;
	int rc = cmkit_scsi_decide(cdb.empty() ? nullptr : cdb.data(), cdb.size(), lun, &d, &p);
	if (rc) {
		CHECK(rc == CMKIT_SCSI_E_DISK && !cmkit_scsi_disk_ok(&d));
		return 0;
	}
	CHECK(cmkit_scsi_disk_ok(&d));

	if (p.status != CMKIT_SCSI_STATUS_GOOD) {
		CHECK(p.status == CMKIT_SCSI_STATUS_CHECK_CONDITION);
		CHECK(p.dir == CMKIT_SCSI_DIR_NONE && p.xfer_len == 0 &&
		      p.payload == CMKIT_SCSI_PAYLOAD_NONE);
		CHECK(p.sense_key == CMKIT_SCSI_SK_ILLEGAL_REQUEST);
		std::vector<cmkit_u8> sense(have % 32);
		CHECK(cmkit_scsi_build_sense(sense.data(), sense.size(), p.sense_key, p.asc,
					     p.ascq) == (sense.size() < 18 ? sense.size() : 18));
		return 0;
	}
	// Only LUN 0 gets anything but INQUIRY, REPORT LUNS, REQUEST SENSE.
	if (!p.lun_present)
		CHECK(p.opcode == CMKIT_SCSI_INQUIRY || p.opcode == CMKIT_SCSI_REPORT_LUNS ||
		      p.opcode == CMKIT_SCSI_REQUEST_SENSE);

	if (p.payload == CMKIT_SCSI_PAYLOAD_DISK) {
		unsigned int shift = cmkit_scsi_block_shift(&d);
		cmkit_u64 bytes = d.nblocks << shift;
		CHECK(p.dir != CMKIT_SCSI_DIR_NONE);
		CHECK(p.offset < bytes && p.xfer_len <= bytes - p.offset);
		CHECK(!(p.offset & (d.block_size - 1)) && !(p.xfer_len & (d.block_size - 1)));
		cmkit_scsi_plan q = p;
		int moves = cmkit_scsi_check_data_out(&q, have);
		if (p.dir == CMKIT_SCSI_DIR_OUT)
			CHECK(moves == (have == p.xfer_len));
		else
			CHECK(!moves && q.status == CMKIT_SCSI_STATUS_GOOD);
		return 0;
	}
	if (p.dir != CMKIT_SCSI_DIR_IN) {
		CHECK(p.xfer_len == 0 && p.payload == CMKIT_SCSI_PAYLOAD_NONE);
		return 0;
	}
	// Generated payloads are small, and built exactly to the plan's length.
	CHECK(p.payload != CMKIT_SCSI_PAYLOAD_NONE && p.xfer_len <= 128);
	std::vector<cmkit_u8> full(p.xfer_len);
	CHECK(cmkit_scsi_build(&p, &d, full.data(), full.size()) == full.size());
	// A smaller caller buffer: a prefix of the same bytes.
	size_t part = p.xfer_len ? have % p.xfer_len : 0;
	std::vector<cmkit_u8> small(part);
	CHECK(cmkit_scsi_build(&p, &d, small.data(), small.size()) == part);
	for (size_t i = 0; i < part; i++)
		CHECK(small[i] == full[i]);
	// A larger one gets no more than the plan says.
	std::vector<cmkit_u8> big(p.xfer_len + 64, 0xa5);
	CHECK(cmkit_scsi_build(&p, &d, big.data(), big.size()) == p.xfer_len);
	for (size_t i = p.xfer_len; i < big.size(); i++)
		CHECK(big[i] == 0xa5);
	return 0;
}
