// SPDX-License-Identifier: GPL-2.0
/*
 * The module's debugfs folder: reading its raw file, or a saved one, and
 * writing its control files, with errors that name the problem and the fix
 * (module not loaded, debugfs not mounted, not root).
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

#include "debugfs.h"

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
 * Why @path, a file of the folder @dir, could not be opened (@err), in one
 * message that says what to do.
 */
static void explain(const char *cmd, const char *dir, const char *path, int err)
{
	char buf[4096];
	const char *parent;
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
		if (!statfs(parent, &fs) && fs.f_type == DEBUGFS_MAGIC) {
			kc_err(cmd, "the kvmchurn module is not loaded (there is no %s): load it with 'modprobe kvmchurn'", dir);
			return;
		}
		/* An unmounted debugfs leaves an empty /sys/kernel/debug. */
		if (!strcmp(parent, KC_DEBUGFS) && dir_is_empty(parent)) {
			kc_err(cmd, "debugfs is not mounted on %s: mount it with 'mount -t debugfs none %s'", parent, parent);
			return;
		}
		kc_err(cmd, "there is no folder %s: -d names the module's debugfs folder (default %s)", dir, KC_DEFAULT_DIR);
		return;
	}
	if (err == ENOENT || err == ENOTDIR) {
		kc_err(cmd, "cannot open %s: %s: %s is not the module's debugfs folder (default %s)", path, strerror(err), dir, KC_DEFAULT_DIR);
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

/* Reads and parses @path; @dir for explaining a failed open, or NULL. */
static int read_raw(const char *cmd, const char *dir, const char *path,
		    struct kc_snap *s, char **text, size_t *len)
{
	char *buf;
	size_t n;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		if (dir)
			explain(cmd, dir, path, err);
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
	rc = read_raw(cmd, g->dir, path, s, text, len);
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
			explain(cmd, g->dir, path, err);
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

int kc_write_control(const char *cmd, const struct kc_global *g,
		     const char *file, const char *value)
{
	char *path = join(g->dir, file);
	size_t len = strlen(value);
	ssize_t n;
	int fd, err;

	if (!path) {
		perror("kvmchurn");
		return KC_EXIT_CANNOT_START;
	}
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0) {
		explain(cmd, g->dir, path, errno);
		free(path);
		return KC_EXIT_CANNOT_START;
	}
	/* The module takes each write() whole: one call, never split. */
	n = write(fd, value, len);
	err = n < 0 ? errno : 0;
	if (close(fd) && n >= 0) {
		n = -1;
		err = errno;
	}
	if (n == (ssize_t)len) {
		free(path);
		return KC_EXIT_OK;
	}
	/* What is written ends in a newline; the message shows it without. */
	if (n >= 0)
		kc_err(cmd, "writing '%.*s' to %s: only %zd of %zu bytes written", (int)len - 1, value, path, n, len);
	else if (err == EINVAL)
		kc_err(cmd, "the module refused '%.*s' in %s (%s)", (int)len - 1, value, path, strerror(err));
	else if ((err == EACCES || err == EPERM) && geteuid())
		not_root(cmd, path, err);
	else
		kc_err(cmd, "writing '%.*s' to %s: %s",
			(int)len - 1, value, path, strerror(err));
	free(path);
	return KC_EXIT_CANNOT_START;
}
