/* SPDX-License-Identifier: MIT */
/* The transaction in one room: lock, journal, confirm watcher, systemd
 * timer, enter-target, the recovery check, revert, restore and the
 * rollback policy; the steps are apply.c's (txn.h has the API). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
#include "nlio.h"
#include "statedir.h"
#include "sysio.h"
#include "txn.h"

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

#define say nt_apply_say
#define failure nt_apply_failure

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
	failed = nt_apply_restore(x, j, upto, verbose);
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

/* Reads every setting of a journal back to its previous value (the caller
 * is in the journal's namespace and root).  Observes the host afresh: the
 * revert never depends on what the apply held in memory. */
static int restore_journal(int jfd, struct nt_journal *j, enum nt_jstate done, bool verbose)
{
	struct nt_observe_req req;
	bool skip_rows[NT_K__COUNT];
	struct nt_facts f;
	struct nt_state st;
	struct nt_diags d = {0};
	struct nt_lctx x;
	size_t failed;

	nt_nl_abort_on_signal = false;	/* a signal does not stop a rollback */
	nt_journal_observe_req(j, &req, skip_rows);
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


static bool apply_blocked(int jfd, const char *cmd)
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

/* The watcher's wait: until the journal's marker is gone (confirmed), a
 * signal, or the deadline. */
static void watch_until(int jfd, const struct nt_journal *j)
{
	for (;;) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		char *mark = nt_xasprintf("%s.open", j->id);
		bool closed = faccessat(jfd, mark, F_OK, AT_SYMLINK_NOFOLLOW) && errno == ENOENT;

		free(mark);
		if (closed || interrupted || nt_now_ns() >= j->deadline_ns)
			break;
		nanosleep(&ts, NULL);
	}
}

/* The watcher's end: reverts the journal on disk if it still awaits
 * confirmation (under the journal state lock), and exits. */
static void watcher_exit(int state_fd, int jfd, const struct nt_journal *j)
{
	struct nt_journal cur;
	struct nt_diags d = {0};
	int tx = nt_txn_lock(state_fd), rc = 0;

	if (!nt_journal_load(jfd, j->id, &cur, &d)) {
		if (cur.state == NT_JS_PENDING_CONFIRM)
			rc = restore_journal(jfd, &cur, NT_JS_REVERTED_UNCONFIRMED, false);
		nt_journal_free(&cur);
	}
	nt_diags_free(&d);
	if (tx >= 0)
		close(tx);
	_exit(rc);
}

/* The watcher process: keeps only what it needs (a caller's pipe held
 * open would block it until the deadline), takes the journal over, says
 * so on the pipe p, and watches. */
static void watcher(int state_fd, int jfd, int lock, const int p[2], struct nt_journal *j)
{
	int p1 = p[1];
	char ok = '1';

	signal(SIGHUP, SIG_IGN);	/* first: still in the terminal's process group */
	if (interrupted == SIGHUP)
		interrupted = 0;
	close(p[0]);
	nt_devcache_reset();	/* the parent's sockets and replies: this process reads afresh */
	nt_irqmap_reset();
	close_others((int[]){jfd, state_fd, lock, p1}, 4);
	setsid();
	if (!freopen("/dev/null", "r", stdin) || !freopen("/dev/null", "w", stdout) ||
	    !freopen("/dev/null", "w", stderr))
		_exit(1);
	nt_lock_rename(lock, "apply --confirm-timeout, confirm watcher");
	j->state = NT_JS_PENDING_CONFIRM;
	if (nt_journal_set_owner(jfd, j) || nt_journal_transition(jfd, j, NT_JS_PENDING_CONFIRM))
		_exit(1);
	if (write(p1, &ok, 1) != 1)
		_exit(1);
	close(p1);
	watch_until(jfd, j);
	watcher_exit(state_fd, jfd, j);
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
	ssize_t r;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0)
		watcher(state_fd, jfd, lock, p, j);
	close(p[1]);
	do
		r = read(p[0], &ok, 1);
	while (r < 0 && errno == EINTR);
	close(p[0]);
	return r == 1 && ok == '1' ? 0 : -ECHILD;
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

enum nt_approval nt_txn_approval(bool yes, bool dry_run, bool terminal)
{
	if (yes || dry_run)
		return NT_APPROVED;
	return terminal ? NT_APPROVE_ASK : NT_APPROVE_NEEDED;
}

/* The journal entries of the plan's actions (those of o->only); -1 after
 * refusing a Windows setting. */
static int entries_of(const struct nt_plan *plan, const struct nt_apply_opts *o,
		      struct nt_journal *j)
{
	for (size_t i = 0; i < plan->n; i++) {
		const struct nt_action *a = &plan->v[i];
		struct nt_jentry *e;

		if (o->only && strcmp(a->object, o->only))
			continue;
		if (nt_kinds[a->kind].flags & NT_KF_WINDOWS) {
			fprintf(stderr, "nettune apply: error: %s is a Windows setting; use nettune emit --format ps1\n",
				nt_kinds[a->kind].name);
			return -1;
		}
		j->e = nt_xrealloc(j->e, (j->n + 1) * sizeof(*j->e));
		e = &j->e[j->n++];
		memset(e, 0, sizeof(*e));
		e->kind = a->kind;
		e->object = nt_xstrdup(a->object);
		e->arg = a->arg ? nt_xstrdup(a->arg) : NULL;
		nt_value_copy(&e->after, &a->to);
		e->disruptive = a->flags & NT_SF_DISRUPTIVE;
	}
	return 0;
}

/* The state directory's fds an apply holds (-1: not open). */
struct txn_fds {
	int state_fd, jfd, lock;
};

static void fds_close(struct txn_fds *f)
{
	if (f->lock >= 0)
		close(f->lock);
	if (f->jfd >= 0)
		close(f->jfd);
	if (f->state_fd >= 0)
		close(f->state_fd);
}

/* A no-op must not claim "nothing to do" while a change is under way or
 * open: it waits for the lock like any apply. */
