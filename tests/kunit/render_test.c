// SPDX-License-Identifier: GPL-2.0
/*
 * render_test.c - the text of the read-only files (render.c): bpftrace's
 * histograms (all, hist/<metric>), summary, counters, checks and raw, byte
 * for byte, from histograms filled through kc_hist_record().
 *
 * The known state is that of tests/fixtures/hand/known: its `all` is the
 * expected text here unchanged. Its summary and raw differ in two ways that
 * are the module's: no probe is registered in the test module, so every
 * probe is "off" (the summary's last column says so), and a maximum keeps 48
 * bits (hist.c), so U64_MAX shows as 2^48 - 1 = 281474976710655.
 *
 * A map's first line ends in ": " before its newline, as bpftrace's does:
 * written ":\x20\n" here, where a space before "\n" would read as a slip.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kvmchurn.h"

#define KC_SEQ_SIZE	8192

struct kc_render_ctx {
	struct seq_file m;
	char *buf;			/* KC_SEQ_SIZE + 1 */
	struct kc_read *rd;
	bool unit_ns, enabled;		/* before the test */
};

/* An empty seq_file on ctx->buf: seq_printf() needs nothing else. */
static void kc_seq_reset(struct kc_render_ctx *ctx)
{
	memset(&ctx->m, 0, sizeof(ctx->m));
	memset(ctx->buf, 0, KC_SEQ_SIZE + 1);
	ctx->m.buf = ctx->buf;
	ctx->m.size = KC_SEQ_SIZE;
}

static int kc_render_test_init(struct kunit *test)
{
	struct kc_render_ctx *ctx;
	int err;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	ctx->buf = kunit_kzalloc(test, KC_SEQ_SIZE + 1, GFP_KERNEL);
	ctx->rd = kunit_kzalloc(test, sizeof(*ctx->rd), GFP_KERNEL);
	if (!ctx->buf || !ctx->rd)
		return -ENOMEM;
	ctx->unit_ns = kc_unit_ns;
	ctx->enabled = kc_enabled;
	test->priv = ctx;

	kc_unit_ns = false;
	kc_enabled = true;
	err = kc_filter_init("firecracker");
	if (!err)
		err = kc_pairs_init(4096);
	if (!err)
		err = kc_hist_init();
	kc_vms_reset();		/* the teardowns' accounted shares */
	kc_seq_reset(ctx);
	return err;
}

static void kc_render_test_exit(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;

	kc_hist_exit();
	kc_pairs_exit();
	kc_filter_exit();
	if (ctx) {
		kc_unit_ns = ctx->unit_ns;
		kc_enabled = ctx->enabled;
	}
}

/* `all` with nothing recorded: bpftrace's count() maps without a key. */
#define KC_ZERO_COUNTERS \
	"@n_exit: 0\n@n_reap: 0\n@n_sigkill: 0\n@n_sigterm: 0\n"

/*
 * What was written since the last kc_seq_reset() is @want, byte for byte:
 * a failure names the first line that differs.
 */
static void kc_expect_text(struct kunit *test, const char *want)
{
	struct kc_render_ctx *ctx = test->priv;
	const char *got = ctx->buf, *g = got, *w = want;
	unsigned int line = 1;

	KUNIT_EXPECT_FALSE(test, seq_has_overflowed(&ctx->m));
	ctx->buf[ctx->m.count] = '\0';
	while (*g || *w) {
		size_t gl = strcspn(g, "\n"), wl = strcspn(w, "\n");

		if (gl != wl || memcmp(g, w, gl) || !g[gl] != !w[wl]) {
			KUNIT_FAIL(test, "line %u: got \"%.*s\"%s, want \"%.*s\"%s",
				   line, (int)gl, g, *g ? "" : " (end)",
				   (int)wl, w, *w ? "" : " (end)");
			break;
		}
		g += gl + !!g[gl];
		w += wl + !!w[wl];
		line++;
	}
	KUNIT_EXPECT_EQ(test, ctx->m.count, strlen(want));
	KUNIT_EXPECT_TRUE_MSG(test, !strcmp(got, want),
			      "%zu bytes written, %zu expected", ctx->m.count,
			      strlen(want));
	kc_seq_reset(ctx);
}

/* Counters, once each, per their number. */
static void kc_count_n(enum kc_counter c, unsigned int n)
{
	while (n--)
		kc_count(c);
}

/* tests/fixtures/hand/known's histograms and counters. */
static void kc_known_state(void)
{
	unsigned int i;
	u64 v;

	for (v = 1; v <= 100; v++)
		kc_hist_record(KC_M_EXIT_MMAP, v);
	for (i = 0; i < 12; i++)
		kc_hist_record(KC_M_IRQBYPASS_REGISTER, 0);
	for (i = 0; i < 10; i++)
		kc_hist_record(KC_M_IRQBYPASS_UNREGISTER, i < 4 ? 5 : 6);
	kc_hist_record(KC_M_KVM_CREATE_VM, 1000);
	kc_hist_record(KC_M_SIGNAL_TO_EXIT, U64_MAX);
	kc_count_n(KC_C_SIGKILL, 1);
	kc_count_n(KC_C_EXIT, 1);
	kc_count_n(KC_C_REAP, 1);
	kc_count_n(KC_C_IRQBYPASS_REGISTER, 10);
	kc_count_n(KC_C_IRQBYPASS_UNREGISTER, 10);
	/* three teardowns, 98.7, 99.0 and 99.5 % accounted; two start-ups */
	kc_vm_accounted(KC_WIN_TEARDOWN, 1000, 13);
	kc_vm_accounted(KC_WIN_TEARDOWN, 1000, 10);
	kc_vm_accounted(KC_WIN_TEARDOWN, 1000, 5);
	kc_vm_accounted(KC_WIN_STARTUP, 1000, 10);
	kc_vm_accounted(KC_WIN_STARTUP, 500, 0);
}

/* The last lines of checks, without windows and with kc_known_state()'s. */
/* The stalls' line: no VM record is live in the test module. */
#define KC_STALLS_NONE \
	"OK   stalls: none of 0 live VMs in one stage for stall_ms=10000 or longer\n"
#define KC_ACC_NONE \
	"INFO startup accounted (1 - st_other/startup): none partitioned\n" \
	"INFO teardown accounted (1 - td_other/teardown): none partitioned\n"
#define KC_ACC_KNOWN \
	"INFO startup accounted (1 - st_other/startup): " \
	"p50 100.0 %, p10 99.0 %, min 99.0 % of 2 startups\n" \
	"INFO teardown accounted (1 - td_other/teardown): p50 99.0 %, p10 98.7 %, min 98.7 % of 3 teardowns\n"

/* The last line of checks: the drops of the pairing table since load. */
static void kc_drops_line(char *buf, size_t len)
{
	struct kc_pair_stats st;

	kc_pairs_stats(&st);
	if (st.dropped)
		snprintf(buf, len, "WARN pairing drops = 0: %llu (raise pairs=)\n",
			 st.dropped);
	else
		snprintf(buf, len, "OK   pairing drops = 0: 0\n");
}

