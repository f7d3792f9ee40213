// SPDX-License-Identifier: GPL-2.0-only
/*
 * Symbol namespaces are bare identifiers (up to 6.12): MODULE_IMPORT_NS(FOO).
 * From 6.13 they are string literals, MODULE_IMPORT_NS("FOO"), and a bare
 * identifier no longer compiles.
 */
#include <linux/module.h>

MODULE_IMPORT_NS(CMKIT_PROBE_NS);
