/* SPDX-License-Identifier: MIT */
/* The Ansible binary module: args file in, one JSON result object out. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../compiler/formats/planprint.h"
#include "../appliers/linux/txn.h"
#include "../appliers/linux/journal.h"
#include "../appliers/linux/linux.h"
#include "../appliers/linux/statedir.h"
#include "../compiler/language/ytree.h"
#include "../pipeline/netns.h"
#include "../pipeline/pipeline.h"
#include "../compiler/base/buf.h"
#include "../compiler/model/caps.h"
#include "../compiler/formats/json.h"
#include "../compiler/language/profile.h"

/* The module's arguments (ansible/nettune.yml documents them). */
struct nt_margs {
	const char *profile;
	const char *profile_content;
	const char *profile_name;	/* what diagnostics call profile_content */
	const char *state;		/* "applied" (default) or "planned" */
	const char *netns;
	const char *state_dir;
	const char *only;
	const char *datadir;
	bool any_host;			/* a profile whose metadata.name is another host */
	bool check_mode;
	bool diff;
};

static const char *const nt_mopts[] = {
	"profile", "profile_content", "profile_name", "state", "netns", "state_dir", "only", "datadir",
	"any_host",
};

/* What the run did to the host, for Ansible's conditionals ("outcome"). */
enum nt_outcome {
	NT_OUT_NOT_APPLIED,		/* stopped before the first change: nothing changed */
	NT_OUT_PLANNED,			/* state=planned or check mode: nothing changed */
	NT_OUT_UNCHANGED,		/* the host already matched */
	NT_OUT_CONVERGED,		/* changed, and every setting reads back as desired */
	NT_OUT_ROLLED_BACK,		/* failed or interrupted; the host reads as before */
	NT_OUT_ROLLBACK_INCOMPLETE,	/* failed; not_restored lists what is not as before */
};

static const char *const nt_outcome_names[] = {
	[NT_OUT_NOT_APPLIED] = "not-applied",
	[NT_OUT_PLANNED] = "planned",
	[NT_OUT_UNCHANGED] = "unchanged",
	[NT_OUT_CONVERGED] = "converged",
	[NT_OUT_ROLLED_BACK] = "rolled-back",
	[NT_OUT_ROLLBACK_INCOMPLETE] = "rollback-incomplete",
};

struct nt_result {
	bool changed, failed;
	enum nt_outcome outcome;
	int signal;			/* the SIGTERM/SIGINT/SIGHUP that arrived, or 0 */
	char *journal;			/* the apply's journal id, or NULL */
	char *journal_state;		/* its state as the apply left it */
	struct nt_buf not_restored;	/* JSON objects, comma separated */
	size_t nnot_restored;
	struct nt_buf msg;
	struct nt_buf warnings;		/* JSON strings, comma separated */
	size_t nwarnings;
	struct nt_buf actions;		/* JSON array, or empty */
	struct nt_buf before, after;	/* diff texts */
	bool has_diff;
	size_t changes, disruptive;
	char *host;
};

