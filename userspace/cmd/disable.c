// SPDX-License-Identifier: GPL-2.0
/* kvmchurn disable: the module stops recording, its probes stay attached. */
#include "driver.h"

const char disable_usage[] =
	"Usage: kvmchurn disable\n"
	"\n"
	"Writes 0 to the module's enable file: nothing is recorded from now on, and\n"
	"what was recorded stays. The probes stay attached (each costs a comparison\n"
	"a call), so 'kvmchurn enable' is instant.\n"
	"\n"
	KC_USAGE_PARAM("enable")
	"\n"
	"Options:\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0, or 2 when neither the enable file nor its parameter can be\n"
	"written.\n";

int cmd_disable(int argc, char *argv[], const struct kc_global *g)
{
	return kc_control_command(argc, argv, g, "disable", disable_usage, "enable", "0\n");
}
