/* SPDX-License-Identifier: MIT */
/* The Windows collector: a PowerShell script whose output is a nettune-snapshot/1. */
#include <string.h>

#include "../../compiler/base/version.h"
#include "../emit.h"
#include "collector_ps1.h"

void nt_collect_windows(struct nt_buf *out)
{
	const char *p = collector_ps1, *at;

	while ((at = strstr(p, "@VERSION@"))) {
		nt_buf_putn(out, p, (size_t)(at - p));
		nt_buf_puts(out, NT_VERSION);
		p = at + 9;
	}
	nt_buf_puts(out, p);
}
