/* SPDX-License-Identifier: MIT */
/* The topology map of nettune watch and plan --map, as terminal text and as SVG. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rate.h"
#include "topomap.h"

struct core {
	int id;
	int cpus[8];
	int ncpus;
};

/* Physical cores of a node, ordered by their lowest CPU; SMT siblings together. */
static int node_cores(const struct nt_facts *f, const struct nt_cpuset *cpus, struct core *out, int max)
{
	int n = 0, c, k;

	for (c = nt_cpuset_next(cpus, 0); c >= 0; c = nt_cpuset_next(cpus, (unsigned)c + 1)) {
		int id = f->topo_known && f->cpu_core[c] >= 0 ? f->cpu_core[c] : 100000 + c;

		for (k = 0; k < n; k++)
			if (out[k].id == id)
				break;
		if (k == n) {
			if (n == max)
				break;
			out[n].id = id;
			out[n++].ncpus = 0;
		}
		if (out[k].ncpus < 8)
			out[k].cpus[out[k].ncpus++] = c;
	}
	return n;
}

static bool core_has(const struct core *co, int cpu)
{
	int k;

	for (k = 0; k < co->ncpus; k++)
		if (co->cpus[k] == cpu)
			return true;
	return false;
}

static int cmp_q(const void *a, const void *b)
{
	const struct nt_map_q *x = a, *y = b;
	int s = strcmp(x->iface, y->iface);

	return s ? s : (x->queue > y->queue) - (x->queue < y->queue);
}

void nt_map_from_desired(struct nt_map *m, const struct nt_facts *f, const struct nt_state *desired)
{
	size_t k;

	m->f = f;
	for (k = 0; k < desired->n; k++) {
		const struct nt_setting *s = &desired->v[k];
		const struct nt_iface_facts *fi;
		const struct nt_irq_fact *irq;
		struct nt_map_q *q;
		int first;

		if (s->kind != NT_K_IRQ_AFFINITY || !s->val.cpus || !s->arg)
			continue;
		first = nt_cpuset_next(s->val.cpus, 0);
		fi = nt_facts_iface(f, s->object);
		irq = fi ? nt_facts_irq(fi, (uint32_t)atoi(s->arg)) : NULL;
		m->q = nt_xrealloc(m->q, (m->nq + 1) * sizeof(*m->q));
		q = &m->q[m->nq++];
		memset(q, 0, sizeof(*q));
		q->iface = s->object;
		q->queue = (unsigned)atoi(s->arg);
		q->irq = irq ? (int)irq->irq : -1;
		q->cpu = first;
		q->want = -1;
		q->spread = nt_cpuset_count(s->val.cpus) > 2;
	}
	if (m->nq > 1)
		qsort(m->q, m->nq, sizeof(*m->q), cmp_q);
}

void nt_map_free_queues(struct nt_map *m)
{
	free(m->q);
	m->q = NULL;
	m->nq = 0;
}

/* The map's nodes: NUMA nodes, or one pseudo node when topology is unknown. */
static int map_nodes(const struct nt_facts *f, struct nt_cpuset *nodes, int max)
{
	int n, k = 0;

	if (!f->topo_known || !f->nnodes) {
		nodes[0] = f->online;
		return 1;
	}
	for (n = 0; n < f->nnodes && k < max; n++)
		nodes[k++] = f->node_cpus[n];
	return k;
}

static double core_rate(const struct nt_map *m, const struct core *co)
{
	double s = 0;
	int k;

	for (k = 0; m->cpu_rate && k < co->ncpus; k++)
		s += m->cpu_rate[co->cpus[k]];
	return s;
}

static bool core_reserved(const struct nt_map *m, const struct core *co)
{
	int k;

	for (k = 0; k < co->ncpus; k++)
		if (nt_cpuset_has(&m->reserved, (unsigned)co->cpus[k]))
			return true;
	return false;
}

/* ---- terminal --------------------------------------------------------- */

/* 256-colour ramp green -> yellow -> red for t in [0,1]. */
static int heat_ansi(double t)
{
	static const int ramp[] = {22, 28, 34, 70, 106, 142, 178, 214, 208, 202, 196};

	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	return ramp[(int)(t * 10 + 0.5)];
}

