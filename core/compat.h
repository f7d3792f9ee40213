/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cmkit: the kernel API shapes that differ between the kernels cmkit builds
 * against, settled once from what scripts/probe.sh found (probes.h).  Kbuild
 * includes it into every file, after probes.h.
 */
#ifndef CMKIT_COMPAT_H
#define CMKIT_COMPAT_H

/* k[mz]alloc_obj() (7.x, one series); before them, the k[mz]alloc(sizeof()) they stand for. */
#ifndef CMKIT_HAVE_KZALLOC_OBJ
#define kzalloc_obj(P, GFP) kzalloc(sizeof(P), GFP)
#define kmalloc_obj(P, GFP) kmalloc(sizeof(P), GFP)
#endif

/* kernel_bind() and kernel_connect() take a struct sockaddr_unsized in 7.x. */
#ifdef CMKIT_KERNEL_BIND_SOCKADDR_UNSIZED
#define CMKIT_KSOCKADDR(sin) ((struct sockaddr_unsized *)(sin))
#else
#define CMKIT_KSOCKADDR(sin) ((struct sockaddr *)(sin))
#endif

/*
 * Symbol namespaces: a bare identifier up to 6.12, a string literal from
 * 6.13.  cmkit's consumer API is exported with EXPORT_SYMBOL_NS_GPL(sym,
 * CMKIT_NS) (the kernel's macro, so checkpatch knows it; it stringifies the
 * namespace after expansion where it takes an identifier); what only the
 * KUnit suites need, with EXPORT_SYMBOL_IF_KUNIT() into the kernel's
 * EXPORTED_FOR_KUNIT_TESTING namespace (CMKIT_KUNIT_NS), only in kernels
 * built with KUnit.
 */
#ifdef CMKIT_MODULE_NS_IDENT
#define CMKIT_NS		CMKIT
#define CMKIT_KUNIT_NS		EXPORTED_FOR_KUNIT_TESTING
#else
#define CMKIT_NS		"CMKIT"
#define CMKIT_KUNIT_NS		"EXPORTED_FOR_KUNIT_TESTING"
#endif

#ifdef CMKIT_HAVE_KUNIT_VISIBILITY
#include <kunit/visibility.h>
#elif IS_ENABLED(CONFIG_KUNIT)
#define VISIBLE_IF_KUNIT
#define EXPORT_SYMBOL_IF_KUNIT(sym)	EXPORT_SYMBOL_NS(sym, CMKIT_KUNIT_NS)
#else
#define VISIBLE_IF_KUNIT		static
#define EXPORT_SYMBOL_IF_KUNIT(sym)
#endif

#endif /* CMKIT_COMPAT_H */
