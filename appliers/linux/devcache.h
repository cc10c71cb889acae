/* SPDX-License-Identifier: MIT */
/*
 * The device cache: what the kernel reports for every device of the
 * namespace, one NLM_F_DUMP per message family (RTM_GETLINK, ethtool
 * FEATURES_GET with compact bitsets, and each family of family.h
 * devcache.c lists), filled on
 * first use.  A write marks its family stale: the next read dumps that
 * family again, so the read-back of a whole apply and its final
 * convergence check cost one request per family, not one per device.
 * RSS (an ioctl per device) is cached per device, and a link kind whose
 * devices refuse it (veth) is learned once.  One cache per process
 * (nt_devcache_reset drops it, with its sockets, e.g. in a forked child).
 */
#ifndef NT_DEVCACHE_H
#define NT_DEVCACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "ethnl.h"
#include "link.h"
#include "rss.h"

enum nt_dc_family {
	NT_DC_LINK,
	NT_DC_FEATURES,
	NT_DC_CHANNELS,
	NT_DC_RINGS,
	NT_DC_COALESCE,
	NT_DC__COUNT
};

struct nt_dc_link {
	uint32_t v[NT_LINK_ATTRS_MAX];	/* by nt_link_attrs index (link.h) */
	const char *kind;	/* IFLA_INFO_KIND ("veth"), NULL for a plain device */
};

/* The process's ethtool netlink socket (opened once), NULL when the
 * kernel has no ethtool netlink. */
struct nt_ethnl *nt_devcache_ethnl(void);
/* Whether the last read failed in the netlink transport (nlio.h: a
 * receive overrun, a timeout, ...) rather than with the kernel's answer:
 * such a failure is never cached, the next read dumps again. */
bool nt_devcache_transient(void);
/* How many message families could not be read since they were last
 * marked stale (a dump that failed otherwise than "not supported", or an
 * ethtool socket that did not open); buf says what the first one was. */
int nt_devcache_failure(char *buf, size_t len);
/* Drops every cached reply and closes the sockets. */
void nt_devcache_reset(void);
/* Devices read alone, a GET each, rather than one dump per family of
 * every device (the agent corrects one interface of many); n == 0: none.
 * A narrowed device's reply is kept until its family goes stale, like a
 * dump's. */
void nt_devcache_narrow(const char *const *devs, size_t n);
/* After a write of that family: the next read dumps it again. */
void nt_devcache_stale(enum nt_dc_family f);
void nt_devcache_stale_all(void);

/* 0, or -ENODEV when the device is not in the dump (or the dump failed:
 * -errno of the dump). */
int nt_devcache_link(const char *dev, struct nt_dc_link *out);
/* -EOPNOTSUPP: the device is not in the family's dump (it has no such
 * operation: veth has no rings), or there is no ethtool netlink. */
int nt_devcache_features(const char *dev, const struct nt_features **out);
struct nt_ethnl_family;
struct nt_ethnl_vals;
/* A dumped family of family.h (channels, rings, coalesce); -EOPNOTSUPP
 * also for a family the cache does not dump. */
int nt_devcache_vals(const struct nt_ethnl_family *f, const char *dev, struct nt_ethnl_vals *out);
/* After a write of f: its dump is stale; a family the cache does not dump
 * (pause: the link renegotiates) makes every reply stale. */
void nt_devcache_vals_stale(const struct nt_ethnl_family *f);
/* SIOCETHTOOL ETHTOOL_GRSSH once per device (and not at all for a link
 * kind whose first device refused it); *out stays owned by the cache. */
int nt_devcache_rss(const char *dev, const struct nt_rss_state **out);
void nt_devcache_rss_stale(const char *dev);

#endif
