// SPDX-License-Identifier: GPL-2.0
/*
 * Two snapshots, A and B, stage by stage: each stage's p50 and p99 of both
 * sides as bars on one logarithmic scale, and the change from A to B. A
 * change of at least a quarter is marked; less is within the histograms'
 * resolution (a slot is a quarter of a power of two wide), as `kvmchurn
 * diff` says: the picture of what a kernel patch did to each stage.
 */
#include <math.h>
#include <string.h>

#include "plot.h"

#define LABEL_X		16.0
#define TOP		132.0
#define PITCH		30.0
#define GROUP_GAP	24.0
#define BAR		11.0
#define BARS_W		360.0	/* a panel's bars */
#define PANEL_W		500.0	/* bars, values and the change */
#define SIGNIFICANT	25.0	/* percent */

static const char *const side_colour[2] = { "#7f9cc0", "#e0863a" };
static const unsigned int stat[2] = { KC_PCT_P50, KC_PCT_P99 };
static const char *const stat_name[2] = { "p50", "p99" };

struct scale {
	double lo, hi;		/* ns, powers of ten */
};

static double value(const struct kc_snap *s, unsigned int m, unsigned int pct)
{
	return (double)kc_hist_pct(&s->hist[m], pct) * (double)s->unit_ns;
}

static bool shown(const struct kc_compare *c, unsigned int m)
{
	return c->snap[0]->hist[m].count || c->snap[1]->hist[m].count;
}

static void scale_of(const struct kc_compare *c, struct scale *sc)
{
	double lo = INFINITY, hi = 0;

	for (unsigned int m = 0; m < KC_NR_METRICS; m++)
		for (int i = 0; i < 2; i++)
			for (int k = 0; k < 2; k++) {
				double v = value(c->snap[i], m, stat[k]);

				if (!c->snap[i]->hist[m].count || v <= 0)
					continue;
				lo = v < lo ? v : lo;
				hi = v > hi ? v : hi;
			}
	if (hi == 0)
		lo = hi = 1000;
	sc->lo = pow(10, floor(log10(lo)));
	sc->hi = pow(10, ceil(log10(hi)));
	if (sc->hi <= sc->lo)
		sc->hi = sc->lo * 10;
}

static double x_of(const struct scale *sc, double x0, double v)
{
	if (v < sc->lo)
		return x0;
	return x0 + (log10(v) - log10(sc->lo)) / (log10(sc->hi) - log10(sc->lo)) * BARS_W;
}

static double panel_x(int k)
{
	return 250 + k * (PANEL_W + 20);
}

