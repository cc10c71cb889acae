/* SPDX-License-Identifier: MIT */
/*
 * The floor of benchmarks (a) and (b): only the unavoidable work of a
 * safe converge of veth features, channels and MTU, with raw netlink
 * sockets and no library.
 *
 *   floor_apply STATEDIR MTU CHANNELS FEATURE=0|1... -- DEV...
 *
 * Takes a lock file in STATEDIR, observes every device with one dump per
 * message family (ethtool FEATURES_GET with compact bitsets, CHANNELS_GET,
 * RTM_GETLINK; the feature names once by STRSET_GET), compares.  When
 * something differs: writes the previous values to a journal and fsyncs
 * it (one write), sends one FEATURES_SET, one CHANNELS_SET and one RTM_NEWLINK per
 * device that needs it, verifies with one dump per family again, marks
 * the journal applied and fsyncs it.  Exit 0 converged, 1 not.
 * With nothing to change (benchmark (b)) it sends no SET and writes
 * nothing.  FLOOR_NETNS=NAME enters /run/netns/NAME first (as nettune
 * --netns does).  FLOOR_PROFILE=FILE first reads FILE and runs one libyaml
 * event pass over it, nothing else (the least any tool that reads the
 * profile must do: (e)'s second floor).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <net/if.h>
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
#include <sched.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <unistd.h>
#include <yaml.h>

#define MAXDEV 4096
#define MAXFEAT 64
#define HSLOTS (2 * MAXDEV)	/* a power of two */

struct dev {
	char name[IFNAMSIZ];
	int seen;
	uint32_t mtu, rx, tx;
	uint32_t active[8];	/* feature bits */
};

static struct dev devs[MAXDEV];
static int ndev;
static int slot[HSLOTS];	/* device index + 1, 0 = empty */
static char *fnames[512];
static unsigned nfnames;
static const char *want_name[MAXFEAT];
static int want_bit[MAXFEAT], want_on[MAXFEAT], nwant;
static uint32_t want_mtu, want_ch;
static int gsk, rsk, family;
static unsigned seq = 1;
static unsigned long requests, sets;
static char buf[1 << 16];

/* Device names in an open-addressing hash (FNV-1a): a dump of N devices
 * costs N lookups of O(1), never N * N / 2 comparisons. */
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

/* attribute helpers over a byte buffer */
struct msg {
	char b[4096];
	size_t n;
};

static struct nlattr *put(struct msg *m, int type, const void *data, size_t len)
{
	struct nlattr *a = (struct nlattr *)(m->b + m->n);

	a->nla_type = (uint16_t)type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	m->n += NLA_ALIGN(a->nla_len);
	return a;
}

static void put_u32(struct msg *m, int type, uint32_t v)
{
	put(m, type, &v, 4);
}

static struct nlattr *nest(struct msg *m, int type)
{
	return put(m, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct msg *m, struct nlattr *a)
{
	a->nla_len = (uint16_t)(m->b + m->n - (char *)a);
}

static void start(struct msg *m, int type, int flags, int cmd)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->b;

	memset(m->b, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	h->nlmsg_type = (uint16_t)type;
	/* an ack ends every request that is not a dump */
	h->nlmsg_flags = (uint16_t)(NLM_F_REQUEST | (flags & NLM_F_DUMP ? flags : flags | NLM_F_ACK));
	h->nlmsg_seq = seq++;
	m->n = NLMSG_HDRLEN;
	if (cmd >= 0) {
		struct genlmsghdr *g = (struct genlmsghdr *)(m->b + NLMSG_HDRLEN);

		g->cmd = (uint8_t)cmd;
		g->version = 1;
		m->n += GENL_HDRLEN;
	}
}

typedef void (*on_msg)(struct nlmsghdr *h);

/* Sends m and reads replies until the ack or NLMSG_DONE; 0 or -errno. */
static int transact(int sk, struct msg *m, on_msg cb)
{
	struct nlmsghdr *h = (struct nlmsghdr *)m->b;

	h->nlmsg_len = (uint32_t)m->n;
	requests++;
	if (send(sk, m->b, m->n, 0) < 0)
		return -1;
	for (;;) {
		ssize_t n = recv(sk, buf, sizeof(buf), 0);

		if (n <= 0)
			return -1;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (cb)
				cb(h);
		}
	}
}

/* Walks the attributes of [p, p + len) into tb[0..max]. */
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

static void genl_attrs(struct nlmsghdr *h, struct nlattr **tb, int max)
{
	parse(tb, max, (char *)NLMSG_DATA(h) + GENL_HDRLEN, (int)(h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN));
}

