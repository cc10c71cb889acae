/* SPDX-License-Identifier: MIT */
/* Shared by both emitters: apply order of the desired state and quoting. */
#include <stdlib.h>
#include <string.h>

#include "emit.h"

struct ord {
	const struct nt_setting *s;
	struct nt_order k;
};

static int cmp_ord(const void *pa, const void *pb)
{
	return nt_order_cmp(&((const struct ord *)pa)->k, &((const struct ord *)pb)->k);
}

static const struct nt_action *plan_action(const struct nt_plan *p, const struct nt_setting *s)
{
	size_t i;

	for (i = 0; p && i < p->n; i++)
		if (p->v[i].kind == s->kind && !strcmp(p->v[i].object, s->object) &&
		    !strcmp(p->v[i].arg ? p->v[i].arg : "", s->arg ? s->arg : ""))
			return &p->v[i];
	return NULL;
}

/*
 * The plan's order keys (nt_order_of).  Where the plan refined a setting's place
 * (an RSS table reset before shrinking channels, tunnel MTU before or after
 * its underlay) the plan's phase and sub win; settings already converged in
 * the snapshot keep their kind's phase.
 */
const struct nt_setting **nt_emit_order(const struct nt_emit_input *in, size_t *n)
{
	const struct nt_state *st = in->desired;
	struct ord *o = nt_xcalloc(st->n + 1, sizeof(*o));
	const struct nt_setting **out;
	const char **objs = nt_xcalloc(st->n + 1, sizeof(*objs));
	size_t i, k, nobjs = 0;

	for (i = 0; i < st->n; i++) {
		const struct nt_setting *s = &st->v[i];
		const struct nt_action *a = plan_action(in->plan, s);

		o[i].s = s;
		nt_order_of(s, (int)i, &o[i].k);
		if (a) {
			o[i].k.phase = a->ord.phase;
			if (s->kind == NT_K_MTU)
				o[i].k.sub = a->ord.sub;
		}
		for (k = 0; k < nobjs; k++)
			if (!strcmp(objs[k], s->object))
				break;
		if (k == nobjs)
			objs[nobjs++] = s->object;
		o[i].k.objord = (int)k;
	}
	qsort(o, st->n, sizeof(*o), cmp_ord);
	out = nt_xcalloc(st->n + 1, sizeof(*out));
	for (i = 0; i < st->n; i++)
		out[i] = o[i].s;
	*n = st->n;
	free(o);
	free(objs);
	return out;
}

void nt_sh_quote(struct nt_buf *b, const char *s)
{
	nt_buf_putc(b, '\'');
	for (; *s; s++) {
		/* ' $ ` leave the quotes as \X: inert either way, and shellcheck
		 * does not take a literal '$x' for a forgotten expansion */
		if (*s == '\'' || *s == '$' || *s == '`' || *s == '\\') {
			nt_buf_puts(b, "'\\");
			nt_buf_putc(b, *s);
			nt_buf_putc(b, '\'');
		} else {
			nt_buf_putc(b, *s);
		}
	}
	nt_buf_putc(b, '\'');
}

/*
 * Text for a '#' comment of a sh script: printable ASCII as is, a backslash
 * doubled, any other byte (newline, carriage return, escape sequences,
 * non-ASCII) as \xHH, so the comment ends where its line ends and shows
 * the same on every terminal.
 */
void nt_sh_comment(struct nt_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	for (; *p; p++) {
		if (*p == '\\')
			nt_buf_puts(b, "\\\\");
		else if (*p < 0x20 || *p >= 0x7f)
			nt_buf_printf(b, "\\x%02x", *p);
		else
			nt_buf_putc(b, (char)*p);
	}
}

/* U+2018..U+201B are E2 80 98..9B in UTF-8; PowerShell treats them as
 * single quotes, so each is doubled like ' itself. */
void nt_ps_quote(struct nt_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	nt_buf_putc(b, '\'');
	for (; *p; p++) {
		if (*p == '\'') {
			nt_buf_puts(b, "''");
		} else if (p[0] == 0xe2 && p[1] == 0x80 && p[2] >= 0x98 && p[2] <= 0x9b) {
			nt_buf_putn(b, (const char *)p, 3);
			nt_buf_putn(b, (const char *)p, 3);
			p += 2;
		} else {
			nt_buf_putc(b, (char)*p);
		}
	}
	nt_buf_putc(b, '\'');
}

/* Invalid UTF-8 could hide a quote from nt_ps_quote; wildcards would make
 * -Name match other adapters; control characters and the backtick are
 * rejected by validate.c already and checked again here because snapshots
 * and the emitter's other inputs are untrusted too. */
const char *nt_ps_name_problem(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!*p)
		return "is empty";
	while (*p) {
		size_t len, k;

		if (*p < 0x20 || *p == 0x7f)
			return "contains a control character";
		if (*p == '*' || *p == '?' || *p == '[' || *p == ']')
			return "contains a wildcard character (* ? [ ]), which -Name would match as a pattern";
		if (*p == '`')
			return "contains a backtick, PowerShell's escape character";
		if (*p < 0x80) {
			p++;
			continue;
		}
		len = *p >= 0xf0 && *p < 0xf5 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 && *p < 0xe0 ? 2 : 0;
		if (!len || *p >= 0xf5)
			return "is not valid UTF-8";
		for (k = 1; k < len; k++)
			if ((p[k] & 0xc0) != 0x80)
				return "is not valid UTF-8";
		/* U+0085 NEL, U+2028/2029 line/paragraph separators: newlines to some parsers */
		if ((p[0] == 0xc2 && p[1] == 0x85) ||
		    (p[0] == 0xe2 && p[1] == 0x80 && (p[2] == 0xa8 || p[2] == 0xa9)))
			return "contains a Unicode line separator";
		p += len;
	}
	return NULL;
}

/* Replaces each @KEY@ of tmpl that kv (KEY, value, ..., NULL) names; a
 * NULL value stands for "". */
void nt_emit_tmpl(struct nt_buf *o, const char *tmpl, const char *const *kv)
{
	const char *p = tmpl;

	while (*p) {
		const char *at = strchr(p, '@');
		size_t k;

		if (!at) {
			nt_buf_puts(o, p);
			return;
		}
		nt_buf_putn(o, p, (size_t)(at - p));
		for (k = 0; kv[k]; k += 2) {
			size_t n = strlen(kv[k]);

			if (!strncmp(at + 1, kv[k], n) && at[1 + n] == '@') {
				nt_buf_puts(o, kv[k + 1] ? kv[k + 1] : "");
				p = at + n + 2;
				break;
			}
		}
		if (!kv[k]) {
			nt_buf_putc(o, '@');
			p = at + 1;
		}
	}
}
