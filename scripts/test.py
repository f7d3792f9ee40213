#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""cmkit's test command (make test): host checks, then KUnit on each kernel.

    test.py [--kernels "6.1 6.12 7.3 6.12-debug stock-6.1 stock-6.12"]
            [--suites GLOB] [--no-debug] [--no-stock] [--host-only]

Host checks need no kernel: every include/cmkit/ header compiles alone as C
(gnu11) and as C++ (c++17) with -Wall -Wextra -Werror, and twice in one unit;
the GoogleTest binary in tests/ passes; each libFuzzer target in tests/fuzz/
replays its regression corpus and runs for a few seconds clean; the
harness's own tests pass.  Then
each kernel of the matrix is built (or taken from the cache) and booted.
Ends with "N passed, N failed, N skipped" over everything and exits non-zero
on any failure.
"""

import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel  # noqa: E402
import results  # noqa: E402
import run  # noqa: E402

TOP = kernel.TOP
HOST_OUT = os.path.join(TOP, "build", "host")


def say(msg):
    print(f"[test] {msg}", flush=True)


# Each host check returns [(name, status, message)], status PASS or FAIL.

def header_checks():
    """The standalone-header checks."""
    cases = []
    inc = os.path.join(TOP, "include")
    headers = sorted(glob.glob(os.path.join(inc, "cmkit", "*.h")))
    flags = ["-Wall", "-Wextra", "-Werror", "-fsyntax-only", f"-I{inc}"]
    for h in headers:
        rel = os.path.relpath(h, inc)
        once = f'#include "{rel}"\n'
        checks = [
            (f"{rel} alone as C", ["gcc", "-std=gnu11", "-x", "c"], once),
            (f"{rel} alone as C++", ["g++", "-std=c++17", "-x", "c++"], once),
            (f"{rel} twice as C", ["gcc", "-std=gnu11", "-x", "c"], once * 2),
            (f"{rel} twice as C++", ["g++", "-std=c++17", "-x", "c++"], once * 2),
        ]
        for name, cc, src in checks:
            r = subprocess.run(cc + flags + ["-"], input=src, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if r.returncode == 0:
                cases.append((name, "PASS", ""))
            else:
                cases.append((name, "FAIL", r.stdout))
                print(r.stdout)
    return cases


def gtest():
    r = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "tests")])
    if r.returncode != 0:
        return [("build tests/", "FAIL", "building tests/ failed")]
    out = tempfile.mktemp(suffix=".json")
    subprocess.run([os.path.join(HOST_OUT, "cmkit_host_tests"),
                    f"--gtest_output=json:{out}"])
    try:
        data = json.load(open(out))
    except (OSError, ValueError):
        return [("run", "FAIL", "the GoogleTest binary wrote no results")]
    os.unlink(out)
    cases = []
    for s in data["testsuites"]:
        for t in s["testsuite"]:
            fails = t.get("failures")
            cases.append((f"{s['name']}.{t['name']}", "FAIL" if fails else "PASS",
                          "\n".join(f.get("failure", "") for f in fails or [])))
    return cases


def fuzz_checks():
    """Each libFuzzer target replays its regressions and runs a bounded time."""
    r = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "tests", "fuzz"), "check"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = [l for l in r.stdout.splitlines() if l.startswith("fuzz ")]
    cases = [(l.split()[1], "PASS" if l.endswith(" ok") else "FAIL", l) for l in lines]
    if r.returncode != 0 or not lines:
        print(r.stdout[-3000:])
        cases.append(("build", "FAIL", "building the fuzz targets failed"))
    return cases


def harness_tests():
    """Python unittest of scripts/ (the verdict logic), each test named."""
    import unittest
    sys.path.insert(0, os.path.join(TOP, "tests"))
    suite = unittest.defaultTestLoader.discover(os.path.join(TOP, "tests"),
                                                pattern="test_*.py")

    class Result(unittest.TextTestResult):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.passed = []

        def addSuccess(self, test):
            super().addSuccess(test)
            self.passed.append(test)

    res = unittest.TextTestRunner(verbosity=1, resultclass=Result).run(suite)
    cases = [(t.id(), "PASS", "") for t in res.passed]
    cases += [(t.id(), "FAIL", tb) for t, tb in res.failures + res.errors]
    cases += [(t.id(), "SKIP", why) for t, why in res.skipped]
    return cases


def lint_checks(kver):
    """checkpatch --strict, a W=1 build and a C=2 (sparse) build of cmkit's
    own files against @kver's test kernel: each kept at zero findings (what
    checkpatch keeps on purpose is in scripts/checkpatch-exceptions.txt)."""
    cases = []
    for target, name in (("checkpatch", "checkpatch --strict"),
                         ("warnings", "W=1 build"), ("sparse", "sparse (C=2) build"),
                         ("symbols", "cmkit_ symbol names")):
        r = subprocess.run(["make", "--no-print-directory", "-C", TOP, target, f"KVER={kver}"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        last = (r.stdout.strip().splitlines() or [""])[-1]
        if r.returncode == 0:
            cases.append((f"{name} ({kver})", "PASS", last))
        else:
            print(r.stdout[-4000:])
            cases.append((f"{name} ({kver})", "FAIL", r.stdout[-4000:]))
    return cases


def kunitpy_checks(kver):
    """kunit/pure/'s device-free suites under @kver's tree's own kunit.py
    (scripts/kunitpy.py): one case per KUnit case or parameter."""
    import kunitpy
    try:
        rc, text, out, secs = kunitpy.run(kver)
    except Exception as e:      # a broken overlay or a missing tree fails the group
        return [("kunit.py run", "FAIL", f"scripts/kunitpy.py: {e!r}")]
    say(f"kunit.py: {secs:.0f} s (build/logs/kunitpy-{kver}.log)")
    return kunitpy.results(text, rc, out)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default=" ".join(kernel.MATRIX))
    ap.add_argument("--suites", default="*")
    ap.add_argument("--host-only", action="store_true")
    ap.add_argument("--no-debug", action="store_true", help="drop the debug legs")
    ap.add_argument("--no-stock", action="store_true",
                    help="drop the stock legs (Debian's own kernels)")
    args = ap.parse_args(argv[1:])
    legs = args.kernels.replace(",", " ").split()
    if args.no_debug:
        legs = [k for k in legs if not kernel.leg(k).debug]
    if args.no_stock:
        legs = [k for k in legs if not kernel.leg(k).stock]
    args.kernels = " ".join(legs)

    lines, totals, ok, groups = [], [0, 0, 0], True, []

    def account(label, cases):
        nonlocal ok
        passed = sum(1 for c in cases if c[1] == "PASS")
        failed = sum(1 for c in cases if c[1] == "FAIL")
        skipped = sum(1 for c in cases if c[1] == "SKIP")
        for name, status, _ in cases:
            if status == "FAIL":
                say(f"FAIL: {label}: {name}")
        lines.append(f"host {label} passed={passed} failed={failed} skipped={skipped}")
        say(lines[-1])
        totals[0] += passed
        totals[1] += failed
        totals[2] += skipped
        ok = ok and failed == 0
        groups.append((f"host.{label}", f"host.{label}",
                       [(n, st, msg.splitlines()[0] if msg else "", msg, None)
                        for n, st, msg in cases]))

    say("host: shared headers as C and C++")
    account("headers", header_checks())
    say("host: GoogleTest (tests/)")
    account("gtest", gtest())
    say("host: fuzz targets (tests/fuzz/): regressions replayed, bounded runs")
    account("fuzz", fuzz_checks())
    stock_legs = [k for k in legs if kernel.leg(k).stock]
    if not args.host_only and stock_legs:
        # Downloads only (no machine lock): the harness's DKMS test builds
        # the repo against these headers, and must not skip in make test.
        import stock
        for kver in stock_legs:
            t0 = time.time()
            stock.ensure(kernel.leg(kver))
            say(f"{kver}: Debian's kernel and headers ready in {time.time() - t0:.1f} s")
    say("host: harness self-tests (tests/test_*.py)")
    account("harness", harness_tests())
    if not args.host_only and not ok:
        # The host checks need no kernel and ran first: a broken one fails
        # the run in minutes, before any kernel is built or booted.
        say("FAIL: a host check failed; no kernel built, no guest booted")
        args.host_only = True
    if not args.host_only:
        # Then the kernels, all of them before any guest: no guest boots
        # while a kernel builds (lint and kunit.py need the 6.12 tree too).
        for kver in args.kernels.replace(",", " ").split():
            t0 = time.time()
            kernel.ensure(kver)
            say(f"{kver}: kernel ready in {time.time() - t0:.1f} s")
    plain = [k for k in args.kernels.replace(",", " ").split()
             if not kernel.leg(k).debug and not kernel.leg(k).stock]
    if not args.host_only and plain:
        kver = "6.12" if "6.12" in plain else plain[0]
        say(f"host: lint of cmkit's sources against {kver} (checkpatch, W=1, sparse)")
        account("lint", lint_checks(kver))
    if not args.host_only and "6.12" in plain:
        say("host: kunit/pure/ suites under the 6.12 tree's kunit.py (UML)")
        account("kunit.py", kunitpy_checks("6.12"))

    xfails = []
    if not args.host_only:
        def leg_ended(klines, ktotals, klegs):
            run.write_results(lines + klines, [a + b for a, b in zip(totals, ktotals)],
                              klegs, groups)

        klines, ktotals, kok, legs = run.cmd_test(argparse.Namespace(
            kernels=args.kernels, suites=args.suites), on_leg=leg_ended)
        lines += klines
        totals = [a + b for a, b in zip(totals, ktotals)]
        ok = ok and kok
        xfails = [v.xfail for _, v in legs if v.xfail]
        for leg, v in legs:
            groups += results.junit_groups_for_leg(leg, v)

    final = run.write_summary(lines, totals, xfails)
    junit = run.write_junit(groups)
    print("\n".join(lines))
    if not args.host_only:
        # Why each failed leg failed, again beside the summary and after it:
        # a log's tail (all CI keeps) must say it without the output above.
        for line in run.failure_recap(legs):
            say(line)
    if totals[0] == 0:
        ok = False
        say("FAIL: no test ran")
    say(f"JUnit: {os.path.relpath(junit, TOP)}")
    print(final)
    return 0 if ok else 1


if __name__ == "__main__":
    with kernel.tree_lock():
        sys.exit(main(sys.argv))
