/* SPDX-License-Identifier: MIT */
/*
 * libcyaml schema tables for the profile language.  These tables are the
 * single source of truth for the profile's shape: check.c walks them to
 * report unknown keys and wrong types with positions, jsonschema.c turns
 * them into schema/nettune.schema.json, and libcyaml loads with them.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>

#include "profile.h"
#include "schema.h"
#include "../base/buf.h"
#include "../base/rules.h"

#define OPT (CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER)
#define OPT_STR (CYAML_FLAG_OPTIONAL | CYAML_FLAG_POINTER)

static const cyaml_strval_t kind_strings[] = {
	{"HostProfile", NT_KIND_HOST}, {"PolicyProfile", NT_KIND_POLICY},
};
static const cyaml_strval_t target_strings[] = {
	{"linux", NT_TARGET_LINUX}, {"windows", NT_TARGET_WINDOWS},
};
static const cyaml_strval_t host_scope_strings[] = {
	{"any", NT_HOST_ANY},
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
const cyaml_strval_t nt_tunnel_kind_strings[] = {
	{"wireguard", NT_TUNNEL_WIREGUARD}, {"vxlan", NT_TUNNEL_VXLAN},
	{"geneve", NT_TUNNEL_GENEVE}, {"gre", NT_TUNNEL_GRE}, {"gretap", NT_TUNNEL_GRETAP},
	{"ipip", NT_TUNNEL_IPIP}, {"sit", NT_TUNNEL_SIT}, {"ip6tnl", NT_TUNNEL_IP6TNL},
	{"ip6gre", NT_TUNNEL_IP6GRE}, {"ip6gretap", NT_TUNNEL_IP6GRETAP}, {"esp", NT_TUNNEL_ESP},
};
const cyaml_strval_t nt_esp_cipher_strings[] = {
	{"aes-gcm", NT_ESP_AES_GCM}, {"chacha20-poly1305", NT_ESP_CHACHA20_POLY1305},
	{"aes-cbc-sha1", NT_ESP_AES_CBC_SHA1}, {"aes-cbc-sha256", NT_ESP_AES_CBC_SHA256},
};
const size_t nt_tunnel_kind_nstrings = CYAML_ARRAY_LEN(nt_tunnel_kind_strings);
const size_t nt_esp_cipher_nstrings = CYAML_ARRAY_LEN(nt_esp_cipher_strings);
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
#define NT_OFFLOAD(key, ...) TOGGLE(#key, key),
#include "offloads.def"
#undef NT_OFFLOAD
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

/* the maps of ifkeys.def; a word list's words are enum values, their bits */
#define NT_IFKEY_U32(member, min, max, doc)
#define NT_IFFLAG(member, flag, doc) CYAML_FIELD_BOOL_PTR(#flag, OPT, struct nt_##member, flag),
#define NT_IFKEY_FLAGS(member, doc, flags) \
	static const cyaml_schema_field_t member##_fields[] = { flags CYAML_FIELD_END };
