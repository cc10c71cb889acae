/* SPDX-License-Identifier: MIT */
/*
 * Walks the libcyaml schema tables over the mark-carrying YAML tree.
 * libcyaml stops at the first problem and reports no position for unknown
 * keys, so every shape error is found here, all of them, each located.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/buf.h"
#include "check.h"
#include "schema.h"

struct ctx {
	struct nt_diags *d;
	size_t errors;
	/* where each error was found: nt_check_prune drops those nodes */
	struct nt_mark *bad;
	size_t nbad;
	/* the containers something was dropped from (nt_check_prune) */
	struct nt_mark *parents;
	size_t nparents;
	struct nt_buf hpb[2];	/* rendered paths, for messages only */
	int hpi;
};

/*
 * Where a value is ("interfaces[0].offloads.uso"), kept as a chain of
 * frames on the stack and rendered only for a message: building the text
 * for every value checked was a tenth of the time of validating a batch.
 */
enum hp_kind { HP_TOP, HP_KEY, HP_SAME, HP_IDX };

struct hp {
	const struct hp *up;
	enum hp_kind kind;
	const char *key;	/* HP_KEY */
	size_t idx;		/* HP_IDX */
};

static bool hp_top(const struct hp *h)
{
	while (h->kind == HP_SAME)
		h = h->up;
	return h->kind == HP_TOP;
}

static void hp_render(const struct hp *h, struct nt_buf *b)
{
	switch (h->kind) {
	case HP_TOP:
		nt_buf_puts(b, "(top level)");
		return;
	case HP_SAME:
		hp_render(h->up, b);
		return;
	case HP_KEY:
		if (!hp_top(h->up)) {
			hp_render(h->up, b);
			nt_buf_putc(b, '.');
		}
		nt_buf_puts(b, h->key);
		return;
	case HP_IDX:
		hp_render(h->up, b);
		nt_buf_printf(b, "[%zu]", h->idx);
		return;
	}
}

/* The text of h, valid until the next call but one. */
static const char *HP(struct ctx *c, const struct hp *h)
{
	struct nt_buf *b = &c->hpb[c->hpi++ & 1];

	b->n = 0;
	hp_render(h, b);
	return b->p;
}

static void note_bad(struct ctx *c, struct nt_mark m)
{
	c->bad = nt_xrealloc(c->bad, (c->nbad + 1) * sizeof(*c->bad));
	c->bad[c->nbad++] = m;
}

#define ERR(c, m, rule, ...) do { (c)->errors++; note_bad(c, m); \
	nt_error((c)->d, m, rule, __VA_ARGS__); } while (0)

bool nt_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"on", "true", "yes"};
	static const char *const no[] = {"off", "false", "no"};
	size_t i;

	_Static_assert(NT_ARRAY_SIZE(yes) == NT_ARRAY_SIZE(no), "yes[i] pairs with no[i]");
	for (i = 0; i < NT_ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return true;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return true;
		}
	}
	return false;
}

static bool is_null(const struct nt_ynode *n)
{
	return n->type == NT_Y_SCALAR && n->plain &&
	       (!*n->scalar || !strcmp(n->scalar, "~") || !strcasecmp(n->scalar, "null"));
}

static const char *type_word(const struct nt_ynode *n)
{
	if (n->type == NT_Y_MAP)
		return "a mapping";
	if (n->type == NT_Y_SEQ)
		return "a sequence";
	if (is_null(n))
		return "nothing";
	return n->plain ? "a scalar" : "a quoted string";
}

static bool parse_int(const char *s, bool is_signed, int64_t *out)
{
	char *end;

	if (!*s || (!is_signed && *s == '-'))
		return false;
	if (*s == '+' || (s[0] == '0' && s[1]))
		return false;
	errno = 0;
	if (is_signed) {
		long long v = strtoll(s, &end, 10);

		if (errno || *end)
			return false;
		*out = v;
	} else {
		unsigned long long v = strtoull(s, &end, 10);

		if (errno || *end || v > INT64_MAX)
			return false;
		*out = (int64_t)v;
	}
	return true;
}

static void check_value(struct ctx *c, struct nt_ynode *n, const cyaml_schema_value_t *v,
			const struct nt_field_rule *rule, const struct hp *h);

