/* SPDX-License-Identifier: MIT */
/* The apply journal: unique creation, atomic state changes, checked loading. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/base/jsonw.h"
#include "../../compiler/formats/json.h"
#include "../../compiler/formats/record.h"
#include "../../compiler/formats/snapshot.h"
#include "../../compiler/model/names.h"
#include "journal.h"
#include "statedir.h"

static const char *const state_names[NT_JS__COUNT] = {
	[NT_JS_APPLYING] = "applying",
	[NT_JS_APPLIED] = "applied",
	[NT_JS_ROLLED_BACK] = "rolled-back",
	[NT_JS_ROLLBACK_INCOMPLETE] = "rollback-incomplete",
	[NT_JS_PENDING_CONFIRM] = "pending-confirm",
	[NT_JS_CONFIRMED] = "confirmed",
	[NT_JS_REVERTED_UNCONFIRMED] = "reverted-unconfirmed",
	[NT_JS_DISCARDED] = "discarded",
	[NT_JS_ROLLING_BACK] = "rolling-back",
	[NT_JS_FAILED] = "failed",
};

static int journal_save(int jfd, const struct nt_journal *j);

const char *nt_jstate_name(enum nt_jstate s)
{
	return (unsigned)s < NT_JS__COUNT ? state_names[s] : "?";
}

static int jstate_parse(const char *s)
{
	for (int i = 0; i < NT_JS__COUNT; i++)
		if (!strcmp(s, state_names[i]))
			return i;
	return -1;
}

bool nt_jstate_restorable(enum nt_jstate s)
{
	return s == NT_JS_APPLYING || s == NT_JS_APPLIED || s == NT_JS_ROLLBACK_INCOMPLETE ||
	       s == NT_JS_PENDING_CONFIRM || s == NT_JS_CONFIRMED || s == NT_JS_ROLLING_BACK;
}

bool nt_jstate_open(enum nt_jstate s)
{
	return s == NT_JS_APPLYING || s == NT_JS_PENDING_CONFIRM || s == NT_JS_ROLLBACK_INCOMPLETE ||
	       s == NT_JS_ROLLING_BACK;
}

long long nt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void nt_time_utc(long long ns, char *out, size_t n)
{
	time_t t = (time_t)(ns / 1000000000LL);
	struct tm tm;
	char s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, n, "%s.%09lldZ", s, ns % 1000000000LL);
}

const char *nt_jentry_problem(enum nt_kind_id k, const char *object, const char *arg)
{
	const char *what;

	/* the journal holds what the Linux applier wrote */
	if (nt_kinds[k].flags & NT_KF_WINDOWS)
		return "a Linux setting (this is a Windows one)";
	return nt_setting_problem(k, object, arg, &what);
}

static char *read_text(const char *path)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = fopen(path, "re");

	if (!f)
		return NULL;
	if (getline(&s, &n, f) < 0) {
		free(s);
		s = NULL;
	} else {
		*strchrnul(s, '\n') = '\0';
	}
	fclose(f);
	return s;
}

/* What names this process and host in a journal, read once per process
 * (a long-running agent journals every correction): the boot's id, the
 * machine's, and the process's start time (a forked child reads its own). */
static const char *boot_id(void)
{
	static char *id;

	if (!id)
		id = read_text("/proc/sys/kernel/random/boot_id");
	return id ? id : "";
}

static const char *machine_id(void)
{
	static char *id;
	static bool read;

	if (!read)
		id = read_text("/etc/machine-id");
	read = true;
	return id;
}

static unsigned long long self_start(void)
{
	static int pid;
	static unsigned long long start;

	if (pid != (int)getpid()) {
		pid = (int)getpid();
		start = nt_proc_start(pid);
	}
	return start;
}

/* The network namespace this process is in (inode and cookie), read
 * again after nt_journal_netns_moved and in a forked child. */
static struct {
	int pid;
	bool known;
	unsigned long long ino, cookie;
} netns_self;

void nt_journal_netns_moved(void)
{
	netns_self.known = false;
}

static void self_netns(unsigned long long *ino, unsigned long long *cookie)
{
	struct stat st;

	if (!netns_self.known || netns_self.pid != (int)getpid()) {
		netns_self.ino = stat("/proc/self/ns/net", &st) ? 0 : (unsigned long long)st.st_ino;
		netns_self.cookie = nt_netns_cookie();
		netns_self.pid = (int)getpid();
		netns_self.known = true;
	}
	*ino = netns_self.ino;
	*cookie = netns_self.cookie;
}

