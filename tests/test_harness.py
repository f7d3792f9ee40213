# SPDX-License-Identifier: GPL-2.0-only
"""Tests of the harness itself: a failing test, a splat, a crash or a hang in
the guest must each fail the run (scripts/results.py), with kunit.py parsing
canned KTAP exactly as it parses a real guest's."""

import glob
import os
import sys
import tempfile
import time
import unittest
from unittest import mock

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import kernel  # noqa: E402
import results  # noqa: E402
import run  # noqa: E402

# A suite's debugfs results as 6.12 and 7.3 print them (with a document header).
PASSING_SUITE = """KTAP version 1
1..1
    KTAP version 1
    # Subtest: cmkit_smoke
    1..1
        KTAP version 1
        # Subtest: smoke_port_is_active
        ok 1 rxe0
        ok 2 siw0 # SKIP no RDMA device named siw0
    # smoke_port_is_active: pass:1 fail:0 skip:1 total:2
    ok 1 smoke_port_is_active
ok 1 cmkit_smoke
"""

# The same suite with one failing case, as 6.1 prints it (no document header).
FAILING_SUITE = """    KTAP version 1
    # Subtest: cmkit_other
    1..2
    # first_case: EXPECTATION FAILED at kunit/other_test.c:42
    Expected rc == 0, but
        rc == -110 (0xffffffffffffff92)
    not ok 1 first_case
    ok 2 second_case
not ok 1 cmkit_other
"""

CLEAN_CONSOLE = "[    0.000000] Linux version 6.12.118\n[    3.1] cmkit: loaded\n"
SPLAT_CONSOLE = CLEAN_CONSOLE + (
    "[    9.2] ------------[ cut here ]------------\n"
    "[    9.2] WARNING: CPU: 1 PID: 77 at kunit/smoke_test.c:31 smoke+0x1/0x2 [cmkit_test]\n"
    "[    9.3] ---[ end trace 0000000000000000 ]---\n")


def status_log(blocks, announce=None, done=True):
    names = announce if announce is not None else [n for n, _ in blocks]
    out = ["CMKIT init 2.91", "CMKIT suites " + " ".join(names)]
    for name, block in blocks:
        out.append(f"CMKIT begin {name}")
        out.append(block.rstrip("\n"))
        out.append(f"CMKIT end {name} 0")
    if done:
        out.append("CMKIT done")
    return "\n".join(out) + "\n"


def find_kunit_py():
    """An unpacked tree's kunit.py, else the vendored one: never None, so the
    verdict tests run on a machine without kernel sources."""
    for src in sorted(glob.glob(os.path.join(kernel.cache_dir(), "src", "*"))):
        path = os.path.join(src, "tools", "testing", "kunit", "kunit.py")
        if os.path.exists(path):
            return path
    return results.VENDOR_KUNIT_PY


class Verdicts(unittest.TestCase):
    def setUp(self):
        self.kunit_py = find_kunit_py()
        self.tmp = tempfile.mkdtemp(prefix="cmkit-harness-")

    def verdict(self, status, console=CLEAN_CONSOLE, hung=False, powered_off=True, **kw):
        return results.analyse(status, console, self.kunit_py, self.tmp, hung, powered_off,
                                **kw)

    def test_passing_run_passes_and_counts_params(self):
        v = self.verdict(status_log([("cmkit_smoke", PASSING_SUITE)]))
        self.assertEqual(v.problems, [])
        self.assertTrue(v.ok)
        self.assertEqual((v.passed, v.failed, v.skipped), (1, 0, 1))

    def test_failing_test_fails_the_run(self):
        v = self.verdict(status_log([("cmkit_smoke", PASSING_SUITE),
                                     ("cmkit_other", FAILING_SUITE)]))
        self.assertFalse(v.ok)
        self.assertEqual((v.passed, v.failed, v.skipped), (2, 1, 1))

    def test_warn_on_console_fails_a_passing_run(self):
        v = self.verdict(status_log([("cmkit_smoke", PASSING_SUITE)]), SPLAT_CONSOLE)
        self.assertFalse(v.ok)
        self.assertEqual(v.failed, 0)
        self.assertTrue(any("WARNING" in p for p in v.problems), v.problems)

    def test_suite_without_results_fails_as_missing(self):
        status = status_log([("cmkit_smoke", PASSING_SUITE)],
                            announce=["cmkit_smoke", "cmkit_crashed"], done=False)
        v = self.verdict(status, hung=True)
        self.assertFalse(v.ok)
        self.assertGreaterEqual(v.failed, 1)
        self.assertTrue(any("cmkit_crashed" in p for p in v.problems), v.problems)
        self.assertTrue(any("hung" in p for p in v.problems), v.problems)

    def test_guest_that_does_not_power_off_fails(self):
        v = self.verdict(status_log([("cmkit_smoke", PASSING_SUITE)]), powered_off=False)
        self.assertFalse(v.ok)

    def test_lossy_debugfs_still_counts_every_parameter(self):
        status = status_log([("cmkit_smoke", LOSSY_SUITE)]).replace(
            "CMKIT end cmkit_smoke 0",
            "CMKIT end cmkit_smoke 0\nCMKIT klog cmkit_smoke\n" + KLOG.rstrip("\n") +
            "\nCMKIT klog-end cmkit_smoke")
        v = self.verdict(status)
        self.assertFalse(v.ok)
        self.assertEqual((v.passed, v.failed, v.skipped), (1, 1, 0))

    def test_load_error_fails(self):
        status = status_log([("cmkit_smoke", PASSING_SUITE)]).replace(
            "CMKIT done", "CMKIT error rmmod cmkit\nCMKIT done")
        v = self.verdict(status)
        self.assertFalse(v.ok)
        self.assertIn("guest: rmmod cmkit", v.problems)


