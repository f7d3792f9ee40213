# SPDX-License-Identifier: GPL-2.0-only
"""Tests of make bench's host side (scripts/bench.py): what it reads from the
bench guest's status port and cmtime's table, the figures it makes of them,
and the coarse-clock rule.  (The benchmarks themselves are never tests.)"""

import json
import os
import sys
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import bench  # noqa: E402

# rdma-core 44's cmtime client, as it prints its table.
CMTIME = """creating id
resolving address
resolving route
creating qp
connecting
disconnecting
destroying id
step              total ms     max ms     min us  us / conn
create id    :       6.00       0.04       8.00      20.00
resolve addr :      60.00      50.00     900.00     200.00
resolve route:      90.00      80.00    1000.00     300.00
create qp    :     120.00       1.00     300.00     400.00
connect      :     300.00     250.00    2000.00    1000.00
disconnect   :     150.00     120.00    1500.00     500.00
destroy      :      30.00       0.20      90.00     100.00
"""


def cmkit_line(scale=1.0, dev="rxe0", n=300):
    steps = {"create_id": 3000, "resolve_addr": 30000, "resolve_route": 45000,
             "create_qp": 60000, "connect": 30000, "establish": 120000,
             "disconnect": 75000, "destroy": 15000}
    obj = {"bench": "cm", "impl": "cmkit", "addr": "10.77.0.1", "n": n, "dev": dev,
           "steps": {k: {"wall_us": v * scale, "conn_us": {"min": 1, "median": 2, "p99": 3,
                                                           "max": 4}}
                     for k, v in steps.items()},
           "total_us": sum(steps.values()) * scale}
    return json.dumps(obj)


def block(item, impl, dev, rep, text, rc=0, what=""):
    return (f"CMKIT bench-begin {item} {impl} {dev} {rep}{' ' + what if what else ''}\n"
            f"{text.rstrip()}\nCMKIT bench-end {item} {impl} {dev} {rep} {rc}\n")


def status(clock="hpet", body=""):
    return (f"CMKIT init 1.2\nCMKIT bench-clock {clock} hpet acpi_pm\n{body}"
            "CMKIT rmmod cmkit\nCMKIT done\n")


class CmtimeTable(unittest.TestCase):
    def test_each_step_in_microseconds(self):
        steps = bench.parse_cmtime(CMTIME)
        self.assertEqual(list(steps), ["create id", "resolve addr", "resolve route", "create qp",
                                       "connect", "disconnect", "destroy"])
        self.assertEqual(steps["connect"]["wall_us"], 300000)
        self.assertEqual(steps["resolve addr"]["max_us"], 50000)
        self.assertEqual(steps["create qp"]["min_us"], 300)
        self.assertEqual(steps["destroy"]["us_per_conn"], 100)

    def test_progress_lines_are_not_steps(self):
        self.assertEqual(bench.parse_cmtime("connecting\nstep  total ms\n"), {})


class Report(unittest.TestCase):
    def test_blocks_clock_and_not_available(self):
        text = status(body=block("cm", "cmkit", "rxe0", 1, cmkit_line()) +
                      "CMKIT bench-na rpc cmkit the control plane refuses call\n" +
                      block("srp", "lio", "rxe0", 2, "1.50 67108864", what="read 1024K") +
                      "CMKIT bench-error cmtime's server did not listen\n")
        rep = bench.BenchReport(text)
        self.assertEqual(rep.clock, "hpet")
        self.assertFalse(rep.coarse)
        self.assertTrue(rep.done)
        self.assertEqual(len(rep.runs), 2)
        self.assertEqual(rep.runs[1]["what"], "read 1024K")
        self.assertEqual(rep.runs[1]["rep"], 2)
        self.assertEqual(rep.na, [("rpc", "cmkit", "the control plane refuses call")])
        self.assertEqual(rep.errors, ["cmtime's server did not listen"])

    def test_a_measurement_never_ended_is_an_error(self):
        rep = bench.BenchReport("CMKIT bench-begin cm cmtime siw0 3\ncreating id\n")
        self.assertEqual(rep.runs, [])
        self.assertIn("never ended", rep.errors[0])

    def test_jiffies_is_coarse(self):
        self.assertTrue(bench.BenchReport(status("refined-jiffies")).coarse)
        self.assertTrue(bench.BenchReport(status("jiffies")).coarse)