static int nothing_to_do(struct txn_fds *f, const struct nt_apply_opts *o)
{
	bool busy = false;

	if (f->jfd >= 0) {
		f->lock = nt_lock_take(f->state_fd, "apply", o->wait_ms);
		busy = f->lock < 0 || apply_blocked(f->jfd, "apply");
	}
	if (!busy)
		say(o, "%s\n", o->nothing_msg ? o->nothing_msg :
		    "Nothing to do: the host already matches the profile.");
	return busy ? 1 : 0;
}

/* The journal of the apply: its target and command, created applying
 * (and the systemd timer armed); 0, or 1 after saying why. */
static int begin_journal(int jfd, struct nt_journal *j, const struct nt_apply_opts *o)
{
	char err[512];

	j->netns = o->netns ? nt_xstrdup(o->netns) : NULL;
	if (*nt_sys_root) {
		char *abs = realpath(nt_sys_root, NULL);

		j->root = abs ? abs : nt_xstrdup(nt_sys_root);
	} else {
		j->root = nt_xstrdup("");
	}
	j->profile = nt_xstrdup(o->profile ? o->profile : "");
	j->command = nt_xstrdup(o->command ? o->command : "apply");
	j->cause = o->cause ? nt_xstrdup(o->cause) : NULL;
	if (o->confirm_timeout)
		j->deadline_ns = nt_now_ns() + (long long)o->confirm_timeout * 1000000000LL;
	if (nt_journal_create(jfd, j, NT_JS_APPLYING, err, sizeof(err))) {
		fprintf(stderr, "nettune apply: error: %s; nothing was changed\n", err);
		return 1;
	}
	if (o->confirm_timeout)
		arm_systemd_timer(j, o->confirm_timeout);
	return 0;
}

/* A failed or interrupted apply: every step made so far undone, newest
 * first (a batch may have written past the failed step: all of it). */
static int roll_back_failed(const struct txn_fds *f, struct nt_apply_run *r)
{
	size_t upto = r->done > r->batch_end ? r->done : r->batch_end, failed;
	int rc = 1;

	if (upto > r->j->n)
		upto = r->j->n;
	fprintf(stderr, "Rolling back %zu step%s in reverse order.\n", upto, upto == 1 ? "" : "s");
	failed = rollback_txn(f->jfd, r->j, &r->x, upto, NT_JS_FAILED, true);
	if (failed)
		rc = 3;
	else
		fprintf(stderr, "Rolled back: the host is as before.\n");
	if (r->o->confirm_timeout)
		disarm_systemd_timer(r->j->id);
	return rc;
}

/* Converged with a confirm deadline: the watcher takes the journal and
 * the lock over (or, if it cannot start, the apply is reverted now). */
static int hand_to_watcher(const struct txn_fds *f, struct nt_journal *j,
			   const struct nt_apply_opts *o)
{
	char when[64];
	int rc;

	if (start_watcher(f->state_fd, f->jfd, f->lock, j)) {
		failure(j, "error: the confirm watcher did not start; reverting now");
		rc = restore_journal(f->jfd, j, NT_JS_REVERTED_UNCONFIRMED, true);
		return rc ? rc : 1;
	}
	nt_local_time(j->deadline_ns, when, sizeof(when));
	say(o, "Applied %zu change%s. Run 'nettune confirm' before %s (%u s), or they are "
	    "reverted. Journal %s\n", j->n, j->n == 1 ? "" : "s", when, o->confirm_timeout, j->id);
	return 0;
}

static void applied(const struct txn_fds *f, struct nt_journal *j, const struct nt_apply_opts *o)
{
	if (nt_journal_transition(f->jfd, j, NT_JS_APPLIED))
		fprintf(stderr, "nettune apply: warning: cannot record the journal state "
			"'applied' in %s\n", j->id);
	say(o, "Applied %zu change%s (%lu netlink set requests, %lu ioctl sets, %lu file "
	    "writes); journal %s\n", j->n, j->n == 1 ? "" : "s", nt_io.netlink_sets,
	    nt_io.ioctl_sets, nt_io.file_writes, j->id);
}

/* Under the lock: the previous values read (one fresh dump per message
 * family, not a request per setting), journaled, the steps made, and
 * then rolled back, handed to the watcher, or recorded applied. */
static int transact(const struct txn_fds *f, struct nt_journal *j, const struct nt_state *desired,
		    struct nt_facts *facts, const struct nt_apply_opts *o, long long t0)
{
	struct nt_apply_run r = {.j = j, .o = o, .t0 = t0};
	int rc;

	nt_lctx_open(&r.x, facts);
	nt_devcache_stale_all();
	rc = nt_apply_read_before(&r.x, j);
	if (!rc)
		rc = begin_journal(f->jfd, j, o);
	if (!rc) {
		rc = nt_apply_steps(&r, desired);
		if (rc) {
			rc = roll_back_failed(f, &r);
		} else if (o->confirm_timeout) {
			nt_lctx_close(&r.x);
			return hand_to_watcher(f, j, o);
		} else {
			applied(f, j, o);
		}
	}
	nt_lctx_close(&r.x);
	return rc;
}

/* The lock count (nt_lock_generation) at which this process released
 * the lock with no journal open; 0 unknown.  Journals are opened only
 * under the lock, so if nobody took it since, none is open now and the
 * journal directory need not be listed again (a long-running agent
 * corrects many times a second, beside up to a thousand journals). */
static unsigned long long clean_at, clean_ino;
/* ... and the journal directory as it was then: any marker made since
 * changes it, even by a taker whose count did not reach the lock file */
static struct timespec clean_mtime, clean_ctime;

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static bool known_clean(int jfd)
{
	unsigned long long ino, g = nt_lock_generation(&ino);
	struct stat st;

	return clean_at && g && g == clean_at + 1 && ino == clean_ino && !fstat(jfd, &st) &&
	       same_time(&st.st_mtim, &clean_mtime) && same_time(&st.st_ctim, &clean_ctime);
}

