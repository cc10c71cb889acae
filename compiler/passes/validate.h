/* SPDX-License-Identifier: MIT */
/* Semantic validation of a loaded profile against the NIC capability
 * tables; every finding is located through the merged tree. */
#ifndef NT_VALIDATE_H
#define NT_VALIDATE_H

#include "../model/caps.h"
#include "../base/diag.h"
#include "../language/load.h"
#include "../model/settings.h"

/* Returns the number of errors added. db may be NULL (tables unavailable). */
size_t nt_validate(const struct nt_loaded *l, const struct nt_capsdb *db, struct nt_diags *d);

/* At plan time, a table picked from the observed device (no nic:, or
 * nic: auto) gets the table checks validate gives a declared one (ring
 * minimums, read-only channels and rings, RSS hash, key and xor limit) for
 * interface i; the caller blanks the limits it checks itself against the
 * observed maxima; with offloads, also the offload states (when the host's
 * features were not observed).  Returns the number of errors added. */
size_t nt_validate_chosen_caps(const struct nt_loaded *l, struct nt_diags *d, size_t i,
			       const struct nt_caps *c, bool offloads);
/* Interface-name rules shared with the emitters. NULL if fine, else why not. */
const char *nt_linux_ifname_problem(const char *name);
const char *nt_windows_name_problem(const char *name);
/* One path component taken from input (an interface, a unit, a comm):
 * not empty, '.', '..', no '/', at most NT_NAME_MAX bytes, no control
 * characters.  NULL if fine, else why not. */
const char *nt_path_component_problem(const char *name);
/*
 * The one rule for the (object, argument) of a setting of kind k, used by
 * profiles (after lowering), snapshots, plan manifests and journals: a
 * Linux interface follows nt_linux_ifname_problem, a Windows adapter
 * nt_windows_name_problem; the pseudo-objects "sysctl", "irqbalance",
 * "global" and "process WHO" belong to their kinds only (an interface may
 * be named "sysctl": the kind tells them apart); queue arguments are
 * 0..65535, sysctl keys '.'/'/'-separated words.  NULL if fine, else why
 * not, and *what says which part ("object" or "argument").
 */
const char *nt_setting_problem(enum nt_kind_id k, const char *object, const char *arg,
			       const char **what);
/* Parses "per-host" (returns 0, *per_host = true) or hex bytes "6d:5a:.."
 * into key (up to max bytes); returns the byte count or -1. */
int nt_parse_rss_key(const char *s, unsigned char *key, size_t max, bool *per_host);
#endif
