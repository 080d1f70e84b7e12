// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn watch: every interval, what happened in that interval only, from
 * the difference of two snapshots of the raw file. It writes nothing, so it
 * never disturbs the module or another reader.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"
#include "lib/live.h"

const char watch_usage[] =
	"Usage: kvmchurn watch [-i SECONDS] [-c COUNT] [--json]\n"
	"\n"
	"Every SECONDS, prints for each metric what the interval just ended added: its\n"
	"count, the rate per second, and p50 and p99 of that interval's values alone\n"
	"(percentiles as in 'kvmchurn help summary'). It reads the raw file twice and\n"
	"subtracts; it never resets anything, so any number of readers can watch at\n"
	"once. A reset by someone else during an interval is noticed (a count went\n"
	"down) and that interval then counts from the reset. Stops after COUNT\n"
	"intervals, or at SIGINT or SIGTERM.\n"
	"After each interval, the stalls as they are at its end: the verdict lines of\n"
	"`kvmchurn check`'s stalls (OK, or a WARN a stage that some live VM has been in\n"
	"for stall_ms= or longer, with its oldest), from the vms file's live records.\n"
	"\n"
	"Options:\n"
	"  -i SECONDS  the interval, 0.1-86400, decimals allowed (default 1)\n"
	"  -c COUNT    stop after COUNT intervals, 1-1000000000 (default: never)\n"
	"  --json      one JSON object a line and an interval: interval, seconds,\n"
	"              reset, unit, metrics (name, count, rate_per_s, p50, p99; the\n"
	"              percentiles null when count is 0) and stalls (as\n"
	"              `kvmchurn check --json` gives them; null for a module\n"
	"              without live records)\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0 (also when stopped by a signal), or 2 when the module's raw\n"
	"or vms file cannot be read.\n";

enum { OPT_INTERVAL = 1, OPT_COUNT, OPT_JSON, OPT_HELP };

static const struct kc_opt options[] = {
	{ OPT_INTERVAL, 'i', NULL, true },
	{ OPT_COUNT, 'c', NULL, true },
	{ OPT_JSON, 0, "json", false },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

#define NS_PER_S 1000000000ULL

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* "2", "0.5", "1.250": seconds to nanoseconds; 0 when not a number. */
static __u64 parse_seconds(const char *s)
{
	__u64 whole = 0, frac = 0, scale = NS_PER_S;
	const char *c = s;

	if (*c < '0' || *c > '9')
		return 0;
	for (; *c >= '0' && *c <= '9'; c++) {
		whole = whole * 10 + (__u64)(*c - '0');
		if (whole > 86400)
			return 0;
	}
	if (*c == '.') {
		for (c++; *c >= '0' && *c <= '9'; c++) {
			if (scale == 1)
				return 0;	/* finer than a nanosecond */
			scale /= 10;
			frac += (__u64)(*c - '0') * scale;
		}
	}
	return *c ? 0 : whole * NS_PER_S + frac;
}

struct interval {
	unsigned long n;
	double seconds;
	bool reset;
};

/* A verdict line of the stalls; the lines under one are check's alone. */
static void stall_line(void *ctx, unsigned int verdict, const char *text)
{
	(void)ctx;
	if (verdict < KC_LINE_UNDER)
		printf("%s%-4s%s %s\n",
		       kc_style(verdict == KC_VERDICT_WARN ? KC_BAD : KC_GOOD),
		       kc_verdict_name(verdict), kc_style(KC_OFF), text);
}

static const struct kc_live_stack *no_stack(void *ctx, const struct kc_live *v)
{
	(void)ctx;
	(void)v;
	return NULL;
}

static void print_text(const struct kc_snap *d, const struct interval *iv,
		       const struct kc_live_set *ls)
{
	struct kc_stall_buf buf;
	const struct kc_stall_out out = {
		.emit = stall_line, .stack = no_stack, .buf = &buf,
	};

	printf("%sinterval %lu: %.2f s%s%s\n", kc_style(KC_BOLD), iv->n, iv->seconds,
	       iv->reset ? ", counted from a reset during it" : "", kc_style(KC_OFF));
	printf("%-*s %9s %11s %11s %11s  %s\n", KC_METRIC_COL, "metric", "count", "rate/s",
	       "p50", "p99", "unit");
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		const struct kc_hist *h = &d->hist[m];

		printf("%-*s %9llu %11.1f", KC_METRIC_COL, kc_metric_name(m), h->count,
		       (double)h->count / iv->seconds);
		if (h->count)
			printf(" %11llu %11llu", kc_hist_pct(h, KC_PCT_P50), kc_hist_pct(h, KC_PCT_P99));
		else
			printf(" %11s %11s", "-", "-");
		printf("  %s\n", d->unit);
	}
	if (ls->known)
		kc_stalls_render(ls->v, (unsigned int)ls->n, ls->groups,
				 ls->ngroups, ls->stall_ms, ls->unit_ns, &out);
	putchar('\n');
}

