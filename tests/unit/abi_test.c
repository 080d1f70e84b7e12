// SPDX-License-Identifier: GPL-2.0
/*
 * abi_test.c - host tests of kvmchurn_rules.h, the code the module and the
 * client share: the slot layout, and bpftrace's histogram text rendered
 * without floating point. The oracle for the text is bpftrace's own
 * algorithm (output.cpp, hist_to_str) written here with floats.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvmchurn_rules.h"

static int passed, failed;

/* One TAP line a check, as tests/lib/tap.sh writes them. */
static void check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		passed++;
	else
		failed++;
	printf("%s %d - ", ok ? "ok" : "not ok", passed + failed);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* bpftrace: int bar_width = values.at(i)/(float)max_value*max_width; */
static unsigned int float_bar(uint64_t v, uint64_t max)
{
	volatile float q = (float)v / (float)(int)max;
	volatile float r = q * 52;

	return (unsigned int)(int)r;
}

static void test_slots(void)
{
	uint64_t v;
	int p, bad = 0;

	for (v = 0; v < 4; v++)
		check(kc_slot(v) == v, "slot(%" PRIu64 ") = %u", v, kc_slot(v));
	check(kc_slot(4) == 4 && kc_slot(5) == 5 && kc_slot(7) == 7 &&
	      kc_slot(8) == 8 && kc_slot(9) == 8 && kc_slot(10) == 9 &&
	      kc_slot(15) == 11 && kc_slot(16) == 12,
	      "slots of 4..16");
	check(kc_slot(UINT64_MAX) == KC_NR_SLOTS - 1, "slot(U64_MAX) = %u",
	      kc_slot(UINT64_MAX));
	/* Every power of two and its neighbours land in the slot whose range holds them. */
	for (p = 1; p < 64; p++) {
		uint64_t x = 1ULL << p;
		uint64_t probes[3] = { x - 1, x, x + 1 };
		int i;

		for (i = 0; i < 3; i++) {
			unsigned int s = kc_slot(probes[i]);
			uint64_t lo = kc_slot_lo(s);
			uint64_t hi = s + 1 < KC_NR_SLOTS ? kc_slot_lo(s + 1) : 0;

			if (probes[i] < lo || (hi && probes[i] >= hi))
				bad++;
			/* The sub-buckets of a power make up bpftrace's bucket. */
			if (kc_plain_of_slot(s) != (probes[i] < 2 ? probes[i] :
			    (unsigned int)(64 - __builtin_clzll(probes[i]))))
				bad++;
		}
	}
	check(!bad, "powers of two and neighbours: %d misplaced", bad);
	check(kc_slot_lo(KC_NR_SLOTS - 1) == 7ULL << 61, "last slot starts at 7<<61");
}

static void test_bar_width(void)
{
	uint64_t v, max;
	int bad = 0;

	for (max = 1; max <= 3000; max++)
		for (v = 1; v <= max; v++)
			if (kc_bar_width(v, max) != float_bar(v, max)) {
				if (bad++ < 5)
					printf("# bar(%" PRIu64 ", %" PRIu64 ") = %u, float %u\n",
					       v, max, kc_bar_width(v, max),
					       float_bar(v, max));
			}
	/* Large counts, where the conversion to float rounds too. */
	srand(1);
	for (int i = 0; i < 2000000; i++) {
		max = ((uint64_t)rand() << 16 ^ (uint64_t)rand()) % 2000000000 + 1;
		v = ((uint64_t)rand() << 16 ^ (uint64_t)rand()) % max + 1;
		if (kc_bar_width(v, max) != float_bar(v, max)) {
			if (bad++ < 10)
				printf("# bar(%" PRIu64 ", %" PRIu64 ") = %u, float %u\n",
				       v, max, kc_bar_width(v, max),
				       float_bar(v, max));
		}
	}
	check(!bad, "bar widths equal bpftrace's float arithmetic: %d differ", bad);
}

