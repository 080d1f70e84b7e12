// SPDX-License-Identifier: GPL-2.0
/*
 * record.c - what a probe does with a time: the switches it obeys (enable,
 * the unit chosen at load time) and kc_record(), the one way a stage's time
 * goes into its metric's histogram and, the same value, into its VM's
 * record. Below the probes and above hist.c and vms.c: control.c sets the
 * switches and resets what the probes count, and the probes never call it.
 */
#include <linux/math64.h>
#include <linux/time64.h>

#include "kvmchurn.h"

bool kc_enabled = true;
bool kc_unit_ns;

u64 kc_to_unit(u64 ns)
{
	return kc_unit_ns ? ns : div_u64(ns, NSEC_PER_USEC);
}

u64 kc_unit_nsec(void)
{
	return kc_unit_ns ? 1 : NSEC_PER_USEC;
}

const char *kc_unit_name(void)
{
	return kc_unit_ns ? "ns" : "us";
}

/*
 * A partitioned window @w ended: its length @window and its parts @part
 * (the rows after its metric, to other), once each into their histograms,
 * and its accounted share.
 */
void kc_record_window(enum kc_window w, u64 window, const u64 *part)
{
	const struct kc_window_desc *d = kc_window_desc(w);
	unsigned int m;

	if (d->metric >= KC_NR_METRICS)
		return;
	kc_hist_record(d->metric, window);
	for (m = d->metric + 1; m <= d->other; m++)
		kc_hist_record(m, part[m - d->metric - 1]);
	kc_vm_accounted(w, window, part[d->other - d->metric - 1]);
}

/* @value, in the module's unit, of stage @m; @by and @id name its VM. */
void kc_record(enum kc_metric m, u64 value, enum kc_vm_by by, u64 id)
{
	kc_hist_record(m, value);
	switch (by) {
	case KC_VM_BY_TGID:
		kc_vm_stage_tgid(id, m, value);
		break;
	case KC_VM_BY_KVM:
		kc_vm_stage_kvm(id, m, value);
		break;
	case KC_VM_BY_CREATING:
		kc_vm_stage_creating(id, m, value);
		break;
	case KC_VM_BY_CREATOR:
		kc_vm_stage_creator(id, m, value);
		break;
	case KC_VM_BY_NONE:
		break;
	}
}
