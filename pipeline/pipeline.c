/* SPDX-License-Identifier: MIT */
/* load -> validate -> observe -> lower -> plan: the one pipeline of every front end. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../appliers/linux/linux.h"
#include "../compiler/passes/lower.h"
#include "../compiler/model/scope.h"
#include "../compiler/formats/snapshot.h"
#include "../compiler/passes/validate.h"
#include "pipeline.h"
#include "want.h"

/* What to observe to re-check a plan's "from" values. */
static void request_for(const struct nt_manifest *m, struct nt_observe_req *req)
{
	const char **ifs = nt_xcalloc(m->plan.n + 1, sizeof(char *));
	const char **sys = nt_xcalloc(m->plan.n + 1, sizeof(char *));
	const char **procs = nt_xcalloc(m->plan.n + 1, sizeof(char *));
	size_t i, k;

	memset(req, 0, sizeof(*req));
	for (i = 0; i < m->plan.n; i++) {
		const struct nt_action *a = &m->plan.v[i];

		/* the kind says which namespace the object is in: an interface
		 * may be named "sysctl" or "irqbalance" */
		if (a->kind == NT_K_SYSCTL) {
			sys[req->nsysctls++] = a->arg;
		} else if (a->kind == NT_K_IRQBALANCE_BAN || a->kind == NT_K_IRQBALANCE_SERVICE) {
			req->irqbalance = true;
		} else if (a->kind == NT_K_PROCESS_CPUS) {
			for (k = 0; k < req->nprocesses && strcmp(procs[k], a->object); k++)
				;
			if (k == req->nprocesses)
				procs[req->nprocesses++] = a->object;
		} else {
			for (k = 0; k < req->nifaces && strcmp(ifs[k], a->object); k++)
				;
			if (k == req->nifaces)
				ifs[req->nifaces++] = a->object;
		}
	}
	req->ifaces = ifs;
	req->sysctls = sys;
	req->processes = procs;
}

/* A PLAN.json: the live values of what it touches, and what it sets.
 * Observation problems are not errors here: the staleness check that
 * follows reports every value that is not as planned. */
static int run_manifest(const struct nt_pipeline_req *rq, struct nt_compiled *c,
			struct nt_diags *d)
{
	struct nt_observe_req req;

	request_for(rq->manifest, &req);
	nt_linux_observe(&req, &c->facts, &c->observed, d);
	free((void *)req.ifaces);
	free((void *)req.sysctls);
	free((void *)req.processes);
	c->against = "the live host";
	nt_manifest_desired(rq->manifest, &c->desired);
	return 0;
}

/* Host names compare as DNS names do: without case, and a short name
 * matches its qualified form (db-prod-07, db-prod-07.example.com). */
static bool same_host_name(const char *a, const char *b)
{
	size_t na = strcspn(a, "."), nb = strcspn(b, ".");

	if (!strcasecmp(a, b))
		return true;
	return (!a[na] || !b[nb]) && na == nb && !strncasecmp(a, b, na);
}

/* A live plan of a profile for another host is refused: a profile names
 * its host (metadata.name), unless it says it is for any (metadata.host:
 * any) or the command line says so (--any-host).  A host whose name is
 * unknown (an image under --root without one) is not refused. */
static int refuse_other_host(const struct nt_pipeline_req *rq, const struct nt_compiled *c,
			     const char *host, struct nt_diags *d)
{
	const struct nt_metadata *md = c->l.p->metadata;

	if (rq->any_host || !host || !md || !md->name || (md->host && *md->host == NT_HOST_ANY) ||
	    same_host_name(host, md->name))
		return 0;
	nt_error(d, nt_loaded_mark(&c->l, "/metadata/name", false), "host",
		 "profile for another host: metadata.name is %s, this host is %s (plan it on %s; "
		 "a profile meant for any host, a lab or a fleet-wide one, says metadata.host: "
		 "any, or pass --any-host)", md->name, host, md->name);
	return -1;
}

/* The host's facts and state, from the source the request names. */
static int observe(const struct nt_pipeline_req *rq, const char *want, struct nt_compiled *c,
		   struct nt_diags *d)
{
	switch (rq->source) {
	case NT_STATE_SNAPSHOT:
		if (nt_snapshot_load(rq->state_path, &c->facts, &c->observed, d))
			return -1;
		c->against = rq->state_path;
		return 0;
	case NT_STATE_OFFLINE:
		c->against = NULL;	/* no host facts: the script checks at run time */
		return 0;
	case NT_STATE_OBSERVER:
		return rq->observer->observe(rq->observer->ctx, c, d);
	case NT_STATE_NONE:
		return NT_PIPE_NO_STATE;
	case NT_STATE_LIVE:
		break;
	}
	if (!strcmp(want, "linux")) {
		struct nt_want w;
		int r;

		nt_want_profile(&c->l, rq->narrow ? rq->only : NULL, &w);
		r = nt_linux_observe(&w.req, &c->facts, &c->observed, d);
		nt_want_free(&w);
		if (r)
			return -1;
		c->against = "the live host";
		return 0;
	}
	nt_error(d, ((struct nt_mark){nt_intern(rq->profile), 0, 0}), "plan",
		 "a Windows profile is planned against a snapshot: run the script from 'nettune "
		 "collect --target windows' on the host and pass its output with --state");
	return -1;
}

/* Load and validate the profile; a HostProfile goes on (0). */
static int load_host_profile(const struct nt_pipeline_req *rq, struct nt_compiled *c,
			     struct nt_diags *d)
{
	int r;

