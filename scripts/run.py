#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Boot cmkit's test guest in QEMU and collect what it did.

    run.py test  [--kernels 6.1,6.12,7.3] [--suites GLOB]   KUnit on each kernel
    run.py run   [--kernel 6.12]                             the main job (make run)
    run.py shell [--kernel 6.12]                             a shell in the guest
    run.py repro --ki N [--kernel 6.12]                      a kernel bug's reproduction
                                                             without cmkit (make ki-repro)

Per kernel: build cmkit.ko and cmkit_test.ko against the cached kernel, pack
them into the initramfs, boot with no network device to the host, read the
guest's status port, parse KTAP with the kernel's own kunit.py, scan the
console for splats.  Results land in build/results/<kernel-release>/ (make
run's in build/results/run/), build/results/summary.txt and junit.xml.
Environment: CMKIT_ACCEL=kvm|tcg skips the KVM probe, CMKIT_ACCEL=probe
forces a new one (its verdict is otherwise remembered per machine, under the
cache); CMKIT_TIMEOUT (seconds, default 1200, x4 on a debug leg) bounds one
boot; CMKIT_SUITE_TIMEOUT (default 300, x4 on a debug leg) is the guest's
watchdog of each suite and unload; CMKIT_CASE_TIMEOUT (default 120, x4 on a
debug leg) cmkit_test's watchdog of each KUnit case; CMKIT_APPEND adds words to the guest
kernel's command line (module.sig_enforce=1 on a stock leg: the kernel
refuses the unsigned cmkit.ko, and the run says why).
"""

import argparse
import hashlib
import json
import re
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel  # noqa: E402
import mkinitramfs  # noqa: E402
import results  # noqa: E402
import stock  # noqa: E402

TOP = kernel.TOP
BUILD = os.path.join(TOP, "build")
LOGDIR = os.path.join(BUILD, "logs")
RESULTS = os.path.join(BUILD, "results")
DEFAULT_KERNEL = "6.12"
KVM_PROBE_SECONDS = 15
# The first WARN or oops ends the guest at once (panic=-1 reboots, which
# -no-reboot turns into QEMU's exit): the report then names the suite and
# case it happened in instead of a hang at the timeout.
# printk.devkmsg=on: the shell suite logs its results through /dev/kmsg.
# log_buf_len=1M: on 6.1 the harness rebuilds a suite's KTAP from the kernel
# log, and cmkit_srpt's log alone came within a few KiB of the default 128 KiB.
CMDLINE = ("console=ttyS0 loglevel=7 panic=-1 oops=panic panic_on_warn=1 printk.devkmsg=on "
           "log_buf_len=1M")


def say(msg):
    print(f"[run] {msg}", flush=True)


def build_modules(kver, kdir):
    os.makedirs(LOGDIR, exist_ok=True)
    log = os.path.join(LOGDIR, f"modules-{kver}.log")
    say(f"{kver}: building cmkit.ko and cmkit_test.ko")
    with open(log, "w") as f:
        r = subprocess.run(["make", "-C", TOP, "--no-print-directory", "modules",
                            f"KVER={kver}", f"KDIR={kdir}"],
                           stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        sys.stdout.write(open(log).read()[-4000:])
        raise SystemExit(f"[run] {kver}: module build failed (log: {log})")
    moddir = os.path.join(BUILD, "mod", kver)
    kos = [os.path.join(moddir, k) for k in ("cmkit.ko", "cmkit_test.ko")]
    for ko in kos:
        if not os.path.exists(ko):
            raise SystemExit(f"[run] {kver}: {ko} was not built")
    return kos


def build_tools():
    log = os.path.join(LOGDIR, "tools.log")
    with open(log, "w") as f:
        r = subprocess.run(["make", "-C", os.path.join(TOP, "tools", "peer")],
                           stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        sys.stdout.write(open(log).read()[-4000:])
        raise SystemExit(f"[run] building cmkit-peer failed (log: {log})")
    return [os.path.join(BUILD, "tools", "cmkit-peer")]


def build_stock_module(info):
    """A stock leg's cmkit.ko, the way DKMS builds it for a user: (staging
    root, the module DKMS installed there)."""
    os.makedirs(LOGDIR, exist_ok=True)
    log = os.path.join(LOGDIR, f"dkms-{info['leg']}.log")
    open(log, "w").close()
    say(f"{info['leg']}: cmkit.ko through dkms add, build and install against "
        f"{info['headers_package']} {info['version']}")
    return stock.dkms_build(info, log)


def make_initrd(kver, kos=None, stock_info=None):
    """base (user space) + the leg's modules: @kos under /lib/cmkit/, or a
    stock leg's tree (@stock_info, @kos = (DKMS's root, cmkit.ko))."""
    base = os.path.join(BUILD, "guest", "base.cpio.gz")
    subprocess.run([sys.executable, os.path.join(TOP, "scripts", "mkinitramfs.py"),
                    "base", base] + build_tools(), check=True)
    mods = os.path.join(BUILD, "guest", kver, "modules.cpio.gz")
    if stock_info:
        root = tempfile.mkdtemp(prefix="initramfs-stock-")
        try:
            stock.guest_tree(stock_info, kos[0], kos[1], root)
            os.makedirs(os.path.dirname(mods), exist_ok=True)
            mkinitramfs.pack(root, mods)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    else:
        subprocess.run([sys.executable, os.path.join(TOP, "scripts", "mkinitramfs.py"),
                        "modules", mods] + kos, check=True)
    initrd = os.path.join(BUILD, "guest", kver, "initrd.cpio.gz")
    with open(initrd, "wb") as out:
        for part in (base, mods):
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out)
    return initrd


def qemu_argv(bzimage, initrd, accel, append, serials):
    argv = ["qemu-system-x86_64", "-nodefaults", "-no-user-config", "-display", "none",
            "-no-reboot", "-m", "1024", "-smp", "2", "-nic", "none",
            "-accel", accel, "-kernel", bzimage, "-initrd", initrd,
            "-append", append]
    for s in serials:
        argv += ["-serial", s]
    return argv


# Seconds QEMU may run after the console's first fatal line (a panic, an
# oops, a KASAN report, cmkit_test's case timeout...): the rest of the trace
# and the guest's dumps, and then the host stops it (within a minute of the
# crash, not at the leg's timeout).
FATAL_GRACE = 45


class Boot:
    """One QEMU run; console and status port captured to files."""

    def __init__(self, outdir, tag):
        os.makedirs(outdir, exist_ok=True)
        self.console = os.path.join(outdir, f"{tag}console.log")
        self.status = os.path.join(outdir, f"{tag}status.log")
        self.hung = False
        self.exited = False
        self.rc = None
        self.boot_seconds = None
        self.seconds = 0.0
        self.fatal_at = None            # when the console showed a fatal splat
        self.killed_after_crash = False

    def run(self, bzimage, initrd, accel, append, timeout, live=None):
        # One kernel build or guest at a time on this machine: they share a lock.
        with kernel.machine_lock("a kernel build or another guest"):
            return self._run(bzimage, initrd, accel, append, timeout, live)

    def _run(self, bzimage, initrd, accel, append, timeout, live):
        for p in (self.console, self.status):
            open(p, "w").close()
        argv = qemu_argv(bzimage, initrd, accel, append,
                         [f"file:{self.console}", f"file:{self.status}"])
        t0 = time.time()
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT)
        seen, con_off, con_part = 0, 0, ""
        while True:
            try:
                self.rc = p.wait(timeout=0.2)
                self.exited = True
            except subprocess.TimeoutExpired:
                pass
            text = open(self.status, errors="replace").read()
            if self.boot_seconds is None and "CMKIT init" in text:
                self.boot_seconds = time.time() - t0
            # The console first: KUnit printed a suite's results there
            # before the guest's status line that ends it.
            with open(self.console, "rb") as f:
                f.seek(con_off)
                chunk = f.read()
            con_off += len(chunk)
            *whole, con_part = (con_part + chunk.decode(errors="replace")).split("\n")
            for line in whole:
                if live and hasattr(live, "console"):
                    live.console(line)
                if self.fatal_at is None:
                    k = results.splat_kind(line)
                    if k and k[1]:
                        self.fatal_at = time.time()
            if live:
                lines = text.splitlines()
                complete = lines if text.endswith("\n") else lines[:-1]
                for line in complete[seen:]:
                    live(line)
                seen = max(seen, len(complete))
            if self.exited:
                break
            if time.time() - t0 > timeout:
                self.hung = True
                p.kill()
                p.wait()
                break
            if self.fatal_at is not None and time.time() - self.fatal_at > FATAL_GRACE:
                # A crash: the guest had its grace to print the trace and
                # its dumps; it will not finish its script.
                self.killed_after_crash = True
                p.kill()
                p.wait()
                break
        self.qemu_output = p.stdout.read().decode(errors="replace")
        self.seconds = time.time() - t0
        return self

    def texts(self):
        return (open(self.console, errors="replace").read(),
                open(self.status, errors="replace").read())


_accel = None


def accel_cache_path():
    """Where this machine's KVM verdict is kept: keyed by CPU model, QEMU
    version and the host kernel release (any of them changing can change it)."""
    model = ""
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        qemu = subprocess.run(["qemu-system-x86_64", "--version"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True).stdout.splitlines()[0]
    except (OSError, IndexError):
        qemu = "?"
    key = hashlib.sha256(f"{model}\n{qemu}\n{platform.release()}".encode()).hexdigest()[:16]
    return os.path.join(kernel.cache_dir(), "accel", f"{key}.json")


def decide_accel(env, kvm_usable, cache_path, probe):
    """(accel, how): CMKIT_ACCEL=kvm|tcg as told; no usable /dev/kvm: tcg;
    else the remembered verdict, or a probe (CMKIT_ACCEL=probe: always), whose
    verdict is remembered.  @probe() returns (ok, why)."""
    forced = env.get("CMKIT_ACCEL")
    if forced in ("kvm", "tcg"):
        return forced, "CMKIT_ACCEL"
    if not kvm_usable:
        return "tcg", "no /dev/kvm"
    if forced != "probe" and os.path.exists(cache_path):
        try:
            known = json.load(open(cache_path))
            return known["accel"], f"remembered: {known['why']}"
        except (OSError, ValueError, KeyError):
            pass
    ok, why = probe()
    accel = "kvm" if ok else "tcg"
    os.makedirs(os.path.dirname(cache_path), exist_ok=True)
    with open(cache_path, "w") as f:
        json.dump({"accel": accel, "why": why, "when": time.strftime("%Y-%m-%d %H:%M")}, f)
    return accel, why


def choose_accel(bzimage, initrd):
    """KVM if a probe boot with it reaches /init quickly, else TCG."""
    global _accel
    if _accel:
        return _accel

    def probe():
        b = Boot(os.path.join(BUILD, "guest"), "kvm-probe-").run(
            bzimage, initrd, "kvm", CMDLINE + " cmkit.mode=probe", KVM_PROBE_SECONDS)
        _, status = b.texts()
        if b.exited and "CMKIT done" in status:
            return True, f"probe booted in {b.seconds:.1f} s"
        return False, (f"KVM probe hung for {KVM_PROBE_SECONDS} s" if b.hung
                       else f"KVM probe failed: {b.qemu_output.strip()[:200] or 'no /init'}")

    _accel, why = decide_accel(os.environ, os.access("/dev/kvm", os.R_OK | os.W_OK),
                               accel_cache_path(), probe)
    say(f"accelerator: {_accel} ({why})")
    return _accel


class Phases:
    """How long each phase of a leg took, printed as it ends."""

    def __init__(self, leg):
        self.leg, self.items, self.t = leg, [], time.time()

    def end(self, name, seconds=None):
        now = time.time()
        secs = now - self.t if seconds is None else seconds
        self.t = now
        self.items.append((name, secs))
        say(f"{self.leg}: {name} {secs:.1f} s")


def prepare(kver, phases=None):
    kdir = kernel.ensure(kver)
    info = json.load(open(os.path.join(kdir, "done.json")))
    if phases:
        phases.end("kernel")
    if info.get("stock"):
        kos = build_stock_module(info)
    else:
        kos = build_modules(kver, info["build"])
    if phases:
        phases.end("modules")
    initrd = make_initrd(kver, kos, info if info.get("stock") else None)
    if phases:
        phases.end("initramfs")
    return info, initrd


def timeout_seconds(info):
    return float(os.environ.get("CMKIT_TIMEOUT", "1200")) * (4 if info.get("debug") else 1)


def guest_append(info, mode, suites):
    """The guest's kernel command line."""
    extra = [CMDLINE, info.get("cmdline", ""), f"cmkit.mode={mode}", f"cmkit.suites={suites}"]
    if info.get("debug"):
        # A hung task or a soft lockup panics at once (the detectors of
        # kunit/debug.config), naming the stuck task, instead of waiting
        # out a watchdog.
        extra += ["cmkit.debug=1", "hung_task_panic=1", "softlockup_panic=1"]
    if os.environ.get("CMKIT_SUITE_TIMEOUT"):
        extra.append(f"cmkit.suite_timeout={int(os.environ['CMKIT_SUITE_TIMEOUT'])}")
    if os.environ.get("CMKIT_CASE_TIMEOUT"):
        extra.append(f"cmkit.case_timeout={int(os.environ['CMKIT_CASE_TIMEOUT'])}")
    # More words for the guest kernel (module.sig_enforce=1: watch a stock
    # kernel refuse the unsigned cmkit.ko, and the run say why).
    extra.append(os.environ.get("CMKIT_APPEND", ""))
    return " ".join(e for e in extra if e)


