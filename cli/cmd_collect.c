/* SPDX-License-Identifier: MIT */
/* nettune collect: print the collector script for a target (Windows). */
#include <stdio.h>
#include <string.h>

#include "../appliers/emit.h"
#include "../appliers/windows/authenticode.h"
#include "common.h"
#include "opts.h"

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
	int r;
	const struct nt_opt rows[] = {
		{"--target", NULL, NT_OPT_VALUE | NT_OPT_EQ, &target},
		{"-o", NULL, NT_OPT_VALUE, &outp},
		{"--sign-cert", NULL, NT_OPT_VALUE, &cert},
		{"--sign-key", NULL, NT_OPT_VALUE, &key},
		{NULL},
	};
	const struct nt_opts spec = {"collect", rows, help, .more = "unexpected argument '%s'"};

	r = nt_opts_parse(&spec, argc, argv);
	if (r != NT_OPTS_GO)
		return r;
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
