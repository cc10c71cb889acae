/* SPDX-License-Identifier: MIT */
/* Plan manifests: canonical writer, digests, and a validating loader for untrusted files. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "../base/strindex.h"
#include "../model/caps.h"
#include "json.h"
#include "../language/load.h"
#include "manifest.h"
#include "../language/profile.h"
#include "record.h"
#include "snapshot.h"
#include "../passes/validate.h"
#include "../base/version.h"

#define MAX_STR 4096
#define MAX_ACTIONS 1000000
#define MAX_SOURCES 256

/* 32 bytes of digest as 64 lower-case hex digits and a NUL */
static void hex_digest(const unsigned char *md, char out[NT_SHA256_HEX])
{
	static const char hex[] = "0123456789abcdef";
	unsigned i;

	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
}

void nt_sha256_hex(const void *data, size_t n, char out[NT_SHA256_HEX])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!EVP_Digest(data, n, md, &mdlen, EVP_sha256(), NULL) || mdlen != 32) {
		memset(out, '0', 64);	/* cannot happen with a working libcrypto */
		out[64] = '\0';
		return;
	}
	hex_digest(md, out);
}

void nt_time_format(int64_t t, char out[32])
{
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(out, 32, "1970-01-01T00:00:00Z");
}

bool nt_time_parse(const char *s, int64_t *out)
{
	struct tm tm = {0};
	char back[32];
	time_t t;
	int n = 0;

	if (strlen(s) != 20 ||
	    sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2dZ%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 || n != 20 || tm.tm_year < 1970)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	t = timegm(&tm);
	if (t == (time_t)-1)
		return false;
	nt_time_format((int64_t)t, back);
	if (strcmp(back, s))
		return false;	/* 2024-02-30 and friends */
	*out = (int64_t)t;
	return true;
}

bool nt_duration_parse(const char *s, int64_t *out)
{
	char *end;
	unsigned long long v;
	int64_t mul = 1;

	if (!*s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v > 400ull * 86400)
		return false;
	if (!strcmp(end, "d"))
		mul = 86400;
	else if (!strcmp(end, "h"))
		mul = 3600;
	else if (!strcmp(end, "m"))
		mul = 60;
	else if (*end && strcmp(end, "s"))
		return false;
	if (!v || (int64_t)v * mul > 400ll * 86400)
		return false;
	*out = (int64_t)v * mul;
	return true;
}

bool nt_created_time(const char *arg, int64_t *out, const char **why)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	char *end;
	long long v;

	if (!arg && sde && *sde)
		arg = sde;
	if (!arg) {
		*out = (int64_t)time(NULL);
		return true;
	}
	if (nt_time_parse(arg, out))
		return true;
	if (*arg == '@')
		arg++;
	errno = 0;
	v = strtoll(arg, &end, 10);
	if (errno || *end || end == arg || v < 0 || v > 32503680000ll) {
		*why = "must be an RFC 3339 UTC time such as 2024-05-01T12:00:00Z or @SECONDS";
		return false;
	}
	*out = v;
	return true;
}

/* ---- digests ---- */

static struct dcache {
	char *file;
	char hex[NT_SHA256_HEX];
} *dcache;
static size_t ndcache;
static struct nt_strindex dindex;	/* a batch compile caches every profile's digest */

static const char *dcache_file(const void *arr, size_t i)
{
	return ((const struct dcache *)arr)[i].file;
}

static int file_digest(const char *path, bool cache, char out[NT_SHA256_HEX])
{
	EVP_MD_CTX *ctx;
	unsigned char md[EVP_MAX_MD_SIZE], chunk[65536];
	unsigned int mdlen = 0;
	size_t i;
	char why[256];
	size_t got;
	FILE *f;
	int r = -1, fd;

	const struct nt_caps_text *bi = nt_builtin_policy(path);

	if (bi) {		/* a bundled policy compiled in: digest its text */
		nt_sha256_hex(bi->text, bi->len, out);
		return 0;
	}
	i = cache ? nt_strindex_find(&dindex, dcache, ndcache, dcache_file, path) : SIZE_MAX;
	if (i != SIZE_MAX) {
		memcpy(out, dcache[i].hex, NT_SHA256_HEX);
		return 0;
	}
	fd = nt_open_input(path, 0, NULL, why, sizeof(why));	/* never blocks on a FIFO */
	f = fd < 0 ? NULL : fdopen(fd, "rb");
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		goto out;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0)
		if (!EVP_DigestUpdate(ctx, chunk, got))
			goto out;
	if (ferror(f) || !EVP_DigestFinal_ex(ctx, md, &mdlen) || mdlen != 32)
		goto out;
	hex_digest(md, out);
	r = 0;
	if (cache) {
		dcache = nt_xgrow(dcache, ndcache, sizeof(*dcache));
		dcache[ndcache].file = nt_xstrdup(path);
		memcpy(dcache[ndcache++].hex, out, NT_SHA256_HEX);
	}