static void mark_clean(int jfd)
{
	struct stat st;

	if (fstat(jfd, &st))
		return;
	clean_at = nt_lock_generation(&clean_ino);
	clean_mtime = st.st_mtim;
	clean_ctime = st.st_ctim;
}

/* The lock, no open journal in the way, no signal yet: then transact. */
static int apply_locked(struct nt_journal *j, const struct nt_state *desired,
			struct nt_facts *facts, const struct nt_apply_opts *o)
{
	struct txn_fds f = {-1, -1, -1};
	long long t0 = nt_now_ns();	/* elapsed times count from the approval */
	char err[512];
	int rc = 1;

	f.jfd = nt_statedir_open(j->n > 0, &f.state_fd, err, sizeof(err));
	if (f.jfd < 0 && (j->n || f.jfd != -ENOENT)) {
		fprintf(stderr, "nettune apply: error: state directory: %s; nothing was changed\n", err);
		return 1;
	}
	if (!j->n) {
		rc = nothing_to_do(&f, o);
	} else if ((f.lock = nt_lock_take(f.state_fd, "apply", o->wait_ms)) < 0) {
		rc = 1;
	} else {
		bool clean = known_clean(f.jfd), blocked = false;

		clean_at = 0;
		if (!clean) {
			nt_journal_sweep_markers(f.jfd);
			blocked = apply_blocked(f.jfd, "apply");
		}
		if (blocked)
			rc = 1;
		else if (interrupted)
			fprintf(stderr, "nettune apply: interrupted (signal %d); nothing was changed\n",
				(int)interrupted);
		else
			rc = transact(&f, j, desired, facts, o, t0);
		/* no journal open before, and this one closed (or never made):
		 * the next apply of this process need not list them again if
		 * nobody takes the lock meanwhile */
		if (!blocked && (!j->id || !nt_jstate_open(j->state)))
			mark_clean(f.jfd);
		if (o->journal_out && o->journal_out_len)
			snprintf(o->journal_out, o->journal_out_len, "%s", j->id ? j->id : "");
	}
	fds_close(&f);
	return rc;
}

int nt_txn_apply(const struct nt_plan *plan, const struct nt_state *desired,
		 struct nt_facts *facts, const struct nt_apply_opts *o)
{
	struct nt_journal j = {0};
	int rc;

	if (entries_of(plan, o, &j)) {
		nt_journal_free(&j);
		return 1;
	}
	if (o->dry_run) {
		/* exits like plan: 0 nothing to do, 2 changes pending (the plan
		 * printed before already says when there is nothing) */
		if (j.n)
			say(o, "Dry run: %zu change%s would be made; nothing was changed.\n", j.n,
			    j.n == 1 ? "" : "s");
		else if (o->nothing_msg)
			say(o, "%s\n", o->nothing_msg);
		rc = j.n ? 2 : 0;
	} else if (j.n && o->ask && !confirm_plan(plan, j.n, o)) {
		rc = 1;
	} else {
		rc = apply_locked(&j, desired, facts, o);
	}
	nt_journal_free(&j);
	return rc;
}

static unsigned long long current_netns_ino(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (unsigned long long)st.st_ino;
}

/* The host the journal was written on is this one (by machine-id). */
static int check_host(const struct nt_journal *j, char *err, size_t errlen)
{
	FILE *f;
	char mid[128] = "";

	if (!j->machine_id || !*j->machine_id)
		return 0;
	f = fopen("/etc/machine-id", "re");
	if (f) {
		if (!fgets(mid, sizeof(mid), f))
			mid[0] = '\0';
		fclose(f);
	}
	*strchrnul(mid, '\n') = '\0';
	if (*mid && strcmp(mid, j->machine_id)) {
		snprintf(err, errlen, "journal %s was written on another host (%s, machine-id "
			 "%s); refusing to restore it here", j->id,
			 j->hostname ? j->hostname : "?", j->machine_id);
		return -1;
	}
	return 0;
}

/* --root: the journal's, unless the command line names the same one. */
static int enter_root(const struct nt_journal *j, const struct nt_txn_where *w, char *err,
		      size_t errlen)
{
	struct stat st;

	if (w->root && strcmp(w->root, j->root ? j->root : "")) {
		char *a = realpath(w->root, NULL), *b = *j->root ? realpath(j->root, NULL) : NULL;
		bool same = a && b && !strcmp(a, b);

		free(a);
		free(b);
		if (!same) {
			snprintf(err, errlen, "journal %s was applied with %s%s; not with --root %s",
				 j->id, *j->root ? "--root " : "no --root", j->root, w->root);
			return -1;
		}
	}
	if (!*j->root)
		return 0;
	if (stat(j->root, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "journal %s was applied to --root %s, which no longer "
			 "exists", j->id, j->root);
		return -1;
	}
	nt_sys_root = j->root;
	return 0;
}

/* The journal's named network namespace, checked by inode, then cookie. */
static int enter_named_netns(const struct nt_journal *j, const struct nt_txn_where *w,
			     char *err, size_t errlen)
{
	char *p = nt_xasprintf("/run/netns/%s", j->netns);
	struct stat st;
	int r = stat(p, &st);

	free(p);
	if (r) {
		snprintf(err, errlen, "journal %s was applied in network namespace %s, which no "
			 "longer exists; nothing to restore there", j->id, j->netns);
		return -1;
	}
	if (j->netns_ino && (unsigned long long)st.st_ino != j->netns_ino) {
		snprintf(err, errlen, "network namespace %s was deleted and created again since "
			 "journal %s; refusing to restore into the new one", j->netns, j->id);
		return -1;
	}
	if (w->enter_netns(j->netns, !*j->root)) {
		snprintf(err, errlen, "cannot enter network namespace %s", j->netns);
		return -1;
	}
	if (j->netns_cookie && nt_netns_cookie() != j->netns_cookie) {
		snprintf(err, errlen, "network namespace %s was deleted and created again since "
			 "journal %s (its cookie differs); refusing to restore into the new one",
			 j->netns, j->id);
		return -1;
	}
	return 0;
}

