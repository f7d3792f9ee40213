/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/*
 * NFSv4.0 COMPOUND (RFC 7530, XDR in RFC 7531) for the RPC-over-RDMA
 * client endpoint: the COMPOUND4args body a client sends and the
 * COMPOUND4res it gets back, for the few operations it uses, and an RPC
 * call header with an AUTH_SYS credential (nfsd's exports refuse AUTH_NONE
 * unless they say sec=none).
 *
 * Every field is a big-endian 32-bit XDR word; hypers (offset4, length4,
 * changeid4, fileid) are two, high word first; opaques are a length word,
 * the bytes, and zero padding to 4.
 *
 *   COMPOUND4args: tag<> | minorversion (0) | numops | argop4[numops]
 *   argop4:        opnum | the operation's arguments
 *     PUTROOTFH 24, GETFH 10:  nothing
 *     PUTFH 22:      nfs_fh4 object (opaque<NFS4_FHSIZE = 128>)
 *     LOOKUP 15:     component4 objname (utf8 string<>)
 *     GETATTR 9:     bitmap4 attr_request (uint32<>)
 *     READ 25:       stateid4 | offset4 | count4
 *     WRITE 38:      stateid4 | offset4 | stable_how4 | opaque data<>
 *   stateid4:      seqid | other[12]
 *
 *   COMPOUND4res:  status | tag<> | numres | resop4[numres]
 *   resop4:        opnum | status | (status NFS4_OK only:) results
 *     GETFH:         nfs_fh4 object
 *     GETATTR:       fattr4 { bitmap4 attrmask; opaque attr_vals<> }
 *     READ:          bool eof | opaque data<>
 *     WRITE:         count4 count | stable_how4 committed | verifier4[8]
 *     PUTROOTFH, PUTFH, LOOKUP: nothing
 * The server runs the operations in order and stops at the first that
 * fails: that one is the last result, and its status is the COMPOUND's.
 *
 * RPC-over-RDMA (RFC 8166 and RFC 8267, NFS's upper-layer binding): a
 * WRITE's data and a READ's data are DDP-eligible.  A WRITE whose data goes
 * in a read chunk keeps only the data's length word inline; the chunk's
 * position is the XDR position where the bytes would be (counted from the
 * RPC call's xid: the RPC call header's length plus the offset that
 * cmkit_nfs4_enc_write() reports), and the inline stream goes on there with
 * the next operation (no roundup either: RFC 8166, section 3.4.5).  A READ
 * reply whose data went to a write chunk likewise keeps only eof and the
 * length word inline: cmkit_nfs4_decode_compound() with
 * CMKIT_NFS4_DEC_READ_CHUNK expects no bytes after the length of the first
 * READ result (a later READ is inline: cmkit offers one write chunk).
 *
 * Nothing here reads or writes past the lengths it is given, and nothing
 * trusts a length from the wire before checking it against those lengths
 * and against its XDR bound.  No allocation: the decoder's pointers point
 * into the buffer it was given.
 */
#ifndef CMKIT_NFS4_H
#define CMKIT_NFS4_H

#include "cmkit/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* RFC 7530 / 7531 */
#define CMKIT_NFS4_PROGRAM		100003
#define CMKIT_NFS4_VERSION		4
#define CMKIT_NFS4_PROC_NULL		0
#define CMKIT_NFS4_PROC_COMPOUND	1
#define CMKIT_NFS4_MINOR_VERSION	0
#define CMKIT_NFS4_FHSIZE		128
#define CMKIT_NFS4_OTHER_SIZE		12	/* stateid4.other */
#define CMKIT_NFS4_VERIFIER_SIZE	8
#define CMKIT_NFS4_MAXNAMLEN		255	/* nfsd's limit on a component */

/* nfs_opnum4 (those cmkit uses, and ILLEGAL) */
#define CMKIT_NFS4_OP_GETATTR		9
#define CMKIT_NFS4_OP_GETFH		10
#define CMKIT_NFS4_OP_LOOKUP		15
#define CMKIT_NFS4_OP_PUTFH		22
#define CMKIT_NFS4_OP_PUTROOTFH		24
#define CMKIT_NFS4_OP_READ		25
#define CMKIT_NFS4_OP_WRITE		38
#define CMKIT_NFS4_OP_ILLEGAL		10044

