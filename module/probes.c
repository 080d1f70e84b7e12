// SPDX-License-Identifier: GPL-2.0
/*
 * probes.c - the kretprobes, attached: each row of KC_KRETPROBES tries its
 * candidate symbols under each of GCC's clone names, as a plain kprobe where
 * the table says KPROBE, by fprobe where it has an fprobe entry and the
 * kernel fprobe, else by kretprobe; and the module notifier attaches those
 * in kvm and irqbypass when they load after kvmchurn and detaches them
 * before they unload. What each probe means is given as hooks (kret.h:
 * hooks.c, exit.c); this file only runs them.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/string.h>

#include "kret.h"

static unsigned int kc_maxactive;
static bool kc_fprobes;
static DEFINE_MUTEX(kc_probes_lock);

/*
 * The module that holds a probe's symbols on this kernel, NULL for vmlinux:
 * KVM and the irqbypass manager are modules on Debian x86, built in on arm64.
 */
static const char *kc_home_module(enum kc_home home)
{
	switch (home) {
	case KC_HOME_KVM:
		return IS_MODULE(CONFIG_KVM) ? kc_home_name(home) : NULL;
	case KC_HOME_IRQBYPASS:
		return IS_MODULE(CONFIG_IRQ_BYPASS_MANAGER) ?
		       kc_home_name(home) : NULL;
	default:
		return NULL;
	}
}

/* One a row of KC_KRETPROBES, filled from the table by kc_krets_init(). */
struct kc_kret kc_krets[KC_NR_KRETPROBES];

int kc_kret_start(struct kc_kret_data *d)
{
	d->start = kc_now();
	if (d->vm_by == KC_VM_BY_TGID)
		d->vm = current->tgid;
	if (d->live)
		kc_vm_fly(d->vm_by, d->vm, d->live - 1, d->start, true);
	return 0;
}

NOKPROBE_SYMBOL(kc_kret_start);

/* The generic entry, for a probe whose hooks give no entry of their own. */
static int kc_kret_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct kc_kret *k = container_of(kc_kretprobe_of(ri), struct kc_kret, rp);

	return kc_kret_enter(k, (struct kc_kret_data *)ri->data, regs,
			     k->ops.want);
}

NOKPROBE_SYMBOL(kc_kret_entry);

static void kc_krets_init(const struct kc_kret_ops *const *hooks)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		const struct kc_probe_desc *desc = kc_probe_desc(i);
		struct kc_kret *k = &kc_krets[i];

		k->metric = desc->metric;
		k->symbols = desc->symbols;
		k->module = kc_home_module(desc->home);
		k->ops = *hooks[i];
		k->by_kprobe = !strcmp(desc->kind, KC_KIND_KPROBE);
		if (!k->ops.entry)
			k->ops.entry = kc_kret_entry;
	}
}

/* A followed call's return, by either mechanism: its time recorded. */
static void kc_kret_finish(struct kc_kret *k, struct kc_kret_data *d,
			   struct pt_regs *regs)
{
	u64 value = kc_to_unit(kc_since(d->start));

	if (d->live)
		kc_vm_fly(d->vm_by, d->vm, d->live - 1, d->start, false);
	if (k->ops.done && !k->ops.done(k, d, regs, value))
		return;
	kc_record(k->metric, value, d->vm_by, d->vm);
}

static int kc_kret_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	kc_kret_finish(container_of(kc_kretprobe_of(ri), struct kc_kret, rp),
		       (struct kc_kret_data *)ri->data, regs);
	return 0;
}

NOKPROBE_SYMBOL(kc_kret_return);

static void kc_fprobe_return(KC_FPROBE_ARGS)
{
	kc_kret_finish(container_of(kc_fprobe_of(fp), struct kc_kret, fp),
		       data, NULL);
}

/* Where GCC cloned a function, only the clone has a symbol. */
static const char *const kc_clone_suffixes[] = {
	"", ".isra.0", ".constprop.0", ".part.0",
};

/*
 * Registers @k on k->symbol: a row of kind KPROBE as a plain kprobe; else by
 * fprobe if it has an fprobe entry and the kernel fprobe (kc_fprobes), else
 * by kretprobe; 0, or the error of the kprobe or kretprobe.
 */
static int kc_kret_register(struct kc_kret *k)
{
	memset(&k->rp, 0, sizeof(k->rp));
	if (k->by_kprobe) {
		if (!k->ops.pre)
			return -EINVAL;
		k->rp.kp.symbol_name = k->symbol;
		k->rp.kp.pre_handler = k->ops.pre;
		return register_kprobe(&k->rp.kp);
	}
	k->by_fprobe = k->ops.fentry && kc_fprobes &&
		       !kc_fprobe_register(&k->fp, k->symbol, k->ops.fentry,
					   kc_fprobe_return,
					   sizeof(struct kc_kret_data),
					   kc_maxactive);
	if (k->by_fprobe)
		return 0;
	k->rp.kp.symbol_name = k->symbol;
	k->rp.entry_handler = k->ops.entry;
	k->rp.handler = kc_kret_return;
	k->rp.data_size = sizeof(struct kc_kret_data);
	k->rp.maxactive = kc_maxactive;
	return register_kretprobe(&k->rp);
}

