// SPDX-License-Identifier: GPL-2.0
/*
 * qmp: one command to a QEMU over its QMP socket, the way a VMM's manager
 * sends it (45-qemu stops VMs with "quit").
 *
 *   qmp SOCKET COMMAND
 *	Connect to the unix socket SOCKET, read QEMU's greeting, negotiate
 *	(qmp_capabilities), send {"execute":"COMMAND"} and print the reply,
 *	the first line that is not an asynchronous event.
 *
 * Exit status 0 on a "return" reply, 1 on an "error" reply, 3 when nothing
 * listens on SOCKET yet (the caller waits and tries again), 2 on a usage or
 * system error or a connection closed before the reply.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static char buf[65536];
static size_t have;

/* The next line from @fd into @line (NUL-terminated, no newline); 0 at EOF. */
static int next_line(int fd, char *line, size_t size)
{
	for (;;) {
		char *nl = memchr(buf, '\n', have);
		ssize_t n;

		if (nl) {
			size_t len = nl - buf;

			if (len >= size)
				len = size - 1;
			memcpy(line, buf, len);
			line[len] = '\0';
			if (len && line[len - 1] == '\r')
				line[len - 1] = '\0';
			have -= nl + 1 - buf;
			memmove(buf, nl + 1, have);
			return 1;
		}
		if (have == sizeof(buf))
			return -1;
		n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -1 : 0;
		have += n;
	}
}

/* Read to the reply of the last command: a line that is no event. */
static int reply(int fd, char *line, size_t size)
{
	int r;

	while ((r = next_line(fd, line, size)) > 0)
		if (!strstr(line, "\"event\""))
			return 1;
	return r;
}

static int send_all(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		s += n;
		len -= n;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char line[sizeof(buf)], cmd[256];
	int fd;

	if (argc != 3 || strlen(argv[1]) >= sizeof(sa.sun_path) ||
	    strlen(argv[2]) > 64 || strpbrk(argv[2], "\"\\")) {
		fprintf(stderr, "usage: qmp SOCKET COMMAND\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, "qmp: socket: %s\n", strerror(errno));
		return 2;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		fprintf(stderr, "qmp: connect %s: %s\n", argv[1], strerror(e));
		return e == ENOENT || e == ECONNREFUSED ? 3 : 2;
	}
	if (next_line(fd, line, sizeof(line)) <= 0 || !strstr(line, "\"QMP\"")) {
		fprintf(stderr, "qmp: %s: no QMP greeting\n", argv[1]);
		return 2;
	}
	if (send_all(fd, "{\"execute\":\"qmp_capabilities\"}\n") ||
	    reply(fd, line, sizeof(line)) <= 0 || strncmp(line, "{\"return\"", 9)) {
		fprintf(stderr, "qmp: %s: qmp_capabilities refused\n", argv[1]);
		return 2;
	}
	snprintf(cmd, sizeof(cmd), "{\"execute\":\"%s\"}\n", argv[2]);
	if (send_all(fd, cmd) || reply(fd, line, sizeof(line)) <= 0) {
		fprintf(stderr, "qmp: %s: no reply to %s\n", argv[1], argv[2]);
		return 2;
	}
	puts(line);
	return strncmp(line, "{\"return\"", 9) ? 1 : 0;
}
