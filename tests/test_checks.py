# SPDX-License-Identifier: GPL-2.0-only
"""What fails a run besides a failed case (scripts/results.py), each with a
canned guest: console splats (and the advisory lines that are not), kmemleak
reports, new taint, kunit/expected.txt, known kernel issues, and a guest that
crashed or hung mid-suite."""

import os
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.path.insert(0, os.path.join(TOP, "tests"))
import results  # noqa: E402
from test_harness import find_kunit_py  # noqa: E402

CLEAN = "[    0.000000] Linux version 6.12.118\n[    3.1] cmkit: loaded\n"

# cmkit_smoke as 6.12 prints it in debugfs: a parameterised case whose siw0
# skips, and a plain case.
SMOKE = """KTAP version 1
1..1
    KTAP version 1
    # Subtest: cmkit_smoke
    # module: cmkit_test
    1..2
        KTAP version 1
        # Subtest: smoke_port_is_active
        ok 1 rxe0
    # smoke_port_is_active: SKIP no RDMA device named siw0
        ok 2 siw0 # SKIP no RDMA device named siw0
    # smoke_port_is_active: pass:1 fail:0 skip:1 total:2
    ok 1 smoke_port_is_active
    ok 2 smoke_loopback
# cmkit_smoke: pass:2 fail:0 skip:0 total:2
# Totals: pass:2 fail:0 skip:1 total:3
ok 1 cmkit_smoke
"""

EXPECTED = """
# legs  kind  what  detail
*      suite cmkit_smoke 3
*      skip  cmkit_smoke.smoke_port_is_active.siw0 \
linux-source-6.1=6.1.192-3,linux-source-6.12=6.12.118-1~deb12u1 no RDMA device named siw0
"""


def status_log(blocks, announce=None, done=True, extra=(), cases=None):
    names = announce if announce is not None else [n for n, _ in blocks]
    out = ["CMKIT init 2.91", "CMKIT suites " + " ".join(names)]
    for name, cl in (cases or {}).items():
        out.append(f"CMKIT cases {name} {' '.join(cl)}")
    for name, block in blocks:
        out.append(f"CMKIT begin {name}")
        if block is None:       # the guest stopped in this suite
            break
        out.append(block.rstrip("\n"))
        out.append(f"CMKIT end {name} 0")
        out.append(f"CMKIT rmmod cmkit_test {name}")
        out.append(f"CMKIT taint {name} 4096 266240")
        out.append(f"CMKIT time {name} 12.5")
    out += list(extra)
    if done:
        out += ["CMKIT rmmod cmkit", "CMKIT done"]
    return "\n".join(out) + "\n"


class Base(unittest.TestCase):
    def setUp(self):
        self.kunit_py = find_kunit_py()
        self.tmp = tempfile.mkdtemp(prefix="cmkit-checks-")

    def verdict(self, status, console=CLEAN, expected=None, leg="6.12", patterns="*",
                hung=False, powered_off=True, package="linux-source-6.12",
                version="6.12.118-1~deb12u1"):
        exp = results.read_expected(text=expected) if expected is not None else None
        return results.analyse(status, console, self.kunit_py, self.tmp, hung, powered_off,
                               leg=leg, patterns=patterns, expectations=exp,
                               package=package, version=version)

    def assertFailsWith(self, v, *words):
        self.assertFalse(v.ok, "the run passed")
        for w in words:
            self.assertTrue(any(w in p for p in v.problems), f"{w!r} not in {v.problems}")


# --------------------------------------------------------------------------
# Console splats: one canned console per kind, each its own test
# --------------------------------------------------------------------------

SPLAT_LINES = {
    "kernel_bug_at": "kernel BUG at drivers/infiniband/core/cma.c:2231!",
    "slub_report": "BUG kmalloc-64 (Not tainted): Redzone overwritten",
    "kmemleak_suspects": "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)",
    "kmemleak_disabled": "kmemleak: Kernel memory leak detector disabled",
    "kmemleak_pool_empty": "kmemleak: Memory pool empty, consider increasing "
                           "CONFIG_DEBUG_KMEMLEAK_MEM_POOL_SIZE",
    "kmemleak_no_object": "kmemleak: Cannot allocate a kmemleak_object structure",
    "odebug": "ODEBUG: free active (active state 0) object: ffff8880 object type: "
              "work_struct hint: cmkit_release_work+0x0/0x40 [cmkit]",
    "list_add_corruption": "list_add corruption. prev->next should be next (ffff8880), "
                           "but was 0000000000000000.",
    "list_del_corruption": "list_del corruption, ffff8880->next is LIST_POISON1 (dead000000000100)",
    "hung_task": "INFO: task kworker/u4:2:57 blocked for more than 61 seconds.",
    "rcu_stall": "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
    "rcu_self_stall": "rcu: INFO: rcu_sched self-detected stall on CPU",
    "netdev_refcount": "unregister_netdevice: waiting for d0 to become free. Usage count = 2",
    "ubsan": "UBSAN: shift-out-of-bounds in srpt_cm.c:412:20",
    "kfence": "BUG: KFENCE: use-after-free read in irdma_cm_event_handler+0x2c/0x90 [cmkit]",
    "debug_locks_warn_on": "DEBUG_LOCKS_WARN_ON(lock->magic != lock)",
    "sleeping_function": "BUG: sleeping function called from invalid context at "
                         "kernel/locking/mutex.c:580",
    "circular_locking": "WARNING: possible circular locking dependency detected",
    "kasan": "BUG: KASAN: slab-use-after-free in rpcrdma_cm_event_handler+0x1/0x2 [cmkit]",
    "warning": "WARNING: CPU: 1 PID: 77 at kunit/smoke_test.c:31 smoke+0x1/0x2 [cmkit_test]",
    "refcount": "refcount_t: underflow; use-after-free.",
    "gpf": "general protection fault, probably for non-canonical address 0xdead: 0000 [#1]",
    "cmkit_leak": "cmkit: irdma: LEAK: 2 nodes alive at unload",
    "cmkit_error": "cmkit: ERROR: srpt channel 3 released twice",
    "cmkit_test_error": "cmkit_test: ERROR: rdma link add rxe0 failed: -17",
    "device_never_came_back": "cmkit_test: ERROR: removal of siw0 never finished",
    "cmkit_test_leaked": "cmkit_test: irdma node 3: still referenced at the end: leaked",
}

