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

char *nt_data_dir(const char *what)
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
	p = nt_xasprintf("%s/%s", NT_SRCDIR, !strcmp(what, "nics") ? "schema/nics" : what);
	if (is_dir(p))
		return p;
	free(p);
	p = nt_xasprintf("%s/%s", NT_DATADIR, what);
	if (is_dir(p))
		return p;
	free(p);
	return NULL;
}
