// SPDX-License-Identifier: GPL-2.0
/*
 * Synthetic QEMU trace logs for tests/unit/downtime.sh: the cases the real
 * captures of tests/fixtures/qemu-trace lack.
 *
 *   qtrace_gen SEED DIR
 *
 * writes DIR/tid.log, DIR/iso.log and DIR/bare.log (the three line forms:
 * TID@SEC.USEC:, an ISO-8601 UTC time, no time at all), each with an
 * .expect file that says what went in, as `kvmchurn downtime --json` must
 * report it (downtime.sh turns the JSON into the same lines):
 *
 *   form tid|iso|bare
 *   lines N / events N / other N / skipped N / migrations N
 *   count SIDE MODE COMPLETE N            (all 8 combinations)
 *   why N TEXT                            (the incomplete ones, by reason)
 *   segment COUNT SUM FROM -> TO          (timed forms)
 *   device COUNT SUM OP TYPE IDSTR/INSTANCE
 *   migration SIDE MODE COMPLETE FIRST_LINE LAST_LINE NCPS NDEVS TOTAL_US|null
 *
 * tid.log: 200 migrations, src and dst, of 6 threads interleaved line by
 * line; iso.log and bare.log: one stream, src and dst in turn. All three:
 * garbage (random text, libvirt's lines, blank lines, malformed events,
 * other trace events, CRLF endings, no newline at the end), migrations cut
 * at their end (by the end of the input or by the next migration), cut at
 * their start (the first of a thread), with two checkpoints swapped, and
 * postcopy destinations, whose RAM load line comes after
 * dst-postcopy-bh-vm-started (TID form: from a thread of its own).
 *
 * What the client must make of each case, from migration.h: a migration is
 * complete when it runs from its side's first checkpoint to its last; one
 * cut short is incomplete ("the input ends before it", "a new migration
 * began before it"); one whose checkpoint comes after a later one is cut
 * there, the rest being a migration that "begins after" the first
 * checkpoint. Cases that no reader can tell apart are not generated: a
 * destination cut among its first device lines, a migration cut at its
 * start after one cut at its end, a destination beginning on another thread
 * while a postcopy one waits for its RAM line.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "xorshift.h"

enum form { F_TID, F_ISO, F_BARE };
enum side { SRC, DST };
enum mode { PRE, POST };
enum lkind {
	L_CP,		/* vmstate_downtime_checkpoint */
	L_DEV,		/* vmstate_downtime_save or _load */
	L_STATE_PC,	/* migrate_set_state new state postcopy-active: other */
	L_OTHER,	/* another trace event (event text; the prefix is added) */
	L_BADEV,	/* a malformed downtime event (prefix added): skipped */
	L_SKIP,		/* not a trace line (whole text): skipped */
};

struct sline {
	enum lkind kind;
	char name[64];		/* L_CP: the checkpoint; L_DEV: the idstr */
	bool save, iterable;
	unsigned int inst;
	unsigned long us;
	int part;		/* L_CP, L_DEV: the migration it must be reported in */
	long tid;
	bool glue;		/* the stream's next line follows at once */
	char text[320];		/* L_OTHER, L_BADEV, L_SKIP */
};

/* A migration as the client must report it. */
struct part {
	enum side side;
	int stream;
	char why[128];		/* "" when complete; set when known */
	int closer;		/* the part whose first line ends it; -1 */
	bool closed_by_end;	/* ended by its own last checkpoint */
	/* from the lines as written */
	unsigned long first, last, close_line;
	int ncps, ndevs;
	bool has_ram_iter, has_iter_saved, has_dst_post, pc_state;
	int64_t t_first, t_last;
	char last_cp[64];
};

struct lines {
	struct sline *v;
	size_t n, cap;
};


/* 0..n-1 */
static unsigned int below(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("qtrace_gen");
		exit(2);
	}
	return p;
}

static struct sline *push(struct lines *l)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	memset(&l->v[l->n], 0, sizeof(l->v[l->n]));
	l->v[l->n].part = -1;
	return &l->v[l->n++];
}

static struct part *parts;
static int nparts, cap_parts;

