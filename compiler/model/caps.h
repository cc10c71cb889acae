/* SPDX-License-Identifier: MIT */
/* NIC capability tables (schema/nics/NAME.yaml): what a model can do, each
 * known number with the source it was read from; unknown stays unknown. */
#ifndef NT_CAPS_H
#define NT_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/diag.h"
#include "../base/embedded.h"

struct nt_num {
	bool known;
	uint32_t v;
};

enum nt_cap_state {
	NT_CAP_UNKNOWN, NT_CAP_CHANGEABLE, NT_CAP_FIXED_ON, NT_CAP_FIXED_OFF, NT_CAP_ABSENT,
};
enum nt_win_state { NT_WIN_UNKNOWN, NT_WIN_SUPPORTED, NT_WIN_UNSUPPORTED };
enum nt_tri { NT_TRI_UNKNOWN = -1, NT_TRI_NO = 0, NT_TRI_YES = 1 };

/* rings.power_of_two: what set_ringparam does with a size that is not a
 * power of two. */
enum nt_ring_pow2 {
	NT_POW2_NONE,		/* absent: no power-of-two rule known */
	NT_POW2_DOWN,		/* rounds it down silently (ena: rounddown_pow_of_two) */
	NT_POW2_UP,		/* rounds it up silently (mlx5: order_base_2) */
	NT_POW2_REFUSED,	/* refuses it (gve: is_power_of_2) */
};

enum nt_chan { NT_CH_COMBINED, NT_CH_RX, NT_CH_TX, NT_CH_OTHER, NT_CH__COUNT };

/* Portable offload names, the keys of a table's linux.offloads. */
enum nt_off {
	NT_OFF_CHECKSUM, NT_OFF_SG, NT_OFF_TSO, NT_OFF_GSO, NT_OFF_GRO, NT_OFF_GRO_HW,
	NT_OFF_LRO, NT_OFF_USO, NT_OFF_RXHASH, NT_OFF_NTUPLE, NT_OFF_RXVLAN,
	NT_OFF_TXVLAN, NT_OFF__COUNT,
};
extern const char *const nt_off_names[NT_OFF__COUNT];
extern const char *const nt_chan_names[NT_CH__COUNT];

/* Profile coalesce keys, the names of a table's linux.coalesce.params. */
enum nt_coal {
	NT_CO_RX_USECS, NT_CO_TX_USECS, NT_CO_RX_FRAMES, NT_CO_TX_FRAMES,
	NT_CO_ADAPTIVE_RX, NT_CO_ADAPTIVE_TX, NT_CO__COUNT,
};
extern const char *const nt_coal_names[NT_CO__COUNT];

struct nt_caps {
	char *id;
	char *name;
	char *file;
	char **pci_ids;
	struct nt_mark *pci_at;		/* where each PCI id is written */
	size_t npci;
	char *driver;
	bool chan_kind[NT_CH__COUNT];
	struct nt_num chan_max[NT_CH__COUNT];
	enum nt_tri chan_settable;	/* false: get_channels only (vmxnet3) */
	struct nt_num ring_rx_max, ring_tx_max, ring_step;
	struct nt_num ring_rx_min, ring_tx_min;	/* set_ringparam refuses less */
	enum nt_ring_pow2 ring_pow2;	/* rings.power_of_two: how the driver treats other sizes */
	char *ring_max_since;		/* kernel version the ring maxima hold from */
	struct nt_num ring_max_before;	/* the ring maximum of older kernels */
	char **ring_backports;		/* "X.Y.Z": older series that got the maxima */
	size_t nbackports;
	struct nt_num xor_max_channels;	/* the xor hash refuses more channels */
	struct nt_num ring_rx_max_no_agg;	/* rx maximum without aggregation rings (bnxt) */
	struct nt_num no_agg_mtu_max;	/* largest MTU that needs no aggregation ring */
	bool coal_params_known;		/* linux.coalesce.params is a list */
	unsigned coal_params;		/* bit per enum nt_coal the driver accepts */
	struct nt_num coal_usecs_max;	/* rx/tx-usecs above it are refused */
	struct nt_num coal_usecs_min;	/* below it only the usecs_modes values */
	unsigned coal_usecs_modes;	/* bit per value below usecs_min taken as a mode */
	struct nt_num coal_frames_max;	/* rx/tx-frames above it are refused */
	enum nt_tri coal_usecs_with_adaptive;	/* false: usecs refused while adaptive is on */
	enum nt_tri rings_settable;
	struct nt_num rss_key_bytes, rss_indir_size;
	bool hash_known;
	unsigned hash_mask;		/* bit per enum nt_hash */
	enum nt_tri key_settable;
	enum nt_cap_state off[NT_OFF__COUNT];
	enum nt_win_state win_uso, win_rsc, win_hw_uro, win_rss;
	char **rss_profiles;		/* NULL when unknown */
	size_t nrss_profiles;
	char *src_pci, *src_channels, *src_rings, *src_rss, *src_offloads, *src_windows;
	char *src_coalesce;
	char *notes;
	char *origin;			/* "built-in" or the --caps-dir it was read from */
	size_t lazy;			/* 1 + its nt_caps_builtin index while only id,
					 * driver and PCI ids are read; 0 once parsed */
};

