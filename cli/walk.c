/* SPDX-License-Identifier: MIT */
/* Profiles below a directory, for compile and validate: sorted, nettune YAML only, no link followed. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../compiler/base/buf.h"
#include "../compiler/language/ytree.h"
#include "walk.h"

struct entry {
	char *path;
	bool dir, link;
};

/* what a walk saw: the files (for the links' duplicates) and the links */
struct seen {
	struct {
		dev_t dev;
		ino_t ino;
	} *files;
	size_t nfiles;
	char **links;
	size_t nlinks;
};

static bool is_profile_name(const char *n)
{
	size_t l = strlen(n);

	return (l > 5 && !strcmp(n + l - 5, ".yaml")) || (l > 4 && !strcmp(n + l - 4, ".yml"));
}

static void add(struct nt_walk *W, char *path, bool walked)
{
	W->v = nt_xrealloc(W->v, (W->n + 1) * sizeof(*W->v));
	W->walked = nt_xrealloc(W->walked, (W->n + 1) * sizeof(*W->walked));
	W->v[W->n] = path;
	W->walked[W->n++] = walked;
}

/* The test of scripts/ci/nettune-hook and action.yml, so that a tree gives
 * the same files to every one of them: a line that starts with
 * apiVersion:, blanks, an optional quote, then nettune/. */
static bool is_nettune(const char *s)
{
	const char *p;

	for (p = s; p; p = strchr(p, '\n')) {
		const char *q;

		if (*p == '\n')
			p++;
		if (strncmp(p, "apiVersion:", 11))
			continue;
		for (q = p + 11; *q == ' ' || *q == '\t' || *q == '\r' || *q == '\v' || *q == '\f'; q++)
			;
		if (*q == '"' || *q == '\'')
			q++;
		if (!strncmp(q, "nettune/", 8))
			return true;
	}
	return false;
}

/* A regular file that can be read and is not a nettune profile.  One that
 * cannot be read is kept: the loader says why. */
static bool skip_file(int dirfd, const char *name)
{
	char why[128];
	struct stat st;
	struct nt_buf b = {0};
	int fd = nt_open_input_at(dirfd, name, NT_IN_NOFOLLOW, &st, why, sizeof(why));
	bool skip;

	if (fd < 0)
		return false;
	if (nt_read_fd(fd, NT_YAML_MAX_BYTES, &b, why, sizeof(why))) {
		close(fd);
		return false;
	}
	close(fd);
	skip = !is_nettune(b.p ? b.p : "");
	nt_buf_free(&b);
	return skip;
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

/* Only real directories are entered, never a link to one; a FIFO is
 * listed, to be opened with O_NONBLOCK and refused, not waited on. */
static void walk(struct nt_walk *W, struct seen *S, const char *dir, int depth)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK |
		      (depth ? O_NOFOLLOW : 0));
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct entry *here = NULL;
	struct dirent *e;
	size_t nh = 0, i;

	if (!d || depth > 16) {
		if (d)
			closedir(d);
		else if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st;

		if (e->d_name[0] == '.' ||
		    fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    (!S_ISDIR(st.st_mode) && !is_profile_name(e->d_name)))
			continue;
		if (S_ISREG(st.st_mode)) {
			S->files = nt_xrealloc(S->files, (S->nfiles + 1) * sizeof(*S->files));
			S->files[S->nfiles].dev = st.st_dev;
			S->files[S->nfiles++].ino = st.st_ino;
			if (skip_file(fd, e->d_name)) {
				W->not_nettune++;
				continue;
			}
		}
		here = nt_xrealloc(here, (nh + 1) * sizeof(*here));
		here[nh].dir = S_ISDIR(st.st_mode);
		here[nh].link = S_ISLNK(st.st_mode);
		here[nh++].path = nt_xasprintf("%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (nh > 1)
		qsort(here, nh, sizeof(*here), cmp_entry);
	for (i = 0; i < nh; i++) {
		if (here[i].dir) {
			walk(W, S, here[i].path, depth + 1);
			free(here[i].path);
		} else {
			if (here[i].link) {
				S->links = nt_xrealloc(S->links, (S->nlinks + 1) * sizeof(*S->links));
				S->links[S->nlinks++] = here[i].path;
			}
			add(W, here[i].path, true);
		}
	}
	free(here);
}

/* A link to a file of the tree is that file again (a host named after the
 * profile it shares, examples/ansible/hosts/): dropped and counted.  The
 * link is only stat()ed here, never opened; any other stays, and opening
 * it with O_NOFOLLOW reports it. */
static void drop_duplicate_links(struct nt_walk *W, struct seen *S, size_t from)
{
	size_t i, k, out = from;

	for (i = from; i < W->n; i++) {
		bool dup = false;
		struct stat st;

		for (k = 0; k < S->nlinks && !dup; k++)
			if (W->v[i] == S->links[k] && !stat(W->v[i], &st) && S_ISREG(st.st_mode))
				for (size_t f = 0; f < S->nfiles && !dup; f++)
					dup = S->files[f].dev == st.st_dev && S->files[f].ino == st.st_ino;
		if (dup) {
			free(W->v[i]);
			W->links++;
			continue;
		}
		W->v[out] = W->v[i];
		W->walked[out++] = W->walked[i];
	}
	W->n = out;
}

/* "examples//" and "a//b/" as "examples" and "a/b"; "/" stays. */
static char *normalise(const char *arg)
{
	char *s = nt_xstrdup(arg), *w = s;
	const char *r;

	for (r = arg; *r; r++)
		if (!(*r == '/' && r[1] == '/'))
			*w++ = *r;
	*w = '\0';
	if (w - s > 1 && w[-1] == '/')
		w[-1] = '\0';
	return s;
}

void nt_walk_add(struct nt_walk *W, const char *arg)
{
	struct stat st;
	struct seen S = {0};
	size_t from = W->n;
	char *root;

	if (stat(arg, &st) || !S_ISDIR(st.st_mode)) {
		add(W, nt_xstrdup(arg), false);
		return;
	}
	W->dirs++;
	root = normalise(arg);
	walk(W, &S, root, 0);
	drop_duplicate_links(W, &S, from);
	free(root);
	free(S.files);
	free(S.links);
}

char *nt_walk_skipped(const struct nt_walk *W)
{
	struct nt_buf b = {0};

	if (W->not_nettune)
		nt_buf_printf(&b, "%zu YAML file%s not a nettune profile (no apiVersion: "
			      "nettune/...)", W->not_nettune, W->not_nettune == 1 ? "" : "s");
	if (W->links)
		nt_buf_printf(&b, "%s%zu symbolic link%s to a file in the same tree",
			      b.n ? ", " : "", W->links, W->links == 1 ? "" : "s");
	if (!b.n)
		return nt_xstrdup("");
	{
		char *s = nt_xasprintf("; skipped %s", b.p);

		nt_buf_free(&b);
		return s;
	}
}

void nt_walk_free(struct nt_walk *W)
{
	for (size_t i = 0; i < W->n; i++)
		free(W->v[i]);
	free(W->v);
	free(W->walked);
	W->v = NULL;
	W->walked = NULL;
	W->n = 0;
}
