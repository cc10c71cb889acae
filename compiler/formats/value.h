/* SPDX-License-Identifier: MIT */
/* The value codec: a setting's value as JSON and back (value.c). */
#ifndef NT_VALUE_H
#define NT_VALUE_H

#include <stdbool.h>

#include "../base/buf.h"
#include "../model/settings.h"
#include "json.h"

/* The value as JSON: true/false, a number, a string ("" for an empty
 * string), a CPU list or hex-byte string, or an array of queue numbers. */
void nt_value_json(const struct nt_value *v, struct nt_buf *b);
/* Parses one JSON value of a setting of kind k (untrusted: plans,
 * manifests, journals, snapshots); false with *why saying what it must be. */
bool nt_value_from_json(enum nt_kind_id k, const struct nt_json *j, struct nt_value *out,
			const char **why);

#endif
