/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit: declarations shared by the module's own files (kernel only; the
 * header layer shared with user space is include/cmkit/).
 */
#ifndef CMKIT_H
#define CMKIT_H

struct dentry;

/* cmkit/ in debugfs: each consumer's control plane lives below it. */
extern struct dentry *cmkit_debugfs;

int cmkit_rpcrdma_init(void);
void cmkit_rpcrdma_exit(void);
int cmkit_irdma_init(void);
void cmkit_irdma_exit(void);
int cmkit_srpt_init(void);
void cmkit_srpt_exit(void);

#endif /* CMKIT_H */