ADVISORY_LINES = [
    "RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable to RETBleed attacks, "
    "data leaks possible!",
    "Spectre V2 : WARNING: Unprivileged eBPF is enabled with eIBRS on, data leaks possible "
    "via Spectre v2 BHB attacks!",
    "kmemleak: Kernel memory leak detector initialized (mem pool available: 15851)",
    "kmemleak: Cannot allocate a scan area, scanning the full object",
    "cmkit_test: client: established (status 0)",
    "cmkit: irdma: 10.78.0.1:30002: bad MPA reply (bad key): aborting the connection",
    "    # smoke_port_is_active: SKIP no RDMA device named siw0",
    "rdma_rxe: loaded",
    "Unknown kernel command line parameters \"cmkit.mode=test\", will be passed to user space.",
]


class Splats(Base):
    def test_advisory_lines_do_not_fail_a_run(self):
        for line in ADVISORY_LINES:
            with self.subTest(line=line):
                self.assertEqual(results.scan_splats(f"[    0.1] {line}\n"), [])
        v = self.verdict(status_log([("cmkit_smoke", SMOKE)]),
                         CLEAN + "".join(f"[    0.2] {l}\n" for l in ADVISORY_LINES))
        self.assertEqual(v.problems, [])

    def test_a_warning_fails_a_passing_run(self):
        v = self.verdict(status_log([("cmkit_smoke", SMOKE)]),
                         CLEAN + f"[    9.2] {SPLAT_LINES['warning']}\n")
        self.assertFailsWith(v, "WARNING", "smoke_test.c:31")
        self.assertEqual(v.failed, 0)


def _splat_test(line):
    def test(self):
        console = CLEAN + f"[    9.2] {line}\n[    9.3] Call Trace:\n"
        self.assertTrue(results.scan_splats(console), line)
        v = self.verdict(status_log([("cmkit_smoke", SMOKE)]), console)
        self.assertFailsWith(v, line)
    return test


for _name, _line in SPLAT_LINES.items():
    setattr(Splats, f"test_{_name}_fails_a_run", _splat_test(_line))


# --------------------------------------------------------------------------
# kmemleak and taint
# --------------------------------------------------------------------------

KMEMLEAK = """unreferenced object 0xffff888004a1c400 (size 64):
  comm "insmod", pid 233, jiffies 4294902345
  hex dump (first 32 bytes):
    00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00  ................
  backtrace (crc 5a3c1e2f):
    kmemleak_alloc+0x4e/0x90
    __kmalloc_cache_noprof+0x1cb/0x300
    smoke_loopback+0x1c/0x2a0 [cmkit_test]
    kunit_try_run_case+0x6f/0x190
    kunit_generic_run_threadfn_adapter+0x1c/0x40
    kthread+0xe8/0x120
"""


class Leaks(Base):
    def test_kmemleak_report_fails_naming_suite_and_backtrace(self):
        status = status_log([("cmkit_smoke", SMOKE)], extra=[
            "CMKIT kmemleak cmkit_smoke", KMEMLEAK.rstrip("\n"),
            "CMKIT kmemleak-end cmkit_smoke"])
        v = self.verdict(status)
        self.assertFailsWith(v, "kmemleak after suite cmkit_smoke", "size 64",
                             "smoke_loopback+0x1c/0x2a0 [cmkit_test] <- kunit_try_run_case")
        self.assertFalse(any("__kmalloc" in p for p in v.problems), v.problems)

    def test_a_frame_of_an_unloaded_module_is_named(self):
        raw = KMEMLEAK.replace("    smoke_loopback+0x1c/0x2a0 [cmkit_test]\n",
                               "    0xffffffffa004a0eb\n")
        status = status_log([("cmkit_smoke", SMOKE)], extra=[
            "CMKIT module cmkit_test 0xffffffffa0048000",
            "CMKIT kmemleak cmkit_smoke", raw.rstrip("\n"), "CMKIT kmemleak-end cmkit_smoke"])
        objdump = ("0000000000000000 l     F .text\t0000000000000020 cmkit_res_init\n"
                   "0000000000001ffa l     F .text\t000000000000027a smoke_port_is_active\n")
        syms = {"cmkit_test": results.text_symbols(objdump)}
        report = results.GuestReport(status)
        problem = results.kmemleak_problem("cmkit_smoke", report.kmemleak[0][1],
                                           report.modules, syms)
        self.assertIn("smoke_port_is_active+0xf1/0x27a [cmkit_test] <- kunit_try_run_case",
                      problem)
        self.assertIn("0xffffffffa004a0eb", results.kmemleak_problem(
            "cmkit_smoke", report.kmemleak[0][1]))

    def test_kmemleak_after_cmkit_unload_is_named(self):
        status = status_log([("cmkit_smoke", SMOKE)], extra=[
            "CMKIT kmemleak cmkit.ko", KMEMLEAK.rstrip("\n"), "CMKIT kmemleak-end cmkit.ko"])
        self.assertFailsWith(self.verdict(status), "kmemleak after unloading cmkit.ko")

    def test_new_taint_fails_naming_the_suite(self):
        status = status_log([("cmkit_smoke", SMOKE)]).replace(
            "CMKIT taint cmkit_smoke 4096 266240", "CMKIT taint cmkit_smoke 4096 266752")
        self.assertFailsWith(self.verdict(status), "suite cmkit_smoke tainted the kernel: W")

    def test_out_of_tree_unsigned_and_test_taint_are_ignored(self):
        status = status_log([("cmkit_smoke", SMOKE)]).replace(
            "CMKIT taint cmkit_smoke 4096 266240", "CMKIT taint cmkit_smoke 0 274432")
        v = self.verdict(status)
        self.assertEqual(v.problems, [])
        self.assertEqual(results.taint_letters(274432), "OEN")


