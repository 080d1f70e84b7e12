// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn plot: pictures, as SVG. The VMs' timeline (the default), two
 * snapshots stage by stage (--diff), the histograms (--hist). plot/ draws.
 */
#include <string.h>
#include <unistd.h>

#include "driver.h"
#include "plot/plot.h"

const char plot_usage[] =
	"Usage: kvmchurn plot [-o FILE] [--slowest] [-n N]\n"
	"       kvmchurn plot --diff [-o FILE] A B\n"
	"       kvmchurn plot --hist [-o FILE] [SNAPSHOT]\n"
	"\n"
	"Draws the module's numbers as an SVG picture, as systemd-analyze plot draws\n"
	"a boot. Self-contained (no script, no font or file fetched): a browser and an\n"
	"image viewer open it alike; hovering a part gives its numbers.\n"
	"\n"
	"By default the timeline of the finished VMs of the vms file (`kvmchurn vms`):\n"
	"a row a VM, wall-clock time across, so that VMs that overlap are seen\n"
	"overlapping. Its start-up (KVM_CREATE_VM to its first vCPU's first entry)\n"
	"and its teardown (the first fatal signal, or exit, to the leader's free) are\n"
	"each a run of coloured parts, the parts that fill them (st_create ...\n"
	"st_other, td_destroy ... td_other), grey for the time nothing names; a thin\n"
	"line while the VM ran between. A part is drawn where it first held the\n"
	"instant; one that held it in more than one stretch is drawn once, there.\n"
	"The header: host, kernel and module (of the running module; a folder given\n"
	"with -d is named instead), filter, unit, the time of the first VM, and how\n"
	"much of each window its parts name.\n"
	"\n"
	"With --diff, two snapshots (files of 'kvmchurn snapshot' or 'kvmchurn merge',\n"
	"or folders that hold a raw file): each stage's p50 and p99 of A and of B\n"
	"as bars on one logarithmic scale, and the change from A to B, marked where\n"
	"it is 25 % or more (within that, it is the histograms' resolution).\n"
	"\n"
	"With --hist, every metric's histogram as bars, in the seed's log2 buckets,\n"
	"with each count and p50, p90 and p99 marked: of the module, or of SNAPSHOT.\n"
	"\n"
	"Options:\n"
	"  -o FILE     write to FILE, replaced in one rename ('-': standard output,\n"
	"              the default, which must not be a terminal)\n"
	"  --slowest   the slowest VMs (vms_slowest=, by exit_to_reap) instead of\n"
	"              the last\n"
	"  -n N        the N newest (the N slowest), 1-1000000\n"
	"  --diff      two snapshots, A before and B after\n"
	"  --hist      the histograms\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0; 1 when the vms file has no finished VM to draw; 2 when a\n"
	"file cannot be read or FILE written; 64 for a usage error.\n";

enum { OPT_OUTPUT = 1, OPT_SLOWEST, OPT_N, OPT_DIFF, OPT_HIST, OPT_HELP };