out:
	EVP_MD_CTX_free(ctx);
	fclose(f);
	return r;
}

/* The merged tree in a fixed serialisation: maps and sequences in order,
 * scalars as JSON strings tagged p (plain) or q (quoted), since "1500"
 * and 1500 are different profiles. */
static void tree_bytes(const struct nt_ynode *n, struct nt_buf *b)
{
	size_t i;

	if (!n) {
		nt_buf_puts(b, "null");
		return;
	}
	switch (n->type) {
	case NT_Y_SCALAR:
		nt_buf_putc(b, n->plain ? 'p' : 'q');
		nt_buf_json_str(b, n->scalar ? n->scalar : "");
		return;
	case NT_Y_MAP:
		nt_buf_putc(b, '{');
		for (i = 0; i < n->n; i++) {
			if (i)
				nt_buf_putc(b, ',');
			nt_buf_json_str(b, n->keys[i]->scalar ? n->keys[i]->scalar : "");
			nt_buf_putc(b, ':');
			tree_bytes(n->vals[i], b);
		}
		nt_buf_putc(b, '}');
		return;
	case NT_Y_SEQ:
		nt_buf_putc(b, '[');
		for (i = 0; i < n->n; i++) {
			if (i)
				nt_buf_putc(b, ',');
			tree_bytes(n->vals[i], b);
		}
		nt_buf_putc(b, ']');
		return;
	}
}

static void action_copy(struct nt_action *dst, const struct nt_action *a)
{
	memset(dst, 0, sizeof(*dst));
	dst->kind = a->kind;
	dst->object = nt_xstrdup(a->object);
	dst->arg = a->arg ? nt_xstrdup(a->arg) : NULL;
	dst->has_from = a->has_from;
	if (a->has_from)
		nt_value_copy(&dst->from, &a->from);
	nt_value_copy(&dst->to, &a->to);
	dst->src = a->src;
	dst->flags = a->flags;
	dst->note = a->note ? nt_xstrdup(a->note) : NULL;
	dst->ord = a->ord;
}

/*
 * Why s could not go into a PLAN.json that its loader reads back (NULL:
 * it can).  The loader takes printable strings only (no control
 * characters, at most MAX_STR bytes; str_field below), and the JSON writer
 * turns bytes that are not UTF-8 into U+FFFD: a name that does not
 * round-trip is refused before anything is written, rather than written
 * into a plan that nettune itself then refuses to apply or show.
 */
static const char *unfit(const char *s, char *why, size_t whylen)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (strlen(s) > MAX_STR)
		return snprintf(why, whylen, "is longer than %d bytes", MAX_STR), why;
	for (; *p; p += n) {
		if (*p < 0x20 || *p == 0x7f)
			return snprintf(why, whylen, "contains the control character \\x%02x", *p), why;
		n = nt_utf8_len((const char *)p, 4);
		if (!n)
			return snprintf(why, whylen, "is not valid UTF-8 (byte \\x%02x)", *p), why;
	}
	return NULL;
}

/* One field of the manifest to be: an error naming it when it is unfit. */
static bool fits(struct nt_diags *d, struct nt_mark at, const char *what, const char *s)
{
	char why[80];

	if (!s || !unfit(s, why, sizeof(why)))
		return true;
	nt_error(d, at, "manifest", "%s '%s' %s: a plan manifest cannot hold it (its loader "
		 "refuses control characters, bytes that are not UTF-8 and strings over %d bytes); "
		 "nothing was written", what, s, why, MAX_STR);
	return false;
}

