// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_test: module entry points, parameters and the suite table.
 *
 * The guest runs the suites one at a time (it re-creates rxe0 and siw0
 * between suites, so a suite may remove a device), one load of this module
 * each.  Where KUnit filters a module's suites at load
 * (CMKIT_HAVE_KUNIT_MODULE_FILTER, 6.6 on), they are registered with
 * kunit_test_suites(): KUnit's module notifier runs, after this module's
 * init, those that kunit.filter_glob picks ("suite" or "suite.case", which
 * the guest writes to /sys/module/kunit/parameters/filter_glob before each
 * load), and removes their results at unload.  Before (6.1) KUnit ran every
 * suite of a module, unfiltered, before the module's parameters were
 * parsed: there they are not registered, and the init runs what suites=
 * picks through __kunit_test_suites_init().
 */
#include <linux/debugfs.h>
#include <linux/glob.h>
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <linux/umh.h>
#include <kunit/resource.h>
#include <rdma/ib_verbs.h>

#include "cmkit_test.h"

static char *rxe_dev = "rxe0";
module_param(rxe_dev, charp, 0444);
MODULE_PARM_DESC(rxe_dev, "name of the soft-RoCE device under test");
static char *siw_dev = "siw0";
module_param(siw_dev, charp, 0444);
MODULE_PARM_DESC(siw_dev, "name of the soft-iWARP device under test");
static char *rxe_addr = "10.77.0.1";
module_param(rxe_addr, charp, 0444);
MODULE_PARM_DESC(rxe_addr, "IPv4 address of the netdev under rxe_dev");
static char *siw_addr = "10.78.0.1";
module_param(siw_addr, charp, 0444);
MODULE_PARM_DESC(siw_addr, "IPv4 address of the netdev under siw_dev");
static char *siw_addr6 = "fd00:78::1";
module_param(siw_addr6, charp, 0444);
MODULE_PARM_DESC(siw_addr6, "IPv6 address of the netdev under siw_dev");
static char *rxe_netdev = "d0";
module_param(rxe_netdev, charp, 0444);
MODULE_PARM_DESC(rxe_netdev, "netdev under rxe_dev (to re-create it after a removal test)");
static char *siw_netdev = "d1";
module_param(siw_netdev, charp, 0444);
MODULE_PARM_DESC(siw_netdev, "netdev under siw_dev (to re-create it after a removal test)");
static char *nodev_addr = "10.79.0.1";
module_param(nodev_addr, charp, 0444);
MODULE_PARM_DESC(nodev_addr, "IPv4 address of a netdev with no RDMA device");
static ushort base_port = 20000;
module_param(base_port, ushort, 0444);
MODULE_PARM_DESC(base_port, "first TCP/RDMA port the tests use");
static uint timeout_ms = 60000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "how long a test waits for one CM event (TCG is slow)");
static char *suites = "";
module_param(suites, charp, 0444);
MODULE_PARM_DESC(suites,
		 "what to run at load: comma-separated globs, 'suite' or 'suite.case' (where KUnit filters modules, kunit.filter_glob picks the suites, this the cases)");
static bool failslab_ready;
module_param(failslab_ready, bool, 0444);
MODULE_PARM_DESC(failslab_ready,
		 "failslab is set up for the fail-nth cases (ignore-gfp-wait N, verbose 0)");

static struct kunit_suite *cmkit_all_suites[] = {
	&cmkit_smoke_suite,
	&cmkit_rpcrdma_suite,
	&cmkit_irdma_suite,
	&cmkit_irdma_hostile_suite,
	&cmkit_srpt_suite,
	&cmkit_kernel_fixes_suite,
};

#ifdef CMKIT_HAVE_KUNIT_MODULE_FILTER
kunit_test_suites(&cmkit_smoke_suite, &cmkit_rpcrdma_suite, &cmkit_irdma_suite,
		  &cmkit_irdma_hostile_suite, &cmkit_srpt_suite, &cmkit_kernel_fixes_suite);
#endif

