// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 hooks of vm.c. The VM is shaped like Firecracker's on arm64: vCPUs
 * with PSCI 0.2, then a vGICv3 created and initialized once every vCPU
 * exists, guest memory at 2 GiB. Unlike Firecracker, secondary vCPUs are
 * not started with KVM_ARM_VCPU_POWER_OFF, so that --run runs them all.
 * References:
 * Documentation/virt/kvm/api.rst 4.2 KVM_CREATE_VM (IPA size),
 * 4.68 KVM_SET_ONE_REG (core registers), 4.75 KVM_IRQFD (GSI i -> SPI 32+i
 * through the default routing that KVM_DEV_ARM_VGIC_CTRL_INIT installs),
 * 4.82 KVM_ARM_VCPU_INIT (all vCPUs created first), 4.83
 * KVM_ARM_PREFERRED_TARGET; Documentation/virt/kvm/devices/arm-vgic-v3.rst
 * (addresses 64K aligned, NR_IRQS 64-1024 by 32, CTRL_INIT after all vCPUs).
 * KVM_IRQFD before CTRL_INIT fails with EAGAIN (kvm_arch_intc_initialized()).
 */
#if defined(__aarch64__)

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "vm.h"

/* Layout below 4 GiB, valid with the smallest IPA size (32 bits). */
#define ARM64_MEM_BASE		0x80000000UL	/* guest RAM, as in Firecracker */
#define ARM64_GICD_BASE		0x08000000UL	/* 64 KiB distributor */
#define ARM64_GICR_BASE		0x080a0000UL	/* 2 x 64 KiB per vCPU */
#define ARM64_MMIO_EXIT		0x10000000UL	/* --run writes here: no slot, no device */
#define ARM64_NR_IRQS		128		/* SGIs, PPIs and 96 SPIs */
#define ARM64_DEFAULT_IPA	40		/* KVM_CREATE_VM with type 0 */

/* api.rst 4.68: 0x6030 0000 0010 0040 is PC. */
#define ARM64_REG_PC (KVM_REG_ARM64 | KVM_REG_SIZE_U64 | KVM_REG_ARM_CORE | \
		      KVM_REG_ARM_CORE_REG(regs.pc))
_Static_assert(ARM64_REG_PC == 0x6030000000100040ULL, "KVM_REG_ARM_CORE PC id");

/*
 * Type 0 asks for a 40-bit IPA space, which older kernels refuse on hosts
 * whose limit is lower: ask for the host limit then (at least 32 bits).
 */
static int arm64_vm_type(struct vm *vm, unsigned long *type, struct vm_error *err)
{
	int limit = vm_ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_ARM_VM_IPA_SIZE);

	(void)err;
	*type = 0;
	if (limit > 0 && limit < ARM64_DEFAULT_IPA)
		*type = KVM_VM_TYPE_ARM_IPA_SIZE((unsigned long)limit);
	return 0;
}

static int arm64_before_vcpus(struct vm *vm, struct vm_error *err)
{
	(void)vm;
	(void)err;
	return 0;
}

static int set_one_reg(struct vcpu *vcpu, uint64_t id, uint64_t value)
{
	struct kvm_one_reg reg = { .id = id, .addr = (uintptr_t)&value };

	return vm_ioctl(vcpu->fd, KVM_SET_ONE_REG, (unsigned long)&reg);
}

/* Every vCPU powered on (no KVM_ARM_VCPU_POWER_OFF), PSCI 0.2 in the kernel. */
static int arm64_vcpu_init(struct vm *vm, struct vcpu *vcpu, struct vm_error *err)
{
	struct kvm_vcpu_init init;

	memset(&init, 0, sizeof(init));
	if (vm_ioctl(vm->vm_fd, KVM_ARM_PREFERRED_TARGET, (unsigned long)&init))
		return vm_fail(err, VM_STEP_OTHER, errno,
			       "KVM_ARM_PREFERRED_TARGET (vcpu %u)", vcpu->id);
	init.features[0] |= 1U << KVM_ARM_VCPU_PSCI_0_2;
	if (vm_ioctl(vcpu->fd, KVM_ARM_VCPU_INIT, (unsigned long)&init))
		return vm_fail(err, VM_STEP_OTHER, errno, "KVM_ARM_VCPU_INIT (vcpu %u)",
			       vcpu->id);
	if (vm->cfg->run && set_one_reg(vcpu, ARM64_REG_PC, ARM64_MEM_BASE))
		return vm_fail(err, VM_STEP_OTHER, errno, "KVM_SET_ONE_REG PC (vcpu %u)",
			       vcpu->id);
	return 0;
}