static bool manifest_fits(const struct nt_manifest *m, struct nt_diags *d)
{
	struct nt_mark at = {nt_intern(m->profile), 0, 0};
	bool ok = true;
	size_t i;

	ok &= fits(d, at, "the profile path", m->profile);
	ok &= fits(d, at, "the host name", m->host_name);
	ok &= fits(d, at, "the machine id", m->machine_id);
	ok &= fits(d, at, "the network namespace", m->netns);
	ok &= fits(d, at, "the snapshot path", m->against);
	ok &= fits(d, at, "the profile name", m->plan.profile);
	for (i = 0; i < m->nsources; i++)	/* the profile is its own first source */
		if (strcmp(m->sources[i].file, m->profile))
			ok &= fits(d, at, "the source file", m->sources[i].file);
	for (i = 0; i < m->plan.n && ok; i++) {
		const struct nt_action *a = &m->plan.v[i];

		ok &= fits(d, at, "the object name", a->object);
		ok &= fits(d, at, "the setting name", a->arg);
		ok &= fits(d, at, "the note", a->note);
	}
	return ok;
}

int nt_manifest_build(struct nt_manifest *m, const struct nt_loaded *l,
		      const struct nt_facts *facts, const struct nt_plan *p,
		      const char *against, const struct nt_manifest_opts *o,
		      struct nt_diags *d)
{
	struct nt_buf tb = {0};
	size_t i;

	memset(m, 0, sizeof(*m));
	m->nettune = nt_xstrdup(NT_VERSION);
	m->host_name = nt_xstrdup(facts && facts->hostname ? facts->hostname : p->profile);
	m->machine_id = facts && facts->machine_id && *facts->machine_id ?
			nt_xstrdup(facts->machine_id) : NULL;
	if (m->machine_id)
		m->machine_id[strcspn(m->machine_id, " \t\r\n")] = '\0';
	m->netns = facts && facts->netns ? nt_xstrdup(facts->netns) : NULL;
	m->profile = nt_xstrdup(l->file);
	tree_bytes(l->tree, &tb);
	nt_sha256_hex(tb.p ? tb.p : "", tb.n, m->merged_sha256);
	nt_buf_free(&tb);
	m->sources = nt_xcalloc(l->nsources + 1, sizeof(*m->sources));
	for (i = 0; i < l->nsources; i++) {
		m->sources[i].file = nt_xstrdup(l->sources[i]);
		m->nsources++;
		if (file_digest(l->sources[i], o->cache_digests, m->sources[i].sha256)) {
			struct nt_mark mk = {nt_intern(l->sources[i]), 0, 0};

			nt_error(d, mk, "manifest", "cannot read %s for its digest: %s",
				 l->sources[i], strerror(errno));
			nt_manifest_free(m);
			return -1;
		}
	}
	m->against = nt_xstrdup(against ? against : "live");
	m->created = o->created;
	m->expires = o->created + o->expires_in;
	m->plan.profile = nt_xstrdup(p->profile);
	m->plan.host = nt_xstrdup(m->host_name);
	m->plan.target = nt_xstrdup(p->target);
	m->plan.v = nt_xcalloc(p->n + 1, sizeof(*p->v));
	for (i = 0; i < p->n; i++)
		action_copy(&m->plan.v[i], &p->v[i]);
	m->plan.n = p->n;
	m->plan.disruptive = p->disruptive;
	m->plan.cannot = p->cannot;
	if (!manifest_fits(m, d)) {
		nt_manifest_free(m);
		return -1;
	}
	return 0;
}

void nt_manifest_free(struct nt_manifest *m)
{
	size_t i;

	free(m->nettune);
	free(m->host_name);
	free(m->machine_id);
	free(m->netns);
	free(m->profile);
	for (i = 0; i < m->nsources; i++)
		free(m->sources[i].file);
	free(m->sources);
	free(m->against);
	free(m->signer);
	nt_plan_free(&m->plan);
	memset(m, 0, sizeof(*m));
}

/* ---- canonical writer ---- */

static void write_action(const struct nt_action *a, struct nt_buf *b)
{
	struct nt_record r = {a->object, a->kind, a->arg, a->has_from ? &a->from : NULL, &a->to,
			      a->flags, a->src, a->note};

	nt_buf_puts(b, "    ");
	nt_record_write(&r, NT_REC_MANIFEST, b);
}