# --------------------------------------------------------------------------
# kunit/expected.txt
# --------------------------------------------------------------------------

OTHER = """    KTAP version 1
    # Subtest: cmkit_other
    1..2
    ok 1 first_case
    ok 2 second_case # SKIP not on this kernel
ok 1 cmkit_other
"""


class Expected(Base):
    def test_expected_skips_and_suites_pass(self):
        v = self.verdict(status_log([("cmkit_smoke", SMOKE)]), expected=EXPECTED)
        self.assertEqual(v.problems, [])
        self.assertEqual((v.passed, v.failed, v.skipped), (2, 0, 1))

    def test_unexpected_skip_fails(self):
        v = self.verdict(status_log([("cmkit_smoke", SMOKE)]),
                         expected=EXPECTED.replace("smoke_port_is_active.siw0", "other.siw0"))
        self.assertFailsWith(v, "unexpected skip cmkit_smoke.smoke_port_is_active.siw0: "
                                "no RDMA device named siw0")

    def test_skip_with_another_reason_fails(self):
        v = self.verdict(status_log([("cmkit_smoke", SMOKE)]),
                         expected=EXPECTED.replace("named siw0", "named siw1"))
        self.assertFailsWith(v, "skipped with 'no RDMA device named siw0'", "named siw1")

    def test_a_skip_judged_on_another_version_fails(self):
        v = self.verdict(status_log([("cmkit_smoke", SMOKE)]), expected=EXPECTED,
                         version="6.12.120-1~deb12u1")
        self.assertFailsWith(v, "kunit/expected.txt line 4 (cmkit_smoke.smoke_port_is_active"
                                ".siw0) was judged on linux-source-6.1=6.1.192-3,"
                                "linux-source-6.12=6.12.118-1~deb12u1, but 6.12 ran "
                                "linux-source-6.12 6.12.120-1~deb12u1: the pin moved")
        self.assertEqual(len(v.problems), 1, v.problems)

    def test_missing_suite_fails(self):
        exp = EXPECTED + "*   suite cmkit_srpt 10\n"
        self.assertFailsWith(self.verdict(status_log([("cmkit_smoke", SMOKE)]), expected=exp),
                             "expected suite cmkit_srpt did not run")

    def test_a_suite_left_out_by_suites_is_not_missing(self):
        exp = EXPECTED + "*   suite cmkit_srpt 10\n"
        v = self.verdict(status_log([("cmkit_smoke", SMOKE)]), expected=exp,
                         patterns="cmkit_smoke")
        self.assertEqual(v.problems, [])

    def test_short_suite_fails(self):
        v = self.verdict(status_log([("cmkit_smoke", SMOKE)]),
                         expected=EXPECTED.replace("cmkit_smoke 3", "cmkit_smoke 4"))
        self.assertFailsWith(v, "suite cmkit_smoke reported 3 result(s), fewer than its "
                                "minimum 4")

    def test_case_narrowed_suite_is_not_short(self):
        v = self.verdict(status_log([("cmkit_smoke", SMOKE)]), patterns="cmkit_smoke.smoke_*",
                         expected=EXPECTED.replace("cmkit_smoke 3", "cmkit_smoke 40"))
        self.assertEqual(v.problems, [])

    def test_suite_not_in_the_file_fails(self):
        v = self.verdict(status_log([("cmkit_smoke", SMOKE), ("cmkit_other", OTHER)]),
                         expected=EXPECTED)
        self.assertFailsWith(v, "suite cmkit_other is not in kunit/expected.txt for 6.12")

    def test_legs_are_told_apart(self):
        exp = EXPECTED + "6.1  skip cmkit_other.second_case linux-source-6.1=6.1.192-3 " + \
            "not on this kernel\n6.1 suite cmkit_other 2\n"
        v = self.verdict(status_log([("cmkit_smoke", SMOKE), ("cmkit_other", OTHER)]),
                         expected=exp, leg="6.1", package="linux-source-6.1",
                         version="6.1.192-3")
        self.assertEqual(v.problems, [])
        v = self.verdict(status_log([("cmkit_smoke", SMOKE), ("cmkit_other", OTHER)]),
                         expected=exp + "6.12 suite cmkit_other 2\n", leg="6.12")
        self.assertFailsWith(v, "unexpected skip cmkit_other.second_case")

    def test_a_device_that_never_came_back_turns_no_case_into_a_silent_skip(self):
        # A removal case could not re-create rxe0: every later rxe0 parameter skips.
        suite = """    KTAP version 1
    # Subtest: cmkit_rpcrdma
    1..3
        KTAP version 1
        # Subtest: device_removal_while_connected
        ok 1 rxe0
        ok 2 siw0
    ok 1 device_removal_while_connected
        KTAP version 1
        # Subtest: connect_with_rfc8797_data
        ok 1 rxe0 # SKIP no RDMA device named rxe0
        ok 2 siw0
    ok 2 connect_with_rfc8797_data
        KTAP version 1
        # Subtest: remote_disconnect
        ok 1 rxe0 # SKIP no RDMA device named rxe0
        ok 2 siw0
    ok 3 remote_disconnect
ok 1 cmkit_rpcrdma
"""
        console = CLEAN + "[   40.1] cmkit_test: ERROR: rdma link add rxe0 failed: -19\n"
        exp = "* suite cmkit_rpcrdma 6\n"
        v = self.verdict(status_log([("cmkit_rpcrdma", suite)]), console, expected=exp)
        self.assertEqual(v.failed, 0)
        self.assertFailsWith(v, "unexpected skip cmkit_rpcrdma.connect_with_rfc8797_data.rxe0",
                             "unexpected skip cmkit_rpcrdma.remote_disconnect.rxe0",
                             "rdma link add rxe0 failed")
        # Without the console line, the skips alone still fail the run.
        v = self.verdict(status_log([("cmkit_rpcrdma", suite)]), expected=exp)
        self.assertFailsWith(v, "unexpected skip cmkit_rpcrdma.remote_disconnect.rxe0")


