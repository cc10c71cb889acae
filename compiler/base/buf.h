/* SPDX-License-Identifier: MIT */
/* A growable byte buffer with printf and JSON/shell/PowerShell quoting. */
#ifndef NT_BUF_H
#define NT_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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
/* nt_buf_json_str, or null for NULL. */
void nt_buf_json_str_or_null(struct nt_buf *b, const char *s);
/* The same without the quotes (a literal written in pieces). */
void nt_buf_json_body(struct nt_buf *b, const char *s);
/* s as text for a terminal, one field on one line: newline, CR and tab as
 * \n \r \t; other C0 controls, DEL and bytes that are not valid UTF-8
 * as \xHH; the C1 controls, U+2028/2029 and the bidi embeddings,
 * overrides and isolates as \uHHHH; all other UTF-8 (CJK, accents) as is.
 * Every string read from a file or the host goes through it before it
 * reaches a terminal (diagnostics, history, show, caps, plan, watch). */
void nt_buf_put_escaped(struct nt_buf *b, const char *s);
/* The same for a printf argument: the text stays valid until eight more
 * calls (a few fields of one message); nettune has no threads. */
const char *nt_esc(const char *s);
/* Decimal digits of v. */
void nt_buf_put_u64(struct nt_buf *b, uint64_t v);
/* Length of the valid UTF-8 sequence at s (at most avail bytes), or 0. */
size_t nt_utf8_len(const char *s, size_t avail);
void nt_buf_free(struct nt_buf *b);
/* Returns the NUL-terminated contents and resets b. */
char *nt_buf_take(struct nt_buf *b);
int nt_buf_write(const struct nt_buf *b, FILE *f);

/* Untrusted input files (profiles, snapshots, plans, journals, keys).
 * They are opened with O_NONBLOCK | O_CLOEXEC, so that a FIFO or a device
 * cannot block the caller, and anything but a regular file is refused
 * after an fstat of what was opened.  NT_IN_NOFOLLOW also refuses a
 * symbolic link as the last component.  All return -errno on failure
 * with why set to the reason, without the file name: "not a regular file
 * (fifo)", "is a symbolic link (not followed)", "larger than N bytes", or
 * "cannot open: " + strerror. */
#define NT_IN_NOFOLLOW 1u

struct stat;
int nt_open_input_at(int dirfd, const char *path, unsigned flags, struct stat *st,
		     char *why, size_t whylen);
int nt_open_input(const char *path, unsigned flags, struct stat *st, char *why, size_t whylen);
/* Reads fd to its end into out (NUL-terminated; out->n excludes it);
 * -EFBIG past max bytes. */
int nt_read_fd(int fd, size_t max, struct nt_buf *out, char *why, size_t whylen);
int nt_read_input(const char *path, size_t max, unsigned flags, struct nt_buf *out,
		  char *why, size_t whylen);
/* "fifo", "directory", "socket", ... for messages */
const char *nt_file_type(unsigned mode);

void *nt_xmalloc(size_t n);
void *nt_xcalloc(size_t n, size_t m);
void *nt_xrealloc(void *p, size_t n);
/* Makes room for element n of an array of n elements that only grows one at
 * a time through this function (the capacity is implied by n). */
void *nt_xgrow(void *p, size_t n, size_t size);
char *nt_xstrdup(const char *s);
/* Copies of strings kept in blocks and freed together (the strings of a
 * state, of an interface's facts): one allocation for ~4 KB of them. */
struct nt_strpool {
	struct nt_strblock *head;
};
char *nt_strpool_dup(struct nt_strpool *p, const char *s);
void nt_strpool_free(struct nt_strpool *p);
char *nt_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Writes all n bytes of p to fd, retrying short writes and EINTR: 0, or
 * -errno (-EIO when write returns 0). */
int nt_write_all(int fd, const void *p, size_t n);

/* The number of elements of an array (not of a pointer). */
#define NT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
