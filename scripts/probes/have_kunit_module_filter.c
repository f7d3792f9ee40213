// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit filters a module's suites at load (kunit_filter_glob(), 6.6): its
 * module notifier runs them at MODULE_STATE_LIVE, after the module's init
 * and parameters, through kunit_filter_suites() with kunit.filter_glob,
 * writable at run time (/sys/module/kunit/parameters/filter_glob, 0600).
 * Before (6.1) it ran every suite of a module at MODULE_STATE_COMING,
 * before the module's parameters were parsed, unfiltered.
 */
#include <kunit/test.h>

const char *probe(void);
const char *probe(void)
{
	return kunit_filter_glob();
}
