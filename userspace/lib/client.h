/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The client's library (userspace/lib/): what all three of its programs share,
 * the readers of the module's files (cmd/), the churn load (load/) and the
 * downtime parser (downtime/): exit statuses, option parsing, clocks,
 * output files and latency samples (JSON: json.h).
 */
#ifndef KVMCHURN_CLIENT_H
#define KVMCHURN_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "grow.h"

#ifndef KVMCHURN_VERSION
#define KVMCHURN_VERSION "unknown"
#endif

#define KC_DEBUGFS "/sys/kernel/debug"	/* where debugfs is mounted */
#define KC_DEFAULT_DIR KC_DEBUGFS "/kvmchurn"
/* The same views without debugfs (debugfs=off or no-mount), and no controls. */
#define KC_PROC_DIR "/proc/kvmchurn"
/* The default folder, in a usage or an error: kc_module_dir() picks one. */
#define KC_DEFAULT_DIRS KC_DEFAULT_DIR ", or " KC_PROC_DIR " without debugfs"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Exit status of every command. `kvmchurn --help` prints the same list
 * (kc_exit_codes[] in main.c); keep the two in step.
 *
 *   0  KC_EXIT_OK            success; check: every check passed
 *   1  KC_EXIT_FAILURES      load: some VMs failed, or the run was
 *                            interrupted; check: a check warns; downtime:
 *                            no downtime event in the input
 *   2  KC_EXIT_CANNOT_START  cannot start or cannot read: no KVM device, the
 *                            first VM was refused, the module is not loaded,
 *                            debugfs is not mounted, not root, a raw file
 *                            this client cannot read, a control write
 *                            refused; merge: snapshots that cannot be added
 *  64  KC_EXIT_USAGE         usage error (EX_USAGE of <sysexits.h>)
 */
enum kc_exit {
	KC_EXIT_OK = 0,
	KC_EXIT_FAILURES = 1,
	KC_EXIT_CANNOT_START = 2,
	KC_EXIT_USAGE = 64,
};

/* Global options, parsed before the command name. */
struct kc_global {
	const char *dir;	/* -d, else kc_module_dir(): the module's folder */
	/* $KVMCHURN_PARAMS, default KC_PARAMS_DIR: the module's parameters */
	const char *params;
};

/*
 * opt.c: option parsing, the same for the global options and every command.
 * Accepted forms: -x VALUE, -xVALUE, --long VALUE, --long=VALUE, and "--"
 * to end the options. Parsing stops at the first operand.
 */
struct kc_opt {
	int id;			/* > 0, returned by kc_opt_next() */
	char short_name;	/* 0 if none */
	const char *long_name;	/* NULL if none */
	bool has_value;
};

struct kc_opt_parser {
	const char *cmd;	/* NULL for the global options */
	int argc;
	char **argv;
	int index;		/* next argv element; the first operand at the end */
	char name[32];		/* the option as given ("-n", "--vcpus") */
	const char *value;	/* its value, for options that take one */
};

#define KC_OPT_END 0
#define KC_OPT_ERROR (-1)

void kc_opt_init(struct kc_opt_parser *p, const char *cmd, int argc,
		 char *argv[], int first);
/* The id of the next option, KC_OPT_END, or KC_OPT_ERROR (message printed). */
int kc_opt_next(struct kc_opt_parser *p, const struct kc_opt *opts);
/* The current option's value as a path, @what ("a file name") if empty: 0 or -1. */
int kc_opt_path(const struct kc_opt_parser *p, const char *what, const char **out);
/* Parses the current option's value as an integer in [min, max]. */
int kc_opt_ulong(const struct kc_opt_parser *p, unsigned long min,
		 unsigned long max, unsigned long *out);
/* "kvmchurn[ CMD]: MESSAGE" and a newline on stderr: how a command says what failed. */
void kc_err(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "kvmchurn[ CMD]: MESSAGE" and a hint on stderr; returns KC_EXIT_USAGE. */
int kc_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Strict decimal: digits only, no sign, no spaces, in [min, max]. */
bool kc_parse_ulong(const char *s, unsigned long min, unsigned long max,
		    unsigned long *out);

/* util.c */
uint64_t kc_now_ns(void);		/* CLOCK_MONOTONIC */
/*
 * The strict decimal of the module's files: digits only, at least one, at
 * most 2^64 - 1, up to @stop or the end of @s; 0, or -1. *@end (when not
 * NULL) is where it stopped.
 */
int kc_parse_u64(const char *s, char stop, unsigned long long *v,
		 const char **end);
/* A time as the module prints it, "SECONDS.NNNNNNNNN", in ns: 0, or -1. */
int kc_parse_epoch_ns(const char *s, unsigned long long *ns);
/*
 * Splits @line at tabs, in place, into @f (at most @max fields: the last
 * keeps the rest); returns how many. The records of the module's files.
 */
size_t kc_split_tabs(char *line, char **f, size_t max);
/* Colour on stdout: a terminal, NO_COLOR unset or empty, TERM not dumb. */
bool kc_colour(void);
/* The whole of @fd into a malloc()ed buffer, a NUL after its @len bytes; -1 and errno. */
int kc_read_fd(int fd, char **text, size_t *len);
/*
 * Runs @write on stdout when @path is "-", else on a new file that is then
 * renamed over @path, so that no reader sees it half written. Returns
 * KC_EXIT_OK, or KC_EXIT_CANNOT_START after a message.
 */
int kc_write_output(const char *cmd, const char *path,
		    void (*write)(FILE *f, const void *ctx), const void *ctx);

/* stats.c: latency samples in ns, percentiles by nearest rank. */
struct kc_samples {
	uint64_t *v;
	size_t n, cap;
};

int kc_samples_add(struct kc_samples *s, uint64_t ns);	/* -1 and errno */
void kc_samples_sort(struct kc_samples *s);
/* After kc_samples_sort(); s->n must be > 0. */
uint64_t kc_samples_pct(const struct kc_samples *s, unsigned int pct);
void kc_samples_free(struct kc_samples *s);

#endif /* KVMCHURN_CLIENT_H */
