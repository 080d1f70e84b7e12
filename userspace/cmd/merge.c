// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn merge SNAP...: snapshots of many hosts added up into one, in the
 * raw format the module writes, so that every reader takes it and 'kvmchurn
 * diff' compares a fleet before and after a change.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

const char merge_usage[] =
	"Usage: kvmchurn merge [-o FILE] SNAP...\n"
	"\n"
	"Adds up snapshots (files from 'kvmchurn snapshot', or folders that hold a raw\n"
	"file, as 'kvmchurn diff' takes them), say one of each host of a fleet, into\n"
	"one snapshot in the module's raw format, which every command reads: compare\n"
	"two fleets with 'kvmchurn diff BEFORE AFTER', or read one saved as FOLDER/raw\n"
	"with 'kvmchurn -d FOLDER summary'. The result is the same whatever the order\n"
	"of the SNAPs, and a merge of one snapshot is that snapshot.\n"
	"  histograms  count, sum and each bucket add up and max is the largest, so\n"
	"              the percentiles are those of all the values together; a\n"
	"              metric that a snapshot lacks (an older module) counts from\n"
	"              the others\n"
	"  counters    add up\n"
	"  probes      one a metric, kind and symbol: hits and misses add up; the\n"
	"              probe is attached when it is in any snapshot, else in the\n"
	"              state nearest to it (waiting for module, error, absent,\n"
	"              off). A stage probed under another symbol or kind on other\n"
	"              kernels is another probe: if that one attached nowhere, the\n"
	"              metric's note (summary, show) names its state\n"
	"  pairs       capacity, in use, dropped, aged out and exits not reaped add\n"
	"              up, as one pairing table of the whole fleet; left out unless\n"
	"              every snapshot has them\n"
	"  enabled     1 when every snapshot was recording, else 0; left out when\n"
	"              one does not say\n"
	"  filter      kept when every snapshot has the same; else the names of\n"
	"              all, sorted ('*' when one traced every process), so that\n"
	"              check judges the irqfds per VM only when every host traced\n"
	"              firecracker alone; left out when one has none\n"
	"Records of a newer module that this client does not know are left out.\n"
	"Snapshots in different units (the module's unit=), of another raw version,\n"
	"or damaged are refused, and so is a total past 2^64 - 1.\n"
	"\n"
	"Options:\n"
	"  -o FILE     write to FILE, replaced in one rename ('-': standard output,\n"
	"              the default); before or after the SNAPs\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0; 2 when a snapshot cannot be read or added to the others, or\n"
	"FILE cannot be written; 64 for a usage error.\n";

enum { OPT_OUTPUT = 1, OPT_HELP };

static const struct kc_opt options[] = {
	{ OPT_OUTPUT, 'o', NULL, true },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

/* The sum so far; its probes one a metric, kind and symbol. */
struct merge {
	const char *first;		/* the first SNAP, whose unit all must have */
	size_t n;			/* snapshots added */
	struct kc_snap sum;
	size_t probes_cap;
	size_t n_enabled, n_filter, n_pairs, n_not_reaped, n_accounted[KC_NR_WINDOWS];
	bool same_filter;		/* every filter text is sum.filter */
	bool filter_all;		/* one of them is "*" */
	char **names;			/* every filter's names, once each */
	size_t nnames, names_cap;
};

/* *@acc += @v, or false after a message naming what would overflow. */
__attribute__((format(printf, 4, 5)))
static bool add(const char *path, __u64 *acc, __u64 v, const char *fmt, ...)
{
	va_list ap;

	if (v <= ~0ULL - *acc) {
		*acc += v;
		return true;
	}
	fprintf(stderr, "kvmchurn merge: adding %s: ", path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " would pass 2^64 - 1, more than a raw file holds: is a snapshot damaged?\n");
	return false;
}

static int add_hists(const char *path, struct kc_snap *sum, const struct kc_snap *s)
{
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		const struct kc_hist *h = &s->hist[m];
		struct kc_hist *t = &sum->hist[m];
		const char *name = kc_metric_name(m);

		if (!h->present)
			continue;
		t->present = true;
		if (!add(path, &t->count, h->count, "the count of %s", name) ||
		    !add(path, &t->sum, h->sum, "the sum of %s", name))
			return -1;
		for (unsigned int i = 0; i < KC_NR_SLOTS; i++)
			if (!add(path, &t->slots[i], h->slots[i], "bucket %u of %s", i, name))
				return -1;
		if (h->max > t->max)
			t->max = h->max;
	}
	for (unsigned int c = 0; c < KC_NR_COUNTERS; c++)
		if (!add(path, &sum->counter[c], s->counter[c], "the counter %s",
			 kc_counter_name(c)))
			return -1;
	return 0;
}

