/* SPDX-License-Identifier: MIT */
/*
 * The apply journal: the transaction log of one apply.  One file per apply
 * in STATE/journal, created with a unique name (O_EXCL, never overwritten),
 * replaced atomically and fsync'ed at every state change.  It records the
 * target (network namespace with its inode, --root, host identity), every
 * previous value, and the state machine:
 *
 *   applying -> applied | failed | rollback-incomplete
 *   applying -> pending-confirm -> confirmed | reverted-unconfirmed
 *                                             | rollback-incomplete
 *   applied | confirmed | rollback-incomplete -> rolled-back | failed
 *                                               | rollback-incomplete
 *   applying | rollback-incomplete | pending-confirm (owner gone) -> discarded
 *   applied | confirmed | ... whose target is gone (namespace deleted or
 *     created again, --root removed) -> discarded
 *
 * and every rollback (apply's own, the watcher's, `nettune rollback`) is
 * itself recorded before its first write:
 *
 *   applying | applied | confirmed | pending-confirm | rollback-incomplete
 *     -> rolling-back -> rolled-back | failed | reverted-unconfirmed
 *                      | rollback-incomplete
 *   rolling-back (owner gone) -> rolling-back (`nettune rollback` resumes it)
 *                              | discarded
 *
 * with the time and process of each transition.  failed is a failed (or
 * interrupted) apply whose changes are undone: its own rollback ends there,
 * and so does a later `nettune rollback` that finishes an incomplete one;
 * the first error of the apply is recorded ("error").  rolled-back is an
 * operator's rollback of a change that had succeeded.  A rollback that
 * could not restore everything lists each entry not restored and why
 * ("not_restored").  While a journal is open (applying, pending-confirm,
 * rolling-back, rollback-incomplete) a marker ID.open sits
 * beside it, so that every nettune run finds interrupted applies without
 * parsing every journal.
 */
#ifndef NT_JOURNAL_H
#define NT_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/base/diag.h"
#include "../../compiler/model/settings.h"

#define NT_JOURNAL_FORMAT "nettune-journal/2"
/* a journal of 64 NICs x 64 queues x every per-queue kind is ~2 MiB */
#define NT_JOURNAL_MAX_BYTES (16u << 20)
#define NT_JOURNAL_MAX_ENTRIES 262144

enum nt_jstate {
	NT_JS_APPLYING,
	NT_JS_APPLIED,
	NT_JS_ROLLED_BACK,
	NT_JS_ROLLBACK_INCOMPLETE,
	NT_JS_PENDING_CONFIRM,
	NT_JS_CONFIRMED,
	NT_JS_REVERTED_UNCONFIRMED,
	NT_JS_DISCARDED,
	NT_JS_ROLLING_BACK,
	NT_JS_FAILED,			/* a failed apply, rolled back (error says why) */
	NT_JS__COUNT,
};

struct nt_jentry {
	enum nt_kind_id kind;
	char *object, *arg;
	bool had;			/* a value existed before (else before is unset) */
	struct nt_value before, after;
	bool disruptive;		/* the plan flagged it (not stored) */
};

struct nt_jtransition {
	enum nt_jstate state;
	long long at_ns;		/* CLOCK_REALTIME */
	int pid;
};

struct nt_junrestored {
	size_t entry;			/* index into e */
	char *reason;
};

struct nt_journal {
	char *id;			/* file name without ".json" */
	enum nt_jstate state;
	long long created_ns;
	long long deadline_ns;		/* confirm deadline; 0: none */
	int pid;			/* the process that owns it now */
	unsigned long long pid_start;	/* its start time (nt_proc_start) */
	char *command;			/* "apply", "apply PLAN.json", "agent" */
	/* why the agent applied it ("ethtool notification (features) on
	 * eth0", "periodic check"); NULL: not recorded (an apply's) */
	char *cause;
	char *hostname, *machine_id, *boot_id;
	char *netns;			/* --netns name; NULL: the namespace nettune ran in */
	unsigned long long netns_ino;	/* inode of that namespace (/proc/self/ns/net) */
	unsigned long long netns_cookie; /* SO_NETNS_COOKIE: never reused, unlike inodes */
	char *root;			/* --root ("" for the live /proc and /sys) */
	char *profile;			/* absolute path, or "" */
	char *error;			/* the first error of a failed apply; NULL: none */
	struct nt_jtransition *tr;
	size_t ntr;
	struct nt_jentry *e;
	size_t n;
	struct nt_junrestored *unrestored;	/* the last rollback's failures */
	size_t nunrestored;
};

/* The longest cause a journal records. */
#define NT_JOURNAL_CAUSE_MAX 256
/* The longest error a journal records (longer ones are cut). */
#define NT_JOURNAL_ERROR_MAX 1024

