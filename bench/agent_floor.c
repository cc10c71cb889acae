/* SPDX-License-Identifier: MIT */
/*
 * The floor of the agent benchmark (bench/agent.sh): the least work an
 * event-driven corrector has to do, with raw netlink sockets and no
 * library.
 *
 *   agent_floor [-l LOG] [-j DIR] FEATURE=0|1 CHANNELS MTU -- DEV...
 *
 * Listens on one NETLINK_ROUTE socket joined to RTNLGRP_LINK and one
 * NETLINK_GENERIC socket joined to the ethtool "monitor" multicast group
 * (family and group resolved once with CTRL_CMD_GETFAMILY).  It acts only
 * on a notification that differs from the wanted state of a listed device:
 * FEATURES_NTF whose active FEATURE bit is not the wanted one,
 * CHANNELS_NTF whose rx/tx counts are not CHANNELS, RTM_NEWLINK whose MTU
 * is not MTU.  Each correction is one SET and one GET (the verification),
 * on request sockets of their own; the echo of its own SET matches the
 * wanted state and is ignored.  A listed device seen with a new ifindex
 * (created while it runs) is read whole (one GET per family) and every
 * differing setting set and verified; an ENOBUFS on a monitor socket does
 * the same for every device.
 *
 * With -j DIR each correction is also journaled in DIR the way a
 * crash-consistent journal of that layout must be at least: before the
 * SET, a marker NAME.open created (O_EXCL) and the journal (about 900
 * bytes, the size of nettune's) written to a temporary file renamed to
 * NAME.json; after the verifying GET, the journal written again and
 * renamed over NAME.json, and the marker removed; the newest 1000 kept
 * (older ones removed).  As nettune agent does, it leaves the fsyncs (of
 * each journal written and of DIR) to when no notification waits.
 *
 * At start it converges the listed devices that exist, then prints
 * "ready" on stdout.  SIGTERM/SIGINT: prints its counts and, per kind,
 * p50/p99/max of drift -> verified on stderr, and exits 0.
 *
 * The drift's timestamp: with AGENT_BENCH_SHM=FILE (written by
 * bench/agent_drift.c: a sequence number and the CLOCK_MONOTONIC time
 * taken just before its SET), read when the notification arrives; the
 * latency is from it to the end of the verifying GET.  LOG gets one line
 * per correction: "KIND DEV SEQ T_DRIFT T_NOTIFIED T_SET_ACKED T_VERIFIED"
 * (nanoseconds, CLOCK_MONOTONIC).
 */
#ifndef _GNU_SOURCE	/* meson passes it */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
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
#include <time.h>
#include <unistd.h>

#include "nlraw.h"

#define MAXDEV 1024
#define HSLOTS (2 * MAXDEV)	/* a power of two */
#define MAXREC 200000

enum { K_FEATURES, K_CHANNELS, K_MTU, K_NEW, NKIND };
static const char *kname[NKIND] = {"features", "channels", "mtu", "new-device"};

struct dev {
	char name[IFNAMSIZ];
	int ifindex;
};

static struct dev devs[MAXDEV];
static int ndev;
static int slot[HSLOTS];	/* device index + 1, 0 = empty */
static const char *want_feat;
static int want_bit = -1, want_on;
static uint32_t want_ch, want_mtu;
static int mon_r, mon_g, req_r, req_g, family, mcgrp;
static unsigned long notifs, ignored, corrections, sets, gets, resyncs, errors;
static char buf[1 << 16], rbuf[1 << 16];
static volatile sig_atomic_t stop;
static volatile uint64_t *shm;	/* [0] sequence, [1] CLOCK_MONOTONIC ns */
static FILE *logf;
static uint64_t *lat[NKIND];
static size_t nlat[NKIND];
static uint64_t last_seq[NKIND];
/* -j: the journal directory, its journals by number (a ring of JKEEP),
 * and those not yet fsynced */
#define JKEEP 1000
static int jfd = -1;
static unsigned long jnext, junsynced[64];
static size_t njunsynced;
static char jbody[900];

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
	if (find(devs[ndev].name))
		return;
	for (h = hash(devs[ndev].name); slot[h]; h = (h + 1) & (HSLOTS - 1))
		;
	slot[h] = ++ndev;
}

typedef void (*on_msg)(struct nlmsghdr *h, void *arg);

/* Sends m and reads replies until the ack, NLMSG_DONE or, for a GET of one
 * object, its reply; 0 or -errno. */
static int transact(int sk, struct msg *m, on_msg cb, void *arg)
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
				cb(h, arg);
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