static void result_fail(struct nt_result *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void result_fail(struct nt_result *r, const char *fmt, ...)
{
	va_list ap;

	r->failed = true;
	if (r->msg.n)
		nt_buf_puts(&r->msg, "\n");
	va_start(ap, fmt);
	nt_buf_vprintf(&r->msg, fmt, ap);
	va_end(ap);
}

static void result_warn(struct nt_result *r, const char *s)
{
	if (r->nwarnings++)
		nt_buf_puts(&r->warnings, ",");
	nt_buf_json_str(&r->warnings, s);
}

/* A string option: absent and null are unset; anything else must be a
 * string. */
static bool opt_str(const struct nt_json *args, const char *key, const char **out,
		    struct nt_result *r)
{
	const struct nt_json *v = nt_json_get(args, key);

	*out = NULL;
	if (!v || v->t == NT_J_NULL)
		return true;
	if (v->t != NT_J_STR) {
		result_fail(r, "argument '%s' must be a string", key);
		return false;
	}
	*out = v->s;
	return true;
}

static bool opt_bool(const struct nt_json *args, const char *key, bool *out,
		     struct nt_result *r)
{
	const struct nt_json *v = nt_json_get(args, key);

	*out = false;
	if (!v || v->t == NT_J_NULL)
		return true;
	if (v->t != NT_J_BOOL) {
		result_fail(r, "argument '%s' must be a boolean", key);
		return false;
	}
	*out = v->b;
	return true;
}

static int parse_args(const struct nt_json *args, struct nt_margs *a, struct nt_result *r)
{
	size_t i, k;

	if (args->t != NT_J_OBJ) {
		result_fail(r, "the arguments file does not hold a JSON object");
		return -1;
	}
	for (i = 0; i < args->n; i++) {
		const char *key = args->keys[i];

		if (!strncmp(key, "_ansible_", 9))
			continue;	/* Ansible's own: only check_mode and diff matter */
		for (k = 0; k < sizeof(nt_mopts) / sizeof(nt_mopts[0]); k++)
			if (!strcmp(key, nt_mopts[k]))
				break;
		if (k == sizeof(nt_mopts) / sizeof(nt_mopts[0]))
			result_fail(r, "Unsupported parameters for (nettune) module: %s. Supported "
				    "parameters include: any_host, datadir, netns, only, profile, profile_content, "
				    "profile_name, state, state_dir.", key);
	}
	if (r->failed)
		return -1;
	if (!opt_str(args, "profile", &a->profile, r) ||
	    !opt_str(args, "profile_content", &a->profile_content, r) ||
	    !opt_str(args, "profile_name", &a->profile_name, r) ||
	    !opt_str(args, "state", &a->state, r) || !opt_str(args, "netns", &a->netns, r) ||
	    !opt_str(args, "state_dir", &a->state_dir, r) || !opt_str(args, "only", &a->only, r) ||
	    !opt_str(args, "datadir", &a->datadir, r) ||
	    !opt_bool(args, "any_host", &a->any_host, r) ||
	    !opt_bool(args, "_ansible_check_mode", &a->check_mode, r) ||
	    !opt_bool(args, "_ansible_diff", &a->diff, r))
		return -1;
	if (!a->state)
		a->state = "applied";
	if (strcmp(a->state, "applied") && strcmp(a->state, "planned")) {
		result_fail(r, "value of state must be one of: applied, planned, got: %s", a->state);
		return -1;
	}
	if (!!a->profile == !!a->profile_content) {
		result_fail(r, a->profile ? "parameters are mutually exclusive: profile|profile_content" :
			    "one of the following is required: profile, profile_content");
		return -1;
	}
	return 0;
}

/* Errors into msg, warnings into the warnings list: one line per
 * diagnostic, "FILE:LINE:COL: error: ..." as nettune validate prints it. */
static void take_diags(struct nt_diags *d, struct nt_result *r)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0, i = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	nt_diags_sort(d);
	nt_diags_print_text(d, f);
	fclose(f);
	for (line = strtok_r(text, "\n", &save); line && i < d->n;
	     line = strtok_r(NULL, "\n", &save), i++) {
		if (d->v[i].sev == NT_ERROR)
			result_fail(r, "%s", line);
		else
			result_warn(r, line);
	}
	free(text);
}

/* Test hook (a -Dfault_injection=true build): NETTUNE_SIGNAL_STEP=before
 * raises NETTUNE_SIGNAL before the profile is compiled, =after once the
 * apply has returned (apply.c raises it after write k for a number k). */
static void fault_signal_at(const char *when)
{
#ifdef NT_FAULT_INJECTION
	const char *k = getenv("NETTUNE_SIGNAL_STEP"), *sig = getenv("NETTUNE_SIGNAL");

	if (k && sig && !strcmp(k, when))
		raise(atoi(sig));
#else
	(void)when;
#endif
}

/* "apiVersion:", blanks, an optional quote, then "nettune/" at the start of
 * a line: how a profile that YAML cannot parse still shows what it is. */
