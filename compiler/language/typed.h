/* SPDX-License-Identifier: MIT */
/* The typed profile (profile.h) built from the checked YAML tree. */
#ifndef NT_TYPED_H
#define NT_TYPED_H

#include <stdbool.h>
#include <cyaml/cyaml.h>

#include "ytree.h"

/*
 * Builds the data schema (a CYAML_MAPPING | CYAML_FLAG_POINTER value)
 * describes from root, walking the same libcyaml tables with libcyaml's
 * rules; free-form maps become {key, value} sequences and a top-level
 * "extends" is skipped.  Returns 0 with *out (free it with nt_typed_free or
 * cyaml_free: the layout is libcyaml's), or
 * -1 with where/why saying what did not fit (after the schema check that
 * only happens for what the check's errors already made incomplete).
 */
int nt_typed_load(const struct nt_ynode *root, const cyaml_schema_value_t *schema, void **out,
		  struct nt_mark *where, const char **why);
/* The reference: root re-emitted as YAML and loaded by libcyaml itself
 * (tests and fuzzing check that both agree). */
int nt_typed_load_cyaml(const struct nt_ynode *root, const cyaml_schema_value_t *schema,
			void **out);
/* Frees a document of schema as cyaml_free() does (data may be NULL). */
void nt_typed_free(const cyaml_schema_value_t *schema, void *data);
/* Field-by-field equality of two loaded documents of schema. */
bool nt_typed_equal(const cyaml_schema_value_t *schema, const void *a, const void *b);

#endif
