/* SPDX-License-Identifier: MIT */
/* Profile schema tables shared by the checker, the loader and jsonschema.c. */
#ifndef NT_SCHEMA_H
#define NT_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
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

/* A map of an argument to a list of words, each a bit of the setting
 * (NT_IFKEY_WORDS of ifkeys.def), and the rule its lists follow. */
struct nt_word {
	const char *word;	/* "src-ip" */
	uint32_t bit;
};
struct nt_word_arg {
	const char *arg;	/* "udp4" */
	size_t at, count_at;	/* offsets of its words and their count in the map's struct */
};
struct nt_word_pair {
	const char *a, *b;	/* two arguments that are one setting of the device */
	const char *setting;	/* its name: "AH_ESP_V4_FLOW" */
};
struct nt_word_map {
	const char *key;	/* "flow_hash" */
	const char *path;	/* its key under interfaces[]: "rss.flow_hash" */
	const char *rule;	/* the diagnostic rule of a bad list */
	const char *noun;	/* "field" */
	size_t parent_at, member_at;	/* offsets of struct nt_PARENT * in struct nt_iface
					 * and of the map's struct in it */
	const struct nt_word_arg *args;	/* end with arg NULL */
	const struct nt_word *words;	/* end with word NULL, in a value's order */
	uint32_t alone;			/* the bit of the word that stands alone */
	const char *alone_does;		/* "drops the flows" */
	const struct nt_word_pair *pairs;	/* end with a NULL */
};

extern const struct nt_word_map nt_word_maps[];	/* ends with key NULL */
/* The map whose key under interfaces[] is path ("rss.flow_hash"), or NULL. */
const struct nt_word_map *nt_word_map_at(const char *path);
struct nt_iface;
/* The map's struct of an interface (struct nt_MEMBER), or NULL. */
const void *nt_word_map_of(const struct nt_word_map *m, const struct nt_iface *f);
/* The words (bits) of argument a of that struct, and their count in *n;
 * NULL when the profile does not give it. */
const uint32_t *nt_word_map_arg(const struct nt_word_map *m, const void *s, size_t a,
				unsigned *n);
/* The word of a bit, or NULL. */
const char *nt_word_of(const struct nt_word_map *m, uint32_t bit);
/* bits as words in the map's order, space-separated, a bit it does not
 * name as 0x..., "none" for 0; malloc'd */
char *nt_words_format(const struct nt_word_map *m, uint32_t bits);
/* The reverse; false on a word the map does not have. */
bool nt_words_parse(const struct nt_word_map *m, const char *s, uint32_t *bits);

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
