# SPDX-License-Identifier: GPL-2.0-only
#
# cmkit top-level Makefile.  The kbuild part is in Kbuild.
#
#   make help              every target, one line each
#
# Developer checks (against the 6.12 test kernel unless KVER= says otherwise):
#   make checkpatch        checkpatch.pl --strict on cmkit's own sources (CHECKPATCH=)
#   make sparse            a C=2 build; fails if sparse warns in a cmkit file
#   make W=1               a build with the kernel's extra warnings, shown
#   make warnings          a W=1 build that fails on any warning in a cmkit file
#   make compile_commands.json   for clangd and friends (the tree's generator)

PYTHON ?= python3
TOP := $(CURDIR)
# Everything kbuild needs; mirrored (as symlinks) into build/mod/<tag>/ so
# that each kernel keeps its own objects and probes.h.  A build whose inputs
# (these files, the probes, the kernel tree, its .config and Module.symvers,
# the compiler) are those of the last one is skipped: kbuild's own no-op
# walk costs seconds.  W= and C= builds always run.
KSOURCES := Kbuild $(wildcard *.c *.h) $(wildcard core rpcrdma srpt irdma lib) include kunit

ifneq ($(KVER),)
TAG := $(KVER)
else ifneq ($(KDIR),)
TAG := kdir
else
TAG := host
KDIR := /lib/modules/$(shell uname -r)/build
endif
MODDIR := $(TOP)/build/mod/$(TAG)
# cmkit's version: dkms.conf's PACKAGE_VERSION.
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\([^"]*\)"$$/\1/p' $(TOP)/dkms.conf)

.PHONY: all modules install uninstall setup check test run shell ki-repro bench kernels update-kernels \
	fuzz clean help checkpatch symbols sparse warnings compile_commands.json

all: modules

help:
	@echo "make                      build cmkit.ko and cmkit_test.ko (KVER=6.12: against the cached test kernel)"
	@echo "make modules              the same"
	@echo "make install              install cmkit.ko into /lib/modules/<release>/updates/, then depmod (KVER=, KDIR=)"
	@echo "make uninstall            remove what make install put there, then depmod"
	@echo "make setup                install the Debian packages cmkit needs"
	@echo "make check                host checks only: headers, GoogleTest, fuzz replay, harness tests"
	@echo "make test                 host checks + KUnit in a guest per kernel, the shell suites on Debian's own (KVERS=stock-6.1, SUITES=, DEBUG=0, STOCK=0)"
	@echo "make run                  boot the 6.12 test kernel and drive each handler (results in build/results/run/)"
	@echo "make shell                a shell in the test guest (KVER=6.1)"
	@echo "make ki-repro KI=<n>      a kernel bug's reproduction without cmkit (KVER=; CMKIT_NO_PATCHES=1: on the unpatched kernel)"
	@echo "make bench                benchmarks, each against its alternative (KVER=, BENCH_REPS=, BENCH_N=, BENCH_N_SIW=, BENCH_ITEMS=, BENCH_SUITES=, BENCH_HARNESS_KVERS=, BENCH_NFS_READS=)"
	@echo "make kernels              build every test kernel up front (KVERS= narrows)"
	@echo "make update-kernels       move kunit/kernels.pin to the archive's newest packages"
	@echo "make fuzz                 run every libFuzzer target long (FUZZ_SECONDS each)"
	@echo "make checkpatch           checkpatch.pl --strict --no-tree on cmkit's sources (CHECKPATCH=<path>; no kernel build)"
	@echo "make symbols              every global symbol of cmkit.ko is cmkit_* or a handler (KVER=)"
	@echo "make sparse               C=2 build against the 6.12 test kernel; fails on sparse warnings in cmkit files"
	@echo "make warnings             W=1 build against the 6.12 test kernel; fails on any warning in cmkit files"
	@echo "make compile_commands.json  compile database via the tree's gen_compile_commands.py"
	@echo "make clean                remove build/"
	@echo "make help                 this list"

modules:
	@set -e; kdir='$(KDIR)'; \
	if [ -z "$$kdir" ]; then kdir=$$($(PYTHON) scripts/kernel.py kdir $(KVER)); fi; \
	if [ ! -f "$$kdir/Makefile" ]; then \
		echo "cmkit: no kernel build tree at $$kdir; try 'make KVER=6.12'" >&2; exit 1; fi; \
	sum=$$(cd $(TOP) && { echo "$$kdir $(CMKIT_BENCH)"; gcc --version | head -n 1; \
		sha256sum "$$kdir/.config" "$$kdir/Module.symvers" 2>/dev/null; \
		find $(KSOURCES) Makefile scripts/probe.sh scripts/probes -type f | LC_ALL=C sort | \
		xargs sha256sum; } | sha256sum); \
	if [ -z "$(W)$(C)" ] && [ "$$sum" = "$$(cat $(MODDIR)/.built 2>/dev/null)" ] && \
	   [ -s $(MODDIR)/modules.order ]; then \
		built=1; for o in $$(cat $(MODDIR)/modules.order); do \
			o=$${o##*/}; [ -f "$(MODDIR)/$${o%.*}.ko" ] || built=; done; \
		if [ -n "$$built" ]; then echo "cmkit: modules in $(MODDIR) (sources unchanged)"; exit 0; fi; \
	fi; \
	mkdir -p $(MODDIR); rm -f $(MODDIR)/.built; \
	cp -rs --remove-destination $(addprefix $(TOP)/,$(KSOURCES)) $(MODDIR)/; \
	if [ ! -f $(MODDIR)/probes.h ] || [ "$$(cat $(MODDIR)/.kdir 2>/dev/null)" != "$$kdir" ] || \
	   [ -n "$$(find scripts/probe.sh scripts/probes -newer $(MODDIR)/probes.h)" ]; then \
		echo "  PROBE   $$kdir"; scripts/probe.sh "$$kdir" $(MODDIR); echo "$$kdir" > $(MODDIR)/.kdir; fi; \
	$(MAKE) -C "$$kdir" M=$(MODDIR) $(if $(W),W=$(W)) $(if $(C),C=$(C)) modules; \
	[ -n "$(W)$(C)" ] || echo "$$sum" > $(MODDIR)/.built; \
	echo "cmkit: modules in $(MODDIR)"

# ---- install ---------------------------------------------------------------
# make install [KVER=6.12 | KDIR=<kernel build tree>] [INSTALL_MOD_DIR=extra]
#              [INSTALL_MOD_PATH=<staging root>]
# The tree's modules_install puts cmkit.ko (and cmkit_test.ko where it was
# built: a kernel with KUnit) under <root>/lib/modules/<release>/updates/;
# depmod then indexes them (kbuild skips it without a System.map, as in
# Debian's headers).  DKMS (dkms.conf) is the other way in: do not mix them.
INSTALL_MOD_DIR ?= updates
# The kernel tree (evaluated once, and only by the recipes that need it).
BUILD_KDIR = $(eval BUILD_KDIR := $(or $(KDIR),$(shell $(PYTHON) scripts/kernel.py kdir $(KVER))))$(BUILD_KDIR)
# The release the modules are for: DKMS's KERNELRELEASE, else the tree's
# UTS_RELEASE (what a module's vermagic says; Debian's 6.1 headers keep the
# upstream version in include/config/kernel.release), else the running kernel.
KRELEASE = $(eval KRELEASE := $(or $(KERNELRELEASE),$(shell sed -n \
	's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' $(BUILD_KDIR)/include/generated/utsrelease.h \
	2>/dev/null),$(if $(filter host,$(TAG)),$(shell uname -r))))$(KRELEASE)
MODULES_DIR = $(INSTALL_MOD_PATH)/lib/modules/$(KRELEASE)
UNINSTALL_DIRS = $(sort $(INSTALL_MOD_DIR) updates extra)
DEPMOD = depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KRELEASE)

install: modules
	@test -n "$(KRELEASE)" || { echo "cmkit: no kernel release in $(BUILD_KDIR)" >&2; exit 1; }
	@echo "  INSTALL $(MODULES_DIR)/$(INSTALL_MOD_DIR)/"
	$(MAKE) --no-print-directory -C $(BUILD_KDIR) M=$(MODDIR) KERNELRELEASE=$(KRELEASE) \
		INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) $(if $(INSTALL_MOD_PATH),INSTALL_MOD_PATH=$(INSTALL_MOD_PATH)) \
		modules_install
	$(DEPMOD)
	@echo "cmkit $(VERSION): installed for $(KRELEASE); 'modprobe cmkit' loads it"

uninstall:
	@test -n "$(KRELEASE)" || { echo "cmkit: which kernel? (KVER=, KDIR= or KERNELRELEASE=)" >&2; exit 1; }
	@echo "  REMOVE  cmkit.ko*, cmkit_test.ko* from $(foreach d,$(UNINSTALL_DIRS),$(MODULES_DIR)/$(d)/)"
	rm -f $(foreach d,$(UNINSTALL_DIRS),$(foreach m,cmkit cmkit_test,\
		$(MODULES_DIR)/$(d)/$(m).ko $(MODULES_DIR)/$(d)/$(m).ko.*))
	$(DEPMOD)
	@echo "cmkit: removed for $(KRELEASE) (a DKMS install is 'dkms remove cmkit/$(VERSION) --all')"

setup:
	@scripts/setup.sh

check: setup
	@$(PYTHON) scripts/test.py --host-only

test: setup
	@$(PYTHON) scripts/test.py $(if $(KVERS),--kernels "$(KVERS)") $(if $(SUITES),--suites "$(SUITES)") \
		$(if $(filter 0,$(DEBUG)),--no-debug) $(if $(filter 0,$(STOCK)),--no-stock)

run: setup
	@$(PYTHON) scripts/run.py run --kernel $(or $(KVER),6.12)

shell: setup
	@$(PYTHON) scripts/run.py shell --kernel $(or $(KVER),6.12)

# A kernel bug's reproduction without cmkit (kernel-patches/repro/ki-<n>.sh),
# on the patched test kernel, or the unpatched one with CMKIT_NO_PATCHES=1.
ki-repro: setup
	@test -n "$(KI)" || { echo "make ki-repro: say which bug: KI=<n>" >&2; exit 2; }
	@$(PYTHON) scripts/run.py repro --ki $(KI) --kernel $(or $(KVER),6.12)

# Benchmarks are never tests: make test asserts no timing.  See scripts/bench.py.
bench: setup
	@$(PYTHON) scripts/bench.py --kernel $(or $(KVER),6.12) $(if $(BENCH_REPS),--reps $(BENCH_REPS)) \
		$(if $(BENCH_HARNESS_REPS),--harness-reps $(BENCH_HARNESS_REPS)) \
		$(if $(BENCH_HARNESS_KVERS),--harness-kernels "$(BENCH_HARNESS_KVERS)") \
		$(if $(BENCH_N),--n $(BENCH_N)) $(if $(BENCH_N_SIW),--n-siw $(BENCH_N_SIW)) \
		$(if $(BENCH_ITEMS),--items "$(BENCH_ITEMS)") \
		$(if $(BENCH_NFS_READS),--nfs-reads $(BENCH_NFS_READS)) \
		$(if $(BENCH_SUITES),--suites "$(BENCH_SUITES)")

kernels: setup
	@for k in $(or $(KVERS),$(shell $(PYTHON) scripts/kernel.py versions)); do \
		$(PYTHON) scripts/kernel.py build $$k || exit 1; done

update-kernels: setup
	@$(PYTHON) scripts/kernel.py update

fuzz: setup
	@$(MAKE) -s -C tests/fuzz fuzz

clean:
	rm -rf build

# ---- developer checks -------------------------------------------------------
CHECK_KVER := $(or $(KVER),6.12)
CHECK_MODDIR := $(TOP)/build/mod/$(CHECK_KVER)
CMKIT_SOURCES = $(wildcard *.c *.h $(addsuffix /*.[ch],core rpcrdma srpt irdma lib kunit kunit/pure))
# A warning line of the compiler or sparse about one of cmkit's own files
# (they are symlinked into build/mod/<kver>/).
CMKIT_WARNING = '^(\./)?(build/mod/[^/]+/|$(TOP)/build/mod/[^/]+/)?[A-Za-z_./]+\.[ch]:[0-9]+(:[0-9]+)?: (warning|error):'

# checkpatch.pl: CHECKPATCH=<path>, else the one on PATH, else an unpacked
# kernel source of the cache; never builds or fetches a kernel.
CHECKPATCH ?= $(or $(shell command -v checkpatch.pl 2>/dev/null),\
	$(lastword $(sort $(wildcard $(or $(CMKIT_CACHE),$(HOME)/.cache/cmkit)/src/*/scripts/checkpatch.pl))))