def module_symbols(info):
    """{module: text_symbols} of the leg's cmkit.ko and cmkit_test.ko, to name
    the frames of an unloaded module in a kmemleak backtrace."""
    syms = {}
    for mod in ("cmkit", "cmkit_test"):
        ko = os.path.join(BUILD, "mod", info.get("leg", info["kver"]), f"{mod}.ko")
        r = subprocess.run(["objdump", "-t", ko], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        syms[mod] = results.text_symbols(r.stdout)
    return syms


def boot_and_judge(info, initrd, accel, out, append, live, suites="*"):
    """One boot: its results written under @out, judged."""
    shutil.rmtree(out, ignore_errors=True)
    boot = Boot(out, "").run(info["bzImage"], initrd, accel, append, timeout_seconds(info),
                             live=live)
    console, status = boot.texts()
    t0 = time.time()
    kunit_py = results.kunit_py_for(info.get("source"))
    try:
        expectations = results.read_expected()
    except ValueError as e:
        raise SystemExit(f"[run] {e}")
    verdict = results.analyse(status, console, kunit_py, out, boot.hung, boot.exited,
                              leg=info.get("leg", info["kver"]), patterns=suites,
                              expectations=expectations, package=info.get("package"),
                              version=info.get("version"), symtabs=module_symbols(info),
                              patched=bool(info.get("patches")))
    verdict.boot_seconds = boot.boot_seconds
    if boot.killed_after_crash:
        verdict.notes.append(f"QEMU stopped by the host {FATAL_GRACE} s after the "
                             "console's first fatal line")
    verdict.parse_seconds = time.time() - t0
    verdict.module_load = results.module_load(verdict.report, console)
    if info.get("stock") and verdict.module_load:
        verdict.notes.append(f"{info['package']}: {verdict.module_load.long}")
    verdict.guest_seconds = boot.seconds
    return verdict, boot


def run_kernel(kver, suites="*", mode="test", live=None):
    """Boot one kernel in test or run mode; return (info, Verdict, accel, Boot).

    On a stock leg, a run whose only problem is a known kernel bug
    (results.KNOWN_ISSUES: a crash outside cmkit, with its signature, on that
    package version) boots once more; the first run's results are kept
    beside the second's.  A second boot that passes makes the leg
    "flaky: KI-n"; a second failure stands.  A KUnit leg never reruns: its
    kernel carries the fixes (results.judge's patched).
    """
    t0 = time.time()
    phases = Phases(kver)
    info, initrd = prepare(kver, phases)
    accel = choose_accel(info["bzImage"], initrd)
    out = os.path.join(RESULTS, "run") if mode == "run" else \
        os.path.join(RESULTS, info["release"])
    say(f"{kver}: booting {info['release']} ({accel}), suites '{suites}'")
    append = guest_append(info, mode, suites)
    verdict, boot = boot_and_judge(info, initrd, accel, out, append, live, suites)
    if results.may_rerun(info, verdict):
        ki = verdict.known_issue
        first = out + ".known-issue"
        shutil.rmtree(first, ignore_errors=True)
        shutil.copytree(out, first)
        say(f"{kver}: the guest hit a known kernel issue, {ki.ident} ({ki.what}), "
            f"its only problem; results kept in {os.path.relpath(first, TOP)}; "
            "booting once more")
        verdict, boot = boot_and_judge(info, initrd, accel, out, append, live, suites)
        verdict = results.settle_rerun(ki, verdict)
    rep = verdict.report
    phases.end("boot", verdict.boot_seconds or 0.0)
    for suite in rep.suites:
        if suite in rep.times:
            phases.items.append((suite, rep.times[suite]))
    phases.items.append(("parse", verdict.parse_seconds))
    say(f"{kver}: guest {verdict.guest_seconds:.1f} s: " +
        ", ".join(f"{s} {rep.times[s]:.1f} s" for s in rep.suites if s in rep.times) +
        f"; parse {verdict.parse_seconds:.1f} s")
    verdict.phases = phases.items
    verdict.total_seconds = time.time() - t0
    return info, verdict, accel, boot


def summary_line(info, v, accel):
    boot = f"{v.boot_seconds:.1f}" if v.boot_seconds is not None else "-"
    leg = info.get("leg", info["kver"])
    label = f"{leg} (debug leg: KASAN, kmemleak, UBSAN)" if info.get("debug") else leg
    what = info["release"]
    if info.get("stock"):
        label, what = leg, f"{info['package']} {info['version']}"
    pin = f" pin-not-used ({info['pin_note']})" if info.get("pin_note") else ""
    tail = ""
    if info.get("stock"):
        load = getattr(v, "module_load", None)
        tail = " (stock Debian kernel" + (f"; cmkit.ko {load.short}" if load else "") + ")"
    return (f"{label} {what} passed={v.passed} failed={v.failed} skipped={v.skipped} "
            f"accel={accel} boot={boot}s total={v.total_seconds:.1f}s{tail}"
            f"{f' flaky: {v.xfail} (first boot; rerun)' if v.xfail else ''}{pin}"
            f"{'' if v.ok else ' FAIL'}")


class Live:
    """make test's running commentary as the guest goes: each suite as it
    starts (status port), each case's result (console, where KUnit prints it
    as the case ends), each suite's totals and time (status port)."""

    def __init__(self, leg):
        self.leg, self.suite, self.counts = leg, None, [0, 0, 0]
        self.had_params, self.block = False, []
        self.shown = None         # the suite whose results the console is printing
        self.last = None          # the last suite a header was printed for

    def __call__(self, line):
        words = line.split()
        if line.startswith("CMKIT begin "):
            if self.last != words[2]:
                self.last = words[2]
                print(f"--- {self.leg}: {words[2]} ---", flush=True)
            self.suite, self.block = words[2], []
        elif line.startswith("CMKIT end ") and self.suite:
            # The suite's own KTAP (debugfs) has every result, even those the
            # console had not shown yet.
            block = "\n".join(self.block) + "\n"
            leaves, lost = results.ktap_leaves(block)
            if not leaves or results.lossy(block):     # 6.1: the console has them all
                leaves, lost = [], {}
            p, f, s = results.leaf_counts(leaves) if leaves else self.counts
            n = sum(lost.values())
            print(f"  {self.suite}: {p - n} passed, {f} failed, {s + n} skipped", flush=True)
            self.suite = None
        elif self.suite and not line.startswith("CMKIT "):
            self.block.append(line)
        elif line.startswith("CMKIT time "):
            print(f"  {words[2]}: {float(words[3]):.1f} s in the guest", flush=True)
        elif line.startswith("CMKIT error "):
            print(f"  guest error: {line[len('CMKIT error '):]}", flush=True)
        elif line.startswith("CMKIT kmemleak "):
            print(f"  kmemleak found something after {words[2]} (see status.log)", flush=True)

    def console(self, raw):
        """KUnit prints each result to the console as it ends: shown live.
        The console is read before the status port, so it says itself which
        suite its lines belong to."""
        line = results.klog_message(raw)
        sub = re.match(r"^    # Subtest: (\S+)$", line)
        if sub:
            self.shown, self.counts, self.had_params = sub.group(1), [0, 0, 0], False
            if self.last != self.shown:
                self.last = self.shown
                print(f"--- {self.leg}: {self.shown} ---", flush=True)
            return
        if re.match(r"^(not ok|ok) \d+ ", line):
            self.shown = None       # the suite's own result: it ended
            return
        if not self.shown:
            return
        m = re.match(r"^( +)(not ok|ok) \d+ (.*)$", line)
        if not m or len(m.group(1)) not in (4, 8):
            return
        print(f"  {line[2:]}", flush=True)
        param = len(m.group(1)) == 8
        if param or not self.had_params:
            i = 2 if "# SKIP" in line else (0 if m.group(2) == "ok" else 1)
            self.counts[i] += 1
        self.had_params = param


def cmd_test(args, on_leg=None):
    """Each leg in turn; @on_leg(lines, totals, legs) is called as soon as
    a leg ends (make test writes the summary and junit.xml there, so a
    later leg that hangs leaves the earlier ones' results behind)."""
    kvers = [k for k in args.kernels.replace(",", " ").split() if k]
    lines, totals, ok, legs = [], [0, 0, 0], True, []
    for kver in kvers:
        info, v, accel, _ = run_kernel(kver, args.suites, live=Live(kver))
        sys.stdout.write(v.parsed)
        for n in v.notes:
            say(f"{kver}: note: {n}")
        for p in v.problems:
            say(f"{kver}: FAIL: {p}")
        lines.append(summary_line(info, v, accel))
        say(lines[-1])
        lines += summary_notes(kver, v)
        totals = [totals[0] + v.passed, totals[1] + v.failed, totals[2] + v.skipped]
        ok = ok and v.ok
        legs.append((info.get("leg", kver), v))
        if on_leg:
            on_leg(lines, totals, legs)
    return lines, totals, ok, legs


def write_results(lines, totals, legs, groups=()):
    """summary.txt and junit.xml of what has run so far: @lines and @groups
    (the host checks', when make test ran them) and the legs'."""
    final = write_summary(lines, totals, [v.xfail for _, v in legs if v.xfail])
    write_junit(list(groups) +
                [g for leg, v in legs for g in results.junit_groups_for_leg(leg, v)])
    return final


def summary_notes(leg, v):
    """The leg's notes the summary carries under its line: each expected
    skip (kunit/expected.txt) whose case ran and passed."""
    return [f"  {leg}: note: {n}" for n in v.notes if n.startswith(results.SKIP_PASSED)]


def failure_recap(legs, limit=8, width=240):
    """Lines that say why each failed leg failed: its problems (a crash's
    first lines among them) and its failed cases, each cut to @width."""
    out = []
    for leg, v in legs:
        if v.ok:
            continue
        items = [f"{leg}: FAIL: {p}" for p in v.problems
                 if getattr(p, "kind", "") != "not-run"]
        unrun = [p.split()[1].rstrip(":") for p in v.problems
                 if getattr(p, "kind", "") == "not-run"]
        items += [f"{leg}: FAIL: {lf.ident}" + (f": {lf.reason}" if lf.reason else "")
                  for lf in v.leaves if lf.status == "FAIL"]
        for item in items[:limit]:
            for i, text in enumerate(item.splitlines()[:6]):
                out.append((text if i == 0 else "    " + text)[:width])
        if len(items) > limit:
            out.append(f"{leg}: ... {len(items) - limit} more; see build/results/")
        if unrun:
            # One line: the reason above must stay in a log's tail.
            out.append(f"{leg}: FAIL: {len(unrun)} suite(s) not run after the stop: "
                       f"{' '.join(unrun)}"[:width])
    return out


def write_summary(lines, totals, xfails=()):
    os.makedirs(RESULTS, exist_ok=True)
    final = f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped"
    if xfails:
        final += f", flaky: {' '.join(xfails)}"
    with open(os.path.join(RESULTS, "summary.txt"), "w") as f:
        f.write("\n".join(lines + [final]) + "\n")
    return final


def write_junit(groups):
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, "junit.xml")
    with open(path, "w") as f:
        f.write(results.junit_xml(groups))
    return path


