/* SPDX-License-Identifier: MIT */
/* Link attributes over rtnetlink (nt_link_attrs): the dump parsed here, the change
 * built by libnl-route-3, both through the bounded transport of nlio.h. */
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <linux/rtnetlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/base/buf.h"
#include "ethnl.h"
#include "link.h"
#include "nlio.h"

static struct nt_nl *sk;	/* one rtnetlink socket per process, opened lazily */

void nt_link_close(void)
{
	nt_nl_close(sk);
	sk = NULL;
}

static struct nt_nl *route_sock(void)
{
	if (!sk)
		nt_nl_open(&sk, NETLINK_ROUTE);
	return sk;
}

/* The link attribute set: the u32 attributes of the RTM_GETLINK dump
 * (rtnl_fill_ifinfo, net/core/rtnetlink.c) that the kinds of kinds.def's
 * NT_LINK_ROW lines read, and the libnl setters that put them in
 * RTM_NEWLINK. */
const struct nt_link_attr nt_link_attrs[] = {
#define NT_KIND(...)
#define NT_LINK_ROW(id, name_, ifla, file, rflags, ether_default, setter) \
	{.attr = ifla, .name = name_, .set = setter},
#include "../../compiler/model/kinds.def"
#undef NT_KIND
#undef NT_LINK_ROW
	{.name = NULL},
};

int nt_link_attr_index(int attr)
{
	int k;

	for (k = 0; nt_link_attrs[k].name; k++)
		if (nt_link_attrs[k].attr == attr)
			return k;
	return -1;
}

struct dump_ctx {
	nt_link_each each;
	void *ctx;
};

/* One RTM_NEWLINK of the dump: IFLA_IFNAME, the attributes of
 * nt_link_attrs and IFLA_LINKINFO/IFLA_INFO_KIND. */
static int on_link(const struct nlmsghdr *h, void *arg)
{
	struct dump_ctx *c = arg;
	struct nlattr *tb[IFLA_MAX + 1] = {0}, *li[IFLA_INFO_MAX + 1] = {0};
	const char *name, *kind = NULL;
	uint32_t v[NT_LINK_ATTRS_MAX] = {0};
	char kbuf[64];
	int k;

	if (h->nlmsg_type != RTM_NEWLINK)
		return 0;
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(struct ifinfomsg)) ||
	    nla_parse(tb, IFLA_MAX,
		      (struct nlattr *)((char *)NLMSG_DATA(h) + NLMSG_ALIGN(sizeof(struct ifinfomsg))),
		      (int)(h->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(struct ifinfomsg)))), NULL) < 0)
		return -EPROTO;
	if (!tb[IFLA_IFNAME] || nla_len(tb[IFLA_IFNAME]) < 2 ||
	    ((const char *)nla_data(tb[IFLA_IFNAME]))[nla_len(tb[IFLA_IFNAME]) - 1])
		return 0;
	name = nla_data(tb[IFLA_IFNAME]);
	for (k = 0; nt_link_attrs[k].name && k < NT_LINK_ATTRS_MAX; k++) {
		const struct nlattr *a = tb[nt_link_attrs[k].attr];

		if (a && nla_len(a) >= 4)
			v[k] = nla_get_u32((struct nlattr *)a);
	}
	if (tb[IFLA_LINKINFO] && !nla_parse_nested(li, IFLA_INFO_MAX, tb[IFLA_LINKINFO], NULL) &&
	    li[IFLA_INFO_KIND] && nla_len(li[IFLA_INFO_KIND]) > 0) {
		int n = nla_len(li[IFLA_INFO_KIND]);

		if (n >= (int)sizeof(kbuf))
			n = (int)sizeof(kbuf) - 1;
		memcpy(kbuf, nla_data(li[IFLA_INFO_KIND]), (size_t)n);
		kbuf[n] = '\0';
		kind = *kbuf ? kbuf : NULL;
	}
	c->each(c->ctx, name, v, kind);
	return 0;
}

int nt_link_dump(nt_link_each each, void *ctx)
{
	struct nt_nl *s = route_sock();
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} req;
	struct dump_ctx c = {each, ctx};

	if (!s)
		return -ENOTCONN;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.i));
	req.h.nlmsg_type = RTM_GETLINK;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.i.ifi_family = AF_UNSPEC;
	/* one try: the device cache asks again (devcache.c) */
	return nt_nl_transact(s, &req.h, on_link, &c, NT_IO_LINK_DUMP);
}

int nt_link_get(const char *dev, nt_link_each each, void *ctx)
{
	struct nt_nl *s = route_sock();
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
		struct nlattr a;
		char name[IFNAMSIZ];
	} req;
	struct dump_ctx c = {each, ctx};
	size_t n = strlen(dev) + 1;

	if (!s)
		return -ENOTCONN;
	if (n > IFNAMSIZ)
		return -ENODEV;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = NLMSG_LENGTH(sizeof(req.i)) + NLA_ALIGN(NLA_HDRLEN + n);
	req.h.nlmsg_type = RTM_GETLINK;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.i.ifi_family = AF_UNSPEC;
	req.a.nla_type = IFLA_IFNAME;
	req.a.nla_len = (unsigned short)(NLA_HDRLEN + n);
	memcpy(req.name, dev, n);
	return nt_nl_transact(s, &req.h, on_link, &c, NT_IO_LINK_GET);
}

bool nt_link_transient(void)
{
	return nt_nl_transient(sk);
}

int nt_link_set(const char *dev, const struct nt_link_change *c, char *err, size_t errlen)
{
	struct nt_nl *s = route_sock();
	struct rtnl_link *orig, *chg;
	struct nl_msg *m = NULL;
	int r, k;

	if (!s)
		return -ENOTCONN;
	/* one RTM_NEWLINK naming the device, with every changed attribute;
	 * no GET first (the device cache has the current values) */
	orig = rtnl_link_alloc();
	chg = rtnl_link_alloc();
	if (!orig || !chg) {
		rtnl_link_put(orig);
		rtnl_link_put(chg);
		return -ENOMEM;
	}
	rtnl_link_set_name(chg, dev);
	for (k = 0; nt_link_attrs[k].name && k < NT_LINK_ATTRS_MAX; k++)
		if (c->have[k])
			nt_link_attrs[k].set(chg, c->v[k]);
	r = rtnl_link_build_change_request(orig, chg, 0, &m);
	rtnl_link_put(chg);
	rtnl_link_put(orig);
	if (r < 0)
		return -ENOMEM;
	r = nt_nl_transact(s, nlmsg_hdr(m), NULL, NULL, NT_IO_LINK_SET);
	if (r == -EOPNOTSUPP && !nt_nl_transient(s)) {
		/* kernels before 2.6.30 change links with RTM_SETLINK only */
		nlmsg_hdr(m)->nlmsg_type = RTM_SETLINK;
		r = nt_nl_transact(s, nlmsg_hdr(m), NULL, NULL, NT_IO_LINK_SET);
	}
	nlmsg_free(m);
	if (r && err)
		nt_nl_reason(s, r, err, errlen);
	return r;
}
