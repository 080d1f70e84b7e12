// SPDX-License-Identifier: GPL-2.0
/* Growing arrays: see grow.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"

int kc_grow(void *arrayp, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t want = *cap ? 2 * *cap : first;
	void *old, *grown;

	if (n < *cap)
		return 0;
	if (want > SIZE_MAX / size) {
		errno = ENOMEM;
		return -1;
	}
	/* through memcpy: *arrayp is a T *, not a void * */
	memcpy(&old, arrayp, sizeof(old));
	grown = realloc(old, want * size);
	if (!grown)
		return -1;
	memcpy(arrayp, &grown, sizeof(grown));
	*cap = want;
	return 0;
}