/* Whether path names an offloads mapping ("interfaces[0].offloads"). */
static bool is_offloads(const char *path)
{
	size_t n = strlen(path);

	return n >= 8 && !strcmp(path + n - 8, "offloads");
}

/* Offload names are a closed portable vocabulary; an ethtool name such as
 * tx-udp-segmentation is a common slip, so say where those go. */
static void unknown_offload(struct ctx *c, const struct nt_ynode *key,
			    const cyaml_schema_field_t *fields, const struct hp *h)
{
	struct nt_buf list = {0};
	const cyaml_schema_field_t *f;

	for (f = fields; f->key; f++)
		nt_buf_printf(&list, "%s%s", list.n ? ", " : "", f->key);
	ERR(c, key->mark, "unknown-key",
	    "unknown key '%s' in %s; offloads are %s; ethtool feature names go in linux.features",
	    key->scalar, HP(c, h), list.p);
	nt_buf_free(&list);
}

static void check_mapping(struct ctx *c, struct nt_ynode *n,
			  const cyaml_schema_field_t *fields, const struct hp *h)
{
	const cyaml_schema_field_t *f;
	bool top = h->kind == HP_TOP;
	size_t i;

	for (i = 0; i < n->n; i++) {
		const char *key = n->keys[i]->scalar;
		struct hp sub = {h, HP_KEY, key, 0};

		for (f = fields; f->key; f++)
			if (f->key[0] == key[0] && !strcmp(f->key, key))
				break;
		if (!f->key) {
			const char *cands[64];
			size_t nc = 0;
			const char *s;

			for (f = fields; f->key && nc < 64; f++)
				cands[nc++] = f->key;
			s = nt_suggest(key, cands, nc);
			if (s)
				ERR(c, n->keys[i]->mark, "unknown-key",
				    "unknown key '%s' %s%s; did you mean '%s'?", key,
				    top ? "at the " : "in ", top ? "top level" : HP(c, h), s);
			else if (is_offloads(HP(c, h)))
				unknown_offload(c, n->keys[i], fields, h);
			else
				ERR(c, n->keys[i]->mark, "unknown-key",
				    "unknown key '%s' %s%s", key, top ? "at the " : "in ",
				    top ? "top level" : HP(c, h));
			continue;
		}
		if (fields == nt_toggle_fields && !strcmp(key, "all"))
			sub.kind = HP_SAME;	/* the "uso: on" shorthand */
		check_value(c, n->vals[i], &f->value, nt_field_rule(fields, key), &sub);
	}
	for (f = fields; f->key; f++) {
		if (f->value.flags & CYAML_FLAG_OPTIONAL)
			continue;
		if (!nt_ymap_get(n, f->key, NULL) && top)
			ERR(c, n->mark, "missing-key", "missing required key '%s' at the top level",
			    f->key);
		else if (!nt_ymap_get(n, f->key, NULL))
			ERR(c, n->mark, "missing-key", "%s: missing required key '%s'",
			    HP(c, h), f->key);
	}
}

/* A free-form map whose values are scalars ("sysctl", "features"). */
static void check_kv(struct ctx *c, struct nt_ynode *n, bool boolean, const struct hp *h)
{
	size_t i;

	if (n->type != NT_Y_MAP) {
		ERR(c, n->mark, "type", "%s must be a mapping of names to values, not %s",
		    HP(c, h), type_word(n));
		return;
	}
	for (i = 0; i < n->n; i++) {
		struct nt_ynode *val = n->vals[i];
		size_t kl = strlen(n->keys[i]->scalar);
		bool b;

		/* typed.c load_kv: keys of 1..255 bytes */
		if (kl < 1 || kl > 255) {
			ERR(c, n->keys[i]->mark, "range", "%s: a name %s", HP(c, h),
			    kl ? "is longer than 255 bytes" : "is empty");
			continue;
		}
		if (val->type != NT_Y_SCALAR || is_null(val)) {
			ERR(c, val->mark, "type", "%s.%s must be a scalar value, not %s",
			    HP(c, h), n->keys[i]->scalar, type_word(val));
			continue;
		}
		if (!boolean)
			continue;
		if (!val->plain || !nt_parse_bool(val->scalar, &b)) {
			ERR(c, val->mark, "type", "%s.%s must be on or off, not '%s'",
			    HP(c, h), n->keys[i]->scalar, val->scalar);
			continue;
		}
		nt_yset_scalar(val, b ? "true" : "false");
	}
}

