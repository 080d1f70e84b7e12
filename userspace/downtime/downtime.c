// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn downtime: a QEMU migration's downtime, checkpoint by checkpoint,
 * from the vmstate_downtime_* trace events of QEMU 8.2 and later
 * (migration.h), over one migration or many; and switching those events on
 * or off in a running QEMU over QMP (qmp.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "migration.h"
#include "commands.h"
#include "lib/prom.h"
#include "lib/view.h"
#include "qmp.h"

const char downtime_usage[] =
	"Usage: kvmchurn downtime [--json | --prometheus [-o FILE]] [--hist] [FILE...]\n"
	"       kvmchurn downtime --follow [--json] [FILE]\n"
	"       kvmchurn downtime --qmp SOCKET --enable | --disable\n"
	"\n"
	"Reads QEMU trace output (the log backend: -D FILE, QEMU's stderr, a libvirt\n"
	"domain log; standard input when no FILE is given or FILE is -) and reports\n"
	"each migration's downtime from QEMU's vmstate_downtime_* events (QEMU 8.2 and\n"
	"later, switched on with -trace 'vmstate_downtime*' or --qmp ... --enable):\n"
	"\n"
	"  each migration, one a side (src: the source, dst: the destination) and\n"
	"  mode (precopy, postcopy): its checkpoints in order with the time from each\n"
	"  to the next, the total from the first to the last, and its slowest devices\n"
	"  (vmstate_downtime_save and _load); then, over all migrations, the summary\n"
	"  columns of 'kvmchurn summary' for each segment and each device.\n"
	"\n"
	"Line forms: TID@SEC.USEC:EVENT ARGS (-msg timestamp=on, QEMU up to 10),\n"
	"YYYY-MM-DDTHH:MM:SS[.FRACTION]Z EVENT ARGS (QEMU 11), and EVENT ARGS without\n"
	"a time, which gives the order of the checkpoints and the devices but no\n"
	"times. Other lines are skipped and counted. Events are kept apart by input,\n"
	"thread and side; a migration whose first or last checkpoint is missing, that\n"
	"a new one interrupts, or whose checkpoints come out of order is shown as\n"
	"incomplete, with why, and never merged with another.\n"
	"\n"
	"Options:\n"
	"  --json          one JSON object: migrations (side, mode, complete, why,\n"
	"                  source, first_line, last_line, thread, total_us,\n"
	"                  checkpoints, segments [{from, to, us}], devices [{idstr,\n"
	"                  instance_id, type, op, us}]), segments and devices (by\n"
	"                  name: count, sum, avg, p50, p90, p99, max, in us), lines\n"
	"  --prometheus    Prometheus' text format: kvmchurn_migration_segment_seconds\n"
	"                  {side, from, to} and kvmchurn_migration_device_seconds\n"
	"                  {op, type, idstr, instance_id} histograms (le: powers of two\n"
	"                  of 1 us, to 2^36 us), kvmchurn_migrations_total{side, mode,\n"
	"                  complete}\n"
	"  -o FILE         with --prometheus: write FILE, replaced in one rename\n"
	"  --hist          also each segment's and device's histogram, in the text of\n"
	"                  'kvmchurn show'\n"
	"  --follow        keep reading FILE as it grows (from its start; a file cut\n"
	"                  short or replaced is read again from its start) and print\n"
	"                  each migration when it ends; with --json one object a line;\n"
	"                  stops on SIGINT or SIGTERM, then prints the summary\n"
	"  --qmp SOCKET    the QMP socket of a running QEMU (-qmp unix:SOCKET,...)\n"
	"  --enable        with --qmp: switch the vmstate_downtime_* events on; they\n"
	"                  go where the QEMU writes its trace (-D FILE, or stderr)\n"
	"  --disable       with --qmp: switch them off\n"
	"  -h, --help      print this help\n"
	"\n"
	"Exit status: 0; 1 when the input holds no downtime event; 2 when a FILE or\n"
	"the QMP socket cannot be read, or the QEMU has no such events (before 8.2).\n";

enum {
	OPT_JSON = 1, OPT_PROM, OPT_OUTPUT, OPT_HIST, OPT_FOLLOW, OPT_QMP,
	OPT_ENABLE, OPT_DISABLE, OPT_HELP,
};

static const struct kc_opt options[] = {
	{ OPT_JSON, 0, "json", false },
	{ OPT_PROM, 0, "prometheus", false },
	{ OPT_OUTPUT, 'o', NULL, true },
	{ OPT_HIST, 0, "hist", false },
	{ OPT_FOLLOW, 0, "follow", false },
	{ OPT_QMP, 0, "qmp", true },
	{ OPT_ENABLE, 0, "enable", false },
	{ OPT_DISABLE, 0, "disable", false },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

#define KC_SLOWEST	5	/* devices shown under each migration */
#define KC_AGG_NAME	(2 * KC_QT_NAME_LEN + 32)

/* One aggregate histogram, in us: a segment "A -> B" or a device. */
struct agg {
	char name[KC_AGG_NAME];
	enum kc_side side;		/* segments */
	char from[KC_QT_NAME_LEN], to[KC_QT_NAME_LEN];
	struct kc_device dev_copy;	/* devices: for its labels */
	struct kc_hist h;
};

struct aggs {
	struct agg *v;
	size_t n, cap;
};

struct downtime {
	bool json, prom, hist, follow;
	const char *out;
	struct kc_assembler a;
	struct kc_migration **migs;	/* batch: every migration, by seq at the end */
	size_t nmigs, cap_migs;
	struct aggs segs, devs;
	unsigned long nsrc, ndst, ncomplete;
	bool oom;
};

static struct agg *agg_get(struct aggs *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;
		struct agg *v = realloc(s->v, cap * sizeof(*v));

		if (!v)
			return NULL;
		s->v = v;
		s->cap = cap;
	}
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	snprintf(s->v[s->n].name, sizeof(s->v[s->n].name), "%s", name);
	return &s->v[s->n++];
}

static void hist_add(struct kc_hist *h, uint64_t v)
{
	h->present = true;
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	h->slots[kc_slot(v)]++;
}

static void device_name(char *buf, size_t len, const struct kc_device *d)
{
	snprintf(buf, len, "%s %s %s/%lu", d->save ? "save" : "load",
		 d->iterable ? "iterable" : "non-iterable", d->idstr, d->instance_id);
}

static void aggregate(struct downtime *dt, const struct kc_migration *m)
{
	char name[KC_AGG_NAME];
	struct agg *g;

	for (size_t i = 1; i < m->ncps; i++) {
		const struct kc_checkpoint *a = &m->cps[i - 1], *b = &m->cps[i];

		if (!a->has_time || !b->has_time || b->time_us < a->time_us)
			continue;
		snprintf(name, sizeof(name), "%s -> %s", a->name, b->name);
		g = agg_get(&dt->segs, name);
		if (!g) {
			dt->oom = true;
			return;
		}
		g->side = m->side;
		memcpy(g->from, a->name, sizeof(g->from));
		memcpy(g->to, b->name, sizeof(g->to));
		hist_add(&g->h, (uint64_t)(b->time_us - a->time_us));
	}
	for (size_t i = 0; i < m->ndevs; i++) {
		device_name(name, sizeof(name), &m->devs[i]);
		g = agg_get(&dt->devs, name);
		if (!g) {
			dt->oom = true;
			return;
		}
		g->dev_copy = m->devs[i];
		hist_add(&g->h, m->devs[i].us);
	}
	if (m->side == KC_SIDE_SRC)
		dt->nsrc++;
	else
		dt->ndst++;
	dt->ncomplete += m->complete;
}

/* ---- text ---- */

static int dev_cmp_slowest(const void *a, const void *b)
{
	const struct kc_device *x = *(const struct kc_device *const *)a;
	const struct kc_device *y = *(const struct kc_device *const *)b;

	if (x->us != y->us)
		return (x->us < y->us) - (x->us > y->us);
	/* ties in the order QEMU wrote them */
	return (x > y) - (x < y);
}

static void print_migration(const struct kc_migration *m)
{
	const struct kc_device **slow;
	int64_t total;
	size_t n;

	printf("%smigration %u%s: %s %s, ", kc_style(KC_BOLD), m->seq, kc_style(KC_OFF),
	       kc_side_name(m->side), kc_mode_name(m->mode));
	if (m->complete)
		printf("complete");
	else
		printf("%sincomplete (%s)%s", kc_style(KC_WARN), m->why, kc_style(KC_OFF));
	if (kc_migration_total(m, &total))
		printf(", %lld us", (long long)total);
	printf(" [%s:%lu-%lu", m->source, m->first_line, m->last_line);
	if (m->has_tid)
		printf(", thread %ld", m->tid);
	printf("]\n");
	for (size_t i = 0; i < m->ncps; i++) {
		const struct kc_checkpoint *c = &m->cps[i];

		if (i && c->has_time && m->cps[i - 1].has_time)
			printf("  %-36s %+10lld us\n", c->name,
			       (long long)(c->time_us - m->cps[i - 1].time_us));
		else
			printf("  %s\n", c->name);
	}
	if (!m->ndevs)
		return;
	slow = malloc(m->ndevs * sizeof(*slow));
	if (!slow)
		return;
	for (size_t i = 0; i < m->ndevs; i++)
		slow[i] = &m->devs[i];
	qsort(slow, m->ndevs, sizeof(*slow), dev_cmp_slowest);
	n = m->ndevs < KC_SLOWEST ? m->ndevs : KC_SLOWEST;
	printf("  slowest devices (%zu of %zu):\n", n, m->ndevs);
	for (size_t i = 0; i < n; i++) {
		char name[KC_AGG_NAME];

		device_name(name, sizeof(name), slow[i]);
		printf("    %-48s %10llu us\n", name, (unsigned long long)slow[i]->us);
	}
	free(slow);
}

static const unsigned int permille[] = { 500, 900, 990 };

static int agg_cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct agg *)a)->name, ((const struct agg *)b)->name);
}