# make run: these KUnit cases (kernel peers), then scripts/guest/story.sh
# (user-space peers through the control plane).
RUN_CASES = ",".join([
    "cmkit_smoke.smoke_loopback_connect_then_client_disconnects",
    "cmkit_rpcrdma.remote_disconnect_with_calls_in_flight_aborts_each_call",
    "cmkit_irdma.irdma_connects_siw_accepts_then_cmkit_closes",
    "cmkit_irdma.siw_connects_cmkit_accepts_then_siw_closes",
    "cmkit_irdma.irdma_p2p_cmkit_to_cmkit",
])
_TRACE_LINE = re.compile(r"^\s*\S.*?\s+\[\d+\]\s+\S+\s+([\d.]+): (.*)$")
_KLOG_LINE = re.compile(r"^\[\s*([\d.]+)\] (cmkit(?:_test)?: .*)$")




def timeline(report):
    """Peer events (kernel log) and handler decisions (trace), by time.

    The sort is on the timestamp alone and stable: lines of one source that
    share a timestamp (the guest's clock is coarse) keep their own order.
    """
    rows = []
    for suite in report.suites:
        for raw in report.klogs.get(suite, "").splitlines():
            m = _KLOG_LINE.match(raw)
            if m:
                rows.append((float(m.group(1)), m.group(2)))
    for raw in report.traces:
        m = _TRACE_LINE.match(raw)
        if m:
            rows.append((float(m.group(1)), "trace " + m.group(2)))
    return [f"  {t:10.6f}  {what}" for t, what in sorted(rows, key=lambda r: r[0])]