static void check_map_value(struct ctx *c, struct nt_ynode *n, const cyaml_schema_value_t *v,
			    const struct hp *h)
{
	if (v->mapping.fields == nt_toggle_fields && n->type == NT_Y_SCALAR &&
	    !is_null(n)) {
		/* "uso: on" is shorthand for "uso: {all: on}" */
		struct nt_ynode *val = nt_ynew_scalar(n->scalar, n->plain, n->mark);
		struct nt_ynode *key = nt_ynew_scalar("all", true, n->mark);

		nt_yset_scalar(n, NULL);
		n->type = NT_Y_MAP;
		nt_ymap_set(n, key, val);
	}
	if (n->type != NT_Y_MAP) {
		if (v->mapping.fields == nt_toggle_fields)
			ERR(c, n->mark, "type",
			    "%s must be on, off or a mapping {ipv4: on|off, ipv6: on|off}, not %s",
			    HP(c, h), type_word(n));
		else
			ERR(c, n->mark, "type", "%s must be a mapping, not %s", HP(c, h),
			    type_word(n));
		return;
	}
	check_mapping(c, n, v->mapping.fields, h);
}

static void check_seq_value(struct ctx *c, struct nt_ynode *n, const cyaml_schema_value_t *v,
			    const struct nt_field_rule *rule, const struct hp *h)
{
	size_t i;

	if (n->type != NT_Y_SEQ) {
		if (v->sequence.entry->type == CYAML_MAPPING &&
		    (v->sequence.entry == &nt_kv_entry ||
		     v->sequence.entry == &nt_kv_bool_entry)) {
			/* libcyaml would refuse it later, without a position */
			if (n->type == NT_Y_MAP && n->n > v->sequence.max)
				ERR(c, n->mark, "range", "%s allows at most %u entries, has %zu",
				    HP(c, h), v->sequence.max, n->n);
			check_kv(c, n, v->sequence.entry == &nt_kv_bool_entry, h);
			return;
		}
		ERR(c, n->mark, "type", "%s must be a sequence, not %s", HP(c, h), type_word(n));
		return;
	}
	if (n->n < v->sequence.min)
		ERR(c, n->mark, "range", "%s needs at least %u entries, has %zu",
		    HP(c, h), v->sequence.min, n->n);
	if (n->n > v->sequence.max)
		ERR(c, n->mark, "range", "%s allows at most %u entries, has %zu",
		    HP(c, h), v->sequence.max, n->n);
	for (i = 0; i < n->n; i++) {
		struct hp sub = {h, HP_IDX, NULL, i};

		check_value(c, n->vals[i], v->sequence.entry, rule, &sub);
	}
}

static void check_int(struct ctx *c, struct nt_ynode *n, const cyaml_schema_value_t *v,
		      const struct nt_field_rule *rule, const struct hp *h)
{
	int64_t x, min = v->type == CYAML_UINT ? 0 : INT32_MIN;
	int64_t max = v->type == CYAML_UINT ? UINT32_MAX : INT32_MAX;

	if (rule && rule->max) {
		min = rule->min;
		max = rule->max;
	}
	if (!n->plain || !parse_int(n->scalar, v->type == CYAML_INT, &x)) {
		ERR(c, n->mark, "type", "%s must be a%s integer, not %s'%s'", HP(c, h),
		    v->type == CYAML_UINT ? " non-negative" : "n",
		    n->plain ? "" : "the quoted string ", n->scalar);
		return;
	}
	if (x < min || x > max)
		ERR(c, n->mark, "range", "%s = %" PRId64 " is out of range %" PRId64
		    "..%" PRId64, HP(c, h), x, min, max);
	else if (rule && rule->step && x % rule->step)
		ERR(c, n->mark, "range", "%s = %" PRId64 " is not a multiple of %" PRId64,
		    HP(c, h), x, rule->step);
}

