/* SPDX-License-Identifier: MIT */
/* Link MTU read and change through libnl-route-3. */
#include <errno.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/buf.h"
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
	nt_io.netlink_gets++;
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

int nt_link_set_mtu(const char *dev, uint32_t mtu, char *err, size_t errlen)
{
	struct nl_sock *sk = route_sock();
	struct rtnl_link *cur = NULL, *chg;
	int r;

	if (!sk)
		return -ENOTCONN;
	r = rtnl_link_get_kernel(sk, 0, dev, &cur);
	if (r < 0)
		return -ENODEV;
	chg = rtnl_link_alloc();
	rtnl_link_set_mtu(chg, mtu);
	nt_io.netlink_sets++;
	r = rtnl_link_change(sk, cur, chg, 0);
	if (r < 0 && err)
		snprintf(err, errlen, "%s", nl_geterror(r));
	rtnl_link_put(chg);
	rtnl_link_put(cur);
	return r < 0 ? (r == -NLE_INVAL || r == -NLE_RANGE ? -EINVAL : -EIO) : 0;
}

int nt_link_set_txqlen(const char *dev, uint32_t qlen, char *err, size_t errlen)
{
	struct nl_sock *sk = route_sock();
	struct rtnl_link *cur = NULL, *chg;
	int r;

	if (!sk)
		return -ENOTCONN;
	r = rtnl_link_get_kernel(sk, 0, dev, &cur);
	if (r < 0)
		return -ENODEV;
	chg = rtnl_link_alloc();
	rtnl_link_set_txqlen(chg, qlen);
	nt_io.netlink_sets++;
	r = rtnl_link_change(sk, cur, chg, 0);
	if (r < 0 && err)
		snprintf(err, errlen, "%s", nl_geterror(r));
	rtnl_link_put(chg);
	rtnl_link_put(cur);
	return r < 0 ? (r == -NLE_INVAL || r == -NLE_RANGE ? -EINVAL : -EIO) : 0;
}
