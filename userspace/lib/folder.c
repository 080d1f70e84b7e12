// SPDX-License-Identifier: GPL-2.0
/*
 * The module's folder, debugfs's or procfs's: which one, reading its raw
 * file or a saved one, and writing its controls (to the module parameters
 * where debugfs cannot take them), with errors that name the problem and
 * the fix (module not loaded, debugfs not mounted, not root).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "folder.h"

const char *kc_module_dir(void)
{
	struct stat st;

	if (stat(KC_DEFAULT_DIR, &st) && errno == ENOENT &&
	    !stat(KC_PROC_DIR, &st))
		return KC_PROC_DIR;
	return KC_DEFAULT_DIR;
}

bool kc_is_module_dir(const char *dir)
{
	return !strcmp(dir, KC_DEFAULT_DIR) || !strcmp(dir, KC_PROC_DIR);
}

/* Is @path a folder of procfs (whose views have no controls beside them)? */
static bool on_procfs(const char *path)
{
	struct statfs fs;

	return !statfs(path, &fs) && fs.f_type == PROC_SUPER_MAGIC;
}

static bool dir_is_empty(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	bool empty = true;

	if (!d)
		return false;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = false;
	closedir(d);
	return empty;
}

static void not_root(const char *cmd, const char *path, int err)
{
	kc_err(cmd, "cannot open %s: %s: the module's files are root-only: run kvmchurn as root (sudo kvmchurn %s)", path, strerror(err), cmd);
}

/*
 * Why @path, a file of the module's folder @g->dir, could not be opened
 * (@err), in one message that says what to do.
 */
static void explain(const char *cmd, const struct kc_global *g,
		    const char *path, int err)
{
	const char *dir = g->dir, *parent;
	char buf[4096];
	struct statfs fs;
	struct stat st;

	if ((err == EACCES || err == EPERM) && geteuid()) {
		not_root(cmd, path, err);
		return;
	}
	if (err == EPERM) {
		kc_err(cmd, "cannot open %s: %s: is the kernel locked down (/sys/kernel/security/lockdown)?", path, strerror(err));
		return;
	}
	if (err == ENOENT && stat(dir, &st)) {
		err = errno;
		if (err == EACCES && geteuid()) {
			not_root(cmd, dir, err);
			return;
		}
		if (err != ENOENT) {
			kc_err(cmd, "cannot open %s: %s",
				dir, strerror(err));
			return;
		}
		snprintf(buf, sizeof(buf), "%s", dir);
		parent = dirname(buf);
		if (!statfs(parent, &fs) && (fs.f_type == DEBUGFS_MAGIC ||
					     fs.f_type == PROC_SUPER_MAGIC)) {
			kc_err(cmd, "the kvmchurn module is not loaded (there is no %s): load it with 'modprobe kvmchurn'", dir);
			return;
		}
		/*
		 * An unmounted debugfs leaves an empty /sys/kernel/debug. A
		 * module loaded (its parameters are there) without
		 * /proc/kvmchurn is older than this client.
		 */
		if (!strcmp(parent, KC_DEBUGFS) && dir_is_empty(parent)) {
			if (access(g->params, F_OK))
				kc_err(cmd, "the kvmchurn module is not loaded (there is no %s, and debugfs is not mounted on %s): load it with 'modprobe kvmchurn'", KC_PROC_DIR, parent);
			else
				kc_err(cmd, "debugfs is not mounted on %s, and the module loaded is too old to have %s: mount it with 'mount -t debugfs none %s'", parent, KC_PROC_DIR, parent);
			return;
		}
		kc_err(cmd, "there is no folder %s: -d names the module's folder (default %s)", dir, KC_DEFAULT_DIRS);
		return;
	}
	if (err == ENOENT || err == ENOTDIR) {
		kc_err(cmd, "cannot open %s: %s: %s is not the module's folder (default %s)", path, strerror(err), dir, KC_DEFAULT_DIRS);
		return;
	}
	kc_err(cmd, "cannot open %s: %s", path, strerror(err));
}