/*
 * How far a probe state is from attached: a probe attached on one host is
 * attached in the merge, else it takes the nearest state of any.
 */
static unsigned int state_rank(const char *state)
{
	static const enum kc_probe_state order[] = {
		KC_PROBE_ATTACHED, KC_PROBE_WAITING, KC_PROBE_ERROR,
		KC_PROBE_ABSENT, KC_PROBE_OFF,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(order); i++) {
		const char *name = kc_probe_state_name(order[i]);
		size_t len = strlen(name);

		/* An error comes with its number: "error -22". */
		if (!strncmp(state, name, len) &&
		    (!state[len] || (order[i] == KC_PROBE_ERROR && state[len] == ' ')))
			break;
	}
	return i;
}

static bool nearer(const char *a, const char *b)
{
	unsigned int ra = state_rank(a), rb = state_rank(b);

	return ra != rb ? ra < rb : strcmp(a, b) < 0;
}

static int add_probes(const char *path, struct merge *mg, const struct kc_snap *s)
{
	struct kc_snap *sum = &mg->sum;

	for (size_t i = 0; i < s->nprobes; i++) {
		const struct kc_probe_status *p = &s->probes[i];
		struct kc_probe_status *t = NULL;

		for (size_t j = 0; j < sum->nprobes && !t; j++)
			if (!strcmp(sum->probes[j].metric, p->metric) &&
			    !strcmp(sum->probes[j].kind, p->kind) &&
			    !strcmp(sum->probes[j].symbol, p->symbol))
				t = &sum->probes[j];
		if (t) {
			if (!add(path, &t->hits, p->hits, "the hits of the %s %s of %s",
				 p->kind, p->symbol, p->metric) ||
			    !add(path, &t->missed, p->missed, "the misses of the %s %s of %s",
				 p->kind, p->symbol, p->metric))
				return -1;
			if (nearer(p->state, t->state))
				strcpy(t->state, p->state);
			continue;
		}
		if (sum->nprobes == mg->probes_cap) {
			size_t cap = mg->probes_cap ? mg->probes_cap * 2 : 32;

			t = realloc(sum->probes, cap * sizeof(*t));
			if (!t) {
				perror("kvmchurn merge");
				return -1;
			}
			sum->probes = t;
			mg->probes_cap = cap;
		}
		sum->probes[sum->nprobes++] = *p;
	}
	return 0;
}

static int add_pairs(const char *path, struct merge *mg, const struct kc_snap *s)
{
	struct kc_snap *sum = &mg->sum;

	if (!s->has_pairs)
		return 0;
	mg->n_pairs++;
	if (s->has_not_reaped) {
		mg->n_not_reaped++;
		if (!add(path, &sum->pairs_not_reaped, s->pairs_not_reaped,
			 "the pairs' exits not reaped"))
			return -1;
	}
	if (!add(path, &sum->pairs_capacity, s->pairs_capacity, "the pairs' capacity") ||
	    !add(path, &sum->pairs_used, s->pairs_used, "the pairs in use") ||
	    !add(path, &sum->pairs_dropped, s->pairs_dropped, "the pairs dropped") ||
	    !add(path, &sum->pairs_aged, s->pairs_aged, "the pairs aged out"))
		return -1;
	return 0;
}

