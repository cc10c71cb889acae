/* SPDX-License-Identifier: MIT */
/*
 * Host facts: what lowering needs to know about a host besides the values
 * it will change (CPU topology, NUMA, NIC identity, queue -> IRQ map,
 * maxima, fixed features, Windows adapter facts).  Filled by the Linux
 * observer or read from a snapshot (snapshot.c); the same struct either way.
 */
#ifndef NT_FACTS_H
#define NT_FACTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "caps.h"
#include "cpuset.h"
#include "../base/buf.h"
#include "../base/strindex.h"

struct nt_irq_fact {
	uint32_t queue;
	uint32_t irq;
	bool managed;			/* kernel-managed affinity: writes refused */
	char *name;			/* /proc/interrupts action name */
};

struct nt_feature_fact {
	const char *name;		/* in the interface's names */
	bool fixed;			/* not in hw_features or NETIF_F_NEVER_CHANGE */
	unsigned char requested;	/* 0 unknown (a snapshot), else 1 + the
					 * wanted bit: what was asked, which a
					 * dependency may keep from being active */
};

struct nt_iface_facts {
	char *name;
	char *driver;			/* NULL when virtual/unknown */
	char *pci;			/* vendor:device */
	char *kind;			/* "physical", "veth", "wireguard", ... */
	int numa_node;			/* -1 unknown */
	struct nt_num max_chan[NT_CH__COUNT];
	struct nt_num ring_rx_max, ring_tx_max;
	struct nt_num rss_key_bytes, rss_indir_size;
	uint32_t rx_queues, tx_queues;	/* sysfs queues/rx-N, tx-N counts */
	struct nt_irq_fact *irqs;	/* the vector of each queue (combined or RX), sorted */
	size_t nirqs;
	/* TX-completion vectors of queues whose vector is in irqs (split
	 * rx/tx, virtio output.N, gVNIC TX blocks): placed and banned with
	 * the queue.  Sorted by queue. */
	struct nt_irq_fact *tx_irqs;
	size_t ntx_irqs;
	/* the vectors were found by the generic rule: the driver has no row
	 * in the vector layout table (appliers/linux/vectors.def) */
	bool irq_generic;
	bool vmbus;			/* queues are VMBus channels (hv_netvsc): irq = relid */
	struct nt_feature_fact *features;
	size_t nfeatures;
	struct nt_strpool feature_names;	/* the features' names */
	struct nt_strindex *feature_index;	/* lookup cache of nt_facts_feature() */
	unsigned feature_scans;		/* lookups made in order before the index */
	bool features_known;
	/* Windows */
	char *description;		/* InterfaceDescription */
	char *rsc_failure_ipv4, *rsc_failure_ipv6;
	char *ifindex;
};

/* A sysctl a profile names, as the live host has it (a snapshot records
 * values, not files): whether /proc/sys has it and lets it be written. */
struct nt_sysctl_fact {
	char *key;			/* canonical: net.core.rmem_max */
	bool exists;
	bool writable;			/* a write bit in the file's mode */
	char *suggest;			/* missing: the closest key beside it, or NULL */
};

struct nt_facts {
	bool known;			/* any facts at all */
	/* the interfaces are known: one not in ifs does not exist (the live
	 * host, or a snapshot with an interfaces list, even an empty one) */
	bool ifaces_known;
	char *hostname;
	char *target;			/* "linux" or "windows" */
	char *kernel;
	char *machine_id;
	char *netns;			/* --netns name observed in; NULL: the host's own namespace */
	struct nt_cpuset online;
	bool topo_known;
	uint32_t ncpus;			/* highest online CPU + 1 */
	int cpu_node[NT_MAX_CPUS];	/* -1 unknown */
	int cpu_core[NT_MAX_CPUS];	/* core id unique over the host, -1 unknown */
	struct nt_cpuset node_cpus[64];
	int nnodes;			/* highest node + 1 */
	int irqbalance;			/* 1 active, 0 inactive, -1 unknown */
	struct nt_iface_facts *ifs;
	size_t nifs;
	struct nt_strindex *if_index;	/* lookup cache of nt_facts_iface() */
	unsigned if_scans;		/* lookups made in order before the index */
	struct nt_sysctl_fact *sysctls;	/* live observation only */
	size_t nsysctls;
	/* Windows: what silently disables offloads (seed 002) */
	int uro_disabled_mask;		/* -1 unknown */
	char **diagnosis;		/* facts worth reporting, as text */
	size_t ndiagnosis;
};

void nt_facts_init(struct nt_facts *f);
void nt_facts_free(struct nt_facts *f);
struct nt_iface_facts *nt_facts_iface(const struct nt_facts *f, const char *name);
struct nt_iface_facts *nt_facts_add_iface(struct nt_facts *f, const char *name);
/* The fact of a sysctl (canonical key), NULL when it was not looked up. */
const struct nt_sysctl_fact *nt_facts_sysctl(const struct nt_facts *f, const char *key);
struct nt_sysctl_fact *nt_facts_add_sysctl(struct nt_facts *f, const char *key, bool exists,
					   bool writable);
const struct nt_feature_fact *nt_facts_feature(const struct nt_iface_facts *i, const char *name);
const struct nt_irq_fact *nt_facts_irq(const struct nt_iface_facts *i, uint32_t queue);
/* The TX-completion vectors of queue: *n of them from the returned one. */
const struct nt_irq_fact *nt_facts_tx_irqs(const struct nt_iface_facts *i, uint32_t queue, size_t *n);

#endif
