/* SPDX-License-Identifier: MIT */
/* The systemd notify protocol without libsystemd: one datagram to $NOTIFY_SOCKET, and $WATCHDOG_USEC. */
#include "notify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "../compiler/base/buf.h"

/* The address $NOTIFY_SOCKET names: a path, or with a leading '@' a name
 * in the abstract namespace (no trailing NUL: its length is the name's). */
static int notify_addr(const char *e, struct sockaddr_un *sa, socklen_t *len)
{
	size_t n = strlen(e);

	/* systemd also speaks vsock ("vsock:CID:PORT"); a service on this
	 * host is given a unix socket */
	if (e[0] != '/' && e[0] != '@')
		return -EAFNOSUPPORT;
	if (n > sizeof(sa->sun_path) || (e[0] == '/' && n == sizeof(sa->sun_path)))
		return -ENAMETOOLONG;
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	memcpy(sa->sun_path, e, n);
	if (e[0] == '@')
		sa->sun_path[0] = '\0';
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (e[0] == '/'));
	return 0;
}

int nt_notify(const char *state)
{
	const char *e = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa;
	socklen_t salen;
	struct iovec iov;
	struct msghdr mh = {0};
	int fd, r;

	if (!e || !*e)
		return 0;
	if (!state || !*state)
		return -EINVAL;
	r = notify_addr(e, &sa, &salen);
	if (r)
		return r;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	iov.iov_base = (void *)state;
	iov.iov_len = strlen(state);
	mh.msg_name = &sa;
	mh.msg_namelen = salen;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	do
		r = sendmsg(fd, &mh, MSG_NOSIGNAL) < 0 ? -errno : 0;
	while (r == -EINTR);
	close(fd);
	return r;
}

int nt_notifyf(const char *fmt, ...)
{
	struct nt_buf b = {0};
	va_list ap;
	int r;

	va_start(ap, fmt);
	nt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	r = nt_notify(b.p ? b.p : "");
	nt_buf_free(&b);
	return r;
}

/* A positive decimal number and nothing else, or false. */
static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end && *v;
}

uint64_t nt_notify_watchdog_usec(void)
{
	const char *pid = getenv("WATCHDOG_PID");
	uint64_t usec, p;

	if (!parse_u64(getenv("WATCHDOG_USEC"), &usec))
		return 0;
	/* meant for another process of the service (sd_watchdog_enabled(3)) */
	if (pid && (!parse_u64(pid, &p) || p != (uint64_t)getpid()))
		return 0;
	return usec;
}
