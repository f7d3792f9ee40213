/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit: declarations shared by the module's own files (kernel only; the
 * header layer shared with user space is include/cmkit/).
 */
#ifndef CMKIT_H
#define CMKIT_H

#include <linux/fault-inject.h>
#include <linux/fs.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/wait_bit.h>

struct dentry;

/* cmkit/ in debugfs: each consumer's control plane lives below it. */
extern struct dentry *cmkit_debugfs;

struct cmkit_fault;

/**
 * struct cmkit_ctl_file - a read-only file beside a control plane's ctl
 * @name: file name
 * @fops: its operations (DEFINE_SHOW_ATTRIBUTE() ones, usually)
 */
struct cmkit_ctl_file {
	const char *name;
	const struct file_operations *fops;
};

/**
 * struct cmkit_ctl - a consumer's debugfs control plane, cmkit/<name>/
 * @name: the consumer: its directory, and the prefix of its log lines
 * @lock: serialises commands, and commands against unload
 * @closing: the module is unloading: commands are refused
 * @command: runs one command line; returns 0 or a negative errno
 * @files: read-only files beside ctl (stats, lists)
 * @nr_files: how many
 * @fault: the consumer's fault points, whose knobs go beside ctl
 * @stop: at unload, once no command runs: let go of what commands made
 * @check_freed: at unload, after the consumers' cores went down: WARN
 *	about anything the control plane made that is still alive
 * @dir: cmkit/<name>/, once cmkit_ctl_register() made it
 */
struct cmkit_ctl {
	const char *name;
	struct mutex lock;	/* commands, and commands vs. unload */
	bool closing;
	int (*command)(char *line);
	const struct cmkit_ctl_file *files;
	unsigned int nr_files;
	struct cmkit_fault *fault;
	void (*stop)(void);
	void (*check_freed)(void);
	struct dentry *dir;
};

void cmkit_ctl_register(struct cmkit_ctl *ctl);
void cmkit_ctl_unregister(struct cmkit_ctl *ctl);
int cmkit_ctl_exec(struct cmkit_ctl *ctl, char *line);
ssize_t cmkit_ctl_write(struct cmkit_ctl *ctl, const char __user *ubuf, size_t count);

/* ---- fault injection ---------------------------------------------------- */

/**
 * struct cmkit_fault - the fault points of one handler
 * @name: the handler ("rpcrdma", "irdma", "srpt")
 * @steps: the name of each step that can be made to fail, by step number
 * @nr_steps: how many
 * @armed: the steps that consult @attr (bit n: step n); none by default
 * @fired: failures injected since load
 * @attr: the kernel's fault attribute: probability, interval, times,
 *	task filter and verbosity, as for failslab
 *
 * Each step of a connect or accept path that can fail (an allocation, a
 * verb, a CM send, a socket call) asks cmkit_should_fail() first.  A step
 * fails only when it is armed and the kernel's should_fail() says so, so
 * the knobs are the standard ones: cmkit/<handler>/fail/ in debugfs
 * (Documentation/fault-injection/fault-injection.rst) and the armed steps
 * in cmkit/<handler>/fail_steps.  /proc/<pid>/fail-nth also counts these
 * points once armed.
 */
struct cmkit_fault {
	const char *name;
	const char * const *steps;
	unsigned int nr_steps;
	unsigned long armed;
	atomic_t fired;
#ifdef CONFIG_FAULT_INJECTION
	struct fault_attr attr;
#endif
};

#ifdef CONFIG_FAULT_INJECTION
#define CMKIT_FAULT_ATTR	.attr = FAULT_ATTR_INITIALIZER,
#else
#define CMKIT_FAULT_ATTR
#endif

#define CMKIT_FAULT_INIT(nm, step_names) {				\
	.name = (nm),							\
	.steps = (step_names),						\
	.nr_steps = ARRAY_SIZE(step_names),				\
	CMKIT_FAULT_ATTR						\
}

bool cmkit_should_fail(struct cmkit_fault *fault, unsigned int step);
void cmkit_fault_debugfs(struct cmkit_fault *fault, struct dentry *dir);
void cmkit_fault_arm(struct cmkit_fault *fault, unsigned long steps, int times);
void cmkit_fault_disarm(struct cmkit_fault *fault);

/* ---- bounded waits for teardown ----------------------------------------- */

/* How long a teardown waits for its objects before it calls them leaked. */
#define CMKIT_TEARDOWN_WAIT	(30 * HZ)

/**
 * cmkit_wait_released - wait until @cond, calling a late object a leak
 * @var: the variable whose wake_up_var() signals progress
 * @cond: true once every object is gone
 * @fmt: what is still alive, printed after "cmkit: LEAK: "
 *
 * Waits CMKIT_TEARDOWN_WAIT; if @cond is still false, WARNs with a
 * "cmkit: LEAK:" line (on the test kernels panic_on_warn turns that into an
 * immediate, named failure) and then keeps waiting, since the objects still
 * reference the module's code.
 */
#define cmkit_wait_released(var, cond, fmt, ...)				\
do {									\
	if (!wait_var_event_timeout(var, cond, CMKIT_TEARDOWN_WAIT)) {	\
		WARN(1, "cmkit: LEAK: " fmt, ##__VA_ARGS__);		\
		wait_var_event(var, cond);				\
	}								\
} while (0)

/* The consumers' cores, and the control planes above them. */
int cmkit_rpcrdma_init(void);
void cmkit_rpcrdma_exit(void);
int cmkit_irdma_init(void);
void cmkit_irdma_exit(void);
int cmkit_srpt_init(void);
void cmkit_srpt_exit(void);
extern struct cmkit_ctl cmkit_rpcrdma_control;
extern struct cmkit_ctl cmkit_irdma_control;
extern struct cmkit_ctl cmkit_srpt_control;

#endif /* CMKIT_H */
