/* SPDX-License-Identifier: MIT */
/* The queue -> IRQ map (irqmap.h). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/model/settings.h"
#include "irqmap.h"
#include "sysio.h"

/* The vector layout table (vectors.def). */
enum vec_role { Q, T, TR, QT, G, S };

static const struct vec_row {
	const char *driver, *pattern;
	enum vec_role role;
	const char *source;
} vec_rows[] = {
#define NT_VEC(d, p, r, s) {d, p, r, s},
#include "vectors.def"
#undef NT_VEC
};

/* What the generic rule finds: a queue's vector, index = queue. */
static const struct vec_row generic_row = {NULL, NULL, Q, "generic rule (irqmap.c)"};

/* name against pattern (vectors.def): %n is ifname exactly, %p any
 * non-empty text (a bus name holds ':' and '.': every length is tried),
 * %d a decimal index into *idx. */
static bool vec_match(const char *pat, const char *name, const char *ifname, unsigned long *idx)
{
	for (;;) {
		if (!*pat)
			return !*name;
		if (pat[0] == '%' && pat[1] == 'n') {
			size_t l = strlen(ifname);

			if (strncmp(name, ifname, l))
				return false;
			name += l;
			pat += 2;
		} else if (pat[0] == '%' && pat[1] == 'd') {
			char *e;

			if (!isdigit((unsigned char)*name))
				return false;
			errno = 0;
			*idx = strtoul(name, &e, 10);
			if (errno || *idx > NT_QUEUE_MAX)
				return false;
			name = e;
			pat += 2;
		} else if (pat[0] == '%' && pat[1] == 'p') {
			size_t l, len = strlen(name);

			for (l = len; l >= 1; l--)	/* longest first */
				if (vec_match(pat + 2, name + l, ifname, idx))
					return true;
			return false;
		} else {
			if (*pat != *name)
				return false;
			pat++;
			name++;
		}
	}
}

/* The generic rule of a driver without a row: a queue index after one of
 * these marks, unless the name says it is a sideband vector. */
static int generic_queue_of(const char *name, const char *ifname)
{
	/* the sideband words are looked for outside the interface's own name
	 * (an interface called ctrl0 keeps its queues) */
	const char *in = strstr(name, ifname);
	char rest[256];

	snprintf(rest, sizeof(rest), "%.*s%s", in ? (int)(in - name) : (int)strlen(name), name,
		 in ? in + strlen(ifname) : "");
	static const char *const marks[] = {"TxRx-", "-rx-", "input.", "_comp", "-io-", "-fp-",
					    "-Tx-Rx-", "-rxtx-"};
	static const char *const sideband[] = {"misc", "fdir", "ctrl", "mgmnt", "async", "event",
						"aeq", "hwc", "config", "control", "mbx", "ptp"};
	size_t k;

	for (k = 0; k < sizeof(sideband) / sizeof(sideband[0]); k++)
		if (strstr(rest, sideband[k]))
			return -1;
	for (k = 0; k < sizeof(marks) / sizeof(marks[0]); k++) {
		const char *m = strstr(name, marks[k]);

		if (m) {
			const char *d = m + strlen(marks[k]);

			if (isdigit((unsigned char)*d)) {
				unsigned long q = strtoul(d, NULL, 10);

				/* the same bound as snapshots: a queue index */
				return q <= NT_QUEUE_MAX ? (int)q : -1;
			}
		}
	}
	return -1;
}

/* /proc/interrupts: IRQ number -> action name (last column). */
/* One numbered line of /proc/interrupts. */
struct irq_line {
	unsigned irq;
	const char *p, *end;
};

static int cmp_irq_line(const void *a, const void *b)
{
	const struct irq_line *x = a, *y = b;

	return x->irq < y->irq ? -1 : x->irq > y->irq;
}

/* Indexes /proc/interrupts once (sorted by IRQ) instead of scanning the
 * whole file for every IRQ: 8 NICs x 64 queues made that quadratic. */
