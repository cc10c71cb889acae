/* SPDX-License-Identifier: MIT */
/* nettune show PLAN.json|JOURNAL: a plan manifest rendered as plan text (or
 * JSON) with its signature status, or an apply journal (cmd_history.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../compiler/formats/planprint.h"
#include "../appliers/linux/journal.h"
#include "../compiler/base/jsonw.h"
#include "../compiler/formats/manifest.h"
#include "../compiler/formats/sign.h"
#include "cli.h"
#include "common.h"
#include "opts.h"
#include "plans.h"
#include "show.h"

/* what every journal format says: "nettune-journal/N" */
#define NT_JOURNAL_FORMAT_PREFIX "nettune-journal/"

static void help(void)
{
	printf("Usage: nettune show [--json] [--trust PUB]... PLAN.json\n"
	       "       nettune show [--json] JOURNAL\n\n"
	       "PLAN.json (a plan manifest from 'nettune plan --out' or 'nettune compile') is\n"
	       "printed as the plan text that 'nettune plan' prints, after a header with its\n"
	       "host, profile, snapshot, creation and expiry times and its signature status:\n"
	       "  valid            PLAN.json.sig is a good signature by a trusted key\n"
	       "  invalid          PLAN.json.sig does not verify (the plan was changed after\n"
	       "                   signing, or it is not that key's signature) or is unreadable\n"
	       "  unsigned         there is no PLAN.json.sig\n"
	       "  key not trusted  signed by a key that is not trusted\n"
	       "Trusted keys: --trust PUB (repeatable) and the keys in $NETTUNE_TRUST_DIR\n"
	       "(default /etc/nettune/trusted.d), as for 'nettune apply PLAN.json'.  --json\n"
	       "prints {\"manifest\", \"host\", \"machine_id\", \"netns\", \"profile\", \"against\",\n"
	       "\"created\", \"expires\", \"expired\", \"signature\": {\"status\", \"signer\", \"key\", \"reason\"},\n"
	       "\"plan\": the object 'nettune plan --json' prints}.\n\n"
	       "JOURNAL is an apply journal: an ID from 'nettune history' or its path in\n"
	       "$NETTUNE_STATE_DIR/journal.  It is printed with its state, the error of a\n"
	       "failed apply, its target (and whether it is gone), profile, every state it\n"
	       "went through with its time and process, and every change (before -> after);\n"
	       "--json prints the journal as stored.\n"
	       "A file is a journal when it says format \"nettune-journal/...\"; any other\n"
	       "file is read as a plan manifest (errors are located FILE:LINE:COL).\n\n"
	       "Exit status: 0 shown (whatever the signature status: 'nettune verify' and\n"
	       "'nettune apply' enforce it), 1 not a valid plan manifest or journal, 64 usage.\n");
}

static const char *const status_word[] = {
	[NT_SIG_VALID] = "valid",
	[NT_SIG_UNSIGNED] = "unsigned",
	[NT_SIG_INVALID] = "invalid",
	[NT_SIG_UNTRUSTED] = "key not trusted",
};

static void show_json(const char *path, const struct nt_manifest *m, enum nt_sig_status st,
		      const struct nt_key *who, const char *why, struct nt_buf *out)
{
	char created[32], expires[32];
	struct nt_buf plan = {0};
	struct nt_jw w;

	nt_time_format(m->created, created);
	nt_time_format(m->expires, expires);
	nt_jw_init(&w, out, 1);
	nt_jw_obj(&w, NULL, NT_JW_MIXED);
	nt_jw_str(&w, "manifest", path);
	nt_jw_str(&w, "host", m->host_name);
	nt_jw_str(&w, "machine_id", m->machine_id);
	nt_jw_str(&w, "netns", m->netns);
	nt_jw_str(&w, "profile", m->profile);
	nt_jw_str(&w, "against", m->against);
	nt_jw_str(&w, "created", created);
	nt_jw_str(&w, "expires", expires);
	nt_jw_bool(&w, "expired", (int64_t)time(NULL) >= m->expires);
	nt_jw_break(&w);
	nt_jw_obj(&w, "signature", NT_JW_INLINE);
	nt_jw_str(&w, "status", status_word[st]);
	nt_jw_str(&w, "signer", m->signer ? m->signer : who ? who->id : NULL);
	nt_jw_str(&w, "key", who ? who->path : NULL);
	nt_jw_str(&w, "reason", st == NT_SIG_VALID ? NULL : why);
	nt_jw_end(&w);
	nt_jw_break(&w);
	nt_plan_print_json(&m->plan, &plan);
	while (plan.n && (plan.p[plan.n - 1] == '\n' || plan.p[plan.n - 1] == ' '))
		plan.p[--plan.n] = '\0';
	nt_buf_puts(nt_jw_raw(&w, "plan"), plan.p ? plan.p : "null");
	nt_jw_end(&w);
	nt_buf_putc(out, '\n');
	nt_buf_free(&plan);
}

