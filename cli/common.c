/* SPDX-License-Identifier: MIT */
/* Shared steps of plan, emit and apply: load + validate + observe + lower. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/caps.h"
#include "../compiler/lower.h"
#include "../compiler/scope.h"
#include "../compiler/snapshot.h"
#include "../compiler/validate.h"
#include "../appliers/linux/linux.h"
#include "common.h"

int nt_compile(const char *profile, const char *state_path, struct nt_compiled *c,
	       struct nt_diags *d)
{
	return nt_compile_ex(profile, state_path, false, c, d);
}

static int compile(const char *profile, const struct nt_compile_opts *co,
		   const char *state_path, bool offline, struct nt_compiled *c, struct nt_diags *d)
{
	struct nt_load_opts o = nt_cli_load_opts();
	struct nt_lower L = {0};
	const char *want;
	int r;

	memset(c, 0, sizeof(*c));
	nt_facts_init(&c->facts);
	c->db = nt_capsdb_default(d);
	if (co && co->data)
		r = nt_load_profile_data(profile, co->data, co->len, &o, &c->l, d);
	else
		r = nt_load_profile(profile, &o, &c->l, d);
	if (r)
		return -1;
	if (nt_validate(&c->l, c->db, d))
		return -1;
	if (c->l.p->kind != NT_KIND_HOST) {
		struct nt_mark m = nt_loaded_mark(&c->l, "/kind", false);

		nt_error(d, m, "plan", "%s is a PolicyProfile; plan a HostProfile that extends it",
			 profile);
		return -1;
	}
	want = c->l.p->target && *c->l.p->target == NT_TARGET_WINDOWS ? "windows" : "linux";
	if (nt_g.netns && nt_netns_refuse_target(want, nt_loaded_mark(&c->l, "/target", false),
						 nt_g.netns, d))
		return -1;
	if (state_path) {
		if (nt_snapshot_load(state_path, &c->facts, &c->observed, d))
			return -1;
		c->against = state_path;
	} else if (offline) {
		c->against = NULL;	/* no host facts: the script checks at run time */
	} else if (!strcmp(want, "linux")) {
		if (nt_linux_observe_profile(&c->l, &c->facts, &c->observed, d))
			return -1;
		c->against = "the live host";
	} else {
		struct nt_mark m = {nt_intern(profile), 0, 0};

		nt_error(d, m, "plan", "a Windows profile is planned against a snapshot: run the "
			 "script from 'nettune collect --target windows' on the host and pass its "
			 "output with --state");
		return -1;
	}
	if (state_path && c->facts.hostname && c->l.p->metadata && c->l.p->metadata->name &&
	    strcmp(c->facts.hostname, c->l.p->metadata->name)) {
		struct nt_mark m = nt_loaded_mark(&c->l, "/metadata/name", false);

		nt_warn(d, m, "host", "the snapshot %s describes host '%s', not '%s'; the plan is "
			"computed against that host's state", state_path, c->facts.hostname,
			c->l.p->metadata->name);
	}
	if (c->facts.target && strcmp(c->facts.target, want)) {
		struct nt_mark m = nt_loaded_mark(&c->l, "/target", false);

		nt_error(d, m, "plan", "the profile targets %s but the snapshot %s is of a %s host",
			 want, state_path, c->facts.target);
		return -1;
	}
	L.l = &c->l;
	L.db = c->db;
	L.facts = &c->facts;
	L.observed = &c->observed;
	L.desired = &c->desired;
	L.d = d;
	L.hostname = c->l.p->metadata->name;
	if (co) {
		L.only = co->only;
		L.skip_missing = co->skip_missing;
	}
	r = nt_lower(&L);
	/* after lowering, so that settings implied by a policy are refused too */
	if (nt_g.netns && !(co && co->read_only) &&
	    nt_netns_refuse_state(&c->desired, co ? co->only : NULL, nt_g.netns, d))
		r = -1;
	if (r)
		return -1;
	{
		struct nt_plan_input in = {&c->l, &c->desired, &c->observed, &c->facts};

		nt_plan_build(&in, &c->plan);
	}
	return 0;
}

int nt_compile_ex(const char *profile, const char *state_path, bool offline,
		  struct nt_compiled *c, struct nt_diags *d)
{
	return compile(profile, NULL, state_path, offline, c, d);
}

int nt_compile_data(const char *name, const char *data, size_t len, const char *state_path,
		    struct nt_compiled *c, struct nt_diags *d)
{
	struct nt_compile_opts co = {data, len, NULL, false};

	return compile(name, &co, state_path, false, c, d);
}

int nt_compile_with(const char *profile, const char *state_path,
		    const struct nt_compile_opts *co, struct nt_compiled *c, struct nt_diags *d)
{
	return compile(profile, co, state_path, false, c, d);
}

void nt_compiled_free(struct nt_compiled *c)
{
	nt_plan_free(&c->plan);
	nt_state_free(&c->desired);
	nt_state_free(&c->observed);
	nt_facts_free(&c->facts);
	nt_loaded_free(&c->l);
}

void nt_print_diags(struct nt_diags *d)
{
	nt_diags_sort(d);
	nt_diags_print_text(d, stderr);
}
