// SPDX-License-Identifier: GPL-2.0
/*
 * Every metric's histogram as bars: the seed's log2 buckets (bpftrace's
 * plain hist(), as `show` prints them), a panel a metric, the count over
 * each bar, and p50, p90 and p99 marked where they fall.
 */
#include <math.h>
#include <string.h>

#include "plot.h"

#define COLUMNS		3
#define MARGIN		16.0
#define GAP		20.0
#define TOP		100.0
#define PANEL_H		200.0
#define BARS_TOP	72.0	/* from the panel's top */
#define BARS_H		100.0
#define BAR_FILL	"#5b84b1"

static const char *const pct_ink[KC_NR_PCTS] = { "#1e8449", "#b9770e", "#c0392b" };

/* The plain bucket of value @v: [0], [1], then [2^(j-1), 2^j). */
static unsigned int bucket_of(__u64 v)
{
	return kc_plain_of_slot(kc_slot(v));
}

/* Where @v falls across its bucket, 0 to 1. */
static double within(__u64 v)
{
	unsigned int j = bucket_of(v);

	return j < 2 ? 0.5 : log2((double)v) - (j - 1);
}

/* The label of bucket @j's start: "0", "1", "2", ..., "1K". */
static void bucket_label(char *buf, size_t len, unsigned int j)
{
	if (j < 2)
		snprintf(buf, len, "%u", j);
	else
		kc_power_label(buf, len, (int)j - 1);
}

static void panel(FILE *f, const struct kc_snap *s, unsigned int m, double px,
		  double py, double pw)
{
	const struct kc_hist *h = &s->hist[m];
	unsigned int lo = KC_NR_PLAIN, hi = 0, every = 1;
	double x0 = px + 4, aw = pw - 8, bw, base = py + BARS_TOP + BARS_H;
	char line[256], v[KC_NR_PCTS][32];
	__u64 max = 0;

	for (unsigned int j = 0; j < KC_NR_PLAIN; j++) {
		__u64 c = kc_plain_count(h->slots, j);

		if (!c)
			continue;
		lo = lo == KC_NR_PLAIN ? j : lo;
		hi = j;
		max = c > max ? c : max;
	}
	if (lo == KC_NR_PLAIN)
		return;
	bw = aw / (hi - lo + 1);
	fprintf(f, "<g class=\"hist\" data-metric=\"%s\" data-count=\"%llu\">\n<title>",
		kc_metric_name(m), (unsigned long long)h->count);
	kc_svg_escape(f, kc_metric_desc(m)->span);
	fputs("</title>\n", f);
	fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\" stroke=\"%s\"/>\n",
		px, py, pw, PANEL_H, KC_SVG_GRID);
	snprintf(line, sizeof(line), "%s · %llu · %s", kc_metric_name(m),
		 (unsigned long long)h->count, s->unit);
	kc_svg_text(f, px + 8, py + 18, "start", 12, 1, KC_SVG_INK, line);
	for (unsigned int k = 0; k < KC_NR_PCTS; k++)
		snprintf(v[k], sizeof(v[k]), "%llu", (unsigned long long)kc_hist_pct(h, k));
	snprintf(line, sizeof(line), "p50 %s · p90 %s · p99 %s · max %llu", v[0], v[1],
		 v[2], (unsigned long long)h->max);
	kc_svg_text(f, px + 8, py + 34, "start", 10, 0, KC_SVG_DIM, line);
	/* every label as wide as the widest ("512K"): one in @every fits */
	while (kc_svg_text_width("512K", 8) + 2 > bw * every)
		every++;
	for (unsigned int j = lo; j <= hi; j++) {
		__u64 c = kc_plain_count(h->slots, j);
		double x = x0 + (j - lo) * bw, bh = (double)c / (double)max * BARS_H;
		char count[24], label[16];

		kc_plain_label(line, sizeof(line), j);
		fprintf(f, "<rect class=\"bucket\" data-bucket=\"%s\" data-count=\"%llu\" x=\"",
			line, (unsigned long long)c);
		kc_svg_num(f, x + 0.5);
		fputs("\" y=\"", f);
		kc_svg_num(f, base - bh);
		fputs("\" width=\"", f);
		kc_svg_num(f, bw - 1);
		fputs("\" height=\"", f);
		kc_svg_num(f, bh);
		fprintf(f, "\" fill=\"" BAR_FILL "\"><title>%s: %llu</title></rect>\n", line,
			(unsigned long long)c);
		snprintf(count, sizeof(count), "%llu", (unsigned long long)c);
		if (c && kc_svg_text_width(count, 8) + 1 <= bw)
			kc_svg_text(f, x + bw / 2, base - bh - 2, "middle", 8, 0,
				    KC_SVG_INK, count);
		if ((j - lo) % every)
			continue;
		bucket_label(label, sizeof(label), j);
		kc_svg_text(f, x, base + 11, "start", 8, 0, KC_SVG_DIM, label);
	}
	kc_svg_line(f, x0, base, x0 + aw, base, KC_SVG_DIM, 1, 0);
	for (unsigned int k = 0; k < KC_NR_PCTS; k++) {
		__u64 p = kc_hist_pct(h, k);
		double x = x0 + (bucket_of(p) - lo + within(p)) * bw;

		fprintf(f, "<g class=\"pct\" data-pct=\"%s\" data-value=\"%llu\">",
			kc_pct_name(k), (unsigned long long)p);
		kc_svg_line(f, x, py + 40 + 8 * k, x, base, pct_ink[k], 1.5, 1);
		kc_svg_text(f, x + 2, py + 46 + 8 * k, "start", 8, 1,
			    pct_ink[k], kc_pct_name(k));
		fputs("</g>\n", f);
	}
	fputs("</g>\n", f);
}

