#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The stock legs: Debian's own kernels, as Debian ships them.

    stock.py modules MODULES.DEP NAME...   the files (and their dependencies,
                                           dependencies first) that modprobe
                                           loads for NAME... (a check by hand)

A stock leg ("stock-6.1", "stock-6.12") boots Debian's own linux-image of a
series, with its own modules, and loads a cmkit.ko that DKMS built against
Debian's own linux-headers.  Debian's kernels have neither KUnit nor siw
(nor fault injection), so the guest runs the shell suites only:
cmkit_userspace (its siw cases skip, "Debian's kernel has no siw"), the
story of `make run` without siw (cmkit_story) and cmkit_srp_initiator
(Debian's own ib_srp, sd_mod and ext4 against cmkit's SRP target);
cmkit_userspace's nfsd case calls Debian's own nfsd over its svcrdma
(rpcrdma.ko).

Packages (through kernel.Apt's private configuration; the system's apt
sources and /lib/modules are never touched):

  - linux-image-<abi>-amd64, pinned in kunit/kernels.pin ("stock-6.1"),
    unpacked with dpkg-deb -x and indexed with depmod -b (the package
    leaves modules.dep to its postinst); only the kernel, its config, the
    module indexes and the modules the leg loads (MODULES and what they
    depend on, by that modules.dep) are kept in the cache;
  - linux-headers-<abi>-amd64 (pinned beside it, "stock-6.1/headers") and
    the linux-headers-*-common and linux-kbuild-* packages it depends on,
    at the same version, unpacked side by side under the cache: the tree
    DKMS builds against (--kernelsourcedir).  The one absolute path in them
    (the -amd64 Makefile's include of the -common one) is pointed at the
    unpacked copy.  Their other dependencies (gcc-12, pahole) are host
    packages: scripts/packages.txt.

Extracting instead of `apt-get install linux-headers-...`: the version is
exactly the pin whatever the system's lists say, nothing is installed on
the host (6.12's headers would pull in the 107 MB image and run its
initramfs hooks; dkms's own header hook would rebuild every registered
module), no root is needed for the headers, and the cache (and a CI cache)
holds the result.

cmkit.ko is built the way a user's DKMS builds it: a copy of the checkout
(without build/ and .git, as on a fresh clone) goes through `dkms add`,
`dkms build -k <release> --kernelsourcedir <headers>` and `dkms install
--installtree <staging> --no-depmod`, each with a private --dkmstree and
--sourcetree under build/dkms/<leg>/ (again only when the checkout or the
headers changed since the last one).  DKMS finds no sign-file there (it
looks under /usr/lib/linux-kbuild-<series>/ and /lib/modules/<release>/),
so the module is unsigned: what a Debian machine without a DKMS MOK key
enrolled gets either way (a module signed by a key the kernel does not
trust loads the same: unsigned as far as the kernel is concerned).

The guest's modules: the kept ones, decompressed (6.12's are .ko.xz),
under /lib/modules/<release>/kernel/ as in the package, cmkit.ko under
updates/dkms/ where DKMS installed it, and the host's depmod run over that
tree; the guest modprobes the list in /lib/cmkit/stock-modules, then
loads the cmkit.ko `modprobe -D cmkit` resolves (insmod: modprobe would
pass it the kernel command line's cmkit.* words as parameters).
"""

import contextlib
import fcntl
import glob
import hashlib
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kernel  # noqa: E402

TOP = kernel.TOP
BUILD = os.path.join(TOP, "build")
# The modules the guest loads from Debian's package; modprobe pulls what
# they depend on (configfs, udp_tunnel, ip6_udp_tunnel...).  rdma_rxe asks
# the crypto API for "crc32" at run time (request_module("crypto-crc32")),
# a dependency modules.dep cannot see: Debian builds it as crc32_generic
# (without it: "rdma_rxe: failed to init crc32 algorithm err:-2").
#
# cmkit_srp_initiator's: the kernel's SRP initiator (ib_srp, which pulls
# scsi_transport_srp, scsi_mod and scsi_common), the SCSI disk driver (on
# 6.1 it pulls t10-pi and the CRCs it needs) and ext4 (jbd2, mbcache,
# crc16).  ext4 and jbd2 ask the crypto API for "crc32c" when they mount a
# filesystem with metadata checksums (mke2fs's default): a softdep
# (crypto-crc32c) that modules.dep does not list either, built as
# crc32c_generic (without it: "ext4: Cannot load crc32c driver").
#
# cmkit.ko itself calls the kernel's crc32c() (core/crc32c.c): libcrc32c,
# which asks the crypto API for "crc32c" (crc32c_generic) when it loads.
#
# cmkit_userspace's nfsd case: the kernel's own NFS server (nfsd, which
# pulls sunrpc, lockd, grace, nfs_acl and auth_rpcgss; exportfs is built
# in) and its RPC-over-RDMA transport, svcrdma, which lives in rpcrdma
# (it pulls rdma_cm and the RDMA core, configfs and sunrpc).  Loaded up
# front as the test kernels have them built in; writing "rdma" to nfsd's
# portlist would otherwise ask for the "svcrdma" alias.
#
# cmkit_userspace's NFS client case: the kernel's own NFS client, NFSv4
# (nfsv4, which pulls nfs, netfs and dns_resolver), whose RDMA transport
# (xprtrdma) is rpcrdma too.  Loaded up front: mount would otherwise ask for
# "nfsv4" and the "xprtrdma" alias.
MODULES = ("ib_core", "ib_cm", "iw_cm", "rdma_cm", "rdma_ucm", "ib_uverbs", "rdma_rxe",
           "crc32_generic", "dummy",
           "ib_srp", "scsi_transport_srp", "sd_mod", "ext4", "crc32c_generic", "libcrc32c",
           "nfsd", "rpcrdma", "nfsv4")
# Loaded too where the package has them.  Debian's kernels do not.
OPTIONAL = ("siw",)
NO_SIW = "Debian's kernel has no siw"
# Bump when what a fetch keeps changes.
RECIPE = "1"
DKMS_CONF = os.path.join(TOP, "dkms.conf")


def say(msg):
    print(f"[stock] {msg}", flush=True)


def die(msg):
    raise SystemExit(f"[stock] error: {msg}")


def recipe_text():
    """What names a fetched stock kernel besides its version (the cache key)."""
    return f"stock\nMODULES={','.join(MODULES)}\nOPTIONAL={','.join(OPTIONAL)}\nRECIPE={RECIPE}\n"


# --------------------------------------------------------------------------
# Which package: the pin, or Debian's metapackages
# --------------------------------------------------------------------------

def parse_stanzas(text):
    """The stanzas of `apt-cache show` output, as {field: value} dicts."""
    out = []
    for block in re.split(r"\n\s*\n", text):
        fields, key = {}, None
        for line in block.splitlines():
            if line[:1] in (" ", "\t") and key:
                fields[key] += "\n" + line.strip()
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
        if fields:
            out.append(fields)
    return out


_IMAGE_DEP = re.compile(r"(linux-image-[^\s,|()]+-amd64)\s*\(=\s*([^)\s]+)\)")


def image_candidates(series, stanzas):
    """[(image package, version)] that the metapackage @stanzas of @series
    depend on: a metapackage version of the series depends on exactly one
    image of that version (linux-image-amd64 6.1.192-3 on
    linux-image-6.1.0-57-amd64 (= 6.1.192-3))."""
    out = []
    for st in stanzas:
        ver = st.get("Version", "")
        if not ver.startswith(series + "."):
            continue
        for pkg, dep_ver in _IMAGE_DEP.findall(st.get("Depends", "")):
            if dep_ver == ver and pkg != st.get("Package"):
                out.append((pkg, ver))
    return out


def version_gt(a, b):
    return subprocess.run(["dpkg", "--compare-versions", a, "gt", b]).returncode == 0


def newest(pairs):
    best = None
    for pkg, ver in pairs:
        if best is None or version_gt(ver, best[1]):
            best = (pkg, ver)
    return best


def metapackages(series):
    """Debian's metapackages that name the image of @series: the release's
    default (linux-image-amd64: 6.1 on Debian 12) and a backport's
    (linux-image-6.12-amd64 on Debian 12)."""
    return ("linux-image-amd64", f"linux-image-{series}-amd64")


def newest_image(series, apt):
    """(image package, version): the newest image of @series the archive's
    metapackages depend on, or None."""
    pairs = []
    for meta in metapackages(series):
        pairs += image_candidates(series, parse_stanzas(apt.show(meta)))
    return newest(pairs)


def headers_package(image):
    return image.replace("linux-image-", "linux-headers-", 1)


def release_of(image):
    """linux-image-6.1.0-57-amd64 -> 6.1.0-57-amd64 (the kernel's uname -r)."""
    return image[len("linux-image-"):]


def resolve(lg, apt, pins=None):
    """(image, version, note) for stock leg @lg: the pin when the archive (or
    the cache) still has it, else the newest, with a note the summary shows."""
    pins = kernel.read_pins() if pins is None else pins
    image, pinned = pins.get(lg.name, (None, None))
    if image and pinned and os.path.exists(os.path.join(kernel.kernel_dir(lg, pinned),
                                                        "done.json")):
        return image, pinned, None
    if image and pinned and pinned in apt.versions(image):
        return image, pinned, None
    best = newest_image(lg.series, apt)
    if best is None:
        return None, None, f"the archive has no {lg.series} kernel image"
    if not image:
        return best[0], best[1], (f"{lg.name} is not pinned in kunit/kernels.pin; "
                                  f"used {best[0]} {best[1]}")
    return best[0], best[1], (f"{image} {pinned} (pinned) is no longer in the archive; "
                              f"used {best[0]} {best[1]}")


# --------------------------------------------------------------------------
# modules.dep
# --------------------------------------------------------------------------

def module_name(path):
    """kernel/drivers/infiniband/core/ib_core.ko.xz -> ib_core ('-' read as '_')."""
    base = os.path.basename(path)
    base = re.sub(r"\.ko(\.(xz|gz|zst))?$", "", base)
    return base.replace("-", "_")


def parse_modules_dep(text):
    """{module name: (path, [dependency paths])} of a modules.dep."""
    deps = {}
    for line in text.splitlines():
        if ":" not in line:
            continue
        path, rest = line.split(":", 1)
        deps[module_name(path.strip())] = (path.strip(), rest.split())
    return deps


def closure(dep_text, names, optional=()):
    """(paths, missing, found_optional): the files modprobe loads for @names
    and the @optional names the package has, dependencies first (the order
    they load in), by the package's modules.dep.  @missing: names of @names
    the package lacks."""
    deps = parse_modules_dep(dep_text)
    by_path = {path: d for path, d in deps.values()}
    order, seen = [], set()

    def visit(path):
        if path in seen:
            return
        seen.add(path)
        for d in reversed(by_path.get(path, [])):   # modules.dep lists the last-loaded first
            visit(d)
        order.append(path)

    missing = [n for n in names if n.replace("-", "_") not in deps]
    found_optional = [n for n in optional if n.replace("-", "_") in deps]
    for n in list(names) + found_optional:
        if n.replace("-", "_") in deps:
            visit(deps[n.replace("-", "_")][0])
    return order, missing, found_optional


# --------------------------------------------------------------------------
# Fetching: image and headers into the cache
# --------------------------------------------------------------------------

def _run(cmd, log, cwd=None):
    with open(log, "a") as f:
        f.write(f"\n$ {' '.join(cmd)}\n")
        f.flush()
        return subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT).returncode


def _extract(apt, pkg, version, dest, tmp):
    deb = apt.download(pkg, version, tmp)
    subprocess.run(["dpkg-deb", "-x", deb, dest], check=True)
    os.unlink(deb)


def _depends(apt, pkg, version):
    for st in parse_stanzas(apt.show(pkg)):
        if st.get("Version") == version:
            return [alt.split("|")[0].split("(")[0].strip()
                    for alt in st.get("Depends", "").split(",") if alt.strip()]
    die(f"the archive has no {pkg} {version}")


def _missing_host_packages(names):
    missing = []
    for n in names:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", n], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
        if "install ok installed" not in r.stdout:
            missing.append(n)
    return missing


def install_host_packages(names, why):
    """Install Debian packages @names on the host with the system's apt, as
    `make setup` installs scripts/packages.txt (the headers' compiler, which
    a newer Debian names differently from the build-essential in the list)."""
    say(f"installing {' '.join(names)} ({why})")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    r = subprocess.run(sudo + ["apt-get", "install", "-y", "-q", "--no-install-recommends"]
                       + names, env=env)
    if r.returncode != 0:
        die(f"apt-get install {' '.join(names)} failed ({why})")


def fetch_headers(apt, headers, version, dest, tmp):
    """Unpack @headers and the -common and kbuild packages it depends on into
    @dest; return the tree DKMS builds against."""
    deps = _depends(apt, headers, version)
    ours = [d for d in deps if d.startswith(("linux-headers-", "linux-kbuild-"))]
    host = [d for d in deps if not d.startswith("linux-")]
    missing = _missing_host_packages(host)
    if missing:
        install_host_packages(missing, f"{headers} {version} depends on them")
    for pkg in [headers] + ours:
        _extract(apt, pkg, version, dest, tmp)
    kdir = os.path.join(dest, "usr", "src", headers)
    mk = os.path.join(kdir, "Makefile")
    text = open(mk).read()
    # "include /usr/src/linux-headers-<abi>-common/Makefile": the unpacked one.
    fixed = re.sub(r"^include /usr/src/", f"include {dest}/usr/src/", text, flags=re.M)
    with open(mk, "w") as f:
        f.write(fixed)
    if not os.path.exists(os.path.join(kdir, "include", "generated", "utsrelease.h")):
        die(f"{headers} {version} unpacked without include/generated/utsrelease.h")
    return kdir


def fetch_image(apt, image, version, dest, tmp):
    """Unpack @image in @tmp and keep in @dest the kernel, its config, the
    module indexes and the modules the leg loads (with their dependencies).
    Returns (vmlinuz, modules dir, [module names the leg loads])."""
    rel = release_of(image)
    root = os.path.join(tmp, "image")
    _extract(apt, image, version, root, tmp)
    moddir = os.path.join(root, "lib", "modules", rel)
    if not os.path.isdir(moddir) and os.path.isdir(os.path.join(root, "usr", "lib", "modules")):
        os.symlink(os.path.join("usr", "lib"), os.path.join(root, "lib"))   # merged /usr
    if not os.path.isdir(moddir):
        die(f"{image} {version} has no modules for {rel}")
    # The package leaves modules.dep to its postinst's depmod.
    r = subprocess.run(["depmod", "-b", root, rel], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    dep = os.path.join(moddir, "modules.dep")
    if r.returncode != 0 or not os.path.exists(dep):
        die(f"depmod over {image} {version} failed:\n{r.stdout}")
    paths, missing, found_opt = closure(open(dep).read(), MODULES, OPTIONAL)
    if missing:
        die(f"{image} {version} has no {' '.join(missing)} module")
    keep = os.path.join(dest, "modules")
    for path in paths + [os.path.basename(p) for p in glob.glob(os.path.join(moddir,
                                                                            "modules.*"))]:
        os.makedirs(os.path.dirname(os.path.join(keep, path)), exist_ok=True)
        shutil.copy2(os.path.join(moddir, path), os.path.join(keep, path))
    vmlinuz = os.path.join(dest, f"vmlinuz-{rel}")
    shutil.copy2(os.path.join(root, "boot", f"vmlinuz-{rel}"), vmlinuz)
    shutil.copy2(os.path.join(root, "boot", f"config-{rel}"), os.path.join(dest, "config"))
    return vmlinuz, keep, list(MODULES) + found_opt


def kunit_tree(series, apt):
    """A kernel tree holding tools/testing/kunit/kunit.py (the harness parses
    KTAP with it): the cached linux-source of @series, any cached tree, or
    else only tools/testing/kunit/ of linux-source-<series>, unpacked into
    the cache (the package holds one tarball, read once)."""
    src = os.path.join(kernel.cache_dir(), "src")
    pinned = kernel.read_pins().get(series, (None, None))[1]
    cands = []
    if pinned:
        cands.append(kernel.source_dir(series, pinned))
    cands += sorted(glob.glob(os.path.join(src, f"linux-source-{series}_*")))
    cands += sorted(glob.glob(os.path.join(src, "linux-source-*")))
    cands += sorted(glob.glob(os.path.join(src, "kunit-*")))
    for c in cands:
        if os.path.exists(os.path.join(c, "tools", "testing", "kunit", "kunit.py")):
            return c
    pkg = f"linux-source-{series}"
    ver = pinned if pinned and pinned in apt.versions(pkg) else apt.candidate(pkg)
    if not ver:
        die(f"no kunit.py: no kernel tree in the cache and no {pkg} in the archive")
    dest = os.path.join(src, f"kunit-{series}_{kernel.safe(ver)}")
    tmp = tempfile.mkdtemp(prefix="kunit-", dir=kernel.cache_dir())
    try:
        deb = apt.download(pkg, ver, tmp)
        say(f"unpacking tools/testing/kunit/ of {os.path.basename(deb)}")
        subprocess.run(["dpkg-deb", "-x", deb, tmp], check=True)
        tars = glob.glob(os.path.join(tmp, "usr/src/linux-source-*.tar.*"))
        if not tars:
            die(f"{deb} holds no source tarball")
        os.makedirs(dest, exist_ok=True)
        subprocess.run(["tar", "xf", tars[0], "-C", dest, "--strip-components=1",
                        "--wildcards", "*/tools/testing/kunit/*"], check=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest


def ensure(lg):
    """The cache directory of stock leg @lg (done.json, the kernel, the kept
    modules, the headers under build/), fetched if needed."""
    pin = kernel.read_pins().get(lg.name)
    if pin:
        kdir = kernel.kernel_dir(lg, pin[1])
        if os.path.exists(os.path.join(kdir, "done.json")):
            return kdir
    apt = kernel.Apt()
    if not apt.update():
        hits = kernel.cached_builds(lg)
        if hits:
            say(f"apt unreachable; using the cached {lg.name}")
            return hits[0]
        die("apt-get update failed and nothing is cached")
    image, version, note = resolve(lg, apt)
    if note:
        say(note)
    if image is None:
        die(f"{lg.name}: {note}")
    kdir = kernel.kernel_dir(lg, version)
    if not os.path.exists(os.path.join(kdir, "done.json")):
        with fetch_lock(lg):
            if not os.path.exists(os.path.join(kdir, "done.json")):
                fetch(lg, image, version, apt, kdir)
    kernel.record_pin_note(kdir, note)
    return kdir


@contextlib.contextmanager
def fetch_lock(lg):
    """One fetch of a stock leg at a time (downloads need no machine lock)."""
    path = os.path.join(kernel.cache_dir(), "kernels", f"{lg.name}.lock")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def fetch(lg, image, version, apt, kdir):
    t0 = time.time()
    headers = kernel.read_pins().get(f"{lg.name}/headers", (None, None))
    if headers[1] != version:
        headers = (headers_package(image), version)
    elif headers[0] != headers_package(image):
        die(f"kunit/kernels.pin: {lg.name}/headers {headers[0]} is not {image}'s headers")
    shutil.rmtree(kdir, ignore_errors=True)
    os.makedirs(kdir)
    tmp = tempfile.mkdtemp(prefix="stock-", dir=kernel.cache_dir())
    try:
        say(f"{lg.name}: {image} {version} and {headers[0]}")
        vmlinuz, moddir, loads = fetch_image(apt, image, version, kdir, tmp)
        hdr = fetch_headers(apt, headers[0], version, os.path.join(kdir, "headers"), tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    # `make KVER=stock-6.1` and `kernel.py kdir` find the tree at build/.
    os.symlink(os.path.relpath(hdr, kdir), os.path.join(kdir, "build"))
    info = {"kver": lg.series, "leg": lg.name, "stock": True, "debug": False,
            "cmdline": lg.cmdline, "package": image, "version": version,
            "headers_package": headers[0], "release": release_of(image),
            "bzImage": vmlinuz, "modules": moddir, "loads": loads,
            "build": os.path.join(kdir, "build"), "source": kunit_tree(lg.series, apt),
            "options_sha256": kernel.options_hash(lg),
            "fetch_seconds": round(time.time() - t0)}
    with open(os.path.join(kdir, "done.json"), "w") as f:
        json.dump(info, f, indent=1)
    say(f"{lg.name}: {image} {version} ready in {info['fetch_seconds']} s "
        f"(loads {' '.join(loads)})")
    return kdir


# --------------------------------------------------------------------------
# cmkit.ko through DKMS
# --------------------------------------------------------------------------

def dkms_version(path=DKMS_CONF):
    """(PACKAGE_NAME, PACKAGE_VERSION) of dkms.conf."""
    fields = {}
    for line in open(path):
        m = re.match(r'^(PACKAGE_NAME|PACKAGE_VERSION)="?([^"\s]+)"?\s*$', line)
        if m:
            fields[m.group(1)] = m.group(2)
    return fields.get("PACKAGE_NAME"), fields.get("PACKAGE_VERSION")


def _copy_checkout(dest):
    """The checkout as a fresh clone has it: without build/ and .git."""
    def ignore(d, names):
        skip = {"__pycache__"}
        if os.path.abspath(d) == TOP:
            skip |= {"build", ".git"}
        return [n for n in names if n in skip]
    shutil.copytree(TOP, dest, symlinks=True, ignore=ignore)


def _tree_hash(root):
    h = hashlib.sha256()
    for dirpath, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        for f in sorted(files):
            path = os.path.join(dirpath, f)
            h.update(os.path.relpath(path, root).encode() + b"\0")
            if os.path.islink(path):
                h.update(os.readlink(path).encode())
            else:
                with open(path, "rb") as fp:
                    h.update(fp.read())
    return h.hexdigest()


def _installed_ko(inst, rel):
    kos = glob.glob(os.path.join(inst, rel, "**", "cmkit.ko*"), recursive=True)
    return kos[0] if kos else None


def dkms_build(info, log):
    """`dkms add`, `dkms build` and `dkms install` of a copy of the checkout
    against the leg's headers, in private trees under build/dkms/<leg>/.
    Returns (the staging root, cmkit.ko as DKMS installed it there, under
    lib/modules/<release>/updates/dkms/).  When neither the checkout nor
    the headers changed since the last one, that build is used again."""
    if shutil.which("dkms") is None:
        die("dkms is not installed: run 'make setup'")
    name, ver = dkms_version()
    rel, hdr = info["release"], os.path.realpath(info["build"])
    work = os.path.join(BUILD, "dkms", info["leg"])
    inst = os.path.join(work, "root", "lib", "modules")
    os.makedirs(BUILD, exist_ok=True)
    fresh = tempfile.mkdtemp(prefix="dkms-stage-", dir=BUILD)
    try:
        _copy_checkout(os.path.join(fresh, "cmkit"))
        inputs = (f"{_tree_hash(os.path.join(fresh, 'cmkit'))} {name}/{ver} {rel} "
                  f"{info['headers_package']} {info['version']}\n")
        stamp = os.path.join(work, "inputs")
        ko = _installed_ko(inst, rel)
        if ko and os.path.exists(stamp) and open(stamp).read() == inputs:
            with open(log, "a") as f:
                f.write(f"neither the checkout nor the headers changed since the last dkms "
                        f"build: {ko} used again\n")
            say(f"{info['leg']}: checkout and headers unchanged: the last DKMS build of "
                f"cmkit.ko is used again")
            return os.path.join(work, "root"), ko
        shutil.rmtree(work, ignore_errors=True)
        trees = {d: os.path.join(work, d) for d in ("tree", "src", "stage")}
        for d in trees.values():
            os.makedirs(d)
        os.makedirs(os.path.join(inst, rel))
        checkout = os.path.join(trees["stage"], "cmkit")
        os.rename(os.path.join(fresh, "cmkit"), checkout)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    common = ["--dkmstree", trees["tree"], "--sourcetree", trees["src"]]
    kopts = ["-k", rel, "--kernelsourcedir", hdr]
    steps = [["dkms", "add", checkout] + common,
             ["dkms", "build", f"{name}/{ver}"] + kopts + common,
             ["dkms", "install", f"{name}/{ver}"] + kopts + common +
             ["--installtree", inst, "--no-depmod"]]
    for cmd in steps:
        if _run(cmd, log) != 0:
            make_log = glob.glob(os.path.join(trees["tree"], name, ver, "build", "make.log"))
            tail = open(make_log[0]).read()[-3000:] if make_log else ""
            with open(log, "a") as f:
                f.write(tail)
            die(f"{' '.join(cmd[:3])} failed (log: {os.path.relpath(log, TOP)}):\n"
                + open(log).read()[-3000:])
    built = glob.glob(os.path.join(trees["tree"], name, ver, rel, "*", "log", "make.log"))
    if built:
        with open(log, "a") as f:
            f.write("\n--- DKMS make.log ---\n" + open(built[0]).read())
    ko = _installed_ko(inst, rel)
    if not ko:
        die(f"dkms install left no cmkit.ko under {inst}/{rel}")
    with open(stamp, "w") as f:
        f.write(inputs)
    return os.path.join(work, "root"), ko


def read_ko(path):
    """A module's bytes, decompressed if xz-compressed (6.12's are)."""
    data = open(path, "rb").read()
    return lzma.decompress(data) if path.endswith(".xz") else data


def ko_depends(data, tmp):
    """The depends= field of a module image."""
    path = os.path.join(tmp, "probe.ko")
    with open(path, "wb") as f:
        f.write(data)
    r = subprocess.run(["modinfo", "-F", "depends", path], stdout=subprocess.PIPE,
                       text=True)
    os.unlink(path)
    return [d for d in r.stdout.strip().split(",") if d]


def guest_tree(info, dkms_root, cmkit_ko, root):
    """The guest's /lib/modules/<release>/ in @root: the kept modules,
    decompressed, cmkit.ko where DKMS installed it, the package's builtin
    lists, depmod's indexes; and /lib/cmkit/stock-modules.  Returns the
    names the guest loads."""
    rel = info["release"]
    dest = os.path.join(root, "lib", "modules", rel)
    src = info["modules"]
    kept = set()
    for dirpath, _, files in os.walk(src):
        for f in files:
            full = os.path.join(dirpath, f)
            relpath = os.path.relpath(full, src)
            if re.search(r"\.ko(\.\w+)?$", f):
                out = os.path.join(dest, re.sub(r"\.(xz|gz|zst)$", "", relpath))
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with open(out, "wb") as o:
                    o.write(read_ko(full))
                kept.add(module_name(f))
            elif f in ("modules.builtin", "modules.builtin.modinfo", "modules.order"):
                os.makedirs(dest, exist_ok=True)
                shutil.copy2(full, os.path.join(dest, f))
    ko_rel = os.path.relpath(cmkit_ko, os.path.join(dkms_root, "lib", "modules", rel))
    out = os.path.join(dest, re.sub(r"\.(xz|gz|zst)$", "", ko_rel))
    os.makedirs(os.path.dirname(out), exist_ok=True)
    data = read_ko(cmkit_ko)
    with open(out, "wb") as o:
        o.write(data)
    builtin = set()
    bpath = os.path.join(dest, "modules.builtin")
    if os.path.exists(bpath):
        builtin = {module_name(l.strip()) for l in open(bpath) if l.strip()}
    lost = [d for d in ko_depends(data, root) if d.replace("-", "_") not in kept | builtin]
    if lost:
        die(f"cmkit.ko needs {' '.join(lost)}, which {info['leg']} does not keep from "
            f"{info['package']}: add it to MODULES in scripts/stock.py")
    r = subprocess.run(["depmod", "-b", root, rel], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        die(f"depmod -b {root} {rel} failed:\n{r.stdout}")
    os.makedirs(os.path.join(root, "lib", "cmkit"), exist_ok=True)
    with open(os.path.join(root, "lib", "cmkit", "stock-modules"), "w") as f:
        f.write("\n".join(info["loads"]) + "\n")
    return info["loads"]


def main(argv):
    if len(argv) >= 4 and argv[1] == "modules":
        paths, missing, _ = closure(open(argv[2]).read(), argv[3:])
        print("\n".join(paths))
        if missing:
            print(f"not in {argv[2]}: {' '.join(missing)}", file=sys.stderr)
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
