/* SPDX-License-Identifier: MIT */
/*
 * One correction: the pipeline plans the interface (or the whole
 * profile) against the live host; every drifted setting is counted; the
 * ones not held, not damped and not only reported are applied as one
 * journaled transaction (nt_txn_apply), which reads them back.  Damping:
 * a setting corrected more than damp_n times within damp_window is left
 * alone for backoff, and the conflict is reported.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../appliers/linux/journal.h"
#include "../appliers/linux/statedir.h"
#include "../appliers/linux/txn.h"
#include "../compiler/base/diag.h"
#include "../pipeline/netns.h"
#include "../compiler/model/actions.h"
#include "agent_int.h"
#include "metrics.h"

/* A setting as the log names it: "eth0 mtu", but "sysctl net.ipv4.x"
 * (not "sysctl sysctl net.ipv4.x") where the attribute names its object. */
static const char *named(const char *obj, const char *attr, char *out, size_t n)
{
	size_t k = strlen(obj);

	if (!strncmp(attr, obj, k) && attr[k] == ' ')
		snprintf(out, n, "%s", attr);
	else
		snprintf(out, n, "%s %s", obj, attr);
	return out;
}

/* Tracked settings -------------------------------------------------------- */

/* The index of a setting's entry (made if new); an index, since the
 * array moves as it grows. */
static size_t tracked(struct nt_agent *a, const char *object, const char *attr)
{
	char *key = nt_xasprintf("%s\t%s", object, attr);
	size_t i, old = 0;

	for (i = 0; i < a->ntr; i++) {
		if (!strcmp(a->tr[i].key, key)) {
			free(key);
			a->tr[i].seen_ms = nt_agent_mono_ms();
			return i;
		}
		if (a->tr[i].seen_ms < a->tr[old].seen_ms && !a->tr[i].backoff_until_ms)
			old = i;
	}
	if (a->ntr == NT_AGENT_MAX_TRACKED) {
		/* bounded: the setting seen least recently (not backing off) goes */
		i = old;
		a->outstanding -= a->tr[i].outstanding;
		free(a->tr[i].key);
		free(a->tr[i].reported);
	} else {
		a->tr = nt_xrealloc(a->tr, (a->ntr + 1) * sizeof(*a->tr));
		i = a->ntr++;
	}
	memset(&a->tr[i], 0, sizeof(a->tr[i]));
	a->tr[i].key = key;
	a->tr[i].seen_ms = nt_agent_mono_ms();
	return i;
}

static void set_outstanding(struct nt_agent *a, struct nt_tracked *t, bool on)
{
	if (t->outstanding != on) {
		a->outstanding += on ? 1 : (size_t)-1;
		t->outstanding = on;
	}
}

size_t nt_agent_conflicts(const struct nt_agent *a)
{
	size_t n = 0;

	for (size_t i = 0; i < a->ntr; i++)
		n += a->tr[i].backoff_until_ms != 0;
	return n;
}

static void split_key(const char *key, char *obj, size_t n, const char **attr)
{
	size_t k = strcspn(key, "\t");

	snprintf(obj, n, "%.*s", (int)k, key);
	*attr = key[k] ? key + k + 1 : "";
}

/* Back-offs that ended: the setting is corrected again (at once). */
void nt_agent_damp_expire(struct nt_agent *a)
{
	long long now = nt_agent_mono_ms(), next = 0;

	for (size_t i = 0; i < a->ntr; i++) {
		struct nt_tracked *t = &a->tr[i];
		char obj[256], nm[512];
		const char *attr;

		if (!t->backoff_until_ms)
			continue;
		if (t->backoff_until_ms > now) {
			if (!next || t->backoff_until_ms < next)
				next = t->backoff_until_ms;
			continue;
		}
		split_key(t->key, obj, sizeof(obj), &attr);
		nt_agent_log(a, NT_LOG_NOTICE, "back-off of %s ended: correcting it again",
			     named(obj, attr, nm, sizeof(nm)));
		t->backoff_until_ms = 0;
		t->nt = 0;
		nt_metrics_conflict(a->m, obj, attr, false);
		a->metrics_dirty = true;
		nt_agent_mark_all(a, "periodic", "back-off ended", nt_agent_mono_ns());
	}
	a->damp_next_ms = next;
}

