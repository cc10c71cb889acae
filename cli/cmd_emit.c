/* SPDX-License-Identifier: MIT */
/* nettune emit: the desired state as an idempotent sh script or PowerShell playbook. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "../appliers/emit.h"
#include "../appliers/windows/authenticode.h"
#include "common.h"

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

int cmd_emit(int argc, char **argv)
{
	const char *profile = NULL, *state = NULL, *format = NULL, *outp = NULL;
	const char *cert = NULL, *key = NULL;
	struct nt_diags d = {0};
	struct nt_compiled c;
	struct nt_pipeline_req rq;
	struct nt_buf out = {0};
	struct nt_emit_input in = {0};
	bool windows;
	int i, r = NT_EXIT_FAIL;
	FILE *f;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help();
			return NT_EXIT_OK;
		} else if (!strcmp(argv[i], "--format") || !strcmp(argv[i], "--state") ||
			   !strcmp(argv[i], "-o") || !strcmp(argv[i], "--out") ||
			   !strcmp(argv[i], "--sign-cert") || !strcmp(argv[i], "--sign-key")) {
			const char *opt = argv[i];

			if (++i >= argc)
				return nt_usage_error("emit", "%s needs a value", opt);
			if (!strcmp(opt, "--format"))
				format = argv[i];
			else if (!strcmp(opt, "--state"))
				state = argv[i];
			else if (!strcmp(opt, "--sign-cert"))
				cert = argv[i];
			else if (!strcmp(opt, "--sign-key"))
				key = argv[i];
			else
				outp = argv[i];
		} else if (!strncmp(argv[i], "--format=", 9)) {
			format = argv[i] + 9;
		} else if (!strncmp(argv[i], "--state=", 8)) {
			state = argv[i] + 8;
		} else if (argv[i][0] == '-' && strcmp(argv[i], "--")) {
			return nt_unknown_option("emit", argv[i]);
		} else if (strcmp(argv[i], "--")) {
			if (profile)
				return nt_usage_error("emit", "one PROFILE at a time");
			profile = argv[i];
		}
	}
	if (!format)
		return nt_usage_error("emit", "--format sh|ps1 is required");
	if (strcmp(format, "sh") && strcmp(format, "ps1"))
		return nt_usage_error("emit", "unknown format '%s' (sh or ps1)", format);
	if (!profile)
		return nt_usage_error("emit", "no PROFILE given");
	if (!cert != !key)
		return nt_usage_error("emit", "--sign-cert and --sign-key go together");
	if (cert && strcmp(format, "ps1"))
		return nt_usage_error("emit", "--sign-cert signs PowerShell scripts only (--format ps1)");
	rq = nt_cli_request(profile);
	rq.source = state ? NT_STATE_SNAPSHOT : NT_STATE_OFFLINE;
	rq.state_path = state;
	if (nt_pipeline_run(&rq, &c, &d)) {
		nt_print_diags(&d);
		goto out;
	}
	windows = c.l.p->target && *c.l.p->target == NT_TARGET_WINDOWS;
	if (windows != !strcmp(format, "ps1")) {
		struct nt_mark m = nt_loaded_mark(&c.l, "/target", false);

		nt_error(&d, m, "emit", "the profile targets %s; use --format %s",
			 windows ? "windows" : "linux", windows ? "ps1" : "sh");
		nt_print_diags(&d);
		goto out;
	}
	in.profile_path = profile;
	in.host = c.l.p->metadata->name;
	in.against = c.against;
	in.desired = &c.desired;
	in.plan = &c.plan;
	in.facts = &c.facts;
	in.loaded = &c.l;
	if ((windows ? nt_emit_ps1 : nt_emit_sh)(&in, &out, &d)) {
		nt_print_diags(&d);
		goto out;
	}
	nt_print_diags(&d);
	if (windows) {
		if (nt_ps1_write(&out, cert, key, outp, "emit"))
			goto out;
	} else {
		f = outp ? fopen(outp, "wb") : stdout;
		if (!f) {
			fprintf(stderr, "nettune emit: %s: %s\n", outp, strerror(errno));
			goto out;
		}
		nt_buf_write(&out, f);
		if (outp && fclose(f)) {
			fprintf(stderr, "nettune emit: %s: %s\n", outp, strerror(errno));
			goto out;
		}
	}
	r = NT_EXIT_OK;
out:
	nt_buf_free(&out);
	nt_diags_free(&d);
	nt_compiled_free(&c);
	return r;
}
