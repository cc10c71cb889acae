/* SPDX-License-Identifier: MIT */
/* Loader for the NIC capability tables in schema/nics/. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/buf.h"
#include "caps.h"
#include "../language/profile.h"
#include "settings.h"
#include "../language/ytree.h"

const char *const nt_off_names[NT_OFF__COUNT] = {
	"checksum", "sg", "tso", "gso", "gro", "gro_hw", "lro", "uso", "rxhash",
	"ntuple", "rxvlan", "txvlan",
};
const char *const nt_chan_names[NT_CH__COUNT] = {"combined", "rx", "tx", "other"};
const char *const nt_coal_names[NT_CO__COUNT] = {
	"rx_usecs", "tx_usecs", "rx_frames", "tx_frames", "adaptive_rx", "adaptive_tx",
};

struct rd {
	struct nt_diags *d;
	const struct nt_ynode *root;
	int bad;
};

static const struct nt_ynode *get(struct rd *r, const char *path, enum nt_ytype t, bool required)
{
	const struct nt_ynode *n = nt_yget(r->root, path, false);

	if (!n) {
		if (required) {
			nt_error(r->d, nt_ymark(r->root, path, true), "caps",
				 "capability table lacks %s", path);
			r->bad = 1;
		}
		return NULL;
	}
	if (n->type != t) {
		nt_error(r->d, n->mark, "caps", "%s must be %s", path,
			 t == NT_Y_MAP ? "a mapping" : t == NT_Y_SEQ ? "a sequence" : "a value");
		r->bad = 1;
		return NULL;
	}
	return n;
}

static char *get_str(struct rd *r, const char *path, bool required)
{
	const struct nt_ynode *n = get(r, path, NT_Y_SCALAR, required);

	return n ? nt_xstrdup(n->scalar) : NULL;
}

static struct nt_num get_num(struct rd *r, const char *path)
{
	const struct nt_ynode *n = get(r, path, NT_Y_SCALAR, false);
	struct nt_num x = {false, 0};
	char *end;
	unsigned long v;

	if (!n || !strcmp(n->scalar, "unknown"))
		return x;
	errno = 0;
	v = strtoul(n->scalar, &end, 10);
	if (errno || *end || !*n->scalar || v > UINT32_MAX) {
		nt_error(r->d, n->mark, "caps", "%s must be a number or 'unknown', not '%s'",
			 path, n->scalar);
		r->bad = 1;
		return x;
	}
	x.known = true;
	x.v = (uint32_t)v;
	return x;
}

static enum nt_tri get_tri(struct rd *r, const char *path)
{
	const struct nt_ynode *n = get(r, path, NT_Y_SCALAR, false);

	if (!n || !strcmp(n->scalar, "unknown"))
		return NT_TRI_UNKNOWN;
	if (!strcmp(n->scalar, "true"))
		return NT_TRI_YES;
	if (!strcmp(n->scalar, "false"))
		return NT_TRI_NO;
	nt_error(r->d, n->mark, "caps", "%s must be true, false or unknown", path);
	r->bad = 1;
	return NT_TRI_UNKNOWN;
}

static enum nt_win_state get_win(struct rd *r, const char *path)
{
	const struct nt_ynode *n = get(r, path, NT_Y_SCALAR, false);

	if (!n || !strcmp(n->scalar, "unknown"))
		return NT_WIN_UNKNOWN;
	if (!strcmp(n->scalar, "supported"))
		return NT_WIN_SUPPORTED;
	if (!strcmp(n->scalar, "unsupported"))
		return NT_WIN_UNSUPPORTED;
	nt_error(r->d, n->mark, "caps", "%s must be supported, unsupported or unknown", path);
	r->bad = 1;
	return NT_WIN_UNKNOWN;
}

/* A group with any known value must say where it was read. */
static char *get_source(struct rd *r, const char *group, bool any_known)
{
	char *p = nt_xasprintf("%s/source", group);
	char *s = get_str(r, p, false);

	if (any_known && (!s || !*s || !strcmp(s, "unknown"))) {
		nt_error(r->d, nt_ymark(r->root, group, true), "caps-source",
			 "%s has known values but no source: every number cites where it was read",
			 group);
		r->bad = 1;
	}
	free(p);
	return s;
}

/* linux.coalesce (optional): params, usecs_max, usecs_min, usecs_modes,
 * frames_max, usecs_with_adaptive, source. */
