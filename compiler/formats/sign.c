/* SPDX-License-Identifier: MIT */
/* Ed25519 keys, signatures and trusted keys over OpenSSL 3 EVP (no crypto of our own). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "../base/buf.h"
#include "manifest.h"
#include "sign.h"
#include "../base/strictmodes.h"

static void ossl_err(char *err, size_t errlen, const char *what, const char *path)
{
	unsigned long e = ERR_get_error();
	char buf[256] = "";

	if (e)
		ERR_error_string_n(e, buf, sizeof(buf));
	ERR_clear_error();
	snprintf(err, errlen, "%s %s%s%s", what, path, *buf ? ": " : "", buf);
}

static int key_id(EVP_PKEY *pk, char out[NT_KEY_ID_LEN])
{
	unsigned char *der = NULL;
	int n = i2d_PUBKEY(pk, &der);
	char hex[NT_SHA256_HEX];

	if (n <= 0)
		return -1;
	nt_sha256_hex(der, (size_t)n, hex);
	OPENSSL_free(der);
	snprintf(out, NT_KEY_ID_LEN, "sha256:%s", hex);
	return 0;
}

static FILE *open_new(const char *path, mode_t mode, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	FILE *f;

	if (fd < 0) {
		snprintf(err, errlen, "cannot create %s: %s%s", path, strerror(errno),
			 errno == EEXIST ? " (refusing to overwrite a key)" : "");
		return NULL;
	}
	fchmod(fd, mode);	/* whatever the umask says */
	f = fdopen(fd, "w");
	if (!f) {
		snprintf(err, errlen, "cannot create %s: %s", path, strerror(errno));
		close(fd);
	}
	return f;
}

int nt_key_generate(const char *path, char *err, size_t errlen)
{
	EVP_PKEY *pk = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	char *pub = nt_xasprintf("%s.pub", path);
	FILE *f = NULL, *g = NULL;
	int r = -1;

	if (!pk) {
		ossl_err(err, errlen, "cannot generate an Ed25519 key for", path);
		goto out;
	}
	if (!access(pub, F_OK)) {
		snprintf(err, errlen, "cannot create %s: it exists (refusing to overwrite a key)", pub);
		goto out;
	}
	f = open_new(path, 0600, err, errlen);
	if (!f)
		goto out;
	if (!PEM_write_PrivateKey(f, pk, NULL, NULL, 0, NULL, NULL) || fflush(f)) {
		ossl_err(err, errlen, "cannot write", path);
		goto out;
	}
	g = open_new(pub, 0644, err, errlen);
	if (!g)
		goto out;
	if (!PEM_write_PUBKEY(g, pk) || fflush(g)) {
		ossl_err(err, errlen, "cannot write", pub);
		goto out;
	}
	r = 0;
out:
	if (f && fclose(f) && !r) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		r = -1;
	}
	if (g && fclose(g) && !r) {
		snprintf(err, errlen, "cannot write %s: %s", pub, strerror(errno));
		r = -1;
	}
	EVP_PKEY_free(pk);
	free(pub);
	return r;
}

/* A PEM key file is a few hundred bytes. */
#define KEY_MAX_BYTES 65536

static int key_parse(const struct nt_buf *b, const char *path, bool priv, struct nt_key *k,
		     char *err, size_t errlen)
{
	BIO *bio = BIO_new_mem_buf(b->p, (int)b->n);
	EVP_PKEY *pk = NULL;

	if (bio)
		pk = priv ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) :
			    PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
	BIO_free(bio);
	if (!pk) {
		ossl_err(err, errlen, priv ? "not a PEM private key:" : "not a PEM public key:", path);
		return -1;
	}
	if (!EVP_PKEY_is_a(pk, "ED25519")) {
		snprintf(err, errlen, "%s is a %s key; nettune signs with Ed25519 only", path,
			 EVP_PKEY_get0_type_name(pk) ? EVP_PKEY_get0_type_name(pk) : "non-Ed25519");
		EVP_PKEY_free(pk);
		return -1;
	}
	if (key_id(pk, k->id)) {
		ossl_err(err, errlen, "cannot encode the public key of", path);
		EVP_PKEY_free(pk);
		return -1;
	}
	k->pkey = pk;
	k->path = nt_xstrdup(path);
	return 0;
}

