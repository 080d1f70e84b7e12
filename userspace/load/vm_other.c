// SPDX-License-Identifier: GPL-2.0
/*
 * The hooks of vm.c on other architectures than x86_64 and arm64: every
 * command but `load` works there, and `load` says why it cannot.
 */
#if !defined(__x86_64__) && !defined(__aarch64__)
#include "vm.h"

const char vm_arch_name[] = "unsupported";

unsigned int vm_arch_max_irqfds(void) { return 0; }
uint64_t vm_arch_mem_base(void) { return 0; }

int vm_arch_vm_type(struct vm *vm, unsigned long *type, struct vm_error *err)
{
	(void)vm;
	*type = 0;
	return vm_fail(err, VM_STEP_OTHER, 0,
		       "kvmchurn load knows x86_64 and arm64 only");
}

int vm_arch_before_vcpus(struct vm *vm, struct vm_error *err)
{
	(void)vm;
	(void)err;
	return 0;
}

int vm_arch_vcpu_init(struct vm *vm, struct vcpu *vcpu, struct vm_error *err)
{
	(void)vm;
	(void)vcpu;
	(void)err;
	return 0;
}

int vm_arch_after_vcpus(struct vm *vm, struct vm_error *err)
{
	(void)vm;
	(void)err;
	return 0;
}

void vm_arch_load_program(struct vm *vm)
{
	(void)vm;
}

int vm_arch_check_exit(const struct vcpu *vcpu, struct vm_error *err)
{
	(void)vcpu;
	(void)err;
	return 0;
}
#endif