static void header(FILE *f, const struct kc_compare *c, double bottom,
		   const struct scale *sc)
{
	char line[1024];

	kc_svg_text(f, LABEL_X, 28, "start", 16, 1, KC_SVG_INK,
		    "kvmchurn: each stage's p50 and p99, A against B");
	for (int i = 0; i < 2; i++) {
		const struct kc_snap *s = c->snap[i];

		fprintf(f, "<rect x=\"%.0f\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			LABEL_X, 38 + 18 * i, side_colour[i]);
		snprintf(line, sizeof(line), "%c: %s · %llu VMs made, %llu torn down · filter %s · unit %s",
			 'A' + i, c->path[i], s->hist[KC_M_KVM_CREATE_VM].count,
			 s->hist[KC_M_EXIT_TO_REAP].count,
			 s->has_filter ? s->filter : "?", s->unit);
		kc_svg_text(f, LABEL_X + 18, 48 + 18 * i, "start", 12, 0, KC_SVG_INK, line);
	}
	kc_svg_text(f, LABEL_X, 90, "start", 11, 0, KC_SVG_DIM,
		    "A change of 25 % or more is marked: \xe2\x96\xb2 slower, \xe2\x96\xbc faster. "
		    "Less is within the histograms' resolution (a quarter of a power of two).");
	for (int k = 0; k < 2; k++) {
		double x0 = panel_x(k);

		kc_svg_text(f, x0, TOP - 24, "start", 12, 1, KC_SVG_INK, stat_name[k]);
		fputs("<g class=\"axis\">\n", f);
		for (double v = sc->lo; v <= sc->hi * 1.0001; v *= 10) {
			char label[32];
			double x = x_of(sc, x0, v);

			kc_svg_line(f, x, TOP - 8, x, bottom, KC_SVG_GRID, 1, 0);
			kc_plot_round(label, sizeof(label), v);
			kc_svg_text(f, x, TOP - 11, "middle", 9, 0, KC_SVG_DIM, label);
		}
		fputs("</g>\n", f);
	}
}

/* The change from @a to @b: its text, and whether it is marked. */
static const char *change(char *buf, size_t len, double a, double b, bool have)
{
	double pct;

	if (!have || a <= 0) {
		snprintf(buf, len, "-");
		return KC_SVG_DIM;
	}
	pct = (b - a) / a * 100;
	if (pct >= SIGNIFICANT) {
		snprintf(buf, len, "\xe2\x96\xb2 %+.0f %%", pct);
		return KC_SVG_BAD;
	}
	if (pct <= -SIGNIFICANT) {
		snprintf(buf, len, "\xe2\x96\xbc %+.0f %%", pct);
		return KC_SVG_GOOD;
	}
	snprintf(buf, len, "%+.0f %%", pct);
	return KC_SVG_DIM;
}

static void metric(FILE *f, const struct kc_compare *c, const struct scale *sc,
		   unsigned int m, double y)
{
	const struct kc_snap *a = c->snap[0], *b = c->snap[1];
	char text[512], v[2][2][32];

	for (int i = 0; i < 2; i++)
		for (int k = 0; k < 2; k++)
			kc_plot_duration(v[i][k], sizeof(v[i][k]),
					 value(c->snap[i], m, stat[k]));
	fprintf(f, "<g class=\"metric\" data-metric=\"%s\">\n<title>", kc_metric_name(m));
	snprintf(text, sizeof(text), "%s: %s. A: %llu, p50 %s, p99 %s; B: %llu, p50 %s, p99 %s",
		 kc_metric_name(m), kc_metric_desc(m)->span,
		 a->hist[m].count, a->hist[m].count ? v[0][0] : "-",
		 a->hist[m].count ? v[0][1] : "-", b->hist[m].count,
		 b->hist[m].count ? v[1][0] : "-", b->hist[m].count ? v[1][1] : "-");
	kc_svg_escape(f, text);
	fputs("</title>\n", f);
	kc_svg_text(f, LABEL_X, y + 17, "start", 11, 1, KC_SVG_INK, kc_metric_name(m));
	for (int k = 0; k < 2; k++) {
		double x0 = panel_x(k);
		bool have = a->hist[m].count && b->hist[m].count;
		const char *ink;

		for (int i = 0; i < 2; i++) {
			const struct kc_snap *s = c->snap[i];
			double val = value(s, m, stat[k]), x1 = x_of(sc, x0, val);
			double by = y + 3 + i * (BAR + 2);

			if (!s->hist[m].count)
				continue;
			fprintf(f, "<rect class=\"bar\" data-side=\"%c\" data-stat=\"%s\" data-ns=\"%.0f\" x=\"",
				'a' + i, stat_name[k], val);
			kc_svg_num(f, x0);
			fputs("\" y=\"", f);
			kc_svg_num(f, by);
			fputs("\" width=\"", f);
			kc_svg_num(f, x1 - x0);
			fprintf(f, "\" height=\"%.0f\" fill=\"%s\"/>\n", BAR, side_colour[i]);
			kc_svg_text(f, x1 + 4, by + BAR - 2, "start", 9, 0, KC_SVG_DIM, v[i][k]);
		}
		ink = change(text, sizeof(text), value(a, m, stat[k]),
			     value(b, m, stat[k]), have);
		fprintf(f, "<g class=\"change\" data-stat=\"%s\">", stat_name[k]);
		kc_svg_text(f, x0 + PANEL_W - 8, y + 17, "end", 11,
			    strcmp(ink, KC_SVG_DIM) != 0, ink, text);
		fputs("</g>\n", f);
	}
	fputs("</g>\n", f);
}

void kc_plot_compare(FILE *f, const void *compare)
{
	const struct kc_compare *c = compare;
	unsigned int rows = 0, groups = 0, order[KC_NR_METRICS], n;
	double y = TOP, height;
	int group = -1;
	struct scale sc;

	scale_of(c, &sc);
	n = kc_plot_metric_order(order);
	for (unsigned int i = 0; i < n; i++) {
		unsigned int m = order[i];

		if (!shown(c, m))
			continue;
		rows++;
		if ((int)kc_metric_desc(m)->group != group)
			groups++;
		group = (int)kc_metric_desc(m)->group;
	}
	height = TOP + rows * PITCH + groups * GROUP_GAP + 30;
	kc_svg_begin(f, KC_PLOT_WIDTH, height, "kvmchurn-compare",
		     "kvmchurn: each stage's p50 and p99, A against B");
	header(f, c, TOP + rows * PITCH + groups * GROUP_GAP, &sc);
	group = -1;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int m = order[i];
		enum kc_group g = kc_metric_desc(m)->group;

		if (!shown(c, m))
			continue;
		if ((int)g != group) {
			kc_svg_text(f, LABEL_X, y + 16, "start", 11, 1, KC_SVG_DIM, kc_group_title(g));
			y += GROUP_GAP;
			group = (int)g;
		}
		metric(f, c, &sc, m, y);
		y += PITCH;
	}
	kc_svg_end(f);
}
