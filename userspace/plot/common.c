// SPDX-License-Identifier: GPL-2.0
/*
 * What the pictures share: where the numbers came from, the parts'
 * colours, durations and clock times as people read them, time axes.
 */
#include <math.h>
#include <string.h>
#include <sys/utsname.h>

#include "lib/folder.h"
#include "plot.h"

/* The first line of @path, without its newline, into @buf; "" if none. */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

void kc_plot_source_of(const struct kc_global *g, const char *filter,
		       struct kc_plot_source *src)
{
	struct utsname u;
	char path[4096];

	memset(src, 0, sizeof(*src));
	snprintf(src->filter, sizeof(src->filter), "%s", filter ? filter : "");
	snprintf(src->folder, sizeof(src->folder), "%s", g->dir);
	src->live = kc_is_module_dir(g->dir);
	if (!src->live)
		return;
	src->read_at = time(NULL);
	if (!uname(&u)) {
		snprintf(src->host, sizeof(src->host), "%s", u.nodename);
		snprintf(src->kernel, sizeof(src->kernel), "%s", u.release);
	}
	/* the parameters' folder's parent is the module's: its version file */
	snprintf(path, sizeof(path), "%s/../version", g->params);
	first_line(path, src->version, sizeof(src->version));
}

void kc_plot_source_line(char *buf, size_t len,
			 const struct kc_plot_source *src, const char *unit)
{
	size_t n;

	if (src->live)
		n = (size_t)snprintf(buf, len, "host %s · kernel %s · kvmchurn %s",
				     src->host, src->kernel,
				     *src->version ? src->version : "?");
	else
		n = (size_t)snprintf(buf, len, "from %s", src->folder);
	if (n < len)
		snprintf(buf + n, len - n, " · filter %s · unit %s",
			 *src->filter ? src->filter : "?", unit);
}

/* The named parts of every window are counted in one run, so none share a hue. */
struct kc_rgb kc_plot_colour(unsigned int m)
{
	unsigned int k = 0;

	for (unsigned int w = 0; w < KC_NR_WINDOWS; w++) {
		const struct kc_window_desc *d = kc_window_desc(w);

		if (m == d->other)
			return (struct kc_rgb){ 0xa6, 0xa6, 0xa6 };
		if (m > d->metric && m < d->other) {
			k += m - d->metric - 1;
			return kc_svg_hsl(200 + 137.508 * k, 0.58, k % 2 ? 0.66 : 0.44);
		}
		k += d->other - d->metric - 1;
	}
	return kc_svg_hsl(210, 0.45, 0.5);
}

unsigned int kc_plot_metric_order(unsigned int *order)
{
	unsigned int n = 0;

	for (unsigned int g = 0; g < KC_NR_GROUPS; g++)
		for (unsigned int m = 0; m < KC_NR_METRICS; m++)
			if (kc_metric_desc(m)->group == g)
				order[n++] = m;
	return n;
}

/* The units a time is written in, largest first. */
static const struct {
	double div;		/* ns in one */
	const char *unit;
} units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "us" }, { 1, "ns" } };

/* The largest unit of which @ns is at least @least. */
static size_t unit_of(double ns, double least)
{
	size_t i = 0;

	while (i + 1 < ARRAY_SIZE(units) && ns < units[i].div * least)
		i++;
	return i;
}

void kc_plot_duration(char *buf, size_t len, double ns)
{
	size_t i = unit_of(ns, 0.9995);	/* 999.6 us rounds to 1.00 ms */
	double v = ns / units[i].div;

	if (units[i].div == 1 || v >= 99.95)
		snprintf(buf, len, "%.0f %s", v, units[i].unit);
	else
		snprintf(buf, len, "%.*f %s", v < 9.995 ? 2 : 1, v, units[i].unit);
}

void kc_plot_clock(char *buf, size_t len, unsigned long long ns)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	char day[32], zone[16];
	struct tm tm;

	if (!localtime_r(&t, &tm) ||
	    !strftime(day, sizeof(day), "%Y-%m-%d %H:%M:%S", &tm) ||
	    !strftime(zone, sizeof(zone), "%z", &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	snprintf(buf, len, "%s.%03llu %s", day, ns / 1000000ULL % 1000, zone);
}

void kc_plot_axis(struct kc_plot_axis *a, double span, unsigned int most)
{
	static const double mult[] = { 1, 2, 5 };
	double power = 1;

	a->span = span > 0 ? span : 1;
	a->step = 1;
	for (unsigned int i = 0; a->span / a->step > most; i = (i + 1) % 3) {
		a->step = mult[i] * power;
		if (i == 2)
			power *= 10;
	}
	a->div = units[unit_of(a->span, 1)].div;
	a->unit = units[unit_of(a->span, 1)].unit;
	a->decimals = a->step >= a->div ? 0 : a->step * 10 >= a->div ? 1 :
		      a->step * 100 >= a->div ? 2 : 3;
}

void kc_plot_round(char *buf, size_t len, double ns)
{
	size_t i = unit_of(ns, 1);

	snprintf(buf, len, "%g %s", ns / units[i].div, units[i].unit);
}

void kc_plot_tick(char *buf, size_t len, const struct kc_plot_axis *a,
		  double t)
{
	if (t == 0)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%.*f %s", a->decimals, t / a->div, a->unit);
}
