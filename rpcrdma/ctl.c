// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit rpcrdma: the debugfs control plane, cmkit/rpcrdma/.
 *
 *   ctl     write one command per line:
 *             connect <ipv4> <port> [<inline send> <inline recv>]
 *                                  sizes 1024..65536 bytes (default 4096);
 *                                  at most RPCRDMA_CTL_MAX transports
 *             call <n> <count> [<program> <version>]
 *                                  <count> NULL calls (1..RPCRDMA_CTL_MAX_CALLS)
 *                                  to program 100003 version 3 unless given;
 *                                  0 if every call got an accepted reply,
 *                                  else -EPROTO (rejected or malformed),
 *                                  -ETIMEDOUT, -ECONNABORTED, -ENOTCONN
 *             proc <n> echo|fill|sink|mirror <bytes>
 *                                  one call of cmkit's RPC test program
 *                                  (include/cmkit/rpc_testprog.h) moving
 *                                  <bytes> (a multiple of 4, at most 1 MiB)
 *                                  inline or in chunks, its data checked
 *                                  here: 0 if it came back right, -EILSEQ
 *                                  if not, else the call's errno
 *                                  (cmkit_rpcrdma_xprt_proc())
 *             nfs4 <n> read <name> [<in flight>] | nfs4 <n> write <name> <bytes>
 *                                  NFSv4.0 COMPOUNDs to a server's
 *                                  pseudo-root (rpcrdma/nfs4.c): read the
 *                                  whole file (at most 4 MiB) in 256 KiB
 *                                  READs through write chunks, one at a
 *                                  time or up to <in flight> (1..8) at
 *                                  once in READs of the server's READ
 *                                  size (rpcrdma_ctl_nfs4_read()), or WRITE
 *                                  <bytes> (a multiple of 4, at most
 *                                  256 KiB) of the guest's nfs_pattern at
 *                                  offset 0 through a read chunk and read
 *                                  them back: 0, -EILSEQ, -EREMOTEIO (an
 *                                  NFS error), -EPROTO, -EIO, or the call's
 *                                  errno
 *             disconnect <n>       disconnect transport n (it stays listed)
 *             destroy <n>|all      disconnect and forget transport n, or all
 *           a failed command fails the write with its errno
 *   xprts   one line per transport: its number, server, state, inline sizes,
 *           once a proc command ran procs=<right> proc_errors=<n>
 *           read_chunk=<bytes> write_chunk=<bytes> reply_chunk=<bytes>
 *           (calls whose data came back right, the others, and the bytes
 *           their read, write and reply chunks carried), once a lost
 *           connection was to be re-established reconnects=<n> (the
 *           connections made again), then, last, calls=<sent> replies=<accepted>
 *           errors=<n> credits=<now>
 *   calls   one JSON line per transport: its last call command's summary
 *           and round trips (the shape of cmkit-peer call's summary), as
 *           they were when the file was opened: a call command or a
 *           destroy meanwhile changes what the next open shows
 *           (once an nfs4 command ran, before calls=: nfs4=<ok>
 *           nfs4_errors=<n> nfs4_status=<nfsstat4> nfs4_grace=<waits>
 *           nfs4_size=<bytes> nfs4_read=<bytes> nfs4_reads=<n> nfs4_crc32c=<hex>
 *           nfs4_depth=<in flight asked> nfs4_in_flight=<most at once>
 *           nfs4_rsize=<the server's READ size, 0: not known>
 *           nfs4_written=<bytes> nfs4_verified=<bytes>)
 *   nfs4_data  the data of the last nfs4 read command (empty if it failed)
 *   stats   objects made and freed, and CM events by type
 *
 * A connect and a call wait without the control plane's lock (a connecting
 * transport is listed as "connecting"), so a server that never answers
 * blocks no other command.  Every listed transport pins the module, as a
 * mount pins xprtrdma: rmmod cmkit fails until "destroy all"; a transport
 * destroyed while a call runs on it is disconnected at once (the call
 * ends with -ECONNABORTED) and freed when the call returns.
 */
#define pr_fmt(fmt) "cmkit: rpcrdma: " fmt

#include <linux/debugfs.h>
#include <linux/highmem.h>
#include <linux/inet.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/math64.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>

#include <cmkit/crc32c.h>
#include <cmkit/rpc_testprog.h>

#include "core/cmkit.h"
#include "rpcrdma/rpcrdma.h"
#include "rpcrdma/trace.h"

/* How many transports the control plane may hold at once. */
#define RPCRDMA_CTL_MAX		64
/* How many calls one call command may send (their round trips are kept). */
#define RPCRDMA_CTL_MAX_CALLS	100000

/*
 * How long each call of a call command may wait for its reply (upstream's
 * 60 s by default); a test shortens it to see a dropped call time out.
 */
static unsigned int rpcrdma_call_timeout_ms = 60000;
module_param(rpcrdma_call_timeout_ms, uint, 0644);
MODULE_PARM_DESC(rpcrdma_call_timeout_ms,
		 "rpcrdma control plane: how long a call waits for its reply, ms (100..600000)");

/*
 * A call command's outcome, as the calls file shows it.  Its references:
 * the transport's (cx->last, until the next call command or the free) and
 * each open calls file's that listed it.
 */
struct rpcrdma_ctl_batch {
	struct kref ref;
	struct cmkit_rpcrdma_calls res;
	u32 prog;
	u32 vers;
	u64 min_ns, median_ns, p99_ns, max_ns;
};

struct rpcrdma_ctl_xprt {
	struct list_head list;
	struct rpcrdma_xprt *xprt;
	bool connecting;	/* its connect runs without cmkit_rpcrdma_control.lock */
	bool listed;		/* on rpcrdma_ctl_xprts */
	unsigned int callers;	/* call commands running without cmkit_rpcrdma_control.lock */
	struct rpcrdma_ctl_batch *last;	/* the last call command's */
	u32 proc_seed;		/* the next proc command's pattern */
	u64 procs;		/* proc commands whose data came back right */
	u64 proc_errors;	/* the others */
	u64 read_chunk;		/* bytes their read chunks carried */
	u64 write_chunk;	/* bytes their write chunks carried */
	u64 reply_chunk;	/* bytes their reply chunks carried */
	u64 nfs4_ok;		/* nfs4 commands that succeeded */
	u64 nfs4_errors;	/* the others */
	u64 nfs4_size;		/* the last LOOKUP's GETATTR size */
	u64 nfs4_read;		/* bytes the last nfs4 read command read */
	u32 nfs4_reads;		/* in that many READs */
	u32 nfs4_depth;		/* of which it kept up to that many outstanding */
	u32 nfs4_in_flight;	/* and had that many at most */
	u32 nfs4_rsize;		/* the server's READ size as a read found it (0: not known) */
	u32 nfs4_crc;		/* their crc32c */
	u64 nfs4_written;	/* bytes the last nfs4 write command wrote */
	u64 nfs4_verified;	/* of them, read back and found right */
	u32 nfs4_status;	/* the last nfsstat4 other than NFS4_OK (0: none) */
	u32 nfs4_grace;		/* NFS4ERR_GRACE answers waited out */
	void *nfs4_data;	/* the last nfs4 read command's data (vmalloc) */
	u32 nfs4_data_len;
};

/* The transport whose nfs4 read command ran last: the nfs4_data file's. */
static struct rpcrdma_ctl_xprt *rpcrdma_ctl_nfs4_last;

