/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmchurn_rules.h - the rules that the module and the client both apply to
 * kvmchurn_abi.h's numbers, written once: the slot layout's arithmetic and
 * percentiles, bpftrace's text of a histogram and the order of its maps, the
 * summary's columns, a metric's note, and the seed's END checks.
 *
 * Compiled in the kernel (render.c, hist.c) and in userspace (C11). Nothing
 * here allocates or sleeps: kc_slot() runs in probe context.
 */
#ifndef KVMCHURN_RULES_H
#define KVMCHURN_RULES_H

#include "kvmchurn_abi.h"

#ifdef __KERNEL__
#include <linux/math64.h>
#include <linux/string.h>
#else
#include <stdio.h>
#include <string.h>
#endif

static inline int kc_fls64(__u64 v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

static inline unsigned int kc_slot(__u64 v)
{
	int p;

	if (v < KC_SUBS)
		return (unsigned int)v;
	p = kc_fls64(v) - 1;
	return KC_SUBS + KC_SUBS * (p - KC_SUB_BITS) +
	       (unsigned int)((v >> (p - KC_SUB_BITS)) & (KC_SUBS - 1));
}

/* Smallest value that lands in @slot. */
static inline __u64 kc_slot_lo(unsigned int slot)
{
	unsigned int p, sub;

	if (slot < KC_SUBS)
		return slot;
	p = (slot - KC_SUBS) / KC_SUBS + KC_SUB_BITS;
	sub = (slot - KC_SUBS) % KC_SUBS;
	return ((__u64)(KC_SUBS + sub)) << (p - KC_SUB_BITS);
}

/* The bpftrace plain-hist() bucket that @slot belongs to. */
static inline unsigned int kc_plain_of_slot(unsigned int slot)
{
	if (slot < 2)
		return slot;
	if (slot < KC_SUBS)
		return 2;
	return (slot - KC_SUBS) / KC_SUBS + 3;
}

/* First value past @slot (the last slot ends at U64_MAX). */
static inline __u64 kc_slot_end(unsigned int slot)
{
	return slot + 1 < KC_NR_SLOTS ? kc_slot_lo(slot + 1) : ~0ULL;
}

/* Percentile from the slots alone (see kc_percentile()). */
static inline __u64 kc_percentile_slots(const __u64 *slots, __u64 count,
					unsigned int permille)
{
	__u64 rank, seen = 0, d, k;
	unsigned int s;

	if (!count)
		return 0;
	/* The smallest rank r with r >= count * permille / 1000, at least 1. */
	rank = (count * permille + 999) / 1000;
	if (!rank)
		rank = 1;
	for (s = 0; s < KC_NR_SLOTS; s++) {
		__u64 lo, width;

		if (!slots[s] || seen + slots[s] < rank) {
			seen += slots[s];
			continue;
		}
		lo = kc_slot_lo(s);
		if (s < KC_SUBS)
			return lo;
		/* lo + width * k / d, without overflow (no 128-bit division). */
		width = kc_slot_end(s) - lo;
		k = rank - seen;
		d = slots[s] + 1;
		return lo + width / d * k + width % d * k / d;
	}
	return kc_slot_lo(KC_NR_SLOTS - 1);
}

/*
 * The value below which @permille of the @count values in @slots lie,
 * interpolated linearly inside its slot and never above @max, the largest
 * value seen. Slots 0-3 hold one value each; above, a slot is a quarter of a
 * power of two wide, so the result is within 25 % of the true value
 * (documented in Documentation/ABI.rst).
 */
static inline __u64 kc_percentile(const __u64 *slots, __u64 count,
				  unsigned int permille, __u64 max)
{
	__u64 v = kc_percentile_slots(slots, count, permille);

	return v > max ? max : v;
}

/* bpftrace's hist_index_label(): 1, 2, ..., 512, 1K, ..., 512K, 1M, ... */
static inline void kc_power_label(char *buf, size_t len, int power)
{
	static const char suffix[] = "\0KMGT";
	int s = power >= 40 ? 4 : power / 10;

	if (s)
		snprintf(buf, len, "%d%c", 1 << (power - 10 * s), suffix[s]);
	else
		snprintf(buf, len, "%d", 1 << power);
}

/* Label of plain bucket @j: "[0]", "[1]", "[2, 4)", "[1K, 2K)"... */
static inline void kc_plain_label(char *buf, size_t len, unsigned int j)
{
	char lo[16], hi[16];

	if (j < 2) {
		snprintf(buf, len, "[%u]", j);
		return;
	}
	kc_power_label(lo, sizeof(lo), (int)j - 1);
	kc_power_label(hi, sizeof(hi), (int)j);
	snprintf(buf, len, "[%s, %s)", lo, hi);
}

/*
 * Round @x to the 24-bit significand of an IEEE single, to nearest even:
 * returns m and sets *e so that the rounded value is m << *e (m <= 2^24).
 */
static inline __u64 kc_round24(__u64 x, int *e)
{
	int bits = kc_fls64(x);
	int s = bits > 24 ? bits - 24 : 0;
	__u64 m, rem, half;

	*e = s;
	if (!s)
		return x;
	m = x >> s;
	rem = x & ((1ULL << s) - 1);
	half = 1ULL << (s - 1);
	if (rem > half || (rem == half && (m & 1)))
		m++;
	return m;
}

#define KC_BAR_WIDTH 52
#define KC_LABEL_LEN	48	/* "[512T, 1024T)" and room to spare */
#define KC_LINE_LEN	128

/*
 * bpftrace computes a bar as (int)(count / (float)max * 52) in single
 * precision. The kernel has no floats, so do the same two roundings on
 * integers: q = fl(a / b), then fl(q * 52), truncated. Exact for 0 < count
 * <= max; tests/unit compares it with the float expression.
 */
static inline unsigned int kc_bar_width(__u64 count, __u64 max)
{
	int ea, eb, k, er, shift;
	__u64 a, b, m, rem, r;

	if (!count || !max)
		return 0;
	if (count >= max)
		return KC_BAR_WIDTH;
	a = kc_round24(count, &ea);
	b = kc_round24(max, &eb);
	/* Scale so that m = round(a * 2^k / b) has 24 significant bits. */
	k = 23 + kc_fls64(b) - kc_fls64(a);
	if ((a << k) / b < (1ULL << 23))
		k++;
	m = (a << k) / b;
	rem = (a << k) % b;
	if (2 * rem > b || (2 * rem == b && (m & 1)))
		m++;
	r = kc_round24(m * KC_BAR_WIDTH, &er);
	/* value = r * 2^(er - k + ea - eb); it is below 52, so shift right. */
	shift = k - er - ea + eb;
	if (shift >= 64)
		return 0;
	return (unsigned int)(shift > 0 ? r >> shift : r << -shift);
}

/* One line of a bpftrace histogram, newline included. */
static inline int kc_hist_line(char *buf, size_t len, const char *label,
			       __u64 count, __u64 max)
{
	static const char bar[] =
		"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";

	return snprintf(buf, len, "%-16s%8llu |%-52.*s|\n", label,
			(unsigned long long)count,
			(int)kc_bar_width(count, max), bar);
}

/* Count of plain bucket @j, summed from its sub-bucket slots. */
static inline __u64 kc_plain_count(const __u64 *slots, unsigned int j)
{
	unsigned int first, n, i;
	__u64 sum = 0;

	if (j < 2)
		return slots[j];
	first = j == 2 ? 2 : KC_SUBS + KC_SUBS * (j - 3);
	n = j == 2 ? 2 : KC_SUBS;
	for (i = 0; i < n; i++)
		sum += slots[first + i];
	return sum;
}

/*
 * Renders @slots as bpftrace prints a plain hist(): the buckets from the
 * first to the last non-empty one, one line each, passed to @emit. Nothing
 * for an empty histogram.
 */
static inline void kc_render_hist(const __u64 *slots,
				  void (*emit)(void *ctx, const char *line),
				  void *ctx)
{
	unsigned int j, lo = KC_NR_PLAIN, hi = 0;
	char label[KC_LABEL_LEN], line[KC_LINE_LEN];
	__u64 c, max = 0;

	for (j = 0; j < KC_NR_PLAIN; j++) {
		c = kc_plain_count(slots, j);
		if (!c)
			continue;
		if (lo == KC_NR_PLAIN)
			lo = j;
		hi = j;
		if (c > max)
			max = c;
	}
	for (j = lo; j <= hi && lo < KC_NR_PLAIN; j++) {
		kc_plain_label(label, sizeof(label), j);
		kc_hist_line(line, sizeof(line), label,
			     kc_plain_count(slots, j), max);
		emit(ctx, line);
	}
}

/* One element of a seed map: a histogram or a counter, maybe keyed. */
struct kc_map {
	char map[32];		/* "@us_irqbypass" */
	char key[16];		/* "register", or "" */
	bool is_hist;
	bool added;		/* kvmchurn's, not the seed's: printed after */
	unsigned int index;	/* enum kc_metric or enum kc_counter */
	__u64 total;		/* what orders the keys of one map */
};

#define KC_NR_MAPS	(KC_NR_METRICS + KC_NR_COUNTERS)

/* @seed "irqbypass[register]" under @prefix "us": @us_irqbypass, key "register". */
static inline void kc_map_init(struct kc_map *map, const char *prefix,
			       const char *seed, bool is_hist,
			       unsigned int index)
{
	const char *bracket = strchr(seed, '[');
	size_t len = bracket ? (size_t)(bracket - seed) : strlen(seed);

	snprintf(map->map, sizeof(map->map), "@%s_%.*s", prefix, (int)len,
		 seed);
	snprintf(map->key, sizeof(map->key), "%.*s",
		 bracket ? (int)strlen(bracket) - 2 : 0,
		 bracket ? bracket + 1 : "");
	map->is_hist = is_hist;
	map->added = false;
	map->index = index;
	map->total = 0;
}

/*
 * Every map, histograms (@<unit>_*) first in metric order, then the
 * counters (@n_*): KC_NR_MAPS of them, totals 0.
 */
static inline void kc_maps_init(struct kc_map *maps, const char *unit)
{
	unsigned int i, n = 0;

	for (i = 0; i < KC_NR_METRICS; i++) {
		kc_map_init(&maps[n], unit, kc_metric_seed(i), true, i);
		maps[n++].added = kc_metric_desc(i)->origin == KC_ORIGIN_ADDED;
	}
	for (i = 0; i < KC_NR_COUNTERS; i++)
		kc_map_init(&maps[n++], "n", kc_counter_seed(i), false, i);
}

/*
 * bpftrace prints its maps in the order of their names, and the keys of one
 * map by their total count, smallest first. kvmchurn's additions come after
 * all of the seed's maps, in the same order among themselves, so that the
 * seed's part reads as bpftrace prints it.
 */
static inline int kc_map_cmp(const struct kc_map *x, const struct kc_map *y)
{
	int c;

	if (x->added != y->added)
		return x->added ? 1 : -1;
	c = strcmp(x->map, y->map);
	if (c)
		return c;
	if (x->total != y->total)
		return x->total < y->total ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* Sorts @n maps into bpftrace's order; a handful, so by insertion. */
static inline void kc_maps_sort(struct kc_map *maps, unsigned int n)
{
	unsigned int i, j;

	for (i = 1; i < n; i++) {
		struct kc_map m = maps[i];

		for (j = i; j > 0 && kc_map_cmp(&maps[j - 1], &m) > 0; j--)
			maps[j] = maps[j - 1];
		maps[j] = m;
	}
}

/*
 * Whether bpftrace prints a map's element: whatever it holds when it has
 * recorded something; at zero only a count() without a key ("@n_sigterm: 0"),
 * which is a one-element array from the start. A histogram or a key that has
 * recorded nothing does not exist, and prints nothing.
 */
static inline bool kc_map_printed(const struct kc_map *map)
{
	return map->total || (!map->is_hist && !map->key[0]);
}

/* The line that opens a map's element: "@n_exit" or "@us_irqbypass[register]". */
static inline void kc_map_label(char *buf, size_t len, const struct kc_map *map)
{
	if (map->key[0])
		snprintf(buf, len, "%s[%s]", map->map, map->key);
	else
		snprintf(buf, len, "%s", map->map);
}

/*
 * The summary: a header, then a row a metric whose cells are the name, the
 * count, then avg, the percentiles and max ("-" each when empty), then the
 * missed calls and the unit, then the note after two spaces when there is
 * one. KC_SUMMARY_MISSED is the width of the missed column.
 */
#define KC_SUMMARY_MISSED	8

static inline void kc_summary_head(char *buf, size_t len)
{
	snprintf(buf, len, "%-*s %9s %11s %11s %11s %11s %11s %8s  %s",
		 KC_METRIC_COL, "metric", "count", "avg", kc_pct_name(KC_PCT_P50),
		 kc_pct_name(KC_PCT_P90), kc_pct_name(KC_PCT_P99), "max",
		 "nmissed", "unit");
}

/* The mean, rounded down; 0 when empty. */
static inline __u64 kc_avg(__u64 sum, __u64 count)
{
#ifdef __KERNEL__
	return count ? div64_u64(sum, count) : 0;
#else
	return count ? sum / count : 0;
#endif
}

/*
 * How much of a partitioned window (a start-up, a teardown) its parts name:
 * 1 - other / window, in per mille, rounded down (an empty window is all
 * named).
 */
#define KC_PERMILLE	1000

static inline unsigned int kc_accounted_permille(__u64 window, __u64 other)
{
	if (!window)
		return KC_PERMILLE;
	if (other > window)
		other = window;
#ifdef __KERNEL__
	return (unsigned int)div64_u64((window - other) * KC_PERMILLE, window);
#else
	return (unsigned int)((window - other) * KC_PERMILLE / window);
#endif
}

/* The accounted shares of n windows: their median, 10th percentile, least. */
struct kc_accounted {
	__u64 n;
	unsigned int p50, p10, min;	/* per mille */
};

/* The value of 0-based rank @r among @count[0..KC_PERMILLE] (r < n). */
static inline unsigned int kc_permille_rank(const __u32 *count, __u64 r)
{
	unsigned int v;

	for (v = 0; v < KC_PERMILLE; v++) {
		if (r < count[v])
			break;
		r -= count[v];
	}
	return v;
}

/*
 * @a from @count[v], how many windows were v per mille accounted: sorted
 * least first, min is rank 0, p10 rank n/10 and p50 rank n/2.
 */
static inline void kc_accounted_stats(const __u32 *count,
				      struct kc_accounted *a)
{
	unsigned int v;

	a->n = 0;
	for (v = 0; v <= KC_PERMILLE; v++)
		a->n += count[v];
	a->min = a->n ? kc_permille_rank(count, 0) : 0;
#ifdef __KERNEL__
	a->p10 = a->n ? kc_permille_rank(count, div_u64(a->n, 10)) : 0;
#else
	a->p10 = a->n ? kc_permille_rank(count, a->n / 10) : 0;
#endif
	a->p50 = a->n ? kc_permille_rank(count, a->n / 2) : 0;
}

/* The cells of a row from the name to max, without the column after max. */
static inline void kc_summary_cells(char *buf, size_t len, const char *name,
				    __u64 count, __u64 sum, __u64 max,
				    const __u64 *slots)
{
	size_t n = (size_t)snprintf(buf, len, "%-*s %9llu", KC_METRIC_COL,
				    name, (unsigned long long)count);
	unsigned int p;

	if (!count) {
		snprintf(buf + n, len - n, " %11s %11s %11s %11s %11s", "-",
			 "-", "-", "-", "-");
		return;
	}
	n += (size_t)snprintf(buf + n, len - n, " %11llu",
			      (unsigned long long)kc_avg(sum, count));
	for (p = 0; p < KC_NR_PCTS && n < len; p++)
		n += (size_t)snprintf(buf + n, len - n, " %11llu",
				      (unsigned long long)kc_percentile(slots,
				      count, kc_pct_permille(p), max));
	if (n < len)
		snprintf(buf + n, len - n, " %11llu", (unsigned long long)max);
}

#define KC_SUMMARY_LEN	160

/*
 * One probe as `probes` lists it and raw's `probe` record gives it; the
 * client also keeps those of metrics it does not know (m is -1).
 */
struct kc_probe_status {
	char metric[KC_METRIC_LEN];
	int m;				/* enum kc_metric, -1 if unknown */
	char kind[KC_KIND_LEN];
	char symbol[KC_SYMBOL_LEN];
	char state[KC_STATE_LEN];	/* "attached", "absent", "error -22"... */
	__u64 hits, missed;
};

/* A probe's state as printed: its name, and an error's number. */
static inline void kc_probe_state_text(char *buf, size_t len,
				       enum kc_probe_state state, int err)
{
	if (state == KC_PROBE_ERROR)
		snprintf(buf, len, "%s %d", kc_probe_state_name(state), err);
	else
		snprintf(buf, len, "%s", kc_probe_state_name(state));
}

static inline bool kc_probe_attached(const struct kc_probe_status *p)
{
	return !strcmp(p->state, kc_probe_state_name(KC_PROBE_ATTACHED));
}

/*
 * What stands between metric @m and its numbers: the state of the first
 * probe it needs that is not attached (its own, then those it rests on,
 * @depth more levels of KC_RESTS_ON), or "" when all are.
 */
static inline const char *kc_metric_note_of(const struct kc_probe_status *probes,
					    size_t n, unsigned int m,
					    unsigned int depth)
{
	const char *note;
	size_t i;

	for (i = 0; i < n; i++)
		if (probes[i].m == (int)m && !kc_probe_attached(&probes[i]))
			return probes[i].state;
	for (i = 0; depth && i < KC_NR_RESTS_ON; i++) {
		if (kc_rests_on(i)->m != m)
			continue;
		note = kc_metric_note_of(probes, n, kc_rests_on(i)->on,
					 depth - 1);
		if (*note)
			return note;
	}
	return "";
}

static inline const char *kc_metric_note(const struct kc_probe_status *probes,
					 size_t n, unsigned int m)
{
	return kc_metric_note_of(probes, n, m, KC_RESTS_DEPTH);
}

/* The calls that metric @m's kretprobes missed; every probe's for @m < 0. */
static inline __u64 kc_metric_missed(const struct kc_probe_status *probes,
				     size_t n, int m)
{
	__u64 missed = 0;
	size_t i;

	for (i = 0; i < n; i++)
		if (m < 0 || probes[i].m == m)
			missed += probes[i].missed;
	return missed;
}

/*
 * The seed script's END checks: what they are computed from, and each
 * one's verdict, name, text and the numbers behind it by name.
 */
struct kc_check_in {
	__u64 exits, reaps;
	__u64 pending;		/* exits not reaped yet, or a bound of them */
	bool pending_exact;	/* else the pairing entries in use: a bound, */
				/* exact when 0 */
	__u64 registers, unregisters;
	__u64 vms;		/* kvm_create_vm's count */
	__u64 missed;		/* every kretprobe's */
	__u64 dropped;		/* pairing table inserts that found no room */
	bool firecracker;	/* the filter names KC_IRQFDS_VMM alone */
	/* each window's partitioned (enum kc_window) */
	struct kc_accounted accounted[KC_NR_WINDOWS];
};

enum kc_verdict { KC_VERDICT_OK, KC_VERDICT_WARN, KC_VERDICT_INFO };

#define KC_CHECK_VALUES	4
#define KC_CHECK_TEXT	192
#define KC_NR_CHECKS	(5 + KC_NR_WINDOWS)

struct kc_check {
	enum kc_verdict verdict;
	const char *name;
	char text[KC_CHECK_TEXT];
	unsigned int nvalues;
	const char *keys[KC_CHECK_VALUES];
	__u64 values[KC_CHECK_VALUES];
};

static inline const char *kc_verdict_name(enum kc_verdict v)
{
	return v == KC_VERDICT_OK ? "OK" : v == KC_VERDICT_WARN ? "WARN" :
	       "INFO";
}

static inline bool kc_checks_warn(const struct kc_check *checks)
{
	unsigned int i;

	for (i = 0; i < KC_NR_CHECKS; i++)
		if (checks[i].verdict == KC_VERDICT_WARN)
			return true;
	return false;
}

static inline void kc_check_set(struct kc_check *c, const char *name, bool ok)
{
	c->name = name;
	c->verdict = ok ? KC_VERDICT_OK : KC_VERDICT_WARN;
	c->nvalues = 0;
}

static inline void kc_check_value(struct kc_check *c, const char *key,
				  __u64 value)
{
	if (c->nvalues < KC_CHECK_VALUES) {
		c->keys[c->nvalues] = key;
		c->values[c->nvalues++] = value;
	}
}

/* Exits still waiting for their reap are in the pairing table. */
static inline void kc_check_reap(struct kc_check *c,
				 const struct kc_check_in *in)
{
	kc_check_set(c, "exit = reap", in->exits <= in->reaps + in->pending &&
		     in->reaps <= in->exits + in->pending);
	snprintf(c->text, sizeof(c->text),
		 "exit %llu, reap %llu, %s%llu not reaped yet",
		 (unsigned long long)in->exits, (unsigned long long)in->reaps,
		 in->pending_exact || !in->pending ? "" : "up to ",
		 (unsigned long long)in->pending);
	kc_check_value(c, "exit", in->exits);
	kc_check_value(c, "reap", in->reaps);
	kc_check_value(c, in->pending_exact ? "not_reaped" : "pairs_in_use",
		       in->pending);
}

static inline void kc_check_irqbypass(struct kc_check *c,
				      const struct kc_check_in *in)
{
	kc_check_set(c, "irqbypass register = unregister",
		     in->registers == in->unregisters);
	if (!in->registers && in->unregisters) {
		c->verdict = KC_VERDICT_INFO;
		snprintf(c->text, sizeof(c->text),
			 "register 0, unregister %llu: this host does not post interrupts (no APICv/AVIC or IOMMU posting), so KVM registers no consumer",
			 (unsigned long long)in->unregisters);
	} else {
		snprintf(c->text, sizeof(c->text),
			 "register %llu, unregister %llu",
			 (unsigned long long)in->registers,
			 (unsigned long long)in->unregisters);
	}
	kc_check_value(c, "register", in->registers);
	kc_check_value(c, "unregister", in->unregisters);
}

/*
 * Does the filter @names (as the raw file gives it: names joined by one
 * space) trace Firecracker alone, the VMM whose irqfds the seed's range is
 * for? Another VMM makes as many as its devices ask (QEMU: one a virtio
 * queue vector the guest enables, none for a VM that never ran), and "*"
 * mixes every process: their ratio is told, not judged.
 */
static inline bool kc_filter_firecracker(const char *names)
{
	const char *want = KC_IRQFDS_VMM;
	const char *p = names;

	if (!*p)
		return false;
	for (;;) {
		const char *w = want;

		while (*w && *p == *w) {
			p++;
			w++;
		}
		if (*w || (*p && *p != ' '))
			return false;
		if (!*p)
			return true;
		p++;
	}
}

static inline void kc_check_irqfds(struct kc_check *c,
				   const struct kc_check_in *in)
{
	kc_check_set(c, "irqbypass unregister per VM in "
		     KC_STR(KC_IRQFDS_PER_VM_MIN) "-" KC_STR(KC_IRQFDS_PER_VM_MAX),
		     !in->vms ||
		     (in->unregisters >= KC_IRQFDS_PER_VM_MIN * in->vms &&
		      in->unregisters <= KC_IRQFDS_PER_VM_MAX * in->vms));
	if (in->vms && !in->firecracker) {
		c->verdict = KC_VERDICT_INFO;
		snprintf(c->text, sizeof(c->text),
			 "%llu for %llu VMs: not judged, the range is "
			 KC_IRQFDS_VMM "'s and the filter traces another VMM",
			 (unsigned long long)in->unregisters,
			 (unsigned long long)in->vms);
	} else if (in->vms) {
		snprintf(c->text, sizeof(c->text), "%llu for %llu VMs",
			 (unsigned long long)in->unregisters,
			 (unsigned long long)in->vms);
	} else {
		snprintf(c->text, sizeof(c->text), "no VM created");
	}
	kc_check_value(c, "unregister", in->unregisters);
	kc_check_value(c, "vms", in->vms);
}

/* A count that must be 0, and what to raise when it is not. */
static inline void kc_check_zero(struct kc_check *c, const char *name,
				 const char *key, __u64 v, const char *raise)
{
	kc_check_set(c, name, !v);
	snprintf(c->text, sizeof(c->text), "%llu%s%s%s",
		 (unsigned long long)v, v ? " (raise " : "", v ? raise : "",
		 v ? ")" : "");
	kc_check_value(c, key, v);
}

/* A per mille share as text, "99.8 %" */
#define KC_PERMILLE_LEN	16

static inline const char *kc_permille_text(char *buf, size_t len,
					   unsigned int pm)
{
	snprintf(buf, len, "%u.%u %%", pm / 10, pm % 10);
	return buf;
}

/*
 * Not a verdict: how much of the windows @a their parts name. @name is
 * the check's; @key names their number, and is their plural in the text.
 */
static inline void kc_check_accounted(struct kc_check *c, const char *name,
				      const char *key,
				      const struct kc_accounted *a)
{
	char p50[KC_PERMILLE_LEN], p10[KC_PERMILLE_LEN], min[KC_PERMILLE_LEN];

	kc_check_set(c, name, true);
	c->verdict = KC_VERDICT_INFO;
	if (a->n)
		snprintf(c->text, sizeof(c->text),
			 "p50 %s, p10 %s, min %s of %llu %s",
			 kc_permille_text(p50, sizeof(p50), a->p50),
			 kc_permille_text(p10, sizeof(p10), a->p10),
			 kc_permille_text(min, sizeof(min), a->min),
			 (unsigned long long)a->n, key);
	else
		snprintf(c->text, sizeof(c->text), "none partitioned");
	kc_check_value(c, key, a->n);
	kc_check_value(c, "p50_permille", a->p50);
	kc_check_value(c, "p10_permille", a->p10);
	kc_check_value(c, "min_permille", a->min);
}

/* The KC_NR_CHECKS checks of @in, in the order both sides print them. */
static inline void kc_checks_eval(const struct kc_check_in *in,
				  struct kc_check *out)
{
	unsigned int w;

	kc_check_reap(&out[0], in);
	kc_check_irqbypass(&out[1], in);
	kc_check_irqfds(&out[2], in);
	kc_check_zero(&out[3], "nmissed = 0", "nmissed", in->missed,
		      "maxactive=");
	kc_check_zero(&out[4], "pairing drops = 0", "dropped", in->dropped,
		      "pairs=");
	for (w = 0; w < KC_NR_WINDOWS; w++)
		kc_check_accounted(&out[5 + w], kc_window_desc(w)->title,
				   kc_window_desc(w)->key, &in->accounted[w]);
}

#endif /* KVMCHURN_RULES_H */
