/* SPDX-License-Identifier: MIT */
/* nettune plan: show what would converge the host, terraform-style exit codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../compiler/formats/planprint.h"
#include "common.h"
#include "opts.h"
#include "plans.h"
#include "../report/topomap.h"

#define EXPIRES_BAD "--expires-in takes a duration such as 30m, 24h or 7d (at most 400d)"

static void help(void)
{
	printf("Usage: nettune plan PROFILE [--state SNAPSHOT] [--json] [--check] [--map]\n"
	       "                    [--out PLAN.json [--expires-in DURATION] [--created TIME]]\n\n"
	       "Compares the profile's desired state with the host's observed state and\n"
	       "prints the ordered actions that would converge it: for each object, the\n"
	       "attribute, from -> to, whether it flaps the link (disruptive), and the\n"
	       "profile position it comes from.  Nothing is changed.\n\n"
	       "  --state SNAPSHOT  plan against a snapshot (nettune observe --json, or the\n"
	       "                    Windows collector) instead of the live host\n"
	       "  --json            machine-readable plan on stdout\n"
	       "  --out PLAN.json   also write the canonical plan manifest (sign it with\n"
	       "                    'nettune sign', apply it with 'nettune apply PLAN.json')\n"
	       "  --expires-in D    manifest lifetime: 30m, 24h (default), 7d, or seconds\n"
	       "  --created TIME    manifest creation time (RFC 3339 UTC or @SECONDS; default\n"
	       "                    $SOURCE_DATE_EPOCH, else now): reproducible manifests\n"
	       "  --check           drift check: one line per difference, no plan text;\n"
	       "                    exit 0 in sync, 2 drifted, 1 error (systemd timers)\n"
	       "  --map             also draw the intended placement: NUMA node -> physical\n"
	       "                    core -> the queue IRQs put there (nettune watch draws\n"
	       "                    the measured one)\n\n"
	       "Exit status: 0 no changes, 2 changes pending, 1 error (invalid profile,\n"
	       "unreadable snapshot, or an action that cannot be applied), 64 usage.\n");
	/* the attribute words of plans, snapshots and journals: the kind rows */
	printf("\nAttributes (kind [argument]; * flaps the link):\n");
	for (size_t k = 0; k < NT_K__COUNT; k++) {
		const struct nt_kinddef *d = &nt_kinds[k];
		const char *arg = d->argshape == NT_ARG_NONE ? "" :
				  d->argshape == NT_ARG_NAMED ? " NAME" :
				  d->argshape == NT_ARG_OPEN ? " NAME" : " QUEUE";
		char word[48];

		snprintf(word, sizeof(word), "%s%s%s", d->name, arg,
			 d->flags & NT_KF_DISRUPTIVE ? " *" : "");
		printf("  %-26s %s%s\n", word, d->flags & NT_KF_WINDOWS ? "Windows: " : "", d->help);
	}
}

static int write_manifest(const struct nt_compiled *c, const char *path, const char *created,
			  int64_t expires_in, struct nt_diags *d)
{
	struct nt_manifest_opts mo = {0, expires_in, false};
	struct nt_manifest m;
	struct nt_buf b = {0};
	const char *why;
	int r = 0;

	nt_created_time(created, &mo.created, &why);
	if (nt_manifest_build(&m, &c->l, &c->facts, &c->plan, c->against == NULL ? NULL :
			      strcmp(c->against, "the live host") ? c->against : NULL, &mo, d))
		return -1;
	nt_manifest_write(&m, &b);
	if (nt_write_file_atomic(path, b.p, b.n, 0644, true)) {
		fprintf(stderr, "nettune plan: error: cannot write %s: %s\n", path, strerror(errno));
		r = -1;
	} else {
		char *sig = nt_xasprintf("%s.sig", path);

		unlink(sig);	/* a signature of the previous plan would be a lie */
		free(sig);
	}
	nt_buf_free(&b);
	nt_manifest_free(&m);
	return r;
}

/* plan --check: the differences only; 0 in sync, 2 drifted. */
static int drift_report(const struct nt_compiled *c, const char *profile)
{
	size_t i;

	if (!c->plan.n) {
		printf("in sync: %s matches %s\n", c->against ? c->against : "the host", profile);
		return NT_EXIT_OK;
	}
	printf("drift: %zu setting%s of %s differ%s from %s\n", c->plan.n, c->plan.n == 1 ? "" : "s",
	       c->against ? c->against : "the host", c->plan.n == 1 ? "s" : "", profile);
	for (i = 0; i < c->plan.n; i++) {
		const struct nt_action *a = &c->plan.v[i];
		struct nt_buf b = {0};
		char *attr = nt_setting_label(a->kind, a->object, a->arg);

		if (a->has_from)
			nt_value_format(&a->from, &b, false);
		else
			nt_buf_puts(&b, "(not observed)");
		nt_buf_puts(&b, " (want ");
		nt_value_format(&a->to, &b, false);
		nt_buf_puts(&b, ")");
		printf("  %s: %s\n", attr, b.p);
		nt_buf_free(&b);
		free(attr);
	}
	return NT_EXIT_CHANGES;
}

