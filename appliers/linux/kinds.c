/* SPDX-License-Identifier: MIT */
/* Read and write of each Linux setting kind: the applier's row per kind. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/if_link.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/model/caps.h"
#include "../../compiler/model/names.h"
#include "devcache.h"
#include "family.h"
#include "irqmap.h"
#include "link.h"
#include "linux.h"
#include "rows.h"
#include "rss.h"
#include "sysio.h"

int nt_lctx_open(struct nt_lctx *x, struct nt_facts *facts)
{
	memset(x, 0, sizeof(*x));
	x->facts = facts;
	if (!*nt_sys_root || getenv("NETTUNE_NETLINK_WITH_ROOT"))
		x->nl = nt_devcache_ethnl();
	return 0;
}

void nt_lctx_drop_cache(struct nt_lctx *x)
{
	(void)x;
	nt_devcache_stale_all();
}

/* the socket and the replies stay with the device cache */
void nt_lctx_close(struct nt_lctx *x)
{
	memset(x, 0, sizeof(*x));
}

int nt_lctx_channels(struct nt_lctx *x, const char *obj, struct nt_ethnl_vals *out)
{
	if (!x->nl)
		return -EOPNOTSUPP;
	return nt_devcache_vals(&nt_fam_channels, obj, out);
}

void nt_lctx_channels_changed(struct nt_lctx *x, const char *dev)
{
	const struct nt_iface_facts *i = nt_facts_iface(x->facts, dev);

	/* the IRQ set of the device may have changed; a device without a bus
	 * device below it (no driver: veth) has no MSI IRQs to look up */
	if (i && !i->driver)
		return;
	nt_irqmap_stale();
	nt_irqmap_refresh(x->facts, dev);
}

static void seterr(struct nt_lctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void seterr(struct nt_lctx *x, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(x->err, sizeof(x->err), fmt, ap);
	va_end(ap);
}

static int nl_err(struct nt_lctx *x, int r)
{
	return nt_row_nl_err(x, r);
}

/* sysctl -------------------------------------------------------------- */

/* net.core.rmem_max and net/core/rmem_max name the same file; a key with
 * a '/' is a path whose dots belong to names (eth0.10), as in the sh
 * emitter's nt_sysctl_path */
char *nt_linux_sysctl_path(const char *key)
{
	char *k = nt_xstrdup(key), *p, *r;

	for (p = k; !strchr(key, '/') && *p; p++)
		if (*p == '.')
			*p = '/';
	r = nt_sys_path_rel("/proc/sys", k, '/');
	free(k);
	return r;
}

static int sysctl_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	char *p = nt_linux_sysctl_path(arg), *s = nt_sys_read(p);

	(void)x;
	(void)obj;
	free(p);
	if (!s)
		return errno == ENOENT ? -ENOENT : -errno;
	*out = nt_v_str(s);
	free(s);
	return 0;
}

static int sysctl_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	char *p = nt_linux_sysctl_path(arg);
	int r = nt_sys_write(p, v->s);

	(void)obj;
	if (r)
		seterr(x, "writing %s: %s", p ? p : arg, strerror(-r));
	free(p);
	return r;
}

/* features ------------------------------------------------------------ */

static int feature_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	const struct nt_features *fs;
	struct nt_feature_state f;
	int r;

	if (!x->nl)
		return -EOPNOTSUPP;
	r = nt_devcache_features(obj, &fs);
	if (r)
		return r == -ENODEV || r == -EOPNOTSUPP ? -ENOENT : r;
	if (!nt_features_find(fs, arg, &f))
		return -ENOENT;
	*out = nt_v_bool(f.active);
	return 0;
}

static int feature_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	int r;

	nt_devcache_stale(NT_DC_FEATURES);
	if (!x->nl)
		return -EOPNOTSUPP;
	r = nt_ethnl_feature_set(x->nl, obj, arg, v->b);
	return r ? nl_err(x, r) : 0;
}

/* A device's features in one ETHTOOL_MSG_FEATURES_SET (the kernel applies
 * them together, as ethtool -K does). */
static int feature_batch(struct nt_lctx *x, const char *obj, const char *const *args,
			 const struct nt_value *const *vals, size_t n)
{
	bool *on = nt_xcalloc(n + 1, sizeof(*on));
	int r;

	for (size_t k = 0; k < n; k++)
		on[k] = vals[k]->b;
	nt_devcache_stale(NT_DC_FEATURES);
	r = nt_ethnl_features_set(x->nl, obj, args, on, n);
	free(on);
	return r ? nl_err(x, r) : 0;
}

/* ethtool families of fixed attributes (family.h) ---------------------- */

/* The row's family from the device cache, or by one GET (per_device). */
static int ethnl_vals(struct nt_lctx *x, const struct nt_ethnl_family *f, const char *obj,
		      struct nt_ethnl_vals *v)
{
	int r = f->per_device ? nt_ethnl_vals_get(x->nl, f, obj, v) : nt_devcache_vals(f, obj, v);

	/* the device does not report it: veth has no rings and no pause */
	if (r == -EOPNOTSUPP || r == -ENODEV || (f->per_device && r == -EINVAL))
		return -ENOENT;
	return r;
}

int nt_rw_ethnl_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	const struct nt_ethnl_family *f = x->row->fam;
	int k = nt_ethnl_arg_index(f, x->row->kind, arg), r;
	struct nt_ethnl_vals v;

	if (!x->nl || k < 0)
		return f->per_device ? -ENOENT : -EOPNOTSUPP;
	r = ethnl_vals(x, f, obj, &v);
	if (r)
		return r;
	if (!nt_ethnl_present(f, &v, k))
		return -ENOENT;
	*out = nt_kinds[x->row->kind].vtype == NT_V_BOOL ? nt_v_bool(v.cur[k] != 0) :
							    nt_v_u32(v.cur[k]);
	return 0;
}

int nt_rw_ethnl_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	const struct nt_linux_row *row = x->row;
	const struct nt_ethnl_family *f = row->fam;
	int k = nt_ethnl_arg_index(f, row->kind, arg), r;
	struct nt_ethnl_vals s = {0};

	nt_devcache_vals_stale(f);
	if (!x->nl)
		return -EOPNOTSUPP;
	if (k < 0)
		return nl_err(x, -EINVAL);
	s.have[k] = true;
	s.cur[k] = nt_kinds[row->kind].vtype == NT_V_BOOL ? v->b : v->u;
	r = nt_ethnl_vals_set(x->nl, f, obj, &s);
	if (r)
		return nl_err(x, r);
	if (row->after_write)
		row->after_write(x, obj);
	return 0;
}

