/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's numbers as the client sees them: a snapshot parsed from the
 * `raw` file (raw.c), read from the debugfs folder or from a saved file with
 * errors that say what to do (debugfs.c), and the writes to the control
 * files. Shared by every command that reads or writes the module's files.
 */
#ifndef KVMCHURN_SNAP_H
#define KVMCHURN_SNAP_H

#include <stdbool.h>
#include <stddef.h>

#include "kvmchurn.h"
#include "kvmchurn_abi.h"

/* One histogram as the `hist` record gives it, in the snapshot's unit. */
struct kc_hist {
	bool present;			/* the raw file had its record */
	__u64 count, sum, max;
	__u64 slots[KC_NR_SLOTS];
};

/* One `probe` record. */
struct kc_probe {
	char metric[32];
	int m;				/* enum kc_metric, -1 if unknown */
	char kind[16];
	char symbol[128];
	char state[32];			/* "attached", "absent", "error -22"... */
	__u64 hits, missed;
};

struct kc_snap {
	char unit[4];			/* "us" or "ns" */
	__u64 unit_ns;			/* nanoseconds in one unit */
	int enabled;			/* 0 or 1; -1 when not given */
	bool has_filter;
	char filter[256];
	struct kc_hist hist[KC_NR_METRICS];
	__u64 counter[KC_NR_COUNTERS];
	struct kc_probe *probes;
	size_t nprobes;
	bool has_pairs;
	__u64 pairs_capacity, pairs_used, pairs_dropped, pairs_aged;
};

/*
 * raw.c: parses @len bytes of @text, a `raw` file named @name in messages.
 * 0, or -1 after printing "kvmchurn CMD: NAME: line N: ..." on stderr.
 */
int kc_snap_parse(const char *cmd, const char *name, const char *text,
		  size_t len, struct kc_snap *s);
void kc_snap_free(struct kc_snap *s);
/* The metric named @name, or -1. */
int kc_find_metric(const char *name);

/* What stands between metric @m and its numbers: "" when nothing does. */
const char *kc_snap_note(const struct kc_snap *s, unsigned int m);
/* kretprobe misses of metric @m's probes, and of every probe. */
__u64 kc_snap_missed(const struct kc_snap *s, unsigned int m);
__u64 kc_snap_missed_total(const struct kc_snap *s);
/* Average, rounded down as the module's summary does; 0 when empty. */
__u64 kc_hist_avg(const struct kc_hist *h);
/* kc_percentile() of @h, @permille 0-1000. */
__u64 kc_hist_pct(const struct kc_hist *h, unsigned int permille);

/*
 * Histograms and counters of @now minus those of @before, for interval
 * views. A count that went down means a reset came between them: then the
 * whole of @now is the interval and true is returned.
 */
bool kc_snap_delta(const struct kc_snap *now, const struct kc_snap *before,
		   struct kc_snap *delta);

/*
 * debugfs.c: the raw file of the folder @g->dir, parsed; with @text, its
 * bytes too (free() them). KC_EXIT_OK, or KC_EXIT_CANNOT_START after a
 * message that names the problem and its fix.
 */
int kc_read_module(const char *cmd, const struct kc_global *g,
		   struct kc_snap *s, char **text, size_t *len);
/* A saved snapshot: a raw file, or a folder that holds one. */
int kc_read_snapshot(const char *cmd, const char *path, struct kc_snap *s);
/* Writes @value to the control file @file of @g->dir, in one write(). */
int kc_write_control(const char *cmd, const struct kc_global *g,
		     const char *file, const char *value);

/*
 * For commands that take only -h and, with @json non-NULL, --json: parses
 * them. Returns -1 to go on, or the exit status (usage printed or error).
 * *first is the index of the first operand.
 */
int kc_simple_options(int argc, char *argv[], const char *cmd,
		      const char *usage, bool *json, int *first);
/* The usage error for operands a command does not take; 64. */
int kc_no_operands(const char *cmd, int argc, char *argv[], int first);

/* How a reading command prints a snapshot. */
struct kc_view {
	void (*text)(const struct kc_snap *s);
	void (*json)(const struct kc_snap *s);
	/*
	 * The exit status, decided before anything is printed: with
	 * KC_EXIT_CANNOT_START (after a message) nothing is. NULL: KC_EXIT_OK.
	 */
	int (*status)(const struct kc_snap *s);
};

/*
 * A reading command that takes only --json and -h: parses them, reads the
 * module's raw file and prints it as @view says; returns the exit status.
 */
int kc_view_command(int argc, char *argv[], const struct kc_global *g,
		    const char *cmd, const char *usage,
		    const struct kc_view *view);

/* A control command (enable, disable, reset): no operands, one write. */
int kc_control_command(int argc, char *argv[], const struct kc_global *g,
		       const char *cmd, const char *usage, const char *file,
		       const char *value);

/* view.c: what the views share. */
const char *kc_group_id(unsigned int group);	/* "create", "exit", "reclaim" */
const char *kc_group_title(unsigned int group);
/* The metric named @name, or -1 after a usage error of @cmd. */
int kc_metric_arg(const char *cmd, const char *name);
/* Nanoseconds in a unit named "ns", "us" or "ms"; 0 for anything else. */
__u64 kc_unit_ns(const char *unit);

enum kc_style { KC_BOLD, KC_GOOD, KC_WARN, KC_BAD, KC_INFO, KC_DIM, KC_OFF };
/* The escape sequence of @style on stdout, "" without colour. */
const char *kc_style(enum kc_style style);

/* JSON: a __u64, or null when @present is false. */
void kc_json_u64(FILE *f, const char *key, __u64 v, bool present);
/* kc_snap_note(), or "attached" when nothing keeps the metric from counting. */
const char *kc_snap_state(const struct kc_snap *s, unsigned int m);
/*
 * The JSON members "unit" and "metrics" (name, count, sum, avg, p50, p90,
 * p99, max, nmissed, state): summary's numbers, on stdout.
 */
void kc_json_metrics(const struct kc_snap *s);

#endif /* KVMCHURN_SNAP_H */
