/* SPDX-License-Identifier: MIT */
/* Schema check of a YAML tree against the libcyaml tables, with located
 * diagnostics; also canonicalises booleans and offload toggles in place. */
#ifndef NT_CHECK_H
#define NT_CHECK_H

#include <cyaml/cyaml.h>

#include "../base/diag.h"
#include "ytree.h"

/* Checks node against schema v; returns the number of errors added. */
/* Orders marks by file (interned pointer), line, column (qsort/bsearch). */
int nt_mark_cmp(const void *a, const void *b);
size_t nt_check(struct nt_ynode *node, const cyaml_schema_value_t *v, struct nt_diags *d);
/* The same, then drops every node an error was found at (validate keeps
 * going with what is still typed, so capability errors come in the same
 * run as schema errors).  *parents (malloc'd) lists the containers
 * something was dropped from: a later "missing" error there is only the
 * echo of the schema error. */
size_t nt_check_prune(struct nt_ynode *node, const cyaml_schema_value_t *v,
		      struct nt_diags *d, struct nt_mark **parents, size_t *nparents);
/* Rewrites free-form maps into libcyaml's {key, value} sequences. */
void nt_check_lower_kv(struct nt_ynode *node, const cyaml_schema_value_t *v);
/* Parses YAML booleans (plain on/off/true/false/yes/no). */
bool nt_parse_bool(const char *s, bool *out);
#endif