/*
 * Each case runs under its watchdog (kunit/case_timeout.c), armed before
 * its suite's own .init: at load, each suite's .init is replaced by its
 * own wrapper here, which arms the watch with the suite's name and calls
 * the suite's .init (kept in cmkit_suite_inits[]).  Before the suites are
 * selected or registered, so every copy KUnit or suites= makes has it.
 */
static int (*cmkit_suite_inits[ARRAY_SIZE(cmkit_all_suites)])(struct kunit *test);

static int cmkit_case_init(struct kunit *test, int i)
{
	int rc = cmkit_case_watch(test, cmkit_all_suites[i]->name);

	if (rc || !cmkit_suite_inits[i])
		return rc;
	return cmkit_suite_inits[i](test);
}

#define CMKIT_CASE_INIT(i)						\
	static int cmkit_case_init_##i(struct kunit *test)		\
	{								\
		return cmkit_case_init(test, i);			\
	}

CMKIT_CASE_INIT(0)
CMKIT_CASE_INIT(1)
CMKIT_CASE_INIT(2)
CMKIT_CASE_INIT(3)
CMKIT_CASE_INIT(4)
CMKIT_CASE_INIT(5)

static int (* const cmkit_case_inits[])(struct kunit *test) = {
	cmkit_case_init_0, cmkit_case_init_1, cmkit_case_init_2, cmkit_case_init_3,
	cmkit_case_init_4, cmkit_case_init_5,
};

static_assert(ARRAY_SIZE(cmkit_case_inits) == ARRAY_SIZE(cmkit_all_suites));

static void cmkit_watch_cases(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cmkit_all_suites); i++) {
		cmkit_suite_inits[i] = cmkit_all_suites[i]->init;
		cmkit_all_suites[i]->init = cmkit_case_inits[i];
	}
}

/*
 * What suites= picked of each suite: the suite itself, a copy holding only
 * the picked cases (freed at unload), or NULL.
 */
static struct kunit_suite *cmkit_selected[ARRAY_SIZE(cmkit_all_suites)];

static int available_get(char *buf, const struct kernel_param *kp)
{
	int i, len = 0;

	for (i = 0; i < ARRAY_SIZE(cmkit_all_suites); i++)
		len += sysfs_emit_at(buf, len, "%s\n", cmkit_all_suites[i]->name);
	return len;
}

static const struct kernel_param_ops available_ops = {
	.get = available_get,
};
module_param_cb(available, &available_ops, NULL, 0444);
MODULE_PARM_DESC(available, "the suites this module holds, one per line (read-only)");

/*
 * debugfs cmkit_test/cases: every case, one "suite.case" per line, so the
 * guest can tell the host which case a crash or a hang interrupted.
 */
static struct dentry *cmkit_test_dir;

static int cases_show(struct seq_file *m, void *v)
{
	struct kunit_case *tc;
	int i;

	for (i = 0; i < ARRAY_SIZE(cmkit_all_suites); i++)
		for (tc = cmkit_all_suites[i]->test_cases; tc->run_case; tc++)
			seq_printf(m, "%s.%s\n", cmkit_all_suites[i]->name, tc->name);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cases);

const struct cmkit_dev_param cmkit_dev_params[2] = {
	{ .transport = CMKIT_RXE },
	{ .transport = CMKIT_SIW },
};

/**
 * cmkit_dev_name - the configured name of a parameter's device
 * @p: device parameter
 *
 * Return: the rxe_dev or siw_dev module parameter.
 */
const char *cmkit_dev_name(const struct cmkit_dev_param *p)
{
	return p->transport == CMKIT_RXE ? rxe_dev : siw_dev;
}

/**
 * cmkit_dev_param_desc - KUnit parameter description: the device's name
 * @p: device parameter
 * @desc: buffer of KUNIT_PARAM_DESC_SIZE bytes
 */
void cmkit_dev_param_desc(const struct cmkit_dev_param *p, char *desc)
{
	strscpy(desc, cmkit_dev_name(p), KUNIT_PARAM_DESC_SIZE);
}

/**
 * cmkit_test_timeout - how long to wait for one event
 *
 * Return: the timeout in jiffies.
 */
unsigned long cmkit_test_timeout(void)
{
	return msecs_to_jiffies(timeout_ms);
}

/* One work request a test posts and waits for. */
struct cmkit_test_wr {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
};

