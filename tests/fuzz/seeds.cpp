// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// Seeds for the fuzz targets, from the encoders: seeds OUTDIR writes
// OUTDIR/<target>/seed-<n> for every target.
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "cmkit/mpa.h"
#include "cmkit/mpa_fpdu.h"
#include "cmkit/nfs4.h"
#include "cmkit/rpcrdma_chunk.h"
#include "cmkit/rpcrdma_cmp.h"
#include "cmkit/rpcrdma_msg.h"
#include "cmkit/scsi.h"
#include "cmkit/srp.h"
#include "cmkit/srp_iu.h"

namespace {

class SeedDir {
public:
	SeedDir(const std::string &root, const char *target)
		: dir_(root + "/" + target)
	{
		mkdir(root.c_str(), 0755);
		mkdir(dir_.c_str(), 0755);
	}

	bool Write(const cmkit_u8 *p, size_t n)
	{
		std::string path = dir_ + "/seed-" + std::to_string(count_++);
		FILE *f = fopen(path.c_str(), "wb");
		if (!f)
			return false;
		bool ok = fwrite(p, 1, n, f) == n;
		return fclose(f) == 0 && ok;
	}

private:
	std::string dir_;
	int count_ = 0;
};

bool RpcrdmaCmp(const std::string &root)
{
	SeedDir d(root, "rpcrdma_cmp");
	const cmkit_u32 sizes[] = { 1024, 4096, 256 * 1024 };
	bool ok = true;
	for (cmkit_u32 s : sizes) {
		cmkit_u8 buf[CMKIT_RPCRDMA_CMP_LEN];
		cmkit_rpcrdma_cmp_encode(buf, CMKIT_RPCRDMA_CMP_F_SND_W_INV_OK, s, s / 2);
		ok = d.Write(buf, sizeof(buf)) && ok;
	}
	return ok;
}

bool RpcrdmaMsg(const std::string &root)
{
	SeedDir d(root, "rpcrdma_msg");
	cmkit_u8 buf[CMKIT_RPCRDMA_MAX_REPLY_LEN];
	const cmkit_u8 verf[CMKIT_RPC_MAX_AUTH_LEN] = { 1, 2, 3 };
	bool ok = true;
	int n;

	// Calls: NFS v3 and v4, and a program nobody serves.
	const cmkit_u32 progs[][2] = { { 100003, 3 }, { 100003, 4 }, { 400000, 1 } };
	for (auto &pv : progs) {
		n = cmkit_rpcrdma_encode_null_call(buf, sizeof(buf), 0x100 + pv[1], 128,
						   pv[0], pv[1]);
		ok = n > 0 && d.Write(buf, n) && ok;
	}
	// Replies: every accept_stat, with verifiers of 0, 4 and 400 bytes.
	struct cmkit_rpcrdma_reply r {};
	r.hdr.rdma_xid = 0x103;
	r.hdr.rdma_credit = 64;
	for (cmkit_u32 s = CMKIT_RPC_SUCCESS; s <= CMKIT_RPC_SYSTEM_ERR; s++) {
		r.accept_stat = s;
		r.low = 3;
		r.high = 4;
		n = cmkit_rpcrdma_encode_reply(buf, sizeof(buf), &r);
		ok = n > 0 && d.Write(buf, n) && ok;
	}
	r.accept_stat = CMKIT_RPC_SUCCESS;
	for (cmkit_u32 len : { 4u, 400u }) {
		r.verf = verf;
		r.verf_len = len;
		n = cmkit_rpcrdma_encode_reply(buf, sizeof(buf), &r);
		ok = n > 0 && d.Write(buf, n) && ok;
	}
	// Denials and transport errors.
	r = cmkit_rpcrdma_reply{};
	r.hdr.rdma_xid = 0x104;
	r.hdr.rdma_credit = 1;
	r.reply_stat = CMKIT_RPC_MSG_DENIED;
	r.reject_stat = CMKIT_RPC_MISMATCH;
	r.low = r.high = CMKIT_RPC_VERSION;
	n = cmkit_rpcrdma_encode_reply(buf, sizeof(buf), &r);
	ok = n > 0 && d.Write(buf, n) && ok;
	r.reject_stat = CMKIT_RPC_AUTH_ERROR;
	r.auth_stat = CMKIT_RPC_AUTH_TOOWEAK;
	n = cmkit_rpcrdma_encode_reply(buf, sizeof(buf), &r);
	ok = n > 0 && d.Write(buf, n) && ok;
	r.hdr.rdma_proc = CMKIT_RPCRDMA_ERROR;
	r.rdma_err = CMKIT_RPCRDMA_ERR_VERS;
	r.low = r.high = CMKIT_RPCRDMA_VERSION;
	n = cmkit_rpcrdma_encode_reply(buf, sizeof(buf), &r);
	ok = n > 0 && d.Write(buf, n) && ok;
	r.rdma_err = CMKIT_RPCRDMA_ERR_CHUNK;
	n = cmkit_rpcrdma_encode_reply(buf, sizeof(buf), &r);
	ok = n > 0 && d.Write(buf, n) && ok;
	// A reply whose write list holds one chunk of one segment, so that the
	// fuzzer starts from populated chunk lists: the encoder never writes one.
	r = cmkit_rpcrdma_reply{};
	r.hdr.rdma_xid = 0x105;
	n = cmkit_rpcrdma_encode_reply(buf + 24, sizeof(buf) - 24, &r);
	if (n > 0) {
		const cmkit_u32 lists[] = { 0, 1, 1, 0x77, 512, 0, 0x1000, 0 };
		cmkit_copy(buf, buf + 24, CMKIT_RPCRDMA_FIXED_LEN);
		for (unsigned i = 0; i < 8; i++)
			cmkit_put_be32(buf + CMKIT_RPCRDMA_FIXED_LEN + 4 * i, lists[i]);
		ok = d.Write(buf, n + 24) && ok;
	} else {
		ok = false;
	}
	return ok;
}

// fuzz_rpcrdma_chunk: calls and replies with every list shape, and the RPC
// messages a position-zero read chunk and a reply chunk hold.
bool RpcrdmaChunk(const std::string &root)
{
	SeedDir d(root, "rpcrdma_chunk");
	std::vector<cmkit_u8> buf(4096);
	const cmkit_u8 data[16] = { 0, 0, 0, 12, 'c', 'm', 'k', 'i', 't', ' ', 'c', 'h', 'u', 'n',
				    'k', 's' };
	bool ok = true;
	auto write = [&](int n) { return n > 0 && d.Write(buf.data(), n); };
	auto seg = [](cmkit_u32 i) {
		struct cmkit_rpcrdma_seg s = { 0x100 + i, 4096, 0x7f0000000000ULL + 4096ULL * i };
		return s;
	};

	// Calls: inline; a read chunk at the end of the arguments (position
	// 44) with a write chunk and a reply chunk; RDMA_NOMSG with a
	// position-zero chunk, and the call that chunk holds.
	struct cmkit_rpcrdma_chunks ch {};
	ok = write(cmkit_rpcrdma_encode_call(buf.data(), buf.size(), 1, 64, 0x2000c4b1, 1, 1, &ch,
					     data, sizeof(data))) && ok;
	ch.nr_read = 2;
	ch.read_pos[0] = ch.read_pos[1] = 44;
	ch.read[0] = seg(0);
	ch.read[1] = seg(1);
	ch.nr_write = 1;
	ch.write_segs = 3;
	for (cmkit_u32 i = 0; i < 3; i++)
		ch.write[i] = seg(10 + i);
	ch.has_reply = 1;
	ch.reply_segs = 1;
	ch.reply[0] = seg(20);
	ok = write(cmkit_rpcrdma_encode_call(buf.data(), buf.size(), 2, 64, 0x2000c4b1, 1, 1, &ch,
					     data, 4)) && ok;
	struct cmkit_rpcrdma_chunks pz {};
	pz.nr_read = 1;
	pz.read[0] = seg(30);
	pz.has_reply = 1;
	pz.reply_segs = 2;
	pz.reply[0] = seg(31);
	pz.reply[1] = seg(32);
	ok = write(cmkit_rpcrdma_encode_hdr(buf.data(), buf.size(), 3, CMKIT_RPCRDMA_VERSION, 64,
					    CMKIT_RPCRDMA_NOMSG, &pz)) && ok;
	ok = write(cmkit_rpcrdma_encode_rpc_call(buf.data(), buf.size(), 3, 0x2000c4b1, 1, 3,
						 data, sizeof(data))) && ok;

	// Replies: the bulk in an 8-segment write chunk, results inline; the
	// reply in the reply chunk (RDMA_NOMSG), and the reply that chunk holds.
	struct cmkit_rpcrdma_reply r {};
	r.hdr.rdma_xid = 4;
	r.hdr.rdma_credit = 64;
	struct cmkit_rpcrdma_chunks w {};
	w.nr_write = 1;
	w.write_segs = CMKIT_RPCRDMA_MAX_SEGS;
	for (cmkit_u32 i = 0; i < CMKIT_RPCRDMA_MAX_SEGS; i++)
		w.write[i] = seg(40 + i);
	w.write[7].length = 5;
	ok = write(cmkit_rpcrdma_encode_reply_chunks(buf.data(), buf.size(), &r, &w, data, 4)) && ok;
	struct cmkit_rpcrdma_chunks rc {};
	rc.has_reply = 1;
	rc.reply_segs = 1;
	rc.reply[0] = seg(50);
	rc.reply[0].length = CMKIT_RPCRDMA_RPC_REPLY_LEN + sizeof(data);
	r.hdr.rdma_proc = CMKIT_RPCRDMA_NOMSG;
	ok = write(cmkit_rpcrdma_encode_reply_chunks(buf.data(), buf.size(), &r, &rc, nullptr, 0)) &&
	     ok;
	ok = write(cmkit_rpcrdma_encode_rpc_reply(buf.data(), buf.size(), &r, data,
						  sizeof(data))) && ok;
	return ok;
}

bool Mpa(const std::string &root)
{
	SeedDir d(root, "mpa");
	const cmkit_u8 pd[] = { 'c', 'm', 'k', 'i', 't' };
	cmkit_u8 buf[CMKIT_MPA_MAX_FRAME];
	bool ok = true;
	for (int kind = 0; kind < 2; kind++) {
		enum cmkit_mpa_kind k = kind ? CMKIT_MPA_REPLY : CMKIT_MPA_REQUEST;
		int n = cmkit_mpa_build_v1(buf, sizeof(buf), k, kind, pd, sizeof(pd));
		ok = n > 0 && d.Write(buf, n) && ok;
		n = cmkit_mpa_build_v2(buf, sizeof(buf), k, 0, 16, 16, 0, 0, pd, sizeof(pd));
		ok = n > 0 && d.Write(buf, n) && ok;
		n = cmkit_mpa_build_v2(buf, sizeof(buf), k, 0, 1, 1, 0, 0, nullptr, 0);
		ok = n > 0 && d.Write(buf, n) && ok;
	}
	// P2P requests as cmkit, irdma (CRC, Write and Read) and cxgb4 (CRC,
	// Read) send them, a revision 1 request with markers, and the replies
	// and reasoned rejects the responder answers them with.
	struct cmkit_mpa_offer me {};
	me.rev = CMKIT_MPA_REV2;
	me.p2p = CMKIT_MPA_P2P_ON;
	me.ird = 4;
	me.ord = 4;
	const cmkit_u8 rtrs[] = { CMKIT_MPA_RTR_ALL, CMKIT_MPA_RTR_WRITE | CMKIT_MPA_RTR_READ,
				  CMKIT_MPA_RTR_READ, CMKIT_MPA_RTR_SEND };
	for (cmkit_u8 rtr : rtrs) {
		me.rtr = rtr;
		me.crc = rtr != CMKIT_MPA_RTR_ALL;
		int n = cmkit_mpa_build_request(buf, sizeof(buf), &me, CMKIT_MPA_REV2, pd,
						sizeof(pd));
		ok = n > 0 && d.Write(buf, n) && ok;
		struct cmkit_mpa_frame f {};
		struct cmkit_mpa_result r {};
		me.rtr = CMKIT_MPA_RTR_WRITE | CMKIT_MPA_RTR_READ;
		ok = n > 0 && cmkit_mpa_parse(buf, n, CMKIT_MPA_REQUEST, &f) == n && ok;
		int rc = cmkit_mpa_respond(&me, &f, &r);
		n = cmkit_mpa_build_reply(buf, sizeof(buf), &r, nullptr, 0);
		ok = rc >= 0 && n > 0 && d.Write(buf, n) && ok;
	}
	int n = cmkit_mpa_build_v1(buf, sizeof(buf), CMKIT_MPA_REQUEST, 0, nullptr, 0);
	buf[16] |= CMKIT_MPA_FLAG_MARKERS;
	ok = n > 0 && d.Write(buf, n) && ok;
	struct cmkit_mpa_result rej {};
	rej.rev = CMKIT_MPA_REV1;
	rej.reason = CMKIT_MPA_REJ_REVISION;
	n = cmkit_mpa_build_reply(buf, sizeof(buf), &rej, nullptr, 0);
	ok = n > 0 && d.Write(buf, n) && ok;
	// Two offers and private data, for the whole-exchange check: a P2P
	// initiator with CRC against a revision 1 responder, and two P2P sides.
	const cmkit_u8 exchange[][10] = {
		{ 0x7b, 0x09, 0x00, 0x04, 0x00, 0x08, 0x00, 0x04, 'p', 'd' },
		{ 0x3b, 0x08, 0x00, 0x04, 0x1d, 0x08, 0x00, 0x02, 'p', 'd' },
	};
	for (const cmkit_u8 *e : exchange)
		ok = d.Write(e, sizeof(exchange[0])) && ok;
	return ok;
}

// One selector byte (bit 0: CRC; bits 1-2: Write, Read, Send RTR or Read
// Response expected), then the stream: each RTR, with and without CRC,
// followed by more; a Send with a padded payload; the Read Response.
bool MpaFpdu(const std::string &root)
{
	SeedDir d(root, "mpa_fpdu");
	const unsigned rtrs[] = { CMKIT_MPA_RTR_WRITE, CMKIT_MPA_RTR_READ, CMKIT_MPA_RTR_SEND };
	cmkit_u8 buf[1 + 2 * 64];
	bool ok = true;
	for (unsigned i = 0; i < 3; i++)
		for (int crc = 0; crc < 2; crc++) {
			buf[0] = (cmkit_u8)(crc | i << 1);
			int n = cmkit_rtr_build(buf + 1, 64, rtrs[i], crc);
			int m = n > 0 ? cmkit_rtr_build(buf + 1 + n, 64, CMKIT_MPA_RTR_WRITE, crc) : -1;
			ok = n > 0 && m > 0 && d.Write(buf, 1 + n + m) && ok;
		}
	struct cmkit_iwarp_hdr h;
	cmkit_rtr_hdr(CMKIT_MPA_RTR_SEND, &h);
	buf[0] = 5;
	int n = cmkit_fpdu_build(buf + 1, 64, &h, "pad", 3, 1);
	ok = n > 0 && d.Write(buf, 1 + n) && ok;
	cmkit_rtr_hdr(CMKIT_MPA_RTR_READ, &h);
	buf[0] = 7;
	n = cmkit_rtr_build_read_resp(buf + 1, 64, &h, 1);
	return n > 0 && d.Write(buf, 1 + n) && ok;
}

bool Srp(const std::string &root)
{
	SeedDir d(root, "srp");
	struct cmkit_srp_login_req req {};
	req.opcode = CMKIT_SRP_LOGIN_REQ;
	req.tag = 7;
	req.it_iu_len = 4096;
	req.buf_fmt = CMKIT_SRP_BUF_FORMAT_ALL;
	cmkit_u8 buf[CMKIT_CMA_HDR_LEN + CMKIT_SRP_LOGIN_REQ_LEN];
	cmkit_srp_encode_login_req(buf, &req);
	bool ok = d.Write(buf, CMKIT_SRP_LOGIN_REQ_LEN);
	struct cmkit_cma_hdr hdr {};
	hdr.ip_version = 4;
	hdr.src_port = 4242;
	cmkit_cma_hdr_encode(buf, &hdr);
	cmkit_srp_encode_login_req_rdma(buf + CMKIT_CMA_HDR_LEN, &req);
	ok = d.Write(buf, CMKIT_CMA_HDR_LEN + CMKIT_SRP_LOGIN_REQ_RDMA_LEN) && ok;
	struct cmkit_srp_login_rsp rsp {};
	rsp.tag = 7;
	rsp.max_it_iu_len = 4096;
	cmkit_srp_encode_login_rsp(buf, &rsp);
	ok = d.Write(buf, CMKIT_SRP_LOGIN_RSP_LEN) && ok;
	struct cmkit_srp_login_rej rej {};
	rej.tag = 7;
	rej.reason = CMKIT_SRP_LOGIN_REJ_UNABLE_ASSOCIATE_CHANNEL;
	cmkit_srp_encode_login_rej(buf, &rej);
	return d.Write(buf, CMKIT_SRP_LOGIN_REJ_LEN) && ok;
}

// fuzz_srp_iu: two bytes of imm_data_offset, then the IU.
bool SrpIu(const std::string &root)
{
	SeedDir d(root, "srp_iu");
	const cmkit_u16 imm_off = 68;	// ib_srp's SRP_IMM_DATA_OFFSET
	std::vector<cmkit_u8> buf(2048);
	bool ok = true;
	auto write = [&](int n) {
		if (n < 0)
			return false;
		std::vector<cmkit_u8> seed = { (cmkit_u8)(imm_off >> 8), (cmkit_u8)imm_off };
		seed.insert(seed.end(), buf.begin(), buf.begin() + n);
		return d.Write(seed.data(), seed.size());
	};

	// SRP_CMD: READ(10) direct, WRITE(10) immediate, READ(16) indirect
	// (whole and partial), a 32-byte CDB, bidirectional.
	const cmkit_u8 read10[10] = { 0x28, 0, 0, 0, 0, 0x10, 0, 0, 8, 0 };
	const cmkit_u8 write10[10] = { 0x2a, 0, 0, 0, 0, 0x10, 0, 0, 1, 0 };
	const cmkit_u8 read16[16] = { 0x88, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0, 0, 4 };
	cmkit_u8 cdb32[32] = { 0x7f };
	cmkit_u8 list[4 * 16];
	for (int i = 0; i < 4; i++) {
		cmkit_srp_direct e = { 0x10000ULL * (i + 1), 0x100u + i, 512 };
		cmkit_srp_put_direct(list + 16 * i, &e);
	}
	cmkit_u8 data[512] = { 0xab };
	cmkit_srp_cmd c{};
	c.tag = 1;
	c.cdb = read10;
	c.cdb_len = sizeof(read10);
	c.in.fmt = CMKIT_SRP_DATA_DESC_DIRECT;
	c.in.desc = { 0x7f0000001000ULL, 0x1234, 4096 };
	ok = write(cmkit_srp_encode_cmd(buf.data(), buf.size(), imm_off, &c)) && ok;
	c = {};
	c.tag = 2;
	c.cdb = write10;
	c.cdb_len = sizeof(write10);
	c.out.fmt = CMKIT_SRP_DATA_DESC_IMM;
	c.out.len = sizeof(data);
	c.out.imm = data;
	ok = write(cmkit_srp_encode_cmd(buf.data(), buf.size(), imm_off, &c)) && ok;
	c = {};
	c.tag = 3;
	c.cdb = read16;
	c.cdb_len = sizeof(read16);
	c.in.fmt = CMKIT_SRP_DATA_DESC_INDIRECT;
	c.in.desc = { 0x7f0000002000ULL, 0x55, 4 * 16 };
	c.in.count = 4;
	c.in.list = list;
	c.in.len = 4 * 512;
	ok = write(cmkit_srp_encode_cmd(buf.data(), buf.size(), imm_off, &c)) && ok;
	c.in.count = 2;	// the rest must be fetched
	ok = write(cmkit_srp_encode_cmd(buf.data(), buf.size(), imm_off, &c)) && ok;
	c = {};
	c.tag = 4;
	c.cdb = cdb32;
	c.cdb_len = sizeof(cdb32);
	c.out.fmt = CMKIT_SRP_DATA_DESC_DIRECT;
	c.out.desc = { 0x1000, 1, 512 };
	c.in.fmt = CMKIT_SRP_DATA_DESC_DIRECT;
	c.in.desc = { 0x2000, 2, 512 };
	ok = write(cmkit_srp_encode_cmd(buf.data(), buf.size(), imm_off, &c)) && ok;

	// SRP_TSK_MGMT, SRP_RSP (sense; task management), SRP_AER_REQ.
	cmkit_srp_tsk_mgmt tm{};
	tm.tag = 5;
	tm.func = CMKIT_SRP_TSK_ABORT_TASK;
	tm.task_tag = 1;
	ok = write(cmkit_srp_encode_tsk_mgmt(buf.data(), buf.size(), &tm)) && ok;
	cmkit_u8 sense[CMKIT_SCSI_SENSE_LEN];
	cmkit_scsi_build_sense(sense, sizeof(sense), CMKIT_SCSI_SK_ILLEGAL_REQUEST,
			       CMKIT_SCSI_ASC_INVALID_OPCODE, 0);
	cmkit_srp_rsp r{};
	r.tag = 1;
	r.req_lim_delta = 1;
	r.status = CMKIT_SCSI_STATUS_CHECK_CONDITION;
	r.sense = sense;
	r.sense_len = sizeof(sense);
	cmkit_srp_residual(&r, 0, 4096, 0, 0);
	ok = write(cmkit_srp_encode_rsp(buf.data(), buf.size(), &r)) && ok;
	cmkit_u8 code[CMKIT_SRP_TSK_MGMT_RSP_DATA_LEN];
	cmkit_srp_tsk_mgmt_rsp_data(code, CMKIT_SRP_TSK_MGMT_COMPLETE);
	r = {};
	r.tag = 5;
	r.resp = code;
	r.resp_len = sizeof(code);
	ok = write(cmkit_srp_encode_rsp(buf.data(), buf.size(), &r)) && ok;
	cmkit_srp_aer_req a{};
	a.tag = 6;
	a.sense = sense;
	a.sense_len = sizeof(sense);
	ok = write(cmkit_srp_encode_aer_req(buf.data(), buf.size(), &a)) && ok;

	// The 16-byte IUs.
	const cmkit_u8 ops[] = { CMKIT_SRP_I_LOGOUT, CMKIT_SRP_T_LOGOUT, CMKIT_SRP_CRED_REQ,
				 CMKIT_SRP_CRED_RSP, CMKIT_SRP_AER_RSP };
	for (cmkit_u8 op : ops) {
		cmkit_srp_short_iu iu{ op, CMKIT_SRP_SOLNT, 8, 7 };
		ok = write(cmkit_srp_encode_short_iu(buf.data(), buf.size(), &iu)) && ok;
	}
	return ok;
}

// fuzz_scsi: block size selector, block count (8), LUN selector, serial
// length, initiator buffer length (4), then the CDB.
bool Scsi(const std::string &root)
{
	SeedDir d(root, "scsi");
	const std::vector<std::vector<cmkit_u8>> cdbs = {
		{ CMKIT_SCSI_TEST_UNIT_READY, 0, 0, 0, 0, 0 },
		{ CMKIT_SCSI_INQUIRY, 0, 0, 0, 36, 0 },
		{ CMKIT_SCSI_INQUIRY, 1, CMKIT_SCSI_VPD_SUPPORTED, 0, 255, 0 },
		{ CMKIT_SCSI_INQUIRY, 1, CMKIT_SCSI_VPD_SERIAL, 0, 255, 0 },
		{ CMKIT_SCSI_INQUIRY, 1, CMKIT_SCSI_VPD_DEVICE_ID, 0, 255, 0 },
		{ CMKIT_SCSI_REQUEST_SENSE, 0, 0, 0, 18, 0 },
		{ CMKIT_SCSI_MODE_SENSE_6, 0, CMKIT_SCSI_MODE_ALL, 0, 255, 0 },
		{ CMKIT_SCSI_MODE_SENSE_6, 0x08, CMKIT_SCSI_MODE_CACHING, 0, 255, 0 },
		{ CMKIT_SCSI_MODE_SENSE_10, 0x10, CMKIT_SCSI_MODE_ALL, 0, 0, 0, 0, 1, 0, 0 },
		{ CMKIT_SCSI_START_STOP_UNIT, 0, 0, 0, 1, 0 },
		{ CMKIT_SCSI_READ_CAPACITY_10, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ CMKIT_SCSI_READ_10, 0, 0, 0, 0, 8, 0, 0, 8, 0 },
		{ CMKIT_SCSI_WRITE_10, 0, 0, 0, 0, 8, 0, 0, 1, 0 },
		{ CMKIT_SCSI_SYNCHRONIZE_CACHE_10, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ CMKIT_SCSI_REPORT_LUNS, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0 },
		{ CMKIT_SCSI_READ_16, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 8, 0, 0 },
		{ CMKIT_SCSI_WRITE_16, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 8, 0, 0 },
		{ CMKIT_SCSI_SYNCHRONIZE_CACHE_16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
		{ CMKIT_SCSI_SERVICE_ACTION_IN_16, CMKIT_SCSI_SAI_READ_CAPACITY_16,
		  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 32, 0, 0 },
	};
	bool ok = true;
	for (size_t i = 0; i < cdbs.size(); i++) {
		// 2048 blocks of 512; LUN 0 (or 1 for every third); 10-byte serial;
		// a 4096-byte buffer.
		std::vector<cmkit_u8> seed = { 0, 0, 0, 0, 0, 0, 0, 0x08, 0x00,
					       (cmkit_u8)(i % 3 == 2), 0x8a, 0, 0, 0x10, 0 };
		seed.insert(seed.end(), cdbs[i].begin(), cdbs[i].end());
		if (cdbs[i].size() < 16)	// as SRP delivers it: 16 bytes
			seed.resize(seed.size() + 16 - cdbs[i].size(), 0);
		ok = d.Write(seed.data(), seed.size()) && ok;
	}
	return ok;
}

// COMPOUND4res as nfsd answers (no encoder of replies: written down by hand),
// each after the target's flags byte and write chunk length.
bool Nfs4(const std::string &root)
{
	SeedDir d(root, "nfs4");
	using W = std::vector<cmkit_u32>;
	struct Seed {
		cmkit_u8 flags;
		cmkit_u32 chunk_len;
		W words;
	} seeds[] = {
		// PUTROOTFH, LOOKUP, GETFH (8 bytes), GETATTR type/change/size/fileid
		{ 0, 0, { 0, 4, 0x636d6b69, 4, 24, 0, 15, 0, 10, 0, 8, 0x01000601, 0xaabbccdd,
			  9, 0, 1, 0x0010001a, 28, 1, 0, 7, 0, 1048576, 0, 0x1234 } },
		// PUTFH, READ of 256 KiB into the write chunk, GETATTR size
		{ 1, 262144, { 0, 0, 3, 22, 0, 25, 0, 0, 262144, 9, 0, 1, 0x10, 8, 0, 1048576 } },
		// PUTFH, READ inline (5 bytes, eof)
		{ 0, 0, { 0, 0, 2, 22, 0, 25, 0, 1, 5, 0x68656c6c, 0x6f000000 } },
		// PUTFH, WRITE 64 KiB FILE_SYNC, verifier
		{ 0, 0, { 0, 0, 2, 22, 0, 38, 0, 65536, 2, 0x01020304, 0x05060708 } },
		// PUTROOTFH, LOOKUP fails with NFS4ERR_NOENT
		{ 0, 0, { 2, 0, 2, 24, 0, 15, 2 } },
		// GETATTR with supported_attrs, fsid, lease_time, filehandle, fileid
		{ 0, 0, { 0, 0, 1, 9, 0, 1, 0x00180501, 44, 1, 0x00100003, 0, 1, 0, 2, 90,
			  4, 0xdeadbeef, 0, 42 } },
	};
	bool ok = true;
	for (const Seed &s : seeds) {
		std::vector<cmkit_u8> b = { s.flags, (cmkit_u8)(s.chunk_len >> 24),
					    (cmkit_u8)(s.chunk_len >> 16), (cmkit_u8)(s.chunk_len >> 8),
					    (cmkit_u8)s.chunk_len };
		for (cmkit_u32 w : s.words)
			for (int sh = 24; sh >= 0; sh -= 8)
				b.push_back((cmkit_u8)(w >> sh));
		ok = d.Write(b.data(), b.size()) && ok;
	}
	return ok;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
		return 2;
	}
	std::string root = argv[1];
	bool ok = RpcrdmaCmp(root);
	ok = Mpa(root) && ok;
	ok = MpaFpdu(root) && ok;
	ok = Srp(root) && ok;
	ok = RpcrdmaMsg(root) && ok;
	ok = RpcrdmaChunk(root) && ok;
	ok = SrpIu(root) && ok;
	ok = Scsi(root) && ok;
	ok = Nfs4(root) && ok;
	return ok ? 0 : 1;
}
