/* SPDX-License-Identifier: MIT */
/* nettune rollback / confirm, and the recovery check every command makes:
 * the journal's target is entered (or refused), never guessed. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../appliers/linux/apply.h"
#include "../appliers/linux/journal.h"
#include "../appliers/linux/statedir.h"
#include "../appliers/linux/sysio.h"
#include "cli.h"
#include "../pipeline/netns.h"
#include "txn.h"

static unsigned long long current_netns_ino(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (unsigned long long)st.st_ino;
}

int nt_txn_enter_target(const struct nt_journal *j, bool entered_netns, char *err, size_t errlen)
{
	unsigned long long cur = current_netns_ino();

	if (j->machine_id && *j->machine_id) {
		FILE *f = fopen("/etc/machine-id", "re");
		char mid[128] = "";

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
	}
	/* --root: the journal's, unless the command line names the same one */
	if (nt_g.root && strcmp(nt_g.root, j->root ? j->root : "")) {
		char *a = realpath(nt_g.root, NULL), *b = *j->root ? realpath(j->root, NULL) : NULL;
		bool same = a && b && !strcmp(a, b);

		free(a);
		free(b);
		if (!same) {
			snprintf(err, errlen, "journal %s was applied with %s%s; not with --root %s",
				 j->id, *j->root ? "--root " : "no --root", j->root, nt_g.root);
			return -1;
		}
	}
	if (*j->root) {
		struct stat st;

		if (stat(j->root, &st) || !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "journal %s was applied to --root %s, which no longer "
				 "exists", j->id, j->root);
			return -1;
		}
		nt_sys_root = j->root;
	}
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
	}
	if (nt_enter_netns(j->netns, !*j->root)) {
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
		if (setns(self, CLONE_NEWNET)) {
			fprintf(stderr, "nettune: error: cannot return to the network namespace nettune "
				"ran in: %s\n", strerror(errno));
			exit(NT_EXIT_FAIL);
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
static int revert_in_child(int state_fd, int jfd, const char *id)
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
		if (nt_txn_enter_target(&j, false, err, sizeof(err))) {
			fprintf(stderr, "nettune: error: %s\n", err);
			_exit(1);
		}
		rc = nt_linux_restore_journal(jfd, &j, NT_JS_REVERTED_UNCONFIRMED, false);
		if (tx >= 0)
			close(tx);
		_exit(rc);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

void nt_txn_preflight(const char *cmd)
{
	char err[512], when[64];
	int state_fd = -1, jfd = nt_statedir_open(false, &state_fd, err, sizeof(err));
	struct nt_journal *v;
	size_t n, i;
	int lock = -1;

	if (jfd < 0)
		return;		/* none yet, or unsafe: the commands that write say so */
	n = nt_journal_list(jfd, true, &v, NULL);
	for (i = 0; i < n; i++) {
		struct nt_journal *j = &v[i];

		if (nt_journal_owner_alive(j))
			continue;
		if (expired(j)) {
			nt_local_time(j->deadline_ns, when, sizeof(when));
			if (geteuid() != 0) {
				fprintf(stderr, "nettune: warning: the changes of journal %s were not "
					"confirmed by %s and must be reverted: run 'nettune rollback' "
					"as root\n", j->id, when);
				continue;
			}
			if (lock < 0) {
				lock = nt_lock_take(state_fd, "revert", 0);
				if (lock < 0)
					break;	/* someone else is at it */
			}
			fprintf(stderr, "nettune: the changes of journal %s were not confirmed by %s: "
				"reverting them first\n", j->id, when);
			if (revert_in_child(state_fd, jfd, j->id))
				fprintf(stderr, "nettune: error: reverting journal %s failed; see "
					"'nettune rollback %s'\n", j->id, j->id);
			else
				fprintf(stderr, "nettune: reverted journal %s\n", j->id);
			continue;
		}
		if (j->state == NT_JS_PENDING_CONFIRM) {
			nt_local_time(j->deadline_ns, when, sizeof(when));
			fprintf(stderr, "nettune: warning: journal %s awaits confirmation until %s but "
				"its watcher (pid %d) is gone; it is reverted at the deadline by the "
				"next nettune run ('nettune confirm' keeps it)\n", j->id, when, j->pid);
		} else if (strcmp(cmd, "rollback") && j->state == NT_JS_ROLLING_BACK) {
			nt_local_time(j->ntr ? j->tr[j->ntr - 1].at_ns : j->created_ns, when,
				      sizeof(when));
			fprintf(stderr, "nettune: warning: the rollback of journal %s was interrupted at "
				"%s (pid %d is gone): the host may be half-restored; 'nettune rollback %s' "
				"finishes it, 'nettune rollback --discard %s' accepts the host as it is\n",
				j->id, when, j->pid, j->id, j->id);
		} else if (strcmp(cmd, "rollback")) {
			nt_local_time(j->ntr ? j->tr[j->ntr - 1].at_ns : j->created_ns, when,
				      sizeof(when));
			fprintf(stderr, "nettune: warning: journal %s was left %s at %s by pid %d, which "
				"is gone: the host may be half-applied; 'nettune rollback %s' restores it, "
				"'nettune rollback --discard %s' accepts it\n", j->id,
				nt_jstate_name(j->state), when, j->pid, j->id, j->id);
		}
	}
	nt_journal_list_free(v, n);
	{
		char **bad;
		size_t nb = nt_journal_unusable(jfd, true, &bad);

		for (i = 0; i < nb; i++) {
			fprintf(stderr, "nettune: warning: journal %s is open but unusable: the host may "
				"be half-applied ('nettune show %s' says why)\n", bad[i], bad[i]);
			free(bad[i]);
		}
		free(bad);
	}
	if (lock >= 0)
		close(lock);
	close(jfd);
	close(state_fd);
}

static void rollback_help(void)
{
	printf("Usage: nettune rollback [--force] [JOURNAL]\n"
	       "       nettune rollback --discard JOURNAL\n\n"
	       "Restores the previous values recorded in JOURNAL, newest change first,\n"
	       "reading each back.  JOURNAL is an ID from 'nettune history' (with or without\n"
	       ".json) or its path in $NETTUNE_STATE_DIR/journal.  Without it: the newest\n"
	       "journal that can be rolled back (by recorded time; failed, rolled-back,\n"
	       "reverted and discarded ones are skipped, and so, with a note, are those whose\n"
	       "target is gone); it says which it took.  The journal's network namespace\n"
	       "and --root are entered (refused when they no longer exist or were\n"
	       "recreated).  A journal awaiting confirmation is reverted by its watcher at\n"
	       "once.\n\n"
	       "Refused, unless --force, naming what stands in the way (exit 1, nothing\n"
	       "changed): a newer journal that is not rolled back changed the same settings\n"
	       "on the same target (roll it back first: rollbacks go newest first), or a\n"
	       "setting reads neither the value the apply set nor its previous value (it\n"
	       "was changed since, by hand or by another tool).\n\n"
	       "  --force            restore the previous values anyway\n"
	       "  --discard JOURNAL  accept the host as it is: mark an interrupted or\n"
	       "                     incompletely rolled back journal, or one whose target\n"
	       "                     is gone (namespace deleted or recreated, --root\n"
	       "                     removed), 'discarded' (no writes)\n\n"
	       "Journal states: applying, applied, pending-confirm, confirmed, rolling-back,\n"
	       "rolled-back (an operator's rollback), failed (a failed or interrupted apply,\n"
	       "rolled back; 'nettune show' has its error), reverted-unconfirmed,\n"
	       "rollback-incomplete, discarded.  A rollback is recorded (rolling-back) before\n"
	       "its first write; one that was killed is finished by the next 'nettune\n"
	       "rollback'.  Every setting is read back; what could not be restored is listed,\n"
	       "and kept in the journal (rollback-incomplete).  SIGTERM, SIGINT and SIGHUP do\n"
	       "not stop a rollback; each kernel request is bounded by NETTUNE_NL_TIMEOUT_MS\n"
	       "(15000).  A journal that is rolled back, failed, reverted or discarded is\n"
	       "refused.\n"
	       "Exit status: 0 restored, 1 error or refused (nothing changed), 3 incomplete.\n");
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
	return NT_EXIT_FAIL;
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

int cmd_rollback(int argc, char **argv)
{
	const char *arg = NULL;
	bool discard = false, unconfirmed = false, force = false, gone = false;
	char err[512], why[512];
	int state_fd = -1, jfd = -1, lock = -1, tx = -1, rc = NT_EXIT_FAIL, i;
	struct nt_journal j = {0};
	struct nt_diags d = {0};
	char *id = NULL;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			rollback_help();
			return NT_EXIT_OK;
		} else if (!strcmp(argv[i], "--discard")) {
			discard = true;
		} else if (!strcmp(argv[i], "--force")) {
			force = true;
		} else if (!strcmp(argv[i], "--unconfirmed")) {
			unconfirmed = true;	/* the systemd timer's call */
		} else if (argv[i][0] == '-' && strcmp(argv[i], "--")) {
			return nt_unknown_option("rollback", argv[i]);
		} else if (strcmp(argv[i], "--")) {
			if (arg)
				return nt_usage_error("rollback", "at most one JOURNAL");
			arg = argv[i];
		}
	}
	if (force && discard)
		return nt_usage_error("rollback", "--force restores; --discard writes nothing");
	if ((discard || unconfirmed) && !arg)
		return nt_usage_error("rollback", "%s needs a JOURNAL",
				      discard ? "--discard" : "--unconfirmed");
	nt_apply_catch_signals();
	jfd = nt_statedir_open(false, &state_fd, err, sizeof(err));
	if (jfd == -ENOENT) {
		fprintf(stderr, "nettune rollback: error: no journal in %s/journal\n", nt_state_dir());
		return NT_EXIT_FAIL;
	}
	if (jfd < 0) {
		fprintf(stderr, "nettune rollback: error: state directory: %s\n", err);
		return NT_EXIT_FAIL;
	}
	if (arg) {
		id = nt_journal_id_of(arg, err, sizeof(err));
		if (!id) {
			fprintf(stderr, "nettune rollback: error: %s\n", err);
			goto out;
		}
	} else {
		struct nt_journal *v;
		size_t n = nt_journal_list(jfd, false, &v, NULL), nb;
		char **bad;

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
			nt_journal_list_free(v, n);
			goto out;
		}
		if (!n) {
			fprintf(stderr, "nettune rollback: error: no journal in %s/journal\n",
				nt_state_dir());
			goto out;
		}
		id = newest_restorable(v, n);
		nt_journal_list_free(v, n);
		if (!id)
			goto out;
	}
	if (nt_journal_load(jfd, id, &j, &d)) {
		if (!d.n)
			fprintf(stderr, "nettune rollback: error: no journal %s in %s/journal; nothing "
				"was changed\n", id, nt_state_dir());
		else
			fprintf(stderr, "nettune rollback: error: journal %s is unusable; nothing was "
				"changed\n", id);
		goto out;
	}
	if (unconfirmed) {
		/* the transient systemd timer: revert only what is still unconfirmed */
		if (!expired(&j) || nt_journal_owner_alive(&j)) {
			rc = NT_EXIT_OK;
			goto out;
		}
	} else if (j.state == NT_JS_PENDING_CONFIRM && nt_journal_owner_alive(&j)) {
		if (discard) {
			fprintf(stderr, "nettune rollback: error: journal %s awaits confirmation (watcher "
				"pid %d): 'nettune confirm' keeps it, 'nettune rollback %s' reverts it; "
				"--discard is for journals whose process is gone\n", j.id, j.pid, j.id);
			goto out;
		}
		rc = revert_via_watcher(jfd, &j);
		goto out;
	} else if (j.state == NT_JS_APPLYING && nt_journal_owner_alive(&j)) {
		fprintf(stderr, "nettune rollback: error: journal %s is being applied by pid %d\n",
			j.id, j.pid);
		goto out;
	} else if (j.state == NT_JS_ROLLING_BACK && nt_journal_owner_alive(&j)) {
		fprintf(stderr, "nettune rollback: error: journal %s is being rolled back by pid %d\n",
			j.id, j.pid);
		goto out;
	}
	if (discard && !nt_jstate_open(j.state) && nt_jstate_restorable(j.state))
		gone = nt_txn_target_gone(&j, why, sizeof(why));
	if (discard ? !nt_jstate_open(j.state) && !gone : !nt_jstate_restorable(j.state)) {
		rc = refuse_state(&j, "rollback");
		goto out;
	}
	if (!discard && !j.n) {
		fprintf(stderr, "nettune rollback: error: journal %s has no entries to restore\n", j.id);
		goto out;
	}
	lock = nt_lock_take(state_fd, discard ? "rollback --discard" : "rollback", 30000);
	if (lock < 0)
		goto out;
	tx = nt_txn_lock(state_fd);
	/* the state may have changed while waiting for the locks */
	{
		struct nt_journal again;

		nt_diags_free(&d);
		memset(&d, 0, sizeof(d));
		if (nt_journal_load(jfd, id, &again, &d)) {
			nt_diags_print_text(&d, stderr);
			goto out;
		}
		nt_journal_free(&j);
		j = again;
	}
	if (discard ? !nt_jstate_open(j.state) && !gone : !nt_jstate_restorable(j.state)) {
		rc = refuse_state(&j, "rollback");
		goto out;
	}
	if (discard) {
		if (nt_journal_transition(jfd, &j, NT_JS_DISCARDED)) {
			fprintf(stderr, "nettune rollback: error: cannot record the journal state\n");
			goto out;
		}
		if (gone)
			printf("Discarded journal %s: %s; there is nothing to restore.\n", j.id, why);
		else
			printf("Discarded journal %s: the host is left as it is.\n", j.id);
		rc = NT_EXIT_OK;
		goto out;
	}
	/* the confirm window's revert (the timer's, or of a journal whose
	 * watcher is gone) undoes its own fresh changes: never held back */
	if (!force && !unconfirmed && !was_unconfirmed(&j) && newer_blocks(jfd, &j))
		goto out;
	if (nt_txn_enter_target(&j, nt_g.netns != NULL, err, sizeof(err))) {
		fprintf(stderr, "nettune rollback: error: %s; nothing was changed\n", err);
		if (nt_txn_target_gone(&j, why, sizeof(why)))
			fprintf(stderr, "nettune rollback: 'nettune rollback --discard %s' retires the "
				"journal (%s)\n", j.id, why);
		goto out;
	}
	if (!force && !unconfirmed && !was_unconfirmed(&j)) {
		struct nt_buf ch = {0};
		size_t k = nt_linux_changed_since(&j, &ch);

		if (k) {
			fprintf(stderr, "nettune rollback: error: %zu setting%s of journal %s changed "
				"since the apply (restoring would overwrite %s):\n%s"
				"nettune rollback: error: give --force to restore the previous values "
				"anyway; nothing was changed\n", k, k == 1 ? "" : "s", j.id,
				k == 1 ? "it" : "them", ch.p);
			nt_buf_free(&ch);
			goto out;
		}
		nt_buf_free(&ch);
	}
	if (!unconfirmed)
		printf("%s %s (%zu setting%s, newest first)%s%s\n",
		       j.state == NT_JS_ROLLING_BACK ? "Finishing the interrupted rollback of" :
		       "Rolling back", j.id, j.n, j.n == 1 ? "" : "s",
		       j.netns ? " in network namespace " : "", j.netns ? j.netns : "");
	/* a failed apply's journal (it has an error) stays failed once its
	 * changes are undone, whoever finishes its rollback */
	rc = nt_linux_restore_journal(jfd, &j, unconfirmed || was_unconfirmed(&j) ?
				      NT_JS_REVERTED_UNCONFIRMED :
				      j.error ? NT_JS_FAILED : NT_JS_ROLLED_BACK, !unconfirmed);
	if (!rc && !unconfirmed)
		printf("Rolled back.\n");
out:
	nt_diags_print_text(&d, stderr);
	nt_diags_free(&d);
	nt_journal_free(&j);
	free(id);
	if (tx >= 0)
		close(tx);
	if (lock >= 0)
		close(lock);
	if (jfd >= 0)
		close(jfd);
	if (state_fd >= 0)
		close(state_fd);
	return rc;
}

