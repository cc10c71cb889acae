/* SPDX-License-Identifier: MIT */
/* A batch of independent items over forked workers, results in input order. */
#ifndef NT_PARALLEL_H
#define NT_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>

#include "../compiler/buf.h"

/* Item i of a batch: its result bytes go to out. */
typedef void (*nt_par_fn)(size_t i, struct nt_buf *out, void *arg);

/*
 * Runs fn for items 0..n-1 over nw forked workers (worker w takes w,
 * w + nw, ...; what was loaded before the call is shared copy-on-write)
 * and returns item i's bytes in res[i] (zeroed before; res[i].p stays
 * NULL when its worker died).  With nw <= 1 the items run in this
 * process.  stdout and stderr are flushed before the fork.
 */
void nt_par_run(size_t n, size_t nw, nt_par_fn fn, void *arg, struct nt_buf *res);

/* Online CPUs, at least 1. */
size_t nt_par_cpus(void);

#endif
