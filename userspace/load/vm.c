// SPDX-License-Identifier: GPL-2.0
/*
 * Builds and closes a Firecracker-shaped KVM VM: the steps common to all
 * architectures (see vm.h for the order and the references).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vm.h"

int vm_fail(struct vm_error *e, int step, int err, const char *fmt, ...)
{
	va_list ap;

	e->step = step;
	e->err = err;
	va_start(ap, fmt);
	vsnprintf(e->what, sizeof(e->what), fmt, ap);
	va_end(ap);
	return -1;
}

int vm_ioctl(int fd, unsigned long req, unsigned long arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

const char *vm_exit_name(uint32_t reason)
{
	switch (reason) {
	case KVM_EXIT_UNKNOWN: return "KVM_EXIT_UNKNOWN";
	case KVM_EXIT_EXCEPTION: return "KVM_EXIT_EXCEPTION";
	case KVM_EXIT_IO: return "KVM_EXIT_IO";
	case KVM_EXIT_HLT: return "KVM_EXIT_HLT";
	case KVM_EXIT_MMIO: return "KVM_EXIT_MMIO";
	case KVM_EXIT_SHUTDOWN: return "KVM_EXIT_SHUTDOWN";
	case KVM_EXIT_FAIL_ENTRY: return "KVM_EXIT_FAIL_ENTRY";
	case KVM_EXIT_INTR: return "KVM_EXIT_INTR";
	case KVM_EXIT_INTERNAL_ERROR: return "KVM_EXIT_INTERNAL_ERROR";
	case KVM_EXIT_SYSTEM_EVENT: return "KVM_EXIT_SYSTEM_EVENT";
	case KVM_EXIT_ARM_NISV: return "KVM_EXIT_ARM_NISV";
	default: return "unexpected";
	}
}

static int open_kvm(struct vm *vm, struct vm_error *err)
{
	const char *dev = vm->cfg->dev;
	int version, size;

	do
		vm->kvm_fd = open(dev, O_RDWR | O_CLOEXEC);
	while (vm->kvm_fd < 0 && errno == EINTR);
	if (vm->kvm_fd < 0)
		return vm_fail(err, VM_STEP_OPEN, errno, "open %s", dev);
	/* api.rst 4.1: refuse to run unless the version is 12. */
	version = vm_ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0);
	if (version < 0)
		return vm_fail(err, VM_STEP_API_VERSION, errno, "KVM_GET_API_VERSION");
	if (version != KVM_API_VERSION)
		return vm_fail(err, VM_STEP_API_VERSION, 0,
			       "KVM_GET_API_VERSION: version %d, expected %d",
			       version, KVM_API_VERSION);
	size = vm_ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (size < 0)
		return vm_fail(err, VM_STEP_OTHER, errno, "KVM_GET_VCPU_MMAP_SIZE");
	if ((size_t)size < sizeof(struct kvm_run))
		return vm_fail(err, VM_STEP_OTHER, 0,
			       "KVM_GET_VCPU_MMAP_SIZE: %d bytes, less than struct kvm_run",
			       size);
	vm->run_size = (size_t)size;
	return 0;
}

static int create_vm(struct vm *vm, struct vm_error *err)
{
	unsigned long type = 0;

	if (vm_arch.vm_type && vm_arch.vm_type(vm, &type, err))
		return -1;
	vm->vm_fd = vm_ioctl(vm->kvm_fd, KVM_CREATE_VM, type);
	if (vm->vm_fd < 0)
		return vm_fail(err, VM_STEP_CREATE_VM, errno, "KVM_CREATE_VM");
	return 0;
}

