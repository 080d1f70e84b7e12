/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmchurn_live.h - the live view, written once for the module and the
 * client: what a live VM's record says (the stage it is in, down to the
 * nested call, which task is in it and since when), when that is a stall,
 * and how stalls are grouped and read, in the module's `checks` file and in
 * `kvmchurn check`, `vms --live`, `watch` and `export`.
 *
 * A stage in flight is a timed call not returned yet, or where none is, the
 * part of its process's teardown that holds the instant (waiting for the
 * parent's reap, an RCU grace period...). A start-up's time outside the
 * timed calls is the VMM's own, not the kernel's: never a stall.
 *
 * Compiled in the kernel (render.c) and in userspace (C11); nothing here
 * allocates or sleeps.
 */
#ifndef KVMCHURN_LIVE_H
#define KVMCHURN_LIVE_H

#include "kvmchurn_rules.h"

/*
 * stall_ms=: a stage in flight this long is a stall. The default, 10 s, is
 * ten times the longest stage a healthy teardown took on the matrix (a
 * guest's exit_mmap, about 1 s a 64 GiB), a twelfth of the kernel's
 * hung-task timeout (120 s), and within one Prometheus scrape (15 s).
 */
#define KC_STALL_MS_DEFAULT	10000
#define KC_STALL_MS_MIN		1
#define KC_STALL_MS_MAX		86400000	/* a day */

#define KC_LIVE_DEPTH		4	/* nested stages a record keeps */
#define KC_STALL_SHOWN		8	/* VMs listed under a stall group */
#define KC_STACK_DEPTH		16	/* frames of a stalled task's stack */
#define KC_FRAME_LEN		96	/* "func+0x1c/0x40 [module]" */
#define KC_LIVE_STAGE		128	/* 4 names of at most 23, " > " between */
#define KC_LIVE_LINE		512	/* a VM's line, a stage and its times */

/*
 * The `vms` file's live records (Documentation/ABI.rst): after the
 * finished VMs, one a live VM, and after a stalled one, its task's stack:
 *   live-fields	tgid	comm	created	window	stage	task	since	age
 *   live	<tgid>	<comm>	<created>	<window>	<stage>	<task>	<since>	<age>
 *   stack	kernel|proc|none	<frame>...
 * window is -, startup, teardown or destroyed (enum kc_live_window);
 * stage is the metrics' names, outermost first, joined by '>', or "-"
 * when nothing is in flight (then task is 0, since "-", age 0); task is
 * the pid of the task in the stage (for reap_wait, the parent that has not
 * reaped it); since is CLOCK_REALTIME as created is; age in the unit.
 * stack: "kernel" and the frames the module took, innermost first; "proc"
 * where the kernel lets no module take another task's stack (before 6.7):
 * /proc/<task>/stack has it; "none": the task was running when the read
 * came (a blocked task's stack alone is taken), or is gone.
 */
#define KC_VMS_LIVE_FIELDS	"live-fields"
#define KC_VMS_LIVE		"live"
#define KC_VMS_STACK		"stack"
#define KC_VMS_STAGE_SEP	">"

/* A live record's fields, its tag included. */
#define KC_VMS_LIVE_NR		9

/*
 * Where a live VM is: neither starting nor torn down (running, or made and
 * not run yet), starting, its process torn down, or destroyed while its
 * process lives on (it waits for the process's reap or its next VM).
 */
enum kc_live_window { KC_LIVE_RUN, KC_LIVE_STARTUP, KC_LIVE_TEARDOWN,
		      KC_LIVE_DESTROYED, KC_NR_LIVE_WINDOWS };

/* A window is named after its metric, the others as the vms file says. */
static inline const char *kc_live_window_name(unsigned int w)
{
	switch (w) {
	case KC_LIVE_RUN:
		return "-";
	case KC_LIVE_STARTUP:
		return kc_metric_name(KC_M_STARTUP);
	case KC_LIVE_TEARDOWN:
		return kc_metric_name(KC_M_TEARDOWN);
	case KC_LIVE_DESTROYED:
		return "destroyed";
	default:
		return "?";
	}
}

