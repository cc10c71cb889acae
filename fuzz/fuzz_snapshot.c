/* SPDX-License-Identifier: MIT */
/* Fuzz target: the snapshot loader (Linux observer and Windows collector
 * snapshots); what loads must write back out and load again. */
#include <stdio.h>
#include <stdlib.h>

#include "../compiler/base/buf.h"
#include "../compiler/formats/snapshot.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nt_facts facts, again;
	struct nt_state observed = {0}, observed2 = {0};
	struct nt_diags d = {0};
	struct nt_buf b = {0};

	nt_facts_init(&facts);
	nt_facts_init(&again);
	if (nt_snapshot_load_data("fuzz.json", (const char *)data, size, &facts, &observed, &d))
		goto out;
	nt_snapshot_write(&facts, &observed, &b);
	if (nt_snapshot_load_data("rewritten.json", b.p ? b.p : "", b.n, &again, &observed2, &d)) {
		/* a snapshot nettune wrote must load: that is a bug, not bad input */
		nt_diags_sort(&d);
		nt_diags_print_text(&d, stderr);
		fprintf(stderr, "rewritten snapshot:\n%.*s\n", (int)b.n, b.p ? b.p : "");
		abort();
	}
out:
	nt_fuzz_print_diags(&d);
	nt_buf_free(&b);
	nt_state_free(&observed);
	nt_state_free(&observed2);
	nt_facts_free(&facts);
	nt_facts_free(&again);
	nt_diags_free(&d);
	return 0;
}
