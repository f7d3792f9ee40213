# SPDX-License-Identifier: GPL-2.0-only
#
# cmkit top-level Makefile.  The kbuild part is in Kbuild.
#
#   make                   build cmkit.ko (and cmkit_test.ko) against KDIR,
#                          default the running kernel's build tree
#   make KVER=6.12         build against cmkit's cached 6.12 test kernel
#                          (fetched and built on first use)
#   make test              host checks + KUnit on 6.1, 6.12, 7.3 and the
#                          6.12-debug leg (KVERS="6.12" narrows it, DEBUG=0
#                          drops the debug leg, SUITES=glob picks suites)
#   make run               boot the 6.12 test kernel and drive each handler
#   make shell KVER=6.1    a shell in the test guest
#   make check             host checks only (headers, GoogleTest, harness)
#   make setup             install the Debian packages cmkit needs
#   make fuzz              run every libFuzzer target long (FUZZ_SECONDS each)
#   make update-kernels    move kunit/kernels.pin to the archive's newest packages

PYTHON ?= python3
TOP := $(CURDIR)
# Everything kbuild needs; mirrored (as symlinks) into build/mod/<tag>/ so
# that each kernel keeps its own objects and probes.h.
KSOURCES := Kbuild $(wildcard *.c *.h) include kunit

ifneq ($(KVER),)
TAG := $(KVER)
else ifneq ($(KDIR),)
TAG := kdir
else
TAG := host
KDIR := /lib/modules/$(shell uname -r)/build
endif
MODDIR := $(TOP)/build/mod/$(TAG)

.PHONY: all modules setup check test run shell kernels update-kernels fuzz clean

all: modules

modules:
	@set -e; kdir='$(KDIR)'; \
	if [ -z "$$kdir" ]; then kdir=$$($(PYTHON) scripts/kernel.py kdir $(KVER)); fi; \
	if [ ! -f "$$kdir/Makefile" ]; then \
		echo "cmkit: no kernel build tree at $$kdir; try 'make KVER=6.12'" >&2; exit 1; fi; \
	mkdir -p $(MODDIR); \
	cp -rs --remove-destination $(addprefix $(TOP)/,$(KSOURCES)) $(MODDIR)/; \
	if [ ! -f $(MODDIR)/probes.h ] || [ "$$(cat $(MODDIR)/.kdir 2>/dev/null)" != "$$kdir" ] || \
	   [ -n "$$(find scripts/probe.sh scripts/probes -newer $(MODDIR)/probes.h)" ]; then \
		echo "  PROBE   $$kdir"; scripts/probe.sh "$$kdir" $(MODDIR); echo "$$kdir" > $(MODDIR)/.kdir; fi; \
	$(MAKE) -C "$$kdir" M=$(MODDIR) $(if $(W),W=$(W)) $(if $(C),C=$(C)) modules; \
	echo "cmkit: modules in $(MODDIR)"

setup:
	@scripts/setup.sh

check: setup
	@$(PYTHON) scripts/test.py --host-only

test: setup
	@$(PYTHON) scripts/test.py $(if $(KVERS),--kernels "$(KVERS)") $(if $(SUITES),--suites "$(SUITES)") \
		$(if $(filter 0,$(DEBUG)),--no-debug)

run: setup
	@$(PYTHON) scripts/run.py run --kernel $(or $(KVER),6.12)

shell: setup
	@$(PYTHON) scripts/run.py shell --kernel $(or $(KVER),6.12)

kernels: setup
	@for k in $(or $(KVERS),$(shell $(PYTHON) scripts/kernel.py versions)); do \
		$(PYTHON) scripts/kernel.py build $$k || exit 1; done

update-kernels: setup
	@$(PYTHON) scripts/kernel.py update

fuzz: setup
	@$(MAKE) -s -C tests/fuzz fuzz

clean:
	rm -rf build
