/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the views of the module's numbers share (view.c): metric operands,
 * units, colour and JSON numbers.
 */
#ifndef KVMCHURN_VIEW_H
#define KVMCHURN_VIEW_H

#include "json.h"
#include "snap.h"

/* The metric named @name, or -1 after a usage error of @cmd. */
int kc_metric_arg(const char *cmd, const char *name);

enum kc_style { KC_BOLD, KC_GOOD, KC_WARN, KC_BAD, KC_INFO, KC_DIM, KC_OFF };
/* The escape sequence of @style on stdout, "" without colour. */
const char *kc_style(enum kc_style style);

/* kc_snap_note(), or "attached" when nothing keeps the metric from counting. */
const char *kc_snap_state(const struct kc_snap *s, unsigned int m);
/*
 * The JSON members "unit" and "metrics" (name, count, sum, avg, p50, p90,
 * p99, max, nmissed, state): summary's numbers, on stdout.
 */
void kc_json_metrics(struct kc_json *j, const struct kc_snap *s);

#endif /* KVMCHURN_VIEW_H */
