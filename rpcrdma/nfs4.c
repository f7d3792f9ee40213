// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit rpcrdma: NFSv4.0 COMPOUNDs (RFC 7530) to a server's export over
 * RPC-over-RDMA, on cmkit_rpcrdma_call_chunks(): the COMPOUND is encoded
 * by lib/nfs4.c behind an AUTH_SYS credential (uid 0, gid 0), a READ's
 * data comes back in a write chunk over the caller's pages, a WRITE's
 * data goes in a read chunk over the caller's pages at the XDR position
 * cmkit_nfs4_enc_write() reports (RFC 8267: both are DDP-eligible).
 *
 * No OPEN: READ uses the READ-bypass stateid (all ones) and WRITE the
 * anonymous one (all zeros), which nfsd takes without open state when no
 * share reservation conflicts (check_special_stateids() in
 * fs/nfsd/nfs4state.c), though not during its grace period: a COMPOUND
 * answered NFS4ERR_GRACE is sent again, as a new call, after a wait, a
 * bounded number of times.
 */
#define pr_fmt(fmt) "cmkit: rpcrdma: " fmt

#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "core/cmkit.h"
#include "rpcrdma/rpcrdma.h"
#include "rpcrdma/trace.h"

/* Room for the RPC call inline: the header with its credential and the COMPOUND. */
#define RPCRDMA_NFS4_CALL_MAX		1024
/* Room for the COMPOUND4res inline (it must fit an inline receive anyway). */
#define RPCRDMA_NFS4_RES_MAX		RPCRDMA_MAX_INLINE
/* NFS4ERR_GRACE: wait this long between tries, and try at most this often. */
#define RPCRDMA_NFS4_GRACE_WAIT_MS	1000
#define RPCRDMA_NFS4_GRACE_TRIES	20

/* The credential: root, as nfsd's no_root_squash export lets it write. */
static const struct cmkit_rpc_authsys rpcrdma_nfs4_cred = {
	.machine = "cmkit",
	.machine_len = 5,
};

/* One COMPOUND being sent: its call, its results and their decoding. */
struct rpcrdma_nfs4_call {
	u8 call[RPCRDMA_NFS4_CALL_MAX];
	u32 hdr_len;
	struct cmkit_nfs4_enc e;
	struct cmkit_rpcrdma_chunked c;
	struct cmkit_nfs4_compound_res dec;
	u8 res[RPCRDMA_NFS4_RES_MAX];
};

static struct rpcrdma_nfs4_call *rpcrdma_nfs4_begin(void)
{
	struct rpcrdma_nfs4_call *nc = kvzalloc(sizeof(*nc), GFP_KERNEL);
	int len;

	if (!nc)
		return NULL;
	/* The header's length does not depend on the xid: written again per try. */
	len = cmkit_rpc_encode_call_hdr(nc->call, sizeof(nc->call), 0, CMKIT_NFS4_PROGRAM,
					CMKIT_NFS4_VERSION, CMKIT_NFS4_PROC_COMPOUND,
					&rpcrdma_nfs4_cred);
	if (len < 0 ||
	    cmkit_nfs4_enc_begin(&nc->e, nc->call + len, sizeof(nc->call) - len, NULL, 0)) {
		kvfree(nc);
		return NULL;
	}
	nc->hdr_len = len;
	return nc;
}

/*
 * Send the COMPOUND encoded in @nc (its chunks in nc->c) and decode its
 * reply into nc->dec; answered NFS4ERR_GRACE, send it again after a wait.
 * 0 when every operation succeeded; -EREMOTEIO when one failed (its status
 * in f->status); -EPROTO for a reply the decoder refused; else the call's
 * errno.
 */
static int rpcrdma_nfs4_send(struct rpcrdma_xprt *r_xprt, struct rpcrdma_nfs4_call *nc,
			     struct cmkit_rpcrdma_nfs4_file *f, u32 flags)
{
	u32 tries = 0, first_op, last_op;
	int len, rc, dec;

