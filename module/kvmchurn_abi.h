/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmchurn_abi.h - what the module and the client must agree on, defined once.
 *
 * This header compiles in the kernel and in userspace (C11). It owns:
 *   - the metric names (and the seed script's map names),
 *   - the histogram slot layout: log2 with 4 linear sub-buckets per power of
 *     two, the layout of bpftrace's hist(n, 2); summing the 4 sub-buckets of
 *     a power gives bpftrace's plain hist() exactly,
 *   - bpftrace's text rendering of a plain hist(), byte for byte,
 *   - the version and line tags of the `raw` debugfs file.
 */
#ifndef KVMCHURN_ABI_H
#define KVMCHURN_ABI_H

#ifdef __KERNEL__
#include <linux/kernel.h>
#include <linux/types.h>
#else
#include <linux/types.h>
#include <stdbool.h>
#include <stdio.h>
#endif

/* The metrics, in the seed script's reading order. */
enum kc_metric {
	/* create path: once per VM */
	KC_M_KVM_CREATE_VM,
	KC_M_IRQBYPASS_REGISTER,
	/* exit path, after the VMM is signalled */
	KC_M_SIGNAL_TO_EXIT,
	KC_M_EXIT_TO_REAP,
	KC_M_EXIT_FILES,
	KC_M_EXIT_MMAP,
	KC_M_KVM_VM_RELEASE,
	KC_M_KVM_DESTROY_VM,
	KC_M_KVM_DESTROY_VCPUS,
	KC_M_STAGE2_DESTROY,
	KC_M_KVM_MMU_TEARDOWN,
	KC_M_IRQBYPASS_UNREGISTER,
	/* reclaim stalls, on either path */
	KC_M_RECLAIM_DIRECT,
	KC_M_RECLAIM_MEMCG,
	KC_NR_METRICS
};

/* The three groups of the seed's reading guide, by their first metric. */
enum kc_group {
	KC_G_CREATE,
	KC_G_EXIT,
	KC_G_RECLAIM,
	KC_NR_GROUPS
};

struct kc_metric_desc {
	const char *name;
	const char *seed;	/* the seed's map name after "@us_" */
	const char *span;	/* what starts and ends the interval */
	enum kc_group group;
};

static inline const struct kc_metric_desc *kc_metric_desc(unsigned int m)
{
	static const struct kc_metric_desc descs[KC_NR_METRICS] = {
		[KC_M_KVM_CREATE_VM] = { "kvm_create_vm", "kvm_create_vm",
			"KVM_CREATE_VM ioctl entry -> return", KC_G_CREATE },
		[KC_M_IRQBYPASS_REGISTER] = { "irqbypass_register",
			"irqbypass[register]",
			"irq_bypass_register_consumer() entry -> return",
			KC_G_CREATE },
		[KC_M_SIGNAL_TO_EXIT] = { "signal_to_exit", "signal_to_exit",
			"first SIGTERM/SIGKILL delivery -> leader sched_process_exit",
			KC_G_EXIT },
		[KC_M_EXIT_TO_REAP] = { "exit_to_reap", "exit_to_reap",
			"leader sched_process_exit -> sched_process_free",
			KC_G_EXIT },
		[KC_M_EXIT_FILES] = { "exit_files", "exit_files",
			"longest exit_files() of the process's threads, entry -> return",
			KC_G_EXIT },
		[KC_M_EXIT_MMAP] = { "exit_mmap", "exit_mmap",
			"exit_mmap() entry -> return", KC_G_EXIT },
		[KC_M_KVM_VM_RELEASE] = { "kvm_vm_release", "kvm_vm_release",
			"kvm_vm_release() entry -> return", KC_G_EXIT },
		[KC_M_KVM_DESTROY_VM] = { "kvm_destroy_vm", "kvm_destroy_vm",
			"kvm_destroy_vm() entry -> return", KC_G_EXIT },
		[KC_M_KVM_DESTROY_VCPUS] = { "kvm_destroy_vcpus",
			"kvm_destroy_vcpus",
			"kvm_destroy_vcpus() entry -> return", KC_G_EXIT },
		[KC_M_STAGE2_DESTROY] = { "stage2_destroy", "stage2_destroy",
			"kvm_pgtable_stage2_destroy() entry -> return", KC_G_EXIT },
		[KC_M_KVM_MMU_TEARDOWN] = { "kvm_mmu_teardown",
			"kvm_mmu_teardown",
			"kvm_arch_flush_shadow_all() entry -> return", KC_G_EXIT },
		[KC_M_IRQBYPASS_UNREGISTER] = { "irqbypass_unregister",
			"irqbypass[unregister]",
			"irq_bypass_unregister_consumer() entry -> return (kworker)",
			KC_G_EXIT },
		[KC_M_RECLAIM_DIRECT] = { "reclaim_direct", "reclaim_direct",
			"mm_vmscan_direct_reclaim_begin -> _end, same task",
			KC_G_RECLAIM },
		[KC_M_RECLAIM_MEMCG] = { "reclaim_memcg", "reclaim_memcg",
			"mm_vmscan_memcg_reclaim_begin -> _end, same task",
			KC_G_RECLAIM },
	};
	static const struct kc_metric_desc unknown = { "?", "?", "?", 0 };

	return m < KC_NR_METRICS ? &descs[m] : &unknown;
}

static inline const char *kc_metric_name(unsigned int m)
{
	return kc_metric_desc(m)->name;
}

static inline const char *kc_metric_seed(unsigned int m)
{
	return kc_metric_desc(m)->seed;
}

/* Event counters, printed as the seed's @n_<seed name>. */
enum kc_counter {
	KC_C_SIGTERM,
	KC_C_SIGKILL,
	KC_C_EXIT,
	KC_C_REAP,
	KC_C_IRQBYPASS_REGISTER,
	KC_C_IRQBYPASS_UNREGISTER,
	KC_NR_COUNTERS
};

static inline const char *kc_counter_name(unsigned int c)
{
	static const char *const names[KC_NR_COUNTERS] = {
		[KC_C_SIGTERM] = "sigterm",
		[KC_C_SIGKILL] = "sigkill",
		[KC_C_EXIT] = "exit",
		[KC_C_REAP] = "reap",
		[KC_C_IRQBYPASS_REGISTER] = "irqbypass_register",
		[KC_C_IRQBYPASS_UNREGISTER] = "irqbypass_unregister",
	};

	return c < KC_NR_COUNTERS ? names[c] : "?";
}

/* The seed's map name after "@n_": irqbypass counters are one keyed map. */
static inline const char *kc_counter_seed(unsigned int c)
{
	if (c == KC_C_IRQBYPASS_REGISTER)
		return "irqbypass[register]";
	if (c == KC_C_IRQBYPASS_UNREGISTER)
		return "irqbypass[unregister]";
	return kc_counter_name(c);
}

/*
 * Slot layout. Values 0..3 each have their own slot; a value v >= 4 with
 * p = floor(log2(v)) goes to slot 4 + 4 * (p - 2) + the two bits below the
 * leading one. Slot 251 holds [7 << 61, U64_MAX].
 */
#define KC_SUB_BITS	2
#define KC_SUBS		4	/* 1 << KC_SUB_BITS */
#define KC_NR_SLOTS	(KC_SUBS + KC_SUBS * (64 - KC_SUB_BITS))
/* bpftrace's plain hist(): [0], [1], then [2^p, 2^(p+1)) for p = 1..63. */
#define KC_NR_PLAIN	65

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

/*
 * The `raw` file. First line "kvmchurn-raw <version>", then one record a
 * line, fields separated by one tab:
 *   unit	us|ns
 *   enabled	0|1
 *   filter	<names, space separated>
 *   slots	<KC_NR_SLOTS>
 *   hist	<metric>	<count>	<sum>	<max>	<slot>:<n>,...   ("-" if empty)
 *   counter	<name>	<value>
 *   probe	<metric>	<kind>	<symbol>	<state>	<hits>	<missed>
 * Readers skip record tags they do not know; a change to an existing record
 * bumps the version.
 */
#define KC_RAW_MAGIC	"kvmchurn-raw"
#define KC_RAW_VERSION	1

#endif /* KVMCHURN_ABI_H */
