/* SPDX-License-Identifier: MIT */
/* Generates schema/nettune.schema.json from the libcyaml tables. */
#include <inttypes.h>
#include <string.h>

#include "../base/diag.h"
#include "../language/profile.h"
#include "../language/schema.h"
#include "caps.h"
#include "jsonschema.h"

/*
 * What check.c's nt_parse_bool accepts, case-insensitively: a YAML 1.1
 * reader turns these into booleans, a YAML 1.2 reader (yaml-language-server's
 * default) leaves on/off/yes/no as strings, so the schema takes both.
 */
#define ONOFF_ALTS "{\"type\": \"boolean\"}, {\"type\": \"string\", \"pattern\": " \
	"\"^([Oo][Nn]|[Oo][Ff][Ff]|[Yy][Ee][Ss]|[Nn][Oo]|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$\"}"
#define ONOFF_ANYOF "\"anyOf\": [" ONOFF_ALTS "]"
#define ONOFF "{" ONOFF_ANYOF "}"

struct gen {
	struct nt_buf *b;
	const struct nt_capsdb *caps;	/* built-in tables, for the nic enum */
};

static void indent(struct nt_buf *b, int d)
{
	nt_buf_putc(b, '\n');
	while (d-- > 0)
		nt_buf_puts(b, "  ");
}

/* Opens a schema object, with its description first when there is one. */
static void open_obj(struct nt_buf *b, const char *doc)
{
	nt_buf_putc(b, '{');
	if (doc) {
		nt_buf_puts(b, "\"description\": ");
		nt_buf_json_str(b, doc);
		nt_buf_puts(b, ", ");
	}
}

static void value(struct gen *g, const cyaml_schema_value_t *v, const cyaml_schema_field_t *fields,
		  const char *key, bool described, int d, bool need_name);

static bool has_key(const cyaml_schema_field_t *fields, const char *key)
{
	for (; fields->key; fields++)
		if (!strcmp(fields->key, key))
			return true;
	return false;
}

static void mapping(struct gen *g, const cyaml_schema_field_t *fields, const char *doc, int d,
		    bool need_name)
{
	struct nt_buf *b = g->b;
	const cyaml_schema_field_t *f;
	bool first = true;

	nt_buf_puts(b, "{");
	if (doc) {
		indent(b, d + 1);
		nt_buf_puts(b, "\"description\": ");
		nt_buf_json_str(b, doc);
		nt_buf_puts(b, ",");
	}
	indent(b, d + 1);
	nt_buf_puts(b, "\"type\": \"object\",");
	indent(b, d + 1);
	nt_buf_puts(b, "\"additionalProperties\": false,");
	indent(b, d + 1);
	nt_buf_puts(b, "\"properties\": {");
	for (f = fields; f->key; f++) {
		nt_buf_puts(b, first ? "" : ",");
		first = false;
		indent(b, d + 2);
		nt_buf_json_str(b, f->key);
		nt_buf_puts(b, ": ");
		value(g, &f->value, fields, f->key, true, d + 2, !strcmp(f->key, "interfaces"));
	}
	indent(b, d + 1);
	nt_buf_puts(b, "}");
	if (has_key(fields, "esp4") && has_key(fields, "esp6")) {
		/* validate.c check_rows: ah4/esp4 (ah6/esp6) are one device setting */
		nt_buf_puts(b, ",");
		indent(b, d + 1);
		nt_buf_puts(b, "\"not\": {\"description\": \"ah4 with esp4, or ah6 with esp6: "
			    "one setting of the device each\", \"anyOf\": ["
			    "{\"properties\": {\"ah4\": {\"description\": \"given\"}, "
			    "\"esp4\": {\"description\": \"given\"}}, "
			    "\"required\": [\"ah4\", \"esp4\"]}, "
			    "{\"properties\": {\"ah6\": {\"description\": \"given\"}, "
			    "\"esp6\": {\"description\": \"given\"}}, "
			    "\"required\": [\"ah6\", \"esp6\"]}]}");
	}
	first = true;
	for (f = fields; f->key; f++) {
		if ((f->value.flags & CYAML_FLAG_OPTIONAL) && !(need_name && !strcmp(f->key, "name")))
			continue;
		nt_buf_puts(b, first ? ",\n" : ", ");
		if (first) {
			for (int k = 0; k < d + 1; k++)
				nt_buf_puts(b, "  ");
			nt_buf_puts(b, "\"required\": [");
		}
		first = false;
		nt_buf_json_str(b, f->key);
	}
	if (!first)
		nt_buf_puts(b, "]");
	indent(b, d);
	nt_buf_puts(b, "}");
}

/* Whether an offload key takes {ipv4, ipv6} halves (offloads.def); the
 * loader refuses them for the others (validate.c), so does the schema. */
