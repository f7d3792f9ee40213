// SPDX-License-Identifier: GPL-2.0-only
/* kzalloc_obj() allocates one zeroed object of a variable's type (7.x). */
#include <linux/slab.h>

struct probe_obj {
	int x;
};

struct probe_obj *probe(void);
struct probe_obj *probe(void)
{
	struct probe_obj *p = kzalloc_obj(*p, GFP_KERNEL);

	return p;
}
