/* SPDX-License-Identifier: MIT */
/*
 * The topology map: NUMA nodes -> physical cores (SMT siblings together,
 * reserved CPUs marked) -> the queues/IRQs placed there, with their rates
 * when measured (watch) or without (plan --map).  Drawn as terminal text
 * (ANSI colour only when asked) or as a standalone SVG with a heat scale.
 */
#ifndef NT_TOPOMAP_H
#define NT_TOPOMAP_H

#include <stdbool.h>

#include "../compiler/base/buf.h"
#include "../compiler/model/facts.h"
#include "../compiler/model/settings.h"

struct nt_map_q {
	const char *iface;
	unsigned queue;
	int irq;			/* -1: none */
	int cpu;			/* where it is drawn */
	int want;			/* intended CPU when it ran elsewhere, else -1 */
	bool spread;			/* intended set is wider than one core */
	double rate;			/* per second (rates only) */
	bool dead;			/* carried nothing while the others did */
};

struct nt_map {
	const struct nt_facts *f;
	struct nt_cpuset reserved;
	struct nt_map_q *q;
	size_t nq;
	bool rates;			/* false: placement only (plan --map) */
	const char *unit;		/* "packets" or "interrupts" */
	double *cpu_rate;		/* per CPU NET_RX softirqs/s (rates only) */
	const char *title;
	const char *const *notes;	/* findings, listed under the SVG map */
	size_t nnotes;
};

/* Queues of the desired state's "irq-affinity N" settings, drawn at the
 * first CPU of their intended set (plan --map). */
void nt_map_from_desired(struct nt_map *m, const struct nt_facts *f, const struct nt_state *desired);
void nt_map_free_queues(struct nt_map *m);
void nt_map_text(const struct nt_map *m, bool color, struct nt_buf *out);
void nt_map_svg(const struct nt_map *m, struct nt_buf *out);

#endif