/* Bar widths against bpftrace's (int)(count / (float)max * 52). */
static void kc_render_bar_width(struct kunit *test)
{
	static const u64 cases[][3] = {
		{ 0, 5, 0 }, { 5, 0, 0 }, { 0, 0, 0 }, { 5, 5, 52 },
		{ 6, 5, 52 }, { U64_MAX, U64_MAX, 52 },
		/* 52 / 37 = 1.405...: the known exit_mmap's bars. */
		{ 1, 37, 1 }, { 2, 37, 2 }, { 4, 37, 5 }, { 8, 37, 11 },
		{ 16, 37, 22 }, { 32, 37, 44 }, { 37, 37, 52 },
		{ 1, 3, 17 }, { 2, 3, 34 }, { 1, 2, 26 },
		/* Whole results stay whole. */
		{ 1, 13, 4 }, { 1, 52, 1 }, { 3, 39, 4 }, { 7, 91, 4 },
		{ 51, 52, 51 }, { 50, 52, 50 }, { 1, 26, 2 },
		{ 1ULL << 40, 1ULL << 41, 26 },
		/* Where single precision rounds: 0.99996 and 1.000012. */
		{ 19230, 1000000, 0 }, { 19231, 1000000, 1 },
		{ 1, 1000000, 0 }, { 1000000, 1000001, 51 },
		/* 2^24 + 1 is 2^24 as a float: 51.99999 is 51. */
		{ 16777217, 16777218, 51 }, { 16777215, 16777216, 51 },
		/* Both are one float: the bar is full, below the max. */
		{ 12345678901ULL, 12345678902ULL, 52 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		KUNIT_EXPECT_EQ_MSG(test, kc_bar_width(cases[i][0], cases[i][1]),
				    (unsigned int)cases[i][2], "%llu of %llu",
				    cases[i][0], cases[i][1]);
}

static void kc_render_hist_one(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;
	u64 v;

	for (v = 1; v <= 100; v++)
		kc_hist_record(KC_M_EXIT_MMAP, v);
	kc_show_hist(&ctx->m, KC_M_EXIT_MMAP, ctx->rd);
	kc_expect_text(test,
		       "@us_exit_mmap:\x20\n"
		       "[1]                    1 |@                                                   |\n"
		       "[2, 4)                 2 |@@                                                  |\n"
		       "[4, 8)                 4 |@@@@@                                               |\n"
		       "[8, 16)                8 |@@@@@@@@@@@                                         |\n"
		       "[16, 32)              16 |@@@@@@@@@@@@@@@@@@@@@@                              |\n"
		       "[32, 64)              32 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@        |\n"
		       "[64, 128)             37 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n");
	/* A histogram with nothing recorded is an empty file. */
	kc_show_hist(&ctx->m, KC_M_EXIT_FILES, ctx->rd);
	kc_expect_text(test, "");
}

/* Labels from [0] to [1G, 2G), empty buckets between, partial bars. */
static void kc_render_hist_labels(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;

	kc_hist_record(KC_M_KVM_DESTROY_VM, 1000);
	kc_hist_record(KC_M_KVM_DESTROY_VM, 5000);
	kc_hist_record(KC_M_KVM_DESTROY_VM, 6000);
	kc_hist_record(KC_M_KVM_DESTROY_VM, 8191);
	kc_show_hist(&ctx->m, KC_M_KVM_DESTROY_VM, ctx->rd);
	kc_expect_text(test,
		       "@us_kvm_destroy_vm:\x20\n"
		       "[512, 1K)              1 |@@@@@@@@@@@@@@@@@                                   |\n"
		       "[1K, 2K)               0 |                                                    |\n"
		       "[2K, 4K)               0 |                                                    |\n"
		       "[4K, 8K)               3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n");

	kc_hist_record(KC_M_RECLAIM_MEMCG, 1ULL << 20);
	kc_hist_record(KC_M_RECLAIM_MEMCG, (2ULL << 20) - 1);
	kc_hist_record(KC_M_RECLAIM_MEMCG, (1ULL << 30) + 5);
	kc_show_hist(&ctx->m, KC_M_RECLAIM_MEMCG, ctx->rd);
	kc_expect_text(test,
		       "@us_reclaim_memcg:\x20\n"
		       "[1M, 2M)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "[2M, 4M)               0 |                                                    |\n"
		       "[4M, 8M)               0 |                                                    |\n"
		       "[8M, 16M)              0 |                                                    |\n"
		       "[16M, 32M)             0 |                                                    |\n"
		       "[32M, 64M)             0 |                                                    |\n"
		       "[64M, 128M)            0 |                                                    |\n"
		       "[128M, 256M)           0 |                                                    |\n"
		       "[256M, 512M)           0 |                                                    |\n"
		       "[512M, 1G)             0 |                                                    |\n"
		       "[1G, 2G)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
		       "\n");

	kc_hist_record(KC_M_EXIT_FILES, 0);
	kc_hist_record(KC_M_EXIT_FILES, 0);
	kc_hist_record(KC_M_EXIT_FILES, 0);
	kc_hist_record(KC_M_EXIT_FILES, 1);
	kc_hist_record(KC_M_EXIT_FILES, 2);
	kc_hist_record(KC_M_EXIT_FILES, 3);
	kc_show_hist(&ctx->m, KC_M_EXIT_FILES, ctx->rd);
	kc_expect_text(test,
		       "@us_exit_files:\x20\n"
		       "[0]                    3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "[1]                    1 |@@@@@@@@@@@@@@@@@                                   |\n"
		       "[2, 4)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                  |\n"
		       "\n");
}

static void kc_render_all_known(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;

	kc_known_state();
	kc_show_all(&ctx->m, ctx->rd);
	/* tests/fixtures/hand/known/all */
	kc_expect_text(test,
		       "@n_exit: 1\n"
		       "@n_irqbypass[register]: 10\n"
		       "@n_irqbypass[unregister]: 10\n"
		       "@n_reap: 1\n"
		       "@n_sigkill: 1\n"
		       "@n_sigterm: 0\n"
		       "@us_exit_mmap:\x20\n"
		       "[1]                    1 |@                                                   |\n"
		       "[2, 4)                 2 |@@                                                  |\n"
		       "[4, 8)                 4 |@@@@@                                               |\n"
		       "[8, 16)                8 |@@@@@@@@@@@                                         |\n"
		       "[16, 32)              16 |@@@@@@@@@@@@@@@@@@@@@@                              |\n"
		       "[32, 64)              32 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@        |\n"
		       "[64, 128)             37 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n"
		       "@us_irqbypass[unregister]:\x20\n"
		       "[4, 8)                10 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n"
		       "@us_irqbypass[register]:\x20\n"
		       "[0]                   12 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n"
		       "@us_kvm_create_vm:\x20\n"
		       "[512, 1K)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n"
		       "@us_signal_to_exit:\x20\n"
		       "[8388608T, 16777216T)       1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n");
}

static void kc_render_all_empty(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;

	/* As bpftrace: a count() without a key prints even at 0. */
	kc_show_all(&ctx->m, ctx->rd);
	kc_expect_text(test, KC_ZERO_COUNTERS);
	/* Only a counter. */
	kc_count(KC_C_SIGTERM);
	kc_show_all(&ctx->m, ctx->rd);
	kc_expect_text(test,
		       "@n_exit: 0\n"
		       "@n_reap: 0\n"
		       "@n_sigkill: 0\n"
		       "@n_sigterm: 1\n");
}

/* The keys of one map by their totals, smallest first. */
static void kc_render_all_keys(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;

	kc_count_n(KC_C_IRQBYPASS_REGISTER, 3);
	kc_count_n(KC_C_IRQBYPASS_UNREGISTER, 2);
	kc_hist_record(KC_M_IRQBYPASS_REGISTER, 4);
	kc_hist_record(KC_M_IRQBYPASS_UNREGISTER, 5);
	kc_hist_record(KC_M_IRQBYPASS_UNREGISTER, 7);
	kc_show_all(&ctx->m, ctx->rd);
	kc_expect_text(test,
		       "@n_exit: 0\n"
		       "@n_irqbypass[unregister]: 2\n"
		       "@n_irqbypass[register]: 3\n"
		       "@n_reap: 0\n"
		       "@n_sigkill: 0\n"
		       "@n_sigterm: 0\n"
		       "@us_irqbypass[register]:\x20\n"
		       "[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n"
		       "@us_irqbypass[unregister]:\x20\n"
		       "[4, 8)                 2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n");
}

/* kvmchurn's maps come after all of the seed's, by name among themselves. */
static void kc_render_all_added(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;

	kc_hist_record(KC_M_VCPU_CREATE, 40);
	kc_hist_record(KC_M_UEVENT_DESTROY, 9);
	kc_hist_record(KC_M_STAGE2_DESTROY, 3);
	kc_show_all(&ctx->m, ctx->rd);
	kc_expect_text(test,
		       KC_ZERO_COUNTERS
		       "@us_stage2_destroy:\x20\n"
		       "[2, 4)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n"
		       "@us_uevent_destroy:\x20\n"
		       "[8, 16)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n"
		       "@us_vcpu_create:\x20\n"
		       "[32, 64)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n");
}

static void kc_render_summary_known(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;

	kc_known_state();
	kc_show_summary(&ctx->m, ctx->rd);
	kc_expect_text(test,
		       "metric                      count         avg         p50         p90         p99         max  nmissed  unit\n"
		       "kvm_create_vm                   1        1000         960         960         960        1000        0  us  off\n"
		       "irqbypass_register             12           0           0           0           0           0        0  us  off\n"
		       "signal_to_exit                  1 18446744073709551615 281474976710655 281474976710655 281474976710655 281474976710655        0  us  off\n"
		       "exit_to_reap                    0           -           -           -           -           -        0  us  off\n"
		       "exit_files                      0           -           -           -           -           -        0  us  off\n"
		       "exit_mmap                     100          50          50          90         100         100        0  us  off\n"
		       "kvm_vm_release                  0           -           -           -           -           -        0  us  off\n"
		       "kvm_destroy_vm                  0           -           -           -           -           -        0  us  off\n"
		       "kvm_destroy_vcpus               0           -           -           -           -           -        0  us  off\n"
		       "stage2_destroy                  0           -           -           -           -           -        0  us  off\n"
		       "kvm_mmu_teardown                0           -           -           -           -           -        0  us  off\n"
		       "irqbypass_unregister           10           5           6           6           6           6        0  us  off\n"
		       "reclaim_direct                  0           -           -           -           -           -        0  us  off\n"
		       "reclaim_memcg                   0           -           -           -           -           -        0  us  off\n"
		       "vcpu_create                     0           -           -           -           -           -        0  us  off\n"
		       "first_run_setup                 0           -           -           -           -           -        0  us  off\n"
		       "uevent_create                   0           -           -           -           -           -        0  us  off\n"
		       "uevent_destroy                  0           -           -           -           -           -        0  us  off\n"
		       "mmu_notifier_unregister         0           -           -           -           -           -        0  us  off\n"
		       "exit_to_reaped                  0           -           -           -           -           -        0  us  off\n"
		       "startup                         0           -           -           -           -           -        0  us  off\n"
		       "st_create                       0           -           -           -           -           -        0  us  off\n"
		       "st_first_run                    0           -           -           -           -           -        0  us  off\n"
		       "st_vcpus                        0           -           -           -           -           -        0  us  off\n"
		       "st_ioctls                       0           -           -           -           -           -        0  us  off\n"
		       "st_user                         0           -           -           -           -           -        0  us  off\n"
		       "st_kernel                       0           -           -           -           -           -        0  us  off\n"
		       "st_runq                         0           -           -           -           -           -        0  us  off\n"
		       "st_blocked                      0           -           -           -           -           -        0  us  off\n"
		       "st_other                        0           -           -           -           -           -        0  us  off\n"
		       "teardown                        0           -           -           -           -           -        0  us  off\n"
		       "td_destroy                      0           -           -           -           -           -        0  us  off\n"
		       "td_release                      0           -           -           -           -           -        0  us  off\n"
		       "td_task_work                    0           -           -           -           -           -        0  us  off\n"
		       "td_exit_mmap                    0           -           -           -           -           -        0  us  off\n"
		       "td_exit_files                   0           -           -           -           -           -        0  us  off\n"
		       "td_threads                      0           -           -           -           -           -        0  us  off\n"
		       "reap_wait                       0           -           -           -           -           -        0  us  off\n"
		       "rcu_free                        0           -           -           -           -           -        0  us  off\n"
		       "td_wake                         0           -           -           -           -           -        0  us  off\n"
		       "td_runq                         0           -           -           -           -           -        0  us  off\n"
		       "td_other                        0           -           -           -           -           -        0  us  off\n");
}

/* summary with nothing recorded, every probe off (none is set up here) */
static void kc_expect_summary_empty(struct kunit *test)
{
	kc_expect_text(test,
		       "metric                      count         avg         p50         p90         p99         max  nmissed  unit\n"
		       "kvm_create_vm                   0           -           -           -           -           -        0  us  off\n"
		       "irqbypass_register              0           -           -           -           -           -        0  us  off\n"
		       "signal_to_exit                  0           -           -           -           -           -        0  us  off\n"
		       "exit_to_reap                    0           -           -           -           -           -        0  us  off\n"
		       "exit_files                      0           -           -           -           -           -        0  us  off\n"
		       "exit_mmap                       0           -           -           -           -           -        0  us  off\n"
		       "kvm_vm_release                  0           -           -           -           -           -        0  us  off\n"
		       "kvm_destroy_vm                  0           -           -           -           -           -        0  us  off\n"
		       "kvm_destroy_vcpus               0           -           -           -           -           -        0  us  off\n"
		       "stage2_destroy                  0           -           -           -           -           -        0  us  off\n"
		       "kvm_mmu_teardown                0           -           -           -           -           -        0  us  off\n"
		       "irqbypass_unregister            0           -           -           -           -           -        0  us  off\n"
		       "reclaim_direct                  0           -           -           -           -           -        0  us  off\n"
		       "reclaim_memcg                   0           -           -           -           -           -        0  us  off\n"
		       "vcpu_create                     0           -           -           -           -           -        0  us  off\n"
		       "first_run_setup                 0           -           -           -           -           -        0  us  off\n"
		       "uevent_create                   0           -           -           -           -           -        0  us  off\n"
		       "uevent_destroy                  0           -           -           -           -           -        0  us  off\n"
		       "mmu_notifier_unregister         0           -           -           -           -           -        0  us  off\n"
		       "exit_to_reaped                  0           -           -           -           -           -        0  us  off\n"
		       "startup                         0           -           -           -           -           -        0  us  off\n"
		       "st_create                       0           -           -           -           -           -        0  us  off\n"
		       "st_first_run                    0           -           -           -           -           -        0  us  off\n"
		       "st_vcpus                        0           -           -           -           -           -        0  us  off\n"
		       "st_ioctls                       0           -           -           -           -           -        0  us  off\n"
		       "st_user                         0           -           -           -           -           -        0  us  off\n"
		       "st_kernel                       0           -           -           -           -           -        0  us  off\n"
		       "st_runq                         0           -           -           -           -           -        0  us  off\n"
		       "st_blocked                      0           -           -           -           -           -        0  us  off\n"
		       "st_other                        0           -           -           -           -           -        0  us  off\n"
		       "teardown                        0           -           -           -           -           -        0  us  off\n"
		       "td_destroy                      0           -           -           -           -           -        0  us  off\n"
		       "td_release                      0           -           -           -           -           -        0  us  off\n"
		       "td_task_work                    0           -           -           -           -           -        0  us  off\n"
		       "td_exit_mmap                    0           -           -           -           -           -        0  us  off\n"
		       "td_exit_files                   0           -           -           -           -           -        0  us  off\n"
		       "td_threads                      0           -           -           -           -           -        0  us  off\n"
		       "reap_wait                       0           -           -           -           -           -        0  us  off\n"
		       "rcu_free                        0           -           -           -           -           -        0  us  off\n"
		       "td_wake                         0           -           -           -           -           -        0  us  off\n"
		       "td_runq                         0           -           -           -           -           -        0  us  off\n"
		       "td_other                        0           -           -           -           -           -        0  us  off\n");
}

static void kc_render_summary_empty(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;

	kc_show_summary(&ctx->m, ctx->rd);
	kc_expect_summary_empty(test);
}

/* unit=ns: the maps are @ns_*, the summary says ns. */
static void kc_render_unit_ns(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;
	u64 v;

	kc_unit_ns = true;
	for (v = 1; v <= 100; v++)
		kc_hist_record(KC_M_EXIT_MMAP, v);
	kc_show_hist(&ctx->m, KC_M_EXIT_MMAP, ctx->rd);
	kc_expect_text(test,
		       "@ns_exit_mmap:\x20\n"
		       "[1]                    1 |@                                                   |\n"
		       "[2, 4)                 2 |@@                                                  |\n"
		       "[4, 8)                 4 |@@@@@                                               |\n"
		       "[8, 16)                8 |@@@@@@@@@@@                                         |\n"
		       "[16, 32)              16 |@@@@@@@@@@@@@@@@@@@@@@                              |\n"
		       "[32, 64)              32 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@        |\n"
		       "[64, 128)             37 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n");
	kc_show_summary(&ctx->m, ctx->rd);
	kc_expect_text(test,
		       "metric                      count         avg         p50         p90         p99         max  nmissed  unit\n"
		       "kvm_create_vm                   0           -           -           -           -           -        0  ns  off\n"
		       "irqbypass_register              0           -           -           -           -           -        0  ns  off\n"
		       "signal_to_exit                  0           -           -           -           -           -        0  ns  off\n"
		       "exit_to_reap                    0           -           -           -           -           -        0  ns  off\n"
		       "exit_files                      0           -           -           -           -           -        0  ns  off\n"
		       "exit_mmap                     100          50          50          90         100         100        0  ns  off\n"
		       "kvm_vm_release                  0           -           -           -           -           -        0  ns  off\n"
		       "kvm_destroy_vm                  0           -           -           -           -           -        0  ns  off\n"
		       "kvm_destroy_vcpus               0           -           -           -           -           -        0  ns  off\n"
		       "stage2_destroy                  0           -           -           -           -           -        0  ns  off\n"
		       "kvm_mmu_teardown                0           -           -           -           -           -        0  ns  off\n"
		       "irqbypass_unregister            0           -           -           -           -           -        0  ns  off\n"
		       "reclaim_direct                  0           -           -           -           -           -        0  ns  off\n"
		       "reclaim_memcg                   0           -           -           -           -           -        0  ns  off\n"
		       "vcpu_create                     0           -           -           -           -           -        0  ns  off\n"
		       "first_run_setup                 0           -           -           -           -           -        0  ns  off\n"
		       "uevent_create                   0           -           -           -           -           -        0  ns  off\n"
		       "uevent_destroy                  0           -           -           -           -           -        0  ns  off\n"
		       "mmu_notifier_unregister         0           -           -           -           -           -        0  ns  off\n"
		       "exit_to_reaped                  0           -           -           -           -           -        0  ns  off\n"
		       "startup                         0           -           -           -           -           -        0  ns  off\n"
		       "st_create                       0           -           -           -           -           -        0  ns  off\n"
		       "st_first_run                    0           -           -           -           -           -        0  ns  off\n"
		       "st_vcpus                        0           -           -           -           -           -        0  ns  off\n"
		       "st_ioctls                       0           -           -           -           -           -        0  ns  off\n"
		       "st_user                         0           -           -           -           -           -        0  ns  off\n"
		       "st_kernel                       0           -           -           -           -           -        0  ns  off\n"
		       "st_runq                         0           -           -           -           -           -        0  ns  off\n"
		       "st_blocked                      0           -           -           -           -           -        0  ns  off\n"
		       "st_other                        0           -           -           -           -           -        0  ns  off\n"
		       "teardown                        0           -           -           -           -           -        0  ns  off\n"
		       "td_destroy                      0           -           -           -           -           -        0  ns  off\n"
		       "td_release                      0           -           -           -           -           -        0  ns  off\n"
		       "td_task_work                    0           -           -           -           -           -        0  ns  off\n"
		       "td_exit_mmap                    0           -           -           -           -           -        0  ns  off\n"
		       "td_exit_files                   0           -           -           -           -           -        0  ns  off\n"
		       "td_threads                      0           -           -           -           -           -        0  ns  off\n"
		       "reap_wait                       0           -           -           -           -           -        0  ns  off\n"
		       "rcu_free                        0           -           -           -           -           -        0  ns  off\n"
		       "td_wake                         0           -           -           -           -           -        0  ns  off\n"
		       "td_runq                         0           -           -           -           -           -        0  ns  off\n"
		       "td_other                        0           -           -           -           -           -        0  ns  off\n");
}

static void kc_render_counters(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;

	kc_show_counters(&ctx->m, ctx->rd);
	kc_expect_text(test,
		       "sigterm 0\n"
		       "sigkill 0\n"
		       "exit 0\n"
		       "reap 0\n"
		       "irqbypass_register 0\n"
		       "irqbypass_unregister 0\n");
	kc_known_state();
	kc_count_n(KC_C_SIGTERM, 1234);
	kc_show_counters(&ctx->m, ctx->rd);
	kc_expect_text(test,
		       "sigterm 1234\n"
		       "sigkill 1\n"
		       "exit 1\n"
		       "reap 1\n"
		       "irqbypass_register 10\n"
		       "irqbypass_unregister 10\n");
}

static void kc_render_checks(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;
	char *want = kunit_kzalloc(test, 1024, GFP_KERNEL);
	char drops[64];

	KUNIT_ASSERT_NOT_NULL(test, want);
	kc_drops_line(drops, sizeof(drops));

	/* tests/fixtures/hand/empty/checks, but for drops of other tests. */
	kc_show_checks(&ctx->m, ctx->rd);
	snprintf(want, 1024, "%s%s%s" KC_STALLS_NONE,
		 "OK   exit = reap: exit 0, reap 0, 0 not reaped yet\n"
		 "OK   irqbypass register = unregister: register 0, unregister 0\n"
		 "OK   irqbypass unregister per VM in 8-11: no VM created\n"
		 "OK   nmissed = 0: 0\n", drops, KC_ACC_NONE);
	kc_expect_text(test, want);

	/* tests/fixtures/hand/known/checks */
	kc_known_state();
	kc_show_checks(&ctx->m, ctx->rd);
	snprintf(want, 1024, "%s%s%s" KC_STALLS_NONE,
		 "OK   exit = reap: exit 1, reap 1, 0 not reaped yet\n"
		 "OK   irqbypass register = unregister: register 10, unregister 10\n"
		 "OK   irqbypass unregister per VM in 8-11: 10 for 1 VMs\n"
		 "OK   nmissed = 0: 0\n", drops, KC_ACC_KNOWN);
	kc_expect_text(test, want);

	/* Two exits more than reaps, then both waiting in the pairing table. */
	kc_count_n(KC_C_EXIT, 2);
	kc_count_n(KC_C_IRQBYPASS_UNREGISTER, 2);
	kc_show_checks(&ctx->m, ctx->rd);
	snprintf(want, 1024, "%s%s%s" KC_STALLS_NONE,
		 "WARN exit = reap: exit 3, reap 1, 0 not reaped yet\n"
		 "WARN irqbypass register = unregister: register 10, unregister 12\n"
		 "WARN irqbypass unregister per VM in 8-11: 12 for 1 VMs\n"
		 "OK   nmissed = 0: 0\n", drops, KC_ACC_KNOWN);
	kc_expect_text(test, want);
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 1001, 1, false),
			KC_PAIR_ADDED);
	KUNIT_EXPECT_EQ(test, kc_pair_add(KC_PAIR_EXIT, 1002, 1, false),
			KC_PAIR_ADDED);
	kc_show_checks(&ctx->m, ctx->rd);
	snprintf(want, 1024, "%s%s%s" KC_STALLS_NONE,
		 "OK   exit = reap: exit 3, reap 1, 2 not reaped yet\n"
		 "WARN irqbypass register = unregister: register 10, unregister 12\n"
		 "WARN irqbypass unregister per VM in 8-11: 12 for 1 VMs\n"
		 "OK   nmissed = 0: 0\n", drops, KC_ACC_KNOWN);
	kc_expect_text(test, want);
}

