/* SPDX-License-Identifier: MIT */
/*
 * Diff and plan: desired vs observed state -> ordered actions with from,
 * to, source position and flags.  Apply, the emitters and manifests all
 * consume this list; nothing downstream re-derives it.
 */
#ifndef NT_PLAN_H
#define NT_PLAN_H

#include "../model/actions.h"
#include "../model/facts.h"
#include "../language/load.h"
#include "../model/settings.h"

struct nt_plan_input {
	const struct nt_loaded *l;
	const struct nt_state *desired;
	const struct nt_state *observed;
	const struct nt_facts *facts;
};

void nt_plan_build(const struct nt_plan_input *in, struct nt_plan *out);

#endif
