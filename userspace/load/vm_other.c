// SPDX-License-Identifier: GPL-2.0
/*
 * struct vm_arch on other architectures than x86_64 and arm64: every command
 * but `load` works there, and `load` says why it cannot.
 */
#if !defined(__x86_64__) && !defined(__aarch64__)
#include "vm.h"

static int other_vm_type(struct vm *vm, unsigned long *type, struct vm_error *err)
{
	(void)vm;
	*type = 0;
	return vm_fail(err, VM_STEP_OTHER, 0, "kvmchurn load knows x86_64 and arm64 only");
}

const struct vm_arch vm_arch = {
	.name = "unsupported",
	.vm_type = other_vm_type,
};
#endif
