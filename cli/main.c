/* SPDX-License-Identifier: MIT */
/* nettune entry point: global options and the subcommand table. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../appliers/linux/sysio.h"

#include "../compiler/base/buf.h"
#include "../compiler/model/caps.h"
#include "../compiler/base/diag.h"
#include "../compiler/base/version.h"
#include "../pipeline/netns.h"
#include "cli.h"
#include "common.h"
#include "txn.h"

struct nt_globals nt_g;

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} subcommands[] = {
	{"validate", cmd_validate, "check profiles against the schema and NIC capability tables"},
	{"plan", cmd_plan, "show the changes that would converge a host to its profile"},
	{"apply", cmd_apply, "converge this Linux host: journal, write, verify, roll back on failure"},
	{"observe", cmd_observe, "print the live state (--json: a snapshot for plan --state)"},
	{"rollback", cmd_rollback, "restore the previous values from an apply journal"},
	{"confirm", cmd_confirm, "keep the changes of an apply --confirm-timeout"},
	{"agent", cmd_agent, "keep the host converged: correct drift on events and a periodic check"},
	{"history", cmd_history, "the apply journals, newest first, with their states"},
	{"show", cmd_show, "render a plan manifest with its signature status, or one apply journal"},
	{"watch", cmd_watch, "measure where traffic lands and judge it against the intended placement"},
	{"emit", cmd_emit, "write the desired state as an idempotent sh script or PowerShell playbook"},
	{"collect", cmd_collect, "print the Windows collector whose output is a snapshot for --state"},
	{"caps", cmd_caps, "list NIC capability tables, or show one"},
	{"keygen", cmd_keygen, "create an Ed25519 key pair for signing plans"},
	{"sign", cmd_sign, "sign a plan manifest (detached PLAN.json.sig)"},
	{"verify", cmd_verify, "check a plan manifest's signature against public keys"},
	{"compile", cmd_compile, "batch: many host profiles -> (signed) plan manifests"},
	{"schema", cmd_schema, "print the JSON Schema of the profile language"},
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: nettune [GLOBAL OPTIONS] COMMAND [ARGS...]\n\n"
		   "Declarative host network tuning: profile -> validate -> plan -> apply/emit.\n\n"
		   "Commands:\n");
	for (i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		fprintf(f, "  %-10s %s\n", subcommands[i].name, subcommands[i].help);
	fprintf(f, "\nGlobal options (before or after the command):\n"
		   "  --root DIR          read /proc and /sys below DIR (fixtures, offline hosts)\n"
		   "  --caps-dir DIR      NIC capability tables in DIR add to or replace the built-in ones\n"
		   "  --netns NAME        act inside the named network namespace only: host-wide\n"
		   "                      settings (vm.*, kernel.*, IRQ affinity, ...) are refused\n"
		   "  --any-host          plan and apply a profile whose metadata.name is not this\n"
		   "                      host (refused otherwise; metadata.host: any in a lab\n"
		   "                      or fleet-wide profile says so for good)\n"
		   "  --profile-path DIR  also look for extended policy profiles in DIR (repeatable);\n"
		   "                      extends searches the profile's directory, these, then a\n"
		   "                      data directory nobody else can write, then the built-in\n"
		   "                      policies (nettune(1), POLICY SEARCH)\n"
		   "  -v, --verbose       say more\n"
		   "  --version           print the version\n"
		   "  -h, --help          this help; 'nettune COMMAND --help' for a command\n"
		   "\nEnvironment (nettune(1)): NETTUNE_STATE_DIR, NETTUNE_CAPS_DIR, NETTUNE_DATADIR,\n"
		   "NETTUNE_TRUST_DIR, NETTUNE_STATS (requests sent, on stderr), SOURCE_DATE_EPOCH,\n"
		   "NO_COLOR.\n"
		   "\nExit codes: 0 ok / no changes, 1 error or invalid, 2 changes pending,\n"
		   "3 apply failed and rollback incomplete, 64 bad command line.\n");
}

int nt_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	struct nt_buf msg = {0};

	/* the message quotes what was typed: an argument may hold anything */
	va_start(ap, fmt);
	nt_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	fprintf(stderr, "nettune%s%s: %s", cmd ? " " : "", cmd ? cmd : "",
		nt_esc(msg.p ? msg.p : ""));
	nt_buf_free(&msg);
	fprintf(stderr, "\nTry 'nettune %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
	return NT_EXIT_USAGE;
}

