/* SPDX-License-Identifier: MIT */
/* Recursive-descent JSON parser (RFC 8259) with positions and limits. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "json.h"
#include "../base/strindex.h"

/* Every node, key and string of a parse comes from one arena: a snapshot
 * of 10 KB is ~1,500 of them, and allocating and freeing each on its own
 * cost more than parsing. */
struct chunk {
	struct chunk *next;
	size_t used, cap;
	max_align_t data[];
};

struct jp {
	struct chunk *arena;
	const char *file;
	const char *s, *end, *line_start;
	size_t cont;		/* UTF-8 continuation bytes since line_start */
	unsigned line;
	struct nt_diags *d;
	bool failed;
	int depth;
};

static struct nt_mark here(const struct jp *p)
{
	/* columns count characters, as in YAML diagnostics */
	struct nt_mark m = {p->file, p->line,
			    (unsigned)((size_t)(p->s - p->line_start) - p->cont) + 1};

	return m;
}

static void *jalloc(struct jp *p, size_t n)
{
	struct chunk *c = p->arena;
	void *r;

	n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
	if (!c || c->cap - c->used < n) {
		size_t cap = n > 32768 ? n : 32768;

		c = nt_xmalloc(sizeof(*c) + cap);
		c->cap = cap;
		c->used = 0;
		c->next = p->arena;
		p->arena = c;
	}
	r = (char *)c->data + c->used;
	c->used += n;
	return r;
}

static char *jstrndup(struct jp *p, const char *s, size_t n)
{
	char *r = jalloc(p, n + 1);

	memcpy(r, s, n);
	r[n] = '\0';
	return r;
}

static void arena_free(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;

		free(c);
		c = next;
	}
}

static void fail(struct jp *p, const char *msg)
{
	if (!p->failed)
		nt_error(p->d, here(p), "json-syntax", "%s", msg);
	p->failed = true;
}

static void ws(struct jp *p)
{
	while (p->s < p->end) {
		if (*p->s == '\n' ||
		    (*p->s == '\r' && (p->s + 1 == p->end || p->s[1] != '\n'))) {
			p->line++;
			p->line_start = p->s + 1;
			p->cont = 0;
		} else if (*p->s != ' ' && *p->s != '\t' && *p->s != '\r') {
			break;
		}
		p->s++;
	}
}

static struct nt_json *value(struct jp *p);

static int hex4(const char *s)
{
	int v = 0, i;

	for (i = 0; i < 4; i++) {
		char c = s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static void put_utf8(struct nt_buf *b, unsigned cp)
{
	char o[4];

	if (cp < 0x80) {
		o[0] = (char)cp;
		nt_buf_putn(b, o, 1);
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | cp >> 6);
		o[1] = (char)(0x80 | (cp & 0x3f));
		nt_buf_putn(b, o, 2);
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | cp >> 12);
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		nt_buf_putn(b, o, 3);
	} else {
		o[0] = (char)(0xf0 | cp >> 18);
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		nt_buf_putn(b, o, 4);
	}
}

/* A \uXXXX escape (p->s at the 'u'), a surrogate pair as one code point. */
static bool unicode_escape(struct jp *p, struct nt_buf *b)
{
	int cp, lo;

	if (p->end - p->s < 5 || (cp = hex4(p->s + 1)) < 0) {
		fail(p, "bad \\u escape");
		return false;
	}
	p->s += 4;
	if (cp >= 0xd800 && cp < 0xdc00) {
		if (p->end - p->s < 7 || p->s[1] != '\\' || p->s[2] != 'u' ||
		    (lo = hex4(p->s + 3)) < 0xdc00 || lo > 0xdfff) {
			fail(p, "unpaired UTF-16 surrogate");
			return false;
		}
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		p->s += 6;
	} else if (cp >= 0xdc00 && cp <= 0xdfff) {
		fail(p, "unpaired UTF-16 surrogate");
		return false;
	}
	if (cp == 0) {
		fail(p, "NUL character in string");
		return false;
	}
	put_utf8(b, (unsigned)cp);
	return true;
}

