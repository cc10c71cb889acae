/* SPDX-License-Identifier: MIT */
/*
 * The pipeline: load -> validate -> observe -> lower -> plan, as every
 * front end runs it (plan, emit, apply, watch, compile, the Ansible
 * module).  One entry point, nt_pipeline_run(), takes a request saying
 * what to plan (a profile file, profile text in memory, or a loaded
 * PLAN.json) and where the host's state comes from (the live host, a
 * snapshot file, nowhere, or the caller's observer).
 */
#ifndef NT_PIPELINE_H
#define NT_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "../compiler/model/caps.h"
#include "../compiler/base/diag.h"
#include "../compiler/model/facts.h"
#include "../compiler/language/load.h"
#include "../compiler/formats/manifest.h"
#include "../compiler/passes/plan.h"
#include "../compiler/model/settings.h"

/* What a run produced.  Owned by the caller; nt_compiled_free() frees it
 * (also after a failed run). */
struct nt_compiled {
	struct nt_loaded l;
	bool l_borrowed;		/* l is rq->loaded's: not freed here */
	const struct nt_capsdb *db;
	struct nt_state observed;
	struct nt_state desired;
	struct nt_plan plan;		/* empty for a PLAN.json request: see rq.manifest */
	const char *against;		/* "the live host", a snapshot path, NULL offline */
	/* set by an observer that lends facts and state it keeps (compile's
	 * snapshot cache); then facts and observed stay unused */
	const struct nt_facts *lent_facts;
	const struct nt_state *lent_observed;
	bool facts_ready;		/* facts below is initialised (and owned) */
	/* last and initialised only when used: it is large (per-CPU tables),
	 * and a batch compile borrows its facts for every profile */
	struct nt_facts facts;
};

/* The facts and observed state a run planned against. */
static inline const struct nt_facts *nt_compiled_facts(const struct nt_compiled *c)
{
	return c->lent_facts ? c->lent_facts : &c->facts;
}
/* For an observer that fills c->facts itself: initialises it and returns it. */
static inline struct nt_facts *nt_compiled_own_facts(struct nt_compiled *c)
{
	if (!c->facts_ready)
		nt_facts_init(&c->facts);
	c->facts_ready = true;
	return &c->facts;
}
static inline const struct nt_state *nt_compiled_observed(const struct nt_compiled *c)
{
	return c->lent_observed ? c->lent_observed : &c->observed;
}

/* Where the host's state comes from. */
enum nt_state_source {
	NT_STATE_LIVE,		/* observe this host (Linux) */
	NT_STATE_SNAPSHOT,	/* rq.state_path: a JSON snapshot */
	NT_STATE_OFFLINE,	/* no host facts: emitted scripts check at run time */
	NT_STATE_OBSERVER,	/* rq.observer */
	NT_STATE_NONE,		/* none at all: stop after validation (NT_PIPE_NO_STATE) */
};

/* Return values of nt_pipeline_run() besides 0 and -1. */
enum {
	NT_PIPE_POLICY = 1,	/* rq.policy_stops and the profile is a PolicyProfile */
	NT_PIPE_NO_STATE = 2,	/* no state for it (NT_STATE_NONE, or the observer
				 * said so): validated only */
};

struct nt_observer {
	/* Fills nt_compiled_own_facts(c) and c->observed (or sets
	 * c->lent_facts and c->lent_observed) and c->against for the loaded
	 * profile c->l.
	 * Returns 0, -1 with diagnostics in d, or NT_PIPE_NO_STATE. */
	int (*observe)(void *ctx, struct nt_compiled *c, struct nt_diags *d);
	void *ctx;
};

struct nt_pipeline_req {
	/* what to plan: a profile (path, or the name diagnostics give the
	 * text in data), or a PLAN.json already loaded and checked */
	const char *profile;
	const char *data;		/* profile text in memory; NULL: read the file */
	size_t len;
	const struct nt_manifest *manifest;
	/* a HostProfile loaded and validated before (the agent keeps its
	 * profile between events): borrowed, neither loaded nor freed again */
	const struct nt_loaded *loaded;
	/* where the state comes from */
	enum nt_state_source source;
	const char *state_path;		/* NT_STATE_SNAPSHOT */
	const struct nt_observer *observer;	/* NT_STATE_OBSERVER */
	/* options */
	struct nt_load_opts load;	/* --profile-path, NOFOLLOW */
	const struct nt_capsdb *db;	/* NULL: the built-in tables */
	const char *netns;		/* --netns: host-wide settings are refused */
	const char *only;		/* apply --only: other missing interfaces are skipped */
	/* with only: observe and lower only that interface and the underlays
	 * it rides on (the agent's correction of one interface); host-wide
	 * settings and the other interfaces are left out of the plan */
	bool narrow;
	bool skip_missing;		/* apply --skip-missing */
	bool any_host;			/* --any-host: a live plan of a profile whose
					 * metadata.name is not this host is not refused */
	bool read_only;			/* watch: nothing is applied, so --netns refuses
					 * no host-wide setting */
	bool policy_stops;		/* a PolicyProfile is NT_PIPE_POLICY, not an error */
};

/*
 * Profile: load, validate, refuse a PolicyProfile (or stop: policy_stops),
 * observe (rq.source), lower, plan; c holds every stage's result.
 * PLAN.json (rq.manifest): observe on the live host (whatever rq.source
 * says) what its actions touch; observation problems are left to the
 * caller's staleness check; c->desired gets the values it sets (the plan
 * stays in the manifest).  Returns 0, -1 with diagnostics in d, or
 * NT_PIPE_*.
 */
int nt_pipeline_run(const struct nt_pipeline_req *rq, struct nt_compiled *c,
		    struct nt_diags *d);
void nt_compiled_free(struct nt_compiled *c);

#endif