int nt_journal_create(int jfd, struct nt_journal *j, enum nt_jstate state, char *err,
		      size_t errlen)
{
	char stamp[32], host[256];
	time_t t;
	struct tm tm;
	int r;

	j->created_ns = nt_now_ns();
	j->pid = (int)getpid();
	j->pid_start = self_start();
	j->state = state;
	if (!gethostname(host, sizeof(host)))
		host[sizeof(host) - 1] = '\0';
	else
		strcpy(host, "?");
	j->hostname = nt_xstrdup(host);
	j->machine_id = machine_id() ? nt_xstrdup(machine_id()) : NULL;
	j->boot_id = *boot_id() ? nt_xstrdup(boot_id()) : NULL;
	self_netns(&j->netns_ino, &j->netns_cookie);
	if (!j->root)
		j->root = nt_xstrdup("");
	if (!j->profile)
		j->profile = nt_xstrdup("");
	t = (time_t)(j->created_ns / 1000000000LL);
	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", &tm);
	j->tr = nt_xrealloc(j->tr, (j->ntr + 1) * sizeof(*j->tr));
	j->tr[j->ntr++] = (struct nt_jtransition){state, j->created_ns, j->pid};
	/* unique: nanoseconds, PID and a counter; O_EXCL never overwrites */
	for (unsigned k = 0; k < 1000; k++) {
		char *mark;
		int fd;

		free(j->id);
		j->id = nt_xasprintf("%s.%09lldZ-%d-%u", stamp, j->created_ns % 1000000000LL,
				     j->pid, k);
		mark = nt_xasprintf("%s.open", j->id);
		fd = openat(jfd, mark, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		free(mark);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0) {
			r = -errno;
			snprintf(err, errlen, "cannot create a journal in %s/journal: %s",
				 nt_state_dir(), strerror(-r));
			return r;
		}
		close(fd);
		r = journal_save(jfd, j);
		if (r)
			snprintf(err, errlen, "cannot write the journal %s/journal/%s.json: %s",
				 nt_state_dir(), j->id, strerror(-r));
		return r;
	}
	snprintf(err, errlen, "cannot find a free journal name in %s/journal", nt_state_dir());
	return -EEXIST;
}

static void json_time(struct nt_jw *w, const char *key, long long ns)
{
	char s[48], k[32];

	nt_time_utc(ns, s, sizeof(s));
	snprintf(k, sizeof(k), "%s_ns", key);
	nt_jw_str(w, key, s);
	nt_jw_int(w, k, ns);
}

/* id and state, times, owner, host, target, profile, error: a few a line */
static void format_head(const struct nt_journal *j, struct nt_jw *w)
{
	nt_jw_str(w, "format", NT_JOURNAL_FORMAT);
	nt_jw_str(w, "id", j->id);
	nt_jw_str(w, "state", nt_jstate_name(j->state));
	nt_jw_break(w);
	json_time(w, "created", j->created_ns);
	nt_jw_break(w);
	if (j->deadline_ns) {
		json_time(w, "deadline", j->deadline_ns);
	} else {
		nt_jw_null(w, "deadline");
		nt_jw_int(w, "deadline_ns", 0);
	}
	nt_jw_break(w);
	nt_jw_int(w, "pid", j->pid);
	nt_jw_uint(w, "pid_start", j->pid_start);
	nt_jw_str(w, "command", j->command ? j->command : "apply");
	if (j->cause)
		nt_jw_str(w, "cause", j->cause);
	nt_jw_break(w);
	nt_jw_obj(w, "host", NT_JW_INLINE);
	nt_jw_str(w, "hostname", j->hostname);
	nt_jw_str(w, "machine_id", j->machine_id);
	nt_jw_str(w, "boot_id", j->boot_id);
	nt_jw_end(w);
	nt_jw_break(w);
	nt_jw_obj(w, "target", NT_JW_INLINE);
	nt_jw_str(w, "netns", j->netns);
	nt_jw_uint(w, "netns_inode", j->netns_ino);
	nt_jw_uint(w, "netns_cookie", j->netns_cookie);
	nt_jw_str(w, "root", j->root ? j->root : "");
	nt_jw_end(w);
	nt_jw_break(w);
	nt_jw_str(w, "profile", j->profile ? j->profile : "");
	nt_jw_break(w);
	nt_jw_str(w, "error", j->error);
	nt_jw_break(w);
}

/* transitions, entries and what the last rollback could not restore: one a line */
static void format_lists(const struct nt_journal *j, struct nt_jw *w)
{
	size_t i;

	nt_jw_arr(w, "transitions", NT_JW_LINES);
	for (i = 0; i < j->ntr; i++) {
		nt_jw_obj(w, NULL, NT_JW_INLINE);
		nt_jw_str(w, "state", nt_jstate_name(j->tr[i].state));
		json_time(w, "at", j->tr[i].at_ns);
		nt_jw_int(w, "pid", j->tr[i].pid);
		nt_jw_end(w);
	}
	nt_jw_end(w);
	nt_jw_break(w);
	nt_jw_arr(w, "entries", NT_JW_LINES);
	for (i = 0; i < j->n; i++) {
		const struct nt_jentry *e = &j->e[i];
		struct nt_record r = {e->object, e->kind, e->arg, e->had ? &e->before : NULL,
				      &e->after};

		nt_record_write(&r, NT_REC_JOURNAL, nt_jw_raw(w, NULL));
	}
	nt_jw_end(w);
	if (!j->nunrestored)
		return;
	nt_jw_break(w);
	nt_jw_arr(w, "not_restored", NT_JW_LINES);
	for (i = 0; i < j->nunrestored; i++) {
		nt_jw_obj(w, NULL, NT_JW_INLINE);
		nt_jw_uint(w, "entry", j->unrestored[i].entry);
		nt_jw_str(w, "reason", j->unrestored[i].reason);
		nt_jw_end(w);
	}
	nt_jw_end(w);
}