/* Enters the journal's target: its --root and network namespace (by name,
 * checked against the recorded inode: a namespace deleted and created
 * again is refused), on the host whose machine-id it recorded.  0, or -1
 * with the reason in err. */
static int enter_target(const struct nt_journal *j, const struct nt_txn_where *w, char *err,
			size_t errlen)
{
	unsigned long long cur = current_netns_ino();
	bool entered_netns = w->netns != NULL;

	if (check_host(j, err, errlen) || enter_root(j, w, err, errlen))
		return -1;
	/* the cookie identifies a namespace for the whole boot; inode numbers
	 * are reused as soon as a namespace is freed */
	if (j->netns_cookie ? nt_netns_cookie() == j->netns_cookie :
	    j->netns_ino && cur == j->netns_ino)
		return 0;		/* already there (--netns NAME, ip netns exec) */
	if (!j->netns) {
		if (entered_netns || j->netns_cookie || (j->netns_ino && cur != j->netns_ino)) {
			snprintf(err, errlen, "journal %s was applied in %s network namespace, not in "
				 "this one; run the rollback from there (without --netns)", j->id,
				 j->netns_ino ? "another" : "the host's");
			return -1;
		}
		return 0;
	}
	if (entered_netns) {
		snprintf(err, errlen, "journal %s was applied in network namespace %s; this command "
			 "runs in another one (drop --netns, or give --netns %s)", j->id, j->netns,
			 j->netns);
		return -1;
	}
	return enter_named_netns(j, w, err, errlen);
}

/* The cookie of the network namespace /run/netns/NAME now (0: unknown:
 * entering it needs root).  This process enters it and comes back (only
 * its network namespace: the mounts and the rest stay). */
static unsigned long long named_netns_cookie(const char *name)
{
	char *path = nt_xasprintf("/run/netns/%s", name);
	int fd = open(path, O_RDONLY | O_CLOEXEC), self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	unsigned long long cookie = 0;

	free(path);
	if (fd >= 0 && self >= 0 && !setns(fd, CLONE_NEWNET)) {
		cookie = nt_netns_cookie();
		nt_journal_netns_moved();
		if (setns(self, CLONE_NEWNET)) {
			fprintf(stderr, "nettune: error: cannot return to the network namespace nettune "
				"ran in: %s\n", strerror(errno));
			exit(1);
		}
	}
	if (fd >= 0)
		close(fd);
	if (self >= 0)
		close(self);
	return cookie;
}

bool nt_txn_target_gone(const struct nt_journal *j, char *why, size_t n)
{
	unsigned long long cookie;
	struct stat st;

	if (*j->root && (stat(j->root, &st) || !S_ISDIR(st.st_mode))) {
		snprintf(why, n, "its --root %s no longer exists", nt_esc(j->root));
		return true;
	}
	if (!j->netns)
		return false;	/* an unnamed namespace cannot be looked up from here */
	{
		char *path = nt_xasprintf("/run/netns/%s", j->netns);
		int r = stat(path, &st), e = errno;

		free(path);
		if (r && e == ENOENT) {
			snprintf(why, n, "its network namespace %s no longer exists",
				 nt_esc(j->netns));
			return true;
		}
		if (r)
			return false;
	}
	/* inode numbers are reused at once; the cookie is not (needs root) */
	if ((j->netns_ino && (unsigned long long)st.st_ino != j->netns_ino) ||
	    (j->netns_cookie && geteuid() == 0 &&
	     (cookie = named_netns_cookie(j->netns)) && cookie != j->netns_cookie)) {
		snprintf(why, n, "its network namespace %s was deleted and created again",
			 nt_esc(j->netns));
		return true;
	}
	return false;
}

/* The state a rolling-back journal was rolled back from. */
static enum nt_jstate rolled_back_from(const struct nt_journal *j)
{
	for (size_t i = j->ntr; i-- > 0;)
		if (j->tr[i].state != NT_JS_ROLLING_BACK)
			return j->tr[i].state;
	return NT_JS_APPLYING;
}

/* Whether the journal's changes are reverted as unconfirmed (its rollback,
 * resumed, ends reverted-unconfirmed). */
static bool was_unconfirmed(const struct nt_journal *j)
{
	enum nt_jstate s = j->state == NT_JS_ROLLING_BACK ? rolled_back_from(j) : j->state;

	return s == NT_JS_PENDING_CONFIRM || s == NT_JS_REVERTED_UNCONFIRMED;
}

static bool expired(const struct nt_journal *j)
{
	return j->deadline_ns && nt_now_ns() >= j->deadline_ns &&
	       (j->state == NT_JS_PENDING_CONFIRM || j->state == NT_JS_APPLYING ||
		(j->state == NT_JS_ROLLING_BACK && was_unconfirmed(j)));
}

static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Whether two journals act on the same host, namespace and root. */
static bool same_target(const struct nt_journal *a, const struct nt_journal *b)
{
	if (a->machine_id && b->machine_id && strcmp(a->machine_id, b->machine_id))
		return false;
	if (!same_str(a->root, b->root))
		return false;
	if (a->netns_cookie && b->netns_cookie)
		return a->netns_cookie == b->netns_cookie;
	return a->netns_ino == b->netns_ino && same_str(a->netns, b->netns);
}

static bool same_setting(const struct nt_jentry *a, const struct nt_jentry *b)
{
	return a->kind == b->kind && !strcmp(a->object, b->object) && same_str(a->arg, b->arg);
}

/* The settings of j that n changed too, as "eth0 mtu, ..." (how many). */
static size_t shared_settings(const struct nt_journal *j, const struct nt_journal *n,
			      struct nt_buf *out)
{
	size_t k = 0;

	for (size_t a = 0; a < j->n; a++) {
		for (size_t b = 0; b < n->n; b++) {
			char *l;

			if (!same_setting(&j->e[a], &n->e[b]))
				continue;
			if (k < 8) {
				l = nt_setting_label(j->e[a].kind, j->e[a].object, j->e[a].arg);
				nt_buf_printf(out, "%s%s", k ? ", " : "", nt_esc(l));
				free(l);
			}
			k++;
			break;
		}
	}
	if (k > 8)
		nt_buf_printf(out, " and %zu more", k - 8);
	return k;
}

