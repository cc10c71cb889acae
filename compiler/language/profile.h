/* SPDX-License-Identifier: MIT */
/*
 * The typed host profile, as libcyaml loads it after the tree pass
 * (ytree.c) has checked, merged and normalised the YAML.
 *
 * Every optional value is a pointer: NULL means "not set by the profile",
 * never a magic zero.  Free-form maps of the YAML (sysctl,
 * linux.features, windows.advanced_properties) are normalised into
 * sequences of {key, value} before libcyaml sees them; scalar offload
 * toggles ("uso: on") are normalised into {all: on}.
 */
#ifndef NT_PROFILE_H
#define NT_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <cyaml/cyaml.h>

enum nt_kind { NT_KIND_HOST, NT_KIND_POLICY };
enum nt_target { NT_TARGET_LINUX, NT_TARGET_WINDOWS };
/* metadata.host: which hosts a profile is for (unset: the one metadata.name names) */
enum nt_host_scope { NT_HOST_ANY };
enum nt_irq_policy {
	NT_IRQ_NUMA_LOCAL_SPREAD,	/* one queue per physical core of the NIC's node */
	NT_IRQ_ALL_CPUS,		/* spread over every usable CPU */
	NT_IRQ_EXPLICIT,		/* irq.cpus for all queues, or irq.per_queue */
	NT_IRQ_NONE,			/* leave IRQ affinity alone */
};
enum nt_irqbalance { NT_IRQBAL_BAN, NT_IRQBAL_STOP, NT_IRQBAL_IGNORE };
enum nt_hash { NT_HASH_TOEPLITZ, NT_HASH_XOR, NT_HASH_CRC32 };
enum nt_spread { NT_SPREAD_EQUAL };
enum nt_rss_profile {
	NT_RSSP_CLOSEST, NT_RSSP_CLOSEST_STATIC, NT_RSSP_NUMA,
	NT_RSSP_NUMA_STATIC, NT_RSSP_CONSERVATIVE,
};
/* One per row group of the overhead table (compiler/model/tunnel.c). */
enum nt_tunnel_kind {
	NT_TUNNEL_WIREGUARD, NT_TUNNEL_VXLAN, NT_TUNNEL_GENEVE, NT_TUNNEL_GRE,
	NT_TUNNEL_GRETAP, NT_TUNNEL_IPIP, NT_TUNNEL_SIT, NT_TUNNEL_IP6TNL,
	NT_TUNNEL_IP6GRE, NT_TUNNEL_IP6GRETAP, NT_TUNNEL_ESP,
};
/* IPsec ESP transforms whose overhead the table knows. */
enum nt_esp_cipher {
	NT_ESP_AES_GCM, NT_ESP_CHACHA20_POLY1305, NT_ESP_AES_CBC_SHA1, NT_ESP_AES_CBC_SHA256,
};
enum nt_outer { NT_OUTER_IPV4, NT_OUTER_IPV6, NT_OUTER_DUAL };
enum nt_enabled { NT_DISABLED, NT_ENABLED };

/* One offload toggle: "x: on" sets all; "x: {ipv4: on}" sets one family
 * (Windows USO/RSC/LSO/checksum). */
struct nt_toggle {
	bool *all;
	bool *ipv4;
	bool *ipv6;
};

/* Portable offload vocabulary (offloads.def), lowered per target
 * (lower_linux.c, lower_windows.c).  lso is another name for tso. */
struct nt_offloads {
	/* one toggle per row of offloads.def */
#define NT_OFFLOAD(key, ...) struct nt_toggle *key;
#include "offloads.def"
#undef NT_OFFLOAD
};

struct nt_kv {
	char *key;
	char *value;
};

struct nt_channels {
	uint32_t *combined;
	uint32_t *rx;
	uint32_t *tx;
	uint32_t *other;
};

struct nt_rings {
	uint32_t *rx;
	uint32_t *tx;
	uint32_t *rx_mini;
	uint32_t *rx_jumbo;
};

struct nt_coalesce {
	bool *adaptive_rx;
	bool *adaptive_tx;
	uint32_t *rx_usecs;
	uint32_t *tx_usecs;
	uint32_t *rx_frames;
	uint32_t *tx_frames;
};

/* The maps of ifkeys.def: struct nt_MEMBER of bool pointers (on/off
 * flags) or of word lists, the words' bits (NT_IFKEY_WORDS) */
#define NT_IFKEY_U32(member, min, max, doc)
#define NT_IFFLAG(member, flag, doc) bool *flag;
#define NT_IFKEY_FLAGS(member, doc, flags) struct nt_##member { flags };
#define NT_IFWARG(member, arg, doc) uint32_t *arg; unsigned arg##_count;
#define NT_IFKEY_WORDS(parent, member, rule, noun, doc, args, ...) struct nt_##member { args };
#include "ifkeys.def"
#undef NT_IFKEY_U32
#undef NT_IFFLAG
#undef NT_IFKEY_FLAGS
#undef NT_IFWARG
#undef NT_IFKEY_WORDS

