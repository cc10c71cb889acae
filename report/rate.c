/* SPDX-License-Identifier: MIT */
/* Rates as the reports print them. */
#include "rate.h"

void nt_fmt_rate(struct nt_buf *b, double v)
{
	if (v >= 999950.0)
		nt_buf_printf(b, "%.2fM", v / 1e6);
	else if (v >= 9999.5)
		nt_buf_printf(b, "%.0fk", v / 1e3);
	else if (v >= 999.95)
		nt_buf_printf(b, "%.1fk", v / 1e3);
	else
		nt_buf_printf(b, "%.0f", v);
}
