/* SPDX-License-Identifier: MIT */
/* Plan files: read/write, signature checks against trusted keys, apply PLAN.json. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../compiler/formats/planprint.h"
#include "../appliers/linux/linux.h"
#include "../compiler/model/scope.h"
#include "common.h"
#include "plans.h"

int nt_read_file(const char *path, size_t max, struct nt_buf *out)
{
	char why[256];
	int r = nt_read_input(path, max, 0, out, why, sizeof(why));

	if (r) {
		errno = -r;
		return -1;
	}
	return 0;
}

int nt_write_file_atomic(const char *path, const void *data, size_t n, mode_t mode,
			 bool durable)
{
	char *tmp = nt_xasprintf("%s.tmp", path);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	int r = -1, e;

	if (fd < 0)
		goto out;
	if (write(fd, data, n) != (ssize_t)n || (durable && fsync(fd))) {
		e = errno;
		close(fd);
		unlink(tmp);
		errno = e;
		goto out;
	}
	if (close(fd) || rename(tmp, path)) {
		e = errno;
		unlink(tmp);
		errno = e;
		goto out;
	}
	r = 0;
out:
	free(tmp);
	return r;
}

enum nt_sig_status nt_plan_signature(const char *path, const struct nt_buf *bytes,
				     const struct nt_manifest *m, const struct nt_trust *t,
				     const struct nt_key **who, char *why, size_t whylen)
{
	char *sigpath = nt_xasprintf("%s.sig", path);
	struct nt_buf sig = {0};
	const struct nt_key *k;
	char rwhy[256];
	enum nt_sig_status r = NT_SIG_INVALID;
	int e;
	size_t i;

	*who = NULL;
	e = nt_read_input(sigpath, 4096, 0, &sig, rwhy, sizeof(rwhy));
	if (e) {
		if (e == -ENOENT && m->signer)
			snprintf(why, whylen, "missing signature: %s names signer %s but %s does not "
				 "exist", path, m->signer, sigpath);
		else if (e == -ENOENT)
			snprintf(why, whylen, "missing signature: %s is not signed (no %s) and trusted "
				 "keys are configured (%s); sign it with 'nettune sign'", path, sigpath,
				 t->sources ? t->sources : "none");
		else
			snprintf(why, whylen, "signature %s: %s", sigpath, rwhy);
		r = e == -ENOENT ? NT_SIG_UNSIGNED : NT_SIG_INVALID;
		goto out;
	}
	if (sig.n != NT_SIG_BYTES) {
		snprintf(why, whylen, "bad signature: %s is %zu bytes, not a %d-byte Ed25519 signature",
			 sigpath, sig.n, NT_SIG_BYTES);
		goto out;
	}
	if (m->signer) {
		k = nt_trust_find(t, m->signer);
		if (!k) {
			snprintf(why, whylen, "unknown key: %s is signed by %s, which is not a trusted key "
				 "(trusted: %s)", path, m->signer, t->n ? t->sources : "no keys");
			r = NT_SIG_UNTRUSTED;
			goto out;
		}
		if (!nt_verify(k, bytes->p, bytes->n, (const unsigned char *)sig.p, sig.n)) {
			snprintf(why, whylen, "bad signature: %s does not verify %s with key %s (%s): the "
				 "plan was changed after signing, or the signature is not this key's",
				 sigpath, path, k->id, k->path);
			goto out;
		}
		*who = k;
		r = NT_SIG_VALID;
		goto out;
	}
	/* signed by another tool (openssl pkeyutl) without naming the key */
	for (i = 0; i < t->n; i++)
		if (nt_verify(&t->v[i], bytes->p, bytes->n, (const unsigned char *)sig.p, sig.n)) {
			*who = &t->v[i];
			r = NT_SIG_VALID;
			goto out;
		}
	if (!t->n) {
		snprintf(why, whylen, "unknown key: %s has a signature but there are no trusted keys "
			 "(%s has none)", path, t->sources ? t->sources : "");
		r = NT_SIG_UNTRUSTED;
	} else {
		snprintf(why, whylen, "bad signature: %s does not verify %s with any trusted key (%s)",
			 sigpath, path, t->sources);
	}
out:
	nt_buf_free(&sig);
	free(sigpath);
	return r;
}

int nt_plan_check_signature(const char *cmd, const char *path, const struct nt_buf *bytes,
			    const struct nt_manifest *m, const struct nt_trust *t,
			    const struct nt_key **who)
{
	char why[2048];

	if (nt_plan_signature(path, bytes, m, t, who, why, sizeof(why)) == NT_SIG_VALID)
		return 0;
	fprintf(stderr, "nettune %s: error: %s\n", cmd, nt_esc(why));
	return -1;
}

