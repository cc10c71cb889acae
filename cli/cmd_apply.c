/* SPDX-License-Identifier: MIT */
/* nettune apply / observe: their arguments and output; the transaction is
 * the applier's (appliers/linux/txn.h; rollback and confirm: cmd_txn.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../compiler/formats/planprint.h"
#include "../appliers/linux/txn.h"
#include "../appliers/linux/linux.h"
#include "../compiler/formats/hostprofile.h"
#include "../compiler/language/profile.h"
#include "../compiler/formats/snapshot.h"
#include "../compiler/passes/validate.h"
#include "common.h"
#include "opts.h"
#include "plans.h"

static void apply_help(void)
{
	printf("Usage: nettune apply PROFILE [--yes] [--dry-run] [--confirm-timeout SECONDS]\n"
	       "                     [--only IFACE] [--skip-missing] [--wait SECONDS]\n"
	       "       nettune apply PLAN.json [--trust PUB]... [--yes] [--dry-run]\n"
	       "                     [--confirm-timeout SECONDS] [--wait SECONDS]\n\n"
	       "Converges this Linux host (or the --netns namespace) to the profile: plans\n"
	       "against the live state, takes the apply lock, journals every previous value,\n"
	       "then makes each change in plan order and reads it back.  A change the kernel\n"
	       "accepts but does not make effective is a failure.  On any failure every step\n"
	       "made so far is undone in reverse order.  A converged host gets no writes.\n\n"
	       "  -y, --yes                 approve without asking: on a terminal apply shows\n"
	       "                            the plan and asks for 'yes' first; off a terminal\n"
	       "                            (ssh host cmd, cron, CI, units) it cannot ask and\n"
	       "                            refuses without --yes, changing nothing\n"
	       "  --dry-run                 show what would change; change nothing; exit like\n"
	       "                            plan (0 nothing to do, 2 changes pending, 1 error)\n"
	       "  --confirm-timeout SECONDS revert automatically unless 'nettune confirm' runs\n"
	       "                            in time (for changes that can cut you off); confirm\n"
	       "                            from a new SSH session after the health checks,\n"
	       "                            not straight after apply; the watcher survives the\n"
	       "                            terminal (own session, SIGHUP ignored)\n"
	       "  --only IFACE              only the settings of one interface (hotplug); other\n"
	       "                            interfaces of the profile may be missing\n"
	       "  --skip-missing            skip interfaces that do not exist yet, with a warning\n"
	       "                            (boot: their hotplug event applies them later)\n"
	       "  --wait SECONDS            wait that long for another nettune's lock (default\n"
	       "                            30 with --only, for hotplug bursts; else 0)\n"
	       "  --trust PUB               PLAN.json must be signed by this key (repeatable);\n"
	       "                            keys in $NETTUNE_TRUST_DIR (default\n"
	       "                            /etc/nettune/trusted.d) are trusted too, and when that\n"
	       "                            directory exists unsigned plans are refused\n\n"
	       "PLAN.json (from 'nettune plan --out') is applied exactly as written, after\n"
	       "its signature, expiry, host identity, network namespace (the --netns it was\n"
	       "planned in, or none) and observed values are checked; a plan the host\n"
	       "already holds in full says \"Already converged\" (exit 0).  A PLAN.json whose\n"
	       "signature a trusted key verifies is its own approval off a terminal (it\n"
	       "was reviewed and signed); an unsigned one needs --yes like a profile.\n"
	       "State: journals and the lock live in $NETTUNE_STATE_DIR (default /var/lib/nettune,\n"
	       "which must be root's and not group/world-writable).  SIGTERM, SIGINT or SIGHUP\n"
	       "during the writes rolls back what was written (exit 1); SIGPIPE is ignored.\n"
	       "An apply refuses while a journal is left open (interrupted, awaiting\n"
	       "confirmation, rollback incomplete): see 'nettune rollback --help'.\n"
	       "Each step prints one line with its number and the time since the start, and a\n"
	       "heads-up line comes before a step that can drop the link.  NETTUNE_STATS=1\n"
	       "prints the netlink requests, RSS ioctls and files read and written on stderr\n"
	       "at exit (nettune(1), ENVIRONMENT).\n"
	       "Exit status: 0 converged or nothing to do, 1 failed and rolled back (or error\n"
	       "before any change, or not approved), 3 failed and the rollback is incomplete,\n"
	       "64 usage; with --dry-run 0 or 2.\n");
}

/* Off a terminal nobody can be asked: without --yes nothing is applied. */
static int refuse_unapproved(const char *profile)
{
	fprintf(stderr, "nettune apply: error: not approved: %s: not on a terminal, so apply "
		"cannot show the plan and ask; add --yes to approve (units, cron, CI, ssh), or "
		"review it first with --dry-run; nothing was changed\n",
		nt_esc(profile));
	return NT_EXIT_FAIL;
}