/*
 * Tries each candidate symbol of @k, in the table's order, under each of its
 * names; the first that is not -ENOENT decides. The result is in k->state.
 */
static int kc_kret_attach(struct kc_kret *k)
{
	unsigned int c, i;
	int err = -ENOENT;

	for (c = 0; k->symbols[c] && err == -ENOENT; c++) {
		if (k->ops.stands && !k->ops.stands(c))
			continue;
		k->cand = c;
		for (i = 0; i < ARRAY_SIZE(kc_clone_suffixes); i++) {
			snprintf(k->symbol, sizeof(k->symbol), "%s%s",
				 k->symbols[c], kc_clone_suffixes[i]);
			err = kc_kret_register(k);
			if (err != -ENOENT)
				break;
		}
	}
	/* Absent under every name: show the first candidate's own name. */
	if (err == -ENOENT)
		strscpy(k->symbol, k->symbols[0], sizeof(k->symbol));
	k->err = err;
	if (!err)
		k->state = KC_PROBE_ATTACHED;
	else if (err == -ENOENT)
		k->state = KC_PROBE_ABSENT;
	else
		k->state = KC_PROBE_ERROR;
	return err;
}

static void kc_kret_detach(struct kc_kret *k, enum kc_probe_state state)
{
	if (k->state == KC_PROBE_ATTACHED && k->by_fprobe) {
		kc_fprobe_unregister(&k->fp);
		/*
		 * A return handler may still run, preemption off: unlike
		 * unregister_kretprobe(), fprobe's does not wait for it.
		 */
		synchronize_rcu();
		k->missed_before += kc_fprobe_missed(&k->fp);
	} else if (k->state == KC_PROBE_ATTACHED && k->by_kprobe) {
		unregister_kprobe(&k->rp.kp);
		k->missed_before += k->rp.kp.nmissed;
	} else if (k->state == KC_PROBE_ATTACHED) {
		unregister_kretprobe(&k->rp);
		/* nmissed goes with the probe: keep what it counted. */
		k->missed_before += k->rp.nmissed;
	}
	k->state = state;
}

/* @k's symbols are in @module (NULL: in vmlinux). */
static bool kc_kret_in(const struct kc_kret *k, const char *module)
{
	if (!module || !k->module)
		return module == k->module;
	return !strcmp(k->module, module);
}

/*
 * A module's probes are attached together. Whether the module is loaded is
 * told by the probes themselves: if none of its functions can be found, it
 * is not (kallsyms and find_module() are not exported to modules).
 */
static void kc_attach_module(const char *module)
{
	bool loaded = false;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		struct kc_kret *k = &kc_krets[i];

		if (k->state == KC_PROBE_ATTACHED || !kc_kret_in(k, module))
			continue;
		if (kc_kret_attach(k) != -ENOENT)
			loaded = true;
	}
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		struct kc_kret *k = &kc_krets[i];

		if (module && kc_kret_in(k, module) &&
		    k->state == KC_PROBE_ABSENT && !loaded)
			k->state = KC_PROBE_WAITING;
		else if (k->state == KC_PROBE_ERROR)
			pr_warn("%s: cannot probe %s: error %d\n",
				kc_metric_name(k->metric), k->symbol, k->err);
	}
}

static int kc_module_event(struct notifier_block *nb, unsigned long action,
			   void *data)
{
	struct module *mod = data;
	unsigned int i;

	if (action != MODULE_STATE_LIVE && action != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&kc_probes_lock);
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		struct kc_kret *k = &kc_krets[i];

		if (!k->module || !kc_kret_in(k, mod->name))
			continue;
		if (action == MODULE_STATE_GOING) {
			kc_kret_detach(k, KC_PROBE_WAITING);
			continue;
		}
		/* LIVE: try once, below, for the whole module. */
		if (k->state != KC_PROBE_ATTACHED)
			k->state = KC_PROBE_OFF;
	}
	if (action == MODULE_STATE_LIVE)
		kc_attach_module(mod->name);
	mutex_unlock(&kc_probes_lock);
	return NOTIFY_DONE;
}

static struct notifier_block kc_module_nb = {
	.notifier_call = kc_module_event,
};

static void kc_kretprobes_free(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		free_percpu(kc_krets[i].hits);
		kc_krets[i].hits = NULL;
	}
}

