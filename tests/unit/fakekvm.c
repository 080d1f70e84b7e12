// SPDX-License-Identifier: GPL-2.0
/*
 * fakekvm.so: an LD_PRELOAD stand-in for /dev/kvm, so that the unit tests
 * can drive `kvmchurn load` (its processes, pipes, ends, timeouts and
 * summary) on hosts without KVM. It knows only what the client does.
 *
 *   FAKEKVM_DEV=PATH        open(PATH) returns a fake KVM fd (PATH must exist)
 *   FAKEKVM_FAIL=IOCTL      make this ioctl fail: KVM_CREATE_VM, KVM_IRQFD,
 *                           KVM_CREATE_VCPU or KVM_RUN...
 *   FAKEKVM_ERRNO=N         with that errno (default EAGAIN)
 *   FAKEKVM_EVERY=N         ... only in every Nth VM (default 1: every VM)
 *   FAKEKVM_COUNTER=PATH    file that numbers the VMs across processes
 *                           (needed with FAKEKVM_EVERY > 1)
 *   FAKEKVM_HANG=IOCTL      block forever in this ioctl instead
 *   FAKEKVM_DELAY_MS=N      sleep this long in KVM_CREATE_VM
 *
 * Fake fds are memfds, so that mmap() of a vCPU's kvm_run works.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 4096
#define RUN_SIZE 12288

enum kind { K_NONE, K_KVM, K_VM, K_VCPU, K_DEV };

static enum kind kinds[MAX_FDS];
static unsigned long vm_ordinal;	/* this process's VM, from 1 */

static const struct {
	const char *name;
	unsigned long req;
} names[] = {
	{ "KVM_GET_API_VERSION", KVM_GET_API_VERSION },
	{ "KVM_CREATE_VM", KVM_CREATE_VM },
	{ "KVM_SET_USER_MEMORY_REGION", KVM_SET_USER_MEMORY_REGION },
	{ "KVM_CREATE_IRQCHIP", KVM_CREATE_IRQCHIP },
	{ "KVM_CREATE_VCPU", KVM_CREATE_VCPU },
	{ "KVM_IRQFD", KVM_IRQFD },
	{ "KVM_RUN", KVM_RUN },
	{ "KVM_CREATE_DEVICE", KVM_CREATE_DEVICE },
	{ "KVM_SET_DEVICE_ATTR", KVM_SET_DEVICE_ATTR },
};

static bool is(const char *env, unsigned long req)
{
	const char *v = getenv(env);

	if (!v)
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].req == req && !strcmp(names[i].name, v))
			return true;
	return false;
}

static unsigned long env_ulong(const char *env, unsigned long dflt)
{
	const char *v = getenv(env);

	return v && *v ? strtoul(v, NULL, 10) : dflt;
}

static int new_fd(enum kind k)
{
	int fd = memfd_create("fakekvm", MFD_CLOEXEC);

	if (fd < 0)
		return -1;
	if (fd >= MAX_FDS || ftruncate(fd, RUN_SIZE)) {
		close(fd);
		errno = EMFILE;
		return -1;
	}
	kinds[fd] = k;
	return fd;
}

/* Numbers this VM among all the processes that share FAKEKVM_COUNTER. */
static void count_vm(void)
{
	const char *path = getenv("FAKEKVM_COUNTER");
	unsigned long n = 0;
	char buf[32] = "";
	int fd;

	vm_ordinal = 1;
	if (!path)
		return;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX))
		abort();
	if (pread(fd, buf, sizeof(buf) - 1, 0) > 0)
		n = strtoul(buf, NULL, 10);
	vm_ordinal = ++n;
	snprintf(buf, sizeof(buf), "%lu\n", n);
	if (ftruncate(fd, 0) || pwrite(fd, buf, strlen(buf), 0) < 0)
		abort();
	close(fd);
}