static char *join(const char *dir, const char *file)
{
	size_t len = strlen(dir) + strlen(file) + 2;
	char *path = malloc(len);

	if (path)
		snprintf(path, len, "%s/%s", dir, file);
	return path;
}

/* Reads and parses @path; @g, for explaining a failed open, or NULL. */
static int read_raw(const char *cmd, const struct kc_global *g,
		    const char *path, struct kc_snap *s, char **text,
		    size_t *len)
{
	char *buf;
	size_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (g)
			explain(cmd, g, path, err);
		else
			kc_err(cmd, "cannot open %s: %s",
				path, strerror(err));
		return KC_EXIT_CANNOT_START;
	}
	if (kc_read_fd(fd, &buf, &n)) {
		kc_err(cmd, "reading %s: %s", path,
			strerror(errno));
		close(fd);
		return KC_EXIT_CANNOT_START;
	}
	close(fd);
	if (kc_snap_parse(cmd, path, buf, n, s)) {
		free(buf);
		return KC_EXIT_CANNOT_START;
	}
	if (text) {
		*text = buf;
		*len = n;
	} else {
		free(buf);
	}
	return KC_EXIT_OK;
}

int kc_read_module(const char *cmd, const struct kc_global *g,
		   struct kc_snap *s, char **text, size_t *len)
{
	char *path = join(g->dir, "raw");
	int rc;

	if (!path) {
		perror("kvmchurn");
		return KC_EXIT_CANNOT_START;
	}
	rc = read_raw(cmd, g, path, s, text, len);
	free(path);
	return rc;
}

int kc_read_module_file(const char *cmd, const struct kc_global *g,
			const char *file, char **text, size_t *len)
{
	char *path = join(g->dir, file);
	int fd, err;

	if (!path) {
		perror("kvmchurn");
		return KC_EXIT_CANNOT_START;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		/* A folder with a raw file but no @file: an older module. */
		if (err == ENOENT && !access(g->dir, F_OK))
			kc_err(cmd, "there is no %s: the module loaded is older than this client: load the kvmchurn.ko of the same version", path);
		else
			explain(cmd, g, path, err);
		free(path);
		return KC_EXIT_CANNOT_START;
	}
	if (kc_read_fd(fd, text, len)) {
		kc_err(cmd, "reading %s: %s", path, strerror(errno));
		close(fd);
		free(path);
		return KC_EXIT_CANNOT_START;
	}
	close(fd);
	free(path);
	return KC_EXIT_OK;
}

int kc_read_snapshot(const char *cmd, const char *path, struct kc_snap *s)
{
	struct stat st;
	char *raw;
	int rc;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return read_raw(cmd, NULL, path, s, NULL, NULL);
	raw = join(path, "raw");
	if (!raw) {
		perror("kvmchurn");
		return KC_EXIT_CANNOT_START;
	}
	rc = read_raw(cmd, NULL, raw, s, NULL, NULL);
	free(raw);
	return rc;
}

/*
 * Opens @path for writing and writes @value to it in one write() (the
 * module takes each write whole, never split): 0, or -1 with *@at saying
 * where it failed (KC_AT_OPEN, KC_AT_WRITE), *@err the errno and *@n what
 * write() returned (a short write: *@err 0).
 */
enum kc_write_at { KC_AT_OPEN, KC_AT_WRITE };

static int write_once(const char *path, const char *value,
		      enum kc_write_at *at, int *err, ssize_t *n)
{
	size_t len = strlen(value);
	int fd;

	*at = KC_AT_OPEN;
	*n = -1;
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		return -1;
	}
	*at = KC_AT_WRITE;
	*n = write(fd, value, len);
	*err = *n < 0 ? errno : 0;
	if (close(fd) && *n >= 0) {
		*n = -1;
		*err = errno;
	}
	return *n == (ssize_t)len ? 0 : -1;
}

/*
 * A failed write() of @value to @path, in one message; after "@why; " when
 * @why is not NULL.
 */
