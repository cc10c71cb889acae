/* SPDX-License-Identifier: MIT */
/* libyaml event pass that builds the mark-carrying node tree. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "ytree.h"

/* The tree's small blocks (nodes with their text, key and value arrays
 * up to 32 entries) are recycled through free lists by size, 16-byte
 * steps up to 256 bytes: validating a batch of profiles builds and frees
 * a few hundred of them per profile, and glibc's per-thread cache holds
 * only 7 blocks of a size, so most of them took malloc's slow path.  The
 * lists only grow to the largest tree alive at once.  Sanitizer builds
 * use malloc and free directly, so that ASan still sees every block. */
#if defined(__SANITIZE_ADDRESS__)
#define NT_YPOOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NT_YPOOL 0
#endif
#endif
#ifndef NT_YPOOL
#define NT_YPOOL 1
#endif

#define BLK_STEP 16
#define BLK_CLASSES 17		/* class k holds blocks of k * BLK_STEP bytes */

static void *pool[BLK_CLASSES];

static unsigned char blk_class(size_t size)
{
	size_t k = (size + BLK_STEP - 1) / BLK_STEP;

	return NT_YPOOL && k < BLK_CLASSES ? (unsigned char)k : 0;
}

static void *blk_alloc(unsigned char k, size_t size)
{
	void *p;

	if (!k)
		return nt_xmalloc(size);
	p = pool[k];
	if (!p)
		return nt_xmalloc((size_t)k * BLK_STEP);
	pool[k] = *(void **)p;
	return p;
}

static void blk_free(void *p, unsigned char k)
{
	if (!p)
		return;
	if (!k) {
		free(p);
		return;
	}
	*(void **)p = pool[k];
	pool[k] = p;
}

void nt_yarr_free(struct nt_ynode **a, size_t cap)
{
	blk_free(a, blk_class(cap * sizeof(*a)));
}

static struct nt_ynode **arr_grow(struct nt_ynode **old, size_t n, size_t oldcap, size_t cap)
{
	struct nt_ynode **a = blk_alloc(blk_class(cap * sizeof(*a)), cap * sizeof(*a));

	if (n)
		memcpy(a, old, n * sizeof(*a));
	nt_yarr_free(old, oldcap);
	return a;
}

struct nt_ynode *nt_ynew(enum nt_ytype t, struct nt_mark m)
{
	unsigned char k = blk_class(sizeof(struct nt_ynode));
	struct nt_ynode *n = blk_alloc(k, sizeof(*n));

	memset(n, 0, sizeof(*n));
	n->blk = k;
	n->type = t;
	n->mark = m;
	return n;
}

/* A scalar's text is allocated with its node (one malloc, one free: a
 * batch of profiles builds and frees millions of them); it is "inline"
 * while n->scalar points just past the node. */
static bool inline_text(const struct nt_ynode *n)
{
	return n->scalar == (const char *)(n + 1);
}

static struct nt_ynode *new_scalar(const char *s, size_t len, bool plain, struct nt_mark m)
{
	unsigned char k = blk_class(sizeof(struct nt_ynode) + len + 1);
	struct nt_ynode *n = blk_alloc(k, sizeof(*n) + len + 1);

	memset(n, 0, sizeof(*n));
	n->blk = k;
	n->type = NT_Y_SCALAR;
	n->mark = m;
	n->scalar = (char *)(n + 1);
	memcpy(n->scalar, s, len);
	n->scalar[len] = '\0';
	n->plain = plain;
	return n;
}

struct nt_ynode *nt_ynew_scalar(const char *s, bool plain, struct nt_mark m)
{
	return new_scalar(s, strlen(s), plain, m);
}

void nt_yset_scalar(struct nt_ynode *n, const char *s)
{
	if (s && n->scalar && strlen(s) <= strlen(n->scalar)) {
		memmove(n->scalar, s, strlen(s) + 1);
		return;
	}
	if (!inline_text(n))
		free(n->scalar);
	n->scalar = s ? nt_xstrdup(s) : NULL;
}

static void grow(struct nt_ynode *n, bool keys)
{
	size_t old = n->cap;

	if (n->n < n->cap)
		return;
	n->cap = n->cap ? n->cap * 2 : 4;
	n->vals = arr_grow(n->vals, n->n, old, n->cap);
	if (keys)
		n->keys = arr_grow(n->keys, n->n, old, n->cap);
}