class VendoredVerdicts(Verdicts):
    """The same verdict tests with the vendored parser, as a machine without
    an unpacked kernel tree runs them (make check on a fresh clone)."""

    def setUp(self):
        super().setUp()
        self.kunit_py = results.VENDOR_KUNIT_PY

    def test_without_a_tree_the_vendored_parser_is_used(self):
        with mock.patch.dict(os.environ, {"CMKIT_CACHE": self.tmp}):
            self.assertEqual(find_kunit_py(), results.VENDOR_KUNIT_PY)
        self.assertEqual(results.kunit_py_for(None), results.VENDOR_KUNIT_PY)
        self.assertEqual(results.kunit_py_for(self.tmp), results.VENDOR_KUNIT_PY)

    def test_the_vendored_parse_exits_as_kunit_py_does(self):
        for ktap, rc in ((PASSING_SUITE, 0), (FAILING_SUITE, 1)):
            path = os.path.join(self.tmp, "k.ktap")
            with open(path, "w") as f:
                f.write(ktap)
            got, text = results.kunit_parse(results.VENDOR_KUNIT_PY, path,
                                            os.path.join(self.tmp, "k.json"))
            self.assertEqual(got, rc, text)
            self.assertIn("Test results stored in", text)

    def test_the_vendored_files_are_the_pinned_trees(self):
        src = glob.glob(os.path.join(kernel.cache_dir(), "src",
                                     "linux-source-6.12_6.12.118-1_deb12u1"))
        if not src:
            return   # nothing to compare with; the copy is what it was
        for name in ("kunit_parser.py", "kunit_json.py", "kunit_printer.py"):
            with open(os.path.join(src[0], "tools", "testing", "kunit", name)) as f:
                theirs = f.read()
            with open(os.path.join(os.path.dirname(results.VENDOR_KUNIT_PY), name)) as f:
                self.assertEqual(f.read(), theirs, name)


class Splats(unittest.TestCase):
    def test_each_kind_is_caught(self):
        lines = [
            "BUG: KASAN: slab-use-after-free in foo+0x1/0x2",
            "BUG: sleeping function called from invalid context at mm/slab.c:1",
            "refcount_t: underflow; use-after-free.",
            "general protection fault, probably for non-canonical address",
            "WARNING: possible circular locking dependency detected",
            "WARNING: CPU: 0 PID: 1 at drivers/infiniband/core/cma.c:1 x",
            "Kernel panic - not syncing: Fatal exception",
        ]
        for line in lines:
            self.assertTrue(results.scan_splats(f"[    1.0] {line}\n"), line)

    def test_known_issue_is_recognised_only_on_its_package_version(self):
        oops = ("[   10.98] BUG: kernel NULL pointer dereference, address: 0000000000000060\n"
                "[   10.99] Call Trace:\n[   10.99]  mutex_lock_nested+0x1a/0x1c\n"
                "[   10.99]  free_gid_work+0x38/0x4e\n")
        ki = results.known_issue("linux-source-7.3", "7.3.4-1~bpo13+1", oops)
        self.assertEqual(ki.ident, "KI-1")
        self.assertIsNone(results.known_issue("linux-source-7.3", "7.3.5-1", oops))
        self.assertIsNone(results.known_issue("linux-source-6.12", "6.12.119-1~deb12u1", oops))
        self.assertIsNone(results.known_issue("linux-source-7.3", "7.3.4-1~bpo13+1",
                                              SPLAT_CONSOLE))

    V612 = ("linux-source-6.12", "6.12.118-1~deb12u1")

    def test_a_crash_in_cmkit_is_never_excused_by_a_known_signature(self):
        # KI-1's signature (free_gid_work in the stack) inside a KASAN report
        # whose bug is in cmkit's own code.
        kasan = ("[   20.1] BUG: KASAN: slab-use-after-free in srpt_cm_req_recv+0x55/0x9a0 [cmkit]\n"
                 "[   20.1] Read of size 8 at addr ffff888012345678 by task kworker/0:1/30\n"
                 "[   20.1] Call Trace:\n"
                 "[   20.1]  srpt_cm_req_recv+0x55/0x9a0 [cmkit]\n"
                 "[   20.1] Freed by task 12:\n"
                 "[   20.1]  kfree+0x8a/0x1a0\n"
                 "[   20.1]  free_gid_work+0x38/0x4e\n"
                 "[   20.2] ==================================================================\n")
        self.assertIsNone(results.known_issue(*self.V612, kasan))
        # The same report without cmkit frames is KI-1.
        self.assertEqual(results.known_issue(*self.V612, kasan.replace(" [cmkit]", "")).ident,
                         "KI-1")

    def test_a_lock_inversion_on_cmkits_lock_is_not_ki2(self):
        report = ("[   30.0] WARNING: possible irq lock inversion dependency detected\n"
                  "[   30.0] kworker/u4:2/55 just changed the state of lock:\n"
                  "[   30.0] ffff8880 (&listener->sock_lock){+.-.}-{2:2}, at: "
                  "cmkit_irdma_listen_ready+0x20/0x90 [cmkit]\n"
                  "[   30.0] but this lock took another, SOFTIRQ-unsafe lock in the past:\n"
                  "[   30.0]  (clock-AF_INET){++.-}-{2:2}\n"
                  "[   30.0]  siw_qp_llp_data_ready+0x30/0x120 [siw]\n")
        self.assertIsNone(results.known_issue(*self.V612, report))
        self.assertEqual(results.known_issue(
            *self.V612, report.replace(" [cmkit]", " [tcp]")).ident, "KI-2")

    def test_only_the_first_splats_own_block_is_searched(self):
        ki1 = ("[   10.98] BUG: kernel NULL pointer dereference, address: 0000000000000060\n"
               "[   10.99] Call Trace:\n[   10.99]  free_gid_work+0x38/0x4e\n")
        cmkit_warn = ("[    9.00] WARNING: CPU: 0 PID: 1 at irdma_cm.c:10 x+0x1/0x2\n"
                      "[    9.01] Call Trace:\n[    9.01]  foo+0x1/0x2\n"
                      "[    9.02] ---[ end trace 0000000000000000 ]---\n")
        # A second splat's signature does not excuse the first.
        self.assertIsNone(results.known_issue(*self.V612, cmkit_warn + ki1))
        # Nor do lines after the first splat's end that merely look alike.
        self.assertIsNone(results.known_issue(
            *self.V612, cmkit_warn + "[   10.99]  free_gid_work+0x38/0x4e\n"))
        self.assertEqual(results.known_issue(*self.V612, ki1 + cmkit_warn).ident, "KI-1")

    def test_ordinary_lines_are_not_splats(self):
        text = ("[ 1.0] cmkit_test: client: established (status 0)\n"
                "[ 1.1] rdma_rxe: loaded\n[ 1.2] # Subtest: cmkit_smoke\n")
        self.assertEqual(results.scan_splats(text), [])


