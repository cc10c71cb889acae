/* SPDX-License-Identifier: MIT */
/* Link MTU read and change through libnl-route-3. */
#include <errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/base/buf.h"
#include "ethnl.h"
#include "link.h"

static struct nl_sock *sk;	/* one rtnetlink socket per process, opened lazily */

void nt_link_close(void)
{
	if (sk)
		nl_socket_free(sk);
	sk = NULL;
}

static struct nl_sock *route_sock(void)
{
	if (sk)
		return sk;
	sk = nl_socket_alloc();
	if (!sk)
		return NULL;
	if (nl_connect(sk, NETLINK_ROUTE) < 0) {
		nl_socket_free(sk);
		sk = NULL;
	}
	return sk;
}

int nt_link_get(const char *dev, uint32_t *mtu, char **kind)
{
	struct nl_sock *sk = route_sock();
	struct rtnl_link *l = NULL;
	int r;

	if (!sk)
		return -ENOTCONN;
	nt_io_count(NT_IO_LINK_GET);
	r = rtnl_link_get_kernel(sk, 0, dev, &l);
	if (r < 0)
		return r == -NLE_OBJ_NOTFOUND || r == -NLE_NODEV ? -ENODEV : -EIO;
	*mtu = rtnl_link_get_mtu(l);
	if (kind) {
		const char *t = rtnl_link_get_type(l);

		*kind = t ? nt_xstrdup(t) : NULL;
	}
	rtnl_link_put(l);
	return 0;
}

int nt_link_dump(nt_link_each each, void *ctx)
{
	struct nl_sock *sk = route_sock();
	struct nl_cache *c = NULL;
	struct nl_object *o;
	int r;

	if (!sk)
		return -ENOTCONN;
	nt_io_count(NT_IO_LINK_DUMP);
	r = rtnl_link_alloc_cache(sk, AF_UNSPEC, &c);
	if (r < 0)
		return -EIO;
	for (o = nl_cache_get_first(c); o; o = nl_cache_get_next(o)) {
		struct rtnl_link *l = (struct rtnl_link *)o;
		const char *name = rtnl_link_get_name(l);

		if (name)
			each(ctx, name, rtnl_link_get_mtu(l), rtnl_link_get_txqlen(l),
			     rtnl_link_get_type(l));
	}
	nl_cache_free(c);
	return 0;
}

int nt_link_set(const char *dev, const struct nt_link_change *c, char *err, size_t errlen)
{
	struct nl_sock *sk = route_sock();
	struct rtnl_link *orig, *chg;
	int r;

	if (!sk)
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
	if (c->set_mtu)
		rtnl_link_set_mtu(chg, c->mtu);
	if (c->set_txqlen)
		rtnl_link_set_txqlen(chg, c->txqlen);
	nt_io_count(NT_IO_LINK_SET);
	r = rtnl_link_change(sk, orig, chg, 0);
	if (r < 0 && err)
		snprintf(err, errlen, "%s", nl_geterror(r));
	rtnl_link_put(chg);
	rtnl_link_put(orig);
	if (r == -NLE_OBJ_NOTFOUND || r == -NLE_NODEV)
		return -ENODEV;
	return r < 0 ? (r == -NLE_INVAL || r == -NLE_RANGE ? -EINVAL : -EIO) : 0;
}

int nt_link_set_mtu(const char *dev, uint32_t mtu, char *err, size_t errlen)
{
	struct nt_link_change c = {.set_mtu = true, .mtu = mtu};

	return nt_link_set(dev, &c, err, errlen);
}

int nt_link_set_txqlen(const char *dev, uint32_t qlen, char *err, size_t errlen)
{
	struct nt_link_change c = {.set_txqlen = true, .txqlen = qlen};

	return nt_link_set(dev, &c, err, errlen);
}