/* Whether a drifted setting is corrected now; else why not (logged). */
static bool may_correct(struct nt_agent *a, struct nt_tracked *t, const char *obj,
			const char *attr)
{
	long long now = nt_agent_mono_ms(), from = now - a->cfg->damp_window_ms;
	char nm[512];
	unsigned k = 0;

	if (t->backoff_until_ms)
		return false;
	if (!a->cfg->damp_n)
		return true;	/* --damp off */
	while (k < t->nt && t->t[k] < from)
		k++;
	memmove(t->t, t->t + k, (t->nt - k) * sizeof(t->t[0]));
	t->nt -= k;
	if (t->nt < a->cfg->damp_n)
		return true;
	t->backoff_until_ms = now + a->cfg->backoff_ms;
	t->conflicts++;
	if (!a->damp_next_ms || t->backoff_until_ms < a->damp_next_ms)
		a->damp_next_ms = t->backoff_until_ms;
	nt_agent_log(a, NT_LOG_WARNING, "conflict: %s undone %u times in %lld s (another "
		     "manager is setting it?); not corrected for %lld s",
		     named(obj, attr, nm, sizeof(nm)), t->nt + 1,
		     a->cfg->damp_window_ms / 1000, a->cfg->backoff_ms / 1000);
	nt_metrics_conflict(a->m, obj, attr, true);
	return false;
}

static void record_correction(struct nt_tracked *t)
{
	if (t->nt == sizeof(t->t) / sizeof(t->t[0])) {
		memmove(t->t, t->t + 1, (t->nt - 1) * sizeof(t->t[0]));
		t->nt--;
	}
	t->t[t->nt++] = nt_agent_mono_ms();
}

/* Recent corrections, for status ------------------------------------------ */

static void recent_free(struct nt_recent *r)
{
	free(r->object);
	free(r->attr);
	free(r->from);
	free(r->to);
	free(r->cause);
	memset(r, 0, sizeof(*r));
}

