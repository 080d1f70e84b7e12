// SPDX-License-Identifier: GPL-2.0
/* Latency samples and their percentiles (nearest rank). */
#include <errno.h>
#include <stdlib.h>

#include "client.h"

int kc_samples_add(struct kc_samples *s, uint64_t ns)
{
	if (kc_grow(&s->v, &s->cap, s->n, sizeof(*s->v), 256))
		return -1;
	s->v[s->n++] = ns;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void kc_samples_sort(struct kc_samples *s)
{
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_u64);
}

/* The smallest sample with at least pct % of the samples at or below it. */
uint64_t kc_samples_pct(const struct kc_samples *s, unsigned int pct)
{
	size_t rank = (s->n * pct + 99) / 100;

	return s->v[rank ? rank - 1 : 0];
}

void kc_samples_free(struct kc_samples *s)
{
	free(s->v);
	*s = (struct kc_samples){ 0 };
}