enum kc_stack_source { KC_STACK_KERNEL, KC_STACK_PROC, KC_STACK_NONE,
		       KC_NR_STACK_SOURCES };

static inline const char *kc_stack_source_name(unsigned int s)
{
	static const char *const names[KC_NR_STACK_SOURCES] = {
		[KC_STACK_KERNEL] = "kernel", [KC_STACK_PROC] = "proc",
		[KC_STACK_NONE] = "none",
	};

	return s < KC_NR_STACK_SOURCES ? names[s] : "?";
}

/* One live VM, as the module sees it and the live record says it. */
struct kc_live {
	__s32 tgid;
	__s32 task;		/* in the stage; 0: nothing in flight */
	char comm[KC_COMM_LEN];
	__u64 created;		/* CLOCK_REALTIME, ns */
	__u64 since;		/* CLOCK_REALTIME, ns: the stage began */
	__u64 age;		/* in the unit */
	__u8 window;		/* enum kc_live_window */
	__u8 depth;		/* stages in stage[]; 0: nothing in flight */
	__u8 stage[KC_LIVE_DEPTH];	/* metrics, outermost first */
};

/* A stalled task's stack, as the module took it or the client read it. */
struct kc_live_stack {
	__u8 source;		/* enum kc_stack_source */
	__u8 nr;
	char frame[KC_STACK_DEPTH][KC_FRAME_LEN];
};

static inline __u64 kc_live_div(__u64 a, __u64 b)
{
#ifdef __KERNEL__
	return div64_u64(a, b);
#else
	return a / b;
#endif
}

/* stall_ms in a unit of @unit_ns nanoseconds. */
static inline __u64 kc_stall_age(__u64 stall_ms, __u64 unit_ns)
{
	return kc_live_div(stall_ms * 1000000, unit_ns ? unit_ns : 1);
}

/* Whether live VM @v is stalled: a stage in flight @stall long or more. */
static inline bool kc_live_stalled(const struct kc_live *v, __u64 stall)
{
	return v->depth && v->age >= stall;
}

/* The stage that names a stall: the innermost. */
static inline unsigned int kc_live_cause(const struct kc_live *v)
{
	return v->depth ? v->stage[v->depth - 1] : KC_NR_METRICS;
}

/* @v's stage: its metrics' names joined by @sep, or "-". */
static inline void kc_live_stage_text(char *buf, size_t len,
				      const struct kc_live *v, const char *sep)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	if (!v->depth) {
		snprintf(buf, len, "-");
		return;
	}
	for (i = 0; i < v->depth && n < len; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? sep : "",
			      kc_metric_name(v->stage[i]));
}

/* An age in the unit as a person reads it: 850 ms, 12.3 s, 47m12s, 3h02m. */
static inline void kc_age_text(char *buf, size_t len, __u64 age,
			       __u64 unit_ns)
{
	__u64 ms = kc_live_div(age * (unit_ns ? unit_ns : 1), 1000000);
	__u64 s = kc_live_div(ms, 1000);

	if (ms < 1000)
		snprintf(buf, len, "%llu ms", (unsigned long long)ms);
	else if (s < 60)
		snprintf(buf, len, "%llu.%llu s", (unsigned long long)s,
			 (unsigned long long)kc_live_div(ms - s * 1000, 100));
	else if (s < 3600)
		snprintf(buf, len, "%llum%02llus",
			 (unsigned long long)kc_live_div(s, 60),
			 (unsigned long long)(s - kc_live_div(s, 60) * 60));
	else
		snprintf(buf, len, "%lluh%02llum",
			 (unsigned long long)kc_live_div(s, 3600),
			 (unsigned long long)kc_live_div(s % 3600, 60));
}

/*
 * CLOCK_REALTIME @ns as "2026-12-07 14:02:11 UTC": the civil date of a day
 * count, by eras of 400 years (146097 days), in integers.
 */
