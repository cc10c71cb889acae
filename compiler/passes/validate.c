/* SPDX-License-Identifier: MIT */
/* Semantic rules: capability limits, tunnel MTU, NUMA layout, IRQ policy,
 * target-specific keys, names that cannot be used safely. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../base/strindex.h"
#include "../model/cpuset.h"
#include "../language/profile.h"
#include "../language/schema.h"
#include "../model/tunnel.h"
#include "validate.h"

struct v {
	const struct nt_loaded *l;
	const struct nt_profile *p;
	const struct nt_capsdb *db;
	struct nt_diags *d;
	size_t errors;
	bool windows;
	struct nt_cpuset all_numa, reserved;
	bool have_numa;
	bool caps_only;	/* plan time: only the checks against a table */
	struct nt_tunnel_map tm;	/* chains of underlays, resolved once */
	struct nt_strindex names;	/* interfaces[].name, for the duplicate check */
};

static struct nt_mark at(struct v *v, bool key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static struct nt_mark at(struct v *v, bool key, const char *fmt, ...)
{
	struct nt_buf b = {0};
	struct nt_mark m;
	va_list ap;

	va_start(ap, fmt);
	nt_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	m = nt_loaded_mark(v->l, b.p, key);
	nt_buf_free(&b);
	return m;
}

/* A free-form key (sysctl name, feature, advanced property) as one path
 * segment for the mark index: '~' -> "~0", '/' -> "~1". */
static char *seg(const char *key)
{
	struct nt_buf b = {0};

	for (; *key; key++) {
		if (*key == '~')
			nt_buf_puts(&b, "~0");
		else if (*key == '/')
			nt_buf_puts(&b, "~1");
		else
			nt_buf_putc(&b, *key);
	}
	return b.p ? nt_buf_take(&b) : nt_xstrdup("");
}

#define E(v, m, rule, ...) do { (v)->errors++; nt_error((v)->d, m, rule, __VA_ARGS__); } while (0)
#define W(v, m, rule, ...) nt_warn((v)->d, m, rule, __VA_ARGS__)


static const struct nt_iface *find_iface(const struct nt_profile *p, const char *name, size_t *idx)
{
	size_t i;

	for (i = 0; i < p->interfaces_count; i++)
		if (p->interfaces[i].name && !strcmp(p->interfaces[i].name, name)) {
			if (idx)
				*idx = i;
			return &p->interfaces[i];
		}
	return NULL;
}

static const char *suggest_iface(const struct nt_profile *p, const char *name)
{
	const char *c[1024];
	size_t i, n = 0;

	for (i = 0; i < p->interfaces_count && n < 1024; i++)
		if (p->interfaces[i].name)
			c[n++] = p->interfaces[i].name;
	return nt_suggest(name, c, n);
}

/* Parses a cpulist value; reports a located error and returns false. */
static bool cpulist(struct v *v, const char *s, struct nt_cpuset *out, const char *path)
{
	const char *err;

	if (nt_cpuset_parse(s, out, &err))
		return true;
	E(v, at(v, false, "%s", path), "cpulist", "'%s' is not a CPU list: %s", s, err);
	return false;
}

/* rps.cpus / xps.cpus: a CPU list or one of two words. */
static void cpulist_or(struct v *v, const char *s, const char *path, const char *what,
		       const char *w1, const char *w2)
{
	struct nt_cpuset c;
	const char *err;

	if (!strcmp(s, w1) || !strcmp(s, w2) || nt_cpuset_parse(s, &c, &err))
		return;
	E(v, at(v, false, "%s", path), "cpulist", "%s '%s' is not %s, %s or a CPU list (%s)",
	  what, s, w1, w2, err);
}

/* An offload toggle from the profile, with its portable name. */
struct toggle_ref {
	const char *name;
	const struct nt_toggle *t;
	int cap;		/* enum nt_off, or -1 */
	bool windows_only, linux_only, per_family_ok;
};

static size_t toggles(const struct nt_offloads *o, struct toggle_ref *r)
{
	size_t n = 0;

#define BOTH false, false
#define LINUX false, true
#define WINDOWS true, false
#define NT_OFFLOAD(key, cap, where, pf, ...) \
	r[n++] = (struct toggle_ref){#key, o->key, cap, where, pf};
#include "../language/offloads.def"
#undef NT_OFFLOAD
#undef BOTH
#undef LINUX
#undef WINDOWS
	return n;
}

/* Whether a toggle ends up on for any family (all, ipv4 or ipv6). */
static bool toggle_any_on(const struct nt_toggle *t)
{
	return t && ((t->all && *t->all) || (t->ipv4 && *t->ipv4) || (t->ipv6 && *t->ipv6));
}

static bool toggle_any_off(const struct nt_toggle *t)
{
	return t && ((t->all && !*t->all) || (t->ipv4 && !*t->ipv4) || (t->ipv6 && !*t->ipv6));
}

/* A toggle that cannot be written on this target or in this form; true when reported. */
static bool offload_form_refused(struct v *v, size_t i, const struct toggle_ref *r)
{
	const struct nt_toggle *t = r->t;

	if (!t->all && !t->ipv4 && !t->ipv6) {
		if (!v->caps_only)
		E(v, at(v, false, "/interfaces/%zu/offloads/%s", i, r->name), "offload",
		  "offloads.%s sets nothing; write on, off or {ipv4: on|off, ipv6: on|off}",
		  r->name);
		return true;
	}
	if (!v->windows && r->windows_only) {
		if (!v->caps_only)
		E(v, at(v, true, "/interfaces/%zu/offloads/%s", i, r->name), "target",
		  "offloads.%s is a Windows setting (%s); this profile targets linux%s",
		  r->name, !strcmp(r->name, "rsc") ? "Set-NetAdapterRsc" : "Get-NetAdapterUro",
		  !strcmp(r->name, "rsc") ? "; on Linux use gro or gro_hw" : "");
		return true;
	}
	if (v->windows && r->linux_only) {
		if (!v->caps_only)
		E(v, at(v, true, "/interfaces/%zu/offloads/%s", i, r->name), "target",
		  "offloads.%s is a Linux (ethtool) setting; this profile targets windows%s",
		  r->name, !strcmp(r->name, "gro") || !strcmp(r->name, "lro") ?
		  "; on Windows receive coalescing is rsc" : "");
		return true;
	}
	if ((t->ipv4 || t->ipv6) && !(v->windows && r->per_family_ok)) {
		if (!v->caps_only)
		E(v, at(v, false, "/interfaces/%zu/offloads/%s", i, r->name), "offload",
		  "offloads.%s: per-family {ipv4, ipv6} toggles exist only for Windows "
		  "checksum, lso/tso, uso and rsc; write on or off", r->name);
		return true;
	}
	return false;
}

/* A Windows offload the table says the adapter lacks. */
static void offload_caps_windows(struct v *v, size_t i, const struct toggle_ref *r,
				 const struct nt_caps *caps)
{
	enum nt_win_state w = NT_WIN_UNKNOWN;

	if (!strcmp(r->name, "uso"))
		w = caps->win_uso;
	else if (!strcmp(r->name, "rsc"))
		w = caps->win_rsc;
	else if (!strcmp(r->name, "uro"))
		w = caps->win_hw_uro;
	if (w == NT_WIN_UNSUPPORTED && toggle_any_on(r->t))
		E(v, at(v, false, "/interfaces/%zu/offloads/%s", i, r->name), "capability",
		  "%s has no %s on Windows (%s)", caps->id,
		  !strcmp(r->name, "uro") ? "hardware URO" : r->name,
		  caps->src_windows ? caps->src_windows : caps->id);
}

/* A Linux offload that is absent or fixed the other way in the table. */
static void offload_caps_linux(struct v *v, size_t i, const struct toggle_ref *r,
			       const struct nt_caps *caps)
{
	const struct nt_toggle *t = r->t;

	if (r->cap < 0)
		return;
	switch (caps->off[r->cap]) {
	case NT_CAP_ABSENT:
		if (toggle_any_on(t))
			E(v, at(v, false, "/interfaces/%zu/offloads/%s", i, r->name), "capability",
			  "%s (%s) has no %s; it cannot be turned on", caps->id,
			  caps->driver, r->name);
		break;
	case NT_CAP_FIXED_ON:
		if (toggle_any_off(t))
			E(v, at(v, false, "/interfaces/%zu/offloads/%s", i, r->name), "capability",
			  "%s is fixed on for %s (%s); it cannot be turned off", r->name,
			  caps->id, caps->driver);
		break;
	case NT_CAP_FIXED_OFF:
		if (toggle_any_on(t))
			E(v, at(v, false, "/interfaces/%zu/offloads/%s", i, r->name), "capability",
			  "%s is fixed off for %s (%s); it cannot be turned on", r->name,
			  caps->id, caps->driver);
		break;
	default:
		break;
	}
}

/* Explicit contradictions the kernel would silently undo
 * (net/core/dev.c netdev_fix_features). */
static void offload_dependencies(struct v *v, size_t i, const struct nt_offloads *o)
{
	const struct nt_toggle *txc = o->tx_checksum ? o->tx_checksum : o->checksum;
	const struct nt_toggle *rxc = o->rx_checksum ? o->rx_checksum : o->checksum;
	const struct nt_toggle *tso = o->tso ? o->tso : o->lso;

	if (toggle_any_on(tso) && (toggle_any_off(o->sg) || toggle_any_off(txc)))
		E(v, at(v, false, "/interfaces/%zu/offloads/%s", i, o->tso ? "tso" : "lso"),
		  "dependency", "tso needs sg and tx checksum on; with %s off the kernel turns tso off",
		  toggle_any_off(o->sg) ? "sg" : "tx checksum");
	if (toggle_any_on(o->uso) && toggle_any_off(txc))
		E(v, at(v, false, "/interfaces/%zu/offloads/uso", i), "dependency",
		  "uso (tx-udp-segmentation) needs tx checksum on; with it off the kernel turns uso off");
	if (toggle_any_on(o->gro_hw) && toggle_any_off(rxc))
		E(v, at(v, false, "/interfaces/%zu/offloads/gro_hw", i), "dependency",
		  "gro_hw needs rx checksum on; with it off the kernel turns gro_hw off");
	if (toggle_any_on(o->gro_hw) && toggle_any_on(o->lro))
		W(v, at(v, false, "/interfaces/%zu/offloads/lro", i), "dependency",
		  "gro_hw and lro are both on; the kernel keeps gro_hw and turns lro off");
}

static void check_offloads(struct v *v, const struct nt_iface *f, size_t i,
			   const struct nt_caps *caps)
{
	/* struct nt_offloads is one toggle pointer per portable name */
	struct toggle_ref r[sizeof(struct nt_offloads) / sizeof(struct nt_toggle *)];
	size_t n, k;
	const struct nt_offloads *o = f->offloads;

	if (!o)
		return;
	n = toggles(o, r);
	for (k = 0; k < n; k++) {
		if (!r[k].t || offload_form_refused(v, i, &r[k]) || !caps)
			continue;
		if (v->windows)
			offload_caps_windows(v, i, &r[k], caps);
		else
			offload_caps_linux(v, i, &r[k], caps);
	}
	if (v->caps_only)
		return;
	if (o->tso && o->lso)
		E(v, at(v, true, "/interfaces/%zu/offloads/lso", i), "offload",
		  "tso and lso name the same offload; set only one");
	if (v->windows)
		return;
	offload_dependencies(v, i, o);
}

static void caps_channels(struct v *v, const struct nt_iface *f, size_t i, const struct nt_caps *c)
{
	uint32_t *vals[NT_CH__COUNT] = {f->channels->combined, f->channels->rx,
					f->channels->tx, f->channels->other};
	unsigned k;

	for (k = 0; k < NT_CH__COUNT; k++) {
		if (!vals[k])
			continue;
		if (!c->chan_kind[k]) {
			struct nt_buf kinds = {0};
			unsigned j;

			for (j = 0; j < NT_CH__COUNT; j++)
				if (c->chan_kind[j])
					nt_buf_printf(&kinds, "%s%s", kinds.n ? ", " : "",
						      nt_chan_names[j]);
			E(v, at(v, true, "/interfaces/%zu/channels/%s", i, nt_chan_names[k]),
			  "capability", "%s (%s) has no %s channels; it has %s", c->id,
			  c->driver, nt_chan_names[k], kinds.n ? kinds.p : "no channel settings");
			nt_buf_free(&kinds);
		} else if (c->chan_settable == NT_TRI_NO) {
			E(v, at(v, false, "/interfaces/%zu/channels/%s", i, nt_chan_names[k]),
			  "capability", "channels.%s: %s (%s) channel counts cannot be changed (%s)",
			  nt_chan_names[k], c->id, c->driver, c->src_channels);
		} else if (c->chan_max[k].known && *vals[k] > c->chan_max[k].v) {
			E(v, at(v, false, "/interfaces/%zu/channels/%s", i, nt_chan_names[k]),
			  "capability", "channels.%s = %u exceeds the %s maximum of %u (%s)",
			  nt_chan_names[k], *vals[k], c->id, c->chan_max[k].v, c->src_channels);
		}
	}
}

/* One ring size with its table limits. */
struct ring_ref {
	const char *n;
	uint32_t *val;
	struct nt_num max, min;
};

/* rings.rx against a maximum that depends on aggregation rings (and so on
 * gro_hw, lro and the MTU); sets the maximum that applies. True when reported. */
static bool ring_rx_no_agg(struct v *v, const struct nt_iface *f, size_t i, const struct nt_caps *c,
			   struct ring_ref *r)
{
	char why[256];
	bool mtu_unset;
	struct nt_num m = nt_caps_rx_max(c, f, why, sizeof(why), &mtu_unset);

	if (*r->val > m.v && *r->val <= c->ring_rx_max_no_agg.v) {
		E(v, at(v, false, "/interfaces/%zu/rings/rx", i), "capability",
		  "rings.rx = %u exceeds the %s maximum of %u while %s uses "
		  "aggregation rings: %s. With offloads.gro_hw and offloads.lro "
		  "off and an mtu of at most %u the maximum is %u (%s)",
		  *r->val, c->id, m.v, c->driver, why, c->no_agg_mtu_max.v,
		  c->ring_rx_max_no_agg.v, c->src_rings);
		return true;
	}
	if (*r->val > c->ring_rx_max.v && *r->val <= m.v && mtu_unset)
		W(v, at(v, false, "/interfaces/%zu/rings/rx", i), "capability",
		  "rings.rx = %u is above %u, which %s allows only without "
		  "aggregation rings: the profile sets no mtu, so the host's MTU "
		  "must be at most %u (%s)", *r->val, c->ring_rx_max.v,
		  c->driver, c->no_agg_mtu_max.v, c->src_rings);
	r->max = *r->val > c->ring_rx_max_no_agg.v ? c->ring_rx_max_no_agg : m;
	return false;
}

/* A ring size that is not a power of two on a driver that wants one. */
static void ring_pow2(struct v *v, size_t i, const struct nt_caps *c, const struct ring_ref *r)
{
	uint32_t lo = nt_pow2_down(*r->val), hi = nt_pow2_up(*r->val);
	bool hi_ok = hi && !(r->max.known && hi > r->max.v);
	bool lo_ok = !(r->min.known && lo < r->min.v);
	char use[64];

	if (hi_ok && lo_ok)
		snprintf(use, sizeof(use), "use %u or %u", lo, hi);
	else
		snprintf(use, sizeof(use), "use %u", hi_ok ? hi : lo);
	if (c->ring_pow2 == NT_POW2_DOWN)
		E(v, at(v, false, "/interfaces/%zu/rings/%s", i, r->n),
		  "capability", "rings.%s = %u: %s rounds ring sizes down to a "
		  "power of two, so %u would become %u; %s (%s)", r->n,
		  *r->val, c->driver, *r->val, lo, use, c->src_rings);
	else if (c->ring_pow2 == NT_POW2_REFUSED)
		E(v, at(v, false, "/interfaces/%zu/rings/%s", i, r->n),
		  "capability", "rings.%s = %u: %s refuses ring sizes that are not "
		  "a power of two; %s (%s)", r->n, *r->val, c->driver, use,
		  c->src_rings);
	else if (!hi_ok)
		E(v, at(v, false, "/interfaces/%zu/rings/%s", i, r->n),
		  "capability", "rings.%s = %u: %s rounds ring sizes up to a power "
		  "of two, and %u is above the %s maximum; use %u (%s)", r->n,
		  *r->val, c->driver, hi, c->id, lo, c->src_rings);
	else
		W(v, at(v, false, "/interfaces/%zu/rings/%s", i, r->n),
		  "rounding", "rings.%s = %u is not a power of two; %s rounds it "
		  "up, so the plan uses %u (%s)", r->n, *r->val, c->driver, hi,
		  c->src_rings);
}

/* Ring k (0 rx, 1 tx, then rx_mini, rx_jumbo) against the table. */
static void caps_ring(struct v *v, const struct nt_iface *f, size_t i, const struct nt_caps *c,
		      unsigned k, struct ring_ref *r)
{
	if (c->rings_settable == NT_TRI_NO && !(r->max.known && *r->val == r->max.v)) {
		E(v, at(v, true, "/interfaces/%zu/rings/%s", i, r->n), "capability",
		  "rings.%s: %s (%s) ring sizes cannot be changed (%s)", r->n, c->id,
		  c->driver, c->src_rings);
		return;
	}
	if (k == 0 && c->ring_rx_max_no_agg.known && ring_rx_no_agg(v, f, i, c, r))
		return;
	if (r->max.known && *r->val > r->max.v)
		E(v, at(v, false, "/interfaces/%zu/rings/%s", i, r->n), "capability",
		  "rings.%s = %u exceeds the %s maximum of %u%s (%s)", r->n, *r->val,
		  c->id, r->max.v, k == 0 && c->ring_rx_max_no_agg.known ?
		  " even without aggregation rings" : "", c->src_rings);
	else if (r->min.known && *r->val < r->min.v)
		E(v, at(v, false, "/interfaces/%zu/rings/%s", i, r->n), "capability",
		  "rings.%s = %u is below the %s minimum of %u (%s)", r->n, *r->val,
		  c->id, r->min.v, c->src_rings);
	else if (k < 2 && c->ring_pow2 != NT_POW2_NONE && *r->val &&
		 nt_pow2_down(*r->val) != *r->val)
		ring_pow2(v, i, c, r);
	else if (c->ring_step.known && c->ring_step.v > 1 && *r->val % c->ring_step.v)
		W(v, at(v, false, "/interfaces/%zu/rings/%s", i, r->n), "rounding",
		  "rings.%s = %u is not a multiple of %u; %s rounds it, so the plan uses %u",
		  r->n, *r->val, c->ring_step.v, c->driver,
		  (*r->val + c->ring_step.v - 1) / c->ring_step.v * c->ring_step.v);
}

static void caps_rings(struct v *v, const struct nt_iface *f, size_t i, const struct nt_caps *c)
{
	struct ring_ref r[] = {
		{"rx", f->rings->rx, c->ring_rx_max, c->ring_rx_min},
		{"tx", f->rings->tx, c->ring_tx_max, c->ring_tx_min},
		{"rx_mini", f->rings->rx_mini, {false, 0}, {false, 0}},
		{"rx_jumbo", f->rings->rx_jumbo, {false, 0}, {false, 0}},
	};
	unsigned k;

	for (k = 0; k < sizeof(r) / sizeof(r[0]); k++)
		if (r[k].val)
			caps_ring(v, f, i, c, k, &r[k]);
}

static void caps_rss_key(struct v *v, const struct nt_iface *f, size_t i, const struct nt_caps *c)
{
	unsigned char key[NT_RSS_KEY_MAX];
	bool per_host;
	int n = nt_parse_rss_key(f->rss->key, key, sizeof(key), &per_host);

	if (c->rss_key_bytes.known && !c->rss_key_bytes.v)
		E(v, at(v, false, "/interfaces/%zu/rss/key", i), "capability",
		  "%s has no RSS key (driver %s: the %s table's key size is 0); remove "
		  "rss.key (%s)", f->name ? f->name : "this interface", c->driver, c->id,
		  c->src_rss ? c->src_rss : "no source");
	else if (c->key_settable == NT_TRI_NO)
		E(v, at(v, false, "/interfaces/%zu/rss/key", i), "capability",
		  "%s (%s) does not accept an RSS key", c->id, c->driver);
	else if (!per_host && n > 0 && c->rss_key_bytes.known &&
		 (unsigned)n != c->rss_key_bytes.v)
		E(v, at(v, false, "/interfaces/%zu/rss/key", i), "capability",
		  "RSS key is %d bytes; %s takes exactly %u (%s)", n, c->id,
		  c->rss_key_bytes.v, c->src_rss);
}

static void caps_rss(struct v *v, const struct nt_iface *f, size_t i, const struct nt_caps *c)
{
	unsigned k;

	if (c->rss_indir_size.known && !c->rss_indir_size.v) {
		E(v, at(v, true, "/interfaces/%zu/rss", i), "capability",
		  "%s (%s) has no RSS: %s has no RSS key or indirection table to set", c->id,
		  c->driver, f->name ? f->name : "this interface");
		return;
	}
	if (f->rss->key)
		caps_rss_key(v, f, i, c);
	if (f->rss->hash && c->hash_known && !(c->hash_mask & (1u << *f->rss->hash))) {
		struct nt_buf hs = {0};

		for (k = 0; k <= NT_HASH_CRC32; k++)
			if (c->hash_mask & (1u << k))
				nt_buf_printf(&hs, "%s%s", hs.n ? ", " : "",
					      nt_hash_strings[k].str);
		E(v, at(v, false, "/interfaces/%zu/rss/hash", i), "capability",
		  "%s (%s) does not support the %s hash function; it has %s", c->id,
		  c->driver, nt_hash_strings[*f->rss->hash].str, hs.n ? hs.p : "none");
		nt_buf_free(&hs);
	}
	if (f->rss->queues && c->rss_indir_size.known && *f->rss->queues > c->rss_indir_size.v)
		E(v, at(v, false, "/interfaces/%zu/rss/queues", i), "capability",
		  "rss.queues = %u cannot fit the %u-entry indirection table of %s",
		  *f->rss->queues, c->rss_indir_size.v, c->id);
}

static void check_caps(struct v *v, const struct nt_iface *f, size_t i, const struct nt_caps *c)
{
	unsigned k;

	if (f->channels)
		caps_channels(v, f, i, c);
	if (f->rings)
		caps_rings(v, f, i, c);
	if (f->coalesce) {
		struct nt_caps_issue is[NT_CO__COUNT];
		size_t n = nt_caps_coalesce_issues(c, f, is, NT_CO__COUNT);

		for (k = 0; k < n; k++)
			E(v, at(v, false, "/interfaces/%zu/coalesce/%s", i, is[k].key), "capability",
			  "%s", is[k].msg);
	}
	if (f->rss && f->rss->hash && *f->rss->hash == NT_HASH_XOR && c->xor_max_channels.known &&
	    f->channels && f->channels->combined &&
	    *f->channels->combined > c->xor_max_channels.v)
		E(v, at(v, false, "/interfaces/%zu/rss/hash", i), "capability",
		  "rss.hash xor allows at most %u channels on %s; channels.combined is %u (%s)",
		  c->xor_max_channels.v, c->id, *f->channels->combined, c->src_rss);
	if (f->rss && !v->windows)
		caps_rss(v, f, i, c);
}

size_t nt_validate_chosen_caps(const struct nt_loaded *l, struct nt_diags *d, size_t i,
			       const struct nt_caps *c, bool offloads)
{
	struct v v;
	struct nt_iface f;

	memset(&v, 0, sizeof(v));
	v.l = l;
	v.p = l->p;
	v.d = d;
	f = l->p->interfaces[i];
	f.coalesce = NULL;	/* the planner checks coalescing itself */
	v.caps_only = true;
	if (offloads)
		check_offloads(&v, &f, i, c);
	check_caps(&v, &f, i, c);
	return v.errors;
}

/* Word w (0: first, 1: second) of a kind's interface key ("interfaces[].rss.flow_hash"
 * -> "rss", "flow_hash"); false when the key has none. */
static bool key_word(const char *key, int w, char *out, size_t n)
{
	size_t len;

	if (strncmp(key, "interfaces[].", 13))
		return false;
	key += 13;
	if (w) {
		key += strcspn(key, ".; {:");
		if (*key != '.')
			return false;
		key++;
	}
	len = strcspn(key, ".; {:");
	if (!len || len >= n)
		return false;
	memcpy(out, key, len);
	out[len] = '\0';
	return true;
}

/* Calls each(key) for every interface key of the kinds of one target ("; "
 * between keys); stops when each returns true. */
static bool each_key(bool windows, bool (*each)(const char *key, void *ctx), void *ctx)
{
	size_t k;

	for (k = 0; k < NT_K__COUNT; k++) {
		const char *p = nt_kinds[k].keys;

		if (!p || !!(nt_kinds[k].flags & NT_KF_WINDOWS) != windows)
			continue;
		while (*p) {
			char one[128];
			size_t n = strcspn(p, ";");

			snprintf(one, sizeof(one), "%.*s", (int)n, p);
			if (each(one, ctx))
				return true;
			p += n;
			p += strspn(p, "; ");
		}
	}
	return false;
}

struct key_match {
	const char *w1, *w2;		/* w2 NULL: the first word alone */
	char *names;			/* where the Windows key names its second words */
};

/* Whether a Windows kind's key covers (w1, w2): "rss.{enabled,...,queues}" covers rss.queues */
static bool win_covers(const char *key, void *ctx)
{
	struct key_match *m = ctx;
	char w[64];
	const char *br;

	if (!key_word(key, 0, w, sizeof(w)) || strcmp(w, m->w1))
		return false;
	if (!m->w2)
		return true;
	br = strstr(key, ".{");
	if (br && !m->names)
		m->names = strndup(br + 2, strcspn(br + 2, "}"));
	if (key_word(key, 1, w, sizeof(w)) && !strcmp(w, m->w2))
		return true;
	if (br) {
		const char *p = br + 2;

		while (*p && *p != '}') {
			size_t n = strcspn(p, ",}");

			if (n == strlen(m->w2) && !strncmp(p, m->w2, n))
				return true;
			p += n;
			p += *p == ',';
		}
	}
	return false;
}

struct target_ctx {
	struct v *v;
	size_t i;
	struct nt_buf seen;		/* " w1 w1.w2 " already refused */
};

/* A key of a Linux kind the profile sets on a Windows target, unless a
 * Windows kind's key covers it: the first word ("txqueuelen") when no
 * Windows key shares it, else the second ("rss.flow_hash"). */
static bool refuse_linux_key(const char *key, void *ctx)
{
	struct target_ctx *t = ctx;
	struct key_match m = {0};
	char w1[64], w2[64], path[200], tag[140];

	if (!key_word(key, 0, w1, sizeof(w1)))
		return false;
	m.w1 = w1;
	if (each_key(true, win_covers, &m)) {
		m.w2 = w2;
		if (!key_word(key, 1, w2, sizeof(w2)) || each_key(true, win_covers, &m)) {
			free(m.names);
			return false;
		}
		snprintf(path, sizeof(path), "/interfaces/%zu/%s/%s", t->i, w1, w2);
		snprintf(tag, sizeof(tag), " %s.%s ", w1, w2);
	} else {
		snprintf(path, sizeof(path), "/interfaces/%zu/%s", t->i, w1);
		snprintf(tag, sizeof(tag), " %s ", w1);
	}
	if (!nt_yget(t->v->l->tree, path, false) || (t->seen.p && strstr(t->seen.p, tag))) {
		free(m.names);
		return false;
	}
	nt_buf_puts(&t->seen, tag);
	if (!m.w2) {
		E(t->v, at(t->v, true, "%s", path), "target",
		  "%s is a Linux setting; this profile targets windows", w1);
	} else {
		/* "enabled,profile,queues" -> "enabled, profile and queues" */
		struct nt_buf said = {0};
		const char *p = m.names ? m.names : "";
		char upper[64];
		size_t u;

		for (u = 0; w1[u]; u++)	/* rss -> RSS */
			upper[u] = (char)toupper((unsigned char)w1[u]);
		upper[u] = '\0';

		while (*p) {
			size_t n = strcspn(p, ",");

			nt_buf_printf(&said, "%s%.*s", !said.n ? "" : p[n] ? ", " : " and ", (int)n, p);
			p += n;
			p += *p == ',';
		}
		E(t->v, at(t->v, true, "%s", path), "target",
		  "%s.%s is a Linux setting; Windows sets %s with %s", w1, w2, upper,
		  said.p ? said.p : "other keys");
		nt_buf_free(&said);
	}
	free(m.names);
	return false;
}

/* Keys one target has and the other has not, from the kind rows'
 * profile keys (a new Linux row is refused on Windows without code). */
static void check_iface_target(struct v *v, const struct nt_iface *f, size_t i)
{
	static const char *const win_rss[] = {"enabled", "profile", "base_processor",
					      "max_processor", "max_processors"};
	size_t k;

	if (v->windows) {
		struct target_ctx t = {v, i, {0}};

		each_key(false, refuse_linux_key, &t);
		nt_buf_free(&t.seen);
		return;
	}
	if (f->windows_opts)
		E(v, at(v, true, "/interfaces/%zu/windows", i), "target",
		  "windows.* settings apply to Windows hosts; this profile targets linux");
	if (f->rss) {
		const void *w[] = {f->rss->enabled, f->rss->profile, f->rss->base_processor,
				   f->rss->max_processor, f->rss->max_processors};

		for (k = 0; k < sizeof(w) / sizeof(w[0]); k++)
			if (w[k])
				E(v, at(v, true, "/interfaces/%zu/rss/%s", i, win_rss[k]), "target",
				  "rss.%s is a Windows (Set-NetAdapterRss) setting; this profile targets linux",
				  win_rss[k]);
	}
}

/* A tunnel key the kind has no use for. */
static void tunnel_opt_unused(struct v *v, const struct nt_iface *f, size_t i, const void *set,
			      const char *key, const char *kinds)
{
	if (set)
		E(v, at(v, true, "/interfaces/%zu/tunnel/%s", i, key), "tunnel",
		  "tunnel.%s applies to %s tunnels; %s is %s", key, kinds, f->name,
		  nt_tunnel_kind(f->tunnel->kind)->name);
}

/* Keys a tunnel device does not have, and options of other tunnel kinds. */
static void tunnel_foreign_keys(struct v *v, const struct nt_iface *f, size_t i,
				const struct nt_tunnel_kind_info *k)
{
	const struct nt_tunnel *t = f->tunnel;
	static const char *const no[] = {"channels", "rings", "rss", "irq", "coalesce"};
	const void *has[] = {f->channels, f->rings, f->rss, f->irq, f->coalesce};
	size_t n;

	for (n = 0; n < sizeof(no) / sizeof(no[0]); n++)
		if (has[n])
			E(v, at(v, true, "/interfaces/%zu/%s", i, no[n]), "tunnel",
			  "%s is a %s tunnel; it has no %s (those belong to the underlay NIC)",
			  f->name, k->label, no[n]);
	if (!(k->opts & NT_TOPT_GENEVE))
		tunnel_opt_unused(v, f, i, t->options_length, "options_length", "geneve");
	if (!(k->opts & NT_TOPT_GRE)) {
		tunnel_opt_unused(v, f, i, t->key, "key", "gre, gretap, ip6gre and ip6gretap");
		tunnel_opt_unused(v, f, i, t->sequence, "sequence", "gre, gretap, ip6gre and ip6gretap");
		tunnel_opt_unused(v, f, i, t->checksum, "checksum", "gre, gretap, ip6gre and ip6gretap");
	}
	if (!(k->opts & NT_TOPT_ENCAP_LIMIT))
		tunnel_opt_unused(v, f, i, t->encap_limit, "encap_limit", "ip6tnl, ip6gre and ip6gretap");
	if (!(k->opts & NT_TOPT_ESP)) {
		tunnel_opt_unused(v, f, i, t->cipher, "cipher", "esp");
		tunnel_opt_unused(v, f, i, t->nat_traversal, "nat_traversal", "esp");
	}
}

/* An outer family the kind cannot have. */
static void tunnel_bad_outer(struct v *v, const struct nt_tunnel *t, size_t i,
			     const struct nt_tunnel_kind_info *k)
{
	if (*t->outer == NT_OUTER_DUAL)
		E(v, at(v, false, "/interfaces/%zu/tunnel/outer", i), "tunnel",
		  "a %s device has one outer family: say ipv4 or ipv6, not dual (dual is for "
		  "wireguard and esp, whose peers may be of both)", k->name);
	else
		E(v, at(v, false, "/interfaces/%zu/tunnel/outer", i), "tunnel",
		  "outer: %s does not fit kind %s, whose outer header is %s%s%s%s%s",
		  nt_outer_strings[*t->outer].str, k->name,
		  k->outers & (1u << NT_OUTER_IPV4) ? "IPv4" : "IPv6",
		  k->other_family ? " (" : "", k->other_family ? k->other_family : "",
		  k->other_family ? (strchr(k->other_family, ' ') ? " carry over " :
				     " carries over ") : "",
		  k->other_family ? (k->outers & (1u << NT_OUTER_IPV4) ? "IPv6)" : "IPv4)") : "");
}

/* The underlay interface (index into *ui), or NULL once reported. */
static const struct nt_iface *tunnel_underlay(struct v *v, const struct nt_iface *f, size_t i,
					      size_t *ui)
{
	const struct nt_tunnel *t = f->tunnel;
	const struct nt_iface *u;

	if (!strcmp(t->underlay, f->name)) {
		E(v, at(v, false, "/interfaces/%zu/tunnel/underlay", i), "tunnel",
		  "tunnel %s cannot be its own underlay", f->name);
		return NULL;
	}
	u = find_iface(v->p, t->underlay, ui);
	if (!u) {
		const char *s = suggest_iface(v->p, t->underlay);

		E(v, at(v, false, "/interfaces/%zu/tunnel/underlay", i), "tunnel",
		  "underlay '%s' names no interface in this profile%s%s%s", t->underlay,
		  s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
	}
	return u;
}

/* Reported by each tunnel of the loop, naming it from there; the
 * ones that only lead into it are left to those. */
static void tunnel_loop(struct v *v, const struct nt_iface *f, size_t i,
			const struct nt_iface *u, size_t ui)
{
	size_t w = ui;
	struct nt_buf chain = {0};
	unsigned n;

	nt_buf_printf(&chain, "%s -> %s", f->name, u->name);
	for (n = 0; w != i && v->tm.under[w] >= 0 && n <= v->p->interfaces_count; n++) {
		w = (size_t)v->tm.under[w];
		if (n < 8 || w == i)
			nt_buf_printf(&chain, " -> %s", v->p->interfaces[w].name);
		else if (n == 8)
			nt_buf_puts(&chain, " -> ...");
	}
	if (w == i)
		E(v, at(v, false, "/interfaces/%zu/tunnel/underlay", i), "tunnel",
		  "the underlays of tunnel %s come back to it (%s): a tunnel's packets must "
		  "leave by a device that is not carried inside it", f->name, chain.p);
	nt_buf_free(&chain);
}

/* The tunnel's own mtu against the IPv6 minimum, and against its underlay's. */
static void tunnel_set_mtu(struct v *v, const struct nt_iface *f, size_t i,
			   const struct nt_tunnel_kind_info *k, const struct nt_iface *u,
			   unsigned umtu, const struct nt_overhead *o)
{
	const struct nt_tunnel *t = f->tunnel;
	unsigned min = nt_tunnel_min_mtu(t);

	if (*f->mtu < min && k->min_inner == min)
		E(v, at(v, false, "/interfaces/%zu/mtu", i), "tunnel-mtu",
		  "tunnel %s mtu %u is below %u, the smallest MTU of the IPv6 packets a %s tunnel "
		  "carries", f->name, *f->mtu, k->min_inner, k->name);
	else if (*f->mtu < min)
		E(v, at(v, false, "/interfaces/%zu/mtu", i), "tunnel-mtu",
		  "tunnel %s mtu %u is below 1280, the IPv6 minimum, and it carries %s "
		  "(tunnel.inner): Linux turns IPv6 off on such a device", f->name, *f->mtu,
		  nt_outer_strings[*t->inner].str);
	else if (*f->mtu < 1280 && nt_tunnel_inner_unsaid(t))
		W(v, at(v, false, "/interfaces/%zu/mtu", i), "tunnel-mtu",
		  "tunnel %s mtu %u is below 1280: Linux turns IPv6 off on it; say tunnel.inner: "
		  "ipv4 if it carries IPv4 only", f->name, *f->mtu);
	if (umtu && *f->mtu + nt_overhead_at(o, *f->mtu) > umtu) {
		unsigned oh = nt_overhead_at(o, *f->mtu);

		E(v, at(v, false, "/interfaces/%zu/mtu", i), "tunnel-mtu",
		  "tunnel %s mtu %u + %s overhead %u (%s) = %u exceeds underlay %s mtu %u%s; "
		  "at most %u fits", f->name, *f->mtu, k->label, oh, o->what, *f->mtu + oh,
		  u->name, umtu, u->mtu ? "" : " (derived)", nt_overhead_fit(o, umtu));
	}
}

/* The mtu a tunnel without one derives from its underlay. */
static void tunnel_derived_mtu(struct v *v, const struct nt_iface *f, size_t i,
			       const struct nt_tunnel_kind_info *k, const struct nt_iface *u,
			       size_t ui, unsigned umtu, const struct nt_overhead *o)
{
	const struct nt_tunnel *t = f->tunnel;
	unsigned min = nt_tunnel_min_mtu(t);

	if (nt_overhead_fit(o, umtu) < min) {
		unsigned fit = nt_overhead_fit(o, umtu);
		unsigned oh = fit ? umtu - fit : o->fixed + o->trailer;

		/* at the underlay's mtu, or at this tunnel's underlay when the
		 * underlay's MTU is itself derived */
		E(v, u->mtu ? at(v, false, "/interfaces/%zu/mtu", ui) :
		  at(v, false, "/interfaces/%zu/tunnel/underlay", i), "tunnel-mtu",
		  "underlay %s mtu %u%s - %s overhead %u (%s) = %d leaves tunnel %s below "
		  "the %s minimum mtu of %u", u->name, umtu, u->mtu ? "" : " (derived)", k->label,
		  oh, o->what, (int)umtu - (int)oh, f->name, min > 68 ? "IPv6" : "IPv4", min);
	} else if (nt_overhead_fit(o, umtu) < 1280 && nt_tunnel_inner_unsaid(t)) {
		W(v, at(v, false, "/interfaces/%zu/tunnel/underlay", i), "tunnel-mtu",
		  "tunnel %s derives mtu %u (underlay %s mtu %u - %s overhead %u), below 1280: Linux "
		  "turns IPv6 off on it; say tunnel.inner: ipv4 if it carries IPv4 only", f->name,
		  nt_overhead_fit(o, umtu), u->name, umtu, k->label, umtu - nt_overhead_fit(o, umtu));
	}
}

static void check_tunnel(struct v *v, const struct nt_iface *f, size_t i)
{
	const struct nt_tunnel *t = f->tunnel;
	const struct nt_tunnel_kind_info *k = nt_tunnel_kind(t->kind);
	const struct nt_iface *u;
	struct nt_overhead o;
	unsigned umtu;
	size_t ui;

	tunnel_foreign_keys(v, f, i, k);
	/* options_length: 0-252 in steps of 4 is the loader's (schema.c) */
	if (t->outer && !(k->outers & (1u << *t->outer))) {
		tunnel_bad_outer(v, t, i, k);
		return;
	}
	if (v->windows && !k->windows)
		E(v, at(v, false, "/interfaces/%zu/tunnel/kind", i), "target",
		  "tunnel kind %s has no Windows adapter nettune tunes; this profile targets windows, "
		  "where only wireguard tunnels are tuned", k->name);
	u = tunnel_underlay(v, f, i, &ui);
	if (!u)
		return;
	if (v->tm.loops[i]) {
		tunnel_loop(v, f, i, u, ui);
		return;
	}
	if (t->kind == NT_TUNNEL_SIT && t->inner && *t->inner == NT_OUTER_IPV4)
		E(v, at(v, false, "/interfaces/%zu/tunnel/inner", i), "tunnel",
		  "tunnel %s: a sit tunnel carries IPv6 in IPv4 (6in4); inner: ipv4 would be ipip",
		  f->name);
	nt_tunnel_overhead(t, &o);
	umtu = v->tm.mtu[ui];
	if (f->mtu)
		tunnel_set_mtu(v, f, i, k, u, umtu, &o);
	else if (umtu)
		tunnel_derived_mtu(v, f, i, k, u, ui, umtu, &o);
}

static void check_irq(struct v *v, const struct nt_iface *f, size_t i)
{
	const struct nt_irq *q = f->irq;
	enum nt_irq_policy pol = q->policy ? *q->policy : NT_IRQ_NONE;
	struct nt_cpuset s;
	char path[128];
	size_t k;

	if (q->cpus && pol != NT_IRQ_EXPLICIT && pol != NT_IRQ_ALL_CPUS)
		E(v, at(v, true, "/interfaces/%zu/irq/cpus", i), "irq",
		  "irq.cpus is used by the explicit and all-cpus policies, not %s",
		  nt_irq_policy_strings[pol].str);
	if (q->per_queue && pol != NT_IRQ_EXPLICIT)
		E(v, at(v, true, "/interfaces/%zu/irq/per_queue", i), "irq",
		  "irq.per_queue is used by the explicit policy only");
	if (pol == NT_IRQ_EXPLICIT && !q->cpus && !q->per_queue)
		E(v, at(v, true, "/interfaces/%zu/irq/policy", i), "irq",
		  "the explicit IRQ policy needs irq.cpus or irq.per_queue");
	if (q->cpus && q->per_queue)
		E(v, at(v, true, "/interfaces/%zu/irq/per_queue", i), "irq",
		  "set irq.cpus (all queues) or irq.per_queue (one list per queue), not both");
	if (q->cpus) {
		snprintf(path, sizeof(path), "/interfaces/%zu/irq/cpus", i);
		if (cpulist(v, q->cpus, &s, path)) {
			nt_cpuset_andnot(&s, &v->reserved);
			if (nt_cpuset_empty(&s))
				E(v, at(v, false, "%s", path), "irq-no-cpu",
				  "irq.cpus '%s' leaves no usable CPU: every CPU in it is reserved (%s)",
				  q->cpus, v->p->host->reserved_cpus);
			else if (v->have_numa) {
				nt_cpuset_andnot(&s, &v->all_numa);
				if (!nt_cpuset_empty(&s)) {
					char *out = nt_cpuset_str(&s);

					E(v, at(v, false, "%s", path), "irq",
					  "irq.cpus names CPUs %s that are in no NUMA node of host.numa", out);
					free(out);
				}
			}
		}
	}
	for (k = 0; k < q->per_queue_count; k++) {
		snprintf(path, sizeof(path), "/interfaces/%zu/irq/per_queue/%zu", i, k);
		if (!cpulist(v, q->per_queue[k], &s, path))
			continue;
		if (nt_cpuset_intersects(&s, &v->reserved)) {
			struct nt_cpuset r = s;

			nt_cpuset_andnot(&r, &v->reserved);
			if (nt_cpuset_empty(&r))
				E(v, at(v, false, "%s", path), "irq-no-cpu",
				  "queue %zu would get only reserved CPUs (%s); reserved CPUs never get IRQs",
				  k, q->per_queue[k]);
			else
				W(v, at(v, false, "%s", path), "irq-reserved",
				  "queue %zu names reserved CPUs; they are left out", k);
		}
	}
	if (pol == NT_IRQ_NUMA_LOCAL_SPREAD && v->have_numa) {
		size_t n;
		bool usable = false;

		for (n = 0; n < v->p->host->numa_count; n++) {
			struct nt_cpuset c;
			const char *err;

			if (!nt_cpuset_parse(v->p->host->numa[n].cpus, &c, &err))
				continue;
			nt_cpuset_andnot(&c, &v->reserved);
			usable |= !nt_cpuset_empty(&c);
		}
		if (!usable)
			E(v, at(v, false, "/interfaces/%zu/irq/policy", i), "irq-no-cpu",
			  "numa-local-spread leaves no usable CPU: every NUMA node's CPUs are reserved");
	}
	if (pol == NT_IRQ_NONE && q->irqbalance && *q->irqbalance == NT_IRQBAL_BAN)
		W(v, at(v, false, "/interfaces/%zu/irq/irqbalance", i), "irq",
		  "irqbalance: ban has no effect without an IRQ policy that pins IRQs");
}

static void check_rps_xps(struct v *v, const struct nt_iface *f, size_t i)
{
	char path[128];

	if (f->rps && f->rps->cpus) {
		snprintf(path, sizeof(path), "/interfaces/%zu/rps/cpus", i);
		cpulist_or(v, f->rps->cpus, path, "rps.cpus", "numa-local", "none");
	}
	if (f->rps && f->rps->cpus && !strcmp(f->rps->cpus, "numa-local") && !v->have_numa &&
	    !f->tunnel)
		W(v, at(v, false, "/interfaces/%zu/rps/cpus", i), "rps",
		  "rps.cpus numa-local takes the node from the host; without host.numa it is checked only at plan time");
	if (f->rps && f->rps->flow_cnt && *f->rps->flow_cnt &&
	    (*f->rps->flow_cnt & (*f->rps->flow_cnt - 1)))
		W(v, at(v, false, "/interfaces/%zu/rps/flow_cnt", i), "rounding",
		  "rps.flow_cnt %u is not a power of two; the kernel rounds it up", *f->rps->flow_cnt);
	if (f->xps && f->xps->cpus) {
		snprintf(path, sizeof(path), "/interfaces/%zu/xps/cpus", i);
		cpulist_or(v, f->xps->cpus, path, "xps.cpus", "follow-irq", "none");
	}
	if (f->xps && f->xps->cpus && !strcmp(f->xps->cpus, "follow-irq") &&
	    (!f->irq || !f->irq->policy || *f->irq->policy == NT_IRQ_NONE))
		E(v, at(v, false, "/interfaces/%zu/xps/cpus", i), "xps",
		  "xps.cpus follow-irq needs an IRQ policy that places the queues");
}

static bool valid_token(const char *s, const char *extra)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

static bool has_ctrl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return true;
	return false;
}

/* The names of a map of driver-given names (ifkeys.def NT_LINUX_NAMES):
 * letters, digits and the map's characters, at most its length (which
 * also keeps quotes and shell syntax out of plans and emitted scripts). */
static void check_names(struct v *v, const struct nt_iface *f, size_t i,
			const struct nt_name_map *m)
{
	const char *lo = (const char *)f->linux_opts;
	const struct nt_kv *kv = *(struct nt_kv *const *)(lo + m->at);
	unsigned k, n = *(const unsigned *)(lo + m->count_at);
	enum nt_name_fault why;
	char *sg, *key, what[160];

	for (k = 0; kv && k < n; k++) {
		if (!(why = nt_name_map_check(m, kv[k].key)))
			continue;
		sg = seg(kv[k].key);
		key = nt_xstrdup(m->path);
		*strchr(key, '.') = '/';
		if (why == NT_NAME_LONG)
			snprintf(what, sizeof(what), "is longer than %u bytes", m->name_max);
		else
			snprintf(what, sizeof(what), "has a character other than a letter, digit, %s",
				 m->said);
		E(v, at(v, true, "/interfaces/%zu/%s/%s", i, key, sg), m->rule,
		  "%s '%s' %s; drivers name them in at most %u letters, digits, %s", m->noun,
		  kv[k].key, what, m->name_max, m->said);
		free(key);
		free(sg);
	}
}

/* The lists of a word map (ifkeys.def NT_IFKEY_WORDS): two arguments
 * that are one setting of the device (ethtool(8) rxflow_str_to_type: ah4
 * and esp4 are both AH_ESP_V4_FLOW), a word twice ("[src-ip, src-ip]" is
 * a slip, not a wish), the word that stands alone with others. */
static void check_words(struct v *v, size_t i, const struct nt_word_map *m, const void *s)
{
	const struct nt_word_pair *p;
	const uint32_t *w;
	unsigned n, k, j;
	size_t a, b;
	char *key = nt_xstrdup(m->path);

	*strchr(key, '.') = '/';
	for (p = m->pairs; p->a; p++) {
		for (a = 0; m->args[a].arg && strcmp(m->args[a].arg, p->a); a++)
			;
		for (b = 0; m->args[b].arg && strcmp(m->args[b].arg, p->b); b++)
			;
		if (m->args[a].arg && m->args[b].arg && nt_word_map_arg(m, s, a, &n) &&
		    nt_word_map_arg(m, s, b, &n))
			E(v, at(v, true, "/interfaces/%zu/%s/%s", i, key, p->b), m->rule,
			  "%s: %s and %s are one setting of the device (%s); give one", m->path,
			  p->a, p->b, p->setting);
	}
	for (a = 0; m->args[a].arg; a++) {
		w = nt_word_map_arg(m, s, a, &n);
		for (k = 0; w && k < n; k++) {
			if (w[k] == m->alone && n > 1) {
				E(v, at(v, true, "/interfaces/%zu/%s/%s/%u", i, key, m->args[a].arg, k),
				  m->rule, "%s.%s: %s %s; give it alone", m->path, m->args[a].arg,
				  nt_word_of(m, m->alone), m->alone_does);
				break;
			}
			for (j = 0; j < k && w[j] != w[k]; j++)
				;
			if (j < k) {
				E(v, at(v, true, "/interfaces/%zu/%s/%s/%u", i, key, m->args[a].arg, k),
				  m->rule, "%s.%s[%u] repeats a %s of %s[%u]; name each %s once",
				  m->path, m->args[a].arg, k, m->noun, m->args[a].arg, j, m->noun);
				break;
			}
		}
	}
	free(key);
}

/* the maps of words and of driver-given names: what the profile alone
 * can tell */
static void check_rows(struct v *v, const struct nt_iface *f, size_t i)
{
	const struct nt_word_map *w;
	const struct nt_name_map *m;
	const void *s;

	for (w = nt_word_maps; w->key; w++)
		if ((s = nt_word_map_of(w, f)))
			check_words(v, i, w, s);
	for (m = nt_name_maps; f->linux_opts && m->key; m++)
		check_names(v, f, i, m);
}

/* A valid name is never empty, so a missing one cannot match it. */
static const char *iface_name(const void *arr, size_t i)
{
	const char *n = ((const struct nt_iface *)arr)[i].name;

	return n ? n : "";
}

/* A driver whose tables are per device, matched without a device id. */
static void caps_family_only(struct v *v, const struct nt_iface *f, size_t i)
{
	char *ids = nt_caps_driver_ids(v->db, f->match->driver);

	if (f->match->pci)
		W(v, at(v, true, "/interfaces/%zu/match", i), "capability",
		  "PCI id %s has no table: driver %s has tables for other devices "
		  "only (%s); their limits are not borrowed, so channels, rings and "
		  "RSS sizes are unknown offline (set nic:)", f->match->pci,
		  f->match->driver, ids);
	else
		W(v, at(v, true, "/interfaces/%zu/match", i), "capability",
		  "match.driver: the tables of driver %s (%s) are per device and the "
		  "match names no PCI id; their limits are not borrowed, so channels, "
		  "rings and RSS sizes are unknown offline (set match.pci or nic:)",
		  f->match->driver, ids);
	free(ids);
}

/* The capability table the interface is checked against offline, or NULL. */
static const struct nt_caps *iface_caps(struct v *v, const struct nt_iface *f, size_t i)
{
	const struct nt_caps *caps = NULL;

	if (f->nic && !strcmp(f->nic, "auto") &&
	    !(f->match && v->db && (f->match->driver || f->match->pci))) {
		/* the table is chosen from the observed device at plan time */
	} else if (f->nic && strcmp(f->nic, "auto")) {
		caps = v->db ? nt_caps_find(v->db, f->nic) : NULL;
		if (v->db && !caps) {
			const char *s = nt_caps_suggest(v->db, f->nic);

			E(v, at(v, false, "/interfaces/%zu/nic", i), "nic",
			  "unknown NIC model '%s'%s%s%s (see nettune caps)", f->nic,
			  s ? "; did you mean '" : "", s ? s : "", s ? "'?" : "");
		}
	} else if (f->match && v->db && (f->match->driver || f->match->pci)) {
		enum nt_caps_how how;

		caps = nt_caps_match(v->db, f->match->driver, f->match->pci, &how);
		if (how == NT_CAPS_FAMILY)
			caps_family_only(v, f, i);
	}
	return caps;
}

/* RSS settings that disagree with each other or with the channel count. */
static void check_rss(struct v *v, const struct nt_iface *f, size_t i)
{
	if (f->rss->key) {
		unsigned char key[NT_RSS_KEY_MAX];
		bool ph;

		if (nt_parse_rss_key(f->rss->key, key, sizeof(key), &ph) < 0)
			E(v, at(v, false, "/interfaces/%zu/rss/key", i), "rss",
			  "rss.key must be per-host or hex bytes such as 6d:5a:56:da (up to 256 bytes)");
	}
	if (f->rss->queues && f->channels) {
		uint32_t q = f->channels->combined ? *f->channels->combined :
			     f->channels->rx ? *f->channels->rx : 0;

		if (q && *f->rss->queues > q)
			E(v, at(v, false, "/interfaces/%zu/rss/queues", i), "rss",
			  "rss.queues = %u exceeds the %u channels this interface will have",
			  *f->rss->queues, q);
	}
	if (f->rss->base_processor && f->rss->max_processor &&
	    *f->rss->max_processor < *f->rss->base_processor)
		E(v, at(v, false, "/interfaces/%zu/rss/max_processor", i), "rss",
		  "rss.max_processor %u is below base_processor %u", *f->rss->max_processor,
		  *f->rss->base_processor);
}

/* linux.features keys are ethtool feature names. */
static void check_feature_names(struct v *v, const struct nt_iface *f, size_t i)
{
	size_t k;

	for (k = 0; k < f->linux_opts->features_count; k++) {
		const char *key = f->linux_opts->features[k].key;
		char *sk;

		if (valid_token(key, "-_"))
			continue;
		sk = seg(key);
		E(v, at(v, true, "/interfaces/%zu/linux/features/%s", i, sk), "name",
		  "'%s' is not an ethtool feature name (letters, digits, '-' and '_')", key);
		free(sk);
	}
}

/* windows.advanced_properties keywords and values safe in a playbook. */
static void check_advanced_props(struct v *v, const struct nt_iface *f, size_t i)
{
	size_t k;

	for (k = 0; k < f->windows_opts->advanced_properties_count; k++) {
		const struct nt_kv *kv = &f->windows_opts->advanced_properties[k];
		char *sk = seg(kv->key);

		if (!valid_token(kv->key, "*_-."))
			E(v, at(v, true, "/interfaces/%zu/windows/advanced_properties/%s", i, sk),
			  "name", "advanced property keyword '%s' cannot be used safely: "
			  "keywords are letters, digits and * _ - .", kv->key);
		else if (has_ctrl(kv->value) || strchr(kv->value, '`'))
			E(v, at(v, false, "/interfaces/%zu/windows/advanced_properties/%s", i, sk),
			  "name", "advanced property %s: value '%s' contains a %s; it cannot be "
			  "used safely in a PowerShell playbook", kv->key, kv->value,
			  has_ctrl(kv->value) ? "control character" : "backtick");
		free(sk);
	}
}

static void check_iface(struct v *v, const struct nt_iface *f, size_t i)
{
	const struct nt_caps *caps;
	const char *why;
	size_t k;

	if (!f->name) {
		E(v, at(v, false, "/interfaces/%zu", i), "missing-key",
		  "interfaces[%zu]: missing required key 'name'", i);
		return;
	}
	why = v->windows ? nt_windows_name_problem(f->name) : nt_linux_ifname_problem(f->name);
	if (why) {
		E(v, at(v, false, "/interfaces/%zu/name", i), "name",
		  v->windows ? "adapter name '%s' %s; it cannot be used safely in a PowerShell playbook"
			     : "interface name '%s' %s; the kernel would refuse it", f->name, why);
		return;
	}
	k = nt_strindex_find(&v->names, v->p->interfaces, i, iface_name, f->name);
	if (k != SIZE_MAX)
		E(v, at(v, false, "/interfaces/%zu/name", i), "duplicate",
		  "interface '%s' is listed twice (also at interfaces[%zu])", f->name, k);
	caps = iface_caps(v, f, i);
	if (f->match && f->match->pci) {
		const char *p = f->match->pci;

		if (strlen(p) != 9 || p[4] != ':' || !valid_token(p, ":") ||
		    strspn(p, "0123456789abcdefABCDEF:") != 9)
			E(v, at(v, false, "/interfaces/%zu/match/pci", i), "match",
			  "match.pci '%s' is not a PCI vendor:device id such as 8086:1572", p);
	}
	if (f->tunnel && f->nic)
		E(v, at(v, true, "/interfaces/%zu/nic", i), "tunnel",
		  "%s is a tunnel; a NIC model belongs to its underlay", f->name);
	check_iface_target(v, f, i);
	check_rows(v, f, i);
	check_offloads(v, f, i, caps);
	if (caps)
		check_caps(v, f, i, caps);
	if (f->tunnel)
		check_tunnel(v, f, i);
	if (f->irq)
		check_irq(v, f, i);
	check_rps_xps(v, f, i);
	if (f->rss)
		check_rss(v, f, i);
	if (f->linux_opts)
		check_feature_names(v, f, i);
	if (f->windows_opts)
		check_advanced_props(v, f, i);
}

static void check_host(struct v *v)
{
	const struct nt_host *h = v->p->host;
	struct nt_cpuset sets[64];
	size_t i, j;
	char path[64];

	if (!h)
		return;
	for (i = 0; i < h->numa_count && i < 64; i++) {
		snprintf(path, sizeof(path), "/host/numa/%zu/cpus", i);
		if (!cpulist(v, h->numa[i].cpus, &sets[i], path)) {
			nt_cpuset_clear(&sets[i]);
			continue;
		}
		for (j = 0; j < i; j++) {
			if (h->numa[j].node == h->numa[i].node)
				E(v, at(v, false, "/host/numa/%zu/node", i), "numa",
				  "NUMA node %u is declared twice", h->numa[i].node);
			if (nt_cpuset_intersects(&sets[i], &sets[j])) {
				struct nt_cpuset x = sets[i];
				char *o;

				nt_cpuset_and(&x, &sets[j]);
				o = nt_cpuset_str(&x);
				E(v, at(v, false, "%s", path), "numa",
				  "NUMA nodes %u and %u overlap on CPUs %s", h->numa[j].node,
				  h->numa[i].node, o);
				free(o);
			}
		}
		nt_cpuset_or(&v->all_numa, &sets[i]);
		v->have_numa = true;
	}
	if (h->reserved_cpus &&
	    cpulist(v, h->reserved_cpus, &v->reserved, "/host/reserved_cpus") && v->have_numa) {
		struct nt_cpuset out = v->reserved;

		nt_cpuset_andnot(&out, &v->all_numa);
		if (!nt_cpuset_empty(&out)) {
			char *o = nt_cpuset_str(&out);

			E(v, at(v, false, "/host/reserved_cpus"), "numa",
			  "reserved CPUs %s are in no NUMA node of host.numa", o);
			free(o);
		}
	}
}

/*
 * metadata.name names the host in scripts, rollback file names and
 * snapshots: a host name (RFC 1123, '_' allowed), 1-253 characters of
 * ASCII letters, digits, '.', '-' and '_', starting with a letter or digit,
 * each dot-separated label 1-63 characters.  NULL if fine, else why not;
 * "contains" with the character in *bad.
 */
static const char *host_name_problem(const char *s, char *bad)
{
	size_t label = 0;
	const char *p;

	if (!*s)
		return "is empty";
	if (strlen(s) > 253)
		return "is longer than 253 characters";
	if (!isalnum((unsigned char)*s))
		return "does not start with a letter or digit";
	for (p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c == 0x7f)
			return "contains a control character";
		if (c >= 0x80)
			return "contains a non-ASCII character";
		if (c == '.') {
			if (!label)
				return "has an empty label (\"..\")";
			label = 0;
			continue;
		}
		if (!isalnum(c) && c != '-' && c != '_') {
			*bad = (char)c;
			return "contains";
		}
		if (++label > 63)
			return "has a label longer than 63 characters";
	}
	if (!label)
		return "ends with '.'";
	return NULL;
}

static void check_metadata_name(struct v *v)
{
	const char *why;
	char bad[5] = " 'x'";

	if (!v->p->metadata || !v->p->metadata->name)
		return;
	why = host_name_problem(v->p->metadata->name, &bad[2]);
	if (why)
		E(v, at(v, false, "/metadata/name"), "name",
		  "metadata.name %s%s; it must be a host name: letters, digits, '.', '-' and '_', "
		  "starting with a letter or digit, at most 63 between dots and 253 in all",
		  why, !strcmp(why, "contains") ? bad : "");
}

/* The tunnel interface called name (len bytes), if the profile has one. */
static const char *tunnel_named(const struct nt_profile *p, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < p->interfaces_count; i++) {
		const struct nt_iface *f = &p->interfaces[i];

		if (f->tunnel && f->name && strlen(f->name) == len && !strncmp(f->name, name, len))
			return f->name;
	}
	return NULL;
}

