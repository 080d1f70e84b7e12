/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's numbers as the client sees them: a snapshot parsed from the
 * `raw` file (snap.c), and what every command derives from one. folder.h
 * reads one from the module or from a saved file.
 */
#ifndef KVMCHURN_SNAP_H
#define KVMCHURN_SNAP_H

#include <stdbool.h>
#include <stddef.h>

#include "client.h"
#include "kvmchurn_rules.h"

/* One histogram as the `hist` record gives it, in the snapshot's unit. */
struct kc_hist {
	bool present;			/* the raw file had its record */
	__u64 count, sum, max;
	__u64 slots[KC_NR_SLOTS];
};

struct kc_snap {
	char unit[4];			/* "us" or "ns" */
	__u64 unit_ns;			/* nanoseconds in one unit */
	int enabled;			/* 0 or 1; -1 when not given */
	bool has_filter;
	char filter[256];
	struct kc_hist hist[KC_NR_METRICS];
	__u64 counter[KC_NR_COUNTERS];
	struct kc_probe_status *probes;	/* the `probe` records */
	size_t nprobes;
	bool has_pairs;
	__u64 pairs_capacity, pairs_used, pairs_dropped, pairs_aged;
	bool has_not_reaped;		/* the pairs record's sixth field */
	__u64 pairs_not_reaped;
	/* each window's (enum kc_window): how many, by per mille named */
	bool has_accounted[KC_NR_WINDOWS];
	__u32 accounted[KC_NR_WINDOWS][KC_PERMILLE + 1];
};

/*
 * Parses @len bytes of @text, a `raw` file named @name in messages.
 * 0, or -1 after printing "kvmchurn CMD: NAME: line N: ..." on stderr.
 */
int kc_snap_parse(const char *cmd, const char *name, const char *text,
		  size_t len, struct kc_snap *s);
void kc_snap_free(struct kc_snap *s);
/* Nanoseconds in a unit named "ns", "us" or "ms"; 0 for anything else. */
__u64 kc_unit_ns(const char *unit);
/* The metric named @name, or -1. */
int kc_find_metric(const char *name);

/* What stands between metric @m and its numbers: "" when nothing does. */
const char *kc_snap_note(const struct kc_snap *s, unsigned int m);
/* kretprobe misses of metric @m's probes; of every probe for @m < 0. */
__u64 kc_snap_missed(const struct kc_snap *s, int m);
/* Average, rounded down as the module's summary does; 0 when empty. */
__u64 kc_hist_avg(const struct kc_hist *h);
/* Percentile @pct (enum kc_pct, kvmchurn_abi.h's set) of @h. */
__u64 kc_hist_pct(const struct kc_hist *h, unsigned int pct);

/*
 * Histograms and counters of @now minus those of @before, for interval
 * views. A count that went down means a reset came between them: then the
 * whole of @now is the interval and true is returned.
 */
bool kc_snap_delta(const struct kc_snap *now, const struct kc_snap *before,
		   struct kc_snap *delta);

#endif /* KVMCHURN_SNAP_H */