/* nfsstat4 (a few) */
#define CMKIT_NFS4_OK			0
#define CMKIT_NFS4ERR_NOENT		2
#define CMKIT_NFS4ERR_IO		5
#define CMKIT_NFS4ERR_ACCESS		13
#define CMKIT_NFS4ERR_INVAL		22
#define CMKIT_NFS4ERR_NOFILEHANDLE	10020
#define CMKIT_NFS4ERR_BAD_STATEID	10025
#define CMKIT_NFS4ERR_MINOR_VERS_MISMATCH 10021
#define CMKIT_NFS4ERR_OP_ILLEGAL	10044

/* stable_how4 */
#define CMKIT_NFS4_UNSTABLE		0
#define CMKIT_NFS4_DATA_SYNC		1
#define CMKIT_NFS4_FILE_SYNC		2

/* nfs_ftype4: NF4REG 1 ... NF4NAMEDATTR 9 */
#define CMKIT_NFS4_NF4REG		1
#define CMKIT_NFS4_NF4DIR		2
#define CMKIT_NFS4_NF4NAMEDATTR		9

/* Attribute numbers (bit n of a bitmap4 is bit n % 32 of word n / 32). */
#define CMKIT_NFS4_FATTR_SUPPORTED_ATTRS 0
#define CMKIT_NFS4_FATTR_TYPE		1
#define CMKIT_NFS4_FATTR_CHANGE		3
#define CMKIT_NFS4_FATTR_SIZE		4
#define CMKIT_NFS4_FATTR_FILEID		20
/* Attributes 0..20 are the ones whose encodings the decoder knows. */
#define CMKIT_NFS4_FATTR_KNOWN_MAX	20

/* Bounds of this codec (not of the protocol). */
#define CMKIT_NFS4_MAX_OPS		16	/* operations in one COMPOUND */
#define CMKIT_NFS4_MAX_TAG		64	/* tag bytes, both ways */
#define CMKIT_NFS4_BITMAP_WORDS		3	/* bitmap4 words kept or sent */
#define CMKIT_NFS4_MAX_BITMAP_WORDS	8	/* bitmap4 words taken in a reply */
#define CMKIT_NFS4_MAX_GIDS		16	/* authsys_parms.gids<16> */
#define CMKIT_NFS4_MAX_MACHINE		255	/* authsys_parms.machinename<255> */

/**
 * enum cmkit_nfs4_result - what encoding or decoding gave
 * @CMKIT_NFS4_R_OK: done (a decoded COMPOUND may still carry an NFS error
 *	in its status: that is the server's answer, not a decoding failure)
 * @CMKIT_NFS4_E_SHORT: the reply ends before an item does
 * @CMKIT_NFS4_E_XDR: a value outside its XDR type: a bool not 0 or 1, a
 *	stable_how4 over 2, an nfs_ftype4 outside 1..9, an attrlist whose
 *	length is not that of its attributes, bytes after the last result,
 *	results after a failed operation, an overall status other than the
 *	last result's
 * @CMKIT_NFS4_E_LEN: a length over its bound: a file handle over 128 bytes,
 *	a tag over CMKIT_NFS4_MAX_TAG, a bitmap over
 *	CMKIT_NFS4_MAX_BITMAP_WORDS words, more results than CMKIT_NFS4_MAX_OPS
 * @CMKIT_NFS4_E_OP: a successful result of an operation the decoder does
 *	not know (its results cannot be told apart from the next result)
 * @CMKIT_NFS4_E_CHUNK: a READ's data in the write chunk longer than the
 *	bytes the responder says it wrote there
 * @CMKIT_NFS4_E_NOSPACE: the output buffer is too small
 * @CMKIT_NFS4_E_ARG: a bad argument
 */
enum cmkit_nfs4_result {
	CMKIT_NFS4_R_OK		= 0,
	CMKIT_NFS4_E_SHORT	= -1,
	CMKIT_NFS4_E_XDR	= -4,
	CMKIT_NFS4_E_LEN	= -50,
	CMKIT_NFS4_E_OP		= -51,
	CMKIT_NFS4_E_CHUNK	= -52,
	CMKIT_NFS4_E_NOSPACE	= -40,
	CMKIT_NFS4_E_ARG	= -41,
};

