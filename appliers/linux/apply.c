/* SPDX-License-Identifier: MIT */
/* The Linux apply engine, generic over the kinds table. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../compiler/buf.h"
#include "../../compiler/json.h"
#include "../../compiler/snapshot.h"
#include "apply.h"
#include "sysio.h"

const char *nt_state_dir(void)
{
	const char *s = getenv("NETTUNE_STATE_DIR");

	return s && *s ? s : "/var/lib/nettune";
}

/* One apply at a time per host: an exclusive flock on STATE/lock. */
static int take_lock(void)
{
	char *p = nt_xasprintf("%s/lock", nt_state_dir());
	char info[256];
	int fd;

	nt_mkdirs(nt_state_dir());
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "nettune apply: error: cannot open the lock %s: %s\n", p, strerror(errno));
		free(p);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ssize_t n = pread(fd, info, sizeof(info) - 1, 0);

		info[n > 0 ? n : 0] = '\0';
		*strchrnul(info, '\n') = '\0';
		fprintf(stderr, "nettune apply: error: another nettune holds %s (%s); "
			"wait for it, or run 'nettune confirm' if it awaits confirmation\n", p,
			*info ? info : "holder unknown");
		close(fd);
		free(p);
		return -1;
	}
	snprintf(info, sizeof(info), "pid %d, since %ld\n", (int)getpid(), (long)time(NULL));
	if (ftruncate(fd, 0) == 0 && pwrite(fd, info, strlen(info), 0) < 0)
		(void)0;
	free(p);
	return fd;
}

/* Read-only check for a no-op apply: the host may be about to change
 * (a confirm-timeout revert is pending), so "nothing to do" would lie. */
static bool lock_busy(void)
{
	char *p = nt_xasprintf("%s/lock", nt_state_dir());
	char info[256];
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	bool busy = false;

	if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB)) {
		ssize_t n = pread(fd, info, sizeof(info) - 1, 0);

		info[n > 0 ? n : 0] = '\0';
		*strchrnul(info, '\n') = '\0';
		fprintf(stderr, "nettune apply: error: another nettune holds %s (%s); "
			"wait for it, or run 'nettune confirm' if it awaits confirmation\n", p,
			*info ? info : "holder unknown");
		busy = true;
	}
	if (fd >= 0)
		close(fd);
	free(p);
	return busy;
}

struct entry {
	enum nt_kind_id kind;
	char *object, *arg;
	bool had;			/* a value existed before */
	struct nt_value before, after;
};

static void entries_free(struct entry *e, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(e[i].object);
		free(e[i].arg);
		if (e[i].had)
			nt_value_free(&e[i].before);
		nt_value_free(&e[i].after);
	}
	free(e);
}

static char *attr_of(enum nt_kind_id k, const char *arg)
{
	return arg ? nt_xasprintf("%s %s", nt_kinds[k].name, arg) : nt_xstrdup(nt_kinds[k].name);
}

