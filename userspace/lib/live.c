// SPDX-License-Identifier: GPL-2.0
/*
 * The live view as the client reads it: the live records of the module's
 * vms file (kvmchurn_live.h has their format and the rules of a stall),
 * and the stacks of the stalled tasks that the module took. The client
 * does not read /proc/<task>/stack itself where the module could not take
 * one: a task that wakes meanwhile is unwound running, through a
 * kretprobe's trampoline, which warns in the kernel (seen on 6.1).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "folder.h"
#include "live.h"
#include "snap.h"
#include "view.h"
#include "vms.h"

/* The live record's fields after its tag, as live-fields names them. */
static const char *const live_fields[] = {
	"tgid", "comm", "created", "window", "stage", "task", "since", "age",
};

/* A whole field of digits (kc_parse_u64()). */
static bool number(const char *s, unsigned long long *v)
{
	return !kc_parse_u64(s, '\0', v, NULL);
}

static int window_of(const char *s)
{
	for (unsigned int w = 0; w < KC_NR_LIVE_WINDOWS; w++)
		if (!strcmp(s, kc_live_window_name(w)))
			return (int)w;
	return -1;
}

/* "a>b>c" into v->stage[]; "-" is none. A name this client does not know */
/* is kept as KC_NR_METRICS, which prints "?". */
static bool stage_of(char *s, struct kc_live *v)
{
	char *name;

	v->depth = 0;
	if (!strcmp(s, KC_VMS_ABSENT))
		return true;
	for (name = strtok(s, KC_VMS_STAGE_SEP); name;
	     name = strtok(NULL, KC_VMS_STAGE_SEP)) {
		int m = kc_find_metric(name);

		if (v->depth == KC_LIVE_DEPTH)
			return false;
		v->stage[v->depth++] = m < 0 ? KC_NR_METRICS : (__u8)m;
	}
	return v->depth > 0;
}

static int live_record(char **f, size_t n, struct kc_live *v)
{
	unsigned long long tgid, task, age;
	int w;

	memset(v, 0, sizeof(*v));
	if (n < KC_VMS_LIVE_NR || !number(f[1], &tgid) || tgid > INT32_MAX ||
	    strlen(f[2]) >= KC_COMM_LEN || kc_parse_epoch_ns(f[3], &v->created) ||
	    (w = window_of(f[4])) < 0 || !number(f[6], &task) ||
	    task > INT32_MAX || !number(f[8], &age))
		return -1;
	v->tgid = (__s32)tgid;
	snprintf(v->comm, sizeof(v->comm), "%s", f[2]);
	v->window = (__u8)w;
	v->task = (__s32)task;
	v->age = age;
	if (!stage_of(f[5], v))
		return -1;
	if (!v->depth)
		return strcmp(f[7], KC_VMS_ABSENT) ? -1 : 0;
	return kc_parse_epoch_ns(f[7], &v->since) ? -1 : 0;
}

static int stack_record(char **f, size_t n, struct kc_live_stack *st)
{
	unsigned int s;

	for (s = 0; s < KC_NR_STACK_SOURCES; s++)
		if (!strcmp(f[1], kc_stack_source_name(s)))
			break;
	if (n < 2 || s == KC_NR_STACK_SOURCES)
		return -1;
	st->source = (__u8)s;
	for (size_t i = 2; i < n && st->nr < KC_STACK_DEPTH; i++)
		snprintf(st->frame[st->nr++], KC_FRAME_LEN, "%s", f[i]);
	return 0;
}

static int grow(struct kc_live_set *ls)
{
	size_t cap = ls->cap ? ls->cap * 2 : 64;
	struct kc_live *v;
	struct kc_live_stack **st;

	if (ls->n < ls->cap)
		return 0;
	v = realloc(ls->v, cap * sizeof(*v));
	if (!v)
		return -1;
	ls->v = v;
	st = realloc(ls->stack, cap * sizeof(*st));
	if (!st)
		return -1;
	ls->stack = st;
	ls->cap = cap;
	return 0;
}

