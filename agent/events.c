/* SPDX-License-Identifier: MIT */
/* The netlink monitor of the agent: RTNLGRP_LINK and ethtool's "monitor" group. */
#include <errno.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../compiler/base/buf.h"
#include "../appliers/linux/nlio.h"
#include "events.h"
#include "monotime.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

struct nt_events {
	int fd[2];			/* rtnl, genl */
	int family;			/* "ethtool" */
	unsigned char buf[1 << 16];
	/* ifindex -> the name last seen, to tell a rename */
	struct {
		int ifindex;
		char name[IF_NAMESIZE];
	} *names;
	size_t nnames;
};

/* A receive buffer that holds a burst (64 links created at once send
 * ~200 notifications); SO_RCVBUFFORCE as root, else what the limit allows. */
static void big_rcvbuf(int fd)
{
	int sz = 4 << 20;

#ifdef NT_FAULT_INJECTION
	if (getenv("NETTUNE_AGENT_RCVBUF")) {
		sz = atoi(getenv("NETTUNE_AGENT_RCVBUF"));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
		return;
	}
#endif

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
}

static int nl_socket_of(int protocol, unsigned groups)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = groups};
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, protocol);

	if (fd < 0)
		return -errno;
	big_rcvbuf(fd);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int e = errno;

		close(fd);
		return -e;
	}
	return fd;
}

/* The ids of family "ethtool" and its group "monitor" (CTRL_CMD_GETFAMILY
 * through libnl's resolver). */
static int resolve_monitor(int *family, int *group)
{
	struct nl_sock *sk = nl_socket_alloc();
	int r = -ENOMEM;

	if (!sk)
		return r;
	r = genl_connect(sk);
	if (!r)
		r = *family = genl_ctrl_resolve(sk, ETHTOOL_GENL_NAME);
	if (r >= 0)
		r = *group = genl_ctrl_resolve_grp(sk, ETHTOOL_GENL_NAME, ETHTOOL_MCGRP_MONITOR_NAME);
	nl_socket_free(sk);
	return r < 0 ? -ENOENT : 0;
}

static bool remember(struct nt_events *ev, int ifindex, const char *name, char *old, size_t n);

/* The names the links have now (after subscribing: a rename from here on
 * is seen), so that renaming a link that existed before the agent started
 * tells its old name, and a link not among them is one added since. */
static void seed_names(struct nt_events *ev)
{
	struct if_nameindex *ni = if_nameindex(), *p;
	char old[IF_NAMESIZE];

	for (p = ni; p && p->if_index; p++)
		remember(ev, (int)p->if_index, p->if_name, old, sizeof(old));
	if (ni)
		if_freenameindex(ni);
}

int nt_events_open(struct nt_events **out, char *err, size_t errlen)
{
	struct nt_events *ev = nt_xcalloc(1, sizeof(*ev));
	int group = -1, r;

	ev->fd[0] = ev->fd[1] = -1;
	r = nl_socket_of(NETLINK_ROUTE, RTMGRP_LINK);
	if (r < 0) {
		snprintf(err, errlen, "rtnetlink socket: %s", strerror(-r));
		goto fail;
	}
	ev->fd[0] = r;
	if (resolve_monitor(&ev->family, &group)) {
		snprintf(err, errlen, "generic netlink family \"%s\" or its group \"%s\" not found "
			 "(a kernel before 5.6 has no ethtool netlink)", ETHTOOL_GENL_NAME,
			 ETHTOOL_MCGRP_MONITOR_NAME);
		r = -ENOENT;
		goto fail;
	}
	r = nl_socket_of(NETLINK_GENERIC, 0);
	if (r < 0) {
		snprintf(err, errlen, "generic netlink socket: %s", strerror(-r));
		goto fail;
	}
	ev->fd[1] = r;
	if (setsockopt(ev->fd[1], SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group))) {
		r = -errno;
		snprintf(err, errlen, "joining ethtool's monitor group: %s", strerror(-r));
		goto fail;
	}
	seed_names(ev);
	*out = ev;
	return 0;
fail:
	nt_events_close(ev);
	return r;
}

void nt_events_close(struct nt_events *ev)
{
	if (!ev)
		return;
	for (int i = 0; i < 2; i++)
		if (ev->fd[i] >= 0)
			close(ev->fd[i]);
	free(ev->names);
	free(ev);
}

int nt_events_fd(const struct nt_events *ev, int which)
{
	return ev->fd[which ? 1 : 0];
}

/* The name ifindex had, and now has name (NULL: it is gone); true when
 * ifindex was not known (a link added). */
static bool remember(struct nt_events *ev, int ifindex, const char *name, char *old, size_t n)
{
	size_t i;

	old[0] = 0;
	for (i = 0; i < ev->nnames && ev->names[i].ifindex != ifindex; i++)
		;
	if (i < ev->nnames) {
		snprintf(old, n, "%s", ev->names[i].name);
		if (!name) {
			ev->names[i] = ev->names[--ev->nnames];
			return false;
		}
	} else {
		if (!name)
			return false;
		ev->names = nt_xrealloc(ev->names, (ev->nnames + 1) * sizeof(*ev->names));
		ev->names[ev->nnames++].ifindex = ifindex;
	}
	snprintf(ev->names[i].name, sizeof(ev->names[i].name), "%s", name);
	return i + 1 == ev->nnames && !old[0];
}

