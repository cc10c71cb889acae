/* SPDX-License-Identifier: MIT */
/* Plan rendering: the text plan and plan --json. */
#include <stdlib.h>
#include <string.h>

#include "planprint.h"
#include "record.h"

#define C(color, s) (color ? s : "")

/* settings of the host rather than of an interface */
static bool pseudo(const struct nt_action *a)
{
	return (nt_kinds[a->kind].flags & NT_KF_HOST_OBJ) != 0;
}

static bool is_pseudo_name(const char *o)
{
	return !strcmp(o, "sysctl") || !strcmp(o, "irqbalance") || !strcmp(o, "global") ||
	       !strncmp(o, "process ", 8);
}

/* v right-aligned in width columns (printf's %*zu). */
static void put_num(struct nt_buf *b, size_t v, size_t width)
{
	char t[24];
	size_t n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	for (; width > n; width--)
		nt_buf_putc(b, ' ');
	while (n)
		nt_buf_putc(b, t[--n]);
}

/* The width of an action's name column: kind and escaped argument. */
static size_t name_width(const struct nt_action *a)
{
	size_t w = strlen(nt_kinds[a->kind].name);

	if (a->arg) {
		struct nt_buf e = {0};

		nt_buf_put_escaped(&e, a->arg);
		w += 1 + e.n;
		nt_buf_free(&e);
	}
	return w;
}

/* One action of the text plan, written piece by piece (a plan of a big
 * host has thousands: printf's format parsing was most of their cost):
 * "  %3zu  %-*s (width: the longest name) %s -> %s", the flags, the source, then the note. */
static void action_line(struct nt_buf *b, const struct nt_action *a, size_t no, size_t width,
			bool color)
{
	const char *name = nt_kinds[a->kind].name;
	size_t w = strlen(name);

	nt_buf_puts(b, "  ");
	put_num(b, no, 3);
	nt_buf_puts(b, "  ");
	nt_buf_puts(b, C(color, "\033[33m"));
	nt_buf_putn(b, name, w);
	if (a->arg) {
		size_t at = b->n;

		nt_buf_putc(b, ' ');
		nt_buf_put_escaped(b, a->arg);
		w += b->n - at;
	}
	for (; w < width; w++)
		nt_buf_putc(b, ' ');
	nt_buf_puts(b, C(color, "\033[0m"));
	nt_buf_putc(b, ' ');
	if (a->has_from)
		nt_value_format(&a->from, b, false);
	else
		nt_buf_puts(b, "(not observed)");
	nt_buf_puts(b, " -> ");
	nt_buf_puts(b, C(color, "\033[32m"));
	nt_value_format(&a->to, b, false);
	nt_buf_puts(b, C(color, "\033[0m"));
	if (a->flags & NT_SF_DISRUPTIVE) {
		nt_buf_puts(b, "  ");
		nt_buf_puts(b, C(color, "\033[31m"));
		nt_buf_puts(b, "[disruptive]");
		nt_buf_puts(b, C(color, "\033[0m"));
	}
	if (a->flags & NT_SF_CANNOT_CHANGE) {
		nt_buf_puts(b, "  ");
		nt_buf_puts(b, C(color, "\033[31;1m"));
		nt_buf_puts(b, "[cannot change]");
		nt_buf_puts(b, C(color, "\033[0m"));
	}
	if (a->src.file && a->src.line) {
		nt_buf_puts(b, "  ");
		nt_buf_puts(b, C(color, "\033[2m"));
		nt_buf_put_escaped(b, a->src.file);
		nt_buf_putc(b, ':');
		put_num(b, a->src.line, 0);
		nt_buf_putc(b, ':');
		put_num(b, a->src.col, 0);
		nt_buf_puts(b, C(color, "\033[0m"));
	}
	nt_buf_putc(b, '\n');
	if (a->note) {
		nt_buf_puts(b, "       ");
		nt_buf_puts(b, C(color, "\033[2m"));
		nt_buf_puts(b, "# ");
		nt_buf_put_escaped(b, a->note);
		nt_buf_puts(b, C(color, "\033[0m"));
		nt_buf_putc(b, '\n');
	}
}

