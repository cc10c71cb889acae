/* SPDX-License-Identifier: MIT */
/* nettune watch, Linux side: sampling /proc/interrupts, /proc/softirqs, softnet_stat,
 * per-queue ethtool statistics and interface counters (report/watch.c judges). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
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

/* Maps one ETH_SS_STATS name to (queue, field): i40e "rx-3.packets", ice,
 * ixgbe, virtio "rx_queue_3_packets", mlx5 and newer virtio "rx3_packets",
 * bnxt "[3]: rx_ucast_packets" (ucast, mcast and bcast add up), veth
 * "rx_queue_3_xdp_packets".  Returns false for anything else. */
static bool watch_stat_name(const char *name, uint32_t *queue, enum nt_qfield *field)
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

	if (!watch_stat_name(name, &q, &fld))
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

		/* VMBus channels (hv_netvsc) have no /proc/interrupts line of their own */
		for (j = 0; i && !i->vmbus && j < i->nirqs; j++) {
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
