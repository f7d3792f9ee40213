// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
// libFuzzer target: the NFSv4.0 COMPOUND4res decoder (include/cmkit/nfs4.h),
// inline and with a READ's data in the write chunk, and the COMPOUND4args
// encoder fed the same bytes as names, handles and data.
//
// Input: one flags byte (bit 0: CMKIT_NFS4_DEC_READ_CHUNK), the write
// chunk's length (4 bytes, big endian), then the COMPOUND4res.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cmkit/nfs4.h"

namespace {

bool Inside(const cmkit_u8 *p, size_t n, const uint8_t *base, size_t size)
{
	if (!p)
		return n == 0;
	return p >= base && p <= base + size && n <= size_t(base + size - p);
}

bool KnownResult(int rc)
{
	return rc == CMKIT_NFS4_R_OK || rc == CMKIT_NFS4_E_SHORT || rc == CMKIT_NFS4_E_XDR ||
	       rc == CMKIT_NFS4_E_LEN || rc == CMKIT_NFS4_E_OP || rc == CMKIT_NFS4_E_CHUNK;
}

void CheckDecode(const uint8_t *p, size_t size, cmkit_u32 flags, cmkit_u32 chunk_len)
{
	struct cmkit_nfs4_compound_res res;
	int rc = cmkit_nfs4_decode_compound(size ? p : nullptr, size, flags, chunk_len, &res);

	if (!KnownResult(rc) || res.len > size || res.numres > CMKIT_NFS4_MAX_OPS ||
	    res.tag_len > CMKIT_NFS4_MAX_TAG || !Inside(res.tag, res.tag_len, p, size))
		abort();
	if (!(flags & CMKIT_NFS4_DEC_READ_CHUNK) && rc == CMKIT_NFS4_E_CHUNK)
		abort();
	int in_chunk = 0;
	for (cmkit_u32 i = 0; i < res.numres; i++) {
		const struct cmkit_nfs4_opres &r = res.res[i];
		if (r.fh_len > CMKIT_NFS4_FHSIZE || !Inside(r.fh, r.fh_len, p, size) ||
		    !Inside(r.attr.vals, r.attr.vals_len, p, size) || r.data_off > size ||
		    r.eof > 1 || r.committed > CMKIT_NFS4_FILE_SYNC || r.attr.have > 0xf)
			abort();
		if ((r.attr.have & CMKIT_NFS4_HAVE_TYPE) &&
		    (r.attr.type < CMKIT_NFS4_NF4REG || r.attr.type > CMKIT_NFS4_NF4NAMEDATTR))
			abort();
		if (r.in_chunk) {
			if (r.op != CMKIT_NFS4_OP_READ || !(flags & CMKIT_NFS4_DEC_READ_CHUNK) ||
			    in_chunk++)
				abort();
			if (rc == CMKIT_NFS4_R_OK && r.count > chunk_len)
				abort();
		} else if (r.op == CMKIT_NFS4_OP_READ && r.status == CMKIT_NFS4_OK &&
			   (rc == CMKIT_NFS4_R_OK || i + 1 < res.numres) &&
			   (r.data_off < 4 || size - r.data_off < r.count)) {
			abort();	// inline data lies in the reply
		}
		// Only the last result may have failed.
		if (rc == CMKIT_NFS4_R_OK && r.status != CMKIT_NFS4_OK && i + 1 != res.numres)
			abort();
	}
	if (rc != CMKIT_NFS4_R_OK)
		return;
	if (res.len != size)
		abort();
	if (res.numres && res.res[res.numres - 1].status != res.status)
		abort();
	// One byte less is never a whole reply.
	if (size) {
		std::vector<uint8_t> cut(p, p + size - 1);
		struct cmkit_nfs4_compound_res res2;
		if (cmkit_nfs4_decode_compound(cut.empty() ? nullptr : cut.data(), cut.size(),
					       flags, chunk_len, &res2) == CMKIT_NFS4_R_OK)
			abort();
	}
}

// Build a COMPOUND from @p (names, handles, data) into @buf of @len bytes.
int Build(cmkit_u8 *buf, size_t len, const uint8_t *p, size_t size, size_t *pos)
{
	struct cmkit_nfs4_enc e;
	const cmkit_u32 mask[2] = { 0x0010001a, 0 };
	cmkit_u32 n = (cmkit_u32)(size < 300 ? size : 300);

	cmkit_nfs4_enc_begin(&e, buf, len, p, n < CMKIT_NFS4_MAX_TAG ? n : CMKIT_NFS4_MAX_TAG);
	cmkit_nfs4_enc_putrootfh(&e);
	cmkit_nfs4_enc_lookup(&e, p, n < CMKIT_NFS4_MAXNAMLEN ? n : CMKIT_NFS4_MAXNAMLEN);
	cmkit_nfs4_enc_putfh(&e, p, n < CMKIT_NFS4_FHSIZE ? n : CMKIT_NFS4_FHSIZE);
	cmkit_nfs4_enc_getattr(&e, mask, 1 + (n & 1));
	cmkit_nfs4_enc_read(&e, &cmkit_nfs4_bypass_stateid, n, n);
	cmkit_nfs4_enc_write(&e, &cmkit_nfs4_anonymous_stateid, n, n % 3, (n & 2) ? p : nullptr, n,
			     pos);
	cmkit_nfs4_enc_getfh(&e);
	return cmkit_nfs4_enc_end(&e);
}

void CheckEncode(const uint8_t *p, size_t size)
{
	std::vector<cmkit_u8> big(4096);
	size_t pos = 0, pos2 = 0;
	int n = Build(big.data(), big.size(), p, size, &pos);
	if (n <= 0) {
		// Only an empty name or handle is refused.
		if (n != CMKIT_NFS4_E_ARG || size)
			abort();
		return;
	}
	if (n % 4 || pos % 4 || pos > size_t(n))
		abort();
	std::vector<cmkit_u8> exact(n);
	if (Build(exact.data(), exact.size(), p, size, &pos2) != n || pos2 != pos ||
	    std::memcmp(exact.data(), big.data(), n))
		abort();
	std::vector<cmkit_u8> less(n - 1);
	if (Build(less.data(), less.size(), p, size, &pos2) != CMKIT_NFS4_E_NOSPACE)
		abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 5)
		return 0;
	cmkit_u32 flags = data[0] & CMKIT_NFS4_DEC_READ_CHUNK;
	cmkit_u32 chunk_len = (cmkit_u32)data[1] << 24 | (cmkit_u32)data[2] << 16 |
			      (cmkit_u32)data[3] << 8 | data[4];
	// An exact-size heap copy: ASan catches any read past the reply.
	std::vector<uint8_t> buf(data + 5, data + size);
	CheckDecode(buf.data(), buf.size(), flags, chunk_len);
	CheckDecode(buf.data(), buf.size(), flags ^ CMKIT_NFS4_DEC_READ_CHUNK, chunk_len);
	CheckEncode(buf.data(), buf.size());
	return 0;
}