void nt_ymap_set(struct nt_ynode *map, struct nt_ynode *key, struct nt_ynode *val)
{
	size_t i;

	if (nt_ymap_get(map, key->scalar, &i)) {
		nt_yfree(map->keys[i]);
		nt_yfree(map->vals[i]);
		map->keys[i] = key;
		map->vals[i] = val;
		return;
	}
	grow(map, true);
	map->keys[map->n] = key;
	map->vals[map->n++] = val;
}

void nt_yseq_push(struct nt_ynode *seq, struct nt_ynode *item)
{
	grow(seq, false);
	seq->vals[seq->n++] = item;
}

/* Maps up to this size are searched in order; larger ones through an
 * index, so that a map of n keys is built and merged in O(n). */
#define INDEX_MIN 8

static const char *key_at(const void *arr, size_t i)
{
	return ((struct nt_ynode *const *)arr)[i]->scalar;
}

struct nt_ynode *nt_ymap_get(const struct nt_ynode *map, const char *key, size_t *idx)
{
	size_t i;

	if (!map || map->type != NT_Y_MAP)
		return NULL;
	if (map->n > INDEX_MIN) {
		struct nt_ynode *m = (struct nt_ynode *)map;	/* the index is a cache */

		if (!m->index)
			m->index = nt_xcalloc(1, sizeof(*m->index));
		i = nt_strindex_find(m->index, m->keys, m->n, key_at, key);
		if (i == SIZE_MAX)
			return NULL;
		if (idx)
			*idx = i;
		return map->vals[i];
	}
	for (i = 0; i < map->n; i++)
		if (!strcmp(map->keys[i]->scalar, key)) {
			if (idx)
				*idx = i;
			return map->vals[i];
		}
	return NULL;
}

void nt_ymap_del(struct nt_ynode *map, size_t idx)
{
	nt_yfree(map->keys[idx]);
	nt_yfree(map->vals[idx]);
	memmove(&map->keys[idx], &map->keys[idx + 1], (map->n - idx - 1) * sizeof(*map->keys));
	memmove(&map->vals[idx], &map->vals[idx + 1], (map->n - idx - 1) * sizeof(*map->vals));
	map->n--;
	if (map->index)
		nt_strindex_reset(map->index);	/* positions moved */
}

void nt_yfree(struct nt_ynode *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++) {
		if (n->keys)
			nt_yfree(n->keys[i]);
		nt_yfree(n->vals[i]);
	}
	nt_yarr_free(n->keys, n->cap);
	nt_yarr_free(n->vals, n->cap);
	if (!inline_text(n))
		free(n->scalar);
	if (n->index)
		nt_strindex_reset(n->index);
	free(n->index);
	blk_free(n, n->blk);
}

struct nt_ynode *nt_ycopy(const struct nt_ynode *n)
{
	struct nt_ynode *c;
	size_t i;

	if (n->type == NT_Y_SCALAR)
		return nt_ynew_scalar(n->scalar, n->plain, n->mark);
	c = nt_ynew(n->type, n->mark);
	for (i = 0; i < n->n; i++) {
		if (n->type == NT_Y_MAP)
			nt_ymap_set(c, nt_ycopy(n->keys[i]), nt_ycopy(n->vals[i]));
		else
			nt_yseq_push(c, nt_ycopy(n->vals[i]));
	}
	return c;
}

struct frame {
	struct nt_ynode *node;
	struct nt_ynode *pending_key;	/* map: key read, value not yet */
};

struct builder {
	const char *file;
	struct nt_diags *d;
	struct frame stack[NT_YAML_MAX_DEPTH + 1];
	int depth;
	size_t nodes;
	struct nt_ynode *root;
	bool failed;
};

static struct nt_mark mk(const struct builder *b, yaml_mark_t m)
{
	struct nt_mark r = {b->file, (unsigned)m.line + 1, (unsigned)m.column + 1};

	return r;
}

/* Whether the document read so far is a nettune one (apiVersion or kind
 * at its top): only then may a message quote its text.  Any other file
 * (/etc/shadow parses as YAML) is reported by position alone. */
