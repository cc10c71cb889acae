/* SPDX-License-Identifier: MIT */
/*
 * nettune agent: the loop.  Events mark interfaces dirty; each dirty
 * interface is planned (the pipeline, --only IFACE) and what drifted is
 * applied as one transaction (txn.h), minus the settings that are held,
 * damped or only reported.  The periodic check plans the whole profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../appliers/linux/journal.h"
#include "../appliers/linux/statedir.h"
#include "../appliers/linux/txn.h"
#include "../pipeline/netns.h"
#include "agent_int.h"
#include "events.h"
#include "metrics.h"
#include "notify.h"
#include "writer.h"

/* more dirty interfaces than this at once: one full check instead */
#define NT_AGENT_BURST 8
/* the metrics file is rewritten at most this often */
#define NT_AGENT_METRICS_MS 1000

long long nt_agent_mono_ms(void)
{
	return nt_agent_mono_ns() / 1000000;
}

void nt_agent_log(const struct nt_agent *a, int prio, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	if (prio >= NT_LOG_DEBUG && !a->cfg->debug)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* journald reads "<N>" as the priority of the line (sd-daemon(3)) */
	if (a->journald)
		fprintf(stderr, "<%d>%s\n", prio, line);
	else
		fprintf(stderr, "nettune agent: %s\n", line);
	fflush(stderr);
}

/* Profile ---------------------------------------------------------------- */

/* The whole file (at most max bytes); 0 or -1 with errno. */
static int read_all(const char *path, size_t max, struct nt_buf *out)
{
	FILE *f = fopen(path, "re");
	char chunk[8192];
	size_t n;

	if (!f)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		if (out->n + n > max) {
			fclose(f);
			errno = EFBIG;
			return -1;
		}
		nt_buf_putn(out, chunk, n);
	}
	n = ferror(f);
	fclose(f);
	if (n)
		errno = EIO;
	return n ? -1 : 0;
}

/* The profile read and validated (no host needed); its interface names
 * kept.  0, or -1 after printing the located errors. */
static int load_profile(struct nt_agent *a, struct nt_buf *bytes, struct nt_loaded *loaded,
			char ***names, size_t *n, bool *match)
{
	struct nt_pipeline_req rq = a->cfg->base;
	struct nt_diags d = {0};
	struct nt_compiled c;
	int r;

	memset(bytes, 0, sizeof(*bytes));
	if (read_all(rq.profile, 1 << 24, bytes)) {
		nt_agent_log(a, NT_LOG_ERR, "cannot read %s: %s", rq.profile, strerror(errno));
		return -1;
	}
	rq.data = bytes->p ? bytes->p : "";
	rq.len = bytes->n;
	rq.source = NT_STATE_NONE;
	r = nt_pipeline_run(&rq, &c, &d);
	nt_diags_sort(&d);
	nt_diags_print_text(&d, stderr);
	if (r == NT_PIPE_NO_STATE && c.l.p->target && *c.l.p->target == NT_TARGET_WINDOWS) {
		nt_agent_log(a, NT_LOG_ERR, "%s targets windows: the agent keeps Linux hosts",
			     rq.profile);
		r = -1;
	}
	if (r == NT_PIPE_NO_STATE) {
		*names = nt_xcalloc(c.l.p->interfaces_count + 1, sizeof(char *));
		*n = 0;
		*match = false;
		for (unsigned i = 0; i < c.l.p->interfaces_count; i++) {
			const struct nt_iface *f = &c.l.p->interfaces[i];

			if (f->name)
				(*names)[(*n)++] = nt_xstrdup(f->name);
			*match |= f->match != NULL;
		}
		/* kept, loaded and validated, for every correction until the
		 * next reload */
		*loaded = c.l;
		c.l_borrowed = true;
		r = 0;
	} else {
		r = -1;
	}
	nt_diags_free(&d);
	nt_compiled_free(&c);
	if (r)
		nt_buf_free(bytes);
	return r;
}

