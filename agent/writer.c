/* SPDX-License-Identifier: MIT */
/* The agent's disk writer thread (writer.h). */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../appliers/linux/journal.h"
#include "metrics.h"
#include "writer.h"

/* One batch of journals: their directory and ids. */
struct batch {
	int jfd;
	char **ids;
	size_t n;
};

static struct {
	pthread_t t;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool started, stop;
	struct batch *b;		/* journals handed, not yet synced */
	size_t nb;
	struct nt_buf metrics;		/* the latest text, not yet written */
	char *metrics_path;
	bool have_metrics;
	char failure[320];
} w = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static void failed(const char *what, int r)
{
	pthread_mutex_lock(&w.mu);
	snprintf(w.failure, sizeof(w.failure), "%s: %s", what, strerror(-r));
	pthread_mutex_unlock(&w.mu);
}

static void *run(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&w.mu);
	for (;;) {
		struct batch *b;
		size_t nb;
		struct nt_buf text = {0};
		char *path = NULL, err[256];
		int r;

		while (!w.stop && !w.nb && !w.have_metrics)
			pthread_cond_wait(&w.cv, &w.mu);
		if (!w.nb && !w.have_metrics)
			break;	/* stopped, and nothing is left */
		b = w.b;
		nb = w.nb;
		w.b = NULL;
		w.nb = 0;
		if (w.have_metrics) {
			text = w.metrics;
			path = w.metrics_path;
			memset(&w.metrics, 0, sizeof(w.metrics));
			w.metrics_path = NULL;
			w.have_metrics = false;
		}
		pthread_mutex_unlock(&w.mu);
		for (size_t i = 0; i < nb; i++) {
			r = nt_journal_sync_ids(b[i].jfd, b[i].ids, b[i].n);
			if (r)
				failed("cannot fsync the journals", r);
			close(b[i].jfd);
		}
		free(b);
		if (path) {
			r = nt_metrics_write_text(&text, path, err, sizeof(err));
			if (r) {
				pthread_mutex_lock(&w.mu);
				snprintf(w.failure, sizeof(w.failure), "metrics: %s", err);
				pthread_mutex_unlock(&w.mu);
			}
			nt_buf_free(&text);
			free(path);
		}
		pthread_mutex_lock(&w.mu);
	}
	pthread_mutex_unlock(&w.mu);
	return NULL;
}

int nt_writer_start(char *err, size_t errlen)
{
	int r = pthread_create(&w.t, NULL, run, NULL);

	if (r) {
		snprintf(err, errlen, "the disk writer thread: %s", strerror(r));
		return -r;
	}
	w.started = true;
	return 0;
}

void nt_writer_stop(void)
{
	if (!w.started)
		return;
	pthread_mutex_lock(&w.mu);
	w.stop = true;
	pthread_cond_signal(&w.cv);
	pthread_mutex_unlock(&w.mu);
	pthread_join(w.t, NULL);
	w.started = false;
}

void nt_writer_journals(int jfd, char **ids, size_t n)
{
	if (!w.started) {
		/* no thread (it did not start): here and now */
		int r = nt_journal_sync_ids(jfd, ids, n);

		if (r)
			failed("cannot fsync the journals", r);
		close(jfd);
		return;
	}
	pthread_mutex_lock(&w.mu);
	w.b = nt_xrealloc(w.b, (w.nb + 1) * sizeof(*w.b));
	w.b[w.nb++] = (struct batch){jfd, ids, n};
	pthread_cond_signal(&w.cv);
	pthread_mutex_unlock(&w.mu);
}

void nt_writer_metrics(struct nt_buf *text, const char *path)
{
	if (!w.started) {
		char err[256];

		if (nt_metrics_write_text(text, path, err, sizeof(err))) {
			pthread_mutex_lock(&w.mu);
			snprintf(w.failure, sizeof(w.failure), "metrics: %s", err);
			pthread_mutex_unlock(&w.mu);
		}
		nt_buf_free(text);
		return;
	}
	pthread_mutex_lock(&w.mu);
	nt_buf_free(&w.metrics);
	free(w.metrics_path);
	w.metrics = *text;
	w.metrics_path = nt_xstrdup(path);
	w.have_metrics = true;
	memset(text, 0, sizeof(*text));
	pthread_cond_signal(&w.cv);
	pthread_mutex_unlock(&w.mu);
}

void nt_writer_failure(char *out, size_t n)
{
	pthread_mutex_lock(&w.mu);
	snprintf(out, n, "%s", w.failure);
	w.failure[0] = '\0';
	pthread_mutex_unlock(&w.mu);
}
