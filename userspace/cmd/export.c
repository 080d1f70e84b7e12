// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn export --prometheus: the histograms, counters and probe states in
 * Prometheus' text exposition format, for node_exporter's textfile collector.
 */
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "lib/live.h"
#include "lib/prom.h"

const char export_usage[] =
	"Usage: kvmchurn export [--prometheus] [-o FILE]\n"
	"\n"
	"Prints the module's numbers in Prometheus' text exposition format (the only\n"
	"format, so --prometheus may be left out), for node_exporter's textfile\n"
	"collector: run it from cron or a timer with -o\n"
	"/var/lib/prometheus/node-exporter/kvmchurn.prom (the collector reads only\n"
	"*.prom files). The file is written aside and renamed over FILE, so the\n"
	"collector never reads half of it.\n"
	"\n"
	"  kvmchurn_duration_seconds{metric}      histogram, one a metric; le in\n"
	"                                         seconds, the powers of two of the\n"
	"                                         module's unit from 1 unit to 2^36 us\n"
	"                                         (19 h), then +Inf\n"
	"  kvmchurn_events_total{event}           counter: sigterm, sigkill, exit,\n"
	"                                         reap, irqbypass_register,\n"
	"                                         irqbypass_unregister\n"
	"  kvmchurn_probe_hits_total, kvmchurn_probe_missed_total,\n"
	"  kvmchurn_probe_attached                {metric, kind, symbol}: counters, and\n"
	"                                         a gauge, 1 when attached\n"
	"  kvmchurn_pairs_in_use, kvmchurn_pairs_capacity (gauges),\n"
	"  kvmchurn_pairs_dropped_total, kvmchurn_pairs_aged_out_total (counters)\n"
	"  kvmchurn_enabled                       gauge, 1 while recording\n"
	"  kvmchurn_live_vms                      gauge: VMs created, not yet reaped\n"
	"  kvmchurn_stalled_vms                   gauge: live VMs in one stage for\n"
	"                                         stall_ms= or longer\n"
	"  kvmchurn_stall_threshold_seconds       gauge: stall_ms=\n"
	"  kvmchurn_inflight_oldest_seconds{stage}\n"
	"                                         gauge: the longest a live VM has\n"
	"                                         been in that stage (the innermost),\n"
	"                                         for each stage some VM is in now\n"
	"The last four come from the vms file's live records (a module without them\n"
	"gives none).\n"
	"\n"
	"A 'kvmchurn reset' makes every counter start again, which Prometheus' rate()\n"
	"takes as a counter reset.\n"
	"\n"
	"Options:\n"
	"  --prometheus  the format (the default)\n"
	"  -o FILE       write to FILE, replaced in one rename ('-': standard output,\n"
	"                the default)\n"
	"  -h, --help    print this help\n"
	"\n"
	"Exit status: 0, or 2 when the raw or vms file cannot be read or FILE written.\n";

enum { OPT_PROMETHEUS = 1, OPT_OUTPUT, OPT_HELP };

static const struct kc_opt options[] = {
	{ OPT_PROMETHEUS, 0, "prometheus", false },
	{ OPT_OUTPUT, 'o', NULL, true },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

static void histograms(FILE *f, const struct kc_snap *s)
{
	/* The first power of two of at least 2^36 us. */
	unsigned int last = s->unit_ns == 1 ? 46 : 36;
	double unit_s = (double)s->unit_ns / 1e9;

	kc_prom_family(f, "kvmchurn_duration_seconds", "histogram",
	       "Time the kernel spent in each step of KVM VM creation and teardown, measured by kvmchurn.ko.");
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		const struct kc_hist *h = &s->hist[m];
		const char *name = kc_metric_name(m);
		__u64 cum = 0;

		for (unsigned int j = 0; j <= last; j++) {
			cum += kc_plain_count(h->slots, j);
			fprintf(f, "kvmchurn_duration_seconds_bucket{metric=\"%s\",le=\"", name);
			/* Bucket j holds values below 2^j units: whole units, truncated. */
			kc_prom_float(f, (double)(1ULL << j) * unit_s);
			fprintf(f, "\"} %llu\n", cum);
		}
		fprintf(f, "kvmchurn_duration_seconds_bucket{metric=\"%s\",le=\"+Inf\"} %llu\n",
			name, h->count);
		fprintf(f, "kvmchurn_duration_seconds_sum{metric=\"%s\"} ", name);
		kc_prom_float(f, (double)h->sum * unit_s);
		fprintf(f, "\nkvmchurn_duration_seconds_count{metric=\"%s\"} %llu\n", name,
			h->count);
	}
}

static void probe_family(FILE *f, const struct kc_snap *s, const char *name,
			 const char *type, const char *help, int what)
{
	kc_prom_family(f, name, type, help);
	for (size_t i = 0; i < s->nprobes; i++) {
		const struct kc_probe_status *p = &s->probes[i];

		fprintf(f, "%s{", name);
		kc_prom_label(f, "metric", p->metric, true);
		kc_prom_label(f, "kind", p->kind, false);
		kc_prom_label(f, "symbol", p->symbol, false);
		fprintf(f, "} %llu\n", what == 0 ? p->hits : what == 1 ? p->missed :
				       (__u64)kc_probe_attached(p));
	}
}

