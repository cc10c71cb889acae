/* SPDX-License-Identifier: MIT */
/*
 * Script emitters: the desired state of a compiled profile as an idempotent
 * POSIX sh script (Linux) or PowerShell playbook (Windows), and the Windows
 * collector that produces a nettune-snapshot/1 document.
 *
 * The scripts converge to the DESIRED state, not to the plan: they read the
 * current value of every setting at run time, so they stay correct on a host
 * whose state differs from the snapshot the plan was made against.  The plan
 * only contributes its ordering (phase, then the plan's refinements).
 */
#ifndef NT_EMIT_H
#define NT_EMIT_H

#include "../compiler/base/buf.h"
#include "../compiler/base/diag.h"
#include "../compiler/model/facts.h"
#include "../compiler/model/actions.h"
#include "../compiler/model/settings.h"

/* What the emitters read of the profile beyond the desired state, as plain
 * data the front end computes from it (pipeline/emit_profile.c): the
 * applier never sees the profile itself. */
struct nt_emit_feature {		/* one interfaces[].linux.features key */
	const char *iface;
	const char *key;
};
/* A tunnel with an underlay and no MTU in the profile: the playbook may
 * derive its MTU on the host from the underlay's. */
struct nt_emit_tunnel {
	const char *name;
	const char *underlay;
	const char *label;		/* the tunnel kind in a comment: "VXLAN" */
	unsigned overhead;		/* its fixed bytes and ESP trailer */
	const char *outer;		/* the outer family: "ipv4" */
	struct nt_mark src;		/* of its tunnel.underlay */
};
struct nt_emit_profile {
	const struct nt_emit_feature *features;	/* in profile order */
	size_t nfeatures;
	const struct nt_emit_tunnel *tunnels;	/* in profile order */
	size_t ntunnels;
};

struct nt_emit_input {
	const char *profile_path;	/* as given on the command line */
	const char *host;		/* metadata.name */
	const char *against;		/* snapshot path, NULL for offline */
	const struct nt_state *desired;
	const struct nt_plan *plan;	/* ordering only */
	const struct nt_facts *facts;	/* may have known == false */
	const struct nt_emit_profile *prof;	/* NULL when not at hand */
	/* sh: carry every kind's getter and setter and every helper of the
	 * template, not only those the steps use (the fuzz target's
	 * reference script) */
	bool sh_all_kinds;
};

/* Desired settings in apply order (the order nt_plan_build uses); returns
 * a malloc'ed array of n pointers into in->desired. */
const struct nt_setting **nt_emit_order(const struct nt_emit_input *in, size_t *n);

/* Each returns 0, or -1 after adding an error located at the setting's
 * profile position; out then holds nothing useful.  The sh script is
 * appliers/linux/runtime.sh.in filled in, with the getters and setters of
 * the kinds its steps use and the helpers those need. */
int nt_emit_sh(const struct nt_emit_input *in, struct nt_buf *out, struct nt_diags *d);
int nt_emit_ps1(const struct nt_emit_input *in, struct nt_buf *out, struct nt_diags *d);

/* The offload group (profile key under offloads:, e.g. "tso") whose step
 * in the sh script covers feature setting s, or NULL when s has a step of
 * its own (not a feature, a linux.features entry).  The script lists a
 * group's members on the host at run time, as apply does from the live
 * feature list; without in->prof every feature of a group counts as its. */
const char *nt_emit_sh_group(const struct nt_emit_input *in, const struct nt_setting *s);

/* Per-kind rows, exposed for the coverage test: NULL when the kind has no
 * row (the emitter then reports it as not expressible in that language). */
const char *nt_emit_sh_row(enum nt_kind_id k);
const char *nt_emit_ps1_row(enum nt_kind_id k);

/* Expands @KEY@ in tmpl from kv (KEY, value, ..., NULL). */
void nt_emit_tmpl(struct nt_buf *o, const char *tmpl, const char *const *kv);
/* 'it'\''s': single-quoted for POSIX sh ('\'' for a quote; $ ` \ the same way).
 * The only way a name or value reaches a sh script outside a comment. */
void nt_sh_quote(struct nt_buf *b, const char *s);
/* s as the text of a sh '#' comment: printable ASCII only, the rest as \xHH. */
void nt_sh_comment(struct nt_buf *b, const char *s);
/* 'it''s': single-quoted for PowerShell, doubling ' and U+2018..U+201B. */
void nt_ps_quote(struct nt_buf *b, const char *s);
/* NULL, or why the name cannot be used in a PowerShell playbook. */
const char *nt_ps_name_problem(const char *s);

/* The PowerShell collector (nettune collect --target windows). */
void nt_collect_windows(struct nt_buf *out);

#endif