struct nt_rss {
	char *key;			/* "per-host" or hex bytes "6d:5a:..." */
	enum nt_spread *spread;
	enum nt_hash *hash;
	uint32_t *queues;		/* Linux: spread over first N; Windows: receive queues */
	/* Windows (Set-NetAdapterRss) */
	bool *enabled;
	enum nt_rss_profile *profile;
	uint32_t *base_processor;
	uint32_t *max_processor;
	uint32_t *max_processors;
	/* the NT_IFKEY_WORDS rows of parent rss (NT_IN_rss: the row is one) */
#define NT_IN_rss(...) __VA_ARGS__
#define NT_IFKEY_WORDS(parent, member, ...) NT_IN_##parent(struct nt_##member *member;)
#include "ifkeys.def"
#undef NT_IFKEY_WORDS
#undef NT_IN_rss
};

struct nt_irq {
	enum nt_irq_policy *policy;
	char *cpus;			/* cpulist for all-cpus / explicit */
	char **per_queue;		/* explicit: one cpulist per queue */
	unsigned per_queue_count;
	enum nt_irqbalance *irqbalance;
};

struct nt_rps {
	char *cpus;			/* cpulist, "numa-local" or "none" */
	uint32_t *flow_cnt;
};

struct nt_xps {
	char *cpus;			/* cpulist, "follow-irq" or "none" */
};

struct nt_tunnel {
	enum nt_tunnel_kind kind;
	char *underlay;
	enum nt_outer *outer;		/* default: the kind's (tunnel.c) */
	uint32_t *options_length;	/* geneve: option bytes, multiple of 4 */
	bool *key;			/* gre family: GRE key field (+4) */
	bool *sequence;			/* gre family: sequence number (+4) */
	bool *checksum;			/* gre family: GRE checksum (+4) */
	bool *encap_limit;		/* ip6tnl, ip6gre: encapsulation limit option (+8, default on) */
	enum nt_esp_cipher *cipher;	/* esp: default aes-gcm */
	bool *nat_traversal;		/* esp: UDP encapsulation (+8) */
	enum nt_outer *inner;		/* families carried; ipv6, dual: MTU >= 1280 */
};

struct nt_match {
	char *driver;
	char *pci;
};

struct nt_linux_opts {
	struct nt_kv *features;		/* ethtool feature name -> on|off */
	unsigned features_count;
	/* the maps of driver-given names, NT_LINUX_NAMES of ifkeys.def */
#define NT_LINUX_NAMES(member, ...) struct nt_kv *member; unsigned member##_count;
#include "ifkeys.def"
#undef NT_LINUX_NAMES
};

struct nt_windows_opts {
	struct nt_kv *advanced_properties; /* RegistryKeyword -> RegistryValue */
	unsigned advanced_properties_count;
};

struct nt_iface {
	char *name;
	char *nic;			/* capability table id */
	struct nt_match *match;
	uint32_t *mtu;
#define NT_IFKEY_U32(member, min, max, doc) uint32_t *member;
#define NT_IFKEY_FLAGS(member, doc, flags) struct nt_##member *member;
#include "ifkeys.def"
#undef NT_IFKEY_U32
#undef NT_IFKEY_FLAGS
	struct nt_offloads *offloads;
	struct nt_channels *channels;
	struct nt_rings *rings;
	struct nt_coalesce *coalesce;
	struct nt_rss *rss;
	struct nt_irq *irq;
	struct nt_rps *rps;
	struct nt_xps *xps;
	struct nt_tunnel *tunnel;
	struct nt_linux_opts *linux_opts;
	struct nt_windows_opts *windows_opts;
};

struct nt_numa_node {
	uint32_t node;
	char *cpus;
};

struct nt_host {
	struct nt_numa_node *numa;
	unsigned numa_count;
	char *reserved_cpus;
};

struct nt_process_match {
	char *systemd_unit;
	char *comm;
	char *pidfile;
};

struct nt_process {
	struct nt_process_match match;
	char *cpus;			/* cpulist or "numa-local-of IFACE" */
};

struct nt_global {
	enum nt_enabled *receive_segment_coalescing;
	enum nt_enabled *uro;
};

struct nt_defaults {
	struct nt_iface *physical;
	struct nt_iface *tunnel;
};

struct nt_metadata {
	char *name;
	char *description;
	enum nt_host_scope *host;	/* any: planned and applied on any host */
};

struct nt_profile {
	char *api_version;
	enum nt_kind kind;
	struct nt_metadata *metadata;
	char **extends;
	unsigned extends_count;
	enum nt_target *target;
	struct nt_host *host;
	struct nt_defaults *defaults;
	struct nt_iface *interfaces;
	unsigned interfaces_count;
	struct nt_process *processes;
	unsigned processes_count;
	struct nt_kv *sysctl;
	unsigned sysctl_count;
	struct nt_global *global;
};

extern const cyaml_schema_value_t nt_profile_schema;
extern const cyaml_config_t nt_cyaml_config;

#endif
