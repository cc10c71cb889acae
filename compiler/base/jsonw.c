/* SPDX-License-Identifier: MIT */
/* The JSON writer: separators, line breaks and indentation (jsonw.h). */
#include <stdio.h>
#include <stdlib.h>

#include "jsonw.h"

void nt_jw_init(struct nt_jw *w, struct nt_buf *b, unsigned indent)
{
	w->b = b;
	w->indent = indent;
	w->depth = 0;
}

static void newline(struct nt_jw *w, unsigned depth)
{
	nt_buf_grow(w->b, 1 + (size_t)depth * w->indent);
	nt_buf_putc(w->b, '\n');
	for (unsigned i = 0; i < depth * w->indent; i++)
		nt_buf_putc(w->b, ' ');
}

/* The separator before a member of the innermost container, and its key. */
static void member(struct nt_jw *w, const char *key)
{
	if (w->depth) {
		unsigned char l = w->lv[w->depth - 1].layout;
		bool any = w->lv[w->depth - 1].any;

		if (any)
			nt_buf_putc(w->b, ',');
		if (l == NT_JW_LINES || l == NT_JW_LINES_OR_EMPTY || w->lv[w->depth - 1].brk)
			newline(w, w->depth);
		else if (any)
			nt_buf_putc(w->b, ' ');
		w->lv[w->depth - 1].any = true;
		w->lv[w->depth - 1].brk = false;
	}
	if (key) {
		nt_buf_json_str(w->b, key);
		nt_buf_puts(w->b, ": ");
	}
}

static void open_container(struct nt_jw *w, const char *key, enum nt_jw_layout layout, bool arr)
{
	if (w->depth == NT_JW_DEPTH) {
		fputs("nettune: JSON nested too deep\n", stderr);
		abort();
	}
	member(w, key);
	nt_buf_putc(w->b, arr ? '[' : '{');
	w->lv[w->depth].layout = (unsigned char)layout;
	w->lv[w->depth].arr = arr;
	w->lv[w->depth].any = false;
	w->lv[w->depth].brk = false;
	w->depth++;
}

void nt_jw_obj(struct nt_jw *w, const char *key, enum nt_jw_layout layout)
{
	open_container(w, key, layout, false);
}

void nt_jw_arr(struct nt_jw *w, const char *key, enum nt_jw_layout layout)
{
	open_container(w, key, layout, true);
}

void nt_jw_end(struct nt_jw *w)
{
	unsigned char l;
	bool arr, any;

	if (!w->depth)
		return;
	w->depth--;
	l = w->lv[w->depth].layout;
	arr = w->lv[w->depth].arr;
	any = w->lv[w->depth].any;
	if (l == NT_JW_LINES || (l == NT_JW_LINES_OR_EMPTY && any))
		newline(w, w->depth);
	nt_buf_putc(w->b, arr ? ']' : '}');
}

void nt_jw_break(struct nt_jw *w)
{
	if (w->depth)
		w->lv[w->depth - 1].brk = true;
}

void nt_jw_str(struct nt_jw *w, const char *key, const char *s)
{
	member(w, key);
	nt_buf_json_str_or_null(w->b, s);
}

void nt_jw_int(struct nt_jw *w, const char *key, long long v)
{
	member(w, key);
	if (v < 0) {
		nt_buf_putc(w->b, '-');
		nt_buf_put_u64(w->b, 0 - (unsigned long long)v);
	} else {
		nt_buf_put_u64(w->b, (unsigned long long)v);
	}
}

void nt_jw_uint(struct nt_jw *w, const char *key, unsigned long long v)
{
	member(w, key);
	nt_buf_put_u64(w->b, v);
}

void nt_jw_fixed(struct nt_jw *w, const char *key, double v, int prec)
{
	member(w, key);
	nt_buf_printf(w->b, "%.*f", prec, v);
}

void nt_jw_bool(struct nt_jw *w, const char *key, bool v)
{
	member(w, key);
	nt_buf_puts(w->b, v ? "true" : "false");
}

void nt_jw_null(struct nt_jw *w, const char *key)
{
	member(w, key);
	nt_buf_puts(w->b, "null");
}

struct nt_buf *nt_jw_raw(struct nt_jw *w, const char *key)
{
	member(w, key);
	return w->b;
}