static void remember(struct nt_agent *a, const char *obj, const char *attr, const char *from,
		     const char *to, const char *cause, const char *journal, double ms)
{
	struct nt_recent *r;
	struct timespec ts;

	if (a->nrecent < NT_AGENT_RECENT) {
		r = &a->recent[(a->recent_head + a->nrecent++) % NT_AGENT_RECENT];
	} else {
		r = &a->recent[a->recent_head];
		a->recent_head = (a->recent_head + 1) % NT_AGENT_RECENT;
		recent_free(r);
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	r->object = nt_xstrdup(obj);
	r->attr = nt_xstrdup(attr);
	r->from = nt_xstrdup(from);
	r->to = nt_xstrdup(to);
	r->cause = nt_xstrdup(cause);
	snprintf(r->journal, sizeof(r->journal), "%s", journal);
	r->at_ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	r->latency_ms = ms;
}

void nt_agent_state_free(struct nt_agent *a)
{
	for (size_t i = 0; i < a->ntr; i++) {
		free(a->tr[i].key);
		free(a->tr[i].reported);
	}
	free(a->tr);
	for (size_t i = 0; i < a->nkept; i++)
		free(a->kept[i]);
	free(a->kept);
	for (size_t i = 0; i < NT_AGENT_RECENT; i++)
		recent_free(&a->recent[i]);
	for (size_t i = 0; i < a->nunplanned; i++)
		free(a->unplanned[i].iface);
	free(a->unplanned);
}

/* What could not be planned ----------------------------------------------- */

/* The entry of iface (NULL: the whole profile), or -1. */
static ssize_t unplanned_at(const struct nt_agent *a, const char *iface)
{
	for (size_t i = 0; i < a->nunplanned; i++) {
		const char *u = a->unplanned[i].iface;

		if (iface ? u && !strcmp(u, iface) : !u)
			return (ssize_t)i;
	}
	return -1;
}

bool nt_agent_unplanned_all(const struct nt_agent *a)
{
	return unplanned_at(a, NULL) >= 0;
}

const char *nt_agent_plan_error(const struct nt_agent *a)
{
	ssize_t k = unplanned_at(a, NULL);

	return k >= 0 ? a->unplanned[k].why : a->nunplanned ? a->unplanned[0].why : NULL;
}

bool nt_agent_converged(const struct nt_agent *a)
{
	return !a->outstanding && !a->nunplanned;
}

const char *nt_agent_state(const struct nt_agent *a)
{
	return a->outstanding ? "drifted" : nt_agent_converged(a) ? "converged" : "not planned";
}

/* iface (NULL: the whole profile, and so every interface) was planned. */
static void set_planned(struct nt_agent *a, const char *iface)
{
	ssize_t k;

	while ((k = iface ? unplanned_at(a, iface) : (a->nunplanned ? 0 : -1)) >= 0) {
		free(a->unplanned[k].iface);
		a->unplanned[k] = a->unplanned[--a->nunplanned];
	}
}

/* iface could not be planned, with these errors: true when that is news
 * (not the same errors as the last time it could not). */
static bool set_unplanned(struct nt_agent *a, const char *iface, const char *why,
			  unsigned long long hash)
{
	ssize_t k = unplanned_at(a, iface);
	bool news;

	if (k < 0) {
		a->unplanned = nt_xrealloc(a->unplanned, (a->nunplanned + 1) * sizeof(*a->unplanned));
		k = (ssize_t)a->nunplanned++;
		a->unplanned[k].iface = iface ? nt_xstrdup(iface) : NULL;
		a->unplanned[k].hash = 0;
	}
	news = a->unplanned[k].hash != hash;
	a->unplanned[k].hash = hash;
	snprintf(a->unplanned[k].why, sizeof(a->unplanned[k].why), "%s", why);
	return news;
}

void nt_agent_forget_plan(struct nt_agent *a)
{
	set_planned(a, NULL);
	for (size_t i = 0; i < a->ntr; i++) {
		set_outstanding(a, &a->tr[i], false);
		free(a->tr[i].reported);
		a->tr[i].reported = NULL;
	}
	a->metrics_dirty = true;
}

/* The first error of a plan, as the text format prints it, and a hash of
 * all of them (FNV-1a). */
static unsigned long long plan_errors(const struct nt_diags *d, char *out, size_t n)
{
	unsigned long long h = 1469598103934665603ULL;

	*out = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct nt_diag *x = &d->v[i];
		char line[600];

		if (x->sev != NT_ERROR)
			continue;
		snprintf(line, sizeof(line), "%s:%u:%u: %s", x->mark.file ? x->mark.file : "",
			 x->mark.line, x->mark.col, x->msg);
		if (!*out) {
			size_t k = strnlen(line, n - 1);

			memcpy(out, line, k);
			out[k] = 0;
		}
		for (const char *c = line; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;
		h = (h ^ '\n') * 1099511628211ULL;
	}
	return h;
}

static void retry_in(struct nt_agent *a, long long ms, const char *cause)
{
	if (a->retry_ms)
		return;
	a->retry_ms = nt_agent_mono_ms() + ms;
	snprintf(a->retry_cause, sizeof(a->retry_cause), "%s", cause);
}

/* One convergence ---------------------------------------------------------- */

/* A drifted action: what it is and what happens to it. */
struct drift {
	const struct nt_action *act;
	size_t ti;			/* a->tr[ti] */
	char *attr;
	struct nt_buf from, to;
	bool apply;
};

static void drift_free(struct drift *d, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(d[i].attr);
		nt_buf_free(&d[i].from);
		nt_buf_free(&d[i].to);
	}
	free(d);
}

/* Why corrections wait: a journal that is open (an apply in progress or
 * awaiting confirmation, a rollback incomplete) is not overridden. */
