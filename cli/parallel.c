/* SPDX-License-Identifier: MIT */
/* Forked workers for batches (validate, compile): one pipe each, records in input order. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "parallel.h"

/* what a worker writes per item: this, then len bytes */
struct rec {
	uint64_t idx;
	uint64_t len;
};

size_t nt_par_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (size_t)n : 1;
}

/* Items are claimed this many at a time from a counter shared by the
 * workers, so that a worker whose CPU is busy with something else takes
 * fewer of them (a fixed split waits for the slowest worker). */
#define CLAIM 8

/* Forked workers that share out items themselves: nt_par_counter() before
 * the fork (NULL when it cannot be mapped: then worker w of nw takes w,
 * w + nw, ...), and in each worker nt_par_next() until it returns n or
 * more.  nt_par_counter_free() after the workers. */
struct nt_par_claim {
	size_t *shared;		/* from nt_par_counter() */
	size_t i, left;
	size_t w, nw;		/* this worker, of nw */
	bool started;
};

static size_t *nt_par_counter(void)
{
	size_t *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			 -1, 0);

	if (c == MAP_FAILED)
		return NULL;
	*c = 0;
	return c;
}

static void nt_par_counter_free(size_t *c)
{
	if (c)
		munmap(c, sizeof(*c));
}

static size_t nt_par_next(struct nt_par_claim *c)
{
	if (!c->shared) {
		c->i = c->started ? c->i + c->nw : c->w;
	} else if (c->started && c->left) {
		c->left--;
		c->i++;
	} else {
		c->left = CLAIM - 1;
		c->i = __atomic_fetch_add(c->shared, CLAIM, __ATOMIC_RELAXED);
	}
	c->started = true;
	return c->i;
}

static void worker(size_t n, size_t w, size_t nw, nt_par_fn fn, void *arg, int fd,
		   size_t *shared, bool each)
{
	struct nt_buf out = {0}, batch = {0};
	struct nt_par_claim c = {shared, 0, 0, w, nw, false};
	/* a few pipe buffers at a time: fewer writes, and the parent still
	 * sees progress; each record at once when the parent shows it */
	size_t flush_at = each ? 1 : 32768;
	size_t i;

	for (i = nt_par_next(&c); i < n; i = nt_par_next(&c)) {
		struct rec r;

		out.n = 0;
		fn(i, &out, arg);
		r.idx = i;
		r.len = out.n;
		nt_buf_putn(&batch, (const char *)&r, sizeof(r));
		nt_buf_putn(&batch, out.p ? out.p : "", out.n);
		if (batch.n >= flush_at && nt_write_all(fd, batch.p, batch.n))
			_exit(1);
		if (batch.n >= flush_at)
			batch.n = 0;
	}
	if (batch.n && nt_write_all(fd, batch.p, batch.n))
		_exit(1);
	_exit(0);
}

/* The workers of a run, as the parent sees them. */
struct pool {
	size_t n, nw, done;
	struct pollfd *pf;
	struct nt_buf *in;		/* per worker: bytes not yet a whole record */
	pid_t *pids;
	size_t *shared;
};

/* Forks the workers; returns how many are reading. */
static size_t spawn(struct pool *P, nt_par_fn fn, void *arg, bool each)
{
	size_t k, i, open_fds = 0;

	fflush(stdout);
	fflush(stderr);
	for (k = 0; k < P->nw; k++) {
		int p[2];

		P->pf[k].fd = -1;
		if (pipe(p))
			continue;
		P->pids[k] = fork();
		if (P->pids[k] == 0) {
			close(p[0]);
			for (i = 0; i < k; i++)
				if (P->pf[i].fd >= 0)
					close(P->pf[i].fd);
			worker(P->n, k, P->nw, fn, arg, p[1], P->shared, each);
		}
		close(p[1]);
		if (P->pids[k] < 0) {
			close(p[0]);
			continue;
		}
		P->pf[k].fd = p[0];
		P->pf[k].events = POLLIN;
		open_fds++;
	}
	return open_fds;
}

/* The whole records in in, into res; the rest stays in in. */
static void take_records(struct pool *P, struct nt_buf *in, struct nt_buf *res)
{
	size_t off = 0;

	while (in->n - off >= sizeof(struct rec)) {
		struct rec rec;

		memcpy(&rec, in->p + off, sizeof(rec));
		if (in->n - off - sizeof(rec) < rec.len)
			break;
		if (rec.idx < P->n && !res[rec.idx].p) {
			nt_buf_putn(&res[rec.idx], in->p + off + sizeof(rec), (size_t)rec.len);
			P->done++;
		}
		off += sizeof(rec) + rec.len;
	}
	memmove(in->p, in->p + off, in->n - off);
	in->n -= off;
}

/* Reads the workers' pipes until every one is closed. */
static void gather(struct pool *P, size_t open_fds, struct nt_buf *res, void *arg,
		   const struct nt_par_opts *o)
{
	size_t k;

	while (open_fds) {
		if (poll(P->pf, P->nw, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (k = 0; k < P->nw; k++) {
			ssize_t r;

			if (P->pf[k].fd < 0 || !P->pf[k].revents)
				continue;
			nt_buf_grow(&P->in[k], 65536);
			r = read(P->pf[k].fd, P->in[k].p + P->in[k].n, 65536);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				close(P->pf[k].fd);
				P->pf[k].fd = -1;	/* poll() skips negative fds */
				open_fds--;
				continue;
			}
			P->in[k].n += (size_t)r;
			take_records(P, &P->in[k], res);
		}
		if (o && o->progress)
			o->progress(res, P->n, P->done, arg);
	}
}

void nt_par_run_with(size_t n, size_t nw, nt_par_fn fn, void *arg, struct nt_buf *res,
		     const struct nt_par_opts *o)
{
	struct pool P = {n, nw > n ? n : nw, 0, NULL, NULL, NULL, NULL};
	size_t k, i;

	memset(res, 0, n * sizeof(*res));
	if (P.nw == 0 || (P.nw == 1 && !(o && o->fork_one))) {
		for (i = 0; i < n; i++) {
			fn(i, &res[i], arg);
			if (!res[i].p)
				nt_buf_putn(&res[i], "", 0);
		}
		return;
	}
	P.pf = nt_xcalloc(P.nw, sizeof(*P.pf));
	P.in = nt_xcalloc(P.nw, sizeof(*P.in));
	P.pids = nt_xcalloc(P.nw, sizeof(*P.pids));
	P.shared = nt_par_counter();
	gather(&P, spawn(&P, fn, arg, o && o->progress), res, arg, o);
	for (k = 0; k < P.nw; k++) {
		if (P.pids[k] > 0)
			waitpid(P.pids[k], NULL, 0);
		nt_buf_free(&P.in[k]);
	}
	nt_par_counter_free(P.shared);
	free(P.pf);
	free(P.in);
	free(P.pids);
}

void nt_par_run(size_t n, size_t nw, nt_par_fn fn, void *arg, struct nt_buf *res)
{
	nt_par_run_with(n, nw, fn, arg, res, NULL);
}