void kc_plot_hists(FILE *f, const void *hists)
{
	const struct kc_hists *hs = hists;
	const struct kc_snap *s = hs->snap;
	double pw = (KC_PLOT_WIDTH - 2 * MARGIN - (COLUMNS - 1) * GAP) / COLUMNS;
	unsigned int n = 0, k = 0, order[KC_NR_METRICS], all;
	char line[1024], empty[1024];
	size_t e = 0;
	double height;

	empty[0] = '\0';
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		if (s->hist[m].count)
			n++;
		else if (e < sizeof(empty))
			e += (size_t)snprintf(empty + e, sizeof(empty) - e, "%s%s",
					      e ? ", " : "", kc_metric_name(m));
	}
	height = TOP + ((n + COLUMNS - 1) / COLUMNS) * (PANEL_H + GAP) + 30;
	kc_svg_begin(f, KC_PLOT_WIDTH, height, "kvmchurn-hist",
		     "kvmchurn: every metric's histogram");
	kc_svg_text(f, MARGIN, 28, "start", 16, 1, KC_SVG_INK,
		    "kvmchurn: every metric's histogram, in log2 buckets");
	kc_plot_source_line(line, sizeof(line), hs->src, s->unit);
	kc_svg_text(f, MARGIN, 48, "start", 12, 0, KC_SVG_INK, line);
	kc_svg_text(f, MARGIN, 66, "start", 11, 0, KC_SVG_DIM,
		    "A bar a bucket [2^k, 2^(k+1)), labelled by its start; p50, p90 and p99 within 25 % (Documentation/ABI.rst).");
	snprintf(line, sizeof(line), "no data: %.1000s", e ? empty : "none");
	kc_svg_text(f, MARGIN, 84, "start", 11, 0, KC_SVG_DIM, line);
	all = kc_plot_metric_order(order);
	for (unsigned int i = 0; i < all; i++) {
		unsigned int m = order[i];

		if (!s->hist[m].count)
			continue;
		panel(f, s, m, MARGIN + (k % COLUMNS) * (pw + GAP),
		      TOP + (k / COLUMNS) * (PANEL_H + GAP), pw);
		k++;
	}
	kc_svg_end(f);
}
