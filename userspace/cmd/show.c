// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn show [METRIC...]: the histograms in the text bpftrace prints,
 * grouped as the seed's reading guide reads them; --fine for the four
 * sub-buckets of each power of two, --unit to convert, --bpftrace for the
 * module's `all` text exactly.
 */
#include <stdlib.h>
#include <string.h>

#include "driver.h"

static const char usage_head[] =
	"Usage: kvmchurn show [OPTIONS] [METRIC...]\n"
	"\n"
	"Prints histograms in the text that bpftrace prints when the seed script\n"
	"(kvm_churn_breakdown.bt) stops, with its map names (@us_exit_mmap...). Without\n"
	"METRIC, every metric in three groups with their titles (create path, exit\n"
	"path, reclaim), each the seed's metrics in its reading order, then kvmchurn's\n"
	"additions (stages the seed could not time, named in its style), then the\n"
	"counters (@n_*). A metric without data says so, and why when a probe is not\n"
	"attached. With METRICs, only those, in the order given, without titles:\n"
	"`kvmchurn show exit_mmap` is the module's hist/exit_mmap.\n"
	"\n";

static const char usage_tail[] =
	"\n"
	"Options:\n"
	"  --fine        the four sub-buckets of each power of two, labelled as\n"
	"                bpftrace labels hist(n, 2): [4K, 5K), [5K, 6K)...\n"
	"  --unit UNIT   us, ns or ms (default: the module's unit=). A sub-bucket is\n"
	"                converted whole, at its middle value, so in another unit a\n"
	"                count can land one bucket off; the module's unit is exact\n"
	"  --bpftrace    the seed's maps in the order bpftrace prints them (by name,\n"
	"                @n_* first), then kvmchurn's additions in the same order;\n"
	"                as bpftrace, a histogram or key that recorded nothing is\n"
	"                left out and a counter without a key prints 0: the module's\n"
	"                `all` file exactly\n"
	"  --json        one JSON object: unit, fine, metrics (name, map, group,\n"
	"                origin, count, note, buckets of min, max, label, count) and\n"
	"                counters (name, map, value)\n"
	"  --list        the metric table, without reading the module: one line a\n"
	"                metric, tab-separated: name, group, unit, the map, what\n"
	"                starts and ends it, its probes (kind:symbol@home, space\n"
	"                separated; candidate symbols joined by '|'; on:METRIC for\n"
	"                a metric whose probes it needs too), and its origin (seed:\n"
	"                the seed's map; added: kvmchurn's)\n"
	"  -h, --help    print this help\n"
	"\n"
	"Exit status: 0, or 2 when the module's raw file cannot be read (see\n"
	"'kvmchurn --help').\n";

/* The usage, with the metrics listed from the table, wrapped at 80 columns. */
void show_print_usage(FILE *f)
{
	size_t col = strlen("Metrics:");

	fputs(usage_head, f);
	fputs("Metrics:", f);
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		const struct kc_metric_desc *d = kc_metric_desc(m);
		bool last = m + 1 == KC_NR_METRICS;
		char word[64];

		/* ", " between the metrics of a group, "; " between groups */
		snprintf(word, sizeof(word), "%s%s", d->name,
			 last ? "." : d->group != kc_metric_desc(m + 1)->group ? ";" : ",");
		if (col + 1 + strlen(word) >= 80) {
			fputc('\n', f);
			col = 0;
		} else {
			fputc(' ', f);
			col++;
		}
		fputs(word, f);
		col += strlen(word);
	}
	fputc('\n', f);
	fputs(usage_tail, f);
}

enum { OPT_FINE = 1, OPT_UNIT, OPT_BPFTRACE, OPT_JSON, OPT_LIST, OPT_HELP };