static int key_load(const char *path, bool priv, struct nt_key *k, char *err, size_t errlen)
{
	struct nt_buf b;
	char why[256];
	int r;

	memset(k, 0, sizeof(*k));
	if (nt_read_input(path, KEY_MAX_BYTES, 0, &b, why, sizeof(why))) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	r = key_parse(&b, path, priv, k, err, errlen);
	OPENSSL_cleanse(b.p, b.n);
	nt_buf_free(&b);
	return r;
}

int nt_key_load_private(const char *path, struct nt_key *k, char *err, size_t errlen)
{
	return key_load(path, true, k, err, errlen);
}

int nt_key_load_public(const char *path, struct nt_key *k, char *err, size_t errlen)
{
	return key_load(path, false, k, err, errlen);
}

void nt_key_free(struct nt_key *k)
{
	EVP_PKEY_free(k->pkey);
	free(k->path);
	memset(k, 0, sizeof(*k));
}

int nt_sign(const struct nt_key *k, const void *data, size_t n, unsigned char sig[NT_SIG_BYTES])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	size_t len = NT_SIG_BYTES;
	int r = -1;

	if (ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
	    EVP_DigestSign(ctx, sig, &len, data, n) == 1 && len == NT_SIG_BYTES)
		r = 0;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	return r;
}

bool nt_verify(const struct nt_key *k, const void *data, size_t n, const unsigned char *sig,
	       size_t siglen)
{
	EVP_MD_CTX *ctx;
	bool ok;

	if (siglen != NT_SIG_BYTES)
		return false;
	ctx = EVP_MD_CTX_new();
	ok = ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
	     EVP_DigestVerify(ctx, sig, siglen, data, n) == 1;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	return ok;
}

/* Set and not empty: a trust directory was configured on purpose. */
static const char *trust_dir_env(void)
{
	const char *s = getenv("NETTUNE_TRUST_DIR");

	return s && *s ? s : NULL;
}

const char *nt_trust_dir(void)
{
	return trust_dir_env() ? trust_dir_env() : NT_TRUST_DIR_DEFAULT;
}

static void add_source(struct nt_trust *t, const char *s)
{
	char *n = nt_xasprintf("%s%s%s", t->sources ? t->sources : "", t->sources ? ", " : "", s);

	free(t->sources);
	t->sources = n;
}

static void trust_keep(struct nt_trust *t, const struct nt_key *k)
{
	t->v = nt_xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	t->v[t->n++] = *k;
}

int nt_trust_add(struct nt_trust *t, const char *path, char *err, size_t errlen)
{
	return nt_trust_add_as(t, "--trust", path, err, errlen);
}

