// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn vms: which VM was slow. The module's vms file, one line a VM:
 * its process, when it was made, and each stage's time, the largest marked.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"
#include "lib/json.h"

const char vms_usage[] =
	"Usage: kvmchurn vms [--slowest] [-n N] [--json]\n"
	"\n"
	"Which VM was slow: the VMs of traced processes that finished (their process\n"
	"was reaped), one line a VM, from the module's vms file. By default the last\n"
	"ones (the module keeps vms_last=, 256), oldest first; with --slowest the\n"
	"slowest by exit_to_reap (vms_slowest=, 32), slowest first. Each line: the\n"
	"VMM's pid and leader name, when the VM was made (local time), then each\n"
	"stage's time in the module's unit, the stages as columns (headed by the\n"
	"labels below; a stage no VM shown has is left out): \"-\" for a stage that\n"
	"did not happen, not 0; \"T(N)\" for N calls in T in all (vCPUs, irqfds).\n"
	"The largest stage of a line, exit_to_reap (the whole teardown) apart, is\n"
	"marked with '*'. A stage's time is the value its histogram got.\n"
	"\n"
	"Options:\n"
	"  --slowest   the slowest VMs instead of the last\n"
	"  -n N        the N newest (the N slowest), 1-1000000\n"
	"  --json      one JSON object: unit, list, params (last, slowest, live),\n"
	"              stats (finished, last_evicted, live_evicted, live) and vms,\n"
	"              each with tgid, comm, created (seconds since the epoch, as\n"
	"              a string of 9 decimals), largest (a metric or null) and\n"
	"              stages: every metric, {count, sum} or null\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0, or 2 when the module's vms file cannot be read.\n";

enum { OPT_SLOWEST = 1, OPT_N, OPT_JSON, OPT_HELP };

static const struct kc_opt options[] = {
	{ OPT_SLOWEST, 0, "slowest", false },
	{ OPT_N, 'n', NULL, true },
	{ OPT_JSON, 0, "json", false },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

struct vm_row {
	unsigned long tgid;
	char comm[KC_COMM_LEN];
	char created[32];		/* "1764672000.123456789" */
	unsigned long long count[KC_NR_METRICS], sum[KC_NR_METRICS];
};

struct vms_file {
	char unit[8];
	unsigned long long params[3], stats[4];
	int col[KC_NR_METRICS + 16];	/* field -> metric, or -1 */
	size_t ncols;
	struct vm_row *rows;
	size_t n, cap;
};

/* One stage field: "-" or "<count>:<sum>". */
static int parse_stage(const char *f, unsigned long long *count,
		       unsigned long long *sum)
{
	char *end;

	if (!strcmp(f, KC_VMS_ABSENT)) {
		*count = *sum = 0;
		return 0;
	}
	errno = 0;
	*count = strtoull(f, &end, 10);
	if (errno || end == f || *end != ':' || !*count)
		return -1;
	f = end + 1;
	*sum = strtoull(f, &end, 10);
	return errno || end == f || *end ? -1 : 0;
}

/* Splits @line at tabs into @f (at most @max); returns how many. */
static size_t split(char *line, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		f[n++] = line;
		line = strchr(line, '\t');
		if (!line)
			break;
		*line++ = '\0';
	}
	return n;
}

static int bad(const char *path, unsigned long nr, const char *what)
{
	kc_err("vms", "%s, line %lu: %s: is the module of the same version as the client?",
	       path, nr, what);
	return -1;
}