static void print_table(const char *title, const struct aggs *s)
{
	int w = (int)strlen(title);

	for (size_t i = 0; i < s->n; i++)
		if ((int)strlen(s->v[i].name) > w)
			w = (int)strlen(s->v[i].name);
	printf("%-*s %9s %11s %11s %11s %11s %11s  %s\n", w, title, "count", "avg", "p50",
	       "p90", "p99", "max", "unit");
	for (size_t i = 0; i < s->n; i++) {
		const struct kc_hist *h = &s->v[i].h;

		printf("%-*s %9llu %11llu", w, s->v[i].name, h->count, kc_hist_avg(h));
		for (size_t j = 0; j < ARRAY_SIZE(permille); j++)
			printf(" %11llu", kc_hist_pct(h, permille[j]));
		printf(" %11llu  us\n", h->max);
	}
}

static void emit(void *ctx, const char *line)
{
	(void)ctx;
	fputs(line, stdout);
}

static void print_hists(const char *map, const struct aggs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		printf("@%s[%s]: \n", map, s->v[i].name);
		kc_render_hist(s->v[i].h.slots, emit, NULL);
		putchar('\n');
	}
}

static void print_summary(struct downtime *dt)
{
	qsort(dt->segs.v, dt->segs.n, sizeof(*dt->segs.v), agg_cmp_name);
	qsort(dt->devs.v, dt->devs.n, sizeof(*dt->devs.v), agg_cmp_name);
	printf("\n%s%lu migrations (%lu src, %lu dst), %lu complete%s\n",
	       kc_style(KC_BOLD), dt->nsrc + dt->ndst, dt->nsrc, dt->ndst, dt->ncomplete,
	       kc_style(KC_OFF));
	if (dt->segs.n) {
		putchar('\n');
		print_table("segment", &dt->segs);
	}
	if (dt->devs.n) {
		putchar('\n');
		print_table("device", &dt->devs);
	}
	if (dt->hist) {
		putchar('\n');
		print_hists("segment_us", &dt->segs);
		print_hists("device_us", &dt->devs);
	}
	if (dt->a.no_time && !dt->a.has_time)
		printf("\nThe lines have no times: only the order of the checkpoints is known. QEMU\n"
		       "writes times with -msg timestamp=on.\n");
	printf("\n%lu lines: %lu downtime events, %lu other trace events, %lu skipped\n",
	       dt->a.lines, dt->a.events, dt->a.other, dt->a.skipped);
}

