/* SPDX-License-Identifier: MIT */
/* Where nettune finds its data: capability tables and policy profiles. */
#ifndef NT_PATHS_H
#define NT_PATHS_H

/* "nics" or "profiles": $NETTUNE_DATADIR/<what>, then <exe>/../share/nettune/<what>
 * (installed or DESTDIR tree), then the source tree (only for an executable
 * in the build tree), then the configured data directory.  Returns a malloc'd
 * path of the first directory that exists, or NULL. */
char *nt_data_dir(const char *what);
#endif
