/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The client's commands: the table's type, and each command's entry point
 * and usage text. One file a command: the readers of the module's files in
 * cmd/, `load` in load/, `downtime` in downtime/.
 */
#ifndef KVMCHURN_COMMANDS_H
#define KVMCHURN_COMMANDS_H

#include <stdio.h>

#include "lib/client.h"

struct kc_command {
	const char *name;
	int (*run)(int argc, char *argv[], const struct kc_global *g);
	const char *usage;	/* `kvmchurn help NAME`, `kvmchurn NAME --help` */
	const char *description; /* one line in `kvmchurn --help` */
	void (*print_usage)(FILE *f);	/* instead of usage, when set */
};

/* main.c */
const struct kc_command *kc_find_command(const char *name);
void kc_print_main_usage(FILE *f);

/* argv[0] is the command's name. */
int cmd_show(int argc, char *argv[], const struct kc_global *g);
int cmd_summary(int argc, char *argv[], const struct kc_global *g);
int cmd_watch(int argc, char *argv[], const struct kc_global *g);
int cmd_check(int argc, char *argv[], const struct kc_global *g);
int cmd_probes(int argc, char *argv[], const struct kc_global *g);
int cmd_filter(int argc, char *argv[], const struct kc_global *g);
int cmd_reset(int argc, char *argv[], const struct kc_global *g);
int cmd_enable(int argc, char *argv[], const struct kc_global *g);
int cmd_disable(int argc, char *argv[], const struct kc_global *g);
int cmd_snapshot(int argc, char *argv[], const struct kc_global *g);
int cmd_diff(int argc, char *argv[], const struct kc_global *g);
int cmd_merge(int argc, char *argv[], const struct kc_global *g);
int cmd_export(int argc, char *argv[], const struct kc_global *g);
int cmd_dump(int argc, char *argv[], const struct kc_global *g);
int cmd_vms(int argc, char *argv[], const struct kc_global *g);
int cmd_plot(int argc, char *argv[], const struct kc_global *g);
int cmd_load(int argc, char *argv[], const struct kc_global *g);
int cmd_downtime(int argc, char *argv[], const struct kc_global *g);
int cmd_help(int argc, char *argv[], const struct kc_global *g);
void show_print_usage(FILE *f);
extern const char summary_usage[];
extern const char watch_usage[];
extern const char check_usage[];
extern const char probes_usage[];
extern const char filter_usage[];
extern const char reset_usage[];
extern const char enable_usage[];
extern const char disable_usage[];
extern const char snapshot_usage[];
extern const char diff_usage[];
extern const char merge_usage[];
extern const char export_usage[];
extern const char dump_usage[];
extern const char vms_usage[];
extern const char plot_usage[];
extern const char load_usage[];
extern const char downtime_usage[];
extern const char help_usage[];

#endif /* KVMCHURN_COMMANDS_H */
