// SPDX-License-Identifier: GPL-2.0
/*
 * filter.c - which processes are traced.
 *
 * A task matches when the comm of its thread-group leader is one of the
 * filter's names, so a VMM's threads (Firecracker's "fc_vcpu 0") count as
 * the VMM. "*" matches every task. The filter is read in probe context under
 * RCU and replaced as a whole, never edited in place.
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "kvmchurn.h"

#define KC_FILTER_MAX_NAMES	8

struct kc_filter {
	struct rcu_head rcu;
	bool all;
	unsigned int nr;
	char names[KC_FILTER_MAX_NAMES][TASK_COMM_LEN];
};

static struct kc_filter __rcu *kc_filter;

/* Parses "a b,c" into @f; -EINVAL on an empty list, too many or too long names. */
static int kc_filter_parse(const char *spec, struct kc_filter *f)
{
	const char *p = spec;

	memset(f, 0, sizeof(*f));
	while (*p) {
		size_t len = strcspn(p, " ,\t\n");

		if (!len) {
			p++;
			continue;
		}
		if (len >= TASK_COMM_LEN || f->nr == KC_FILTER_MAX_NAMES)
			return -EINVAL;
		if (len == 1 && *p == '*')
			f->all = true;
		memcpy(f->names[f->nr++], p, len);
		p += len;
	}
	return f->nr ? 0 : -EINVAL;
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

int kc_filter_init(const char *spec)
{
	struct kc_filter *f;
	int err;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	err = kc_filter_parse(spec, f);
	if (err) {
		kfree(f);
		return err;
	}
	rcu_assign_pointer(kc_filter, f);
	return 0;
}

void kc_filter_exit(void)
{
	struct kc_filter *f = rcu_replace_pointer(kc_filter, NULL, true);

	kfree_rcu(f, rcu);
}