def cmd_run(args):
    if kernel.leg(args.kernel).stock:
        raise SystemExit(f"[run] {args.kernel} has no KUnit for make run's cases: "
                         f"'make test KVERS={args.kernel}' runs the story on it")
    say(f"make run: kernel {args.kernel}: rxe0 and siw0 in the guest, cmkit loaded, "
        "each scenario on both devices")
    info, v, accel, _ = run_kernel(args.kernel, RUN_CASES, mode="run", live=Live(args.kernel))
    print("--- the story: handlers against user-space peers (scripts/guest/story.sh) ---")
    for line in v.report.story:
        print(f"  {line}")
    print("--- timeline: test peers' CM events and the handlers' decisions ---")
    for line in timeline(v.report):
        print(line)
    for p in v.problems:
        say(f"FAIL: {p}")
    say(summary_line(info, v, accel))
    say(f"results in {os.path.relpath(os.path.join(RESULTS, 'run'), TOP)}/")
    print(f"{v.passed} passed, {v.failed} failed, {v.skipped} skipped")
    return 0 if v.ok else 1


def cmd_shell(args):
    info, initrd = prepare(args.kernel)
    accel = choose_accel(info["bzImage"], initrd)
    status = os.path.join(BUILD, "guest", "shell-status.log")
    argv = qemu_argv(info["bzImage"], initrd, accel, guest_append(info, "shell", "*"),
                     ["mon:stdio", f"file:{status}"])
    say(f"shell on {info['release']} ({accel}); Ctrl-A X quits QEMU, 'reboot -f' the guest")
    with kernel.machine_lock("a kernel build or another guest"):
        return subprocess.call(argv)


