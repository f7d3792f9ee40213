# SPDX-License-Identifier: GPL-2.0-only
"""The cmkit_srp_initiator shell suite (scripts/guest/srp_initiator.sh) as
the harness sees it: canned KTAP in the script's own format judged by
scripts/results.py with the real kunit/expected.txt, a crash in it named
after its last result, and the guest plumbing that runs it (init's suite
list, the initramfs's tools, the host packages they come from, the stock
legs' modules)."""

import os
import re
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
sys.path.insert(0, os.path.join(TOP, "tests"))
import mkinitramfs  # noqa: E402
import results  # noqa: E402
import stock  # noqa: E402
from test_checks import CLEAN, Base, status_log  # noqa: E402

SUITE = "cmkit_srp_initiator"
SCRIPT = os.path.join(TOP, "scripts", "guest", "srp_initiator.sh")


def read(path):
    with open(path) as f:
        return f.read()


# The cases in the order the script reports them.
CASES = []
for _ch in (1, 2):
    CASES.append(f"srp_login_ch_count_{_ch}_finds_one_disk_of_the_lun_size")
    CASES += [f"srp_dd_{b}_blocks_ch_count_{_ch}" for b in ("512b", "4k", "128k", "1m")]
    if _ch == 2:
        CASES += ["srp_ext4_mkfs_mount_write_remount_verify",
                  "srp_read_past_the_end_fails_quickly_with_lba_out_of_range",
                  "srp_target_disconnect_mid_io_then_reconnect_resumes_io"]
    CASES.append(f"srp_logout_ch_count_{_ch}_leaves_nothing_alive")
CASES += ["srp_rdma_link_delete_mid_io_ends_cleanly",
          "srp_unload_cmkit_with_live_initiator_ends_cleanly",
          "srp_lun_size_follows_srpt_lun_mib"]

# Every leg runs the suite: cmkit's own kernels and Debian's (the stock legs).
LEGS = ("6.1", "6.12", "7.3", "6.12-debug", "stock-6.1", "stock-6.12")


def ktap(failures=None, upto=None):
    """The suite's KTAP as the script prints it: diagnostics after the plan,
    then one line per case (@failures: {case: reason}), cut to the first
    @upto cases (a suite that reported fewer)."""
    failures = failures or {}
    cases = CASES[:upto] if upto else CASES
    out = ["KTAP version 1", "1..1", "    KTAP version 1", f"    # Subtest: {SUITE}",
           f"    1..{len(cases)}",
           "    # add_target id_ext=0002c9030005f34a,ioc_guid=0002c9030005f34a,"
           "dest=10.77.0.1:5555,ch_count=1: exit 0 in 2.1 s",
           "    # port-2:1 (host2) 2:0:0:0 sda: CMKIT RAM DISK, 65536 sectors"]
    out += [f"    # {c}: {r}" for c, r in failures.items()]
    for i, c in enumerate(cases, 1):
        if c in failures:
            out.append(f"    not ok {i} {c} # {failures[c]}")
        else:
            out.append(f"    ok {i} {c}")
    out.append(f"{'not ok' if failures else 'ok'} 1 {SUITE}")
    return "\n".join(out) + "\n"


class Verdicts(Base):
    def judge(self, block, leg="6.12", console=CLEAN, done=True):
        return self.verdict(status_log([(SUITE, block)], done=done), console,
                            expected=read(results.EXPECTED_FILE), leg=leg,
                            patterns=SUITE)

    def test_every_case_passing_passes_with_the_expected_count(self):
        for leg in LEGS:
            with self.subTest(leg=leg):
                v = self.judge(ktap(), leg=leg)
                self.assertEqual(v.problems, [])
                self.assertTrue(v.ok)
                self.assertEqual((v.passed, v.failed, v.skipped), (len(CASES), 0, 0))

    def test_a_removal_skip_fails_every_leg(self):
        # The test kernels carry ib_srp's removal fix (KI-7, 0203): no leg,
        # debug or stock, expects the removal cases to skip.
        out = ktap().replace(f"ok 16 {CASES[15]}",
                             f"ok 16 {CASES[15]} # SKIP ib_srp: srp_remove_work frees the "
                             "SCSI tag set before srp_destroy_qp polls its CQ (KASAN "
                             "use-after-free)")
        self.assertIn("# SKIP", out)
        for leg in ("6.12-debug", "stock-6.12"):
            with self.subTest(leg=leg):
                v = self.judge(out, leg=leg)
                self.assertFalse(v.ok)
                self.assertTrue([p for p in v.problems if CASES[15] in p], v.problems)

    def test_a_failed_login_fails_the_run_with_its_reason(self):
        why = ("add_target id_ext=0002c9030005f34a,ioc_guid=0002c9030005f34a,dest=10.77.0.1:5555,"
               "ch_count=1: 1 sh: write error: No such device")
        failures = {CASES[0]: why}
        failures.update({c: "the ch_count=1 login failed" for c in CASES[1:6]})
        v = self.judge(ktap(failures))
        self.assertFalse(v.ok)
        self.assertEqual((v.passed, v.failed), (len(CASES) - 6, 6))
        failed = {lf.case: lf.reason for lf in v.leaves if lf.status == "FAIL"}
        self.assertIn("No such device", failed.get(CASES[0], ""), failed)

    def test_a_suite_that_reports_fewer_cases_fails(self):
        v = self.judge(ktap(upto=10))
        self.assertFailsWith(v, f"suite {SUITE} reported 10 result(s), fewer than its "
                                f"minimum {len(CASES)}")

    def test_a_crash_in_the_suite_is_named_after_its_last_result(self):
        console = CLEAN + (f"[   50.0]     KTAP version 1\n[   50.0]     # Subtest: {SUITE}\n"
                           f"[   52.0]     ok 1 {CASES[0]}\n"
                           f"[   52.5]     ok 2 {CASES[1]}\n"
                           "[   53.0] BUG: kernel NULL pointer dereference, address: 08\n"
                           "[   53.1] Kernel panic - not syncing: Fatal exception\n")
        v = self.judge(None, console=console, done=False)
        self.assertFailsWith(v, f"in case {SUITE}.case_3_after_{CASES[1]}")

    def test_a_watchdog_in_the_suite_fails_the_run(self):
        status = status_log([(SUITE, None)], done=False, extra=[
            f"CMKIT error suite {SUITE} timed out after 300 s"])
        v = self.verdict(status, expected=read(results.EXPECTED_FILE), patterns=SUITE)
        self.assertFailsWith(v, f"suite {SUITE}: timed out after 300 s")


