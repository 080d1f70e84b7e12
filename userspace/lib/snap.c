// SPDX-License-Identifier: GPL-2.0
/*
 * The `raw` file (Documentation/ABI.rst) parsed into a snapshot, and what
 * every command derives from one: a metric's note and misses, averages,
 * percentiles, and the difference of two snapshots.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "snap.h"

#define MAX_FIELDS 16

struct parser {
	const char *cmd, *name;
	unsigned long line;
	struct kc_snap *s;
	bool seen_hist[KC_NR_METRICS], seen_counter[KC_NR_COUNTERS];
	bool seen_unit, seen_slots;
};

__attribute__((format(printf, 2, 3)))
static int bad(const struct parser *p, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "kvmchurn %s: %s: line %lu: ", p->cmd, p->name, p->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* Strict decimal (kc_parse_u64()): digits only, at most 2^64 - 1. */
static bool parse_u64(const char *s, __u64 *out)
{
	return !kc_parse_u64(s, '\0', out, NULL);
}

static int number(const struct parser *p, const char *tag, const char *what,
		  const char *field, __u64 *out)
{
	if (parse_u64(field, out))
		return 0;
	return bad(p, "%s record: %s '%s' is not a number", tag, what, field);
}

int kc_find_metric(const char *name)
{
	for (unsigned int m = 0; m < KC_NR_METRICS; m++)
		if (!strcmp(kc_metric_name(m), name))
			return (int)m;
	return -1;
}

static int find_counter(const char *name)
{
	for (unsigned int c = 0; c < KC_NR_COUNTERS; c++)
		if (!strcmp(kc_counter_name(c), name))
			return (int)c;
	return -1;
}

/*
 * The next item of a "KEY:COUNT,KEY:COUNT..." field at *@cur, cut in place:
 * *@key, and *@count after the colon (NULL without one); *@cur moves past it
 * (NULL after the last).
 */
static void list_item(char **cur, char **key, char **count)
{
	char *next = strchr(*cur, ',');

	if (next)
		*next++ = '\0';
	*key = *cur;
	*cur = next;
	*count = strchr(*key, ':');
	if (*count)
		*(*count)++ = '\0';
}

/* "slot:count,slot:count" or "-". */
static int parse_slots(const struct parser *p, const char *name, char *list,
		       struct kc_hist *h)
{
	char *cur = list, *item, *count;

	if (!strcmp(list, "-"))
		return 0;
	while (cur) {
		__u64 slot, n;

		list_item(&cur, &item, &count);
		if (!count || !parse_u64(item, &slot) || !parse_u64(count, &n))
			return bad(p, "hist record of %s: '%s%s%s' is not slot:count",
				   name, item, count ? ":" : "", count ? count : "");
		if (slot >= KC_NR_SLOTS)
			return bad(p, "hist record of %s: slot %llu is past the last one, %d",
				   name, slot, KC_NR_SLOTS - 1);
		h->slots[slot] += n;
	}
	return 0;
}

static int need(const struct parser *p, const char *tag, int nf, int min)
{
	if (nf >= min)
		return 0;
	return bad(p, "%s record: %d fields, expected %d", tag, nf - 1, min - 1);
}

static int record_hist(struct parser *p, char **f, int nf)
{
	struct kc_hist *h;
	int m;

	if (need(p, KC_RAW_HIST, nf, KC_RAW_HIST_FIELDS))
		return -1;
	m = kc_find_metric(f[1]);
	if (m < 0)
		return 0;	/* a metric of a newer module */
	if (p->seen_hist[m])
		return bad(p, "a second hist record of %s", f[1]);
	p->seen_hist[m] = true;
	h = &p->s->hist[m];
	if (number(p, KC_RAW_HIST, "count", f[2], &h->count) ||
	    number(p, KC_RAW_HIST, "sum", f[3], &h->sum) ||
	    number(p, KC_RAW_HIST, "max", f[4], &h->max) ||
	    parse_slots(p, f[1], f[5], h))
		return -1;
	h->present = true;
	return 0;
}