int nt_trust_add_as(struct nt_trust *t, const char *flag, const char *path, char *err,
		    size_t errlen)
{
	char *s = nt_xasprintf("%s %s", flag, path);
	struct nt_key k;

	t->required = true;
	add_source(t, s);
	free(s);
	if (nt_key_load_public(path, &k, err, errlen))
		return -1;
	trust_keep(t, &k);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Opens the trust directory; 1 when the default one does not exist. */
static int trust_dir_open(const char *dir, char *err, size_t errlen)
{
	struct stat lst, st;
	int fd;

	if (lstat(dir, &lst)) {
		if (errno == ENOENT && !trust_dir_env() && !strcmp(dir, NT_TRUST_DIR_DEFAULT))
			return -ENOENT;
		snprintf(err, errlen, "trust directory %s: %s%s", dir, strerror(errno),
			 trust_dir_env() ? " (NETTUNE_TRUST_DIR names it)" : "");
		return -EINVAL;
	}
	if (S_ISLNK(lst.st_mode) && stat(dir, &st) && errno == ENOENT) {
		snprintf(err, errlen, "trust directory %s is a dangling symbolic link", dir);
		return -EINVAL;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOTDIR && !stat(dir, &st))
			snprintf(err, errlen, "trust directory %s: not a directory (%s)", dir,
				 nt_file_type(st.st_mode));
		else
			snprintf(err, errlen, "trust directory %s: %s", dir, strerror(errno));
		return -EINVAL;
	}
	if (fstat(fd, &st) || nt_strict_owner_mode("trust directory", dir, &st, false, err, errlen) ||
	    nt_strict_parents("trust directory", dir, err, errlen)) {
		if (!*err)
			snprintf(err, errlen, "trust directory %s: %s", dir, strerror(errno));
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* The key names of the directory, sorted; only *.pub and *.pem count. */
static char **trust_dir_names(int fd, size_t *n)
{
	int fd2 = dup(fd);
	DIR *d = fd2 < 0 ? NULL : fdopendir(fd2);
	struct dirent *e;
	char **names = NULL;

	*n = 0;
	if (!d) {
		if (fd2 >= 0)
			close(fd2);
		return NULL;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.' || l < 5 ||
		    (strcmp(e->d_name + l - 4, ".pub") && strcmp(e->d_name + l - 4, ".pem")))
			continue;
		names = nt_xrealloc(names, (*n + 1) * sizeof(*names));
		names[(*n)++] = nt_xstrdup(e->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(names, *n, sizeof(*names), cmp_str);
	return names;
}

/* One key of the directory: a regular file, not a symbolic link, opened
 * without blocking, owned and moded like the directory. */
static int trust_dir_key(struct nt_trust *t, int dfd, const char *dir, const char *name,
			 char *err, size_t errlen)
{
	char *path = nt_xasprintf("%s/%s", dir, name), why[256];
	struct nt_buf b = {0};
	struct nt_key k;
	struct stat st;
	int fd, r = -1;

	memset(&k, 0, sizeof(k));
	fd = nt_open_input_at(dfd, name, NT_IN_NOFOLLOW, &st, why, sizeof(why));
	if (fd < 0) {
		snprintf(err, errlen, "trusted key %s: %s", path, why);
		goto out;
	}
	if (nt_strict_owner_mode("trusted key", path, &st, false, err, errlen))
		goto out;
	if (nt_read_fd(fd, KEY_MAX_BYTES, &b, why, sizeof(why))) {
		snprintf(err, errlen, "trusted key %s: %s", path, why);
		goto out;
	}
	if (key_parse(&b, path, false, &k, err, errlen))
		goto out;
	trust_keep(t, &k);
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	nt_buf_free(&b);
	free(path);
	return r;
}

int nt_trust_load_dir(struct nt_trust *t, const char *dir, char *err, size_t errlen)
{
	char **names;
	size_t n, i;
	int fd, r = 0;

	*err = '\0';
	fd = trust_dir_open(dir, err, errlen);
	if (fd == -ENOENT)
		return 0;	/* the default directory is not there at all */
	if (fd < 0)
		return -1;
	t->required = true;
	add_source(t, dir);
	names = trust_dir_names(fd, &n);
	for (i = 0; i < n; i++) {
		if (!r && trust_dir_key(t, fd, dir, names[i], err, errlen))
			r = -1;
		free(names[i]);
	}
	free(names);
	close(fd);
	return r;
}

const struct nt_key *nt_trust_find(const struct nt_trust *t, const char *id)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].id, id))
			return &t->v[i];
	return NULL;
}

void nt_trust_free(struct nt_trust *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		nt_key_free(&t->v[i]);
	free(t->v);
	free(t->sources);
	memset(t, 0, sizeof(*t));
}
