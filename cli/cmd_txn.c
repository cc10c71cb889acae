/* SPDX-License-Identifier: MIT */
/* nettune rollback / confirm: their arguments; the transaction is the
 * applier's (appliers/linux/txn.h). */
#include <stdio.h>
#include <string.h>

#include "../appliers/linux/txn.h"
#include "../pipeline/netns.h"
#include "cli.h"
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
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			rollback_help();
			return NT_EXIT_OK;
		} else if (!strcmp(argv[i], "--discard")) {
			rq.discard = true;
		} else if (!strcmp(argv[i], "--force")) {
			rq.force = true;
		} else if (!strcmp(argv[i], "--unconfirmed")) {
			rq.unconfirmed = true;	/* the systemd timer's call */
		} else if (argv[i][0] == '-' && strcmp(argv[i], "--")) {
			return nt_unknown_option("rollback", argv[i]);
		} else if (strcmp(argv[i], "--")) {
			if (rq.journal)
				return nt_usage_error("rollback", "at most one JOURNAL");
			rq.journal = argv[i];
		}
	}
	if (rq.force && rq.discard)
		return nt_usage_error("rollback", "--force restores; --discard writes nothing");
	if ((rq.discard || rq.unconfirmed) && !rq.journal)
		return nt_usage_error("rollback", "%s needs a JOURNAL",
				      rq.discard ? "--discard" : "--unconfirmed");
	return nt_txn_rollback(&rq);
}

int cmd_confirm(int argc, char **argv)
{
	if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		printf("Usage: nettune confirm\n\nKeeps the changes of an 'apply --confirm-timeout' "
		       "that is waiting for\nconfirmation; without it they are reverted at the "
		       "deadline.  After the\ndeadline it fails: \"too late: reverted at T\".\n"
		       "Confirm only after checking through the changed path: from a new SSH\n"
		       "session (not the one that ran the apply), once the services pass their\n"
		       "health checks (nettune(1), TRANSACTIONS).\n"
		       "Exit status: 0 confirmed, 1 nothing to confirm or too late.\n");
		return NT_EXIT_OK;
	}
	if (argc > 0)
		return argv[0][0] == '-' ? nt_unknown_option("confirm", argv[0]) :
		       nt_usage_error("confirm", "takes no arguments");
	return nt_txn_confirm();
}