/*
 * Rollback order: restoring j under a newer journal that is not rolled back
 * and changed the same settings on the same target would bring back j's
 * previous values over the newer change, and the newer journal's own
 * rollback would then restore j's "after" (neither the original nor any
 * profile).  Says which journals stand in the way; true if any does.
 */
static bool newer_blocks(int jfd, const struct nt_journal *j)
{
	struct nt_journal *v;
	size_t n = nt_journal_list(jfd, false, &v, NULL), i, nb = 0;
	const char *newest = NULL;

	for (i = 0; i < n && strcmp(v[i].id, j->id); i++) {
		struct nt_buf l = {0};
		char when[64];

		if (!nt_jstate_restorable(v[i].state) || !same_target(&v[i], j) ||
		    !shared_settings(j, &v[i], &l)) {
			nt_buf_free(&l);
			continue;
		}
		nt_local_time(v[i].created_ns, when, sizeof(when));
		fprintf(stderr, "nettune rollback: error: journal %s (%s, %s) is newer than %s "
			"and changed the same settings: %s\n", v[i].id, nt_jstate_name(v[i].state),
			when, j->id, l.p);
		nt_buf_free(&l);
		if (!newest)
			newest = v[i].id;
		nb++;
	}
	if (nb)
		fprintf(stderr, "nettune rollback: error: roll back the newer journal%s first, newest "
			"first ('nettune rollback %s'), or give --force to restore the values of %s "
			"over %s; nothing was changed\n", nb == 1 ? "" : "s", newest, j->id,
			nb == 1 ? "it" : "them");
	nt_journal_list_free(v, n);
	return nb > 0;
}

/* Reverts an unconfirmed journal in a child that enters its target (this
 * process keeps its own namespace for the command it runs).  The caller
 * holds the apply lock.  Returns the child's exit status. */
