/* SPDX-License-Identifier: MIT */
/* nettune watch: sampling /proc and per-queue counters, deltas, and the judgement against the intended IRQ placement. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <math.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sysio.h"
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

/* ---- reading ---------------------------------------------------------- */

/* Whole file (no size limit: /proc/interrupts of a big host is large). */
static char *slurp(const char *path)
{
	struct nt_buf b = {0};
	char tmp[16384];
	ssize_t n;
	int fd = nt_sys_open(path, O_RDONLY, 0);

	if (fd < 0)
		return NULL;
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		nt_buf_putn(&b, tmp, (size_t)n);
	close(fd);
	nt_buf_putc(&b, '\0');
	return nt_buf_take(&b);
}

static char *slurp_root(const char *fmt, const char *arg)
{
	char *p = nt_sys_path(fmt, arg), *s = slurp(p);

	free(p);
	return s;
}

/* Header "CPU0 CPU1 ..." -> column -> CPU id; returns the column count. */
static size_t cpu_columns(const char *line, const char *eol, int *cols, size_t max)
{
	size_t n = 0;
	const char *p = line;

	while (p < eol && n < max) {
		while (p < eol && *p == ' ')
			p++;
		if (p + 3 < eol && !strncmp(p, "CPU", 3) && isdigit((unsigned char)p[3]))
			cols[n++] = atoi(p + 3);
		while (p < eol && *p != ' ')
			p++;
	}
	return n;
}

/* Parses up to ncol unsigned columns after "KEY:"; returns how many. */
static size_t parse_cols(const char *p, const char *eol, uint64_t *v, size_t ncol)
{
	size_t k = 0;
	char *end;

	while (k < ncol && p < eol) {
		while (p < eol && *p == ' ')
			p++;
		if (p >= eol || !isdigit((unsigned char)*p))
			break;
		v[k++] = strtoull(p, &end, 10);
		p = end;
	}
	return k;
}

static void read_interrupts(struct nt_watch_sample *s, const char *text)
{
	int cols[NT_MAX_CPUS];
	uint64_t *v = nt_xcalloc(NT_MAX_CPUS, sizeof(*v));
	const char *line = text, *eol = strchr(text, '\n');
	size_t ncol, k, c;

	if (!eol)
		goto out;
	ncol = cpu_columns(line, eol, cols, NT_MAX_CPUS);
	for (line = eol + 1; *line; line = eol + 1) {
		const char *p = line, *colon;
		char *end;
		unsigned long irq;

		eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		while (*p == ' ')
			p++;
		irq = strtoul(p, &end, 10);
		colon = end;
		if (end == p || *colon != ':')
			goto next;
		for (k = 0; k < s->nirq; k++)
			if (s->irq[k] == irq)
				break;
		if (k == s->nirq)
			goto next;
		memset(v, 0, ncol * sizeof(*v));
		ncol = ncol > NT_MAX_CPUS ? NT_MAX_CPUS : ncol;
		parse_cols(colon + 1, eol, v, ncol);
		for (c = 0; c < ncol; c++)
			if (cols[c] >= 0 && (unsigned)cols[c] < s->ncpus)
				s->irq_cpu[k * s->ncpus + (unsigned)cols[c]] = v[c];
next:
		if (!*eol)
			break;
	}
out:
	free(v);
}

static void read_softirqs(struct nt_watch_sample *s, const char *text)
{
	int cols[NT_MAX_CPUS];
	uint64_t *v = nt_xcalloc(NT_MAX_CPUS, sizeof(*v));
	const char *line = text, *eol = strchr(text, '\n');
	size_t ncol, c, got;

	if (!eol)
		goto out;
	ncol = cpu_columns(line, eol, cols, NT_MAX_CPUS);
	for (line = eol + 1; *line; line = eol + 1) {
		const char *p = line;
		uint64_t *dst = NULL;

		eol = strchr(line, '\n');
		if (!eol)
			eol = line + strlen(line);
		while (*p == ' ')
			p++;
		if (!strncmp(p, "NET_RX:", 7))
			dst = s->net_rx;
		else if (!strncmp(p, "NET_TX:", 7))
			dst = s->net_tx;
		if (dst) {
			got = parse_cols(p + 7, eol, v, ncol);
			for (c = 0; c < got; c++)
				if (cols[c] >= 0 && (unsigned)cols[c] < s->ncpus)
					dst[cols[c]] = v[c];
			s->softirqs = true;
		}
		if (!*eol)
			break;
	}
out:
	free(v);
}