static int write_journal(const char *path, const struct entry *e, size_t n, const char *state,
			 const struct nt_apply_opts *o, long deadline)
{
	struct nt_buf b = {0};
	char *tmp = nt_xasprintf("%s.tmp", path);
	size_t i;
	int fd, r = 0;

	nt_buf_printf(&b, "{\"format\": \"nettune-journal/1\", \"created\": %ld, \"state\": \"%s\"",
		      (long)time(NULL), state);
	nt_buf_puts(&b, ", \"root\": ");
	nt_buf_json_str(&b, nt_sys_root);
	nt_buf_puts(&b, ", \"netns\": ");
	if (o && o->netns)
		nt_buf_json_str(&b, o->netns);
	else
		nt_buf_puts(&b, "null");
	nt_buf_puts(&b, ", \"profile\": ");
	nt_buf_json_str(&b, o && o->profile ? o->profile : "");
	nt_buf_printf(&b, ", \"deadline\": %ld,\n \"entries\": [", deadline);
	for (i = 0; i < n; i++) {
		char *attr = attr_of(e[i].kind, e[i].arg);

		nt_buf_puts(&b, i ? ",\n  {\"object\": " : "\n  {\"object\": ");
		nt_buf_json_str(&b, e[i].object);
		nt_buf_puts(&b, ", \"attribute\": ");
		nt_buf_json_str(&b, attr);
		nt_buf_puts(&b, ", \"before\": ");
		if (e[i].had)
			nt_value_json(&e[i].before, &b);
		else
			nt_buf_puts(&b, "null");
		nt_buf_puts(&b, ", \"after\": ");
		nt_value_json(&e[i].after, &b);
		nt_buf_puts(&b, "}");
		free(attr);
	}
	nt_buf_puts(&b, "\n]}\n");
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, b.p, b.n) != (ssize_t)b.n || fsync(fd) || close(fd) ||
	    rename(tmp, path))
		r = -errno ? -errno : -EIO;
	nt_buf_free(&b);
	free(tmp);
	return r;
}

static bool verify(struct nt_lctx *x, const struct entry *e, struct nt_value *seen)
{
	int r = nt_linux_ops[e->kind].read(x, e->object, e->arg, seen);

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

/* Restores entries [0, upto) in reverse order; returns how many failed. */
/* Writes e's previous value back unless it is already there; 0 or -errno
 * (-EIO: accepted but reads back otherwise). */
static int restore_one(struct nt_lctx *x, struct entry *e)
{
	struct nt_value cur, seen;
	int r;

	if (!nt_linux_ops[e->kind].read(x, e->object, e->arg, &cur)) {
		bool same = nt_value_equal(&cur, &e->before);

		nt_value_free(&cur);
		if (same)
			return 0;
	}
	x->err[0] = '\0';
	r = nt_linux_ops[e->kind].write(x, e->object, e->arg, &e->before);
	if (!r && !nt_linux_ops[e->kind].read(x, e->object, e->arg, &seen)) {
		if (!nt_value_equal(&seen, &e->before))
			r = -EIO;
		nt_value_free(&seen);
	}
	return r;
}

/* Restores e[upto-1] .. e[0].  A setting that depends on one restored
 * after it (tx-tcp-mangleid-segmentation needs tx-tcp-segmentation, which
 * the reverse order turns back on later) does not stick the first time,
 * so what failed gets a second pass once everything else is back. */
static size_t restore(struct nt_lctx *x, struct entry *e, size_t upto, bool verbose)
{
	size_t failed = 0, i;
	int *err = nt_xcalloc(upto + 1, sizeof(*err));

	for (i = upto; i-- > 0;) {
		if (!e[i].had) {
			char *attr = attr_of(e[i].kind, e[i].arg);

			fprintf(stderr, "  rollback: %s %s had no previous value; left as is\n",
				e[i].object, attr);
			free(attr);
			continue;
		}
		err[i] = restore_one(x, &e[i]);
		if (!err[i] && verbose) {
			char *attr = attr_of(e[i].kind, e[i].arg);
			struct nt_buf v = {0};

			nt_value_format(&e[i].before, &v, false);
			printf("  restored %s %s = %s\n", e[i].object, attr, v.p);
			nt_buf_free(&v);
			free(attr);
		}
	}
	for (i = upto; i-- > 0;) {
		char *attr;
		struct nt_buf v = {0};

		if (!err[i])
			continue;
		err[i] = restore_one(x, &e[i]);
		attr = attr_of(e[i].kind, e[i].arg);
		nt_value_format(&e[i].before, &v, false);
		if (err[i]) {
			fprintf(stderr, "  rollback FAILED: %s %s back to %s: %s\n", e[i].object, attr,
				v.p, *x->err ? x->err : strerror(-err[i]));
			failed++;
		} else if (verbose) {
			printf("  restored %s %s = %s (after the settings it depends on)\n",
			       e[i].object, attr, v.p);
		}
		nt_buf_free(&v);
		free(attr);
	}
	free(err);
	return failed;
}

static int roll_back(struct nt_lctx *x, struct entry *e, size_t upto, size_t n,
		     const char *jpath, const struct nt_apply_opts *o)
{
	size_t failed;

	fprintf(stderr, "Rolling back %zu step%s in reverse order.\n", upto, upto == 1 ? "" : "s");
	failed = restore(x, e, upto, true);
	write_journal(jpath, e, n, failed ? "rollback-incomplete" : "rolled-back", o, 0);
	if (failed) {
		fprintf(stderr, "nettune apply: error: rollback incomplete: %zu setting%s could not be "
			"restored (listed above); journal %s\n", failed, failed == 1 ? "" : "s", jpath);
		return 3;
	}
	fprintf(stderr, "Rolled back: the host is as before.\n");
	return 1;
}

static char *journal_path(void)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	char *dir = nt_xasprintf("%s/journal", nt_state_dir()), *p;

	nt_mkdirs(dir);
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	p = nt_xasprintf("%s/%s-%d.json", dir, stamp, (int)getpid());
	free(dir);
	return p;
}

