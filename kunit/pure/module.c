// SPDX-License-Identifier: GPL-2.0-only
/*
 * cmkit's device-free KUnit suites: the wire formats, negotiation and
 * credit rules of include/cmkit/, run by the kernel tree's own kunit.py
 * (scripts/kunitpy.py builds them into a copy of the tree).
 */
#include <linux/module.h>

MODULE_DESCRIPTION("cmkit: KUnit suites of the shared header layer");
MODULE_LICENSE("GPL");
