/* SPDX-License-Identifier: MIT */
/*
 * The Linux offload feature groups (offloads.c), one per row of
 * language/offloads.def: a portable profile key (offloads: tso) and the
 * ethtool features it stands for.  Lowering sets them, host profiles and
 * the sh emitter name them, observation reads only the groups a profile
 * can touch.
 */
#ifndef NT_OFFLOADS_H
#define NT_OFFLOADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/buf.h"

/* Portable name -> ethtool netlink feature names (ethtool(8) off_flag_def
 * patterns: "tx" = tx-checksum-*, "tso" = tx-tcp*-segmentation).  The rows
 * of offloads.def: a Linux feature group (names[0] NULL: none) and the
 * groups the profile key lowers to (NULL: its own). */
struct nt_fgroup {
	const char *portable;
	const char *lowers_to;
	const char *names[6];
};
/* In the order of offloads.def (and of the members of struct nt_offloads). */
extern const struct nt_fgroup nt_fgroups[];

/* Device features of a group: ethtool(8) matches its legacy names by
 * pattern ("tx" = tx-checksum-*, "tso" = tx-tcp*-segmentation), so new
 * kernel bits such as tx-tcp-accecn-segmentation belong to the group.
 * How a group's features are named: a prefix, a pattern, or a list. */
enum nt_gmatch { NT_GM_LIST, NT_GM_TX_CSUM, NT_GM_TSO };
enum nt_gmatch nt_fgroup_match(const struct nt_fgroup *g);
/* Whether feature is in group g (matched as m = nt_fgroup_match(g): lowering
 * runs this for every feature of every device). */
bool nt_fgroup_has_as(const struct nt_fgroup *g, enum nt_gmatch m, const char *feature);
/* The group of a portable name that has Linux features, or NULL. */
const struct nt_fgroup *nt_fgroup_named(const char *portable);
/* The groups a profile key lowers to, one at a time: "tso", then NULL
 * (*p: NULL at the start; buf holds the name returned). */
const char *nt_fgroup_next(const struct nt_fgroup *g, const char **p, char *buf, size_t n);

/* The portable offload (profile key under offloads:, e.g. "tso",
 * "rx_checksum") whose lowering sets this ethtool feature, or NULL. */
const char *nt_linux_offload_of(const char *feature);
/* The k-th portable offload of the feature group table, NULL past the end. */
const char *nt_linux_offload(size_t k);
/* The ethtool features of the k-th offload group as sh case patterns,
 * " | " between ("tx-checksum-*", "tx-tcp*-segmentation", "rx-gro"): what
 * lowering takes from the device's feature list, for a script that expands
 * the group on the host at run time (emit --format sh). */
void nt_linux_offload_patterns(size_t k, struct nt_buf *out);
/* The feature groups lowering interface f can set or read (a mask), and
 * whether a feature is in one of them: observation for plan and apply
 * observes only those features (and f's linux: features). */
struct nt_iface;
uint64_t nt_linux_feature_groups(const struct nt_iface *f);
bool nt_linux_feature_in_groups(uint64_t mask, const char *feature);

#endif