/*
 * Whether a process match names kernel WireGuard, which has no process:
 * wg-quick@IF.service runs wg-quick, which configures IF and exits; wg is
 * the configuration tool; wg-crypt-IF is a kernel workqueue.  A unit counts
 * only when IF is a tunnel of this profile (with WG_QUICK_USERSPACE_-
 * IMPLEMENTATION the same unit runs a userspace daemon).  Sets *iface and
 * the match key (*key) the finding is about.
 */
static bool kernel_wireguard(const struct nt_profile *p, const struct nt_process_match *m,
			     const char **iface, const char **key)
{
	size_t i, len;

	if (m->systemd_unit && !strncmp(m->systemd_unit, "wg-quick@", 9)) {
		const char *name = m->systemd_unit + 9;

		len = strlen(name);
		if (len > 8 && !strcmp(name + len - 8, ".service"))
			len -= 8;
		*key = "systemd_unit";
		*iface = tunnel_named(p, name, len);
		return *iface != NULL;
	}
	if (m->comm && !strncmp(m->comm, "wg-crypt-", 9) && m->comm[9]) {
		*key = "comm";
		*iface = m->comm + 9;
		return true;
	}
	if (m->comm && (!strcmp(m->comm, "wg-quick") || !strcmp(m->comm, "wg")))
		for (i = 0; i < p->interfaces_count; i++)
			if (p->interfaces[i].tunnel && p->interfaces[i].name) {
				*key = "comm";
				*iface = p->interfaces[i].name;
				return true;
			}
	return false;
}

