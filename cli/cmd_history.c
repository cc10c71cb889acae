/* SPDX-License-Identifier: MIT */
/* nettune history: the apply journals, newest first; nettune show JOURNAL. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../appliers/linux/journal.h"
#include "../appliers/linux/statedir.h"
#include "../compiler/base/buf.h"
#include "cli.h"
#include "opts.h"
#include "show.h"
#include "txn.h"

/* "host netns X root R", and " (gone)" when that target no longer exists
 * (gone: the reason, or NULL when it is there). */
static void target_of(const struct nt_journal *j, const char *gone, struct nt_buf *b)
{
	nt_buf_put_escaped(b, j->hostname ? j->hostname : "?");
	if (j->netns) {
		nt_buf_puts(b, " netns ");
		nt_buf_put_escaped(b, j->netns);
	}
	if (j->root && *j->root) {
		nt_buf_puts(b, " root ");
		nt_buf_put_escaped(b, j->root);
	}
	if (gone)
		nt_buf_puts(b, " (gone)");
}

static int open_journals(const char *cmd, int *jfd)
{
	char err[512];

	*jfd = nt_statedir_open(false, NULL, err, sizeof(err));
	if (*jfd == -ENOENT)
		return 0;
	if (*jfd < 0) {
		fprintf(stderr, "nettune %s: error: state directory: %s\n", cmd, nt_esc(err));
		return -1;
	}
	return 0;
}

/* One journal of nettune history --json: i its position. */
static void history_json(const struct nt_journal *j, size_t i, struct nt_buf *out)
{
	char why[512], utc[48];
	bool gone = nt_jstate_restorable(j->state) && nt_txn_target_gone(j, why, sizeof(why));

	nt_time_utc(j->created_ns, utc, sizeof(utc));
	nt_buf_puts(out, i ? ",\n {\"id\": " : "\n {\"id\": ");
	nt_buf_json_str(out, j->id);
	nt_buf_printf(out, ", \"created\": \"%s\", \"state\": \"%s\", \"changes\": %zu, "
		      "\"host\": ", utc, nt_jstate_name(j->state), j->n);
	nt_buf_json_str(out, j->hostname ? j->hostname : "");
	nt_buf_puts(out, ", \"netns\": ");
	if (j->netns)
		nt_buf_json_str(out, j->netns);
	else
		nt_buf_puts(out, "null");
	nt_buf_puts(out, ", \"root\": ");
	nt_buf_json_str(out, j->root ? j->root : "");
	nt_buf_puts(out, ", \"profile\": ");
	nt_buf_json_str(out, j->profile ? j->profile : "");
	nt_buf_puts(out, ", \"command\": ");
	nt_buf_json_str(out, j->command ? j->command : "apply");
	if (j->cause) {
		nt_buf_puts(out, ", \"cause\": ");
		nt_buf_json_str(out, j->cause);
	}
	nt_buf_puts(out, ", \"error\": ");
	nt_buf_json_str_or_null(out, j->error);
	nt_buf_puts(out, ", \"target_gone\": ");
	nt_buf_json_str_or_null(out, gone ? why : NULL);
	nt_buf_puts(out, "}");
}

/* "OBJECT ATTR: FROM -> TO" and a newline. */
static void change_line(const struct nt_jentry *e, struct nt_buf *out)
{
	char *attr = nt_setting_label(e->kind, e->object, e->arg);
	struct nt_buf from = {0}, to = {0};

	if (e->had)
		nt_value_format(&e->before, &from, false);
	else
		nt_buf_puts(&from, "(none)");
	nt_value_format(&e->after, &to, false);
	/* an empty value (irqbalance bans none) prints as "" */
	nt_buf_printf(out, "%s: %s -> %s\n", nt_esc(attr), from.p ? from.p : "\"\"",
		      to.p ? to.p : "\"\"");
	free(attr);
	nt_buf_free(&from);
	nt_buf_free(&to);
}

/* An agent's correction says why, and what it changed (the first few). */
static void history_cause(const struct nt_journal *j, struct nt_buf *out)
{
	size_t k;

	if (!j->cause)
		return;
	nt_buf_printf(out, "%*scause: %s\n", 27, "", nt_esc(j->cause));
	for (k = 0; k < j->n && k < 4; k++) {
		nt_buf_printf(out, "%*s", 29, "");
		change_line(&j->e[k], out);
	}
	if (k < j->n)
		nt_buf_printf(out, "%*s... %zu more ('nettune show %s')\n", 29, "", j->n - k,
			      nt_esc(j->id));
}

