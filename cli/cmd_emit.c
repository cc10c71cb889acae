/* SPDX-License-Identifier: MIT */
/* nettune emit: the desired state as an idempotent sh script or PowerShell playbook. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../appliers/emit.h"
#include "../appliers/windows/authenticode.h"
#include "../pipeline/emit_profile.h"
#include "common.h"
#include "opts.h"

static void help(void)
{
	printf("Usage: nettune emit --format sh|ps1 PROFILE [--state SNAPSHOT] [-o FILE]\n"
	       "                    [--sign-cert CERT.pem --sign-key KEY.pem]\n\n"
	       "Writes a script that converges a host to the profile's desired state without\n"
	       "nettune on the host: for every setting it reads the current value, writes\n"
	       "only when it differs, reads it back, and saves the previous values first so\n"
	       "they can be restored.  Running it twice changes nothing the second time.\n\n"
	       "  --format sh   POSIX sh for target linux (ethtool, ip, sysfs, procfs); each\n"
	       "                run saves the previous values in a new file of its own in\n"
	       "                $NETTUNE_STATE_DIR, 'sh SCRIPT rollback [FILE]' restores them\n"
	       "  --format ps1  PowerShell playbook for target windows (-WhatIf, -Confirm,\n"
	       "                -Rollback FILE, -AllowRestart; diagnosis and verification)\n"
	       "  --state FILE  lower against a snapshot (host facts: IRQ numbers, NUMA,\n"
	       "                feature sets); without it nothing about the host is assumed\n"
	       "  -o FILE       write the script to FILE instead of stdout\n"
	       "  --sign-cert CERT.pem --sign-key KEY.pem\n"
	       "                ps1 only: an Authenticode-signed playbook (CRLF, UTF-8 BOM\n"
	       "                when not ASCII) for AllSigned/RemoteSigned hosts; needs\n"
	       "                osslsigncode; the key must not be encrypted\n\n"
	       "Exit status: 0 written, 1 error (invalid profile, or a setting or name that\n"
	       "cannot be expressed safely in the script's language), 64 usage.\n");
}

struct emit_args {
	const char *profile, *state, *format, *outp, *cert, *key;
};

/* The command line, checked: NT_OPTS_GO or the exit status. */
static int parse_emit(struct emit_args *e, int argc, char **argv)
{
	const struct nt_opt rows[] = {
		{"--format", NULL, NT_OPT_VALUE | NT_OPT_EQ, &e->format},
		{"--state", NULL, NT_OPT_VALUE | NT_OPT_EQ, &e->state},
		{"--out", "-o", NT_OPT_VALUE, &e->outp},
		{"--sign-cert", NULL, NT_OPT_VALUE, &e->cert},
		{"--sign-key", NULL, NT_OPT_VALUE, &e->key},
		{NULL},
	};
	const struct nt_opts spec = {"emit", rows, help, NT_DD_SKIP, .one = &e->profile,
				     .more = "one PROFILE at a time"};
	int r = nt_opts_parse(&spec, argc, argv);

	if (r != NT_OPTS_GO)
		return r;
	if (!e->format)
		return nt_usage_error("emit", "--format sh|ps1 is required");
	if (strcmp(e->format, "sh") && strcmp(e->format, "ps1"))
		return nt_usage_error("emit", "unknown format '%s' (sh or ps1)", e->format);
	if (!e->profile)
		return nt_usage_error("emit", "no PROFILE given");
	if (!e->cert != !e->key)
		return nt_usage_error("emit", "--sign-cert and --sign-key go together");
	if (e->cert && strcmp(e->format, "ps1"))
		return nt_usage_error("emit", "--sign-cert signs PowerShell scripts only (--format ps1)");
	return NT_OPTS_GO;
}

/* The script to -o FILE or stdout; a PowerShell one signed when asked. */
static int write_script(const struct emit_args *e, bool windows, struct nt_buf *out)
{
	FILE *f;

	if (windows)
		return nt_ps1_write(out, e->cert, e->key, e->outp, "emit") ? -1 : 0;
	f = e->outp ? fopen(e->outp, "wb") : stdout;
	if (!f) {
		fprintf(stderr, "nettune emit: %s: %s\n", e->outp, strerror(errno));
		return -1;
	}
	nt_buf_write(out, f);
	if (e->outp && fclose(f)) {
		fprintf(stderr, "nettune emit: %s: %s\n", e->outp, strerror(errno));
		return -1;
	}
	return 0;
}

int cmd_emit(int argc, char **argv)
{
	struct emit_args e = {0};
	struct nt_diags d = {0};
	struct nt_compiled c;
	struct nt_pipeline_req rq;
	struct nt_buf out = {0};
	struct nt_emit_input in = {0};
	struct nt_emit_profile prof = {0};
	bool windows;
	int r = parse_emit(&e, argc, argv);

	if (r != NT_OPTS_GO)
		return r;
	r = NT_EXIT_FAIL;
	rq = nt_cli_request(e.profile);
	rq.source = e.state ? NT_STATE_SNAPSHOT : NT_STATE_OFFLINE;
	rq.state_path = e.state;
	if (nt_pipeline_run(&rq, &c, &d)) {
		nt_print_diags(&d);
		goto out;
	}
	windows = c.l.p->target && *c.l.p->target == NT_TARGET_WINDOWS;
	if (windows != !strcmp(e.format, "ps1")) {
		struct nt_mark m = nt_loaded_mark(&c.l, "/target", false);

		nt_error(&d, m, "emit", "the profile targets %s; use --format %s",
			 windows ? "windows" : "linux", windows ? "ps1" : "sh");
		nt_print_diags(&d);
		goto out;
	}
	in.profile_path = e.profile;
	in.host = c.l.p->metadata->name;
	in.against = c.against;
	in.desired = &c.desired;
	in.plan = &c.plan;
	in.facts = &c.facts;
	nt_emit_profile_of(&c.l, &prof);
	in.prof = &prof;
	if ((windows ? nt_emit_ps1 : nt_emit_sh)(&in, &out, &d)) {
		nt_print_diags(&d);
		goto out;
	}
	nt_print_diags(&d);
	if (!write_script(&e, windows, &out))
		r = NT_EXIT_OK;
out:
	nt_emit_profile_free(&prof);
	nt_buf_free(&out);
	nt_diags_free(&d);
	nt_compiled_free(&c);
	return r;
}
