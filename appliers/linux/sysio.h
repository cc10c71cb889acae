/* SPDX-License-Identifier: MIT */
/* /proc and /sys access below the --root prefix (fixtures, offline hosts). */
#ifndef NT_SYSIO_H
#define NT_SYSIO_H

#include <stdbool.h>
#include <stddef.h>

extern const char *nt_sys_root;	/* "" or the --root directory */

/* Prefixes path (which starts with '/') with the root; malloc'd. */
char *nt_sys_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Reads a small file, strips the trailing newline; malloc'd or NULL (errno set). */
char *nt_sys_read(const char *path);
/* Writes s to path (counted as a write); 0 or -errno. */
int nt_sys_write(const char *path, const char *s);
bool nt_sys_exists(const char *path);
bool nt_sys_writable(const char *path);
/* mkdir -p */
void nt_mkdirs(const char *path);

#endif
