/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - every difference between the kernels kvmchurn supports, and
 * nothing else. The rest of the module is written against one API and
 * includes this header instead of testing versions itself.
 *
 * Tracepoint prototypes are also checked against the kernel's own
 * <trace/events/...> headers at build time (see tracepoints.c), so a
 * prototype that changes in a kernel not listed here fails the build instead
 * of corrupting arguments at run time.
 */
#ifndef KVMCHURN_COMPAT_H
#define KVMCHURN_COMPAT_H

#include <linux/version.h>

/* 6.16 added group_dead to sched_process_exit (and moved it before exit_mm). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 16, 0)
#define KC_SCHED_PROCESS_EXIT_PROTO \
	void *data, struct task_struct *p, bool group_dead
#else
#define KC_SCHED_PROCESS_EXIT_PROTO void *data, struct task_struct *p
#endif

/* 5.11 replaced kretprobe_instance::rp with get_kretprobe(). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define kc_kretprobe_of(ri) get_kretprobe(ri)
#else
#define kc_kretprobe_of(ri) ((ri)->rp)
#endif

#endif /* KVMCHURN_COMPAT_H */
