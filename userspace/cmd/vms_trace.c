// SPDX-License-Identifier: GPL-2.0
/*
 * The VMs as Chrome's Trace Event format, which Perfetto and chrome://tracing
 * open as a timeline: a process a VM (its pid is the VM's place in the list;
 * its name gives the VMM's), one thread, and on it a complete event ("X")
 * for each window and each part of it, laid end to end (kc_vm_segments()),
 * so that the parts nest in their window; "running" between; the parent's
 * notification and the reap as instants. Times are
 * microseconds from the first VM's creation (otherData.t0, since the epoch),
 * with 3 decimals: nanoseconds, exactly.
 */
#include "lib/json.h"
#include "vms_trace.h"

#define TRACE_TID	1

/* Nanoseconds as the format's microseconds. */
static void micros(struct kc_json *j, const char *key, unsigned long long ns)
{
	kc_json_double(j, key, "%.3f", (double)ns / 1000);
}

static void event(struct kc_json *j, const char *name, const char *cat,
		  const char *ph, unsigned int pid)
{
	kc_json_object(j, NULL);
	kc_json_str(j, "name", name);
	if (cat)
		kc_json_str(j, "cat", cat);
	kc_json_str(j, "ph", ph);
	kc_json_uint(j, "pid", pid);
	kc_json_uint(j, "tid", TRACE_TID);
}

static void complete(struct kc_json *j, const char *name, const char *cat,
		     unsigned int pid, unsigned long long ts, unsigned long long dur)
{
	event(j, name, cat, "X", pid);
	micros(j, "ts", ts);
	micros(j, "dur", dur);
}

static void metadata(struct kc_json *j, const char *what, unsigned int pid,
		     const char *key, const char *name, unsigned long long n)
{
	event(j, what, NULL, "M", pid);
	kc_json_object(j, "args");
	if (name)
		kc_json_str(j, key, name);
	else
		kc_json_uint(j, key, n);
	kc_json_end(j);
	kc_json_end(j);
}

static void instant(struct kc_json *j, const char *name, unsigned int pid,
		    unsigned long long ts)
{
	event(j, name, kc_metric_name(KC_M_TEARDOWN), "i", pid);
	micros(j, "ts", ts);
	kc_json_str(j, "s", "t");
	kc_json_end(j);
}

/* Window @w of VM @r: the window, then its parts. */
static void window(struct kc_json *j, const struct kc_vms *v,
		   const struct kc_vm *r, unsigned int w, unsigned int pid,
		   unsigned long long t0)
{
	enum kc_metric wm = kc_window_desc(w)->metric;
	unsigned long long start = kc_vm_window_start(r, w) - t0;
	struct kc_vm_seg seg[KC_VM_MAX_SEGS];
	unsigned int n = kc_vm_segments(r, w, seg);
	int acc = kc_vm_accounted(r, w);

	complete(j, kc_metric_name(wm), "window", pid, start, r->sum[wm] * v->unit_ns);
	kc_json_object(j, "args");
	kc_json_uint(j, "sum", r->sum[wm]);
	kc_json_str(j, "unit", v->unit);
	kc_json_uint_or_null(j, "accounted_permille", (unsigned long long)acc, acc >= 0);
	if (w == KC_WIN_TEARDOWN)
		kc_json_str(j, "destroyed_by", r->td.by);
	kc_json_end(j);
	kc_json_end(j);
	for (unsigned int i = 0; i < n; i++) {
		complete(j, kc_metric_name(seg[i].metric), kc_metric_name(wm), pid,
			 start + seg[i].start * v->unit_ns, seg[i].len * v->unit_ns);
		kc_json_object(j, "args");
		kc_json_uint(j, "sum", seg[i].len);
		kc_json_uint_or_null(j, "first", seg[i].first - 1, seg[i].first > 0);
		kc_json_str(j, "what", kc_metric_desc(seg[i].metric)->span);
		kc_json_end(j);
		kc_json_end(j);
	}
}

void kc_vms_trace_event(FILE *f, const struct kc_vms *v)
{
	unsigned long long t0 = ~0ULL;
	struct kc_json j;
	char name[64];

	for (size_t i = v->first; i < v->n; i++)
		if (v->vm[i].created_ns < t0)
			t0 = v->vm[i].created_ns;
	kc_json_init(&j, f);
	kc_json_object(&j, NULL);
	kc_json_str(&j, "displayTimeUnit", "ms");
	kc_json_object(&j, "otherData");
	kc_json_str(&j, "tool", "kvmchurn " KVMCHURN_VERSION);
	kc_json_str(&j, "unit", v->unit);
	for (size_t i = v->first; i < v->n; i++)
		if (v->vm[i].created_ns == t0) {
			kc_json_str(&j, "t0", v->vm[i].created);
			break;
		}
	kc_json_end(&j);
	kc_json_array(&j, "traceEvents");
	for (size_t i = v->first; i < v->n; i++) {
		const struct kc_vm *r = &v->vm[i];
		unsigned int pid = (unsigned int)(i - v->first + 1);
		unsigned long long st_end = kc_vm_window_end(v, r, KC_WIN_STARTUP);
		unsigned long long td_end = kc_vm_window_end(v, r, KC_WIN_TEARDOWN);

		snprintf(name, sizeof(name), "%s %lu (VM %u)", r->comm, r->tgid, pid);
		metadata(&j, "process_name", pid, "name", name, 0);
		metadata(&j, "process_sort_index", pid, "sort_index", NULL, pid);
		metadata(&j, "thread_name", pid, "name", "start-up and teardown", 0);
		if (st_end)
			window(&j, v, r, KC_WIN_STARTUP, pid, t0);
		if (!td_end)
			continue;
		if (st_end && r->td.began_ns > st_end) {
			complete(&j, "running", "life", pid, st_end - t0, r->td.began_ns - st_end);
			kc_json_end(&j);
		}
		window(&j, v, r, KC_WIN_TEARDOWN, pid, t0);
		if (r->td.notified)
			instant(&j, "parent notified", pid, r->td.began_ns - t0 +
				(r->td.notified - 1) * v->unit_ns);
		if (r->td.reaped)
			instant(&j, "reaped", pid, r->td.began_ns - t0 +
				(r->td.reaped - 1) * v->unit_ns);
	}
	kc_json_end(&j);
	kc_json_end(&j);
	fputc('\n', f);
}
