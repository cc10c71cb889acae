/* SPDX-License-Identifier: MIT */
/* The plan as data: its actions, their order keys, freeing. */
#include <stdlib.h>
#include <string.h>

#include "actions.h"

char *nt_action_attr(const struct nt_action *a)
{
	if (a->arg)
		return nt_xasprintf("%s %s", nt_kinds[a->kind].name, a->arg);
	return nt_xstrdup(nt_kinds[a->kind].name);
}

int nt_order_cmp(const struct nt_order *a, const struct nt_order *b)
{
	if (a->phase != b->phase)
		return a->phase < b->phase ? -1 : 1;
	if (a->sub != b->sub)
		return a->sub < b->sub ? -1 : 1;
	if (a->objord != b->objord)
		return a->objord < b->objord ? -1 : 1;
	if (a->order != b->order)
		return a->order < b->order ? -1 : 1;
	return 0;
}

void nt_order_of(const struct nt_setting *s, int index, struct nt_order *k)
{
	memset(k, 0, sizeof(*k));
	k->phase = nt_kinds[s->kind].phase;
	k->order = index;
	if (s->kind == NT_K_FEATURE) {
		/* prerequisites first when enabling, dependents first when disabling */
		k->order = s->order;
		k->sub = s->val.b ? s->order : 10 - s->order;
	} else if (s->kind == NT_K_MTU) {
		k->sub = 2;	/* a raise, until the observed value says otherwise */
	}
}

void nt_plan_free(struct nt_plan *p)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		free(p->v[i].object);
		free(p->v[i].arg);
		free(p->v[i].note);
		nt_value_free(&p->v[i].from);
		nt_value_free(&p->v[i].to);
	}
	free(p->v);
	free(p->host);
	free(p->profile);
	free(p->target);
	memset(p, 0, sizeof(*p));
}
