// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn summary: one line a metric, count, avg, percentiles, max and
 * kretprobe misses; the module's `summary` file, read from `raw`.
 */
#include "driver.h"

const char summary_usage[] =
	"Usage: kvmchurn summary [--json]\n"
	"\n"
	"Prints a table, one line a metric in the seed's reading order: count, avg,\n"
	"p50, p90, p99, max, nmissed (calls that no kretprobe instance was free to time:\n"
	"raise the module's maxactive= when it is not 0), and the unit. A metric without\n"
	"data shows '-'; a last column names why a metric cannot count: absent (the\n"
	"kernel has no such function), waiting for module (kvm or irqbypass not loaded\n"
	"yet), error -N.\n"
	"\n"
	"avg is the exact mean, rounded down, and max the exact maximum. A percentile\n"
	"is read from the histogram: the nearest-rank value's sub-bucket, interpolated\n"
	"linearly inside it, and never above max. Values 0 to 7 have a bucket each and\n"
	"are exact; above, a sub-bucket is a quarter of a power of two wide, so the\n"
	"percentile and the true value lie in the same sub-bucket and differ by less\n"
	"than a quarter of the true value (25 %).\n"
	"\n"
	"Options:\n"
	"  --json      one JSON object: unit, metrics (name, count, sum, avg, p50,\n"
	"              p90, p99, max, nmissed, state: attached or the note; the\n"
	"              statistics null when count is 0)\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0, or 2 when the module's raw file cannot be read.\n";

static void print_text(const struct kc_snap *s)
{
	char cells[KC_SUMMARY_LEN];

	kc_summary_head(cells, sizeof(cells));
	printf("%s\n", cells);
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		const struct kc_hist *h = &s->hist[m];
		const char *note = kc_snap_note(s, m);
		__u64 missed = kc_snap_missed(s, (int)m);

		kc_summary_cells(cells, sizeof(cells), kc_metric_name(m), h->count, h->sum,
				 h->max, h->slots);
		printf("%s %s%*llu%s  %s", cells, missed ? kc_style(KC_BAD) : "",
		       KC_SUMMARY_MISSED, missed, missed ? kc_style(KC_OFF) : "", s->unit);
		if (*note)
			printf("  %s%s%s", kc_style(KC_WARN), note, kc_style(KC_OFF));
		putchar('\n');
	}
}

static void print_json(const struct kc_snap *s)
{
	struct kc_json j;

	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_metrics(&j, s);
	kc_json_end(&j);
	putchar('\n');
}

static const struct kc_view view = { print_text, print_json, NULL };

int cmd_summary(int argc, char *argv[], const struct kc_global *g)
{
	return kc_view_command(argc, argv, g, "summary", summary_usage, &view);
}
