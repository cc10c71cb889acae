/* SPDX-License-Identifier: MIT */
/* Shared by the fuzz targets and their replay driver (fuzz/replay.c). */
#ifndef NT_FUZZ_H
#define NT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../compiler/base/diag.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Formats the diagnostics in every output format into /dev/null: the
 * printers see the same hostile strings the loaders saw. */
static inline void nt_fuzz_print_diags(const struct nt_diags *d)
{
	static FILE *devnull;
	static const char *const files[] = {"fuzz"};

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (!devnull)
		return;
	nt_diags_print_text(d, devnull);
	nt_diags_print_json(d, files, 1, devnull);
	nt_diags_print_sarif(d, devnull);
	nt_diags_print_github(d, devnull);
}
#endif
