// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz test of the QEMU trace reader: userspace/downtime/qtrace.c (one line) and
 * userspace/downtime/migration.c (the migrations put together), linked in directly
 * and built with -fsanitize=address,undefined -fno-sanitize-recover=all, so
 * that any memory or undefined-behaviour error aborts.
 *
 *   qtrace_fuzz SEED ITERATIONS FILE...
 *
 * FILE...: real trace logs (tests/fixtures/qemu-trace). Fed to kc_qt_parse()
 * and to an assembler as they are (at least one complete migration), then,
 * with a fixed seed:
 *   (a) ITERATIONS random lines of 0-300 bytes, NULs included, no newline:
 *       bytes alone, and pieces of trace lines glued at random;
 *   (b) each line of FILE... mutated ITERATIONS / 1000 times (at least 8):
 *       bytes flipped, cut, fields doubled or dropped, numbers made huge or
 *       negative, very long idstrs, NULs, CR;
 *   (c) every prefix of every line of FILE....
 * After each line: kc_qt_parse() gave a kind of enum kc_qt_kind; the line
 * struct is all zero for KC_QT_NOT_TRACE; names end within their arrays and
 * hold what the kind allows; a device line printed back parses the same;
 * the assembler's lines == events + other + skipped; each migration handed
 * over is consistent (and freed). Prints one summary line; exit 0, or 1
 * after printing the first line that broke an invariant.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../userspace/downtime/migration.h"
#include "../../userspace/downtime/qtrace.h"
#include "xorshift.h"

#define MAX_LINE	4096


static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static unsigned long nlines, nkinds[KC_QT_STATE + 1], nmigs, ncomplete;
static const char *what;	/* the step, for a failure's message */

static void fail(const char *why, const char *line, size_t len)
{
	printf("qtrace_fuzz: %s: %s, on the line (%zu bytes):\n  \"", what, why, len);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			putchar(c);
		else
			printf("\\x%02x", c);
	}
	printf("\"\n");
	exit(1);
}

static bool terminated(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static bool name_chars(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' ||
		      *s == '_'))
			return false;
	return true;
}

static struct kc_assembler as;

static void done(struct kc_migration *m, void *ctx)
{
	(void)ctx;
	nmigs++;
	ncomplete += m->complete;
	if (!terminated(m->why, sizeof(m->why)) || (m->complete && m->why[0]) ||
	    (!m->complete && !m->why[0]))
		fail("a migration's why does not say whether it is complete", "", 0);
	if (m->first_line > m->last_line || !m->first_line)
		fail("a migration's lines are not in order", "", 0);
	if ((m->side != KC_SIDE_SRC && m->side != KC_SIDE_DST) ||
	    (m->mode != KC_MODE_PRECOPY && m->mode != KC_MODE_POSTCOPY))
		fail("a migration has no valid side or mode", "", 0);
	if (!m->ncps && !m->ndevs)
		fail("an empty migration", "", 0);
	if (m->complete && m->ncps < 2)
		fail("a complete migration without its first and last checkpoints", "", 0);
	for (size_t i = 0; i < m->ncps; i++)
		if (!terminated(m->cps[i].name, sizeof(m->cps[i].name)) ||
		    !m->cps[i].name[0] || !name_chars(m->cps[i].name))
			fail("a checkpoint's name is not one", "", 0);
	for (size_t i = 0; i < m->ndevs; i++)
		if (!terminated(m->devs[i].idstr, sizeof(m->devs[i].idstr)) ||
		    !m->devs[i].idstr[0])
			fail("a device's idstr is not one", "", 0);
	kc_migration_free(m);
}

/*
 * One line through kc_qt_parse() and the assembler, with the invariants. The
 * line is copied to exactly @len bytes of its own, so that ASan sees any
 * read past it.
 */