static bool quotable(const struct builder *b)
{
	const struct nt_ynode *top = b->depth ? b->stack[0].node : NULL;

	return top && top->type == NT_Y_MAP &&
	       (nt_ymap_get(top, "apiVersion", NULL) || nt_ymap_get(top, "kind", NULL));
}

/* Attaches a finished node to its parent; returns false on error. */
static bool attach(struct builder *b, struct nt_ynode *n)
{
	struct frame *f;
	size_t i;

	if (++b->nodes > NT_YAML_MAX_NODES) {
		nt_error(b->d, n->mark, "yaml-limit",
			 "document has more than %u nodes", NT_YAML_MAX_NODES);
		nt_yfree(n);
		return false;
	}
	if (b->depth == 0) {
		b->root = n;
		return true;
	}
	f = &b->stack[b->depth - 1];
	if (f->node->type == NT_Y_SEQ) {
		nt_yseq_push(f->node, n);
		return true;
	}
	if (!f->pending_key) {
		if (n->type != NT_Y_SCALAR) {
			nt_error(b->d, n->mark, "yaml-syntax",
				 "mapping keys must be plain scalars, not %s",
				 n->type == NT_Y_MAP ? "mappings" : "sequences");
			nt_yfree(n);
			return false;
		}
		if (nt_ymap_get(f->node, n->scalar, &i)) {
			if (quotable(b))
				nt_error(b->d, n->mark, "duplicate-key",
					 "duplicate key '%s' (first at line %u)", n->scalar,
					 f->node->keys[i]->mark.line);
			else
				nt_error(b->d, n->mark, "duplicate-key",
					 "duplicate key (first at line %u); not a nettune profile "
					 "(no apiVersion or kind before it), its text is not quoted",
					 f->node->keys[i]->mark.line);
			nt_yfree(n);
			return false;
		}
		f->pending_key = n;
		return true;
	}
	grow(f->node, true);
	f->node->keys[f->node->n] = f->pending_key;
	f->node->vals[f->node->n++] = n;
	f->pending_key = NULL;
	return true;
}

static void builder_free(struct builder *b)
{
	while (b->depth > 0) {
		struct frame *f = &b->stack[--b->depth];

		nt_yfree(f->pending_key);
		nt_yfree(f->node);
	}
	nt_yfree(b->root);
	b->root = NULL;
}

/* The byte at a libyaml mark; libyaml counts columns in characters. */
static int char_at(const char *data, size_t len, size_t line, size_t col)
{
	size_t i = 0;

	while (line && i < len)
		if (data[i++] == '\n')
			line--;
	for (; i < len && data[i] != '\n'; i++) {
		if (((unsigned char)data[i] & 0xc0) == 0x80)
			continue;	/* UTF-8 continuation byte */
		if (!col--)
			return (unsigned char)data[i];
	}
	return -1;
}

/* libyaml's problem text, made specific where it is known to confuse:
 * a tab where indentation belongs, and a construct left open earlier. */
static void syntax_error(struct builder *b, const yaml_parser_t *p, const char *data,
			 size_t len)
{
	const char *ctx = p->context;

	if (p->error == YAML_READER_ERROR) {
		/* the reader gives a byte offset and no mark */
		struct nt_mark m = nt_mark_at(b->file, data, len, p->problem_offset);

		if (p->problem_value >= 0)
			nt_error(b->d, m, "yaml-syntax", "%s (#x%X); a profile is UTF-8 text",
				 p->problem ? p->problem : "invalid input", p->problem_value);
		else
			nt_error(b->d, m, "yaml-syntax", "%s; a profile is UTF-8 text",
				 p->problem ? p->problem : "invalid input");
		return;
	}
	if (p->error == YAML_SCANNER_ERROR &&
	    char_at(data, len, p->problem_mark.line, p->problem_mark.column) == '\t') {
		nt_error(b->d, mk(b, p->problem_mark), "yaml-syntax",
			 "tab character; YAML is indented with spaces only");
		return;
	}
	if (ctx && (p->context_mark.line != p->problem_mark.line ||
		    p->context_mark.column != p->problem_mark.column))
		nt_error(b->d, mk(b, p->problem_mark), "yaml-syntax",
			 "%s %s that starts at line %u column %u",
			 p->problem ? p->problem : "invalid YAML", ctx,
			 (unsigned)p->context_mark.line + 1, (unsigned)p->context_mark.column + 1);
	else
		nt_error(b->d, mk(b, p->problem_mark), "yaml-syntax", "%s%s%s",
			 p->problem ? p->problem : "invalid YAML", ctx ? " " : "", ctx ? ctx : "");
}