static bool per_family(const char *key)
{
#define NT_OFFLOAD(k, cap, where, pf, ...) \
	if (key && !strcmp(key, #k)) \
		return pf;
#include "offloads.def"
#undef NT_OFFLOAD
	return true;
}

/* "uso: on" or "uso: {all: on, ipv4: off, ipv6: on}"; "sg: {all: on}" */
static void toggle(struct gen *g, const char *doc, const char *key)
{
	const cyaml_schema_field_t *f;
	bool pf = per_family(key);

	open_obj(g->b, doc);
	nt_buf_puts(g->b, "\"anyOf\": [" ONOFF_ALTS ", {\"type\": \"object\", "
		    "\"additionalProperties\": false, \"minProperties\": 1, \"properties\": {");
	for (f = nt_toggle_fields; f->key; f++) {
		if (!pf && strcmp(f->key, "all"))
			continue;
		nt_buf_puts(g->b, f == nt_toggle_fields ? "" : ", ");
		nt_buf_json_str(g->b, f->key);
		nt_buf_puts(g->b, ": ");
		open_obj(g->b, nt_key_doc(nt_toggle_fields, f->key));
		nt_buf_puts(g->b, ONOFF_ANYOF "}");
	}
	nt_buf_puts(g->b, "}}]}");
}

static void nic_enum(struct gen *g, const char *doc)
{
	size_t i;

	open_obj(g->b, doc);
	nt_buf_puts(g->b, "\"enum\": [\"auto\"");
	for (i = 0; g->caps && i < g->caps->n; i++) {
		nt_buf_puts(g->b, ", ");
		nt_buf_json_str(g->b, g->caps->v[i].id);
	}
	nt_buf_puts(g->b, "]}");
}

/* The map of driver-given names that key is (schema.h), or NULL. */
static const struct nt_name_map *name_map(const char *key)
{
	const struct nt_name_map *m;

	for (m = nt_name_maps; key && m->key; m++)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

/* The schema of value v of key in fields (both NULL for a free-standing
 * value); described: whether it carries the key's description. */
static void value(struct gen *g, const cyaml_schema_value_t *v, const cyaml_schema_field_t *fields,
		  const char *key, bool described, int d, bool need_name)
{
	const struct nt_field_rule *rule = fields ? nt_field_rule(fields, key) : NULL;
	const char *doc = fields && described ? nt_key_doc(fields, key) : NULL;
	const struct nt_name_map *m;
	struct nt_buf *b = g->b;
	uint32_t i;

	switch (v->type) {
	case CYAML_MAPPING:
		if (v->mapping.fields == nt_toggle_fields) {
			toggle(g, doc, key);
			return;
		}
		mapping(g, v->mapping.fields, doc, d, need_name);
		return;
	case CYAML_SEQUENCE:
		open_obj(b, doc);
		if (v->sequence.entry == &nt_kv_entry || v->sequence.entry == &nt_kv_bool_entry) {
			/* a YAML map in the profile, a {key, value} list for libcyaml */
			nt_buf_printf(b, "\"type\": \"object\", \"maxProperties\": %u, ",
				      v->sequence.max);
			if ((m = name_map(key)))	/* as validate.c checks them */
				nt_buf_printf(b, "\"propertyNames\": {\"pattern\": "
					      "\"^[A-Za-z0-9%s]{1,%u}$\"}, ", m->chars, m->name_max);
			nt_buf_printf(b, "\"additionalProperties\": %s}",
				      v->sequence.entry == &nt_kv_bool_entry ? ONOFF :
				      "{\"type\": [\"string\", \"number\", \"boolean\"]}");
			return;
		}
		/* a list of enum values (rss.flow_hash) names each at most once */
		nt_buf_printf(b, "\"type\": \"array\", \"minItems\": %u, \"maxItems\": %u, %s",
			      v->sequence.min, v->sequence.max,
			      v->sequence.entry->type == CYAML_ENUM ? "\"uniqueItems\": true, " : "");
		for (i = 0; v->sequence.entry->type == CYAML_ENUM &&
			    i < v->sequence.entry->enumeration.count; i++)
			if (!strcmp(v->sequence.entry->enumeration.strings[i].str, "discard"))
				/* validate.c check_rows: discard comes alone */
				nt_buf_puts(b, "\"if\": {\"contains\": {\"const\": \"discard\"}}, "
					    "\"then\": {\"maxItems\": 1}, ");
		nt_buf_puts(b, "\"items\": ");
		/* the entries share the sequence's value rule, not its description */
		value(g, v->sequence.entry, fields, key, false, d, need_name);
		nt_buf_puts(b, "}");
		return;
	default:
		break;
	}
	if (fields == nt_iface_fields && !strcmp(key, "nic")) {
		nic_enum(g, doc);
		return;
	}
	if (fields == nt_profile_schema.mapping.fields && !strcmp(key, "apiVersion")) {
		/* validate.c refuses every other apiVersion */
		open_obj(b, doc);
		nt_buf_puts(b, "\"enum\": [\"nettune/v1\"]}");
		return;
	}
	open_obj(b, doc);
	switch (v->type) {
	case CYAML_UINT:
	case CYAML_INT: {
		int64_t min = v->type == CYAML_UINT ? 0 : INT32_MIN;
		int64_t max = v->type == CYAML_UINT ? UINT32_MAX : INT32_MAX;

		if (rule && rule->max) {
			min = rule->min;
			max = rule->max;
		}
		nt_buf_printf(b, "\"type\": \"integer\", \"minimum\": %" PRId64 ", \"maximum\": %"
			      PRId64, min, max);
		if (rule && rule->step)
			nt_buf_printf(b, ", \"multipleOf\": %" PRId64, rule->step);
		nt_buf_puts(b, "}");
		return;
	}
	case CYAML_BOOL:
		nt_buf_puts(b, ONOFF_ANYOF "}");
		return;
	case CYAML_ENUM:
		nt_buf_puts(b, "\"enum\": [");
		for (i = 0; i < v->enumeration.count; i++) {
			nt_buf_puts(b, i ? ", " : "");
			nt_buf_json_str(b, v->enumeration.strings[i].str);
		}
		nt_buf_puts(b, "]}");
		return;
	case CYAML_STRING:
		if (rule && rule->cls == NT_CLASS_CPULIST)
			nt_buf_printf(b, "\"anyOf\": [{\"type\": \"string\", \"minLength\": 1, "
				      "\"maxLength\": %u}, {\"type\": \"integer\", \"minimum\": 0}]}",
				      v->string.max);
		else	/* "name: 10", "description: yes": the loader reads any scalar */
			nt_buf_printf(b, "\"anyOf\": [{\"type\": \"string\", \"minLength\": %u, "
				      "\"maxLength\": %u}, {\"type\": [\"number\", \"boolean\"]}]}",
				      v->string.min, v->string.max);
		return;
	default:
		nt_buf_puts(b, "}");
		return;
	}
}

void nt_jsonschema(struct nt_buf *out)
{
	struct nt_capsdb caps;
	struct nt_diags d = {0};
	struct gen g = {out, &caps};

	/* the built-in tables are checked at build time; a failure leaves
	 * the enum with "auto" and whatever loaded */
	nt_capsdb_load_builtin(&caps, &d);
	nt_diags_free(&d);
	nt_buf_puts(out, "{\n  \"$schema\": \"http://json-schema.org/draft-07/schema#\",\n"
		    "  \"title\": \"nettune host or policy profile (apiVersion nettune/v1)\",\n"
		    "  \"description\": \"Generated by 'nettune schema' from the loader's tables; "
		    "do not edit by hand. Keys are documented in nettune-profile(5).\",\n"
		    "  \"allOf\": [");
	mapping(&g, nt_profile_schema.mapping.fields, NULL, 2, false);
	/* validate.c: a HostProfile names its host and target (extends only
	 * takes PolicyProfiles, so they cannot come from elsewhere); a
	 * PolicyProfile sets neither target nor host */
	nt_buf_puts(out, ",\n    {\n"
		    "      \"type\": \"object\",\n"
		    "      \"if\": {\"properties\": {\"kind\": {\"description\": \"A HostProfile ...\", "
		    "\"const\": \"HostProfile\"}}, \"required\": [\"kind\"]},\n"
		    "      \"then\": {\"properties\": {\n"
		    "        \"metadata\": {\"description\": \"... needs metadata.name.\", "
		    "\"type\": \"object\", \"properties\": {\"name\": {\"description\": "
		    "\"The host name.\"}}, \"required\": [\"name\"]},\n"
		    "        \"target\": {\"description\": \"... needs a target.\"}},\n"
		    "        \"required\": [\"metadata\", \"target\"]},\n"
		    "      \"else\": {\"properties\": {\n"
		    "        \"target\": {\"description\": \"A PolicyProfile cannot set target: "
		    "the host profile that extends it names its target.\", \"not\": {}},\n"
		    "        \"host\": {\"description\": \"A PolicyProfile cannot set host: the NUMA "
		    "layout and reserved CPUs belong to one host's profile.\", \"not\": {}}}}\n"
		    "    }");
	/* load.c apply_defaults: defaults go beneath every interface of their
	 * kind, so they name none and make none a tunnel */
	nt_buf_puts(out, ",\n    {\n"
		    "      \"type\": \"object\",\n"
		    "      \"properties\": {\"defaults\": {\"description\": \"Defaults go beneath "
		    "every interface of their kind: they name none and make none a tunnel.\", "
		    "\"type\": \"object\", \"properties\": {\n"
		    "        \"physical\": {\"description\": \"... without name or tunnel.\", "
		    "\"type\": \"object\", "
		    "\"propertyNames\": {\"not\": {\"enum\": [\"name\", \"tunnel\"]}}},\n"
		    "        \"tunnel\": {\"description\": \"... without name or tunnel.\", "
		    "\"type\": \"object\", "
		    "\"propertyNames\": {\"not\": {\"enum\": [\"name\", \"tunnel\"]}}}}}}\n"
		    "    }");
	nt_buf_puts(out, "]\n}\n");
	nt_capsdb_free(&caps);
}
