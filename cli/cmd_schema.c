/* SPDX-License-Identifier: MIT */
/* nettune schema: print the JSON Schema generated from the loader tables. */
#include <stdio.h>
#include <string.h>

#include "../compiler/base/buf.h"
#include "../compiler/model/jsonschema.h"
#include "cli.h"
#include "opts.h"

static void help(void)
{
	printf("Usage: nettune schema\n\nPrints the JSON Schema (draft-07) of the profile "
	       "language, generated\nfrom the same tables the loader uses. "
	       "schema/nettune.schema.json is\nthis output; a test keeps them equal.\n");
}

int cmd_schema(int argc, char **argv)
{
	struct nt_buf b = {0};
	int r;
	const struct nt_opts spec = {"schema", NULL, help, .more = "takes no arguments"};

	r = nt_opts_parse(&spec, argc, argv);
	if (r != NT_OPTS_GO)
		return r;
	nt_jsonschema(&b);
	r = nt_buf_write(&b, stdout);
	nt_buf_free(&b);
	return r ? NT_EXIT_FAIL : NT_EXIT_OK;
}
