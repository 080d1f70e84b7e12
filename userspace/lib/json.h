/* SPDX-License-Identifier: GPL-2.0 */
/*
 * JSON written as it goes (json.c), in the spirit of iproute2's json_print.c:
 * each call writes one member of the object open (@key), or one element of
 * the array open (@key NULL), and the writer puts the commas, the quotes and
 * the escapes. The output is compact, as every --json of the client is: no
 * space, no newline; the caller ends the line after the outermost close.
 */
#ifndef KVMCHURN_JSON_H
#define KVMCHURN_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define KC_JSON_DEPTH	16

struct kc_json {
	FILE *f;
	unsigned int depth;
	char close[KC_JSON_DEPTH];	/* '}' or ']' of each level open */
	bool some[KC_JSON_DEPTH];	/* a member or element written there */
};

/* A writer on @f with nothing open: the first call opens the outermost value. */
void kc_json_init(struct kc_json *j, FILE *f);

void kc_json_object(struct kc_json *j, const char *key);	/* { */
void kc_json_array(struct kc_json *j, const char *key);		/* [ */
void kc_json_end(struct kc_json *j);				/* } or ] */

/* A string, escaped; NULL writes null. */
void kc_json_str(struct kc_json *j, const char *key, const char *v);
void kc_json_uint(struct kc_json *j, const char *key, unsigned long long v);
void kc_json_int(struct kc_json *j, const char *key, long long v);
/* @v, or null when @present is false (a statistic of an empty histogram). */
void kc_json_uint_or_null(struct kc_json *j, const char *key, unsigned long long v,
			  bool present);
void kc_json_bool(struct kc_json *j, const char *key, bool v);
void kc_json_null(struct kc_json *j, const char *key);
/* A number printed with @fmt (such as "%.1f"), which must give a JSON number. */
void kc_json_double(struct kc_json *j, const char *key, const char *fmt, double v);

/* The escaped string alone, quotes included (for a writer of its own). */
void kc_json_quote(FILE *f, const char *s);

#endif /* KVMCHURN_JSON_H */
