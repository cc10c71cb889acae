/* SPDX-License-Identifier: MIT */
/*
 * Loading a profile: parse, schema check, resolve extends (merge), apply
 * defaults, then load the merged document with libcyaml.
 *
 * Only a PolicyProfile can be extended; it may set interfaces (merged by
 * name) and processes, but not host or target.
 * Merge rules: the extended profiles are applied in the order listed,
 * then the profile itself.  Maps merge key by key; `interfaces` merge by
 * name; any other value (scalars, other sequences) is replaced by the
 * later one.  apiVersion, kind, metadata and extends are never inherited.
 * A map replaced by a scalar (or the reverse) is an error naming both
 * files; two extended policies that set one value differently get a
 * warning naming both.  `defaults.physical` / `defaults.tunnel` are then
 * merged beneath every interface without / with a `tunnel:` key.
 */
#ifndef NT_LOAD_H
#define NT_LOAD_H

#include "../base/diag.h"
#include "profile.h"
#include "ytree.h"

struct nt_loaded {
	struct nt_profile *p;		/* typed, merged profile */
	struct nt_ynode *tree;		/* merged tree: the mark index */
	const char *file;		/* the profile named on the command line */
	const char **sources;		/* every file read, the profile first */
	size_t nsources;
	/* keep_going: where schema errors made the loader drop something */
	struct nt_mark *pruned;
	size_t npruned;
};

struct nt_load_opts {
	const char *const *profile_path;	/* --profile-path directories */
	size_t nprofile_path;
	/* for the profile itself: NT_IN_NOFOLLOW when it was found by walking
	 * a directory rather than named by the user */
	unsigned open_flags;
	/* validate: after schema errors, drop what they were found at and go
	 * on with the rest (its errors stay in d; out is set when the rest
	 * still loads) */
	bool keep_going;
};

/* Returns 0, or -1 with located errors in d (warnings may be added
 * either way).  out is zeroed on failure. */
int nt_load_profile(const char *path, const struct nt_load_opts *o,
		    struct nt_loaded *out, struct nt_diags *d);
/* The same from memory (fuzzing, Ansible inline profiles). */
int nt_load_profile_data(const char *file, const char *data, size_t len,
			 const struct nt_load_opts *o, struct nt_loaded *out,
			 struct nt_diags *d);
void nt_loaded_free(struct nt_loaded *l);

/* Mark of a profile path such as "/interfaces/0/mtu" (key_mark: the key). */
struct nt_mark nt_loaded_mark(const struct nt_loaded *l, const char *path, bool key_mark);

/* The compiled-in text of a bundled policy by the name diagnostics give
 * it ("<built-in>/profiles/NAME.yaml"), or NULL for any other name. */
struct nt_caps_text;
const struct nt_caps_text *nt_builtin_policy(const char *file);
#endif
