// SPDX-License-Identifier: GPL-2.0
/* kvmchurn reset: every count starts again from zero. */
#include "driver.h"

const char reset_usage[] =
	"Usage: kvmchurn reset\n"
	"\n"
	"Writes 1 to the module's reset file: every histogram, counter, hit and miss\n"
	"count starts again from zero. The probes are not touched: the module keeps the\n"
	"current sums as a baseline that readers subtract, so a reset never races with\n"
	"a probe. It resets for every reader; 'kvmchurn watch' and\n"
	"'kvmchurn snapshot' with 'kvmchurn diff' measure an interval without it.\n"
	"\n"
	KC_USAGE_PARAM("reset")
	"\n"
	"Options:\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0, or 2 when neither the reset file nor its parameter can be\n"
	"written.\n";

int cmd_reset(int argc, char *argv[], const struct kc_global *g)
{
	return kc_control_command(argc, argv, g, "reset", reset_usage, "reset", "1\n");
}