# 6.1's debugfs copy of a parameterised case: only the last parameter's line.
LOSSY_SUITE = """KTAP version 1
1..1
    KTAP version 1
    # Subtest: cmkit_smoke
    1..1
        ok 2 siw0
    # smoke_port_is_active: pass:1 fail:1 skip:0 total:2
    not ok 1 smoke_port_is_active
not ok 1 cmkit_smoke
"""
KLOG = """[    5.1] rdma_rxe: loaded
[    5.2]     KTAP version 1
[    5.2]     # Subtest: cmkit_smoke
[    5.2]     1..1
[    5.3]         KTAP version 1
[    5.3]         # Subtest: smoke_port_is_active
[    5.4]     # smoke_port_is_active: EXPECTATION FAILED at kunit/smoke_test.c:22
[    5.4]         not ok 1 rxe0
[    5.5] cmkit_test: client: established (status 0)
[    5.6]         ok 2 siw0
[    5.6]     # smoke_port_is_active: pass:1 fail:1 skip:0 total:2
[    5.6]     not ok 1 smoke_port_is_active
[    5.6] # cmkit_smoke: pass:0 fail:1 skip:0 total:1
[    5.7] not ok 1 cmkit_smoke
[    5.8] something after
"""


class Ktap(unittest.TestCase):
    def test_param_skip_without_directive_is_found_from_the_case_totals(self):
        ktap = ("        # Subtest: case_a\n        ok 1 rxe0\n        ok 2 siw0\n"
                "    # case_a: pass:1 fail:0 skip:1 total:2\n    ok 1 case_a\n"
                "        # Subtest: case_b\n"
                "        ok 1 rxe0\n        ok 2 siw0 # SKIP no RDMA device named siw0\n"
                "    # case_b: pass:1 fail:0 skip:1 total:2\n    ok 2 case_b\n")
        self.assertEqual(results.lost_param_skips(ktap), 1)
        self.assertEqual(results.lost_param_skips(PASSING_SUITE), 0)

    def test_lossy_debugfs_falls_back_to_the_kernel_log(self):
        self.assertTrue(results.lossy(LOSSY_SUITE))
        self.assertFalse(results.lossy(PASSING_SUITE))
        status = status_log([("cmkit_smoke", LOSSY_SUITE)]).replace(
            "CMKIT end cmkit_smoke 0",
            "CMKIT end cmkit_smoke 0\nCMKIT klog cmkit_smoke\n" + KLOG.rstrip("\n") +
            "\nCMKIT klog-end cmkit_smoke")
        ktap = results.assemble_ktap(results.GuestReport(status))
        self.assertIn("        not ok 1 rxe0", ktap)
        self.assertIn("        ok 2 siw0", ktap)
        self.assertNotIn("something after", ktap)

    def test_suites_are_renumbered_under_one_plan(self):
        report = results.GuestReport(status_log([("a", PASSING_SUITE),
                                                 ("b", FAILING_SUITE)]))
        ktap = results.assemble_ktap(report).splitlines()
        self.assertEqual(ktap[:2], ["KTAP version 1", "1..2"])
        self.assertIn("ok 1 cmkit_smoke", ktap)
        self.assertIn("not ok 2 cmkit_other", ktap)
        self.assertEqual(sum(1 for l in ktap if l.startswith("KTAP")), 1)


