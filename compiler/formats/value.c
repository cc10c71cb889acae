/* SPDX-License-Identifier: MIT */
/* The value codec: a setting's value as JSON (plans, manifests, journals,
 * snapshots) and back, by the kind's value type. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../language/schema.h"
#include "../model/cpuset.h"
#include "../model/names.h"
#include "value.h"

void nt_value_json(const struct nt_value *v, struct nt_buf *b)
{
	size_t i;

	switch (v->t) {
	case NT_V_BOOL:
		nt_buf_puts(b, v->b ? "true" : "false");
		return;
	case NT_V_U32:
		nt_buf_put_u64(b, v->u);
		return;
	case NT_V_STR:
		nt_buf_json_str(b, v->s ? v->s : "");
		return;
	case NT_V_CPUS: {
		char *s = nt_cpuset_str(v->cpus);

		nt_buf_json_str(b, s);
		free(s);
		return;
	}
	case NT_V_BYTES: {
		struct nt_buf h = {0};

		nt_value_format(v, &h, true);
		nt_buf_json_str(b, h.p ? h.p : "");
		nt_buf_free(&h);
		return;
	}
	case NT_V_U32LIST:
		nt_buf_putc(b, '[');
		for (i = 0; i < v->n; i++) {
			if (i)
				nt_buf_putc(b, ',');
			nt_buf_put_u64(b, v->list[i]);
		}
		nt_buf_putc(b, ']');
		return;
	}
}

/* Values may hold the tabs and newlines of /proc/sys files, nothing else. */
static bool safe_value(const char *s)
{
	for (; *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n') || *s == 0x7f)
			return false;
	return true;
}

/* why a value of kind k is not a list of its map's words */
static const char *not_words(enum nt_kind_id k, const struct nt_word_map *m)
{
	static _Thread_local char why[256];
	const struct nt_word *w;
	size_t n;

	n = (size_t)snprintf(why, sizeof(why), "is not a list of %s %ss (", nt_kinds[k].name, m->noun);
	for (w = m->words; w->word && n < sizeof(why); w++)
		n += (size_t)snprintf(why + n, sizeof(why) - n, "%s%s", w == m->words ? "" : " ", w->word);
	if (n < sizeof(why))
		snprintf(why + n, sizeof(why) - n, ", or none)");
	return why;
}

static bool str_from_json(enum nt_kind_id k, const struct nt_json *j, struct nt_value *out,
			  const char **why)
{
	const struct nt_word_map *m = nt_kind_word_map(k);
	uint32_t bits;

	if (m) {
		char *canon;

		/* as observe writes it; compared in the map's order */
		if (j->t != NT_J_STR || !*j->s || !nt_words_parse(m, j->s, &bits)) {
			*why = not_words(k, m);
			return false;
		}
		canon = nt_words_format(m, bits);
		*out = nt_v_str(canon);
		free(canon);
		return true;
	}
	if (j->t == NT_J_NUM) {
		*out = nt_v_str(j->s);
		return true;
	}
	if (j->t != NT_J_STR) {
		*why = "must be a string";
		return false;
	}
	if (!safe_value(j->s)) {
		*why = "has control characters";
		return false;
	}
	*out = nt_v_str(j->s);
	return true;
}

static bool cpus_from_json(const struct nt_json *j, struct nt_value *out, const char **why)
{
	struct nt_cpuset cs;
	const char *err;

	if (j->t != NT_J_STR) {
		*why = "must be a CPU list string (\"\" for none)";
		return false;
	}
	if (!*j->s || !strcmp(j->s, "none"))
		nt_cpuset_clear(&cs);
	else if (!nt_cpuset_parse(j->s, &cs, &err)) {
		*why = err;
		return false;
	}
	*out = nt_v_cpus(&cs);
	return true;
}

static bool list_from_json(const struct nt_json *j, struct nt_value *out, const char **why)
{
	uint32_t *l;
	size_t i;

	if (j->t != NT_J_ARR || !j->n || j->n > NT_RSS_INDIR_MAX) {
		*why = "must be an array of 1..65536 queue numbers";
		return false;
	}
	l = nt_xmalloc(j->n * sizeof(*l));
	for (i = 0; i < j->n; i++) {
		if (j->v[i]->t != NT_J_NUM || !j->v[i]->is_int || j->v[i]->i < 0 ||
		    j->v[i]->i > NT_QUEUE_MAX) {
			free(l);
			*why = "entries must be queue numbers 0..65535";
			return false;
		}
		l[i] = (uint32_t)j->v[i]->i;
	}
	*out = nt_v_list(l, j->n);
	free(l);
	return true;
}

bool nt_value_from_json(enum nt_kind_id k, const struct nt_json *j, struct nt_value *out,
			const char **why)
{
	switch (nt_kinds[k].vtype) {
	case NT_V_BOOL:
		if (j->t != NT_J_BOOL) {
			*why = "must be true or false";
			return false;
		}
		*out = nt_v_bool(j->b);
		return true;
	case NT_V_U32:
		if (j->t != NT_J_NUM || !j->is_int || j->i < 0 || j->i > UINT32_MAX) {
			*why = "must be a whole number 0..4294967295";
			return false;
		}
		*out = nt_v_u32((uint32_t)j->i);
		return true;
	case NT_V_STR:
		return str_from_json(k, j, out, why);
	case NT_V_CPUS:
		return cpus_from_json(j, out, why);
	case NT_V_BYTES: {
		unsigned char key[NT_RSS_KEY_MAX];
		bool ph;
		int n;

		if (j->t != NT_J_STR || (n = nt_parse_rss_key(j->s, key, sizeof(key), &ph)) <= 0) {
			*why = "must be hex bytes such as \"6d:5a:56\"";
			return false;
		}
		*out = nt_v_bytes(key, (size_t)n);
		return true;
	}
	case NT_V_U32LIST:
		return list_from_json(j, out, why);
	}
	*why = "unsupported";
	return false;
}
