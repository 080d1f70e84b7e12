/* SPDX-License-Identifier: GPL-2.0 */
/* kvmchurn vms --live (vms_live.c), which cmd/vms.c runs. */
#ifndef KVMCHURN_VMS_LIVE_H
#define KVMCHURN_VMS_LIVE_H

#include <stdbool.h>

#include "lib/client.h"

/* The live VMs of @g->dir's vms file, of process @pid if not 0. */
int kc_vms_live(const struct kc_global *g, bool json, unsigned long pid);

#endif /* KVMCHURN_VMS_LIVE_H */
