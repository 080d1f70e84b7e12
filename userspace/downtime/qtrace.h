/* SPDX-License-Identifier: GPL-2.0 */
/*
 * QEMU's trace lines (the log backend: -D FILE, stderr, a libvirt domain
 * log) and the migration downtime that their vmstate_downtime_* events tell,
 * for `kvmchurn downtime`.
 *
 * qtrace.c reads one line; migration.c puts the events of a log together
 * into migrations, one a side (source or destination), checkpoint by
 * checkpoint.
 */
#ifndef KVMCHURN_QTRACE_H
#define KVMCHURN_QTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KC_QT_NAME_LEN	64	/* a checkpoint's or a device's name */

enum kc_qt_kind {
	KC_QT_NOT_TRACE,	/* not a QEMU trace line */
	KC_QT_OTHER,		/* a trace event that says nothing of downtime */
	KC_QT_CHECKPOINT,	/* vmstate_downtime_checkpoint NAME */
	KC_QT_SAVE,		/* vmstate_downtime_save type= idstr= ... */
	KC_QT_LOAD,		/* vmstate_downtime_load, the same fields */
	KC_QT_STATE,		/* migrate_set_state new state NAME */
};

struct kc_qline {
	enum kc_qt_kind kind;
	bool has_time;		/* TID@SEC.USEC: or an ISO-8601 UTC time */
	int64_t time_us;	/* microseconds since the epoch */
	bool has_tid;		/* TID@SEC.USEC: only */
	long tid;
	char name[KC_QT_NAME_LEN];	/* checkpoint, state, or the device's idstr */
	bool iterable;		/* save/load: type=iterable */
	unsigned long instance_id;
	uint64_t downtime_us;	/* save/load: downtime= */
};

/*
 * Reads @len bytes of @line (no newline). Every kind but KC_QT_NOT_TRACE
 * fills the time and thread fields it has; the event fields are filled for
 * their kinds. A vmstate_downtime_* event with a missing or malformed field
 * is KC_QT_NOT_TRACE: a cut line is not guessed at.
 */
enum kc_qt_kind kc_qt_parse(const char *line, size_t len, struct kc_qline *q);

#endif /* KVMCHURN_QTRACE_H */