static bool has_api_line(const char *p, size_t n)
{
	const char *end = p + n, *l;

	for (l = p; l < end; l = memchr(l, '\n', (size_t)(end - l)), l = l ? l + 1 : end) {
		const char *c = l + 11;

		if ((size_t)(end - l) < 11 || strncmp(l, "apiVersion:", 11))
			continue;
		while (c < end && (*c == ' ' || *c == '\t'))
			c++;
		if (c < end && (*c == '"' || *c == '\''))
			c++;
		if ((size_t)(end - c) >= 8 && !strncmp(c, "nettune/", 8))
			return true;
	}
	return false;
}

/*
 * Whether the file profile: names is a nettune profile (a YAML mapping
 * whose apiVersion starts with nettune/).  When it is not, the loader's
 * diagnostics quote it (every line of /etc/shadow becomes an "unknown
 * key"), and they would travel to the controller: the module says why the
 * file is not a profile instead, in words that hold none of its content.
 * NULL when it is a profile, or when it cannot be read (the loader's reason
 * then names no content either).
 */
static const char *not_a_profile(const char *path, char *why, size_t len)
{
	struct nt_buf b = {0};
	struct nt_diags d = {0};
	struct nt_ynode *root;
	const struct nt_ynode *v;
	const char *reason = NULL;
	char io[256];

	if (nt_read_input(path, NT_YAML_MAX_BYTES, 0, &b, io, sizeof(io)))
		goto out;
	if (!b.n) {
		reason = "the file is empty";
	} else if (memchr(b.p, '\0', b.n)) {
		reason = "the file holds NUL bytes: binary data, not YAML text";
	} else if (!(root = nt_yparse_data(path, b.p, b.n, &d))) {
		if (!has_api_line(b.p, b.n) && d.n) {
			nt_diags_sort(&d);
			snprintf(why, len, "not YAML that nettune reads: %s at line %u, column %u",
				 d.v[0].rule ? d.v[0].rule : "error", d.v[0].mark.line, d.v[0].mark.col);
			reason = why;
		}
	} else {
		v = root->type == NT_Y_MAP ? nt_ymap_get(root, "apiVersion", NULL) : NULL;
		if (root->type != NT_Y_MAP)
			reason = "its top level is not a YAML mapping";
		else if (!v || v->type != NT_Y_SCALAR || !v->scalar || strncmp(v->scalar, "nettune/", 8))
			reason = "it has no apiVersion: nettune/... at its top level";
		nt_yfree(root);
	}
out:
	nt_diags_free(&d);
	nt_buf_free(&b);
	return reason;
}

/* The ids of the journals in the state directory (its journal/ fd in
 * *jfd, or -1 when there is none yet). */
struct nt_jids {
	char **v;
	size_t n;
};

static void jids_free(struct nt_jids *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

static int jids_read(struct nt_jids *s)
{
	char err[512];
	int jfd = nt_statedir_open(false, NULL, err, sizeof(err)), dfd;
	struct dirent *de;
	DIR *dir;

	s->v = NULL;
	s->n = 0;
	if (jfd < 0)
		return -1;
	dfd = dup(jfd);
	dir = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!dir) {
		if (dfd >= 0)
			close(dfd);
		return jfd;
	}
	while ((de = readdir(dir))) {
		size_t l = strlen(de->d_name);

		if (l <= 5 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		s->v = nt_xgrow(s->v, s->n, sizeof(*s->v));
		s->v[s->n++] = nt_xasprintf("%.*s", (int)(l - 5), de->d_name);
	}
	closedir(dir);
	return jfd;
}

static bool jids_has(const struct nt_jids *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], id))
			return true;
	return false;
}

/*
 * The journal the apply of this process created: one that was not there
 * before it and whose first transition is this process's.  0 and *j
 * loaded; -ENOENT when the apply created none; -EIO when a new journal
 * does not load (the apply may have written: nothing is claimed then).
 */