static size_t index_interrupts(const char *text, struct irq_line **out)
{
	const char *line = text;
	size_t n = 0, cap = 0;

	*out = NULL;
	while (line && *line) {
		const char *p = line, *eol = strchr(line, '\n');
		char *e;
		unsigned long irq;

		while (*p == ' ')
			p++;
		if (isdigit((unsigned char)*p)) {
			irq = strtoul(p, &e, 10);
			if (*e == ':' && irq <= UINT_MAX) {
				if (n == cap) {
					cap = cap ? cap * 2 : 256;
					*out = nt_xrealloc(*out, cap * sizeof(**out));
				}
				(*out)[n++] = (struct irq_line){(unsigned)irq, p,
								eol ? eol : p + strlen(p)};
			}
		}
		line = eol ? eol + 1 : NULL;
	}
	if (n > 1)
		qsort(*out, n, sizeof(**out), cmp_irq_line);
	return n;
}

/* The action name of an IRQ: the last word of its line. */
static char *irq_name(const struct irq_line *lines, size_t n, unsigned irq)
{
	struct irq_line key = {irq, NULL, NULL};
	const struct irq_line *l = n ? bsearch(&key, lines, n, sizeof(*lines), cmp_irq_line) : NULL;
	const char *s, *end;

	if (!l)
		return NULL;
	s = l->end;
	while (s > l->p && s[-1] == ' ')
		s--;
	end = s;
	while (s > l->p && s[-1] != ' ')
		s--;
	return strndup(s, (size_t)(end - s));
}

static struct {
	char *text;
	struct irq_line *lines;
	size_t n;
	bool read;
} procirq;

void nt_irqmap_reset(void)
{
	free(procirq.text);
	free(procirq.lines);
	memset(&procirq, 0, sizeof(procirq));
}

void nt_irqmap_stale(void)
{
	nt_irqmap_reset();
}

/* /proc/interrupts, read and indexed once until made stale. */
static void load_interrupts(void)
{
	char *p;

	if (procirq.read)
		return;
	procirq.read = true;
	p = nt_sys_path("/proc/interrupts");
	procirq.text = nt_sys_read(p);
	free(p);
	if (procirq.text)
		procirq.n = index_interrupts(procirq.text, &procirq.lines);
}

/* One MSI vector of the device while the table is built. */
struct vec {
	unsigned irq;
	char *name;
	const struct vec_row *row;	/* NULL: generic */
	unsigned long idx;
};

static int cmp_vec(const void *a, const void *b)
{
	const struct vec *x = a, *y = b;

	return x->irq < y->irq ? -1 : x->irq > y->irq;
}

