#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn what a guest printed into a verdict.

The guest writes status lines and each suite's debugfs KTAP to its second
serial port (see scripts/guest/init).  This module assembles one KTAP
document from the suites (a suite the guest died in is rebuilt from the
console: its finished cases, and the case in progress as failed), has the
kernel tree's own kunit.py parse it (text and --json), counts the leaf
results, and checks everything else a run must get right: console splats,
kmemleak reports, new taint, the expected skips and suites of
kunit/expected.txt, known kernel issues.  Everything that decides pass or
fail lives here, so tests/test_harness.py can feed it canned inputs.

cmkit's own error lines
-----------------------
A line in the kernel log that starts (after any pr_fmt prefix such as
"cmkit: irdma: ") with

    cmkit: [<handler>: ]LEAK: <what>       an object left behind, e.g.
                                           "cmkit: irdma: LEAK: 2 nodes alive at unload"
    cmkit: [<handler>: ]ERROR: <what>      anything else that must never happen
    cmkit_test: [...]ERROR: <what>         the same from the test module, e.g.
                                           "cmkit_test: ERROR: rdma link add rxe0 failed: -17"

fails the run (see CMKIT_ERROR below).  Use pr_err() with these words for
conditions that are bugs but not worth a WARN (which, with panic_on_warn,
ends the guest); never for anything a remote peer can cause.
"""

import fnmatch
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXPECTED_FILE = os.path.join(TOP, "kunit", "expected.txt")

# cmkit's own error lines (module docstring): "cmkit: [handler: ]LEAK: ..." etc.
CMKIT_ERROR = r"\bcmkit(?:_test)?: (?:[\w-]+: )*(?:LEAK|ERROR): "

# cmkit_test's watchdog of a KUnit case (kunit/case_timeout.c): the case,
# "<suite>.<case>[#<parameter number>]", is still running after <N> s.
CASE_TIMEOUT = re.compile(r"\bcmkit_test: case timeout: (\w+)\.(\w+)(?:#(\d+))? "
                          r"still running after (\d+) s")

# Console lines that fail a run whatever the tests said: (regex, kind, fatal).
# Each regex is searched in the message, the "[ 12.345678] " prefix removed;
# the first that matches names the line.  "fatal" kinds end the guest under
# panic_on_warn / oops=panic (they start a crash); the others are reported
# and the guest goes on.  Advisory lines such as "RETBleed: WARNING: ..." or
# "Spectre V2 : WARNING: ..." are not splats: a kernel WARN (and lockdep's
# reports) print "WARNING:" at the start of the message, so that is where
# the pattern looks.  A case timeout is fatal too: the case never ends (a
# KUnit case stuck in the kernel cannot be stopped), so the host stops the
# guest as after a crash.
SPLAT_PATTERNS = [
    (r"\bBUG: KASAN: |^\s*KASAN: ", "KASAN", True),
    (r"\bKFENCE: ", "KFENCE", True),
    (r"\bBUG: sleeping function called", "sleeping function called from atomic context",
     False),
    (r"\bkernel BUG at ", "kernel BUG", True),
    (r"\bBUG: ", "BUG", True),
    (r"^BUG [\w.:/-]+ \([^)]*\): ", "SLUB", False),
    (r"^WARNING: ", "WARNING", True),
    (r"\bUBSAN: ", "UBSAN", True),
    (r"general protection fault", "general protection fault", True),
    (r"\brefcount_t: ", "refcount_t", True),
    (r"\blist_(?:add|del) corruption", "list corruption", True),
    (r"\bODEBUG: ", "ODEBUG", True),
    (r"\bDEBUG_LOCKS_WARN_ON\b", "lockdep", True),
    (r"possible (?:circular|recursive) locking", "lockdep", True),
    (r"inconsistent lock state|suspicious RCU usage|lockdep is turned off|"
     r"INFO: trying to register non-static key|bad unlock balance", "lockdep", True),
    (r"\bkmemleak: \d+ new suspected memory leaks?", "kmemleak", False),
    # kmemleak has stopped (or will miss objects) only on these; "Cannot allocate
    # a scan area, scanning the full object" is a fallback, not a stop, and
    # fault injection (failslab) provokes it.
    (r"\bkmemleak: (?:.*leak detector disabled|Memory pool empty|"
     r"Cannot allocate a kmemleak_object|Cannot insert )", "kmemleak stopped", False),
    (r"INFO: task .* blocked for more than", "hung task", False),
    (r"\brcu: INFO: .*stall", "rcu stall", False),
    (r"\bunregister_netdevice: waiting for", "netdev reference leak", False),
    (CASE_TIMEOUT.pattern, "case timeout", True),
    (CMKIT_ERROR, "cmkit error", False),
    (r"\bcmkit_test: .*: still referenced at the end: leaked", "cmkit error", False),
    (r"Kernel panic", "panic", True),
    (r"\bOops\b", "oops", True),
]
_SPLAT_RE = [(re.compile(p), name, fatal) for p, name, fatal in SPLAT_PATTERNS]
_KLOG_PREFIX = re.compile(r"^\[\s*\d+\.\d+\] ?")


def klog_message(line):
    """A console line without its "[ 12.345678] " timestamp."""
    return _KLOG_PREFIX.sub("", line.rstrip("\r"))


def splat_kind(line):
    """(kind, fatal) of a console line that is a splat, else None."""
    msg = klog_message(line)
    for rx, name, fatal in _SPLAT_RE:
        if rx.search(msg):
            return name, fatal
    return None


def scan_splats(console_text):
    """Return [(kind, line)] for every console line that is a kernel splat."""
    hits = []
    for line in console_text.splitlines():
        k = splat_kind(line)
        if k:
            hits.append((k[0], line.strip()))
    return hits


def crash_start(console_lines):
    """Index of the first line of a fatal splat, or None."""
    for i, line in enumerate(console_lines):
        k = splat_kind(line)
        if k and k[1]:
            return i
    return None


def crash_excerpt(console_lines, start, limit=40):
    """The crash's first lines, timestamps dropped: what a failed case shows."""
    out = []
    for line in console_lines[start:start + limit]:
        out.append(klog_message(line))
    return out


# --------------------------------------------------------------------------
# Known kernel issues
# --------------------------------------------------------------------------

# The most lines a splat's trace is searched for a known issue's anchor.
SPLAT_LINES = 80


class KnownIssue:
    """A kernel bug outside cmkit, held to account.

    ident:        "KI-<n>", shown as "flaky: KI-<n>" in the summary
    packages:     {Debian source package: [versions]} it applies to (the
                  "package" and "version" of the leg's done.json, i.e. the
                  pins in kunit/kernels.pin)
    signature:    regex the crash must show (searched in the crash only)
    what:         the bug
    outside:      why it is not cmkit's: what the crash path is and what a
                  reproduction without cmkit shows
    reproduction: shell commands for the guest (make shell), no cmkit loaded
    fixed_by:     {kernel-patches series: [patch file names]} that fix it in
                  the test kernels (None: no fix carried)
    family:       regex (or None) searched in single console lines, the
                  timestamp removed: the WARN and splat lines of the same bug
                  that do not carry the whole signature (a guest that goes on
                  after the WARN prints them one by one; make bench lists them
                  as this known issue, scripts/bench.py)
    anchor:       regex (or None): a family line counts only if its own
                  splat shows it too: the line and those after it up to the
                  splat's "---[ end trace" (at most SPLAT_LINES lines); a
                  refcount underflow is KI-3's only with siw_cep_put() in
                  its trace
    """

    def __init__(self, ident, packages, signature, what, outside, reproduction,
                 family=None, anchor=None, fixed_by=None):
        self.ident, self.packages, self.signature = ident, packages, signature
        self.fixed_by = fixed_by or {}
        self.what, self.outside, self.reproduction = what, outside, reproduction
        self.family = re.compile(family) if family else None
        self.anchor = re.compile(anchor) if anchor else None

    def applies(self, package, version):
        return version in self.packages.get(package, ())

    def in_family(self, lines, i):
        """Whether console line @i of @lines is one of this bug's WARN or
        splat lines: the family matches it, and the anchor its splat."""
        if not (self.family and self.family.search(klog_message(lines[i]))):
            return False
        if self.anchor is None:
            return True
        for line in lines[i:i + SPLAT_LINES]:
            if self.anchor.search(line):
                return True
            if "---[ end trace" in line:
                return False
        return False


