// SPDX-License-Identifier: GPL-2.0
/* The JSON writer of json.h. */
#include <stdlib.h>

#include "json.h"

void kc_json_init(struct kc_json *j, FILE *f)
{
	*j = (struct kc_json){ .f = f };
}

void kc_json_quote(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* The comma before a value, and its key inside an object. */
static void member(struct kc_json *j, const char *key)
{
	if (j->depth) {
		if (j->some[j->depth - 1])
			fputc(',', j->f);
		j->some[j->depth - 1] = true;
	}
	if (key) {
		kc_json_quote(j->f, key);
		fputc(':', j->f);
	}
}

static void open_value(struct kc_json *j, const char *key, char open, char close)
{
	member(j, key);
	/* deeper than any output of the client: a programming error */
	if (j->depth == KC_JSON_DEPTH)
		abort();
	fputc(open, j->f);
	j->close[j->depth] = close;
	j->some[j->depth] = false;
	j->depth++;
}

void kc_json_object(struct kc_json *j, const char *key)
{
	open_value(j, key, '{', '}');
}

void kc_json_array(struct kc_json *j, const char *key)
{
	open_value(j, key, '[', ']');
}

void kc_json_end(struct kc_json *j)
{
	if (!j->depth)
		abort();
	fputc(j->close[--j->depth], j->f);
}

void kc_json_str(struct kc_json *j, const char *key, const char *v)
{
	member(j, key);
	if (v)
		kc_json_quote(j->f, v);
	else
		fputs("null", j->f);
}

void kc_json_uint(struct kc_json *j, const char *key, unsigned long long v)
{
	member(j, key);
	fprintf(j->f, "%llu", v);
}

void kc_json_int(struct kc_json *j, const char *key, long long v)
{
	member(j, key);
	fprintf(j->f, "%lld", v);
}

void kc_json_uint_or_null(struct kc_json *j, const char *key, unsigned long long v,
			  bool present)
{
	if (present)
		kc_json_uint(j, key, v);
	else
		kc_json_null(j, key);
}

void kc_json_bool(struct kc_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void kc_json_null(struct kc_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void kc_json_double(struct kc_json *j, const char *key, const char *fmt, double v)
{
	member(j, key);
	fprintf(j->f, fmt, v);
}
