// SPDX-License-Identifier: GPL-2.0
/*
 * One line of QEMU's log trace backend, in the three forms QEMU writes it:
 *
 *   7957@1795962199.078071:vmstate_downtime_checkpoint src-downtime-start
 *   2026-11-29T14:34:55.343610Z vmstate_downtime_checkpoint src-vm-stopped
 *   vmstate_downtime_save type=iterable idstr=ram instance_id=0 downtime=48
 *
 * The first is a thread id and gettimeofday() (-msg timestamp=on, QEMU up to
 * 10); the second UTC, the fraction left out when it is 0 (QEMU 11); the
 * third has no time at all. Nothing here allocates: the fuzz test feeds it
 * random bytes under ASan and UBSan.
 */
#include <limits.h>
#include <string.h>

#include "qtrace.h"

struct cursor {
	const char *p, *end;
};

static bool at_end(const struct cursor *c)
{
	return c->p == c->end;
}

static bool digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* Exactly @n digits (n > 0), or at least one when @n is 0, into *v. */
static bool digits(struct cursor *c, unsigned int n, uint64_t *v)
{
	unsigned int got = 0;

	*v = 0;
	while (!at_end(c) && digit(*c->p) && (!n || got < n)) {
		if (*v > (UINT64_MAX - 9) / 10)
			return false;
		*v = *v * 10 + (uint64_t)(*c->p++ - '0');
		got++;
	}
	return n ? got == n : got > 0;
}

static bool eat(struct cursor *c, char ch)
{
	if (at_end(c) || *c->p != ch)
		return false;
	c->p++;
	return true;
}

static bool eat_word(struct cursor *c, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n))
		return false;
	c->p += n;
	return true;
}

/* Days from 1970-01-01 to y-m-d of the proleptic Gregorian calendar. */
static int64_t days_from_civil(int64_t y, unsigned int m, unsigned int d)
{
	int64_t era;
	unsigned int yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = (unsigned int)(y - era * 400);
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

/* TID@SEC.USEC: */
static bool tid_prefix(struct cursor *c, struct kc_qline *q)
{
	struct cursor save = *c;
	uint64_t tid, sec, usec;

	if (digits(c, 0, &tid) && eat(c, '@') && digits(c, 0, &sec) &&
	    eat(c, '.') && digits(c, 6, &usec) && eat(c, ':') &&
	    tid <= (uint64_t)LONG_MAX && sec <= INT64_MAX / 1000000 - 1) {
		q->has_tid = true;
		q->tid = (long)tid;
		q->has_time = true;
		q->time_us = (int64_t)sec * 1000000 + (int64_t)usec;
		return true;
	}
	*c = save;
	return false;
}

/* YYYY-MM-DDTHH:MM:SS[.fraction]Z and a space */
static bool iso_prefix(struct cursor *c, struct kc_qline *q)
{
	struct cursor save = *c;
	uint64_t y, mo, d, h, mi, s, frac = 0, scale = 1000000;

	if (!(digits(c, 4, &y) && eat(c, '-') && digits(c, 2, &mo) && eat(c, '-') &&
	      digits(c, 2, &d) && eat(c, 'T') && digits(c, 2, &h) && eat(c, ':') &&
	      digits(c, 2, &mi) && eat(c, ':') && digits(c, 2, &s)))
		goto no;
	if (eat(c, '.')) {
		unsigned int n = 0;

		/* up to nanoseconds; microseconds kept */
		while (!at_end(c) && digit(*c->p) && n < 9) {
			if (n < 6) {
				frac = frac * 10 + (uint64_t)(*c->p - '0');
				scale /= 10;
			}
			c->p++;
			n++;
		}
		if (!n)
			goto no;
	}
	if (!eat(c, 'Z') || !eat(c, ' '))
		goto no;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60)
		goto no;
	q->has_time = true;
	q->time_us = (days_from_civil((int64_t)y, (unsigned int)mo, (unsigned int)d) * 86400 +
		      (int64_t)(h * 3600 + mi * 60 + s)) * 1000000 + (int64_t)(frac * scale);
	return true;
no:
	*c = save;
	return false;
}

