/* SPDX-License-Identifier: GPL-2.0 */
/* Prometheus' text exposition format (prom.c): `export` and `downtime`. */
#ifndef KVMCHURN_PROM_H
#define KVMCHURN_PROM_H

#include <stdbool.h>
#include <stdio.h>

/* The shortest text that reads back as @v. */
void kc_prom_float(FILE *f, double v);
/* The # HELP and # TYPE lines of a family. */
void kc_prom_family(FILE *f, const char *name, const char *type, const char *help);
/* name="value", escaped, after a comma unless @first. */
void kc_prom_label(FILE *f, const char *name, const char *value, bool first);

#endif /* KVMCHURN_PROM_H */
