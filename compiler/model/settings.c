/* SPDX-License-Identifier: MIT */
/* The setting kinds table and the typed values of desired/observed state. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../language/profile.h"
#include "../language/schema.h"
#include "settings.h"

/*
 * Phases give the apply order (SPEC safety rules): channels -> IRQ affinity
 * -> RPS/XPS, because a channel change lets the driver reallocate its queue
 * IRQs in ethtool_ops.set_channels and netif_set_real_num_tx_queues drops
 * the XPS maps of removed queues (net/core/dev.c netif_reset_xps_queues_gt).
 * MTU ordering between a tunnel and its underlay is refined in plan.c.
 *
 * Scopes (last column): what a write reaches from inside a network
 * namespace.  The ethtool, rtnetlink and /sys/class/net/DEV/queues
 * kinds address a device, and a device lives in exactly one namespace.
 * /proc/irq/N is not per namespace (kernel/irq/proc.c registers one
 * /proc/irq for the system; an IRQ is served by the host's CPUs), and
 * irqbalance, systemd units and process affinity (sched_setaffinity) are
 * not network objects at all.
 * Windows has no network namespaces.  Sysctls: compiler/model/scope.c.
 */
/* NT_ARG_NAMED: the argument names of a row of kinds.def */
#define NT_ARGS(...) ((const char *const[]){__VA_ARGS__, NULL})

#define IFK "interfaces[]."

/* one row per kind: kinds.def */
const struct nt_kinddef nt_kinds[NT_K__COUNT] = {
#define NT_KIND(id, ...) [NT_K_##id] = {NT_K_##id, __VA_ARGS__},
#include "kinds.def"
#undef NT_KIND
};

int nt_kind_arg_index(enum nt_kind_id k, const char *arg)
{
	const char *const *a = (unsigned)k < NT_K__COUNT ? nt_kinds[k].args : NULL;
	int i;

	for (i = 0; a && arg && a[i]; i++)
		if (!strcmp(a[i], arg))
			return i;
	return -1;
}

const struct nt_word_map *nt_kind_word_map(enum nt_kind_id k)
{
	const char *key = (unsigned)k < NT_K__COUNT ? nt_kinds[k].keys : NULL;

	if (!key || strncmp(key, "interfaces[].", strlen("interfaces[].")))
		return NULL;
	return nt_word_map_at(key + strlen("interfaces[]."));
}

char *nt_kind_words_format(enum nt_kind_id k, uint32_t bits)
{
	const struct nt_word_map *m = nt_kind_word_map(k);

	return m ? nt_words_format(m, bits) : NULL;
}

bool nt_kind_words_parse(enum nt_kind_id k, const char *s, uint32_t *bits)
{
	const struct nt_word_map *m = nt_kind_word_map(k);

	return m && nt_words_parse(m, s, bits);
}

const struct nt_kinddef *nt_kind_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < NT_K__COUNT; i++)
		if (nt_kinds[i].name && !strcmp(nt_kinds[i].name, name))
			return &nt_kinds[i];
	return NULL;
}

/*
 * A CPU set value is never changed once made (512 bytes for NT_MAX_CPUS):
 * copies share it through a count, and a set equal to one of the last few
 * made is shared too (the 512 IRQs of a big host are mostly observed as
 * the same "0-55", their targets as a few sets).  A plan of 8 NICs x 64
 * queues held 6,000 of them, 3 MB of heap touched page by page.
 */
struct shared_cpus {
	size_t refs;
	struct nt_cpuset cs;
};

#define RECENT_CPUS 8
static struct shared_cpus *recent_cpus[RECENT_CPUS];
static unsigned recent_next;

static struct shared_cpus *shared_of(struct nt_cpuset *c)
{
	return (struct shared_cpus *)(void *)((char *)c - offsetof(struct shared_cpus, cs));
}

static struct nt_cpuset *cpus_make(const struct nt_cpuset *c)
{
	struct shared_cpus *sc;
	unsigned i;

	for (i = 0; i < RECENT_CPUS; i++)
		if (recent_cpus[i] && !memcmp(&recent_cpus[i]->cs, c, sizeof(*c))) {
			recent_cpus[i]->refs++;
			return &recent_cpus[i]->cs;
		}
	sc = nt_xmalloc(sizeof(*sc));
	sc->refs = 1;
	sc->cs = *c;
	recent_cpus[recent_next++ % RECENT_CPUS] = sc;
	return &sc->cs;
}

