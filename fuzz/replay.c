/* SPDX-License-Identifier: MIT */
/* Runs a fuzz target over files and directories without libFuzzer (gcc
 * builds, valgrind, the regression corpora in meson test). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;
	int rc = -1;

	if (!f)
		goto out;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto out;
	buf = malloc(n ? n : 1);
	if (!buf || fread(buf, 1, n, f) != (size_t)n)
		goto out;
	LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
	rc = 0;
out:
	if (rc)
		fprintf(stderr, "replay: cannot read %s\n", path);
	free(buf);
	if (f)
		fclose(f);
	return rc;
}

static int run_path(const char *path, size_t *count)
{
	struct dirent **ents = NULL;
	struct stat st;
	int n, i, rc = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "replay: %s: not found\n", path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		++*count;
		return run_file(path);
	}
	n = scandir(path, &ents, NULL, alphasort);
	for (i = 0; i < n; i++) {
		char sub[4096];

		if (ents[i]->d_name[0] != '.') {
			snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
			if (run_path(sub, count))
				rc = -1;
		}
		free(ents[i]);
	}
	free(ents);
	return n < 0 ? -1 : rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int i, rc = 0;

	LLVMFuzzerInitialize(&argc, &argv);
	for (i = 1; i < argc; i++)
		if (run_path(argv[i], &count))
			rc = 1;
	printf("replayed %zu inputs\n", count);
	return rc;
}