static int revert_in_child(int state_fd, int jfd, const char *id, const struct nt_txn_where *w)
{
	pid_t pid;
	int st;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		struct nt_journal j;
		struct nt_diags d = {0};
		char err[512];
		int tx = nt_txn_lock(state_fd), rc;

		if (nt_journal_load(jfd, id, &j, &d)) {
			nt_diags_print_text(&d, stderr);
			_exit(1);
		}
		if (!expired(&j) || nt_journal_owner_alive(&j))
			_exit(0);	/* confirmed, reverted or being handled meanwhile */
		if (enter_target(&j, w, err, sizeof(err))) {
			fprintf(stderr, "nettune: error: %s\n", err);
			_exit(1);
		}
		rc = restore_journal(jfd, &j, NT_JS_REVERTED_UNCONFIRMED, false);
		if (tx >= 0)
			close(tx);
		_exit(rc);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* An expired journal whose process is gone: reverted now (as root, under
 * the lock *lock takes once); false when someone else holds the lock. */
static bool revert_expired(int state_fd, int jfd, int *lock, const struct nt_journal *j,
			   const struct nt_txn_where *w)
{
	char when[64];

	nt_local_time(j->deadline_ns, when, sizeof(when));
	if (geteuid() != 0) {
		fprintf(stderr, "nettune: warning: the changes of journal %s were not confirmed by "
			"%s and must be reverted: run 'nettune rollback' as root\n", j->id, when);
		return true;
	}
	if (*lock < 0) {
		*lock = nt_lock_take(state_fd, "revert", 0);
		if (*lock < 0)
			return false;	/* someone else is at it */
	}
	fprintf(stderr, "nettune: the changes of journal %s were not confirmed by %s: reverting "
		"them first\n", j->id, when);
	if (revert_in_child(state_fd, jfd, j->id, w))
		fprintf(stderr, "nettune: error: reverting journal %s failed; see 'nettune "
			"rollback %s'\n", j->id, j->id);
	else
		fprintf(stderr, "nettune: reverted journal %s\n", j->id);
	return true;
}

/* The warning for an open journal whose process is gone (not expired). */
static void warn_left_open(const char *cmd, const struct nt_journal *j)
{
	char when[64];

	if (j->state == NT_JS_PENDING_CONFIRM) {
		nt_local_time(j->deadline_ns, when, sizeof(when));
		fprintf(stderr, "nettune: warning: journal %s awaits confirmation until %s but "
			"its watcher (pid %d) is gone; it is reverted at the deadline by the "
			"next nettune run ('nettune confirm' keeps it)\n", j->id, when, j->pid);
		return;
	}
	if (!strcmp(cmd, "rollback"))
		return;
	nt_local_time(j->ntr ? j->tr[j->ntr - 1].at_ns : j->created_ns, when, sizeof(when));
	if (j->state == NT_JS_ROLLING_BACK)
		fprintf(stderr, "nettune: warning: the rollback of journal %s was interrupted at "
			"%s (pid %d is gone): the host may be half-restored; 'nettune rollback %s' "
			"finishes it, 'nettune rollback --discard %s' accepts the host as it is\n",
			j->id, when, j->pid, j->id, j->id);
	else
		fprintf(stderr, "nettune: warning: journal %s was left %s at %s by pid %d, which "
			"is gone: the host may be half-applied; 'nettune rollback %s' restores it, "
			"'nettune rollback --discard %s' accepts it\n", j->id,
			nt_jstate_name(j->state), when, j->pid, j->id, j->id);
}

void nt_txn_recover(const char *cmd, const struct nt_txn_where *w)
{
	char err[512];
	int state_fd = -1, jfd = nt_statedir_open(false, &state_fd, err, sizeof(err));
	struct nt_journal *v;
	size_t n, i, nb;
	int lock = -1;
	char **bad;

	if (jfd < 0)
		return;		/* none yet, or unsafe: the commands that write say so */
	n = nt_journal_list(jfd, true, &v, NULL);
	for (i = 0; i < n; i++) {
		if (nt_journal_owner_alive(&v[i]))
			continue;
		if (!expired(&v[i]))
			warn_left_open(cmd, &v[i]);
		else if (!revert_expired(state_fd, jfd, &lock, &v[i], w))
			break;
	}
	nt_journal_list_free(v, n);
	nb = nt_journal_unusable(jfd, true, &bad);
	for (i = 0; i < nb; i++) {
		fprintf(stderr, "nettune: warning: journal %s is open but unusable: the host may "
			"be half-applied ('nettune show %s' says why)\n", bad[i], bad[i]);
		free(bad[i]);
	}
	free(bad);
	if (lock >= 0)
		close(lock);
	close(jfd);
	close(state_fd);
}

/* Asks a live confirm watcher to revert now (SIGTERM) and waits for it. */
static int revert_via_watcher(int jfd, struct nt_journal *j)
{
	struct nt_journal cur;
	struct nt_diags d = {0};
	int rc = 1;

	if (kill(j->pid, SIGTERM)) {
		fprintf(stderr, "nettune rollback: error: cannot signal the confirm watcher (pid %d): "
			"%s\n", j->pid, strerror(errno));
		return 1;
	}
	for (int k = 0; k < 600 && nt_proc_alive(j->pid, j->pid_start); k++)
		usleep(50000);
	if (!nt_journal_load(jfd, j->id, &cur, &d)) {
		if (cur.state == NT_JS_REVERTED_UNCONFIRMED) {
			printf("Rolled back %s (its confirm watcher reverted it).\n", cur.id);
			rc = 0;
		} else {
			fprintf(stderr, "nettune rollback: error: journal %s is %s after its watcher "
				"ended\n", cur.id, nt_jstate_name(cur.state));
			rc = cur.state == NT_JS_ROLLBACK_INCOMPLETE ? 3 : 1;
		}
		nt_journal_free(&cur);
	}
	nt_diags_print_text(&d, stderr);
	nt_diags_free(&d);
	return rc;
}

static int refuse_state(const struct nt_journal *j, const char *cmd)
{
	char when[64];

	nt_local_time(nt_journal_when(j, j->state), when, sizeof(when));
	switch (j->state) {
	case NT_JS_ROLLED_BACK:
		fprintf(stderr, "nettune %s: error: journal %s was already rolled back at %s\n", cmd,
			j->id, when);
		break;
	case NT_JS_FAILED:
		fprintf(stderr, "nettune %s: error: journal %s is a failed apply, already rolled back "
			"at %s%s%s\n", cmd, j->id, when, j->error ? ": " : "",
			j->error ? nt_esc(j->error) : "");
		break;
	case NT_JS_REVERTED_UNCONFIRMED:
		fprintf(stderr, "nettune %s: error: journal %s was already reverted (unconfirmed) at "
			"%s\n", cmd, j->id, when);
		break;
	case NT_JS_DISCARDED:
		fprintf(stderr, "nettune %s: error: journal %s was discarded at %s\n", cmd, j->id,
			when);
		break;
	default:
		fprintf(stderr, "nettune %s: error: journal %s is %s since %s\n", cmd, j->id,
			nt_jstate_name(j->state), when);
		break;
	}
	return 1;
}
/*
 * A bare rollback's journal: the newest that can be rolled back.  Failed,
 * rolled-back, reverted and discarded ones are skipped (nothing of theirs
 * is left to restore), and so are those whose target is gone, with a note.
 * Says which it took; NULL (said why) when there is none.
 */
static char *newest_restorable(const struct nt_journal *v, size_t n)
{
	size_t skipped = 0, gone = 0;
	char why[512], when[64];

	for (size_t k = 0; k < n; k++) {
		if (!nt_jstate_restorable(v[k].state)) {
			skipped++;
			continue;
		}
		if (nt_txn_target_gone(&v[k], why, sizeof(why))) {
			fprintf(stderr, "nettune rollback: note: skipping journal %s: %s ('nettune "
				"rollback --discard %s' retires it)\n", v[k].id, why, v[k].id);
			gone++;
			continue;
		}
		nt_local_time(v[k].created_ns, when, sizeof(when));
		if (skipped || gone)
			printf("The newest journal that can be rolled back is %s (%s, %s; "
			       "%zu newer skipped: %s).\n", v[k].id, nt_jstate_name(v[k].state), when,
			       skipped + gone, gone && skipped ? "failed, rolled back, reverted or "
			       "discarded, or their target is gone" : gone ? "their target is gone" :
			       "failed, rolled back, reverted or discarded");
		else
			printf("The newest journal is %s (%s, %s).\n", v[k].id,
			       nt_jstate_name(v[k].state), when);
		return nt_xstrdup(v[k].id);
	}
	fprintf(stderr, "nettune rollback: error: no journal in %s/journal can be rolled back: "
		"%s ('nettune history' lists them)\n", nt_state_dir(), gone ?
		"each is failed, rolled back, reverted or discarded, or its target is gone" :
		"each is failed, rolled back, reverted or discarded");
	return NULL;
}

/* One rollback: the request, the state directory's fds (-1: not open),
 * the journal and what loading it said. */
struct rollback {
	const struct nt_rollback_req *rq;
	int state_fd, jfd, lock, tx;
	char *id;
	struct nt_journal j;
	struct nt_diags d;
	bool gone;			/* --discard of a journal whose target is gone */
	char why[512];			/* which part of the target is gone */
};

/* A bare rollback's journal id; NULL after saying why there is none. */
static char *pick_newest(int jfd)
{
	struct nt_journal *v;
	size_t n = nt_journal_list(jfd, false, &v, NULL), nb;
	char **bad, *id = NULL;

	/* "newest" is by recorded time, which an unusable journal hides */
	nb = nt_journal_unusable(jfd, false, &bad);
	if (nb) {
		for (size_t k = 0; k < nb; k++)
			fprintf(stderr, "nettune rollback: error: journal %s is unusable (see "
				"'nettune show %s')\n", bad[k], bad[k]);
		fprintf(stderr, "nettune rollback: error: cannot tell which journal is the "
			"newest; name the one to roll back\n");
		for (size_t k = 0; k < nb; k++)
			free(bad[k]);
		free(bad);
	} else if (!n) {
		fprintf(stderr, "nettune rollback: error: no journal in %s/journal\n", nt_state_dir());
	} else {
		id = newest_restorable(v, n);
	}
	nt_journal_list_free(v, n);
	return id;
}

/* The state directory and the journal, loaded; 0, or -1 after saying why. */
static int rb_load(struct rollback *b)
{
	char err[512];

	b->jfd = nt_statedir_open(false, &b->state_fd, err, sizeof(err));
	if (b->jfd == -ENOENT) {
		fprintf(stderr, "nettune rollback: error: no journal in %s/journal\n", nt_state_dir());
		return -1;
	}
	if (b->jfd < 0) {
		fprintf(stderr, "nettune rollback: error: state directory: %s\n", err);
		return -1;
	}
	if (b->rq->journal) {
		b->id = nt_journal_id_of(b->rq->journal, err, sizeof(err));
		if (!b->id)
			fprintf(stderr, "nettune rollback: error: %s\n", err);
	} else {
		b->id = pick_newest(b->jfd);
	}
	if (!b->id)
		return -1;
	if (!nt_journal_load(b->jfd, b->id, &b->j, &b->d))
		return 0;
	if (!b->d.n)
		fprintf(stderr, "nettune rollback: error: no journal %s in %s/journal; nothing "
			"was changed\n", b->id, nt_state_dir());
	else
		fprintf(stderr, "nettune rollback: error: journal %s is unusable; nothing was "
			"changed\n", b->id);
	return -1;
}

/* A journal whose process is alive is its own: the timer's revert waits
 * for it, a confirm watcher is asked to revert.  -1 to go on, else the
 * exit code. */
static int rb_owner(struct rollback *b)
{
	const struct nt_journal *j = &b->j;
	bool alive = nt_journal_owner_alive(j);

	if (b->rq->unconfirmed) {
		/* the transient systemd timer: revert only what is still unconfirmed */
		return !expired(j) || alive ? 0 : -1;
	}
	if (j->state == NT_JS_PENDING_CONFIRM && alive) {
		if (!b->rq->discard)
			return revert_via_watcher(b->jfd, &b->j);
		fprintf(stderr, "nettune rollback: error: journal %s awaits confirmation (watcher "
			"pid %d): 'nettune confirm' keeps it, 'nettune rollback %s' reverts it; "
			"--discard is for journals whose process is gone\n", j->id, j->pid, j->id);
		return 1;
	}
	if (j->state == NT_JS_APPLYING && alive) {
		fprintf(stderr, "nettune rollback: error: journal %s is being applied by pid %d\n",
			j->id, j->pid);
		return 1;
	}
	if (j->state == NT_JS_ROLLING_BACK && alive) {
		fprintf(stderr, "nettune rollback: error: journal %s is being rolled back by pid %d\n",
			j->id, j->pid);
		return 1;
	}
	return -1;
}

/* Whether the journal's state allows the rollback (or --discard). */
static bool rb_state_ok(const struct rollback *b)
{
	enum nt_jstate s = b->j.state;

	return b->rq->discard ? nt_jstate_open(s) || b->gone : nt_jstate_restorable(s);
}

/* The locks, then the journal again: its state may have changed while
 * waiting for them.  0, or -1 after saying why not. */
static int rb_relock(struct rollback *b)
{
	struct nt_journal again;

	b->lock = nt_lock_take(b->state_fd, b->rq->discard ? "rollback --discard" : "rollback",
			       30000);
	if (b->lock < 0)
		return -1;
	b->tx = nt_txn_lock(b->state_fd);
	nt_diags_free(&b->d);
	memset(&b->d, 0, sizeof(b->d));
	if (nt_journal_load(b->jfd, b->id, &again, &b->d)) {
		nt_diags_print_text(&b->d, stderr);
		return -1;
	}
	nt_journal_free(&b->j);
	b->j = again;
	return 0;
}

static int rb_discard(struct rollback *b)
{
	if (nt_journal_transition(b->jfd, &b->j, NT_JS_DISCARDED)) {
		fprintf(stderr, "nettune rollback: error: cannot record the journal state\n");
		return 1;
	}
	if (b->gone)
		printf("Discarded journal %s: %s; there is nothing to restore.\n", b->j.id, b->why);
	else
		printf("Discarded journal %s: the host is left as it is.\n", b->j.id);
	return 0;
}

/* Settings changed since the apply block the rollback (unless --force). */
static bool changed_since_blocks(struct nt_journal *j)
{
	struct nt_buf ch = {0};
	size_t k = nt_linux_changed_since(j, &ch);

	if (k)
		fprintf(stderr, "nettune rollback: error: %zu setting%s of journal %s changed "
			"since the apply (restoring would overwrite %s):\n%s"
			"nettune rollback: error: give --force to restore the previous values "
			"anyway; nothing was changed\n", k, k == 1 ? "" : "s", j->id,
			k == 1 ? "it" : "them", ch.p);
	nt_buf_free(&ch);
	return k > 0;
}

/* The rollback order checks, the target entered, then the restore. */
static int rb_restore(struct rollback *b)
{
	const struct nt_rollback_req *rq = b->rq;
	struct nt_journal *j = &b->j;
	/* the confirm window's revert (the timer's, or of a journal whose
	 * watcher is gone) undoes its own fresh changes: never held back */
	bool checked = !rq->force && !rq->unconfirmed && !was_unconfirmed(j);
	char err[512];
	int rc;

	if (checked && newer_blocks(b->jfd, j))
		return 1;
	if (enter_target(j, &rq->where, err, sizeof(err))) {
		fprintf(stderr, "nettune rollback: error: %s; nothing was changed\n", err);
		if (nt_txn_target_gone(j, b->why, sizeof(b->why)))
			fprintf(stderr, "nettune rollback: 'nettune rollback --discard %s' retires the "
				"journal (%s)\n", j->id, b->why);
		return 1;
	}
	if (checked && changed_since_blocks(j))
		return 1;
	if (!rq->unconfirmed)
		printf("%s %s (%zu setting%s, newest first)%s%s\n",
		       j->state == NT_JS_ROLLING_BACK ? "Finishing the interrupted rollback of" :
		       "Rolling back", j->id, j->n, j->n == 1 ? "" : "s",
		       j->netns ? " in network namespace " : "", j->netns ? j->netns : "");
	/* a failed apply's journal (it has an error) stays failed once its
	 * changes are undone, whoever finishes its rollback */
	rc = restore_journal(b->jfd, j, rq->unconfirmed || was_unconfirmed(j) ?
			     NT_JS_REVERTED_UNCONFIRMED :
			     j->error ? NT_JS_FAILED : NT_JS_ROLLED_BACK, !rq->unconfirmed);
	if (!rc && !rq->unconfirmed)
		printf("Rolled back.\n");
	return rc;
}

/* From the loaded journal to the exit code. */
static int rb_run(struct rollback *b)
{
	int rc = rb_owner(b);

	if (rc >= 0)
		return rc;
	if (b->rq->discard && !nt_jstate_open(b->j.state) && nt_jstate_restorable(b->j.state))
		b->gone = nt_txn_target_gone(&b->j, b->why, sizeof(b->why));
	if (!rb_state_ok(b))
		return refuse_state(&b->j, "rollback");
	if (!b->rq->discard && !b->j.n) {
		fprintf(stderr, "nettune rollback: error: journal %s has no entries to restore\n",
			b->j.id);
		return 1;
	}
	if (rb_relock(b))
		return 1;
	if (!rb_state_ok(b))
		return refuse_state(&b->j, "rollback");
	return b->rq->discard ? rb_discard(b) : rb_restore(b);
}

int nt_txn_rollback(const struct nt_rollback_req *rq)
{
	struct rollback b = {.rq = rq, .state_fd = -1, .jfd = -1, .lock = -1, .tx = -1};
	int rc = 1;

	nt_apply_catch_signals();
	if (!rb_load(&b))
		rc = rb_run(&b);
	else if (b.jfd < 0)
		return 1;
	nt_diags_print_text(&b.d, stderr);
	nt_diags_free(&b.d);
	nt_journal_free(&b.j);
	free(b.id);
	if (b.tx >= 0)
		close(b.tx);
	if (b.lock >= 0)
		close(b.lock);
	if (b.jfd >= 0)
		close(b.jfd);
	if (b.state_fd >= 0)
		close(b.state_fd);
	return rc;
}

/* The journal that awaits confirmation is the open one; only when none is
 * open, the newest with a deadline says whether it is too late.  Its
 * index in *v (*n of them), or *n. */
static size_t confirm_candidate(int jfd, struct nt_journal **v, size_t *n)
{
	size_t i;

	*n = nt_journal_list(jfd, true, v, NULL);
	for (i = 0; i < *n; i++)
		if ((*v)[i].deadline_ns)
			return i;
	nt_journal_list_free(*v, *n);
	*n = nt_journal_list(jfd, false, v, NULL);
	for (i = 0; i < *n; i++)
		if ((*v)[i].deadline_ns)
			break;
	return i;
}

/* Why j cannot be confirmed (said), or false. */
static bool confirm_refused(const struct nt_journal *j)
{
	char when[64];

	if (j->state == NT_JS_REVERTED_UNCONFIRMED) {
		nt_local_time(nt_journal_when(j, NT_JS_REVERTED_UNCONFIRMED), when, sizeof(when));
		fprintf(stderr, "nettune confirm: error: too late: the changes of %s were reverted at "
			"%s\n", j->id, when);
	} else if (j->state == NT_JS_APPLYING) {
		fprintf(stderr, "nettune confirm: error: journal %s is still being applied%s\n",
			j->id, nt_journal_owner_alive(j) ? "" : " (its process is gone: it is "
			"reverted at the deadline)");
	} else if (nt_now_ns() >= j->deadline_ns) {
		nt_local_time(j->deadline_ns, when, sizeof(when));
		fprintf(stderr, "nettune confirm: error: too late: the deadline of %s passed at %s; "
			"the changes are being reverted\n", j->id, when);
	} else {
		return false;
	}
	return true;
}

int nt_txn_confirm(void)
{
	char err[512];
	int state_fd = -1, jfd, tx, rc = 1;
	struct nt_journal *v, *j;
	size_t n, i;

	jfd = nt_statedir_open(false, &state_fd, err, sizeof(err));
	if (jfd < 0) {
		if (jfd == -ENOENT)
			fprintf(stderr, "nettune confirm: error: no change awaits confirmation\n");
		else
			fprintf(stderr, "nettune confirm: error: state directory: %s\n", err);
		return 1;
	}
	tx = nt_txn_lock(state_fd);
	i = confirm_candidate(jfd, &v, &n);
	j = i < n ? &v[i] : NULL;
	if (!j || (j->state != NT_JS_PENDING_CONFIRM && j->state != NT_JS_APPLYING &&
		   j->state != NT_JS_REVERTED_UNCONFIRMED)) {
		fprintf(stderr, "nettune confirm: error: no change awaits confirmation\n");
	} else if (confirm_refused(j)) {
		;
	} else if (nt_journal_transition(jfd, j, NT_JS_CONFIRMED)) {
		fprintf(stderr, "nettune confirm: error: cannot record the confirmation in %s\n",
			j->id);
	} else {
		printf("Confirmed: the changes of %s stay.\n", j->id);
		disarm_systemd_timer(j->id);
		rc = 0;
		if (tx >= 0)
			close(tx);
		tx = -1;
		/* the watcher sees the marker gone within 100 ms and releases the lock */
		for (int k = 0; k < 50 && nt_proc_alive(j->pid, j->pid_start); k++)
			usleep(50000);
	}
	nt_journal_list_free(v, n);
	if (tx >= 0)
		close(tx);
	close(jfd);
	close(state_fd);
	return rc;
}
