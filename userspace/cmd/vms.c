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
#include "lib/vms.h"
#include "vms_live.h"
#include "vms_trace.h"

const char vms_usage[] =
	"Usage: kvmchurn vms [--slowest] [-n N] [--stages] [--json] [PID]\n"
	"       kvmchurn vms --live [--json] [PID]\n"
	"       kvmchurn vms --trace-event [--slowest] [-n N] [PID]\n"
	"\n"
	"Which VM was slow: the VMs of traced processes that finished (their process\n"
	"was reaped), one line a VM, from the module's vms file. By default the last\n"
	"ones (the module keeps vms_last=, 256), oldest first; with --slowest the\n"
	"slowest by exit_to_reap (vms_slowest=, 32), slowest first. Each line: the\n"
	"VMM's pid and leader name, when the VM was made (local time), then each\n"
	"stage's time in the module's unit, the stages as columns (headed by the\n"
	"labels below; a stage no VM shown has is left out): \"-\" for a stage that\n"
	"did not happen, not 0; \"T(N)\" for N calls in T in all (vCPUs, irqfds).\n"
	"Where a VM's start-up or teardown was partitioned (every instant of it in\n"
	"one part: startup, st_create ... st_other from its KVM_CREATE_VM to its\n"
	"first vCPU's first entry; teardown, td_destroy ... td_other), the parts\n"
	"are columns, and the stages that they cover are left out (--stages shows\n"
	"them); \"st_acc\" and \"td_acc\" are how much of each window the parts\n"
	"name, 1 - other/window, and a last line a window gives their p50, p10\n"
	"and min over the VMs shown. The largest stage of a line is marked with\n"
	"'*': the largest part of each window, or without a teardown's parts the\n"
	"largest stage, the windows apart. A stage's time is the value its\n"
	"histogram got.\n"
	"With PID, that process's VMs one by one: the start-up and the teardown\n"
	"part by part, when it first held the instant, for the teardown its time\n"
	"before and after the leader's exit, its share, the largest marked.\n"
	"With --live, the VMs live now (created, not yet reaped), one line a VM:\n"
	"its process, when it was made, its window (startup, teardown, destroyed\n"
	"with its process alive, or - between), the stage it is in, down to the\n"
	"nested call (kvm_vm_release > kvm_destroy_vm > mmu_notifier_unregister;\n"
	"in a teardown with no call in flight, its part: reap_wait, rcu_free...),\n"
	"the task in it (for reap_wait the parent that has not reaped it), since\n"
	"when and for how long; STALLED past stall_ms= (`kvmchurn check` groups\n"
	"the stalls and gives their stacks).\n"
	"With --trace-event, the finished VMs as Chrome's Trace Event JSON, which\n"
	"Perfetto (ui.perfetto.dev) and chrome://tracing open as a timeline: a\n"
	"process a VM (pid: its place in the list; its name: the VMM's name and\n"
	"pid), on its one thread a complete event (ph X) for each window and each\n"
	"of its parts, laid end to end in the order each first held the instant,\n"
	"\"running\" between, and the parent's notification and the reap as\n"
	"instants; ts and dur in microseconds from the first VM's creation\n"
	"(otherData.t0, seconds since the epoch), to the nanosecond.\n"
	"\n"
	"Options:\n"
	"  --slowest   the slowest VMs instead of the last\n"
	"  -n N        the N newest (the N slowest), 1-1000000\n"
	"  --stages    every stage a column, the ones the parts cover too\n"
	"  --live      the live VMs instead of the finished ones; with --json: unit,\n"
	"              stall_ms, stalled and live, each with tgid, comm, created,\n"
	"              window, stage (the metrics, outermost first), task, since,\n"
	"              age (in the unit), stalled and stack (null, or source and\n"
	"              frames)\n"
	"  --trace-event  the VMs as Trace Event JSON, for Perfetto\n"
	"  --json      one JSON object: unit, list, params (last, slowest, live),\n"
	"              stats (finished, last_evicted, live_evicted, live) and vms,\n"
	"              each with tgid, comm, created (seconds since the epoch, as\n"
	"              a string of 9 decimals), largest (a metric or null),\n"
	"              startup (null, or window, accounted_permille, largest and\n"
	"              parts: part, start offset, duration), teardown (null, or\n"
	"              began, window, destroyed_by, notified and reaped offsets,\n"
	"              accounted_permille, and parts: part, start offset,\n"
	"              duration, before_exit) and stages: every metric, {count,\n"
	"              sum} or null; with PID, its VMs only\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0; 1 when no VM has the PID (no finished one, or with --live no\n"
	"live one); 2 when the module's\n"
	"vms file cannot be read.\n";

