/* SPDX-License-Identifier: MIT */
/* The Linux apply engine, generic over the kinds table: a journaled
 * transaction that converges, or is undone exactly. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/formats/planprint.h"
#include "apply.h"
#include "devcache.h"
#include "irqmap.h"
#include "journal.h"
#include "link.h"
#include "nlio.h"
#include "statedir.h"
#include "sysio.h"

extern char **environ;

/* SIGTERM, SIGINT and SIGHUP during a transaction: finish the step under
 * way, then roll back (the watcher: revert at once). */
#define interrupted nt_interrupted

static void on_signal(int sig)
{
	interrupted = sig;
}

void nt_apply_catch_signals(void)
{
	struct sigaction sa = {0};

	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;	/* the netlink waits are poll(2), never restarted */
	nt_nl_abort_on_signal = true;	/* until a rollback starts (rollback_txn) */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

int nt_apply_interrupted(void)
{
	return interrupted;
}

/* "eth0 mtu", "sysctl net.core.x" */
static char *label_of(const struct nt_jentry *e)
{
	return nt_setting_label(e->kind, e->object, e->arg);
}

static bool verify(struct nt_lctx *x, const struct nt_jentry *e, struct nt_value *seen)
{
	int r = nt_linux_read(x, e->kind, e->object, e->arg, seen);

	if (r)
		return false;
	return nt_value_equal(seen, &e->after);
}

static void say(const struct nt_apply_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void say(const struct nt_apply_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o && o->quiet)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

/* say() of the pieces of a line, NULL-terminated, without printf (a line
 * per step of an apply). */
static void say_line(const struct nt_apply_opts *o, const char *const *part)
{
	if (o && o->quiet)
		return;
	for (; *part; part++)
		fputs(*part, stdout);
	fflush(stdout);
}

/* Test hook: NETTUNE_ROLLBACK_SIGNAL_STEP=k NETTUNE_SIGNAL=N raises signal
 * N right after the k-th restore of a rollback. */
static void fault_rollback_signal(size_t step)
{
#ifdef NT_FAULT_INJECTION
	const char *k = getenv("NETTUNE_ROLLBACK_SIGNAL_STEP"), *sig = getenv("NETTUNE_SIGNAL");

	if (k && sig && (size_t)atoi(k) == step)
		raise(atoi(sig));
#else
	(void)step;
#endif
}

/* A failure of an apply whose journal exists: said on stderr ("nettune
 * apply: MSG") and, if it is the first, recorded as the journal's error
 * (without the "error: "), so that history and show say why it failed. */
static void failure(struct nt_journal *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void failure(struct nt_journal *j, const char *fmt, ...)
{
	char m[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	fprintf(stderr, "nettune apply: %s\n", m);
	nt_journal_set_error(j, strncmp(m, "error: ", 7) ? m : m + 7);
}

/* The words for a failed read of e (into x->err). */
static void read_failed(struct nt_lctx *x, int r)
{
	char why[256];

	if (nt_devcache_transient())
		snprintf(why, sizeof(why), "%s, %d tries", strerror(-r), NT_ETHNL_READ_TRIES);
	else
		snprintf(why, sizeof(why), "%s", r == -ENOENT ? "it is not there" : strerror(-r));
	snprintf(x->err, sizeof(x->err), "cannot read it back: %s", why);
}

/* Writes e's previous value back unless it is already there, and reads it
 * back; 0 or -errno with the reason in x->err (-EIO: accepted but reads
 * back otherwise). */
static int restore_one(struct nt_lctx *x, struct nt_jentry *e)
{
	struct nt_value cur, seen;
	int r;

	x->err[0] = '\0';
	if (!e->had) {
		/* it was not there before (the kernel said so): as before while
		 * it still is not; nothing can remove it again */
		r = nt_linux_read(x, e->kind, e->object, e->arg, &cur);
		if (r == -ENOENT)
			return 0;
		if (r) {
			read_failed(x, r);
			return r;
		}
		nt_value_free(&cur);
		snprintf(x->err, sizeof(x->err), "it did not exist before and does now");
		return -EEXIST;
	}
	if (!nt_linux_read(x, e->kind, e->object, e->arg, &cur)) {
		bool same = nt_value_equal(&cur, &e->before);

		nt_value_free(&cur);
		if (same)
			return 0;
	}
	x->err[0] = '\0';
	r = nt_linux_write(x, e->kind, e->object, e->arg, &e->before);
	if (r)
		return r;
	r = nt_linux_read(x, e->kind, e->object, e->arg, &seen);
	if (r) {
		read_failed(x, r);
		return r;
	}
	if (!nt_value_equal(&seen, &e->before)) {
		struct nt_buf v = {0};

		nt_value_format(&seen, &v, false);
		snprintf(x->err, sizeof(x->err), "accepted, but it reads %s", v.p);
		nt_buf_free(&v);
		r = -EIO;
	}
	nt_value_free(&seen);
	return r;
}

/*
 * Restores e[upto-1] .. e[0].  A setting that depends on one restored
 * after it (tx-tcp-mangleid-segmentation needs tx-tcp-segmentation, which
 * the reverse order turns back on later) does not stick the first time,
 * so what failed gets a second pass once everything else is back.  Then
 * every entry is read again from a fresh dump (a later restore can undo
 * an earlier one as a side effect): only what reads as its previous value
 * then counts as restored.  What is not is listed in the journal
 * (nt_journal_add_unrestored) and on stderr; returns how many.
 */
static size_t restore(struct nt_lctx *x, struct nt_journal *j, size_t upto, bool verbose)
{
	struct nt_jentry *e = j->e;
	size_t failed = 0, i;
	int *err = nt_xcalloc(upto + 1, sizeof(*err));
	char **why = nt_xcalloc(upto + 1, sizeof(*why));	/* a failed restore's reason */

	nt_journal_clear_unrestored(j);
	for (i = upto; i-- > 0;) {
		err[i] = restore_one(x, &e[i]);
		fault_rollback_signal(upto - i);
		if (!err[i] && verbose) {
			char *attr = label_of(&e[i]);
			struct nt_buf v = {0};

			nt_value_format(&e[i].before, &v, false);
			printf("  restored %s = %s\n", attr, v.p);
			nt_buf_free(&v);
			free(attr);
		}
	}
	for (i = upto; i-- > 0;) {
		if (!err[i])
			continue;
		err[i] = restore_one(x, &e[i]);
		if (!err[i] && verbose) {
			char *attr = label_of(&e[i]);
			struct nt_buf v = {0};

			nt_value_format(&e[i].before, &v, false);
			printf("  restored %s = %s (after the settings it depends on)\n", attr, v.p);
			nt_buf_free(&v);
			free(attr);
		}
		if (err[i] && !*x->err)
			snprintf(x->err, sizeof(x->err), "%s", strerror(-err[i]));
		if (err[i])
			why[i] = nt_xstrdup(x->err);
	}
	/* the final check, from fresh dumps, of every entry: a restore that
	 * failed may have been made by a later one (a feature its parent
	 * turns back on), and one that worked may have been undone */
	nt_devcache_stale_all();
	nt_irqmap_stale();
	for (i = 0; i < upto; i++) {
		struct nt_value seen;
		int r;

		r = nt_linux_read(x, e[i].kind, e[i].object, e[i].arg, &seen);
		if (!e[i].had) {
			if (r == -ENOENT)
				continue;	/* still not there, as before */
			if (!r) {
				nt_value_free(&seen);
				snprintf(x->err, sizeof(x->err), "it did not exist before and does now");
				r = -EEXIST;
			} else {
				read_failed(x, r);
			}
		} else if (r) {
			read_failed(x, r);
		} else if (!nt_value_equal(&seen, &e[i].before)) {
			struct nt_buf v = {0};

			nt_value_format(&seen, &v, false);
			snprintf(x->err, sizeof(x->err), "it reads %s after the rollback (another "
				 "restore changed it)", v.p);
			nt_buf_free(&v);
			r = -EIO;
		}
		if (!r)
			nt_value_free(&seen);
		else
			nt_journal_add_unrestored(j, i, why[i] ? why[i] : x->err);
	}
	for (i = 0; i < upto; i++)
		free(why[i]);
	free(why);
	for (i = 0; i < j->nunrestored; i++) {
		const struct nt_jentry *u = &e[j->unrestored[i].entry];
		char *attr = label_of(u);
		struct nt_buf v = {0};

		if (u->had)
			nt_value_format(&u->before, &v, false);
		fprintf(stderr, "  rollback FAILED: %s back to %s: %s\n", attr, u->had ? v.p : "?",
			j->unrestored[i].reason);
		nt_buf_free(&v);
		free(attr);
		failed++;
	}
	free(err);
	return failed;
}

/*
 * The rollback transaction: rolling-back recorded (fsync'ed) before the
 * first write, e[upto-1] .. e[0] restored and verified, then `done` or
 * rollback-incomplete with the entries not restored.  A signal does not
 * stop it (it is what a signal asks for); each request is still bounded.
 * Returns how many entries are not restored.
 */
static size_t rollback_txn(int jfd, struct nt_journal *j, struct nt_lctx *x, size_t upto,
			   enum nt_jstate done, bool verbose)
{
	size_t failed;
	enum nt_jstate to;
	int r;

	nt_nl_abort_on_signal = false;
	j->pid = (int)getpid();
	j->pid_start = nt_proc_start(j->pid);
	r = nt_journal_transition(jfd, j, NT_JS_ROLLING_BACK);
	if (r)
		fprintf(stderr, "nettune: warning: cannot record the journal state rolling-back in "
			"%s: %s; restoring anyway\n", j->id, strerror(-r));
	failed = restore(x, j, upto, verbose);
	to = failed ? NT_JS_ROLLBACK_INCOMPLETE : done;
	r = nt_journal_transition(jfd, j, to);
	if (r)
		fprintf(stderr, "nettune: error: cannot record the journal state %s in %s: %s\n",
			nt_jstate_name(to), j->id, strerror(-r));
	if (failed)
		fprintf(stderr, "nettune: error: rollback incomplete: %zu setting%s could not be "
			"restored or read back as restored (listed above, and in journal %s); "
			"'nettune rollback %s' tries again\n", failed, failed == 1 ? "" : "s", j->id,
			j->id);
	return failed;
}

static void progress(const struct nt_apply_opts *o, size_t k, size_t n, long long t0, char *out,
		     size_t len);

/* Kinds read from the device cache: their read-back waits until every
 * write is made, then costs one dump per family. */
static bool deferred_check(enum nt_kind_id k)
{
	return k == NT_K_MTU || k == NT_K_FEATURE || k == NT_K_CHANNELS || k == NT_K_RING ||
	       k == NT_K_COALESCE || k == NT_K_COALESCE_ADAPTIVE;
}

static bool changes(const struct nt_jentry *e)
{
	return !(e->had && nt_value_equal(&e->before, &e->after));
}

/*
 * One request per (device, message family): every feature of a device the
 * plan changes goes in one ETHTOOL_MSG_FEATURES_SET (the kernel applies
 * them together, as ethtool -K does), its rx, tx, combined and other
 * channel counts in one CHANNELS_SET (as ethtool -L); each entry is still
 * journaled, verified and rolled back on its own.  (The link attributes
 * of a device, MTU and, once it is a kind, txqueuelen, go together the
 * same way through nt_link_set.)  Marks the entries written; *last is the
 * highest index written.
 */
static int write_batch(struct nt_lctx *x, const struct nt_jentry *e, bool *written, size_t i,
		       size_t n, size_t *last)
{
	const char **names = nt_xcalloc(n - i + 1, sizeof(*names));
	bool *on = nt_xcalloc(n - i + 1, sizeof(*on));
	struct nt_ethnl_vals ch = {0};
	size_t j, k = 0;
	int r;

	*last = i;
	for (j = i; j < n; j++) {
		if (written[j] || e[j].kind != e[i].kind || strcmp(e[j].object, e[i].object))
			continue;
		written[j] = true;
		*last = j;
		if (!changes(&e[j]))
			continue;
		if (e[i].kind == NT_K_FEATURE) {
			names[k] = e[j].arg;
			on[k++] = e[j].after.b;
		} else {
			int c;

			for (c = 0; c < NT_CH__COUNT && strcmp(e[j].arg, nt_chan_names[c]); c++)
				;
			if (c < 4) {
				ch.have[c] = true;
				ch.cur[c] = e[j].after.u;
				k++;
			}
		}
	}
	if (e[i].kind == NT_K_FEATURE) {
		nt_devcache_stale(NT_DC_FEATURES);
		r = nt_ethnl_features_set(x->nl, e[i].object, names, on, k);
	} else {
		nt_devcache_stale(NT_DC_CHANNELS);
		r = nt_ethnl_vals_set(x->nl, &nt_fam_channels, e[i].object, &ch);
		if (!r)
			nt_lctx_channels_changed(x, e[i].object);
	}
	if (r)
		nt_ethnl_reason(x->nl, r, x->err, sizeof(x->err));
	free(names);
	free(on);
	return r;
}

/* Reads e back; reports it changed, or accepted but not effective (1). */
static int check_step(struct nt_lctx *x, const struct nt_apply_opts *o, struct nt_journal *j,
		      size_t i, size_t n, long long t0)
{
	const struct nt_jentry *e = &j->e[i];
	struct nt_value seen = {0};
	struct nt_buf from = {0}, to = {0}, got = {0};
	char *attr = label_of(e), stamp[48];
	int rc = 0;

	if (e->had)
		nt_value_format(&e->before, &from, false);
	else
		nt_buf_puts(&from, "(none)");
	nt_value_format(&e->after, &to, false);
	if (!verify(x, e, &seen)) {
		if (seen.t == e->after.t && (seen.s || seen.cpus || seen.bytes || seen.list ||
					     e->after.t == NT_V_BOOL || e->after.t == NT_V_U32))
			nt_value_format(&seen, &got, false);
		failure(j, "error: %s: accepted but not effective: asked %s, "
			"the kernel reports %s%s%s", attr, to.p,
			got.p ? got.p : "nothing",
			e->kind == NT_K_FEATURE ? " (fixed, or dropped by a dependency)" : "",
			e->kind == NT_K_RING ? " (the driver rounded it)" : "");
		rc = 1;
	} else {
		progress(o, i + 1, n, t0, stamp, sizeof(stamp));
		say_line(o, (const char *const[]){"  ", stamp, " changed  ", attr, ": ", from.p,
			     " -> ", to.p, "\n", NULL});
	}
	if (seen.t || seen.s || seen.cpus || seen.bytes || seen.list)
		nt_value_free(&seen);
	free(attr);
	nt_buf_free(&from);
	nt_buf_free(&to);
	nt_buf_free(&got);
	return rc;
}

static int fault_step(void)
{
#ifdef NT_FAULT_INJECTION
	const char *s = getenv("NETTUNE_FAIL_STEP");

	return s ? atoi(s) : 0;
#else
	return 0;
#endif
}

/* Test hook: NETTUNE_SIGNAL_STEP=k NETTUNE_SIGNAL=N raises signal N right
 * after write k, as if an operator or the OOM killer struck then. */
static void fault_signal(size_t step)
{
#ifdef NT_FAULT_INJECTION
	const char *k = getenv("NETTUNE_SIGNAL_STEP"), *sig = getenv("NETTUNE_SIGNAL");

	if (k && sig && (size_t)atoi(k) == step)
		raise(atoi(sig));
#else
	(void)step;
#endif
}


size_t nt_linux_changed_since(struct nt_journal *j, struct nt_buf *out)
{
	struct nt_observe_req req = {0};
	struct nt_facts f;
	struct nt_state st;
	struct nt_diags d = {0};
	struct nt_lctx x;
	size_t changed = 0, i, k;

	req.irqbalance = true;
	nt_devcache_stale_all();
	nt_irqmap_stale();
	nt_linux_observe(&req, &f, &st, &d);
	nt_lctx_open(&x, &f);
	for (i = 0; i < j->n; i++) {
		const struct nt_jentry *e = &j->e[i];
		struct nt_buf a = {0}, now = {0};
		struct nt_value v;
		char *attr;

		for (k = 0; k < j->nunrestored && j->unrestored[k].entry != i; k++)
			;
		if (k < j->nunrestored)
			continue;	/* the last rollback left it as it could */
		if (nt_linux_read(&x, e->kind, e->object, e->arg, &v))
			continue;	/* not there, or unreadable: the rollback says so */
		if (nt_value_equal(&v, &e->after) || (e->had && nt_value_equal(&v, &e->before))) {
			nt_value_free(&v);
			continue;
		}
		attr = label_of(e);
		nt_value_format(&e->after, &a, false);
		nt_value_format(&v, &now, false);
		nt_buf_printf(out, "  %s: applied %s, reads %s\n", attr, a.p ? a.p : "\"\"",
			      now.p ? now.p : "\"\"");
		free(attr);
		nt_buf_free(&a);
		nt_buf_free(&now);
		nt_value_free(&v);
		changed++;
	}
	nt_lctx_close(&x);
	nt_state_free(&st);
	nt_facts_free(&f);
	nt_diags_free(&d);
	return changed;
}

/* Reads every setting of a journal back to its previous value (the caller
 * is in the journal's namespace and root).  Observes the host afresh: the
 * revert never depends on what the apply held in memory. */
int nt_linux_restore_journal(int jfd, struct nt_journal *j, enum nt_jstate done, bool verbose)
{
	struct nt_observe_req req = {0};
	struct nt_facts f;
	struct nt_state st;
	struct nt_diags d = {0};
	struct nt_lctx x;
	size_t failed;

	nt_nl_abort_on_signal = false;	/* a signal does not stop a rollback */
	req.irqbalance = true;
	nt_devcache_stale_all();
	nt_irqmap_stale();
	nt_linux_observe(&req, &f, &st, &d);
	nt_lctx_open(&x, &f);
	failed = rollback_txn(jfd, j, &x, j->n, done, verbose);
	nt_lctx_close(&x);
	nt_state_free(&st);
	nt_facts_free(&f);
	nt_diags_free(&d);
	if (failed)
		return 3;
	return j->state == done ? 0 : 1;
}

static void describe_owner(const struct nt_journal *j, char *out, size_t n)
{
	char when[64];

	nt_local_time(j->ntr ? j->tr[j->ntr - 1].at_ns : j->created_ns, when, sizeof(when));
	snprintf(out, n, "%s since %s", nt_jstate_name(j->state), when);
}

bool nt_apply_blocked(int jfd, const char *cmd)
{
	struct nt_journal *v;
	size_t n = nt_journal_list(jfd, true, &v, NULL), i;
	bool blocked = false;

	for (i = 0; i < n; i++) {
		char what[160];

		describe_owner(&v[i], what, sizeof(what));
		if (v[i].state == NT_JS_PENDING_CONFIRM && nt_journal_owner_alive(&v[i]))
			fprintf(stderr, "nettune %s: error: journal %s awaits confirmation (%s, pid %d); "
				"run 'nettune confirm' or 'nettune rollback'\n", cmd, v[i].id, what,
				v[i].pid);
		else if (v[i].state == NT_JS_APPLYING && nt_journal_owner_alive(&v[i]))
			fprintf(stderr, "nettune %s: error: journal %s is being applied by pid %d\n", cmd,
				v[i].id, v[i].pid);
		else if (v[i].state == NT_JS_ROLLING_BACK && nt_journal_owner_alive(&v[i]))
			fprintf(stderr, "nettune %s: error: journal %s is being rolled back by pid %d\n",
				cmd, v[i].id, v[i].pid);
		else if (v[i].state == NT_JS_ROLLING_BACK)
			fprintf(stderr, "nettune %s: error: the rollback of journal %s was interrupted "
				"(%s, pid %d is gone): the host may be half-restored; finish it with "
				"'nettune rollback %s' or accept the host with 'nettune rollback --discard "
				"%s'\n", cmd, v[i].id, what, v[i].pid, v[i].id, v[i].id);
		else
			fprintf(stderr, "nettune %s: error: journal %s was left %s by pid %d, which is "
				"gone: the host may be half-applied; restore it with 'nettune rollback %s' "
				"or accept it with 'nettune rollback --discard %s'\n", cmd, v[i].id, what,
				v[i].pid, v[i].id, v[i].id);
		blocked = true;
	}
	nt_journal_list_free(v, n);
	{
		/* an open journal that does not load is still an open change */
		char **bad;
		size_t nb = nt_journal_unusable(jfd, true, &bad);

		for (i = 0; i < nb; i++) {
			fprintf(stderr, "nettune %s: error: journal %s is open but unusable ('nettune "
				"show %s' says why): the host may be half-applied; once it is checked, "
				"remove %s/journal/%s.open\n", cmd, bad[i], bad[i], nt_state_dir(),
				bad[i]);
			free(bad[i]);
			blocked = true;
		}
		free(bad);
	}
	return blocked;
}

/* Where systemd runs, a transient timer reverts the apply even if every
 * nettune process is killed (the next nettune run would, too). */
static void arm_systemd_timer(const struct nt_journal *j, unsigned seconds)
{
	char exe[4096], unit[256], when[32], env[4200];
	ssize_t n;
	pid_t pid;
	int st;

	if (access("/run/systemd/system", F_OK) || getenv("NETTUNE_NO_SYSTEMD_TIMER"))
		return;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return;
	exe[n] = '\0';
	snprintf(unit, sizeof(unit), "--unit=nettune-revert-%s", j->id);
	snprintf(when, sizeof(when), "--on-active=%us", seconds + 2);
	snprintf(env, sizeof(env), "--setenv=NETTUNE_STATE_DIR=%s", nt_state_dir());
	{
		char *argv[] = {"systemd-run", "--quiet", "--collect", unit, when,
				"--timer-property=AccuracySec=1s", env, exe, "rollback", "--unconfirmed",
				j->id, NULL};

		if (posix_spawnp(&pid, "systemd-run", NULL, NULL, argv, environ))
			return;
	}
	waitpid(pid, &st, 0);
}

static void disarm_systemd_timer(const char *id)
{
	char unit[256];
	pid_t pid;
	int st;

	if (access("/run/systemd/system", F_OK) || getenv("NETTUNE_NO_SYSTEMD_TIMER"))
		return;
	snprintf(unit, sizeof(unit), "nettune-revert-%s.timer", id);
	{
		char *argv[] = {"systemctl", "stop", "--quiet", unit, NULL};

		if (posix_spawnp(&pid, "systemctl", NULL, NULL, argv, environ))
			return;
	}
	waitpid(pid, &st, 0);
}

void nt_apply_disarm_timer(const char *id)
{
	disarm_systemd_timer(id);
}

static void close_others(const int *keep, int nkeep)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int *fds = NULL, n = 0;

	while (d && (de = readdir(d))) {
		int fd = atoi(de->d_name);
		bool kept = fd <= 2 || fd == dirfd(d) || de->d_name[0] == '.';

		for (int k = 0; k < nkeep && !kept; k++)
			kept = fd == keep[k];
		if (!kept) {
			fds = nt_xrealloc(fds, (size_t)(n + 1) * sizeof(*fds));
			fds[n++] = fd;
		}
	}
	if (d)
		closedir(d);
	for (int k = 0; k < n; k++)
		close(fds[k]);
	free(fds);
}

/*
 * The confirm watcher: a child that owns the journal and the lock until
 * `nettune confirm` marks the journal confirmed, or the deadline passes or
 * SIGTERM or SIGINT arrives (what rollback and an operator send): then it
 * reverts from the journal on disk.  It outlives the apply's session and
 * terminal: its own session, and SIGHUP ignored (the ssh session or
 * terminal that started it closing is no reason to revert: the deadline
 * is).  The parent returns only once the child has taken over (a byte on
 * a pipe); if the child cannot start, the parent reverts at once.
 */
static int start_watcher(int state_fd, int jfd, int lock, struct nt_journal *j)
{
	int p[2];
	pid_t pid;
	char ok = 0;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid > 0) {
		ssize_t r;

		close(p[1]);
		do
			r = read(p[0], &ok, 1);
		while (r < 0 && errno == EINTR);
		close(p[0]);
		return r == 1 && ok == '1' ? 0 : -ECHILD;
	}
	/* the watcher: keeps only what it needs (a caller's pipe held open
	 * would block it until the deadline) */
	signal(SIGHUP, SIG_IGN);	/* first: still in the terminal's process group */
	if (interrupted == SIGHUP)
		interrupted = 0;
	close(p[0]);
	nt_devcache_reset();	/* the parent's sockets and replies: this process reads afresh */
	nt_irqmap_reset();
	close_others((int[]){jfd, state_fd, lock, p[1]}, 4);
	setsid();
	if (!freopen("/dev/null", "r", stdin) || !freopen("/dev/null", "w", stdout) ||
	    !freopen("/dev/null", "w", stderr))
		_exit(1);
	nt_lock_rename(lock, "apply --confirm-timeout, confirm watcher");
	j->state = NT_JS_PENDING_CONFIRM;
	if (nt_journal_set_owner(jfd, j) || nt_journal_transition(jfd, j, NT_JS_PENDING_CONFIRM))
		_exit(1);
	ok = '1';
	if (write(p[1], &ok, 1) != 1)
		_exit(1);
	close(p[1]);
	for (;;) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		char *mark = nt_xasprintf("%s.open", j->id);
		bool closed = faccessat(jfd, mark, F_OK, AT_SYMLINK_NOFOLLOW) && errno == ENOENT;

		free(mark);
		if (closed || interrupted || nt_now_ns() >= j->deadline_ns)
			break;
		nanosleep(&ts, NULL);
	}
	{
		struct nt_journal cur;
		struct nt_diags d = {0};
		int tx = nt_txn_lock(state_fd), rc = 0;

		if (!nt_journal_load(jfd, j->id, &cur, &d)) {
			if (cur.state == NT_JS_PENDING_CONFIRM)
				rc = nt_linux_restore_journal(jfd, &cur, NT_JS_REVERTED_UNCONFIRMED, false);
			nt_journal_free(&cur);
		}
		nt_diags_free(&d);
		if (tx >= 0)
			close(tx);
		_exit(rc);
	}
}

/* "[ 3/12 +0.015s]": the step and the time since the apply started */
/* The decimal digits of v in out (at least 21 bytes), not terminated; the length. */
static size_t utoa_z(char *out, size_t v)
{
	char t[24];
	size_t n = 0, k = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		out[k++] = t[--n];
	return k;
}

static void progress(const struct nt_apply_opts *o, size_t k, size_t n, long long t0, char *out,
		     size_t len)
{
	/* "[%*zu/%zu +%.3fs]" (width of n) without printf: one per step */
	char nb[24], kb[24], tb[32];
	size_t nl, kl, tl = 0, pos = 0;
	long long ms = (nt_now_ns() - t0 + 500000) / 1000000, sec;
	int fr;

	(void)o;
	nl = utoa_z(nb, n);
	kl = utoa_z(kb, k);
	if (ms < 0)
		ms = 0;
	sec = ms / 1000;
	fr = (int)(ms % 1000);
	tl = utoa_z(tb, (size_t)sec);
	tb[tl++] = '.';
	tb[tl++] = (char)('0' + fr / 100);
	tb[tl++] = (char)('0' + fr / 10 % 10);
	tb[tl++] = (char)('0' + fr % 10);
	if (len < nl * 2 + tl + 8) {
		out[0] = '\0';
		return;
	}
	out[pos++] = '[';
	while (kl + (pos - 1) < nl)
		out[pos++] = ' ';
	memcpy(out + pos, kb, kl);
	pos += kl;
	out[pos++] = '/';
	memcpy(out + pos, nb, nl);
	pos += nl;
	out[pos++] = ' ';
	out[pos++] = '+';
	memcpy(out + pos, tb, tl);
	pos += tl;
	out[pos++] = 's';
	out[pos++] = ']';
	out[pos] = '\0';
}

/* On a terminal: show the plan, mark what is disruptive, and ask. */
static bool confirm_plan(const struct nt_plan *plan, size_t n, const struct nt_apply_opts *o)
{
	struct nt_buf b = {0};
	char line[64];
	size_t disruptive = 0;

	for (size_t i = 0; i < plan->n; i++)
		if ((!o->only || !strcmp(plan->v[i].object, o->only)) &&
		    (plan->v[i].flags & NT_SF_DISRUPTIVE))
			disruptive++;
	nt_plan_print_text(plan, NULL, o->color, &b);
	nt_buf_write(&b, stdout);
	nt_buf_free(&b);
	if (disruptive)
		printf("\n%zu of these steps can drop the link briefly (marked [disruptive]).", disruptive);
	printf("\nApply %zu change%s to %s%s%s%s? Only 'yes' is accepted: ", n,
	       n == 1 ? "" : "s", plan->host ? plan->host : plan->profile,
	       o->netns ? " (network namespace " : "", o->netns ? o->netns : "", o->netns ? ")" : "");
	fflush(stdout);
	{
		/* a signal at the question cancels it (read returns EINTR) */
		struct sigaction sa = {0}, old[3];
		static const int sigs[] = {SIGTERM, SIGINT, SIGHUP};
		bool yes;

		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (int k = 0; k < 3; k++)
			sigaction(sigs[k], &sa, &old[k]);
		yes = fgets(line, sizeof(line), stdin) && !interrupted && !strcmp(line, "yes\n");
		for (int k = 0; k < 3; k++)
			sigaction(sigs[k], &old[k], NULL);
		if (!yes) {
			printf("\nApply cancelled%s; nothing was changed.\n",
			       interrupted ? " by a signal" : "");
			return false;
		}
	}
	return true;
}

int nt_linux_apply(const struct nt_plan *plan, const struct nt_state *desired,
		   struct nt_facts *facts, const struct nt_apply_opts *o)
{
	struct nt_lctx x;
	struct nt_journal j = {0};
	struct nt_jentry *e = NULL;
	size_t n = 0, i, batch_end = 0, done = 0;
	bool *written = NULL, *pending = NULL;
	int lock = -1, jfd = -1, state_fd = -1, rc = 0, fail_at = fault_step();
	char err[512], stamp[48];
	bool ctx = false;
	long long t0 = nt_now_ns();

	for (i = 0; i < plan->n; i++) {
		const struct nt_action *a = &plan->v[i];

		if (o->only && strcmp(a->object, o->only))
			continue;
		if (nt_kinds[a->kind].flags & NT_KF_WINDOWS) {
			fprintf(stderr, "nettune apply: error: %s is a Windows setting; use nettune emit --format ps1\n",
				nt_kinds[a->kind].name);
			j.e = e;
			j.n = n;
			nt_journal_free(&j);
			return 1;
		}
		e = nt_xrealloc(e, (n + 1) * sizeof(*e));
		memset(&e[n], 0, sizeof(e[n]));
		e[n].kind = a->kind;
		e[n].object = nt_xstrdup(a->object);
		e[n].arg = a->arg ? nt_xstrdup(a->arg) : NULL;
		nt_value_copy(&e[n].after, &a->to);
		e[n].disruptive = a->flags & NT_SF_DISRUPTIVE;
		n++;
	}
	j.e = e;
	j.n = n;
	if (o->dry_run) {
		/* exits like plan: 0 nothing to do, 2 changes pending */
		/* (the plan printed above already says when there is nothing) */
		if (n)
			say(o, "Dry run: %zu change%s would be made; nothing was changed.\n", n,
			    n == 1 ? "" : "s");
		else if (o->nothing_msg)
			say(o, "%s\n", o->nothing_msg);
		nt_journal_free(&j);
		return n ? 2 : 0;
	}
	if (n && o->ask && !confirm_plan(plan, n, o)) {
		nt_journal_free(&j);
		return 1;
	}
	t0 = nt_now_ns();	/* elapsed times count from the approval */
	jfd = nt_statedir_open(n > 0, &state_fd, err, sizeof(err));
	if (jfd < 0 && (n || jfd != -ENOENT)) {
		fprintf(stderr, "nettune apply: error: state directory: %s; nothing was changed\n", err);
		nt_journal_free(&j);
		return 1;
	}
	if (!n) {
		/* a no-op must not claim "nothing to do" while a change is
		 * under way or open: it waits for the lock like any apply */
		bool busy = false;

		if (jfd >= 0) {
			lock = nt_lock_take(state_fd, "apply", o->wait_ms);
			busy = lock < 0 || nt_apply_blocked(jfd, "apply");
		}
		if (!busy)
			say(o, "%s\n", o->nothing_msg ? o->nothing_msg :
			    "Nothing to do: the host already matches the profile.");
		rc = busy ? 1 : 0;
		goto out;
	}
	lock = nt_lock_take(state_fd, "apply", o->wait_ms);
	if (lock < 0) {
		rc = 1;
		goto out;
	}
	nt_journal_sweep_markers(jfd);
	if (nt_apply_blocked(jfd, "apply")) {
		rc = 1;
		goto out;
	}
	if (interrupted) {
		fprintf(stderr, "nettune apply: interrupted (signal %d); nothing was changed\n",
			(int)interrupted);
		rc = 1;
		goto out;
	}
	nt_lctx_open(&x, facts);
	ctx = true;
	/* the live previous values, read under the lock, before the first write:
	 * one fresh dump per message family, not a request per setting */
	nt_devcache_stale_all();
	{
		size_t unread = 0;

		for (i = 0; i < n; i++) {
			struct nt_value v;
			int r = nt_linux_read(&x, e[i].kind, e[i].object, e[i].arg, &v);

			if (!r) {
				e[i].had = true;
				e[i].before = v;
				continue;
			}
			if (r == -ENOENT)
				continue;	/* known: not there (the kernel refuses the write) */
			/* nothing is written whose previous value is not known:
			 * it could not be restored */
			{
				char *attr = label_of(&e[i]);

				read_failed(&x, r);
				fprintf(stderr, "nettune apply: error: %s: cannot read the previous value "
					"(%s)\n", attr, x.err + strlen("cannot read it back: "));
				free(attr);
			}
			unread++;
		}
		if (unread && interrupted) {
			fprintf(stderr, "nettune apply: interrupted (signal %d) while reading the "
				"previous values; nothing was changed\n", (int)interrupted);
			rc = 1;
			goto out;
		}
		if (unread) {
			fprintf(stderr, "nettune apply: error: %zu previous value%s could not be read; "
				"nothing was changed\n", unread, unread == 1 ? "" : "s");
			rc = 1;
			goto out;
		}
	}
	j.netns = o->netns ? nt_xstrdup(o->netns) : NULL;
	if (*nt_sys_root) {
		char *abs = realpath(nt_sys_root, NULL);

		j.root = abs ? abs : nt_xstrdup(nt_sys_root);
	} else {
		j.root = nt_xstrdup("");
	}
	j.profile = nt_xstrdup(o->profile ? o->profile : "");
	j.command = nt_xstrdup(o->command ? o->command : "apply");
	if (o->confirm_timeout)
		j.deadline_ns = nt_now_ns() + (long long)o->confirm_timeout * 1000000000LL;
	if (nt_journal_create(jfd, &j, NT_JS_APPLYING, err, sizeof(err))) {
		fprintf(stderr, "nettune apply: error: %s; nothing was changed\n", err);
		rc = 1;
		goto out;
	}
	if (o->confirm_timeout)
		arm_systemd_timer(&j, o->confirm_timeout);
	written = nt_xcalloc(n + 1, sizeof(*written));
	pending = nt_xcalloc(n + 1, sizeof(*pending));
	for (i = 0; i < n; i++) {
		char *attr = label_of(&e[i]);
		struct nt_buf from = {0}, to = {0};
		int r;

		if (interrupted) {
			failure(&j, "interrupted by signal %d after %zu of %zu steps",
				(int)interrupted, i, n);
			free(attr);
			rc = 1;
			break;
		}
		done = i + 1;
		if (e[i].had)
			nt_value_format(&e[i].before, &from, false);
		else
			nt_buf_puts(&from, "(none)");
		nt_value_format(&e[i].after, &to, false);
		progress(o, i + 1, n, t0, stamp, sizeof(stamp));
		if (!changes(&e[i])) {
			say(o, "  %s ok       %s = %s\n", stamp, attr, to.p);
			goto next;
		}
		if (e[i].disruptive)
			say(o, "  %s next is disruptive: %s %s -> %s (the link may go down "
			    "briefly)\n", stamp, attr, from.p, to.p);
		x.err[0] = '\0';
		if (written[i]) {
			r = 0;		/* written with its device's other settings of its family */
		} else if ((e[i].kind == NT_K_FEATURE || e[i].kind == NT_K_CHANNELS) && x.nl) {
			size_t last;

			r = write_batch(&x, e, written, i, n, &last);
			if (last + 1 > batch_end)
				batch_end = last + 1;
		} else {
			written[i] = true;
			r = nt_linux_write(&x, e[i].kind, e[i].object, e[i].arg, &e[i].after);
		}
		fault_signal(i + 1);
		if (!r && fail_at == (int)i + 1) {
			r = -EIO;
			snprintf(x.err, sizeof(x.err), "injected failure at step %zu", i + 1);
		}
		if (r == -EINTR && interrupted) {
			failure(&j, "interrupted by signal %d while %s was written (step %zu of %zu)",
				(int)interrupted, attr, i + 1, n);
			rc = 1;
		} else if (r) {
			failure(&j, "error: %s: %s -> %s %s: %s", attr, from.p,
				to.p, (nt_ethnl_transient(x.nl) || nt_link_transient()) ?
				"failed (its outcome is read back by the rollback)" : "refused",
				*x.err ? x.err : strerror(-r));
			rc = 1;
		} else if (deferred_check(e[i].kind)) {
			pending[i] = true;	/* read back below, from one dump per family */
		} else {
			rc = check_step(&x, o, &j, i, n, t0);
		}
next:
		free(attr);
		nt_buf_free(&from);
		nt_buf_free(&to);
		if (rc)
			break;
	}
	if (!rc && interrupted) {
		/* a signal after the last write: roll back, without a read-back
		 * that the signal would cut short and misreport */
		failure(&j, "interrupted by signal %d after the last step", (int)interrupted);
		rc = 1;
		done = n;
	}
	/* The read-back of the netlink settings, and below the check that
	 * every desired setting reads as desired: after all writes, from one
	 * fresh dump per message family. */
	if (!rc)
		nt_devcache_stale_all();
	for (i = 0; !rc && i < n; i++)
		if (pending[i])
			rc = check_step(&x, o, &j, i, n, t0);
	/* Converged means every desired setting reads back as desired: a
	 * write can silently change another setting (netdev_fix_features
	 * drops TSO when SG goes off, for example). */
	for (i = 0; !rc && desired && i < desired->n; i++) {
		const struct nt_setting *s = &desired->v[i];
		struct nt_value seen;
		char *attr;

		if ((o->only && strcmp(s->object, o->only)) ||
		    (nt_kinds[s->kind].flags & NT_KF_WINDOWS))
			continue;
		if (nt_linux_read(&x, s->kind, s->object, s->arg, &seen))
			continue;
		if (!nt_value_equal(&seen, &s->val)) {
			struct nt_buf want = {0}, got = {0};

			attr = nt_setting_attr(s);
			nt_value_format(&s->val, &want, false);
			nt_value_format(&seen, &got, false);
			failure(&j, "error: %s %s: accepted but not effective: after the changes it "
				"reads %s instead of %s (the kernel changed it as a side effect of another "
				"setting)", s->object, attr, got.p, want.p);
			nt_buf_free(&want);
			nt_buf_free(&got);
			free(attr);
			rc = 1;
		}
		nt_value_free(&seen);
	}
	if (!rc && interrupted) {
		failure(&j, "interrupted by signal %d after the last step", (int)interrupted);
		rc = 1;
		done = n;
	}
	if (rc) {
		size_t upto = done > batch_end ? done : batch_end, failed;

		/* a batch may have written past the failed step: undo all of it */
		if (upto > n)
			upto = n;
		fprintf(stderr, "Rolling back %zu step%s in reverse order.\n", upto,
			upto == 1 ? "" : "s");
		failed = rollback_txn(jfd, &j, &x, upto, NT_JS_FAILED, true);
		if (failed)
			rc = 3;
		else
			fprintf(stderr, "Rolled back: the host is as before.\n");
		if (o->confirm_timeout)
			disarm_systemd_timer(j.id);
		goto out;
	}
	if (o->confirm_timeout) {
		char when[64];

		nt_lctx_close(&x);
		ctx = false;
		if (start_watcher(state_fd, jfd, lock, &j)) {
			failure(&j, "error: the confirm watcher did not start; reverting now");
			rc = nt_linux_restore_journal(jfd, &j, NT_JS_REVERTED_UNCONFIRMED, true);
			rc = rc ? rc : 1;
			goto out;
		}
		nt_local_time(j.deadline_ns, when, sizeof(when));
		say(o, "Applied %zu change%s. Run 'nettune confirm' before %s (%u s), or they are "
		    "reverted. Journal %s\n", n, n == 1 ? "" : "s", when, o->confirm_timeout, j.id);
	} else {
		if (nt_journal_transition(jfd, &j, NT_JS_APPLIED))
			fprintf(stderr, "nettune apply: warning: cannot record the journal state "
				"'applied' in %s\n", j.id);
		say(o, "Applied %zu change%s (%lu netlink set requests, %lu ioctl sets, %lu file "
		    "writes); journal %s\n", n, n == 1 ? "" : "s", nt_io.netlink_sets,
		    nt_io.ioctl_sets, nt_io.file_writes, j.id);
	}
out:
	free(written);
	free(pending);
	if (ctx)
		nt_lctx_close(&x);
	nt_journal_free(&j);
	if (lock >= 0)
		close(lock);
	if (jfd >= 0)
		close(jfd);
	if (state_fd >= 0)
		close(state_fd);
	return rc;
}
