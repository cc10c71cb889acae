/* SPDX-License-Identifier: MIT */
/* The state directory: StrictModes checks, the apply lock, process identity. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/base/strictmodes.h"
#include "statedir.h"

volatile sig_atomic_t nt_interrupted;

const char *nt_state_dir(void)
{
	const char *s = getenv("NETTUNE_STATE_DIR");

	return s && *s ? s : "/var/lib/nettune";
}

/* sshd StrictModes: root's files live in root's directories, which nobody
 * else can write. */
static int check_stat(const struct stat *stp, const char *path, char *err, size_t errlen)
{
	struct stat st = *stp;

	if (!S_ISDIR(st.st_mode))
		return snprintf(err, errlen, "%s is not a directory", path), -ENOTDIR;
	if (st.st_uid != 0) {
		snprintf(err, errlen, "%s is owned by uid %u, not root: refusing to keep root's "
			 "journals and lock there (chown root %s)", path, (unsigned)st.st_uid, path);
		return -EPERM;
	}
	if (st.st_mode & 022) {
		snprintf(err, errlen, "%s is %s-writable (mode %04o): anyone could plant files that "
			 "root then writes through; refusing (chmod go-w %s)", path,
			 (st.st_mode & 002) ? "world" : "group", (unsigned)(st.st_mode & 07777), path);
		return -EPERM;
	}
	return 0;
}

static int check_dir(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st))
		return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -errno;
	return check_stat(&st, path, err, errlen);
}

static int open_dir(int at, const char *name, const char *shown, bool create, char *err,
		    size_t errlen)
{
	int fd, r;

	if (create && mkdirat(at, name, 0700) && errno != EEXIST)
		return snprintf(err, errlen, "cannot create %s: %s", shown, strerror(errno)), -errno;
	fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		if (r == -ELOOP || r == -ENOTDIR)
			snprintf(err, errlen, "%s is a symbolic link or not a directory: refusing",
				 shown);
		else
			snprintf(err, errlen, "%s: %s", shown, strerror(-r));
		return r;
	}
	r = check_dir(fd, shown, err, errlen);
	if (r) {
		close(fd);
		return r;
	}
	return fd;
}

/* The directories this process opened and checked, kept open when asked
 * (nt_statedir_keep: the agent opens them for every correction). */
static struct {
	bool on;
	int sfd, jfd;
	char *dir;
	struct stat sst, jst;		/* as they were checked */
} kept = {false, -1, -1, NULL, {0}, {0}};

