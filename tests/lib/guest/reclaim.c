// SPDX-License-Identifier: GPL-2.0
/*
 * reclaim: make the calling process stall in reclaim, from memory that can be
 * reclaimed: the clean page cache of a RAM disk (brd) it reads, never by
 * starving the guest. 50-reclaim copies it to a file named firecracker, so
 * that the stalls are those of a traced process.
 *
 *   reclaim memcg CGROUP high|max DEV
 *	Join CGROUP, read 32 MiB of DEV (page cache charged to CGROUP), set
 *	memory.LIMIT to memory.current + 1 MiB and read on until memory.events
 *	counts LIMIT: the charge beyond max reclaims in the charge itself,
 *	beyond high on the way back to user space. The limit goes back to max.
 *   reclaim direct DEV
 *	At most 16 times: read DEV until what is free is a quarter of what it
 *	was at the start (the rest has become clean page cache), raise
 *	vm.min_free_kbytes so that the largest zone's min watermark is a quarter
 *	above its free pages, read on (the page allocator finds the zone below
 *	min and reclaims directly) until /proc/vmstat's allocstall moves, 64 MiB
 *	at most, and put the old value back. kswapd, woken too, reclaims up to
 *	the high watermark, half as much again as the raised min: 7/8 of what
 *	was free, under a third of the page cache there is, so reclaim never
 *	runs short.
 *
 * What it did goes to stdout as "# " lines. Exit status 0 when it stalled,
 * 1 when it did not, 2 on a usage or system error.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024 * 1024)

static char buf[MIB];

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("reclaim: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* The first number after KEY at the start of a line of PATH (-1 if none). */
static long long file_key(const char *path, const char *key)
{
	char line[512];
	size_t n = strlen(key);
	long long v = -1;
	FILE *f = fopen(path, "r");

	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, key, n) && (line[n] == ' ' || line[n] == ':' || line[n] == '\t')) {
			v = strtoll(line + n + 1 + strspn(line + n + 1, " \t:"), NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

/* The number a file such as memory.current or a sysctl holds. */
static long long file_num(const char *path)
{
	long long v;
	FILE *f = fopen(path, "r");

	if (!f || fscanf(f, "%lld", &v) != 1)
		die("%s: %s", path, f ? "no number" : strerror(errno));
	fclose(f);
	return v;
}

static void put(const char *path, const char *fmt, ...)
{
	char s[64];
	va_list ap;
	int fd, n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY);
	if (fd < 0 || write(fd, s, n) != n)
		die("writing %s to %s: %s", s, path, strerror(errno));
	close(fd);
}

/* The sum of /proc/vmstat's allocstall_* counters: direct reclaims. */
static long long allocstall(void)
{
	char key[64];
	long long v, sum = 0;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		die("/proc/vmstat: %s", strerror(errno));
	while (fscanf(f, "%63s %lld", key, &v) == 2)
		if (!strncmp(key, "allocstall", 10))
			sum += v;
	fclose(f);
	return sum;
}

/* Read 1 MiB of DEV at *off (wrapping at its end), advancing *off. */
static void read_mib(int fd, off_t size, off_t *off)
{
	ssize_t n;

	if (*off + MIB > size)
		*off = 0;
	n = pread(fd, buf, MIB, *off);
	if (n != MIB)
		die("reading the RAM disk at %lld: %s", (long long)*off, n < 0 ? strerror(errno) : "short read");
	*off += MIB;
}

static int open_dev(const char *dev, off_t *size)
{
	int fd = open(dev, O_RDONLY);

	if (fd < 0)
		die("%s: %s", dev, strerror(errno));
	*size = lseek(fd, 0, SEEK_END);
	if (*size < 128 * MIB)
		die("%s: smaller than 128 MiB", dev);
	/* what an earlier run left in the page cache: every read below allocates */
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return fd;
}

static int memcg(const char *cg, const char *lim, const char *dev)
{
	char procs[256], cur[256], limit[256], events[256];
	long long before, now, at;
	off_t size, off = 0;
	int fd = open_dev(dev, &size), i;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cg);
	snprintf(cur, sizeof(cur), "%s/memory.current", cg);
	snprintf(limit, sizeof(limit), "%s/memory.%s", cg, lim);
	snprintf(events, sizeof(events), "%s/memory.events", cg);
	put(procs, "%d", (int)getpid());
	for (i = 0; i < 32; i++)
		read_mib(fd, size, &off);
	before = file_key(events, lim);
	at = file_num(cur) + MIB;
	put(limit, "%lld", at);
	now = before;
	for (i = 0; i < 64 && now == before; i++) {
		read_mib(fd, size, &off);
		now = file_key(events, lim);
	}
	put(limit, "max");
	printf("# memcg %s: memory.%s %lld, memory.events %s %lld -> %lld after %d MiB more\n",
	       cg, lim, at, lim, before, now, i);
	close(fd);
	return now == before;
}

