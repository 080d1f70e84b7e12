// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn client: global options and the command table. Help is printed
 * from the same table that dispatches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "kvmchurn_abi.h"
#include "lib/folder.h"

static const struct kc_command kc_commands[] = {
	{ "show", cmd_show, NULL,
	  "histograms in bpftrace's text, in the seed's reading order",
	  show_print_usage },
	{ "summary", cmd_summary, summary_usage,
	  "count, avg, p50, p90, p99, max and misses of every metric", NULL },
	{ "watch", cmd_watch, watch_usage,
	  "every interval, each metric's count, rate, p50 and p99 in it", NULL },
	{ "check", cmd_check, check_usage,
	  "the seed's END checks; exit status 1 when one warns", NULL },
	{ "probes", cmd_probes, probes_usage,
	  "each probe's symbol, state, hits and misses", NULL },
	{ "filter", cmd_filter, filter_usage,
	  "print or set the names of the processes traced", NULL },
	{ "reset", cmd_reset, reset_usage, "start every count again from zero", NULL },
	{ "enable", cmd_enable, enable_usage, "record again", NULL },
	{ "disable", cmd_disable, disable_usage,
	  "stop recording; the probes stay attached", NULL },
	{ "snapshot", cmd_snapshot, snapshot_usage,
	  "save the raw numbers for a later diff", NULL },
	{ "diff", cmd_diff, diff_usage,
	  "compare two snapshots, with the seed's two estimates", NULL },
	{ "merge", cmd_merge, merge_usage,
	  "add up the snapshots of many hosts into one", NULL },
	{ "export", cmd_export, export_usage,
	  "the numbers for Prometheus' node_exporter textfile collector", NULL },
	{ "dump", cmd_dump, dump_usage,
	  "the numbers as tab-separated records for scripts", NULL },
	{ "vms", cmd_vms, vms_usage,
	  "which VM was slow: the last and the slowest VMs, every stage of each", NULL },
	{ "plot", cmd_plot, plot_usage,
	  "pictures as SVG: the VMs' timeline, two snapshots, the histograms", NULL },
	{ "load", cmd_load, load_usage,
	  "create and destroy KVM VMs in the shape of a Firecracker pool", NULL },
	{ "downtime", cmd_downtime, downtime_usage,
	  "QEMU migration downtime, checkpoint by checkpoint, from its trace", NULL },
	{ "help", cmd_help, help_usage, "print the usage of a command", NULL },
};

static const struct {
	int code;
	const char *meaning;
} kc_exit_codes[] = {
	{ KC_EXIT_OK, "success; check: every check passed" },
	{ KC_EXIT_FAILURES, "load: some VMs failed, or the run was interrupted; check: a check\n"
	  "      warns; downtime: no downtime event in the input" },
	{ KC_EXIT_CANNOT_START, "cannot start or read: no KVM device, the first VM refused, the\n"
	  "      module not loaded, debugfs not mounted, not root, a raw file this\n"
	  "      client cannot read, a control write refused; merge: snapshots that\n"
	  "      cannot be added up; downtime: a trace file or QMP socket that cannot\n"
	  "      be read, a QEMU without the events" },
	{ KC_EXIT_USAGE, "usage error" },
};

const struct kc_command *kc_find_command(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(kc_commands); i++)
		if (!strcmp(kc_commands[i].name, name))
			return &kc_commands[i];
	return NULL;
}

void kc_print_main_usage(FILE *f)
{
	fprintf(f, "Usage: kvmchurn [-d DIR] [COMMAND [OPTIONS]]\n\n"
		   "Where the kernel spends its time when KVM VMs are created and destroyed.\n"
		   "Without a COMMAND, runs show.\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(kc_commands); i++)
		fprintf(f, "  %-9s %s\n", kc_commands[i].name,
			kc_commands[i].description);
	fprintf(f, "\nOptions:\n"
		   "  -d DIR      the module's folder (default %s, or\n"
		   "              %s without debugfs), or any folder with its files\n"
		   "  -h, --help  print this help\n"
		   "  --version   print the version\n"
		   "\nExit status:\n", KC_DEFAULT_DIR, KC_PROC_DIR);
	for (size_t i = 0; i < ARRAY_SIZE(kc_exit_codes); i++)
		fprintf(f, "  %-3d %s\n", kc_exit_codes[i].code,
			kc_exit_codes[i].meaning);
	fprintf(f, "\nRun 'kvmchurn help COMMAND' for the options of a command.\n");
}

enum { OPT_DIR = 1, OPT_HELP, OPT_VERSION };

static const struct kc_opt global_opts[] = {
	{ OPT_DIR, 'd', NULL, true },
	{ OPT_HELP, 'h', "help", false },
	{ OPT_VERSION, 0, "version", false },
	{ 0, 0, NULL, false },
};

static int dispatch(int argc, char *argv[])
{
	struct kc_global g = { .dir = NULL, .params = KC_PARAMS_DIR };
	const char *params = getenv("KVMCHURN_PARAMS");
	struct kc_opt_parser p;
	const struct kc_command *cmd;
	int id;

	if (params && *params)
		g.params = params;
	kc_opt_init(&p, NULL, argc, argv, 1);
	while ((id = kc_opt_next(&p, global_opts)) != KC_OPT_END) {
		switch (id) {
		case OPT_DIR:
			g.dir = p.value;
			break;
		case OPT_HELP:
			kc_print_main_usage(stdout);
			return KC_EXIT_OK;
		case OPT_VERSION:
			printf("kvmchurn %s\n", KVMCHURN_VERSION);
			return KC_EXIT_OK;
		default:
			return KC_EXIT_USAGE;
		}
	}
	if (!g.dir)
		g.dir = kc_module_dir();
	/* No command shows the histograms, as `wg` alone shows its interfaces. */
	if (p.index >= argc) {
		char *show[] = { "show", NULL };

		return cmd_show(1, show, &g);
	}
	cmd = kc_find_command(argv[p.index]);
	if (!cmd)
		return kc_usage_error(NULL, "unknown command '%s'", argv[p.index]);
	return cmd->run(argc - p.index, argv + p.index, &g);
}

int main(int argc, char *argv[])
{
	int rc = dispatch(argc, argv);

	/* A full disk or a closed pipe must not pass for success. */
	if (fflush(stdout) || ferror(stdout)) {
		perror("kvmchurn: writing the output");
		if (rc == KC_EXIT_OK)
			rc = KC_EXIT_FAILURES;
	}
	return rc;
}