# rxe0 deleted and re-added while two rpings connect over it, in a loop:
# connections torn down by the removal (KI-1, KI-5).
RXE_REMOVAL_UNDER_RPING = (
    "ip link add d0 type dummy; ip addr add 10.77.0.1/24 dev d0; ip link set d0 up; "
    "for i in $(seq 200); do rdma link add rxe0 type rxe netdev d0; "
    "rping -s -a 10.77.0.1 -p 7000 -C 1000000 & s=$!; "
    "rping -c -a 10.77.0.1 -p 7000 -C 1000000 & c=$!; sleep 1; "
    "rdma link delete rxe0; kill $s $c; wait; done")

# The fixes carried in kernel-patches/<series>/ (the same name in each).
KI1_FIX = "0201-RDMA-core-Hold-the-device-until-a-deferred-GID-entry.patch"
KI5_FIX = "0202-RDMA-mad-Wait-for-the-CQ-s-work-before-destroying-th.patch"

KNOWN_ISSUES = [
    KnownIssue(
        "KI-1", {"linux-source-6.1": ["6.1.192-3"],
                 "linux-source-6.12": ["6.12.118-1~deb12u1"],
                 "linux-source-7.3": ["7.3.4-1~bpo13+1"]},
        r"^\[[\s\d.]+\]\s+free_gid_work\+",
        "NULL dereference in free_gid_work() (drivers/infiniband/core/cache.c): a "
        "RoCE GID table entry's last reference is put after its device was "
        "unregistered, and the deferred free reads the device's freed GID table",
        "the faulting path is the RDMA core's GID cache work (ib_wq), reached from "
        "rdma_put_gid_attr() of whichever id or AH held the entry; cmkit holds no "
        "GID attribute of its own and the trace holds no cmkit frame.  It shows "
        "when rxe0 is deleted and re-added while connections over it are being "
        "torn down, which the reproduction does with rdma-core's rping alone.  "
        "Seen on 7.3.4, and on 6.12.118 in "
        "constructed_addr_change_when_connected_then_device_removal "
        "(2026-12-05); free_gid_work() is the same in 6.1",
        RXE_REMOVAL_UNDER_RPING,
        fixed_by={s: [KI1_FIX] for s in ("6.1", "6.12", "7.3")}),
    KnownIssue(
        "KI-2", {"linux-source-6.1": ["6.1.192-3"],
                 "linux-source-6.12": ["6.12.118-1~deb12u1"],
                 "linux-source-7.3": ["7.3.4-1~bpo13+1"]},
        r"(?:possible irq lock inversion dependency|SOFTIRQ-safe -> SOFTIRQ-unsafe "
        r"lock order) detected(?:.*\n){1,400}?"
        r".*siw_(?:qp|cm)_llp_data_ready",
        "lockdep: possible irq lock inversion between a TCP socket's "
        "sk_callback_lock and a kernel socket's spinlock, reported when siw's "
        "siw_qp_llp_data_ready() (drivers/infiniband/sw/siw/siw_qp.c), or its "
        "connection-phase twin siw_cm_llp_data_ready() (siw_cm.c), takes the "
        "callback lock with read_lock() and softirqs on",
        "siw reads the callback lock with softirqs enabled when TCP runs its "
        "socket backlog from release_sock() on the send path (siw_post_send -> "
        "siw_tx_hdt -> kernel_sendmsg, posted by user space through uverbs: the "
        "report's task is cmkit-peer), while TCP takes that lock class for "
        "writing under a listener's spinlock in softirq context "
        "(inet_child_forget); the report holds no cmkit frame and the code is "
        "the same in 6.1, 6.12 and 7.3.  It depends on data arriving while "
        "the sender holds the socket, so it shows in some boots only",
        "ip link add d1 type dummy; ip addr add 10.78.0.1/24 dev d1; ip link set d1 up; "
        "rdma link add siw0 type siw netdev d1; "
        "rping -s -a 10.78.0.1 -p 7001 -C 100000 -S 65536 & "
        "rping -c -a 10.78.0.1 -p 7001 -C 100000 -S 65536; wait; dmesg | grep -A40 'lock inversion'",
        fixed_by={"6.1": ["0101-RDMA-siw-take-sk-callback-lock-with-bottom-halves-off.patch"], "6.12": ["0101-RDMA-siw-take-sk-callback-lock-with-bottom-halves-off.patch"], "7.3": ["0101-RDMA-siw-take-sk-callback-lock-with-bottom-halves-off.patch"]}),
    KnownIssue(
        "KI-3", {"linux-source-6.1": ["6.1.192-3"],
                 "linux-source-6.12": ["6.12.118-1~deb12u1"],
                 "linux-source-7.3": ["7.3.4-1~bpo13+1"]},
        r"WARNING: CPU: \d+ PID: \d+ at drivers/infiniband/sw/siw/siw_cm\.c:\d+ "
        r"siw_cep_put\+(?:.*\n){1,60}?.*\bsiw_destroy_listen\+",
        "siw puts a listening endpoint's reference once too often: destroying "
        "the listener then finds its reference count already at zero and "
        "siw_cep_put() (drivers/infiniband/sw/siw/siw_cm.c) warns",
        "the listener's reference is taken by siw_accept_newconn() for each "
        "new TCP connection and dropped by whichever of siw's own paths ends "
        "the MPA request (siw_accept_newconn()'s immediate request, the "
        "READ_MPAHDR work, a peer close, the MPA timer); the count is siw's "
        "alone, no consumer touches it.  It showed with no cmkit code on the "
        "stack: make bench's in-kernel churn (plain rdma_cm connect and "
        "disconnect cycles from cmkit_bench on siw0, then rdma_destroy_id() "
        "of the listener) hit the same warning, and the trace runs "
        "rdma_destroy_id -> iw_destroy_cm_id -> siw_destroy_listen.  Seen in "
        "some boots only, after many connections to one listener",
        "ip link add d2 type dummy; ip addr add 10.79.0.1/24 dev d2; ip link set d2 up; "
        "rdma link add siw0 type siw netdev d2; "
        "for r in $(seq 20); do rping -s -P -a 10.79.0.1 -p 7003 & s=$!; "
        "for i in $(seq 50); do rping -c -a 10.79.0.1 -p 7003 -C 1 -S 64; done; "
        "kill $s; wait; done; dmesg | grep -A30 'siw_cep_put'",
        # siw_cep_put()'s WARN_ON, then kref_put()'s refcount_t underflow
        # and its WARN in refcount_warn_saturate() (make bench's siw0 churn).
        family=r"\bsiw_cep_put\b|\brefcount_t: underflow|\brefcount underflow|"
               r"\brefcount_warn_saturate\b",
        anchor=r"\bsiw_cep_put\+",
        fixed_by={"6.1": ["0102-RDMA-siw-do-not-tear-down-a-listener-when-an-unaccepted.patch"], "6.12": ["0102-RDMA-siw-do-not-tear-down-a-listener-when-an-unaccepted.patch"], "7.3": ["0102-RDMA-siw-do-not-tear-down-a-listener-when-an-unaccepted.patch"]}),
    KnownIssue(
        "KI-6", {"linux-source-6.1": ["6.1.192-3"],
                 "linux-source-6.12": ["6.12.118-1~deb12u1"],
                 "linux-source-7.3": ["7.3.4-1~bpo13+1"]},
        r"kmemleak: \d+ new suspected memory leaks?(?:.*\n){1,200}?"
        r".*\b(?:siw_cep_alloc|siw_cm_alloc_work|cm_event_handler)\+",
        "iw_cm drops a CONNECT_REQUEST queued on a listener being destroyed "
        "(IWCM_F_DROP_EVENTS in cm_work_handler(), "
        "drivers/infiniband/core/iwcm.c): the provider's new connection is "
        "never rejected and its private data never freed, so siw's passive "
        "cep, its work items and socket leak (kmemleak) and can hold up "
        "siw's teardown",
        "destroy_cm_id() sets IWCM_F_DROP_EVENTS before it destroys the "
        "listener, and cm_work_handler() then drops whatever the provider "
        "queued, a connection request with it; cm_conn_req_handler(), which "
        "rejects a request on a listener no longer listening, never runs.  "
        "The path is iw_cm's and siw's alone (rdma_destroy_id() or a device "
        "removal of the listener while a connect reaches it); seen on "
        "6.12-debug (kmemleak) and 7.3 (a hung siw teardown) in "
        "cmkit_rpcrdma's removal-while-resolving case on siw0",
        "ip link add d3 type dummy; ip addr add 10.80.0.1/24 dev d3; ip link set d3 up; "
        "rdma link add siw0 type siw netdev d3; "
        "for i in $(seq 10); do rping -s -P -a 10.80.0.1 -p 7005 & s=$!; sleep 0.3; "
        "for j in $(seq 8); do rping -c -a 10.80.0.1 -p 7005 -C 1 -S 64 & done; "
        "kill -9 $s; wait; done; rdma link delete siw0; sleep 6; "
        "echo scan > /sys/kernel/debug/kmemleak; cat /sys/kernel/debug/kmemleak",
        fixed_by={"6.1": ["0103-RDMA-iwcm-reject-a-connection-request-dropped-on-a-listener.patch"], "6.12": ["0103-RDMA-iwcm-reject-a-connection-request-dropped-on-a-listener.patch"], "7.3": ["0103-RDMA-iwcm-reject-a-connection-request-dropped-on-a-listener.patch"]}),
    KnownIssue(
        "KI-8", {"linux-source-6.1": ["6.1.192-3"],
                 "linux-source-6.12": ["6.12.118-1~deb12u1"],
                 "linux-source-7.3": ["7.3.4-1~bpo13+1"]},
        r"kmemleak: \d+ new suspected memory leaks?(?:.*\n){1,200}?"
        r".*\bsiw_cep_alloc\+",
        "siw never puts a passive endpoint's own reference when the peer "
        "closes (or stays silent past the MPA timer) before its MPA request: "
        "the cep and its work elements stay on the device's cep list, and "
        "kmemleak reports them once siw0 is gone",
        "siw_cm_work_handler()'s SIW_CM_WORK_PEER_CLOSE and "
        "SIW_CM_WORK_MPATIMEOUT in SIW_EPSTATE_AWAIT_MPAREQ drop the "
        "listener's reference, the timer's and the socket's, but not the one "
        "siw_cep_alloc() gave the handshake (drivers/infiniband/sw/siw/"
        "siw_cm.c, the same in 6.1, 6.12 and 7.3); any TCP peer that connects "
        "to a siw listener and closes before it sends its request leaks one "
        "cep.  Seen on 6.12-debug after cmkit_rpcrdma's siw fail-nth sweep, "
        "whose injected siw_connect() failures close the socket right after "
        "the TCP handshake",
        "ip link add d4 type dummy; ip addr add 10.81.0.1/24 dev d4; ip link set d4 up; "
        "rdma link add siw0 type siw netdev d4; rping -s -P -a 10.81.0.1 -p 7008 & s=$!; "
        "for j in $(seq 20); do (sleep 0.2) | nc 10.81.0.1 7008; done; kill $s; wait; "
        "rdma link delete siw0; echo scan > /sys/kernel/debug/kmemleak",
        fixed_by={s: ["0104-RDMA-siw-put-a-passive-endpoint-s-own-reference-when.patch"]
                  for s in ("6.1", "6.12", "7.3")}),
    KnownIssue(
        "KI-9", {"linux-source-6.1": ["6.1.192-3"],
                 "linux-source-6.12": ["6.12.118-1~deb12u1"],
                 "linux-source-7.3": ["7.3.4-1~bpo13+1"]},
        r"kernel BUG at drivers/infiniband/core/iwcm\.c:\d+(?:.*\n){1,8}?"
        r".*Workqueue: iw_cm_wq cm_work_handler",
        "siw indicates DISCONNECT and CLOSE on an accepted peer-to-peer "
        "connection that ends before the initiator's RTR, while iw_cm still "
        "holds its cm_id in IW_CM_STATE_CONN_RECV: BUG() in "
        "cm_close_handler() (drivers/infiniband/core/iwcm.c)",
        "siw_accept() leaves ESTABLISHED to siw_rtr_data_ready(); "
        "SIW_CM_WORK_PEER_CLOSE, SIW_CM_WORK_CLOSE_LLP and siw_qp_cm_drop() "
        "indicate the connection's end in SIW_EPSTATE_RDMA_MODE without "
        "looking at whether ESTABLISHED was indicated (siw_cm.c, the same in "
        "6.1, 6.12 and 7.3).  A plain TCP peer that sends a P2P MPA request "
        "to rping's siw listener and, after the reply, an RTR siw refuses "
        "(or a reset) shows it (ki-9.sh, cmkit_kernel_fixes); met on 7.3 by "
        "irdma_p2p_connects_siw after KI-10",
        "ip link add d5 type dummy; ip addr add 10.82.0.1/24 dev d5; ip link set d5 up; "
        "rdma link add siw0 type siw netdev d5; rping -s -d -P -a 10.82.0.1 -p 7009 & "
        "sleep 2; { printf 'MPA ID Req Frame\\020\\002\\000\\004\\200\\004\\200\\004'; "
        "sleep 2; printf '\\000\\016\\301\\000\\000\\000\\000\\001'; "
        "printf '\\000%.0s' $(seq 12); sleep 6; } | timeout 5 nc 10.82.0.1 7009 | od -A n -t x1",
        fixed_by={s: ["0106-RDMA-siw-indicate-ESTABLISHED-before-the-end-of-an-accepted.patch"]
                  for s in ("6.1", "6.12", "7.3")}),
    KnownIssue(
        "KI-5", {"linux-source-6.1": ["6.1.192-3"],
                 "linux-source-6.12": ["6.12.118-1~deb12u1"],
                 "linux-source-7.3": ["7.3.4-1~bpo13+1"]},
        r"(?:BUG: KASAN: [\w-]+ in |RIP: 0010:)ib_mad_post_receive_mads\+|"
        r"WARNING: CPU: \d+ PID: \d+ at drivers/infiniband/sw/rxe/rxe_verbs\.c:\d+ "
        r"rxe_post_recv\+(?:.*\n){1,80}?.*\bib_mad_post_receive_mads\+",
        "use after free in the MAD layer while an rxe device is unregistered: "
        "ib_mad_port_close() (drivers/infiniband/core/mad.c) destroys the MAD "
        "QPs before it frees their CQ, so the CQ's poll work can still take a "
        "MAD received just before and, in ib_mad_recv_done(), repost a receive "
        "on the freed QP (ib_mad_post_receive_mads())",
        "KASAN on 7.3-debug: read of a QP allocated by create_mad_qp() from "
        "ib_register_device() (rxe_newlink) and freed by destroy_mad_qp() from "
        "ib_mad_port_close() in the device's unregistration, read again by "
        "ib_mad_recv_done() from ib_cq_poll_work; no cmkit frame, and cmkit "
        "neither owns nor posts to the MAD QPs.  The order (QPs, then CQ) is "
        "the same in 6.1, 6.12 and 7.3; a MAD must arrive during the "
        "unregistration, as the IB CM's DREQs do when connected ids are "
        "destroyed by the removal.  Seen on 7.3-debug in "
        "cmkit_rpcrdma.device_removal_while_connected_releases_the_id (the "
        "run that was to show KI-1 under KASAN) and on 6.12-debug in "
        "constructed_rejected_when_connected_then_device_removal; not yet "
        "on 6.1.  On 6.12-debug it also shows as rxe's own WARN_ON_ONCE(!qp->valid) "
        "in rxe_post_recv() (\"qp has been destroyed\"), called by "
        "ib_mad_post_receive_mads() from ib_mad_recv_done(), in "
        "device_removal_while_connected_releases_the_id",
        RXE_REMOVAL_UNDER_RPING,
        fixed_by={s: [KI5_FIX] for s in ("6.1", "6.12", "7.3")}),
]