void nt_manifest_write(const struct nt_manifest *m, struct nt_buf *b)
{
	char created[32], expires[32];
	size_t i;

	nt_time_format(m->created, created);
	nt_time_format(m->expires, expires);
	nt_buf_puts(b, "{\n  \"format\": \"" NT_MANIFEST_FORMAT "\",\n  \"nettune\": ");
	nt_buf_json_str(b, m->nettune);
	nt_buf_puts(b, ",\n  \"target\": ");
	nt_buf_json_str(b, m->plan.target);
	nt_buf_puts(b, ",\n  \"host\": {\"name\": ");
	nt_buf_json_str(b, m->host_name);
	nt_buf_puts(b, ", \"machine_id\": ");
	nt_buf_json_str_or_null(b, m->machine_id);
	if (m->netns) {
		/* only when planned in a namespace: older manifests stay canonical */
		nt_buf_puts(b, ", \"netns\": ");
		nt_buf_json_str(b, m->netns);
	}
	nt_buf_puts(b, "},\n  \"profile\": {\"file\": ");
	nt_buf_json_str(b, m->profile);
	nt_buf_puts(b, ", \"name\": ");
	nt_buf_json_str(b, m->plan.profile);
	nt_buf_printf(b, ", \"merged_sha256\": \"%s\"},\n  \"sources\": [", m->merged_sha256);
	for (i = 0; i < m->nsources; i++) {
		nt_buf_puts(b, i ? ",\n    {\"file\": " : "\n    {\"file\": ");
		nt_buf_json_str(b, m->sources[i].file);
		nt_buf_printf(b, ", \"sha256\": \"%s\"}", m->sources[i].sha256);
	}
	nt_buf_puts(b, m->nsources ? "\n  ],\n  \"against\": " : "],\n  \"against\": ");
	nt_buf_json_str(b, m->against);
	nt_buf_printf(b, ",\n  \"created\": \"%s\",\n  \"expires\": \"%s\",\n  \"signer\": ",
		      created, expires);
	nt_buf_json_str_or_null(b, m->signer);
	nt_buf_printf(b, ",\n  \"summary\": {\"changes\": %zu, \"disruptive\": %zu, "
		      "\"cannot_change\": %zu},\n  \"actions\": [", m->plan.n, m->plan.disruptive,
		      m->plan.cannot);
	for (i = 0; i < m->plan.n; i++) {
		nt_buf_puts(b, i ? ",\n" : "\n");
		write_action(&m->plan.v[i], b);
	}
	nt_buf_puts(b, m->plan.n ? "\n  ]\n}\n" : "]\n}\n");
}

/* ---- validating loader ---- */

struct ld {
	struct nt_diags *d;
	bool bad;
};