# 6.1: the kernel log's KTAP of a parameterised case whose siw0 skipped: no
# SKIP directive, only the case's totals say so.
LOG_61 = """[    5.2]     KTAP version 1
[    5.2]     # Subtest: cmkit_smoke
[    5.2]     1..2
[    5.3]         KTAP version 1
[    5.3]         # Subtest: smoke_port_is_active
[    5.4]         ok 1 rxe0
{diag}[    5.6]         ok 2 siw0
[    5.6]     # smoke_port_is_active: pass:1 fail:0 skip:1 total:2
[    5.6]     ok 1 smoke_port_is_active
[    5.7]     ok 2 smoke_loopback
[    5.7] # cmkit_smoke: pass:2 fail:0 skip:0 total:2
[    5.7] ok 1 cmkit_smoke
"""
LOSSY_61 = """    KTAP version 1
    # Subtest: cmkit_smoke
    1..2
        ok 2 siw0
    # smoke_port_is_active: pass:1 fail:0 skip:1 total:2
    ok 1 smoke_port_is_active
    ok 2 smoke_loopback
ok 1 cmkit_smoke
"""


def status_61(diag=""):
    return status_log([("cmkit_smoke", LOSSY_61)]).replace(
        "CMKIT end cmkit_smoke 0",
        "CMKIT end cmkit_smoke 0\nCMKIT klog cmkit_smoke\n" +
        LOG_61.format(diag=diag).rstrip("\n") + "\nCMKIT klog-end cmkit_smoke")


class Expected61(Base):
    def test_skip_named_by_cmkit_skip_is_checked_with_its_reason(self):
        diag = "[    5.5]     # smoke_port_is_active: SKIP no RDMA device named siw0\n"
        v = self.verdict(status_61(diag), expected=EXPECTED, leg="6.1",
                         package="linux-source-6.1", version="6.1.192-3")
        self.assertEqual(v.problems, [])
        self.assertEqual((v.passed, v.failed, v.skipped), (2, 0, 1))
        other = EXPECTED.replace("named siw0", "named siw9")
        v = self.verdict(status_61(diag), expected=other, leg="6.1")
        self.assertFailsWith(v, "skipped with 'no RDMA device named siw0'")

    def test_unnamed_skip_is_taken_as_the_expected_one(self):
        v = self.verdict(status_61(), expected=EXPECTED, leg="6.1")
        self.assertEqual(v.problems, [])
        self.assertEqual((v.passed, v.failed, v.skipped), (2, 0, 1))
        self.assertTrue(any("smoke_port_is_active.siw0" in n for n in v.notes), v.notes)

    def test_unnamed_unexpected_skip_fails(self):
        exp = EXPECTED.replace("smoke_port_is_active.siw0", "smoke_loopback")
        v = self.verdict(status_61(), expected=exp, leg="6.1")
        self.assertFailsWith(v, "cmkit_smoke.smoke_port_is_active: 1 parameter(s) skipped "
                                "without the kernel saying which")


# --------------------------------------------------------------------------
# A guest that crashed or hung mid-suite
# --------------------------------------------------------------------------

RPC_CASES = ["connect_without_data", "device_removal_while_connecting", "remote_disconnect"]
CRASH_CONSOLE = CLEAN + """[   20.1]     KTAP version 1
[   20.1]     # Subtest: cmkit_rpcrdma
[   20.1]     1..3
[   20.2]         KTAP version 1
[   20.2]         # Subtest: connect_without_data
[   21.0]         ok 1 rxe0
[   22.0]         ok 2 siw0
[   22.0]     # connect_without_data: pass:2 fail:0 skip:0 total:2
[   22.0]     ok 1 connect_without_data
[   22.1]         KTAP version 1
[   22.1]         # Subtest: device_removal_while_connecting
[   23.0] cmkit_test: client: established (status 0)
[   23.5] ------------[ cut here ]------------
[   23.5] WARNING: CPU: 0 PID: 311 at rpcrdma_cm.c:402 rpcrdma_cm_event_handler+0x3e1/0x450 [cmkit]
[   23.5] Modules linked in: cmkit_test(O) cmkit(O)
[   23.5] Call Trace:
[   23.5]  <TASK>
[   23.5]  cma_cm_event_handler+0x2f/0x120
[   23.6] Kernel panic - not syncing: kernel: panic_on_warn set ...
"""