int kc_kretprobes_init(const struct kc_kret_ops *const *hooks,
		       unsigned int maxactive, bool fprobes)
{
	unsigned int i;
	int err;

	kc_maxactive = maxactive;
	kc_fprobes = fprobes;
	kc_krets_init(hooks);
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		kc_krets[i].hits = alloc_percpu(u64);
		if (!kc_krets[i].hits) {
			kc_kretprobes_free();
			return -ENOMEM;
		}
	}
	/* First, so that a module loading meanwhile is not missed. */
	err = register_module_notifier(&kc_module_nb);
	if (err) {
		kc_kretprobes_free();
		return err;
	}
	mutex_lock(&kc_probes_lock);
	kc_attach_module(NULL);
	kc_attach_module(kc_home_name(KC_HOME_KVM));
	kc_attach_module(kc_home_name(KC_HOME_IRQBYPASS));
	mutex_unlock(&kc_probes_lock);
	/* A probe that cannot attach is reported in `probes`, not fatal. */
	return 0;
}

void kc_kretprobes_exit(void)
{
	unsigned int i;

	unregister_module_notifier(&kc_module_nb);
	mutex_lock(&kc_probes_lock);
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++)
		kc_kret_detach(&kc_krets[i], KC_PROBE_OFF);
	mutex_unlock(&kc_probes_lock);
	kc_kretprobes_free();
}

unsigned int kc_kretprobes_count(void)
{
	return ARRAY_SIZE(kc_krets);
}

static u64 kc_kret_hits(const struct kc_kret *k)
{
	return kc_percpu_sum(k->hits);
}

/* Misses since load: this attachment's and those of earlier ones. */
static u64 kc_kret_missed(const struct kc_kret *k)
{
	u64 missed = k->missed_before;

	/* Written by the kprobe core without a lock: a counter, read once. */
	if (k->state == KC_PROBE_ATTACHED && k->by_kprobe)
		missed += READ_ONCE(k->rp.kp.nmissed);
	else if (k->state == KC_PROBE_ATTACHED)
		missed += k->by_fprobe ? kc_fprobe_missed(&k->fp) :
			  READ_ONCE(k->rp.nmissed);
	return missed;
}

void kc_kretprobe_status(unsigned int i, struct kc_probe_status *st)
{
	const struct kc_probe_desc *desc = kc_probe_desc(i);
	const struct kc_kret *k = &kc_krets[i];

	/* From the table, which is there before kc_kretprobes_init(). */
	strscpy(st->metric, kc_metric_name(desc->metric), sizeof(st->metric));
	st->m = desc->metric;
	mutex_lock(&kc_probes_lock);
	/* How it is attached: an fprobe stands for the table's kretprobe. */
	strscpy(st->kind, k->state == KC_PROBE_ATTACHED && k->by_fprobe ?
		KC_KIND_FPROBE : desc->kind, sizeof(st->kind));
	strscpy(st->symbol, k->symbol[0] ? k->symbol : desc->symbols[0],
		sizeof(st->symbol));
	kc_probe_state_text(st->state, sizeof(st->state), k->state, k->err);
	st->hits = kc_kret_hits(k) - k->base_hits;
	st->missed = kc_kret_missed(k) - k->base_missed;
	mutex_unlock(&kc_probes_lock);
}

/*
 * Each attached kretprobe holds maxactive instances, used or not (a plain
 * kprobe none), and so does an fprobe before 6.14, in a rethook of its own;
 * from 6.14 an fprobe's returns are kept on the tasks' own stacks, which
 * are the kernel's.
 */
void kc_kretprobes_mem(struct kc_mem *mem)
{
	size_t size = sizeof(struct kretprobe_instance) +
		      sizeof(struct kc_kret_data);
	size_t fsize = KC_FPROBE_NODE_SIZE(sizeof(struct kc_kret_data));
	unsigned int i;

	mem->percpu += ARRAY_SIZE(kc_krets) * sizeof(u64);
	mutex_lock(&kc_probes_lock);
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		if (kc_krets[i].state != KC_PROBE_ATTACHED ||
		    kc_krets[i].by_kprobe ||
		    (kc_krets[i].by_fprobe && !KC_FPROBE_POOLED))
			continue;
		mem->kretprobe_instances += kc_maxactive;
		mem->kretprobes += kc_kretprobe_pool_bytes(kc_maxactive,
				   kc_krets[i].by_fprobe ? fsize : size);
	}
	mutex_unlock(&kc_probes_lock);
}

void kc_kretprobes_reset(void)
{
	unsigned int i;

	mutex_lock(&kc_probes_lock);
	for (i = 0; i < ARRAY_SIZE(kc_krets); i++) {
		struct kc_kret *k = &kc_krets[i];

		k->base_hits = kc_kret_hits(k);
		k->base_missed = kc_kret_missed(k);
	}
	mutex_unlock(&kc_probes_lock);
}
