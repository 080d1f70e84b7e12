// SPDX-License-Identifier: GPL-2.0
/*
 * The finished VMs of the module's vms file: its vm records with the st and
 * td records after them, and what the commands derive from one VM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "folder.h"
#include "vms.h"

/* One stage field: "-" or "<count>:<sum>", count not 0. */
static int parse_stage(const char *f, unsigned long long *count,
		       unsigned long long *sum)
{
	const char *end;

	if (!strcmp(f, KC_VMS_ABSENT)) {
		*count = *sum = 0;
		return 0;
	}
	if (kc_parse_u64(f, ':', count, &end) || *end != ':' || !*count)
		return -1;
	return kc_parse_u64(end + 1, '\0', sum, NULL);
}

/* A number of the td record: all digits, up to a ':' or the end. */
static int td_number(const char *f, unsigned long long *v)
{
	return kc_parse_u64(f, ':', v, NULL);
}

/* A time as the module prints it, in ns, and its text into @copy. */
static int parse_time(const char *f, char *copy, size_t len, uint64_t *ns)
{
	unsigned long long t;

	if (kc_parse_epoch_ns(f, &t))
		return -1;
	*ns = t;
	snprintf(copy, len, "%s", f);
	return 0;
}

/* The td record after a kept vm record: its teardown's places. */
static int parse_td(char **f, size_t n, const struct kc_vms *v,
		    struct kc_vm_td *td)
{
	if (parse_time(f[1], td->began, sizeof(td->began), &td->began_ns))
		return -1;
	if (strcmp(f[2], KC_VMS_BY_VM) && strcmp(f[2], KC_VMS_BY_VCPU) &&
	    strcmp(f[2], KC_VMS_BY_OTHER) && strcmp(f[2], KC_VMS_ABSENT))
		return -1;
	snprintf(td->by, sizeof(td->by), "%s", f[2]);
	if (kc_parse_u64(f[3], '\0', &td->notified, NULL) ||
	    kc_parse_u64(f[4], '\0', &td->reaped, NULL))
		return -1;
	for (size_t i = 5; i < n; i++) {
		const char *colon = strchr(f[i], ':');
		unsigned long long first, before;
		int part = v->tdcol[i];

		if (!colon || td_number(f[i], &first) ||
		    kc_parse_u64(colon + 1, '\0', &before, NULL))
			return -1;
		if (part >= 0) {
			td->first[part] = first;
			td->before[part] = before;
		}
	}
	td->valid = true;
	return 0;
}

/* The st record after a kept vm record: its start-up's parts' places. */
static int parse_st(char **f, size_t n, const struct kc_vms *v,
		    struct kc_vm_st *st)
{
	for (size_t i = 1; i < n; i++) {
		unsigned long long first;

		if (kc_parse_u64(f[i], '\0', &first, NULL))
			return -1;
		if (v->stcol[i] >= 0)
			st->first[v->stcol[i]] = first;
	}
	st->valid = true;
	return 0;
}

int kc_vms_bad(const char *cmd, const char *path, unsigned long nr,
	       const char *what)
{
	kc_err(cmd, "%s, line %lu: %s: is the module of the same version as the client?",
	       path, nr, what);
	return -1;
}

/* The vm record @f of @n fields: a VM kept when it is of @list. */
static int parse_vm(const char *cmd, const char *path, unsigned long nr,
		    char **f, size_t n, const char *list, struct kc_vms *v)
{
	struct kc_vm *r;

	v->last_taken = false;
	if (strcmp(f[1], list))
		return 0;
	if (kc_grow(&v->vm, &v->cap, v->n, sizeof(*v->vm), 64)) {
		kc_err(cmd, "%s", strerror(errno));
		return -1;
	}
	r = &v->vm[v->n];
	memset(r, 0, sizeof(*r));
	if (!kc_parse_ulong(f[2], 1, 1UL << 31, &r->tgid))
		return kc_vms_bad(cmd, path, nr, "a tgid that is not a number");
	if (!*f[3] || strlen(f[3]) > KC_NAME_MAX)
		return kc_vms_bad(cmd, path, nr, "a comm empty or longer than " KC_STR(KC_NAME_MAX) " bytes");
	snprintf(r->comm, sizeof(r->comm), "%s", f[3]);
	if (parse_time(f[4], r->created, sizeof(r->created), &r->created_ns))
		return kc_vms_bad(cmd, path, nr, "a creation time that is not SECONDS.NANOSECONDS");
	for (size_t i = KC_VMS_VM_HEAD; i < n; i++) {
		unsigned long long c, s;

		if (parse_stage(f[i], &c, &s))
			return kc_vms_bad(cmd, path, nr, "a stage that is neither - nor COUNT:SUM");
		if (v->col[i] >= 0) {
			r->count[v->col[i]] = c;
			r->sum[v->col[i]] = s;
		}
	}
	v->n++;
	v->last_taken = true;
	return 0;
}