static const struct kc_opt options[] = {
	{ OPT_FINE, 0, "fine", false },
	{ OPT_UNIT, 0, "unit", true },
	{ OPT_BPFTRACE, 0, "bpftrace", false },
	{ OPT_JSON, 0, "json", false },
	{ OPT_LIST, 0, "list", false },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

struct show {
	bool fine, bpftrace, json, list;
	const char *unit;		/* as printed: the map prefix */
	__u64 unit_ns;			/* 0: the snapshot's */
	int metrics[KC_NR_METRICS * 4];
	int nmetrics;
	struct kc_snap snap;
	__u64 slots[KC_NR_METRICS][KC_NR_SLOTS];	/* in the shown unit */
};

/* @v in @from_ns units as a whole number of @to_ns units, rounded down. */
static __u64 convert(__u64 v, __u64 from_ns, __u64 to_ns)
{
	if (from_ns >= to_ns) {
		__u64 k = from_ns / to_ns;

		return v > ~0ULL / k ? ~0ULL : v * k;
	}
	return v / (to_ns / from_ns);
}

/* The slots of metric @m in the shown unit: each moved whole, at its middle. */
static void convert_slots(struct show *sh, unsigned int m)
{
	const __u64 *in = sh->snap.hist[m].slots;
	__u64 *out = sh->slots[m];

	if (sh->unit_ns == sh->snap.unit_ns) {
		memcpy(out, in, sizeof(sh->slots[m]));
		return;
	}
	memset(out, 0, sizeof(sh->slots[m]));
	for (unsigned int s = 0; s < KC_NR_SLOTS; s++) {
		__u64 lo = kc_slot_lo(s), mid;

		if (!in[s])
			continue;
		mid = s < KC_SUBS ? lo : lo + (kc_slot_end(s) - lo) / 2;
		out[kc_slot(convert(mid, sh->snap.unit_ns, sh->unit_ns))] += in[s];
	}
}

static void emit(void *ctx, const char *line)
{
	(void)ctx;
	fputs(line, stdout);
}

/* bpftrace's label of hist(n, 2) index @i: 8, 10, ..., 1K, 1.25K as "5K"... */
static void fine_label(char *buf, size_t len, unsigned int i)
{
	unsigned int power = (i >> KC_SUB_BITS) - 1, decade = power / 10;

	power -= 10 * decade;
	snprintf(buf, len, "%llu", (1ULL << power) * (KC_SUBS + (i & (KC_SUBS - 1))));
	if (decade)
		snprintf(buf + strlen(buf), len - strlen(buf), "%c", "\0KMGTPE"[decade]);
}

static void slot_label(char *buf, size_t len, unsigned int s)
{
	char lo[16], hi[16];

	/* hist(n, 2) gives 0 to 7 a bucket each. */
	if (s < 2 * KC_SUBS) {
		snprintf(buf, len, "[%u]", s);
		return;
	}
	fine_label(lo, sizeof(lo), s);
	fine_label(hi, sizeof(hi), s + 1);
	snprintf(buf, len, "[%s, %s)", lo, hi);
}

/* The first and last non-empty slot; false when there is none. */
static bool fine_range(const __u64 *slots, unsigned int *lo, unsigned int *hi,
		       __u64 *max)
{
	bool any = false;

	*max = 0;
	for (unsigned int s = 0; s < KC_NR_SLOTS; s++) {
		if (!slots[s])
			continue;
		if (!any)
			*lo = s;
		*hi = s;
		any = true;
		if (slots[s] > *max)
			*max = slots[s];
	}
	return any;
}

static void render_fine(const __u64 *slots)
{
	char label[KC_LABEL_LEN], line[KC_LINE_LEN];
	unsigned int lo, hi;
	__u64 max;

	if (!fine_range(slots, &lo, &hi, &max))
		return;
	for (unsigned int s = lo; s <= hi; s++) {
		slot_label(label, sizeof(label), s);
		kc_hist_line(line, sizeof(line), label, slots[s], max);
		fputs(line, stdout);
	}
}

/* "@us_exit_mmap", "@n_irqbypass[register]": the seed's name of a map element. */
static void map_label(char *buf, size_t len, const char *prefix, const char *seed)
{
	struct kc_map map;

	kc_map_init(&map, prefix, seed, false, 0);
	kc_map_label(buf, len, &map);
}

static void print_metric(const struct show *sh, unsigned int m)
{
	const char *note = kc_snap_note(&sh->snap, m);
	char label[64];
	bool empty = true;

	for (unsigned int s = 0; s < KC_NR_SLOTS && empty; s++)
		empty = !sh->slots[m][s];
	map_label(label, sizeof(label), sh->unit, kc_metric_seed(m));
	printf("%s: ", label);
	if (empty) {
		printf("%s(no data%s%s)%s\n\n", kc_style(KC_DIM), *note ? ": " : "",
		       note, kc_style(KC_OFF));
		return;
	}
	putchar('\n');
	if (sh->fine)
		render_fine(sh->slots[m]);
	else
		kc_render_hist(sh->slots[m], emit, NULL);
	putchar('\n');
}

static void print_grouped(const struct show *sh)
{
	char label[64];

	for (unsigned int g = 0; g < KC_NR_GROUPS; g++) {
		printf("%s=== %s ===%s\n\n", kc_style(KC_BOLD), kc_group_title(g),
		       kc_style(KC_OFF));
		for (unsigned int m = 0; m < KC_NR_METRICS; m++)
			if (kc_metric_desc(m)->group == g)
				print_metric(sh, m);
	}
	printf("%s=== counters ===%s\n\n", kc_style(KC_BOLD), kc_style(KC_OFF));
	for (unsigned int c = 0; c < KC_NR_COUNTERS; c++) {
		map_label(label, sizeof(label), "n", kc_counter_seed(c));
		printf("%s: %llu\n", label, sh->snap.counter[c]);
	}
}

/* The module's `all`: the maps in bpftrace's order (kvmchurn_rules.h). */
static void print_bpftrace(const struct show *sh)
{
	struct kc_map maps[KC_NR_MAPS];
	char label[64];

	kc_maps_init(maps, sh->unit);
	for (unsigned int i = 0; i < KC_NR_MAPS; i++)
		/* As the module: by the count, which a live read may see ahead of the slots. */
		maps[i].total = maps[i].is_hist ? sh->snap.hist[maps[i].index].count :
			       sh->snap.counter[maps[i].index];
	kc_maps_sort(maps, KC_NR_MAPS);
	for (unsigned int i = 0; i < KC_NR_MAPS; i++) {
		const struct kc_map *e = &maps[i];

		if (!kc_map_printed(e))
			continue;
		if (e->is_hist) {
			print_metric(sh, e->index);
			continue;
		}
		kc_map_label(label, sizeof(label), e);
		printf("%s: %llu\n", label, e->total);
	}
}

static void json_bucket(struct kc_json *js, const char *label, __u64 min, __u64 max,
			__u64 count)
{
	kc_json_object(js, NULL);
	kc_json_uint(js, "min", min);
	kc_json_uint(js, "max", max);
	kc_json_str(js, "label", label);
	kc_json_uint(js, "count", count);
	kc_json_end(js);
}

static void json_buckets(struct kc_json *js, const struct show *sh, const __u64 *slots)
{
	char label[48];
	unsigned int lo, hi, j;
	__u64 max;

	if (sh->fine) {
		if (!fine_range(slots, &lo, &hi, &max))
			return;
		for (j = lo; j <= hi; j++) {
			slot_label(label, sizeof(label), j);
			json_bucket(js, label, kc_slot_lo(j),
				    j + 1 < KC_NR_SLOTS ? kc_slot_end(j) - 1 : ~0ULL, slots[j]);
		}
		return;
	}
	for (lo = KC_NR_PLAIN, hi = 0, j = 0; j < KC_NR_PLAIN; j++) {
		if (!kc_plain_count(slots, j))
			continue;
		if (lo == KC_NR_PLAIN)
			lo = j;
		hi = j;
	}
	for (j = lo; j <= hi && lo < KC_NR_PLAIN; j++) {
		__u64 min = j < 2 ? j : 1ULL << (j - 1);
		__u64 top = j < 2 ? j : j == 64 ? ~0ULL : (1ULL << j) - 1;

		kc_plain_label(label, sizeof(label), j);
		json_bucket(js, label, min, top, kc_plain_count(slots, j));
	}
}

static void print_json(const struct show *sh)
{
	char map[64];
	struct kc_json js;

	kc_json_init(&js, stdout);
	kc_json_object(&js, NULL);
	kc_json_str(&js, "unit", sh->unit);
	kc_json_bool(&js, "fine", sh->fine);
	kc_json_array(&js, "metrics");
	for (int i = 0; i < sh->nmetrics; i++) {
		unsigned int m = (unsigned int)sh->metrics[i];
		__u64 count = 0;

		for (unsigned int s = 0; s < KC_NR_SLOTS; s++)
			count += sh->slots[m][s];
		map_label(map, sizeof(map), sh->unit, kc_metric_seed(m));
		kc_json_object(&js, NULL);
		kc_json_str(&js, "name", kc_metric_name(m));
		kc_json_str(&js, "map", map);
		kc_json_str(&js, "group", kc_group_name(kc_metric_desc(m)->group));
		kc_json_str(&js, "origin", kc_origin_name(kc_metric_desc(m)->origin));
		kc_json_uint(&js, "count", count);
		kc_json_str(&js, "note", kc_snap_note(&sh->snap, m));
		kc_json_array(&js, "buckets");
		json_buckets(&js, sh, sh->slots[m]);
		kc_json_end(&js);
		kc_json_end(&js);
	}
	kc_json_end(&js);
	kc_json_array(&js, "counters");
	for (unsigned int c = 0; c < KC_NR_COUNTERS; c++) {
		map_label(map, sizeof(map), "n", kc_counter_seed(c));
		kc_json_object(&js, NULL);
		kc_json_str(&js, "name", kc_counter_name(c));
		kc_json_str(&js, "map", map);
		kc_json_uint(&js, "value", sh->snap.counter[c]);
		kc_json_end(&js);
	}
	kc_json_end(&js);
	kc_json_end(&js);
	putchar('\n');
}

/*
 * Metric @m's probes: "kretprobe:kvm_dev_ioctl@kvm", candidates joined by
 * '|'; then the metrics whose probes it rests on too, "on:teardown".
 */
static void print_probes_of(unsigned int m)
{
	const char *sep = "";

	for (unsigned int p = 0; p < KC_NR_PROBES; p++) {
		const struct kc_probe_desc *d = kc_probe_desc(p);

		if (d->metric != m)
			continue;
		printf("%s%s:", sep, d->kind);
		for (unsigned int c = 0; d->symbols[c]; c++)
			printf("%s%s", c ? "|" : "", d->symbols[c]);
		printf("@%s", kc_home_name(d->home));
		sep = " ";
	}
	for (unsigned int i = 0; i < KC_NR_RESTS_ON; i++) {
		if (kc_rests_on(i)->m != m)
			continue;
		printf("%son:%s", sep, kc_metric_name(kc_rests_on(i)->on));
		sep = " ";
	}
}

/* The metric table as the client was built with it (kvmchurn_abi.h). */
static void print_list(void)
{
	char map[64];

	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		const struct kc_metric_desc *d = kc_metric_desc(m);

		map_label(map, sizeof(map), "us", d->seed);
		printf("%s\t%s\t%s\t%s\t%s\t", d->name, kc_group_name(d->group),
		       kc_metric_unit_name(d->unit), map, d->span);
		print_probes_of(m);
		printf("\t%s\n", kc_origin_name(d->origin));
	}
}

