/* SPDX-License-Identifier: MIT */
/* Host facts container. */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "facts.h"

void nt_facts_init(struct nt_facts *f)
{
	size_t i;

	memset(f, 0, sizeof(*f));
	for (i = 0; i < NT_MAX_CPUS; i++) {
		f->cpu_node[i] = -1;
		f->cpu_core[i] = -1;
	}
	f->irqbalance = -1;
	f->uro_disabled_mask = -1;
}

static void iface_free(struct nt_iface_facts *i)
{
	size_t k;

	for (k = 0; k < i->nirqs; k++)
		free(i->irqs[k].name);
	for (k = 0; k < i->nfeatures; k++)
		free(i->features[k].name);
	free(i->irqs);
	free(i->features);
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
	for (i = 0; i < f->ndiagnosis; i++)
		free(f->diagnosis[i]);
	free(f->diagnosis);
	free(f->ifs);
	free(f->hostname);
	free(f->target);
	free(f->kernel);
	free(f->machine_id);
	nt_facts_init(f);
}

struct nt_iface_facts *nt_facts_iface(const struct nt_facts *f, const char *name)
{
	size_t i;

	for (i = 0; i < f->nifs; i++)
		if (!strcmp(f->ifs[i].name, name))
			return &f->ifs[i];
	return NULL;
}

struct nt_iface_facts *nt_facts_add_iface(struct nt_facts *f, const char *name)
{
	struct nt_iface_facts *i;

	f->ifs = nt_xrealloc(f->ifs, (f->nifs + 1) * sizeof(*f->ifs));
	i = &f->ifs[f->nifs++];
	memset(i, 0, sizeof(*i));
	i->name = nt_xstrdup(name);
	i->numa_node = -1;
	return i;
}

const struct nt_feature_fact *nt_facts_feature(const struct nt_iface_facts *i, const char *name)
{
	size_t k;

	for (k = 0; i && k < i->nfeatures; k++)
		if (!strcmp(i->features[k].name, name))
			return &i->features[k];
	return NULL;
}

const struct nt_irq_fact *nt_facts_irq(const struct nt_iface_facts *i, uint32_t queue)
{
	size_t k;

	for (k = 0; i && k < i->nirqs; k++)
		if (i->irqs[k].queue == queue)
			return &i->irqs[k];
	return NULL;
}
