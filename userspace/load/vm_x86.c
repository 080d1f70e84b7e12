// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 hooks of vm.c. The VM is shaped like Firecracker's on x86: a TSS
 * address, the in-kernel irqchip (PIC, IOAPIC and a LAPIC per vCPU) before
 * any vCPU, guest memory from physical address 0. Left out: Firecracker's
 * PIT (KVM_CREATE_PIT2) and its CPUID, MSR and LINT0/1 set-up. References:
 * Documentation/virt/kvm/api.rst 4.24 KVM_CREATE_IRQCHIP (before any vCPU;
 * routes GSIs 0-23), 4.36 KVM_SET_TSS_ADDR (below 4 GiB, clear of every
 * slot), 4.39 KVM_SET_MP_STATE, 4.75 KVM_IRQFD.
 */
#if defined(__x86_64__)

#include <errno.h>
#include <string.h>

#include "vm.h"

/* Where Firecracker and QEMU put it: three pages just below the BIOS. */
#define X86_TSS_ADDR	0xfffbd000UL

/* The port of the --run program's `out`: nothing in KVM emulates it. */
#define X86_EXIT_PORT	0xe9

/* Real mode needs the TSS address on Intel; the irqchip must precede vCPUs. */
static int x86_before_vcpus(struct vm *vm, struct vm_error *err)
{
	if (vm_ioctl(vm->vm_fd, KVM_SET_TSS_ADDR, X86_TSS_ADDR))
		return vm_fail(err, VM_STEP_OTHER, errno, "KVM_SET_TSS_ADDR");
	if (vm_ioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, 0))
		return vm_fail(err, VM_STEP_OTHER, errno, "KVM_CREATE_IRQCHIP");
	return 0;
}

/*
 * With --run: real mode, CS base 0, IP 0, interrupts off. With the in-kernel
 * LAPIC every vCPU but the BSP starts in KVM_MP_STATE_UNINITIALIZED, waiting
 * for INIT/SIPI, and KVM_RUN would block in the kernel: make it runnable.
 */
static int x86_vcpu_init(struct vm *vm, struct vcpu *vcpu, struct vm_error *err)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs = { .rip = 0, .rflags = 0x2 };
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };

	if (!vm->cfg->run)
		return 0;
	if (vm_ioctl(vcpu->fd, KVM_GET_SREGS, (unsigned long)&sregs))
		return vm_fail(err, VM_STEP_OTHER, errno, "KVM_GET_SREGS (vcpu %u)", vcpu->id);
	sregs.cs.base = 0;
	sregs.cs.selector = 0;
	if (vm_ioctl(vcpu->fd, KVM_SET_SREGS, (unsigned long)&sregs))
		return vm_fail(err, VM_STEP_OTHER, errno, "KVM_SET_SREGS (vcpu %u)", vcpu->id);
	if (vm_ioctl(vcpu->fd, KVM_SET_REGS, (unsigned long)&regs))
		return vm_fail(err, VM_STEP_OTHER, errno, "KVM_SET_REGS (vcpu %u)", vcpu->id);
	if (vcpu->id && vm_ioctl(vcpu->fd, KVM_SET_MP_STATE, (unsigned long)&mp))
		return vm_fail(err, VM_STEP_OTHER, errno, "KVM_SET_MP_STATE (vcpu %u)", vcpu->id);
	return 0;
}

/*
 * mov al, 'K'; out 0xe9, al; then hlt and a jump to itself, never reached.
 * Not a bare hlt: with the in-kernel LAPIC, hlt blocks in the kernel.
 */
static void x86_load_program(struct vm *vm)
{
	static const uint8_t code[] = {
		0xb0, 'K', 0xe6, X86_EXIT_PORT, 0xf4, 0xeb, 0xfe,
	};

	memcpy(vm->mem, code, sizeof(code));
}

static int x86_check_exit(const struct vcpu *vcpu, struct vm_error *err)
{
	const struct kvm_run *run = vcpu->run;

	if (run->exit_reason == KVM_EXIT_IO &&
	    run->io.direction == KVM_EXIT_IO_OUT && run->io.port == X86_EXIT_PORT)
		return 0;
	if (run->exit_reason == KVM_EXIT_IO)
		return vm_fail(err, VM_STEP_OTHER, 0,
			       "KVM_RUN (vcpu %u): I/O on port 0x%x, expected an out to 0x%x",
			       vcpu->id, run->io.port, X86_EXIT_PORT);
	return vm_fail(err, VM_STEP_OTHER, 0,
		       "KVM_RUN (vcpu %u): exit reason %u (%s), expected KVM_EXIT_IO",
		       vcpu->id, run->exit_reason, vm_exit_name(run->exit_reason));
}

/* Type 0, memory at 0 and no work after the vCPUs: the defaults. */
const struct vm_arch vm_arch = {
	.name = "x86_64",
	/* KVM_CREATE_IRQCHIP routes GSIs 0-23 (the IOAPIC pins), and only those. */
	.max_irqfds = 24,
	.before_vcpus = x86_before_vcpus,
	.vcpu_init = x86_vcpu_init,
	.load_program = x86_load_program,
	.check_exit = x86_check_exit,
};

#endif /* __x86_64__ */
