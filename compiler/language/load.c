/* SPDX-License-Identifier: MIT */
/* Profile loading: extends resolution, merge, defaults, libcyaml load. */
#include <ctype.h>
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/buf.h"
#include "../base/embedded.h"
#include "check.h"
#include "load.h"
#include "../base/paths.h"
#include "../base/strictmodes.h"
#include "schema.h"
#include "typed.h"

#define MAX_EXTENDS_DEPTH 8

struct loader {
	const struct nt_load_opts *o;
	struct nt_diags *d;
	const char *stack[MAX_EXTENDS_DEPTH + 1];	/* files being loaded, as named */
	char *real[MAX_EXTENDS_DEPTH + 1];		/* the same, canonical (or NULL) */
	int depth;
	const char **sources;
	size_t nsources;
	struct nt_mark *pruned;		/* keep_going: see nt_loaded */
	size_t npruned;
};

static void add_source(struct loader *L, const char *file)
{
	size_t i;

	for (i = 0; i < L->nsources; i++)
		if (L->sources[i] == file)
			return;
	L->sources = nt_xrealloc(L->sources, (L->nsources + 1) * sizeof(*L->sources));
	L->sources[L->nsources++] = file;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * A policy found in a search directory: 0 with *real set when dir/name is
 * a regular file whose canonical path stays inside the canonical dir, 1
 * when there is nothing there, -1 (why set) when something is there that
 * must not be read: a link that leads out of the directory (to a secret,
 * say; its text must never reach a diagnostic), a dangling link, a FIFO,
 * or (strict: the data directory, which nt_data_dir checked with every
 * directory above it) a file another user may write.
 */
static int candidate(const char *dir, const char *p, bool strict, char **real, char *why,
		     size_t whylen)
{
	char *rdir, *rfile;
	struct stat st;
	size_t n;
	int r = -1;

	*real = NULL;
	if (lstat(p, &st))
		return 1;
	rdir = realpath(dir, NULL);
	if (strict && S_ISREG(st.st_mode) &&
	    nt_strict_owner_mode("the data directory's policy", base_name(p), &st, false, why,
				 whylen)) {
		free(rdir);
		return -1;
	}
	if (rdir && S_ISREG(st.st_mode)) {
		/* p is dir/NAME.yaml (a policy name has no '/') and no link:
		 * its canonical path is the directory's plus its own name,
		 * and it is inside the directory (saves realpath's readlink
		 * of every component and a stat, for every profile that
		 * extends a policy) */
		const char *base = strrchr(p, '/');

		*real = nt_xasprintf("%s/%s", strcmp(rdir, "/") ? rdir : "",
				     base ? base + 1 : p);
		free(rdir);
		return 0;
	}
	rfile = realpath(p, NULL);
	if (!rfile || !rdir) {
		snprintf(why, whylen, "%s", S_ISLNK(st.st_mode) ? "is a dangling symbolic link" :
			 "cannot be resolved");
		goto out;
	}
	n = strlen(rdir);
	if (n == 1)
		n = 0;		/* the search directory is "/" */
	if (strncmp(rfile, rdir, n) || rfile[n] != '/') {
		snprintf(why, whylen, "leads outside the profile search directory %s; not read", dir);
		goto out;
	}
	if (stat(rfile, &st) || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "not a regular file (%s)", nt_file_type(st.st_mode));
		goto out;
	}
	if (strict && nt_strict_owner_mode("the data directory's policy", rfile, &st, false, why,
					   whylen))
		goto out;
	*real = rfile;
	rfile = NULL;
	r = 0;
out:
	free(rdir);
	free(rfile);
	return r;
}

