// SPDX-License-Identifier: GPL-2.0
/*
 * Migrations from QEMU's downtime events: see migration.h. The checkpoints
 * and their order are those of QEMU's migration/migration.c and savevm.c
 * (8.2 and later; 10.0 added the postcopy cpu-synced and cache-invalidated
 * steps). A checkpoint this table does not know, but of the right side
 * (src-*, dst-*), is kept in its place without an order check, so that a
 * newer QEMU still gives its segments.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "migration.h"

#define KC_MAX_CPS	64	/* QEMU has 11 checkpoint names in all */
#define KC_MAX_DEVS	65536

struct cp_desc {
	const char *name;
	enum kc_side side;
	int rank;		/* order within the side; 0 starts a migration */
	int mode;		/* -1 either, else enum kc_mode */
	bool end;
};

/* Every checkpoint is always written but these two, which came with QEMU 10. */
static bool cp_optional(const char *name)
{
	return !strcmp(name, "dst-postcopy-bh-cpu-synced") ||
	       !strcmp(name, "dst-postcopy-bh-cache-invalidated");
}

static const struct cp_desc cp_table[] = {
	{ "src-downtime-start", KC_SIDE_SRC, 0, -1, false },
	{ "src-vm-stopped", KC_SIDE_SRC, 1, -1, false },
	{ "src-iterable-saved", KC_SIDE_SRC, 2, -1, false },
	{ "src-non-iterable-saved", KC_SIDE_SRC, 3, -1, false },
	{ "src-downtime-end", KC_SIDE_SRC, 4, -1, true },
	{ "dst-precopy-loadvm-completed", KC_SIDE_DST, 0, -1, false },
	{ "dst-precopy-bh-enter", KC_SIDE_DST, 1, KC_MODE_PRECOPY, false },
	{ "dst-precopy-bh-announced", KC_SIDE_DST, 2, KC_MODE_PRECOPY, false },
	{ "dst-precopy-bh-vm-started", KC_SIDE_DST, 3, KC_MODE_PRECOPY, true },
	{ "dst-postcopy-bh-enter", KC_SIDE_DST, 1, KC_MODE_POSTCOPY, false },
	{ "dst-postcopy-bh-cpu-synced", KC_SIDE_DST, 2, KC_MODE_POSTCOPY, false },
	{ "dst-postcopy-bh-announced", KC_SIDE_DST, 3, KC_MODE_POSTCOPY, false },
	{ "dst-postcopy-bh-cache-invalidated", KC_SIDE_DST, 4, KC_MODE_POSTCOPY, false },
	{ "dst-postcopy-bh-vm-started", KC_SIDE_DST, 5, KC_MODE_POSTCOPY, true },
};

/* An open migration, or a finished destination postcopy waiting for its RAM. */
struct kc_open {
	unsigned int stream;
	enum kc_side side;
	struct kc_migration *m;
	bool lingering;
};

const char *kc_side_name(enum kc_side side)
{
	return side == KC_SIDE_SRC ? "src" : "dst";
}

const char *kc_mode_name(enum kc_mode mode)
{
	return mode == KC_MODE_POSTCOPY ? "postcopy" : "precopy";
}

bool kc_migration_total(const struct kc_migration *m, int64_t *us)
{
	if (!m->ncps || !m->cps[0].has_time || !m->cps[m->ncps - 1].has_time)
		return false;
	*us = m->cps[m->ncps - 1].time_us - m->cps[0].time_us;
	return true;
}

void kc_migration_free(struct kc_migration *m)
{
	if (!m)
		return;
	free(m->cps);
	free(m->devs);
	free(m);
}

void kc_mig_init(struct kc_assembler *a, kc_migration_done done, void *ctx)
{
	memset(a, 0, sizeof(*a));
	a->done = done;
	a->ctx = ctx;
	a->next_seq = 1;
}

/*
 * A stream is one thread of one input (or the whole input when its lines
 * name no thread): QEMU writes a side's events from one thread.
 */
struct kc_stream {
	unsigned int source_no;
	bool has_tid;
	long tid;
};