def first_splat(console_lines):
    """Index of the first line of any splat (fatal or a report), or None."""
    for i, line in enumerate(console_lines):
        if splat_kind(line):
            return i
    return None


# The most lines one splat's block may have (a lockdep report runs long).
SPLAT_BLOCK_LINES = 600
# A frame (or a lock site, in lockdep's reports) in cmkit's own modules.
CMKIT_FRAME = re.compile(r"\[(?:cmkit|cmkit_test|cmkit_bench)\]")


def splat_block(console_lines, start):
    """The lines of the splat that begins at @start: its first line up to its
    "---[ end trace" line, or up to (not including) the next splat's first
    line, at most SPLAT_BLOCK_LINES lines.  An "Oops:" line is the same
    crash's (it follows a "BUG: ..." header), not the next splat."""
    block = [console_lines[start]]
    for line in console_lines[start + 1:start + SPLAT_BLOCK_LINES]:
        kind = splat_kind(line)
        if kind and kind[0] != "oops":
            break
        block.append(line)
        if "---[ end trace" in line:
            break
    return block


def known_issue(package, version, console_text):
    """The known issue whose signature the console's first splat shows, or None.

    Only the first splat's own block is searched (its first line up to its
    "---[ end trace" or the next splat), and a block with a frame in cmkit,
    cmkit_test or cmkit_bench is never excused: whatever else it shows, the
    crash went through cmkit.  The entry must apply to the leg's package
    version.
    """
    lines = console_text.splitlines()
    start = first_splat(lines)
    if start is None:
        return None
    block = splat_block(lines, start)
    if any(CMKIT_FRAME.search(line) for line in block):
        return None
    crash = "\n".join(block)
    for ki in KNOWN_ISSUES:
        if ki.applies(package, version) and re.search(ki.signature, crash, re.M):
            return ki
    return None