void nt_journal_format(const struct nt_journal *j, struct nt_buf *b)
{
	struct nt_jw w;

	nt_jw_init(&w, b, 1);
	nt_jw_obj(&w, NULL, NT_JW_MIXED);
	format_head(j, &w);
	format_lists(j, &w);
	nt_jw_end(&w);
	nt_buf_putc(b, '\n');
}

/* Journals written but not yet made durable (nt_journal_sync_later). */
static struct {
	bool on;
	int pid;		/* the process that asked: a forked child syncs */
	char **ids;
	size_t n;
} unsynced;

void nt_journal_sync_later(bool on)
{
	unsynced.on = on;
	unsynced.pid = (int)getpid();
}

static bool later(void)
{
	return unsynced.on && unsynced.pid == (int)getpid();
}

static void remember_unsynced(const char *id)
{
	for (size_t i = 0; i < unsynced.n; i++)
		if (!strcmp(unsynced.ids[i], id))
			return;
	unsynced.ids = nt_xrealloc(unsynced.ids, (unsynced.n + 1) * sizeof(char *));
	unsynced.ids[unsynced.n++] = nt_xstrdup(id);
}

bool nt_journal_unsynced(void)
{
	return unsynced.n > 0 && unsynced.pid == (int)getpid();
}

size_t nt_journal_take_unsynced(char ***ids)
{
	size_t n = unsynced.n;

	*ids = unsynced.ids;
	unsynced.ids = NULL;
	unsynced.n = 0;
	return n;
}

int nt_journal_sync_ids(int jfd, char **ids, size_t n)
{
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		char *name = nt_xasprintf("%s.json", ids[i]);
		int fd = openat(jfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

		/* gone: removed since (retention), nothing to keep */
		if (fd >= 0) {
			if (fsync(fd) && !r)
				r = -errno;
			close(fd);
		}
		free(name);
		free(ids[i]);
	}
	free(ids);
	/* the names: the renames, the markers made and removed */
	if (fsync(jfd) && !r)
		r = -errno;
	return r;
}

/* every journal written since, and the directory: now */
static int sync_all(int jfd)
{
	char **ids;
	size_t n = nt_journal_take_unsynced(&ids);

	return nt_journal_sync_ids(jfd, ids, n);
}

/* Atomic replace: temp file (O_EXCL), fsync, rename, fsync the directory
 * (the fsyncs later, in nt_journal_sync_ids, after nt_journal_sync_later). */
