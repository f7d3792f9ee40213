// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit_test: each case's watchdog.
 *
 * KUnit gives a case 300 s (a constant before 7.x, kunit.timeout from
 * 7.x), and on 6.1 and 6.12 its kthread_stop() of a case that is stuck in
 * the kernel never returns: the suite then hangs until the guest's suite
 * watchdog.  Here every case is watched from its start (main.c arms the
 * watch before each suite's own .init): when it is still running after
 * case_timeout seconds (or the shorter limit it declared with
 * cmkit_test_case_timeout()), the watchdog prints one line,
 *
 *   cmkit_test: case timeout: <suite>.<case>[#<param>] still running after <N> s
 *
 * (<param>: the parameter's number, as KTAP numbers it), the case's thread
 * and the blocked tasks.  The host takes that line as fatal: it stops the
 * guest and fails the case, "timed out after <N> s" (scripts/results.py).
 */
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/module.h>
#include <linux/sched/debug.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sysrq.h>
#include <linux/timer.h>
#include <kunit/resource.h>

#include "cmkit_test.h"

static uint case_timeout = 120;
module_param(case_timeout, uint, 0444);
MODULE_PARM_DESC(case_timeout,
		 "seconds a case may run before its watchdog names it and dumps the blocked tasks (0: no watchdog)");
static uint slow = 1;
module_param(slow, uint, 0444);
MODULE_PARM_DESC(slow,
		 "how many times slower this kernel runs (4 on a debug leg): multiplies the limits cases declare, up to case_timeout");

/**
 * struct cmkit_case_watch - the running case's watchdog
 * @timer: fires at @start + @limit seconds
 * @test: the case
 * @suite: its suite's name
 * @task: the thread the case started on (a reference)
 * @start: when the case started, in jiffies
 * @limit: the case's limit in seconds
 */
struct cmkit_case_watch {
	struct timer_list timer;
	struct kunit *test;
	const char *suite;
	struct task_struct *task;
	unsigned long start;
	unsigned int limit;
};

static void cmkit_case_watch_fire(struct timer_list *t)
{
	struct cmkit_case_watch *w = container_of(t, struct cmkit_case_watch, timer);
	char param[16] = "";

	if (w->test->param_value)
		snprintf(param, sizeof(param), "#%d", w->test->param_index + 1);
	pr_err("cmkit_test: case timeout: %s.%s%s still running after %u s\n",
	       w->suite, w->test->name, param, READ_ONCE(w->limit));
	pr_err("cmkit_test: the case's thread: %s (pid %d)\n", w->task->comm,
	       task_pid_nr(w->task));
	sched_show_task(w->task);
	/* The tasks stuck in the kernel, as the guest's suite watchdog shows them. */
	handle_sysrq('w');
}

static int cmkit_case_watch_init(struct kunit_resource *res, void *context)
{
	res->data = context;
	return 0;
}

static void cmkit_case_watch_free(struct kunit_resource *res)
{
	struct cmkit_case_watch *w = res->data;

	timer_delete_sync(&w->timer);
	put_task_struct(w->task);
	kfree(w);
}

static bool cmkit_is_case_watch(struct kunit *test, struct kunit_resource *res, void *data)
{
	return res->free == cmkit_case_watch_free;
}

/**
 * cmkit_case_watch - start watching the case that is starting
 * @test: the case, before its suite's .init
 * @suite: its suite's name
 *
 * The watch ends with the case's resources, after its suite's .exit: the
 * first resource the case holds, it is released last.
 *
 * Return: 0, or -ENOMEM.
 */
int cmkit_case_watch(struct kunit *test, const char *suite)
{
	struct cmkit_case_watch *w;

	if (!case_timeout)
		return 0;
	w = kzalloc_obj(*w, GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	w->test = test;
	w->suite = suite;
	w->task = get_task_struct(current);
	w->start = jiffies;
	w->limit = case_timeout;
	timer_setup(&w->timer, cmkit_case_watch_fire, 0);
	if (!kunit_alloc_resource(test, cmkit_case_watch_init, cmkit_case_watch_free,
				  GFP_KERNEL, w)) {
		put_task_struct(w->task);
		kfree(w);
		return -ENOMEM;
	}
	mod_timer(&w->timer, w->start + (unsigned long)w->limit * HZ);
	return 0;
}

/**
 * cmkit_test_case_timeout - declare the running case's own, shorter limit
 * @test: the running case
 * @seconds: how long the case may take on a plain kernel, its own waits
 *	included
 *
 * The case's watchdog then fires @seconds (times the slow parameter) after
 * the case started; never later than case_timeout.  For a case whose every
 * wait is short, so that a hang in it is named sooner.
 */
void cmkit_test_case_timeout(struct kunit *test, unsigned int seconds)
{
	struct cmkit_case_watch *w;
	struct kunit_resource *res;

	res = kunit_find_resource(test, cmkit_is_case_watch, NULL);
	if (!res)
		return;
	w = res->data;
	WRITE_ONCE(w->limit, min(w->limit, seconds * slow));
	mod_timer(&w->timer, w->start + (unsigned long)w->limit * HZ);
	kunit_put_resource(res);
}