/* No irqbypass consumer registered, some unregistered: INFO, not WARN. */
static void kc_render_checks_info(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;
	char *want = kunit_kzalloc(test, 1024, GFP_KERNEL);
	char drops[64];

	KUNIT_ASSERT_NOT_NULL(test, want);
	kc_drops_line(drops, sizeof(drops));
	kc_count_n(KC_C_IRQBYPASS_UNREGISTER, 3);
	kc_count_n(KC_C_REAP, 1);
	kc_show_checks(&ctx->m, ctx->rd);
	snprintf(want, 1024, "%s%s%s" KC_STALLS_NONE,
		 "WARN exit = reap: exit 0, reap 1, 0 not reaped yet\n"
		 "INFO irqbypass register = unregister: register 0, unregister 3: this host does not post interrupts (no APICv/AVIC or IOMMU posting), so KVM registers no consumer\n"
		 "OK   irqbypass unregister per VM in 8-11: no VM created\n"
		 "OK   nmissed = 0: 0\n", drops, KC_ACC_NONE);
	kc_expect_text(test, want);
}

/*
 * The irqfd range is Firecracker's: judged for the filter "firecracker"
 * alone, told as INFO for another VMM, a list with one, or "*".
 */
static void kc_render_checks_vmm(struct kunit *test)
{
	static const char * const told[] = {
		"qemu-system-x86", "firecracker qemu-system-x86", "*",
		"firecrackers", "firecracke",
	};
	struct kc_render_ctx *ctx = test->priv;
	char *want = kunit_kzalloc(test, 1024, GFP_KERNEL);
	char drops[64];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, want);
	kc_drops_line(drops, sizeof(drops));
	kc_known_state();
	for (i = 0; i < ARRAY_SIZE(told); i++) {
		KUNIT_ASSERT_EQ(test, kc_filter_set(told[i]), 0);
		kc_show_checks(&ctx->m, ctx->rd);
		snprintf(want, 1024, "%s%s%s" KC_STALLS_NONE,
			 "OK   exit = reap: exit 1, reap 1, 0 not reaped yet\n"
			 "OK   irqbypass register = unregister: register 10, unregister 10\n"
			 "INFO irqbypass unregister per VM in 8-11: 10 for 1 VMs: not judged, the range is firecracker's and the filter traces another VMM\n"
			 "OK   nmissed = 0: 0\n", drops, KC_ACC_KNOWN);
		kc_expect_text(test, want);
	}
	/* judged again, and a ratio out of the range warns */
	KUNIT_ASSERT_EQ(test, kc_filter_set("firecracker,firecracker"), 0);
	kc_count_n(KC_C_IRQBYPASS_UNREGISTER, 2);
	kc_show_checks(&ctx->m, ctx->rd);
	snprintf(want, 1024, "%s%s%s" KC_STALLS_NONE,
		 "OK   exit = reap: exit 1, reap 1, 0 not reaped yet\n"
		 "WARN irqbypass register = unregister: register 10, unregister 12\n"
		 "WARN irqbypass unregister per VM in 8-11: 12 for 1 VMs\n"
		 "OK   nmissed = 0: 0\n", drops, KC_ACC_KNOWN);
	kc_expect_text(test, want);
}

