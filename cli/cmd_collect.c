/* SPDX-License-Identifier: MIT */
/* nettune collect: print the collector script for a target (Windows). */
#include <stdio.h>
#include <string.h>

#include "../appliers/emit.h"
#include "common.h"

static void help(void)
{
	printf("Usage: nettune collect --target windows [-o FILE]\n\n"
	       "Prints a PowerShell collector.  Run it on the Windows host; its output is a\n"
	       "nettune-snapshot/1 document that 'nettune plan --state' and\n"
	       "'nettune emit --state' accept:\n\n"
	       "  nettune collect --target windows -o collect.ps1\n"
	       "  (on the host)  .\\collect.ps1 -OutFile host.json [-TraceSeconds 30]\n"
	       "  nettune plan PROFILE --state host.json\n\n"
	       "The collector changes nothing.  -TraceSeconds records a TCPIP trace to read\n"
	       "the UDP software URO global disabled mask, which no API reports.\n");
}

int cmd_collect(int argc, char **argv)
{
	const char *target = NULL, *outp = NULL;
	struct nt_buf out = {0};
	FILE *f;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help();
			return NT_EXIT_OK;
		} else if (!strcmp(argv[i], "--target") || !strcmp(argv[i], "-o")) {
			const char *opt = argv[i];

			if (++i >= argc)
				return nt_usage_error("collect", "%s needs a value", opt);
			if (!strcmp(opt, "--target"))
				target = argv[i];
			else
				outp = argv[i];
		} else if (!strncmp(argv[i], "--target=", 9)) {
			target = argv[i] + 9;
		} else {
			return nt_usage_error("collect", "unexpected argument '%s'", argv[i]);
		}
	}
	if (!target)
		return nt_usage_error("collect", "--target windows is required");
	if (strcmp(target, "windows"))
		return nt_usage_error("collect", "no collector for target '%s': on Linux, "
				      "'nettune observe --json' writes the snapshot", target);
	nt_collect_windows(&out);
	f = outp ? fopen(outp, "wb") : stdout;
	if (!f) {
		perror(outp);
		nt_buf_free(&out);
		return NT_EXIT_FAIL;
	}
	nt_buf_write(&out, f);
	if (outp)
		fclose(f);
	nt_buf_free(&out);
	return NT_EXIT_OK;
}
