// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn check: the seed script's END checks, computed from the raw file
 * (the same rules as the module's `checks` file), with an exit status for
 * scripts.
 */
#include <string.h>

#include "driver.h"

const char check_usage[] =
	"Usage: kvmchurn check [--json]\n"
	"\n"
	"The seed script's END checks, each a line with its verdict and numbers:\n"
	"  exit = reap         every traced exit was reaped, but for the exits still\n"
	"                      waiting for their reap (at most the pairing entries in\n"
	"                      use)\n"
	"  irqbypass register = unregister\n"
	"                      as many consumers unregistered as registered; INFO, not\n"
	"                      a warning, where none registered but some unregistered:\n"
	"                      the host cannot post interrupts (no APICv/AVIC or IOMMU\n"
	"                      posting), so KVM registers no consumer\n"
	"  irqbypass unregister per VM in 8-11\n"
	"                      8 to 11 irqfd unregisters per VM created\n"
	"  nmissed = 0         no kretprobe call went untimed (else raise maxactive=)\n"
	"  pairing drops = 0   no start event lost for a full pairing table (else raise\n"
	"                      pairs=)\n"
	"The verdicts are OK, WARN or INFO; the text is the module's `checks` file.\n"
	"\n"
	"Options:\n"
	"  --json      one JSON object: status (\"ok\" or \"warn\") and checks (check,\n"
	"              verdict, text, values: the numbers by name)\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0 when no check warns (INFO included), 1 when one warns, 2 when\n"
	"the module's raw file cannot be read.\n";

enum verdict { OK, WARN, INFO };

struct check {
	enum verdict verdict;
	const char *name;
	char detail[256];
	const char *keys[3];
	__u64 values[3];
};

#define NR_CHECKS 5

static void set(struct check *c, bool ok, const char *name)
{
	c->verdict = ok ? OK : WARN;
	c->name = name;
}

static void compute(const struct kc_snap *s, struct check *c)
{
	__u64 exits = s->counter[KC_C_EXIT], reaps = s->counter[KC_C_REAP];
	__u64 reg = s->counter[KC_C_IRQBYPASS_REGISTER];
	__u64 unreg = s->counter[KC_C_IRQBYPASS_UNREGISTER];
	__u64 vms = s->hist[KC_M_KVM_CREATE_VM].count;
	__u64 open = s->pairs_used, missed = kc_snap_missed_total(s);

	memset(c, 0, NR_CHECKS * sizeof(*c));
	/*
	 * The module allows for the exits waiting for their reap; raw gives only
	 * the pairing entries in use, of every kind: a bound, exact when 0.
	 */
	set(&c[0], exits <= reaps + open && reaps <= exits + open, "exit = reap");
	snprintf(c[0].detail, sizeof(c[0].detail), "exit %llu, reap %llu, %s%llu not reaped yet",
		 exits, reaps, open ? "up to " : "", open);
	c[0].keys[0] = "exit", c[0].values[0] = exits;
	c[0].keys[1] = "reap", c[0].values[1] = reaps;
	c[0].keys[2] = "pairs_in_use", c[0].values[2] = open;

	set(&c[1], reg == unreg, "irqbypass register = unregister");
	if (!reg && unreg) {
		c[1].verdict = INFO;
		snprintf(c[1].detail, sizeof(c[1].detail),
			 "register 0, unregister %llu: this host does not post interrupts (no APICv/AVIC or IOMMU posting), so KVM registers no consumer",
			 unreg);
	} else {
		snprintf(c[1].detail, sizeof(c[1].detail), "register %llu, unregister %llu",
			 reg, unreg);
	}
	c[1].keys[0] = "register", c[1].values[0] = reg;
	c[1].keys[1] = "unregister", c[1].values[1] = unreg;

	set(&c[2], !vms || (unreg >= 8 * vms && unreg <= 11 * vms),
	    "irqbypass unregister per VM in 8-11");
	if (vms)
		snprintf(c[2].detail, sizeof(c[2].detail), "%llu for %llu VMs", unreg, vms);
	else
		snprintf(c[2].detail, sizeof(c[2].detail), "no VM created");
	c[2].keys[0] = "unregister", c[2].values[0] = unreg;
	c[2].keys[1] = "vms", c[2].values[1] = vms;

	set(&c[3], !missed, "nmissed = 0");
	snprintf(c[3].detail, sizeof(c[3].detail), "%llu%s", missed,
		 missed ? " (raise maxactive=)" : "");
	c[3].keys[0] = "nmissed", c[3].values[0] = missed;

	set(&c[4], !s->pairs_dropped, "pairing drops = 0");
	snprintf(c[4].detail, sizeof(c[4].detail), "%llu%s", s->pairs_dropped,
		 s->pairs_dropped ? " (raise pairs=)" : "");
	c[4].keys[0] = "dropped", c[4].values[0] = s->pairs_dropped;
}

static const char *const verdicts[] = { [OK] = "OK", [WARN] = "WARN", [INFO] = "INFO" };

static void print_text(const struct kc_snap *s)
{
	static const enum kc_style styles[] = {
		[OK] = KC_GOOD, [WARN] = KC_BAD, [INFO] = KC_INFO,
	};
	struct check c[NR_CHECKS];

	compute(s, c);
	for (int i = 0; i < NR_CHECKS; i++)
		printf("%s%-4s%s %s: %s\n", kc_style(styles[c[i].verdict]),
		       verdicts[c[i].verdict], kc_style(KC_OFF), c[i].name, c[i].detail);
}

static bool warns(const struct check *c)
{
	for (int i = 0; i < NR_CHECKS; i++)
		if (c[i].verdict == WARN)
			return true;
	return false;
}

static void print_json(const struct kc_snap *s)
{
	struct check c[NR_CHECKS];
	struct kc_json j;

	compute(s, c);
	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_str(&j, "status", warns(c) ? "warn" : "ok");
	kc_json_array(&j, "checks");
	for (int i = 0; i < NR_CHECKS; i++) {
		kc_json_object(&j, NULL);
		kc_json_str(&j, "check", c[i].name);
		kc_json_str(&j, "verdict", verdicts[c[i].verdict]);
		kc_json_str(&j, "text", c[i].detail);
		kc_json_object(&j, "values");
		for (int k = 0; k < 3 && c[i].keys[k]; k++)
			kc_json_uint(&j, c[i].keys[k], c[i].values[k]);
		kc_json_end(&j);
		kc_json_end(&j);
	}
	kc_json_end(&j);
	kc_json_end(&j);
	putchar('\n');
}

static int status(const struct kc_snap *s)
{
	struct check c[NR_CHECKS];

	compute(s, c);
	return warns(c) ? KC_EXIT_FAILURES : KC_EXIT_OK;
}

static const struct kc_view view = { print_text, print_json, status };

int cmd_check(int argc, char *argv[], const struct kc_global *g)
{
	return kc_view_command(argc, argv, g, "check", check_usage, &view);
}
