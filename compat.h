/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit: the kernel API shapes that differ between the kernels cmkit builds
 * against, settled once from what scripts/probe.sh found (probes.h).  Kbuild
 * includes it into every file, after probes.h.
 */
#ifndef CMKIT_COMPAT_H
#define CMKIT_COMPAT_H

/* kzalloc_obj() (7.x); before it, the kzalloc(sizeof()) it stands for. */
#ifndef CMKIT_HAVE_KZALLOC_OBJ
#define kzalloc_obj(P, GFP) kzalloc(sizeof(P), GFP)
#endif

/* kernel_bind() and kernel_connect() take a struct sockaddr_unsized in 7.x. */
#ifdef CMKIT_KERNEL_BIND_SOCKADDR_UNSIZED
#define CMKIT_SA(sin) ((struct sockaddr_unsized *)(sin))
#else
#define CMKIT_SA(sin) ((struct sockaddr *)(sin))
#endif

#endif /* CMKIT_COMPAT_H */