static void ld_err(struct ld *c, struct nt_mark m, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void ld_err(struct ld *c, struct nt_mark m, const char *fmt, ...)
{
	va_list ap;
	struct nt_buf b = {0};

	va_start(ap, fmt);
	nt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	nt_error(c->d, m, "manifest", "%s", b.p);
	nt_buf_free(&b);
	c->bad = true;
}

static const char *jtype_name(enum nt_jtype t)
{
	static const char *const n[] = {"null", "a boolean", "a number", "a string", "an array",
					"an object"};

	return n[t];
}

/* Every key of o must be one of keys (NULL-terminated). */
static void only_keys(struct ld *c, const struct nt_json *o, const char *what,
		      const char *const *keys)
{
	size_t i, k;

	for (i = 0; i < o->n; i++) {
		for (k = 0; keys[k]; k++)
			if (!strcmp(o->keys[i], keys[k]))
				break;
		if (!keys[k])
			ld_err(c, o->v[i]->mark, "unknown key \"%s\" in %s", o->keys[i], what);
	}
}

/* The value of key, which must have type t (or be null when nullable). */
static const struct nt_json *field(struct ld *c, const struct nt_json *o, const char *what,
				   const char *key, enum nt_jtype t, bool nullable)
{
	const struct nt_json *v = nt_json_get(o, key);

	if (!v) {
		ld_err(c, o->mark, "%s has no \"%s\"", what, key);
		return NULL;
	}
	if (v->t == NT_J_NULL && nullable)
		return v;
	if (v->t != t) {
		ld_err(c, v->mark, "\"%s\" must be %s%s, not %s", key, jtype_name(t),
		       nullable ? " or null" : "", jtype_name(v->t));
		return NULL;
	}
	return v;
}

static bool printable(const char *s, bool allow_empty)
{
	if (!*s && !allow_empty)
		return false;
	if (strlen(s) > MAX_STR)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* A printable string field; NULL when null or bad. */
static const char *str_field(struct ld *c, const struct nt_json *o, const char *what,
			     const char *key, bool nullable)
{
	const struct nt_json *v = field(c, o, what, key, NT_J_STR, nullable);

	if (!v || v->t == NT_J_NULL)
		return NULL;
	if (!printable(v->s, false)) {
		ld_err(c, v->mark, "\"%s\" must be a non-empty printable string of at most %d bytes",
		       key, MAX_STR);
		return NULL;
	}
	return v->s;
}

static bool is_hex64(const char *s)
{
	size_t i;

	for (i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return s[64] == '\0';
}

static void hex_field(struct ld *c, const struct nt_json *o, const char *what, const char *key,
		      char out[NT_SHA256_HEX])
{
	const struct nt_json *v = field(c, o, what, key, NT_J_STR, false);

	if (!v)
		return;
	if (!is_hex64(v->s)) {
		ld_err(c, v->mark, "\"%s\" must be a SHA-256 digest: 64 lower-case hex digits", key);
		return;
	}
	memcpy(out, v->s, NT_SHA256_HEX);
}

static void time_field(struct ld *c, const struct nt_json *o, const char *key, int64_t *out)
{
	const struct nt_json *v = field(c, o, "the manifest", key, NT_J_STR, false);

	if (v && !nt_time_parse(v->s, out))
		ld_err(c, v->mark, "\"%s\" must be an RFC 3339 UTC time such as 2024-05-01T12:00:00Z", key);
}

static bool count_field(struct ld *c, const struct nt_json *o, const char *key, size_t want)
{
	const struct nt_json *v = field(c, o, "\"summary\"", key, NT_J_NUM, false);

	if (!v)
		return false;
	if (!v->is_int || v->i < 0 || (uint64_t)v->i != want) {
		ld_err(c, v->mark, "summary \"%s\" is %s but the actions say %zu", key, v->s, want);
		return false;
	}
	return true;
}

struct action_ld {
	struct ld *c;
	const struct nt_action *a;
	const char *attr;
};

static void action_err(void *ctx, const struct nt_json *at, enum nt_record_problem p,
		       const char *a, const char *b)
{
	struct action_ld *x = ctx;

	switch (p) {
	case NT_RECP_ATTR_UNKNOWN:
		ld_err(x->c, at->mark, "unknown attribute \"%s\"", a);
		return;
	case NT_RECP_NAME:
		ld_err(x->c, at->mark, "%s \"%s\" of %s %s", a,
		       *a == 'o' ? x->a->object : x->a->arg ? x->a->arg : "", x->attr, b);
		return;
	case NT_RECP_NULL:
		ld_err(x->c, at->mark, "\"%s\" of %s cannot be null", a, x->attr);
		return;
	case NT_RECP_VALUE:
		ld_err(x->c, at->mark, "\"%s\" of %s %s", a, x->attr, b);
		return;
	}
}

static void load_action(struct ld *c, const struct nt_json *j, struct nt_action *a)
{
	static const char *const keys[] = {"object", "attribute", "from", "to", "flags", "source",
					   "note", NULL};
	const char *what = "an action", *obj, *attr, *src, *note;
	const struct nt_json *from, *to, *flags;
	struct action_ld x = {c, a, NULL};
	struct nt_record_reader rd = {action_err, &x, nt_setting_problem};
	bool have_kind = false, has_to;
	size_t k;

	if (j->t != NT_J_OBJ) {
		ld_err(c, j->mark, "an action must be an object, not %s", jtype_name(j->t));
		return;
	}
	only_keys(c, j, what, keys);
	obj = str_field(c, j, what, "object", false);
	attr = str_field(c, j, what, "attribute", false);
	if (obj)
		a->object = nt_xstrdup(obj);
	x.attr = attr;
	if (attr)
		have_kind = nt_record_read_attr(&rd, j, obj, attr, &a->kind, &a->arg) >= 0;
	/* any JSON type here: the kind decides */
	from = nt_json_get(j, "from");
	if (!from)
		ld_err(c, j->mark, "an action has no \"from\"");
	to = nt_json_get(j, "to");
	if (!to)
		ld_err(c, j->mark, "an action has no \"to\"");
	if (have_kind && from)
		nt_record_read_value(&rd, from, "from", a->kind, true, &a->from, &a->has_from);
	if (have_kind && to)
		nt_record_read_value(&rd, to, "to", a->kind, false, &a->to, &has_to);
	flags = field(c, j, what, "flags", NT_J_ARR, false);
	for (k = 0; flags && k < flags->n; k++) {
		const struct nt_json *f = flags->v[k];
		unsigned bit = f->t == NT_J_STR ? nt_record_flag(f->s) : 0;

		if (!bit) {
			ld_err(c, f->mark, "unknown flag (implied, cannot-change, disruptive, "
			       "not-observed, reset)");
			continue;
		}
		a->flags |= bit;
	}
	if (flags && from && !!(a->flags & NT_SF_NOT_OBSERVED) != (from->t == NT_J_NULL))
		ld_err(c, flags->mark, "flag not-observed must be set exactly when \"from\" is null");
	src = str_field(c, j, what, "source", true);
	if (src && !nt_record_source_parse(src, &a->src))
		ld_err(c, nt_json_get(j, "source")->mark, "\"source\" must be FILE:LINE:COL");
	note = str_field(c, j, what, "note", true);
	if (note)
		a->note = nt_xstrdup(note);
	if (!a->object)
		a->object = nt_xstrdup("");
}

static struct nt_mark offset_mark(const char *file, const char *data, size_t off)
{
	struct nt_mark m = {nt_intern(file), 1, 1};
	size_t i;

	for (i = 0; i < off; i++) {
		if (data[i] == '\n') {
			m.line++;
			m.col = 1;
		} else if (((unsigned char)data[i] & 0xc0) != 0x80) {
			m.col++;
		}
	}
	return m;
}

static void load_fields(struct ld *c, const struct nt_json *j, struct nt_manifest *m)
{
	static const char *const top[] = {"format", "nettune", "target", "host", "profile",
					  "sources", "against", "created", "expires", "signer",
					  "summary", "actions", NULL};
	static const char *const hostk[] = {"name", "machine_id", "netns", NULL};
	static const char *const profk[] = {"file", "name", "merged_sha256", NULL};
	static const char *const srck[] = {"file", "sha256", NULL};
	static const char *const sumk[] = {"changes", "disruptive", "cannot_change", NULL};
	const struct nt_json *v, *host, *prof, *srcs, *sum, *acts;
	const char *s, *what = "the manifest";
	size_t i;

	only_keys(c, j, what, top);
	v = field(c, j, what, "format", NT_J_STR, false);
	if (v && strcmp(v->s, NT_MANIFEST_FORMAT)) {
		ld_err(c, v->mark, "format \"%s\" is not %s (not a nettune plan, or from a newer "
		       "nettune)", v->s, NT_MANIFEST_FORMAT);
		return;	/* the rest would only be noise */
	}
	s = str_field(c, j, what, "nettune", false);
	m->nettune = nt_xstrdup(s ? s : "");
	s = str_field(c, j, what, "target", false);
	if (s && strcmp(s, "linux") && strcmp(s, "windows"))
		ld_err(c, nt_json_get(j, "target")->mark, "target must be linux or windows");
	m->plan.target = nt_xstrdup(s ? s : "");
	host = field(c, j, what, "host", NT_J_OBJ, false);
	if (host) {
		only_keys(c, host, "\"host\"", hostk);
		s = str_field(c, host, "\"host\"", "name", false);
		m->host_name = nt_xstrdup(s ? s : "");
		m->plan.host = nt_xstrdup(m->host_name);
		s = str_field(c, host, "\"host\"", "machine_id", true);
		m->machine_id = s ? nt_xstrdup(s) : NULL;
		s = nt_json_get(host, "netns") ? str_field(c, host, "\"host\"", "netns", false) : NULL;
		m->netns = s ? nt_xstrdup(s) : NULL;
	}
	prof = field(c, j, what, "profile", NT_J_OBJ, false);
	if (prof) {
		only_keys(c, prof, "\"profile\"", profk);
		s = str_field(c, prof, "\"profile\"", "file", false);
		m->profile = nt_xstrdup(s ? s : "");
		v = field(c, prof, "\"profile\"", "name", NT_J_STR, false);
		if (v && !printable(v->s, true))
			ld_err(c, v->mark, "\"name\" must be printable");
		m->plan.profile = nt_xstrdup(v ? v->s : "");
		hex_field(c, prof, "\"profile\"", "merged_sha256", m->merged_sha256);
	}
	srcs = field(c, j, what, "sources", NT_J_ARR, false);
	if (srcs && (!srcs->n || srcs->n > MAX_SOURCES))
		ld_err(c, srcs->mark, "\"sources\" must list 1..%d files", MAX_SOURCES);
	else if (srcs) {
		m->sources = nt_xcalloc(srcs->n, sizeof(*m->sources));
		for (i = 0; i < srcs->n; i++) {
			const struct nt_json *e = srcs->v[i];

			m->nsources++;
			if (e->t != NT_J_OBJ) {
				ld_err(c, e->mark, "a source must be an object, not %s", jtype_name(e->t));
				m->sources[i].file = nt_xstrdup("");
				continue;
			}
			only_keys(c, e, "a source", srck);
			s = str_field(c, e, "a source", "file", false);
			m->sources[i].file = nt_xstrdup(s ? s : "");
			hex_field(c, e, "a source", "sha256", m->sources[i].sha256);
		}
	}
	s = str_field(c, j, what, "against", false);
	m->against = nt_xstrdup(s ? s : "");
	time_field(c, j, "created", &m->created);
	time_field(c, j, "expires", &m->expires);
	if (!c->bad && m->expires <= m->created)
		ld_err(c, nt_json_get(j, "expires")->mark, "\"expires\" must be later than \"created\"");
	v = field(c, j, what, "signer", NT_J_STR, true);
	if (v && v->t == NT_J_STR) {
		if (strncmp(v->s, "sha256:", 7) || !is_hex64(v->s + 7))
			ld_err(c, v->mark, "\"signer\" must be a key id \"sha256:\" + 64 hex digits");
		else
			m->signer = nt_xstrdup(v->s);
	}
	acts = field(c, j, what, "actions", NT_J_ARR, false);
	if (acts && acts->n > MAX_ACTIONS)
		ld_err(c, acts->mark, "more than %d actions", MAX_ACTIONS);
	else if (acts) {
		m->plan.v = nt_xcalloc(acts->n + 1, sizeof(*m->plan.v));
		for (i = 0; i < acts->n; i++) {
			struct nt_action *a = &m->plan.v[m->plan.n++];

			load_action(c, acts->v[i], a);
			a->ord.order = (int)i;
			m->plan.disruptive += !!(a->flags & NT_SF_DISRUPTIVE);
			m->plan.cannot += !!(a->flags & NT_SF_CANNOT_CHANGE);
		}
	}
	sum = field(c, j, what, "summary", NT_J_OBJ, false);
	if (sum && acts && !c->bad) {
		only_keys(c, sum, "\"summary\"", sumk);
		count_field(c, sum, "changes", m->plan.n);
		count_field(c, sum, "disruptive", m->plan.disruptive);
		count_field(c, sum, "cannot_change", m->plan.cannot);
	}
}

int nt_manifest_load_data(const char *file, const char *data, size_t len,
			  struct nt_manifest *m, struct nt_diags *d)
{
	struct ld c = {d, false};
	struct nt_json *j;
	struct nt_mark whole = {nt_intern(file), 0, 0};

	memset(m, 0, sizeof(*m));
	if (len > NT_MANIFEST_MAX_BYTES) {
		nt_error(d, whole, "manifest", "larger than %u bytes", NT_MANIFEST_MAX_BYTES);
		return -1;
	}
	j = nt_json_parse(file, data, len, d);
	if (!j)
		return -1;
	if (j->t != NT_J_OBJ) {
		ld_err(&c, j->mark, "a plan manifest is a JSON object, not %s", jtype_name(j->t));
		goto fail;
	}
	load_fields(&c, j, m);
	if (c.bad)
		goto fail;
	{
		struct nt_buf b = {0};
		size_t i;

		nt_manifest_write(m, &b);
		for (i = 0; i < len && i < b.n && data[i] == b.p[i]; i++)
			;
		if (i < len || i < b.n) {
			ld_err(&c, offset_mark(file, data, i),
			       "not in canonical form: byte %zu differs from nettune's own "
			       "serialisation of this plan (edited after it was written?)", i);
			nt_buf_free(&b);
			goto fail;
		}
		nt_buf_free(&b);
	}
	nt_json_free(j);
	return 0;
fail:
	nt_json_free(j);
	nt_manifest_free(m);
	return -1;
}

bool nt_manifest_sniff(const char *data, size_t len)
{
	size_t i = 0;

	while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r'))
		i++;
	if (i >= len || data[i] != '{')
		return false;
	return memmem(data, len, "\"" NT_MANIFEST_FORMAT "\"", strlen(NT_MANIFEST_FORMAT) + 2) ||
	       memmem(data, len, "\"format\"", 8);
}

void nt_manifest_desired(const struct nt_manifest *m, struct nt_state *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < m->plan.n; i++) {
		const struct nt_action *a = &m->plan.v[i];
		struct nt_value v;

		nt_value_copy(&v, &a->to);
		nt_state_set(out, a->kind, a->object, a->arg, v, a->src);
	}
}

size_t nt_manifest_not_held(const struct nt_manifest *m, const struct nt_state *live,
			    size_t *nkeys, struct nt_buf *out)
{
	struct nt_state want;
	size_t i, n = 0;

	/* the last action of a key gives its final value: an inserted reset
	 * (RSS table before shrinking channels) is followed by the real one */
	nt_manifest_desired(m, &want);
	for (i = 0; i < want.n; i++) {
		const struct nt_setting *w = &want.v[i];
		const struct nt_setting *s = nt_state_get(live, w->kind, w->object, w->arg);
		char *label;

		if (s && nt_value_equal(&s->val, &w->val))
			continue;
		n++;
		if (!out)
			continue;
		label = nt_setting_label(w->kind, w->object, w->arg);
		nt_buf_printf(out, "  %s: the host has ", nt_esc(label));
		if (s)
			nt_value_format(&s->val, out, false);
		else
			nt_buf_puts(out, "(no such setting)");
		nt_buf_puts(out, ", the plan sets ");
		nt_value_format(&w->val, out, false);
		nt_buf_puts(out, "\n");
		free(label);
	}
	*nkeys = want.n;
	nt_state_free(&want);
	return n;
}

bool nt_manifest_converged(const struct nt_manifest *m, const struct nt_state *live)
{
	size_t nkeys;

	return m->plan.n && !nt_manifest_not_held(m, live, &nkeys, NULL);
}

size_t nt_manifest_stale(const struct nt_manifest *m, const struct nt_state *live,
			 struct nt_buf *out)
{
	size_t i, n = 0;

	for (i = 0; i < m->plan.n; i++) {
		const struct nt_action *a = &m->plan.v[i];
		const struct nt_setting *s = nt_state_get(live, a->kind, a->object, a->arg);
		char *attr;

		if (a->has_from ? s && nt_value_equal(&s->val, &a->from) : !s)
			continue;
		attr = nt_setting_label(a->kind, a->object, a->arg);
		nt_buf_printf(out, "  %s: planned from ", nt_esc(attr));
		if (a->has_from)
			nt_value_format(&a->from, out, false);
		else
			nt_buf_puts(out, "(not observed)");
		nt_buf_puts(out, ", the host now has ");
		if (s)
			nt_value_format(&s->val, out, false);
		else
			nt_buf_puts(out, "(no such setting)");
		if (s && nt_value_equal(&s->val, &a->to))
			nt_buf_puts(out, " (the planned value)");
		nt_buf_puts(out, "\n");
		free(attr);
		n++;
	}
	return n;
}
