#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""cmkit's lint verdicts, for `make checkpatch` and make test's lint check.

    lint.py symbols KO       fail on a global symbol of KO (nm) that is not
                             cmkit_* or one of the three handlers
    lint.py checkpatch OUT   judge checkpatch's --terse output OUT (a file)
                             against scripts/checkpatch-exceptions.txt:
                             exit 1 on a finding not excepted (or beyond its
                             count) and on an exception that matches nothing

Findings not excepted are written to OUT.findings, one per line.
"""
import collections
import os
import re
import subprocess
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


# The three handlers keep their upstream names; everything else cmkit.ko
# defines globally starts with cmkit_.  Symbols the kernel's own macros make
# are judged by the name they are made from (a tracepoint's event name).
HANDLERS = ("rpcrdma_cm_event_handler", "irdma_cm_event_handler", "srpt_cm_handler")
GENERATED_PREFIXES = ("__tracepoint_", "__traceiter_", "__SCK__tp_func_", "__SCT__tp_func_",
                      "__probestub_", "__kstrtab_", "__kstrtabns_", "__ksymtab_",
                      "__export_symbol_", "__cmkit_")
MODULE_SYMBOLS = ("__this_module", "init_module", "cleanup_module",
                  "__start_alloc_tags", "__stop_alloc_tags")


def judge_symbols(nm_text):
    """Global symbols in `nm` output that are neither cmkit_* nor a handler."""
    bad = []
    for line in nm_text.splitlines():
        parts = line.split()
        if len(parts) != 3 or not parts[1].isupper() or parts[1] == "U":
            continue
        name = parts[2]
        if name in HANDLERS or name in MODULE_SYMBOLS:
            continue
        for prefix in GENERATED_PREFIXES:
            if name.startswith(prefix):
                name = ("cmkit_" if prefix == "__cmkit_" else "") + name[len(prefix):]
                break
        if not name.startswith("cmkit_") and name not in HANDLERS:
            bad.append(parts[2])
    return sorted(set(bad))


def main(argv):
    if len(argv) == 3 and argv[1] == "symbols":
        nm = subprocess.run(["nm", argv[2]], stdout=subprocess.PIPE, text=True, check=True)
        bad = judge_symbols(nm.stdout)
        for name in bad:
            print(f"{argv[2]}: global symbol outside cmkit_* and the three handlers: {name}")
        if bad:
            return 1
        print(f"symbols: clean (every global symbol of {os.path.basename(argv[2])} is cmkit_* "
              "or one of the three handlers)")
        return 0
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
