/* SPDX-License-Identifier: MIT */
/* Links and MTU over rtnetlink (libnl-route-3). */
#ifndef NT_LINK_H
#define NT_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* kind: "veth", "wireguard", ... or NULL for a plain device; malloc'd. */
int nt_link_get(const char *dev, uint32_t *mtu, char **kind);
/* Drops the process's rtnetlink socket (a forked child opens its own). */
void nt_link_close(void);
int nt_link_set_mtu(const char *dev, uint32_t mtu, char *err, size_t errlen);

/* One RTM_GETLINK dump: each(ctx, name, mtu, txqlen, kind or NULL). */
typedef void (*nt_link_each)(void *ctx, const char *dev, uint32_t mtu, uint32_t txqlen,
			     const char *kind);
int nt_link_dump(nt_link_each each, void *ctx);

/* The link attributes one RTM_NEWLINK changes together. */
struct nt_link_change {
	bool set_mtu;
	uint32_t mtu;
	bool set_txqlen;	/* IFLA_TXQLEN */
	uint32_t txqlen;
};
int nt_link_set(const char *dev, const struct nt_link_change *c, char *err, size_t errlen);
/* IFLA_TXQLEN through RTM_NEWLINK; err gets libnl's words */
int nt_link_set_txqlen(const char *dev, uint32_t qlen, char *err, size_t errlen);
#endif
