// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_test: module entry points, parameters and the suite table.
 *
 * Suites are not registered with kunit_test_suites(): the guest runs them one
 * at a time (it re-creates rxe0 and siw0 between suites, so a suite may remove
 * a device), by loading this module with suites=<name>.  The module runs the
 * selected suites at load and removes their debugfs results at unload.
 */
#include <linux/glob.h>
#include <linux/inet.h>
#include <linux/module.h>
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
static ushort base_port = 20000;
module_param(base_port, ushort, 0444);
MODULE_PARM_DESC(base_port, "first TCP/RDMA port the tests use");
static uint timeout_ms = 60000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "how long a test waits for one CM event (TCG is slow)");
static char *suites = "";
module_param(suites, charp, 0444);
MODULE_PARM_DESC(suites, "comma-separated globs of the suites to run at load");

static struct kunit_suite *cmkit_all_suites[] = {
	&cmkit_smoke_suite,
};

static struct kunit_suite *cmkit_selected[ARRAY_SIZE(cmkit_all_suites)];
static int cmkit_nr_selected;

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

/**
 * cmkit_test_addr - the address of a parameter's device, with a port
 * @p: device parameter
 * @port: port in host order
 * @sin: filled in
 */
void cmkit_test_addr(const struct cmkit_dev_param *p, u16 port, struct sockaddr_in *sin)
{
	const char *s = p->transport == CMKIT_RXE ? rxe_addr : siw_addr;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	if (!in4_pton(s, -1, (u8 *)&sin->sin_addr.s_addr, -1, NULL))
		pr_warn("cmkit_test: bad address parameter '%s'\n", s);
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

	dev = ib_device_get_by_name(cmkit_dev_name(p), RDMA_DRIVER_UNKNOWN);
	if (!dev)
		kunit_skip(test, "no RDMA device named %s", cmkit_dev_name(p));
	tracked = kunit_alloc_resource(test, cmkit_res_init, cmkit_device_res_free,
				       GFP_KERNEL, dev);
	if (!tracked)
		ib_device_put(dev);
	KUNIT_ASSERT_NOT_NULL(test, tracked);
	return dev;
}

static bool cmkit_suite_wanted(const char *name)
{
	char *list, *cur, *pat;
	bool hit = false;

	list = kstrdup(suites, GFP_KERNEL);
	if (!list)
		return false;
	cur = list;
	while (!hit && (pat = strsep(&cur, ",")))
		hit = *pat && glob_match(pat, name);
	kfree(list);
	return hit;
}

static int __init cmkit_test_init(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(cmkit_all_suites); i++)
		if (cmkit_suite_wanted(cmkit_all_suites[i]->name))
			cmkit_selected[cmkit_nr_selected++] = cmkit_all_suites[i];
	if (!cmkit_nr_selected)
		return 0;
#ifdef CMKIT_HAVE_KUNIT_SUITES_INIT_RUN_TESTS
	return __kunit_test_suites_init(cmkit_selected, cmkit_nr_selected, true);
#else
	return __kunit_test_suites_init(cmkit_selected, cmkit_nr_selected);
#endif
}

static void __exit cmkit_test_exit(void)
{
	__kunit_test_suites_exit(cmkit_selected, cmkit_nr_selected);
}

module_init(cmkit_test_init);
module_exit(cmkit_test_exit);

MODULE_DESCRIPTION("cmkit KUnit suites, run on rxe and siw in a test guest");
MODULE_LICENSE("GPL");
MODULE_INFO(test, "Y");
