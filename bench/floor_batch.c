/* SPDX-License-Identifier: MIT */
/*
 * The floor of the batch benchmark (bench/README.md, (d)): only the work
 * no profile compiler can skip, over the same worker count as nettune.
 *
 *   floor_batch validate JOBS FILE...
 *       read each file and run one libyaml event pass over it
 *   floor_batch compile JOBS KEY OUTDIR BYTES FILE...
 *       the same, then per file sign BYTES bytes (the file's text repeated:
 *       the size of nettune's manifest) with the Ed25519 KEY and write
 *       OUTDIR/NAME.plan.json and its 64-byte .sig (open, write, close)
 *
 * Nothing is checked, merged, lowered or formatted.  Exit 1 when a file
 * cannot be read, parsed, signed or written.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <yaml.h>

#define CLAIM 8

static int read_file(const char *path, char **data, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	ssize_t r;

	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*data = malloc((size_t)st.st_size + 1);
	r = read(fd, *data, (size_t)st.st_size);
	close(fd);
	if (r != st.st_size)
		return -1;
	*len = (size_t)r;
	return 0;
}

/* One libyaml event pass: the parse every checker needs at least once. */
static int yaml_pass(const char *data, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int done = 0, ok = 1;

	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
	while (!done) {
		if (!yaml_parser_parse(&p, &ev)) {
			ok = 0;
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return ok ? 0 : -1;
}

static int write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	int r;

	if (fd < 0)
		return -1;
	r = write(fd, p, n) == (ssize_t)n ? 0 : -1;
	return close(fd) ? -1 : r;
}

static int one(const char *file, EVP_PKEY *key, const char *outdir, size_t bytes)
{
	unsigned char sig[64];
	size_t siglen = sizeof(sig), len, i;
	char *data, *payload, path[4096];
	const char *base = strrchr(file, '/');
	EVP_MD_CTX *ctx;
	int r = -1;

	if (read_file(file, &data, &len) || yaml_pass(data, len)) {
		fprintf(stderr, "floor_batch: %s: cannot read or parse\n", file);
		return -1;
	}
	if (!key) {
		free(data);
		return 0;
	}
	payload = malloc(bytes);
	if (!len)
		memset(payload, ' ', bytes);
	for (i = 0; len && i < bytes; i += len)
		memcpy(payload + i, data, bytes - i < len ? bytes - i : len);
	base = base ? base + 1 : file;
	ctx = EVP_MD_CTX_new();
	if (EVP_DigestSignInit(ctx, NULL, NULL, NULL, key) == 1 &&
	    EVP_DigestSign(ctx, sig, &siglen, (unsigned char *)payload, bytes) == 1) {
		snprintf(path, sizeof(path), "%s/%.*s.plan.json", outdir,
			 (int)(strrchr(base, '.') ? strrchr(base, '.') - base : (long)strlen(base)), base);
		if (!write_file(path, payload, bytes)) {
			strcat(path, ".sig");
			r = write_file(path, sig, siglen);
		}
	}
	if (r)
		fprintf(stderr, "floor_batch: %s: cannot sign or write\n", file);
	EVP_MD_CTX_free(ctx);
	free(payload);
	free(data);
	return r;
}

int main(int argc, char **argv)
{
	EVP_PKEY *key = NULL;
	const char *outdir = NULL;
	size_t bytes = 0, jobs, w, *next;
	int first, bad = 0;

	if (argc < 4 || (strcmp(argv[1], "validate") && strcmp(argv[1], "compile")) ||
	    (!strcmp(argv[1], "compile") && argc < 7)) {
		fprintf(stderr, "usage: floor_batch validate JOBS FILE...\n"
			"       floor_batch compile JOBS KEY OUTDIR BYTES FILE...\n");
		return 64;
	}
	jobs = strtoul(argv[2], NULL, 10);
	jobs = jobs ? jobs : 1;
	first = 3;
	if (!strcmp(argv[1], "compile")) {
		FILE *f = fopen(argv[3], "r");

		key = f ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : NULL;
		if (f)
			fclose(f);
		if (!key) {
			fprintf(stderr, "floor_batch: cannot read the key %s\n", argv[3]);
			return 1;
		}
		outdir = argv[4];
		bytes = strtoul(argv[5], NULL, 10);
		mkdir(outdir, 0755);
		first = 6;
	}
	/* workers claim files CLAIM at a time from a shared counter, as
	 * nettune's do (cli/parallel.c): a worker on a busy CPU takes fewer */
	next = mmap(NULL, sizeof(*next), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (next == MAP_FAILED)
		return 1;
	*next = 0;
	for (w = 0; w < jobs; w++) {
		pid_t pid = fork();

		if (pid == 0) {
			size_t n = (size_t)(argc - first), c, e;
			int r = 0;

			while ((c = __atomic_fetch_add(next, CLAIM, __ATOMIC_RELAXED)) < n)
				for (e = c + CLAIM; c < e && c < n; c++)
					r |= one(argv[first + (int)c], key, outdir, bytes);
			_exit(r ? 1 : 0);
		}
		if (pid < 0)
			return 1;
	}
	for (w = 0; w < jobs; w++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
			bad = 1;
	}
	EVP_PKEY_free(key);
	return bad;
}
