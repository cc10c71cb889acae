/* SPDX-License-Identifier: MIT */
/* The netlink transport: one bounded request at a time (nlio.h). */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../compiler/base/buf.h"
#include "nlio.h"
#include "statedir.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif
#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NLMSGERR_ATTR_MSG
#define NLMSGERR_ATTR_MSG 1
#endif

bool nt_nl_abort_on_signal;

struct nt_nl {
	int fd;			/* -1: to be opened at the next request */
	int protocol;
	uint32_t port, seq;
	bool transient;
	int timeout_ms;		/* of the last failure, for its message */
	char extack[512];
	unsigned char *buf;
	size_t cap;
};

struct nt_io_stats nt_io;

/* The requests NETTUNE_STATS counts: their words, and which change
 * something (set) and which are ioctls, not netlink. */
static const struct {
	const char *name;
	bool set, ioctl;
} io_reqs[NT_IO__COUNT] = {
	[NT_IO_GENL_RESOLVE] = {"genl-resolve"},
	[NT_IO_STRSET_GET] = {"strset-get"},
	[NT_IO_FEATURES_GET] = {"features-get"},
	[NT_IO_FEATURES_DUMP] = {"features-dump"},
	[NT_IO_FEATURES_SET] = {"features-set", .set = true},
	[NT_IO_CHANNELS_GET] = {"channels-get"},
	[NT_IO_CHANNELS_DUMP] = {"channels-dump"},
	[NT_IO_CHANNELS_SET] = {"channels-set", .set = true},
	[NT_IO_RINGS_GET] = {"rings-get"},
	[NT_IO_RINGS_DUMP] = {"rings-dump"},
	[NT_IO_RINGS_SET] = {"rings-set", .set = true},
	[NT_IO_COALESCE_GET] = {"coalesce-get"},
	[NT_IO_COALESCE_DUMP] = {"coalesce-dump"},
	[NT_IO_COALESCE_SET] = {"coalesce-set", .set = true},
	[NT_IO_LINK_GET] = {"link-get"},
	[NT_IO_LINK_DUMP] = {"link-dump"},
	[NT_IO_LINK_SET] = {"link-set", .set = true},
	[NT_IO_RSS_GET] = {"rss-get", .ioctl = true},
	[NT_IO_RSS_SET] = {"rss-set", .set = true, .ioctl = true},
};

/* The families counted by name (nt_io_named): "NAME-get", "NAME-set". */
static struct {
	char family[32];
	char name[2][40];
} named[NT_IO_NAMED_MAX];
static size_t nnamed;

enum nt_io_req nt_io_named(const char *family, bool set)
{
	size_t i;

	for (i = 0; i < nnamed && strcmp(named[i].family, family); i++)
		;
	if (i == nnamed) {
		if (nnamed == NT_IO_NAMED_MAX)
			abort();	/* more families than the table: a build error */
		snprintf(named[i].family, sizeof(named[i].family), "%s", family);
		snprintf(named[i].name[0], sizeof(named[i].name[0]), "%s-get", family);
		snprintf(named[i].name[1], sizeof(named[i].name[1]), "%s-set", family);
		nnamed++;
	}
	return (enum nt_io_req)(NT_IO__COUNT + 2 * i + set);
}

static const char *req_name(unsigned r)
{
	if (r < NT_IO__COUNT)
		return io_reqs[r].name;
	r -= NT_IO__COUNT;
	return r / 2 < nnamed ? named[r / 2].name[r % 2] : "?";
}

#ifdef NT_FAULT_INJECTION
/* The name of a request kind ("features-dump"), for NETTUNE_NL_TRACE. */
static const char *io_req_name(enum nt_io_req r)
{
	return req_name(r);
}
#endif

bool nt_io_is_set(enum nt_io_req r)
{
	if (r < NT_IO__COUNT)
		return io_reqs[r].set;
	return (unsigned)r < NT_IO__COUNT + 2 * nnamed && (r - NT_IO__COUNT) % 2;
}

static bool io_is_ioctl(unsigned r)
{
	return r < NT_IO__COUNT && io_reqs[r].ioctl;
}

