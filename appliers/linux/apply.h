/* SPDX-License-Identifier: MIT */
/* Converging a Linux host: lock, journal, ordered writes with read-back
 * verification, rollback in reverse order, confirm-or-revert. */
#ifndef NT_APPLY_H
#define NT_APPLY_H

#include "../../compiler/diag.h"
#include "../../compiler/plan.h"
#include "linux.h"

struct nt_apply_opts {
	bool dry_run;
	unsigned confirm_timeout;	/* seconds; 0 = none */
	const char *only;		/* --only IFACE */
	const char *profile;		/* for the journal */
	const char *netns;
	bool quiet;
};

/* Exit codes: 0 converged, 1 failed and rolled back, 3 rollback incomplete. */
int nt_linux_apply(const struct nt_plan *plan, const struct nt_state *desired,
		   struct nt_facts *facts, const struct nt_apply_opts *o);
/* Restores a journal (NULL: the newest); same exit codes. */
int nt_linux_rollback(const char *journal, struct nt_facts *facts);
int nt_linux_confirm(void);
/* $NETTUNE_STATE_DIR or /var/lib/nettune */
const char *nt_state_dir(void);

#ifdef NT_FAULT_INJECTION
/* Test hook (built only with -Dfault_injection=true): NETTUNE_FAIL_STEP=k
 * makes the k-th write of an apply fail after it was made. */
#endif

#endif
