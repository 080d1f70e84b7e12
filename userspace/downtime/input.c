// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn downtime's input: files (or standard input) read to their end, or
 * one file followed as it grows, as tail -F follows it; their lines go into
 * the assembler (migration.h) one by one.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "downtime.h"

#define KC_LINE_MAX	(1 << 20)	/* longer lines are cut: not QEMU's */
/* --follow: how often a file at its end is looked at again */
#define KC_FOLLOW_POLL_US	(200 * 1000)
/*
 * A destination postcopy's last checkpoint (its RAM) comes soon after the
 * others or not at all: after this many looks with no new line, the
 * assembler is told that the input is idle.
 */
#define KC_FOLLOW_IDLE_POLLS	10

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* SIGINT and SIGTERM end the following, and the summary is printed. */
static void catch_stop(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

/* Feeds the whole lines of buf[0..*len) and keeps the last, partial one. */
static int feed(struct downtime *dt, char *buf, size_t *len, unsigned long *lineno, bool eof)
{
	size_t start = 0;

	for (size_t i = 0; i < *len; i++) {
		if (buf[i] != '\n')
			continue;
		if (kc_mig_line(&dt->a, ++*lineno, buf + start, i - start))
			return -1;
		start = i + 1;
	}
	if (eof && start < *len) {
		if (kc_mig_line(&dt->a, ++*lineno, buf + start, *len - start))
			return -1;
		start = *len;
	}
	memmove(buf, buf + start, *len - start);
	*len -= start;
	return 0;
}

int kc_dt_read(struct downtime *dt, const char *path)
{
	const char *name = strcmp(path, "-") ? path : "stdin";
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	int rc = KC_EXIT_CANNOT_START;
	unsigned long lineno = 0;
	size_t len = 0;
	char *buf;
	ssize_t r;

	if (fd < 0) {
		kc_err("downtime", "cannot open %s: %s", path, strerror(errno));
		return KC_EXIT_CANNOT_START;
	}
	buf = malloc(KC_LINE_MAX + 1);
	if (!buf) {
		perror("kvmchurn downtime");
		goto out;
	}
	kc_mig_source(&dt->a, name);
	for (;;) {
		r = read(fd, buf + len, KC_LINE_MAX - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			kc_err("downtime", "cannot read %s: %s", name, strerror(errno));
			goto out;
		}
		len += (size_t)r;
		if (feed(dt, buf, &len, &lineno, r == 0 || len == KC_LINE_MAX)) {
			kc_err("downtime", "out of memory reading %s", name);
			goto out;
		}
		if (r == 0)
			break;
	}
	rc = KC_EXIT_OK;
out:
	free(buf);
	if (fd)
		close(fd);
	return rc;
}

/* The file being followed, and how far it was read. */
struct followed {
	const char *path, *name;
	bool is_stdin;
	int fd;
	struct stat st;		/* of the file opened */
	off_t pos;
	unsigned long lineno;
};

/* Opens the file (again); false after a message. */
static bool follow_open(struct downtime *dt, struct followed *f)
{
	f->fd = f->is_stdin ? 0 : open(f->path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &f->st)) {
		kc_err("downtime", "cannot open %s: %s", f->path, strerror(errno));
		return false;
	}
	f->pos = 0;
	f->lineno = 0;
	kc_mig_source(&dt->a, f->name);
	return true;
}

/* At its end: was the file cut short, or replaced by another? */
static bool follow_restarted(const struct followed *f)
{
	struct stat now;

	return !f->is_stdin && !stat(f->path, &now) &&
	       (now.st_ino != f->st.st_ino || now.st_dev != f->st.st_dev || now.st_size < f->pos);
}

int kc_dt_follow(struct downtime *dt, const char *path)
{
	struct followed f = { .path = path, .is_stdin = !strcmp(path, "-") };
	unsigned long idle = 0;
	size_t len = 0;
	char *buf;
	ssize_t r;

	f.name = f.is_stdin ? "stdin" : path;
	catch_stop();
	buf = malloc(KC_LINE_MAX + 1);
	if (!buf) {
		perror("kvmchurn downtime");
		return KC_EXIT_CANNOT_START;
	}
	if (!follow_open(dt, &f)) {
		free(buf);
		return KC_EXIT_CANNOT_START;
	}
	while (!stop) {
		r = read(f.fd, buf + len, KC_LINE_MAX - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			kc_err("downtime", "cannot read %s: %s", f.name, strerror(errno));
			break;
		}
		if (r > 0) {
			idle = 0;
			f.pos += r;
			len += (size_t)r;
			if (feed(dt, buf, &len, &f.lineno, len == KC_LINE_MAX)) {
				kc_err("downtime", "out of memory");
				break;
			}
			continue;
		}
		if (f.is_stdin)
			break;
		if (follow_restarted(&f)) {
			/* read again from its start: what was read of it ends here */
			feed(dt, buf, &len, &f.lineno, true);
			kc_mig_finish(&dt->a);
			close(f.fd);
			if (!follow_open(dt, &f)) {
				free(buf);
				return KC_EXIT_CANNOT_START;
			}
			continue;
		}
		if (++idle == KC_FOLLOW_IDLE_POLLS)
			kc_mig_idle(&dt->a);
		usleep(KC_FOLLOW_POLL_US);
	}
	feed(dt, buf, &len, &f.lineno, true);
	if (f.fd > 0)
		close(f.fd);
	free(buf);
	return KC_EXIT_OK;
}