/* A device's rx, tx, combined and other channel counts in one
 * CHANNELS_SET (as ethtool -L). */
static int channels_batch(struct nt_lctx *x, const char *obj, const char *const *args,
			  const struct nt_value *const *vals, size_t n)
{
	struct nt_ethnl_vals ch = {0};
	int r;

	for (size_t k = 0; k < n; k++) {
		int c;

		for (c = 0; c < NT_CH__COUNT && strcmp(args[k], nt_chan_names[c]); c++)
			;
		if (c < NT_CH__COUNT) {
			ch.have[c] = true;
			ch.cur[c] = vals[k]->u;
		}
	}
	nt_devcache_stale(NT_DC_CHANNELS);
	r = nt_ethnl_vals_set(x->nl, &nt_fam_channels, obj, &ch);
	if (r)
		return nl_err(x, r);
	nt_lctx_channels_changed(x, obj);
	return 0;
}

/* fixtures (--root without netlink): queue directories stand for
 * combined channels */
static int channels_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	const struct nt_iface_facts *i;

	if (!*nt_sys_root || x->nl)
		return nt_rw_ethnl_read(x, obj, arg, out);
	i = nt_facts_iface(x->facts, obj);
	if (!i || nt_ethnl_arg_index(&nt_fam_channels, NT_K_CHANNELS, arg) != NT_CH_COMBINED ||
	    !i->rx_queues)
		return -ENOENT;
	*out = nt_v_u32(i->rx_queues);
	return 0;
}

/* RSS ----------------------------------------------------------------- */

static int rss_read(struct nt_lctx *x, const char *obj, enum nt_kind_id k, struct nt_value *out)
{
	const struct nt_rss_state *s;
	int r;

	(void)x;
	if (*nt_sys_root)
		return -ENOENT;
	r = nt_devcache_rss(obj, &s);
	if (r)
		return r == -EOPNOTSUPP || r == -ENODEV || r == -EINVAL ? -ENOENT : r;
	if (k == NT_K_RSS_HFUNC)
		*out = nt_v_str(nt_rss_hfunc_name(s->hfunc));
	else if (k == NT_K_RSS_KEY && s->key_size)
		*out = nt_v_bytes(s->key, s->key_size);
	else if (k == NT_K_RSS_INDIR && s->indir_size)
		*out = nt_v_list(s->indir, s->indir_size);
	else
		r = -ENOENT;
	return r;
}

static int hfunc_read(struct nt_lctx *x, const char *o, const char *a, struct nt_value *out)
{
	(void)a;
	return rss_read(x, o, NT_K_RSS_HFUNC, out);
}

static int key_read(struct nt_lctx *x, const char *o, const char *a, struct nt_value *out)
{
	(void)a;
	return rss_read(x, o, NT_K_RSS_KEY, out);
}

static int indir_read(struct nt_lctx *x, const char *o, const char *a, struct nt_value *out)
{
	(void)a;
	return rss_read(x, o, NT_K_RSS_INDIR, out);
}

static int rss_write_err(struct nt_lctx *x, const char *dev, int r)
{
	nt_devcache_rss_stale(dev);
	if (r)
		seterr(x, "SIOCETHTOOL ETHTOOL_SRSSH: %s", strerror(-r));
	return r;
}

static int hfunc_write(struct nt_lctx *x, const char *o, const char *a, const struct nt_value *v)
{
	(void)a;
	return rss_write_err(x, o, nt_rss_set(o, nt_rss_hfunc_bit(v->s), NULL, 0, NULL, 0));
}

static int key_write(struct nt_lctx *x, const char *o, const char *a, const struct nt_value *v)
{
	(void)a;
	return rss_write_err(x, o, nt_rss_set(o, 0, v->bytes, v->n, NULL, 0));
}

static int indir_write(struct nt_lctx *x, const char *o, const char *a, const struct nt_value *v)
{
	(void)a;
	return rss_write_err(x, o, nt_rss_set(o, 0, NULL, 0, v->list, v->n));
}

/* IRQ affinity, RPS, XPS ---------------------------------------------- */

/* The vectors of queue arg of obj: its own (combined/RX, or a VMBus
 * channel) and its TX-completion vectors, which follow it. */
static const struct nt_irq_fact *irq_of(struct nt_lctx *x, const char *obj, const char *arg,
					const struct nt_iface_facts **ifp,
					const struct nt_irq_fact **tx, size_t *ntx)
{
	const struct nt_iface_facts *i = nt_facts_iface(x->facts, obj);
	uint32_t q = (uint32_t)strtoul(arg, NULL, 10);

	*ifp = i;
	*tx = NULL;
	*ntx = 0;
	if (!i)
		return NULL;
	*tx = nt_facts_tx_irqs(i, q, ntx);
	return nt_facts_irq(i, q);
}

struct irqs {
	char s[16];
};

static struct irqs irq_str(unsigned irq)
{
	struct irqs r;

	snprintf(r.s, sizeof(r.s), "%u", irq);
	return r;
}

/* The affinity file of one vector: /proc/irq/N/smp_affinity_list, or a
 * VMBus channel's cpu file (one CPU number). */
static char *vector_path(struct nt_lctx *x, const struct nt_iface_facts *i, const char *obj,
			 unsigned irq)
{
	if (i->vmbus)
		return nt_sys_path("/sys/class/net/%s/device/channels/%u/cpu", obj, irq);
	return nt_sys_path(x->row->path, irq_str(irq).s);
}

static int cpus_file_read(const char *path, bool mask, struct nt_value *out)
{
	char *s = nt_sys_read(path);
	struct nt_cpuset cs;
	const char *err;
	bool ok;

	if (!s)
		return errno == ENOENT ? -ENOENT : -errno;
	ok = mask ? nt_cpuset_parse_mask(s, &cs) : (!*s ? (nt_cpuset_clear(&cs), true) :
						    nt_cpuset_parse(s, &cs, &err));
	free(s);
	if (!ok)
		return -EINVAL;
	*out = nt_v_cpus(&cs);
	return 0;
}

