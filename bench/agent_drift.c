/* SPDX-License-Identifier: MIT */
/*
 * The drift maker of the agent benchmark (bench/agent.sh).  Runs inside
 * the namespace (ip netns exec) beside a corrector (bench/agent_floor.c or
 * `nettune agent`) that keeps DEV... at the wanted state.
 *
 *   agent_drift [options] -- DEV...
 *     -k KIND    features | channels | mtu | mixed (the three in turn) |
 *                rps (rx-0/rps_cpus through sysfs: no event) |
 *                wait (only wait until every DEV is at the wanted state) |
 *                create (run -e CMD, then wait until every DEV is there
 *                and at the wanted state)
 *     -m HOW     netlink (default: exactly one SET per drift, by this
 *                process) | cmd (the real `ethtool -K`, `ethtool -L`,
 *                `ip link set mtu`, one process per drift)
 *     -n COUNT   drifts (default 1000)
 *     -F NAME=0|1 -c CH -M MTU    the wanted feature bit, channels, MTU
 *     -C CH -D MTU                the drifted channels and MTU (the drifted
 *                                 feature is the opposite of the wanted one)
 *     -R MASK -r MASK             rps: the wanted and drifted masks (hex)
 *     -P MS      rps: the corrector's check period, for the lateness count
 *     -t MS      deadline of one drift (default 2000)
 *     -q MS      after a restore, wait until the device is quiet this long
 *                (default 5): later notifications still count for it
 *     -e CMD     create: run by sh -c at time 0 (not waited for)
 *     -o LOG     one line per drift
 *     -s SEED    of the device choice (default 1)
 *
 * One drift: the device and the setting are chosen; the CLOCK_MONOTONIC
 * time t0 is taken just before the SET (with AGENT_BENCH_SHM=FILE it is
 * also published there, a sequence number then t0, for agent_floor); the
 * SET undoes the wanted value; then the drift maker waits, polling its own
 * monitor sockets (RTNLGRP_LINK, ethtool "monitor") with the deadline and
 * a GET after every notification of the device (and every 20 ms without
 * one), until a GET shows the wanted value again: that GET's end is the
 * restore time.  It never sleeps a fixed time as the measurement.
 *
 * With -m cmd, t0 is the arrival of the drift's own notification on the
 * drift maker's monitor socket (the kernel made the change shortly before;
 * the command's start is 1-3 ms earlier and says nothing precise), so the
 * figures are the corrector's reaction to the notification plus delivery;
 * they are coarser than -m netlink's (and t0 in AGENT_BENCH_SHM is the
 * command's start).
 *
 * Counting: from t0 until the next drift, the notifications of the device
 * (FEATURES_NTF, CHANNELS_NTF, other ethtool, RTM_NEWLINK) and the changes
 * of the drifted setting they show.  Every SET that changes the setting
 * raises one notification, so changes - 1 is the corrector's SETs that
 * changed it (1 is one correction; 3 is a correction undone and redone).
 * A SET that changes nothing raises no notification and is not counted.
 *
 * stdout: one summary line per kind, "drift kind=K how=H n=N timeouts=T
 * p50_us=.. p99_us=.. max_us=.. sets_per_drift=.. max_sets=.. ntf_per_drift=
 * features:.. channels:.. ethtool_other:.. newlink:..".  rps adds
 * late=N (restored later than -P + 10 ms); wait/create print
 * "converged ms=.. devices=N".  Exit 0, 1 if a drift timed out or did not
 * converge, 2 on a usage or netlink error.
 */
#ifndef _GNU_SOURCE	/* meson passes it */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nlraw.h"

extern char **environ;

#define MAXDEV 1024
#define HSLOTS (2 * MAXDEV)

enum { K_FEATURES, K_CHANNELS, K_MTU, K_RPS, NKIND };
static const char *kname[NKIND] = {"features", "channels", "mtu", "rps"};
enum { N_FEAT, N_CHAN, N_ETHOTHER, N_LINK, NNTF };

struct dev {
	char name[IFNAMSIZ];
	int ifindex;
	int feat;		/* last seen: -1 unknown */
	uint32_t rx, tx, mtu;
	unsigned seen;		/* bits: 1 features, 2 channels, 4 link */
	/* as the last notification showed it (the changes are counted on these) */
	int nfeat;
	uint32_t nrx, ntx, nmtu;
};

