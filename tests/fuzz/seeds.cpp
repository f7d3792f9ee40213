// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// Seeds for the fuzz targets, from the encoders: seeds OUTDIR writes
// OUTDIR/<target>/seed-<n> for every target.
#include <cstdio>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "cmkit/rpcrdma_cmp.h"

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

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
		return 2;
	}
	std::string root = argv[1];
	bool ok = RpcrdmaCmp(root);
	return ok ? 0 : 1;
}
