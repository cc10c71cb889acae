/* SPDX-License-Identifier: MIT */
/* Rates as watch and the topology map print them. */
#ifndef NT_REPORT_RATE_H
#define NT_REPORT_RATE_H

#include "../compiler/base/buf.h"

/* "1.23M", "456k", "78" */
void nt_fmt_rate(struct nt_buf *b, double v);

#endif
