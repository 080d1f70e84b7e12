// SPDX-License-Identifier: GPL-2.0
/*
 * partition.c - a window of time cut into named stages, every instant in
 * exactly one: a sweep over the events that open and close the stages'
 * intervals. While intervals are open, the instant goes to the stage of
 * highest priority among them (stage 0 first); while none is, to the idle
 * stage the caller set last (the phase the window is in). Each event first
 * gives the time since the previous one to the stage that held it, so the
 * parts of a window sum to it exactly: one clock, integer arithmetic, and a
 * time that steps back counted as no time.
 *
 * Pure arithmetic on one struct kc_part, with no lock of its own: the
 * caller serializes the events of a window (vms.c, under its lock). An
 * interval may open before the window does (an exit_mmap that began before
 * the fatal signal): its stage holds the window from its start.
 */
#include "kvmchurn.h"

/* The stage that holds the instant: the open one of highest priority. */
static unsigned int kc_part_holder(const struct kc_part *p)
{
	unsigned int s;

	for (s = 0; s < p->nr_active; s++)
		if (p->open[s])
			return s;
	return p->idle;
}

/* Gives the time from p->last to @t to the stage that held it. */
static void kc_part_to(struct kc_part *p, u64 t)
{
	unsigned int s;

	if (!(p->flags & KC_PART_OPEN) || t <= p->last)
		return;
	s = kc_part_holder(p);
	if (!p->first[s])
		p->first[s] = p->last - p->start + 1;
	p->sum[s] += t - p->last;
	p->last = t;
}

/*
 * After an event at @t: the stage that holds the instant now, and since
 * when, if another did before (the live view's "in this stage since").
 */
static void kc_part_note(struct kc_part *p, u64 t)
{
	unsigned int s = kc_part_holder(p);

	if (s == p->holder)
		return;
	p->holder = s;
	p->held_since = t;
}

/* A partition of @nr_active interval stages, which idle time is @idle's. */
void kc_part_init(struct kc_part *p, unsigned int nr_active, unsigned int idle)
{
	memset(p, 0, sizeof(*p));
	p->nr_active = nr_active;
	p->idle = idle;
}

/* The window opens at @t; a second call changes nothing. */
void kc_part_begin(struct kc_part *p, u64 t)
{
	if (p->flags & (KC_PART_OPEN | KC_PART_ENDED))
		return;
	p->start = t;
	p->last = t;
	p->flags |= KC_PART_OPEN;
	p->holder = kc_part_holder(p);
	p->held_since = t;
}

/* An interval of @stage opens at @t. */
void kc_part_open(struct kc_part *p, u64 t, unsigned int stage)
{
	if (stage >= p->nr_active || p->open[stage] == U16_MAX)
		return;
	kc_part_to(p, t);
	p->open[stage]++;
	kc_part_note(p, t);
}

/* An interval of @stage closes at @t: one that was seen to open. */
void kc_part_close(struct kc_part *p, u64 t, unsigned int stage)
{
	if (stage >= p->nr_active || !p->open[stage])
		return;
	kc_part_to(p, t);
	p->open[stage]--;
	kc_part_note(p, t);
}

/* From @t on, the time no interval holds is @idle's. */
void kc_part_idle(struct kc_part *p, u64 t, unsigned int idle)
{
	if (idle >= KC_PART_MAX)
		return;
	kc_part_to(p, t);
	p->idle = idle;
	kc_part_note(p, t);
}

/* The parts so far are kept apart, as the share of the window before @t. */
void kc_part_mark(struct kc_part *p, u64 t)
{
	kc_part_to(p, t);
	memcpy(p->mark, p->sum, sizeof(p->mark));
	p->flags |= KC_PART_MARKED;
}

/*
 * Up to @amount of part @from's time so far is told apart as part @to's (a
 * share known only by its length, as a run-queue wait): the sum is kept.
 * Returns what moved.
 */
u64 kc_part_move(struct kc_part *p, unsigned int from, unsigned int to,
		 u64 amount)
{
	if (from >= KC_PART_MAX || to >= KC_PART_MAX || from == to)
		return 0;
	amount = min(amount, p->sum[from]);
	p->sum[from] -= amount;
	p->sum[to] += amount;
	if (amount && !p->first[to])
		p->first[to] = p->first[from];
	return amount;
}

/* The window closes at @t: its parts are final. */
void kc_part_end(struct kc_part *p, u64 t)
{
	if (!(p->flags & KC_PART_OPEN))
		return;
	kc_part_to(p, t);
	p->flags = (p->flags & ~KC_PART_OPEN) | KC_PART_ENDED;
}

/*
 * The stage that holds the instant of an open window, and in *@since when
 * it began to; KC_PART_MAX when the window is not open.
 */
unsigned int kc_part_holding(const struct kc_part *p, u64 *since)
{
	if (!(p->flags & KC_PART_OPEN))
		return KC_PART_MAX;
	*since = p->held_since;
	return p->holder;
}

/* The window's length: what its parts sum to. */
u64 kc_part_window(const struct kc_part *p)
{
	return p->last - p->start;
}