/* ---- JSON ---- */

static void json_migration(const struct kc_migration *m)
{
	int64_t total;

	printf("{\"seq\":%u,\"side\":\"%s\",\"mode\":\"%s\",\"complete\":%s,\"why\":",
	       m->seq, kc_side_name(m->side), kc_mode_name(m->mode),
	       m->complete ? "true" : "false");
	if (m->complete)
		printf("null");
	else
		kc_json_string(stdout, m->why);
	printf(",\"source\":");
	kc_json_string(stdout, m->source);
	printf(",\"first_line\":%lu,\"last_line\":%lu,\"thread\":", m->first_line, m->last_line);
	if (m->has_tid)
		printf("%ld", m->tid);
	else
		printf("null");
	printf(",\"total_us\":");
	if (kc_migration_total(m, &total))
		printf("%lld", (long long)total);
	else
		printf("null");
	printf(",\"checkpoints\":[");
	for (size_t i = 0; i < m->ncps; i++) {
		printf("%s{\"name\":", i ? "," : "");
		kc_json_string(stdout, m->cps[i].name);
		printf(",\"time_us\":");
		if (m->cps[i].has_time)
			printf("%lld", (long long)m->cps[i].time_us);
		else
			printf("null");
		putchar('}');
	}
	printf("],\"segments\":[");
	for (size_t i = 1; i < m->ncps; i++) {
		const struct kc_checkpoint *a = &m->cps[i - 1], *b = &m->cps[i];

		printf("%s{\"from\":", i > 1 ? "," : "");
		kc_json_string(stdout, a->name);
		printf(",\"to\":");
		kc_json_string(stdout, b->name);
		printf(",\"us\":");
		if (a->has_time && b->has_time)
			printf("%lld", (long long)(b->time_us - a->time_us));
		else
			printf("null");
		putchar('}');
	}
	printf("],\"devices\":[");
	for (size_t i = 0; i < m->ndevs; i++) {
		const struct kc_device *d = &m->devs[i];

		printf("%s{\"idstr\":", i ? "," : "");
		kc_json_string(stdout, d->idstr);
		printf(",\"instance_id\":%lu,\"type\":\"%s\",\"op\":\"%s\",\"us\":%llu}",
		       d->instance_id, d->iterable ? "iterable" : "non-iterable",
		       d->save ? "save" : "load", (unsigned long long)d->us);
	}
	printf("]}");
}