/* A fields record: each field's metric, or -1 (the head, an unknown one). */
static void map_fields(char **f, size_t n, size_t head, int *col,
		       int lo, int hi, int base)
{
	for (size_t i = 0; i < n; i++) {
		int m = i < head ? -1 : kc_find_metric(f[i]);

		col[i] = m >= lo && m <= hi ? m - base : -1;
	}
}

int kc_vms_text(const char *cmd, const char *path, const char *text,
		size_t len)
{
	const char *nul = memchr(text, '\0', len);
	unsigned long nr = 1;

	if (!len) {
		kc_err(cmd, "%s is empty: not a kvmchurn-vms file", path);
		return -1;
	}
	for (const char *c = text; c < (nul ? nul : text + len - 1); c++)
		nr += *c == '\n';
	if (nul)
		return kc_vms_bad(cmd, path, nr, "a NUL byte: not a text file");
	if (text[len - 1] != '\n')
		return kc_vms_bad(cmd, path, nr, "cut short (no newline at its end)");
	return 0;
}

/* The records that come once, before the VMs: their tags, a bit each. */
static const char *const once[] = {
	KC_VMS_UNIT, KC_VMS_PARAMS, KC_VMS_STATS, KC_VMS_FIELDS,
	KC_VMS_TD_FIELDS, KC_VMS_ST_FIELDS,
};

/* Fields of each record this reader knows, its tag included: at least. */
static size_t least_fields(const char *tag)
{
	return !strcmp(tag, KC_VMS_UNIT) ? 2 : !strcmp(tag, KC_VMS_PARAMS) ? 4 :
	       !strcmp(tag, KC_VMS_STATS) ? 5 : !strcmp(tag, KC_VMS_FIELDS) ? KC_VMS_VM_HEAD :
	       !strcmp(tag, KC_VMS_TD_FIELDS) ? 5 : 1;
}

/* A params or stats record: @n numbers after its tag, strict. */
static int numbers(char **f, size_t n, unsigned long long *out)
{
	for (size_t i = 0; i < n; i++)
		if (kc_parse_u64(f[i + 1], '\0', &out[i], NULL))
			return -1;
	return 0;
}

/* What follows a vm record, a bit each: its st and its td records. */
#define AFTER_VM	1u
#define HAS_ST		2u
#define HAS_TD		4u

