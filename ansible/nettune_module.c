/* SPDX-License-Identifier: MIT */
/* The Ansible binary module: args file in, one JSON result object out. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../appliers/linux/apply.h"
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
	bool check_mode;
	bool diff;
};

static const char *const nt_mopts[] = {
	"profile", "profile_content", "profile_name", "state", "netns", "state_dir", "only", "datadir",
};

struct nt_result {
	bool changed, failed;
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
				    "parameters include: datadir, netns, only, profile, profile_content, "
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

static void run(const struct nt_margs *a, struct nt_result *r)
{
	struct nt_diags d = {0};
	struct nt_compiled c;
	struct nt_plan p = {0};
	struct nt_pipeline_req rq = {0};
	const char *name = a->profile ? a->profile :
			   a->profile_name && *a->profile_name ? a->profile_name : "profile_content";
	int rc;

	if (a->state_dir)
		setenv("NETTUNE_STATE_DIR", a->state_dir, 1);
	if (a->datadir)
		setenv("NETTUNE_DATADIR", a->datadir, 1);
	if (a->netns) {
		if (nt_enter_netns(a->netns, true)) {
			result_fail(r, "cannot enter network namespace %s", a->netns);
			return;
		}
	}
	rq.profile = name;
	rq.data = a->profile_content;
	rq.len = a->profile_content ? strlen(a->profile_content) : 0;
	rq.only = a->only;
	rq.netns = a->netns;
	rc = nt_pipeline_run(&rq, &c, &d);
	take_diags(&d, r);
	nt_diags_free(&d);
	if (rc) {
		if (!r->failed)
			result_fail(r, "%s: the profile could not be planned", name);
		goto out;
	}
	if (c.l.p->target && *c.l.p->target == NT_TARGET_WINDOWS) {
		result_fail(r, "%s targets windows; generate the playbook with 'nettune emit "
			    "--format ps1' and run it with ansible.windows", name);
		goto out;
	}
	if (a->only && !nt_facts_iface(&c.facts, a->only)) {
		result_fail(r, "only: %s is not an interface of this host that the profile names",
			    a->only);
		goto out;
	}
	plan_only(&c.plan, a->only, &p);
	r->host = nt_xstrdup(c.plan.host ? c.plan.host : "");
	r->changes = p.n;
	r->disruptive = p.disruptive;
	nt_plan_print_actions_json(&p, &r->actions);
	if (a->diff)
		build_diff(&c, a->only, r);
	if (p.cannot) {
		result_fail(r, "%zu action%s cannot be applied on this host (fixed feature or "
			    "kernel-managed IRQ); nothing was changed", p.cannot,
			    p.cannot == 1 ? "" : "s");
		goto out;
	}
	if (!strcmp(a->state, "planned")) {
		nt_buf_printf(&r->msg, "%zu change%s pending", p.n, p.n == 1 ? "" : "s");
		goto out;
	}
	if (!p.n) {
		nt_buf_puts(&r->msg, "the host already matches the profile");
		goto out;
	}
	r->changed = true;
	if (a->check_mode) {
		nt_buf_printf(&r->msg, "check mode: %zu change%s would be made", p.n,
			      p.n == 1 ? "" : "s");
		goto out;
	} else {
		struct nt_apply_opts o = {0};

		o.quiet = true;
		o.only = a->only;
		o.profile = name;
		o.netns = a->netns;
		rc = nt_linux_apply(&c.plan, &c.desired, &c.facts, &o);
		if (rc == 0) {
			nt_buf_printf(&r->msg, "applied %zu change%s", p.n, p.n == 1 ? "" : "s");
		} else if (rc == 3) {
			result_fail(r, "apply failed and the rollback is incomplete");
		} else {
			r->changed = false;
			result_fail(r, "apply failed; every change was rolled back");
		}
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

static void print_result(FILE *out, struct nt_result *r)
{
	struct nt_buf b = {0};

	nt_buf_printf(&b, "{\"changed\": %s, \"failed\": %s, \"msg\": ",
		      r->changed ? "true" : "false", r->failed ? "true" : "false");
	nt_buf_json_str(&b, r->msg.p ? r->msg.p : "");
	nt_buf_puts(&b, ", \"warnings\": [");
	if (r->warnings.p)
		nt_buf_puts(&b, r->warnings.p);
	nt_buf_puts(&b, "], \"actions\": ");
	nt_buf_puts(&b, r->actions.p ? r->actions.p : "[]");
	nt_buf_printf(&b, ", \"changes\": %zu, \"disruptive\": %zu", r->changes, r->disruptive);
	if (r->host) {
		nt_buf_puts(&b, ", \"host\": ");
		nt_buf_json_str(&b, r->host);
	}
	if (r->has_diff) {
		nt_buf_puts(&b, ", \"diff\": {\"before_header\": \"observed\", "
			    "\"after_header\": \"profile\", \"before\": ");
		nt_buf_json_str(&b, r->before.p ? r->before.p : "");
		nt_buf_puts(&b, ", \"after\": ");
		nt_buf_json_str(&b, r->after.p ? r->after.p : "");
		nt_buf_puts(&b, "}");
	}
	nt_buf_puts(&b, "}\n");
	nt_buf_write(&b, out);
	nt_buf_free(&b);
}

int main(int argc, char **argv)
{
	struct nt_result r = {0};
	struct nt_margs a = {0};
	struct nt_diags d = {0};
	struct nt_json *args = NULL;
	FILE *out = NULL, *cap = NULL;
	int out_fd;

	/* stdout must carry exactly one JSON object: whatever the library
	 * prints goes to a capture file instead. */
	fflush(stdout);
	out_fd = dup(STDOUT_FILENO);
	cap = tmpfile();
	if (out_fd < 0 || !cap || !(out = fdopen(out_fd, "w"))) {
		printf("{\"failed\": true, \"msg\": \"nettune: cannot set up output: %s\"}\n",
		       strerror(errno));
		return 1;
	}
	if (dup2(fileno(cap), STDOUT_FILENO) < 0 || dup2(fileno(cap), STDERR_FILENO) < 0) {
		fprintf(out, "{\"failed\": true, \"msg\": \"nettune: cannot redirect output\"}\n");
		return 1;
	}
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
	append_captured(cap, &r);
	print_result(out, &r);
	fclose(out);
	fclose(cap);
	nt_diags_free(&d);
	nt_json_free(args);
	nt_buf_free(&r.msg);
	nt_buf_free(&r.warnings);
	nt_buf_free(&r.actions);
	nt_buf_free(&r.before);
	nt_buf_free(&r.after);
	free(r.host);
	nt_capsdb_default_free();
	nt_intern_free();
	return r.failed ? 1 : 0;
}
