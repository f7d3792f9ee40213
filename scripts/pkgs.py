#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Debian package names that depend on the release (scripts/setup.sh).

    pkgs.py clang-rt     the compiler-rt package of the installed clang
                         (libFuzzer, ASan, UBSan), e.g. libclang-rt-14-dev on
                         Debian 12, libclang-rt-19-dev on Debian 13

Prints the name, or exits non-zero saying why.
"""

import re
import subprocess
import sys


def clang_major(version_text):
    """The major version in `clang --version`'s first line, or None."""
    m = re.search(r"clang version (\d+)\.", version_text)
    return int(m.group(1)) if m else None


def pick_clang_rt(major, search_output):
    """The libclang-rt-<major>-dev among `apt-cache search --names-only
    '^libclang-rt-[0-9]+-dev$'` lines, or None: the runtime must match the
    compiler, so a newer one does not do."""
    names = {line.split(" - ", 1)[0].strip() for line in search_output.splitlines()}
    want = f"libclang-rt-{major}-dev"
    return want if major is not None and want in names else None


def installed(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return "install ok installed" in r.stdout


def main(argv):
    if argv[1:] != ["clang-rt"]:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        ver = subprocess.run(["clang", "--version"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout
    except OSError:
        print("pkgs.py: clang is not installed", file=sys.stderr)
        return 1
    major = clang_major(ver)
    if major is None:
        print(f"pkgs.py: cannot read clang's version from {ver[:80]!r}", file=sys.stderr)
        return 1
    if installed(f"libclang-rt-{major}-dev"):
        print(f"libclang-rt-{major}-dev")
        return 0
    found = subprocess.run(["apt-cache", "search", "--names-only", r"^libclang-rt-[0-9]+-dev$"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    pkg = pick_clang_rt(major, found)
    if pkg is None:
        print(f"pkgs.py: no libclang-rt-{major}-dev for clang {major} in the archive",
              file=sys.stderr)
        return 1
    print(pkg)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
