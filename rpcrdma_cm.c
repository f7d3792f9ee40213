// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit: the rpcrdma connection-manager consumer.
 */
#include <linux/init.h>

#include "cmkit.h"

/**
 * cmkit_rpcrdma_init - bring up the rpcrdma consumer
 *
 * Return: 0 on success, or a negative errno.
 */
int cmkit_rpcrdma_init(void)
{
	return 0;
}

/**
 * cmkit_rpcrdma_exit - tear down every rpcrdma object still alive
 */
void cmkit_rpcrdma_exit(void)
{
}
