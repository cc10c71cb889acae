/* SPDX-License-Identifier: MIT */
/* Fuzz target: the plan manifest loader and the signature check.  An input
 * is the manifest's bytes followed by a 64-byte detached signature; the
 * trusted key is fuzz/manifest-test.key.pub (the seeds are signed with
 * its private half, so mutations reach past verification). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/formats/planprint.h"
#include "../compiler/base/buf.h"
#include "../compiler/formats/manifest.h"
#include "../compiler/formats/sign.h"
#include "config.h"
#include "fuzz.h"

static struct nt_trust trust;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[256];

	(void)argc;
	(void)argv;
	if (nt_trust_add(&trust, NT_SRCDIR "/fuzz/manifest-test.key.pub", err, sizeof(err))) {
		fprintf(stderr, "fuzz-manifest: %s\n", err);
		abort();
	}
	return 0;
}

/* The signature check of apply/verify (cli/plans.c) without the files. */
static bool signature_ok(const struct nt_manifest *m, const uint8_t *data, size_t n,
			 const uint8_t *sig)
{
	const struct nt_key *k;
	size_t i;

	if (!sig)
		return false;
	if (m->signer) {
		k = nt_trust_find(&trust, m->signer);
		return k && nt_verify(k, data, n, sig, NT_SIG_BYTES);
	}
	for (i = 0; i < trust.n; i++)
		if (nt_verify(&trust.v[i], data, n, sig, NT_SIG_BYTES))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sig = size > NT_SIG_BYTES ? data + size - NT_SIG_BYTES : NULL;
	size_t n = sig ? size - NT_SIG_BYTES : size;
	struct nt_manifest m;
	struct nt_state desired = {0}, live = {0};
	struct nt_diags d = {0};
	struct nt_buf b = {0};

	if (nt_manifest_load_data("fuzz.plan.json", (const char *)data, n, &m, &d))
		goto out;
	/* the loader accepts only canonical bytes: writing it back is the identity */
	nt_manifest_write(&m, &b);
	if (b.n != n || memcmp(b.p, data, n)) {
		fprintf(stderr, "loaded manifest does not re-serialise to its bytes:\n%.*s\n",
			(int)b.n, b.p ? b.p : "");
		abort();
	}
	signature_ok(&m, data, n, sig);
	nt_manifest_desired(&m, &desired);
	nt_manifest_stale(&m, &live, &b);
	nt_plan_print_text(&m.plan, m.against, false, &b);
	nt_plan_print_json(&m.plan, &b);
	nt_manifest_free(&m);
out:
	nt_fuzz_print_diags(&d);
	nt_buf_free(&b);
	nt_state_free(&desired);
	nt_diags_free(&d);
	return 0;
}
