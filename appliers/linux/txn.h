/* SPDX-License-Identifier: MIT */
/*
 * The Linux applier's transactions, its public face for them (txn.c):
 * apply (the lock, the journal, the steps of apply.c, rollback on failure
 * or signal, the confirm watcher and the systemd timer), rollback,
 * confirm, entering a journal's target, and the recovery check before
 * every command.  The CLI and the Ansible module call these and only
 * parse arguments and print results; every refusal and every decision to
 * revert is made here.  Exit codes: 0, 1 failed or refused, 3 rollback
 * incomplete (apply --dry-run: 2 changes pending).
 */
#ifndef NT_TXN_H
#define NT_TXN_H

#include <stdbool.h>
#include <stddef.h>

#include "../../compiler/model/actions.h"
#include "journal.h"

struct nt_facts;

struct nt_apply_opts {
	bool dry_run;
	unsigned confirm_timeout;	/* seconds; 0 = none */
	const char *only;		/* --only IFACE */
	const char *profile;		/* absolute path, for the journal */
	const char *netns;
	const char *command;		/* for the journal: "apply", "apply PLAN.json" */
	unsigned wait_ms;		/* how long to wait for the lock */
	bool quiet;
	bool ask;			/* show the plan and ask for "yes" (a terminal) */
	bool color;
	/* said instead of "Nothing to do: ..." when the plan is empty (a signed
	 * plan whose every "to" value the host already holds) */
	const char *nothing_msg;
	const char *cause;		/* recorded in the journal (the agent's) */
	char *journal_out;		/* if set: the journal's id, when one was made */
	size_t journal_out_len;
};

/* Who approves an apply: on a terminal the plan is shown and "yes" asked
 * (NT_APPROVE_ASK); off one nobody can be asked, so without --yes only a
 * plan whose signature a trusted key verifies is applied
 * (NT_APPROVE_NEEDED: the caller refuses anything else); --yes and
 * --dry-run need no approval. */
enum nt_approval { NT_APPROVED, NT_APPROVE_ASK, NT_APPROVE_NEEDED };
enum nt_approval nt_txn_approval(bool yes, bool dry_run, bool terminal);

/*
 * Converges the host to plan as one transaction: refuses Windows settings;
 * dry run: says what would change (0 nothing to do, 2 changes pending);
 * asks when o->ask; takes the lock (an empty plan too: a no-op must not
 * claim "nothing to do" while a change is open), refuses while a journal
 * is open, reads every previous value under the lock, journals them, makes
 * each step (apply.c), and on a failure or signal rolls back in reverse
 * order.  With o->confirm_timeout a watcher process keeps the journal
 * until 'nettune confirm' or reverts it.  0 converged, 1 failed (or
 * interrupted) and rolled back, or declined at the prompt, 3 rollback
 * incomplete.
 */
int nt_txn_apply(const struct nt_plan *plan, const struct nt_state *desired,
		 struct nt_facts *facts, const struct nt_apply_opts *o);

/* SIGTERM/SIGINT/SIGHUP set a flag that the transaction checks between
 * steps; SIGPIPE is ignored. */
void nt_apply_catch_signals(void);
int nt_apply_interrupted(void);

/* Where the command runs: its --root and --netns (as given), and how to
 * enter a named network namespace (the pipeline's nt_enter_netns).  A
 * journal's target is entered (its --root and network namespace, checked
 * by inode and cookie, on the host whose machine-id it recorded) or the
 * command is refused; never guessed. */
struct nt_txn_where {
	const char *root;
	const char *netns;		/* this process entered it */
	int (*enter_netns)(const char *name, bool remount_sys);
};

/*
 * Whether the journal's target is gone: its --root removed, or its named
 * network namespace deleted or deleted and created again (checked by
 * inode, and as root by cookie).  A namespace entered without a name
 * cannot be looked up, and is not reported gone.  why says which.
 */
bool nt_txn_target_gone(const struct nt_journal *j, char *why, size_t n);

/*
 * Before every command cmd: an open journal whose process is gone is
 * reported (applying: the host may be half-applied), and one whose
 * confirm deadline has passed is reverted first (as root; its target is
 * entered in a child).
 */
void nt_txn_recover(const char *cmd, const struct nt_txn_where *w);

/* nettune rollback [--force] [--unconfirmed] [JOURNAL], --discard JOURNAL */
struct nt_rollback_req {
	const char *journal;		/* as given; NULL: the newest restorable */
	bool discard;			/* accept the host: mark it discarded */
	bool force;			/* restore over newer journals and later changes */
	bool unconfirmed;		/* the systemd timer: only if still unconfirmed */
	struct nt_txn_where where;
};

/* Restores (or discards) a journal, refusing (1, nothing changed) what
 * would undo a newer change; 0, 1, 3 (nettune rollback --help). */
int nt_txn_rollback(const struct nt_rollback_req *rq);
/* Keeps the changes awaiting confirmation: 0 confirmed, 1 nothing to
 * confirm or too late. */
int nt_txn_confirm(void);

#endif