static int parse_args(int argc, char *argv[], struct show *sh)
{
	struct kc_opt_parser p;
	int id, m;

	kc_opt_init(&p, "show", argc, argv, 1);
	while ((id = kc_opt_next(&p, options)) != KC_OPT_END) {
		switch (id) {
		case OPT_FINE:
			sh->fine = true;
			break;
		case OPT_UNIT:
			sh->unit_ns = kc_unit_ns(p.value);
			if (!sh->unit_ns)
				return kc_usage_error("show", "invalid value '%s' for --unit: expected us, ns or ms",
						      p.value);
			sh->unit = p.value;
			break;
		case OPT_BPFTRACE:
			sh->bpftrace = true;
			break;
		case OPT_JSON:
			sh->json = true;
			break;
		case OPT_LIST:
			sh->list = true;
			break;
		case OPT_HELP:
			show_print_usage(stdout);
			return KC_EXIT_OK;
		default:
			return KC_EXIT_USAGE;
		}
	}
	if (sh->list && (sh->fine || sh->bpftrace || sh->json || sh->unit_ns || p.index < argc))
		return kc_usage_error("show", "--list prints the metric table: it takes no METRIC and no other option");
	if (sh->fine && sh->bpftrace)
		return kc_usage_error("show", "--fine and --bpftrace cannot be used together: bpftrace's hist() has no sub-buckets");
	if (sh->bpftrace && (sh->json || p.index < argc))
		return kc_usage_error("show", "--bpftrace prints every map: it takes no METRIC and no --json");
	for (; p.index < argc; p.index++) {
		if ((size_t)sh->nmetrics == ARRAY_SIZE(sh->metrics))
			return kc_usage_error("show", "too many metrics");
		m = kc_metric_arg("show", argv[p.index]);
		if (m < 0)
			return KC_EXIT_USAGE;
		sh->metrics[sh->nmetrics++] = m;
	}
	return -1;
}

