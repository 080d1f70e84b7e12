// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz test of the client's readers of files that come from other hosts
 * (merge, diff, plot --diff and -d on a copied folder): the raw reader
 * (userspace/lib/snap.c: snapshots, the probe and pairs records among the
 * rest), the vms reader (lib/vms.c) and its live records (lib/live.c), and
 * what is drawn from what they accept: the percentiles, the difference of
 * two snapshots, each VM's windows laid out, the SVG pictures of
 * userspace/plot/ and the Trace Event JSON. Built with
 * -fsanitize=address,undefined -fno-sanitize-recover=all, so that any memory
 * or undefined-behaviour error aborts. Every input goes to every reader.
 *
 *   reader_fuzz SEED ITERATIONS FILE...
 *
 * FILE...: real files (tests/fixtures' raw and vms, the regression inputs of
 * tests/unit/fuzz/), each read as it is, then, with a fixed seed,
 * ITERATIONS mutants of them: bytes flipped, inserted, deleted; lines
 * doubled, dropped, swapped; fields doubled, dropped, emptied; numbers made
 * 0, 2^64 - 1, 2^64, negative; NULs, CRs, tabs; the file cut anywhere; two
 * files spliced. Invariants on what is accepted: a window's parts start
 * where the one before ended, no more of them than a window has; the
 * stalls' groups are no more than the live VMs. Prints one summary line;
 * exit 0, or 1 after naming the input that broke an invariant. A mutant is
 * named by the seed and its number: with READER_FUZZ_SAVE=PATH, each input
 * is written to PATH before it is read, so that the one a sanitizer stopped
 * at is there to keep (tests/unit/fuzz/).
 *
 * Built with clang -fsanitize=fuzzer -DKC_LIBFUZZER instead (make fuzz),
 * it is libFuzzer's target, coverage-guided, with no main of its own.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/vms_trace.h"
#include "lib/live.h"
#include "lib/snap.h"
#include "lib/vms.h"
#include "plot/plot.h"

static FILE *devnull;
static unsigned long naccepted[3], nread;
static const char *what = "?";	/* the input, for a failure's message */

static void fail(const char *why)
{
	printf("reader_fuzz: %s: %s\n", what, why);
	exit(1);
}

/* A copy of @len bytes with a NUL after them, as kc_read_fd() gives. */
static char *copy(const uint8_t *data, size_t len)
{
	char *t = malloc(len + 1);

	if (!t) {
		perror("reader_fuzz");
		exit(2);
	}
	memcpy(t, data, len);
	t[len] = '\0';
	return t;
}

static void raw(const uint8_t *data, size_t len)
{
	static const char *const paths[2] = { "a", "b" };
	struct kc_plot_source src = { .live = false };
	struct kc_snap s, d;
	struct kc_compare c;
	struct kc_hists hs;

	if (kc_snap_parse("fuzz", "raw", (const char *)data, len, &s))
		return;
	naccepted[0]++;
	for (unsigned int m = 0; m < KC_NR_METRICS; m++) {
		for (unsigned int p = 0; p < KC_NR_PCTS; p++)
			if (kc_hist_pct(&s.hist[m], p) > s.hist[m].max && s.hist[m].count)
				fail("a percentile above the largest value");
		kc_hist_avg(&s.hist[m]);
		kc_snap_note(&s, m);
	}
	kc_snap_missed(&s, -1);
	kc_snap_delta(&s, &s, &d);
	hs = (struct kc_hists){ .snap = &s, .src = &src };
	kc_plot_hists(devnull, &hs);
	c = (struct kc_compare){ .snap = { &s, &d }, .path = { paths[0], paths[1] } };
	kc_plot_compare(devnull, &c);
	kc_snap_free(&s);
}