static int journal_save(int jfd, const struct nt_journal *j)
{
	static unsigned seq;
	struct nt_buf b = {0};
	char *tmp = NULL, *name = nt_xasprintf("%s.json", j->id);
	int fd = -1, r = 0;

	nt_journal_format(j, &b);
	for (unsigned k = 0; k < 1000; k++) {
		free(tmp);
		tmp = nt_xasprintf(".%s.%d.%u.tmp", j->id, (int)getpid(), seq++);
		fd = openat(jfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	/* its blocks now (no delayed allocation): ext4 would otherwise write
	 * the data out in the rename over the previous journal
	 * (auto_da_alloc), a disk write in the middle of a correction.  The
	 * size stays 0 until the data is written back (KEEP_SIZE): a machine
	 * crash before then leaves an empty journal, which reads as never
	 * written, not one of zero bytes of that size. */
	(void)!fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, (off_t)b.n);
	r = nt_write_all(fd, b.p, b.n);
	if (!r && !later() && fsync(fd))
		r = -errno;
	if (close(fd) && !r)
		r = -errno;
	if (!r && renameat(jfd, tmp, jfd, name))
		r = -errno;
	if (r)
		unlinkat(jfd, tmp, 0);
	else if (later() && unsynced.n < 256)
		remember_unsynced(j->id);
	else if (later())
		/* never idle for that long (a burst of corrections): now */
		r = (remember_unsynced(j->id), sync_all(jfd));
	else if (fsync(jfd))
		r = -errno;
out:
	free(tmp);
	free(name);
	nt_buf_free(&b);
	return r;
}

int nt_journal_transition(int jfd, struct nt_journal *j, enum nt_jstate to)
{
	char *mark = nt_xasprintf("%s.open", j->id);
	enum nt_jstate prev;
	int r;

	if (nt_jstate_open(to) &&
	    faccessat(jfd, mark, F_OK, AT_SYMLINK_NOFOLLOW) && errno == ENOENT) {
		/* reopened (rolling-back after applied): the marker first, made
		 * durable, so that a kill after the save is still found by
		 * every command (they look for markers) */
		int fd = openat(jfd, mark, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

		if (fd < 0 || (!later() && fsync(jfd))) {
			r = -errno;
			if (fd >= 0)
				close(fd);
			free(mark);
			return r;
		}
		close(fd);
	}
	prev = j->state;
	j->state = to;
	j->tr = nt_xrealloc(j->tr, (j->ntr + 1) * sizeof(*j->tr));
	j->tr[j->ntr++] = (struct nt_jtransition){to, nt_now_ns(), (int)getpid()};
	r = journal_save(jfd, j);
	if (r) {
		/* not on disk: the journal is still in the state the file says
		 * (an open one stays open for every decision after this) */
		j->state = prev;
		j->ntr--;
	}
	/* No fsync of the directory after the unlink: the save made the
	 * closed state durable (file, then directory) before the marker goes.
	 * A crash that loses the unlink leaves a marker beside a finished
	 * journal, which is stale by definition: nt_journal_list skips it and
	 * nt_journal_sweep_markers removes it under the lock.  An apply thus
	 * fsyncs four times: the journal and its directory before the first
	 * write, the closed journal and its directory after the last (a file
	 * fsync alone would not make a renamed name durable). */
	if (!r && !nt_jstate_open(to) && unlinkat(jfd, mark, 0) && errno != ENOENT)
		r = -errno;
	free(mark);
	return r;
}

int nt_journal_set_owner(int jfd, struct nt_journal *j)
{
	j->pid = (int)getpid();
	j->pid_start = nt_proc_start(j->pid);
	return journal_save(jfd, j);
}

long long nt_journal_when(const struct nt_journal *j, enum nt_jstate s)
{
	for (size_t i = j->ntr; i-- > 0;)
		if (j->tr[i].state == s)
			return j->tr[i].at_ns;
	return 0;
}

unsigned long long nt_netns_cookie(void)
{
	unsigned long long cookie = 0;
	socklen_t len = sizeof(cookie);
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len))
		cookie = 0;
	close(fd);
	return cookie;
}

bool nt_journal_owner_alive(const struct nt_journal *j)
{
	/* a PID means something only on the boot (and host) that wrote it */
	if (!j->boot_id || strcmp(j->boot_id, boot_id()))
		return false;
	return nt_proc_alive(j->pid, j->pid_start);
}

void nt_journal_clear_unrestored(struct nt_journal *j)
{
	for (size_t i = 0; i < j->nunrestored; i++)
		free(j->unrestored[i].reason);
	free(j->unrestored);
	j->unrestored = NULL;
	j->nunrestored = 0;
}

void nt_journal_set_error(struct nt_journal *j, const char *msg)
{
	size_t n = strlen(msg);

	if (j->error)
		return;
	if (n > NT_JOURNAL_ERROR_MAX) {
		n = NT_JOURNAL_ERROR_MAX;
		while (n && ((unsigned char)msg[n] & 0xc0) == 0x80)
			n--;	/* not in the middle of a UTF-8 character */
	}
	j->error = strndup(msg, n);
}

void nt_journal_add_unrestored(struct nt_journal *j, size_t entry, const char *reason)
{
	j->unrestored = nt_xrealloc(j->unrestored, (j->nunrestored + 1) * sizeof(*j->unrestored));
	j->unrestored[j->nunrestored].entry = entry;
	j->unrestored[j->nunrestored++].reason = nt_xstrdup(reason);
}

void nt_journal_free(struct nt_journal *j)
{
	for (size_t i = 0; i < j->n; i++) {
		free(j->e[i].object);
		free(j->e[i].arg);
		if (j->e[i].had)
			nt_value_free(&j->e[i].before);
		nt_value_free(&j->e[i].after);
	}
	free(j->e);
	nt_journal_clear_unrestored(j);
	free(j->tr);
	free(j->id);
	free(j->command);
	free(j->cause);
	free(j->hostname);
	free(j->machine_id);
	free(j->boot_id);
	free(j->netns);
	free(j->root);
	free(j->profile);
	free(j->error);
	memset(j, 0, sizeof(*j));
}

/* ---- loading (untrusted) ---- */

#define JERR(d, node, ...) nt_error(d, (node)->mark, "journal", __VA_ARGS__)

static const struct nt_json *want(const struct nt_json *o, const char *key, enum nt_jtype t,
				  bool required, struct nt_diags *d)
{
	const struct nt_json *v = nt_json_get(o, key);
	static const char *const tn[] = {"null", "a boolean", "a number", "a string", "an array",
					 "an object"};

	if (!v) {
		if (required)
			JERR(d, o, "missing \"%s\"", key);
		return NULL;
	}
	if (v->t == NT_J_NULL && !required)
		return NULL;
	if (v->t != t) {
		JERR(d, v, "\"%s\" must be %s", key, tn[t]);
		return NULL;
	}
	return v;
}