/* One escape (p->s at the backslash), leaving p->s on its last character. */
static bool escape(struct jp *p, struct nt_buf *b)
{
	if (p->end - p->s < 2) {
		fail(p, "unterminated escape");
		return false;
	}
	p->s++;
	switch (*p->s) {
	case '"': nt_buf_putc(b, '"'); break;
	case '\\': nt_buf_putc(b, '\\'); break;
	case '/': nt_buf_putc(b, '/'); break;
	case 'b': nt_buf_putc(b, '\b'); break;
	case 'f': nt_buf_putc(b, '\f'); break;
	case 'n': nt_buf_putc(b, '\n'); break;
	case 'r': nt_buf_putc(b, '\r'); break;
	case 't': nt_buf_putc(b, '\t'); break;
	case 'u': return unicode_escape(p, b);
	default:
		fail(p, "unknown escape in string");
		return false;
	}
	return true;
}

/* The rest of a string with escapes or non-ASCII, after the copied prefix in b. */
static char *string_slow(struct jp *p, struct nt_buf *b)
{
	char *r;

	while (p->s < p->end && *p->s != '"') {
		unsigned char c = (unsigned char)*p->s;

		if (c < 0x20) {
			fail(p, "control character in string");
			nt_buf_free(b);
			return NULL;
		}
		if (c >= 0x80) {
			size_t n = nt_utf8_len(p->s, (size_t)(p->end - p->s));

			if (!n) {
				fail(p, "invalid UTF-8 in string");
				nt_buf_free(b);
				return NULL;
			}
			nt_buf_putn(b, p->s, n);
			p->s += n;
			p->cont += n - 1;
			continue;
		}
		if (c != '\\') {
			nt_buf_putc(b, (char)c);
			p->s++;
			continue;
		}
		if (!escape(p, b)) {
			nt_buf_free(b);
			return NULL;
		}
		p->s++;
	}
	if (p->s >= p->end) {
		fail(p, "unterminated string");
		nt_buf_free(b);
		return NULL;
	}
	p->s++;
	r = jstrndup(p, b->p, b->n);
	nt_buf_free(b);
	return r;
}

static char *string(struct jp *p)
{
	struct nt_buf b = {0};
	const char *st;
	char *r;

	p->s++;
	/* most strings are printable ASCII without escapes: one copy */
	for (st = p->s; p->s < p->end; p->s++) {
		unsigned char c = (unsigned char)*p->s;

		if (c == '"') {
			r = jstrndup(p, st, (size_t)(p->s - st));
			p->s++;
			return r;
		}
		if (c < 0x20 || c >= 0x80 || c == '\\')
			break;
	}
	nt_buf_putn(&b, st, (size_t)(p->s - st));
	return string_slow(p, &b);
}

static struct nt_json *node(struct jp *p, enum nt_jtype t)
{
	struct nt_json *j = jalloc(p, sizeof(*j));

	memset(j, 0, sizeof(*j));
	j->t = t;
	j->mark = here(p);
	return j;
}

static bool lit(struct jp *p, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(p->end - p->s) >= n && !memcmp(p->s, w, n)) {
		p->s += n;
		return true;
	}
	return false;
}

static struct nt_json *number(struct jp *p)
{
	struct nt_json *j = node(p, NT_J_NUM);
	const char *st = p->s;
	bool frac = false;
	char tmp[64];
	size_t n;

