/* SPDX-License-Identifier: MIT */
/*
 * Lowering for target linux: portable offloads -> ethtool features (with
 * the dependencies net/core/dev.c netdev_fix_features enforces), channels,
 * rings, coalesce, MTU (tunnels derived from the underlay), RSS, IRQ
 * placement, RPS/XPS, irqbalance, process affinity and sysctls.
 */
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "../language/profile.h"
#include "../language/schema.h"
#include "../language/ytree.h"
#include "../model/scope.h"
#include "../model/tunnel.h"
#include "validate.h"


/* Rank for ordering inside the feature phase: prerequisites first when
 * enabling, dependents first when disabling (plan.c reverses for off). */
static int feature_rank(const char *portable)
{
	if (!strcmp(portable, "sg") || !strcmp(portable, "tx_checksum") ||
	    !strcmp(portable, "rx_checksum"))
		return 0;
	return 1;
}

struct ictx {
	struct nt_lower *L;
	const struct nt_iface *f;
	size_t i;
	const struct nt_iface_facts *F;
	const struct nt_caps *caps;
	struct nt_cpuset reserved;
	uint32_t nqueues;		/* queue count after the plan */
	bool nqueues_known;
	struct nt_cpuset *irq_cpus;	/* nqueues entries once lower_irq placed them */
	bool irq_placed;
	const struct nt_tunnel_map *tm;	/* the profile's chains of underlays */
	char last_src[64];		/* put's last source path and its mark: */
	struct nt_mark last_mark;	/* a row per queue repeats it 64 times */
	const struct nt_ynode *node;	/* the interface's node of the profile's tree */
};

/* The position of sub (a path below the interface, "" for itself) in the
 * profile, or of the nearest key above it. */
static struct nt_mark mk(struct ictx *c, const char *sub, bool key)
{
	char path[512];
	size_t n;

	if (!c->node) {
		snprintf(path, sizeof(path), "/interfaces/%zu%s%s", c->i, *sub ? "/" : "", sub);
		return nt_loaded_mark(c->L->l, path, key);
	}
	n = strlen(sub);
	if (!*sub || n + 2 > sizeof(path))
		return nt_ymark(c->node, "", true);
	path[0] = '/';
	memcpy(path + 1, sub, n + 1);
	return nt_ymark(c->node, path, key);
}

#define LERR(L, m, ...) do { (L)->errs++; nt_error((L)->d, m, "plan", __VA_ARGS__); } while (0)

static struct nt_setting *put(struct ictx *c, enum nt_kind_id k, const char *arg,
			      struct nt_value v, const char *srcpath)
{
	size_t n = strlen(srcpath);

	if (n >= sizeof(c->last_src))
		return nt_state_set(c->L->desired, k, c->f->name, arg, v, mk(c, srcpath, false));
	if (!c->last_src[0] || strcmp(c->last_src, srcpath)) {
		c->last_mark = mk(c, srcpath, false);
		memcpy(c->last_src, srcpath, n + 1);
	}
	return nt_state_set(c->L->desired, k, c->f->name, arg, v, c->last_mark);
}

