// SPDX-License-Identifier: GPL-2.0
/*
 * Small helpers shared by the commands: the clock, colour,
 * whole-file reads and output files replaced in one rename.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "client.h"

uint64_t kc_now_ns(void)
{
	struct timespec ts;

	/* CLOCK_MONOTONIC cannot fail with a valid pointer. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool kc_colour(void)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	/* https://no-color.org: present and not empty turns colour off. */
	if (no && *no)
		return false;
	if (term && !strcmp(term, "dumb"))
		return false;
	return isatty(STDOUT_FILENO);
}

int kc_read_fd(int fd, char **text, size_t *len)
{
	size_t cap = 8192, n = 0;
	char *buf = malloc(cap), *bigger;
	ssize_t got;

	if (!buf)
		return -1;
	for (;;) {
		/* room for the NUL after the text, always */
		if (n + 1 == cap) {
			/* The raw file is a few KiB; 64 MiB is not one. */
			if (cap >= 64 << 20) {
				errno = EFBIG;
				break;
			}
			bigger = realloc(buf, cap * 2);
			if (!bigger)
				break;
			buf = bigger;
			cap *= 2;
		}
		got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			break;
		if (got == 0) {
			buf[n] = '\0';
			*text = buf;
			*len = n;
			return 0;
		}
		n += (size_t)got;
	}
	free(buf);
	return -1;
}

static FILE *replace_open(const char *path, char **tmp)
{
	size_t len = strlen(path) + sizeof(".XXXXXX");
	mode_t mask;
	FILE *f;
	int fd;

	*tmp = malloc(len);
	if (!*tmp)
		return NULL;
	snprintf(*tmp, len, "%s.XXXXXX", path);
	fd = mkstemp(*tmp);
	if (fd < 0)
		goto fail;
	/* mkstemp() makes it 0600: readers such as node_exporter need 0644. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) || !(f = fdopen(fd, "w"))) {
		int err = errno;

		close(fd);
		unlink(*tmp);
		errno = err;
		goto fail;
	}
	return f;
fail:
	free(*tmp);
	*tmp = NULL;
	return NULL;
}

static int replace_commit(FILE *f, char *tmp, const char *path)
{
	int err = 0;

	errno = 0;
	if (fflush(f) || ferror(f) || fsync(fileno(f)))
		err = errno ? errno : EIO;
	if (fclose(f) && !err)
		err = errno;
	if (!err && rename(tmp, path))
		err = errno;
	if (err)
		unlink(tmp);
	free(tmp);
	errno = err;
	return err ? -1 : 0;
}

int kc_write_output(const char *cmd, const char *path,
		    void (*write)(FILE *f, const void *ctx), const void *ctx)
{
	char *tmp;
	FILE *f;

	if (!strcmp(path, "-")) {
		write(stdout, ctx);
		return KC_EXIT_OK;
	}
	f = replace_open(path, &tmp);
	if (f) {
		write(f, ctx);
		if (!replace_commit(f, tmp, path))
			return KC_EXIT_OK;
	}
	kc_err(cmd, "writing %s: %s", path, strerror(errno));
	return KC_EXIT_CANNOT_START;
}

size_t kc_split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

int kc_parse_u64(const char *s, char stop, unsigned long long *v,
		 const char **end)
{
	unsigned long long n = 0;
	const char *p = s;

	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int d = (unsigned int)(*p - '0');

		if (n > (~0ULL - d) / 10)
			return -1;
		n = n * 10 + d;
	}
	if (p == s || (*p && *p != stop))
		return -1;
	*v = n;
	if (end)
		*end = p;
	return 0;
}

int kc_parse_epoch_ns(const char *s, unsigned long long *ns)
{
	unsigned long long sec, frac;
	const char *dot;

	if (kc_parse_u64(s, '.', &sec, &dot) || *dot != '.' ||
	    strlen(dot + 1) != 9 || kc_parse_u64(dot + 1, '\0', &frac, NULL) ||
	    sec > (~0ULL - frac) / 1000000000ULL)
		return -1;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}