	if (p->s < p->end && *p->s == '-')
		p->s++;
	if (p->s >= p->end || *p->s < '0' || *p->s > '9')
		goto bad;
	if (*p->s == '0' && p->s + 1 < p->end && p->s[1] >= '0' && p->s[1] <= '9')
		goto bad;
	while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
		p->s++;
	if (p->s < p->end && *p->s == '.') {
		frac = true;
		p->s++;
		if (p->s >= p->end || *p->s < '0' || *p->s > '9')
			goto bad;
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	if (p->s < p->end && (*p->s == 'e' || *p->s == 'E')) {
		frac = true;
		p->s++;
		if (p->s < p->end && (*p->s == '+' || *p->s == '-'))
			p->s++;
		if (p->s >= p->end || *p->s < '0' || *p->s > '9')
			goto bad;
		while (p->s < p->end && *p->s >= '0' && *p->s <= '9')
			p->s++;
	}
	n = (size_t)(p->s - st);
	if (n >= sizeof(tmp))
		goto bad;
	j->s = jstrndup(p, st, n);
	if (!frac && n <= 18) {
		/* up to 18 digits fit an int64_t and convert to the double
		 * strtod would give (both round to nearest) */
		const char *c = st + (*st == '-');
		int64_t v = 0;

		for (; c < p->s; c++)
			v = v * 10 + (*c - '0');
		j->i = *st == '-' ? -v : v;
		j->is_int = true;
		j->num = *st == '-' ? -(double)v : (double)v;	/* "-0" is -0.0 */
		return j;
	}
	memcpy(tmp, st, n);
	tmp[n] = '\0';
	j->num = strtod(tmp, NULL);
	if (!frac) {
		errno = 0;
		j->i = strtoll(tmp, NULL, 10);
		j->is_int = !errno;
	}
	return j;
bad:
	fail(p, "malformed number");
	nt_json_free(j);
	return NULL;
}

static const char *key_at(const void *arr, size_t i)
{
	return ((char *const *)arr)[i];
}

/* Room for one more member or item; arrays double, so n appends cost O(n). */
static void reserve(struct jp *p, struct nt_json *j, size_t *cap)
{
	struct nt_json **v;
	char **k;

	if (j->n < *cap)
		return;
	*cap = *cap ? *cap * 2 : 4;
	v = jalloc(p, *cap * sizeof(*j->v));
	if (j->n)
		memcpy(v, j->v, j->n * sizeof(*j->v));
	j->v = v;
	if (j->t == NT_J_OBJ) {
		k = jalloc(p, *cap * sizeof(*j->keys));
		if (j->n)
			memcpy(k, j->keys, j->n * sizeof(*j->keys));
		j->keys = k;
	}
}

/* Objects up to this size are checked for a repeated key in order, larger
 * ones through a hash index: a snapshot or plan of n keys parses in O(n),
 * before any signature is checked. */
#define INDEX_MIN 8

static bool repeated_key(struct nt_json *j, struct nt_strindex *x, const char *k)
{
	size_t i;

	if (j->n > INDEX_MIN)
		return nt_strindex_find(x, j->keys, j->n, key_at, k) != SIZE_MAX;
	for (i = 0; i < j->n; i++)
		if (!strcmp(j->keys[i], k))
			return true;
	return false;
}

static struct nt_json *object(struct jp *p)
{
	struct nt_json *j = node(p, NT_J_OBJ);
	struct nt_strindex x = {0};
	size_t cap = 0;

	p->s++;
	ws(p);
	if (p->s < p->end && *p->s == '}') {
		p->s++;
		return j;
	}
	for (;;) {
		struct nt_mark km;
		struct nt_json *v;
		char *k;

		ws(p);
		if (p->s >= p->end || *p->s != '"') {
			fail(p, "expected a string key");
			goto err;
		}
		km = here(p);
		k = string(p);
		if (!k)
			goto err;
		if (repeated_key(j, &x, k)) {
			nt_error(p->d, km, "json-syntax", "duplicate key \"%s\"", k);
			p->failed = true;
			goto err;
		}
		ws(p);
		if (p->s >= p->end || *p->s != ':') {
			fail(p, "expected ':'");
			goto err;
		}
		p->s++;
		v = value(p);
		if (!v)
			goto err;
		reserve(p, j, &cap);
		j->keys[j->n] = k;
		j->v[j->n++] = v;
		ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == '}') {
			p->s++;
			break;
		}
		fail(p, "expected ',' or '}'");
		goto err;
	}
	nt_strindex_reset(&x);
	return j;
err:
	nt_strindex_reset(&x);
	nt_json_free(j);
	return NULL;
}

static struct nt_json *array(struct jp *p)
{
	struct nt_json *j = node(p, NT_J_ARR);
	size_t cap = 0;

	p->s++;
	ws(p);
	if (p->s < p->end && *p->s == ']') {
		p->s++;
		return j;
	}
	for (;;) {
		struct nt_json *v = value(p);

		if (!v)
			goto err;
		reserve(p, j, &cap);
		j->v[j->n++] = v;
		ws(p);
		if (p->s < p->end && *p->s == ',') {
			p->s++;
			continue;
		}
		if (p->s < p->end && *p->s == ']') {
			p->s++;
			return j;
		}
		fail(p, "expected ',' or ']'");
		goto err;
	}
err:
	nt_json_free(j);
	return NULL;
}

static struct nt_json *value(struct jp *p)
{
	struct nt_json *j;

