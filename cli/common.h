/* SPDX-License-Identifier: MIT */
/* The pipeline (pipeline/pipeline.h) as the subcommands call it. */
#ifndef NT_CLI_COMMON_H
#define NT_CLI_COMMON_H

#include "../pipeline/pipeline.h"
#include "cli.h"

/* A request for PROFILE against the live host, with the global options
 * (--netns, --profile-path) filled in; callers set the rest. */
struct nt_pipeline_req nt_cli_request(const char *profile);
/* Sorted, as text, to stderr. */
void nt_print_diags(struct nt_diags *d);
#endif