/* Under cmkit_rpcrdma_control.lock. */
static LIST_HEAD(rpcrdma_ctl_xprts);
static unsigned int rpcrdma_ctl_nr;

/* One inline size: a whole decimal word within upstream's bounds. */
static int rpcrdma_ctl_size(const char *word, u32 *size)
{
	if (!word || kstrtou32(word, 10, size))
		return -EINVAL;
	if (*size < RPCRDMA_MIN_INLINE || *size > RPCRDMA_MAX_INLINE)
		return -EINVAL;
	return 0;
}

static void rpcrdma_ctl_batch_release(struct kref *ref)
{
	struct rpcrdma_ctl_batch *b = container_of(ref, struct rpcrdma_ctl_batch, ref);

	kvfree(b->res.rtt_ns);
	kfree(b);
}

/* Drop a reference to a batch (none: nothing). */
static void rpcrdma_ctl_batch_put(struct rpcrdma_ctl_batch *b)
{
	if (b)
		kref_put(&b->ref, rpcrdma_ctl_batch_release);
}

static void rpcrdma_ctl_free(struct rpcrdma_ctl_xprt *cx)
	__must_hold(&cmkit_rpcrdma_control.lock)
{
	if (rpcrdma_ctl_nfs4_last == cx)
		rpcrdma_ctl_nfs4_last = NULL;
	vfree(cx->nfs4_data);
	cmkit_rpcrdma_xprt_destroy(cx->xprt);
	rpcrdma_ctl_batch_put(cx->last);
	kfree(cx);
	module_put(THIS_MODULE);
}

/*
 * Unlist a transport and free it; if call commands run on it, disconnect
 * it (their calls end with -ECONNABORTED) and leave the free to the last.
 */
static void rpcrdma_ctl_forget(struct rpcrdma_ctl_xprt *cx)
{
	list_del(&cx->list);
	cx->listed = false;
	rpcrdma_ctl_nr--;
	if (cx->callers)
		cmkit_rpcrdma_xprt_disconnect(cx->xprt);
	else
		rpcrdma_ctl_free(cx);
}

/*
 * connect <ipv4> <port> [<send> <recv>]: list the transport as connecting,
 * then connect without the control plane's lock: called with it held, it
 * drops and retakes it.  No unload can start meanwhile: the writer holds
 * the ctl file open, which pins the module.
 */
static int rpcrdma_ctl_connect(char *args)
	__must_hold(&cmkit_rpcrdma_control.lock)
{
	char *addr = strsep(&args, " "), *port = strsep(&args, " ");
	struct sockaddr_in sin = { .sin_family = AF_INET };
	u32 send = RPCRDMA_DEF_INLINE, recv = RPCRDMA_DEF_INLINE;
	struct rpcrdma_ctl_xprt *cx;
	u16 p;
	int rc;

	if (!addr || !port || kstrtou16(port, 10, &p) || !p ||
	    !in4_pton(addr, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL))
		return -EINVAL;
	if (args) {
		if (rpcrdma_ctl_size(strsep(&args, " "), &send) ||
		    rpcrdma_ctl_size(strsep(&args, " "), &recv) || args)
			return -EINVAL;
	}
	sin.sin_port = htons(p);
	if (rpcrdma_ctl_nr >= RPCRDMA_CTL_MAX)
		return -ENOSPC;

	cx = kzalloc_obj(*cx, GFP_KERNEL);
	if (!cx)
		return -ENOMEM;
	cx->xprt = cmkit_rpcrdma_xprt_create((struct sockaddr *)&sin, send, recv);
	if (!cx->xprt) {
		kfree(cx);
		return -ENOMEM;
	}
	__module_get(THIS_MODULE);	/* put by rpcrdma_ctl_free() */
	cx->connecting = true;
	cx->listed = true;
	list_add_tail(&cx->list, &rpcrdma_ctl_xprts);
	rpcrdma_ctl_nr++;

	mutex_unlock(&cmkit_rpcrdma_control.lock);
	rc = cmkit_rpcrdma_xprt_connect(cx->xprt);
	mutex_lock(&cmkit_rpcrdma_control.lock);

	cx->connecting = false;
	pr_info_ratelimited("xprt %u connect to %pISpc: %d\n",
			    cx->xprt->rx_xid, &sin, rc);
	if (rc)
		rpcrdma_ctl_forget(cx);
	return rc;
}

static struct rpcrdma_ctl_xprt *rpcrdma_ctl_find(const char *arg)
{
	struct rpcrdma_ctl_xprt *cx;
	u32 n;

	if (!arg || kstrtou32(arg, 10, &n))
		return NULL;
	list_for_each_entry(cx, &rpcrdma_ctl_xprts, list)
		if (cx->xprt->rx_xid == n)
			return cx;
	return NULL;
}

/* Every transport whose connect has ended; a pending connect settles itself. */
static void rpcrdma_ctl_destroy_all(void)
{
	struct rpcrdma_ctl_xprt *cx, *tmp;

	list_for_each_entry_safe(cx, tmp, &rpcrdma_ctl_xprts, list)
		if (!cx->connecting)
			rpcrdma_ctl_forget(cx);
}

static int rpcrdma_ctl_u32(const char *word, u32 *v)
{
	return word && !kstrtou32(word, 10, v) ? 0 : -EINVAL;
}

static int rpcrdma_ctl_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank, as cmkit-peer call's: the smallest value with q% at or below it. */
static void rpcrdma_ctl_summarize(struct rpcrdma_ctl_batch *b)
{
	u32 n = b->res.nr_rtt, *sorted;

	if (!n)
		return;
	sorted = kvmalloc_array(n, sizeof(*sorted), GFP_KERNEL);
	if (!sorted)
		return;
	memcpy(sorted, b->res.rtt_ns, n * sizeof(*sorted));
	sort(sorted, n, sizeof(*sorted), rpcrdma_ctl_cmp_u32, NULL);
	b->min_ns = sorted[0];
	b->median_ns = sorted[max_t(u64, div_u64((u64)n * 50 + 99, 100), 1) - 1];
	b->p99_ns = sorted[max_t(u64, div_u64((u64)n * 99 + 99, 100), 1) - 1];
	b->max_ns = sorted[n - 1];
	kvfree(sorted);
}

/*
 * The connected transport @n for a command that runs without the control
 * plane's lock (call, proc): kept alive by cx->callers until
 * rpcrdma_ctl_caller_put(), its call timeout set from the module
 * parameter.  NULL with *@rc set: -ENOENT, -ENOTCONN (still connecting).
 */
static struct rpcrdma_ctl_xprt *rpcrdma_ctl_caller_get(const char *n, int *rc)
	__must_hold(&cmkit_rpcrdma_control.lock)
{
	struct rpcrdma_ctl_xprt *cx = rpcrdma_ctl_find(n);

	*rc = !cx ? -ENOENT : cx->connecting ? -ENOTCONN : 0;
	if (*rc)
		return NULL;
	WRITE_ONCE(cx->xprt->rx_call_timeout,
		   msecs_to_jiffies(clamp(READ_ONCE(rpcrdma_call_timeout_ms), 100U, 600000U)));
	cx->callers++;
	return cx;
}

static void rpcrdma_ctl_caller_put(struct rpcrdma_ctl_xprt *cx)
	__must_hold(&cmkit_rpcrdma_control.lock)
{
	if (!--cx->callers && !cx->listed)
		rpcrdma_ctl_free(cx);
}