/* One row per online CPU, hex columns: processed, dropped, time_squeeze,
 * ...; since Linux 5.10 (commit "net: add cpu index to softnet_stat") the
 * 13th column is the CPU, before that the row order is the online order. */
static void read_softnet(struct nt_watch_sample *s, const struct nt_facts *f, const char *text)
{
	const char *line = text;
	int row_cpu = -1;

	while (*line) {
		const char *eol = strchr(line, '\n');
		uint64_t v[16] = {0};
		size_t n = 0;
		const char *p = line;
		char *end;
		int cpu;

		if (!eol)
			eol = line + strlen(line);
		while (p < eol && n < 16) {
			while (p < eol && *p == ' ')
				p++;
			if (p >= eol)
				break;
			v[n] = strtoull(p, &end, 16);
			if (end == p)
				break;
			n++;
			p = end;
		}
		row_cpu = nt_cpuset_next(&f->online, (unsigned)(row_cpu + 1));
		cpu = n >= 13 ? (int)v[12] : row_cpu;
		if (n >= 3 && cpu >= 0 && (unsigned)cpu < s->ncpus) {
			s->processed[cpu] = v[0];
			s->dropped[cpu] = v[1];
			s->squeezed[cpu] = v[2];
			s->softnet = true;
		}
		if (!*eol)
			break;
		line = eol + 1;
	}
}

bool nt_watch_stat_name(const char *name, uint32_t *queue, enum nt_qfield *field)
{
	static const struct {
		const char *prefix;	/* then the queue number */
		const char *rx_pk, *rx_by;	/* suffixes after the number, rx */
		const char *tx_pk, *tx_by;
	} pats[] = {
		/* i40e, iavf: "%s-%u.packets" */
		{"rx-", ".packets", ".bytes", NULL, NULL},
		{"tx-", NULL, NULL, ".packets", ".bytes"},
		/* ice, ixgbe, igb, virtio (before 6.10), veth (XDP/NAPI path) */
		{"rx_queue_", "_packets", "_bytes", NULL, NULL},
		{"rx_queue_", "_xdp_packets", "_xdp_bytes", NULL, NULL},
		{"tx_queue_", NULL, NULL, "_packets", "_bytes"},
		{"tx_queue_", NULL, NULL, "_xdp_xmit", NULL},
		/* mlx5, virtio (6.10+): "rx%d_packets" */
		{"rx", "_packets", "_bytes", NULL, NULL},
		{"tx", NULL, NULL, "_packets", "_bytes"},
		/* bnxt_en: "[%d]: rx_ucast_packets", mcast and bcast alike */
		{"[", "]: rx_ucast_packets", "]: rx_ucast_bytes", "]: tx_ucast_packets", "]: tx_ucast_bytes"},
		{"[", "]: rx_mcast_packets", "]: rx_mcast_bytes", "]: tx_mcast_packets", "]: tx_mcast_bytes"},
		{"[", "]: rx_bcast_packets", "]: rx_bcast_bytes", "]: tx_bcast_packets", "]: tx_bcast_bytes"},
	};
	size_t k, j;

	for (k = 0; k < sizeof(pats) / sizeof(pats[0]); k++) {
		size_t pl = strlen(pats[k].prefix);
		const char *d = name + pl, *sfx[4];
		char *end;
		unsigned long q;

		if (strncmp(name, pats[k].prefix, pl) || !isdigit((unsigned char)*d))
			continue;
		q = strtoul(d, &end, 10);
		sfx[NT_QF_RX_PACKETS] = pats[k].rx_pk;
		sfx[NT_QF_RX_BYTES] = pats[k].rx_by;
		sfx[NT_QF_TX_PACKETS] = pats[k].tx_pk;
		sfx[NT_QF_TX_BYTES] = pats[k].tx_by;
		for (j = 0; j < NT_QF__COUNT; j++)
			if (sfx[j] && !strcmp(end, sfx[j]) && q < 65536) {
				*queue = (uint32_t)q;
				*field = (enum nt_qfield)j;
				return true;
			}
	}
	return false;
}

