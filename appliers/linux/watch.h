/* SPDX-License-Identifier: MIT */
/*
 * nettune watch, Linux side: sample where traffic really lands (/proc/interrupts,
 * /proc/softirqs, /proc/net/softnet_stat, per-queue ethtool statistics,
 * /sys/class/net/X/statistics) into the
 * samples report/watch.h judges.
 *
 * Under --root every file comes from the fixture tree; per-queue counters
 * come from ROOT/ethtool-S/IFACE in `ethtool -S` text form, so a capture
 * from a real host is `ethtool -S IFACE > ethtool-S/IFACE`.
 */
#ifndef NT_LINUX_WATCH_H
#define NT_LINUX_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../../compiler/model/facts.h"
#include "../../report/watch.h"

/* Reads one sample under nt_sys_root for the interfaces (facts give the
 * CPU count and queue -> IRQ map).  0 or -errno (no /proc/interrupts). */
int nt_watch_sample(const struct nt_facts *f, const char *const *ifaces, size_t nifaces,
		    struct nt_watch_sample *s);
void nt_watch_sample_free(struct nt_watch_sample *s);

#endif