static struct dev devs[MAXDEV];
static int ndev;
static int slot[HSLOTS];
static const char *want_feat;
static int want_bit = -1, want_on;
static uint32_t want_ch = 2, want_mtu = 9000, drift_ch = 4, drift_mtu = 1500;
static unsigned long want_rps = 3, drift_rps = 0;
static int mon_r, mon_g, req_r, req_g, family, mcgrp;
static char buf[1 << 16], rbuf[1 << 16];
static volatile uint64_t *shm;

/* the window of the drift in progress */
static struct dev *wdev;
static int wkind = -1;
static unsigned wchanges, wntf[NNTF];
static uint64_t wdrift_t, recv_t;	/* the first notification showing the drift; this datagram's arrival */

static int is_drifted(int kind, const struct dev *d);

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static unsigned hash(const char *s)
{
	unsigned h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h & (HSLOTS - 1);
}

static struct dev *find(const char *name)
{
	for (unsigned h = hash(name); slot[h]; h = (h + 1) & (HSLOTS - 1))
		if (!strcmp(devs[slot[h] - 1].name, name))
			return &devs[slot[h] - 1];
	return NULL;
}

static void add_dev(const char *name)
{
	unsigned h;

	snprintf(devs[ndev].name, IFNAMSIZ, "%s", name);
	devs[ndev].feat = devs[ndev].nfeat = -1;
	if (find(devs[ndev].name))
		return;
	for (h = hash(devs[ndev].name); slot[h]; h = (h + 1) & (HSLOTS - 1))
		;
	slot[h] = ++ndev;
}

typedef void (*on_msg)(struct nlmsghdr *h);

static int transact(int sk, struct msg *m, on_msg cb)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->b;
	int flags = h->nlmsg_flags;

	h->nlmsg_len = (uint32_t)m->n;
	if (send(sk, m->b, m->n, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t n = recv(sk, rbuf, sizeof(rbuf), 0);

		if (n <= 0)
			return -EIO;
		for (h = (struct nlmsghdr *)rbuf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (cb)
				cb(h);
			/* a GET of one object: its reply is the whole answer */
			if (!(flags & (NLM_F_DUMP | NLM_F_ACK)))
				return 0;
		}
	}
}

static void parse(struct nlattr **tb, int max, void *p, int len)
{
	struct nlattr *a;

	memset(tb, 0, sizeof(*tb) * (size_t)(max + 1));
	for (a = p; len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len), a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len)))
		if ((a->nla_type & NLA_TYPE_MASK) <= max)
			tb[a->nla_type & NLA_TYPE_MASK] = a;
}

#define DATA(a) ((void *)((char *)(a) + NLA_HDRLEN))
#define LEN(a) ((int)(a)->nla_len - NLA_HDRLEN)
#define U32(a) (*(uint32_t *)DATA(a))
#define FOR_NESTED(a, parent, rem) \
	for (a = DATA(parent), rem = LEN(parent); rem >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN; \
	     rem -= NLA_ALIGN(a->nla_len), a = (void *)((char *)a + NLA_ALIGN(a->nla_len)))

static void genl_attrs(struct nlmsghdr *h, struct nlattr **tb, int max)
{
	parse(tb, max, (char *)NLMSG_DATA(h) + GENL_HDRLEN, (int)(h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN));
}