class Interrupted(Base):
    def test_panic_mid_suite_names_suite_and_case_and_keeps_earlier_results(self):
        status = status_log([("cmkit_smoke", SMOKE), ("cmkit_rpcrdma", None)],
                            announce=["cmkit_smoke", "cmkit_rpcrdma", "cmkit_srpt"],
                            done=False, cases={"cmkit_rpcrdma": RPC_CASES})
        v = self.verdict(status, CRASH_CONSOLE)
        self.assertFailsWith(
            v, "suite cmkit_rpcrdma: crashed: WARNING: CPU: 0 PID: 311 at rpcrdma_cm.c:402",
            "in case cmkit_rpcrdma.device_removal_while_connecting (1 case(s) had ended)",
            "kernel crash in cmkit_rpcrdma (WARNING)",
            "suite cmkit_srpt: no results (not run")
        crashed = [l for l in v.leaves if l.status == "FAIL" and l.path]
        self.assertEqual([l.ident for l in crashed],
                         ["cmkit_rpcrdma.device_removal_while_connecting"])
        self.assertTrue(any("cma_cm_event_handler" in d for d in crashed[0].diag))
        # cmkit_smoke's 3, the 2 parameters that ended, the crashed case, srpt not run.
        self.assertEqual((v.passed, v.failed, v.skipped), (4, 2, 1))

    def test_panic_in_a_plain_case_is_named_from_the_case_list(self):
        console = CRASH_CONSOLE.replace(
            "[   22.1]         KTAP version 1\n"
            "[   22.1]         # Subtest: device_removal_while_connecting\n", "")
        status = status_log([("cmkit_rpcrdma", None)], done=False,
                            cases={"cmkit_rpcrdma": RPC_CASES})
        v = self.verdict(status, console)
        self.assertFailsWith(v, "in case cmkit_rpcrdma.device_removal_while_connecting")
        without = status_log([("cmkit_rpcrdma", None)], done=False)
        v = self.verdict(without, console)
        self.assertFailsWith(v, "in case cmkit_rpcrdma.case_2_after_connect_without_data")

    def test_watchdog_timeout_names_the_suite_and_case(self):
        console = CRASH_CONSOLE.split("[   23.5]")[0] + \
            "[  330.0] task:insmod          state:D stack:0     pid:233\n"
        status = status_log([("cmkit_rpcrdma", None)], done=False,
                            cases={"cmkit_rpcrdma": RPC_CASES}, extra=[
                                "CMKIT blocked cmkit_rpcrdma",
                                "insmod (pid 233) state D",
                                "    rpcrdma_xprt_destroy+0x90/0x120 [cmkit]",
                                "CMKIT blocked-end cmkit_rpcrdma",
                                "CMKIT error suite cmkit_rpcrdma timed out after 300 s"])
        v = self.verdict(status, console)
        self.assertFailsWith(v, "suite cmkit_rpcrdma: timed out after 300 s in case "
                                "cmkit_rpcrdma.device_removal_while_connecting")
        self.assertTrue(any("insmod (pid 233)" in n for n in v.notes), v.notes)

    def test_case_timeout_names_the_case_and_its_parameter(self):
        # cmkit_test's case watchdog fired in the second parameter of a case:
        # the guest went on (the case never ends) until the host stopped it.
        console = CRASH_CONSOLE.split("[   23.0]")[0] + (
            "[   22.2]         ok 1 rxe0\n"
            "[  142.3] cmkit_test: case timeout: cmkit_rpcrdma.device_removal_while_connecting#2"
            " still running after 120 s\n"
            "[  142.3] cmkit_test: the case's thread: kunit_try_catch (pid 311)\n"
            "[  142.3] task:kunit_try_catch state:D stack:0     pid:311\n"
            "[  142.3]  rpcrdma_xprt_destroy+0x90/0x120 [cmkit]\n"
            "[  142.4] sysrq: Show Blocked State\n")
        status = status_log([("cmkit_rpcrdma", None)], done=False,
                            announce=["cmkit_rpcrdma", "cmkit_srpt"],
                            cases={"cmkit_rpcrdma": RPC_CASES})
        v = self.verdict(status, console, powered_off=False)
        self.assertFailsWith(v, "suite cmkit_rpcrdma: timed out after 120 s (parameter #2) in "
                                "case cmkit_rpcrdma.device_removal_while_connecting "
                                "(1 case(s) had ended)",
                             "suite cmkit_srpt: no results")
        self.assertIn("timeout", [p.kind for p in v.problems])
        # Named once, as the case's timeout, not as a kernel crash.
        self.assertFalse(any(p.startswith("kernel crash") for p in v.problems), v.problems)
        failed = [l for l in v.leaves if l.status == "FAIL" and l.path]
        self.assertEqual([l.ident for l in failed],
                         ["cmkit_rpcrdma.device_removal_while_connecting"])
        self.assertTrue(any("rpcrdma_xprt_destroy" in d for d in failed[0].diag))
        self.assertTrue(any("parameter rxe0: ok" in d for d in failed[0].diag))

    def test_case_timeout_line_names_the_case_without_the_case_list(self):
        # Neither the case list nor KUnit's subtest header: the line says which.
        console = CLEAN + (
            "[   20.1]     KTAP version 1\n[   20.1]     # Subtest: cmkit_smoke\n"
            "[   20.1]     1..2\n"
            "[   50.1] cmkit_test: case timeout: cmkit_smoke.smoke_loopback still running "
            "after 30 s\n")
        v = self.verdict(status_log([("cmkit_smoke", None)], done=False), console,
                         powered_off=False)
        self.assertFailsWith(v, "suite cmkit_smoke: timed out after 30 s in case "
                                "cmkit_smoke.smoke_loopback (0 case(s) had ended)")

    def test_rmmod_timeout_is_named(self):
        status = status_log([("cmkit_smoke", SMOKE)], done=False, extra=[
            "CMKIT rmmod cmkit", "CMKIT error rmmod cmkit timed out after 300 s"])
        self.assertFailsWith(self.verdict(status), "guest: rmmod cmkit timed out after 300 s")

    def test_crash_in_the_shell_suite_is_named_after_its_last_result(self):
        console = CLEAN + ("[   50.0]     KTAP version 1\n[   50.0]     # Subtest: cmkit_userspace\n"
                           "[   52.0]     ok 1 rpcrdma_to_peer_rxe0\n"
                           "[   53.0] BUG: kernel NULL pointer dereference, address: 08\n"
                           "[   53.1] Kernel panic - not syncing: Fatal exception\n")
        status = status_log([("cmkit_userspace", None)], done=False)
        v = self.verdict(status, console)
        self.assertFailsWith(v, "in case cmkit_userspace.case_2_after_rpcrdma_to_peer_rxe0")


