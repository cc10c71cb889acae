/* SPDX-License-Identifier: MIT */
/* nettune agent PROFILE | status | hold | resume: arguments and output;
 * the agent itself is agent/. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../agent/agent.h"
#include "common.h"
#include "opts.h"

static void agent_help(void)
{
	printf("Usage: nettune agent PROFILE [--mode correct|report] [--interval DURATION]\n"
	       "                     [--metrics FILE] [--damp N/DURATION] [--backoff DURATION]\n"
	       "                     [--keep-journals N] [--log-level info|debug]\n"
	       "       nettune agent status [--json]\n"
	       "       nettune agent hold [--for DURATION]\n"
	       "       nettune agent resume\n\n"
	       "Keeps this Linux host (or the --netns namespace) converged to the profile.\n"
	       "It converges once at start (interfaces that do not exist yet are skipped),\n"
	       "then listens to rtnetlink (links added, renamed, set up or down, their MTU\n"
	       "and queue length) and to ethtool's netlink notifications (features,\n"
	       "channels, rings and every other ethtool setting) and re-converges the\n"
	       "interface that changed; a periodic check covers what raises no event\n"
	       "(RPS/XPS, IRQ affinity, sysctls, the irqbalance ban).  Every correction\n"
	       "is a journaled apply of only the drifted settings, read back, shown by\n"
	       "'nettune history' with its cause, and undone by 'nettune rollback' like\n"
	       "any apply.  A setting an interface refused while down is applied when it\n"
	       "comes up; a new or renamed interface is converged when it appears.\n\n"
	       "  --mode report          observe and report drift; never write\n"
	       "  --interval DURATION    the periodic check (default 30s)\n"
	       "  --metrics FILE         Prometheus metrics, node_exporter textfile\n"
	       "                         convention (rewritten atomically, at most once a\n"
	       "                         second); nettune(1) lists the series\n"
	       "  --damp N/DURATION      a setting undone more than N (1..15) times within\n"
	       "                         DURATION (default 5/60s; off: never) is not\n"
	       "                         corrected for\n"
	       "  --backoff DURATION     (default 5m), and the conflict is reported (log,\n"
	       "                         metrics, status)\n"
	       "  --keep-journals N      keep the newest N journals of its own corrections\n"
	       "                         (default 1000; 0: every one); older ones go\n"
	       "  --log-level LEVEL      info (default) or debug\n\n"
	       "  status [--json]        what a running agent knows: converged or not, held,\n"
	       "                         conflicts, last check, last corrections\n"
	       "  hold [--for DURATION]  stop all corrections (drift is still reported)\n"
	       "                         until 'resume', or for DURATION\n"
	       "  resume                 end a hold; every setting is checked at once\n\n"
	       "DURATION: 250ms, 30s, 5m, 2h, 1d or plain seconds.  A profile file named\n"
	       "status, hold or resume is given as ./status.\n"
	       "Signals: SIGHUP re-reads the profile (an invalid one is refused with its\n"
	       "errors and the previous one stays in force); SIGTERM or SIGINT stop after\n"
	       "the correction in progress.  An apply a killed agent left open is rolled\n"
	       "back at the next start.  While a journal is open (an apply awaiting\n"
	       "'nettune confirm', an incomplete rollback) corrections wait; the agent\n"
	       "reverts an unconfirmed apply whose deadline has passed.\n"
	       "Logs go to stderr, one line per event (with a <N> priority prefix when\n"
	       "stderr is the journal, as $JOURNAL_STREAM names it).  Control socket: $NETTUNE_STATE_DIR/agent.sock\n"
	       "(agent@NETNS.sock with --netns), root only.  systemd: nettune-agent.service\n"
	       "(Type=notify: READY=1 after the first convergence, STATUS=, WATCHDOG=1).\n"
	       "--root is refused: the agent acts on the live kernel only.\n"
	       "Exit status: 0 stopped by SIGTERM/SIGINT, 1 could not start; status, hold,\n"
	       "resume: 0 answered, 1 no agent running or refused; 64 usage.\n");
}

/* "250ms", "30s", "5m", "2h", "1d", plain seconds: 1 ms .. 400 days. */
static int parse_ms(const char *s, long long *out)
{
	char *end;
	size_t k;
	double v;
	long long mul = 1000;

	/* decimal digits with at most one '.', then the unit: no sign, hex,
	 * exponent, "nan" or "inf" (strtod takes them all) */
	k = strspn(s, "0123456789.");
	if (!k || !isdigit((unsigned char)s[0]) || memchr(s, '.', k) != memrchr(s, '.', k))
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (end != s + k || errno || !(v > 0))
		return -1;
	if (!strcmp(end, "ms"))
		mul = 1;
	else if (!strcmp(end, "m"))
		mul = 60000;
	else if (!strcmp(end, "h"))
		mul = 3600000;
	else if (!strcmp(end, "d"))
		mul = 86400000;
	else if (*end && strcmp(end, "s"))
		return -1;
	if (!(v * (double)mul >= 1) || !(v * (double)mul <= 400.0 * 86400000))
		return -1;
	*out = (long long)(v * (double)mul);
	return 0;
}