# --------------------------------------------------------------------------
# The status port
# --------------------------------------------------------------------------

class GuestReport:
    """What the guest said on its status port (protocol: scripts/guest/init)."""

    BLOCKS = {"begin": "end", "klog": "klog-end", "kmemleak": "kmemleak-end",
              "blocked": "blocked-end"}

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
        self.cases = {}           # suite -> its selected cases, in order
        self.times = {}           # suite -> seconds in the guest
        self.taints = []          # (where, before, after)
        self.kmemleak = []        # (where, report text)
        self.blocked = []         # (where, dump of blocked tasks)
        self.timeouts = []        # (step, suite, seconds)
        self.modules = {}         # module -> address of its .text when loaded
        self.in_progress = None   # suite begun and never ended
        self.step = None          # the last "CMKIT rmmod ..." step announced
        self.lines = []           # every status line, in order
        current, kind_open, lines = None, None, []
        for raw in text.splitlines():
            line = raw.rstrip("\r")
            if kind_open is not None:
                end = f"CMKIT {self.BLOCKS[kind_open]} "
                if not line.startswith("CMKIT "):
                    lines.append(line)
                    continue
                if not (line.startswith(end) or line == end.rstrip()):
                    # A status line inside a block: the block was cut short (a
                    # watchdog fired while a suite ran); it is given up.
                    if kind_open == "begin":
                        self.in_progress = current
                    current, kind_open = None, None
                body = "\n".join(lines) + "\n"
                words = line.split()
                if kind_open == "begin":
                    self.blocks[current] = body
                    self.rcs[current] = int(words[3]) if len(words) > 3 and \
                        re.match(r"-?\d+$", words[3]) else -1
                elif kind_open == "klog":
                    self.klogs[current] = body
                elif kind_open == "kmemleak":
                    self.kmemleak.append((current, body))
                elif kind_open == "blocked":
                    self.blocked.append((current, body))
                if kind_open is not None:
                    current, kind_open = None, None
                    continue
            if not line.startswith("CMKIT "):
                continue
            self.lines.append(line)
            words = line.split()
            kind = words[1] if len(words) > 1 else ""
            if kind in self.BLOCKS and len(words) > 2:
                current, kind_open, lines = words[2], kind, []
            elif kind == "init":
                self.init_seen = True
            elif kind == "suites":
                self.suites = words[2:]
            elif kind == "cases" and len(words) > 2:
                self.cases[words[2]] = words[3:]
            elif kind == "time" and len(words) > 3:
                self.times[words[2]] = float(words[3])
            elif kind == "taint" and len(words) > 4:
                self.taints.append((words[2], int(words[3]), int(words[4])))
            elif kind == "module" and len(words) > 3 and re.match(r"0x[0-9a-f]+$", words[3]):
                self.modules[words[2]] = int(words[3], 16)
            elif kind == "rmmod":
                self.step = " ".join(words[1:])
            elif kind == "error":
                self.errors.append(" ".join(words[2:]))
                m = re.match(r"CMKIT error (.*) timed out after (\d+) s", line)
                if m:
                    self.timeouts.append((m.group(1), int(m.group(2))))
            elif kind == "story":
                self.story.append(line[len("CMKIT story "):])
            elif kind == "trace":
                self.traces.append(line[len("CMKIT trace "):])
            elif kind == "done":
                self.done = True
        if kind_open == "begin":
            self.in_progress = current


# --------------------------------------------------------------------------
# KTAP: assembling, rebuilding a suite the guest died in, reading leaves
# --------------------------------------------------------------------------

_TOP_RESULT = re.compile(r"^(not ok|ok) \d+(.*)$")
_RESULT = re.compile(r"^(\s*)(not ok|ok) (\d+) (?:- )?(.*)$")


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


_CASE_TOTALS = re.compile(r"^\s+# (\S+): pass:\d+ fail:\d+ skip:(\d+) total:\d+")


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
        line = klog_message(raw)
        if not inside and line.strip() == f"# Subtest: {suite}":
            inside = True
            out.append("    KTAP version 1")
        if inside:
            out.append(line)
            if _TOP_RESULT.match(line) and line.rstrip().endswith(f" {suite}"):
                break
    return "\n".join(out) + "\n"


class Interrupted:
    """What the console shows of a suite the guest died in (or gave up on).

    finished: KTAP lines of the cases that ended, as printed
    done:     how many cases ended; planned: the suite's plan (or None)
    case:     the case in progress; params: its parameters that ended
    """

    def __init__(self, suite, finished, done, planned, case, params):
        self.suite, self.finished, self.done, self.planned = suite, finished, done, planned
        self.case, self.params = case, params


def interrupted_suite(console_text, suite, cases=None):
    """Read the console's KTAP of @suite up to its crash (or its end).

    KUnit prints each result to the kernel log as it goes: the case in
    progress is the one after the last case result (its name from @cases,
    the guest's list of the suite's selected cases), or, for a
    parameterised case, the one whose subtest header was printed last.
    """
    lines = console_text.splitlines()
    start = None
    for i, line in enumerate(lines):
        if klog_message(line).rstrip() == f"    # Subtest: {suite}":
            start = i
    if start is None:
        first = cases[0] if cases else "suite_init"
        return Interrupted(suite, [], 0, None, first, [])
    crash = crash_start(lines[start:])
    end = len(lines) if crash is None else start + crash
    finished, pending, planned, done = [], [], None, 0
    param_case, params = None, []
    for raw in lines[start + 1:end]:
        msg = klog_message(raw)
        if not msg.startswith("    "):
            continue        # not KUnit's: other kernel messages
        m = _RESULT.match(msg)
        sub = re.match(r"^        # Subtest: (\S+)", msg)
        if planned is None and re.match(r"^    1\.\.(\d+)$", msg):
            planned = int(msg.split("..")[1])
            continue
        if m and len(m.group(1)) == 4:
            done += 1
            finished.extend(pending + [msg])
            pending, param_case, params = [], None, []
        elif m and len(m.group(1)) == 8:
            pending.append(msg)
            params.append(f"{m.group(4)}: {m.group(2)}")
        elif sub:
            pending.append(msg)
            param_case, params = sub.group(1), []
        else:
            pending.append(msg)
    if param_case:
        case = param_case
    elif cases and done < len(cases):
        case = cases[done]
    elif planned is not None and done >= planned:
        case = "suite_exit"
    else:
        last = _RESULT.match(finished[-1]).group(4).split(" #")[0] if finished else None
        case = f"case_{done + 1}" + (f"_after_{last}" if last else "")
    return Interrupted(suite, finished, done, planned, case, params)


def interrupted_ktap(intr, why, excerpt):
    """KTAP for an interrupted suite: its finished cases, then the case in
    progress as failed, with @why and the crash @excerpt as diagnostics."""
    n = intr.done + 1
    out = ["    KTAP version 1", f"    # Subtest: {intr.suite}", f"    1..{n}"]
    out += intr.finished
    out.append(f"    # {intr.case}: {why}")
    if intr.planned is not None:
        out.append(f"    # {intr.case}: {intr.done} of {intr.planned} cases had ended")
    for p in intr.params:
        out.append(f"    # {intr.case}: parameter {p}")
    for line in excerpt:
        out.append(f"    # {line.strip()}")
    out.append(f"    not ok {n} {intr.case} # {why}")
    out.append(f"not ok 1 {intr.suite}")
    return "\n".join(out) + "\n"