static void bar(struct nt_buf *o, double t, int width)
{
	static const char *const part[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
	int eighths = (int)(t * width * 8 + 0.5), k, used = 0;

	for (k = 0; k < eighths / 8; k++, used++)
		nt_buf_puts(o, "█");
	if (eighths % 8 && used < width) {
		nt_buf_puts(o, part[eighths % 8]);
		used++;
	}
	for (; used < width; used++)
		nt_buf_putc(o, ' ');
}

static void node_header(const struct nt_map *m, int n, const struct nt_cpuset *cpus, bool color,
			struct nt_buf *o)
{
	char *list = nt_cpuset_str(cpus);
	size_t k;
	double rate = 0;
	int c;

	nt_buf_printf(o, "%snode %d%s  CPUs %s", color ? "\033[1m" : "", n, color ? "\033[0m" : "", list);
	free(list);
	if (m->rates) {
		for (c = nt_cpuset_next(cpus, 0); c >= 0; c = nt_cpuset_next(cpus, (unsigned)c + 1))
			rate += m->cpu_rate[c];
		nt_buf_puts(o, "  NET_RX ");
		nt_fmt_rate(o, rate);
		nt_buf_puts(o, "/s");
	}
	for (k = 0; k < m->f->nifs; k++) {
		const struct nt_iface_facts *fi = &m->f->ifs[k];
		size_t j;
		bool shown = false;

		for (j = 0; j < m->nq; j++)
			shown |= !strcmp(m->q[j].iface, fi->name);
		if (shown && fi->numa_node == n)
			nt_buf_printf(o, "  <- NIC %s (%s)", nt_esc(fi->name),
				      fi->driver ? nt_esc(fi->driver) : "?");
	}
	nt_buf_putc(o, '\n');
}

static void queue_token(const struct nt_map *m, const struct nt_map_q *q, bool multi, bool color,
			struct nt_buf *o)
{
	bool bad = q->dead || q->want >= 0;

	if (color && bad)
		nt_buf_puts(o, "\033[1;31m");
	if (multi)
		nt_buf_printf(o, "%s:", nt_esc(q->iface));
	nt_buf_printf(o, "q%u%s", q->queue, q->spread ? "+" : "");
	if (m->rates) {
		nt_buf_putc(o, ' ');
		nt_fmt_rate(o, q->rate);
	}
	if (q->want >= 0)
		nt_buf_printf(o, " (want CPU %d)", q->want);
	if (q->dead)
		nt_buf_puts(o, " dead");
	if (color && bad)
		nt_buf_puts(o, "\033[0m");
}

/* The busiest core's NET_RX rate, the full length of the bars. */
static double text_maxcore(const struct nt_map *m, const struct nt_cpuset *nodes, int nn,
			   struct core *cores)
{
	double maxcore = 0;
	int n, k;

	for (n = 0; n < nn && m->rates; n++) {
		int nc = node_cores(m->f, &nodes[n], cores, NT_MAX_CPUS);

		for (k = 0; k < nc; k++)
			if (core_rate(m, &cores[k]) > maxcore)
				maxcore = core_rate(m, &cores[k]);
	}
	return maxcore;
}

/* A core's rate bar and figure. */
static void text_rate(const struct nt_map *m, const struct core *co, double maxcore, bool color,
		      struct nt_buf *o)
{
	double r = core_rate(m, co), tt = maxcore > 0 ? r / maxcore : 0;
	struct nt_buf rb = {0};

	if (color)
		nt_buf_printf(o, "\033[38;5;%dm", heat_ansi(tt));
	bar(o, tt, 6);
	if (color)
		nt_buf_puts(o, "\033[0m");
	nt_buf_putc(o, ' ');
	nt_fmt_rate(&rb, r);
	nt_buf_printf(o, "%6s", rb.p);
	nt_buf_free(&rb);
}

/* One core's line: its CPUs, its rate, its queues; returns the queues placed. */
static size_t text_core(const struct nt_map *m, const struct core *co, double maxcore, bool multi,
			bool color, struct nt_buf *o)
{
	struct nt_buf cl = {0};
	int t, ntok = 0;
	size_t j, placed = 0;

	for (t = 0; t < co->ncpus; t++)
		nt_buf_printf(&cl, "%s%d%s", t ? "," : "", co->cpus[t],
			      nt_cpuset_has(&m->reserved, (unsigned)co->cpus[t]) ? "R" : "");
	nt_buf_printf(o, "  core %3d  cpu %-9s", co->id >= 100000 ? co->cpus[0] : co->id,
		      cl.p ? cl.p : "");
	nt_buf_free(&cl);
	if (m->rates)
		text_rate(m, co, maxcore, color, o);
	for (j = 0; j < m->nq; j++) {
		if (!core_has(co, m->q[j].cpu))
			continue;
		if (ntok && ntok % 6 == 0)
			nt_buf_printf(o, "\n%*s", m->rates ? 43 : 29, "");
		nt_buf_puts(o, "  ");
		queue_token(m, &m->q[j], multi, color, o);
		ntok++;
		placed++;
	}
	if (core_reserved(m, co))
		nt_buf_printf(o, "  %sreserved%s", color ? "\033[2m" : "",
			      color ? "\033[0m" : "");
	while (o->n && o->p[o->n - 1] == ' ')	/* no trailing blanks */
		o->n--;
	nt_buf_putc(o, '\n');
	return placed;
}

/* The queues with no CPU, then the key. */
static void text_footer(const struct nt_map *m, size_t placed, bool multi, bool color,
			struct nt_buf *o)
{
	size_t j;

	if (placed < m->nq) {
		nt_buf_puts(o, "not placed (no interrupts, no intent):");
		for (j = 0; j < m->nq; j++)
			if (m->q[j].cpu < 0) {
				nt_buf_putc(o, ' ');
				queue_token(m, &m->q[j], multi, color, o);
			}
		nt_buf_putc(o, '\n');
	}
	if (m->rates)
		nt_buf_printf(o, "bars: NET_RX softirqs/s per core, full = busiest core; "
			      "queue figures: %s/s; R = reserved CPU\n", m->unit ? m->unit : "packets");
	else
		nt_buf_puts(o, "qN = queue N placed on that core's first thread; q+ = may run "
			    "anywhere in a wider set; R = reserved CPU\n");
}

void nt_map_text(const struct nt_map *m, bool color, struct nt_buf *o)
{
	struct nt_cpuset nodes[64];
	struct core *cores = nt_xcalloc(NT_MAX_CPUS, sizeof(*cores));
	int nn = map_nodes(m->f, nodes, 64), n, k;
	double maxcore;
	bool multi = false;
	size_t j, placed = 0;

	for (j = 1; j < m->nq; j++)
		multi |= strcmp(m->q[j].iface, m->q[0].iface) != 0;
	if (m->title)
		nt_buf_printf(o, "%s\n", nt_esc(m->title));
	maxcore = text_maxcore(m, nodes, nn, cores);
	for (n = 0; n < nn; n++) {
		int nc = node_cores(m->f, &nodes[n], cores, NT_MAX_CPUS);

		if (!nc)
			continue;
		node_header(m, m->f->topo_known ? n : 0, &nodes[n], color, o);
		for (k = 0; k < nc; k++)
			placed += text_core(m, &cores[k], maxcore, multi, color, o);
	}
	text_footer(m, placed, multi, color, o);
	free(cores);
}

/* ---- SVG -------------------------------------------------------------- */

static void heat_rgb(double t, char *out, size_t n)
{
	/* ColorBrewer YlOrRd, 5 stops */
	static const int stops[5][3] = {
		{255, 255, 204}, {254, 217, 118}, {253, 141, 60}, {227, 26, 28}, {128, 0, 38}};
	double x;
	int i;

	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	x = t * 4;
	i = (int)x;
	if (i > 3)
		i = 3;
	x -= i;
	snprintf(out, n, "#%02x%02x%02x",
		 (int)(stops[i][0] + (stops[i + 1][0] - stops[i][0]) * x + 0.5),
		 (int)(stops[i][1] + (stops[i + 1][1] - stops[i][1]) * x + 0.5),
		 (int)(stops[i][2] + (stops[i + 1][2] - stops[i][2]) * x + 0.5));
}

static void xml_text(struct nt_buf *o, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': nt_buf_puts(o, "&lt;"); break;
		case '>': nt_buf_puts(o, "&gt;"); break;
		case '&': nt_buf_puts(o, "&amp;"); break;
		case '"': nt_buf_puts(o, "&quot;"); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t')
				nt_buf_putc(o, *s);
		}
	}
}