static int journal_of_this_run(const struct nt_jids *before, struct nt_journal *j)
{
	struct nt_jids now;
	int jfd = jids_read(&now), rc = -ENOENT;

	for (size_t i = 0; jfd >= 0 && rc && i < now.n; i++) {
		struct nt_diags d = {0};

		if (jids_has(before, now.v[i]))
			continue;
		memset(j, 0, sizeof(*j));
		if (nt_journal_load(jfd, now.v[i], j, &d)) {
			rc = -EIO;
		} else if (j->ntr && j->tr[0].pid == (int)getpid()) {
			rc = 0;
		} else {
			nt_journal_free(j);
		}
		nt_diags_free(&d);
	}
	if (jfd >= 0)
		close(jfd);
	jids_free(&now);
	return rc;
}

/* An entry into not_restored, and its label into msg's list (the first
 * ten: not_restored has them all). */
static void not_restored_add(struct nt_result *r, const struct nt_jentry *e,
			     const struct nt_value *now, struct nt_buf *labels)
{
	char *label = nt_setting_label(e->kind, e->object, e->arg);
	struct nt_buf v = {0};

	if (r->nnot_restored < 10)
		nt_buf_printf(labels, "%s%s", r->nnot_restored ? ", " : "", label);
	else if (r->nnot_restored == 10)
		nt_buf_puts(labels, ", ...");
	if (r->nnot_restored++)
		nt_buf_puts(&r->not_restored, ", ");
	nt_buf_puts(&r->not_restored, "{\"setting\": ");
	nt_buf_json_str(&r->not_restored, label);
	nt_buf_puts(&r->not_restored, ", \"before\": ");
	if (e->had)
		nt_value_format(&e->before, &v, false);
	nt_buf_json_str_or_null(&r->not_restored, e->had ? v.p : NULL);
	nt_buf_free(&v);
	nt_buf_puts(&r->not_restored, ", \"now\": ");
	if (now)
		nt_value_format(now, &v, false);
	nt_buf_json_str_or_null(&r->not_restored, now ? v.p : NULL);
	nt_buf_puts(&r->not_restored, "}");
	nt_buf_free(&v);
	free(label);
}

/*
 * After a failed apply every entry of its journal is read from the host
 * again, from fresh dumps: the result never says "as before" on the
 * journal's word alone.  An entry is not restored when it does not read
 * as its recorded previous value, or, without a recorded previous value,
 * when it reads as the value the apply wrote.  Returns how many are not.
 */
static size_t check_restored(struct nt_compiled *c, const struct nt_journal *j,
			     struct nt_result *r, struct nt_buf *labels)
{
	struct nt_lctx x;
	size_t bad = 0;

	nt_lctx_open(&x, &c->facts);
	nt_lctx_drop_cache(&x);
	for (size_t i = 0; i < j->n; i++) {
		const struct nt_jentry *e = &j->e[i];
		struct nt_value now;
		bool seen = !nt_linux_read(&x, e->kind, e->object, e->arg, &now);
		bool restored = e->had ? seen && nt_value_equal(&now, &e->before) :
				!(seen && nt_value_equal(&now, &e->after));

		if (!restored) {
			not_restored_add(r, e, seen ? &now : NULL, labels);
			bad++;
		}
		if (seen)
			nt_value_free(&now);
	}
	nt_lctx_close(&x);
	return bad;
}

/* "object attribute = value" per desired setting, observed value before
 * and desired value after: Ansible shows the pair as a unified diff. */
static void build_diff(const struct nt_compiled *c, const char *only, struct nt_result *r)
{
	size_t i;

	for (i = 0; i < c->desired.n; i++) {
		const struct nt_setting *s = &c->desired.v[i];
		const struct nt_setting *o;
		char *attr;

		if (only && strcmp(s->object, only))
			continue;
		o = nt_state_get(&c->observed, s->kind, s->object, s->arg);
		attr = nt_setting_attr(s);
		nt_buf_printf(&r->before, "%s %s = ", s->object, attr);
		if (o)
			nt_value_format(&o->val, &r->before, false);
		else
			nt_buf_puts(&r->before, "(not observed)");
		nt_buf_puts(&r->before, "\n");
		nt_buf_printf(&r->after, "%s %s = ", s->object, attr);
		nt_value_format(&s->val, &r->after, false);
		nt_buf_puts(&r->after, "\n");
		free(attr);
	}
	r->has_diff = true;
}

