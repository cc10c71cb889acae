/* SPDX-License-Identifier: MIT */
/* The record codec: one writer of a change record in its three forms, and the shared reader parts. */
#include <stdlib.h>
#include <string.h>

#include "record.h"

static const struct {
	unsigned flag;
	const char *name;
} flag_names[] = {
	{NT_SF_IMPLIED, "implied"},
	{NT_SF_CANNOT_CHANGE, "cannot-change"},
	{NT_SF_DISRUPTIVE, "disruptive"},
	{NT_SF_NOT_OBSERVED, "not-observed"},
	{NT_SF_RESET, "reset"},
};
#define NFLAGS (sizeof(flag_names) / sizeof(flag_names[0]))

unsigned nt_record_flag(const char *name)
{
	size_t i;

	for (i = 0; i < NFLAGS; i++)
		if (!strcmp(name, flag_names[i].name))
			return flag_names[i].flag;
	return 0;
}

/* ---- writer ---- */

/* The literal pieces of each form, between the values. */
static const struct {
	const char *object, *attribute, *from, *to, *source, *note;
} forms[] = {
	[NT_REC_PLAN] = {"{\"object\":", ",\"attribute\":\"", "\",\"from\":", ",\"to\":",
			 ",\"source\":", ",\"note\":"},
	[NT_REC_MANIFEST] = {"{\"object\": ", ", \"attribute\": \"", "\", \"from\": ", ", \"to\": ",
			     "], \"source\": ", ", \"note\": "},
	[NT_REC_JOURNAL] = {"{\"object\": ", ", \"attribute\": \"", "\", \"before\": ",
			    ", \"after\": ", NULL, NULL},
};

/* written piece by piece (no printf, no temporary strings): a batch
 * compile writes tens of thousands of these */
void nt_record_write(const struct nt_record *r, enum nt_record_form form, struct nt_buf *b)
{
	size_t k;

	nt_buf_puts(b, forms[form].object);
	nt_buf_json_str(b, r->object);
	nt_buf_puts(b, forms[form].attribute);
	nt_buf_json_body(b, nt_kinds[r->kind].name);	/* nt_setting_attr() */
	if (r->arg) {
		nt_buf_putc(b, ' ');
		nt_buf_json_body(b, r->arg);
	}
	nt_buf_puts(b, forms[form].from);
	if (r->from)
		nt_value_json(r->from, b);
	else
		nt_buf_puts(b, "null");
	nt_buf_puts(b, forms[form].to);
	nt_value_json(r->to, b);
	if (form == NT_REC_JOURNAL) {
		nt_buf_putc(b, '}');
		return;
	}
	if (form == NT_REC_PLAN) {
		nt_buf_puts(b, r->flags & NT_SF_DISRUPTIVE ? ",\"disruptive\":true" :
			    ",\"disruptive\":false");
		nt_buf_puts(b, r->flags & NT_SF_CANNOT_CHANGE ? ",\"cannot_change\":true" :
			    ",\"cannot_change\":false");
		nt_buf_puts(b, r->flags & NT_SF_NOT_OBSERVED ? ",\"observed\":false" :
			    ",\"observed\":true");
		nt_buf_puts(b, r->flags & NT_SF_IMPLIED ? ",\"implied\":true" : ",\"implied\":false");
	} else {
		bool first = true;

		nt_buf_puts(b, ", \"flags\": [");
		for (k = 0; k < NFLAGS; k++)
			if (r->flags & flag_names[k].flag) {
				nt_buf_puts(b, first ? "\"" : ", \"");
				nt_buf_puts(b, flag_names[k].name);
				nt_buf_putc(b, '"');
				first = false;
			}
	}
	nt_buf_puts(b, forms[form].source);
	if (r->src.file) {
		nt_buf_putc(b, '"');
		nt_buf_json_body(b, r->src.file);
		nt_buf_putc(b, ':');
		nt_buf_put_u64(b, r->src.line);
		nt_buf_putc(b, ':');
		nt_buf_put_u64(b, r->src.col);
		nt_buf_putc(b, '"');
	} else {
		nt_buf_puts(b, "null");
	}
	if (form == NT_REC_MANIFEST || r->note) {
		nt_buf_puts(b, forms[form].note);
		nt_buf_json_str_or_null(b, r->note);
	}
	nt_buf_putc(b, '}');
}

/* ---- reader parts ---- */

bool nt_record_source_parse(const char *s, struct nt_mark *m)
{
	const char *c2 = strrchr(s, ':'), *c1;
	char *end, *file;
	unsigned long line, col;

	if (!c2 || c2 == s)
		return false;
	for (c1 = c2 - 1; c1 > s && *c1 != ':'; c1--)
		;
	if (c1 == s || c1[1] < '0' || c1[1] > '9' || c2[1] < '0' || c2[1] > '9')
		return false;
	line = strtoul(c1 + 1, &end, 10);
	if (end != c2 || !line || line > 10000000)
		return false;
	col = strtoul(c2 + 1, &end, 10);
	if (*end || !col || col > 10000000)
		return false;
	file = strndup(s, (size_t)(c1 - s));
	if (!file)
		return false;
	m->file = nt_intern(file);
	free(file);
	m->line = (unsigned)line;
	m->col = (unsigned)col;
	return true;
}

int nt_record_read_attr(const struct nt_record_reader *rd, const struct nt_json *j,
			const char *object, const char *attr, enum nt_kind_id *kind, char **arg)
{
	const char *part = "object", *bad;

	if (!nt_parse_attr(attr, kind, arg)) {
		rd->err(rd->ctx, nt_json_get(j, "attribute"), NT_RECP_ATTR_UNKNOWN, attr, NULL);
		return -1;
	}
	if (!object)
		return 0;
	bad = rd->problem(*kind, object, *arg, &part);
	if (!bad)
		return 0;
	/* the object and argument become sysfs and procfs path components */
	rd->err(rd->ctx, nt_json_get(j, *part == 'o' ? "object" : "attribute"), NT_RECP_NAME, part,
		bad);
	return 1;
}

bool nt_record_read_value(const struct nt_record_reader *rd, const struct nt_json *v,
			  const char *key, enum nt_kind_id k, bool nullable, struct nt_value *out,
			  bool *has)
{
	const char *why = NULL;

	*has = false;
	if (v->t == NT_J_NULL && nullable)
		return true;
	if (!nt_value_from_json(k, v, out, &why)) {
		rd->err(rd->ctx, v, v->t == NT_J_NULL ? NT_RECP_NULL : NT_RECP_VALUE, key, why);
		return false;
	}
	*has = true;
	return true;
}
