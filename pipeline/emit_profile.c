/* SPDX-License-Identifier: MIT */
/* What the script emitters read of the profile (emit_profile.h). */
#include <stdio.h>
#include <stdlib.h>

#include "../compiler/language/schema.h"
#include "../compiler/model/tunnel.h"
#include "emit_profile.h"

static void features_of(const struct nt_profile *p, struct nt_emit_profile *ep)
{
	struct nt_emit_feature *v;
	size_t i, k, n = 0;

	for (i = 0; i < p->interfaces_count; i++)
		if (p->interfaces[i].linux_opts)
			n += p->interfaces[i].linux_opts->features_count;
	if (!n)
		return;
	v = nt_xcalloc(n, sizeof(*v));
	for (i = 0, n = 0; i < p->interfaces_count; i++) {
		const struct nt_iface *f = &p->interfaces[i];

		for (k = 0; f->linux_opts && k < f->linux_opts->features_count; k++) {
			v[n].iface = f->name;
			v[n++].key = f->linux_opts->features[k].key;
		}
	}
	ep->features = v;
	ep->nfeatures = n;
}

/* A tunnel with an underlay and no MTU of its own. */
static bool derivable(const struct nt_iface *f)
{
	return f->tunnel && f->tunnel->underlay && !f->mtu;
}

static void tunnels_of(const struct nt_loaded *l, struct nt_emit_profile *ep)
{
	const struct nt_profile *p = l->p;
	struct nt_emit_tunnel *v;
	size_t i, n = 0;
	char path[64];

	for (i = 0; i < p->interfaces_count; i++)
		n += derivable(&p->interfaces[i]);
	if (!n)
		return;
	v = nt_xcalloc(n, sizeof(*v));
	for (i = 0, n = 0; i < p->interfaces_count; i++) {
		const struct nt_iface *f = &p->interfaces[i];
		struct nt_overhead o;

		if (!derivable(f))
			continue;
		nt_tunnel_overhead(f->tunnel, &o);
		snprintf(path, sizeof(path), "/interfaces/%zu/tunnel/underlay", i);
		v[n].name = f->name;
		v[n].underlay = f->tunnel->underlay;
		v[n].label = o.k->label;
		v[n].overhead = o.fixed + o.trailer;
		v[n].outer = nt_outer_strings[o.outer].str;
		v[n++].src = nt_loaded_mark(l, path, false);
	}
	ep->tunnels = v;
	ep->ntunnels = n;
}

void nt_emit_profile_of(const struct nt_loaded *l, struct nt_emit_profile *ep)
{
	*ep = (struct nt_emit_profile){0};
	if (!l || !l->p)
		return;
	features_of(l->p, ep);
	tunnels_of(l, ep);
}

void nt_emit_profile_free(struct nt_emit_profile *ep)
{
	free((void *)ep->features);
	free((void *)ep->tunnels);
	*ep = (struct nt_emit_profile){0};
}
