#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Build the cmkit test guest's initramfs from the host's own Debian packages.

    mkinitramfs.py base OUT.cpio.gz [TOOL...]     user space (cached by content),
                                                  with cmkit's own tools in /usr/bin
    mkinitramfs.py modules OUT.cpio.gz KO...      /lib/cmkit/<ko> for one kernel
                                                  (cached by content)

The kernel unpacks concatenated cpio archives in order, so the runner boots
base + modules as one initrd: the user space is built once, the modules per
kernel.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INIT = os.path.join(TOP, "scripts", "guest", "init")
GUEST_SCRIPTS = [os.path.join(TOP, "scripts", "guest", n)
                 for n in ("lib.sh", "userspace.sh", "srp_initiator.sh", "story.sh",
                           "bench.sh")]
# Reproductions of the kernel bugs cmkit's suites met (make ki-repro), in the
# guest's /usr/lib/cmkit/repro/.
REPRO_SCRIPTS = os.path.join(TOP, "kernel-patches", "repro")


def repro_scripts():
    if not os.path.isdir(REPRO_SCRIPTS):
        return []
    return sorted(os.path.join(REPRO_SCRIPTS, n) for n in os.listdir(REPRO_SCRIPTS)
                  if n.endswith(".sh"))

BINARIES = [
    "/bin/busybox",            # busybox-static
    "/usr/sbin/ip",            # iproute2
    "/usr/bin/rdma",           # iproute2
    "/usr/bin/rping",          # rdmacm-utils
    "/usr/bin/ucmatose",       # rdmacm-utils
    "/usr/bin/cmtime",         # rdmacm-utils (make bench)
    "/usr/bin/ibv_devices",    # ibverbs-utils
    "/usr/sbin/mke2fs",        # e2fsprogs (cmkit_srp_initiator: ext4 on cmkit's LUN)
    "/usr/sbin/e2fsck",        # e2fsprogs
    "/usr/bin/sg_raw",         # sg3-utils (a READ past the LUN's end: SG_IO)
]
LIBDIR = "/usr/lib/x86_64-linux-gnu"
PROVIDERS = [f"{LIBDIR}/libibverbs/librxe-rdmav34.so",
             f"{LIBDIR}/libibverbs/libsiw-rdmav34.so"]
DATA = ["/etc/libibverbs.d/rxe.driver", "/etc/libibverbs.d/siw.driver",
        "/etc/mke2fs.conf"]       # e2fsprogs: Debian's ext4 features
# Loaded with dlopen by glibc's pthread_exit; ldd does not list it.
EXTRA_LIBS = [f"{LIBDIR}/libgcc_s.so.1"]