/**
 * struct cmkit_nfs4_stateid - an NFSv4.0 stateid4
 * @seqid: its sequence number
 * @other: its 12 opaque bytes
 */
struct cmkit_nfs4_stateid {
	cmkit_u32 seqid;
	cmkit_u8 other[CMKIT_NFS4_OTHER_SIZE];
};

/*
 * The special stateids of RFC 7530, section 9.1.4.3: anonymous (all zero:
 * I/O without open state, subject to share reservations) and READ bypass
 * (seqid and other all ones: a READ that bypasses locks and share
 * reservations; READ only).
 */
extern const struct cmkit_nfs4_stateid cmkit_nfs4_anonymous_stateid;
extern const struct cmkit_nfs4_stateid cmkit_nfs4_bypass_stateid;

/**
 * struct cmkit_nfs4_enc - a COMPOUND4args being written
 * @buf: the output buffer
 * @len: its size
 * @off: bytes written so far
 * @numops_off: where the numops word is
 * @numops: operations written so far
 * @err: the first failure (0 until one): every call after it does nothing
 *	and returns it, and cmkit_nfs4_enc_end() returns it
 *
 * cmkit_nfs4_enc_begin() sets it up; the cmkit_nfs4_enc_*() operations
 * append one argop4 each (nothing of it when it fails); cmkit_nfs4_enc_end()
 * gives the length.  Its fields are the encoder's.
 */
struct cmkit_nfs4_enc {
	cmkit_u8 *buf;
	cmkit_size len;
	cmkit_size off;
	cmkit_size numops_off;
	cmkit_u32 numops;
	int err;
};

/*
 * cmkit_nfs4_enc_begin - start a COMPOUND4args in @buf (@buflen bytes):
 * the tag (@taglen bytes of @tag, at most CMKIT_NFS4_MAX_TAG; @tag may be
 * NULL when @taglen is 0), minorversion 0 and a numops word that
 * cmkit_nfs4_enc_end() fills in.  Return 0, or E_ARG (@e or @buf NULL, a
 * tag too long or NULL with a length) or E_NOSPACE; the result is also
 * kept in @e->err (unless @e is NULL).
 */
int cmkit_nfs4_enc_begin(struct cmkit_nfs4_enc *e, void *buf, cmkit_size buflen,
			 const void *tag, cmkit_u32 taglen);

/*
 * The operations: each appends its argop4 and returns 0, or E_ARG or
 * E_NOSPACE (and writes nothing of it, and keeps the failure in @e->err),
 * or @e->err if an earlier call failed.  More than CMKIT_NFS4_MAX_OPS
 * operations is E_ARG.
 *   putrootfh, getfh:  no arguments
 *   putfh:    @fh of @fhlen bytes, 1..CMKIT_NFS4_FHSIZE
 *   lookup:   @name of @namelen bytes, 1..CMKIT_NFS4_MAXNAMLEN (RFC 7530
 *             makes an empty name NFS4ERR_INVAL), sent as given
 *   getattr:  @nwords words of @mask, 1..CMKIT_NFS4_BITMAP_WORDS
 *   read:     @sid (NULL: E_ARG), @offset, @count bytes
 *   write:    @sid, @offset, @stable (CMKIT_NFS4_UNSTABLE ...
 *             CMKIT_NFS4_FILE_SYNC), @len bytes of @data: inline with its
 *             roundup when @data is given; when @data is NULL only the length
 *             word is written (the bytes go in a read chunk).  *@data_pos
 *             (if not NULL) is set to the offset from the start of the
 *             COMPOUND4args where the data bytes start (inline) or would
 *             start (in a read chunk: add the RPC call header's length for
 *             the chunk's position).
 */
