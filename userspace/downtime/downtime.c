// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn downtime: a QEMU migration's downtime, checkpoint by checkpoint,
 * from the vmstate_downtime_* trace events of QEMU 8.2 and later
 * (migration.h), over one migration or many; and switching those events on
 * or off in a running QEMU over QMP (qmp.c). This file: the options, what
 * runs, and the exit status (downtime.h names the others).
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "downtime.h"
#include "qmp.h"

const char downtime_usage[] =
	"Usage: kvmchurn downtime [--json | --prometheus [-o FILE]] [--hist] [FILE...]\n"
	"       kvmchurn downtime --follow [--json] [FILE]\n"
	"       kvmchurn downtime --qmp SOCKET --enable | --disable\n"
	"\n"
	"Reads QEMU trace output (the log backend: -D FILE, QEMU's stderr, a libvirt\n"
	"domain log; standard input when no FILE is given or FILE is -) and reports\n"
	"each migration's downtime from QEMU's vmstate_downtime_* events (QEMU 8.2 and\n"
	"later, switched on with -trace 'vmstate_downtime*' or --qmp ... --enable):\n"
	"\n"
	"  each migration, one a side (src: the source, dst: the destination) and\n"
	"  mode (precopy, postcopy): its checkpoints in order with the time from each\n"
	"  to the next, the total from the first to the last, and its slowest devices\n"
	"  (vmstate_downtime_save and _load); then, over all migrations, the summary\n"
	"  columns of 'kvmchurn summary' for each segment and each device.\n"
	"\n"
	"Line forms: TID@SEC.USEC:EVENT ARGS (-msg timestamp=on, QEMU up to 10),\n"
	"YYYY-MM-DDTHH:MM:SS[.FRACTION]Z EVENT ARGS (QEMU 11), and EVENT ARGS without\n"
	"a time, which gives the order of the checkpoints and the devices but no\n"
	"times. Other lines are skipped and counted. Events are kept apart by input,\n"
	"thread and side; a migration whose first or last checkpoint is missing, that\n"
	"a new one interrupts, or whose checkpoints come out of order is shown as\n"
	"incomplete, with why, and never merged with another.\n"
	"\n"
	"Options:\n"
	"  --json          one JSON object: migrations (side, mode, complete, why,\n"
	"                  source, first_line, last_line, thread, total_us,\n"
	"                  checkpoints, segments [{from, to, us}], devices [{idstr,\n"
	"                  instance_id, type, op, us}]), segments and devices (by\n"
	"                  name: count, sum, avg, p50, p90, p99, max, in us), lines\n"
	"  --prometheus    Prometheus' text format: kvmchurn_migration_segment_seconds\n"
	"                  {side, from, to} and kvmchurn_migration_device_seconds\n"
	"                  {op, type, idstr, instance_id} histograms (le: powers of two\n"
	"                  of 1 us, to 2^36 us), kvmchurn_migrations_total{side, mode,\n"
	"                  complete}\n"
	"  -o FILE         with --prometheus: write FILE, replaced in one rename\n"
	"  --hist          also each segment's and device's histogram, in the text of\n"
	"                  'kvmchurn show'\n"
	"  --follow        keep reading FILE as it grows (from its start; a file cut\n"
	"                  short or replaced is read again from its start) and print\n"
	"                  each migration when it ends; with --json one object a line;\n"
	"                  stops on SIGINT or SIGTERM, then prints the summary\n"
	"  --qmp SOCKET    the QMP socket of a running QEMU (-qmp unix:SOCKET,...)\n"
	"  --enable        with --qmp: switch the vmstate_downtime_* events on; they\n"
	"                  go where the QEMU writes its trace (-D FILE, or stderr)\n"
	"  --disable       with --qmp: switch them off\n"
	"  -h, --help      print this help\n"
	"\n"
	"Exit status: 0; 1 when the input holds no downtime event; 2 when a FILE or\n"
	"the QMP socket cannot be read, or the QEMU has no such events (before 8.2).\n";

enum {
	OPT_JSON = 1, OPT_PROM, OPT_OUTPUT, OPT_HIST, OPT_FOLLOW, OPT_QMP,
	OPT_ENABLE, OPT_DISABLE, OPT_HELP,
};

