// SPDX-License-Identifier: GPL-2.0
/*
 * pairs.c - pairs a start event with its end event (signal -> exit -> free,
 * reclaim begin -> end) and remembers which VMs belong to traced processes,
 * without allocating in probe context.
 *
 * The table is allocated once at load time: buckets of KC_PAIR_WAYS entries,
 * each bucket under its own raw spinlock taken with interrupts off, so that
 * probes may use it from process, softirq and hard-IRQ context, on
 * PREEMPT_RT too. Work per operation is bounded by KC_PAIR_WAYS. An entry
 * older than KC_PAIR_MAX_AGE (an end event that never came, say a zombie
 * that is never reaped) may be taken over; an insert that finds its bucket
 * full of live entries is dropped and counted.
 *
 * Every task freed on the host looks up three kinds, and almost never finds
 * one: a count of the live entries of each kind lets a lookup of a kind that
 * has none return before it hashes or touches the table.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "exit.h"

#define KC_PAIR_WAYS		8
#define KC_PAIR_MAX_AGE		(600ULL * NSEC_PER_SEC)

struct kc_pair {
	u64 id;
	u64 ts;			/* when it was added, for ageing */
	u64 val;		/* kc_pair_max()'s value */
	u32 kind;		/* enum kc_pair_kind + 1; 0 when free */
	u32 claimed;
};

struct kc_pair_bucket {
	raw_spinlock_t lock;
	unsigned int used;
	struct kc_pair ways[KC_PAIR_WAYS];
};

static struct kc_pair_bucket *kc_buckets;
static unsigned int kc_bucket_bits;
static atomic64_t kc_pairs_dropped = ATOMIC64_INIT(0);
static atomic64_t kc_pairs_aged = ATOMIC64_INIT(0);
atomic_t kc_pairs_live[KC_NR_PAIR_KINDS];

static inline struct kc_pair_bucket *kc_pair_bucket(u32 kind, u64 id)
{
	u64 h = id ^ ((u64)kind << 56);

	/* hash_64() cannot give 0 bits: a one-bucket table has no hash. */
	return &kc_buckets[kc_bucket_bits ? hash_64(h, kc_bucket_bits) : 0];
}

/*
 * The bucket of (@kind, @id), or NULL when it cannot hold it: no entry of
 * the kind is live, or the bucket is empty. Asked without the lock, before
 * any lookup, since nearly every lookup of the exit path finds nothing.
 */
static __always_inline struct kc_pair_bucket *
kc_pair_held(enum kc_pair_kind kind, u64 id)
{
	struct kc_pair_bucket *b;

	if (kc_pair_none(kind))
		return NULL;
	b = kc_pair_bucket(kind + 1, id);
	return READ_ONCE(b->used) ? b : NULL;
}

static struct kc_pair *kc_pair_find(struct kc_pair_bucket *b, u32 kind, u64 id)
{
	unsigned int i;

	for (i = 0; i < KC_PAIR_WAYS; i++)
		if (b->ways[i].kind == kind && b->ways[i].id == id)
			return &b->ways[i];
	return NULL;
}

static void kc_pair_free(struct kc_pair_bucket *b, struct kc_pair *e)
{
	atomic_dec(&kc_pairs_live[e->kind - 1]);
	e->kind = 0;
	WRITE_ONCE(b->used, b->used - 1);
}

/* A free way, or the oldest one if it is stale; NULL when the bucket is full. */
static struct kc_pair *kc_pair_room(struct kc_pair_bucket *b, u64 now)
{
	struct kc_pair *oldest = NULL;
	unsigned int i;

	for (i = 0; i < KC_PAIR_WAYS; i++) {
		struct kc_pair *e = &b->ways[i];

		if (!e->kind)
			return e;
		if (!oldest || e->ts < oldest->ts)
			oldest = e;
	}
	/* @now may be older than an entry: a caller read the clock, then waited */
	if (oldest && now > oldest->ts && now - oldest->ts > KC_PAIR_MAX_AGE) {
		atomic64_inc(&kc_pairs_aged);
		kc_pair_free(b, oldest);
		return oldest;
	}
	return NULL;
}

static void kc_pair_fill(struct kc_pair_bucket *b, struct kc_pair *e, u32 kind,
			 u64 id, u64 ts)
{
	e->kind = kind;
	e->id = id;
	e->ts = ts;
	e->val = 0;
	e->claimed = 0;
	WRITE_ONCE(b->used, b->used + 1);
	atomic_inc(&kc_pairs_live[kind - 1]);
}