static void write_failed(const char *cmd, const char *why, const char *path,
			 const char *value, int err, ssize_t n)
{
	const char *sep = why ? "; " : "";
	int len = (int)strlen(value) - 1;	/* shown without its newline */

	if (!why)
		why = "";
	if (n >= 0)
		kc_err(cmd, "%s%swriting '%.*s' to %s: only %zd of %d bytes written", why, sep, len, value, path, n, len + 1);
	else if (err == EINVAL)
		kc_err(cmd, "%s%sthe module refused '%.*s' in %s (%s)", why, sep, len, value, path, strerror(err));
	else
		kc_err(cmd, "%s%swriting '%.*s' to %s: %s", why, sep, len, value, path, strerror(err));
}

/*
 * Debugfs would not take the write (lockdown, or the file cannot be opened
 * for writing): the module parameter of the same name, in @g->params.
 * @why says what debugfs did, for the messages. KC_EXIT_OK after saying
 * which was written; -1 when there is no such parameter (the caller then
 * explains the debugfs failure alone); else KC_EXIT_CANNOT_START after a
 * message.
 */
static int write_param(const char *cmd, const struct kc_global *g,
		       const char *file, const char *value, const char *why)
{
	char *path = join(g->params, file);
	enum kc_write_at at;
	ssize_t n;
	int err;

	if (!path) {
		perror("kvmchurn");
		return KC_EXIT_CANNOT_START;
	}
	if (!write_once(path, value, &at, &err, &n)) {
		kc_err(cmd, "%s; wrote %s", why, path);
		free(path);
		return KC_EXIT_OK;
	}
	if (at == KC_AT_OPEN && err == ENOENT) {
		free(path);
		return -1;
	}
	if (at == KC_AT_OPEN)
		kc_err(cmd, "%s; cannot open %s either: %s", why, path, strerror(err));
	else
		write_failed(cmd, why, path, value, err, n);
	free(path);
	return KC_EXIT_CANNOT_START;
}

int kc_write_control(const char *cmd, const struct kc_global *g,
		     const char *file, const char *value)
{
	char *path = join(g->dir, file), *why;
	enum kc_write_at at;
	size_t size;
	ssize_t n;
	int err, rc;

	if (!path) {
		perror("kvmchurn");
		return KC_EXIT_CANNOT_START;
	}
	if (!write_once(path, value, &at, &err, &n)) {
		free(path);
		return KC_EXIT_OK;
	}
	/*
	 * Root whom debugfs refuses: under lockdown (LOCKDOWN_DEBUGFS) the open
	 * for writing fails with EPERM on every kernel; a write refused with
	 * EPERM, or a file that cannot be opened at all (debugfs not mounted,
	 * or /proc/kvmchurn, which has no controls), send it to the parameter
	 * too. A value refused (EINVAL) is not retried.
	 */
	if (!geteuid() && ((at == KC_AT_OPEN && err != EINVAL) ||
			   (at == KC_AT_WRITE && n < 0 && err == EPERM))) {
		size = strlen(path) + strlen(strerror(err)) + 32;
		why = malloc(size);
		if (!why) {
			perror("kvmchurn");
			free(path);
			return KC_EXIT_CANNOT_START;
		}
		if (err == EPERM)
			snprintf(why, size, "debugfs is locked down");
		else if (err == ENOENT && on_procfs(g->dir))
			snprintf(why, size, "%s has no controls", g->dir);
		else
			snprintf(why, size, "cannot open %s: %s", path, strerror(err));
		rc = write_param(cmd, g, file, value, why);
		free(why);
		if (rc >= 0) {
			free(path);
			return rc;
		}
	}
	if (at == KC_AT_OPEN)
		explain(cmd, g, path, err);
	else if ((err == EACCES || err == EPERM) && geteuid())
		not_root(cmd, path, err);
	else
		write_failed(cmd, NULL, path, value, err, n);
	free(path);
	return KC_EXIT_CANNOT_START;
}
