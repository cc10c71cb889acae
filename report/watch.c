/* SPDX-License-Identifier: MIT */
/* nettune watch, target-neutral side: deltas of two samples judged against the
 * intended IRQ placement, and the report as text and JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../compiler/base/jsonw.h"
#include "rate.h"
#include "watch.h"

const char *const nt_watch_ctr_names[NT_WC__COUNT] = {
	[NT_WC_RX_PACKETS] = "rx_packets",
	[NT_WC_TX_PACKETS] = "tx_packets",
	[NT_WC_RX_BYTES] = "rx_bytes",
	[NT_WC_TX_BYTES] = "tx_bytes",
	[NT_WC_RX_DROPPED] = "rx_dropped",
	[NT_WC_TX_DROPPED] = "tx_dropped",
	[NT_WC_RX_MISSED] = "rx_missed_errors",
	[NT_WC_RX_FIFO] = "rx_fifo_errors",
	[NT_WC_RX_ERRORS] = "rx_errors",
	[NT_WC_TX_ERRORS] = "tx_errors",
};

/* What to do when an interface counter grows, per counter (NULL: not judged). */
static const char *const ctr_action[NT_WC__COUNT] = {
	[NT_WC_RX_DROPPED] = "the stack dropped received packets (backlog full, no buffer, "
			     "unknown protocol): compare with the softnet drops and raise "
			     "net.core.netdev_max_backlog if they match",
	[NT_WC_TX_DROPPED] = "transmits were dropped by the qdisc or the driver: check "
			     "'tc -s qdisc show dev IFACE' and rings.tx",
	[NT_WC_RX_MISSED] = "the NIC ran out of RX descriptors: raise rings.rx, or spread the "
			    "load over more queues and cores",
	[NT_WC_RX_FIFO] = "the NIC's receive FIFO overflowed: raise rings.rx and check that "
			  "the queue IRQs are served on idle cores",
	[NT_WC_RX_ERRORS] = "receive errors: check the link (cable, optics) and 'ethtool -S "
			    "IFACE' for the error class",
	[NT_WC_TX_ERRORS] = "transmit errors: check the link and 'ethtool -S IFACE'",
};

/* ---- judgement -------------------------------------------------------- */

static uint64_t d64(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;	/* a counter reset reads as no traffic */
}

static void add_finding(struct nt_watch_report *r, const char *kind, char *object, char *figure,
			char *action)
{
	r->fv = nt_xrealloc(r->fv, (r->nf + 1) * sizeof(*r->fv));
	r->fv[r->nf].kind = nt_xstrdup(kind);
	r->fv[r->nf].object = object;
	r->fv[r->nf].figure = figure;
	r->fv[r->nf].action = action;
	r->nf++;
}

static const char *node_word(const struct nt_facts *f, int cpu, char *buf, size_t n)
{
	if (cpu >= 0 && f->topo_known && f->cpu_node[cpu] >= 0)
		snprintf(buf, n, " (node %d)", f->cpu_node[cpu]);
	else
		buf[0] = '\0';
	return buf;
}

static char *object_of(const struct nt_watch_ifreport *ir, const struct nt_watch_queue *q)
{
	if (q->irq >= 0)
		return nt_xasprintf("%s queue %u (irq %d)", ir->name, q->queue, q->irq);
	return nt_xasprintf("%s queue %u", ir->name, q->queue);
}

static void judge_irqs(const struct nt_facts *f, const struct nt_watch_intent *in,
		       struct nt_watch_ifreport *ir, struct nt_watch_report *r)
{
	size_t k;