static void json_aggs(const char *key, const struct aggs *s)
{
	printf("\"%s\":{", key);
	for (size_t i = 0; i < s->n; i++) {
		const struct kc_hist *h = &s->v[i].h;

		if (i)
			putchar(',');
		kc_json_string(stdout, s->v[i].name);
		printf(":{\"count\":%llu,\"sum\":%llu,\"avg\":%llu,\"p50\":%llu,\"p90\":%llu,"
		       "\"p99\":%llu,\"max\":%llu}", h->count, h->sum, kc_hist_avg(h),
		       kc_hist_pct(h, 500), kc_hist_pct(h, 900), kc_hist_pct(h, 990), h->max);
	}
	putchar('}');
}

static void print_json(struct downtime *dt)
{
	qsort(dt->segs.v, dt->segs.n, sizeof(*dt->segs.v), agg_cmp_name);
	qsort(dt->devs.v, dt->devs.n, sizeof(*dt->devs.v), agg_cmp_name);
	printf("{\"migrations\":[");
	for (size_t i = 0; i < dt->nmigs; i++) {
		if (i)
			putchar(',');
		json_migration(dt->migs[i]);
	}
	printf("],");
	json_aggs("segments", &dt->segs);
	putchar(',');
	json_aggs("devices", &dt->devs);
	printf(",\"lines\":{\"read\":%lu,\"downtime_events\":%lu,\"other_events\":%lu,"
	       "\"skipped\":%lu}}\n", dt->a.lines, dt->a.events, dt->a.other, dt->a.skipped);
}

/* ---- Prometheus ---- */

