/* SPDX-License-Identifier: MIT */
/* Schema check of a YAML tree against the libcyaml tables, with located
 * diagnostics; also canonicalises booleans and offload toggles in place. */
#ifndef NT_CHECK_H
#define NT_CHECK_H

#include <cyaml/cyaml.h>

#include "diag.h"
#include "ytree.h"

/* Checks node against schema v; returns the number of errors added. */
size_t nt_check(struct nt_ynode *node, const cyaml_schema_value_t *v, struct nt_diags *d);
/* Rewrites free-form maps into libcyaml's {key, value} sequences. */
void nt_check_lower_kv(struct nt_ynode *node, const cyaml_schema_value_t *v);
/* Parses YAML booleans (plain on/off/true/false/yes/no). */
bool nt_parse_bool(const char *s, bool *out);
#endif
