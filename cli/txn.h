/* SPDX-License-Identifier: MIT */
/* Journal targets and the recovery check run before every command. */
#ifndef NT_CLI_TXN_H
#define NT_CLI_TXN_H

#include <stdbool.h>
#include <stddef.h>

#include "../appliers/linux/journal.h"

/*
 * Enters the journal's target: its --root and network namespace (by name,
 * checked against the recorded inode: a namespace deleted and created again
 * is refused), on the host whose machine-id it recorded.  entered_netns:
 * this process already entered --netns.  0, or -1 with the reason in err.
 */
int nt_txn_enter_target(const struct nt_journal *j, bool entered_netns, char *err,
			size_t errlen);

/*
 * Whether the journal's target is gone: its --root removed, or its named
 * network namespace deleted or deleted and created again (checked by
 * inode, and as root by cookie).  A namespace entered without a name
 * cannot be looked up, and is not reported gone.  why says which.
 */
bool nt_txn_target_gone(const struct nt_journal *j, char *why, size_t n);

/*
 * Before every command: an open journal whose process is gone is reported
 * (applying: the host may be half-applied), and one whose confirm deadline
 * has passed is reverted first (as root; its target is entered in a child).
 */
void nt_txn_preflight(const char *cmd);

#endif
