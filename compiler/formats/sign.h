/* SPDX-License-Identifier: MIT */
/*
 * Ed25519 signatures of plan manifests, with OpenSSL 3 EVP only.
 *
 * Scheme: a detached raw 64-byte Ed25519 signature (RFC 8032, pure, no
 * pre-hash) over the exact bytes of PLAN.json, stored in PLAN.json.sig.
 * The manifest's "signer" field names the key ("sha256:" + SHA-256 of the
 * DER SubjectPublicKeyInfo) and is covered by the signature.  Any
 * verifier checks it with
 *   openssl pkeyutl -verify -pubin -inkey PUB -rawin -in PLAN.json -sigfile PLAN.json.sig
 */
#ifndef NT_SIGN_H
#define NT_SIGN_H

#include <stdbool.h>
#include <stddef.h>

#define NT_SIG_BYTES 64
#define NT_KEY_ID_LEN 72		/* "sha256:" + 64 hex + NUL */

struct nt_key {
	void *pkey;			/* EVP_PKEY * */
	char id[NT_KEY_ID_LEN];
	char *path;
};

/* Trusted public keys: --trust files and the trust directory. */
struct nt_trust {
	struct nt_key *v;
	size_t n;
	bool required;			/* --trust given or a trust directory was read */
	char *sources;			/* "--trust a.pub, /etc/nettune/trusted.d" for messages */
};

/* Writes a new private key to path (PEM, mode 0600, refuses to overwrite)
 * and its public key to path.pub.  0 or -1 with err set. */
int nt_key_generate(const char *path, char *err, size_t errlen);
int nt_key_load_private(const char *path, struct nt_key *k, char *err, size_t errlen);
int nt_key_load_public(const char *path, struct nt_key *k, char *err, size_t errlen);
void nt_key_free(struct nt_key *k);

int nt_sign(const struct nt_key *k, const void *data, size_t n, unsigned char sig[NT_SIG_BYTES]);
bool nt_verify(const struct nt_key *k, const void *data, size_t n, const unsigned char *sig,
	       size_t siglen);

#define NT_TRUST_DIR_DEFAULT "/etc/nettune/trusted.d"

/* $NETTUNE_TRUST_DIR when set and not empty, else NT_TRUST_DIR_DEFAULT. */
const char *nt_trust_dir(void);
/* A --trust PUB file: a regular file (a symbolic link to one is fine). */
int nt_trust_add(struct nt_trust *t, const char *path, char *err, size_t errlen);
/* The same, given with option flag ("--pub" of verify): messages name it. */
int nt_trust_add_as(struct nt_trust *t, const char *flag, const char *path, char *err,
		    size_t errlen);
/*
 * Adds every *.pub / *.pem of the trust directory, with sshd's StrictModes
 * rules: the directory, every directory above it and every key file are
 * owned by root or the invoking user (getuid()) and not group- or
 * world-writable (a directory above may be world-writable if it is
 * sticky, like /tmp); keys are regular files opened with O_NOFOLLOW and
 * O_NONBLOCK, so a symbolic link, FIFO or device among them is an error.
 * Any refused key refuses the whole directory.
 *
 * Only the default directory may be absent: when NETTUNE_TRUST_DIR is
 * unset (or empty) and lstat() of NT_TRUST_DIR_DEFAULT fails with ENOENT,
 * there is no trust directory and 0 is returned with t unchanged.  A
 * directory named by NETTUNE_TRUST_DIR that is missing, a dangling
 * symbolic link (also the default path), or anything but a directory is
 * an error.  0, or -1 with err set.
 */
int nt_trust_load_dir(struct nt_trust *t, const char *dir, char *err, size_t errlen);
const struct nt_key *nt_trust_find(const struct nt_trust *t, const char *id);
void nt_trust_free(struct nt_trust *t);

#endif