/* Text colour that stays readable on a heat fill. */
static const char *ink(double t)
{
	return t > 0.55 ? "#ffffff" : "#1b2733";
}

#define CORE_W 250
#define CHIP_W 74
#define CHIP_H 18
#define CHIPS_PER_ROW 3
#define NODE_PAD 14

static int core_box_h(const struct nt_map *m, const struct core *co)
{
	size_t j;
	int nq = 0, rows;

	for (j = 0; j < m->nq; j++)
		nq += core_has(co, m->q[j].cpu);
	rows = (nq + CHIPS_PER_ROW - 1) / CHIPS_PER_ROW;
	return 40 + rows * (CHIP_H + 4) + (rows ? 4 : 0);
}

static void legend(struct nt_buf *o, int x, int y, const char *id, const char *label, double max)
{
	struct nt_buf rb = {0};

	/* a quiet window is drawn on a scale of 0 to 1/s, never 0 to 0 */
	if (!(max > 0))
		max = 1;
	nt_buf_printf(o, "<rect x=\"%d\" y=\"%d\" width=\"200\" height=\"12\" fill=\"url(#%s)\" "
		      "stroke=\"#999\"/>\n", x, y, id);
	nt_fmt_rate(&rb, max);
	nt_buf_printf(o, "<text x=\"%d\" y=\"%d\" class=\"s\">0</text>"
		      "<text x=\"%d\" y=\"%d\" class=\"s\" text-anchor=\"end\">%s</text>"
		      "<text x=\"%d\" y=\"%d\" class=\"s\">", x, y + 24, x + 200, y + 24, rb.p, x, y - 4);
	xml_text(o, label);
	nt_buf_puts(o, "</text>\n");
	nt_buf_free(&rb);
}