static void cpus_drop(struct nt_cpuset *c)
{
	struct shared_cpus *sc;
	unsigned i;

	if (!c)
		return;
	sc = shared_of(c);
	if (--sc->refs)
		return;
	for (i = 0; i < RECENT_CPUS; i++)
		if (recent_cpus[i] == sc)
			recent_cpus[i] = NULL;
	free(sc);
}

void nt_value_free(struct nt_value *v)
{
	free(v->s);
	cpus_drop(v->cpus);
	free(v->bytes);
	free(v->list);
	v->s = NULL;
	v->cpus = NULL;
	v->bytes = NULL;
	v->list = NULL;
}

void nt_value_copy(struct nt_value *d, const struct nt_value *s)
{
	*d = *s;
	if (s->s)
		d->s = nt_xstrdup(s->s);
	if (s->cpus) {
		shared_of(s->cpus)->refs++;
		d->cpus = s->cpus;
	}
	if (s->bytes) {
		d->bytes = nt_xmalloc(s->n);
		memcpy(d->bytes, s->bytes, s->n);
	}
	if (s->list) {
		d->list = nt_xmalloc(s->n * sizeof(*s->list));
		memcpy(d->list, s->list, s->n * sizeof(*s->list));
	}
}

static bool str_folded_equal(const char *a, const char *b)
{
	for (;;) {
		while (*a == ' ' || *a == '\t' || *a == '\n')
			a++;
		while (*b == ' ' || *b == '\t' || *b == '\n')
			b++;
		if (!*a || !*b)
			return !*a && !*b;
		while (*a && *b && *a != ' ' && *a != '\t' && *a != '\n' &&
		       *b != ' ' && *b != '\t' && *b != '\n') {
			if (*a != *b)
				return false;
			a++;
			b++;
		}
		if ((*a && *a != ' ' && *a != '\t' && *a != '\n') ||
		    (*b && *b != ' ' && *b != '\t' && *b != '\n'))
			return false;
	}
}

bool nt_value_equal(const struct nt_value *a, const struct nt_value *b)
{
	if (a->t != b->t)
		return false;
	switch (a->t) {
	case NT_V_BOOL:
		return a->b == b->b;
	case NT_V_U32:
		return a->u == b->u;
	case NT_V_STR:
		return str_folded_equal(a->s ? a->s : "", b->s ? b->s : "");
	case NT_V_CPUS:
		return nt_cpuset_equal(a->cpus, b->cpus);
	case NT_V_BYTES:
		return a->n == b->n && !memcmp(a->bytes, b->bytes, a->n);
	case NT_V_U32LIST:
		return a->n == b->n && !memcmp(a->list, b->list, a->n * sizeof(*a->list));
	}
	return false;
}

/* "equal over queues 0-12 (512 entries)" when the table is a round robin. */
static void format_indir(const struct nt_value *v, struct nt_buf *b, bool full)
{
	uint32_t max = 0;
	size_t i;
	bool rr = v->n > 0;

	for (i = 0; i < v->n; i++)
		if (v->list[i] > max)
			max = v->list[i];
	for (i = 0; i < v->n; i++)
		if (v->list[i] != i % (max + 1))
			rr = false;
	if (!full && rr) {
		nt_buf_printf(b, "equal over queues 0-%u (%zu entries)", max, v->n);
		return;
	}
	if (!full) {
		nt_buf_printf(b, "custom over queues 0-%u (%zu entries)", max, v->n);
		return;
	}
	for (i = 0; i < v->n; i++) {
		if (i)
			nt_buf_putc(b, ' ');
		nt_buf_put_u64(b, v->list[i]);
	}
}

/* s escaped, with each run of blanks (spaces, tabs) one space and none
 * at either end. */
static void format_folded(const char *s, struct nt_buf *b)
{
	struct nt_buf f = {0};
	const char *c;

	while (*s == ' ' || *s == '\t')
		s++;
	for (c = s; *c; c++) {
		if (*c != ' ' && *c != '\t') {
			nt_buf_putc(&f, *c);
			continue;
		}
		while (c[1] == ' ' || c[1] == '\t')
			c++;
		if (c[1])
			nt_buf_putc(&f, ' ');
	}
	nt_buf_put_escaped(b, f.p ? f.p : "");
	nt_buf_free(&f);
}