	for (k = 0; k < ir->nq; k++) {
		struct nt_watch_queue *q = &ir->q[k];
		char *want, *now, nb[32];
		const char *how;

		if (!q->has_intent || q->irq < 0)
			continue;
		want = nt_cpuset_str(&q->intent);
		now = q->aff_known ? nt_cpuset_str(&q->aff) : nt_xstrdup("unreadable");
		how = f->irqbalance == 1 ?
		      "; irqbalance is running and moves every IRQ it is not told to leave alone: "
		      "keep irq.irqbalance: ban in the profile" :
		      "; irqbalance is not running: a driver reset (link flap, channel change) or "
		      "another tool rewrote it";
		if (q->irqs && (double)q->off / (double)q->irqs >= NT_WATCH_OFF_AFFINITY_MIN) {
			char *cpu_w = nt_xasprintf("%s%s", nt_cpuset_count(&q->intent) == 1 ? "CPU" : "CPUs", "");

			add_finding(r, "irq-off-affinity", object_of(ir, q),
				    nt_xasprintf("%llu of %llu interrupts (%.1f%%) outside its intended %s %s, "
						 "most on CPU %d%s; smp_affinity_list is now %s",
						 (unsigned long long)q->off, (unsigned long long)q->irqs,
						 100.0 * (double)q->off / (double)q->irqs, cpu_w, want,
						 q->off_cpu, node_word(f, q->off_cpu, nb, sizeof(nb)), now),
				    nt_xasprintf("restore it with '%s'%s", in->restore, how));
			free(cpu_w);
		} else if (q->aff_known && !nt_cpuset_equal(&q->aff, &q->intent)) {
			add_finding(r, "irq-affinity-changed", object_of(ir, q),
				    nt_xasprintf("smp_affinity_list is %s, intended %s (%llu interrupts "
						 "in the window, none outside the intent yet)", now, want,
						 (unsigned long long)q->irqs),
				    nt_xasprintf("restore it with '%s'%s", in->restore, how));
		}
		free(want);
		free(now);
	}
}

static void judge_queues(struct nt_watch_ifreport *ir, struct nt_watch_report *r, double secs)
{
	size_t k, dead = 0;
	struct nt_buf b = {0};

	if (ir->nq < 2 || ir->total < NT_WATCH_MIN_TRAFFIC || ir->queues_uncounted)
		return;
	for (k = 0; k < ir->nq; k++) {
		const struct nt_watch_queue *q = &ir->q[k];
		uint64_t v = !strcmp(ir->metric, "packets") ?
			     q->v[NT_QF_RX_PACKETS] + q->v[NT_QF_TX_PACKETS] : q->irqs;
		double others;

		if (v)
			continue;
		dead++;
		others = (double)ir->total / (double)(ir->nq - 1);
		nt_buf_printf(&b, "0 %s in %.1f s while the other %zu queues averaged %.0f %s (",
			      ir->metric, secs, ir->nq - 1, others, ir->metric);
		nt_fmt_rate(&b, others / secs);
		nt_buf_puts(&b, "/s)");
		add_finding(r, "dead-queue", object_of(ir, q), nt_buf_take(&b),
			    nt_xasprintf("check that the RSS indirection table still sends flows to "
					 "queue %u ('ethtool -x %s'; rss.spread: equal restores it) and that "
					 "the queue's IRQ is enabled; with very few flows, more flows or "
					 "another RSS key spread them", q->queue, ir->name));
	}
	(void)dead;
	if (ir->max_over_mean > NT_WATCH_MAX_OVER_MEAN || ir->jain < NT_WATCH_JAIN_MIN) {
		size_t top = 0;

		for (k = 1; k < ir->nq; k++) {
			uint64_t a = !strcmp(ir->metric, "packets") ?
				     ir->q[k].v[NT_QF_RX_PACKETS] + ir->q[k].v[NT_QF_TX_PACKETS] : ir->q[k].irqs;
			uint64_t t = !strcmp(ir->metric, "packets") ?
				     ir->q[top].v[NT_QF_RX_PACKETS] + ir->q[top].v[NT_QF_TX_PACKETS] :
				     ir->q[top].irqs;

			if (a > t)
				top = k;
		}
		add_finding(r, "imbalance", nt_xasprintf("%s queues", ir->name),
			    nt_xasprintf("max/mean %.2f (queue %u: %llu %s, mean %.0f), Jain's fairness "
					 "index %.3f over %zu queues", ir->max_over_mean, ir->q[top].queue,
					 (unsigned long long)ir->max, ir->metric, ir->mean, ir->jain, ir->nq),
			    nt_xasprintf("RSS spreads the flows unevenly: check the indirection table "
					 "and the fields hashed per flow type ('nettune observe %s' shows "
					 "both) and whether there are enough flows to spread",
					 ir->name));
	}
}

