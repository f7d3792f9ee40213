# SPDX-License-Identifier: GPL-2.0-only
"""Install, DKMS and the stock legs (Debian's own kernels) on the host:
dkms.conf as DKMS reads it, `make install`/`uninstall` paths, the modules a
stock guest loads from a canned modules.dep, the pins of the stock images
moved from a canned apt answer, and how a stock leg reports itself.

DkmsBuild runs `dkms add`, `dkms build` and `dkms install` of the repo
against Debian's pinned linux-headers of each stock leg whose headers are in
the cache (`make test` fetches them before the harness's tests; `make
check` alone skips it, with that reason, on a machine that never fetched
them).
The stock legs' "modules" phase then uses that build again."""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import kernel  # noqa: E402
import results  # noqa: E402
import run  # noqa: E402
import stock  # noqa: E402


def dkms_conf(kernelver="6.1.0-57-amd64", ksrc="/usr/src/linux-headers-6.1.0-57-amd64"):
    """dkms.conf's variables as DKMS gets them: sourced by bash with
    $kernelver and $kernel_source_dir set."""
    script = (f'kernelver={kernelver}; kernel_source_dir={ksrc}; arch=x86_64; '
              f'. "{os.path.join(TOP, "dkms.conf")}"; '
              'for v in PACKAGE_NAME PACKAGE_VERSION CLEAN AUTOINSTALL "MAKE[0]" '
              '"BUILT_MODULE_NAME[0]" "BUILT_MODULE_LOCATION[0]" "DEST_MODULE_LOCATION[0]" '
              '"BUILT_MODULE_NAME[1]"; do eval "echo \\"$v=\\${$v}\\""; done')
    out = subprocess.run(["bash", "-c", script], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    return dict(line.split("=", 1) for line in out.splitlines())


class DkmsConf(unittest.TestCase):
    def test_fields(self):
        c = dkms_conf()
        self.assertEqual(c["PACKAGE_NAME"], "cmkit")
        self.assertRegex(c["PACKAGE_VERSION"], r"^\d+\.\d+\.\d+$")
        self.assertEqual(c["BUILT_MODULE_NAME[0]"], "cmkit")
        self.assertEqual(c["BUILT_MODULE_NAME[1]"], "", "DKMS installs cmkit.ko only")
        self.assertEqual(c["DEST_MODULE_LOCATION[0]"], "/updates")
        self.assertEqual(c["AUTOINSTALL"], "yes")
        self.assertIn("clean", c["CLEAN"])

    def test_the_build_is_the_makefiles_modules_target_with_the_probes(self):
        c = dkms_conf(ksrc="/somewhere/headers")
        make = c["MAKE[0]"].split()
        self.assertEqual(make[0], "make")
        self.assertIn("modules", make)
        self.assertIn("KDIR=/somewhere/headers", make)
        # The Makefile builds into build/mod/kdir/ when KDIR is given.
        out = subprocess.run(["make", "-s", "-C", TOP, "-p", "-q", "nothing",
                              "KDIR=/somewhere/headers"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, text=True).stdout
        moddir = re.search(r"^MODDIR := (.*)$", out, re.M).group(1)
        self.assertEqual(os.path.relpath(moddir, TOP) + "/", c["BUILT_MODULE_LOCATION[0]"])
        with open(os.path.join(TOP, "Makefile")) as f:
            mk = f.read()
        self.assertIn("scripts/probe.sh", mk[mk.index("\nmodules:"):])

    def test_the_makefile_reads_its_version_from_dkms_conf(self):
        out = subprocess.run(["make", "-s", "-C", TOP, "-p", "-q", "nothing"],
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             text=True).stdout
        version = re.search(r"^VERSION := (.*)$", out, re.M).group(1)
        self.assertEqual(version, dkms_conf()["PACKAGE_VERSION"])
        self.assertEqual(stock.dkms_version(), ("cmkit", version))


class Install(unittest.TestCase):
    """`make -n install` / `uninstall` against a stub kernel tree."""

    def setUp(self):
        self.kdir = tempfile.mkdtemp(prefix="cmkit-kdir-")
        os.makedirs(os.path.join(self.kdir, "include", "generated"))
        with open(os.path.join(self.kdir, "include", "generated", "utsrelease.h"), "w") as f:
            f.write('#define UTS_RELEASE "6.1.0-99-amd64"\n')
        # Debian's 6.1 headers keep the upstream version here: not the release.
        os.makedirs(os.path.join(self.kdir, "include", "config"))
        with open(os.path.join(self.kdir, "include", "config", "kernel.release"), "w") as f:
            f.write("6.1.999\n")
        with open(os.path.join(self.kdir, "Makefile"), "w") as f:
            f.write("modules_install:\n\t@echo kbuild modules_install M=$(M) "
                    "INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) "
                    "KERNELRELEASE=$(KERNELRELEASE)\n")

    def tearDown(self):
        shutil.rmtree(self.kdir, ignore_errors=True)

    def make_n(self, *args):
        r = subprocess.run(["make", "--no-print-directory", "-n", "-o", "modules", "-C", TOP]
                           + list(args) + [f"KDIR={self.kdir}"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 0, r.stdout)
        return r.stdout

    def test_install_goes_to_updates_of_the_trees_release_then_depmod(self):
        out = self.make_n("install")
        self.assertIn("/lib/modules/6.1.0-99-amd64/updates/", out)
        self.assertNotIn("6.1.999", out)
        self.assertRegex(out, r"kbuild modules_install M=\S+/build/mod/kdir "
                              r"INSTALL_MOD_DIR=updates INSTALL_MOD_PATH= "
                              r"KERNELRELEASE=6.1.0-99-amd64")
        self.assertRegex(out, r"(?m)^depmod\s+-a 6\.1\.0-99-amd64$")

    def test_install_into_a_staging_root_and_extra(self):
        out = self.make_n("install", "INSTALL_MOD_PATH=/tmp/stage", "INSTALL_MOD_DIR=extra")
        self.assertIn("/tmp/stage/lib/modules/6.1.0-99-amd64/extra/", out)
        self.assertIn("INSTALL_MOD_DIR=extra INSTALL_MOD_PATH=/tmp/stage", out)
        self.assertRegex(out, r"(?m)^depmod -b /tmp/stage -a 6\.1\.0-99-amd64$")

    def test_dkms_release_wins(self):
        out = self.make_n("install", "KERNELRELEASE=6.12.9-amd64")
        self.assertIn("/lib/modules/6.12.9-amd64/updates/", out)

    def test_uninstall_removes_only_what_install_put(self):
        out = self.make_n("uninstall", "INSTALL_MOD_PATH=/tmp/stage")
        rm = [l for l in out.splitlines() if l.startswith("rm -f")][0].split()[2:]
        base = "/tmp/stage/lib/modules/6.1.0-99-amd64"
        self.assertIn(f"{base}/updates/cmkit.ko", rm)
        self.assertIn(f"{base}/updates/cmkit.ko.*", rm)
        self.assertIn(f"{base}/extra/cmkit_test.ko", rm)
        self.assertFalse([p for p in rm if "/dkms/" in p], "DKMS's copy is dkms remove's")
        self.assertTrue(all(p.startswith(base + "/") for p in rm), rm)
        self.assertRegex(out, r"(?m)^depmod -b /tmp/stage -a 6\.1\.0-99-amd64$")


# modules.dep as depmod writes it for Debian's 6.12 image (.ko.xz), cut down.
MODULES_DEP = """\
kernel/fs/configfs/configfs.ko.xz:
kernel/net/ipv4/udp_tunnel.ko.xz:
kernel/net/ipv6/ip6_udp_tunnel.ko.xz:
kernel/drivers/net/dummy.ko.xz:
kernel/crypto/crc32_generic.ko.xz:
kernel/drivers/infiniband/core/ib_core.ko.xz:
kernel/drivers/infiniband/core/ib_cm.ko.xz: kernel/drivers/infiniband/core/ib_core.ko.xz
kernel/drivers/infiniband/core/iw_cm.ko.xz: kernel/drivers/infiniband/core/ib_core.ko.xz
kernel/drivers/infiniband/core/rdma_cm.ko.xz: kernel/drivers/infiniband/core/iw_cm.ko.xz \
kernel/drivers/infiniband/core/ib_cm.ko.xz kernel/drivers/infiniband/core/ib_core.ko.xz \
kernel/fs/configfs/configfs.ko.xz
kernel/drivers/infiniband/core/ib_uverbs.ko.xz: kernel/drivers/infiniband/core/ib_core.ko.xz
kernel/drivers/infiniband/core/rdma_ucm.ko.xz: kernel/drivers/infiniband/core/ib_uverbs.ko.xz \
kernel/drivers/infiniband/core/rdma_cm.ko.xz kernel/drivers/infiniband/core/iw_cm.ko.xz \
kernel/drivers/infiniband/core/ib_cm.ko.xz kernel/drivers/infiniband/core/ib_core.ko.xz \
kernel/fs/configfs/configfs.ko.xz
kernel/drivers/infiniband/sw/rxe/rdma_rxe.ko.xz: kernel/net/ipv6/ip6_udp_tunnel.ko.xz \
kernel/net/ipv4/udp_tunnel.ko.xz kernel/drivers/infiniband/core/ib_uverbs.ko.xz \
kernel/drivers/infiniband/core/ib_core.ko.xz
kernel/drivers/scsi/scsi_common.ko.xz:
kernel/drivers/scsi/scsi_mod.ko.xz: kernel/drivers/scsi/scsi_common.ko.xz
kernel/drivers/scsi/scsi_transport_srp.ko.xz: kernel/drivers/scsi/scsi_mod.ko.xz \
kernel/drivers/scsi/scsi_common.ko.xz
kernel/drivers/infiniband/ulp/srp/ib_srp.ko.xz: kernel/drivers/scsi/scsi_transport_srp.ko.xz \
kernel/drivers/infiniband/core/rdma_cm.ko.xz kernel/drivers/infiniband/core/iw_cm.ko.xz \
kernel/drivers/infiniband/core/ib_cm.ko.xz kernel/drivers/infiniband/core/ib_core.ko.xz \
kernel/drivers/scsi/scsi_mod.ko.xz kernel/drivers/scsi/scsi_common.ko.xz \
kernel/fs/configfs/configfs.ko.xz
kernel/drivers/infiniband/ulp/srpt/ib_srpt.ko.xz: kernel/drivers/infiniband/core/rdma_cm.ko.xz \
kernel/drivers/target/target_core_mod.ko.xz kernel/fs/configfs/configfs.ko.xz
kernel/drivers/target/target_core_mod.ko.xz: kernel/fs/configfs/configfs.ko.xz
kernel/drivers/scsi/sd_mod.ko.xz: kernel/drivers/scsi/scsi_mod.ko.xz \
kernel/drivers/scsi/scsi_common.ko.xz
kernel/fs/jbd2/jbd2.ko.xz:
kernel/fs/mbcache.ko.xz:
kernel/lib/crc16.ko.xz:
kernel/fs/ext4/ext4.ko.xz: kernel/lib/crc16.ko.xz kernel/fs/mbcache.ko.xz kernel/fs/jbd2/jbd2.ko.xz
kernel/crypto/crc32c_generic.ko.xz:
kernel/lib/libcrc32c.ko.xz:
kernel/drivers/net/ethernet/intel/e1000/e1000.ko.xz:
kernel/drivers/infiniband/hw/irdma/irdma.ko.xz: kernel/drivers/infiniband/core/ib_uverbs.ko.xz \
kernel/drivers/infiniband/core/ib_core.ko.xz
kernel/net/sunrpc/sunrpc.ko.xz:
kernel/fs/nfs_common/grace.ko.xz:
kernel/fs/nfs_common/nfs_acl.ko.xz: kernel/net/sunrpc/sunrpc.ko.xz
kernel/fs/lockd/lockd.ko.xz: kernel/fs/nfs_common/grace.ko.xz kernel/net/sunrpc/sunrpc.ko.xz
kernel/net/sunrpc/auth_gss/auth_rpcgss.ko.xz: kernel/net/sunrpc/sunrpc.ko.xz
kernel/fs/nfsd/nfsd.ko.xz: kernel/net/sunrpc/auth_gss/auth_rpcgss.ko.xz \
kernel/fs/nfs_common/nfs_acl.ko.xz kernel/fs/lockd/lockd.ko.xz kernel/fs/nfs_common/grace.ko.xz \
kernel/net/sunrpc/sunrpc.ko.xz
kernel/net/sunrpc/xprtrdma/rpcrdma.ko.xz: kernel/drivers/infiniband/core/rdma_cm.ko.xz \
kernel/drivers/infiniband/core/iw_cm.ko.xz kernel/drivers/infiniband/core/ib_cm.ko.xz \
kernel/drivers/infiniband/core/ib_core.ko.xz kernel/fs/configfs/configfs.ko.xz \
kernel/net/sunrpc/sunrpc.ko.xz
kernel/fs/netfs/netfs.ko.xz:
kernel/net/dns_resolver/dns_resolver.ko.xz:
kernel/fs/nfs/nfsv3.ko.xz: kernel/fs/nfs_common/nfs_acl.ko.xz kernel/fs/nfs/nfs.ko.xz \
kernel/fs/lockd/lockd.ko.xz kernel/fs/nfs_common/grace.ko.xz kernel/net/sunrpc/sunrpc.ko.xz \
kernel/fs/netfs/netfs.ko.xz
kernel/fs/nfs/nfsv4.ko.xz: kernel/net/dns_resolver/dns_resolver.ko.xz kernel/fs/nfs/nfs.ko.xz \
kernel/fs/lockd/lockd.ko.xz kernel/fs/nfs_common/grace.ko.xz kernel/net/sunrpc/sunrpc.ko.xz \
kernel/fs/netfs/netfs.ko.xz
kernel/fs/nfs/nfs.ko.xz: kernel/fs/lockd/lockd.ko.xz kernel/fs/nfs_common/grace.ko.xz \
kernel/net/sunrpc/sunrpc.ko.xz kernel/fs/netfs/netfs.ko.xz
""".replace("\\\n", "")


class ModuleList(unittest.TestCase):
    def test_the_closure_of_the_leg_modules_dependencies_first(self):
        paths, missing, opt = stock.closure(MODULES_DEP, stock.MODULES, stock.OPTIONAL)
        self.assertEqual(missing, [])
        self.assertEqual(opt, [], "no siw in Debian's image")
        names = [stock.module_name(p) for p in paths]
        self.assertEqual(sorted(names), sorted(stock.MODULES + (
            "configfs", "udp_tunnel", "ip6_udp_tunnel", "scsi_common", "scsi_mod",
            "jbd2", "mbcache", "crc16",
            "sunrpc", "grace", "lockd", "nfs_acl", "auth_rpcgss",
            "nfs", "netfs", "dns_resolver")))
        for mod, deps in [("rdma_cm", ["ib_core", "iw_cm", "ib_cm", "configfs"]),
                          ("rdma_rxe", ["udp_tunnel", "ip6_udp_tunnel", "ib_uverbs"]),
                          ("rdma_ucm", ["rdma_cm", "ib_uverbs"]),
                          ("ib_srp", ["scsi_transport_srp", "rdma_cm", "scsi_mod"]),
                          ("scsi_mod", ["scsi_common"]),
                          ("sd_mod", ["scsi_mod"]),
                          ("ext4", ["jbd2", "mbcache", "crc16"]),
                          ("lockd", ["grace", "sunrpc"]),
                          ("nfsd", ["sunrpc", "grace", "lockd", "nfs_acl", "auth_rpcgss"]),
                          ("rpcrdma", ["sunrpc", "rdma_cm", "configfs"]),
                          ("nfs", ["lockd", "grace", "sunrpc", "netfs"]),
                          ("nfsv4", ["nfs", "dns_resolver", "sunrpc"])]:
            for d in deps:
                self.assertLess(names.index(d), names.index(mod), f"{d} before {mod}")
        for other in ("irdma", "e1000", "ib_srpt", "target_core_mod", "nfsv3"):
            self.assertNotIn(other, names)
        self.assertEqual(paths[0], "kernel/drivers/infiniband/core/ib_core.ko.xz")

    def test_a_missing_module_is_named_and_an_optional_one_kept_when_there(self):
        dep = MODULES_DEP.replace("kernel/drivers/net/dummy.ko.xz:\n", "")
        dep += "kernel/drivers/infiniband/sw/siw/siw.ko.xz: " \
               "kernel/drivers/infiniband/core/ib_core.ko.xz\n"
        paths, missing, opt = stock.closure(dep, stock.MODULES, stock.OPTIONAL)
        self.assertEqual(missing, ["dummy"])
        self.assertEqual(opt, ["siw"])
        self.assertIn("kernel/drivers/infiniband/sw/siw/siw.ko.xz", paths)

    def test_names_with_dashes_and_compression(self):
        self.assertEqual(stock.module_name("kernel/a/rdma-rxe.ko.zst"), "rdma_rxe")
        self.assertEqual(stock.module_name("updates/dkms/cmkit.ko"), "cmkit")

    def test_the_command_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".dep", delete=False) as f:
            f.write(MODULES_DEP)
        try:
            r = subprocess.run([sys.executable, os.path.join(TOP, "scripts", "stock.py"),
                                "modules", f.name, "rdma_cm"], stdout=subprocess.PIPE,
                               text=True)
            self.assertEqual(r.returncode, 0)
            self.assertEqual(r.stdout.split()[-1],
                             "kernel/drivers/infiniband/core/rdma_cm.ko.xz")
        finally:
            os.unlink(f.name)


def stanza(pkg, version, depends):
    return f"Package: {pkg}\nVersion: {version}\nArchitecture: amd64\nDepends: {depends}\n" \
           "Description: metapackage\n multi-line\n"


class FakeApt:
    """What apt-cache says, canned."""

    def __init__(self, shows, versions, candidates=None):
        self.shows, self.vers, self.cands = shows, versions, candidates or {}

    def show(self, pkg):
        return "\n".join(self.shows.get(pkg, []))

    def versions(self, pkg):
        return set(self.vers.get(pkg, ()))

    def candidate(self, pkg):
        return self.cands.get(pkg)

    def update(self, force=False):
        return True


# The archive after an ABI bump of 6.1 (6.1.0-57 -> 6.1.0-58) and a new
# 6.12, with trixie-backports' linux-image-amd64 (7.3) beside bookworm's.
BUMPED = FakeApt(
    shows={
        "linux-image-amd64": [
            stanza("linux-image-amd64", "7.3.4-1~bpo13+1",
                   "linux-base-amd64 (= 7.3.4-1~bpo13+1), linux-image-7.3.4+deb13-amd64 "
                   "(= 7.3.4-1~bpo13+1), linux-modules-amd64 (= 7.3.4-1~bpo13+1)"),
            stanza("linux-image-amd64", "6.1.193-1",
                   "linux-image-6.1.0-58-amd64 (= 6.1.193-1)"),
            stanza("linux-image-amd64", "6.1.176-1",
                   "linux-image-6.1.0-50-amd64 (= 6.1.176-1)")],
        "linux-image-6.12-amd64": [
            stanza("linux-image-6.12-amd64", "6.12.120-1~deb12u1",
                   "linux-image-6.12.120+deb12-amd64 (= 6.12.120-1~deb12u1)"),
            stanza("linux-image-6.12-amd64", "6.12.118-1~deb12u1",
                   "linux-image-6.12.118+deb12-amd64 (= 6.12.118-1~deb12u1)")],
    },
    versions={"linux-image-6.1.0-58-amd64": ["6.1.193-1"],
              "linux-image-6.12.120+deb12-amd64": ["6.12.120-1~deb12u1"],
              "linux-image-6.12.118+deb12-amd64": ["6.12.118-1~deb12u1"]},
    candidates={"linux-source-6.1": "6.1.193-1", "linux-source-6.12": "6.12.118-1~deb12u1",
                "linux-source-7.3": "7.3.4-1~bpo13+1"})

PINS = """# SPDX-License-Identifier: GPL-2.0-only
#
# key        package                      version
6.1          linux-source-6.1             6.1.192-3
6.12         linux-source-6.12            6.12.118-1~deb12u1
7.3          linux-source-7.3             7.3.4-1~bpo13+1
stock-6.1    linux-image-6.1.0-57-amd64   6.1.192-3
stock-6.1/headers linux-headers-6.1.0-57-amd64 6.1.192-3
stock-6.12   linux-image-6.12.118+deb12-amd64 6.12.118-1~deb12u1
stock-6.12/headers linux-headers-6.12.118+deb12-amd64 6.12.118-1~deb12u1
"""


class Pins(unittest.TestCase):
    def setUp(self):
        fd, self.path = tempfile.mkstemp(prefix="cmkit-pins-")
        with os.fdopen(fd, "w") as f:
            f.write(PINS)
        self.printed = []

    def tearDown(self):
        os.unlink(self.path)

    def test_the_repository_pins_every_leg(self):
        pins = kernel.read_pins()
        for name in kernel.MATRIX:
            lg = kernel.leg(name)
            self.assertIn(lg.pin_key, pins, name)
            if lg.stock:
                img, ver = pins[name]
                self.assertEqual(pins[f"{name}/headers"], (stock.headers_package(img), ver))
                self.assertTrue(img.startswith("linux-image-") and img.endswith("-amd64"))
                self.assertTrue(ver.startswith(lg.series + "."), ver)

    def test_an_abi_bump_moves_image_and_headers_and_says_so(self):
        moves = kernel.update_pins(apt=BUMPED, path=self.path, out=self.printed.append)
        self.assertEqual(moves, [
            "6.1: linux-source-6.1 6.1.192-3 -> 6.1.193-1",
            "stock-6.1: linux-image-6.1.0-57-amd64 6.1.192-3 -> "
            "linux-image-6.1.0-58-amd64 6.1.193-1",
            "stock-6.1/headers: linux-headers-6.1.0-57-amd64 6.1.192-3 -> "
            "linux-headers-6.1.0-58-amd64 6.1.193-1",
            "stock-6.12: linux-image-6.12.118+deb12-amd64 6.12.118-1~deb12u1 -> "
            "linux-image-6.12.120+deb12-amd64 6.12.120-1~deb12u1",
            "stock-6.12/headers: linux-headers-6.12.118+deb12-amd64 6.12.118-1~deb12u1 -> "
            "linux-headers-6.12.120+deb12-amd64 6.12.120-1~deb12u1"])
        self.assertIn("6.12: linux-source-6.12 6.12.118-1~deb12u1 (unchanged)", self.printed)
        self.assertTrue(self.printed[-1].startswith("5 pin(s) moved"))
        # Each skip line judged on a moved pin is named, to be re-checked.
        exp = [e for e in results.read_expected() if e.kind == "skip"]
        # The stock legs' lines (a test kernel's pin moved too: its own lines).
        recheck = [m for m in self.printed if m.startswith("re-check kunit/expected.txt")
                   and " on stock-" in m]
        self.assertEqual(len(recheck), len([e for e in exp if e.applies("stock-6.1") or
                                            e.applies("stock-6.12")]), recheck)
        self.assertTrue(recheck)
        self.assertIn("the pin is now linux-image-6.1.0-58-amd64=6.1.193-1", recheck[0])
        pins = kernel.read_pins(self.path)
        self.assertEqual(pins["stock-6.1"], ("linux-image-6.1.0-58-amd64", "6.1.193-1"))
        self.assertEqual(pins["stock-6.12/headers"],
                         ("linux-headers-6.12.120+deb12-amd64", "6.12.120-1~deb12u1"))
        self.assertEqual(pins["7.3"], ("linux-source-7.3", "7.3.4-1~bpo13+1"))
        # Written in the file's order, its comments kept; a second run moves nothing.
        with open(self.path) as f:
            text = f.read()
        self.assertTrue(text.startswith("# SPDX-License-Identifier"))
        keys = [l.split()[0] for l in text.splitlines() if l and not l.startswith("#")]
        self.assertEqual(keys, ["6.1", "6.12", "7.3", "stock-6.1", "stock-6.1/headers",
                                "stock-6.12", "stock-6.12/headers"])
        self.assertEqual(kernel.update_pins(apt=BUMPED, path=self.path, out=lambda m: None),
                         [])

    def test_the_newest_image_of_a_series_by_debian_version(self):
        self.assertEqual(stock.newest_image("6.1", BUMPED),
                         ("linux-image-6.1.0-58-amd64", "6.1.193-1"))
        self.assertEqual(stock.newest_image("6.12", BUMPED),
                         ("linux-image-6.12.120+deb12-amd64", "6.12.120-1~deb12u1"))
        self.assertEqual(stock.newest_image("7.3", BUMPED),
                         ("linux-image-7.3.4+deb13-amd64", "7.3.4-1~bpo13+1"))
        self.assertIsNone(stock.newest_image("6.6", BUMPED))

    def test_a_pin_the_archive_still_has_is_used(self):
        pins = kernel.read_pins(self.path)
        lg = kernel.leg("stock-6.12")
        cache = os.environ.get("CMKIT_CACHE")
        os.environ["CMKIT_CACHE"] = tempfile.mkdtemp(prefix="cmkit-cache-")
        try:
            self.assertEqual(stock.resolve(lg, BUMPED, pins),
                             ("linux-image-6.12.118+deb12-amd64", "6.12.118-1~deb12u1", None))
            img, ver, note = stock.resolve(kernel.leg("stock-6.1"), BUMPED, pins)
        finally:
            shutil.rmtree(os.environ["CMKIT_CACHE"])
            if cache is None:
                del os.environ["CMKIT_CACHE"]
            else:
                os.environ["CMKIT_CACHE"] = cache
        self.assertEqual((img, ver), ("linux-image-6.1.0-58-amd64", "6.1.193-1"))
        self.assertEqual(note, "linux-image-6.1.0-57-amd64 6.1.192-3 (pinned) is no longer "
                               "in the archive; used linux-image-6.1.0-58-amd64 6.1.193-1")


def cached_stock_info(name):
    """The done.json of stock leg @name at its pin, or None if not fetched."""
    lg = kernel.leg(name)
    pin = kernel.read_pins().get(lg.pin_key)
    if not pin:
        return None
    path = os.path.join(kernel.kernel_dir(lg, pin[1]), "done.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


class DkmsBuild(unittest.TestCase):
    """dkms add/build/install of the repo (a copy, as a fresh clone has it)
    against Debian's own headers: cmkit.ko for that release, depending on
    Debian's RDMA core modules, where DKMS installs it."""

    def test_dkms_builds_the_repo_against_debians_headers(self):
        legs = [k for k in kernel.MATRIX if kernel.leg(k).stock]
        self.assertTrue(legs)
        for name in legs:
            with self.subTest(leg=name):
                info = cached_stock_info(name)
                if info is None:
                    self.skipTest(f"{name}: Debian's headers are not in the cache "
                                  f"('make kernels KVERS={name}' fetches them)")
                root, ko = run.build_stock_module(info)
                rel = info["release"]
                self.assertTrue(ko.startswith(os.path.join(root, "lib", "modules", rel,
                                                           "updates", "dkms") + "/"), ko)
                tmp = tempfile.mkdtemp(prefix="cmkit-ko-")
                try:
                    path = os.path.join(tmp, "cmkit.ko")
                    with open(path, "wb") as f:
                        f.write(stock.read_ko(ko))
                    fields = {}
                    for field in ("name", "vermagic", "depends", "license"):
                        fields[field] = subprocess.run(
                            ["modinfo", "-F", field, path], stdout=subprocess.PIPE,
                            text=True, check=True).stdout.strip()
                finally:
                    shutil.rmtree(tmp)
                self.assertEqual(fields["name"], "cmkit")
                self.assertEqual(fields["vermagic"].split()[0], rel)
                self.assertEqual(fields["license"], "GPL")
                deps = set(fields["depends"].split(","))
                self.assertTrue({"ib_core", "rdma_cm", "ib_cm"} <= deps, deps)


class StockReport(unittest.TestCase):
    STATUS = ("CMKIT init 4.1\nCMKIT taint insmod-cmkit 0 12288\n"
              "CMKIT module cmkit 0xffffffffc0a00000\nCMKIT suites cmkit_userspace\n")
    CONSOLE = ("[    5.1] cmkit: loading out-of-tree module taints kernel.\n"
               "[    5.1] cmkit: module verification failed: signature and/or required key "
               "missing - tainting kernel\n[    5.2] cmkit: loaded\n")

    def test_what_the_kernel_said_about_the_unsigned_module(self):
        load = results.module_load(results.GuestReport(self.STATUS), self.CONSOLE)
        self.assertTrue(load.loaded)
        self.assertEqual(load.taint, "OE")
        self.assertEqual(load.short, "unsigned, loaded with taint OE")
        self.assertIn("'module verification failed: signature and/or required key missing - "
                      "tainting kernel'", load.long)
        # O and E are what an out-of-tree, unsigned module sets: no failure.
        self.assertEqual(results.new_taint(0, 12288), 0)

    def test_a_refused_module_says_why(self):
        status = ("CMKIT init 4.1\nCMKIT error insmod cmkit: modprobe: can't load module "
                  "cmkit (updates/dkms/cmkit.ko): Key was rejected by service\n"
                  "CMKIT taint insmod-cmkit 0 0\n")
        console = "[ 5.1] Lockdown: modprobe: unsigned module loading is restricted; see man " \
                  "kernel_lockdown.7\n"
        load = results.module_load(results.GuestReport(status), console)
        self.assertFalse(load.loaded)
        self.assertIn("Key was rejected by service", load.short)
        self.assertIn("'Lockdown: modprobe: unsigned module loading is restricted", load.long)
        v = results.judge(results.GuestReport(status), console, 0, (0, 0, 0), False, True)
        self.assertIn("guest: insmod cmkit: modprobe: can't load module cmkit "
                      "(updates/dkms/cmkit.ko): Key was rejected by service", v.problems)

    def test_an_enforced_signature_refuses_the_module_and_the_run_says_so(self):
        # Debian's kernel booted with module.sig_enforce=1 (CMKIT_APPEND).
        # As measured: insmod tries twice (finit_module, init_module).
        status = ("CMKIT init 4.1\nCMKIT error insmod cmkit: insmod: can't insert "
                  "'/lib/modules/6.1.0-57-amd64/updates/dkms/cmkit.ko': Key was rejected by "
                  "service; Loading of unsigned module is rejected\n"
                  "CMKIT taint insmod-cmkit 0 0\nCMKIT module cmkit \nCMKIT done\n")
        console = ("[    3.713128] Loading of unsigned module is rejected\n"
                   "[    3.718700] Loading of unsigned module is rejected\n")
        load = results.module_load(results.GuestReport(status), console)
        self.assertFalse(load.loaded)
        self.assertIn("Key was rejected by service", load.short)
        self.assertIn("the kernel said 'Loading of unsigned module is rejected';", load.long)
        self.assertEqual(load.messages, ["Loading of unsigned module is rejected"])
        info = {"leg": "stock-6.1", "kver": "6.1", "stock": True, "release": "6.1.0-57-amd64",
                "package": "linux-image-6.1.0-57-amd64", "version": "6.1.192-3"}
        v = results.judge(results.GuestReport(status), console, 0, (0, 0, 0), False, True)
        v.module_load, v.total_seconds, v.boot_seconds = load, 20.0, 5.0
        line = run.summary_line(info, v, "tcg")
        self.assertIn("cmkit.ko refused: insmod: can't insert", line)
        self.assertTrue(line.endswith(" FAIL"), line)

    def test_the_summary_line(self):
        info = {"leg": "stock-6.1", "kver": "6.1", "stock": True, "release": "6.1.0-57-amd64",
                "package": "linux-image-6.1.0-57-amd64", "version": "6.1.192-3"}
        v = results.Verdict()
        v.passed, v.skipped, v.total_seconds, v.boot_seconds = 33, 19, 95.0, 20.0
        v.module_load = results.module_load(results.GuestReport(self.STATUS), self.CONSOLE)
        line = run.summary_line(info, v, "tcg")
        self.assertTrue(line.startswith("stock-6.1 linux-image-6.1.0-57-amd64 6.1.192-3 "
                                        "passed=33 failed=0 skipped=19 accel=tcg"), line)
        self.assertIn("(stock Debian kernel; cmkit.ko unsigned, loaded with taint OE)", line)
        self.assertNotIn("FAIL", line)
        info["pin_note"] = "linux-image-6.1.0-57-amd64 6.1.192-3 (pinned) is no longer ..."
        self.assertIn("pin-not-used (linux-image-6.1.0-57-amd64", run.summary_line(info, v, "tcg"))

    def test_star_lines_are_not_the_stock_legs(self):
        exp = results.read_expected(text="*  suite cmkit_smoke 4\n"
                                         "stock-* suite cmkit_story 1\n"
                                         "stock-6.1,6.1 skip a.b linux-source-6.1=6.1.192-3 why\n")
        self.assertEqual([e.applies("stock-6.1") for e in exp], [False, True, True])
        self.assertEqual([e.applies("6.1") for e in exp], [True, False, True])
        self.assertEqual([e.applies("stock-6.12") for e in exp], [False, True, False])

    def test_the_stock_legs_expect_the_shell_suites_and_the_siw_skips(self):
        exp = [e for e in results.read_expected() if e.applies("stock-6.1")]
        self.assertEqual({e.target for e in exp if e.kind == "suite"},
                         {"cmkit_userspace", "cmkit_peer_selftest", "cmkit_story",
                          "cmkit_srp_initiator"})
        skips = [e for e in exp if e.kind == "skip" and e.value == stock.NO_SIW]
        self.assertTrue(skips, "the siw cases skip with Debian's reason")
        # Every siw case of the shell suite is named *_siw0, which the skip matches.
        with open(os.path.join(TOP, "scripts", "guest", "userspace.sh")) as f:
            script = f.read()
        with open(os.path.join(TOP, "scripts", "guest", "init")) as f:
            self.assertIn(f'NO_SIW="{stock.NO_SIW}"', f.read())
        for name in re.findall(r"\b(\w+_siw0)\b", script):
            self.assertTrue(results.fnmatch.fnmatchcase(f"cmkit_userspace.{name}",
                                                        skips[0].target), name)

    def test_the_stock_legs_run_the_nfsd_case_with_debians_nfsd_and_svcrdma(self):
        # nfsd.ko and rpcrdma.ko (svcrdma) are loaded with the RDMA stack, so
        # no stock line lets cmkit_userspace's nfsd case skip.
        for mod in ("nfsd", "rpcrdma"):
            self.assertIn(mod, stock.MODULES)
        case = "cmkit_userspace.rpcrdma_calls_nfsd_over_rdma_rxe0"
        for lg in ("stock-6.1", "stock-6.12"):
            skips = [e for e in results.read_expected() if e.applies(lg) and e.kind == "skip"
                     and results.fnmatch.fnmatchcase(case, e.target)]
            self.assertEqual(skips, [], lg)

    def test_the_stock_legs_are_in_the_matrix_and_debug0_keeps_them(self):
        self.assertIn("stock-6.1", kernel.MATRIX)
        self.assertIn("stock-6.12", kernel.MATRIX)
        self.assertFalse(kernel.leg("stock-6.1").debug)
        self.assertEqual([k for k in kernel.MATRIX if kernel.leg(k).debug], ["6.12-debug"])


if __name__ == "__main__":
    unittest.main()