	ws(p);
	if (p->s >= p->end) {
		fail(p, "unexpected end of input");
		return NULL;
	}
	if (++p->depth > NT_JSON_MAX_DEPTH) {
		fail(p, "nesting too deep");
		return NULL;
	}
	switch (*p->s) {
	case '{':
		j = object(p);
		break;
	case '[':
		j = array(p);
		break;
	case '"':
		j = node(p, NT_J_STR);
		j->s = string(p);
		if (!j->s) {
			nt_json_free(j);
			j = NULL;
		}
		break;
	case 't':
	case 'f':
		j = node(p, NT_J_BOOL);
		if (lit(p, "true")) {
			j->b = true;
		} else if (!lit(p, "false")) {
			fail(p, "unknown literal");
			nt_json_free(j);
			j = NULL;
		}
		break;
	case 'n':
		j = node(p, NT_J_NULL);
		if (!lit(p, "null")) {
			fail(p, "unknown literal");
			nt_json_free(j);
			j = NULL;
		}
		break;
	default:
		if (*p->s == '-' || (*p->s >= '0' && *p->s <= '9')) {
			j = number(p);
		} else {
			unsigned char c = (unsigned char)*p->s;
			char msg[48];

			if (c > 0x20 && c < 0x7f)
				snprintf(msg, sizeof(msg), "unexpected '%c': expected a value", c);
			else
				snprintf(msg, sizeof(msg), "unexpected byte 0x%02x: expected a value", c);
			fail(p, msg);
			j = NULL;
		}
		break;
	}
	if (j)
		p->depth--;
	return j;
}

struct nt_json *nt_json_parse(const char *file, const char *data, size_t len, struct nt_diags *d)
{
	struct jp p = {0};
	struct nt_json *j;

	p.file = nt_intern(file);
	p.s = p.line_start = data;
	p.end = data + len;
	p.line = 1;
	p.d = d;
	if (len > NT_JSON_MAX_BYTES) {
		fail(&p, "file too large");
		return NULL;
	}
	if (len >= 3 && !memcmp(data, "\xef\xbb\xbf", 3))
		p.s = p.line_start = data + 3;	/* PowerShell writes a BOM */
	j = value(&p);
	if (j) {
		ws(&p);
		if (p.s < p.end) {
			fail(&p, "trailing characters after the JSON value");
			j = NULL;
		}
	}
	if (!j) {
		arena_free(p.arena);
		return NULL;
	}
	j->arena = p.arena;
	return j;
}

struct nt_json *nt_json_parse_file(const char *path, struct nt_diags *d)
{
	struct nt_buf b;
	struct nt_json *j;
	char why[256];

	if (nt_read_input(path, NT_JSON_MAX_BYTES, 0, &b, why, sizeof(why))) {
		struct nt_mark m = {nt_intern(path), 0, 0};

		nt_error(d, m, "io", "%s", why);
		return NULL;
	}
	j = nt_json_parse(path, b.p, b.n, d);
	nt_buf_free(&b);
	return j;
}

void nt_json_free(struct nt_json *j)
{
	if (j)
		arena_free(j->arena);
}

const struct nt_json *nt_json_get(const struct nt_json *o, const char *key)
{
	size_t i;

	if (!o || o->t != NT_J_OBJ)
		return NULL;
	for (i = 0; i < o->n; i++)
		if (!strcmp(o->keys[i], key))
			return o->v[i];
	return NULL;
}

static bool want(const struct nt_json *o, const char *key, const struct nt_json **v,
		 enum nt_jtype t, const char *what, bool required, struct nt_diags *d)
{
	*v = nt_json_get(o, key);
	if (!*v || (*v)->t == NT_J_NULL) {
		if (required && d)
			nt_error(d, o->mark, "snapshot", "missing \"%s\" (%s)", key, what);
		return false;
	}
	if ((*v)->t != t) {
		if (d)
			nt_error(d, (*v)->mark, "snapshot", "\"%s\" must be %s", key, what);
		return false;
	}
	return true;
}

bool nt_json_str(const struct nt_json *o, const char *key, const char **out, bool required,
		 struct nt_diags *d)
{
	const struct nt_json *v;

	if (!want(o, key, &v, NT_J_STR, "a string", required, d))
		return false;
	*out = v->s;
	return true;
}

bool nt_json_u32(const struct nt_json *o, const char *key, uint32_t *out, bool required,
		 struct nt_diags *d)
{
	const struct nt_json *v;

	if (!want(o, key, &v, NT_J_NUM, "a number", required, d))
		return false;
	if (!v->is_int || v->i < 0 || v->i > UINT32_MAX) {
		if (d)
			nt_error(d, v->mark, "snapshot", "\"%s\" must be a whole number 0..4294967295", key);
		return false;
	}
	*out = (uint32_t)v->i;
	return true;
}

bool nt_json_bool(const struct nt_json *o, const char *key, bool *out, bool required,
		  struct nt_diags *d)
{
	const struct nt_json *v;

	if (!want(o, key, &v, NT_J_BOOL, "true or false", required, d))
		return false;
	*out = v->b;
	return true;
}
