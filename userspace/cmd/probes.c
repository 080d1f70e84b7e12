// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn probes: each probe's symbol, state and counts, and the pairing
 * table, from the raw file.
 */
#include <string.h>

#include "driver.h"

const char probes_usage[] =
	"Usage: kvmchurn probes [--json]\n"
	"\n"
	"One line a probe: the metric it serves, its kind (kretprobe or tracepoint),\n"
	"the symbol it is on (or tried), its state, hits (every call or event it saw,\n"
	"traced or not) and missed (kretprobe calls that found every instance busy and\n"
	"were not timed). States:\n"
	"  attached             counting\n"
	"  waiting for module   the function is in a module (kvm, irqbypass) that is\n"
	"                       not loaded; the probe attaches when it loads\n"
	"  absent               the kernel has no such function or tracepoint\n"
	"                       (kvm_destroy_vcpus on 5.10, stage-2 on x86)\n"
	"  error -N             registering failed (the kernel log says more)\n"
	"Then the pairing table: entries in use of its capacity, dropped (a start\n"
	"event found its bucket full: raise pairs=) and aged out (unpaired for 600 s).\n"
	"\n"
	"Options:\n"
	"  --json      one JSON object: probes (metric, kind, symbol, state, hits,\n"
	"              missed) and pairs (capacity, in_use, dropped, aged_out)\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0, or 2 when the module's raw file cannot be read.\n";

static void print_text(const struct kc_snap *s)
{
	int width = 31;

	for (size_t i = 0; i < s->nprobes; i++)
		if ((int)strlen(s->probes[i].symbol) > width)
			width = (int)strlen(s->probes[i].symbol);
	printf("%-*s %-10s %-*s %-18s %12s %8s\n", KC_METRIC_COL, "metric", "kind", width,
	       "symbol", "state", "hits", "missed");
	for (size_t i = 0; i < s->nprobes; i++) {
		const struct kc_probe_status *p = &s->probes[i];
		bool attached = kc_probe_attached(p);

		printf("%-*s %-10s %-*s %s%-18s%s %12llu %s%8llu%s\n", KC_METRIC_COL, p->metric,
		       p->kind, width, p->symbol, attached ? "" : kc_style(KC_WARN),
		       p->state, attached ? "" : kc_style(KC_OFF), p->hits,
		       p->missed ? kc_style(KC_BAD) : "", p->missed,
		       p->missed ? kc_style(KC_OFF) : "");
	}
	if (s->has_pairs)
		printf("pairs: %llu of %llu in use, %llu dropped, %llu aged out\n",
		       s->pairs_used, s->pairs_capacity, s->pairs_dropped, s->pairs_aged);
}

static void print_json(const struct kc_snap *s)
{
	struct kc_json j;

	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_array(&j, "probes");
	for (size_t i = 0; i < s->nprobes; i++) {
		const struct kc_probe_status *p = &s->probes[i];

		kc_json_object(&j, NULL);
		kc_json_str(&j, "metric", p->metric);
		kc_json_str(&j, "kind", p->kind);
		kc_json_str(&j, "symbol", p->symbol);
		kc_json_str(&j, "state", p->state);
		kc_json_uint(&j, "hits", p->hits);
		kc_json_uint(&j, "missed", p->missed);
		kc_json_end(&j);
	}
	kc_json_end(&j);
	if (s->has_pairs) {
		kc_json_object(&j, "pairs");
		kc_json_uint(&j, "capacity", s->pairs_capacity);
		kc_json_uint(&j, "in_use", s->pairs_used);
		kc_json_uint(&j, "dropped", s->pairs_dropped);
		kc_json_uint(&j, "aged_out", s->pairs_aged);
		kc_json_end(&j);
	} else {
		kc_json_null(&j, "pairs");
	}
	kc_json_end(&j);
	putchar('\n');
}

static const struct kc_view view = { print_text, print_json, NULL };

int cmd_probes(int argc, char *argv[], const struct kc_global *g)
{
	return kc_view_command(argc, argv, g, "probes", probes_usage, &view);
}
