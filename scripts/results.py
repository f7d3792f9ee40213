#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn what a guest printed into a verdict.

The guest writes status lines and each suite's debugfs KTAP to its second
serial port (see scripts/guest/init).  This module assembles one KTAP
document from the suites, has the kernel tree's own kunit.py parse it (text
and --json), counts the leaf tests, and scans the kernel console for splats.
Everything that decides pass or fail lives here, so tests/test_harness.py can
feed it canned failures.
"""

import json
import os
import re
import subprocess
import sys

# Console lines that fail a run whatever the tests said.
SPLAT_PATTERNS = [
    (r"\bBUG: ", "BUG"),
    (r"\bWARNING: ", "WARNING"),
    (r"\bKASAN: ", "KASAN"),
    (r"\bUBSAN: ", "UBSAN"),
    (r"general protection fault", "general protection fault"),
    (r"\brefcount_t: ", "refcount_t"),
    (r"possible (circular|recursive) locking", "lockdep"),
    (r"inconsistent lock state|suspicious RCU usage|lockdep is turned off|"
     r"INFO: trying to register non-static key", "lockdep"),
    (r"Kernel panic", "panic"),
    (r"\bOops\b", "oops"),
    (r"INFO: task .* blocked for more than", "hung task"),
    (r"rcu: INFO: .* stall", "rcu stall"),
]
_SPLAT_RE = [(re.compile(p), name) for p, name in SPLAT_PATTERNS]


# Kernel bugs outside cmkit that crash a guest now and then.  A run that
# fails with one of these signatures on that kernel boots once more (and
# says so); a second failure stands.  Each entry: (id, kernel, regex, what).
KNOWN_ISSUES = [
    ("KI-1", "7.3", r"^\[[\s\d.]+\]\s+free_gid_work\+",
     "7.3.4: NULL dereference in free_gid_work() when a RoCE GID entry is put "
     "after its device was released (rxe0 removed and re-added in a test)"),
]


def known_issue(kver, console_text):
    """The id of the known kernel issue the console shows, or None."""
    for ident, kernel, rx, _ in KNOWN_ISSUES:
        if kernel == kver and re.search(rx, console_text, re.M):
            return ident
    return None


def scan_splats(console_text):
    """Return [(kind, line)] for every console line that is a kernel splat."""
    hits = []
    for line in console_text.splitlines():
        for rx, name in _SPLAT_RE:
            if rx.search(line):
                hits.append((name, line.strip()))
                break
    return hits


class GuestReport:
    """What the guest said on its status port."""

    def __init__(self, text):
        self.init_seen = False
        self.done = False
        self.suites = []          # announced, in order
        self.blocks = {}          # suite -> KTAP text
        self.rcs = {}             # suite -> insmod exit status
        self.errors = []          # "CMKIT error ..." lines
        self.traces = []          # "CMKIT trace ..." lines (run mode)
        self.story = []           # "CMKIT story ..." lines (run mode)
        self.klogs = {}           # suite -> the kernel log while it ran
        current, lines, end = None, [], None
        for raw in text.splitlines():
            line = raw.rstrip("\r")
            if current is not None and not line.startswith(end):
                lines.append(line)
                continue
            if current is not None and line.startswith("CMKIT klog-end "):
                self.klogs[current] = "\n".join(lines) + "\n"
                current = None
                continue
            if not line.startswith("CMKIT "):
                continue
            words = line.split()
            kind = words[1] if len(words) > 1 else ""
            if kind == "init":
                self.init_seen = True
            elif kind == "suites":
                self.suites = words[2:]
            elif kind == "begin" and len(words) > 2:
                current, lines, end = words[2], [], "CMKIT end "
            elif kind == "klog" and len(words) > 2:
                current, lines, end = words[2], [], "CMKIT klog-end "
            elif kind == "end" and len(words) > 2:
                if current is not None:
                    self.blocks[current] = "\n".join(lines) + "\n"
                    self.rcs[current] = int(words[3]) if len(words) > 3 else -1
                current = None
            elif kind == "error":
                self.errors.append(" ".join(words[2:]))
            elif kind == "story":
                self.story.append(line[len("CMKIT story "):])
            elif kind == "trace":
                self.traces.append(line[len("CMKIT trace "):])
            elif kind == "done":
                self.done = True


_TOP_RESULT = re.compile(r"^(not ok|ok) \d+(.*)$")


def suite_ktap(block, number):
    """A suite's debugfs results as a top-level KTAP subtest numbered @number.

    Newer kernels print a document header ("KTAP version 1", "1..1") before
    the suite; older ones do not.  The header is dropped and the suite's own
    top-level result line renumbered.
    """
    out = []
    for line in block.splitlines():
        if line.startswith("KTAP version") or line.startswith("TAP version") or \
                re.match(r"^1\.\.\d+$", line):
            continue
        m = _TOP_RESULT.match(line)
        if m:
            line = f"{m.group(1)} {number}{m.group(2)}"
        out.append(line)
    return out


_CASE_TOTALS = re.compile(r"^\s+# (\S+): pass:\d+ fail:\d+ skip:\d+ total:\d+")
_KLOG_PREFIX = re.compile(r"^\[\s*\d+\.\d+\] ")


def lossy(block):
    """True for a debugfs copy that lost parameterised results.

    Older kernels (6.1) keep only the last parameter's line of a
    parameterised case in debugfs, without its subtest header.
    """
    names = {m.group(1) for m in map(_CASE_TOTALS.match, block.splitlines()) if m}
    return any(f"# Subtest: {n}" not in block for n in names)


def klog_ktap(klog, suite):
    """The suite's KTAP as the kernel log printed it, prefixes stripped."""
    out, inside = [], False
    for raw in klog.splitlines():
        line = _KLOG_PREFIX.sub("", raw)
        if not inside and line.strip() == f"# Subtest: {suite}":
            inside = True
            out.append("    KTAP version 1")
        if inside:
            out.append(line)
            if _TOP_RESULT.match(line) and line.rstrip().endswith(f" {suite}"):
                break
    return "\n".join(out) + "\n"


