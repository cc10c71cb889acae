/* SPDX-License-Identifier: MIT */
/* Links over rtnetlink (the transport of nlio.h; the change message built
 * by libnl-route-3): the link attribute set, one dump, one change. */
#ifndef NT_LINK_H
#define NT_LINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rtnl_link;

/* Most attributes of the set. */
#define NT_LINK_ATTRS_MAX 4

/* One u32 attribute of the link attribute set. */
struct nt_link_attr {
	int attr;		/* IFLA_MTU */
	const char *name;	/* ip-link(8)'s word for it */
	void (*set)(struct rtnl_link *l, unsigned v);	/* libnl's setter */
};
/* The set (kinds.def's NT_LINK_ROW lines), ending with {.name = NULL};
 * values go by index in it. */
extern const struct nt_link_attr nt_link_attrs[];
/* The index of an IFLA_ attribute in nt_link_attrs, or -1. */
int nt_link_attr_index(int attr);

/* Drops the process's rtnetlink socket (a forked child opens its own). */
void nt_link_close(void);

/* One RTM_GETLINK dump: each(ctx, name, values by nt_link_attrs index,
 * kind or NULL). */
typedef void (*nt_link_each)(void *ctx, const char *dev, const uint32_t *v, const char *kind);
int nt_link_dump(nt_link_each each, void *ctx);
/* The same for one device by name (RTM_GETLINK with IFLA_IFNAME):
 * -ENODEV when there is none. */
int nt_link_get(const char *dev, nt_link_each each, void *ctx);
/* Whether the last failure was the transport's (nlio.h). */
bool nt_link_transient(void);

/* The link attributes one RTM_NEWLINK changes together (have[k]: set
 * nt_link_attrs[k] to v[k]). */
struct nt_link_change {
	bool have[NT_LINK_ATTRS_MAX];
	uint32_t v[NT_LINK_ATTRS_MAX];
};
int nt_link_set(const char *dev, const struct nt_link_change *c, char *err, size_t errlen);
#endif
