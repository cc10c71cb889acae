/* SPDX-License-Identifier: MIT */
/* File access for /proc and /sys, rooted at --root. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../compiler/buf.h"
#include "ethnl.h"
#include "sysio.h"

const char *nt_sys_root = "";

char *nt_sys_path(const char *fmt, ...)
{
	struct nt_buf b = {0};
	va_list ap;

	nt_buf_puts(&b, nt_sys_root);
	va_start(ap, fmt);
	nt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return nt_buf_take(&b);
}

char *nt_sys_read(const char *path)
{
	char buf[65536];
	ssize_t n;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while (got < sizeof(buf) - 1 && (n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0)
		got += (size_t)n;
	if (got == 0 && n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return NULL;
	}
	close(fd);
	buf[got] = '\0';
	while (got && (buf[got - 1] == '\n' || buf[got - 1] == ' '))
		buf[--got] = '\0';
	return nt_xstrdup(buf);
}

int nt_sys_write(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, e;

	nt_io.file_writes++;
	fd = open(path, O_WRONLY | O_CLOEXEC | (*nt_sys_root ? O_TRUNC : 0));
	if (fd < 0)
		return -errno;
	n = write(fd, s, len);
	e = errno;
	if (close(fd) < 0 && n >= 0)
		return -errno;
	if (n < 0)
		return -e;
	return (size_t)n == len ? 0 : -EIO;
}

bool nt_sys_exists(const char *path)
{
	return !access(path, F_OK);
}

bool nt_sys_writable(const char *path)
{
	struct stat st;

	return !stat(path, &st) && (st.st_mode & 0222);
}

void nt_mkdirs(const char *path)
{
	char *p = nt_xstrdup(path), *s;

	for (s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
	free(p);
}