static int new_part(enum side side, int stream)
{
	if (nparts == cap_parts) {
		cap_parts = cap_parts ? 2 * cap_parts : 64;
		parts = xrealloc(parts, (size_t)cap_parts * sizeof(*parts));
	}
	memset(&parts[nparts], 0, sizeof(parts[nparts]));
	parts[nparts].side = side;
	parts[nparts].stream = stream;
	parts[nparts].closer = -1;
	return nparts++;
}

static void cp(struct lines *l, const char *name, long tid)
{
	struct sline *s = push(l);

	s->kind = L_CP;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->tid = tid;
}

static void dev(struct lines *l, bool save, bool iterable, const char *idstr,
		unsigned int inst, long tid)
{
	struct sline *s = push(l);

	s->kind = L_DEV;
	s->save = save;
	s->iterable = iterable;
	snprintf(s->name, sizeof(s->name), "%s", idstr);
	s->inst = inst;
	/* mostly QEMU's few us to few ms, now and then a slow device */
	s->us = below(10) ? below(2000) : below(5000000);
	s->tid = tid;
}

static void other(struct lines *l, enum lkind kind, const char *text, long tid)
{
	struct sline *s = push(l);

	s->kind = kind;
	snprintf(s->text, sizeof(s->text), "%s", text);
	s->tid = tid;
}

static const struct { const char *idstr; unsigned int ninst; } devices[] = {
	{ "timer", 1 }, { "ram", 1 }, { "dirty-bitmap", 1 }, { "cpu_common", 2 },
	{ "cpu", 2 }, { "kvm-tpr-opt", 1 }, { "apic", 2 }, { "0000:00:00.0/I440FX", 1 },
	{ "PCIHost", 1 }, { "PCIBUS", 1 }, { "fw_cfg", 1 }, { "dma", 2 },
	{ "mc146818rtc", 1 }, { "0000:00:01.1/ide", 1 }, { "i2c_bus", 1 },
	{ "0000:00:01.3/piix4_pm", 1 }, { "0000:00:01.0/PIIX3", 1 }, { "i8259", 2 },
	{ "ioapic", 1 }, { "hpet", 1 }, { "i8254", 1 }, { "pcspk", 1 }, { "fdc", 1 },
	{ "ps2kbd", 1 }, { "ps2mouse", 1 }, { "pckbd", 1 }, { "vmmouse", 1 },
	{ "port92", 1 }, { "smbus-eeprom", 8 }, { "acpi_build", 1 }, { "globalstate", 1 },
};

/* The non-iterable devices of one migration: a random subset, at least one. */
static void non_iterable(struct lines *l, bool save, long tid)
{
	size_t before = l->n;

	while (l->n == before)
		for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++)
			for (unsigned int j = 0; j < devices[i].ninst; j++)
				if (!below(3))
					dev(l, save, false, devices[i].idstr, j, tid);
}

static const char *const src_cps[] = {
	"src-downtime-start", "src-vm-stopped", "src-iterable-saved",
	"src-non-iterable-saved", "src-downtime-end",
};
static const char *const dst_pre_cps[] = {
	"dst-precopy-loadvm-completed", "dst-precopy-bh-enter",
	"dst-precopy-bh-announced", "dst-precopy-bh-vm-started",
};
static const char *const dst_post_cps[] = {
	"dst-precopy-loadvm-completed", "dst-postcopy-bh-enter",
	"dst-postcopy-bh-cpu-synced", "dst-postcopy-bh-announced",
	"dst-postcopy-bh-cache-invalidated", "dst-postcopy-bh-vm-started",
};

static long next_alt_tid = 60000;

