// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit: module entry points.  Each CM consumer (rpcrdma, irdma, srpt) owns
 * its file; this one only brings them up and down in order.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "cmkit.h"

struct dentry *cmkit_debugfs;

#define CMKIT_CTL_LINE	128

static ssize_t cmkit_ctl_fop_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	return cmkit_ctl_write(file->private_data, ubuf, count);
}

static const struct file_operations cmkit_ctl_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = cmkit_ctl_fop_write,
};

/**
 * cmkit_ctl_register - create a handler's control plane in debugfs
 * @ctl: the control plane; cmkit/<ctl->name>/ is made for it
 * @files: read-only files beside ctl (stats, lists)
 * @nr_files: how many
 *
 * Creates cmkit/<name>/ctl, which passes each line written to it to
 * @ctl->command (see cmkit_ctl_write()), and @files, mode 0444.
 */
void cmkit_ctl_register(struct cmkit_ctl *ctl, const struct cmkit_ctl_file *files,
			unsigned int nr_files)
{
	unsigned int i;

	ctl->dir = debugfs_create_dir(ctl->name, cmkit_debugfs);
	debugfs_create_file("ctl", 0200, ctl->dir, ctl, &cmkit_ctl_fops);
	for (i = 0; i < nr_files; i++)
		debugfs_create_file(files[i].name, 0444, ctl->dir, NULL, files[i].fops);
}

/**
 * cmkit_ctl_unregister - remove a handler's control plane from debugfs
 * @ctl: the control plane
 *
 * Returns once no command or read of its files is running; call
 * cmkit_ctl_close() first so that no new command starts.
 */
void cmkit_ctl_unregister(struct cmkit_ctl *ctl)
{
	debugfs_remove_recursive(ctl->dir);
	ctl->dir = NULL;
}

/**
 * cmkit_ctl_write - take one control-plane command from a debugfs write
 * @ctl: the handler's control plane
 * @ubuf: the user's buffer
 * @count: its length; a command is one line shorter than CMKIT_CTL_LINE
 *
 * The command runs under @ctl->lock unless the module is unloading.  A
 * failed command fails the write with its errno and leaves a
 * (rate-limited) log line.
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
		pr_info_ratelimited("cmkit: %s: ctl '%s' failed: %d\n", ctl->name, line, rc);
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

/*
 * Each consumer's core comes up before its control plane and goes down
 * after it: the control plane drives the core, never the other way round.
 */
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
	rpcrdma_ctl_init();
	irdma_ctl_init();
	srpt_ctl_init();
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
	irdma_ctl_exit();
	rpcrdma_ctl_exit();
	cmkit_srpt_exit();
	cmkit_irdma_exit();
	irdma_ctl_check_freed();
	cmkit_rpcrdma_exit();
	debugfs_remove_recursive(cmkit_debugfs);
	pr_info("cmkit: unloaded\n");
}

module_init(cmkit_init);
module_exit(cmkit_exit);

MODULE_DESCRIPTION("cmkit: rpcrdma, irdma and srpt connection-manager handlers");
MODULE_LICENSE("GPL");