static void cmkit_test_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cmkit_test_wr *w = container_of(wc->wr_cqe, struct cmkit_test_wr, cqe);

	w->status = wc->status;
	complete(&w->done);
}

/*
 * Post @wr with a bounce buffer of @len bytes, filled from @out before
 * (DMA_TO_DEVICE) or copied to @in after a successful completion
 * (DMA_FROM_DEVICE), and wait for it: cmkit_test_post_wait() and
 * cmkit_test_post_read_wait().
 */
static int cmkit_test_post_wait_dir(struct ib_qp *qp, u32 lkey, struct ib_send_wr *wr,
				    const void *out, void *in, u32 len,
				    enum dma_data_direction dir, enum ib_wc_status *status)
{
	struct ib_device *dev = qp->device;
	struct ib_qp_attr err = { .qp_state = IB_QPS_ERR };
	struct cmkit_test_wr *w;
	struct ib_sge sge;
	void *buf;
	u64 dma;
	int ret;

	w = kzalloc_obj(*w, GFP_KERNEL);
	buf = out ? kmemdup(out, len, GFP_KERNEL) : kmalloc(len, GFP_KERNEL);
	if (!w || !buf) {
		kfree(w);
		kfree(buf);
		return -ENOMEM;
	}
	init_completion(&w->done);
	w->cqe.done = cmkit_test_wr_done;
	dma = ib_dma_map_single(dev, buf, len, dir);
	if (ib_dma_mapping_error(dev, dma)) {
		ret = -EIO;
		goto free;
	}
	sge = (struct ib_sge){ .addr = dma, .length = len, .lkey = lkey };
	wr->sg_list = &sge;
	wr->num_sge = 1;
	wr->send_flags = IB_SEND_SIGNALED;
	wr->wr_cqe = &w->cqe;
	wr->next = NULL;
	ret = ib_post_send(qp, wr, NULL);
	if (ret)
		goto unmap;
	if (!wait_for_completion_timeout(&w->done, cmkit_test_timeout())) {
		ib_modify_qp(qp, &err, IB_QP_STATE);
		if (!wait_for_completion_timeout(&w->done, cmkit_test_timeout())) {
			pr_err("cmkit_test: a work request never completed, not even flushed\n");
			return -ETIMEDOUT;
		}
		ret = -ETIMEDOUT;
	}
	*status = w->status;
unmap:
	ib_dma_unmap_single(dev, dma, len, dir);
	if (!ret && in && w->status == IB_WC_SUCCESS)
		memcpy(in, buf, len);
free:
	kfree(buf);
	kfree(w);
	return ret;
}

/**
 * cmkit_test_post_wait - post one signaled work request of @data and wait for it
 * @qp: the QP
 * @lkey: the local DMA lkey of @qp's PD
 * @wr: the request: its opcode (and, in its containing ib_rdma_wr, the
 *	remote address and rkey) set; its SGE, cqe and flags are set here
 * @data: the bytes it carries (copied)
 * @len: how many
 * @status: the completion's status, on return 0
 *
 * If the completion never comes, the QP is moved to the error state to
 * flush it; if even the flush never comes, the buffer is left to the HCA
 * (leaked) rather than freed under it.
 *
 * Return: 0 and the completion's status in @status, or a negative errno.
 */
int cmkit_test_post_wait(struct ib_qp *qp, u32 lkey, struct ib_send_wr *wr,
			 const void *data, u32 len, enum ib_wc_status *status)
{
	return cmkit_test_post_wait_dir(qp, lkey, wr, data, NULL, len, DMA_TO_DEVICE, status);
}

/**
 * cmkit_test_post_read_wait - post one signaled RDMA Read into @data and wait for it
 * @qp: the QP
 * @lkey: the local DMA lkey of @qp's PD
 * @wr: an IB_WR_RDMA_READ, its remote address and rkey set (in its
 *	containing ib_rdma_wr); its SGE, cqe and flags are set here
 * @data: where the bytes read go, once the Read completed successfully
 * @len: how many
 * @status: the completion's status, on return 0
 *
 * As cmkit_test_post_wait().
 *
 * Return: 0 and the completion's status in @status, or a negative errno.
 */
