/* SPDX-License-Identifier: MIT */
/*
 * The floor of benchmark (c): reads the files a plan against a --root
 * fixture reads, and nothing else (no parsing, no planning, no output).
 *
 *   floor_plan ROOT LIST
 *
 * LIST has one entry a line: "f PATH" a file read whole, "d PATH" a
 * directory listed, "l PATH" a link read, "m PATH" a file's mode.  Paths
 * are below ROOT and opened as nettune opens them there: openat2 with
 * RESOLVE_IN_ROOT from one descriptor of ROOT (an absolute path, the
 * profile, is opened as it is).  Prints the bytes read.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int in_root(int root, const char *rel, int flags)
{
	struct open_how how = {.flags = (unsigned long long)(flags | O_CLOEXEC),
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS};

	if (rel[0] == '/')	/* the profile, outside the root */
		return open(rel, flags | O_CLOEXEC);
	return (int)syscall(SYS_openat2, root, rel, &how, sizeof(how));
}

int main(int argc, char **argv)
{
	static char buf[1 << 16];
	char line[4096];
	unsigned long long bytes = 0;
	FILE *list;
	int root;

	if (argc != 3 || !(list = fopen(argv[2], "r"))) {
		fprintf(stderr, "usage: floor_plan ROOT LIST\n");
		return 2;
	}
	root = open(argv[1], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return 2;
	while (fgets(line, sizeof(line), list)) {
		char *p = line + 2;
		struct stat st;
		int fd;

		p[strcspn(p, "\n")] = '\0';
		if (line[0] == 'f') {
			ssize_t n;

			fd = in_root(root, p, O_RDONLY | O_NONBLOCK);
			if (fd < 0)
				continue;
			if (!fstat(fd, &st))
				while ((n = read(fd, buf, sizeof(buf))) > 0)
					bytes += (unsigned long long)n;
			close(fd);
		} else if (line[0] == 'd') {
			DIR *d;
			struct dirent *de;

			fd = in_root(root, p, O_RDONLY | O_DIRECTORY);
			if (fd < 0 || !(d = fdopendir(fd)))
				continue;
			while ((de = readdir(d)))
				bytes += strlen(de->d_name);
			closedir(d);
		} else if (line[0] == 'l') {
			char *slash = strrchr(p, '/');
			ssize_t n;

			if (!slash)
				continue;
			*slash = '\0';
			fd = in_root(root, p, O_PATH | O_DIRECTORY);
			if (fd < 0)
				continue;
			n = readlinkat(fd, slash + 1, buf, sizeof(buf));
			bytes += n > 0 ? (unsigned long long)n : 0;
			close(fd);
		} else if (line[0] == 'm') {
			fd = in_root(root, p, O_PATH);
			if (fd < 0)
				continue;
			if (!fstat(fd, &st))
				bytes += st.st_mode & 0222 ? 1 : 0;
			close(fd);
		}
	}
	fclose(list);
	printf("%llu\n", bytes);
	return 0;
}