/* apply PLAN.json (bytes): the trusted keys, then nt_apply_manifest. */
static int apply_plan_file(const char *path, const struct nt_buf *bytes, struct nt_trust *trust,
			   bool unapproved, struct nt_apply_opts *o)
{
	char err[512], *abs;
	int r;

	if (o->only)
		return nt_usage_error("apply", "--only does not apply to a PLAN.json: it is "
				      "applied exactly as signed");
	if (nt_trust_load_dir(trust, nt_trust_dir(), err, sizeof(err))) {
		fprintf(stderr, "nettune apply: error: %s\n", err);
		return NT_EXIT_FAIL;
	}
	o->netns = nt_g.netns;
	o->command = "apply PLAN.json";
	abs = realpath(path, NULL);
	o->profile = abs ? abs : path;
	r = nt_apply_manifest(path, bytes, trust, unapproved, o);
	free(abs);
	return r;
}

/* A profile that could not be planned: its located errors speak for
 * themselves; a host that could not be read, or a signal, is said to have
 * changed nothing. */
static int not_planned(struct nt_diags *d)
{
	bool host = false;

	for (size_t k = 0; k < d->n; k++)
		host |= d->v[k].rule && !strcmp(d->v[k].rule, "observe");
	nt_print_diags(d);
	if (nt_apply_interrupted())
		fprintf(stderr, "nettune apply: interrupted (signal %d) before any change; "
			"nothing was changed\n", nt_apply_interrupted());
	else if (host)
		fprintf(stderr, "nettune apply: nothing was changed\n");
	return NT_EXIT_FAIL;
}

static void print_plan(const struct nt_compiled *c)
{
	struct nt_buf out = {0};

	nt_plan_print_text(&c->plan, c->against, nt_g.color, &out);
	nt_buf_write(&out, stdout);
	nt_buf_free(&out);
}

/* The compiled profile: refused for Windows, for actions this host cannot
 * take, and unapproved (after the profile's own errors, which matter more;
 * before the lock: nothing is changed, not even on a converged host);
 * else applied. */
static int apply_compiled(const char *profile, struct nt_compiled *c, bool unapproved,
			  const struct nt_apply_opts *o)
{
	if (c->l.p->target && *c->l.p->target == NT_TARGET_WINDOWS) {
		fprintf(stderr, "nettune apply: error: %s targets windows; generate the playbook with "
			"'nettune emit --format ps1'\n", profile);
		return NT_EXIT_FAIL;
	}
	if (c->plan.cannot) {
		print_plan(c);
		fprintf(stderr, "nettune apply: error: %zu action%s cannot be applied on this host; "
			"nothing was changed\n", c->plan.cannot, c->plan.cannot == 1 ? "" : "s");
		return NT_EXIT_FAIL;
	}
	if (unapproved)
		return refuse_unapproved(profile);
	if ((o->dry_run || nt_g.verbose) && !o->ask)
		print_plan(c);
	return nt_txn_apply(&c->plan, &c->desired, &c->facts, o);
}

/* apply PROFILE: plan it against the live host, then apply_compiled. */
static int apply_profile(const char *profile, bool skip_missing, bool unapproved,
			 struct nt_apply_opts *o)
{
	struct nt_pipeline_req rq = nt_cli_request(profile);
	struct nt_diags d = {0};
	struct nt_compiled c;
	char *abs = realpath(profile, NULL);
	int r;

	o->profile = abs ? abs : profile;
	o->netns = nt_g.netns;
	rq.only = o->only;
	rq.skip_missing = skip_missing;
	if (nt_pipeline_run(&rq, &c, &d)) {
		r = not_planned(&d);
	} else {
		nt_print_diags(&d);
		r = apply_compiled(profile, &c, unapproved, o);
	}
	nt_diags_free(&d);
	nt_compiled_free(&c);
	free(abs);
	return r;
}

