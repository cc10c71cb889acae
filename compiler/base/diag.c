/* SPDX-License-Identifier: MIT */
/* Collecting, sorting and rendering located diagnostics. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "diag.h"
#include "rules.h"
#include "version.h"

static char **interned;
static size_t ninterned, capinterned;
/* open-addressing index into interned (entry + 1, 0 = empty): a batch of
 * 10,000 profiles interns 10,000 file names, and a linear search made
 * that quadratic (a third of `nettune validate` time) */
static size_t *intern_idx;
static size_t intern_idx_cap;

static size_t intern_hash(const char *s)
{
	size_t h = 14695981039346656037u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211u;
	return h;
}

static void intern_reindex(void)
{
	size_t i;

	free(intern_idx);
	intern_idx_cap = intern_idx_cap ? intern_idx_cap * 2 : 64;
	intern_idx = nt_xcalloc(intern_idx_cap, sizeof(*intern_idx));
	for (i = 0; i < ninterned; i++) {
		size_t h = intern_hash(interned[i]) & (intern_idx_cap - 1);

		while (intern_idx[h])
			h = (h + 1) & (intern_idx_cap - 1);
		intern_idx[h] = i + 1;
	}
}

const char *nt_intern(const char *s)
{
	size_t h;

	if (!s)
		return NULL;
	if (2 * (ninterned + 1) > intern_idx_cap)
		intern_reindex();
	for (h = intern_hash(s) & (intern_idx_cap - 1); intern_idx[h];
	     h = (h + 1) & (intern_idx_cap - 1))
		if (!strcmp(interned[intern_idx[h] - 1], s))
			return interned[intern_idx[h] - 1];
	if (ninterned == capinterned) {
		capinterned = capinterned ? capinterned * 2 : 16;
		interned = nt_xrealloc(interned, capinterned * sizeof(*interned));
	}
	interned[ninterned] = nt_xstrdup(s);
	intern_idx[h] = ++ninterned;
	return interned[ninterned - 1];
}

void nt_intern_free(void)
{
	size_t i;

	for (i = 0; i < ninterned; i++)
		free(interned[i]);
	free(interned);
	free(intern_idx);
	interned = NULL;
	intern_idx = NULL;
	ninterned = capinterned = intern_idx_cap = 0;
}

struct nt_mark nt_mark_at(const char *file, const char *data, size_t len, size_t off)
{
	struct nt_mark m = {file, 1, 1};
	size_t i = 0, n;

	if (off > len)
		off = len;
	while (i < off) {
		const unsigned char *c = (const unsigned char *)data + i;

		n = nt_utf8_len(data + i, len - i);
		if (*c == '\r' && i + 1 < len && c[1] == '\n') {
			n = 2;
		} else if (*c != '\n' && *c != '\r' &&
			   !(n == 2 && c[0] == 0xc2 && c[1] == 0x85) &&
			   !(n == 3 && c[0] == 0xe2 && c[1] == 0x80 && (c[2] | 1) == 0xa9)) {
			m.col++;
			i += n ? n : 1;	/* an invalid byte is one column */
			continue;
		}
		m.line++;
		m.col = 1;
		i += n;
	}
	return m;
}

void nt_diag_add(struct nt_diags *d, enum nt_severity sev, struct nt_mark m,
		 const char *rule, const char *fmt, ...)
{
	struct nt_buf b = {0};
	struct nt_diag *x;
	va_list ap;

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 8;
		d->v = nt_xrealloc(d->v, d->cap * sizeof(*d->v));
	}
	va_start(ap, fmt);
	nt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	x = &d->v[d->n];
	x->sev = sev;
	x->mark = m;
	x->rule = nt_xstrdup(rule ? rule : "error");
	x->msg = nt_buf_take(&b);
	x->seq = (unsigned)d->n;
	d->n++;
	if (sev == NT_ERROR)
		d->errors++;
	else if (sev == NT_WARNING)
		d->warnings++;
}