static unsigned int stream_of(struct kc_assembler *a, const struct kc_qline *q)
{
	struct kc_stream k = { a->source_no, q->has_tid, q->has_tid ? q->tid : 0 };

	for (unsigned int i = 0; i < a->nstreams; i++)
		if (a->streams[i].source_no == k.source_no &&
		    a->streams[i].has_tid == k.has_tid && a->streams[i].tid == k.tid)
			return i;
	if (kc_grow(&a->streams, &a->cap_streams, a->nstreams, sizeof(*a->streams), 16))
		return (unsigned int)-1;
	a->streams[a->nstreams] = k;
	return a->nstreams++;
}

static struct kc_open *find_open(struct kc_assembler *a, unsigned int stream,
				 enum kc_side side)
{
	for (size_t i = 0; i < a->nopen; i++)
		if (a->open[i].stream == stream && a->open[i].side == side)
			return &a->open[i];
	return NULL;
}

static bool has_cp(const struct kc_migration *m, const char *name)
{
	for (size_t i = 0; i < m->ncps; i++)
		if (!strcmp(m->cps[i].name, name))
			return true;
	return false;
}

static void close_open(struct kc_assembler *a, struct kc_open *o)
{
	struct kc_migration *m = o->m;

	*o = a->open[--a->nopen];
	/*
	 * A precopy saves RAM's last iteration before src-iterable-saved; a
	 * postcopy leaves it to the destination's faults. Without device lines
	 * (-d trace:vmstate_downtime_checkpoint alone) it cannot be told.
	 */
	if (m->side == KC_SIDE_SRC && (m->postcopy_state ||
				       (m->ndevs && !m->ram_iterable &&
					has_cp(m, "src-iterable-saved"))))
		m->mode = KC_MODE_POSTCOPY;
	a->done(m, a->ctx);
}