static const struct kc_opt options[] = {
	{ OPT_OUTPUT, 'o', NULL, true },
	{ OPT_SLOWEST, 0, "slowest", false },
	{ OPT_N, 'n', NULL, true },
	{ OPT_DIFF, 0, "diff", false },
	{ OPT_HIST, 0, "hist", false },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

static int timeline(const struct kc_global *g, const char *out, bool slowest,
		    unsigned long count)
{
	struct kc_snap snap = { .has_filter = false };
	struct kc_plot_source src;
	struct kc_timeline tl;
	struct kc_vms v;
	char path[4096];
	int rc;

	/* the filter, for the header: a folder of vms alone has none to give */
	snprintf(path, sizeof(path), "%s/raw", g->dir);
	if (!access(path, F_OK)) {
		rc = kc_read_module("plot", g, &snap, NULL, NULL);
		if (rc)
			return rc;
	}
	kc_plot_source_of(g, snap.has_filter ? snap.filter : NULL, &src);
	kc_snap_free(&snap);
	rc = kc_vms_read("plot", g, slowest, count, &v, path, sizeof(path));
	if (rc)
		return rc;
	if (v.n == v.first) {
		kc_err("plot", "%s: no finished VM to draw (%s): run a load, or see `kvmchurn vms`",
		       path, slowest ? KC_VMS_SLOWEST : KC_VMS_LAST);
		kc_vms_free(&v);
		return KC_EXIT_FAILURES;
	}
	tl = (struct kc_timeline){ .vms = &v, .src = &src, .slowest = slowest };
	rc = kc_write_output("plot", out, kc_plot_timeline, &tl);
	kc_vms_free(&v);
	return rc;
}

static int compare(const char *out, char *a, char *b)
{
	struct kc_snap snap[2];
	struct kc_compare c;
	int rc;

	if (kc_read_snapshot("plot", a, &snap[0]))
		return KC_EXIT_CANNOT_START;
	if (kc_read_snapshot("plot", b, &snap[1])) {
		kc_snap_free(&snap[0]);
		return KC_EXIT_CANNOT_START;
	}
	c = (struct kc_compare){ .snap = { &snap[0], &snap[1] }, .path = { a, b } };
	rc = kc_write_output("plot", out, kc_plot_compare, &c);
	kc_snap_free(&snap[0]);
	kc_snap_free(&snap[1]);
	return rc;
}

static int hists(const struct kc_global *g, const char *out, char *file)
{
	struct kc_plot_source src;
	struct kc_global from = *g;
	struct kc_hists hs;
	struct kc_snap s;
	int rc;

	if (file) {
		if (kc_read_snapshot("plot", file, &s))
			return KC_EXIT_CANNOT_START;
		from.dir = file;
	} else {
		rc = kc_read_module("plot", g, &s, NULL, NULL);
		if (rc)
			return rc;
	}
	kc_plot_source_of(&from, s.has_filter ? s.filter : NULL, &src);
	hs = (struct kc_hists){ .snap = &s, .src = &src };
	rc = kc_write_output("plot", out, kc_plot_hists, &hs);
	kc_snap_free(&s);
	return rc;
}

int cmd_plot(int argc, char *argv[], const struct kc_global *g)
{
	bool slowest = false, diff = false, hist = false;
	const char *out = "-";
	unsigned long count = 0;
	struct kc_opt_parser p;
	int id, operands;

	kc_opt_init(&p, "plot", argc, argv, 1);
	while ((id = kc_opt_next(&p, options)) != KC_OPT_END) {
		switch (id) {
		case OPT_OUTPUT:
			if (kc_opt_path(&p, "a file name", &out))
				return KC_EXIT_USAGE;
			break;
		case OPT_SLOWEST:
			slowest = true;
			break;
		case OPT_N:
			if (kc_opt_ulong(&p, 1, 1000000, &count))
				return KC_EXIT_USAGE;
			break;
		case OPT_DIFF:
			diff = true;
			break;
		case OPT_HIST:
			hist = true;
			break;
		case OPT_HELP:
			fputs(plot_usage, stdout);
			return KC_EXIT_OK;
		default:
			return KC_EXIT_USAGE;
		}
	}
	operands = argc - p.index;
	if (diff && hist)
		return kc_usage_error("plot", "--diff and --hist are two pictures: give one");
	if ((diff || hist) && (slowest || count))
		return kc_usage_error("plot", "--slowest and -n are the timeline's");
	if (diff && operands != 2)
		return kc_usage_error("plot", "--diff takes two snapshots, A and B");
	if (hist && operands > 1)
		return kc_no_operands("plot", argc, argv, p.index + 1);
	if (!diff && !hist && operands)
		return kc_no_operands("plot", argc, argv, p.index);
	if (!strcmp(out, "-") && isatty(STDOUT_FILENO)) {
		kc_err("plot", "standard output is a terminal, not a place for an SVG: give -o FILE.svg, or redirect it");
		return KC_EXIT_USAGE;
	}
	if (diff)
		return compare(out, argv[p.index], argv[p.index + 1]);
	if (hist)
		return hists(g, out, operands ? argv[p.index] : NULL);
	return timeline(g, out, slowest, count);
}
