// SPDX-License-Identifier: GPL-2.0
/*
 * forkexit N: N times fork(), the child _exit()s at once, the parent
 * waitpid()s it; prints the mean nanoseconds of one round trip. The exits
 * are what kvmchurn's exit_files/exit_mmap kretprobes and sched/signal
 * tracepoint probes see on every process of a host, traced or not.
 */
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

	if (n <= 0) {
		fprintf(stderr, "usage: forkexit N\n");
		return 64;
	}
	/* a name no filter of the benchmark matches */
	prctl(PR_SET_NAME, "bench-forkexit");
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