static int fake_run(int fd)
{
	struct kvm_run run;

	memset(&run, 0, sizeof(run));
#if defined(__x86_64__)
	run.exit_reason = KVM_EXIT_IO;
	run.io.direction = KVM_EXIT_IO_OUT;
	run.io.port = 0xe9;
	run.io.size = 1;
#else
	run.exit_reason = KVM_EXIT_MMIO;
	run.mmio.is_write = 1;
	run.mmio.phys_addr = 0x10000000;
	run.mmio.len = 4;
#endif
	return pwrite(fd, &run, sizeof(run), 0) == sizeof(run) ? 0 : -1;
}

static int fake_ioctl(int fd, enum kind k, unsigned long req, unsigned long arg)
{
	if (is("FAKEKVM_HANG", req) && vm_ordinal % env_ulong("FAKEKVM_EVERY", 1) == 0)
		for (;;)
			pause();
	if (is("FAKEKVM_FAIL", req) && vm_ordinal % env_ulong("FAKEKVM_EVERY", 1) == 0) {
		errno = (int)env_ulong("FAKEKVM_ERRNO", EAGAIN);
		return -1;
	}
	switch (k == K_KVM ? req : 0) {
	case KVM_GET_API_VERSION:
		return KVM_API_VERSION;
	case KVM_GET_VCPU_MMAP_SIZE:
		return RUN_SIZE;
	case KVM_CHECK_EXTENSION:
		return 0;
	case KVM_CREATE_VM: {
		struct timespec ts = { 0, 0 };
		unsigned long ms = env_ulong("FAKEKVM_DELAY_MS", 0);

		ts.tv_sec = (time_t)(ms / 1000);
		ts.tv_nsec = (long)(ms % 1000) * 1000000;
		nanosleep(&ts, NULL);
		return new_fd(K_VM);
	}
	}
	if (k == K_VM && req == KVM_CREATE_VCPU)
		return new_fd(K_VCPU);
	if (k == K_VM && req == KVM_CREATE_DEVICE) {
		struct kvm_create_device *d = (void *)arg;
		int dev = new_fd(K_DEV);

		if (dev < 0)
			return -1;
		d->fd = (uint32_t)dev;
		return 0;
	}
	if (k == K_VM && req == KVM_IRQFD) {
		const struct kvm_irqfd *i = (const void *)arg;

		if (fcntl((int)i->fd, F_GETFD) < 0)
			return -1;
		return 0;
	}
	if (k == K_VCPU && req == KVM_RUN)
		return fake_run(fd);
	if (k == K_VCPU && req == KVM_GET_SREGS) {
		memset((void *)arg, 0, sizeof(struct kvm_sregs));
		return 0;
	}
	return 0;	/* every other set-up ioctl succeeds */
}

int ioctl(int fd, unsigned long req, ...)
{
	static int (*real)(int, unsigned long, ...);
	unsigned long arg;
	va_list ap;

	va_start(ap, req);
	arg = va_arg(ap, unsigned long);
	va_end(ap);
	if (fd >= 0 && fd < MAX_FDS && kinds[fd] != K_NONE)
		return fake_ioctl(fd, kinds[fd], req, arg);
	if (!real)
		real = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	return real(fd, req, arg);
}

static int fake_open(const char *path, int flags, mode_t mode, const char *sym)
{
	int (*real)(const char *, int, ...);
	const char *dev = getenv("FAKEKVM_DEV");

	if (dev && !strcmp(path, dev)) {
		int fd = new_fd(K_KVM);

		if (fd >= 0)
			count_vm();
		return fd;
	}
	real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, sym);
	return real(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	return fake_open(path, flags, mode, "open");
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	va_list ap;

	va_start(ap, flags);
	if (flags & (O_CREAT | O_TMPFILE))
		mode = va_arg(ap, mode_t);
	va_end(ap);
	return fake_open(path, flags, mode, "open64");
}

int close(int fd)
{
	static int (*real)(int);

	if (fd >= 0 && fd < MAX_FDS)
		kinds[fd] = K_NONE;
	if (!real)
		real = (int (*)(int))dlsym(RTLD_NEXT, "close");
	return real(fd);
}