static void judge_counters(struct nt_watch_ifreport *ir, struct nt_watch_report *r, double secs)
{
	size_t k;

	for (k = 0; k < NT_WC__COUNT; k++) {
		struct nt_buf b = {0};

		if (!ctr_action[k] || !ir->have[k] || !ir->ctr[k])
			continue;
		nt_buf_printf(&b, "+%llu in %.1f s (", (unsigned long long)ir->ctr[k], secs);
		nt_fmt_rate(&b, (double)ir->ctr[k] / secs);
		nt_buf_puts(&b, "/s)");
		add_finding(r, "drops", nt_xasprintf("%s %s", ir->name, nt_watch_ctr_names[k]),
			    nt_buf_take(&b), nt_xstrdup(ctr_action[k]));
	}
}

/* The busiest CPU of v among those whose node is (or is not) in nodes. */
static int busiest(const struct nt_facts *f, const uint64_t *v, unsigned ncpus)
{
	unsigned c;
	int best = -1;

	(void)f;
	for (c = 0; c < ncpus; c++)
		if (v[c] && (best < 0 || v[c] > v[best]))
			best = (int)c;
	return best;
}

static void judge_softnet(const struct nt_facts *f, struct nt_watch_report *r, double secs)
{
	static const struct {
		const char *kind, *what, *action;
		size_t off;
	} rows[] = {
		{"softnet-drops", "dropped", "the per-CPU backlog overflowed: raise "
		 "net.core.netdev_max_backlog, or move RPS and receive work off the saturated CPUs",
		 offsetof(struct nt_watch_report, dropped)},
		{"time-squeeze", "time_squeeze", "NAPI ran out of budget before the queues were "
		 "empty: raise net.core.netdev_budget and net.core.netdev_budget_usecs, or spread "
		 "the queues over more cores", offsetof(struct nt_watch_report, squeezed)},
	};
	size_t k;

	if (!r->softnet)
		return;
	for (k = 0; k < NT_ARRAY_SIZE(rows); k++) {
		const uint64_t *v = *(uint64_t *const *)((const char *)r + rows[k].off);
		uint64_t tot = 0;
		unsigned c, ncpu = 0;
		int top;
		char nb[32];

		for (c = 0; c < r->ncpus; c++)
			if (v[c]) {
				tot += v[c];
				ncpu++;
			}
		if (!tot)
			continue;
		top = busiest(f, v, r->ncpus);
		add_finding(r, rows[k].kind, nt_xstrdup("softnet_stat"),
			    nt_xasprintf("+%llu %s in %.1f s on %u CPU%s, most on CPU %d%s (%llu)",
					 (unsigned long long)tot, rows[k].what, secs, ncpu,
					 ncpu == 1 ? "" : "s", top, node_word(f, top, nb, sizeof(nb)),
					 (unsigned long long)v[top]),
			    nt_xstrdup(rows[k].action));
	}
}

