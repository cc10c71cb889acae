/* SPDX-License-Identifier: MIT */
/* Links and MTU over rtnetlink (the transport of nlio.h; the change
 * message built by libnl-route-3). */
#ifndef NT_LINK_H
#define NT_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Drops the process's rtnetlink socket (a forked child opens its own). */
void nt_link_close(void);
int nt_link_set_mtu(const char *dev, uint32_t mtu, char *err, size_t errlen);

/* One RTM_GETLINK dump: each(ctx, name, mtu, txqlen, kind or NULL). */
typedef void (*nt_link_each)(void *ctx, const char *dev, uint32_t mtu, uint32_t txqlen,
			     const char *kind);
int nt_link_dump(nt_link_each each, void *ctx);
/* Whether the last failure was the transport's (nlio.h), and its words. */
bool nt_link_transient(void);
const char *nt_link_reason(int err, char *buf, size_t len);

/* The link attributes one RTM_NEWLINK changes together. */
struct nt_link_change {
	bool set_mtu;
	uint32_t mtu;
	bool set_txqlen;	/* IFLA_TXQLEN */
	uint32_t txqlen;
};
int nt_link_set(const char *dev, const struct nt_link_change *c, char *err, size_t errlen);
/* IFLA_TXQLEN through RTM_NEWLINK; err gets the reason (nt_nl_reason) */
int nt_link_set_txqlen(const char *dev, uint32_t qlen, char *err, size_t errlen);
#endif
