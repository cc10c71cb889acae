/* SPDX-License-Identifier: MIT */
/* One option loop for every command: its rows, the messages, the did-you-mean. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/base/diag.h"
#include "../compiler/formats/manifest.h"
#include "cli.h"
#include "opts.h"

/* accepted by every command, before or after it (main.c's take_global()) */
static const char *const global_opts[] = {"--help", "--root", "--caps-dir", "--netns",
					  "--profile-path", "--verbose", "--version"};

/* o, if it is nearer typed than *bestd and at most 2 edits away */
static void closer(const char *o, const char *typed, const char **best, unsigned *bestd)
{
	unsigned d;

	if (strlen(o) >= 64)
		return;
	d = nt_levenshtein(typed, o);
	if (d < *bestd && d <= 2) {
		*bestd = d;
		*best = o;
	}
}

/* nt_usage_error() "unknown option 'OPT'", with "; did you mean '--x'?"
 * for the one of names[0..n) or the global options at most two edits away
 * (the first of equally near ones). */
static int unknown_option(const char *cmd, const char *opt, const char *const *names, size_t n)
{
	char typed[64];
	const char *best = NULL;
	unsigned bestd = 1000;
	size_t len = strcspn(opt, "="), k;

	/* "--fromat=json": the name before '=' */
	if (len < sizeof(typed)) {
		memcpy(typed, opt, len);
		typed[len] = '\0';
		for (k = 0; k < n; k++)
			closer(names[k], typed, &best, &bestd);
		for (k = 0; k < NT_ARRAY_SIZE(global_opts); k++)
			closer(global_opts[k], typed, &best, &bestd);
	}
	if (best)
		return nt_usage_error(cmd, "unknown option '%s'; did you mean '%s'?", opt, best);
	return nt_usage_error(cmd, "unknown option '%s'", opt);
}

static int unknown(const struct nt_opts *s, const char *opt)
{
	const char *names[32];
	size_t n = 0;

	for (const struct nt_opt *o = s->rows; o && o->name && n < NT_ARRAY_SIZE(names); o++)
		if (o->name[1] == '-' && !(o->flags & NT_OPT_UNLISTED))
			names[n++] = o->name;
	return unknown_option(s->cmd, opt, names, n);
}

/* The row a is, and its value when given as --name=VALUE. */
static const struct nt_opt *find_row(const struct nt_opts *s, const char *a, const char **eqval)
{
	*eqval = NULL;
	for (const struct nt_opt *o = s->rows; o && o->name; o++) {
		size_t n = strlen(o->name);

		if (!strcmp(a, o->name) || (o->alias && !strcmp(a, o->alias)))
			return o;
		if ((o->flags & NT_OPT_EQ) && !strncmp(a, o->name, n) && a[n] == '=') {
			*eqval = a + n + 1;
			return o;
		}
	}
	return NULL;
}

/* Row o at argv[*i]: its value taken and stored. */
static int take(const struct nt_opts *s, const struct nt_opt *o, const char *eqval, int argc,
		char **argv, int *i)
{
	const char *opt = argv[*i], *val = eqval;
	int r;

	if (!(o->flags & NT_OPT_VALUE)) {
		*(bool *)o->to = true;
		return NT_OPTS_GO;
	}
	if (!val) {
		if (*i + 1 >= argc)
			return o->missing ? nt_usage_error(s->cmd, "%s", o->missing) :
			       nt_usage_error(s->cmd, "%s needs a value", opt);
		val = argv[++*i];
	}
	if (!o->parse) {
		*(const char **)o->to = val;
		return NT_OPTS_GO;
	}
	r = o->parse(o->name, val, o->to);
	if (r < 0)
		return nt_usage_error(s->cmd, "%s", o->bad);
	return r ? r : NT_OPTS_GO;
}

static int positional(const struct nt_opts *s, const char *a)
{
	if (s->arg)
		return s->arg(a, s->ctx);
	if (s->one && !*s->one) {
		*s->one = a;
		return NT_OPTS_GO;
	}
	return nt_usage_error(s->cmd, s->more ? s->more : "unexpected argument '%s'", a);
}

int nt_opts_parse(const struct nt_opts *s, int argc, char **argv)
{
	bool ended = false;

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *eqval;
		const struct nt_opt *o;
		int r;

		if (ended || a[0] != '-' || (s->dash_is_arg && !a[1])) {
			r = positional(s, a);
		} else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			s->help();
			return NT_EXIT_OK;
		} else if (!strcmp(a, "--") && s->dashdash != NT_DD_UNKNOWN) {
			ended = s->dashdash == NT_DD_END;
			continue;
		} else if ((o = find_row(s, a, &eqval))) {
			r = take(s, o, eqval, argc, argv, &i);
		} else {
			return unknown(s, a);
		}
		if (r != NT_OPTS_GO)
			return r;
	}
	return NT_OPTS_GO;
}

int nt_opt_duration(const char *opt, const char *val, void *to)
{
	(void)opt;
	return nt_duration_parse(val, to) ? 0 : -1;
}

int nt_opt_jobs(const char *opt, const char *val, void *to)
{
	char *end;
	unsigned long v = strtoul(val, &end, 10);

	(void)opt;
	if (!v || *end || v > 256)
		return -1;
	*(size_t *)to = v;
	return 0;
}