static void judge_nodes(const struct nt_facts *f, struct nt_watch_report *r)
{
	bool want[64] = {false};
	int nwant = 0, top = -1;
	uint64_t tot = 0, off = 0;
	unsigned c;
	size_t k;
	struct nt_buf names = {0}, nodes = {0};
	char nb[32];

	if (!r->softirqs || !f->topo_known || f->nnodes < 2)
		return;
	for (k = 0; k < r->nifs; k++) {
		int nd = r->ifs[k].numa_node;

		if (nd < 0 || nd >= (int)NT_ARRAY_SIZE(want))
			continue;
		if (!want[nd]) {
			nt_buf_printf(&nodes, "%s%d", nwant ? "," : "", nd);
			nwant++;
		}
		want[nd] = true;
		nt_buf_printf(&names, "%s%s", names.n ? ", " : "", r->ifs[k].name);
	}
	if (!nwant || nwant >= f->nnodes)
		goto out;
	for (c = 0; c < r->ncpus; c++) {
		int nd = f->cpu_node[c];

		tot += r->net_rx[c];
		if (nd >= 0 && nd < (int)NT_ARRAY_SIZE(want) && !want[nd]) {
			off += r->net_rx[c];
			if (r->net_rx[c] && (top < 0 || r->net_rx[c] > r->net_rx[top]))
				top = (int)c;
		}
	}
	if (tot < NT_WATCH_MIN_TRAFFIC || (double)off / (double)tot <= NT_WATCH_OFF_NODE_MAX)
		goto out;
	add_finding(r, "softirq-off-node", nt_xstrdup("NET_RX softirqs"),
		    nt_xasprintf("%.1f%% (%llu of %llu) ran outside node%s %s of %s, most on CPU "
				 "%d%s (%llu)", 100.0 * (double)off / (double)tot,
				 (unsigned long long)off, (unsigned long long)tot, nwant > 1 ? "s" : "",
				 nodes.p, names.p, top, node_word(f, top, nb, sizeof(nb)),
				 (unsigned long long)r->net_rx[top]),
		    nt_xasprintf("receive processing follows RPS (queues/rx-*/rps_cpus), the "
				 "queue IRQ's CPU and the receiving threads: keep them on node%s %s "
				 "(rps: {cpus: numa-local}, irq: {policy: numa-local-spread}, "
				 "processes: cpus: numa-local-of %s)", nwant > 1 ? "s" : "", nodes.p,
				 r->ifs[0].name));
out:
	nt_buf_free(&names);
	nt_buf_free(&nodes);
}

/* The interrupts of q's IRQ in the window: the busiest CPU, and those
 * outside the intent with the CPU that took most of them. */
static void count_irqs(const struct nt_watch_sample *a, const struct nt_watch_sample *b,
		       struct nt_watch_queue *q)
{
	uint64_t top = 0;
	size_t ik, c;

	for (ik = 0; q->irq >= 0 && ik < b->nirq; ik++)
		if (b->irq[ik] == (unsigned)q->irq)
			break;
	if (q->irq < 0 || ik >= b->nirq)
		return;
	q->aff_known = b->aff_known[ik];
	q->aff = b->aff[ik];
	for (c = 0; c < b->ncpus; c++) {
		uint64_t dv = d64(a->irq_cpu[ik * a->ncpus + c], b->irq_cpu[ik * b->ncpus + c]);

		if (!dv)
			continue;
		q->irqs += dv;
		if (dv > top) {
			top = dv;
			q->top_cpu = (int)c;
		}
		if (q->has_intent && !nt_cpuset_has(&q->intent, (unsigned)c)) {
			q->off += dv;
			if (dv > q->off_cpu_n) {
				q->off_cpu_n = dv;
				q->off_cpu = (int)c;
			}
		}
	}
}

/* Queue k of an interface: its IRQ, intent, interrupts and packets; returns
 * its traffic in the interface's metric. */
