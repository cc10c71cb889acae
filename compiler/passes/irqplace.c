/* SPDX-License-Identifier: MIT */
/*
 * IRQ placement.  numa-local-spread gives each queue its own physical core
 * of the NIC's node: SMT siblings share the core's execution units and L1,
 * so two queues' softirq work on siblings competes (seed 001: "每个队列绑定
 * 一个独立物理核心").  Reserved CPUs never get IRQs.  With more queues than
 * cores, the next queues go to the SMT siblings (in CPU order), and only
 * past every usable CPU of the node does the assignment wrap: each CPU
 * gets at most ceil(queues / CPUs) queues, as nettune-profile(5) says.
 */
#include <string.h>

#include "lower.h"

void nt_placement_init(struct nt_placement *p, const struct nt_cpuset *cands,
		       const struct nt_facts *topo)
{
	bool core_seen[NT_MAX_CPUS];
	int c;

	memset(p, 0, sizeof(*p));
	memset(core_seen, 0, sizeof(core_seen));
	p->usable = *cands;
	for (c = nt_cpuset_next(cands, 0); c >= 0; c = nt_cpuset_next(cands, (unsigned)c + 1)) {
		int core = topo && topo->topo_known ? topo->cpu_core[c] : -1;

		if (core >= 0 && core < NT_MAX_CPUS && core_seen[core]) {
			p->siblings[p->nsiblings++] = c;
			continue;
		}
		if (core >= 0 && core < NT_MAX_CPUS)
			core_seen[core] = true;
		p->cores[p->ncores++] = c;
	}
}

int nt_placement_spread(const struct nt_placement *p, unsigned q)
{
	unsigned all = (unsigned)(p->ncores + p->nsiblings), k;

	if (!all)
		return -1;
	k = q % all;
	return k < (unsigned)p->ncores ? p->cores[k] : p->siblings[k - (unsigned)p->ncores];
}
