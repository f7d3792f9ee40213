// SPDX-License-Identifier: GPL-2.0-only
/* __kunit_test_suites_init() takes a third "run_tests" argument (7.x). */
#include <kunit/test.h>

int probe(struct kunit_suite * const * const suites, int n);
int probe(struct kunit_suite * const * const suites, int n)
{
	return __kunit_test_suites_init(suites, n, true);
}
