// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit: module entry points.  Each CM consumer (rpcrdma, irdma, srpt) owns
 * its file; this one only brings them up and down in order.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "cmkit.h"
#include "srpt.h"

struct dentry *cmkit_debugfs;

#define CMKIT_CTL_LINE	128

/**
 * cmkit_ctl_write - take one control-plane command from a debugfs write
 * @ctl: the handler's control plane
 * @ubuf: the user's buffer
 * @count: its length; a command is one line shorter than CMKIT_CTL_LINE
 *
 * The command runs under @ctl->lock unless the module is unloading.  A
 * failed command fails the write with its errno and leaves a log line.
 *
 * Return: @count, or a negative errno.
 */
ssize_t cmkit_ctl_write(struct cmkit_ctl *ctl, const char __user *ubuf, size_t count)
{
	char buf[CMKIT_CTL_LINE], line[CMKIT_CTL_LINE];
	int rc;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	strscpy(line, strim(buf), sizeof(line));	/* parsing cuts buf up */

	mutex_lock(&ctl->lock);
	rc = ctl->closing ? -ESHUTDOWN : ctl->command(strim(buf));
	mutex_unlock(&ctl->lock);
	if (rc)
		pr_info("cmkit: %s: ctl '%s' failed: %d\n", ctl->name, line, rc);
	return rc ? rc : count;
}

/**
 * cmkit_ctl_close - refuse further commands (module unload)
 * @ctl: the handler's control plane
 */
void cmkit_ctl_close(struct cmkit_ctl *ctl)
{
	mutex_lock(&ctl->lock);
	ctl->closing = true;
	mutex_unlock(&ctl->lock);
}

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