static bool blocked_by_journal(struct nt_agent *a)
{
	struct nt_journal *v = NULL;
	char err[256], was[256];
	int state_fd = -1, jfd = nt_statedir_open(false, &state_fd, err, sizeof(err));
	size_t n = 0;

	snprintf(was, sizeof(was), "%s", a->blocked);
	a->blocked[0] = 0;
	if (jfd >= 0) {
		n = nt_journal_list(jfd, true, &v, NULL);
		if (n && v[0].state == NT_JS_PENDING_CONFIRM && v[0].deadline_ns &&
		    nt_now_ns() >= v[0].deadline_ns) {
			/* the confirm window is the agent's to hold too: an
			 * unconfirmed apply past its deadline is reverted now,
			 * whether or not its watcher or a timer is still there */
			struct nt_txn_where where = {NULL, a->cfg->base.netns, nt_enter_netns};

			nt_agent_log(a, NT_LOG_WARNING, "journal %s was not confirmed in time: "
				     "reverting it", v[0].id);
			nt_journal_list_free(v, n);
			nt_txn_recover("agent", &where);
			n = nt_journal_list(jfd, true, &v, NULL);
		}
		close(jfd);
		close(state_fd);
	}
	if (n)
		snprintf(a->blocked, sizeof(a->blocked), "journal %s is %s (%s): corrections wait "
			 "until it is confirmed, reverted or rolled back", v[0].id,
			 nt_jstate_name(v[0].state), v[0].command ? v[0].command : "apply");
	nt_journal_list_free(v, n);
	if (*a->blocked && strcmp(was, a->blocked))
		nt_agent_log(a, NT_LOG_WARNING, "%s", a->blocked);
	if (!*a->blocked && *was)
		nt_agent_log(a, NT_LOG_INFO, "no journal is open any more: corrections go on");
	if (*a->blocked)
		retry_in(a, 1000, "retry after waiting for an open journal");
	return *a->blocked != 0;
}

/* Each drifted action of the plan: counted, and decided. */
static size_t classify(struct nt_agent *a, const struct nt_plan *plan, const char *iface,
		       const struct nt_agent_why *w, struct drift **out, size_t *nd)
{
	bool held = nt_agent_held(a), report = a->cfg->report_only;
	struct drift *d = nt_xcalloc(plan->n + 1, sizeof(*d));
	size_t n = 0, napply = 0;

	for (size_t i = 0; i < plan->n; i++) {
		const struct nt_action *act = &plan->v[i];
		struct drift *x;
		struct nt_tracked *t;
		char nm[512];
		bool cannot;

		/* the transaction of one interface takes its own actions only
		 * (nt_apply_opts.only), as apply --only does */
		if (iface && strcmp(act->object, iface))
			continue;
		x = &d[n++];
		x->act = act;
		x->attr = nt_action_attr(act);
		x->ti = tracked(a, act->object, x->attr);
		if (act->has_from)
			nt_value_format(&act->from, &x->from, false);
		else
			nt_buf_puts(&x->from, "(unknown)");
		nt_value_format(&act->to, &x->to, false);
		if (!x->from.p)
			nt_buf_puts(&x->from, "\"\"");
		if (!x->to.p)
			nt_buf_puts(&x->to, "\"\"");
		nt_metrics_drift(a->m, act->object, x->attr, w->label);
		cannot = act->flags & NT_SF_CANNOT_CHANGE;
		x->apply = !cannot && !report && !held &&
			   may_correct(a, &a->tr[x->ti], act->object, x->attr);
		set_outstanding(a, &a->tr[x->ti], true);
		napply += x->apply;
		t = &a->tr[x->ti];
		if (!x->apply && (!t->reported || strcmp(t->reported, x->to.p))) {
			nt_agent_log(a, NT_LOG_NOTICE, "drift %s: %s, wanted %s (%s)%s",
				     named(act->object, x->attr, nm, sizeof(nm)), x->from.p, x->to.p,
				     w->cause,
				     cannot ? "; it cannot be changed on this host" : report ? "" :
				     held ? "; held" : "; backing off");
			free(t->reported);
			t->reported = nt_xstrdup(x->to.p);
		}
	}
	a->metrics_dirty |= n > 0;
	*out = d;
	*nd = n;
	return napply;
}