class Figures(unittest.TestCase):
    def test_median_and_spread(self):
        f = bench.figure([3.0, 1.0, 2.0, 10.0], "s")
        self.assertEqual((f["median"], f["min"], f["max"], f["n"]), (2.5, 1.0, 10.0, 4))

    def test_sub_millisecond_refused_on_jiffies(self):
        f = bench.figure([300.0, 310.0], "us", interval_us=300, coarse=True)
        self.assertIsNone(f["median"])
        self.assertIn("jiffies", f["refused"])
        self.assertEqual(bench.figure([300.0], "us", interval_us=300)["median"], 300.0)
        self.assertEqual(bench.figure([5000.0], "us", interval_us=5000, coarse=True)["median"],
                         5000.0)

    def test_ratio_of_medians_with_paired_spread(self):
        mine, other = bench.figure([2.0, 4.0], "x"), bench.figure([4.0, 4.0], "x")
        r = bench.ratio(mine, other, [(2.0, 4.0), (4.0, 4.0)])
        self.assertEqual(r, {"value": 0.75, "min": 0.5, "max": 1.0})
        self.assertIsNone(bench.ratio(mine, None))
        self.assertTrue(bench.meets("harness", r))
        self.assertFalse(bench.meets("cm", r))


class CmChurn(unittest.TestCase):
    def report(self, clock="hpet", scale=1.0):
        body = ""
        for rep in (1, 2, 3):
            body += block("cm", "cmkit", "rxe0", rep, cmkit_line(scale * (1.0 + rep / 10)))
            body += block("cm", "cmtime", "rxe0", rep, CMTIME)
        return bench.BenchReport(status(clock, body))

    def test_rows_total_and_connections_per_second(self):
        d = bench.cm_results(self.report(), 300)["rxe0"]
        rows = {r["step"]: r for r in d["rows"]}
        # cmtime's connect is cmkit's connect + establish.
        ce = rows["connect+establish"]
        self.assertAlmostEqual(ce["cmkit"]["median"], 150000 * 1.2 / 300)
        self.assertAlmostEqual(ce["cmtime"]["median"], 1000.0)
        self.assertIsNone(rows["establish"]["cmtime"])
        total_theirs = 756000 / 300
        self.assertAlmostEqual(rows["total"]["cmtime"]["median"], total_theirs)
        c = d["conn_per_s"]
        self.assertAlmostEqual(c["cmtime"]["median"], 300 / 0.756)
        self.assertAlmostEqual(c["ratio"]["value"], 0.756 / (0.378 * 1.2))
        self.assertTrue(c["meets"])
        self.assertEqual(d["errors"], [])
        self.assertNotIn("siw0", bench.cm_results(self.report(), 300))

    def test_a_failed_run_is_named_not_counted(self):
        body = block("cm", "cmkit", "siw0", 1,
                     '{"bench":"cm","impl":"cmkit","n":300,"error":-110}', rc=1)
        body += block("cm", "cmtime", "siw0", 1, "RDMA_CM_EVENT_ADDR_ERROR, error: -110", rc=1)
        d = bench.cm_results(bench.BenchReport(status(body=body)), 300)
        self.assertEqual(d, {})
        body += block("cm", "cmtime", "siw0", 2, CMTIME)
        d = bench.cm_results(bench.BenchReport(status(body=body)), 300)["siw0"]
        self.assertEqual(len(d["errors"]), 2)
        self.assertIn("-110", d["errors"][0])
        self.assertIsNone(d["conn_per_s"]["ratio"])

    def test_cmtime_failures_are_errors_not_counted(self):
        # cmtime (rdma-core 44) perror()s "failure ..." and goes on: its table
        # then times connections it never made (here: much faster ones).
        failed = CMTIME.replace("creating qp\n", "creating qp\n" +
                                "failure creating qp: No such file or directory\n" * 2 +
                                "failure creating qp: Invalid argument\n")
        failed = failed.replace("300.00     250.00    2000.00    1000.00",
                                "30.00      25.00     200.00     100.00")
        body = ""
        for rep in (1, 2, 3):
            body += block("cm", "cmkit", "siw0", rep, cmkit_line(dev="siw0"))
            body += block("cm", "cmtime", "siw0", rep, failed if rep == 2 else CMTIME)
        d = bench.cm_results(bench.BenchReport(status(body=body)), 300)["siw0"]
        rows = {r["step"]: r for r in d["rows"]}
        self.assertEqual(rows["connect+establish"]["cmtime"]["n"], 2)
        self.assertAlmostEqual(rows["connect+establish"]["cmtime"]["min"], 1000.0)
        self.assertEqual(d["conn_per_s"]["cmtime"]["n"], 2)
        self.assertEqual(d["cmtime_failures"], {
            "count": 3, "reps": [2], "first": "failure creating qp: No such file or directory"})
        self.assertEqual(d["errors"], ["cmtime rep 2: 3 cmtime failure(s), not counted"])
        text = bench.table({"guest": {"release": "6.12.118-bench", "accel": "tcg",
                                      "clocksource": "tsc", "guest_seconds": 1.0,
                                      "cm": {"siw0": d}}})
        self.assertIn("   cmtime failures: 3 in rep(s) 2, not counted; first: failure creating "
                      "qp: No such file or directory", text)
        self.assertIn("   error: cmtime rep 2: 3 cmtime failure(s), not counted", text)
        d = bench.cm_results(self.report(), 300)["rxe0"]
        self.assertEqual(d["cmtime_failures"]["count"], 0)
        self.assertNotIn("cmtime failures", bench.table({"guest": dict(
            release="r", accel="tcg", clocksource="tsc", guest_seconds=1.0, cm={"rxe0": d})}))

    def test_siw0_at_its_own_n(self):
        body = ""
        for rep in (1, 2):
            body += block("cm", "cmkit", "rxe0", rep, cmkit_line())
            body += block("cm", "cmtime", "rxe0", rep, CMTIME)
            body += block("cm", "cmkit", "siw0", rep, cmkit_line(dev="siw0", n=64))
            body += block("cm", "cmtime", "siw0", rep, CMTIME)
        cm = bench.cm_results(bench.BenchReport(status(body=body)), 300, 64)
        self.assertEqual((cm["rxe0"]["n"], cm["siw0"]["n"]), (300, 64))
        self.assertEqual(cm["siw0"]["errors"], [])
        rows = {r["step"]: r for r in cm["siw0"]["rows"]}
        self.assertAlmostEqual(rows["connect+establish"]["cmtime"]["median"], 300000 / 64)
        self.assertAlmostEqual(cm["siw0"]["conn_per_s"]["cmtime"]["median"], 64 / 0.756)
        rows = {r["step"]: r for r in cm["rxe0"]["rows"]}
        self.assertAlmostEqual(rows["connect+establish"]["cmtime"]["median"], 1000.0)
        saved = json.loads(json.dumps(cm))         # as results.json keeps it
        self.assertEqual(saved["siw0"]["n"], 64)
        text = bench.table({"guest": {"release": "r", "accel": "tcg", "clocksource": "tsc",
                                      "guest_seconds": 1.0, "cm": saved}})
        self.assertIn("2. CM churn on rxe0, N=300:", text)
        self.assertIn("2. CM churn on siw0, N=64:", text)
        # cmkit's result says its N: another than siw0's is an error.
        cm = bench.cm_results(bench.BenchReport(status(body=body)), 300, 100)
        self.assertEqual(cm["siw0"]["errors"][0], "cmkit rep 1: ran N=64, not N=100")
        self.assertIsNone(cm["siw0"]["conn_per_s"]["cmkit"])

    def test_the_guest_is_told_siw0s_n(self):
        args = bench.parse_args(["bench.py", "--n", "200", "--items", "cm"])
        self.assertEqual(args.n_siw, 64)
        params = dict(kv.split(":", 1) for kv in bench.guest_params(args).split(","))
        self.assertEqual((params["n"], params["n_siw"], params["items"]), ("200", "64", "cm"))
        args = bench.parse_args(["bench.py", "--n-siw", "32"])
        self.assertIn(",n_siw:32,", bench.guest_params(args))

    def test_jiffies_refuses_steps_under_a_millisecond(self):
        # cmkit's create id step lasts 0.66 ms at the least: refused; its
        # connect + establish, 33 ms: kept.
        d = bench.cm_results(self.report("refined-jiffies", 0.2), 300)["rxe0"]
        rows = {r["step"]: r for r in d["rows"]}
        self.assertTrue(rows["create id"]["cmkit"]["refused"])
        self.assertIsNone(rows["create id"]["ratio"])
        self.assertIsNotNone(rows["connect+establish"]["ratio"])
        d = bench.cm_results(self.report("hpet", 0.2), 300)["rxe0"]
        self.assertIsNotNone(d["rows"][0]["ratio"])


