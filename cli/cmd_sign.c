/* SPDX-License-Identifier: MIT */
/* nettune keygen / sign / verify: Ed25519 keys and detached plan signatures. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common.h"
#include "opts.h"
#include "plans.h"

static void keygen_help(void)
{
	printf("Usage: nettune keygen --out KEY\n\n"
	       "Creates an Ed25519 signing key: KEY (private key, PEM, mode 0600) and\n"
	       "KEY.pub (public key, PEM) for 'nettune apply --trust' or the trust\n"
	       "directory.  Existing files are never overwritten.\n");
}

int cmd_keygen(int argc, char **argv)
{
	const char *out = NULL;
	char err[512];
	struct nt_key k;
	int r;
	const struct nt_opt rows[] = {
		{"--out", NULL, NT_OPT_VALUE | NT_OPT_EQ, &out, NULL, "--out needs a KEY file"},
		{NULL},
	};
	const struct nt_opts spec = {"keygen", rows, keygen_help,
				     .more = "unexpected argument '%s'"};

	r = nt_opts_parse(&spec, argc, argv);
	if (r != NT_OPTS_GO)
		return r;
	if (!out)
		return nt_usage_error("keygen", "--out KEY is required");
	if (nt_key_generate(out, err, sizeof(err))) {
		fprintf(stderr, "nettune keygen: error: %s\n", err);
		return NT_EXIT_FAIL;
	}
	if (nt_key_load_private(out, &k, err, sizeof(err))) {
		fprintf(stderr, "nettune keygen: error: %s\n", err);
		return NT_EXIT_FAIL;
	}
	printf("Wrote %s (private, mode 0600) and %s.pub; key id %s\n", out, out, k.id);
	nt_key_free(&k);
	return NT_EXIT_OK;
}

/* Loads and validates PLAN.json; prints located errors. */
static int load_plan(const char *cmd, const char *path, struct nt_buf *bytes,
		     struct nt_manifest *m)
{
	struct nt_diags d = {0};
	char why[256];

	if (nt_read_input(path, NT_MANIFEST_MAX_BYTES, 0, bytes, why, sizeof(why))) {
		fprintf(stderr, "nettune %s: error: %s: %s\n", cmd, path, why);
		return -1;
	}
	if (nt_manifest_load_data(path, bytes->p, bytes->n, m, &d)) {
		nt_print_diags(&d);
		fprintf(stderr, "nettune %s: error: %s is not a valid plan manifest\n", cmd, path);
		nt_diags_free(&d);
		nt_buf_free(bytes);
		return -1;
	}
	nt_diags_free(&d);
	return 0;
}

/* Sets the signer, rewrites the manifest and writes PLAN.json.sig over its
 * exact bytes.  Shared with compile. */
int nt_sign_manifest(struct nt_manifest *m, const struct nt_key *k, const char *path,
		     struct nt_buf *canon, bool durable, char *err, size_t errlen)
{
	unsigned char sig[NT_SIG_BYTES];
	char *sigpath = nt_xasprintf("%s.sig", path);
	int r = -1;

	free(m->signer);
	m->signer = nt_xstrdup(k->id);
	canon->n = 0;
	nt_manifest_write(m, canon);
	if (nt_sign(k, canon->p, canon->n, sig)) {
		snprintf(err, errlen, "signing %s with %s failed", path, k->path);
		goto out;
	}
	if (nt_write_file_atomic(path, canon->p, canon->n, 0644, durable) ||
	    nt_write_file_atomic(sigpath, sig, sizeof(sig), 0644, durable)) {
		snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
		goto out;
	}
	r = 0;
out:
	free(sigpath);
	return r;
}

static void sign_help(void)
{
	printf("Usage: nettune sign --key KEY PLAN.json\n\n"
	       "Signs a plan manifest with an Ed25519 key from 'nettune keygen': names\n"
	       "the key in the manifest (\"signer\") and writes the detached raw 64-byte\n"
	       "signature of PLAN.json's exact bytes to PLAN.json.sig.  Check it with\n"
	       "'nettune verify --pub KEY.pub PLAN.json' or\n"
	       "'openssl pkeyutl -verify -pubin -inkey KEY.pub -rawin -in PLAN.json -sigfile PLAN.json.sig'.\n");
}