void nt_plan_print_text(const struct nt_plan *p, const char *against, bool color,
			struct nt_buf *b)
{
	size_t i, k, no = 0, width = 30;
	bool *done = nt_xcalloc(p->n + 1, sizeof(bool));

	/* one name column for the whole plan, as wide as its longest name
	 * (feature tx-tcp-mangleid-segmentation, offload-global ...) */
	for (i = 0; i < p->n; i++)
		if (name_width(&p->v[i]) > width)
			width = name_width(&p->v[i]);

	/* host, snapshot path, interface names, values: from files and the
	 * host, escaped (nt_buf_put_escaped); the colours are ours */
	/* the host and the profile apart: a profile may be planned on a host
	 * it does not name (a snapshot of another, metadata.host: any) */
	nt_buf_printf(b, "%sHost %s (%s)%s, profile %s", C(color, "\033[1m"),
		      p->host ? nt_esc(p->host) : "unknown", nt_esc(p->target), C(color, "\033[0m"),
		      nt_esc(p->profile ? p->profile : ""));
	if (against)
		nt_buf_printf(b, ", against %s", nt_esc(against));
	nt_buf_puts(b, "\n");
	for (i = 0; i < p->n; i++) {
		if (done[i])
			continue;
		/* an interface may be named like a pseudo-object ("sysctl"):
		 * the kind keeps them apart */
		nt_buf_printf(b, "\n%s%s%s%s\n", C(color, "\033[1m"), nt_esc(p->v[i].object),
			      !pseudo(&p->v[i]) && is_pseudo_name(p->v[i].object) ? " (interface)" : "",
			      C(color, "\033[0m"));
		for (k = i; k < p->n; k++) {
			const struct nt_action *a = &p->v[k];

			if (done[k] || strcmp(a->object, p->v[i].object) ||
			    pseudo(a) != pseudo(&p->v[i]))
				continue;
			done[k] = true;
			/* numbered as printed: the plan's order is apply's, across
			 * interfaces (an underlay's MTU before its tunnel's) */
			action_line(b, a, ++no, width, color);
		}
	}
	free(done);
	if (!p->n)
		nt_buf_puts(b, "\nNo changes: the host already matches the profile.\n");
	else if (p->cannot)
		nt_buf_printf(b, "\nPlan: %zu change%s, %zu disruptive, %zu cannot be applied.\n",
			      p->n, p->n == 1 ? "" : "s", p->disruptive, p->cannot);
	else
		nt_buf_printf(b, "\nPlan: %zu change%s, %zu disruptive.\n", p->n,
			      p->n == 1 ? "" : "s", p->disruptive);
}

void nt_plan_print_json(const struct nt_plan *p, struct nt_buf *b)
{
	nt_buf_puts(b, "{\"host\":");
	nt_buf_json_str_or_null(b, p->host);
	nt_buf_puts(b, ",\"profile\":");
	nt_buf_json_str(b, p->profile ? p->profile : "");
	nt_buf_puts(b, ",\"target\":");
	nt_buf_json_str(b, p->target);
	nt_buf_printf(b, ",\"changes\":%zu,\"disruptive\":%zu,\"cannot_change\":%zu,\"actions\":",
		      p->n, p->disruptive, p->cannot);
	nt_plan_print_actions_json(p, b);
	nt_buf_puts(b, "}\n");
}

void nt_plan_print_actions_json(const struct nt_plan *p, struct nt_buf *b)
{
	size_t i;

	nt_buf_puts(b, "[");
	for (i = 0; i < p->n; i++) {
		const struct nt_action *a = &p->v[i];
		struct nt_record r = {a->object, a->kind, a->arg, a->has_from ? &a->from : NULL,
				      &a->to, a->flags, a->src, a->note};

		nt_buf_puts(b, i ? ",\n" : "\n");
		nt_record_write(&r, NT_REC_PLAN, b);
	}
	nt_buf_puts(b, "\n]");
}
