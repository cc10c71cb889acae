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

/* Maps one ETH_SS_STATS name to (queue, field): i40e "rx-3.packets", ice,
 * ixgbe, virtio "rx_queue_3_packets", mlx5 and newer virtio "rx3_packets",
 * bnxt "[3]: rx_ucast_packets" (ucast, mcast and bcast add up), veth
 * "rx_queue_3_xdp_packets".  Returns false for anything else. */
bool nt_watch_stat_name(const char *name, uint32_t *queue, enum nt_qfield *field);

/* Reads one sample under nt_sys_root for the interfaces (facts give the
 * CPU count and queue -> IRQ map).  0 or -errno (no /proc/interrupts). */
int nt_watch_sample(const struct nt_facts *f, const char *const *ifaces, size_t nifaces,
		    struct nt_watch_sample *s);
void nt_watch_sample_free(struct nt_watch_sample *s);

#endif
