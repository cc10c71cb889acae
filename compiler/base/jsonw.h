/* SPDX-License-Identifier: MIT */
/* A JSON writer for the files and reports nettune writes by hand (journals,
 * snapshots, show --json, watch --json): it places the commas, the spaces
 * and the line breaks, so that each writer says only what it writes.
 *
 * Every container has a layout:
 *   NT_JW_INLINE          {"a": 1, "b": 2}
 *   NT_JW_MIXED           inline, but a member after nt_jw_break() starts
 *                         a line of its own: {"a": 1,\n "b": 2}
 *   NT_JW_LINES           every member on a line of its own and the closing
 *                         bracket too, even when empty: [\n  1,\n  2\n ]
 *   NT_JW_LINES_OR_EMPTY  the same, but [] or {} when empty
 * A line is indented by `indent` spaces per open container.  Members of an
 * object have a key; members of an array (and the top value) pass NULL. */
#ifndef NT_JSONW_H
#define NT_JSONW_H

#include <stdbool.h>

#include "buf.h"

enum nt_jw_layout {
	NT_JW_INLINE,
	NT_JW_MIXED,
	NT_JW_LINES,
	NT_JW_LINES_OR_EMPTY,
};

#define NT_JW_DEPTH 8

struct nt_jw {
	struct nt_buf *b;
	unsigned indent;
	unsigned depth;
	struct {
		unsigned char layout;
		bool arr, any, brk;
	} lv[NT_JW_DEPTH];
};

void nt_jw_init(struct nt_jw *w, struct nt_buf *b, unsigned indent);
void nt_jw_obj(struct nt_jw *w, const char *key, enum nt_jw_layout layout);
void nt_jw_arr(struct nt_jw *w, const char *key, enum nt_jw_layout layout);
/* Closes the innermost container. */
void nt_jw_end(struct nt_jw *w);
/* The next member of the innermost (NT_JW_MIXED) container starts a line. */
void nt_jw_break(struct nt_jw *w);
/* A string, or null for NULL. */
void nt_jw_str(struct nt_jw *w, const char *key, const char *s);
void nt_jw_int(struct nt_jw *w, const char *key, long long v);
void nt_jw_uint(struct nt_jw *w, const char *key, unsigned long long v);
/* v with prec decimals ("%.*f") */
void nt_jw_fixed(struct nt_jw *w, const char *key, double v, int prec);
void nt_jw_bool(struct nt_jw *w, const char *key, bool v);
void nt_jw_null(struct nt_jw *w, const char *key);
/* The key (and the separator before it) written: the caller writes one
 * JSON value into the returned buffer (a record, a plan, a value). */
struct nt_buf *nt_jw_raw(struct nt_jw *w, const char *key);

#endif
