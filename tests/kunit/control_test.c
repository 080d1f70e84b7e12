// SPDX-License-Identifier: GPL-2.0
/*
 * control_test.c - what a write to a control file means (control.c): the
 * write made a string (kc_parse_text), "0"/"1" (kc_parse_bit, for enable and
 * reset), the unit (kc_parse_unit) and the conversion to it (kc_to_unit).
 * The filter's spec strings are filter_test.c's.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kvmchurn.h"

/* What debugfs.c gives kc_parse_text(): 256 bytes, "more than 255" refused. */
#define KC_TEST_WRITE_MAX	256

struct kc_control_ctx {
	bool unit_ns;		/* kc_unit_ns before the test */
};

static int kc_control_init(struct kunit *test)
{
	struct kc_control_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx),
						   GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	ctx->unit_ns = kc_unit_ns;
	test->priv = ctx;
	return 0;
}

static void kc_control_exit(struct kunit *test)
{
	struct kc_control_ctx *ctx = test->priv;

	if (ctx)
		kc_unit_ns = ctx->unit_ns;
}

/*
 * A buffer of exactly @size bytes holding the @count bytes of @in, as
 * debugfs.c leaves it before kc_parse_text(): KASAN sees a write past it.
 */
static char *kc_write_buf(struct kunit *test, const char *in, size_t count,
			  size_t size)
{
	char *buf = kunit_kmalloc(test, size, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memset(buf, 'x', size);
	memcpy(buf, in, min(count, size));
	return buf;
}

/* kc_parse_text() of @in (all of it) in @size bytes: @want, or refused. */
static void kc_expect_text(struct kunit *test, const char *in, size_t size,
			   const char *want)
{
	size_t count = strlen(in);
	char *buf = kc_write_buf(test, in, count, size);
	int err = kc_parse_text(buf, count, size);

	if (!want) {
		KUNIT_EXPECT_EQ_MSG(test, err, -EINVAL, "write of %zu bytes",
				    count);
		/* Refused before it wrote anything. */
		KUNIT_EXPECT_EQ_MSG(test, memcmp(buf, in, min(count, size)), 0,
				    "write of %zu bytes", count);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, err, 0, "write of %zu bytes", count);
	if (!err)
		KUNIT_EXPECT_STREQ(test, buf, want);
}

static void kc_parse_text_refuses_empty(struct kunit *test)
{
	char *buf = kc_write_buf(test, "", 0, KC_TEST_WRITE_MAX);

	KUNIT_EXPECT_EQ(test, kc_parse_text(buf, 0, KC_TEST_WRITE_MAX),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, buf[0], 'x');
}

static void kc_parse_text_newline(struct kunit *test)
{
	/* A lone newline is a string of nothing: parse_bit and filter refuse it. */
	kc_expect_text(test, "\n", KC_TEST_WRITE_MAX, "");
	kc_expect_text(test, "1", KC_TEST_WRITE_MAX, "1");
	kc_expect_text(test, "1\n", KC_TEST_WRITE_MAX, "1");
	kc_expect_text(test, "qemu firecracker\n", KC_TEST_WRITE_MAX,
		       "qemu firecracker");
	/* Only the one trailing newline goes. */
	kc_expect_text(test, "1\n\n", KC_TEST_WRITE_MAX, "1\n");
	kc_expect_text(test, "\n1", KC_TEST_WRITE_MAX, "\n1");
	kc_expect_text(test, "a\nb\n", KC_TEST_WRITE_MAX, "a\nb");
}

/* A NUL byte anywhere in the write: refused, not cut short at it. */
static void kc_parse_text_refuses_nul(struct kunit *test)
{
	static const struct {
		const char *in;
		size_t count;
	} cases[] = {
		{ "\0", 1 }, { "1\0", 2 }, { "1\0x", 3 }, { "\0001", 2 },
		{ "1\n\0", 3 }, { "fire\0cracker\n", 13 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		char *buf = kc_write_buf(test, cases[i].in, cases[i].count,
					 KC_TEST_WRITE_MAX);

		KUNIT_EXPECT_EQ_MSG(test, kc_parse_text(buf, cases[i].count,
							KC_TEST_WRITE_MAX),
				    -EINVAL, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, memcmp(buf, cases[i].in, cases[i].count),
				    0, "case %u", i);
	}
}

static void kc_parse_text_sizes(struct kunit *test)
{
	char *in = kunit_kmalloc(test, KC_TEST_WRITE_MAX + 1, GFP_KERNEL);
	char *want = kunit_kmalloc(test, KC_TEST_WRITE_MAX, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, want);

	/* Small buffer: size - 1 bytes fit with their terminator, size do not. */
	kc_expect_text(test, "abcdefg", 8, "abcdefg");
	kc_expect_text(test, "abcdef\n", 8, "abcdef");
	kc_expect_text(test, "abcdefgh", 8, NULL);
	kc_expect_text(test, "abcdefg\n", 8, NULL);
	kc_expect_text(test, "abcdefghi", 8, NULL);
	kc_expect_text(test, "a", 2, "a");
	kc_expect_text(test, "ab", 2, NULL);
	kc_expect_text(test, "a", 1, NULL);

	/* debugfs.c's 256 bytes: 255 fit (ABI.rst: "more than 255 bytes"). */
	memset(in, 'a', KC_TEST_WRITE_MAX);
	in[KC_TEST_WRITE_MAX - 1] = '\0';
	kc_expect_text(test, in, KC_TEST_WRITE_MAX, in);
	in[KC_TEST_WRITE_MAX - 1] = 'a';
	in[KC_TEST_WRITE_MAX] = '\0';
	kc_expect_text(test, in, KC_TEST_WRITE_MAX, NULL);
	/* 255 bytes whose last is a newline: 254 bytes of text. */
	in[KC_TEST_WRITE_MAX - 2] = '\n';
	in[KC_TEST_WRITE_MAX - 1] = '\0';
	memset(want, 'a', KC_TEST_WRITE_MAX);
	want[KC_TEST_WRITE_MAX - 2] = '\0';
	kc_expect_text(test, in, KC_TEST_WRITE_MAX, want);
}

struct kc_bit_case {
	const char *in;
	int err;
	bool bit;
};

/*
 * Exactly "0" or "1" (kc_parse_text has already taken the write's one
 * newline): no sign, leading zero, newline, space or word.
 */
static const struct kc_bit_case kc_bit_cases[] = {
	{ "0", 0, false },
	{ "1", 0, true },
	{ "0\n", -EINVAL, false },
	{ "1\n", -EINVAL, false },
	{ "01", -EINVAL, false },
	{ "00", -EINVAL, false },
	{ "+1", -EINVAL, false },
	{ "+0", -EINVAL, false },
	{ "2", -EINVAL, false },
	{ "10", -EINVAL, false },
	{ "-1", -EINVAL, false },
	{ "-0", -EINVAL, false },
	{ "4294967297", -EINVAL, false },
	{ "yes", -EINVAL, false },
	{ "no", -EINVAL, false },
	{ "on", -EINVAL, false },
	{ "off", -EINVAL, false },
	{ "y", -EINVAL, false },
	{ "true", -EINVAL, false },
	{ " 1", -EINVAL, false },
	{ "1 ", -EINVAL, false },
	{ "1\n\n", -EINVAL, false },
	{ "\n", -EINVAL, false },
	{ "", -EINVAL, false },
	{ "0x1", -EINVAL, false },
	{ "1.0", -EINVAL, false },
	{ "++1", -EINVAL, false },
};

static void kc_parse_bit_cases(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kc_bit_cases); i++) {
		const struct kc_bit_case *c = &kc_bit_cases[i];
		bool seed;

		/* A refused input leaves the bit as it was, either way. */
		for (seed = false; ; seed = true) {
			bool bit = seed;
			int err = kc_parse_bit(c->in, &bit);

			KUNIT_EXPECT_EQ_MSG(test, err, c->err, "input \"%s\"",
					    c->in);
			KUNIT_EXPECT_EQ_MSG(test, bit, c->err ? seed : c->bit,
					    "input \"%s\"", c->in);
			if (seed)
				break;
		}
	}
}

