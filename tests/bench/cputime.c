// SPDX-License-Identifier: GPL-2.0
/*
 * cputime OUT CMD [ARG...]: runs CMD, waits for it, and writes to OUT the
 * CPU time in nanoseconds that CMD and every descendant it waited for ran,
 * user plus system (getrusage(RUSAGE_CHILDREN)); exits with CMD's status.
 *
 * make bench wraps `kvmchurn load` in it: the VMMs' own CPU a VM, in which
 * the kernel runs every probe of a VM's create and teardown but the free of
 * its tasks, without the kthreads' and the other processes' work that the
 * guest's busy time holds. The kernel keeps a task's user plus system time
 * equal to its exact run time (the split between the two is what is
 * sampled), and under QEMU's icount with shift 0 a nanosecond is an
 * instruction.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static long long ns(struct timeval tv)
{
	return tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
}

int main(int argc, char *argv[])
{
	struct rusage ru;
	FILE *out;
	pid_t pid;
	int status;

	if (argc < 3) {
		fprintf(stderr, "usage: cputime OUT CMD [ARG...]\n");
		return 64;
	}
	pid = fork();
	if (pid < 0) {
		perror("cputime: fork");
		return 1;
	}
	if (!pid) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "cputime: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("cputime: waitpid");
			return 1;
		}
	}
	if (getrusage(RUSAGE_CHILDREN, &ru)) {
		perror("cputime: getrusage");
		return 1;
	}
	out = fopen(argv[1], "w");
	if (!out || fprintf(out, "%lld\n", ns(ru.ru_utime) + ns(ru.ru_stime)) < 0 ||
	    fclose(out)) {
		fprintf(stderr, "cputime: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