static uint64_t build_queue(const struct nt_iface_facts *fi, const struct nt_watch_intent *in,
			    const struct nt_watch_sample *a, const struct nt_watch_sample *b,
			    size_t ifk, size_t k, struct nt_watch_ifreport *ir)
{
	const struct nt_watch_ifsample *ia = &a->ifs[ifk], *ib = &b->ifs[ifk];
	struct nt_watch_queue *q = &ir->q[k];
	const struct nt_setting *s;
	char arg[16];
	size_t c;

	q->queue = fi && fi->nirqs ? fi->irqs[k].queue : (uint32_t)k;
	q->irq = fi && fi->nirqs && !fi->vmbus ? (int)fi->irqs[k].irq : -1;
	q->top_cpu = q->off_cpu = -1;
	snprintf(arg, sizeof(arg), "%u", q->queue);
	s = in && in->desired ? nt_state_get(in->desired, NT_K_IRQ_AFFINITY, ir->name, arg) : NULL;
	if (s && s->val.cpus) {
		q->has_intent = true;
		q->intent = *s->val.cpus;
	}
	count_irqs(a, b, q);
	if (ib->qstats && q->queue < ib->nq) {
		q->have_pkts = true;
		for (c = 0; c < NT_QF__COUNT; c++)
			q->v[c] = d64(q->queue < ia->nq ? ia->q[q->queue][c] : 0, ib->q[q->queue][c]);
	}
	return ib->qstats ? q->v[NT_QF_RX_PACKETS] + q->v[NT_QF_TX_PACKETS] : q->irqs;
}

/* Every queue of an interface, and the total, max, min, mean, max/mean
 * and Jain's index over them. */
static void build_queues(const struct nt_iface_facts *fi, const struct nt_watch_intent *in,
			 const struct nt_watch_sample *a, const struct nt_watch_sample *b,
			 size_t ifk, struct nt_watch_ifreport *ir)
{
	double sum = 0, sq = 0;
	size_t k;

	for (k = 0; k < ir->nq; k++) {
		uint64_t v = build_queue(fi, in, a, b, ifk, k, ir);

		ir->total += v;
		if (!k || v > ir->max)
			ir->max = v;
		if (!k || v < ir->min)
			ir->min = v;
		sum += (double)v;
		sq += (double)v * (double)v;
	}
	ir->mean = ir->nq ? sum / (double)ir->nq : 0;
	ir->max_over_mean = ir->mean > 0 ? (double)ir->max / ir->mean : 0;
	ir->jain = sq > 0 ? sum * sum / ((double)ir->nq * sq) : 1.0;
}

static void build_if(const struct nt_facts *f, const struct nt_watch_intent *in,
		     const struct nt_watch_sample *a, const struct nt_watch_sample *b, size_t ifk,
		     struct nt_watch_ifreport *ir)
{
	const struct nt_iface_facts *fi = nt_facts_iface(f, b->ifs[ifk].name);
	const struct nt_watch_ifsample *ia = &a->ifs[ifk], *ib = &b->ifs[ifk];
	size_t nq, k;

	ir->name = nt_xstrdup(ib->name);
	ir->driver = fi ? fi->driver : NULL;
	ir->kind = fi && !fi->driver ? fi->kind : NULL;
	ir->numa_node = fi ? fi->numa_node : -1;
	nq = fi && fi->nirqs ? fi->nirqs : ib->nq;
	ir->q = nt_xcalloc(nq + 1, sizeof(*ir->q));
	ir->nq = nq;
	ir->metric = ib->qstats ? "packets" : "interrupts";
	for (k = 0; k < NT_WC__COUNT; k++) {
		ir->have[k] = ia->have[k] && ib->have[k];
		ir->ctr[k] = ir->have[k] ? d64(ia->ctr[k], ib->ctr[k]) : 0;
	}
	build_queues(fi, in, a, b, ifk, ir);
	/* veth has per-queue counters (rx_queue_N_xdp_packets) but counts
	 * there only what it receives through NAPI (GRO or XDP on): traffic
	 * that bypasses it still moves the interface's counters.  Not "0
	 * packets/s" then, and no queue judged dead on zeros. */
	if (ib->qstats && !ir->total && ir->have[NT_WC_RX_PACKETS] && ir->have[NT_WC_TX_PACKETS] &&
	    ir->ctr[NT_WC_RX_PACKETS] + ir->ctr[NT_WC_TX_PACKETS]) {
		ir->queues_uncounted = true;
		ir->total = ir->ctr[NT_WC_RX_PACKETS] + ir->ctr[NT_WC_TX_PACKETS];
	}
}

