# SPDX-License-Identifier: GPL-2.0-only
"""The "parse" subcommand of the kernel's tools/testing/kunit/kunit.py, over
the parser copied beside it (kunit_parser.py, kunit_json.py,
kunit_printer.py from linux-source-6.12 6.12.118-1~deb12u1, unchanged).

    kunit.py parse [--json=PATH] [FILE]

reads KTAP from FILE or stdin, prints kunit.py's report, writes its JSON to
PATH, and exits 1 unless every test passed or skipped: what the kernel's
kunit.py parse does.  scripts/results.py uses it when no kernel tree is
unpacked (make check on a fresh machine), so the harness's verdict tests
need no kernel.
"""

import argparse
import os
import sys

import kunit_json
import kunit_parser
from kunit_printer import stdout


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="subcommand", required=True)
    p = sub.add_parser("parse")
    p.add_argument("--json", nargs="?", const="stdout", default=None)
    p.add_argument("file", nargs="?")
    args = ap.parse_args(argv)
    if args.file is None:
        sys.stdin.reconfigure(errors="backslashreplace")
        lines = sys.stdin
    else:
        with open(args.file, errors="backslashreplace") as f:
            lines = f.read().splitlines()
    test = kunit_parser.parse_run_tests(lines)
    if args.json:
        text = kunit_json.get_json_result(test=test, metadata=kunit_json.Metadata())
        if args.json == "stdout":
            print(text)
        else:
            with open(args.json, "w") as f:
                f.write(text)
            stdout.print_with_timestamp("Test results stored in %s" %
                                        os.path.abspath(args.json))
    ok = (kunit_parser.TestStatus.SUCCESS, kunit_parser.TestStatus.SKIPPED)
    return 0 if test.status in ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
