/* SPDX-License-Identifier: MIT */
/*
 * Proof of effect, target-neutral side: two samples of where traffic
 * really lands (taken by a target's sampler: appliers/linux/watch.h)
 * differenced and judged against the intended IRQ placement (the
 * desired state's "irq-affinity N" settings), and the report as text and
 * JSON.  Figures in findings are computed from the counters; the
 * thresholds are the constants below.
 */
#ifndef NT_REPORT_WATCH_H
#define NT_REPORT_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../compiler/base/buf.h"
#include "../compiler/model/facts.h"
#include "../compiler/model/settings.h"

/* A queue IRQ that fires outside its intent for at least this share of its
 * interrupts is a finding (a little slack for an IRQ moved mid-interval). */
#define NT_WATCH_OFF_AFFINITY_MIN	0.01
/* Queues are judged only when the interface carried at least this many
 * packets (or queue interrupts) in the window: an idle link proves nothing. */
#define NT_WATCH_MIN_TRAFFIC		1000
/* Imbalance: max/mean above this, or Jain's fairness index below this. */
#define NT_WATCH_MAX_OVER_MEAN		2.0
#define NT_WATCH_JAIN_MIN		0.80
/* NET_RX softirqs off the NIC's node above this share (of at least
 * NT_WATCH_MIN_TRAFFIC softirqs) is a finding. */
#define NT_WATCH_OFF_NODE_MAX		0.10

/* Interface counters from /sys/class/net/X/statistics judged for growth. */
enum nt_watch_ctr {
	NT_WC_RX_PACKETS,
	NT_WC_TX_PACKETS,
	NT_WC_RX_BYTES,
	NT_WC_TX_BYTES,
	NT_WC_RX_DROPPED,
	NT_WC_TX_DROPPED,
	NT_WC_RX_MISSED,
	NT_WC_RX_FIFO,
	NT_WC_RX_ERRORS,
	NT_WC_TX_ERRORS,
	NT_WC__COUNT,
};
extern const char *const nt_watch_ctr_names[NT_WC__COUNT];

enum nt_qfield {
	NT_QF_RX_PACKETS,
	NT_QF_TX_PACKETS,
	NT_QF_RX_BYTES,
	NT_QF_TX_BYTES,
	NT_QF__COUNT,
};

struct nt_watch_ifsample {
	char *name;
	uint64_t (*q)[NT_QF__COUNT];	/* per queue */
	size_t nq;
	bool qstats;			/* per-queue counters were found */
	uint64_t ctr[NT_WC__COUNT];
	bool have[NT_WC__COUNT];
};

struct nt_watch_sample {
	double t;			/* seconds: /proc/uptime, or the monotonic clock */
	bool t_known;
	unsigned ncpus;
	/* queue IRQs of the watched interfaces, in facts order */
	unsigned *irq;
	size_t nirq;
	uint64_t *irq_cpu;		/* nirq x ncpus */
	struct nt_cpuset *aff;		/* smp_affinity_list now */
	bool *aff_known;
	uint64_t *net_rx, *net_tx;	/* per CPU */
	uint64_t *processed, *dropped, *squeezed;
	bool softirqs, softnet;
	struct nt_watch_ifsample *ifs;
	size_t nifs;
};

struct nt_watch_queue {
	uint32_t queue;
	int irq;			/* -1: no IRQ of its own */
	bool has_intent;
	struct nt_cpuset intent;
	bool aff_known;
	struct nt_cpuset aff;
	uint64_t irqs;			/* interrupts in the window */
	int top_cpu;			/* CPU that took most of them, -1 none */
	uint64_t off;			/* interrupts outside the intent */
	int off_cpu;			/* the CPU outside it that took most, -1 */
	uint64_t off_cpu_n;
	bool have_pkts;
	uint64_t v[NT_QF__COUNT];
};

struct nt_watch_ifreport {
	char *name;
	const char *driver;
	const char *kind;		/* the link kind (veth) of a device without a driver */
	int numa_node;
	bool queues_uncounted;		/* per-queue counters stayed 0 while the interface's
					 * moved (veth off its NAPI path): total is those */
	struct nt_watch_queue *q;
	size_t nq;
	const char *metric;		/* "packets" or "interrupts" */
	uint64_t total, max, min;
	double mean, max_over_mean, jain;
	uint64_t ctr[NT_WC__COUNT];
	bool have[NT_WC__COUNT];
};

struct nt_finding {
	char *kind;			/* irq-off-affinity, dead-queue, imbalance, ... */
	char *object;			/* "enp1s0f0 queue 5 (irq 206)" */
	char *figure;			/* what was measured */
	char *action;			/* what to do */
};

struct nt_watch_report {
	double seconds;
	unsigned intervals;
	unsigned ncpus;
	struct nt_watch_ifreport *ifs;
	size_t nifs;
	uint64_t *net_rx, *net_tx, *processed, *dropped, *squeezed;	/* per CPU */
	bool softirqs, softnet;
	struct nt_finding *fv;
	size_t nf;
};

/* What the judgement compares with: the desired state (NULL: none), the
 * command that restores it, and whether irqbalance runs. */
struct nt_watch_intent {
	const struct nt_state *desired;
	const char *restore;		/* "nettune apply x.yaml" */
};

void nt_watch_judge(const struct nt_facts *f, const struct nt_watch_intent *in,
		    const struct nt_watch_sample *a, const struct nt_watch_sample *b,
		    double seconds, unsigned intervals, struct nt_watch_report *r);
void nt_watch_report_free(struct nt_watch_report *r);
void nt_watch_print_text(const struct nt_watch_report *r, struct nt_buf *out);
void nt_watch_print_json(const struct nt_watch_report *r, const struct nt_facts *f,
			 const char *against, struct nt_buf *out);
#endif