static bool valid_policy_name(const char *s)
{
	if (!*s || *s == '.' || *s == '-')
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

/* Diagnostics name files as the user would type them: relative to the
 * working directory when the file is below it. */
static char *relative_to_cwd(char *p)
{
	char cwd[4096];
	size_t n;

	if (p[0] != '/' || !getcwd(cwd, sizeof(cwd)))
		return p;
	n = strlen(cwd);
	if (!strncmp(p, cwd, n) && p[n] == '/') {
		char *r = nt_xstrdup(p + n + 1);

		free(p);
		return r;
	}
	return p;
}

/* Bundled policies compiled into the binary are named like this in
 * diagnostics; no file system path starts with '<'. */
#define BUILTIN_DIR "<built-in>/profiles"

const struct nt_caps_text *nt_builtin_policy(const char *p)
{
	size_t i, n = strlen(BUILTIN_DIR);

	if (strncmp(p, BUILTIN_DIR "/", n + 1))
		return NULL;
	for (i = 0; i < nt_policies_nbuiltin; i++)
		if (!strcmp(nt_policies_builtin[i].name, p + n + 1))
			return &nt_policies_builtin[i];
	return NULL;
}

/* Looks for NAME.yaml along the search path; returns a malloc'd path as
 * the user would write it, with *real its canonical form.  NULL with why
 * empty when not found, with why set when the first match is refused. */
static char *resolve(struct loader *L, const char *from_file, const char *name,
		     struct nt_buf *tried, char **real, char *why, size_t whylen)
{
	char *dirs[64];
	size_t nd = 0, i, data = SIZE_MAX;
	char *dir = nt_xstrdup(from_file), *slash = strrchr(dir, '/'), *found = NULL;
	const char *own_dir_prefix;
	bool stop = false;

	*why = '\0';
	if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	dirs[nd++] = dir;
	/* "profile.yaml" extends "p": report "p.yaml", not "./p.yaml" */
	own_dir_prefix = slash ? dir : NULL;
	for (i = 0; i < L->o->nprofile_path && nd < 62; i++)
		dirs[nd++] = nt_xstrdup(L->o->profile_path[i]);
	dirs[nd] = nt_data_dir("profiles");
	if (dirs[nd])
		data = nd++;
	for (i = 0; i < nd && !stop; i++) {
		static const char *const ext[] = {".yaml", ".yml"};
		size_t e;

		for (e = 0; e < 2 && !stop; e++) {
			char *p = i || own_dir_prefix ?
				  nt_xasprintf("%s/%s%s", dirs[i], name, ext[e]) :
				  nt_xasprintf("%s%s", name, ext[e]);
			int c = candidate(dirs[i], p, i == data, real, why, whylen);

			if (c <= 0) {
				stop = true;
				found = relative_to_cwd(p);
			} else {
				free(p);
			}
		}
		nt_buf_printf(tried, "%s%s", i ? ", " : "", dirs[i]);
	}
	for (i = 0; i < nd; i++)
		free(dirs[i]);
	/* last, the policies compiled in: a host with no data directory */
	if (!stop && nt_policies_nbuiltin) {
		char *p = nt_xasprintf("%s/%s.yaml", BUILTIN_DIR, name);

		if (nt_builtin_policy(p)) {
			found = p;
			*real = nt_xstrdup(p);
		} else {
			free(p);
		}
		nt_buf_printf(tried, ", %s", BUILTIN_DIR);
	}
	return found;
}

/* The closest policy name in the searched directories (", "-separated). */
static char *suggest_policy(const char *dirs, const char *name)
{
	char *list = nt_xstrdup(dirs), *save = NULL, *dir, *best = NULL;
	const char *cands[256];
	char *owned[256];
	size_t n = 0, i;

	for (dir = strtok_r(list, ",", &save); dir && n < 256; dir = strtok_r(NULL, ",", &save)) {
		DIR *d;
		struct dirent *de;

		while (*dir == ' ')
			dir++;
		d = opendir(dir);
		while (d && (de = readdir(d)) && n < 256) {
			size_t l = strlen(de->d_name);

			if (l > 5 && !strcmp(de->d_name + l - 5, ".yaml")) {
				owned[n] = strndup(de->d_name, l - 5);
				cands[n] = owned[n];
				n++;
			}
		}
		if (d)
			closedir(d);
	}
	for (i = 0; i < nt_policies_nbuiltin && n < 256; i++) {
		size_t l = strlen(nt_policies_builtin[i].name);

		if (l > 5) {
			owned[n] = strndup(nt_policies_builtin[i].name, l - 5);
			cands[n] = owned[n];
			n++;
		}
	}
	if (n) {
		const char *s = nt_suggest(name, cands, n);

		if (s)
			best = nt_xstrdup(s);
	}
	for (i = 0; i < n; i++)
		free(owned[i]);
	free(list);
	return best;
}

static const char *kind_of(const struct nt_ynode *root)
{
	const struct nt_ynode *k = nt_ymap_get(root, "kind", NULL);

	return k && k->type == NT_Y_SCALAR ? k->scalar : "";
}

static void merge(struct loader *L, struct nt_ynode *dst, const struct nt_ynode *src,
		  bool siblings, const char *hpath);

static void merge_interfaces(struct loader *L, struct nt_ynode *dst,
			     const struct nt_ynode *src, bool siblings)
{
	size_t i, j;

	for (i = 0; i < src->n; i++) {
		const struct nt_ynode *s = src->vals[i];
		const struct nt_ynode *sn = nt_ymap_get(s, "name", NULL);
		bool done = false;

		for (j = 0; sn && sn->type == NT_Y_SCALAR && j < dst->n; j++) {
			const struct nt_ynode *dn = nt_ymap_get(dst->vals[j], "name", NULL);

			if (dn && dn->type == NT_Y_SCALAR && !strcmp(dn->scalar, sn->scalar)) {
				char *hp = nt_xasprintf("interfaces[%s]", sn->scalar);

				merge(L, dst->vals[j], s, siblings, hp);
				dst->vals[j]->mark = s->mark;
				free(hp);
				done = true;
				break;
			}
		}
		if (!done)
			nt_yseq_push(dst, nt_ycopy(s));
	}
}

static bool same_value(const struct nt_ynode *a, const struct nt_ynode *b)
{
	size_t i;

	if (a->type != b->type || a->n != b->n)
		return false;
	if (a->type == NT_Y_SCALAR)
		return !strcmp(a->scalar, b->scalar);
	for (i = 0; i < a->n; i++) {
		if (a->type == NT_Y_MAP && strcmp(a->keys[i]->scalar, b->keys[i]->scalar))
			return false;
		if (!same_value(a->vals[i], b->vals[i]))
			return false;
	}
	return true;
}

static void merge(struct loader *L, struct nt_ynode *dst, const struct nt_ynode *src,
		  bool siblings, const char *hpath)
{
	size_t i, j;

	for (i = 0; i < src->n; i++) {
		const char *key = src->keys[i]->scalar;
		const struct nt_ynode *sv = src->vals[i];
		struct nt_ynode *dv = nt_ymap_get(dst, key, &j);
		char *sub = *hpath ? nt_xasprintf("%s.%s", hpath, key) : nt_xstrdup(key);

		if (!dv) {
			nt_ymap_set(dst, nt_ycopy(src->keys[i]), nt_ycopy(sv));
		} else if (dv->type == NT_Y_MAP && sv->type == NT_Y_MAP) {
			merge(L, dv, sv, siblings, sub);
			/* a merged map is located where it was last written, so that
			 * "uso: on" over a policy's "uso: off" points at the profile */
			dv->mark = sv->mark;
		} else if (!strcmp(key, "interfaces") && !*hpath &&
			   dv->type == NT_Y_SEQ && sv->type == NT_Y_SEQ) {
			merge_interfaces(L, dv, sv, siblings);
		} else if ((dv->type == NT_Y_MAP) != (sv->type == NT_Y_MAP)) {
			nt_error(L->d, sv->mark, "merge-conflict",
				 "%s is %s here but %s in %s:%u:%u; cannot merge", sub,
				 sv->type == NT_Y_MAP ? "a mapping" : "a single value",
				 dv->type == NT_Y_MAP ? "a mapping" : "a single value",
				 dv->mark.file, dv->mark.line, dv->mark.col);
		} else {
			if (siblings && !same_value(dv, sv) && dv->mark.file != sv->mark.file)
				nt_warn(L->d, sv->mark, "merge-override",
					"%s set here overrides the different value from %s:%u:%u; "
					"the later entry in extends wins", sub,
					dv->mark.file, dv->mark.line, dv->mark.col);
			nt_ymap_set(dst, nt_ycopy(src->keys[i]), nt_ycopy(sv));
		}
		free(sub);
	}
}

static void drop_key(struct nt_ynode *map, const char *key)
{
	size_t i;

	if (nt_ymap_get(map, key, &i))
		nt_ymap_del(map, i);
}

static struct nt_ynode *load_tree(struct loader *L, const char *path,
				  struct nt_ynode *parsed);

/*
 * Policies are parsed and checked once per process: a batch where
 * thousands of profiles extend one policy would otherwise parse it
 * thousands of times.  An entry is the policy's name as the user would
 * write it and its exact bytes, with what parsing and checking them gave:
 * the checked tree (or none) and every diagnostic, replayed on a hit.
 * The file is still opened and read each time, with the same checks.
 */
#define POLICY_CACHE 16

struct policy {
	const char *file;	/* interned */
	char *bytes;
	size_t n;
	bool parsed;		/* it parsed (it counts as a source) */
	struct nt_ynode *tree;	/* checked; NULL when the check failed */
	struct nt_diags d;
};

static struct policy policy_cache[POLICY_CACHE];
static size_t policy_next;

static struct policy *policy_parse(const char *p, struct nt_buf *b)
{
	const char *file = nt_intern(p);
	struct nt_ynode *t;
	struct policy *c;
	size_t i;

	for (i = 0; i < POLICY_CACHE; i++) {
		c = &policy_cache[i];
		if (c->file == file && c->n == b->n && !memcmp(c->bytes, b->p, b->n))
			return c;
	}
	c = &policy_cache[policy_next++ % POLICY_CACHE];
	free(c->bytes);
	nt_yfree(c->tree);
	nt_diags_free(&c->d);
	c->file = file;
	c->n = b->n;
	c->bytes = nt_xmalloc(b->n + 1);
	memcpy(c->bytes, b->p, b->n);
	t = nt_yparse_data(p, b->p, b->n, &c->d);
	c->parsed = t != NULL;
	if (t && nt_check(t, &nt_profile_schema, &c->d)) {
		nt_yfree(t);
		t = NULL;
	}
	c->tree = t;
	return c;
}

static struct nt_ynode *extend_tree(struct loader *L, struct nt_ynode *root);

/* Reads a resolved policy by its canonical path, not following a link
 * swapped in since it was resolved, and names it as the user would. */
static struct nt_ynode *load_policy(struct loader *L, const char *p, const char *rp)
{
	const struct nt_caps_text *bi = nt_builtin_policy(p);
	struct policy *c;
	struct nt_buf b;
	char why[256];
	size_t i;

	if (bi) {
		/* built-in: parsed from the embedded text, never freed */
		b.p = (char *)bi->text;
		b.n = b.cap = bi->len;
		c = policy_parse(p, &b);
	} else if (nt_read_input(rp, NT_YAML_MAX_BYTES, NT_IN_NOFOLLOW, &b, why, sizeof(why))) {
		struct nt_mark m = {nt_intern(p), 0, 0};

		nt_error(L->d, m, "io", "%s", why);
		return NULL;
	} else {
		c = policy_parse(p, &b);
		nt_buf_free(&b);
	}
	for (i = 0; i < c->d.n; i++)
		nt_diag_add(L->d, c->d.v[i].sev, c->d.v[i].mark, c->d.v[i].rule, "%s",
			    c->d.v[i].msg);
	if (c->parsed)
		add_source(L, c->file);
	return c->tree ? extend_tree(L, nt_ycopy(c->tree)) : NULL;
}

/* Resolves and merges the extends of root; returns the merged tree. */
/* The file an extends entry names (*p, canonical *rp); false once reported. */
static bool extends_find(struct loader *L, const struct nt_ynode *root, const struct nt_ynode *e,
			 char **p, char **rp)
{
	struct nt_buf tried = {0};
	char why[512];

	if (!valid_policy_name(e->scalar)) {
		nt_error(L->d, e->mark, "extends",
			 "'%s' is not a policy name (lower-case letters, digits, '-', '_' and '.')",
			 e->scalar);
		return false;
	}
	*rp = NULL;
	*p = resolve(L, root->mark.file, e->scalar, &tried, rp, why, sizeof(why));
	if (*p && !*rp) {
		nt_error(L->d, e->mark, "extends", "policy profile '%s': %s: %s", e->scalar,
			 *p, why);
		nt_buf_free(&tried);
		free(*p);
		free(*rp);
		return false;
	}
	if (!*p) {
		char *near = suggest_policy(tried.p ? tried.p : "", e->scalar);

		if (near)
			nt_error(L->d, e->mark, "extends",
				 "policy profile '%s' not found; did you mean '%s'? (searched %s)",
				 e->scalar, near, tried.p);
		else
			nt_error(L->d, e->mark, "extends",
				 "policy profile '%s' not found (searched %s)", e->scalar,
				 tried.p ? tried.p : "nothing");
		free(near);
		nt_buf_free(&tried);
		return false;
	}
	nt_buf_free(&tried);
	return true;
}

/* A file already being loaded further up, or one level too deep; true once reported. */
static bool extends_too_deep(struct loader *L, const struct nt_ynode *e, const char *p,
			     const char *rp)
{
	int k;

	/* compare canonical paths: "a.yaml", "./a.yaml" and a
	 * --profile-path spelling of the same folder are one file */
	for (k = 0; k < L->depth; k++)
		if (!strcmp(L->stack[k], p) ||
		    (L->real[k] && !strcmp(L->real[k], rp)))
			break;
	if (k < L->depth) {
		struct nt_buf chain = {0};
		int m;

		for (m = k; m < L->depth; m++)
			nt_buf_printf(&chain, "%s -> ", L->stack[m]);
		nt_buf_puts(&chain, p);
		nt_error(L->d, e->mark, "extends-cycle", "extends cycle: %s", chain.p);
		nt_buf_free(&chain);
		return true;
	}
	if (L->depth >= MAX_EXTENDS_DEPTH) {
		nt_error(L->d, e->mark, "extends", "extends nested deeper than %d levels",
			 MAX_EXTENDS_DEPTH);
		return true;
	}
	return false;
}

/* The policy profile of one extends entry, without its identity; NULL (and
 * *bad) when it cannot be used, *bad alone when it sets host keys. */
static struct nt_ynode *extends_one(struct loader *L, const struct nt_ynode *root,
				    const struct nt_ynode *e, bool *bad)
{
	struct nt_ynode *base;
	char *p, *rp;

	if (!extends_find(L, root, e, &p, &rp)) {
		*bad = true;
		return NULL;
	}
	if (extends_too_deep(L, e, p, rp)) {
		free(p);
		free(rp);
		*bad = true;
		return NULL;
	}
	base = load_policy(L, p, rp);
	if (!base) {
		/* its own errors are located in it; this one makes the
		 * profile that pulls it in invalid too */
		nt_error(L->d, e->mark, "extends", "policy profile '%s' (%s) has errors",
			 e->scalar, nt_intern(p));
		free(p);
		free(rp);
		*bad = true;
		return NULL;
	}
	free(p);
	free(rp);
	if (strcmp(kind_of(base), "PolicyProfile")) {
		nt_error(L->d, e->mark, "extends",
			 "'%s' (%s) is a %s; only a PolicyProfile can be extended",
			 e->scalar, base->mark.file, kind_of(base));
		nt_yfree(base);
		*bad = true;
		return NULL;
	}
	if (nt_ymap_get(base, "host", NULL) || nt_ymap_get(base, "target", NULL)) {
		nt_error(L->d, e->mark, "extends",
			 "policy profile '%s' (%s) sets %s, which only a HostProfile may set",
			 e->scalar, base->mark.file,
			 nt_ymap_get(base, "host", NULL) ? "host" : "target");
		*bad = true;
	}
	drop_key(base, "apiVersion");
	drop_key(base, "kind");
	drop_key(base, "metadata");
	return base;
}

static struct nt_ynode *apply_extends(struct loader *L, struct nt_ynode *root)
{
	const struct nt_ynode *ext = nt_ymap_get(root, "extends", NULL);
	struct nt_ynode *acc = NULL, *self;
	size_t i;
	bool bad = false;

	if (!ext || ext->type != NT_Y_SEQ)
		return root;
	for (i = 0; i < ext->n; i++) {
		struct nt_ynode *base = extends_one(L, root, ext->vals[i], &bad);

		if (!base)
			continue;
		if (!acc)
			acc = base;
		else {
			merge(L, acc, base, true, "");
			nt_yfree(base);
		}
	}
	if (bad) {
		nt_yfree(acc);
		nt_yfree(root);
		return NULL;
	}
	if (!acc)
		return root;
	self = root;
	merge(L, acc, self, false, "");
	acc->mark = self->mark;
	/* the profile's own identity wins and stays in its original order */
	nt_yfree(self);
	return acc;
}

static struct nt_ynode *load_tree(struct loader *L, const char *path,
				  struct nt_ynode *parsed)
{
	struct nt_ynode *root = parsed ? parsed : nt_yparse_input(path, L->o->open_flags, L->d);

	if (!root)
		return NULL;
	add_source(L, root->mark.file);
	if (L->o->keep_going && !L->depth && root->type == NT_Y_MAP) {
		/* errors stay in d; the rest goes on to the later checks */
		nt_check_prune(root, &nt_profile_schema, L->d, &L->pruned, &L->npruned);
	} else if (nt_check(root, &nt_profile_schema, L->d)) {
		nt_yfree(root);
		return NULL;
	}
	return extend_tree(L, root);
}

/* Merges the extends of a checked tree (the file is on the stack meanwhile). */
static struct nt_ynode *extend_tree(struct loader *L, struct nt_ynode *root)
{
	L->stack[L->depth] = root->mark.file;
	/* the canonical path is only compared when a file on the stack is
	 * extended again, and a file in a cycle has extends: one without
	 * (most profiles of a batch) needs no realpath (5 syscalls) */
	L->real[L->depth++] = nt_ymap_get(root, "extends", NULL) ?
			      realpath(root->mark.file, NULL) : NULL;
	root = apply_extends(L, root);
	free(L->real[--L->depth]);
	return root;
}

/* Merges defaults.physical / defaults.tunnel beneath each interface. */
static int apply_defaults(struct loader *L, struct nt_ynode *root)
{
	struct nt_ynode *defs = nt_ymap_get(root, "defaults", NULL);
	struct nt_ynode *ifs = nt_ymap_get(root, "interfaces", NULL);
	size_t i;
	int bad = 0;

	if (!defs)
		return 0;
	for (i = 0; i < defs->n; i++)
		if (nt_ymap_get(defs->vals[i], "name", NULL)) {
			nt_error(L->d, nt_yget(defs->vals[i], "/name", true)->mark, "defaults",
				 "defaults.%s cannot have a name; it applies to every %s interface",
				 defs->keys[i]->scalar, defs->keys[i]->scalar);
			bad = -1;
		}
	/* which defaults an interface gets depends on its own tunnel key */
	for (i = 0; i < defs->n; i++)
		if (nt_ymap_get(defs->vals[i], "tunnel", NULL)) {
			nt_error(L->d, nt_yget(defs->vals[i], "/tunnel", true)->mark, "defaults",
				 "defaults.%s cannot have a tunnel key; it would make every %s "
				 "interface a tunnel of one kind over one underlay: give tunnel per "
				 "interface", defs->keys[i]->scalar, defs->keys[i]->scalar);
			bad = -1;
		}
	if (bad || strcmp(kind_of(root), "HostProfile"))
		return bad;
	for (i = 0; ifs && ifs->type == NT_Y_SEQ && i < ifs->n; i++) {
		struct nt_ynode *iface = ifs->vals[i];
		const char *which = nt_ymap_get(iface, "tunnel", NULL) ? "tunnel" : "physical";
		const struct nt_ynode *d = nt_ymap_get(defs, which, NULL);
		struct nt_ynode *acc;

		if (!d)
			continue;
		acc = nt_ycopy(d);
		merge(L, acc, iface, false, "");
		acc->mark = iface->mark;
		ifs->vals[i] = acc;
		nt_yfree(iface);
	}
	drop_key(root, "defaults");
	return 0;
}

static int finish(struct loader *L, struct nt_ynode *root, const char *file,
		  struct nt_loaded *out)
{
	struct nt_profile *p = NULL;
	struct nt_mark where;
	const char *why;

	if (!root || apply_defaults(L, root) || (L->d->errors && !L->o->keep_going)) {
		nt_yfree(root);
		return -1;
	}
	/* built from the tree that was parsed and checked: no second parse */
	if (nt_typed_load(root, &nt_profile_schema, (void **)&p, &where, &why)) {
		/* after schema errors, what is left may lack a required key:
		 * those errors already say why */
		if (!L->d->errors)
			nt_error(L->d, where, "internal", "the merged profile does not load: %s",
				 why);
		nt_yfree(root);
		return -1;
	}
	out->p = p;
	out->tree = root;
	out->file = nt_intern(file);
	out->sources = L->sources;
	out->nsources = L->nsources;
	out->pruned = L->pruned;
	out->npruned = L->npruned;
	L->pruned = NULL;
	return 0;
}

static int load_common(const char *file, struct nt_ynode *parsed, const struct nt_load_opts *o,
		       struct nt_loaded *out, struct nt_diags *d)
{
	static const struct nt_load_opts none;
	struct loader L = {0};
	size_t errs0 = d->errors;
	int r;

	memset(out, 0, sizeof(*out));
	L.o = o ? o : &none;
	L.d = d;
	r = finish(&L, load_tree(&L, file, parsed), file, out);
	if (r || (d->errors > errs0 && !L.o->keep_going)) {
		if (!r)
			nt_loaded_free(out);
		else
			free(L.sources);
		free(L.pruned);
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return 0;
}

int nt_load_profile(const char *path, const struct nt_load_opts *o,
		    struct nt_loaded *out, struct nt_diags *d)
{
	return load_common(path, NULL, o, out, d);
}

int nt_load_profile_data(const char *file, const char *data, size_t len,
			 const struct nt_load_opts *o, struct nt_loaded *out,
			 struct nt_diags *d)
{
	struct nt_ynode *root = nt_yparse_data(file, data, len, d);

	if (!root) {
		memset(out, 0, sizeof(*out));
		return -1;
	}
	return load_common(file, root, o, out, d);
}

void nt_loaded_free(struct nt_loaded *l)
{
	nt_typed_free(&nt_profile_schema, l->p);
	nt_yfree(l->tree);
	free(l->sources);
	free(l->pruned);
	memset(l, 0, sizeof(*l));
}

struct nt_mark nt_loaded_mark(const struct nt_loaded *l, const char *path, bool key_mark)
{
	return nt_ymark(l->tree, path, key_mark);
}