static void prom_labels(FILE *f, const struct agg *g, bool segment)
{
	char id[24];

	if (segment) {
		kc_prom_label(f, "side", kc_side_name(g->side), true);
		kc_prom_label(f, "from", g->from, false);
		kc_prom_label(f, "to", g->to, false);
		return;
	}
	snprintf(id, sizeof(id), "%lu", g->dev_copy.instance_id);
	kc_prom_label(f, "op", g->dev_copy.save ? "save" : "load", true);
	kc_prom_label(f, "type", g->dev_copy.iterable ? "iterable" : "non-iterable", false);
	kc_prom_label(f, "idstr", g->dev_copy.idstr, false);
	kc_prom_label(f, "instance_id", id, false);
}

/* le: 2^j us for j = 0..36 (bucket j of hist() holds values below 2^j), +Inf */
static void prom_hist(FILE *f, const char *family, const struct agg *g, bool segment)
{
	__u64 cum = 0;

	for (unsigned int j = 0; j <= 36; j++) {
		cum += kc_plain_count(g->h.slots, j);
		fprintf(f, "%s_bucket{", family);
		prom_labels(f, g, segment);
		fprintf(f, ",le=\"");
		kc_prom_float(f, (double)(1ULL << j) / 1e6);
		fprintf(f, "\"} %llu\n", cum);
	}
	fprintf(f, "%s_bucket{", family);
	prom_labels(f, g, segment);
	fprintf(f, ",le=\"+Inf\"} %llu\n%s_sum{", g->h.count, family);
	prom_labels(f, g, segment);
	fprintf(f, "} ");
	kc_prom_float(f, (double)g->h.sum / 1e6);
	fprintf(f, "\n%s_count{", family);
	prom_labels(f, g, segment);
	fprintf(f, "} %llu\n", g->h.count);
}

static void write_prom(FILE *f, const void *ctx)
{
	const struct downtime *dt = ctx;
	static const char seg[] = "kvmchurn_migration_segment_seconds";
	static const char dev[] = "kvmchurn_migration_device_seconds";
	unsigned long n[2][2][2] = { { { 0 } } };

	kc_prom_family(f, seg, "histogram",
		       "Time between two consecutive downtime checkpoints of a QEMU migration.");
	for (size_t i = 0; i < dt->segs.n; i++)
		prom_hist(f, seg, &dt->segs.v[i], true);
	kc_prom_family(f, dev, "histogram",
		       "Time QEMU took to save or load one device's state in a migration's downtime.");
	for (size_t i = 0; i < dt->devs.n; i++)
		prom_hist(f, dev, &dt->devs.v[i], false);
	kc_prom_family(f, "kvmchurn_migrations_total", "counter",
		       "Migrations found in the trace, by side, mode and whether all checkpoints were seen.");
	for (size_t i = 0; i < dt->nmigs; i++)
		n[dt->migs[i]->side][dt->migs[i]->mode][dt->migs[i]->complete]++;
	for (int sd = 0; sd < 2; sd++)
		for (int m = 0; m < 2; m++)
			for (int c = 0; c < 2; c++)
				fprintf(f, "kvmchurn_migrations_total{side=\"%s\",mode=\"%s\",complete=\"%s\"} %lu\n",
					kc_side_name((enum kc_side)sd), kc_mode_name((enum kc_mode)m),
					c ? "true" : "false", n[sd][m][c]);
}

/* ---- input ---- */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void done(struct kc_migration *m, void *ctx)
{
	struct downtime *dt = ctx;

	aggregate(dt, m);
	if (dt->follow) {
		if (dt->json) {
			json_migration(m);
			putchar('\n');
		} else {
			print_migration(m);
		}
		fflush(stdout);
		kc_migration_free(m);
		return;
	}
	if (dt->nmigs == dt->cap_migs) {
		size_t cap = dt->cap_migs ? 2 * dt->cap_migs : 16;
		struct kc_migration **v = realloc(dt->migs, cap * sizeof(*v));

		if (!v) {
			dt->oom = true;
			kc_migration_free(m);
			return;
		}
		dt->migs = v;
		dt->cap_migs = cap;
	}
	dt->migs[dt->nmigs++] = m;
}