static int parse(const char *path, char *text, const char *list,
		 struct vms_file *v)
{
	char *line, *next, *f[KC_VMS_VM_HEAD + KC_NR_METRICS + 16];
	bool have_fields = false;
	unsigned long nr = 0;
	size_t n;

	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		nr++;
		if (nr == 1) {
			if (strcmp(line, KC_VMS_MAGIC " " KC_STR(KC_VMS_VERSION)))
				return bad(path, nr, "not a kvmchurn-vms " KC_STR(KC_VMS_VERSION) " file");
			continue;
		}
		n = split(line, f, ARRAY_SIZE(f));
		if (!strcmp(f[0], KC_VMS_UNIT) && n >= 2) {
			snprintf(v->unit, sizeof(v->unit), "%s", f[1]);
		} else if (!strcmp(f[0], KC_VMS_PARAMS) && n >= 4) {
			for (size_t i = 0; i < 3; i++)
				v->params[i] = strtoull(f[i + 1], NULL, 10);
		} else if (!strcmp(f[0], KC_VMS_STATS) && n >= 5) {
			for (size_t i = 0; i < 4; i++)
				v->stats[i] = strtoull(f[i + 1], NULL, 10);
		} else if (!strcmp(f[0], KC_VMS_FIELDS)) {
			if (n < KC_VMS_VM_HEAD)
				return bad(path, nr, "too few fields");
			v->ncols = n;
			for (size_t i = 0; i < n; i++)
				v->col[i] = i < KC_VMS_VM_HEAD ? -1 : kc_find_metric(f[i]);
			have_fields = true;
		} else if (!strcmp(f[0], KC_VMS_VM)) {
			struct vm_row *r;

			if (!have_fields || n != v->ncols)
				return bad(path, nr, "a vm record unlike the fields record");
			if (strcmp(f[1], list))
				continue;
			if (kc_grow(&v->rows, &v->cap, v->n, sizeof(*v->rows), 64)) {
				kc_err("vms", "%s", strerror(errno));
				return -1;
			}
			r = &v->rows[v->n];
			memset(r, 0, sizeof(*r));
			if (!kc_parse_ulong(f[2], 1, 1UL << 31, &r->tgid))
				return bad(path, nr, "a tgid that is not a number");
			snprintf(r->comm, sizeof(r->comm), "%s", f[3]);
			snprintf(r->created, sizeof(r->created), "%s", f[4]);
			for (size_t i = KC_VMS_VM_HEAD; i < n; i++) {
				unsigned long long c, s;

				if (parse_stage(f[i], &c, &s))
					return bad(path, nr, "a stage that is neither - nor COUNT:SUM");
				if (v->col[i] >= 0) {
					r->count[v->col[i]] = c;
					r->sum[v->col[i]] = s;
				}
			}
			v->n++;
		}
	}
	if (!nr) {
		kc_err("vms", "%s is empty: not a kvmchurn-vms file", path);
		return -1;
	}
	if (!have_fields)
		return bad(path, nr, "no fields record");
	return 0;
}

/* The stage that took longest, exit_to_reap apart; -1 with none. */
static int largest(const struct vm_row *r)
{
	int best = -1;

	for (int m = 0; m < KC_NR_METRICS; m++)
		if (m != KC_M_EXIT_TO_REAP && r->count[m] &&
		    (best < 0 || r->sum[m] > r->sum[best]))
			best = m;
	return best;
}

static void local_time(const char *created, char *buf, size_t len)
{
	long long sec = strtoll(created, NULL, 10);
	const char *dot = strchr(created, '.');
	time_t t = (time_t)sec;
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(buf, len, "%H:%M:%S", &tm)) {
		snprintf(buf, len, "?");
		return;
	}
	if (dot)
		snprintf(buf + strlen(buf), len - strlen(buf), ".%.3s", dot + 1);
}

static void cell(char *buf, size_t len, const struct vm_row *r, int m)
{
	if (!r->count[m])
		snprintf(buf, len, KC_VMS_ABSENT);
	else if (r->count[m] == 1)
		snprintf(buf, len, "%llu", r->sum[m]);
	else
		snprintf(buf, len, "%llu(%llu)", r->sum[m], r->count[m]);
}

static void print_text(const struct vms_file *v, size_t first, bool slowest)
{
	bool shown[KC_NR_METRICS] = { false };
	int width[KC_NR_METRICS];
	char buf[64];

	for (size_t i = first; i < v->n; i++)
		for (int m = 0; m < KC_NR_METRICS; m++)
			shown[m] |= v->rows[i].count[m] > 0;
	for (int m = 0; m < KC_NR_METRICS; m++) {
		width[m] = (int)strlen(kc_metric_desc(m)->label);
		for (size_t i = first; i < v->n; i++) {
			cell(buf, sizeof(buf), &v->rows[i], m);
			if ((int)strlen(buf) + 1 > width[m])
				width[m] = (int)strlen(buf) + 1;
		}
	}
	printf("%s VMs: %zu shown, unit %s; %llu finished, %llu live now\n",
	       slowest ? "slowest" : "last", v->n - first, v->unit, v->stats[0],
	       v->stats[3]);
	printf("%s%7s %-15s %-12s", kc_style(KC_BOLD), "pid", "comm", "created");
	for (int m = 0; m < KC_NR_METRICS; m++)
		if (shown[m])
			printf(" %*s", width[m], kc_metric_desc(m)->label);
	printf("%s\n", kc_style(KC_OFF));
	for (size_t i = first; i < v->n; i++) {
		const struct vm_row *r = &v->rows[i];
		int big = largest(r);

		local_time(r->created, buf, sizeof(buf));
		printf("%7lu %-15s %-12s", r->tgid, r->comm, buf);
		for (int m = 0; m < KC_NR_METRICS; m++) {
			if (!shown[m])
				continue;
			cell(buf, sizeof(buf), r, m);
			if (m == big)
				printf(" %s%*s*%s", kc_style(KC_WARN), width[m] - 1, buf,
				       kc_style(KC_OFF));
			else
				printf(" %*s", width[m], buf);
		}
		putchar('\n');
	}
	if (v->stats[2])
		printf("%s%llu VMs were not followed to the end: more at once than vms_live=%llu%s\n",
		       kc_style(KC_WARN), v->stats[2], v->params[2], kc_style(KC_OFF));
}