def ldd(path):
    r = subprocess.run(["ldd", path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    libs = []
    for line in r.stdout.splitlines():
        parts = line.split()
        if "=>" in parts:
            i = parts.index("=>")
            if i + 1 < len(parts) and parts[i + 1].startswith("/"):
                libs.append(parts[i + 1])
        elif parts and parts[0].startswith("/"):
            libs.append(parts[0])
    return libs


def stat_key(paths):
    """What a list of files is as far as packing goes: names, sizes, mtimes."""
    h = hashlib.sha256()
    for f in paths:
        st = os.stat(f)
        h.update(f"{f}:{st.st_size}:{int(st.st_mtime)}\n".encode())
    return h.hexdigest()


def base_files(tools, cache=None):
    """Every file of the user space: the binaries and what ldd says they load.

    With @cache (a path), ldd's answers are kept there, keyed by the
    binaries' names, sizes and mtimes: ldd is slow, and its answer changes
    only with a binary.
    """
    roots = BINARIES + PROVIDERS + DATA + EXTRA_LIBS + tools
    missing = [p for p in roots if not os.path.exists(p)]
    if missing:
        sys.exit("mkinitramfs: missing on the host (run 'make setup'): " + " ".join(missing))
    key = stat_key(roots)
    if cache:
        try:
            known = json.load(open(cache))
            if known["key"] == key and all(os.path.exists(f) for f in known["files"]):
                return known["files"]
        except (OSError, ValueError, KeyError):
            pass
    files = set(BINARIES + PROVIDERS + DATA + EXTRA_LIBS)
    for f in BINARIES + PROVIDERS + EXTRA_LIBS + tools:
        if f != "/bin/busybox":
            files.update(ldd(f))
    files = sorted(files)
    if cache:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        with open(cache, "w") as f:
            json.dump({"key": key, "files": files}, f)
    return files


def copy_into(root, path):
    dest = os.path.join(root, path.lstrip("/"))
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copy2(os.path.realpath(path), dest)


def pack(root, out):
    tmp = out + ".tmp"
    with open(tmp, "wb") as f:
        find = subprocess.Popen(["find", ".", "-print0"], cwd=root, stdout=subprocess.PIPE)
        cpio = subprocess.Popen(["cpio", "--null", "-o", "-H", "newc", "--quiet",
                                 "--owner=0:0"], cwd=root, stdin=find.stdout,
                                stdout=subprocess.PIPE)
        gz = subprocess.Popen(["gzip", "-n", "-1"], stdin=cpio.stdout, stdout=f)
        find.stdout.close()
        cpio.stdout.close()
        if gz.wait() or cpio.wait() or find.wait():
            sys.exit("mkinitramfs: packing failed")
    os.replace(tmp, out)


def build_base(out, tools):
    files = base_files(tools, out + ".files.json")
    h = hashlib.sha256(open(INIT, "rb").read())
    for script in GUEST_SCRIPTS + repro_scripts():
        h.update(script.encode())
        h.update(open(script, "rb").read())
    h.update(stat_key(files + tools).encode())
    stamp = out + ".sha256"
    if os.path.exists(out) and os.path.exists(stamp) and \
            open(stamp).read() == h.hexdigest():
        return
    root = tempfile.mkdtemp(prefix="initramfs-")
    try:
        for d in ("proc", "sys", "dev", "tmp", "etc", "root", "lib/cmkit",
                  "usr/bin", "usr/sbin", "sbin"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        for f in files:
            copy_into(root, f)
        # Debian 12 keeps /lib64 and /lib as real directories in the guest.
        bb = os.path.join(root, "bin", "busybox")
        applets = subprocess.run([bb, "--list-full"], stdout=subprocess.PIPE, text=True,
                                 check=True).stdout.split()
        for a in applets:
            link = os.path.join(root, a)
            if not os.path.lexists(link):
                os.makedirs(os.path.dirname(link), exist_ok=True)
                os.symlink("/bin/busybox", link)
        shutil.copy2(INIT, os.path.join(root, "init"))
        os.chmod(os.path.join(root, "init"), 0o755)
        os.makedirs(os.path.join(root, "usr", "lib", "cmkit"), exist_ok=True)
        for script in GUEST_SCRIPTS:
            shutil.copy2(script, os.path.join(root, "usr", "lib", "cmkit",
                                              os.path.basename(script)))
        os.makedirs(os.path.join(root, "usr", "lib", "cmkit", "repro"), exist_ok=True)
        for script in repro_scripts():
            shutil.copy2(script, os.path.join(root, "usr", "lib", "cmkit", "repro",
                                              os.path.basename(script)))
        for tool in tools:
            shutil.copy2(tool, os.path.join(root, "usr", "bin", os.path.basename(tool)))
        with open(os.path.join(root, "etc", "passwd"), "w") as f:
            f.write("root:x:0:0:root:/root:/bin/sh\n")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        pack(root, out)
        with open(stamp, "w") as f:
            f.write(h.hexdigest())
    finally:
        shutil.rmtree(root, ignore_errors=True)


def build_modules(out, kos):
    h = hashlib.sha256()
    for ko in kos:
        h.update(os.path.basename(ko).encode() + b"\0" + open(ko, "rb").read())
    stamp = out + ".sha256"
    if os.path.exists(out) and os.path.exists(stamp) and open(stamp).read() == h.hexdigest():
        return
    root = tempfile.mkdtemp(prefix="initramfs-mod-")
    try:
        os.makedirs(os.path.join(root, "lib", "cmkit"))
        for ko in kos:
            shutil.copy2(ko, os.path.join(root, "lib", "cmkit", os.path.basename(ko)))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        pack(root, out)
        with open(stamp, "w") as f:
            f.write(h.hexdigest())
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main(argv):
    if len(argv) >= 3 and argv[1] == "base":
        build_base(argv[2], argv[3:])
    elif len(argv) >= 4 and argv[1] == "modules":
        build_modules(argv[2], argv[3:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
