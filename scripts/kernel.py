#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Fetch, configure and build cmkit's test kernels from Debian's linux-source packages.

    kernel.py build KVER      fetch + unpack + build if not cached; print the build dir
    kernel.py kdir KVER       like build, but print only the O= build dir (for make)
    kernel.py info KVER       print the cached build's facts as JSON (builds if needed)
    kernel.py versions        list the matrix

Every kernel is `make tinyconfig` + kunit/cmkit.config + `make olddefconfig`, built
`bzImage modules` into $CMKIT_CACHE (default ~/.cache/cmkit), keyed by the Debian
package version and a hash of the fragment.  One build at a time (a lock file in the
cache); full logs go to build/logs/.
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
LOGDIR = os.path.join(TOP, "build", "logs")
MATRIX = ("6.1", "6.12", "7.3")
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

def fragment_hash():
    return hashlib.sha256(open(FRAGMENT, "rb").read()).hexdigest()[:12]


def safe(version):
    return re.sub(r"[^A-Za-z0-9.+-]", "_", version)


def kernel_dir(kver, version):
    return os.path.join(cache_dir(), "kernels", kver, f"{safe(version)}-{fragment_hash()}")


def source_dir(kver, version):
    return os.path.join(cache_dir(), "src", f"linux-source-{kver}_{safe(version)}")


def cached_builds(kver):
    """Finished builds of this KVER with the current fragment, newest first."""
    pat = os.path.join(cache_dir(), "kernels", kver, f"*-{fragment_hash()}", "done.json")
    hits = sorted(glob.glob(pat), key=os.path.getmtime, reverse=True)
    return [os.path.dirname(h) for h in hits]


def resolve_version(kver, apt):
    pkg = f"linux-source-{kver}"
    ver = apt.candidate(pkg)
    if ver is None and apt.update(force=True):
        ver = apt.candidate(pkg)
    return ver


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


def check_config(config_path, src=None):
    """Fragment options olddefconfig did not keep, as messages.

    With @src, options whose symbol no Kconfig of that tree defines (renamed
    or removed upstream, as LIBCRC32C was after 6.12) are not errors: one
    fragment serves the whole matrix.
    """
    want = {}
    for line in open(FRAGMENT):
        m = re.match(r"(CONFIG_\w+)=(.*)", line.strip())
        if m:
            want[m.group(1)] = m.group(2)
        m = re.match(r"# (CONFIG_\w+) is not set", line.strip())
        if m:
            want[m.group(1)] = "n"
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


def build(kver, version, apt):
    kdir = kernel_dir(kver, version)
    if os.path.exists(os.path.join(kdir, "done.json")):
        return kdir
    os.makedirs(LOGDIR, exist_ok=True)
    log = os.path.join(LOGDIR, f"kernel-{kver}.log")
    open(log, "w").close()
    src = unpack(kver, version, apt, log)
    out = os.path.join(kdir, "build")
    shutil.rmtree(kdir, ignore_errors=True)
    os.makedirs(out)
    env_make = ["make", "-C", src, f"O={out}", "KBUILD_BUILD_USER=cmkit",
                "KBUILD_BUILD_HOST=cmkit", "LOCALVERSION="]
    say(f"configuring {kver} ({version}): tinyconfig + kunit/cmkit.config")
    if run_logged(env_make + ["tinyconfig"], log) != 0:
        die(f"make tinyconfig failed; see {log}")
    with open(os.path.join(out, ".config"), "a") as f:
        f.write("\n" + open(FRAGMENT).read())
    if run_logged(env_make + ["olddefconfig"], log) != 0:
        die(f"make olddefconfig failed; see {log}")
    bad = check_config(os.path.join(out, ".config"), src)
    if bad:
        die("the fragment did not survive olddefconfig:\n  " + "\n  ".join(bad))
    jobs = str((os.cpu_count() or 1) + 1)
    say(f"building {kver} bzImage modules with -j{jobs} (log: {os.path.relpath(log, TOP)})")
    t0 = time.time()
    prog = Progress(f"build {kver}")
    rc = run_logged(env_make + [f"-j{jobs}", "bzImage", "modules"], log, progress=prog.line)
    prog.done()
    if rc != 0:
        with open(log) as f:
            tail = f.readlines()[-30:]
        die(f"kernel build failed; last lines of {log}:\n" + "".join(tail))
    release = subprocess.run(env_make + ["-s", "kernelrelease"], stdout=subprocess.PIPE,
                             text=True, check=True).stdout.strip()
    info = {"kver": kver, "package": f"linux-source-{kver}", "version": version,
            "release": release, "source": src, "build": out,
            "bzImage": os.path.join(out, "arch/x86/boot/bzImage"),
            "fragment_sha256": fragment_hash(), "build_seconds": round(time.time() - t0)}
    with open(os.path.join(kdir, "done.json"), "w") as f:
        json.dump(info, f, indent=1)
    say(f"built {kver} ({release}) in {info['build_seconds']} s")
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


def ensure(kver):
    if kver not in MATRIX:
        die(f"unknown kernel {kver!r}; the matrix is {' '.join(MATRIX)}")
    os.makedirs(cache_dir(), exist_ok=True)
    apt = Apt()
    if not apt.update():
        hits = cached_builds(kver)
        if hits:
            say(f"apt unreachable; using the cached {kver} build")
            return hits[0]
        die("apt-get update failed and nothing is cached")
    version = resolve_version(kver, apt)
    if version is None:
        hits = cached_builds(kver)
        if hits:
            return hits[0]
        die(f"no linux-source-{kver} package in the archive")
    kdir = kernel_dir(kver, version)
    if os.path.exists(os.path.join(kdir, "done.json")):
        return kdir
    with machine_lock("another kernel build or a guest"):
        return build(kver, version, apt)


def main(argv):
    if len(argv) < 2 or argv[1] not in ("build", "kdir", "info", "versions"):
        print(__doc__, file=sys.stderr)
        return 2
    if argv[1] == "versions":
        print(" ".join(MATRIX))
        return 0
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    kver = argv[2]
    if argv[1] == "kdir":
        # Keep stdout clean for $(shell ...): progress goes to stderr.
        real = sys.stdout
        sys.stdout = sys.stderr
        kdir = ensure(kver)
        sys.stdout = real
        print(os.path.join(kdir, "build"))
        return 0
    kdir = ensure(kver)
    if argv[1] == "info":
        print(open(os.path.join(kdir, "done.json")).read())
    else:
        print(os.path.join(kdir, "build"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