static void show_text(const char *path, const struct nt_manifest *m, enum nt_sig_status st,
		      const struct nt_key *who, const char *why, struct nt_buf *out)
{
	char created[32], expires[32];
	bool expired = (int64_t)time(NULL) >= m->expires;

	nt_time_format(m->created, created);
	nt_time_format(m->expires, expires);
	nt_buf_printf(out, "Plan manifest %s\n", nt_esc(path));
	nt_buf_printf(out, "  host       %s", nt_esc(m->host_name));
	if (m->machine_id)
		nt_buf_printf(out, " (machine-id %s)", nt_esc(m->machine_id));
	if (m->netns)
		nt_buf_printf(out, "\n  netns      %s", nt_esc(m->netns));
	nt_buf_printf(out, "\n  profile    %s\n  against    %s\n  created    %s by nettune %s\n"
		      "  expires    %s%s\n", m->profile ? nt_esc(m->profile) : "?",
		      m->against ? nt_esc(m->against) : "?", created,
		      m->nettune ? nt_esc(m->nettune) : "?", expires, expired ? " (EXPIRED)" : "");
	if (st == NT_SIG_VALID)
		nt_buf_printf(out, "  signature  valid: signed by %s (%s)\n", nt_esc(who->id),
			      nt_esc(who->path));
	else if (st == NT_SIG_UNSIGNED && !m->signer)
		nt_buf_printf(out, "  signature  unsigned: there is no %s.sig\n", nt_esc(path));
	else
		nt_buf_printf(out, "  signature  %s: %s\n", status_word[st], nt_esc(why));
	nt_buf_puts(out, "\n");
	/* the text nettune plan prints: against the live host or a snapshot */
	nt_plan_print_text(&m->plan, m->against && strcmp(m->against, "live") ? m->against :
			   "the live host", nt_g.color, out);
}

static int show_plan(const char *path, const struct nt_buf *bytes, struct nt_trust *t, bool json)
{
	struct nt_manifest m;
	struct nt_diags d = {0};
	struct nt_buf out = {0};
	const struct nt_key *who = NULL;
	enum nt_sig_status st;
	char why[2048], err[512];

	if (nt_manifest_load_data(path, bytes->p, bytes->n, &m, &d)) {
		nt_print_diags(&d);
		fprintf(stderr, "nettune show: error: %s is not a valid plan manifest\n", nt_esc(path));
		nt_diags_free(&d);
		return NT_EXIT_FAIL;
	}
	nt_diags_free(&d);
	if (nt_trust_load_dir(t, nt_trust_dir(), err, sizeof(err))) {
		fprintf(stderr, "nettune show: error: %s\n", nt_esc(err));
		nt_manifest_free(&m);
		return NT_EXIT_FAIL;
	}
	why[0] = '\0';
	st = nt_plan_signature(path, bytes, &m, t, &who, why, sizeof(why));
	if (json)
		show_json(path, &m, st, who, why, &out);
	else
		show_text(path, &m, st, who, why, &out);
	nt_buf_write(&out, stdout);
	nt_buf_free(&out);
	nt_manifest_free(&m);
	return NT_EXIT_OK;
}

static int trust_opt(const char *opt, const char *val, void *trust)
{
	char err[512];

	(void)opt;
	if (nt_trust_add(trust, val, err, sizeof(err))) {
		fprintf(stderr, "nettune show: error: %s\n", nt_esc(err));
		return NT_EXIT_FAIL;
	}
	return 0;
}

int cmd_show(int argc, char **argv)
{
	const char *arg = NULL;
	struct nt_trust trust = {0};
	struct nt_buf bytes = {0};
	bool json = false;
	char why[512];
	int r, e;
	const struct nt_opt rows[] = {
		{"--json", NULL, 0, &json},
		{"--trust", NULL, NT_OPT_VALUE, &trust, trust_opt, "--trust needs a PUB file"},
		{NULL},
	};
	const struct nt_opts spec = {"show", rows, help, NT_DD_SKIP, .one = &arg,
				     .more = "one PLAN.json or JOURNAL at a time"};

	r = nt_opts_parse(&spec, argc, argv);
	if (r != NT_OPTS_GO) {
		nt_trust_free(&trust);
		return r;
	}
	if (!arg) {
		nt_trust_free(&trust);
		return nt_usage_error("show", "no PLAN.json or JOURNAL given");
	}
	e = nt_read_input(arg, NT_MANIFEST_MAX_BYTES, 0, &bytes, why, sizeof(why));
	if (e) {
		bool id = e == -ENOENT && !strchr(arg, '/');	/* a journal ID names no file here */

		r = trust.n;
		nt_trust_free(&trust);
		if (id && r)
			return nt_usage_error("show", "--trust is for a PLAN.json, not a journal");
		if (id)
			return nt_show_journal(arg, json);
		/* not a regular file (fifo), larger than N bytes, cannot open: ... */
		fprintf(stderr, "nettune show: error: %s: %s\n", nt_esc(arg), nt_esc(why));
		return NT_EXIT_FAIL;
	}
	if (memmem(bytes.p, bytes.n, "\"" NT_JOURNAL_FORMAT_PREFIX, strlen(NT_JOURNAL_FORMAT_PREFIX) + 1)) {
		nt_buf_free(&bytes);
		r = trust.n;
		nt_trust_free(&trust);
		if (r)
			return nt_usage_error("show", "--trust is for a PLAN.json, not a journal");
		return nt_show_journal(arg, json);
	}
	r = show_plan(arg, &bytes, &trust, json);
	nt_buf_free(&bytes);
	nt_trust_free(&trust);
	return r;
}