int kc_vms_parse(const char *cmd, const char *path, char *text, size_t len,
		 const char *list, struct kc_vms *v)
{
	char *line, *next, *f[KC_VMS_VM_HEAD + KC_NR_METRICS + 16];
	unsigned int seen = 0, vm = 0;
	unsigned long nr = 0;
	size_t n;

	if (kc_vms_text(cmd, path, text, len))
		return -1;
	for (line = text; *line; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		nr++;
		if (nr == 1) {
			if (strcmp(line, KC_VMS_MAGIC " " KC_STR(KC_VMS_VERSION)))
				return kc_vms_bad(cmd, path, nr, "not a kvmchurn-vms " KC_STR(KC_VMS_VERSION) " file");
			continue;
		}
		if (!*line)
			return kc_vms_bad(cmd, path, nr, "an empty line");
		n = kc_split_tabs(line, f, ARRAY_SIZE(f));
		for (unsigned int i = 0; i < ARRAY_SIZE(once); i++) {
			if (strcmp(f[0], once[i]))
				continue;
			if (seen & 1u << i)
				return kc_vms_bad(cmd, path, nr, "a record that comes once, twice");
			seen |= 1u << i;
		}
		if (n < least_fields(f[0]))
			return kc_vms_bad(cmd, path, nr, "too few fields");
		if (!strcmp(f[0], KC_VMS_UNIT)) {
			snprintf(v->unit, sizeof(v->unit), "%s", f[1]);
			v->unit_ns = kc_unit_ns(v->unit);
			if (!v->unit_ns)
				return kc_vms_bad(cmd, path, nr, "a unit other than ns, us and ms");
		} else if (!strcmp(f[0], KC_VMS_PARAMS)) {
			if (numbers(f, 3, v->params))
				return kc_vms_bad(cmd, path, nr, "a params record of other than numbers");
		} else if (!strcmp(f[0], KC_VMS_STATS)) {
			if (numbers(f, 4, v->stats))
				return kc_vms_bad(cmd, path, nr, "a stats record of other than numbers");
		} else if (!strcmp(f[0], KC_VMS_FIELDS)) {
			if (n > ARRAY_SIZE(v->col))
				return kc_vms_bad(cmd, path, nr, "too many fields");
			v->ncols = n;
			map_fields(f, n, KC_VMS_VM_HEAD, v->col, 0,
				   KC_NR_METRICS - 1, 0);
		} else if (!strcmp(f[0], KC_VMS_TD_FIELDS)) {
			if (n > ARRAY_SIZE(v->tdcol))
				return kc_vms_bad(cmd, path, nr, "too many td fields");
			v->ntdcols = n;
			map_fields(f, n, 5, v->tdcol, KC_M_TD_DESTROY,
				   KC_M_TD_OTHER, KC_M_TD_DESTROY);
		} else if (!strcmp(f[0], KC_VMS_ST_FIELDS)) {
			if (n > ARRAY_SIZE(v->stcol))
				return kc_vms_bad(cmd, path, nr, "too many st fields");
			v->nstcols = n;
			map_fields(f, n, 1, v->stcol, KC_M_ST_CREATE,
				   KC_M_ST_OTHER, KC_M_ST_CREATE);
		} else if (!strcmp(f[0], KC_VMS_ST)) {
			if (!v->nstcols || n != v->nstcols)
				return kc_vms_bad(cmd, path, nr, "an st record unlike the st-fields record");
			if (!(vm & AFTER_VM) || vm & HAS_ST)
				return kc_vms_bad(cmd, path, nr, "an st record not after its vm record");
			vm |= HAS_ST;
			if (v->last_taken && parse_st(f, n, v, &v->vm[v->n - 1].st))
				return kc_vms_bad(cmd, path, nr, "an st record of other than numbers");
		} else if (!strcmp(f[0], KC_VMS_TD)) {
			if (!v->ntdcols || n != v->ntdcols)
				return kc_vms_bad(cmd, path, nr, "a td record unlike the td-fields record");
			if (!(vm & AFTER_VM) || vm & HAS_TD)
				return kc_vms_bad(cmd, path, nr, "a td record not after its vm record");
			vm |= HAS_TD;
			if (v->last_taken && parse_td(f, n, v, &v->vm[v->n - 1].td))
				return kc_vms_bad(cmd, path, nr, "a td record of other than a time, numbers and FIRST:BEFORE parts");
		} else if (!strcmp(f[0], KC_VMS_VM)) {
			if (!v->ncols || n != v->ncols)
				return kc_vms_bad(cmd, path, nr, "a vm record unlike the fields record");
			vm = AFTER_VM;
			if (parse_vm(cmd, path, nr, f, n, list, v))
				return -1;
		}
		/* else a live record (live.c's), or a newer module's: skipped */
	}
	if (!v->ncols)
		return kc_vms_bad(cmd, path, nr, "no fields record");
	return 0;
}

int kc_vms_read(const char *cmd, const struct kc_global *g, bool slowest,
		unsigned long count, struct kc_vms *v, char *path, size_t len)
{
	char *text;
	size_t size;
	int rc;

	memset(v, 0, sizeof(*v));
	snprintf(v->unit, sizeof(v->unit), "?");
	v->unit_ns = 1;
	rc = kc_read_module_file(cmd, g, "vms", &text, &size);
	if (rc)
		return rc;
	snprintf(path, len, "%s/vms", g->dir);
	rc = kc_vms_parse(cmd, path, text, size, slowest ? KC_VMS_SLOWEST : KC_VMS_LAST, v);
	free(text);
	if (rc) {
		kc_vms_free(v);
		return KC_EXIT_CANNOT_START;
	}
	if (count && count < v->n) {
		if (slowest)
			v->n = count;
		else
			v->first = v->n - count;
	}
	return KC_EXIT_OK;
}

void kc_vms_free(struct kc_vms *v)
{
	free(v->vm);
	v->vm = NULL;
	v->n = v->cap = v->first = 0;
}

