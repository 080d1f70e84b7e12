// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn check: the seed script's END checks, computed from the raw file
 * (the same rules as the module's `checks` file), with an exit status for
 * scripts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "lib/live.h"

const char check_usage[] =
	"Usage: kvmchurn check [--json]\n"
	"\n"
	"The seed script's END checks, each a line with its verdict and numbers:\n"
	"  exit = reap         every traced exit was reaped, but for the exits still\n"
	"                      waiting for their reap (a raw file of an older module\n"
	"                      gives only a bound: the pairing entries in use)\n"
	"  irqbypass register = unregister\n"
	"                      as many consumers unregistered as registered; INFO, not\n"
	"                      a warning, where none registered but some unregistered:\n"
	"                      the host cannot post interrupts (no APICv/AVIC or IOMMU\n"
	"                      posting), so KVM registers no consumer\n"
	"  irqbypass unregister per VM in 8-11\n"
	"                      8 to 11 irqfd unregisters per VM created; INFO, not\n"
	"                      judged, unless the filter is firecracker alone (the\n"
	"                      range is Firecracker's: another VMM, or \"*\", makes\n"
	"                      as many irqfds as its devices ask)\n"
	"  nmissed = 0         no kretprobe call went untimed (else raise maxactive=)\n"
	"  pairing drops = 0   no start event lost for a full pairing table (else raise\n"
	"                      pairs=)\n"
	"  stalls              no live VM in one stage for stall_ms= (10000) or longer,\n"
	"                      from the vms file's live records: a WARN a stage (the\n"
	"                      innermost: one global wait is one cause), its oldest\n"
	"                      VMs under it (comm, tgid, the task in the stage, the\n"
	"                      stage outermost first, for how long, since when) and\n"
	"                      the oldest one's kernel stack as the module took it\n"
	"                      (6.7 and later; before, the line names /proc/TASK/stack,\n"
	"                      which has it); not shown for a module without live\n"
	"                      records\n"
	"The verdicts are OK, WARN or INFO; the text is the module's `checks` file.\n"
	"\n"
	"Options:\n"
	"  --json      one JSON object: status (\"ok\" or \"warn\"), checks (check,\n"
	"              verdict, text, values: the numbers by name) and stalls (unit,\n"
	"              stall_ms, live, stalled, and groups: stage, vms, oldest_age,\n"
	"              oldest: the VMs as vms --live --json gives them; null for a\n"
	"              module without live records)\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0 when no check warns (INFO included), 1 when one warns (a stall\n"
	"included), 2 when the module's raw or vms file cannot be read.\n";

/* The module's own evaluation (kvmchurn_rules.h), from the raw file. */
static void compute(const struct kc_snap *s, struct kc_check *c)
{
	struct kc_check_in in = {
		.exits = s->counter[KC_C_EXIT],
		.reaps = s->counter[KC_C_REAP],
		.registers = s->counter[KC_C_IRQBYPASS_REGISTER],
		.unregisters = s->counter[KC_C_IRQBYPASS_UNREGISTER],
		.vms = s->hist[KC_M_KVM_CREATE_VM].count,
		.missed = kc_snap_missed(s, -1),
		.dropped = s->pairs_dropped,
		/* a raw file without a filter record: judged, as the seed does */
		.firecracker = !s->has_filter || kc_filter_firecracker(s->filter),
	};

	/*
	 * The exits waiting for their reap, as the module counts them; a raw
	 * file of a module before that field gives only the pairing entries in
	 * use, of every kind: a bound, exact when 0.
	 */
	for (unsigned int w = 0; w < KC_NR_WINDOWS; w++)
		kc_accounted_stats(s->accounted[w], &in.accounted[w]);
	in.pending_exact = s->has_not_reaped;
	in.pending = s->has_not_reaped ? s->pairs_not_reaped : s->pairs_used;
	kc_checks_eval(&in, c);
}

static void print_text(const struct kc_snap *s, const struct kc_live_set *ls)
{
	static const enum kc_style styles[] = {
		[KC_VERDICT_OK] = KC_GOOD, [KC_VERDICT_WARN] = KC_BAD,
		[KC_VERDICT_INFO] = KC_INFO,
	};
	struct kc_check c[KC_NR_CHECKS];

	compute(s, c);
	for (int i = 0; i < KC_NR_CHECKS; i++)
		printf("%s%-4s%s %s: %s\n", kc_style(styles[c[i].verdict]),
		       kc_verdict_name(c[i].verdict), kc_style(KC_OFF), c[i].name, c[i].text);
	if (ls->known)
		kc_live_print_stalls(ls);
}

static void print_json(const struct kc_snap *s, const struct kc_live_set *ls)
{
	struct kc_check c[KC_NR_CHECKS];
	struct kc_json j;
	bool warn;

	compute(s, c);
	warn = kc_checks_warn(c) || kc_live_stalled_count(ls);
	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_str(&j, "status", warn ? "warn" : "ok");
	kc_json_array(&j, "checks");
	for (int i = 0; i < KC_NR_CHECKS; i++) {
		kc_json_object(&j, NULL);
		kc_json_str(&j, "check", c[i].name);
		kc_json_str(&j, "verdict", kc_verdict_name(c[i].verdict));
		kc_json_str(&j, "text", c[i].text);
		kc_json_object(&j, "values");
		for (unsigned int k = 0; k < c[i].nvalues; k++)
			kc_json_uint(&j, c[i].keys[k], c[i].values[k]);
		kc_json_end(&j);
		kc_json_end(&j);
	}
	kc_json_end(&j);
	if (ls->known)
		kc_live_json_stalls(&j, ls);
	else
		kc_json_null(&j, "stalls");
	kc_json_end(&j);
	putchar('\n');
}

int cmd_check(int argc, char *argv[], const struct kc_global *g)
{
	struct kc_check c[KC_NR_CHECKS];
	struct kc_live_set ls;
	struct kc_snap *s;
	bool json = false;
	int rc, first;

	rc = kc_simple_options(argc, argv, "check", check_usage, &json, &first);
	if (rc < 0)
		rc = kc_no_operands("check", argc, argv, first);
	if (rc >= 0)
		return rc;
	s = calloc(1, sizeof(*s));	/* 28 KiB of histograms: not on the stack */
	if (!s) {
		kc_err("check", "%s", strerror(errno));
		return KC_EXIT_CANNOT_START;
	}
	rc = kc_read_module("check", g, s, NULL, NULL);
	if (!rc) {
		rc = kc_live_read("check", g, &ls);
		if (!rc) {
			compute(s, c);
			rc = kc_checks_warn(c) || kc_live_stalled_count(&ls) ?
			     KC_EXIT_FAILURES : KC_EXIT_OK;
			(json ? print_json : print_text)(s, &ls);
			kc_live_free(&ls);
		}
		kc_snap_free(s);
	}
	free(s);
	return rc;
}