/* A drop in the pairing table turns the last check to WARN. */
static void kc_render_checks_drops(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;
	struct kc_pair_stats st;
	char want[320];
	unsigned int id;

	/* Some bucket of KC_PAIR_WAYS fills before the table does. */
	for (id = 0; id <= 4096; id++)
		if (kc_pair_add(KC_PAIR_SIGNAL, id, 1, false) == KC_PAIR_FULL)
			break;
	KUNIT_ASSERT_LE(test, id, 4096U);
	kc_pairs_stats(&st);
	KUNIT_ASSERT_GT(test, st.dropped, 0ULL);
	KUNIT_EXPECT_EQ(test, st.used, id);
	KUNIT_EXPECT_EQ(test, kc_pairs_count(KC_PAIR_SIGNAL), id);

	kc_show_checks(&ctx->m, ctx->rd);
	snprintf(want, sizeof(want),
		 "WARN pairing drops = 0: %llu (raise pairs=)\n%s" KC_STALLS_NONE,
		 st.dropped, KC_ACC_NONE);
	/* Only the last two lines are the table's and the teardowns'. */
	KUNIT_EXPECT_FALSE(test, seq_has_overflowed(&ctx->m));
	ctx->buf[ctx->m.count] = '\0';
	KUNIT_EXPECT_GT(test, ctx->m.count, strlen(want));
	if (ctx->m.count > strlen(want))
		KUNIT_EXPECT_STREQ(test, ctx->buf + ctx->m.count - strlen(want),
				   want);
	kc_seq_reset(ctx);
}