static void on_family(struct nlmsghdr *h)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *g, *gb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	int rem;

	genl_attrs(h, tb, CTRL_ATTR_MAX);
	if (tb[CTRL_ATTR_FAMILY_ID])
		family = *(uint16_t *)DATA(tb[CTRL_ATTR_FAMILY_ID]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return;
	FOR_NESTED(g, tb[CTRL_ATTR_MCAST_GROUPS], rem) {
		parse(gb, CTRL_ATTR_MCAST_GRP_MAX, DATA(g), LEN(g));
		if (gb[CTRL_ATTR_MCAST_GRP_NAME] && gb[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(DATA(gb[CTRL_ATTR_MCAST_GRP_NAME]), ETHTOOL_MCGRP_MONITOR_NAME))
			mcgrp = (int)U32(gb[CTRL_ATTR_MCAST_GRP_ID]);
	}
}

static void on_strset(struct nlmsghdr *h)
{
	struct nlattr *tb[ETHTOOL_A_STRSET_MAX + 1], *sb[ETHTOOL_A_STRINGSET_MAX + 1];
	struct nlattr *st[ETHTOOL_A_STRING_MAX + 1];
	struct nlattr *set, *s;
	int rem, rem2;

	genl_attrs(h, tb, ETHTOOL_A_STRSET_MAX);
	if (!tb[ETHTOOL_A_STRSET_STRINGSETS])
		return;
	FOR_NESTED(set, tb[ETHTOOL_A_STRSET_STRINGSETS], rem) {
		parse(sb, ETHTOOL_A_STRINGSET_MAX, DATA(set), LEN(set));
		if (!sb[ETHTOOL_A_STRINGSET_STRINGS])
			continue;
		FOR_NESTED(s, sb[ETHTOOL_A_STRINGSET_STRINGS], rem2) {
			parse(st, ETHTOOL_A_STRING_MAX, DATA(s), LEN(s));
			if (st[ETHTOOL_A_STRING_INDEX] && st[ETHTOOL_A_STRING_VALUE] &&
			    !strcmp(DATA(st[ETHTOOL_A_STRING_VALUE]), want_feat))
				want_bit = (int)U32(st[ETHTOOL_A_STRING_INDEX]);
		}
	}
}

static int bitset_bit(struct nlattr *bs_attr, int bit)
{
	struct nlattr *bs[ETHTOOL_A_BITSET_MAX + 1], *b, *bb[ETHTOOL_A_BITSET_BIT_MAX + 1];
	int rem;

	parse(bs, ETHTOOL_A_BITSET_MAX, DATA(bs_attr), LEN(bs_attr));
	if (bs[ETHTOOL_A_BITSET_VALUE]) {
		if (bit / 32 >= LEN(bs[ETHTOOL_A_BITSET_VALUE]) / 4)
			return -1;
		return (((uint32_t *)DATA(bs[ETHTOOL_A_BITSET_VALUE]))[bit / 32] >> (bit % 32)) & 1;
	}
	if (!bs[ETHTOOL_A_BITSET_BITS])
		return -1;
	FOR_NESTED(b, bs[ETHTOOL_A_BITSET_BITS], rem) {
		parse(bb, ETHTOOL_A_BITSET_BIT_MAX, DATA(b), LEN(b));
		if (bb[ETHTOOL_A_BITSET_BIT_INDEX] && (int)U32(bb[ETHTOOL_A_BITSET_BIT_INDEX]) == bit)
			return bs[ETHTOOL_A_BITSET_NOMASK] || bb[ETHTOOL_A_BITSET_BIT_VALUE];
	}
	return bs[ETHTOOL_A_BITSET_NOMASK] ? 0 : -1;
}

static struct dev *hdr_dev(struct nlattr *hdr)
{
	struct nlattr *hb[ETHTOOL_A_HEADER_MAX + 1];

	if (!hdr)
		return NULL;
	parse(hb, ETHTOOL_A_HEADER_MAX, DATA(hdr), LEN(hdr));
	return hb[ETHTOOL_A_HEADER_DEV_NAME] ? find(DATA(hb[ETHTOOL_A_HEADER_DEV_NAME])) : NULL;
}

/* Replies and notifications update the device's last seen values; within
 * the window of a drift, notifications are counted. */
static void note(struct dev *d, int kind, int changed, int ntf, int type)
{
	if (!ntf || d != wdev)
		return;
	wntf[type]++;
	if (kind == wkind && changed)
		wchanges++;
	if (kind == wkind && !wdrift_t && is_drifted(kind, d))
		wdrift_t = recv_t;
}

static void on_genl(struct nlmsghdr *h, int ntf)
{
	struct genlmsghdr *g = NLMSG_DATA(h);
	struct nlattr *tb[ETHTOOL_A_FEATURES_MAX + ETHTOOL_A_CHANNELS_MAX + 2];
	struct dev *d;

	if (h->nlmsg_type != family)
		return;
	if (g->cmd == ETHTOOL_MSG_FEATURES_GET_REPLY || g->cmd == ETHTOOL_MSG_FEATURES_NTF) {
		int v;

		genl_attrs(h, tb, ETHTOOL_A_FEATURES_MAX);
		if (!(d = hdr_dev(tb[ETHTOOL_A_FEATURES_HEADER])))
			return;
		v = tb[ETHTOOL_A_FEATURES_ACTIVE] ? bitset_bit(tb[ETHTOOL_A_FEATURES_ACTIVE], want_bit) : -1;
		d->feat = v;
		if (ntf) {
			note(d, K_FEATURES, v != d->nfeat, ntf, N_FEAT);
			d->nfeat = v;
		}
		d->seen |= 1;
	} else if (g->cmd == ETHTOOL_MSG_CHANNELS_GET_REPLY || g->cmd == ETHTOOL_MSG_CHANNELS_NTF) {
		uint32_t rx, tx;

		genl_attrs(h, tb, ETHTOOL_A_CHANNELS_MAX);
		if (!(d = hdr_dev(tb[ETHTOOL_A_CHANNELS_HEADER])))
			return;
		rx = tb[ETHTOOL_A_CHANNELS_RX_COUNT] ? U32(tb[ETHTOOL_A_CHANNELS_RX_COUNT]) : 0;
		tx = tb[ETHTOOL_A_CHANNELS_TX_COUNT] ? U32(tb[ETHTOOL_A_CHANNELS_TX_COUNT]) : 0;
		d->rx = rx;
		d->tx = tx;
		if (ntf) {
			note(d, K_CHANNELS, rx != d->nrx || tx != d->ntx, ntf, N_CHAN);
			d->nrx = rx;
			d->ntx = tx;
		}
		d->seen |= 2;
	} else if (ntf) {
		/* another ethtool notification: the header names the device */
		genl_attrs(h, tb, 1);
		if ((d = hdr_dev(tb[1])))
			note(d, -1, 0, ntf, N_ETHOTHER);
	}
}

static void on_link(struct nlmsghdr *h, int ntf)
{
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct nlattr *tb[IFLA_MAX + 1];
	struct dev *d;
	uint32_t mtu;

	if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
		return;
	parse(tb, IFLA_MAX, (char *)ifi + NLMSG_ALIGN(sizeof(*ifi)),
	      (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi))));
	if (!tb[IFLA_IFNAME] || !(d = find(DATA(tb[IFLA_IFNAME]))))
		return;
	if (h->nlmsg_type == RTM_DELLINK) {
		d->ifindex = 0;
		d->seen = 0;
		return;
	}
	d->ifindex = ifi->ifi_index;
	mtu = tb[IFLA_MTU] ? U32(tb[IFLA_MTU]) : 0;
	d->mtu = mtu;
	if (ntf) {
		note(d, K_MTU, mtu != d->nmtu, ntf, N_LINK);
		d->nmtu = mtu;
	}
	d->seen |= 4;
}

