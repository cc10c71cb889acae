/* SPDX-License-Identifier: MIT */
/* The CLI's door to the applier's transactions (appliers/linux/txn.h). */
#ifndef NT_CLI_TXN_H
#define NT_CLI_TXN_H

#include "../appliers/linux/txn.h"

/*
 * Before every command: an open journal whose process is gone is reported
 * (applying: the host may be half-applied), and one whose confirm deadline
 * has passed is reverted first (as root; its target is entered in a child).
 * nt_txn_recover() where this command runs.
 */
void nt_txn_preflight(const char *cmd);

#endif