static int cmp_queue_only(const void *a, const void *b)
{
	const struct nt_irq_fact *x = a, *y = b;

	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

static int cmp_queue_irq(const void *a, const void *b)
{
	const struct nt_irq_fact *x = a, *y = b;

	if (x->queue != y->queue)
		return x->queue < y->queue ? -1 : 1;
	return x->irq < y->irq ? -1 : x->irq > y->irq;
}

static void add_irq(struct nt_irq_fact **t, size_t *n, uint32_t q, unsigned irq, char *name)
{
	char *ap = nt_sys_path("/proc/irq/%u/smp_affinity_list", irq);
	int mode = ap ? nt_sys_mode(ap) : -1;

	free(ap);
	*t = nt_xrealloc(*t, (*n + 1) * sizeof(**t));
	(*t)[*n] = (struct nt_irq_fact){.queue = q, .irq = irq, .name = name,
					/* kernel-managed affinity: the file is 0444 (v6.12+) */
					.managed = mode >= 0 && !(mode & 0222)};
	(*n)++;
}

/* /sys/class/net/IF/device is a virtio device (virtioN). */
static bool is_virtio(const char *iface)
{
	char *p = nt_sys_path("/sys/class/net/%s/device", iface), link[PATH_MAX], *slash;
	ssize_t n = p ? nt_sys_readlink(p, link, sizeof(link) - 1) : -1;

	free(p);
	if (n <= 0)
		return false;
	link[n] = '\0';
	slash = strrchr(link, '/');
	return !strncmp(slash ? slash + 1 : link, "virtio", 6);
}

/* The device's MSI vectors, numbered: sysfs lists msi_irqs/ in hash order,
 * so they are sorted before anything depends on their order. */
static size_t read_vectors(const char *iface, struct vec **out)
{
	char *dir = nt_sys_path("/sys/class/net/%s/device/msi_irqs", iface);
	struct nt_dir *d = dir ? nt_sys_opendir(dir) : NULL;
	struct dirent *de;
	size_t n = 0;

	*out = NULL;
	if (!d && is_virtio(iface)) {
		/* virtio: the vectors belong to the PCI function above virtioN
		 * (only there: an mlx5 sub-function or any other child device
		 * would take its parent's vectors for its own) */
		free(dir);
		dir = nt_sys_path("/sys/class/net/%s/device/../msi_irqs", iface);
		d = dir ? nt_sys_opendir(dir) : NULL;
	}
	free(dir);
	while (d && (de = nt_sys_readdir(d))) {
		char *e;
		unsigned long irq;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		errno = 0;
		irq = strtoul(de->d_name, &e, 10);
		if (errno || *e || irq > NT_IRQ_MAX)
			continue;
		*out = nt_xrealloc(*out, (n + 1) * sizeof(**out));
		(*out)[n++] = (struct vec){.irq = (unsigned)irq};
	}
	if (d)
		nt_sys_closedir(d);
	if (n > 1)
		qsort(*out, n, sizeof(**out), cmp_vec);
	return n;
}

/* hv_netvsc: queue q is the VMBus channel whose subchannel_id is q
 * (drivers/net/hyperv/netvsc.c: one channel per queue; drivers/hv/
 * vmbus_drv.c: channels/<relid>/{cpu,subchannel_id}).  irq = relid. */
static void read_vmbus(struct nt_iface_facts *i, const char *iface)
{
	char *dir = nt_sys_path("/sys/class/net/%s/device/channels", iface);
	struct nt_dir *d = dir ? nt_sys_opendir(dir) : NULL;
	struct dirent *de;

	free(dir);
	i->vmbus = true;
	while (d && (de = nt_sys_readdir(d))) {
		char *p, *s, *e;
		unsigned long relid, sub;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		errno = 0;
		relid = strtoul(de->d_name, &e, 10);
		if (errno || *e || relid > NT_IRQ_MAX)
			continue;
		p = nt_sys_path("/sys/class/net/%s/device/channels/%s/subchannel_id", iface, de->d_name);
		s = p ? nt_sys_read(p) : NULL;
		free(p);
		if (!s)
			continue;
		errno = 0;
		sub = strtoul(s, &e, 10);
		free(s);
		if (errno || e == s || sub > NT_QUEUE_MAX)
			continue;
		i->irqs = nt_xrealloc(i->irqs, (i->nirqs + 1) * sizeof(*i->irqs));
		i->irqs[i->nirqs++] = (struct nt_irq_fact){.queue = (uint32_t)sub,
			.irq = (unsigned)relid, .name = nt_xasprintf("vmbus channel %lu", relid)};
	}
	if (d)
		nt_sys_closedir(d);
}

/* Keeps the first (lowest IRQ) vector of each queue in t; the others move
 * to spill (TX table) or are dropped. */
static void dedupe(struct nt_irq_fact *t, size_t *n)
{
	size_t k, o = 0;

	if (*n > 1)
		qsort(t, *n, sizeof(*t), cmp_queue_irq);
	for (k = 0; k < *n; k++) {
		if (o && t[o - 1].queue == t[k].queue) {
			free(t[k].name);
			continue;
		}
		t[o++] = t[k];
	}
	*n = o;
}

/* A queue with only TX vectors (more TX than RX queues): its first TX
 * vector is the queue's own.  irqs is sorted; tx_irqs is sorted here. */
static void promote_tx(struct nt_iface_facts *i)
{
	size_t k, o = 0, n0 = i->nirqs;
	uint32_t last = UINT32_MAX;

	if (i->ntx_irqs > 1)
		qsort(i->tx_irqs, i->ntx_irqs, sizeof(*i->tx_irqs), cmp_queue_irq);
	for (k = 0; k < i->ntx_irqs; k++) {
		struct nt_irq_fact key = {.queue = i->tx_irqs[k].queue};

		if (i->tx_irqs[k].queue != last &&
		    !(n0 && bsearch(&key, i->irqs, n0, sizeof(*i->irqs), cmp_queue_only))) {
			last = i->tx_irqs[k].queue;
			i->irqs = nt_xrealloc(i->irqs, (i->nirqs + 1) * sizeof(*i->irqs));
			i->irqs[i->nirqs++] = i->tx_irqs[k];
			continue;
		}
		i->tx_irqs[o++] = i->tx_irqs[k];
	}
	i->ntx_irqs = o;
	if (i->nirqs > n0)
		qsort(i->irqs, i->nirqs, sizeof(*i->irqs), cmp_queue_irq);
}

/* How many vectors each counted role has: rx/combined queues, tx queues, generic. */
struct role_counts {
	size_t q, t, g;
};

static void irqs_clear(struct nt_iface_facts *i)
{
	size_t k;

	for (k = 0; k < i->nirqs; k++)
		free(i->irqs[k].name);
	for (k = 0; k < i->ntx_irqs; k++)
		free(i->tx_irqs[k].name);
	free(i->irqs);
	free(i->tx_irqs);
	i->irqs = i->tx_irqs = NULL;
	i->nirqs = i->ntx_irqs = 0;
	i->irq_generic = false;
	i->vmbus = false;
}

/* The action name of each vector, and the driver's row it matches. */
static void name_vectors(struct vec *v, size_t n, const struct nt_iface_facts *i, const char *iface,
			 bool known, struct role_counts *rc)
{
	size_t k;

	for (k = 0; k < n; k++) {
		v[k].name = irq_name(procirq.lines, procirq.n, v[k].irq);
		if (!v[k].name)
			continue;
		/* kernel action names are short; a --root image's need not be
		 * (the %p match tries every length) */
		if (strlen(v[k].name) > 255) {
			free(v[k].name);
			v[k].name = NULL;
			continue;
		}
		for (size_t r = 0; known && r < sizeof(vec_rows) / sizeof(vec_rows[0]); r++) {
			unsigned long idx = 0;

			if (strcmp(vec_rows[r].driver, i->driver) ||
			    !vec_match(vec_rows[r].pattern, v[k].name, iface, &idx))
				continue;
			v[k].row = &vec_rows[r];
			v[k].idx = idx;
			rc->q += vec_rows[r].role == Q;
			rc->t += vec_rows[r].role == T;
			rc->g += vec_rows[r].role == G;
			break;
		}
	}
}

/* A named vector as the rx or tx IRQ of its queue; the name is taken or freed. */
static void place_vector(struct nt_iface_facts *i, struct vec *v, const char *iface, bool known,
			 const struct role_counts *rc)
{
	const struct vec_row *r = v->row;
	unsigned long q = v->idx, skip = 0;
	bool tx;

	if (!known) {
		int g = generic_queue_of(v->name, iface);

		q = g < 0 ? 0 : (unsigned long)g;
		i->irq_generic |= g >= 0;
		r = g < 0 ? NULL : &generic_row;
	}
	if (!r || r->role == S) {
		free(v->name);
		return;
	}
	/* TR counts on after the Q vectors, QT after the T vectors */
	skip = r->role == TR ? rc->q : r->role == QT ? rc->t : 0;
	if (q < skip) {
		free(v->name);
		return;
	}
	q -= skip;
	tx = r->role == T || r->role == TR || (r->role == G && q < rc->g / 2);
	if (r->role == G && !tx)
		q -= rc->g / 2;
	if (tx)
		add_irq(&i->tx_irqs, &i->ntx_irqs, (uint32_t)q, v->irq, v->name);
	else
		add_irq(&i->irqs, &i->nirqs, (uint32_t)q, v->irq, v->name);
}

void nt_irqmap_refresh(struct nt_facts *facts, const char *iface)
{
	struct nt_iface_facts *i = nt_facts_iface(facts, iface);
	struct vec *v;
	size_t n, k;
	struct role_counts rc = {0, 0, 0};
	bool known = false;

	if (!i)
		return;
	irqs_clear(i);
	if (i->driver && !strcmp(i->driver, "hv_netvsc")) {
		read_vmbus(i, iface);
		dedupe(i->irqs, &i->nirqs);
		return;
	}
	n = read_vectors(iface, &v);
	for (k = 0; i->driver && k < sizeof(vec_rows) / sizeof(vec_rows[0]); k++)
		if (!strcmp(vec_rows[k].driver, i->driver))
			known = true;
	if (n)
		load_interrupts();
	name_vectors(v, n, i, iface, known, &rc);
	for (k = 0; k < n; k++)
		if (v[k].name)
			place_vector(i, &v[k], iface, known, &rc);
	free(v);
	dedupe(i->irqs, &i->nirqs);
	promote_tx(i);
}
