/* SPDX-License-Identifier: MIT */
/* sshd's StrictModes for the directories root trusts (keys, state). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "strictmodes.h"

/* sshd's StrictModes: owned by root or by the user running nettune, and
 * not writable by group or others.  what is "trust directory" etc. */
int nt_strict_owner_mode(const char *what, const char *path, const struct stat *st,
			     bool sticky_ok, char *err, size_t errlen)
{
	uid_t me = getuid();
	mode_t w = st->st_mode & (S_IWGRP | S_IWOTH);

	if (st->st_uid != 0 && st->st_uid != me) {
		if (me)
			snprintf(err, errlen, "%s %s is owned by uid %u, not by root or uid %u "
				 "(the invoking user); refusing it", what, path,
				 (unsigned)st->st_uid, (unsigned)me);
		else
			snprintf(err, errlen, "%s %s is owned by uid %u, not by root; refusing it",
				 what, path, (unsigned)st->st_uid);
		return -EPERM;
	}
	if (w && !(sticky_ok && (st->st_mode & S_ISVTX))) {
		snprintf(err, errlen, "%s %s is %s (mode %04o); refusing it", what, path,
			 w == (S_IWGRP | S_IWOTH) ? "group- and world-writable" :
			 w == S_IWGRP ? "group-writable" : "world-writable",
			 (unsigned)(st->st_mode & 07777));
		return -EPERM;
	}
	return 0;
}

/* Every directory above a directory root trusts (as resolved) must be safe
 * too, or whoever may write there could swap the directory itself; a
 * sticky world-writable one such as /tmp is safe for entries it does not
 * own. */
int nt_strict_parents(const char *what_dir, const char *dir, char *err, size_t errlen)
{
	char *real = realpath(dir, NULL), *slash;
	struct stat st;
	int r = 0;

	if (!real) {
		r = -errno;
		snprintf(err, errlen, "%s %s: %s", what_dir, dir, strerror(-r));
		return r;
	}
	while (!r && (slash = strrchr(real, '/'))) {
		slash[slash == real] = '\0';	/* "/a/b" -> "/a" -> "/" */
		if (stat(real, &st)) {
			r = -errno;
			snprintf(err, errlen, "%s %s: %s: %s", what_dir, dir, real, strerror(-r));
		} else {
			char *what = nt_xasprintf("%s %s: parent", what_dir, dir);

			r = nt_strict_owner_mode(what, real, &st, true, err, errlen);
			free(what);
		}
		if (!strcmp(real, "/"))
			break;
	}
	free(real);
	return r;
}

