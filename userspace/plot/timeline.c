// SPDX-License-Identifier: GPL-2.0
/*
 * The timeline of the VMs, as `systemd-analyze plot` draws a boot: a row a
 * VM, wall-clock time across, its start-up and its teardown each a run of
 * coloured parts (kc_vm_segments()), a thin line while it ran between. A
 * churn's windows are short beside the seconds it spans (a teardown of
 * 50 ms is 4 px of 15 s), so the same rows follow with each window from its
 * own start, the start-ups on one scale and the teardowns on another: where
 * each VM's time went. Every element a test looks for has a class; each
 * window says the width its parts must fill (data-width) and each lane its
 * scale (data-px-per-ns), so that a browser can measure what it drew.
 */
#include <string.h>

#include "plot.h"

#define LEFT		250.0	/* the rows' labels */
#define RIGHT		24.0
#define TOP		100.0	/* the first section */
#define SECTION		66.0	/* a section's title and axis, above its rows */
#define PITCH		22.0
#define BAR		16.0
#define LABEL_SIZE	10.0
#define LEGEND_PITCH	17.0
#define LANE_GAP	24.0
#define TICKS		12

/* Where times go across: ns from a lane's origin, 0 at x0 to span at x1. */
struct lane {
	const char *name;	/* clock, startup, teardown */
	bool empty;		/* no VM shown has a time to draw in it */
	unsigned long long span;
	double x0, x1, px_per_ns;
};

static void lane_init(struct lane *l, const char *name, unsigned long long span,
		      double x0, double x1)
{
	l->name = name;
	l->empty = !span;
	l->span = span ? span : 1;
	l->x0 = x0;
	l->x1 = x1;
	l->px_per_ns = (x1 - x0) / (double)l->span;
}

/* @t ns since the epoch, in @l whose 0 is @origin. */
static double x_of(const struct lane *l, unsigned long long origin,
		   unsigned long long t)
{
	return l->x0 + (double)(t - origin) * l->px_per_ns;
}

/* The first creation and the last window's end of the VMs shown. */
static void extent(const struct kc_vms *v, unsigned long long *t0,
		   unsigned long long *t1)
{
	*t0 = ~0ULL;
	*t1 = 0;
	for (size_t i = v->first; i < v->n; i++) {
		const struct kc_vm *r = &v->vm[i];

		*t0 = r->created_ns < *t0 ? r->created_ns : *t0;
		*t1 = r->created_ns > *t1 ? r->created_ns : *t1;
		for (unsigned int w = 0; w < KC_NR_WINDOWS; w++)
			if (kc_vm_window_end(v, r, w) > *t1)
				*t1 = kc_vm_window_end(v, r, w);
	}
	if (*t0 == ~0ULL)
		*t0 = *t1 = 0;
}

/* The longest window @w of the VMs shown, in ns. */
static unsigned long long longest(const struct kc_vms *v, unsigned int w)
{
	unsigned long long most = 0;

	for (size_t i = v->first; i < v->n; i++) {
		const struct kc_vm *r = &v->vm[i];
		unsigned long long end = kc_vm_window_end(v, r, w);

		if (end && end - kc_vm_window_start(r, w) > most)
			most = end - kc_vm_window_start(r, w);
	}
	return most;
}

static void header(FILE *f, const struct kc_timeline *tl,
		   unsigned long long t0, unsigned long long t1)
{
	const struct kc_vms *v = tl->vms;
	char line[1024], first[64], span[32], read[64];
	size_t n = v->n - v->first;

	if (tl->slowest)
		snprintf(line, sizeof(line), "kvmchurn: the %zu slowest VMs by exit_to_reap, slowest first", n);
	else
		snprintf(line, sizeof(line), "kvmchurn: the last %zu VMs, start-up and teardown", n);
	kc_svg_text(f, 16, 28, "start", 16, 1, KC_SVG_INK, line);
	kc_plot_source_line(line, sizeof(line), tl->src, v->unit);
	kc_svg_text(f, 16, 48, "start", 12, 0, KC_SVG_INK, line);
	kc_plot_clock(first, sizeof(first), t0);
	kc_plot_duration(span, sizeof(span), (double)(t1 - t0));
	n = (size_t)snprintf(line, sizeof(line),
			     "from %s (the first KVM_CREATE_VM), %s to the last window's end",
			     first, span);
	if (tl->src->read_at) {
		kc_plot_clock(read, sizeof(read),
			      (unsigned long long)tl->src->read_at * 1000000000ULL);
		snprintf(line + n, sizeof(line) - n, "; read %s", read);
	}
	kc_svg_text(f, 16, 66, "start", 12, 0, KC_SVG_INK, line);
	n = 0;
	line[0] = '\0';
	for (unsigned int w = 0; w < KC_NR_WINDOWS; w++) {
		char p50[KC_PERMILLE_LEN], mn[KC_PERMILLE_LEN];
		struct kc_accounted a;

		kc_vms_accounted(v, w, &a);
		if (!a.n || n >= sizeof(line))
			continue;
		n += (size_t)snprintf(line + n, sizeof(line) - n,
				      "%s%s named by its parts: p50 %s, min %s of %llu VMs",
				      n ? " · " : "", kc_metric_name(kc_window_desc(w)->metric),
				      kc_permille_text(p50, sizeof(p50), a.p50),
				      kc_permille_text(mn, sizeof(mn), a.min),
				      (unsigned long long)a.n);
	}
	if (!n)
		snprintf(line, sizeof(line), "no window partitioned: a module before the accounting, or no VM ran");
	kc_svg_text(f, 16, 84, "start", 12, 0, KC_SVG_DIM, line);
}

