/* SPDX-License-Identifier: MIT */
/* Documentation of every diagnostic rule id, for SARIF rule metadata. */
#ifndef NT_RULES_H
#define NT_RULES_H

struct nt_rule_doc {
	const char *id;		/* the rule id diagnostics carry, e.g. "unknown-key" */
	const char *man;	/* the man page that documents it: "nettune-profile(5)" */
	const char *brief;	/* SARIF shortDescription */
	const char *full;	/* SARIF fullDescription */
	const char *help;	/* what to do about it */
};

extern const struct nt_rule_doc nt_rule_docs[];
/* The rows of rules a profile key brings with it (language/ifkeys.def,
 * table in language/schema.c), ending with id NULL; searched after
 * nt_rule_docs. */
extern const struct nt_rule_doc nt_key_rule_docs[];
/* The row of id, or NULL for an id without one (a test keeps that from
 * happening). */
const struct nt_rule_doc *nt_rule_doc(const char *id);

#endif
