# SPDX-License-Identifier: GPL-2.0-only
"""scripts/lint.py: checkpatch's findings judged against
scripts/checkpatch-exceptions.txt (make checkpatch, make test's lint check)."""

import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import lint  # noqa: E402

EXC = {("compat.h", "EXPORT_SYMBOL"): (2, "the shim"),
       ("kunit/main.c", "STATIC_CONST_CHAR_ARRAY"): (1, "argv")}

KEPT = """compat.h:44: WARNING:EXPORT_SYMBOL: EXPORT_SYMBOL(foo); should immediately follow
compat.h:47: WARNING:EXPORT_SYMBOL: EXPORT_SYMBOL(foo); should immediately follow
kunit/main.c:250: WARNING:STATIC_CONST_CHAR_ARRAY: char * array declaration
total: 0 errors, 3 warnings, 0 checks, 120 lines checked
"""


class Checkpatch(unittest.TestCase):
    def test_excepted_findings_pass(self):
        self.assertEqual(lint.judge(KEPT, EXC), ([], []))

    def test_a_new_type_fails(self):
        text = KEPT + "srpt_io.c:12: CHECK:PARENTHESIS_ALIGNMENT: Alignment should match\n"
        bad, stale = lint.judge(text, EXC)
        self.assertEqual(len(bad), 1)
        self.assertIn("srpt_io.c:12", bad[0])
        self.assertEqual(stale, [])

    def test_one_more_of_an_excepted_type_fails(self):
        text = KEPT + "compat.h:50: WARNING:EXPORT_SYMBOL: EXPORT_SYMBOL(foo); x\n"
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


if __name__ == "__main__":
    unittest.main()