/* A section's title, and the axis of each of its lanes down to @bottom. */
static void section(FILE *f, const char *title, const struct lane *lanes,
		    unsigned int n, double top, double bottom)
{
	kc_svg_text(f, 16, top + 16, "start", 13, 1, KC_SVG_INK, title);
	for (unsigned int k = 0; k < n; k++) {
		const struct lane *l = &lanes[k];
		struct kc_plot_axis a;
		char label[32];

		kc_plot_axis(&a, (double)l->span, TICKS * (l->x1 - l->x0) / (KC_PLOT_WIDTH - LEFT - RIGHT));
		fprintf(f, "<g class=\"axis\" data-lane=\"%s\" data-px-per-ns=\"%.9g\" data-x0=\"",
			l->name, l->px_per_ns);
		kc_svg_num(f, l->x0);
		fputs("\">\n", f);
		if (n > 1)
			kc_svg_text(f, l->x0, top + 34, "start", 11, 1, KC_SVG_DIM,
				    kc_metric_name(kc_window_desc(k)->metric));
		if (l->empty) {
			kc_svg_text(f, l->x0, top + SECTION - 16, "start", 10, 0, KC_SVG_DIM,
				    "none of these VMs has one");
			fputs("</g>\n", f);
			continue;
		}
		for (double t = 0; t <= a.span * (1 + 1e-9); t += a.step) {
			double x = l->x0 + t * l->px_per_ns;

			kc_svg_line(f, x, top + SECTION - 12, x, bottom, KC_SVG_GRID, 1, 0);
			kc_plot_tick(label, sizeof(label), &a, t);
			kc_svg_text(f, x, top + SECTION - 16, "middle", 10, 0, KC_SVG_DIM, label);
		}
		fputs("</g>\n", f);
	}
}

/*
 * @part of @whole in per mille; a file from elsewhere may give a window of
 * no time with parts that took some (tests/unit/fuzz/).
 */
static unsigned int share_of(unsigned long long part, unsigned long long whole)
{
	double p = whole ? (double)part * KC_PERMILLE / (double)whole : 0;

	return p < 1e9 ? (unsigned int)p : 1000000000u;
}

/* A rect of a window, with its <title>. */
static void segment(FILE *f, const char *part, double x, double y, double w,
		    const char *fill, const char *title)
{
	fprintf(f, "<rect class=\"seg\" data-part=\"%s\" x=\"", part);
	kc_svg_num(f, x);
	fputs("\" y=\"", f);
	kc_svg_num(f, y);
	fputs("\" width=\"", f);
	kc_svg_num(f, w);
	fprintf(f, "\" height=\"%.0f\" fill=\"%s\"><title>", BAR, fill);
	kc_svg_escape(f, title);
	fputs("</title></rect>\n", f);
}