/* Slot 0 (memory.c maps it), populated: every page touched once. */
static int add_memory(struct vm *vm, struct vm_error *err)
{
	struct kvm_userspace_memory_region region = { 0 };
	long page = sysconf(_SC_PAGESIZE);

	if (page <= 0)
		return vm_fail(err, VM_STEP_OTHER, errno, "sysconf(_SC_PAGESIZE)");
	if (vm_memory_map(vm, err))
		return -1;

	region.slot = 0;
	region.guest_phys_addr = vm_arch.mem_base;
	region.memory_size = vm->mem_size;
	region.userspace_addr = (uintptr_t)vm->mem;
	if (vm_ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, (unsigned long)&region))
		return vm_fail(err, VM_STEP_OTHER, errno, "KVM_SET_USER_MEMORY_REGION");

	vm_memory_populate(vm, (size_t)page);
	return 0;
}

static int create_vcpus(struct vm *vm, struct vm_error *err)
{
	unsigned int n = vm->cfg->vcpus;

	vm->vcpus = calloc(n, sizeof(*vm->vcpus));
	if (!vm->vcpus)
		return vm_fail(err, VM_STEP_OTHER, errno, "allocating %u vCPUs", n);
	for (unsigned int i = 0; i < n; i++) {
		struct vcpu *c = &vm->vcpus[i];
		void *run;

		c->vm = vm;
		c->id = i;
		c->fd = vm_ioctl(vm->vm_fd, KVM_CREATE_VCPU, i);
		if (c->fd < 0)
			return vm_fail(err, VM_STEP_OTHER, errno, "KVM_CREATE_VCPU (vcpu %u)", i);
		vm->nr_vcpus++;
		run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
		if (run == MAP_FAILED)
			return vm_fail(err, VM_STEP_OTHER, errno, "mmap of kvm_run (vcpu %u)", i);
		c->run = run;
	}
	/* api.rst 4.82: all vCPUs exist before the first KVM_ARM_VCPU_INIT. */
	for (unsigned int i = 0; i < n; i++)
		if (vm_arch.vcpu_init && vm_arch.vcpu_init(vm, &vm->vcpus[i], err))
			return -1;
	return 0;
}

/* api.rst 4.75: GSI i for irqfd i; on arm64, after the vGIC is initialized. */
static int add_irqfds(struct vm *vm, struct vm_error *err)
{
	unsigned int n = vm->cfg->irqfds;

	if (!n)
		return 0;
	vm->irqfds = calloc(n, sizeof(*vm->irqfds));
	if (!vm->irqfds)
		return vm_fail(err, VM_STEP_OTHER, errno, "allocating %u irqfds", n);
	for (unsigned int i = 0; i < n; i++) {
		struct kvm_irqfd irqfd = { 0 };
		int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

		if (fd < 0)
			return vm_fail(err, VM_STEP_OTHER, errno, "eventfd (irqfd %u)", i);
		vm->irqfds[vm->nr_irqfds++] = fd;
		irqfd.fd = (uint32_t)fd;
		irqfd.gsi = i;
		if (vm_ioctl(vm->vm_fd, KVM_IRQFD, (unsigned long)&irqfd))
			return vm_fail(err, VM_STEP_OTHER, errno, "KVM_IRQFD (irqfd %u)", i);
	}
	return 0;
}

static void run_once(struct vcpu *c)
{
	if (vm_ioctl(c->fd, KVM_RUN, 0)) {
		vm_fail(&c->err, VM_STEP_OTHER, errno, "KVM_RUN (vcpu %u)", c->id);
		c->failed = true;
		return;
	}
	if (vm_arch.check_exit && vm_arch.check_exit(c, &c->err))
		c->failed = true;
}

/* A vCPU thread: named like Firecracker's, runs once if asked, then parks. */
static void *vcpu_thread(void *arg)
{
	struct vcpu *c = arg;
	struct vm *vm = c->vm;
	char name[16];
	int e;

	snprintf(name, sizeof(name), "fc_vcpu %u", c->id);
	e = pthread_setname_np(pthread_self(), name);
	if (e) {
		vm_fail(&c->err, VM_STEP_OTHER, e, "pthread_setname_np (vcpu %u)", c->id);
		c->failed = true;
	} else if (vm->cfg->run) {
		run_once(c);
	}

	pthread_mutex_lock(&vm->lock);
	vm->nr_parked++;
	pthread_cond_broadcast(&vm->cond);
	while (!vm->stop)
		pthread_cond_wait(&vm->cond, &vm->lock);
	pthread_mutex_unlock(&vm->lock);
	return NULL;
}

