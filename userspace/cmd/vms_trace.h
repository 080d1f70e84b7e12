/* SPDX-License-Identifier: GPL-2.0 */
/* kvmchurn vms --trace-event (vms_trace.c): the VMs as Chrome Trace Event JSON. */
#ifndef KVMCHURN_VMS_TRACE_H
#define KVMCHURN_VMS_TRACE_H

#include <stdio.h>

#include "lib/vms.h"

/* The VMs shown of @v, a process each, on @f. */
void kc_vms_trace_event(FILE *f, const struct kc_vms *v);

#endif /* KVMCHURN_VMS_TRACE_H */
