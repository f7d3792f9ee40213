// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit irdma: the plumbing the CM core and its socket side share: the
 * table of fault points.
 */
#define pr_fmt(fmt) "cmkit: irdma: " fmt

#include <linux/module.h>

#include "core/cmkit.h"
#include "irdma/irdma.h"

static const char * const irdma_fault_steps[] = {
	[IRDMA_FAULT_EVENT_WQ] = "event_wq_alloc",
	[IRDMA_FAULT_SOCK_WQ] = "sock_wq_alloc",
	[IRDMA_FAULT_NODE_ALLOC] = "node_alloc",
	[IRDMA_FAULT_EVENT_ALLOC] = "event_alloc",
	[IRDMA_FAULT_LISTENER_ALLOC] = "listener_alloc",
	[IRDMA_FAULT_SOCK_CREATE] = "sock_create",
	[IRDMA_FAULT_BIND] = "bind",
	[IRDMA_FAULT_CONNECT] = "connect",
	[IRDMA_FAULT_LISTEN] = "listen",
	[IRDMA_FAULT_ACCEPT] = "accept",
	[IRDMA_FAULT_MPA_ALLOC] = "mpa_alloc",
	[IRDMA_FAULT_SENDMSG] = "sendmsg",
};

/* The fault points of connect, listen and accept, on the kernel's framework. */
struct cmkit_fault cmkit_irdma_fault_points = CMKIT_FAULT_INIT("irdma", irdma_fault_steps);
EXPORT_SYMBOL_IF_KUNIT(cmkit_irdma_fault_points);