static inline void kc_utc_text(char *buf, size_t len, __u64 ns)
{
	__u64 sec = kc_live_div(ns, 1000000000);
	__u64 days = kc_live_div(sec, 86400), tod = sec - days * 86400;
	__u64 z = days + 719468, era = kc_live_div(z, 146097);
	__u64 doe = z - era * 146097;
	__u64 yoe = kc_live_div(doe - kc_live_div(doe, 1460) +
				kc_live_div(doe, 36524) -
				kc_live_div(doe, 146096), 365);
	__u64 doy = doe - (365 * yoe + kc_live_div(yoe, 4) -
			   kc_live_div(yoe, 100));
	__u64 mp = kc_live_div(5 * doy + 2, 153);
	__u64 day = doy - kc_live_div(153 * mp + 2, 5) + 1;
	__u64 month = mp < 10 ? mp + 3 : mp - 9;
	__u64 year = yoe + era * 400 + (month <= 2);

	snprintf(buf, len, "%04llu-%02llu-%02llu %02llu:%02llu:%02llu UTC",
		 (unsigned long long)year, (unsigned long long)month,
		 (unsigned long long)day,
		 (unsigned long long)kc_live_div(tod, 3600),
		 (unsigned long long)kc_live_div(tod % 3600, 60),
		 (unsigned long long)(tod % 60));
}

/*
 * Stalls grouped by their cause, the innermost stage: one held reader of a
 * global lock is one group, however many VMs wait behind it. top[] holds
 * the group's oldest VMs, oldest first, as indexes into the live array.
 */
struct kc_stall_group {
	unsigned int cause;	/* a metric */
	unsigned int n;
	unsigned int shown;
	unsigned int top[KC_STALL_SHOWN];
};

/* At most one group a metric. */
#define KC_STALL_GROUPS		KC_NR_METRICS

/* Keeps @i among @g's oldest KC_STALL_SHOWN, oldest first. */
static inline void kc_stall_keep(struct kc_stall_group *g,
				 const struct kc_live *v, unsigned int i)
{
	unsigned int j;

	g->n++;
	if (g->shown < KC_STALL_SHOWN)
		g->shown++;
	else if (v[i].age <= v[g->top[g->shown - 1]].age)
		return;
	for (j = g->shown - 1; j > 0 && v[g->top[j - 1]].age < v[i].age; j--)
		g->top[j] = g->top[j - 1];
	g->top[j] = i;
}

/*
 * The stalled VMs of @v (@n of them), grouped into @g (KC_STALL_GROUPS),
 * the group with the oldest stall first. Returns how many groups.
 */
static inline unsigned int kc_stall_groups(const struct kc_live *v,
					   unsigned int n, __u64 stall,
					   struct kc_stall_group *g)
{
	unsigned int i, j, ng = 0;

	for (i = 0; i < n; i++) {
		unsigned int cause = kc_live_cause(&v[i]);

		if (!kc_live_stalled(&v[i], stall) || cause >= KC_NR_METRICS)
			continue;
		for (j = 0; j < ng && g[j].cause != cause; j++)
			;
		if (j == ng) {
			memset(&g[ng], 0, sizeof(g[ng]));
			g[ng++].cause = cause;
		}
		kc_stall_keep(&g[j], v, i);
	}
	/* oldest first: a few groups, by insertion */
	for (i = 1; i < ng; i++) {
		for (j = i; j > 0 && v[g[j - 1].top[0]].age < v[g[j].top[0]].age;
		     j--) {
			struct kc_stall_group t = g[j];

			g[j] = g[j - 1];
			g[j - 1] = t;
		}
	}
	return ng;
}

/* How many VMs the groups hold. */
static inline unsigned int kc_stalled_count(const struct kc_stall_group *g,
					    unsigned int ng)
{
	unsigned int i, n = 0;

	for (i = 0; i < ng; i++)
		n += g[i].n;
	return n;
}

/*
 * How a stall reads: the lines of `checks` after the seed's checks, each
 * passed to @emit with its verdict, or KC_LINE_UNDER for a line under a
 * verdict's (printed indented). No stall: one OK line. Else a WARN line a
 * group, its oldest VMs under it, and the stack of its oldest, which
 * @stack gives (struct kc_live_stack) for a live VM.
 */
