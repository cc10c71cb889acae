/* SPDX-License-Identifier: MIT */
/* Converging a Linux host as a transaction: lock, journal, ordered writes
 * with read-back verification, rollback in reverse order on failure or
 * signal, confirm-or-revert (journal.h has the states). */
#ifndef NT_APPLY_H
#define NT_APPLY_H

#include "../../compiler/base/diag.h"
#include "../../compiler/model/actions.h"
#include "journal.h"
#include "linux.h"

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
};

/* Exit codes: 0 converged, 1 failed (or interrupted) and rolled back, or
 * declined at the prompt, 3 rollback incomplete; dry run: 0 nothing to do,
 * 2 changes pending. */
int nt_linux_apply(const struct nt_plan *plan, const struct nt_state *desired,
		   struct nt_facts *facts, const struct nt_apply_opts *o);
/* Restores a journal; the caller holds the lock and is in the journal's
 * namespace and root.  Records `done` (or rollback-incomplete): 0, 1, 3. */
int nt_linux_restore_journal(int jfd, struct nt_journal *j, enum nt_jstate done, bool verbose);
/* The entries of j that read neither the value the apply set nor their
 * previous value (changed since, by hand or another tool), one line each
 * in out ("  eth0 mtu: applied 9000, reads 8500"); how many.  The caller
 * is in the journal's target.  Entries the last rollback could not
 * restore, and those that cannot be read, are left to the rollback. */
size_t nt_linux_changed_since(struct nt_journal *j, struct nt_buf *out);
/* Prints why open journals block a new apply; true if any does. */
bool nt_apply_blocked(int jfd, const char *cmd);
void nt_apply_disarm_timer(const char *id);

/* SIGTERM/SIGINT/SIGHUP set a flag that the transaction checks between
 * steps; SIGPIPE is ignored. */
void nt_apply_catch_signals(void);
int nt_apply_interrupted(void);

#ifdef NT_FAULT_INJECTION
/* Test hook (built only with -Dfault_injection=true): NETTUNE_FAIL_STEP=k
 * makes the k-th write of an apply fail after it was made;
 * NETTUNE_SIGNAL_STEP=k NETTUNE_SIGNAL=N raises signal N right after it. */
#endif

#endif