class Timeline(unittest.TestCase):
    def test_lines_sharing_a_timestamp_keep_their_order(self):
        class Report:
            suites = ["cmkit_irdma"]
            klogs = {"cmkit_irdma": "[    4.108218] cmkit: irdma: x: DISCONNECT (status 0)\n"
                                    "[    4.108218] cmkit: irdma: x: CLOSE (status 0)\n"
                                    "[    4.100000] cmkit_test: earlier\n"
                                    "[    4.200000] not cmkit\n"}
            traces = ["  kworker/0:1-12  [000] .....   4.108218: cmkit_irdma_send_cm_event: CLOSE"]
        rows = [line.split(None, 1)[1] for line in run.timeline(Report())]
        self.assertEqual(rows, ["cmkit_test: earlier",
                                "cmkit: irdma: x: DISCONNECT (status 0)",
                                "cmkit: irdma: x: CLOSE (status 0)",
                                "trace cmkit_irdma_send_cm_event: CLOSE"])


# A KI-1 oops the guest survived (no cmkit frame), after a passing suite.
KI1_OOPS = CLEAN_CONSOLE + (
    "[   10.98] BUG: kernel NULL pointer dereference, address: 0000000000000060\n"
    "[   10.99] Call Trace:\n[   10.99]  mutex_lock_nested+0x1a/0x1c\n"
    "[   10.99]  free_gid_work+0x38/0x4e\n"
    "[   11.00] ---[ end trace 0000000000000000 ]---\n")
V612 = {"package": "linux-source-6.12", "version": "6.12.118-1~deb12u1"}
PIN612 = (V612["package"], V612["version"])


def judged(console, patched=False, status=None):
    """results.judge on a passing cmkit_smoke run and @console (no kunit.py)."""
    report = results.GuestReport(status or status_log([("cmkit_smoke", PASSING_SUITE)]))
    return results.judge(report, console, 0, (1, 0, 1), False, True, patched=patched, **V612)


class KnownIssueRules(unittest.TestCase):
    """Which legs a known issue excuses, and what a rerun reports."""

    def test_a_known_issue_excuses_a_stock_or_unpatched_run(self):
        v = judged(KI1_OOPS)
        self.assertFalse(v.ok)
        self.assertEqual(v.known_issue.ident, "KI-1")

    def test_on_a_patched_leg_a_known_issue_is_a_failure_like_any_other(self):
        v = judged(KI1_OOPS, patched=True)
        self.assertFalse(v.ok)
        self.assertIsNone(v.known_issue)
        self.assertTrue(any("KI-1" in n and "fix" in n for n in v.notes), v.notes)
        self.assertFalse(results.may_rerun({"patches": ["kernel-patches/x.patch"]}, v))

    def test_only_stock_legs_rerun(self):
        v = judged(KI1_OOPS)
        self.assertTrue(results.may_rerun({"stock": True}, v))
        # A KUnit leg without patches (CMKIT_NO_PATCHES=1) keeps its verdict too.
        self.assertFalse(results.may_rerun({"patches": []}, v))
        self.assertFalse(results.may_rerun({"stock": True}, judged(CLEAN_CONSOLE)))
        self.assertFalse(results.may_rerun({"stock": True}, judged(SPLAT_CONSOLE)))

    def test_a_rerun_that_passes_is_flaky_in_the_summary_and_junit(self):
        ki = judged(KI1_OOPS).known_issue
        v = results.settle_rerun(ki, judged(CLEAN_CONSOLE))
        self.assertTrue(v.ok)
        self.assertEqual(v.xfail, "KI-1")
        info = {"kver": "stock-6.12", "leg": "stock-6.12", "stock": True,
                "release": "6.12.0", **V612}
        self.assertIn("flaky: KI-1", run.summary_line(info, v, "tcg"))
        xml = results.junit_xml(results.junit_groups_for_leg("stock-6.12", v))
        self.assertIn("flaky: KI-1", xml)
        tmp = tempfile.mkdtemp(prefix="cmkit-harness-")
        old, run.RESULTS = run.RESULTS, tmp
        try:
            self.assertIn("flaky: KI-1", run.write_summary(["x"], [1, 0, 0], [v.xfail]))
        finally:
            run.RESULTS = old

    def test_a_rerun_that_fails_stands_and_is_not_flaky(self):
        ki = judged(KI1_OOPS).known_issue
        v = results.settle_rerun(ki, judged(KI1_OOPS))
        self.assertFalse(v.ok)
        self.assertIsNone(v.xfail)
        self.assertTrue(any("KI-1" in n for n in v.notes), v.notes)
        info = {"kver": "stock-6.12", "leg": "stock-6.12", "stock": True,
                "release": "6.12.0", **V612}
        self.assertNotIn("flaky", run.summary_line(info, v, "tcg"))
        self.assertNotIn("flaky", results.junit_xml(results.junit_groups_for_leg("s", v)))

    def test_run_kernel_reboots_a_stock_leg_only(self):
        boots = []

        def boot(info, initrd, accel, out, append, live, suites="*"):
            boots.append(info["kver"])
            v = judged(KI1_OOPS if len(boots) == 1 else CLEAN_CONSOLE,
                       patched=bool(info.get("patches")))
            v.boot_seconds, v.parse_seconds, v.guest_seconds = 1.0, 0.0, 1.0
            return v, None

        for info, nboots, flaky in (
                ({"kver": "stock-6.12", "stock": True}, 2, "KI-1"),
                ({"kver": "6.12", "patches": ["kernel-patches/x.patch"]}, 1, None),
                ({"kver": "6.12", "patches": []}, 1, None)):
            boots.clear()
            info = dict(info, bzImage="b", release="r", **V612)
            tmp = tempfile.mkdtemp(prefix="cmkit-harness-")
            with mock.patch.object(run, "prepare", return_value=(info, "i")), \
                    mock.patch.object(run, "choose_accel", return_value="tcg"), \
                    mock.patch.object(run, "boot_and_judge", side_effect=boot), \
                    mock.patch.object(run, "RESULTS", tmp), \
                    mock.patch.object(run, "say"), \
                    mock.patch.object(run, "guest_append", return_value=""):
                os.makedirs(os.path.join(tmp, "r"))
                _, v, _, _ = run.run_kernel(info["kver"])
            self.assertEqual(len(boots), nboots, info)
            self.assertEqual(v.xfail, flaky, info)
            self.assertEqual(v.ok, flaky is not None, info)