static void check_processes(struct v *v)
{
	size_t i;

	for (i = 0; i < v->p->processes_count; i++) {
		const struct nt_process *pr = &v->p->processes[i];
		const struct nt_process_match *m = &pr->match;
		int n = !!m->systemd_unit + !!m->comm + !!m->pidfile;
		const char *wg, *wkey;
		char path[64];
		struct nt_cpuset s;

		if (v->windows) {
			E(v, at(v, true, "/processes"), "target",
			  "processes is a Linux setting; this profile targets windows");
			return;
		}
		if (n != 1)
			E(v, at(v, false, "/processes/%zu/match", i), "process",
			  "processes[%zu].match needs exactly one of systemd_unit, comm, pidfile", i);
		if (n == 1) {
			const char *key = m->systemd_unit ? "systemd_unit" : m->comm ? "comm" : "pidfile";
			const char *who = m->systemd_unit ? m->systemd_unit : m->comm ? m->comm : m->pidfile;
			const char *why;

			/* a pidfile is a path; a unit or a comm one path component */
			if (m->pidfile && who[0] != '/')
				why = "is not an absolute path";
			else if (!m->pidfile && strchr(who, '/'))
				why = "contains '/'";
			else
				why = nt_process_problem(who);
			if (why)
				E(v, at(v, false, "/processes/%zu/match/%s", i, key), "name",
				  "processes[%zu].match.%s '%s' %s", i, key, who, why);
		}
		if (kernel_wireguard(v->p, m, &wg, &wkey))
			E(v, at(v, false, "/processes/%zu/match/%s", i, wkey), "kernel-wireguard",
			  "%s is kernel WireGuard: it has no process to pin. Its crypto runs in the "
			  "per-CPU workqueue wg-crypt-%s on every online CPU, and wg-quick exits after "
			  "setup. Pin a userspace implementation (wireguard-go, boringtun) by comm or "
			  "pidfile instead, or place the underlay's IRQs with irq.policy",
			  wg, wg);
		if (!strncmp(pr->cpus, "numa-local-of ", 14)) {
			const char *name = pr->cpus + 14;
			const char *sg = suggest_iface(v->p, name);

			if (!find_iface(v->p, name, NULL))
				E(v, at(v, false, "/processes/%zu/cpus", i), "process",
				  "numa-local-of '%s' names no interface in this profile%s%s%s", name,
				  sg ? "; did you mean '" : "", sg ? sg : "", sg ? "'?" : "");
			continue;
		}
		snprintf(path, sizeof(path), "/processes/%zu/cpus", i);
		cpulist(v, pr->cpus, &s, path);
	}
}