void nt_journal_clear_unrestored(struct nt_journal *j);
/* Records msg as the journal's error unless one is recorded (the first
 * error is the cause; the rest follow from it). */
void nt_journal_set_error(struct nt_journal *j, const char *msg);
void nt_journal_add_unrestored(struct nt_journal *j, size_t entry, const char *reason);

const char *nt_jstate_name(enum nt_jstate s);
/* Whether rollback may restore a journal in this state. */
bool nt_jstate_restorable(enum nt_jstate s);
bool nt_jstate_open(enum nt_jstate s);

/*
 * Fills in identity (id, times, pid, host, namespace inode) for a new
 * journal in state `state`, then creates ID.open and ID.json in jfd with
 * O_EXCL and fsyncs them and the directory.  0 or -errno (err says why).
 */
int nt_journal_create(int jfd, struct nt_journal *j, enum nt_jstate state, char *err,
		      size_t errlen);
/* After a setns: the namespace a new journal records is looked up again. */
void nt_journal_netns_moved(void);
/* Durability later (the agent's correction of one interface: its
 * latency is not spent waiting for the disk): journals are written and
 * renamed in place as always, in the order every reader relies on, but
 * their fsyncs are left to nt_journal_take_unsynced and
 * nt_journal_sync_ids (in another thread), which fsync every journal
 * written since and the directory (done at once after 256 of them).  Only for
 * settings that do not outlive the machine: a crash that loses such a
 * journal also loses the kernel settings it records.  A journal a crash
 * left empty (or zeros) reads as never written.  Only the process that
 * asked defers: a forked child fsyncs as usual. */
void nt_journal_sync_later(bool on);
bool nt_journal_unsynced(void);
/* Those fsyncs in two steps, the second in any thread: the journals written
 * since (malloc'd ids, the list emptied), then their fsyncs and the
 * directory's (the ids freed); 0 or the first -errno. */
size_t nt_journal_take_unsynced(char ***ids);
int nt_journal_sync_ids(int jfd, char **ids, size_t n);
/* Records a transition (now, this process) and saves; a terminal state
 * removes the ID.open marker after the journal is on disk. */
int nt_journal_transition(int jfd, struct nt_journal *j, enum nt_jstate to);
/* Makes this process the journal's owner (the confirm watcher) and saves. */
int nt_journal_set_owner(int jfd, struct nt_journal *j);

/* Loads and checks ID.json (untrusted: every field and entry is checked,
 * located errors in d).  0, -ENOENT, or -EINVAL with errors in d. */
int nt_journal_load(int jfd, const char *id, struct nt_journal *j, struct nt_diags *d);
void nt_journal_free(struct nt_journal *j);
/* The same from memory (shown: the name diagnostics use). */
int nt_journal_parse(const char *shown, const char *data, size_t len, struct nt_journal *j,
		     struct nt_diags *d);
/* The journal's JSON, as written to disk. */
void nt_journal_format(const struct nt_journal *j, struct nt_buf *b);
/* Time of the last transition to s (0: none). */
long long nt_journal_when(const struct nt_journal *j, enum nt_jstate s);
bool nt_journal_owner_alive(const struct nt_journal *j);

/* IDs of all journals (open_only: those with an ID.open marker), newest
 * first by their recorded creation time.  The caller frees each and the
 * array.  Journals that do not load are skipped (listed in d if given). */
size_t nt_journal_list(int jfd, bool open_only, struct nt_journal **out, struct nt_diags *d);
/* IDs of journals (open_only: with a marker) that do not load: malloc'd
 * array of malloc'd strings, count returned. */
size_t nt_journal_unusable(int jfd, bool open_only, char ***ids);
/* The network namespace cookie of this process (0: unknown). */
unsigned long long nt_netns_cookie(void);
void nt_journal_list_free(struct nt_journal *v, size_t n);
/* Removes an ID.open marker left without its journal (creation interrupted
 * before the first write) or beside a journal in a final state (a kill
 * between the save and the unlink); only under the apply lock. */
void nt_journal_sweep_markers(int jfd);

/* "JOURNAL" argument: an ID, ID.json, or a path into STATE/journal. */
char *nt_journal_id_of(const char *arg, char *err, size_t errlen);

/* The time as 2026-11-30T17:37:00.123456789Z */
void nt_time_utc(long long ns, char *out, size_t n);
long long nt_now_ns(void);

/* The name rules (nt_setting_problem) for an entry of a Linux journal:
 * NULL when fine, else the reason. */
const char *nt_jentry_problem(enum nt_kind_id k, const char *object, const char *arg);

#endif