static void free_names(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool named_in_profile(const struct nt_agent *a, const char *name)
{
	for (size_t i = 0; *name && i < a->nnames; i++)
		if (!strcmp(a->names[i], name))
			return true;
	return false;
}

static bool in_profile(const struct nt_agent *a, const char *name)
{
	if (!*name)
		return false;
	if (a->match)
		return true;	/* matched by driver or PCI address: any may be one */
	for (size_t i = 0; i < a->nnames; i++)
		if (!strcmp(a->names[i], name))
			return true;
	return false;
}

/* SIGHUP: the profile again; an invalid one leaves the old one in force. */
static void reload(struct nt_agent *a)
{
	struct nt_buf bytes;
	struct nt_loaded loaded;
	char **names;
	size_t n;
	bool match;

	nt_notify("RELOADING=1\nSTATUS=reloading the profile");
	if (load_profile(a, &bytes, &loaded, &names, &n, &match)) {
		nt_agent_log(a, NT_LOG_ERR, "reload refused: %s is not valid (errors above); the "
			     "previous profile stays in force", a->profile_shown);
		a->reload_failures++;
	} else {
		nt_buf_free(&a->profile);
		nt_loaded_free(&a->loaded);
		free_names(a->names, a->nnames);
		a->profile = bytes;
		a->loaded = loaded;
		a->names = names;
		a->nnames = n;
		a->match = match;
		a->reloads++;
		/* what the old profile left unplanned or drifted is for the new
		 * one's plan to say again (an interface it no longer names is
		 * neither) */
		nt_agent_forget_plan(a);
		nt_agent_log(a, NT_LOG_INFO, "reloaded %s", a->profile_shown);
		nt_agent_mark_all(a, "reload", "profile reloaded", nt_agent_mono_ns());
	}
	nt_notify("READY=1");
}

/* Dirty ------------------------------------------------------------------ */

void nt_agent_mark_all(struct nt_agent *a, const char *label, const char *cause, long long at_ns)
{
	if (!a->all_dirty || at_ns < a->all_at_ns) {
		a->all_at_ns = at_ns;
		snprintf(a->all_label, sizeof(a->all_label), "%s", label);
		snprintf(a->all_cause, sizeof(a->all_cause), "%s", cause);
	}
	a->all_dirty = true;
}

static void mark_iface(struct nt_agent *a, const char *name, const char *label, const char *cause,
		       long long at_ns)
{
	size_t i;

	for (i = 0; i < a->ndirty && strcmp(a->dirty[i].name, name); i++)
		;
	if (i == a->ndirty) {
		if (a->ndirty == NT_AGENT_MAX_DIRTY) {
			nt_agent_mark_all(a, label, "many interfaces changed at once", at_ns);
			return;
		}
		a->ndirty++;
		snprintf(a->dirty[i].name, sizeof(a->dirty[i].name), "%s", name);
		a->dirty[i].at_ns = at_ns;
	} else if (strcmp(label, "ethtool") || !strcmp(a->dirty[i].label, "ethtool")) {
		return;	/* the first cause stays, but an ethtool notification names
			 * the setting's family and wins over the link event that
			 * accompanies it */
	}
	snprintf(a->dirty[i].label, sizeof(a->dirty[i].label), "%s", label);
	snprintf(a->dirty[i].cause, sizeof(a->dirty[i].cause), "%s", cause);
}

/* A name the kernel gave, for a log line or a journal's cause: any
 * interface name is allowed there (not only the profile's), and a byte
 * outside printable ASCII is shown as \xHH. */
static const char *shown(const char *name, char *out, size_t n)
{
	size_t k = 0;

	for (const unsigned char *p = (const unsigned char *)name; *p && k + 5 < n; p++)
		k += (size_t)snprintf(out + k, n - k, *p > 0x20 && *p < 0x7f && *p != '\\' ?
				      "%c" : "\\x%02x", *p);
	out[k] = 0;
	return out;
}

static void on_event(const struct nt_event *e, void *ctx)
{
	struct nt_agent *a = ctx;
	char cause[160], old[IF_NAMESIZE * 4 + 1], now[IF_NAMESIZE * 4 + 1];

	a->events++;
	switch (e->type) {
	case NT_EV_OVERFLOW:
		nt_agent_log(a, NT_LOG_WARNING, "notifications were lost (receive queue full): "
			     "checking every interface");
		nt_agent_mark_all(a, "link", "notifications lost", e->at_ns);
		return;
	case NT_EV_LINK_GONE:
		/* a profile that matches by driver or PCI address may match any
		 * link: only one it names is said to be gone */
		if (named_in_profile(a, e->name))
			nt_agent_log(a, NT_LOG_INFO, "%s is gone; its settings are applied when it "
				     "appears again", e->name);
		return;
	case NT_EV_LINK:
		if (e->old_name[0] && in_profile(a, e->old_name))
			nt_agent_log(a, NT_LOG_INFO, "%s was renamed %s", e->old_name,
				     shown(e->name, now, sizeof(now)));
		if (!in_profile(a, e->name))
			return;
		if (e->old_name[0])
			snprintf(cause, sizeof(cause), "link renamed from %s to %s",
				 shown(e->old_name, old, sizeof(old)), e->name);
		else if (e->added)
			snprintf(cause, sizeof(cause), "link %s added", e->name);
		else if (e->change & IFF_UP)
			snprintf(cause, sizeof(cause), "link event on %s (%s)", e->name,
				 e->flags & IFF_UP ? "set up" : "set down");
		else
			snprintf(cause, sizeof(cause), "link event on %s", e->name);
		mark_iface(a, e->name, "link", cause, e->at_ns);
		return;
	case NT_EV_ETHTOOL:
		if (!in_profile(a, e->name))
			return;
		snprintf(cause, sizeof(cause), "ethtool notification (%s) on %s", e->what, e->name);
		mark_iface(a, e->name, "ethtool", cause, e->at_ns);
		return;
	}
}

/* Timers ----------------------------------------------------------------- */

bool nt_agent_held(struct nt_agent *a)
{
	if (a->hold_until_ms && a->hold_until_ms != LLONG_MAX &&
	    nt_agent_mono_ms() >= a->hold_until_ms) {
		a->hold_until_ms = 0;
		nt_agent_log(a, NT_LOG_NOTICE, "hold expired: corrections resume");
		nt_metrics_held(a->m, false);
		a->metrics_dirty = true;
		nt_agent_mark_all(a, "resume", "hold expired", nt_agent_mono_ns());
	}
	return a->hold_until_ms != 0;
}

/* The metrics text, made here and written by the disk writer: at most
 * once a second, when no event waits (idle), or (now) at start and stop;
 * under a stream of events at least every NT_AGENT_METRICS_STALE_MS. */
#define NT_AGENT_METRICS_STALE_MS 10000
static void write_metrics(struct nt_agent *a, bool now, bool idle)
{
	long long t = nt_agent_mono_ms();
	struct nt_buf b = {0};

	if (!a->cfg->metrics || !a->metrics_dirty ||
	    (!now && t - a->metrics_at_ms < NT_AGENT_METRICS_MS) ||
	    (!now && !idle && t - a->metrics_at_ms < NT_AGENT_METRICS_STALE_MS))
		return;
	nt_metrics_format(a->m, &b);
	nt_writer_metrics(&b, a->cfg->metrics);
	a->metrics_dirty = false;
	a->metrics_at_ms = t;
}

/* What the disk writer could not do, said by the loop. */
static void writer_failures(struct nt_agent *a)
{
	char why[320];

	nt_writer_failure(why, sizeof(why));
	if (*why)
		nt_agent_log(a, NT_LOG_WARNING, "%s", why);
}

static void notify_status(struct nt_agent *a)
{
	char held[64] = "";

	if (a->hold_until_ms)
		snprintf(held, sizeof(held), "; held");
	nt_notifyf("STATUS=%s; %llu correction%s, %zu conflict%s%s",
		   nt_agent_state(a), a->corrections,
		   a->corrections == 1 ? "" : "s", nt_agent_conflicts(a),
		   nt_agent_conflicts(a) == 1 ? "" : "s", held);
}

/* The poll timeout: the next periodic check, hold expiry, back-off end,
 * watchdog ping or metrics write, whichever comes first. */
static int next_timeout(struct nt_agent *a)
{
	long long now = nt_agent_mono_ms(), next = a->next_check_ms;

	if (a->hold_until_ms && a->hold_until_ms != LLONG_MAX && a->hold_until_ms < next)
		next = a->hold_until_ms;
	if (a->watchdog_ms && a->next_watchdog_ms < next)
		next = a->next_watchdog_ms;
	if (a->cfg->metrics && a->metrics_dirty && a->metrics_at_ms + NT_AGENT_METRICS_MS < next)
		next = a->metrics_at_ms + NT_AGENT_METRICS_MS;
	if (a->damp_next_ms && a->damp_next_ms < next)
		next = a->damp_next_ms;
	if (a->retry_ms && a->retry_ms < next)
		next = a->retry_ms;
	if (nt_agent_ctl_next_ms(a) && nt_agent_ctl_next_ms(a) < next)
		next = nt_agent_ctl_next_ms(a);
	if (a->all_dirty || a->ndirty)
		return 0;
	return next <= now ? 0 : next - now > INT_MAX ? INT_MAX : (int)(next - now);
}

/* The journals of the corrections, handed to the disk writer to be made
 * durable: a correction is not slowed by the disk (nt_journal_sync_later). */
static void sync_journals(struct nt_agent *a)
{
	char err[256], **ids;
	int state_fd = -1, jfd;
	size_t n;

	if (!nt_journal_unsynced())
		return;
	jfd = nt_statedir_open(false, &state_fd, err, sizeof(err));
	if (jfd < 0) {
		nt_agent_log(a, NT_LOG_WARNING, "cannot fsync the journals in %s/journal: %s",
			     nt_state_dir(), err);
		return;
	}
	close(state_fd);
	n = nt_journal_take_unsynced(&ids);
	nt_writer_journals(jfd, ids, n);
}

static void tick(struct nt_agent *a)
{
	long long now = nt_agent_mono_ms();

	if (a->watchdog_ms && now >= a->next_watchdog_ms) {
		nt_notify("WATCHDOG=1");
		a->next_watchdog_ms = now + a->watchdog_ms;
	}
	nt_agent_held(a);
	if (a->damp_next_ms && now >= a->damp_next_ms)
		nt_agent_damp_expire(a);
	if (a->retry_ms && now >= a->retry_ms) {
		a->retry_ms = 0;
		nt_agent_mark_all(a, "periodic", *a->retry_cause ? a->retry_cause :
				  "retry after a failed correction", nt_agent_mono_ns());
	}
	if (now >= a->next_check_ms) {
		nt_agent_mark_all(a, "periodic", "periodic check", nt_agent_mono_ns());
		a->next_check_ms = now + a->cfg->interval_ms;
	}
}

/* Work: what is dirty, converged. */
static void converge_dirty(struct nt_agent *a)
{
	if (a->all_dirty || a->ndirty > NT_AGENT_BURST) {
		struct nt_agent_why w = {0};

		w.at_ns = a->all_dirty ? a->all_at_ns : a->dirty[0].at_ns;
		snprintf(w.label, sizeof(w.label), "%s", a->all_dirty ? a->all_label : "link");
		if (a->all_dirty)
			snprintf(w.cause, sizeof(w.cause), "%s", a->all_cause);
		else
			snprintf(w.cause, sizeof(w.cause), "events on %zu interfaces", a->ndirty);
		a->all_dirty = false;
		a->ndirty = 0;
		nt_agent_converge(a, NULL, &w);
		return;
	}
	while (a->ndirty) {
		struct nt_agent_why w = {0};
		char name[IF_NAMESIZE];

		snprintf(name, sizeof(name), "%s", a->dirty[0].name);
		w.at_ns = a->dirty[0].at_ns;
		snprintf(w.label, sizeof(w.label), "%s", a->dirty[0].label);
		snprintf(w.cause, sizeof(w.cause), "%s", a->dirty[0].cause);
		a->dirty[0] = a->dirty[--a->ndirty];
		nt_agent_converge(a, name, &w);
	}
}

/* Start and the loop ------------------------------------------------------ */

static int block_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL))
		return -1;
	signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
}