#define LEGEND_OFF_CPU "ran off its intended CPU N (≠N), or dead (dashed)"

static int max_i(int a, int b)
{
	return a > b ? a : b;
}

/* Width in pixels of a line of text at a font size: UTF-8 characters times
 * 0.62 em (a generous average for the sans-serif fonts browsers pick). */
static int text_w(const char *s, int px)
{
	size_t chars = 0;

	for (; *s; s++)
		chars += ((unsigned char)*s & 0xc0) != 0x80;
	return (int)(chars * (size_t)px * 62 / 100) + 1;
}

/* One CPU cell of a core box: heat fill (hatched when reserved) and its label. */
static void svg_cpu(struct nt_buf *body, const struct nt_map *m, int c, int x, int y, int cw,
		    double maxcpu)
{
	bool res = nt_cpuset_has(&m->reserved, (unsigned)c);
	struct nt_buf rb = {0};
	double ht = m->rates && maxcpu > 0 && !res ? m->cpu_rate[c] / maxcpu : 0;
	char col[16];

	if (m->rates)
		heat_rgb(ht, col, sizeof(col));
	else
		snprintf(col, sizeof(col), "#e8eef4");
	nt_buf_printf(body, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"24\" rx=\"3\" "
		      "fill=\"%s\" stroke=\"#8a9bb0\"><title>CPU %d",
		      x + 6, y + 6, cw - 4, res ? "url(#hatch)" : col, c);
	if (m->rates) {
		nt_fmt_rate(&rb, m->cpu_rate[c]);
		nt_buf_printf(body, ": %s NET_RX softirqs/s", rb.p);
	}
	nt_buf_printf(body, "%s</title></rect><text x=\"%d\" y=\"%d\" class=\"c\" "
		      "style=\"fill:%s\">CPU %d%s", res ? " (reserved)" : "",
		      x + 12, y + 23, ink(ht), c, res ? " reserved" : "");
	if (m->rates && !res) {
		nt_buf_printf(body, " · %s/s", rb.p);
	}
	nt_buf_puts(body, "</text>\n");
	nt_buf_free(&rb);
}