static int vector_read(struct nt_lctx *x, const struct nt_iface_facts *i, const char *obj,
		       unsigned irq, struct nt_value *out)
{
	char *p = vector_path(x, i, obj, irq);
	int r;

	if (i->vmbus) {
		char *s = p ? nt_sys_read(p) : NULL, *e;
		unsigned long cpu;
		struct nt_cpuset cs;

		free(p);
		if (!s)
			return errno == ENOENT ? -ENOENT : -errno;
		errno = 0;
		cpu = strtoul(s, &e, 10);
		r = errno || e == s || *e || cpu >= NT_MAX_CPUS ? -EINVAL : 0;
		free(s);
		if (r)
			return r;
		nt_cpuset_clear(&cs);
		nt_cpuset_set(&cs, (unsigned)cpu);
		*out = nt_v_cpus(&cs);
		return 0;
	}
	r = cpus_file_read(p, false, out);
	free(p);
	return r;
}

/* All the queue's vectors: their common set; where they differ, the union
 * (which no placement gives, so the plan rewrites them all). */
static int affinity_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	const struct nt_iface_facts *i;
	const struct nt_irq_fact *tx, *f;
	size_t ntx, k;
	int r;

	f = irq_of(x, obj, arg, &i, &tx, &ntx);
	if (!f)
		return -ENOENT;
	r = vector_read(x, i, obj, f->irq, out);
	for (k = 0; !r && k < ntx; k++) {
		struct nt_value o;

		r = vector_read(x, i, obj, tx[k].irq, &o);
		if (!r)
			nt_cpuset_or(out->cpus, o.cpus);
		if (!r)
			nt_value_free(&o);
	}
	return r;
}

static int vector_write(struct nt_lctx *x, const struct nt_iface_facts *i, const char *obj,
			unsigned irq, const struct nt_value *v)
{
	char *p = vector_path(x, i, obj, irq), *s;
	int r;

	if (i->vmbus) {
		int cpu = nt_cpuset_next(v->cpus, 0);

		if (cpu < 0 || nt_cpuset_next(v->cpus, (unsigned)cpu + 1) >= 0) {
			s = nt_cpuset_str(v->cpus);
			seterr(x, "VMBus channel %u of %s takes one CPU, not %s (use a spread policy "
			       "or one CPU per queue)", irq, obj, s);
			free(s);
			free(p);
			return -EINVAL;
		}
		s = nt_xasprintf("%d", cpu);
	} else {
		s = nt_cpuset_str(v->cpus);
	}
	r = nt_sys_write(p, s);
	if (r == -EIO && i->vmbus)
		seterr(x, "VMBus channel %u of %s refuses CPU %s (%s): the channel is not open",
		       irq, obj, s, strerror(-r));
	else if (r == -EIO || r == -EPERM || r == -EACCES)
		seterr(x, "IRQ %u refuses affinity %s (%s): it is kernel-managed", irq, s, strerror(-r));
	else if (r)
		seterr(x, "writing %s: %s", p ? p : "/proc/irq", strerror(-r));
	free(s);
	free(p);
	return r;
}

static int affinity_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	const struct nt_iface_facts *i;
	const struct nt_irq_fact *tx, *f;
	size_t ntx, k;
	int r;

	f = irq_of(x, obj, arg, &i, &tx, &ntx);
	if (!f) {
		if (i && i->driver)
			seterr(x, "queue %s of %s has no IRQ (driver %s%s)", arg, obj, i->driver,
			       i->nirqs ? "" : ": no queue vector found");
		else
			seterr(x, "queue %s of %s has no IRQ", arg, obj);
		return -ENOENT;
	}
	r = vector_write(x, i, obj, f->irq, v);
	for (k = 0; !r && k < ntx; k++)
		r = vector_write(x, i, obj, tx[k].irq, v);
	return r;
}

static unsigned ncpus(struct nt_lctx *x)
{
	return x->facts && x->facts->ncpus ? x->facts->ncpus : 1;
}

/* generic: a plain file, a link attribute ----------------------------- */

static int file_value(const struct nt_linux_row *r, const char *s, struct nt_value *out)
{
	struct nt_cpuset cs;
	const char *err;

	switch (nt_kinds[r->kind].vtype) {
	case NT_V_U32:
		*out = nt_v_u32((uint32_t)strtoul(s, NULL, 10));
		return 0;
	case NT_V_STR:
		*out = nt_v_str(s);
		return 0;
	case NT_V_CPUS:
		if (r->sh_value == NT_SHV_HEXMASK ? !nt_cpuset_parse_mask(s, &cs) :
		    *s ? !nt_cpuset_parse(s, &cs, &err) : (nt_cpuset_clear(&cs), false))
			return -EINVAL;
		*out = nt_v_cpus(&cs);
		return 0;
	default:
		return -EINVAL;
	}
}

int nt_rw_file_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	const struct nt_linux_row *r = x->row;
	char *p = nt_sys_path(r->path, obj, arg), *s = nt_sys_read(p);
	int e = errno, rc;

	free(p);
	if (!s)
		return e == ENOENT ? -ENOENT : -e;
	rc = file_value(r, s, out);
	free(s);
	return rc;
}

int nt_rw_file_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	const struct nt_linux_row *r = x->row;
	char *p = nt_sys_path(r->path, obj, arg);
	struct nt_buf b = {0};
	int rc;

	if (v->t == NT_V_CPUS && r->sh_value == NT_SHV_HEXMASK)
		nt_cpuset_format_mask(v->cpus, ncpus(x), &b);
	else
		nt_value_format(v, &b, true);
	rc = nt_sys_write(p, b.p ? b.p : "");
	if (rc && arg)
		seterr(x, "writing %s of %s queue %s: %s", strrchr(r->path, '/') + 1, obj, arg,
		       strerror(-rc));
	else if (rc)
		seterr(x, "writing %s of %s: %s", strrchr(r->path, '/') + 1, obj, strerror(-rc));
	nt_buf_free(&b);
	free(p);
	return rc;
}

int nt_rw_link_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	struct nt_dc_link l;
	int r, a;

	if (*nt_sys_root)
		return nt_rw_file_read(x, obj, arg, out);
	/* the one RTM_GETLINK dump of the device cache; a failed dump is not
	 * "no such device" */
	r = nt_devcache_link(obj, &l);
	if (r)
		return r == -ENODEV ? -ENOENT : r;
	a = nt_link_attr_index(x->row->attr);
	if (a < 0)
		return -EOPNOTSUPP;	/* test_kinds: the dump keeps no other attribute */
	*out = nt_v_u32(l.v[a]);
	return 0;
}