static int start_threads(struct vm *vm, struct vm_error *err)
{
	unsigned int started = 0;
	int e = 0;

	e = pthread_mutex_init(&vm->lock, NULL);
	if (!e) {
		e = pthread_cond_init(&vm->cond, NULL);
		if (e)
			pthread_mutex_destroy(&vm->lock);
	}
	if (e)
		return vm_fail(err, VM_STEP_OTHER, e, "initializing the vCPU thread lock");
	vm->sync_ready = true;

	for (; started < vm->nr_vcpus; started++) {
		struct vcpu *c = &vm->vcpus[started];

		e = pthread_create(&c->thread, NULL, vcpu_thread, c);
		if (e)
			break;
		c->started = true;
	}

	pthread_mutex_lock(&vm->lock);
	while (vm->nr_parked < started)
		pthread_cond_wait(&vm->cond, &vm->lock);
	pthread_mutex_unlock(&vm->lock);

	if (e)
		return vm_fail(err, VM_STEP_OTHER, e, "pthread_create (vcpu %u)", started);
	for (unsigned int i = 0; i < vm->nr_vcpus; i++)
		if (vm->vcpus[i].failed) {
			*err = vm->vcpus[i].err;
			return -1;
		}
	return 0;
}

int vm_build(struct vm *vm, const struct vm_config *cfg, struct vm_error *err)
{
	*vm = (struct vm){ .cfg = cfg, .kvm_fd = -1, .vm_fd = -1, .dev_fd = -1,
			    .mem_fd = -1 };

	if (open_kvm(vm, err) || create_vm(vm, err) || add_memory(vm, err) ||
	    (vm_arch.before_vcpus && vm_arch.before_vcpus(vm, err)) || create_vcpus(vm, err) ||
	    (vm_arch.after_vcpus && vm_arch.after_vcpus(vm, err)) || add_irqfds(vm, err))
		return -1;
	if (cfg->run && vm_arch.load_program)
		vm_arch.load_program(vm);
	return start_threads(vm, err);
}

static void close_fd(int *fd)
{
	/* Linux releases the fd even when close() fails (EINTR included). */
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void stop_threads(struct vm *vm)
{
	if (!vm->sync_ready)
		return;
	pthread_mutex_lock(&vm->lock);
	vm->stop = true;
	pthread_cond_broadcast(&vm->cond);
	pthread_mutex_unlock(&vm->lock);
	for (unsigned int i = 0; i < vm->nr_vcpus; i++)
		if (vm->vcpus[i].started)
			pthread_join(vm->vcpus[i].thread, NULL);
	pthread_cond_destroy(&vm->cond);
	pthread_mutex_destroy(&vm->lock);
	vm->sync_ready = false;
}

/*
 * The order a VMM that shuts down cleanly would use: irqfds first (their
 * release queues the irqbypass unregister), then every vCPU (the kvm_run
 * mapping holds its file too), the irqchip device, and the VM fd, whose
 * release then drops the last reference and destroys the VM in this close().
 */
void vm_close(struct vm *vm)
{
	stop_threads(vm);
	for (unsigned int i = 0; i < vm->nr_irqfds; i++)
		close_fd(&vm->irqfds[i]);
	for (unsigned int i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *c = &vm->vcpus[i];

		if (c->run)
			munmap(c->run, vm->run_size);
		close_fd(&c->fd);
	}
	close_fd(&vm->dev_fd);
	close_fd(&vm->vm_fd);
	close_fd(&vm->kvm_fd);
	vm_memory_unmap(vm);
	free(vm->irqfds);
	free(vm->vcpus);
	*vm = (struct vm){ .kvm_fd = -1, .vm_fd = -1, .dev_fd = -1, .mem_fd = -1 };
}
