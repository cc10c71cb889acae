/* SPDX-License-Identifier: MIT */
/* Reading and writing host snapshots (untrusted input: every rejection is located). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "snapshot.h"
#include "../base/jsonw.h"
#include "../model/names.h"
#include "value.h"

/* Names reach plans, scripts and terminals: no control characters at all. */
static bool safe_name(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static void serr(struct nt_diags *d, const struct nt_json *j, const char *fmt, const char *a)
{
	nt_error(d, j->mark, "snapshot", fmt, a);
}

/* Unknown keys are errors, never ignored: a misspelt key would otherwise
 * silently drop a fact.  keys is NULL-terminated. */
static int known_keys(const struct nt_json *o, const char *const *keys, const char *what,
		      struct nt_diags *d)
{
	size_t i, n;
	int bad = 0;

	if (!o || o->t != NT_J_OBJ)
		return 0;
	for (n = 0; keys[n]; n++)
		;
	for (i = 0; i < o->n; i++) {
		const char *sug;
		size_t k;

		for (k = 0; k < n; k++)
			if (!strcmp(o->keys[i], keys[k]))
				break;
		if (k < n)
			continue;
		sug = nt_suggest(o->keys[i], keys, n);
		if (sug)
			nt_error(d, o->v[i]->mark, "snapshot", "unknown key \"%s\" in %s; did you mean \"%s\"?",
				 o->keys[i], what, sug);
		else
			nt_error(d, o->v[i]->mark, "snapshot", "unknown key \"%s\" in %s", o->keys[i], what);
		bad = -1;
	}
	return bad;
}

/* An optional object member; anything else is a located error. */
static bool want_obj(const struct nt_json *o, const char *key, const struct nt_json **out,
		     struct nt_diags *d)
{
	const struct nt_json *x = nt_json_get(o, key);

	*out = NULL;
	if (!x)
		return true;
	if (x->t != NT_J_OBJ) {
		nt_error(d, x->mark, "snapshot", "\"%s\" must be an object", key);
		return false;
	}
	*out = x;
	return true;
}

static bool want_arr(const struct nt_json *o, const char *key, const struct nt_json **out,
		     struct nt_diags *d)
{
	const struct nt_json *x = nt_json_get(o, key);

	*out = NULL;
	if (!x)
		return true;
	if (x->t != NT_J_ARR) {
		nt_error(d, x->mark, "snapshot", "\"%s\" must be a list", key);
		return false;
	}
	*out = x;
	return true;
}

/* An optional string fact without control characters, copied to *dst. */
static int opt_name(const struct nt_json *o, const char *key, char **dst, struct nt_diags *d)
{
	const char *s;

	if (!nt_json_str(o, key, &s, false, d))
		return 0;
	if (!safe_name(s)) {
		nt_error(d, nt_json_get(o, key)->mark, "snapshot", "\"%s\" has control characters", key);
		return -1;
	}
	free(*dst);
	*dst = nt_xstrdup(s);
	return 0;
}

/* An optional bounded number: a larger one is a located error, never a
 * size that reaches a buffer. */
static int opt_u32_max(const struct nt_json *o, const char *key, uint32_t max, struct nt_num *dst,
		       struct nt_diags *d)
{
	uint32_t u;

	if (!nt_json_get(o, key))
		return 0;
	if (!nt_json_u32(o, key, &u, false, d))
		return -1;
	if (u > max) {
		nt_error(d, nt_json_get(o, key)->mark, "snapshot", "\"%s\" is %u; at most %u", key,
			 u, max);
		return -1;
	}
	*dst = (struct nt_num){true, u};
	return 0;
}

static int load_cpus(const struct nt_json *c, struct nt_facts *f, struct nt_diags *d)
{
	static const char *const keys[] = {"online", "nodes", "siblings", NULL};
	const struct nt_json *nodes, *sib;
	const char *s, *err;
	size_t i;
	int bad = 0;

	if (c->t != NT_J_OBJ) {
		serr(d, c, "%s", "\"cpus\" must be an object");
		return -1;
	}
	bad = known_keys(c, keys, "cpus", d);
	if (nt_json_str(c, "online", &s, true, d)) {
		if (!nt_cpuset_parse(s, &f->online, &err)) {
			nt_error(d, nt_json_get(c, "online")->mark, "snapshot", "cpus.online: %s", err);
			bad = -1;
		}
	} else {
		bad = -1;
	}
	for (int c1 = nt_cpuset_next(&f->online, 0); c1 >= 0;
	     c1 = nt_cpuset_next(&f->online, (unsigned)c1 + 1))
		f->ncpus = (uint32_t)c1 + 1;
	nodes = nt_json_get(c, "nodes");
	if (nodes && nodes->t != NT_J_OBJ) {
		serr(d, nodes, "%s", "cpus.nodes must map node numbers to CPU lists");
		return -1;
	}
	for (i = 0; nodes && i < nodes->n; i++) {
		char *end;
		long n = strtol(nodes->keys[i], &end, 10);
		struct nt_cpuset cs;

		/* canonical decimal only: "-0", "+1", "01" would alias a node */
		if (end == nodes->keys[i] || *end || n < 0 || n >= 64 ||
		    !isdigit((unsigned char)nodes->keys[i][0]) ||
		    (nodes->keys[i][0] == '0' && nodes->keys[i][1]) ||
		    nodes->v[i]->t != NT_J_STR || !nt_cpuset_parse(nodes->v[i]->s, &cs, &err)) {
			serr(d, nodes->v[i], "cpus.nodes[\"%s\"] must be a CPU list of node 0..63",
			     nodes->keys[i]);
			bad = -1;
			continue;
		}
		f->node_cpus[n] = cs;
		if (n + 1 > f->nnodes)
			f->nnodes = (int)n + 1;
		for (int c1 = nt_cpuset_next(&cs, 0); c1 >= 0; c1 = nt_cpuset_next(&cs, (unsigned)c1 + 1))
			f->cpu_node[c1] = (int)n;
	}
	sib = nt_json_get(c, "siblings");
	if (sib && sib->t != NT_J_ARR) {
		serr(d, sib, "%s", "cpus.siblings must be a list of CPU lists, one per core");
		return -1;
	}
	for (i = 0; sib && i < sib->n; i++) {
		struct nt_cpuset cs;

		if (sib->v[i]->t != NT_J_STR || !nt_cpuset_parse(sib->v[i]->s, &cs, &err)) {
			serr(d, sib->v[i], "%s", "cpus.siblings entries must be CPU lists");
			bad = -1;
			continue;
		}
		for (int c1 = nt_cpuset_next(&cs, 0); c1 >= 0; c1 = nt_cpuset_next(&cs, (unsigned)c1 + 1))
			f->cpu_core[c1] = (int)i;
	}
	f->topo_known = !bad;
	return bad;
}

static int cmp_irq_queue(const void *a, const void *b)
{
	const struct nt_irq_fact *x = a, *y = b;

	return x->queue < y->queue ? -1 : x->queue > y->queue;
}

/* "irqs" (each queue's vector) or "tx_irqs" (TX-completion vectors, any
 * number a queue) into *tbl. */
static int load_irqs(const struct nt_json *x, const struct nt_iface_facts *i,
		     struct nt_irq_fact **tbl, size_t *ntbl, bool tx, struct nt_diags *d)
{
	static const char *const keys[] = {"queue", "irq", "managed", "name", NULL};
	/* one bit per possible queue: repeats found in linear time */
	uint8_t *seen = nt_xcalloc(NT_QUEUE_MAX / 8 + 1, 1);
	size_t k;
	int bad = 0;

	for (k = 0; k < x->n; k++) {
		const struct nt_json *e = x->v[k];
		struct nt_irq_fact q = {0};

		if (e->t != NT_J_OBJ) {
			serr(d, e, "%s", "irqs entries must be objects");
			bad = -1;
			continue;
		}
		if (known_keys(e, keys, "an irqs entry", d) ||
		    !nt_json_u32(e, "queue", &q.queue, true, d) ||
		    !nt_json_u32(e, "irq", &q.irq, true, d)) {
			bad = -1;
			continue;
		}
		if (q.queue > NT_QUEUE_MAX || q.irq > NT_IRQ_MAX) {
			nt_error(d, nt_json_get(e, q.queue > NT_QUEUE_MAX ? "queue" : "irq")->mark,
				 "snapshot", q.queue > NT_QUEUE_MAX ? "queue %u is above %u" :
				 "irq %u is above %u", q.queue > NT_QUEUE_MAX ? q.queue : q.irq,
				 q.queue > NT_QUEUE_MAX ? NT_QUEUE_MAX : NT_IRQ_MAX);
			bad = -1;
			continue;
		}
		if (!tx && (seen[q.queue / 8] & (1u << (q.queue % 8)))) {
			nt_error(d, nt_json_get(e, "queue")->mark, "snapshot",
				 "queue %u of %s is listed twice", q.queue, i->name);
			bad = -1;
			continue;
		}
		seen[q.queue / 8] |= (uint8_t)(1u << (q.queue % 8));
		nt_json_bool(e, "managed", &q.managed, false, d);
		if (opt_name(e, "name", &q.name, d)) {
			bad = -1;
			continue;
		}
		*tbl = nt_xgrow(*tbl, *ntbl, sizeof(**tbl));
		(*tbl)[(*ntbl)++] = q;
	}
	free(seen);
	/* nt_facts_irq searches a table sorted by queue */
	if (*ntbl > 1)
		qsort(*tbl, *ntbl, sizeof(**tbl), cmp_irq_queue);
	return bad;
}

/* A new interface of the name the entry gives, or NULL (a located error)
 * when it has no valid name or repeats one. */
static struct nt_iface_facts *new_iface(const struct nt_json *o, struct nt_facts *f,
					struct nt_diags *d)
{
	const char *s, *why;

	if (o->t != NT_J_OBJ) {
		serr(d, o, "%s", "interfaces entries must be objects");
		return NULL;
	}
	if (!nt_json_str(o, "name", &s, true, d))
		return NULL;
	why = f->target && !strcmp(f->target, "windows") ? nt_windows_name_problem(s) :
	      nt_linux_ifname_problem(s);
	if (why) {
		if (safe_name(s))
			nt_error(d, nt_json_get(o, "name")->mark, "snapshot", "interface name \"%s\" %s",
				 s, why);
		else
			nt_error(d, nt_json_get(o, "name")->mark, "snapshot", "interface name %s", why);
		return NULL;
	}
	if (nt_facts_iface(f, s)) {
		serr(d, nt_json_get(o, "name"), "interface \"%s\" is listed twice", s);
		return NULL;
	}
	return nt_facts_add_iface(f, s);
}

/* "pci" is a vendor:device id, stored in lower case */
static int check_pci(const struct nt_json *o, struct nt_iface_facts *i, struct nt_diags *d)
{
	size_t k;
	bool ok = strlen(i->pci) == 9 && i->pci[4] == ':';

	for (k = 0; ok && k < 9; k++)
		ok = k == 4 || isxdigit((unsigned char)i->pci[k]);
	if (!ok) {
		nt_error(d, nt_json_get(o, "pci")->mark, "snapshot",
			 "\"pci\" is not a PCI vendor:device id such as 8086:1572");
		return -1;
	}
	for (k = 0; k < 9; k++)
		i->pci[k] = (char)tolower((unsigned char)i->pci[k]);
	return 0;
}

/* the interface's names and one-line facts, and its NUMA node */
static int load_iface_strings(const struct nt_json *o, struct nt_iface_facts *i,
			      struct nt_diags *d)
{
	const struct nt_json *x;
	int bad = 0;

	bad |= opt_name(o, "kind", &i->kind, d);
	bad |= opt_name(o, "driver", &i->driver, d);
	bad |= opt_name(o, "pci", &i->pci, d);
	if (i->pci && check_pci(o, i, d))
		bad = -1;
	bad |= opt_name(o, "description", &i->description, d);
	bad |= opt_name(o, "ifindex", &i->ifindex, d);
	bad |= opt_name(o, "rsc_failure_ipv4", &i->rsc_failure_ipv4, d);
	bad |= opt_name(o, "rsc_failure_ipv6", &i->rsc_failure_ipv6, d);
	x = nt_json_get(o, "numa_node");
	if (x && (x->t != NT_J_NUM || !x->is_int || x->i < -1 || x->i > 63)) {
		serr(d, x, "%s", "numa_node must be -1..63");
		bad = -1;
	} else if (x) {
		i->numa_node = (int)x->i;
	}
	return bad;
}

/* "max": the hardware maxima of the channels and rings */
static int load_max(const struct nt_json *x, struct nt_iface_facts *i, struct nt_diags *d)
{
	static const char *const max_keys[] = {"combined", "rx", "tx", "other", "ring_rx",
					       "ring_tx", NULL};
	size_t k;
	int bad = known_keys(x, max_keys, "max", d);

	for (k = 0; k < NT_CH__COUNT; k++)
		bad |= opt_u32_max(x, nt_chan_names[k], NT_QUEUES_MAX, &i->max_chan[k], d);
	bad |= opt_u32_max(x, "ring_rx", UINT32_MAX, &i->ring_rx_max, d);
	bad |= opt_u32_max(x, "ring_tx", UINT32_MAX, &i->ring_tx_max, d);
	return bad;
}

/* "rss": the sizes of the RSS key and indirection table */
static int load_rss(const struct nt_json *x, struct nt_iface_facts *i, struct nt_diags *d)
{
	static const char *const rss_keys[] = {"key_bytes", "indir_size", NULL};
	int bad = known_keys(x, rss_keys, "rss", d);

	bad |= opt_u32_max(x, "key_bytes", NT_RSS_KEY_MAX, &i->rss_key_bytes, d);
	if (i->rss_key_bytes.known && !i->rss_key_bytes.v) {
		/* a NIC without a key has no "key_bytes": 0 would skip every
		 * length check of a profile's key */
		nt_error(d, nt_json_get(x, "key_bytes")->mark, "snapshot",
			 "\"key_bytes\" is 0; a NIC with an RSS key has 1..%u bytes",
			 NT_RSS_KEY_MAX);
		bad = -1;
	}
	bad |= opt_u32_max(x, "indir_size", NT_RSS_INDIR_MAX, &i->rss_indir_size, d);
	return bad;
}

/* "queues": the sysfs queue counts */
static int load_queue_counts(const struct nt_json *x, struct nt_iface_facts *i,
			     struct nt_diags *d)
{
	static const char *const q_keys[] = {"rx", "tx", NULL};
	struct nt_num rx = {0}, tx = {0};
	int bad = known_keys(x, q_keys, "queues", d);

	bad |= opt_u32_max(x, "rx", NT_QUEUES_MAX, &rx, d);
	bad |= opt_u32_max(x, "tx", NT_QUEUES_MAX, &tx, d);
	if (rx.known)
		i->rx_queues = rx.v;
	if (tx.known)
		i->tx_queues = tx.v;
	return bad;
}

/* The optional object o[key] read by load, or a located error. */
static int opt_section(const struct nt_json *o, const char *key, struct nt_iface_facts *i,
		       int (*load)(const struct nt_json *, struct nt_iface_facts *,
				   struct nt_diags *), struct nt_diags *d)
{
	const struct nt_json *x;
	int bad = 0;

	if (!want_obj(o, key, &x, d))
		bad = -1;
	if (x)
		bad |= load(x, i, d);
	return bad;
}

/* the queue vectors of "irqs" and "tx_irqs" */
static int load_iface_irqs(const struct nt_json *o, struct nt_iface_facts *i, struct nt_diags *d)
{
	const struct nt_json *x;
	int bad = 0;

	if (!want_arr(o, "irqs", &x, d))
		bad = -1;
	if (x && load_irqs(x, i, &i->irqs, &i->nirqs, false, d))
		bad = -1;
	if (!want_arr(o, "tx_irqs", &x, d))
		bad = -1;
	if (x && load_irqs(x, i, &i->tx_irqs, &i->ntx_irqs, true, d))
		bad = -1;
	return bad;
}

/* "fixed_features": the features the driver does not let change */
static int load_fixed_features(const struct nt_json *o, struct nt_iface_facts *i,
			       struct nt_diags *d)
{
	const struct nt_json *x;
	size_t k;
	int bad = 0;

	if (!want_arr(o, "fixed_features", &x, d))
		bad = -1;
	for (k = 0; x && k < x->n; k++) {
		if (x->v[k]->t != NT_J_STR || !*x->v[k]->s || !safe_name(x->v[k]->s)) {
			serr(d, x->v[k], "%s", "fixed_features entries must be feature names");
			bad = -1;
			continue;
		}
		if (nt_facts_feature(i, x->v[k]->s))
			continue;
		i->features = nt_xgrow(i->features, i->nfeatures, sizeof(*i->features));
		i->features[i->nfeatures].name = nt_strpool_dup(&i->feature_names, x->v[k]->s);
		i->features[i->nfeatures++].fixed = true;
	}
	return bad;
}

static int load_iface(const struct nt_json *o, struct nt_facts *f, struct nt_diags *d)
{
	static const char *const keys[] = {
		"name", "kind", "driver", "pci", "description", "ifindex", "rsc_failure_ipv4",
		"rsc_failure_ipv6", "numa_node", "max", "rss", "queues", "irqs", "tx_irqs", "vmbus",
		"fixed_features", NULL,
	};
	struct nt_iface_facts *i = new_iface(o, f, d);
	int bad = 0;

	if (!i)
		return -1;
	bad |= known_keys(o, keys, "an interfaces entry", d);
	bad |= load_iface_strings(o, i, d);
	bad |= opt_section(o, "max", i, load_max, d);
	bad |= opt_section(o, "rss", i, load_rss, d);
	bad |= opt_section(o, "queues", i, load_queue_counts, d);
	bad |= load_iface_irqs(o, i, d);
	nt_json_bool(o, "vmbus", &i->vmbus, false, d);
	bad |= load_fixed_features(o, i, d);
	return bad;
}

/* The object, attribute (as kind and argument, a sysctl key canonical)
 * of a settings entry, or -1 after a located error. */
static int setting_key(const struct nt_json *o, const char **obj, const char **attr,
		       enum nt_kind_id *kind, char **arg, struct nt_diags *d)
{
	static const char *const keys[] = {"object", "attribute", "value", NULL};
	const char *why, *part;

	if (o->t != NT_J_OBJ) {
		serr(d, o, "%s", "settings entries must be objects");
		return -1;
	}
	if (known_keys(o, keys, "a settings entry", d) ||
	    !nt_json_str(o, "object", obj, true, d) ||
	    !nt_json_str(o, "attribute", attr, true, d))
		return -1;
	if (!**obj || !safe_name(*obj)) {
		serr(d, nt_json_get(o, "object"), "%s", "object is empty or has control characters");
		return -1;
	}
	if (!safe_name(*attr)) {
		serr(d, nt_json_get(o, "attribute"), "%s", "attribute has control characters");
		return -1;
	}
	if (!nt_parse_attr(*attr, kind, arg)) {
		serr(d, nt_json_get(o, "attribute"),
		     "unknown attribute \"%s\" (see nettune plan --help for the kinds)", *attr);
		return -1;
	}
	why = nt_setting_problem(*kind, *obj, *arg, &part);
	if (why) {
		nt_error(d, nt_json_get(o, *part == 'o' ? "object" : "attribute")->mark,
			 "snapshot", "%s %s: %s \"%s\" %s", *obj, *attr, part,
			 *part == 'o' ? *obj : *arg ? *arg : "", why);
		free(*arg);
		return -1;
	}
	if (*kind == NT_K_SYSCTL) {
		/* net/core/x and net.core.x are one key (as in profiles) */
		char *canon = nt_sysctl_key_canon(*arg);

		free(*arg);
		*arg = canon;
	}
	return 0;
}

/* The value of a settings entry, or -1 after a located error. */
static int setting_value(const struct nt_json *o, enum nt_kind_id kind, const char *obj,
			 const char *attr, const char *arg, struct nt_value *v, struct nt_diags *d)
{
	const struct nt_json *val = nt_json_get(o, "value");
	const char *why;

	if (!val) {
		serr(d, o, "%s", "settings entry has no \"value\"");
		return -1;
	}
	if (!nt_value_from_json(kind, val, v, &why)) {
		nt_error(d, val->mark, "snapshot", "value of %s %s: %s", obj, attr, why);
		return -1;
	}
	if (kind == NT_K_SYSCTL && strlen(v->s) > NT_SYSCTL_VALUE_MAX) {
		nt_error(d, val->mark, "snapshot", "value of sysctl %s is %zu bytes; at most %u",
			 arg, strlen(v->s), NT_SYSCTL_VALUE_MAX);
		nt_value_free(v);
		return -1;
	}
	return 0;
}

/* An observed feature: its interface's features are known. */
static void note_feature(struct nt_facts *f, const char *obj, const char *name)
{
	struct nt_iface_facts *i = nt_facts_iface(f, obj);

	if (!i)
		i = nt_facts_add_iface(f, obj);
	i->features_known = true;
	if (nt_facts_feature(i, name))
		return;
	i->features = nt_xgrow(i->features, i->nfeatures, sizeof(*i->features));
	i->features[i->nfeatures].name = nt_strpool_dup(&i->feature_names, name);
	i->features[i->nfeatures++].fixed = false;
}

static int load_setting(const struct nt_json *o, struct nt_facts *f, struct nt_state *st,
			struct nt_diags *d)
{
	const char *obj, *attr;
	enum nt_kind_id kind;
	char *arg;
	struct nt_value v;

	if (setting_key(o, &obj, &attr, &kind, &arg, d))
		return -1;
	if (setting_value(o, kind, obj, attr, arg, &v, d)) {
		free(arg);
		return -1;
	}
	if (nt_state_get(st, kind, obj, arg)) {
		nt_error(d, o->mark, "snapshot", "%s %s is listed twice", obj, attr);
		nt_value_free(&v);
		free(arg);
		return -1;
	}
	nt_state_set(st, kind, obj, arg, v, o->mark);
	if (kind == NT_K_FEATURE)
		note_feature(f, obj, arg);
	free(arg);
	return 0;
}

static int load_settings(const struct nt_json *arr, struct nt_facts *f, struct nt_state *st,
			 struct nt_diags *d)
{
	size_t k;
	int bad = 0;

	if (arr->t != NT_J_ARR) {
		serr(d, arr, "%s", "\"settings\" must be a list");
		return -1;
	}
	for (k = 0; k < arr->n; k++)
		if (load_setting(arr->v[k], f, st, d))
			bad = -1;
	return bad;
}

static int load_windows(const struct nt_json *x, struct nt_facts *f, struct nt_diags *d)
{
	static const char *const keys[] = {"uro_disabled_mask", "diagnosis", "failed_probes", NULL};
	const struct nt_json *m, *dg;
	size_t k;
	int bad;

	if (x->t != NT_J_OBJ) {
		serr(d, x, "%s", "\"windows\" must be an object");
		return -1;
	}
	bad = known_keys(x, keys, "windows", d);
	m = nt_json_get(x, "uro_disabled_mask");
	if (m && (m->t != NT_J_NUM || !m->is_int || m->i < 0 || m->i > 0x7fffffff)) {
		serr(d, m, "%s", "windows.uro_disabled_mask must be a whole number 0..2147483647");
		bad = -1;
	} else if (m) {
		f->uro_disabled_mask = (int)m->i;
	}
	if (!want_arr(x, "diagnosis", &dg, d))
		bad = -1;
	for (k = 0; dg && k < dg->n; k++) {
		if (dg->v[k]->t != NT_J_STR || !safe_name(dg->v[k]->s)) {
			serr(d, dg->v[k], "%s", "windows.diagnosis entries must be one-line strings");
			bad = -1;
			continue;
		}
		f->diagnosis = nt_xgrow(f->diagnosis, f->ndiagnosis, sizeof(char *));
		f->diagnosis[f->ndiagnosis++] = nt_xstrdup(dg->v[k]->s);
	}
	/* what the collector could not read: checked, reported by the collector */
	if (!want_arr(x, "failed_probes", &dg, d))
		bad = -1;
	for (k = 0; dg && k < dg->n; k++)
		if (dg->v[k]->t != NT_J_STR || !safe_name(dg->v[k]->s)) {
			serr(d, dg->v[k], "%s", "windows.failed_probes entries must be one-line strings");
			bad = -1;
		}
	return bad;
}

static int load_host(const struct nt_json *j, struct nt_facts *f, struct nt_diags *d)
{
	static const char *const host_keys[] = {"name", "target", "kernel", "machine_id", "netns",
						 NULL};
	const struct nt_json *host;
	const char *s;
	int bad = 0;

	if (!want_obj(j, "host", &host, d))
		bad = -1;
	if (!host)
		return bad;
	bad |= known_keys(host, host_keys, "host", d);
	bad |= opt_name(host, "name", &f->hostname, d);
	bad |= opt_name(host, "kernel", &f->kernel, d);
	bad |= opt_name(host, "machine_id", &f->machine_id, d);
	bad |= opt_name(host, "netns", &f->netns, d);
	if (nt_json_str(host, "target", &s, false, d)) {
		if (strcmp(s, "linux") && strcmp(s, "windows")) {
			serr(d, nt_json_get(host, "target"), "%s", "host.target must be linux or windows");
			bad = -1;
		}
		f->target = nt_xstrdup(s);
	}
	return bad;
}

static int load_irqbalance(const struct nt_json *j, struct nt_facts *f, struct nt_diags *d)
{
	const char *s;

	if (!nt_json_str(j, "irqbalance", &s, false, d))
		return 0;
	if (!strcmp(s, "active")) {
		f->irqbalance = 1;
	} else if (!strcmp(s, "inactive")) {
		f->irqbalance = 0;
	} else if (strcmp(s, "unknown")) {
		serr(d, nt_json_get(j, "irqbalance"), "%s",
		     "irqbalance must be \"active\", \"inactive\" or \"unknown\"");
		return -1;
	}
	return 0;
}

/* A JSON object of the snapshot format, or -1 after a located error. */
static int check_format(const struct nt_json *j, struct nt_diags *d)
{
	const char *s;

	if (j->t != NT_J_OBJ) {
		serr(d, j, "%s", "a snapshot is a JSON object");
		return -1;
	}
	if (!nt_json_str(j, "format", &s, true, d) || strcmp(s, NT_SNAPSHOT_FORMAT)) {
		if (nt_json_get(j, "format") && nt_json_get(j, "format")->t == NT_J_STR)
			serr(d, nt_json_get(j, "format"), "format must be \"%s\"", NT_SNAPSHOT_FORMAT);
		return -1;
	}
	return 0;
}

/* The facts and settings of a parsed snapshot. */
static int load_snapshot(const struct nt_json *j, struct nt_facts *f, struct nt_state *st,
			 struct nt_diags *d)
{
	static const char *const keys[] = {"format", "host", "cpus", "irqbalance", "interfaces",
					   "windows", "settings", NULL};
	const struct nt_json *x;
	size_t k;
	int bad;

	bad = known_keys(j, keys, "the snapshot", d);
	f->known = true;
	bad |= load_host(j, f, d);
	x = nt_json_get(j, "cpus");
	if (x && load_cpus(x, f, d))
		bad = -1;
	bad |= load_irqbalance(j, f, d);
	if (!want_arr(j, "interfaces", &x, d))
		bad = -1;
	f->ifaces_known = x != NULL;
	for (k = 0; x && k < x->n; k++)
		if (load_iface(x->v[k], f, d))
			bad = -1;
	x = nt_json_get(j, "windows");
	if (x && load_windows(x, f, d))
		bad = -1;
	x = nt_json_get(j, "settings");
	if (x && load_settings(x, f, st, d))
		bad = -1;
	return bad;
}

int nt_snapshot_load_data(const char *file, const char *data, size_t len,
			  struct nt_facts *f, struct nt_state *st, struct nt_diags *d)
{
	size_t errors0 = d->errors;
	struct nt_json *j;
	int bad;

	nt_facts_init(f);
	memset(st, 0, sizeof(*st));
	j = nt_json_parse(file, data, len, d);
	if (!j)
		return -1;
	bad = check_format(j, d);
	if (!bad)
		bad = load_snapshot(j, f, st, d);
	/* a typed getter that refused a value has added an error: that fails
	 * the whole snapshot, never half of it */
	if (d->errors > errors0)
		bad = -1;
	nt_json_free(j);
	if (bad) {
		nt_facts_free(f);
		nt_state_free(st);
	}
	return bad;
}

int nt_snapshot_load(const char *path, struct nt_facts *f, struct nt_state *st,
		     struct nt_diags *d)
{
	struct nt_buf b;
	char why[256];
	int r;

	if (nt_read_input(path, NT_JSON_MAX_BYTES, 0, &b, why, sizeof(why))) {
		struct nt_mark m = {nt_intern(path), 0, 0};

		nt_facts_init(f);
		memset(st, 0, sizeof(*st));
		nt_error(d, m, "io", "%s", why);
		return -1;
	}
	r = nt_snapshot_load_data(path, b.p, b.n, f, st, d);
	nt_buf_free(&b);
	return r;
}

static void opt_str(struct nt_jw *w, const char *key, const char *v)
{
	if (v)
		nt_jw_str(w, key, v);
}

static void opt_num(struct nt_jw *w, const char *key, struct nt_num n)
{
	if (n.known)
		nt_jw_uint(w, key, n.v);
}

static void write_cpuset(struct nt_jw *w, const char *key, const struct nt_cpuset *cs)
{
	char *s = nt_cpuset_str(cs);

	nt_jw_str(w, key, s);
	free(s);
}

static void write_host(const struct nt_facts *f, struct nt_jw *w)
{
	nt_jw_obj(w, "host", NT_JW_INLINE);
	opt_str(w, "name", f->hostname);
	opt_str(w, "target", f->target);
	opt_str(w, "kernel", f->kernel);
	opt_str(w, "machine_id", f->machine_id);
	opt_str(w, "netns", f->netns);
	nt_jw_end(w);
}

/* the CPUs of each core, one list a core */
static void write_siblings(const struct nt_facts *f, struct nt_jw *w)
{
	int core, maxcore = -1;
	unsigned c;

	nt_jw_arr(w, "siblings", NT_JW_INLINE);
	for (c = 0; c < NT_MAX_CPUS; c++)
		if (f->cpu_core[c] > maxcore)
			maxcore = f->cpu_core[c];
	for (core = 0; core <= maxcore; core++) {
		struct nt_cpuset cs;

		nt_cpuset_clear(&cs);
		for (c = 0; c < NT_MAX_CPUS; c++)
			if (f->cpu_core[c] == core)
				nt_cpuset_set(&cs, c);
		if (!nt_cpuset_empty(&cs))
			write_cpuset(w, NULL, &cs);
	}
	nt_jw_end(w);
}

static void write_cpus(const struct nt_facts *f, struct nt_jw *w)
{
	char key[16];
	int n;

	nt_jw_obj(w, "cpus", NT_JW_INLINE);
	write_cpuset(w, "online", &f->online);
	nt_jw_obj(w, "nodes", NT_JW_INLINE);
	for (n = 0; n < f->nnodes; n++) {
		if (nt_cpuset_empty(&f->node_cpus[n]))
			continue;
		snprintf(key, sizeof(key), "%d", n);
		write_cpuset(w, key, &f->node_cpus[n]);
	}
	nt_jw_end(w);
	write_siblings(f, w);
	nt_jw_end(w);
}

static void write_irqs(struct nt_jw *w, const char *key, const struct nt_irq_fact *v, size_t n)
{
	size_t k;

	nt_jw_arr(w, key, NT_JW_INLINE);
	for (k = 0; k < n; k++) {
		nt_jw_obj(w, NULL, NT_JW_INLINE);
		nt_jw_uint(w, "queue", v[k].queue);
		nt_jw_uint(w, "irq", v[k].irq);
		nt_jw_bool(w, "managed", v[k].managed);
		opt_str(w, "name", v[k].name);
		nt_jw_end(w);
	}
	nt_jw_end(w);
}

/* the hardware maxima, RSS sizes and queue counts of an interface */
static void write_limits(const struct nt_iface_facts *x, struct nt_jw *w)
{
	/* a key of 0 bytes is no key: the loader refuses "key_bytes": 0 */
	bool kb = x->rss_key_bytes.known && x->rss_key_bytes.v;
	size_t k;

	nt_jw_obj(w, "max", NT_JW_INLINE);
	for (k = 0; k < NT_CH__COUNT; k++)
		opt_num(w, nt_chan_names[k], x->max_chan[k]);
	opt_num(w, "ring_rx", x->ring_rx_max);
	opt_num(w, "ring_tx", x->ring_tx_max);
	nt_jw_end(w);
	if (kb || x->rss_indir_size.known) {
		nt_jw_obj(w, "rss", NT_JW_INLINE);
		if (kb)
			nt_jw_uint(w, "key_bytes", x->rss_key_bytes.v);
		opt_num(w, "indir_size", x->rss_indir_size);
		nt_jw_end(w);
	}
	nt_jw_obj(w, "queues", NT_JW_INLINE);
	nt_jw_uint(w, "rx", x->rx_queues);
	nt_jw_uint(w, "tx", x->tx_queues);
	nt_jw_end(w);
}

static void write_iface(const struct nt_iface_facts *x, struct nt_jw *w)
{
	size_t k;

	nt_jw_obj(w, NULL, NT_JW_INLINE);
	opt_str(w, "name", x->name);
	opt_str(w, "kind", x->kind);
	opt_str(w, "driver", x->driver);
	opt_str(w, "pci", x->pci);
	opt_str(w, "description", x->description);
	opt_str(w, "ifindex", x->ifindex);
	opt_str(w, "rsc_failure_ipv4", x->rsc_failure_ipv4);
	opt_str(w, "rsc_failure_ipv6", x->rsc_failure_ipv6);
	nt_jw_int(w, "numa_node", x->numa_node);
	write_limits(x, w);
	write_irqs(w, "irqs", x->irqs, x->nirqs);
	if (x->ntx_irqs)
		write_irqs(w, "tx_irqs", x->tx_irqs, x->ntx_irqs);
	if (x->vmbus)
		nt_jw_bool(w, "vmbus", true);
	nt_jw_arr(w, "fixed_features", NT_JW_INLINE);
	for (k = 0; k < x->nfeatures; k++)
		if (x->features[k].fixed)
			nt_jw_str(w, NULL, x->features[k].name);
	nt_jw_end(w);
	nt_jw_end(w);
}

static void write_windows(const struct nt_facts *f, struct nt_jw *w)
{
	size_t k;

	nt_jw_obj(w, "windows", NT_JW_INLINE);
	nt_jw_int(w, "uro_disabled_mask", f->uro_disabled_mask);
	nt_jw_arr(w, "diagnosis", NT_JW_INLINE);
	for (k = 0; k < f->ndiagnosis; k++)
		nt_jw_str(w, NULL, f->diagnosis[k]);
	nt_jw_end(w);
	nt_jw_end(w);
}

static void write_settings(const struct nt_state *st, struct nt_jw *w)
{
	size_t i;

	nt_jw_arr(w, "settings", NT_JW_LINES);
	for (i = 0; st && i < st->n; i++) {
		char *attr = nt_setting_attr(&st->v[i]);

		nt_jw_obj(w, NULL, NT_JW_INLINE);
		nt_jw_str(w, "object", st->v[i].object);
		nt_jw_str(w, "attribute", attr);
		nt_value_json(&st->v[i].val, nt_jw_raw(w, "value"));
		nt_jw_end(w);
		free(attr);
	}
	nt_jw_end(w);
}

void nt_snapshot_write(const struct nt_facts *f, const struct nt_state *st, struct nt_buf *b)
{
	struct nt_jw w;
	size_t i;

	nt_jw_init(&w, b, 2);
	nt_jw_obj(&w, NULL, NT_JW_LINES);
	nt_jw_str(&w, "format", NT_SNAPSHOT_FORMAT);
	write_host(f, &w);
	if (f->topo_known)
		write_cpus(f, &w);
	nt_jw_str(&w, "irqbalance", f->irqbalance > 0 ? "active" :
		  f->irqbalance == 0 ? "inactive" : "unknown");
	nt_jw_arr(&w, "interfaces", NT_JW_LINES);
	for (i = 0; i < f->nifs; i++)
		write_iface(&f->ifs[i], &w);
	nt_jw_end(&w);
	if (f->uro_disabled_mask >= 0 || f->ndiagnosis)
		write_windows(f, &w);
	write_settings(st, &w);
	nt_jw_end(&w);
	nt_buf_putc(b, '\n');
}
