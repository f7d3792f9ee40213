// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit: fault points on the kernel's fault-injection framework.
 *
 * A handler names the steps of its connect and accept paths that can fail
 * and asks cmkit_should_fail() before each.  Nothing fails unless a step is
 * armed, from debugfs (cmkit/<handler>/fail_steps, with the standard knobs in
 * cmkit/<handler>/fail/) or by a test (cmkit_fault_arm()); an armed step then
 * fails when the kernel's should_fail() says so, which also honours
 * /proc/<pid>/fail-nth.  Without CONFIG_FAULT_INJECTION nothing ever fails.
 *
 * By hand, to fail the next QP creation of an rpcrdma connect once:
 *
 *	echo qp_create > /sys/kernel/debug/cmkit/rpcrdma/fail_steps
 *	echo 100 > /sys/kernel/debug/cmkit/rpcrdma/fail/probability
 *	echo 1 > /sys/kernel/debug/cmkit/rpcrdma/fail/times
 */
#define pr_fmt(fmt) "cmkit: " fmt

#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "core/cmkit.h"

#define CREATE_TRACE_POINTS
#include "core/trace.h"

/**
 * cmkit_should_fail - should this step fail now?
 * @fault: the handler's fault points
 * @step: the step about to run
 *
 * Return: true if the caller must fail the step as if it had failed for
 * real (with the errno the real failure would give).
 */
bool cmkit_should_fail(struct cmkit_fault *fault, unsigned int step)
{
#ifdef CONFIG_FAULT_INJECTION
	if (step >= fault->nr_steps || !test_bit(step, &fault->armed))
		return false;
	if (!should_fail(&fault->attr, 1))
		return false;
	atomic_inc(&fault->fired);
	trace_cmkit_fault(fault->name, fault->steps[step]);
	pr_info_ratelimited("%s: injected a failure at step %s\n",
			    fault->name, fault->steps[step]);
	return true;
#else
	return false;
#endif
}

/**
 * cmkit_fault_arm - make the given steps fail, @times times in all
 * @fault: the handler's fault points
 * @steps: bit n arms step n
 * @times: how many failures to inject before the attribute runs dry
 *
 * For tests: every armed step fails on each pass until @times failures
 * were injected, whatever task runs it, with no stack dump.
 */
void cmkit_fault_arm(struct cmkit_fault *fault, unsigned long steps, int times)
{
#ifdef CONFIG_FAULT_INJECTION
	fault->attr.probability = 100;
	fault->attr.interval = 1;
	fault->attr.task_filter = false;
	fault->attr.verbose = 0;
	atomic_set(&fault->attr.times, times);
	atomic_set(&fault->attr.space, 0);
	WRITE_ONCE(fault->armed, steps);
#endif
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_fault_arm);

/**
 * cmkit_fault_disarm - no step fails any more
 * @fault: the handler's fault points
 */
void cmkit_fault_disarm(struct cmkit_fault *fault)
{
#ifdef CONFIG_FAULT_INJECTION
	WRITE_ONCE(fault->armed, 0);
	fault->attr.probability = 0;
	atomic_set(&fault->attr.times, 1);
#endif
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_fault_disarm);

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static int cmkit_fault_steps_show(struct seq_file *m, void *v)
{
	struct cmkit_fault *fault = m->private;
	unsigned int i;

	for (i = 0; i < fault->nr_steps; i++)
		seq_printf(m, "%s%s\n", fault->steps[i],
			   test_bit(i, &fault->armed) ? " armed" : "");
	seq_printf(m, "fired %d\n", atomic_read(&fault->fired));
	return 0;
}

static int cmkit_fault_steps_open(struct inode *inode, struct file *file)
{
	return single_open(file, cmkit_fault_steps_show, inode->i_private);
}

/* "none", "all", or step names separated by commas or spaces. */
static ssize_t cmkit_fault_steps_write(struct file *file, const char __user *ubuf,
				       size_t count, loff_t *ppos)
{
	struct cmkit_fault *fault = ((struct seq_file *)file->private_data)->private;
	unsigned long steps = 0;
	char buf[256], *cur, *word;
	unsigned int i;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	cur = strim(buf);
	if (!strcmp(cur, "all")) {
		steps = fault->nr_steps >= BITS_PER_LONG ? ~0UL : BIT(fault->nr_steps) - 1;
		cur = NULL;
	} else if (!strcmp(cur, "none")) {
		cur = NULL;
	}
	while ((word = strsep(&cur, ", ")) != NULL) {
		if (!*word)
			continue;
		for (i = 0; i < fault->nr_steps; i++)
			if (!strcmp(word, fault->steps[i]))
				break;
		if (i == fault->nr_steps)
			return -EINVAL;
		steps |= BIT(i);
	}
	WRITE_ONCE(fault->armed, steps);
	return count;
}

static const struct file_operations cmkit_fault_steps_fops = {
	.owner = THIS_MODULE,
	.open = cmkit_fault_steps_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = cmkit_fault_steps_write,
};
#endif

/**
 * cmkit_fault_debugfs - the fault knobs of a handler, in its debugfs directory
 * @fault: the handler's fault points
 * @dir: cmkit/<handler>/
 *
 * Creates fail/ (the kernel's fault attribute files) and fail_steps (read:
 * each step, "armed" where armed, and the failures fired; write: step names,
 * "all" or "none").  Does nothing without CONFIG_FAULT_INJECTION_DEBUG_FS.
 */
void cmkit_fault_debugfs(struct cmkit_fault *fault, struct dentry *dir)
{
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
	fault_create_debugfs_attr("fail", dir, &fault->attr);
	debugfs_create_file("fail_steps", 0600, dir, fault, &cmkit_fault_steps_fops);
#endif
}
