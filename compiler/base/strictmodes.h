/* SPDX-License-Identifier: MIT */
/* sshd's StrictModes: what root reads its trust from must be writable only
 * by root (or the invoking user). */
#ifndef NT_STRICTMODES_H
#define NT_STRICTMODES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* Owned by root or the invoking user, not group/world-writable (unless
 * sticky_ok and the sticky bit is set).  0, or -EPERM with err set; what
 * names the path for the message ("trust directory"). */
int nt_strict_owner_mode(const char *what, const char *path, const struct stat *st,
			 bool sticky_ok, char *err, size_t errlen);
/* The same for every directory above dir (resolved); sticky ones such as
 * /tmp pass.  what_dir: "trust directory", "state directory". */
int nt_strict_parents(const char *what_dir, const char *dir, char *err, size_t errlen);

#endif