/* 1: stop */
static int on_signals(struct nt_agent *a, int sfd)
{
	struct signalfd_siginfo si;
	int stop = 0;

	while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGHUP) {
			nt_agent_log(a, NT_LOG_INFO, "SIGHUP: reloading %s", a->profile_shown);
			reload(a);
		} else {
			nt_agent_log(a, NT_LOG_INFO, "signal %u: stopping", si.ssi_signo);
			stop = 1;
		}
	}
	return stop;
}

static int run_loop(struct nt_agent *a, int sfd)
{
	for (;;) {
		/* the listening socket only while a waiting connection has room */
		struct pollfd p[4 + NT_AGENT_CTL_WAITING] = {
			{nt_events_fd(a->ev, 0), POLLIN, 0}, {nt_events_fd(a->ev, 1), POLLIN, 0},
			{a->nctl_wait < NT_AGENT_CTL_WAITING ? a->ctl_fd : -1, POLLIN, 0},
			{sfd, POLLIN, 0},
		};
		size_t nw = nt_agent_ctl_pollfds(a, p + 4);
		int r = poll(p, 4 + (nfds_t)nw, next_timeout(a));

		if (r < 0 && errno != EINTR)
			return 1;
		if (p[3].revents && on_signals(a, sfd))
			return 0;
		if (p[0].revents || p[1].revents)
			nt_events_read(a->ev, on_event, a);
		nt_agent_ctl_serve_waiting(a, p + 4, r > 0 ? nw : 0);
		if (p[2].revents)
			nt_agent_ctl_serve(a);
		tick(a);
		converge_dirty(a);
		sync_journals(a);
		write_metrics(a, false, !r);
		writer_failures(a);
		notify_status(a);
	}
}

