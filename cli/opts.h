/* SPDX-License-Identifier: MIT */
/*
 * A command's options as a table, and the one loop that parses argv
 * against it with the messages every command prints.
 *
 * A command declares rows and a spec, then calls nt_opts_parse():
 *
 *	static const struct nt_opt rows[] = {
 *		{"--json", NULL, 0, &json},
 *		{"--state", NULL, NT_OPT_VALUE | NT_OPT_EQ, &state, NULL,
 *		 "--state needs a SNAPSHOT file"},
 *		{"--jobs", NULL, NT_OPT_VALUE, &jobs, nt_opt_jobs, NULL, "--jobs takes 1..256"},
 *		{NULL},
 *	};
 *	const struct nt_opts spec = {"plan", rows, help, .one = &profile,
 *				     .more = "one PROFILE at a time"};
 *	int r = nt_opts_parse(&spec, argc, argv);
 *
 *	if (r != NT_OPTS_GO)
 *		return r;
 *
 * Arguments are taken in order, so the first problem is the one reported:
 *  --help, -h      spec->help() and NT_EXIT_OK
 *  a row's name    (or alias): a flag sets *(bool *)to; a value row takes
 *                  the next argument, or with NT_OPT_EQ also --name=VALUE,
 *                  and stores it in *(const char **)to or hands it to
 *                  parse(row name, value, to).  No next argument: the usage
 *                  error missing, or "OPT needs a value" (OPT as typed).
 *                  parse returns 0, -1 (the usage error bad), or a
 *                  positive exit status (it printed why itself).
 *  --              per spec->dashdash: skipped, the end of the options,
 *                  or an unknown option
 *  -X...           "unknown option", with a did-you-mean among the
 *                  rows' names and the global options ("-" alone is a
 *                  positional argument with spec->dash_is_arg)
 *  anything else   spec->arg(a, ctx) (NT_OPTS_GO or an exit status); or
 *                  into *spec->one, the usage error spec->more for a second
 *                  one (with no one, for any; NULL: "unexpected argument
 *                  '%s'"); more may quote the argument with %s
 *
 * The row order is the did-you-mean order: between two options equally
 * near the one typed the earlier row wins.  Only "--long" names are
 * suggested (a row named "-o" is accepted, never suggested), and not a
 * row with NT_OPT_UNLISTED.
 */
#ifndef NT_CLI_OPTS_H
#define NT_CLI_OPTS_H

#include <stdbool.h>
#include <stddef.h>

/* nt_opts_parse(): the command goes on */
#define NT_OPTS_GO (-1)

enum {
	NT_OPT_VALUE = 1 << 0,		/* takes a value: --name VALUE */
	NT_OPT_EQ = 1 << 1,		/* also --name=VALUE */
	NT_OPT_UNLISTED = 1 << 2,	/* accepted, never a did-you-mean */
};

typedef int (*nt_opt_parse_fn)(const char *opt, const char *val, void *to);

struct nt_opt {
	const char *name;		/* "--state"; NULL ends the table */
	const char *alias;		/* "-o", or NULL */
	unsigned flags;			/* NT_OPT_* */
	void *to;			/* bool *, const char **, or parse's */
	nt_opt_parse_fn parse;		/* NULL: store the value's pointer */
	const char *missing;		/* no value; NULL: "OPT needs a value" */
	const char *bad;		/* parse returned -1 */
};

enum nt_dashdash {
	NT_DD_UNKNOWN,			/* "--" is an unknown option */
	NT_DD_SKIP,			/* ignored, options go on after it */
	NT_DD_END,			/* every argument after it is positional */
};

struct nt_opts {
	const char *cmd;		/* "plan": the messages' prefix */
	const struct nt_opt *rows;
	void (*help)(void);
	enum nt_dashdash dashdash;
	bool dash_is_arg;		/* "-" alone is a positional argument */
	int (*arg)(const char *a, void *ctx);
	void *ctx;
	const char **one;		/* the single positional argument */
	const char *more;		/* usage error for one too many */
};

/* NT_OPTS_GO, or the exit status the command returns now. */
int nt_opts_parse(const struct nt_opts *spec, int argc, char **argv);

/* Value parsers: *(int64_t *)to a duration (nt_duration_parse());
 * *(size_t *)to 1..256 workers. */
int nt_opt_duration(const char *opt, const char *val, void *to);
int nt_opt_jobs(const char *opt, const char *val, void *to);

#endif
