#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""cmkit's lint verdicts, for `make checkpatch` and make test's lint check.

    lint.py checkpatch OUT   judge checkpatch's --terse output OUT (a file)
                             against scripts/checkpatch-exceptions.txt:
                             exit 1 on a finding not excepted (or beyond its
                             count) and on an exception that matches nothing

Findings not excepted are written to OUT.findings, one per line.
"""
import collections
import os
import re
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXCEPTIONS = os.path.join(TOP, "scripts", "checkpatch-exceptions.txt")
FINDING = re.compile(r"^(\S+):(\d+): (ERROR|WARNING|CHECK):([A-Z0-9_]+): (.*)$")


def read_exceptions(path=EXCEPTIONS):
    """{(file, type): (count, why)}."""
    out = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            words = line.split(None, 3)
            if len(words) < 4 or not words[2].isdigit():
                raise ValueError(f"{path}:{n}: want '<file> <TYPE> <count> <why>'")
            out[(words[0], words[1])] = (int(words[2]), words[3])
    return out


def judge(text, exceptions):
    """(findings not excepted, stale exceptions as strings)."""
    seen = collections.defaultdict(list)
    for line in text.splitlines():
        m = FINDING.match(line)
        if m:
            seen[(m.group(1), m.group(4))].append(line)
    bad, stale = [], []
    for key, lines in sorted(seen.items()):
        allowed = exceptions.get(key, (0, ""))[0]
        if len(lines) > allowed:
            bad += lines if not allowed else [
                f"{l}  (scripts/checkpatch-exceptions.txt allows {allowed})" for l in lines]
    for key, (count, _) in sorted(exceptions.items()):
        if len(seen.get(key, [])) < count:
            stale.append(f"{key[0]} {key[1]}: excepted {count}, found "
                         f"{len(seen.get(key, []))} (lower the count or drop the line)")
    return bad, stale


def main(argv):
    if len(argv) != 3 or argv[1] != "checkpatch":
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[2]
    with open(out) as f:
        text = f.read()
    exceptions = read_exceptions()
    bad, stale = judge(text, exceptions)
    with open(out + ".findings", "w") as f:
        f.write("".join(l + "\n" for l in bad + stale))
    for l in bad + stale:
        print(l)
    if bad or stale:
        print(f"checkpatch: {len(bad)} finding(s), {len(stale)} stale exception(s) "
              f"(list: {os.path.relpath(out, TOP)}.findings)")
        return 1
    kept = sum(c for c, _ in exceptions.values())
    print(f"checkpatch: clean ({kept} kept on purpose, each with its reason in "
          "scripts/checkpatch-exceptions.txt)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