static void on_family(struct nlmsghdr *h)
{
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	genl_attrs(h, tb, CTRL_ATTR_MAX);
	if (tb[CTRL_ATTR_FAMILY_ID])
		family = *(uint16_t *)DATA(tb[CTRL_ATTR_FAMILY_ID]);
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
	set = DATA(tb[ETHTOOL_A_STRSET_STRINGSETS]);
	for (rem = LEN(tb[ETHTOOL_A_STRSET_STRINGSETS]); rem >= NLA_HDRLEN;
	     rem -= NLA_ALIGN(set->nla_len), set = (void *)((char *)set + NLA_ALIGN(set->nla_len))) {
		parse(sb, ETHTOOL_A_STRINGSET_MAX, DATA(set), LEN(set));
		if (!sb[ETHTOOL_A_STRINGSET_STRINGS])
			continue;
		s = DATA(sb[ETHTOOL_A_STRINGSET_STRINGS]);
		for (rem2 = LEN(sb[ETHTOOL_A_STRINGSET_STRINGS]); rem2 >= NLA_HDRLEN;
		     rem2 -= NLA_ALIGN(s->nla_len), s = (void *)((char *)s + NLA_ALIGN(s->nla_len))) {
			parse(st, ETHTOOL_A_STRING_MAX, DATA(s), LEN(s));
			if (st[ETHTOOL_A_STRING_INDEX] && st[ETHTOOL_A_STRING_VALUE] &&
			    U32(st[ETHTOOL_A_STRING_INDEX]) < 512) {
				fnames[U32(st[ETHTOOL_A_STRING_INDEX])] = strdup(DATA(st[ETHTOOL_A_STRING_VALUE]));
				nfnames++;
			}
		}
	}
}

static struct dev *hdr_dev(struct nlattr *hdr)
{
	struct nlattr *hb[ETHTOOL_A_HEADER_MAX + 1];

	if (!hdr)
		return NULL;
	parse(hb, ETHTOOL_A_HEADER_MAX, DATA(hdr), LEN(hdr));
	return hb[ETHTOOL_A_HEADER_DEV_NAME] ? find(DATA(hb[ETHTOOL_A_HEADER_DEV_NAME])) : NULL;
}

static void on_features(struct nlmsghdr *h)
{
	struct nlattr *tb[ETHTOOL_A_FEATURES_MAX + 1], *bs[ETHTOOL_A_BITSET_MAX + 1];
	struct dev *d;

	genl_attrs(h, tb, ETHTOOL_A_FEATURES_MAX);
	d = hdr_dev(tb[ETHTOOL_A_FEATURES_HEADER]);
	if (!d || !tb[ETHTOOL_A_FEATURES_ACTIVE])
		return;
	parse(bs, ETHTOOL_A_BITSET_MAX, DATA(tb[ETHTOOL_A_FEATURES_ACTIVE]), LEN(tb[ETHTOOL_A_FEATURES_ACTIVE]));
	if (bs[ETHTOOL_A_BITSET_VALUE])
		memcpy(d->active, DATA(bs[ETHTOOL_A_BITSET_VALUE]),
		       LEN(bs[ETHTOOL_A_BITSET_VALUE]) < 32 ? (size_t)LEN(bs[ETHTOOL_A_BITSET_VALUE]) : 32);
	d->seen |= 1;
}

static void on_channels(struct nlmsghdr *h)
{
	struct nlattr *tb[ETHTOOL_A_CHANNELS_MAX + 1];
	struct dev *d;

	genl_attrs(h, tb, ETHTOOL_A_CHANNELS_MAX);
	d = hdr_dev(tb[ETHTOOL_A_CHANNELS_HEADER]);
	if (!d)
		return;
	d->rx = tb[ETHTOOL_A_CHANNELS_RX_COUNT] ? U32(tb[ETHTOOL_A_CHANNELS_RX_COUNT]) : 0;
	d->tx = tb[ETHTOOL_A_CHANNELS_TX_COUNT] ? U32(tb[ETHTOOL_A_CHANNELS_TX_COUNT]) : 0;
	d->seen |= 2;
}

static void on_link(struct nlmsghdr *h)
{
	struct ifinfomsg *ifi = NLMSG_DATA(h);
	struct nlattr *tb[IFLA_MAX + 1];
	struct dev *d;

	if (h->nlmsg_type != RTM_NEWLINK)
		return;
	parse(tb, IFLA_MAX, (char *)ifi + NLMSG_ALIGN(sizeof(*ifi)),
	      (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*ifi))));
	if (!tb[IFLA_IFNAME] || !(d = find(DATA(tb[IFLA_IFNAME]))))
		return;
	d->mtu = tb[IFLA_MTU] ? U32(tb[IFLA_MTU]) : 0;
	d->seen |= 4;
}

