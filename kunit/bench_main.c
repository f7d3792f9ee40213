// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_bench: module entry points, the debugfs files and the JSON helpers.
 *
 *   cmkit_bench/run     write one command; the write returns when the
 *                       benchmark has finished (or fails with its errno):
 *                         cm <ipv4> <port> <n>
 *                             n rdma_cm connections to a listener of this
 *                             module on <ipv4>:<port>, step by step as
 *                             rdma-core's cmtime does (bench_cm.c)
 *                         irdma <nodes> <events per node> cmkit|baseline concurrent|backlog
 *                             events through irdma_cm_event_handler(), or
 *                             through this module's one-work-item-per-event
 *                             pipeline (bench_irdma.c)
 *   cmkit_bench/result  the last command's JSON line (an "error" member
 *                       when it failed)
 *
 * One benchmark at a time.  The guest's scripts/guest/bench.sh drives it.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include "bench.h"

static uint timeout_ms = 120000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "how long a benchmark waits for one step of all its objects");

#define BENCH_RESULT_SIZE	4096
#define BENCH_CMD_SIZE		128

static DEFINE_MUTEX(bench_lock);	/* one run at a time; bench_result */
static char *bench_result;
static struct dentry *bench_dir;

/**
 * bench_timeout - how long to wait for one step of a benchmark
 *
 * Return: the timeout_ms module parameter in jiffies.
 */
unsigned long bench_timeout(void)
{
	return msecs_to_jiffies(timeout_ms);
}

/**
 * bench_printf - append to a benchmark's JSON line
 * @out: the output
 * @fmt: printf format
 */
void bench_printf(struct bench_out *out, const char *fmt, ...)
{
	va_list args;

	if (out->len >= out->size)
		return;
	va_start(args, fmt);
	out->len += vscnprintf(out->buf + out->len, out->size - out->len, fmt, args);
	va_end(args);
}

/**
 * bench_us - append "<key>":<microseconds with one decimal>
 * @out: the output
 * @key: the member's name
 * @ns: nanoseconds (not negative)
 */
void bench_us(struct bench_out *out, const char *key, s64 ns)
{
	if (ns < 0)
		ns = 0;
	bench_printf(out, "\"%s\":%lld.%lld", key, ns / NSEC_PER_USEC,
		     (ns % NSEC_PER_USEC) / 100);
}

static int bench_cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

/**
 * bench_samples - append "<key>":{"min":..,"median":..,"p99":..,"max":..}
 * @out: the output
 * @key: the member's name
 * @ns: the samples in nanoseconds; sorted in place
 * @n: how many (0: every figure is 0)
 *
 * Percentiles are nearest rank, as cmkit-peer's.
 */
void bench_samples(struct bench_out *out, const char *key, s64 *ns, u32 n)
{
	s64 zero = 0;

	if (!n) {
		ns = &zero;
		n = 1;
	}
	sort(ns, n, sizeof(*ns), bench_cmp_s64, NULL);
	bench_printf(out, "\"%s\":{", key);
	bench_us(out, "min", ns[0]);
	bench_printf(out, ",");
	bench_us(out, "median", ns[(n - 1) / 2]);
	bench_printf(out, ",");
	bench_us(out, "p99", ns[DIV_ROUND_UP(n * 99, 100) - 1]);
	bench_printf(out, ",");
	bench_us(out, "max", ns[n - 1]);
	bench_printf(out, "}");
}

static ssize_t bench_run_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct bench_out out = { .size = BENCH_RESULT_SIZE };
	char line[BENCH_CMD_SIZE], *args, *verb;
	int rc;

	if (!count || count >= sizeof(line))
		return -EINVAL;
	if (copy_from_user(line, ubuf, count))
		return -EFAULT;
	line[count] = '\0';
	args = strim(line);
	verb = strsep(&args, " ");

	mutex_lock(&bench_lock);
	out.buf = bench_result;
	bench_result[0] = '\0';
	if (!strcmp(verb, "cm") && args)
		rc = bench_cm_run(args, &out);
	else if (!strcmp(verb, "irdma") && args)
		rc = bench_irdma_run(args, &out);
	else
		rc = -EINVAL;
	bench_printf(&out, "\n");
	mutex_unlock(&bench_lock);
	return rc ? rc : count;
}

static ssize_t bench_result_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	ssize_t rc;

	mutex_lock(&bench_lock);
	rc = simple_read_from_buffer(ubuf, count, ppos, bench_result,
				     strnlen(bench_result, BENCH_RESULT_SIZE));
	mutex_unlock(&bench_lock);
	return rc;
}

static const struct file_operations bench_run_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = bench_run_write,
};

static const struct file_operations bench_result_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = bench_result_read,
	.llseek = default_llseek,
};

static int __init cmkit_bench_init(void)
{
	bench_result = kzalloc(BENCH_RESULT_SIZE, GFP_KERNEL);
	if (!bench_result)
		return -ENOMEM;
	bench_dir = debugfs_create_dir("cmkit_bench", NULL);
	debugfs_create_file("run", 0200, bench_dir, NULL, &bench_run_fops);
	debugfs_create_file("result", 0444, bench_dir, NULL, &bench_result_fops);
	return 0;
}

static void __exit cmkit_bench_exit(void)
{
	debugfs_remove_recursive(bench_dir);
	kfree(bench_result);
}

module_init(cmkit_bench_init);
module_exit(cmkit_bench_exit);

MODULE_DESCRIPTION("cmkit benchmarks: rdma_cm connection churn, the irdma event pipeline");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(CMKIT_NS);
MODULE_IMPORT_NS(CMKIT_KUNIT_NS);
