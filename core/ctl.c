// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit: the debugfs control-plane helper below the three consumers'
 * control planes.  Each control plane is cmkit/<name>/ctl, which takes one
 * command line per write, and read-only files beside it.
 */
#define pr_fmt(fmt) "cmkit: " fmt

#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include "core/cmkit.h"

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
 * cmkit_ctl_register - create a consumer's control plane in debugfs
 * @ctl: the control plane; cmkit/<ctl->name>/ is made for it
 *
 * Creates cmkit/<name>/ctl, which passes each line written to it to
 * @ctl->command (see cmkit_ctl_write()), the read-only @ctl->files beside
 * it, and the fault-injection knobs of @ctl->fault.
 */
void cmkit_ctl_register(struct cmkit_ctl *ctl)
{
	unsigned int i;

	ctl->dir = debugfs_create_dir(ctl->name, cmkit_debugfs);
	debugfs_create_file("ctl", 0200, ctl->dir, ctl, &cmkit_ctl_fops);
	for (i = 0; i < ctl->nr_files; i++)
		debugfs_create_file(ctl->files[i].name, 0444, ctl->dir, NULL,
				    ctl->files[i].fops);
	if (ctl->fault)
		cmkit_fault_debugfs(ctl->fault, ctl->dir);
}

/**
 * cmkit_ctl_unregister - refuse further commands and remove the control plane
 * @ctl: the control plane
 *
 * Returns once no command or read of its files is running, and once
 * @ctl->stop (if any) let go of what the control plane still held.
 */
void cmkit_ctl_unregister(struct cmkit_ctl *ctl)
{
	mutex_lock(&ctl->lock);
	ctl->closing = true;
	mutex_unlock(&ctl->lock);
	debugfs_remove_recursive(ctl->dir);
	ctl->dir = NULL;
	if (ctl->stop)
		ctl->stop();
}

/**
 * cmkit_ctl_exec - run one command line, as a write to ctl does
 * @ctl: the consumer's control plane
 * @line: the command; parsing may cut it up
 *
 * The command runs under @ctl->lock unless the module is unloading.
 *
 * Return: 0, or the command's negative errno (-ESHUTDOWN while unloading).
 */
int cmkit_ctl_exec(struct cmkit_ctl *ctl, char *line)
{
	int rc;

	mutex_lock(&ctl->lock);
	rc = ctl->closing ? -ESHUTDOWN : ctl->command(line);
	mutex_unlock(&ctl->lock);
	return rc;
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

	rc = cmkit_ctl_exec(ctl, strim(buf));
	if (rc)
		pr_info_ratelimited("%s: ctl '%s' failed: %d\n", ctl->name, line, rc);
	return rc ? rc : count;
}
