/* SPDX-License-Identifier: MIT */
/* The name rules every reader of untrusted names applies: profiles,
 * snapshots, plan manifests, journals and the appliers (names.c). */
#ifndef NT_NAMES_H
#define NT_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"

/* Interface-name rules shared with the emitters and appliers. NULL if fine, else why not. */
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
/* A sysctl key: '.'- or '/'-separated components of [A-Za-z0-9_-]. */
const char *nt_sysctl_key_problem(const char *key);
/* "process WHO": a systemd unit or comm (one path component) or an
 * absolute pidfile path without '.' or '..' components. */
const char *nt_process_problem(const char *who);
/* Parses "per-host" (returns 0, *per_host = true) or hex bytes "6d:5a:.."
 * into key (up to max bytes); returns the byte count or -1. */
int nt_parse_rss_key(const char *s, unsigned char *key, size_t max, bool *per_host);
#endif