static void print_prometheus(FILE *f, const struct kc_snap *s)
{
	histograms(f, s);
	kc_prom_family(f, "kvmchurn_events_total", "counter",
	       "Events counted by kvmchurn.ko: fatal signals, leader exits and reaps of traced processes, irqbypass consumer calls.");
	for (unsigned int c = 0; c < KC_NR_COUNTERS; c++)
		fprintf(f, "kvmchurn_events_total{event=\"%s\"} %llu\n", kc_counter_name(c),
			s->counter[c]);
	probe_family(f, s, "kvmchurn_probe_hits_total", "counter",
		     "Calls or events each probe saw, traced or not.", 0);
	probe_family(f, s, "kvmchurn_probe_missed_total", "counter",
		     "Kretprobe calls not timed because every instance was busy (raise maxactive=).", 1);
	probe_family(f, s, "kvmchurn_probe_attached", "gauge",
		     "1 when the probe is attached, 0 when absent, waiting for its module or failed.", 2);
	if (s->has_pairs) {
		kc_prom_family(f, "kvmchurn_pairs_in_use", "gauge",
		       "Entries of the pairing table waiting for their end event.");
		fprintf(f, "kvmchurn_pairs_in_use %llu\n", s->pairs_used);
		kc_prom_family(f, "kvmchurn_pairs_capacity", "gauge", "Entries of the pairing table.");
		fprintf(f, "kvmchurn_pairs_capacity %llu\n", s->pairs_capacity);
		kc_prom_family(f, "kvmchurn_pairs_dropped_total", "counter",
		       "Start events lost because their bucket of the pairing table was full (raise pairs=).");
		fprintf(f, "kvmchurn_pairs_dropped_total %llu\n", s->pairs_dropped);
		kc_prom_family(f, "kvmchurn_pairs_aged_out_total", "counter",
		       "Pairing entries taken over after waiting 600 s for their end event.");
		fprintf(f, "kvmchurn_pairs_aged_out_total %llu\n", s->pairs_aged);
	}
	if (s->enabled >= 0) {
		kc_prom_family(f, "kvmchurn_enabled", "gauge", "1 while kvmchurn.ko records, 0 while disabled.");
		fprintf(f, "kvmchurn_enabled %d\n", s->enabled);
	}
}

/* The live view's gauges: how many VMs live, stall, and each stage's oldest. */
static void print_live(FILE *f, const struct kc_live_set *ls)
{
	__u64 oldest[KC_NR_METRICS] = { 0 };
	bool in[KC_NR_METRICS] = { false };

	kc_prom_family(f, "kvmchurn_live_vms", "gauge",
		       "VMs of traced processes created and not yet reaped.");
	fprintf(f, "kvmchurn_live_vms %zu\n", ls->n);
	kc_prom_family(f, "kvmchurn_stalled_vms", "gauge",
		       "Live VMs in one stage for stall_ms or longer.");
	fprintf(f, "kvmchurn_stalled_vms %u\n", kc_live_stalled_count(ls));
	kc_prom_family(f, "kvmchurn_stall_threshold_seconds", "gauge",
		       "stall_ms: a stage in flight this long is a stall.");
	fprintf(f, "kvmchurn_stall_threshold_seconds ");
	kc_prom_float(f, (double)ls->stall_ms / 1e3);
	fputc('\n', f);
	for (size_t i = 0; i < ls->n; i++) {
		unsigned int m = kc_live_cause(&ls->v[i]);

		if (m >= KC_NR_METRICS)
			continue;
		in[m] = true;
		if (ls->v[i].age > oldest[m])
			oldest[m] = ls->v[i].age;
	}
	kc_prom_family(f, "kvmchurn_inflight_oldest_seconds", "gauge",
		       "The longest a live VM has been in the stage, its innermost, now.");
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		if (!in[m])
			continue;
		fprintf(f, "kvmchurn_inflight_oldest_seconds{");
		kc_prom_label(f, "stage", kc_metric_name(m), true);
		fprintf(f, "} ");
		/* a division: ns over 1e9 reads back exactly, times 1e-9 may not */
		kc_prom_float(f, (double)(oldest[m] * ls->unit_ns) / 1e9);
		fputc('\n', f);
	}
}

struct export_in {
	const struct kc_snap *s;
	const struct kc_live_set *ls;
};

static void write_prometheus(FILE *f, const void *ctx)
{
	const struct export_in *in = ctx;

	print_prometheus(f, in->s);
	if (in->ls->known)
		print_live(f, in->ls);
}

int cmd_export(int argc, char *argv[], const struct kc_global *g)
{
	const char *out = "-";
	struct kc_opt_parser p;
	struct kc_snap *s;
	int id, rc;

	kc_opt_init(&p, "export", argc, argv, 1);
	while ((id = kc_opt_next(&p, options)) != KC_OPT_END) {
		if (id == KC_OPT_ERROR)
			return KC_EXIT_USAGE;
		if (id == OPT_HELP) {
			fputs(export_usage, stdout);
			return KC_EXIT_OK;
		}
		if (id == OPT_OUTPUT && kc_opt_path(&p, "a file name", &out))
			return KC_EXIT_USAGE;
	}
	if (p.index < argc)
		return kc_usage_error("export", "unexpected argument '%s'", argv[p.index]);
	s = calloc(1, sizeof(*s));
	if (!s) {
		perror("kvmchurn export");
		return KC_EXIT_CANNOT_START;
	}
	rc = kc_read_module("export", g, s, NULL, NULL);
	if (!rc) {
		struct kc_live_set ls;
		struct export_in in = { s, &ls };

		rc = kc_live_read("export", g, &ls);
		if (!rc)
			rc = kc_write_output("export", out, write_prometheus, &in);
		kc_live_free(&ls);
		kc_snap_free(s);
	}
	free(s);
	return rc;
}