static void print_stats(void)
{
	unsigned long total = 0;
	int k;

	for (k = 0; k < NT_IO__COUNT + 2 * (int)nnamed; k++)
		if (!io_is_ioctl((unsigned)k))
			total += nt_io.req[k];
	fprintf(stderr, "nettune stats: netlink %lu (sets %lu), ioctl rss-get %lu rss-set %lu, "
		"file reads %lu, dir listings %lu, file writes %lu;", total, nt_io.netlink_sets,
		nt_io.req[NT_IO_RSS_GET], nt_io.req[NT_IO_RSS_SET], nt_io.file_reads,
		nt_io.dir_lists, nt_io.file_writes);
	for (k = 0; k < NT_IO__COUNT + 2 * (int)nnamed; k++)
		if (nt_io.req[k])
			fprintf(stderr, " %s %lu", req_name((unsigned)k), nt_io.req[k]);
	fputc('\n', stderr);
}

void nt_io_count(enum nt_io_req r)
{
	static bool armed;

	if (!armed) {
		const char *s = getenv("NETTUNE_STATS");

		armed = true;
		if (s && *s && strcmp(s, "0"))
			atexit(print_stats);
	}
	if ((unsigned)r >= NT_IO__COUNT + 2 * NT_IO_NAMED_MAX)
		return;
	nt_io.req[r]++;
	if (nt_io_is_set(r) && io_is_ioctl(r))
		nt_io.ioctl_sets++;
	else if (nt_io_is_set(r))
		nt_io.netlink_sets++;
	else if (!io_is_ioctl(r))
		nt_io.netlink_gets++;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int timeout_ms(void)
{
	static int v;

	if (!v) {
		const char *s = getenv("NETTUNE_NL_TIMEOUT_MS");
		char *end;
		long t = s && *s ? strtol(s, &end, 10) : 0;

		v = s && *s && !*end && t >= 10 && t <= 600000 ? (int)t : 15000;
	}
	return v;
}

static int sock_open(struct nt_nl *s)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	socklen_t len = sizeof(sa);
	int one = 1, rcv = 1 << 20;

	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, s->protocol);
	if (s->fd < 0)
		return -errno;
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    getsockname(s->fd, (struct sockaddr *)&sa, &len)) {
		int r = -errno;

		close(s->fd);
		s->fd = -1;
		return r;
	}
	s->port = sa.nl_pid;
	setsockopt(s->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(s->fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	return 0;
}

/* What the kernel may still send for a failed request must never be read
 * as the answer to the next one: a new socket. */
static void resync(struct nt_nl *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
}

int nt_nl_open(struct nt_nl **out, int protocol)
{
	struct nt_nl *s = nt_xcalloc(1, sizeof(*s));
	int r;

	s->protocol = protocol;
	s->seq = (uint32_t)time(NULL);
	r = sock_open(s);
	if (r) {
		free(s);
		*out = NULL;
		return r;
	}
	*out = s;
	return 0;
}

void nt_nl_close(struct nt_nl *s)
{
	if (!s)
		return;
	resync(s);
	free(s->buf);
	free(s);
}

bool nt_nl_transient(const struct nt_nl *s)
{
	return s && s->transient;
}

const char *nt_nl_reason(const struct nt_nl *s, int err, char *buf, size_t len)
{
	if (s && !s->transient && s->extack[0]) {
		snprintf(buf, len, "kernel: %s", s->extack);
	} else if (err == -ETIMEDOUT && s && s->transient) {
		snprintf(buf, len, "no answer from the kernel within %d ms", s->timeout_ms);
	} else if (err == -ENOBUFS && s && s->transient) {
		snprintf(buf, len, "netlink receive failed: %s (replies were dropped)", strerror(-err));
	} else if (err == -EMSGSIZE && s && s->transient) {
		snprintf(buf, len, "netlink reply truncated");
	} else if (err == -EPROTO && s && s->transient) {
		snprintf(buf, len, "malformed netlink reply");
	} else if (err == -EAGAIN && s && s->transient) {
		snprintf(buf, len, "netlink dump interrupted by a concurrent change");
	} else if (err == -EINTR) {
		snprintf(buf, len, "interrupted by signal %d while waiting for the kernel",
			 (int)nt_interrupted);
	} else if (s && s->transient) {
		snprintf(buf, len, "netlink send failed: %s", strerror(-err));
	} else {
		snprintf(buf, len, "%s", strerror(-err));
	}
	return buf;
}

/* The kernel's error (or 0, the ack) and its extended ack text. */
static int parse_error(struct nt_nl *s, const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	size_t off = sizeof(*e);

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return 1;	/* malformed */
	if (!e->error)
		return 0;
	if (!(h->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_len >= NLMSG_HDRLEN)
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if ((h->nlmsg_flags & NLM_F_ACK_TLVS) && h->nlmsg_len > NLMSG_HDRLEN + NLMSG_ALIGN(off)) {
		const unsigned char *p = (const unsigned char *)e + NLMSG_ALIGN(off);
		size_t rem = h->nlmsg_len - NLMSG_HDRLEN - NLMSG_ALIGN(off);

		while (rem >= sizeof(struct nlattr)) {
			const struct nlattr *a = (const void *)p;
			size_t alen = a->nla_len;

			if (alen < sizeof(*a) || alen > rem)
				break;
			if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_MSG && alen > sizeof(*a)) {
				const char *t = (const char *)(a + 1);
				size_t tl = alen - sizeof(*a);

				if (t[tl - 1] == '\0')
					snprintf(s->extack, sizeof(s->extack), "%s", t);
			}
			alen = NLA_ALIGN(alen);
			if (alen > rem)
				break;
			p += alen;
			rem -= alen;
		}
	}
	return e->error;
}

#ifdef NT_FAULT_INJECTION
/* NETTUNE_NL_FAULT=K:KIND[,K:KIND...]: the K-th request of the process
 * fails with KIND; NETTUNE_NL_TRACE=1 names each request on stderr. */
enum fault { F_NONE, F_ERROR, F_SEND, F_ENOBUFS, F_TRUNC, F_SEQ, F_TIMEOUT };

static enum fault fault_for(unsigned long k)
{
	static const char *const names[] = {"", "error", "send", "enobufs", "trunc", "seq",
					    "timeout"};
	const char *s = getenv("NETTUNE_NL_FAULT");

	while (s && *s) {
		char *end;
		unsigned long at = strtoul(s, &end, 10);
		size_t n;

		if (*end != ':')
			return F_NONE;
		s = end + 1;
		n = strcspn(s, ",");
		for (int f = 1; f <= F_TIMEOUT; f++)
			if (at == k && strlen(names[f]) == n && !strncmp(s, names[f], n))
				return (enum fault)f;
		s += n;
		if (*s == ',')
			s++;
	}
	return F_NONE;
}

/* A stale reply ahead of this request's: a harmless request with the
 * previous sequence number, whose answer arrives first. */
static void send_stale(struct nt_nl *s)
{
	struct {
		struct nlmsghdr h;
		union {
			struct genlmsghdr g;
			struct ifinfomsg i;
		} u;
	} m;

	memset(&m, 0, sizeof(m));
	m.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	m.h.nlmsg_seq = s->seq - 1;
	m.h.nlmsg_pid = s->port;
	if (s->protocol == NETLINK_GENERIC) {
		m.h.nlmsg_len = NLMSG_LENGTH(sizeof(m.u.g));
		m.h.nlmsg_type = GENL_ID_CTRL;
		m.u.g.cmd = CTRL_CMD_GETFAMILY;	/* no name: an error reply */
		m.u.g.version = 1;
	} else {
		m.h.nlmsg_len = NLMSG_LENGTH(sizeof(m.u.i));
		m.h.nlmsg_type = RTM_GETLINK;
		m.u.i.ifi_index = 1;
	}
	(void)!send(s->fd, &m, m.h.nlmsg_len, 0);
}
#endif

/* The message after h (rem: the bytes from h on, 0 past the last). */
static const struct nlmsghdr *next_msg(const struct nlmsghdr *h, size_t *rem)
{
	size_t step = NLMSG_ALIGN(h->nlmsg_len);

	if (step >= *rem) {
		*rem = 0;
		return h;
	}
	*rem -= step;
	return (const void *)((const char *)h + step);
}

static int fail(struct nt_nl *s, int err, bool transient)
{
	s->transient = transient;
	if (transient)
		resync(s);
	return err;
}

/* One request's reply as it arrives: a dump ends at NLMSG_DONE, any other
 * request at its ack. */
struct rx {
	bool dump, intr;
	bool noack;		/* a read of one object: its reply is its end */
	nt_nl_cb cb;
	void *arg;
	int cb_err;
#ifdef NT_FAULT_INJECTION
	enum fault fault;
	bool first;
#endif
};

#define RX_MORE 1	/* the reply goes on */
#define RX_EMPTY 2	/* nothing queued: wait for the socket */

/* Counts the request, opens the socket if a failure closed it, and stamps
 * the request; 0 or the failure. */
static int tx_prepare(struct nt_nl *s, struct nlmsghdr *req, struct rx *t, enum nt_io_req what)
{
#ifdef NT_FAULT_INJECTION
	static unsigned long count;
	const char *trace = getenv("NETTUNE_NL_TRACE");

	t->fault = fault_for(++count);
	t->first = true;
	if (trace && *trace && strcmp(trace, "0"))
		fprintf(stderr, "nettune: nl request %lu: %s\n", count, io_req_name(what));
#endif
	nt_io_count(what);
	s->extack[0] = '\0';
	s->transient = false;
	s->timeout_ms = timeout_ms();
	if (s->fd < 0) {
		int r = sock_open(s);

		if (r)
			return fail(s, r, true);
	}
	/* a GET is answered by its reply (or an error): no ack to wait for */
	t->noack = !t->dump && !nt_io_is_set(what);
	req->nlmsg_flags |= NLM_F_REQUEST | (t->dump || t->noack ? 0 : NLM_F_ACK);
	req->nlmsg_seq = ++s->seq;
	req->nlmsg_pid = s->port;
#ifdef NT_FAULT_INJECTION
	if (t->fault == F_ERROR) {
		snprintf(s->extack, sizeof(s->extack), "injected error reply");
		return fail(s, -EBUSY, false);
	}
	if (t->fault == F_SEND)
		return fail(s, -EIO, true);
	if (t->fault == F_SEQ)
		send_stale(s);
#endif
	return 0;
}

static int tx_send(struct nt_nl *s, const struct nlmsghdr *req)
{
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};

	for (;;) {
		ssize_t n = sendto(s->fd, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel,
				   sizeof(kernel));

		if (n == (ssize_t)req->nlmsg_len)
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		return fail(s, n < 0 ? -errno : -EIO, true);
	}
}

