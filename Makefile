# SPDX-License-Identifier: GPL-2.0
#
# kvmchurn: the module (kvmchurn.ko) and its client (userspace/kvmchurn).
#
#   make                 both, against the running kernel
#   make module          kvmchurn.ko; KDIR=, ARCH=, CROSS_COMPILE=, CC=, W=1, C=1;
#                        SIGN_KEY=, SIGN_CERT= sign it (Secure Boot hosts)
#   make client          userspace/kvmchurn; STATIC=1, CROSS_COMPILE=aarch64-linux-gnu-
#   make install         module (then depmod) and client; DESTDIR=, PREFIX=
#   make install-client  the client, its man page, completion and textfile service
#   make dkms-install    the module through DKMS, for KVER (default: running kernel)
#   make check           every test tier (README.md); check-quick: no VM
#   make demo            try it without touching this host: one kernel booted under QEMU,
#                        a churn load, what kvmchurn shows of it; KERNEL= (x86_64-6.1)

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
LIBEXECDIR ?= $(PREFIX)/libexec
SYSCONFDIR ?= /etc
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
DEPMOD ?= depmod
DKMS ?= dkms

include build.mk
VERSION := $(KVMCHURN_VERSION)

all: module client

# Signing, for hosts that load only signed modules (Secure Boot, whose kernels run
# with lockdown=integrity, or CONFIG_MODULE_SIG_FORCE): with SIGN_KEY (the private
# key, PEM, or a pkcs11: URI) and SIGN_CERT (its X.509 certificate, DER or PEM),
# `make module` signs kvmchurn.ko with the kernel's own scripts/sign-file and the hash
# the kernel signs its own modules with (CONFIG_MODULE_SIG_HASH of KDIR's
# include/config/auto.conf or .config; sha256 where it names none), as kbuild's
# modules_install and DKMS do. A module signed by an earlier run is linked again
# (kbuild's last step only), not signed twice. Without SIGN_KEY nothing changes.
# Documentation/secure-boot.rst: making a key, enrolling it, what lockdown refuses.
SIGN_FILE ?= $(KDIR)/scripts/sign-file
KC_KCONFIG = $(firstword $(wildcard $(KDIR)/include/config/auto.conf $(KDIR)/.config))
SIGN_HASH ?= $(or $(shell sed -n 's/^CONFIG_MODULE_SIG_HASH="*\([^"]*\)"*$$/\1/p' $(KC_KCONFIG) /dev/null),sha256)
KC_SIGN := $(if $(SIGN_KEY)$(SIGN_CERT),1)

# The first contact: a host without the running kernel's headers says which package
# to install, in one line, before kbuild says "No such file or directory".
KC_NEED_KDIR = @test -f '$(KDIR)/Makefile' || { echo 'kvmchurn: $(KDIR) is not a kernel build tree: install the headers of kernel $(KVER) (Debian: apt install linux-headers-$(KVER)), or point KDIR= at a built kernel tree' >&2; exit 2; }

module:
	$(KC_NEED_KDIR)
ifdef KC_SIGN
	@test -n '$(SIGN_KEY)' || { echo 'SIGN_CERT needs SIGN_KEY=..., the private key of that certificate (PEM, or a pkcs11: URI)' >&2; exit 2; }
	@case '$(SIGN_KEY)' in pkcs11:*) ;; *) test -r '$(SIGN_KEY)' || \
		{ echo 'SIGN_KEY=$(SIGN_KEY): no such file (the private key, PEM, or a pkcs11: URI)' >&2; exit 2; } ;; esac
	@test -n '$(SIGN_CERT)' || { echo 'SIGN_KEY needs SIGN_CERT=..., its X.509 certificate (DER or PEM)' >&2; exit 2; }
	@test -r '$(SIGN_CERT)' || { echo 'SIGN_CERT=$(SIGN_CERT): no such file (the X.509 certificate of SIGN_KEY, DER or PEM)' >&2; exit 2; }
	@test -x '$(SIGN_FILE)' || { echo '$(SIGN_FILE): no such program. Debian ships scripts/sign-file in linux-kbuild-X.Y (the headers link to it); a kernel tree builds it with CONFIG_MODULE_SIG; or pass SIGN_FILE=/path/to/sign-file' >&2; exit 2; }
	rm -f kvmchurn.ko