#define NT_IFWORD(member, word, bit) {word, bit},
#define NT_IFWARG(member, arg, doc) \
	CYAML_FIELD_SEQUENCE(#arg, OPT, struct nt_##member, arg, &member##_entry, 1, \
			     CYAML_ARRAY_LEN(member##_words)),
#define NT_IFKEY_WORDS(parent, member, rule, noun, doc, args, words, ...) \
	static const cyaml_strval_t member##_words[] = {words}; \
	static const cyaml_schema_value_t member##_entry = { \
		CYAML_VALUE_ENUM(CYAML_FLAG_DEFAULT, uint32_t, member##_words, \
				 CYAML_ARRAY_LEN(member##_words)), \
	}; \
	static const cyaml_schema_field_t member##_fields[] = { args CYAML_FIELD_END };
#include "ifkeys.def"
#undef NT_IFKEY_U32
#undef NT_IFFLAG
#undef NT_IFKEY_FLAGS
#undef NT_IFWORD
#undef NT_IFWARG
#undef NT_IFKEY_WORDS

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
#define NT_IN_rss(...) __VA_ARGS__
#define NT_IFKEY_WORDS(parent, member, ...) \
	NT_IN_##parent(CYAML_FIELD_MAPPING_PTR(#member, OPT, struct nt_rss, member, member##_fields),)
#include "ifkeys.def"
#undef NT_IFKEY_WORDS
#undef NT_IN_rss
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
			 nt_tunnel_kind_strings, CYAML_ARRAY_LEN(nt_tunnel_kind_strings)),
	CYAML_FIELD_STRING_PTR("underlay", CYAML_FLAG_POINTER, struct nt_tunnel,
			       underlay, 1, 255),
	ENUM_FIELD("outer", struct nt_tunnel, outer, nt_outer_strings),
	CYAML_FIELD_UINT_PTR("options_length", OPT, struct nt_tunnel, options_length),
	CYAML_FIELD_BOOL_PTR("key", OPT, struct nt_tunnel, key),
	CYAML_FIELD_BOOL_PTR("sequence", OPT, struct nt_tunnel, sequence),
	CYAML_FIELD_BOOL_PTR("checksum", OPT, struct nt_tunnel, checksum),
	CYAML_FIELD_BOOL_PTR("encap_limit", OPT, struct nt_tunnel, encap_limit),
	ENUM_FIELD("cipher", struct nt_tunnel, cipher, nt_esp_cipher_strings),
	CYAML_FIELD_BOOL_PTR("nat_traversal", OPT, struct nt_tunnel, nat_traversal),
	ENUM_FIELD("inner", struct nt_tunnel, inner, nt_outer_strings),
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
#define NT_LINUX_NAMES(member, rule, noun, entries, ...) \
	CYAML_FIELD_SEQUENCE(#member, OPT, struct nt_linux_opts, member, &nt_kv_bool_entry, 0, entries),
#include "ifkeys.def"
#undef NT_LINUX_NAMES
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
#define NT_IFKEY_U32(member, min, max, doc) \
	CYAML_FIELD_UINT_PTR(#member, OPT, struct nt_iface, member),
#define NT_IFKEY_FLAGS(member, doc, flags) \
	CYAML_FIELD_MAPPING_PTR(#member, OPT, struct nt_iface, member, member##_fields),
#include "ifkeys.def"
#undef NT_IFKEY_U32
#undef NT_IFKEY_FLAGS
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
	ENUM_FIELD("host", struct nt_metadata, host, host_scope_strings),
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
	/* genevehdr.opt_len: 6 bits of 4-byte words (include/net/geneve.h) */
	{tunnel_fields, "options_length", NT_CLASS_NONE, 0, 252, 4},
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
#define NT_IFKEY_U32(member, min, max, doc) {nt_iface_fields, #member, NT_CLASS_NONE, min, max},
#define NT_IFKEY_FLAGS(member, doc, flags)
#include "ifkeys.def"
#undef NT_IFKEY_U32
#undef NT_IFKEY_FLAGS
	{numa_fields, "node", NT_CLASS_NONE, 0, 1023},
	{numa_fields, "cpus", NT_CLASS_CPULIST, 0, 0},
	{host_fields, "reserved_cpus", NT_CLASS_CPULIST, 0, 0},
	{irq_fields, "cpus", NT_CLASS_CPULIST, 0, 0},
	{irq_fields, "per_queue", NT_CLASS_CPULIST, 0, 0},
	{rps_fields, "cpus", NT_CLASS_CPULIST, 0, 0},
	{xps_fields, "cpus", NT_CLASS_CPULIST, 0, 0},
	{process_fields, "cpus", NT_CLASS_CPULIST, 0, 0},
	{NULL, NULL, NT_CLASS_NONE, 0, 0, 0},
};

const struct nt_field_rule *nt_field_rule(const cyaml_schema_field_t *fields, const char *key)
{
	const struct nt_field_rule *r;

	for (r = nt_field_rules; r->fields; r++)
		if (r->fields == fields && !strcmp(r->key, key))
			return r;
	return NULL;
}

/*
 * One line of documentation per key, published as the JSON Schema's
 * "description" (shown by editors).  The wording follows
 * man/nettune-profile.5; tests/ci/ci_tests.py checks that both name the
 * same keys.
 */
const struct nt_key_doc nt_key_docs[] = {
	{profile_fields, "apiVersion", "Always nettune/v1."},
	{profile_fields, "kind", "HostProfile (planned and applied) or PolicyProfile (only "
	 "extended; may set interfaces and processes, not host or target)."},
	{profile_fields, "metadata", "name (the host name; seeds per-host RSS keys), description, "
	 "and host: any for a profile not tied to one host."},
	{profile_fields, "extends", "Policy profile names, looked up in the profile's directory, "
	 "--profile-path directories and the data directory's profiles/; applied in order, "
	 "then this profile."},
	{profile_fields, "target", "linux or windows."},
	{profile_fields, "host", "numa (list of {node, cpus}, checked against the live host) and "
	 "reserved_cpus (never given IRQs or pinned work)."},
	{profile_fields, "defaults", "physical and tunnel: interface keys applied beneath every "
	 "interface without / with a tunnel key."},
	{profile_fields, "interfaces", "Interfaces to tune, merged by name with extended policies."},
	{profile_fields, "processes", "Processes to pin: {match: {systemd_unit | comm | pidfile}, "
	 "cpus}; cpus is a CPU list or numa-local-of IFACE."},
	{profile_fields, "sysctl", "Map of sysctl name to value, e.g. net.core.rmem_max: 16777216. "
	 "With --netns only per-namespace sysctls are allowed."},
	{profile_fields, "global", "Windows only: receive_segment_coalescing and uro, enabled or "
	 "disabled."},
	{metadata_fields, "name", "Host name: 1-253 ASCII letters, digits, '.', '-' and '_', "
	 "starting with a letter or digit, labels of 1-63 characters. Names the host in "
	 "emitted scripts and seeds per-host RSS keys."},
	{metadata_fields, "description", "Free text."},
	{metadata_fields, "host", "any: the profile is for any host (a lab or fleet-wide profile), "
	 "so plan and apply accept it on a host that metadata.name does not name; per-host RSS "
	 "keys then come from the host's own name. Unset: a live plan or apply refuses a host "
	 "other than metadata.name (--any-host overrides it once)."},
	{host_fields, "numa", "NUMA nodes of the host: list of {node, cpus}, checked against the "
	 "live host."},
	{host_fields, "reserved_cpus", "CPU list (\"0,28\") never given IRQs or pinned work."},
	{numa_fields, "node", "NUMA node number."},
	{numa_fields, "cpus", "CPU list of the node, e.g. \"0-13,28-41\"."},
	{defaults_fields, "physical", "Interface keys applied beneath every interface without a "
	 "tunnel key."},
	{defaults_fields, "tunnel", "Interface keys applied beneath every interface with a "
	 "tunnel key."},
	{nt_iface_fields, "name", "Interface name (required unless in defaults). Linux: 1-15 "
	 "bytes, not . or .., without /, :, white space or control characters; Windows: 1-256 "
	 "bytes without control characters, wildcards or backticks."},
	{nt_iface_fields, "nic", "Capability table id (see nettune caps), or auto to take the "
	 "table from the observed device (PCI vendor:device, then driver). Lists the built-in "
	 "tables; one added with --caps-dir is not in the list."},
	{nt_iface_fields, "match", "Pick the capability table on the host by driver and/or PCI "
	 "vendor:device."},
	{nt_iface_fields, "mtu", "MTU, 68-65535. A tunnel without one gets its underlay's minus "
	 "its kind's overhead (the table in nettune-profile(5): e.g. WireGuard 60 over ipv4, 80 "
	 "over ipv6 or dual; VXLAN 50 / 70)."},
#define NT_IFKEY_U32(member, min, max, doc) {nt_iface_fields, #member, doc},
#define NT_IFFLAG(member, flag, doc) {member##_fields, #flag, doc},
#define NT_IFKEY_FLAGS(member, doc, flags) {nt_iface_fields, #member, doc}, flags
#include "ifkeys.def"
#undef NT_IFKEY_U32
#undef NT_IFFLAG
#undef NT_IFKEY_FLAGS
	{nt_iface_fields, "offloads", "Portable offload names, lowered per target to ethtool "
	 "features or NetAdapter settings; each is on/off or a map {all, ipv4, ipv6}."},
	{nt_iface_fields, "channels", "Queue counts: combined, rx, tx, other."},
	{nt_iface_fields, "rings", "Ring sizes: rx, tx, rx_mini, rx_jumbo."},
	{nt_iface_fields, "coalesce", "Interrupt coalescing: adaptive_rx, adaptive_tx, rx_usecs, "
	 "tx_usecs, rx_frames, tx_frames."},
	{nt_iface_fields, "rss", "Receive-side scaling: key, spread, hash, queues, enabled; "
	 "Windows: profile, base_processor, max_processor, max_processors."},
	{nt_iface_fields, "irq", "Where each queue's IRQ runs (/proc/irq/N/smp_affinity_list) "
	 "and what irqbalance may do."},
	{nt_iface_fields, "rps", "Receive packet steering: cpus (CPU list) and flow_cnt."},
	{nt_iface_fields, "xps", "Transmit packet steering: cpus (CPU list)."},
	{nt_iface_fields, "tunnel", "Marks a tunnel interface: kind (wireguard, vxlan, geneve, "
	 "gre, gretap, ipip, sit, ip6tnl, ip6gre, ip6gretap, esp), underlay (interface name: a NIC "
	 "or another tunnel), outer (ipv4, ipv6, dual), and the options of its kind."},
	{nt_iface_fields, "linux", "features: map of ethtool feature name to on/off, e.g. "
	 "rx-udp-gro-forwarding: on"
#define NT_LINUX_NAMES(member, rule, noun, entries, name_max, chars, said, brief, ...) \
	 "; " #member ": " brief
#include "ifkeys.def"
#undef NT_LINUX_NAMES
	 "."},
	{nt_iface_fields, "windows", "advanced_properties: map of NetAdapter advanced property "
	 "to value, e.g. '*JumboPacket': 9014."},
	{match_fields, "driver", "Kernel driver name, e.g. i40e."},
	{match_fields, "pci", "PCI vendor:device, e.g. 8086:1572."},
#define NT_OFFLOAD(key, cap, where, pf, lowers_to, doc, ...) {offloads_fields, #key, doc},
#include "offloads.def"
#undef NT_OFFLOAD
	{nt_toggle_fields, "all", "on/off for both IPv4 and IPv6."},
	{nt_toggle_fields, "ipv4", "on/off for IPv4."},
	{nt_toggle_fields, "ipv6", "on/off for IPv6."},
	{channels_fields, "combined", "Combined (RX and TX) channels."},
	{channels_fields, "rx", "RX-only channels."},
	{channels_fields, "tx", "TX-only channels."},
	{channels_fields, "other", "Other channels (link interrupts and the like)."},
	{rings_fields, "rx", "RX ring entries."},
	{rings_fields, "tx", "TX ring entries."},
	{rings_fields, "rx_mini", "RX mini ring entries."},
	{rings_fields, "rx_jumbo", "RX jumbo ring entries."},
	{coalesce_fields, "adaptive_rx", "Adaptive RX coalescing: on/off."},
	{coalesce_fields, "adaptive_tx", "Adaptive TX coalescing: on/off."},
	{coalesce_fields, "rx_usecs", "Microseconds to delay an RX interrupt."},
	{coalesce_fields, "tx_usecs", "Microseconds to delay a TX interrupt."},
	{coalesce_fields, "rx_frames", "RX frames to wait for before an interrupt."},
	{coalesce_fields, "tx_frames", "TX frames to wait for before an interrupt."},
	{rss_fields, "key", "per-host (derived from the host and interface names, stable across "
	 "re-plans) or hex bytes of the NIC's key size, optionally separated by colons."},
	{rss_fields, "spread", "equal: the indirection table filled evenly."},
	{rss_fields, "hash", "Hash function: toeplitz, xor or crc32."},
	{rss_fields, "queues", "Queues the indirection table spreads over."},
	{rss_fields, "enabled", "RSS on/off."},
	{rss_fields, "profile", "Windows RSS profile: closest, closest-static, numa, numa-static, "
	 "conservative."},
	{rss_fields, "base_processor", "Windows: first processor RSS may use."},
	{rss_fields, "max_processor", "Windows: last processor RSS may use."},
	{rss_fields, "max_processors", "Windows: most processors RSS may use."},
#define NT_IFWARG(member, arg, doc) {member##_fields, #arg, doc},
#define NT_IFKEY_WORDS(parent, member, rule, noun, doc, args, ...) \
	{parent##_fields, #member, doc}, args
#include "ifkeys.def"
#undef NT_IFWARG
#undef NT_IFKEY_WORDS
	{irq_fields, "policy", "numa-local-spread (one queue per core of the NIC's node), "
	 "all-cpus (every online CPU or cpus), explicit (cpus or per_queue) or none (leave "
	 "IRQ affinity alone, the default)."},
	{irq_fields, "cpus", "CPU list the queues are put on (all-cpus, explicit)."},
	{irq_fields, "per_queue", "explicit: one CPU list per queue (queue N gets entry N; a "
	 "shorter list wraps with a warning)."},
	{irq_fields, "irqbalance", "ban (default with a policy: irqbalance skips the placed "
	 "IRQs), stop (stop and disable irqbalance) or ignore."},
	{rps_fields, "cpus", "CPU list for receive packet steering."},
	{rps_fields, "flow_cnt", "rps_flow_cnt per RX queue."},
	{xps_fields, "cpus", "CPU list for transmit packet steering."},
	{tunnel_fields, "kind", "wireguard, vxlan, geneve, gre, gretap, ipip, sit (IPv4 outer "
	 "only), ip6tnl, ip6gre, ip6gretap (IPv6 outer only) or esp (route-based IPsec, tunnel "
	 "mode). The MTU is derived from the underlay's minus the kind's overhead (nettune-profile(5))."},
	{tunnel_fields, "underlay", "Name of the interface the tunnel's packets leave by."},
	{tunnel_fields, "outer", "Outer IP version: ipv4 (default; ipv6 for ip6tnl, ip6gre, "
	 "ip6gretap), ipv6, or dual (wireguard, esp: the larger IPv6 overhead)."},
	{tunnel_fields, "options_length", "geneve: bytes of Geneve options each packet carries "
	 "(set per packet by OVS or tc tunnel_key on a collect_md device), 0-252 in 4-byte words: "
	 "genevehdr.opt_len is 6 bits (default 0)."},
	{tunnel_fields, "key", "gre, gretap, ip6gre, ip6gretap: the GRE key field is used (+4 bytes)."},
	{tunnel_fields, "sequence", "gre, gretap, ip6gre, ip6gretap: GRE sequence numbers (+4 bytes)."},
	{tunnel_fields, "checksum", "gre, gretap, ip6gre, ip6gretap: GRE checksums (+4 bytes)."},
	{tunnel_fields, "encap_limit", "ip6tnl, ip6gre, ip6gretap: the tunnel encapsulation limit "
	 "option is sent (default on, 8 bytes; off for encaplimit none)."},
	{tunnel_fields, "cipher", "esp: aes-gcm (default; 16-byte ICV), chacha20-poly1305, "
	 "aes-cbc-sha1 (96-bit ICV) or aes-cbc-sha256 (128-bit ICV); padding is counted for "
	 "the MTU itself."},
	{tunnel_fields, "nat_traversal", "esp: ESP in UDP (NAT traversal, +8 bytes)."},
	{tunnel_fields, "inner", "The IP versions the tunnel carries: ipv4, ipv6 or dual. With ipv6 "
	 "or dual its MTU must be at least 1280 (Linux turns IPv6 off on a device below it); "
	 "unset, an MTU below 1280 gets a warning (sit: always ipv6)."},
	{linux_fields, "features", "Map of ethtool feature name to on/off, e.g. "
	 "rx-udp-gro-forwarding: on."},
#define NT_LINUX_NAMES(member, rule, noun, entries, name_max, chars, said, brief, doc, ...) \
	{linux_fields, #member, doc},
#include "ifkeys.def"
#undef NT_LINUX_NAMES
	{windows_fields, "advanced_properties", "Map of NetAdapter advanced property to value, "
	 "e.g. '*JumboPacket': 9014."},
	{process_fields, "match", "Which process: one of systemd_unit, comm or pidfile."},
	{process_fields, "cpus", "CPU list, or numa-local-of IFACE."},
	{pmatch_fields, "systemd_unit", "systemd unit name (one path component)."},
	{pmatch_fields, "comm", "Process name as in /proc/PID/comm (one path component, at most "
	 "15 bytes)."},
	{pmatch_fields, "pidfile", "Absolute path of a pid file, without ., .. or empty "
	 "components."},
	{global_fields, "receive_segment_coalescing", "Windows global RSC: enabled or disabled."},
	{global_fields, "uro", "Windows global UDP receive offload: enabled or disabled."},
	{NULL, NULL, NULL},
};

const char *nt_key_doc(const cyaml_schema_field_t *fields, const char *key)
{
	const struct nt_key_doc *r;

	for (r = nt_key_docs; r->fields; r++)
		if (r->fields == fields && !strcmp(r->key, key))
			return r->doc;
	return NULL;
}

const struct nt_name_map nt_name_maps[] = {
#define NT_LINUX_NAMES(member, rule, noun, entries, name_max, chars, said, ...) \
	{#member, "linux." #member, rule, noun, name_max, chars, said, \
	 offsetof(struct nt_linux_opts, member), offsetof(struct nt_linux_opts, member##_count)},
#include "ifkeys.def"
#undef NT_LINUX_NAMES
	{NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, 0},
};

/* the word maps: their arguments, words and pairs, then the maps */
#define NT_IFWARG(member, arg, doc) \
	{#arg, offsetof(struct nt_##member, arg), offsetof(struct nt_##member, arg##_count)},
#define NT_IFWORD(member, word, bit) {word, bit},
#define NT_IFWPAIR(member, a, b, setting) {#a, #b, setting},
#define NT_IFKEY_WORDS(parent, member, rule, noun, doc, args, words, alone, alone_does, pairs, \
		       ...) \
	static const struct nt_word_arg member##_args[] = {args {NULL, 0, 0}}; \
	static const struct nt_word member##_wordbits[] = {words {NULL, 0}}; \
	static const struct nt_word_pair member##_pairs[] = {pairs {NULL, NULL, NULL}};
#include "ifkeys.def"
#undef NT_IFWARG
#undef NT_IFWORD
#undef NT_IFWPAIR
#undef NT_IFKEY_WORDS

const struct nt_word_map nt_word_maps[] = {
#define NT_IFKEY_WORDS(parent, member, rule, noun, doc, args, words, alone, alone_does, ...) \
	{#member, #parent "." #member, rule, noun, offsetof(struct nt_iface, parent), \
	 offsetof(struct nt_##parent, member), member##_args, member##_wordbits, alone, \
	 alone_does, member##_pairs},
#include "ifkeys.def"
#undef NT_IFKEY_WORDS
	{NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, NULL, NULL},
};

/* SARIF metadata of the rules the maps' names and words follow (rules.h) */
const struct nt_rule_doc nt_key_rule_docs[] = {
#define NT_LINUX_NAMES(member, rule, noun, entries, name_max, chars, said, brief, doc, \
		       rule_brief, rule_full, rule_help) \
	{rule, "nettune-profile(5)", rule_brief, rule_full, rule_help},
#define NT_IFKEY_WORDS(parent, member, rule, noun, doc, args, words, alone, alone_does, pairs, \
		       rule_brief, rule_full, rule_help) \
	{rule, "nettune-profile(5)", rule_brief, rule_full, rule_help},
#include "ifkeys.def"
#undef NT_LINUX_NAMES
#undef NT_IFKEY_WORDS
	{NULL, NULL, NULL, NULL, NULL},
};

const struct nt_word_map *nt_word_map_at(const char *path)
{
	const struct nt_word_map *m;

	for (m = nt_word_maps; path && m->key; m++)
		if (!strcmp(m->path, path))
			return m;
	return NULL;
}

const void *nt_word_map_of(const struct nt_word_map *m, const struct nt_iface *f)
{
	const char *parent = *(const char *const *)((const char *)f + m->parent_at);

	return parent ? *(const void *const *)(parent + m->member_at) : NULL;
}

const uint32_t *nt_word_map_arg(const struct nt_word_map *m, const void *s, size_t a,
				unsigned *n)
{
	const char *p = s;

	*n = *(const unsigned *)(p + m->args[a].count_at);
	return *(const uint32_t *const *)(p + m->args[a].at);
}

const char *nt_word_of(const struct nt_word_map *m, uint32_t bit)
{
	const struct nt_word *w;

	for (w = m->words; w->word; w++)
		if (w->bit == bit)
			return w->word;
	return NULL;
}

char *nt_words_format(const struct nt_word_map *m, uint32_t bits)
{
	struct nt_buf b = {0};
	const struct nt_word *w;
	uint32_t known = 0;

	for (w = m->words; w->word; w++) {
		known |= w->bit;
		if (bits & w->bit)
			nt_buf_printf(&b, "%s%s", b.n ? " " : "", w->word);
	}
	if (bits & ~known)	/* a bit newer than the table (RXH_GTP_TEID) */
		nt_buf_printf(&b, "%s0x%x", b.n ? " " : "", bits & ~known);
	return b.p ? nt_buf_take(&b) : nt_xstrdup("none");
}

bool nt_words_parse(const struct nt_word_map *m, const char *s, uint32_t *bits)
{
	const struct nt_word *w;

	*bits = 0;
	while (*s) {
		size_t n;

		while (*s == ' ')
			s++;
		n = strcspn(s, " ");
		if (!n)
			break;
		if (n == 4 && !strncmp(s, "none", 4)) {
			s += n;
			continue;
		}
		if (n > 2 && n <= 10 && !strncmp(s, "0x", 2) && strspn(s + 2, "0123456789abcdef") == n - 2) {
			/* a bit the map does not name, as nt_words_format wrote it */
			*bits |= (uint32_t)strtoul(s, NULL, 16);
			s += n;
			continue;
		}
		for (w = m->words; w->word; w++)
			if (strlen(w->word) == n && !strncmp(w->word, s, n))
				break;
		if (!w->word)
			return false;
		*bits |= w->bit;
		s += n;
	}
	return true;
}

const struct nt_name_map *nt_name_map_at(const char *path)
{
	const struct nt_name_map *m;

	for (m = nt_name_maps; path && m->key; m++)
		if (!strcmp(m->path, path))
			return m;
	return NULL;
}

enum nt_name_fault nt_name_map_check(const struct nt_name_map *m, const char *name)
{
	const char *c;

	if (strlen(name) > m->name_max)
		return NT_NAME_LONG;
	if (!*name)
		return NT_NAME_CHAR;
	for (c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr(m->chars, *c))
			return NT_NAME_CHAR;
	return NT_NAME_OK;
}