static void print_json(const struct kc_snap *d, const struct interval *iv,
		       const struct kc_live_set *ls)
{
	struct kc_json j;

	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_uint(&j, "interval", iv->n);
	kc_json_double(&j, "seconds", "%.3f", iv->seconds);
	kc_json_bool(&j, "reset", iv->reset);
	kc_json_str(&j, "unit", d->unit);
	kc_json_array(&j, "metrics");
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		const struct kc_hist *h = &d->hist[m];

		kc_json_object(&j, NULL);
		kc_json_str(&j, "name", kc_metric_name(m));
		kc_json_uint(&j, "count", h->count);
		kc_json_double(&j, "rate_per_s", "%.3f", (double)h->count / iv->seconds);
		kc_json_uint_or_null(&j, kc_pct_name(KC_PCT_P50), kc_hist_pct(h, KC_PCT_P50), h->count);
		kc_json_uint_or_null(&j, kc_pct_name(KC_PCT_P99), kc_hist_pct(h, KC_PCT_P99), h->count);
		kc_json_end(&j);
	}
	kc_json_end(&j);
	if (ls->known)
		kc_live_json_stalls(&j, ls);
	else
		kc_json_null(&j, "stalls");
	kc_json_end(&j);
	putchar('\n');
}

struct watch {
	__u64 interval_ns;
	unsigned long count;	/* 0: no end */
	bool json;
	struct kc_snap snap[2], delta;
};

static int parse_args(int argc, char *argv[], struct watch *w)
{
	struct kc_opt_parser p;
	int id;

	kc_opt_init(&p, "watch", argc, argv, 1);
	while ((id = kc_opt_next(&p, options)) != KC_OPT_END) {
		switch (id) {
		case OPT_INTERVAL:
			w->interval_ns = parse_seconds(p.value);
			if (w->interval_ns < NS_PER_S / 10 || w->interval_ns > 86400 * NS_PER_S)
				return kc_usage_error("watch", "invalid value '%s' for -i: expected seconds from 0.1 to 86400",
						      p.value);
			break;
		case OPT_COUNT:
			if (kc_opt_ulong(&p, 1, 1000000000, &w->count))
				return KC_EXIT_USAGE;
			break;
		case OPT_JSON:
			w->json = true;
			break;
		case OPT_HELP:
			fputs(watch_usage, stdout);
			return KC_EXIT_OK;
		default:
			return KC_EXIT_USAGE;
		}
	}
	return kc_no_operands("watch", argc, argv, p.index);
}

static void sleep_until(__u64 t_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t_ns / NS_PER_S),
		.tv_nsec = (long)(t_ns % NS_PER_S),
	};

	while (!stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int run(struct watch *w, const struct kc_global *g)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct interval iv = { 0 };
	struct kc_live_set ls;
	__u64 start, before, now;
	int rc, cur = 0;

	/* No SA_RESTART: the sleep ends at once. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = kc_read_module("watch", g, &w->snap[cur], NULL, NULL);
	if (rc)
		return rc;
	start = before = kc_now_ns();
	/* Intervals are laid on a fixed grid, so that printing never drifts. */
	while (!w->count || iv.n < w->count) {
		sleep_until(start + (iv.n + 1) * w->interval_ns);
		if (stop)
			break;
		rc = kc_read_module("watch", g, &w->snap[!cur], NULL, NULL);
		if (rc)
			break;
		now = kc_now_ns();
		rc = kc_live_read("watch", g, &ls);
		if (rc) {
			kc_snap_free(&w->snap[!cur]);
			break;
		}
		iv.n++;
		iv.seconds = (double)(now - before) / NS_PER_S;
		iv.reset = kc_snap_delta(&w->snap[!cur], &w->snap[cur], &w->delta);
		if (w->json)
			print_json(&w->delta, &iv, &ls);
		else
			print_text(&w->delta, &iv, &ls);
		kc_live_free(&ls);
		fflush(stdout);
		kc_snap_free(&w->snap[cur]);
		cur = !cur;
		before = now;
	}
	kc_snap_free(&w->snap[cur]);
	return rc;
}

int cmd_watch(int argc, char *argv[], const struct kc_global *g)
{
	struct watch *w = calloc(1, sizeof(*w));
	int rc;

	if (!w) {
		perror("kvmchurn watch");
		return KC_EXIT_CANNOT_START;
	}
	w->interval_ns = NS_PER_S;
	rc = parse_args(argc, argv, w);
	if (rc < 0)
		rc = run(w, g);
	free(w);
	return rc;
}