class Irdma(unittest.TestCase):
    def line(self, impl, us, misordered=0, post=None, mode="backlog"):
        return json.dumps({"bench": "irdma", "impl": impl, "mode": mode, "nodes": 100,
                           "events": 10000, "elapsed_us": us, "post_us": post,
                           "work_runs": 100, "misordered": misordered, "violations": 0})

    def test_backlog_rate_is_the_drain_and_is_judged(self):
        body = block("irdma", "cmkit", "-", 1, self.line("cmkit", 80000.0, post=30000.0),
                     what="backlog")
        body += block("irdma", "baseline", "-", 1, self.line("baseline", 130000.0,
                                                               post=30000.0), what="backlog")
        r = bench.irdma_results(bench.BenchReport(status(body=body)))
        m = r["modes"]["backlog"]
        self.assertEqual(m["cmkit"]["median"], 200000.0)
        self.assertEqual(m["ratio"]["value"], 2.0)
        self.assertEqual(m["detail"]["cmkit"]["per_run"]["median"], 100.0)
        self.assertTrue(r["meets"])

    def test_concurrent_rate_is_end_to_end_and_not_judged(self):
        body = block("irdma", "cmkit", "-", 1,
                     self.line("cmkit", 50000.0, post=50000.0, mode="concurrent"),
                     what="concurrent")
        body += block("irdma", "baseline", "-", 1,
                      self.line("baseline", 100000.0, post=99000.0, mode="concurrent"),
                      what="concurrent")
        r = bench.irdma_results(bench.BenchReport(status(body=body)))
        self.assertEqual(r["modes"]["concurrent"]["ratio"]["value"], 2.0)
        self.assertIsNone(r["ratio"])
        self.assertIsNone(r["meets"])

    def test_broken_order_is_no_figure(self):
        body = block("irdma", "cmkit", "-", 1, self.line("cmkit", 50000.0, misordered=3,
                                                         post=1000.0), what="backlog")
        r = bench.irdma_results(bench.BenchReport(status(body=body)))
        self.assertIsNone(r)


