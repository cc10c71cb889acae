/* SPDX-License-Identifier: MIT */
/* A growable byte buffer with printf and JSON/shell/PowerShell quoting. */
#ifndef NT_BUF_H
#define NT_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct nt_buf {
	char *p;
	size_t n, cap;
};

void nt_buf_grow(struct nt_buf *b, size_t extra);
void nt_buf_putn(struct nt_buf *b, const char *s, size_t n);
void nt_buf_puts(struct nt_buf *b, const char *s);
void nt_buf_putc(struct nt_buf *b, char c);
void nt_buf_printf(struct nt_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void nt_buf_vprintf(struct nt_buf *b, const char *fmt, va_list ap);
/* A JSON string literal, with quotes; invalid UTF-8 is escaped as \ufffd. */
void nt_buf_json_str(struct nt_buf *b, const char *s);
void nt_buf_free(struct nt_buf *b);
/* Returns the NUL-terminated contents and resets b. */
char *nt_buf_take(struct nt_buf *b);
int nt_buf_write(const struct nt_buf *b, FILE *f);

void *nt_xmalloc(size_t n);
void *nt_xcalloc(size_t n, size_t m);
void *nt_xrealloc(void *p, size_t n);
char *nt_xstrdup(const char *s);
char *nt_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
