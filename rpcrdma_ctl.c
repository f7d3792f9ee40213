// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit rpcrdma: the debugfs control plane, cmkit/rpcrdma/.
 *
 *   ctl     write one command per line:
 *             connect <ipv4> <port> [<inline send> <inline recv>]
 *                                  sizes 1024..65536 bytes (default 4096);
 *                                  at most RPCRDMA_CTL_MAX transports
 *             disconnect <n>       disconnect transport n (it stays listed)
 *             destroy <n>|all      disconnect and forget transport n, or all
 *           a failed command fails the write with its errno
 *   xprts   one line per transport: its number, server, state, inline sizes
 *   stats   objects made and freed, and CM events by type
 *
 * A connect waits for its answer without the control plane's lock (it is
 * listed as "connecting" meanwhile), so a server that never answers blocks
 * no other command.  Every listed transport pins the module, as a mount
 * pins xprtrdma: rmmod cmkit fails until "destroy all".
 */
#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "cmkit.h"
#include "rpcrdma.h"

/* How many transports the control plane may hold at once. */
#define RPCRDMA_CTL_MAX		64

struct rpcrdma_ctl_xprt {
	struct list_head list;
	struct rpcrdma_xprt *xprt;
	bool connecting;	/* its connect runs without rpcrdma_ctl.lock */
};

static struct cmkit_ctl rpcrdma_ctl;

/* Under rpcrdma_ctl.lock. */
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

static void rpcrdma_ctl_forget(struct rpcrdma_ctl_xprt *cx)
{
	list_del(&cx->list);
	rpcrdma_ctl_nr--;
	cmkit_rpcrdma_xprt_destroy(cx->xprt);
	kfree(cx);
	module_put(THIS_MODULE);
}

/*
 * connect <ipv4> <port> [<send> <recv>]: list the transport as connecting,
 * then connect without the control plane's lock: called with it held, it
 * drops and retakes it.  No unload can start meanwhile: the writer holds
 * the ctl file open, which pins the module.
 */
static int rpcrdma_ctl_connect(char *args)
	__must_hold(&rpcrdma_ctl.lock)
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
	__module_get(THIS_MODULE);	/* put by rpcrdma_ctl_forget() */
	cx->connecting = true;
	list_add_tail(&cx->list, &rpcrdma_ctl_xprts);
	rpcrdma_ctl_nr++;

	mutex_unlock(&rpcrdma_ctl.lock);
	rc = cmkit_rpcrdma_xprt_connect(cx->xprt);
	mutex_lock(&rpcrdma_ctl.lock);

	cx->connecting = false;
	pr_info_ratelimited("cmkit: rpcrdma: xprt %u connect to %pISpc: %d\n",
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

static int rpcrdma_ctl_command(char *line)
{
	char *verb = strsep(&line, " ");
	struct rpcrdma_ctl_xprt *cx;

	if (!strcmp(verb, "connect"))
		return rpcrdma_ctl_connect(line);
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

static struct cmkit_ctl rpcrdma_ctl =
	CMKIT_CTL_INIT(rpcrdma_ctl, "rpcrdma", rpcrdma_ctl_command);

/**
 * rpcrdma_xprts_show - the xprts file: one line per transport
 * @m: the seq_file
 * @v: unused
 *
 * Return: 0.
 */
VISIBLE_IF_KUNIT int rpcrdma_xprts_show(struct seq_file *m, void *v)
{
	struct rpcrdma_ctl_xprt *cx;

	mutex_lock(&rpcrdma_ctl.lock);
	list_for_each_entry(cx, &rpcrdma_ctl_xprts, list) {
		struct rpcrdma_xprt *x = cx->xprt;
		struct rpcrdma_ep *ep;

		/* Its connect holds rx_lock until it ends: do not wait for it. */
		if (cx->connecting) {
			seq_printf(m, "%u %pISpc connecting\n", x->rx_xid, &x->rx_dst);
			continue;
		}
		mutex_lock(&x->rx_lock);
		ep = x->rx_ep;
		if (ep)
			seq_printf(m, "%u %pISpc status=%d inline_send=%u inline_recv=%u\n",
				   x->rx_xid, &x->rx_dst, rpcrdma_ep_status(ep),
				   ep->re_inline_send, ep->re_inline_recv);
		else
			seq_printf(m, "%u %pISpc disconnected\n", x->rx_xid, &x->rx_dst);
		mutex_unlock(&x->rx_lock);
	}
	mutex_unlock(&rpcrdma_ctl.lock);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_xprts_show);
DEFINE_SHOW_ATTRIBUTE(rpcrdma_xprts);

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * rpcrdma_ctl_exec - run one control command as a write to ctl would
 * @cmd: the command line
 *
 * For tests: the same lock and the same refusal during unload as
 * cmkit_ctl_write(), from a kernel string.
 *
 * Return: 0, or the command's negative errno.
 */
int rpcrdma_ctl_exec(const char *cmd)
{
	char buf[128];
	int rc;

	if (strscpy(buf, cmd, sizeof(buf)) < 0)
		return -EINVAL;
	mutex_lock(&rpcrdma_ctl.lock);
	rc = rpcrdma_ctl.closing ? -ESHUTDOWN : rpcrdma_ctl_command(strim(buf));
	mutex_unlock(&rpcrdma_ctl.lock);
	return rc;
}
EXPORT_SYMBOL_IF_KUNIT(rpcrdma_ctl_exec);
#endif

static int rpcrdma_stats_show(struct seq_file *m, void *v)
{
	struct rpcrdma_stats *s = &rpcrdma_stats;
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
	for (i = 0; i < ARRAY_SIZE(s->events); i++)
		if (atomic_read(&s->events[i]))
			seq_printf(m, "event %s %d\n", rdma_event_msg(i),
				   atomic_read(&s->events[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(rpcrdma_stats);

static const struct cmkit_ctl_file rpcrdma_ctl_files[] = {
	{ "xprts", &rpcrdma_xprts_fops },
	{ "stats", &rpcrdma_stats_fops },
};

/**
 * rpcrdma_ctl_init - create cmkit/rpcrdma/ in debugfs
 */
void rpcrdma_ctl_init(void)
{
	cmkit_ctl_register(&rpcrdma_ctl, rpcrdma_ctl_files, ARRAY_SIZE(rpcrdma_ctl_files));
	cmkit_fault_debugfs(&rpcrdma_fault_points, rpcrdma_ctl.dir);
}

/**
 * rpcrdma_ctl_exit - refuse further commands and remove cmkit/rpcrdma/
 *
 * Listed transports pin the module, so none is left when this runs.
 */
void rpcrdma_ctl_exit(void)
{
	cmkit_ctl_close(&rpcrdma_ctl);
	cmkit_ctl_unregister(&rpcrdma_ctl);
}