static int opt_ms(const char *opt, const char *val, void *to)
{
	(void)opt;
	return parse_ms(val, to);
}

struct damp {
	unsigned *n;
	long long *window_ms;
};

static int opt_damp(const char *opt, const char *val, void *to)
{
	struct damp *d = to;
	char *end;
	unsigned long n = strtoul(val, &end, 10);

	(void)opt;
	if (!strcmp(val, "off")) {
		*d->n = 0;	/* no damping: every drift is corrected */
		return 0;
	}
	if (end == val || *end != '/' || !n || n > 15 || parse_ms(end + 1, d->window_ms))
		return -1;
	*d->n = (unsigned)n;
	return 0;
}

static int opt_keep(const char *opt, const char *val, void *to)
{
	char *end;
	unsigned long n = strtoul(val, &end, 10);

	(void)opt;
	if (end == val || *end || n > 1000000)
		return -1;
	*(size_t *)to = n;
	return 0;
}

static int opt_mode(const char *opt, const char *val, void *to)
{
	(void)opt;
	if (!strcmp(val, "report"))
		*(bool *)to = true;
	else if (!strcmp(val, "correct"))
		*(bool *)to = false;
	else
		return -1;
	return 0;
}

static int opt_level(const char *opt, const char *val, void *to)
{
	(void)opt;
	if (!strcmp(val, "debug"))
		*(bool *)to = true;
	else if (!strcmp(val, "info"))
		*(bool *)to = false;
	else
		return -1;
	return 0;
}

/* status / hold / resume: one request to the running agent. */
static int ask(const char *request, bool quiet_ok)
{
	struct nt_buf reply = {0};
	char err[768];
	int r = nt_agent_request(nt_g.netns, request, &reply, err, sizeof(err));

	if (r < 0) {
		fprintf(stderr, "nettune agent: %s\n", err);
	} else if (r > 0) {
		fprintf(stderr, "nettune agent: error: %s", reply.p ? reply.p : "refused\n");
	} else if (!quiet_ok && reply.p) {
		fputs(reply.p, stdout);
	}
	nt_buf_free(&reply);
	return r ? NT_EXIT_FAIL : NT_EXIT_OK;
}

static int sub_status(int argc, char **argv)
{
	bool json = false;
	const struct nt_opt rows[] = {{"--json", NULL, 0, &json}, {NULL}};
	const struct nt_opts spec = {"agent status", rows, agent_help,
				     .more = "unexpected argument '%s'"};
	int r = nt_opts_parse(&spec, argc, argv);

	if (r != NT_OPTS_GO)
		return r;
	return ask(json ? "status json" : "status", false);
}

static int sub_hold(int argc, char **argv)
{
	long long ms = 0;
	char req[64];
	const struct nt_opt rows[] = {
		{"--for", NULL, NT_OPT_VALUE | NT_OPT_EQ, &ms, opt_ms, "--for needs a DURATION",
		 "--for takes a DURATION: 30s, 5m, 2h, 1d or seconds"},
		{NULL},
	};
	const struct nt_opts spec = {"agent hold", rows, agent_help,
				     .more = "unexpected argument '%s'"};
	int r = nt_opts_parse(&spec, argc, argv);

	if (r != NT_OPTS_GO)
		return r;
	if (ms)
		snprintf(req, sizeof(req), "hold %lld", ms < 1000 ? 1 : (ms + 999) / 1000);
	else
		snprintf(req, sizeof(req), "hold");
	return ask(req, false);
}