def assemble_ktap(report, console_text=""):
    """One KTAP document for every announced suite.

    Each suite comes from its debugfs results; where those are lossy (see
    lossy()), from the kernel log the guest captured while it ran.  The
    suite the guest died in (or whose watchdog fired) is rebuilt from the
    console (interrupted_suite()).  A suite that never ran is "not ok".
    """
    lines = ["KTAP version 1", f"1..{len(report.suites)}"]
    for i, suite in enumerate(report.suites, 1):
        block = report.blocks.get(suite, "")
        if lossy(block) and suite in report.klogs:
            block = klog_ktap(report.klogs[suite], suite)
        if suite not in report.blocks and suite == report.in_progress:
            block = interrupted_ktap(*interruption(report, console_text, suite))
        if not _has_top_result(block):
            why = "not run (the guest stopped before it)" if suite not in report.blocks \
                else "results incomplete"
            lines.append(f"not ok {i} {suite} # {why}")
            continue
        lines.extend(suite_ktap(block, i))
    return "\n".join(lines) + "\n"


def interruption(report, console_text, suite):
    """(Interrupted, why, crash excerpt) of the suite the guest stopped in.

    A case timeout (the console's first fatal line) names the case itself,
    and its excerpt is the watchdog's dump: the case's thread, the blocked
    tasks."""
    intr = interrupted_suite(console_text, suite, report.cases.get(suite))
    timed_out = [t for t in report.timeouts if t[0] == f"suite {suite}"]
    lines = console_text.splitlines()
    start = crash_start(lines)
    m = CASE_TIMEOUT.search(klog_message(lines[start])) if start is not None else None
    if m and m.group(1) == suite:
        intr.case = m.group(2)
        param = f" (parameter #{m.group(3)})" if m.group(3) else ""
        return intr, f"timed out after {m.group(4)} s{param}", crash_excerpt(lines, start)
    if timed_out:
        return intr, f"timed out after {timed_out[0][1]} s", []
    if start is not None:
        return intr, "crashed: " + klog_message(lines[start]).strip(), \
            crash_excerpt(lines, start)
    return intr, "the guest stopped in this case", []


def _has_top_result(block):
    return any(_TOP_RESULT.match(line) for line in block.splitlines())


class Leaf:
    """One result line without children: a case, or a parameter of one."""

    def __init__(self, suite, path, status, reason, diag):
        self.suite, self.path, self.status = suite, path, status
        self.reason, self.diag = reason, diag
        self.assumed = False    # a 6.1 skip taken to be the expected one

    @property
    def ident(self):
        return ".".join([self.suite] + self.path)

    @property
    def case(self):
        return self.path[0] if self.path else ""

    def __repr__(self):
        return f"Leaf({self.ident} {self.status} {self.reason!r})"


_NOT_DIAG = re.compile(r"^#\s*(Subtest:|module:|Totals:|\S+: pass:\d+ fail:\d+)|"
                       r"^KTAP version|^1\.\.\d+$")
_SKIP_DIAG = re.compile(r"^# (\S+): SKIP (.*)$")


def _status(ok, rest):
    """(status, name, reason) of a result line's text after its number."""
    name, _, comment = rest.partition(" #")
    comment = comment.strip()
    if comment.startswith("SKIP"):
        return "SKIP", name.strip(), comment[4:].strip()
    return ("PASS" if ok == "ok" else "FAIL"), name.strip(), comment


def ktap_leaves(ktap):
    """The leaf results of an assembled KTAP document, and lost skips.

    Returns (leaves, lost): @lost maps "suite.case" to how many of its
    parameters skipped without the kernel saying which (6.1 prints a
    skipped parameter as plain "ok"; its case's totals line still counts
    it).  A "# <case>: SKIP <reason>" diagnostic (cmkit_skip()) just before
    a parameter's result names it: that parameter is then a skip, with
    that reason, and is not counted as lost.
    """
    leaves, lost = [], {}
    suite, diag, param_case, params = None, [], None, []
    totals, param_cases = {}, set()
    for line in ktap.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip(" "))
        m = _RESULT.match(line)
        if indent == 4 and stripped.startswith("# Subtest: ") and suite is None:
            suite, diag, param_case, params = stripped[11:].strip(), [], None, []
            totals, param_cases = {}, set()
            continue
        if m and indent == 0:
            status, name, reason = _status(m.group(2), m.group(4))
            if not any(l.suite == name for l in leaves):
                leaves.append(Leaf(name, [], status, reason or
                                   ("no results" if status == "FAIL" else ""), diag))
            for case, skips in totals.items():
                if case not in param_cases:
                    continue
                shown = sum(1 for l in leaves if l.suite == name and l.path[:1] == [case]
                            and len(l.path) == 2 and l.status == "SKIP")
                if skips > shown:
                    lost[f"{name}.{case}"] = skips - shown
            # A suite the guest never reached has no "# Subtest:" line to
            # reset these: the next suite must not inherit this one's totals.
            suite, diag, totals, param_cases = None, [], {}, set()
            continue
        if suite is None:
            continue
        if indent == 8 and stripped.startswith("# Subtest: "):
            param_case, params, diag = stripped[11:].strip(), [], []
            param_cases.add(param_case)
            continue
        tm = _CASE_TOTALS.match(line)
        if tm:
            totals[tm.group(1)] = int(tm.group(2))
            continue
        if m and indent == 8 and param_case:
            status, name, reason = _status(m.group(2), m.group(4))
            said = [_SKIP_DIAG.match(d) for d in diag]
            said = [s for s in said if s and s.group(1) == param_case]
            if status == "PASS" and said:
                status, reason = "SKIP", said[-1].group(2)
            leaf = Leaf(suite, [param_case, name], status, reason, diag)
            leaves.append(leaf)
            params.append(leaf)
            diag = []
            continue
        if m and indent == 4:
            status, name, reason = _status(m.group(2), m.group(4))
            if name == param_case and params:
                if diag:
                    params[-1].diag = params[-1].diag + diag
            else:
                leaves.append(Leaf(suite, [name], status, reason, diag))
            param_case, params, diag = None, [], []
            continue
        if indent >= 4 and stripped and not _NOT_DIAG.match(stripped):
            diag.append(stripped)
    return leaves, lost


# The kernel's KTAP parser, copied (scripts/vendor/kunit/README.md).
VENDOR_KUNIT_PY = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                               "vendor", "kunit", "kunit.py")


def kunit_py_for(source):
    """The kunit.py to parse a leg's KTAP with: its kernel tree's @source,
    or the vendored parser when that tree is not unpacked."""
    if source:
        path = os.path.join(source, "tools", "testing", "kunit", "kunit.py")
        if os.path.exists(path):
            return path
    return VENDOR_KUNIT_PY


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

    with open(json_path) as f:
        walk(json.load(f))
    return counts["PASS"], counts["FAIL"] + counts["ERROR"], counts["SKIP"]


def lost_param_skips(ktap):
    """Parameter results that skipped without a SKIP directive.

    6.1's KUnit prints a skipped parameter as plain "ok N <param>", without
    the SKIP directive, so kunit.py counts it as passed; the case's own
    totals line ("# case: pass:1 fail:0 skip:1 total:2") still has it.
    Returns how many such skips the totals report beyond the directives.
    """
    directives = len(re.findall(r"(?m)^        (?:not )?ok \d+ .*# SKIP", ktap))
    params = set(re.findall(r"(?m)^        # Subtest: (\S+)", ktap))
    totals = 0
    for m in re.finditer(r"(?m)^    # (\S+): pass:\d+ fail:\d+ skip:(\d+) total:\d+", ktap):
        if m.group(1) in params:
            totals += int(m.group(2))
    return max(0, totals - directives)


# --------------------------------------------------------------------------
# Taint, kmemleak
# --------------------------------------------------------------------------

TAINT_LETTERS = "PFSRMBUDAWCIOELKXTNJ"
# Bits a clean run sets: O (12) and E (13) when an out-of-tree (unsigned)
# module loads (cmkit.ko, cmkit_test.ko), N (18, TAINT_TEST) when KUnit runs
# a suite.  Any other new bit fails the run.
IGNORED_TAINT = (1 << 12) | (1 << 13) | (1 << 18)


def taint_letters(mask):
    return "".join(c for i, c in enumerate(TAINT_LETTERS) if mask & (1 << i)) + \
        ("+" if mask >> len(TAINT_LETTERS) else "")


def new_taint(before, after):
    """The taint bits set between @before and @after that matter."""
    return after & ~before & ~IGNORED_TAINT


_KML_FRAME = re.compile(r"^\s+(?:\[<[0-9a-f]+>\] )?(\S+\+0x[0-9a-f]+/0x[0-9a-f]+(?: \[\S+\])?|"
                        r"0x[0-9a-f]{8,})\s*$")