# --------------------------------------------------------------------------
# Known issues
# --------------------------------------------------------------------------

KI1_CONSOLE = CLEAN + """[   20.1]     KTAP version 1
[   20.1]     # Subtest: cmkit_rpcrdma
[   20.1]     1..3
[   20.2]     ok 1 connect_without_data
[   30.98] BUG: kernel NULL pointer dereference, address: 0000000000000060
[   30.99] Oops: 0000 [#1] PREEMPT SMP
[   30.99] Workqueue: ib-comp-unb-wq free_gid_work
[   30.99] Call Trace:
[   30.99]  mutex_lock_nested+0x1a/0x1c
[   30.99]  free_gid_work+0x38/0x4e
[   31.00] Kernel panic - not syncing: Fatal exception
"""
KI_ARGS = dict(leg="7.3", package="linux-source-7.3", version="7.3.4-1~bpo13+1")


KI2_CONSOLE = CLEAN + """[   66.258899] WARNING: possible irq lock inversion dependency detected
[   66.259198] 6.1.192 #1 Tainted: G           O     N
[   66.259402] --------------------------------------------------------
[   66.259583] cmkit-peer/1101 just changed the state of lock:
[   66.259815] ffff8880041ba620 (clock-AF_INET){++.?}-{2:2}, at: siw_qp_llp_data_ready+0x21/0xac
[   66.260484] but this lock was taken by another, SOFTIRQ-safe lock in the past:
[   66.260670]  (k-slock-AF_INET){+.-.}-{2:2}
"""
KI2_ARGS = dict(leg="6.1", package="linux-source-6.1", version="6.1.192-3")


KI3_CONSOLE = CLEAN + """[   20.1]     KTAP version 1
[   20.1]     # Subtest: cmkit_rpcrdma
[   20.1]     1..3
[   20.2]     ok 1 connect_without_data
[   18.750986] ------------[ cut here ]------------
[   18.751469] WARNING: CPU: 0 PID: 92 at drivers/infiniband/sw/siw/siw_cm.c:449 siw_cep_put+0xf/0x23
[   18.751976] Modules linked in: cmkit_test(ON) cmkit(O)
[   18.753851] RIP: 0010:siw_cep_put+0xf/0x23
[   18.757833] Call Trace:
[   18.757987]  <TASK>
[   18.758105]  siw_cep_set_free_and_put+0x17/0x19
[   18.758336]  siw_destroy_listen+0xa8/0xd1
[   18.758472]  destroy_cm_id+0xd4/0x18a
[   18.758625]  iw_destroy_cm_id+0x11/0x33
[   18.758767]  _destroy_id+0xf6/0x23b
[   18.759022]  rdma_destroy_id+0x22/0x25
[   18.764047] Kernel panic - not syncing: kernel: panic_on_warn set ...
"""
KI3_ARGS = dict(leg="6.12-debug", package="linux-source-6.12", version="6.12.118-1~deb12u1")

KI5_CONSOLE = CLEAN + """[   20.1]     KTAP version 1
[   20.1]     # Subtest: cmkit_rpcrdma
[   20.1]     1..3
[   20.2]     ok 1 connect_without_data
[   91.274291] BUG: KASAN: slab-use-after-free in ib_mad_post_receive_mads+0x2dd/0x467
[   91.274489] Read of size 8 at addr ffff88800a701000 by task kworker/u9:2/227
[   91.274902] Workqueue: ib-comp-unb-wq ib_cq_poll_work
[   91.275049] Call Trace:
[   91.275453]  ib_mad_post_receive_mads+0x2dd/0x467
[   91.275671]  ib_mad_recv_done+0x1248/0x1297
[   91.275796]  __ib_process_cq+0x228/0x276
[   91.278203] Freed by task 142:
[   91.278416]  ib_destroy_qp_user+0x2c7/0x2f0
[   91.278452]  destroy_mad_qp.isra.0+0x10/0x13
[   91.278488]  ib_mad_port_close+0xc2/0x129
[   91.300000] Kernel panic - not syncing: KASAN: panic_on_warn set ...
"""
KI5_ARGS = dict(leg="7.3-debug", package="linux-source-7.3", version="7.3.4-1~bpo13+1")