def guest_script(name):
    with open(os.path.join(TOP, "scripts", "guest", name)) as f:
        return f.read()


class ShellSuites(unittest.TestCase):
    """What the shell suites count for cmkit, and what srp's unload judges."""

    def test_cmkit_peer_against_itself_is_its_own_suite(self):
        script = guest_script("userspace.sh")
        body = script[script.index('klog "    # Subtest: $SUITE"'):]
        peer, _, rest = body.partition("\nelse\n")
        self.assertIn('if [ "$SUITE" = cmkit_peer_selftest ]; then', peer)
        for call in ('peer_rpc_cases rxe0', 'peer_rpc_cases siw0', 'peer_rpc_rejections rxe0'):
            self.assertIn(call, peer)
        self.assertNotIn("peer_rpc", rest.split("\nfi\n")[0])
        self.assertIn("rpcrdma_to_peer ", rest)
        init = guest_script("init")
        self.assertEqual(init.count("cmkit_userspace cmkit_peer_selftest"), 2)
        self.assertIn('cmkit_userspace|cmkit_peer_selftest) run_userspace "$s"', init)
        exp = results.read_expected()
        for leg in ("6.12", "stock-6.12"):
            mins = {e.target: int(e.value) for e in exp
                    if e.kind == "suite" and e.applies(leg)}
            # 8 cases per device (rxe0, siw0) and 10 rejections on rxe0.
            self.assertEqual(mins["cmkit_peer_selftest"], 26, leg)
        self.assertEqual(len({e.value for e in exp if e.kind == "suite" and
                              e.target == "cmkit_userspace"}), 1,
                         "the stock legs run every case the KUnit legs do")

    def test_srp_unload_is_judged_on_the_old_module(self):
        script = guest_script("srp_initiator.sh")
        body = script[script.index("unload_case() {"):]
        body = body[:body.index("\n}\n")]
        order = [body.index(s) for s in ("old=$(srpt_stats)", "stat_of channels_alive",
                                         "mark=$(dmesg", "rmmod cmkit",
                                         "'cmkit: unloaded'", "|| load_cmkit")]
        self.assertEqual(order, sorted(order), body)
        self.assertIn("LEAK|ERROR", body)
        self.assertNotIn("channels_created 0", body)


class ExpectedSkips(unittest.TestCase):
    def leaf(self, ident, status):
        suite, case, *param = ident.split(".")
        return results.Leaf(suite, [case] + param, status, "", [])

    def test_an_expected_skip_that_passed_is_a_note_in_the_summary(self):
        pin = "linux-source-6.12=6.12.118-1~deb12u1"
        exp = results.read_expected(text=f"6.12 suite s 3\n6.12 skip s.c.siw0 {pin} siw: broken\n"
                                         f"6.12 skip s.d.* {pin} rxe: broken\n")
        leaves = [self.leaf("s.c.siw0", "PASS"), self.leaf("s.c.rxe0", "PASS"),
                  self.leaf("s.d.rxe0", "SKIP")]
        leaves[2].reason = "rxe: broken"
        probs, notes = results.check_expected(leaves, {}, exp, "6.12", None, pin=PIN612)
        self.assertEqual(probs, [])
        self.assertEqual(len(notes), 1, notes)
        self.assertIn("s.c.siw0", notes[0])
        self.assertIn("line 2", notes[0])
        v = results.Verdict()
        v.notes = notes + ["something else"]
        self.assertEqual(run.summary_notes("6.12", v), [f"  6.12: note: {notes[0]}"])
        # 6.1's unnamed parameter skips: no note on the case's passes.
        exp = results.read_expected(text=f"6.12 suite s 2\n6.12 skip s.c.* {pin} siw: broken\n")
        probs, notes = results.check_expected([self.leaf("s.c.siw0", "PASS"),
                                               self.leaf("s.c.rxe0", "PASS")],
                                              {"s.c": 1}, exp, "6.12", None, pin=PIN612)
        self.assertEqual(probs, [])
        self.assertFalse(any(n.startswith(results.SKIP_PASSED) for n in notes), notes)


