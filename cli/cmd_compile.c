/* SPDX-License-Identifier: MIT */
/* nettune compile: batch of host profiles -> (signed) plan manifests, continuing past failures. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../compiler/passes/lower.h"
#include "../compiler/model/scope.h"
#include "../compiler/base/strindex.h"
#include "../compiler/formats/snapshot.h"
#include "../compiler/passes/validate.h"
#include "common.h"
#include "opts.h"
#include "parallel.h"
#include "plans.h"
#include "walk.h"

#define SNAP_CACHE 8

struct snap {
	char *bytes;
	size_t n;
	struct nt_facts *facts;
	struct nt_state observed;
};

struct batch {
	const char *out_dir, *state_dir;
	struct nt_key key;
	bool sign;
	struct nt_manifest_opts mo;
	const struct nt_capsdb *db;
	const bool *walked;		/* per input: found by walking a directory */
	size_t written, validated, policies, failed;
	bool tty;
	/* a worker's snapshots, parsed once (load_snapshot()) */
	struct snap snaps[SNAP_CACHE];
	size_t snap_next;
};

/* A profile's status, the first byte of its result. */
enum { R_WRITTEN, R_VALIDATED, R_POLICY, R_FAILED };

static void help(void)
{
	printf("Usage: nettune compile --out-dir DIR [--key KEY] [--state-dir DIR]\n"
	       "                       [--expires-in DURATION] [--created TIME] [--jobs N]\n"
	       "                       PROFILE...|DIRECTORY...\n\n"
	       "Compiles many host profiles at once.  For each host profile NAME.yaml (a\n"
	       "DIRECTORY is searched recursively for *.yaml and *.yml that are nettune\n"
	       "profiles (a top-level apiVersion: nettune/..., as the hooks and the Action\n"
	       "select them; other YAML is skipped and counted); symbolic links are not\n"
	       "followed there: a link to a file of the same tree is skipped as a duplicate,\n"
	       "and any other link, a FIFO or anything but a regular file is an error):\n"
	       "  snapshot  STATE_DIR/NAME.json with --state-dir, else states/NAME.json next\n"
	       "            to the profile (the layout of examples/); without one the\n"
	       "            profile is only validated.  For a profile found in a\n"
	       "            DIRECTORY, a snapshot that is a symbolic link is an error\n"
	       "  output    DIR/NAME.plan.json, and DIR/NAME.plan.json.sig with --key\n"
	       "Policy profiles are validated and skipped.  Every invalid profile is reported\n"
	       "as FILE:LINE:COL on stderr and the batch goes on.  Progress is shown on a\n"
	       "terminal only.  --jobs N workers (default: one per online CPU); the NIC\n"
	       "capability tables are loaded once, before the workers start; a snapshot\n"
	       "shared by several profiles (links, identical files) is parsed once per worker.\n\n"
	       "Exit status: 0 every profile compiled or validated, 1 some failed, 64 usage.\n");
}

/* "dir/NAME.yaml" -> "NAME" */
static char *stem(const char *path)
{
	const char *b = strrchr(path, '/');
	char *s = nt_xstrdup(b ? b + 1 : path);
	char *dot = strrchr(s, '.');

	if (dot && dot != s)
		*dot = '\0';
	return s;
}

static char *snapshot_for(const struct batch *B, const char *profile, const char *name)
{
	char *p;

	if (B->state_dir) {
		p = nt_xasprintf("%s/%s.json", B->state_dir, name);
	} else {
		const char *slash = strrchr(profile, '/');

		p = slash ? nt_xasprintf("%.*s/states/%s.json", (int)(slash - profile), profile, name) :
			    nt_xasprintf("states/%s.json", name);
	}
	if (access(p, F_OK)) {
		free(p);
		return NULL;
	}
	return p;
}

/*
 * Snapshots shared by many profiles (hard or symbolic links to one host
 * state, a fleet of identical hosts) are parsed once per worker: a loaded
 * snapshot is kept with the bytes it was loaded from and reused when a
 * later file has exactly these bytes.  The file is still opened and read
 * each time with the same checks, so a cache hit can only skip the parse.
 * (The observed values keep the marks of the file first read; compile
 * reports nothing located at them.)
 */
static struct snap *snap_lookup(struct batch *B, const struct nt_buf *b)
{
	size_t i;

	for (i = 0; i < SNAP_CACHE; i++)
		if (B->snaps[i].facts && B->snaps[i].n == b->n &&
		    !memcmp(B->snaps[i].bytes, b->p, b->n))
			return &B->snaps[i];
	return NULL;
}

static struct snap *snap_store(struct batch *B, struct nt_buf *b, struct nt_facts *facts,
			       struct nt_state *obs)
{
	struct snap *c = &B->snaps[B->snap_next++ % SNAP_CACHE];