static int record_counter(struct parser *p, char **f, int nf)
{
	int c;

	if (need(p, KC_RAW_COUNTER, nf, KC_RAW_COUNTER_FIELDS))
		return -1;
	c = find_counter(f[1]);
	if (c < 0)
		return 0;
	if (p->seen_counter[c])
		return bad(p, "a second counter record of %s", f[1]);
	p->seen_counter[c] = true;
	if (number(p, KC_RAW_COUNTER, f[1], f[2], &p->s->counter[c]))
		return -1;
	return 0;
}

static int copy_field(const struct parser *p, const char *tag, const char *what,
		      char *dst, size_t size, const char *src)
{
	if (!*src)
		return bad(p, "%s record: empty %s", tag, what);
	if (strlen(src) >= size)
		return bad(p, "%s record: %s longer than %zu characters", tag,
			   what, size - 1);
	strcpy(dst, src);
	return 0;
}

static int record_probe(struct parser *p, char **f, int nf)
{
	struct kc_snap *s = p->s;
	struct kc_probe_status *pr;

	if (need(p, KC_RAW_PROBE, nf, KC_RAW_PROBE_FIELDS))
		return -1;
	if (s->nprobes % 16 == 0) {
		pr = realloc(s->probes, (s->nprobes + 16) * sizeof(*pr));
		if (!pr)
			return bad(p, "%s", strerror(errno));
		s->probes = pr;
	}
	pr = &s->probes[s->nprobes];
	memset(pr, 0, sizeof(*pr));
	if (copy_field(p, KC_RAW_PROBE, "metric", pr->metric, sizeof(pr->metric), f[1]) ||
	    copy_field(p, KC_RAW_PROBE, "kind", pr->kind, sizeof(pr->kind), f[2]) ||
	    copy_field(p, KC_RAW_PROBE, "symbol", pr->symbol, sizeof(pr->symbol), f[3]) ||
	    copy_field(p, KC_RAW_PROBE, "state", pr->state, sizeof(pr->state), f[4]) ||
	    number(p, KC_RAW_PROBE, "hits", f[5], &pr->hits) ||
	    number(p, KC_RAW_PROBE, "missed", f[6], &pr->missed))
		return -1;
	pr->m = kc_find_metric(pr->metric);
	s->nprobes++;
	return 0;
}

static int record_pairs(struct parser *p, char **f, int nf)
{
	struct kc_snap *s = p->s;

	if (need(p, KC_RAW_PAIRS, nf, KC_RAW_PAIRS_FIELDS_V1))
		return -1;
	if (number(p, KC_RAW_PAIRS, "capacity", f[1], &s->pairs_capacity) ||
	    number(p, KC_RAW_PAIRS, "in use", f[2], &s->pairs_used) ||
	    number(p, KC_RAW_PAIRS, "dropped", f[3], &s->pairs_dropped) ||
	    number(p, KC_RAW_PAIRS, "aged out", f[4], &s->pairs_aged))
		return -1;
	/* Modules before the field was added end the record at aged out. */
	if (nf >= KC_RAW_PAIRS_FIELDS) {
		if (number(p, KC_RAW_PAIRS, "not reaped", f[5], &s->pairs_not_reaped))
			return -1;
		s->has_not_reaped = true;
	}
	s->has_pairs = true;
	return 0;
}

