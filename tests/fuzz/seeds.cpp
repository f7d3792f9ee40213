// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// Seeds for the fuzz targets, from the encoders: seeds OUTDIR writes
// OUTDIR/<target>/seed-<n> for every target.
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "cmkit/mpa.h"
#include "cmkit/rpcrdma_cmp.h"
#include "cmkit/rpcrdma_msg.h"
#include "cmkit/srp.h"

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

bool Mpa(const std::string &root)
{
	SeedDir d(root, "mpa");
	const cmkit_u8 pd[] = { 'c', 'm', 'k', 'i', 't' };
	cmkit_u8 buf[CMKIT_MPA_MAX_FRAME];
	bool ok = true;
	for (int kind = 0; kind < 2; kind++) {
		enum cmkit_mpa_kind k = kind ? CMKIT_MPA_REPLY : CMKIT_MPA_REQUEST;
		int n = irdma_build_mpa_v1(buf, sizeof(buf), k, kind, pd, sizeof(pd));
		ok = n > 0 && d.Write(buf, n) && ok;
		n = irdma_build_mpa_v2(buf, sizeof(buf), k, 0, 16, 16, 0, 0, pd, sizeof(pd));
		ok = n > 0 && d.Write(buf, n) && ok;
		n = irdma_build_mpa_v2(buf, sizeof(buf), k, 0, 1, 1, 0, 0, nullptr, 0);
		ok = n > 0 && d.Write(buf, n) && ok;
	}
	return ok;
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
	ok = Srp(root) && ok;
	ok = RpcrdmaMsg(root) && ok;
	return ok ? 0 : 1;
}