struct zone {
	char name[32];
	long long free, cma, managed, min, low, high;
};

/*
 * The zone with the most managed pages, and the managed pages of all zones
 * (min_free_kbytes is shared out among them by size).
 */
static void zones(struct zone *big, long long *total)
{
	char line[256], name[32] = "";
	struct zone z = { 0 };
	/* the lines of a zone that fill z */
	const struct {
		const char *fmt;
		long long *to;
	} fields[] = {
		{ " pages free %lld", &z.free }, { " min %lld", &z.min },
		{ " low %lld", &z.low }, { " high %lld", &z.high },
		{ " managed %lld", &z.managed }, { " nr_free_cma %lld", &z.cma },
	};
	size_t i;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		die("/proc/zoneinfo: %s", strerror(errno));
	memset(big, 0, sizeof(*big));
	*total = 0;
	for (;;) {
		char *got = fgets(line, sizeof(line), f);

		if (!got || sscanf(line, "Node %*d, zone %31s", name) == 1) {
			if (z.name[0]) {
				*total += z.managed;
				if (z.managed > big->managed)
					*big = z;
			}
			if (!got)
				break;
			memset(&z, 0, sizeof(z));
			snprintf(z.name, sizeof(z.name), "%s", name);
			continue;
		}
		for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
			if (sscanf(line, fields[i].fmt, fields[i].to) == 1)
				break;
	}
	fclose(f);
	if (!big->managed)
		die("/proc/zoneinfo: no zone with managed pages");
}

static int direct(const char *dev)
{
	const char *mfk = "/proc/sys/vm/min_free_kbytes";
	long long old = file_num(mfk), page_kb = sysconf(_SC_PAGESIZE) / 1024;
	long long free0 = file_key("/proc/meminfo", "MemFree"), buffers0, s0, s, total, mark = 0;
	struct zone z, raised;
	off_t size, off = 0;
	int fd = open_dev(dev, &size), i, n;

	buffers0 = file_key("/proc/meminfo", "Buffers");
	s0 = allocstall();
	s = s0;
	for (i = 0; i < 16 && s == s0; i++) {
		/*
		 * Three quarters of what was free become clean page cache (a
		 * block device's counts as Buffers), what reclaim frees; again
		 * after each attempt, for what kswapd took.
		 */
		for (n = 0; file_key("/proc/meminfo", "MemFree") > free0 / 4 && n < size / MIB; n++)
			read_mib(fd, size, &off);
		if (!i)
			printf("# direct: read %d MiB: MemFree %lld -> %lld kB, Buffers %lld -> %lld kB\n", n,
			       free0, file_key("/proc/meminfo", "MemFree"), buffers0,
			       file_key("/proc/meminfo", "Buffers"));
		zones(&z, &total);
		/*
		 * Unmovable allocations (a block device's page cache is
		 * GFP_USER) may not use the CMA pages that are free. The min
		 * mark a quarter above them: kswapd, woken by the first
		 * allocation below low, needs tens of ms to reclaim that much,
		 * while a mark a few pages above was reclaimed in its first
		 * slice on one CPU, before the reader could stall. The smaller
		 * zones (x86's DMA) serve the reads until they are at their own
		 * min and reserve, a few MiB: so read on.
		 */
		mark = ((z.free - z.cma) * 5 / 4 * total / z.managed + 1) * page_kb;
		put(mfk, "%lld", mark);
		zones(&raised, &total);
		for (n = 0; n < 64 && s == s0; n++) {
			read_mib(fd, size, &off);
			s = allocstall();
		}
		put(mfk, "%lld", old);
	}
	printf("# direct: zone %s: %lld free (%lld CMA) of %lld pages, %lld managed; min_free_kbytes %lld -> %lld -> %lld; raised: free %lld min %lld low %lld high %lld; attempt %d, %d MiB read at the raised mark; allocstall %lld -> %lld; Buffers %lld kB\n",
	       z.name, z.free, z.cma, z.managed, total, old, mark, file_num(mfk), raised.free, raised.min,
	       raised.low, raised.high, i, n, s0, s, file_key("/proc/meminfo", "Buffers"));
	close(fd);
	return s == s0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "memcg") && (!strcmp(argv[3], "high") || !strcmp(argv[3], "max")))
		return memcg(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "direct"))
		return direct(argv[2]);
	fprintf(stderr, "usage: reclaim memcg CGROUP high|max DEV | reclaim direct DEV\n");
	return 2;
}