/*
 * The features of one device that the plan changes one after another go
 * in one ETHTOOL_MSG_FEATURES_SET (the kernel applies them together, as
 * ethtool -K does); each is still journaled, verified and rolled back on
 * its own.  Sets *end past the last entry written.
 */
static int write_feature_batch(struct nt_lctx *x, const struct entry *e, size_t i, size_t n,
			       size_t *end)
{
	const char *names[256];
	bool on[256];
	size_t j, k = 0;
	int r;

	for (j = i; j < n && k < 256 && e[j].kind == NT_K_FEATURE &&
	     !strcmp(e[j].object, e[i].object); j++) {
		if (e[j].had && nt_value_equal(&e[j].before, &e[j].after))
			continue;
		names[k] = e[j].arg;
		on[k++] = e[j].after.b;
	}
	*end = j;
	x->feat_valid = false;
	r = nt_ethnl_features_set(x->nl, e[i].object, names, on, k);
	if (r) {
		const char *ext = nt_ethnl_extack(x->nl);

		snprintf(x->err, sizeof(x->err), "%s%s", ext ? "kernel: " : "", ext ? ext : strerror(-r));
	}
	return r;
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

static void watch_confirm(struct nt_lctx *x, struct entry *e, size_t n, const char *pending,
			  const char *jpath, const struct nt_apply_opts *o, long deadline)
{
	pid_t pid = fork();

	if (pid != 0)
		return;		/* parent (or fork failure: then there is no watcher) */
	setsid();
	if (!freopen("/dev/null", "r", stdin) || !freopen("/dev/null", "w", stdout))
		_exit(1);
	for (;;) {
		struct timespec ts = {0, 200 * 1000 * 1000};

		if (access(pending, F_OK))
			_exit(0);	/* confirmed */
		if (time(NULL) >= deadline)
			break;
		nanosleep(&ts, NULL);
	}
	nt_lctx_close(x);
	nt_lctx_open(x, x->facts);
	{
		size_t failed = restore(x, e, n, false);

		write_journal(jpath, e, n, failed ? "revert-incomplete" : "reverted-unconfirmed", o,
			      deadline);
	}
	unlink(pending);
	_exit(0);
}

int nt_linux_apply(const struct nt_plan *plan, const struct nt_state *desired,
		   struct nt_facts *facts, const struct nt_apply_opts *o)
{
	struct nt_lctx x;
	struct entry *e = NULL;
	size_t n = 0, i, batch_end = 0;
	char *jpath = NULL;
	int lock = -1, rc = 0, fail_at = fault_step();
	long deadline = 0;

	for (i = 0; i < plan->n; i++) {
		const struct nt_action *a = &plan->v[i];

		if (o->only && strcmp(a->object, o->only))
			continue;
		if (nt_kinds[a->kind].flags & NT_KF_WINDOWS) {
			fprintf(stderr, "nettune apply: error: %s is a Windows setting; use nettune emit --format ps1\n",
				nt_kinds[a->kind].name);
			entries_free(e, n);
			return 1;
		}
		e = nt_xrealloc(e, (n + 1) * sizeof(*e));
		memset(&e[n], 0, sizeof(e[n]));
		e[n].kind = a->kind;
		e[n].object = nt_xstrdup(a->object);
		e[n].arg = a->arg ? nt_xstrdup(a->arg) : NULL;
		nt_value_copy(&e[n].after, &a->to);
		n++;
	}
	if (!n) {
		if (lock_busy()) {
			entries_free(e, n);
			return 1;
		}
		say(o, "Nothing to do: the host already matches the profile.\n");
		entries_free(e, n);
		return 0;
	}
	if (o->dry_run) {
		say(o, "Dry run: %zu change%s would be made; nothing was changed.\n", n, n == 1 ? "" : "s");
		entries_free(e, n);
		return 0;
	}
	lock = take_lock();
	if (lock < 0) {
		entries_free(e, n);
		return 1;
	}
	nt_lctx_open(&x, facts);
	/* journal the live previous values before the first write */
	for (i = 0; i < n; i++) {
		struct nt_value v;

		if (!nt_linux_ops[e[i].kind].read(&x, e[i].object, e[i].arg, &v)) {
			e[i].had = true;
			e[i].before = v;
		}
	}
	jpath = journal_path();
	if (o->confirm_timeout)
		deadline = (long)time(NULL) + (long)o->confirm_timeout;
	if (write_journal(jpath, e, n, "applying", o, deadline)) {
		fprintf(stderr, "nettune apply: error: cannot write the journal %s: %s; nothing changed\n",
			jpath, strerror(errno));
		rc = 1;
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct nt_value seen = {0};
		char *attr = attr_of(e[i].kind, e[i].arg);
		struct nt_buf from = {0}, to = {0}, got = {0};
		int r;

		if (e[i].had)
			nt_value_format(&e[i].before, &from, false);
		else
			nt_buf_puts(&from, "(none)");
		nt_value_format(&e[i].after, &to, false);
		if (e[i].had && nt_value_equal(&e[i].before, &e[i].after)) {
			say(o, "  ok       %s %s = %s\n", e[i].object, attr, to.p);
			goto next;
		}
		x.err[0] = '\0';
		if (i < batch_end) {
			r = 0;		/* written with its device's other features */
		} else if (e[i].kind == NT_K_FEATURE && x.nl) {
			r = write_feature_batch(&x, e, i, n, &batch_end);
		} else {
			r = nt_linux_ops[e[i].kind].write(&x, e[i].object, e[i].arg, &e[i].after);
		}
		if (!r && fail_at == (int)i + 1) {
			r = -EIO;
			snprintf(x.err, sizeof(x.err), "injected failure at step %zu", i + 1);
		}
		if (r) {
			fprintf(stderr, "nettune apply: error: %s %s: %s -> %s refused: %s\n", e[i].object,
				attr, from.p, to.p, *x.err ? x.err : strerror(-r));
			rc = 1;
		} else if (!verify(&x, &e[i], &seen)) {
			if (seen.t == e[i].after.t && (seen.s || seen.cpus || seen.bytes || seen.list ||
						       e[i].after.t == NT_V_BOOL || e[i].after.t == NT_V_U32))
				nt_value_format(&seen, &got, false);
			fprintf(stderr, "nettune apply: error: %s %s: accepted but not effective: asked %s, "
				"the kernel reports %s%s%s\n", e[i].object, attr, to.p,
				got.p ? got.p : "nothing",
				e[i].kind == NT_K_FEATURE ? " (fixed, or dropped by a dependency)" : "",
				e[i].kind == NT_K_RING ? " (the driver rounded it)" : "");
			rc = 1;
		} else {
			say(o, "  changed  %s %s: %s -> %s\n", e[i].object, attr, from.p, to.p);
		}
		if (seen.t || seen.s || seen.cpus || seen.bytes || seen.list)
			nt_value_free(&seen);
next:
		free(attr);
		nt_buf_free(&from);
		nt_buf_free(&to);
		nt_buf_free(&got);
		if (rc) {
			/* a batch may have written past step i: undo all of it */
			rc = roll_back(&x, e, i + 1 > batch_end ? i + 1 : batch_end, n, jpath, o);
			goto out;
		}
	}
	/* Converged means every desired setting reads back as desired: a
	 * write can silently change another setting (netdev_fix_features
	 * drops TSO when SG goes off, for example). */
	for (i = 0; desired && i < desired->n; i++) {
		const struct nt_setting *s = &desired->v[i];
		struct nt_value seen;
		char *attr;

		if ((o->only && strcmp(s->object, o->only)) || !nt_linux_ops[s->kind].read ||
		    (nt_kinds[s->kind].flags & NT_KF_WINDOWS))
			continue;
		if (nt_linux_ops[s->kind].read(&x, s->object, s->arg, &seen))
			continue;
		if (!nt_value_equal(&seen, &s->val)) {
			struct nt_buf want = {0}, got = {0};

			attr = nt_setting_attr(s);
			nt_value_format(&s->val, &want, false);
			nt_value_format(&seen, &got, false);
			fprintf(stderr, "nettune apply: error: %s %s: accepted but not effective: after the "
				"changes it reads %s instead of %s (the kernel changed it as a side effect "
				"of another setting)\n", s->object, attr, got.p, want.p);
			nt_buf_free(&want);
			nt_buf_free(&got);
			free(attr);
			rc = 1;
		}
		nt_value_free(&seen);
	}
	if (rc) {
		rc = roll_back(&x, e, n, n, jpath, o);
		goto out;
	}
	if (o->confirm_timeout) {
		char *pending = nt_xasprintf("%s/pending-confirm", nt_state_dir());
		FILE *f = fopen(pending, "w");

		if (f) {
			fprintf(f, "%s\n%ld\n", jpath, deadline);
			fclose(f);
		}
		write_journal(jpath, e, n, "pending-confirm", o, deadline);
		fflush(NULL);
		watch_confirm(&x, e, n, pending, jpath, o, deadline);
		say(o, "Applied %zu change%s. Run 'nettune confirm' within %u s, or they are reverted.\n",
		    n, n == 1 ? "" : "s", o->confirm_timeout);
		free(pending);
	} else {
		write_journal(jpath, e, n, "applied", o, 0);
		say(o, "Applied %zu change%s (%lu netlink set requests, %lu ioctl sets, %lu file writes); "
		    "journal %s\n", n, n == 1 ? "" : "s", nt_io.netlink_sets, nt_io.ioctl_sets,
		    nt_io.file_writes, jpath);
	}
out:
	nt_lctx_close(&x);
	entries_free(e, n);
	free(jpath);
	if (lock >= 0)
		close(lock);
	return rc;
}

static char *newest_journal(void)
{
	char *dir = nt_xasprintf("%s/journal", nt_state_dir()), *best = NULL;
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l < 6 || strcmp(de->d_name + l - 5, ".json"))
			continue;
		if (!best || strcmp(de->d_name, best) > 0) {
			free(best);
			best = nt_xstrdup(de->d_name);
		}
	}
	if (d)
		closedir(d);
	if (best) {
		char *p = nt_xasprintf("%s/%s", dir, best);

		free(best);
		best = p;
	}
	free(dir);
	return best;
}

