/* SPDX-License-Identifier: MIT */
/* Entering a named network namespace with its own view of /sys. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "../appliers/linux/journal.h"
#include "netns.h"

int nt_enter_netns(const char *name, bool remount_sys)
{
	char path[PATH_MAX];
	int fd;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..") ||
	    strlen(name) > 200) {
		fprintf(stderr, "nettune: error: '%s' is not a network namespace name\n", name);
		return -1;
	}
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "nettune: error: network namespace %s: %s (see 'ip netns list')\n",
			name, strerror(errno));
		return -1;
	}
	if (setns(fd, CLONE_NEWNET)) {
		fprintf(stderr, "nettune: error: entering network namespace %s: %s\n", name,
			strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	nt_journal_netns_moved();
	if (remount_sys && (unshare(CLONE_NEWNS) ||
			    mount("", "/", "none", MS_SLAVE | MS_REC, NULL) ||
			    (umount2("/sys", MNT_DETACH) && errno != EINVAL) ||
			    mount(name, "/sys", "sysfs", 0, NULL))) {
		fprintf(stderr, "nettune: error: remounting /sys for network namespace %s: %s\n",
			name, strerror(errno));
		return -1;
	}
	return 0;
}
