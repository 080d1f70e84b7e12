/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvmchurn downtime, in four files: downtime.c (the command: its options,
 * what runs, the exit status), input.c (files read, or one followed as it
 * grows, line by line into the assembler of migration.h), aggregate.c (each
 * segment's and each device's histogram over all migrations) and render.c
 * (text, JSON, Prometheus).
 */
#ifndef KVMCHURN_DOWNTIME_H
#define KVMCHURN_DOWNTIME_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/json.h"
#include "lib/snap.h"
#include "migration.h"

#define KC_SLOWEST	5	/* devices shown under each migration */
#define KC_AGG_NAME	(2 * KC_QT_NAME_LEN + 32)

/* One aggregate histogram, in us: a segment "A -> B" or a device. */
struct agg {
	char name[KC_AGG_NAME];
	enum kc_side side;		/* segments */
	char from[KC_QT_NAME_LEN], to[KC_QT_NAME_LEN];
	struct kc_device dev_copy;	/* devices: for its labels */
	struct kc_hist h;
};

struct aggs {
	struct agg *v;
	size_t n, cap;
};

struct downtime {
	bool json, prom, hist, follow;
	const char *out;
	struct kc_assembler a;
	struct kc_migration **migs;	/* batch: every migration, by seq at the end */
	size_t nmigs, cap_migs;
	struct aggs segs, devs;
	unsigned long nsrc, ndst, ncomplete;
	bool oom;
};

/* aggregate.c */
/* @m's segments and devices into dt's histograms; dt->oom when out of memory. */
void kc_dt_aggregate(struct downtime *dt, const struct kc_migration *m);
/* Keeps @m for the end (a batch run), or frees it and sets dt->oom. */
void kc_dt_keep(struct downtime *dt, struct kc_migration *m);
/* "save iterable NAME/ID": a device as the tables name it. */
void kc_dt_device_name(char *buf, size_t len, const struct kc_device *d);
/*
 * The kept migrations in their order; the aggregates by name (Prometheus
 * gets them in the order they were first seen).
 */
void kc_dt_sort_migrations(struct downtime *dt);
void kc_dt_sort_aggregates(struct downtime *dt);
void kc_dt_free(struct downtime *dt);

/* input.c: exit statuses. */
int kc_dt_read(struct downtime *dt, const char *path);	/* "-": stdin */
/* As tail -F does, until SIGINT or SIGTERM. */
int kc_dt_follow(struct downtime *dt, const char *path);

/* render.c */
void kc_dt_print_migration(const struct kc_migration *m);
void kc_dt_json_migration(struct kc_json *j, const struct kc_migration *m);
void kc_dt_print_summary(const struct downtime *dt);
void kc_dt_print_json(const struct downtime *dt);
void kc_dt_write_prom(FILE *f, const void *dt);

#endif /* KVMCHURN_DOWNTIME_H */
