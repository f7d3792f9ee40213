// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit: the irdma connection-manager consumer.
 */
#include <linux/init.h>

#include "cmkit.h"

/**
 * cmkit_irdma_init - bring up the irdma consumer
 *
 * Return: 0 on success, or a negative errno.
 */
int cmkit_irdma_init(void)
{
	return 0;
}

/**
 * cmkit_irdma_exit - tear down every irdma object still alive
 */
void cmkit_irdma_exit(void)
{
}
