/* SPDX-License-Identifier: MIT */
/* The compile pipeline as the plan/emit/apply commands run it. */
#ifndef NT_CLI_COMMON_H
#define NT_CLI_COMMON_H

#include "../compiler/caps.h"
#include "../compiler/facts.h"
#include "../compiler/load.h"
#include "../compiler/plan.h"
#include "../compiler/settings.h"
#include "cli.h"

struct nt_compiled {
	struct nt_loaded l;
	const struct nt_capsdb *db;
	struct nt_facts facts;
	struct nt_state observed;
	struct nt_state desired;
	struct nt_plan plan;
	const char *against;
};


/* load -> validate -> observe (snapshot or live) -> lower -> plan. */
int nt_compile(const char *profile, const char *state_path, struct nt_compiled *c,
	       struct nt_diags *d);
/* offline: without a snapshot, lower with no host facts at all (emit). */
int nt_compile_ex(const char *profile, const char *state_path, bool offline,
		  struct nt_compiled *c, struct nt_diags *d);
/* The same with the profile's text in memory; name is how diagnostics
 * call it (the Ansible module's profile_content). */
int nt_compile_data(const char *name, const char *data, size_t len, const char *state_path,
		    struct nt_compiled *c, struct nt_diags *d);

struct nt_compile_opts {
	const char *data;		/* profile text in memory; NULL: read the file */
	size_t len;
	const char *only;		/* apply --only: other missing interfaces are skipped */
	bool skip_missing;		/* apply --skip-missing: missing interfaces are skipped */
	bool read_only;			/* watch: nothing is applied, so --netns refuses
					 * no host-wide setting */
};

/* Against the live host (or state_path), with the options above. */
int nt_compile_with(const char *profile, const char *state_path,
		    const struct nt_compile_opts *co, struct nt_compiled *c, struct nt_diags *d);
void nt_compiled_free(struct nt_compiled *c);
void nt_print_diags(struct nt_diags *d);
#endif