int cmkit_nfs4_enc_putrootfh(struct cmkit_nfs4_enc *e);
int cmkit_nfs4_enc_putfh(struct cmkit_nfs4_enc *e, const void *fh, cmkit_u32 fhlen);
int cmkit_nfs4_enc_lookup(struct cmkit_nfs4_enc *e, const void *name, cmkit_u32 namelen);
int cmkit_nfs4_enc_getfh(struct cmkit_nfs4_enc *e);
int cmkit_nfs4_enc_getattr(struct cmkit_nfs4_enc *e, const cmkit_u32 *mask, cmkit_u32 nwords);
int cmkit_nfs4_enc_read(struct cmkit_nfs4_enc *e, const struct cmkit_nfs4_stateid *sid,
			cmkit_u64 offset, cmkit_u32 count);
int cmkit_nfs4_enc_write(struct cmkit_nfs4_enc *e, const struct cmkit_nfs4_stateid *sid,
			 cmkit_u64 offset, cmkit_u32 stable, const void *data, cmkit_u32 len,
			 cmkit_size *data_pos);

/*
 * cmkit_nfs4_enc_end - finish the COMPOUND4args: write numops.  Return its
 * length (bytes of @e->buf written), or the first failure of the calls
 * before (E_ARG for @e NULL).
 */
int cmkit_nfs4_enc_end(struct cmkit_nfs4_enc *e);

/* Bits of cmkit_nfs4_fattr.have */
#define CMKIT_NFS4_HAVE_TYPE		0x1
#define CMKIT_NFS4_HAVE_CHANGE		0x2
#define CMKIT_NFS4_HAVE_SIZE		0x4
#define CMKIT_NFS4_HAVE_FILEID		0x8

/**
 * struct cmkit_nfs4_fattr - a decoded fattr4
 * @mask: the first CMKIT_NFS4_BITMAP_WORDS words of its attrmask (words
 *	the reply does not send are 0)
 * @mask_words: the words the reply sent
 * @have: CMKIT_NFS4_HAVE_* for the attributes below that it carries
 * @type: nfs_ftype4
 * @change: changeid4
 * @size: size in bytes
 * @fileid: file id
 * @vals: the attrlist4 inside the decoded buffer (NULL when empty)
 * @vals_len: its length
 *
 * Attributes 0..CMKIT_NFS4_FATTR_KNOWN_MAX are decoded in order (those not
 * kept here are checked and skipped); any attribute after them is left
 * undecoded in @vals: no known one follows it.  When the attrmask has no
 * bit over CMKIT_NFS4_FATTR_KNOWN_MAX, the attrlist's length must be
 * exactly what its attributes take.
 */
struct cmkit_nfs4_fattr {
	cmkit_u32 mask[CMKIT_NFS4_BITMAP_WORDS];
	cmkit_u32 mask_words;
	cmkit_u32 have;
	cmkit_u32 type;
	cmkit_u64 change;
	cmkit_u64 size;
	cmkit_u64 fileid;
	const cmkit_u8 *vals;
	cmkit_u32 vals_len;
};

/**
 * struct cmkit_nfs4_opres - one decoded resop4
 * @op: its opnum
 * @status: its nfsstat4; the fields below are set only for CMKIT_NFS4_OK
 * @fh: GETFH: the file handle, inside the decoded buffer (NULL if empty)
 * @fh_len: its length, at most CMKIT_NFS4_FHSIZE
 * @attr: GETATTR: the attributes
 * @eof: READ: 1 if the data reaches the end of the file
 * @count: READ: the data's length; WRITE: the bytes written
 * @data_off: READ: the offset in the decoded buffer where the data starts
 *	(inline), or where it would start (in the write chunk: no byte of
 *	it is inline, and the next result starts there)
 * @in_chunk: READ: 1 if the data is in the write chunk
 * @committed: WRITE: stable_how4
 * @verf: WRITE: the write verifier
 */
struct cmkit_nfs4_opres {
	cmkit_u32 op;
	cmkit_u32 status;
	const cmkit_u8 *fh;
	cmkit_u32 fh_len;
	struct cmkit_nfs4_fattr attr;
	cmkit_u32 eof;
	cmkit_u32 count;
	cmkit_size data_off;
	cmkit_u32 in_chunk;
	cmkit_u32 committed;
	cmkit_u8 verf[CMKIT_NFS4_VERIFIER_SIZE];
};