/* An attribute's payload as a name (bounded, NUL-terminated). */
static void attr_name(const struct nlattr *a, char *out)
{
	size_t n = a->nla_len - NLA_HDRLEN;

	if (n >= IF_NAMESIZE)
		n = IF_NAMESIZE - 1;
	memcpy(out, (const char *)a + NLA_HDRLEN, n);
	out[n] = 0;
	out[strnlen(out, n)] = 0;
}

/* Walks the attributes in [p, p+len): fn(type, attr) for each well-formed one. */
#define FOR_ATTRS(a, p, len)                                                         \
	for (const struct nlattr *a = (const struct nlattr *)(p);                         \
	     (const char *)a + NLA_HDRLEN <= (const char *)(p) + (len) &&                 \
	     a->nla_len >= NLA_HDRLEN &&                                                  \
	     (const char *)a + a->nla_len <= (const char *)(p) + (len);                   \
	     a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len)))

static bool link_event(struct nt_events *ev, const struct nlmsghdr *h, struct nt_event *e)
{
	const struct ifinfomsg *ifi = NLMSG_DATA(h);
	size_t len;

	if ((h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK) ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return false;
	len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi));
	e->type = h->nlmsg_type == RTM_NEWLINK ? NT_EV_LINK : NT_EV_LINK_GONE;
	e->ifindex = ifi->ifi_index;
	e->flags = ifi->ifi_flags;
	e->change = ifi->ifi_change;
	FOR_ATTRS(a, (const char *)ifi + NLMSG_ALIGN(sizeof(*ifi)), len)
		if ((a->nla_type & NLA_TYPE_MASK) == IFLA_IFNAME)
			attr_name(a, e->name);
	e->added = remember(ev, e->ifindex, e->type == NT_EV_LINK ? e->name : NULL, e->old_name,
			    sizeof(e->old_name));
	/* register_netdevice announces a new device with ifi_change ~0U
	 * (rtmsg_ifinfo in net/core/dev.c) */
	if (e->type == NT_EV_LINK && ifi->ifi_change == ~0U)
		e->added = true;
	if (!strcmp(e->old_name, e->name))
		e->old_name[0] = 0;
	return true;
}

static bool ethtool_event(const struct nt_events *ev, const struct nlmsghdr *h,
			  struct nt_event *e)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	size_t len;

	if (h->nlmsg_type != ev->family || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    !(e->what = nt_ethnl_ntf_name(g->cmd)))
		return false;
	len = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	e->type = NT_EV_ETHTOOL;
	/* every family's header is attribute 1 (ETHTOOL_A_*_HEADER) */
	FOR_ATTRS(a, (const char *)g + GENL_HDRLEN, len) {
		if ((a->nla_type & NLA_TYPE_MASK) != 1)
			continue;
		FOR_ATTRS(b, (const char *)a + NLA_HDRLEN, a->nla_len - NLA_HDRLEN) {
			unsigned t = b->nla_type & NLA_TYPE_MASK;

			if (t == ETHTOOL_A_HEADER_DEV_INDEX && b->nla_len >= NLA_HDRLEN + 4)
				memcpy(&e->ifindex, (const char *)b + NLA_HDRLEN, 4);
			else if (t == ETHTOOL_A_HEADER_DEV_NAME)
				attr_name(b, e->name);
		}
	}
	return true;
}

/* One socket: every datagram queued. */
static size_t drain(struct nt_events *ev, int which, nt_event_fn fn, void *ctx, bool *lost)
{
	size_t n = 0;

	for (;;) {
		ssize_t got = recv(ev->fd[which], ev->buf, sizeof(ev->buf), MSG_DONTWAIT);

		if (got < 0) {
			if (errno == ENOBUFS) {
				*lost = true;
				continue;
			}
			if (errno == EINTR)
				continue;
			return n;	/* EAGAIN: drained */
		}
		int left = (int)got;

		for (const struct nlmsghdr *h = (const void *)ev->buf; NLMSG_OK(h, left);
		     h = NLMSG_NEXT(h, left)) {
			struct nt_event e = {0};
			bool ok = which ? ethtool_event(ev, h, &e) : link_event(ev, h, &e);

			if (!ok)
				continue;
			e.at_ns = nt_agent_mono_ns();
			fn(&e, ctx);
			n++;
		}
	}
}

size_t nt_events_read(struct nt_events *ev, nt_event_fn fn, void *ctx)
{
	bool lost = false;
	size_t n = drain(ev, 0, fn, ctx, &lost) + drain(ev, 1, fn, ctx, &lost);

	if (lost) {
		struct nt_event e = {.type = NT_EV_OVERFLOW, .at_ns = nt_agent_mono_ns()};

		fn(&e, ctx);
		n++;
	}
	return n;
}
