/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's folder (folder.c), debugfs's or procfs's: which one, its raw
 * file read, or a saved one, and its control files written, with errors
 * that name the problem and the fix.
 */
#ifndef KVMCHURN_FOLDER_H
#define KVMCHURN_FOLDER_H

#include "snap.h"

/*
 * The module's folder when -d names none: KC_DEFAULT_DIR, debugfs's, unless
 * debugfs has no such folder (off, or not mounted) and KC_PROC_DIR exists.
 */
const char *kc_module_dir(void);
/* Is @dir one of the module's own folders, not a copy? */
bool kc_is_module_dir(const char *dir);

/*
 * The raw file of the folder @g->dir, parsed; with @text, its
 * bytes too (free() them). KC_EXIT_OK, or KC_EXIT_CANNOT_START after a
 * message that names the problem and its fix.
 */
int kc_read_module(const char *cmd, const struct kc_global *g,
		   struct kc_snap *s, char **text, size_t *len);
/* Any other file @file of @g->dir, whole, into *text (free() it). */
int kc_read_module_file(const char *cmd, const struct kc_global *g,
			const char *file, char **text, size_t *len);
/* A saved snapshot: a raw file, or a folder that holds one. */
int kc_read_snapshot(const char *cmd, const char *path, struct kc_snap *s);
/*
 * Writes @value to the control file @file of @g->dir, in one write(). When
 * debugfs refuses it as root (lockdown: EPERM), or the file cannot be opened
 * for writing (/proc/kvmchurn has none), writes the module parameter of the
 * same name in @g->params instead and says so on stderr in one line.
 */
int kc_write_control(const char *cmd, const struct kc_global *g,
		     const char *file, const char *value);

#endif /* KVMCHURN_FOLDER_H */
