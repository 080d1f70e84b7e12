// SPDX-License-Identifier: GPL-2.0
/*
 * ctlfuzz DIR SEED WRITES: WRITES random writes that the module must refuse,
 * to DIR's three control files (filter, enable, reset) in turn: random bytes
 * of 0 to 8 KiB, NUL bytes among them, tails of a buffer written from a
 * random offset, and runs of one-byte writes on one open file. A buffer the
 * module would take (the rules of Documentation/ABI.rst, written again here
 * as the test's oracle) is never written: it is counted as skipped. Every
 * write must fail with EINVAL (a write of 0 bytes may also return 0), and
 * after each, filter and enable must read what they read at the start.
 *
 * Prints one "# " line of counts; exit status 0 when every write was refused
 * and nothing changed, 1 when not (each one said on stderr), 2 on a usage or
 * system error.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAXLEN		8192
#define WRITE_MAX	256	/* debugfs.c: 255 bytes and a terminator */
#define COMM_LEN	16
#define MAX_NAMES	8

enum ctl { FILTER, ENABLE, RESET, NR_CTL };
static const char *const names[NR_CTL] = { "filter", "enable", "reset" };

static uint64_t state;

static uint64_t next(void)
{
	/* xorshift64* */
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 0x2545f4914f6cdd1dULL;
}

static size_t below(size_t n)
{
	return n ? next() % n : 0;
}

/* What the module makes of a write before it parses it, as kc_parse_text(). */
static int as_text(const unsigned char *b, size_t n, char *out)
{
	if (!n || n >= WRITE_MAX || memchr(b, '\0', n))
		return -1;
	memcpy(out, b, n);
	out[n] = '\0';
	if (out[n - 1] == '\n')
		out[n - 1] = '\0';
	return 0;
}

/* Whether the module would take @b for control @c. */
static int takes(enum ctl c, const unsigned char *b, size_t n)
{
	char t[WRITE_MAX];
	size_t nr = 0, len;
	const char *p;
	int all = 0;

	if (as_text(b, n, t))
		return 0;
	if (c == ENABLE)
		return !strcmp(t, "0") || !strcmp(t, "1");
	if (c == RESET)
		return !strcmp(t, "1");
	for (p = t; *p; p += len) {
		len = strcspn(p, " ,\t\n");
		if (!len) {
			len = 1;
			continue;
		}
		if (len >= COMM_LEN || nr == MAX_NAMES)
			return 0;
		all |= len == 1 && *p == '*';
		nr++;
	}
	return nr && !(all && nr > 1);
}

/* Random bytes, most of them from a small alphabet so that some near misses come. */
static void fill(unsigned char *b, size_t n)
{
	static const char near[] = "01*firecracker ,\t\n\0xyz";
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = next() & 1 ? (unsigned char)next() : (unsigned char)near[below(sizeof(near))];
}

static size_t pick_len(void)
{
	switch (below(6)) {
	case 0:
		return below(4);
	case 1:
		return 1 + below(16);
	case 2:
		return 16 + below(WRITE_MAX - 16);
	case 3:
		return WRITE_MAX - 2 + below(4);
	case 4:
		return WRITE_MAX + below(MAXLEN - WRITE_MAX + 1);
	default:
		return below(MAXLEN + 1);
	}
}

static int slurp(const char *dir, const char *name, char *out, size_t size)
{
	char path[512];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, out, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	out[n] = '\0';
	return 0;
}

static unsigned char buf[MAXLEN + 1];
static const char *dir;
static char filter0[512], enable0[64];
static unsigned long done, skipped, bad;
static int fd[NR_CTL];

/* One write of @len bytes at @b to @ctl: refused, and nothing changed. */
static void one_write(enum ctl ctl, const unsigned char *b, size_t len)
{
	char now[512];
	int wrong = 0;
	ssize_t r;

	if (takes(ctl, b, len)) {
		skipped++;
		return;
	}
	r = write(fd[ctl], b, len);
	done++;
	if (!(r < 0 && errno == EINVAL) && !(r == 0 && len == 0)) {
		fprintf(stderr, "ctlfuzz: %s: a write of %zu bytes returned %zd (%s), want EINVAL\n",
			names[ctl], len, r, r < 0 ? strerror(errno) : "taken");
		wrong = 1;
	}
	if (slurp(dir, "filter", now, sizeof(now)) || strcmp(now, filter0)) {
		fprintf(stderr, "ctlfuzz: filter reads '%s' after a refused write to %s\n", now, names[ctl]);
		wrong = 1;
	}
	if (slurp(dir, "enable", now, sizeof(now)) || strcmp(now, enable0)) {
		fprintf(stderr, "ctlfuzz: enable reads '%s' after a refused write to %s\n", now, names[ctl]);
		wrong = 1;
	}
	bad += wrong;
}

int main(int argc, char **argv)
{
	unsigned long writes, i, ones = 0, tails = 0;
	char path[512];
	int c;

	if (argc != 4) {
		fprintf(stderr, "usage: ctlfuzz DIR SEED WRITES\n");
		return 2;
	}
	dir = argv[1];
	state = strtoull(argv[2], NULL, 0) | 1;
	writes = strtoul(argv[3], NULL, 0);
	for (c = 0; c < NR_CTL; c++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[c]);
		fd[c] = open(path, O_WRONLY);
		if (fd[c] < 0) {
			fprintf(stderr, "ctlfuzz: %s: %s\n", path, strerror(errno));
			return 2;
		}
	}
	if (slurp(dir, "filter", filter0, sizeof(filter0)) ||
	    slurp(dir, "enable", enable0, sizeof(enable0))) {
		fprintf(stderr, "ctlfuzz: cannot read %s/filter or enable: %s\n", dir, strerror(errno));
		return 2;
	}
	for (i = 0; done < writes; i++) {
		enum ctl ctl = (enum ctl)(i % NR_CTL);
		size_t n = pick_len(), off = 0, k;

		fill(buf, n);
		if (n > 1 && below(4) == 0) {	/* the tail, from a random offset */
			off = below(n);
			tails++;
		}
		if (n > off && n - off <= 64 && below(2) == 0) {	/* one byte at a time */
			ones++;
			for (k = off; k < n && done < writes; k++)
				one_write(ctl, buf + k, 1);
		} else {
			one_write(ctl, buf + off, n - off);
		}
	}
	printf("# ctlfuzz seed %s: %lu writes, %lu refused as they must be (%lu buffers: %lu byte by byte, %lu tails); %lu the module would take, skipped\n",
	       argv[2], done, done - bad, i, ones, tails, skipped);
	return bad ? 1 : 0;
}
