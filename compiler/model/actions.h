/* SPDX-License-Identifier: MIT */
/*
 * The plan as data (actions.c): ordered actions with from, to, source
 * position and flags.  The diff that builds it is passes/plan.c, the
 * printers formats/planprint.c; apply, the emitters and manifests read it.
 */
#ifndef NT_ACTIONS_H
#define NT_ACTIONS_H

#include "../base/diag.h"
#include "settings.h"

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

void nt_plan_free(struct nt_plan *p);
/* An action's attribute string: "kind" or "kind arg". */
char *nt_action_attr(const struct nt_action *a);

#endif
