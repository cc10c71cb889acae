/* SPDX-License-Identifier: MIT */
/* nettune validate: schema + capability checks, located diagnostics. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/caps.h"
#include "../compiler/check.h"
#include "../compiler/diag.h"
#include "../compiler/load.h"
#include "../compiler/validate.h"
#include "cli.h"

static void help(void)
{
	printf("Usage: nettune validate [--format text|json|sarif|github] PROFILE...\n\n"
	       "Checks each profile: YAML syntax, keys and types, extends, NIC capability\n"
	       "tables, tunnel MTU, NUMA layout, IRQ policy, target-specific keys and names.\n"
	       "No hardware is needed.  Every problem is reported as FILE:LINE:COL.\n\n"
	       "  --format text    FILE:LINE:COL: error: message, on stderr (default)\n"
	       "  --format json    one JSON document on stdout\n"
	       "  --format sarif   SARIF 2.1.0 on stdout (code scanning upload)\n"
	       "  --format github  ::error file=..,line=..,col=..:: workflow commands on stdout\n\n"
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

int cmd_validate(int argc, char **argv)
{
	enum nt_diag_format fmt = NT_FMT_TEXT;
	struct nt_diags all = {0};
	const char **files = NULL;
	bool *valid = NULL;
	size_t nfiles = 0, invalid = 0, capsd_errors;
	const struct nt_capsdb *db;
	struct nt_diags capsd = {0};
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help();
			free(files);
			return NT_EXIT_OK;
		} else if (!strcmp(argv[i], "--format") || !strncmp(argv[i], "--format=", 9)) {
			const char *v = argv[i][8] == '=' ? argv[i] + 9 : (i + 1 < argc ? argv[++i] : NULL);

			if (!v || !nt_diag_format_parse(v, &fmt)) {
				free(files);
				return nt_usage_error("validate", "--format takes text, json, sarif or github");
			}
		} else if (!strcmp(argv[i], "--")) {
			for (i++; i < argc; i++) {
				files = nt_xrealloc(files, (nfiles + 1) * sizeof(*files));
				files[nfiles++] = argv[i];
			}
		} else if (argv[i][0] == '-' && argv[i][1]) {
			free(files);
			return nt_usage_error("validate", "unknown option '%s'", argv[i]);
		} else {
			files = nt_xrealloc(files, (nfiles + 1) * sizeof(*files));
			files[nfiles++] = argv[i];
		}
	}
	if (!nfiles) {
		free(files);
		return nt_usage_error("validate", "no PROFILE given");
	}
	db = nt_capsdb_default(&capsd);
	valid = nt_xcalloc(nfiles + 1, sizeof(bool));
	for (size_t f = 0; f < nfiles; f++) {
		struct nt_diags d = {0};
		struct nt_loaded l;
		struct nt_load_opts o = nt_cli_load_opts();

		o.keep_going = true;	/* schema and capability errors in one run */

		if (!nt_load_profile(files[f], &o, &l, &d)) {
			size_t n0 = d.n;

			nt_validate(&l, db, &d);
			drop_echoes(&d, n0, &l);
			nt_loaded_free(&l);
		}
		files[f] = nt_intern(files[f]);
		valid[f] = !d.errors;
		if (d.errors)
			invalid++;
		nt_diags_move(&all, &d);
	}
	capsd_errors = capsd.errors;
	if (capsd.errors)
		invalid++;
	nt_diags_move(&all, &capsd);
	nt_diags_sort(&all);
	switch (fmt) {
	case NT_FMT_TEXT:
		nt_diags_print_text(&all, stderr);
		break;
	case NT_FMT_JSON:
		nt_diags_print_json_valid(&all, files, valid, nfiles, stdout);
		break;
	case NT_FMT_SARIF:
		nt_diags_print_sarif(&all, stdout);
		break;
	case NT_FMT_GITHUB:
		nt_diags_print_github(&all, stdout);
		break;
	}
	/* several files (or -v): one summary line, on stderr like the errors */
	if (fmt == NT_FMT_TEXT && (nfiles > 1 || nt_g.verbose)) {
		size_t bad = invalid - (capsd_errors ? 1 : 0);

		if (nfiles == 1)
			fprintf(stderr, "%s: %s\n", files[0], bad ? "invalid" : "valid");
		else
			fprintf(stderr, "%zu profiles: %zu valid, %zu invalid\n", nfiles, nfiles - bad,
				bad);
	}
	nt_diags_free(&all);
	free(files);
	free(valid);
	return invalid || !db ? NT_EXIT_FAIL : NT_EXIT_OK;
}