int cmkit_test_post_read_wait(struct ib_qp *qp, u32 lkey, struct ib_send_wr *wr,
			      void *data, u32 len, enum ib_wc_status *status)
{
	return cmkit_test_post_wait_dir(qp, lkey, wr, NULL, data, len, DMA_FROM_DEVICE, status);
}

/**
 * cmkit_test_port - a port no earlier test of this load used
 *
 * Return: the next port, counting up from base_port.
 */
u16 cmkit_test_port(void)
{
	static atomic_t next = ATOMIC_INIT(0);

	return base_port + (u16)atomic_inc_return(&next);
}

static void cmkit_fill_addr(const char *s, u16 port, struct sockaddr_in *sin);

/**
 * cmkit_test_addr - the address of a parameter's device, with a port
 * @p: device parameter
 * @port: port in host order
 * @sin: filled in
 */
void cmkit_test_addr(const struct cmkit_dev_param *p, u16 port, struct sockaddr_in *sin)
{
	cmkit_fill_addr(p->transport == CMKIT_RXE ? rxe_addr : siw_addr, port, sin);
}

/**
 * cmkit_test_addr6 - the IPv6 address of siw's netdev, with a port
 * @port: port in host order
 * @sin6: filled in
 */
void cmkit_test_addr6(u16 port, struct sockaddr_in6 *sin6)
{
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	if (!in6_pton(siw_addr6, -1, sin6->sin6_addr.s6_addr, -1, NULL))
		pr_warn("cmkit_test: bad address parameter '%s'\n", siw_addr6);
}

/**
 * cmkit_test_nodev_addr - an address whose netdev has no RDMA device
 * @port: port in host order
 * @sin: filled in
 */
void cmkit_test_nodev_addr(u16 port, struct sockaddr_in *sin)
{
	cmkit_fill_addr(nodev_addr, port, sin);
}

static void cmkit_fill_addr(const char *s, u16 port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (!in4_pton(s, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL))
		pr_warn("cmkit_test: bad address parameter '%s'\n", s);
}

/*
 * The device under test, found through its netdev and checked by name:
 * ib_device_get_by_name() is gone in 7.x, ib_device_get_by_netdev() is
 * exported everywhere.  Returns a reference, or NULL.
 */
static struct ib_device *cmkit_get_device(const struct cmkit_dev_param *p)
{
	const char *netdev = p->transport == CMKIT_RXE ? rxe_netdev : siw_netdev;
	struct ib_device *dev = NULL;
	struct net_device *ndev;

	ndev = dev_get_by_name(&init_net, netdev);
	if (!ndev)
		return NULL;
	dev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
	dev_put(ndev);
	if (dev && strcmp(dev_name(&dev->dev), cmkit_dev_name(p))) {
		ib_device_put(dev);
		dev = NULL;
	}
	return dev;
}

/**
 * cmkit_skip - skip the running test, saying why in the log too
 * @test: the running test
 * @fmt: the reason, printf-style
 *
 * kunit_skip(), and a "# <case>: SKIP <reason>" line: 6.1's KUnit prints a
 * skipped parameter's result without its SKIP directive and reason, so the
 * host reads which parameter skipped, and why, from this line.  Every
 * skip in the suites goes through here.
 */
void cmkit_skip(struct kunit *test, const char *fmt, ...)
{
	char reason[KUNIT_STATUS_COMMENT_SIZE];
	va_list args;

	va_start(args, fmt);
	vscnprintf(reason, sizeof(reason), fmt, args);
	va_end(args);
	kunit_info(test, "SKIP %s", reason);
	kunit_skip(test, "%s", reason);
}

/**
 * cmkit_test_require_failslab - fail the test unless failslab is set up for fail-nth
 * @test: the running test
 *
 * The fail-nth sweeps set current->fail_nth (what /proc/<pid>/fail-nth
 * sets) and need failslab to count sleeping allocations (ignore-gfp-wait
 * N) without a stack dump per failure (verbose 0).  The guest sets both
 * once before the suites (scripts/guest/init) and loads this module with
 * failslab_ready=1; without it the sweep would inject far less than it
 * claims, so the case fails rather than skips.  So does a sweep on a
 * kernel without fault injection (no CONFIG_FAILSLAB): cmkit's test
 * kernels have it (kunit/cmkit.config), and no config excuses a sweep.
 */
