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

#include "buf.h"
#include "manifest.h"
#include "sign.h"

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

static int key_load(const char *path, bool priv, struct nt_key *k, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	EVP_PKEY *pk;

	memset(k, 0, sizeof(*k));
	if (!f) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	pk = priv ? PEM_read_PrivateKey(f, NULL, NULL, NULL) : PEM_read_PUBKEY(f, NULL, NULL, NULL);
	fclose(f);
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

const char *nt_trust_dir(void)
{
	const char *s = getenv("NETTUNE_TRUST_DIR");

	return s && *s ? s : "/etc/nettune/trusted.d";
}

static void add_source(struct nt_trust *t, const char *s)
{
	char *n = nt_xasprintf("%s%s%s", t->sources ? t->sources : "", t->sources ? ", " : "", s);

	free(t->sources);
	t->sources = n;
}

static int trust_push(struct nt_trust *t, const char *path, char *err, size_t errlen)
{
	struct nt_key k;

	if (nt_key_load_public(path, &k, err, errlen))
		return -1;
	t->v = nt_xrealloc(t->v, (t->n + 1) * sizeof(*t->v));
	t->v[t->n++] = k;
	return 0;
}

int nt_trust_add(struct nt_trust *t, const char *path, char *err, size_t errlen)
{
	char *s = nt_xasprintf("--trust %s", path);

	t->required = true;
	add_source(t, s);
	free(s);
	return trust_push(t, path, err, errlen);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int nt_trust_load_dir(struct nt_trust *t, const char *dir, char *err, size_t errlen)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;
	int r = 0;

	if (!d) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot read the trust directory %s: %s", dir, strerror(errno));
		return -1;
	}
	t->required = true;
	add_source(t, dir);
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.' || l < 5 ||
		    (strcmp(e->d_name + l - 4, ".pub") && strcmp(e->d_name + l - 4, ".pem")))
			continue;
		names = nt_xrealloc(names, (n + 1) * sizeof(*names));
		names[n++] = nt_xasprintf("%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (n > 1)	/* names is NULL for an empty directory */
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		if (!r && trust_push(t, names[i], err, errlen))
			r = -1;
		free(names[i]);
	}
	free(names);
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