int cmd_confirm(int argc, char **argv)
{
	char err[512], when[64];
	int state_fd = -1, jfd, tx, rc = NT_EXIT_FAIL;
	struct nt_journal *v;
	size_t n, i;

	if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		printf("Usage: nettune confirm\n\nKeeps the changes of an 'apply --confirm-timeout' "
		       "that is waiting for\nconfirmation; without it they are reverted at the "
		       "deadline.  After the\ndeadline it fails: \"too late: reverted at T\".\n"
		       "Confirm only after checking through the changed path: from a new SSH\n"
		       "session (not the one that ran the apply), once the services pass their\n"
		       "health checks (nettune(1), TRANSACTIONS).\n"
		       "Exit status: 0 confirmed, 1 nothing to confirm or too late.\n");
		return NT_EXIT_OK;
	}
	if (argc > 0)
		return argv[0][0] == '-' ? nt_unknown_option("confirm", argv[0]) :
		       nt_usage_error("confirm", "takes no arguments");
	jfd = nt_statedir_open(false, &state_fd, err, sizeof(err));
	if (jfd < 0) {
		if (jfd == -ENOENT)
			fprintf(stderr, "nettune confirm: error: no change awaits confirmation\n");
		else
			fprintf(stderr, "nettune confirm: error: state directory: %s\n", err);
		return NT_EXIT_FAIL;
	}
	tx = nt_txn_lock(state_fd);
	/* the journal that awaits confirmation is the open one; only when none
	 * is open, the newest with a deadline says whether it is too late */
	n = nt_journal_list(jfd, true, &v, NULL);
	for (i = 0; i < n; i++)
		if (v[i].deadline_ns)
			break;
	if (i == n) {
		nt_journal_list_free(v, n);
		n = nt_journal_list(jfd, false, &v, NULL);
		for (i = 0; i < n; i++)
			if (v[i].deadline_ns)
				break;
	}
	if (i == n || (v[i].state != NT_JS_PENDING_CONFIRM && v[i].state != NT_JS_APPLYING &&
		       v[i].state != NT_JS_REVERTED_UNCONFIRMED)) {
		fprintf(stderr, "nettune confirm: error: no change awaits confirmation\n");
	} else if (v[i].state == NT_JS_REVERTED_UNCONFIRMED) {
		nt_local_time(nt_journal_when(&v[i], NT_JS_REVERTED_UNCONFIRMED), when, sizeof(when));
		fprintf(stderr, "nettune confirm: error: too late: the changes of %s were reverted at "
			"%s\n", v[i].id, when);
	} else if (v[i].state == NT_JS_APPLYING) {
		fprintf(stderr, "nettune confirm: error: journal %s is still being applied%s\n",
			v[i].id, nt_journal_owner_alive(&v[i]) ? "" : " (its process is gone: it is "
			"reverted at the deadline)");
	} else if (nt_now_ns() >= v[i].deadline_ns) {
		nt_local_time(v[i].deadline_ns, when, sizeof(when));
		fprintf(stderr, "nettune confirm: error: too late: the deadline of %s passed at %s; "
			"the changes are being reverted\n", v[i].id, when);
	} else if (nt_journal_transition(jfd, &v[i], NT_JS_CONFIRMED)) {
		fprintf(stderr, "nettune confirm: error: cannot record the confirmation in %s\n",
			v[i].id);
	} else {
		int watcher = v[i].pid;
		unsigned long long start = v[i].pid_start;

		printf("Confirmed: the changes of %s stay.\n", v[i].id);
		nt_apply_disarm_timer(v[i].id);
		rc = NT_EXIT_OK;
		if (tx >= 0)
			close(tx);
		tx = -1;
		/* the watcher sees the marker gone within 100 ms and releases the lock */
		for (int k = 0; k < 50 && nt_proc_alive(watcher, start); k++)
			usleep(50000);
	}
	nt_journal_list_free(v, n);
	if (tx >= 0)
		close(tx);
	close(jfd);
	close(state_fd);
	return rc;
}
