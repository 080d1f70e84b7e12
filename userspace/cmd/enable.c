// SPDX-License-Identifier: GPL-2.0
/* kvmchurn enable: the module records again. */
#include "driver.h"

const char enable_usage[] =
	"Usage: kvmchurn enable\n"
	"\n"
	"Writes 1 to the module's enable file: the probes, which stay attached while\n"
	"disabled, record again from now on.\n"
	"\n"
	KC_USAGE_PARAM("enable")
	"\n"
	"Options:\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0, or 2 when neither the enable file nor its parameter can be\n"
	"written.\n";

int cmd_enable(int argc, char *argv[], const struct kc_global *g)
{
	return kc_control_command(argc, argv, g, "enable", enable_usage, "enable", "1\n");
}
