// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit: module entry points.  Each CM consumer (rpcrdma, irdma, srpt) owns
 * its handler file and its wing; this one only brings them up and down in
 * order.
 */
#define pr_fmt(fmt) "cmkit: " fmt

#include <linux/debugfs.h>
#include <linux/module.h>

#include "core/cmkit.h"

struct dentry *cmkit_debugfs;

/**
 * struct cmkit_consumer - one CM consumer: its core and the control plane above it
 * @init: brings the core up
 * @exit: takes the core down
 * @ctl: the control plane that drives the core
 */
struct cmkit_consumer {
	int (*init)(void);
	void (*exit)(void);
	struct cmkit_ctl *ctl;
};

static const struct cmkit_consumer cmkit_consumers[] = {
	{ cmkit_rpcrdma_init, cmkit_rpcrdma_exit, &cmkit_rpcrdma_control },
	{ cmkit_irdma_init, cmkit_irdma_exit, &cmkit_irdma_control },
	{ cmkit_srpt_init, cmkit_srpt_exit, &cmkit_srpt_control },
};

/*
 * Each consumer's core comes up before its control plane and goes down
 * after it: the control plane drives the core, never the other way round.
 */
static int __init cmkit_init(void)
{
	int i, rc;

	cmkit_debugfs = debugfs_create_dir("cmkit", NULL);
	for (i = 0; i < ARRAY_SIZE(cmkit_consumers); i++) {
		rc = cmkit_consumers[i].init();
		if (rc)
			goto out_exit;
	}
	for (i = 0; i < ARRAY_SIZE(cmkit_consumers); i++)
		cmkit_ctl_register(cmkit_consumers[i].ctl);
	pr_info("loaded\n");
	return 0;

out_exit:
	while (--i >= 0)
		cmkit_consumers[i].exit();
	debugfs_remove_recursive(cmkit_debugfs);
	return rc;
}

static void __exit cmkit_exit(void)
{
	int i;

	for (i = ARRAY_SIZE(cmkit_consumers) - 1; i >= 0; i--)
		cmkit_ctl_unregister(cmkit_consumers[i].ctl);
	for (i = ARRAY_SIZE(cmkit_consumers) - 1; i >= 0; i--) {
		cmkit_consumers[i].exit();
		if (cmkit_consumers[i].ctl->check_freed)
			cmkit_consumers[i].ctl->check_freed();
	}
	debugfs_remove_recursive(cmkit_debugfs);
	pr_info("unloaded\n");
}

module_init(cmkit_init);
module_exit(cmkit_exit);

MODULE_DESCRIPTION("cmkit: rpcrdma, irdma and srpt connection-manager handlers");
MODULE_LICENSE("GPL");