void cmkit_test_require_failslab(struct kunit *test)
{
	KUNIT_ASSERT_TRUE_MSG(test, IS_ENABLED(CONFIG_FAILSLAB) && failslab_ready,
			      "failslab not set up (ignore-gfp-wait N, verbose 0, then failslab_ready=1)");
}

/**
 * cmkit_test_require_fault_injection - fail the test on a kernel without fault injection
 * @test: the running test
 *
 * The cases that arm cmkit's own fault points need CONFIG_FAULT_INJECTION.
 * Every KUnit leg has it (kunit/cmkit.config): a kernel without it is a
 * broken leg, and the case fails rather than skips.
 */
void cmkit_test_require_fault_injection(struct kunit *test)
{
	KUNIT_ASSERT_TRUE_MSG(test, IS_ENABLED(CONFIG_FAULT_INJECTION),
			      "the kernel has no CONFIG_FAULT_INJECTION (kunit/cmkit.config)");
}

static int cmkit_res_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void cmkit_device_res_free(struct kunit_resource *res)
{
	ib_device_put(res->data);
}

/**
 * cmkit_test_device - look up the device under test, or skip the test
 * @test: the running test
 * @p: device parameter
 *
 * A device that does not exist skips the test with the reason.  The
 * reference is dropped when the test ends.
 *
 * Return: the device.
 */
struct ib_device *cmkit_test_device(struct kunit *test, const struct cmkit_dev_param *p)
{
	struct ib_device *dev;
	void *tracked;

	dev = cmkit_get_device(p);
	if (!dev)
		cmkit_skip(test, "no RDMA device named %s", cmkit_dev_name(p));
	tracked = kunit_alloc_resource(test, cmkit_res_init, cmkit_device_res_free,
				       GFP_KERNEL, dev);
	if (!tracked)
		ib_device_put(dev);
	KUNIT_ASSERT_NOT_NULL(test, tracked);
	return dev;
}

/**
 * cmkit_test_require_device - skip the test unless the device exists
 * @test: the running test
 * @p: device parameter
 *
 * Holds no reference, so the test may remove the device.
 */
void cmkit_test_require_device(struct kunit *test, const struct cmkit_dev_param *p)
{
	struct ib_device *dev;

	dev = cmkit_get_device(p);
	if (!dev)
		cmkit_skip(test, "no RDMA device named %s", cmkit_dev_name(p));
	ib_device_put(dev);
}

/*
 * Device removal as `rdma link delete` does it (ib_unregister_device_and_put),
 * on a work item because it blocks until every CM id on the device is gone.
 */
struct cmkit_removal {
	struct work_struct work;
	struct ib_device *dev;
	const struct cmkit_dev_param *param;
	struct completion done;
};

static void cmkit_removal_work(struct work_struct *work)
{
	struct cmkit_removal *r = container_of(work, struct cmkit_removal, work);

	ib_unregister_device_and_put(r->dev);
	complete_all(&r->done);	/* waited for by the test and by the cleanup */
}

/*
 * Put the device back as `rdma link add` does, for the tests that follow.
 * This runs /usr/bin/rdma (no shell) because the kernel has no API for it:
 * a soft device is created only by an RDMA_NLDEV_CMD_NEWLINK netlink
 * request, whose handler (nldev_newlink()) and the registered link_ops are
 * static to drivers/infiniband/core/nldev.c: nothing exported creates one.
 */
