// SPDX-License-Identifier: GPL-2.0
/*
 * kvmhold: hold one KVM VM open until SIGTERM, so that the kernel's static
 * keys that follow "some VM exists" (preempt_notifier_key) and, on x86, "some
 * vCPU's local APIC is software-disabled" (apic_sw_disabled: a vCPU with an
 * in-kernel APIC that never runs) stay on while a scenario creates and
 * destroys VMs one at a time. Each flip of such a key
 * patches kernel text under the other vCPU (text_poke_bp()), and QEMU's TCG
 * runs a stale int3 of it now and then ("Oops: int3" in
 * finish_task_switch(), a jump label's NOP): a guest crash that is QEMU's,
 * not the kernel's or the module's. Its comm, kvmhold, is no filter's.
 *
 *   kvmhold FILE
 *	Create the VM (on x86 with an in-kernel irqchip and one vCPU), then
 *	create FILE (ready), then wait for SIGTERM.
 *
 * Exit status 0 after SIGTERM, 1 when the VM cannot be made, 2 on a usage
 * error.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_term };
	sigset_t block, old;
	int kvm, vm, fd;

	if (argc != 2) {
		fprintf(stderr, "usage: kvmhold FILE\n");
		return 2;
	}
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	sigaction(SIGTERM, &sa, NULL);
	kvm = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (kvm < 0) {
		fprintf(stderr, "kvmhold: /dev/kvm: %s\n", strerror(errno));
		return 1;
	}
	do
		vm = ioctl(kvm, KVM_CREATE_VM, 0);
	while (vm < 0 && errno == EINTR);
	if (vm < 0) {
		fprintf(stderr, "kvmhold: KVM_CREATE_VM: %s\n", strerror(errno));
		return 1;
	}
#ifdef __x86_64__
	if (ioctl(vm, KVM_CREATE_IRQCHIP, 0) || ioctl(vm, KVM_CREATE_VCPU, 0) < 0) {
		fprintf(stderr, "kvmhold: KVM_CREATE_IRQCHIP or _VCPU: %s\n",
			strerror(errno));
		return 1;
	}
#endif
	fd = open(argv[1], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "kvmhold: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	close(fd);
	while (!stop)
		sigsuspend(&old);
	return 0;
}