/*
 * The raw file, each probe line cut after its state: the test module
 * registers no probe, and a probe's hits are counted in per-CPU counters
 * that only kc_kretprobes_init() and kc_tracepoints_init() allocate.
 */
static void kc_render_raw_known(struct kunit *test)
{
	static const char want_head[] =
		"kvmchurn-raw 1\n"
		"unit\tus\n"
		"enabled\t1\n"
		"filter\tfirecracker\n"
		"slots\t252\n"
		"hist\tkvm_create_vm\t1\t1000\t1000\t35:1\n"
		"hist\tirqbypass_register\t12\t0\t0\t0:12\n"
		"hist\tsignal_to_exit\t1\t18446744073709551615\t281474976710655\t251:1\n"
		"hist\texit_to_reap\t0\t0\t0\t-\n"
		"hist\texit_files\t0\t0\t0\t-\n"
		"hist\texit_mmap\t100\t5050\t100\t1:1,2:1,3:1,4:1,5:1,6:1,7:1,8:2,9:2,10:2,11:2,12:4,13:4,14:4,15:4,16:8,17:8,18:8,19:8,20:16,21:16,22:5\n"
		"hist\tkvm_vm_release\t0\t0\t0\t-\n"
		"hist\tkvm_destroy_vm\t0\t0\t0\t-\n"
		"hist\tkvm_destroy_vcpus\t0\t0\t0\t-\n"
		"hist\tstage2_destroy\t0\t0\t0\t-\n"
		"hist\tkvm_mmu_teardown\t0\t0\t0\t-\n"
		"hist\tirqbypass_unregister\t10\t56\t6\t5:4,6:6\n"
		"hist\treclaim_direct\t0\t0\t0\t-\n"
		"hist\treclaim_memcg\t0\t0\t0\t-\n"
		"hist\tvcpu_create\t0\t0\t0\t-\n"
		"hist\tfirst_run_setup\t0\t0\t0\t-\n"
		"hist\tuevent_create\t0\t0\t0\t-\n"
		"hist\tuevent_destroy\t0\t0\t0\t-\n"
		"hist\tmmu_notifier_unregister\t0\t0\t0\t-\n"
		"hist\texit_to_reaped\t0\t0\t0\t-\n"
		"hist\tstartup\t0\t0\t0\t-\n"
		"hist\tst_create\t0\t0\t0\t-\n"
		"hist\tst_first_run\t0\t0\t0\t-\n"
		"hist\tst_vcpus\t0\t0\t0\t-\n"
		"hist\tst_ioctls\t0\t0\t0\t-\n"
		"hist\tst_user\t0\t0\t0\t-\n"
		"hist\tst_kernel\t0\t0\t0\t-\n"
		"hist\tst_runq\t0\t0\t0\t-\n"
		"hist\tst_blocked\t0\t0\t0\t-\n"
		"hist\tst_other\t0\t0\t0\t-\n"
		"hist\tteardown\t0\t0\t0\t-\n"
		"hist\ttd_destroy\t0\t0\t0\t-\n"
		"hist\ttd_release\t0\t0\t0\t-\n"
		"hist\ttd_task_work\t0\t0\t0\t-\n"
		"hist\ttd_exit_mmap\t0\t0\t0\t-\n"
		"hist\ttd_exit_files\t0\t0\t0\t-\n"
		"hist\ttd_threads\t0\t0\t0\t-\n"
		"hist\treap_wait\t0\t0\t0\t-\n"
		"hist\trcu_free\t0\t0\t0\t-\n"
		"hist\ttd_wake\t0\t0\t0\t-\n"
		"hist\ttd_runq\t0\t0\t0\t-\n"
		"hist\ttd_other\t0\t0\t0\t-\n"
		"counter\tsigterm\t0\n"
		"counter\tsigkill\t1\n"
		"counter\texit\t1\n"
		"counter\treap\t1\n"
		"counter\tirqbypass_register\t10\n"
		"counter\tirqbypass_unregister\t10\n"
		"probe\tkvm_create_vm\tkretprobe\tkvm_dev_ioctl\toff\n"
		"probe\tkvm_create_vm\tkretprobe\tkvm_arch_init_vm\toff\n"
		"probe\tirqbypass_register\tkretprobe\tirq_bypass_register_consumer\toff\n"
		"probe\texit_mmap\tkretprobe\texit_mmap\toff\n"
		"probe\texit_files\tkretprobe\texit_files\toff\n"
		"probe\tkvm_vm_release\tkretprobe\tkvm_vm_release\toff\n"
		"probe\tkvm_destroy_vm\tkretprobe\tkvm_destroy_vm\toff\n"
		"probe\tkvm_destroy_vcpus\tkretprobe\tkvm_destroy_vcpus\toff\n"
		"probe\tstage2_destroy\tkretprobe\tkvm_stage2_destroy\toff\n"
		"probe\tkvm_mmu_teardown\tkretprobe\tkvm_arch_flush_shadow_all\toff\n"
		"probe\tirqbypass_unregister\tkretprobe\tkvm_irqfd\toff\n"
		"probe\tirqbypass_unregister\tkretprobe\tirq_bypass_unregister_consumer\toff\n"
		"probe\tvcpu_create\tkretprobe\tkvm_vm_ioctl\toff\n"
		"probe\tfirst_run_setup\tkretprobe\tkvm_arch_vcpu_run_pid_change\toff\n"
		"probe\tuevent_create\tkretprobe\tkobject_uevent_env\toff\n"
		"probe\tuevent_destroy\tkretprobe\tkobject_uevent_env\toff\n"
		"probe\tmmu_notifier_unregister\tkretprobe\tmmu_notifier_unregister\toff\n"
		"probe\ttd_destroy\tkretprobe\tkvm_vcpu_release\toff\n"
		"probe\texit_to_reaped\tkprobe\tcgroup_task_release\toff\n"
		"probe\tstartup\tkretprobe\tkvm_mmu_load\toff\n"
		"probe\tsignal_to_exit\ttracepoint\tsignal_deliver\toff\n"
		"probe\texit_to_reap\ttracepoint\tsched_process_exit\toff\n"
		"probe\texit_to_reap\ttracepoint\tsched_process_free\toff\n"
		"probe\treclaim_direct\ttracepoint\tmm_vmscan_direct_reclaim_begin\toff\n"
		"probe\treclaim_direct\ttracepoint\tmm_vmscan_direct_reclaim_end\toff\n"
		"probe\treclaim_memcg\ttracepoint\tmm_vmscan_memcg_reclaim_begin\toff\n"
		"probe\treclaim_memcg\ttracepoint\tmm_vmscan_memcg_reclaim_end\toff\n"
		"probe\treap_wait\ttracepoint\tsignal_generate\toff\n";
	struct kc_render_ctx *ctx = test->priv;
	char *got, *want, *p, *line;
	struct kc_pair_stats st;
	size_t n = 0;

	got = kunit_kzalloc(test, KC_SEQ_SIZE + 1, GFP_KERNEL);
	want = kunit_kzalloc(test, sizeof(want_head) + 128, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	KUNIT_ASSERT_NOT_NULL(test, want);

	kc_known_state();
	kc_show_raw(&ctx->m, ctx->rd);
	KUNIT_ASSERT_FALSE(test, seq_has_overflowed(&ctx->m));
	ctx->buf[ctx->m.count] = '\0';
	/* Copy it, each probe line as "probe\tmetric\tkind\tsymbol\tstate". */
	p = ctx->buf;
	while ((line = strsep(&p, "\n")) && (*line || p)) {
		if (!strncmp(line, "probe\t", 6)) {
			char *f = line;
			unsigned int tabs = 0;

			while (*f && (*f != '\t' || ++tabs < 5))
				f++;
			*f = '\0';
		}
		n += scnprintf(got + n, KC_SEQ_SIZE + 1 - n, "%s\n", line);
	}
	kc_pairs_stats(&st);
	snprintf(want, sizeof(want_head) + 128,
		 "%spairs\t4096\t0\t%llu\t%llu\t0\naccounted-startup\t990:1,1000:1\n"
		 "accounted\t987:1,990:1,995:1\n",
		 want_head, st.dropped, st.aged);

	kc_seq_reset(ctx);
	memcpy(ctx->buf, got, n);
	ctx->m.count = n;
	kc_expect_text(test, want);
}

/* What kc_*_info() say of probes never registered. */
static void kc_render_probes_unregistered(struct kunit *test)
{
	static const struct {
		enum kc_metric metric;
		const char *symbol;
		const char *kind;	/* NULL: kretprobe */
	} krets[] = {
		{ KC_M_KVM_CREATE_VM, "kvm_dev_ioctl" },
		{ KC_M_KVM_CREATE_VM, "kvm_arch_init_vm" },
		{ KC_M_IRQBYPASS_REGISTER, "irq_bypass_register_consumer" },
		{ KC_M_EXIT_MMAP, "exit_mmap" },
		{ KC_M_EXIT_FILES, "exit_files" },
		{ KC_M_KVM_VM_RELEASE, "kvm_vm_release" },
		{ KC_M_KVM_DESTROY_VM, "kvm_destroy_vm" },
		{ KC_M_KVM_DESTROY_VCPUS, "kvm_destroy_vcpus" },
		{ KC_M_STAGE2_DESTROY, "kvm_stage2_destroy" },
		{ KC_M_KVM_MMU_TEARDOWN, "kvm_arch_flush_shadow_all" },
		{ KC_M_IRQBYPASS_UNREGISTER, "kvm_irqfd" },
		{ KC_M_IRQBYPASS_UNREGISTER, "irq_bypass_unregister_consumer" },
		{ KC_M_VCPU_CREATE, "kvm_vm_ioctl" },
		{ KC_M_FIRST_RUN_SETUP, "kvm_arch_vcpu_run_pid_change" },
		{ KC_M_UEVENT_CREATE, "kobject_uevent_env" },
		{ KC_M_UEVENT_DESTROY, "kobject_uevent_env" },
		{ KC_M_MMU_NOTIFIER_UNREGISTER, "mmu_notifier_unregister" },
		{ KC_M_TD_DESTROY, "kvm_vcpu_release" },
		{ KC_M_EXIT_TO_REAPED, "cgroup_task_release", "kprobe" },
		{ KC_M_STARTUP, "kvm_mmu_load" },
	}, tps[] = {
		{ KC_M_SIGNAL_TO_EXIT, "signal_deliver" },
		{ KC_M_EXIT_TO_REAP, "sched_process_exit" },
		{ KC_M_EXIT_TO_REAP, "sched_process_free" },
		{ KC_M_RECLAIM_DIRECT, "mm_vmscan_direct_reclaim_begin" },
		{ KC_M_RECLAIM_DIRECT, "mm_vmscan_direct_reclaim_end" },
		{ KC_M_RECLAIM_MEMCG, "mm_vmscan_memcg_reclaim_begin" },
		{ KC_M_RECLAIM_MEMCG, "mm_vmscan_memcg_reclaim_end" },
		{ KC_M_REAP_WAIT, "signal_generate" },
	};
	struct kc_probe_status st;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, kc_kretprobes_count(), ARRAY_SIZE(krets));
	KUNIT_ASSERT_EQ(test, kc_tracepoints_count(), ARRAY_SIZE(tps));
	for (i = 0; i < ARRAY_SIZE(krets); i++) {
		memset(&st, 0xff, sizeof(st));
		kc_kretprobe_status(i, &st);
		KUNIT_EXPECT_EQ_MSG(test, st.m, (int)krets[i].metric, "%u", i);
		KUNIT_EXPECT_STREQ(test, st.metric,
				   kc_metric_name(krets[i].metric));
		KUNIT_EXPECT_STREQ(test, st.kind,
				   krets[i].kind ?: "kretprobe");
		KUNIT_EXPECT_STREQ(test, st.symbol, krets[i].symbol);
		KUNIT_EXPECT_STREQ(test, st.state, "off");
		KUNIT_EXPECT_EQ_MSG(test, st.missed, 0ULL, "%s",
				    krets[i].symbol);
	}
	for (i = 0; i < ARRAY_SIZE(tps); i++) {
		memset(&st, 0xff, sizeof(st));
		kc_tracepoint_status(i, &st);
		KUNIT_EXPECT_EQ_MSG(test, st.m, (int)tps[i].metric, "%u", i);
		KUNIT_EXPECT_STREQ(test, st.kind, "tracepoint");
		KUNIT_EXPECT_STREQ(test, st.symbol, tps[i].symbol);
		KUNIT_EXPECT_STREQ(test, st.state, "off");
		KUNIT_EXPECT_EQ_MSG(test, st.missed, 0ULL, "%s",
				    tps[i].symbol);
	}
	KUNIT_EXPECT_STREQ(test, kc_probe_state_name(KC_PROBE_OFF), "off");
	KUNIT_EXPECT_STREQ(test, kc_probe_state_name(KC_PROBE_ATTACHED),
			   "attached");
	KUNIT_EXPECT_STREQ(test, kc_probe_state_name(KC_PROBE_WAITING),
			   "waiting for module");
	KUNIT_EXPECT_STREQ(test, kc_probe_state_name(KC_PROBE_ABSENT), "absent");
	KUNIT_EXPECT_STREQ(test, kc_probe_state_name(KC_PROBE_ERROR), "error");
}

