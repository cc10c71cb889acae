/* SPDX-License-Identifier: MIT */
/*
 * The agent's control socket: STATE/agent.sock (agent@NETNS.sock for a
 * named network namespace), AF_UNIX SOCK_SEQPACKET, mode 0600 in the
 * root-only state directory, and each peer checked by SO_PEERCRED (root
 * or the agent's own user).  One request per connection, one answer:
 *
 *   "status" | "status json" | "hold" | "hold SECONDS" | "resume"
 *
 * answered "ok\n" then the text, or "error: WHY\n".
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../appliers/linux/journal.h"
#include "../appliers/linux/statedir.h"
#include "../compiler/base/jsonw.h"
#include "agent_int.h"
#include "metrics.h"

#define NT_CTL_MAX (1 << 16)
/* conflicts listed by status (all are counted): the answer stays far
 * below NT_CTL_MAX however many settings another manager fights over */
#define NT_CTL_CONFLICTS 100
#define NT_XSTR(x) #x
#define NT_STR(x) NT_XSTR(x)

void nt_agent_socket_path(const char *netns, char *out, size_t n)
{
	if (netns)
		snprintf(out, n, "%s/agent@%s.sock", nt_state_dir(), netns);
	else
		snprintf(out, n, "%s/agent.sock", nt_state_dir());
}

static int sock_addr(const char *path, struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memcpy(sa->sun_path, path, strlen(path));
	return 0;
}

/* Client ------------------------------------------------------------------ */