/* Feeds the whole lines of buf[0..*len) and keeps the last, partial one. */
static int feed(struct downtime *dt, char *buf, size_t *len, unsigned long *lineno, bool eof)
{
	size_t start = 0;

	for (size_t i = 0; i < *len; i++) {
		if (buf[i] != '\n')
			continue;
		if (kc_asm_line(&dt->a, ++*lineno, buf + start, i - start))
			return -1;
		start = i + 1;
	}
	if (eof && start < *len) {
		if (kc_asm_line(&dt->a, ++*lineno, buf + start, *len - start))
			return -1;
		start = *len;
	}
	memmove(buf, buf + start, *len - start);
	*len -= start;
	return 0;
}

#define KC_LINE_MAX	(1 << 20)	/* longer lines are cut: not QEMU's */

static int read_input(struct downtime *dt, const char *path)
{
	const char *name = strcmp(path, "-") ? path : "stdin";
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	unsigned long lineno = 0;
	size_t len = 0;
	char *buf;
	ssize_t r;

	if (fd < 0) {
		fprintf(stderr, "kvmchurn downtime: cannot open %s: %s\n", path, strerror(errno));
		return KC_EXIT_CANNOT_START;
	}
	buf = malloc(KC_LINE_MAX + 1);
	if (!buf) {
		perror("kvmchurn downtime");
		goto fail;
	}
	kc_asm_source(&dt->a, name);
	for (;;) {
		r = read(fd, buf + len, KC_LINE_MAX - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "kvmchurn downtime: cannot read %s: %s\n", name, strerror(errno));
			goto fail;
		}
		len += (size_t)r;
		if (feed(dt, buf, &len, &lineno, r == 0 || len == KC_LINE_MAX))
			goto oom;
		if (r == 0)
			break;
	}
	free(buf);
	if (fd)
		close(fd);
	return KC_EXIT_OK;
oom:
	fprintf(stderr, "kvmchurn downtime: out of memory reading %s\n", name);
fail:
	free(buf);
	if (fd)
		close(fd);
	return KC_EXIT_CANNOT_START;
}

/* --follow: reads @path as it grows, as tail -F does, until a signal. */
static int follow(struct downtime *dt, const char *path)
{
	const char *name = strcmp(path, "-") ? path : "stdin";
	bool is_stdin = !strcmp(path, "-");
	unsigned long lineno = 0, idle = 0;
	struct stat st, now;
	size_t len = 0;
	off_t pos = 0;
	int fd = -1;
	char *buf;
	ssize_t r;
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	buf = malloc(KC_LINE_MAX + 1);
	if (!buf) {
		perror("kvmchurn downtime");
		return KC_EXIT_CANNOT_START;
	}
	kc_asm_source(&dt->a, name);
	while (!stop) {
		if (fd < 0) {
			fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0 || fstat(fd, &st)) {
				fprintf(stderr, "kvmchurn downtime: cannot open %s: %s\n", path,
					strerror(errno));
				free(buf);
				return KC_EXIT_CANNOT_START;
			}
			pos = 0;
		}
		r = read(fd, buf + len, KC_LINE_MAX - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "kvmchurn downtime: cannot read %s: %s\n", name, strerror(errno));
			break;
		}
		if (r > 0) {
			idle = 0;
			pos += r;
			len += (size_t)r;
			if (feed(dt, buf, &len, &lineno, len == KC_LINE_MAX)) {
				fprintf(stderr, "kvmchurn downtime: out of memory\n");
				break;
			}
			continue;
		}
		if (is_stdin && r == 0)
			break;
		/* at the end: a file cut short or replaced is read again from its start */
		if (!stat(path, &now) && (now.st_ino != st.st_ino || now.st_dev != st.st_dev ||
					  now.st_size < pos)) {
			feed(dt, buf, &len, &lineno, true);
			kc_asm_finish(&dt->a);
			close(fd);
			fd = -1;
			lineno = 0;
			kc_asm_source(&dt->a, name);
			continue;
		}
		/* a destination postcopy's RAM line comes soon after its end, or not at all */
		if (++idle == 10)
			kc_asm_idle(&dt->a);
		usleep(200 * 1000);
	}
	feed(dt, buf, &len, &lineno, true);
	if (fd > 0)
		close(fd);
	free(buf);
	return KC_EXIT_OK;
}

static int seq_cmp(const void *a, const void *b)
{
	unsigned int x = (*(struct kc_migration *const *)a)->seq;
	unsigned int y = (*(struct kc_migration *const *)b)->seq;

	return (x > y) - (x < y);
}