void nt_value_format(const struct nt_value *v, struct nt_buf *b, bool full)
{
	size_t i;

	switch (v->t) {
	case NT_V_BOOL:
		nt_buf_puts(b, v->b ? "on" : "off");
		return;
	case NT_V_U32:
		nt_buf_put_u64(b, v->u);
		return;
	case NT_V_STR:
		if (full) {
			nt_buf_puts(b, v->s ? v->s : "");
			return;
		}
		/* display: one line, whatever the value (kernel.core_modes has
		 * newlines; a snapshot's could forge plan or drift lines), and
		 * the kernel's tabs between fields (tcp_rmem) one space each, as
		 * profiles write them: the values compare folded; never nothing:
		 * an empty irqbalance ban would leave "from" blank (and a NULL
		 * buffer where a step line is joined from pieces) */
		if (!v->s || !*v->s)
			nt_buf_puts(b, "\"\"");
		else
			format_folded(v->s, b);
		return;
	case NT_V_CPUS:
		if (nt_cpuset_empty(v->cpus))
			nt_buf_puts(b, "none");
		else
			nt_cpuset_format(v->cpus, b);
		return;
	case NT_V_BYTES:
		if (!full && v->n > 6) {
			nt_buf_printf(b, "%02x:%02x:%02x..%02x (%zu bytes)", v->bytes[0], v->bytes[1],
				      v->bytes[2], v->bytes[v->n - 1], v->n);
			return;
		}
		for (i = 0; i < v->n; i++) {
			static const char hex[] = "0123456789abcdef";
			char h[3] = {':', hex[v->bytes[i] >> 4], hex[v->bytes[i] & 15]};

			nt_buf_putn(b, i ? h : h + 1, i ? 3 : 2);
		}
		return;
	case NT_V_U32LIST:
		format_indir(v, b, full);
		return;
	}
}

struct nt_value nt_v_bool(bool b)
{
	struct nt_value v = {.t = NT_V_BOOL, .b = b};

	return v;
}

struct nt_value nt_v_u32(uint32_t u)
{
	struct nt_value v = {.t = NT_V_U32, .u = u};

	return v;
}

struct nt_value nt_v_str(const char *s)
{
	struct nt_value v = {.t = NT_V_STR, .s = nt_xstrdup(s)};

	return v;
}

struct nt_value nt_v_cpus(const struct nt_cpuset *c)
{
	struct nt_value v = {.t = NT_V_CPUS};

	v.cpus = cpus_make(c);
	return v;
}

struct nt_value nt_v_bytes(const uint8_t *p, size_t n)
{
	struct nt_value v = {.t = NT_V_BYTES, .n = n};

	v.bytes = nt_xmalloc(n);
	memcpy(v.bytes, p, n);
	return v;
}

struct nt_value nt_v_list(const uint32_t *p, size_t n)
{
	struct nt_value v = {.t = NT_V_U32LIST, .n = n};

	v.list = nt_xmalloc(n * sizeof(*p) + 1);
	memcpy(v.list, p, n * sizeof(*p));
	return v;
}