class Expectations(unittest.TestCase):
    def entries(self, kind):
        return [e for e in results.read_expected() if e.kind == kind and
                (e.target == SUITE or e.target.startswith(SUITE + "."))]

    def test_expected_on_every_leg_the_stock_ones_included(self):
        for leg in LEGS:
            with self.subTest(leg=leg):
                self.assertEqual(len([e for e in self.entries("suite") if e.applies(leg)]), 1)

    def test_the_minimum_is_every_case(self):
        for e in self.entries("suite"):
            self.assertEqual(e.value, len(CASES), e.legs)

    def test_the_stock_legs_expect_no_skip(self):
        # Nothing in the suite needs siw, fault injection or KUnit; the
        # two cases ib_srp's removal bug skips on a debug leg run there.
        for leg in ("stock-6.1", "stock-6.12"):
            with self.subTest(leg=leg):
                self.assertEqual([e.target for e in self.entries("skip") if e.applies(leg)], [])

    def test_the_script_reports_these_cases(self):
        script = read(SCRIPT)
        # The script's case names, its ${ch} / ${1} / $1 / ${2} filled in as
        # its main loop calls them.
        templates = re.findall(r"^\s*name=(srp_\S+)$", script, re.M)
        made = set()
        for t in templates:
            for ch in ("1", "2"):
                for label in ("512b", "4k", "128k", "1m"):
                    made.add(t.replace("${ch}", ch).replace("${1}", ch).replace("${2}", label)
                             .replace("$1", ch))
        for c in CASES:
            self.assertIn(c, made)
        self.assertEqual(len(set(CASES)), len(CASES))


class Plumbing(unittest.TestCase):
    def test_init_runs_the_suite_on_every_leg_last(self):
        init = read(os.path.join(TOP, "scripts", "guest", "init"))
        listing = init[init.index("list_suites() {"):]
        listing = listing[:listing.index("\n}\n")]
        stock, _, own = listing.partition("insmod $MODS/cmkit_test.ko")
        for part in (stock, own):
            suites = re.search(r"for s in ([^;]*);", part).group(1).split()
            self.assertEqual(suites[-1], SUITE, part)
        self.assertIn(f"{SUITE}) run_srp_initiator ;;", init)
        self.assertIn("sh /usr/lib/cmkit/srp_initiator.sh", init)

    def test_a_stock_guest_loads_debians_ib_srp_sd_and_ext4(self):
        # What the suite needs that Debian builds as modules; scsi_mod,
        # scsi_transport_srp's and ext4's own dependencies come by
        # modules.dep (tests/test_stock.py), crc32c by name (a softdep).
        for mod in ("ib_srp", "sd_mod", "ext4", "crc32c_generic"):
            self.assertIn(mod, stock.MODULES)

    def test_a_guest_without_ib_srp_fails_the_logins_saying_so(self):
        script = read(SCRIPT)
        srp_add = script[script.index("srp_add() {"):]
        srp_add = srp_add[:srp_add.index("\n}\n")]
        self.assertIn("[ ! -d /sys/module/ib_srp ]", srp_add)
        self.assertIn('why="ib_srp is not loaded', srp_add)

    def test_the_initramfs_carries_the_script_and_its_tools(self):
        self.assertIn(SCRIPT, mkinitramfs.GUEST_SCRIPTS)
        for tool in ("/usr/sbin/mke2fs", "/usr/sbin/e2fsck", "/usr/bin/sg_raw"):
            self.assertIn(tool, mkinitramfs.BINARIES)
            self.assertIn(os.path.basename(tool), read(SCRIPT))
        self.assertIn("/etc/mke2fs.conf", mkinitramfs.DATA)
        pkgs = read(os.path.join(TOP, "scripts", "packages.txt")).split()
        self.assertIn("e2fsprogs", pkgs)
        self.assertIn("sg3-utils", pkgs)


if __name__ == "__main__":
    unittest.main()
