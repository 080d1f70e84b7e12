// SPDX-License-Identifier: GPL-2.0
/*
 * forkexit N: N times fork(), the child _exit()s at once, the parent
 * waitpid()s it; prints the mean nanoseconds of one round trip. The exits
 * are what kvmchurn's exit_files/exit_mmap kretprobes and sched/signal
 * tracepoint probes see on every process of a host, traced or not. It runs
 * on CPU 0 only (its children too), so that where the scheduler puts a child
 * does not change what a round costs.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
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

int main(int argc, char *argv[])
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	long long t0;
	cpu_set_t cpus;

	if (n <= 0) {
		fprintf(stderr, "usage: forkexit N\n");
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
	printf("%lld\n", (now_ns() - t0) / n);
	return 0;
}
