/* SPDX-License-Identifier: MIT */
/*
 * The record codec: one change (object, attribute, from, to, flags,
 * source) as plan --json, PLAN.json manifests and apply journals write
 * and read it.  One writer in three forms, and the readers of its parts
 * (attribute, flags, source, values) that the manifest and journal
 * loaders share; values go through the value codec (value.h).
 */
#ifndef NT_RECORD_H
#define NT_RECORD_H

#include <stdbool.h>

#include "../base/buf.h"
#include "../base/diag.h"
#include "json.h"
#include "../model/settings.h"
#include "value.h"

struct nt_record {
	const char *object;
	enum nt_kind_id kind;
	const char *arg;		/* NULL: none */
	const struct nt_value *from;	/* NULL: null (not observed; nothing before) */
	const struct nt_value *to;
	unsigned flags;			/* NT_SF_* */
	struct nt_mark src;		/* file NULL: null */
	const char *note;		/* NULL: none */
};

enum nt_record_form {
	/* plan --json: {"object":..,"attribute":..,"from":..,"to":..,"disruptive":b,
	 * "cannot_change":b,"observed":b,"implied":b,"source":..[,"note":..]} */
	NT_REC_PLAN,
	/* PLAN.json: {"object": .., "attribute": .., "from": .., "to": ..,
	 * "flags": [..], "source": .., "note": ..} */
	NT_REC_MANIFEST,
	/* journal entries: {"object": .., "attribute": .., "before": .., "after": ..} */
	NT_REC_JOURNAL,
};

/* Appends one record as a JSON object in the given form. */
void nt_record_write(const struct nt_record *r, enum nt_record_form form, struct nt_buf *b);

/* The manifest's flag names ("implied", "cannot-change", "disruptive",
 * "not-observed", "reset"): the NT_SF_* bit of name, 0 if none. */
unsigned nt_record_flag(const char *name);
/* "FILE:LINE:COL" (line and col 1..10,000,000) into m; false if it is not one. */
bool nt_record_source_parse(const char *s, struct nt_mark *m);

/* The reader's part every form shares: the attribute (with the object it
 * belongs to) and the values.  Problems are reported through err with the
 * node they are at, so that each loader keeps its own wording. */
enum nt_record_problem {
	NT_RECP_ATTR_UNKNOWN,	/* at: the attribute; a = the attribute */
	NT_RECP_NAME,		/* at: the object or the attribute; a = part ("object",
				 * "argument"), b = why it cannot be a path component */
	NT_RECP_NULL,		/* at: the value; a = its key, b = what it must be */
	NT_RECP_VALUE,		/* at: the value; a = its key, b = what it must be */
};
struct nt_record_reader {
	void (*err)(void *ctx, const struct nt_json *at, enum nt_record_problem p, const char *a,
		    const char *b);
	void *ctx;
	/* NULL, or why object or arg is unsafe with *part naming which */
	const char *(*problem)(enum nt_kind_id k, const char *object, const char *arg,
			       const char **part);
};
/* The string attr of record j: *kind and *arg (malloc'd or NULL).  -1: not
 * an attribute (reported, nothing set); 1: set, but object (when not NULL)
 * or the argument is unsafe (reported); 0: set and safe. */
int nt_record_read_attr(const struct nt_record_reader *rd, const struct nt_json *j,
			const char *object, const char *attr, enum nt_kind_id *kind, char **arg);
/* The value v (under key) of kind k: *has is false for a null when
 * nullable.  false after reporting. */
bool nt_record_read_value(const struct nt_record_reader *rd, const struct nt_json *v,
			  const char *key, enum nt_kind_id k, bool nullable, struct nt_value *out,
			  bool *has);

#endif