static void cb_genl(struct nlmsghdr *h)
{
	on_genl(h, 0);
}

static void cb_link(struct nlmsghdr *h)
{
	on_link(h, 0);
}

static void ethtool_hdr(struct msg *m, int attr, const struct dev *d, uint32_t flags)
{
	struct nlattr *a = nest(m, attr);

	if (d)
		put_u32(m, ETHTOOL_A_HEADER_DEV_INDEX, (uint32_t)d->ifindex);
	if (flags)
		put_u32(m, ETHTOOL_A_HEADER_FLAGS, flags);
	nest_end(m, a);
}

/* GET of one setting of d (d NULL: a dump of every device). */
static int get(int kind, struct dev *d)
{
	struct msg m;
	int dump = d ? 0 : NLM_F_DUMP;

	switch (kind) {
	case K_FEATURES:
		start(&m, family, dump, ETHTOOL_MSG_FEATURES_GET);
		ethtool_hdr(&m, ETHTOOL_A_FEATURES_HEADER, d, ETHTOOL_FLAG_COMPACT_BITSETS);
		return transact(req_g, &m, cb_genl);
	case K_CHANNELS:
		start(&m, family, dump, ETHTOOL_MSG_CHANNELS_GET);
		ethtool_hdr(&m, ETHTOOL_A_CHANNELS_HEADER, d, 0);
		return transact(req_g, &m, cb_genl);
	default:
		start_link(&m, RTM_GETLINK, dump, d ? d->ifindex : 0);
		return transact(req_r, &m, cb_link);
	}
}

static int is_wanted(int kind, const struct dev *d)
{
	switch (kind) {
	case K_FEATURES:
		return d->feat == want_on;
	case K_CHANNELS:
		return d->rx == want_ch && d->tx == want_ch;
	default:
		return d->mtu == want_mtu;
	}
}

static int is_drifted(int kind, const struct dev *d)
{
	switch (kind) {
	case K_FEATURES:
		return d->feat == !want_on;
	case K_CHANNELS:
		return d->rx == drift_ch && d->tx == drift_ch;
	default:
		return d->mtu == drift_mtu;
	}
}