/* An apply a killed agent left open is undone before anything else. */
static void finish_killed(struct nt_agent *a)
{
	struct nt_journal *v = NULL;
	char err[256];
	int state_fd = -1, jfd = nt_statedir_open(false, &state_fd, err, sizeof(err));
	size_t n;

	if (jfd < 0)
		return;
	n = nt_journal_list(jfd, true, &v, NULL);
	close(jfd);
	close(state_fd);
	for (size_t i = 0; i < n; i++) {
		struct nt_rollback_req rq = {0};
		int rc;

		/* an agent's of this target only: another namespace's agent
		 * finishes its own */
		if (!v[i].command || strcmp(v[i].command, "agent") || nt_journal_owner_alive(&v[i]) ||
		    !!v[i].netns != !!a->cfg->base.netns ||
		    (v[i].netns && strcmp(v[i].netns, a->cfg->base.netns)))
			continue;
		nt_agent_log(a, NT_LOG_WARNING, "journal %s of an agent that was stopped mid-"
			     "correction (%s): rolling it back", v[i].id, nt_jstate_name(v[i].state));
		rq.journal = v[i].id;
		rq.where.netns = a->cfg->base.netns;
		rq.where.enter_netns = nt_enter_netns;
		rc = nt_txn_rollback(&rq);
		if (rc)
			nt_agent_log(a, NT_LOG_ERR, "rollback of %s: exit %d ('nettune show %s')",
				     v[i].id, rc, v[i].id);
	}
	nt_journal_list_free(v, n);
}

