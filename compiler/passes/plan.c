/* SPDX-License-Identifier: MIT */
/* Diff, ordering rules and plan rendering. */
#include <stdlib.h>
#include <string.h>

#include "plan.h"
#include "../language/profile.h"
#include "../formats/record.h"
#include "../model/tunnel.h"

char *nt_action_attr(const struct nt_action *a)
{
	if (a->arg)
		return nt_xasprintf("%s %s", nt_kinds[a->kind].name, a->arg);
	return nt_xstrdup(nt_kinds[a->kind].name);
}

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

#define C(color, s) (color ? s : "")

/* settings of the host rather than of an interface */
static bool pseudo(const struct nt_action *a)
{
	return (nt_kinds[a->kind].flags & NT_KF_HOST_OBJ) != 0;
}

static bool is_pseudo_name(const char *o)
{
	return !strcmp(o, "sysctl") || !strcmp(o, "irqbalance") || !strcmp(o, "global") ||
	       !strncmp(o, "process ", 8);
}

/* v right-aligned in width columns (printf's %*zu). */
static void put_num(struct nt_buf *b, size_t v, size_t width)
{
	char t[24];
	size_t n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	for (; width > n; width--)
		nt_buf_putc(b, ' ');
	while (n)
		nt_buf_putc(b, t[--n]);
}

/* The width of an action's name column: kind and escaped argument. */
static size_t name_width(const struct nt_action *a)
{
	size_t w = strlen(nt_kinds[a->kind].name);

	if (a->arg) {
		struct nt_buf e = {0};

		nt_buf_put_escaped(&e, a->arg);
		w += 1 + e.n;
		nt_buf_free(&e);
	}
	return w;
}

/* One action of the text plan, written piece by piece (a plan of a big
 * host has thousands: printf's format parsing was most of their cost):
 * "  %3zu  %-*s (width: the longest name) %s -> %s", the flags, the source, then the note. */
static void action_line(struct nt_buf *b, const struct nt_action *a, size_t no, size_t width,
			bool color)
{
	const char *name = nt_kinds[a->kind].name;
	size_t w = strlen(name);

	nt_buf_puts(b, "  ");
	put_num(b, no, 3);
	nt_buf_puts(b, "  ");
	nt_buf_puts(b, C(color, "\033[33m"));
	nt_buf_putn(b, name, w);
	if (a->arg) {
		size_t at = b->n;

		nt_buf_putc(b, ' ');
		nt_buf_put_escaped(b, a->arg);
		w += b->n - at;
	}
	for (; w < width; w++)
		nt_buf_putc(b, ' ');
	nt_buf_puts(b, C(color, "\033[0m"));
	nt_buf_putc(b, ' ');
	if (a->has_from)
		nt_value_format(&a->from, b, false);
	else
		nt_buf_puts(b, "(not observed)");
	nt_buf_puts(b, " -> ");
	nt_buf_puts(b, C(color, "\033[32m"));
	nt_value_format(&a->to, b, false);
	nt_buf_puts(b, C(color, "\033[0m"));
	if (a->flags & NT_SF_DISRUPTIVE) {
		nt_buf_puts(b, "  ");
		nt_buf_puts(b, C(color, "\033[31m"));
		nt_buf_puts(b, "[disruptive]");
		nt_buf_puts(b, C(color, "\033[0m"));
	}
	if (a->flags & NT_SF_CANNOT_CHANGE) {
		nt_buf_puts(b, "  ");
		nt_buf_puts(b, C(color, "\033[31;1m"));
		nt_buf_puts(b, "[cannot change]");
		nt_buf_puts(b, C(color, "\033[0m"));
	}
	if (a->src.file && a->src.line) {
		nt_buf_puts(b, "  ");
		nt_buf_puts(b, C(color, "\033[2m"));
		nt_buf_put_escaped(b, a->src.file);
		nt_buf_putc(b, ':');
		put_num(b, a->src.line, 0);
		nt_buf_putc(b, ':');
		put_num(b, a->src.col, 0);
		nt_buf_puts(b, C(color, "\033[0m"));
	}
	nt_buf_putc(b, '\n');
	if (a->note) {
		nt_buf_puts(b, "       ");
		nt_buf_puts(b, C(color, "\033[2m"));
		nt_buf_puts(b, "# ");
		nt_buf_put_escaped(b, a->note);
		nt_buf_puts(b, C(color, "\033[0m"));
		nt_buf_putc(b, '\n');
	}
}