class RpcAndSrp(unittest.TestCase):
    def test_rpc_from_cmkit_peer_summary(self):
        summary = json.dumps({"role": "call", "rpc": "summary", "status": "ok",
                              "rtt_us": {"count": 100, "min": 1500.0, "median": 2000.0,
                                         "p99": 4000.0, "max": 5000.0},
                              "latencies_us": [2000.0] * 100})
        text = '{"role":"call","rpc":"ready"}\n' + summary
        body = block("rpc", "cmkit-peer", "rxe0", 1, text)
        body += "CMKIT bench-na rpc cmkit refuses call\n"
        rep = bench.BenchReport(status(body=body))
        r = bench.rpc_results(rep)
        self.assertEqual(r["median"]["cmkit-peer"]["median"], 2000.0)
        self.assertIsNone(r["median"]["cmkit"])
        self.assertIsNone(r["median"]["ratio"])
        self.assertEqual(bench.not_available(rep, "rpc"), ["cmkit: refuses call"])

    def test_srp_megabytes_and_iops(self):
        body = block("srp", "lio", "rxe0", 1, "2.00 67108864", what="read 1024K")
        body += block("srp", "cmkit", "rxe0", 1, "1.00 67108864", what="read 1024K")
        r = bench.srp_results(bench.BenchReport(status(body=body)))
        row = r["rows"][0]
        self.assertAlmostEqual(row["MB/s"]["lio"]["median"], 33.554432)
        self.assertAlmostEqual(row["IOPS"]["cmkit"]["median"], 64.0)
        self.assertAlmostEqual(row["MB/s"]["ratio"]["value"], 2.0)

    def test_nfs_mib_per_second_per_depth(self):
        body = ""
        for rep, (mine, theirs) in enumerate([("2.00", "1.00"), ("1.00", "1.00"),
                                              ("2.00", "4.00")], 1):
            body += block("nfs", "cmkit", "rxe0", rep,
                          f"{mine} 67108864\n3 10.77.0.1:20049 connected nfs4=9 nfs4_depth=8",
                          what="depth 8")
            body += block("nfs", "kernel", "rxe0", rep, f"{theirs} 67108864", what="depth 8")
        body += block("nfs", "kernel", "rxe0", 1, "0.00 0", rc=1, what="depth 1")
        body += block("nfs", "cmkit", "rxe0", 1, "4.00 67108864", what="depth 1")
        r = bench.nfs_results(bench.BenchReport(status(body=body)))
        one, eight = r["rows"]
        self.assertEqual((one["depth"], eight["depth"]), (1, 8))
        self.assertAlmostEqual(one["cmkit"]["median"], 16.0)
        self.assertIsNone(one["kernel"])
        self.assertIsNone(one["ratio"])
        self.assertEqual(r["errors"], ["kernel depth 1 rep 1: exit 1"])
        # MiB/s: cmkit 32, 64, 32; the client 64, 64, 16.
        self.assertAlmostEqual(eight["cmkit"]["median"], 32.0)
        self.assertAlmostEqual(eight["kernel"]["median"], 64.0)
        self.assertAlmostEqual(eight["ratio"]["value"], 0.5)
        self.assertAlmostEqual(eight["ratio"]["min"], 0.5)
        self.assertAlmostEqual(eight["ratio"]["max"], 2.0)
        self.assertFalse(eight["meets"])
        res = {"guest": {"release": "6.12.118-bench", "accel": "tcg", "clocksource": "hpet",
                         "guest_seconds": 100.0, "problems": [],
                         "nfs": dict(r, not_available=["kernel: mount failed"], notes=[])}}
        text = bench.table(res)
        self.assertIn("6. NFS READ throughput", text)
        self.assertIn("8 in flight  cmkit", text)
        self.assertIn("0.50x [0.50..2.00]  target >= 1.0: NOT met", text)
        self.assertIn("not available yet: kernel: mount failed", text)

    def test_nfs_reads_reach_the_guest(self):
        args = bench.parse_args(["bench.py", "--items", "nfs", "--nfs-reads", "16"])
        params = dict(kv.split(":", 1) for kv in bench.guest_params(args).split(","))
        self.assertEqual((params["nfs_reads"], params["items"]), ("16", "nfs"))


