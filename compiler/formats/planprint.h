/* SPDX-License-Identifier: MIT */
/* Plan rendering (planprint.c): the text plan, plan --json. */
#ifndef NT_PLANPRINT_H
#define NT_PLANPRINT_H

#include <stdbool.h>

#include "../base/buf.h"
#include "../model/actions.h"

/* Human-readable plan, grouped by object, with step numbers. */
void nt_plan_print_text(const struct nt_plan *p, const char *against, bool color,
			struct nt_buf *out);
/* {"host","profile","target","changes","actions":[...]} (SPEC "plan --json"). */
void nt_plan_print_json(const struct nt_plan *p, struct nt_buf *out);
/* Just its "actions" array. */
void nt_plan_print_actions_json(const struct nt_plan *p, struct nt_buf *out);
#endif