endif
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules
ifdef KC_SIGN
	$(SIGN_FILE) $(SIGN_HASH) '$(SIGN_KEY)' '$(SIGN_CERT)' kvmchurn.ko
	@grep -q '^CONFIG_MODULE_SIG=y' $(KC_KCONFIG) /dev/null || \
		echo 'note: the kernel of $(KDIR) has no CONFIG_MODULE_SIG: it does not check signatures' >&2
endif

# The KUnit suites (tests/kunit): for a kernel with CONFIG_KUNIT, such as the
# debug kernel of `make check-debug`.
kunit:
	$(KC_NEED_KDIR)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/kunit modules

# make bench's configuration F: kvmchurn's probes with empty handlers (tests/bench/floor).
bench-floor:
	$(KC_NEED_KDIR)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/bench/floor modules

# The tests' stall: a VMM's exit_mmap() held until released (tests/stall).
stall:
	$(KC_NEED_KDIR)
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/stall modules

# userspace/Makefile builds it, one object a file.
client:
	$(MAKE) -C userspace

# For scripts: the version, and the C flags of every userspace program.
version:
	@echo $(KVMCHURN_VERSION)
cflags:
	@echo $(KC_CFLAGS_STD) $(KC_CFLAGS_WARN)
products:
	@echo '$(KC_PRODUCTS)'

install: all install-client
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) modules_install
	$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) -a $(KVER)

# The client, its man page and its bash completion (debian/rules uses it too), and the
# textfile service for node_exporter (systemd/: kvmchurn-export.service and .timer, their
# command in LIBEXECDIR/kvmchurn, SYSCONFDIR/default/kvmchurn-export, which an install
# does not overwrite: it is the administrator's). The timer is not enabled.
install-client: client
	install -D -m 0755 userspace/kvmchurn $(DESTDIR)$(SBINDIR)/kvmchurn
	install -D -m 0644 Documentation/kvmchurn.8 $(DESTDIR)$(MANDIR)/man8/kvmchurn.8
	install -D -m 0644 completion/kvmchurn.bash $(DESTDIR)$(BASHCOMPDIR)/kvmchurn
	install -D -m 0755 systemd/export-textfile $(DESTDIR)$(LIBEXECDIR)/kvmchurn/export-textfile
	install -d $(DESTDIR)$(SYSTEMDUNITDIR)
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' \
		-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' systemd/kvmchurn-export.service.in \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/kvmchurn-export.service
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/kvmchurn-export.service
	install -m 0644 systemd/kvmchurn-export.timer $(DESTDIR)$(SYSTEMDUNITDIR)/
	test -e $(DESTDIR)$(SYSCONFDIR)/default/kvmchurn-export || \
		install -D -m 0644 systemd/kvmchurn-export.default $(DESTDIR)$(SYSCONFDIR)/default/kvmchurn-export

uninstall:
	rm -f $(wildcard $(DESTDIR)/lib/modules/$(KVER)/extra/kvmchurn.ko*)
	$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) -a $(KVER)
	rm -f $(DESTDIR)$(SBINDIR)/kvmchurn $(DESTDIR)$(MANDIR)/man8/kvmchurn.8 \
		$(DESTDIR)$(BASHCOMPDIR)/kvmchurn $(DESTDIR)$(LIBEXECDIR)/kvmchurn/export-textfile \
		$(DESTDIR)$(SYSTEMDUNITDIR)/kvmchurn-export.service $(DESTDIR)$(SYSTEMDUNITDIR)/kvmchurn-export.timer
	-rmdir $(DESTDIR)$(LIBEXECDIR)/kvmchurn
	@echo 'left: $(DESTDIR)$(SYSCONFDIR)/default/kvmchurn-export, the administrator'"'"'s (as dpkg leaves a conffile until purge)'