_KML_SKIP = re.compile(r"^(kmemleak_|__kmalloc|kmalloc|__kmem_cache|kmem_cache_alloc|"
                       r"slab_post_alloc|__slab_alloc|kvmalloc|__kvmalloc|krealloc|"
                       r"__do_kmalloc|kzalloc|__alloc_pages|alloc_pages|kasan_)")


def text_symbols(objdump_t):
    """[(start, size, name)] of the .text functions in `objdump -t` of a .ko."""
    syms = []
    for line in objdump_t.splitlines():
        m = re.match(r"^([0-9a-f]+) .* F \.text\s+([0-9a-f]+) (\S+)$", line)
        if m:
            syms.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3)))
    return syms


def symbolize(frame, modules, symtabs):
    """A raw address in a backtrace as <function>+<off>/<size> [<module>].

    kmemleak prints a frame of a module that has been unloaded (the guest
    scans after rmmod) as a bare address; @modules maps each module to the
    address its .text was loaded at (CMKIT module lines), @symtabs each to
    its text_symbols()."""
    if not frame.startswith("0x") or not modules:
        return frame
    addr = int(frame, 16)
    below = [(base, mod) for mod, base in modules.items() if base <= addr]
    if not below:
        return frame
    base, mod = max(below)
    off = addr - base
    for start, size, name in symtabs.get(mod, []):
        if start <= off < start + size:
            return f"{name}+{off - start:#x}/{size:#x} [{mod}]"
    return f"{mod}+{off:#x} (.text)" if off < (16 << 20) else frame


def kmemleak_objects(text, modules=None, symtabs=None):
    """[(size, comm, [frames])] of a kmemleak report; allocator frames dropped."""
    objs = []
    for entry in re.split(r"(?m)^(?=unreferenced object )", text):
        m = re.match(r"unreferenced object \S+ \(size (\d+)\):", entry)
        if not m:
            continue
        comm = re.search(r'comm "([^"]*)"', entry)
        frames = []
        after = entry.split("backtrace", 1)[1] if "backtrace" in entry else ""
        for line in after.splitlines()[1:]:
            f = _KML_FRAME.match(line)
            if f and not _KML_SKIP.match(f.group(1)):
                frames.append(symbolize(f.group(1), modules or {}, symtabs or {}))
        objs.append((int(m.group(1)), comm.group(1) if comm else "?", frames))
    return objs


def where_text(where):
    """A guest step's name as a report says it."""
    if where == "insmod-cmkit":
        return "loading cmkit.ko"
    return "unloading cmkit.ko" if where == "cmkit.ko" else f"suite {where}"


# What a kernel says about a module as it loads it (or refuses it): taint,
# signature (module.sig_enforce=1: "Loading of unsigned module is rejected",
# without the module's name), version magic, symbol versions, lockdown.
_LOAD_MESSAGE = re.compile(r"^(?:cmkit: (.*(?:taint|verification|signature|[Kk]ey |"
                           r"version magic|disagrees about version|Unknown symbol|"
                           r"[Ii]nvalid module format).*)|(Lockdown: .*)|"
                           r"(Loading of .* is rejected))$")


class ModuleLoad:
    """How the kernel took cmkit.ko: loaded or not, what it said, the taint.

    short: for a summary line ("unsigned, loaded with taint OE")
    long:  for a note, with the kernel's own words
    """

    def __init__(self, loaded, messages, taint, error):
        self.loaded, self.messages, self.taint, self.error = loaded, messages, taint, error
        unsigned = any("signature and/or required key missing" in m for m in messages)
        if loaded:
            self.short = (f"{'unsigned, ' if unsigned else ''}loaded with taint "
                          f"{taint or 'none'}")
        else:
            self.short = f"refused: {error or 'see console.log'}"
        said = "; ".join(f"'{m}'" for m in messages) or "nothing"
        self.long = (f"cmkit.ko {'loaded' if loaded else 'was refused: ' + (error or '?')}; "
                     f"the kernel said {said}; taint set by loading it: {taint or 'none'}")


def module_load(report, console_text):
    """The ModuleLoad of the boot, or None if the guest never tried."""
    if report is None:
        return None
    tried = [t for t in report.taints if t[0] == "insmod-cmkit"]
    errors = [e for e in report.errors if e.startswith("insmod cmkit")]
    if not tried and not errors:
        return None
    messages = []
    for line in console_text.splitlines():
        m = _LOAD_MESSAGE.match(klog_message(line).strip())
        if m and next(g for g in m.groups() if g) not in messages:
            messages.append(next(g for g in m.groups() if g))
    taint = ""
    if tried:
        _, before, after = tried[0]
        taint = taint_letters(after & ~before)
    error = errors[0].split(":", 1)[1].strip() if errors and ":" in errors[0] else \
        (errors[0] if errors else None)
    loaded = "cmkit" in report.modules or bool(tried and not errors)
    return ModuleLoad(loaded, messages, taint, error)


def kmemleak_problem(where, text, modules=None, symtabs=None):
    objs = kmemleak_objects(text, modules, symtabs)
    where = where_text(where)
    if not objs:
        return f"kmemleak after {where}: {text.strip().splitlines()[0][:200]}"
    size, comm, frames = objs[0]
    trace = " <- ".join(frames[:6]) or "no backtrace"
    more = f" (and {len(objs) - 1} more; see status.log)" if len(objs) > 1 else ""
    return (f"kmemleak after {where}: {len(objs)} unreferenced object(s); "
            f"size {size}, comm {comm}: {trace}{more}")


# --------------------------------------------------------------------------
# kunit/expected.txt
# --------------------------------------------------------------------------

class Expectation:
    def __init__(self, legs, kind, target, value, lineno, pins=()):
        self.legs, self.kind, self.target, self.value = legs, kind, target, value
        self.lineno = lineno
        # A skip's (package, version) pairs: the pinned kernels it was judged on.
        self.pins = tuple(pins)

    def pins_text(self):
        return ",".join(f"{p}={v}" for p, v in self.pins)

    def applies(self, leg):
        """@leg is one of the entry's legs: a name, a glob ("stock-*"), or "*",
        every leg that boots cmkit's own test kernels: not the stock legs
        (Debian's own kernels, no KUnit), which are named on their own."""
        for pat in self.legs:
            if pat == "*":
                if not leg.startswith("stock-"):
                    return True
            elif fnmatch.fnmatchcase(leg, pat):
                return True
        return False


# A skip line's pinned packages: "<package>=<version>[,<package>=<version>...]",
# apt's own spelling of a package at a version (Debian policy's package names;
# a version starts with a digit, an epoch's colon allowed).
PIN_TOKEN = re.compile(r"^[a-z0-9][a-z0-9+.-]+=[0-9][A-Za-z0-9.+~:-]*$")


def parse_pins(word):
    """[(package, version)] of a skip line's pin word, or None when it is not one."""
    pins = []
    for tok in word.split(","):
        if not PIN_TOKEN.match(tok):
            return None
        pkg, ver = tok.split("=", 1)
        pins.append((pkg, ver))
    return pins


def read_expected(path=EXPECTED_FILE, text=None):
    """The entries of kunit/expected.txt (format: its header)."""
    if text is None:
        text = ""
        if os.path.exists(path):
            with open(path) as f:
                text = f.read()
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip() if line.lstrip().startswith("#") else line.strip()
        if not line:
            continue
        words = line.split(None, 3)
        if len(words) < 4 or words[1] not in ("suite", "skip"):
            raise ValueError(f"{path}:{n}: want '<legs> suite <suite> <min>' or "
                             f"'<legs> skip <suite.case[.param]> <package>=<version> "
                             f"<reason>': {line!r}")
        legs = set(words[0].split(","))
        if words[1] == "suite":
            out.append(Expectation(legs, "suite", words[2], int(words[3]), n))
            continue
        rest = words[3].split(None, 1)
        pins = parse_pins(rest[0])
        if pins is None or len(rest) < 2:
            raise ValueError(f"{path}:{n}: a skip names the pinned package version(s) it "
                             f"was judged on, then its reason: '<legs> skip "
                             f"<suite.case[.param]> <package>=<version>[,...] <reason>' "
                             f"(the versions are in kunit/kernels.pin): {line!r}")
        out.append(Expectation(legs, "skip", words[2], rest[1].strip(), n, pins))
    return out