static void feed(const char *in, size_t len)
{
	static const unsigned char zero[sizeof(struct kc_qline)];
	struct kc_qline q, r;
	enum kc_qt_kind k;
	char again[MAX_LINE], *line = malloc(len ? len : 1);
	int n;

	if (!line) {
		perror("qtrace_fuzz");
		exit(2);
	}
	memcpy(line, in, len);
	nlines++;
	memset(&q, 0xa5, sizeof(q));
	k = kc_qt_parse(line, len, &q);
	if ((unsigned int)k > KC_QT_STATE)
		fail("kc_qt_parse() returned no kind", line, len);
	nkinds[k]++;
	if (k == KC_QT_NOT_TRACE) {
		if (memcmp(&q, zero, sizeof(q)))
			fail("KC_QT_NOT_TRACE with fields set", line, len);
	} else {
		if (q.kind != k)
			fail("the kind returned is not the kind set", line, len);
		if (!terminated(q.name, sizeof(q.name)))
			fail("a name not NUL-terminated in its array", line, len);
		if (q.has_tid && !q.has_time)
			fail("a thread id without a time", line, len);
		if (q.has_time && q.time_us < 0 && q.has_tid)
			fail("a negative TID@SEC.USEC time", line, len);
	}
	switch (k) {
	case KC_QT_CHECKPOINT:
	case KC_QT_STATE:
		if (!q.name[0] || !name_chars(q.name))
			fail("a checkpoint or state name of other characters", line, len);
		break;
	case KC_QT_SAVE:
	case KC_QT_LOAD:
		if (!q.name[0] || strchr(q.name, ' '))
			fail("an idstr empty or with a space", line, len);
		if (q.instance_id > UINT32_MAX || q.downtime_us > UINT32_MAX * 1000ULL)
			fail("a number out of its range", line, len);
		/* printed back as QEMU prints it, it must read the same */
		n = snprintf(again, sizeof(again),
			     "vmstate_downtime_%s type=%s idstr=%s instance_id=%lu downtime=%llu",
			     k == KC_QT_SAVE ? "save" : "load",
			     q.iterable ? "iterable" : "non-iterable", q.name, q.instance_id,
			     (unsigned long long)q.downtime_us);
		if (kc_qt_parse(again, (size_t)n, &r) != k || strcmp(r.name, q.name) ||
		    r.iterable != q.iterable || r.instance_id != q.instance_id ||
		    r.downtime_us != q.downtime_us)
			fail("a device line printed back does not read the same", line, len);
		break;
	default:
		break;
	}
	if (kc_mig_line(&as, nlines, line, len))
		fail("kc_mig_line() failed (out of memory?)", line, len);
	if (as.lines != as.events + as.other + as.skipped)
		fail("the assembler's lines != events + other + skipped", line, len);
	if (!below(5000))
		kc_mig_idle(&as);
	free(line);
}

/* ---- the real lines ---- */

struct text {
	char **v;
	size_t *len, n, cap;
};

static void read_lines(struct text *t, const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "rb");
	size_t n, start = 0;

	if (!f) {
		perror(path);
		exit(2);
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	for (size_t i = 0; i <= n; i++) {
		if (i < n && buf[i] != '\n')
			continue;
		if (i == n && start == n)
			break;
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 256;
			t->v = realloc(t->v, t->cap * sizeof(*t->v));
			t->len = realloc(t->len, t->cap * sizeof(*t->len));
			if (!t->v || !t->len) {
				perror("qtrace_fuzz");
				exit(2);
			}
		}
		t->len[t->n] = i - start;
		t->v[t->n] = malloc(i - start + 1);
		if (!t->v[t->n]) {
			perror("qtrace_fuzz");
			exit(2);
		}
		memcpy(t->v[t->n], buf + start, i - start);
		t->v[t->n][i - start] = '\0';
		t->n++;
		start = i + 1;
	}
}

