// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn downtime's output: each migration and the summary tables as text,
 * one JSON object, or Prometheus' text format.
 */
#include <stdlib.h>
#include <string.h>

#include "downtime.h"
#include "lib/json.h"
#include "lib/prom.h"
#include "lib/view.h"

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

void kc_dt_print_migration(const struct kc_migration *m)
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

		kc_dt_device_name(name, sizeof(name), slow[i]);
		printf("    %-48s %10llu us\n", name, (unsigned long long)slow[i]->us);
	}
	free(slow);
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
		for (size_t j = 0; j < KC_NR_PCTS; j++)
			printf(" %11llu", kc_hist_pct(h, j));
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

void kc_dt_print_summary(const struct downtime *dt)
{
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

static void json_checkpoints(struct kc_json *j, const struct kc_migration *m)
{
	kc_json_array(j, "checkpoints");
	for (size_t i = 0; i < m->ncps; i++) {
		kc_json_object(j, NULL);
		kc_json_str(j, "name", m->cps[i].name);
		if (m->cps[i].has_time)
			kc_json_int(j, "time_us", m->cps[i].time_us);
		else
			kc_json_null(j, "time_us");
		kc_json_end(j);
	}
	kc_json_end(j);
	kc_json_array(j, "segments");
	for (size_t i = 1; i < m->ncps; i++) {
		const struct kc_checkpoint *a = &m->cps[i - 1], *b = &m->cps[i];

		kc_json_object(j, NULL);
		kc_json_str(j, "from", a->name);
		kc_json_str(j, "to", b->name);
		if (a->has_time && b->has_time)
			kc_json_int(j, "us", b->time_us - a->time_us);
		else
			kc_json_null(j, "us");
		kc_json_end(j);
	}
	kc_json_end(j);
}

void kc_dt_json_migration(struct kc_json *j, const struct kc_migration *m)
{
	int64_t total;

	kc_json_object(j, NULL);
	kc_json_uint(j, "seq", m->seq);
	kc_json_str(j, "side", kc_side_name(m->side));
	kc_json_str(j, "mode", kc_mode_name(m->mode));
	kc_json_bool(j, "complete", m->complete);
	kc_json_str(j, "why", m->complete ? NULL : m->why);
	kc_json_str(j, "source", m->source);
	kc_json_uint(j, "first_line", m->first_line);
	kc_json_uint(j, "last_line", m->last_line);
	if (m->has_tid)
		kc_json_int(j, "thread", m->tid);
	else
		kc_json_null(j, "thread");
	if (kc_migration_total(m, &total))
		kc_json_int(j, "total_us", total);
	else
		kc_json_null(j, "total_us");
	json_checkpoints(j, m);
	kc_json_array(j, "devices");
	for (size_t i = 0; i < m->ndevs; i++) {
		const struct kc_device *d = &m->devs[i];

		kc_json_object(j, NULL);
		kc_json_str(j, "idstr", d->idstr);
		kc_json_uint(j, "instance_id", d->instance_id);
		kc_json_str(j, "type", d->iterable ? "iterable" : "non-iterable");
		kc_json_str(j, "op", d->save ? "save" : "load");
		kc_json_uint(j, "us", d->us);
		kc_json_end(j);
	}
	kc_json_end(j);
	kc_json_end(j);
}

static void json_aggs(struct kc_json *j, const char *key, const struct aggs *s)
{
	kc_json_object(j, key);
	for (size_t i = 0; i < s->n; i++) {
		const struct kc_hist *h = &s->v[i].h;

		kc_json_object(j, s->v[i].name);
		kc_json_uint(j, "count", h->count);
		kc_json_uint(j, "sum", h->sum);
		kc_json_uint(j, "avg", kc_hist_avg(h));
		for (size_t k = 0; k < KC_NR_PCTS; k++)
			kc_json_uint(j, kc_pct_name(k), kc_hist_pct(h, k));
		kc_json_uint(j, "max", h->max);
		kc_json_end(j);
	}
	kc_json_end(j);
}

void kc_dt_print_json(const struct downtime *dt)
{
	struct kc_json j;

	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_array(&j, "migrations");
	for (size_t i = 0; i < dt->nmigs; i++)
		kc_dt_json_migration(&j, dt->migs[i]);
	kc_json_end(&j);
	json_aggs(&j, "segments", &dt->segs);
	json_aggs(&j, "devices", &dt->devs);
	kc_json_object(&j, "lines");
	kc_json_uint(&j, "read", dt->a.lines);
	kc_json_uint(&j, "downtime_events", dt->a.events);
	kc_json_uint(&j, "other_events", dt->a.other);
	kc_json_uint(&j, "skipped", dt->a.skipped);
	kc_json_end(&j);
	kc_json_end(&j);
	putchar('\n');
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

void kc_dt_write_prom(FILE *f, const void *ctx)
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
