// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit srpt: the plumbing the CM side and the data path share: the table
 * of fault points and the hooks through which KUnit cases pin races.
 */
#define pr_fmt(fmt) "cmkit: srpt: " fmt

#include <linux/module.h>

#include "core/cmkit.h"
#include "srpt/internal.h"

static const char * const srpt_fault_steps[] = {
	[SRPT_FAULT_CH_ALLOC] = "ch_alloc",
	[SRPT_FAULT_CQ_CREATE] = "cq_create",
	[SRPT_FAULT_QP_CREATE] = "qp_create",
	[SRPT_FAULT_QP_INIT] = "qp_init",
	[SRPT_FAULT_RECV_ALLOC] = "recv_alloc",
	[SRPT_FAULT_RECV_POST] = "recv_post",
	[SRPT_FAULT_QP_RTR] = "qp_rtr",
	[SRPT_FAULT_REP_SEND] = "rep_send",
	[SRPT_FAULT_QP_RTS] = "qp_rts",
	[SRPT_FAULT_DREQ_SEND] = "dreq_send",
	[SRPT_FAULT_DREP_SEND] = "drep_send",
	[SRPT_FAULT_WQ_ALLOC] = "wq_alloc",
	[SRPT_FAULT_CLIENT_REG] = "client_register",
	[SRPT_FAULT_SEND_POST] = "send_post",
	[SRPT_FAULT_RW_POST] = "rw_post",
	[SRPT_FAULT_RECV_REPOST] = "recv_repost",
};

/* The fault points of the accept path and of start, on the kernel's framework. */
struct cmkit_fault cmkit_srpt_fault_points = CMKIT_FAULT_INIT("srpt", srpt_fault_steps);
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_fault_points);

#if IS_ENABLED(CONFIG_KUNIT)
static srpt_hook_fn srpt_test_hook;

/**
 * cmkit_srpt_set_hook - call @fn at each enum cmkit_srpt_hook point
 * @fn: the test's hook, or NULL
 *
 * The caller makes sure no hook call is still running before the function
 * goes away (its case waits until every channel is freed).
 */
void cmkit_srpt_set_hook(srpt_hook_fn fn)
{
	WRITE_ONCE(srpt_test_hook, fn);
}
EXPORT_SYMBOL_IF_KUNIT(cmkit_srpt_set_hook);

/**
 * cmkit_srpt_hook - let a KUnit case pin the order of a race here
 * @hook: the point reached
 * @tag: the login tag of the channel
 * @data: for SRPT_HOOK_RECV the IU, else NULL
 * @len: the length of @data
 */
void cmkit_srpt_hook(enum cmkit_srpt_hook hook, u64 tag, const void *data, u32 len)
{
	srpt_hook_fn fn = READ_ONCE(srpt_test_hook);

	if (fn)
		fn(hook, tag, data, len);
}
#endif