/* PROFILE or PLAN.json (by its content). */
static int apply_file(const char *path, struct nt_trust *trust, bool skip_missing,
		      bool unapproved, struct nt_apply_opts *o)
{
	struct nt_buf bytes = {0};
	int r;

	if (!nt_read_file(path, NT_MANIFEST_MAX_BYTES, &bytes) &&
	    nt_manifest_sniff(bytes.p, bytes.n)) {
		r = apply_plan_file(path, &bytes, trust, unapproved, o);
		nt_buf_free(&bytes);
		return r;
	}
	nt_buf_free(&bytes);
	if (trust->n)
		return nt_usage_error("apply", "--trust is for a signed PLAN.json, not a profile");
	return apply_profile(path, skip_missing, unapproved, o);
}

/* --wait: 0..86400 seconds */
static int opt_wait(const char *opt, const char *val, void *to)
{
	char *end;
	unsigned long v = strtoul(val, &end, 10);

	(void)opt;
	if (*end || end == val || v > 86400)
		return -1;
	*(long *)to = (long)v;
	return 0;
}

/* --confirm-timeout: 1..86400 seconds */
static int opt_confirm_timeout(const char *opt, const char *val, void *to)
{
	char *end;
	unsigned long v = strtoul(val, &end, 10);

	(void)opt;
	if (*end || !v || v > 86400)
		return -1;
	*(unsigned *)to = (unsigned)v;
	return 0;
}

/* --trust PUB: the key loaded now, or why not (exit 1) */
static int opt_trust(const char *opt, const char *val, void *to)
{
	char err[512];

	(void)opt;
	if (!nt_trust_add(to, val, err, sizeof(err)))
		return 0;
	fprintf(stderr, "nettune apply: error: %s\n", err);
	return NT_EXIT_FAIL;
}

struct apply_args {
	struct nt_apply_opts o;
	struct nt_trust trust;
	const char *profile;
	long wait_s;
	bool yes, skip_missing;
};

/* The command line, checked: NT_OPTS_GO or the exit status. */
static int parse_apply(struct apply_args *p, int argc, char **argv)
{
	const struct nt_opt rows[] = {
		{"--dry-run", NULL, 0, &p->o.dry_run},
		{"--yes", "-y", 0, &p->yes},
		{"--confirm-timeout", NULL, NT_OPT_VALUE, &p->o.confirm_timeout,
		 opt_confirm_timeout, NULL, "--confirm-timeout takes 1..86400 seconds"},
		{"--trust", NULL, NT_OPT_VALUE, &p->trust, opt_trust, "--trust needs a PUB file"},
		{"--only", NULL, NT_OPT_VALUE, &p->o.only},
		{"--wait", NULL, NT_OPT_VALUE, &p->wait_s, opt_wait, NULL,
		 "--wait takes 0..86400 seconds"},
		{"--skip-missing", NULL, 0, &p->skip_missing},
		{NULL},
	};
	const struct nt_opts spec = {"apply", rows, apply_help, NT_DD_SKIP, .one = &p->profile,
				     .more = "one PROFILE at a time"};
	int r = nt_opts_parse(&spec, argc, argv);

	if (r != NT_OPTS_GO)
		return r;
	if (!p->profile)
		return nt_usage_error("apply", "no PROFILE given");
	return NT_OPTS_GO;
}

int cmd_apply(int argc, char **argv)
{
	struct apply_args a = {.wait_s = -1};
	struct nt_apply_opts *o = &a.o;
	enum nt_approval approval;
	int r = parse_apply(&a, argc, argv);

	if (r != NT_OPTS_GO) {
		nt_trust_free(&a.trust);
		return r;
	}
	o->wait_ms = (unsigned)(a.wait_s >= 0 ? a.wait_s : o->only ? 30 : 0) * 1000u;
	/* on a terminal the plan is shown and must be approved; off one
	 * (units, cron, CI, ssh host cmd) --yes or a signed plan is the
	 * approval; Ansible's task is (it calls the engine, not this) */
	approval = nt_txn_approval(a.yes, o->dry_run, isatty(STDIN_FILENO) && isatty(STDOUT_FILENO));
	o->ask = approval == NT_APPROVE_ASK;
	o->color = nt_g.color;
	nt_apply_catch_signals();
	r = apply_file(a.profile, &a.trust, a.skip_missing, approval == NT_APPROVE_NEEDED, o);
	nt_trust_free(&a.trust);
	return r;
}