class PinnedSkips(unittest.TestCase):
    """A skip line names the pinned package versions it was judged on, and
    excuses a skip only on a leg that ran one of them."""

    TEXT = ("6.12,6.1 suite s 2\n"
            "6.12,6.1 skip s.c.siw0 linux-source-6.1=6.1.192-3,"
            "linux-source-6.12=6.12.118-1~deb12u1 siw: broken\n")

    def skipped(self):
        leaf = results.Leaf("s", ["c", "siw0"], "SKIP", "siw: broken", [])
        return [leaf, results.Leaf("s", ["c", "rxe0"], "PASS", "", [])]

    def test_a_skip_line_names_its_pins(self):
        e = results.read_expected(text=self.TEXT)[1]
        self.assertEqual(e.pins, (("linux-source-6.1", "6.1.192-3"),
                                  ("linux-source-6.12", "6.12.118-1~deb12u1")))
        self.assertEqual(e.value, "siw: broken")
        self.assertEqual(e.pins_text(), "linux-source-6.1=6.1.192-3,"
                                        "linux-source-6.12=6.12.118-1~deb12u1")

    def test_a_skip_line_without_a_version_does_not_parse(self):
        for line in ("6.12 skip s.c.siw0 siw: broken",              # no pins at all
                     "6.12 skip s.c.siw0 linux-source-6.12 siw",    # a package, no version
                     "6.12 skip s.c.siw0 6.12.118-1~deb12u1 siw",   # a version, no package
                     "6.12 skip s.c.siw0 linux-source-6.12= siw",
                     "6.12 skip s.c.siw0 linux-source-6.12=6.12.118-1~deb12u1"):  # no reason
            with self.subTest(line=line), self.assertRaises(ValueError) as cm:
                results.read_expected(text=line + "\n")
            self.assertIn("<package>=<version>", str(cm.exception))

    def test_the_pinned_version_excuses_the_skip(self):
        exp = results.read_expected(text=self.TEXT)
        for leg, pin in (("6.12", PIN612), ("6.1", ("linux-source-6.1", "6.1.192-3"))):
            with self.subTest(leg=leg):
                probs, _ = results.check_expected(self.skipped(), {}, exp, leg, None, pin=pin)
                self.assertEqual(probs, [])

    def test_a_skip_judged_on_another_version_fails_the_run(self):
        exp = results.read_expected(text=self.TEXT)
        for pin in (("linux-source-6.12", "6.12.120-1~deb12u1"),    # the pin moved
                    ("linux-image-6.12.118+deb12-amd64",            # the version,
                     "6.12.118-1~deb12u1"),                         # another package
                    None):                                          # unknown
            with self.subTest(pin=pin):
                probs, _ = results.check_expected(self.skipped(), {}, exp, "6.12", None,
                                                  pin=pin)
                self.assertEqual(len(probs), 1, probs)
                self.assertIn("kunit/expected.txt line 2 (s.c.siw0) was judged on "
                              "linux-source-6.1=6.1.192-3,linux-source-6.12=6.12.118-1~deb12u1",
                              probs[0])
                self.assertIn("the pin moved, so it does not excuse s.c.siw0", probs[0])
                self.assertIn("re-check the line", probs[0])
                if pin:
                    self.assertIn(f"6.12 ran {pin[0]} {pin[1]}", probs[0])
                    self.assertIn(f"name {pin[0]}={pin[1]} on it", probs[0])

    def test_a_moved_pin_is_one_problem_per_line(self):
        exp = results.read_expected(text="6.12 suite s 3\n6.12 skip s.*.siw0 "
                                         "linux-source-6.12=6.12.118-1~deb12u1 siw: broken\n")
        leaves = [results.Leaf("s", [c, "siw0"], "SKIP", "siw: broken", []) for c in "abc"]
        probs, _ = results.check_expected(leaves, {}, exp, "6.12", None,
                                          pin=("linux-source-6.12", "6.12.120-1~deb12u1"))
        self.assertEqual(len(probs), 1, probs)
        self.assertIn("s.a.siw0 (and 2 more)", probs[0])

    def test_the_verdict_passes_the_legs_package_and_version(self):
        report = results.GuestReport(status_log([("cmkit_smoke", PASSING_SUITE)]))
        leaves = [results.Leaf("cmkit_smoke", ["c", "siw0"], "SKIP", "siw: broken", [])]
        exp = results.read_expected(text="6.12 suite cmkit_smoke 1\n6.12 skip "
                                         "cmkit_smoke.c.siw0 linux-source-6.12=6.12.118-1~deb12u1 "
                                         "siw: broken\n")

        def judge(version):
            return results.judge(report, CLEAN_CONSOLE, 0, (0, 0, 1), False, True,
                                 list(leaves), "6.12", exp, "*", "linux-source-6.12", version)
        self.assertEqual(judge("6.12.118-1~deb12u1").problems, [])
        v = judge("6.12.120-1~deb12u1")
        self.assertFalse(v.ok)
        self.assertTrue(any("the pin moved" in p and p.kind == "expected" for p in v.problems),
                        v.problems)

    def test_lines_off_a_legs_pin_are_listed(self):
        exp = results.read_expected(text=self.TEXT + "stock-* skip s.d "
                                    "linux-image-6.1.0-57-amd64=6.1.192-3 no siw\n")
        pins = {"6.1": ("linux-source-6.1", "6.1.192-3"), "6.12": PIN612,
                "stock-6.1": ("linux-image-6.1.0-58-amd64", "6.1.193-1"),
                "stock-6.12": ("linux-image-6.12.118+deb12-amd64", "6.12.118-1~deb12u1")}
        off = [(e.lineno, leg) for e, leg, _ in results.skips_off_pin(exp, pins)]
        self.assertEqual(off, [(3, "stock-6.1"), (3, "stock-6.12")])

    def test_the_repository_skips_name_each_legs_current_pin(self):
        off = results.skips_off_pin(results.read_expected(), kernel.leg_pins())
        self.assertEqual([f"line {e.lineno} on {leg}: wants {p[0]}={p[1]}"
                          for e, leg, p in off], [])
        self.assertTrue([e for e in results.read_expected() if e.kind == "skip"])