static bool want_i64(const struct nt_json *o, const char *key, long long lo, long long hi,
		     long long *out, bool required, struct nt_diags *d)
{
	const struct nt_json *v = want(o, key, NT_J_NUM, required, d);

	if (!v)
		return !required && !(nt_json_get(o, key) && nt_json_get(o, key)->t != NT_J_NULL);
	if (!v->is_int || v->i < lo || v->i > hi) {
		JERR(d, v, "\"%s\" must be an integer in %lld..%lld", key, lo, hi);
		return false;
	}
	*out = v->i;
	return true;
}

static char *dup_str(const struct nt_json *o, const char *key, size_t max, bool required,
		     struct nt_diags *d, bool *ok)
{
	const struct nt_json *v = want(o, key, NT_J_STR, required, d);

	if (!v) {
		if (required || (nt_json_get(o, key) && nt_json_get(o, key)->t != NT_J_NULL))
			*ok = false;
		return NULL;
	}
	if (strlen(v->s) > max) {
		JERR(d, v, "\"%s\" is longer than %zu bytes", key, max);
		*ok = false;
		return NULL;
	}
	return nt_xstrdup(v->s);
}

struct entry_ld {
	struct nt_diags *d;
	size_t i;
	const char *obj, *attr;
};

static void entry_err(void *ctx, const struct nt_json *at, enum nt_record_problem p, const char *a,
		      const char *b)
{
	struct entry_ld *x = ctx;

	if (p == NT_RECP_ATTR_UNKNOWN)
		JERR(x->d, at, "entry %zu: unknown attribute '%s'", x->i, a);
	else if (p == NT_RECP_NAME)
		JERR(x->d, at, "entry %zu: '%s %s': %s", x->i, x->obj, x->attr, b);
	else
		JERR(x->d, at, "entry %zu: \"%s\" is not a %s value: %s", x->i, a, x->attr, b);
}

static const char *entry_problem(enum nt_kind_id k, const char *object, const char *arg,
				 const char **part)
{
	*part = "object";
	return nt_jentry_problem(k, object, arg);
}

static bool load_entries(const struct nt_json *ents, struct nt_journal *j, struct nt_diags *d)
{
	struct entry_ld x = {d, 0, NULL, NULL};
	struct nt_record_reader rd = {entry_err, &x, entry_problem};
	bool ok = true;

	if (ents->n > NT_JOURNAL_MAX_ENTRIES) {
		JERR(d, ents, "more than %d entries", NT_JOURNAL_MAX_ENTRIES);
		return false;
	}
	j->e = nt_xcalloc(ents->n ? ents->n : 1, sizeof(*j->e));
	for (size_t i = 0; i < ents->n; i++) {
		const struct nt_json *r = ents->v[i], *bv, *av;
		const char *obj, *attr;
		struct nt_jentry *e = &j->e[j->n];
		enum nt_kind_id k;
		bool has_after;
		char *arg;
		int ar;

		if (r->t != NT_J_OBJ) {
			JERR(d, r, "entry %zu must be an object", i);
			ok = false;
			continue;
		}
		if (!nt_json_str(r, "object", &obj, true, d) ||
		    !nt_json_str(r, "attribute", &attr, true, d)) {
			ok = false;
			continue;
		}
		x.i = i;
		x.obj = obj;
		x.attr = attr;
		ar = nt_record_read_attr(&rd, r, obj, attr, &k, &arg);
		if (ar) {
			if (ar > 0)
				free(arg);
			ok = false;
			continue;
		}
		bv = nt_json_get(r, "before");
		av = nt_json_get(r, "after");
		if (!bv || !av) {
			JERR(d, r, "entry %zu needs \"before\" and \"after\"", i);
			free(arg);
			ok = false;
			continue;
		}
		if (!nt_record_read_value(&rd, bv, "before", k, true, &e->before, &e->had)) {
			free(arg);
			ok = false;
			continue;
		}
		if (!nt_record_read_value(&rd, av, "after", k, false, &e->after, &has_after)) {
			if (e->had)
				nt_value_free(&e->before);
			e->had = false;
			free(arg);
			ok = false;
			continue;
		}
		e->kind = k;
		e->object = nt_xstrdup(obj);
		e->arg = arg;
		j->n++;
	}
	return ok;
}