/* Pieces of trace lines, glued at random by (a). */
static const char *const pieces[] = {
	"7957@", "1795962199.078071:", "0@0.000000:", "18446744073709551615@1.000000:",
	"2026-11-29T14:34:55.343610Z ", "2026-11-29T14:34:55Z ", "0000-01-01T00:00:00.1Z ",
	"9999-12-31T23:59:60.123456789Z ", "2026-02-31T24:00:00Z ",
	"vmstate_downtime_checkpoint ", "vmstate_downtime_save ", "vmstate_downtime_load ",
	"migrate_set_state new state ", "postcopy-active", "savevm_state_setup ",
	"src-downtime-start", "src-vm-stopped", "src-iterable-saved", "src-non-iterable-saved",
	"src-downtime-end", "dst-precopy-loadvm-completed", "dst-precopy-bh-enter",
	"dst-precopy-bh-announced", "dst-precopy-bh-vm-started", "dst-postcopy-bh-enter",
	"dst-postcopy-bh-cpu-synced", "dst-postcopy-bh-announced",
	"dst-postcopy-bh-cache-invalidated", "dst-postcopy-bh-vm-started", "src-x", "dst-",
	"type=iterable ", "type=non-iterable ", "idstr=ram ", "idstr=", "instance_id=0 ",
	"instance_id=", "downtime=48", "downtime=", "99999999999999999999", "4294967295",
	"4294967296000", "-1", " ", "  ", "\r", "\t", "@", ".", ":", "Z", "T", "=",
};

static size_t random_line(char *buf)
{
	size_t len = below(301), n = 0;

	if (below(2)) {
		/* bytes alone, NULs and newlines among them */
		for (n = 0; n < len; n++)
			buf[n] = (char)below(256);
		return len;
	}
	while (n < len) {
		const char *p = pieces[below(sizeof(pieces) / sizeof(pieces[0]))];
		size_t m = strlen(p);

		if (!below(8)) {
			buf[n++] = (char)below(256);
			continue;
		}
		if (n + m > len)
			m = len - n;
		memcpy(buf + n, p, m);
		n += m;
	}
	return n;
}

/* One mutation of @line into @buf; its length. */
static size_t mutate(const char *line, size_t len, char *buf)
{
	static const char *const huge[] = {
		"99999999999999999999", "18446744073709551615", "18446744073709551616",
		"9223372036854775807", "9223372036854775808", "4294967295", "4294967296",
		"4294967295000", "4294967295001", "0", "-1", "-0", "00000000000000000000001",
	};
	size_t n = len, i, j, start, end;

	memcpy(buf, line, len);
	switch (below(9)) {
	case 0:		/* bytes flipped */
		for (j = 1 + below(4); j > 0 && n; j--) {
			/* one below() a statement: the same bytes with any compiler */
			i = below(n);
			buf[i] ^= (char)(1 + below(255));
		}
		return n;
	case 1:		/* cut anywhere, maybe a CR left at the end */
		n = below(len + 1);
		if (below(2) && n < MAX_LINE)
			buf[n++] = '\r';
		return n;
	case 2:		/* a field (between spaces) doubled */
	case 3:		/* or dropped */
		start = below(len + 1);
		while (start > 0 && buf[start - 1] != ' ')
			start--;
		for (end = start; end < len && buf[end] != ' '; end++)
			;
		if (end < len)
			end++;
		if (below(2) == 0 && n + (end - start) < MAX_LINE) {
			memmove(buf + end + (end - start), buf + end, len - end);
			memcpy(buf + end, line + start, end - start);
			return n + (end - start);
		}
		memmove(buf + start, buf + end, len - end);
		return n - (end - start);
	case 4:		/* a run of digits made huge, negative, zero... */
	case 5: {
		const char *h = huge[below(sizeof(huge) / sizeof(huge[0]))];
		size_t hl = strlen(h);

		for (i = below(len + 1); i < len && !(buf[i] >= '0' && buf[i] <= '9'); i++)
			;
		if (i == len)
			return n;
		for (end = i; end < len && buf[end] >= '0' && buf[end] <= '9'; end++)
			;
		if (below(3) == 0 && i > 0 && n + 1 < MAX_LINE) {
			/* a sign before it */
			memmove(buf + i + 1, buf + i, len - i);
			buf[i] = below(2) ? '-' : '+';
			return n + 1;
		}
		memmove(buf + i + hl, line + end, len - end);
		memcpy(buf + i, h, hl);
		return i + hl + (len - end);
	}
	case 6: {	/* a very long idstr (63, 64, 65 bytes or more) */
		static const size_t lens[] = { 62, 63, 64, 65, 200, 2000 };
		size_t want = lens[below(sizeof(lens) / sizeof(lens[0]))];

		for (i = 0; i + 6 <= len && memcmp(line + i, "idstr=", 6); i++)
			;
		if (i + 6 > len)
			return n;
		i += 6;
		for (end = i; end < len && line[end] != ' '; end++)
			;
		n = i;
		for (j = 0; j < want; j++)
			buf[n++] = (char)('a' + j % 26);
		memcpy(buf + n, line + end, len - end);
		return n + (len - end);
	}
	case 7:		/* a NUL inside */
		if (n)
			buf[below(n)] = '\0';
		return n;
	default:	/* spaces doubled or at the end */
		if (below(2) && n + 3 < MAX_LINE) {
			memcpy(buf + n, "   ", 3);
			return n + 3;
		}
		for (i = 0; i < n; i++)
			if (buf[i] == ' ') {
				memmove(buf + i + 1, buf + i, n - i);
				return n + 1;
			}
		return n;
	}
}