int cmd_sign(int argc, char **argv)
{
	const char *keyp = NULL, *plan = NULL;
	struct nt_buf bytes = {0}, canon = {0};
	struct nt_manifest m;
	struct nt_key k;
	char err[512];
	int r;
	const struct nt_opt rows[] = {
		{"--key", NULL, NT_OPT_VALUE | NT_OPT_EQ, &keyp, NULL, "--key needs a KEY file"},
		{NULL},
	};
	const struct nt_opts spec = {"sign", rows, sign_help, .one = &plan,
				     .more = "one PLAN.json at a time"};

	r = nt_opts_parse(&spec, argc, argv);
	if (r != NT_OPTS_GO)
		return r;
	r = NT_EXIT_FAIL;
	if (!keyp || !plan)
		return nt_usage_error("sign", "usage: nettune sign --key KEY PLAN.json");
	if (nt_key_load_private(keyp, &k, err, sizeof(err))) {
		fprintf(stderr, "nettune sign: error: %s\n", err);
		return NT_EXIT_FAIL;
	}
	if (load_plan("sign", plan, &bytes, &m))
		goto out_key;
	if (nt_sign_manifest(&m, &k, plan, &canon, true, err, sizeof(err)))
		fprintf(stderr, "nettune sign: error: %s\n", err);
	else {
		printf("Signed %s with %s (%s): %s.sig\n", plan, k.id, keyp, plan);
		r = NT_EXIT_OK;
	}
	nt_buf_free(&canon);
	nt_buf_free(&bytes);
	nt_manifest_free(&m);
out_key:
	nt_key_free(&k);
	return r;
}

static void verify_help(void)
{
	printf("Usage: nettune verify --pub PUB [--pub PUB]... PLAN.json\n\n"
	       "Checks that PLAN.json is a valid canonical plan manifest and that\n"
	       "PLAN.json.sig is a good Ed25519 signature of it by one of the given\n"
	       "public keys.  Exit status: 0 good signature, 1 refused, 64 usage.\n");
}

static int pub_opt(const char *opt, const char *val, void *t)
{
	char err[512];

	if (nt_trust_add_as(t, opt, val, err, sizeof(err))) {
		fprintf(stderr, "nettune verify: error: %s\n", err);
		return NT_EXIT_FAIL;
	}
	return 0;
}

int cmd_verify(int argc, char **argv)
{
	struct nt_trust t = {0};
	const char *plan = NULL;
	const struct nt_key *who;
	struct nt_buf bytes = {0};
	struct nt_manifest m;
	char when[32];
	int r;
	const struct nt_opt rows[] = {
		{"--pub", NULL, NT_OPT_VALUE | NT_OPT_EQ, &t, pub_opt, "--pub needs a PUB file"},
		{NULL},
	};
	const struct nt_opts spec = {"verify", rows, verify_help, .one = &plan,
				     .more = "one PLAN.json at a time ('%s')"};

	r = nt_opts_parse(&spec, argc, argv);
	if (r != NT_OPTS_GO) {
		nt_trust_free(&t);
		return r;
	}
	r = NT_EXIT_FAIL;
	if (!t.n || !plan) {
		nt_trust_free(&t);
		return nt_usage_error("verify", "usage: nettune verify --pub PUB PLAN.json");
	}
	if (load_plan("verify", plan, &bytes, &m))
		goto out;
	if (!nt_plan_check_signature("verify", plan, &bytes, &m, &t, &who)) {
		nt_time_format(m.expires, when);
		printf("%s: good signature by %s (%s); plan for host %s, %zu action%s, %s %s\n", plan,
		       who->id, who->path, m.host_name, m.plan.n, m.plan.n == 1 ? "" : "s",
		       (int64_t)time(NULL) >= m.expires ? "EXPIRED at" : "expires", when);
		r = NT_EXIT_OK;
	}
	nt_buf_free(&bytes);
	nt_manifest_free(&m);
out:
	nt_trust_free(&t);
	return r;
}