/* bpftrace's hist_index_label(). */
static void oracle_label(char *buf, int power)
{
	char suffix = 0;

	if (power >= 40) {
		suffix = 'T';
		power -= 40;
	} else if (power >= 30) {
		suffix = 'G';
		power -= 30;
	} else if (power >= 20) {
		suffix = 'M';
		power -= 20;
	} else if (power >= 10) {
		suffix = 'K';
		power -= 10;
	}
	if (suffix)
		sprintf(buf, "%d%c", 1 << power, suffix);
	else
		sprintf(buf, "%d", 1 << power);
}

/* bpftrace's hist_to_str() over its 65 buckets (index 0 is negatives). */
static void oracle_hist(const uint64_t *values, char *out)
{
	int min_index = -1, max_index = -1, max_value = 0, i;

	for (i = 0; i < 66; i++) {
		int v = (int)values[i];

		if (v > 0) {
			if (min_index == -1)
				min_index = i;
			max_index = i;
		}
		if (v > max_value)
			max_value = v;
	}
	*out = 0;
	for (i = min_index; max_index != -1 && i <= max_index; i++) {
		char header[64], a[16], b[16], bar[64];
		int w;

		if (i == 1) {
			strcpy(header, "[0]");
		} else if (i == 2) {
			strcpy(header, "[1]");
		} else {
			oracle_label(a, i - 2);
			oracle_label(b, i - 1);
			sprintf(header, "[%s, %s)", a, b);
		}
		w = (int)float_bar(values[i], (uint64_t)max_value);
		memset(bar, '@', w);
		bar[w] = 0;
		out += sprintf(out, "%-16s%8" PRIu64 " |%-52s|\n", header,
			       values[i], bar);
	}
}

static void emit(void *ctx, const char *line)
{
	strcat(ctx, line);
}