static void print_json(const struct vms_file *v, size_t first, bool slowest)
{
	struct kc_json j;

	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_str(&j, "unit", v->unit);
	kc_json_str(&j, "list", slowest ? KC_VMS_SLOWEST : KC_VMS_LAST);
	kc_json_object(&j, "params");
	kc_json_uint(&j, "last", v->params[0]);
	kc_json_uint(&j, "slowest", v->params[1]);
	kc_json_uint(&j, "live", v->params[2]);
	kc_json_end(&j);
	kc_json_object(&j, "stats");
	kc_json_uint(&j, "finished", v->stats[0]);
	kc_json_uint(&j, "last_evicted", v->stats[1]);
	kc_json_uint(&j, "live_evicted", v->stats[2]);
	kc_json_uint(&j, "live", v->stats[3]);
	kc_json_end(&j);
	kc_json_array(&j, "vms");
	for (size_t i = first; i < v->n; i++) {
		const struct vm_row *r = &v->rows[i];
		int big = largest(r);

		kc_json_object(&j, NULL);
		kc_json_uint(&j, "tgid", r->tgid);
		kc_json_str(&j, "comm", r->comm);
		kc_json_str(&j, "created", r->created);
		if (big >= 0)
			kc_json_str(&j, "largest", kc_metric_name((unsigned int)big));
		else
			kc_json_null(&j, "largest");
		kc_json_object(&j, "stages");
		for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
			if (!r->count[m]) {
				kc_json_null(&j, kc_metric_name(m));
				continue;
			}
			kc_json_object(&j, kc_metric_name(m));
			kc_json_uint(&j, "count", r->count[m]);
			kc_json_uint(&j, "sum", r->sum[m]);
			kc_json_end(&j);
		}
		kc_json_end(&j);
		kc_json_end(&j);
	}
	kc_json_end(&j);
	kc_json_end(&j);
	putchar('\n');
}

int cmd_vms(int argc, char *argv[], const struct kc_global *g)
{
	struct vms_file v = { .unit = "?" };
	unsigned long count = 0;
	bool slowest = false, json = false;
	struct kc_opt_parser p;
	char *text, path[4096];
	size_t len, first = 0;
	int id, rc;

	kc_opt_init(&p, "vms", argc, argv, 1);
	while ((id = kc_opt_next(&p, options)) != KC_OPT_END) {
		switch (id) {
		case OPT_SLOWEST:
			slowest = true;
			break;
		case OPT_N:
			if (kc_opt_ulong(&p, 1, 1000000, &count))
				return KC_EXIT_USAGE;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_HELP:
			fputs(vms_usage, stdout);
			return KC_EXIT_OK;
		default:
			return KC_EXIT_USAGE;
		}
	}
	if (p.index < argc)
		return kc_no_operands("vms", argc, argv, p.index);
	rc = kc_read_module_file("vms", g, "vms", &text, &len);
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/vms", g->dir);
	if (parse(path, text, slowest ? KC_VMS_SLOWEST : KC_VMS_LAST, &v)) {
		free(text);
		free(v.rows);
		return KC_EXIT_CANNOT_START;
	}
	free(text);
	if (count && count < v.n)
		first = slowest ? 0 : v.n - count;
	if (count && slowest && count < v.n)
		v.n = count;
	if (json)
		print_json(&v, first, slowest);
	else
		print_text(&v, first, slowest);
	free(v.rows);
	return KC_EXIT_OK;
}