class HarnessPhases(unittest.TestCase):
    def test_phase_lines(self):
        text = ("CMKIT phase setup 1.5\nCMKIT time cmkit_smoke 3.1\n"
                "CMKIT phase cmkit_smoke.devices 0.4\nCMKIT phase cmkit_smoke.body 2.0\n"
                "CMKIT phase bad\n")
        self.assertEqual(bench.guest_phases(text), [("setup", 1.5), ("cmkit_smoke.devices", 0.4),
                                                    ("cmkit_smoke.body", 2.0)])


class Table(unittest.TestCase):
    def test_every_section_prints(self):
        body = ""
        for rep in (1, 2):
            body += block("cm", "cmkit", "rxe0", rep, cmkit_line())
            body += block("cm", "cmtime", "rxe0", rep, CMTIME)
        rep = bench.BenchReport(status(body=body + "CMKIT bench-na srp cmkit no LUN\n"))
        res = {"guest": {"release": "6.12.118-bench", "accel": "tcg", "clocksource": "hpet",
                         "guest_seconds": 100.0, "problems": [],
                         "cm": bench.cm_results(rep, 300),
                         "rpc": dict(bench.rpc_results(rep), not_available=[]),
                         "srp": dict(bench.srp_results(rep),
                                     not_available=bench.not_available(rep, "srp"))}}
        text = bench.table(res)
        self.assertIn("2. CM churn on rxe0, N=300", text)
        self.assertIn("connections/s", text)
        self.assertIn("not available yet: cmkit: no LUN", text)


def harness_entry(kver, overhead, kunit_py):
    """A harness item's figures for one kernel, as bench_harness() returns them."""
    def f(v):
        return bench.figure([v, v * 1.1], "s")
    fo, fk = f(overhead), f(kunit_py)
    return {"kernel": kver, "release": f"{kver}.9", "suites": "cmkit_smoke",
            "phases": {"modules": f(0.07), "boot": f(2.2), "cmkit_smoke.body": f(0.15)},
            "cycle": f(overhead + 0.15), "bodies": f(0.15), "overhead": fo, "kunit_py": fk,
            "kunit_py_own": {"building": f(kunit_py - 1.0)},
            "ratio": bench.ratio(fo, fk), "meets": None, "runs_ok": True}


