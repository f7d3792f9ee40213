#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Fetch, configure and build cmkit's test kernels from Debian's linux-source packages.

    kernel.py build LEG       fetch + unpack + build if not cached; print the build dir
    kernel.py kdir LEG        like build, but print only the O= build dir (for make)
    kernel.py info LEG        print the cached build's facts as JSON (builds if needed)
    kernel.py source LEG      like kdir, but print the kernel source tree
    kernel.py versions        list the default legs (make test's matrix)
    kernel.py legs            list every leg with its series and fragments (or package)
    kernel.py update          move the pins in kunit/kernels.pin to the archive's newest
    kernel.py cache-key LEG   the key a CI cache of LEG's build goes by: the leg, its
                              pinned package version and the options hash (as the
                              cache directory is keyed)

A leg is a kernel series of the matrix built with a list of config fragments:
"6.1", "6.12" and "7.3" with kunit/cmkit.config, and "6.12-debug" (make test's;
"6.1-debug" and "7.3-debug" on demand) with
kunit/debug.config on top (KASAN, kmemleak, UBSAN, DEBUG_OBJECTS, hung-task
and soft-lockup detection); make bench's "<series>-bench" legs have
kunit/bench.config on top (LIO and ib_srpt as modules).  Every leg is `make tinyconfig`, then the tree's
own scripts/kconfig/merge_config.sh with the leg's fragments, then `make
olddefconfig`; a small post-check refuses a build where a fragment option
that exists in the tree did not survive.  Builds are `bzImage modules` in
$CMKIT_CACHE (default ~/.cache/cmkit), keyed by the Debian package version
and a hash of the merged options (comments and order do not count).  The
package version of each series is pinned in kunit/kernels.pin; a newer one
in the archive changes nothing until `make update-kernels`.  One build at a
time (a lock file in the cache); full logs go to build/logs/.

The stock legs ("stock-6.1", "stock-6.12") are not built: they are Debian's
own linux-image and linux-headers packages of a series, pinned in
kunit/kernels.pin too ("stock-6.1" and "stock-6.1/headers"), fetched into
the same cache (scripts/stock.py).
"""

import contextlib
import fcntl
import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FRAGMENT = os.path.join(TOP, "kunit", "cmkit.config")
DEBUG_FRAGMENT = os.path.join(TOP, "kunit", "debug.config")
BENCH_FRAGMENT = os.path.join(TOP, "kunit", "bench.config")
# Fixes for the kernel bugs cmkit's suites met, carried for the test kernels:
# kernel-patches/<series>/*.patch, applied in name order (docs/kernel-bugs.md).
PATCH_DIR = os.path.join(TOP, "kernel-patches")
PIN_FILE = os.path.join(TOP, "kunit", "kernels.pin")
LOGDIR = os.path.join(TOP, "build", "logs")
# Bump when the recipe (not the options) changes what a build produces.
RECIPE = "2"


class Leg:
    """A kernel series built with a list of fragments, booted with extra arguments."""

    def __init__(self, name, series, fragments, localversion="", cmdline="", debug=False,
                 stock=False):
        self.name, self.series, self.fragments = name, series, fragments
        self.localversion, self.cmdline, self.debug = localversion, cmdline, debug
        # Debian's own kernel of the series (scripts/stock.py), not a build.
        self.stock = stock

    @property
    def pin_key(self):
        """Its line in kunit/kernels.pin: the series, or a stock leg's name."""
        return self.name if self.stock else self.series


LEGS = {
    "6.1": Leg("6.1", "6.1", [FRAGMENT]),
    "6.12": Leg("6.12", "6.12", [FRAGMENT]),
    "7.3": Leg("7.3", "7.3", [FRAGMENT]),
    # Debian's own kernels: no KUnit, no siw; the shell suites only.
    "stock-6.1": Leg("stock-6.1", "6.1", [], cmdline="cmkit.stock=1", stock=True),
    "stock-6.12": Leg("stock-6.12", "6.12", [], cmdline="cmkit.stock=1", stock=True),
}
# Each series with kunit/debug.config on top: make test runs 6.12-debug; the
# others on demand (make test KVERS=7.3-debug, for a bug seen only there).
for _series in ("6.1", "6.12", "7.3"):
    LEGS[f"{_series}-debug"] = Leg(f"{_series}-debug", _series, [FRAGMENT, DEBUG_FRAGMENT],
                                   localversion="-debug",
                                   cmdline="slub_debug=FZPU kmemleak=on", debug=True)
# make bench's legs: each series with kunit/bench.config on top (not in MATRIX).
for _series in ("6.1", "6.12", "7.3"):
    LEGS[f"{_series}-bench"] = Leg(f"{_series}-bench", _series, [FRAGMENT, BENCH_FRAGMENT],
                                   localversion="-bench")
SERIES = ("6.1", "6.12", "7.3")
# make test's legs, in order; DEBUG=0 drops the debug ones.
MATRIX = ("6.1", "6.12", "7.3", "6.12-debug", "stock-6.1", "stock-6.12")


def leg(name):
    if name not in LEGS:
        die(f"unknown kernel {name!r}; the legs are {' '.join(LEGS)}")
    return LEGS[name]
# Kernels not in the machine's own suites come from this suite of the same archive.
EXTRA_SUITE = {"7.3": "trixie-backports"}
APT_MAX_AGE = 24 * 3600


def cache_dir():
    return os.environ.get("CMKIT_CACHE") or os.path.expanduser("~/.cache/cmkit")


def say(msg):
    print(f"[kernel] {msg}", flush=True)


def die(msg):
    print(f"[kernel] error: {msg}", file=sys.stderr, flush=True)
    sys.exit(1)


# --------------------------------------------------------------------------
# apt: a private configuration under the cache, never the system's sources
# --------------------------------------------------------------------------

def _system_sources():
    """Yield (uris, suites, signed_by) for every deb entry the system's apt uses."""
    files = ["/etc/apt/sources.list"] + sorted(glob.glob("/etc/apt/sources.list.d/*.list"))
    for path in files:
        try:
            text = open(path).read()
        except OSError:
            continue
        for line in text.splitlines():
            line = line.split("#", 1)[0].strip()
            m = re.match(r"deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line)
            if m:
                opts = m.group(1) or ""
                sb = re.search(r"signed-by=(\S+?)[\s\]]", opts + " ")
                yield [m.group(2)], [m.group(3)], sb.group(1) if sb else None
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        for stanza in re.split(r"\n\s*\n", open(path).read()):
            fields = {}
            for line in stanza.splitlines():
                if line.startswith("#") or ":" not in line:
                    continue
                k, v = line.split(":", 1)
                fields[k.strip().lower()] = v.strip()
            if "deb" not in fields.get("types", "").split():
                continue
            yield (fields.get("uris", "").split(), fields.get("suites", "").split(),
                   fields.get("signed-by"))


def _codename():
    for line in open("/etc/os-release"):
        if line.startswith("VERSION_CODENAME="):
            return line.split("=", 1)[1].strip().strip('"')
    return ""


def _main_archive():
    """The URI (and keyring) of the archive that carries the release's main suite."""
    code = _codename()
    for uris, suites, signed_by in _system_sources():
        if code in suites and uris:
            return uris[0], signed_by
    die("cannot find the Debian archive in the system's apt sources")


class Apt:
    def __init__(self):
        self.root = os.path.join(cache_dir(), "apt")
        self.parts = os.path.join(self.root, "sources.list.d")
        self.lists = os.path.join(self.root, "lists")
        os.makedirs(os.path.join(self.lists, "partial"), exist_ok=True)
        os.makedirs(os.path.join(self.root, "archives", "partial"), exist_ok=True)
        os.makedirs(self.parts, exist_ok=True)
        # The system's own source files, as they are, plus the extra suites.
        for f in os.listdir(self.parts):
            os.unlink(os.path.join(self.parts, f))
        for src in glob.glob("/etc/apt/sources.list.d/*.list") + \
                glob.glob("/etc/apt/sources.list.d/*.sources"):
            os.symlink(src, os.path.join(self.parts, os.path.basename(src)))
        uri, signed_by = _main_archive()
        opts = f"[signed-by={signed_by}] " if signed_by else ""
        with open(os.path.join(self.root, "sources.list"), "w") as f:
            if os.path.exists("/etc/apt/sources.list"):
                f.write(open("/etc/apt/sources.list").read() + "\n")
            for suite in sorted(set(EXTRA_SUITE.values())):
                f.write(f"deb {opts}{uri} {suite} main\n")

    def opts(self):
        return ["-o", f"Dir::Etc::SourceList={self.root}/sources.list",
                "-o", f"Dir::Etc::SourceParts={self.parts}",
                "-o", f"Dir::State::Lists={self.lists}",
                "-o", f"Dir::Cache::Archives={self.root}/archives",
                "-o", f"Dir::Cache::pkgcache={self.root}/pkgcache.bin",
                "-o", f"Dir::Cache::srcpkgcache={self.root}/srcpkgcache.bin",
                "-o", "Debug::NoLocking=1", "-q"]

    def update(self, force=False):
        stamp = os.path.join(self.root, "updated")
        if not force and os.path.exists(stamp) and \
                time.time() - os.path.getmtime(stamp) < APT_MAX_AGE:
            return True
        say("apt-get update (private lists under the cache)")
        r = subprocess.run(["apt-get"] + self.opts() + ["update"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        os.makedirs(LOGDIR, exist_ok=True)
        with open(os.path.join(LOGDIR, "apt-update.log"), "w") as f:
            f.write(r.stdout)
        if r.returncode != 0:
            say("apt-get update failed (see build/logs/apt-update.log)")
            return False
        open(stamp, "w").close()
        return True

    def candidate(self, pkg):
        r = subprocess.run(["apt-cache"] + self.opts() + ["policy", pkg],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        m = re.search(r"Candidate:\s*(\S+)", r.stdout)
        if not m or m.group(1) == "(none)":
            return None
        return m.group(1)

    def show(self, pkg):
        """`apt-cache show` of every version of @pkg ("" if none)."""
        r = subprocess.run(["apt-cache"] + self.opts() + ["show", pkg],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return r.stdout

    def versions(self, pkg):
        """Every version of @pkg the archive offers."""
        r = subprocess.run(["apt-cache"] + self.opts() + ["madison", pkg],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        return {line.split("|")[1].strip() for line in r.stdout.splitlines()
                if line.count("|") >= 2}

    def download(self, pkg, version, dest):
        say(f"downloading {pkg} {version}")
        r = subprocess.run(["apt-get"] + self.opts() + ["download", f"{pkg}={version}"],
                           cwd=dest, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        if r.returncode != 0:
            die(f"apt-get download {pkg}={version} failed:\n{r.stdout}")
        debs = glob.glob(os.path.join(dest, f"{pkg}_*.deb"))
        if not debs:
            die(f"apt-get download left no {pkg} package in {dest}")
        return debs[0]


# --------------------------------------------------------------------------
# cache layout
# --------------------------------------------------------------------------

def fragment_options(path):
    """{CONFIG_X: value} of one fragment ("n" for "is not set"); comments ignored."""
    opts = {}
    for line in open(path):
        line = line.strip()
        m = re.match(r"(CONFIG_\w+)=(.*)", line)
        if m:
            opts[m.group(1)] = m.group(2)
        m = re.match(r"# (CONFIG_\w+) is not set", line)
        if m:
            opts[m.group(1)] = "n"
    return opts


def merged_options(lg):
    """The leg's options as merge_config.sh merges them: later fragments win."""
    opts = {}
    for frag in lg.fragments:
        opts.update(fragment_options(frag))
    return opts


def patches(lg):
    """The patch series carried for @lg's series, in order: [] for a stock leg
    (Debian's own kernel, as Debian ships it) and when CMKIT_NO_PATCHES=1 (the
    unpatched kernel, to show a bug's reproduction without its fix)."""
    if lg.stock or os.environ.get("CMKIT_NO_PATCHES") == "1":
        return []
    return sorted(glob.glob(os.path.join(PATCH_DIR, lg.series, "*.patch")))


def options_hash(lg):
    """The cache key's option part: the merged options, sorted, the recipe and
    the patch series' contents (a stock leg's: what its fetch keeps).  An
    unpatched build keeps the key it had before patches were carried."""
    if lg.stock:
        import stock
        return hashlib.sha256(stock.recipe_text().encode()).hexdigest()[:12]
    text = "".join(f"{k}={v}\n" for k, v in sorted(merged_options(lg).items()))
    text += f"LOCALVERSION={lg.localversion}\nRECIPE={RECIPE}\n"
    for path in patches(lg):
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        text += f"PATCH={os.path.basename(path)} {digest}\n"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def safe(version):
    return re.sub(r"[^A-Za-z0-9.+-]", "_", version)


def kernel_dir(lg, version):
    return os.path.join(cache_dir(), "kernels", lg.name, f"{safe(version)}-{options_hash(lg)}")


def source_dir(kver, version):
    return os.path.join(cache_dir(), "src", f"linux-source-{kver}_{safe(version)}")


def cached_builds(lg):
    """Finished builds of this leg with its current options, newest first."""
    pat = os.path.join(cache_dir(), "kernels", lg.name, f"*-{options_hash(lg)}", "done.json")
    hits = sorted(glob.glob(pat), key=os.path.getmtime, reverse=True)
    return [os.path.dirname(h) for h in hits]


def read_pins(path=None):
    """{key: (package, version)} from kunit/kernels.pin (key: a series, a stock
    leg, or "<stock leg>/headers")."""
    path = path or PIN_FILE
    pins = {}
    if os.path.exists(path):
        for line in open(path):
            words = line.split("#", 1)[0].split()
            if len(words) == 3:
                pins[words[0]] = (words[1], words[2])
    return pins


def leg_pins(pins=None):
    """{leg: (package, version)}: the pin each leg runs (its Leg.pin_key's line
    of @pins, by default kunit/kernels.pin's)."""
    pins = read_pins() if pins is None else pins
    return {name: pins[lg.pin_key] for name, lg in LEGS.items() if lg.pin_key in pins}


def pin_order(key):
    """The pin file's order: the series by number, then the stock legs."""
    return [(0, int(x), "") if x.isdigit() else (1, 0, x) for x in re.split(r"[./-]", key)]


def write_pins(pins, path=None):
    path = path or PIN_FILE
    head = []
    for line in open(path):
        if line.startswith("#") or not line.strip():
            head.append(line)
        else:
            break
    with open(path, "w") as f:
        f.writelines(head)
        for key in sorted(pins, key=pin_order):
            pkg, ver = pins[key]
            f.write(f"{key:<12} {pkg:<28} {ver}\n")


def resolve_version(series, apt):
    """(version, note): the pinned version of linux-source-<series>, or why not.

    The pin is used when its source is already unpacked in the cache or the
    archive still has it; otherwise the archive's newest, with a note that the
    summary shows.
    """
    pkg = f"linux-source-{series}"
    pinned = read_pins().get(series, (pkg, None))[1]
    if pinned and os.path.exists(os.path.join(source_dir(series, pinned), ".cmkit-unpacked")):
        return pinned, None
    if pinned and pinned in apt.versions(pkg):
        return pinned, None
    ver = apt.candidate(pkg)
    if ver is None and apt.update(force=True):
        ver = apt.candidate(pkg)
        if pinned and pinned in apt.versions(pkg):
            return pinned, None
    if not pinned:
        return ver, f"{pkg} is not pinned in kunit/kernels.pin; used {ver}"
    if ver is None:
        return None, f"{pkg} {pinned} (pinned) is not in the archive, nor any other"
    return ver, f"{pkg} {pinned} (pinned) is no longer in the archive; used {ver}"


def update_pins(apt=None, path=None, out=say, expected_path=None):
    """make update-kernels: move each pin to the archive's newest; print what
    moved.  A stock image's package name changes with each ABI bump
    (linux-image-6.1.0-57-amd64 -> -58-), so its newest is what Debian's
    metapackages depend on (scripts/stock.py), and its headers follow it.
    Then names each skip line of kunit/expected.txt (@expected_path) that no
    longer names its leg's pin: it excuses nothing until it is re-checked.
    Returns the moves, as printed."""
    import stock
    if apt is None:
        apt = Apt()
        if not apt.update(force=True):
            die("apt-get update failed")
    pins = read_pins(path)
    moves = []

    def move(key, pkg, new):
        old_pkg, old = pins.get(key, (None, None))
        if (old_pkg, old) == (pkg, new):
            out(f"{key}: {pkg} {new} (unchanged)")
            return
        if old_pkg in (None, pkg):
            moves.append(f"{key}: {pkg} {old or '(unpinned)'} -> {new}")
        else:
            moves.append(f"{key}: {old_pkg} {old} -> {pkg} {new}")
        out(moves[-1])
        pins[key] = (pkg, new)

    for series in SERIES:
        pkg = f"linux-source-{series}"
        new = apt.candidate(pkg)
        if new is None:
            out(f"{pkg}: not in the archive; pin kept at {pins.get(series, (pkg, None))[1]}")
        else:
            move(series, pkg, new)
    for lg in [lg for lg in LEGS.values() if lg.stock]:
        best = stock.newest_image(lg.series, apt)
        if best is None:
            out(f"{lg.name}: the archive has no {lg.series} image; pin kept")
            continue
        move(lg.name, *best)
        move(f"{lg.name}/headers", stock.headers_package(best[0]), best[1])
    stock_keys = {lg.name for lg in LEGS.values() if lg.stock}
    for key, (pkg, old) in list(pins.items()):
        if key in SERIES or key.split("/")[0] in stock_keys:
            continue
        new = apt.candidate(pkg)
        if new and new != old:
            move(key, pkg, new)
    write_pins(pins, path)
    # A skip judged on the old kernel excuses nothing on the new one (results.py).
    import results
    try:
        off = results.skips_off_pin(results.read_expected(expected_path or
                                                          results.EXPECTED_FILE),
                                    leg_pins(pins))
    except ValueError as e:
        off = []
        out(f"{e}")
    for e, leg, (pkg, ver) in off:
        out(f"re-check kunit/expected.txt line {e.lineno} ({e.target}) on {leg}: it names "
            f"{e.pins_text()}; the pin is now {pkg}={ver}")
    out(f"{len(moves)} pin(s) moved; {path or os.path.relpath(PIN_FILE, TOP)} written")
    return moves


# --------------------------------------------------------------------------
# unpack, configure, build
# --------------------------------------------------------------------------

def run_logged(cmd, log, cwd=None, progress=None):
    """Run cmd appending to log; call progress(line) per line; return exit code."""
    with open(log, "a") as f:
        f.write(f"\n$ {' '.join(cmd)}\n")
        f.flush()
        p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, errors="replace")
        for line in p.stdout:
            f.write(line)
            if progress:
                progress(line)
        return p.wait()


def unpack(kver, version, apt, log):
    src = source_dir(kver, version)
    if os.path.exists(os.path.join(src, ".cmkit-unpacked")):
        return src
    tmp = tempfile.mkdtemp(prefix="unpack-", dir=cache_dir())
    try:
        deb = apt.download(f"linux-source-{kver}", version, tmp)
        say(f"unpacking {os.path.basename(deb)}")
        t0 = time.time()
        subprocess.run(["dpkg-deb", "-x", deb, tmp], check=True)
        tars = glob.glob(os.path.join(tmp, "usr/src/linux-source-*.tar.*"))
        if not tars:
            die(f"{deb} holds no source tarball")
        shutil.rmtree(src, ignore_errors=True)
        os.makedirs(src)
        subprocess.run(["tar", "xf", tars[0], "-C", src, "--strip-components=1"], check=True)
        open(os.path.join(src, ".cmkit-unpacked"), "w").close()
        say(f"unpacked into {src} in {time.time() - t0:.0f} s")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return src


APPLIED = ".cmkit-patches.json"


def _patch(src, path, reverse, log, dry=False):
    # No fuzz: a patch whose context moved is refreshed, not guessed at.
    cmd = ["patch", "-p1", "-s", "-f", "-F0", "--no-backup-if-mismatch", "-d", src, "-i", path]
    if reverse:
        cmd.insert(1, "-R")
    if dry:
        cmd.insert(1, "--dry-run")
    return run_logged(cmd, log) == 0


def apply_series(src, series, log):
    """Bring the unpacked tree @src to exactly @series applied (a list of patch
    files): reverse what is applied now (kept in @src/.cmkit-patches.json with
    its text), then apply @series in order.  Only the files the patches touch
    change, so a build seeded from another build of the tree recompiles those
    alone.  Called with the machine lock held (no build reads @src meanwhile)."""
    state_path = os.path.join(src, APPLIED)
    applied = []
    if os.path.exists(state_path):
        with open(state_path) as f:
            applied = json.load(f)
    wanted = []
    for p in series:
        with open(p) as f:
            wanted.append({"name": os.path.basename(p), "text": f.read()})
    if applied == wanted:
        return
    tmp = tempfile.mkdtemp(prefix="patches-", dir=cache_dir())
    try:
        while applied:
            top = applied[-1]
            path = os.path.join(tmp, top["name"])
            with open(path, "w") as f:
                f.write(top["text"])
            if not _patch(src, path, True, log):
                die(f"could not take {top['name']} back out of {src}; see {log} "
                    f"(remove {src} to unpack it again)")
            applied.pop()
            with open(state_path, "w") as f:
                json.dump(applied, f)
        for p, entry in zip(series, wanted):
            if not _patch(src, p, False, log, dry=True):
                die(f"{os.path.relpath(p, TOP)} does not apply to {src}; see {log}")
            _patch(src, p, False, log)
            applied.append(entry)
            with open(state_path, "w") as f:
                json.dump(applied, f)
            say(f"applied {os.path.relpath(p, TOP)}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def seed_build(lg, version, out):
    """Start @out from the newest finished build of the same leg and package
    version (another patch series or options): kbuild then rebuilds only what
    the difference touches instead of the whole kernel.  Returns the seed."""
    pat = os.path.join(cache_dir(), "kernels", lg.name, f"{safe(version)}-*", "done.json")
    hits = sorted(glob.glob(pat), key=os.path.getmtime, reverse=True)
    for hit in hits:
        seed = os.path.join(os.path.dirname(hit), "build")
        if os.path.isdir(seed) and os.path.dirname(seed) != os.path.dirname(out):
            subprocess.run(["cp", "-a", seed + "/.", out], check=True)
            return seed
    return None


def kconfig_symbols(src):
    """Every symbol some Kconfig file of the tree defines."""
    syms = set()
    for root, _, files in os.walk(src):
        for name in files:
            if not name.startswith("Kconfig"):
                continue
            with open(os.path.join(root, name), errors="replace") as f:
                for line in f:
                    m = re.match(r"\s*(?:menu)?config\s+(\w+)", line)
                    if m:
                        syms.add("CONFIG_" + m.group(1))
    return syms


def check_config(config_path, want, src=None):
    """Merged options olddefconfig did not keep, as messages.

    With @src, options whose symbol no Kconfig of that tree defines (renamed
    or removed upstream, as LIBCRC32C was after 6.12) are not errors: one
    fragment serves the whole matrix.
    """
    have = {}
    for line in open(config_path):
        m = re.match(r"(CONFIG_\w+)=(.*)", line.strip())
        if m:
            have[m.group(1)] = m.group(2)
    bad = [k for k, v in want.items() if have.get(k, "n") != v]
    if bad and src:
        known = kconfig_symbols(src)
        for k in [k for k in bad if k not in known]:
            say(f"{k} does not exist in this kernel; skipped")
        bad = [k for k in bad if k in known]
    return [f"{k}: wanted {want[k]}, got {have.get(k, 'n')}" for k in bad]


def configure(lg, src, out, log):
    """tinyconfig, the tree's merge_config.sh with the leg's fragments, olddefconfig."""
    env_make = ["make", "-C", src, f"O={out}", "KBUILD_BUILD_USER=cmkit",
                "KBUILD_BUILD_HOST=cmkit", f"LOCALVERSION={lg.localversion}"]
    names = " + ".join(os.path.relpath(f, TOP) for f in lg.fragments)
    say(f"configuring {lg.name}: tinyconfig + {names} (merge_config.sh) + olddefconfig")
    if run_logged(env_make + ["tinyconfig"], log) != 0:
        die(f"make tinyconfig failed; see {log}")
    merge = os.path.join(src, "scripts", "kconfig", "merge_config.sh")
    if run_logged(["sh", merge, "-m", "-O", out, os.path.join(out, ".config")] +
                  lg.fragments, log, cwd=out) != 0:
        die(f"merge_config.sh failed; see {log}")
    if run_logged(env_make + ["olddefconfig"], log) != 0:
        die(f"make olddefconfig failed; see {log}")
    bad = check_config(os.path.join(out, ".config"), merged_options(lg), src)
    if bad:
        die("the fragments did not survive olddefconfig:\n  " + "\n  ".join(bad))
    return env_make


class Progress:
    """Print a line every 30 s while make runs: objects compiled so far."""

    def __init__(self, label):
        self.label, self.count, self.t0 = label, 0, time.time()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._tick, daemon=True)
        self.thread.start()

    def line(self, line):
        if line.startswith("  CC ") or line.startswith("  AS "):
            self.count += 1

    def _tick(self):
        while not self.stop.wait(30):
            say(f"{self.label}: {self.count} objects compiled, "
                f"{time.time() - self.t0:.0f} s elapsed")

    def done(self):
        self.stop.set()


def build(lg, version, apt, note=None):
    kdir = kernel_dir(lg, version)
    if os.path.exists(os.path.join(kdir, "done.json")):
        return kdir
    os.makedirs(LOGDIR, exist_ok=True)
    log = os.path.join(LOGDIR, f"kernel-{lg.name}.log")
    open(log, "w").close()
    src = unpack(lg.series, version, apt, log)
    series = patches(lg)
    apply_series(src, series, log)
    out = os.path.join(kdir, "build")
    if os.path.exists(os.path.join(out, ".config")):
        # An interrupted build of the same options: kbuild picks up where
        # it stopped (the configuration below comes out identical).
        say(f"resuming the interrupted build in {out}")
    else:
        shutil.rmtree(kdir, ignore_errors=True)
        os.makedirs(out)
        seed = seed_build(lg, version, out)
        if seed:
            say(f"starting from {os.path.relpath(seed, cache_dir())} (only what "
                f"differs is rebuilt)")
    env_make = configure(lg, src, out, log)
    jobs = str((os.cpu_count() or 1) + 1)
    say(f"building {lg.name} ({version}) bzImage modules with -j{jobs} "
        f"(log: {os.path.relpath(log, TOP)})")
    t0 = time.time()
    prog = Progress(f"build {lg.name}")
    rc = run_logged(env_make + [f"-j{jobs}", "bzImage", "modules"], log, progress=prog.line)
    prog.done()
    if rc != 0:
        with open(log) as f:
            tail = f.readlines()[-30:]
        die(f"kernel build failed; last lines of {log}:\n" + "".join(tail))
    release = subprocess.run(env_make + ["-s", "kernelrelease"], stdout=subprocess.PIPE,
                             text=True, check=True).stdout.strip()
    info = {"kver": lg.series, "leg": lg.name, "debug": lg.debug, "cmdline": lg.cmdline,
            "package": f"linux-source-{lg.series}", "version": version,
            "release": release, "source": src, "build": out,
            "bzImage": os.path.join(out, "arch/x86/boot/bzImage"),
            "options_sha256": options_hash(lg), "build_seconds": round(time.time() - t0),
            "patches": [os.path.relpath(p, TOP) for p in series]}
    with open(os.path.join(kdir, "done.json"), "w") as f:
        json.dump(info, f, indent=1)
    say(f"built {lg.name} ({release}) in {info['build_seconds']} s")
    return kdir


@contextlib.contextmanager
def machine_lock(what):
    """Held while a kernel builds or a guest runs: one of them at a time."""
    os.makedirs(cache_dir(), exist_ok=True)
    with open(os.path.join(cache_dir(), "machine.lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say(f"waiting for {what} to finish")
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@contextlib.contextmanager
def tree_lock():
    """Held by a make test/run/shell: they share this checkout's build/."""
    os.makedirs(os.path.join(TOP, "build"), exist_ok=True)
    with open(os.path.join(TOP, "build", "run.lock"), "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            say("another run in this checkout is using build/; waiting for it")
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def ensure(name):
    """The cache directory of leg @name, built if needed.

    Its done.json gains "pin_note" when the pinned package version could not
    be used (the summary shows it).
    """
    lg = leg(name)
    os.makedirs(cache_dir(), exist_ok=True)
    if lg.stock:
        import stock
        return stock.ensure(lg)
    pinned = read_pins().get(lg.series, (None, None))[1]
    if pinned:
        kdir = kernel_dir(lg, pinned)
        if os.path.exists(os.path.join(kdir, "done.json")):
            return kdir
    apt = Apt()
    if not apt.update():
        hits = cached_builds(lg)
        if hits:
            say(f"apt unreachable; using the cached {lg.name} build")
            return hits[0]
        die("apt-get update failed and nothing is cached")
    version, note = resolve_version(lg.series, apt)
    if note:
        say(note)
    if version is None:
        die(f"no linux-source-{lg.series} package in the archive")
    kdir = kernel_dir(lg, version)
    if not os.path.exists(os.path.join(kdir, "done.json")):
        with machine_lock("another kernel build or a guest"):
            build(lg, version, apt)
    record_pin_note(kdir, note)
    return kdir


def record_pin_note(kdir, note):
    """Keep in the build's done.json why its pin was not used (or that it was)."""
    path = os.path.join(kdir, "done.json")
    info = json.load(open(path))
    if info.get("pin_note") != note:
        info["pin_note"] = note
        with open(path, "w") as f:
            json.dump(info, f, indent=1)


def cache_key(name):
    """<leg>-<pinned version>-<options hash>: what names LEG's cached build."""
    lg = leg(name)
    pinned = read_pins().get(lg.pin_key, (None, "unpinned"))[1]
    return f"{lg.name}-{safe(pinned)}-{options_hash(lg)}"


def main(argv):
    cmds = ("build", "kdir", "source", "info", "versions", "legs", "update", "cache-key")
    if len(argv) < 2 or argv[1] not in cmds:
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] == "versions":
        print(" ".join(MATRIX))
        return 0
    if argv[1] == "legs":
        for lg in LEGS.values():
            if lg.stock:
                pkg = read_pins().get(lg.name, ("(unpinned)", ""))
                print(f"{lg.name:<12} {pkg[0]} {pkg[1]} (Debian's own, with its "
                      f"headers; DKMS)  ({lg.cmdline})")
                continue
            frags = " + ".join(os.path.relpath(f, TOP) for f in lg.fragments)
            print(f"{lg.name:<12} linux-source-{lg.series:<6} {frags}"
                  f"{'  (' + lg.cmdline + ')' if lg.cmdline else ''}")
        return 0
    if argv[1] == "update":
        update_pins()
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    name = argv[2]
    if argv[1] == "cache-key":
        print(cache_key(name))
        return 0
    if argv[1] in ("kdir", "source"):
        # Keep stdout clean for $(shell ...): progress goes to stderr.
        real = sys.stdout
        sys.stdout = sys.stderr
        kdir = ensure(name)
        sys.stdout = real
        if argv[1] == "source":
            with open(os.path.join(kdir, "done.json")) as f:
                print(json.load(f)["source"])
        else:
            print(os.path.join(kdir, "build"))
        return 0
    kdir = ensure(name)
    if argv[1] == "info":
        print(open(os.path.join(kdir, "done.json")).read())
    else:
        print(os.path.join(kdir, "build"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
