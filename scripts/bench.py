#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""cmkit's benchmarks (make bench): what a check costs and what the stack costs,
each beside what a kernel developer would use instead, measured in one run.

    bench.py [--kernel 6.12] [--reps 5] [--harness-reps 3] [--n 300] [--n-siw 64]
             [--harness-kernels 6.1,6.12,7.3]
             [--items harness,cm,irdma,rpc,srp,nfs] [--suites "*"] [--irdma-nodes 100]
             [--irdma-events 10000] [--rpc-calls 2000] [--srp-mb 64] [--nfs-reads 64]

1. harness: for each kernel of --harness-kernels, make test's phases on it
   (module build, initramfs, boot to /init, device set-up, each suite's
   devices, body and the rest, parse), against that kernel tree's own
   `kunit.py run --kunitconfig lib/kunit/.kunitconfig --arch x86_64` (built
   once, cold, untimed; then warm runs, alternating with make test's);
   cmkit's overhead (all but the test bodies) as a ratio to kunit.py's warm
   cycle, per kernel.
2. cm: N rdma_cm connections through cmkit_bench.ko's in-kernel peer and
   through rdma-core's cmtime, per step and in total, on rxe0 (N: --n) and
   siw0 (N: --n-siw, default 64: in the bench guest cmtime cannot hold more
   than 71 siw QPs at once, see SIW_N).
3. rpc: RPC NULL round trips, cmkit's endpoint against `cmkit-peer call`.
4. srp: sequential dd through ib_srp to cmkit's RAM LUN and to ib_srpt with
   a LIO RAM disk (rd_mcp).
5. irdma: events per second through irdma_cm_event_handler() against a
   one-work-item-per-event baseline.
6. nfs: READ throughput of the guest's nfsd export file (1 MiB, read
   --nfs-reads times per measurement) over rxe0, cmkit's `nfs4 <n> read
   <name> <in flight>` against the kernel's NFS client (vers=4.0,
   proto=rdma) under dd with O_DIRECT, at 1 and 8 READs in flight.
Items 2 to 6 run in one boot of the "<kernel>-bench" leg (kunit/bench.config)
with cmkit.mode=bench (scripts/guest/bench.sh).  Each figure is a median
with its spread (min..max) over the repetitions; each ratio is cmkit's
figure over the other's, both from this run.  On a guest whose clock is
jiffies, figures of one interval under 1 ms are refused.  Prints a table,
writes build/bench/results.json and, with gnuplot, build/bench/*.svg.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel  # noqa: E402
import results  # noqa: E402
import run  # noqa: E402

TOP = kernel.TOP
OUT = os.path.join(TOP, "build", "bench")
COARSE_CLOCKS = ("jiffies", "refined-jiffies")
# The steps of the CM churn table; cmtime's "connect" is cmkit's connect +
# establish.  (row, cmkit's steps, cmtime's step)
CM_ROWS = [
    ("create id", ["create_id"], "create id"),
    ("resolve addr", ["resolve_addr"], "resolve addr"),
    ("resolve route", ["resolve_route"], "resolve route"),
    ("create qp", ["create_qp"], "create qp"),
    ("connect", ["connect"], None),
    ("establish", ["establish"], None),
    ("connect+establish", ["connect", "establish"], "connect"),
    ("disconnect", ["disconnect"], "disconnect"),
    ("destroy", ["destroy"], "destroy"),
]
# The harness item's kernels (--harness-kernels): every series.
HARNESS_KERNELS = ("6.1", "6.12", "7.3")
# siw0's CM churn N (--n-siw).  In the bench guest cmtime cannot hold more
# than 71 siw QPs at once: at N=100 it printed 29 failures, at N=300 229
# ("failure creating qp": first ENOENT, then EINVAL), while cmkit_bench
# made all of them; 100 cmkit connections against 71 cmtime ones was no
# comparison.  So siw0 runs both sides at this N; rxe0 keeps --n.
SIW_N = 64
TARGETS = {
    "harness": ("<=", 1.0),
    "cm": (">=", 1.5),
    "rpc": ("<=", 0.5),
    "srp": (">=", 1.0),
    "irdma": (">=", 2.0),
    "nfs": (">=", 1.0),
}
# The nfs item's READs in flight, each a row.
NFS_DEPTHS = (1, 8)


def say(msg):
    print(f"[bench] {msg}", flush=True)


# --------------------------------------------------------------------------
# figures: median and spread; ratios; the coarse-clock rule
# --------------------------------------------------------------------------

def figure(values, unit, interval_us=None, coarse=False):
    """A figure over repetitions: {"median", "min", "max", "n", "unit"}.

    @interval_us: the shortest single interval the values were measured
    from (microseconds); on a coarse clock (jiffies) a figure measured from
    an interval under 1 ms is refused: "median" is None and "refused" says
    why.  Without values, None.
    """
    values = [v for v in values if v is not None]
    if not values:
        return None
    fig = {"median": statistics.median(values), "min": min(values), "max": max(values),
           "n": len(values), "unit": unit}
    if coarse and interval_us is not None and interval_us < 1000:
        fig.update(median=None, min=None, max=None,
                   refused="the guest's clock is jiffies: no figure under 1 ms")
    return fig


def ratio(mine, other, pairs=None):
    """cmkit's figure over the other's, both medians of this run; with
    @pairs [(mine, other)] per repetition, the paired ratios' spread too."""
    if not mine or not other or mine.get("median") is None or not other.get("median"):
        return None
    r = {"value": mine["median"] / other["median"]}
    rs = [a / b for a, b in (pairs or []) if a is not None and b]
    if rs:
        r["min"], r["max"] = min(rs), max(rs)
    return r


def meets(item, r):
    if not r:
        return None
    op, target = TARGETS[item]
    return r["value"] <= target if op == "<=" else r["value"] >= target


# --------------------------------------------------------------------------
# the bench guest's status lines
# --------------------------------------------------------------------------

class HarnessError(Exception):
    """The harness item could not be measured on one kernel."""


class BenchReport:
    """What scripts/guest/bench.sh said: the clock, each measurement's text,
    what is not available yet, errors."""

    def __init__(self, status_text):
        self.clock, self.clocks = None, []
        self.runs = []        # {"item", "impl", "dev", "rep", "what", "rc", "text"}
        self.na = []          # (item, impl, reason)
        self.notes = []       # (item, note)
        self.errors = []
        self.done = False
        cur = None
        for raw in status_text.splitlines():
            line = raw.rstrip("\r")
            words = line.split()
            if cur is not None and not line.startswith("CMKIT "):
                cur["lines"].append(line)
                continue
            if not line.startswith("CMKIT "):
                continue
            kind = words[1] if len(words) > 1 else ""
            if kind == "bench-clock" and len(words) > 2:
                self.clock, self.clocks = words[2], words[3:]
            elif kind == "bench-begin" and len(words) > 5:
                cur = {"item": words[2], "impl": words[3], "dev": words[4],
                       "rep": int(words[5]), "what": " ".join(words[6:]), "lines": []}
            elif kind == "bench-end" and cur is not None:
                cur["rc"] = int(words[-1]) if re.match(r"-?\d+$", words[-1]) else -1
                cur["text"] = "\n".join(cur.pop("lines"))
                self.runs.append(cur)
                cur = None
            elif kind == "bench-na" and len(words) > 3:
                self.na.append((words[2], words[3], " ".join(words[4:])))
            elif kind == "bench-note" and len(words) > 2:
                self.notes.append((words[2].rstrip(":"), " ".join(words[3:])))
            elif kind == "bench-error":
                self.errors.append(" ".join(words[2:]))
            elif kind == "done":
                self.done = True
            elif kind == "error":
                self.errors.append(" ".join(words[2:]))
        if cur is not None:
            self.errors.append(f"{cur['item']} {cur['impl']} {cur['dev']} rep {cur['rep']} "
                               "never ended")

    @property
    def coarse(self):
        return self.clock in COARSE_CLOCKS

    def select(self, item, impl=None, dev=None, what=None):
        return [r for r in self.runs if r["item"] == item and
                (impl is None or r["impl"] == impl) and (dev is None or r["dev"] == dev) and
                (what is None or r["what"] == what)]


def first_json(text):
    """The first line of @text that is a JSON object, parsed, or None."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                pass
    return None


def json_with(text, key, value):
    """The last JSON line of @text whose @key is @value."""
    found = None
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if obj.get(key) == value:
            found = obj
    return found


_CMTIME_LINE = re.compile(r"^(\w[\w ]*?)\s*:\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s*$")


def parse_cmtime(text):
    """rdma-core 44's cmtime client table: {step: {"wall_us", "max_us",
    "min_us", "us_per_conn"}} ("total ms", "max ms", "min us", "us / conn")."""
    steps = {}
    for line in text.splitlines():
        m = _CMTIME_LINE.match(line.strip())
        if m:
            total_ms, max_ms, min_us, per = (float(x) for x in m.groups()[1:])
            steps[m.group(1).strip()] = {"wall_us": total_ms * 1000, "max_us": max_ms * 1000,
                                         "min_us": min_us, "us_per_conn": per}
    return steps


_CPU_PID = re.compile(r"\bCPU: \d+ PID: \d+")
KNOWN_LINES_SHOWN = 4     # per known issue, in the table (results.json has all)


def splat_problems(console_text, package=None, version=None):
    """The bench guest's splat lines, sorted: (known, problems).

    A splat line (as results.scan_splats finds them) that a known issue's
    family matches, its anchor in the same splat (results.KnownIssue.in_family;
    only the issues that apply to the leg's
    @package and @version when both are given, else any) is that known
    issue's: known is [{"ident", "line", "count"}], one entry per distinct
    line (timestamp, CPU and PID aside), in order.  Every other splat line
    is a problem: "<kind>: <line>", as before.
    """
    kis = [ki for ki in results.KNOWN_ISSUES if ki.family and
           (package is None or version is None or ki.applies(package, version))]
    known, seen, problems = [], {}, []
    lines = console_text.splitlines()
    for i, raw in enumerate(lines):
        k = results.splat_kind(raw)
        if not k:
            continue
        kind, line = k[0], raw.strip()
        ki = next((x for x in kis if x.in_family(lines, i)), None)
        if ki is None:
            problems.append(f"{kind}: {line}")
            continue
        msg = results.klog_message(line).strip()
        key = (ki.ident, _CPU_PID.sub("CPU: * PID: *", msg))
        if key in seen:
            seen[key]["count"] += 1
        else:
            seen[key] = {"ident": ki.ident, "line": msg, "count": 1}
            known.append(seen[key])
    return known, problems


def cmtime_failures(text):
    """cmtime's "failure ..." lines (rdma-core 44 perror()s them, e.g.
    "failure creating qp: No such file or directory", and goes on: its
    table then times connections that were never made)."""
    return [line.strip() for line in text.splitlines() if line.strip().startswith("failure ")]


# --------------------------------------------------------------------------
# each item from the report
# --------------------------------------------------------------------------

def cm_results(rep, n, n_siw=None):
    """Per device: rows of us/conn (wall / N) for cmkit and cmtime, the total,
    connections per second, and their ratios; N is @n on rxe0, @n_siw (or
    @n) on siw0, and each device's "n" records it.  A cmkit result of
    another N is an error.  A cmtime repetition that
    printed "failure ..." lines is an error, not counted: "cmtime_failures"
    says how many lines, in which repetitions, and the first."""
    out = {}
    coarse = rep.coarse
    ns = {"rxe0": n, "siw0": n_siw or n}
    for dev, n in ns.items():
        mine, theirs, errors = {}, {}, []
        failed = {"count": 0, "reps": [], "first": None}
        for r in rep.select("cm", "cmkit", dev):
            obj = first_json(r["text"])
            if r["rc"] or not obj or "error" in (obj or {}):
                errors.append(f"cmkit rep {r['rep']}: {obj.get('error') if obj else 'no result'}")
                continue
            if obj.get("n", n) != n:
                errors.append(f"cmkit rep {r['rep']}: ran N={obj['n']}, not N={n}")
                continue
            mine[r["rep"]] = obj
        for r in rep.select("cm", "cmtime", dev):
            fails = cmtime_failures(r["text"])
            if fails:
                errors.append(f"cmtime rep {r['rep']}: {len(fails)} cmtime failure(s), "
                              "not counted")
                failed["count"] += len(fails)
                failed["reps"].append(r["rep"])
                failed["first"] = failed["first"] or fails[0]
                continue
            steps = parse_cmtime(r["text"])
            if r["rc"] or "connect" not in steps:
                errors.append(f"cmtime rep {r['rep']}: exit {r['rc']}, "
                              f"{r['text'].strip().splitlines()[-1] if r['text'].strip() else 'no output'}")
                continue
            theirs[r["rep"]] = steps
        if not mine and not theirs:
            continue
        rows = []
        for name, cmkit_steps, cmtime_step in CM_ROWS + [("total", None, None)]:
            def wall_mine(obj):
                if cmkit_steps is None:
                    return obj["total_us"]
                return sum(obj["steps"][s]["wall_us"] for s in cmkit_steps)

            def wall_theirs(steps):
                if name == "total":
                    return sum(s["wall_us"] for s in steps.values())
                return steps[cmtime_step]["wall_us"] if cmtime_step in steps else None

            mw = {k: wall_mine(o) for k, o in mine.items()}
            tw = {k: wall_theirs(s) for k, s in theirs.items()} if \
                (cmtime_step or name == "total") else {}
            tw = {k: v for k, v in tw.items() if v is not None}
            fm = figure([v / n for v in mw.values()], "us/conn",
                        min(mw.values()) if mw else None, coarse)
            ft = figure([v / n for v in tw.values()], "us/conn",
                        min(tw.values()) if tw else None, coarse)
            pairs = [(mw[k] / n, tw[k] / n) for k in mw if k in tw]
            rows.append({"step": name, "cmkit": fm, "cmtime": ft,
                         "ratio": ratio(fm, ft, pairs) if not (coarse and (
                             (fm and fm.get("refused")) or (ft and ft.get("refused"))))
                         else None})
        cps_m = {k: n / (o["total_us"] / 1e6) for k, o in mine.items() if o["total_us"]}
        cps_t = {k: n / (sum(s["wall_us"] for s in st.values()) / 1e6)
                 for k, st in theirs.items()}
        fcm, fct = figure(list(cps_m.values()), "conn/s"), figure(list(cps_t.values()), "conn/s")
        r = ratio(fcm, fct, [(cps_m[k], cps_t[k]) for k in cps_m if k in cps_t])
        out[dev] = {"n": n, "rows": rows, "conn_per_s": {"cmkit": fcm, "cmtime": fct,
                                                          "ratio": r, "meets": meets("cm", r)},
                    "cmtime_failures": failed, "errors": errors}
    return out


IRDMA_MODES = ("backlog", "concurrent")


def irdma_results(rep):
    """Per mode, events/s of cmkit and the baseline and their ratio.  backlog:
    the drain (from letting the workqueue go to the last connection's end),
    the handler's alone; concurrent: first post to last end, which the single
    posting thread bounds.  The target is judged on backlog."""
    out, bad = {"modes": {}}, []
    for mode in IRDMA_MODES:
        eps = {"cmkit": {}, "baseline": {}}
        for impl in eps:
            for r in rep.select("irdma", impl, what=mode):
                obj = first_json(r["text"])
                if r["rc"] or not obj or "error" in obj:
                    bad.append(f"{impl} {mode} rep {r['rep']}: "
                               f"{obj.get('error') if obj else 'no result'}")
                    continue
                if obj.get("misordered") or obj.get("violations"):
                    bad.append(f"{impl} {mode} rep {r['rep']}: per-node order broken "
                               f"({obj['misordered']} misordered, {obj['violations']} violations)")
                    continue
                out["events"], out["nodes"] = obj["events"], obj["nodes"]
                post, total = obj.get("post_us") or 0.0, obj["elapsed_us"]
                span = total - post if mode == "backlog" else total
                if span <= 0:
                    bad.append(f"{impl} {mode} rep {r['rep']}: no time measured")
                    continue
                eps[impl][r["rep"]] = {"eps": obj["events"] / (span / 1e6), "span": span,
                                       "post_share": post / total if total else None,
                                       "post_eps": obj["events"] / (post / 1e6) if post else None,
                                       "per_run": obj["events"] / obj["work_runs"]
                                       if obj.get("work_runs") else None}
        if not eps["cmkit"] and not eps["baseline"]:
            continue
        f = {impl: figure([v["eps"] for v in d.values()], "events/s",
                          min((v["span"] for v in d.values()), default=None), rep.coarse)
             for impl, d in eps.items()}
        pairs = [(eps["cmkit"][k]["eps"], eps["baseline"][k]["eps"]) for k in eps["cmkit"]
                 if k in eps["baseline"]]
        r = ratio(f["cmkit"], f["baseline"], pairs)
        detail = {impl: {k: figure([v[k] for v in d.values()], "")
                         for k in ("post_share", "post_eps", "per_run")}
                  for impl, d in eps.items()}
        out["modes"][mode] = {"cmkit": f["cmkit"], "baseline": f["baseline"], "ratio": r,
                              "detail": detail}
    if not out["modes"]:
        return None
    judged = out["modes"].get("backlog") or {}
    out.update(ratio=judged.get("ratio"), meets=meets("irdma", judged.get("ratio")),
               errors=bad)
    return out


def rpc_results(rep):
    per = {"cmkit": {}, "cmkit-peer": {}}
    errors = []
    for impl in per:
        for r in rep.select("rpc", impl):
            obj = json_with(r["text"], "rpc", "summary") or first_json(r["text"])
            rtt = (obj or {}).get("rtt_us")
            if not rtt or not rtt.get("count"):
                errors.append(f"{impl} rep {r['rep']}: exit {r['rc']}, no round trips")
                continue
            per[impl][r["rep"]] = rtt
    out = {"errors": errors}
    for stat in ("median", "p99"):
        f = {impl: figure([v[stat] for v in d.values()], "us",
                          min((v["min"] for v in d.values()), default=None), rep.coarse)
             for impl, d in per.items()}
        pairs = [(per["cmkit"][k][stat], per["cmkit-peer"][k][stat])
                 for k in per["cmkit"] if k in per["cmkit-peer"]]
        r = None if rep.coarse else ratio(f["cmkit"], f["cmkit-peer"], pairs)
        out[stat] = {"cmkit": f["cmkit"], "cmkit-peer": f["cmkit-peer"], "ratio": r,
                     "meets": meets("rpc", r)}
    return out


def srp_results(rep):
    rows, errors = [], []
    for what in ("write 1024K", "read 1024K", "write 4K", "read 4K"):
        bs = int(what.split()[1][:-1]) * 1024
        vals = {"cmkit": {}, "lio": {}}
        for impl in vals:
            for r in rep.select("srp", impl, what=what):
                words = r["text"].split()
                if r["rc"] or len(words) < 2 or float(words[0]) <= 0:
                    errors.append(f"{impl} {what} rep {r['rep']}: exit {r['rc']}")
                    continue
                secs, nbytes = float(words[0]), int(words[1])
                vals[impl][r["rep"]] = (nbytes / 1e6 / secs, nbytes / bs / secs)
        if not vals["cmkit"] and not vals["lio"]:
            continue
        row = {"what": what}
        for k, unit in ((0, "MB/s"), (1, "IOPS")):
            f = {impl: figure([v[k] for v in d.values()], unit) for impl, d in vals.items()}
            pairs = [(vals["cmkit"][x][k], vals["lio"][x][k]) for x in vals["cmkit"]
                     if x in vals["lio"]]
            r = ratio(f["cmkit"], f["lio"], pairs)
            row[unit] = {"cmkit": f["cmkit"], "lio": f["lio"], "ratio": r,
                         "meets": meets("srp", r)}
        rows.append(row)
    return {"rows": rows, "errors": errors}


def nfs_results(rep):
    """The nfs item: per depth, each side's MiB/s over the repetitions
    ("seconds bytes" per measurement) and cmkit's over the kernel client's."""
    rows, errors = [], []
    for depth in NFS_DEPTHS:
        what = f"depth {depth}"
        vals = {"cmkit": {}, "kernel": {}}
        for impl, d in vals.items():
            for r in rep.select("nfs", impl, what=what):
                words = (r["text"].splitlines() or [""])[0].split()
                if r["rc"] or len(words) < 2 or float(words[0]) <= 0:
                    errors.append(f"{impl} {what} rep {r['rep']}: exit {r['rc']}")
                    continue
                d[r["rep"]] = int(words[1]) / (1 << 20) / float(words[0])
        if not vals["cmkit"] and not vals["kernel"]:
            continue
        f = {impl: figure(list(d.values()), "MiB/s") for impl, d in vals.items()}
        pairs = [(vals["cmkit"][x], vals["kernel"][x]) for x in vals["cmkit"]
                 if x in vals["kernel"]]
        r = ratio(f["cmkit"], f["kernel"], pairs)
        rows.append({"depth": depth, "cmkit": f["cmkit"], "kernel": f["kernel"], "ratio": r,
                     "meets": meets("nfs", r)})
    return {"rows": rows, "errors": errors}


def not_available(rep, item):
    return [f"{impl}: {why}" for it, impl, why in rep.na if it == item]


# --------------------------------------------------------------------------
# item 1: harness cost
# --------------------------------------------------------------------------

def guest_phases(status_text):
    """make test's phases inside the guest, from its CMKIT phase lines:
    [(name, seconds)], e.g. ("setup", 1.2), ("cmkit_smoke.devices", 0.4)."""
    out = []
    for line in status_text.splitlines():
        w = line.split()
        if len(w) == 4 and w[:2] == ["CMKIT", "phase"]:
            try:
                out.append((w[2], float(w[3])))
            except ValueError:
                pass
    return out


def harness_cycle(kver, suites="*"):
    """One make test cycle of @kver and @suites (its per-kernel part: no host checks):
    its phases in seconds, in order, and the test bodies.

    Host-measured: kernel (the cache lookup), modules, initramfs, boot (QEMU
    start to the status port's "CMKIT init", polled every 0.2 s), guest
    (QEMU start to exit), parse.  Guest-measured (/proc/uptime): boot.kernel
    (the kernel's uptime at /init), then /init's CMKIT phase lines.
    """
    t0 = time.time()
    info, v, accel, boot = run.run_kernel(kver, suites)
    wall = time.time() - t0
    status = open(boot.status, errors="replace").read()
    host = dict(v.phases)
    phases = {k: host.get(k, 0.0) for k in ("kernel", "modules", "initramfs", "boot")}
    m = re.search(r"^CMKIT init ([\d.]+)", status, re.M)
    if m:
        phases["boot.kernel"] = float(m.group(1))
    inside = guest_phases(status)
    bodies = sum(s for k, s in inside if k.endswith(".body"))
    phases.update(inside)
    phases["guest"] = v.guest_seconds
    phases["parse"] = v.parse_seconds
    cycle = (phases["kernel"] + phases["modules"] + phases["initramfs"] + v.guest_seconds +
             v.parse_seconds)
    return {"ok": v.ok, "accel": accel, "phases": phases, "cycle": cycle, "bodies": bodies,
            "overhead": cycle - bodies, "wall": wall,
            "passed": v.passed, "failed": v.failed, "skipped": v.skipped}


def kunit_py_dir(info):
    return os.path.join(kernel.cache_dir(), "kunit-py",
                        f"{info['kver']}-{kernel.safe(info['version'])}")


def kunit_py_run(info, build_dir):
    """One `kunit.py run` of lib/kunit/.kunitconfig on x86_64: (seconds, its
    own elapsed-time line, ok)."""
    src = info["source"]
    argv = [sys.executable, os.path.join(src, "tools", "testing", "kunit", "kunit.py"), "run",
            "--kunitconfig", "lib/kunit/.kunitconfig", "--arch", "x86_64",
            f"--build_dir={build_dir}", f"--jobs={os.cpu_count() or 1}"]
    os.makedirs(os.path.join(TOP, "build", "logs"), exist_ok=True)
    os.makedirs(os.path.dirname(build_dir), exist_ok=True)    # kunit.py makes the last one
    log = os.path.join(TOP, "build", "logs", "kunit-py.log")
    with kernel.machine_lock("a kernel build or another guest"):
        t0 = time.time()
        r = subprocess.run(argv, cwd=src, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace")
        secs = time.time() - t0
    with open(log, "a") as f:
        f.write(f"$ {' '.join(argv)}\n{r.stdout}\n")
    m = re.search(r"Elapsed time: ([\d.]+)s total, ([\d.]+)s configuring, ([\d.]+)s building, "
                  r"([\d.]+)s running", r.stdout)
    own = dict(zip(("total", "configuring", "building", "running"),
                   (float(x) for x in m.groups()))) if m else {}
    return secs, own, r.returncode == 0


def bench_harness(kver, reps, suites="*"):
    info = json.load(open(os.path.join(kernel.ensure(kver), "done.json")))
    build_dir = kunit_py_dir(info)
    if not os.path.exists(os.path.join(build_dir, ".cmkit-cold-done")):
        say(f"kunit.py: first (cold) build of lib/kunit/.kunitconfig for x86_64 in "
            f"{build_dir} (untimed)")
        secs, _, ok = kunit_py_run(info, build_dir)
        if not ok:
            raise HarnessError("kunit.py's cold run failed (build/logs/kunit-py.log)")
        open(os.path.join(build_dir, ".cmkit-cold-done"), "w").close()
        say(f"kunit.py: cold run took {secs:.0f} s")
    # The first make test cycle after a change rebuilds; warm it up untimed.
    say(f"{kver}: one untimed make test cycle to warm the caches")
    harness_cycle(kver, suites)
    cycles, kunits = [], []
    for i in range(reps):
        order = ("cmkit", "kunit") if i % 2 == 0 else ("kunit", "cmkit")
        for side in order:
            if side == "cmkit":
                say(f"harness rep {i + 1}/{reps}: make test's cycle on {kver}")
                cycles.append(harness_cycle(kver, suites))
            else:
                say(f"harness rep {i + 1}/{reps}: kunit.py run (warm)")
                secs, own, ok = kunit_py_run(info, build_dir)
                kunits.append({"seconds": secs, "own": own, "ok": ok})
    names = []
    for c in cycles:
        for k in c["phases"]:
            if k not in names:
                names.append(k)
    phases = {k: figure([c["phases"].get(k) for c in cycles], "s") for k in names}
    fk = figure([k["seconds"] for k in kunits if k["ok"]], "s")
    fo = figure([c["overhead"] for c in cycles if c["ok"]], "s")
    pairs = list(zip([c["overhead"] for c in cycles], [k["seconds"] for k in kunits]))
    r = ratio(fo, fk, pairs)
    return {"kernel": kver, "release": info["release"], "suites": suites, "phases": phases,
            "cycle": figure([c["cycle"] for c in cycles], "s"),
            "bodies": figure([c["bodies"] for c in cycles], "s"),
            "overhead": fo, "kunit_py": fk,
            "kunit_py_own": {k: figure([x["own"].get(k) for x in kunits], "s")
                             for k in ("configuring", "building", "running")},
            "ratio": r, "meets": meets("harness", r),
            "runs_ok": all(c["ok"] for c in cycles) and all(k["ok"] for k in kunits)}


# --------------------------------------------------------------------------
# items 2-5: the bench guest
# --------------------------------------------------------------------------

def module_deps(kdir_build, names):
    """The .ko files of in-tree modules @names and what they depend on, in
    load order (dependencies first)."""
    found = {}
    for root, _, files in os.walk(kdir_build):
        for f in files:
            if f.endswith(".ko"):
                found[f[:-3].replace("-", "_")] = os.path.join(root, f)
    order = []

    def visit(name):
        name = name.replace("-", "_")
        if name in order:
            return
        if name not in found:
            return          # built in
        deps = subprocess.run(["modinfo", "-F", "depends", found[name]],
                              stdout=subprocess.PIPE, text=True).stdout.strip()
        for d in filter(None, deps.split(",")):
            visit(d)
        order.append(name)

    for n in names:
        visit(n)
    # Named as the guest finds them: /lib/cmkit/<file name>.
    return [(os.path.basename(found[n])[:-3], found[n]) for n in order]


def guest_params(args):
    """scripts/guest/bench.sh's cmkit.bench= value (key:value,...)."""
    return (f"n:{args.n},n_siw:{args.n_siw},reps:{args.reps},"
            f"irdma_nodes:{args.irdma_nodes},irdma_events:{args.irdma_events},"
            f"rpc_calls:{args.rpc_calls},srp_mb:{args.srp_mb},nfs_reads:{args.nfs_reads},"
            f"items:{'+'.join(args.guest_items)}")


def bench_guest(kver, args):
    leg = f"{kver}-bench"
    kdir = kernel.ensure(leg)
    info = json.load(open(os.path.join(kdir, "done.json")))
    log = os.path.join(TOP, "build", "logs", f"modules-{leg}.log")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    say(f"{leg}: building cmkit.ko and cmkit_bench.ko")
    with open(log, "w") as f:
        r = subprocess.run(["make", "-C", TOP, "--no-print-directory", "modules", f"KVER={leg}",
                            f"KDIR={info['build']}", "CMKIT_BENCH=1"],
                           stdout=f, stderr=subprocess.STDOUT)
    if r.returncode:
        sys.stdout.write(open(log).read()[-3000:])
        raise SystemExit(f"[bench] module build failed (log: {log})")
    moddir = os.path.join(TOP, "build", "mod", leg)
    kos = [os.path.join(moddir, k) for k in ("cmkit.ko", "cmkit_bench.ko")]
    # crc-t10dif (for target_core_mod) finds its algorithm by name: load it first.
    kmods = module_deps(info["build"], ["crct10dif_generic", "target_core_mod", "ib_srpt"])
    initrd = run.make_initrd(leg, kos + [p for _, p in kmods])
    accel = run.choose_accel(info["bzImage"], initrd)
    params = guest_params(args)
    # Not panic_on_warn: a WARN is listed and the other figures are still
    # measured.  siw's listener teardown WARNs in siw_cep_put() from
    # siw_destroy_listen() now and then (KI-3): listed as that known issue;
    # any other WARN is a problem that fails the run.  An oops still ends
    # the guest.
    cmdline = " ".join(w for w in run.CMDLINE.split() if w != "panic_on_warn=1")
    append = " ".join(filter(None, [cmdline, info.get("cmdline", ""), "cmkit.mode=bench",
                                    f"cmkit.bench={params}",
                                    f"cmkit.bench_kmods={','.join(n for n, _ in kmods)}"
                                    if kmods else ""]))
    out = os.path.join(OUT, "guest")
    shutil.rmtree(out, ignore_errors=True)
    say(f"{leg}: booting {info['release']} ({accel}): {params}")
    boot = run.Boot(out, "").run(info["bzImage"], initrd, accel, append,
                                 float(os.environ.get("CMKIT_TIMEOUT", "3600")))
    console, status = boot.texts()
    rep = BenchReport(status)
    # A known kernel bug's WARNs (KI-3's siw_cep_put() on siw0) are listed
    # as that known issue and do not fail the run; any other splat does.
    known, problems = splat_problems(console, info.get("package"), info.get("version"))
    if boot.hung:
        problems.append("the bench guest did not finish in time")
    elif not rep.done:
        problems.append("the bench guest did not power off cleanly")
    problems += [f"guest: {e}" for e in rep.errors]
    say(f"{leg}: guest {boot.seconds:.0f} s, clock {rep.clock}; console and status in "
        f"{os.path.relpath(out, TOP)}/")
    res = {"leg": leg, "release": info["release"], "accel": accel, "clocksource": rep.clock,
           "clocksources": rep.clocks, "guest_seconds": boot.seconds, "problems": problems,
           "known_issues": known}
    if "cm" in args.guest_items:
        res["cm"] = cm_results(rep, args.n, args.n_siw)
    if "irdma" in args.guest_items:
        res["irdma"] = irdma_results(rep)
    if "rpc" in args.guest_items:
        res["rpc"] = rpc_results(rep)
        res["rpc"]["not_available"] = not_available(rep, "rpc")
    if "srp" in args.guest_items:
        res["srp"] = srp_results(rep)
        res["srp"]["not_available"] = not_available(rep, "srp")
        res["srp"]["notes"] = [n for it, n in rep.notes if it == "srp"]
    if "nfs" in args.guest_items:
        res["nfs"] = nfs_results(rep)
        res["nfs"]["not_available"] = not_available(rep, "nfs")
        res["nfs"]["notes"] = [n for it, n in rep.notes if it == "nfs"]
    return res


# --------------------------------------------------------------------------
# the table
# --------------------------------------------------------------------------

def fmt(f, digits=None):
    if f is None:
        return "-"
    if f.get("refused"):
        return "refused (<1 ms, jiffies clock)"
    m, lo, hi = f["median"], f["min"], f["max"]
    if digits is None:
        digits = 0 if abs(m) >= 100 else (1 if abs(m) >= 10 else 2)
    return f"{m:.{digits}f} [{lo:.{digits}f}..{hi:.{digits}f}]"


def fmt_ratio(r, item=None, show_target=True):
    if not r:
        return "-"
    s = f"{r['value']:.2f}x"
    if "min" in r:
        s += f" [{r['min']:.2f}..{r['max']:.2f}]"
    if item and show_target:
        op, t = TARGETS[item]
        s += f"  target {op} {t}: {'met' if meets(item, r) else 'NOT met'}"
    return s


def notes(add, item):
    """An item's notes, "not available yet" reasons and errors, a line each."""
    for n in item.get("notes", []):
        add(f"   note: {n}")
    for why in item.get("not_available", []):
        add(f"   not available yet: {why}")
    for e in item["errors"]:
        add(f"   error: {e}")


def harness_list(res):
    """res["harness"]: one dict per kernel (a results.json of before, one dict)."""
    h = res.get("harness") or []
    return [h] if isinstance(h, dict) else h


def table(res):
    lines = []
    add = lines.append
    add("cmkit benchmarks: median [min..max] over the repetitions; ratio = cmkit / other, "
        "both from this run")
    g = res.get("guest")
    if g:
        add(f"bench guest: {g['release']} ({g['accel']}), clocksource {g['clocksource']}, "
            f"{g['guest_seconds']:.0f} s")
    if res.get("load"):
        add(f"host load average at start: {res['load']}")
    for h in harness_list(res):
        add("")
        if h.get("error"):
            add(f"1. harness cost, {h['kernel']}: error: {h['error']}")
            continue
        add(f"1. harness cost, {h['kernel']} ({h['release']}), suites {h.get('suites', '*')}: "
            "make test's phases vs kunit.py run lib/kunit/.kunitconfig --arch x86_64 (warm)")
        for k, f in h["phases"].items():
            add(f"   {k:<34} {fmt(f, 2):>24} s")
        add(f"   {'cycle (all of the above)':<34} {fmt(h['cycle'], 1):>24} s")
        add(f"   {'test bodies':<34} {fmt(h['bodies'], 1):>24} s")
        add(f"   {'overhead (cycle - bodies)':<34} {fmt(h['overhead'], 1):>24} s")
        add(f"   {'kunit.py warm cycle':<34} {fmt(h['kunit_py'], 1):>24} s"
            + "".join(f"  {k} {fmt(f, 1)}" for k, f in h["kunit_py_own"].items() if f))
        add(f"   overhead / kunit.py on {h['kernel']}: {fmt_ratio(h['ratio'], 'harness')}")
    cm = (g or {}).get("cm")
    if cm:
        for dev, d in cm.items():
            add("")
            add(f"2. CM churn on {dev}, N={d['n']}: us per connection (step wall time / N); "
                "ratio = cmkit / cmtime time")
            add(f"   {'step':<19} {'cmkit (in-kernel)':>24} {'cmtime (rdma-core)':>24}  ratio")
            for row in d["rows"]:
                add(f"   {row['step']:<19} {fmt(row['cmkit']):>24} {fmt(row['cmtime']):>24}  "
                    f"{fmt_ratio(row['ratio'])}")
            c = d["conn_per_s"]
            add(f"   {'connections/s':<19} {fmt(c['cmkit']):>24} {fmt(c['cmtime']):>24}  "
                f"{fmt_ratio(c['ratio'], 'cm')}")
            for e in d["errors"]:
                add(f"   error: {e}")
            f = d.get("cmtime_failures") or {}
            if f.get("count"):
                add(f"   cmtime failures: {f['count']} in rep(s) "
                    f"{', '.join(str(x) for x in f['reps'])}, not counted; first: {f['first']}")
    rpc = (g or {}).get("rpc")
    if rpc:
        add("")
        add("3. RPC NULL round trip on rxe0 (us; one call in flight): cmkit's endpoint vs "
            "cmkit-peer call, both to cmkit-peer serve --rpc")
        for stat in ("median", "p99"):
            s = rpc[stat]
            add(f"   {stat:<8} cmkit {fmt(s['cmkit']):>24}   cmkit-peer {fmt(s['cmkit-peer']):>24}"
                f"  {fmt_ratio(s['ratio'], 'rpc') if s['ratio'] else 'ratio: -'}")
        notes(add, rpc)
    srp = (g or {}).get("srp")
    if srp:
        add("")
        add("4. SRP throughput, ib_srp over rxe0, sequential dd with direct I/O: cmkit's RAM LUN "
            "vs ib_srpt + LIO rd_mcp")
        for row in srp["rows"]:
            for unit in ("MB/s", "IOPS"):
                s = row[unit]
                add(f"   {row['what']:<12} {unit:<5} cmkit {fmt(s['cmkit']):>22}   "
                    f"lio {fmt(s['lio']):>22}  {fmt_ratio(s['ratio'], 'srp') if s['ratio'] else ''}")
        notes(add, srp)
    ir = (g or {}).get("irdma")
    if ir:
        add("")
        add(f"5. irdma event pipeline: {ir.get('nodes')} nodes, {ir.get('events')} events, "
            "per-node order kept (events/s)")
        labels = {"backlog": "handler, from a backlog (all posted first, then drained)",
                  "concurrent": "end to end, handled while one thread posts"}
        for mode in IRDMA_MODES:
            m = ir["modes"].get(mode)
            if not m:
                continue
            add(f"   {labels[mode]}:")
            add(f"     cmkit (irdma_cm_event_handler)   {fmt(m['cmkit']):>28}")
            add(f"     one work item per event          {fmt(m['baseline']):>28}")
            add(f"     cmkit / baseline: {fmt_ratio(m['ratio'], 'irdma', mode == 'backlog')}")
            for impl in ("cmkit", "baseline"):
                d = m["detail"].get(impl) or {}
                if mode == "concurrent" and d.get("post_share"):
                    add(f"     {impl:<8} share of the time in the posting loop "
                        f"{fmt(d['post_share'], 2)}, events per work run {fmt(d.get('per_run'), 1)}")
                elif d.get("post_eps"):
                    add(f"     {impl:<8} posting alone {fmt(d['post_eps'])} events/s, "
                        f"events per work run {fmt(d.get('per_run'), 1)}")
        for e in ir["errors"]:
            add(f"   error: {e}")
    nfs = (g or {}).get("nfs")
    if nfs:
        add("")
        add("6. NFS READ throughput of nfsd's 1 MiB export file over rxe0 (MiB/s): cmkit's "
            "nfs4 read vs the kernel's NFS client (vers=4.0, proto=rdma, dd with O_DIRECT)")
        for row in nfs["rows"]:
            add(f"   {row['depth']} in flight  cmkit {fmt(row['cmkit']):>22}   "
                f"kernel {fmt(row['kernel']):>22}  "
                f"{fmt_ratio(row['ratio'], 'nfs') if row['ratio'] else ''}")
        notes(add, nfs)
    shown = {}
    for k in (g or {}).get("known_issues", []):
        shown[k["ident"]] = shown.get(k["ident"], 0) + 1
        if shown[k["ident"]] <= KNOWN_LINES_SHOWN:
            add(f"known issue {k['ident']} ({k['line']})"
                + (f" x{k['count']}" if k["count"] > 1 else ""))
    for ident, count in shown.items():
        if count > KNOWN_LINES_SHOWN:
            add(f"known issue {ident}: {count - KNOWN_LINES_SHOWN} more distinct lines "
                "(results.json)")
    for p in (g or {}).get("problems", []):
        add(f"problem: {p}")
    return "\n".join(lines)


# --------------------------------------------------------------------------
# plots (gnuplot, from results.json's figures)
# --------------------------------------------------------------------------

def gnuplot(script, name):
    path = os.path.join(OUT, name)
    r = subprocess.run(["gnuplot"], input=f"set terminal svg size 900,500 dynamic "
                       f"font 'sans,11'\nset output '{path}'\n" + script,
                       text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode:
        say(f"gnuplot failed for {name}: {r.stdout.strip()[-300:]}")
        return None
    return path


def _val(f, k="median"):
    return f[k] if f and f.get(k) is not None else "NaN"


def plot_using(data, sides):
    """gnuplot's plot command for a histogram with error bars of @sides
    [(title, has values)], columns 2-4 for the first, 5-7 for the second:
    a side without any value is left out (gnuplot refuses a histogram
    column of NaN alone)."""
    parts = []
    for i, (title, present) in enumerate(sides):
        if present:
            c = 2 + 3 * i
            parts.append(f"using {c}:{c + 1}:{c + 2}:xtic(1) title \"{title}\" noenhanced")
    if not parts:
        return "plot NaN notitle"
    return f"plot '{data}' " + ", '' ".join(parts)


def _has(rows, side, key=None):
    return any((r[key] if key else r)[side] and (r[key] if key else r)[side].get("median")
               is not None for r in rows)


def plot_cm(cm):
    paths = []
    for dev, d in cm.items():
        data = os.path.join(OUT, f"cm_churn_{dev}.dat")
        with open(data, "w") as f:
            f.write("# step cmkit min max cmtime min max (us/conn)\n")
            for row in d["rows"]:
                if row["step"] in ("connect", "establish", "total"):
                    continue
                m, t = row["cmkit"], row["cmtime"]
                f.write(f"\"{row['step']}\" {_val(m)} {_val(m, 'min')} {_val(m, 'max')} "
                        f"{_val(t)} {_val(t, 'min')} {_val(t, 'max')}\n")
        c = d["conn_per_s"]
        title = (f"CM churn on {dev}, N={d['n']}: us per connection per step "
                 f"(median, min..max); connections/s cmkit {_val(c['cmkit'])!s:.8} "
                 f"vs cmtime {_val(c['cmtime'])!s:.8}")
        p = gnuplot(f"""set title "{title}" noenhanced
set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set ylabel "us per connection (step wall time / N)"
set xtics rotate by -20 noenhanced
set key top left
set yrange [0:*]
set grid ytics
{plot_using(data, [("cmkit (in-kernel)", _has(d["rows"], "cmkit")),
                    ("cmtime (rdma-core)", _has(d["rows"], "cmtime"))])}
""", f"cm_churn_{dev}.svg")
        if p:
            paths.append(p)
    return paths


def plot_srp(srp):
    data = os.path.join(OUT, "srp_throughput.dat")
    with open(data, "w") as f:
        f.write("# what cmkit min max lio min max (MB/s)\n")
        for row in srp.get("rows", []):
            m, t = row["MB/s"]["cmkit"], row["MB/s"]["lio"]
            f.write(f"\"{row['what']}\" {_val(m)} {_val(m, 'min')} {_val(m, 'max')} "
                    f"{_val(t)} {_val(t, 'min')} {_val(t, 'max')}\n")
    missing = "; ".join(srp.get("not_available", []))
    note = f'set label 1 "not available yet: {missing}" at graph 0.02, graph 0.95 ' \
           f'noenhanced font ",9"\n' if missing else ""
    if not srp.get("rows"):
        return gnuplot(note + 'set title "SRP throughput: no data"\nunset xtics\nunset ytics\n'
                       'set xrange [0:1]\nset yrange [0:1]\nplot NaN notitle\n',
                       "srp_throughput.svg")
    return gnuplot(f"""set title "SRP throughput through ib_srp over rxe0 (MB/s, median, min..max)"
{note}set style data histograms
set style histogram errorbars gap 2 lw 1
set style fill solid 0.6 border -1
set ylabel "MB/s"
set key top right
set yrange [0:*]
set grid ytics
{plot_using(data, [("cmkit RAM LUN", _has(srp["rows"], "cmkit", "MB/s")),
                    ("ib_srpt + LIO rd_mcp", _has(srp["rows"], "lio", "MB/s"))])}
""", "srp_throughput.svg")


def plot_harness(h):
    """harness-<kernel>.svg: one kernel's make test phases."""
    data = os.path.join(OUT, f"harness-{h['kernel']}.dat")
    with open(data, "w") as f:
        f.write("# phase seconds\n")
        for k, fig in h["phases"].items():
            if k != "guest":
                f.write(f"\"{k}\" {_val(fig)}\n")
    return gnuplot(f"""set title "make test's phases on {h['kernel']} (median s); kunit.py warm cycle {_val(h['kunit_py'])!s:.5} s" noenhanced
set style data histograms
set style fill solid 0.6 border -1
set ylabel "seconds"
set xtics rotate by -45 noenhanced font ",8"
set yrange [0:*]
set grid ytics
plot '{data}' using 2:xtic(1) notitle
""", f"harness-{h['kernel']}.svg")


# --------------------------------------------------------------------------

def parse_args(argv):
    """bench.py's arguments, checked: args.items, .guest_items and
    .harness_kernels are lists."""
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kernel", default="6.12")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--harness-reps", type=int, default=3)
    ap.add_argument("--harness-kernels", default=",".join(HARNESS_KERNELS),
                    help="the kernels the harness item runs on, a comma list")
    ap.add_argument("--suites", default="*", help="make test's suites in the harness cycles")
    ap.add_argument("--n", type=int, default=300, help="CM churn connections on rxe0")
    ap.add_argument("--n-siw", type=int, default=SIW_N,
                    help="CM churn connections on siw0 (both sides; see SIW_N)")
    ap.add_argument("--items", default="harness,cm,irdma,rpc,srp,nfs")
    ap.add_argument("--irdma-nodes", type=int, default=100)
    ap.add_argument("--irdma-events", type=int, default=10000, help="per node")
    ap.add_argument("--rpc-calls", type=int, default=2000)
    ap.add_argument("--srp-mb", type=int, default=64)
    ap.add_argument("--nfs-reads", type=int, default=64,
                    help="reads of the 1 MiB file per NFS measurement")
    args = ap.parse_args(argv[1:])
    items = [i for i in args.items.replace(",", " ").split() if i]
    bad = [i for i in items if i not in TARGETS]
    if bad or args.reps < 1 or args.harness_reps < 1 or args.n < 1 or args.n_siw < 1:
        ap.error(f"unknown item(s) {bad}" if bad else "counts start at 1")
    if args.kernel not in kernel.SERIES:
        ap.error(f"--kernel is one of {' '.join(kernel.SERIES)}")
    args.harness_kernels = [k for k in args.harness_kernels.replace(",", " ").split() if k]
    if not args.harness_kernels or any(k not in kernel.SERIES for k in args.harness_kernels):
        ap.error(f"--harness-kernels: a comma list of {' '.join(kernel.SERIES)}")
    args.items = items
    args.guest_items = [i for i in items if i != "harness"]
    return args


def main(argv):
    args = parse_args(argv)
    items = args.items
    os.makedirs(OUT, exist_ok=True)
    res = {"kernel": args.kernel, "when": time.strftime("%Y-%m-%d %H:%M"),
           "load": " ".join(open("/proc/loadavg").read().split()[:3]),
           "params": {k: v for k, v in vars(args).items() if k != "guest_items"},
           "targets": {k: f"{op} {t}" for k, (op, t) in TARGETS.items()}}
    if args.guest_items:
        res["guest"] = bench_guest(args.kernel, args)
    if "harness" in items:
        res["harness"] = []
        for k in args.harness_kernels:
            try:
                res["harness"].append(bench_harness(k, args.harness_reps, args.suites))
            except HarnessError as e:
                say(f"harness on {k}: {e}")
                res["harness"].append({"kernel": k, "error": str(e), "runs_ok": False})
    path = os.path.join(OUT, "results.json")
    with open(path, "w") as f:
        json.dump(res, f, indent=1)
    text = table(res)
    with open(os.path.join(OUT, "table.txt"), "w") as f:
        f.write(text + "\n")
    print(text)
    plots = []
    if shutil.which("gnuplot"):
        if res.get("guest", {}).get("cm"):
            plots += plot_cm(res["guest"]["cm"])
        if "srp" in res.get("guest", {}):
            plots.append(plot_srp(res["guest"]["srp"]))
        plots += [plot_harness(h) for h in harness_list(res) if not h.get("error")]
    else:
        say("gnuplot is not installed (make setup installs gnuplot-nox): no plots")
    say(f"results: {os.path.relpath(path, TOP)}; table: build/bench/table.txt; plots: "
        + (", ".join(os.path.relpath(p, TOP) for p in plots if p) or "none"))
    problems = res.get("guest", {}).get("problems", [])
    for h in harness_list(res):
        if not h["runs_ok"]:
            problems.append(f"{h['kernel']}: a make test cycle or a kunit.py run failed "
                            "during the harness bench")
    return 1 if problems else 0


if __name__ == "__main__":
    with kernel.tree_lock():
        sys.exit(main(sys.argv))