void nt_watch_judge(const struct nt_facts *f, const struct nt_watch_intent *in,
		    const struct nt_watch_sample *a, const struct nt_watch_sample *b,
		    double seconds, unsigned intervals, struct nt_watch_report *r)
{
	size_t k;
	unsigned c;

	memset(r, 0, sizeof(*r));
	r->seconds = seconds > 0 ? seconds : 1;
	r->intervals = intervals;
	r->ncpus = b->ncpus;
	r->net_rx = nt_xcalloc(r->ncpus, sizeof(uint64_t));
	r->net_tx = nt_xcalloc(r->ncpus, sizeof(uint64_t));
	r->processed = nt_xcalloc(r->ncpus, sizeof(uint64_t));
	r->dropped = nt_xcalloc(r->ncpus, sizeof(uint64_t));
	r->squeezed = nt_xcalloc(r->ncpus, sizeof(uint64_t));
	r->softirqs = a->softirqs && b->softirqs;
	r->softnet = a->softnet && b->softnet;
	for (c = 0; c < r->ncpus; c++) {
		r->net_rx[c] = d64(a->net_rx[c], b->net_rx[c]);
		r->net_tx[c] = d64(a->net_tx[c], b->net_tx[c]);
		r->processed[c] = d64(a->processed[c], b->processed[c]);
		r->dropped[c] = d64(a->dropped[c], b->dropped[c]);
		r->squeezed[c] = d64(a->squeezed[c], b->squeezed[c]);
	}
	r->ifs = nt_xcalloc(b->nifs + 1, sizeof(*r->ifs));
	r->nifs = b->nifs;
	for (k = 0; k < b->nifs; k++)
		build_if(f, in, a, b, k, &r->ifs[k]);
	for (k = 0; k < r->nifs; k++) {
		judge_irqs(f, in, &r->ifs[k], r);
		judge_queues(&r->ifs[k], r, r->seconds);
	}
	judge_nodes(f, r);
	for (k = 0; k < r->nifs; k++)
		judge_counters(&r->ifs[k], r, r->seconds);
	judge_softnet(f, r, r->seconds);
}

void nt_watch_report_free(struct nt_watch_report *r)
{
	size_t k;

	for (k = 0; k < r->nifs; k++) {
		free(r->ifs[k].name);
		free(r->ifs[k].q);
	}
	free(r->ifs);
	for (k = 0; k < r->nf; k++) {
		free(r->fv[k].kind);
		free(r->fv[k].object);
		free(r->fv[k].figure);
		free(r->fv[k].action);
	}
	free(r->fv);
	free(r->net_rx);
	free(r->net_tx);
	free(r->processed);
	free(r->dropped);
	free(r->squeezed);
	memset(r, 0, sizeof(*r));
}

/* ---- output ----------------------------------------------------------- */

