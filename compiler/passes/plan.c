/* SPDX-License-Identifier: MIT */
/* Diff and ordering rules (the printers are formats/planprint.c). */
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "../language/profile.h"
#include "../model/tunnel.h"

static struct nt_action *add(struct nt_plan *p, const struct nt_setting *s)
{
	struct nt_action *a;

	p->v = nt_xgrow(p->v, p->n, sizeof(*p->v));
	a = &p->v[p->n++];
	memset(a, 0, sizeof(*a));
	a->kind = s->kind;
	a->object = nt_xstrdup(s->object);
	a->arg = s->arg ? nt_xstrdup(s->arg) : NULL;
	nt_value_copy(&a->to, &s->val);
	a->src = s->src;
	a->flags = s->flags;
	a->note = s->note ? nt_xstrdup(s->note) : NULL;
	a->ord.phase = nt_kinds[s->kind].phase;
	a->ord.order = s->order;
	return a;
}

static bool is_physical(const struct nt_facts *f, const char *obj)
{
	const struct nt_iface_facts *i = nt_facts_iface(f, obj);

	if (!i)
		return true;	/* unknown: assume the cautious answer */
	return i->kind ? !strcmp(i->kind, "physical") : i->driver != NULL;
}

static int cmp_action(const void *pa, const void *pb)
{
	return nt_order_cmp(&((const struct nt_action *)pa)->ord,
			    &((const struct nt_action *)pb)->ord);
}

/* Highest queue an indirection table points at. */
static uint32_t indir_max(const struct nt_value *v)
{
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->list[i] > m)
			m = v->list[i];
	return m;
}

/* Shrinking channels fails while the RSS table points at the queues that
 * go away: net/ethtool/common.c ethtool_check_max_channel refuses with
 * "requested channel counts are too low for existing indirection table",
 * so the table is reset first. */
static void order_rss_before_shrink(struct nt_plan *p, const struct nt_plan_input *in)
{
	size_t i, n0 = p->n;

	for (i = 0; i < n0; i++) {
		struct nt_action *a = &p->v[i];
		const struct nt_setting *oi;
		uint32_t newq;
		size_t k;
		bool moved = false;

		if (a->kind != NT_K_CHANNELS || !a->has_from || a->to.u >= a->from.u ||
		    (strcmp(a->arg, "combined") && strcmp(a->arg, "rx")))
			continue;
		oi = nt_state_get(in->observed, NT_K_RSS_INDIR, a->object, NULL);
		newq = a->to.u;
		if (!oi || !newq || indir_max(&oi->val) < newq)
			continue;
		for (k = 0; k < p->n; k++)
			if (p->v[k].kind == NT_K_RSS_INDIR && !strcmp(p->v[k].object, a->object) &&
			    indir_max(&p->v[k].to) < newq) {
				p->v[k].ord.phase = nt_kinds[NT_K_CHANNELS].phase - 1;
				p->v[k].flags |= NT_SF_RESET;
				free(p->v[k].note);
				p->v[k].note = nt_xasprintf("before channels: the current table uses "
							    "queue %u, which shrinking to %u removes",
							    indir_max(&oi->val), newq);
				moved = true;
			}
		if (!moved) {
			struct nt_setting s = {0};
			uint32_t *l = nt_xmalloc(oi->val.n * sizeof(*l));
			struct nt_action *r;

			for (k = 0; k < oi->val.n; k++)
				l[k] = (uint32_t)(k % newq);
			s.kind = NT_K_RSS_INDIR;
			s.object = a->object;
			s.val = nt_v_list(l, oi->val.n);
			s.src = a->src;
			s.note = NULL;
			free(l);
			r = add(p, &s);
			a = &p->v[i];	/* add() may have moved the array */
			nt_value_free(&s.val);
			r->has_from = true;
			nt_value_copy(&r->from, &oi->val);
			r->ord.phase = nt_kinds[NT_K_CHANNELS].phase - 1;
			r->flags |= NT_SF_RESET;
			r->note = nt_xasprintf("reset before shrinking channels: the current table uses "
					       "queue %u", indir_max(&oi->val));
		}
	}
}

void nt_plan_build(const struct nt_plan_input *in, struct nt_plan *p)
{
	size_t i, k;
	const char **objs = NULL;
	size_t nobjs = 0;
	struct nt_tunnel_map tm;

	memset(p, 0, sizeof(*p));
	nt_tunnel_map(in->l->p, &tm);
	p->profile = nt_xstrdup(in->l->p->metadata && in->l->p->metadata->name ?
				in->l->p->metadata->name : "");
	p->host = in->facts && in->facts->hostname ? nt_xstrdup(in->facts->hostname) : NULL;
	p->target = nt_xstrdup(in->l->p->target && *in->l->p->target == NT_TARGET_WINDOWS ?
			       "windows" : "linux");
	for (i = 0; i < in->desired->n; i++) {
		const struct nt_setting *s = &in->desired->v[i];
		const struct nt_setting *o = nt_state_get(in->observed, s->kind, s->object, s->arg);
		struct nt_action *a;

		if (o && nt_value_equal(&o->val, &s->val))
			continue;
		a = add(p, s);
		if (o) {
			a->has_from = true;
			nt_value_copy(&a->from, &o->val);
		} else {
			a->flags |= NT_SF_NOT_OBSERVED;
		}
		if (nt_kinds[s->kind].flags & NT_KF_DISRUPTIVE) {
			if (s->kind != NT_K_MTU || is_physical(in->facts, s->object))
				a->flags |= NT_SF_DISRUPTIVE;
		}
		if (s->kind == NT_K_MTU) {
			bool up = !o || s->val.u > o->val.u;
			/* how deep in tunnels: 0 for a NIC, 1 for a tunnel over one ... */
			int depth = (int)nt_tunnel_map_depth(in->l->p, &tm, s->object);

			/* raise underlays before tunnels, lower tunnels before underlays */
			a->ord.sub = up ? 2 + depth : 1 - depth;
		}
		if (s->kind == NT_K_FEATURE)
			nt_order_of(s, (int)i, &a->ord);
	}
	nt_tunnel_map_free(&tm);
	order_rss_before_shrink(p, in);
	for (i = 0; i < p->n; i++) {
		for (k = 0; k < nobjs; k++)
			if (!strcmp(objs[k], p->v[i].object))
				break;
		if (k == nobjs) {
			objs = nt_xrealloc(objs, (nobjs + 1) * sizeof(*objs));
			objs[nobjs++] = p->v[i].object;
		}
		p->v[i].ord.objord = (int)k;
		if (p->v[i].kind != NT_K_FEATURE)
			p->v[i].ord.order = (int)i;
	}
	free(objs);
	if (p->n)	/* qsort's base must not be NULL, even for 0 items */
		qsort(p->v, p->n, sizeof(*p->v), cmp_action);
	for (i = 0; i < p->n; i++) {
		p->disruptive += !!(p->v[i].flags & NT_SF_DISRUPTIVE);
		p->cannot += !!(p->v[i].flags & NT_SF_CANNOT_CHANGE);
	}
}