/* id, state, times, the owning process and the command */
static void load_head(const struct nt_json *r, struct nt_journal *j, struct nt_diags *d,
		      bool *ok)
{
	const struct nt_json *st;
	long long v;
	int s;

	j->id = dup_str(r, "id", 200, true, d, ok);
	st = want(r, "state", NT_J_STR, true, d);
	if (st && (s = jstate_parse(st->s)) >= 0)
		j->state = (enum nt_jstate)s;
	else if (st)
		JERR(d, st, "unknown journal state '%s'", st->s), *ok = false;
	else
		*ok = false;
	*ok &= want_i64(r, "created_ns", 0, 1LL << 62, &j->created_ns, true, d);
	*ok &= want_i64(r, "deadline_ns", 0, 1LL << 62, &j->deadline_ns, false, d);
	v = 0;
	*ok &= want_i64(r, "pid", 0, 1 << 30, &v, true, d);
	j->pid = (int)v;
	v = 0;
	*ok &= want_i64(r, "pid_start", 0, 1LL << 62, &v, false, d);
	j->pid_start = (unsigned long long)v;
	j->command = dup_str(r, "command", 64, false, d, ok);
	j->cause = dup_str(r, "cause", NT_JOURNAL_CAUSE_MAX, false, d, ok);
}

/* host: {hostname, machine_id, boot_id} */
static void load_host(const struct nt_json *r, struct nt_journal *j, struct nt_diags *d,
		      bool *ok)
{
	const struct nt_json *host = want(r, "host", NT_J_OBJ, true, d);

	if (!host) {
		*ok = false;
		return;
	}
	j->hostname = dup_str(host, "hostname", 255, false, d, ok);
	j->machine_id = dup_str(host, "machine_id", 128, false, d, ok);
	j->boot_id = dup_str(host, "boot_id", 128, false, d, ok);
}

/* target: {netns, netns_inode, netns_cookie, root} */
static void load_target(const struct nt_json *r, struct nt_journal *j, struct nt_diags *d,
			bool *ok)
{
	const struct nt_json *tgt = want(r, "target", NT_J_OBJ, true, d);
	long long v;

	if (!tgt) {
		*ok = false;
		return;
	}
	j->netns = dup_str(tgt, "netns", 255, false, d, ok);
	v = 0;
	*ok &= want_i64(tgt, "netns_inode", 0, 1LL << 62, &v, false, d);
	j->netns_ino = (unsigned long long)v;
	v = 0;
	*ok &= want_i64(tgt, "netns_cookie", 0, 1LL << 62, &v, false, d);
	j->netns_cookie = (unsigned long long)v;
	j->root = dup_str(tgt, "root", 4096, true, d, ok);
	if (j->netns && (!*j->netns || strchr(j->netns, '/') || !strcmp(j->netns, ".") ||
			 !strcmp(j->netns, ".."))) {
		JERR(d, nt_json_get(tgt, "netns"), "'%s' is not a network namespace name",
		     j->netns);
		*ok = false;
	}
	if (j->root && *j->root && j->root[0] != '/') {
		JERR(d, nt_json_get(tgt, "root"), "root must be an absolute path");
		*ok = false;
	}
}

/* transitions: [{state, at_ns, pid}...], read while all else is well */
static void load_transitions(const struct nt_json *r, struct nt_journal *j, struct nt_diags *d,
			     bool *ok)
{
	const struct nt_json *trs = want(r, "transitions", NT_J_ARR, true, d);
	int s;

	if (!trs) {
		*ok = false;
		return;
	}
	if (trs->n > 10000 || !trs->n) {
		JERR(d, trs, "%s", trs->n ? "more than 10000 transitions" :
		     "no transitions (a journal starts with one)");
		*ok = false;
	} else {
		j->tr = nt_xcalloc(trs->n ? trs->n : 1, sizeof(*j->tr));
	}
	for (size_t i = 0; *ok && i < trs->n; i++) {
		const struct nt_json *t = trs->v[i];
		const struct nt_json *ts = t->t == NT_J_OBJ ? want(t, "state", NT_J_STR, true, d)
							      : NULL;
		long long at = 0, pid = 0;

		if (!ts || (s = jstate_parse(ts->s)) < 0 ||
		    !want_i64(t, "at_ns", 0, 1LL << 62, &at, true, d) ||
		    !want_i64(t, "pid", 0, 1 << 30, &pid, true, d)) {
			JERR(d, t, "transition %zu must be {state, at_ns, pid}", i);
			*ok = false;
			break;
		}
		j->tr[j->ntr++] = (struct nt_jtransition){(enum nt_jstate)s, at, (int)pid};
	}
}

/* not_restored: [{entry, reason}...] naming entries; false on a bad one */
static bool load_unrestored(const struct nt_json *nr, struct nt_journal *j, struct nt_diags *d,
			    bool *ok)
{
	if (nr->n > j->n) {
		JERR(d, nr, "more not-restored entries than entries");
		return false;
	}
	j->unrestored = nt_xcalloc(nr->n + 1, sizeof(*j->unrestored));
	for (size_t i = 0; i < nr->n; i++) {
		const struct nt_json *u = nr->v[i];
		long long at = 0;
		char *why;

		if (u->t != NT_J_OBJ || !want_i64(u, "entry", 0, (long long)j->n - 1, &at, true, d) ||
		    !(why = dup_str(u, "reason", 1024, true, d, ok))) {
			JERR(d, u, "not_restored %zu must be {entry, reason} naming an entry", i);
			return false;
		}
		j->unrestored[j->nunrestored].entry = (size_t)at;
		j->unrestored[j->nunrestored++].reason = why;
	}
	return true;
}