void nt_plan_print_text(const struct nt_plan *p, const char *against, bool color,
			struct nt_buf *b)
{
	size_t i, k, no = 0, width = 30;
	bool *done = nt_xcalloc(p->n + 1, sizeof(bool));

	/* one name column for the whole plan, as wide as its longest name
	 * (feature tx-tcp-mangleid-segmentation, offload-global ...) */
	for (i = 0; i < p->n; i++)
		if (name_width(&p->v[i]) > width)
			width = name_width(&p->v[i]);

	/* host, snapshot path, interface names, values: from files and the
	 * host, escaped (nt_buf_put_escaped); the colours are ours */
	/* the host and the profile apart: a profile may be planned on a host
	 * it does not name (a snapshot of another, metadata.host: any) */
	nt_buf_printf(b, "%sHost %s (%s)%s, profile %s", C(color, "\033[1m"),
		      p->host ? nt_esc(p->host) : "unknown", nt_esc(p->target), C(color, "\033[0m"),
		      nt_esc(p->profile ? p->profile : ""));
	if (against)
		nt_buf_printf(b, ", against %s", nt_esc(against));
	nt_buf_puts(b, "\n");
	for (i = 0; i < p->n; i++) {
		if (done[i])
			continue;
		/* an interface may be named like a pseudo-object ("sysctl"):
		 * the kind keeps them apart */
		nt_buf_printf(b, "\n%s%s%s%s\n", C(color, "\033[1m"), nt_esc(p->v[i].object),
			      !pseudo(&p->v[i]) && is_pseudo_name(p->v[i].object) ? " (interface)" : "",
			      C(color, "\033[0m"));
		for (k = i; k < p->n; k++) {
			const struct nt_action *a = &p->v[k];

			if (done[k] || strcmp(a->object, p->v[i].object) ||
			    pseudo(a) != pseudo(&p->v[i]))
				continue;
			done[k] = true;
			/* numbered as printed: the plan's order is apply's, across
			 * interfaces (an underlay's MTU before its tunnel's) */
			action_line(b, a, ++no, width, color);
		}
	}
	free(done);
	if (!p->n)
		nt_buf_puts(b, "\nNo changes: the host already matches the profile.\n");
	else if (p->cannot)
		nt_buf_printf(b, "\nPlan: %zu change%s, %zu disruptive, %zu cannot be applied.\n",
			      p->n, p->n == 1 ? "" : "s", p->disruptive, p->cannot);
	else
		nt_buf_printf(b, "\nPlan: %zu change%s, %zu disruptive.\n", p->n,
			      p->n == 1 ? "" : "s", p->disruptive);
}

void nt_plan_print_json(const struct nt_plan *p, struct nt_buf *b)
{
	nt_buf_puts(b, "{\"host\":");
	nt_buf_json_str_or_null(b, p->host);
	nt_buf_puts(b, ",\"profile\":");
	nt_buf_json_str(b, p->profile ? p->profile : "");
	nt_buf_puts(b, ",\"target\":");
	nt_buf_json_str(b, p->target);
	nt_buf_printf(b, ",\"changes\":%zu,\"disruptive\":%zu,\"cannot_change\":%zu,\"actions\":",
		      p->n, p->disruptive, p->cannot);
	nt_plan_print_actions_json(p, b);
	nt_buf_puts(b, "}\n");
}

void nt_plan_print_actions_json(const struct nt_plan *p, struct nt_buf *b)
{
	size_t i;

	nt_buf_puts(b, "[");
	for (i = 0; i < p->n; i++) {
		const struct nt_action *a = &p->v[i];
		struct nt_record r = {a->object, a->kind, a->arg, a->has_from ? &a->from : NULL,
				      &a->to, a->flags, a->src, a->note};

		nt_buf_puts(b, i ? ",\n" : "\n");
		nt_record_write(&r, NT_REC_PLAN, b);
	}
	nt_buf_puts(b, "\n]");
}