/* One queue chip: heat fill, red outline when off its CPU, dashed when dead. */
static void svg_queue(struct nt_buf *body, const struct nt_map *m, const struct nt_map_q *q,
		      int qx, int qy, double maxq)
{
	bool bad = q->dead || q->want >= 0;
	double ht = m->rates && maxq > 0 && !q->dead ? q->rate / maxq : 0;
	char col[16];

	if (m->rates)
		heat_rgb(ht, col, sizeof(col));
	else
		snprintf(col, sizeof(col), "#9ecae1");
	nt_buf_printf(body, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"3\" "
		      "fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"%s><title>",
		      qx, qy, CHIP_W, CHIP_H, q->dead ? "#ffffff" : col,
		      bad ? "#d00000" : "#4a6a8a", bad ? "2.5" : "1",
		      q->dead ? " stroke-dasharray=\"4 2\"" : "");
	xml_text(body, q->iface);
	nt_buf_printf(body, " queue %u", q->queue);
	if (q->irq >= 0)
		nt_buf_printf(body, ", irq %d", q->irq);
	if (q->want >= 0)
		nt_buf_printf(body, ", intended CPU %d", q->want);
	nt_buf_puts(body, "</title></rect><text x=\"");
	nt_buf_printf(body, "%d\" y=\"%d\" class=\"%s\" style=\"fill:%s\">q%u%s", qx + 4,
		      qy + 13, bad ? "qb" : "q", q->dead ? "#b00000" : ink(ht), q->queue,
		      q->spread ? "+" : "");
	if (m->rates) {
		nt_buf_putc(body, ' ');
		nt_fmt_rate(body, q->rate);
	}
	if (q->want >= 0)
		nt_buf_printf(body, " ≠%d", q->want);
	nt_buf_puts(body, "</text>\n");
}

/* One core box at (cx, cy): its CPUs in a row, then its queues as chips. */
static void svg_core(struct nt_buf *body, const struct nt_map *m, const struct core *co,
		     int cx, int cy, double maxcpu, double maxq)
{
	int cw = (CORE_W - 12) / (co->ncpus ? co->ncpus : 1), t, chip = 0;
	size_t j;

	nt_buf_printf(body, "<g class=\"core\"><rect x=\"%d\" y=\"%d\" width=\"%d\" "
		      "height=\"%d\" rx=\"6\" fill=\"#ffffff\" stroke=\"#b8c4d0\"/>\n",
		      cx, cy, CORE_W, core_box_h(m, co));
	for (t = 0; t < co->ncpus; t++)
		svg_cpu(body, m, co->cpus[t], cx + t * cw, cy, cw, maxcpu);
	for (j = 0; j < m->nq; j++) {
		if (!core_has(co, m->q[j].cpu))
			continue;
		svg_queue(body, m, &m->q[j], cx + 6 + (chip % CHIPS_PER_ROW) * (CHIP_W + 6),
			  cy + 38 + (chip / CHIPS_PER_ROW) * (CHIP_H + 4), maxq);
		chip++;
	}
	nt_buf_puts(body, "</g>\n");
}

/* The NIC badges of node n: interfaces with a queue on the map. */
static void svg_nics(struct nt_buf *body, const struct nt_map *m, int n, int x0, int top, int node_w)
{
	size_t j, q;

	for (j = 0; j < m->f->nifs; j++) {
		const struct nt_iface_facts *fi = &m->f->ifs[j];
		bool shown = false;

		for (q = 0; q < m->nq; q++)
			shown |= !strcmp(m->q[q].iface, fi->name);
		if (!shown || fi->numa_node != (m->f->topo_known ? n : 0))
			continue;
		nt_buf_printf(body, "<rect x=\"%d\" y=\"%d\" width=\"190\" height=\"22\" rx=\"4\" "
			      "fill=\"#1f3b57\"/><text x=\"%d\" y=\"%d\" class=\"nic\">NIC ",
			      x0 + node_w - 200, top + 8, x0 + node_w - 192, top + 23);
		xml_text(body, fi->name);
		nt_buf_puts(body, " (");
		xml_text(body, fi->driver ? fi->driver : "?");
		nt_buf_puts(body, ")</text>\n");
	}
}

