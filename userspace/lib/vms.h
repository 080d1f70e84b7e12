/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The finished VMs of the module's vms file as the client reads them
 * (vms.c): each VM's process, when it was made, its stages, and its
 * start-up and teardown part by part. `vms`, `vms --trace-event` and
 * `plot` read them; the live records are live.h's.
 */
#ifndef KVMCHURN_VMS_READ_H
#define KVMCHURN_VMS_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "client.h"
#include "kvmchurn_abi.h"
#include "kvmchurn_rules.h"

/* A VM's start-up, partitioned: the st record after its vm record. */
struct kc_vm_st {
	bool valid;
	unsigned long long first[KC_NR_ST_PARTS];	/* 1 + offset; 0: none */
};

/* A VM's teardown, partitioned: the td record after its vm record. */
struct kc_vm_td {
	bool valid;
	char began[32];
	uint64_t began_ns;		/* since the epoch */
	char by[8];			/* vm, vcpu, other, - */
	unsigned long long notified, reaped;	/* 1 + offset; 0: not seen */
	unsigned long long first[KC_NR_TD_PARTS];	/* 1 + offset; 0: none */
	unsigned long long before[KC_NR_TD_PARTS];	/* before the exit */
};

struct kc_vm {
	unsigned long tgid;
	char comm[KC_COMM_LEN];
	char created[32];		/* "1764672000.123456789" */
	uint64_t created_ns;		/* the same, in ns since the epoch */
	unsigned long long count[KC_NR_METRICS], sum[KC_NR_METRICS];
	struct kc_vm_st st;
	struct kc_vm_td td;
};

struct kc_vms {
	char unit[8];
	uint64_t unit_ns;		/* ns in one unit */
	unsigned long long params[3], stats[4];
	int col[KC_NR_METRICS + 16];	/* field -> metric, or -1 */
	size_t ncols;
	int tdcol[KC_NR_TD_PARTS + 16];	/* td field -> part, or -1 */
	size_t ntdcols;
	int stcol[KC_NR_ST_PARTS + 16];	/* st field -> part, or -1 */
	size_t nstcols;
	bool last_taken;		/* the previous vm record was kept */
	struct kc_vm *vm;		/* from first to n: the VMs shown */
	size_t first, n, cap;
};

/*
 * The vms file of @g->dir, the VMs of its list "last" or, with @slowest,
 * "slowest"; with @count, the newest (the slowest) @count of them. Its path
 * goes to @path. KC_EXIT_OK, or KC_EXIT_CANNOT_START after a message.
 */
int kc_vms_read(const char *cmd, const struct kc_global *g, bool slowest,
		unsigned long count, struct kc_vms *v, char *path, size_t len);
/*
 * Parses @len bytes of @text (NUL-terminated after them), the vms file
 * @path, keeping the VMs of @list; as strict as the raw reader: numbers
 * are decimals of 64 bits, known records have their fields, those that
 * come once come once, an st or td record follows its vm record; a record
 * of a newer module is skipped. 0, or -1 after a message.
 */
int kc_vms_parse(const char *cmd, const char *path, char *text, size_t len,
		 const char *list, struct kc_vms *v);
/* @len bytes of the vms file @path are text with a newline at the end. */
int kc_vms_text(const char *cmd, const char *path, const char *text,
		size_t len);
void kc_vms_free(struct kc_vms *v);
/* Line @nr of the vms file @path is not what this client reads: -1, said why. */
int kc_vms_bad(const char *cmd, const char *path, unsigned long nr,
	       const char *what);

/* Whether metric @m is a window that stages fill, not a stage. */
bool kc_vm_is_window(int m);
/* Whether metric @m is a part of window @w: the rows after it, to other. */
bool kc_vm_is_part(int m, unsigned int w);
/* Whether the VM's window @w (enum kc_window) was partitioned. */
bool kc_vm_partitioned(const struct kc_vm *r, unsigned int w);
/* The part of window @w that took longest; -1 without a partition. */
int kc_vm_largest_part(const struct kc_vm *r, unsigned int w);
/*
 * The stage that took longest: the teardown's largest part where it was
 * partitioned, else the largest stage; -1 with none.
 */
int kc_vm_largest(const struct kc_vm *r);
/* 1 - other / window of window @w, in per mille; -1 without a partition. */
int kc_vm_accounted(const struct kc_vm *r, unsigned int w);
/* When window @w began, in ns since the epoch. */
uint64_t kc_vm_window_start(const struct kc_vm *r, unsigned int w);
/*
 * When window @w of VM @r of @v ended, in ns since the epoch; 0 when it has
 * no place (not seen, or a teardown without its start).
 */
uint64_t kc_vm_window_end(const struct kc_vms *v, const struct kc_vm *r,
			  unsigned int w);
/* Over the VMs shown with window @w partitioned: how much of it is named. */
void kc_vms_accounted(const struct kc_vms *v, unsigned int w,
		      struct kc_accounted *a);

/*
 * A window's parts laid end to end, in the order each first held the
 * instant: where the module saw each part in one stretch (as it mostly
 * does), at its true place; a part that held the instant in more than one
 * stretch is drawn as one, at its first. Starts from the window's, in the
 * unit; the parts sum to the window exactly, so the last ends at it.
 */
struct kc_vm_seg {
	enum kc_metric metric;
	unsigned long long start, len, first;	/* first: 1 + its offset */
};

#define KC_VM_MAX_SEGS	(KC_NR_TD_PARTS > KC_NR_ST_PARTS ? KC_NR_TD_PARTS : KC_NR_ST_PARTS)

/* The parts of @w that took time, into @seg; how many (0: not partitioned). */
unsigned int kc_vm_segments(const struct kc_vm *r, unsigned int w,
			    struct kc_vm_seg *seg);

#endif /* KVMCHURN_VMS_READ_H */