static void add_qstat(struct nt_watch_ifsample *is, const char *name, uint64_t val)
{
	uint32_t q;
	enum nt_qfield fld;

	if (!nt_watch_stat_name(name, &q, &fld))
		return;
	if (q >= is->nq) {
		is->q = nt_xrealloc(is->q, (q + 1) * sizeof(*is->q));
		memset(is->q + is->nq, 0, (q + 1 - is->nq) * sizeof(*is->q));
		is->nq = q + 1;
	}
	is->q[q][fld] += val;
	is->qstats = true;
}

/* `ethtool -S` text: "NIC statistics:" then "     name: value" lines. */
static void read_qstats_text(struct nt_watch_ifsample *is, const char *text)
{
	const char *line = text;

	while (*line) {
		const char *eol = strchr(line, '\n'), *p = line, *colon;
		char name[ETH_GSTRING_LEN + 8];

		if (!eol)
			eol = line + strlen(line);
		while (p < eol && (*p == ' ' || *p == '\t'))
			p++;
		/* the name may itself contain ": " (bnxt): the value follows the last one */
		colon = NULL;
		for (const char *c = p; c + 1 < eol; c++)
			if (c[0] == ':' && c[1] == ' ')
				colon = c;
		if (colon && (size_t)(colon - p) < sizeof(name)) {
			memcpy(name, p, (size_t)(colon - p));
			name[colon - p] = '\0';
			add_qstat(is, name, strtoull(colon + 2, NULL, 10));
		}
		if (!*eol)
			break;
		line = eol + 1;
	}
}

static int eioctl(int fd, const char *dev, void *data)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = data;
	return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

