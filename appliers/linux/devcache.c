/* SPDX-License-Identifier: MIT */
/* The device cache: one dump per message family for all devices (devcache.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/base/buf.h"
#include "devcache.h"
#include "family.h"
#include "link.h"

/* The ethtool families dumped by the cache, by slot. */
static const struct nt_ethnl_family *const fams[NT_DC__COUNT] = {
	[NT_DC_CHANNELS] = &nt_fam_channels,
	[NT_DC_RINGS] = &nt_fam_rings,
	[NT_DC_COALESCE] = &nt_fam_coalesce,
};

struct dev {
	char *name;
	unsigned have;			/* 1 << family: in that family's last dump */
	unsigned got;			/* 1 << family: read alone since it went stale */
	int gerr[NT_DC__COUNT];		/* ... and the answer, when not 0 */
	uint32_t link[NT_LINK_ATTRS_MAX];	/* by nt_link_attrs index */
	char *kind;
	struct nt_features feat;
	struct nt_ethnl_vals vals[NT_DC__COUNT];	/* of fams[] */
	bool rss_read;
	int rss_err;
	struct nt_rss_state rss;
};

static struct {
	struct nt_ethnl *nl;
	bool nl_tried;
	struct dev *v;
	size_t n, cap;
	size_t *slot;			/* index + 1, 0 = empty */
	size_t nslots;
	bool loaded[NT_DC__COUNT];
	int err[NT_DC__COUNT];		/* of the last dump */
	int nl_err;			/* why the ethtool socket did not open */
	bool nl_transient;		/* ... and whether it may open next time */
	bool last_transient;		/* the last read failed in the transport */
	int failed[NT_DC__COUNT];	/* the last dump's failure (not "unsupported") */
	bool failed_transient[NT_DC__COUNT];
	char **no_rss;			/* link kinds whose devices refuse ETHTOOL_GRSSH */
	size_t nno_rss;
	char **narrow;			/* devices read alone (a GET each), not dumped */
	size_t nnarrow;
} dc;

int nt_devcache_failure(char *buf, size_t len)
{
	static const char *const what[NT_DC__COUNT] = {"links (RTM_GETLINK)", "features"};
	int n = 0;

	*buf = '\0';
	if (!dc.nl && dc.nl_err && dc.nl_err != -EPROTONOSUPPORT) {
		snprintf(buf, len, "the ethtool netlink family could not be resolved: %s%s",
			 strerror(-dc.nl_err), dc.nl_transient ? " (netlink transport)" : "");
		n++;
	}
	for (int f = 0; f < NT_DC__COUNT; f++) {
		if (!dc.failed[f])
			continue;
		if (!n)
			snprintf(buf, len, "the dump of %s failed: %s%s",
				 fams[f] ? fams[f]->what : what[f],
				 strerror(-dc.failed[f]),
				 dc.failed_transient[f] ? " (netlink transport, 3 tries)" : "");
		n++;
	}
	return n;
}

bool nt_devcache_transient(void)
{
	return dc.last_transient;
}

struct nt_ethnl *nt_devcache_ethnl(void)
{
	if (!dc.nl_tried) {
		int r = nt_ethnl_open(&dc.nl);

		/* no ethtool family (an old kernel) is an answer; a transport
		 * failure of the family resolve is tried again next time */
		dc.nl_err = r;
		dc.nl_transient = r && r != -EPROTONOSUPPORT && r != -ENOMEM;
		dc.nl_tried = !dc.nl_transient;
		if (!r)
			dc.nl_err = 0;
	}
	return dc.nl;
}

static void free_dev(struct dev *d)
{
	free(d->name);
	free(d->kind);
	nt_features_free(&d->feat);
	nt_rss_free(&d->rss);
}

