/* SPDX-License-Identifier: MIT */
/*
 * Host snapshots (format "nettune-snapshot/1"): host facts plus an observed
 * state in the same (object, attribute) keys the compiler produces.  The
 * Linux observer writes them, the Windows collector (PowerShell) writes
 * them, plan/emit --state read them.  See examples/states/README.md.
 */
#ifndef NT_SNAPSHOT_H
#define NT_SNAPSHOT_H

#include "../base/buf.h"
#include "../base/diag.h"
#include "../model/facts.h"
#include "json.h"
#include "../model/settings.h"
#include "value.h"

#define NT_SNAPSHOT_FORMAT "nettune-snapshot/1"

/* Returns 0, or -1 with located errors (facts and state are then empty). */
int nt_snapshot_load(const char *path, struct nt_facts *facts, struct nt_state *observed,
		     struct nt_diags *d);
int nt_snapshot_load_data(const char *file, const char *data, size_t len,
			  struct nt_facts *facts, struct nt_state *observed, struct nt_diags *d);
void nt_snapshot_write(const struct nt_facts *facts, const struct nt_state *observed,
		       struct nt_buf *out);
#endif