static int cmp_diag(const void *pa, const void *pb)
{
	const struct nt_diag *a = pa, *b = pb;
	int c = strcmp(a->mark.file ? a->mark.file : "",
		       b->mark.file ? b->mark.file : "");

	if (c)
		return c;
	if (a->mark.line != b->mark.line)
		return a->mark.line < b->mark.line ? -1 : 1;
	if (a->mark.col != b->mark.col)
		return a->mark.col < b->mark.col ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void nt_diags_sort(struct nt_diags *d)
{
	if (d->n > 1)
		qsort(d->v, d->n, sizeof(*d->v), cmp_diag);
}

void nt_diags_free(struct nt_diags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		free(d->v[i].rule);
		free(d->v[i].msg);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

void nt_diags_move(struct nt_diags *dst, struct nt_diags *src)
{
	size_t i;

	for (i = 0; i < src->n; i++) {
		struct nt_diag *x = &src->v[i];

		nt_diag_add(dst, x->sev, x->mark, x->rule, "%s", x->msg);
	}
	nt_diags_free(src);
}

static const char *sev_name(enum nt_severity s)
{
	switch (s) {
	case NT_ERROR: return "error";
	case NT_WARNING: return "warning";
	default: return "note";
	}
}

void nt_diag_buffer_stderr(void)
{
	static char buf[1 << 16];
	struct stat e, o;

	if (isatty(STDERR_FILENO))
		return;
	/* one file for both (2>&1): stdout is buffered the same way only for
	 * a pipe or a file, so keep stderr unbuffered and the order intact */
	if (!fstat(STDERR_FILENO, &e) && !fstat(STDOUT_FILENO, &o) && e.st_dev == o.st_dev &&
	    e.st_ino == o.st_ino)
		return;
	setvbuf(stderr, buf, _IOFBF, sizeof(buf));
}

/* Rendered into memory and written at once: stderr is unbuffered, and
 * tens of thousands of diagnostics written a character at a time took
 * longer than finding them. */
void nt_diags_print_text(const struct nt_diags *d, FILE *f)
{
	struct nt_buf b = {0};
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct nt_diag *x = &d->v[i];

		/* one diagnostic is one line: control characters that came
		 * from the input (a quoted "eth\n0") are written escaped */
		nt_buf_put_escaped(&b, x->mark.file ? x->mark.file : "nettune");
		if (x->mark.line)
			nt_buf_printf(&b, ":%u:%u", x->mark.line, x->mark.col);
		nt_buf_printf(&b, ": %s: ", sev_name(x->sev));
		nt_buf_put_escaped(&b, x->msg);
		nt_buf_putc(&b, '\n');
	}
	nt_buf_write(&b, f);
	nt_buf_free(&b);
}

/* GitHub workflow commands need %, CR and LF escaped in data, and also
 * ',' and ':' in property values. */
static void gh_escape(FILE *f, const char *s, bool property)
{
	for (; *s; s++) {
		if (*s == '%')
			fputs("%25", f);
		else if (*s == '\r')
			fputs("%0D", f);
		else if (*s == '\n')
			fputs("%0A", f);
		else if (property && *s == ':')
			fputs("%3A", f);
		else if (property && *s == ',')
			fputs("%2C", f);
		else
			fputc(*s, f);
	}
}

void nt_diags_print_github(const struct nt_diags *d, FILE *f)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct nt_diag *x = &d->v[i];

		fprintf(f, "::%s file=", x->sev == NT_ERROR ? "error" :
			x->sev == NT_WARNING ? "warning" : "notice");
		gh_escape(f, x->mark.file ? x->mark.file : "nettune", true);
		if (x->mark.line)
			fprintf(f, ",line=%u,col=%u", x->mark.line, x->mark.col);
		fputs(",title=", f);
		gh_escape(f, x->rule, true);
		fputs("::", f);
		gh_escape(f, x->msg, false);
		fputc('\n', f);
	}
}

void nt_diags_print_json(const struct nt_diags *d, const char *const *files,
			 size_t nfiles, FILE *f)
{
	bool *valid = nt_xcalloc(nfiles + 1, sizeof(bool));
	size_t i, j;

	for (j = 0; j < nfiles; j++) {
		valid[j] = true;
		for (i = 0; i < d->n; i++)
			if (d->v[i].sev == NT_ERROR && d->v[i].mark.file &&
			    !strcmp(d->v[i].mark.file, files[j]))
				valid[j] = false;
	}
	nt_diags_print_json_valid(d, files, valid, nfiles, f);
	free(valid);
}