/* The plan restricted to one interface (shallow: shares the actions). */
static void plan_only(const struct nt_plan *p, const char *only, struct nt_plan *out)
{
	size_t i;

	*out = *p;
	out->v = nt_xcalloc(p->n + 1, sizeof(*out->v));
	out->n = out->disruptive = out->cannot = 0;
	for (i = 0; i < p->n; i++) {
		const struct nt_action *a = &p->v[i];

		if (only && strcmp(a->object, only))
			continue;
		out->v[out->n++] = *a;
		if (a->flags & NT_SF_DISRUPTIVE)
			out->disruptive++;
		if (a->flags & NT_SF_CANNOT_CHANGE)
			out->cannot++;
	}
}

/* A signal that arrived before the apply: nothing was changed, and the
 * run stops there, as the CLI's apply does. */
static bool stopped_before(struct nt_result *r)
{
	int sig = nt_apply_interrupted();

	if (!sig)
		return false;
	r->signal = sig;
	r->changed = false;
	r->outcome = NT_OUT_NOT_APPLIED;
	result_fail(r, "interrupted by signal %d before the apply; nothing was changed", sig);
	return true;
}

static void set_journal(struct nt_result *r, const struct nt_journal *j)
{
	r->journal = nt_xstrdup(j->id);
	r->journal_state = nt_xstrdup(nt_jstate_name(j->state));
}

/*
 * The outcome of nt_txn_apply, from its exit code (0 converged, 1 failed
 * or interrupted and rolled back, or stopped before the first change, 3
 * rollback incomplete), the journal it left, and the host read again.
 */
static void report_apply(int rc, size_t n, const struct nt_jids *before, struct nt_compiled *c,
			 struct nt_result *r)
{
	struct nt_journal j = {0};
	struct nt_buf labels = {0};
	int sig = nt_apply_interrupted(), jr = journal_of_this_run(before, &j);
	char cause[NT_JOURNAL_ERROR_MAX + 64];
	size_t bad;

	r->signal = sig;
	if (!jr)
		set_journal(r, &j);
	if (rc == 0) {
		r->outcome = NT_OUT_CONVERGED;
		nt_buf_printf(&r->msg, "applied %zu change%s", n, n == 1 ? "" : "s");
		if (sig)
			{
			char w[128];

			snprintf(w, sizeof(w), "signal %d arrived after the last change was "
				 "verified; the host stays converged", sig);
			result_warn(r, w);
		}
		goto out;
	}
	if (sig)
		snprintf(cause, sizeof(cause), "interrupted by signal %d", sig);
	else
		snprintf(cause, sizeof(cause), "apply failed");
	if (jr == -ENOENT) {
		r->changed = false;
		r->outcome = NT_OUT_NOT_APPLIED;
		result_fail(r, "%s before the first change; nothing was changed", cause);
		goto out;
	}
	r->outcome = NT_OUT_ROLLBACK_INCOMPLETE;
	if (jr) {
		result_fail(r, "%s, and the journal it created cannot be read back: the host may be "
			    "half-applied; see 'nettune history'", cause);
		goto out;
	}
	bad = check_restored(c, &j, r, &labels);
	/* the apply's own rollback leaves a failed journal, its error recorded */
	if (!sig && j.error)
		snprintf(cause, sizeof(cause), "apply failed (%s)", j.error);
	if (!bad && j.state == NT_JS_FAILED) {
		r->changed = false;
		r->outcome = NT_OUT_ROLLED_BACK;
		result_fail(r, "%s; rolled back: the host is as before", cause);
	} else if (!bad) {
		result_fail(r, "%s; every setting reads as before, but journal %s is left %s: "
			    "'nettune rollback %s' closes it", cause, j.id, r->journal_state, j.id);
	} else if (j.state == NT_JS_FAILED) {
		result_fail(r, "%s; journal %s says rolled back, but %zu setting%s do%s not read as "
			    "before: %s", cause, j.id, bad, bad == 1 ? "" : "s", bad == 1 ? "es" : "",
			    labels.p);
	} else {
		result_fail(r, "%s; rollback incomplete: %zu setting%s not restored (journal %s, "
			    "left %s): %s; restore them with 'nettune rollback %s'", cause, bad,
			    bad == 1 ? "" : "s", j.id, r->journal_state, labels.p, j.id);
	}
out:
	nt_buf_free(&labels);
	if (!jr)
		nt_journal_free(&j);
}