/* Waits for the socket until the deadline: 0 readable, RX_MORE to wait
 * again, or the failure (a signal, no answer in time). */
static int rx_wait(struct nt_nl *s, long long deadline)
{
	struct pollfd p = {.fd = s->fd, .events = POLLIN};
	long long left = deadline - mono_ms();
	int pr;

	if (nt_nl_abort_on_signal && nt_interrupted)
		return fail(s, -EINTR, true);
	if (left <= 0)
		return fail(s, -ETIMEDOUT, true);
	pr = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
	if (pr < 0 && errno != EINTR)
		return fail(s, -errno, true);
	return pr <= 0 ? RX_MORE : 0;
}

/* One datagram into s->buf, without waiting: its length in *len and 0,
 * RX_EMPTY when none is queued, RX_MORE when it was not the kernel's, or
 * the failure.  The kernel answers most requests before sendto returns,
 * so the reply is read at once (no poll, no MSG_PEEK to size it first: a
 * dump's datagrams are at most 32 KiB, netlink_recvmsg's cap, and the
 * buffer is larger); a datagram larger than the buffer grows it and
 * fails the request as the transport's failure, which a read asks again. */
static int rx_datagram(struct nt_nl *s, struct rx *t, size_t *len)
{
	struct sockaddr_nl from;
	struct iovec iov;
	struct msghdr mh = {0};
	ssize_t n;

#ifdef NT_FAULT_INJECTION
	if (t->fault == F_TIMEOUT) {
		struct timespec ts = {0, 10 * 1000 * 1000};

		nanosleep(&ts, NULL);	/* the reply is never read */
		return RX_EMPTY;
	}
	if (t->fault == F_ENOBUFS && t->first)
		return fail(s, -ENOBUFS, true);
#else
	(void)t;
#endif
	if (s->cap < 65536) {
		free(s->buf);
		s->cap = 65536;
		s->buf = nt_xmalloc(s->cap);
	}
	iov.iov_base = s->buf;
	iov.iov_len = s->cap;
	mh.msg_name = &from;
	mh.msg_namelen = sizeof(from);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	n = recvmsg(s->fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
	if (n < 0)
		return errno == EAGAIN ? RX_EMPTY : errno == EINTR ? RX_MORE :
		       fail(s, -errno, true);
#ifdef NT_FAULT_INJECTION
	if (t->fault == F_TRUNC && t->first)
		mh.msg_flags |= MSG_TRUNC;
	t->first = false;
#endif
	if (mh.msg_flags & MSG_TRUNC) {
		/* n is the datagram's whole length: the next try fits it */
		if ((size_t)n + 1 > s->cap) {
			free(s->buf);
			s->cap = (size_t)n + 1;
			s->buf = nt_xmalloc(s->cap);
		}
		return fail(s, -EMSGSIZE, true);
	}
	if (mh.msg_namelen >= sizeof(from) && from.nl_pid != 0)
		return RX_MORE;	/* not from the kernel */
	*len = (size_t)n;
	return 0;
}

/* The end of the reply (an ack, an error, NLMSG_DONE): the request's result. */
static int rx_end(struct nt_nl *s, struct rx *t, const struct nlmsghdr *h)
{
	if (h->nlmsg_type == NLMSG_ERROR) {
		int e = parse_error(s, h);

		if (e > 0)
			return fail(s, -EPROTO, true);
		if (e)
			return fail(s, e, false);
		if (t->dump)
			return RX_MORE;	/* an ack inside a dump: not its end */
	} else {
		if (!t->dump)
			return RX_MORE;
		if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int))) {
			int e = *(const int *)NLMSG_DATA(h);

			if (e < 0)
				return fail(s, e, false);
		}
		if (t->intr)
			return fail(s, -EAGAIN, true);
	}
	return t->cb_err ? fail(s, t->cb_err, false) : 0;
}