checkpatch:
	@set -e; cp='$(CHECKPATCH)'; \
	if [ -z "$$cp" ] || [ ! -f "$$cp" ]; then \
		echo "cmkit: no checkpatch.pl: give CHECKPATCH=<path> (any kernel tree's scripts/checkpatch.pl), or put it on PATH" >&2; exit 2; fi; \
	out=build/checkpatch.txt; mkdir -p build; \
	perl $$cp --strict --no-tree --terse --show-types \
		--ignore SPDX_LICENSE_TAG -f $(CMKIT_SOURCES) > $$out || true; \
	$(PYTHON) scripts/lint.py checkpatch $$out

# Every global symbol of cmkit.ko is cmkit_* or one of the three handlers.
symbols:
	@$(MAKE) --no-print-directory modules KVER=$(CHECK_KVER) >/dev/null
	@$(PYTHON) scripts/lint.py symbols $(CHECK_MODDIR)/cmkit.ko

sparse:
	@set -e; mkdir -p build; log=build/sparse-$(CHECK_KVER).log; \
	$(MAKE) --no-print-directory modules KVER=$(CHECK_KVER) C=2 > $$log 2>&1 || { cat $$log; exit 1; }; \
	grep -E $(CMKIT_WARNING) $$log | sed 's|^$(CHECK_MODDIR)/||' > $$log.findings || true; \
	n=$$(wc -l < $$log.findings); \
	if [ "$$n" -gt 0 ]; then cat $$log.findings; echo "sparse: $$n warning(s) in cmkit files (log: $$log)"; exit 1; fi; \
	echo "sparse: clean (log: $$log)"

warnings:
	@set -e; mkdir -p build; log=build/w1-$(CHECK_KVER).log; \
	$(MAKE) --no-print-directory modules KVER=$(CHECK_KVER) W=1 > $$log 2>&1 || { cat $$log; exit 1; }; \
	grep -E $(CMKIT_WARNING) $$log | sed 's|^$(CHECK_MODDIR)/||' > $$log.findings || true; \
	n=$$(wc -l < $$log.findings); \
	if [ "$$n" -gt 0 ]; then cat $$log.findings; echo "W=1: $$n warning(s) in cmkit files (log: $$log)"; exit 1; fi; \
	echo "W=1: clean (log: $$log)"

compile_commands.json:
	@set -e; $(MAKE) --no-print-directory modules KVER=$(CHECK_KVER); \
	src=$$($(PYTHON) scripts/kernel.py source $(CHECK_KVER)); \
	kdir=$$($(PYTHON) scripts/kernel.py kdir $(CHECK_KVER)); \
	$(PYTHON) $$src/scripts/clang-tools/gen_compile_commands.py -d $$kdir \
		-o $(TOP)/compile_commands.json $(CHECK_MODDIR); \
	echo "compile_commands.json: $$(grep -c '"file"' compile_commands.json) entries"