bool kc_vm_is_window(int m)
{
	return m == KC_M_EXIT_TO_REAP || m == KC_M_EXIT_TO_REAPED ||
	       m == KC_M_STARTUP || m == KC_M_TEARDOWN;
}

bool kc_vm_partitioned(const struct kc_vm *r, unsigned int w)
{
	bool valid = w == KC_WIN_STARTUP ? r->st.valid : r->td.valid;
	enum kc_metric m = kc_window_desc(w)->metric;

	return valid && m < KC_NR_METRICS && r->count[m];
}

bool kc_vm_is_part(int m, unsigned int w)
{
	return m > (int)kc_window_desc(w)->metric && m <= (int)kc_window_desc(w)->other;
}

int kc_vm_largest_part(const struct kc_vm *r, unsigned int w)
{
	int best = -1;

	for (int m = 0; kc_vm_partitioned(r, w) && m < KC_NR_METRICS; m++)
		if (kc_vm_is_part(m, w) && (best < 0 || r->sum[m] > r->sum[best]))
			best = m;
	return best;
}

/* The windows and the start-up's parts are left out: they overlap the stages. */
int kc_vm_largest(const struct kc_vm *r)
{
	int best = kc_vm_largest_part(r, KC_WIN_TEARDOWN);

	if (best >= 0)
		return best;
	for (int m = 0; m < KC_NR_METRICS; m++)
		if (!kc_vm_is_window(m) && !kc_vm_is_part(m, KC_WIN_STARTUP) &&
		    r->count[m] && (best < 0 || r->sum[m] > r->sum[best]))
			best = m;
	return best;
}

int kc_vm_accounted(const struct kc_vm *r, unsigned int w)
{
	enum kc_metric m = kc_window_desc(w)->metric, o = kc_window_desc(w)->other;

	if (!kc_vm_partitioned(r, w) || m >= KC_NR_METRICS || o >= KC_NR_METRICS)
		return -1;
	return (int)kc_accounted_permille(r->sum[m], r->sum[o]);
}

uint64_t kc_vm_window_start(const struct kc_vm *r, unsigned int w)
{
	return w == KC_WIN_TEARDOWN ? r->td.began_ns : r->created_ns;
}

uint64_t kc_vm_window_end(const struct kc_vms *v, const struct kc_vm *r,
			  unsigned int w)
{
	enum kc_metric m = kc_window_desc(w)->metric;

	if (!r->count[m] || (w == KC_WIN_TEARDOWN && !r->td.valid))
		return 0;
	return kc_vm_window_start(r, w) + r->sum[m] * v->unit_ns;
}

void kc_vms_accounted(const struct kc_vms *v, unsigned int w,
		      struct kc_accounted *a)
{
	__u32 count[KC_PERMILLE + 1] = { 0 };

	for (size_t i = v->first; i < v->n; i++)
		if (kc_vm_accounted(&v->vm[i], w) >= 0)
			count[kc_vm_accounted(&v->vm[i], w)]++;
	kc_accounted_stats(count, a);
}

/* Where part @p of window @w first held the instant: 1 + offset, or 0. */
static unsigned long long part_first(const struct kc_vm *r, unsigned int w,
				     unsigned int p)
{
	return w == KC_WIN_TEARDOWN ? r->td.first[p] : r->st.first[p];
}

static unsigned long long seg_key(const struct kc_vm_seg *s)
{
	return s->first ? s->first : ~0ULL;
}

unsigned int kc_vm_segments(const struct kc_vm *r, unsigned int w,
			    struct kc_vm_seg *seg)
{
	enum kc_metric base = kc_window_desc(w)->metric + 1;
	unsigned int parts = kc_window_desc(w)->other - base + 1, n = 0;
	unsigned long long at = 0;

	if (!kc_vm_partitioned(r, w))
		return 0;
	for (unsigned int p = 0; p < parts; p++) {
		struct kc_vm_seg s = {
			.metric = base + p,
			.len = r->sum[base + p],
			.first = part_first(r, w, p),
		};
		unsigned int i = n;

		if (!s.len)
			continue;
		/* by first place, kept in order; a part with none goes last */
		while (i > 0 && seg_key(&seg[i - 1]) > seg_key(&s)) {
			seg[i] = seg[i - 1];
			i--;
		}
		seg[i] = s;
		n++;
	}
	for (unsigned int i = 0; i < n; i++) {
		seg[i].start = at;
		at += seg[i].len;
	}
	return n;
}
