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