static void cmkit_removal_free(struct kunit_resource *res)
{
	struct cmkit_removal *r = res->data;
	const struct cmkit_dev_param *p = r->param;
	static const char * const envp[] = {
		"HOME=/", "PATH=/usr/sbin:/usr/bin:/sbin:/bin",
		"LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu:/lib/x86_64-linux-gnu", NULL
	};
	const char *argv[9];
	int rc;

	if (!wait_for_completion_timeout(&r->done, cmkit_test_timeout())) {
		pr_err("cmkit_test: ERROR: removal of %s never finished\n", cmkit_dev_name(p));
		return;	/* the work still uses r */
	}
	argv[0] = "/usr/bin/rdma";
	argv[1] = "link";
	argv[2] = "add";
	argv[3] = cmkit_dev_name(p);
	argv[4] = "type";
	argv[5] = p->transport == CMKIT_RXE ? "rxe" : "siw";
	argv[6] = "netdev";
	argv[7] = p->transport == CMKIT_RXE ? rxe_netdev : siw_netdev;
	argv[8] = NULL;
	rc = call_usermodehelper(argv[0], (char **)argv, (char **)envp, UMH_WAIT_PROC);
	if (rc)
		pr_err("cmkit_test: ERROR: rdma link add %s failed: %d\n", cmkit_dev_name(p), rc);
	kfree(r);
}

/**
 * cmkit_test_remove_device - start removing the device under test
 * @test: the running test, which must hold no reference on the device
 * @p: device parameter
 *
 * The removal runs on a work item; cmkit_test_wait_removed() waits for it.
 * When the test ends the device is added back (`rdma link add`).
 *
 * Asserts nothing, so it may be called from any thread of the test (a CM
 * handler, say); the caller checks the result.
 *
 * Return: the removal, or NULL if the device is missing or memory short.
 */
struct cmkit_removal *cmkit_test_remove_device(struct kunit *test,
					       const struct cmkit_dev_param *p)
{
	struct cmkit_removal *r;

	r = kzalloc_obj(*r, GFP_KERNEL);
	if (!r)
		return NULL;
	r->param = p;
	init_completion(&r->done);
	INIT_WORK(&r->work, cmkit_removal_work);
	r->dev = cmkit_get_device(p);
	if (!r->dev) {
		kfree(r);
		return NULL;
	}
	if (!kunit_alloc_resource(test, cmkit_res_init, cmkit_removal_free, GFP_KERNEL, r)) {
		ib_device_put(r->dev);
		kfree(r);
		return NULL;
	}
	queue_work(system_unbound_wq, &r->work);
	return r;
}

/**
 * cmkit_test_wait_removed - wait until a removal has finished
 * @r: the removal
 *
 * Return: 0, or -ETIMEDOUT if the removal hangs (something holds an id).
 */
int cmkit_test_wait_removed(struct cmkit_removal *r)
{
	return wait_for_completion_timeout(&r->done, cmkit_test_timeout()) ? 0 : -ETIMEDOUT;
}

#define CMKIT_MAX_PATTERNS 16

/* The suites= patterns, split: "suite" or "suite.case", each part a glob. */
struct cmkit_patterns {
	char *buf;
	int n;
	const char *suite[CMKIT_MAX_PATTERNS];
	const char *cases[CMKIT_MAX_PATTERNS];	/* NULL: the whole suite */
};

static int cmkit_split_patterns(struct cmkit_patterns *pp)
{
	char *cur, *pat, *dot;

	memset(pp, 0, sizeof(*pp));
	pp->buf = kstrdup(suites, GFP_KERNEL);
	if (!pp->buf)
		return -ENOMEM;
	cur = pp->buf;
	while ((pat = strsep(&cur, ",")) && pp->n < CMKIT_MAX_PATTERNS) {
		if (!*pat)
			continue;
		dot = strchr(pat, '.');
		if (dot)
			*dot++ = '\0';
		pp->suite[pp->n] = pat;
		pp->cases[pp->n++] = dot;
	}
	return 0;
}

static bool cmkit_case_wanted(const struct cmkit_patterns *pp, const char *suite,
			      const char *name, bool *whole)
{
	int i;

	for (i = 0; i < pp->n; i++) {
		if (!glob_match(pp->suite[i], suite))
			continue;
		if (!pp->cases[i]) {
			*whole = true;
			return true;
		}
		if (name && glob_match(pp->cases[i], name))
			return true;
	}
	return false;
}

/*
 * The suite as selected: itself, a copy holding only the selected cases
 * (freed at unload), or NULL.
 */
static struct kunit_suite *cmkit_select(const struct cmkit_patterns *pp,
					struct kunit_suite *suite)
{
	struct kunit_case *tc, *cases;
	struct kunit_suite *copy;
	bool whole = false;
	int n = 0;