static void load_coalesce(struct rd *r, struct nt_caps *c)
{
	const struct nt_ynode *n;
	size_t i;
	int k;

	c->coal_usecs_with_adaptive = NT_TRI_UNKNOWN;
	if (!get(r, "/linux/coalesce", NT_Y_MAP, false))
		return;
	n = nt_yget(r->root, "/linux/coalesce/params", false);
	if (n && n->type == NT_Y_SEQ) {
		c->coal_params_known = true;
		for (i = 0; i < n->n; i++) {
			for (k = 0; k < NT_CO__COUNT; k++)
				if (n->vals[i]->type == NT_Y_SCALAR &&
				    !strcmp(n->vals[i]->scalar, nt_coal_names[k]))
					break;
			if (k == NT_CO__COUNT) {
				nt_error(r->d, n->vals[i]->mark, "caps",
					 "coalesce.params: unknown parameter (rx_usecs, tx_usecs, "
					 "rx_frames, tx_frames, adaptive_rx or adaptive_tx)");
				r->bad = 1;
				continue;
			}
			c->coal_params |= 1u << k;
		}
	} else if (n && (n->type != NT_Y_SCALAR || strcmp(n->scalar, "unknown"))) {
		nt_error(r->d, n->mark, "caps",
			 "/linux/coalesce/params must be a list of parameters or 'unknown'");
		r->bad = 1;
	}
	c->coal_usecs_max = get_num(r, "/linux/coalesce/usecs_max");
	c->coal_usecs_min = get_num(r, "/linux/coalesce/usecs_min");
	c->coal_frames_max = get_num(r, "/linux/coalesce/frames_max");
	c->coal_usecs_with_adaptive = get_tri(r, "/linux/coalesce/usecs_with_adaptive");
	n = get(r, "/linux/coalesce/usecs_modes", NT_Y_SEQ, false);
	for (i = 0; n && i < n->n; i++) {
		char *end;
		unsigned long v = 0;

		if (n->vals[i]->type == NT_Y_SCALAR)
			v = strtoul(n->vals[i]->scalar, &end, 10);
		if (n->vals[i]->type != NT_Y_SCALAR || *end || !*n->vals[i]->scalar ||
		    !c->coal_usecs_min.known || v >= c->coal_usecs_min.v || v > 31) {
			nt_error(r->d, n->vals[i]->mark, "caps",
				 "coalesce.usecs_modes: each value is a number below usecs_min");
			r->bad = 1;
			continue;
		}
		c->coal_usecs_modes |= 1u << v;
	}
	c->src_coalesce = get_source(r, "/linux/coalesce", c->coal_params_known ||
				     c->coal_usecs_max.known || c->coal_usecs_min.known ||
				     c->coal_frames_max.known ||
				     c->coal_usecs_with_adaptive != NT_TRI_UNKNOWN);
}

static bool pci_id_ok(const char *p)
{
	size_t i;

	if (strlen(p) != 9 || p[4] != ':')
		return false;
	for (i = 0; i < 9; i++)
		if (i != 4 && !strchr("0123456789abcdef", p[i]))
			return false;
	return true;
}

/* What the format cannot say alone: the id is the file name (a local file
 * cannot take another table's id by accident), PCI ids are well formed and
 * listed once, minimums do not exceed maxima, max_since is a version, RSS
 * sizes fit what the planner handles. */
static void check_table(struct rd *r, struct nt_caps *c, const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t blen = strlen(base) > 5 ? strlen(base) - 5 : 0;
	const struct nt_ynode *n;
	size_t i, j;
	unsigned x, y;
	char tail;

	if (c->id && (strlen(c->id) != blen || strncmp(c->id, base, blen))) {
		nt_error(r->d, nt_ymark(r->root, "/id", false), "caps",
			 "id '%s' must equal the file name without .yaml ('%.*s')", c->id,
			 (int)blen, base);
		r->bad = 1;
	}
	n = nt_yget(r->root, "/pci_ids/value", false);
	for (i = 0; n && n->type == NT_Y_SEQ && i < n->n && i < c->npci; i++) {
		if (!pci_id_ok(c->pci_ids[i])) {
			nt_error(r->d, n->vals[i]->mark, "caps",
				 "PCI id '%s' is not lowercase hex vendor:device such as 8086:1572",
				 c->pci_ids[i]);
			r->bad = 1;
			continue;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(c->pci_ids[j], c->pci_ids[i])) {
				nt_error(r->d, n->vals[i]->mark, "caps", "PCI id %s is listed twice",
					 c->pci_ids[i]);
				r->bad = 1;
				break;
			}
	}
	{
		struct { const char *path, *what; struct nt_num lo, hi; } m[] = {
			{"/linux/rings/rx_min", "rings.rx_min", c->ring_rx_min, c->ring_rx_max},
			{"/linux/rings/tx_min", "rings.tx_min", c->ring_tx_min, c->ring_tx_max},
			{"/linux/rings/rx_max_no_agg", "rings.rx_max", c->ring_rx_max,
			 c->ring_rx_max_no_agg},
			{"/linux/coalesce/usecs_min", "coalesce.usecs_min", c->coal_usecs_min,
			 c->coal_usecs_max},
		};

		for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
			if (m[i].lo.known && m[i].hi.known && m[i].lo.v > m[i].hi.v) {
				nt_error(r->d, nt_ymark(r->root, m[i].path, false), "caps",
					 "%s %u is above the maximum %u it bounds", m[i].what,
					 m[i].lo.v, m[i].hi.v);
				r->bad = 1;
			}
	}
	if (c->rss_key_bytes.known && c->rss_key_bytes.v > NT_RSS_KEY_MAX) {
		nt_error(r->d, nt_ymark(r->root, "/linux/rss/key_bytes", false), "caps",
			 "rss.key_bytes %u is above the %u bytes nettune handles", c->rss_key_bytes.v,
			 NT_RSS_KEY_MAX);
		r->bad = 1;
	}
	if (c->rss_indir_size.known && c->rss_indir_size.v > NT_RSS_INDIR_MAX) {
		nt_error(r->d, nt_ymark(r->root, "/linux/rss/indir_size", false), "caps",
			 "rss.indir_size %u is above the %u entries nettune handles",
			 c->rss_indir_size.v, NT_RSS_INDIR_MAX);
		r->bad = 1;
	}
	if (c->ring_max_since && (sscanf(c->ring_max_since, "%u.%u%c", &x, &y, &tail) != 2 ||
				  x > 99 || y > 999)) {
		nt_error(r->d, nt_ymark(r->root, "/linux/rings/max_since", false), "caps",
			 "rings.max_since '%s' is not a kernel version X.Y", c->ring_max_since);
		r->bad = 1;
	}
}

