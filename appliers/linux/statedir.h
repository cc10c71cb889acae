/* SPDX-License-Identifier: MIT */
/*
 * The state directory ($NETTUNE_STATE_DIR, default /var/lib/nettune): the
 * apply lock and the journals.  Root writes there, so it is held to sshd's
 * StrictModes rules: owned by root, not group- or world-writable, and every
 * file in it is opened relative to the directory with O_NOFOLLOW, so a
 * symlink planted there never redirects a write.
 */
#ifndef NT_STATEDIR_H
#define NT_STATEDIR_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* The signal (SIGTERM, SIGINT, SIGHUP) that asked a transaction to stop;
 * set by the handlers of nt_apply_catch_signals, read between steps and
 * while waiting for the lock. */
extern volatile sig_atomic_t nt_interrupted;

/* $NETTUNE_STATE_DIR or /var/lib/nettune */
const char *nt_state_dir(void);

/*
 * Opens (with create: makes, 0700) the state directory and its journal/
 * subdirectory and checks both.  Returns the journal directory's fd (the
 * state directory's in *state_fd when not NULL), -ENOENT when it does not
 * exist and create is false, or another -errno with the reason in err.
 */
int nt_statedir_open(bool create, int *state_fd, char *err, size_t errlen);
/* A long-running process (the agent) keeps the directories it opened and
 * checked: a later nt_statedir_open dups them while the path still leads
 * to them and they still pass the checks (a few stats instead of the walk
 * up the parents).  false closes them. */
void nt_statedir_keep(bool on);

/*
 * Takes the exclusive apply lock (STATE/lock), waiting up to wait_ms
 * (0: not at all; a signal stops the wait) and saying once who holds it.  On success records this
 * process ("pid N (nettune CMD) since LOCAL TIME") in the file and returns
 * its fd; -1 after printing why to stderr.
 */
int nt_lock_take(int state_fd, const char *cmd, unsigned wait_ms);
/* For a caller that says it its own way (the agent): a lock another
 * process holds past wait_ms is not reported on stderr. */
void nt_lock_quiet_busy(bool on);
/* Whether the last nt_lock_take of this process failed because another
 * process held the lock. */
bool nt_lock_last_busy(void);
/* Every taker of the lock counts itself in the lock file (8 bytes after
 * the holder's description): the count this process's last
 * nt_lock_take left, 0 unknown, and the lock file's inode in *ino.  A
 * process that took the lock at count g and finds g + 1 in the same file
 * at its next take knows nobody held it in between. */
unsigned long long nt_lock_generation(unsigned long long *ino);
/* Re-records the holder after the lock fd passed to another process. */
void nt_lock_rename(int lock_fd, const char *cmd);

/* The journal state lock (STATE/txn.lock): confirm, the watcher's revert
 * and rollback decide on a journal's state under it.  fd or -1. */
int nt_txn_lock(int state_fd);

/* A process's start time in clock ticks since boot (field 22 of
 * /proc/PID/stat), 0 when it does not exist: with the PID it names a
 * process uniquely, since PIDs are reused. */
unsigned long long nt_proc_start(int pid);
bool nt_proc_alive(int pid, unsigned long long start);

/* Local time with its offset, for people: "2026-11-30 17:37:00 +0000". */
void nt_local_time(long long ns, char *out, size_t n);

#endif
