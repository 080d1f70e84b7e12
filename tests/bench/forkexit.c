// SPDX-License-Identifier: GPL-2.0
/*
 * forkexit [-m] N: N times fork(), the child _exit()s at once, the parent
 * waitpid()s it; prints the mean nanoseconds of one round trip. The exits
 * are what kvmchurn's exit_files/exit_mmap kretprobes and sched/signal
 * tracepoint probes see on every process of a host, traced or not. It runs
 * on CPU 0 only (its children too), so that where the scheduler puts a child
 * does not change what a round costs. -m marks where the N round trips
 * begin and end for make bench-count's instruction counter
 * (count/insncount.c): an instruction that does nothing, which it watches for.
 * Each mark comes after a pause, so that the RCU callbacks that free the
 * tasks exited before it (sched_process_free) have run: the marks hold the
 * frees of the N children and of no others.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* make bench-count's mark: insncount.c knows these bytes */
static void mark(void)
{
	/* a few grace periods of RCU, on an idle guest (icount: no real time) */
	const struct timespec pause = { .tv_nsec = 50 * 1000 * 1000 };

	nanosleep(&pause, NULL);
#if defined(__x86_64__)
	__asm__ volatile("xchg %%bx, %%bx" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("hint #0x2b" ::: "memory");
#else
#error "no mark for this architecture (count/insncount.c)"
#endif
}

int main(int argc, char *argv[])
{
	int marks = argc > 1 && !strcmp(argv[1], "-m");
	long n = argc == 2 + marks ? atol(argv[1 + marks]) : 0;
	long long t0, t1;
	cpu_set_t cpus;

	if (n <= 0) {
		fprintf(stderr, "usage: forkexit [-m] N\n");
		return 64;
	}
	/* a name no filter of the benchmark matches */
	prctl(PR_SET_NAME, "bench-forkexit");
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		perror("sched_setaffinity");
		return 1;
	}
	if (marks)
		mark();
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		int status;

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid) {
			perror("waitpid");
			return 1;
		}
	}
	t1 = now_ns();
	if (marks)
		mark();
	printf("%lld\n", (t1 - t0) / n);
	return 0;
}