/* One journal of nettune history: its line, ID and error. */
static void history_text(const struct nt_journal *j, size_t i, struct nt_buf *out)
{
	struct nt_buf t = {0};
	char when[64], why[512];
	bool gone = nt_jstate_restorable(j->state) && nt_txn_target_gone(j, why, sizeof(why));

	(void)i;
	target_of(j, gone ? why : NULL, &t);
	nt_local_time(j->created_ns, when, sizeof(when));
	nt_buf_printf(out, "%-25s  %-20s  %-28s  %7zu  %s\n%*s%s\n", when,
		      nt_jstate_name(j->state), t.p, j->n,
		      j->profile && *j->profile ? nt_esc(j->profile) : "(no profile)",
		      27, "", nt_esc(j->id));
	if (j->error)
		nt_buf_printf(out, "%*serror: %s\n", 27, "", nt_esc(j->error));
	history_cause(j, out);
	nt_buf_free(&t);
}

static void help(void)
{
	printf("Usage: nettune history [--json]\n\n"
	       "The apply journals in $NETTUNE_STATE_DIR/journal, newest first by their\n"
	       "recorded time: when, state (applying, applied, pending-confirm, confirmed,\n"
	       "rolling-back, rolled-back, failed, reverted-unconfirmed,\n"
	       "rollback-incomplete, discarded), target (host, network namespace, --root;\n"
	       "\"(gone)\" when the namespace was deleted or recreated, or the --root\n"
	       "removed: 'nettune rollback --discard ID' retires such a journal), number\n"
	       "of changes, profile and ID, and the error of a failed apply.  rolled-back\n"
	       "is undone by a rollback: an operator's, or the recovery of an apply a\n"
	       "killed process left open (done by the next nettune command that starts);\n"
	       "failed is an apply that failed or was interrupted and undid its own\n"
	       "changes.  --json adds \"error\" (null: none) and \"target_gone\"\n"
	       "(null, or why).  A correction of 'nettune agent' (command \"agent\") also\n"
	       "says its cause (the event or the periodic check) and what it changed, old\n"
	       "and new value (--json: \"cause\").\n"
	       "'nettune show ID' prints one.  Exit status: 0, 1 error.\n");
}

int cmd_history(int argc, char **argv)
{
	bool json = false;
	struct nt_journal *v = NULL;
	struct nt_diags d = {0};
	struct nt_buf out = {0};
	size_t n = 0, i;
	int jfd, r;
	const struct nt_opt rows[] = {
		{"--json", NULL, 0, &json},
		{NULL},
	};
	const struct nt_opts spec = {"history", rows, help, .more = "unknown argument '%s'"};

	r = nt_opts_parse(&spec, argc, argv);
	if (r != NT_OPTS_GO)
		return r;
	if (open_journals("history", &jfd))
		return NT_EXIT_FAIL;
	if (jfd >= 0) {
		n = nt_journal_list(jfd, false, &v, &d);
		close(jfd);
	}
	if (json)
		nt_buf_puts(&out, "[");
	else if (n)
		nt_buf_printf(&out, "%-25s  %-20s  %-28s  %7s  %s\n", "WHEN", "STATE", "TARGET",
			      "CHANGES", "PROFILE / JOURNAL");
	for (i = 0; i < n; i++)
		(json ? history_json : history_text)(&v[i], i, &out);
	if (json)
		nt_buf_puts(&out, n ? "\n]\n" : "]\n");
	else if (!n)
		nt_buf_printf(&out, "No journals in %s/journal.\n", nt_esc(nt_state_dir()));
	nt_buf_write(&out, stdout);
	nt_buf_free(&out);
	nt_diags_print_text(&d, stderr);
	nt_diags_free(&d);
	nt_journal_list_free(v, n);
	return NT_EXIT_OK;
}