void nt_watch_print_text(const struct nt_watch_report *r, struct nt_buf *out)
{
	uint64_t rx = 0, tx = 0, pr = 0, dr = 0, sq = 0;
	size_t k;
	unsigned c;

	for (k = 0; k < r->nifs; k++) {
		const struct nt_watch_ifreport *ir = &r->ifs[k];
		uint64_t irqs = 0;
		size_t q;

		for (q = 0; q < ir->nq; q++)
			irqs += ir->q[q].irqs;
		/* names and drivers come from the host (a --root image) */
		if (ir->driver)
			nt_buf_printf(out, "%s: %s, ", nt_esc(ir->name), nt_esc(ir->driver));
		else if (ir->kind)
			nt_buf_printf(out, "%s: %s (no device driver), ", nt_esc(ir->name),
				      nt_esc(ir->kind));
		else
			nt_buf_printf(out, "%s: no driver, ", nt_esc(ir->name));
		nt_buf_printf(out, "node %d, %zu queues: ", ir->numa_node, ir->nq);
		nt_fmt_rate(out, (double)ir->total / r->seconds);
		nt_buf_printf(out, " %s/s%s", ir->metric,
			      ir->queues_uncounted ? " (the interface's counters)" : "");
		if (strcmp(ir->metric, "interrupts")) {
			nt_buf_puts(out, ", ");
			nt_fmt_rate(out, (double)irqs / r->seconds);
			nt_buf_puts(out, " interrupts/s");
		}
		if (ir->queues_uncounted)
			nt_buf_printf(out, "; the per-queue counters stayed at 0%s\n",
				      ir->kind && !strcmp(ir->kind, "veth") ?
				      ": veth counts per queue only what it receives through its NAPI "
				      "path (XDP, or GRO on the receiving end: drivers/net/veth.c "
				      "veth_skb_is_eligible_for_gro)" : "");
		else
			nt_buf_printf(out, "; per queue max/mean %.2f, Jain's index %.3f\n",
				      ir->max_over_mean, ir->jain);
	}
	for (c = 0; c < r->ncpus; c++) {
		rx += r->net_rx[c];
		tx += r->net_tx[c];
		pr += r->processed[c];
		dr += r->dropped[c];
		sq += r->squeezed[c];
	}
	nt_buf_puts(out, "softirqs: NET_RX ");
	nt_fmt_rate(out, (double)rx / r->seconds);
	nt_buf_puts(out, "/s, NET_TX ");
	nt_fmt_rate(out, (double)tx / r->seconds);
	nt_buf_printf(out, "/s; softnet: %llu processed, %llu dropped, %llu time_squeeze\n",
		      (unsigned long long)pr, (unsigned long long)dr, (unsigned long long)sq);
	if (!r->nf) {
		nt_buf_puts(out, "\nNo findings: the host behaves as planned.\n");
		return;
	}
	nt_buf_printf(out, "\n%zu finding%s:\n", r->nf, r->nf == 1 ? "" : "s");
	for (k = 0; k < r->nf; k++)
		nt_buf_printf(out, "  [%s] %s: %s\n      -> %s\n", r->fv[k].kind,
			      nt_esc(r->fv[k].object), nt_esc(r->fv[k].figure),
			      nt_esc(r->fv[k].action));
}

static void json_cpus(struct nt_jw *w, const char *key, bool known, const struct nt_cpuset *s)
{
	char *t = known ? nt_cpuset_str(s) : NULL;

	nt_jw_str(w, key, t);
	free(t);
}

static void json_int_or_null(struct nt_jw *w, const char *key, int v)
{
	if (v >= 0)
		nt_jw_int(w, key, v);
	else
		nt_jw_null(w, key);
}

static void json_findings(const struct nt_watch_report *r, struct nt_jw *w)
{
	size_t k;

	nt_jw_arr(w, "findings", NT_JW_LINES_OR_EMPTY);
	for (k = 0; k < r->nf; k++) {
		nt_jw_obj(w, NULL, NT_JW_INLINE);
		nt_jw_str(w, "kind", r->fv[k].kind);
		nt_jw_str(w, "object", r->fv[k].object);
		nt_jw_str(w, "figure", r->fv[k].figure);
		nt_jw_str(w, "action", r->fv[k].action);
		nt_jw_end(w);
	}
	nt_jw_end(w);
}