/**
 * struct cmkit_nfs4_compound_res - a decoded COMPOUND4res
 * @status: the COMPOUND's nfsstat4 (the last result's)
 * @tag: the tag inside the decoded buffer (NULL if empty)
 * @tag_len: its length, at most CMKIT_NFS4_MAX_TAG
 * @numres: results decoded into @res, in order
 * @res: the results
 * @len: bytes of the reply decoded (all of them on success)
 */
struct cmkit_nfs4_compound_res {
	cmkit_u32 status;
	const cmkit_u8 *tag;
	cmkit_u32 tag_len;
	cmkit_u32 numres;
	struct cmkit_nfs4_opres res[CMKIT_NFS4_MAX_OPS];
	cmkit_size len;
};

/* Flags of cmkit_nfs4_decode_compound() */
#define CMKIT_NFS4_DEC_READ_CHUNK	0x1	/* the first READ's data is in the write chunk */

/*
 * cmkit_nfs4_decode_compound - decode a COMPOUND4res from @buf (@len
 * bytes: the RPC reply's results, all of them) into @res (zeroed first).
 * Each result's opnum and status are decoded in order; a result with a
 * status other than NFS4_OK is the last (nothing may follow it), and its
 * status must be the COMPOUND's, as must NFS4_OK be when every result
 * succeeded (a COMPOUND with no result may carry any status).  With
 * CMKIT_NFS4_DEC_READ_CHUNK in @flags, the first successful READ result
 * has no data bytes inline, and its length must be at most @chunk_len, the
 * bytes the responder says it wrote into the write chunk.  Return
 * CMKIT_NFS4_R_OK (whatever the NFS status), or E_ARG (@res NULL, @buf
 * NULL with a length, unknown @flags), E_SHORT, E_XDR, E_LEN, E_OP or
 * E_CHUNK, with @res filled as far as decoding went.
 */
int cmkit_nfs4_decode_compound(const void *buf, cmkit_size len, cmkit_u32 flags,
			       cmkit_u32 chunk_len, struct cmkit_nfs4_compound_res *res);

/**
 * struct cmkit_rpc_authsys - an AUTH_SYS credential (RFC 5531, appendix A)
 * @stamp: any value the caller likes
 * @machine: the machine name (NULL when @machine_len is 0)
 * @machine_len: its length, at most CMKIT_NFS4_MAX_MACHINE
 * @uid: effective user id
 * @gid: effective group id
 * @ngids: supplementary groups, at most CMKIT_NFS4_MAX_GIDS
 * @gids: those groups (NULL when @ngids is 0)
 */
struct cmkit_rpc_authsys {
	cmkit_u32 stamp;
	const char *machine;
	cmkit_u32 machine_len;
	cmkit_u32 uid;
	cmkit_u32 gid;
	cmkit_u32 ngids;
	const cmkit_u32 *gids;
};

/*
 * cmkit_rpc_encode_call_hdr - write an RPC call header up to its
 * arguments: xid, CALL, RPC version 2, @prog, @vers, @proc, the credential
 * (AUTH_SYS with @cred's authsys_parms, or AUTH_NONE when @cred is NULL)
 * and an AUTH_NONE verifier.  Without a credential it writes what
 * cmkit_rpcrdma_encode_rpc_call() writes before its arguments (40 bytes);
 * with one, 40 + 20 + the machine name rounded up to 4 + 4 per group.  The
 * arguments (a COMPOUND4args) follow it; a read chunk's position counts
 * from its first byte.  Return the header's length, or E_ARG (@buf NULL,
 * @cred over its bounds or NULL with a length) or E_NOSPACE (nothing
 * written).
 */
int cmkit_rpc_encode_call_hdr(void *buf, cmkit_size buflen, cmkit_u32 xid, cmkit_u32 prog,
			      cmkit_u32 vers, cmkit_u32 proc,
			      const struct cmkit_rpc_authsys *cred);

/* The result's name ("OK", "E_SHORT", ...), "?" for a value not one. */
const char *cmkit_nfs4_result_name(int result);

#ifdef __cplusplus
}
#endif

#endif /* CMKIT_NFS4_H */