/*
 * call <n> <count> [<program> <version>]: run the calls without the
 * control plane's lock (called with it held, it drops and retakes it), the
 * transport kept alive by cx->callers.
 */
static int rpcrdma_ctl_call(char *args)
	__must_hold(&cmkit_rpcrdma_control.lock)
{
	char *n = strsep(&args, " "), *count = strsep(&args, " ");
	u32 nr, prog = CMKIT_RPC_PROG_NFS, vers = 3;
	struct rpcrdma_ctl_batch *b;
	struct rpcrdma_ctl_xprt *cx;
	int rc;

	if (!n || rpcrdma_ctl_u32(count, &nr) || !nr || nr > RPCRDMA_CTL_MAX_CALLS)
		return -EINVAL;
	if (args && (rpcrdma_ctl_u32(strsep(&args, " "), &prog) ||
		     rpcrdma_ctl_u32(strsep(&args, " "), &vers) || args))
		return -EINVAL;
	cx = rpcrdma_ctl_caller_get(n, &rc);
	if (!cx)
		return rc;
	b = kzalloc_obj(*b, GFP_KERNEL);
	if (b)
		b->res.rtt_ns = kvmalloc_array(nr, sizeof(*b->res.rtt_ns), GFP_KERNEL);
	if (!b || !b->res.rtt_ns) {
		kfree(b);
		rpcrdma_ctl_caller_put(cx);
		return -ENOMEM;
	}
	kref_init(&b->ref);	/* cx->last's, once the calls end */
	b->prog = prog;
	b->vers = vers;

	mutex_unlock(&cmkit_rpcrdma_control.lock);
	rc = cmkit_rpcrdma_xprt_call(cx->xprt, prog, vers, nr, &b->res);
	rpcrdma_ctl_summarize(b);
	mutex_lock(&cmkit_rpcrdma_control.lock);

	swap(cx->last, b);
	rpcrdma_ctl_batch_put(b);
	rpcrdma_ctl_caller_put(cx);
	return rc;
}

/* @n pages for @len bytes, their contents the test program's pattern of @seed. */
static struct page **rpcrdma_ctl_pages(u32 len, u32 seed)
{
	u32 n = DIV_ROUND_UP(len, PAGE_SIZE) ?: 1, i, j;
	struct page **pages = kcalloc(n, sizeof(*pages), GFP_KERNEL);

	if (!pages)
		return NULL;
	for (i = 0; i < n; i++) {
		u8 *p;

		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!pages[i])
			goto fail;
		p = kmap_local_page(pages[i]);
		for (j = 0; j < PAGE_SIZE && i * PAGE_SIZE + j < len; j++)
			p[j] = cmkit_rpc_testprog_byte(seed, i * PAGE_SIZE + j);
		kunmap_local(p);
	}
	return pages;
fail:
	while (i--)
		__free_page(pages[i]);
	kfree(pages);
	return NULL;
}

static void rpcrdma_ctl_pages_free(struct page **pages, u32 len)
{
	u32 n = DIV_ROUND_UP(len, PAGE_SIZE) ?: 1, i;

	if (!pages)
		return;
	for (i = 0; i < n; i++)
		__free_page(pages[i]);
	kfree(pages);
}

/*
 * Are @len bytes of @pages the pattern of @seed (@crc NULL), or is *@crc
 * their crc32c as SINK gives it?
 */
static bool rpcrdma_ctl_pages_check(struct page **pages, u32 len, u32 seed, const u32 *crc)
{
	u32 off, i, c = CMKIT_CRC32C_SEED;
	bool ok = true;

	for (off = 0; ok && off < len; off += PAGE_SIZE) {
		u32 this = min_t(u32, len - off, PAGE_SIZE);
		u8 *p = kmap_local_page(pages[off / PAGE_SIZE]);

		if (crc)
			c = cmkit_crc32c(c, p, this);
		for (i = 0; !crc && i < this; i++)
			ok = p[i] == cmkit_rpc_testprog_byte(seed, off + i);
		kunmap_local(p);
	}
	return crc ? ~c == *crc : ok;
}

/* Run one proc command's call and check its data: 0, -EILSEQ or the call's errno. */
static int rpcrdma_ctl_proc_run(struct rpcrdma_xprt *x, u32 proc, u32 len, u32 seed,
				struct cmkit_rpcrdma_proc *p)
{
	struct page **arg = NULL, **res = NULL;
	int rc = -ENOMEM;

	*p = (struct cmkit_rpcrdma_proc){ .proc = proc, .arg_len = len, .fill_len = len,
					  .fill_seed = seed, .res_max = len };
	if (proc != CMKIT_RPC_TESTPROG_FILL) {
		arg = rpcrdma_ctl_pages(len, seed);
		if (!arg)
			goto out;
		p->arg = arg;
	}
	if (proc != CMKIT_RPC_TESTPROG_SINK) {
		/* Not the pattern: a result that never arrives is seen. */
		res = rpcrdma_ctl_pages(len, ~seed);
		if (!res)
			goto out;
		p->res = res;
	}
	rc = cmkit_rpcrdma_xprt_proc(x, p);
	if (rc)
		goto out;
	if (proc == CMKIT_RPC_TESTPROG_SINK)
		rc = p->sink_len == len && rpcrdma_ctl_pages_check(arg, len, 0, &p->sink_crc) ?
			0 : -EILSEQ;
	else
		rc = p->res_len == len && rpcrdma_ctl_pages_check(res, len, seed, NULL) ?
			0 : -EILSEQ;
out:
	rpcrdma_ctl_pages_free(arg, len);
	rpcrdma_ctl_pages_free(res, len);
	return rc;
}

/*
 * proc <n> echo|fill|sink|mirror <bytes>: as a call command, without the control
 * plane's lock (called with it held, it drops and retakes it).
 */