class KnownIssues(Base):
    def ki_status(self):
        return status_log([("cmkit_smoke", SMOKE), ("cmkit_rpcrdma", None)],
                          announce=["cmkit_smoke", "cmkit_rpcrdma", "cmkit_srpt"], done=False,
                          cases={"cmkit_rpcrdma": RPC_CASES})

    def test_the_signature_alone_is_an_expected_failure(self):
        v = self.verdict(self.ki_status(), KI1_CONSOLE, **KI_ARGS)
        self.assertFalse(v.ok)
        self.assertEqual(v.known_issue.ident, "KI-1")

    def test_not_on_another_package_version(self):
        args = dict(KI_ARGS, version="7.3.5-1~bpo13+1")
        self.assertIsNone(self.verdict(self.ki_status(), KI1_CONSOLE, **args).known_issue)

    def test_ki1_on_6_12_too(self):
        args = dict(leg="6.12", package="linux-source-6.12", version="6.12.118-1~deb12u1")
        self.assertEqual(self.verdict(self.ki_status(), KI1_CONSOLE, **args).known_issue.ident,
                         "KI-1")

    def test_not_when_another_splat_came_first(self):
        console = KI1_CONSOLE.replace(
            "[   20.2]     ok 1", "[   20.15] kmemleak: 1 new suspected memory leaks\n"
            "[   20.2]     ok 1")
        self.assertIsNone(self.verdict(self.ki_status(), console, **KI_ARGS).known_issue)

    def test_not_when_another_case_failed(self):
        status = self.ki_status().replace("    ok 2 smoke_loopback", "    not ok 2 smoke_loopback")
        self.assertIsNone(self.verdict(status, KI1_CONSOLE, **KI_ARGS).known_issue)

    def test_not_when_a_leak_was_reported(self):
        status = self.ki_status().replace(
            "CMKIT begin cmkit_rpcrdma", "CMKIT kmemleak cmkit_smoke\n" + KMEMLEAK +
            "CMKIT kmemleak-end cmkit_smoke\nCMKIT begin cmkit_rpcrdma")
        self.assertIsNone(self.verdict(status, KI1_CONSOLE, **KI_ARGS).known_issue)

    def ki2_status(self):
        return status_log([("cmkit_smoke", SMOKE)])

    def test_a_report_the_guest_survived_is_an_expected_failure(self):
        v = self.verdict(self.ki2_status(), KI2_CONSOLE, **KI2_ARGS)
        self.assertFalse(v.ok)
        self.assertEqual(v.known_issue.ident, "KI-2")

    def test_the_other_order_of_the_same_report_is_ki2(self):
        console = KI2_CONSOLE.replace("possible irq lock inversion dependency detected",
                                      "SOFTIRQ-safe -> SOFTIRQ-unsafe lock order detected")
        v = self.verdict(self.ki2_status(), console, **KI2_ARGS)
        self.assertEqual(v.known_issue.ident, "KI-2")

    def test_siws_cm_callback_in_the_same_report_is_ki2(self):
        console = KI2_CONSOLE.replace("siw_qp_llp_data_ready", "siw_cm_llp_data_ready")
        v = self.verdict(self.ki2_status(), console, **KI2_ARGS)
        self.assertEqual(v.known_issue.ident, "KI-2")

    def test_a_lock_inversion_without_siw_is_not_ki2(self):
        console = KI2_CONSOLE.replace("siw_qp_llp_data_ready", "cmkit_sk_data_ready")
        self.assertIsNone(self.verdict(self.ki2_status(), console, **KI2_ARGS).known_issue)

    def test_a_second_splat_after_the_report_is_not_explained(self):
        console = KI2_CONSOLE + "[   70.0] UBSAN: shift-out-of-bounds in srpt_cm.c:412:20\n"
        self.assertIsNone(self.verdict(self.ki2_status(), console, **KI2_ARGS).known_issue)

    def test_siw_listener_put_once_too_often_is_ki3(self):
        v = self.verdict(self.ki_status(), KI3_CONSOLE, **KI3_ARGS)
        self.assertFalse(v.ok)
        self.assertEqual(v.known_issue.ident, "KI-3")

    def test_a_siw_cep_put_warning_from_elsewhere_is_not_ki3(self):
        console = KI3_CONSOLE.replace("siw_destroy_listen+", "siw_cm_work_handler+")
        self.assertIsNone(self.verdict(self.ki_status(), console, **KI3_ARGS).known_issue)

    def test_another_siw_warning_before_destroy_listen_is_not_ki3(self):
        console = KI3_CONSOLE.replace("siw_cm.c:449 siw_cep_put+", "siw_qp.c:120 siw_qp_put+")
        self.assertIsNone(self.verdict(self.ki_status(), console, **KI3_ARGS).known_issue)

    def test_mad_repost_on_a_freed_qp_is_ki5(self):
        v = self.verdict(self.ki_status(), KI5_CONSOLE, **KI5_ARGS)
        self.assertEqual(v.known_issue.ident, "KI-5")

    def test_the_same_oops_without_kasan_is_ki5(self):
        console = KI5_CONSOLE.replace(
            "BUG: KASAN: slab-use-after-free in ib_mad_post_receive_mads+0x2dd/0x467",
            "general protection fault, probably for non-canonical address 0x6b6b6b6b6b6b6b6b\n"
            "[   91.274300] RIP: 0010:ib_mad_post_receive_mads+0x9a/0x1f0")
        v = self.verdict(self.ki_status(), console, **dict(KI5_ARGS, leg="7.3"))
        self.assertEqual(v.known_issue.ident, "KI-5")

    def test_a_use_after_free_in_cmkit_is_not_ki5(self):
        console = KI5_CONSOLE.replace("in ib_mad_post_receive_mads+", "in rpcrdma_cm_event_handler+")
        self.assertIsNone(self.verdict(self.ki_status(), console, **KI5_ARGS).known_issue)

    # 6.12-debug: rxe's own WARN on the destroyed MAD QP, before any read of it.
    KI5_WARN = ("WARNING: CPU: 0 PID: 207 at drivers/infiniband/sw/rxe/rxe_verbs.c:1019 "
                "rxe_post_recv+0x4e/0x1ae\n"
                "[   91.274300] Workqueue: ib-comp-unb-wq ib_cq_poll_work\n"
                "[   91.274310] RIP: 0010:rxe_post_recv+0x4e/0x1ae\n"
                "[   91.274320] Call Trace:\n"
                "[   91.274330]  ib_mad_post_receive_mads+0x2f8/0x434")

    def ki5_warn_console(self, caller="ib_mad_post_receive_mads+0x2f8/0x434"):
        warn = self.KI5_WARN.replace("ib_mad_post_receive_mads+0x2f8/0x434", caller)
        return KI5_CONSOLE.replace(
            "BUG: KASAN: slab-use-after-free in ib_mad_post_receive_mads+0x2dd/0x467", warn
        ).replace("[   91.275453]  ib_mad_post_receive_mads+0x2dd/0x467\n", "")

    def test_rxe_warning_on_the_destroyed_mad_qp_is_ki5(self):
        args = dict(leg="6.12-debug", package="linux-source-6.12", version="6.12.118-1~deb12u1")
        v = self.verdict(self.ki_status(), self.ki5_warn_console(), **args)
        self.assertEqual(v.known_issue.ident, "KI-5")

    def test_rxe_warning_on_a_qp_cmkit_posts_to_is_not_ki5(self):
        args = dict(leg="6.12-debug", package="linux-source-6.12", version="6.12.118-1~deb12u1")
        console = self.ki5_warn_console("rpcrdma_post_recvs+0x90/0x1f0")
        self.assertNotIn("ib_mad_post_receive_mads", console)
        self.assertIsNone(self.verdict(self.ki_status(), console, **args).known_issue)

    def test_ki5_on_6_12_too_but_not_another_version(self):
        args = dict(leg="6.12-debug", package="linux-source-6.12", version="6.12.118-1~deb12u1")
        self.assertEqual(self.verdict(self.ki_status(), KI5_CONSOLE, **args).known_issue.ident,
                         "KI-5")
        args["version"] = "6.12.119-1~deb12u1"
        self.assertIsNone(self.verdict(self.ki_status(), KI5_CONSOLE, **args).known_issue)

    def test_every_entry_is_held_to_account(self):
        pins = {}
        with open(os.path.join(TOP, "kunit", "kernels.pin")) as f:
            pin_lines = f.read().splitlines()
        # docs/known-issues.md is generated from KNOWN_ISSUES (scripts/docs.py).
        with open(os.path.join(TOP, "docs", "known-issues.md")) as f:
            page = f.read()
        for line in pin_lines:
            words = line.split("#", 1)[0].split()
            if len(words) == 3:
                pins[words[1]] = words[2]
        for ki in results.KNOWN_ISSUES:
            with self.subTest(ki=ki.ident):
                self.assertRegex(ki.ident, r"^KI-\d+$")
                self.assertTrue(ki.packages)
                for pkg in ki.packages:
                    self.assertIn(pkg, pins, "a package the matrix does not build")
                self.assertTrue(ki.outside and ki.reproduction and ki.what)
                self.assertNotIn("cmkit", ki.reproduction, "a reproduction without cmkit")
                self.assertIn(f"| {ki.ident} |", page)


