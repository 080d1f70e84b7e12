// SPDX-License-Identifier: GPL-2.0
/*
 * Option parsing shared by the global options and every command, with the
 * exact messages of usage errors.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client.h"

static void prefix(const char *cmd)
{
	fprintf(stderr, "kvmchurn%s%s: ", cmd ? " " : "", cmd ? cmd : "");
}

void kc_err(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	prefix(cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int kc_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	prefix(cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (cmd)
		fprintf(stderr, "\nTry 'kvmchurn help %s'.\n", cmd);
	else
		fprintf(stderr, "\nTry 'kvmchurn --help'.\n");
	return KC_EXIT_USAGE;
}

bool kc_parse_ulong(const char *s, unsigned long min, unsigned long max,
		    unsigned long *out)
{
	unsigned long v;
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

void kc_opt_init(struct kc_opt_parser *p, const char *cmd, int argc,
		 char *argv[], int first)
{
	*p = (struct kc_opt_parser){
		.cmd = cmd, .argc = argc, .argv = argv, .index = first,
	};
}

static const struct kc_opt *find_long(const struct kc_opt *opts,
				      const char *name, size_t len)
{
	for (; opts->id; opts++)
		if (opts->long_name && strlen(opts->long_name) == len &&
		    !strncmp(opts->long_name, name, len))
			return opts;
	return NULL;
}

static const struct kc_opt *find_short(const struct kc_opt *opts, char c)
{
	for (; opts->id; opts++)
		if (opts->short_name == c)
			return opts;
	return NULL;
}

/* "--name", "--name=value": the option, and the attached value if any. */
static const struct kc_opt *parse_long(struct kc_opt_parser *p,
				       const struct kc_opt *opts,
				       const char *arg, const char **attached)
{
	const char *eq = strchr(arg + 2, '=');
	size_t len = eq ? (size_t)(eq - (arg + 2)) : strlen(arg + 2);
	const struct kc_opt *o = find_long(opts, arg + 2, len);

	if (!o) {
		kc_usage_error(p->cmd, "unknown option '%s'", arg);
		return NULL;
	}
	snprintf(p->name, sizeof(p->name), "--%s", o->long_name);
	*attached = eq ? eq + 1 : NULL;
	return o;
}

/* "-x", "-xvalue": the option, and the attached value if any. */
static const struct kc_opt *parse_short(struct kc_opt_parser *p,
					const struct kc_opt *opts,
					const char *arg, const char **attached)
{
	const struct kc_opt *o = find_short(opts, arg[1]);

	if (!o || (arg[2] && !o->has_value)) {
		kc_usage_error(p->cmd, "unknown option '%s'", arg);
		return NULL;
	}
	snprintf(p->name, sizeof(p->name), "-%c", o->short_name);
	*attached = arg[2] ? arg + 2 : NULL;
	return o;
}

int kc_opt_next(struct kc_opt_parser *p, const struct kc_opt *opts)
{
	const struct kc_opt *o;
	const char *arg, *attached;

	p->value = NULL;
	if (p->index >= p->argc)
		return KC_OPT_END;
	arg = p->argv[p->index];
	if (arg[0] != '-' || !arg[1])
		return KC_OPT_END;		/* an operand, or "-" */
	p->index++;
	if (!strcmp(arg, "--"))
		return KC_OPT_END;
	if (arg[1] == '-')
		o = parse_long(p, opts, arg, &attached);
	else
		o = parse_short(p, opts, arg, &attached);
	if (!o)
		return KC_OPT_ERROR;
	if (!o->has_value) {
		if (attached) {
			kc_usage_error(p->cmd, "option '%s' takes no value", p->name);
			return KC_OPT_ERROR;
		}
		return o->id;
	}
	if (attached) {
		p->value = attached;
	} else if (p->index < p->argc) {
		p->value = p->argv[p->index++];
	} else {
		kc_usage_error(p->cmd, "option '%s' needs a value", p->name);
		return KC_OPT_ERROR;
	}
	return o->id;
}

int kc_opt_path(const struct kc_opt_parser *p, const char *what, const char **out)
{
	if (!*p->value) {
		kc_usage_error(p->cmd, "invalid value '' for %s: expected %s", p->name, what);
		return -1;
	}
	*out = p->value;
	return 0;
}

int kc_opt_ulong(const struct kc_opt_parser *p, unsigned long min,
		 unsigned long max, unsigned long *out)
{
	if (kc_parse_ulong(p->value, min, max, out))
		return 0;
	kc_usage_error(p->cmd,
		       "invalid value '%s' for %s: expected an integer from %lu to %lu",
		       p->value, p->name, min, max);
	return -1;
}
