/* SPDX-License-Identifier: MIT */
/* nettune collect: print the collector script for a target (Windows). */
#include <stdio.h>
#include <string.h>

#include "../appliers/emit.h"
#include "../appliers/windows/authenticode.h"
#include "common.h"

static void help(void)
{
	printf("Usage: nettune collect --target windows [-o FILE]\n"
	       "                       [--sign-cert CERT.pem --sign-key KEY.pem]\n\n"
	       "Prints a PowerShell collector.  Run it on the Windows host; its output is a\n"
	       "nettune-snapshot/1 document that 'nettune plan --state' and\n"
	       "'nettune emit --state' accept:\n\n"
	       "  nettune collect --target windows -o collect.ps1\n"
	       "  (on the host)  .\\collect.ps1 -OutFile host.json [-TraceSeconds 30]\n"
	       "  nettune plan PROFILE --state host.json\n\n"
	       "The collector changes nothing.  -TraceSeconds records a TCPIP trace to read\n"
	       "the UDP software URO global disabled mask, which no API reports.\n\n"
	       "--sign-cert/--sign-key write an Authenticode-signed collector (needs\n"
	       "osslsigncode; the key must not be encrypted).\n");
}

int cmd_collect(int argc, char **argv)
{
	const char *target = NULL, *outp = NULL, *cert = NULL, *key = NULL;
	struct nt_buf out = {0};
	int i, r;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help();
			return NT_EXIT_OK;
		} else if (!strcmp(argv[i], "--target") || !strcmp(argv[i], "-o") ||
			   !strcmp(argv[i], "--sign-cert") || !strcmp(argv[i], "--sign-key")) {
			const char *opt = argv[i];

			if (++i >= argc)
				return nt_usage_error("collect", "%s needs a value", opt);
			if (!strcmp(opt, "--target"))
				target = argv[i];
			else if (!strcmp(opt, "--sign-cert"))
				cert = argv[i];
			else if (!strcmp(opt, "--sign-key"))
				key = argv[i];
			else
				outp = argv[i];
		} else if (!strncmp(argv[i], "--target=", 9)) {
			target = argv[i] + 9;
		} else {
			return argv[i][0] == '-' ? nt_unknown_option("collect", argv[i]) :
			       nt_usage_error("collect", "unexpected argument '%s'", argv[i]);
		}
	}
	if (!target)
		return nt_usage_error("collect", "--target windows is required");
	if (strcmp(target, "windows"))
		return nt_usage_error("collect", "no collector for target '%s': on Linux, "
				      "'nettune observe --json' writes the snapshot", target);
	if (!cert != !key)
		return nt_usage_error("collect", "--sign-cert and --sign-key go together");
	nt_collect_windows(&out);
	r = nt_ps1_write(&out, cert, key, outp, "collect");
	nt_buf_free(&out);
	return r ? NT_EXIT_FAIL : NT_EXIT_OK;
}