/* The plan and desired state of what is applied: the actions decided so,
 * and every desired setting except those left drifted (the read-back of
 * the transaction checks that each desired setting holds). */
static void subset(const struct nt_compiled *c, const struct drift *d, size_t n,
		   struct nt_plan *plan, struct nt_state *desired)
{
	memset(plan, 0, sizeof(*plan));
	memset(desired, 0, sizeof(*desired));
	plan->v = nt_xcalloc(n + 1, sizeof(*plan->v));
	for (size_t i = 0; i < n; i++)
		if (d[i].apply)
			plan->v[plan->n++] = *d[i].act;
	plan->host = c->plan.host;
	plan->profile = c->plan.profile;
	plan->target = c->plan.target;
	desired->v = nt_xcalloc(c->desired.n + 1, sizeof(*desired->v));
	for (size_t i = 0; i < c->desired.n; i++) {
		const struct nt_setting *s = &c->desired.v[i];
		bool left = false;

		for (size_t k = 0; k < n && !left; k++)
			left = !d[k].apply && d[k].act->kind == s->kind &&
			       !strcmp(d[k].act->object, s->object) &&
			       !(d[k].act->arg ? !s->arg || strcmp(d[k].act->arg, s->arg) : !!s->arg);
		if (!left)
			desired->v[desired->n++] = *s;
	}
}

static void outcome(struct nt_agent *a, struct drift *d, size_t n, int rc, const char *journal,
		    const struct nt_agent_why *w)
{
	double ms = (double)(nt_agent_mono_ns() - w->at_ns) / 1e6;

	for (size_t i = 0; i < n; i++) {
		struct drift *x = &d[i];
		struct nt_tracked *t = &a->tr[x->ti];
		char nm[512];

		if (!x->apply)
			continue;
		/* an undo is counted for damping (the start and a reload are
		 * not one); a failure too: a setting that cannot be made to
		 * hold is not tried every second for ever */
		if (strcmp(w->label, "start") && strcmp(w->label, "reload"))
			record_correction(t);
		if (rc) {
			nt_metrics_failed(a->m, x->act->object, x->attr, w->label);
			continue;
		}
		set_outstanding(a, t, false);
		free(t->reported);
		t->reported = NULL;
		a->corrections++;
		nt_metrics_corrected(a->m, x->act->object, x->attr, w->label, ms / 1000);
		nt_agent_log(a, NT_LOG_INFO, "corrected %s: %s -> %s (%s) in %.2f ms; journal %s",
			     named(x->act->object, x->attr, nm, sizeof(nm)), x->from.p, x->to.p,
			     w->cause, ms, journal);
		remember(a, x->act->object, x->attr, x->from.p, x->to.p, w->cause, journal, ms);
	}
	if (rc) {
		a->failures++;
		nt_agent_log(a, NT_LOG_ERR, "correction (%s) failed and was rolled back (exit %d; "
			     "journal %s); tried again in 1 s", w->cause, rc,
			     *journal ? journal : "none");
		/* soon: most failures are a race with another change */
		retry_in(a, 1000, "retry after a failed correction");
	}
	a->metrics_dirty = true;
}

/* Drifted settings left for an open journal: corrected once it closes. */
static void drifts_wait(struct nt_agent *a, struct drift *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (d[i].apply)
			set_outstanding(a, &a->tr[d[i].ti], true);
	a->metrics_dirty = true;
}

/* The agent's own journals beyond --keep-journals go, oldest first (each
 * is closed: its transaction has returned); a directory of thousands of
 * journals would make every later command list them all. */
