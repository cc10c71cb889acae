/* SPDX-License-Identifier: MIT */
/*
 * Plan manifests (format "nettune-plan/1"): a plan as a canonical JSON file
 * that CI signs and a host verifies before it applies exactly those
 * actions.  Canonical means one spelling per manifest: fixed key order,
 * fixed layout (one action per line), integers only, RFC 3339 UTC times,
 * so the same plan is byte-identical and the loader can insist that a
 * file re-serialises to its own bytes.  The layout is documented in
 * README.md ("GitOps and signed plans").
 */
#ifndef NT_MANIFEST_H
#define NT_MANIFEST_H

#include <stdint.h>

#include "../base/buf.h"
#include "../base/diag.h"
#include "../model/facts.h"
#include "../language/load.h"
#include "../model/actions.h"

#define NT_MANIFEST_FORMAT "nettune-plan/1"
#define NT_MANIFEST_MAX_BYTES (16u << 20)
#define NT_SHA256_HEX 65		/* 64 hex digits and a NUL */
#define NT_DEFAULT_EXPIRES_IN (24 * 3600)

struct nt_manifest_source {
	char *file;			/* as the loader read it */
	char sha256[NT_SHA256_HEX];
};

struct nt_manifest {
	char *nettune;			/* version that wrote it */
	char *host_name;		/* host the plan was computed against */
	char *machine_id;		/* NULL: not known */
	char *netns;			/* network namespace planned (--netns); NULL: the host's own */
	char *profile;			/* profile file named on the command line */
	char merged_sha256[NT_SHA256_HEX];	/* the merged (extends + defaults) profile */
	struct nt_manifest_source *sources;	/* every file read, the profile first */
	size_t nsources;
	char *against;			/* snapshot path, or "live" */
	int64_t created, expires;	/* seconds since the epoch, UTC */
	char *signer;			/* key id ("sha256:..."), NULL before signing */
	struct nt_plan plan;		/* host = metadata.name, target, actions */
};

struct nt_manifest_opts {
	int64_t created;
	int64_t expires_in;		/* seconds */
	bool cache_digests;		/* batch: digest shared policy files once */
};

/* Builds a manifest from a compiled plan (deep copies).  -1 with an error
 * when a source file cannot be read for its digest. */
int nt_manifest_build(struct nt_manifest *m, const struct nt_loaded *l,
		      const struct nt_facts *facts, const struct nt_plan *p,
		      const char *against, const struct nt_manifest_opts *o,
		      struct nt_diags *d);
/* The canonical bytes. */
void nt_manifest_write(const struct nt_manifest *m, struct nt_buf *out);
/* Validates every field (located errors) and rebuilds the plan; a file
 * that is not byte-identical to its own re-serialisation is refused.
 * Returns 0, or -1 with errors in d and m zeroed. */
int nt_manifest_load_data(const char *file, const char *data, size_t len,
			  struct nt_manifest *m, struct nt_diags *d);
void nt_manifest_free(struct nt_manifest *m);
/* Does this look like a plan manifest (rather than a YAML profile)? */
bool nt_manifest_sniff(const char *data, size_t len);

/* Desired state made of the actions' "to" values (apply's convergence check). */
void nt_manifest_desired(const struct nt_manifest *m, struct nt_state *out);
/* Compares each action's "from" with the live state; appends one line per
 * difference to out and returns how many there are. */
size_t nt_manifest_stale(const struct nt_manifest *m, const struct nt_state *live,
			 struct nt_buf *out);

/* Appends one line per setting whose final "to" value the live state does
 * not hold ("  LABEL: the host has X, the plan sets Y"; out may be NULL);
 * returns how many, with *nkeys the number of settings the plan sets. */
size_t nt_manifest_not_held(const struct nt_manifest *m, const struct nt_state *live,
			    size_t *nkeys, struct nt_buf *out);
/* Does the live state hold the final "to" value of every setting the plan
 * changes (the plan was applied already)?  False for an empty plan. */
bool nt_manifest_converged(const struct nt_manifest *m, const struct nt_state *live);

/* SHA-256 (OpenSSL EVP) as lower-case hex. */
void nt_sha256_hex(const void *data, size_t n, char out[NT_SHA256_HEX]);
/* "2024-05-01T12:00:00Z" <-> seconds since the epoch. */
void nt_time_format(int64_t t, char out[32]);
bool nt_time_parse(const char *s, int64_t *out);
/* "24h", "90m", "7d", "30s" or plain seconds; 1s..400d. */
bool nt_duration_parse(const char *s, int64_t *out);
/* --created: RFC 3339 UTC or "@SECONDS"; NULL: $SOURCE_DATE_EPOCH, else now. */
bool nt_created_time(const char *arg, int64_t *out, const char **why);

#endif