REPRO_DIR = os.path.join(TOP, "kernel-patches", "repro")


# A reproduction's own word that the bug showed, for a bug that does not
# splat (a connection that never gets ESTABLISHED): "ki-repro: bug: <what>".
REPRO_BUG = re.compile(r"ki-repro: bug: (.*\S)")


def repro_verdict(console):
    """(tries, what showed the bug or None) of a reproduction's console: the
    first splat line, or the <what> of the first "ki-repro: bug: <what>"
    line, whichever comes first."""
    lines = console.splitlines()
    tries = 0
    for line in lines:
        m = re.search(r"ki-repro: try (\d+)", line)
        if m:
            tries = max(tries, int(m.group(1)))
    for line in lines:
        msg = results.klog_message(line)
        if results.splat_kind(line):
            return tries, msg
        m = REPRO_BUG.search(msg)
        if m:
            return tries, m.group(1)
    return tries, None


def cmd_repro(args):
    """Boot @args.kernel without loading cmkit and run kernel-patches/repro/ki-<n>.sh:
    the guest panics at the first splat (panic_on_warn), so the console's
    first splat is the bug showing, as is a script's "ki-repro: bug: <what>"
    line for a bug that does not splat.  Prints and keeps the result under
    build/results/ki-repro/; exits 0 either way (the result is the output)."""
    script = os.path.join(REPRO_DIR, f"ki-{args.ki}.sh")
    if not os.path.exists(script):
        raise SystemExit(f"[run] no reproduction {os.path.relpath(script, TOP)}")
    info, initrd = prepare(args.kernel)
    accel = choose_accel(info["bzImage"], initrd)
    out = os.path.join(RESULTS, "ki-repro", f"KI-{args.ki}-{info['release']}")
    shutil.rmtree(out, ignore_errors=True)
    append = guest_append(info, "repro", "*") + f" cmkit.repro={args.ki}"
    patched = ", ".join(os.path.basename(p) for p in info.get("patches", [])) or "none"
    say(f"KI-{args.ki} on {info['release']} ({accel}), patches: {patched}")
    boot = Boot(out, "").run(info["bzImage"], initrd, accel, append,
                             timeout_seconds(info))
    console, status = boot.texts()
    for line in console.splitlines():
        if "ki-repro" in line:
            print(f"  {results.klog_message(line)}")
    tries, shown = repro_verdict(console)
    if shown:
        verdict = f"REPRODUCED after {tries} tries: {shown}"
    elif boot.hung:
        verdict = (f"HUNG after {tries} tries (no splat or bug line within "
                   f"{timeout_seconds(info):.0f} s)")
    elif "CMKIT repro-done" in status:
        verdict = f"CLEAN after {tries} tries"
    else:
        verdict = f"INCOMPLETE after {tries} tries (the guest stopped early; see console.log)"
    line = (f"KI-{args.ki} on {info['release']} (patches: {patched}): {verdict}")
    with open(os.path.join(out, "verdict.txt"), "w") as f:
        f.write(line + "\n")
    say(line)
    say(f"console in {os.path.relpath(out, TOP)}/console.log")
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("test")
    t.add_argument("--kernels", default=" ".join(kernel.MATRIX))
    t.add_argument("--suites", default="*")
    for name in ("run", "shell", "repro"):
        s = sub.add_parser(name)
        s.add_argument("--kernel", default=DEFAULT_KERNEL)
        if name == "repro":
            s.add_argument("--ki", required=True)
    args = ap.parse_args(argv[1:])
    with kernel.tree_lock():
        return dispatch(args)


def dispatch(args):
    if args.cmd == "test":
        lines, totals, ok, legs = cmd_test(args, on_leg=write_results)
        final = write_results(lines, totals, legs)
        print("\n".join(lines))
        print(final)
        return 0 if ok else 1
    if args.cmd == "run":
        return cmd_run(args)
    if args.cmd == "repro":
        return cmd_repro(args)
    return cmd_shell(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