static void keep_journals(struct nt_agent *a, const char *id)
{
	char err[256], name[160];
	int state_fd = -1, jfd;

	if (!a->cfg->keep_journals)
		return;
	if (a->nkept == a->cfg->keep_journals) {
		jfd = nt_statedir_open(false, &state_fd, err, sizeof(err));
		if (jfd >= 0) {
			snprintf(name, sizeof(name), "%s.open", a->kept[a->kept_head]);
			if (faccessat(jfd, name, F_OK, AT_SYMLINK_NOFOLLOW)) {
				snprintf(name, sizeof(name), "%s.json", a->kept[a->kept_head]);
				unlinkat(jfd, name, 0);
			}
			close(jfd);
			close(state_fd);
		}
		free(a->kept[a->kept_head]);
		a->kept[a->kept_head] = nt_xstrdup(id);
		a->kept_head = (a->kept_head + 1) % a->cfg->keep_journals;
		return;
	}
	if (!a->kept)
		a->kept = nt_xcalloc(a->cfg->keep_journals, sizeof(char *));
	a->kept[(a->kept_head + a->nkept++) % a->cfg->keep_journals] = nt_xstrdup(id);
}

static int apply_subset(struct nt_agent *a, const char *iface, struct nt_compiled *c,
			struct drift *d, size_t n, const struct nt_agent_why *w, char *journal,
			size_t jlen)
{
	struct nt_apply_opts o = {0};
	struct nt_plan plan;
	struct nt_state desired;
	int rc;

	subset(c, d, n, &plan, &desired);
	o.only = iface;
	o.profile = a->cfg->base.profile;
	o.netns = a->cfg->base.netns;
	o.command = "agent";
	o.cause = w->cause;
	o.quiet = true;
	/* an apply holds the lock for milliseconds; a confirm watcher holds it
	 * for its window, and the loop must not stall on it: past this the
	 * correction waits (drifts_wait) and is tried again */
	o.wait_ms = 200;
	o.journal_out = journal;
	o.journal_out_len = jlen;
	/* a correction of one interface (runtime state only: its settings do
	 * not outlive the machine) leaves its fsyncs to the disk writer; a
	 * full check may write a host-wide file (the irqbalance drop-in),
	 * whose journal is durable before that write, as an apply's */
	nt_journal_sync_later(iface != NULL);
	nt_lock_quiet_busy(true);	/* a busy lock: said by the agent's log */
	rc = nt_txn_apply(&plan, &desired, &c->facts, &o);
	nt_lock_quiet_busy(false);
	nt_journal_sync_later(false);
	free(plan.v);
	free(desired.v);
	return rc;
}

/* Every tracked setting of iface (all: every one) not in the plan holds now. */
static void settle(struct nt_agent *a, const char *iface, const struct drift *d, size_t n)
{
	size_t len = iface ? strlen(iface) : 0;

	for (size_t i = 0; i < a->ntr; i++) {
		struct nt_tracked *t = &a->tr[i];
		bool drifted = false;

		if (!t->outstanding || (iface && (strncmp(t->key, iface, len) || t->key[len] != '\t')))
			continue;
		for (size_t k = 0; k < n && !drifted; k++)
			drifted = d[k].ti == i;
		if (!drifted) {
			set_outstanding(a, t, false);
			free(t->reported);
			t->reported = NULL;
		}
	}
}

/* A plan that failed: its errors are logged when they are news (not the
 * same first error again at every check, nor an interface's own plan
 * failing as the whole profile's did); the periodic check plans again. */
static void log_not_planned(struct nt_agent *a, const char *iface, struct nt_diags *d,
			    const struct nt_agent_why *w)
{
	char why[sizeof(a->unplanned->why)];
	unsigned long long hash;

	ssize_t all;
	bool news;

	nt_diags_sort(d);
	hash = plan_errors(d, why, sizeof(why));
	news = set_unplanned(a, iface, why, hash);
	/* an interface's plan failing as the whole profile's just did (the
	 * same first error, just logged) is not news either */
	all = unplanned_at(a, NULL);
	if (news && iface && all >= 0 && !strcmp(a->unplanned[all].why, why))
		news = false;
	if (news) {
		nt_diags_print_text(d, stderr);
		nt_agent_log(a, NT_LOG_ERR, "%s could not be planned (%s): errors above%s",
			     iface ? iface : "the profile", w->cause,
			     iface ? "" : "; each interface is planned on its own");
		a->failures++;
	} else {
		nt_agent_log(a, NT_LOG_DEBUG, "%s still cannot be planned (%s): %s",
			     iface ? iface : "the profile", w->cause, why);
	}
	a->metrics_dirty = true;
}