class HarnessPerKernel(unittest.TestCase):
    def res(self):
        return {"harness": [harness_entry("6.1", 4.0, 16.0), harness_entry("7.3", 6.0, 12.0),
                            {"kernel": "6.12", "error": "kunit.py's cold run failed",
                             "runs_ok": False}]}

    def test_a_block_and_a_ratio_per_kernel(self):
        lines = bench.table(self.res()).splitlines()
        heads = [l for l in lines if l.startswith("1. harness cost")]
        self.assertEqual(len(heads), 3)
        self.assertTrue(heads[0].startswith("1. harness cost, 6.1 (6.1.9), suites cmkit_smoke"))
        self.assertTrue(heads[1].startswith("1. harness cost, 7.3 (7.3.9)"))
        self.assertEqual(heads[2], "1. harness cost, 6.12: error: kunit.py's cold run failed")
        ratios = [l.strip() for l in lines if "overhead / kunit.py" in l]
        self.assertEqual(len(ratios), 2)
        self.assertTrue(ratios[0].startswith("overhead / kunit.py on 6.1: 0.25x"))
        self.assertTrue(ratios[1].startswith("overhead / kunit.py on 7.3: 0.50x"))
        # Each block has its own phase rows, in its kernel's block.
        i61, i73 = lines.index(heads[0]), lines.index(heads[1])
        self.assertEqual(sum(l.strip().startswith("boot ") for l in lines[i61:i73]), 1)
        self.assertEqual(sum(l.strip().startswith("boot ") for l in lines[i73:]), 1)

    def test_a_plot_per_kernel(self):
        import tempfile
        names = []
        old = bench.OUT, bench.gnuplot
        with tempfile.TemporaryDirectory() as tmp:
            bench.OUT, bench.gnuplot = tmp, lambda script, name: names.append(name) or name
            try:
                for h in bench.harness_list(self.res()):
                    if not h.get("error"):
                        bench.plot_harness(h)
                self.assertEqual(sorted(os.listdir(tmp)), ["harness-6.1.dat", "harness-7.3.dat"])
            finally:
                bench.OUT, bench.gnuplot = old
        self.assertEqual(names, ["harness-6.1.svg", "harness-7.3.svg"])

    def test_harness_kernels_are_series(self):
        self.assertEqual(bench.parse_args(["bench.py"]).harness_kernels, ["6.1", "6.12", "7.3"])
        self.assertEqual(bench.parse_args(["bench.py", "--harness-kernels", "6.1,7.3"])
                         .harness_kernels, ["6.1", "7.3"])
        with open(os.devnull, "w") as null:
            old, sys.stderr = sys.stderr, null
            try:
                with self.assertRaises(SystemExit):
                    bench.parse_args(["bench.py", "--harness-kernels", "6.1,6.13"])
            finally:
                sys.stderr = old


# The bench guest's console when siw0's churn hit KI-3 (siw_cep_put()'s
# WARN, then the refcount underflow it leads to), as make bench saw it.
KI3_CONSOLE = """[    6.100000] cmkit_bench: cm churn on siw0
[    6.171900] ------------[ cut here ]------------
[    6.171914] WARNING: CPU: 0 PID: 100 at drivers/infiniband/sw/siw/siw_cm.c:449 \
siw_cep_put+0xf/0x23
[    6.172000] RIP: 0010:siw_cep_put+0xf/0x23
[    6.172100] Call Trace:
[    6.172200]  siw_destroy_listen+0x80/0x120
[    6.172300] ---[ end trace 0000000000000000 ]---
[    6.185600] ------------[ cut here ]------------
[    6.185686] refcount_t: underflow; use-after-free.
[    6.185861] WARNING: CPU: 0 PID: 100 at lib/refcount.c:28 refcount_warn_saturate+0xb5/0xf9
[    6.185900] Call Trace:
[    6.185950]  siw_cep_put+0x1a/0x23
[    6.186000]  siw_destroy_listen+0x80/0x120
[    6.186100] ---[ end trace 0000000000000000 ]---
[    7.716357] WARNING: CPU: 1 PID: 131 at drivers/infiniband/sw/siw/siw_cm.c:449 \
siw_cep_put+0xf/0x23
[    7.716400] ---[ end trace 0000000000000000 ]---
"""
OTHER_WARN = ("[    8.000000] WARNING: CPU: 0 PID: 140 at drivers/infiniband/core/cma.c:2100 "
              "cma_release_dev+0x20/0x90\n")
