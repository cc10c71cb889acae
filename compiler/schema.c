/* SPDX-License-Identifier: MIT */
/*
 * libcyaml schema tables for the profile language.  These tables are the
 * single source of truth for the profile's shape: check.c walks them to
 * report unknown keys and wrong types with positions, jsonschema.c turns
 * them into schema/nettune.schema.json, and libcyaml loads with them.
 */
#include <stddef.h>

#include "profile.h"
#include "schema.h"

#define OPT (CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER)
#define OPT_STR (CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER)

static const cyaml_strval_t kind_strings[] = {
	{"HostProfile", NT_KIND_HOST}, {"PolicyProfile", NT_KIND_POLICY},
};
static const cyaml_strval_t target_strings[] = {
	{"linux", NT_TARGET_LINUX}, {"windows", NT_TARGET_WINDOWS},
};
const cyaml_strval_t nt_irq_policy_strings[] = {
	{"numa-local-spread", NT_IRQ_NUMA_LOCAL_SPREAD}, {"all-cpus", NT_IRQ_ALL_CPUS},
	{"explicit", NT_IRQ_EXPLICIT}, {"none", NT_IRQ_NONE},
};
const cyaml_strval_t nt_irqbalance_strings[] = {
	{"ban", NT_IRQBAL_BAN}, {"stop", NT_IRQBAL_STOP}, {"ignore", NT_IRQBAL_IGNORE},
};
const cyaml_strval_t nt_hash_strings[] = {
	{"toeplitz", NT_HASH_TOEPLITZ}, {"xor", NT_HASH_XOR}, {"crc32", NT_HASH_CRC32},
};
static const cyaml_strval_t spread_strings[] = {
	{"equal", NT_SPREAD_EQUAL},
};
const cyaml_strval_t nt_rss_profile_strings[] = {
	{"closest", NT_RSSP_CLOSEST}, {"closest-static", NT_RSSP_CLOSEST_STATIC},
	{"numa", NT_RSSP_NUMA}, {"numa-static", NT_RSSP_NUMA_STATIC},
	{"conservative", NT_RSSP_CONSERVATIVE},
};
static const cyaml_strval_t tunnel_kind_strings[] = {
	{"wireguard", NT_TUNNEL_WIREGUARD},
};
const cyaml_strval_t nt_outer_strings[] = {
	{"ipv4", NT_OUTER_IPV4}, {"ipv6", NT_OUTER_IPV6}, {"dual", NT_OUTER_DUAL},
};
static const cyaml_strval_t enabled_strings[] = {
	{"disabled", NT_DISABLED}, {"enabled", NT_ENABLED},
};

#define ENUM_FIELD(key, st, member, strs) \
	CYAML_FIELD_ENUM_PTR(key, OPT, st, member, strs, CYAML_ARRAY_LEN(strs))

const cyaml_schema_field_t nt_toggle_fields[] = {
	CYAML_FIELD_BOOL_PTR("all", OPT, struct nt_toggle, all),
	CYAML_FIELD_BOOL_PTR("ipv4", OPT, struct nt_toggle, ipv4),
	CYAML_FIELD_BOOL_PTR("ipv6", OPT, struct nt_toggle, ipv6),
	CYAML_FIELD_END
};

#define TOGGLE(key, member) \
	CYAML_FIELD_MAPPING_PTR(key, OPT, struct nt_offloads, member, nt_toggle_fields)

static const cyaml_schema_field_t offloads_fields[] = {
	TOGGLE("checksum", checksum), TOGGLE("rx_checksum", rx_checksum),
	TOGGLE("tx_checksum", tx_checksum), TOGGLE("sg", sg), TOGGLE("tso", tso),
	TOGGLE("lso", lso), TOGGLE("gso", gso), TOGGLE("gro", gro),
	TOGGLE("gro_hw", gro_hw), TOGGLE("lro", lro), TOGGLE("uso", uso),
	TOGGLE("uro", uro), TOGGLE("rsc", rsc), TOGGLE("rxhash", rxhash),
	TOGGLE("ntuple", ntuple), TOGGLE("rxvlan", rxvlan), TOGGLE("txvlan", txvlan),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t kv_fields[] = {
	CYAML_FIELD_STRING_PTR("key", CYAML_FLAG_POINTER, struct nt_kv, key, 1, 255),
	CYAML_FIELD_STRING_PTR("value", CYAML_FLAG_POINTER, struct nt_kv, value, 0, 4095),
	CYAML_FIELD_END
};
/* Free-form maps in YAML; check.c and load.c turn them into {key, value}
 * sequences for libcyaml. */
const cyaml_schema_value_t nt_kv_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct nt_kv, kv_fields),
};
/* The same, for maps whose values are on/off (ethtool features). */
const cyaml_schema_value_t nt_kv_bool_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct nt_kv, kv_fields),
};