/* One whole migration, as QEMU writes it, into @t. */
static void whole(struct lines *t, enum form form, enum side side, enum mode mode, long tid)
{
	if (side == SRC) {
		cp(t, src_cps[0], tid);
		cp(t, src_cps[1], tid);
		if (mode == POST && form != F_TID)
			other(t, L_STATE_PC, "migrate_set_state new state postcopy-active", tid);
		else if (!below(3))
			other(t, L_OTHER, "migrate_set_state new state device", tid);
		if (mode == PRE) {
			dev(t, true, true, "ram", 0, tid);
			if (below(2))
				dev(t, true, true, "dirty-bitmap", 0, tid);
		}
		cp(t, src_cps[2], tid);
		non_iterable(t, true, tid);
		cp(t, src_cps[3], tid);
		cp(t, src_cps[4], tid);
		return;
	}
	if (mode == PRE) {
		dev(t, false, true, "ram", 0, tid);
		non_iterable(t, false, tid);
		for (size_t i = 0; i < 4; i++)
			cp(t, dst_pre_cps[i], tid);
		return;
	}
	non_iterable(t, false, tid);
	for (size_t i = 0; i < 6; i++)
		cp(t, dst_post_cps[i], tid);
	/* the RAM, at the end of postcopy: the listen thread's own line */
	t->v[t->n - 1].glue = true;
	dev(t, false, true, "ram", 0, form == F_TID ? next_alt_tid++ : tid);
}

static long find_cp(const struct lines *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].kind == L_CP && !strcmp(t->v[i].name, name))
			return (long)i;
	return -1;
}

static const char *first_cp(enum side side)
{
	return side == SRC ? "src-downtime-start" : "dst-precopy-loadvm-completed";
}

static const char *last_cp(enum side side)
{
	return side == SRC ? "src-downtime-end" : "dst-*-bh-vm-started";
}

enum variant { V_WHOLE, V_CUT_END, V_CUT_START, V_SWAP };

struct stream {
	struct lines l;
	long tid;
	int pending[2];		/* a part of each side cut at its end, waiting */
	bool started[2];	/* a migration of that side was written */
};

/* Appends one migration of @variant to stream @s, its parts in ::parts. */
static void migration(struct stream *s, int sno, enum form form, enum side side,
		      enum mode mode, enum variant v)
{
	struct lines t = { 0 };
	size_t from = 0, to, k;
	long a, b;
	int p, q = -1;

	whole(&t, form, side, mode, s->tid);
	to = t.n;
	if (v == V_CUT_START && s->started[side])
		v = V_WHOLE;
	p = new_part(side, sno);
	if (s->pending[side] >= 0) {
		/* the part cut at its end is ended by this one's first line */
		snprintf(parts[s->pending[side]].why, sizeof(parts[0].why),
			 "a new migration began before %s", last_cp(side));
		parts[s->pending[side]].closer = p;
		s->pending[side] = -1;
	}
	s->started[side] = true;
	a = find_cp(&t, first_cp(side));
	b = find_cp(&t, side == SRC ? "src-downtime-end" : mode == PRE ?
		    "dst-precopy-bh-vm-started" : "dst-postcopy-bh-vm-started");
	switch (v) {
	case V_WHOLE:
		parts[p].closed_by_end = true;
		break;
	case V_CUT_END:
		/* keep the first checkpoint (and a destination's loads), not the last */
		to = (size_t)a + 1 + below((unsigned int)(b - a));
		s->pending[side] = p;
		break;
	case V_CUT_START:
		/* begin after the first checkpoint; a destination at a checkpoint */
		do {
			from = (size_t)a + 1 + below((unsigned int)(b - a));
		} while (side == DST && t.v[from].kind != L_CP);
		snprintf(parts[p].why, sizeof(parts[p].why), "no %s: the input begins after it",
			 first_cp(side));
		parts[p].closed_by_end = true;
		break;
	case V_SWAP: {
		/* two checkpoints between the first and the last change places */
		size_t idx[8], n = 0, i, j;
		struct sline tmp;

		for (k = 0; k < t.n; k++)
			if (t.v[k].kind == L_CP)
				idx[n++] = k;
		i = 1 + below((unsigned int)(n - 3));
		j = i + 1;
		tmp = t.v[idx[i]];
		t.v[idx[i]] = t.v[idx[j]];
		t.v[idx[j]] = tmp;
		/* the lower one comes second: a part ends before it, another begins */
		snprintf(parts[p].why, sizeof(parts[p].why),
			 "the next checkpoint, %s, is out of order", t.v[idx[j]].name);
		q = new_part(side, sno);
		parts[p].closer = q;
		snprintf(parts[q].why, sizeof(parts[q].why), "no %s: the input begins after it",
			 first_cp(side));
		parts[q].closed_by_end = true;
		for (k = idx[j]; k < t.n; k++)
			if (t.v[k].kind == L_CP || t.v[k].kind == L_DEV)
				t.v[k].part = q;
		break;
	}
	}
	for (k = from; k < to; k++) {
		struct sline *l = push(&s->l);

		*l = t.v[k];
		if ((l->kind == L_CP || l->kind == L_DEV) && l->part < 0)
			l->part = p;
		if (k + 1 == to)
			l->glue = false;
	}
	free(t.v);
}