	c->db = rq->db ? rq->db : nt_capsdb_default(d);
	if (rq->loaded) {
		c->l = *rq->loaded;
		c->l_borrowed = true;
		return 0;
	}
	if (rq->data)
		r = nt_load_profile_data(rq->profile, rq->data, rq->len, &rq->load, &c->l, d);
	else
		r = nt_load_profile(rq->profile, &rq->load, &c->l, d);
	if (r)
		return -1;
	if (nt_validate(&c->l, c->db, d))
		return -1;
	if (c->l.p->kind != NT_KIND_HOST) {
		if (rq->policy_stops)
			return NT_PIPE_POLICY;
		nt_error(d, nt_loaded_mark(&c->l, "/kind", false), "plan",
			 "%s is a PolicyProfile; plan a HostProfile that extends it", rq->profile);
		return -1;
	}
	return 0;
}

/* Facts of another namespace, another host or another target; -1 when refused. */
static int check_facts(const struct nt_pipeline_req *rq, struct nt_compiled *c,
		       const struct nt_facts *facts, const char *want, struct nt_diags *d)
{
	if (rq->source == NT_STATE_SNAPSHOT && rq->netns &&
	    (!facts->netns || strcmp(facts->netns, rq->netns)))
		/* a snapshot plan reads no namespace: --netns only scopes it */
		nt_warn(d, ((struct nt_mark){nt_intern(rq->state_path), 0, 0}), "netns",
			"the snapshot was taken %s%s, not in network namespace %s: the plan is of "
			"its values, and --netns with --state only refuses host-wide settings "
			"(take the snapshot with 'nettune --netns %s observe --json', or plan "
			"without --state)", facts->netns ? "in network namespace " :
			"in the host's own namespace", facts->netns ? facts->netns : "", rq->netns,
			rq->netns);
	if (rq->source == NT_STATE_SNAPSHOT && facts->hostname && c->l.p->metadata &&
	    c->l.p->metadata->name && !c->l.p->metadata->host &&
	    !same_host_name(facts->hostname, c->l.p->metadata->name))
		nt_warn(d, nt_loaded_mark(&c->l, "/metadata/name", false), "host",
			"the snapshot %s describes host '%s', not '%s'; the plan is computed against "
			"that host's state", rq->state_path, facts->hostname, c->l.p->metadata->name);
	if (rq->source == NT_STATE_LIVE && refuse_other_host(rq, c, facts->hostname, d))
		return -1;
	if (facts->target && strcmp(facts->target, want)) {
		nt_error(d, nt_loaded_mark(&c->l, "/target", false), "plan",
			 "the profile targets %s but the snapshot %s is of a %s host", want,
			 c->against, facts->target);
		return -1;
	}
	return 0;
}

/* Lower the profile against the facts, then build the plan. */
static int lower_and_plan(const struct nt_pipeline_req *rq, struct nt_compiled *c,
			  const struct nt_facts *facts, struct nt_diags *d)
{
	struct nt_lower L = {0};
	int r;

	L.l = &c->l;
	L.db = c->db;
	L.facts = facts;
	L.observed = nt_compiled_observed(c);
	L.desired = &c->desired;
	L.d = d;
	/* the key of the host planned for: the profile's name when it names
	 * that host (unchanged keys), else the host's own (metadata.host: any,
	 * --any-host, a snapshot of another host) */
	L.hostname = c->l.p->metadata->name;
	if (facts->hostname && !same_host_name(facts->hostname, L.hostname))
		L.hostname = facts->hostname;
	L.only = rq->only;
	L.narrow = rq->narrow && rq->only;
	L.skip_missing = rq->skip_missing;
	r = nt_lower(&L);
	/* after lowering, so that settings implied by a policy are refused too;
	 * with every other error of the profile, not instead of them */
	if (rq->netns && !rq->read_only &&
	    nt_netns_refuse_state(&c->desired, rq->only, rq->netns, d))
		r = -1;
	if (r)
		return -1;
	{
		struct nt_plan_input in = {&c->l, &c->desired, L.observed, facts};

		nt_plan_build(&in, &c->plan);
	}
	return 0;
}

int nt_pipeline_run(const struct nt_pipeline_req *rq, struct nt_compiled *c,
		    struct nt_diags *d)
{
	const struct nt_facts *facts;
	const char *want;
	int r;

	memset(c, 0, offsetof(struct nt_compiled, facts));
	if (rq->manifest || (rq->source != NT_STATE_OBSERVER && rq->source != NT_STATE_NONE))
		nt_compiled_own_facts(c);
	if (rq->manifest)
		return run_manifest(rq, c, d);
	r = load_host_profile(rq, c, d);
	if (r)
		return r;
	if (rq->source == NT_STATE_NONE)
		return NT_PIPE_NO_STATE;
	want = c->l.p->target && *c->l.p->target == NT_TARGET_WINDOWS ? "windows" : "linux";
	if (rq->netns && nt_netns_refuse_target(want, nt_loaded_mark(&c->l, "/target", false),
						rq->netns, d))
		return -1;
	r = observe(rq, want, c, d);
	if (r)
		return r;
	if (!c->lent_facts)
		nt_compiled_own_facts(c);	/* an observer that filled none */
	facts = nt_compiled_facts(c);
	if (check_facts(rq, c, facts, want, d))
		return -1;
	return lower_and_plan(rq, c, facts, d);
}

void nt_compiled_free(struct nt_compiled *c)
{
	nt_plan_free(&c->plan);
	nt_state_free(&c->desired);
	nt_state_free(&c->observed);
	if (c->facts_ready)
		nt_facts_free(&c->facts);
	c->facts_ready = false;
	if (!c->l_borrowed)
		nt_loaded_free(&c->l);
	memset(&c->l, 0, sizeof(c->l));
	c->l_borrowed = false;
}