static int sub_resume(int argc, char **argv)
{
	const struct nt_opt rows[] = {{NULL}};
	const struct nt_opts spec = {"agent resume", rows, agent_help,
				     .more = "unexpected argument '%s'"};
	int r = nt_opts_parse(&spec, argc, argv);

	if (r != NT_OPTS_GO)
		return r;
	return ask("resume", false);
}

static int run_agent(int argc, char **argv)
{
	const char *profile = NULL, *metrics = NULL;
	struct nt_agent_cfg cfg = {0};
	struct damp damp = {&cfg.damp_n, &cfg.damp_window_ms};
	char *abs;
	int r;
	const struct nt_opt rows[] = {
		{"--mode", NULL, NT_OPT_VALUE | NT_OPT_EQ, &cfg.report_only, opt_mode,
		 "--mode needs correct or report", "--mode takes correct or report"},
		{"--interval", NULL, NT_OPT_VALUE | NT_OPT_EQ, &cfg.interval_ms, opt_ms,
		 "--interval needs a DURATION", "--interval takes a DURATION: 30s, 5m, 250ms"},
		{"--metrics", NULL, NT_OPT_VALUE | NT_OPT_EQ, &metrics, NULL,
		 "--metrics needs a FILE"},
		{"--damp", NULL, NT_OPT_VALUE | NT_OPT_EQ, &damp, opt_damp,
		 "--damp needs N/DURATION", "--damp takes N/DURATION, N 1..15: 5/60s, or off"},
		{"--backoff", NULL, NT_OPT_VALUE | NT_OPT_EQ, &cfg.backoff_ms, opt_ms,
		 "--backoff needs a DURATION", "--backoff takes a DURATION: 5m, 300s"},
		{"--keep-journals", NULL, NT_OPT_VALUE | NT_OPT_EQ, &cfg.keep_journals, opt_keep,
		 "--keep-journals needs a number", "--keep-journals takes 0 (all) to 1000000"},
		{"--log-level", NULL, NT_OPT_VALUE | NT_OPT_EQ, &cfg.debug, opt_level,
		 "--log-level needs info or debug", "--log-level takes info or debug"},
		{NULL},
	};
	const struct nt_opts spec = {"agent", rows, agent_help, .one = &profile,
				     .more = "one PROFILE at a time"};

	cfg.interval_ms = NT_AGENT_INTERVAL_MS;
	cfg.damp_n = NT_AGENT_DAMP_N;
	cfg.damp_window_ms = NT_AGENT_DAMP_WINDOW_MS;
	cfg.backoff_ms = NT_AGENT_BACKOFF_MS;
	cfg.keep_journals = NT_AGENT_KEEP_JOURNALS;
	r = nt_opts_parse(&spec, argc, argv);
	if (r != NT_OPTS_GO)
		return r;
	if (!profile)
		return nt_usage_error("agent", "a PROFILE is required");
	if (geteuid())
		fprintf(stderr, "nettune agent: warning: not root: corrections will fail\n");
	abs = realpath(profile, NULL);
	cfg.base = nt_cli_request(abs ? abs : profile);
	cfg.metrics = metrics;
	r = nt_agent_run(&cfg);
	free(abs);
	return r ? NT_EXIT_FAIL : NT_EXIT_OK;
}

int cmd_agent(int argc, char **argv)
{
	if (nt_g.root)
		return nt_usage_error("agent", "--root is refused: the agent acts on the live "
				      "kernel only (plan --root to check a fixture)");
	if (argc > 0 && !strcmp(argv[0], "status"))
		return sub_status(argc - 1, argv + 1);
	if (argc > 0 && !strcmp(argv[0], "hold"))
		return sub_hold(argc - 1, argv + 1);
	if (argc > 0 && !strcmp(argv[0], "resume"))
		return sub_resume(argc - 1, argv + 1);
	return run_agent(argc, argv);
}