struct nt_load_opts nt_cli_load_opts(void)
{
	struct nt_load_opts o = {nt_g.profile_path, nt_g.nprofile_path};

	return o;
}

struct nt_pipeline_req nt_cli_request(const char *profile)
{
	struct nt_pipeline_req rq = {0};

	rq.profile = profile;
	rq.load = nt_cli_load_opts();
	rq.netns = nt_g.netns;
	rq.any_host = nt_g.any_host;
	return rq;
}

void nt_print_diags(struct nt_diags *d)
{
	nt_diags_sort(d);
	nt_diags_print_text(d, stderr);
}

/* Takes a global option at argv[*i] (with its value); returns 1 if it was
 * one, 0 if not, -1 on a missing value. */
static int take_global(int argc, char **argv, int *i)
{
	const char *a = argv[*i];
	const char *val = NULL;
	static const char *const withval[] = {"--root", "--netns", "--profile-path", "--caps-dir"};
	size_t k;

	for (k = 0; k < NT_ARRAY_SIZE(withval); k++) {
		size_t n = strlen(withval[k]);

		if (!strncmp(a, withval[k], n) && (a[n] == '\0' || a[n] == '=')) {
			if (a[n] == '=')
				val = a + n + 1;
			else if (*i + 1 < argc)
				val = argv[++*i];
			else
				return -1;
			if (k == 0)
				nt_g.root = val;
			else if (k == 1)
				nt_g.netns = val;
			else if (k == 3)
				nt_caps_set_dir(val);
			else {
				nt_g.profile_path = nt_xrealloc(nt_g.profile_path,
								(nt_g.nprofile_path + 1) * sizeof(char *));
				nt_g.profile_path[nt_g.nprofile_path++] = val;
			}
			return 1;
		}
	}
	if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
		nt_g.verbose++;
		return 1;
	}
	if (!strcmp(a, "--any-host")) {
		nt_g.any_host = true;
		return 1;
	}
	return 0;
}

/* stdout is a pipe whose reader closed it (POLLERR on the write end) */
static bool reader_gone(void)
{
	struct pollfd p = {STDOUT_FILENO, 0, 0};

	return errno == EPIPE || (poll(&p, 1, 0) == 1 && (p.revents & POLLERR));
}

/* The command line split by main(): global options taken, the command
 * name, and the rest for the command. */
struct cmdline {
	const char *cmd;
	char **rest;
	int nrest;
	bool help, version;
};

/* Returns -1 when the command line goes on, else the exit status. */
static int split_cmdline(int argc, char **argv, struct cmdline *cl)
{
	bool dashdash = false;

	for (int i = 1; i < argc; i++) {
		int t;

		if (!dashdash) {
			if (!strcmp(argv[i], "--")) {
				dashdash = true;
				cl->rest[cl->nrest++] = argv[i];
				continue;
			}
			t = take_global(argc, argv, &i);
			if (t < 0)
				return nt_usage_error(NULL, "option %s needs a value", argv[i]);
			if (t > 0)
				continue;
			if (!cl->cmd && (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))) {
				cl->help = true;
				continue;
			}
			if (!strcmp(argv[i], "--version")) {
				cl->version = true;
				continue;
			}
		}
		if (!cl->cmd && argv[i][0] != '-') {
			cl->cmd = argv[i];
			continue;
		}
		cl->rest[cl->nrest++] = argv[i];
	}
	return -1;
}

/* --version, no command, "help [COMMAND]": -1 when a command is to run. */
static int answer_alone(struct cmdline *cl)
{
	if (cl->version) {
		printf("nettune %s\n", NT_VERSION);
		return NT_EXIT_OK;
	}
	if (!cl->cmd) {
		usage(cl->help ? stdout : stderr);
		return cl->help ? NT_EXIT_OK : NT_EXIT_USAGE;
	}
	if (strcmp(cl->cmd, "help"))
		return -1;
	/* nettune help COMMAND = nettune COMMAND --help */
	if (cl->nrest > 0 && cl->rest[0][0] != '-') {
		cl->cmd = cl->rest[0];
		cl->rest[0] = "--help";
		cl->nrest = 1;
		cl->help = true;
		return -1;
	}
	usage(stdout);
	return NT_EXIT_OK;
}

