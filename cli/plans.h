/* SPDX-License-Identifier: MIT */
/* Plan files on the command line: reading, atomic writing, signature
 * checks against trusted keys, and applying a manifest. */
#ifndef NT_CLI_PLANS_H
#define NT_CLI_PLANS_H

#include <sys/types.h>

#include "../appliers/linux/txn.h"
#include "../compiler/base/buf.h"
#include "../compiler/formats/manifest.h"
#include "../compiler/formats/sign.h"

/* Whole file into out (NUL-terminated); -1 with errno on failure, when
 * it is larger than max (EFBIG) or not a regular file (EINVAL, EISDIR).
 * nt_read_input() says why. */
int nt_read_file(const char *path, size_t max, struct nt_buf *out);
/* Writes path.tmp, fsyncs (when durable), renames over path.  -1 with errno. */
int nt_write_file_atomic(const char *path, const void *data, size_t n, mode_t mode,
			 bool durable);
enum nt_sig_status {
	NT_SIG_VALID,		/* a good signature by a trusted key (*who) */
	NT_SIG_UNSIGNED,	/* no PLAN.json.sig */
	NT_SIG_INVALID,		/* a signature that does not verify, or unreadable */
	NT_SIG_UNTRUSTED,	/* signed by a key that is not trusted */
};
/* The signature status of PLAN.json; why gets the reason (the refusal
 * text of apply and verify) when it is not valid. */
enum nt_sig_status nt_plan_signature(const char *path, const struct nt_buf *bytes,
				     const struct nt_manifest *m, const struct nt_trust *t,
				     const struct nt_key **who, char *why, size_t whylen);
/* Checks PLAN.sig against the trusted keys; prints the refusal
 * ("nettune CMD: error: ...") and returns -1, or 0 with *who set. */
int nt_plan_check_signature(const char *cmd, const char *path, const struct nt_buf *bytes,
			    const struct nt_manifest *m, const struct nt_trust *t,
			    const struct nt_key **who);
/* Names k as the signer, rewrites PLAN.json canonically (canon gets the
 * bytes) and writes PLAN.json.sig.  0, or -1 with err set. */
int nt_sign_manifest(struct nt_manifest *m, const struct nt_key *k, const char *path,
		     struct nt_buf *canon, bool durable, char *err, size_t errlen);
/* apply PLAN.json: signature, expiry, host, staleness, then the engine.
 * need_approval (off a terminal, no --yes): only a plan signed by a
 * trusted key is applied, its signature being the approval. */
int nt_apply_manifest(const char *path, const struct nt_buf *bytes, const struct nt_trust *t,
		      bool need_approval, struct nt_apply_opts *o);

#endif