static bool same_host(const struct nt_manifest *m, const struct nt_facts *f)
{
	char *live_id = f->machine_id ? nt_xstrdup(f->machine_id) : NULL;
	bool same;

	if (live_id)
		live_id[strcspn(live_id, " \t\r\n")] = '\0';
	if (m->machine_id && live_id && *live_id)
		same = !strcmp(m->machine_id, live_id);
	else
		same = f->hostname && !strcmp(m->host_name, f->hostname);
	free(live_id);
	return same;
}

/* Off a terminal without --yes only a plan signed by a trusted key is
 * applied (its signature is the approval); -1 after saying why not. */
static int check_approval(const char *path, bool need_approval, const struct nt_key *who)
{
	if (!need_approval || who)
		return 0;
	fprintf(stderr, "nettune apply: error: not approved: %s: not on a terminal, so apply "
		"cannot show the plan and ask, and no trusted key (--trust PUB, or keys in %s) "
		"verifies its signature, which would approve it; add --yes to approve, or "
		"review it first with --dry-run; nothing was changed\n",
		nt_esc(path), nt_esc(nt_trust_dir()));
	return -1;
}

/* The signature check (or the warning that no key checks it). */
static int manifest_signature(const char *path, const struct nt_buf *bytes,
			      const struct nt_manifest *m, const struct nt_trust *t,
			      const struct nt_key **who)
{
	if (!t->required) {
		fprintf(stderr, "nettune apply: warning: no trusted keys (--trust PUB, or keys in %s): "
			"the signature of %s is not checked\n", nt_esc(nt_trust_dir()), nt_esc(path));
		return 0;
	}
	if (nt_plan_check_signature("apply", path, bytes, m, t, who))
		return -1;
	if (nt_g.verbose)
		fprintf(stderr, "nettune apply: %s: good signature by %s (%s)\n",
			nt_esc(path), nt_esc((*who)->id), nt_esc((*who)->path));
	return 0;
}

/* Expired, from the future, for Windows: -1 after saying which. */
static int manifest_untimely(const char *path, const struct nt_manifest *m)
{
	char when[32], made[32];
	int64_t now = (int64_t)time(NULL);

	nt_time_format(m->expires, when);
	nt_time_format(m->created, made);
	if (now >= m->expires) {
		fprintf(stderr, "nettune apply: error: expired plan: %s expired at %s (created %s); "
			"make a new plan\n", nt_esc(path), when, made);
		return -1;
	}
	if (m->created > now + 300) {
		/* five minutes of clock skew are tolerated */
		fprintf(stderr, "nettune apply: error: plan from the future: %s was created at %s, "
			"after this host's clock; check the clocks of the planner and this host\n",
			nt_esc(path), made);
		return -1;
	}
	if (strcmp(m->plan.target, "linux")) {
		fprintf(stderr, "nettune apply: error: %s is a %s plan; generate the playbook with "
			"'nettune emit --format ps1'\n", nt_esc(path), nt_esc(m->plan.target));
		return -1;
	}
	return 0;
}

/* The plan's network namespace is the apply's: -1 after saying why not. */
static int manifest_other_netns(const char *path, const struct nt_manifest *m,
				const struct nt_apply_opts *o, struct nt_diags *d)
{
	if (o->netns && nt_netns_refuse_plan(&m->plan, o->netns, d)) {
		nt_print_diags(d);
		fprintf(stderr, "nettune apply: error: %s changes host-wide settings and --netns %s "
			"confines the apply to that network namespace; nothing was changed\n",
			nt_esc(path), nt_esc(o->netns));
		return -1;
	}
	if (m->netns ? !o->netns || strcmp(m->netns, o->netns) : o->netns != NULL) {
		/* the values were observed in another namespace: neither their
		 * staleness nor "already converged" says anything about this one */
		fprintf(stderr, "nettune apply: error: plan for another network namespace: %s was "
			"made %s%s%s, this apply is %s%s%s; nothing was changed\n", nt_esc(path),
			m->netns ? "in namespace " : "for the host's own namespace (no --netns)",
			m->netns ? nt_esc(m->netns) : "", m->netns ? " (--netns)" : "",
			o->netns ? "in namespace " : "for the host's own namespace (no --netns)",
			o->netns ? nt_esc(o->netns) : "", o->netns ? " (--netns)" : "");
		return -1;
	}
	return 0;
}

/* The plan is for this host (machine-id, else host name): -1 after saying. */
static int manifest_other_host(const char *path, const struct nt_manifest *m,
			       const struct nt_facts *f)
{
	char *lid;

	if (same_host(m, f))
		return 0;
	lid = f->machine_id ? nt_xstrdup(f->machine_id) : NULL;
	if (lid)
		lid[strcspn(lid, " \t\r\n")] = '\0';
	if (m->machine_id && lid && *lid)
		fprintf(stderr, "nettune apply: error: plan for another host: %s is for machine-id "
			"%s (host %s), this host is machine-id %s (host %s)\n", nt_esc(path),
			nt_esc(m->machine_id), nt_esc(m->host_name), nt_esc(lid),
			f->hostname ? nt_esc(f->hostname) : "?");
	else
		fprintf(stderr, "nettune apply: error: plan for another host: %s is for host %s, "
			"this host is %s\n", nt_esc(path), nt_esc(m->host_name),
			f->hostname ? nt_esc(f->hostname) : "unknown");
	free(lid);
	return -1;
}