void nt_statedir_keep(bool on)
{
	if (!on && kept.sfd >= 0) {
		close(kept.sfd);
		close(kept.jfd);
		free(kept.dir);
		kept.sfd = kept.jfd = -1;
		kept.dir = NULL;
	}
	kept.on = on;
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The kept directories, while the path still names them (the state
 * directory itself no symbolic link, its journal/ the same directory) and
 * they still pass the checks (whoever swapped a parent since could not
 * make the path lead to these); their dups, or -1 to open afresh. */
static int kept_open(const char *dir, int *state_fd, char *err, size_t errlen)
{
	struct stat path, jpath;
	int jfd;

	if (kept.sfd < 0)
		return -1;
	if (strcmp(kept.dir, dir) || lstat(dir, &path) || !same_inode(&path, &kept.sst) ||
	    check_stat(&path, dir, err, errlen) ||
	    fstatat(kept.sfd, "journal", &jpath, AT_SYMLINK_NOFOLLOW) ||
	    !same_inode(&jpath, &kept.jst) || check_stat(&jpath, dir, err, errlen)) {
		nt_statedir_keep(false);
		kept.on = true;
		return -1;
	}
	jfd = fcntl(kept.jfd, F_DUPFD_CLOEXEC, 3);
	if (jfd < 0)
		return -1;
	if (state_fd && (*state_fd = fcntl(kept.sfd, F_DUPFD_CLOEXEC, 3)) < 0) {
		close(jfd);
		return -1;
	}
	return jfd;
}

int nt_statedir_open(bool create, int *state_fd, char *err, size_t errlen)
{
	const char *dir = nt_state_dir();
	char *jshown;
	int sfd, jfd;

	if (kept.on) {
		jfd = kept_open(dir, state_fd, err, errlen);
		if (jfd >= 0)
			return jfd;
	}

	if (create) {
		/* parents like mkdir -p (0755); the state directory itself 0700 */
		char *p = nt_xstrdup(dir);

		for (char *s = p + 1; *s; s++)
			if (*s == '/' && s[1]) {
				*s = '\0';
				mkdir(p, 0755);
				*s = '/';
			}
		free(p);
	}
	if (!create && faccessat(AT_FDCWD, dir, F_OK, AT_SYMLINK_NOFOLLOW) && errno == ENOENT)
		return -ENOENT;
	sfd = open_dir(AT_FDCWD, dir, dir, create, err, errlen);
	if (sfd < 0)
		return sfd;
	/* whoever may write a parent could swap the directory itself */
	{
		int r = nt_strict_parents("state directory", dir, err, errlen);

		if (r) {
			close(sfd);
			return r;
		}
	}
	if (!create && faccessat(sfd, "journal", F_OK, AT_SYMLINK_NOFOLLOW) && errno == ENOENT) {
		close(sfd);
		return -ENOENT;
	}
	jshown = nt_xasprintf("%s/journal", dir);
	jfd = open_dir(sfd, "journal", jshown, create, err, errlen);
	free(jshown);
	if (jfd >= 0 && kept.on) {
		kept.sfd = fcntl(sfd, F_DUPFD_CLOEXEC, 3);
		kept.jfd = fcntl(jfd, F_DUPFD_CLOEXEC, 3);
		kept.dir = nt_xstrdup(dir);
		if (kept.sfd < 0 || kept.jfd < 0 || fstat(kept.sfd, &kept.sst) ||
		    fstat(kept.jfd, &kept.jst)) {
			nt_statedir_keep(false);
			kept.on = true;
		}
	}
	if (jfd < 0 || !state_fd)
		close(sfd);
	else
		*state_fd = sfd;
	return jfd;
}

unsigned long long nt_proc_start(int pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* comm may hold spaces and parentheses: fields count from the last ')' */
	p = strrchr(buf, ')');
	if (!p || !p[1] || !p[2])
		return 0;
	/* a zombie (its parent never reaped it) has ended all the same */
	if (p[2] == 'Z' || p[2] == 'X' || p[2] == 'x')
		return 0;
	for (field = 2; *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (field == 22)
		start = strtoull(p, NULL, 10);
	return start;
}

bool nt_proc_alive(int pid, unsigned long long start)
{
	return pid > 0 && start && nt_proc_start(pid) == start;
}

void nt_local_time(long long ns, char *out, size_t n)
{
	time_t t = (time_t)(ns / 1000000000LL);
	struct tm tm;

	if (!localtime_r(&t, &tm) || !strftime(out, n, "%Y-%m-%d %H:%M:%S %z", &tm))
		snprintf(out, n, "%lld", (long long)t);
}

static void read_holder(int fd, char *who, size_t wholen)
{
	ssize_t n = pread(fd, who, wholen - 1, 0);

	who[n > 0 ? n : 0] = '\0';
	*strchrnul(who, '\n') = '\0';
}

/* The holder's description: "pid N (nettune CMD) since LOCAL TIME\n",
 * NUL-padded to 256 bytes. */
static void holder_line(char info[256], const char *cmd)
{
	char when[64];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	nt_local_time((long long)ts.tv_sec * 1000000000LL, when, sizeof(when));
	memset(info, 0, 256);
	snprintf(info, 256, "pid %d (nettune %s) since %s\n", (int)getpid(), cmd, when);
}

void nt_lock_rename(int fd, const char *cmd)
{
	char info[256];

	/* Written over in place at a fixed size, NUL-padded (readers stop at
	 * the newline): a truncate first freed the file's block and had the
	 * filesystem allocate it again, a journal transaction that could wait
	 * several milliseconds for a commit in progress. */
	holder_line(info, cmd);
	if (pwrite(fd, info, sizeof(info), 0) < 0)
		(void)0;	/* the description is a courtesy; the flock is the lock */
}

/* How many times the lock was taken, after the holder's description
 * (NT_LOCK_GEN_AT); 0 when it could not be counted. */
#define NT_LOCK_GEN_AT 256
static unsigned long long lock_gen;
static unsigned long long lock_ino;	/* of the file counted in: a new file counts anew */

/* The holder recorded and the count taken one more, in one write. */
static void record_taker(int fd, const char *cmd)
{
	unsigned char rec[NT_LOCK_GEN_AT + 8];
	unsigned long long g = 0;

	if (pread(fd, rec + NT_LOCK_GEN_AT, 8, NT_LOCK_GEN_AT) != 8)
		memset(rec + NT_LOCK_GEN_AT, 0, 8);
	for (int k = 7; k >= 0; k--)
		g = g << 8 | rec[NT_LOCK_GEN_AT + k];
	g++;
	for (int k = 0; k < 8; k++)
		rec[NT_LOCK_GEN_AT + k] = (unsigned char)(g >> (8 * k));
	holder_line((char *)rec, cmd);
	lock_gen = pwrite(fd, rec, sizeof(rec), 0) == (ssize_t)sizeof(rec) ? g : 0;
}

static int open_lock(int state_fd)
{
	int fd = openat(state_fd, "lock", O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	/* O_CREAT only the first time: it locks the directory for each open */
	if (fd < 0 && errno == ENOENT)
		fd = openat(state_fd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
			    O_CLOEXEC, 0600);
	return fd;
}

static bool quiet_busy, last_busy;

void nt_lock_quiet_busy(bool on)
{
	quiet_busy = on;
}

bool nt_lock_last_busy(void)
{
	return last_busy;
}

int nt_lock_take(int state_fd, const char *cmd, unsigned wait_ms)
{
	char who[256];
	struct timespec t0, now;
	bool said = false;
	int fd = open_lock(state_fd);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		fprintf(stderr, "nettune %s: error: cannot open the lock %s/lock: %s\n", cmd,
			nt_state_dir(), fd < 0 ? strerror(errno) : "not a regular file");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	last_busy = false;
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		long long waited;

		if (errno != EWOULDBLOCK && errno != EINTR) {
			fprintf(stderr, "nettune %s: error: locking %s/lock: %s\n", cmd,
				nt_state_dir(), strerror(errno));
			close(fd);
			return -1;
		}
		read_holder(fd, who, sizeof(who));
		if (nt_interrupted) {
			fprintf(stderr, "nettune %s: interrupted (signal %d) while waiting for the lock; "
				"nothing was changed\n", cmd, (int)nt_interrupted);
			close(fd);
			return -1;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		waited = (now.tv_sec - t0.tv_sec) * 1000LL + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (waited >= wait_ms) {
			last_busy = true;
			if (!quiet_busy)
				fprintf(stderr, "nettune %s: error: another nettune holds %s/lock (%s)%s; "
					"wait for it (--wait SECONDS), or run 'nettune confirm' if it "
					"awaits confirmation\n", cmd, nt_state_dir(),
					*who ? who : "holder unknown",
					wait_ms ? " and did not release it in time" : "");
			close(fd);
			return -1;
		}
		if (!said && !quiet_busy) {
			fprintf(stderr, "nettune %s: waiting up to %u s for the lock held by %s\n", cmd,
				(wait_ms + 999) / 1000, *who ? who : "another nettune");
			said = true;
		}
		usleep(20000);
	}
	record_taker(fd, cmd);
	lock_ino = (unsigned long long)st.st_ino;
	return fd;
}

unsigned long long nt_lock_generation(unsigned long long *ino)
{
	if (ino)
		*ino = lock_ino;
	return lock_gen;
}

int nt_txn_lock(int state_fd)
{
	int fd = openat(state_fd, "txn.lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC, 0600);

	/* held only for a journal state change (and the revert it decides):
	 * flock blocks; the holders never wait for anything else */
	if (fd < 0)
		return -1;
	while (flock(fd, LOCK_EX)) {
		if (errno != EINTR) {
			close(fd);
			return -1;
		}
	}
	return fd;
}
