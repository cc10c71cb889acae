/* SPDX-License-Identifier: MIT */
/* nettune emit --format sh: the desired state as an idempotent POSIX sh script. */
#include <stdlib.h>
#include <string.h>

#include "../../compiler/base/version.h"
#include "../../compiler/model/offloads.h"
#include "../emit.h"
#include "rows.h"
#include "runtime_sh.h"

/*
 * The script is the template appliers/linux/runtime.sh.in (runtime_sh[],
 * embedded by scripts/embed.py) filled in: the steps of the desired state,
 * the interfaces, and the sh getter and setter of each kind the steps use,
 * which are rows of nt_linux_rows[] (kinds.c), with the template's helpers
 * those use.  A kind without a row cannot be emitted (error at emit time).
 */
static const struct nt_linux_row *row(enum nt_kind_id k)
{
	return nt_linux_row(k);
}

const char *nt_emit_sh_row(enum nt_kind_id k)
{
	const struct nt_linux_row *r = row(k);

	return r ? r->sh_fn : NULL;
}

/* Whether feature setting s is one of its interface's linux.features: lowering
 * puts those after the offload groups, over a member's value. */
static bool escape_hatch(const struct nt_emit_input *in, const char *object, const char *feature)
{
	const struct nt_emit_profile *p = in->prof;
	size_t i;

	for (i = 0; p && i < p->nfeatures; i++)
		if (!strcmp(p->features[i].iface, object) && !strcmp(p->features[i].key, feature))
			return true;
	return false;
}

const char *nt_emit_sh_group(const struct nt_emit_input *in, const struct nt_setting *s)
{
	if (s->kind != NT_K_FEATURE || !s->arg || escape_hatch(in, s->object, s->arg))
		return NULL;
	return nt_linux_offload_of(s->arg);
}

/* The linux.features of object in offload group g, space separated: the
 * members the group's step leaves to their own steps; malloc'd. */
static char *group_except(const struct nt_emit_input *in, const char *object, const char *g)
{
	const struct nt_emit_profile *p = in->prof;
	struct nt_buf o = {0};
	size_t i;

	for (i = 0; p && i < p->nfeatures; i++) {
		const char *key = p->features[i].key;
		const char *kg = nt_linux_offload_of(key);

		if (!strcmp(p->features[i].iface, object) && kg && !strcmp(kg, g))
			nt_buf_printf(&o, "%s%s", o.n ? " " : "", key);
	}
	return o.p ? nt_buf_take(&o) : nt_xstrdup("");
}

static bool value_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* The value as the getter prints it. */
static char *want_text(const struct nt_setting *s)
{
	struct nt_buf b = {0};

	if (row(s->kind)->sh_value == NT_SHV_HEXMASK) {
		/* hex bitmap, no leading zeros */
		int top = -1, i;

		for (i = NT_MAX_CPUS - 1; i >= 0; i--)
			if (nt_cpuset_has(s->val.cpus, (unsigned)i)) {
				top = i;
				break;
			}
		if (top < 0)
			return nt_xstrdup("0");
		for (i = top / 4; i >= 0; i--) {
			unsigned nib = 0, k;

			for (k = 0; k < 4; k++)
				if (nt_cpuset_has(s->val.cpus, (unsigned)(i * 4 + (int)k)))
					nib |= 1u << k;
			nt_buf_putc(&b, "0123456789abcdef"[nib]);
		}
		return nt_buf_take(&b);
	}
	if (row(s->kind)->sh_value == NT_SHV_FOLDED) {
		/* runs of white space fold to one space (nt_value_equal does too) */
		const char *p = s->val.s ? s->val.s : "";
		bool sp = false;

		while (*p == ' ' || *p == '\t')
			p++;
		for (; *p; p++) {
			if (*p == ' ' || *p == '\t') {
				sp = true;
				continue;
			}
			if (sp)
				nt_buf_putc(&b, ' ');
			sp = false;
			nt_buf_putc(&b, *p);
		}
		return b.p ? nt_buf_take(&b) : nt_xstrdup("");
	}
	nt_value_format(&s->val, &b, true);
	return b.p ? nt_buf_take(&b) : nt_xstrdup("");
}

/*
 * The template (runtime.sh.in, embedded as runtime_sh[]) as lines: the
 * lines that can reach a script, each with the optional block it belongs
 * to, and the blocks (#@optional NAME ... #@end) with whether the script
 * keeps them.
 */
