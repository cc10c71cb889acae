/* SPDX-License-Identifier: MIT */
/* File access for /proc and /sys, confined below --root (openat2 RESOLVE_IN_ROOT). */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/model/names.h"
#include "ethnl.h"
#include "sysio.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* symlinks followed in one walk, as the kernel's MAXSYMLINKS */
#define NT_WALK_LINKS 40
/* directories held open by one walk */
#define NT_WALK_DEPTH 128

const char *nt_sys_root = "";
const char *nt_sys_netns;
bool nt_sys_no_openat2;

/* Appends one input-derived component; false when it could leave the
 * directory the format names. */
static bool put_component(struct nt_buf *b, const char *c)
{
	if (!c || nt_path_component_problem(c))
		return false;
	nt_buf_puts(b, c);
	return true;
}

char *nt_sys_path(const char *fmt, ...)
{
	struct nt_buf b = {0};
	va_list ap;
	bool ok = true;
	const char *f;

	nt_buf_puts(&b, nt_sys_root);
	va_start(ap, fmt);
	for (f = fmt; *f && ok; f++) {
		if (*f != '%') {
			nt_buf_putc(&b, *f);
			continue;
		}
		switch (*++f) {
		case 's':
			ok = put_component(&b, va_arg(ap, const char *));
			break;
		case 'd': {
			int v = va_arg(ap, int);

			if (v < 0)
				nt_buf_putc(&b, '-');
			nt_buf_put_u64(&b, v < 0 ? -(uint64_t)v : (uint64_t)v);
			break;
		}
		case 'u':
			nt_buf_put_u64(&b, va_arg(ap, unsigned));
			break;
		case '%':
			nt_buf_putc(&b, '%');
			break;
		default:
			abort();	/* a format this builder does not know: a bug */
		}
	}
	va_end(ap);
	if (!ok) {
		nt_buf_free(&b);
		errno = EINVAL;
		return NULL;
	}
	return nt_buf_take(&b);
}

char *nt_sys_path_rel(const char *dir, const char *rel, char sep)
{
	struct nt_buf b = {0};
	const char *p = rel, *e;

	nt_buf_puts(&b, nt_sys_root);
	nt_buf_puts(&b, dir);
	if (!*p)
		goto bad;
	for (;;) {
		char *c;
		bool ok;

		e = strchrnul(p, sep);
		c = strndup(p, (size_t)(e - p));
		if (!c)
			goto bad;
		nt_buf_putc(&b, '/');
		ok = put_component(&b, c);
		free(c);
		if (!ok)
			goto bad;
		if (!*e)
			break;
		p = e + 1;
	}
	return nt_buf_take(&b);
bad:
	nt_buf_free(&b);
	errno = EINVAL;
	return NULL;
}

/* The part of path below the root, or NULL when path is not under it. */
static const char *below_root(const char *path)
{
	size_t rl = strlen(nt_sys_root);

	if (!rl || strncmp(path, nt_sys_root, rl) || (path[rl] && path[rl] != '/' &&
						      nt_sys_root[rl - 1] != '/'))
		return NULL;
	path += rl;
	while (*path == '/')
		path++;
	return *path ? path : ".";
}

static void pop_to(int *stack, size_t *depth, size_t to)
{
	while (*depth > to)
		close(stack[(*depth)--]);
}

/* Replaces the link at fd in the path being walked by its target: *todo
 * becomes target + the rest at *p, and *p its start. */
static int splice_link(int fd, char **todo, char **p, bool *absolute)
{
	char target[4096];
	ssize_t n = readlinkat(fd, "", target, sizeof(target) - 1);
	struct nt_buf b = {0};

	if (n <= 0)
		return n < 0 ? -errno : -ENOENT;
	target[n] = '\0';
	*absolute = target[0] == '/';
	nt_buf_puts(&b, target);
	nt_buf_puts(&b, *p);
	free(*todo);
	*todo = *p = nt_buf_take(&b);
	return 0;
}

