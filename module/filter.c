// SPDX-License-Identifier: GPL-2.0
/*
 * filter.c - which processes are traced.
 *
 * A task matches when the comm of its thread-group leader is one of the
 * filter's names, so a VMM's threads (Firecracker's "fc_vcpu 0") count as
 * the VMM. "*" matches every task. The filter is read in probe context under
 * RCU, as a preemption-disabled reader (cheaper than rcu_read_lock() on
 * preemptible kernels, and kfree_rcu() waits for such readers too), and
 * replaced as a whole, never edited in place.
 *
 * Every exit on the host asks three times (exit_mmap, sched_process_exit,
 * exit_files), and almost always of a task that is not traced: a name is
 * compared as two words under a mask, and each CPU keeps the answer for the
 * last exiting task it asked about (kc_filter_exiting() in exit.h reads
 * it inline), so an exit evaluates the filter once.
 */
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "exit.h"

/*
 * A name as the comm it matches: its bytes and NUL, the rest masked off.
 * word holds the name, zero-padded: the filter file shows it from there.
 */
struct kc_filter_key {
	u64 word[2];
	u64 mask[2];
};

struct kc_filter {
	struct rcu_head rcu;
	bool all;
	unsigned int nr;
	struct kc_filter_key keys[KC_FILTER_MAX_NAMES];
};

/* The client checks names against the same length; a key holds a comm. */
static_assert(KC_COMM_LEN == TASK_COMM_LEN);
static_assert(sizeof_field(struct kc_filter_key, word) == TASK_COMM_LEN);

static struct kc_filter __rcu *kc_filter;
static DEFINE_MUTEX(kc_filter_lock);	/* serializes writers */
DEFINE_PER_CPU(struct kc_exiting, kc_exiting);

static void kc_filter_key_set(struct kc_filter_key *k, const char *name,
			      size_t len)
{
	memset(k, 0, sizeof(*k));
	memcpy(k->word, name, len);
	memset(k->mask, 0xff, len + 1);
}

/*
 * Parses "a b,c" into @f. -EINVAL on an empty list, a name of 16 characters
 * or more (a comm has at most 15), more than KC_FILTER_MAX_NAMES names, or
 * "*" together with names.
 */
static int kc_filter_parse(const char *spec, struct kc_filter *f)
{
	const char *p = spec;

	memset(f, 0, sizeof(*f));
	while (*p) {
		size_t len = strcspn(p, KC_FILTER_SEPS);

		if (!len) {
			p++;
			continue;
		}
		if (len >= KC_COMM_LEN || f->nr == KC_FILTER_MAX_NAMES)
			return -EINVAL;
		if (len == sizeof(KC_FILTER_ALL) - 1 &&
		    !memcmp(p, KC_FILTER_ALL, len))
			f->all = true;
		kc_filter_key_set(&f->keys[f->nr++], p, len);
		p += len;
	}
	if (!f->nr || (f->all && f->nr > 1))
		return -EINVAL;
	return 0;
}

/* Whether @t's leader's comm is one of @f's names. */
static __always_inline bool kc_filter_names(const struct kc_filter *f,
					    struct task_struct *t)
{
	const char *comm = READ_ONCE(t->group_leader)->comm;
	unsigned int i;
	u64 c0, c1;

	/* A racing prctl(PR_SET_NAME) can only make this one read wrong. */
	memcpy(&c0, comm, sizeof(c0));
	memcpy(&c1, comm + sizeof(c0), sizeof(c1));
	for (i = 0; i < f->nr; i++) {
		const struct kc_filter_key *k = &f->keys[i];

		if ((c0 & k->mask[0]) == k->word[0] &&
		    (c1 & k->mask[1]) == k->word[1])
			return true;
	}
	return false;
}

/*
 * Whether @t matches, preemption off: an RCU-sched reader already. Inlined
 * into the exit path's kc_exiting_ask(), whose callers have it off.
 */
static __always_inline bool kc_filter_test(struct task_struct *t)
{
	const struct kc_filter *f = rcu_dereference_sched(kc_filter);

	return f && (f->all || kc_filter_names(f, t));
}

bool kc_filter_match(struct task_struct *t)
{
	bool match;

	rcu_read_lock_sched_notrace();
	match = kc_filter_test(t);
	rcu_read_unlock_sched_notrace();
	return match;
}

/* This CPU's answer for @t is @match (kc_filter_exiting()'s memo). */
static void kc_exiting_keep(const struct task_struct *t, bool match)
{
	__this_cpu_write(kc_exiting.task, t);
	__this_cpu_write(kc_exiting.start_time, t->start_time);
	__this_cpu_write(kc_exiting.match, match);
}

/*
 * The filter for current, kept as this CPU's memo if current is exiting
 * (its comm no longer changes) and this is task context (so that no probe
 * interrupts another's use of the memo; the caller has preemption off, so
 * no other task's does either).
 */
bool kc_exiting_ask(void)
{
	struct task_struct *t = current;
	bool match = kc_filter_test(t);

	if ((t->flags & PF_EXITING) && in_task())
		kc_exiting_keep(t, match);
	return match;
}

/*
 * A new filter: every CPU's memo is dropped. An exit that computed its
 * answer under the old filter may still keep it, for the rest of that exit.
 */
static void kc_exiting_forget(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(per_cpu_ptr(&kc_exiting, cpu)->task, NULL);
}

bool kc_filter_all(void)
{
	const struct kc_filter *f;
	bool all;

	rcu_read_lock_sched_notrace();
	f = rcu_dereference_sched(kc_filter);
	all = f && f->all;
	rcu_read_unlock_sched_notrace();
	return all;
}

int kc_filter_format(char *buf, size_t len)
{
	const struct kc_filter *f;
	unsigned int i;
	int n = 0;

	rcu_read_lock();
	f = rcu_dereference(kc_filter);
	for (i = 0; f && i < f->nr; i++)
		n += scnprintf(buf + n, len - n, "%s%s", i ? " " : "",
			       (const char *)f->keys[i].word);
	rcu_read_unlock();
	return n;
}

void kc_filter_mem(struct kc_mem *mem)
{
	mem->slab += kc_kmalloc_size(sizeof(struct kc_filter));
}

/* Whether @spec is a filter that kc_filter_set() would take. */
int kc_filter_check(const char *spec)
{
	struct kc_filter f;

	return kc_filter_parse(spec, &f);
}

/* Replaces the filter as a whole; on error the old one stays. */
int kc_filter_set(const char *spec)
{
	struct kc_filter *f, *old;
	int err;

	f = kzalloc_obj(*f, GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	err = kc_filter_parse(spec, f);
	if (err) {
		kfree(f);
		return err;
	}
	mutex_lock(&kc_filter_lock);
	old = rcu_replace_pointer(kc_filter, f, lockdep_is_held(&kc_filter_lock));
	kc_exiting_forget();
	mutex_unlock(&kc_filter_lock);
	kfree_rcu(old, rcu);
	return 0;
}

int kc_filter_init(const char *spec)
{
	return kc_filter_set(spec);
}

void kc_filter_exit(void)
{
	struct kc_filter *f = rcu_replace_pointer(kc_filter, NULL, true);

	kc_exiting_forget();
	kfree_rcu(f, rcu);
}