void nt_diags_print_json_valid(const struct nt_diags *d, const char *const *files,
			       const bool *valid, size_t nfiles, FILE *f)
{
	struct nt_buf b = {0};
	size_t i, j;

	nt_buf_puts(&b, "{\"files\":[");
	for (j = 0; j < nfiles; j++) {
		nt_buf_puts(&b, j ? ",{\"file\":" : "{\"file\":");
		nt_buf_json_str(&b, files[j]);
		nt_buf_printf(&b, ",\"valid\":%s}", valid[j] ? "true" : "false");
	}
	nt_buf_puts(&b, "],\"diagnostics\":[");
	for (i = 0; i < d->n; i++) {
		const struct nt_diag *x = &d->v[i];

		nt_buf_puts(&b, i ? ",{\"file\":" : "{\"file\":");
		nt_buf_json_str(&b, x->mark.file ? x->mark.file : "");
		nt_buf_printf(&b, ",\"line\":%u,\"column\":%u,\"severity\":\"%s\",\"rule\":",
			      x->mark.line, x->mark.col, sev_name(x->sev));
		nt_buf_json_str(&b, x->rule);
		nt_buf_puts(&b, ",\"message\":");
		nt_buf_json_str(&b, x->msg);
		nt_buf_putc(&b, '}');
	}
	nt_buf_printf(&b, "],\"errors\":%zu,\"warnings\":%zu}\n", d->errors, d->warnings);
	nt_buf_write(&b, f);
	nt_buf_free(&b);
}

/* A SARIF reportingDescriptor: the rule's descriptions and help from
 * rules.c, helpUri the man page that documents it. */
static void sarif_rule(struct nt_buf *b, const char *id)
{
	const struct nt_rule_doc *r = nt_rule_doc(id);
	char *md;

	nt_buf_puts(b, "            {\"id\": ");
	nt_buf_json_str(b, id);
	if (r) {
		nt_buf_puts(b, ",\n             \"shortDescription\": {\"text\": ");
		nt_buf_json_str(b, r->brief);
		nt_buf_puts(b, "},\n             \"fullDescription\": {\"text\": ");
		nt_buf_json_str(b, r->full);
		nt_buf_puts(b, "},\n             \"help\": {\"text\": ");
		md = nt_xasprintf("%s See %s.", r->help, r->man);
		nt_buf_json_str(b, md);
		free(md);
		md = nt_xasprintf("%s\n\nSee `%s`.", r->help, r->man);
		nt_buf_puts(b, ", \"markdown\": ");
		nt_buf_json_str(b, md);
		free(md);
		nt_buf_puts(b, "},\n             \"helpUri\": ");
		md = nt_xasprintf("man:%s", r->man);
		nt_buf_json_str(b, md);
		free(md);
	}
	nt_buf_putc(b, '}');
}

/* artifactLocation.uri: a URI reference (RFC 3986), not a file name.  A
 * relative path stays relative (code scanning resolves it against the
 * checkout), without a leading "./"; an absolute one becomes file:///...
 * Every byte but unreserved characters and '/' is percent-encoded, so
 * "a b.yaml", "c#d.yaml" (no fragment), "e%41.yaml" (no escape) and
 * "g:h.yaml" (no scheme) name the file they are. */
static void sarif_uri(struct nt_buf *b, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *s = (const unsigned char *)path;

	nt_buf_putc(b, '"');
	if (*s == '/') {
		nt_buf_puts(b, "file://");
		while (s[0] == '/' && s[1] == '/')
			s++;
	} else {
		while (s[0] == '.' && s[1] == '/') {
			s += 2;
			while (*s == '/')
				s++;
		}
	}
	for (; *s; s++) {
		if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		    (*s >= '0' && *s <= '9') || strchr("-._~/", *s)) {
			nt_buf_putc(b, (char)*s);
		} else {
			nt_buf_putc(b, '%');
			nt_buf_putc(b, hex[*s >> 4]);
			nt_buf_putc(b, hex[*s & 15]);
		}
	}
	nt_buf_putc(b, '"');
}

