# SPDX-License-Identifier: GPL-2.0-only
"""The harness's outputs for CI and people: junit.xml's shape, the GitHub
workflow's matrix, the remembered KVM verdict, the cache key, the clang
runtime package."""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import kernel  # noqa: E402
import pkgs  # noqa: E402
import results  # noqa: E402
import run  # noqa: E402


class Junit(unittest.TestCase):
    def test_shape_and_counts(self):
        v = results.Verdict()
        v.leaves = [results.Leaf("cmkit_smoke", ["port_is_active", "rxe0"], "PASS", "", []),
                    results.Leaf("cmkit_smoke", ["port_is_active", "siw0"], "SKIP",
                                 "no RDMA device named siw0", []),
                    results.Leaf("cmkit_srpt", ["login_accepted"], "FAIL", "",
                                 ["# login_accepted: EXPECTATION FAILED at kunit/srpt_test.c:9",
                                  "Expected rc == 0, but"])]
        v.problems = [results.Problem("splat", "kernel splat (WARNING): WARNING: CPU: 0")]
        groups = [("host.gtest", "host.gtest", [("Mpa.Parses", "PASS", "", "", None)])]
        groups += results.junit_groups_for_leg("6.12", v)
        root = ET.fromstring(results.junit_xml(groups))
        self.assertEqual(root.tag, "testsuites")
        names = [ts.get("name") for ts in root.findall("testsuite")]
        self.assertEqual(names, ["host.gtest", "6.12.cmkit_smoke", "6.12.cmkit_srpt",
                                 "6.12.guest"])
        total = {"tests": 0, "failures": 0, "skipped": 0}
        for ts in root.findall("testsuite"):
            cases = ts.findall("testcase")
            self.assertEqual(int(ts.get("tests")), len(cases))
            self.assertEqual(int(ts.get("failures")),
                             sum(1 for c in cases if c.find("failure") is not None))
            self.assertEqual(int(ts.get("skipped")),
                             sum(1 for c in cases if c.find("skipped") is not None))
            for k in total:
                total[k] += int(ts.get(k))
            for c in cases:
                self.assertEqual(c.get("classname"), ts.get("name"))
        for k, n in total.items():
            self.assertEqual(int(root.get(k)), n)
        self.assertEqual(total, {"tests": 5, "failures": 2, "skipped": 1})
        skip = root.find(".//testcase[@name='port_is_active.siw0']/skipped")
        self.assertEqual(skip.get("message"), "no RDMA device named siw0")
        fail = root.find(".//testcase[@name='login_accepted']/failure")
        self.assertIn("Expected rc == 0", fail.text)
        guest = root.find(".//testsuite[@name='6.12.guest']/testcase/failure")
        self.assertIn("WARNING", guest.get("message"))


class FailureRecap(unittest.TestCase):
    """A failed leg says why beside the summary, where a log's tail keeps it."""

    def test_failed_leg_names_its_problems_and_cases(self):
        good, bad = results.Verdict(), results.Verdict()
        bad.add("crash", "kernel crash in cmkit_rpcrdma.grant_of_zero_counts_as_one:\n"
                "BUG: KASAN: slab-use-after-free in foo+0x1/0x2")
        bad.leaves = [results.Leaf("cmkit_rpcrdma", ["grant_of_zero_counts_as_one", "rxe0"],
                                   "FAIL", "crashed", []),
                      results.Leaf("cmkit_smoke", ["port_is_active"], "PASS", "", [])]
        bad.failed = 1
        lines = run.failure_recap([("6.12", good), ("6.12-debug", bad)])
        self.assertEqual(lines[0], "6.12-debug: FAIL: kernel crash in "
                         "cmkit_rpcrdma.grant_of_zero_counts_as_one:")
        self.assertEqual(lines[1], "    BUG: KASAN: slab-use-after-free in foo+0x1/0x2")
        self.assertEqual(lines[2], "6.12-debug: FAIL: "
                         "cmkit_rpcrdma.grant_of_zero_counts_as_one.rxe0: crashed")
        self.assertEqual(len(lines), 3)

    def test_long_lists_are_cut(self):
        v = results.Verdict()
        v.failed = 20
        v.leaves = [results.Leaf("s", [f"c{i}"], "FAIL", "", []) for i in range(20)]
        lines = run.failure_recap([("7.3", v)], limit=8)
        self.assertEqual(len(lines), 9)
        self.assertEqual(lines[-1], "7.3: ... 12 more; see build/results/")

    def test_suites_not_run_after_a_stop_take_one_line_after_the_reason(self):
        v = results.Verdict()
        v.add("crashed-case", "suite cmkit_rpcrdma: the guest stopped in this case "
                              "in case cmkit_rpcrdma.x (3 case(s) had ended)")
        for s in ("cmkit_irdma", "cmkit_srpt", "cmkit_userspace"):
            v.add("not-run", f"suite {s}: no results (not run: the guest stopped "
                             "in cmkit_rpcrdma)")
        lines = run.failure_recap([("6.12-debug", v)], limit=2)
        self.assertEqual(len(lines), 2)
        self.assertIn("the guest stopped in this case", lines[0])
        self.assertEqual(lines[1], "6.12-debug: FAIL: 3 suite(s) not run after the stop: "
                                   "cmkit_irdma cmkit_srpt cmkit_userspace")