/* What a write to enable or reset becomes: kc_parse_text then kc_parse_bit. */
static int kc_write_bit(struct kunit *test, const char *in, bool *bit)
{
	size_t count = strlen(in);
	char *buf = kc_write_buf(test, in, count, KC_TEST_WRITE_MAX);
	int err = kc_parse_text(buf, count, KC_TEST_WRITE_MAX);

	return err ? err : kc_parse_bit(buf, bit);
}

static void kc_parse_bit_writes(struct kunit *test)
{
	bool bit = false;

	KUNIT_EXPECT_EQ(test, kc_write_bit(test, "1\n", &bit), 0);
	KUNIT_EXPECT_TRUE(test, bit);
	KUNIT_EXPECT_EQ(test, kc_write_bit(test, "0", &bit), 0);
	KUNIT_EXPECT_FALSE(test, bit);
	KUNIT_EXPECT_EQ(test, kc_write_bit(test, "\n", &bit), -EINVAL);
	KUNIT_EXPECT_EQ(test, kc_write_bit(test, "", &bit), -EINVAL);
	KUNIT_EXPECT_EQ(test, kc_write_bit(test, "2\n", &bit), -EINVAL);
	KUNIT_EXPECT_EQ(test, kc_write_bit(test, "1\n\n\n", &bit), -EINVAL);
	KUNIT_EXPECT_EQ(test, kc_write_bit(test, "1\n\n", &bit), -EINVAL);
	KUNIT_EXPECT_EQ(test, kc_write_bit(test, "01\n", &bit), -EINVAL);
	KUNIT_EXPECT_EQ(test, kc_write_bit(test, "+1\n", &bit), -EINVAL);
	KUNIT_EXPECT_FALSE(test, bit);
}