static int rpcrdma_ctl_proc(char *args)
	__must_hold(&cmkit_rpcrdma_control.lock)
{
	char *n = strsep(&args, " "), *name = strsep(&args, " ");
	struct cmkit_rpcrdma_proc *p;
	struct rpcrdma_ctl_xprt *cx;
	u32 len, proc, seed;
	int rc;

	if (!n || !name || rpcrdma_ctl_u32(strsep(&args, " "), &len) || args ||
	    len % 4 || len > RPCRDMA_MAX_DATA_SEGS * PAGE_SIZE)
		return -EINVAL;
	for (proc = CMKIT_RPC_TESTPROG_ECHO; proc <= CMKIT_RPC_TESTPROG_MIRROR; proc++)
		if (!strcmp(name, cmkit_rpc_testprog_name(proc)))
			break;
	if (proc > CMKIT_RPC_TESTPROG_MIRROR)
		return -EINVAL;
	p = kzalloc_obj(*p, GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	cx = rpcrdma_ctl_caller_get(n, &rc);
	if (!cx) {
		kfree(p);
		return rc;
	}
	seed = ++cx->proc_seed;

	mutex_unlock(&cmkit_rpcrdma_control.lock);
	rc = rpcrdma_ctl_proc_run(cx->xprt, proc, len, seed, p);
	mutex_lock(&cmkit_rpcrdma_control.lock);

	if (rc) {
		cx->proc_errors++;
	} else {
		cx->procs++;
		if (p->m.rtype == CMKIT_RPCRDMA_READCH)
			cx->read_chunk += len;
		else if (p->m.rtype == CMKIT_RPCRDMA_AREADCH)
			cx->read_chunk += len + CMKIT_RPCRDMA_RPC_CALL_LEN + 4;
		cx->write_chunk += p->write_len;
		cx->reply_chunk += p->reply_len;
	}
	kfree(p);
	rpcrdma_ctl_caller_put(cx);
	return rc;
}

/*
 * The nfs4 commands' sizes: a read reads at most RPCRDMA_CTL_NFS4_MAX
 * bytes, RPCRDMA_CTL_NFS4_PIECE at a time (one READ, one write chunk); a
 * write writes at most one piece.
 */
#define RPCRDMA_CTL_NFS4_MAX	(4U << 20)
#define RPCRDMA_CTL_NFS4_PIECE	(256U << 10)
/* The most READs an nfs4 read command keeps outstanding at once. */
#define RPCRDMA_CTL_NFS4_DEPTH	8U

/* The pages of a vmalloc'ed buffer of @len bytes, for a chunk to map. */
static struct page **rpcrdma_ctl_vpages(void *buf, u32 len)
{
	u32 n = DIV_ROUND_UP(len, PAGE_SIZE), i;
	struct page **pages = kcalloc(n, sizeof(*pages), GFP_KERNEL);

	for (i = 0; pages && i < n; i++)
		pages[i] = vmalloc_to_page(buf + i * PAGE_SIZE);
	return pages;
}

/*
 * The bytes an nfs4 write command writes, those of the guest's
 * nfs_pattern (scripts/guest/lib.sh): 16-byte lines, each its own byte
 * offset in decimal, zero-padded to 15 digits, and a newline.
 */
static void rpcrdma_ctl_nfs4_pattern(u8 *buf, u32 len)
{
	char line[17];
	u32 o;

	for (o = 0; o < len; o += 16) {
		snprintf(line, sizeof(line), "%015u\n", o);
		memcpy(buf + o, line, min_t(u32, 16, len - o));
	}
}

/* What an nfs4 command found and did, as the xprts line shows it. */
struct rpcrdma_ctl_nfs4 {
	struct cmkit_rpcrdma_nfs4_file f;
	void *data;		/* a read's data (vmalloc), handed to the transport */
	u32 data_len;
	u64 read;
	u32 reads;
	u32 in_flight;		/* the most READs it had outstanding at once */
	u32 rsize;		/* the server's READ size (0: not known), in and out */
	u32 crc;
	u64 written;
	u64 verified;
};

/*
 * Is a READ at @off that asked for @count bytes of a file of @size and
 * got @got, @eof, one the read may go on from?  Not if it gave more than
 * asked, nothing or not whole pages short of what was asked, eof before
 * the end, or reached the end without saying eof.
 */
static bool rpcrdma_ctl_nfs4_got_ok(u64 off, u32 count, u32 got, bool eof, u64 size)
{
	return got <= count && !(eof && off + got < size) &&
	       !(got < count && (!got || got % PAGE_SIZE)) && !(off + got == size && !eof);
}

/*
 * A READ at @off of @count bytes into the file's pages, checked: 0, -EIO
 * (rpcrdma_ctl_nfs4_got_ok() refused it) or the READ's errno; @got and
 * @eof as the server said.
 */
static int rpcrdma_ctl_nfs4_read_one(struct rpcrdma_xprt *x, struct cmkit_rpcrdma_nfs4_file *f,
				     struct page **pages, u64 off, u32 count, u32 *got, bool *eof)
{
	int rc;

	rc = cmkit_rpcrdma_nfs4_read(x, f, off, pages + off / PAGE_SIZE, round_up(count, 4),
				     got, eof);
	if (!rc && !rpcrdma_ctl_nfs4_got_ok(off, count, *got, *eof, f->size)) {
		pr_warn_ratelimited("xprt %u: READ at %llu: %u of %u bytes, eof %d\n",
				    x->rx_xid, off, *got, count, *eof);
		rc = -EIO;
	}
	return rc;
}

/*
 * An nfs4 read with more than one READ outstanding: the file from @next
 * on, in pieces of @rsize bytes, each read by whichever of the work items
 * takes it next (a piece a READ gave short of is finished by more READs
 * of the same item); the first error stops them all.
 */
struct rpcrdma_ctl_nfs4_depth {
	struct rpcrdma_xprt *x;
	struct page **pages;
	u64 size;
	u32 rsize;
	spinlock_t lock;	/* guards the fields below */
	u64 next;		/* the next piece's offset */
	u64 read;		/* bytes the READs brought */
	u32 reads;
	u32 in_flight;
	u32 max_in_flight;
	u32 status;		/* an nfsstat4 a READ failed with */
	u32 grace_waits;
	int rc;			/* the first error */
};

/* One of an nfs4 read's work items, with its own copy of the file (its status). */
struct rpcrdma_ctl_nfs4_reader {
	struct work_struct work;
	struct rpcrdma_ctl_nfs4_depth *d;
	struct cmkit_rpcrdma_nfs4_file f;
};

/* Read the piece [@off, @end) in READs of what is left of it: 0 or the first errno. */
static int rpcrdma_ctl_nfs4_read_piece(struct rpcrdma_ctl_nfs4_reader *rd, u64 off, u64 end)
{
	struct rpcrdma_ctl_nfs4_depth *d = rd->d;
	bool eof;
	u32 got;
	int rc = 0;

	while (!rc && off < end) {
		spin_lock(&d->lock);
		d->max_in_flight = max(d->max_in_flight, ++d->in_flight);
		spin_unlock(&d->lock);
		rc = rpcrdma_ctl_nfs4_read_one(d->x, &rd->f, d->pages, off, end - off, &got, &eof);
		spin_lock(&d->lock);
		d->in_flight--;
		if (!rc) {
			d->reads++;
			d->read += got;
		}
		spin_unlock(&d->lock);
		off += got;
	}
	return rc;
}

static void rpcrdma_ctl_nfs4_read_work(struct work_struct *work)
{
	struct rpcrdma_ctl_nfs4_reader *rd =
		container_of(work, struct rpcrdma_ctl_nfs4_reader, work);
	struct rpcrdma_ctl_nfs4_depth *d = rd->d;
	u64 off, end;
	int rc = 0;

	for (;;) {
		spin_lock(&d->lock);
		if (d->rc || d->next >= d->size) {
			spin_unlock(&d->lock);
			break;
		}
		off = d->next;
		end = min_t(u64, off + d->rsize, d->size);
		d->next = end;
		spin_unlock(&d->lock);
		rc = rpcrdma_ctl_nfs4_read_piece(rd, off, end);
		if (rc)
			break;
	}
	spin_lock(&d->lock);
	if (rc && !d->rc)
		d->rc = rc;
	if (rd->f.status)
		d->status = rd->f.status;
	d->grace_waits += rd->f.grace_waits;
	spin_unlock(&d->lock);
}

/*
 * Read [@off, size) of the file with up to @depth READs outstanding, from
 * @depth work items of system_unbound_wq, each sending one READ at a time
 * as the single-READ path does: 0 or the first errno.
 */
static int rpcrdma_ctl_nfs4_read_depth(struct rpcrdma_xprt *x, struct page **pages, u64 off,
				       u32 depth, struct rpcrdma_ctl_nfs4 *r)
{
	struct rpcrdma_ctl_nfs4_reader *rds;
	struct rpcrdma_ctl_nfs4_depth *d;
	u32 i, n;
	int rc;

	n = min_t(u64, depth, DIV_ROUND_UP_ULL(r->f.size - off, r->rsize));
	d = kzalloc_obj(*d, GFP_KERNEL);
	rds = kcalloc(n, sizeof(*rds), GFP_KERNEL);
	if (!d || !rds) {
		kfree(rds);
		kfree(d);
		return -ENOMEM;
	}
	*d = (struct rpcrdma_ctl_nfs4_depth){ .x = x, .pages = pages, .size = r->f.size,
					      .rsize = r->rsize, .next = off };
	spin_lock_init(&d->lock);
	trace_cmkit_rpcrdma_nfs4_depth(x->rx_xid, depth, n, off, r->rsize);
	for (i = 0; i < n; i++) {
		rds[i].d = d;
		rds[i].f = r->f;
		INIT_WORK(&rds[i].work, rpcrdma_ctl_nfs4_read_work);
		queue_work(system_unbound_wq, &rds[i].work);
	}
	for (i = 0; i < n; i++)
		flush_work(&rds[i].work);
	rc = d->rc;
	/* Every byte once: pieces that did not cover the file are no read. */
	if (!rc && off + d->read != r->f.size)
		rc = -EIO;
	r->reads += d->reads;
	r->read += d->read;
	r->in_flight = max(r->in_flight, d->max_in_flight);
	if (d->status)
		r->f.status = d->status;
	r->f.grace_waits += d->grace_waits;
	trace_cmkit_rpcrdma_nfs4_depth_done(x->rx_xid, d->reads, d->max_in_flight, rc);
	kfree(rds);
	kfree(d);
	return rc;
}

/*
 * Read the whole file @name through write chunks, up to @depth READs
 * outstanding: 0, or -EFBIG (a file over RPCRDMA_CTL_NFS4_MAX), -EIO (a
 * READ rpcrdma_ctl_nfs4_got_ok() refused), or the errno of the lookup or
 * a READ.  One READ at a time asks for RPCRDMA_CTL_NFS4_PIECE; more than
 * one ask for r->rsize, the server's READ size (nfsd: its max_block_size
 * when smaller), as the transport learned it from a READ that ended short
 * of the end of the file (whole pages: what the server gives for one
 * READ); while it is not known, the first READ goes alone and finds it.
 */
static int rpcrdma_ctl_nfs4_read(struct rpcrdma_xprt *x, const char *name, u32 depth,
				 struct rpcrdma_ctl_nfs4 *r)
{
	struct page **pages = NULL;
	bool eof = false;
	u64 off;
	u32 got;
	int rc;

	rc = cmkit_rpcrdma_nfs4_lookup(x, name, &r->f);
	if (rc)
		return rc;
	if (r->f.size > RPCRDMA_CTL_NFS4_MAX)
		return -EFBIG;
	r->data_len = r->f.size;
	r->data = vzalloc(max_t(u32, r->data_len, 1));
	if (r->data)
		pages = rpcrdma_ctl_vpages(r->data, max_t(u32, r->data_len, 1));
	if (!pages)
		return -ENOMEM;
	r->crc = CMKIT_CRC32C_SEED;
	for (off = 0; !rc && off < r->f.size; off += got) {
		u32 count = min_t(u64, RPCRDMA_CTL_NFS4_PIECE, r->f.size - off);

		/* With the server's READ size known, the rest at the depth asked. */
		if (depth > 1 && r->rsize) {
			trace_cmkit_rpcrdma_nfs4_rsize(x->rx_xid, off, r->rsize, true);
			break;
		}
		/*
		 * A server may return less than asked (nfsd: its max_block_size);
		 * the next READ goes on from there, its chunk from a page start.
		 */
		rc = rpcrdma_ctl_nfs4_read_one(x, &r->f, pages, off, count, &got, &eof);
		if (rc)
			break;
		r->reads++;
		r->read += got;
		r->in_flight = 1;
		if (off + got < r->f.size && got != r->rsize) {
			trace_cmkit_rpcrdma_nfs4_rsize(x->rx_xid, off, got, false);
			r->rsize = got;
		}
	}
	if (!rc && off < r->f.size)
		rc = rpcrdma_ctl_nfs4_read_depth(x, pages, off, depth, r);
	if (!rc)
		r->crc = ~cmkit_crc32c(r->crc, r->data, r->read);
	kfree(pages);
	return rc;
}

/*
 * Write @len bytes of the guest's pattern at offset 0 of @name through a
 * read chunk, then read them back through a write chunk: 0, -EILSEQ when
 * they came back otherwise, -EIO when the server wrote fewer, or the
 * errno of the lookup, the WRITE or the READ.
 */
static int rpcrdma_ctl_nfs4_write(struct rpcrdma_xprt *x, const char *name, u32 len,
				  struct rpcrdma_ctl_nfs4 *r)
{
	struct page **out = NULL, **in = NULL;
	void *wbuf = NULL, *rbuf = NULL;
	u32 written, got;
	bool eof;
	int rc;

	rc = cmkit_rpcrdma_nfs4_lookup(x, name, &r->f);
	if (rc)
		return rc;
	rc = -ENOMEM;
	wbuf = vzalloc(len);
	rbuf = vzalloc(len);
	if (!wbuf || !rbuf)
		goto out;
	out = rpcrdma_ctl_vpages(wbuf, len);
	in = rpcrdma_ctl_vpages(rbuf, len);
	if (!out || !in)
		goto out;
	rpcrdma_ctl_nfs4_pattern(wbuf, len);
	rc = cmkit_rpcrdma_nfs4_write(x, &r->f, 0, out, len, &written);
	if (rc)
		goto out;
	r->written = written;
	rc = -EIO;
	if (written != len)
		goto out;
	rc = cmkit_rpcrdma_nfs4_read(x, &r->f, 0, in, len, &got, &eof);
	if (rc)
		goto out;
	rc = got == len && !memcmp(wbuf, rbuf, len) ? 0 : -EILSEQ;
	if (!rc)
		r->verified = len;
out:
	kfree(in);
	kfree(out);
	vfree(rbuf);
	vfree(wbuf);
	return rc;
}

/*
 * nfs4 <n> read <name> [<in flight>] | nfs4 <n> write <name> <bytes>:
 * NFSv4.0 COMPOUNDs to the server's pseudo-root, as a call command,
 * without the control plane's lock (called with it held, it drops and
 * retakes it).
 */
static int rpcrdma_ctl_nfs4(char *args)
	__must_hold(&cmkit_rpcrdma_control.lock)
{
	char *n = strsep(&args, " "), *op = strsep(&args, " "), *name = strsep(&args, " ");
	struct rpcrdma_ctl_nfs4 *r;
	struct rpcrdma_ctl_xprt *cx;
	u32 len = 0, depth = 1;
	bool writing;
	int rc;

	if (!n || !op || !name || !*name || strlen(name) > CMKIT_NFS4_MAXNAMLEN)
		return -EINVAL;
	writing = !strcmp(op, "write");
	if (!writing && strcmp(op, "read"))
		return -EINVAL;
	if (!writing && args && (rpcrdma_ctl_u32(strsep(&args, " "), &depth) || args ||
				 !depth || depth > RPCRDMA_CTL_NFS4_DEPTH))
		return -EINVAL;
	if (writing && (rpcrdma_ctl_u32(strsep(&args, " "), &len) || args || !len || len % 4 ||
			len > RPCRDMA_CTL_NFS4_PIECE))
		return -EINVAL;
	r = kzalloc_obj(*r, GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	cx = rpcrdma_ctl_caller_get(n, &rc);
	if (!cx) {
		kfree(r);
		return rc;
	}
	r->rsize = cx->nfs4_rsize;

	mutex_unlock(&cmkit_rpcrdma_control.lock);
	if (writing)
		rc = rpcrdma_ctl_nfs4_write(cx->xprt, name, len, r);
	else
		rc = rpcrdma_ctl_nfs4_read(cx->xprt, name, depth, r);
	mutex_lock(&cmkit_rpcrdma_control.lock);

	if (rc)
		cx->nfs4_errors++;
	else
		cx->nfs4_ok++;
	cx->nfs4_size = r->f.size;
	cx->nfs4_status = r->f.status;
	cx->nfs4_grace += r->f.grace_waits;
	if (writing) {
		cx->nfs4_written = r->written;
		cx->nfs4_verified = r->verified;
	} else {
		cx->nfs4_read = r->read;
		cx->nfs4_reads = r->reads;
		cx->nfs4_depth = depth;
		cx->nfs4_in_flight = r->in_flight;
		cx->nfs4_rsize = r->rsize;
		cx->nfs4_crc = rc ? 0 : r->crc;
		/* What the nfs4_data file shows: this read's data, if it succeeded. */
		vfree(cx->nfs4_data);
		cx->nfs4_data = rc ? NULL : r->data;
		cx->nfs4_data_len = rc ? 0 : r->data_len;
		if (!rc)
			r->data = NULL;
		rpcrdma_ctl_nfs4_last = cx;
	}
	vfree(r->data);
	kfree(r);
	rpcrdma_ctl_caller_put(cx);
	return rc;
}

/*
 * The nfs4_data file: the data of the last nfs4 read command that
 * succeeded on the transport it ran on (empty if that one failed, or the
 * transport is gone).
 */
static ssize_t rpcrdma_ctl_nfs4_data_read(struct file *file, char __user *ubuf, size_t count,
					  loff_t *ppos)
{
	struct rpcrdma_ctl_xprt *cx;
	ssize_t rc = 0;

	mutex_lock(&cmkit_rpcrdma_control.lock);
	cx = rpcrdma_ctl_nfs4_last;
	if (cx && cx->nfs4_data)
		rc = simple_read_from_buffer(ubuf, count, ppos, cx->nfs4_data,
					     cx->nfs4_data_len);
	mutex_unlock(&cmkit_rpcrdma_control.lock);
	return rc;
}

static const struct file_operations cmkit_rpcrdma_nfs4_data_fops = {
	.owner = THIS_MODULE,
	.read = rpcrdma_ctl_nfs4_data_read,
	.llseek = default_llseek,
};

static int rpcrdma_ctl_command(char *line)
{
	char *verb = strsep(&line, " ");
	struct rpcrdma_ctl_xprt *cx;

	if (!strcmp(verb, "connect"))
		return rpcrdma_ctl_connect(line);
	if (!strcmp(verb, "call"))
		return rpcrdma_ctl_call(line);
	if (!strcmp(verb, "proc"))
		return rpcrdma_ctl_proc(line);
	if (!strcmp(verb, "nfs4"))
		return rpcrdma_ctl_nfs4(line);
	if (!strcmp(verb, "destroy") && line && !strcmp(line, "all")) {
		rpcrdma_ctl_destroy_all();
		return 0;
	}
	if (strcmp(verb, "disconnect") && strcmp(verb, "destroy"))
		return -EINVAL;
	cx = rpcrdma_ctl_find(line);
	if (!cx)
		return -ENOENT;
	if (cx->connecting)
		return -EBUSY;
	if (!strcmp(verb, "disconnect"))
		cmkit_rpcrdma_xprt_disconnect(cx->xprt);
	else
		rpcrdma_ctl_forget(cx);
	return 0;
}

/* Microseconds with one decimal, from nanoseconds. */
static void rpcrdma_ctl_us(struct seq_file *m, u64 ns)
{
	u32 rem;
	u64 us = div_u64_rem(ns, 1000, &rem);

	seq_printf(m, "%llu.%u", us, rem / 100);
}

/* What every xprts line ends with: the transport's calls and credits. */
static void rpcrdma_ctl_show_calls(struct seq_file *m, struct rpcrdma_ctl_xprt *cx)
{
	struct rpcrdma_buffer *buf = &cx->xprt->rx_buf;
	u64 calls, replies, errors;
	u32 credits;

	spin_lock(&buf->rb_lock);
	calls = buf->rb_calls;
	replies = buf->rb_replies;
	errors = buf->rb_errors;
	credits = buf->rb_connected ? buf->rb_credits : 0;
	spin_unlock(&buf->rb_lock);
	/* Only once a proc command ran: the lines of call commands stay as they were. */
	if (cx->procs || cx->proc_errors)
		seq_printf(m, " procs=%llu proc_errors=%llu read_chunk=%llu write_chunk=%llu reply_chunk=%llu",
			   cx->procs, cx->proc_errors, cx->read_chunk, cx->write_chunk,
			   cx->reply_chunk);
	/* Only once an nfs4 command ran, as the proc fields. */
	if (cx->nfs4_ok || cx->nfs4_errors) {
		seq_printf(m, " nfs4=%llu nfs4_errors=%llu nfs4_status=%u nfs4_grace=%u",
			   cx->nfs4_ok, cx->nfs4_errors, cx->nfs4_status, cx->nfs4_grace);
		seq_printf(m, " nfs4_size=%llu nfs4_read=%llu nfs4_reads=%u nfs4_crc32c=%08x",
			   cx->nfs4_size, cx->nfs4_read, cx->nfs4_reads, cx->nfs4_crc);
		seq_printf(m, " nfs4_depth=%u nfs4_in_flight=%u nfs4_rsize=%u", cx->nfs4_depth,
			   cx->nfs4_in_flight, cx->nfs4_rsize);
		seq_printf(m, " nfs4_written=%llu nfs4_verified=%llu", cx->nfs4_written,
			   cx->nfs4_verified);
	}
	/*
	 * Once a lost connection was to be re-established (reconnect.c): the
	 * connections made again.  The lines of others stay as they were.
	 */
	if (READ_ONCE(cx->xprt->rx_reconnect_tries))
		seq_printf(m, " reconnects=%u", READ_ONCE(cx->xprt->rx_reconnects));
	/* The line ends here: scripts read credits= as its last field. */
	seq_printf(m, " calls=%llu replies=%llu errors=%llu credits=%u\n", calls, replies,
		   errors, credits);
}

/**
 * cmkit_rpcrdma_xprts_show - the xprts file: one line per transport
 * @m: the seq_file
 * @v: unused
 *
 * Return: 0.
 */
VISIBLE_IF_KUNIT int cmkit_rpcrdma_xprts_show(struct seq_file *m, void *v)
{
	struct rpcrdma_ctl_xprt *cx;

	mutex_lock(&cmkit_rpcrdma_control.lock);
	list_for_each_entry(cx, &rpcrdma_ctl_xprts, list) {
		struct rpcrdma_xprt *x = cx->xprt;
		struct rpcrdma_ep *ep;

		/* Its connect holds rx_lock until it ends: do not wait for it. */
		if (cx->connecting) {
			seq_printf(m, "%u %pISpc connecting", x->rx_xid, &x->rx_dst);
			rpcrdma_ctl_show_calls(m, cx);
			continue;
		}
		mutex_lock(&x->rx_lock);
		ep = x->rx_ep;
		if (ep)
			seq_printf(m, "%u %pISpc status=%d inline_send=%u inline_recv=%u",
				   x->rx_xid, &x->rx_dst, rpcrdma_ep_status(ep),
				   ep->re_inline_send, ep->re_inline_recv);
		else
			seq_printf(m, "%u %pISpc disconnected", x->rx_xid, &x->rx_dst);
		mutex_unlock(&x->rx_lock);
		rpcrdma_ctl_show_calls(m, cx);
	}
	mutex_unlock(&cmkit_rpcrdma_control.lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_xprts_show);
DEFINE_SHOW_ATTRIBUTE(cmkit_rpcrdma_xprts);

/* How a call command ended, in cmkit-peer call's words. */
static const char *rpcrdma_ctl_status(const struct cmkit_rpcrdma_calls *res)
{
	switch (res->status) {
	case 0:
		return "ok";
	case -EPROTO:
		return res->malformed ? "malformed" : "rejected";
	case -ETIMEDOUT:
		return "timeout";
	case -ECONNABORTED:
		return "disconnected";
	case -ENOTCONN:
		return "not_connected";
	case -EINTR:
		return "interrupted";
	default:
		return "error";
	}
}

/*
 * The calls file is a seq_file of small records, so that its buffer stays
 * a page whatever the number of round trips: each transport's line is its
 * head (up to "latencies_us":[), its round trips RPCRDMA_CTL_CALLS_CHUNK
 * at a time, and its tail.  Its open takes a reference on each listed
 * transport's last batch under the control plane's lock; the reads walk
 * that snapshot without the lock, and the release drops the references.
 * The open file pins the module (the fops' owner, taken by debugfs's
 * proxy at open), so rmmod cannot take away the release that drops them.
 */
#define RPCRDMA_CTL_CALLS_CHUNK	64

struct rpcrdma_ctl_calls {
	unsigned int nr;	/* lines */
	unsigned int line;	/* the cursor: this line's */
	u32 rec;		/* record */
	struct {
		u32 xprt;
		struct rpcrdma_ctl_batch *batch;	/* a reference */
	} lines[RPCRDMA_CTL_MAX];
};

/* One line's records: the head, the round trips' chunks, the tail. */
static u32 rpcrdma_ctl_calls_records(const struct rpcrdma_ctl_batch *b)
{
	return 2 + DIV_ROUND_UP(b->res.nr_rtt, RPCRDMA_CTL_CALLS_CHUNK);
}

/* A line's head: everything up to its round trips. */
static void rpcrdma_ctl_show_head(struct seq_file *m, u32 xprt,
				  const struct rpcrdma_ctl_batch *b)
{
	const struct cmkit_rpcrdma_calls *r = &b->res;
	u32 replies = r->accepted + r->rejected + r->malformed;
	const char *sep = "";
	int i;

	seq_printf(m, "{\"xprt\":%u,\"rpc\":\"summary\",\"status\":\"%s\",\"errno\":%d,",
		   xprt, rpcrdma_ctl_status(r), r->status);
	seq_printf(m, "\"prog\":%u,\"vers\":%u,\"calls\":%u,\"sent\":%u,\"replies\":%u,",
		   b->prog, b->vers, r->count, r->sent, replies);
	seq_printf(m, "\"accepted\":%u,\"rejected\":%u,\"malformed\":%u,\"unknown_xid\":%u,",
		   r->accepted, r->rejected, r->malformed, r->unknown_xid);
	seq_printf(m, "\"timedout\":%u,\"aborted\":%u,\"unanswered\":%u,",
		   r->timedout, r->aborted, r->sent - replies);
	seq_printf(m, "\"credits\":%u,\"max_outstanding\":%u,\"results\":{",
		   r->credits, r->max_outstanding);
	for (i = 0; i < ARRAY_SIZE(r->results); i++) {
		if (!r->results[i])
			continue;
		seq_printf(m, "%s\"%s\":%u", sep, cmkit_rpcrdma_result_name(-i), r->results[i]);
		sep = ",";
	}
	seq_puts(m, "},\"elapsed_us\":");
	rpcrdma_ctl_us(m, r->elapsed_ns);
	seq_printf(m, ",\"rtt_us\":{\"count\":%u,\"min\":", r->nr_rtt);
	rpcrdma_ctl_us(m, b->min_ns);
	seq_puts(m, ",\"median\":");
	rpcrdma_ctl_us(m, b->median_ns);
	seq_puts(m, ",\"p99\":");
	rpcrdma_ctl_us(m, b->p99_ns);
	seq_puts(m, ",\"max\":");
	rpcrdma_ctl_us(m, b->max_ns);
	seq_puts(m, "},\"latencies_us\":[");
}

/* Chunk @chunk of a line's round trips, in send order. */
static void rpcrdma_ctl_show_rtts(struct seq_file *m, const struct rpcrdma_ctl_batch *b,
				  u32 chunk)
{
	u32 i = chunk * RPCRDMA_CTL_CALLS_CHUNK;
	u32 end = min(b->res.nr_rtt, i + RPCRDMA_CTL_CALLS_CHUNK);

	for (; i < end; i++) {
		if (i)
			seq_putc(m, ',');
		rpcrdma_ctl_us(m, b->res.rtt_ns[i]);
	}
}

/* Record *@pos: the line it is in, and which of that line's. */
static void *rpcrdma_ctl_calls_start(struct seq_file *m, loff_t *pos)
{
	struct rpcrdma_ctl_calls *s = m->private;
	loff_t left = *pos;
	unsigned int i;

	for (i = 0; i < s->nr; i++) {
		u32 n = rpcrdma_ctl_calls_records(s->lines[i].batch);

		if (left < n) {
			s->line = i;
			s->rec = left;
			return s;
		}
		left -= n;
	}
	return NULL;
}

static void *rpcrdma_ctl_calls_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct rpcrdma_ctl_calls *s = v;

	++*pos;
	if (++s->rec == rpcrdma_ctl_calls_records(s->lines[s->line].batch)) {
		s->line++;
		s->rec = 0;
	}
	return s->line < s->nr ? s : NULL;
}

static void rpcrdma_ctl_calls_stop(struct seq_file *m, void *v)
{
}

/*
 * One JSON line per listed transport that ran a call command: its counts,
 * its results by name, the round trips' summary (nearest rank) and each
 * round trip in send order, microseconds with one decimal.
 */
static int rpcrdma_ctl_calls_show(struct seq_file *m, void *v)
{
	struct rpcrdma_ctl_calls *s = v;
	const struct rpcrdma_ctl_batch *b = s->lines[s->line].batch;

	if (!s->rec)
		rpcrdma_ctl_show_head(m, s->lines[s->line].xprt, b);
	else if (s->rec < rpcrdma_ctl_calls_records(b) - 1)
		rpcrdma_ctl_show_rtts(m, b, s->rec - 1);
	else
		seq_puts(m, "]}\n");
	return 0;
}

static const struct seq_operations rpcrdma_ctl_calls_sops = {
	.start = rpcrdma_ctl_calls_start,
	.next = rpcrdma_ctl_calls_next,
	.stop = rpcrdma_ctl_calls_stop,
	.show = rpcrdma_ctl_calls_show,
};

/* The snapshot: each listed transport's last batch, referenced. */
static int rpcrdma_ctl_calls_open(struct inode *inode, struct file *file)
{
	struct rpcrdma_ctl_calls *s;
	struct rpcrdma_ctl_xprt *cx;

	s = __seq_open_private(file, &rpcrdma_ctl_calls_sops, sizeof(*s));
	if (!s)
		return -ENOMEM;
	mutex_lock(&cmkit_rpcrdma_control.lock);
	list_for_each_entry(cx, &rpcrdma_ctl_xprts, list) {
		/* At most RPCRDMA_CTL_MAX are listed. */
		if (!cx->last || WARN_ON_ONCE(s->nr == ARRAY_SIZE(s->lines)))
			continue;
		kref_get(&cx->last->ref);
		s->lines[s->nr].xprt = cx->xprt->rx_xid;
		s->lines[s->nr++].batch = cx->last;
	}
	mutex_unlock(&cmkit_rpcrdma_control.lock);
	return 0;
}

static int rpcrdma_ctl_calls_release(struct inode *inode, struct file *file)
{
	struct rpcrdma_ctl_calls *s = ((struct seq_file *)file->private_data)->private;
	unsigned int i;

	for (i = 0; i < s->nr; i++)
		rpcrdma_ctl_batch_put(s->lines[i].batch);
	return seq_release_private(inode, file);
}

static const struct file_operations cmkit_rpcrdma_calls_fops = {
	.owner = THIS_MODULE,
	.open = rpcrdma_ctl_calls_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = rpcrdma_ctl_calls_release,
};

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * cmkit_rpcrdma_ctl_exec - run one control command as a write to ctl would
 * @cmd: the command line
 *
 * For tests: the same lock and the same refusal during unload as
 * cmkit_ctl_write(), from a kernel string.
 *
 * Return: 0, or the command's negative errno.
 */
int cmkit_rpcrdma_ctl_exec(const char *cmd)
{
	char buf[128];

	if (strscpy(buf, cmd, sizeof(buf)) < 0)
		return -EINVAL;
	return cmkit_ctl_exec(&cmkit_rpcrdma_control, strim(buf));
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_ctl_exec);
#endif

/* The transport's objects and decisions, "name value" per line. */
static void rpcrdma_stats_show_transport(struct seq_file *m, struct cmkit_rpcrdma_stats *s)
{
	const struct {
		const char *name;
		atomic_t *v;
	} counts[] = {
		{ "sends_posted", &s->sends_posted },
		{ "sends_signaled", &s->sends_signaled },
		{ "sendctx_exhausted", &s->sendctx_exhausted },
		{ "recvs_posted", &s->recvs_posted },
		{ "recvs_done", &s->recvs_done },
		{ "recvs_flushed", &s->recvs_flushed },
		{ "recvs_twice", &s->recvs_twice },
		{ "calls_sent", &s->calls_sent },
		{ "calls_accepted", &s->calls_accepted },
		{ "calls_failed", &s->calls_failed },
		{ "calls_aborted", &s->calls_aborted },
		{ "call_timeouts", &s->call_timeouts },
		{ "credit_waits", &s->credit_waits },
		{ "replies_unknown_xid", &s->replies_unknown_xid },
		{ "replies_short", &s->replies_short },
		{ "replies_bad_vers", &s->replies_bad_vers },
	};
	int i;

	seq_printf(m, "reqs_created %d\nreqs_freed %d\nreqs_alive %d\nreqs_lent %d\n",
		   atomic_read(&s->reqs_created), atomic_read(&s->reqs_freed),
		   atomic_read(&s->reqs_created) - atomic_read(&s->reqs_freed),
		   atomic_read(&s->reqs_got) - atomic_read(&s->reqs_put));
	seq_printf(m, "reps_created %d\nreps_freed %d\nreps_alive %d\nreps_lent %d\n",
		   atomic_read(&s->reps_created), atomic_read(&s->reps_freed),
		   atomic_read(&s->reps_created) - atomic_read(&s->reps_freed),
		   atomic_read(&s->reps_got) - atomic_read(&s->reps_put));
	seq_printf(m, "dma_maps %d\ndma_unmaps %d\ndma_mapped %d\n",
		   atomic_read(&s->dma_maps), atomic_read(&s->dma_unmaps),
		   atomic_read(&s->dma_maps) - atomic_read(&s->dma_unmaps));
	seq_printf(m, "sendctx_got %d\nsendctx_put %d\nsendctx_out %d\n",
		   atomic_read(&s->sendctx_got), atomic_read(&s->sendctx_put),
		   atomic_read(&s->sendctx_got) - atomic_read(&s->sendctx_put));
	seq_printf(m, "mrs_created %d\nmrs_freed %d\nmrs_alive %d\nmrs_lent %d\nmrs_remote_inv %d\n",
		   atomic_read(&s->mrs_created), atomic_read(&s->mrs_freed),
		   atomic_read(&s->mrs_created) - atomic_read(&s->mrs_freed),
		   atomic_read(&s->mrs_got) - atomic_read(&s->mrs_put),
		   atomic_read(&s->mrs_remote_inv));
	for (i = 0; i < ARRAY_SIZE(counts); i++)
		seq_printf(m, "%s %d\n", counts[i].name, atomic_read(counts[i].v));
}

static int cmkit_rpcrdma_stats_show(struct seq_file *m, void *v)
{
	struct cmkit_rpcrdma_stats *s = &cmkit_rpcrdma_stats;
	int created = atomic_read(&s->eps_created);
	int freed = atomic_read(&s->eps_freed);
	int ids = atomic_read(&s->ids_created);
	int gone = atomic_read(&s->ids_destroyed) + atomic_read(&s->ids_returned);
	int i;

	seq_printf(m, "connects %d\nconnects_failed %d\n",
		   atomic_read(&s->connects), atomic_read(&s->connects_failed));
	seq_printf(m, "eps_created %d\neps_freed %d\neps_alive %d\n",
		   created, freed, created - freed);
	seq_printf(m, "ids_created %d\nids_destroyed %d\nids_returned %d\nids_alive %d\n",
		   ids, atomic_read(&s->ids_destroyed), atomic_read(&s->ids_returned),
		   ids - gone);
	seq_printf(m, "force_disconnects %d\n", atomic_read(&s->force_disconnects));
	rpcrdma_stats_show_transport(m, s);
	for (i = 0; i < ARRAY_SIZE(s->events); i++)
		if (atomic_read(&s->events[i]))
			seq_printf(m, "event %s %d\n", rdma_event_msg(i),
				   atomic_read(&s->events[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cmkit_rpcrdma_stats);

static const struct cmkit_ctl_file rpcrdma_ctl_files[] = {
	{ "xprts", &cmkit_rpcrdma_xprts_fops },
	{ "calls", &cmkit_rpcrdma_calls_fops },
	{ "stats", &cmkit_rpcrdma_stats_fops },
	{ "nfs4_data", &cmkit_rpcrdma_nfs4_data_fops },
};

/*
 * cmkit/rpcrdma/: the control plane core/main.c brings up and down (its
 * lock is a KUnit case's to try).
 */
struct cmkit_ctl cmkit_rpcrdma_control = {
	.name = "rpcrdma",
	.lock = __MUTEX_INITIALIZER(cmkit_rpcrdma_control.lock),
	.command = rpcrdma_ctl_command,
	.files = rpcrdma_ctl_files,
	.nr_files = ARRAY_SIZE(rpcrdma_ctl_files),
	.fault = &cmkit_rpcrdma_fault_points,
};
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_control);