#define KC_LINE_UNDER	3	/* not an enum kc_verdict */

/* Where the lines are made: the caller's, too big for a kernel stack. */
struct kc_stall_buf {
	char line[KC_LIVE_LINE];
	char stage[KC_LIVE_STAGE];
	char age[32];
	char since[96];
};

struct kc_stall_out {
	void (*emit)(void *ctx, unsigned int verdict, const char *text);
	const struct kc_live_stack *(*stack)(void *ctx,
					     const struct kc_live *v);
	void *ctx;
	struct kc_stall_buf *buf;
};

static inline void kc_stack_render(const struct kc_stall_out *out,
				   const struct kc_live *v,
				   const struct kc_live_stack *st)
{
	char *line = out->buf->line;
	size_t len = sizeof(out->buf->line);
	unsigned int i;

	if (!st || st->source == KC_STACK_NONE ||
	    (st->source == KC_STACK_KERNEL && !st->nr)) {
		snprintf(line, len,
			 "stack of task %d: none (it was running, or is gone)",
			 v->task);
		out->emit(out->ctx, KC_LINE_UNDER, line);
		return;
	}
	if (st->source == KC_STACK_PROC) {
		snprintf(line, len,
			 "stack of task %d: /proc/%d/stack has it (a module can take it from 6.7)",
			 v->task, v->task);
		out->emit(out->ctx, KC_LINE_UNDER, line);
		return;
	}
	snprintf(line, len, "stack of task %d:", v->task);
	out->emit(out->ctx, KC_LINE_UNDER, line);
	for (i = 0; i < st->nr && i < KC_STACK_DEPTH; i++) {
		snprintf(line, len, "  %s", st->frame[i]);
		out->emit(out->ctx, KC_LINE_UNDER, line);
	}
}

static inline void kc_stalls_render(const struct kc_live *v, unsigned int n,
				    const struct kc_stall_group *g,
				    unsigned int ng, __u64 stall_ms,
				    __u64 unit_ns,
				    const struct kc_stall_out *out)
{
	char *line = out->buf->line, *stage = out->buf->stage;
	char *age = out->buf->age, *since = out->buf->since;
	unsigned int i, k;

	if (!ng) {
		snprintf(line, sizeof(out->buf->line),
			 "stalls: none of %u live VMs in one stage for stall_ms=%llu or longer",
			 n, (unsigned long long)stall_ms);
		out->emit(out->ctx, KC_VERDICT_OK, line);
		return;
	}
	for (i = 0; i < ng; i++) {
		const struct kc_live *old = &v[g[i].top[0]];

		kc_age_text(age, sizeof(out->buf->age), old->age, unit_ns);
		snprintf(line, sizeof(out->buf->line),
			 "stalls: %u VM%s in %s for stall_ms=%llu or longer, the oldest for %s",
			 g[i].n, g[i].n == 1 ? "" : "s",
			 kc_metric_name(g[i].cause),
			 (unsigned long long)stall_ms, age);
		out->emit(out->ctx, KC_VERDICT_WARN, line);
		for (k = 0; k < g[i].shown; k++) {
			const struct kc_live *x = &v[g[i].top[k]];

			kc_live_stage_text(stage, sizeof(out->buf->stage), x, " > ");
			kc_age_text(age, sizeof(out->buf->age), x->age, unit_ns);
			kc_utc_text(since, sizeof(out->buf->since), x->since);
			snprintf(line, sizeof(out->buf->line),
				 "%.15s %d, task %d: %s for %s, since %s",
				 x->comm, x->tgid, x->task, stage, age, since);
			out->emit(out->ctx, KC_LINE_UNDER, line);
		}
		if (g[i].n > g[i].shown) {
			snprintf(line, sizeof(out->buf->line), "and %u more",
				 g[i].n - g[i].shown);
			out->emit(out->ctx, KC_LINE_UNDER, line);
		}
		kc_stack_render(out, old, out->stack(out->ctx, old));
	}
}

#endif /* KVMCHURN_LIVE_H */