static void vms(const uint8_t *data, size_t len, const char *list)
{
	struct kc_plot_source src = { .live = false };
	struct kc_vms v = { .unit = "?", .unit_ns = 1 };
	struct kc_vm_seg seg[KC_VM_MAX_SEGS];
	struct kc_timeline tl;
	char *text = copy(data, len);

	if (kc_vms_parse("fuzz", "vms", text, len, list, &v)) {
		free(text);
		kc_vms_free(&v);
		return;
	}
	free(text);
	naccepted[1]++;
	for (size_t i = 0; i < v.n; i++) {
		for (unsigned int w = 0; w < KC_NR_WINDOWS; w++) {
			unsigned int n = kc_vm_segments(&v.vm[i], w, seg);
			unsigned long long at = 0;

			if (n > KC_VM_MAX_SEGS)
				fail("more parts than a window has");
			for (unsigned int k = 0; k < n; k++) {
				if (seg[k].start != at || !seg[k].len)
					fail("a part not where the one before ended, or of no time");
				at += seg[k].len;
			}
			kc_vm_largest_part(&v.vm[i], w);
			kc_vm_accounted(&v.vm[i], w);
		}
		kc_vm_largest(&v.vm[i]);
	}
	if (v.n) {
		tl = (struct kc_timeline){ .vms = &v, .src = &src };
		kc_plot_timeline(devnull, &tl);
		kc_vms_trace_event(devnull, &v);
	}
	kc_vms_free(&v);
}

static void live(const uint8_t *data, size_t len)
{
	struct kc_live_set ls;
	char *text = copy(data, len);
	struct kc_json j;

	if (!kc_live_parse("fuzz", "vms", text, len, &ls)) {
		naccepted[2]++;
		if (ls.ngroups > ls.n || kc_live_stalled_count(&ls) > ls.n)
			fail("more stalls than live VMs");
		kc_json_init(&j, devnull);
		kc_json_object(&j, NULL);
		kc_live_json_stalls(&j, &ls);
		kc_json_array(&j, "live");
		for (size_t i = 0; i < ls.n; i++)
			kc_live_json_vm(&j, &ls, i);
		kc_json_end(&j);
		kc_json_end(&j);
	}
	kc_live_free(&ls);
	free(text);
}

static void setup(void)
{
	if (devnull)
		return;
	devnull = fopen("/dev/null", "w");
	if (!devnull) {
		perror("reader_fuzz: /dev/null");
		exit(2);
	}
	/* the readers' messages, one an input: the sanitizers write to fd 2 itself */
	stderr = devnull;
}

