// SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause
/*
 * NFSv4.0 COMPOUND (RFC 7530, RFC 7531) and an RPC call header with an
 * AUTH_SYS credential: the bodies of include/cmkit/nfs4.h.  No kernel or
 * libc header: built into cmkit.ko by kbuild and, as C, into the host
 * tests and the fuzz targets.
 */
#include "cmkit/nfs4.h"
#include "cmkit/rpcrdma_msg.h"	/* struct cmkit_xdr_in */

const struct cmkit_nfs4_stateid cmkit_nfs4_anonymous_stateid = {
	0, { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
};

const struct cmkit_nfs4_stateid cmkit_nfs4_bypass_stateid = {
	0xffffffffU,
	{ 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
};

/* XDR's roundup of an opaque of @n bytes. */
static cmkit_size cmkit_nfs4_pad(cmkit_size n)
{
	return (4 - (n & 3)) & 3;
}

/* ---- encoding ---------------------------------------------------------- */

/*
 * Room for @need more bytes and one more operation, or the failure (kept in
 * @e->err).  Called before anything of an operation is written.
 */
static int cmkit_nfs4_room(struct cmkit_nfs4_enc *e, cmkit_size need)
{
	if (!e)
		return CMKIT_NFS4_E_ARG;
	if (e->err)
		return e->err;
	if (e->numops >= CMKIT_NFS4_MAX_OPS)
		return e->err = CMKIT_NFS4_E_ARG;
	if (need > e->len - e->off)
		return e->err = CMKIT_NFS4_E_NOSPACE;
	return 0;
}

static void cmkit_nfs4_put32(struct cmkit_nfs4_enc *e, cmkit_u32 v)
{
	cmkit_put_be32(e->buf + e->off, v);
	e->off += 4;
}

static void cmkit_nfs4_put64(struct cmkit_nfs4_enc *e, cmkit_u64 v)
{
	cmkit_put_be64(e->buf + e->off, v);
	e->off += 8;
}

/* Bytes, then their zero roundup. */
static void cmkit_nfs4_put_bytes(struct cmkit_nfs4_enc *e, const void *p, cmkit_size n)
{
	cmkit_size pad = cmkit_nfs4_pad(n);

	if (n)
		cmkit_copy(e->buf + e->off, p, n);
	e->off += n;
	cmkit_zero(e->buf + e->off, pad);
	e->off += pad;
}

static void cmkit_nfs4_put_opaque(struct cmkit_nfs4_enc *e, const void *p, cmkit_u32 n)
{
	cmkit_nfs4_put32(e, n);
	cmkit_nfs4_put_bytes(e, p, n);
}

static void cmkit_nfs4_put_stateid(struct cmkit_nfs4_enc *e,
				   const struct cmkit_nfs4_stateid *sid)
{
	cmkit_nfs4_put32(e, sid->seqid);
	cmkit_nfs4_put_bytes(e, sid->other, CMKIT_NFS4_OTHER_SIZE);
}

/* An operation without arguments. */
static int cmkit_nfs4_enc_void(struct cmkit_nfs4_enc *e, cmkit_u32 op)
{
	int rc = cmkit_nfs4_room(e, 4);

	if (rc)
		return rc;
	cmkit_nfs4_put32(e, op);
	e->numops++;
	return 0;
}

/**
 * cmkit_nfs4_enc_begin - start a COMPOUND4args
 * @e: the encoder
 * @buf: output buffer
 * @buflen: its size
 * @tag: the tag's bytes (NULL when @taglen is 0)
 * @taglen: their number, at most CMKIT_NFS4_MAX_TAG
 *
 * Return: 0, or CMKIT_NFS4_E_ARG or CMKIT_NFS4_E_NOSPACE (also in @e->err).
 */
int cmkit_nfs4_enc_begin(struct cmkit_nfs4_enc *e, void *buf, cmkit_size buflen,
			 const void *tag, cmkit_u32 taglen)
{
	cmkit_size need;

	if (!e)
		return CMKIT_NFS4_E_ARG;
	e->buf = (cmkit_u8 *)buf;
	e->len = buf ? buflen : 0;
	e->off = 0;
	e->numops_off = 0;
	e->numops = 0;
	e->err = 0;
	if (!buf || taglen > CMKIT_NFS4_MAX_TAG || (taglen && !tag))
		return e->err = CMKIT_NFS4_E_ARG;
	need = 4 + taglen + cmkit_nfs4_pad(taglen) + 8;
	if (buflen < need)
		return e->err = CMKIT_NFS4_E_NOSPACE;
	cmkit_nfs4_put_opaque(e, tag, taglen);
	cmkit_nfs4_put32(e, CMKIT_NFS4_MINOR_VERSION);
	e->numops_off = e->off;
	cmkit_nfs4_put32(e, 0);
	return 0;
}

/**
 * cmkit_nfs4_enc_putrootfh - append PUTROOTFH
 * @e: the encoder
 *
 * Return: 0, or a failure (see include/cmkit/nfs4.h).
 */
int cmkit_nfs4_enc_putrootfh(struct cmkit_nfs4_enc *e)
{
	return cmkit_nfs4_enc_void(e, CMKIT_NFS4_OP_PUTROOTFH);
}

/**
 * cmkit_nfs4_enc_getfh - append GETFH
 * @e: the encoder
 *
 * Return: 0, or a failure (see include/cmkit/nfs4.h).
 */
int cmkit_nfs4_enc_getfh(struct cmkit_nfs4_enc *e)
{
	return cmkit_nfs4_enc_void(e, CMKIT_NFS4_OP_GETFH);
}

/* An operation whose argument is one opaque of 1..@max bytes. */
static int cmkit_nfs4_enc_opaque_op(struct cmkit_nfs4_enc *e, cmkit_u32 op, const void *p,
				    cmkit_u32 n, cmkit_u32 max)
{
	int rc;

	if (e && !e->err && (!p || !n || n > max))
		return e->err = CMKIT_NFS4_E_ARG;
	rc = cmkit_nfs4_room(e, 8 + n + cmkit_nfs4_pad(n));
	if (rc)
		return rc;
	cmkit_nfs4_put32(e, op);
	cmkit_nfs4_put_opaque(e, p, n);
	e->numops++;
	return 0;
}

/**
 * cmkit_nfs4_enc_putfh - append PUTFH
 * @e: the encoder
 * @fh: the file handle
 * @fhlen: its length, 1..CMKIT_NFS4_FHSIZE
 *
 * Return: 0, or a failure (see include/cmkit/nfs4.h).
 */
int cmkit_nfs4_enc_putfh(struct cmkit_nfs4_enc *e, const void *fh, cmkit_u32 fhlen)
{
	return cmkit_nfs4_enc_opaque_op(e, CMKIT_NFS4_OP_PUTFH, fh, fhlen, CMKIT_NFS4_FHSIZE);
}

/**
 * cmkit_nfs4_enc_lookup - append LOOKUP
 * @e: the encoder
 * @name: the component's bytes (UTF-8, no NUL)
 * @namelen: their number, 1..CMKIT_NFS4_MAXNAMLEN
 *
 * Return: 0, or a failure (see include/cmkit/nfs4.h).
 */
int cmkit_nfs4_enc_lookup(struct cmkit_nfs4_enc *e, const void *name, cmkit_u32 namelen)
{
	return cmkit_nfs4_enc_opaque_op(e, CMKIT_NFS4_OP_LOOKUP, name, namelen,
					CMKIT_NFS4_MAXNAMLEN);
}

/**
 * cmkit_nfs4_enc_getattr - append GETATTR
 * @e: the encoder
 * @mask: the attribute bitmap's words
 * @nwords: their number, 1..CMKIT_NFS4_BITMAP_WORDS
 *
 * Return: 0, or a failure (see include/cmkit/nfs4.h).
 */
int cmkit_nfs4_enc_getattr(struct cmkit_nfs4_enc *e, const cmkit_u32 *mask, cmkit_u32 nwords)
{
	cmkit_u32 i;
	int rc;

	if (e && !e->err && (!mask || !nwords || nwords > CMKIT_NFS4_BITMAP_WORDS))
		return e->err = CMKIT_NFS4_E_ARG;
	rc = cmkit_nfs4_room(e, 8 + 4 * (cmkit_size)nwords);
	if (rc)
		return rc;
	cmkit_nfs4_put32(e, CMKIT_NFS4_OP_GETATTR);
	cmkit_nfs4_put32(e, nwords);
	for (i = 0; i < nwords; i++)
		cmkit_nfs4_put32(e, mask[i]);
	e->numops++;
	return 0;
}

/**
 * cmkit_nfs4_enc_read - append READ
 * @e: the encoder
 * @sid: the stateid (e.g. &cmkit_nfs4_bypass_stateid)
 * @offset: the file offset
 * @count: bytes to read
 *
 * Return: 0, or a failure (see include/cmkit/nfs4.h).
 */
int cmkit_nfs4_enc_read(struct cmkit_nfs4_enc *e, const struct cmkit_nfs4_stateid *sid,
			cmkit_u64 offset, cmkit_u32 count)
{
	int rc;

	if (e && !e->err && !sid)
		return e->err = CMKIT_NFS4_E_ARG;
	rc = cmkit_nfs4_room(e, 4 + 16 + 8 + 4);
	if (rc)
		return rc;
	cmkit_nfs4_put32(e, CMKIT_NFS4_OP_READ);
	cmkit_nfs4_put_stateid(e, sid);
	cmkit_nfs4_put64(e, offset);
	cmkit_nfs4_put32(e, count);
	e->numops++;
	return 0;
}

/**
 * cmkit_nfs4_enc_write - append WRITE
 * @e: the encoder
 * @sid: the stateid (e.g. &cmkit_nfs4_anonymous_stateid)
 * @offset: the file offset
 * @stable: CMKIT_NFS4_UNSTABLE, CMKIT_NFS4_DATA_SYNC or CMKIT_NFS4_FILE_SYNC
 * @data: the data, inline; NULL: only its length is written, the bytes go
 *	in a read chunk
 * @len: the data's length
 * @data_pos: if not NULL, set to where the data starts in the
 *	COMPOUND4args (inline) or would start (in a read chunk)
 *
 * Return: 0, or a failure (see include/cmkit/nfs4.h).
 */
int cmkit_nfs4_enc_write(struct cmkit_nfs4_enc *e, const struct cmkit_nfs4_stateid *sid,
			 cmkit_u64 offset, cmkit_u32 stable, const void *data, cmkit_u32 len,
			 cmkit_size *data_pos)
{
	cmkit_size inline_len = data ? len + cmkit_nfs4_pad(len) : 0;
	int rc;

	if (e && !e->err && (!sid || stable > CMKIT_NFS4_FILE_SYNC))
		return e->err = CMKIT_NFS4_E_ARG;
	rc = cmkit_nfs4_room(e, 4 + 16 + 8 + 4 + 4 + inline_len);
	if (rc)
		return rc;
	cmkit_nfs4_put32(e, CMKIT_NFS4_OP_WRITE);
	cmkit_nfs4_put_stateid(e, sid);
	cmkit_nfs4_put64(e, offset);
	cmkit_nfs4_put32(e, stable);
	cmkit_nfs4_put32(e, len);
	if (data_pos)
		*data_pos = e->off;
	if (data)
		cmkit_nfs4_put_bytes(e, data, len);
	e->numops++;
	return 0;
}

/**
 * cmkit_nfs4_enc_end - finish a COMPOUND4args
 * @e: the encoder
 *
 * Return: its length, or the first failure.
 */
int cmkit_nfs4_enc_end(struct cmkit_nfs4_enc *e)
{
	if (!e)
		return CMKIT_NFS4_E_ARG;
	if (e->err)
		return e->err;
	if (e->off > 0x7fffffffU)
		return e->err = CMKIT_NFS4_E_ARG;
	cmkit_put_be32(e->buf + e->numops_off, e->numops);
	return (int)e->off;
}

/* ---- decoding ---------------------------------------------------------- */

static int cmkit_nfs4_get32(struct cmkit_xdr_in *x, cmkit_u32 *v)
{
	if (x->len - x->off < 4)
		return CMKIT_NFS4_E_SHORT;
	*v = cmkit_get_be32(x->p + x->off);
	x->off += 4;
	return 0;
}

static int cmkit_nfs4_get64(struct cmkit_xdr_in *x, cmkit_u64 *v)
{
	if (x->len - x->off < 8)
		return CMKIT_NFS4_E_SHORT;
	*v = cmkit_get_be64(x->p + x->off);
	x->off += 8;
	return 0;
}

/* A value of 0..@max; *@v is left alone when it is not one. */
static int cmkit_nfs4_get_enum(struct cmkit_xdr_in *x, cmkit_u32 max, cmkit_u32 *v)
{
	cmkit_u32 w;
	int rc = cmkit_nfs4_get32(x, &w);

	if (rc)
		return rc;
	if (w > max)
		return CMKIT_NFS4_E_XDR;
	*v = w;
	return 0;
}

static int cmkit_nfs4_get_bool(struct cmkit_xdr_in *x, cmkit_u32 *v)
{
	return cmkit_nfs4_get_enum(x, 1, v);
}

/* Skip @n bytes and their roundup. */
static int cmkit_nfs4_skip(struct cmkit_xdr_in *x, cmkit_u32 n)
{
	cmkit_size left = x->len - x->off;

	if (n > left || cmkit_nfs4_pad(n) > left - n)
		return CMKIT_NFS4_E_SHORT;
	x->off += n + cmkit_nfs4_pad(n);
	return 0;
}

/*
 * An opaque<@max>: its length checked against @max before it is checked
 * against the bytes left; *@p (NULL when empty) and *@n set on success.
 */
static int cmkit_nfs4_get_opaque(struct cmkit_xdr_in *x, cmkit_u32 max,
				 const cmkit_u8 **p, cmkit_u32 *n)
{
	cmkit_u32 len;
	cmkit_size at;
	int rc = cmkit_nfs4_get32(x, &len);

	if (rc)
		return rc;
	if (len > max)
		return CMKIT_NFS4_E_LEN;
	at = x->off;
	rc = cmkit_nfs4_skip(x, len);
	if (rc)
		return rc;
	*p = len ? x->p + at : (const cmkit_u8 *)0;
	*n = len;
	return 0;
}

/* An opaque of any length, skipped. */
static int cmkit_nfs4_skip_opaque(struct cmkit_xdr_in *x)
{
	cmkit_u32 len;
	int rc = cmkit_nfs4_get32(x, &len);

	return rc ? rc : cmkit_nfs4_skip(x, len);
}

/*
 * A bitmap4 of at most @max words: the first CMKIT_NFS4_BITMAP_WORDS into
 * @mask (the rest zeroed), the number sent into *@words.
 */
static int cmkit_nfs4_get_bitmap(struct cmkit_xdr_in *x, cmkit_u32 max, cmkit_u32 *mask,
				 cmkit_u32 *words, cmkit_u32 *beyond)
{
	cmkit_u32 n, i, w;
	int rc = cmkit_nfs4_get32(x, &n);

	if (rc)
		return rc;
	if (n > max)
		return CMKIT_NFS4_E_LEN;
	if (n > (x->len - x->off) / 4)
		return CMKIT_NFS4_E_SHORT;
	*beyond = 0;
	for (i = 0; i < CMKIT_NFS4_BITMAP_WORDS; i++)
		mask[i] = 0;
	for (i = 0; i < n; i++) {
		w = cmkit_get_be32(x->p + x->off);	/* all n words are there */
		x->off += 4;
		if (i < CMKIT_NFS4_BITMAP_WORDS)
			mask[i] = w;
		else
			*beyond |= w;
	}
	*words = n;
	return 0;
}

static int cmkit_nfs4_bit(const cmkit_u32 *mask, cmkit_u32 bit)
{
	return (mask[bit / 32] >> (bit % 32)) & 1;
}

/* One attribute, number @bit (at most CMKIT_NFS4_FATTR_KNOWN_MAX), of @x into @a. */
static int cmkit_nfs4_get_attr(struct cmkit_xdr_in *x, cmkit_u32 bit,
			       struct cmkit_nfs4_fattr *a)
{
	cmkit_u32 v, n, i, m[CMKIT_NFS4_BITMAP_WORDS], words, beyond;
	int rc;

	switch (bit) {
	case CMKIT_NFS4_FATTR_SUPPORTED_ATTRS:
		return cmkit_nfs4_get_bitmap(x, CMKIT_NFS4_MAX_BITMAP_WORDS, m, &words, &beyond);
	case CMKIT_NFS4_FATTR_TYPE:
		rc = cmkit_nfs4_get32(x, &v);
		if (rc)
			return rc;
		if (v < CMKIT_NFS4_NF4REG || v > CMKIT_NFS4_NF4NAMEDATTR)
			return CMKIT_NFS4_E_XDR;
		a->type = v;
		a->have |= CMKIT_NFS4_HAVE_TYPE;
		return 0;
	case CMKIT_NFS4_FATTR_CHANGE:
		rc = cmkit_nfs4_get64(x, &a->change);
		if (!rc)
			a->have |= CMKIT_NFS4_HAVE_CHANGE;
		return rc;
	case CMKIT_NFS4_FATTR_SIZE:
		rc = cmkit_nfs4_get64(x, &a->size);
		if (!rc)
			a->have |= CMKIT_NFS4_HAVE_SIZE;
		return rc;
	case CMKIT_NFS4_FATTR_FILEID:
		rc = cmkit_nfs4_get64(x, &a->fileid);
		if (!rc)
			a->have |= CMKIT_NFS4_HAVE_FILEID;
		return rc;
	case 2:		/* fh_expire_type */
	case 10:	/* lease_time */
	case 11:	/* rdattr_error */
	case 13:	/* aclsupport */
		return cmkit_nfs4_get32(x, &v);
	case 5:		/* link_support */
	case 6:		/* symlink_support */
	case 7:		/* named_attr */
	case 9:		/* unique_handles */
	case 14:	/* archive */
	case 15:	/* cansettime */
	case 16:	/* case_insensitive */
	case 17:	/* case_preserving */
	case 18:	/* chown_restricted */
		return cmkit_nfs4_get_bool(x, &v);
	case 8:		/* fsid: major, minor */
		return cmkit_nfs4_skip(x, 16);
	case 12:	/* acl: nfsace4<>: type, flag, access_mask, who<> */
		rc = cmkit_nfs4_get32(x, &n);
		if (rc)
			return rc;
		if (n > (x->len - x->off) / 16)
			return CMKIT_NFS4_E_SHORT;
		for (i = 0; i < n; i++) {
			rc = cmkit_nfs4_skip(x, 12);
			if (!rc)
				rc = cmkit_nfs4_skip_opaque(x);
			if (rc)
				return rc;
		}
		return 0;
	case 19: {	/* filehandle */
		const cmkit_u8 *p;

		return cmkit_nfs4_get_opaque(x, CMKIT_NFS4_FHSIZE, &p, &n);
	}
	default:
		return CMKIT_NFS4_E_ARG;	/* not reached */
	}
}

/* A fattr4: its attrmask, then its attrlist4 decoded as far as known. */
static int cmkit_nfs4_get_fattr(struct cmkit_xdr_in *x, struct cmkit_nfs4_fattr *a)
{
	struct cmkit_xdr_in v;
	cmkit_u32 beyond, bit;
	int rc;

	rc = cmkit_nfs4_get_bitmap(x, CMKIT_NFS4_MAX_BITMAP_WORDS, a->mask, &a->mask_words,
				   &beyond);
	if (rc)
		return rc;
	rc = cmkit_nfs4_get_opaque(x, 0xffffffffU, &a->vals, &a->vals_len);
	if (rc)
		return rc;
	v.p = a->vals;
	v.len = a->vals_len;
	v.off = 0;
	for (bit = 0; bit <= CMKIT_NFS4_FATTR_KNOWN_MAX; bit++) {
		if (!cmkit_nfs4_bit(a->mask, bit))
			continue;
		rc = cmkit_nfs4_get_attr(&v, bit, a);
		if (rc)
			return rc == CMKIT_NFS4_E_SHORT ? CMKIT_NFS4_E_XDR : rc;
	}
	/* Any attribute after fileid is left as it is; with none, nothing may be left. */
	if (!beyond && !(a->mask[0] & ~((2U << CMKIT_NFS4_FATTR_KNOWN_MAX) - 1)) &&
	    !a->mask[1] && !a->mask[2] && v.off != v.len)
		return CMKIT_NFS4_E_XDR;
	return 0;
}

/* One successful result's body. */
static int cmkit_nfs4_get_result(struct cmkit_xdr_in *x, struct cmkit_nfs4_opres *r,
				 int *chunk, cmkit_u32 chunk_len)
{
	cmkit_u32 n;
	int rc;

	switch (r->op) {
	case CMKIT_NFS4_OP_PUTROOTFH:
	case CMKIT_NFS4_OP_PUTFH:
	case CMKIT_NFS4_OP_LOOKUP:
		return 0;
	case CMKIT_NFS4_OP_GETFH:
		return cmkit_nfs4_get_opaque(x, CMKIT_NFS4_FHSIZE, &r->fh, &r->fh_len);
	case CMKIT_NFS4_OP_GETATTR:
		return cmkit_nfs4_get_fattr(x, &r->attr);
	case CMKIT_NFS4_OP_READ:
		rc = cmkit_nfs4_get_bool(x, &r->eof);
		if (!rc)
			rc = cmkit_nfs4_get32(x, &n);
		if (rc)
			return rc;
		r->count = n;
		r->data_off = x->off;
		if (*chunk) {
			/* RFC 8166, 3.4.6: neither the bytes nor their roundup are inline. */
			*chunk = 0;
			r->in_chunk = 1;
			return n > chunk_len ? CMKIT_NFS4_E_CHUNK : 0;
		}
		return cmkit_nfs4_skip(x, n);
	case CMKIT_NFS4_OP_WRITE:
		rc = cmkit_nfs4_get32(x, &r->count);
		if (!rc)
			rc = cmkit_nfs4_get_enum(x, CMKIT_NFS4_FILE_SYNC, &r->committed);
		if (rc)
			return rc;
		if (x->len - x->off < CMKIT_NFS4_VERIFIER_SIZE)
			return CMKIT_NFS4_E_SHORT;
		cmkit_copy(r->verf, x->p + x->off, CMKIT_NFS4_VERIFIER_SIZE);
		x->off += CMKIT_NFS4_VERIFIER_SIZE;
		return 0;
	default:
		return CMKIT_NFS4_E_OP;
	}
}

/**
 * cmkit_nfs4_decode_compound - decode a COMPOUND4res
 * @buf: the reply's results
 * @len: their length
 * @flags: CMKIT_NFS4_DEC_READ_CHUNK or 0
 * @chunk_len: with CMKIT_NFS4_DEC_READ_CHUNK, the bytes in the write chunk
 * @res: the decoded reply
 *
 * Return: CMKIT_NFS4_R_OK, or a failure (see include/cmkit/nfs4.h).
 */
int cmkit_nfs4_decode_compound(const void *buf, cmkit_size len, cmkit_u32 flags,
			       cmkit_u32 chunk_len, struct cmkit_nfs4_compound_res *res)
{
	struct cmkit_xdr_in x;
	cmkit_u32 numres, i;
	int chunk = (flags & CMKIT_NFS4_DEC_READ_CHUNK) != 0;
	int rc;

	if (!res)
		return CMKIT_NFS4_E_ARG;
	cmkit_zero(res, sizeof(*res));
	if ((!buf && len) || (flags & ~(cmkit_u32)CMKIT_NFS4_DEC_READ_CHUNK))
		return CMKIT_NFS4_E_ARG;
	x.p = (const cmkit_u8 *)buf;
	x.len = len;
	x.off = 0;
	rc = cmkit_nfs4_get32(&x, &res->status);
	if (!rc)
		rc = cmkit_nfs4_get_opaque(&x, CMKIT_NFS4_MAX_TAG, &res->tag, &res->tag_len);
	if (!rc)
		rc = cmkit_nfs4_get32(&x, &numres);
	if (rc)
		goto out;
	rc = CMKIT_NFS4_E_LEN;
	if (numres > CMKIT_NFS4_MAX_OPS)
		goto out;
	rc = CMKIT_NFS4_E_SHORT;
	if (numres > (x.len - x.off) / 8)	/* opnum and status at least */
		goto out;
	for (i = 0; i < numres; i++) {
		struct cmkit_nfs4_opres *r = &res->res[i];

		rc = cmkit_nfs4_get32(&x, &r->op);
		if (!rc)
			rc = cmkit_nfs4_get32(&x, &r->status);
		if (rc)
			goto out;
		res->numres = i + 1;
		if (r->status != CMKIT_NFS4_OK) {
			/* The last result: the server stopped here. */
			rc = CMKIT_NFS4_E_XDR;
			if (i + 1 != numres || r->status != res->status)
				goto out;
			break;
		}
		rc = cmkit_nfs4_get_result(&x, r, &chunk, chunk_len);
		if (rc)
			goto out;
	}
	rc = CMKIT_NFS4_E_XDR;
	if (res->numres && res->res[res->numres - 1].status == CMKIT_NFS4_OK &&
	    res->status != CMKIT_NFS4_OK)
		goto out;
	if (x.off != x.len)
		goto out;
	rc = 0;
out:
	res->len = x.off;
	return rc;
}

/* ---- RPC call header --------------------------------------------------- */

/**
 * cmkit_rpc_encode_call_hdr - write an RPC call header with a credential
 * @buf: output buffer
 * @buflen: its size
 * @xid: the RPC xid
 * @prog: program
 * @vers: program version
 * @proc: procedure
 * @cred: an AUTH_SYS credential, or NULL for AUTH_NONE
 *
 * Return: the header's length, or CMKIT_NFS4_E_ARG or CMKIT_NFS4_E_NOSPACE
 * (then nothing was written).
 */
int cmkit_rpc_encode_call_hdr(void *buf, cmkit_size buflen, cmkit_u32 xid, cmkit_u32 prog,
			      cmkit_u32 vers, cmkit_u32 proc,
			      const struct cmkit_rpc_authsys *cred)
{
	struct cmkit_nfs4_enc e;
	cmkit_size body = 0, need;
	cmkit_u32 i;

	if (!buf)
		return CMKIT_NFS4_E_ARG;
	if (cred) {
		if (cred->machine_len > CMKIT_NFS4_MAX_MACHINE ||
		    (cred->machine_len && !cred->machine) ||
		    cred->ngids > CMKIT_NFS4_MAX_GIDS || (cred->ngids && !cred->gids))
			return CMKIT_NFS4_E_ARG;
		/* stamp, machinename<>, uid, gid, gids<>: at most 340 of 400 bytes */
		body = 4 + 4 + cred->machine_len + cmkit_nfs4_pad(cred->machine_len) +
		       4 + 4 + 4 + 4 * (cmkit_size)cred->ngids;
	}
	need = 40 + body;
	if (buflen < need)
		return CMKIT_NFS4_E_NOSPACE;
	e.buf = (cmkit_u8 *)buf;
	e.len = buflen;
	e.off = 0;
	cmkit_nfs4_put32(&e, xid);
	cmkit_nfs4_put32(&e, 0);	/* CALL */
	cmkit_nfs4_put32(&e, 2);	/* RPC version */
	cmkit_nfs4_put32(&e, prog);
	cmkit_nfs4_put32(&e, vers);
	cmkit_nfs4_put32(&e, proc);
	if (cred) {
		cmkit_nfs4_put32(&e, 1);	/* AUTH_SYS */
		cmkit_nfs4_put32(&e, (cmkit_u32)body);
		cmkit_nfs4_put32(&e, cred->stamp);
		cmkit_nfs4_put_opaque(&e, cred->machine, cred->machine_len);
		cmkit_nfs4_put32(&e, cred->uid);
		cmkit_nfs4_put32(&e, cred->gid);
		cmkit_nfs4_put32(&e, cred->ngids);
		for (i = 0; i < cred->ngids; i++)
			cmkit_nfs4_put32(&e, cred->gids[i]);
	} else {
		cmkit_nfs4_put32(&e, 0);	/* AUTH_NONE */
		cmkit_nfs4_put32(&e, 0);
	}
	cmkit_nfs4_put32(&e, 0);		/* verifier: AUTH_NONE */
	cmkit_nfs4_put32(&e, 0);
	return (int)e.off;
}

/**
 * cmkit_nfs4_result_name - a result's name
 * @result: a cmkit_nfs4_result
 *
 * Return: "OK", "E_SHORT", ..., or "?".
 */
const char *cmkit_nfs4_result_name(int result)
{
	switch (result) {
	case CMKIT_NFS4_R_OK:
		return "OK";
	case CMKIT_NFS4_E_SHORT:
		return "E_SHORT";
	case CMKIT_NFS4_E_XDR:
		return "E_XDR";
	case CMKIT_NFS4_E_LEN:
		return "E_LEN";
	case CMKIT_NFS4_E_OP:
		return "E_OP";
	case CMKIT_NFS4_E_CHUNK:
		return "E_CHUNK";
	case CMKIT_NFS4_E_NOSPACE:
		return "E_NOSPACE";
	case CMKIT_NFS4_E_ARG:
		return "E_ARG";
	default:
		return "?";
	}
}