/* The journal arg names (an ID or a path), loaded; messages printed. */
static int load_journal(const char *arg, struct nt_journal *j, struct nt_diags *d)
{
	char err[512];
	char *id;
	int jfd, rc;

	id = nt_journal_id_of(arg, err, sizeof(err));
	if (!id) {
		fprintf(stderr, "nettune show: error: %s\n", nt_esc(err));
		return -1;
	}
	if (open_journals("show", &jfd) || jfd < 0) {
		if (jfd == -ENOENT)
			fprintf(stderr, "nettune show: error: no journal %s\n", nt_esc(id));
		free(id);
		return -1;
	}
	rc = nt_journal_load(jfd, id, j, d);
	close(jfd);
	if (rc) {
		if (rc == -ENOENT)
			fprintf(stderr, "nettune show: error: no journal %s in %s/journal\n",
				nt_esc(id), nt_esc(nt_state_dir()));
		nt_diags_print_text(d, stderr);
	}
	free(id);
	return rc ? -1 : 0;
}

/* Its state, error, target, profile, command and deadline. */
static void journal_head(const struct nt_journal *j, struct nt_buf *out)
{
	struct nt_buf t = {0};
	char why[512], when[64];
	bool gone = nt_jstate_restorable(j->state) && nt_txn_target_gone(j, why, sizeof(why));

	target_of(j, gone ? why : NULL, &t);
	nt_buf_printf(out, "Journal %s\n  state    %s\n", nt_esc(j->id), nt_jstate_name(j->state));
	if (j->error)
		nt_buf_printf(out, "  error    %s\n", nt_esc(j->error));
	nt_buf_printf(out, "  target   %s\n", t.p);
	if (gone)
		nt_buf_printf(out, "           %s: 'nettune rollback --discard %s' retires the "
			      "journal\n", why, nt_esc(j->id));
	nt_buf_printf(out, "  profile  %s\n  command  nettune %s (pid %d)\n",
		      j->profile && *j->profile ? nt_esc(j->profile) : "(none)",
		      j->command ? nt_esc(j->command) : "apply", j->tr[0].pid);
	if (j->cause)
		nt_buf_printf(out, "  cause    %s\n", nt_esc(j->cause));
	if (j->deadline_ns) {
		nt_local_time(j->deadline_ns, when, sizeof(when));
		nt_buf_printf(out, "  deadline %s\n", when);
	}
	nt_buf_free(&t);
}

/* Its state transitions and changes, and what the last rollback left. */
static void journal_body(const struct nt_journal *j, struct nt_buf *out)
{
	char when[64];

	nt_buf_puts(out, "\nStates\n");
	for (size_t k = 0; k < j->ntr; k++) {
		nt_local_time(j->tr[k].at_ns, when, sizeof(when));
		nt_buf_printf(out, "  %s  %-21s pid %d\n", when, nt_jstate_name(j->tr[k].state),
			      j->tr[k].pid);
	}
	nt_buf_printf(out, "\nChanges (%zu, in apply order)\n", j->n);
	for (size_t k = 0; k < j->n; k++) {
		nt_buf_printf(out, "  %3zu  ", k + 1);
		change_line(&j->e[k], out);
	}
	if (!j->nunrestored)
		return;
	nt_buf_printf(out, "\nNot restored by the last rollback (%zu; 'nettune rollback "
		      "%s' tries again)\n", j->nunrestored, nt_esc(j->id));
	for (size_t k = 0; k < j->nunrestored; k++) {
		const struct nt_jentry *e = &j->e[j->unrestored[k].entry];
		char *attr = nt_setting_label(e->kind, e->object, e->arg);

		nt_buf_printf(out, "  %3zu  %s: %s\n", j->unrestored[k].entry + 1,
			      nt_esc(attr), nt_esc(j->unrestored[k].reason));
		free(attr);
	}
}

/* nettune show JOURNAL: one apply journal (cmd_show.c dispatches). */
int nt_show_journal(const char *arg, bool json)
{
	struct nt_journal j;
	struct nt_diags d = {0};
	struct nt_buf out = {0};

	if (load_journal(arg, &j, &d)) {
		nt_diags_free(&d);
		return NT_EXIT_FAIL;
	}
	if (json) {
		nt_journal_format(&j, &out);
	} else {
		journal_head(&j, &out);
		journal_body(&j, &out);
	}
	nt_buf_write(&out, stdout);
	nt_buf_free(&out);
	nt_journal_free(&j);
	nt_diags_free(&d);
	return NT_EXIT_OK;
}