static void observe_help(void)
{
	printf("Usage: nettune observe [--json] [--] [IFACE...]\n"
	       "       nettune observe --profile [--] [IFACE...]\n\n"
	       "Reads the live state (every interface, or the ones named): topology,\n"
	       "NIC identity, queue -> IRQ map, offloads, channels, rings, coalescing,\n"
	       "RSS, IRQ affinity, RPS/XPS, irqbalance.  --json prints a snapshot that\n"
	       "plan --state and emit --state accept; it also records every readable\n"
	       "sysctl (not secrets such as *_key and stable_secret, kernel.random.*,\n"
	       "vm.stat_refresh, fs.binfmt_misc) and the CPU affinity of every systemd\n"
	       "service and process name, so a converged host's snapshot shows no drift.\n\n"
	       "--profile prints a HostProfile (YAML) of the current tunables of the named\n"
	       "interfaces (default: the physical NICs and tunnels; never lo; name a veth\n"
	       "or another virtual device to include it: a closing comment lists those left\n"
	       "out) in the profile language's portable\n"
	       "vocabulary: mtu, offloads (linux.features for the bits no portable key\n"
	       "covers or whose group is mixed), channels, rings, coalesce, rss hash and\n"
	       "spread, irq (explicit per-queue sets), rps, xps.  It validates, and\n"
	       "'nettune plan' of it on the same host reports no changes.\n"
	       "Known defaults are left out: these are values the kernel itself fixes, not\n"
	       "a driver's choice: MTU 1500 (ether_setup: Ethernet NICs and veth) and 1420\n"
	       "(WireGuard), IRQ affinity on every online CPU (default_smp_affinity), no\n"
	       "RPS map and rps_flow_cnt 0, no XPS map, and the RSS indirection table that\n"
	       "spreads evenly over every queue (ethtool_rxfh_indir_default).  Where the\n"
	       "default is the driver's and not known (offloads, channels, rings,\n"
	       "coalescing, RSS hash function) the current value is included.  The RSS key\n"
	       "is never included (the kernel's is random per boot); per-queue values that\n"
	       "differ (RPS, XPS, a custom indirection table) have no portable form and are\n"
	       "left out with a comment.  Sysctls and processes are not described.\n");
}

/* The default selection leaves out veth, bridges and other virtual devices:
 * said in the profile (a namespace of veth would print "interfaces: []"
 * without a word), with the command that includes them. */
static void left_out_comment(const struct nt_facts *f, struct nt_buf *out)
{
	struct nt_buf names = {0};
	size_t k, other = 0;

	for (k = 0; k < f->nifs; k++) {
		const struct nt_iface_facts *i = &f->ifs[k];

		if (!strcmp(i->name, "lo") || nt_hostprofile_default_iface(i))
			continue;
		/* a name a comment cannot hold (a line break) or a profile
		 * cannot name is counted, not printed */
		if (nt_linux_ifname_problem(i->name) || strpbrk(i->name, "\"'\\ #")) {
			other++;
			continue;
		}
		nt_buf_printf(&names, " %s", i->name);
	}
	if (!names.n && !other)
		return;
	nt_buf_printf(out, "# Left out: virtual devices (veth, bridges, ...) are described only when "
		      "named%s\n", names.n ? ":" : ".");
	if (names.n)
		nt_buf_printf(out, "#   nettune%s%s observe --profile%s\n",
			      nt_g.netns && !strpbrk(nt_g.netns, "\"'\\ #\n") ? " --netns " : "",
			      nt_g.netns && !strpbrk(nt_g.netns, "\"'\\ #\n") ? nt_g.netns : "", names.p);
	if (other)
		nt_buf_printf(out, "# (and %zu more whose names need quoting)\n", other);
	nt_buf_free(&names);
}

/* Names a profile or snapshot could not hold (the default selection
 * leaves such devices out), and lo for --profile: -1 after saying so. */