/* on/off, normalised in place to true/false. */
static void check_bool(struct ctx *c, struct nt_ynode *n, const struct hp *h)
{
	bool b;

	if (!n->plain || !nt_parse_bool(n->scalar, &b)) {
		ERR(c, n->mark, "type", "%s must be on or off, not %s'%s'", HP(c, h),
		    n->plain ? "" : "the quoted string ", n->scalar);
		return;
	}
	nt_yset_scalar(n, b ? "true" : "false");
}

static void check_enum(struct ctx *c, struct nt_ynode *n, const cyaml_schema_value_t *v,
		       const struct hp *h)
{
	const char *cands[32];
	struct nt_buf list = {0};
	const char *s;
	size_t i;

	for (i = 0; i < v->enumeration.count && i < 32; i++)
		if (!strcmp(v->enumeration.strings[i].str, n->scalar))
			return;
	for (i = 0; i < v->enumeration.count && i < 32; i++) {
		cands[i] = v->enumeration.strings[i].str;
		nt_buf_printf(&list, "%s%s", i ? ", " : "", cands[i]);
	}
	s = nt_suggest(n->scalar, cands, i);
	if (s)
		ERR(c, n->mark, "enum", "%s: unknown value '%s'; did you mean '%s'? (one of %s)",
		    HP(c, h), n->scalar, s, list.p);
	else
		ERR(c, n->mark, "enum", "%s: unknown value '%s'; expected one of %s",
		    HP(c, h), n->scalar, list.p);
	nt_buf_free(&list);
}

static void check_string(struct ctx *c, struct nt_ynode *n, const cyaml_schema_value_t *v,
			 const struct hp *h)
{
	size_t len = strlen(n->scalar);

	if (len < v->string.min)
		ERR(c, n->mark, "range", "%s must not be empty", HP(c, h));
	else if (len > v->string.max)
		ERR(c, n->mark, "range", "%s is %zu bytes long; at most %u allowed",
		    HP(c, h), len, v->string.max);
}

static void check_value(struct ctx *c, struct nt_ynode *n, const cyaml_schema_value_t *v,
			const struct nt_field_rule *rule, const struct hp *h)
{
	if (v == &nt_kv_entry || v == &nt_kv_bool_entry) {
		check_kv(c, n, v == &nt_kv_bool_entry, h);
		return;
	}
	if (v->type == CYAML_MAPPING) {
		check_map_value(c, n, v, h);
		return;
	}
	if (v->type == CYAML_SEQUENCE) {
		check_seq_value(c, n, v, rule, h);
		return;
	}
	if (n->type != NT_Y_SCALAR || is_null(n)) {
		ERR(c, n->mark, "type", "%s must be a single value, not %s", HP(c, h), type_word(n));
		return;
	}
	switch (v->type) {
	case CYAML_INT:
	case CYAML_UINT:
		check_int(c, n, v, rule, h);
		return;
	case CYAML_BOOL:
		check_bool(c, n, h);
		return;
	case CYAML_ENUM:
		check_enum(c, n, v, h);
		return;
	case CYAML_STRING:
		check_string(c, n, v, h);
		return;
	default:
		ERR(c, n->mark, "internal", "%s: unsupported schema type", HP(c, h));
		return;
	}
}

int nt_mark_cmp(const void *a, const void *b)
{
	const struct nt_mark *x = a, *y = b;

	if (x->file != y->file)
		return (uintptr_t)x->file < (uintptr_t)y->file ? -1 : 1;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->col < y->col ? -1 : x->col > y->col;
}

/* c->bad is sorted: O(log n) per node, so 100,000 errors stay linear-ish */
static bool is_bad(const struct ctx *c, const struct nt_ynode *n)
{
	return bsearch(&n->mark, c->bad, c->nbad, sizeof(*c->bad), nt_mark_cmp) != NULL;
}

/* Drops every map entry and sequence item an error was reported at, so
 * that what is left is typed and the later checks can still run on it. */