int nt_rw_link_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	struct nt_link_change c = {0};
	char msg[256] = "";
	int r, a = nt_link_attr_index(x->row->attr);

	nt_devcache_stale(NT_DC_LINK);
	if (*nt_sys_root)
		return nt_rw_file_write(x, obj, arg, v);
	if (a < 0)
		return -EOPNOTSUPP;
	c.have[a] = true;
	c.v[a] = v->u;
	r = nt_link_set(obj, &c, msg, sizeof(msg));
	if (r)
		seterr(x, "rtnetlink: %s", *msg ? msg : strerror(-r));
	return r;
}

/* irqbalance ---------------------------------------------------------- */

#define IRQBAL_DROPIN "/etc/systemd/system/irqbalance.service.d/50-nettune.conf"

static int ban_read(struct nt_lctx *x, const char *o, const char *a, struct nt_value *out)
{
	char *p = nt_sys_path(IRQBAL_DROPIN), *s = nt_sys_read(p);
	struct nt_buf b = {0};
	const char *q;

	(void)x;
	(void)o;
	(void)a;
	free(p);
	for (q = s; q && (q = strstr(q, "--banirq=")); q += 9)
		nt_buf_printf(&b, "%s%lu", b.n ? "," : "", strtoul(q + 9, NULL, 10));
	free(s);
	*out = nt_v_str(b.p ? b.p : "");
	nt_buf_free(&b);
	return 0;
}

static int run(const char *cmd)
{
	int r = system(cmd);

	return r == 0 ? 0 : -EIO;
}

static int ban_write(struct nt_lctx *x, const char *o, const char *a, const struct nt_value *v)
{
	char *p = nt_sys_path(IRQBAL_DROPIN), *dir = nt_sys_path("/etc/systemd/system/irqbalance.service.d");
	struct nt_buf b = {0};
	const char *s;
	int r;

	(void)o;
	(void)a;
	nt_buf_puts(&b, "# Written by nettune: keep irqbalance away from IRQs nettune pins.\n"
		    "[Service]\nExecStart=\nExecStart=/usr/sbin/irqbalance --foreground $IRQBALANCE_ARGS");
	for (s = v->s; s && *s;) {
		nt_buf_printf(&b, " --banirq=%lu", strtoul(s, NULL, 10));
		s = strchr(s, ',');
		if (s)
			s++;
	}
	nt_buf_puts(&b, "\n");
	if (!*v->s) {
		r = nt_sys_unlink(p);
		if (r == -ENOENT)
			r = 0;
	} else {
		nt_mkdirs(dir);
		r = nt_sys_create(p, b.p);
	}
	if (!r && !*nt_sys_root)
		r = run("systemctl daemon-reload >/dev/null 2>&1 && "
			"systemctl try-restart irqbalance.service >/dev/null 2>&1");
	if (r)
		seterr(x, "updating %s or restarting irqbalance failed", p);
	nt_buf_free(&b);
	free(p);
	free(dir);
	return r;
}

static int service_read(struct nt_lctx *x, const char *o, const char *a, struct nt_value *out)
{
	(void)o;
	(void)a;
	if (!x->facts || x->facts->irqbalance < 0)
		return -ENOENT;
	*out = nt_v_str(x->facts->irqbalance ? "running" : "stopped");
	return 0;
}

static int service_write(struct nt_lctx *x, const char *o, const char *a, const struct nt_value *v)
{
	int r;

	(void)o;
	(void)a;
	if (*nt_sys_root) {
		seterr(x, "cannot start or stop irqbalance under --root");
		return -EOPNOTSUPP;
	}
	r = run(!strcmp(v->s, "stopped") ? "systemctl stop irqbalance.service >/dev/null 2>&1" :
		"systemctl start irqbalance.service >/dev/null 2>&1");
	if (!r && x->facts)
		x->facts->irqbalance = !strcmp(v->s, "running");
	if (r)
		seterr(x, "systemctl could not %s irqbalance", !strcmp(v->s, "stopped") ? "stop" : "start");
	return r;
}

/* processes ------------------------------------------------------------ */

int nt_linux_pids_by_comm(const char *comm, int **out, int max)
{
	char *p = nt_sys_path("/proc");
	struct nt_dir *d = nt_sys_opendir(p);
	struct dirent *de;
	int *pids = NULL, n = 0;

	free(p);
	while (d && (de = nt_sys_readdir(d)) && (!max || n < max)) {
		char *cp, *c;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		cp = nt_sys_path("/proc/%s/comm", de->d_name);
		c = nt_sys_read(cp);
		free(cp);
		if (c && !strcmp(c, comm)) {
			pids = nt_xgrow(pids, (size_t)n, sizeof(*pids));
			pids[n++] = atoi(de->d_name);
		}
		free(c);
	}
	if (d)
		nt_sys_closedir(d);
	*out = pids;
	return n;
}

/* The PIDs of a process object, at most max (0: all of them, however
 * many: no fixed limit); *out is malloc'd. */
static int pids_of(const char *obj, int **out, int max)
{
	int *pids = NULL;
	const char *what = obj + strlen("process ");
	int n = 0;

	if (strncmp(obj, "process ", 8))
		return 0;
	if (strstr(what, ".service") || strstr(what, ".scope")) {
		char *p = nt_sys_path("/sys/fs/cgroup/system.slice/%s/cgroup.procs", what);
		char *s = nt_sys_read(p);
		const char *q;

		free(p);
		for (q = s; q && *q && (!max || n < max);) {
			pids = nt_xgrow(pids, (size_t)n, sizeof(*pids));
			pids[n++] = atoi(q);
			q = strchr(q, '\n');
			if (q)
				q++;
		}
		free(s);
		*out = pids;
		return n;
	}
	if (what[0] == '/') {
		char *p = nt_sys_path_rel("", what + 1, '/'), *s = nt_sys_read(p);

		free(p);
		if (s && atoi(s) > 0) {
			pids = nt_xgrow(pids, (size_t)n, sizeof(*pids));
			pids[n++] = atoi(s);
		}
		free(s);
		*out = pids;
		return n;
	}
	return nt_linux_pids_by_comm(what, out, max);
}

