// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit: the srpt connection-manager consumer.
 */
#include <linux/init.h>

#include "cmkit.h"

/**
 * cmkit_srpt_init - bring up the srpt consumer
 *
 * Return: 0 on success, or a negative errno.
 */
int cmkit_srpt_init(void)
{
	return 0;
}

/**
 * cmkit_srpt_exit - tear down every srpt object still alive
 */
void cmkit_srpt_exit(void)
{
}