static void test_render(void)
{
	static char got[16384], want[16384];
	__u64 slots[KC_NR_SLOTS];
	uint64_t values[66];
	int round, bad = 0;

	srand(2);
	for (round = 0; round < 20000; round++) {
		int n = rand() % 200, k;

		memset(slots, 0, sizeof(slots));
		memset(values, 0, sizeof(values));
		for (k = 0; k < n; k++) {
			/* Values spread over every power, counts up to 1000. */
			uint64_t v = ((uint64_t)rand() << 33 ^ (uint64_t)rand() << 2 ^
				      (uint64_t)rand()) >> (rand() % 64);
			uint64_t c = (uint64_t)(rand() % 1000) + 1;

			slots[kc_slot(v)] += c;
			values[v == 0 ? 1 : v == 1 ? 2 :
			       1 + (64 - __builtin_clzll(v))] += c;
		}
		got[0] = 0;
		kc_render_hist(slots, emit, got);
		oracle_hist(values, want);
		if (strcmp(got, want) && bad++ < 2)
			printf("# got:\n%s# want:\n%s", got, want);
	}
	check(!bad, "rendered histograms equal bpftrace's: %d differ", bad);

	/* One written out, as bpftrace 0.17 prints @us_exit_mmap. */
	memset(slots, 0, sizeof(slots));
	slots[kc_slot(0)] = 1;
	slots[kc_slot(2)] = 2;
	slots[kc_slot(3)] = 1;
	slots[kc_slot(1500)] = 40;
	slots[kc_slot(1100)] = 13;
	got[0] = 0;
	kc_render_hist(slots, emit, got);
	check(!strcmp(got,
		"[0]                    1 |                                                    |\n"
		"[1]                    0 |                                                    |\n"
		"[2, 4)                 3 |@@                                                  |\n"
		"[4, 8)                 0 |                                                    |\n"
		"[8, 16)                0 |                                                    |\n"
		"[16, 32)               0 |                                                    |\n"
		"[32, 64)               0 |                                                    |\n"
		"[64, 128)              0 |                                                    |\n"
		"[128, 256)             0 |                                                    |\n"
		"[256, 512)             0 |                                                    |\n"
		"[512, 1K)              0 |                                                    |\n"
		"[1K, 2K)              53 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"),
	      "written-out histogram:\n%s", got);
	got[0] = 0;
	memset(slots, 0, sizeof(slots));
	kc_render_hist(slots, emit, got);
	check(!got[0], "empty histogram renders nothing");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Percentiles from the slots are within 25 % of the true nearest-rank ones. */
static void test_percentile(void)
{
	static uint64_t vals[5000];
	__u64 slots[KC_NR_SLOTS];
	static const unsigned int pm[] = { 1, 500, 900, 990, 1000 };
	int round, bad = 0;

	memset(slots, 0, sizeof(slots));
	check(kc_percentile(slots, 0, 500, 0) == 0, "percentile of nothing is 0");
	slots[3] = 10;
	check(kc_percentile(slots, 10, 500, 3) == 3, "small values are exact");
	memset(slots, 0, sizeof(slots));
	slots[kc_slot(1000)] = 1;
	check(kc_percentile(slots, 1, 990, 1000) <= 1000, "never above the max");

	srand(3);
	for (round = 0; round < 2000; round++) {
		int n = rand() % 5000 + 1, i, p;
		uint64_t max = 0;

		memset(slots, 0, sizeof(slots));
		for (i = 0; i < n; i++) {
			vals[i] = ((uint64_t)rand() << 20 ^ (uint64_t)rand()) >> (rand() % 44);
			slots[kc_slot(vals[i])]++;
			if (vals[i] > max)
				max = vals[i];
		}
		qsort(vals, n, sizeof(vals[0]), cmp_u64);
		for (p = 0; p < 5; p++) {
			uint64_t rank = ((uint64_t)n * pm[p] + 999) / 1000;
			uint64_t want = vals[(rank ? rank : 1) - 1];
			uint64_t got = kc_percentile(slots, n, pm[p], max);

			/* Same slot, so within a quarter of a power of two. */
			if (kc_slot(got) != kc_slot(want) && got != max) {
				if (bad++ < 5)
					printf("# p%u of %d: got %" PRIu64 ", want %" PRIu64 "\n",
					       pm[p], n, got, want);
			}
		}
	}
	check(!bad, "percentiles land in the true value's slot: %d do not", bad);
}

/* Known distributions, answers worked out by hand from the slot layout. */
static void test_percentile_known(void)
{
	__u64 slots[KC_NR_SLOTS];
	__u64 v;

	/* 1..100: slot [48, 56) holds 48..55; rank 50 is its 3rd of 8. */
	memset(slots, 0, sizeof(slots));
	for (v = 1; v <= 100; v++)
		slots[kc_slot(v)]++;
	check(kc_percentile(slots, 100, 500, 100) == 50, "p50 of 1..100 is 50: %llu",
	      kc_percentile(slots, 100, 500, 100));
	check(kc_percentile(slots, 100, 900, 100) == 90, "p90 of 1..100 is 90: %llu",
	      kc_percentile(slots, 100, 900, 100));
	/* Rank 99 is the 4th of 5 in [96, 112): 96 + 16 * 4 / 6 = 106, then the max. */
	check(kc_percentile_slots(slots, 100, 990) == 106, "p99 of 1..100 before the max: %llu",
	      kc_percentile_slots(slots, 100, 990));
	check(kc_percentile(slots, 100, 990, 100) == 100, "p99 of 1..100 is the max, 100");
	check(kc_percentile(slots, 100, 1, 100) == 1, "p0.1 of 1..100 is 1");
	check(kc_percentile(slots, 100, 1000, 100) == 100, "p100 of 1..100 is 100");

	/* One sample: the middle of its slot, [896, 1024) for 1000. */
	memset(slots, 0, sizeof(slots));
	slots[kc_slot(1000)] = 1;
	check(kc_slot(1000) == 35 && kc_percentile(slots, 1, 500, 1000) == 960,
	      "one sample of 1000: %llu", kc_percentile(slots, 1, 500, 1000));
	check(kc_percentile(slots, 1, 990, 900) == 900, "never above the max given");

	/* Everything in bucket 0. */
	memset(slots, 0, sizeof(slots));
	slots[0] = 10;
	check(kc_percentile(slots, 10, 500, 0) == 0 && kc_percentile(slots, 10, 990, 0) == 0,
	      "all in bucket 0");

	/* 0 to 7 have a slot each: exact. */
	memset(slots, 0, sizeof(slots));
	slots[5] = 4;
	slots[6] = 6;
	check(kc_percentile(slots, 10, 400, 6) == 5 && kc_percentile(slots, 10, 500, 6) == 6,
	      "values 5 and 6 are exact");

	/* The top slot, [7 << 61, U64_MAX]: its middle, without overflow. */
	memset(slots, 0, sizeof(slots));
	slots[KC_NR_SLOTS - 1] = 1;
	check(kc_percentile(slots, 1, 500, ~0ULL) == 17293822569102704639ULL,
	      "one sample in the top slot: %llu", kc_percentile(slots, 1, 500, ~0ULL));

	/* Empty: 0, whatever the max. */
	memset(slots, 0, sizeof(slots));
	check(kc_percentile(slots, 0, 990, 12345) == 0, "empty is 0");
}

static void test_names(void)
{
	check(!strcmp(kc_metric_name(KC_M_EXIT_MMAP), "exit_mmap"), "metric name");
	check(!strcmp(kc_metric_seed(KC_M_EXIT_TO_REAP), "exit_to_reap"), "seed name");
	check(!strcmp(kc_metric_seed(KC_M_IRQBYPASS_UNREGISTER), "irqbypass[unregister]"),
	      "keyed seed name");
	check(!strcmp(kc_counter_seed(KC_C_IRQBYPASS_REGISTER), "irqbypass[register]"),
	      "keyed counter name");
	check(!strcmp(kc_metric_name(KC_NR_METRICS), "?"), "out of range name");
	check(!strcmp(kc_counter_name(KC_C_REAP), "reap"), "counter name");
}

/* The table's own consistency: names unique, every metric probed, every probe named. */
/* Whether metric @m rests, within @depth, on a metric with a probe. */
static bool rests_on_probes(const unsigned int *probes, unsigned int m, unsigned int depth)
{
	for (unsigned int i = 0; depth && i < KC_NR_RESTS_ON; i++) {
		const struct kc_rests_on *r = kc_rests_on(i);

		if (r->m == m && (probes[r->on] || rests_on_probes(probes, r->on, depth - 1)))
			return true;
	}
	return false;
}

static void test_table(void)
{
	unsigned int m, n, p, probes[KC_NR_METRICS] = { 0 };
	int dup = 0, bad = 0;

	for (m = 0; m < KC_NR_METRICS; m++)
		for (n = m + 1; n < KC_NR_METRICS; n++)
			dup += !strcmp(kc_metric_name(m), kc_metric_name(n));
	check(!dup, "metric names are unique");
	for (p = 0; p < KC_NR_PROBES; p++) {
		const struct kc_probe_desc *d = kc_probe_desc(p);

		if (d->metric >= KC_NR_METRICS || !d->symbols[0] || !*d->symbols[0])
			bad++;
		else
			probes[d->metric]++;
	}
	check(!bad, "every probe has a metric and a symbol");
	/*
	 * A metric without a probe of its own rests on metrics that have
	 * one, within KC_RESTS_DEPTH; a row names two known, distinct metrics.
	 */
	for (n = 0, bad = 0; n < KC_NR_RESTS_ON; n++) {
		const struct kc_rests_on *r = kc_rests_on(n);

		bad += r->m >= KC_NR_METRICS || r->on >= KC_NR_METRICS || r->m == r->on;
	}
	check(!bad && KC_NR_RESTS_ON == 36, "KC_RESTS_ON: %u rows of known metrics", KC_NR_RESTS_ON);
	for (m = 0, bad = 0; m < KC_NR_METRICS; m++)
		bad += !probes[m] && !rests_on_probes(probes, m, KC_RESTS_DEPTH);
	check(!bad, "every metric has a probe or rests on metrics that do");
	check(!rests_on_probes(probes, KC_M_TD_OTHER, KC_RESTS_DEPTH - 1) &&
	      rests_on_probes(probes, KC_M_TD_OTHER, KC_RESTS_DEPTH),
	      "td_other rests on signal_to_exit's probe through teardown, two deep");
	check(!probes[KC_M_ST_OTHER] && rests_on_probes(probes, KC_M_ST_OTHER, 1),
	      "st_other rests on the ready probe, startup's own, one deep");
	check(probes[KC_M_STARTUP] == 1 && kc_window_desc(KC_WIN_STARTUP)->metric == KC_M_STARTUP &&
	      kc_window_desc(KC_WIN_STARTUP)->other == KC_M_ST_OTHER &&
	      kc_window_desc(KC_WIN_TEARDOWN)->metric == KC_M_TEARDOWN &&
	      kc_window_desc(KC_WIN_TEARDOWN)->other == KC_M_TD_OTHER &&
	      KC_ST_METRIC(0) == KC_M_STARTUP + 1 && KC_TD_METRIC(0) == KC_M_TEARDOWN + 1 &&
	      kc_window_desc(KC_NR_WINDOWS)->metric == KC_NR_METRICS &&
	      !strcmp(kc_window_desc(KC_WIN_STARTUP)->tag, "accounted-startup") &&
	      !strcmp(kc_window_desc(KC_WIN_TEARDOWN)->tag, "accounted") &&
	      !strcmp(kc_window_desc(KC_NR_WINDOWS)->tag, "?"),
	      "the windows: their metrics, their parts the rows after each, to other; their records");
	for (m = 0, bad = 0, n = 0; m < KC_NR_METRICS; m++) {
		size_t len = strlen(kc_metric_name(m));

		bad += len > KC_METRIC_COL;
		n += len == KC_METRIC_COL;
	}
	check(!bad && n, "KC_METRIC_COL is the longest metric name's length");
	for (m = 0, n = 0; m < KC_NR_METRICS; m++)
		n += kc_metric_desc(m)->origin == KC_ORIGIN_ADDED;
	/* the seed has 13 histograms: kvm_create_vm ... reclaim_memcg */
	check(n == 29 && KC_NR_METRICS - n == 13, "13 of the seed's rows, 29 added: %u added", n);
	check(!strcmp(kc_origin_name(KC_ORIGIN_SEED), "seed") &&
	      !strcmp(kc_origin_name(KC_ORIGIN_ADDED), "added") &&
	      !strcmp(kc_origin_name(KC_NR_ORIGINS), "?"), "origin names");
	check(!strcmp(kc_probe_desc(KC_NR_KRETPROBES)->kind, "tracepoint") &&
	      !strcmp(kc_probe_desc(KC_NR_KRETPROBES - 1)->kind, "kretprobe"),
	      "the kretprobes come first, then the tracepoints");
	check(!strcmp(kc_probe_desc(KC_KRET_TASK_RELEASE)->kind, "kprobe") &&
	      !strcmp(kc_probe_desc(KC_KRET_EXIT_MMAP)->kind, "kretprobe"),
	      "the release only marks the reap: a plain kprobe");
}

/* A metric's note: its own probes' state, then what it rests on, two deep. */
static void test_rests_on_note(void)
{
	struct kc_probe_status st[KC_NR_PROBES];
	const char *attached = kc_probe_state_name(KC_PROBE_ATTACHED);

	memset(st, 0, sizeof(st));
	for (unsigned int p = 0; p < KC_NR_PROBES; p++) {
		st[p].m = kc_probe_desc(p)->metric;
		snprintf(st[p].state, sizeof(st[p].state), "%s", attached);
	}
	check(!*kc_metric_note(st, KC_NR_PROBES, KC_M_TD_OTHER) &&
	      !*kc_metric_note(st, KC_NR_PROBES, KC_M_TEARDOWN), "all attached: no note");
	snprintf(st[KC_KRET_EXIT_MMAP].state, sizeof(st[0].state), "absent");
	check(!strcmp(kc_metric_note(st, KC_NR_PROBES, KC_M_TD_EXIT_MMAP), "absent") &&
	      !*kc_metric_note(st, KC_NR_PROBES, KC_M_TD_DESTROY) &&
	      !*kc_metric_note(st, KC_NR_PROBES, KC_M_TEARDOWN),
	      "exit_mmap's probe absent: td_exit_mmap says so, td_destroy and teardown do not");
	snprintf(st[KC_NR_KRETPROBES + KC_TP_SIGNAL_DELIVER].state, sizeof(st[0].state), "off");
	check(!strcmp(kc_metric_note(st, KC_NR_PROBES, KC_M_TEARDOWN), "off") &&
	      !strcmp(kc_metric_note(st, KC_NR_PROBES, KC_M_TD_OTHER), "off") &&
	      !strcmp(kc_metric_note(st, KC_NR_PROBES, KC_M_TD_EXIT_MMAP), "absent") &&
	      !*kc_metric_note(st, KC_NR_PROBES, KC_M_EXIT_TO_REAPED),
	      "signal_deliver off: the window and its parts say so, its own probe first");
	snprintf(st[KC_KRET_TASK_RELEASE].state, sizeof(st[0].state), "error -2");
	check(!strcmp(kc_metric_note(st, KC_NR_PROBES, KC_M_EXIT_TO_REAPED), "error -2") &&
	      !strcmp(kc_metric_note(st, KC_NR_PROBES, KC_M_TD_TASK_WORK), "error -2") &&
	      !strcmp(kc_metric_note(st, KC_NR_PROBES, KC_M_RCU_FREE), "error -2"),
	      "the release probe failed: exit_to_reaped and the parts it ends say so");
}

/* bpftrace's order: maps by name, the keys of one map by their total. */
static void test_maps(void)
{
	struct kc_map maps[KC_NR_MAPS];
	char label[64], order[1024] = "";

	kc_maps_init(maps, "us");
	for (unsigned int i = 0; i < KC_NR_MAPS; i++)
		maps[i].total = 1;
	maps[KC_M_IRQBYPASS_REGISTER].total = 9;	/* after unregister's 1 */
	kc_maps_sort(maps, KC_NR_MAPS);
	for (unsigned int i = 0; i < KC_NR_MAPS; i++) {
		kc_map_label(label, sizeof(label), &maps[i]);
		strcat(order, label);
		strcat(order, " ");
	}
	check(!strcmp(order, "@n_exit @n_irqbypass[register] @n_irqbypass[unregister] @n_reap "
		      "@n_sigkill @n_sigterm @us_exit_files @us_exit_mmap @us_exit_to_reap "
		      "@us_irqbypass[unregister] @us_irqbypass[register] @us_kvm_create_vm "
		      "@us_kvm_destroy_vcpus @us_kvm_destroy_vm "
		      "@us_kvm_vm_release @us_reclaim_direct @us_reclaim_memcg "
		      "@us_signal_to_exit @us_stage2_destroy @us_exit_to_reaped @us_first_run_setup "
		      "@us_kvm_mmu_teardown @us_mmu_notifier_unregister @us_rcu_free @us_reap_wait "
		      "@us_st_blocked @us_st_create @us_st_first_run @us_st_ioctls @us_st_kernel "
		      "@us_st_other @us_st_runq @us_st_user @us_st_vcpus @us_startup "
		      "@us_td_destroy @us_td_exit_files @us_td_exit_mmap @us_td_other @us_td_release "
		      "@us_td_runq @us_td_task_work @us_td_threads @us_td_wake @us_teardown "
		      "@us_uevent_create @us_uevent_destroy @us_vcpu_create "),
	      "maps in bpftrace's order, kvmchurn's after the seed's: %s", order);

	/* bpftrace prints a count() without a key at 0, nothing else empty. */
	kc_maps_init(maps, "us");
	for (unsigned int i = 0; i < KC_NR_MAPS; i++) {
		bool printed = kc_map_printed(&maps[i]);
		bool want = !maps[i].is_hist && !maps[i].key[0];

		check(printed == want, "empty %s%s%s printed: %d", maps[i].map,
		      maps[i].key[0] ? " key " : "", maps[i].key, printed);
		maps[i].total = 1;
		check(kc_map_printed(&maps[i]), "%s printed with a total", maps[i].map);
	}
}

/* The END checks at their bounds. */
static void test_checks(void)
{
	struct kc_check_in in = { .exits = 5, .reaps = 3, .pending = 2, .pending_exact = true,
				  .registers = 0, .unregisters = 8, .vms = 1, .firecracker = true };
	struct kc_check c[KC_NR_CHECKS];

	kc_checks_eval(&in, c);
	check(c[0].verdict == KC_VERDICT_OK &&
	      !strcmp(c[0].text, "exit 5, reap 3, 2 not reaped yet"), "reap: %s", c[0].text);
	check(c[1].verdict == KC_VERDICT_INFO, "no register, some unregister: INFO");
	check(c[2].verdict == KC_VERDICT_OK, "8 irqfds for 1 VM: OK");
	check(!kc_checks_warn(c), "nothing warns");
	in.pending = 1;
	in.unregisters = 12;
	in.registers = 12;
	kc_checks_eval(&in, c);
	check(c[0].verdict == KC_VERDICT_WARN, "one exit too many: WARN");
	check(c[1].verdict == KC_VERDICT_OK, "12 = 12: OK");
	check(c[2].verdict == KC_VERDICT_WARN && !strcmp(c[2].text, "12 for 1 VMs"),
	      "12 irqfds for 1 VM: WARN (%s)", c[2].text);
	in.pending_exact = false;
	in.pending = 2;
	in.missed = 3;
	kc_checks_eval(&in, c);
	check(!strcmp(c[0].text, "exit 5, reap 3, up to 2 not reaped yet") &&
	      !strcmp(c[0].keys[2], "pairs_in_use"), "a bound: %s", c[0].text);
	check(c[3].verdict == KC_VERDICT_WARN && !strcmp(c[3].text, "3 (raise maxactive=)"),
	      "misses: %s", c[3].text);
	check(kc_checks_warn(c), "something warns");
	in.firecracker = false;
	in.pending = 0;
	in.exits = 3;
	in.missed = 0;
	kc_checks_eval(&in, c);
	check(c[2].verdict == KC_VERDICT_INFO &&
	      !strcmp(c[2].text, "12 for 1 VMs: not judged, the range is firecracker's and the filter traces another VMM"),
	      "another VMM's 12 irqfds for 1 VM: INFO (%s)", c[2].text);
	check(!kc_checks_warn(c), "another VMM: nothing warns");
	in.vms = 0;
	kc_checks_eval(&in, c);
	check(c[2].verdict == KC_VERDICT_OK && !strcmp(c[2].text, "no VM created"),
	      "another VMM, no VM: OK (%s)", c[2].text);
}

/* Which filters the irqfd range is judged for: firecracker alone. */
static void test_filter_firecracker(void)
{
	static const struct { const char *names; bool judged; } cases[] = {
		{ "firecracker", true }, { "firecracker firecracker", true },
		{ "qemu-system-x86", false }, { "*", false }, { "", false },
		{ "firecracker qemu-system-x86", false }, { "qemu firecracker", false },
		{ "firecrackers", false }, { "firecracke", false }, { "firecracker ", false },
		{ " firecracker", false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check(kc_filter_firecracker(cases[i].names) == cases[i].judged,
		      "filter '%s': the irqfd range %s", cases[i].names,
		      cases[i].judged ? "judged" : "told, not judged");
}

int main(void)
{
	test_slots();
	test_filter_firecracker();
	test_bar_width();
	test_render();
	test_percentile();
	test_percentile_known();
	test_names();
	test_table();
	test_rests_on_note();
	test_maps();
	test_checks();
	printf("1..%d\nabi: %d passed, %d failed\n", passed + failed, passed, failed);
	return failed ? 1 : 0;
}