# DKMS. The module's sources as DKMS takes them, in /usr/src/kvmchurn-VERSION
# (debian/rules puts them in the kvmchurn-dkms package with DESTDIR=).
DKMS_SRC := /usr/src/kvmchurn-$(VERSION)
dkms-source:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	install -d $(DESTDIR)$(DKMS_SRC)/module
	install -m 0644 Kbuild Makefile build.mk dkms.conf $(DESTDIR)$(DKMS_SRC)/
	install -m 0644 $(wildcard module/*.[ch]) $(DESTDIR)$(DKMS_SRC)/module/

# From a checkout: build and install the module for KVER through DKMS (again
# for every new kernel, as AUTOINSTALL says). Whatever DKMS had of this version
# before is removed first, so that a changed tree is really rebuilt.
dkms-install: dkms-source
	-$(DKMS) remove -m kvmchurn -v $(VERSION) --all >/dev/null 2>&1
	$(DKMS) add -m kvmchurn -v $(VERSION)
	$(DKMS) install -m kvmchurn -v $(VERSION) -k $(KVER)

dkms-remove:
	$(DKMS) remove -m kvmchurn -v $(VERSION) --all
	rm -rf $(DKMS_SRC)

clean: clean-userspace
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(if $(wildcard tests/kunit),-$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/kunit clean)
	$(if $(wildcard tests/bench/floor),-$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/bench/floor clean)
	$(if $(wildcard tests/stall),-$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/stall clean)

# Without a kernel's build folder (debian/rules clean): the client and the unit tests.
clean-userspace:
	$(MAKE) -C userspace clean
	rm -f $(filter tests/unit/%,$(KC_PRODUCTS))

# The kernel's coding style. Debian's headers do not ship checkpatch.pl: take
# it from a kernel tree (package linux-source-X), CHECKPATCH=.../checkpatch.pl.
# compat.h is the one file that must test kernel versions. kvmchurn_abi.h's
# tables are X-macros (as the kernel's own TRACE_FLAGS or EM() lists): a row
# list is not an expression to parenthesize, a row's reader may be a
# declaration (its semicolon in the macro), and it takes the
# columns it does not use.
CHECKPATCH ?= $(KDIR)/scripts/checkpatch.pl
CHECKPATCH_FLAGS := --no-tree --strict --quiet --show-types
KC_STYLE_OWN := module/compat.h module/kvmchurn_abi.h
style: shellcheck
	@test -x $(CHECKPATCH) || { echo "$(CHECKPATCH) not found: pass CHECKPATCH=/path/to/linux/scripts/checkpatch.pl" >&2; exit 2; }
	$(CHECKPATCH) $(CHECKPATCH_FLAGS) -f $(filter-out $(KC_STYLE_OWN),$(filter-out %.mod.c,$(wildcard module/*.[ch] tests/kunit/*.[ch] tests/bench/floor/*.[ch] tests/stall/*.[ch])))
	$(CHECKPATCH) $(CHECKPATCH_FLAGS) --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f module/compat.h
	$(CHECKPATCH) $(CHECKPATCH_FLAGS) --ignore COMPLEX_MACRO,MACRO_ARG_REUSE,MACRO_ARG_UNUSED,TRAILING_SEMICOLON -f module/kvmchurn_abi.h

# Every shell script of the tree, zero findings (tests/lib/shellcheck.sh says at what
# severity, and why one check is left out). make check runs it first; check-unit does
# not, since the Debian package's build runs check-unit and a linter is not its test.
shellcheck:
	tests/lib/shellcheck.sh

# Test tiers (README.md). Downloads and builds go to $(KVMCHURN_CACHE).
check: shellcheck check-unit check-prometheus check-browser check-build check-vm check-dkms check-qemu check-debug

check-quick: shellcheck check-unit check-prometheus check-browser check-build

# check on every kernel with every scenario (tests/lib/matrix.sh's KC_WIDE_IDS: check runs
# all of them on some kernels only, to fit CI's 90 minutes), DKMS in the emulated arm64
# chroot (tests/dkms/tier.sh), and the RT and 7.x debug kernels.
check-full:
	FULL=1 $(MAKE) check check-debug-rt check-debug-7

check-unit:
	$(MAKE) client
	$(CC) $(KC_CFLAGS_STD) $(KC_CFLAGS_WARN) -O2 -Imodule -o tests/unit/abi_test tests/unit/abi_test.c
	$(CC) $(KC_CFLAGS_STD) -D_GNU_SOURCE -O2 $(KC_CFLAGS_WARN) -shared -fPIC \
		-o tests/unit/fakekvm.so tests/unit/fakekvm.c -ldl
	$(CC) $(KC_CFLAGS_STD) $(KC_CFLAGS_WARN) -O2 -o tests/unit/qtrace_gen tests/unit/qtrace_gen.c
	$(CC) $(KC_CFLAGS_STD) $(KC_CFLAGS_WARN) -g -O1 -fsanitize=address,undefined \
		-fno-sanitize-recover=all -o tests/unit/qtrace_fuzz tests/unit/qtrace_fuzz.c \
		-Iuserspace userspace/downtime/qtrace.c userspace/downtime/migration.c userspace/lib/grow.c
	$(CC) $(KC_CFLAGS_STD) $(KC_CFLAGS_WARN) -Wno-format-truncation $(KC_FUZZ_CFLAGS) -o tests/unit/reader_fuzz \
		tests/unit/reader_fuzz.c $(KC_FUZZ_SRCS) -lm
	tests/unit/tier.sh --client $(CURDIR)/userspace/kvmchurn --version $(VERSION) \
		--fakekvm $(CURDIR)/tests/unit/fakekvm.so $(if $(TESTS),--tests '$(TESTS)') \
		$(if $(NO_PROMTOOL),--no-promtool)

# The readers of files from other hosts (raw, vms and its live records, what plot and
# vms --trace-event draw of them) under ASan and UBSan: tests/unit/reader_fuzz.c, run a
# fixed number of times by check-unit. make fuzz: the same target coverage-guided by
# libFuzzer (Debian's clang with libclang-rt-dev), for FUZZ_SECONDS (default 300), its
# corpus kept in $(KVMCHURN_CACHE)/fuzz/reader; a finding is written there as crash-*,
# to be fixed and kept in tests/unit/fuzz/. gcc at -O1 with the sanitizers sees
# truncations of snprintf() that are meant: -Wno-format-truncation there.
KVMCHURN_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kvmchurn
FUZZ_SECONDS ?= 300
KC_FUZZ_SRCS = $(wildcard userspace/lib/*.c userspace/plot/*.c) userspace/cmd/vms_trace.c
KC_FUZZ_CFLAGS = -D_GNU_SOURCE -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-Iuserspace -Imodule -Itests/unit
fuzz:
	@command -v clang >/dev/null || { echo 'make fuzz: no clang: apt-get install clang libclang-rt-14-dev' >&2; exit 2; }
	clang $(KC_CFLAGS_STD) -Wall -Wextra -Werror $(KC_FUZZ_CFLAGS) -fsanitize=fuzzer \
		-DKC_LIBFUZZER -o tests/unit/reader_libfuzzer tests/unit/reader_fuzz.c $(KC_FUZZ_SRCS) -lm
	mkdir -p $(KVMCHURN_CACHE)/fuzz/reader
	n=0; for f in $$(find tests/fixtures tests/unit/fuzz -type f \( -name raw -o -name vms -o -path '*/unit/fuzz/*' \)); do \
		n=$$((n + 1)); cp "$$f" $(KVMCHURN_CACHE)/fuzz/reader/seed-$$n; done
	cd $(KVMCHURN_CACHE)/fuzz && $(CURDIR)/tests/unit/reader_libfuzzer -max_total_time=$(FUZZ_SECONDS) \
		-timeout=10 -print_final_stats=1 -artifact_prefix=$(KVMCHURN_CACHE)/fuzz/ reader

# The textfile as Debian's node_exporter and Prometheus read it, on the loopback
# (tests/prometheus): quantiles and sums by PromQL against the client's, the examples' rules.
check-prometheus:
	$(MAKE) client
	tests/prometheus/tier.sh --client $(CURDIR)/userspace/kvmchurn

# Every picture of `kvmchurn plot` in Debian's Chromium, headless (tests/browser);
# check-browser-docs also writes Documentation/images from what it rendered.
check-browser:
	$(MAKE) client
	tests/browser/tier.sh --client $(CURDIR)/userspace/kvmchurn

check-browser-docs:
	$(MAKE) client
	tests/browser/tier.sh --client $(CURDIR)/userspace/kvmchurn --docs

check-build:
	tests/build/tier.sh $(KERNELS)

check-vm:
	tests/vm/tier.sh $(KERNELS)

# DKMS and the Debian packages in chroots of each kernel's release (tests/dkms),
# then the vm tier with the modules DKMS built.
check-dkms:
	tests/dkms/tier.sh $(KERNELS)

# kvmchurn downtime against live QEMUs: 10 (trixie, in a chroot) migrating, and
# the host's own (7.2, without the downtime events).
check-qemu:
	tests/qemu/tier.sh

# kvmchurn on one kernel under QEMU, a churn load and what it shows (tests/demo).
demo:
	tests/demo/run.sh $(KERNEL)

# What kvmchurn costs the host, measured in one boot (not a test: not in check), by
# tests/bench/bench.sh MODE; BENCH='OPTION...' passes its options (bench.sh --help), e.g.
# make bench-count BENCH='--exits 200'. The seed runs beside it, from the user's copy:
# make bench SEED=/path/to/kvm_churn_breakdown.bt
bench:
	tests/bench/bench.sh rounds $(if $(SEED),--seed '$(SEED)') $(BENCH) $(KERNELS)

# Where bench's cost on unmatched exits goes: perf inside the same boots.
bench-profile:
	tests/bench/bench.sh profile $(BENCH) $(KERNELS)

# The same, every kernel instruction counted by QEMU: the mechanism against the handlers.
bench-count:
	tests/bench/bench.sh count $(BENCH) $(KERNELS)

# exit_mmap and kvm_destroy_vm per GiB of guest memory, by backing (not a test).
bench-backing:
	tests/bench/bench.sh backing $(BENCH) $(KERNELS)

# Documentation/compatibility.rst, from what the last vm, dkms and debug runs left.
compatibility:
	tests/lib/compatibility.sh >Documentation/compatibility.rst.tmp
	mv Documentation/compatibility.rst.tmp Documentation/compatibility.rst

# The debug kernel (tests/debug): KUnit, KASAN, lockdep, kmemleak, fault scenarios.
check-debug:
	tests/debug/tier.sh

# The same on the debug kernel with PREEMPT_RT (x86_64-debug-rt): not in check, whose
# time it would push past CI's (a second kernel build and a second tier).
check-debug-rt:
	tests/debug/tier.sh x86_64-debug-rt

# The same on a debug kernel built from 7.x's source (x86_64-debug-7), where tracepoint
# probes run preemptible: not in check either, for the same reason (tests/README.md).
check-debug-7:
	tests/debug/tier.sh x86_64-debug-7

# The soak (tests/soak): SOAK_VMS VMs (default 20000) on the debug kernel, in waves of
# SOAK_WAVE (90), a QEMU in two waves of four, SOAK_CHECKS checkpoints (10) after
# SOAK_WARMUP waves (5): counts exact, memory flat, kmemleak clean. Hours, not in check.
soak:
	tests/soak/tier.sh $(if $(SOAK_VMS),--vms $(SOAK_VMS)) $(if $(SOAK_WAVE),--wave $(SOAK_WAVE)) \
		$(if $(SOAK_CHECKS),--checks $(SOAK_CHECKS)) $(if $(SOAK_WARMUP),--warmup $(SOAK_WARMUP))

.PHONY: all module client version cflags products install install-client uninstall clean \
	clean-userspace style shellcheck check \
	check-quick check-full check-unit check-prometheus check-browser check-browser-docs fuzz check-build check-vm check-debug check-debug-rt check-debug-7 check-dkms check-qemu soak kunit bench-floor stall \
	dkms-source dkms-install dkms-remove compatibility demo bench bench-profile bench-count bench-backing
