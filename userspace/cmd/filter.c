// SPDX-License-Identifier: GPL-2.0
/* kvmchurn filter [NAME...]: the processes traced, read or replaced. */
#include <string.h>

#include "driver.h"

const char filter_usage[] =
	"Usage: kvmchurn filter [--json]\n"
	"       kvmchurn filter NAME...\n"
	"\n"
	"Without NAME, prints the names of the processes traced, space separated.\n"
	"With NAMEs, writes them to the module's filter file: from then on, a process\n"
	"counts when the name (comm) of its thread-group leader is one of them, so a\n"
	"VMM's own threads count as the VMM. Up to " KC_STR(KC_FILTER_MAX_NAMES)
	" names of 1 to " KC_STR(KC_NAME_MAX) " characters\n"
	"(a comm's length), without spaces or commas; '*' alone traces every process.\n"
	"\n"
	KC_USAGE_PARAM("filter")
	"\n"
	"Options:\n"
	"  --json      when reading: one JSON object, filter (a list of names)\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0; 2 when the module's files cannot be read, neither the filter\n"
	"file nor its parameter can be written, or the module refuses the names; 64\n"
	"for names it would refuse.\n";

static int status(const struct kc_snap *s)
{
	if (s->has_filter)
		return KC_EXIT_OK;
	kc_err("filter", "the raw file has no filter record");
	return KC_EXIT_CANNOT_START;
}

static void print_text(const struct kc_snap *s)
{
	printf("%s\n", s->filter);
}

static void print_json(const struct kc_snap *s)
{
	const char *name = s->filter, *end;
	struct kc_json j;

	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_array(&j, "filter");
	for (; *name; name = end) {
		char one[sizeof(s->filter)];

		end = name + strcspn(name, " ");
		snprintf(one, sizeof(one), "%.*s", (int)(end - name), name);
		kc_json_str(&j, NULL, one);
		end += strspn(end, " ");
	}
	kc_json_end(&j);
	kc_json_end(&j);
	putchar('\n');
}

static const struct kc_view view = { print_text, print_json, status };

/* What the module would refuse, refused here with the reason. */
static int check_names(int argc, char *argv[], int first)
{
	if (argc - first > KC_FILTER_MAX_NAMES)
		return kc_usage_error("filter", "%d names: the module takes at most %d",
				      argc - first, KC_FILTER_MAX_NAMES);
	for (int i = first; i < argc; i++) {
		const char *name = argv[i];
		size_t len = strlen(name);

		if (!len || len > KC_NAME_MAX)
			return kc_usage_error("filter", "invalid name '%s': a process name has 1 to %d characters",
					      name, KC_NAME_MAX);
		if (name[strcspn(name, KC_FILTER_SEPS)])
			return kc_usage_error("filter", "invalid name '%s': the module splits names at spaces and commas",
					      name);
		if (!strcmp(name, KC_FILTER_ALL) && argc - first > 1)
			return kc_usage_error("filter", "'*' traces every process: it cannot go with other names");
	}
	return -1;
}

int cmd_filter(int argc, char *argv[], const struct kc_global *g)
{
	char value[KC_FILTER_MAX_NAMES * (KC_NAME_MAX + 1) + 2] = "";
	bool json = false;
	int rc, first;

	rc = kc_simple_options(argc, argv, "filter", filter_usage, &json, &first);
	if (rc >= 0)
		return rc;
	if (first == argc)
		return kc_view_command(argc, argv, g, "filter", filter_usage, &view);
	if (json)
		return kc_usage_error("filter", "--json is for reading the filter, not for setting it");
	rc = check_names(argc, argv, first);
	if (rc >= 0)
		return rc;
	for (int i = first; i < argc; i++) {
		strcat(value, argv[i]);
		strcat(value, i + 1 < argc ? " " : "\n");
	}
	return kc_write_control("filter", g, "filter", value);
}