/* The module's environment: state directory, data directory, and the
 * network namespace entered; -1 after failing the result. */
static int enter_env(const struct nt_margs *a, struct nt_result *r)
{
	fault_signal_at("before");
	if (a->state_dir)
		setenv("NETTUNE_STATE_DIR", a->state_dir, 1);
	if (a->datadir)
		setenv("NETTUNE_DATADIR", a->datadir, 1);
	if (a->netns && nt_enter_netns(a->netns, true)) {
		result_fail(r, "cannot enter network namespace %s", a->netns);
		return -1;
	}
	return 0;
}

/* The profile planned against the live host into *c; -1 after failing
 * the result (with the diagnostics, or the signal that cut it short). */
static int plan_profile(const struct nt_margs *a, const char *name, struct nt_compiled *c,
			struct nt_result *r)
{
	struct nt_pipeline_req rq = {0};
	struct nt_diags d = {0};
	const char *reason;
	char why[160];
	int rc;

	rq.profile = name;
	rq.data = a->profile_content;
	rq.len = a->profile_content ? strlen(a->profile_content) : 0;
	rq.only = a->only;
	rq.netns = a->netns;
	rq.any_host = a->any_host;
	rc = nt_pipeline_run(&rq, c, &d);
	if (rc && nt_apply_interrupted()) {
		/* the signal cut the observation short: its words, not the
		 * read error it caused */
		nt_diags_free(&d);
		stopped_before(r);
		return -1;
	}
	if (rc && a->profile && (reason = not_a_profile(a->profile, why, sizeof(why)))) {
		nt_diags_free(&d);
		result_fail(r, "%s: not a nettune profile (%s)", name, reason);
	}
	take_diags(&d, r);
	nt_diags_free(&d);
	if (rc && !r->failed)
		result_fail(r, "%s: the profile could not be planned", name);
	return rc ? -1 : 0;
}

/* The plan of the task (of only's interface) into *p and the result's
 * summary; -1 after failing the result when it cannot be applied here. */
static int task_plan(const struct nt_margs *a, const char *name, struct nt_compiled *c,
		     struct nt_plan *p, struct nt_result *r)
{
	if (c->l.p->target && *c->l.p->target == NT_TARGET_WINDOWS) {
		result_fail(r, "%s targets windows; generate the playbook with 'nettune emit "
			    "--format ps1' and run it with ansible.windows", name);
		return -1;
	}
	if (a->only && !nt_facts_iface(&c->facts, a->only)) {
		result_fail(r, "only: %s is not an interface of this host that the profile names",
			    a->only);
		return -1;
	}
	plan_only(&c->plan, a->only, p);
	r->host = nt_xstrdup(c->plan.profile ? c->plan.profile : "");
	r->changes = p->n;
	r->disruptive = p->disruptive;
	nt_plan_print_actions_json(p, &r->actions);
	if (a->diff)
		build_diff(c, a->only, r);
	if (p->cannot) {
		result_fail(r, "%zu action%s cannot be applied on this host (fixed feature or "
			    "kernel-managed IRQ); nothing was changed", p->cannot,
			    p->cannot == 1 ? "" : "s");
		return -1;
	}
	return 0;
}