def skips_off_pin(expectations, leg_pins):
    """The skip lines that do not name the pin of a leg they cover, as
    [(Expectation, leg, (package, version))] in the file's order.

    @leg_pins: {leg: (package, version)}, kunit/kernels.pin as each leg uses
    it (kernel.leg_pins()).  On such a leg the line excuses nothing: it was
    judged on another kernel (make update-kernels moved the pin since)."""
    out = []
    for e in expectations:
        if e.kind != "skip":
            continue
        for leg in sorted(leg_pins):
            if e.applies(leg) and tuple(leg_pins[leg]) not in e.pins:
                out.append((e, leg, tuple(leg_pins[leg])))
    return out


def suite_selection(suite, patterns):
    """How the run's suite patterns pick @suite: "all", "some" or None."""
    how = None
    for pat in (patterns or "*").split(","):
        pat = pat.strip()
        if not pat:
            continue
        spart, dot, _ = pat.partition(".")
        if fnmatch.fnmatchcase(suite, spart):
            if not dot:
                return "all"
            how = "some"
    return how


# How a note on an expected skip that ran and passed begins (the summary
# lists these notes under the leg's line).
SKIP_PASSED = "expected skip ran and passed:"


def check_expected(leaves, lost, expectations, leg, report, patterns="*", pin=None):
    """Problems with the skips and suites kunit/expected.txt expects on @leg.

    @pin: (package, version) of the kernel @leg ran (its done.json: the
    pinned one, or the archive's newest when the pin was not used).  A skip
    line excuses a skip only when it names that pair: a line judged on
    another version (the pin moved) excuses nothing until it is re-checked.

    Resolves @lost (6.1's unnamed parameter skips) against the expected
    skips of their case: when the expected parameters account for them,
    those leaves become skips with the expected reason.  Returns (problems,
    notes); @leaves is updated in place.
    """
    exp = [e for e in expectations if e.applies(leg)]
    skips = [e for e in exp if e.kind == "skip"]
    problems, notes = [], []
    for key, n in sorted(lost.items()):
        cands = [l for l in leaves if l.status == "PASS" and len(l.path) == 2 and
                 f"{l.suite}.{l.case}" == key and
                 any(fnmatch.fnmatchcase(l.ident, e.target) for e in skips)]
        if len(cands) < n:
            problems.append(f"{key}: {n} parameter(s) skipped without the kernel saying "
                            f"which, and kunit/expected.txt expects {len(cands)} here "
                            f"(on {leg}); use cmkit_skip() so the reason is printed")
            continue
        for l in cands[:n]:
            e = next(e for e in skips if fnmatch.fnmatchcase(l.ident, e.target))
            l.status, l.reason, l.assumed = "SKIP", e.value, True
            notes.append(f"{l.ident}: skipped (this kernel does not print which "
                         "parameter; the expected one assumed)")
    moved = {}      # skip line -> the skips it would excuse but for its pins
    for l in leaves:
        if l.status != "SKIP":
            continue
        match = [e for e in skips if fnmatch.fnmatchcase(l.ident, e.target)]
        if not match:
            problems.append(f"unexpected skip {l.ident}: {l.reason or '(no reason)'}")
            continue
        reasoned = [e for e in match if fnmatch.fnmatchcase(l.reason, e.value)]
        if not reasoned:
            problems.append(f"{l.ident} skipped with '{l.reason}', but kunit/expected.txt "
                            f"(line {match[0].lineno}) expects '{match[0].value}'")
        elif not any(pin in e.pins for e in reasoned):
            moved.setdefault(reasoned[0], []).append(l.ident)
    runs = f"{pin[0]} {pin[1]}" if pin else "a kernel whose package version is unknown"
    for e, idents in moved.items():
        more = f" (and {len(idents) - 1} more)" if len(idents) > 1 else ""
        want = f"; name {pin[0]}={pin[1]} on it" if pin else ""
        problems.append(f"kunit/expected.txt line {e.lineno} ({e.target}) was judged on "
                        f"{e.pins_text()}, but {leg} ran {runs}: the pin moved, so it does "
                        f"not excuse {idents[0]}{more}; re-check the line on this "
                        f"version (does it still skip, for that reason?){want}")
    # An expected skip whose case (or parameter) ran and passed: the skip is
    # no longer needed here, and the summary says so.
    for e in skips:
        ran = [l.ident for l in leaves if l.status == "PASS" and l.path and
               f"{l.suite}.{l.case}" not in lost and
               fnmatch.fnmatchcase(l.ident, e.target)]
        if ran:
            more = f" (and {len(ran) - 1} more)" if len(ran) > 1 else ""
            notes.append(f"{SKIP_PASSED} {ran[0]}{more} "
                         f"(kunit/expected.txt line {e.lineno}: {e.target}): "
                         "drop the line where it no longer applies")
    counts = {}
    for l in leaves:
        if l.path:
            counts[l.suite] = counts.get(l.suite, 0) + 1
    ran = set(report.suites) if report is not None else set(counts)
    finished = set(report.blocks) if report is not None else set(counts)
    for e in [e for e in exp if e.kind == "suite"]:
        how = suite_selection(e.target, patterns)
        if how is None:
            continue
        if e.target not in ran:
            problems.append(f"expected suite {e.target} did not run (kunit/expected.txt "
                            f"line {e.lineno})")
        elif how == "all" and e.target in finished and counts.get(e.target, 0) < e.value:
            problems.append(f"suite {e.target} reported {counts.get(e.target, 0)} "
                            f"result(s), fewer than its minimum {e.value} "
                            f"(kunit/expected.txt line {e.lineno})")
    known = {e.target for e in exp if e.kind == "suite"}
    for s in sorted(ran - known):
        problems.append(f"suite {s} is not in kunit/expected.txt for {leg}: add "
                        f"'{leg} suite {s} <min results>'")
    return problems, notes


# --------------------------------------------------------------------------
# The verdict
# --------------------------------------------------------------------------

class Problem(str):
    """A reason the run failed, with its kind (for the known-issue rule)."""

    def __new__(cls, kind, text):
        p = super().__new__(cls, text)
        p.kind = kind
        return p


# Problems that are only the consequence of a crash: a known issue may
# explain a run whose problems are all of these kinds.
CRASH_CONSEQUENCES = {"crash", "not-run", "unfinished", "crashed-case"}


class Verdict:
    def __init__(self):
        self.passed = self.failed = self.skipped = 0
        self.problems = []
        self.notes = []
        self.leaves = []
        self.known_issue = None   # the KnownIssue this run's only problem is
        self.xfail = None         # id of a known issue a first boot hit (rerun taken)
        self.retried = None
        self.report = None
        self.parsed = ""
        self.boot_seconds = None
        self.total_seconds = 0.0
        self.phases = []          # (name, seconds)

    @property
    def ok(self):
        return not self.problems and self.failed == 0

    def add(self, kind, text):
        self.problems.append(Problem(kind, text))


