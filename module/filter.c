// SPDX-License-Identifier: GPL-2.0
/*
 * filter.c - which processes are traced.
 *
 * A task matches when the comm of its thread-group leader is one of the
 * filter's names, so a VMM's threads (Firecracker's "fc_vcpu 0") count as
 * the VMM. "*" matches every task. The filter is read in probe context under
 * RCU and replaced as a whole, never edited in place.
 */
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "compat.h"
#include "kvmchurn.h"

struct kc_filter {
	struct rcu_head rcu;
	bool all;
	unsigned int nr;
	char names[KC_FILTER_MAX_NAMES][KC_COMM_LEN];
};

/* The client checks names against the same length. */
static_assert(KC_COMM_LEN == TASK_COMM_LEN);

static struct kc_filter __rcu *kc_filter;
static DEFINE_MUTEX(kc_filter_lock);	/* serializes writers */

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
		memcpy(f->names[f->nr++], p, len);
		p += len;
	}
	if (!f->nr || (f->all && f->nr > 1))
		return -EINVAL;
	return 0;
}

bool kc_filter_match(struct task_struct *t)
{
	struct task_struct *leader = READ_ONCE(t->group_leader);
	char comm[TASK_COMM_LEN];
	const struct kc_filter *f;
	bool match = false;
	unsigned int i;

	/* A racing prctl(PR_SET_NAME) can only make this one read wrong. */
	memcpy(comm, leader->comm, sizeof(comm));
	comm[TASK_COMM_LEN - 1] = '\0';

	rcu_read_lock();
	f = rcu_dereference(kc_filter);
	if (f) {
		match = f->all;
		for (i = 0; i < f->nr && !match; i++)
			match = !strcmp(comm, f->names[i]);
	}
	rcu_read_unlock();
	return match;
}

bool kc_filter_all(void)
{
	const struct kc_filter *f;
	bool all;

	rcu_read_lock();
	f = rcu_dereference(kc_filter);
	all = f && f->all;
	rcu_read_unlock();
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
			       f->names[i]);
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

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	err = kc_filter_parse(spec, f);
	if (err) {
		kfree(f);
		return err;
	}
	mutex_lock(&kc_filter_lock);
	old = rcu_replace_pointer(kc_filter, f, lockdep_is_held(&kc_filter_lock));
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

	kfree_rcu(f, rcu);
}