int main(int argc, char *argv[])
{
	static char buf[MAX_LINE + 8];
	struct text t = { 0 };
	unsigned long iterations, per_line;
	char *end;

	if (argc < 4) {
		fprintf(stderr, "usage: qtrace_fuzz SEED ITERATIONS FILE...\n");
		return 64;
	}
	rng_state = strtoull(argv[1], &end, 0);
	if (*end || !rng_state)
		return 64;
	iterations = strtoul(argv[2], &end, 0);
	if (*end)
		return 64;
	for (int i = 3; i < argc; i++)
		read_lines(&t, argv[i]);
	kc_mig_init(&as, done, NULL);

	/* the real lines as they are: their migrations, whole */
	what = "the real lines";
	for (int i = 3; i < argc; i++) {
		struct text one = { 0 };

		read_lines(&one, argv[i]);
		kc_mig_source(&as, argv[i]);
		for (size_t l = 0; l < one.n; l++) {
			feed(one.v[l], one.len[l]);
			free(one.v[l]);
		}
		free(one.v);
		free(one.len);
	}
	kc_mig_finish(&as);
	if (!ncomplete)
		fail("no complete migration in the real lines", "", 0);

	what = "(a) random lines";
	kc_mig_source(&as, "random");
	for (unsigned long i = 0; i < iterations; i++) {
		size_t n = random_line(buf);

		feed(buf, n);
	}

	what = "(b) mutated real lines";
	kc_mig_source(&as, "mutated");
	per_line = iterations / 1000 < 8 ? 8 : iterations / 1000;
	for (size_t l = 0; l < t.n; l++) {
		/* the line itself first: a real event line is one */
		feed(t.v[l], t.len[l]);
		for (unsigned long i = 0; i < per_line; i++) {
			size_t n = mutate(t.v[l], t.len[l], buf);

			feed(buf, n);
		}
	}

	what = "(c) prefixes of real lines";
	for (size_t l = 0; l < t.n; l++) {
		kc_mig_source(&as, "prefixes");
		for (size_t n = 0; n <= t.len[l]; n++)
			feed(t.v[l], n);
	}
	kc_mig_finish(&as);
	for (size_t l = 0; l < t.n; l++)
		free(t.v[l]);
	free(t.v);
	free(t.len);
	printf("qtrace_fuzz: %lu lines (%lu not trace, %lu other, %lu checkpoint, %lu save, "
	       "%lu load, %lu state), %lu migrations (%lu complete): ok\n", nlines,
	       nkinds[KC_QT_NOT_TRACE], nkinds[KC_QT_OTHER], nkinds[KC_QT_CHECKPOINT],
	       nkinds[KC_QT_SAVE], nkinds[KC_QT_LOAD], nkinds[KC_QT_STATE], nmigs, ncomplete);
	return 0;
}
