/* SPDX-License-Identifier: MIT */
/* nettune rollback / confirm: their arguments; the transaction is the
 * applier's (appliers/linux/txn.h). */
#include <stdio.h>

#include "../appliers/linux/txn.h"
#include "../pipeline/netns.h"
#include "cli.h"
#include "opts.h"
#include "txn.h"

/* Where this command runs, for entering a journal's target. */
static struct nt_txn_where where(bool entered_netns)
{
	struct nt_txn_where w = {nt_g.root, entered_netns ? nt_g.netns : NULL, nt_enter_netns};

	return w;
}

void nt_txn_preflight(const char *cmd)
{
	struct nt_txn_where w = where(false);	/* before --netns is entered */

	nt_txn_recover(cmd, &w);
}

static void rollback_help(void)
{
	printf("Usage: nettune rollback [--force] [JOURNAL]\n"
	       "       nettune rollback --discard JOURNAL\n\n"
	       "Restores the previous values recorded in JOURNAL, newest change first,\n"
	       "reading each back.  JOURNAL is an ID from 'nettune history' (with or without\n"
	       ".json) or its path in $NETTUNE_STATE_DIR/journal.  Without it: the newest\n"
	       "journal that can be rolled back (by recorded time; failed, rolled-back,\n"
	       "reverted and discarded ones are skipped, and so, with a note, are those whose\n"
	       "target is gone); it says which it took.  The journal's network namespace\n"
	       "and --root are entered (refused when they no longer exist or were\n"
	       "recreated).  A journal awaiting confirmation is reverted by its watcher at\n"
	       "once.\n\n"
	       "Refused, unless --force, naming what stands in the way (exit 1, nothing\n"
	       "changed): a newer journal that is not rolled back changed the same settings\n"
	       "on the same target (roll it back first: rollbacks go newest first), or a\n"
	       "setting reads neither the value the apply set nor its previous value (it\n"
	       "was changed since, by hand or by another tool).\n\n"
	       "  --force            restore the previous values anyway\n"
	       "  --discard JOURNAL  accept the host as it is: mark an interrupted or\n"
	       "                     incompletely rolled back journal, or one whose target\n"
	       "                     is gone (namespace deleted or recreated, --root\n"
	       "                     removed), 'discarded' (no writes)\n\n"
	       "Journal states: applying, applied, pending-confirm, confirmed, rolling-back,\n"
	       "rolled-back (an operator's rollback), failed (a failed or interrupted apply,\n"
	       "rolled back; 'nettune show' has its error), reverted-unconfirmed,\n"
	       "rollback-incomplete, discarded.  A rollback is recorded (rolling-back) before\n"
	       "its first write; one that was killed is finished by the next 'nettune\n"
	       "rollback'.  Every setting is read back; what could not be restored is listed,\n"
	       "and kept in the journal (rollback-incomplete).  SIGTERM, SIGINT and SIGHUP do\n"
	       "not stop a rollback; each kernel request is bounded by NETTUNE_NL_TIMEOUT_MS\n"
	       "(15000).  A journal that is rolled back, failed, reverted or discarded is\n"
	       "refused.\n"
	       "Exit status: 0 restored, 1 error or refused (nothing changed), 3 incomplete.\n");
}

int cmd_rollback(int argc, char **argv)
{
	struct nt_rollback_req rq = {.where = where(true)};
	const struct nt_opt rows[] = {
		{"--discard", NULL, 0, &rq.discard},
		{"--force", NULL, NT_OPT_UNLISTED, &rq.force},
		/* the systemd timer's call */
		{"--unconfirmed", NULL, NT_OPT_UNLISTED, &rq.unconfirmed},
		{NULL},
	};
	const struct nt_opts spec = {"rollback", rows, rollback_help, NT_DD_SKIP,
				     .one = &rq.journal, .more = "at most one JOURNAL"};
	int r = nt_opts_parse(&spec, argc, argv);

	if (r != NT_OPTS_GO)
		return r;
	if (rq.force && rq.discard)
		return nt_usage_error("rollback", "--force restores; --discard writes nothing");
	if ((rq.discard || rq.unconfirmed) && !rq.journal)
		return nt_usage_error("rollback", "%s needs a JOURNAL",
				      rq.discard ? "--discard" : "--unconfirmed");
	return nt_txn_rollback(&rq);
}

static void confirm_help(void)
{
	printf("Usage: nettune confirm\n\nKeeps the changes of an 'apply --confirm-timeout' "
	       "that is waiting for\nconfirmation; without it they are reverted at the "
	       "deadline.  After the\ndeadline it fails: \"too late: reverted at T\".\n"
	       "Confirm only after checking through the changed path: from a new SSH\n"
	       "session (not the one that ran the apply), once the services pass their\n"
	       "health checks (nettune(1), TRANSACTIONS).\n"
	       "Exit status: 0 confirmed, 1 nothing to confirm or too late.\n");
}

int cmd_confirm(int argc, char **argv)
{
	const struct nt_opts spec = {"confirm", NULL, confirm_help, .more = "takes no arguments"};
	int r = nt_opts_parse(&spec, argc, argv);

	return r != NT_OPTS_GO ? r : nt_txn_confirm();
}