/* per mille:count items, or "-": how many windows @w each share named. */
static int record_accounted(struct parser *p, char **f, int nf, unsigned int w)
{
	struct kc_snap *s = p->s;
	const char *tag = kc_window_desc(w)->tag;
	char *cur = f[1], *item, *count;

	if (need(p, tag, nf, KC_RAW_ACCOUNTED_FIELDS))
		return -1;
	s->has_accounted[w] = true;
	if (!strcmp(f[1], "-"))
		return 0;
	while (cur) {
		__u64 pm, n;

		list_item(&cur, &item, &count);
		if (!count || !parse_u64(item, &pm) || !parse_u64(count, &n) || n > UINT32_MAX)
			return bad(p, "%s record: '%s%s%s' is not per-mille:count", tag,
				   item, count ? ":" : "", count ? count : "");
		if (pm > KC_PERMILLE)
			return bad(p, "%s record: %llu is above %d per mille", tag,
				   pm, KC_PERMILLE);
		s->accounted[w][pm] = (__u32)n;
	}
	return 0;
}

static int record(struct parser *p, char *line)
{
	struct kc_snap *s = p->s;
	char *f[MAX_FIELDS];
	int nf = 0;
	__u64 v;

	if (!*line)
		return bad(p, "empty line");
	/* Fields are separated by single tabs: empty fields are kept. */
	for (char *t = line;; t++) {
		if (nf < MAX_FIELDS)
			f[nf++] = t;
		t = strchr(t, '\t');
		if (!t)
			break;
		*t = '\0';
	}
	if (!strcmp(f[0], KC_RAW_UNIT)) {
		if (need(p, KC_RAW_UNIT, nf, 2))
			return -1;
		if (strcmp(f[1], "us") && strcmp(f[1], "ns"))
			return bad(p, "unit record: unknown unit '%s' (this client knows us and ns)",
				   f[1]);
		strcpy(s->unit, f[1]);
		s->unit_ns = kc_unit_ns(f[1]);
		p->seen_unit = true;
	} else if (!strcmp(f[0], KC_RAW_ENABLED)) {
		if (need(p, KC_RAW_ENABLED, nf, 2))
			return -1;
		if (strcmp(f[1], "0") && strcmp(f[1], "1"))
			return bad(p, "enabled record: '%s' is not 0 or 1", f[1]);
		s->enabled = f[1][0] - '0';
	} else if (!strcmp(f[0], KC_RAW_FILTER)) {
		if (need(p, KC_RAW_FILTER, nf, 2))
			return -1;
		if (strlen(f[1]) >= sizeof(s->filter))
			return bad(p, "filter record: longer than %zu characters",
				   sizeof(s->filter) - 1);
		strcpy(s->filter, f[1]);
		s->has_filter = true;
	} else if (!strcmp(f[0], KC_RAW_SLOTS)) {
		if (need(p, KC_RAW_SLOTS, nf, 2) || number(p, KC_RAW_SLOTS, "count", f[1], &v))
			return -1;
		if (v != KC_NR_SLOTS)
			return bad(p, "histograms of %llu slots: this client knows only %d",
				   v, KC_NR_SLOTS);
		p->seen_slots = true;
	} else if (!strcmp(f[0], KC_RAW_HIST)) {
		return record_hist(p, f, nf);
	} else if (!strcmp(f[0], KC_RAW_COUNTER)) {
		return record_counter(p, f, nf);
	} else if (!strcmp(f[0], KC_RAW_PROBE)) {
		return record_probe(p, f, nf);
	} else if (!strcmp(f[0], KC_RAW_PAIRS)) {
		return record_pairs(p, f, nf);
	} else {
		for (unsigned int w = 0; w < KC_NR_WINDOWS; w++)
			if (!strcmp(f[0], kc_window_desc(w)->tag))
				return record_accounted(p, f, nf, w);
	}
	/* Any other tag is a record of a newer module: skipped. */
	return 0;
}

static int version_line(struct parser *p, const char *line)
{
	size_t n = strlen(KC_RAW_MAGIC);
	__u64 v;

	if (strncmp(line, KC_RAW_MAGIC " ", n + 1) || !parse_u64(line + n + 1, &v))
		return bad(p, "not a kvmchurn raw file: the first line is not '%s VERSION'",
			   KC_RAW_MAGIC);
	if (v != KC_RAW_VERSION) {
		fprintf(stderr,
			"kvmchurn %s: %s is version %llu of the raw format, and this client reads only version %d: use the kvmchurn client of the module's release\n",
			p->cmd, p->name, v, KC_RAW_VERSION);
		return -1;
	}
	return 0;
}