/* Each window's accounted shares add up, share by share. */
static int add_accounted(const char *path, struct merge *mg, const struct kc_snap *s)
{
	for (unsigned int w = 0; w < KC_NR_WINDOWS; w++) {
		if (!s->has_accounted[w])
			continue;
		mg->n_accounted[w]++;
		for (unsigned int v = 0; v <= KC_PERMILLE; v++) {
			__u64 sum = (__u64)mg->sum.accounted[w][v] + s->accounted[w][v];

			if (sum > UINT32_MAX) {
				kc_err("merge", "adding %s: the %ss %u per mille accounted would pass 2^32 - 1, more than a raw file holds: is a snapshot damaged?",
				       path, kc_metric_name(kc_window_desc(w)->metric), v);
				return -1;
			}
			mg->sum.accounted[w][v] = (__u32)sum;
		}
	}
	return 0;
}

static int add_name(struct merge *mg, const char *name, size_t len)
{
	char **names;

	if (len == strlen(KC_FILTER_ALL) && !strncmp(name, KC_FILTER_ALL, len))
		mg->filter_all = true;
	for (size_t i = 0; i < mg->nnames; i++)
		if (strlen(mg->names[i]) == len && !strncmp(mg->names[i], name, len))
			return 0;
	if (mg->nnames == mg->names_cap) {
		size_t cap = mg->names_cap ? mg->names_cap * 2 : 16;

		names = realloc(mg->names, cap * sizeof(*names));
		if (!names)
			goto fail;
		mg->names = names;
		mg->names_cap = cap;
	}
	mg->names[mg->nnames] = strndup(name, len);
	if (!mg->names[mg->nnames])
		goto fail;
	mg->nnames++;
	return 0;
fail:
	perror("kvmchurn merge");
	return -1;
}

static int add_controls(struct merge *mg, const struct kc_snap *s)
{
	struct kc_snap *sum = &mg->sum;
	const char *name;

	if (s->enabled >= 0) {
		if (!mg->n_enabled++ || s->enabled < sum->enabled)
			sum->enabled = s->enabled;
	}
	if (!s->has_filter)
		return 0;
	if (!mg->n_filter++) {
		strcpy(sum->filter, s->filter);
		mg->same_filter = true;
	} else if (strcmp(sum->filter, s->filter)) {
		mg->same_filter = false;
	}
	for (name = s->filter; *name; ) {
		size_t len = strcspn(name, KC_FILTER_SEPS);

		if (len && add_name(mg, name, len))
			return -1;
		name += len;
		name += strspn(name, KC_FILTER_SEPS);
	}
	return 0;
}