static bool load_v2(const struct nt_json *r, struct nt_journal *j, struct nt_diags *d)
{
	const struct nt_json *ents, *nr;
	bool ok = true;

	load_head(r, j, d, &ok);
	load_host(r, j, d, &ok);
	load_target(r, j, d, &ok);
	j->profile = dup_str(r, "profile", 4096, false, d, &ok);
	/* (a journal written before errors were recorded has none) */
	j->error = dup_str(r, "error", NT_JOURNAL_ERROR_MAX, false, d, &ok);
	if (j->error && !*j->error) {
		JERR(d, nt_json_get(r, "error"), "\"error\" must not be empty (null: none)");
		ok = false;
	}
	load_transitions(r, j, d, &ok);
	ents = want(r, "entries", NT_J_ARR, true, d);
	if (ents)
		ok &= load_entries(ents, j, d);
	else
		ok = false;
	nr = want(r, "not_restored", NT_J_ARR, false, d);
	if (nr && ok) {
		if (!load_unrestored(nr, j, d, &ok))
			return false;
	} else if (!nr && nt_json_get(r, "not_restored")) {
		ok = false;
	}
	return ok;
}

int nt_journal_parse(const char *shown, const char *data, size_t len, struct nt_journal *j,
		     struct nt_diags *d)
{
	struct nt_json *r;
	const struct nt_json *fmt;
	int rc = 0;

	memset(j, 0, sizeof(*j));
	r = nt_json_parse(nt_intern(shown), data, len, d);
	if (!r)
		return -EINVAL;
	if (r->t != NT_J_OBJ) {
		JERR(d, r, "not a nettune journal (not an object)");
		rc = -EINVAL;
	} else {
		fmt = nt_json_get(r, "format");
		if (!fmt || fmt->t != NT_J_STR || strcmp(fmt->s, NT_JOURNAL_FORMAT)) {
			JERR(d, fmt ? fmt : r, "not a nettune journal (format must be \"%s\")",
			     NT_JOURNAL_FORMAT);
			rc = -EINVAL;
		} else if (!load_v2(r, j, d)) {
			rc = -EINVAL;
		}
	}
	if (rc)
		nt_journal_free(j);
	nt_json_free(r);
	return rc;
}

int nt_journal_load(int jfd, const char *id, struct nt_journal *j, struct nt_diags *d)
{
	char *name = nt_xasprintf("%s.json", id);
	char *shown = nt_xasprintf("%s/journal/%s", nt_state_dir(), name);
	struct nt_buf b = {0};
	struct stat st;
	int fd, rc = 0;

	memset(j, 0, sizeof(*j));
	fd = openat(jfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		if (rc != -ENOENT) {
			struct nt_mark m = {nt_intern(shown), 0, 0};

			nt_error(d, m, "journal", "cannot open: %s", strerror(-rc));
		}
		goto out;
	}
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && !st.st_size) {
		/* never written: nettune writes a journal whole and renames it
		 * in place, so an empty one is a creation that a crash cut
		 * short before its data reached the disk (a journal made
		 * durable later: nt_journal_sync_later) */
		close(fd);
		rc = -ENOENT;
		goto out;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (off_t)NT_JOURNAL_MAX_BYTES) {
		struct nt_mark m = {nt_intern(shown), 0, 0};

		nt_error(d, m, "journal", "not a regular file of at most %u bytes",
			 NT_JOURNAL_MAX_BYTES);
		close(fd);
		rc = -EINVAL;
		goto out;
	}
	for (;;) {
		ssize_t n;

		nt_buf_grow(&b, 65536);
		n = read(fd, b.p + b.n, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || b.n + (size_t)n > NT_JOURNAL_MAX_BYTES)
			break;
		b.n += (size_t)n;
	}
	close(fd);
	/* nothing but zero bytes: its size reached the disk, its data did
	 * not (a crash); never written, like an empty one */
	if (b.n && !b.p[0] && !memcmp(b.p, b.p + 1, b.n - 1)) {
		rc = -ENOENT;
		goto out;
	}
	rc = nt_journal_parse(shown, b.p ? b.p : "", b.n, j, d);
	if (!rc && strcmp(j->id, id)) {
		struct nt_mark m = {nt_intern(shown), 0, 0};

		nt_error(d, m, "journal", "journal id '%s' does not match its file name", j->id);
		nt_journal_free(j);
		rc = -EINVAL;
	}
out:
	if (rc && rc != -ENOENT && !d->errors) {
		struct nt_mark m = {nt_intern(shown), 0, 0};

		nt_error(d, m, "journal", "unusable journal");
	}
	nt_buf_free(&b);
	free(name);
	free(shown);
	return rc;
}

static int newest_first(const void *a, const void *b)
{
	const struct nt_journal *x = a, *y = b;

	if (x->created_ns != y->created_ns)
		return x->created_ns < y->created_ns ? 1 : -1;
	return strcmp(y->id, x->id);
}