void nt_devcache_reset(void)
{
	size_t k;

	for (k = 0; k < dc.n; k++)
		free_dev(&dc.v[k]);
	free(dc.v);
	free(dc.slot);
	for (k = 0; k < dc.nno_rss; k++)
		free(dc.no_rss[k]);
	free(dc.no_rss);
	nt_devcache_narrow(NULL, 0);
	nt_ethnl_close(dc.nl);
	nt_link_close();
	memset(&dc, 0, sizeof(dc));
}

void nt_devcache_stale(enum nt_dc_family f)
{
	dc.loaded[f] = false;
	dc.failed[f] = 0;
	for (size_t k = 0; k < dc.n; k++)
		dc.v[k].got &= ~(1u << f);
}

void nt_devcache_stale_all(void)
{
	size_t k;

	for (k = 0; k < NT_DC__COUNT; k++) {
		dc.loaded[k] = false;
		dc.failed[k] = 0;
	}
	for (k = 0; k < dc.n; k++) {
		nt_rss_free(&dc.v[k].rss);
		dc.v[k].rss_read = false;
		dc.v[k].got = 0;
	}
}

void nt_devcache_narrow(const char *const *devs, size_t n)
{
	for (size_t k = 0; k < dc.nnarrow; k++)
		free(dc.narrow[k]);
	free(dc.narrow);
	dc.narrow = n ? nt_xcalloc(n, sizeof(char *)) : NULL;
	dc.nnarrow = n;
	for (size_t k = 0; k < n; k++)
		dc.narrow[k] = nt_xstrdup(devs[k]);
}

static bool narrowed(const char *name)
{
	for (size_t k = 0; k < dc.nnarrow; k++)
		if (!strcmp(dc.narrow[k], name))
			return true;
	return false;
}

static uint32_t hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static struct dev *find(const char *name)
{
	size_t h;

	if (!dc.nslots)
		return NULL;
	for (h = hash(name) & (dc.nslots - 1); dc.slot[h]; h = (h + 1) & (dc.nslots - 1))
		if (!strcmp(dc.v[dc.slot[h] - 1].name, name))
			return &dc.v[dc.slot[h] - 1];
	return NULL;
}

static void reindex(void)
{
	size_t k, h;

	free(dc.slot);
	for (dc.nslots = 64; dc.nslots < dc.n * 2; dc.nslots *= 2)
		;
	dc.slot = nt_xcalloc(dc.nslots, sizeof(*dc.slot));
	for (k = 0; k < dc.n; k++) {
		for (h = hash(dc.v[k].name) & (dc.nslots - 1); dc.slot[h]; h = (h + 1) & (dc.nslots - 1))
			;
		dc.slot[h] = k + 1;
	}
}

static struct dev *get(const char *name)
{
	struct dev *d = find(name);

	if (d)
		return d;
	if (dc.n == dc.cap) {
		dc.cap = dc.cap ? dc.cap * 2 : 64;
		dc.v = nt_xrealloc(dc.v, dc.cap * sizeof(*dc.v));
	}
	memset(&dc.v[dc.n], 0, sizeof(dc.v[dc.n]));
	dc.v[dc.n].name = nt_xstrdup(name);
	dc.n++;
	if (dc.n * 2 > dc.nslots) {
		reindex();
	} else {
		size_t h;

		for (h = hash(name) & (dc.nslots - 1); dc.slot[h]; h = (h + 1) & (dc.nslots - 1))
			;
		dc.slot[h] = dc.n;
	}
	return &dc.v[dc.n - 1];
}

static void on_link(void *ctx, const char *name, const uint32_t *v, const char *kind)
{
	struct dev *d = get(name);

	(void)ctx;
	d->have |= 1u << NT_DC_LINK;
	memcpy(d->link, v, sizeof(d->link));
	free(d->kind);
	d->kind = kind ? nt_xstrdup(kind) : NULL;
}

static void on_features(void *ctx, const char *name, void *state)
{
	struct dev *d = get(name);
	struct nt_features *f = state;

	(void)ctx;
	nt_features_free(&d->feat);
	d->feat = *f;		/* takes the bits */
	memset(f, 0, sizeof(*f));
	d->have |= 1u << NT_DC_FEATURES;
}