/* Window @w of @r, its parts laid end to end, in @l whose 0 is @origin. */
static void window(FILE *f, const struct kc_vms *v, const struct lane *l,
		   unsigned long long origin, const struct kc_vm *r,
		   unsigned int w, double y)
{
	enum kc_metric wm = kc_window_desc(w)->metric;
	unsigned long long start = kc_vm_window_start(r, w), whole = r->sum[wm];
	struct kc_vm_seg seg[KC_VM_MAX_SEGS];
	unsigned int n = kc_vm_segments(r, w, seg);
	double x = x_of(l, origin, start);
	char text[512], hex[8], dur[32];

	fprintf(f, "<g class=\"window\" data-lane=\"%s\" data-window=\"%s\" data-sum=\"%llu\" data-x=\"",
		l->name, kc_metric_name(wm), whole);
	kc_svg_num(f, x);
	fputs("\" data-width=\"", f);
	kc_svg_num(f, (double)(whole * v->unit_ns) * l->px_per_ns);
	fputs("\">\n", f);
	kc_plot_duration(dur, sizeof(dur), (double)(whole * v->unit_ns));
	if (!n) {
		/* a window with no parts: drawn whole, in the grey of "other" */
		snprintf(text, sizeof(text), "%s: %llu %s (%s), not partitioned",
			 kc_metric_name(wm), whole, v->unit, dur);
		segment(f, "", x, y, x_of(l, origin, start + whole * v->unit_ns) - x,
			KC_SVG_OTHER, text);
		fputs("</g>\n", f);
		return;
	}
	for (unsigned int i = 0; i < n; i++) {
		unsigned long long a = start + seg[i].start * v->unit_ns;
		double sx = x_of(l, origin, a);
		double sw = x_of(l, origin, a + seg[i].len * v->unit_ns) - sx;
		struct kc_rgb c = kc_plot_colour(seg[i].metric);
		const char *name = kc_metric_name(seg[i].metric);
		char share[KC_PERMILLE_LEN], part[32];
		size_t k;

		kc_plot_duration(part, sizeof(part), (double)(seg[i].len * v->unit_ns));
		kc_permille_text(share, sizeof(share), share_of(seg[i].len, whole));
		k = (size_t)snprintf(text, sizeof(text), "%s: %llu %s (%s), %s of the %s (%s)",
				     name, seg[i].len, v->unit, part, share,
				     kc_metric_name(wm), dur);
		if (seg[i].first && k < sizeof(text))
			snprintf(text + k, sizeof(text) - k, "; first at +%llu %s",
				 seg[i].first - 1, v->unit);
		segment(f, name, sx, y, sw, kc_svg_hex(hex, c), text);
		if (kc_svg_text_width(name, LABEL_SIZE) + 4 <= sw)
			kc_svg_text(f, sx + sw / 2, y + BAR - 4.5, "middle", LABEL_SIZE,
				    0, kc_svg_ink_on(c), name);
	}
	fputs("</g>\n", f);
}

/* The row's label: the VMM's pid and name. */
static void label(FILE *f, const struct kc_vm *r, double y)
{
	char text[64];

	snprintf(text, sizeof(text), "%lu %s", r->tgid, r->comm);
	kc_svg_text(f, 16, y + BAR - 4, "start", 11, 0, KC_SVG_INK, text);
}

/*
 * VM @i: its row on the wall clock at @y (its windows and the line while
 * it ran), then its row at @y2 with each window from its own start.
 */
static void row(FILE *f, const struct kc_vms *v, const struct lane *lanes,
		unsigned long long t0, size_t i, double y, double y2)
{
	const struct kc_vm *r = &v->vm[i];
	unsigned long long st_end = kc_vm_window_end(v, r, KC_WIN_STARTUP);
	unsigned long long td_end = kc_vm_window_end(v, r, KC_WIN_TEARDOWN);
	char text[256], when[64], ran[32];

	kc_plot_clock(when, sizeof(when), r->created_ns);
	fprintf(f, "<g class=\"vm\" data-tgid=\"%lu\" data-created=\"%s\">\n<title>",
		r->tgid, r->created);
	snprintf(text, sizeof(text), "pid %lu (%s), its VM created %s", r->tgid,
		 r->comm, when);
	kc_svg_escape(f, text);
	fputs("</title>\n", f);
	label(f, r, y);
	if (st_end && td_end && r->td.began_ns > st_end) {
		kc_plot_duration(ran, sizeof(ran), (double)(r->td.began_ns - st_end));
		snprintf(text, sizeof(text), "ran %s, from ready to its teardown", ran);
		fputs("<g class=\"running\"><title>", f);
		kc_svg_escape(f, text);
		fputs("</title>\n", f);
		kc_svg_line(f, x_of(&lanes[0], t0, st_end), y + BAR / 2,
			    x_of(&lanes[0], t0, r->td.began_ns), y + BAR / 2,
			    KC_SVG_DIM, 2, 0);
		fputs("</g>\n", f);
	}
	for (unsigned int w = 0; w < KC_NR_WINDOWS; w++)
		if (kc_vm_window_end(v, r, w))
			window(f, v, &lanes[0], t0, r, w, y);
	label(f, r, y2);
	for (unsigned int w = 0; w < KC_NR_WINDOWS; w++)
		if (kc_vm_window_end(v, r, w))
			window(f, v, &lanes[1 + w], kc_vm_window_start(r, w), r, w, y2);
	fputs("</g>\n", f);
}

