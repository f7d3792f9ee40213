#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""cmkit's test command (make test): host checks, then KUnit on each kernel.

    test.py [--kernels "6.1 6.12 7.3 6.12-debug"] [--suites GLOB] [--no-debug]
            [--host-only]

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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel  # noqa: E402
import run  # noqa: E402

TOP = kernel.TOP
HOST_OUT = os.path.join(TOP, "build", "host")


def say(msg):
    print(f"[test] {msg}", flush=True)


def header_checks():
    """(passed, failed, names of failures) for the standalone-header checks."""
    passed, failed = 0, []
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
                passed += 1
            else:
                failed.append(name)
                print(r.stdout)
    return passed, len(failed), failed


def gtest():
    r = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "tests")])
    if r.returncode != 0:
        return 0, 1, ["building tests/ failed"]
    out = tempfile.mktemp(suffix=".json")
    subprocess.run([os.path.join(HOST_OUT, "cmkit_host_tests"),
                    f"--gtest_output=json:{out}"])
    try:
        data = json.load(open(out))
    except (OSError, ValueError):
        return 0, 1, ["the GoogleTest binary wrote no results"]
    os.unlink(out)
    fails = [f"{s['name']}.{t['name']}" for s in data["testsuites"]
             for t in s["testsuite"] if t.get("failures")]
    return data["tests"] - len(fails), len(fails), fails


def fuzz_checks():
    """Each libFuzzer target replays its regressions and runs a bounded time."""
    r = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "tests", "fuzz"), "check"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines = [l for l in r.stdout.splitlines() if l.startswith("fuzz ")]
    fails = [l for l in lines if not l.endswith(" ok")]
    if r.returncode != 0 or not lines:
        print(r.stdout[-3000:])
        fails.append("building the fuzz targets failed")
    return len(lines) - len([l for l in lines if not l.endswith(" ok")]), len(fails), fails


def harness_tests():
    """Python unittest of scripts/ (the verdict logic), counted."""
    import unittest
    sys.path.insert(0, os.path.join(TOP, "tests"))
    suite = unittest.defaultTestLoader.discover(os.path.join(TOP, "tests"),
                                                pattern="test_*.py")
    res = unittest.TextTestRunner(verbosity=1).run(suite)
    bad = [str(t) for t, _ in res.failures + res.errors]
    skipped = len(res.skipped)
    return res.testsRun - len(bad) - skipped, len(bad), bad, skipped


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernels", default=" ".join(kernel.MATRIX))
    ap.add_argument("--suites", default="*")
    ap.add_argument("--host-only", action="store_true")
    ap.add_argument("--no-debug", action="store_true", help="drop the debug legs")
    args = ap.parse_args(argv[1:])
    legs = args.kernels.replace(",", " ").split()
    if args.no_debug:
        legs = [k for k in legs if not kernel.leg(k).debug]
    args.kernels = " ".join(legs)

    lines, totals, ok = [], [0, 0, 0], True

    def account(label, passed, failed, skipped=0, names=()):
        nonlocal ok
        for n in names:
            say(f"FAIL: {label}: {n}")
        lines.append(f"host {label} passed={passed} failed={failed} skipped={skipped}")
        say(lines[-1])
        totals[0] += passed
        totals[1] += failed
        totals[2] += skipped
        ok = ok and failed == 0

    if not args.host_only:
        # Kernels first: the harness tests use a kernel tree's kunit.py, and no
        # guest boots while a kernel builds.
        for kver in args.kernels.replace(",", " ").split():
            kernel.ensure(kver)

    say("host: shared headers as C and C++")
    p, f, names = header_checks()
    account("headers", p, f, 0, names)
    say("host: GoogleTest (tests/)")
    p, f, names = gtest()
    account("gtest", p, f, 0, names)
    say("host: fuzz targets (tests/fuzz/): regressions replayed, bounded runs")
    p, f, names = fuzz_checks()
    account("fuzz", p, f, 0, names)
    say("host: harness self-tests (tests/test_*.py)")
    p, f, names, s = harness_tests()
    account("harness", p, f, s, names)

    if not args.host_only:
        klines, ktotals, kok = run.cmd_test(argparse.Namespace(
            kernels=args.kernels, suites=args.suites))
        lines += klines
        totals = [a + b for a, b in zip(totals, ktotals)]
        ok = ok and kok

    final = run.write_summary(lines, totals)
    print("\n".join(lines))
    if totals[0] == 0:
        ok = False
        say("FAIL: no test ran")
    print(final)
    return 0 if ok else 1


if __name__ == "__main__":
    with kernel.tree_lock():
        sys.exit(main(sys.argv))