/* Reads one table from path, or from text when it is not NULL (a built-in
 * table, located as path). */
static void load_pci(struct rd *r, struct nt_caps *c)
{
	const struct nt_ynode *n = get(r, "/pci_ids/value", NT_Y_SEQ, true);
	size_t i;

	for (i = 0; n && i < n->n; i++) {
		c->pci_ids = nt_xrealloc(c->pci_ids, (c->npci + 1) * sizeof(char *));
		c->pci_at = nt_xrealloc(c->pci_at, (c->npci + 1) * sizeof(*c->pci_at));
		c->pci_at[c->npci] = n->vals[i]->mark;
		c->pci_ids[c->npci++] = nt_xstrdup(n->vals[i]->type == NT_Y_SCALAR ?
						   n->vals[i]->scalar : "");
	}
	c->src_pci = get_source(r, "/pci_ids", c->npci > 0);
}

static void load_channels(struct rd *r, struct nt_caps *c)
{
	const struct nt_ynode *n = get(r, "/linux/channels/kinds", NT_Y_SEQ, true);
	bool known = false;
	char buf[128];
	size_t i;

	for (i = 0; n && i < n->n; i++) {
		int k;

		for (k = 0; k < NT_CH__COUNT; k++)
			if (n->vals[i]->type == NT_Y_SCALAR &&
			    !strcmp(n->vals[i]->scalar, nt_chan_names[k]))
				break;
		if (k == NT_CH__COUNT) {
			nt_error(r->d, n->vals[i]->mark, "caps", "unknown channel kind");
			r->bad = 1;
			continue;
		}
		c->chan_kind[k] = true;
		known = true;
	}
	for (i = 0; i < NT_CH__COUNT; i++) {
		snprintf(buf, sizeof(buf), "/linux/channels/max_%s", nt_chan_names[i]);
		c->chan_max[i] = get_num(r, buf);
		known |= c->chan_max[i].known;
	}
	c->chan_settable = get_tri(r, "/linux/channels/settable");
	known |= c->chan_settable != NT_TRI_UNKNOWN;
	c->src_channels = get_source(r, "/linux/channels", known);
}

/* rings.power_of_two, which excludes a step above 1. */
static void load_ring_pow2(struct rd *r, struct nt_caps *c)
{
	const struct nt_ynode *n = get(r, "/linux/rings/power_of_two", NT_Y_SCALAR, false);

	if (n && !strcmp(n->scalar, "round-down"))
		c->ring_pow2 = NT_POW2_DOWN;
	else if (n && !strcmp(n->scalar, "round-up"))
		c->ring_pow2 = NT_POW2_UP;
	else if (n && !strcmp(n->scalar, "refused"))
		c->ring_pow2 = NT_POW2_REFUSED;
	else if (n && strcmp(n->scalar, "unknown")) {
		nt_error(r->d, n->mark, "caps",
			 "rings.power_of_two is round-down, round-up, refused or unknown");
		r->bad = 1;
	}
	if (c->ring_pow2 != NT_POW2_NONE && c->ring_step.known && c->ring_step.v > 1) {
		nt_error(r->d, n->mark, "caps",
			 "rings.power_of_two and a rings.step above 1 cannot both hold");
		r->bad = 1;
	}
}

/* The kernel that raised the ring maximum, and the stable releases it was backported to. */
static void load_ring_since(struct rd *r, struct nt_caps *c)
{
	const struct nt_ynode *n;
	size_t i;

	c->ring_max_since = get_str(r, "/linux/rings/max_since", false);
	c->ring_max_before = get_num(r, "/linux/rings/max_before");
	if (!c->ring_max_since != !c->ring_max_before.known) {
		nt_error(r->d, nt_ymark(r->root, "/linux/rings", true), "caps",
			 "rings.max_since and rings.max_before go together");
		r->bad = 1;
	}
	c->ring_rx_max_no_agg = get_num(r, "/linux/rings/rx_max_no_agg");
	c->no_agg_mtu_max = get_num(r, "/linux/rings/no_agg_mtu_max");
	if (c->ring_rx_max_no_agg.known != c->no_agg_mtu_max.known ||
	    (c->ring_rx_max_no_agg.known && !c->ring_rx_max.known)) {
		nt_error(r->d, nt_ymark(r->root, "/linux/rings", true), "caps",
			 "rings.rx_max_no_agg and rings.no_agg_mtu_max go together, with a known rx_max");
		r->bad = 1;
	}
	n = get(r, "/linux/rings/max_backports", NT_Y_SEQ, false);
	if (n && !c->ring_max_since) {
		nt_error(r->d, n->mark, "caps", "rings.max_backports needs rings.max_since");
		r->bad = 1;
	}
	for (i = 0; n && i < n->n; i++) {
		unsigned x, y, z;
		char tail;

		if (n->vals[i]->type != NT_Y_SCALAR ||
		    sscanf(n->vals[i]->scalar, "%u.%u.%u%c", &x, &y, &z, &tail) != 3) {
			nt_error(r->d, n->vals[i]->mark, "caps",
				 "rings.max_backports entries are stable releases X.Y.Z");
			r->bad = 1;
			continue;
		}
		c->ring_backports = nt_xrealloc(c->ring_backports,
						(c->nbackports + 1) * sizeof(char *));
		c->ring_backports[c->nbackports++] = nt_xstrdup(n->vals[i]->scalar);
	}
}

