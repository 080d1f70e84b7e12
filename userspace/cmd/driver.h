/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the commands of cmd/ share (driver.c): the options of the simple ones,
 * and the whole of a reading command that prints one snapshot, or of a
 * control command that makes one write.
 */
#ifndef KVMCHURN_DRIVER_H
#define KVMCHURN_DRIVER_H

#include "commands.h"
#include "kvmchurn_abi.h"
#include "lib/folder.h"
#include "lib/view.h"

/* The usage's words on a control's fallback (lib/folder.c). */
#define KC_USAGE_PARAM(name)						\
	"Where debugfs refuses the write (lockdown=integrity, as Secure Boot sets it),\n" \
	"the file cannot be opened for writing, or there is no debugfs (" KC_PROC_DIR "),\n" \
	"the module parameter " KC_PARAMS_DIR "/" name " is written instead\n" \
	"($KVMCHURN_PARAMS names another folder), and one line on stderr says so.\n"

/*
 * For commands that take only -h and, with @json non-NULL, --json: parses
 * them. Returns -1 to go on, or the exit status (usage printed or error).
 * *first is the index of the first operand.
 */
int kc_simple_options(int argc, char *argv[], const char *cmd,
		      const char *usage, bool *json, int *first);
/* The usage error for operands a command does not take; 64. */
int kc_no_operands(const char *cmd, int argc, char *argv[], int first);

/* How a reading command prints a snapshot. */
struct kc_view {
	void (*text)(const struct kc_snap *s);
	void (*json)(const struct kc_snap *s);
	/*
	 * The exit status, decided before anything is printed: with
	 * KC_EXIT_CANNOT_START (after a message) nothing is. NULL: KC_EXIT_OK.
	 */
	int (*status)(const struct kc_snap *s);
};

/*
 * A reading command that takes only --json and -h: parses them, reads the
 * module's raw file and prints it as @view says; returns the exit status.
 */
int kc_view_command(int argc, char *argv[], const struct kc_global *g,
		    const char *cmd, const char *usage,
		    const struct kc_view *view);

/* A control command (enable, disable, reset): no operands, one write. */
int kc_control_command(int argc, char *argv[], const struct kc_global *g,
		       const char *cmd, const char *usage, const char *file,
		       const char *value);

#endif /* KVMCHURN_DRIVER_H */