class FailFast(unittest.TestCase):
    def test_the_debug_leg_panics_on_a_hung_task_or_soft_lockup(self):
        debug = run.guest_append({"debug": True}, "test", "*").split()
        plain = run.guest_append({}, "test", "*").split()
        for word in ("hung_task_panic=1", "softlockup_panic=1"):
            self.assertIn(word, debug)
            self.assertNotIn(word, plain)

    def test_each_legs_summary_and_junit_are_written_when_it_ends(self):
        tmp = tempfile.mkdtemp(prefix="cmkit-harness-")
        seen = []

        def run_kernel(kver, suites="*", mode="test", live=None):
            if kver == "7.3":   # the first leg's results are on disk already
                with open(os.path.join(tmp, "summary.txt")) as f:
                    seen.append(f.read())
                with open(os.path.join(tmp, "junit.xml")) as f:
                    seen.append(f.read())
            v = judged(CLEAN_CONSOLE)
            v.parsed = ""
            return {"kver": kver, "leg": kver, "release": kver}, v, "tcg", None

        with mock.patch.object(run, "run_kernel", side_effect=run_kernel), \
                mock.patch.object(run, "RESULTS", tmp), mock.patch.object(run, "say"), \
                mock.patch.object(run, "Live"):
            run.cmd_test(mock.Mock(kernels="6.12 7.3", suites="*"), on_leg=run.write_results)
        self.assertEqual(len(seen), 2)
        self.assertIn("6.12 6.12 passed=1", seen[0])
        self.assertIn("6.12.guest", seen[1])

    def test_host_checks_run_before_any_kernel_is_built(self):
        with open(os.path.join(TOP, "scripts", "test.py")) as f:
            text = f.read()
        main = text[text.index("def main("):]
        self.assertLess(main.index('account("harness"'), main.index("kernel.ensure(kver)"))
        self.assertLess(main.index('account("headers"'), main.index("kernel.ensure(kver)"))
        # Before them only Debian's stock packages are fetched (no build),
        # so that the harness's DKMS test does not skip in make test.
        before = main[:main.index('account("harness"')]
        self.assertIn("stock.ensure(kernel.leg(kver))", before)
        self.assertNotIn("kernel.ensure(", before)