static void load_rings(struct rd *r, struct nt_caps *c)
{
	c->ring_rx_max = get_num(r, "/linux/rings/rx_max");
	c->ring_tx_max = get_num(r, "/linux/rings/tx_max");
	c->ring_step = get_num(r, "/linux/rings/step");
	c->ring_rx_min = get_num(r, "/linux/rings/rx_min");
	c->ring_tx_min = get_num(r, "/linux/rings/tx_min");
	load_ring_pow2(r, c);
	load_ring_since(r, c);
	c->rings_settable = get_tri(r, "/linux/rings/settable");
	c->src_rings = get_source(r, "/linux/rings", c->ring_rx_max.known ||
				  c->ring_rx_max_no_agg.known ||
				  c->ring_rx_min.known || c->ring_tx_min.known ||
				  c->ring_tx_max.known || c->ring_step.known ||
				  c->ring_pow2 != NT_POW2_NONE ||
				  c->rings_settable != NT_TRI_UNKNOWN);
}

static void load_rss(struct rd *r, struct nt_caps *c)
{
	const struct nt_ynode *n;
	size_t i;

	c->rss_key_bytes = get_num(r, "/linux/rss/key_bytes");
	c->rss_indir_size = get_num(r, "/linux/rss/indir_size");
	c->key_settable = get_tri(r, "/linux/rss/key_settable");
	n = nt_yget(r->root, "/linux/rss/hash", false);
	if (n && n->type == NT_Y_SEQ) {
		c->hash_known = true;
		for (i = 0; i < n->n; i++) {
			if (n->vals[i]->type != NT_Y_SCALAR)
				continue;
			if (!strcmp(n->vals[i]->scalar, "toeplitz"))
				c->hash_mask |= 1u << NT_HASH_TOEPLITZ;
			else if (!strcmp(n->vals[i]->scalar, "xor"))
				c->hash_mask |= 1u << NT_HASH_XOR;
			else if (!strcmp(n->vals[i]->scalar, "crc32"))
				c->hash_mask |= 1u << NT_HASH_CRC32;
			else {
				nt_error(r->d, n->vals[i]->mark, "caps", "unknown hash function");
				r->bad = 1;
			}
		}
	}
	c->xor_max_channels = get_num(r, "/linux/rss/xor_max_channels");
	c->src_rss = get_source(r, "/linux/rss", c->xor_max_channels.known ||
				c->rss_key_bytes.known ||
				c->rss_indir_size.known || c->hash_known);
}

static void load_offloads(struct rd *r, struct nt_caps *c)
{
	bool known = false;
	char buf[128];
	size_t i;

	for (i = 0; i < NT_OFF__COUNT; i++) {
		const struct nt_ynode *o;

		snprintf(buf, sizeof(buf), "/linux/offloads/%s", nt_off_names[i]);
		o = get(r, buf, NT_Y_SCALAR, false);
		c->off[i] = NT_CAP_UNKNOWN;
		if (!o || !strcmp(o->scalar, "unknown"))
			continue;
		known = true;
		if (!strcmp(o->scalar, "changeable"))
			c->off[i] = NT_CAP_CHANGEABLE;
		else if (!strcmp(o->scalar, "fixed-on"))
			c->off[i] = NT_CAP_FIXED_ON;
		else if (!strcmp(o->scalar, "fixed-off"))
			c->off[i] = NT_CAP_FIXED_OFF;
		else if (!strcmp(o->scalar, "absent"))
			c->off[i] = NT_CAP_ABSENT;
		else {
			nt_error(r->d, o->mark, "caps",
				 "%s must be changeable, fixed-on, fixed-off, absent or unknown", buf);
			r->bad = 1;
		}
	}
	c->src_offloads = get_source(r, "/linux/offloads", known);
}

static void load_windows(struct rd *r, struct nt_caps *c)
{
	const struct nt_ynode *n;
	size_t i;

	c->win_uso = get_win(r, "/windows/uso");
	c->win_rsc = get_win(r, "/windows/rsc");
	c->win_hw_uro = get_win(r, "/windows/hw_uro");
	c->win_rss = get_win(r, "/windows/rss");
	n = nt_yget(r->root, "/windows/rss_profiles", false);
	if (n && n->type == NT_Y_SEQ) {
		c->rss_profiles = nt_xcalloc(n->n + 1, sizeof(char *));
		for (i = 0; i < n->n; i++)
			if (n->vals[i]->type == NT_Y_SCALAR)
				c->rss_profiles[c->nrss_profiles++] = nt_xstrdup(n->vals[i]->scalar);
	}
	c->src_windows = get_source(r, "/windows", c->win_uso || c->win_rsc ||
				    c->win_hw_uro || c->win_rss || c->rss_profiles);
}

static int load_one(struct nt_caps *c, const char *path, const char *text, size_t len,
		    const char *origin, struct nt_diags *d)
{
	struct rd r = {d, NULL, 0};

	memset(c, 0, sizeof(*c));
	r.root = text ? nt_yparse_data(path, text, len, d) : nt_yparse_file(path, d);
	if (!r.root)
		return -1;
	c->file = nt_xstrdup(path);
	c->origin = nt_xstrdup(origin);
	c->id = get_str(&r, "/id", true);
	c->name = get_str(&r, "/name", true);
	c->driver = get_str(&r, "/linux/driver", true);
	load_pci(&r, c);
	load_channels(&r, c);
	load_rings(&r, c);
	load_rss(&r, c);
	load_offloads(&r, c);
	load_coalesce(&r, c);
	load_windows(&r, c);
	c->notes = get_str(&r, "/notes", false);
	check_table(&r, c, path);
	nt_yfree((struct nt_ynode *)r.root);
	return r.bad ? -1 : 0;
}

