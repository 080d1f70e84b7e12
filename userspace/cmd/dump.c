// SPDX-License-Identifier: GPL-2.0
/* kvmchurn dump: the numbers as tab-separated records, for shell scripts. */
#include "driver.h"

const char dump_usage[] =
	"Usage: kvmchurn dump [--json]\n"
	"\n"
	"Prints tab-separated records, without a header, for scripts: first one\n"
	"line a metric, in the seed's reading order,\n"
	"  metric NAME COUNT SUM AVG P50 P90 P99 MAX NMISSED UNIT STATE\n"
	"with '-' for AVG to MAX when COUNT is 0, and STATE 'attached' or what keeps\n"
	"the metric from counting (absent, waiting for module, error -N); then one\n"
	"line a counter,\n"
	"  counter NAME VALUE\n"
	"Values are in UNIT (us or ns, the module's unit=); the statistics are those\n"
	"of 'kvmchurn summary'. For example, p99 of exit_mmap:\n"
	"  kvmchurn dump | awk -F '\\t' '$1 == \"metric\" && $2 == \"exit_mmap\" { print $8 }'\n"
	"\n"
	"Options:\n"
	"  --json      the same as one JSON object: unit, metrics (name, count, sum,\n"
	"              avg, p50, p90, p99, max, nmissed, state; the statistics null\n"
	"              when count is 0) and counters (name: value)\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0, or 2 when the module's raw file cannot be read.\n";

static void print_text(const struct kc_snap *s)
{
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		const struct kc_hist *h = &s->hist[m];

		printf("metric\t%s\t%llu\t%llu", kc_metric_name(m), h->count, h->sum);
		if (h->count) {
			printf("\t%llu", kc_hist_avg(h));
			for (unsigned int i = 0; i < KC_NR_PCTS; i++)
				printf("\t%llu", kc_hist_pct(h, i));
			printf("\t%llu", h->max);
		} else {
			printf("\t-\t-\t-\t-\t-");
		}
		printf("\t%llu\t%s\t%s\n", kc_snap_missed(s, m), s->unit, kc_snap_state(s, m));
	}
	for (unsigned int c = 0; c < KC_NR_COUNTERS; c++)
		printf("counter\t%s\t%llu\n", kc_counter_name(c), s->counter[c]);
}

static void print_json(const struct kc_snap *s)
{
	struct kc_json j;

	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_metrics(&j, s);
	kc_json_object(&j, "counters");
	for (unsigned int c = 0; c < KC_NR_COUNTERS; c++)
		kc_json_uint(&j, kc_counter_name(c), s->counter[c]);
	kc_json_end(&j);
	kc_json_end(&j);
	putchar('\n');
}

static const struct kc_view view = { print_text, print_json, NULL };

int cmd_dump(int argc, char *argv[], const struct kc_global *g)
{
	return kc_view_command(argc, argv, g, "dump", dump_usage, &view);
}