/* The transaction (state: applied, not check mode), and its outcome. */
static void apply_task(const struct nt_margs *a, const char *name, struct nt_compiled *c,
		       size_t n, struct nt_result *r)
{
	struct nt_apply_opts o = {0};
	struct nt_jids before;
	int jfd = jids_read(&before), rc;

	if (jfd >= 0)
		close(jfd);
	/* the task is the approval: the engine never asks (o.ask false),
	 * unlike 'nettune apply' off a terminal, which refuses without --yes */
	o.quiet = true;
	o.only = a->only;
	o.profile = name;
	o.netns = a->netns;
	rc = nt_txn_apply(&c->plan, &c->desired, &c->facts, &o);
	fault_signal_at("after");
	report_apply(rc, n, &before, c, r);
	jids_free(&before);
}

static void run(const struct nt_margs *a, struct nt_result *r)
{
	struct nt_compiled c;
	struct nt_plan p = {0};
	const char *name = a->profile ? a->profile :
			   a->profile_name && *a->profile_name ? a->profile_name : "profile_content";

	if (enter_env(a, r))
		return;
	if (plan_profile(a, name, &c, r) || task_plan(a, name, &c, &p, r) || stopped_before(r))
		goto out;
	if (!strcmp(a->state, "planned")) {
		r->outcome = NT_OUT_PLANNED;
		nt_buf_printf(&r->msg, "%zu change%s pending", p.n, p.n == 1 ? "" : "s");
	} else if (!p.n) {
		r->outcome = NT_OUT_UNCHANGED;
		nt_buf_puts(&r->msg, "the host already matches the profile");
	} else if (a->check_mode) {
		r->changed = true;
		r->outcome = NT_OUT_PLANNED;
		nt_buf_printf(&r->msg, "check mode: %zu change%s would be made", p.n,
			      p.n == 1 ? "" : "s");
	} else {
		r->changed = true;
		apply_task(a, name, &c, p.n, r);
	}
out:
	free(p.v);
	nt_compiled_free(&c);
}

/* Everything the library prints while running; appended to msg on failure. */
static void append_captured(FILE *cap, struct nt_result *r)
{
	char buf[4096];
	size_t n;
	struct nt_buf text = {0};

	fflush(stdout);
	fflush(stderr);
	if (fseek(cap, 0, SEEK_SET))
		return;
	while ((n = fread(buf, 1, sizeof(buf), cap)) > 0 && text.n < (1u << 20))
		nt_buf_putn(&text, buf, n);
	if (text.n && r->failed) {
		while (text.n && text.p[text.n - 1] == '\n')
			text.p[--text.n] = '\0';
		nt_buf_puts(&r->msg, "\n");
		nt_buf_puts(&r->msg, text.p);
	}
	nt_buf_free(&text);
}

/* The result object; the same keys in every run (nettune.yml's RETURN). */
static void format_result(const struct nt_result *r, struct nt_buf *b)
{
	nt_buf_printf(b, "{\"changed\": %s, \"failed\": %s, \"outcome\": \"%s\", \"msg\": ",
		      r->changed ? "true" : "false", r->failed ? "true" : "false",
		      nt_outcome_names[r->outcome]);
	nt_buf_json_str(b, r->msg.p ? r->msg.p : "");
	nt_buf_puts(b, ", \"journal\": ");
	nt_buf_json_str_or_null(b, r->journal);
	nt_buf_puts(b, ", \"journal_state\": ");
	nt_buf_json_str_or_null(b, r->journal_state);
	if (r->signal)
		nt_buf_printf(b, ", \"signal\": %d", r->signal);
	else
		nt_buf_puts(b, ", \"signal\": null");
	nt_buf_printf(b, ", \"not_restored\": [%s]", r->not_restored.p ? r->not_restored.p : "");
	nt_buf_puts(b, ", \"warnings\": [");
	if (r->warnings.p)
		nt_buf_puts(b, r->warnings.p);
	nt_buf_puts(b, "], \"actions\": ");
	nt_buf_puts(b, r->actions.p ? r->actions.p : "[]");
	nt_buf_printf(b, ", \"changes\": %zu, \"disruptive\": %zu", r->changes, r->disruptive);
	if (r->host) {
		nt_buf_puts(b, ", \"host\": ");
		nt_buf_json_str(b, r->host);
	}
	if (r->has_diff) {
		nt_buf_puts(b, ", \"diff\": {\"before_header\": \"observed\", "
			    "\"after_header\": \"profile\", \"before\": ");
		nt_buf_json_str(b, r->before.p ? r->before.p : "");
		nt_buf_puts(b, ", \"after\": ");
		nt_buf_json_str(b, r->after.p ? r->after.p : "");
		nt_buf_puts(b, "}");
	}
	nt_buf_puts(b, "}\n");
}