/* The messages of one datagram of len bytes: RX_MORE while the reply goes
 * on, else the request's result. */
static int rx_messages(struct nt_nl *s, struct rx *t, size_t len)
{
	const struct nlmsghdr *h;
	size_t rem;

	for (h = (const void *)s->buf, rem = len; rem; h = next_msg(h, &rem)) {
		if (!NLMSG_OK(h, rem))
			return fail(s, -EPROTO, true);
		if (h->nlmsg_seq != s->seq || h->nlmsg_pid != s->port)
			continue;	/* an earlier request's */
		if (h->nlmsg_flags & NLM_F_DUMP_INTR)
			t->intr = true;
		if (h->nlmsg_type == NLMSG_ERROR || h->nlmsg_type == NLMSG_DONE) {
			int r = rx_end(s, t, h);

			if (r != RX_MORE)
				return r;
			continue;
		}
		if (h->nlmsg_type == NLMSG_OVERRUN)
			return fail(s, -ENOBUFS, true);
		if (h->nlmsg_type == NLMSG_NOOP)
			continue;
		if (t->cb && !t->cb_err) {
			int r = t->cb(h, t->arg);

			if (r < 0)
				t->cb_err = r;
		}
		if (t->noack)
			return t->cb_err ? fail(s, t->cb_err, false) : 0;
	}
	return RX_MORE;
}

