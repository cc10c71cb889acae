/* SPDX-License-Identifier: MIT */
/* nettune validate: schema + capability checks, located diagnostics. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/model/caps.h"
#include "../compiler/language/check.h"
#include "../compiler/base/diag.h"
#include "../compiler/language/load.h"
#include "../compiler/passes/validate.h"
#include "cli.h"
#include "opts.h"
#include "parallel.h"
#include "walk.h"

static void help(void)
{
	printf("Usage: nettune validate [--format text|json|sarif|github] [--jobs N]\n"
	       "                        PROFILE...|DIRECTORY...\n\n"
	       "Checks each profile: YAML syntax, keys and types, extends, NIC capability\n"
	       "tables, tunnel MTU, NUMA layout, IRQ policy, target-specific keys and names.\n"
	       "No hardware is needed.  Every problem is reported as FILE:LINE:COL.\n"
	       "A DIRECTORY is searched as nettune compile searches it: *.yaml and *.yml\n"
	       "with a top-level apiVersion: nettune/... (other YAML is skipped and counted),\n"
	       "symbolic links not followed (a link to a file of the same tree is skipped).\n\n"
	       "  --format text    FILE:LINE:COL: error: message, on stderr (default)\n"
	       "  --format json    one JSON document on stdout\n"
	       "  --format sarif   SARIF 2.1.0 on stdout (code scanning upload)\n"
	       "  --format github  ::error file=..,line=..,col=..:: workflow commands on stdout\n"
	       "  --jobs N         check the profiles in N worker processes (default: one\n"
	       "                   per online CPU); the output is the same for every N\n\n"
	       "Exit status: 0 all valid (warnings allowed), 1 some invalid, 64 usage.\n");
}

/* After schema errors the loader dropped what they were found at; a later
 * error at the container it was dropped from ("needs target", "needs one
 * of ...") only repeats them. */
static void drop_echoes(struct nt_diags *d, size_t from, struct nt_loaded *l)
{
	size_t i, k = from;

	if (!l->npruned)
		return;
	qsort(l->pruned, l->npruned, sizeof(*l->pruned), nt_mark_cmp);
	for (i = from; i < d->n; i++) {
		bool echo = bsearch(&d->v[i].mark, l->pruned, l->npruned, sizeof(*l->pruned),
				    nt_mark_cmp) != NULL;

		if (echo && d->v[i].sev == NT_ERROR) {
			d->errors--;
			free(d->v[i].rule);
			free(d->v[i].msg);
			continue;
		}
		d->v[k++] = d->v[i];
	}
	d->n = k;
}

struct vbatch {
	const char *const *files;
	const bool *walked;		/* found in a directory: opened with O_NOFOLLOW */
	const struct nt_capsdb *db;
};

/* One profile's diagnostics (drop_echoes done), all in d. */
static void validate_one(const char *file, bool walked, const struct nt_capsdb *db,
			 struct nt_diags *d)
{
	struct nt_loaded l;
	struct nt_load_opts o = nt_cli_load_opts();

	if (walked)
		o.open_flags = NT_IN_NOFOLLOW;
	o.keep_going = true;	/* schema and capability errors in one run */
	if (!nt_load_profile(file, &o, &l, d)) {
		size_t n0 = d->n;

		nt_validate(&l, db, d);
		drop_echoes(d, n0, &l);
		nt_loaded_free(&l);
	}
}

/* A worker's record of one profile: per diagnostic its severity, line and
 * column, then file (empty: none), rule and message NUL-terminated. */
static void pack_one(size_t i, struct nt_buf *out, void *arg)
{
	const struct vbatch *V = arg;
	struct nt_diags d = {0};
	size_t k;

	validate_one(V->files[i], V->walked[i], V->db, &d);
	for (k = 0; k < d.n; k++) {
		const struct nt_diag *x = &d.v[k];
		uint32_t h[3] = {(uint32_t)x->sev, x->mark.line, x->mark.col};

		nt_buf_putn(out, (const char *)h, sizeof(h));
		nt_buf_putc(out, x->mark.file ? 'f' : '-');
		nt_buf_putn(out, x->mark.file ? x->mark.file : "", strlen(x->mark.file ? x->mark.file : "") + 1);
		nt_buf_putn(out, x->rule, strlen(x->rule) + 1);
		nt_buf_putn(out, x->msg, strlen(x->msg) + 1);
	}
	nt_diags_free(&d);
}

static void unpack(const struct nt_buf *b, struct nt_diags *d)
{
	const char *p = b->p, *end = b->p + b->n;

	while (end - p > (ptrdiff_t)(3 * sizeof(uint32_t) + 1)) {
		uint32_t h[3];
		struct nt_mark m;
		const char *file, *rule, *msg;
		bool has_file;

		memcpy(h, p, sizeof(h));
		p += sizeof(h);
		has_file = *p++ == 'f';
		file = p;
		p += strlen(p) + 1;
		rule = p;
		p += strlen(p) + 1;
		msg = p;
		p += strlen(p) + 1;
		m.file = has_file ? nt_intern(file) : NULL;
		m.line = h[1];
		m.col = h[2];
		nt_diag_add(d, (enum nt_severity)h[0], m, rule, "%s", msg);
	}
}

