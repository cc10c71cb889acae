/* SPDX-License-Identifier: MIT */
/* Data directory lookup, relocatable relative to the executable, trusted
 * only when nobody else can write it (StrictModes). */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "paths.h"
#include "strictmodes.h"

/* Whether directory dir (canonical, from /proc/self/exe) is the build
 * directory or below it. */
static int in_build_tree(const char *dir)
{
	char build[PATH_MAX];
	size_t n;

	if (!realpath(NT_BUILDDIR, build))
		return 0;
	n = strlen(build);
	return !strncmp(dir, build, n) && (dir[n] == '\0' || dir[n] == '/');
}

/*
 * One candidate: its canonical path when it is a directory that passes
 * sshd's StrictModes as the state and trust directories do (owned by root
 * or the invoking user, not group- or world-writable, and so is every
 * directory above it, where only a sticky one such as /tmp may be
 * writable by others).  Root reads a policy as configuration: a
 * kernel.core_pattern from a directory another user can write is theirs to
 * run.  A candidate that fails is skipped with a warning, so that the next
 * one, and in the end the built-in policies, win; NULL when p is no
 * directory at all.  The canonical path is what the loader then opens, so
 * no link above it can be swapped after the check.
 */
static char *trusted_dir(const char *p)
{
	char *real = realpath(p, NULL), err[1024];
	struct stat st;

	if (!real || stat(real, &st) || !S_ISDIR(st.st_mode)) {
		free(real);
		return NULL;
	}
	if (!nt_strict_owner_mode("policy directory", real, &st, false, err, sizeof(err)) &&
	    !nt_strict_parents("policy directory", real, err, sizeof(err)))
		return real;
	fflush(stdout);
	fprintf(stderr, "nettune: warning: %s (its policies are not read; the next directory "
		"in the search order or the built-in policies are used)\n", nt_esc(err));
	free(real);
	return NULL;
}

static char *find_data_dir(const char *what)
{
	const char *env = getenv("NETTUNE_DATADIR");
	char exe[PATH_MAX], *p, *r;
	bool build_tree = false, have_exe = false;
	ssize_t n;

	if (env && *env) {
		p = nt_xasprintf("%s/%s", env, what);
		r = trusted_dir(p);
		free(p);
		if (r)
			return r;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			have_exe = true;
			build_tree = in_build_tree(exe);
		}
	}
	/* beside an installed or relocated executable (a DESTDIR tree, the
	 * Ansible collection); a build has no share/ of its own, so an
	 * executable in its build tree does not look for one */
	if (have_exe && !build_tree) {
		p = nt_xasprintf("%s/../share/nettune/%s", exe, what);
		r = trusted_dir(p);
		free(p);
		if (r)
			return r;
	}
	/* The source tree only for an executable run from its build tree: a
	 * copy (installed, packaged, shipped in the Ansible collection, or the
	 * module in Ansible's temporary directory) must not read whatever
	 * lies at the build machine's source path on the host it runs on. */
	if (build_tree) {
		p = nt_xasprintf("%s/%s", NT_SRCDIR, what);
		r = trusted_dir(p);
		free(p);
		if (r)
			return r;
	}
	p = nt_xasprintf("%s/%s", NT_DATADIR, what);
	r = trusted_dir(p);
	free(p);
	return r;
}

/* The answer is looked up once per process and kind: a batch resolves
 * the extends of thousands of profiles, and each lookup was a readlink
 * and up to four stat calls. */
char *nt_data_dir(const char *what)
{
	static struct {
		const char *what;
		char *dir;
	} seen[4];
	static size_t nseen;
	size_t i;

	for (i = 0; i < nseen; i++)
		if (!strcmp(seen[i].what, what))
			return seen[i].dir ? nt_xstrdup(seen[i].dir) : NULL;
	if (nseen == sizeof(seen) / sizeof(seen[0]))
		return find_data_dir(what);
	seen[nseen].what = nt_xstrdup(what);
	seen[nseen].dir = find_data_dir(what);
	i = nseen++;
	return seen[i].dir ? nt_xstrdup(seen[i].dir) : NULL;
}