int nt_nl_transact(struct nt_nl *s, struct nlmsghdr *req, nt_nl_cb cb, void *arg,
		   enum nt_io_req what)
{
	struct rx t = {.dump = req->nlmsg_flags & NLM_F_DUMP, .cb = cb, .arg = arg};
	long long deadline;
	int r = tx_prepare(s, req, &t, what);

	if (!r)
		r = tx_send(s, req);
	if (r)
		return r;
	deadline = mono_ms() + s->timeout_ms;
	for (;;) {
		size_t len = 0;

		/* as before every datagram: an apply's request stops at a signal */
		if (nt_nl_abort_on_signal && nt_interrupted)
			return fail(s, -EINTR, true);
		r = rx_datagram(s, &t, &len);
		if (r == RX_EMPTY) {
			r = rx_wait(s, deadline);
			if (!r || r == RX_MORE)
				continue;
			return r;
		}
		if (!r)
			r = rx_messages(s, &t, len);
		if (r != RX_MORE)
			return r;
	}
}

const char *nt_ethnl_ntf_name(unsigned cmd)
{
	/* the kinds' (kinds.def NT_ETHNL_NTF), then the rest of the link's */
	static const struct {
		unsigned cmd;
		const char *name;
	} t[] = {
#define NT_KIND(...)
#define NT_ETHNL_NTF(id, msg, words) {msg, words},
#include "../../compiler/model/kinds.def"
#undef NT_KIND
#undef NT_ETHNL_NTF
		{ETHTOOL_MSG_LINKINFO_NTF, "link info"},
		{ETHTOOL_MSG_LINKMODES_NTF, "link modes"},
		{ETHTOOL_MSG_EEE_NTF, "eee"},
		{ETHTOOL_MSG_FEC_NTF, "fec"},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (t[i].cmd == cmd)
			return t[i].name;
	return NULL;
}
