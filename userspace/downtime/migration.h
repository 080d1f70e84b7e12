/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Migrations put together from QEMU's vmstate_downtime_* trace events
 * (qtrace.h): one a side, its checkpoints in order and its devices' save or
 * load times. Events are kept apart by input and thread (when the lines say
 * it) and by side (save and src-* for the source, load and dst-* for the
 * destination). A migration that lacks its first or last checkpoint, that
 * another one interrupts, or whose checkpoints come out of order is reported
 * as incomplete, with why; two migrations are never merged.
 */
#ifndef KVMCHURN_MIGRATION_H
#define KVMCHURN_MIGRATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qtrace.h"

enum kc_side { KC_SIDE_SRC, KC_SIDE_DST };
enum kc_mode { KC_MODE_PRECOPY, KC_MODE_POSTCOPY };

struct kc_checkpoint {
	char name[KC_QT_NAME_LEN];
	bool has_time;
	int64_t time_us;
};

struct kc_device {
	char idstr[KC_QT_NAME_LEN];
	unsigned long instance_id;
	bool iterable;
	bool save;		/* vmstate_downtime_save, else _load */
	uint64_t us;
};

struct kc_migration {
	unsigned int seq;		/* 1, 2...: the order of first events */
	enum kc_side side;
	enum kc_mode mode;
	bool complete;
	char why[128];			/* why not complete; "" when it is */
	const char *source;		/* the input's name */
	unsigned long first_line, last_line;
	bool has_tid;
	long tid;
	struct kc_checkpoint *cps;
	size_t ncps;
	struct kc_device *devs;
	size_t ndevs;
	/* private to migration.c */
	size_t cap_cps, cap_devs;
	int rank;			/* of the last checkpoint; -1 before one */
	bool postcopy_state;		/* migrate_set_state postcopy-active seen */
	bool ram_iterable;		/* an iterable save or load of "ram" */
	bool gap;			/* a checkpoint QEMU always writes was skipped */
	unsigned int stream;
};

/* Called for each migration when it ends; it then belongs to the callee. */
typedef void (*kc_migration_done)(struct kc_migration *m, void *ctx);

struct kc_assembler {
	kc_migration_done done;
	void *ctx;
	/* what the lines were */
	unsigned long lines, events, other, skipped;
	bool has_time;			/* some line had a time */
	bool no_time;			/* some event line had none */
	/* private */
	struct kc_open *open;
	size_t nopen, cap_open;
	unsigned int next_seq;
	struct kc_stream *streams;
	unsigned int nstreams;
	size_t cap_streams;
	const char *source;
	unsigned int source_no;
};

void kc_mig_init(struct kc_assembler *a, kc_migration_done done, void *ctx);
/* Lines of input @source (a name kept as given) follow, numbered from 1. */
void kc_mig_source(struct kc_assembler *a, const char *source);
/* One line, without its newline. -1 and errno when out of memory. */
int kc_mig_line(struct kc_assembler *a, unsigned long lineno, const char *line, size_t len);
/*
 * The input paused (--follow): a destination postcopy that waits for its RAM
 * load line is given up on and reported.
 */
void kc_mig_idle(struct kc_assembler *a);
/* The end of every input: what is still open is reported, incomplete. */
void kc_mig_finish(struct kc_assembler *a);
void kc_migration_free(struct kc_migration *m);

/* "src" or "dst"; "precopy" or "postcopy" */
const char *kc_side_name(enum kc_side side);
const char *kc_mode_name(enum kc_mode mode);
/* Microseconds from the first to the last checkpoint; false without times. */
bool kc_migration_total(const struct kc_migration *m, int64_t *us);

#endif /* KVMCHURN_MIGRATION_H */