/* Applied already: a re-run (a pipeline retry, a timer) is a converged
 * host, handled like a converged apply (lock, no journal). */
static int apply_converged(const char *path, const struct nt_manifest *m, struct nt_compiled *c,
			   bool need_approval, const struct nt_key *who, struct nt_apply_opts *o)
{
	struct nt_plan none = m->plan;
	struct nt_state none_desired = {0};
	char *msg;
	int r;

	if (check_approval(path, need_approval, who))
		return NT_EXIT_FAIL;
	msg = nt_xasprintf("Already converged: this host already holds every value %s sets "
			   "(%zu action%s); nothing was changed.", nt_esc(path), m->plan.n,
			   m->plan.n == 1 ? "" : "s");
	none.n = 0;
	o->nothing_msg = msg;
	r = nt_txn_apply(&none, &none_desired, &c->facts, o);
	o->nothing_msg = NULL;
	free(msg);
	return r;
}

/* Some observed values differ from the plan's: what changed, and what of
 * the plan the host holds. */
static void say_stale(const char *path, const struct nt_manifest *m, const struct nt_state *live,
		      size_t nstale, const struct nt_buf *diff)
{
	struct nt_buf held = {0};
	size_t nkeys, missing = nt_manifest_not_held(m, live, &nkeys, &held);
	char made[32];

	nt_time_format(m->created, made);
	fprintf(stderr, "nettune apply: error: stale plan: %zu setting%s of this host changed "
		"since %s was made (%s, against %s); nothing was changed:\n%s", nstale,
		nstale == 1 ? "" : "s", nt_esc(path), made, nt_esc(m->against), diff->p);
	/* partly applied (by hand, or undone in part): say what is missing */
	if (missing < nkeys)
		fprintf(stderr, "the host holds %zu of the %zu values the plan sets; not held:\n%s",
			nkeys - missing, nkeys, held.p ? held.p : "");
	fputs("make a new plan\n", stderr);
	nt_buf_free(&held);
}

/* Against the live host: this host, not stale (or converged), every
 * action possible, approved; then applied. */
static int apply_live(const char *path, struct nt_manifest *m, bool need_approval,
		      const struct nt_key *who, struct nt_apply_opts *o, struct nt_diags *d)
{
	struct nt_pipeline_req rq = {.manifest = m};
	struct nt_compiled c = {0};
	struct nt_buf diff = {0};
	size_t nstale;
	int r = NT_EXIT_FAIL;

	nt_pipeline_run(&rq, &c, d);
	if (manifest_other_host(path, m, &c.facts))
		goto out;
	nstale = nt_manifest_stale(m, &c.observed, &diff);
	if (nstale && nt_manifest_converged(m, &c.observed)) {
		r = apply_converged(path, m, &c, need_approval, who, o);
	} else if (nstale) {
		say_stale(path, m, &c.observed, nstale, &diff);
	} else if (m->plan.cannot) {
		fprintf(stderr, "nettune apply: error: %zu action%s of %s cannot be applied on this host; "
			"nothing was changed\n", m->plan.cannot, m->plan.cannot == 1 ? "" : "s",
			nt_esc(path));
	} else if (!check_approval(path, need_approval, who)) {
		if ((o->dry_run || nt_g.verbose) && !o->ask) {
			struct nt_buf out = {0};

			nt_plan_print_text(&m->plan, path, nt_g.color, &out);
			nt_buf_write(&out, stdout);
			nt_buf_free(&out);
		}
		r = nt_txn_apply(&m->plan, &c.desired, &c.facts, o);
	}
out:
	nt_buf_free(&diff);
	nt_compiled_free(&c);
	return r;
}

int nt_apply_manifest(const char *path, const struct nt_buf *bytes, const struct nt_trust *t,
		      bool need_approval, struct nt_apply_opts *o)
{
	struct nt_manifest m;
	struct nt_diags d = {0};
	const struct nt_key *who = NULL;
	int r = NT_EXIT_FAIL;

	if (nt_manifest_load_data(path, bytes->p, bytes->n, &m, &d)) {
		nt_print_diags(&d);
		fprintf(stderr, "nettune apply: error: %s is not a valid plan manifest; nothing was "
			"changed\n", nt_esc(path));
		nt_diags_free(&d);
		return NT_EXIT_FAIL;
	}
	if (!manifest_signature(path, bytes, &m, t, &who) && !manifest_untimely(path, &m) &&
	    !manifest_other_netns(path, &m, o, &d))
		r = apply_live(path, &m, need_approval, who, o, &d);
	nt_manifest_free(&m);
	nt_diags_free(&d);
	return r;
}