static void set_note(struct nt_setting *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void set_note(struct nt_setting *s, const char *fmt, ...)
{
	struct nt_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	nt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	free(s->note);
	s->note = nt_buf_take(&b);
}

static bool observed_bool(struct ictx *c, const char *feature, bool *out)
{
	const struct nt_setting *s = nt_state_get(c->L->observed, NT_K_FEATURE, c->f->name, feature);

	if (!s)
		return false;
	*out = s->val.b;
	return true;
}


static void put_feature(struct ictx *c, const struct nt_fgroup *g, const char *name, bool fixed,
			bool on, const char *srcpath, unsigned flags, const char *note)
{
	struct nt_setting *s = put(c, NT_K_FEATURE, name, nt_v_bool(on), srcpath);

	s->flags |= flags;
	s->order = feature_rank(g->portable);
	if (note)
		set_note(s, "%s", note);
	if (fixed) {
		bool cur;

		if (!observed_bool(c, name, &cur) || cur != on)
			s->flags |= NT_SF_CANNOT_CHANGE;
		set_note(s, "fixed on this device (not in hw_features)");
	}
}

/* Lowers one portable group to feature settings. */
static void lower_group(struct ictx *c, const struct nt_fgroup *g, bool on, const char *srcpath,
			unsigned flags, const char *note)
{
	size_t k, changeable = 0, present = 0, idx[64], nidx = 0;
	enum nt_gmatch m = nt_fgroup_match(g);
	bool scan = false;

	if (!c->F || !c->F->features_known) {
		/* no facts: the canonical name only */
		put_feature(c, g, g->names[0], false, on, srcpath, flags, note);
		return;
	}
	if (m == NT_GM_LIST) {
		/* a list of at most 6 names: looked up in the facts' index,
		 * taken in the facts' order as a scan would */
		for (k = 0; k < 6 && g->names[k]; k++) {
			const struct nt_feature_fact *ff = nt_facts_feature(c->F, g->names[k]);
			size_t at = ff ? (size_t)(ff - c->F->features) : SIZE_MAX, j;

			if (!ff)
				continue;
			for (j = 0; j < nidx && idx[j] != at; j++)
				;
			if (j < nidx)
				continue;
			for (j = nidx++; j > 0 && idx[j - 1] > at; j--)
				idx[j] = idx[j - 1];
			idx[j] = at;
		}
	} else {
		for (k = 0; k < c->F->nfeatures && nidx < sizeof(idx) / sizeof(idx[0]); k++)
			if (nt_fgroup_has_as(g, m, c->F->features[k].name))
				idx[nidx++] = k;
		if (k < c->F->nfeatures) {	/* more than fit: scan as before */
			for (nidx = 0, k = 0; k < c->F->nfeatures; k++)
				if (nt_fgroup_has_as(g, m, c->F->features[k].name))
					nidx++;
			scan = true;
		}
	}
	if (!scan) {
		for (k = 0; k < nidx; k++) {
			present++;
			changeable += !c->F->features[idx[k]].fixed;
		}
		for (k = 0; k < nidx; k++) {
			const struct nt_feature_fact *ff = &c->F->features[idx[k]];

			if (ff->fixed && changeable)
				continue;
			put_feature(c, g, ff->name, ff->fixed, on, srcpath, flags, note);
		}
		goto done;
	}
	for (k = 0; k < c->F->nfeatures; k++)
		if (nt_fgroup_has_as(g, m, c->F->features[k].name)) {
			present++;
			changeable += !c->F->features[k].fixed;
		}
	for (k = 0; k < c->F->nfeatures; k++) {
		const struct nt_feature_fact *ff = &c->F->features[k];

		if (!nt_fgroup_has_as(g, m, ff->name))
			continue;
		/* e.g. tx-checksum-fcoe-crc beside tx-checksum-ip-generic: the
		 * group is carried by its changeable bits */
		if (ff->fixed && changeable)
			continue;
		put_feature(c, g, ff->name, ff->fixed, on, srcpath, flags, note);
	}
done:
	if (!present && on)
		LERR(c->L, mk(c, srcpath, false), "%s has no %s feature (%s); it cannot be turned on",
		     c->f->name, g->portable, g->names[0]);
}

static bool toggle_val(const struct nt_toggle *t, bool *on)
{
	if (!t || !t->all)
		return false;
	*on = *t->all;
	return true;
}

static void lower_offloads(struct ictx *c)
{
	const struct nt_offloads *o = c->f->offloads;
	/* the members of struct nt_offloads in the order of nt_fgroups[] */
	const struct nt_toggle *const t[] = {
#define NT_OFFLOAD(key, ...) o ? o->key : NULL,
#include "../language/offloads.def"
#undef NT_OFFLOAD
	};
	size_t k;
	bool on, gro_hw_on = o && toggle_val(o->gro_hw, &on) && on;

	for (k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
		const char *p = NULL, *gname, *note = NULL;
		char buf[64], path[80];
		bool want;

		if (!toggle_val(t[k], &want))
			continue;
		snprintf(path, sizeof(path), "offloads/%s", nt_fgroups[k].portable);
		while ((gname = nt_fgroup_next(&nt_fgroups[k], &p, buf, sizeof(buf)))) {
			on = want;
			note = NULL;
			if (!strcmp(gname, "lro") && on && gro_hw_on) {
				on = false;	/* netdev_fix_features: GRO_HW wins over LRO */
				note = "off: rx-gro-hw is on and the kernel drops LRO beside it";
			}
			lower_group(c, nt_fgroup_named(gname), on, path, 0, note);
		}
	}
	/* Prerequisites the profile left unsaid but the kernel enforces. */
	if (o) {
		bool tso_on = (toggle_val(o->tso, &on) && on) || (toggle_val(o->lso, &on) && on);
		bool uso_on = toggle_val(o->uso, &on) && on;
		const char *why = tso_on ? "offloads/tso" : "offloads/uso";
		bool tx_set = o->checksum || o->tx_checksum, sg_set = !!o->sg;

		if ((tso_on || uso_on) && !tx_set)
			lower_group(c, nt_fgroup_named("tx_checksum"), true, why, NT_SF_IMPLIED,
				    tso_on ? "implied: tso needs tx checksum" : "implied: uso needs tx checksum");
		if (tso_on && !sg_set)
			lower_group(c, nt_fgroup_named("sg"), true, why, NT_SF_IMPLIED, "implied: tso needs scatter-gather");
		if (gro_hw_on && !o->checksum && !o->rx_checksum)
			lower_group(c, nt_fgroup_named("rx_checksum"), true, "offloads/gro_hw", NT_SF_IMPLIED,
				    "implied: rx-gro-hw needs rx checksum");
	}
	if (c->f->linux_opts)
		for (k = 0; k < c->f->linux_opts->features_count; k++) {
			const struct nt_kv *kv = &c->f->linux_opts->features[k];
			struct nt_setting *s;
			char path[300];

			snprintf(path, sizeof(path), "linux/features/%s", kv->key);
			if (c->F && c->F->features_known && !nt_facts_feature(c->F, kv->key)) {
				LERR(c->L, mk(c, path, true), "%s has no feature '%s'", c->f->name, kv->key);
				continue;
			}
			s = put(c, NT_K_FEATURE, kv->key, nt_v_bool(!strcmp(kv->value, "true")), path);
			s->order = 1;
			{
				const struct nt_feature_fact *ff = nt_facts_feature(c->F, kv->key);
				bool cur;

				if (ff && ff->fixed && (!observed_bool(c, kv->key, &cur) ||
							cur != s->val.b))
					s->flags |= NT_SF_CANNOT_CHANGE;
			}
		}
}

static uint32_t observed_u32(struct ictx *c, enum nt_kind_id k, const char *obj, const char *arg,
			     bool *ok)
{
	const struct nt_setting *s = nt_state_get(c->L->observed, k, obj, arg);

	*ok = s != NULL;
	return s ? s->val.u : 0;
}

/* The table was picked from the device (no nic:, or nic: auto), so validate
 * has not checked its limits yet, unless match: named the same table. */
static bool table_chosen(const struct ictx *c)
{
	const struct nt_match *m = c->f->match;

	if (!c->caps || (c->f->nic && strcmp(c->f->nic, "auto")))
		return false;
	return !m || (!m->driver && !m->pci) ||
	       nt_caps_match(c->L->db, m->driver, m->pci, NULL) != c->caps;
}

/* The table picked from the device gets validate's table checks, except
 * the maxima, channel kinds and coalescing, which the lowering checks here
 * with the observed maxima taking precedence, and the offload states when the
 * host's features were observed (they say what the device really offers). */
static void check_chosen_caps(struct ictx *c)
{
	struct nt_caps t;
	const struct nt_channels *ch = c->f->channels;
	const uint32_t *v[NT_CH__COUNT] = {ch ? ch->combined : NULL, ch ? ch->rx : NULL,
					   ch ? ch->tx : NULL, ch ? ch->other : NULL};
	unsigned k;

	if (!table_chosen(c))
		return;
	t = *c->caps;
	for (k = 0; k < NT_CH__COUNT; k++) {
		bool observed = c->F && c->F->max_chan[k].known;

		/* a kind the table lacks is reported by lower_channels */
		if (v[k] && !observed && !t.chan_kind[k])
			t.chan_settable = NT_TRI_UNKNOWN;
		t.chan_kind[k] = true;
		t.chan_max[k].known = false;
	}
	if (t.rings_settable != NT_TRI_NO) {
		t.ring_rx_max.known = false;
		t.ring_tx_max.known = false;
	}
	t.ring_rx_max_no_agg.known = false;
	if (c->F && c->F->rss_key_bytes.known)
		t.rss_key_bytes = c->F->rss_key_bytes;
	if (t.rss_key_bytes.known && t.rss_key_bytes.v)
		t.rss_key_bytes.known = false;	/* lower_rss checks the length */
	if (c->F && c->F->rss_indir_size.known)
		t.rss_indir_size = c->F->rss_indir_size;
	c->L->errs += nt_validate_chosen_caps(c->L->l, c->L->d, c->i, &t,
					!(c->F && c->F->features_known));
}

static void lower_channels(struct ictx *c)
{
	const struct nt_channels *ch = c->f->channels;
	uint32_t *v[NT_CH__COUNT] = {ch ? ch->combined : NULL, ch ? ch->rx : NULL,
				     ch ? ch->tx : NULL, ch ? ch->other : NULL};
	unsigned k;
	bool ok;
	uint32_t q;

	for (k = 0; k < NT_CH__COUNT; k++) {
		char path[64];

		if (!v[k])
			continue;
		snprintf(path, sizeof(path), "channels/%s", nt_chan_names[k]);
		if (c->F && c->F->max_chan[k].known && *v[k] > c->F->max_chan[k].v) {
			LERR(c->L, mk(c, path, false),
			     "channels.%s = %u exceeds this host's maximum of %u for %s (observed)",
			     nt_chan_names[k], *v[k], c->F->max_chan[k].v, c->f->name);
			continue;
		}
		if (!(c->F && c->F->max_chan[k].known) && table_chosen(c) &&
		    !c->caps->chan_kind[k]) {
			struct nt_buf kinds = {0};
			unsigned j;

			for (j = 0; j < NT_CH__COUNT; j++)
				if (c->caps->chan_kind[j])
					nt_buf_printf(&kinds, "%s%s", kinds.n ? ", " : "",
						      nt_chan_names[j]);
			LERR(c->L, mk(c, path, false), "%s (%s) has no %s channels; it has %s",
			     c->caps->id, c->caps->driver, nt_chan_names[k],
			     kinds.n ? kinds.p : "no channel settings");
			free(kinds.p);
			continue;
		}
		if (!(c->F && c->F->max_chan[k].known) && table_chosen(c) &&
		    c->caps->chan_kind[k] && c->caps->chan_max[k].known &&
		    *v[k] > c->caps->chan_max[k].v) {
			LERR(c->L, mk(c, path, false),
			     "channels.%s = %u exceeds the %s maximum of %u (%s)", nt_chan_names[k],
			     *v[k], c->caps->id, c->caps->chan_max[k].v, c->caps->src_channels);
			continue;
		}
		if (c->F && c->F->max_chan[k].known && c->caps && c->caps->chan_max[k].known &&
		    c->F->max_chan[k].v != c->caps->chan_max[k].v)
			nt_warn(c->L->d, mk(c, path, false), "capability",
				"%s: observed maximum %s channels %u differs from the %s table's %u; "
				"the observed value is used", c->f->name, nt_chan_names[k],
				c->F->max_chan[k].v, c->caps->id, c->caps->chan_max[k].v);
		put(c, NT_K_CHANNELS, nt_chan_names[k], nt_v_u32(*v[k]), path);
	}
	/* queue count after the plan: desired, else observed */
	q = v[NT_CH_COMBINED] ? *v[NT_CH_COMBINED] : 0;
	if (!q) {
		q = observed_u32(c, NT_K_CHANNELS, c->f->name, "combined", &ok);
		if (!ok)
			q = 0;
	}
	if (v[NT_CH_RX] && *v[NT_CH_RX] + q > q)
		q += *v[NT_CH_RX];
	else if (!v[NT_CH_RX]) {
		uint32_t rx = observed_u32(c, NT_K_CHANNELS, c->f->name, "rx", &ok);

		q += ok ? rx : 0;
	}
	if (!q && c->F && c->F->rx_queues)
		q = c->F->rx_queues;
	if (!q && c->F && c->F->nirqs)
		q = (uint32_t)c->F->nirqs;
	c->nqueues = q;
	c->nqueues_known = q > 0;
}

/* One ring size of the profile: the kind's argument, the profile key, the
 * value and the observed maximum (NULL when the device reports none). */
struct lring {
	const char *n, *yaml;
	uint32_t *v;
	const struct nt_num *max;
};

/* rings.rx above the maximum with aggregation rings: kept (with a note) when
 * the profile turns them off, refused when it does not; true when handled. */
static bool lower_ring_no_agg(struct ictx *c, const struct lring *r, const char *path)
{
	char why[256];
	bool mtu_unset;
	struct nt_num nm = nt_caps_rx_max(c->caps, c->f, why, sizeof(why), &mtu_unset);
	bool observed = r->max && r->max->known;
	uint32_t want = *r->v;
	struct nt_setting *s;

	/* the observed maximum is the one of the current offloads
	 * and MTU; the profile may turn aggregation rings off first */
	if ((!observed || r->max->v == c->caps->ring_rx_max.v) &&
	    want > c->caps->ring_rx_max.v && want <= nm.v) {
		s = put(c, NT_K_RING, r->n, nt_v_u32(want), path);
		set_note(s, "%s allows %u rx descriptors only without aggregation "
			 "rings: offloads.gro_hw and offloads.lro are off and %s at most %u",
			 c->caps->driver, nm.v, mtu_unset ? "the host's MTU must be" :
			 "the mtu is", c->caps->no_agg_mtu_max.v);
		return true;
	}
	if ((!observed || r->max->v == c->caps->ring_rx_max.v) && table_chosen(c) &&
	    want > nm.v && want <= c->caps->ring_rx_max_no_agg.v) {
		LERR(c->L, mk(c, path, false),
		     "rings.rx = %u exceeds the %s maximum of %u while %s uses "
		     "aggregation rings: %s. With offloads.gro_hw and offloads.lro off "
		     "and an mtu of at most %u the maximum is %u (%s)", want,
		     c->caps->id, nm.v, c->caps->driver, why, c->caps->no_agg_mtu_max.v,
		     c->caps->ring_rx_max_no_agg.v, c->caps->src_rings);
		return true;
	}
	return false;
}

/* A size above the kernel's older maximum, before the table's max_since. */
static void lower_ring_before(struct ictx *c, size_t k, const struct lring *r, const char *path)
{
	struct nt_buf bp = {0};
	size_t i;

	for (i = 0; i < c->caps->nbackports; i++)
		nt_buf_printf(&bp, "%s%s", i ? ", " : " and the stable releases ",
			      c->caps->ring_backports[i]);
	LERR(c->L, mk(c, path, false),
	     "rings.%s = %u exceeds the %s maximum of %u on kernel %s (%u from %s%s; %s)",
	     r->yaml, *r->v, c->caps->id, c->caps->ring_max_before.v, c->L->facts->kernel,
	     k ? c->caps->ring_tx_max.v : c->caps->ring_rx_max.v,
	     c->caps->ring_max_since, bp.p ? bp.p : "", c->caps->src_rings);
	free(bp.p);
}

/* A size above the observed, the table's or the kernel's maximum; true when refused. */
static bool lower_ring_refused(struct ictx *c, size_t k, const struct lring *r, const char *path)
{
	bool observed = r->max && r->max->known;
	uint32_t want = *r->v;

	if (observed && want > r->max->v) {
		LERR(c->L, mk(c, path, false),
		     "rings.%s = %u exceeds this host's maximum of %u for %s (observed)",
		     r->yaml, want, r->max->v, c->f->name);
		return true;
	}
	if (k < 2 && !observed && table_chosen(c)) {
		struct nt_num tmax = k ? c->caps->ring_tx_max : c->caps->ring_rx_max;

		if (tmax.known && want > tmax.v) {
			LERR(c->L, mk(c, path, false),
			     "rings.%s = %u exceeds the %s maximum of %u (%s)", r->yaml, want,
			     c->caps->id, tmax.v, c->caps->src_rings);
			return true;
		}
	}
	if (k < 2 && !observed && c->caps &&
	    nt_caps_ring_before(c->caps, c->L->facts->kernel) &&
	    want > c->caps->ring_max_before.v) {
		lower_ring_before(c, k, r, path);
		return true;
	}
	return false;
}

/* An observed maximum that differs from the table's. */
static void lower_ring_differs(struct ictx *c, size_t k, const struct lring *r, const char *path)
{
	struct nt_num tmax = k ? c->caps->ring_tx_max : c->caps->ring_rx_max;

	/* on a kernel before the table's max_since the table's own
	 * maximum is max_before (x710: 4096 on 5.15.0-NN) */
	if (tmax.known && nt_caps_ring_before(c->caps, c->L->facts->kernel))
		tmax = c->caps->ring_max_before;
	if (tmax.known && tmax.v != r->max->v)
		nt_warn(c->L->d, mk(c, path, false), "capability",
			"%s: observed maximum %s ring %u differs from the %s table's %u; "
			"the observed value is used", c->f->name, r->yaml, r->max->v,
			c->caps->id, tmax.v);
}

/* The size the driver will set: rounded to its step or up to a power of two. */
static void lower_ring_put(struct ictx *c, size_t k, const struct lring *r, const char *path)
{
	uint32_t want = *r->v;
	struct nt_setting *s;

	if (c->caps && c->caps->ring_step.known && c->caps->ring_step.v > 1 &&
	    want % c->caps->ring_step.v)
		want = (want + c->caps->ring_step.v - 1) / c->caps->ring_step.v *
		       c->caps->ring_step.v;
	if (k < 2 && c->caps && c->caps->ring_pow2 == NT_POW2_UP && nt_pow2_up(want))
		want = nt_pow2_up(want);
	s = put(c, NT_K_RING, r->n, nt_v_u32(want), path);
	if (want != *r->v && c->caps->ring_pow2 == NT_POW2_UP)
		set_note(s, "%u rounded up to %u: %s rounds ring sizes up to a power of two",
			 *r->v, want, c->caps->driver);
	else if (want != *r->v)
		set_note(s, "%u rounded up to %u: %s rounds ring sizes to multiples of %u",
			 *r->v, want, c->caps->driver, c->caps->ring_step.v);
}

/* Ring k (0 rx, 1 tx, then rx-mini, rx-jumbo). */
static void lower_ring(struct ictx *c, size_t k, const struct lring *r)
{
	char path[64];

	snprintf(path, sizeof(path), "rings/%s", r->yaml);
	if (k == 0 && c->caps && c->caps->ring_rx_max_no_agg.known && lower_ring_no_agg(c, r, path))
		return;
	if (lower_ring_refused(c, k, r, path))
		return;
	if (k < 2 && r->max && r->max->known && c->caps)
		lower_ring_differs(c, k, r, path);
	lower_ring_put(c, k, r, path);
}

static void lower_rings(struct ictx *c)
{
	const struct nt_rings *r = c->f->rings;
	const char *const *n = nt_kinds[NT_K_RING].args;	/* rx, tx, rx-mini, rx-jumbo */
	const struct lring m[] = {
		{n[0], "rx", r ? r->rx : NULL, c->F ? &c->F->ring_rx_max : NULL},
		{n[1], "tx", r ? r->tx : NULL, c->F ? &c->F->ring_tx_max : NULL},
		{n[2], "rx_mini", r ? r->rx_mini : NULL, NULL},
		{n[3], "rx_jumbo", r ? r->rx_jumbo : NULL, NULL},
	};
	size_t k;

	for (k = 0; k < sizeof(m) / sizeof(m[0]); k++)
		if (m[k].v)
			lower_ring(c, k, &m[k]);
}

/* A name of a map of driver-given names (ifkeys.def NT_LINUX_NAMES) as the
 * argument of kind k: a device that reports some names of the kind but not
 * this one is an error here, one that reports none (veth) is left to the
 * kernel's answer at apply time. */
static void lower_name(struct ictx *c, enum nt_kind_id k, const struct nt_name_map *m,
		       const struct nt_kv *kv)
{
	char path[300];
	const struct nt_state *o = c->L->observed;
	struct nt_buf have = {0};
	size_t i;

	snprintf(path, sizeof(path), "%s/%s", m->path, kv->key);
	*strchr(path, '.') = '/';
	for (i = 0; o && i < o->n; i++)
		if (o->v[i].kind == k && !strcmp(o->v[i].object, c->f->name))
			nt_buf_printf(&have, "%s%s", have.n ? ", " : "", o->v[i].arg);
	if (have.n && !nt_state_get(o, k, c->f->name, kv->key))
		LERR(c->L, mk(c, path, true), "%s has no %s '%s' (it has: %s)",
		     c->f->name, m->noun, kv->key, have.p);
	else
		put(c, k, kv->key, nt_v_bool(!strcmp(kv->value, "true")), path);
	nt_buf_free(&have);
}

/* The maps of driver-given names, each by the kind whose key it is. */
static void lower_names(struct ictx *c)
{
	const char *lo = (const char *)c->f->linux_opts;
	const struct nt_name_map *m;
	const struct nt_kv *kv;
	unsigned n, j;
	size_t k;

	for (k = 0; lo && k < NT_K__COUNT; k++) {
		const char *key = nt_kinds[k].keys;

		if (nt_kinds[k].argshape != NT_ARG_OPEN || !key ||
		    strncmp(key, "interfaces[].", strlen("interfaces[].")) ||
		    !(m = nt_name_map_at(key + strlen("interfaces[]."))))
			continue;
		kv = *(struct nt_kv *const *)(lo + m->at);
		n = *(const unsigned *)(lo + m->count_at);
		for (j = 0; kv && j < n; j++)
			lower_name(c, (enum nt_kind_id)k, m, &kv[j]);
	}
}

/* The word maps (ifkeys.def NT_IFKEY_WORDS), each by the kind whose key it
 * is: an argument's words as one value of the kind (validate.c refuses
 * two arguments that are one setting). */
static void lower_words(struct ictx *c)
{
	const struct nt_word_map *m;
	const uint32_t *w;
	const void *s;
	char path[128];
	uint32_t bits;
	unsigned n, j;
	size_t k, a;
	char *v;

	for (m = nt_word_maps; m->key; m++) {
		if (!(s = nt_word_map_of(m, c->f)))
			continue;
		for (k = 0; k < NT_K__COUNT && nt_kind_word_map((enum nt_kind_id)k) != m; k++)
			;
		for (a = 0; k < NT_K__COUNT && m->args[a].arg; a++) {
			if (!(w = nt_word_map_arg(m, s, a, &n)))
				continue;
			snprintf(path, sizeof(path), "%s/%s", m->path, m->args[a].arg);
			*strchr(path, '.') = '/';
			for (bits = 0, j = 0; j < n; j++)
				bits |= w[j];
			v = nt_words_format(m, bits);
			put(c, (enum nt_kind_id)k, m->args[a].arg, nt_v_str(v), path);
			free(v);
		}
	}
}

static void lower_coalesce(struct ictx *c)
{
	const struct nt_coalesce *co = c->f->coalesce;
	const char *const *n = nt_kinds[NT_K_COALESCE].args;	/* rx-usecs .. tx-frames */
	struct { const char *n, *path; uint32_t *v; } m[] = {
		{n[0], "coalesce/rx_usecs", co ? co->rx_usecs : NULL},
		{n[1], "coalesce/tx_usecs", co ? co->tx_usecs : NULL},
		{n[2], "coalesce/rx_frames", co ? co->rx_frames : NULL},
		{n[3], "coalesce/tx_frames", co ? co->tx_frames : NULL},
	};
	size_t k;

	if (!co)
		return;
	if (table_chosen(c)) {
		struct nt_caps_issue is[NT_CO__COUNT];
		size_t n = nt_caps_coalesce_issues(c->caps, c->f, is, NT_CO__COUNT);

		for (k = 0; k < n; k++) {
			char path[64];

			snprintf(path, sizeof(path), "coalesce/%s", is[k].key);
			LERR(c->L, mk(c, path, false), "%s", is[k].msg);
		}
		if (n)
			return;
	}
	if (co->adaptive_rx)
		put(c, NT_K_COALESCE_ADAPTIVE, "rx", nt_v_bool(*co->adaptive_rx), "coalesce/adaptive_rx");
	if (co->adaptive_tx)
		put(c, NT_K_COALESCE_ADAPTIVE, "tx", nt_v_bool(*co->adaptive_tx), "coalesce/adaptive_tx");
	for (k = 0; k < sizeof(m) / sizeof(m[0]); k++)
		if (m[k].v)
			put(c, NT_K_COALESCE, m[k].n, nt_v_u32(*m[k].v), m[k].path);
}

/* One value of a kind lowered by the rows: v points to a uint32_t or a bool. */
static void put_plain(struct ictx *c, enum nt_kind_id k, const char *arg, const void *v)
{
	const struct nt_kinddef *d = &nt_kinds[k];
	const char *key = d->keys + strlen("interfaces[].");
	char path[128];

	snprintf(path, sizeof(path), "%s%s%s", key, arg ? "/" : "", arg ? arg : "");
	put(c, k, arg, d->vtype == NT_V_BOOL ? nt_v_bool(*(const bool *)v) :
		nt_v_u32(*(const uint32_t *)v), path);
}

/* The kinds whose kinds.def row names their member of struct nt_iface
 * (NT_LOWER), in the table's order. */
static void lower_plain(struct ictx *c)
{
	size_t k, a;

	for (k = 0; k < NT_K__COUNT; k++) {
		const struct nt_kinddef *d = &nt_kinds[k];
		const void *const *m;

		if (!d->lower_at)
			continue;
		m = (const void *const *)((const char *)c->f + d->lower_at - 1);
		if (!*m)
			continue;
		if (d->argshape == NT_ARG_NONE) {
			put_plain(c, (enum nt_kind_id)k, NULL, *m);
			continue;
		}
		for (a = 0; d->args[a]; a++)
			if (((const void *const *)*m)[a])
				put_plain(c, (enum nt_kind_id)k, d->args[a], ((const void *const *)*m)[a]);
	}
}

/* the maps of driver-given names and of words: their profile keys; the
 * kinds of lower_plain, and the kind rows (kinds.def,
 * appliers/linux/kinds.c) do the rest. */
static void lower_rows(struct ictx *c)
{
	lower_plain(c);
	lower_names(c);
	lower_words(c);
}

static struct nt_num key_bytes(struct ictx *c)
{
	if (c->F && c->F->rss_key_bytes.known)
		return c->F->rss_key_bytes;
	if (c->caps)
		return c->caps->rss_key_bytes;
	return (struct nt_num){false, 0};
}

static struct nt_num indir_size(struct ictx *c)
{
	if (c->F && c->F->rss_indir_size.known)
		return c->F->rss_indir_size;
	if (c->caps)
		return c->caps->rss_indir_size;
	return (struct nt_num){false, 0};
}

/* rss.key on a device without a key. */
static void lower_rss_nokey(struct ictx *c, bool obs_nokey)
{
	const char *drv = c->F && c->F->driver ? c->F->driver :
			  c->caps ? c->caps->driver : NULL;
	/* a virtual device (bridge) may have a link kind and no driver */
	const char *kind = !drv && c->F ? c->F->kind : NULL;
	const char *why = !obs_nokey ? "its key size is 0" :
			  c->F->rss_indir_size.v ?
			  "observed: an indirection table but no key" :
			  "observed: no key and no indirection table";

	LERR(c->L, mk(c, "rss/key", false), "%s has no RSS key (%s%s%s%s%s%s); remove rss.key",
	     c->f->name, drv ? "driver " : kind ? "kind " : "", drv ? drv : kind ? kind : "",
	     drv || kind ? ", " : "", why,
	     !obs_nokey && c->caps && c->caps->src_rss ? "; " : "",
	     !obs_nokey && c->caps && c->caps->src_rss ? c->caps->src_rss : "");
}

/* rss.key: per-host, derived from the host and interface names at the key size. */
static void lower_rss_per_host(struct ictx *c, struct nt_num kb, uint8_t *key)
{
	struct nt_setting *s;

	if (!kb.known && c->caps) {
		LERR(c->L, mk(c, "rss/key", false),
		     "the RSS key size of %s is unknown: the %s table (driver %s) does not "
		     "know it; plan against the live host or a snapshot", c->f->name,
		     c->caps->id, c->caps->driver);
	} else if (!kb.known) {
		LERR(c->L, mk(c, "rss/key", false),
		     "the RSS key size of %s is unknown; name the NIC model (nic:) or plan "
		     "against the live host or a snapshot", c->f->name);
	} else {
		nt_rss_key_per_host(c->L->hostname, c->f->name, key, kb.v);
		s = put(c, NT_K_RSS_KEY, NULL, nt_v_bytes(key, kb.v), "rss/key");
		set_note(s, "per-host: HMAC-SHA256 of %s/%s", c->L->hostname, c->f->name);
	}
}

static void lower_rss_key(struct ictx *c, const struct nt_rss *r)
{
	uint8_t key[NT_RSS_KEY_MAX];
	bool per_host;
	int n = nt_parse_rss_key(r->key, key, sizeof(key), &per_host);
	struct nt_num kb = key_bytes(c);
	/* an observed device without a key has an indirection size and no
	 * key size (observe.c, snapshots); a table says 0 */
	bool obs_nokey = c->F && c->F->rss_indir_size.known && !c->F->rss_key_bytes.known;
	/* validate said so already: a table's key size of 0, or the
	 * observed empty indirection table given to a chosen table */
	bool said = c->caps && ((c->caps->rss_key_bytes.known && !c->caps->rss_key_bytes.v) ||
				(table_chosen(c) && c->F && c->F->rss_indir_size.known &&
				 !c->F->rss_indir_size.v));

	if ((obs_nokey || (kb.known && !kb.v)) && said) {
		/* reported by validate */
	} else if (obs_nokey || (kb.known && !kb.v)) {
		lower_rss_nokey(c, obs_nokey);
	} else if (kb.known && kb.v > sizeof(key)) {
		/* the loaders refuse this; a table or a driver could still say so */
		LERR(c->L, mk(c, "rss/key", false),
		     "the RSS key size of %s is %u bytes; nettune handles at most %zu",
		     c->f->name, kb.v, sizeof(key));
	} else if (per_host) {
		lower_rss_per_host(c, kb, key);
	} else if (n > 0) {
		if (kb.known && kb.v && (unsigned)n != kb.v)
			LERR(c->L, mk(c, "rss/key", false),
			     "RSS key is %d bytes; %s takes exactly %u", n, c->f->name, kb.v);
		else
			put(c, NT_K_RSS_KEY, NULL, nt_v_bytes(key, (size_t)n), "rss/key");
	}
}

/* rss.spread: an indirection table that cycles through the queues. */
static void lower_rss_spread(struct ictx *c, const struct nt_rss *r)
{
	struct nt_num sz = indir_size(c);
	uint32_t q = r->queues ? *r->queues : c->nqueues;
	uint32_t *l, e;
	struct nt_setting *s;

	if (sz.known && sz.v > NT_RSS_INDIR_MAX) {
		LERR(c->L, mk(c, "rss/spread", false),
		     "the RSS indirection table of %s has %u entries; nettune handles at most %u",
		     c->f->name, sz.v, NT_RSS_INDIR_MAX);
		return;
	}
	if (!sz.known || !sz.v) {
		LERR(c->L, mk(c, "rss/spread", false),
		     "the RSS indirection table size of %s is unknown; name the NIC model or "
		     "plan against the live host or a snapshot", c->f->name);
		return;
	}
	if (!q) {
		LERR(c->L, mk(c, "rss/spread", false),
		     "cannot spread RSS on %s: its queue count is unknown (set channels)",
		     c->f->name);
		return;
	}
	l = nt_xmalloc(sz.v * sizeof(*l));
	for (e = 0; e < sz.v; e++)
		l[e] = e % q;
	s = put(c, NT_K_RSS_INDIR, NULL, nt_v_list(l, sz.v), "rss/spread");
	set_note(s, "%u entries, each of %u queues gets %u or %u", sz.v, q, sz.v / q,
		 (sz.v + q - 1) / q);
	free(l);
}

static void lower_rss(struct ictx *c)
{
	const struct nt_rss *r = c->f->rss;

	if (!r)
		return;
	if (r->hash)
		put(c, NT_K_RSS_HFUNC, NULL, nt_v_str(nt_hash_strings[*r->hash].str), "rss/hash");
	if (r->key)
		lower_rss_key(c, r);
	if (r->spread)
		lower_rss_spread(c, r);
}

static void node_cpus(struct nt_lower *L, int node, struct nt_cpuset *out)
{
	const struct nt_profile *p = L->l->p;
	size_t k;

	nt_cpuset_clear(out);
	if (L->facts->topo_known && node >= 0 && node < 64) {
		*out = L->facts->node_cpus[node];
		return;
	}
	for (k = 0; p->host && k < p->host->numa_count; k++) {
		const char *err;

		if ((int)p->host->numa[k].node == node)
			nt_cpuset_parse(p->host->numa[k].cpus, out, &err);
	}
}

static void all_cpus(struct nt_lower *L, struct nt_cpuset *out)
{
	const struct nt_profile *p = L->l->p;
	size_t k;

	if (L->facts->topo_known) {
		*out = L->facts->online;
		return;
	}
	nt_cpuset_clear(out);
	for (k = 0; p->host && k < p->host->numa_count; k++) {
		struct nt_cpuset s;
		const char *err;

		if (nt_cpuset_parse(p->host->numa[k].cpus, &s, &err))
			nt_cpuset_or(out, &s);
	}
}

/* The NIC's node (or the underlay's); -1 when unknown. */
static int nic_node(struct ictx *c)
{
	if (c->F && c->F->numa_node >= 0)
		return c->F->numa_node;
	return -1;
}

/* The CPUs a spreading policy may use; false once reported. */
static bool irq_candidates(struct ictx *c, enum nt_irq_policy pol, struct nt_cpuset *cands)
{
	const struct nt_irq *q = c->f->irq;
	int node;

	switch (pol) {
	case NT_IRQ_NUMA_LOCAL_SPREAD:
		node = nic_node(c);
		if (node < 0) {
			if (c->L->facts->topo_known && c->L->facts->nnodes == 1) {
				node = 0;
			} else {
				LERR(c->L, mk(c, "irq/policy", false),
				     "the NUMA node of %s is unknown (numa_node -1); numa-local-spread "
				     "needs it: use all-cpus or explicit", c->f->name);
				return false;
			}
		}
		node_cpus(c->L, node, cands);
		break;
	case NT_IRQ_ALL_CPUS:
		if (q->cpus) {
			const char *err;

			nt_cpuset_parse(q->cpus, cands, &err);
		} else {
			all_cpus(c->L, cands);
		}
		break;
	default:
		nt_cpuset_clear(cands);
		break;
	}
	return true;
}

/* irq.cpus or irq.per_queue, queue N taking entry N mod the list's length. */
static void irq_explicit(struct ictx *c)
{
	const struct nt_irq *q = c->f->irq;
	uint32_t n;

	if (!q->cpus && q->per_queue_count < c->nqueues)
		nt_warn(c->L->d, mk(c, "irq/per_queue", false), "irq",
			"%s has %u queues but irq.per_queue lists %u CPU set%s: queue %u and "
			"later reuse the list from the start (queue N gets entry N mod %u)",
			c->f->name, c->nqueues, q->per_queue_count,
			q->per_queue_count == 1 ? "" : "s", q->per_queue_count,
			q->per_queue_count);
	for (n = 0; n < c->nqueues; n++) {
		const char *err;
		const char *lst = q->cpus ? q->cpus : q->per_queue[n % q->per_queue_count];

		nt_cpuset_parse(lst, &c->irq_cpus[n], &err);
		nt_cpuset_andnot(&c->irq_cpus[n], &c->reserved);
	}
}

/* One CPU per queue, spread over the physical cores of the candidates;
 * false once reported. */
static bool irq_spread(struct ictx *c, enum nt_irq_policy pol, struct nt_cpuset *cands)
{
	struct nt_placement pl;
	uint32_t n;

	if (c->L->facts->topo_known)
		nt_cpuset_and(cands, &c->L->facts->online);
	nt_cpuset_andnot(cands, &c->reserved);
	if (nt_cpuset_empty(cands)) {
		LERR(c->L, mk(c, "irq/policy", false),
		     "%s leaves no usable CPU for %s after reserved CPUs are removed",
		     nt_irq_policy_strings[pol].str, c->f->name);
		return false;
	}
	nt_placement_init(&pl, cands, c->L->facts);
	for (n = 0; n < c->nqueues; n++) {
		int cpu;

		cpu = nt_placement_spread(&pl, n);
		nt_cpuset_clear(&c->irq_cpus[n]);
		nt_cpuset_set(&c->irq_cpus[n], (unsigned)cpu);
	}
	if (pol == NT_IRQ_NUMA_LOCAL_SPREAD && c->nqueues > (uint32_t)pl.ncores)
		nt_warn(c->L->d, mk(c, "irq/policy", false), "irq",
			"%s has %u queues but node %d has %d usable physical cores; queues %d and "
			"later share cores: %s", c->f->name, c->nqueues,
			nic_node(c) < 0 ? 0 : nic_node(c), pl.ncores, pl.ncores,
			c->nqueues > (uint32_t)(pl.ncores + pl.nsiblings) ?
			"SMT siblings first, then wrapping" : "on the SMT siblings");
	return true;
}

/* The note of queue n's affinity: its rx and tx vectors. */
static void irq_note(struct ictx *c, struct nt_setting *s, const struct nt_irq_fact *irq, uint32_t n)
{
	size_t ntx, t;
	const struct nt_irq_fact *tx = nt_facts_tx_irqs(c->F, n, &ntx);
	struct nt_buf txs = {0};
	bool managed = irq->managed;

	for (t = 0; t < ntx; t++) {
		nt_buf_printf(&txs, "%s%u", t ? "," : ", tx irq ", tx[t].irq);
		managed |= tx[t].managed;
	}
	set_note(s, "%s %u%s%s%s", c->F->vmbus ? "vmbus channel" : "irq", irq->irq,
		 txs.p ? txs.p : "", managed ? ", kernel-managed" : "",
		 c->F->irq_generic ? ", generic vector rule: no layout row for this driver" : "");
	nt_buf_free(&txs);
	if (managed)
		s->flags |= NT_SF_CANNOT_CHANGE;
}

/* One affinity setting per queue. */
static void irq_put(struct ictx *c)
{
	uint32_t n;

	for (n = 0; n < c->nqueues; n++) {
		char arg[16];
		const struct nt_irq_fact *irq = nt_facts_irq(c->F, n);
		struct nt_setting *s;

		snprintf(arg, sizeof(arg), "%u", n);
		s = put(c, NT_K_IRQ_AFFINITY, arg, nt_v_cpus(&c->irq_cpus[n]), "irq/policy");
		if (irq) {
			irq_note(c, s, irq, n);
		} else if (c->F && c->F->driver && (!c->F->nirqs || !c->f->channels)) {
			/* no channel change will make the vector appear */
			LERR(c->L, mk(c, "irq/policy", false),
			     "queue %u of %s has no IRQ (driver %s: %s)", n, c->f->name, c->F->driver,
			     c->F->nirqs ? "it has fewer queue vectors than queues" :
			     "it has no per-queue interrupt vector to place");
			return;
		} else {
			set_note(s, "irq resolved at apply time (after channels)");
		}
	}
}

static void lower_irq(struct ictx *c)
{
	const struct nt_irq *q = c->f->irq;
	enum nt_irq_policy pol = q && q->policy ? *q->policy : NT_IRQ_NONE;
	struct nt_cpuset cands;

	if (pol == NT_IRQ_NONE)
		return;
	if (!c->nqueues_known) {
		LERR(c->L, mk(c, "irq/policy", false),
		     "cannot place IRQs of %s: its queue count is unknown (set channels, or plan "
		     "against the live host or a snapshot)", c->f->name);
		return;
	}
	if (c->nqueues > 4096) {
		LERR(c->L, mk(c, "irq/policy", false), "%s: more than 4096 queues", c->f->name);
		return;
	}
	if (!irq_candidates(c, pol, &cands))
		return;
	/* per queue, not a fixed 4096-entry (2 MiB) array zeroed per interface */
	c->irq_cpus = nt_xcalloc(c->nqueues ? c->nqueues : 1, sizeof(*c->irq_cpus));
	if (pol == NT_IRQ_EXPLICIT)
		irq_explicit(c);
	else if (!irq_spread(c, pol, &cands))
		return;
	c->irq_placed = true;
	irq_put(c);
}

static void lower_rps_xps(struct ictx *c)
{
	uint32_t n;

	if (c->f->rps && (c->f->rps->cpus || c->f->rps->flow_cnt) && !c->nqueues_known) {
		LERR(c->L, mk(c, "rps", true), "cannot set RPS on %s: its queue count is unknown",
		     c->f->name);
		return;
	}
	if (c->f->rps && c->f->rps->cpus) {
		struct nt_cpuset s;
		const char *err;

		if (!strcmp(c->f->rps->cpus, "none")) {
			nt_cpuset_clear(&s);
		} else if (!strcmp(c->f->rps->cpus, "numa-local")) {
			int node = nic_node(c);

			if (node < 0) {
				LERR(c->L, mk(c, "rps/cpus", false),
				     "the NUMA node of %s is unknown; rps.cpus numa-local needs it",
				     c->f->name);
				return;
			}
			node_cpus(c->L, node, &s);
			nt_cpuset_andnot(&s, &c->reserved);
		} else {
			nt_cpuset_parse(c->f->rps->cpus, &s, &err);
		}
		for (n = 0; n < c->nqueues; n++) {
			char arg[16];

			snprintf(arg, sizeof(arg), "%u", n);
			put(c, NT_K_RPS_CPUS, arg, nt_v_cpus(&s), "rps/cpus");
		}
	}
	if (c->f->rps && c->f->rps->flow_cnt) {
		uint32_t v = *c->f->rps->flow_cnt, p2 = 1;

		while (p2 < v)
			p2 <<= 1;
		if (!v)
			p2 = 0;
		for (n = 0; n < c->nqueues; n++) {
			char arg[16];
			struct nt_setting *s;

			snprintf(arg, sizeof(arg), "%u", n);
			s = put(c, NT_K_RPS_FLOW_CNT, arg, nt_v_u32(p2), "rps/flow_cnt");
			if (p2 != v)
				set_note(s, "%u rounded up to a power of two", v);
		}
	}
	if (c->f->xps && c->f->xps->cpus) {
		for (n = 0; n < c->nqueues; n++) {
			char arg[16];
			struct nt_cpuset s;
			const char *err;

			snprintf(arg, sizeof(arg), "%u", n);
			if (!strcmp(c->f->xps->cpus, "none"))
				nt_cpuset_clear(&s);
			else if (!strcmp(c->f->xps->cpus, "follow-irq")) {
				if (!c->irq_placed)
					return;
				s = c->irq_cpus[n];
			} else {
				nt_cpuset_parse(c->f->xps->cpus, &s, &err);
			}
			put(c, NT_K_XPS_CPUS, arg, nt_v_cpus(&s), "xps/cpus");
		}
	}
}

static void lower_mtu(struct ictx *c)
{
	const struct nt_iface *f = c->f;
	struct nt_setting *s;

	if (f->mtu) {
		put(c, NT_K_MTU, NULL, nt_v_u32(*f->mtu), "mtu");
		return;
	}
	if (f->tunnel) {
		const struct nt_setting *u = nt_state_get(c->L->desired, NT_K_MTU, f->tunnel->underlay, NULL);
		const struct nt_setting *uo = nt_state_get(c->L->observed, NT_K_MTU, f->tunnel->underlay, NULL);
		struct nt_overhead o;
		uint32_t umtu, fit;

		nt_tunnel_overhead(f->tunnel, &o);
		if (!u)
			u = uo;
		if (!u) {
			nt_warn(c->L->d, mk(c, "tunnel", true), "tunnel-mtu",
				"MTU of %s is not derived: the MTU of its underlay %s is neither in the "
				"profile nor observed", f->name, f->tunnel->underlay);
			return;
		}
		umtu = u->val.u;
		fit = nt_overhead_fit(&o, umtu);
		if (fit < nt_tunnel_min_mtu(f->tunnel)) {
			unsigned oh = fit ? umtu - fit : o.fixed + o.trailer;

			LERR(c->L, mk(c, "tunnel", true), "underlay %s mtu %u - %s overhead %u (%s) = %d "
			     "leaves tunnel %s below the %s minimum mtu of %u", f->tunnel->underlay, umtu,
			     o.k->label, oh, o.what, (int)umtu - (int)oh, f->name,
			     nt_tunnel_min_mtu(f->tunnel) > 68 ? "IPv6" : "IPv4",
			     nt_tunnel_min_mtu(f->tunnel));
			return;
		}
		/* the validator warned when the profile alone fixes the MTU */
		if (fit < 1280 && nt_tunnel_inner_unsaid(f->tunnel) &&
		    !c->tm->mtu[c->i])
			nt_warn(c->L->d, mk(c, "tunnel", true), "tunnel-mtu",
				"tunnel %s derives mtu %u, below 1280: Linux turns IPv6 off on it; say "
				"tunnel.inner: ipv4 if it carries IPv4 only", f->name, fit);
		s = put(c, NT_K_MTU, NULL, nt_v_u32(fit), "tunnel/underlay");
		set_note(s, "derived: %s mtu %u - %s overhead %u (%s)", f->tunnel->underlay,
			 umtu, o.k->label, umtu - fit, o.what);
	}
}

/* Checks an explicit tunnel MTU against the observed underlay MTU (the
 * validator could only check underlays whose MTU the profile sets). */
static void check_tunnel_fit(struct ictx *c)
{
	const struct nt_iface *f = c->f;
	const struct nt_setting *u, *t;
	struct nt_overhead o;
	unsigned oh;

	if (!f->tunnel || !f->mtu)
		return;
	u = nt_state_get(c->L->desired, NT_K_MTU, f->tunnel->underlay, NULL);
	if (!u)
		u = nt_state_get(c->L->observed, NT_K_MTU, f->tunnel->underlay, NULL);
	t = nt_state_get(c->L->desired, NT_K_MTU, f->name, NULL);
	if (!u || !t)
		return;
	nt_tunnel_overhead(f->tunnel, &o);
	oh = nt_overhead_at(&o, t->val.u);
	if (t->val.u + oh > u->val.u)
		LERR(c->L, mk(c, "mtu", false),
		     "tunnel %s mtu %u + %s overhead %u (%s) = %u exceeds underlay %s mtu %u; at most %u fits",
		     f->name, t->val.u, o.k->label, oh, o.what, t->val.u + oh,
		     f->tunnel->underlay, u->val.u, nt_overhead_fit(&o, u->val.u));
}

/* A tunnel the host has as a device of another kind: another tunnel kind
 * (the link kind rtnetlink reports in IFLA_INFO_KIND, or a snapshot's
 * "kind"), a NIC, a veth, a bridge ...  Userspace WireGuard (wireguard-go,
 * boringtun) runs on a tun device. */
static void check_tunnel_kind(struct ictx *c)
{
	const struct nt_iface *f = c->f;
	const struct nt_iface_facts *F = c->F;

	if (f->tunnel && F && nt_tunnel_link_is(f->tunnel->kind, F->kind) &&
	    nt_tunnel_link_outer(F->kind) >= 0 &&
	    (int)nt_tunnel_outer(f->tunnel) != nt_tunnel_link_outer(F->kind)) {
		LERR(c->L, mk(c, "tunnel", true),
		     "%s is a %s device on this host, whose outer header is %s; the profile says "
		     "outer: %s", f->name, F->kind,
		     nt_tunnel_link_outer(F->kind) == NT_OUTER_IPV4 ? "IPv4" : "IPv6",
		     nt_outer_strings[nt_tunnel_outer(f->tunnel)].str);
		return;
	}
	if (!f->tunnel || !F || !F->kind || !strcmp(F->kind, "virtual") ||
	    nt_tunnel_link_is(f->tunnel->kind, F->kind) ||
	    (f->tunnel->kind == NT_TUNNEL_WIREGUARD && !strcmp(F->kind, "tun")))
		return;
	if (!strcmp(F->kind, "physical"))
		LERR(c->L, mk(c, "tunnel/kind", false),
		     "%s is a NIC on this host (driver %s); the profile says it is a %s tunnel",
		     f->name, F->driver ? F->driver : "unknown", nt_tunnel_kind(f->tunnel->kind)->name);
	else
		LERR(c->L, mk(c, "tunnel/kind", false),
		     "%s is a %s device on this host; the profile says tunnel kind %s", f->name,
		     F->kind, nt_tunnel_kind(f->tunnel->kind)->name);
}

/* The observed driver of an interface: the bound driver, else the link kind
 * of a virtual device (veth, wireguard, tun). */
static const char *observed_driver(const struct nt_iface_facts *F)
{
	if (!F)
		return NULL;
	if (F->driver)
		return F->driver;
	if (F->kind && strcmp(F->kind, "physical") && strcmp(F->kind, "virtual"))
		return F->kind;
	return NULL;
}

/* A declared nic: must be the device the host has: same driver and, when
 * the table lists PCI ids and the device has one, one of them. */
static void check_declared_nic(struct ictx *c, const struct nt_caps *t)
{
	const struct nt_iface_facts *F = c->F;
	const char *drv = observed_driver(F);
	enum nt_caps_how how;
	const struct nt_caps *real;

	if (!t || !F || (!drv && !F->pci))
		return;
	if ((!drv || !strcmp(t->driver, drv)) &&
	    (!t->npci || !F->pci || nt_caps_has_pci(t, F->pci)))
		return;
	real = nt_caps_match(c->L->db, drv, F->pci, &how);
	{
		/* every PCI id of the table: the device may be any of them */
		struct nt_buf ids = {0};
		size_t k;

		for (k = 0; k < t->npci; k++)
			nt_buf_printf(&ids, "%s%s", k ? (k + 1 == t->npci ? " or " : ", ") : ", PCI ",
				      t->pci_ids[k]);
		LERR(c->L, mk(c, "nic", false),
		     "nic: %s (driver %s%s) contradicts %s as observed: %s%s%s%s; %s%s%s",
		     t->id, t->driver, ids.p ? ids.p : "",
		     c->f->name, drv ? "driver " : "", drv ? drv : "",
		     F->pci ? (drv ? ", PCI " : "PCI ") : "", F->pci ? F->pci : "",
		     real ? "the table that matches is '" : "no table matches this device",
		     real ? real->id : "", real ? "'" : "");
		nt_buf_free(&ids);
	}
}

static const struct nt_caps *caps_for(struct ictx *c)
{
	struct nt_lower *L = c->L;
	const struct nt_iface *f = c->f;
	const struct nt_iface_facts *F = c->F;
	const struct nt_caps *t = NULL;
	enum nt_caps_how how = NT_CAPS_NONE;
	const char *drv = observed_driver(F);

	if (f->nic && strcmp(f->nic, "auto")) {
		t = nt_caps_find(L->db, f->nic);
		check_declared_nic(c, t);
		return t;
	}
	if (F && (drv || F->pci))
		t = nt_caps_match(L->db, drv, F->pci, &how);
	else if (f->match)
		t = nt_caps_match(L->db, f->match->driver, f->match->pci, &how);
	if (how == NT_CAPS_FAMILY && F) {
		char *ids = nt_caps_driver_ids(L->db, drv);

		nt_warn(L->d, mk(c, f->nic ? "nic" : "name", false), "capability",
			"%s: no capability table for PCI id %s (driver %s; tables %s cover other "
			"devices); their limits are not borrowed, only observed maxima are checked",
			f->name, F->pci ? F->pci : "unknown", drv, ids);
		free(ids);
	} else if (f->nic && !t && F) {
		nt_warn(L->d, mk(c, "nic", false), "capability",
			"nic: auto: no capability table matches %s (driver %s, PCI %s); only "
			"observed maxima are checked", f->name, drv ? drv : "unknown",
			F->pci ? F->pci : "unknown");
	}
	return t;
}

/* host.numa as declared vs. as observed: a mismatch is an error naming both. */
static void check_numa(struct nt_lower *L, const struct nt_cpuset *reserved)
{
	const struct nt_profile *p = L->l->p;
	size_t k;

	(void)reserved;
	if (!p->host || !L->facts->topo_known)
		return;
	for (k = 0; k < p->host->numa_count; k++) {
		struct nt_cpuset s;
		const char *err;
		uint32_t node = p->host->numa[k].node;
		char path[64];

		if (!nt_cpuset_parse(p->host->numa[k].cpus, &s, &err))
			continue;
		snprintf(path, sizeof(path), "/host/numa/%zu/cpus", k);
		if (node >= 64 || !nt_cpuset_equal(&s, &L->facts->node_cpus[node])) {
			char *obs = node < 64 ? nt_cpuset_str(&L->facts->node_cpus[node]) : nt_xstrdup("");

			L->errs++;
			nt_error(L->d, nt_loaded_mark(L->l, path, false), "numa",
				 "host.numa declares node %u with CPUs %s, but the host has %s%s", node,
				 p->host->numa[k].cpus, *obs ? "CPUs " : "no such node", obs);
			free(obs);
		}
	}
}

/* Whether s is blank-separated integers (a vector sysctl such as
 * tcp_rmem), and how many. */
static bool int_fields(const char *s, unsigned *n)
{
	*n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			s++;
		if (!*s)
			return *n > 0;
		if (*s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
		if (*s && *s != ' ' && *s != '\t' && *s != '\n')
			return false;
		(*n)++;
	}
}

/*
 * A sysctl of the profile against the host: the live host's file exists
 * and can be written (facts of the live observation), and a vector of
 * integers gets as many fields as the kernel (or the snapshot) shows.
 * Otherwise the write or its read-back would fail only at apply.
 */
static void check_sysctl(struct nt_lower *L, const char *key, const char *want, struct nt_mark at)
{
	const struct nt_sysctl_fact *sf = nt_facts_sysctl(L->facts, key);
	const struct nt_setting *o = nt_state_get(L->observed, NT_K_SYSCTL, "sysctl", key);
	unsigned nh, nw;

	if (L->facts->netns && nt_sysctl_scope(key) == NT_SCOPE_HOST)
		return;		/* --netns refuses it, saying why */
	if (sf && !sf->exists) {
		LERR(L, at, "sysctl %s does not exist on this host%s%s%s%s%s%s", key,
		     L->facts->netns ? " (network namespace " : "",
		     L->facts->netns ? L->facts->netns : "", L->facts->netns ? ")" : "",
		     sf->suggest ? "; did you mean " : "", sf->suggest ? sf->suggest : "",
		     sf->suggest ? "?" : "");
		return;
	}
	if (sf && !sf->writable && !(o && nt_value_equal(&o->val, &(struct nt_value){
		.t = NT_V_STR, .s = (char *)want}))) {
		LERR(L, at, "sysctl %s is read-only on this host: it cannot be set to %s", key,
		     nt_esc(want));
		return;
	}
	if (o && o->val.t == NT_V_STR && o->val.s && int_fields(o->val.s, &nh) &&
	    int_fields(want, &nw) && nh != nw) {
		struct nt_buf shown = {0};

		nt_value_format(&o->val, &shown, false);
		LERR(L, at, "sysctl %s takes %u field%s (%s %s), the profile gives %u", key, nh,
		     nh == 1 ? "" : "s", L->facts->nsysctls ? "the kernel has" : "the snapshot has",
		     shown.p, nw);
		nt_buf_free(&shown);
	}
}

static void lower_sysctls(struct nt_lower *L)
{
	const struct nt_profile *p = L->l->p;
	size_t i;

	for (i = 0; i < p->sysctl_count; i++) {
		char *key = nt_sysctl_key_canon(p->sysctl[i].key);
		struct nt_buf path = {0};
		const char *c;

		/* a key spelled as a path is one segment: '/' is ~1 */
		nt_buf_puts(&path, "/sysctl/");
		for (c = p->sysctl[i].key; *c; c++)
			if (*c == '/' || *c == '~')
				nt_buf_puts(&path, *c == '/' ? "~1" : "~0");
			else
				nt_buf_putc(&path, *c);
		check_sysctl(L, key, p->sysctl[i].value, nt_loaded_mark(L->l, path.p, false));
		nt_state_set(L->desired, NT_K_SYSCTL, "sysctl", key,
			     nt_v_str(p->sysctl[i].value), nt_loaded_mark(L->l, path.p, false));
		nt_buf_free(&path);
		free(key);
	}
}

/* What irqbalance must leave alone: the strongest policy asked for, the
 * pinned IRQs, and where the first was asked for. */
struct irqban {
	int policy;	/* enum nt_irqbal, or -1 */
	struct nt_buf irqs;
	struct nt_mark src;
};

static void irqban_add(struct irqban *b, struct ictx *c)
{
	const struct nt_iface *f = c->f;
	int pol = f->irq->irqbalance ? (int)*f->irq->irqbalance : NT_IRQBAL_BAN;
	uint32_t n;

	if (pol == NT_IRQBAL_STOP || b->policy < 0 || b->policy == NT_IRQBAL_IGNORE)
		b->policy = pol;
	if (!b->src.file)
		b->src = mk(c, f->irq->irqbalance ? "irq/irqbalance" : "irq/policy", false);
	for (n = 0; n < c->nqueues; n++) {
		const struct nt_irq_fact *irq = nt_facts_irq(c->F, n);

		size_t ntx, t;
		const struct nt_irq_fact *tx = nt_facts_tx_irqs(c->F, n, &ntx);

		if (irq && !c->F->vmbus)
			nt_buf_printf(&b->irqs, "%s%u", b->irqs.n ? "," : "", irq->irq);
		for (t = 0; irq && !c->F->vmbus && t < ntx; t++)
			nt_buf_printf(&b->irqs, ",%u", tx[t].irq);
	}
}

static void lower_irqbalance(struct nt_lower *L, const struct irqban *b)
{
	if (b->policy < 0 || L->facts->irqbalance == 0)
		return;
	if (b->policy == NT_IRQBAL_BAN && b->irqs.n) {
		struct nt_setting *s = nt_state_set(L->desired, NT_K_IRQBALANCE_BAN, "irqbalance",
						    NULL, nt_v_str(b->irqs.p), b->src);

		set_note(s, "keeps irqbalance from moving the pinned IRQs (--banirq, restarts irqbalance)");
	} else if (b->policy == NT_IRQBAL_STOP) {
		nt_state_set(L->desired, NT_K_IRQBALANCE_SERVICE, "irqbalance", NULL,
			     nt_v_str("stopped"), b->src);
	} else if (b->policy == NT_IRQBAL_IGNORE && L->facts->irqbalance > 0) {
		nt_warn(L->d, b->src, "irqbalance",
			"irqbalance is running and irqbalance: ignore was chosen; it may move the "
			"pinned IRQs again");
	}
}

/* Interface i's node of the profile's tree, or NULL. */
static const struct nt_ynode *interface_node(const struct nt_lower *L, size_t i)
{
	char path[64];

	snprintf(path, sizeof(path), "/interfaces/%zu", i);
	return L->l->tree ? nt_yget(L->l->tree, path, false) : NULL;
}

/* Interface i, unless the host does not have it; its pinned IRQs into ban. */
static void lower_iface(struct nt_lower *L, size_t i, const struct nt_cpuset *reserved,
			struct nt_tunnel_map *tm, bool ifaces_known, struct irqban *ban)
{
	const struct nt_iface *f = &L->l->p->interfaces[i];
	struct ictx c;

	memset(&c, 0, sizeof(c));
	c.L = L;
	c.f = f;
	c.i = i;
	c.node = interface_node(L, i);
	c.F = nt_facts_iface(L->facts, f->name);
	c.reserved = *reserved;
	c.tm = tm;
	if (L->facts->known && !c.F && ifaces_known &&
	    (L->skip_missing || (L->only && strcmp(f->name, L->only)))) {
		nt_warn(L->d, mk(&c, "name", false), "plan",
			 "interface %s does not exist on this host yet; its settings "
			 "are skipped until it appears", f->name);
		return;
	}
	if (L->facts->known && !c.F && ifaces_known) {
		L->errs++;
		nt_error(L->d, mk(&c, "name", false), "plan",
			 "interface %s does not exist on this host%s", f->name,
			 f->tunnel ? " (bring the tunnel up first)" : "");
		return;
	}
	c.caps = caps_for(&c);
	check_chosen_caps(&c);
	lower_mtu(&c);
	check_tunnel_fit(&c);
	check_tunnel_kind(&c);
	lower_offloads(&c);
	lower_channels(&c);
	lower_rings(&c);
	lower_coalesce(&c);
	lower_rss(&c);
	lower_irq(&c);
	lower_rps_xps(&c);
	lower_rows(&c);
	if (c.irq_placed && f->irq)
		irqban_add(ban, &c);
	free(c.irq_cpus);
}

static void lower_processes(struct nt_lower *L, const struct nt_cpuset *reserved)
{
	const struct nt_profile *p = L->l->p;
	size_t i;

	for (i = 0; i < p->processes_count; i++) {
		const struct nt_process *pr = &p->processes[i];
		const char *who = pr->match.systemd_unit ? pr->match.systemd_unit :
				  pr->match.comm ? pr->match.comm : pr->match.pidfile;
		char *obj = nt_xasprintf("process %s", who);
		char path[64];
		struct nt_cpuset s;
		const char *err;

		snprintf(path, sizeof(path), "/processes/%zu/cpus", i);
		if (!strncmp(pr->cpus, "numa-local-of ", 14)) {
			const struct nt_iface_facts *F = nt_facts_iface(L->facts, pr->cpus + 14);

			if (!F || F->numa_node < 0) {
				L->errs++;
				nt_error(L->d, nt_loaded_mark(L->l, path, false), "plan",
					 "the NUMA node of %s is unknown", pr->cpus + 14);
				free(obj);
				continue;
			}
			node_cpus(L, F->numa_node, &s);
			nt_cpuset_andnot(&s, reserved);
		} else {
			nt_cpuset_parse(pr->cpus, &s, &err);
		}
		nt_state_set(L->desired, NT_K_PROCESS_CPUS, obj, NULL, nt_v_cpus(&s),
			     nt_loaded_mark(L->l, path, false));
		free(obj);
	}
}

/* The same name rules as snapshots, manifests and journals. */
static void check_setting_names(struct nt_lower *L)
{
	size_t i;

	for (i = 0; i < L->desired->n; i++) {
		const struct nt_setting *st = &L->desired->v[i];
		const char *part, *why = nt_setting_problem(st->kind, st->object, st->arg, &part);

		if (why)
			LERR(L, st->src, "%s %s \"%s\" %s", nt_kinds[st->kind].name, part,
			     *part == 'o' ? st->object : st->arg ? st->arg : "", why);
	}
}

size_t nt_lower_linux(struct nt_lower *L)
{
	const struct nt_profile *p = L->l->p;
	struct nt_cpuset reserved;
	size_t i;
	struct irqban ban = {-1, {0}, {0}};
	struct nt_tunnel_map tm;
	bool ifaces_known, *in;

	/* facts that know the interfaces (the live host, a snapshot that lists
	 * them) say that one not among them does not exist, even when none of
	 * the profile's does; a snapshot without the list still counts as
	 * knowing them once it shows anything of the host */
	ifaces_known = L->facts->ifaces_known || L->observed->n || L->facts->nifs;
	L->errs = 0;
	nt_cpuset_clear(&reserved);
	if (p->host && p->host->reserved_cpus) {
		const char *err;

		nt_cpuset_parse(p->host->reserved_cpus, &reserved, &err);
	}
	in = nt_xcalloc(p->interfaces_count + 1, sizeof(*in));
	if (L->narrow)
		nt_tunnel_chain(p, L->only, in);
	else
		memset(in, 1, p->interfaces_count * sizeof(*in));
	check_numa(L, &reserved);
	if (p->sysctl && !L->narrow)
		lower_sysctls(L);
	/* underlays before tunnels, so tunnels can derive their MTU; a tunnel
	 * over a tunnel after the one it rides on */
	nt_tunnel_map(p, &tm);
	for (unsigned pass = 0; pass <= tm.max_depth; pass++)
		for (i = 0; i < p->interfaces_count; i++)
			if (tm.depth[i] == pass && in[i])
				lower_iface(L, i, &reserved, &tm, ifaces_known, &ban);
	nt_tunnel_map_free(&tm);
	free(in);
	if (!L->narrow) {
		lower_irqbalance(L, &ban);
		lower_processes(L, &reserved);
	}
	nt_buf_free(&ban.irqs);
	check_setting_names(L);
	return L->errs;
}
