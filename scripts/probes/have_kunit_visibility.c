// SPDX-License-Identifier: GPL-2.0-only
/* <kunit/visibility.h>: EXPORT_SYMBOL_IF_KUNIT() and VISIBLE_IF_KUNIT (6.2, backported). */
#include <linux/export.h>
#include <kunit/visibility.h>

VISIBLE_IF_KUNIT int probe_visible(void);
VISIBLE_IF_KUNIT int probe_visible(void)
{
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(probe_visible);
