/* SPDX-License-Identifier: MIT */
/* Authenticode signatures for emitted PowerShell scripts, made by osslsigncode. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "authenticode.h"

static bool has_non_ascii(const struct nt_buf *b)
{
	size_t i;

	for (i = 0; i < b->n; i++)
		if ((unsigned char)b->p[i] >= 0x80)
			return true;
	return false;
}

void nt_ps1_encode(const struct nt_buf *in, bool crlf, struct nt_buf *out)
{
	size_t i;

	if (has_non_ascii(in) && !(in->n >= 3 && !memcmp(in->p, "\xef\xbb\xbf", 3)))
		nt_buf_puts(out, "\xef\xbb\xbf");
	for (i = 0; i < in->n; i++) {
		if (crlf && in->p[i] == '\n' && (i == 0 || in->p[i - 1] != '\r'))
			nt_buf_putc(out, '\r');
		nt_buf_putc(out, in->p[i]);
	}
}

static int write_all(const char *path, const struct nt_buf *b)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	size_t off = 0;

	if (fd < 0)
		return -errno;
	while (off < b->n) {
		ssize_t w = write(fd, b->p + off, b->n - off);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -errno;
		}
		off += (size_t)w;
	}
	return close(fd) ? -errno : 0;
}

static int read_all(const char *path, struct nt_buf *b)
{
	FILE *f = fopen(path, "rb");
	char chunk[8192];
	size_t n;

	if (!f)
		return -errno;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		nt_buf_putn(b, chunk, n);
	fclose(f);
	return 0;
}

/* Runs argv with stdin from /dev/null and stdout+stderr into log; returns
 * its exit status, 127 when it could not be started. */
static int run(char *const argv[], const char *log)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (!pid) {
		int in = open("/dev/null", O_RDONLY);
		int out = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0600);

		if (in < 0 || out < 0)
			_exit(126);
		dup2(in, 0);
		dup2(out, 1);
		dup2(out, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void last_lines(struct nt_buf *err, const char *log)
{
	struct nt_buf t = {0};
	size_t i;

	if (read_all(log, &t) || !t.n)
		goto out;
	nt_buf_puts(err, ": ");
	for (i = 0; i < t.n && i < 600; i++)
		nt_buf_putc(err, t.p[i] == '\n' || t.p[i] == '\r' ? ' ' : t.p[i]);
out:
	nt_buf_free(&t);
}

/* Signs script (encoded by nt_ps1_encode(), CRLF) with the PEM certificate
 * (chain) cert and the unencrypted PEM private key key; out receives the
 * signed script.  Returns 0, or -1 with the reason in err. */
static int ps1_sign(const struct nt_buf *script, const char *cert, const char *key,
		    struct nt_buf *out, struct nt_buf *err)
{
	const char *tmp = getenv("TMPDIR");
	char dir[4096], in_path[4200], out_path[4200], log_path[4200];
	struct nt_buf enc = {0};
	int r = -1, st;

	snprintf(dir, sizeof(dir), "%s/nettune-sign-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		nt_buf_printf(err, "cannot create a temporary directory: %s", strerror(errno));
		return -1;
	}
	/* osslsigncode picks the script format by the .ps1 suffix */
	snprintf(in_path, sizeof(in_path), "%s/in.ps1", dir);
	snprintf(out_path, sizeof(out_path), "%s/out.ps1", dir);
	snprintf(log_path, sizeof(log_path), "%s/log", dir);
	nt_ps1_encode(script, true, &enc);
	if ((st = write_all(in_path, &enc))) {
		nt_buf_printf(err, "%s: %s", in_path, strerror(-st));
		goto out;
	}
	{
		char *const argv[] = {
			"osslsigncode", "sign", "-certs", (char *)cert, "-key", (char *)key,
			"-h", "sha256", "-in", in_path, "-out", out_path, NULL,
		};

		st = run(argv, log_path);
	}
	if (st == 127) {
		nt_buf_puts(err, "osslsigncode is not installed (Debian package osslsigncode); "
			    "it is needed only for --sign-cert/--sign-key");
		goto out;
	}
	if (st) {
		nt_buf_printf(err, "osslsigncode sign failed (exit %d)", st);
		last_lines(err, log_path);
		if (err->p && strstr(err->p, "pass phrase"))
			nt_buf_puts(err, " (the key is encrypted: give an unencrypted PEM key, "
				    "e.g. from 'openssl pkey -in KEY -out KEY.plain')");
		goto out;
	}
	if ((st = read_all(out_path, out))) {
		nt_buf_printf(err, "%s: %s", out_path, strerror(-st));
		goto out;
	}
	r = 0;
out:
	unlink(in_path);
	unlink(out_path);
	unlink(log_path);
	rmdir(dir);
	nt_buf_free(&enc);
	return r;
}

int nt_ps1_write(const struct nt_buf *script, const char *cert, const char *key,
		 const char *path, const char *who)
{
	struct nt_buf out = {0}, err = {0};
	FILE *f;
	int r = -1;

	if (cert) {
		if (ps1_sign(script, cert, key, &out, &err)) {
			fprintf(stderr, "nettune %s: cannot sign: %s\n", who, err.p);
			goto out;
		}
	} else {
		nt_ps1_encode(script, false, &out);
	}
	f = path ? fopen(path, "wb") : stdout;
	if (!f) {
		fprintf(stderr, "nettune %s: %s: %s\n", who, path, strerror(errno));
		goto out;
	}
	nt_buf_write(&out, f);
	if (path ? fclose(f) : fflush(f)) {
		fprintf(stderr, "nettune %s: %s: %s\n", who, path ? path : "stdout", strerror(errno));
		goto out;
	}
	r = 0;
out:
	nt_buf_free(&out);
	nt_buf_free(&err);
	return r;
}