/* plan --map: where the desired state puts each queue IRQ. */
static void plan_map(const struct nt_compiled *c, struct nt_buf *out)
{
	struct nt_map m = {0};
	const char *err;

	nt_map_from_desired(&m, &c->facts, &c->desired);
	if (c->l.p->host && c->l.p->host->reserved_cpus)
		nt_cpuset_parse(c->l.p->host->reserved_cpus, &m.reserved, &err);
	m.title = "\nIntended placement (queue IRQs per physical core):";
	if (!m.nq)
		nt_buf_puts(out, "\nIntended placement: the profile places no queue IRQs "
			    "(no irq: policy, or no host facts)\n");
	else
		nt_map_text(&m, nt_g.color, out);
	nt_map_free_queues(&m);
}

struct plan_args {
	const char *profile, *state, *outp, *created;
	int64_t expires_in;
	bool json, check, map;
};

/* The command line, checked: NT_OPTS_GO or the exit status. */
static int parse_plan(struct plan_args *p, int argc, char **argv)
{
	const struct nt_opt rows[] = {
		{"--state", NULL, NT_OPT_VALUE | NT_OPT_EQ, &p->state, NULL,
		 "--state needs a SNAPSHOT file"},
		{"--json", NULL, 0, &p->json},
		{"--out", NULL, NT_OPT_VALUE, &p->outp},
		{"--check", NULL, 0, &p->check},
		{"--map", NULL, 0, &p->map},
		{"--created", NULL, NT_OPT_VALUE, &p->created},
		{"--expires-in", NULL, NT_OPT_VALUE, &p->expires_in, nt_opt_duration, EXPIRES_BAD,
		 EXPIRES_BAD},
		{NULL},
	};
	const struct nt_opts spec = {"plan", rows, help, NT_DD_SKIP, .one = &p->profile,
				     .more = "one PROFILE at a time"};
	const char *why = NULL;
	int64_t t;
	int r = nt_opts_parse(&spec, argc, argv);

	if (r != NT_OPTS_GO)
		return r;
	if (!p->profile)
		return nt_usage_error("plan", "no PROFILE given");
	if (p->check && (p->json || p->outp))
		return nt_usage_error("plan", "--check does not combine with --json or --out");
	if (p->map && (p->json || p->check))
		return nt_usage_error("plan", "--map draws text; it does not combine with --json or --check");
	if (!nt_created_time(p->created, &t, &why))
		return nt_usage_error("plan", "--created %s", why);
	return NT_OPTS_GO;
}

/* The plan as text (with --map the placement) or JSON; its exit status. */
static int print_plan(const struct plan_args *p, const struct nt_compiled *c)
{
	struct nt_buf out = {0};

	if (p->json)
		nt_plan_print_json(&c->plan, &out);
	else
		nt_plan_print_text(&c->plan, c->against, nt_g.color, &out);
	if (p->map)
		plan_map(c, &out);
	nt_buf_write(&out, stdout);
	nt_buf_free(&out);
	if (c->plan.cannot)
		fprintf(stderr, "nettune plan: error: %zu action%s cannot be applied on this host "
			"(fixed feature or kernel-managed IRQ); change the profile\n", c->plan.cannot,
			c->plan.cannot == 1 ? "" : "s");
	return c->plan.cannot ? NT_EXIT_FAIL : c->plan.n ? NT_EXIT_CHANGES : NT_EXIT_OK;
}

int cmd_plan(int argc, char **argv)
{
	struct plan_args p = {.expires_in = NT_DEFAULT_EXPIRES_IN};
	struct nt_diags d = {0};
	struct nt_compiled c;
	struct nt_pipeline_req rq;
	int r = parse_plan(&p, argc, argv);

	if (r != NT_OPTS_GO)
		return r;
	rq = nt_cli_request(p.profile);
	if (p.state) {
		rq.source = NT_STATE_SNAPSHOT;
		rq.state_path = p.state;
	}
	if (nt_pipeline_run(&rq, &c, &d)) {
		nt_print_diags(&d);
		r = NT_EXIT_FAIL;
	} else {
		nt_print_diags(&d);
		if (p.outp && write_manifest(&c, p.outp, p.created, p.expires_in, &d)) {
			nt_print_diags(&d);
			r = NT_EXIT_FAIL;
		} else {
			r = p.check ? drift_report(&c, p.profile) : print_plan(&p, &c);
		}
	}
	nt_diags_free(&d);
	nt_compiled_free(&c);
	return r;
}
