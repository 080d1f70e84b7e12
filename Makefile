# SPDX-License-Identifier: GPL-2.0
#
# kvmchurn: the module (kvmchurn.ko) and its client (userspace/kvmchurn).
#
#   make                 both, against the running kernel
#   make module          kvmchurn.ko; KDIR=, ARCH=, CROSS_COMPILE=, CC=, W=1, C=1
#   make client          userspace/kvmchurn; STATIC=1, CROSS_COMPILE=aarch64-linux-gnu-
#   make install         module (then depmod) and client; DESTDIR=, PREFIX=
#   make check           every test tier (README.md); check-quick: no VM

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DEPMOD ?= depmod

VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)

# The client follows CROSS_COMPILE unless CC is given. Setting CC here does
# not reach the kernel's make, which picks its own compiler.
ifeq ($(origin CC),default)
CC := $(CROSS_COMPILE)gcc
endif
CFLAGS ?= -O2 -g
CLIENT_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Imodule \
	-DKVMCHURN_VERSION='"$(VERSION)"' -pthread $(CFLAGS)
CLIENT_LDFLAGS := -pthread $(if $(STATIC),-static) $(LDFLAGS)
CLIENT_SRCS := $(sort $(wildcard userspace/*.c))
CLIENT_HDRS := $(wildcard userspace/*.h) module/kvmchurn_abi.h

all: module client

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# The KUnit suites (tests/kunit): for a kernel with CONFIG_KUNIT, such as the
# debug kernel of `make check-debug`.
kunit:
	$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/kunit modules

client: userspace/kvmchurn

userspace/kvmchurn: $(CLIENT_SRCS) $(CLIENT_HDRS) dkms.conf
	$(CC) $(CLIENT_CFLAGS) -o $@ $(CLIENT_SRCS) $(CLIENT_LDFLAGS)

install: all
	$(MAKE) -C $(KDIR) M=$(CURDIR) INSTALL_MOD_PATH=$(DESTDIR) modules_install
	$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) -a $(KVER)
	install -D -m 0755 userspace/kvmchurn $(DESTDIR)$(SBINDIR)/kvmchurn
	install -D -m 0644 Documentation/kvmchurn.1 $(DESTDIR)$(MANDIR)/man1/kvmchurn.1

uninstall:
	rm -f $(wildcard $(DESTDIR)/lib/modules/$(KVER)/extra/kvmchurn.ko*)
	$(DEPMOD) $(if $(DESTDIR),-b $(DESTDIR)) -a $(KVER)
	rm -f $(DESTDIR)$(SBINDIR)/kvmchurn $(DESTDIR)$(MANDIR)/man1/kvmchurn.1

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C $(KDIR) M=$(CURDIR)/tests/kunit clean
	rm -f userspace/kvmchurn tests/unit/abi_test tests/unit/fakekvm.so

# The kernel's coding style. Debian's headers do not ship checkpatch.pl: take
# it from a kernel tree (package linux-source-X), CHECKPATCH=.../checkpatch.pl.
# compat.h is the one file that must test kernel versions.
CHECKPATCH ?= $(KDIR)/scripts/checkpatch.pl
CHECKPATCH_FLAGS := --no-tree --strict --quiet --show-types
style:
	@test -x $(CHECKPATCH) || { echo "$(CHECKPATCH) not found: pass CHECKPATCH=/path/to/linux/scripts/checkpatch.pl" >&2; exit 2; }
	$(CHECKPATCH) $(CHECKPATCH_FLAGS) -f $(filter-out module/compat.h,$(filter-out %.mod.c,$(wildcard module/*.[ch] tests/kunit/*.[ch])))
	$(CHECKPATCH) $(CHECKPATCH_FLAGS) --ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON -f module/compat.h

# Test tiers (README.md). Downloads and builds go to $(KVMCHURN_CACHE).
check: check-unit check-build check-vm check-debug

check-quick: check-unit check-build

check-unit:
	$(MAKE) client
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -Imodule -o tests/unit/abi_test tests/unit/abi_test.c
	$(CC) -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -shared -fPIC \
		-o tests/unit/fakekvm.so tests/unit/fakekvm.c -ldl
	tests/unit/abi_test
	KVMCHURN_CLIENT=$(CURDIR)/userspace/kvmchurn KVMCHURN_VERSION=$(VERSION) \
		KVMCHURN_FAKEKVM=$(CURDIR)/tests/unit/fakekvm.so tests/unit/run.sh

check-build:
	tests/build/run.sh $(KERNELS)

check-vm:
	tests/vm/run.sh $(KERNELS)

# The debug kernel (tests/debug): KUnit, KASAN, lockdep, kmemleak, fault scenarios.
check-debug:
	tests/debug/run.sh

.PHONY: all module client install uninstall clean style check check-quick \
	check-unit check-build check-vm check-debug kunit