static const char *const libvirt[] = {
	"2026-11-29 14:34:55.343+0000: starting up libvirt version: 9.0.0, package: 9.0.0-4 "
	"(Debian), qemu version: 10.0.13Debian 1:10.0.13+ds-1, kernel: 6.12.0-1-amd64, hostname: h1",
	"LC_ALL=C PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin "
	"HOME=/var/lib/libvirt/qemu/domain-3-guest /usr/bin/qemu-system-x86_64 "
	"-name guest=guest,debug-threads=on -S -msg timestamp=on",
	"char device redirected to /dev/pts/3 (label charserial0)",
	"2026-11-29T14:34:55.343610Z qemu-system-x86_64: terminating on signal 15 from pid 1234 "
	"(/usr/sbin/libvirtd)",
	"2026-11-29 14:34:56.001+0000: shutting down, reason=migrated",
	"qemu-system-x86_64: warning: host doesn't support requested feature: "
	"CPUID.80000001H:ECX.svm [bit 2]",
	"2026-11-29T14:34:55Z qemu-system-x86_64: -device foo: not found",
};

/* A line that is no downtime event, of any kind; @form says what is other. */
static void garbage(struct lines *l, enum form form)
{
	static const char *const others[] = {
		"migrate_set_state new state active", "savevm_state_setup ",
		"vmstate_downtime_checkpoint foo-bar", "migrate_set_state new state completed",
		"qemu_loadvm_state_section 4", "vmstate_downtime_checkpoint x",
	};
	static const char *const bad[] = {
		"vmstate_downtime_save type=iterable idstr=ram instance_id=0",
		"vmstate_downtime_checkpoint",
		"vmstate_downtime_checkpoint src-Vm-stopped",
		"vmstate_downtime_load type=weird idstr=cpu instance_id=0 downtime=3",
		"vmstate_downtime_load type=iterable idstr=ram instance_id=0 downtime=-5",
		"vmstate_downtime_save type=non-iterable idstr=cpu instance_id=0 downtime=1 x",
		"vmstate_downtime_save type=non-iterable idstr=cpu instance_id=99999999999 downtime=1",
		"vmstate_downtime_checkpoint src-vm-stopped extra",
	};
	static const char alpha[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 -_=.,;/()[]<>\"'\\#%&*+!?\t";
	char buf[320];
	size_t n, i;

	switch (below(6)) {
	case 0:		/* random text that no prefix can begin: no '@', ':' */
		n = below(120);
		buf[0] = (char)('A' + below(26));
		for (i = 1; i < n; i++)
			buf[i] = alpha[below(sizeof(alpha) - 1)];
		buf[n] = '\0';
		other(l, L_SKIP, buf, 0);
		return;
	case 1:
		other(l, L_SKIP, libvirt[below(sizeof(libvirt) / sizeof(libvirt[0]))], 0);
		return;
	case 2:
		other(l, L_SKIP, below(2) ? "" : "   ", 0);
		return;
	case 3:
		/* one below() a statement: the order of arguments is the compiler's */
		i = below(sizeof(bad) / sizeof(bad[0]));
		other(l, L_BADEV, bad[i], 900 + below(4));
		return;
	default:
		i = below(sizeof(others) / sizeof(others[0]));
		/* without a prefix only the events this reader knows are events */
		if (form == F_BARE && !strstr(others[i], "migrate_set_state") &&
		    !strstr(others[i], "vmstate_downtime_checkpoint"))
			other(l, L_SKIP, others[i], 0);
		else
			other(l, L_OTHER, others[i], 900 + below(4));
		return;
	}
}

/* ---- what went in, as the client must say it ---- */

struct agg {
	const char *kind;
	char name[160];
	unsigned long count;
	unsigned long long sum;
};

static struct agg *aggs;
static size_t naggs, cap_aggs;

static void agg_add(const char *kind, const char *name, unsigned long long v)
{
	for (size_t i = 0; i < naggs; i++)
		if (aggs[i].kind == kind && !strcmp(aggs[i].name, name)) {
			aggs[i].count++;
			aggs[i].sum += v;
			return;
		}
	if (naggs == cap_aggs) {
		cap_aggs = cap_aggs ? 2 * cap_aggs : 64;
		aggs = xrealloc(aggs, cap_aggs * sizeof(*aggs));
	}
	aggs[naggs].kind = kind;
	snprintf(aggs[naggs].name, sizeof(aggs[naggs].name), "%s", name);
	aggs[naggs].count = 1;
	aggs[naggs].sum = v;
	naggs++;
}

struct out {
	FILE *f;
	enum form form;
	unsigned long line;
	int64_t clock;
	unsigned long lines, events, others, skipped;
	bool pending_nl;
};

static void prefix(struct out *o, char *buf, size_t len, long tid)
{
	time_t sec = (time_t)(o->clock / 1000000);
	long usec = (long)(o->clock % 1000000);
	struct tm *tm;

	if (o->form == F_TID) {
		snprintf(buf, len, "%ld@%lld.%06ld:", tid, (long long)sec, usec);
	} else if (o->form == F_ISO) {
		tm = gmtime(&sec);
		if (usec)
			snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ ", tm->tm_year + 1900,
				 tm->tm_mon + 1, tm->tm_mday, tm->tm_hour, tm->tm_min, tm->tm_sec, usec);
		else	/* QEMU 11 leaves a fraction of 0 out */
			snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02dZ ", tm->tm_year + 1900,
				 tm->tm_mon + 1, tm->tm_mday, tm->tm_hour, tm->tm_min, tm->tm_sec);
	} else {
		buf[0] = '\0';
	}
}