struct tline {
	const char *p;
	size_t n;			/* with its newline */
	int block;			/* index in tmpl.block, or -1 */
};

struct tblock {
	const char *name;
	size_t n;
	bool keep;
};

struct tmpl {
	struct tline *line;
	size_t nline;
	struct tblock *block;
	size_t nblock;
};

static void tmpl_parse(const char *t, struct tmpl *m)
{
	int cur = -1;

	while (*t) {
		const char *nl = strchr(t, '\n');
		size_t n = nl ? (size_t)(nl - t) + 1 : strlen(t);

		if (!strncmp(t, "#@optional ", 11)) {
			m->block = nt_xgrow(m->block, m->nblock, sizeof(*m->block));
			m->block[m->nblock] = (struct tblock){t + 11, n - 11 - (nl ? 1 : 0), false};
			cur = (int)m->nblock++;
		} else if (!strncmp(t, "#@end", 5)) {
			cur = -1;
		} else if (strncmp(t, "#@", 2)) {
			m->line = nt_xgrow(m->line, m->nline, sizeof(*m->line));
			m->line[m->nline++] = (struct tline){t, n, cur};
		}
		t += n;
	}
}

static bool name_char(char c)
{
	return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Keeps every block whose name is a word of s (n bytes). */
static void keep_named(struct tmpl *m, const char *s, size_t n)
{
	const char *e = s + n, *w;
	size_t k;

	while (s < e) {
		for (; s < e && !name_char(*s); s++)
			;
		for (w = s; s < e && name_char(*s); s++)
			;
		for (k = 0; w < s && k < m->nblock; k++)
			if (!m->block[k].keep && m->block[k].n == (size_t)(s - w) &&
			    !memcmp(w, m->block[k].name, m->block[k].n))
				m->block[k].keep = true;
	}
}

/* Keeps the blocks the script uses: those named by calls (what the rows
 * and the steps call) or by a line it keeps, until no kept block names
 * another. */
static void keep_used(struct tmpl *m, const char *calls)
{
	bool *read = nt_xcalloc(m->nblock + 1, sizeof(*read));
	bool more;
	size_t i, k;

	keep_named(m, calls, strlen(calls));
	for (i = 0; i < m->nline; i++)
		if (m->line[i].block < 0)
			keep_named(m, m->line[i].p, m->line[i].n);
	do {
		more = false;
		for (k = 0; k < m->nblock; k++) {
			if (!m->block[k].keep || read[k])
				continue;
			read[k] = more = true;
			for (i = 0; i < m->nline; i++)
				if (m->line[i].block == (int)k)
					keep_named(m, m->line[i].p, m->line[i].n);
		}
	} while (more);
	free(read);
}

/* For a line that is only "@KEY@" with KEY in kv, where kv holds its
 * value (NULL for ""); otherwise NULL. */
static const char *const *line_key(const struct tline *l, const char *const *kv)
{
	size_t k;

	if (l->n < 3 || l->p[0] != '@' || l->p[l->n - 2] != '@' || l->p[l->n - 1] != '\n')
		return NULL;
	for (k = 0; kv[k]; k += 2)
		if (strlen(kv[k]) == l->n - 3 && !memcmp(l->p + 1, kv[k], l->n - 3))
			return &kv[k + 1];
	return NULL;
}

/* The kept lines of the template with @KEY@ replaced from kv; a value is
 * never expanded again. */
static void tmpl_render(const struct tmpl *m, const char *const *kv, struct nt_buf *o)
{
	struct nt_buf line = {0};
	size_t i;

	for (i = 0; i < m->nline; i++) {
		const struct tline *l = &m->line[i];
		const char *const *v;

		if (l->block >= 0 && !m->block[l->block].keep)
			continue;
		v = line_key(l, kv);
		if (v) {
			nt_buf_puts(o, *v ? *v : "");
		} else if (memchr(l->p, '@', l->n)) {
			line.n = 0;
			nt_buf_putn(&line, l->p, l->n);
			nt_emit_tmpl(o, line.p, kv);
		} else {
			nt_buf_putn(o, l->p, l->n);
		}
	}
	nt_buf_free(&line);
}

static void tmpl_free(struct tmpl *m)
{
	free(m->line);
	free(m->block);
}

/* The script being put together: the steps, their interfaces, and the
 * kinds whose getter and setter the steps need. */
struct script {
	const struct nt_emit_input *in;
	struct nt_diags *d;
	struct nt_buf steps;		/* the body of nt_settings */
	struct nt_buf ifaces;		/* " 'eth0' 'eth1'": what nt_preflight checks */
	const char **seen;		/* the interfaces in ifaces */
	size_t nseen;
	struct nt_state groups;		/* (interface, group) -> its first member */
	bool uses[NT_K__COUNT];
	bool grouped;			/* a step is an nt_group */
	int bad;
};

/* Why setting s cannot be a step of a sh script, or NULL. */
static const char *inexpressible(const struct script *x, const struct nt_setting *s,
				 const struct nt_linux_row *r)
{
	const struct nt_iface_facts *F;
	const char *why;

	if (!(nt_kinds[s->kind].flags & NT_KF_HOST_OBJ) && s->object[0] == '-')
		return "an interface name that starts with '-' would be read as an ethtool option";
	if (!value_ok(s->object) || (s->arg && !value_ok(s->arg)) || (s->arg && strchr(s->arg, '@')))
		return "the name has a control character or '@'";
	why = r->sh_refuse ? r->sh_refuse(&s->val) : NULL;
	if (why || !(r->sh_flags & NT_SH_ARG_IRQ))
		return why;
	F = nt_facts_iface(x->in->facts, s->object);
	if (F && F->vmbus)
		return "its queues are VMBus channels (hv_netvsc), placed through "
		       "channels/RELID/cpu, which the script does not write; use nettune apply";
	return NULL;
}

/* The value setting s wants as its getter prints it, or NULL after an
 * error: s cannot be a step of a sh script. */
static char *checked_want(struct script *x, const struct nt_setting *s, const struct nt_linux_row *r)
{
	const char *why;
	char *want;

	if (!r) {
		nt_error(x->d, s->src, "emit",
			 "%s %s cannot be expressed in a sh script: no sh row for kind '%s' "
			 "(a Windows setting in a Linux profile?)", s->object,
			 s->arg ? s->arg : "", nt_kinds[s->kind].name);
		return NULL;
	}
	why = inexpressible(x, s, r);
	if (why) {
		nt_error(x->d, s->src, "emit", "%s %s%s%s cannot be expressed in a sh script: %s",
			 s->object, nt_kinds[s->kind].name, s->arg ? " " : "",
			 s->arg ? s->arg : "", why);
		return NULL;
	}
	want = want_text(s);
	if (!value_ok(want)) {
		nt_error(x->d, s->src, "emit", "%s %s: the value has a control character",
			 s->object, nt_kinds[s->kind].name);
		free(want);
		return NULL;
	}
	return want;
}

static void add_iface(struct script *x, const struct nt_setting *s)
{
	size_t i;

	if (nt_kinds[s->kind].flags & NT_KF_HOST_OBJ)
		return;
	for (i = 0; i < x->nseen; i++)
		if (!strcmp(x->seen[i], s->object))
			return;
	x->seen[x->nseen++] = s->object;
	nt_buf_putc(&x->ifaces, ' ');
	nt_sh_quote(&x->ifaces, s->object);
}

/* Whether feature setting s, a member of offload group g, has the group's
 * step: the first member on its interface does (the step expands the
 * group at run time); the others must want the same value. */
static bool group_first(struct script *x, const struct nt_setting *s, const char *g)
{
	const struct nt_setting *first = nt_state_get(&x->groups, NT_K_FEATURE, s->object, g);

	if (!first) {
		nt_state_set(&x->groups, NT_K_FEATURE, s->object, g, nt_v_bool(s->val.b),
			     s->src)->note = nt_xstrdup(s->arg);
		return true;
	}
	if (first->val.b != s->val.b) {
		nt_error(x->d, s->src, "emit", "%s feature %s cannot be expressed in a sh "
			 "script: the members of offload group %s disagree (%s wants %s)",
			 s->object, s->arg, g, first->note, first->val.b ? "on" : "off");
		x->bad = -1;
	}
	return false;
}

/* "\tnt_group 'DEV' 'GROUP' 'WANT' 'EXCEPT' || return 1": each member is
 * an nt_step of kind feature. */
static void put_group(struct script *x, const struct nt_setting *s, const char *g, const char *want)
{
	char *except = group_except(x->in, s->object, g);

	nt_buf_puts(&x->steps, "\tnt_group ");
	nt_sh_quote(&x->steps, s->object);
	nt_buf_putc(&x->steps, ' ');
	nt_sh_quote(&x->steps, g);
	nt_buf_putc(&x->steps, ' ');
	nt_sh_quote(&x->steps, want);
	nt_buf_putc(&x->steps, ' ');
	nt_sh_quote(&x->steps, except);
	nt_buf_puts(&x->steps, " || return 1\n");
	free(except);
	x->uses[NT_K_FEATURE] = true;
	x->grouped = true;
}

/* "\tnt_step FN 'OBJECT' 'ARG' 'WANT' || return 1" */
static void put_step(struct nt_buf *o, const struct nt_linux_row *r, const char *object,
		     const char *arg, const char *want)
{
	nt_buf_printf(o, "\tnt_step %s ", r->sh_fn);
	nt_sh_quote(o, object);
	nt_buf_putc(o, ' ');
	nt_sh_quote(o, arg);
	nt_buf_putc(o, ' ');
	nt_sh_quote(o, want);
	nt_buf_puts(o, " || return 1\n");
}

/* The steps of setting s: one, whose argument is "QUEUE@IRQ" for an IRQ
 * kind when the facts know the queue's IRQ, and one more for each of the
 * queue's TX-completion vectors (they take the same CPUs). */
static void put_steps(struct script *x, const struct nt_setting *s, const struct nt_linux_row *r,
		      const char *want)
{
	const struct nt_iface_facts *F;
	const struct nt_irq_fact *q, *tx;
	size_t ntx = 0, t;
	char *a;

	x->uses[s->kind] = true;
	if (!(r->sh_flags & NT_SH_ARG_IRQ) || !s->arg) {
		put_step(&x->steps, r, s->object, s->arg ? s->arg : "", want);
		return;
	}
	F = nt_facts_iface(x->in->facts, s->object);
	q = F ? nt_facts_irq(F, (uint32_t)atoi(s->arg)) : NULL;
	a = q ? nt_xasprintf("%s@%u", s->arg, q->irq) : nt_xstrdup(s->arg);
	put_step(&x->steps, r, s->object, a, want);
	free(a);
	tx = F ? nt_facts_tx_irqs(F, (uint32_t)atoi(s->arg), &ntx) : NULL;
	for (t = 0; tx && t < ntx; t++) {
		a = nt_xasprintf("%s@%u", s->arg, tx[t].irq);
		put_step(&x->steps, r, s->object, a, want);
		free(a);
	}
}

/* Setting s as steps of nt_settings, or an error. */
static void add_setting(struct script *x, const struct nt_setting *s)
{
	const struct nt_linux_row *r = row(s->kind);
	char *want = checked_want(x, s, r);
	const char *g;

	if (!want) {
		x->bad = -1;
		return;
	}
	add_iface(x, s);
	g = nt_emit_sh_group(x->in, s);
	if (!g || group_first(x, s, g)) {
		if (s->note) {
			nt_buf_puts(&x->steps, "\t# ");
			nt_sh_comment(&x->steps, s->note);
			nt_buf_putc(&x->steps, '\n');
		}
		if (g)
			put_group(x, s, g, want);
		else
			put_steps(x, s, r, want);
	}
	free(want);
}

/* Whether the script carries the getter and setter of kind k. */
static bool carries(const struct script *x, size_t k)
{
	return row((enum nt_kind_id)k) && (x->in->sh_all_kinds || x->uses[k]);
}

/* What the template's lists of kinds say: the getters and setters the
 * script carries and their cases in nt_get and nt_put; every kind a
 * record file may name (nt_restore), the IRQ kinds and the host-object
 * kinds; the members of each offload group (nt_in_group). */
struct lists {
	struct nt_buf rows, gets, puts, kinds, irq, host, groups;
};

static void put_fn(struct nt_buf *o, const char *verb, const struct nt_linux_row *r,
		   const char *body)
{
	nt_buf_printf(o, "nt_%s_%s() {\n\t", verb, r->sh_fn);
	nt_linux_row_sh(r, body, o);
	nt_buf_puts(o, "\n}\n\n");
}

static void make_lists(const struct script *x, struct lists *l)
{
	const char *g;
	size_t k;

	for (k = 0; k < NT_K__COUNT; k++) {
		const struct nt_linux_row *r = row((enum nt_kind_id)k);

		if (!r)
			continue;
		if (carries(x, k)) {
			put_fn(&l->rows, "get", r, r->sh_get);
			put_fn(&l->rows, "put", r, r->sh_put);
			nt_buf_printf(&l->gets, "\t%s) nt_get_%s \"$@\" ;;\n", r->sh_fn, r->sh_fn);
			nt_buf_printf(&l->puts, "\t%s) nt_put_%s \"$@\" ;;\n", r->sh_fn, r->sh_fn);
		}
		nt_buf_printf(&l->kinds, "%s%s", l->kinds.n ? " | " : "", r->sh_fn);
		if (r->sh_flags & NT_SH_ARG_IRQ)
			nt_buf_printf(&l->irq, "%s%s", l->irq.n ? " | " : "", r->sh_fn);
		if (nt_kinds[k].flags & NT_KF_HOST_OBJ)
			nt_buf_printf(&l->host, " | %s", r->sh_fn);
	}
	for (k = 0; (g = nt_linux_offload(k)); k++) {
		nt_buf_printf(&l->groups, "\t%s) case \"$2\" in ", g);
		nt_linux_offload_patterns(k, &l->groups);
		nt_buf_puts(&l->groups, ") return 0 ;; esac ;;\n");
	}
}

static void lists_free(struct lists *l)
{
	nt_buf_free(&l->rows);
	nt_buf_free(&l->gets);
	nt_buf_free(&l->puts);
	nt_buf_free(&l->kinds);
	nt_buf_free(&l->irq);
	nt_buf_free(&l->host);
	nt_buf_free(&l->groups);
}

/* The template's blocks the script keeps: those its getters, setters and
 * steps use (nt_settings calls nt_step, and nt_group for offload groups),
 * or all of them. */
static void keep_blocks(const struct script *x, const struct lists *l, struct tmpl *m)
{
	char *calls = nt_xasprintf("%s%s", l->rows.p ? l->rows.p : "",
				   x->grouped ? "nt_group\n" : "");
	size_t k;

	if (x->in->sh_all_kinds)
		for (k = 0; k < m->nblock; k++)
			m->block[k].keep = true;
	keep_used(m, calls);
	free(calls);
}

static char *comment_text(const char *s)
{
	struct nt_buf b = {0};

	nt_sh_comment(&b, s);
	return b.p ? nt_buf_take(&b) : nt_xstrdup("");
}

/* The script: the template filled in.  @KEY@ of the header are comment
 * text (nt_sh_comment), never raw. */
static void write_script(const struct script *x, struct nt_buf *o)
{
	const struct nt_emit_input *in = x->in;
	char *profile = comment_text(in->profile_path), *host = comment_text(in->host);
	struct nt_buf against = {0}, hostq = {0};
	struct lists l = {0};
	struct tmpl m = {0};

	if (in->against) {
		nt_buf_puts(&against, "# Ordered against the snapshot ");
		nt_sh_comment(&against, in->against);
		nt_buf_puts(&against, "; values are read at run time.\n");
	}
	nt_sh_quote(&hostq, in->host);
	make_lists(x, &l);
	tmpl_parse(runtime_sh, &m);
	keep_blocks(x, &l, &m);
	{
		const char *kv[] = {
			"VERSION", NT_VERSION, "PROFILE", profile, "HOST", host,
			"AGAINST", against.p, "HOSTQ", hostq.p, "ROWS", l.rows.p,
			"GETCASES", l.gets.p, "PUTCASES", l.puts.p, "IRQKINDS", l.irq.p,
			"GROUPCASES", l.groups.p, "KINDLIST", l.kinds.p, "HOSTKINDS", l.host.p,
			"SETTINGS", x->steps.p ? x->steps.p : "\t:\n", "IFACES", x->ifaces.p,
			NULL,
		};

		tmpl_render(&m, kv, o);
	}
	tmpl_free(&m);
	lists_free(&l);
	nt_buf_free(&against);
	nt_buf_free(&hostq);
	free(profile);
	free(host);
}

int nt_emit_sh(const struct nt_emit_input *in, struct nt_buf *o, struct nt_diags *d)
{
	struct script x = {.in = in, .d = d};
	size_t n, i;
	const struct nt_setting **ord = nt_emit_order(in, &n);

	x.seen = nt_xcalloc(n + 1, sizeof(*x.seen));
	for (i = 0; i < n; i++)
		add_setting(&x, ord[i]);
	if (!x.bad)
		write_script(&x, o);
	nt_buf_free(&x.steps);
	nt_buf_free(&x.ifaces);
	nt_state_free(&x.groups);
	free(x.seen);
	free(ord);
	return x.bad;
}
