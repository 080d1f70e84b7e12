// SPDX-License-Identifier: GPL-2.0
/*
 * kvmchurn load: real KVM VMs created and destroyed in the shape of a
 * Firecracker pool. This file: the options and the summary; pool.c runs the
 * VM processes, vm*.c builds each VM.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "lib/json.h"
#include "load.h"

const char load_usage[] =
	"Usage: kvmchurn load [OPTIONS]\n"
	"\n"
	"Creates and destroys real KVM VMs in the shape of a Firecracker pool. Each VM\n"
	"is a process named COMM that opens the KVM device, creates a VM with an\n"
	"in-kernel interrupt controller (x86_64: KVM_CREATE_IRQCHIP; arm64: vGICv3),\n"
	"vCPUs on threads named \"fc_vcpu 0\", \"fc_vcpu 1\"..., guest memory in slot 0\n"
	"with every page written once, and irqfds on GSI 0, 1..., reports that it is\n"
	"ready, and ends as --end says. The client reaps every VM it starts.\n"
	"\n"
	"Pacing:\n"
	"  -n COUNT            create COUNT VMs in all, 1-1000000000 (default 10)\n"
	"  -t SECONDS          create VMs for SECONDS, 1-604800, instead of -n\n"
	"  -j PARALLEL         VMs alive at once, 1-512 (default 1); the first VM\n"
	"                      runs alone\n"
	"  --together          end VMs in waves: once PARALLEL VMs are ready (or\n"
	"                      all that are left), end them all at once, as a\n"
	"                      fleet kills a pool; with --end kill or term\n"
	"\n"
	"Each VM:\n"
	"  --vcpus N           vCPUs, 1-256 (default 2)\n"
	"  --mem MIB           guest memory in MiB, 1-3072 (default 128)\n"
	"  --backing KIND      what backs guest memory: anon (default: private\n"
	"                      anonymous memory), thp (the same, 2 MiB aligned and\n"
	"                      MADV_HUGEPAGE), hugetlb (2 MiB huge pages, reserved\n"
	"                      beforehand in /proc/sys/vm/nr_hugepages; MIB even),\n"
	"                      memfd (a sealed memfd mapped shared, as a vhost-user\n"
	"                      VMM), file (--mem-file mapped private, a snapshot\n"
	"                      restore); every page is written once, or read once\n"
	"                      for file\n"
	"  --mem-file PATH     with --backing file: the snapshot's memory file, at\n"
	"                      least MIB long\n"
	"  --irqfds N          irqfds, 0-24 on x86_64, 0-96 on arm64 (default 8)\n"
	"  --run               run each vCPU once, to its first exit to user space\n"
	"  --comm NAME         process name, 1-15 characters (default firecracker)\n"
	"  --dev PATH          the KVM device (default /dev/kvm)\n"
	"\n"
	"End of each VM, once it is ready:\n"
	"  --end kill          the client sends SIGKILL (default)\n"
	"  --end term          the client sends SIGTERM; the VM catches it and calls\n"
	"                      _exit() from its handler, as Firecracker does\n"
	"  --term-default      with --end term: SIGTERM keeps its default action, and\n"
	"                      the kernel delivers it as SIGKILL\n"
	"  --kill-after SECS   with --end term: SIGKILL a VM still there SECS after\n"
	"                      its SIGTERM, 1-3599 and below --timeout, as\n"
	"                      Firecracker's pool does (a grace time of 2 s)\n"
	"  --ignore-term       with --kill-after: the VM ignores SIGTERM, so that\n"
	"                      each one ends by the SIGKILL\n"
	"  --end exit          the VM exits by itself\n"
	"  --end close         the VM closes all its fds (irqfds, vCPUs, VM, KVM),\n"
	"                      then exits\n"
	"  --timeout SECONDS   kill, and count as failed, a VM not ready or not gone\n"
	"                      SECONDS after it started or its end began, 1-3600\n"
	"                      (default 60)\n"
	"\n"
	"Output:\n"
	"  --json              print the summary as one JSON object\n"
	"  -h, --help          print this help\n"
	"\n"
	"The summary counts the VMs started, completed (ready, then ended as --end\n"
	"says), failed, and aborted (killed because the run was interrupted). It gives\n"
	"the create latency (fork to ready, as the client sees it) and the teardown\n"
	"latency (from the first signal, or from ready with --end exit or close, to\n"
	"the VM reaped) as p50, p99 and max in ms (nearest rank), the rate in\n"
	"completed VMs per second of wall time, and the wall time; with --together,\n"
	"the waves; with --kill-after, how many VMs the SIGKILL ended (grace:); then\n"
	"the pids of the VMs, in the order they started (`kvmchurn vms` names VMs by\n"
	"pid). On a terminal, a progress line is shown on stderr.\n"
	"\n"
	"JSON fields: version, arch, comm, end, term_default, kill_after (null\n"
	"without --kill-after), ignore_term, vcpus, mem_mib, backing, mem_file (null\n"
	"without --backing file), irqfds, run, parallel, together, count (null with\n"
	"-t), seconds (null with -n), started, completed, failed, aborted,\n"
	"interrupted (true or false), waves (null without --together), killed_after\n"
	"(null without --kill-after), create_ms and teardown_ms (each an object of\n"
	"count, p50, p99 and max, the last three null without samples), rate_per_s,\n"
	"wall_s, pids (an array, in start order).\n"
	"\n"
	"Exit status: see 'kvmchurn --help'. The first VM failing is status 2.\n";

static const char *const end_names[] = {
	[LOAD_END_EXIT] = "exit",
	[LOAD_END_TERM] = "term",
	[LOAD_END_KILL] = "kill",
	[LOAD_END_CLOSE] = "close",
};

static const char *const teardown_labels[] = {
	[LOAD_END_EXIT] = "ready to reaped, the VM exiting by itself",
	[LOAD_END_TERM] = "SIGTERM to reaped",
	[LOAD_END_KILL] = "SIGKILL to reaped",
	[LOAD_END_CLOSE] = "ready to reaped, the VM closing its fds",
};

enum {
	OPT_COUNT = 1, OPT_SECONDS, OPT_PARALLEL, OPT_VCPUS, OPT_MEM, OPT_IRQFDS,
	OPT_RUN, OPT_COMM, OPT_DEV, OPT_END, OPT_TERM_DEFAULT, OPT_KILL_AFTER,
	OPT_IGNORE_TERM, OPT_TIMEOUT, OPT_TOGETHER, OPT_BACKING, OPT_MEM_FILE,
	OPT_JSON, OPT_HELP,
};

static const struct kc_opt options[] = {
	{ OPT_COUNT, 'n', NULL, true },
	{ OPT_SECONDS, 't', NULL, true },
	{ OPT_PARALLEL, 'j', NULL, true },
	{ OPT_VCPUS, 0, "vcpus", true },
	{ OPT_MEM, 0, "mem", true },
	{ OPT_IRQFDS, 0, "irqfds", true },
	{ OPT_BACKING, 0, "backing", true },
	{ OPT_MEM_FILE, 0, "mem-file", true },
	{ OPT_RUN, 0, "run", false },
	{ OPT_COMM, 0, "comm", true },
	{ OPT_DEV, 0, "dev", true },
	{ OPT_END, 0, "end", true },
	{ OPT_TERM_DEFAULT, 0, "term-default", false },
	{ OPT_KILL_AFTER, 0, "kill-after", true },
	{ OPT_IGNORE_TERM, 0, "ignore-term", false },
	{ OPT_TIMEOUT, 0, "timeout", true },
	{ OPT_TOGETHER, 0, "together", false },
	{ OPT_JSON, 0, "json", false },
	{ OPT_HELP, 'h', "help", false },
	{ 0, 0, NULL, false },
};

struct load_args {
	struct load_opts o;
	bool json;
	bool help;
};

static int parse_end(const struct kc_opt_parser *p, enum load_end *end)
{
	for (size_t i = 0; i < ARRAY_SIZE(end_names); i++)
		if (!strcmp(p->value, end_names[i])) {
			*end = (enum load_end)i;
			return 0;
		}
	kc_usage_error(p->cmd, "invalid value '%s' for %s: expected exit, term, kill or close",
		       p->value, p->name);
	return -1;
}

static int parse_text(const struct kc_opt_parser *p, size_t max, const char **out)
{
	size_t len = strlen(p->value);

	if (len && len <= max) {
		*out = p->value;
		return 0;
	}
	kc_usage_error(p->cmd, "invalid value '%s' for %s: expected 1 to %zu characters",
		       p->value, p->name, max);
	return -1;
}

/* One option; 0, or -1 after a usage error. */
static int parse_one(struct kc_opt_parser *p, int id, struct load_args *a)
{
	struct load_opts *o = &a->o;
	unsigned long v;

	switch (id) {
	case OPT_COUNT:
		return kc_opt_ulong(p, 1, 1000000000, &o->count);
	case OPT_SECONDS:
		return kc_opt_ulong(p, 1, 604800, &o->seconds);
	case OPT_PARALLEL:
		return kc_opt_ulong(p, 1, 512, &o->parallel);
	case OPT_TIMEOUT:
		return kc_opt_ulong(p, 1, 3600, &o->timeout);
	case OPT_KILL_AFTER:
		return kc_opt_ulong(p, 1, 3599, &o->kill_after);
	case OPT_IGNORE_TERM:
		o->ignore_term = true;
		return 0;
	case OPT_VCPUS:
		if (kc_opt_ulong(p, 1, 256, &v))
			return -1;
		o->vm.vcpus = (unsigned int)v;
		return 0;
	case OPT_MEM:
		if (kc_opt_ulong(p, 1, 3072, &v))
			return -1;
		o->vm.mem_bytes = (size_t)v << 20;
		return 0;
	case OPT_IRQFDS:
		if (kc_opt_ulong(p, 0, vm_arch.max_irqfds, &v))
			return -1;
		o->vm.irqfds = (unsigned int)v;
		return 0;
	case OPT_BACKING:
		if (!vm_backing_parse(p->value, &o->vm.backing))
			return 0;
		kc_usage_error(p->cmd, "invalid value '%s' for %s: expected anon, thp, hugetlb, memfd or file",
			       p->value, p->name);
		return -1;
	case OPT_MEM_FILE:
		return parse_text(p, 4095, &o->vm.mem_file);
	case OPT_COMM:
		return parse_text(p, 15, &o->comm);	/* TASK_COMM_LEN - 1 */
	case OPT_DEV:
		return parse_text(p, 4095, &o->vm.dev);
	case OPT_END:
		return parse_end(p, &o->end);
	case OPT_RUN:
		o->vm.run = true;
		return 0;
	case OPT_TERM_DEFAULT:
		o->term_default = true;
		return 0;
	case OPT_TOGETHER:
		o->together = true;
		return 0;
	case OPT_JSON:
		a->json = true;
		return 0;
	case OPT_HELP:
		a->help = true;
		return 0;
	default:
		return -1;
	}
}