/* Writes @s as the next line, and records it in its part. */
static void emit(struct out *o, struct sline *s)
{
	char pre[64], body[400];
	struct part *p;

	o->clock += 1 + below(3000);
	/* whole seconds now and then: the ISO form's fraction left out */
	if (o->form == F_ISO && !below(25))
		o->clock = (o->clock / 1000000 + 1) * 1000000;
	prefix(o, pre, sizeof(pre), s->tid);
	switch (s->kind) {
	case L_CP:
		snprintf(body, sizeof(body), "%svmstate_downtime_checkpoint %s", pre, s->name);
		break;
	case L_DEV:
		snprintf(body, sizeof(body),
			 "%svmstate_downtime_%s type=%s idstr=%s instance_id=%u downtime=%lu", pre,
			 s->save ? "save" : "load", s->iterable ? "iterable" : "non-iterable",
			 s->name, s->inst, s->us);
		break;
	case L_STATE_PC:
	case L_OTHER:
	case L_BADEV:
		snprintf(body, sizeof(body), "%s%s", pre, s->text);
		break;
	default:
		snprintf(body, sizeof(body), "%s", s->text);
		break;
	}
	if (o->pending_nl)
		fputs(below(8) ? "\n" : "\r\n", o->f);
	fputs(body, o->f);
	o->pending_nl = true;
	o->line++;
	o->lines++;
	switch (s->kind) {
	case L_CP:
		if (strncmp(s->name, "src-", 4) && strncmp(s->name, "dst-", 4)) {
			o->others++;
			return;
		}
		/* fall through */
	case L_DEV:
		o->events++;
		break;
	case L_STATE_PC:
		o->others++;
		/* every source migration open now is a postcopy one */
		for (int i = 0; i < nparts; i++)
			if (parts[i].side == SRC && parts[i].first && !parts[i].close_line)
				parts[i].pc_state = true;
		return;
	case L_OTHER:
		o->others++;
		return;
	default:
		o->skipped++;
		return;
	}
	p = &parts[s->part];
	if (!p->first) {
		p->first = o->line;
		/* this line ends the part it closes */
		for (int i = 0; i < nparts; i++)
			if (parts[i].closer == s->part && !parts[i].close_line)
				parts[i].close_line = o->line;
	}
	p->last = o->line;
	if (s->kind == L_DEV) {
		snprintf(body, sizeof(body), "%s %s %s/%u", s->save ? "save" : "load",
			 s->iterable ? "iterable" : "non-iterable", s->name, s->inst);
		agg_add("device", body, s->us);
		p->ndevs++;
		if (s->save && s->iterable && !strcmp(s->name, "ram"))
			p->has_ram_iter = true;
		return;
	}
	if (!p->ncps)
		p->t_first = o->clock;
	else if (o->form != F_BARE) {
		/* a segment: from the part's previous checkpoint */
		snprintf(body, sizeof(body), "%s -> %s", p->last_cp, s->name);
		agg_add("segment", body, (unsigned long long)(o->clock - p->t_last));
	}
	snprintf(p->last_cp, sizeof(p->last_cp), "%s", s->name);
	p->t_last = o->clock;
	p->ncps++;
	if (!strcmp(s->name, "src-iterable-saved"))
		p->has_iter_saved = true;
	if (!strncmp(s->name, "dst-postcopy-", 13))
		p->has_dst_post = true;
	if (p->closed_by_end && (!strcmp(s->name, "src-downtime-end") ||
				 strstr(s->name, "-bh-vm-started")))
		p->close_line = o->line;
}