/* The one SET of a drift. */
static int set_drift(int kind, struct dev *d)
{
	struct msg m;
	struct nlattr *a, *b, *bit;

	switch (kind) {
	case K_FEATURES:
		start(&m, family, NLM_F_ACK, ETHTOOL_MSG_FEATURES_SET);
		ethtool_hdr(&m, ETHTOOL_A_FEATURES_HEADER, d, ETHTOOL_FLAG_OMIT_REPLY);
		a = nest(&m, ETHTOOL_A_FEATURES_WANTED);
		b = nest(&m, ETHTOOL_A_BITSET_BITS);
		bit = nest(&m, ETHTOOL_A_BITSET_BITS_BIT);
		put_u32(&m, ETHTOOL_A_BITSET_BIT_INDEX, (uint32_t)want_bit);
		if (!want_on)
			put(&m, ETHTOOL_A_BITSET_BIT_VALUE, NULL, 0);
		nest_end(&m, bit);
		nest_end(&m, b);
		nest_end(&m, a);
		return transact(req_g, &m, NULL);
	case K_CHANNELS:
		start(&m, family, NLM_F_ACK, ETHTOOL_MSG_CHANNELS_SET);
		ethtool_hdr(&m, ETHTOOL_A_CHANNELS_HEADER, d, 0);
		put_u32(&m, ETHTOOL_A_CHANNELS_RX_COUNT, drift_ch);
		put_u32(&m, ETHTOOL_A_CHANNELS_TX_COUNT, drift_ch);
		return transact(req_g, &m, NULL);
	default:
		start_link(&m, RTM_NEWLINK, NLM_F_ACK, d->ifindex);
		put_u32(&m, IFLA_MTU, drift_mtu);
		return transact(req_r, &m, NULL);
	}
}

static pid_t spawn_cmd(int kind, struct dev *d)
{
	char a1[16], a2[16];
	char *ethk[] = {"ethtool", "-K", d->name, (char *)want_feat, want_on ? "off" : "on", NULL};
	char *ethl[] = {"ethtool", "-L", d->name, "rx", a1, "tx", a1, NULL};
	char *ipm[] = {"ip", "link", "set", "dev", d->name, "mtu", a2, NULL};
	char **argv = kind == K_FEATURES ? ethk : kind == K_CHANNELS ? ethl : ipm;
	posix_spawn_file_actions_t fa;
	pid_t pid;

	snprintf(a1, sizeof(a1), "%u", drift_ch);
	snprintf(a2, sizeof(a2), "%u", drift_mtu);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ))
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

/* Reads the pending notifications; returns how many were of device d
 * (any device when d is NULL) and the arrival time of the first. */
static int drain(struct dev *d, uint64_t *first)
{
	int n_d = 0, socks[2] = {mon_g, mon_r};

	for (int s = 0; s < 2; s++)
		for (;;) {
			ssize_t n = recv(socks[s], buf, sizeof(buf), MSG_DONTWAIT);
			struct nlmsghdr *h;
			uint64_t t;

			if (n < 0 && errno == ENOBUFS) {
				fprintf(stderr, "agent_drift: monitor overrun (ENOBUFS)\n");
				continue;
			}
			if (n <= 0)
				break;
			t = recv_t = now_ns();
			for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
				unsigned before = wntf[0] + wntf[1] + wntf[2] + wntf[3];

				if (s == 0)
					on_genl(h, 1);
				else
					on_link(h, 1);
				if (!d || wntf[0] + wntf[1] + wntf[2] + wntf[3] != before) {
					if (!n_d++ && first)
						*first = t;
				}
			}
		}
	return n_d;
}

/* Waits for a notification or the timeout (ms). */
static void wait_ntf(int ms)
{
	struct pollfd pf[2] = {{.fd = mon_g, .events = POLLIN}, {.fd = mon_r, .events = POLLIN}};

	poll(pf, 2, ms < 0 ? 0 : ms);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* nearest rank */
static uint64_t pct(const uint64_t *v, size_t n, unsigned p)
{
	size_t r = (n * p + 99) / 100;

	return v[r ? r - 1 : 0];
}

static int msock(int proto, int group)
{
	int sk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	int sz = 8 << 20;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};

	if (sk < 0)
		return -1;
	if (group) {
		if (setsockopt(sk, SOL_SOCKET, SO_RCVBUFFORCE, &sz, sizeof(sz)))
			setsockopt(sk, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
		if (bind(sk, (struct sockaddr *)&sa, sizeof(sa)) ||
		    setsockopt(sk, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)))
			return -1;
	}
	return sk;
}

/* Every device present and at the wanted state (three dumps). */
static int all_converged(int *present)
{
	int ok = 0;

	for (int k = 0; k < ndev; k++)
		devs[k].seen = 0;
	get(K_MTU, NULL);
	get(K_FEATURES, NULL);
	get(K_CHANNELS, NULL);
	*present = 0;
	for (int k = 0; k < ndev; k++) {
		struct dev *d = &devs[k];

		if (d->seen != 7)
			continue;
		++*present;
		ok += is_wanted(K_FEATURES, d) && is_wanted(K_CHANNELS, d) && is_wanted(K_MTU, d);
	}
	return ok == ndev;
}