class ReproVerdicts(unittest.TestCase):
    """make ki-repro's verdict (run.repro_verdict(), run.cmd_repro()): a
    splat, or a reproduction's own "ki-repro: bug: <what>" line for a bug
    that does not splat, is the bug showing."""

    TRIES = "ki-repro: KI-10 on 6.12.118\nki-repro: try 1\nki-repro: try 2\n"
    BUG = ("ki-repro: bug: serve never closed a connection whose RTR was sent "
           "(no ESTABLISHED in 5 s): {\"n\":3}")
    OOPS = "[   40.1] kernel BUG at drivers/infiniband/core/iwcm.c:1115!"

    def test_clean_tries(self):
        self.assertEqual(run.repro_verdict(self.TRIES + "ki-repro: try 3\n"), (3, None))

    def test_a_bug_line_is_the_bug_showing(self):
        tries, shown = run.repro_verdict(self.TRIES + self.BUG + "\nki-repro: serve: 9 x\n")
        self.assertEqual(tries, 2)
        self.assertEqual(shown, self.BUG[len("ki-repro: bug: "):])
        # With a timestamp, a carriage return, or trailing blanks.
        self.assertEqual(run.repro_verdict("[   12.5] ki-repro: bug: no ESTABLISHED  \r\n"),
                         (0, "no ESTABLISHED"))
        # Only a line that says what it saw counts.
        self.assertEqual(run.repro_verdict(self.TRIES + "ki-repro: bug:\n"), (2, None))
        self.assertEqual(run.repro_verdict(self.TRIES + "ki-repro: error: mpa-connect exited 1\n"),
                         (2, None))

    def test_whichever_comes_first_is_reported(self):
        self.assertEqual(run.repro_verdict(self.TRIES + self.OOPS + "\n" + self.BUG + "\n"),
                         (2, "kernel BUG at drivers/infiniband/core/iwcm.c:1115!"))
        self.assertEqual(run.repro_verdict(self.TRIES + self.BUG + "\n" + self.OOPS + "\n")[1],
                         self.BUG[len("ki-repro: bug: "):])

    def test_every_bug_line_a_reproduction_prints_is_one_the_verdict_reads(self):
        for f in sorted(glob.glob(os.path.join(run.REPRO_DIR, "ki-*.sh"))):
            with open(f) as fh:
                for line in fh:
                    if "ki-repro: bug" in line:
                        with self.subTest(script=os.path.basename(f), line=line.strip()):
                            self.assertRegex(line, r'echo "ki-repro: bug: \S')

    def verdict(self, console, hung=False, status="CMKIT repro-done 1\n"):
        """cmd_repro's verdict line for a guest whose console is @console."""
        tmp = tempfile.mkdtemp(prefix="cmkit-harness-")
        boot = mock.Mock(hung=hung)
        boot.run.return_value = boot
        boot.texts.return_value = (console, status)

        def new_boot(outdir, tag):     # a real Boot makes its directory
            os.makedirs(outdir, exist_ok=True)
            return boot
        info = {"release": "6.12.118", "patches": [], "bzImage": "bzImage"}
        with mock.patch.object(run, "prepare", return_value=(info, "initrd")), \
                mock.patch.object(run, "choose_accel", return_value="tcg"), \
                mock.patch.object(run, "Boot", side_effect=new_boot), \
                mock.patch.object(run, "RESULTS", tmp), mock.patch.object(run, "say"), \
                mock.patch("builtins.print"):
            self.assertEqual(run.cmd_repro(mock.Mock(ki="10", kernel="6.12")), 0)
        with open(os.path.join(tmp, "ki-repro", "KI-10-6.12.118", "verdict.txt")) as f:
            return f.read().strip()

    def test_cmd_repro_reports_a_bug_line_as_reproduced(self):
        self.assertEqual(self.verdict(self.TRIES + self.BUG + "\n"),
                         "KI-10 on 6.12.118 (patches: none): REPRODUCED after 2 tries: "
                         + self.BUG[len("ki-repro: bug: "):])
        self.assertEqual(self.verdict(self.TRIES + self.OOPS + "\n", status=""),
                         "KI-10 on 6.12.118 (patches: none): REPRODUCED after 2 tries: "
                         "kernel BUG at drivers/infiniband/core/iwcm.c:1115!")
        self.assertEqual(self.verdict(self.TRIES, status="CMKIT repro-done 0\n"),
                         "KI-10 on 6.12.118 (patches: none): CLEAN after 2 tries")
        self.assertIn("HUNG after 2 tries", self.verdict(self.TRIES, hung=True, status=""))


class StopAfterCrash(unittest.TestCase):

    def stopped_after(self, line):
        """Boot a fake QEMU that prints @line and sleeps: the host stops it."""
        tmp = tempfile.mkdtemp(prefix="cmkit-harness-")
        boot = run.Boot(tmp, "")

        def argv(bzimage, initrd, accel, append, serials):
            return ["sh", "-c", f"echo '{line}' >> {boot.console}; exec sleep 60"]

        with mock.patch.object(run, "qemu_argv", side_effect=argv), \
                mock.patch.object(run, "FATAL_GRACE", 1):
            t0 = time.time()
            boot._run("b", "i", "tcg", "", 120, None)
        self.assertLess(time.time() - t0, 20)
        self.assertTrue(boot.killed_after_crash)
        self.assertFalse(boot.hung)

    def test_qemu_is_stopped_soon_after_a_fatal_console_line(self):
        self.stopped_after("[    1.0] Kernel panic - not syncing: x")
        self.assertLessEqual(run.FATAL_GRACE, 60)

    def test_qemu_is_stopped_soon_after_a_case_timeout(self):
        line = ("[  130.0] cmkit_test: case timeout: cmkit_smoke.smoke_port_is_active#1 "
                "still running after 120 s")
        self.assertEqual(results.splat_kind(line), ("case timeout", True))
        self.stopped_after(line)

    def test_the_case_timeout_reaches_the_guest_only_when_asked(self):
        with mock.patch.dict(os.environ, {"CMKIT_CASE_TIMEOUT": "10"}):
            self.assertIn("cmkit.case_timeout=10",
                          run.guest_append({}, "test", "*").split())
        with mock.patch.dict(os.environ, {}, clear=False):
            os.environ.pop("CMKIT_CASE_TIMEOUT", None)
            self.assertFalse(any(w.startswith("cmkit.case_timeout=")
                                 for w in run.guest_append({}, "test", "*").split()))


if __name__ == "__main__":
    unittest.main()