static int gen(const char *dir, const char *name, enum form form, int nstreams, int nmig)
{
	struct stream *st = calloc((size_t)nstreams, sizeof(*st));
	char path[4096];
	struct out o = { .form = form, .clock = 1795962199000000LL };
	unsigned long count[2][2][2] = { { { 0 } } };
	struct { char why[128]; unsigned long n; } whys[32];
	size_t nwhys = 0, *pos;
	int i, done;
	FILE *e;

	if (!st)
		return -1;
	nparts = 0;
	naggs = 0;
	for (i = 0; i < nstreams; i++) {
		st[i].tid = 7000 + 13 * i;
		st[i].pending[0] = st[i].pending[1] = -1;
	}
	/* the scripts: each stream's migrations in turn, garbage among them */
	for (i = 0; i < nmig; i++) {
		int sno = form == F_TID ? (int)below((unsigned int)nstreams) : 0;
		struct stream *s = &st[sno];
		enum side side = below(2) ? SRC : DST;
		/*
		 * One thread of tid.log has the postcopy destinations: a RAM line
		 * from a thread of its own could go to any that waits.
		 */
		enum mode mode = below(3) || (form == F_TID && side == DST && sno) ? PRE : POST;
		unsigned int r = below(12);
		enum variant v = r < 6 ? V_WHOLE : r < 8 ? V_CUT_END : r < 10 ? V_CUT_START : V_SWAP;

		/* the first migration of the first stream is cut at its start */
		if (!i) {
			sno = 0;
			s = &st[0];
			v = V_CUT_START;
		}
		migration(s, sno, form, side, mode, v);
		while (!below(4))
			garbage(&s->l, form);
	}
	/* the last ones, of each side, run into the end of the input */
	migration(&st[0], 0, form, SRC, PRE, V_CUT_END);
	migration(&st[nstreams - 1], nstreams - 1, form, DST, PRE, V_CUT_END);
	for (i = 0; i < nstreams; i++)
		for (int sd = 0; sd < 2; sd++)
			if (st[i].pending[sd] >= 0)
				snprintf(parts[st[i].pending[sd]].why, sizeof(parts[0].why),
					 "no %s: the input ends before it", last_cp((enum side)sd));

	snprintf(path, sizeof(path), "%s/%s.log", dir, name);
	o.f = fopen(path, "wb");
	if (!o.f) {
		perror(path);
		return -1;
	}
	pos = calloc((size_t)nstreams, sizeof(*pos));
	if (!pos)
		return -1;
	/* line by line, from a random stream, garbage of its own in between */
	for (;;) {
		struct stream *s;
		struct sline g;
		struct lines gl = { 0 };

		for (i = 0, done = 0; i < nstreams; i++)
			done += pos[i] == st[i].l.n;
		if (done == nstreams)
			break;
		if (!below(10)) {
			garbage(&gl, form);
			g = gl.v[0];
			free(gl.v);
			emit(&o, &g);
			continue;
		}
		do {
			i = (int)below((unsigned int)nstreams);
		} while (pos[i] == st[i].l.n);
		s = &st[i];
		while (pos[i] < s->l.n) {
			bool glue = s->l.v[pos[i]].glue;

			emit(&o, &s->l.v[pos[i]++]);
			if (!glue)
				break;
			/* other lines may come between, none of this input's events */
			while (!below(3)) {
				struct lines gl2 = { 0 };

				garbage(&gl2, form);
				emit(&o, &gl2.v[0]);
				free(gl2.v);
			}
		}
	}
	/* the last line has no newline */
	fclose(o.f);
	free(pos);

	snprintf(path, sizeof(path), "%s/%s.expect", dir, name);
	e = fopen(path, "w");
	if (!e) {
		perror(path);
		return -1;
	}
	fprintf(e, "form %s\nlines %lu\nevents %lu\nother %lu\nskipped %lu\nmigrations %d\n",
		name, o.lines, o.events, o.others, o.skipped, nparts);
	for (i = 0; i < nparts; i++) {
		struct part *p = &parts[i];
		enum mode m;
		bool complete = !p->why[0];
		size_t w;

		if (p->side == DST)
			m = p->has_dst_post ? POST : PRE;
		else	/* migration.h: no RAM saved in the downtime, or the state said so */
			m = p->pc_state || (p->ndevs && !p->has_ram_iter && p->has_iter_saved) ?
				POST : PRE;
		count[p->side][m][complete]++;
		if (!complete) {
			for (w = 0; w < nwhys && strcmp(whys[w].why, p->why); w++)
				;
			if (w == nwhys) {
				snprintf(whys[w].why, sizeof(whys[w].why), "%s", p->why);
				whys[w].n = 0;
				nwhys++;
			}
			whys[w].n++;
		}
		fprintf(e, "migration %s %s %s %lu %lu %d %d ", p->side == SRC ? "src" : "dst",
			m == POST ? "postcopy" : "precopy", complete ? "true" : "false",
			p->first, p->last, p->ncps, p->ndevs);
		if (form == F_BARE)
			fprintf(e, "null\n");
		else
			fprintf(e, "%lld\n", (long long)(p->t_last - p->t_first));
	}
	for (int sd = 0; sd < 2; sd++)
		for (int m = 0; m < 2; m++)
			for (int c = 0; c < 2; c++)
				fprintf(e, "count %s %s %s %lu\n", sd ? "dst" : "src",
					m ? "postcopy" : "precopy", c ? "true" : "false", count[sd][m][c]);
	for (size_t w = 0; w < nwhys; w++)
		fprintf(e, "why %lu %s\n", whys[w].n, whys[w].why);
	for (size_t a = 0; a < naggs; a++)
		fprintf(e, "%s %lu %llu %s\n", aggs[a].kind, aggs[a].count, aggs[a].sum, aggs[a].name);
	for (i = 0; i < nstreams; i++)
		free(st[i].l.v);
	free(st);
	fclose(e);
	return 0;
}

int main(int argc, char *argv[])
{
	char *end;

	if (argc != 3) {
		fprintf(stderr, "usage: qtrace_gen SEED DIR\n");
		return 64;
	}
	rng_state = strtoull(argv[1], &end, 0);
	if (*end || !rng_state) {
		fprintf(stderr, "qtrace_gen: SEED: a number other than 0\n");
		return 64;
	}
	if (gen(argv[2], "tid", F_TID, 6, 200) ||
	    gen(argv[2], "iso", F_ISO, 1, 60) || gen(argv[2], "bare", F_BARE, 1, 60))
		return 1;
	return 0;
}
