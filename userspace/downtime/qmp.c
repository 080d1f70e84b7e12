// SPDX-License-Identifier: GPL-2.0
/*
 * Just enough of QMP (QEMU's JSON monitor) to switch the migration downtime
 * trace events on or off: the greeting, qmp_capabilities, then
 * trace-event-get-state and trace-event-set-state on "vmstate_downtime*".
 * Replies are read a line at a time (QEMU writes one JSON object a line) and
 * asynchronous events between them are skipped.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/client.h"
#include "qmp.h"

#define KC_QMP_TIMEOUT_MS	5000
#define KC_QMP_LINE		65536
#define KC_QMP_PATTERN		"vmstate_downtime*"

struct qmp {
	const char *path;
	int fd;
	char buf[KC_QMP_LINE];
	size_t len;
};

static int qmp_fail(const struct qmp *q, const char *what)
{
	kc_err("downtime", "QMP at %s: %s", q->path, what);
	return -1;
}

/* The next line that is not an asynchronous event, NUL-terminated in q->buf. */
static int qmp_line(struct qmp *q, char **line)
{
	for (;;) {
		char *nl = memchr(q->buf, '\n', q->len);
		struct pollfd pfd = { q->fd, POLLIN, 0 };
		ssize_t r;

		if (nl) {
			size_t n = (size_t)(nl - q->buf) + 1;
			static char out[KC_QMP_LINE];

			memcpy(out, q->buf, n - 1);
			out[n - 1] = '\0';
			memmove(q->buf, q->buf + n, q->len - n);
			q->len -= n;
			if (strstr(out, "\"event\"") && !strstr(out, "\"return\"") &&
			    !strstr(out, "\"error\""))
				continue;
			*line = out;
			return 0;
		}
		if (q->len == sizeof(q->buf))
			return qmp_fail(q, "a reply longer than 64 KiB");
		r = poll(&pfd, 1, KC_QMP_TIMEOUT_MS);
		if (r == 0)
			return qmp_fail(q, "no reply in 5 s");
		if (r < 0 && errno == EINTR)
			continue;
		r = r < 0 ? -1 : read(q->fd, q->buf + q->len, sizeof(q->buf) - q->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return qmp_fail(q, r ? strerror(errno) : "the connection closed");
		q->len += (size_t)r;
	}
}

static int qmp_send(struct qmp *q, const char *cmd, char **reply)
{
	size_t n = strlen(cmd);

	if (write(q->fd, cmd, n) != (ssize_t)n)
		return qmp_fail(q, strerror(errno));
	if (qmp_line(q, reply))
		return -1;
	if (strstr(*reply, "\"error\"")) {
		kc_err("downtime", "QMP at %s refused %.*s: %s", q->path,
			(int)strcspn(cmd, "\n"), cmd, *reply);
		return -1;
	}
	return 0;
}

/* The names of the events in a trace-event-get-state reply, and how many are on. */
static size_t list_events(const char *reply, size_t *enabled, char *names, size_t size)
{
	size_t n = 0, used = 0;
	const char *p = reply;

	*enabled = 0;
	names[0] = '\0';
	while ((p = strstr(p, "\"name\""))) {
		const char *v = strchr(p + 6, '"'), *e;
		const char *obj_end = strchr(p, '}');

		if (!v || !(e = strchr(v + 1, '"')))
			break;
		if (used + (size_t)(e - v) + 2 < size) {
			used += (size_t)snprintf(names + used, size - used, "%s%.*s", n ? ", " : "",
						  (int)(e - v - 1), v + 1);
		}
		/* "state": "enabled" in the same object */
		{
			const char *st = strstr(p, "\"state\"");

			if (st && (!obj_end || st < obj_end) && strstr(st, "\"enabled\"") &&
			    strstr(st, "\"enabled\"") < (obj_end ? obj_end : st + 64))
				(*enabled)++;
		}
		n++;
		p = e + 1;
	}
	return n;
}

int kc_qmp_trace_downtime(const char *path, bool enable)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct qmp *q;
	char *reply, names[512];
	size_t n, on;
	int rc = KC_EXIT_CANNOT_START;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		kc_err("downtime", "%s: socket path too long", path);
		return KC_EXIT_CANNOT_START;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		perror("kvmchurn downtime");
		return KC_EXIT_CANNOT_START;
	}
	q->path = path;
	strcpy(sa.sun_path, path);
	q->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (q->fd < 0 || connect(q->fd, (struct sockaddr *)&sa, sizeof(sa))) {
		kc_err("downtime", "cannot connect to %s: %s: is it the socket of a QEMU's -qmp unix:%s,server=on?",
			path, strerror(errno), path);
		goto out;
	}
	if (qmp_line(q, &reply))
		goto out;
	if (!strstr(reply, "\"QMP\"")) {
		qmp_fail(q, "no QMP greeting: is it a QMP socket (not an HMP monitor)?");
		goto out;
	}
	if (qmp_send(q, "{\"execute\":\"qmp_capabilities\"}\n", &reply) ||
	    qmp_send(q, "{\"execute\":\"trace-event-get-state\",\"arguments\":{\"name\":\"" KC_QMP_PATTERN "\"}}\n", &reply))
		goto out;
	n = list_events(reply, &on, names, sizeof(names));
	if (!n) {
		kc_err("downtime", "the QEMU at %s has no vmstate_downtime_* trace events: they came with QEMU 8.2, so its migrations' downtime cannot be broken down (query-migrate gives only the total)",
			path);
		goto out;
	}
	if (qmp_send(q, enable ?
		     "{\"execute\":\"trace-event-set-state\",\"arguments\":{\"name\":\"" KC_QMP_PATTERN "\",\"enable\":true}}\n" :
		     "{\"execute\":\"trace-event-set-state\",\"arguments\":{\"name\":\"" KC_QMP_PATTERN "\",\"enable\":false}}\n",
		     &reply) ||
	    qmp_send(q, "{\"execute\":\"trace-event-get-state\",\"arguments\":{\"name\":\"" KC_QMP_PATTERN "\"}}\n", &reply))
		goto out;
	n = list_events(reply, &on, names, sizeof(names));
	if (on != (enable ? n : 0)) {
		kc_err("downtime", "QMP at %s: %zu of %zu events on after switching them %s",
			path, on, n, enable ? "on" : "off");
		goto out;
	}
	printf("%s %zu events: %s\n", enable ? "enabled" : "disabled", n, names);
	rc = KC_EXIT_OK;
out:
	if (q->fd >= 0)
		close(q->fd);
	free(q);
	return rc;
}