static const struct kc_opt options[] = {
	{ OPT_JSON, 0, "json", false },
	{ OPT_PROM, 0, "prometheus", false },
	{ OPT_OUTPUT, 'o', NULL, true },
	{ OPT_HIST, 0, "hist", false },
	{ OPT_FOLLOW, 0, "follow", false },
	{ OPT_QMP, 0, "qmp", true },
	{ OPT_ENABLE, 0, "enable", false },
	{ OPT_DISABLE, 0, "disable", false },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

/* What the options ask for besides struct downtime's settings. */
struct args {
	const char *qmp;
	int enable;		/* --enable 1, --disable 0, neither -1 */
	int first;		/* the first FILE */
};

/* The options into @dt and @a; -1 to go on, or an exit status. */
static int parse_args(int argc, char *argv[], struct downtime *dt, struct args *a)
{
	struct kc_opt_parser p;
	int id;

	kc_opt_init(&p, "downtime", argc, argv, 1);
	while ((id = kc_opt_next(&p, options)) != KC_OPT_END) {
		switch (id) {
		case KC_OPT_ERROR:
			return KC_EXIT_USAGE;
		case OPT_HELP:
			fputs(downtime_usage, stdout);
			return KC_EXIT_OK;
		case OPT_JSON:
			dt->json = true;
			break;
		case OPT_PROM:
			dt->prom = true;
			break;
		case OPT_OUTPUT:
			if (kc_opt_path(&p, "a file name", &dt->out))
				return KC_EXIT_USAGE;
			break;
		case OPT_HIST:
			dt->hist = true;
			break;
		case OPT_FOLLOW:
			dt->follow = true;
			break;
		case OPT_QMP:
			if (kc_opt_path(&p, "a socket path", &a->qmp))
				return KC_EXIT_USAGE;
			break;
		case OPT_ENABLE:
		case OPT_DISABLE:
			if (a->enable >= 0)
				return kc_usage_error("downtime", "--enable and --disable go alone");
			a->enable = id == OPT_ENABLE;
			break;
		}
	}
	a->first = p.index;
	return -1;
}

/* The options that do not go together; -1 when they do. */
static int check_args(int argc, const struct downtime *dt, const struct args *a)
{
	if (a->qmp || a->enable >= 0) {
		if (!a->qmp || a->enable < 0)
			return kc_usage_error("downtime", "--qmp SOCKET goes with --enable or --disable");
		if (dt->json || dt->prom || dt->hist || dt->follow || a->first < argc)
			return kc_usage_error("downtime", "--qmp takes no other option and no FILE");
		return -1;
	}
	if (dt->json && dt->prom)
		return kc_usage_error("downtime", "--json and --prometheus go alone");
	if (strcmp(dt->out, "-") && !dt->prom)
		return kc_usage_error("downtime", "-o goes with --prometheus");
	if (dt->follow && (dt->prom || dt->hist))
		return kc_usage_error("downtime", "--follow goes with --json only");
	if (dt->follow && argc - a->first > 1)
		return kc_usage_error("downtime", "--follow reads one FILE");
	return -1;
}

/* The assembler's callback: a migration has ended. */
static void done(struct kc_migration *m, void *ctx)
{
	struct downtime *dt = ctx;

	kc_dt_aggregate(dt, m);
	if (!dt->follow) {
		kc_dt_keep(dt, m);
		return;
	}
	if (dt->json) {
		struct kc_json j;

		/* one object a line */
		kc_json_init(&j, stdout);
		kc_dt_json_migration(&j, m);
		putchar('\n');
	} else {
		kc_dt_print_migration(m);
	}
	fflush(stdout);
	kc_migration_free(m);
}

/* Reads the input: FILEs, standard input, or the file followed. */
static int read_all(struct downtime *dt, int argc, char *argv[], int first)
{
	int rc = KC_EXIT_OK;

	if (dt->follow)
		rc = kc_dt_follow(dt, first < argc ? argv[first] : "-");
	else if (first == argc)
		rc = kc_dt_read(dt, "-");
	for (int i = first; !dt->follow && i < argc && !rc; i++)
		rc = kc_dt_read(dt, argv[i]);
	kc_mig_finish(&dt->a);
	if (dt->oom) {
		kc_err("downtime", "out of memory");
		rc = KC_EXIT_CANNOT_START;
	}
	return rc;
}

/* What was read, in the form asked for; an exit status. */
static int report(struct downtime *dt)
{
	kc_dt_sort_migrations(dt);
	if (!dt->a.events) {
		fprintf(stderr, "kvmchurn downtime: no vmstate_downtime_* event in %lu lines (%lu other trace events):\n"
			"QEMU 8.2 and later write them once switched on, with -trace 'vmstate_downtime*'\n"
			"or 'kvmchurn downtime --qmp SOCKET --enable'; QEMU 7.2 and older have none.\n",
			dt->a.lines, dt->a.other);
		return KC_EXIT_FAILURES;
	}
	if (dt->prom)
		return kc_write_output("downtime", dt->out, kc_dt_write_prom, dt);
	kc_dt_sort_aggregates(dt);
	if (dt->json) {
		/* --follow printed each migration already, and has no summary */
		if (!dt->follow)
			kc_dt_print_json(dt);
		return KC_EXIT_OK;
	}
	for (size_t i = 0; i < dt->nmigs; i++) {
		if (i)
			putchar('\n');
		kc_dt_print_migration(dt->migs[i]);
	}
	kc_dt_print_summary(dt);
	return KC_EXIT_OK;
}

int cmd_downtime(int argc, char *argv[], const struct kc_global *g)
{
	struct downtime dt = { .out = "-" };
	struct args a = { .enable = -1 };
	int rc;

	(void)g;
	rc = parse_args(argc, argv, &dt, &a);
	if (rc < 0)
		rc = check_args(argc, &dt, &a);
	if (rc >= 0)
		return rc;
	if (a.qmp)
		return kc_qmp_trace_downtime(a.qmp, a.enable);
	kc_mig_init(&dt.a, done, &dt);
	rc = read_all(&dt, argc, argv, a.first);
	if (!rc)
		rc = report(&dt);
	kc_dt_free(&dt);
	return rc;
}