def assemble_ktap(report):
    """One KTAP document for every announced suite; a missing one is 'not ok'.

    Each suite comes from its debugfs results; where those are lossy (see
    lossy()), from the kernel log the guest captured while it ran.
    """
    lines = ["KTAP version 1", f"1..{len(report.suites)}"]
    for i, suite in enumerate(report.suites, 1):
        block = report.blocks.get(suite, "")
        if lossy(block) and suite in report.klogs:
            block = klog_ktap(report.klogs[suite], suite)
        if not _has_top_result(block):
            why = "no results (guest crashed or hung?)" if suite not in report.blocks \
                else "results incomplete"
            lines.append(f"not ok {i} {suite} # {why}")
            continue
        lines.extend(suite_ktap(block, i))
    return "\n".join(lines) + "\n"


def _has_top_result(block):
    return any(_TOP_RESULT.match(l) for l in block.splitlines())


def kunit_parse(kunit_py, ktap_path, json_path):
    """Run kunit.py parse on ktap_path; return (exit code, text output)."""
    with open(ktap_path) as f:
        r = subprocess.run([sys.executable, kunit_py, "parse", f"--json={json_path}"],
                           stdin=f, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, cwd=os.path.dirname(kunit_py))
    return r.returncode, r.stdout


def count_json(json_path):
    """Count leaf test cases in kunit.py's JSON: (passed, failed, skipped)."""
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0}

    def walk(group):
        for case in group.get("test_cases", []):
            counts[case.get("status", "ERROR")] = counts.get(case.get("status"), 0) + 1
        for sub in group.get("sub_groups", []):
            walk(sub)

    walk(json.load(open(json_path)))
    return counts["PASS"], counts["FAIL"] + counts["ERROR"], counts["SKIP"]


def lost_param_skips(ktap):
    """Parameter results that skipped without saying so.

    6.1's KUnit prints a skipped parameter as plain "ok N <param>", without
    the SKIP directive, so kunit.py counts it as passed; the case's own
    totals line ("# case: pass:1 fail:0 skip:1 total:2") still has it.
    Returns how many such skips the totals report beyond the directives.
    """
    totals = directives = 0
    for line in ktap.splitlines():
        m = re.match(r"^    # \S+: pass:\d+ fail:\d+ skip:(\d+) total:\d+", line)
        if m:
            totals += int(m.group(1))
        elif re.match(r"^        ok \d+ .*# SKIP", line):
            directives += 1
    return max(0, totals - directives)


class Verdict:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.problems = []

    @property
    def ok(self):
        return not self.problems and self.failed == 0


def judge(report, console_text, kunit_rc, counts, hung, powered_off):
    """Everything that fails a kernel's run, as a Verdict."""
    v = Verdict()
    v.passed, v.failed, v.skipped = counts
    if hung:
        v.problems.append("guest hung (killed at the timeout)")
    elif not powered_off:
        v.problems.append("guest did not power off")
    if not report.init_seen:
        v.problems.append("guest never reached /init")
    if not report.suites:
        v.problems.append("guest announced no suites")
    for suite in report.suites:
        if suite not in report.blocks:
            v.problems.append(f"suite {suite}: no results")
        elif report.rcs.get(suite, 0) != 0:
            v.problems.append(f"suite {suite}: insmod exited {report.rcs[suite]}")
    for e in report.errors:
        v.problems.append(f"guest: {e}")
    if not report.done and not hung:
        v.problems.append("guest did not finish its script")
    for kind, line in scan_splats(console_text):
        v.problems.append(f"kernel splat ({kind}): {line}")
    if kunit_rc != 0 and v.failed == 0:
        v.problems.append(f"kunit.py parse exited {kunit_rc}")
    return v