/* The line of the text written since kc_seq_reset() that starts with @head. */
static bool kc_has_line(struct kc_render_ctx *ctx, const char *head)
{
	const char *p = ctx->buf;
	size_t n = strlen(head);

	ctx->buf[ctx->m.count] = '\0';
	for (; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, head, n))
			return true;
	return false;
}

/*
 * Every row of the metric table in every view: with a value in each metric
 * and each counter, `all` has each map, `summary` a row, `raw` a hist record
 * and hist/<metric> its histogram; `probes` lists every probe of the table.
 */
static void kc_render_every_row(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;
	char head[96];
	unsigned int i;

	for (i = 0; i < KC_NR_METRICS; i++)
		kc_hist_record(i, 100 + i);
	for (i = 0; i < KC_NR_COUNTERS; i++)
		kc_count(i);

	kc_show_all(&ctx->m, ctx->rd);
	for (i = 0; i < KC_NR_MAPS; i++) {
		kc_map_label(head, sizeof(head), &ctx->rd->maps[i]);
		strlcat(head, ":", sizeof(head));
		KUNIT_EXPECT_TRUE_MSG(test, kc_has_line(ctx, head), "all: %s",
				      head);
	}
	kc_seq_reset(ctx);

	kc_show_summary(&ctx->m, ctx->rd);
	for (i = 0; i < KC_NR_METRICS; i++) {
		snprintf(head, sizeof(head), "%-*s %9u", KC_METRIC_COL,
			 kc_metric_name(i), 1);
		KUNIT_EXPECT_TRUE_MSG(test, kc_has_line(ctx, head),
				      "summary: %s", kc_metric_name(i));
	}
	kc_seq_reset(ctx);

	kc_show_raw(&ctx->m, ctx->rd);
	for (i = 0; i < KC_NR_METRICS; i++) {
		snprintf(head, sizeof(head), KC_RAW_HIST "\t%s\t1\t%u\t",
			 kc_metric_name(i), 100 + i);
		KUNIT_EXPECT_TRUE_MSG(test, kc_has_line(ctx, head), "raw: %s",
				      kc_metric_name(i));
	}
	for (i = 0; i < KC_NR_COUNTERS; i++) {
		snprintf(head, sizeof(head), KC_RAW_COUNTER "\t%s\t1",
			 kc_counter_name(i));
		KUNIT_EXPECT_TRUE_MSG(test, kc_has_line(ctx, head), "raw: %s",
				      kc_counter_name(i));
	}
	kc_seq_reset(ctx);

	for (i = 0; i < KC_NR_METRICS; i++) {
		kc_show_hist(&ctx->m, i, ctx->rd);
		snprintf(head, sizeof(head), "@us_%s", kc_metric_seed(i));
		KUNIT_EXPECT_TRUE_MSG(test, kc_has_line(ctx, head),
				      "hist/%s", kc_metric_name(i));
		kc_seq_reset(ctx);
	}

	kc_show_probes(&ctx->m, ctx->rd);
	for (i = 0; i < KC_NR_PROBES; i++) {
		const struct kc_probe_desc *d = kc_probe_desc(i);

		snprintf(head, sizeof(head), "%-*s %-10s %-31s ", KC_METRIC_COL,
			 kc_metric_name(d->metric), d->kind, d->symbols[0]);
		KUNIT_EXPECT_TRUE_MSG(test, kc_has_line(ctx, head),
				      "probes: %s", d->symbols[0]);
	}
	kc_seq_reset(ctx);
}