static int check_names(const char *const *ifs, size_t n, bool profile)
{
	for (size_t k = 0; k < n; k++) {
		const char *why = nt_linux_ifname_problem(ifs[k]);
		struct nt_buf q = {0};

		if (!why)
			continue;
		for (const char *c = ifs[k]; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				nt_buf_printf(&q, "\\x%02x", (unsigned char)*c);
			else
				nt_buf_putc(&q, *c);
		fprintf(stderr, "nettune observe: error: interface name '%s' %s; a profile or "
			"snapshot cannot name it\n", q.p ? q.p : "", why);
		nt_buf_free(&q);
		return -1;
	}
	for (size_t k = 0; profile && k < n; k++)
		if (!strcmp(ifs[k], "lo")) {
			fprintf(stderr, "nettune observe: error: lo is the loopback device; a profile "
				"never describes it\n");
			return -1;
		}
	return 0;
}

/* --profile: a HostProfile of the named interfaces, or of the default ones
 * with a comment on those left out. */
static void observe_profile(const struct nt_facts *f, const struct nt_state *st, const char **ifs,
			    size_t n, struct nt_diags *d, struct nt_buf *out)
{
	const char **which = n ? ifs : nt_xcalloc(f->nifs + 1, sizeof(char *));
	size_t nw = n;

	for (size_t k = 0; !n && k < f->nifs; k++)
		if (nt_hostprofile_default_iface(&f->ifs[k]))
			which[nw++] = f->ifs[k].name;
	nt_hostprofile_linux(f, st, nt_capsdb_default(d), which, nw, out);
	nt_print_diags(d);
	if (!n) {
		free(which);
		left_out_comment(f, out);
	}
}

/* The listing: the host, its interfaces, then the settings by object. */
static void observe_text(const struct nt_facts *f, const struct nt_state *st, struct nt_buf *out)
{
	const char *last = NULL;

	nt_buf_printf(out, "Host %s (linux %s)\n", f->hostname ? f->hostname : "?",
		      f->kernel ? f->kernel : "?");
	for (size_t k = 0; k < f->nifs; k++) {
		const struct nt_iface_facts *x = &f->ifs[k];

		nt_buf_printf(out, "%s: %s%s%s, numa node %d, %u rx / %u tx queues, %zu queue IRQs\n",
			      x->name, x->kind ? x->kind : "?", x->driver ? " driver " : "",
			      x->driver ? x->driver : "", x->numa_node, x->rx_queues,
			      x->tx_queues, x->nirqs);
	}
	for (size_t k = 0; k < st->n; k++) {
		char *attr = nt_setting_attr(&st->v[k]);

		if (!last || strcmp(last, st->v[k].object))
			nt_buf_printf(out, "\n%s\n", st->v[k].object);
		last = st->v[k].object;
		nt_buf_printf(out, "  %-36s ", attr);
		nt_value_format(&st->v[k].val, out, false);
		nt_buf_puts(out, "\n");
		free(attr);
	}
}

/* Observes ifs (NULL: every interface) and prints it as asked. */
static int observe_print(const char **ifs, size_t n, bool json, bool profile)
{
	struct nt_observe_req req = {0};
	struct nt_facts f;
	struct nt_state st;
	struct nt_diags d = {0};
	struct nt_buf out = {0};
	int rc = NT_EXIT_FAIL;

	req.ifaces = n ? ifs : NULL;
	req.nifaces = n;
	req.irqbalance = true;
	/* a snapshot carries every kind a profile can set */
	req.all_sysctls = req.all_processes = json;
	if (nt_linux_observe(&req, &f, &st, &d)) {
		/* no snapshot or listing from a partial view of the host */
		nt_print_diags(&d);
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		if (!nt_facts_iface(&f, ifs[k])) {
			fprintf(stderr, "nettune observe: error: no interface %s\n", ifs[k]);
			goto out;
		}
	if (profile)
		observe_profile(&f, &st, ifs, n, &d, &out);
	else if (json)
		nt_snapshot_write(&f, &st, &out);
	else
		observe_text(&f, &st, &out);
	nt_buf_write(&out, stdout);
	rc = NT_EXIT_OK;
out:
	nt_buf_free(&out);
	nt_state_free(&st);
	nt_facts_free(&f);
	nt_diags_free(&d);
	return rc;
}

/* IFACE arguments, in order */
struct iface_list {
	const char **v;
	size_t n;
};

static int add_iface(const char *a, void *ctx)
{
	struct iface_list *l = ctx;

	l->v[l->n++] = a;
	return NT_OPTS_GO;
}

int cmd_observe(int argc, char **argv)
{
	bool json = false, profile = false;
	struct iface_list ifs = {nt_xcalloc((size_t)argc + 1, sizeof(char *)), 0};
	const struct nt_opt rows[] = {
		{"--json", NULL, 0, &json},
		{"--profile", NULL, 0, &profile},
		{NULL},
	};
	/* after "--" every argument is an interface name, even "-x" */
	const struct nt_opts spec = {"observe", rows, observe_help, NT_DD_END, .arg = add_iface,
				     .ctx = &ifs};
	int r = nt_opts_parse(&spec, argc, argv);

	if (r == NT_OPTS_GO && json && profile)
		r = nt_usage_error("observe", "--json (a snapshot) and --profile (a HostProfile) "
				   "do not combine");
	if (r == NT_OPTS_GO)
		r = check_names(ifs.v, ifs.n, profile) ? NT_EXIT_FAIL :
		    observe_print(ifs.v, ifs.n, json, profile);
	free(ifs.v);
	return r;
}
