/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live view as the client reads it (live.c): the live VMs of the
 * module's vms file, what each is in and since when, the stacks of the
 * stalled, and stall_ms=; the rules that group and word the stalls are
 * kvmchurn_live.h's, the module's own. check, vms --live, watch and export
 * read it.
 */
#ifndef KVMCHURN_LIVE_READ_H
#define KVMCHURN_LIVE_READ_H

#include <stdbool.h>
#include <stddef.h>

#include "client.h"
#include "json.h"
#include "kvmchurn_live.h"

struct kc_live_set {
	bool known;		/* the file had live records' fields: a module */
				/* with the live view */
	char unit[4];
	__u64 unit_ns;
	__u64 stall_ms;
	struct kc_live *v;
	struct kc_live_stack **stack;	/* each VM's, or NULL: not stalled */
	size_t n, cap;
	struct kc_stall_group groups[KC_STALL_GROUPS];
	unsigned int ngroups;	/* kc_live_read() groups them */
};

/*
 * The vms file of the folder @g->dir, its live records: KC_EXIT_OK (with
 * ls->known false if the folder has no vms file, or one of a module before
 * the live view), or KC_EXIT_CANNOT_START after a message.
 */
int kc_live_read(const char *cmd, const struct kc_global *g,
		 struct kc_live_set *ls);
/*
 * Parses @len bytes of @text (a vms file named @name, a NUL after them);
 * 0, or -1 after a message.
 */
int kc_live_parse(const char *cmd, const char *name, char *text, size_t len,
		  struct kc_live_set *ls);
void kc_live_free(struct kc_live_set *ls);

/* How many VMs are stalled. */
unsigned int kc_live_stalled_count(const struct kc_live_set *ls);
/*
 * The stalls' lines (kvmchurn_live.h's), each printed with its verdict as
 * `check` prints a check's, in colour where @colour.
 */
void kc_live_print_stalls(const struct kc_live_set *ls);
/* The JSON member "stalls": stall_ms, live, stalled and the groups. */
void kc_live_json_stalls(struct kc_json *j, const struct kc_live_set *ls);
/* One live VM's JSON object (an element of the array open). */
void kc_live_json_vm(struct kc_json *j, const struct kc_live_set *ls, size_t i);

#endif /* KVMCHURN_LIVE_READ_H */