static void on_vals(void *ctx, const char *name, void *state)
{
	struct dev *d = get(name);
	enum nt_dc_family f = (enum nt_dc_family)(intptr_t)ctx;

	d->vals[f] = *(struct nt_ethnl_vals *)state;
	d->have |= 1u << f;
}

/* The family's reply for one device alone (a narrowed device): a GET,
 * asked again after a transport failure like a dump.  What the kernel
 * answers is kept until the family goes stale: the device's values, or
 * that it has no such device (-ENODEV) or operation (-EOPNOTSUPP, as a
 * dump leaves it out); another failure counts as the family's. */
static struct dev *load_one(enum nt_dc_family f, const char *name, int *err)
{
	struct nt_ethnl *nl = f == NT_DC_LINK ? NULL : nt_devcache_ethnl();
	struct dev *d = find(name);
	bool transient = false;
	int r, tries = 0;

	if (!d || !(d->got & (1u << f))) {
		do {
			struct nt_ethnl_vals v;
			struct nt_features ft;

			if (f != NT_DC_LINK && !nl) {
				r = dc.nl_err ? dc.nl_err : -EOPNOTSUPP;
			} else if (f == NT_DC_LINK) {
				r = nt_link_get(name, on_link, NULL);
			} else if (f == NT_DC_FEATURES) {
				r = nt_ethnl_features_get(nl, name, &ft);
				if (!r)
					on_features(NULL, name, &ft);
			} else {
				r = nt_ethnl_vals_get(nl, fams[f], name, &v);
				if (!r)
					on_vals((void *)(intptr_t)f, name, &v);
			}
			transient = r && (f == NT_DC_LINK ? nt_link_transient() :
					  nl ? nt_ethnl_transient(nl) : dc.nl_transient);
		} while (transient && f == NT_DC_LINK && r != -EINTR && ++tries < NT_ETHNL_READ_TRIES);
		dc.last_transient = transient;
		if (transient) {
			dc.failed[f] = r;
			dc.failed_transient[f] = true;
			*err = r;
			return NULL;
		}
		if (r == -ENODEV || r == -ENOENT)
			r = f == NT_DC_LINK ? -ENODEV : -EOPNOTSUPP;
		/* the kernel answers for an alternative name (altname) with the
		 * device's own: a name the dump would not list is no device */
		if (!r && f == NT_DC_LINK && (!(d = find(name)) || !(d->have & (1u << f))))
			r = -ENODEV;
		if (r && r != -EOPNOTSUPP && r != -ENODEV) {
			dc.failed[f] = r;
			dc.failed_transient[f] = false;
		}
		d = get(name);
		d->got |= 1u << f;
		d->gerr[f] = r;
		if (r)
			d->have &= ~(1u << f);
	}
	dc.last_transient = false;
	*err = d->gerr[f];
	return *err ? NULL : d;
}

/* The family's reply for dev, dumping the family first when stale (or
 * reading the device alone when it is narrowed). */
static struct dev *load(enum nt_dc_family f, const char *name, int *err)
{
	struct dev *d;
	size_t k;