static void on_family(struct nlmsghdr *h, void *arg)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1], *g, *gb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	int rem;

	(void)arg;
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

static void on_strset(struct nlmsghdr *h, void *arg)
{
	struct nlattr *tb[ETHTOOL_A_STRSET_MAX + 1], *sb[ETHTOOL_A_STRINGSET_MAX + 1];
	struct nlattr *st[ETHTOOL_A_STRING_MAX + 1];
	struct nlattr *set, *s;
	int rem, rem2;

	(void)arg;
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

/* The value of bit `bit` in an ethtool bitset (compact or verbose); -1 unknown. */
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

/* The observed values of one device: -1 / 0 unknown. */
struct obs {
	struct dev *d;
	int feat;		/* -1 unknown */
	uint32_t rx, tx, mtu;
	int ifindex;
	char name[IFNAMSIZ];
};

static void obs_features(struct nlmsghdr *h, void *arg)
{
	struct nlattr *tb[ETHTOOL_A_FEATURES_MAX + 1];
	struct obs *o = arg;

	genl_attrs(h, tb, ETHTOOL_A_FEATURES_MAX);
	o->d = hdr_dev(tb[ETHTOOL_A_FEATURES_HEADER]);
	o->feat = tb[ETHTOOL_A_FEATURES_ACTIVE] ? bitset_bit(tb[ETHTOOL_A_FEATURES_ACTIVE], want_bit) : -1;
}

static void obs_channels(struct nlmsghdr *h, void *arg)
{
	struct nlattr *tb[ETHTOOL_A_CHANNELS_MAX + 1];
	struct obs *o = arg;

	genl_attrs(h, tb, ETHTOOL_A_CHANNELS_MAX);
	o->d = hdr_dev(tb[ETHTOOL_A_CHANNELS_HEADER]);
	o->rx = tb[ETHTOOL_A_CHANNELS_RX_COUNT] ? U32(tb[ETHTOOL_A_CHANNELS_RX_COUNT]) : 0;
	o->tx = tb[ETHTOOL_A_CHANNELS_TX_COUNT] ? U32(tb[ETHTOOL_A_CHANNELS_TX_COUNT]) : 0;
}

static void obs_link(struct nlmsghdr *h, void *arg)
{
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct nlattr *tb[IFLA_MAX + 1];
	struct obs *o = arg;

	if (h->nlmsg_type != RTM_NEWLINK)
		return;
	parse(tb, IFLA_MAX, (char *)ifi + NLMSG_ALIGN(sizeof(*ifi)),
	      (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi))));
	o->ifindex = ifi->ifi_index;
	o->mtu = tb[IFLA_MTU] ? U32(tb[IFLA_MTU]) : 0;
	o->name[0] = '\0';
	if (tb[IFLA_IFNAME])
		snprintf(o->name, IFNAMSIZ, "%s", (char *)DATA(tb[IFLA_IFNAME]));
	o->d = find(o->name);
}

static void ethtool_hdr(struct msg *m, int attr, const struct dev *d, uint32_t flags)
{
	struct nlattr *a = nest(m, attr);

	put_u32(m, ETHTOOL_A_HEADER_DEV_INDEX, (uint32_t)d->ifindex);
	if (flags)
		put_u32(m, ETHTOOL_A_HEADER_FLAGS, flags);
	nest_end(m, a);
}

static int get(int kind, struct dev *d, struct obs *o)
{
	struct msg m;

	memset(o, 0, sizeof(*o));
	o->feat = -1;
	gets++;
	switch (kind) {
	case K_FEATURES:
		start(&m, family, 0, ETHTOOL_MSG_FEATURES_GET);
		ethtool_hdr(&m, ETHTOOL_A_FEATURES_HEADER, d, ETHTOOL_FLAG_COMPACT_BITSETS);
		return transact(req_g, &m, obs_features, o);
	case K_CHANNELS:
		start(&m, family, 0, ETHTOOL_MSG_CHANNELS_GET);
		ethtool_hdr(&m, ETHTOOL_A_CHANNELS_HEADER, d, 0);
		return transact(req_g, &m, obs_channels, o);
	default:
		start_link(&m, RTM_GETLINK, 0, d->ifindex);
		return transact(req_r, &m, obs_link, o);
	}
}

