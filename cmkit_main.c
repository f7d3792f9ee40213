// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit: module entry points.  Each CM consumer (rpcrdma, irdma, srpt) owns
 * its file; this one only brings them up and down in order.
 */
#include <linux/debugfs.h>
#include <linux/module.h>

#include "cmkit.h"
#include "srpt.h"

struct dentry *cmkit_debugfs;

static int __init cmkit_init(void)
{
	int rc;

	cmkit_debugfs = debugfs_create_dir("cmkit", NULL);
	rc = cmkit_rpcrdma_init();
	if (rc)
		goto out_debugfs;
	rc = cmkit_irdma_init();
	if (rc)
		goto out_rpcrdma;
	rc = cmkit_srpt_init();
	if (rc)
		goto out_irdma;
	srpt_ctl_init(cmkit_debugfs);	/* outside: its start/stop re-run the init */
	pr_info("cmkit: loaded\n");
	return 0;

out_irdma:
	cmkit_irdma_exit();
out_rpcrdma:
	cmkit_rpcrdma_exit();
out_debugfs:
	debugfs_remove_recursive(cmkit_debugfs);
	return rc;
}

static void __exit cmkit_exit(void)
{
	srpt_ctl_exit();
	cmkit_srpt_exit();
	cmkit_irdma_exit();
	cmkit_rpcrdma_exit();
	debugfs_remove_recursive(cmkit_debugfs);
	pr_info("cmkit: unloaded\n");
}

module_init(cmkit_init);
module_exit(cmkit_exit);

MODULE_DESCRIPTION("cmkit: rpcrdma, irdma and srpt connection-manager handlers");
MODULE_LICENSE("GPL");
