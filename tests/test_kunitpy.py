# SPDX-License-Identifier: GPL-2.0-only
"""scripts/kunitpy.py: kunit.py's results turned into make test's cases (a
pass, a failure, a crash, no output at all), and the overlay tree's rules
(the cached source tree is never written through a hard link)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.path.insert(0, os.path.join(TOP, "tests"))
import kunitpy  # noqa: E402
from test_harness import find_kunit_py  # noqa: E402


def read(path):
    with open(path) as f:
        return f.read()


def group(name, cases=(), subs=()):
    return {"name": name, "test_cases": [{"name": n, "status": s} for n, s in cases],
            "sub_groups": list(subs), "arch": "um"}


def run_json(crc32c_status="PASS", extra=()):
    """kunit.py --json's shape: suites as sub_groups, a parameterised case
    as a sub_group of its suite with its parameters as test_cases."""
    suites = [
        group("cmkit_pure_crc32c", subs=[group("crc32c_known_vector",
                                               [("rfc3720 32 zero bytes", crc32c_status),
                                                ("check value 123456789", "PASS")])]),
        group("cmkit_pure_mpa", [("mpa_fallback_rules", "PASS")]),
        group("cmkit_pure_srp", [("srp_tsk_mgmt_codes", "PASS")]),
        group("cmkit_pure_rpcrdma", [("rpcrdma_peek_grant", "SKIP")]),
    ] + list(extra)
    return json.dumps(group("KUnit Test Group", subs=suites))


class Results(unittest.TestCase):
    def test_a_pass_gives_one_case_per_leaf(self):
        cases = kunitpy.results(run_json(), 0, "")
        names = [c[0] for c in cases]
        self.assertIn("cmkit_pure_crc32c.crc32c_known_vector.rfc3720 32 zero bytes", names)
        self.assertIn("cmkit_pure_mpa.mpa_fallback_rules", names)
        self.assertEqual(len(cases), 5)
        self.assertEqual(sorted(c[1] for c in cases), ["PASS"] * 4 + ["SKIP"])

    def test_a_failed_parameter_fails(self):
        cases = kunitpy.results(run_json("FAIL"), 1, "")
        bad = [c for c in cases if c[1] == "FAIL"]
        self.assertEqual([c[0] for c in bad],
                         ["cmkit_pure_crc32c.crc32c_known_vector.rfc3720 32 zero bytes"])

    def test_a_crashed_case_fails(self):
        cases = kunitpy.results(run_json("ERROR"), 1, "")
        self.assertEqual(sum(c[1] == "FAIL" for c in cases), 1)

    def test_no_output_fails(self):
        for text in ("", None, "not json"):
            cases = kunitpy.results(text, 1, "ERROR:root:Could not build the kernel\n")
            self.assertEqual([c[1] for c in cases], ["FAIL"])
            self.assertIn("Could not build", cases[0][2])

    def test_no_output_fails_even_with_exit_0(self):
        self.assertEqual([c[1] for c in kunitpy.results("", 0, "")], ["FAIL"])

    def test_a_missing_suite_fails(self):
        data = json.loads(run_json())
        data["sub_groups"] = data["sub_groups"][:3]
        cases = kunitpy.results(json.dumps(data), 1, "")
        self.assertIn(("cmkit_pure_rpcrdma", "FAIL"), [(c[0], c[1]) for c in cases])

    def test_a_failed_run_without_a_failed_case_fails(self):
        cases = kunitpy.results(run_json(), 1, "[ERROR] kernel panic\n")
        self.assertEqual([c[0] for c in cases if c[1] == "FAIL"], ["kunit.py run"])

    def test_real_kunit_parse_of_a_crash(self):
        """kunit.py's own parser on KTAP that stops mid-suite: not a pass."""
        kunit_py = find_kunit_py()
        ktap = ("KTAP version 1\n1..4\n    KTAP version 1\n    # Subtest: cmkit_pure_crc32c\n"
                "    1..3\n    ok 1 crc32c_a\n    not ok 2 crc32c_b\n"
                "[  1.0] BUG: kernel NULL pointer dereference\n")
        tmp = tempfile.mkdtemp(prefix="cmkit-kunitpy-")
        try:
            out = os.path.join(tmp, "r.json")
            r = subprocess.run([sys.executable, kunit_py, "parse", f"--json={out}"],
                               input=ktap, text=True, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, cwd=os.path.dirname(kunit_py))
            text = read(out) if os.path.exists(out) else ""
            cases = kunitpy.results(text, r.returncode, r.stdout)
        finally:
            shutil.rmtree(tmp)
        st = dict((c[0], c[1]) for c in cases)
        self.assertEqual(st.get("cmkit_pure_crc32c.crc32c_a"), "PASS")
        self.assertEqual(st.get("cmkit_pure_crc32c.crc32c_b"), "FAIL")
        self.assertEqual(st.get("cmkit_pure_mpa"), "FAIL")


class Overlay(unittest.TestCase):
    def test_put_never_writes_through_a_hard_link(self):
        tmp = tempfile.mkdtemp(prefix="cmkit-kunitpy-")
        try:
            cache, copy = os.path.join(tmp, "cache"), os.path.join(tmp, "copy")
            with open(cache, "w") as f:
                f.write("orig\n")
            os.link(cache, copy)
            self.assertTrue(kunitpy.put(copy, "new\n"))
            self.assertEqual(read(cache), "orig\n")
            self.assertEqual(read(copy), "new\n")
            self.assertFalse(kunitpy.put(copy, "new\n"))    # same text: untouched
        finally:
            shutil.rmtree(tmp)

    def test_hooks(self):
        kc = 'menu "Device Drivers"\nsource "drivers/dpll/Kconfig"\n\nendmenu\n'
        out = kunitpy.hook_kconfig(kc)
        self.assertTrue(out.endswith('source "drivers/cmkit_pure/Kconfig"\n\nendmenu\n'))
        self.assertEqual(kunitpy.hook_kconfig(out), out)
        mk = kunitpy.hook_makefile("obj-y += base/\n")
        self.assertTrue(mk.endswith("obj-$(CONFIG_CMKIT_PURE_KUNIT_TEST) += cmkit_pure/\n"))
        self.assertEqual(kunitpy.hook_makefile(mk), mk)

    def test_suite_makefile_takes_lib_sources(self):
        mk = kunitpy.suite_makefile([("mpa.c", "/x/kunit/pure/mpa.c"),
                                     ("lib_mpa.c", "/x/lib/mpa.c")])
        self.assertIn("cmkit_pure_test-y := mpa.o lib_mpa.o\n", mk)
        self.assertIn(f"-I{os.path.join(TOP, 'include')}", mk)


if __name__ == "__main__":
    unittest.main()