static void caps_free(struct nt_caps *c)
{
	size_t i;

	for (i = 0; i < c->npci; i++)
		free(c->pci_ids[i]);
	for (i = 0; i < c->nrss_profiles; i++)
		free(c->rss_profiles[i]);
	free(c->pci_ids);
	free(c->pci_at);
	free(c->rss_profiles);
	free(c->id);
	free(c->name);
	free(c->file);
	free(c->driver);
	free(c->src_pci);
	free(c->src_channels);
	free(c->src_rings);
	free(c->src_rss);
	free(c->src_offloads);
	free(c->src_windows);
	free(c->src_coalesce);
	free(c->ring_max_since);
	for (i = 0; i < c->nbackports; i++)
		free(c->ring_backports[i]);
	free(c->ring_backports);
	free(c->notes);
	free(c->origin);
}

static int cmp_caps(const void *a, const void *b)
{
	return strcmp(((const struct nt_caps *)a)->id, ((const struct nt_caps *)b)->id);
}

static const char *caps_dir;

void nt_caps_set_dir(const char *dir)
{
	caps_dir = dir;
}

/* Adds c to db; a table whose id is already there replaces it when
 * override is set (a local table over a built-in one), else is an error. */
static int add_table(struct nt_capsdb *db, struct nt_caps *c, bool override,
		     struct nt_diags *d)
{
	struct nt_caps *old = (struct nt_caps *)nt_caps_find(db, c->id);

	if (old && override) {
		char *o = nt_xasprintf("%s (replaces the built-in table)", c->origin);

		free(c->origin);
		c->origin = o;
		caps_free(old);
		*old = *c;
		return 0;
	}
	if (old) {
		struct nt_mark m = {nt_intern(c->file), 1, 1};

		nt_error(d, m, "caps", "duplicate capability table id '%s'", c->id);
		caps_free(c);
		return -1;
	}
	db->v = nt_xrealloc(db->v, (db->n + 1) * sizeof(*db->v));
	db->v[db->n++] = *c;
	return 0;
}

static int load_dir(struct nt_capsdb *db, const char *dir, bool override, struct nt_diags *d)
{
	DIR *dh;
	struct dirent *de;
	struct nt_caps *fresh = NULL;
	size_t nfresh = 0, i;
	int bad = 0;

	dh = opendir(dir);
	if (!dh) {
		struct nt_mark m = {nt_intern(dir), 0, 0};

		nt_error(d, m, "caps", "cannot open: %s", strerror(errno));
		return -1;
	}
	while ((de = readdir(dh))) {
		size_t len = strlen(de->d_name);
		struct nt_caps c;
		char *p;

		if (len < 6 || strcmp(de->d_name + len - 5, ".yaml"))
			continue;
		p = nt_xasprintf("%s/%s", dir, de->d_name);
		if (load_one(&c, p, NULL, 0, dir, d)) {
			caps_free(&c);
			bad = -1;
		} else {
			fresh = nt_xrealloc(fresh, (nfresh + 1) * sizeof(*fresh));
			fresh[nfresh++] = c;
		}
		free(p);
	}
	closedir(dh);
	/* two local tables with one id are an error even when overriding */
	for (i = 0; i < nfresh; i++) {
		size_t j;
		bool dup = false;

		for (j = 0; j < i && !dup; j++)
			dup = fresh[j].id && !strcmp(fresh[j].id, fresh[i].id);
		if (dup) {
			struct nt_mark m = {nt_intern(fresh[i].file), 1, 1};

			nt_error(d, m, "caps", "duplicate capability table id '%s'", fresh[i].id);
			caps_free(&fresh[i]);
			bad = -1;
		} else if (add_table(db, &fresh[i], override, d)) {
			bad = -1;
		}
	}
	free(fresh);
	return bad;
}

static int load_builtin(struct nt_capsdb *db, struct nt_diags *d)
{
	int bad = 0;
	size_t i;

	for (i = 0; i < nt_caps_nbuiltin; i++) {
		struct nt_caps c;
		char *p = nt_xasprintf("schema/nics/%s", nt_caps_builtin[i].name);

		if (load_one(&c, p, nt_caps_builtin[i].text, nt_caps_builtin[i].len,
			     "built-in", d)) {
			caps_free(&c);
			bad = -1;
		} else if (add_table(db, &c, false, d)) {
			bad = -1;
		}
		free(p);
	}
	return bad;
}

/* A PCI id names one table: a device matched by it must not depend on
 * which of two tables is read first.  Reported at the local table when one
 * of the two is built in. */
static int pci_conflicts(const struct nt_capsdb *db, struct nt_diags *d)
{
	size_t a, b, i, j;
	int bad = 0;

	for (a = 0; a < db->n; a++)
		for (b = a + 1; b < db->n; b++) {
			const struct nt_caps *x = &db->v[a], *y = &db->v[b];
			size_t xi = 0, yj = 0, shared = 0;

			if (!strcmp(y->origin, "built-in")) {
				x = &db->v[b];
				y = &db->v[a];
			}
			for (j = 0; j < y->npci; j++)
				for (i = 0; i < x->npci; i++)
					if (!strcmp(x->pci_ids[i], y->pci_ids[j]) && !shared++) {
						xi = i;
						yj = j;
					}
			if (!shared)
				continue;
			nt_error(d, y->pci_at[yj], "caps",
				 "PCI id %s%s is also in table '%s' (%s:%u); a device must "
				 "match one table (to change that table, use a file with its id)",
				 y->pci_ids[yj], shared > 1 ? " (with others)" : "", x->id,
				 x->pci_at[xi].file, x->pci_at[xi].line);
			bad = -1;
		}
	return bad;
}

