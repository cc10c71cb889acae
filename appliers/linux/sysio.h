/* SPDX-License-Identifier: MIT */
/* /proc and /sys access below the --root prefix (fixtures, offline hosts). */
#ifndef NT_SYSIO_H
#define NT_SYSIO_H

#include <dirent.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

extern const char *nt_sys_netns;	/* NULL or the --netns name entered */
extern const char *nt_sys_root;	/* "" or the --root directory */
/* Tests: resolve below the root with the O_NOFOLLOW walk, as on kernels
 * without openat2. */
extern bool nt_sys_no_openat2;

/*
 * Every /proc, /sys (and, under --root, /etc) path is built here: the root
 * followed by fmt, which knows %s, %d, %u and %%.  Each %s argument is one
 * path component (nt_path_component_problem): NULL with errno EINVAL when
 * one is empty, '.', '..', holds '/' or is over-long.  malloc'd.
 */
char *nt_sys_path(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* root + dir + "/" + rel, where rel is components separated by sep ('.'
 * for a sysctl key, '/' for a pidfile), each checked as above. */
char *nt_sys_path_rel(const char *dir, const char *rel, char sep);
/*
 * open(2) of a path from nt_sys_path: below the root it is resolved with
 * openat2(RESOLVE_IN_ROOT) (or an equivalent walk where the kernel lacks
 * it), so no symlink or ".." leads outside the root.  fd or -errno.
 */
int nt_sys_open(const char *path, int flags, mode_t mode);
/* Between these two calls (nested), files below --root are opened
 * relative to one descriptor of the root taken by the first. */
void nt_sys_hold_root(void);
void nt_sys_release_root(void);
/* Reads a small file, strips the trailing newline; malloc'd or NULL (errno set). */
char *nt_sys_read(const char *path);
/* Writes s to path (counted as a write); 0 or -errno. */
int nt_sys_write(const char *path, const char *s);
/* Creates or truncates path (0644) and writes s; 0 or -errno. */
int nt_sys_create(const char *path, const char *s);
int nt_sys_unlink(const char *path);
bool nt_sys_exists(const char *path);
/* The permission bits of path, or -errno (one open, where exists and
 * a stat take two). */
int nt_sys_mode(const char *path);
/* A directory below --root (nt_sys_open's rules), read entry by entry:
 * d_name and d_type of the returned entry, valid until the next read. */
struct nt_dir;
struct nt_dir *nt_sys_opendir(const char *path);
struct dirent *nt_sys_readdir(struct nt_dir *d);
void nt_sys_closedir(struct nt_dir *d);
/* readlink(2) of the link itself; length (not terminated) or -errno. */
ssize_t nt_sys_readlink(const char *path, char *buf, size_t size);
/* mkdir -p */
void nt_mkdirs(const char *path);

#endif
