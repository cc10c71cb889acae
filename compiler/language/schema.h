/* SPDX-License-Identifier: MIT */
/* Profile schema tables shared by the checker, the loader and jsonschema.c. */
#ifndef NT_SCHEMA_H
#define NT_SCHEMA_H

#include <stdint.h>
#include <string.h>
#include <cyaml/cyaml.h>

enum nt_value_class {
	NT_CLASS_NONE,
	NT_CLASS_CPULIST,	/* a CPU list; plain integers are accepted too */
};

struct nt_field_rule {
	const cyaml_schema_field_t *fields;
	const char *key;
	enum nt_value_class cls;
	int64_t min, max;	/* numeric range when max > min or max != 0 */
	int64_t step;		/* and a multiple of this when not 0 */
};

extern const struct nt_field_rule nt_field_rules[];
const struct nt_field_rule *nt_field_rule(const cyaml_schema_field_t *fields, const char *key);

/* A key's one-line documentation (the JSON Schema "description"). */
struct nt_key_doc {
	const cyaml_schema_field_t *fields;
	const char *key;
	const char *doc;
};

extern const struct nt_key_doc nt_key_docs[];
const char *nt_key_doc(const cyaml_schema_field_t *fields, const char *key);

/* A map under linux: of names a driver gives (NT_LINUX_NAMES of
 * ifkeys.def), and the rule its names follow. */
struct nt_name_map {
	const char *key;	/* "private_flags" */
	const char *path;	/* its key under interfaces[]: "linux.private_flags" */
	const char *rule;	/* the diagnostic rule of a bad name */
	const char *noun;	/* "private flag" */
	unsigned name_max;	/* bytes */
	const char *chars;	/* allowed besides letters and digits */
	const char *said;	/* chars, in words */
	size_t at, count_at;	/* offsets of the entries and their count in struct nt_linux_opts */
};

extern const struct nt_name_map nt_name_maps[];	/* ends with key NULL */
/* The map whose key under interfaces[] is path ("linux.private_flags"), or NULL. */
const struct nt_name_map *nt_name_map_at(const char *path);
enum nt_name_fault { NT_NAME_OK, NT_NAME_LONG, NT_NAME_CHAR };
/* Whether name is one the map's drivers could give: longer than name_max
 * bytes, or empty or with a character other than a letter, digit or chars. */
enum nt_name_fault nt_name_map_check(const struct nt_name_map *m, const char *name);

extern const cyaml_schema_field_t nt_toggle_fields[];
extern const cyaml_schema_field_t nt_iface_fields[];
extern const cyaml_schema_value_t nt_kv_entry;
extern const cyaml_schema_value_t nt_kv_bool_entry;
extern const cyaml_strval_t nt_irq_policy_strings[];
extern const cyaml_strval_t nt_irqbalance_strings[];
extern const cyaml_strval_t nt_hash_strings[];
extern const cyaml_strval_t nt_rss_profile_strings[];
extern const cyaml_strval_t nt_outer_strings[];
/* The profile spellings of tunnel kinds and ESP ciphers; tests check them
 * against the overhead table (tunnel.c). */
extern const cyaml_strval_t nt_tunnel_kind_strings[];
extern const size_t nt_tunnel_kind_nstrings;
extern const cyaml_strval_t nt_esp_cipher_strings[];
extern const size_t nt_esp_cipher_nstrings;

#endif
