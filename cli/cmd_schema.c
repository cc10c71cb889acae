/* SPDX-License-Identifier: MIT */
/* nettune schema: print the JSON Schema generated from the loader tables. */
#include <stdio.h>
#include <string.h>

#include "../compiler/base/buf.h"
#include "../compiler/model/jsonschema.h"
#include "cli.h"

int cmd_schema(int argc, char **argv)
{
	struct nt_buf b = {0};
	int r;

	if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		printf("Usage: nettune schema\n\nPrints the JSON Schema (draft-07) of the profile "
		       "language, generated\nfrom the same tables the loader uses. "
		       "schema/nettune.schema.json is\nthis output; a test keeps them equal.\n");
		return NT_EXIT_OK;
	}
	if (argc > 0)
		return argv[0][0] == '-' ? nt_unknown_option("schema", argv[0]) :
		       nt_usage_error("schema", "takes no arguments");
	nt_jsonschema(&b);
	r = nt_buf_write(&b, stdout);
	nt_buf_free(&b);
	return r ? NT_EXIT_FAIL : NT_EXIT_OK;
}
