# SPDX-License-Identifier: GPL-2.0
#
# What every Makefile of the project builds with, written once: the version
# (from dkms.conf, where DKMS reads it) and the C flags of the userspace
# programs (the client, the unit tests, the guests' helpers). Included by the
# Makefile and userspace/Makefile; scripts ask `make -s version`,
# `make -s cflags` and `make -s products`.

KC_BUILD_MK_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
KVMCHURN_VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' $(KC_BUILD_MK_DIR)dkms.conf)
ifeq ($(KVMCHURN_VERSION),)
$(error cannot read PACKAGE_VERSION from $(KC_BUILD_MK_DIR)dkms.conf)
endif

KC_CFLAGS_STD := -std=c11
KC_CFLAGS_WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes

# What a build leaves in the tree (patterns, as tar --exclude and .gitignore
# take them): never copied into another build's tree, where an object of
# another kernel or a host binary would look up to date. tests/unit/packaging.sh
# checks that .gitignore has each.
KC_PRODUCTS := *.o *.o.d *.ko *.mod *.mod.c .*.cmd *.order Module.symvers .tmp_versions \
	userspace/kvmchurn userspace/.flags.* \
	tests/unit/abi_test tests/unit/fakekvm.so tests/unit/qtrace_gen tests/unit/qtrace_fuzz \
	tests/unit/reader_fuzz tests/unit/reader_libfuzzer
