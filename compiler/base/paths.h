/* SPDX-License-Identifier: MIT */
/* Where nettune finds its data: the policy profiles that extends names
 * (the capability tables are built in, or come from --caps-dir). */
#ifndef NT_PATHS_H
#define NT_PATHS_H

/* "profiles" (policy profiles for extends): the first of
 * $NETTUNE_DATADIR/<what>, <exe>/../share/nettune/<what> (an installed or
 * relocated tree; not for an executable in its build tree), the source
 * tree's <what> (only for an executable in its build tree), and the
 * configured data directory, that exists and passes StrictModes (owned by
 * root or the invoking user, not writable by group or others, nor is any
 * directory above it but a sticky one); one that fails is skipped with a
 * warning on stderr.  Returns a malloc'd canonical path, or NULL (the
 * loader then has only the built-in policies). */
char *nt_data_dir(const char *what);
#endif