/* ETHTOOL_GSSET_INFO + GSTRINGS(ETH_SS_STATS) + GSTATS, as ethtool -S does. */
static int read_qstats_ioctl(struct nt_watch_ifsample *is, const char *dev)
{
	struct {
		struct ethtool_sset_info hdr;
		uint32_t len;
	} info = {{.cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_STATS}};
	struct ethtool_gstrings *str = NULL;
	struct ethtool_stats *st = NULL;
	uint32_t n, k;
	int fd, r;

	if (strlen(dev) >= IFNAMSIZ)
		return -ENAMETOOLONG;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = eioctl(fd, dev, &info);
	if (r)
		goto out;
	n = info.hdr.sset_mask ? info.len : 0;
	if (!n || n > 1u << 16) {
		r = -ENODATA;
		goto out;
	}
	str = nt_xcalloc(1, sizeof(*str) + (size_t)n * ETH_GSTRING_LEN);
	str->cmd = ETHTOOL_GSTRINGS;
	str->string_set = ETH_SS_STATS;
	str->len = n;
	st = nt_xcalloc(1, sizeof(*st) + (size_t)n * sizeof(uint64_t));
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = n;
	r = eioctl(fd, dev, str);
	if (!r)
		r = eioctl(fd, dev, st);
	if (r)
		goto out;
	for (k = 0; k < n && k < str->len && k < st->n_stats; k++) {
		char name[ETH_GSTRING_LEN + 1];

		memcpy(name, str->data + (size_t)k * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
		name[ETH_GSTRING_LEN] = '\0';
		add_qstat(is, name, st->data[k]);
	}
out:
	free(str);
	free(st);
	close(fd);
	return r;
}

static void read_iface(struct nt_watch_ifsample *is, const char *name)
{
	size_t k;

	is->name = nt_xstrdup(name);
	for (k = 0; k < NT_WC__COUNT; k++) {
		char *p = nt_sys_path("/sys/class/net/%s/statistics/%s", name, nt_watch_ctr_names[k]);
		char *s = nt_sys_read(p);

		if (s) {
			is->ctr[k] = strtoull(s, NULL, 10);
			is->have[k] = true;
		}
		free(s);
		free(p);
	}
	if (*nt_sys_root) {
		char *t = slurp_root("/ethtool-S/%s", name);

		if (t)
			read_qstats_text(is, t);
		free(t);
	} else {
		read_qstats_ioctl(is, name);
	}
}

int nt_watch_sample(const struct nt_facts *f, const char *const *ifaces, size_t nifaces,
		    struct nt_watch_sample *s)
{
	char *text;
	size_t k, j;
	int r = 0;

	memset(s, 0, sizeof(*s));
	s->ncpus = f->ncpus ? f->ncpus : 1;
	text = slurp_root("/proc/uptime", NULL);
	if (text && *nt_sys_root) {
		s->t = strtod(text, NULL);
		s->t_known = true;
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		s->t = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
		s->t_known = true;
	}
	free(text);
	for (k = 0; k < nifaces; k++) {
		const struct nt_iface_facts *i = nt_facts_iface(f, ifaces[k]);

		for (j = 0; i && j < i->nirqs; j++) {
			s->irq = nt_xrealloc(s->irq, (s->nirq + 1) * sizeof(*s->irq));
			s->irq[s->nirq++] = i->irqs[j].irq;
		}
	}
	s->irq_cpu = nt_xcalloc(s->nirq * s->ncpus + 1, sizeof(uint64_t));
	s->aff = nt_xcalloc(s->nirq + 1, sizeof(*s->aff));
	s->aff_known = nt_xcalloc(s->nirq + 1, sizeof(bool));
	s->net_rx = nt_xcalloc(s->ncpus, sizeof(uint64_t));
	s->net_tx = nt_xcalloc(s->ncpus, sizeof(uint64_t));
	s->processed = nt_xcalloc(s->ncpus, sizeof(uint64_t));
	s->dropped = nt_xcalloc(s->ncpus, sizeof(uint64_t));
	s->squeezed = nt_xcalloc(s->ncpus, sizeof(uint64_t));
	text = slurp_root("/proc/interrupts", NULL);
	if (!text)
		r = -errno;
	else
		read_interrupts(s, text);
	free(text);
	text = slurp_root("/proc/softirqs", NULL);
	if (text)
		read_softirqs(s, text);
	free(text);
	text = slurp_root("/proc/net/softnet_stat", NULL);
	if (text)
		read_softnet(s, f, text);
	free(text);
	for (k = 0; k < s->nirq; k++) {
		char buf[32];
		char *a;
		const char *err;

		snprintf(buf, sizeof(buf), "%u", s->irq[k]);
		a = slurp_root("/proc/irq/%s/smp_affinity_list", buf);
		if (a) {
			a[strcspn(a, "\n")] = '\0';
			s->aff_known[k] = nt_cpuset_parse(a, &s->aff[k], &err);
		}
		free(a);
	}
	s->ifs = nt_xcalloc(nifaces + 1, sizeof(*s->ifs));
	for (k = 0; k < nifaces; k++)
		read_iface(&s->ifs[k], ifaces[k]);
	s->nifs = nifaces;
	return r;
}

void nt_watch_sample_free(struct nt_watch_sample *s)
{
	size_t k;

	for (k = 0; k < s->nifs; k++) {
		free(s->ifs[k].name);
		free(s->ifs[k].q);
	}
	free(s->ifs);
	free(s->irq);
	free(s->irq_cpu);
	free(s->aff);
	free(s->aff_known);
	free(s->net_rx);
	free(s->net_tx);
	free(s->processed);
	free(s->dropped);
	free(s->squeezed);
	memset(s, 0, sizeof(*s));
}

/* ---- judgement -------------------------------------------------------- */

static uint64_t d64(uint64_t a, uint64_t b)
{
	return b >= a ? b - a : 0;	/* a counter reset reads as no traffic */
}

void nt_fmt_rate(struct nt_buf *b, double v)
{
	if (v >= 999950.0)
		nt_buf_printf(b, "%.2fM", v / 1e6);
	else if (v >= 9999.5)
		nt_buf_printf(b, "%.0fk", v / 1e3);
	else if (v >= 999.95)
		nt_buf_printf(b, "%.1fk", v / 1e3);
	else
		nt_buf_printf(b, "%.0f", v);
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

	if (ir->nq < 2 || ir->total < NT_WATCH_MIN_TRAFFIC)
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
					 "('ethtool -x %s'), the hashed fields ('ethtool -n %s rx-flow-hash "
					 "udp4') and whether there are enough flows to spread",
					 ir->name, ir->name));
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
	for (k = 0; k < 2; k++) {
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

		if (nd < 0 || nd >= 64)
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
		if (nd >= 0 && nd < 64 && !want[nd]) {
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

static void build_if(const struct nt_facts *f, const struct nt_watch_intent *in,
		     const struct nt_watch_sample *a, const struct nt_watch_sample *b, size_t ifk,
		     struct nt_watch_ifreport *ir)
{
	const struct nt_iface_facts *fi = nt_facts_iface(f, b->ifs[ifk].name);
	const struct nt_watch_ifsample *ia = &a->ifs[ifk], *ib = &b->ifs[ifk];
	size_t nq, k, c;
	double sum = 0, sq = 0;

	ir->name = nt_xstrdup(ib->name);
	ir->driver = fi ? fi->driver : NULL;
	ir->numa_node = fi ? fi->numa_node : -1;
	nq = fi && fi->nirqs ? fi->nirqs : ib->nq;
	ir->q = nt_xcalloc(nq + 1, sizeof(*ir->q));
	ir->nq = nq;
	ir->metric = ib->qstats ? "packets" : "interrupts";
	for (k = 0; k < NT_WC__COUNT; k++) {
		ir->have[k] = ia->have[k] && ib->have[k];
		ir->ctr[k] = ir->have[k] ? d64(ia->ctr[k], ib->ctr[k]) : 0;
	}
	for (k = 0; k < nq; k++) {
		struct nt_watch_queue *q = &ir->q[k];
		const struct nt_setting *s;
		char arg[16];
		size_t ik;
		uint64_t v;

		q->queue = fi && fi->nirqs ? fi->irqs[k].queue : (uint32_t)k;
		q->irq = fi && fi->nirqs ? (int)fi->irqs[k].irq : -1;
		q->top_cpu = q->off_cpu = -1;
		snprintf(arg, sizeof(arg), "%u", q->queue);
		s = in && in->desired ? nt_state_get(in->desired, NT_K_IRQ_AFFINITY, ir->name, arg) : NULL;
		if (s && s->val.cpus) {
			q->has_intent = true;
			q->intent = *s->val.cpus;
		}
		for (ik = 0; q->irq >= 0 && ik < b->nirq; ik++)
			if (b->irq[ik] == (unsigned)q->irq)
				break;
		if (q->irq >= 0 && ik < b->nirq) {
			uint64_t top = 0;

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
		if (ib->qstats && q->queue < ib->nq) {
			q->have_pkts = true;
			for (c = 0; c < NT_QF__COUNT; c++)
				q->v[c] = d64(q->queue < ia->nq ? ia->q[q->queue][c] : 0, ib->q[q->queue][c]);
		}
		v = ib->qstats ? q->v[NT_QF_RX_PACKETS] + q->v[NT_QF_TX_PACKETS] : q->irqs;
		ir->total += v;
		if (!k || v > ir->max)
			ir->max = v;
		if (!k || v < ir->min)
			ir->min = v;
		sum += (double)v;
		sq += (double)v * (double)v;
	}
	ir->mean = nq ? sum / (double)nq : 0;
	ir->max_over_mean = ir->mean > 0 ? (double)ir->max / ir->mean : 0;
	ir->jain = sq > 0 ? sum * sum / ((double)nq * sq) : 1.0;
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
		nt_buf_printf(out, "%s: %s, node %d, %zu queues: ", ir->name,
			      ir->driver ? ir->driver : "no driver", ir->numa_node, ir->nq);
		nt_fmt_rate(out, (double)ir->total / r->seconds);
		nt_buf_printf(out, " %s/s", ir->metric);
		if (strcmp(ir->metric, "interrupts")) {
			nt_buf_puts(out, ", ");
			nt_fmt_rate(out, (double)irqs / r->seconds);
			nt_buf_puts(out, " interrupts/s");
		}
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
		nt_buf_printf(out, "  [%s] %s: %s\n      -> %s\n", r->fv[k].kind, r->fv[k].object,
			      r->fv[k].figure, r->fv[k].action);
}

static void json_cpus(struct nt_buf *o, const struct nt_cpuset *s)
{
	char *t = nt_cpuset_str(s);

	nt_buf_json_str(o, t);
	free(t);
}

void nt_watch_print_json(const struct nt_watch_report *r, const struct nt_facts *f,
			 const char *against, struct nt_buf *o)
{
	size_t k, q, j;
	unsigned c;
	bool first = true;

	nt_buf_puts(o, "{\"against\": ");
	if (against)
		nt_buf_json_str(o, against);
	else
		nt_buf_puts(o, "null");
	nt_buf_printf(o, ", \"seconds\": %.3f, \"intervals\": %u, \"verdict\": \"%s\",\n",
		      r->seconds, r->intervals, r->nf ? "differs" : "as-planned");
	nt_buf_puts(o, " \"findings\": [");
	for (k = 0; k < r->nf; k++) {
		nt_buf_puts(o, k ? ",\n  {\"kind\": " : "\n  {\"kind\": ");
		nt_buf_json_str(o, r->fv[k].kind);
		nt_buf_puts(o, ", \"object\": ");
		nt_buf_json_str(o, r->fv[k].object);
		nt_buf_puts(o, ", \"figure\": ");
		nt_buf_json_str(o, r->fv[k].figure);
		nt_buf_puts(o, ", \"action\": ");
		nt_buf_json_str(o, r->fv[k].action);
		nt_buf_puts(o, "}");
	}
	nt_buf_puts(o, r->nf ? "\n ],\n \"interfaces\": [" : "],\n \"interfaces\": [");
	for (k = 0; k < r->nifs; k++) {
		const struct nt_watch_ifreport *ir = &r->ifs[k];

		nt_buf_puts(o, k ? ",\n  {\"name\": " : "\n  {\"name\": ");
		nt_buf_json_str(o, ir->name);
		nt_buf_puts(o, ", \"driver\": ");
		if (ir->driver)
			nt_buf_json_str(o, ir->driver);
		else
			nt_buf_puts(o, "null");
		nt_buf_printf(o, ", \"numa_node\": %d, \"metric\": \"%s\", \"total\": %llu, "
			      "\"max_over_mean\": %.3f, \"jain\": %.3f,\n   \"counters\": {",
			      ir->numa_node, ir->metric, (unsigned long long)ir->total,
			      ir->max_over_mean, ir->jain);
		for (j = 0, first = true; j < NT_WC__COUNT; j++)
			if (ir->have[j]) {
				nt_buf_printf(o, "%s\"%s\": %llu", first ? "" : ", ", nt_watch_ctr_names[j],
					      (unsigned long long)ir->ctr[j]);
				first = false;
			}
		nt_buf_puts(o, "},\n   \"queues\": [");
		for (q = 0; q < ir->nq; q++) {
			const struct nt_watch_queue *x = &ir->q[q];

			nt_buf_printf(o, "%s\n    {\"queue\": %u, \"irq\": ", q ? "," : "", x->queue);
			if (x->irq >= 0)
				nt_buf_printf(o, "%d", x->irq);
			else
				nt_buf_puts(o, "null");
			nt_buf_puts(o, ", \"intended\": ");
			if (x->has_intent)
				json_cpus(o, &x->intent);
			else
				nt_buf_puts(o, "null");
			nt_buf_puts(o, ", \"affinity\": ");
			if (x->aff_known)
				json_cpus(o, &x->aff);
			else
				nt_buf_puts(o, "null");
			nt_buf_printf(o, ", \"interrupts\": %llu, \"cpu\": ", (unsigned long long)x->irqs);
			if (x->top_cpu >= 0)
				nt_buf_printf(o, "%d", x->top_cpu);
			else
				nt_buf_puts(o, "null");
			nt_buf_printf(o, ", \"off_affinity\": %llu", (unsigned long long)x->off);
			if (x->have_pkts)
				nt_buf_printf(o, ", \"rx_packets\": %llu, \"tx_packets\": %llu, "
					      "\"rx_bytes\": %llu, \"tx_bytes\": %llu",
					      (unsigned long long)x->v[NT_QF_RX_PACKETS],
					      (unsigned long long)x->v[NT_QF_TX_PACKETS],
					      (unsigned long long)x->v[NT_QF_RX_BYTES],
					      (unsigned long long)x->v[NT_QF_TX_BYTES]);
			nt_buf_puts(o, "}");
		}
		nt_buf_puts(o, ir->nq ? "\n   ]}" : "]}");
	}
	nt_buf_puts(o, r->nifs ? "\n ],\n \"cpus\": [" : "],\n \"cpus\": [");
	for (c = 0, first = true; c < r->ncpus; c++) {
		if (!nt_cpuset_has(&f->online, c))
			continue;
		nt_buf_printf(o, "%s\n  {\"cpu\": %u, \"node\": %d, \"net_rx\": %llu, \"net_tx\": %llu, "
			      "\"processed\": %llu, \"dropped\": %llu, \"time_squeeze\": %llu}",
			      first ? "" : ",", c, f->topo_known ? f->cpu_node[c] : -1,
			      (unsigned long long)r->net_rx[c], (unsigned long long)r->net_tx[c],
			      (unsigned long long)r->processed[c], (unsigned long long)r->dropped[c],
			      (unsigned long long)r->squeezed[c]);
		first = false;
	}
	nt_buf_puts(o, first ? "]}\n" : "\n ]}\n");
}