enum kc_pair_result kc_pair_add(enum kc_pair_kind kind, u64 id, u64 ts,
				bool replace)
{
	struct kc_pair_bucket *b = kc_pair_bucket(kind + 1, id);
	enum kc_pair_result res = KC_PAIR_ADDED;
	struct kc_pair *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	e = kc_pair_find(b, kind + 1, id);
	if (e && !replace) {
		res = KC_PAIR_EXISTS;
	} else if (e) {
		e->ts = ts;
		e->claimed = 0;
	} else {
		e = kc_pair_room(b, ts);
		if (e) {
			kc_pair_fill(b, e, kind + 1, id, ts);
		} else {
			atomic64_inc(&kc_pairs_dropped);
			res = KC_PAIR_FULL;
		}
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return res;
}

/*
 * Looks an entry up. With KC_PAIR_TAKE it is removed; with KC_PAIR_CLAIM it
 * stays but a second claim fails. Returns whether it was there (and, for a
 * claim, not yet claimed), and its time in *ts if @ts is not NULL.
 */
bool kc_pair_get(enum kc_pair_kind kind, u64 id, enum kc_pair_op op, u64 *ts)
{
	struct kc_pair_bucket *b = kc_pair_held(kind, id);
	unsigned long flags;
	struct kc_pair *e;
	bool found;

	if (!b)
		return false;
	raw_spin_lock_irqsave(&b->lock, flags);
	e = kc_pair_find(b, kind + 1, id);
	found = e && !(op == KC_PAIR_CLAIM && e->claimed);
	if (found && ts)
		*ts = e->ts;
	if (found && op == KC_PAIR_TAKE)
		kc_pair_free(b, e);
	else if (found && op == KC_PAIR_CLAIM)
		e->claimed = 1;
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return found;
}

/*
 * The entry of (@kind, @id), added at @ts if it is not there; NULL, counted
 * as a drop, when its bucket is full. Called with the bucket's lock held.
 */
static struct kc_pair *kc_pair_get_or_add(struct kc_pair_bucket *b, u32 kind,
					  u64 id, u64 ts)
{
	struct kc_pair *e = kc_pair_find(b, kind, id);

	if (e)
		return e;
	e = kc_pair_room(b, ts);
	if (e)
		kc_pair_fill(b, e, kind, id, ts);
	else
		atomic64_inc(&kc_pairs_dropped);
	return e;
}

/* Keeps the largest @val given for (@kind, @id), in an entry added at @ts. */
void kc_pair_max(enum kc_pair_kind kind, u64 id, u64 ts, u64 val)
{
	struct kc_pair_bucket *b = kc_pair_bucket(kind + 1, id);
	struct kc_pair *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	e = kc_pair_get_or_add(b, kind + 1, id, ts);
	if (e && val > e->val)
		e->val = val;
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

/* Removes (@kind, @id) and gives its kc_pair_max() value. */
bool kc_pair_take_max(enum kc_pair_kind kind, u64 id, u64 *val)
{
	struct kc_pair_bucket *b = kc_pair_held(kind, id);
	unsigned long flags;
	struct kc_pair *e;

	if (!b)
		return false;
	raw_spin_lock_irqsave(&b->lock, flags);
	e = kc_pair_find(b, kind + 1, id);
	if (e) {
		*val = e->val;
		kc_pair_free(b, e);
	}
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return e;
}

/* Counts one more for (@kind, @id), in an entry added at @ts if need be. */
void kc_pair_inc(enum kc_pair_kind kind, u64 id, u64 ts)
{
	struct kc_pair_bucket *b = kc_pair_bucket(kind + 1, id);
	struct kc_pair *e;
	unsigned long flags;

	raw_spin_lock_irqsave(&b->lock, flags);
	e = kc_pair_get_or_add(b, kind + 1, id, ts);
	if (e)
		e->val++;
	raw_spin_unlock_irqrestore(&b->lock, flags);
}

/*
 * Counts one less for (@kind, @id), removing it at zero; returns whether
 * there was one to count off.
 */
bool kc_pair_dec(enum kc_pair_kind kind, u64 id)
{
	struct kc_pair_bucket *b = kc_pair_held(kind, id);
	unsigned long flags;
	struct kc_pair *e;

	if (!b)
		return false;
	raw_spin_lock_irqsave(&b->lock, flags);
	e = kc_pair_find(b, kind + 1, id);
	if (e && !--e->val)
		kc_pair_free(b, e);
	raw_spin_unlock_irqrestore(&b->lock, flags);
	return e;
}

void kc_pairs_stats(struct kc_pair_stats *st)
{
	unsigned int i, nr = 1U << kc_bucket_bits;

	st->capacity = nr * KC_PAIR_WAYS;
	st->used = 0;
	for (i = 0; i < nr; i++)
		st->used += READ_ONCE(kc_buckets[i].used);
	st->dropped = atomic64_read(&kc_pairs_dropped);
	st->aged = atomic64_read(&kc_pairs_aged);
}

/* The live count of @kind, which lets lookups of an absent kind skip the table. */
unsigned int kc_pairs_live_count(enum kc_pair_kind kind)
{
	return atomic_read(&kc_pairs_live[kind]);
}

/* Entries of one kind: the checks compare exits with reaps still to come. */
unsigned int kc_pairs_count(enum kc_pair_kind kind)
{
	unsigned int i, w, n = 0, nr = 1U << kc_bucket_bits;

	for (i = 0; i < nr; i++) {
		struct kc_pair_bucket *b = &kc_buckets[i];
		unsigned long flags;

		if (!READ_ONCE(b->used))
			continue;
		raw_spin_lock_irqsave(&b->lock, flags);
		for (w = 0; w < KC_PAIR_WAYS; w++)
			n += b->ways[w].kind == kind + 1;
		raw_spin_unlock_irqrestore(&b->lock, flags);
	}
	return n;
}

/* The table's vmalloc area. */
void kc_pairs_mem(struct kc_mem *mem)
{
	kc_mem_vmalloc(mem, sizeof(*kc_buckets) << kc_bucket_bits);
}

int kc_pairs_init(unsigned int capacity)
{
	unsigned int i, nr;

	static_assert(KC_PAIRS_MIN == KC_PAIR_WAYS);
	if (capacity < KC_PAIRS_MIN || capacity > KC_PAIRS_MAX)
		return -EINVAL;
	nr = roundup_pow_of_two(capacity) / KC_PAIR_WAYS;
	kc_bucket_bits = ilog2(nr);
	kc_buckets = vzalloc(array_size(nr, sizeof(*kc_buckets)));
	if (!kc_buckets)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		raw_spin_lock_init(&kc_buckets[i].lock);
	for (i = 0; i < KC_NR_PAIR_KINDS; i++)
		atomic_set(&kc_pairs_live[i], 0);
	return 0;
}

void kc_pairs_exit(void)
{
	vfree(kc_buckets);
	kc_buckets = NULL;
}