int nt_linux_rollback(const char *journal, struct nt_facts *facts)
{
	char *path = journal ? nt_xstrdup(journal) : newest_journal();
	struct nt_diags d = {0};
	struct nt_json *j;
	const struct nt_json *ents;
	struct entry *e = NULL;
	size_t n = 0, i, failed;
	struct nt_lctx x;
	int lock, rc = 0;

	if (!path) {
		fprintf(stderr, "nettune rollback: error: no journal in %s/journal\n", nt_state_dir());
		return 1;
	}
	j = nt_json_parse_file(path, &d);
	ents = j ? nt_json_get(j, "entries") : NULL;
	if (!j || !ents || ents->t != NT_J_ARR) {
		if (!d.n) {
			struct nt_mark m = {nt_intern(path), 0, 0};

			nt_error(&d, m, "journal", "not a nettune journal (no entries)");
		}
		nt_diags_print_text(&d, stderr);
		nt_diags_free(&d);
		nt_json_free(j);
		free(path);
		return 1;
	}
	for (i = 0; i < ents->n; i++) {
		const char *obj, *attr, *why;
		const struct nt_json *bv;
		enum nt_kind_id k;
		char *arg;
		struct nt_value v;

		if (!nt_json_str(ents->v[i], "object", &obj, true, &d) ||
		    !nt_json_str(ents->v[i], "attribute", &attr, true, &d) ||
		    !nt_parse_attr(attr, &k, &arg))
			continue;
		bv = nt_json_get(ents->v[i], "before");
		e = nt_xrealloc(e, (n + 1) * sizeof(*e));
		memset(&e[n], 0, sizeof(e[n]));
		e[n].kind = k;
		e[n].object = nt_xstrdup(obj);
		e[n].arg = arg;
		e[n].after = nt_v_u32(0);
		if (bv && bv->t != NT_J_NULL && nt_value_from_json(k, bv, &v, &why)) {
			e[n].had = true;
			e[n].before = v;
		}
		n++;
	}
	nt_json_free(j);
	if (d.errors) {
		nt_diags_print_text(&d, stderr);
		nt_diags_free(&d);
		entries_free(e, n);
		free(path);
		return 1;
	}
	lock = take_lock();
	if (lock < 0) {
		entries_free(e, n);
		free(path);
		return 1;
	}
	nt_lctx_open(&x, facts);
	printf("Rolling back %s (%zu setting%s, newest first)\n", path, n, n == 1 ? "" : "s");
	failed = restore(&x, e, n, true);
	if (failed) {
		fprintf(stderr, "nettune rollback: error: %zu setting%s could not be restored\n", failed,
			failed == 1 ? "" : "s");
		rc = 3;
	} else {
		printf("Rolled back.\n");
	}
	nt_lctx_close(&x);
	entries_free(e, n);
	free(path);
	close(lock);
	return rc;
}

int nt_linux_confirm(void)
{
	char *pending = nt_xasprintf("%s/pending-confirm", nt_state_dir());
	char *s = nt_sys_read(pending);
	int rc = 0;

	if (!s) {
		fprintf(stderr, "nettune confirm: error: no change awaits confirmation (%s)\n", pending);
		rc = 1;
	} else if (unlink(pending)) {
		fprintf(stderr, "nettune confirm: error: %s: %s\n", pending, strerror(errno));
		rc = 1;
	} else {
		*strchrnul(s, '\n') = '\0';
		printf("Confirmed: the changes of %s stay.\n", s);
		/* wait for the watcher to see it and release the lock */
		for (int k = 0; k < 20; k++) {
			char *lp = nt_xasprintf("%s/lock", nt_state_dir());
			int fd = open(lp, O_RDWR | O_CLOEXEC);

			free(lp);
			if (fd >= 0 && !flock(fd, LOCK_EX | LOCK_NB)) {
				close(fd);
				break;
			}
			if (fd >= 0)
				close(fd);
			usleep(100000);
		}
	}
	free(s);
	free(pending);
	return rc;
}
