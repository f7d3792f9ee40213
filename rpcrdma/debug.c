// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit rpcrdma: the plumbing the endpoint and its transport share: the
 * counters teardown and tests wait on, and the table of fault points.
 */
#define pr_fmt(fmt) "cmkit: rpcrdma: " fmt

#include <linux/module.h>

#include "core/cmkit.h"
#include "rpcrdma/rpcrdma.h"

struct cmkit_rpcrdma_stats cmkit_rpcrdma_stats;
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_stats);

const char * const cmkit_rpcrdma_fault_steps[RPCRDMA_FAULT_NR] = {
	[RPCRDMA_FAULT_EP_ALLOC] = "ep_alloc",
	[RPCRDMA_FAULT_ID_CREATE] = "id_create",
	[RPCRDMA_FAULT_RESOLVE_ADDR] = "resolve_addr",
	[RPCRDMA_FAULT_RESOLVE_ROUTE] = "resolve_route",
	[RPCRDMA_FAULT_PD_ALLOC] = "pd_alloc",
	[RPCRDMA_FAULT_CQ_ALLOC] = "cq_alloc",
	[RPCRDMA_FAULT_QP_CREATE] = "qp_create",
	[RPCRDMA_FAULT_RECV_ALLOC] = "recv_alloc",
	[RPCRDMA_FAULT_RECV_MAP] = "recv_map",
	[RPCRDMA_FAULT_POST_RECV] = "post_recv",
	[RPCRDMA_FAULT_CONNECT] = "connect",
	[RPCRDMA_FAULT_BUFFER_CREATE] = "buffer_create",
	[RPCRDMA_FAULT_REGBUF_MAP] = "regbuf_map",
	[RPCRDMA_FAULT_SENDCTX] = "sendctx",
	[RPCRDMA_FAULT_POST_SEND] = "post_send",
	[RPCRDMA_FAULT_MR_ALLOC] = "mr_alloc",
	[RPCRDMA_FAULT_MR_MAP] = "mr_map",
	[RPCRDMA_FAULT_MR_REG] = "mr_reg",
	[RPCRDMA_FAULT_MR_INV] = "mr_inv",
};
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_fault_steps);

/* The fault points of a connect and a call, on the kernel's framework. */
struct cmkit_fault cmkit_rpcrdma_fault_points =
	CMKIT_FAULT_INIT("rpcrdma", cmkit_rpcrdma_fault_steps);
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_fault_points);

/**
 * cmkit_rpcrdma_count_end - count an object's end, and wake whoever waits for it
 * @counter: the counter of ends in cmkit_rpcrdma_stats
 *
 * Teardown waits (the module's exit, tests) sleep on &cmkit_rpcrdma_stats.
 */
void cmkit_rpcrdma_count_end(atomic_t *counter)
{
	atomic_inc(counter);
	wake_up_var(&cmkit_rpcrdma_stats);
}

/**
 * cmkit_rpcrdma_module_refs - the module's reference count, for tests
 *
 * Return: module_refcount() of cmkit.
 */
unsigned int cmkit_rpcrdma_module_refs(void)
{
	return module_refcount(THIS_MODULE);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_rpcrdma_module_refs);
