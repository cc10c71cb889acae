/* SPDX-License-Identifier: MIT */
/* The queue -> IRQ map (irqmap.h). */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/model/settings.h"
#include "irqmap.h"
#include "sysio.h"

/* Queue index of an IRQ from its /proc/interrupts action name, or -1. */
static int queue_of(const char *name)
{
	static const char *const marks[] = {"TxRx-", "-rx-", "input.", "_comp", "-io-", "-fp-"};
	size_t k;

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

static int cmp_irq(const void *a, const void *b)
{
	const struct nt_irq_fact *x = a, *y = b;

	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

/* While the table is built (unsorted): one IRQ per queue, the first. */
static bool has_queue(const struct nt_iface_facts *i, uint32_t q)
{
	for (size_t k = 0; k < i->nirqs; k++)
		if (i->irqs[k].queue == q)
			return true;
	return false;
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

void nt_irqmap_refresh(struct nt_facts *facts, const char *iface)
{
	struct nt_iface_facts *i = nt_facts_iface(facts, iface);
	char *dir;
	DIR *d;
	struct dirent *de;
	size_t k;

	if (!i)
		return;
	for (k = 0; k < i->nirqs; k++)
		free(i->irqs[k].name);
	free(i->irqs);
	i->irqs = NULL;
	i->nirqs = 0;
	dir = nt_sys_path("/sys/class/net/%s/device/msi_irqs", iface);
	d = nt_sys_opendir(dir);
	if (!d) {
		free(dir);
		dir = nt_sys_path("/sys/class/net/%s/device/../msi_irqs", iface);
		d = nt_sys_opendir(dir);
	}
	free(dir);
	while (d && (de = readdir(d))) {
		unsigned irq;
		char *name, *ap;
		int q;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (strtoul(de->d_name, NULL, 10) > NT_IRQ_MAX)
			continue;
		irq = (unsigned)strtoul(de->d_name, NULL, 10);
		load_interrupts();
		name = irq_name(procirq.lines, procirq.n, irq);
		q = name ? queue_of(name) : -1;
		if (q < 0 || has_queue(i, (uint32_t)q)) {
			free(name);
			continue;
		}
		i->irqs = nt_xrealloc(i->irqs, (i->nirqs + 1) * sizeof(*i->irqs));
		i->irqs[i->nirqs].queue = (uint32_t)q;
		i->irqs[i->nirqs].irq = irq;
		i->irqs[i->nirqs].name = name;
		ap = nt_sys_path("/proc/irq/%u/smp_affinity_list", irq);
		/* kernel-managed affinity: the file is 0444 (v6.12+) and refuses writes */
		{
			int mode = nt_sys_mode(ap);

			i->irqs[i->nirqs].managed = mode >= 0 && !(mode & 0222);
		}
		free(ap);
		i->nirqs++;
	}
	if (d)
		closedir(d);
	if (i->nirqs > 1)
		qsort(i->irqs, i->nirqs, sizeof(*i->irqs), cmp_irq);
}