extern const struct nt_caps_text nt_caps_builtin[];
extern const size_t nt_caps_nbuiltin;
/* id, driver and PCI ids of each built-in table (in nt_caps_builtin order),
 * read at build time; nt_caps_nbuiltin_index is 0 when a table did not fit
 * the layout the build reads (then every table is parsed at start-up). */
struct nt_caps_index {
	const char *id, *driver;
	const char *const *pci;
	size_t npci;
};
extern const struct nt_caps_index nt_caps_builtin_index[];
extern const size_t nt_caps_nbuiltin_index;

struct nt_capsdb {
	struct nt_caps *v;
	size_t n;
	char *dir;
};

/* Loads every *.yaml of dir; with dir NULL, the built-in tables, then those
 * of the local directory (nt_caps_set_dir, else $NETTUNE_CAPS_DIR), which add
 * tables or replace a built-in one of the same id.  Format errors are
 * located diagnostics.  Returns 0 or -1. */
int nt_capsdb_load(struct nt_capsdb *db, const char *dir, struct nt_diags *d);
/* Only the tables compiled into the binary (what `nettune schema` lists). */
int nt_capsdb_load_builtin(struct nt_capsdb *db, struct nt_diags *d);
/* The local directory of --caps-dir (NULL: none). */
void nt_caps_set_dir(const char *dir);
const struct nt_caps *nt_caps_find(const struct nt_capsdb *db, const char *id);
/* How nt_caps_match found a table (or why it did not). */
enum nt_caps_how {
	NT_CAPS_NONE,		/* no table has this PCI id or driver */
	NT_CAPS_BY_PCI,		/* the PCI vendor:device is listed in the table */
	NT_CAPS_BY_DRIVER,	/* a driver without PCI ids (virtual device) */
	NT_CAPS_FAMILY,		/* the driver has tables, but not for this device */
};

/* The table for a device: by PCI vendor:device first, then by driver only
 * when the driver's table lists no PCI ids (veth, virtio and the like).  A
 * driver-only match on a physical family never borrows a sibling's limits:
 * it returns NULL with NT_CAPS_FAMILY, and the caller warns that the limits
 * are unknown.  how may be NULL. */
const struct nt_caps *nt_caps_match(const struct nt_capsdb *db, const char *driver,
				    const char *pci, enum nt_caps_how *how);
/* Comma-separated ids of the tables for driver (caller frees; "" if none). */
char *nt_caps_driver_ids(const struct nt_capsdb *db, const char *driver);
/* The table id closest to a misspelt one (an id ending in "-NAME" or
 * containing it, else the nearest by edit distance), or NULL. */
const char *nt_caps_suggest(const struct nt_capsdb *db, const char *name);
struct nt_iface;
/* The rx ring maximum that holds for interface f on table c: rings.rx_max,
 * or rings.rx_max_no_agg when f turns off everything that makes the driver
 * use aggregation rings (offloads.gro_hw and .lro off, an MTU of at most
 * rings.no_agg_mtu_max).  why (n bytes) gets the first unmet condition, ""
 * when all are met; *mtu_unset says whether f leaves the MTU to the host. */
struct nt_num nt_caps_rx_max(const struct nt_caps *c, const struct nt_iface *f, char *why,
			     size_t n, bool *mtu_unset);
/* A coalesce setting of f the table's driver refuses. */
struct nt_caps_issue {
	const char *key;		/* profile key under coalesce/ */
	char msg[2048];
};
/* The coalesce keys of f that table c refuses (an unsupported parameter, a
 * value out of range, usecs with adaptive on); at most max, returns how many. */
size_t nt_caps_coalesce_issues(const struct nt_caps *c, const struct nt_iface *f,
			       struct nt_caps_issue *out, size_t max);
/* Whether c's ring maxima do not hold on kernel (as in uname -r): it is
 * older than rings.max_since and is not at or past one of the
 * rings.max_backports releases of its own X.Y series.  False when the table
 * has no such rule or the kernel cannot be parsed. */
bool nt_caps_ring_before(const struct nt_caps *c, const char *kernel);
/* The powers of two around v (v >= 1): the largest at most v, the smallest at
 * least v (0 when it does not fit in 32 bits). */
uint32_t nt_pow2_down(uint32_t v);
uint32_t nt_pow2_up(uint32_t v);
/* Whether the table lists this PCI vendor:device. */
bool nt_caps_has_pci(const struct nt_caps *c, const char *pci);
void nt_capsdb_free(struct nt_capsdb *db);
/* The shared database, loaded once on first use (NULL if it cannot be).
 * Without a local directory it holds the build-time index of the built-in
 * tables and parses a table when nt_caps_find or nt_caps_match returns it
 * (a run parses only the tables of its devices and nic: keys); other
 * fields of db->v[i] than id, driver, pci_ids and origin need
 * nt_capsdb_parse_all first. */
const struct nt_capsdb *nt_capsdb_default(struct nt_diags *d);
/* Parses every table of db not parsed yet (nettune caps lists them all);
 * their format errors go to d.  Returns 0 or -1. */
int nt_capsdb_parse_all(const struct nt_capsdb *db, struct nt_diags *d);
void nt_capsdb_default_free(void);

#endif