int cmd_downtime(int argc, char *argv[], const struct kc_global *g)
{
	struct downtime dt = { .out = "-" };
	const char *qmp = NULL;
	int enable = -1, id, rc = KC_EXIT_OK;
	struct kc_opt_parser p;

	(void)g;
	kc_opt_init(&p, "downtime", argc, argv, 1);
	while ((id = kc_opt_next(&p, options)) != KC_OPT_END) {
		switch (id) {
		case KC_OPT_ERROR:
			return KC_EXIT_USAGE;
		case OPT_HELP:
			fputs(downtime_usage, stdout);
			return KC_EXIT_OK;
		case OPT_JSON:
			dt.json = true;
			break;
		case OPT_PROM:
			dt.prom = true;
			break;
		case OPT_OUTPUT:
			if (!*p.value)
				return kc_usage_error("downtime", "invalid value '' for -o: expected a file name");
			dt.out = p.value;
			break;
		case OPT_HIST:
			dt.hist = true;
			break;
		case OPT_FOLLOW:
			dt.follow = true;
			break;
		case OPT_QMP:
			if (!*p.value)
				return kc_usage_error("downtime", "invalid value '' for --qmp: expected a socket path");
			qmp = p.value;
			break;
		case OPT_ENABLE:
		case OPT_DISABLE:
			if (enable >= 0)
				return kc_usage_error("downtime", "--enable and --disable go alone");
			enable = id == OPT_ENABLE;
			break;
		}
	}
	if (qmp || enable >= 0) {
		if (!qmp || enable < 0)
			return kc_usage_error("downtime", "--qmp SOCKET goes with --enable or --disable");
		if (dt.json || dt.prom || dt.hist || dt.follow || p.index < argc)
			return kc_usage_error("downtime", "--qmp takes no other option and no FILE");
		return kc_qmp_trace_downtime(qmp, enable);
	}
	if (dt.json && dt.prom)
		return kc_usage_error("downtime", "--json and --prometheus go alone");
	if (strcmp(dt.out, "-") && !dt.prom)
		return kc_usage_error("downtime", "-o goes with --prometheus");
	if (dt.follow && (dt.prom || dt.hist))
		return kc_usage_error("downtime", "--follow goes with --json only");
	if (dt.follow && argc - p.index > 1)
		return kc_usage_error("downtime", "--follow reads one FILE");

	kc_asm_init(&dt.a, done, &dt);
	if (dt.follow) {
		rc = follow(&dt, p.index < argc ? argv[p.index] : "-");
	} else if (p.index == argc) {
		rc = read_input(&dt, "-");
	} else {
		for (int i = p.index; i < argc && !rc; i++)
			rc = read_input(&dt, argv[i]);
	}
	kc_asm_finish(&dt.a);
	if (dt.oom) {
		fprintf(stderr, "kvmchurn downtime: out of memory\n");
		rc = KC_EXIT_CANNOT_START;
	}
	if (rc)
		goto out;
	qsort(dt.migs, dt.nmigs, sizeof(*dt.migs), seq_cmp);
	if (!dt.a.events) {
		fprintf(stderr, "kvmchurn downtime: no vmstate_downtime_* event in %lu lines (%lu other trace events):\n"
			"QEMU 8.2 and later write them once switched on, with -trace 'vmstate_downtime*'\n"
			"or 'kvmchurn downtime --qmp SOCKET --enable'; QEMU 7.2 and older have none.\n",
			dt.a.lines, dt.a.other);
		rc = KC_EXIT_FAILURES;
		goto out;
	}
	if (dt.follow) {
		if (!dt.json)
			print_summary(&dt);
	} else if (dt.prom) {
		rc = kc_write_output("downtime", dt.out, write_prom, &dt);
	} else if (dt.json) {
		print_json(&dt);
	} else {
		for (size_t i = 0; i < dt.nmigs; i++) {
			if (i)
				putchar('\n');
			print_migration(dt.migs[i]);
		}
		print_summary(&dt);
	}
out:
	for (size_t i = 0; i < dt.nmigs; i++)
		kc_migration_free(dt.migs[i]);
	free(dt.migs);
	free(dt.segs.v);
	free(dt.devs.v);
	return rc;
}