	if (c->facts) {
		nt_facts_free(c->facts);
		free(c->facts);
		nt_state_free(&c->observed);
		free(c->bytes);
	}
	c->n = b->n;
	c->bytes = nt_buf_take(b);
	c->facts = facts;
	c->observed = *obs;
	return c;
}

/* The snapshot of a profile found by walking a directory is not followed
 * through a link either: it sits in the same untrusted tree. */
static int load_snapshot(struct batch *B, const char *path, bool walked,
			 const struct nt_facts **facts, const struct nt_state **observed,
			 struct nt_diags *d)
{
	struct nt_buf b;
	struct nt_facts *f;
	struct nt_state obs;
	struct snap *c;
	char why[256];
	int r;

	if (walked && !B->state_dir) {
		/* its states/ folder is part of the walked tree: not a link out */
		char *dir = nt_xstrdup(path), *slash = strrchr(dir, '/');
		struct stat st;

		if (slash)
			*slash = '\0';
		r = slash && (lstat(dir, &st) || !S_ISDIR(st.st_mode));
		if (r)
			nt_error(d, ((struct nt_mark){nt_intern(path), 0, 0}), "io",
				 "%s is a symbolic link or not a directory; links are not followed in a "
				 "walked tree", dir);
		free(dir);
		if (r)
			return -1;
	}
	if (nt_read_input(path, NT_JSON_MAX_BYTES, walked ? NT_IN_NOFOLLOW : 0, &b, why,
			  sizeof(why))) {
		nt_error(d, ((struct nt_mark){nt_intern(path), 0, 0}), "io", "%s", why);
		return -1;
	}
	c = snap_lookup(B, &b);
	if (!c) {
		f = nt_xmalloc(sizeof(*f));
		if (nt_snapshot_load_data(path, b.p, b.n, f, &obs, d)) {
			free(f);
			nt_buf_free(&b);
			return -1;
		}
		c = snap_store(B, &b, f, &obs);
	}
	nt_buf_free(&b);
	*facts = c->facts;
	*observed = &c->observed;
	return 0;
}

/* The pipeline's observer for one profile: its snapshot, if it has one. */
struct snap_observer {
	struct batch *B;
	bool walked;
	char *state;			/* the snapshot's path */
};

static int observe_snapshot(void *ctx, struct nt_compiled *c, struct nt_diags *d)
{
	struct snap_observer *so = ctx;

	if (load_snapshot(so->B, so->state, so->walked, &c->lent_facts, &c->lent_observed, d))
		return -1;
	c->against = so->state;
	return 0;
}