static int set(int kind, struct dev *d)
{
	struct msg m;
	struct nlattr *a, *b, *bit;

	sets++;
	switch (kind) {
	case K_FEATURES:
		start(&m, family, NLM_F_ACK, ETHTOOL_MSG_FEATURES_SET);
		ethtool_hdr(&m, ETHTOOL_A_FEATURES_HEADER, d, ETHTOOL_FLAG_OMIT_REPLY);
		a = nest(&m, ETHTOOL_A_FEATURES_WANTED);
		b = nest(&m, ETHTOOL_A_BITSET_BITS);
		bit = nest(&m, ETHTOOL_A_BITSET_BITS_BIT);
		put_u32(&m, ETHTOOL_A_BITSET_BIT_INDEX, (uint32_t)want_bit);
		if (want_on)
			put(&m, ETHTOOL_A_BITSET_BIT_VALUE, NULL, 0);
		nest_end(&m, bit);
		nest_end(&m, b);
		nest_end(&m, a);
		return transact(req_g, &m, NULL, NULL);
	case K_CHANNELS:
		start(&m, family, NLM_F_ACK, ETHTOOL_MSG_CHANNELS_SET);
		ethtool_hdr(&m, ETHTOOL_A_CHANNELS_HEADER, d, 0);
		put_u32(&m, ETHTOOL_A_CHANNELS_RX_COUNT, want_ch);
		put_u32(&m, ETHTOOL_A_CHANNELS_TX_COUNT, want_ch);
		return transact(req_g, &m, NULL, NULL);
	default:
		start_link(&m, RTM_NEWLINK, NLM_F_ACK, d->ifindex);
		put_u32(&m, IFLA_MTU, want_mtu);
		return transact(req_r, &m, NULL, NULL);
	}
}

static int wanted(int kind, const struct obs *o)
{
	switch (kind) {
	case K_FEATURES:
		return o->feat == want_on;
	case K_CHANNELS:
		return o->rx == want_ch && o->tx == want_ch;
	default:
		return o->mtu == want_mtu;
	}
}

static void record(int kind, struct dev *d, uint64_t dseq, uint64_t t0, uint64_t tn, uint64_t ta, uint64_t tv)
{
	if (logf)
		fprintf(logf, "%s %s %llu %llu %llu %llu %llu\n", kname[kind], d->name,
			(unsigned long long)dseq, (unsigned long long)t0, (unsigned long long)tn,
			(unsigned long long)ta, (unsigned long long)tv);
	/* one latency per drift: the first correction after its timestamp */
	if (shm && dseq && dseq != last_seq[kind] && t0 && tv > t0 && nlat[kind] < MAXREC) {
		last_seq[kind] = dseq;
		lat[kind][nlat[kind]++] = tv - t0;
	}
}

/* NAME.json written whole: a temporary file renamed in place. */
static int jwrite(unsigned long n, const char *state)
{
	char tmp[64], name[64];
	int fd;

	snprintf(tmp, sizeof(tmp), ".%lu.tmp", n);
	snprintf(name, sizeof(name), "%lu.json", n);
	memcpy(jbody, state, strlen(state));
	fd = openat(jfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, jbody, sizeof(jbody)) != (ssize_t)sizeof(jbody)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return renameat(jfd, tmp, jfd, name);
}

