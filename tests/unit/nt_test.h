/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the compiler unit tests: profiles from memory,
 * hand-built host facts, one lower + plan pass, located message text.
 * Header-only so that every test stays one .c file in meson.build.
 */
#ifndef NT_TEST_H
#define NT_TEST_H

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps.h"
#include "hostprofile.h"
#include "facts.h"
#include "load.h"
#include "lower.h"
#include "plan.h"
#include "settings.h"
#include "snapshot.h"
#include "validate.h"

/* A path below the source tree: $SRCROOT/rel, else ../../rel (the tests
 * run in tests/unit/). */
static inline char *t_src(const char *rel)
{
	const char *root = getenv("SRCROOT");

	return nt_xasprintf("%s/%s", root && *root ? root : "../..", rel);
}

/* "FILE:LINE:COL: message" of diagnostic i (file only when line is 0). */
static inline char *t_diag(const struct nt_diags *d, size_t i)
{
	const struct nt_diag *x = &d->v[i];

	if (!x->mark.line)
		return nt_xasprintf("%s: %s", x->mark.file ? x->mark.file : "", x->msg);
	return nt_xasprintf("%s:%u:%u: %s", x->mark.file, x->mark.line, x->mark.col, x->msg);
}

/* First error as text, or "" when there is none (never NULL). */
static inline char *t_first_error(const struct nt_diags *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].sev == NT_ERROR)
			return t_diag(d, i);
	return nt_xstrdup("");
}

/* Loads and validates a profile held in memory; fails the test on error. */
static inline int t_load(const char *name, const char *yaml, struct nt_loaded *l)
{
	struct nt_diags d = {0};
	int r = nt_load_profile_data(name, yaml, strlen(yaml), NULL, l, &d);

	if (!r && nt_validate(l, nt_capsdb_default(&d), &d))
		r = -1;
	if (r) {
		size_t i;

		for (i = 0; i < d.n; i++) {
			char *s = t_diag(&d, i);

			fprintf(stderr, "  %s\n", s);
			free(s);
		}
	}
	nt_diags_free(&d);
	CU_ASSERT_EQUAL_FATAL(r, 0);
	return r;
}

/* Topology of a host with nnodes nodes of `cores` physical cores each,
 * numbered as Linux does on Intel: first threads 0..N-1 (node by node),
 * then with smt the siblings N..2N-1 in the same order. */
static inline void t_topo(struct nt_facts *f, int nnodes, int cores, bool smt)
{
	int total = nnodes * cores, c;

	f->known = true;
	f->topo_known = true;
	f->nnodes = nnodes;
	f->target = nt_xstrdup("linux");
	nt_cpuset_clear(&f->online);
	for (c = 0; c < total * (smt ? 2 : 1); c++) {
		int core = c % total, node = core / cores;

		nt_cpuset_set(&f->online, (unsigned)c);
		nt_cpuset_set(&f->node_cpus[node], (unsigned)c);
		f->cpu_node[c] = node;
		f->cpu_core[c] = core;
	}
	f->ncpus = (uint32_t)(total * (smt ? 2 : 1));
}

/* A NIC with nq queue IRQs numbered from irq0. */
static inline struct nt_iface_facts *t_nic(struct nt_facts *f, const char *name, int node,
					   unsigned nq, unsigned irq0)
{
	struct nt_iface_facts *i = nt_facts_add_iface(f, name);
	unsigned q;

	i->kind = nt_xstrdup("physical");
	i->driver = nt_xstrdup("i40e");
	i->numa_node = node;
	i->rx_queues = i->tx_queues = nq;
	i->irqs = nt_xcalloc(nq ? nq : 1, sizeof(*i->irqs));
	for (q = 0; q < nq; q++) {
		i->irqs[q].queue = q;
		i->irqs[q].irq = irq0 + q;
	}
	i->nirqs = nq;
	return i;
}

/* Lowers l against facts and observed into desired; returns the error
 * count, diagnostics in d. */
static inline size_t t_lower(const struct nt_loaded *l, const struct nt_facts *f,
			     const struct nt_state *observed, struct nt_state *desired,
			     struct nt_diags *d, const char *host)
{
	struct nt_lower L = {0};

	L.l = l;
	L.db = nt_capsdb_default(d);
	L.facts = f;
	L.observed = observed;
	L.desired = desired;
	L.d = d;
	L.hostname = host ? host : l->p->metadata->name;
	return nt_lower(&L);
}

static inline void t_plan(const struct nt_loaded *l, const struct nt_facts *f,
			  const struct nt_state *observed, const struct nt_state *desired,
			  struct nt_plan *p)
{
	struct nt_plan_input in = {l, desired, observed, f};

	nt_plan_build(&in, p);
}

/* Index of the action (object, "attr arg") in the plan, or -1. */
static inline int t_find(const struct nt_plan *p, const char *obj, const char *attr)
{
	size_t i;

	for (i = 0; i < p->n; i++) {
		char *a = nt_action_attr(&p->v[i]);
		bool hit = !strcmp(p->v[i].object, obj) && !strcmp(a, attr);

		free(a);
		if (hit)
			return (int)i;
	}
	return -1;
}

/* The CPU list of a setting as text ("" when absent). */
static inline char *t_cpus(const struct nt_state *st, const char *obj, enum nt_kind_id k,
			   const char *arg)
{
	const struct nt_setting *s = nt_state_get(st, k, obj, arg);

	if (!s || s->val.t != NT_V_CPUS)
		return nt_xstrdup("");
	return nt_cpuset_str(s->val.cpus);
}

static inline int t_run(CU_pSuite s)
{
	unsigned fails;

	(void)s;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_failure_records();
	CU_cleanup_registry();
	nt_capsdb_default_free();
	return fails ? 1 : 0;
}

/* A profile lowered against hand-built facts, and its cleanup. */
struct lowered {
	struct nt_loaded l;
	struct nt_facts f;
	struct nt_state obs, des;
	struct nt_diags d;
	size_t errors;
};

static inline void t_lowered_free(struct lowered *x)
{
	nt_state_free(&x->des);
	nt_state_free(&x->obs);
	nt_facts_free(&x->f);
	nt_loaded_free(&x->l);
	nt_diags_free(&x->d);
}

#endif