static int process_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	int *pids = NULL;
	char *p, *s, *line;
	struct nt_cpuset cs;
	const char *err;

	(void)x;
	(void)arg;
	if (pids_of(obj, &pids, 1) < 1) {
		free(pids);
		return -ENOENT;
	}
	p = nt_sys_path("/proc/%d/status", pids[0]);
	free(pids);
	s = nt_sys_read(p);
	free(p);
	line = s ? strstr(s, "Cpus_allowed_list:") : NULL;
	if (!line) {
		free(s);
		return -ENOENT;
	}
	line += strlen("Cpus_allowed_list:");
	while (*line == '\t' || *line == ' ')
		line++;
	*strchrnul(line, '\n') = '\0';
	if (!nt_cpuset_parse(line, &cs, &err)) {
		free(s);
		return -EINVAL;
	}
	free(s);
	*out = nt_v_cpus(&cs);
	return 0;
}

static int process_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	int *pids = NULL, n = pids_of(obj, &pids, 0), k;
	cpu_set_t set;
	int c;

	(void)arg;
	/* a --root tree's /proc names PIDs, but sched_setaffinity acts on this
	 * host's processes of those numbers: never under --root */
	if (*nt_sys_root) {
		seterr(x, "process CPU affinity is not applied under --root (the PIDs in %s/proc "
		       "are not this host's processes)", nt_sys_root);
		free(pids);
		return -EPERM;
	}
	if (n < 1) {
		seterr(x, "no process matches %s", obj);
		free(pids);
		return -ESRCH;
	}
	CPU_ZERO(&set);
	for (c = nt_cpuset_next(v->cpus, 0); c >= 0 && c < CPU_SETSIZE;
	     c = nt_cpuset_next(v->cpus, (unsigned)c + 1))
		CPU_SET(c, &set);
	for (k = 0; k < n; k++) {
		char *tp = nt_sys_path("/proc/%d/task", pids[k]);
		struct nt_dir *d = nt_sys_opendir(tp);
		struct dirent *de;

		free(tp);
		while (d && (de = nt_sys_readdir(d))) {
			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			nt_io.file_writes++;
			if (sched_setaffinity(atoi(de->d_name), sizeof(set), &set)) {
				int e = errno;

				nt_sys_closedir(d);
				seterr(x, "sched_setaffinity(%s): %s", de->d_name, strerror(e));
				free(pids);
				return -e;
			}
		}
		if (d)
			nt_sys_closedir(d);
	}
	free(pids);
	return 0;
}

/* Only a round robin over queues 0..N-1 is what ethtool -X equal N writes. */
static const char *refuse_indir(const struct nt_value *v)
{
	uint32_t max = 0;
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->list[i] > max)
			max = v->list[i];
	for (i = 0; i < v->n; i++)
		if (v->list[i] != i % (max + 1))
			break;
	if (v->n && i == v->n)
		return NULL;
	return "ethtool(8) can only write a round-robin indirection table ('equal N'); "
	       "this table is custom, which only 'nettune apply' can write";
}

/*
 * The sh bodies: the getter prints the current value in the form
 * nt_value_format() prints the desired one (sh_value says otherwise); the
 * script compares the two strings, writes only on a difference and reads
 * back.  Every name and value reaches them as a quoted argument.
 */
/* Every kind's row is nt_row_ID (defined here, or beside its wire family
 * in fam_*.c); the table nt_linux_rows[] below indexes them by kind. */
#define NT_KIND(id, ...) extern const struct nt_linux_row nt_row_##id;
#include "../../compiler/model/kinds.def"
#undef NT_KIND

/* The kinds of the link attribute set (kinds.def NT_LINK_ROW): one u32
 * rtnetlink attribute of the link dump, written by RTM_NEWLINK, the file
 * below /sys/class/net/DEV that holds it (--root, and the sh getter), and
 * ip-link(8)'s word for it, the kind's name. */