class Workflow(unittest.TestCase):
    def test_matrix_is_the_harness_matrix(self):
        path = os.path.join(TOP, ".github", "workflows", "test.yml")
        with open(path) as f:
            text = f.read()
        m = re.search(r"^\s+leg: (\[.*\])\s*$", text, re.M)
        self.assertTrue(m, "no 'leg: [...]' matrix line")
        self.assertEqual(tuple(json.loads(m.group(1))), kernel.MATRIX)
        self.assertIn("scripts/kernel.py cache-key", text)
        self.assertIn("make test KVERS=", text)
        self.assertIn("junit.xml", text)

    def test_cache_key_names_the_cached_build(self):
        for name in kernel.MATRIX:
            key = kernel.cache_key(name)
            lg = kernel.leg(name)
            ver = kernel.read_pins()[lg.pin_key][1]
            self.assertEqual(key, f"{name}-{kernel.safe(ver)}-{kernel.options_hash(lg)}")
            self.assertTrue(kernel.kernel_dir(lg, ver).endswith(key[len(name) + 1:]))


class LiveOutput(unittest.TestCase):
    def test_suites_cases_and_totals_as_they_come(self):
        import contextlib
        import io
        live = run.Live("6.12")
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            live.console("[    5.1]     ok 1 before_any_suite")
            # The console is read first: its lines may come before "begin".
            for line in ["[    5.2]     KTAP version 1", "[    5.2]     # Subtest: cmkit_smoke",
                         "[    5.3]         # Subtest: smoke_port_is_active",
                         "[    5.4]         ok 1 rxe0",
                         "[    5.5]         ok 2 siw0 # SKIP no RDMA device named siw0",
                         "[    5.6]     ok 1 smoke_port_is_active",
                         "[    5.7] cmkit_test: client: established",
                         "[    5.8]     not ok 2 smoke_loopback"]:
                live.console(line)
            live("CMKIT begin cmkit_smoke")
            for line in ["KTAP version 1", "1..1", "    KTAP version 1",
                         "    # Subtest: cmkit_smoke", "    1..3",
                         "        # Subtest: smoke_port_is_active", "        ok 1 rxe0",
                         "        ok 2 siw0 # SKIP no RDMA device named siw0",
                         "    ok 1 smoke_port_is_active", "    not ok 2 smoke_loopback",
                         "    ok 3 not_on_the_console_yet", "not ok 1 cmkit_smoke"]:
                live(line)
            live("CMKIT end cmkit_smoke 0")
            live("CMKIT time cmkit_smoke 21.5")
        out = buf.getvalue()
        self.assertNotIn("before_any_suite", out)
        self.assertEqual(out.count("--- 6.12: cmkit_smoke ---"), 1)
        self.assertLess(out.index("--- 6.12"), out.index("ok 1 rxe0"))
        self.assertIn("      ok 2 siw0 # SKIP", out)
        self.assertIn("cmkit_smoke: 2 passed, 1 failed, 1 skipped", out)
        self.assertNotIn("not_on_the_console_yet", out)
        self.assertIn("cmkit_smoke: 21.5 s in the guest", out)
        self.assertNotIn("established", out)


