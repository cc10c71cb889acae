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
static int check_dir(int fd, const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st))
		return snprintf(err, errlen, "%s: %s", path, strerror(errno)), -errno;
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

int nt_statedir_open(bool create, int *state_fd, char *err, size_t errlen)
{
	const char *dir = nt_state_dir();
	char *jshown;
	int sfd, jfd;

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

void nt_lock_rename(int fd, const char *cmd)
{
	char info[256], when[64];
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	nt_local_time((long long)ts.tv_sec * 1000000000LL, when, sizeof(when));
	/* Written over in place at a fixed size, NUL-padded (readers stop at
	 * the newline): a truncate first freed the file's block and had the
	 * filesystem allocate it again, a journal transaction that could wait
	 * several milliseconds for a commit in progress. */
	memset(info, 0, sizeof(info));
	snprintf(info, sizeof(info), "pid %d (nettune %s) since %s\n", (int)getpid(), cmd, when);
	if (pwrite(fd, info, sizeof(info), 0) < 0)
		(void)0;	/* the description is a courtesy; the flock is the lock */
}

static int open_lock(int state_fd)
{
	return openat(state_fd, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		      0600);
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
			fprintf(stderr, "nettune %s: error: another nettune holds %s/lock (%s)%s; "
				"wait for it (--wait SECONDS), or run 'nettune confirm' if it awaits "
				"confirmation\n", cmd, nt_state_dir(), *who ? who : "holder unknown",
				wait_ms ? " and did not release it in time" : "");
			close(fd);
			return -1;
		}
		if (!said) {
			fprintf(stderr, "nettune %s: waiting up to %u s for the lock held by %s\n", cmd,
				(wait_ms + 999) / 1000, *who ? who : "another nettune");
			said = true;
		}
		usleep(20000);
	}
	nt_lock_rename(fd, cmd);
	return fd;
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