int nt_capsdb_load(struct nt_capsdb *db, const char *dir, struct nt_diags *d)
{
	const char *local = caps_dir ? caps_dir : getenv("NETTUNE_CAPS_DIR");
	int bad = 0;

	memset(db, 0, sizeof(*db));
	if (dir) {
		db->dir = nt_xstrdup(dir);
		bad = load_dir(db, dir, false, d);
	} else {
		bad = load_builtin(db, d);
		if (local && *local) {
			db->dir = nt_xstrdup(local);
			if (load_dir(db, local, true, d))
				bad = -1;
		}
	}
	if (db->n > 1)
		qsort(db->v, db->n, sizeof(*db->v), cmp_caps);
	if (pci_conflicts(db, d))
		bad = -1;
	return bad;
}

int nt_capsdb_load_builtin(struct nt_capsdb *db, struct nt_diags *d)
{
	int bad;

	memset(db, 0, sizeof(*db));
	bad = load_builtin(db, d);
	if (db->n > 1)
		qsort(db->v, db->n, sizeof(*db->v), cmp_caps);
	return bad;
}

/* Parses a table known so far by its index entry.  The entry is replaced
 * in place, so pointers to it stay valid. */
static int parse_lazy(struct nt_caps *c, struct nt_diags *d)
{
	const struct nt_caps_text *t = &nt_caps_builtin[c->lazy - 1];
	struct nt_caps full;
	int r;

	r = load_one(&full, c->file, t->text, t->len, "built-in", d);
	if (!r && (strcmp(full.id, c->id) || strcmp(full.driver, c->driver) ||
		   full.npci != c->npci)) {
		struct nt_mark m = {nt_intern(c->file), 1, 1};

		nt_error(d, m, "caps", "table '%s' does not agree with the index the build read "
			 "(scripts/embed_caps.py)", c->id);
		r = -1;
	}
	if (r) {
		caps_free(&full);
		return -1;
	}
	caps_free(c);
	*c = full;
	return 0;
}

/* A table about to be returned, parsed first if need be.  A built-in table
 * that does not parse is a defect of the build (the caps tests load every
 * one): its located errors are printed and the run stops rather than go on
 * without limits it has. */
static const struct nt_caps *parsed(const struct nt_caps *c)
{
	struct nt_diags d = {0};

	if (!c || !c->lazy)
		return c;
	if (parse_lazy((struct nt_caps *)c, &d)) {
		nt_diags_sort(&d);
		nt_diags_print_text(&d, stderr);
		fprintf(stderr, "nettune: the built-in capability table %s does not load\n", c->file);
		exit(70);
	}
	nt_diags_free(&d);
	return c;
}

int nt_capsdb_parse_all(const struct nt_capsdb *db, struct nt_diags *d)
{
	int bad = 0;
	size_t i;

	for (i = 0; db && i < db->n; i++)
		if (db->v[i].lazy && parse_lazy(&((struct nt_capsdb *)db)->v[i], d))
			bad = -1;
	return bad;
}

const struct nt_caps *nt_caps_find(const struct nt_capsdb *db, const char *id)
{
	size_t i;

	for (i = 0; db && i < db->n; i++)
		if (!strcmp(db->v[i].id, id))
			return parsed(&db->v[i]);
	return NULL;
}

/* Whether kernel release (as in uname -r) is older than version ("6.2");
 * false when either cannot be parsed. */
static bool kernel_older(const char *kernel, const char *version)
{
	unsigned a, b, x, y;

	if (!kernel || !version || sscanf(kernel, "%u.%u", &a, &b) != 2 ||
	    sscanf(version, "%u.%u", &x, &y) != 2)
		return false;
	return a < x || (a == x && b < y);
}

/* An offload toggle the profile turns off (and nowhere on). */
static bool toggled_off(const struct nt_toggle *t)
{
	return t && t->all && !*t->all && !(t->ipv4 && *t->ipv4) && !(t->ipv6 && *t->ipv6);
}

struct nt_num nt_caps_rx_max(const struct nt_caps *c, const struct nt_iface *f, char *why,
			     size_t n, bool *mtu_unset)
{
	const struct nt_offloads *o = f->offloads;

	*mtu_unset = false;
	if (n)
		why[0] = 0;
	if (!c->ring_rx_max_no_agg.known)
		return c->ring_rx_max;
	if (!toggled_off(o ? o->gro_hw : NULL))
		snprintf(why, n, "offloads.gro_hw is not off%s", o && o->gro_hw ? "" :
			 " (the profile leaves rx-gro-hw as it is; it is on by default)");
	else if (!toggled_off(o ? o->lro : NULL))
		snprintf(why, n, "offloads.lro is not off%s", o && o->lro ? "" :
			 " (the profile leaves large-receive-offload as it is)");
	else if (f->mtu && *f->mtu > c->no_agg_mtu_max.v)
		snprintf(why, n, "mtu %u needs jumbo (aggregation) buffers above %u", *f->mtu,
			 c->no_agg_mtu_max.v);
	else {
		*mtu_unset = !f->mtu;
		return c->ring_rx_max_no_agg;
	}
	return c->ring_rx_max;
}

