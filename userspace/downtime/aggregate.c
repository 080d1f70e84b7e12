// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn downtime: each segment's ("A -> B") and each device's histogram,
 * in us, over every migration read; and the migrations kept for the end.
 */
#include <stdlib.h>
#include <string.h>

#include "downtime.h"

static struct agg *agg_get(struct aggs *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return &s->v[i];
	if (kc_grow(&s->v, &s->cap, s->n, sizeof(*s->v), 32))
		return NULL;
	memset(&s->v[s->n], 0, sizeof(s->v[s->n]));
	snprintf(s->v[s->n].name, sizeof(s->v[s->n].name), "%s", name);
	return &s->v[s->n++];
}

static void hist_add(struct kc_hist *h, uint64_t v)
{
	h->present = true;
	h->count++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
	h->slots[kc_slot(v)]++;
}

void kc_dt_device_name(char *buf, size_t len, const struct kc_device *d)
{
	snprintf(buf, len, "%s %s %s/%lu", d->save ? "save" : "load",
		 d->iterable ? "iterable" : "non-iterable", d->idstr, d->instance_id);
}

void kc_dt_aggregate(struct downtime *dt, const struct kc_migration *m)
{
	char name[KC_AGG_NAME];
	struct agg *g;

	for (size_t i = 1; i < m->ncps; i++) {
		const struct kc_checkpoint *a = &m->cps[i - 1], *b = &m->cps[i];

		if (!a->has_time || !b->has_time || b->time_us < a->time_us)
			continue;
		snprintf(name, sizeof(name), "%s -> %s", a->name, b->name);
		g = agg_get(&dt->segs, name);
		if (!g) {
			dt->oom = true;
			return;
		}
		g->side = m->side;
		memcpy(g->from, a->name, sizeof(g->from));
		memcpy(g->to, b->name, sizeof(g->to));
		hist_add(&g->h, (uint64_t)(b->time_us - a->time_us));
	}
	for (size_t i = 0; i < m->ndevs; i++) {
		kc_dt_device_name(name, sizeof(name), &m->devs[i]);
		g = agg_get(&dt->devs, name);
		if (!g) {
			dt->oom = true;
			return;
		}
		g->dev_copy = m->devs[i];
		hist_add(&g->h, m->devs[i].us);
	}
	if (m->side == KC_SIDE_SRC)
		dt->nsrc++;
	else
		dt->ndst++;
	dt->ncomplete += m->complete;
}

void kc_dt_keep(struct downtime *dt, struct kc_migration *m)
{
	if (kc_grow(&dt->migs, &dt->cap_migs, dt->nmigs, sizeof(*dt->migs), 16)) {
		dt->oom = true;
		kc_migration_free(m);
		return;
	}
	dt->migs[dt->nmigs++] = m;
}

static int seq_cmp(const void *a, const void *b)
{
	unsigned int x = (*(struct kc_migration *const *)a)->seq;
	unsigned int y = (*(struct kc_migration *const *)b)->seq;

	return (x > y) - (x < y);
}

static int agg_cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct agg *)a)->name, ((const struct agg *)b)->name);
}

void kc_dt_sort_migrations(struct downtime *dt)
{
	qsort(dt->migs, dt->nmigs, sizeof(*dt->migs), seq_cmp);
}

void kc_dt_sort_aggregates(struct downtime *dt)
{
	qsort(dt->segs.v, dt->segs.n, sizeof(*dt->segs.v), agg_cmp_name);
	qsort(dt->devs.v, dt->devs.n, sizeof(*dt->devs.v), agg_cmp_name);
}

void kc_dt_free(struct downtime *dt)
{
	for (size_t i = 0; i < dt->nmigs; i++)
		kc_migration_free(dt->migs[i]);
	free(dt->migs);
	free(dt->segs.v);
	free(dt->devs.v);
}