struct nt_ynode *nt_yparse_data(const char *file, const char *data, size_t len,
				struct nt_diags *d)
{
	struct builder b = {0};
	yaml_parser_t p;
	yaml_event_t ev;
	int docs = 0;
	bool done = false;

	b.file = nt_intern(file);
	b.d = d;
	if (len > NT_YAML_MAX_BYTES) {
		struct nt_mark m = {b.file, 0, 0};

		nt_error(d, m, "yaml-limit", "file is larger than %u bytes", NT_YAML_MAX_BYTES);
		return NULL;
	}
	if (memchr(data, '\0', len)) {
		const char *nul = memchr(data, '\0', len);

		nt_error(d, nt_mark_at(b.file, data, len, (size_t)(nul - data)), "yaml-syntax",
			 "file contains a NUL byte; not a YAML text file");
		return NULL;
	}
	if (!yaml_parser_initialize(&p)) {
		fputs("nettune: out of memory\n", stderr);
		fflush(stderr);	/* it may be fully buffered */
		abort();
	}
	yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
	while (!done) {
		struct nt_ynode *n = NULL;

		if (!yaml_parser_parse(&p, &ev)) {
			syntax_error(&b, &p, data, len);
			b.failed = true;
			break;
		}
		switch (ev.type) {
		case YAML_STREAM_END_EVENT:
			done = true;
			break;
		case YAML_DOCUMENT_START_EVENT:
			if (++docs > 1) {
				nt_error(d, mk(&b, ev.start_mark), "yaml-syntax",
					 "more than one YAML document; a profile is one document");
				b.failed = true;
				done = true;
			}
			break;
		case YAML_ALIAS_EVENT:
			if (quotable(&b))
				nt_error(d, mk(&b, ev.start_mark), "yaml-alias",
					 "YAML aliases (*%s) are not supported in profiles; use extends or write the value out",
					 (const char *)ev.data.alias.anchor);
			else
				nt_error(d, mk(&b, ev.start_mark), "yaml-alias",
					 "YAML aliases are not supported in profiles (and this is not a "
					 "nettune profile: no apiVersion or kind before it)");
			b.failed = true;
			done = true;
			break;
		case YAML_SCALAR_EVENT:
			n = new_scalar((const char *)ev.data.scalar.value, ev.data.scalar.length,
				       false, mk(&b, ev.start_mark));
			if (strlen(n->scalar) != ev.data.scalar.length) {
				nt_error(d, n->mark, "yaml-syntax", "scalar contains a NUL character");
				nt_yfree(n);
				b.failed = true;
				done = true;
				break;
			}
			n->plain = ev.data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
			if (!attach(&b, n)) {
				b.failed = true;
				done = true;
			}
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (b.depth >= NT_YAML_MAX_DEPTH) {
				nt_error(d, mk(&b, ev.start_mark), "yaml-limit",
					 "nesting deeper than %d levels", NT_YAML_MAX_DEPTH);
				b.failed = true;
				done = true;
				break;
			}
			b.stack[b.depth].node = nt_ynew(ev.type == YAML_MAPPING_START_EVENT ?
							 NT_Y_MAP : NT_Y_SEQ,
							 mk(&b, ev.start_mark));
			b.stack[b.depth].pending_key = NULL;
			b.depth++;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			n = b.stack[--b.depth].node;
			if (!attach(&b, n)) {
				b.failed = true;
				done = true;
			}
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	if (b.failed) {
		builder_free(&b);
		return NULL;
	}
	if (!b.root) {
		struct nt_mark m = {b.file, 0, 0};

		nt_error(d, m, "empty", "file is empty; expected a mapping with apiVersion and kind");
		return NULL;
	}
	return b.root;
}

struct nt_ynode *nt_yparse_file(const char *path, struct nt_diags *d)
{
	return nt_yparse_input(path, 0, d);
}

struct nt_ynode *nt_yparse_input(const char *path, unsigned flags, struct nt_diags *d)
{
	struct nt_buf b;
	struct nt_ynode *r;
	char why[256];

	if (nt_read_input(path, NT_YAML_MAX_BYTES, flags, &b, why, sizeof(why))) {
		struct nt_mark m = {nt_intern(path), 0, 0};

		nt_error(d, m, "io", "%s", why);
		return NULL;
	}
	r = nt_yparse_data(path, b.p, b.n, d);
	nt_buf_free(&b);
	return r;
}

/* Copies the next path segment into seg, undoing ~1 and ~0. */
static const char *next_seg(const char *p, char *seg, size_t segsz)
{
	size_t n = 0;

	while (*p && *p != '/') {
		char c = *p++;

		if (c == '~' && (*p == '0' || *p == '1'))
			c = *p++ == '0' ? '~' : '/';
		if (n + 1 < segsz)
			seg[n++] = c;
	}
	seg[n] = '\0';
	return p;
}

const struct nt_ynode *nt_yget(const struct nt_ynode *root, const char *path,
			       bool key_mark)
{
	const struct nt_ynode *n = root;
	char seg[512];

	while (n && *path == '/') {
		path = next_seg(path + 1, seg, sizeof(seg));
		if (n->type == NT_Y_MAP) {
			size_t i;

			if (!nt_ymap_get(n, seg, &i))
				return NULL;
			if (key_mark && !*path)
				return n->keys[i];
			n = n->vals[i];
		} else if (n->type == NT_Y_SEQ) {
			char *end;
			unsigned long i = strtoul(seg, &end, 10);

			if (*end || !*seg || i >= n->n)
				return NULL;
			n = n->vals[i];
		} else {
			return NULL;
		}
	}
	return n;
}

struct nt_mark nt_ymark(const struct nt_ynode *root, const char *path, bool key_mark)
{
	char buf[256], *p = strlen(path) < sizeof(buf) ? strcpy(buf, path) : nt_xstrdup(path);
	const struct nt_ynode *n;
	struct nt_mark m = {root ? root->mark.file : NULL, 1, 1};

	for (;;) {
		n = nt_yget(root, p, key_mark);
		if (n) {
			m = n->mark;
			break;
		}
		char *slash = strrchr(p, '/');

		if (!slash)
			break;
		*slash = '\0';
		key_mark = true;
	}
	if (p != buf)
		free(p);
	return m;
}

static int emit_node(yaml_emitter_t *e, const struct nt_ynode *n)
{
	yaml_event_t ev;
	size_t i;

	switch (n->type) {
	case NT_Y_SCALAR:
		yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)n->scalar,
					     (int)strlen(n->scalar), 1, 1,
					     n->plain ? YAML_ANY_SCALAR_STYLE :
					     YAML_DOUBLE_QUOTED_SCALAR_STYLE);
		return yaml_emitter_emit(e, &ev) ? 0 : -1;
	case NT_Y_MAP:
		yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
		if (!yaml_emitter_emit(e, &ev))
			return -1;
		for (i = 0; i < n->n; i++)
			if (emit_node(e, n->keys[i]) || emit_node(e, n->vals[i]))
				return -1;
		yaml_mapping_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev) ? 0 : -1;
	case NT_Y_SEQ:
		yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
		if (!yaml_emitter_emit(e, &ev))
			return -1;
		for (i = 0; i < n->n; i++)
			if (emit_node(e, n->vals[i]))
				return -1;
		yaml_sequence_end_event_initialize(&ev);
		return yaml_emitter_emit(e, &ev) ? 0 : -1;
	}
	return -1;
}

static int write_handler(void *data, unsigned char *buffer, size_t size)
{
	nt_buf_putn(data, (const char *)buffer, size);
	return 1;
}

int nt_yemit(const struct nt_ynode *root, struct nt_buf *out)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	int r = -1;

	if (!yaml_emitter_initialize(&e))
		return -1;
	yaml_emitter_set_output(&e, write_handler, out);
	yaml_emitter_set_unicode(&e, 1);
	yaml_emitter_set_width(&e, -1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	if (emit_node(&e, root))
		goto out;
	yaml_document_end_event_initialize(&ev, 1);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	yaml_stream_end_event_initialize(&ev);
	if (!yaml_emitter_emit(&e, &ev))
		goto out;
	r = 0;
out:
	yaml_emitter_delete(&e);
	return r;
}