static void prune(struct ctx *c, struct nt_ynode *n)
{
	size_t i, k = 0;

	if (n->type != NT_Y_MAP && n->type != NT_Y_SEQ)
		return;
	for (i = 0; i < n->n; i++) {
		bool drop = is_bad(c, n->vals[i]) || (n->type == NT_Y_MAP && is_bad(c, n->keys[i]));

		if (drop) {
			if (n->type == NT_Y_MAP)
				nt_yfree(n->keys[i]);
			nt_yfree(n->vals[i]);
			continue;
		}
		prune(c, n->vals[i]);
		if (n->type == NT_Y_MAP)
			n->keys[k] = n->keys[i];
		n->vals[k++] = n->vals[i];
	}
	if (k != n->n) {
		c->parents = nt_xrealloc(c->parents, (c->nparents + 1) * sizeof(*c->parents));
		c->parents[c->nparents++] = n->mark;
		n->n = k;
		if (n->index)
			nt_strindex_reset(n->index);	/* positions moved */
	}
}

static size_t check(struct nt_ynode *node, const cyaml_schema_value_t *v, struct nt_diags *d,
		    bool pruning, struct nt_mark **parents, size_t *nparents)
{
	struct ctx c = {d, 0, NULL, 0, NULL, 0, {{0}}, 0};
	struct hp top = {NULL, HP_TOP, NULL, 0};

	if (node->type != NT_Y_MAP) {
		ERR(&c, node->mark, "type", "a profile must be a mapping with apiVersion and kind, not %s",
		    type_word(node));
	} else if (!nt_ymap_get(node, "apiVersion", NULL) && !nt_ymap_get(node, "kind", NULL)) {
		/* Some other file (/etc/shadow parses as a mapping of its
		 * lines): its keys are its contents, and the messages below
		 * quote keys.  Nothing of it is quoted, here or in the
		 * Ansible module's result sent to the controller. */
		ERR(&c, node->mark, "type", "not a nettune profile: no apiVersion or kind at the top "
		    "level (the file's contents are not quoted)");
	} else {
		check_mapping(&c, node, v->mapping.fields, &top);
		if (pruning && c.errors) {
			qsort(c.bad, c.nbad, sizeof(*c.bad), nt_mark_cmp);
			prune(&c, node);
		}
	}
	free(c.bad);
	nt_buf_free(&c.hpb[0]);
	nt_buf_free(&c.hpb[1]);
	if (parents) {
		*parents = c.parents;
		*nparents = c.nparents;
	} else {
		free(c.parents);
	}
	return c.errors;
}

size_t nt_check(struct nt_ynode *node, const cyaml_schema_value_t *v, struct nt_diags *d)
{
	return check(node, v, d, false, NULL, NULL);
}

size_t nt_check_prune(struct nt_ynode *node, const cyaml_schema_value_t *v, struct nt_diags *d,
		      struct nt_mark **parents, size_t *nparents)
{
	return check(node, v, d, true, parents, nparents);
}

void nt_check_lower_kv(struct nt_ynode *n, const cyaml_schema_value_t *v)
{
	const cyaml_schema_field_t *f;
	size_t i;

	switch (v->type) {
	case CYAML_MAPPING:
		if (n->type != NT_Y_MAP)
			return;
		for (i = 0; i < n->n; i++)
			for (f = v->mapping.fields; f->key; f++)
				if (!strcmp(f->key, n->keys[i]->scalar))
					nt_check_lower_kv(n->vals[i], &f->value);
		return;
	case CYAML_SEQUENCE:
		if (v->sequence.entry == &nt_kv_entry || v->sequence.entry == &nt_kv_bool_entry) {
			struct nt_ynode **keys = n->keys, **vals = n->vals;
			size_t cnt = n->n, cap = n->cap;

			if (n->type != NT_Y_MAP)
				return;
			n->type = NT_Y_SEQ;
			n->keys = NULL;
			n->vals = NULL;
			n->n = n->cap = 0;
			for (i = 0; i < cnt; i++) {
				struct nt_ynode *e = nt_ynew(NT_Y_MAP, keys[i]->mark);

				nt_ymap_set(e, nt_ynew_scalar("key", true, keys[i]->mark), keys[i]);
				vals[i]->plain = false;	/* always a string for libcyaml */
				nt_ymap_set(e, nt_ynew_scalar("value", true, vals[i]->mark), vals[i]);
				nt_yseq_push(n, e);
			}
			nt_yarr_free(keys, cap);
			nt_yarr_free(vals, cap);
			return;
		}
		if (n->type != NT_Y_SEQ)
			return;
		for (i = 0; i < n->n; i++)
			nt_check_lower_kv(n->vals[i], v->sequence.entry);
		return;
	default:
		return;
	}
}