/* Whether a VM shown has part @m of window @w. */
static bool part_seen(const struct kc_vms *v, unsigned int w, unsigned int m)
{
	for (size_t i = v->first; i < v->n; i++)
		if (kc_vm_partitioned(&v->vm[i], w) && v->vm[i].sum[m])
			return true;
	return false;
}

/* The parts any VM shown has, of window @w, a line each; lines used. */
static unsigned int legend(FILE *f, const struct kc_vms *v, unsigned int w,
			   double x, double y)
{
	const struct kc_window_desc *d = kc_window_desc(w);
	unsigned int lines = 1;
	char hex[8];

	if (f) {
		fputs("<g class=\"legend\"><title>", f);
		kc_svg_escape(f, kc_metric_desc(d->metric)->span);
		fputs("</title>\n", f);
		kc_svg_text(f, x, y, "start", 11, 1, KC_SVG_INK,
			    w == KC_WIN_STARTUP ? "start-up: KVM_CREATE_VM to its first vCPU's first entry" :
			    "teardown: the first fatal signal, or exit, to the leader's free");
	}
	for (unsigned int m = d->metric + 1; m <= d->other; m++) {
		double ly = y + lines * LEGEND_PITCH;

		if (!part_seen(v, w, m))
			continue;
		lines++;
		if (!f)
			continue;
		fprintf(f, "<g class=\"legend-item\" data-part=\"%s\">\n<rect x=\"", kc_metric_name(m));
		kc_svg_num(f, x);
		fputs("\" y=\"", f);
		kc_svg_num(f, ly - 10);
		fprintf(f, "\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
			kc_svg_hex(hex, kc_plot_colour(m)));
		kc_svg_text(f, x + 18, ly, "start", 10, 1, KC_SVG_INK, kc_metric_name(m));
		kc_svg_text(f, x + 108, ly, "start", 10, 0, KC_SVG_DIM, kc_metric_desc(m)->span);
		fputs("</g>\n", f);
	}
	if (f)
		fputs("</g>\n", f);
	return lines;
}

void kc_plot_timeline(FILE *f, const void *timeline)
{
	const struct kc_timeline *tl = timeline;
	const struct kc_vms *v = tl->vms;
	double rows = (double)(v->n - v->first), mid = (LEFT + KC_PLOT_WIDTH - RIGHT) / 2;
	double top2 = TOP + SECTION + rows * PITCH + 16, y, height;
	double bottom2 = top2 + SECTION + rows * PITCH;
	unsigned long long t0, t1;
	struct lane lanes[1 + KC_NR_WINDOWS];
	unsigned int lines = 0;
	char title[128];

	extent(v, &t0, &t1);
	lane_init(&lanes[0], "clock", t1 - t0, LEFT, KC_PLOT_WIDTH - RIGHT);
	lane_init(&lanes[1 + KC_WIN_STARTUP], kc_metric_name(KC_M_STARTUP),
		  longest(v, KC_WIN_STARTUP), LEFT, mid - LANE_GAP / 2);
	lane_init(&lanes[1 + KC_WIN_TEARDOWN], kc_metric_name(KC_M_TEARDOWN),
		  longest(v, KC_WIN_TEARDOWN), mid + LANE_GAP / 2, KC_PLOT_WIDTH - RIGHT);
	for (unsigned int w = 0; w < KC_NR_WINDOWS; w++)
		if (legend(NULL, v, w, 0, 0) > lines)
			lines = legend(NULL, v, w, 0, 0);
	y = bottom2 + 30;
	height = y + lines * LEGEND_PITCH + 36;
	snprintf(title, sizeof(title), "kvmchurn: %zu VMs, start-up and teardown", v->n - v->first);
	kc_svg_begin(f, KC_PLOT_WIDTH, height, "kvmchurn-timeline", title);
	header(f, tl, t0, t1);
	section(f, "On the wall clock: when each VM was made, ran and was torn down",
		lanes, 1, TOP, top2 - 16);
	section(f, "Each window from its own start: where each VM's time went",
		lanes + 1, KC_NR_WINDOWS, top2, bottom2);
	for (size_t i = v->first; i < v->n; i++)
		row(f, v, lanes, t0, i, TOP + SECTION + (double)(i - v->first) * PITCH,
		    top2 + SECTION + (double)(i - v->first) * PITCH);
	legend(f, v, KC_WIN_STARTUP, 16, y);
	legend(f, v, KC_WIN_TEARDOWN, 16 + (KC_PLOT_WIDTH - 32) / 2, y);
	kc_svg_text(f, 16, height - 14, "start", 10, 0, KC_SVG_DIM,
		    "A part is drawn where it first held the instant; one that held it in more than one stretch is drawn once, whole, there. "
		    "A thin line: the VM ran. Hover a part for its numbers.");
	kc_svg_end(f);
}
