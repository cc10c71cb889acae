/* SPDX-License-Identifier: MIT */
/* nettune show: a plan manifest or an apply journal, told apart by content. */
#ifndef NT_CLI_SHOW_H
#define NT_CLI_SHOW_H

#include <stdbool.h>

/* Prints one apply journal (an ID or its path in the state directory). */
int nt_show_journal(const char *arg, bool json);

#endif
