/* SPDX-License-Identifier: MIT */
/* Links and MTU over rtnetlink (libnl-route-3). */
#ifndef NT_LINK_H
#define NT_LINK_H

#include <stdint.h>

/* kind: "veth", "wireguard", ... or NULL for a plain device; malloc'd. */
int nt_link_get(const char *dev, uint32_t *mtu, char **kind);
/* Drops the process's rtnetlink socket (a forked child opens its own). */
void nt_link_close(void);
int nt_link_set_mtu(const char *dev, uint32_t mtu, char *err, size_t errlen);/* IFLA_TXQLEN through RTM_NEWLINK; err gets libnl's words */
int nt_link_set_txqlen(const char *dev, uint32_t qlen, char *err, size_t errlen);

#endif
