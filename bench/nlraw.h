/* SPDX-License-Identifier: MIT */
/* Raw netlink requests for the agent benchmark's two programs
 * (agent_floor.c, agent_drift.c): a message in a byte buffer, its
 * attributes and nests, and the header of a generic netlink or a link
 * request.  No libnl: a floor does only the unavoidable work. */
#ifndef NT_BENCH_NLRAW_H
#define NT_BENCH_NLRAW_H

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdint.h>
#include <string.h>

static unsigned seq = 1;

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
	h->nlmsg_flags = (uint16_t)(NLM_F_REQUEST | flags);
	h->nlmsg_seq = seq++;
	m->n = NLMSG_HDRLEN;
	if (cmd >= 0) {
		struct genlmsghdr *g = (struct genlmsghdr *)(m->b + NLMSG_HDRLEN);

		g->cmd = (uint8_t)cmd;
		g->version = 1;
		m->n += GENL_HDRLEN;
	}
}

static void start_link(struct msg *m, int type, int flags, int ifindex)
{
	struct ifinfomsg ifi = {0};

	start(m, type, flags, -1);
	ifi.ifi_index = ifindex;
	memcpy(m->b + m->n, &ifi, sizeof(ifi));
	m->n += NLMSG_ALIGN(sizeof(ifi));
}

#endif