/* Checks files[] in workers and puts their diagnostics together in input
 * order, so the output is the same for any --jobs; files[f] interned,
 * valid[f] set; returns how many are invalid. */
static size_t check_all(const char **files, size_t nfiles, const struct nt_walk *W,
			const struct nt_capsdb *db, size_t jobs, bool *valid, struct nt_diags *all)
{
	struct vbatch V = {files, W->walked, db};
	struct nt_buf *res = nt_xcalloc(nfiles + 1, sizeof(*res));
	size_t invalid = 0;

	nt_par_run(nfiles, nfiles < 64 ? 1 : jobs, pack_one, &V, res);
	for (size_t f = 0; f < nfiles; f++) {
		struct nt_diags d = {0};

		if (res[f].p)
			unpack(&res[f], &d);
		else
			nt_error(&d, ((struct nt_mark){nt_intern(files[f]), 0, 0}), "internal",
				 "not checked (a worker died)");
		nt_buf_free(&res[f]);
		files[f] = nt_intern(files[f]);
		valid[f] = !d.errors;
		if (d.errors)
			invalid++;
		nt_diags_move(all, &d);
	}
	free(res);
	return invalid;
}

static void print_all(enum nt_diag_format fmt, struct nt_diags *all, const char **files,
		      const bool *valid, size_t nfiles)
{
	switch (fmt) {
	case NT_FMT_TEXT:
		nt_diags_print_text(all, stderr);
		break;
	case NT_FMT_JSON:
		nt_diags_print_json_valid(all, files, valid, nfiles, stdout);
		break;
	case NT_FMT_SARIF:
		nt_diags_print_sarif(all, stdout);
		break;
	case NT_FMT_GITHUB:
		nt_diags_print_github(all, stdout);
		break;
	}
}

/* several files (or -v): one summary line, on stderr like the errors */
static void summary(const struct nt_walk *W, const char **files, size_t nfiles, size_t bad)
{
	char *sk = nt_walk_skipped(W);

	if (nfiles == 1 && !W->dirs)
		fprintf(stderr, "%s: %s\n", files[0], bad ? "invalid" : "valid");
	else
		fprintf(stderr, "%zu profile%s: %zu valid, %zu invalid%s\n", nfiles,
			nfiles == 1 ? "" : "s", nfiles - bad, bad, sk);
	free(sk);
}

#define FORMAT_BAD "--format takes text, json, sarif or github"
#define JOBS_BAD "--jobs takes 1..256"

static int format_opt(const char *opt, const char *val, void *to)
{
	(void)opt;
	return nt_diag_format_parse(val, to) ? 0 : -1;
}

static int add_arg(const char *a, void *W)
{
	nt_walk_add(W, a);
	return NT_OPTS_GO;
}

int cmd_validate(int argc, char **argv)
{
	enum nt_diag_format fmt = NT_FMT_TEXT;
	struct nt_diags all = {0};
	const char **files = NULL;
	struct nt_walk W = {0};
	bool *valid = NULL;
	size_t nfiles = 0, invalid = 0, capsd_errors, jobs = nt_par_cpus();
	const struct nt_capsdb *db;
	struct nt_diags capsd = {0};
	int r;
	const struct nt_opt rows[] = {
		{"--format", NULL, NT_OPT_VALUE | NT_OPT_EQ, &fmt, format_opt, FORMAT_BAD, FORMAT_BAD},
		{"--jobs", NULL, NT_OPT_VALUE, &jobs, nt_opt_jobs, JOBS_BAD, JOBS_BAD},
		{NULL},
	};
	const struct nt_opts spec = {"validate", rows, help, NT_DD_END, true, add_arg, &W};

	r = nt_opts_parse(&spec, argc, argv);
	if (r != NT_OPTS_GO) {
		nt_walk_free(&W);
		return r;
	}
	if (!W.n && !W.dirs)
		return nt_usage_error("validate", "no PROFILE given");
	nfiles = W.n;
	files = nt_xcalloc(nfiles + 1, sizeof(*files));
	for (size_t f = 0; f < nfiles; f++)
		files[f] = W.v[f];
	db = nt_capsdb_default(&capsd);
	valid = nt_xcalloc(nfiles + 1, sizeof(bool));
	invalid = check_all(files, nfiles, &W, db, jobs, valid, &all);
	capsd_errors = capsd.errors;
	if (capsd.errors)
		invalid++;
	nt_diags_move(&all, &capsd);
	nt_diags_sort(&all);
	print_all(fmt, &all, files, valid, nfiles);
	if (fmt == NT_FMT_TEXT && (nfiles > 1 || nt_g.verbose || W.dirs))
		summary(&W, files, nfiles, invalid - (capsd_errors ? 1 : 0));
	nt_diags_free(&all);
	free(files);
	nt_walk_free(&W);
	free(valid);
	return invalid || !db ? NT_EXIT_FAIL : NT_EXIT_OK;
}