/* The parameter is not among those the driver takes. */
static void coal_unsupported(const struct nt_caps *c, const char *src, struct nt_caps_issue *is)
{
	struct nt_buf b = {0};
	int j;

	for (j = 0; j < NT_CO__COUNT; j++)
		if (c->coal_params & (1u << j))
			nt_buf_printf(&b, "%s%s", b.n ? ", " : "", nt_coal_names[j]);
	if (!b.n)
		snprintf(is->msg, sizeof(is->msg),
			 "coalesce.%s: %s (%s) has no interrupt coalescing settings "
			 "(%s)", is->key, c->id, c->driver, src);
	else
		snprintf(is->msg, sizeof(is->msg),
			 "coalesce.%s: %s (%s) does not support this parameter; it "
			 "takes %s (%s)", is->key, c->id, c->driver, b.p, src);
	nt_buf_free(&b);
}

/* A usecs value below the minimum and not one of the driver's mode values. */
static void coal_below_min(const struct nt_caps *c, uint32_t v, const char *src,
			   struct nt_caps_issue *is)
{
	struct nt_buf b = {0};
	unsigned j;

	for (j = 0; j < 32; j++)
		if (c->coal_usecs_modes & (1u << j))
			nt_buf_printf(&b, "%s%u", b.n ? ", " : "", j);
	snprintf(is->msg, sizeof(is->msg),
		 "coalesce.%s = %u is below the %s minimum of %u microseconds%s%s%s "
		 "(%s)", is->key, v, c->id, c->coal_usecs_min.v,
		 b.n ? "; below it only " : "", b.n ? b.p : "",
		 b.n ? " (modes) are accepted" : "", src);
	nt_buf_free(&b);
}

/* usecs refused while adaptive moderation of the same direction is on. */
static bool coal_adaptive(const struct nt_caps *c, const struct nt_coalesce *co, int k,
			  const char *src, struct nt_caps_issue *is)
{
	const bool *a = k == NT_CO_RX_USECS ? co->adaptive_rx : co->adaptive_tx;
	const char *dir = k == NT_CO_RX_USECS ? "rx" : "tx";

	if (!a || !*a)
		return false;
	snprintf(is->msg, sizeof(is->msg),
		 "coalesce.%s cannot be set with adaptive_%s on: %s (%s) "
		 "refuses to change %s-usecs while adaptive-%s is enabled; "
		 "turn adaptive_%s off or leave %s_usecs out (%s)", is->key,
		 dir, c->id, c->driver, dir, dir, dir, dir, src);
	return true;
}

/* The issue of parameter k (value *u when numeric) into is; false when none. */
static bool coal_issue(const struct nt_caps *c, const struct nt_coalesce *co, int k,
		       const uint32_t *u, struct nt_caps_issue *is)
{
	const char *src = c->src_coalesce ? c->src_coalesce : c->id;
	bool usecs = k == NT_CO_RX_USECS || k == NT_CO_TX_USECS;

	is->key = nt_coal_names[k];
	if (c->coal_params_known && !(c->coal_params & (1u << k))) {
		coal_unsupported(c, src, is);
		return true;
	}
	if (usecs && c->coal_usecs_max.known && *u > c->coal_usecs_max.v) {
		snprintf(is->msg, sizeof(is->msg),
			 "coalesce.%s = %u exceeds the %s maximum of %u microseconds (%s)",
			 is->key, *u, c->id, c->coal_usecs_max.v, src);
		return true;
	}
	if (usecs && c->coal_usecs_min.known && *u < c->coal_usecs_min.v &&
	    !(*u < 32 && (c->coal_usecs_modes & (1u << *u)))) {
		coal_below_min(c, *u, src, is);
		return true;
	}
	if ((k == NT_CO_RX_FRAMES || k == NT_CO_TX_FRAMES) &&
	    c->coal_frames_max.known && *u > c->coal_frames_max.v) {
		snprintf(is->msg, sizeof(is->msg),
			 "coalesce.%s = %u exceeds the %s maximum of %u frames (%s)",
			 is->key, *u, c->id, c->coal_frames_max.v, src);
		return true;
	}
	if (usecs && c->coal_usecs_with_adaptive == NT_TRI_NO)
		return coal_adaptive(c, co, k, src, is);
	return false;
}

size_t nt_caps_coalesce_issues(const struct nt_caps *c, const struct nt_iface *f,
			       struct nt_caps_issue *out, size_t max)
{
	const struct nt_coalesce *co = f->coalesce;
	uint32_t *u[NT_CO__COUNT];
	bool present[NT_CO__COUNT];
	size_t n = 0;
	int k;

	if (!co)
		return 0;
	u[NT_CO_RX_USECS] = co->rx_usecs;
	u[NT_CO_TX_USECS] = co->tx_usecs;
	u[NT_CO_RX_FRAMES] = co->rx_frames;
	u[NT_CO_TX_FRAMES] = co->tx_frames;
	u[NT_CO_ADAPTIVE_RX] = u[NT_CO_ADAPTIVE_TX] = NULL;
	for (k = 0; k < NT_CO__COUNT; k++)
		present[k] = u[k] != NULL;
	present[NT_CO_ADAPTIVE_RX] = co->adaptive_rx != NULL;
	present[NT_CO_ADAPTIVE_TX] = co->adaptive_tx != NULL;
	for (k = 0; k < NT_CO__COUNT && n < max; k++)
		if (present[k] && coal_issue(c, co, k, u[k], &out[n]))
			n++;
	return n;
}

uint32_t nt_pow2_down(uint32_t v)
{
	uint32_t p = 1;

	while (p <= v / 2)
		p *= 2;
	return v ? p : 0;
}

uint32_t nt_pow2_up(uint32_t v)
{
	uint32_t p = nt_pow2_down(v);

	return !v ? 1 : p == v ? v : p > UINT32_MAX / 2 ? 0 : p * 2;
}

