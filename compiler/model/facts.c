/* SPDX-License-Identifier: MIT */
/* Host facts container. */
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "facts.h"

void nt_facts_init(struct nt_facts *f)
{
	memset(f, 0, sizeof(*f));
	/* all bits set is -1: one vectorised fill, not 8,192 stores (a batch
	 * compile initialises facts three times per profile) */
	memset(f->cpu_node, 0xff, sizeof(f->cpu_node));
	memset(f->cpu_core, 0xff, sizeof(f->cpu_core));
	f->irqbalance = -1;
	f->uro_disabled_mask = -1;
}

static void iface_free(struct nt_iface_facts *i)
{
	size_t k;

	for (k = 0; k < i->nirqs; k++)
		free(i->irqs[k].name);
	for (k = 0; k < i->ntx_irqs; k++)
		free(i->tx_irqs[k].name);
	free(i->tx_irqs);
	nt_strpool_free(&i->feature_names);
	free(i->irqs);
	free(i->features);
	if (i->feature_index)
		nt_strindex_reset(i->feature_index);
	free(i->feature_index);
	free(i->name);
	free(i->driver);
	free(i->pci);
	free(i->kind);
	free(i->description);
	free(i->rsc_failure_ipv4);
	free(i->rsc_failure_ipv6);
	free(i->ifindex);
}

void nt_facts_free(struct nt_facts *f)
{
	size_t i;

	for (i = 0; i < f->nifs; i++)
		iface_free(&f->ifs[i]);
	if (f->if_index)
		nt_strindex_reset(f->if_index);
	free(f->if_index);
	for (i = 0; i < f->ndiagnosis; i++)
		free(f->diagnosis[i]);
	free(f->diagnosis);
	free(f->ifs);
	for (i = 0; i < f->nsysctls; i++) {
		free(f->sysctls[i].key);
		free(f->sysctls[i].suggest);
	}
	free(f->sysctls);
	free(f->hostname);
	free(f->target);
	free(f->kernel);
	free(f->machine_id);
	free(f->netns);
	nt_facts_init(f);
}

/* Arrays up to this size are searched in order; larger ones (a snapshot
 * is untrusted and may list 100,000 interfaces or features) through an
 * index of positions, kept as a cache: appends need no upkeep.  The
 * first SCANS_MAX lookups of a larger array are made in order too: lowering
 * asks a device for a handful of its ~64 features, fewer comparisons than
 * hashing all 64 to index them (a no-op apply of 1024 veths hashed 65,536
 * names for 5,120 lookups); many lookups still get the index. */
#define INDEX_MIN 8
#define SCANS_MAX 8

static const char *iface_name(const void *arr, size_t i)
{
	return ((const struct nt_iface_facts *)arr)[i].name;
}

static const char *feature_name(const void *arr, size_t i)
{
	return ((const struct nt_feature_fact *)arr)[i].name;
}

static size_t find(struct nt_strindex **x, unsigned *scans, const void *arr, size_t n,
		   nt_strindex_key_fn key, const char *name)
{
	size_t i;

	if (n > INDEX_MIN && (*x || ++*scans > SCANS_MAX)) {
		if (!*x)
			*x = nt_xcalloc(1, sizeof(**x));
		return nt_strindex_find(*x, arr, n, key, name);
	}
	for (i = 0; i < n; i++)
		if (!strcmp(key(arr, i), name))
			return i;
	return SIZE_MAX;
}

struct nt_iface_facts *nt_facts_iface(const struct nt_facts *f, const char *name)
{
	struct nt_facts *m = (struct nt_facts *)f;	/* the index is a cache */
	size_t i = find(&m->if_index, &m->if_scans, f->ifs, f->nifs, iface_name, name);

	return i == SIZE_MAX ? NULL : &f->ifs[i];
}

struct nt_iface_facts *nt_facts_add_iface(struct nt_facts *f, const char *name)
{
	struct nt_iface_facts *i;

	f->ifs = nt_xgrow(f->ifs, f->nifs, sizeof(*f->ifs));
	i = &f->ifs[f->nifs++];
	memset(i, 0, sizeof(*i));
	i->name = nt_xstrdup(name);
	i->numa_node = -1;
	return i;
}

/* Profiles name at most 1024 sysctls: searched in order. */
const struct nt_sysctl_fact *nt_facts_sysctl(const struct nt_facts *f, const char *key)
{
	size_t i;

	for (i = 0; i < f->nsysctls; i++)
		if (!strcmp(f->sysctls[i].key, key))
			return &f->sysctls[i];
	return NULL;
}

struct nt_sysctl_fact *nt_facts_add_sysctl(struct nt_facts *f, const char *key, bool exists,
					   bool writable)
{
	struct nt_sysctl_fact *s;

	f->sysctls = nt_xgrow(f->sysctls, f->nsysctls, sizeof(*f->sysctls));
	s = &f->sysctls[f->nsysctls++];
	s->key = nt_xstrdup(key);
	s->exists = exists;
	s->writable = writable;
	s->suggest = NULL;
	return s;
}

const struct nt_feature_fact *nt_facts_feature(const struct nt_iface_facts *i, const char *name)
{
	struct nt_iface_facts *m = (struct nt_iface_facts *)i;	/* the index is a cache */
	size_t k;

	if (!i)
		return NULL;
	k = find(&m->feature_index, &m->feature_scans, i->features, i->nfeatures, feature_name, name);
	return k == SIZE_MAX ? NULL : &i->features[k];
}

/* irqs are kept sorted by queue (the observer and the snapshot loader sort
 * them): a binary search, so 65536 queues do not make lowering quadratic. */
const struct nt_irq_fact *nt_facts_irq(const struct nt_iface_facts *i, uint32_t queue)
{
	size_t lo = 0, hi;

	if (!i || !i->nirqs)
		return NULL;
	if (queue < i->nirqs && i->irqs[queue].queue == queue)
		return &i->irqs[queue];		/* the usual dense table */
	hi = i->nirqs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (i->irqs[mid].queue == queue)
			return &i->irqs[mid];
		if (i->irqs[mid].queue < queue)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct nt_irq_fact *nt_facts_tx_irqs(const struct nt_iface_facts *i, uint32_t queue, size_t *n)
{
	size_t lo = 0, hi, e;

	*n = 0;
	if (!i || !i->ntx_irqs)
		return NULL;
	hi = i->ntx_irqs;
	while (lo < hi) {		/* the first entry of queue */
		size_t mid = lo + (hi - lo) / 2;

		if (i->tx_irqs[mid].queue < queue)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (e = lo; e < i->ntx_irqs && i->tx_irqs[e].queue == queue; e++)
		;
	*n = e - lo;
	return *n ? &i->tx_irqs[lo] : NULL;
}