/* Height of the taller core of the pair starting at core k. */
static int pair_h(const struct nt_map *m, const struct core *cores, int k, int nc)
{
	int a = core_box_h(m, &cores[k]), b = k + 1 < nc ? core_box_h(m, &cores[k + 1]) : 0;

	return a > b ? a : b;
}

/* Node n as a column of core pairs at x0. */
static void svg_node(struct nt_buf *body, const struct nt_map *m, int n, const struct nt_cpuset *cpus,
		     struct core *cores, int x0, int top, int node_w, int node_h, double maxcpu, double maxq)
{
	int nc = node_cores(m->f, cpus, cores, NT_MAX_CPUS), y = top + 44, k;
	char *list = nt_cpuset_str(cpus);

	nt_buf_printf(body, "<g class=\"node\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
		      "rx=\"10\" fill=\"#f4f6f8\" stroke=\"#8a9bb0\"/>\n", x0, top, node_w, node_h);
	nt_buf_printf(body, "<text x=\"%d\" y=\"%d\" class=\"h\">node %d</text>"
		      "<text x=\"%d\" y=\"%d\" class=\"s\">CPUs %s</text>\n",
		      x0 + NODE_PAD, top + 24, m->f->topo_known ? n : 0, x0 + 90, top + 24, list);
	free(list);
	svg_nics(body, m, n, x0, top, node_w);
	for (k = 0; k < nc; k++) {
		svg_core(body, m, &cores[k], x0 + NODE_PAD + (k % 2) * (CORE_W + NODE_PAD), y,
			 maxcpu, maxq);
		if (k % 2 == 1 || k == nc - 1)
			y += pair_h(m, cores, k - (k % 2), nc) + 8;
	}
	nt_buf_puts(body, "</g>\n");
}

/* Each node's height into node_h; returns the tallest. */
static int svg_node_heights(const struct nt_map *m, const struct nt_cpuset *nodes, int nn,
			    struct core *cores, int *node_h)
{
	int n, k, height = 0;

	for (n = 0; n < nn; n++) {
		int nc = node_cores(m->f, &nodes[n], cores, NT_MAX_CPUS), h = 44;

		for (k = 0; k < nc; k += 2)
			h += pair_h(m, cores, k, nc) + 8;
		node_h[n] = h;
		if (h > height)
			height = h;
	}
	return height;
}

/* Sized to the content: the nodes, and the widest line of text (the
 * legend, the title, each finding). */
static int svg_width(const struct nt_map *m, int nn, int node_w)
{
	int width = nn * (node_w + 20) + 20;
	size_t j;

	width = max_i(width, 500 + text_w(LEGEND_OFF_CPU, 11) + 20);
	width = max_i(width, 20 + text_w(m->title ? m->title : "nettune topology map", 18) + 20);
	for (j = 0; j < m->nnotes; j++)
		width = max_i(width, 20 + text_w(m->notes[j], 12) + 20);
	return width;
}