enum {
	OPT_SLOWEST = 1, OPT_N, OPT_STAGES, OPT_LIVE, OPT_JSON, OPT_TRACE_EVENT,
	OPT_HELP
};

static const struct kc_opt options[] = {
	{ OPT_SLOWEST, 0, "slowest", false },
	{ OPT_N, 'n', NULL, true },
	{ OPT_STAGES, 0, "stages", false },
	{ OPT_LIVE, 0, "live", false },
	{ OPT_JSON, 0, "json", false },
	{ OPT_TRACE_EVENT, 0, "trace-event", false },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

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

static void cell(char *buf, size_t len, const struct kc_vm *r, int m)
{
	if (!r->count[m])
		snprintf(buf, len, KC_VMS_ABSENT);
	else if (r->count[m] == 1)
		snprintf(buf, len, "%llu", r->sum[m]);
	else
		snprintf(buf, len, "%llu(%llu)", r->sum[m], r->count[m]);
}

/*
 * Whether metric @m is a column: one that a VM shown has; where a VM shown
 * has a window partitioned, the stages that its parts cover are left out
 * (the create path's for the start-up; the exit path's, but the seed's
 * windows, for the teardown) unless @stages.
 */
static void columns(const struct kc_vms *v, size_t first, bool stages,
		    bool *shown)
{
	bool parts[KC_NR_WINDOWS] = { false };

	for (size_t i = first; i < v->n; i++) {
		for (unsigned int w = 0; w < KC_NR_WINDOWS; w++)
			parts[w] |= kc_vm_partitioned(&v->vm[i], w);
		for (int m = 0; m < KC_NR_METRICS; m++)
			shown[m] |= v->vm[i].count[m] > 0;
	}
	for (int m = 0; !stages && m < KC_NR_METRICS; m++) {
		enum kc_group g = kc_metric_desc(m)->group;

		if (parts[KC_WIN_STARTUP] && g == KC_G_CREATE)
			shown[m] = false;
		if (parts[KC_WIN_TEARDOWN] && g == KC_G_EXIT && !kc_vm_is_window(m) &&
		    m != KC_M_SIGNAL_TO_EXIT)
			shown[m] = false;
	}
}

/* The accounted columns' heads, a window each. */
static const char *const acc_head[KC_NR_WINDOWS] = {
	[KC_WIN_STARTUP] = "st_acc",
	[KC_WIN_TEARDOWN] = "td_acc",
};

static void print_text(const struct kc_vms *v, size_t first, bool slowest,
		       bool stages)
{
	bool shown[KC_NR_METRICS] = { false }, acc[KC_NR_WINDOWS];
	struct kc_accounted a[KC_NR_WINDOWS];
	int width[KC_NR_METRICS];
	char buf[64];

	columns(v, first, stages, shown);
	for (unsigned int w = 0; w < KC_NR_WINDOWS; w++) {
		kc_vms_accounted(v, w, &a[w]);
		acc[w] = a[w].n > 0;
	}
	for (int m = 0; m < KC_NR_METRICS; m++) {
		width[m] = (int)strlen(kc_metric_desc(m)->label);
		for (size_t i = first; i < v->n; i++) {
			cell(buf, sizeof(buf), &v->vm[i], m);
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
	for (unsigned int w = 0; w < KC_NR_WINDOWS; w++)
		if (acc[w])
			printf(" %7s", acc_head[w]);
	printf("%s\n", kc_style(KC_OFF));
	for (size_t i = first; i < v->n; i++) {
		const struct kc_vm *r = &v->vm[i];
		int big = kc_vm_largest(r), st_big = kc_vm_largest_part(r, KC_WIN_STARTUP);

		local_time(r->created, buf, sizeof(buf));
		printf("%7lu %-15s %-12s", r->tgid, r->comm, buf);
		for (int m = 0; m < KC_NR_METRICS; m++) {
			if (!shown[m])
				continue;
			cell(buf, sizeof(buf), r, m);
			if (m == big || m == st_big)
				printf(" %s%*s*%s", kc_style(KC_WARN), width[m] - 1, buf,
				       kc_style(KC_OFF));
			else
				printf(" %*s", width[m], buf);
		}
		for (unsigned int w = 0; w < KC_NR_WINDOWS; w++) {
			if (!acc[w])
				continue;
			if (kc_vm_accounted(r, w) >= 0)
				kc_permille_text(buf, sizeof(buf),
						 (unsigned int)kc_vm_accounted(r, w));
			else
				snprintf(buf, sizeof(buf), KC_VMS_ABSENT);
			printf(" %7s", buf);
		}
		putchar('\n');
	}
	for (unsigned int w = 0; w < KC_NR_WINDOWS; w++) {
		char p50[KC_PERMILLE_LEN], p10[KC_PERMILLE_LEN];

		if (!acc[w])
			continue;
		printf("%s, %llu VMs: p50 %s, p10 %s, min %s\n",
		       kc_window_desc(w)->title, (unsigned long long)a[w].n,
		       kc_permille_text(p50, sizeof(p50), a[w].p50),
		       kc_permille_text(p10, sizeof(p10), a[w].p10),
		       kc_permille_text(buf, sizeof(buf), a[w].min));
	}
	if (v->stats[2])
		printf("%s%llu VMs were not followed to the end: more at once than vms_live=%llu%s\n",
		       kc_style(KC_WARN), v->stats[2], v->params[2], kc_style(KC_OFF));
}

/*
 * A VM's start-up: its window, how much is accounted, its largest part,
 * and each part's start (from the window's, its KVM_CREATE_VM's entry)
 * and duration.
 */
static void print_json_st(struct kc_json *j, const struct kc_vm *r)
{
	int big = kc_vm_largest_part(r, KC_WIN_STARTUP);

	if (!kc_vm_partitioned(r, KC_WIN_STARTUP)) {
		kc_json_null(j, kc_metric_name(KC_M_STARTUP));
		return;
	}
	kc_json_object(j, kc_metric_name(KC_M_STARTUP));
	kc_json_uint(j, "window", r->sum[KC_M_STARTUP]);
	kc_json_uint(j, "accounted_permille",
		     (unsigned long long)kc_vm_accounted(r, KC_WIN_STARTUP));
	kc_json_str(j, "largest", kc_metric_name((unsigned int)big));
	kc_json_array(j, "parts");
	for (unsigned int p = 0; p < KC_NR_ST_PARTS; p++) {
		kc_json_object(j, NULL);
		kc_json_str(j, "part", kc_metric_name(KC_ST_METRIC(p)));
		if (r->st.first[p])
			kc_json_uint(j, "start", r->st.first[p] - 1);
		else
			kc_json_null(j, "start");
		kc_json_uint(j, "duration", r->sum[KC_ST_METRIC(p)]);
		kc_json_end(j);
	}
	kc_json_end(j);
	kc_json_end(j);
}

/*
 * A VM's teardown: when it began, what ran the destroy, the parent's
 * notification and the reap, how much is accounted, and each part's start
 * (from the window's), duration and share before the leader's exit.
 */
static void print_json_td(struct kc_json *j, const struct kc_vm *r)
{
	const struct kc_vm_td *td = &r->td;

	if (!td->valid) {
		kc_json_null(j, kc_metric_name(KC_M_TEARDOWN));
		return;
	}
	kc_json_object(j, kc_metric_name(KC_M_TEARDOWN));
	kc_json_str(j, "began", td->began);
	kc_json_uint(j, "window", r->sum[KC_M_TEARDOWN]);
	if (strcmp(td->by, KC_VMS_ABSENT))
		kc_json_str(j, "destroyed_by", td->by);
	else
		kc_json_null(j, "destroyed_by");
	if (td->notified)
		kc_json_uint(j, "notified", td->notified - 1);
	else
		kc_json_null(j, "notified");
	if (td->reaped)
		kc_json_uint(j, "reaped", td->reaped - 1);
	else
		kc_json_null(j, "reaped");
	kc_json_uint(j, "accounted_permille",
		     (unsigned long long)kc_vm_accounted(r, KC_WIN_TEARDOWN));
	kc_json_array(j, "parts");
	for (unsigned int p = 0; p < KC_NR_TD_PARTS; p++) {
		kc_json_object(j, NULL);
		kc_json_str(j, "part", kc_metric_name(KC_TD_METRIC(p)));
		if (td->first[p])
			kc_json_uint(j, "start", td->first[p] - 1);
		else
			kc_json_null(j, "start");
		kc_json_uint(j, "duration", r->sum[KC_TD_METRIC(p)]);
		kc_json_uint(j, "before_exit", td->before[p]);
		kc_json_end(j);
	}
	kc_json_end(j);
	kc_json_end(j);
}

/* A share of @whole in per mille as "12.3 %". */
static void share(char *buf, size_t len, unsigned long long part,
		  unsigned long long whole)
{
	kc_permille_text(buf, len,
			 whole ? (unsigned int)(part * KC_PERMILLE / whole) : 0);
}

/* Where a part first held the instant, "+OFFSET", or "-". */
static const char *first_at(char *buf, size_t len, unsigned long long first)
{
	if (first)
		snprintf(buf, len, "+%llu", first - 1);
	else
		snprintf(buf, len, KC_VMS_ABSENT);
	return buf;
}

/*
 * One VM's start-up stage by stage: where each part first held the
 * instant (from its KVM_CREATE_VM's entry), its time, its share of the
 * window, the largest marked.
 */
static void print_one_st(const struct kc_vms *v, const struct kc_vm *r)
{
	unsigned long long w = r->sum[KC_M_STARTUP];
	int big = kc_vm_largest_part(r, KC_WIN_STARTUP);
	char buf[32], at[24];

	if (!kc_vm_partitioned(r, KC_WIN_STARTUP)) {
		printf("its start-up was not partitioned (it never ran, or was made before kvmchurn traced it)\n");
		return;
	}
	share(buf, sizeof(buf), w - r->sum[KC_M_ST_OTHER], w);
	printf("startup %llu %s, KVM_CREATE_VM to ready; accounted %s\n", w,
	       v->unit, buf);
	printf("%s%-16s %12s %12s %8s%s\n", kc_style(KC_BOLD), "part", "first at",
	       "all", "share", kc_style(KC_OFF));
	for (unsigned int p = 0; p < KC_NR_ST_PARTS; p++) {
		unsigned long long sum = r->sum[KC_ST_METRIC(p)];

		share(buf, sizeof(buf), sum, w);
		printf("%-16s %12s %12llu %8s%s\n", kc_metric_name(KC_ST_METRIC(p)),
		       first_at(at, sizeof(at), r->st.first[p]), sum, buf,
		       (int)KC_ST_METRIC(p) == big ? " *" : "");
	}
	printf("%-16s %12s %12llu\n", "window", "", w);
}

/*
 * One VM on its own: its start-up, then its teardown stage by stage, where
 * each part first held the instant (from the window's start), its time
 * before the leader's exit (signal_to_exit's share) and after it
 * (exit_to_reap's), its share of the window, the largest marked.
 */
static void print_one(const struct kc_vms *v, const struct kc_vm *r)
{
	const struct kc_vm_td *td = &r->td;
	unsigned long long w = r->sum[KC_M_TEARDOWN], before = 0;
	int big = -1;
	char buf[32];

	local_time(r->created, buf, sizeof(buf));
	printf("%sVM of pid %lu (%s), created %s%s\n", kc_style(KC_BOLD),
	       r->tgid, r->comm, buf, kc_style(KC_OFF));
	print_one_st(v, r);
	if (!td->valid) {
		printf("its teardown was not partitioned (no fatal signal or exit seen)\n");
		return;
	}
	for (unsigned int p = 0; p < KC_NR_TD_PARTS; p++) {
		before += td->before[p];
		if (big < 0 || r->sum[KC_TD_METRIC(p)] > r->sum[KC_TD_METRIC(big)])
			big = (int)p;
	}
	local_time(td->began, buf, sizeof(buf));
	printf("teardown %llu %s from %s; the destroy ran under %s\n", w, v->unit,
	       buf, !strcmp(td->by, KC_VMS_BY_VM) ? "the VM fd's release" :
	       !strcmp(td->by, KC_VMS_BY_VCPU) ? "a vCPU fd's release" :
	       !strcmp(td->by, KC_VMS_BY_OTHER) ? "another holder's put" :
	       "nothing seen");
	share(buf, sizeof(buf), w - r->sum[KC_M_TD_OTHER], w);
	printf("accounted %s; ", buf);
	if (td->notified)
		printf("parent notified at +%llu %s, ", td->notified - 1, v->unit);
	else
		printf("parent not notified (SIGCHLD ignored, or no parent), ");
	if (td->reaped)
		printf("reaped at +%llu %s\n", td->reaped - 1, v->unit);
	else
		printf("its reap not seen\n");
	printf("%s%-16s %12s %14s %14s %12s %8s%s\n", kc_style(KC_BOLD), "part",
	       "first at", "before exit", "after exit", "all", "share",
	       kc_style(KC_OFF));
	for (unsigned int p = 0; p < KC_NR_TD_PARTS; p++) {
		unsigned long long sum = r->sum[KC_TD_METRIC(p)];
		char at[24];

		share(buf, sizeof(buf), sum, w);
		printf("%-16s %12s %14llu %14llu %12llu %8s%s\n",
		       kc_metric_name(KC_TD_METRIC(p)),
		       first_at(at, sizeof(at), td->first[p]), td->before[p],
		       sum - td->before[p], sum, buf, (int)p == big ? " *" : "");
	}
	printf("%-16s %12s %14llu %14llu %12llu\n", "window", "", before,
	       w - before, w);
}

static void print_json(const struct kc_vms *v, size_t first, bool slowest)
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
		const struct kc_vm *r = &v->vm[i];
		int big = kc_vm_largest(r);

		kc_json_object(&j, NULL);
		kc_json_uint(&j, "tgid", r->tgid);
		kc_json_str(&j, "comm", r->comm);
		kc_json_str(&j, "created", r->created);
		if (big >= 0)
			kc_json_str(&j, "largest", kc_metric_name((unsigned int)big));
		else
			kc_json_null(&j, "largest");
		print_json_st(&j, r);
		print_json_td(&j, r);
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
	bool slowest = false, json = false, stages = false, live = false;
	bool trace = false;
	unsigned long count = 0, pid = 0;
	struct kc_opt_parser p;
	char path[4096];
	struct kc_vms v;
	size_t first;
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
		case OPT_STAGES:
			stages = true;
			break;
		case OPT_LIVE:
			live = true;
			break;
		case OPT_JSON:
			json = true;
			break;
		case OPT_TRACE_EVENT:
			trace = true;
			break;
		case OPT_HELP:
			fputs(vms_usage, stdout);
			return KC_EXIT_OK;
		default:
			return KC_EXIT_USAGE;
		}
	}
	if (p.index + 1 < argc)
		return kc_no_operands("vms", argc, argv, p.index + 1);
	if (p.index < argc &&
	    !kc_parse_ulong(argv[p.index], 1, 1UL << 31, &pid)) {
		kc_err("vms", "%s: not a pid", argv[p.index]);
		return KC_EXIT_USAGE;
	}
	if (live && (slowest || count || stages))
		return kc_usage_error("vms", "--live takes only --json and a PID");
	if (trace && (live || json || stages))
		return kc_usage_error("vms", "--trace-event takes only --slowest, -n and a PID");
	if (live)
		return kc_vms_live(g, json, pid);
	rc = kc_vms_read("vms", g, slowest, count, &v, path, sizeof(path));
	if (rc)
		return rc;
	first = v.first;
	if (pid) {
		size_t found = 0;

		/* the VMs of that process, kept in their order */
		for (size_t i = first; i < v.n; i++)
			if (v.vm[i].tgid == pid)
				v.vm[first + found++] = v.vm[i];
		v.n = first + found;
		if (!found) {
			kc_err("vms", "no finished VM of pid %lu among the %s ones in %s",
			       pid, slowest ? KC_VMS_SLOWEST : KC_VMS_LAST, path);
			kc_vms_free(&v);
			return KC_EXIT_FAILURES;
		}
		for (size_t i = first; !json && !trace && i < v.n; i++)
			print_one(&v, &v.vm[i]);
	}
	if (trace)
		kc_vms_trace_event(stdout, &v);
	else if (json)
		print_json(&v, first, slowest);
	else if (!pid)
		print_text(&v, first, slowest, stages);
	kc_vms_free(&v);
	return KC_EXIT_OK;
}
