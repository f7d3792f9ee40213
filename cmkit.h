/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit: declarations shared by the module's own files (kernel only; the
 * header layer shared with user space is include/cmkit/).
 */
#ifndef CMKIT_H
#define CMKIT_H

#include <linux/mutex.h>
#include <linux/types.h>

struct dentry;

/* cmkit/ in debugfs: each consumer's control plane lives below it. */
extern struct dentry *cmkit_debugfs;

/**
 * struct cmkit_ctl - a handler's debugfs control plane
 * @name: the handler, for log lines
 * @lock: serialises commands, and commands against unload
 * @closing: the module is unloading: commands are refused
 * @command: runs one command line; returns 0 or a negative errno
 */
struct cmkit_ctl {
	const char *name;
	struct mutex lock;	/* commands, and commands vs. unload */
	bool closing;
	int (*command)(char *line);
};

#define CMKIT_CTL_INIT(var, nm, cmd) {					\
	.name = (nm),							\
	.lock = __MUTEX_INITIALIZER((var).lock),			\
	.command = (cmd),						\
}

ssize_t cmkit_ctl_write(struct cmkit_ctl *ctl, const char __user *ubuf, size_t count);
void cmkit_ctl_close(struct cmkit_ctl *ctl);

int cmkit_rpcrdma_init(void);
void cmkit_rpcrdma_exit(void);
int cmkit_irdma_init(void);
void cmkit_irdma_exit(void);
int cmkit_srpt_init(void);
void cmkit_srpt_exit(void);

#endif /* CMKIT_H */