/* Ends @o's migration as incomplete, saying why (printf-style). */
static void give_up(struct kc_assembler *a, struct kc_open *o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void give_up(struct kc_assembler *a, struct kc_open *o, const char *fmt, ...)
{
	va_list ap;

	if (!o->lingering) {
		o->m->complete = false;
		va_start(ap, fmt);
		vsnprintf(o->m->why, sizeof(o->m->why), fmt, ap);
		va_end(ap);
	}
	close_open(a, o);
}

static struct kc_open *open_new(struct kc_assembler *a, unsigned int stream,
				enum kc_side side, const struct kc_qline *q,
				unsigned long lineno)
{
	struct kc_migration *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	if (kc_grow(&a->open, &a->cap_open, a->nopen, sizeof(*a->open), 8)) {
		free(m);
		return NULL;
	}
	m->seq = a->next_seq++;
	m->side = side;
	m->source = a->source;
	m->first_line = m->last_line = lineno;
	m->has_tid = q->has_tid;
	m->tid = q->tid;
	m->rank = -1;
	m->stream = stream;
	a->open[a->nopen] = (struct kc_open){ stream, side, m, false };
	return &a->open[a->nopen++];
}

static int add_cp(struct kc_migration *m, const struct kc_qline *q)
{
	if (kc_grow(&m->cps, &m->cap_cps, m->ncps, sizeof(*m->cps), 8))
		return -1;
	memcpy(m->cps[m->ncps].name, q->name, sizeof(q->name));
	m->cps[m->ncps].has_time = q->has_time;
	m->cps[m->ncps].time_us = q->time_us;
	m->ncps++;
	return 0;
}

static int add_dev(struct kc_migration *m, const struct kc_qline *q)
{
	if (kc_grow(&m->devs, &m->cap_devs, m->ndevs, sizeof(*m->devs), 32))
		return -1;
	memcpy(m->devs[m->ndevs].idstr, q->name, sizeof(q->name));
	m->devs[m->ndevs].instance_id = q->instance_id;
	m->devs[m->ndevs].iterable = q->iterable;
	m->devs[m->ndevs].save = q->kind == KC_QT_SAVE;
	m->devs[m->ndevs].us = q->downtime_us;
	m->ndevs++;
	if (q->iterable && !strcmp(q->name, "ram"))
		m->ram_iterable = true;
	return 0;
}

static const struct cp_desc *cp_find(const char *name)
{
	for (size_t i = 0; i < sizeof(cp_table) / sizeof(cp_table[0]); i++)
		if (!strcmp(cp_table[i].name, name))
			return &cp_table[i];
	return NULL;
}

/*
 * A checkpoint of @m's side and of @d's mode that QEMU always writes between
 * @m's last one and @d, or NULL: a migration missing one is not complete.
 */
static const char *cp_skipped(const struct kc_migration *m, const struct cp_desc *d)
{
	if (m->rank < 0)
		return NULL;	/* the first: start_of() decides */
	for (size_t i = 0; i < sizeof(cp_table) / sizeof(cp_table[0]); i++) {
		const struct cp_desc *c = &cp_table[i];

		if (c->side == d->side && c->rank > m->rank && c->rank < d->rank &&
		    (c->mode < 0 || c->mode == d->mode) && !cp_optional(c->name))
			return c->name;
	}
	return NULL;
}

/* The first checkpoint of a complete migration of @side. */
static const char *start_of(enum kc_side side)
{
	return side == KC_SIDE_SRC ? "src-downtime-start" : "dst-precopy-loadvm-completed";
}

/*
 * The open migration of @side that the checkpoint @d (NULL: one this table
 * does not know) named @name continues; NULL when it begins a new one,
 * after the open one was given up or closed.
 */
static struct kc_open *continued(struct kc_assembler *a, unsigned int stream, enum kc_side side,
				 const struct cp_desc *d, const char *name)
{
	struct kc_open *o = find_open(a, stream, side);

	if (!o)
		return NULL;
	if (o->lingering) {
		close_open(a, o);
		return NULL;
	}
	/* a destination's loads come before its first checkpoint */
	if (d && d->rank == 0 && (side == KC_SIDE_SRC || o->m->ncps))
		give_up(a, o, "a new migration began before %s", side == KC_SIDE_SRC ?
			"src-downtime-end" : "dst-*-bh-vm-started");
	else if (d && (d->rank <= o->m->rank ||
		       (d->mode >= 0 && o->m->rank > 0 && (int)o->m->mode != d->mode)))
		give_up(a, o, "the next checkpoint, %s, is out of order", name);
	else if (o->m->ncps >= KC_MAX_CPS)
		give_up(a, o, "more than %d checkpoints", KC_MAX_CPS);
	else
		return o;
	return NULL;
}

/* @o's last checkpoint ended it: complete or not, closed or lingering. */
static void ended(struct kc_assembler *a, struct kc_open *o, enum kc_side side)
{
	/* complete when it began with the side's first checkpoint, without a gap */
	if (strcmp(o->m->cps[0].name, start_of(side)))
		snprintf(o->m->why, sizeof(o->m->why), "no %s: the input begins after it",
			 start_of(side));
	else if (!o->m->gap)
		o->m->complete = true;
	/* else why names the checkpoint skipped */
	/* a destination postcopy's RAM load comes after the VM started */
	if (side == KC_SIDE_DST && o->m->mode == KC_MODE_POSTCOPY && !o->m->ram_iterable) {
		o->lingering = true;
		return;
	}
	close_open(a, o);
}

static int checkpoint(struct kc_assembler *a, unsigned int stream,
		      const struct kc_qline *q, unsigned long lineno)
{
	const struct cp_desc *d = cp_find(q->name);
	enum kc_side side;
	struct kc_open *o;

	/* kc_mig_line() counted names of neither side (src-*, dst-*) as other events */
	if (d)
		side = d->side;
	else
		side = strncmp(q->name, "src-", 4) ? KC_SIDE_DST : KC_SIDE_SRC;
	o = continued(a, stream, side, d, q->name);
	if (!o)
		o = open_new(a, stream, side, q, lineno);
	if (!o)
		return -1;
	if (d && !o->m->gap) {
		const char *skipped = cp_skipped(o->m, d);

		if (skipped) {
			o->m->gap = true;
			snprintf(o->m->why, sizeof(o->m->why), "no %s before %s", skipped, d->name);
		}
	}
	if (add_cp(o->m, q))
		return -1;
	o->m->last_line = lineno;
	if (d) {
		o->m->rank = d->rank;
		if (d->mode >= 0)
			o->m->mode = (enum kc_mode)d->mode;
	}
	if (d && d->end)
		ended(a, o, side);
	return 0;
}

static int device(struct kc_assembler *a, unsigned int stream,
		  const struct kc_qline *q, unsigned long lineno)
{
	enum kc_side side = q->kind == KC_QT_SAVE ? KC_SIDE_SRC : KC_SIDE_DST;
	struct kc_open *o = find_open(a, stream, side);

	/* the postcopy RAM load is written by the postcopy thread, not the main one */
	if (!o && side == KC_SIDE_DST && q->iterable && !strcmp(q->name, "ram"))
		for (size_t i = 0; i < a->nopen && !o; i++)
			if (a->open[i].lingering &&
			    a->streams[a->open[i].stream].source_no == a->source_no)
				o = &a->open[i];

	if (o && o->lingering) {
		if (q->iterable && !strcmp(q->name, "ram")) {
			if (add_dev(o->m, q))
				return -1;
			o->m->last_line = lineno;
			close_open(a, o);
			return 0;
		}
		close_open(a, o);
		o = NULL;
	}
	/*
	 * A destination loads its devices before its first checkpoint (and a
	 * postcopy its RAM after its last: lingering, above). A load between
	 * them begins the next migration: this one was cut short.
	 */
	if (o && side == KC_SIDE_DST && o->m->ncps) {
		give_up(a, o, "a new migration began before %s", "dst-*-bh-vm-started");
		o = NULL;
	}
	if (o && o->m->ndevs >= KC_MAX_DEVS) {
		give_up(a, o, "more than %d device lines", KC_MAX_DEVS);
		o = NULL;
	}
	if (!o) {
		o = open_new(a, stream, side, q, lineno);
		if (!o)
			return -1;
	}
	if (add_dev(o->m, q))
		return -1;
	o->m->last_line = lineno;
	return 0;
}

void kc_mig_source(struct kc_assembler *a, const char *source)
{
	a->source = source;
	a->source_no++;
}

int kc_mig_line(struct kc_assembler *a, unsigned long lineno, const char *line, size_t len)
{
	struct kc_qline q;
	unsigned int stream;

	a->lines++;
	switch (kc_qt_parse(line, len, &q)) {
	case KC_QT_NOT_TRACE:
		a->skipped++;
		return 0;
	case KC_QT_OTHER:
		a->other++;
		return 0;
	case KC_QT_STATE:
		a->other++;
		/* from another thread than the checkpoints: any open source of this input */
		if (!strcmp(q.name, "postcopy-active"))
			for (size_t i = 0; i < a->nopen; i++)
				if (a->open[i].side == KC_SIDE_SRC &&
				    a->streams[a->open[i].stream].source_no == a->source_no)
					a->open[i].m->postcopy_state = true;
		return 0;
	case KC_QT_CHECKPOINT:
		/* not a downtime event: counted once, as other, so that the counts add up */
		if (strncmp(q.name, "src-", 4) && strncmp(q.name, "dst-", 4)) {
			a->other++;
			return 0;
		}
		break;
	default:
		break;
	}
	a->events++;
	if (q.has_time)
		a->has_time = true;
	else
		a->no_time = true;
	stream = stream_of(a, &q);
	if (stream == (unsigned int)-1)
		return -1;
	if (q.kind == KC_QT_CHECKPOINT)
		return checkpoint(a, stream, &q, lineno) ? -1 : 0;
	return device(a, stream, &q, lineno) ? -1 : 0;
}

void kc_mig_idle(struct kc_assembler *a)
{
	for (size_t i = 0; i < a->nopen;) {
		if (a->open[i].lingering)
			close_open(a, &a->open[i]);
		else
			i++;
	}
}

void kc_mig_finish(struct kc_assembler *a)
{
	while (a->nopen) {
		struct kc_open *o = &a->open[0];

		if (o->lingering)
			close_open(a, o);
		else
			give_up(a, o, "no %s: the input ends before it",
				o->side == KC_SIDE_SRC ? "src-downtime-end" : "dst-*-bh-vm-started");
	}
	free(a->open);
	a->open = NULL;
	a->cap_open = 0;
	free(a->streams);
	a->streams = NULL;
	a->cap_streams = 0;
	a->nstreams = 0;
}