BENCH_6_12 = ("linux-source-6.12", "6.12.118-1~deb12u1")


class KnownIssues(unittest.TestCase):
    def test_ki3_warnings_are_the_known_issue_not_problems(self):
        known, problems = bench.splat_problems(KI3_CONSOLE, *BENCH_6_12)
        self.assertEqual(problems, [])
        self.assertEqual([k["ident"] for k in known], ["KI-3"] * 3)
        self.assertIn("siw_cep_put+0xf/0x23", known[0]["line"])
        self.assertEqual(known[0]["count"], 2, "the same WARN from another CPU and PID")
        self.assertTrue(known[1]["line"].startswith("refcount_t: underflow"))
        self.assertIn("refcount_warn_saturate", known[2]["line"])

    def test_an_unrelated_warning_is_still_a_problem(self):
        known, problems = bench.splat_problems(KI3_CONSOLE + OTHER_WARN, *BENCH_6_12)
        self.assertEqual(len(known), 3)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("WARNING: "))
        self.assertIn("cma_release_dev", problems[0])

    def test_only_an_issue_that_applies_to_the_leg(self):
        known, problems = bench.splat_problems(KI3_CONSOLE, "linux-source-6.12",
                                               "6.12.119-1~deb12u1")
        self.assertEqual(known, [])
        self.assertEqual(len(problems), 4)
        known, problems = bench.splat_problems(KI3_CONSOLE)
        self.assertEqual((len(known), problems), (3, []))

    def test_a_refcount_underflow_without_siw_cep_put_is_a_problem(self):
        lines = [l for l in KI3_CONSOLE.splitlines(True) if "siw_cep_put" not in l]
        known, problems = bench.splat_problems("".join(lines), *BENCH_6_12)
        self.assertEqual(known, [])
        self.assertTrue(problems)

    def test_another_underflow_beside_siw_cep_put_is_still_a_problem(self):
        # An underflow whose own trace is cmkit's, in a console that also
        # has KI-3's WARN: only KI-3's own lines are the known issue.
        cmkit = ("[    8.100000] ------------[ cut here ]------------\n"
                 "[    8.100100] refcount_t: underflow; use-after-free.\n"
                 "[    8.100200] WARNING: CPU: 1 PID: 150 at lib/refcount.c:28 "
                 "refcount_warn_saturate+0xb5/0xf9\n"
                 "[    8.100300] Call Trace:\n"
                 "[    8.100400]  srpt_ch_put+0x20/0x40 [cmkit]\n"
                 "[    8.100500] ---[ end trace 0000000000000000 ]---\n")
        for console in (KI3_CONSOLE + cmkit, cmkit + KI3_CONSOLE):
            known, problems = bench.splat_problems(console, *BENCH_6_12)
            self.assertEqual(sum(k["count"] for k in known), 4)
            self.assertEqual(len(problems), 2, problems)
            self.assertTrue(all("8.100" in p for p in problems))

    def test_the_table_lists_known_issues_apart(self):
        known, problems = bench.splat_problems(KI3_CONSOLE + OTHER_WARN, *BENCH_6_12)
        res = {"guest": {"release": "6.12.118-bench", "accel": "tcg", "clocksource": "tsc",
                         "guest_seconds": 100.0, "problems": problems,
                         "known_issues": known}}
        lines = bench.table(res).splitlines()
        ki = [l for l in lines if l.startswith("known issue KI-3 (")]
        self.assertEqual(len(ki), 3)
        self.assertTrue(ki[0].endswith("siw_cep_put+0xf/0x23) x2"))
        bad = [l for l in lines if l.startswith("problem:")]
        self.assertEqual(len(bad), 1)
        self.assertIn("cma_release_dev", bad[0])


if __name__ == "__main__":
    unittest.main()
