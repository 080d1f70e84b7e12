// SPDX-License-Identifier: GPL-2.0
/*
 * asuser UID COMMAND [ARGS...]: run COMMAND as UID (group UID, no
 * supplementary groups), for the scenarios that try the module's files as a
 * user that is not root (busybox's setpriv cannot change ids).
 * Exit status 127 when it cannot become UID or run COMMAND.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long id;

	if (argc < 3) {
		fprintf(stderr, "usage: asuser UID COMMAND [ARGS...]\n");
		return 127;
	}
	errno = 0;
	id = strtol(argv[1], &end, 10);
	if (errno || *end || id <= 0 || id > 65535) {
		fprintf(stderr, "asuser: '%s' is not a user id from 1 to 65535\n", argv[1]);
		return 127;
	}
	if (setgroups(0, NULL) || setgid((gid_t)id) || setuid((uid_t)id)) {
		fprintf(stderr, "asuser: cannot become uid %ld: %s\n", id, strerror(errno));
		return 127;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "asuser: %s: %s\n", argv[2], strerror(errno));
	return 127;
}