	len = cmkit_nfs4_enc_end(&nc->e);
	if (len < 0)
		return -EINVAL;
	first_op = cmkit_get_be32(nc->call + nc->hdr_len + 12);
	nc->c.call = nc->call;
	nc->c.call_len = nc->hdr_len + len;
	nc->c.res = nc->res;
	nc->c.res_max = sizeof(nc->res);
	for (;;) {
		nc->c.xid = cmkit_rpcrdma_xid_get(r_xprt);
		cmkit_put_be32(nc->call, nc->c.xid);
		rc = cmkit_rpcrdma_call_chunks(r_xprt, CMKIT_NFS4_PROGRAM, CMKIT_NFS4_VERSION,
					       CMKIT_NFS4_PROC_COMPOUND, &nc->c);
		dec = CMKIT_NFS4_E_ARG;
		if (!rc)
			dec = cmkit_nfs4_decode_compound(nc->res, nc->c.res_len, flags,
							 nc->c.write_len, &nc->dec);
		last_op = nc->dec.numres ? nc->dec.res[nc->dec.numres - 1].op : 0;
		trace_cmkit_rpcrdma_nfs4_compound(r_xprt->rx_xid, first_op, rc, dec,
						  nc->dec.status, last_op);
		if (rc)
			return rc;
		if (dec != CMKIT_NFS4_R_OK) {
			pr_warn_ratelimited("xprt %u: COMPOUND reply refused: %s\n",
					    r_xprt->rx_xid, cmkit_nfs4_result_name(dec));
			return -EPROTO;
		}
		if (nc->dec.status != RPCRDMA_NFS4ERR_GRACE || ++tries >= RPCRDMA_NFS4_GRACE_TRIES)
			break;
		/* Only for the server's grace period, bounded: it ends by itself. */
		f->grace_waits++;
		trace_cmkit_rpcrdma_nfs4_grace(r_xprt->rx_xid, tries);
		if (msleep_interruptible(RPCRDMA_NFS4_GRACE_WAIT_MS))
			return -EINTR;
	}
	if (nc->dec.status != CMKIT_NFS4_OK) {
		f->status = nc->dec.status;
		pr_info_ratelimited("xprt %u: COMPOUND failed at op %u: nfsstat4 %u\n",
				    r_xprt->rx_xid, last_op, nc->dec.status);
		return -EREMOTEIO;
	}
	return 0;
}

/**
 * cmkit_rpcrdma_nfs4_lookup - find a file of the server's pseudo-root
 * @r_xprt: a connected transport
 * @name: the file's name in the pseudo-root's directory
 * @f: out: its file handle and size
 *
 * One COMPOUND: PUTROOTFH, LOOKUP @name, GETFH, GETATTR (type, size).
 *
 * Return: 0; -EINVAL for a bad @name; -EREMOTEIO when an operation
 * failed (its nfsstat4 in @f->status); -EPROTO for a reply that lacks a
 * result it must carry, or names no regular file; -ENOMEM; else the
 * call's errno (cmkit_rpcrdma_call_chunks()).
 */
int cmkit_rpcrdma_nfs4_lookup(struct rpcrdma_xprt *r_xprt, const char *name,
			      struct cmkit_rpcrdma_nfs4_file *f)
{
	const u32 mask[2] = { BIT(CMKIT_NFS4_FATTR_TYPE) | BIT(CMKIT_NFS4_FATTR_SIZE), 0 };
	const struct cmkit_nfs4_opres *fh, *attr;
	struct rpcrdma_nfs4_call *nc;
	size_t len = strlen(name);
	int rc;

	memset(f, 0, sizeof(*f));
	if (!len || len > CMKIT_NFS4_MAXNAMLEN)
		return -EINVAL;
	nc = rpcrdma_nfs4_begin();
	if (!nc)
		return -ENOMEM;
	cmkit_nfs4_enc_putrootfh(&nc->e);
	cmkit_nfs4_enc_lookup(&nc->e, name, len);
	cmkit_nfs4_enc_getfh(&nc->e);
	cmkit_nfs4_enc_getattr(&nc->e, mask, 1);
	rc = rpcrdma_nfs4_send(r_xprt, nc, f, 0);
	if (rc)
		goto out;
	fh = &nc->dec.res[2];
	attr = &nc->dec.res[3];
	rc = -EPROTO;
	if (nc->dec.numres != 4 || fh->op != CMKIT_NFS4_OP_GETFH || !fh->fh_len ||
	    attr->op != CMKIT_NFS4_OP_GETATTR ||
	    (attr->attr.have & (CMKIT_NFS4_HAVE_TYPE | CMKIT_NFS4_HAVE_SIZE)) !=
	    (CMKIT_NFS4_HAVE_TYPE | CMKIT_NFS4_HAVE_SIZE) ||
	    attr->attr.type != CMKIT_NFS4_NF4REG) {
		pr_warn_ratelimited("xprt %u: LOOKUP %s: no file handle or no size of a regular file\n",
				    r_xprt->rx_xid, name);
		goto out;
	}
	memcpy(f->fh, fh->fh, fh->fh_len);
	f->fh_len = fh->fh_len;
	f->size = attr->attr.size;
	rc = 0;
out:
	kvfree(nc);
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_nfs4_lookup);

