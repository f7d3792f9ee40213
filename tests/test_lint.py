# SPDX-License-Identifier: GPL-2.0-only
"""scripts/lint.py: checkpatch's findings judged against
scripts/checkpatch-exceptions.txt (make checkpatch, make test's lint check)."""

import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import lint  # noqa: E402

EXC = {("core/compat.h", "EXPORT_SYMBOL"): (2, "the shim"),
       ("kunit/main.c", "STATIC_CONST_CHAR_ARRAY"): (1, "argv")}

KEPT = """core/compat.h:44: WARNING:EXPORT_SYMBOL: EXPORT_SYMBOL(foo); should immediately follow
core/compat.h:47: WARNING:EXPORT_SYMBOL: EXPORT_SYMBOL(foo); should immediately follow
kunit/main.c:250: WARNING:STATIC_CONST_CHAR_ARRAY: char * array declaration
total: 0 errors, 3 warnings, 0 checks, 120 lines checked
"""


class Checkpatch(unittest.TestCase):
    def test_excepted_findings_pass(self):
        self.assertEqual(lint.judge(KEPT, EXC), ([], []))

    def test_a_new_type_fails(self):
        text = KEPT + "srpt/io.c:12: CHECK:PARENTHESIS_ALIGNMENT: Alignment should match\n"
        bad, stale = lint.judge(text, EXC)
        self.assertEqual(len(bad), 1)
        self.assertIn("srpt/io.c:12", bad[0])
        self.assertEqual(stale, [])

    def test_one_more_of_an_excepted_type_fails(self):
        text = KEPT + "core/compat.h:50: WARNING:EXPORT_SYMBOL: EXPORT_SYMBOL(foo); x\n"
        bad, _ = lint.judge(text, EXC)
        self.assertEqual(len(bad), 3)
        self.assertIn("allows 2", bad[0])

    def test_the_same_type_in_another_file_fails(self):
        text = KEPT + "srpt_cm.c:9: WARNING:EXPORT_SYMBOL: EXPORT_SYMBOL(foo); x\n"
        bad, _ = lint.judge(text, EXC)
        self.assertEqual(bad, ["srpt_cm.c:9: WARNING:EXPORT_SYMBOL: EXPORT_SYMBOL(foo); x"])

    def test_an_exception_that_matches_nothing_is_stale(self):
        text = "\n".join(KEPT.splitlines()[:2]) + "\n"
        bad, stale = lint.judge(text, EXC)
        self.assertEqual(bad, [])
        self.assertEqual(len(stale), 1)
        self.assertIn("kunit/main.c STATIC_CONST_CHAR_ARRAY", stale[0])

    def test_the_repo_file_parses_and_every_line_has_a_reason(self):
        exc = lint.read_exceptions()
        self.assertTrue(exc)
        for key, (count, why) in exc.items():
            self.assertGreater(count, 0, key)
            self.assertTrue(why.strip(), key)




class Symbols(unittest.TestCase):
    NM = """0000000000000000 T cmkit_rpcrdma_xprt_create
0000000000000010 T rpcrdma_cm_event_handler
0000000000000020 T srpt_cm_handler
0000000000000030 T irdma_cm_event_handler
0000000000000040 D __tracepoint_cmkit_srpt_recv
0000000000000050 D __this_module
0000000000000060 T init_module
0000000000000070 t rpcrdma_static_helper
                 U ib_alloc_pd
0000000000000080 T __cmkit_rpcrdma_regbuf_dma_map
"""

    def test_cmkit_names_handlers_and_static_pass(self):
        self.assertEqual(lint.judge_symbols(self.NM), [])

    def test_a_kernel_name_fails(self):
        text = self.NM + "0000000000000090 T rpcrdma_ep_create\n"
        self.assertEqual(lint.judge_symbols(text), ["rpcrdma_ep_create"])

    def test_a_tracepoint_named_like_the_kernel_fails(self):
        text = self.NM + "00000000000000a0 D __tracepoint_srpt_recv\n"
        self.assertEqual(lint.judge_symbols(text), ["__tracepoint_srpt_recv"])

if __name__ == "__main__":
    unittest.main()
