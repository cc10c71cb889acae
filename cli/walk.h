/* SPDX-License-Identifier: MIT */
/* The profiles named on a command line, directories searched the way
 * compile and validate both do (and the hooks and the Action filter). */
#ifndef NT_CLI_WALK_H
#define NT_CLI_WALK_H

#include <stdbool.h>
#include <stddef.h>

struct nt_walk {
	char **v;		/* paths, in argument order, each directory's sorted */
	bool *walked;		/* found in a directory: to be opened with O_NOFOLLOW */
	size_t n;
	size_t not_nettune;	/* *.yaml or *.yml without a top-level "apiVersion: nettune/" */
	size_t links;		/* symbolic links to a file found in the same tree */
	size_t dirs;		/* directories given */
};

/* Adds arg: a directory is searched recursively for *.yaml and *.yml
 * (hidden entries skipped, links to directories not entered, the path
 * written without "//"); YAML that is not a nettune profile is skipped and
 * counted, and a link to a file of the same tree is skipped as a duplicate;
 * any other link, FIFO or device keeps its place, for the loader to refuse.
 * Anything else is added as given. */
void nt_walk_add(struct nt_walk *W, const char *arg);
/* "; skipped 3 YAML files not a nettune profile (no apiVersion:
 * nettune/...), 1 symbolic link to a file in the same tree", or "". */
char *nt_walk_skipped(const struct nt_walk *W);
void nt_walk_free(struct nt_walk *W);

#endif