static int add_snap(struct merge *mg, const char *path, const struct kc_snap *s)
{
	if (!mg->n++) {
		mg->first = path;
		strcpy(mg->sum.unit, s->unit);
		mg->sum.unit_ns = s->unit_ns;
	} else if (s->unit_ns != mg->sum.unit_ns) {
		kc_err("merge", "%s is in %s and %s in %s: snapshots in different units cannot be added: load the module with the same unit= on every host",
		       path, s->unit, mg->first, mg->sum.unit);
		return -1;
	}
	if (add_hists(path, &mg->sum, s) || add_probes(path, mg, s) ||
	    add_pairs(path, mg, s) || add_accounted(path, mg, s) ||
	    add_controls(mg, s))
		return -1;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The filter of the merge (its rule in the usage); -1 after a message. */
static int finish_filter(struct merge *mg)
{
	struct kc_snap *sum = &mg->sum;
	size_t len = 0;

	sum->has_filter = mg->n_filter == mg->n;
	if (!sum->has_filter || mg->same_filter)
		return 0;
	if (mg->filter_all) {
		strcpy(sum->filter, KC_FILTER_ALL);
		return 0;
	}
	qsort(mg->names, mg->nnames, sizeof(*mg->names), cmp_names);
	sum->filter[0] = '\0';
	for (size_t i = 0; i < mg->nnames; i++) {
		len += strlen(mg->names[i]) + !!i;
		if (len >= sizeof(sum->filter)) {
			kc_err("merge", "the filters' %zu names together are longer than the %zu characters of a raw file's filter record: merge hosts of one filter",
			       mg->nnames, sizeof(sum->filter) - 1);
			return -1;
		}
		if (i)
			strcat(sum->filter, " ");
		strcat(sum->filter, mg->names[i]);
	}
	return 0;
}

/* Where the module lists probe @p: its index in the table, else past it. */
static unsigned int probe_place(const struct kc_probe_status *p)
{
	for (unsigned int i = 0; i < KC_NR_PROBES; i++) {
		const struct kc_probe_desc *d = kc_probe_desc(i);
		bool kret = !strcmp(d->kind, KC_KIND_KRETPROBE);

		if (strcmp(kc_metric_name(d->metric), p->metric) ||
		    (strcmp(d->kind, p->kind) && !(kret && !strcmp(p->kind, KC_KIND_FPROBE))))
			continue;
		for (unsigned int j = 0; d->symbols[j]; j++)
			if (!strcmp(d->symbols[j], p->symbol))
				return i;
	}
	return KC_NR_PROBES;
}

/*
 * The module's order, so that a merge of one snapshot is that snapshot;
 * probes of one place (other symbols or kinds) by name.
 */
static int cmp_probes(const void *a, const void *b)
{
	const struct kc_probe_status *p = a, *q = b;
	unsigned int pi = probe_place(p), qi = probe_place(q);
	int d;

	if (pi != qi)
		return pi < qi ? -1 : 1;
	d = strcmp(p->metric, q->metric);
	if (!d)
		d = strcmp(p->kind, q->kind);
	return d ? d : strcmp(p->symbol, q->symbol);
}

/* The merge as the module writes raw (module/render.c, kc_show_raw()). */
static void write_raw(FILE *f, const void *ctx)
{
	const struct merge *mg = ctx;
	const struct kc_snap *s = &mg->sum;

	fprintf(f, "%s %d\n", KC_RAW_MAGIC, KC_RAW_VERSION);
	fprintf(f, KC_RAW_UNIT "\t%s\n", s->unit);
	if (mg->n_enabled == mg->n)
		fprintf(f, KC_RAW_ENABLED "\t%d\n", s->enabled);
	if (s->has_filter)
		fprintf(f, KC_RAW_FILTER "\t%s\n", s->filter);
	fprintf(f, KC_RAW_SLOTS "\t%d\n", KC_NR_SLOTS);
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		const struct kc_hist *h = &s->hist[m];
		bool first = true;

		if (!h->present)
			continue;
		fprintf(f, KC_RAW_HIST "\t%s\t%llu\t%llu\t%llu\t", kc_metric_name(m),
			h->count, h->sum, h->max);
		for (unsigned int i = 0; i < KC_NR_SLOTS; i++) {
			if (!h->slots[i])
				continue;
			fprintf(f, "%s%u:%llu", first ? "" : ",", i, h->slots[i]);
			first = false;
		}
		fputs(first ? "-\n" : "\n", f);
	}
	for (unsigned int c = 0; c < KC_NR_COUNTERS; c++)
		fprintf(f, KC_RAW_COUNTER "\t%s\t%llu\n", kc_counter_name(c), s->counter[c]);
	for (size_t i = 0; i < s->nprobes; i++) {
		const struct kc_probe_status *p = &s->probes[i];

		fprintf(f, KC_RAW_PROBE "\t%s\t%s\t%s\t%s\t%llu\t%llu\n", p->metric, p->kind,
			p->symbol, p->state, p->hits, p->missed);
	}
	if (mg->n_pairs == mg->n) {
		fprintf(f, KC_RAW_PAIRS "\t%llu\t%llu\t%llu\t%llu", s->pairs_capacity,
			s->pairs_used, s->pairs_dropped, s->pairs_aged);
		if (mg->n_not_reaped == mg->n)
			fprintf(f, "\t%llu", s->pairs_not_reaped);
		fputc('\n', f);
	}
	/* only where every snapshot has it: a part would say too little */
	for (unsigned int w = 0; w < KC_NR_WINDOWS; w++) {
		bool any = false;

		if (mg->n_accounted[w] != mg->n)
			continue;
		fprintf(f, "%s\t", kc_window_desc(w)->tag);
		for (unsigned int v = 0; v <= KC_PERMILLE; v++) {
			if (!s->accounted[w][v])
				continue;
			fprintf(f, "%s%u:%u", any ? "," : "", v, s->accounted[w][v]);
			any = true;
		}
		fputs(any ? "\n" : "-\n", f);
	}
}