static int wait_converged(uint64_t t0, uint64_t deadline, const char *cmd)
{
	pid_t child = -1;
	int present = 0, status, ok;

	if (cmd) {
		char *argv[] = {"sh", "-c", (char *)cmd, NULL};

		if (posix_spawn(&child, "/bin/sh", NULL, NULL, argv, environ))
			return 2;
	}
	for (;;) {
		drain(NULL, NULL);
		if ((ok = all_converged(&present)))
			break;
		if (now_ns() >= deadline)
			break;
		/* at most every 20 ms, or after a notification */
		wait_ntf(20);
	}
	printf("converged=%s ms=%.1f devices=%d present=%d\n", ok ? "yes" : "no",
	       (now_ns() - t0) / 1e6, ndev, present);
	if (child > 0) {
		waitpid(child, &status, 0);
		printf("command exited %d after ms=%.1f\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128,
		       (now_ns() - t0) / 1e6);
	}
	return ok ? 0 : 1;
}

static long read_rps(const char *path)
{
	char b[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	unsigned long v = 0;

	if (fd < 0)
		return -1;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	b[n] = '\0';
	/* "00000000,00000003": the last 64 CPUs are enough here */
	for (char *p = b; *p && *p != '\n'; p++)
		if (*p != ',')
			v = v * 16 + (unsigned long)(*p <= '9' ? *p - '0' : (*p | 0x20) - 'a' + 10);
	return (long)v;
}

int main(int argc, char **argv)
{
	const char *kind_s = "features", *how = "netlink", *logpath = NULL, *cmd = NULL;
	long count = 1000, timeout_ms = 2000, quiet_ms = 5, period_ms = 0;
	unsigned long rnd = 1;
	struct msg m;
	struct nlattr *a, *b;
	FILE *logf = NULL;
	uint64_t *lat[NKIND], t0, deadline;
	size_t nlat[NKIND] = {0};
	unsigned long timeouts[NKIND] = {0}, drifts[NKIND] = {0}, changes[NKIND] = {0}, maxsets[NKIND] = {0};
	unsigned long ntf[NKIND][NNTF] = {{0}}, late = 0;
	int opt, kinds[3], nk = 0, use_cmd;

	while ((opt = getopt(argc, argv, "k:m:n:F:c:M:C:D:R:r:P:t:q:e:o:s:")) != -1) {
		switch (opt) {
		case 'k': kind_s = optarg; break;
		case 'm': how = optarg; break;
		case 'n': count = atol(optarg); break;
		case 'F': want_feat = optarg; break;
		case 'c': want_ch = (uint32_t)atol(optarg); break;
		case 'M': want_mtu = (uint32_t)atol(optarg); break;
		case 'C': drift_ch = (uint32_t)atol(optarg); break;
		case 'D': drift_mtu = (uint32_t)atol(optarg); break;
		case 'R': want_rps = strtoul(optarg, NULL, 16); break;
		case 'r': drift_rps = strtoul(optarg, NULL, 16); break;
		case 'P': period_ms = atol(optarg); break;
		case 't': timeout_ms = atol(optarg); break;
		case 'q': quiet_ms = atol(optarg); break;
		case 'e': cmd = optarg; break;
		case 'o': logpath = optarg; break;
		case 's': rnd = strtoul(optarg, NULL, 10) | 1; break;
		default: return 2;
		}
	}
	if (!want_feat || !strchr(want_feat, '=') || optind >= argc ||
	    (strcmp(how, "netlink") && strcmp(how, "cmd"))) {
		fprintf(stderr, "usage: agent_drift -F FEATURE=0|1 [-k KIND] [-m netlink|cmd] [options] -- DEV...\n");
		return 2;
	}
	use_cmd = !strcmp(how, "cmd");
	*strchr(want_feat, '=') = '\0';
	want_on = atoi(want_feat + strlen(want_feat) + 1) != 0;
	for (int i = optind; i < argc; i++) {
		if (ndev == MAXDEV)
			return 2;
		add_dev(argv[i]);
	}
	if (!strcmp(kind_s, "features") || !strcmp(kind_s, "mixed"))
		kinds[nk++] = K_FEATURES;
	if (!strcmp(kind_s, "channels") || !strcmp(kind_s, "mixed"))
		kinds[nk++] = K_CHANNELS;
	if (!strcmp(kind_s, "mtu") || !strcmp(kind_s, "mixed"))
		kinds[nk++] = K_MTU;
	if (!strcmp(kind_s, "rps"))
		kinds[nk++] = K_RPS;
	if (!nk && strcmp(kind_s, "wait") && strcmp(kind_s, "create")) {
		fprintf(stderr, "agent_drift: unknown kind %s\n", kind_s);
		return 2;
	}
	for (int k = 0; k < NKIND; k++)
		if (!(lat[k] = calloc((size_t)count + 1, sizeof(uint64_t))))
			return 2;
	if (logpath && !(logf = fopen(logpath, "we")))
		return 2;
	if (getenv("AGENT_BENCH_SHM")) {
		int fd = open(getenv("AGENT_BENCH_SHM"), O_RDWR | O_CREAT | O_CLOEXEC, 0600);

		if (fd < 0 || ftruncate(fd, 4096))
			return 2;
		shm = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (shm == MAP_FAILED)
			return 2;
		close(fd);
	}
	signal(SIGPIPE, SIG_IGN);
	req_g = msock(NETLINK_GENERIC, 0);
	req_r = msock(NETLINK_ROUTE, 0);
	start(&m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	put(&m, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME, sizeof(ETHTOOL_GENL_NAME));
	if (req_g < 0 || req_r < 0 || transact(req_g, &m, on_family) || !family || !mcgrp)
		return 2;
	start(&m, family, 0, ETHTOOL_MSG_STRSET_GET);
	a = nest(&m, ETHTOOL_A_STRSET_HEADER);
	nest_end(&m, a);
	a = nest(&m, ETHTOOL_A_STRSET_STRINGSETS);
	b = nest(&m, ETHTOOL_A_STRINGSETS_STRINGSET);
	put_u32(&m, ETHTOOL_A_STRINGSET_ID, ETH_SS_FEATURES);
	nest_end(&m, b);
	nest_end(&m, a);
	if (transact(req_g, &m, on_strset) || want_bit < 0) {
		fprintf(stderr, "agent_drift: no feature %s\n", want_feat);
		return 2;
	}
	mon_r = msock(NETLINK_ROUTE, RTNLGRP_LINK);
	mon_g = msock(NETLINK_GENERIC, mcgrp);
	if (mon_r < 0 || mon_g < 0)
		return 2;
	t0 = now_ns();
	if (!strcmp(kind_s, "create"))
		return wait_converged(t0, t0 + (uint64_t)timeout_ms * 1000000u, cmd);
	/* the corrector converged every device first */
	if (wait_converged(t0, t0 + (uint64_t)timeout_ms * 1000000u, NULL))
		return 1;
	if (!strcmp(kind_s, "wait"))
		return 0;
	for (int k = 0; k < ndev; k++) {
		devs[k].nfeat = devs[k].feat;
		devs[k].nrx = devs[k].rx;
		devs[k].ntx = devs[k].tx;
		devs[k].nmtu = devs[k].mtu;
	}
	for (long i = 0; i < count; i++) {
		int kind = kinds[i % nk];
		struct dev *d;
		uint64_t tr = 0, tack = 0, tdrift = 0;
		int restored = 0, drifted = 0;
		pid_t child = -1;

		rnd ^= rnd << 13;
		rnd ^= rnd >> 7;
		rnd ^= rnd << 17;
		d = &devs[rnd % (unsigned long)ndev];
		drain(NULL, NULL);	/* the previous window ends here */
		wdev = d;
		wkind = kind;
		wchanges = 0;
		wdrift_t = 0;
		memset(wntf, 0, sizeof(wntf));
		if (kind == K_RPS) {
			char path[256], val[32];
			int fd;
			long v;

			snprintf(path, sizeof(path), "/sys/class/net/%s/queues/rx-0/rps_cpus", d->name);
			snprintf(val, sizeof(val), "%lx\n", drift_rps);
			if (read_rps(path) != (long)want_rps) {
				fprintf(stderr, "agent_drift: %s is not at the wanted rps mask\n", path);
				return 1;
			}
			t0 = now_ns();
			deadline = t0 + (uint64_t)timeout_ms * 1000000u;
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd < 0 || write(fd, val, strlen(val)) < 0)
				return 2;
			close(fd);
			tack = now_ns();
			/* no event: read it every millisecond until the deadline */
			while ((v = read_rps(path)) != (long)want_rps && now_ns() < deadline) {
				struct timespec ts = {0, 1000000};

				nanosleep(&ts, NULL);
			}
			if (v == (long)want_rps) {
				tr = now_ns();
				restored = 1;
			}
		} else {
			if (!is_wanted(kind, d)) {
				get(kind, d);
				if (!is_wanted(kind, d)) {
					fprintf(stderr, "agent_drift: %s %s is not at the wanted state before drift %ld\n",
						d->name, kname[kind], i);
					return 1;
				}
			}
			t0 = now_ns();
			if (shm) {
				__atomic_store_n(&shm[1], t0, __ATOMIC_RELEASE);
				__atomic_store_n(&shm[0], (uint64_t)i + 1, __ATOMIC_RELEASE);
			}
			deadline = t0 + (uint64_t)timeout_ms * 1000000u;
			if (use_cmd) {
				if ((child = spawn_cmd(kind, d)) < 0)
					return 2;
			} else {
				if (set_drift(kind, d))
					return 2;
				tack = now_ns();
				drifted = 1;
				tdrift = t0;
			}
			while (!restored) {
				uint64_t t = now_ns(), first = 0;

				if (t >= deadline)
					break;
				wait_ntf((int)((deadline - t) / 1000000u < 20 ? (deadline - t) / 1000000u : 20));
				drain(d, &first);
				if (!drifted && wdrift_t) {
					drifted = 1;
					tdrift = wdrift_t;
				}
				if (!drifted)
					continue;
				/* after every notification of d, and every 20 ms: GET */
				if (get(kind, d) == 0 && is_wanted(kind, d)) {
					tr = now_ns();
					restored = 1;
				}
			}
			if (use_cmd && child > 0)
				waitpid(child, NULL, 0);
		}
		drifts[kind]++;
		if (restored) {
			uint64_t from = use_cmd ? tdrift : t0;

			lat[kind][nlat[kind]++] = tr - from;
			if (kind == K_RPS && period_ms && tr - t0 > (uint64_t)(period_ms + 10) * 1000000u)
				late++;
		} else {
			timeouts[kind]++;
		}
		/* quiet: later notifications of d (a second SET?) still count */
		if (kind != K_RPS)
			for (uint64_t q = now_ns() + (uint64_t)quiet_ms * 1000000u; now_ns() < q;) {
				wait_ntf(quiet_ms);
				if (drain(d, NULL))
					q = now_ns() + (uint64_t)quiet_ms * 1000000u;
			}
		drain(NULL, NULL);
		if (kind != K_RPS) {
			unsigned long s = wchanges ? wchanges - 1 : 0;

			changes[kind] += s;
			if (s > maxsets[kind])
				maxsets[kind] = s;
			for (int k = 0; k < NNTF; k++)
				ntf[kind][k] += wntf[k];
		}
		if (logf)
			fprintf(logf, "%ld %s %s %llu %llu %llu %s %u %u %u %u %u\n", i + 1, kname[kind], d->name,
				(unsigned long long)(use_cmd ? tdrift : t0), (unsigned long long)tack,
				(unsigned long long)tr, restored ? "restored" : "timeout", wchanges,
				wntf[N_FEAT], wntf[N_CHAN], wntf[N_ETHOTHER], wntf[N_LINK]);
		wdev = NULL;
		wkind = -1;
	}
	for (int k = 0; k < NKIND; k++) {
		size_t n = nlat[k];

		if (!drifts[k])
			continue;
		qsort(lat[k], n, sizeof(uint64_t), cmp_u64);
		printf("drift kind=%s how=%s n=%lu timeouts=%lu", kname[k], how, drifts[k], timeouts[k]);
		if (n)
			printf(" p50_us=%.1f p99_us=%.1f max_us=%.1f", pct(lat[k], n, 50) / 1e3,
			       pct(lat[k], n, 99) / 1e3, lat[k][n - 1] / 1e3);
		if (k == K_RPS)
			printf(" late=%lu period_ms=%ld\n", late, period_ms);
		else
			printf(" sets_per_drift=%.3f max_sets=%lu ntf_per_drift=features:%.2f,channels:%.2f,"
			       "ethtool_other:%.2f,newlink:%.2f\n",
			       (double)changes[k] / (double)drifts[k], maxsets[k],
			       (double)ntf[k][N_FEAT] / (double)drifts[k], (double)ntf[k][N_CHAN] / (double)drifts[k],
			       (double)ntf[k][N_ETHOTHER] / (double)drifts[k], (double)ntf[k][N_LINK] / (double)drifts[k]);
	}
	for (int k = 0; k < NKIND; k++)
		if (timeouts[k])
			return 1;
	return 0;
}