/* XML header, gradient, hatch pattern, style sheet and background. */
static void svg_prologue(struct nt_buf *o, int width, int height)
{
	char col[16];
	int k;

	nt_buf_printf(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		      "viewBox=\"0 0 %d %d\">\n", width, height, width, height);
	nt_buf_puts(o, "<defs>\n<linearGradient id=\"heat\">");
	for (k = 0; k <= 4; k++) {
		heat_rgb(k / 4.0, col, sizeof(col));
		nt_buf_printf(o, "<stop offset=\"%d%%\" stop-color=\"%s\"/>", k * 25, col);
	}
	nt_buf_puts(o, "</linearGradient>\n"
		    "<pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
		    "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#dddddd\"/>"
		    "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#999999\" stroke-width=\"3\"/></pattern>\n"
		    "<style>text{font-family:DejaVu Sans,Verdana,sans-serif;fill:#1b2733}"
		    ".t{font-size:18px;font-weight:bold}.h{font-size:15px;font-weight:bold}"
		    ".s{font-size:11px;fill:#44505c}.c{font-size:11px}.q{font-size:11px}"
		    ".qb{font-size:11px;font-weight:bold;fill:#b00000}.nic{font-size:12px;fill:#ffffff;"
		    "font-weight:bold}.n{font-size:12px}</style>\n</defs>\n");
	nt_buf_printf(o, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", width, height);
}

/* The title and the legends (heat scales, or the placement key). */
static void svg_legends(struct nt_buf *o, const struct nt_map *m, double maxcpu, double maxq)
{
	nt_buf_puts(o, "<text x=\"20\" y=\"32\" class=\"t\">");
	xml_text(o, m->title ? m->title : "nettune topology map");
	nt_buf_puts(o, "</text>\n");
	if (m->rates) {
		legend(o, 20, 70, "heat", "CPU: NET_RX softirqs/s", maxcpu);
		legend(o, 250, 70, "heat", m->unit && !strcmp(m->unit, "interrupts") ?
		       "queue: interrupts/s" : "queue: packets/s", maxq);
		nt_buf_puts(o, "<rect x=\"480\" y=\"62\" width=\"14\" height=\"12\" fill=\"#ffffff\" "
			    "stroke=\"#d00000\" stroke-width=\"2.5\"/><text x=\"500\" y=\"72\" class=\"s\">"
			    LEGEND_OFF_CPU "</text>\n");
	} else {
		nt_buf_puts(o, "<text x=\"20\" y=\"72\" class=\"s\">Intended placement: each queue "
			    "IRQ on the core it is drawn in (q+ may run anywhere in a wider set)</text>\n");
	}
	nt_buf_printf(o, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"url(#hatch)\"/>"
		      "<text x=\"%d\" y=\"%d\" class=\"s\">reserved CPU</text>\n", m->rates ? 480 : 20,
		      m->rates ? 82 : 86, m->rates ? 500 : 40, m->rates ? 92 : 96);
}

/* The findings under the nodes. */
static void svg_notes(struct nt_buf *o, const struct nt_map *m, int top, int height)
{
	size_t j;

	for (j = 0; j < m->nnotes; j++) {
		int y = top + height - top - 40 - (int)m->nnotes * 18 + 14 + (int)j * 18;

		if (!j)
			nt_buf_printf(o, "<text x=\"20\" y=\"%d\" class=\"h\">Findings</text>\n", y - 6);
		nt_buf_printf(o, "<text x=\"20\" y=\"%d\" class=\"n\">", y + 14);
		xml_text(o, m->notes[j]);
		nt_buf_puts(o, "</text>\n");
	}
}

void nt_map_svg(const struct nt_map *m, struct nt_buf *o)
{
	struct nt_cpuset nodes[64];
	struct core *cores = nt_xcalloc(NT_MAX_CPUS, sizeof(*cores));
	int nn = map_nodes(m->f, nodes, 64), n, k, width, height, top = 110;
	int node_w = 2 * CORE_W + 3 * NODE_PAD;
	int *node_h = nt_xcalloc((size_t)nn + 1, sizeof(int));
	double maxcpu = 0, maxq = 0;
	size_t j;
	struct nt_buf body = {0};

	for (j = 0; m->rates && j < m->nq; j++)
		if (m->q[j].rate > maxq)
			maxq = m->q[j].rate;
	for (k = 0; m->rates && k < (int)m->f->ncpus; k++)
		if (m->cpu_rate[k] > maxcpu)
			maxcpu = m->cpu_rate[k];
	height = svg_node_heights(m, nodes, nn, cores, node_h);
	width = svg_width(m, nn, node_w);
	for (n = 0; n < nn; n++)
		svg_node(&body, m, n, &nodes[n], cores, 20 + n * (node_w + 20), top, node_w,
			 node_h[n], maxcpu, maxq);
	height += top + 40 + (int)m->nnotes * 18 + (m->nnotes ? 30 : 0);
	svg_prologue(o, width, height);
	svg_legends(o, m, maxcpu, maxq);
	nt_buf_putn(o, body.p ? body.p : "", body.n);
	svg_notes(o, m, top, height);
	nt_buf_puts(o, "</svg>\n");
	nt_buf_free(&body);
	free(node_h);
	free(cores);
}