/* One profile: R_WRITTEN, R_VALIDATED, R_POLICY, or -1 (diagnostics in d). */
static int compile_one(struct batch *B, const char *profile, bool walked, struct nt_diags *d)
{
	struct nt_pipeline_req rq = nt_cli_request(profile);
	struct snap_observer so = {B, walked, NULL};
	struct nt_observer ob = {observe_snapshot, &so};
	struct nt_compiled c;
	struct nt_manifest m = {0};
	struct nt_buf out = {0};
	char *name = stem(profile), *outp = NULL;

	/* the name becomes a file name and the manifest's "file": printable */
	for (const char *ch = name; *ch; ch++)
		if ((unsigned char)*ch < 0x20 || *ch == 0x7f) {
			nt_error(d, ((struct nt_mark){nt_intern(profile), 0, 0}), "name",
				 "the file name has a control character; rename it");
			free(name);
			return -1;
		}
	char err[512];
	int r = -1;

	if (walked)
		rq.load.open_flags = NT_IN_NOFOLLOW;
	rq.db = B->db;
	/* without a snapshot the profile is validated only */
	so.state = snapshot_for(B, profile, name);
	rq.source = so.state ? NT_STATE_OBSERVER : NT_STATE_NONE;
	rq.observer = &ob;
	rq.policy_stops = true;
	switch (nt_pipeline_run(&rq, &c, d)) {
	case 0:
		break;
	case NT_PIPE_POLICY:
		r = R_POLICY;
		goto out;
	case NT_PIPE_NO_STATE:
		r = R_VALIDATED;
		goto out;
	default:
		goto out;
	}
	if (nt_manifest_build(&m, &c.l, nt_compiled_facts(&c), &c.plan, so.state, &B->mo, d))
		goto out;
	outp = nt_xasprintf("%s/%s.plan.json", B->out_dir, name);
	if (B->sign) {
		if (nt_sign_manifest(&m, &B->key, outp, &out, false, err, sizeof(err))) {
			nt_error(d, (struct nt_mark){nt_intern(profile), 0, 0}, "compile", "%s", err);
			goto out;
		}
	} else {
		char *sig = nt_xasprintf("%s.sig", outp);

		nt_manifest_write(&m, &out);
		if (nt_write_file_atomic(outp, out.p, out.n, 0644, false)) {
			nt_error(d, (struct nt_mark){nt_intern(profile), 0, 0}, "compile",
				 "cannot write %s: %s", outp, strerror(errno));
			free(sig);
			goto out;
		}
		unlink(sig);
		free(sig);
	}
	r = R_WRITTEN;
out:
	nt_buf_free(&out);
	nt_manifest_free(&m);
	nt_compiled_free(&c);
	free(outp);
	free(so.state);
	free(name);
	return r;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The batch as its workers see it. */
struct job {
	struct batch *B;
	char **files;
	const char **dup;		/* "other\0stem": a second profile with this output name */
	size_t next;			/* the parent: results printed before this one */
	double last;			/* the parent: when the progress line was drawn */
};

/* Profile i, in a worker: its status byte (R_*), then the text of its
 * diagnostics when it failed (or has warnings and -v). */
static void compile_item(size_t i, struct nt_buf *out, void *arg)
{
	struct job *J = arg;
	struct batch *B = J->B;
	struct nt_diags d = {0};
	int status = R_FAILED;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int r;

	if (J->dup[i]) {
		nt_error(&d, ((struct nt_mark){nt_intern(J->files[i]), 0, 0}), "compile",
			 "%s also compiles to %s/%s.plan.json; host profile file names must "
			 "be unique", J->dup[i], B->out_dir, J->dup[i] + strlen(J->dup[i]) + 1);
		r = -1;
	} else {
		r = compile_one(B, J->files[i], B->walked[i], &d);
	}
	if (r >= 0 && !d.errors)
		status = r;
	if (m) {
		if (status == R_FAILED || (d.warnings && nt_g.verbose)) {
			nt_diags_sort(&d);
			nt_diags_print_text(&d, m);
		}
		fclose(m);
	}
	nt_buf_putc(out, (char)status);
	nt_buf_putn(out, text ? text : "", text ? len : 0);
	free(text);
	nt_diags_free(&d);
}

/* A result's diagnostics (after its status byte), on stderr. */
static void put_text(const struct nt_buf *res)
{
	if (res->n > 1)
		fwrite(res->p + 1, 1, res->n - 1, stderr);
}

/* In the parent as results arrive: what is complete, in input order, and
 * on a terminal the progress line. */
static void progress(const struct nt_buf *res, size_t n, size_t done, void *arg)
{
	struct job *J = arg;

	if (J->next < n && res[J->next].p && J->B->tty)
		fputs("\r\033[K", stderr);
	for (; J->next < n && res[J->next].p; J->next++)
		put_text(&res[J->next]);
	if (J->B->tty && (now_s() - J->last > 0.1 || done == n)) {
		J->last = now_s();
		fprintf(stderr, "\r\033[K[%zu/%zu] %s", done, n,
			J->files[J->next < n ? J->next : n - 1]);
		fflush(stderr);
	}
}

/* names[] of unique_outputs(), for out_name(): the index holds positions in outs[] */
static char **outname_of;

static const char *out_name(const void *arr, size_t i)
{
	return outname_of[((const size_t *)arr)[i]];
}

/* Output names must be unique: the first profile keeps its name, a later
 * one with a snapshot and the same name gets dup[i]. */
static void unique_outputs(struct batch *B, char **files, size_t n, const char **dup)
{
	char **names = nt_xcalloc(n + 1, sizeof(char *));
	size_t *outs = nt_xcalloc(n + 1, sizeof(size_t)), nouts = 0, i, k;
	struct nt_strindex seen = {0};

	outname_of = names;
	for (i = 0; i < n; i++) {
		char *st = stem(files[i]), *snap = snapshot_for(B, files[i], st);

		names[i] = snap ? st : (free(st), NULL);
		if (snap) {
			k = nt_strindex_find(&seen, outs, nouts, out_name, st);
			if (k != SIZE_MAX)	/* "other\0stem" for the message */
				dup[i] = nt_xasprintf("%s%c%s", files[outs[k]], '\0', st);
			outs[nouts++] = i;
		}
		free(snap);
	}
	nt_strindex_reset(&seen);
	free(outs);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Runs the batch over nw forked workers (parallel.c); the capability
 * tables were loaded before the fork and are shared.  Diagnostics come out
 * in input order. */
static void run(struct batch *B, char **files, size_t n, size_t nw)
{
	const char **dup = nt_xcalloc(n + 1, sizeof(char *));
	struct nt_buf *res = nt_xcalloc(n + 1, sizeof(*res));
	struct job J = {B, files, dup, 0, 0};
	const struct nt_par_opts po = {true, progress};
	size_t i;

	unique_outputs(B, files, n, dup);
	nt_par_run_with(n, nw, compile_item, &J, res, &po);
	if (B->tty)
		fputs("\r\033[K", stderr);
	for (i = 0; i < n; i++) {
		if (!res[i].p) {
			fprintf(stderr, "%s: error: not compiled (a worker died)\n", files[i]);
			B->failed++;
		} else {
			int status = res[i].n ? res[i].p[0] : R_FAILED;

			if (i >= J.next)
				put_text(&res[i]);
			B->written += status == R_WRITTEN;
			B->validated += status == R_VALIDATED;
			B->policies += status == R_POLICY;
			B->failed += status == R_FAILED;
		}
		nt_buf_free(&res[i]);
		free((char *)dup[i]);
	}
	free(res);
	free(dup);
}

static int add_arg(const char *a, void *F)
{
	nt_walk_add(F, a);
	return NT_OPTS_GO;
}

/* The command line, checked, into B and F: NT_OPTS_GO or the exit status. */
static int parse_compile(struct batch *B, struct nt_walk *F, const char **keyp, size_t *jobs,
			 int argc, char **argv)
{
	const char *created = NULL, *why = NULL;
	const struct nt_opt rows[] = {
		{"--out-dir", NULL, NT_OPT_VALUE, &B->out_dir},
		{"--key", NULL, NT_OPT_VALUE, keyp},
		{"--state-dir", NULL, NT_OPT_VALUE, &B->state_dir},
		{"--created", NULL, NT_OPT_VALUE, &created},
		{"--expires-in", NULL, NT_OPT_VALUE, &B->mo.expires_in, nt_opt_duration, NULL,
		 "--expires-in takes a duration such as 30m, 24h or 7d (at most 400d)"},
		{"--jobs", NULL, NT_OPT_VALUE, jobs, nt_opt_jobs, NULL, "--jobs takes 1..256"},
		{NULL},
	};
	const struct nt_opts spec = {"compile", rows, help, .arg = add_arg, .ctx = F};
	int r = nt_opts_parse(&spec, argc, argv);

	if (r != NT_OPTS_GO)
		return r;
	if (!B->out_dir)
		return nt_usage_error("compile", "--out-dir DIR is required");
	if (!F->n) {
		char *sk = nt_walk_skipped(F);

		r = nt_usage_error("compile", "no PROFILE or DIRECTORY with profiles given%s", sk);
		free(sk);
		return r;
	}
	if (!nt_created_time(created, &B->mo.created, &why))
		return nt_usage_error("compile", "--created %s", why);
	return NT_OPTS_GO;
}

/* The signing key, the output directory and the capability tables, loaded
 * once for the whole batch. */
static int prepare(struct batch *B, const char *keyp)
{
	struct nt_diags cd = {0};
	char err[512];

	if (keyp) {
		if (nt_key_load_private(keyp, &B->key, err, sizeof(err))) {
			fprintf(stderr, "nettune compile: error: %s\n", err);
			return -1;
		}
		B->sign = true;
	}
	if (mkdir(B->out_dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "nettune compile: error: cannot create %s: %s\n", B->out_dir,
			strerror(errno));
		return -1;
	}
	B->db = nt_capsdb_default(&cd);
	if (cd.errors)
		nt_print_diags(&cd);
	nt_diags_free(&cd);
	return 0;
}

static void summary(const struct batch *B, const struct nt_walk *F, double dt)
{
	char *sk = nt_walk_skipped(F);

	printf("%zu profile%s in %.2fs (%.0f/s): %zu manifest%s written%s, %zu validated "
	       "without a snapshot, %zu polic%s, %zu failed%s\n", F->n, F->n == 1 ? "" : "s",
	       dt, dt > 0 ? (double)F->n / dt : 0.0, B->written, B->written == 1 ? "" : "s",
	       B->sign ? " and signed" : "", B->validated, B->policies,
	       B->policies == 1 ? "y" : "ies", B->failed, sk);
	free(sk);
}

int cmd_compile(int argc, char **argv)
{
	struct batch B = {0};
	const char *keyp = NULL;
	struct nt_walk F = {0};
	size_t jobs = nt_par_cpus();
	double t0;
	int r;

	B.mo.expires_in = NT_DEFAULT_EXPIRES_IN;
	B.mo.cache_digests = true;
	r = parse_compile(&B, &F, &keyp, &jobs, argc, argv);
	if (r != NT_OPTS_GO)
		goto out;
	r = NT_EXIT_FAIL;
	if (prepare(&B, keyp))
		goto out;
	B.tty = isatty(STDERR_FILENO);
	t0 = now_s();
	B.walked = F.walked;
	run(&B, F.v, F.n, jobs > F.n ? F.n : jobs);
	summary(&B, &F, now_s() - t0);
	r = B.failed ? NT_EXIT_FAIL : NT_EXIT_OK;
out:
	nt_walk_free(&F);
	if (B.sign)
		nt_key_free(&B.key);
	return r;
}