static int parse_args(int argc, char *argv[], struct load_args *a)
{
	struct kc_opt_parser p;
	int id;

	*a = (struct load_args){ .o = {
		.parallel = 1, .timeout = 60, .end = LOAD_END_KILL,
		.comm = "firecracker",
		.vm = { .dev = "/dev/kvm", .vcpus = 2, .irqfds = 8,
			.mem_bytes = (size_t)128 << 20 },
	} };
	kc_opt_init(&p, "load", argc, argv, 1);
	while ((id = kc_opt_next(&p, options)) != KC_OPT_END)
		if (id == KC_OPT_ERROR || parse_one(&p, id, a))
			return KC_EXIT_USAGE;
	if (a->help)
		return KC_EXIT_OK;
	if (p.index < argc)
		return kc_usage_error("load", "unexpected argument '%s'", argv[p.index]);
	if (a->o.count && a->o.seconds)
		return kc_usage_error("load", "-n and -t cannot be used together");
	if (a->o.term_default && a->o.end != LOAD_END_TERM)
		return kc_usage_error("load", "--term-default needs --end term");
	if (a->o.kill_after && a->o.end != LOAD_END_TERM)
		return kc_usage_error("load", "--kill-after needs --end term");
	if (a->o.kill_after && a->o.kill_after >= a->o.timeout)
		return kc_usage_error("load", "--kill-after %lu is not below --timeout %lu: "
				      "the timeout would end the VM first",
				      a->o.kill_after, a->o.timeout);
	if (a->o.ignore_term && !a->o.kill_after)
		return kc_usage_error("load", "--ignore-term needs --kill-after: "
				      "nothing else would end the VMs");
	if (a->o.ignore_term && a->o.term_default)
		return kc_usage_error("load", "--ignore-term and --term-default cannot be used together");
	if (a->o.vm.backing == VM_BACKING_FILE && !a->o.vm.mem_file)
		return kc_usage_error("load", "--backing file needs --mem-file PATH");
	if (a->o.vm.mem_file && a->o.vm.backing != VM_BACKING_FILE)
		return kc_usage_error("load", "--mem-file needs --backing file");
	if (a->o.vm.backing == VM_BACKING_HUGETLB && (a->o.vm.mem_bytes >> 20) % 2)
		return kc_usage_error("load", "--backing hugetlb needs an even --mem: "
				      "the pages are 2 MiB");
	if (a->o.together && a->o.end != LOAD_END_KILL && a->o.end != LOAD_END_TERM)
		return kc_usage_error("load", "--together needs --end kill or term");
	if (!a->o.count && !a->o.seconds)
		a->o.count = 10;
	return KC_EXIT_OK;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void print_latency_text(const char *name, struct kc_samples *s,
			       const char *what)
{
	printf("%-9s ", name);
	if (s->n)
		printf("p50 %.3f ms, p99 %.3f ms, max %.3f ms", ms(kc_samples_pct(s, 50)),
		       ms(kc_samples_pct(s, 99)), ms(s->v[s->n - 1]));
	else
		printf("no samples");
	printf(" (%s)\n", what);
}

static void print_text(const struct load_opts *o, struct load_result *r)
{
	double wall = (double)r->wall_ns / 1e9;

	printf("%-9s %lu started, %lu completed, %lu failed", "VMs:", r->started,
	       r->completed, r->failed);
	if (r->aborted || r->signal)
		printf(", %lu aborted (interrupted by %s)", r->aborted,
		       r->signal == SIGINT ? "SIGINT" : r->signal == SIGTERM ? "SIGTERM" :
		       r->signal == SIGHUP ? "SIGHUP" : "a signal");
	printf("\n");
	if (o->together)
		printf("%-9s %lu (every VM alive ended at once)\n", "waves:", r->waves);
	if (o->kill_after)
		printf("%-9s %lu SIGKILLed, still there %lu s after SIGTERM\n", "grace:",
		       r->killed_after, o->kill_after);
	print_latency_text("create:", &r->create, "fork to ready");
	print_latency_text("teardown:", &r->teardown, o->kill_after ?
			   "SIGTERM to reaped, SIGKILL after the grace" :
			   teardown_labels[o->end]);
	printf("%-9s %.1f VMs/s\n", "rate:", wall > 0 ? r->completed / wall : 0.0);
	printf("%-9s %.3f s\n", "wall:", wall);
	printf("%-9s", "pids:");
	for (size_t i = 0; i < r->npids; i++)
		printf(" %ld", r->pids[i]);
	putchar('\n');
}

static void print_latency_json(struct kc_json *j, const char *name, struct kc_samples *s)
{
	kc_json_object(j, name);
	kc_json_uint(j, "count", s->n);
	if (s->n) {
		kc_json_double(j, "p50", "%.3f", ms(kc_samples_pct(s, 50)));
		kc_json_double(j, "p99", "%.3f", ms(kc_samples_pct(s, 99)));
		kc_json_double(j, "max", "%.3f", ms(s->v[s->n - 1]));
	} else {
		kc_json_null(j, "p50");
		kc_json_null(j, "p99");
		kc_json_null(j, "max");
	}
	kc_json_end(j);
}

static void print_json(const struct load_opts *o, struct load_result *r)
{
	double wall = (double)r->wall_ns / 1e9;
	struct kc_json j;

	kc_json_init(&j, stdout);
	kc_json_object(&j, NULL);
	kc_json_str(&j, "version", KVMCHURN_VERSION);
	kc_json_str(&j, "arch", vm_arch.name);
	kc_json_str(&j, "comm", o->comm);
	kc_json_str(&j, "end", end_names[o->end]);
	kc_json_bool(&j, "term_default", o->term_default);
	kc_json_uint_or_null(&j, "kill_after", o->kill_after, o->kill_after);
	kc_json_bool(&j, "ignore_term", o->ignore_term);
	kc_json_uint(&j, "vcpus", o->vm.vcpus);
	kc_json_uint(&j, "mem_mib", o->vm.mem_bytes >> 20);
	kc_json_str(&j, "backing", vm_backing_name(o->vm.backing));
	if (o->vm.mem_file)
		kc_json_str(&j, "mem_file", o->vm.mem_file);
	else
		kc_json_null(&j, "mem_file");
	kc_json_uint(&j, "irqfds", o->vm.irqfds);
	kc_json_bool(&j, "run", o->vm.run);
	kc_json_uint(&j, "parallel", o->parallel);
	kc_json_bool(&j, "together", o->together);
	kc_json_uint_or_null(&j, "count", o->count, !o->seconds);
	kc_json_uint_or_null(&j, "seconds", o->seconds, o->seconds);
	kc_json_uint(&j, "started", r->started);
	kc_json_uint(&j, "completed", r->completed);
	kc_json_uint(&j, "failed", r->failed);
	kc_json_uint(&j, "aborted", r->aborted);
	kc_json_bool(&j, "interrupted", r->signal);
	kc_json_uint_or_null(&j, "waves", r->waves, o->together);
	kc_json_uint_or_null(&j, "killed_after", r->killed_after, o->kill_after);
	print_latency_json(&j, "create_ms", &r->create);
	print_latency_json(&j, "teardown_ms", &r->teardown);
	kc_json_double(&j, "rate_per_s", "%.3f", wall > 0 ? r->completed / wall : 0.0);
	kc_json_double(&j, "wall_s", "%.3f", wall);
	kc_json_array(&j, "pids");
	for (size_t i = 0; i < r->npids; i++)
		kc_json_int(&j, NULL, r->pids[i]);
	kc_json_end(&j);
	kc_json_end(&j);
	putchar('\n');
}

int cmd_load(int argc, char *argv[], const struct kc_global *g)
{
	struct load_args a;
	struct load_result r;
	int rc;

	(void)g;
	rc = parse_args(argc, argv, &a);
	if (rc != KC_EXIT_OK)
		return rc;
	if (a.help) {
		fputs(load_usage, stdout);
		return KC_EXIT_OK;
	}
	rc = load_run(&a.o, &r);
	if (rc != KC_EXIT_CANNOT_START) {
		kc_samples_sort(&r.create);
		kc_samples_sort(&r.teardown);
		if (a.json)
			print_json(&a.o, &r);
		else
			print_text(&a.o, &r);
	}
	kc_samples_free(&r.create);
	kc_samples_free(&r.teardown);
	free(r.pids);
	return rc;
}