int kc_live_parse(const char *cmd, const char *name, char *text, size_t len,
		  struct kc_live_set *ls)
{
	unsigned long nr = 0;
	char *line, *next, *f[64];
	size_t n;

	memset(ls, 0, sizeof(*ls));
	if (kc_vms_text(cmd, name, text, len))
		return -1;
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		if (++nr == 1) {
			if (strncmp(line, KC_VMS_MAGIC " ", strlen(KC_VMS_MAGIC) + 1))
				return kc_vms_bad(cmd, name, nr, "not a vms file");
			continue;
		}
		n = kc_split_tabs(line, f, ARRAY_SIZE(f));
		if (!strcmp(f[0], KC_VMS_UNIT) && n >= 2) {
			snprintf(ls->unit, sizeof(ls->unit), "%s", f[1]);
			ls->unit_ns = kc_unit_ns(f[1]);
			if (!ls->unit_ns)
				return kc_vms_bad(cmd, name, nr, "unknown unit");
		} else if (!strcmp(f[0], KC_VMS_PARAMS) && n >= 5) {
			unsigned long long ms;

			if (!number(f[4], &ms) || ms < KC_STALL_MS_MIN ||
			    ms > KC_STALL_MS_MAX)
				return kc_vms_bad(cmd, name, nr, "bad stall_ms");
			ls->stall_ms = ms;
		} else if (!strcmp(f[0], KC_VMS_LIVE_FIELDS)) {
			for (size_t i = 0; i < ARRAY_SIZE(live_fields); i++)
				if (i + 1 >= n || strcmp(f[i + 1], live_fields[i]))
					return kc_vms_bad(cmd, name, nr, "unknown live-fields");
			ls->known = true;
		} else if (!strcmp(f[0], KC_VMS_LIVE) && ls->known) {
			if (grow(ls))
				return kc_vms_bad(cmd, name, nr, strerror(errno));
			if (live_record(f, n, &ls->v[ls->n]))
				return kc_vms_bad(cmd, name, nr, "bad live record");
			ls->stack[ls->n++] = NULL;
		} else if (!strcmp(f[0], KC_VMS_STACK) && ls->known) {
			struct kc_live_stack *st;

			if (!ls->n || ls->stack[ls->n - 1])
				return kc_vms_bad(cmd, name, nr, "a stack record after no live record");
			st = calloc(1, sizeof(*st));
			if (!st)
				return kc_vms_bad(cmd, name, nr, strerror(errno));
			ls->stack[ls->n - 1] = st;
			if (stack_record(f, n, st))
				return kc_vms_bad(cmd, name, nr, "bad stack record");
		}
	}
	if (ls->known && (!ls->unit_ns || !ls->stall_ms))
		return kc_vms_bad(cmd, name, nr, "live records without unit or stall_ms");
	if (ls->known)
		ls->ngroups = kc_stall_groups(ls->v, (unsigned int)ls->n,
					      kc_stall_age(ls->stall_ms, ls->unit_ns),
					      ls->groups);
	return 0;
}

int kc_live_read(const char *cmd, const struct kc_global *g,
		 struct kc_live_set *ls)
{
	char *text, *path;
	size_t len;
	int rc;

	memset(ls, 0, sizeof(*ls));
	if (asprintf(&path, "%s/vms", g->dir) < 0) {
		perror("kvmchurn");
		return KC_EXIT_CANNOT_START;
	}
	/* a folder without one: a capture of raw alone, or an older module */
	if (access(path, F_OK) && errno == ENOENT) {
		free(path);
		return KC_EXIT_OK;
	}
	rc = kc_read_module_file(cmd, g, "vms", &text, &len);
	if (!rc) {
		if (kc_live_parse(cmd, path, text, len, ls))
			rc = KC_EXIT_CANNOT_START;
		free(text);
	}
	free(path);
	return rc;
}

void kc_live_free(struct kc_live_set *ls)
{
	for (size_t i = 0; i < ls->n; i++)
		free(ls->stack[i]);
	free(ls->stack);
	free(ls->v);
	memset(ls, 0, sizeof(*ls));
}