class Accel(unittest.TestCase):
    def setUp(self):
        self.path = os.path.join(tempfile.mkdtemp(prefix="cmkit-accel-"), "a", "k.json")
        self.probes = 0

    def probe(self, ok=True):
        def p():
            self.probes += 1
            return ok, "probe booted in 1.0 s" if ok else "KVM probe hung"
        return p

    def test_a_verdict_is_probed_once_then_remembered(self):
        self.assertEqual(run.decide_accel({}, True, self.path, self.probe())[0], "kvm")
        accel, how = run.decide_accel({}, True, self.path, self.probe())
        self.assertEqual((accel, self.probes), ("kvm", 1))
        self.assertIn("remembered", how)

    def test_a_failed_probe_is_remembered_as_tcg(self):
        run.decide_accel({}, True, self.path, self.probe(False))
        self.assertEqual(run.decide_accel({}, True, self.path, self.probe())[0], "tcg")
        self.assertEqual(self.probes, 1)

    def test_environment_overrides_and_forces_a_probe(self):
        run.decide_accel({}, True, self.path, self.probe(False))
        self.assertEqual(run.decide_accel({"CMKIT_ACCEL": "kvm"}, True, self.path,
                                          self.probe())[0], "kvm")
        self.assertEqual(self.probes, 1)
        self.assertEqual(run.decide_accel({"CMKIT_ACCEL": "probe"}, True, self.path,
                                          self.probe(True))[0], "kvm")
        self.assertEqual(self.probes, 2)
        self.assertEqual(run.decide_accel({}, True, self.path, self.probe())[0], "kvm")
        self.assertEqual(self.probes, 2)

    def test_no_kvm_device_means_tcg_without_a_probe(self):
        self.assertEqual(run.decide_accel({}, False, self.path, self.probe())[0], "tcg")
        self.assertEqual(self.probes, 0)

    def test_the_key_is_per_machine(self):
        path = run.accel_cache_path()
        self.assertTrue(path.startswith(os.path.join(kernel.cache_dir(), "accel")))
        self.assertEqual(path, run.accel_cache_path())


class ClangRuntime(unittest.TestCase):
    SEARCH = ("libclang-rt-14-dev - Compiler-rt - development package\n"
              "libclang-rt-16-dev - Compiler-rt - development package\n"
              "libclang-rt-19-dev - Compiler-rt - development package\n")

    def test_the_runtime_matches_the_installed_clang(self):
        self.assertEqual(pkgs.clang_major("Debian clang version 14.0.6\nTarget: x86_64"), 14)
        self.assertEqual(pkgs.clang_major("Debian clang version 19.1.7 (3+b1)"), 19)
        self.assertEqual(pkgs.pick_clang_rt(14, self.SEARCH), "libclang-rt-14-dev")
        self.assertEqual(pkgs.pick_clang_rt(19, self.SEARCH), "libclang-rt-19-dev")

    def test_no_runtime_for_another_clang(self):
        self.assertIsNone(pkgs.pick_clang_rt(15, self.SEARCH))
        self.assertIsNone(pkgs.pick_clang_rt(None, self.SEARCH))

    def test_no_release_specific_name_is_pinned(self):
        with open(os.path.join(TOP, "scripts", "packages.txt")) as f:
            names = [l.strip() for l in f if l.strip() and not l.startswith("#")]
        self.assertFalse([n for n in names if re.search(r"-\d+(-dev)?$", n)], names)


class Makefile(unittest.TestCase):
    def test_help_lists_every_target(self):
        out = subprocess.run(["make", "-s", "-C", TOP, "help"], stdout=subprocess.PIPE,
                             text=True, check=True).stdout
        with open(os.path.join(TOP, "Makefile")) as f:
            text = f.read().replace("\\\n", " ")
        phony = re.search(r"^\.PHONY:(.*)$", text, re.M).group(1).split()
        listed = {l.split()[1] for l in out.splitlines() if l.startswith("make ")}
        for t in phony:
            self.assertIn(t, listed | {"all"}, t)


if __name__ == "__main__":
    unittest.main()