def judge(report, console_text, kunit_rc, counts, hung, powered_off, leaves=None,
          leg=None, expectations=None, patterns="*", package=None, version=None,
          lost=None, symtabs=None, patched=False):
    """Everything that fails a kernel's run, as a Verdict.

    @patched: the leg's kernel carries a kernel-patches series (done.json
    "patches"), so every known issue's fix is in: its signature excuses
    nothing there."""
    v = Verdict()
    v.report = report
    v.passed, v.failed, v.skipped = counts
    v.leaves = leaves if leaves is not None else []
    if hung:
        v.add("hang", "guest hung (killed at the timeout)")
    elif not powered_off:
        v.add("unfinished", "guest did not power off")
    if not report.init_seen:
        v.add("init", "guest never reached /init")
    if not report.suites:
        v.add("init", "guest announced no suites")
    lines = console_text.splitlines()
    start = crash_start(lines) if not report.done else None
    where = report.in_progress
    for suite in report.suites:
        if suite in report.blocks:
            if report.rcs.get(suite, 0) != 0:
                v.add("insmod", f"suite {suite}: insmod exited {report.rcs[suite]}")
        elif suite == where:
            intr, why, _ = interruption(report, console_text, suite)
            kind = "timeout" if why.startswith("timed out") else "crashed-case"
            v.add(kind, f"suite {suite}: {why} in case {suite}.{intr.case} "
                        f"({intr.done} case(s) had ended)")
        else:
            v.add("not-run", f"suite {suite}: no results (not run: the guest stopped "
                             f"{'in ' + where if where else 'before it'})")
    for e in report.errors:
        if re.match(r"suite \S+ timed out", e):
            continue    # named with its case above
        v.add("timeout" if " timed out after " in e else "guest", f"guest: {e}")
    for where_, dump in report.blocked:
        tasks = [l.strip() for l in dump.splitlines() if l.strip()][:3]
        v.notes.append(f"blocked tasks at the {where_} timeout: {'; '.join(tasks)}")
    if not report.done and not hung:
        v.add("unfinished", "guest did not finish its script" +
              (f" (last step: {report.step})" if report.step and not where else ""))
    crash_hits = 0
    for i, line in enumerate(lines):
        k = splat_kind(line)
        if not k:
            continue
        if start is not None and i >= start:
            if i == start and k[0] == "case timeout" and where:
                continue    # named with its suite and case above
            if i == start:
                ctx = f" in {where}" if where else (f" during {report.step}"
                                                   if report.step else "")
                v.add("crash", f"kernel crash{ctx} ({k[0]}): {line.strip()}")
            else:
                crash_hits += 1
            continue
        v.add("splat", f"kernel splat ({k[0]}): {line.strip()}")
    if crash_hits:
        v.notes.append(f"the crash printed {crash_hits} more splat line(s): see console.log")
    for where_, before, after in report.taints:
        bits = new_taint(before, after)
        if bits:
            v.add("taint", f"{where_text(where_)} tainted the kernel: {taint_letters(bits)} "
                           f"({before} -> {after})")
    for where_, text in report.kmemleak:
        v.add("kmemleak", kmemleak_problem(where_, text, report.modules, symtabs))
    if expectations is not None and leg is not None:
        probs, notes = check_expected(v.leaves, lost or {}, expectations, leg, report,
                                      patterns, (package, version) if package else None)
        for p in probs:
            v.add("expected", p)
        v.notes += notes
    if kunit_rc != 0 and v.failed == 0:
        v.add("kunit-parse", f"kunit.py parse exited {kunit_rc}")
    if package is not None:
        v.known_issue = explained_by_known_issue(v, console_text, package, version,
                                                 patched)
    return v


def explained_by_known_issue(v, console_text, package, version, patched=False):
    """The known issue that is this run's ONLY problem, or None.

    On a patched kernel (@patched) none is: the series carries each known
    issue's fix, so a crash with a known signature is a failure like any
    other; a note names the signature it showed.

    The first splat must show its signature; every problem must be that
    splat or a consequence of it (suites not run, the guest not finishing):
    one crash, or one report the guest survived (a second splat is not
    explained); the only failed case may be the one the crash interrupted.
    """
    ki = known_issue(package, version, console_text)
    if ki is None:
        return None
    if patched:
        v.notes.append(f"the crash shows {ki.ident}'s signature, but this kernel carries "
                       "its fix (kernel-patches/): a failure, not a known issue")
        return None
    if any(p.kind not in CRASH_CONSEQUENCES | {"splat"} for p in v.problems):
        return None
    if sum(p.kind in ("crash", "splat") for p in v.problems) != 1:
        return None
    real_fails = [l for l in v.leaves if l.status == "FAIL" and l.path and
                  not l.reason.startswith("crashed")]
    if real_fails:
        return None
    return ki


def analyse(status_text, console_text, kunit_py, outdir, hung=False, powered_off=True,
            leg=None, patterns="*", expectations=None, package=None, version=None,
            symtabs=None, patched=False):
    """Judge one boot from its texts; write kunit.ktap/json/txt under @outdir.

    Returns the Verdict (with .parsed, kunit.py's report).  Used by run.py
    for real guests and by tests/test_harness.py for canned ones.
    """
    report = GuestReport(status_text)
    ktap = assemble_ktap(report, console_text)
    ktap_path = os.path.join(outdir, "kunit.ktap")
    json_path = os.path.join(outdir, "kunit.json")
    with open(ktap_path, "w") as f:
        f.write(ktap)
    if os.path.exists(json_path):
        os.unlink(json_path)
    rc, parsed = kunit_parse(kunit_py, ktap_path, json_path)
    with open(os.path.join(outdir, "kunit.txt"), "w") as f:
        f.write(parsed)
    leaves, lost = ktap_leaves(ktap)
    counts = (0, 0, 0)
    have_json = os.path.exists(json_path) and os.path.getsize(json_path)
    if have_json:
        counts = count_json(json_path)
        n_lost = lost_param_skips(ktap)
        counts = (counts[0] - n_lost, counts[1], counts[2] + n_lost)
    v = judge(report, console_text, rc, counts, hung, powered_off, leaves, leg,
              expectations, patterns, package, version, lost, symtabs, patched)
    if have_json:
        mine = leaf_counts(v.leaves)
        unresolved = sum(lost.values()) - sum(1 for l in v.leaves if l.assumed)
        mine = (mine[0] - unresolved, mine[1], mine[2] + unresolved)
        if mine != counts:
            v.add("kunit-parse", f"kunit.py counts {counts} (passed, failed, skipped) "
                                 f"but the harness reads {mine} from the same KTAP")
    if report.suites and not have_json:
        v.add("kunit-parse", "kunit.py wrote no JSON")
    v.parsed = parsed
    return v


def may_rerun(info, v):
    """Whether a leg boots once more after @v: only a stock leg (Debian's own,
    unpatched kernel) whose only problem is a known issue.  A KUnit leg's
    kernel carries the fixes, or is the unpatched kernel booted on purpose
    to show a bug: either way its first verdict stands."""
    return bool(info.get("stock")) and v.known_issue is not None


def settle_rerun(ki, second):
    """The verdict a leg keeps after a rerun for known issue @ki: the second
    boot's.  If it passed the leg is "flaky: KI-n" (second.xfail, in the
    summary and junit.xml); if not, its failure stands and a note says what
    the first boot hit."""
    second.retried = ki.ident
    if second.ok:
        second.xfail = ki.ident
    else:
        second.notes.append(f"the first boot hit {ki.ident} ({ki.what}); the rerun "
                            "failed too, so its failure stands")
    return second


def leaf_counts(leaves):
    return (sum(1 for l in leaves if l.status == "PASS"),
            sum(1 for l in leaves if l.status == "FAIL"),
            sum(1 for l in leaves if l.status == "SKIP"))


# --------------------------------------------------------------------------
# JUnit XML
# --------------------------------------------------------------------------

def junit_xml(groups):
    """JUnit XML for CI: @groups is [(suite name, classname, [(case, status,
    message, text, seconds)])], status PASS, FAIL or SKIP."""
    root = ET.Element("testsuites")
    tot = {"tests": 0, "failures": 0, "skipped": 0}
    for name, classname, cases in groups:
        ts = ET.SubElement(root, "testsuite", name=name)
        n = {"tests": 0, "failures": 0, "skipped": 0}
        for case, status, message, text, seconds in cases:
            tc = ET.SubElement(ts, "testcase", classname=classname, name=case)
            if seconds is not None:
                tc.set("time", f"{seconds:.3f}")
            n["tests"] += 1
            if status == "SKIP":
                ET.SubElement(tc, "skipped", message=message or "")
                n["skipped"] += 1
            elif status != "PASS":
                f = ET.SubElement(tc, "failure", message=(message or "failed")[:500])
                f.text = text or message or ""
                n["failures"] += 1
        for k, val in n.items():
            ts.set(k, str(val))
            tot[k] += val
        ts.set("errors", "0")
    for k, val in tot.items():
        root.set(k, str(val))
    root.set("errors", "0")
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def junit_groups_for_leg(leg, v):
    """The JUnit groups of one leg: a <testsuite> per KUnit suite, and one
    "<leg>.guest" holding the run's own checks (splats, leaks, taint...)."""
    groups, by_suite = [], {}
    for l in v.leaves:
        by_suite.setdefault(l.suite, []).append(l)
    for suite, leaves in by_suite.items():
        cases = []
        for l in leaves:
            name = ".".join(l.path) or suite
            text = "\n".join(l.diag)
            cases.append((name, l.status, l.reason or (l.diag[0] if l.diag else ""),
                          text, None))
        groups.append((f"{leg}.{suite}", f"{leg}.{suite}", cases))
    guest = [("run", "FAIL" if v.problems else "PASS",
              v.problems[0] if v.problems else "", "\n".join(v.problems), v.total_seconds)]
    if v.xfail:
        guest.append((f"known issue {v.xfail} (first boot)", "SKIP",
                      f"flaky: {v.xfail}: the first boot hit it; rerun taken", "", None))
    groups.append((f"{leg}.guest", f"{leg}.guest", guest))
    return groups