/**
 * cmkit_rpcrdma_nfs4_read - READ part of a file through a write chunk
 * @r_xprt: a connected transport
 * @f: the file (cmkit_rpcrdma_nfs4_lookup())
 * @offset: the file offset
 * @pages: where the data goes: room for @count bytes from their start
 *	(the write chunk maps them)
 * @count: bytes asked for, 1 up to one MR's worth
 * @got: out: bytes the server returned
 * @eof: out: the server says they reach the end of the file
 *
 * One COMPOUND: PUTFH, READ with the READ-bypass stateid; the data must
 * come in the write chunk, no more of it than was asked for.
 *
 * Return: 0; -EREMOTEIO when an operation failed (@f->status); -EPROTO
 * for a reply whose data is not in the write chunk or is longer than
 * asked; else as cmkit_rpcrdma_call_chunks().
 */
int cmkit_rpcrdma_nfs4_read(struct rpcrdma_xprt *r_xprt, struct cmkit_rpcrdma_nfs4_file *f,
			    u64 offset, struct page **pages, u32 count, u32 *got, bool *eof)
{
	const struct cmkit_nfs4_opres *rd;
	struct rpcrdma_nfs4_call *nc;
	int rc;

	*got = 0;
	*eof = false;
	if (!count || count % 4 || !f->fh_len)
		return -EINVAL;
	nc = rpcrdma_nfs4_begin();
	if (!nc)
		return -ENOMEM;
	cmkit_nfs4_enc_putfh(&nc->e, f->fh, f->fh_len);
	cmkit_nfs4_enc_read(&nc->e, &cmkit_nfs4_bypass_stateid, offset, count);
	nc->c.write = pages;
	nc->c.write_max = count;
	rc = rpcrdma_nfs4_send(r_xprt, nc, f, CMKIT_NFS4_DEC_READ_CHUNK);
	if (rc)
		goto out;
	rd = &nc->dec.res[1];
	rc = -EPROTO;
	if (nc->dec.numres != 2 || rd->op != CMKIT_NFS4_OP_READ || !rd->in_chunk ||
	    rd->count > count || rd->count != nc->c.write_len) {
		pr_warn_ratelimited("xprt %u: READ of %u bytes: %u bytes, write chunk %u bytes\n",
				    r_xprt->rx_xid, count, rd->count, nc->c.write_len);
		goto out;
	}
	*got = rd->count;
	*eof = rd->eof;
	rc = 0;
out:
	trace_cmkit_rpcrdma_nfs4_io(r_xprt->rx_xid, CMKIT_NFS4_OP_READ, offset, count, *got, rc);
	kvfree(nc);
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_nfs4_read);

/**
 * cmkit_rpcrdma_nfs4_write - WRITE to a file through a read chunk
 * @r_xprt: a connected transport
 * @f: the file (cmkit_rpcrdma_nfs4_lookup())
 * @offset: the file offset
 * @pages: the data: @len bytes from their start (the read chunk maps them)
 * @len: its length, a multiple of 4, 1 up to one MR's worth
 * @written: out: bytes the server says it wrote
 *
 * One COMPOUND: PUTFH, WRITE (FILE_SYNC) with the anonymous stateid, its
 * data in a read chunk at the position of the data's bytes.
 *
 * Return: 0; -EREMOTEIO when an operation failed (@f->status); -EPROTO
 * for a reply without the WRITE's result; else as
 * cmkit_rpcrdma_call_chunks().
 */
int cmkit_rpcrdma_nfs4_write(struct rpcrdma_xprt *r_xprt, struct cmkit_rpcrdma_nfs4_file *f,
			     u64 offset, struct page **pages, u32 len, u32 *written)
{
	const struct cmkit_nfs4_opres *wr;
	struct rpcrdma_nfs4_call *nc;
	cmkit_size pos = 0;
	int rc;

	*written = 0;
	if (!len || len % 4 || !f->fh_len)
		return -EINVAL;
	nc = rpcrdma_nfs4_begin();
	if (!nc)
		return -ENOMEM;
	cmkit_nfs4_enc_putfh(&nc->e, f->fh, f->fh_len);
	cmkit_nfs4_enc_write(&nc->e, &cmkit_nfs4_anonymous_stateid, offset, CMKIT_NFS4_FILE_SYNC,
			     NULL, len, &pos);
	nc->c.read = pages;
	nc->c.read_len = len;
	nc->c.read_pos = nc->hdr_len + pos;
	rc = rpcrdma_nfs4_send(r_xprt, nc, f, 0);
	if (rc)
		goto out;
	wr = &nc->dec.res[1];
	rc = -EPROTO;
	if (nc->dec.numres != 2 || wr->op != CMKIT_NFS4_OP_WRITE || wr->count > len) {
		pr_warn_ratelimited("xprt %u: WRITE of %u bytes: the reply says %u\n",
				    r_xprt->rx_xid, len, wr->count);
		goto out;
	}
	*written = wr->count;
	rc = 0;
out:
	trace_cmkit_rpcrdma_nfs4_io(r_xprt->rx_xid, CMKIT_NFS4_OP_WRITE, offset, len, *written, rc);
	kvfree(nc);
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_nfs4_write);