void nt_diags_print_sarif(const struct nt_diags *d, FILE *f)
{
	struct nt_buf b = {0};
	const char **rules = NULL;
	size_t nrules = 0, i, j;

	for (i = 0; i < d->n; i++) {
		for (j = 0; j < nrules; j++)
			if (!strcmp(rules[j], d->v[i].rule))
				break;
		if (j == nrules) {
			rules = nt_xrealloc(rules, (nrules + 1) * sizeof(*rules));
			rules[nrules++] = d->v[i].rule;
		}
	}
	nt_buf_puts(&b, "{\n  \"$schema\": \"https://json.schemastore.org/sarif-2.1.0.json\",\n"
		    "  \"version\": \"2.1.0\",\n  \"runs\": [\n    {\n"
		    "      \"tool\": {\n        \"driver\": {\n"
		    "          \"name\": \"nettune\",\n");
	nt_buf_printf(&b, "          \"version\": \"%s\",\n", NT_VERSION);
	nt_buf_puts(&b, "          \"rules\": [");
	for (j = 0; j < nrules; j++) {
		nt_buf_puts(&b, j ? ",\n" : "\n");
		sarif_rule(&b, rules[j]);
	}
	nt_buf_puts(&b, nrules ? "\n          ]\n" : "]\n");
	nt_buf_puts(&b, "        }\n      },\n      \"results\": [");
	for (i = 0; i < d->n; i++) {
		const struct nt_diag *x = &d->v[i];

		for (j = 0; j < nrules; j++)
			if (!strcmp(rules[j], x->rule))
				break;
		nt_buf_puts(&b, i ? ",\n        {\n" : "\n        {\n");
		nt_buf_puts(&b, "          \"ruleId\": ");
		nt_buf_json_str(&b, x->rule);
		nt_buf_printf(&b, ",\n          \"ruleIndex\": %zu,\n          \"level\": \"%s\",\n",
			      j, sev_name(x->sev));
		nt_buf_puts(&b, "          \"message\": {\"text\": ");
		nt_buf_json_str(&b, x->msg);
		nt_buf_puts(&b, "},\n          \"locations\": [{\"physicalLocation\": {"
			    "\"artifactLocation\": {\"uri\": ");
		sarif_uri(&b, x->mark.file ? x->mark.file : "nettune");
		nt_buf_putc(&b, '}');
		if (x->mark.line)
			nt_buf_printf(&b, ", \"region\": {\"startLine\": %u, \"startColumn\": %u}",
				      x->mark.line, x->mark.col ? x->mark.col : 1);
		nt_buf_puts(&b, "}}]\n        }");
	}
	nt_buf_puts(&b, d->n ? "\n      ]\n    }\n  ]\n}\n" : "]\n    }\n  ]\n}\n");
	nt_buf_write(&b, f);
	nt_buf_free(&b);
	free(rules);
}

bool nt_diag_format_parse(const char *s, enum nt_diag_format *out)
{
	static const struct { const char *name; enum nt_diag_format f; } t[] = {
		{"text", NT_FMT_TEXT}, {"json", NT_FMT_JSON},
		{"sarif", NT_FMT_SARIF}, {"github", NT_FMT_GITHUB},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i].name)) {
			*out = t[i].f;
			return true;
		}
	return false;
}

/* Optimal string alignment distance: Levenshtein plus swaps of two
 * adjacent characters ("plna" -> "plan" is 1). */
unsigned nt_levenshtein(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	unsigned d[65][65];

	if (la > 64 || lb > 64)
		return 1000;
	for (i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (i = 1; i <= la; i++)
		for (j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];
			unsigned v = d[i - 1][j] + 1;

			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

const char *nt_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	unsigned bestd = 1000, limit;
	size_t i;

	limit = strlen(word) <= 4 ? 1 : strlen(word) <= 8 ? 2 : 3;
	for (i = 0; i < n; i++) {
		unsigned d = nt_levenshtein(word, cands[i]);

		if (d < bestd) {
			bestd = d;
			best = cands[i];
		}
	}
	return bestd <= limit ? best : NULL;
}
