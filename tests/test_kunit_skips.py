# SPDX-License-Identifier: GPL-2.0-only
"""Skips that are judged (issue 22, item 3), in the test code itself.

- No skip in kunit/*.c rests on a config option or a kernel release alone
  (an IS_ENABLED(CONFIG_...) test just before it, the #else of an
  #ifdef CONFIG_..., utsname(), LINUX_VERSION_CODE), beyond the few listed
  in CONFIG_ONLY, each awaiting its decision; none in scripts/guest/ reads
  the release or the config to decide a skip.
- The fail-nth sweeps never skip: each reaches cmkit_test_require_failslab()
  (which fails the case when failslab is not set up) on every kernel, and
  asserts it injected at least one failure.

Reads the sources only: no kernel, no guest.
"""

import glob
import os
import re
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SKIP_CALL = re.compile(r"\b(cmkit_skip|kunit_skip|kunit_mark_skipped)\s*\(")
# A condition on the kernel's configuration or release, not on what it can do.
CONFIG_OR_RELEASE = re.compile(r"IS_ENABLED\(CONFIG_|IS_BUILTIN\(CONFIG_|IS_MODULE\(CONFIG_|"
                               r"#\s*if.*\bCONFIG_|\butsname\(|\binit_uts_ns\b|"
                               r"LINUX_VERSION_CODE|KERNEL_VERSION\(")
FUNC_START = re.compile(r"^(?:static\s+)?(?:[\w\s\*]+?)\b(\w+)\("
                        r"(?:struct kunit \*test|[^;]*)\)\s*$")

# Config-only skips found by this check (issue 22), each to be decided:
# none left.  The four on CONFIG_FAULT_INJECTION fail instead (every KUnit
# leg has it, kunit/cmkit.config), and irdma_p2p_connects_siw's lockdep
# skip went with KI-9 and KI-10.  {(file, function): why it is kept}.
CONFIG_ONLY = {
}

# The fail-nth sweeps: (file, function, the helpers it may reach failslab through).
SWEEPS = [
    ("kunit/rpcrdma_test.c", "fail_nth_sweep_over_connect_and_disconnect", ()),
    ("kunit/srpt_fault_test.c", "srpt_fail_nth_relayed_login_and_disconnect",
     ("srpt_fail_nth_setup",)),
]


def read(rel):
    with open(os.path.join(TOP, rel)) as f:
        return f.read()


def config_keyed_skips(text):
    """[(line number, function)] of the skip calls in C @text that rest on a
    config option or release: the code line before them tests one, or they
    sit in the #else (or #ifndef) branch of a CONFIG_ conditional."""
    out = []
    stack = []      # per #if: [tests a CONFIG_, in its "not" branch]
    func, prev = None, ""
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        m = FUNC_START.match(line)
        if m and not line.startswith((" ", "\t")):
            func = m.group(1)
        if s.startswith("#"):
            d = re.match(r"#\s*(\w+)(.*)", s)
            word, rest = (d.group(1), d.group(2)) if d else ("", "")
            if word in ("if", "ifdef", "ifndef"):
                stack.append([bool(re.search(r"\bCONFIG_", rest)), word == "ifndef"])
            elif word in ("else", "elif") and stack:
                stack[-1][1] = not stack[-1][1]
            elif word == "endif" and stack:
                stack.pop()
            continue
        if SKIP_CALL.search(line):
            in_not = any(cfg and neg for cfg, neg in stack)
            if in_not or CONFIG_OR_RELEASE.search(prev) or CONFIG_OR_RELEASE.search(line):
                out.append((n, func))
        if s and not s.startswith(("/*", "*")):
            prev = line
    return out


def definitions(text, name):
    """Every body of C function @name in @text (one per preprocessor branch)."""
    bodies = []
    for m in re.finditer(r"^(?:static\s+)?void\s+" + re.escape(name) +
                         r"\(struct kunit \*test\)\n\{\n(.*?)^\}\n", text, re.M | re.S):
        bodies.append(m.group(1))
    return bodies


def branches(body):
    """@body as each kernel compiles it: with the #if branch, then with the
    #else branch (one level of conditionals; a body without #else is one)."""
    m = re.search(r"^#\s*if[^\n]*\n(.*?)^#\s*else[^\n]*\n(.*?)^#\s*endif[^\n]*\n", body,
                  re.M | re.S)
    if not m:
        return [body]
    pre, post = body[:m.start()], body[m.end():]
    return [pre + m.group(1) + post, pre + m.group(2) + post]


