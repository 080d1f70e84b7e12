// SPDX-License-Identifier: GPL-2.0
/*
 * uevents: count KVM's uevents as user space receives them, the truth the
 * module's uevent_create and uevent_destroy are checked against (tracefs
 * cannot probe kobject_uevent_env(): "Could not probe notrace function").
 *
 *   uevents FILE
 *	Listen on the kernel's uevent netlink group; on SIGTERM write
 *	"create N\ndestroy M\n" to FILE: the "change" events of
 *	/devices/virtual/misc/kvm with EVENT=create and EVENT=destroy. Ready
 *	to receive once FILE.ready exists. A lost message (ENOBUFS) is an
 *	error: nothing is written, exit status 1. A kernel without netlink
 *	(no CONFIG_NET, as the debug kernel) has no truth to give: FILE says
 *	"create -\ndestroy -\n" at once, then FILE.ready, exit status 0.
 *
 * Exit status 0 when FILE was written, 1 when events were lost, 2 on a
 * usage or system error.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

/* One message: "change@/devices/...\0ACTION=change\0DEVPATH=...\0...". */
static void count(const char *msg, size_t len, unsigned long *create,
		  unsigned long *destroy)
{
	const char *p = msg, *end = msg + len;
	int kvm = 0, change = 0, ev = 0;

	for (; p < end; p += strlen(p) + 1) {
		if (!strcmp(p, "ACTION=change"))
			change = 1;
		else if (!strcmp(p, "DEVPATH=/devices/virtual/misc/kvm"))
			kvm = 1;
		else if (!strcmp(p, "EVENT=create"))
			ev = 1;
		else if (!strcmp(p, "EVENT=destroy"))
			ev = 2;
	}
	if (kvm && change && ev == 1)
		(*create)++;
	else if (kvm && change && ev == 2)
		(*destroy)++;
}

int main(int argc, char *argv[])
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = 1 };
	unsigned long create = 0, destroy = 0;
	struct sigaction act = { .sa_handler = on_term };
	int fd, rcv = 4 << 20, lost = 0;
	char ready[4096], buf[8192];
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: uevents FILE\n");
		return 2;
	}
	sigaction(SIGTERM, &act, NULL);
	snprintf(ready, sizeof(ready), "%s.ready", argv[1]);
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT);
	/* without CONFIG_NET there is no socket(2) at all: ENOSYS */
	if (fd < 0 && (errno == ENOSYS || errno == EAFNOSUPPORT ||
		       errno == EPROTONOSUPPORT)) {
		f = fopen(argv[1], "w");
		if (!f || fputs("create -\ndestroy -\n", f) < 0 || fclose(f)) {
			perror(argv[1]);
			return 2;
		}
		close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
		return 0;
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("uevents: netlink socket");
		return 2;
	}
	/* as root, past rmem_max: a burst of VMs must not overflow it */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	close(open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	while (!stop) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

		if (n < 0 && errno == ENOBUFS) {
			lost = 1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("uevents: recv");
			return 2;
		}
		buf[n] = '\0';
		count(buf, (size_t)n, &create, &destroy);
	}
	/* what came before the signal is in the socket: read it all */
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

		if (n < 0 && errno == ENOBUFS) {
			lost = 1;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		buf[n] = '\0';
		count(buf, (size_t)n, &create, &destroy);
	}
	if (lost) {
		fprintf(stderr, "uevents: messages were lost (ENOBUFS)\n");
		return 1;
	}
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "create %lu\ndestroy %lu\n", create, destroy) < 0 ||
	    fclose(f)) {
		perror(argv[1]);
		return 2;
	}
	return 0;
}