struct walk {
	int stack[NT_WALK_DEPTH];	/* the root, then each directory entered */
	size_t depth;
	char *todo, *p;			/* the path left to resolve, at p */
	int links;
};

/* The last component, already opened O_PATH as fd, opened as asked. */
static int open_last(struct walk *w, const char *name, int fd, int flags, mode_t mode)
{
	if (flags & O_PATH)
		return fd;
	close(fd);
	fd = openat(w->stack[w->depth], name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	return fd < 0 ? -errno : fd;
}

/* Resolves one component; *done with the result (fd or -errno). */
static int walk_step(struct walk *w, const char *name, bool last, int flags, mode_t mode,
		     bool *done)
{
	struct stat st;
	bool absolute = false;
	int fd, r;

	*done = true;
	if (!strcmp(name, ".") || !strcmp(name, "..")) {
		if (name[1] && w->depth)
			pop_to(w->stack, &w->depth, w->depth - 1);
		*done = false;
		return 0;
	}
	fd = openat(w->stack[w->depth], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT && last && (flags & O_CREAT)) {
		fd = openat(w->stack[w->depth], name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
		return fd < 0 ? -errno : fd;
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		r = -errno;
		close(fd);
		return r;
	}
	if (S_ISLNK(st.st_mode) && !(last && (flags & O_NOFOLLOW))) {
		r = ++w->links > NT_WALK_LINKS ? -ELOOP : splice_link(fd, &w->todo, &w->p, &absolute);
		close(fd);
		if (absolute)
			pop_to(w->stack, &w->depth, 0);
		*done = r != 0;
		return r;
	}
	if (last)
		return open_last(w, name, fd, flags, mode);
	if (!S_ISDIR(st.st_mode) || w->depth + 1 >= NT_WALK_DEPTH) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -ENAMETOOLONG : -ENOTDIR;
	}
	w->stack[++w->depth] = fd;
	*done = false;
	return 0;
}

/*
 * openat2(RESOLVE_IN_ROOT) for kernels without it: one component at a time
 * with O_NOFOLLOW; a symlink's target is spliced into the rest of the path
 * and resolved again from the root (absolute) or the current directory,
 * and ".." never climbs above the root.
 */
static int walk_in_root(int rootfd, const char *rel, int flags, mode_t mode)
{
	struct walk w = {.depth = 0};
	bool done = false;
	int r = -ENOENT;

	w.stack[0] = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	if (w.stack[0] < 0)
		return -errno;
	w.todo = w.p = nt_xstrdup(rel);
	while (!done) {
		char *end, *next, *name;

		while (*w.p == '/')
			w.p++;
		if (!*w.p) {
			r = openat(w.stack[w.depth], ".", (flags & ~O_CREAT) | O_CLOEXEC);
			r = r < 0 ? -errno : r;
			break;
		}
		end = strchrnul(w.p, '/');
		for (next = end; *next == '/'; next++)
			;
		name = strndup(w.p, (size_t)(end - w.p));
		if (!name)
			r = -ENOMEM;
		w.p = end;
		if (name)
			r = walk_step(&w, name, !*next, flags, mode, &done);
		else
			done = true;
		free(name);
	}
	pop_to(w.stack, &w.depth, 0);
	close(w.stack[0]);
	free(w.todo);
	return r;
}

/* The root directory held open while a caller reads many files below it
 * (nt_sys_hold_root), instead of an open and a close of it per file. */
static int held_root = -1, held_count;

void nt_sys_hold_root(void)
{
	if (!held_count++ && *nt_sys_root)
		held_root = open(nt_sys_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

void nt_sys_release_root(void)
{
	if (held_count && !--held_count && held_root >= 0) {
		close(held_root);
		held_root = -1;
	}
}

static int open_in_root(const char *rel, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int rootfd = held_root >= 0 ? held_root : open(nt_sys_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	int fd = -1, tries;

	if (rootfd < 0)
		return -errno;
	for (tries = 0; !nt_sys_no_openat2 && tries < 8; tries++) {
		fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof(how));
		/* EAGAIN: a rename raced with "..": the kernel asks to retry */
		if (fd >= 0 || errno != EAGAIN)
			break;
	}
	/* still EAGAIN after 8 tries (renames anywhere on the system while
	 * the path has ".." or a symlink with one: sysfs device links do):
	 * the component walk has no such race */
	if (nt_sys_no_openat2 || (fd < 0 && (errno == ENOSYS || errno == EPERM || errno == EAGAIN)))
		fd = walk_in_root(rootfd, rel, flags, mode);
	else if (fd < 0)
		fd = -errno;
	if (rootfd != held_root)
		close(rootfd);
	return fd;
}

/* What is read or written as a file must be one: a FIFO would hang (opened
 * non-blocking, it is refused here), a device is never a setting, and under
 * --root a file with more than one link may be the host's own (a hardlink
 * into the tree) and is not written. */
static int check_file(int fd, int flags)
{
	struct stat st;

	if (fd < 0 || (flags & (O_PATH | O_DIRECTORY)))
		return fd;
	if (fstat(fd, &st)) {
		int e = -errno;

		close(fd);
		return e;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (*nt_sys_root && (flags & (O_WRONLY | O_RDWR)) && st.st_nlink > 1) {
		close(fd);
		return -EMLINK;
	}
	/* truncated only once it is known to be ours (open's O_TRUNC would
	 * have emptied a refused file already) */
	if ((flags & O_TRUNC) && ftruncate(fd, 0)) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

int nt_sys_open(const char *path, int flags, mode_t mode)
{
	const char *rel;
	int fd;

	if (!path)
		return -EINVAL;
	if (!(flags & (O_PATH | O_DIRECTORY)))
		flags |= O_NONBLOCK;
	rel = below_root(path);
	if (rel)
		return check_file(open_in_root(rel, flags & ~O_TRUNC, mode), flags);
	fd = open(path, (flags & ~O_TRUNC) | O_CLOEXEC, mode);
	/* the live host's /proc and /sys hold kernel files only (regular,
	 * one link): nothing to check, one fstat less per file read */
	if (fd >= 0 && !*nt_sys_root && !(flags & O_TRUNC) &&
	    (!strncmp(path, "/proc/", 6) || !strncmp(path, "/sys/", 5)) && !strstr(path, "/.."))
		return fd;
	return check_file(fd < 0 ? -errno : fd, flags);
}

/* The whole file, whatever its size (a /proc/interrupts of 96 CPUs and
 * 1024 IRQs is over 128 KiB): no fixed read limit. */
char *nt_sys_read(const char *path)
{
	struct nt_buf b = {0};
	ssize_t n = 0;
	int fd = nt_sys_open(path, O_RDONLY, 0);

	nt_io.file_reads++;
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	for (;;) {
		nt_buf_grow(&b, 65536);
		n = read(fd, b.p + b.n, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		b.n += (size_t)n;
	}
	if (b.n == 0 && n < 0) {
		int e = errno;

		close(fd);
		nt_buf_free(&b);
		errno = e;
		return NULL;
	}
	close(fd);
	nt_buf_grow(&b, 1);
	b.p[b.n] = '\0';
	while (b.n && (b.p[b.n - 1] == '\n' || b.p[b.n - 1] == ' '))
		b.p[--b.n] = '\0';
	return nt_buf_take(&b);
}

static int write_fd(int fd, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int e;

	if (fd < 0)
		return fd;
	n = write(fd, s, len);
	e = errno;
	if (close(fd) < 0 && n >= 0)
		return -errno;
	if (n < 0)
		return -e;
	return (size_t)n == len ? 0 : -EIO;
}

int nt_sys_write(const char *path, const char *s)
{
	nt_io.file_writes++;
	return write_fd(nt_sys_open(path, O_WRONLY | (*nt_sys_root ? O_TRUNC : 0), 0), s);
}

int nt_sys_create(const char *path, const char *s)
{
	nt_io.file_writes++;
	return write_fd(nt_sys_open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644), s);
}

/* The directory of path opened (O_PATH) and its last component. */
static int open_parent(const char *path, const char **base)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	char *dir;
	int fd;

	if (!slash || !slash[1])
		return -EINVAL;
	*base = slash + 1;
	dir = slash == path ? nt_xstrdup("/") : strndup(path, (size_t)(slash - path));
	if (!dir)
		return -ENOMEM;
	fd = nt_sys_open(dir, O_PATH | O_DIRECTORY, 0);
	free(dir);
	return fd;
}

int nt_sys_unlink(const char *path)
{
	const char *base;
	int fd = open_parent(path, &base), r = 0;

	if (fd < 0)
		return fd;
	if (unlinkat(fd, base, 0))
		r = -errno;
	close(fd);
	return r;
}

bool nt_sys_exists(const char *path)
{
	int fd = nt_sys_open(path, O_PATH, 0);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int nt_sys_mode(const char *path)
{
	struct stat st;
	int fd = nt_sys_open(path, O_PATH, 0), r;

	if (fd < 0)
		return fd;
	r = fstat(fd, &st) ? -errno : (int)(st.st_mode & 07777);
	close(fd);
	return r;
}

/* A directory read with getdents64 on the descriptor nt_sys_open gave:
 * no fstat and no fcntl of fdopendir's (a no-op apply lists the queues of
 * every device). */
struct nt_dir {
	int fd;
	size_t pos, len;
	struct dirent de;
	char buf[32768] __attribute__((aligned(8)));
};

struct nt_dir *nt_sys_opendir(const char *path)
{
	int fd = nt_sys_open(path, O_RDONLY | O_DIRECTORY, 0);
	struct nt_dir *d;

	nt_io.dir_lists++;
	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	d = nt_xmalloc(sizeof(*d));
	d->fd = fd;
	d->pos = d->len = 0;
	return d;
}

struct dirent *nt_sys_readdir(struct nt_dir *d)
{
	for (;;) {
		const char *p;
		unsigned short reclen;
		size_t n;

		if (d->pos >= d->len) {
			ssize_t got = getdents64(d->fd, d->buf, sizeof(d->buf));

			if (got <= 0)
				return NULL;
			d->len = (size_t)got;
			d->pos = 0;
		}
		/* struct linux_dirent64: ino, off, reclen, type, name */
		p = d->buf + d->pos;
		memcpy(&reclen, p + 16, sizeof(reclen));
		if (reclen < 20 || d->pos + reclen > d->len)
			return NULL;
		d->pos += reclen;
		memcpy(&d->de.d_ino, p, sizeof(d->de.d_ino));
		d->de.d_type = (unsigned char)p[18];
		n = strnlen(p + 19, (size_t)reclen - 19);
		if (n >= sizeof(d->de.d_name))
			continue;
		memcpy(d->de.d_name, p + 19, n);
		d->de.d_name[n] = '\0';
		return &d->de;
	}
}

void nt_sys_closedir(struct nt_dir *d)
{
	if (d) {
		close(d->fd);
		free(d);
	}
}

ssize_t nt_sys_readlink(const char *path, char *buf, size_t size)
{
	int fd = nt_sys_open(path, O_PATH | O_NOFOLLOW, 0);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = readlinkat(fd, "", buf, size);
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

void nt_mkdirs(const char *path)
{
	char *p = nt_xstrdup(path), *s;

	for (s = p + 1;; s++) {
		if (*s && *s != '/')
			continue;
		{
			char c = *s;
			const char *base;
			int fd;

			*s = '\0';
			if (!below_root(p)) {
				mkdir(p, 0755);
			} else if ((fd = open_parent(p, &base)) >= 0) {
				mkdirat(fd, base, 0755);
				close(fd);
			}
			*s = c;
			if (!c)
				break;
		}
	}
	free(p);
}