#define NT_KIND(...)
#define NT_LINK_ROW(id, name, ifla, file, rflags, ether_default, setter)              \
	const struct nt_linux_row nt_row_##id = {                                    \
		.kind = NT_K_##id,                                                   \
		.get = {NT_IO_RTNL, "RTM_GETLINK " #ifla " (under --root: the row's path)"}, \
		.set = {NT_IO_RTNL, "RTM_NEWLINK " #ifla " (under --root: the row's path)"}, \
		.path = "/sys/class/net/%s/" file,                                   \
		.sh_fn = name,                                                       \
		.sh_get = "cat \"@PATH@\"",                                           \
		.sh_put = "ip link set dev \"$1\" " name " \"$3\"",                    \
		.read = nt_rw_link_read,                                             \
		.write = nt_rw_link_write,                                           \
		.flags = rflags,                                                     \
		.attr = ifla,                                                        \
	};
#include "../../compiler/model/kinds.def"
#undef NT_KIND
#undef NT_LINK_ROW

const struct nt_linux_row nt_row_SYSCTL = {
	.kind = NT_K_SYSCTL,
	.get = {NT_IO_PROCFS, "/proc/sys/KEY, dots read as slashes (sysctl(8))"},
	.set = {NT_IO_PROCFS, "/proc/sys/KEY"},
	.sh_fn = "sysctl",
	.sh_value = NT_SHV_FOLDED,
	.sh_get = "nt_f=\"/proc/sys/$(nt_sysctl_path \"$2\")\"\n"
		"\ttr -s '\\t ' '  ' <\"$nt_f\" | sed 's/^ //; s/ $//'",
	.sh_put = "nt_f=\"/proc/sys/$(nt_sysctl_path \"$2\")\"\n"
		"\tprintf '%s\\n' \"$3\" >\"$nt_f\"",
	.read = sysctl_read,
	.write = sysctl_write,
};

const struct nt_linux_row nt_row_FEATURE = {
	.kind = NT_K_FEATURE,
	.get = {NT_IO_ETHNL, "ETHTOOL_MSG_FEATURES_GET ETHTOOL_A_FEATURES_ACTIVE"},
	.set = {NT_IO_ETHNL, "ETHTOOL_MSG_FEATURES_SET ETHTOOL_A_FEATURES_WANTED"},
	.sh_fn = "feature",
	.sh_get = "# ethtool -k prints some features under their legacy names\n"
		"\tcase \"$2\" in\n"
		"\trx-checksum) nt_l=rx-checksumming ;;\n"
		"\ttx-generic-segmentation) nt_l=generic-segmentation-offload ;;\n"
		"\trx-gro) nt_l=generic-receive-offload ;;\n"
		"\trx-lro) nt_l=large-receive-offload ;;\n"
		"\trx-hashing) nt_l=receive-hashing ;;\n"
		"\trx-ntuple-filter) nt_l=ntuple-filters ;;\n"
		"\trx-vlan-hw-parse) nt_l=rx-vlan-offload ;;\n"
		"\ttx-vlan-hw-insert) nt_l=tx-vlan-offload ;;\n"
		"\t*) nt_l=\"$2\" ;;\n"
		"\tesac\n"
		"\tethtool -k \"$1\" | awk -v a=\"$2:\" -v b=\"$nt_l:\" '\n"
		"\t\t($1 == a || $1 == b) { print $2; f = 1; exit }\n"
		"\t\tEND { if (!f) exit 1 }'",
	.sh_put = "ethtool -K \"$1\" \"$2\" \"$3\"",
	.read = feature_read,
	.write = feature_write,
	.batch = feature_batch,
};

const struct nt_linux_row nt_row_CHANNELS = {
	.kind = NT_K_CHANNELS,
	.get = {NT_IO_ETHNL, "ETHTOOL_MSG_CHANNELS_GET ETHTOOL_A_CHANNELS_*_COUNT"},
	.set = {NT_IO_ETHNL, "ETHTOOL_MSG_CHANNELS_SET ETHTOOL_A_CHANNELS_*_COUNT"},
	.sh_fn = "channels",
	.sh_get = "case \"$2\" in\n"
		"\tcombined) nt_l=Combined ;; rx) nt_l=RX ;; tx) nt_l=TX ;; other) nt_l=Other ;;\n"
		"\t*) return 1 ;;\n"
		"\tesac\n"
		"\tethtool -l \"$1\" | nt_current \"$nt_l\"",
	.sh_put = "ethtool -L \"$1\" \"$2\" \"$3\"",
	.read = channels_read,
	.write = nt_rw_ethnl_write,
	.batch = channels_batch,
	.fam = &nt_fam_channels,
	.after_write = nt_lctx_channels_changed,
};

const struct nt_linux_row nt_row_RING = {
	.kind = NT_K_RING,
	.get = {NT_IO_ETHNL, "ETHTOOL_MSG_RINGS_GET ETHTOOL_A_RINGS_{RX,TX,RX_MINI,RX_JUMBO}"},
	.set = {NT_IO_ETHNL, "ETHTOOL_MSG_RINGS_SET ETHTOOL_A_RINGS_{RX,TX,RX_MINI,RX_JUMBO}"},
	.sh_fn = "ring",
	.sh_get = "case \"$2\" in\n"
		"\trx) nt_l=RX ;; tx) nt_l=TX ;; rx-mini) nt_l='RX Mini' ;; rx-jumbo) nt_l='RX Jumbo' ;;\n"
		"\t*) return 1 ;;\n"
		"\tesac\n"
		"\tethtool -g \"$1\" | nt_current \"$nt_l\"",
	.sh_put = "ethtool -G \"$1\" \"$2\" \"$3\"",
	.read = nt_rw_ethnl_read,
	.write = nt_rw_ethnl_write,
	.fam = &nt_fam_rings,
};

const struct nt_linux_row nt_row_COALESCE = {
	.kind = NT_K_COALESCE,
	.get = {NT_IO_ETHNL, "ETHTOOL_MSG_COALESCE_GET ETHTOOL_A_COALESCE_{RX,TX}_{USECS,MAX_FRAMES}"},
	.set = {NT_IO_ETHNL, "ETHTOOL_MSG_COALESCE_SET ETHTOOL_A_COALESCE_{RX,TX}_{USECS,MAX_FRAMES}"},
	.sh_fn = "coalesce",
	.sh_get = "ethtool -c \"$1\" | awk -v k=\"$2:\" '$1 == k { print $2; f = 1; exit }\n"
		"\t\tEND { if (!f) exit 1 }'",
	.sh_put = "ethtool -C \"$1\" \"$2\" \"$3\"",
	.read = nt_rw_ethnl_read,
	.write = nt_rw_ethnl_write,
	.fam = &nt_fam_coalesce,
};

const struct nt_linux_row nt_row_COALESCE_ADAPTIVE = {
	.kind = NT_K_COALESCE_ADAPTIVE,
	.get = {NT_IO_ETHNL, "ETHTOOL_MSG_COALESCE_GET ETHTOOL_A_COALESCE_USE_ADAPTIVE_{RX,TX}"},
	.set = {NT_IO_ETHNL, "ETHTOOL_MSG_COALESCE_SET ETHTOOL_A_COALESCE_USE_ADAPTIVE_{RX,TX}"},
	.sh_fn = "coalesce_adaptive",
	.sh_get = "# \"Adaptive RX: on  TX: off\"\n"
		"\tethtool -c \"$1\" | awk -v q=\"$2\" '$1 == \"Adaptive\" && $2 == \"RX:\" {\n"
		"\t\tprint (q == \"rx\" ? $3 : $5); f = 1; exit }\n"
		"\t\tEND { if (!f) exit 1 }'",
	.sh_put = "ethtool -C \"$1\" \"adaptive-$2\" \"$3\"",
	.read = nt_rw_ethnl_read,
	.write = nt_rw_ethnl_write,
	.fam = &nt_fam_coalesce,
};

const struct nt_linux_row nt_row_RSS_HFUNC = {
	.kind = NT_K_RSS_HFUNC,
	.get = {NT_IO_IOCTL, "ETHTOOL_GRSSH .hfunc (netlink RSS_GET is missing from 6.1 uapi headers)"},
	.set = {NT_IO_IOCTL, "ETHTOOL_SRSSH .hfunc (netlink RSS_SET needs v6.17)"},
	.sh_fn = "rss_hfunc",
	.sh_get = "ethtool -x \"$1\" | awk '/^RSS hash function:/ { h = 1; next }\n"
		"\t\th && $2 == \"on\" { sub(/:$/, \"\", $1); print $1; f = 1; exit }\n"
		"\t\tEND { if (!f) exit 1 }'",
	.sh_put = "ethtool -X \"$1\" hfunc \"$3\"",
	.read = hfunc_read,
	.write = hfunc_write,
};

const struct nt_linux_row nt_row_RSS_KEY = {
	.kind = NT_K_RSS_KEY,
	.get = {NT_IO_IOCTL, "ETHTOOL_GRSSH .key_size, key (netlink RSS_GET is missing from 6.1 uapi headers)"},
	.set = {NT_IO_IOCTL, "ETHTOOL_SRSSH key (netlink RSS_SET needs v6.17)"},
	.sh_fn = "rss_key",
	.sh_get = "ethtool -x \"$1\" | awk '/^RSS hash key:/ { k = 1; next }\n"
		"\t\tk && /^[0-9a-fA-F:]+$/ { s = s (s == \"\" ? \"\" : \":\") $0; next }\n"
		"\t\tk { exit }\n"
		"\t\tEND { gsub(/::/, \":\", s); if (s == \"\") exit 1; print tolower(s) }'",
	.sh_put = "ethtool -X \"$1\" hkey \"$3\"",
	.read = key_read,
	.write = key_write,
};

const struct nt_linux_row nt_row_RSS_INDIR = {
	.kind = NT_K_RSS_INDIR,
	.get = {NT_IO_IOCTL, "ETHTOOL_GRSSH .indir_size, ring_index (netlink RSS_GET is missing from 6.1 uapi headers)"},
	.set = {NT_IO_IOCTL, "ETHTOOL_SRSSH ring_index (netlink RSS_SET needs v6.17)"},
	.sh_fn = "rss_indir",
	.sh_get = "ethtool -x \"$1\" | awk '/^RX flow hash indirection table/ { t = 1; next }\n"
		"\t\tt && $1 ~ /^[0-9]+:$/ { for (i = 2; i <= NF; i++) s = s (s == \"\" ? \"\" : \" \") $i; next }\n"
		"\t\tt && NF { exit }\n"
		"\t\tEND { if (s == \"\") exit 1; print s }'",
	.sh_put = "# only a round robin over queues 0..N-1 can be written: ethtool -X equal N\n"
		"\tnt_n=\"$(printf '%s\\n' \"$3\" | awk '{ for (i = 1; i <= NF; i++) if ($i + 0 > m) m = $i + 0\n"
		"\t\tfor (i = 1; i <= NF; i++) if ($i + 0 != (i - 1) % (m + 1)) exit 1; print m + 1 }')\" || {\n"
		"\t\techo \"not a round robin table; ethtool can only write 'equal N'\" >&2; return 1; }\n"
		"\tethtool -X \"$1\" equal \"$nt_n\"",
	.sh_refuse = refuse_indir,
	.read = indir_read,
	.write = indir_write,
};

const struct nt_linux_row nt_row_IRQ_AFFINITY = {
	.kind = NT_K_IRQ_AFFINITY,
	.get = {NT_IO_PROCFS, "the row's path, for the IRQ of the queue (facts)"},
	.set = {NT_IO_PROCFS, "the row's path, for the IRQ of the queue (facts)"},
	.path = "/proc/irq/%s/smp_affinity_list",
	.sh_fn = "irq_affinity",
	.sh_flags = NT_SH_ARG_IRQ,
	.sh_get = "nt_i=\"$(nt_irq \"$1\" \"$2\")\" || return 1\n"
		"\tcat \"@PATH@\"",
	.sh_put = "nt_i=\"$(nt_irq \"$1\" \"$2\")\" || return 1\n"
		"\tprintf '%s\\n' \"$3\" >\"@PATH@\"",
	.sh_path_args = {"$nt_i"},
	.read = affinity_read,
	.write = affinity_write,
};

const struct nt_linux_row nt_row_RPS_CPUS = {
	.kind = NT_K_RPS_CPUS,
	.get = {NT_IO_SYSFS, "the row's path (a hex CPU bitmap)"},
	.set = {NT_IO_SYSFS, "the row's path (a hex CPU bitmap)"},
	.path = "/sys/class/net/%s/queues/rx-%s/rps_cpus",
	.sh_fn = "rps_cpus",
	.sh_value = NT_SHV_HEXMASK,
	.sh_get = "nt_hexmask <\"@PATH@\"",
	.sh_put = "nt_hexwrite \"$3\" >\"@PATH@\"",
	.read = nt_rw_file_read,
	.write = nt_rw_file_write,
};

const struct nt_linux_row nt_row_RPS_FLOW_CNT = {
	.kind = NT_K_RPS_FLOW_CNT,
	.get = {NT_IO_SYSFS, "the row's path"},
	.set = {NT_IO_SYSFS, "the row's path"},
	.path = "/sys/class/net/%s/queues/rx-%s/rps_flow_cnt",
	.sh_fn = "rps_flow_cnt",
	.sh_get = "cat \"@PATH@\"",
	.sh_put = "printf '%s\\n' \"$3\" >\"@PATH@\"",
	.read = nt_rw_file_read,
	.write = nt_rw_file_write,
};

const struct nt_linux_row nt_row_XPS_CPUS = {
	.kind = NT_K_XPS_CPUS,
	.get = {NT_IO_SYSFS, "the row's path (a hex CPU bitmap)"},
	.set = {NT_IO_SYSFS, "the row's path (a hex CPU bitmap)"},
	.path = "/sys/class/net/%s/queues/tx-%s/xps_cpus",
	.sh_fn = "xps_cpus",
	.sh_value = NT_SHV_HEXMASK,
	.sh_get = "nt_hexmask <\"@PATH@\"",
	.sh_put = "nt_hexwrite \"$3\" >\"@PATH@\"",
	.read = nt_rw_file_read,
	.write = nt_rw_file_write,
};

const struct nt_linux_row nt_row_IRQBALANCE_BAN = {
	.kind = NT_K_IRQBALANCE_BAN,
	.get = {NT_IO_OTHER, "--banirq= of the systemd drop-in irqbalance.service.d/50-nettune.conf: irqbalance has no kernel interface"},
	.set = {NT_IO_OTHER, "rewrites that drop-in, then systemctl daemon-reload and try-restart irqbalance"},
	.sh_fn = "banned_irqs",
	.sh_get = "# the IRQs banned by the systemd drop-in nettune apply also writes, comma separated; none: empty\n"
		"\t[ -f \"$NT_BANIRQ_DROPIN\" ] || { echo; return 0; }\n"
		"\ttr ' ' '\\n' <\"$NT_BANIRQ_DROPIN\" | sed -n 's/^--banirq=//p' | paste -sd, -",
	.sh_put = "if [ -z \"$3\" ]; then\n"
		"\t\trm -f -- \"$NT_BANIRQ_DROPIN\"\n"
		"\telse\n"
		"\t\tmkdir -p -- \"${NT_BANIRQ_DROPIN%/*}\"\n"
		"\t\t{\n"
		"\t\t\techo '# Written by nettune: keep irqbalance away from IRQs nettune pins.'\n"
		"\t\t\tprintf '[Service]\\nExecStart=\\nExecStart=/usr/sbin/irqbalance --foreground %s' \"\\$IRQBALANCE_ARGS\"\n"
		"\t\t\tprintf '%s\\n' \"$3\" | tr ',' '\\n' | sed 's/^/ --banirq=/' | tr -d '\\n'\n"
		"\t\t\techo\n"
		"\t\t} >\"$NT_BANIRQ_DROPIN\"\n"
		"\tfi\n"
		"\tsystemctl daemon-reload && systemctl try-restart irqbalance.service",
	.read = ban_read,
	.write = ban_write,
};

const struct nt_linux_row nt_row_IRQBALANCE_SERVICE = {
	.kind = NT_K_IRQBALANCE_SERVICE,
	.get = {NT_IO_OTHER, "whether irqbalance runs (facts): a service, not a kernel interface"},
	.set = {NT_IO_OTHER, "systemctl start or stop irqbalance.service"},
	.sh_fn = "service",
	.sh_get = "if systemctl is-active --quiet irqbalance.service; then echo running; else echo stopped; fi",
	.sh_put = "case \"$3\" in\n"
		"\trunning) systemctl start irqbalance.service ;;\n"
		"\tstopped) systemctl stop irqbalance.service ;;\n"
		"\t*) return 1 ;;\n"
		"\tesac",
	.read = service_read,
	.write = service_write,
};

const struct nt_linux_row nt_row_PROCESS_CPUS = {
	.kind = NT_K_PROCESS_CPUS,
	.get = {NT_IO_PROCFS, "Cpus_allowed_list of /proc/PID/status"},
	.set = {NT_IO_OTHER, "sched_setaffinity(2) of every task of the process: a system call, not a file"},
	.sh_fn = "cpus",
	.sh_get = "nt_p=\"$(nt_pids \"$1\" | head -n 1)\"\n"
		"\t[ -n \"$nt_p\" ] || { echo \"no running process for $1\" >&2; return 1; }\n"
		"\ttaskset -pc \"$nt_p\" | sed 's/.*: //'",
	.sh_put = "nt_p=\"$(nt_pids \"$1\")\"\n"
		"\t[ -n \"$nt_p\" ] || return 1\n"
		"\tprintf '%s\\n' \"$nt_p\" | while read -r nt_q; do\n"
		"\t\ttaskset -apc \"$3\" \"$nt_q\" >/dev/null || exit 1\n"
		"\tdone",
	.read = process_read,
	.write = process_write,
};

/* The Windows kinds have no Linux row. */
#define NT_NO_ROW(id) const struct nt_linux_row nt_row_##id = {.kind = NT_K_##id};
NT_NO_ROW(WIN_ADVPROP) NT_NO_ROW(WIN_CHECKSUM) NT_NO_ROW(WIN_LSO) NT_NO_ROW(WIN_USO)
NT_NO_ROW(WIN_RSC) NT_NO_ROW(WIN_URO) NT_NO_ROW(WIN_RSS) NT_NO_ROW(WIN_IP_MTU)
NT_NO_ROW(WIN_GLOBAL)
#undef NT_NO_ROW

const struct nt_linux_row *const nt_linux_rows[NT_K__COUNT] = {
#define NT_KIND(id, ...) [NT_K_##id] = &nt_row_##id,
#include "../../compiler/model/kinds.def"
#undef NT_KIND
};


int nt_linux_read(struct nt_lctx *x, enum nt_kind_id k, const char *obj, const char *arg,
		  struct nt_value *out)
{
	const struct nt_linux_row *r = nt_linux_row(k);

	if (!r || !r->read)
		return -EOPNOTSUPP;
	x->row = r;
	return r->read(x, obj, arg, out);
}

int nt_linux_write(struct nt_lctx *x, enum nt_kind_id k, const char *obj, const char *arg,
		   const struct nt_value *v)
{
	const struct nt_linux_row *r = nt_linux_row(k);

	if (!r || !r->write)
		return -EOPNOTSUPP;
	x->row = r;
	return r->write(x, obj, arg, v);
}

static void observe_one(struct nt_lctx *x, enum nt_kind_id k, const char *obj, const char *arg,
			struct nt_state *st, int *rc)
{
	struct nt_value v;

	*rc = x->row->read(x, obj, arg, &v);
	if (!*rc)
		nt_state_set(st, k, obj, arg, v, (struct nt_mark){0});
}

/* A per-queue row: every queue of the device's facts (RX or TX queues,
 * or the queues that have an IRQ). */
static void observe_queues(struct nt_lctx *x, enum nt_kind_id k, const char *obj,
			   struct nt_state *st)
{
	const struct nt_iface_facts *i = nt_facts_iface(x->facts, obj);
	enum nt_argshape shape = nt_kinds[k].argshape;
	size_t q, n;
	int rc;

	if (!i)
		return;
	n = shape == NT_ARG_RXQ ? i->rx_queues : shape == NT_ARG_TXQ ? i->tx_queues : i->nirqs;
	for (q = 0; q < n; q++) {
		char arg[16];

		snprintf(arg, sizeof(arg), "%u", shape == NT_ARG_IRQQ ? i->irqs[q].queue : (unsigned)q);
		observe_one(x, k, obj, arg, st, &rc);
	}
}

void nt_linux_observe_rows(struct nt_lctx *x, const char *obj, struct nt_state *st,
			   const bool *skip)
{
	size_t k;

	for (k = 0; k < NT_K__COUNT; k++) {
		const struct nt_kinddef *kd = &nt_kinds[k];
		const struct nt_linux_row *r = nt_linux_row((enum nt_kind_id)k);
		const char *const *a;
		int rc;

		if (!r || !(r->flags & NT_LR_OBSERVE) || (skip && skip[k]))
			continue;
		x->row = r;
		switch (kd->argshape) {
		case NT_ARG_NONE:
			observe_one(x, (enum nt_kind_id)k, obj, NULL, st, &rc);
			break;
		case NT_ARG_NAMED:
			/* one refusal is the device's answer for the others */
			for (a = kd->args; *a; a++) {
				observe_one(x, (enum nt_kind_id)k, obj, *a, st, &rc);
				if (rc == -ENOENT && a == kd->args)
					break;
			}
			break;
		case NT_ARG_OPEN:
			r->all(x, obj, st);
			break;
		case NT_ARG_RXQ:
		case NT_ARG_TXQ:
		case NT_ARG_IRQQ:
			observe_queues(x, (enum nt_kind_id)k, obj, st);
			break;
		}
	}
}
