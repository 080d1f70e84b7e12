// SPDX-License-Identifier: GPL-2.0
/* kvmchurn help [COMMAND]: the usage of the client, or of one command. */
#include <stdio.h>

#include "commands.h"

const char help_usage[] =
	"Usage: kvmchurn help [COMMAND]\n"
	"\n"
	"Prints the usage of COMMAND, or of kvmchurn itself.\n"
	"\n"
	"Options:\n"
	"  -h, --help  print this help\n";

enum { OPT_HELP = 1 };

static const struct kc_opt options[] = {
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

int cmd_help(int argc, char *argv[], const struct kc_global *g)
{
	const struct kc_command *cmd;
	struct kc_opt_parser p;
	int id;

	(void)g;
	kc_opt_init(&p, "help", argc, argv, 1);
	id = kc_opt_next(&p, options);
	if (id == KC_OPT_ERROR)
		return KC_EXIT_USAGE;
	if (id == OPT_HELP) {
		fputs(help_usage, stdout);
		return KC_EXIT_OK;
	}
	if (p.index >= argc) {
		kc_print_main_usage(stdout);
		return KC_EXIT_OK;
	}
	if (p.index + 1 < argc)
		return kc_usage_error("help", "unexpected argument '%s'", argv[p.index + 1]);
	cmd = kc_find_command(argv[p.index]);
	if (!cmd)
		return kc_usage_error("help", "unknown command '%s'", argv[p.index]);
	if (cmd->print_usage)
		cmd->print_usage(stdout);
	else
		fputs(cmd->usage, stdout);
	return KC_EXIT_OK;
}