static uint64_t key_hash(enum nt_kind_id k, const char *obj, const char *arg)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)k;
	const char *p;

	for (p = obj; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (p = arg ? arg : ""; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static bool key_eq(const struct nt_setting *s, enum nt_kind_id k, const char *obj, const char *arg)
{
	return s->kind == k && !strcmp(s->object, obj) &&
	       !strcmp(s->arg ? s->arg : "", arg ? arg : "");
}

static void reindex(struct nt_state *st)
{
	size_t i;

	free(st->idx);
	st->idx_cap = st->cap * 2;
	st->idx = nt_xmalloc(st->idx_cap * sizeof(*st->idx));
	for (i = 0; i < st->idx_cap; i++)
		st->idx[i] = SIZE_MAX;
	for (i = 0; i < st->n; i++) {
		size_t h = key_hash(st->v[i].kind, st->v[i].object, st->v[i].arg) % st->idx_cap;

		while (st->idx[h] != SIZE_MAX)
			h = (h + 1) % st->idx_cap;
		st->idx[h] = i;
	}
}

/* The setting of (k, object, arg) whose key hashes to h, or NULL. */
static struct nt_setting *state_find(const struct nt_state *st, uint64_t h, enum nt_kind_id k,
				     const char *object, const char *arg)
{
	size_t i;

	if (!st->idx_cap)
		return NULL;
	for (i = h % st->idx_cap; st->idx[i] != SIZE_MAX; i = (i + 1) % st->idx_cap)
		if (key_eq(&st->v[st->idx[i]], k, object, arg))
			return &st->v[st->idx[i]];
	return NULL;
}

struct nt_setting *nt_state_get(const struct nt_state *st, enum nt_kind_id k,
				const char *object, const char *arg)
{
	return st->idx_cap ? state_find(st, key_hash(k, object, arg), k, object, arg) : NULL;
}

struct nt_setting *nt_state_set(struct nt_state *st, enum nt_kind_id k, const char *object,
				const char *arg, struct nt_value val, struct nt_mark src)
{
	uint64_t hash = key_hash(k, object, arg);
	struct nt_setting *s = state_find(st, hash, k, object, arg);

	if (s) {
		nt_value_free(&s->val);
		s->val = val;
		s->src = src;
		return s;
	}
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 32;
		st->v = nt_xrealloc(st->v, st->cap * sizeof(*st->v));
		reindex(st);
	}
	s = &st->v[st->n];
	memset(s, 0, sizeof(*s));
	s->kind = k;
	/* the settings of one object come together: its name is kept once */
	s->object = st->n && !strcmp(s[-1].object, object) ? s[-1].object : nt_strpool_dup(&st->strings, object);
	s->arg = arg ? nt_strpool_dup(&st->strings, arg) : NULL;
	s->val = val;
	s->src = src;
	s->order = (int)st->n;
	st->n++;
	{
		size_t h = hash % st->idx_cap;

		while (st->idx[h] != SIZE_MAX)
			h = (h + 1) % st->idx_cap;
		st->idx[h] = st->n - 1;
	}
	return s;
}

void nt_state_free(struct nt_state *st)
{
	size_t i;

	for (i = 0; i < st->n; i++) {
		free(st->v[i].note);
		nt_value_free(&st->v[i].val);
	}
	nt_strpool_free(&st->strings);
	free(st->v);
	free(st->idx);
	memset(st, 0, sizeof(*st));
}

char *nt_setting_attr(const struct nt_setting *s)
{
	if (s->arg)
		return nt_xasprintf("%s %s", nt_kinds[s->kind].name, s->arg);
	return nt_xstrdup(nt_kinds[s->kind].name);
}

bool nt_parse_attr(const char *attr, enum nt_kind_id *k, char **arg)
{
	const char *sp = strchr(attr, ' ');
	char *name = sp ? strndup(attr, (size_t)(sp - attr)) : nt_xstrdup(attr);
	const struct nt_kinddef *kind = nt_kind_by_name(name);

	free(name);
	if (!kind)
		return false;
	if (!!(kind->flags & NT_KF_HAS_ARG) != !!sp || (sp && !sp[1]))
		return false;
	*k = kind->id;
	*arg = sp ? nt_xstrdup(sp + 1) : NULL;
	return true;
}

char *nt_setting_label(enum nt_kind_id k, const char *object, const char *arg)
{
	const char *name = nt_kinds[k].name;

	/* a pseudo-object named like its kind ("sysctl") is said once; the
	 * pieces joined with spaces without printf (one label per apply step) */
	const char *part[3];
	size_t n = 0, len = 0, q, l;
	char *out, *p;

	if (strcmp(object, name))
		part[n++] = object;
	part[n++] = name;
	if (arg)
		part[n++] = arg;
	for (q = 0; q < n; q++)
		len += strlen(part[q]) + 1;
	p = out = nt_xmalloc(len);
	for (q = 0; q < n; q++) {
		l = strlen(part[q]);
		memcpy(p, part[q], l);
		p += l;
		*p++ = q + 1 < n ? ' ' : '\0';
	}
	return out;
}

char *nt_sysctl_key_canon(const char *key)
{
	char *k = nt_xstrdup(key), *p;

	if (!strchr(k, '.'))
		for (p = k; *p; p++)
			if (*p == '/')
				*p = '.';
	return k;
}