static void json_queue(const struct nt_watch_queue *x, struct nt_jw *w)
{
	nt_jw_obj(w, NULL, NT_JW_INLINE);
	nt_jw_uint(w, "queue", x->queue);
	json_int_or_null(w, "irq", x->irq);
	json_cpus(w, "intended", x->has_intent, &x->intent);
	json_cpus(w, "affinity", x->aff_known, &x->aff);
	nt_jw_uint(w, "interrupts", x->irqs);
	json_int_or_null(w, "cpu", x->top_cpu);
	nt_jw_uint(w, "off_affinity", x->off);
	if (x->have_pkts) {
		nt_jw_uint(w, "rx_packets", x->v[NT_QF_RX_PACKETS]);
		nt_jw_uint(w, "tx_packets", x->v[NT_QF_TX_PACKETS]);
		nt_jw_uint(w, "rx_bytes", x->v[NT_QF_RX_BYTES]);
		nt_jw_uint(w, "tx_bytes", x->v[NT_QF_TX_BYTES]);
	}
	nt_jw_end(w);
}

static void json_iface(const struct nt_watch_ifreport *ir, struct nt_jw *w)
{
	size_t j;

	nt_jw_obj(w, NULL, NT_JW_MIXED);
	nt_jw_str(w, "name", ir->name);
	nt_jw_str(w, "driver", ir->driver);
	nt_jw_int(w, "numa_node", ir->numa_node);
	nt_jw_str(w, "metric", ir->metric);
	nt_jw_uint(w, "total", ir->total);
	nt_jw_fixed(w, "max_over_mean", ir->max_over_mean, 3);
	nt_jw_fixed(w, "jain", ir->jain, 3);
	nt_jw_break(w);
	nt_jw_obj(w, "counters", NT_JW_INLINE);
	for (j = 0; j < NT_WC__COUNT; j++)
		if (ir->have[j])
			nt_jw_uint(w, nt_watch_ctr_names[j], ir->ctr[j]);
	nt_jw_end(w);
	nt_jw_break(w);
	nt_jw_arr(w, "queues", NT_JW_LINES_OR_EMPTY);
	for (j = 0; j < ir->nq; j++)
		json_queue(&ir->q[j], w);
	nt_jw_end(w);
	nt_jw_end(w);
}

/* the online CPUs' softirq and softnet counters */
static void json_cpu_counters(const struct nt_watch_report *r, const struct nt_facts *f,
			      struct nt_jw *w)
{
	unsigned c;

	nt_jw_arr(w, "cpus", NT_JW_LINES_OR_EMPTY);
	for (c = 0; c < r->ncpus; c++) {
		if (!nt_cpuset_has(&f->online, c))
			continue;
		nt_jw_obj(w, NULL, NT_JW_INLINE);
		nt_jw_uint(w, "cpu", c);
		nt_jw_int(w, "node", f->topo_known ? f->cpu_node[c] : -1);
		nt_jw_uint(w, "net_rx", r->net_rx[c]);
		nt_jw_uint(w, "net_tx", r->net_tx[c]);
		nt_jw_uint(w, "processed", r->processed[c]);
		nt_jw_uint(w, "dropped", r->dropped[c]);
		nt_jw_uint(w, "time_squeeze", r->squeezed[c]);
		nt_jw_end(w);
	}
	nt_jw_end(w);
}

void nt_watch_print_json(const struct nt_watch_report *r, const struct nt_facts *f,
			 const char *against, struct nt_buf *o)
{
	struct nt_jw w;
	size_t k;

	nt_jw_init(&w, o, 1);
	nt_jw_obj(&w, NULL, NT_JW_MIXED);
	nt_jw_str(&w, "against", against);
	nt_jw_fixed(&w, "seconds", r->seconds, 3);
	nt_jw_uint(&w, "intervals", r->intervals);
	nt_jw_str(&w, "verdict", r->nf ? "differs" : "as-planned");
	nt_jw_break(&w);
	json_findings(r, &w);
	nt_jw_break(&w);
	nt_jw_arr(&w, "interfaces", NT_JW_LINES_OR_EMPTY);
	for (k = 0; k < r->nifs; k++)
		json_iface(&r->ifs[k], &w);
	nt_jw_end(&w);
	nt_jw_break(&w);
	json_cpu_counters(r, f, &w);
	nt_jw_end(&w);
	nt_buf_putc(o, '\n');
}
