/* SPDX-License-Identifier: MIT */
/*
 * Diff and plan: desired vs observed state -> ordered actions with from,
 * to, source position and flags.  Apply, the emitters and manifests all
 * consume this list; nothing downstream re-derives it.
 */
#ifndef NT_PLAN_H
#define NT_PLAN_H

#include "../model/facts.h"
#include "../language/load.h"
#include "../model/settings.h"

/* Sort keys of the apply order, shared by plan actions and emitted scripts:
 * the kind's phase, a refinement inside it (feature prerequisites, tunnel
 * vs underlay MTU), the object's first appearance, then profile order. */
struct nt_order {
	int phase, sub, objord, order;
};

int nt_order_cmp(const struct nt_order *a, const struct nt_order *b);
/* The key of a desired setting (index: its place in the desired state)
 * before the plan refines it with observed values. */
void nt_order_of(const struct nt_setting *s, int index, struct nt_order *k);

struct nt_action {
	enum nt_kind_id kind;
	char *object;
	char *arg;
	bool has_from;			/* false: not observed */
	struct nt_value from;
	struct nt_value to;
	struct nt_mark src;
	unsigned flags;			/* enum nt_setting_flag */
	char *note;
	struct nt_order ord;
};

struct nt_plan {
	struct nt_action *v;
	size_t n;
	char *host;			/* the host's name (facts), NULL when unknown */
	char *profile;			/* the profile's metadata.name */
	char *target;
	size_t disruptive, cannot;
};

struct nt_plan_input {
	const struct nt_loaded *l;
	const struct nt_state *desired;
	const struct nt_state *observed;
	const struct nt_facts *facts;
};

void nt_plan_build(const struct nt_plan_input *in, struct nt_plan *out);
void nt_plan_free(struct nt_plan *p);
/* Human-readable plan, grouped by object, with step numbers. */
void nt_plan_print_text(const struct nt_plan *p, const char *against, bool color,
			struct nt_buf *out);
/* {"host","profile","target","changes","actions":[...]} (SPEC "plan --json"). */
void nt_plan_print_json(const struct nt_plan *p, struct nt_buf *out);
/* Just its "actions" array. */
void nt_plan_print_actions_json(const struct nt_plan *p, struct nt_buf *out);
/* One action's "from"/"to" as JSON and its attribute string. */
char *nt_action_attr(const struct nt_action *a);

#endif
