/* SPDX-License-Identifier: MIT */
/*
 * ethtool generic netlink (family "ethtool" v1), messages built and parsed
 * with libnl-genl-3, sent through the bounded transport of nlio.h:
 * features by name (also as one dump of every device) and private flags
 * (fam_privflags.c);
 * the families of fixed attributes (channels, rings, coalescing, pause)
 * are descriptors (family.h, fam_*.c) read by one GET, dump and SET.  RSS goes through the
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
	bool hw;		/* changeable (hw_features) */
	bool wanted;
	bool active;
	bool nochange;		/* NETIF_F_NEVER_CHANGE */
};

/* The kernel's feature names (string set ETH_SS_FEATURES, read once per
 * socket), hashed by name. */
struct nt_feature_names;

/* One device's features as four compact bitsets over the names. */
struct nt_features {
	const struct nt_feature_names *names;
	uint32_t *bits;		/* 4 x words: hw, wanted, active, nochange */
	size_t words;
};

/* Requests by message: NETTUNE_STATS=1 prints them on stderr at exit
 * (tests count them; bench/ compares them with the floor). */
enum nt_io_req {
	NT_IO_GENL_RESOLVE, NT_IO_STRSET_GET,
	NT_IO_FEATURES_GET, NT_IO_FEATURES_DUMP, NT_IO_FEATURES_SET,
	NT_IO_CHANNELS_GET, NT_IO_CHANNELS_DUMP, NT_IO_CHANNELS_SET,
	NT_IO_RINGS_GET, NT_IO_RINGS_DUMP, NT_IO_RINGS_SET,
	NT_IO_COALESCE_GET, NT_IO_COALESCE_DUMP, NT_IO_COALESCE_SET,
	NT_IO_LINK_GET, NT_IO_LINK_DUMP, NT_IO_LINK_SET,
	NT_IO_RSS_GET, NT_IO_RSS_SET,
	NT_IO__COUNT
};
/* The GET and SET of an ethtool family read per device that has no entry
 * above (pause, private flags): counted as "FAMILY-get" and "FAMILY-set"
 * after them, in the order first used.  false set: the GET. */
#define NT_IO_NAMED_MAX 8
enum nt_io_req nt_io_named(const char *family, bool set);

struct nt_io_stats {
	unsigned long netlink_sets;	/* ethtool/rtnetlink requests that change something */
	unsigned long netlink_gets;	/* GETs and dumps */
	unsigned long file_writes;	/* /proc and /sys writes */
	unsigned long ioctl_sets;
	unsigned long file_reads;	/* /proc and /sys files read */
	unsigned long dir_lists;	/* /proc and /sys directories listed */
	unsigned long req[NT_IO__COUNT + 2 * NT_IO_NAMED_MAX];
};
extern struct nt_io_stats nt_io;
/* Counts one request (sets also count in netlink_sets or ioctl_sets). */
void nt_io_count(enum nt_io_req r);
/* Whether r changes something (a SET, or the RSS ioctl set). */
bool nt_io_is_set(enum nt_io_req r);

/* How many times a read (GET, dump) is asked after a transport failure. */
#define NT_ETHNL_READ_TRIES 3

int nt_ethnl_open(struct nt_ethnl **out);
void nt_ethnl_close(struct nt_ethnl *e);
/* The words for the failure err of the last request (nlio.h). */
const char *nt_ethnl_reason(const struct nt_ethnl *e, int err, char *buf, size_t len);
/* Whether the last failure was the transport's (a write's outcome is then
 * unknown). */
bool nt_ethnl_transient(const struct nt_ethnl *e);

void nt_features_free(struct nt_features *f);
/* Number of named features, the name of bit k (NULL: unnamed). */
size_t nt_features_count(const struct nt_features *f);
const char *nt_features_name(const struct nt_features *f, size_t k);
/* false when the device has no feature of that name */
bool nt_features_find(const struct nt_features *f, const char *name, struct nt_feature_state *out);
/* The same for the k-th name (nt_features_name), without the lookup. */
bool nt_features_at(const struct nt_features *f, size_t k, struct nt_feature_state *out);
int nt_ethnl_feature_set(struct nt_ethnl *e, const char *dev, const char *name, bool on);
/* Several features of one device in one request (the masked bits only). */
int nt_ethnl_features_set(struct nt_ethnl *e, const char *dev, const char *const *names,
			  const bool *on, size_t n);

/*
 * One NLM_F_DUMP request for every device of the namespace: each(ctx, dev,
 * state) is called once per device the kernel reports (a device without
 * the operation, veth without rings, is left out).  state points to a
 * struct nt_features (each takes its bits: it may move them out), or the
 * struct nt_ethnl_vals of a family (family.h: nt_ethnl_vals_dump).
 */
typedef void (*nt_ethnl_each)(void *ctx, const char *dev, void *state);
int nt_ethnl_features_dump(struct nt_ethnl *e, nt_ethnl_each each, void *ctx);
/* One device's features (a GET); *out freed with nt_features_free. */
int nt_ethnl_features_get(struct nt_ethnl *e, const char *dev, struct nt_features *out);


#endif
