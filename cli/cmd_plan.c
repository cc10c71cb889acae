/* SPDX-License-Identifier: MIT */
/* nettune plan: show what would converge the host, terraform-style exit codes. */
#include <stdio.h>
#include <string.h>

#include "common.h"

int (*nt_observe_live)(const struct nt_loaded *l, struct nt_facts *f,
		       struct nt_state *observed, struct nt_diags *d);

static void help(void)
{
	printf("Usage: nettune plan PROFILE [--state SNAPSHOT] [--json]\n\n"
	       "Compares the profile's desired state with the host's observed state and\n"
	       "prints the ordered actions that would converge it: for each object, the\n"
	       "attribute, from -> to, whether it flaps the link (disruptive), and the\n"
	       "profile position it comes from.  Nothing is changed.\n\n"
	       "  --state SNAPSHOT  plan against a snapshot (nettune observe --json, or the\n"
	       "                    Windows collector) instead of the live host\n"
	       "  --json            machine-readable plan on stdout\n\n"
	       "Exit status: 0 no changes, 2 changes pending, 1 error (invalid profile,\n"
	       "unreadable snapshot, or an action that cannot be applied), 64 usage.\n");
}

int cmd_plan(int argc, char **argv)
{
	const char *profile = NULL, *state = NULL;
	bool json = false;
	struct nt_diags d = {0};
	struct nt_compiled c;
	struct nt_buf out = {0};
	int i, r;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			help();
			return NT_EXIT_OK;
		} else if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "--state")) {
			if (++i >= argc)
				return nt_usage_error("plan", "--state needs a SNAPSHOT file");
			state = argv[i];
		} else if (!strncmp(argv[i], "--state=", 8)) {
			state = argv[i] + 8;
		} else if (argv[i][0] == '-' && strcmp(argv[i], "--")) {
			return nt_usage_error("plan", "unknown option '%s'", argv[i]);
		} else if (strcmp(argv[i], "--")) {
			if (profile)
				return nt_usage_error("plan", "one PROFILE at a time");
			profile = argv[i];
		}
	}
	if (!profile)
		return nt_usage_error("plan", "no PROFILE given");
	if (nt_compile(profile, state, &c, &d)) {
		nt_print_diags(&d);
		nt_diags_free(&d);
		nt_compiled_free(&c);
		return NT_EXIT_FAIL;
	}
	nt_print_diags(&d);
	if (json)
		nt_plan_print_json(&c.plan, &out);
	else
		nt_plan_print_text(&c.plan, c.against, nt_g.color, &out);
	nt_buf_write(&out, stdout);
	nt_buf_free(&out);
	r = c.plan.cannot ? NT_EXIT_FAIL : c.plan.n ? NT_EXIT_CHANGES : NT_EXIT_OK;
	if (c.plan.cannot)
		fprintf(stderr, "nettune plan: error: %zu action%s cannot be applied on this host "
			"(fixed feature or kernel-managed IRQ); change the profile\n", c.plan.cannot,
			c.plan.cannot == 1 ? "" : "s");
	nt_diags_free(&d);
	nt_compiled_free(&c);
	return r;
}