/* One write of the whole object to the real stdout.  A closed pipe
 * (SIGPIPE is ignored) or a full disk loses the result, never the run's
 * exit status; the reason goes to the real stderr. */
static void print_result(int out_fd, int err_fd, const struct nt_result *r)
{
	struct nt_buf b = {0};
	int e;

	format_result(r, &b);
	e = nt_write_all(out_fd, b.p, b.n);
	if (e && err_fd >= 0)
		dprintf(err_fd, "nettune: the result (outcome %s) could not be written to stdout: %s\n",
			nt_outcome_names[r->outcome], strerror(-e));
	nt_buf_free(&b);
}

static void result_free(struct nt_result *r)
{
	nt_buf_free(&r->msg);
	nt_buf_free(&r->warnings);
	nt_buf_free(&r->actions);
	nt_buf_free(&r->before);
	nt_buf_free(&r->after);
	nt_buf_free(&r->not_restored);
	free(r->host);
	free(r->journal);
	free(r->journal_state);
}

int main(int argc, char **argv)
{
	struct nt_result r = {0};
	struct nt_margs a = {0};
	struct nt_diags d = {0};
	struct nt_json *args = NULL;
	FILE *cap = NULL;
	int out_fd, err_fd;

	/* the CLI's semantics: SIGTERM (Ansible's task timeout), SIGINT and
	 * SIGHUP during the transaction finish the step under way and roll
	 * back; before it they stop the run; SIGPIPE is ignored.  Either way
	 * the result below is printed. */
	nt_apply_catch_signals();
	/* stdout must carry exactly one JSON object: whatever the library
	 * prints goes to a capture file instead. */
	fflush(stdout);
	out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	err_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	cap = tmpfile();
	if (out_fd < 0 || !cap) {
		printf("{\"changed\": false, \"failed\": true, \"outcome\": \"not-applied\", \"msg\": "
		       "\"nettune: cannot set up output: %s\"}\n", strerror(errno));
		return 1;
	}
	if (dup2(fileno(cap), STDOUT_FILENO) < 0 || dup2(fileno(cap), STDERR_FILENO) < 0) {
		dprintf(out_fd, "{\"changed\": false, \"failed\": true, \"outcome\": \"not-applied\", "
			"\"msg\": \"nettune: cannot redirect output\"}\n");
		return 1;
	}
	/* one order for the library's stdout and stderr lines in msg */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2) {
		result_fail(&r, "usage: nettune ARGS_FILE (an Ansible binary module: Ansible passes "
			    "the path of a JSON file holding the arguments)");
		goto out;
	}
	args = nt_json_parse_file(argv[1], &d);
	if (!args) {
		take_diags(&d, &r);
		if (!r.failed)
			result_fail(&r, "%s: cannot read the arguments file", argv[1]);
		goto out;
	}
	if (!parse_args(args, &a, &r))
		run(&a, &r);
out:
	if (!r.signal)
		r.signal = nt_apply_interrupted();	/* also one that stopped the compile */
	append_captured(cap, &r);
	print_result(out_fd, err_fd, &r);
	close(out_fd);
	if (err_fd >= 0)
		close(err_fd);
	fclose(cap);
	nt_diags_free(&d);
	nt_json_free(args);
	result_free(&r);
	nt_capsdb_default_free();
	nt_intern_free();
	return r.failed ? 1 : 0;
}