class SuitesNotRun(unittest.TestCase):
    """A suite the guest never reached inherits nothing of the one it died in."""

    KTAP = """KTAP version 1
1..3
    KTAP version 1
    # Subtest: cmkit_rpcrdma
    1..2
        KTAP version 1
        # Subtest: fail_nth_sweep
        ok 1 rxe0
    # fail_nth_sweep: SKIP siw: a reason
        ok 2 siw0 # SKIP siw: a reason
    # fail_nth_sweep: pass:1 fail:0 skip:1 total:2
    ok 1 fail_nth_sweep
    not ok 2 removal_case
not ok 1 cmkit_rpcrdma
not ok 2 cmkit_irdma # not run (the guest stopped before it)
not ok 3 cmkit_srpt # not run (the guest stopped before it)
"""

    def test_no_lost_skips_are_made_up_for_them(self):
        leaves, lost = results.ktap_leaves(self.KTAP)
        self.assertEqual(lost, {})
        self.assertEqual([l.ident for l in leaves if l.status == "SKIP"],
                         ["cmkit_rpcrdma.fail_nth_sweep.siw0"])

    def test_a_real_lost_skip_is_still_counted(self):
        ktap = self.KTAP.replace("        ok 2 siw0 # SKIP siw: a reason", "        ok 2 siw0")
        ktap = ktap.replace("    # fail_nth_sweep: SKIP siw: a reason\n", "")
        _, lost = results.ktap_leaves(ktap)
        self.assertEqual(lost, {"cmkit_rpcrdma.fail_nth_sweep": 1})


class ExpectedFile(unittest.TestCase):
    def test_the_repository_file_parses_and_names_real_legs(self):
        sys.path.insert(0, os.path.join(TOP, "scripts"))
        import kernel
        exp = results.read_expected()
        self.assertTrue(any(e.kind == "suite" for e in exp))
        for e in exp:
            for leg in e.legs:
                self.assertTrue(leg == "*" or any(results.fnmatch.fnmatchcase(name, leg)
                                                  for name in kernel.LEGS),
                                f"line {e.lineno}: {leg}")

    def test_a_bad_line_is_refused(self):
        with self.assertRaises(ValueError):
            results.read_expected(text="* suite cmkit_smoke\n")


if __name__ == "__main__":
    unittest.main()
