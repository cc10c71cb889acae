/* SPDX-License-Identifier: MIT */
/* A batch of independent items over forked workers, results in input order. */
#ifndef NT_PARALLEL_H
#define NT_PARALLEL_H

#include <stdbool.h>
#include <stddef.h>

#include "../compiler/base/buf.h"

/* Item i of a batch: its result bytes go to out. */
typedef void (*nt_par_fn)(size_t i, struct nt_buf *out, void *arg);

/*
 * Runs fn for items 0..n-1 over nw forked workers (each claims the next
 * few unclaimed items from a shared counter; what was loaded before the
 * call is shared copy-on-write)
 * and returns item i's bytes in res[i] (zeroed before; res[i].p stays
 * NULL when its worker died).  With nw <= 1 the items run in this
 * process.  stdout and stderr are flushed before the fork.
 */
void nt_par_run(size_t n, size_t nw, nt_par_fn fn, void *arg, struct nt_buf *res);

/* nt_par_run() for a batch that shows its progress (compile). */
struct nt_par_opts {
	bool fork_one;		/* a worker process even when nw is 1 */
	/* in the parent, after each read from a worker: res[i].p is set for
	 * every item whose record arrived, done of them of n; workers then
	 * write each record as soon as it is made */
	void (*progress)(const struct nt_buf *res, size_t n, size_t done, void *arg);
};

void nt_par_run_with(size_t n, size_t nw, nt_par_fn fn, void *arg, struct nt_buf *res,
		     const struct nt_par_opts *o);

/* Online CPUs, at least 1. */
size_t nt_par_cpus(void);

#endif
