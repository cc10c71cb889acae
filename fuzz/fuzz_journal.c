/* SPDX-License-Identifier: MIT */
/* Fuzz target: the apply journal loader (rollback reads journals from disk,
 * so they are untrusted).  A journal that loads must be written back by the
 * journal writer to bytes that load again and write back identically, and
 * every entry must pass the object-name rules rollback relies on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../appliers/linux/journal.h"
#include "../compiler/base/buf.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nt_journal j, k;
	struct nt_diags d = {0};
	struct nt_buf a = {0}, b = {0};

	if (nt_journal_parse("fuzz.json", (const char *)data, size, &j, &d))
		goto out;
	for (size_t i = 0; i < j.n; i++)
		if (nt_jentry_problem(j.e[i].kind, j.e[i].object, j.e[i].arg)) {
			fprintf(stderr, "loaded entry %zu breaks the name rules\n", i);
			abort();
		}
	nt_journal_format(&j, &a);
	if (nt_journal_parse("fuzz-rewritten.json", a.p, a.n, &k, &d)) {
		fprintf(stderr, "a loaded journal, written back, does not load:\n%.*s\n", (int)a.n, a.p);
		abort();
	}
	nt_journal_format(&k, &b);
	if (a.n != b.n || memcmp(a.p, b.p, a.n)) {
		fprintf(stderr, "journal write-back is not stable:\n%.*s\n---\n%.*s\n", (int)a.n, a.p,
			(int)b.n, b.p);
		abort();
	}
	nt_journal_free(&k);
	nt_journal_free(&j);
out:
	nt_fuzz_print_diags(&d);
	nt_buf_free(&a);
	nt_buf_free(&b);
	nt_diags_free(&d);
	return 0;
}