static void ethtool_dump(int cmd, int hdr_attr, uint32_t flags, on_msg cb)
{
	struct msg m;
	struct nlattr *h;

	start(&m, family, NLM_F_DUMP, cmd);
	h = nest(&m, hdr_attr);
	put_u32(&m, ETHTOOL_A_HEADER_FLAGS, flags);
	nest_end(&m, h);
	if (transact(gsk, &m, cb))
		exit(2);
}

static void observe(void)
{
	struct msg m;
	struct ifinfomsg ifi = {0};

	for (int k = 0; k < ndev; k++)
		devs[k].seen = 0;
	ethtool_dump(ETHTOOL_MSG_FEATURES_GET, ETHTOOL_A_FEATURES_HEADER,
		     ETHTOOL_FLAG_COMPACT_BITSETS, on_features);
	ethtool_dump(ETHTOOL_MSG_CHANNELS_GET, ETHTOOL_A_CHANNELS_HEADER, 0, on_channels);
	start(&m, RTM_GETLINK, NLM_F_DUMP, -1);
	memcpy(m.b + m.n, &ifi, sizeof(ifi));
	m.n += NLMSG_ALIGN(sizeof(ifi));
	if (transact(rsk, &m, on_link))
		exit(2);
}

static int feat_on(const struct dev *d, int bit)
{
	return (d->active[bit / 32] >> (bit % 32)) & 1;
}

/* 0: nothing differs */
static int differs(const struct dev *d, int *f, int *c, int *l)
{
	*f = *c = *l = 0;
	for (int k = 0; k < nwant; k++)
		if (want_bit[k] >= 0 && feat_on(d, want_bit[k]) != want_on[k])
			*f = 1;
	*c = d->rx != want_ch || d->tx != want_ch;
	*l = d->mtu != want_mtu;
	return *f || *c || *l;
}

/* One libyaml event pass over the profile: 0, or -1 when it cannot be
 * read or parsed. */
