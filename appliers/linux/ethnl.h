/* SPDX-License-Identifier: MIT */
/*
 * ethtool generic netlink (family "ethtool" v1) through libnl-genl-3:
 * features by name, channels, rings, coalescing.  RSS goes through the
 * SIOCETHTOOL ioctl (rss.c): the netlink RSS_GET/RSS_SET messages are
 * missing from Debian 12's 6.1 uapi headers and RSS_SET needs v6.17.
 * Every call returns 0 or -errno; the kernel's extended ack text of the
 * last failure is kept for the error message.
 */
#ifndef NT_ETHNL_H
#define NT_ETHNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct nt_ethnl;

struct nt_feature_state {
	char *name;
	bool hw;		/* changeable (hw_features) */
	bool wanted;
	bool active;
	bool nochange;		/* NETIF_F_NEVER_CHANGE */
};

struct nt_features {
	struct nt_feature_state *v;
	size_t n;
};

/* Indexes match enum nt_chan (combined, rx, tx, other). */
struct nt_channels_state {
	bool have[4];
	uint32_t max[4], count[4];
};

/* rx, tx, rx-mini, rx-jumbo */
struct nt_rings_state {
	bool have[4];
	uint32_t max[4], cur[4];
};

enum nt_coal_field { NT_COAL_RX_USECS, NT_COAL_TX_USECS, NT_COAL_RX_FRAMES, NT_COAL_TX_FRAMES,
		     NT_COAL_ADAPTIVE_RX, NT_COAL_ADAPTIVE_TX, NT_COAL__COUNT };
struct nt_coalesce_state {
	bool have[NT_COAL__COUNT];
	uint32_t v[NT_COAL__COUNT];
};

struct nt_io_stats {
	unsigned long netlink_sets;	/* ethtool/rtnetlink requests that change something */
	unsigned long netlink_gets;
	unsigned long file_writes;	/* /proc and /sys writes */
	unsigned long ioctl_sets;
};
extern struct nt_io_stats nt_io;

int nt_ethnl_open(struct nt_ethnl **out);
void nt_ethnl_close(struct nt_ethnl *e);
/* The kernel's extack message of the last failed request, or NULL. */
const char *nt_ethnl_extack(const struct nt_ethnl *e);

int nt_ethnl_features_get(struct nt_ethnl *e, const char *dev, struct nt_features *out);
void nt_features_free(struct nt_features *f);
const struct nt_feature_state *nt_features_find(const struct nt_features *f, const char *name);
int nt_ethnl_feature_set(struct nt_ethnl *e, const char *dev, const char *name, bool on);
/* Several features of one device in one request (the masked bits only). */
int nt_ethnl_features_set(struct nt_ethnl *e, const char *dev, const char *const *names,
			  const bool *on, size_t n);

int nt_ethnl_channels_get(struct nt_ethnl *e, const char *dev, struct nt_channels_state *out);
int nt_ethnl_channels_set(struct nt_ethnl *e, const char *dev, int kind, uint32_t count);
int nt_ethnl_rings_get(struct nt_ethnl *e, const char *dev, struct nt_rings_state *out);
int nt_ethnl_rings_set(struct nt_ethnl *e, const char *dev, int which, uint32_t value);
int nt_ethnl_coalesce_get(struct nt_ethnl *e, const char *dev, struct nt_coalesce_state *out);
int nt_ethnl_coalesce_set(struct nt_ethnl *e, const char *dev, int field, uint32_t value);

/* autoneg, rx, tx */
struct nt_pause_state {
	bool have[3];
	bool on[3];
};
int nt_ethnl_pause_get(struct nt_ethnl *e, const char *dev, struct nt_pause_state *out);
int nt_ethnl_pause_set(struct nt_ethnl *e, const char *dev, int which, bool on);
/* Private flags by name; the state of each is in .active. */
int nt_ethnl_privflags_get(struct nt_ethnl *e, const char *dev, struct nt_features *out);
int nt_ethnl_privflag_set(struct nt_ethnl *e, const char *dev, const char *name, bool on);

#endif
