# SPDX-License-Identifier: GPL-2.0-only
"""scripts/kernel.py's patch series: applied in order, switched, taken out,
part of the cache key, never for a stock leg."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "scripts"))
import kernel  # noqa: E402


def make_patch(dirpath, name, path, old, new):
    a = os.path.join(dirpath, "a", path)
    b = os.path.join(dirpath, "b", path)
    for p, text in ((a, old), (b, new)):
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write(text)
    diff = subprocess.run(["diff", "-u", f"a/{path}", f"b/{path}"], cwd=dirpath,
                          stdout=subprocess.PIPE, text=True).stdout
    out = os.path.join(dirpath, name)
    with open(out, "w") as f:
        f.write(f"From: cmkit developers <cmkit@localhost>\nSubject: [PATCH] {name}\n\n---\n")
        f.write(diff)
    shutil.rmtree(os.path.join(dirpath, "a"))
    shutil.rmtree(os.path.join(dirpath, "b"))
    return out


class ApplySeries(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.src = os.path.join(self.tmp, "src")
        os.makedirs(os.path.join(self.src, "drivers"))
        self.file = os.path.join(self.src, "drivers", "x.c")
        with open(self.file, "w") as f:
            f.write("one\ntwo\nthree\n")
        self.pdir = os.path.join(self.tmp, "patches")
        os.makedirs(self.pdir)
        self.p1 = make_patch(self.pdir, "0101-a.patch", "drivers/x.c",
                             "one\ntwo\nthree\n", "one\nTWO\nthree\n")
        self.p2 = make_patch(self.pdir, "0201-b.patch", "drivers/x.c",
                             "one\nTWO\nthree\n", "one\nTWO\nthree\nfour\n")
        self.p3 = make_patch(self.pdir, "0102-c.patch", "drivers/x.c",
                             "one\ntwo\nthree\n", "zero\none\ntwo\nthree\n")
        self.log = os.path.join(self.tmp, "log")
        env = mock.patch.dict(os.environ, {"CMKIT_CACHE": self.tmp})
        env.start()
        self.addCleanup(env.stop)
        self.addCleanup(shutil.rmtree, self.tmp)

    def text(self):
        return open(self.file).read()

    def test_series_in_order_then_switched_then_out(self):
        kernel.apply_series(self.src, [self.p1, self.p2], self.log)
        self.assertEqual(self.text(), "one\nTWO\nthree\nfour\n")
        kernel.apply_series(self.src, [self.p3], self.log)
        self.assertEqual(self.text(), "zero\none\ntwo\nthree\n")
        kernel.apply_series(self.src, [], self.log)
        self.assertEqual(self.text(), "one\ntwo\nthree\n")

    def test_same_series_touches_nothing(self):
        kernel.apply_series(self.src, [self.p1], self.log)
        os.utime(self.file, (1, 1))
        kernel.apply_series(self.src, [self.p1], self.log)
        self.assertEqual(os.stat(self.file).st_mtime, 1)

    def test_a_patch_that_does_not_apply_stops_the_build(self):
        with self.assertRaises(SystemExit):
            kernel.apply_series(self.src, [self.p2], self.log)
        self.assertEqual(self.text(), "one\ntwo\nthree\n")


class Key(unittest.TestCase):
    def test_series_in_the_key_not_for_stock_nor_unpatched(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        os.makedirs(os.path.join(tmp, "6.12"))
        with mock.patch.object(kernel, "PATCH_DIR", tmp):
            lg = kernel.leg("6.12")
            before = kernel.options_hash(lg)
            with open(os.path.join(tmp, "6.12", "0101-x.patch"), "w") as f:
                f.write("x")
            self.assertEqual(kernel.patches(lg), [os.path.join(tmp, "6.12", "0101-x.patch")])
            self.assertNotEqual(kernel.options_hash(lg), before)
            with mock.patch.dict(os.environ, {"CMKIT_NO_PATCHES": "1"}):
                self.assertEqual(kernel.patches(lg), [])
                self.assertEqual(kernel.options_hash(lg), before)
            self.assertEqual(kernel.patches(kernel.leg("stock-6.12")), [])


class CarriedSeries(unittest.TestCase):
    """The patches kept in kernel-patches/: upstream form, one series per
    pinned source, the same fix under the same name in every series."""

    def series(self):
        out = {}
        for name in sorted(os.listdir(kernel.PATCH_DIR)):
            d = os.path.join(kernel.PATCH_DIR, name)
            if os.path.isdir(d) and name != "repro":
                out[name] = sorted(f for f in os.listdir(d) if f.endswith(".patch"))
        return out

    def test_every_series_is_a_pinned_source(self):
        series = self.series()
        self.assertTrue(series)
        for name in series:
            self.assertIn(name, ("6.1", "6.12", "7.3"))

    def test_upstream_form(self):
        for name, files in self.series().items():
            for f in files:
                with self.subTest(series=name, patch=f):
                    with open(os.path.join(kernel.PATCH_DIR, name, f)) as fh:
                        text = fh.read()
                    head = text.split("\n---\n", 1)[0]
                    self.assertRegex(f, r"^\d{4}-[A-Za-z0-9-]+\.patch$")
                    self.assertIn("From: cmkit developers <cmkit@localhost>\n", head)
                    self.assertRegex(head, r"\nSubject: \[PATCH\] RDMA/[a-z]+: ")
                    self.assertIn("\nSigned-off-by: cmkit developers <cmkit@localhost>", head)
                    for tag in re.findall(r"^Fixes: .*$", head, re.M):
                        self.assertRegex(tag, r'^Fixes: [0-9a-f]{12} \("[^"]+"\)$')
                    self.assertIn("\ndiff --git a/", text)

    def test_a_fix_keeps_its_name_across_series(self):
        series = self.series()
        by_number = {}
        for files in series.values():
            for f in files:
                by_number.setdefault(f[:4], set()).add(f)
        for number, names in by_number.items():
            self.assertEqual(len(names), 1, names)

    def test_fixed_by_names_carried_patches(self):
        """A known issue's fixed_by names patches that its series carries,
        and every series it names is a carried one."""
        import results
        series = self.series()
        for ki in results.KNOWN_ISSUES:
            for name, files in ki.fixed_by.items():
                with self.subTest(ki=ki.ident, series=name):
                    self.assertIn(name, series)
                    self.assertTrue(files)
                    for f in files:
                        self.assertIn(f, series[name])

    def test_each_reproduction_prints_its_tries(self):
        for f in sorted(os.listdir(os.path.join(kernel.PATCH_DIR, "repro"))):
            with self.subTest(script=f):
                with open(os.path.join(kernel.PATCH_DIR, "repro", f)) as fh:
                    text = fh.read()
                self.assertRegex(f, r"^ki-\d+\.sh$")
                self.assertIn("SPDX-License-Identifier: GPL-2.0-only", text)
                self.assertIn('echo "ki-repro: try $i"', text)


    def test_a_known_issues_fix_is_carried(self):
        import results
        fixed = [ki for ki in results.KNOWN_ISSUES if ki.fixed_by]
        self.assertTrue(fixed)
        for ki in fixed:
            for series, names in ki.fixed_by.items():
                for name in names:
                    with self.subTest(ki=ki.ident, series=series, patch=name):
                        self.assertTrue(os.path.exists(
                            os.path.join(kernel.PATCH_DIR, series, name)))

if __name__ == "__main__":
    unittest.main()
