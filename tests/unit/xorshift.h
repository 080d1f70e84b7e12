/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xorshift64*: the seeded generator behind the unit tests' random inputs
 * (qtrace_gen, qtrace_fuzz), so that a seed gives the same input anywhere.
 */
#ifndef KVMCHURN_TEST_XORSHIFT_H
#define KVMCHURN_TEST_XORSHIFT_H

#include <stdint.h>

static uint64_t rng_state;	/* the seed, then the state; never 0 */

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

#endif /* KVMCHURN_TEST_XORSHIFT_H */