int nt_agent_request(const char *netns, const char *request, struct nt_buf *reply, char *err,
		     size_t errlen)
{
	char path[512], *buf;
	struct sockaddr_un sa;
	struct pollfd p;
	ssize_t got;
	int fd;

	nt_agent_socket_path(netns, path, sizeof(path));
	if (sock_addr(path, &sa)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (errno == EACCES || errno == EPERM)
			snprintf(err, errlen, "only root may talk to the agent (%s: %s)", path,
				 strerror(errno));
		else
			snprintf(err, errlen, "no agent is running%s%s (%s: %s)", netns ?
				 " for network namespace " : "", netns ? netns : "", path,
				 strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (send(fd, request, strlen(request), MSG_NOSIGNAL) < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	p = (struct pollfd){fd, POLLIN, 0};
	/* the agent answers between corrections: a correction waits at most
	 * for the apply lock (5 s) and its netlink requests */
	if (poll(&p, 1, 30000) <= 0) {
		snprintf(err, errlen, "the agent did not answer within 30 s (%s)", path);
		close(fd);
		return -1;
	}
	buf = nt_xmalloc(NT_CTL_MAX + 1);
	got = recv(fd, buf, NT_CTL_MAX, 0);
	close(fd);
	if (got <= 0) {
		snprintf(err, errlen, "the agent closed the connection without an answer (%s)", path);
		free(buf);
		return -1;
	}
	buf[got] = 0;
	if (!strncmp(buf, "ok\n", 3)) {
		nt_buf_puts(reply, buf + 3);
		free(buf);
		return 0;
	}
	nt_buf_puts(reply, !strncmp(buf, "error: ", 7) ? buf + 7 : buf);
	free(buf);
	return 1;
}

/* Server ------------------------------------------------------------------ */

int nt_agent_ctl_open(struct nt_agent *a, char *err, size_t errlen)
{
	struct sockaddr_un sa;
	char e2[256];
	int state_fd = -1, jfd, fd, c;
	struct stat st;
	mode_t old;

	/* the state directory made and checked as apply does (root's, 0700) */
	jfd = nt_statedir_open(true, &state_fd, e2, sizeof(e2));
	if (jfd < 0) {
		snprintf(err, errlen, "state directory: %s", e2);
		return -1;
	}
	close(jfd);
	close(state_fd);
	nt_agent_socket_path(a->cfg->base.netns, a->ctl_path, sizeof(a->ctl_path));
	if (sock_addr(a->ctl_path, &sa)) {
		snprintf(err, errlen, "%s: path too long", a->ctl_path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		snprintf(err, errlen, "control socket: %s", strerror(errno));
		return -1;
	}
	/* an agent answers (or its backlog is full: EAGAIN); only a socket
	 * nobody listens on (ECONNREFUSED) or none (ENOENT) is stale */
	c = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ? errno : 0;
	close(fd);
	if (!c || c == EAGAIN) {
		snprintf(err, errlen, "another agent is running on %s ('nettune agent status')%s",
			 a->ctl_path, c ? ": its socket is busy" : "");
		return -1;
	}
	if (c != ECONNREFUSED && c != ENOENT) {
		snprintf(err, errlen, "control socket %s: %s", a->ctl_path, strerror(c));
		return -1;
	}
	/* a socket file nobody answers on is left by an agent that was killed;
	 * anything else there is not the agent's to remove */
	if (!lstat(a->ctl_path, &st) && !S_ISSOCK(st.st_mode) && !S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "control socket %s: something else is there (%s); it is "
			 "not removed", a->ctl_path, S_ISDIR(st.st_mode) ? "a directory" :
			 S_ISREG(st.st_mode) ? "a regular file" : "not a socket");
		return -1;
	}
	unlink(a->ctl_path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	old = umask(0177);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 16)) {
		umask(old);
		snprintf(err, errlen, "control socket %s: %s", a->ctl_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	umask(old);
	chmod(a->ctl_path, 0600);
	a->ctl_fd = fd;
	return 0;
}

void nt_agent_ctl_close(struct nt_agent *a)
{
	for (size_t i = 0; i < a->nctl_wait; i++)
		close(a->ctl_wait[i].fd);
	a->nctl_wait = 0;
	if (a->ctl_fd < 0)
		return;
	close(a->ctl_fd);
	unlink(a->ctl_path);
	a->ctl_fd = -1;
}

static void real_time(long long ns, char *out, size_t n)
{
	if (!ns)
		snprintf(out, n, "never");
	else
		nt_local_time(ns, out, n);
}

/* CLOCK_MONOTONIC ms in the future -> CLOCK_REALTIME ns */
static long long mono_to_real(long long ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec +
	       (ms - nt_agent_mono_ms()) * 1000000LL;
}

static void status_text(struct nt_agent *a, struct nt_buf *o)
{
	char when[64];
	size_t nc = nt_agent_conflicts(a);

	nt_buf_printf(o, "nettune agent: pid %d, profile %s, mode %s%s%s\n", (int)getpid(),
		      a->profile_shown, a->cfg->report_only ? "report" : "correct",
		      a->cfg->base.netns ? ", network namespace " : "",
		      a->cfg->base.netns ? a->cfg->base.netns : "");
	nt_buf_printf(o, "state:        %s", nt_agent_state(a));
	if (a->outstanding)
		nt_buf_printf(o, " (%zu setting%s not as the profile says)", a->outstanding,
			      a->outstanding == 1 ? "" : "s");
	nt_buf_puts(o, "\n");
	if (a->nunplanned) {
		size_t n = 0;

		nt_buf_puts(o, "not planned:  ");
		for (size_t i = 0; i < a->nunplanned; i++)
			if (a->unplanned[i].iface)
				nt_buf_printf(o, "%s%s", n++ ? ", " : "", a->unplanned[i].iface);
		if (nt_agent_unplanned_all(a))
			nt_buf_printf(o, "%sthe profile's host-wide settings", n ? "; " : "");
		nt_buf_printf(o, " (not corrected: %s)\n", nt_agent_plan_error(a));
	}
	if (a->hold_until_ms == LLONG_MAX) {
		nt_buf_puts(o, "held:         yes, until 'nettune agent resume'\n");
	} else if (a->hold_until_ms) {
		real_time(mono_to_real(a->hold_until_ms), when, sizeof(when));
		nt_buf_printf(o, "held:         yes, until %s\n", when);
	} else {
		nt_buf_puts(o, "held:         no\n");
	}
	if (*a->blocked)
		nt_buf_printf(o, "waiting:      %s\n", a->blocked);
	real_time(a->last_check_real_ns, when, sizeof(when));
	nt_buf_printf(o, "last check:   %s (%.1f ms), every %lld", when,
		      (double)a->last_check_dur_ns / 1e6, a->cfg->interval_ms / 1000);
	if (a->cfg->interval_ms % 1000)	/* --interval 1500ms: not rounded */
		nt_buf_printf(o, ".%03lld", a->cfg->interval_ms % 1000);
	nt_buf_puts(o, " s\n");
	nt_buf_printf(o, "corrections:  %llu (%llu failed), %llu events, %llu checks\n",
		      a->corrections, a->failures, a->events, a->checks);
	nt_buf_printf(o, "conflicts:    %zu%s\n", nc, nc > NT_CTL_CONFLICTS ?
		      " (the first " NT_STR(NT_CTL_CONFLICTS) " below)" : "");
	for (size_t i = 0, shown = 0; i < a->ntr && shown < NT_CTL_CONFLICTS; i++) {
		const struct nt_tracked *t = &a->tr[i];
		size_t k = strcspn(t->key, "\t");

		if (!t->backoff_until_ms)
			continue;
		shown++;
		real_time(mono_to_real(t->backoff_until_ms), when, sizeof(when));
		nt_buf_printf(o, "  %.*s %s: undone more than %u times in %lld s; not corrected "
			      "until %s\n", (int)k, t->key, t->key + k + 1, a->cfg->damp_n,
			      a->cfg->damp_window_ms / 1000, when);
	}
	if (a->nrecent)
		nt_buf_puts(o, "last corrections (newest first):\n");
	for (size_t i = a->nrecent; i-- > 0;) {
		const struct nt_recent *r = &a->recent[(a->recent_head + i) % NT_AGENT_RECENT];

		real_time(r->at_ns, when, sizeof(when));
		nt_buf_printf(o, "  %s  %s %s: %s -> %s (%s) %.2f ms, journal %s\n", when, r->object,
			      r->attr, r->from, r->to, r->cause, r->latency_ms, r->journal);
	}
}

static void json_time(struct nt_jw *w, const char *key, long long ns)
{
	char t[64];

	if (!ns) {
		nt_jw_null(w, key);
		return;
	}
	nt_time_utc(ns, t, sizeof(t));
	nt_jw_str(w, key, t);
}

static void status_json(struct nt_agent *a, struct nt_buf *o)
{
	struct nt_jw w;

	nt_jw_init(&w, o, 1);
	nt_jw_obj(&w, NULL, NT_JW_LINES);
	nt_jw_int(&w, "pid", getpid());
	nt_jw_str(&w, "profile", a->cfg->base.profile);
	nt_jw_str(&w, "mode", a->cfg->report_only ? "report" : "correct");
	nt_jw_str(&w, "netns", a->cfg->base.netns);
	nt_jw_bool(&w, "converged", nt_agent_converged(a));
	nt_jw_int(&w, "drifted", (long long)a->outstanding);
	/* what could not be planned: interfaces, and the host-wide settings */
	nt_jw_arr(&w, "not_planned", NT_JW_LINES_OR_EMPTY);
	for (size_t i = 0; i < a->nunplanned; i++)
		if (a->unplanned[i].iface)
			nt_jw_str(&w, NULL, a->unplanned[i].iface);
	nt_jw_end(&w);
	nt_jw_bool(&w, "host_settings_planned", !nt_agent_unplanned_all(a));
	nt_jw_str(&w, "plan_error", nt_agent_plan_error(a));
	nt_jw_bool(&w, "held", a->hold_until_ms != 0);
	if (a->hold_until_ms && a->hold_until_ms != LLONG_MAX)
		json_time(&w, "held_until", mono_to_real(a->hold_until_ms));
	else
		nt_jw_null(&w, "held_until");
	nt_jw_str(&w, "waiting", *a->blocked ? a->blocked : NULL);
	json_time(&w, "last_check", a->last_check_real_ns);
	nt_jw_fixed(&w, "last_check_ms", (double)a->last_check_dur_ns / 1e6, 3);
	if (a->cfg->interval_ms % 1000)	/* --interval 1500ms: not rounded */
		nt_jw_fixed(&w, "interval_s", (double)a->cfg->interval_ms / 1000, 3);
	else
		nt_jw_int(&w, "interval_s", a->cfg->interval_ms / 1000);
	nt_jw_uint(&w, "corrections", a->corrections);
	nt_jw_uint(&w, "failures", a->failures);
	nt_jw_uint(&w, "events", a->events);
	nt_jw_uint(&w, "checks", a->checks);
	nt_jw_arr(&w, "conflicts", NT_JW_LINES_OR_EMPTY);
	for (size_t i = 0, shown = 0; i < a->ntr && shown < NT_CTL_CONFLICTS; i++) {
		const struct nt_tracked *t = &a->tr[i];
		size_t k = strcspn(t->key, "\t");
		char obj[256];

		if (!t->backoff_until_ms)
			continue;
		shown++;
		snprintf(obj, sizeof(obj), "%.*s", (int)k, t->key);
		nt_jw_obj(&w, NULL, NT_JW_INLINE);
		nt_jw_str(&w, "object", obj);
		nt_jw_str(&w, "setting", t->key + k + 1);
		nt_jw_uint(&w, "times", t->conflicts);
		json_time(&w, "until", mono_to_real(t->backoff_until_ms));
		nt_jw_end(&w);
	}
	nt_jw_end(&w);
	nt_jw_uint(&w, "conflicts_total", nt_agent_conflicts(a));
	nt_jw_arr(&w, "last_corrections", NT_JW_LINES_OR_EMPTY);
	for (size_t i = a->nrecent; i-- > 0;) {
		const struct nt_recent *r = &a->recent[(a->recent_head + i) % NT_AGENT_RECENT];

		nt_jw_obj(&w, NULL, NT_JW_INLINE);
		json_time(&w, "at", r->at_ns);
		nt_jw_str(&w, "object", r->object);
		nt_jw_str(&w, "setting", r->attr);
		nt_jw_str(&w, "from", r->from);
		nt_jw_str(&w, "to", r->to);
		nt_jw_str(&w, "cause", r->cause);
		nt_jw_fixed(&w, "latency_ms", r->latency_ms, 3);
		nt_jw_str(&w, "journal", r->journal);
		nt_jw_end(&w);
	}
	nt_jw_end(&w);
	nt_jw_end(&w);
	nt_buf_puts(o, "\n");
}

static void answer(struct nt_agent *a, const char *req, struct nt_buf *o)
{
	char *end;
	long long s;

	if (!strcmp(req, "status")) {
		nt_buf_puts(o, "ok\n");
		status_text(a, o);
	} else if (!strcmp(req, "status json")) {
		nt_buf_puts(o, "ok\n");
		status_json(a, o);
	} else if (!strcmp(req, "hold") || !strncmp(req, "hold ", 5)) {
		s = req[4] ? strtoll(req + 5, &end, 10) : 0;
		if (req[4] && (*end || s <= 0 || s > 400LL * 86400)) {
			nt_buf_puts(o, "error: hold takes 1 s to 400 days\n");
			return;
		}
		a->hold_until_ms = s ? nt_agent_mono_ms() + s * 1000 : LLONG_MAX;
		nt_metrics_held(a->m, true);
		a->metrics_dirty = true;
		if (s)
			nt_agent_log(a, NT_LOG_NOTICE, "held for %lld s: drift is reported, not "
				     "corrected", s);
		else
			nt_agent_log(a, NT_LOG_NOTICE, "held until 'nettune agent resume': drift is "
				     "reported, not corrected");
		if (s)
			nt_buf_printf(o, "ok\nheld for %lld s (until 'nettune agent resume' ends it "
				      "sooner)\n", s);
		else
			nt_buf_puts(o, "ok\nheld until 'nettune agent resume'\n");
	} else if (!strcmp(req, "resume")) {
		bool was = a->hold_until_ms != 0;

		a->hold_until_ms = 0;
		nt_metrics_held(a->m, false);
		a->metrics_dirty = true;
		if (was) {
			nt_agent_log(a, NT_LOG_NOTICE, "resumed: checking every setting");
			nt_agent_mark_all(a, "resume", "resumed after a hold",
					  nt_agent_mono_ns());
		}
		nt_buf_puts(o, was ? "ok\nresumed: checking every setting now\n" :
			    "ok\nnot held: nothing to resume\n");
	} else {
		nt_buf_puts(o, "error: unknown request\n");
	}
}

/* The peer is root or the agent's own user. */
static bool peer_allowed(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return false;
	return cr.uid == 0 || cr.uid == geteuid();
}

/* A connection's request, answered: true when the connection is done
 * with (answered, or closed or failed by the client), false when its
 * request has not come yet. */
static bool try_answer(struct nt_agent *a, int fd)
{
	struct nt_buf out = {0};
	char req[128];
	ssize_t got = recv(fd, req, sizeof(req) - 1, MSG_DONTWAIT);

	if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return false;
	if (got > 0) {
		req[got] = 0;
		if (peer_allowed(fd))
			answer(a, req, &out);
		else
			nt_buf_puts(&out, "error: only root may talk to the agent\n");
		if (out.n > NT_CTL_MAX) {	/* never cut: an error instead */
			out.n = 0;
			nt_buf_puts(&out, "error: the answer is longer than 64 KiB\n");
		}
		send(fd, out.p, out.n, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	nt_buf_free(&out);
	close(fd);
	return true;
}

/*
 * The loop never waits for a client: a connection whose request has not
 * come is kept (at most NT_AGENT_CTL_WAITING of them, each for
 * NT_CTL_REQUEST_MS) and polled with the loop's other descriptors.  While
 * that many wait, no more are accepted (the listening socket's backlog
 * holds them), so clients that connect and say nothing cannot keep the
 * loop from its events, signals, timers and watchdog.
 */
#define NT_CTL_REQUEST_MS 2000

void nt_agent_ctl_serve(struct nt_agent *a)
{
	while (a->nctl_wait < NT_AGENT_CTL_WAITING) {
		int fd = accept4(a->ctl_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd < 0)
			return;
		if (!try_answer(a, fd)) {
			a->ctl_wait[a->nctl_wait].fd = fd;
			a->ctl_wait[a->nctl_wait++].until_ms = nt_agent_mono_ms() + NT_CTL_REQUEST_MS;
		}
	}
}

size_t nt_agent_ctl_pollfds(const struct nt_agent *a, struct pollfd *p)
{
	for (size_t i = 0; i < a->nctl_wait; i++)
		p[i] = (struct pollfd){a->ctl_wait[i].fd, POLLIN, 0};
	return a->nctl_wait;
}

void nt_agent_ctl_serve_waiting(struct nt_agent *a, const struct pollfd *p, size_t n)
{
	long long now = nt_agent_mono_ms();
	size_t k = 0;

	for (size_t i = 0; i < a->nctl_wait; i++) {
		bool done;

		if (i < n && p[i].revents)
			done = try_answer(a, a->ctl_wait[i].fd);
		else if ((done = now >= a->ctl_wait[i].until_ms))
			close(a->ctl_wait[i].fd);	/* said nothing in time */
		if (!done)
			a->ctl_wait[k++] = a->ctl_wait[i];
	}
	a->nctl_wait = k;
}

long long nt_agent_ctl_next_ms(const struct nt_agent *a)
{
	long long next = 0;

	for (size_t i = 0; i < a->nctl_wait; i++)
		if (!next || a->ctl_wait[i].until_ms < next)
			next = a->ctl_wait[i].until_ms;
	return next;
}