unsigned int kc_live_stalled_count(const struct kc_live_set *ls)
{
	return kc_stalled_count(ls->groups, ls->ngroups);
}

static void print_line(void *ctx, unsigned int verdict, const char *text)
{
	(void)ctx;
	if (verdict >= KC_LINE_UNDER) {
		printf("     %s\n", text);
		return;
	}
	printf("%s%-4s%s %s\n",
	       kc_style(verdict == KC_VERDICT_WARN ? KC_BAD : KC_GOOD),
	       kc_verdict_name(verdict), kc_style(KC_OFF), text);
}

static const struct kc_live_stack *stack_of(void *ctx, const struct kc_live *v)
{
	const struct kc_live_set *ls = ctx;

	return ls->stack[v - ls->v];
}

void kc_live_print_stalls(const struct kc_live_set *ls)
{
	struct kc_stall_buf buf;
	const struct kc_stall_out out = {
		.emit = print_line, .stack = stack_of, .ctx = (void *)ls,
		.buf = &buf,
	};

	kc_stalls_render(ls->v, (unsigned int)ls->n, ls->groups, ls->ngroups,
			 ls->stall_ms, ls->unit_ns, &out);
}

static void json_real(struct kc_json *j, const char *key, __u64 ns)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu.%09llu",
		 (unsigned long long)(ns / 1000000000ULL),
		 (unsigned long long)(ns % 1000000000ULL));
	kc_json_str(j, key, buf);
}

void kc_live_json_vm(struct kc_json *j, const struct kc_live_set *ls, size_t i)
{
	const struct kc_live *v = &ls->v[i];
	const struct kc_live_stack *st = ls->stack[i];

	kc_json_object(j, NULL);
	kc_json_int(j, "tgid", v->tgid);
	kc_json_str(j, "comm", v->comm);
	json_real(j, "created", v->created);
	kc_json_str(j, "window", kc_live_window_name(v->window));
	kc_json_array(j, "stage");
	for (unsigned int k = 0; k < v->depth; k++)
		kc_json_str(j, NULL, kc_metric_name(v->stage[k]));
	kc_json_end(j);
	if (v->depth) {
		kc_json_int(j, "task", v->task);
		json_real(j, "since", v->since);
	} else {
		kc_json_null(j, "task");
		kc_json_null(j, "since");
	}
	kc_json_uint(j, "age", v->age);
	kc_json_bool(j, "stalled",
		     kc_live_stalled(v, kc_stall_age(ls->stall_ms, ls->unit_ns)));
	if (!st) {
		kc_json_null(j, "stack");
	} else {
		kc_json_object(j, "stack");
		kc_json_str(j, "source", kc_stack_source_name(st->source));
		kc_json_array(j, "frames");
		for (unsigned int k = 0; k < st->nr; k++)
			kc_json_str(j, NULL, st->frame[k]);
		kc_json_end(j);
		kc_json_end(j);
	}
	kc_json_end(j);
}

void kc_live_json_stalls(struct kc_json *j, const struct kc_live_set *ls)
{
	kc_json_object(j, "stalls");
	kc_json_str(j, "unit", ls->unit);
	kc_json_uint(j, "stall_ms", ls->stall_ms);
	kc_json_uint(j, "live", ls->n);
	kc_json_uint(j, "stalled", kc_live_stalled_count(ls));
	kc_json_array(j, "groups");
	for (unsigned int g = 0; g < ls->ngroups; g++) {
		const struct kc_stall_group *sg = &ls->groups[g];

		kc_json_object(j, NULL);
		kc_json_str(j, "stage", kc_metric_name(sg->cause));
		kc_json_uint(j, "vms", sg->n);
		kc_json_uint(j, "oldest_age", ls->v[sg->top[0]].age);
		kc_json_array(j, "oldest");
		for (unsigned int k = 0; k < sg->shown; k++)
			kc_live_json_vm(j, ls, sg->top[k]);
		kc_json_end(j);
		kc_json_end(j);
	}
	kc_json_end(j);
	kc_json_end(j);
}