class ConfigOnlySkips(unittest.TestCase):
    def test_the_scan_finds_what_it_must(self):
        text = ("static void a(struct kunit *test)\n{\n"
                "\tif (!IS_ENABLED(CONFIG_X))\n\t\tcmkit_skip(test, \"no X\");\n}\n"
                "#ifdef CONFIG_Y\nvoid b(struct kunit *test)\n{\n\tgo(test);\n}\n#else\n"
                "void b(struct kunit *test)\n{\n\tkunit_skip(test, \"no Y\");\n}\n#endif\n"
                "static void c(struct kunit *test)\n{\n"
                "\tif (strncmp(utsname()->release, \"6.1\", 3) == 0)\n"
                "\t\tcmkit_skip(test, \"6.1\");\n}\n"
                "static void d(struct kunit *test)\n{\n"
                "\tdev = cmkit_get_device(p);\n\tif (!dev)\n"
                "\t\tcmkit_skip(test, \"no RDMA device named %s\", n);\n}\n")
        self.assertEqual([f for _, f in config_keyed_skips(text)], ["a", "b", "c"])

    def test_no_skip_rests_on_a_config_option_or_release_alone(self):
        found = {}
        for path in sorted(glob.glob(os.path.join(TOP, "kunit", "*.c"))):
            rel = os.path.relpath(path, TOP)
            for n, func in config_keyed_skips(read(rel)):
                found.setdefault((rel, func), []).append(n)
        new = {k: v for k, v in found.items() if k not in CONFIG_ONLY}
        self.assertEqual(new, {}, "a skip on a config option or release alone: test for "
                                  "what the kernel can do, or fail")
        gone = [k for k in CONFIG_ONLY if k not in found]
        self.assertEqual(gone, [], "fixed: drop it from CONFIG_ONLY")

    def test_no_guest_script_skips_on_the_release_or_config(self):
        for path in sorted(glob.glob(os.path.join(TOP, "scripts", "guest", "*"))):
            lines = read(os.path.relpath(path, TOP)).splitlines()
            for i, line in enumerate(lines):
                if not re.match(r"\s*(skip|siw_absent)\s", line):
                    continue
                guard = "\n".join(lines[max(0, i - 6):i + 1])
                with self.subTest(file=os.path.basename(path), line=i + 1):
                    self.assertNotRegex(guard, r"uname\s+-r|/proc/config|/boot/config|"
                                               r"\bDEBUG\b|\bKVER\b")


class FailNthSweeps(unittest.TestCase):
    def test_each_sweep_fails_without_failslab_and_asserts_an_injection(self):
        for rel, name, helpers in SWEEPS:
            text = read(rel)
            bodies = definitions(text, name)
            with self.subTest(sweep=name):
                self.assertTrue(bodies, f"{name} not found in {rel}")
                self.assertTrue(any(re.search(r"KUNIT_ASSERT_GT(_MSG)?\(test, \w+, 0U", b)
                                    for b in bodies), "no assertion that it injected")
                for body in [b for d in bodies for b in branches(d)]:
                    self.assertIsNone(SKIP_CALL.search(body), f"{name} skips:\n{body}")
                    reach = "cmkit_test_require_failslab(test)" in body or any(
                        re.search(r"\b" + h + r"\(test\b", body) and
                        "cmkit_test_require_failslab(test)" in
                        text[text.index(f"{h}(struct kunit *test)"):]
                        .split("\n}\n", 1)[0] for h in helpers)
                    self.assertTrue(reach, f"{name} does not reach "
                                           f"cmkit_test_require_failslab():\n{body}")

    def test_require_failslab_fails_rather_than_skips(self):
        main = read("kunit/main.c")
        body = main[main.index("void cmkit_test_require_failslab(struct kunit *test)"):]
        body = body[:body.index("\n}\n")]
        self.assertIn("KUNIT_ASSERT_TRUE_MSG", body)
        self.assertIn("IS_ENABLED(CONFIG_FAILSLAB) && failslab_ready", body)
        self.assertIsNone(SKIP_CALL.search(body))


if __name__ == "__main__":
    unittest.main()
