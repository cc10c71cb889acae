/* SPDX-License-Identifier: MIT */
/* Forked workers for batches (validate): one pipe each, records in input order. */
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

size_t *nt_par_counter(void)
{
	size_t *c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			 -1, 0);

	if (c == MAP_FAILED)
		return NULL;
	*c = 0;
	return c;
}

void nt_par_counter_free(size_t *c)
{
	if (c)
		munmap(c, sizeof(*c));
}

size_t nt_par_next(struct nt_par_claim *c)
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
		   size_t *shared)
{
	struct nt_buf out = {0}, batch = {0};
	struct nt_par_claim c = {shared, 0, 0, w, nw, false};
	size_t i;

	for (i = nt_par_next(&c); i < n; i = nt_par_next(&c)) {
		struct rec r;

		out.n = 0;
		fn(i, &out, arg);
		r.idx = i;
		r.len = out.n;
		nt_buf_putn(&batch, (const char *)&r, sizeof(r));
		nt_buf_putn(&batch, out.p ? out.p : "", out.n);
		/* a few pipe buffers at a time: fewer writes, and the parent
		 * still sees progress */
		if (batch.n >= 32768 && nt_write_all(fd, batch.p, batch.n))
			_exit(1);
		if (batch.n >= 32768)
			batch.n = 0;
	}
	if (batch.n && nt_write_all(fd, batch.p, batch.n))
		_exit(1);
	_exit(0);
}

void nt_par_run(size_t n, size_t nw, nt_par_fn fn, void *arg, struct nt_buf *res)
{
	struct pollfd *pf;
	struct nt_buf *in;
	pid_t *pids;
	size_t k, i, open_fds = 0, *shared;

	memset(res, 0, n * sizeof(*res));
	if (nw > n)
		nw = n;
	if (nw <= 1) {
		for (i = 0; i < n; i++) {
			fn(i, &res[i], arg);
			if (!res[i].p)
				nt_buf_putn(&res[i], "", 0);
		}
		return;
	}
	pf = nt_xcalloc(nw, sizeof(*pf));
	in = nt_xcalloc(nw, sizeof(*in));
	pids = nt_xcalloc(nw, sizeof(*pids));
	shared = nt_par_counter();
	fflush(stdout);
	fflush(stderr);
	for (k = 0; k < nw; k++) {
		int p[2];

		pf[k].fd = -1;
		if (pipe(p))
			continue;
		pids[k] = fork();
		if (pids[k] == 0) {
			close(p[0]);
			for (i = 0; i < k; i++)
				if (pf[i].fd >= 0)
					close(pf[i].fd);
			worker(n, k, nw, fn, arg, p[1], shared);
		}
		close(p[1]);
		if (pids[k] < 0) {
			close(p[0]);
			continue;
		}
		pf[k].fd = p[0];
		pf[k].events = POLLIN;
		open_fds++;
	}
	while (open_fds) {
		if (poll(pf, nw, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (k = 0; k < nw; k++) {
			size_t off = 0;
			ssize_t r;

			if (pf[k].fd < 0 || !pf[k].revents)
				continue;
			nt_buf_grow(&in[k], 65536);
			r = read(pf[k].fd, in[k].p + in[k].n, 65536);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				close(pf[k].fd);
				pf[k].fd = -1;	/* poll() skips negative fds */
				open_fds--;
				continue;
			}
			in[k].n += (size_t)r;
			while (in[k].n - off >= sizeof(struct rec)) {
				struct rec rec;

				memcpy(&rec, in[k].p + off, sizeof(rec));
				if (in[k].n - off - sizeof(rec) < rec.len)
					break;
				if (rec.idx < n && !res[rec.idx].p)
					nt_buf_putn(&res[rec.idx], in[k].p + off + sizeof(rec),
						    (size_t)rec.len);
				off += sizeof(rec) + rec.len;
			}
			memmove(in[k].p, in[k].p + off, in[k].n - off);
			in[k].n -= off;
		}
	}
	for (k = 0; k < nw; k++) {
		if (pids[k] > 0)
			waitpid(pids[k], NULL, 0);
		nt_buf_free(&in[k]);
	}
	nt_par_counter_free(shared);
	free(pf);
	free(in);
	free(pids);
}