/* The subcommand named cmd, or the usage error with a did-you-mean. */
static int find_command(const char *cmd, size_t *k)
{
	const char *names[NT_ARRAY_SIZE(subcommands)];
	const char *s;

	for (*k = 0; *k < NT_ARRAY_SIZE(subcommands); ++*k)
		if (!strcmp(cmd, subcommands[*k].name))
			return -1;
	for (size_t i = 0; i < NT_ARRAY_SIZE(subcommands); i++)
		names[i] = subcommands[i].name;
	s = nt_suggest(cmd, names, NT_ARRAY_SIZE(subcommands));
	if (s)
		return nt_usage_error(NULL, "unknown command '%s'; did you mean '%s'?", cmd, s);
	return nt_usage_error(NULL, "unknown command '%s'", cmd);
}

/* Subcommand k with the rest of the command line, in its surroundings. */
/* 'agent status|hold|resume': the first word after "agent" that is not an
 * option (the agent's own options come after its profile) */
static bool agent_control(const char *cmd, const struct cmdline *cl)
{
	if (strcmp(cmd, "agent") || !cl->nrest)
		return false;
	return !strcmp(cl->rest[0], "status") || !strcmp(cl->rest[0], "hold") ||
	       !strcmp(cl->rest[0], "resume");
}

static int run_command(size_t k, struct cmdline *cl)
{
	static const char *const buffered[] = {"validate", "compile", "plan", "emit", "caps",
					       "schema", "sign", "verify", NULL};
	const char *cmd = cl->cmd;
	bool help = cl->help;
	int i;

	if (help)
		cl->rest[cl->nrest++] = "--help";
	/* batch and offline commands: diagnostics leave in a few large writes
	 * (none of these asks anything or runs another program meanwhile) */
	for (i = 0; buffered[i]; i++)
		if (!strcmp(cmd, buffered[i]))
			nt_diag_buffer_stderr();
	if (nt_g.root)
		nt_sys_root = nt_g.root;
	/* output to a closed pipe (nettune apply | head -1) must not kill an
	 * apply half-way: writes fail with EPIPE instead */
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < cl->nrest && !help; i++)
		help = !strcmp(cl->rest[i], "--help") || !strcmp(cl->rest[i], "-h");
	if (!help && strcmp(cmd, "schema") && strcmp(cmd, "caps"))
		nt_txn_preflight(cmd);
	/* agent status, hold and resume only talk to the agent's socket (named
	 * after the namespace): they enter nothing, and a non-root caller
	 * hears the agent's own refusal */
	if (nt_g.netns && !help && !agent_control(cmd, cl) &&
	    nt_enter_netns(nt_g.netns, !nt_g.root))
		return NT_EXIT_FAIL;
	nt_sys_netns = nt_g.netns;
	/* one-shot commands: their heap in huge pages (heap.c) */
	if (!help && strcmp(cmd, "agent") && strcmp(cmd, "watch"))
		nt_heap_hugepages(30u << 20);
	return subcommands[k].fn(cl->nrest, cl->rest);
}

int main(int argc, char **argv)
{
	struct cmdline cl = {NULL, nt_xcalloc((size_t)argc + 1, sizeof(char *)), 0, false, false};
	size_t k;
	int r;

	/* colour only for a terminal that can show it, unless NO_COLOR is set */
	nt_g.color = isatty(STDOUT_FILENO) && !getenv("NO_COLOR") &&
		     !(getenv("TERM") && !strcmp(getenv("TERM"), "dumb"));
	r = split_cmdline(argc, argv, &cl);
	if (r < 0)
		r = answer_alone(&cl);
	if (r < 0)
		r = find_command(cl.cmd, &k);
	if (r < 0)
		r = run_command(k, &cl);
	/* a reader that went away (EPIPE) does not change what was done */
	if ((fflush(stdout) || ferror(stdout)) && reader_gone())
		clearerr(stdout);
	if (ferror(stdout) && r == NT_EXIT_OK) {
		fputs("nettune: error writing output\n", stderr);
		r = NT_EXIT_FAIL;
	}
	free(cl.rest);
	free(nt_g.profile_path);
	nt_capsdb_default_free();
	nt_intern_free();
	return r;
}