static int gic_set(struct vm *vm, uint32_t group, uint64_t attr, void *value,
		   const char *what, struct vm_error *err)
{
	struct kvm_device_attr a = {
		.group = group, .attr = attr, .addr = (uintptr_t)value,
	};

	if (vm_ioctl(vm->dev_fd, KVM_SET_DEVICE_ATTR, (unsigned long)&a))
		return vm_fail(err, VM_STEP_OTHER, errno, "KVM_SET_DEVICE_ATTR %s", what);
	return 0;
}

/* The vGICv3, as Firecracker creates it once the vCPUs exist. */
static int arm64_after_vcpus(struct vm *vm, struct vm_error *err)
{
	struct kvm_create_device dev = { .type = KVM_DEV_TYPE_ARM_VGIC_V3 };
	uint32_t nr_irqs = ARM64_NR_IRQS;
	uint64_t dist = ARM64_GICD_BASE, redist = ARM64_GICR_BASE;

	if (vm_ioctl(vm->vm_fd, KVM_CREATE_DEVICE, (unsigned long)&dev))
		return vm_fail(err, VM_STEP_OTHER, errno,
			       "KVM_CREATE_DEVICE KVM_DEV_TYPE_ARM_VGIC_V3");
	vm->dev_fd = (int)dev.fd;
	if (gic_set(vm, KVM_DEV_ARM_VGIC_GRP_NR_IRQS, 0, &nr_irqs,
		    "KVM_DEV_ARM_VGIC_GRP_NR_IRQS", err) ||
	    gic_set(vm, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_DIST, &dist,
		    "KVM_VGIC_V3_ADDR_TYPE_DIST", err) ||
	    gic_set(vm, KVM_DEV_ARM_VGIC_GRP_ADDR, KVM_VGIC_V3_ADDR_TYPE_REDIST, &redist,
		    "KVM_VGIC_V3_ADDR_TYPE_REDIST", err) ||
	    gic_set(vm, KVM_DEV_ARM_VGIC_GRP_CTRL, KVM_DEV_ARM_VGIC_CTRL_INIT, NULL,
		    "KVM_DEV_ARM_VGIC_CTRL_INIT", err))
		return -1;
	return 0;
}

/*
 * EL1, MMU off: x1 = ARM64_MMIO_EXIT; str w2, [x1] traps to KVM as a data
 * abort outside any slot, with a valid syndrome, and comes back as
 * KVM_EXIT_MMIO. Not PSCI SYSTEM_OFF: it stops every vCPU of the VM, and
 * the ones that have not yet run would then sleep inside KVM_RUN.
 */
static void arm64_load_program(struct vm *vm)
{
	static const uint32_t code[] = {
		0xd2a20001,	/* movz x1, #0x1000, lsl #16 */
		0x52800962,	/* movz w2, #'K' */
		0xb9000022,	/* str  w2, [x1] */
		0x14000000,	/* b    . */
	};
	_Static_assert(ARM64_MMIO_EXIT == 0x1000UL << 16, "movz x1 above");

	memcpy(vm->mem, code, sizeof(code));
}

static int arm64_check_exit(const struct vcpu *vcpu, struct vm_error *err)
{
	const struct kvm_run *run = vcpu->run;

	if (run->exit_reason == KVM_EXIT_MMIO && run->mmio.is_write &&
	    run->mmio.phys_addr == ARM64_MMIO_EXIT)
		return 0;
	if (run->exit_reason == KVM_EXIT_MMIO)
		return vm_fail(err, VM_STEP_OTHER, 0,
			       "KVM_RUN (vcpu %u): MMIO %s at 0x%llx, expected a write at 0x%lx",
			       vcpu->id, run->mmio.is_write ? "write" : "read",
			       (unsigned long long)run->mmio.phys_addr, ARM64_MMIO_EXIT);
	return vm_fail(err, VM_STEP_OTHER, 0,
		       "KVM_RUN (vcpu %u): exit reason %u (%s), expected KVM_EXIT_MMIO",
		       vcpu->id, run->exit_reason, vm_exit_name(run->exit_reason));
}

const struct vm_arch vm_arch = {
	.name = "arm64",
	/* SPIs 32..127 are routed from GSIs 0..95. */
	.max_irqfds = ARM64_NR_IRQS - 32,
	.mem_base = ARM64_MEM_BASE,
	.vm_type = arm64_vm_type,
	.before_vcpus = arm64_before_vcpus,
	.vcpu_init = arm64_vcpu_init,
	.after_vcpus = arm64_after_vcpus,
	.load_program = arm64_load_program,
	.check_exit = arm64_check_exit,
};

#endif /* __aarch64__ */
