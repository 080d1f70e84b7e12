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

const char show_usage[] =
	"Usage: kvmchurn show [OPTIONS] [METRIC...]\n"
	"\n"
	"Prints histograms in the text that bpftrace prints when the seed script\n"
	"(kvm_churn_breakdown.bt) stops, with its map names (@us_exit_mmap...). Without\n"
	"METRIC, every metric in the seed's reading order, in three groups with their\n"
	"titles (create path, exit path, reclaim), then the counters (@n_*). A metric\n"
	"without data says so, and why when a probe is not attached. With METRICs, only\n"
	"those, in the order given, without titles: `kvmchurn show exit_mmap` is the\n"
	"module's hist/exit_mmap.\n"
	"\n"
	"Metrics: kvm_create_vm, irqbypass_register; signal_to_exit, exit_to_reap,\n"
	"exit_files, exit_mmap, kvm_vm_release, kvm_destroy_vm, kvm_destroy_vcpus,\n"
	"stage2_destroy, kvm_mmu_teardown, irqbypass_unregister; reclaim_direct,\n"
	"reclaim_memcg.\n"
	"\n"
	"Options:\n"
	"  --fine        the four sub-buckets of each power of two, labelled as\n"
	"                bpftrace labels hist(n, 2): [4K, 5K), [5K, 6K)...\n"
	"  --unit UNIT   us, ns or ms (default: the module's unit=). A sub-bucket is\n"
	"                converted whole, at its middle value, so in another unit a\n"
	"                count can land one bucket off; the module's unit is exact\n"
	"  --bpftrace    every map in the order bpftrace prints them (by name, @n_*\n"
	"                first), empty ones left out: the module's `all` file exactly\n"
	"  --json        one JSON object: unit, fine, metrics (name, map, group,\n"
	"                count, note, buckets of min, max, label, count) and counters\n"
	"                (name, map, value)\n"
	"  -h, --help    print this help\n"
	"\n"
	"Exit status: 0, or 2 when the module's raw file cannot be read (see\n"
	"'kvmchurn --help').\n";

enum { OPT_FINE = 1, OPT_UNIT, OPT_BPFTRACE, OPT_JSON, OPT_HELP };

static const struct kc_opt options[] = {
	{ OPT_FINE, 0, "fine", false },
	{ OPT_UNIT, 0, "unit", true },
	{ OPT_BPFTRACE, 0, "bpftrace", false },
	{ OPT_JSON, 0, "json", false },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

struct show {
	bool fine, bpftrace, json;
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

static void print_metric(const struct show *sh, unsigned int m)
{
	const char *note = kc_snap_note(&sh->snap, m);
	bool empty = true;

	for (unsigned int s = 0; s < KC_NR_SLOTS && empty; s++)
		empty = !sh->slots[m][s];
	printf("@%s_%s: ", sh->unit, kc_metric_seed(m));
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
	for (unsigned int g = 0; g < KC_NR_GROUPS; g++) {
		printf("%s=== %s ===%s\n\n", kc_style(KC_BOLD), kc_group_title(g),
		       kc_style(KC_OFF));
		for (unsigned int m = 0; m < KC_NR_METRICS; m++)
			if (kc_metric_desc(m)->group == g)
				print_metric(sh, m);
	}
	printf("%s=== counters ===%s\n\n", kc_style(KC_BOLD), kc_style(KC_OFF));
	for (unsigned int c = 0; c < KC_NR_COUNTERS; c++)
		printf("@n_%s: %llu\n", kc_counter_seed(c), sh->snap.counter[c]);
}

/* One map element of bpftrace's text: a histogram or a counter. */
struct map {
	char name[40];		/* "@us_irqbypass" */
	char key[24];		/* "register", or "" */
	int metric, counter;	/* one of them is -1 */
	__u64 total;
};

static void map_init(struct map *e, const char *prefix, const char *seed)
{
	const char *bracket = strchr(seed, '[');
	int len = bracket ? (int)(bracket - seed) : (int)strlen(seed);

	snprintf(e->name, sizeof(e->name), "@%s_%.*s", prefix, len, seed);
	snprintf(e->key, sizeof(e->key), "%.*s",
		 bracket ? (int)strlen(bracket) - 2 : 0, bracket ? bracket + 1 : "");
}

/* bpftrace: maps by name; the keys of a map by their total, smallest first. */
static int map_cmp(const void *a, const void *b)
{
	const struct map *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->total != y->total)
		return x->total < y->total ? -1 : 1;
	return strcmp(x->key, y->key);
}

static void print_bpftrace(const struct show *sh)
{
	struct map maps[KC_NR_METRICS + KC_NR_COUNTERS];
	unsigned int n = 0, i;

	for (i = 0; i < KC_NR_METRICS; i++) {
		map_init(&maps[n], sh->unit, kc_metric_seed(i));
		maps[n].metric = (int)i;
		maps[n].counter = -1;
		/* As the module: by the count, which a live read may see ahead of the slots. */
		maps[n].total = sh->snap.hist[i].count;
		n++;
	}
	for (i = 0; i < KC_NR_COUNTERS; i++) {
		map_init(&maps[n], "n", kc_counter_seed(i));
		maps[n].metric = -1;
		maps[n].counter = (int)i;
		maps[n].total = sh->snap.counter[i];
		n++;
	}
	qsort(maps, n, sizeof(maps[0]), map_cmp);
	for (i = 0; i < n; i++) {
		const struct map *e = &maps[i];

		if (!e->total)
			continue;
		if (e->metric < 0)
			printf("%s%s%s%s: %llu\n", e->name, *e->key ? "[" : "",
			       e->key, *e->key ? "]" : "", e->total);
		else
			print_metric(sh, (unsigned int)e->metric);
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
		snprintf(map, sizeof(map), "@%s_%s", sh->unit, kc_metric_seed(m));
		kc_json_object(&js, NULL);
		kc_json_str(&js, "name", kc_metric_name(m));
		kc_json_str(&js, "map", map);
		kc_json_str(&js, "group", kc_group_id(kc_metric_desc(m)->group));
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
		snprintf(map, sizeof(map), "@n_%s", kc_counter_seed(c));
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
		case OPT_HELP:
			fputs(show_usage, stdout);
			return KC_EXIT_OK;
		default:
			return KC_EXIT_USAGE;
		}
	}
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
