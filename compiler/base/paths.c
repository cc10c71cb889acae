/* SPDX-License-Identifier: MIT */
/* Data directory lookup, relocatable relative to the executable. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "config.h"
#include "paths.h"

static int is_dir(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

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

static char *find_data_dir(const char *what)
{
	const char *env = getenv("NETTUNE_DATADIR");
	char exe[PATH_MAX];
	ssize_t n;
	char *p;

	if (env && *env) {
		p = nt_xasprintf("%s/%s", env, what);
		if (is_dir(p))
			return p;
		free(p);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			p = nt_xasprintf("%s/../share/nettune/%s", exe, what);
			if (is_dir(p))
				return p;
			free(p);
		}
	}
	/* The source tree only for an executable run from its build tree: a
	 * copy (installed, packaged, shipped in the Ansible collection, or the
	 * module in Ansible's temporary directory) must not read whatever
	 * lies at the build machine's source path on the host it runs on. */
	if (n > 0 && in_build_tree(exe)) {
		p = nt_xasprintf("%s/%s", NT_SRCDIR, !strcmp(what, "nics") ? "schema/nics" : what);
		if (is_dir(p))
			return p;
		free(p);
	}
	p = nt_xasprintf("%s/%s", NT_DATADIR, what);
	if (is_dir(p))
		return p;
	free(p);
	return NULL;
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
