// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn vms --live: the VMs that are live now, each with the stage it is
 * in (down to the nested call), the task in it, since when and for how
 * long, the stalls marked. The vms file's live records (lib/live.c).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"
#include "lib/live.h"
#include "vms_live.h"

/* Whether live VM @i is shown: every one, or @pid's. */
static bool shown(const struct kc_live_set *ls, size_t i, unsigned long pid)
{
	return !pid || (unsigned long)ls->v[i].tgid == pid;
}

/* The stalled VMs shown. */
static unsigned int stalled_shown(const struct kc_live_set *ls, unsigned long pid)
{
	__u64 stall = kc_stall_age(ls->stall_ms, ls->unit_ns);
	unsigned int n = 0;

	for (size_t i = 0; i < ls->n; i++)
		n += shown(ls, i, pid) && kc_live_stalled(&ls->v[i], stall);
	return n;
}

/* CLOCK_REALTIME ns as local time, to the second. */
static void local_time(__u64 ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	if (!localtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(buf, len, "?");
}

static void print_text(const struct kc_live_set *ls, unsigned long pid)
{
	__u64 stall = kc_stall_age(ls->stall_ms, ls->unit_ns);
	char stage[KC_LIVE_LINE], created[32], since[32], age[32];
	size_t n = 0;

	printf("%s%7s %-15s %-19s %-9s %7s %-19s %8s %-7s %s%s\n", kc_style(KC_BOLD),
	       "tgid", "comm", "created", "window", "task", "since", "age",
	       "stalled", "stage", kc_style(KC_OFF));
	for (size_t i = 0; i < ls->n; i++) {
		const struct kc_live *v = &ls->v[i];
		bool stalled = kc_live_stalled(v, stall);

		if (!shown(ls, i, pid))
			continue;
		n++;
		kc_live_stage_text(stage, sizeof(stage), v, " > ");
		local_time(v->created, created, sizeof(created));
		if (v->depth) {
			local_time(v->since, since, sizeof(since));
			kc_age_text(age, sizeof(age), v->age, ls->unit_ns);
		} else {
			snprintf(since, sizeof(since), "-");
			snprintf(age, sizeof(age), "-");
		}
		printf("%7d %-15s %-19s %-9s %7d %-19s %8s %s%-7s%s %s\n", v->tgid,
		       v->comm, created, kc_live_window_name(v->window), v->task,
		       since, age, stalled ? kc_style(KC_BAD) : "",
		       stalled ? "STALLED" : "-", stalled ? kc_style(KC_OFF) : "",
		       stage);
	}
	printf("%zu live VM%s, %u stalled (in one stage for stall_ms=%llu or longer)\n",
	       n, n == 1 ? "" : "s", stalled_shown(ls, pid),
	       (unsigned long long)ls->stall_ms);
}

static void print_json(const struct kc_live_set *ls, unsigned long pid)
{
	struct kc_json j;

	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_str(&j, "unit", ls->unit);
	kc_json_uint(&j, "stall_ms", ls->stall_ms);
	kc_json_uint(&j, "stalled", stalled_shown(ls, pid));
	kc_json_array(&j, "live");
	for (size_t i = 0; i < ls->n; i++)
		if (shown(ls, i, pid))
			kc_live_json_vm(&j, ls, i);
	kc_json_end(&j);
	kc_json_end(&j);
	putchar('\n');
}

int kc_vms_live(const struct kc_global *g, bool json, unsigned long pid)
{
	struct kc_live_set ls;
	bool found = !pid;
	int rc;

	rc = kc_live_read("vms", g, &ls);
	if (rc)
		return rc;
	if (!ls.known) {
		kc_err("vms", "%s/vms has no live records: the module loaded is older than this client: load the kvmchurn.ko of the same version",
		       g->dir);
		kc_live_free(&ls);
		return KC_EXIT_CANNOT_START;
	}
	for (size_t i = 0; i < ls.n && !found; i++)
		found = (unsigned long)ls.v[i].tgid == pid;
	if (!found) {
		kc_err("vms", "no live VM of pid %lu in %s/vms", pid, g->dir);
		kc_live_free(&ls);
		return KC_EXIT_FAILURES;
	}
	(json ? print_json : print_text)(&ls, pid);
	kc_live_free(&ls);
	return KC_EXIT_OK;
}