static void kc_parse_unit_cases(struct kunit *test)
{
	static const char *const bad[] = {
		"", "ms", "s", "US", "Ns", "us\n", " us", "usec", "nsec", "u",
	};
	unsigned int i;
	bool ns = true;

	KUNIT_EXPECT_EQ(test, kc_parse_unit("us", &ns), 0);
	KUNIT_EXPECT_FALSE(test, ns);
	KUNIT_EXPECT_EQ(test, kc_parse_unit("ns", &ns), 0);
	KUNIT_EXPECT_TRUE(test, ns);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ns = true;
		KUNIT_EXPECT_EQ_MSG(test, kc_parse_unit(bad[i], &ns), -EINVAL,
				    "unit \"%s\"", bad[i]);
		KUNIT_EXPECT_TRUE_MSG(test, ns, "unit \"%s\"", bad[i]);
		ns = false;
		KUNIT_EXPECT_EQ_MSG(test, kc_parse_unit(bad[i], &ns), -EINVAL,
				    "unit \"%s\"", bad[i]);
		KUNIT_EXPECT_FALSE_MSG(test, ns, "unit \"%s\"", bad[i]);
	}
}

static void kc_to_unit_cases(struct kunit *test)
{
	kc_unit_ns = false;
	KUNIT_EXPECT_STREQ(test, kc_unit_name(), "us");
	KUNIT_EXPECT_EQ(test, kc_to_unit(0), 0ULL);
	KUNIT_EXPECT_EQ(test, kc_to_unit(999), 0ULL);
	KUNIT_EXPECT_EQ(test, kc_to_unit(1000), 1ULL);
	KUNIT_EXPECT_EQ(test, kc_to_unit(1999), 1ULL);
	KUNIT_EXPECT_EQ(test, kc_to_unit(2000), 2ULL);
	KUNIT_EXPECT_EQ(test, kc_to_unit(1234567891ULL), 1234567ULL);
	KUNIT_EXPECT_EQ(test, kc_to_unit(U64_MAX), 18446744073709551ULL);

	kc_unit_ns = true;
	KUNIT_EXPECT_STREQ(test, kc_unit_name(), "ns");
	KUNIT_EXPECT_EQ(test, kc_to_unit(0), 0ULL);
	KUNIT_EXPECT_EQ(test, kc_to_unit(999), 999ULL);
	KUNIT_EXPECT_EQ(test, kc_to_unit(1234567891ULL), 1234567891ULL);
	KUNIT_EXPECT_EQ(test, kc_to_unit(U64_MAX), U64_MAX);
}

static struct kunit_case kc_control_cases[] = {
	KUNIT_CASE(kc_parse_text_refuses_empty),
	KUNIT_CASE(kc_parse_text_newline),
	KUNIT_CASE(kc_parse_text_refuses_nul),
	KUNIT_CASE(kc_parse_text_sizes),
	KUNIT_CASE(kc_parse_bit_cases),
	KUNIT_CASE(kc_parse_bit_writes),
	KUNIT_CASE(kc_parse_unit_cases),
	KUNIT_CASE(kc_to_unit_cases),
	{}
};

static struct kunit_suite kc_control_suite = {
	.name = "kvmchurn_control",
	.init = kc_control_init,
	.exit = kc_control_exit,
	.test_cases = kc_control_cases,
};

kunit_test_suite(kc_control_suite);