/* After a reset every view starts again from nothing. */
static void kc_render_after_reset(struct kunit *test)
{
	struct kc_render_ctx *ctx = test->priv;

	kc_known_state();
	kc_hist_reset();
	kc_show_all(&ctx->m, ctx->rd);
	kc_expect_text(test, KC_ZERO_COUNTERS);
	kc_show_hist(&ctx->m, KC_M_EXIT_MMAP, ctx->rd);
	kc_expect_text(test, "");
	kc_show_summary(&ctx->m, ctx->rd);
	kc_expect_summary_empty(test);

	/* What comes after counts alone. */
	kc_hist_record(KC_M_KVM_CREATE_VM, 1000);
	kc_count(KC_C_EXIT);
	kc_show_all(&ctx->m, ctx->rd);
	kc_expect_text(test,
		       "@n_exit: 1\n"
		       "@n_reap: 0\n"
		       "@n_sigkill: 0\n"
		       "@n_sigterm: 0\n"
		       "@us_kvm_create_vm:\x20\n"
		       "[512, 1K)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		       "\n");
}

static struct kunit_case kc_render_cases[] = {
	KUNIT_CASE(kc_render_bar_width),
	KUNIT_CASE(kc_render_hist_one),
	KUNIT_CASE(kc_render_hist_labels),
	KUNIT_CASE(kc_render_all_known),
	KUNIT_CASE(kc_render_all_empty),
	KUNIT_CASE(kc_render_all_keys),
	KUNIT_CASE(kc_render_all_added),
	KUNIT_CASE(kc_render_summary_known),
	KUNIT_CASE(kc_render_summary_empty),
	KUNIT_CASE(kc_render_unit_ns),
	KUNIT_CASE(kc_render_counters),
	KUNIT_CASE(kc_render_checks),
	KUNIT_CASE(kc_render_checks_info),
	KUNIT_CASE(kc_render_checks_vmm),
	KUNIT_CASE(kc_render_checks_drops),
	KUNIT_CASE(kc_render_raw_known),
	KUNIT_CASE(kc_render_probes_unregistered),
	KUNIT_CASE(kc_render_after_reset),
	KUNIT_CASE(kc_render_every_row),
	{}
};

static struct kunit_suite kc_render_suite = {
	.name = "kvmchurn_render",
	.init = kc_render_test_init,
	.exit = kc_render_test_exit,
	.test_cases = kc_render_cases,
};

kunit_test_suite(kc_render_suite);
