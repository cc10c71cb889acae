/* SPDX-License-Identifier: MIT */
/* JSON Schema (draft-07) of the profile language, generated from the same
 * libcyaml tables the loader uses, so editor validation cannot drift. */
#ifndef NT_JSONSCHEMA_H
#define NT_JSONSCHEMA_H
#include "../base/buf.h"
void nt_jsonschema(struct nt_buf *out);
#endif
