/* SPDX-License-Identifier: MIT */
/* nettune rollback / confirm, and the recovery check every command makes:
 * the journal's target is entered (or refused), never guessed. */
#include <errno.h>
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
	printf("Usage: nettune rollback [JOURNAL]\n"
	       "       nettune rollback --discard JOURNAL\n\n"
	       "Restores the previous values recorded in JOURNAL (default: the newest journal\n"
	       "in $NETTUNE_STATE_DIR/journal by its recorded time), newest change first,\n"
	       "reading each back.  The journal's network namespace and --root are entered\n"
	       "(refused when they no longer exist or were recreated).  A journal awaiting\n"
	       "confirmation is reverted by its watcher at once.  JOURNAL is an ID from\n"
	       "'ls $NETTUNE_STATE_DIR/journal' (with or without .json) or its path there.\n\n"
	       "  --discard JOURNAL  accept the host as it is: mark an interrupted or\n"
	       "                     incompletely rolled back journal 'discarded' (no writes)\n\n"
	       "Journal states: applying, applied, pending-confirm, confirmed, rolling-back,\n"
	       "rolled-back, reverted-unconfirmed, rollback-incomplete, discarded.  A rollback\n"
	       "is recorded (rolling-back) before its first write; one that was killed is\n"
	       "finished by the next 'nettune rollback'.  Every setting is read back; what\n"
	       "could not be restored is listed, and kept in the journal (rollback-incomplete).\n"
	       "SIGTERM, SIGINT and SIGHUP do not stop a rollback; each kernel request is\n"
	       "bounded by NETTUNE_NL_TIMEOUT_MS (15000).  A journal that is rolled back,\n"
	       "reverted or discarded is refused.\n"
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

int cmd_rollback(int argc, char **argv)
{
	const char *arg = NULL;
	bool discard = false, unconfirmed = false;
	char err[512];
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
		id = nt_xstrdup(v[0].id);
		nt_journal_list_free(v, n);
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
	if (discard ? !nt_jstate_open(j.state) : !nt_jstate_restorable(j.state)) {
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
	if (discard ? !nt_jstate_open(j.state) : !nt_jstate_restorable(j.state)) {
		rc = refuse_state(&j, "rollback");
		goto out;
	}
	if (discard) {
		if (nt_journal_transition(jfd, &j, NT_JS_DISCARDED)) {
			fprintf(stderr, "nettune rollback: error: cannot record the journal state\n");
			goto out;
		}
		printf("Discarded journal %s: the host is left as it is.\n", j.id);
		rc = NT_EXIT_OK;
		goto out;
	}
	if (nt_txn_enter_target(&j, nt_g.netns != NULL, err, sizeof(err))) {
		fprintf(stderr, "nettune rollback: error: %s; nothing was changed\n", err);
		goto out;
	}
	if (!unconfirmed)
		printf("%s %s (%zu setting%s, newest first)%s%s\n",
		       j.state == NT_JS_ROLLING_BACK ? "Finishing the interrupted rollback of" :
		       "Rolling back", j.id, j.n, j.n == 1 ? "" : "s",
		       j.netns ? " in network namespace " : "", j.netns ? j.netns : "");
	rc = nt_linux_restore_journal(jfd, &j, unconfirmed || was_unconfirmed(&j) ?
				      NT_JS_REVERTED_UNCONFIRMED : NT_JS_ROLLED_BACK, !unconfirmed);
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