/* An event name: [a-z_][a-z0-9_]*, then a space or the end of the line. */
static bool event_name(struct cursor *c, const char **name, size_t *len)
{
	const char *start = c->p;

	if (at_end(c) || !((*c->p >= 'a' && *c->p <= 'z') || *c->p == '_'))
		return false;
	while (!at_end(c) && ((*c->p >= 'a' && *c->p <= 'z') || *c->p == '_' || digit(*c->p)))
		c->p++;
	if (!at_end(c) && *c->p != ' ')
		return false;
	*name = start;
	*len = (size_t)(c->p - start);
	eat(c, ' ');
	return true;
}

/*
 * A token: up to the next space or the end; false when empty, too long, or
 * with a NUL, which would cut the name short of what the checks saw.
 */
static bool token(struct cursor *c, char *out, size_t size)
{
	const char *start = c->p;
	size_t n;

	while (!at_end(c) && *c->p != ' ')
		c->p++;
	n = (size_t)(c->p - start);
	if (!n || n >= size || memchr(start, '\0', n))
		return false;
	memcpy(out, start, n);
	out[n] = '\0';
	return true;
}

/* Only spaces (QEMU writes none; an editor or a pipe may) up to the end. */
static bool rest_blank(struct cursor *c)
{
	while (!at_end(c) && *c->p == ' ')
		c->p++;
	return at_end(c);
}

static bool name_ok(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || digit(*s) || *s == '-' || *s == '_'))
			return false;
	return true;
}

/* type=X idstr=X instance_id=N downtime=N */
static bool device_args(struct cursor *c, struct kc_qline *q)
{
	uint64_t id, us;

	if (eat_word(c, "type=iterable "))
		q->iterable = true;
	else if (eat_word(c, "type=non-iterable "))
		q->iterable = false;
	else
		return false;
	if (!eat_word(c, "idstr=") || !token(c, q->name, sizeof(q->name)) || !eat(c, ' '))
		return false;
	if (!eat_word(c, "instance_id=") || !digits(c, 0, &id) || id > UINT32_MAX || !eat(c, ' '))
		return false;
	if (!eat_word(c, "downtime=") || !digits(c, 0, &us) || us > UINT32_MAX * 1000ULL)
		return false;
	q->instance_id = (unsigned long)id;
	q->downtime_us = us;
	return rest_blank(c);
}

enum kc_qt_kind kc_qt_parse(const char *line, size_t len, struct kc_qline *q)
{
	struct cursor c = { line, line + len };
	const char *name;
	size_t n;
	bool prefixed;

	memset(q, 0, sizeof(*q));
	/* a CRLF log */
	if (c.end > c.p && c.end[-1] == '\r')
		c.end--;
	prefixed = tid_prefix(&c, q) || iso_prefix(&c, q);
	if (!event_name(&c, &name, &n))
		goto not_trace;

#define IS(s) (n == sizeof(s) - 1 && !memcmp(name, s, n))
	if (IS("vmstate_downtime_checkpoint")) {
		if (!token(&c, q->name, sizeof(q->name)) || !name_ok(q->name) || !rest_blank(&c))
			goto not_trace;
		return q->kind = KC_QT_CHECKPOINT;
	}
	if (IS("vmstate_downtime_save") || IS("vmstate_downtime_load")) {
		bool save = name[sizeof("vmstate_downtime_") - 1] == 's';

		if (!device_args(&c, q))
			goto not_trace;
		return q->kind = save ? KC_QT_SAVE : KC_QT_LOAD;
	}
	if (IS("migrate_set_state")) {
		if (!eat_word(&c, "new state ") || !token(&c, q->name, sizeof(q->name)) ||
		    !name_ok(q->name) || !rest_blank(&c))
			goto not_trace;
		return q->kind = KC_QT_STATE;
	}
#undef IS
	/* Without a prefix, any "word rest" line would pass for an event. */
	if (prefixed)
		return q->kind = KC_QT_OTHER;
not_trace:
	memset(q, 0, sizeof(*q));
	return KC_QT_NOT_TRACE;
}