static int profile_pass(const char *file)
{
	yaml_parser_t p;
	yaml_event_t ev;
	FILE *f = fopen(file, "rb");
	int r = -1, done = 0;

	if (!f || !yaml_parser_initialize(&p)) {
		if (f)
			fclose(f);
		return -1;
	}
	yaml_parser_set_input_file(&p, f);
	while (!done && yaml_parser_parse(&p, &ev)) {
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	if (done)
		r = 0;
	yaml_parser_delete(&p);
	fclose(f);
	return r;
}

int main(int argc, char **argv)
{
	struct msg m;
	struct nlattr *a, *b, *bit;
	int k, i, changed = 0, lock, j = -1;
	char path[4096];

	if (argc < 5) {
		fprintf(stderr, "usage: floor_apply STATEDIR MTU CHANNELS FEATURE=0|1... -- DEV...\n");
		return 2;
	}
	want_mtu = (uint32_t)atoi(argv[2]);
	want_ch = (uint32_t)atoi(argv[3]);
	for (i = 4; i < argc && strcmp(argv[i], "--"); i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq || nwant == MAXFEAT)
			return 2;
		*eq = '\0';
		want_name[nwant] = argv[i];
		want_on[nwant++] = atoi(eq + 1);
	}
	for (i++; i < argc; i++) {
		if (ndev == MAXDEV) {
			fprintf(stderr, "floor_apply: more than %d devices\n", MAXDEV);
			return 2;
		}
		add_dev(argv[i]);
	}
	if (getenv("FLOOR_PROFILE") && profile_pass(getenv("FLOOR_PROFILE"))) {
		fprintf(stderr, "floor_apply: %s: cannot read or parse\n", getenv("FLOOR_PROFILE"));
		return 2;
	}
	if (getenv("FLOOR_NETNS")) {
		int ns;

		snprintf(path, sizeof(path), "/run/netns/%s", getenv("FLOOR_NETNS"));
		ns = open(path, O_RDONLY | O_CLOEXEC);
		if (ns < 0 || setns(ns, CLONE_NEWNET))
			return 2;
		close(ns);
	}
	snprintf(path, sizeof(path), "%s/lock", argv[1]);
	lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (lock < 0 || flock(lock, LOCK_EX))
		return 2;
	gsk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	rsk = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	/* the ethtool family id, the feature names */
	start(&m, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY);
	put(&m, CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME, sizeof(ETHTOOL_GENL_NAME));
	if (transact(gsk, &m, on_family) || !family)
		return 2;
	start(&m, family, 0, ETHTOOL_MSG_STRSET_GET);
	a = nest(&m, ETHTOOL_A_STRSET_HEADER);
	put_u32(&m, ETHTOOL_A_HEADER_FLAGS, 0);
	nest_end(&m, a);
	a = nest(&m, ETHTOOL_A_STRSET_STRINGSETS);
	b = nest(&m, ETHTOOL_A_STRINGSETS_STRINGSET);
	put_u32(&m, ETHTOOL_A_STRINGSET_ID, ETH_SS_FEATURES);
	nest_end(&m, b);
	nest_end(&m, a);
	if (transact(gsk, &m, on_strset))
		return 2;
	for (k = 0; k < nwant; k++) {
		want_bit[k] = -1;
		for (i = 0; i < 512; i++)
			if (fnames[i] && !strcmp(fnames[i], want_name[k]))
				want_bit[k] = i;
	}
	observe();
	for (k = 0; k < ndev; k++) {
		int f, c, l;

		if (differs(&devs[k], &f, &c, &l))
			changed++;
	}
	if (changed) {
		/* the journal: every previous value, on disk before the first write */
		static char jbuf[MAXDEV * 80];
		size_t jn = 0;

		snprintf(path, sizeof(path), "%s/journal", argv[1]);
		j = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (j < 0)
			return 2;
		for (k = 0; k < ndev; k++)
			jn += (size_t)snprintf(jbuf + jn, sizeof(jbuf) - jn,
					       "%s mtu %u rx %u tx %u features %08x%08x\n",
					       devs[k].name, devs[k].mtu, devs[k].rx, devs[k].tx,
					       devs[k].active[1], devs[k].active[0]);
		if (write(j, jbuf, jn) != (ssize_t)jn || fsync(j))
			return 2;
		for (k = 0; k < ndev; k++) {
			struct dev *d = &devs[k];
			int f, c, l;

			differs(d, &f, &c, &l);
			if (f) {
				start(&m, family, NLM_F_ACK, ETHTOOL_MSG_FEATURES_SET);
				a = nest(&m, ETHTOOL_A_FEATURES_HEADER);
				put(&m, ETHTOOL_A_HEADER_DEV_NAME, d->name, strlen(d->name) + 1);
				put_u32(&m, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_OMIT_REPLY);
				nest_end(&m, a);
				a = nest(&m, ETHTOOL_A_FEATURES_WANTED);
				b = nest(&m, ETHTOOL_A_BITSET_BITS);
				for (i = 0; i < nwant; i++) {
					bit = nest(&m, ETHTOOL_A_BITSET_BITS_BIT);
					put(&m, ETHTOOL_A_BITSET_BIT_NAME, want_name[i], strlen(want_name[i]) + 1);
					if (want_on[i])
						put(&m, ETHTOOL_A_BITSET_BIT_VALUE, NULL, 0);
					nest_end(&m, bit);
				}
				nest_end(&m, b);
				nest_end(&m, a);
				sets++;
				if (transact(gsk, &m, NULL))
					return 1;
			}
			if (c) {
				start(&m, family, NLM_F_ACK, ETHTOOL_MSG_CHANNELS_SET);
				a = nest(&m, ETHTOOL_A_CHANNELS_HEADER);
				put(&m, ETHTOOL_A_HEADER_DEV_NAME, d->name, strlen(d->name) + 1);
				nest_end(&m, a);
				put_u32(&m, ETHTOOL_A_CHANNELS_RX_COUNT, want_ch);
				put_u32(&m, ETHTOOL_A_CHANNELS_TX_COUNT, want_ch);
				sets++;
				if (transact(gsk, &m, NULL))
					return 1;
			}
			if (l) {
				struct ifinfomsg ifi = {0};

				start(&m, RTM_NEWLINK, NLM_F_ACK, -1);
				memcpy(m.b + m.n, &ifi, sizeof(ifi));
				m.n += NLMSG_ALIGN(sizeof(ifi));
				put(&m, IFLA_IFNAME, d->name, strlen(d->name) + 1);
				put_u32(&m, IFLA_MTU, want_mtu);
				sets++;
				if (transact(rsk, &m, NULL))
					return 1;
			}
		}
		/* verification: one dump per family */
		observe();
		for (k = 0; k < ndev; k++) {
			int f, c, l;

			if (differs(&devs[k], &f, &c, &l)) {
				fprintf(stderr, "floor_apply: %s did not converge\n", devs[k].name);
				return 1;
			}
		}
		if (write(j, "applied\n", 8) != 8 || fsync(j))
			return 2;
		close(j);
	}
	if (getenv("FLOOR_STATS"))
		fprintf(stderr, "floor_apply: %d devices changed, %lu netlink requests, %lu sets\n",
			changed, requests, sets);
	return 0;
}
