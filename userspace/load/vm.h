/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A Firecracker-shaped KVM VM, built the way a VMM builds one: vm.c holds
 * the steps common to all architectures, vm_x86.c and vm_arm64.c the
 * hooks of struct vm_arch (one of them is compiled, by #if on the target).
 *
 * Order of vm_build(), following Documentation/virt/kvm/api.rst:
 *   open the device, KVM_GET_API_VERSION (must be 12), KVM_GET_VCPU_MMAP_SIZE,
 *   KVM_CREATE_VM (vm_arch.vm_type), guest memory in slot 0 (mapped as
 *   memory.c's backing says, registered, every page touched once),
 *   vm_arch.before_vcpus,
 *   KVM_CREATE_VCPU + mmap of kvm_run for every vCPU, vm_arch.vcpu_init
 *   for every vCPU (arm64: all vCPUs must exist first), vm_arch.after_vcpus,
 *   eventfds + KVM_IRQFD, then one thread per vCPU ("fc_vcpu N") that runs
 *   KVM_RUN once with --run and then parks until vm_close().
 */
#ifndef KVMCHURN_VM_H
#define KVMCHURN_VM_H

#include <linux/kvm.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Steps that get a hint of their own when the first VM fails. */
enum vm_step {
	VM_STEP_OTHER,
	VM_STEP_OPEN,
	VM_STEP_API_VERSION,
	VM_STEP_CREATE_VM,
};

struct vm_error {
	int step;		/* enum vm_step */
	int err;		/* errno, 0 if the failure is not an errno */
	char what[96];		/* "KVM_IRQFD (irqfd 3)" */
};

/* What backs guest memory (memory.c). */
enum vm_backing {
	VM_BACKING_ANON,	/* private anonymous memory */
	VM_BACKING_THP,		/* the same, 2 MiB aligned, MADV_HUGEPAGE */
	VM_BACKING_HUGETLB,	/* MAP_HUGETLB, 2 MiB pages */
	VM_BACKING_MEMFD,	/* a sealed memfd, mapped shared */
	VM_BACKING_FILE,	/* mem_file, mapped private (a snapshot) */
};

struct vm_config {
	const char *dev;	/* /dev/kvm */
	unsigned int vcpus;
	unsigned int irqfds;
	size_t mem_bytes;
	enum vm_backing backing;
	const char *mem_file;	/* VM_BACKING_FILE */
	bool run;		/* KVM_RUN each vCPU once, to its first exit */
};

struct vm;

struct vcpu {
	struct vm *vm;
	unsigned int id;
	int fd;
	struct kvm_run *run;	/* mmapped, vm->run_size bytes */
	pthread_t thread;
	bool started;		/* thread created */
	bool failed;
	struct vm_error err;	/* from the thread, when failed */
};

struct vm {
	const struct vm_config *cfg;
	int kvm_fd;
	int vm_fd;
	int dev_fd;		/* in-kernel irqchip device (arm64 vGIC), or -1 */
	size_t run_size;
	uint8_t *mem;		/* guest memory, at vm_arch.mem_base */
	size_t mem_size;
	int mem_fd;		/* the memfd behind it, or -1 */
	struct vcpu *vcpus;
	unsigned int nr_vcpus;	/* created */
	int *irqfds;
	unsigned int nr_irqfds;	/* assigned */

	/* vCPU threads report here once they have run (or not) and parked. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool sync_ready;
	unsigned int nr_parked;
	bool stop;
};

/*
 * Builds the whole VM. On failure fills *err and returns -1; the caller then
 * either exits (the kernel tears down what was built, as for a crashed VMM)
 * or calls vm_close(). Once it returns, no vCPU thread is inside KVM_RUN.
 */
int vm_build(struct vm *vm, const struct vm_config *cfg, struct vm_error *err);
/* Stops the vCPU threads, closes every fd and unmaps everything. */
void vm_close(struct vm *vm);

/* memory.c: guest memory as cfg->backing says, and the names of backings. */
int vm_memory_map(struct vm *vm, struct vm_error *err);
void vm_memory_populate(struct vm *vm, size_t page);
void vm_memory_unmap(struct vm *vm);
const char *vm_backing_name(enum vm_backing b);
int vm_backing_parse(const char *s, enum vm_backing *b);

int vm_fail(struct vm_error *e, int step, int err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* ioctl() retried on EINTR; arg is the value or the address of the argument. */
int vm_ioctl(int fd, unsigned long req, unsigned long arg);
const char *vm_exit_name(uint32_t reason);

/*
 * What the architecture does its own way: vm_x86.c, vm_arm64.c, or
 * vm_other.c elsewhere (one is compiled, by #if on the target). A hook left
 * NULL has nothing to do there; the others return 0 or fill @err.
 */
struct vm_arch {
	const char *name;
	unsigned int max_irqfds;	/* GSIs routed to the irqchip */
	uint64_t mem_base;		/* guest physical address of slot 0 */
	int (*vm_type)(struct vm *vm, unsigned long *type, struct vm_error *err);
	int (*before_vcpus)(struct vm *vm, struct vm_error *err);
	int (*vcpu_init)(struct vm *vm, struct vcpu *vcpu, struct vm_error *err);
	int (*after_vcpus)(struct vm *vm, struct vm_error *err);
	/* --run: the guest program, written at the start of guest memory */
	void (*load_program)(struct vm *vm);
	/* --run: whether the first exit is the one the program makes */
	int (*check_exit)(const struct vcpu *vcpu, struct vm_error *err);
};

extern const struct vm_arch vm_arch;

#endif /* KVMCHURN_VM_H */