int cmd_show(int argc, char *argv[], const struct kc_global *g)
{
	struct show *sh = calloc(1, sizeof(*sh));
	bool all;
	int rc;

	if (!sh) {
		perror("kvmchurn show");
		return KC_EXIT_CANNOT_START;
	}
	rc = parse_args(argc, argv, sh);
	if (rc >= 0)
		goto out;
	if (sh->list) {
		print_list();
		rc = KC_EXIT_OK;
		goto out;
	}
	rc = kc_read_module("show", g, &sh->snap, NULL, NULL);
	if (rc)
		goto out;
	if (!sh->unit_ns) {
		sh->unit_ns = sh->snap.unit_ns;
		sh->unit = sh->snap.unit;
	}
	for (unsigned int m = 0; m < KC_NR_METRICS; m++)
		convert_slots(sh, m);
	all = !sh->nmetrics;
	if (all)
		for (unsigned int m = 0; m < KC_NR_METRICS; m++)
			sh->metrics[sh->nmetrics++] = (int)m;
	if (sh->json)
		print_json(sh);
	else if (sh->bpftrace)
		print_bpftrace(sh);
	else if (all)
		print_grouped(sh);
	else
		for (int i = 0; i < sh->nmetrics; i++)
			print_metric(sh, (unsigned int)sh->metrics[i]);
	kc_snap_free(&sh->snap);
out:
	free(sh);
	return rc;
}