/* Before the SET: the marker, then the journal. */
static int jbegin(unsigned long n)
{
	char mark[64];
	int fd;

	snprintf(mark, sizeof(mark), "%lu.open", n);
	fd = openat(jfd, mark, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	close(fd);
	return jwrite(n, "applying");
}

/* After the verification: the journal closed, the marker gone, the
 * oldest beyond JKEEP removed. */
static void jend(unsigned long n)
{
	char name[64];

	if (jwrite(n, "applied"))
		errors++;
	snprintf(name, sizeof(name), "%lu.open", n);
	unlinkat(jfd, name, 0);
	if (n >= JKEEP) {
		snprintf(name, sizeof(name), "%lu.json", n - JKEEP);
		unlinkat(jfd, name, 0);
	}
	if (njunsynced < sizeof(junsynced) / sizeof(junsynced[0]))
		junsynced[njunsynced++] = n;
}

/* When nothing waits: what was journaled made durable. */
static void jsync(void)
{
	for (size_t i = 0; i < njunsynced; i++) {
		char name[64];
		int fd;

		snprintf(name, sizeof(name), "%lu.json", junsynced[i]);
		fd = openat(jfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			fsync(fd);
			close(fd);
		}
	}
	njunsynced = 0;
	fsync(jfd);
}

/* One correction: one SET, one GET to verify (with -j, journaled). */
static void correct(int kind, struct dev *d, uint64_t tn, uint64_t dseq, uint64_t t0)
{
	struct obs o;
	uint64_t ta;
	unsigned long jn = jnext++;

	corrections++;
	if (jfd >= 0 && jbegin(jn)) {
		errors++;
		return;
	}
	if (set(kind, d)) {
		errors++;
		return;
	}
	ta = now_ns();
	if (get(kind, d, &o) || !wanted(kind, &o)) {
		errors++;
		return;
	}
	record(kind, d, dseq, t0, tn, ta, now_ns());
	if (jfd >= 0)
		jend(jn);
}

/* A device read whole (new ifindex, start, or a lost notification). */
static void check_dev(struct dev *d, uint64_t tn)
{
	struct obs o;

	for (int k = K_FEATURES; k <= K_MTU; k++) {
		if (get(k, d, &o))
			continue;
		if (!wanted(k, &o))
			correct(k, d, tn, 0, 0);
	}
}

static void on_link_dump(struct nlmsghdr *h, void *arg)
{
	struct obs o;

	(void)arg;
	obs_link(h, &o);
	if (o.d)
		o.d->ifindex = o.ifindex;
}

static void resync(void)
{
	struct msg m;
	uint64_t tn = now_ns();

	resyncs++;
	start_link(&m, RTM_GETLINK, NLM_F_DUMP, 0);
	transact(req_r, &m, on_link_dump, NULL);
	for (int k = 0; k < ndev; k++)
		if (devs[k].ifindex)
			check_dev(&devs[k], tn);
}

static void drift_stamp(uint64_t *dseq, uint64_t *t0)
{
	*dseq = *t0 = 0;
	if (shm) {
		*dseq = __atomic_load_n(&shm[0], __ATOMIC_ACQUIRE);
		*t0 = __atomic_load_n(&shm[1], __ATOMIC_ACQUIRE);
	}
}

static void on_genl_ntf(struct nlmsghdr *h, uint64_t tn)
{
	struct genlmsghdr *g = NLMSG_DATA(h);
	struct obs o;
	uint64_t dseq, t0;
	int kind;

	if (h->nlmsg_type != family)
		return;
	memset(&o, 0, sizeof(o));
	o.feat = -1;
	if (g->cmd == ETHTOOL_MSG_FEATURES_NTF) {
		kind = K_FEATURES;
		obs_features(h, &o);
	} else if (g->cmd == ETHTOOL_MSG_CHANNELS_NTF) {
		kind = K_CHANNELS;
		obs_channels(h, &o);
	} else {
		return;
	}
	notifs++;
	if (!o.d || !o.d->ifindex || wanted(kind, &o)) {
		ignored++;
		return;
	}
	drift_stamp(&dseq, &t0);
	correct(kind, o.d, tn, dseq, t0);
}

static void on_rtnl_ntf(struct nlmsghdr *h, uint64_t tn)
{
	struct obs o;
	uint64_t dseq, t0;

	if (h->nlmsg_type != RTM_NEWLINK)
		return;
	notifs++;
	obs_link(h, &o);
	if (!o.d) {
		ignored++;
		return;
	}
	if (o.d->ifindex != o.ifindex) {
		/* created (or re-created) while we run: read it whole */
		o.d->ifindex = o.ifindex;
		check_dev(o.d, tn);
		return;
	}
	if (wanted(K_MTU, &o)) {
		ignored++;
		return;
	}
	drift_stamp(&dseq, &t0);
	correct(K_MTU, o.d, tn, dseq, t0);
}

/* Reads every pending notification of one monitor socket. */
static void drain(int sk, int genl)
{
	for (;;) {
		ssize_t n = recv(sk, buf, sizeof(buf), MSG_DONTWAIT);
		struct nlmsghdr *h;
		uint64_t tn;

		if (n < 0 && errno == ENOBUFS) {
			resync();
			continue;
		}
		if (n <= 0)
			return;
		tn = now_ns();
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (genl)
				on_genl_ntf(h, tn);
			else
				on_rtnl_ntf(h, tn);
		}
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void on_signal(int s)
{
	(void)s;
	stop = 1;
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

int main(int argc, char **argv)
{
	struct msg m;
	struct nlattr *a, *b;
	struct pollfd pf[2];
	struct sigaction sa = {.sa_handler = on_signal};
	const char *logpath = NULL;
	int i = 1;

	for (;;) {
		if (argc - i > 2 && !strcmp(argv[i], "-l")) {
			logpath = argv[i + 1];
			i += 2;
		} else if (argc - i > 2 && !strcmp(argv[i], "-j")) {
			jfd = open(argv[i + 1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (jfd < 0) {
				perror(argv[i + 1]);
				return 2;
			}
			memset(jbody, ' ', sizeof(jbody));
			i += 2;
		} else {
			break;
		}
	}
	if (argc - i < 5 || !strchr(argv[i], '=') || strcmp(argv[i + 3], "--")) {
		fprintf(stderr, "usage: agent_floor [-l LOG] [-j DIR] FEATURE=0|1 CHANNELS MTU -- DEV...\n");
		return 2;
	}
	*strchr(argv[i], '=') = '\0';
	want_feat = argv[i];
	want_on = atoi(argv[i] + strlen(argv[i]) + 1) != 0;
	want_ch = (uint32_t)atoi(argv[i + 1]);
	want_mtu = (uint32_t)atoi(argv[i + 2]);
	for (i += 4; i < argc; i++) {
		if (ndev == MAXDEV) {
			fprintf(stderr, "agent_floor: more than %d devices\n", MAXDEV);
			return 2;
		}
		add_dev(argv[i]);
	}
	for (int k = 0; k < NKIND; k++)
		if (!(lat[k] = malloc(MAXREC * sizeof(uint64_t))))
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
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	req_g = msock(NETLINK_GENERIC, 0);
	req_r = msock(NETLINK_ROUTE, 0);
	start(&m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	put(&m, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME, sizeof(ETHTOOL_GENL_NAME));
	if (req_g < 0 || req_r < 0 || transact(req_g, &m, on_family, NULL) || !family || !mcgrp) {
		fprintf(stderr, "agent_floor: no ethtool genl family or monitor group\n");
		return 2;
	}
	start(&m, family, 0, ETHTOOL_MSG_STRSET_GET);
	a = nest(&m, ETHTOOL_A_STRSET_HEADER);
	nest_end(&m, a);
	a = nest(&m, ETHTOOL_A_STRSET_STRINGSETS);
	b = nest(&m, ETHTOOL_A_STRINGSETS_STRINGSET);
	put_u32(&m, ETHTOOL_A_STRINGSET_ID, ETH_SS_FEATURES);
	nest_end(&m, b);
	nest_end(&m, a);
	if (transact(req_g, &m, on_strset, NULL) || want_bit < 0) {
		fprintf(stderr, "agent_floor: no feature %s\n", want_feat);
		return 2;
	}
	/* subscribe first, then converge: nothing is missed in between */
	mon_r = msock(NETLINK_ROUTE, RTNLGRP_LINK);
	mon_g = msock(NETLINK_GENERIC, mcgrp);
	if (mon_r < 0 || mon_g < 0)
		return 2;
	resync();
	/* the echoes of that convergence are stale: dropped, then read again */
	while (recv(mon_r, buf, sizeof(buf), MSG_DONTWAIT) > 0 || errno == ENOBUFS)
		;
	while (recv(mon_g, buf, sizeof(buf), MSG_DONTWAIT) > 0 || errno == ENOBUFS)
		;
	resync();
	resyncs = 0;
	corrections = sets = gets = 0;
	printf("ready\n");
	fflush(stdout);
	pf[0] = (struct pollfd){.fd = mon_g, .events = POLLIN};
	pf[1] = (struct pollfd){.fd = mon_r, .events = POLLIN};
	while (!stop) {
		int r = poll(pf, 2, jfd >= 0 && njunsynced ? 0 : -1);

		if (r == 0)
			jsync();
		if (r <= 0)
			continue;
		if (pf[0].revents)
			drain(mon_g, 1);
		if (pf[1].revents)
			drain(mon_r, 0);
	}
	if (logf)
		fclose(logf);
	fprintf(stderr, "agent_floor: %lu notifications (%lu matched the wanted state, ignored), "
		"%lu corrections, %lu sets, %lu gets, %lu resyncs, %lu errors\n",
		notifs, ignored, corrections, sets, gets, resyncs, errors);
	for (int k = 0; k < NKIND; k++) {
		size_t n = nlat[k];

		if (!n)
			continue;
		qsort(lat[k], n, sizeof(uint64_t), cmp_u64);
		/* nearest rank */
		fprintf(stderr, "agent_floor kind=%s n=%zu p50_us=%.1f p99_us=%.1f max_us=%.1f\n", kname[k], n,
			lat[k][(n * 50 + 99) / 100 - 1] / 1e3, lat[k][(n * 99 + 99) / 100 - 1] / 1e3,
			lat[k][n - 1] / 1e3);
	}
	return 0;
}
