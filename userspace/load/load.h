/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmchurn load: the options (load.c) and the pool of VM processes that
 * runs them (pool.c).
 */
#ifndef KVMCHURN_LOAD_H
#define KVMCHURN_LOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/client.h"
#include "vm.h"

enum load_end {
	LOAD_END_EXIT,		/* the VM process exits by itself once ready */
	LOAD_END_TERM,		/* SIGTERM once ready */
	LOAD_END_KILL,		/* SIGKILL once ready */
	LOAD_END_CLOSE,		/* the VM process closes its fds, then exits */
};

struct load_opts {
	unsigned long count;	/* -n: VMs in total, 0 with -t */
	unsigned long seconds;	/* -t: start VMs for this long, 0 with -n */
	unsigned long parallel;	/* -j */
	unsigned long timeout;	/* --timeout, seconds */
	enum load_end end;
	bool term_default;	/* --term-default: no SIGTERM handler */
	unsigned long kill_after;	/* --kill-after: SIGKILL after SIGTERM, s; 0: never */
	bool ignore_term;	/* --ignore-term: the VM ignores SIGTERM */
	bool together;		/* --together: end the VMs alive in waves */
	const char *comm;	/* process name of each VM */
	struct vm_config vm;
};

struct load_result {
	unsigned long started, completed, failed, aborted;
	unsigned long killed_after;	/* --kill-after: VMs SIGKILLed after the grace */
	unsigned long waves;	/* --together: how many times VMs were ended */
	int signal;		/* the signal that interrupted the run, or 0 */
	struct kc_samples create;	/* fork to ready, ns */
	struct kc_samples teardown;	/* signal or ready to reaped, ns */
	long *pids;		/* of every VM started, in that order */
	size_t npids, pids_cap;
	uint64_t wall_ns;
};

/*
 * Runs the load; returns KC_EXIT_OK, KC_EXIT_FAILURES, or
 * KC_EXIT_CANNOT_START (then *res is not worth a summary).
 */
int load_run(const struct load_opts *o, struct load_result *res);

#endif /* KVMCHURN_LOAD_H */