	cmkit_case_wanted(pp, suite->name, NULL, &whole);
	if (whole)
		return suite;
	for (tc = suite->test_cases; tc->run_case; tc++)
		n += cmkit_case_wanted(pp, suite->name, tc->name, &whole);
	if (!n)
		return NULL;
	cases = kcalloc(n + 1, sizeof(*cases), GFP_KERNEL);
	copy = kmemdup(suite, sizeof(*suite), GFP_KERNEL);
	if (!cases || !copy) {
		kfree(cases);
		kfree(copy);
		return NULL;
	}
	n = 0;
	for (tc = suite->test_cases; tc->run_case; tc++)
		if (cmkit_case_wanted(pp, suite->name, tc->name, &whole))
			cases[n++] = *tc;
	copy->test_cases = cases;
	return copy;
}

#ifdef CMKIT_HAVE_KUNIT_MODULE_FILTER
/*
 * KUnit picks the suite and runs it.  suites= may still narrow a suite's
 * cases, for more case globs than one filter_glob can say: the suite's own
 * case list is swapped for the picked ones until unload (KUnit copies the
 * list when it filters, after this init).
 */
static struct kunit_case *cmkit_all_cases[ARRAY_SIZE(cmkit_all_suites)];

static int cmkit_test_run(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cmkit_all_suites); i++) {
		if (!cmkit_selected[i] || cmkit_selected[i] == cmkit_all_suites[i])
			continue;
		cmkit_all_cases[i] = cmkit_all_suites[i]->test_cases;
		cmkit_all_suites[i]->test_cases = cmkit_selected[i]->test_cases;
	}
	return 0;
}

static void cmkit_test_stop(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cmkit_all_suites); i++)
		if (cmkit_all_cases[i])
			cmkit_all_suites[i]->test_cases = cmkit_all_cases[i];
}
#else
/*
 * Not registered (this KUnit would run them all, before suites= is parsed):
 * run what suites= picks, in order.
 */
static struct kunit_suite *cmkit_run[ARRAY_SIZE(cmkit_all_suites)];
static int cmkit_nr_run;

static int cmkit_test_run(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cmkit_all_suites); i++)
		if (cmkit_selected[i])
			cmkit_run[cmkit_nr_run++] = cmkit_selected[i];
	if (!cmkit_nr_run)
		return 0;
	return __kunit_test_suites_init(cmkit_run, cmkit_nr_run);
}

static void cmkit_test_stop(void)
{
	__kunit_test_suites_exit(cmkit_run, cmkit_nr_run);
}
#endif

static void cmkit_free_selected(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cmkit_all_suites); i++) {
		if (cmkit_selected[i] && cmkit_selected[i] != cmkit_all_suites[i]) {
			kfree(cmkit_selected[i]->test_cases);
			kfree(cmkit_selected[i]);
		}
		cmkit_selected[i] = NULL;
	}
}

static int __init cmkit_test_init(void)
{
	struct cmkit_patterns pp;
	int i, rc;

	cmkit_watch_cases();
	if (cmkit_split_patterns(&pp))
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(cmkit_all_suites); i++)
		cmkit_selected[i] = cmkit_select(&pp, cmkit_all_suites[i]);
	kfree(pp.buf);
	cmkit_test_dir = debugfs_create_dir("cmkit_test", NULL);
	debugfs_create_file("cases", 0444, cmkit_test_dir, NULL, &cases_fops);
	rc = cmkit_test_run();
	if (rc) {
		debugfs_remove_recursive(cmkit_test_dir);
		cmkit_free_selected();
	}
	return rc;
}

static void __exit cmkit_test_exit(void)
{
	debugfs_remove_recursive(cmkit_test_dir);
	cmkit_test_stop();
	cmkit_free_selected();
}

module_init(cmkit_test_init);
module_exit(cmkit_test_exit);

MODULE_DESCRIPTION("cmkit KUnit suites, run on rxe and siw in a test guest");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
MODULE_IMPORT_NS(CMKIT_NS);
MODULE_IMPORT_NS(CMKIT_KUNIT_NS);