/* The IDs of the files NAME.suffix in the journal directory (dot files
 * are temporaries); malloc'd array of malloc'd strings. */
static char **journal_ids(int jfd, const char *suffix, size_t *n)
{
	int fd = dup(jfd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	char **ids = NULL;

	*n = 0;
	if (!dir) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	rewinddir(dir);
	while ((de = readdir(dir))) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.' || l <= 5 || strcmp(de->d_name + l - 5, suffix))
			continue;
		ids = nt_xrealloc(ids, (*n + 1) * sizeof(*ids));
		ids[(*n)++] = strndup(de->d_name, l - 5);
	}
	closedir(dir);
	return ids;
}

static void ids_free(char **ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(ids[i]);
	free(ids);
}

size_t nt_journal_list(int jfd, bool open_only, struct nt_journal **out, struct nt_diags *d)
{
	size_t nids, n = 0;
	char **ids = journal_ids(jfd, open_only ? ".open" : ".json", &nids);
	struct nt_journal *v = nt_xcalloc(nids + 1, sizeof(*v));

	for (size_t i = 0; i < nids; i++) {
		struct nt_diags local = {0};

		if (!nt_journal_load(jfd, ids[i], &v[n], d ? d : &local)) {
			/* a marker beside a finished journal is stale (swept
			 * under the lock); it does not make the journal open */
			if (open_only && !nt_jstate_open(v[n].state))
				nt_journal_free(&v[n]);
			else
				n++;
		}
		nt_diags_free(&local);
	}
	ids_free(ids, nids);
	if (n)
		qsort(v, n, sizeof(*v), newest_first);
	*out = v;
	return n;
}

size_t nt_journal_unusable(int jfd, bool open_only, char ***out)
{
	size_t nids, n = 0;
	char **ids = journal_ids(jfd, open_only ? ".open" : ".json", &nids);

	*out = NULL;
	for (size_t i = 0; i < nids; i++) {
		struct nt_journal j;
		struct nt_diags d = {0};
		int r = nt_journal_load(jfd, ids[i], &j, &d);

		nt_diags_free(&d);
		if (!r) {
			nt_journal_free(&j);
		} else if (r != -ENOENT || !open_only) {
			/* (a marker whose journal was never written is no change) */
			*out = nt_xrealloc(*out, (n + 1) * sizeof(**out));
			(*out)[n++] = ids[i];
			ids[i] = NULL;
		}
	}
	ids_free(ids, nids);
	return n;
}

void nt_journal_list_free(struct nt_journal *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		nt_journal_free(&v[i]);
	free(v);
}

void nt_journal_sweep_markers(int jfd)
{
	size_t nids;
	char **ids = journal_ids(jfd, ".open", &nids);

	for (size_t i = 0; i < nids; i++) {
		struct nt_journal j;
		struct nt_diags d = {0};
		char *mark = nt_xasprintf("%s.open", ids[i]);
		int r = nt_journal_load(jfd, ids[i], &j, &d);

		/* never written (creation interrupted, or empty: cut short by
		 * a crash), or finished (a kill between the save and the
		 * unlink) */
		if (r == -ENOENT || (!r && !nt_jstate_open(j.state)))
			unlinkat(jfd, mark, 0);
		if (r == -ENOENT) {
			/* and its file, if a crash left one (empty, or zeros) */
			char *json = nt_xasprintf("%s.json", ids[i]);

			unlinkat(jfd, json, 0);
			free(json);
		}
		if (!r)
			nt_journal_free(&j);
		nt_diags_free(&d);
		free(mark);
	}
	ids_free(ids, nids);
}

char *nt_journal_id_of(const char *arg, char *err, size_t errlen)
{
	const char *base = strrchr(arg, '/');
	size_t l;
	char *id;

	if (base) {
		/* a path: it must be the state directory's journal folder */
		char *dir = strndup(arg, (size_t)(base - arg));
		char *want = nt_xasprintf("%s/journal", nt_state_dir());
		char *rd = realpath(*dir ? dir : "/", NULL), *rw = realpath(want, NULL);
		bool same = rd && rw && !strcmp(rd, rw);

		free(rd);
		free(rw);
		free(dir);
		if (!same) {
			snprintf(err, errlen, "%s is not in %s: rollback works on the journals of this "
				 "state directory (set NETTUNE_STATE_DIR)", nt_esc(arg), nt_esc(want));
			free(want);
			return NULL;
		}
		free(want);
		base++;
	} else {
		base = arg;
	}
	l = strlen(base);
	if (l > 5 && !strcmp(base + l - 5, ".json"))
		l -= 5;
	id = strndup(base, l);
	if (!l || l > 200 || id[0] == '.' || strchr(id, '/')) {
		snprintf(err, errlen, "'%s' is not a journal name", nt_esc(arg));
		free(id);
		return NULL;
	}
	return id;
}