/* The metrics file's directory: made (0755) when only it is missing,
 * as node_exporter's textfile directory is before its package is set up. */
static int cfg_metrics_dir(struct nt_agent *a)
{
	char dir[4096], *slash;

	if (!a->cfg->metrics)
		return 0;
	snprintf(dir, sizeof(dir), "%s", a->cfg->metrics);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = 0;
	if (mkdir(dir, 0755) && errno != EEXIST) {
		nt_agent_log(a, NT_LOG_ERR, "metrics directory %s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Whether stderr is the journal: JOURNAL_STREAM names the device and
 * inode of the stream systemd connected (systemd.exec(5)); a stderr
 * redirected elsewhere keeps the variable but not that file. */
static bool stderr_is_journal(void)
{
	const char *v = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	char end;

	return v && sscanf(v, "%llu:%llu%c", &dev, &ino, &end) == 2 &&
	       !fstat(STDERR_FILENO, &st) && (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

/* s with its control characters (a newline would split a log line) and
 * backslashes as \xHH */
static char *escape_ctl(const char *s)
{
	struct nt_buf b = {0};

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		nt_buf_printf(&b, *p < 0x20 || *p == 0x7f || *p == '\\' ? "\\x%02x" : "%c", *p);
	return b.p ? nt_buf_take(&b) : nt_xstrdup("");
}

static int start(struct nt_agent *a, int *sfd)
{
	char err[512];

	a->profile_shown = escape_ctl(a->cfg->base.profile);

	a->journald = stderr_is_journal();
	if (load_profile(a, &a->profile, &a->loaded, &a->names, &a->nnames, &a->match))
		return 1;
	*sfd = block_signals();
	if (*sfd < 0) {
		nt_agent_log(a, NT_LOG_ERR, "signals: %s", strerror(errno));
		return 1;
	}
	if (nt_agent_ctl_open(a, err, sizeof(err))) {
		nt_agent_log(a, NT_LOG_ERR, "%s", err);
		return 1;
	}
	/* subscribed before the first convergence: nothing in between is missed */
	if (nt_events_open(&a->ev, err, sizeof(err))) {
		nt_agent_log(a, NT_LOG_ERR, "%s", err);
		return 1;
	}
	if (cfg_metrics_dir(a))
		return 1;
	a->m = nt_metrics_new();
	nt_metrics_started(a->m, (double)time(NULL));
	a->metrics_dirty = true;
	a->watchdog_ms = (long long)(nt_notify_watchdog_usec() / 2000);
	finish_killed(a);
	if (nt_writer_start(err, sizeof(err)))
		nt_agent_log(a, NT_LOG_WARNING, "%s: the loop writes to disk itself", err);
	nt_statedir_keep(true);
	nt_agent_log(a, NT_LOG_INFO, "started: %s, mode %s, check every %lld ms%s%s",
		     a->profile_shown, a->cfg->report_only ? "report" : "correct",
		     a->cfg->interval_ms, a->cfg->base.netns ? ", network namespace " : "",
		     a->cfg->base.netns ? a->cfg->base.netns : "");
	{
		struct nt_agent_why w = {.at_ns = nt_agent_mono_ns(), .label = "start", .cause = "start"};

		nt_agent_converge(a, NULL, &w);
	}
	a->next_check_ms = nt_agent_mono_ms() + a->cfg->interval_ms;
	a->next_watchdog_ms = nt_agent_mono_ms() + a->watchdog_ms;
	sync_journals(a);
	write_metrics(a, true, true);
	nt_notifyf("READY=1\nSTATUS=%s after start", nt_agent_state(a));
	return 0;
}

int nt_agent_run(const struct nt_agent_cfg *cfg)
{
	struct nt_agent *a = nt_xcalloc(1, sizeof(*a));
	int sfd = -1, rc;

	a->cfg = cfg;
	a->ctl_fd = -1;
	rc = start(a, &sfd);
	if (!rc) {
		rc = run_loop(a, sfd);
		nt_notify("STOPPING=1");
		sync_journals(a);
		nt_agent_log(a, NT_LOG_INFO, "stopped after %llu correction%s", a->corrections,
			     a->corrections == 1 ? "" : "s");
		write_metrics(a, true, true);
	}
	/* what the disk writer holds is written before the exit */
	nt_writer_stop();
	writer_failures(a);
	if (sfd >= 0)
		close(sfd);
	nt_agent_ctl_close(a);
	nt_events_close(a->ev);
	nt_metrics_free(a->m);
	nt_agent_state_free(a);
	nt_buf_free(&a->profile);
	nt_loaded_free(&a->loaded);
	free_names(a->names, a->nnames);
	free(a->profile_shown);
	free(a);
	return rc;
}
