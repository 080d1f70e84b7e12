// SPDX-License-Identifier: GPL-2.0
/* kvmchurn snapshot: the raw file saved, for 'kvmchurn diff' later. */
#include <stdlib.h>
#include <string.h>

#include "driver.h"

const char snapshot_usage[] =
	"Usage: kvmchurn snapshot [-o FILE]\n"
	"\n"
	"Saves the module's raw file as it is, after checking that this client can\n"
	"read it, to FILE (replaced in one rename, never seen half written) or to\n"
	"standard output. Two snapshots, say before and after a kernel patch or a\n"
	"setting, are compared with 'kvmchurn diff A B'. Every other command reads\n"
	"a snapshot too, saved as raw in a folder of its own: kvmchurn -d FOLDER show.\n"
	"\n"
	"Options:\n"
	"  -o FILE     write to FILE ('-': standard output, the default)\n"
	"  -h, --help  print this help\n"
	"\n"
	"Exit status: 0, or 2 when the raw file cannot be read or FILE written.\n";

enum { OPT_OUTPUT = 1, OPT_HELP };

static const struct kc_opt options[] = {
	{ OPT_OUTPUT, 'o', NULL, true },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

struct raw_text {
	const char *text;
	size_t len;
};

static void write_raw(FILE *f, const void *ctx)
{
	const struct raw_text *r = ctx;

	fwrite(r->text, 1, r->len, f);
}

int cmd_snapshot(int argc, char *argv[], const struct kc_global *g)
{
	const char *out = "-";
	struct kc_opt_parser p;
	struct kc_snap *s;
	char *text;
	size_t len;
	int id, rc;

	kc_opt_init(&p, "snapshot", argc, argv, 1);
	while ((id = kc_opt_next(&p, options)) != KC_OPT_END) {
		if (id == KC_OPT_ERROR)
			return KC_EXIT_USAGE;
		if (id == OPT_HELP) {
			fputs(snapshot_usage, stdout);
			return KC_EXIT_OK;
		}
		if (kc_opt_path(&p, "a file name", &out))
			return KC_EXIT_USAGE;
	}
	if (p.index < argc)
		return kc_usage_error("snapshot", "unexpected argument '%s'", argv[p.index]);
	s = calloc(1, sizeof(*s));
	if (!s) {
		perror("kvmchurn snapshot");
		return KC_EXIT_CANNOT_START;
	}
	rc = kc_read_module("snapshot", g, s, &text, &len);
	if (!rc) {
		struct raw_text r = { text, len };

		rc = kc_write_output("snapshot", out, write_raw, &r);
		free(text);
		kc_snap_free(s);
	}
	free(s);
	return rc;
}