static void check_sysctl(struct v *v)
{
	size_t i;

	for (i = 0; i < v->p->sysctl_count; i++) {
		const struct nt_kv *kv = &v->p->sysctl[i];

		if (v->windows) {
			E(v, at(v, true, "/sysctl"), "target",
			  "sysctl is a Linux setting; this profile targets windows");
			return;
		}
		char *sk = seg(kv->key);

		if (!valid_token(kv->key, "._-/") || strstr(kv->key, "..") || kv->key[0] == '/' ||
		    kv->key[0] == '.' || nt_sysctl_key_problem(kv->key))
			E(v, at(v, true, "/sysctl/%s", sk), "sysctl",
			  "'%s' is not a sysctl name (letters, digits, '.', '_', '-', '/'; no '..')",
			  kv->key);
		else if (has_ctrl(kv->value))
			E(v, at(v, false, "/sysctl/%s", sk), "sysctl",
			  "sysctl %s: value contains a control character", kv->key);
		free(sk);
	}
}

size_t nt_validate(const struct nt_loaded *l, const struct nt_capsdb *db, struct nt_diags *d)
{
	struct v v = {0};
	const struct nt_profile *p = l->p;
	size_t i;

	v.l = l;
	v.p = p;
	v.db = db;
	v.d = d;
	v.windows = p->target && *p->target == NT_TARGET_WINDOWS;
	check_metadata_name(&v);
	if (strcmp(p->api_version, "nettune/v1"))
		E(&v, at(&v, false, "/apiVersion"), "api-version",
		  "apiVersion '%s' is not supported; this nettune reads nettune/v1", p->api_version);
	if (p->kind == NT_KIND_POLICY) {
		/* interfaces and processes may be shared by hosts that use the
		 * same names (merged by name); host and target are per host */
		if (nt_yget(l->tree, "/host", false))
			E(&v, at(&v, true, "/host"), "policy",
			  "a PolicyProfile cannot set host; the NUMA layout and reserved CPUs belong "
			  "to one host's profile");
		if (nt_yget(l->tree, "/target", false))
			E(&v, at(&v, true, "/target"), "policy",
			  "a PolicyProfile cannot set target; the host profile that extends it names its target");
		return v.errors;
	}
	if (!p->metadata || !p->metadata->name)
		E(&v, at(&v, true, "/metadata"), "missing-key",
		  "a HostProfile needs metadata.name (the host name; it seeds per-host RSS keys)");
	if (!p->target)
		E(&v, at(&v, false, "%s", ""), "missing-key",
		  "a HostProfile needs target: linux or windows");
	if (v.windows && p->host && p->host->reserved_cpus)
		E(&v, at(&v, true, "/host/reserved_cpus"), "target",
		  "host.reserved_cpus is a Linux setting; on Windows use rss.base_processor");
	check_host(&v);
	nt_tunnel_map(p, &v.tm);
	for (i = 0; i < p->interfaces_count; i++)
		check_iface(&v, &p->interfaces[i], i);
	nt_strindex_reset(&v.names);
	nt_tunnel_map_free(&v.tm);
	check_processes(&v);
	check_sysctl(&v);
	if (!v.windows && p->global)
		E(&v, at(&v, true, "/global"), "target",
		  "global (NetOffloadGlobalSetting, software URO) is a Windows setting; this profile targets linux");
	return v.errors;
}
