/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `kvmchurn plot`: pictures of the module's numbers as SVG (svg.h). The
 * timeline of the VMs (timeline.c), two snapshots' stages side by side
 * (compare.c), the histograms as bars (hist.c); what they share is here
 * (common.c): where the numbers came from, each part's colour, durations
 * as people read them, and time axes.
 */
#ifndef KVMCHURN_PLOT_H
#define KVMCHURN_PLOT_H

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "lib/client.h"
#include "lib/snap.h"
#include "lib/vms.h"
#include "svg.h"

#define KC_PLOT_WIDTH	1280.0	/* every picture's width, in px */

/* Where the numbers came from: the header of every picture. */
struct kc_plot_source {
	bool live;		/* the running module's folder: this host's */
	char host[256], kernel[256], version[64];
	char folder[512];	/* a copied folder or snapshot otherwise */
	char filter[256];	/* the raw file's, or "" */
	time_t read_at;		/* when it was read; 0 when not known */
};

/* The folder @g->dir: this host's when it is the module's own. */
void kc_plot_source_of(const struct kc_global *g, const char *filter,
		       struct kc_plot_source *src);
/* One line of the header: host, kernel, module, filter, unit. */
void kc_plot_source_line(char *buf, size_t len,
			 const struct kc_plot_source *src, const char *unit);

/*
 * The colour of metric @m: a window's parts are spread around the hue
 * circle by the golden angle, alternately dark and light, so that parts
 * side by side differ; the parts nothing names are grey.
 */
struct kc_rgb kc_plot_colour(unsigned int m);

/* Every metric, a group after another (create, exit, ...): how many. */
unsigned int kc_plot_metric_order(unsigned int *order);

/* @ns as a person reads it, 3 significant digits: "873 us", "1.24 s". */
void kc_plot_duration(char *buf, size_t len, double ns);
/* A round number of ns, as an axis labels it: "10 us", "1 s". */
void kc_plot_round(char *buf, size_t len, double ns);
/* An epoch time in ns as local time, "2026-12-07 08:17:06.836 +0000". */
void kc_plot_clock(char *buf, size_t len, unsigned long long ns);

/*
 * A time axis from 0 to @span ns: a step of 1, 2 or 5 times a power of
 * ten that gives at most @most ticks, and the unit its labels are in.
 */
struct kc_plot_axis {
	double span, step, div;	/* ns; div: ns in the labels' unit */
	const char *unit;
	int decimals;
};

void kc_plot_axis(struct kc_plot_axis *a, double span, unsigned int most);
/* The label of the tick at @t ns: "0", "1.5 s". */
void kc_plot_tick(char *buf, size_t len, const struct kc_plot_axis *a,
		  double t);

/* What each picture draws from. */
struct kc_timeline {
	const struct kc_vms *vms;
	const struct kc_plot_source *src;
	bool slowest;
};

struct kc_compare {
	const struct kc_snap *snap[2];
	const char *path[2];
};

struct kc_hists {
	const struct kc_snap *snap;
	const struct kc_plot_source *src;
};

void kc_plot_timeline(FILE *f, const void *timeline);
void kc_plot_compare(FILE *f, const void *compare);
void kc_plot_hists(FILE *f, const void *hists);

#endif /* KVMCHURN_PLOT_H */