bool nt_caps_ring_before(const struct nt_caps *c, const char *kernel)
{
	unsigned a, b, z = 0, x, y, w;
	size_t i;

	if (!c || !c->ring_max_since || !c->ring_max_before.known ||
	    !kernel_older(kernel, c->ring_max_since) ||
	    sscanf(kernel, "%u.%u.%u", &a, &b, &z) < 2)
		return false;
	for (i = 0; i < c->nbackports; i++)
		if (sscanf(c->ring_backports[i], "%u.%u.%u", &x, &y, &w) == 3 && a == x &&
		    b == y && z >= w)
			return false;
	return true;
}

bool nt_caps_has_pci(const struct nt_caps *c, const char *pci)
{
	size_t j;

	for (j = 0; c && pci && j < c->npci; j++)
		if (!strcasecmp(c->pci_ids[j], pci))
			return true;
	return false;
}

const struct nt_caps *nt_caps_match(const struct nt_capsdb *db, const char *driver,
				    const char *pci, enum nt_caps_how *how)
{
	enum nt_caps_how h = NT_CAPS_NONE;
	const struct nt_caps *r = NULL;
	size_t i;

	for (i = 0; db && pci && i < db->n && !r; i++)
		if (nt_caps_has_pci(&db->v[i], pci)) {
			r = &db->v[i];
			h = NT_CAPS_BY_PCI;
		}
	for (i = 0; db && driver && i < db->n && !r; i++) {
		if (strcmp(db->v[i].driver, driver))
			continue;
		if (db->v[i].npci) {
			h = NT_CAPS_FAMILY;
			continue;
		}
		r = &db->v[i];
		h = NT_CAPS_BY_DRIVER;
	}
	if (how)
		*how = h;
	return parsed(r);
}

char *nt_caps_driver_ids(const struct nt_capsdb *db, const char *driver)
{
	struct nt_buf b = {0};
	size_t i;

	for (i = 0; db && driver && i < db->n; i++)
		if (!strcmp(db->v[i].driver, driver))
			nt_buf_printf(&b, "%s%s", b.n ? ", " : "", db->v[i].id);
	return b.p ? b.p : nt_xstrdup("");
}

const char *nt_caps_suggest(const struct nt_capsdb *db, const char *name)
{
	const char *hit = NULL, *c[256];
	size_t i, n, len = strlen(name), nhit = 0;

	for (i = 0; db && len >= 3 && i < db->n; i++) {
		const char *id = db->v[i].id;
		size_t il = strlen(id);

		if ((il > len && id[il - len - 1] == '-' && !strcasecmp(id + il - len, name)) ||
		    strcasestr(id, name)) {
			hit = id;
			nhit++;
		}
	}
	if (nhit == 1)
		return hit;
	/* a sub-model of a table's model: mellanox-cx6dx is mellanox-cx6 */
	hit = NULL;
	for (i = 0; db && i < db->n; i++) {
		const char *id = db->v[i].id;
		size_t il = strlen(id);

		if (il >= 3 && il < len && !strncasecmp(name, id, il) &&
		    (!hit || il > strlen(hit)))
			hit = id;
	}
	if (hit)
		return hit;
	for (n = 0; db && n < db->n && n < 256; n++)
		c[n] = db->v[n].id;
	return nt_suggest(name, c, n);
}

void nt_capsdb_free(struct nt_capsdb *db)
{
	size_t i;

	for (i = 0; i < db->n; i++)
		caps_free(&db->v[i]);
	free(db->v);
	free(db->dir);
	memset(db, 0, sizeof(*db));
}

static struct nt_capsdb defdb;
static int defdb_state;	/* 0 not loaded, 1 loaded, -1 failed */

/* The built-in tables from their build-time index, none parsed yet (the
 * build checked that ids and PCI ids are unique). */
static void index_builtin(struct nt_capsdb *db)
{
	size_t i, j;

	memset(db, 0, sizeof(*db));
	db->v = nt_xcalloc(nt_caps_nbuiltin_index, sizeof(*db->v));
	for (i = 0; i < nt_caps_nbuiltin_index; i++) {
		const struct nt_caps_index *x = &nt_caps_builtin_index[i];
		struct nt_caps *c = &db->v[db->n++];

		c->id = nt_xstrdup(x->id);
		c->driver = nt_xstrdup(x->driver);
		c->file = nt_xasprintf("schema/nics/%s", nt_caps_builtin[i].name);
		c->origin = nt_xstrdup("built-in");
		c->pci_ids = nt_xcalloc(x->npci + 1, sizeof(char *));
		for (j = 0; j < x->npci; j++)
			c->pci_ids[j] = nt_xstrdup(x->pci[j]);
		c->npci = x->npci;
		c->lazy = i + 1;
	}
	if (db->n > 1)
		qsort(db->v, db->n, sizeof(*db->v), cmp_caps);
}

const struct nt_capsdb *nt_capsdb_default(struct nt_diags *d)
{
	const char *local = caps_dir ? caps_dir : getenv("NETTUNE_CAPS_DIR");

	if (!defdb_state && (!local || !*local) && nt_caps_nbuiltin_index &&
	    nt_caps_nbuiltin_index == nt_caps_nbuiltin) {
		index_builtin(&defdb);
		defdb_state = 1;
	}
	if (!defdb_state)
		defdb_state = nt_capsdb_load(&defdb, NULL, d) && !defdb.n ? -1 : 1;
	return defdb_state > 0 ? &defdb : NULL;
}

void nt_capsdb_default_free(void)
{
	nt_capsdb_free(&defdb);
	defdb_state = 0;
}