static void converge_one(struct nt_agent *a, const char *iface, const struct nt_agent_why *w);

/* The whole profile could not be planned (an interface asks what its
 * device cannot do, say): each named interface is planned and corrected
 * on its own, so that one interface's error does not leave the others
 * drifted; the host-wide settings wait for a plan of the whole profile. */
static void converge_each(struct nt_agent *a, const struct nt_agent_why *w)
{
	/* a lock another nettune holds: the rest wait for the retry too,
	 * rather than 200 ms each */
	for (size_t i = 0; i < a->nnames && !a->lock_busy_now; i++)
		converge_one(a, a->names[i], w);
}

void nt_agent_converge(struct nt_agent *a, const char *iface, const struct nt_agent_why *w)
{
	long long t0 = nt_agent_mono_ns();

	a->lock_busy_now = false;
	converge_one(a, iface, w);
	if (!iface && nt_agent_unplanned_all(a) && !a->lock_busy_now)
		converge_each(a, w);
	if (!iface) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		a->checks++;
		a->last_check_real_ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		a->last_check_dur_ns = nt_agent_mono_ns() - t0;
		nt_metrics_check(a->m, (double)ts.tv_sec + ts.tv_nsec / 1e9,
				 (double)a->last_check_dur_ns / 1e9);
		a->metrics_dirty = true;
	}
	nt_metrics_converged(a->m, nt_agent_converged(a));
}

static void converge_one(struct nt_agent *a, const char *iface, const struct nt_agent_why *w)
{
	struct nt_pipeline_req rq = a->cfg->base;
	struct nt_diags dg = {0};
	struct nt_compiled c;
	struct drift *d = NULL;
	size_t napply, nd;
	char journal[128] = "";

	rq.loaded = &a->loaded;
	rq.source = NT_STATE_LIVE;
	rq.only = iface;
	rq.narrow = iface != NULL;
	rq.skip_missing = true;
	/* while corrections wait for an open journal, every convergence (the
	 * retry each second among them) looks again before it plans: status
	 * stops saying so as soon as it is closed, and what the journal's
	 * end changed (a revert of an unconfirmed apply) is in the plan */
	if (*a->blocked)
		blocked_by_journal(a);
	if (nt_pipeline_run(&rq, &c, &dg)) {
		log_not_planned(a, iface, &dg, w);
	} else {
		set_planned(a, iface);
		napply = classify(a, &c.plan, iface, w, &d, &nd);
		settle(a, iface, d, nd);
		if (napply && !*a->blocked) {
			int rc = apply_subset(a, iface, &c, d, nd, w, journal, sizeof(journal));

			/* refused before any journal: an open one in the way (the
			 * transaction said which), or the lock not had in time */
			if (rc && !*journal && blocked_by_journal(a)) {
				drifts_wait(a, d, nd);
			} else if (rc && !*journal && nt_lock_last_busy()) {
				char why[sizeof(a->retry_cause)];

				if (!a->lock_busy_said)
					nt_agent_log(a, NT_LOG_NOTICE, "another nettune holds the lock: "
						     "corrections wait and are tried again each second");
				a->lock_busy_said = a->lock_busy_now = true;
				drifts_wait(a, d, nd);
				snprintf(why, sizeof(why), "retry after another nettune held the lock "
					 "(%.150s)", w->cause);
				retry_in(a, 1000, why);
			} else {
				a->lock_busy_said = false;
				outcome(a, d, nd, rc, journal, w);
			}
			if (*journal)
				keep_journals(a, journal);
		}
		if (!nd)
			nt_agent_log(a, NT_LOG_DEBUG, "%s: nothing drifted (%s)", iface ? iface : "all",
				     w->cause);
		drift_free(d, nd);
	}
	nt_diags_free(&dg);
	nt_compiled_free(&c);
}
