/* SPDX-License-Identifier: GPL-2.0 */
/* Just enough of QMP to switch QEMU's downtime trace events (qmp.c). */
#ifndef KVMCHURN_QMP_H
#define KVMCHURN_QMP_H

#include <stdbool.h>

/*
 * Switches QEMU's vmstate_downtime_* trace events on or off over the QMP
 * socket @path; prints what it did. An exit status.
 */
int kc_qmp_trace_downtime(const char *path, bool enable);

#endif /* KVMCHURN_QMP_H */
