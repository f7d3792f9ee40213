#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Boot cmkit's test guest in QEMU and collect what it did.

    run.py test  [--kernels 6.1,6.12,7.3] [--suites GLOB]   KUnit on each kernel
    run.py run   [--kernel 6.12]                             the main job (make run)
    run.py shell [--kernel 6.12]                             a shell in the guest

Per kernel: build cmkit.ko and cmkit_test.ko against the cached kernel, pack
them into the initramfs, boot with no network device to the host, read the
guest's status port, parse KTAP with the kernel's own kunit.py, scan the
console for splats.  Results land in build/results/<kernel-release>/ and
build/results/summary.txt.  Environment: CMKIT_ACCEL=kvm|tcg skips the KVM
probe; CMKIT_TIMEOUT (seconds, default 1200) bounds one boot.
"""

import argparse
import json
import re
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel  # noqa: E402
import results  # noqa: E402

TOP = kernel.TOP
BUILD = os.path.join(TOP, "build")
LOGDIR = os.path.join(BUILD, "logs")
RESULTS = os.path.join(BUILD, "results")
DEFAULT_KERNEL = "6.12"
KVM_PROBE_SECONDS = 15
# The first WARN or oops ends the guest at once (panic=-1 reboots, which
# -no-reboot turns into QEMU's exit): the report then names the suite and
# case it happened in instead of a hang at the timeout.
CMDLINE = "console=ttyS0 loglevel=7 panic=-1 oops=panic panic_on_warn=1"


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


def make_initrd(kver, kos):
    base = os.path.join(BUILD, "guest", "base.cpio.gz")
    subprocess.run([sys.executable, os.path.join(TOP, "scripts", "mkinitramfs.py"),
                    "base", base] + build_tools(), check=True)
    mods = os.path.join(BUILD, "guest", kver, "modules.cpio.gz")
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
        seen = 0
        while True:
            try:
                self.rc = p.wait(timeout=0.2)
                self.exited = True
            except subprocess.TimeoutExpired:
                pass
            text = open(self.status, errors="replace").read()
            if self.boot_seconds is None and "CMKIT init" in text:
                self.boot_seconds = time.time() - t0
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
        self.qemu_output = p.stdout.read().decode(errors="replace")
        self.seconds = time.time() - t0
        return self

    def texts(self):
        return (open(self.console, errors="replace").read(),
                open(self.status, errors="replace").read())


_accel = None


def choose_accel(bzimage, initrd):
    """KVM if a probe boot with it reaches /init quickly, else TCG."""
    global _accel
    if _accel:
        return _accel
    forced = os.environ.get("CMKIT_ACCEL")
    if forced in ("kvm", "tcg"):
        _accel = forced
        say(f"accelerator: {forced} (CMKIT_ACCEL)")
        return _accel
    why = "no /dev/kvm"
    if os.access("/dev/kvm", os.R_OK | os.W_OK):
        b = Boot(os.path.join(BUILD, "guest"), "kvm-probe-").run(
            bzimage, initrd, "kvm", CMDLINE + " cmkit.mode=probe", KVM_PROBE_SECONDS)
        _, status = b.texts()
        if b.exited and "CMKIT done" in status:
            _accel = "kvm"
            say(f"accelerator: kvm (probe booted in {b.seconds:.1f} s)")
            return _accel
        why = (f"KVM probe hung for {KVM_PROBE_SECONDS} s" if b.hung
               else f"KVM probe failed: {b.qemu_output.strip()[:200] or 'no /init'}")
    _accel = "tcg"
    say(f"accelerator: tcg ({why})")
    return _accel


def prepare(kver):
    kdir = kernel.ensure(kver)
    info = json.load(open(os.path.join(kdir, "done.json")))
    kos = build_modules(kver, info["build"])
    initrd = make_initrd(kver, kos)
    return info, initrd


def timeout_seconds():
    return float(os.environ.get("CMKIT_TIMEOUT", "1200"))


def boot_and_judge(info, initrd, accel, out, append, live):
    """One boot: its results written under @out, judged."""
    shutil.rmtree(out, ignore_errors=True)
    boot = Boot(out, "").run(info["bzImage"], initrd, accel, append, timeout_seconds(),
                             live=live)
    console, status = boot.texts()
    report = results.GuestReport(status)
    ktap_path = os.path.join(out, "kunit.ktap")
    json_path = os.path.join(out, "kunit.json")
    with open(ktap_path, "w") as f:
        f.write(results.assemble_ktap(report))
    kunit_py = os.path.join(info["source"], "tools", "testing", "kunit", "kunit.py")
    rc, parsed = results.kunit_parse(kunit_py, ktap_path, json_path)
    with open(os.path.join(out, "kunit.txt"), "w") as f:
        f.write(parsed)
    counts = (0, 0, 0)
    if os.path.exists(json_path) and os.path.getsize(json_path):
        counts = results.count_json(json_path)
        lost = results.lost_param_skips(open(ktap_path).read())
        if lost:
            say(f"{info['release']}: {lost} parameter skip(s) without a SKIP "
                "directive (the case totals say so); counted as skipped")
            counts = (counts[0] - lost, counts[1], counts[2] + lost)
    verdict = results.judge(report, console, rc, counts, boot.hung, boot.exited)
    if not report.suites:
        verdict.problems.append("no KUnit results")
    elif not os.path.exists(json_path):
        verdict.problems.append("kunit.py wrote no JSON")
    verdict.boot_seconds = boot.boot_seconds
    verdict.parsed = parsed
    verdict.report = report
    verdict.known_issue = None if verdict.ok else results.known_issue(info["kver"], console)
    return verdict, boot


def run_kernel(kver, suites="*", mode="test", live=None):
    """Boot one kernel in test or run mode; return (info, Verdict, accel, Boot).

    A run that fails on a known kernel bug (results.KNOWN_ISSUES: a crash
    outside cmkit, with its signature) boots once more; the first run's
    results are kept beside the second's and the summary says so.
    """
    t0 = time.time()
    info, initrd = prepare(kver)
    accel = choose_accel(info["bzImage"], initrd)
    out = os.path.join(RESULTS, info["release"])
    say(f"{kver}: booting {info['release']} ({accel}), suites '{suites}'")
    append = f"{CMDLINE} {info.get('cmdline', '')} cmkit.mode={mode} cmkit.suites={suites}"
    verdict, boot = boot_and_judge(info, initrd, accel, out, append, live)
    retried = None
    if verdict.known_issue:
        retried = verdict.known_issue
        first = out + ".known-issue"
        shutil.rmtree(first, ignore_errors=True)
        shutil.copytree(out, first)
        say(f"{kver}: the guest hit known kernel issue {retried}; results kept in "
            f"{os.path.relpath(first, TOP)}; booting once more")
        verdict, boot = boot_and_judge(info, initrd, accel, out, append, live)
    verdict.retried = retried
    verdict.total_seconds = time.time() - t0
    return info, verdict, accel, boot


def summary_line(info, v, accel):
    boot = f"{v.boot_seconds:.1f}" if v.boot_seconds is not None else "-"
    leg = info.get("leg", info["kver"])
    label = f"{leg} (debug leg: KASAN, kmemleak, UBSAN)" if info.get("debug") else leg
    pin = f" pin-not-used ({info['pin_note']})" if info.get("pin_note") else ""
    return (f"{label} {info['release']} passed={v.passed} failed={v.failed} skipped={v.skipped} "
            f"accel={accel} boot={boot}s total={v.total_seconds:.1f}s"
            f"{f' known-issue-rerun={v.retried}' if v.retried else ''}{pin}"
            f"{'' if v.ok else ' FAIL'}")


def cmd_test(args):
    kvers = [k for k in args.kernels.replace(",", " ").split() if k]
    lines, totals, ok = [], [0, 0, 0], True
    for kver in kvers:
        info, v, accel, _ = run_kernel(kver, args.suites)
        sys.stdout.write(v.parsed)
        for p in v.problems:
            say(f"{kver}: FAIL: {p}")
        lines.append(summary_line(info, v, accel))
        say(lines[-1])
        totals = [totals[0] + v.passed, totals[1] + v.failed, totals[2] + v.skipped]
        ok = ok and v.ok
    return lines, totals, ok


def write_summary(lines, totals):
    os.makedirs(RESULTS, exist_ok=True)
    final = f"{totals[0]} passed, {totals[1]} failed, {totals[2]} skipped"
    with open(os.path.join(RESULTS, "summary.txt"), "w") as f:
        f.write("\n".join(lines + [final]) + "\n")
    return final


# make run: these KUnit cases (kernel peers), then scripts/guest/story.sh
# (user-space peers through the control plane).
RUN_CASES = ",".join([
    "cmkit_smoke.smoke_loopback_connect_then_client_disconnects",
    "cmkit_irdma.irdma_connects_siw_accepts_then_cmkit_closes",
    "cmkit_irdma.siw_connects_cmkit_accepts_then_siw_closes",
])
_TRACE_LINE = re.compile(r"^\s*\S.*?\s+\[\d+\]\s+\S+\s+([\d.]+): (.*)$")
_KLOG_LINE = re.compile(r"^\[\s*([\d.]+)\] (cmkit(?:_test)?: .*)$")


def show_live(line):
    if line.startswith("CMKIT begin "):
        print(f"--- {line.split()[2]} ---", flush=True)
    elif line.startswith("CMKIT error "):
        print(f"  guest error: {line[len('CMKIT error '):]}", flush=True)
    elif re.match(r"^\s+(not )?ok \d+ ", line):
        print(f"  {line.strip()}", flush=True)


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
    say(f"make run: kernel {args.kernel}: rxe0 and siw0 in the guest, cmkit loaded, "
        "each scenario on both devices")
    info, v, accel, _ = run_kernel(args.kernel, RUN_CASES, mode="run", live=show_live)
    print("--- the story: handlers against user-space peers (scripts/guest/story.sh) ---")
    for line in v.report.story:
        print(f"  {line}")
    print("--- timeline: test peers' CM events and the handlers' decisions ---")
    for line in timeline(v.report):
        print(line)
    for p in v.problems:
        say(f"FAIL: {p}")
    say(summary_line(info, v, accel))
    print(f"{v.passed} passed, {v.failed} failed, {v.skipped} skipped")
    return 0 if v.ok else 1


def cmd_shell(args):
    info, initrd = prepare(args.kernel)
    accel = choose_accel(info["bzImage"], initrd)
    status = os.path.join(BUILD, "guest", "shell-status.log")
    argv = qemu_argv(info["bzImage"], initrd, accel, f"{CMDLINE} cmkit.mode=shell",
                     ["mon:stdio", f"file:{status}"])
    say(f"shell on {info['release']} ({accel}); Ctrl-A X quits QEMU, 'reboot -f' the guest")
    with kernel.machine_lock("a kernel build or another guest"):
        return subprocess.call(argv)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("test")
    t.add_argument("--kernels", default=" ".join(kernel.MATRIX))
    t.add_argument("--suites", default="*")
    for name in ("run", "shell"):
        s = sub.add_parser(name)
        s.add_argument("--kernel", default=DEFAULT_KERNEL)
    args = ap.parse_args(argv[1:])
    with kernel.tree_lock():
        return dispatch(args)


def dispatch(args):
    if args.cmd == "test":
        lines, totals, ok = cmd_test(args)
        final = write_summary(lines, totals)
        print("\n".join(lines))
        print(final)
        return 0 if ok else 1
    if args.cmd == "run":
        return cmd_run(args)
    return cmd_shell(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
