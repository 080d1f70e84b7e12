// SPDX-License-Identifier: GPL-2.0
/*
 * probes.c - the kretprobes: one per timed kernel function.
 *
 * The entry handler applies the filter and keeps the start time in the
 * instance's own data (data_size), so nothing is shared between concurrent
 * calls; returning non-zero from it skips the instance, so a call that does
 * not match costs one filter test. The return handler only records.
 */
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/timekeeping.h>

#include "compat.h"
#include "kvmchurn.h"

struct kc_kret {
	enum kc_metric metric;
	const char *function;
	char symbol[64];		/* the one attached, or the last tried */
	enum kc_probe_state state;
	int err;
	u64 __percpu *hits;
	struct kretprobe rp;
};

struct kc_kret_data {
	u64 start;
};

/* Where GCC cloned a function, only the clone has a symbol. */
static const char *const kc_clone_suffixes[] = {
	"", ".isra.0", ".constprop.0", ".part.0",
};

static struct kc_kret kc_krets[] = {
	{ .metric = KC_M_EXIT_MMAP, .function = "exit_mmap" },
};

static int kc_kret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kc_kret *k = container_of(kc_kretprobe_of(ri), struct kc_kret, rp);
	struct kc_kret_data *d = (struct kc_kret_data *)ri->data;

	this_cpu_inc(*k->hits);
	if (!READ_ONCE(kc_enabled) || !kc_filter_match(current))
		return 1;
	d->start = ktime_get_ns();
	return 0;
}

NOKPROBE_SYMBOL(kc_kret_entry);

static int kc_kret_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kc_kret *k = container_of(kc_kretprobe_of(ri), struct kc_kret, rp);
	struct kc_kret_data *d = (struct kc_kret_data *)ri->data;

	kc_hist_record(k->metric, kc_to_unit(ktime_get_ns() - d->start));
	return 0;
}

NOKPROBE_SYMBOL(kc_kret_return);

static void kc_kret_attach(struct kc_kret *k, unsigned int maxactive)
{
	unsigned int i;
	int err = -ENOENT;

	for (i = 0; i < ARRAY_SIZE(kc_clone_suffixes); i++) {
		snprintf(k->symbol, sizeof(k->symbol), "%s%s", k->function,
			 kc_clone_suffixes[i]);
		memset(&k->rp, 0, sizeof(k->rp));
		k->rp.kp.symbol_name = k->symbol;
		k->rp.entry_handler = kc_kret_entry;
		k->rp.handler = kc_kret_return;
		k->rp.data_size = sizeof(struct kc_kret_data);
		k->rp.maxactive = maxactive;
		err = register_kretprobe(&k->rp);
		if (err != -ENOENT)
			break;
	}
	k->err = err;
	/* Absent under every name: show the function's own name. */
	if (err == -ENOENT)
		strscpy(k->symbol, k->function, sizeof(k->symbol));
	if (!err)
		k->state = KC_PROBE_ATTACHED;
	else if (err == -ENOENT)
		k->state = KC_PROBE_ABSENT;
	else
		k->state = KC_PROBE_ERROR;
}

int kc_kretprobes_init(unsigned int maxactive)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		kc_krets[i].hits = alloc_percpu(u64);
		if (!kc_krets[i].hits) {
			kc_kretprobes_exit();
			return -ENOMEM;
		}
	}
	/* A probe that cannot attach is reported in `probes`, not fatal. */
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		kc_kret_attach(&kc_krets[i], maxactive);
		if (kc_krets[i].state != KC_PROBE_ATTACHED)
			pr_warn("%s: cannot probe %s: error %d\n",
				kc_metric_name(kc_krets[i].metric),
				kc_krets[i].symbol, kc_krets[i].err);
	}
	return 0;
}

void kc_kretprobes_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		struct kc_kret *k = &kc_krets[i];

		if (k->state == KC_PROBE_ATTACHED)
			unregister_kretprobe(&k->rp);
		k->state = KC_PROBE_OFF;
		free_percpu(k->hits);
		k->hits = NULL;
	}
}

unsigned int kc_kretprobes_count(void)
{
	return ARRAY_SIZE(kc_krets);
}

void kc_kretprobe_info(unsigned int i, struct kc_probe_info *info)
{
	const struct kc_kret *k = &kc_krets[i];
	int cpu;

	info->metric = k->metric;
	info->kind = "kretprobe";
	info->symbol = k->symbol[0] ? k->symbol : k->function;
	info->state = k->state;
	info->err = k->err;
	info->hits = 0;
	for_each_possible_cpu(cpu)
		info->hits += *per_cpu_ptr(k->hits, cpu);
	/* Written by the kprobe core without a lock; a counter, read once. */
	info->missed = k->state == KC_PROBE_ATTACHED ? READ_ONCE(k->rp.nmissed) : 0;
}

const char *kc_probe_state_name(enum kc_probe_state state)
{
	switch (state) {
	case KC_PROBE_ATTACHED:
		return "attached";
	case KC_PROBE_ABSENT:
		return "absent";
	case KC_PROBE_ERROR:
		return "error";
	case KC_PROBE_OFF:
		break;
	}
	return "off";
}
