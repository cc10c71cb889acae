/* SPDX-License-Identifier: MIT */
/*
 * The typed profile built straight from the checked, merged YAML tree by
 * walking the libcyaml schema tables, so that a profile is parsed once
 * (libyaml) instead of being re-emitted as YAML for libcyaml to parse
 * again.  The memory layout is libcyaml's: cyaml_free() frees it, and
 * tests/fuzzing compare it with what cyaml_load_data() makes of the
 * re-emitted tree (nt_typed_load_cyaml) field by field.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/buf.h"
#include "check.h"
#include "profile.h"
#include "schema.h"
#include "typed.h"

struct tl {
	const struct nt_ynode *bad;	/* where loading stopped */
	const char *why;
};

static int fail(struct tl *t, const struct nt_ynode *n, const char *why)
{
	t->bad = n;
	t->why = why;
	return -1;
}

static void put_uint(uint8_t *p, size_t size, uint64_t v)
{
	switch (size) {
	case 1: { uint8_t x = (uint8_t)v; memcpy(p, &x, 1); break; }
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

static uint64_t get_uint(const uint8_t *p, size_t size)
{
	uint8_t a;
	uint16_t b;
	uint32_t c;
	uint64_t d;

	switch (size) {
	case 1: memcpy(&a, p, 1); return a;
	case 2: memcpy(&b, p, 2); return b;
	case 4: memcpy(&c, p, 4); return c;
	default: memcpy(&d, p, 8); return d;
	}
}

static bool is_scalar(const struct nt_ynode *n)
{
	return n->type == NT_Y_SCALAR;
}

static int load_at(struct tl *t, const struct nt_ynode *n, const cyaml_schema_value_t *v,
		   uint8_t *slot, uint8_t *count, size_t count_size);

/* libcyaml's scalar rules: integers in base 0 within the field's size,
 * booleans false for false/no/off/disable/0 and true otherwise, enums by
 * their exact string. */
static int fill_scalar(struct tl *t, const struct nt_ynode *n, const cyaml_schema_value_t *v,
		       uint8_t *data)
{
	const char *s = n->scalar;
	char *end;
	uint32_t i;

	if (!is_scalar(n))
		return fail(t, n, "a single value is expected here");
	switch (v->type) {
	case CYAML_INT: {
		long long x;
		long long max = v->data_size >= 8 ? INT64_MAX :
				(long long)((1ull << (v->data_size * 8 - 1)) - 1);

		errno = 0;
		x = strtoll(s, &end, 0);
		if (!*s || *end || errno || x > max || x < -max - 1)
			return fail(t, n, "not an integer of the field's size");
		put_uint(data, v->data_size, (uint64_t)x);
		return 0;
	}
	case CYAML_UINT: {
		unsigned long long x;
		unsigned long long max = v->data_size >= 8 ? UINT64_MAX :
					 (1ull << (v->data_size * 8)) - 1;

		errno = 0;
		x = strtoull(s, &end, 0);
		if (!*s || *s == '-' || *end || errno || x > max)
			return fail(t, n, "not a non-negative integer of the field's size");
		put_uint(data, v->data_size, x);
		return 0;
	}
	case CYAML_BOOL: {
		static const char *const no[] = {"false", "no", "off", "disable", "0"};
		bool b = true;

		for (i = 0; i < (uint32_t)NT_ARRAY_SIZE(no); i++)
			if (!strcasecmp(s, no[i]))
				b = false;
		put_uint(data, v->data_size, b);
		return 0;
	}
	case CYAML_ENUM:
		for (i = 0; i < v->enumeration.count; i++)
			if (!strcmp(v->enumeration.strings[i].str, s)) {
				put_uint(data, v->data_size,
					 (uint64_t)(int64_t)v->enumeration.strings[i].val);
				return 0;
			}
		return fail(t, n, "not one of the field's values");
	default:
		return fail(t, n, "unsupported schema type");
	}
}

/* A free-form YAML map ("sysctl", "linux.features") into {key, value}
 * entries: what nt_check_lower_kv() did before libcyaml loaded it. */
static int load_kv(struct tl *t, const struct nt_ynode *n, const cyaml_schema_value_t *v,
		   uint8_t *slot, uint8_t *count, size_t count_size)
{
	struct nt_kv *kv = NULL;
	size_t i;

	if (n->n < v->sequence.min || n->n > v->sequence.max)
		return fail(t, n, "wrong number of entries");
	for (i = 0; i < n->n; i++) {
		const struct nt_ynode *val = n->vals[i];
		size_t kl = strlen(n->keys[i]->scalar);

		if (!is_scalar(val))
			return fail(t, val, "a single value is expected here");
		if (kl < 1 || kl > 255 || strlen(val->scalar) > 4095)
			return fail(t, val, "key or value too long");
	}
	if (n->n)
		kv = nt_xcalloc(n->n, sizeof(*kv));
	for (i = 0; i < n->n; i++) {
		kv[i].key = nt_xstrdup(n->keys[i]->scalar);
		kv[i].value = nt_xstrdup(n->vals[i]->scalar);
	}
	memcpy(slot, &kv, sizeof(kv));
	put_uint(count, count_size, n->n);
	return 0;
}

static int fill_mapping(struct tl *t, const struct nt_ynode *n, const cyaml_schema_field_t *fields,
			uint8_t *data, bool top)
{
	const cyaml_schema_field_t *f;
	size_t i;

	if (n->type != NT_Y_MAP)
		return fail(t, n, "a mapping is expected here");
	for (i = 0; i < n->n; i++) {
		const char *key = n->keys[i]->scalar;

		if (top && !strcmp(key, "extends"))
			continue;	/* resolved by the loader, never inherited */
		for (f = fields; f->key; f++)
			if (f->key[0] == key[0] && !strcmp(f->key, key))
				break;
		if (!f->key)
			return fail(t, n->keys[i], "unknown key");
		if (load_at(t, n->vals[i], &f->value, data + f->data_offset,
			    f->count_size ? data + f->count_offset : NULL, f->count_size))
			return -1;
	}
	for (f = fields; f->key; f++)
		if (!(f->value.flags & CYAML_FLAG_OPTIONAL) && !nt_ymap_get(n, f->key, NULL))
			return fail(t, n, "missing required key");
	return 0;
}

static int load_at(struct tl *t, const struct nt_ynode *n, const cyaml_schema_value_t *v,
		   uint8_t *slot, uint8_t *count, size_t count_size)
{
	uint8_t *data = slot;

	switch (v->type) {
	case CYAML_STRING: {
		size_t len;
		char *s;

		if (!is_scalar(n))
			return fail(t, n, "a single value is expected here");
		len = strlen(n->scalar);
		if (len < v->string.min || len > v->string.max)
			return fail(t, n, "string length out of range");
		s = nt_xstrdup(n->scalar);
		memcpy(slot, &s, sizeof(s));
		return 0;
	}
	case CYAML_SEQUENCE: {
		const cyaml_schema_value_t *e = v->sequence.entry;
		size_t esize = e->flags & CYAML_FLAG_POINTER ? sizeof(void *) : e->data_size, i;
		uint8_t *arr = NULL;

		if ((e == &nt_kv_entry || e == &nt_kv_bool_entry) && n->type == NT_Y_MAP)
			return load_kv(t, n, v, slot, count, count_size);
		if (n->type != NT_Y_SEQ)
			return fail(t, n, "a sequence is expected here");
		if (n->n < v->sequence.min || n->n > v->sequence.max)
			return fail(t, n, "wrong number of entries");
		if (n->n)
			arr = nt_xcalloc(n->n, esize);
		/* stored first, so that nt_typed_free() frees what was built so far */
		memcpy(slot, &arr, sizeof(arr));
		for (i = 0; i < n->n; i++) {
			/* entry i counted before it is built: freed if it fails half-way */
			if (count)
				put_uint(count, count_size, i + 1);
			if (load_at(t, n->vals[i], e, arr + i * esize, NULL, 0))
				return -1;
		}
		if (count)
			put_uint(count, count_size, n->n);
		return 0;
	}
	default:
		break;
	}
	if (v->flags & CYAML_FLAG_POINTER) {
		data = nt_xcalloc(1, v->data_size);
		memcpy(slot, &data, sizeof(data));
	}
	if (v->type == CYAML_MAPPING)
		return fill_mapping(t, n, v->mapping.fields, data, false);
	return fill_scalar(t, n, v, data);
}

/* Frees what v describes at slot (count: the entries of a sequence),
 * as cyaml_free() does, without its generic per-call setup: a batch frees
 * one typed profile per file. */
static void free_at(const cyaml_schema_value_t *v, uint8_t *slot, uint64_t count)
{
	uint8_t *data = slot;

	if (v->flags & CYAML_FLAG_POINTER) {
		memcpy(&data, slot, sizeof(data));
		if (!data)
			return;
	}
	if (v->type == CYAML_MAPPING) {
		const cyaml_schema_field_t *f;

		for (f = v->mapping.fields; f->key; f++)
			free_at(&f->value, data + f->data_offset,
				f->count_size ? get_uint(data + f->count_offset, f->count_size) : 0);
	} else if (v->type == CYAML_SEQUENCE) {
		const cyaml_schema_value_t *e = v->sequence.entry;
		size_t esize = e->flags & CYAML_FLAG_POINTER ? sizeof(void *) : e->data_size;
		uint64_t i;

		for (i = 0; i < count; i++)
			free_at(e, data + i * esize, 0);
	}
	if (v->flags & CYAML_FLAG_POINTER)
		free(data);
}

void nt_typed_free(const cyaml_schema_value_t *schema, void *data)
{
	if (data)
		free_at(schema, (uint8_t *)&data, 0);
}

int nt_typed_load(const struct nt_ynode *root, const cyaml_schema_value_t *schema, void **out,
		  struct nt_mark *where, const char **why)
{
	struct tl t = {NULL, NULL};
	uint8_t *data;

	*out = NULL;
	if (schema->type != CYAML_MAPPING || !(schema->flags & CYAML_FLAG_POINTER)) {
		*why = "unsupported top-level schema";
		*where = root->mark;
		return -1;
	}
	data = nt_xcalloc(1, schema->data_size);
	if (fill_mapping(&t, root, schema->mapping.fields, data, true)) {
		nt_typed_free(schema, data);
		*where = t.bad->mark;
		*why = t.why;
		return -1;
	}
	*out = data;
	return 0;
}

int nt_typed_load_cyaml(const struct nt_ynode *root, const cyaml_schema_value_t *schema,
			void **out)
{
	struct nt_ynode *copy = nt_ycopy(root);
	struct nt_buf text = {0};
	size_t i;
	int r = -1;

	*out = NULL;
	if (nt_ymap_get(copy, "extends", &i))
		nt_ymap_del(copy, i);
	nt_check_lower_kv(copy, schema);
	if (!nt_yemit(copy, &text) &&
	    cyaml_load_data((const uint8_t *)text.p, text.n, &nt_cyaml_config, schema,
			    (cyaml_data_t **)out, NULL) == CYAML_OK)
		r = 0;
	nt_yfree(copy);
	nt_buf_free(&text);
	return r;
}

static bool same_value(const cyaml_schema_value_t *v, const uint8_t *a, const uint8_t *b,
		       const uint8_t *ca, const uint8_t *cb, size_t count_size);

static bool same_mapping(const cyaml_schema_field_t *fields, const uint8_t *a, const uint8_t *b)
{
	const cyaml_schema_field_t *f;

	for (f = fields; f->key; f++)
		if (!same_value(&f->value, a + f->data_offset, b + f->data_offset,
				f->count_size ? a + f->count_offset : NULL,
				f->count_size ? b + f->count_offset : NULL, f->count_size))
			return false;
	return true;
}

static bool same_value(const cyaml_schema_value_t *v, const uint8_t *a, const uint8_t *b,
		       const uint8_t *ca, const uint8_t *cb, size_t count_size)
{
	const uint8_t *pa = a, *pb = b;

	if (v->type == CYAML_STRING) {
		char *sa, *sb;

		memcpy(&sa, a, sizeof(sa));
		memcpy(&sb, b, sizeof(sb));
		return (!sa && !sb) || (sa && sb && !strcmp(sa, sb));
	}
	if (v->type == CYAML_SEQUENCE) {
		const cyaml_schema_value_t *e = v->sequence.entry;
		size_t esize = e->flags & CYAML_FLAG_POINTER ? sizeof(void *) : e->data_size, i, n;

		if (!ca || get_uint(ca, count_size) != get_uint(cb, count_size))
			return false;
		n = get_uint(ca, count_size);
		memcpy(&pa, a, sizeof(pa));
		memcpy(&pb, b, sizeof(pb));
		if (!n)
			return true;	/* an empty sequence may or may not be allocated */
		if (!pa || !pb)
			return false;
		for (i = 0; i < n; i++)
			if (!same_value(e, pa + i * esize, pb + i * esize, NULL, NULL, 0))
				return false;
		return true;
	}
	if (v->flags & CYAML_FLAG_POINTER) {
		memcpy(&pa, a, sizeof(pa));
		memcpy(&pb, b, sizeof(pb));
		if (!pa || !pb)
			return !pa && !pb;
	}
	if (v->type == CYAML_MAPPING)
		return same_mapping(v->mapping.fields, pa, pb);
	return get_uint(pa, v->data_size) == get_uint(pb, v->data_size);
}

bool nt_typed_equal(const cyaml_schema_value_t *schema, const void *a, const void *b)
{
	if (!a || !b)
		return a == b;
	return same_mapping(schema->mapping.fields, a, b);
}
