/* SPDX-License-Identifier: MIT */
/*
 * What the kernel says changed, as the agent listens for it: rtnetlink's
 * RTNLGRP_LINK (links added, changed, renamed, deleted; IFF_UP, carrier,
 * MTU and txqueuelen changes all arrive as RTM_NEWLINK) and ethtool
 * netlink's "monitor" multicast group (FEATURES, CHANNELS, RINGS,
 * COALESCE, PAUSE, PRIVFLAGS, ... notifications, each naming its device
 * in the header attribute).  RPS/XPS, sysctls and IRQ affinity raise no
 * event: the periodic check finds those.
 *
 * Both sockets are non-blocking; nt_events_read() drains what is queued.
 * A receive queue that overflowed (ENOBUFS: the kernel dropped
 * notifications) is reported as such: every interface may have changed.
 */
#ifndef NT_AGENT_EVENTS_H
#define NT_AGENT_EVENTS_H

#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>

enum nt_event_type {
	NT_EV_LINK,		/* RTM_NEWLINK */
	NT_EV_LINK_GONE,	/* RTM_DELLINK */
	NT_EV_ETHTOOL,		/* an ethtool notification */
	NT_EV_OVERFLOW,		/* notifications were lost */
};

struct nt_event {
	enum nt_event_type type;
	int ifindex;
	char name[IF_NAMESIZE];		/* the device's current name ("" unknown) */
	char old_name[IF_NAMESIZE];	/* NT_EV_LINK: the name it had, when renamed */
	unsigned flags;			/* NT_EV_LINK: ifi_flags */
	unsigned change;		/* NT_EV_LINK: ifi_change */
	bool added;			/* NT_EV_LINK: a link not seen before */
	const char *what;		/* NT_EV_ETHTOOL: "features", "channels", ... */
	long long at_ns;		/* CLOCK_MONOTONIC when read */
};

struct nt_events;

/* Opens and subscribes both sockets (in this process's network
 * namespace); 0 or -errno with err saying why. */
int nt_events_open(struct nt_events **out, char *err, size_t errlen);
void nt_events_close(struct nt_events *ev);
/* The fds to poll for POLLIN. */
int nt_events_fd(const struct nt_events *ev, int which);	/* which: 0 rtnl, 1 genl */

typedef void (*nt_event_fn)(const struct nt_event *e, void *ctx);
/* Reads every message queued on both sockets and calls fn for each event
 * (an overflow once).  Returns the number of events. */
size_t nt_events_read(struct nt_events *ev, nt_event_fn fn, void *ctx);

#endif