int kc_snap_parse(const char *cmd, const char *name, const char *text,
		  size_t len, struct kc_snap *s)
{
	struct parser p = { .cmd = cmd, .name = name, .s = s };
	char *buf, *line, *end;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->enabled = -1;
	if (!len) {
		kc_err(cmd, "%s is empty: not a kvmchurn raw file", name);
		return -1;
	}
	if (memchr(text, '\0', len)) {
		p.line = 1;
		for (const char *c = text; *c; c++)
			p.line += *c == '\n';
		return bad(&p, "a NUL byte: not a text file");
	}
	buf = malloc(len + 1);
	if (!buf) {
		kc_err(cmd, "%s: %s", name, strerror(errno));
		return -1;
	}
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (line = buf; *line && !rc; line = end + 1) {
		p.line++;
		end = strchr(line, '\n');
		if (!end) {
			rc = bad(&p, "cut short (no newline at its end): the file is truncated");
			break;
		}
		*end = '\0';
		rc = p.line == 1 ? version_line(&p, line) : record(&p, line);
	}
	free(buf);
	if (!rc && (!p.seen_unit || !p.seen_slots)) {
		kc_err(cmd, "%s: no %s record: the file is incomplete", name, p.seen_unit ? KC_RAW_SLOTS : KC_RAW_UNIT);
		rc = -1;
	}
	if (rc)
		kc_snap_free(s);
	return rc;
}

void kc_snap_free(struct kc_snap *s)
{
	free(s->probes);
	s->probes = NULL;
	s->nprobes = 0;
}

const char *kc_snap_note(const struct kc_snap *s, unsigned int m)
{
	if (!s->hist[m].present)
		return "not reported";
	return kc_metric_note(s->probes, s->nprobes, m);
}

__u64 kc_snap_missed(const struct kc_snap *s, int m)
{
	return kc_metric_missed(s->probes, s->nprobes, m);
}

__u64 kc_hist_avg(const struct kc_hist *h)
{
	return kc_avg(h->sum, h->count);
}

__u64 kc_hist_pct(const struct kc_hist *h, unsigned int pct)
{
	return kc_percentile(h->slots, h->count, kc_pct_permille(pct), h->max);
}

bool kc_snap_delta(const struct kc_snap *now, const struct kc_snap *before,
		   struct kc_snap *delta)
{
	bool reset = false;
	unsigned int m, c, i;

	for (m = 0; m < KC_NR_METRICS; m++)
		for (i = 0; i < KC_NR_SLOTS; i++)
			reset |= now->hist[m].slots[i] < before->hist[m].slots[i];
	for (c = 0; c < KC_NR_COUNTERS; c++)
		reset |= now->counter[c] < before->counter[c];
	*delta = *now;
	delta->probes = NULL;
	delta->nprobes = 0;
	if (reset)
		return true;
	for (m = 0; m < KC_NR_METRICS; m++) {
		struct kc_hist *d = &delta->hist[m];
		const struct kc_hist *b = &before->hist[m];

		for (i = 0; i < KC_NR_SLOTS; i++)
			d->slots[i] -= b->slots[i];
		d->count = d->count > b->count ? d->count - b->count : 0;
		d->sum = d->sum > b->sum ? d->sum - b->sum : 0;
		/* The interval's own maximum is not known: its bound is the total's. */
	}
	for (c = 0; c < KC_NR_COUNTERS; c++)
		delta->counter[c] -= before->counter[c];
	return false;
}

__u64 kc_unit_ns(const char *unit)
{
	if (!strcmp(unit, "ns"))
		return 1;
	if (!strcmp(unit, "us"))
		return 1000;
	if (!strcmp(unit, "ms"))
		return 1000000;
	return 0;
}
