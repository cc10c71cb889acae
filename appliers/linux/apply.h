/* SPDX-License-Identifier: MIT */
/* The steps of a Linux apply (apply.c), for the transaction around them
 * (txn.c; txn.h is the applier's public face for transactions): the
 * previous values read, each write made through its kind row, batched by
 * the row's wire family, read back, and restored in reverse order. */
#ifndef NT_APPLY_H
#define NT_APPLY_H

#include "../../compiler/base/buf.h"
#include "../../compiler/base/diag.h"
#include "../../compiler/model/actions.h"
#include "journal.h"
#include "linux.h"
#include "txn.h"

/* One apply's steps over j->e[0 .. j->n). */
struct nt_apply_run {
	struct nt_lctx x;
	struct nt_journal *j;
	const struct nt_apply_opts *o;
	long long t0;		/* the step lines count elapsed time from here */
	size_t done;		/* steps begun */
	size_t batch_end;	/* one past the last entry a batch wrote */
	const struct nt_state *desired;	/* what the profile wants (nt_apply_steps) */
};

/* printf to stdout unless o->quiet */
void nt_apply_say(const struct nt_apply_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A failure of an apply whose journal exists: said on stderr ("nettune
 * apply: MSG") and, if it is the first, recorded as the journal's error
 * (without the "error: "), so that history and show say why it failed. */
void nt_apply_failure(struct nt_journal *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The live previous values of j's entries (had, before), from the device
 * cache the caller made stale; 0, or 1 after saying why nothing can be
 * written (a value that cannot be read could not be restored). */
int nt_apply_read_before(struct nt_lctx *x, struct nt_journal *j);
/* Makes each step in plan order and reads it back (the settings of the
 * device cache from one dump per family after the last write), then
 * checks that every desired setting reads as desired.  0 converged, or 1
 * with the failure recorded (r->done and r->batch_end say how far). */
int nt_apply_steps(struct nt_apply_run *r, const struct nt_state *desired);
/*
 * Restores e[upto-1] .. e[0].  A setting that depends on one restored
 * after it (tx-tcp-mangleid-segmentation needs tx-tcp-segmentation, which
 * the reverse order turns back on later) does not stick the first time,
 * so what failed gets a second pass once everything else is back.  Then
 * every entry is read again from a fresh dump (a later restore can undo
 * an earlier one as a side effect): only what reads as its previous value
 * then counts as restored.  What is not is listed in the journal
 * (nt_journal_add_unrestored) and on stderr; returns how many.
 */
size_t nt_apply_restore(struct nt_lctx *x, struct nt_journal *j, size_t upto, bool verbose);
/* The entries of j that read neither the value the apply set nor their
 * previous value (changed since, by hand or another tool), one line each
 * in out ("  eth0 mtu: applied 9000, reads 8500"); how many.  The caller
 * is in the journal's target.  Entries the last rollback could not
 * restore, and those that cannot be read, are left to the rollback. */
size_t nt_linux_changed_since(struct nt_journal *j, struct nt_buf *out);
/* What a rollback or a revert observes of the host: the kinds of the
 * journal's entries (no per-device read of the others: pause, private
 * flags), no rings or coalescing unless the journal has such entries; the
 * facts (queues, IRQs, RSS) as ever.  skip_rows is req's storage. */
void nt_journal_observe_req(const struct nt_journal *j, struct nt_observe_req *req,
			    bool skip_rows[NT_K__COUNT]);

#endif
