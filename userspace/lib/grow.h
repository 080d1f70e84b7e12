/* SPDX-License-Identifier: GPL-2.0 */
/* Growing arrays (grow.c), the one realloc() pattern of the client. */
#ifndef KVMCHURN_GROW_H
#define KVMCHURN_GROW_H

#include <stddef.h>

/*
 * Room for element @n of the array at *@arrayp (a T **) of @size-byte
 * elements, *@cap of them allocated: twice as many when full, @first when
 * none. 0, or -1 and errno with the array as it was.
 */
int kc_grow(void *arrayp, size_t *cap, size_t n, size_t size, size_t first);

#endif /* KVMCHURN_GROW_H */