	if (!dc.loaded[f] && dc.nnarrow && narrowed(name))
		return load_one(f, name, err);
	if (!dc.loaded[f]) {
		struct nt_ethnl *nl = f == NT_DC_LINK ? NULL : nt_devcache_ethnl();
		bool transient = false;
		int r, tries = 0;

		do {
			for (k = 0; k < dc.n; k++)
				dc.v[k].have &= ~(1u << f);
			if (f != NT_DC_LINK && !nl)
				r = dc.nl_err ? dc.nl_err : -EOPNOTSUPP;
			else if (f == NT_DC_LINK)
				r = nt_link_dump(on_link, NULL);
			else if (f == NT_DC_FEATURES)
				r = nt_ethnl_features_dump(nl, on_features, NULL);
			else
				r = nt_ethnl_vals_dump(nl, fams[f], on_vals, (void *)(intptr_t)f);
			transient = r && (f == NT_DC_LINK ? nt_link_transient() :
					  nl ? nt_ethnl_transient(nl) : dc.nl_transient);
			/* the ethtool dumps ask again themselves (ethnl.c) */
		} while (transient && f == NT_DC_LINK && r != -EINTR && ++tries < NT_ETHNL_READ_TRIES);
		/* a failure of the transport is not the device's answer: the
		 * next read dumps again (a kernel's refusal is kept) */
		dc.loaded[f] = !transient;
		dc.err[f] = r;
		dc.failed[f] = r == -EOPNOTSUPP && !transient ? 0 : r;
		dc.failed_transient[f] = transient;
		if (transient) {
			for (k = 0; k < dc.n; k++)
				dc.v[k].have &= ~(1u << f);
			*err = r;
			dc.last_transient = true;
			return NULL;
		}
	}
	dc.last_transient = false;
	if (dc.err[f]) {
		*err = dc.err[f];
		return NULL;
	}
	d = find(name);
	if (!d || !(d->have & (1u << f))) {
		*err = f == NT_DC_LINK ? -ENODEV : -EOPNOTSUPP;
		return NULL;
	}
	*err = 0;
	return d;
}

int nt_devcache_link(const char *dev, struct nt_dc_link *out)
{
	int err;
	struct dev *d = load(NT_DC_LINK, dev, &err);

	if (d) {
		memcpy(out->v, d->link, sizeof(out->v));
		out->kind = d->kind;
	}
	return err;
}

int nt_devcache_features(const char *dev, const struct nt_features **out)
{
	int err;
	struct dev *d = load(NT_DC_FEATURES, dev, &err);

	if (d)
		*out = &d->feat;
	return err;
}

static int slot_of(const struct nt_ethnl_family *fam)
{
	int f;

	for (f = 0; f < NT_DC__COUNT && fams[f] != fam; f++)
		;
	return f;
}

void nt_devcache_vals_stale(const struct nt_ethnl_family *fam)
{
	int f = slot_of(fam);

	if (f < NT_DC__COUNT)
		nt_devcache_stale((enum nt_dc_family)f);
	else
		nt_devcache_stale_all();
}

int nt_devcache_vals(const struct nt_ethnl_family *fam, const char *dev,
		     struct nt_ethnl_vals *out)
{
	int err, f = slot_of(fam);
	struct dev *d;

	if (f == NT_DC__COUNT)
		return -EOPNOTSUPP;
	d = load((enum nt_dc_family)f, dev, &err);
	if (d)
		*out = d->vals[f];
	return err;
}

int nt_devcache_rss(const char *dev, const struct nt_rss_state **out)
{
	struct dev *d = get(dev);
	struct nt_dc_link l = {0};
	size_t k;

	if (!d->rss_read) {
		/* a link kind (veth) whose first device refused: the others do too */
		bool known_none = false;

		if (!nt_devcache_link(dev, &l) && l.kind)
			for (k = 0; k < dc.nno_rss && !known_none; k++)
				known_none = !strcmp(dc.no_rss[k], l.kind);
		d = find(dev);	/* the link dump may have moved the table */
		nt_rss_free(&d->rss);
		d->rss_err = known_none ? -EOPNOTSUPP : nt_rss_get(dev, &d->rss);
		d->rss_read = true;
		if (d->rss_err == -EOPNOTSUPP && l.kind && !known_none) {
			dc.no_rss = nt_xrealloc(dc.no_rss, (dc.nno_rss + 1) * sizeof(char *));
			dc.no_rss[dc.nno_rss++] = nt_xstrdup(l.kind);
		}
	}
	if (!d->rss_err)
		*out = &d->rss;
	return d->rss_err;
}

void nt_devcache_rss_stale(const char *dev)
{
	struct dev *d = find(dev);

	if (d) {
		nt_rss_free(&d->rss);
		d->rss_read = false;
	}
}
