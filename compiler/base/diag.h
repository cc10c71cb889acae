/* SPDX-License-Identifier: MIT */
/*
 * Located diagnostics: every problem nettune finds in an input names the
 * file, line and column it comes from.  Diagnostics are collected, never
 * printed as they are found, so that all errors of a file are reported and
 * the output can be rendered as text, JSON, SARIF or GitHub annotations.
 */
#ifndef NT_DIAG_H
#define NT_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum nt_severity { NT_ERROR, NT_WARNING, NT_NOTE };

struct nt_mark {
	const char *file;	/* interned by nt_intern(); never freed early */
	unsigned line;		/* 1-based; 0 when the whole file is meant */
	unsigned col;		/* 1-based */
};

struct nt_diag {
	enum nt_severity sev;
	struct nt_mark mark;
	char *rule;		/* short rule id, e.g. "unknown-key" */
	char *msg;
	unsigned seq;		/* insertion order, keeps sorting stable */
};

struct nt_diags {
	struct nt_diag *v;
	size_t n, cap;
	size_t errors, warnings;
};

enum nt_diag_format { NT_FMT_TEXT, NT_FMT_JSON, NT_FMT_SARIF, NT_FMT_GITHUB };

/* The line and column of byte off of data, counted the way libyaml counts
 * its marks: CR LF, CR, LF, NEL, LS and PS end a line, and a column is a
 * character (an invalid UTF-8 byte counts as one). */
struct nt_mark nt_mark_at(const char *file, const char *data, size_t len, size_t off);

const char *nt_intern(const char *s);
void nt_intern_free(void);

void nt_diag_add(struct nt_diags *d, enum nt_severity sev, struct nt_mark m,
		 const char *rule, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
#define nt_error(d, m, rule, ...) nt_diag_add(d, NT_ERROR, m, rule, __VA_ARGS__)
#define nt_warn(d, m, rule, ...) nt_diag_add(d, NT_WARNING, m, rule, __VA_ARGS__)
void nt_diags_sort(struct nt_diags *d);
void nt_diags_free(struct nt_diags *d);
void nt_diags_move(struct nt_diags *dst, struct nt_diags *src);

/* Makes stderr fully buffered (flushed at exit, or when the buffer fills)
 * for batch commands whose stderr is neither a terminal nor the file
 * stdout goes to: thousands of diagnostics and progress lines in a few
 * writes instead of one write each, in the same order.  Code that forks
 * or runs another program flushes first (fflush(NULL)). */
void nt_diag_buffer_stderr(void);
void nt_diags_print_text(const struct nt_diags *d, FILE *f);
void nt_diags_print_github(const struct nt_diags *d, FILE *f);
/* files/nfiles: every file that was checked, listed even when clean */
void nt_diags_print_json(const struct nt_diags *d, const char *const *files,
			 size_t nfiles, FILE *f);
/* The same with each file's validity given: a profile is invalid when an
 * error is located in a policy it extends, too. */
void nt_diags_print_json_valid(const struct nt_diags *d, const char *const *files,
			       const bool *valid, size_t nfiles, FILE *f);
void nt_diags_print_sarif(const struct nt_diags *d, FILE *f);
bool nt_diag_format_parse(const char *s, enum nt_diag_format *out);

/* Edit distance, for "did you mean" suggestions. */
unsigned nt_levenshtein(const char *a, const char *b);
/* Closest of cands (NULL-terminated by count) within a sensible distance. */
const char *nt_suggest(const char *word, const char *const *cands, size_t n);

#endif