static const cyaml_schema_field_t channels_fields[] = {
	CYAML_FIELD_UINT_PTR("combined", OPT, struct nt_channels, combined),
	CYAML_FIELD_UINT_PTR("rx", OPT, struct nt_channels, rx),
	CYAML_FIELD_UINT_PTR("tx", OPT, struct nt_channels, tx),
	CYAML_FIELD_UINT_PTR("other", OPT, struct nt_channels, other),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t rings_fields[] = {
	CYAML_FIELD_UINT_PTR("rx", OPT, struct nt_rings, rx),
	CYAML_FIELD_UINT_PTR("tx", OPT, struct nt_rings, tx),
	CYAML_FIELD_UINT_PTR("rx_mini", OPT, struct nt_rings, rx_mini),
	CYAML_FIELD_UINT_PTR("rx_jumbo", OPT, struct nt_rings, rx_jumbo),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t coalesce_fields[] = {
	CYAML_FIELD_BOOL_PTR("adaptive_rx", OPT, struct nt_coalesce, adaptive_rx),
	CYAML_FIELD_BOOL_PTR("adaptive_tx", OPT, struct nt_coalesce, adaptive_tx),
	CYAML_FIELD_UINT_PTR("rx_usecs", OPT, struct nt_coalesce, rx_usecs),
	CYAML_FIELD_UINT_PTR("tx_usecs", OPT, struct nt_coalesce, tx_usecs),
	CYAML_FIELD_UINT_PTR("rx_frames", OPT, struct nt_coalesce, rx_frames),
	CYAML_FIELD_UINT_PTR("tx_frames", OPT, struct nt_coalesce, tx_frames),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t rss_fields[] = {
	CYAML_FIELD_STRING_PTR("key", OPT_STR, struct nt_rss, key, 1, 1024),
	ENUM_FIELD("spread", struct nt_rss, spread, spread_strings),
	ENUM_FIELD("hash", struct nt_rss, hash, nt_hash_strings),
	CYAML_FIELD_UINT_PTR("queues", OPT, struct nt_rss, queues),
	CYAML_FIELD_BOOL_PTR("enabled", OPT, struct nt_rss, enabled),
	ENUM_FIELD("profile", struct nt_rss, profile, nt_rss_profile_strings),
	CYAML_FIELD_UINT_PTR("base_processor", OPT, struct nt_rss, base_processor),
	CYAML_FIELD_UINT_PTR("max_processor", OPT, struct nt_rss, max_processor),
	CYAML_FIELD_UINT_PTR("max_processors", OPT, struct nt_rss, max_processors),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t cpulist_entry = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 1, 1024),
};

static const cyaml_schema_field_t irq_fields[] = {
	ENUM_FIELD("policy", struct nt_irq, policy, nt_irq_policy_strings),
	CYAML_FIELD_STRING_PTR("cpus", OPT_STR, struct nt_irq, cpus, 1, 1024),
	CYAML_FIELD_SEQUENCE("per_queue", OPT, struct nt_irq, per_queue,
			     &cpulist_entry, 1, 4096),
	ENUM_FIELD("irqbalance", struct nt_irq, irqbalance, nt_irqbalance_strings),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t rps_fields[] = {
	CYAML_FIELD_STRING_PTR("cpus", OPT_STR, struct nt_rps, cpus, 1, 1024),
	CYAML_FIELD_UINT_PTR("flow_cnt", OPT, struct nt_rps, flow_cnt),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t xps_fields[] = {
	CYAML_FIELD_STRING_PTR("cpus", OPT_STR, struct nt_xps, cpus, 1, 1024),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t tunnel_fields[] = {
	CYAML_FIELD_ENUM("kind", CYAML_FLAG_DEFAULT, struct nt_tunnel, kind,
			 tunnel_kind_strings, CYAML_ARRAY_LEN(tunnel_kind_strings)),
	CYAML_FIELD_STRING_PTR("underlay", CYAML_FLAG_POINTER, struct nt_tunnel,
			       underlay, 1, 255),
	ENUM_FIELD("outer", struct nt_tunnel, outer, nt_outer_strings),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t match_fields[] = {
	CYAML_FIELD_STRING_PTR("driver", OPT_STR, struct nt_match, driver, 1, 64),
	CYAML_FIELD_STRING_PTR("pci", OPT_STR, struct nt_match, pci, 1, 64),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t linux_fields[] = {
	CYAML_FIELD_SEQUENCE("features", OPT, struct nt_linux_opts, features,
			     &nt_kv_bool_entry, 0, 1024),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t windows_fields[] = {
	CYAML_FIELD_SEQUENCE("advanced_properties", OPT, struct nt_windows_opts,
			     advanced_properties, &nt_kv_entry, 0, 1024),
	CYAML_FIELD_END
};

const cyaml_schema_field_t nt_iface_fields[] = {
	CYAML_FIELD_STRING_PTR("name", OPT_STR, struct nt_iface, name, 1, 255),
	CYAML_FIELD_STRING_PTR("nic", OPT_STR, struct nt_iface, nic, 1, 64),
	CYAML_FIELD_MAPPING_PTR("match", OPT, struct nt_iface, match, match_fields),
	CYAML_FIELD_UINT_PTR("mtu", OPT, struct nt_iface, mtu),
	CYAML_FIELD_MAPPING_PTR("offloads", OPT, struct nt_iface, offloads, offloads_fields),
	CYAML_FIELD_MAPPING_PTR("channels", OPT, struct nt_iface, channels, channels_fields),
	CYAML_FIELD_MAPPING_PTR("rings", OPT, struct nt_iface, rings, rings_fields),
	CYAML_FIELD_MAPPING_PTR("coalesce", OPT, struct nt_iface, coalesce, coalesce_fields),
	CYAML_FIELD_MAPPING_PTR("rss", OPT, struct nt_iface, rss, rss_fields),
	CYAML_FIELD_MAPPING_PTR("irq", OPT, struct nt_iface, irq, irq_fields),
	CYAML_FIELD_MAPPING_PTR("rps", OPT, struct nt_iface, rps, rps_fields),
	CYAML_FIELD_MAPPING_PTR("xps", OPT, struct nt_iface, xps, xps_fields),
	CYAML_FIELD_MAPPING_PTR("tunnel", OPT, struct nt_iface, tunnel, tunnel_fields),
	CYAML_FIELD_MAPPING_PTR("linux", OPT, struct nt_iface, linux_opts, linux_fields),
	CYAML_FIELD_MAPPING_PTR("windows", OPT, struct nt_iface, windows_opts, windows_fields),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t iface_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct nt_iface, nt_iface_fields),
};

static const cyaml_schema_field_t numa_fields[] = {
	CYAML_FIELD_UINT("node", CYAML_FLAG_DEFAULT, struct nt_numa_node, node),
	CYAML_FIELD_STRING_PTR("cpus", CYAML_FLAG_POINTER, struct nt_numa_node, cpus, 1, 1024),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t numa_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct nt_numa_node, numa_fields),
};

static const cyaml_schema_field_t host_fields[] = {
	CYAML_FIELD_SEQUENCE("numa", OPT, struct nt_host, numa, &numa_entry, 1, 64),
	CYAML_FIELD_STRING_PTR("reserved_cpus", OPT_STR, struct nt_host, reserved_cpus, 1, 1024),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t pmatch_fields[] = {
	CYAML_FIELD_STRING_PTR("systemd_unit", OPT_STR, struct nt_process_match,
			       systemd_unit, 1, 255),
	CYAML_FIELD_STRING_PTR("comm", OPT_STR, struct nt_process_match, comm, 1, 15),
	CYAML_FIELD_STRING_PTR("pidfile", OPT_STR, struct nt_process_match, pidfile, 1, 4095),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t process_fields[] = {
	CYAML_FIELD_MAPPING("match", CYAML_FLAG_DEFAULT, struct nt_process, match, pmatch_fields),
	CYAML_FIELD_STRING_PTR("cpus", CYAML_FLAG_POINTER, struct nt_process, cpus, 1, 1024),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t process_entry = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_DEFAULT, struct nt_process, process_fields),
};

static const cyaml_schema_field_t global_fields[] = {
	ENUM_FIELD("receive_segment_coalescing", struct nt_global,
		   receive_segment_coalescing, enabled_strings),
	ENUM_FIELD("uro", struct nt_global, uro, enabled_strings),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t defaults_fields[] = {
	CYAML_FIELD_MAPPING_PTR("physical", OPT, struct nt_defaults, physical, nt_iface_fields),
	CYAML_FIELD_MAPPING_PTR("tunnel", OPT, struct nt_defaults, tunnel, nt_iface_fields),
	CYAML_FIELD_END
};

static const cyaml_schema_field_t metadata_fields[] = {
	CYAML_FIELD_STRING_PTR("name", OPT_STR, struct nt_metadata, name, 1, 253),
	CYAML_FIELD_STRING_PTR("description", OPT_STR, struct nt_metadata, description, 0, 4096),
	CYAML_FIELD_END
};

static const cyaml_schema_value_t extends_entry = {
	CYAML_VALUE_STRING(CYAML_FLAG_POINTER, char, 1, 128),
};

static const cyaml_schema_field_t profile_fields[] = {
	CYAML_FIELD_STRING_PTR("apiVersion", CYAML_FLAG_POINTER, struct nt_profile,
			       api_version, 1, 64),
	CYAML_FIELD_ENUM("kind", CYAML_FLAG_DEFAULT, struct nt_profile, kind,
			 kind_strings, CYAML_ARRAY_LEN(kind_strings)),
	CYAML_FIELD_MAPPING_PTR("metadata", OPT, struct nt_profile, metadata, metadata_fields),
	CYAML_FIELD_SEQUENCE("extends", OPT, struct nt_profile, extends, &extends_entry, 0, 32),
	ENUM_FIELD("target", struct nt_profile, target, target_strings),
	CYAML_FIELD_MAPPING_PTR("host", OPT, struct nt_profile, host, host_fields),
	CYAML_FIELD_MAPPING_PTR("defaults", OPT, struct nt_profile, defaults, defaults_fields),
	CYAML_FIELD_SEQUENCE("interfaces", OPT, struct nt_profile, interfaces,
			     &iface_entry, 0, 1024),
	CYAML_FIELD_SEQUENCE("processes", OPT, struct nt_profile, processes,
			     &process_entry, 0, 256),
	CYAML_FIELD_SEQUENCE("sysctl", OPT, struct nt_profile, sysctl, &nt_kv_entry, 0, 1024),
	CYAML_FIELD_MAPPING_PTR("global", OPT, struct nt_profile, global, global_fields),
	CYAML_FIELD_END
};

const cyaml_schema_value_t nt_profile_schema = {
	CYAML_VALUE_MAPPING(CYAML_FLAG_POINTER, struct nt_profile, profile_fields),
};

const cyaml_config_t nt_cyaml_config = {
	.log_fn = NULL,
	.mem_fn = cyaml_mem,
	.log_level = CYAML_LOG_ERROR,
	.flags = CYAML_CFG_DEFAULT,
};

/*
 * Numeric ranges and value classes that libcyaml 1.3 cannot express.
 * Looked up by (fields table, key); used by check.c and jsonschema.c.
 */
const struct nt_field_rule nt_field_rules[] = {
	{nt_iface_fields, "mtu", NT_CLASS_NONE, 68, 65535},
	{channels_fields, "combined", NT_CLASS_NONE, 0, 4096},
	{channels_fields, "rx", NT_CLASS_NONE, 0, 4096},
	{channels_fields, "tx", NT_CLASS_NONE, 0, 4096},
	{channels_fields, "other", NT_CLASS_NONE, 0, 4096},
	{rings_fields, "rx", NT_CLASS_NONE, 1, 1048576},
	{rings_fields, "tx", NT_CLASS_NONE, 1, 1048576},
	{rings_fields, "rx_mini", NT_CLASS_NONE, 1, 1048576},
	{rings_fields, "rx_jumbo", NT_CLASS_NONE, 1, 1048576},
	{coalesce_fields, "rx_usecs", NT_CLASS_NONE, 0, 1000000},
	{coalesce_fields, "tx_usecs", NT_CLASS_NONE, 0, 1000000},
	{coalesce_fields, "rx_frames", NT_CLASS_NONE, 0, 65535},
	{coalesce_fields, "tx_frames", NT_CLASS_NONE, 0, 65535},
	{rss_fields, "queues", NT_CLASS_NONE, 1, 4096},
	{rss_fields, "base_processor", NT_CLASS_NONE, 0, 4095},
	{rss_fields, "max_processor", NT_CLASS_NONE, 0, 4095},
	{rss_fields, "max_processors", NT_CLASS_NONE, 1, 4096},
	{rps_fields, "flow_cnt", NT_CLASS_NONE, 0, 1048576},
	{numa_fields, "node", NT_CLASS_NONE, 0, 1023},
	{numa_fields, "cpus", NT_CLASS_CPULIST, 0, 0},
	{host_fields, "reserved_cpus", NT_CLASS_CPULIST, 0, 0},
	{irq_fields, "cpus", NT_CLASS_CPULIST, 0, 0},
	{irq_fields, "per_queue", NT_CLASS_CPULIST, 0, 0},
	{rps_fields, "cpus", NT_CLASS_CPULIST, 0, 0},
	{xps_fields, "cpus", NT_CLASS_CPULIST, 0, 0},
	{process_fields, "cpus", NT_CLASS_CPULIST, 0, 0},
	{NULL, NULL, NT_CLASS_NONE, 0, 0},
};

const struct nt_field_rule *nt_field_rule(const cyaml_schema_field_t *fields, const char *key)
{
	const struct nt_field_rule *r;

	for (r = nt_field_rules; r->fields; r++)
		if (r->fields == fields && !strcmp(r->key, key))
			return r;
	return NULL;
}