/* Every reader, and what is drawn from what it accepts. */
static void one(const uint8_t *data, size_t len)
{
	nread++;
	raw(data, len);
	vms(data, len, KC_VMS_LAST);
	vms(data, len, KC_VMS_SLOWEST);
	live(data, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	setup();
	one(data, len);
	return 0;
}

#ifndef KC_LIBFUZZER
#include "xorshift.h"

#define MAX_INPUT	(1 << 20)

struct input {
	char *b;
	size_t len;
};

static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static struct input load(const char *path)
{
	struct input in = { .b = malloc(MAX_INPUT) };
	FILE *f = fopen(path, "rb");

	if (!f || !in.b) {
		perror(path);
		exit(2);
	}
	in.len = fread(in.b, 1, MAX_INPUT, f);
	fclose(f);
	return in;
}

/* The byte range of line @k of @in (the newline included), or of the end. */
static void line_of(const struct input *in, size_t k, size_t *a, size_t *b)
{
	size_t i = 0;

	while (k && i < in->len)
		k -= in->b[i++] == '\n';
	*a = i;
	while (i < in->len && in->b[i] != '\n')
		i++;
	*b = i < in->len ? i + 1 : i;
}

static size_t lines(const struct input *in)
{
	size_t n = 1;

	for (size_t i = 0; i < in->len; i++)
		n += in->b[i] == '\n';
	return n;
}

/* Replace bytes [a, b) of @in with @len bytes of @s, within MAX_INPUT. */
static void splice_in(struct input *in, size_t a, size_t b, const char *s,
		      size_t len)
{
	if (in->len - (b - a) + len > MAX_INPUT)
		return;
	memmove(in->b + a + len, in->b + b, in->len - b);
	memcpy(in->b + a, s, len);
	in->len = in->len - (b - a) + len;
}

static const char *const pieces[] = {
	"0", "1", "18446744073709551615", "18446744073709551616", "-1",
	"99999999999999999999.999999999", "0.000000000", "\t", "\n", "\r", "",
	":", "1:", ":1", "-", "last", "slowest", "vm", "td", "st", "live",
	"stack", "unit", "ns", "params", "fields", "td-fields", "st-fields",
	"hist", "slots", "252", "counter", "probe", "pairs", "accounted",
	"251:1", "252:1", "0:18446744073709551615", "kvmchurn-vms 1",
	"kvmchurn-raw 1", "startup", "teardown", "td_other", "st_other",
};

/* One mutation of @in, with @other for a splice. */
static void mutate(struct input *in, const struct input *other)
{
	size_t a, b, c, d, nl = lines(in);
	char tmp[64];

	switch (rnd() % 10) {
	case 0:	/* flip bytes */
		for (int i = 0, n = 1 + (int)below(8); i < n && in->len; i++)
			in->b[below(in->len)] ^= (char)(1u << below(8));
		break;
	case 1:	/* a random byte in */
		tmp[0] = (char)rnd();
		a = below(in->len + 1);
		splice_in(in, a, a, tmp, 1);
		break;
	case 2:	/* bytes out */
		a = below(in->len + 1);
		splice_in(in, a, a + below(in->len - a + 1), "", 0);
		break;
	case 3:	/* a line doubled */
		line_of(in, below(nl), &a, &b);
		if (b - a < sizeof(tmp) * 64) {
			char *l = malloc(b - a + 1);

			memcpy(l, in->b + a, b - a);
			splice_in(in, a, a, l, b - a);
			free(l);
		}
		break;
	case 4:	/* a line dropped */
		line_of(in, below(nl), &a, &b);
		splice_in(in, a, b, "", 0);
		break;
	case 5:	/* two lines swapped: the second moved before the first */
		line_of(in, below(nl), &a, &b);
		line_of(in, below(nl), &c, &d);
		if (c > b) {
			char *l = malloc(d - c + 1);

			memcpy(l, in->b + c, d - c);
			splice_in(in, c, d, "", 0);
			splice_in(in, a, a, l, d - c);
			free(l);
		}
		break;
	case 6:	/* a field: a piece in its place */
	case 7: {
		const char *p = pieces[below(sizeof(pieces) / sizeof(*pieces))];

		line_of(in, below(nl), &a, &b);
		c = a + below(b - a + 1);
		d = c;
		while (d < b && in->b[d] != '\t' && in->b[d] != '\n' && in->b[d] != ':' &&
		       in->b[d] != ',')
			d++;
		splice_in(in, c, rnd() % 2 ? d : c, p, strlen(p));
		break;
	}
	case 8:	/* cut anywhere */
		in->len = below(in->len + 1);
		break;
	default:	/* spliced: a piece of another file in */
		line_of(other, below(lines(other)), &c, &d);
		a = below(in->len + 1);
		splice_in(in, a, a, other->b + c, d - c);
		break;
	}
}

int main(int argc, char *argv[])
{
	struct input *files, cur = { .b = malloc(MAX_INPUT) };
	unsigned long iterations, seed;
	const char *save = getenv("READER_FUZZ_SAVE");
	int nfiles = argc - 3;
	char name[64];

	if (argc < 4 || !cur.b) {
		fprintf(stderr, "usage: reader_fuzz SEED ITERATIONS FILE...\n");
		return 2;
	}
	seed = strtoul(argv[1], NULL, 10);
	iterations = strtoul(argv[2], NULL, 10);
	rng_state = seed ? seed : 1;
	setup();
	files = calloc((size_t)nfiles, sizeof(*files));
	for (int i = 0; i < nfiles; i++) {
		files[i] = load(argv[3 + i]);
		what = argv[3 + i];
		one((const uint8_t *)files[i].b, files[i].len);
	}
	for (unsigned long it = 0; it < iterations; it++) {
		const struct input *from = &files[below((size_t)nfiles)];

		memcpy(cur.b, from->b, from->len);
		cur.len = from->len;
		for (int k = 0, n = 1 + (int)below(4); k < n; k++)
			mutate(&cur, &files[below((size_t)nfiles)]);
		snprintf(name, sizeof(name), "mutant %lu of seed %lu", it, seed);
		what = name;
		if (save) {
			FILE *f = fopen(save, "wb");

			if (!f || fwrite(cur.b, 1, cur.len, f) != cur.len || fclose(f)) {
				perror(save);
				return 2;
			}
		}
		one((const uint8_t *)cur.b, cur.len);
	}
	printf("reader_fuzz: %lu inputs, accepted: raw %lu, vms %lu, live %lu: ok\n",
	       nread, naccepted[0], naccepted[1], naccepted[2]);
	for (int i = 0; i < nfiles; i++)
		free(files[i].b);
	free(files);
	free(cur.b);
	fclose(devnull);
	return 0;
}

#endif /* KC_LIBFUZZER */
