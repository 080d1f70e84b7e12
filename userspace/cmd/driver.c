// SPDX-License-Identifier: GPL-2.0
/*
 * What the commands of cmd/ share: the options of the simple ones, and the
 * whole of a reading command that prints one snapshot, or of a control
 * command that makes one write.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

enum { OPT_JSON = 1, OPT_HELP };

int kc_simple_options(int argc, char *argv[], const char *cmd,
		      const char *usage, bool *json, int *first)
{
	static const struct kc_opt with_json[] = {
		{ OPT_JSON, 0, "json", false },
		{ OPT_HELP, 'h', "help", false },
		{ 0, 0, NULL, false },
	};
	struct kc_opt_parser p;
	int id;

	kc_opt_init(&p, cmd, argc, argv, 1);
	while ((id = kc_opt_next(&p, json ? with_json : with_json + 1)) != KC_OPT_END) {
		if (id == KC_OPT_ERROR)
			return KC_EXIT_USAGE;
		if (id == OPT_HELP) {
			fputs(usage, stdout);
			return KC_EXIT_OK;
		}
		if (json)
			*json = true;
	}
	*first = p.index;
	return -1;
}

int kc_no_operands(const char *cmd, int argc, char *argv[], int first)
{
	if (first < argc)
		return kc_usage_error(cmd, "unexpected argument '%s'", argv[first]);
	return -1;
}

int kc_view_command(int argc, char *argv[], const struct kc_global *g,
		    const char *cmd, const char *usage,
		    const struct kc_view *view)
{
	struct kc_snap *s;
	bool json = false;
	int rc, first;

	rc = kc_simple_options(argc, argv, cmd, usage, &json, &first);
	if (rc < 0)
		rc = kc_no_operands(cmd, argc, argv, first);
	if (rc >= 0)
		return rc;
	s = calloc(1, sizeof(*s));	/* 28 KiB of histograms: not on the stack */
	if (!s) {
		kc_err(cmd, "%s", strerror(errno));
		return KC_EXIT_CANNOT_START;
	}
	rc = kc_read_module(cmd, g, s, NULL, NULL);
	if (!rc) {
		rc = view->status ? view->status(s) : KC_EXIT_OK;
		if (rc != KC_EXIT_CANNOT_START)
			(json ? view->json : view->text)(s);
		kc_snap_free(s);
	}
	free(s);
	return rc;
}

int kc_control_command(int argc, char *argv[], const struct kc_global *g,
		       const char *cmd, const char *usage, const char *file,
		       const char *value)
{
	int rc, first;

	rc = kc_simple_options(argc, argv, cmd, usage, NULL, &first);
	if (rc < 0)
		rc = kc_no_operands(cmd, argc, argv, first);
	if (rc < 0)
		rc = kc_write_control(cmd, g, file, value);
	return rc;
}