/* Options before, between or after the SNAPs, which end up in @snaps. */
static int parse(int argc, char *argv[], const char **out, char ***snaps, int *nsnaps)
{
	struct kc_opt_parser p;
	int id, at;

	*snaps = calloc((size_t)argc, sizeof(**snaps));
	if (!*snaps) {
		perror("kvmchurn merge");
		return KC_EXIT_CANNOT_START;
	}
	kc_opt_init(&p, "merge", argc, argv, 1);
	while (p.index < argc) {
		at = p.index;
		id = kc_opt_next(&p, options);
		if (id == KC_OPT_ERROR)
			return KC_EXIT_USAGE;
		if (id == OPT_HELP) {
			fputs(merge_usage, stdout);
			return KC_EXIT_OK;
		}
		if (id == OPT_OUTPUT) {
			if (kc_opt_path(&p, "a file name", out))
				return KC_EXIT_USAGE;
			continue;
		}
		/* "--": everything after it is a SNAP */
		if (p.index == at + 1) {
			while (p.index < argc)
				(*snaps)[(*nsnaps)++] = argv[p.index++];
			break;
		}
		(*snaps)[(*nsnaps)++] = argv[p.index++];
	}
	if (!*nsnaps)
		return kc_usage_error("merge", "no snapshot given: merge takes one or more");
	return -1;
}

int cmd_merge(int argc, char *argv[], const struct kc_global *g)
{
	const char *out = "-";
	struct merge *mg;
	struct kc_snap *s;
	char **snaps;
	int rc, nsnaps = 0;

	(void)g;
	rc = parse(argc, argv, &out, &snaps, &nsnaps);
	if (rc >= 0)
		goto free_snaps;
	mg = calloc(1, sizeof(*mg));
	s = calloc(1, sizeof(*s));	/* each 28 KiB of histograms */
	if (!mg || !s) {
		perror("kvmchurn merge");
		rc = KC_EXIT_CANNOT_START;
		goto out;
	}
	rc = KC_EXIT_OK;
	for (int i = 0; i < nsnaps && !rc; i++) {
		rc = kc_read_snapshot("merge", snaps[i], s);
		if (rc)
			break;
		if (add_snap(mg, snaps[i], s))
			rc = KC_EXIT_CANNOT_START;
		kc_snap_free(s);
	}
	if (!rc && finish_filter(mg))
		rc = KC_EXIT_CANNOT_START;
	if (!rc) {
		qsort(mg->sum.probes, mg->sum.nprobes, sizeof(*mg->sum.probes), cmp_probes);
		rc = kc_write_output("merge", out, write_raw, mg);
	}
out:
	if (mg) {
		for (size_t i = 0; i < mg->nnames; i++)
			free(mg->names[i]);
		free(mg->names);
		kc_snap_free(&mg->sum);
	}
	free(mg);
	free(s);
free_snaps:
	free(snaps);
	return rc;
}
