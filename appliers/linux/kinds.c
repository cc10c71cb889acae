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

#include "../../compiler/base/buf.h"
#include "../../compiler/model/caps.h"
#include "../../compiler/passes/validate.h"
#include "devcache.h"
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

int nt_lctx_channels(struct nt_lctx *x, const char *obj, struct nt_channels_state *out)
{
	if (!x->nl)
		return -EOPNOTSUPP;
	return nt_devcache_channels(obj, out);
}

static int ring_get(struct nt_lctx *x, const char *obj, struct nt_rings_state *out)
{
	if (!x->nl)
		return -EOPNOTSUPP;
	return nt_devcache_rings(obj, out);
}

static int coal_get(struct nt_lctx *x, const char *obj, struct nt_coalesce_state *out)
{
	if (!x->nl)
		return -EOPNOTSUPP;
	return nt_devcache_coalesce(obj, out);
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
	const char *ext = nt_ethnl_extack(x->nl);

	if (ext)
		seterr(x, "kernel: %s", ext);
	else
		seterr(x, "%s", strerror(-r));
	return r;
}

/* sysctl -------------------------------------------------------------- */

/* net.core.rmem_max and net/core/rmem_max name the same file; a key with
 * a '/' is a path whose dots belong to names (eth0.10), as in the sh
 * emitter's nt_sysctl_path */
static char *sysctl_path(const char *key)
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
	char *p = sysctl_path(arg), *s = nt_sys_read(p);

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
	char *p = sysctl_path(arg);
	int r = nt_sys_write(p, v->s);

	(void)obj;
	if (r)
		seterr(x, "writing %s: %s", p ? p : arg, strerror(-r));
	free(p);
	return r;
}

/* mtu ----------------------------------------------------------------- */

static int mtu_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	struct nt_dc_link l;
	char *p, *s;

	(void)x;
	(void)arg;
	if (*nt_sys_root) {
		p = nt_sys_path(nt_linux_rows[NT_K_MTU].path, obj);
		s = nt_sys_read(p);
		free(p);
		if (!s)
			return -ENOENT;
		*out = nt_v_u32((uint32_t)strtoul(s, NULL, 10));
		free(s);
		return 0;
	}
	if (nt_devcache_link(obj, &l))
		return -ENOENT;
	*out = nt_v_u32(l.mtu);
	return 0;
}

static int mtu_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	char msg[256] = "";
	int r;

	nt_devcache_stale(NT_DC_LINK);
	(void)arg;
	if (*nt_sys_root) {
		char *p = nt_sys_path(nt_linux_rows[NT_K_MTU].path, obj), num[16];

		snprintf(num, sizeof(num), "%u", v->u);
		r = nt_sys_write(p, num);
		free(p);
		return r;
	}
	r = nt_link_set_mtu(obj, v->u, msg, sizeof(msg));
	if (r)
		seterr(x, "rtnetlink: %s", *msg ? msg : strerror(-r));
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

/* channels, rings, coalesce ------------------------------------------ */

static int chan_index(const char *arg)
{
	return nt_kind_arg_index(NT_K_CHANNELS, arg);
}

static int channels_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	struct nt_channels_state c;
	int k = chan_index(arg), r;

	if (*nt_sys_root && !x->nl) {
		/* fixtures: queue directories stand for combined channels */
		const struct nt_iface_facts *i = nt_facts_iface(x->facts, obj);

		if (!i || k != NT_CH_COMBINED || !i->rx_queues)
			return -ENOENT;
		*out = nt_v_u32(i->rx_queues);
		return 0;
	}
	if (!x->nl || k < 0)
		return -EOPNOTSUPP;
	r = nt_lctx_channels(x, obj, &c);
	if (r)
		return r == -EOPNOTSUPP || r == -ENODEV ? -ENOENT : r;
	if (!c.have[k] || (!c.max[k] && !c.count[k]))
		return -ENOENT;
	*out = nt_v_u32(c.count[k]);
	return 0;
}

static int channels_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	int r;

	nt_devcache_stale(NT_DC_CHANNELS);
	if (!x->nl)
		return -EOPNOTSUPP;
	r = nt_ethnl_channels_set(x->nl, obj, chan_index(arg), v->u);
	if (r)
		return nl_err(x, r);
	nt_lctx_channels_changed(x, obj);
	return 0;
}

static int ring_index(const char *arg)
{
	return nt_kind_arg_index(NT_K_RING, arg);
}

static int ring_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	struct nt_rings_state s;
	int k = ring_index(arg), r;

	if (!x->nl || k < 0)
		return -EOPNOTSUPP;
	r = ring_get(x, obj, &s);
	if (r)
		return r == -EOPNOTSUPP || r == -ENODEV ? -ENOENT : r;
	if (!s.have[k] || !s.max[k])
		return -ENOENT;
	*out = nt_v_u32(s.cur[k]);
	return 0;
}

static int ring_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	int r;

	nt_devcache_stale(NT_DC_RINGS);
	if (!x->nl)
		return -EOPNOTSUPP;
	r = nt_ethnl_rings_set(x->nl, obj, ring_index(arg), v->u);
	return r ? nl_err(x, r) : 0;
}

/* the kind rows' argument names in the order of enum nt_coal_field */
static int coal_index(const char *kindarg, bool adaptive)
{
	int k = nt_kind_arg_index(adaptive ? NT_K_COALESCE_ADAPTIVE : NT_K_COALESCE, kindarg);

	return k < 0 ? -1 : adaptive ? NT_COAL_ADAPTIVE_RX + k : k;
}

static int coal_read_common(struct nt_lctx *x, const char *obj, int k, uint32_t *v)
{
	struct nt_coalesce_state s;
	int r;

	if (!x->nl || k < 0)
		return -EOPNOTSUPP;
	r = coal_get(x, obj, &s);
	if (r)
		return r == -EOPNOTSUPP || r == -ENODEV ? -ENOENT : r;
	if (!s.have[k])
		return -ENOENT;
	*v = s.v[k];
	return 0;
}

static int coalesce_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	uint32_t v;
	int r = coal_read_common(x, obj, coal_index(arg, false), &v);

	if (!r)
		*out = nt_v_u32(v);
	return r;
}

static int adaptive_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	uint32_t v;
	int r = coal_read_common(x, obj, coal_index(arg, true), &v);

	if (!r)
		*out = nt_v_bool(v != 0);
	return r;
}

static int coalesce_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	int r;

	nt_devcache_stale(NT_DC_COALESCE);
	if (!x->nl)
		return -EOPNOTSUPP;
	r = nt_ethnl_coalesce_set(x->nl, obj, coal_index(arg, false), v->u);
	return r ? nl_err(x, r) : 0;
}

static int adaptive_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	int r;

	nt_devcache_stale(NT_DC_COALESCE);
	if (!x->nl)
		return -EOPNOTSUPP;
	r = nt_ethnl_coalesce_set(x->nl, obj, coal_index(arg, true), v->b);
	return r ? nl_err(x, r) : 0;
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

static int irq_of(struct nt_lctx *x, const char *obj, const char *arg, unsigned *irq)
{
	const struct nt_iface_facts *i = nt_facts_iface(x->facts, obj);
	const struct nt_irq_fact *f;

	if (!i)
		return -ENOENT;
	f = nt_facts_irq(i, (uint32_t)strtoul(arg, NULL, 10));
	if (!f)
		return -ENOENT;
	*irq = f->irq;
	return 0;
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

static int affinity_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	unsigned irq;
	char *p;
	int r;

	if (irq_of(x, obj, arg, &irq))
		return -ENOENT;
	p = nt_sys_path(nt_linux_rows[NT_K_IRQ_AFFINITY].path, irq_str(irq).s);
	r = cpus_file_read(p, false, out);
	free(p);
	return r;
}

static int affinity_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	unsigned irq;
	char *p, *s;
	int r;

	if (irq_of(x, obj, arg, &irq)) {
		seterr(x, "queue %s of %s has no IRQ", arg, obj);
		return -ENOENT;
	}
	p = nt_sys_path(nt_linux_rows[NT_K_IRQ_AFFINITY].path, irq_str(irq).s);
	s = nt_cpuset_str(v->cpus);
	r = nt_sys_write(p, s);
	if (r == -EIO || r == -EPERM || r == -EACCES)
		seterr(x, "IRQ %u refuses affinity %s (%s): it is kernel-managed", irq, s, strerror(-r));
	else if (r)
		seterr(x, "writing %s: %s", p ? p : "/proc/irq", strerror(-r));
	free(s);
	free(p);
	return r;
}

static unsigned ncpus(struct nt_lctx *x)
{
	return x->facts && x->facts->ncpus ? x->facts->ncpus : 1;
}

/* the file of the kind's row, for queue arg of obj */
static int queue_file_read(enum nt_kind_id k, const char *obj, const char *arg,
			   struct nt_value *out, bool u32)
{
	char *p = nt_sys_path(nt_linux_rows[k].path, obj, arg);
	int r;

	if (u32) {
		char *s = nt_sys_read(p);

		r = s ? 0 : (errno == ENOENT ? -ENOENT : -errno);
		if (s)
			*out = nt_v_u32((uint32_t)strtoul(s, NULL, 10));
		free(s);
	} else {
		r = cpus_file_read(p, true, out);
	}
	free(p);
	return r;
}

static int queue_file_write(struct nt_lctx *x, enum nt_kind_id k, const char *obj,
			    const char *arg, const char *val)
{
	char *p = nt_sys_path(nt_linux_rows[k].path, obj, arg);
	int r = nt_sys_write(p, val);

	if (r)
		seterr(x, "writing %s of %s queue %s: %s", strrchr(nt_linux_rows[k].path, '/') + 1,
		       obj, arg, strerror(-r));
	free(p);
	return r;
}

static int rps_read(struct nt_lctx *x, const char *o, const char *a, struct nt_value *out)
{
	(void)x;
	return queue_file_read(NT_K_RPS_CPUS, o, a, out, false);
}

static int rps_write(struct nt_lctx *x, const char *o, const char *a, const struct nt_value *v)
{
	struct nt_buf b = {0};
	int r;

	nt_cpuset_format_mask(v->cpus, ncpus(x), &b);
	r = queue_file_write(x, NT_K_RPS_CPUS, o, a, b.p);
	nt_buf_free(&b);
	return r;
}

static int flow_read(struct nt_lctx *x, const char *o, const char *a, struct nt_value *out)
{
	(void)x;
	return queue_file_read(NT_K_RPS_FLOW_CNT, o, a, out, true);
}

static int flow_write(struct nt_lctx *x, const char *o, const char *a, const struct nt_value *v)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", v->u);
	return queue_file_write(x, NT_K_RPS_FLOW_CNT, o, a, num);
}

static int xps_read(struct nt_lctx *x, const char *o, const char *a, struct nt_value *out)
{
	(void)x;
	return queue_file_read(NT_K_XPS_CPUS, o, a, out, false);
}

static int xps_write(struct nt_lctx *x, const char *o, const char *a, const struct nt_value *v)
{
	struct nt_buf b = {0};
	int r;

	nt_cpuset_format_mask(v->cpus, ncpus(x), &b);
	r = queue_file_write(x, NT_K_XPS_CPUS, o, a, b.p);
	nt_buf_free(&b);
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
	{
		char *p = nt_sys_path("/proc");
		DIR *d = nt_sys_opendir(p);
		struct dirent *de;

		free(p);
		while (d && (de = readdir(d)) && (!max || n < max)) {
			char *cp, *c;

			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			cp = nt_sys_path("/proc/%s/comm", de->d_name);
			c = nt_sys_read(cp);
			free(cp);
			if (c && !strcmp(c, what)) {
				pids = nt_xgrow(pids, (size_t)n, sizeof(*pids));
				pids[n++] = atoi(de->d_name);
			}
			free(c);
		}
		if (d)
			closedir(d);
	}
	*out = pids;
	return n;
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
		DIR *d = nt_sys_opendir(tp);
		struct dirent *de;

		free(tp);
		while (d && (de = readdir(d))) {
			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			nt_io.file_writes++;
			if (sched_setaffinity(atoi(de->d_name), sizeof(set), &set)) {
				int e = errno;

				closedir(d);
				seterr(x, "sched_setaffinity(%s): %s", de->d_name, strerror(e));
				free(pids);
				return -e;
			}
		}
		if (d)
			closedir(d);
	}
	free(pids);
	return 0;
}

/* txqueuelen, pause, private flags, rx-flow-hash ------------------------ */

static int txqlen_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	struct nt_dc_link l;
	char *p, *s;

	(void)x;
	(void)arg;
	if (!*nt_sys_root) {
		/* the RTM_GETLINK dump that gives the MTU gives IFLA_TXQLEN */
		if (nt_devcache_link(obj, &l))
			return -ENOENT;
		*out = nt_v_u32(l.txqlen);
		return 0;
	}
	p = nt_sys_path(nt_linux_rows[NT_K_TXQLEN].path, obj);
	s = nt_sys_read(p);
	free(p);
	if (!s)
		return errno == ENOENT ? -ENOENT : -errno;
	*out = nt_v_u32((uint32_t)strtoul(s, NULL, 10));
	free(s);
	return 0;
}

static int txqlen_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	char msg[256] = "";
	int r;

	(void)arg;
	nt_devcache_stale(NT_DC_LINK);
	if (*nt_sys_root) {
		char *p = nt_sys_path(nt_linux_rows[NT_K_TXQLEN].path, obj), num[16];

		snprintf(num, sizeof(num), "%u", v->u);
		r = nt_sys_write(p, num);
		free(p);
		return r;
	}
	r = nt_link_set_txqlen(obj, v->u, msg, sizeof(msg));
	if (r)
		seterr(x, "rtnetlink: %s", *msg ? msg : strerror(-r));
	return r;
}

/* -ENOENT when the device does not report it: veth has no pause, no
 * private flags and no rx-flow-hash (-EOPNOTSUPP) */
static int absent(int r)
{
	return r == -EOPNOTSUPP || r == -ENODEV || r == -EINVAL ? -ENOENT : r;
}

static int pause_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	struct nt_pause_state p;
	int k = nt_kind_arg_index(NT_K_PAUSE, arg), r;

	if (!x->nl || k < 0)
		return -ENOENT;
	r = nt_ethnl_pause_get(x->nl, obj, &p);
	if (r)
		return absent(r);
	if (!p.have[k])
		return -ENOENT;
	*out = nt_v_bool(p.on[k]);
	return 0;
}

static int pause_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	int r;

	nt_lctx_drop_cache(x);
	if (!x->nl)
		return -EOPNOTSUPP;
	r = nt_ethnl_pause_set(x->nl, obj, nt_kind_arg_index(NT_K_PAUSE, arg), v->b);
	return r ? nl_err(x, r) : 0;
}

static int privflag_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	struct nt_privflags f;
	const struct nt_privflag *s;
	int r;

	if (!x->nl)
		return -ENOENT;
	r = nt_ethnl_privflags_get(x->nl, obj, &f);
	if (r)
		return absent(r);
	s = nt_privflags_find(&f, arg);
	if (s)
		*out = nt_v_bool(s->on);
	nt_privflags_free(&f);
	return s ? 0 : -ENOENT;
}

static int privflag_all(struct nt_lctx *x, const char *obj, struct nt_state *st)
{
	struct nt_privflags f;
	const char *part;
	size_t i;
	int r;

	if (!x->nl)
		return -ENOENT;
	r = nt_ethnl_privflags_get(x->nl, obj, &f);
	if (r)
		return absent(r);
	for (i = 0; i < f.n; i++)
		if (!nt_setting_problem(NT_K_PRIV_FLAG, obj, f.v[i].name, &part))
			nt_state_set(st, NT_K_PRIV_FLAG, obj, f.v[i].name, nt_v_bool(f.v[i].on),
				     (struct nt_mark){0});
	nt_privflags_free(&f);
	return 0;
}

static int privflag_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	int r;

	nt_lctx_drop_cache(x);
	if (!x->nl)
		return -EOPNOTSUPP;
	r = nt_ethnl_privflag_set(x->nl, obj, arg, v->b);
	return r ? nl_err(x, r) : 0;
}

static int flowhash_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	uint32_t bits;
	char *s;
	int r;

	(void)x;
	if (*nt_sys_root)
		return -ENOENT;
	r = nt_rxfh_get(obj, arg, &bits);
	if (r)
		return absent(r);
	s = nt_rxh_format(bits);
	*out = nt_v_str(s);
	free(s);
	return 0;
}

static int flowhash_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	uint32_t bits;
	int r;

	if (!nt_rxh_parse(v->s, &bits)) {
		seterr(x, "rx-flow-hash %s: '%s' is not a list of hash fields", arg, v->s);
		return -EINVAL;
	}
	r = nt_rxfh_set(obj, arg, bits);
	if (r)
		seterr(x, "SIOCETHTOOL ETHTOOL_SRXFH %s: %s", arg, strerror(-r));
	return r;
}

const struct nt_linux_ops nt_linux_ops[NT_K__COUNT] = {
	[NT_K_SYSCTL] = {sysctl_read, sysctl_write},
	[NT_K_MTU] = {mtu_read, mtu_write},
	[NT_K_FEATURE] = {feature_read, feature_write},
	[NT_K_CHANNELS] = {channels_read, channels_write},
	[NT_K_RING] = {ring_read, ring_write},
	[NT_K_COALESCE] = {coalesce_read, coalesce_write},
	[NT_K_COALESCE_ADAPTIVE] = {adaptive_read, adaptive_write},
	[NT_K_RSS_HFUNC] = {hfunc_read, hfunc_write},
	[NT_K_RSS_KEY] = {key_read, key_write},
	[NT_K_RSS_INDIR] = {indir_read, indir_write},
	[NT_K_IRQ_AFFINITY] = {affinity_read, affinity_write},
	[NT_K_RPS_CPUS] = {rps_read, rps_write},
	[NT_K_RPS_FLOW_CNT] = {flow_read, flow_write},
	[NT_K_XPS_CPUS] = {xps_read, xps_write},
	[NT_K_IRQBALANCE_BAN] = {ban_read, ban_write},
	[NT_K_IRQBALANCE_SERVICE] = {service_read, service_write},
	[NT_K_PROCESS_CPUS] = {process_read, process_write},
	[NT_K_TXQLEN] = {txqlen_read, txqlen_write},
	[NT_K_PAUSE] = {pause_read, pause_write},
	[NT_K_PRIV_FLAG] = {privflag_read, privflag_write, privflag_all},
	[NT_K_FLOW_HASH] = {flowhash_read, flowhash_write},
};

void nt_linux_observe_rows(struct nt_lctx *x, const char *obj, struct nt_state *st, unsigned skip)
{
	static const enum nt_kind_id k[] = {NT_K_TXQLEN, NT_K_PAUSE, NT_K_PRIV_FLAG, NT_K_FLOW_HASH};
	static const unsigned bit[] = {NT_OBS_TXQLEN, NT_OBS_PAUSE, NT_OBS_PRIVFLAGS, NT_OBS_FLOWHASH};
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		const struct nt_kinddef *kd = &nt_kinds[k[i]];
		const struct nt_linux_ops *op = &nt_linux_ops[k[i]];
		const char *const *a;
		struct nt_value v;

		if (skip & bit[i])
			continue;
		switch (kd->argshape) {
		case NT_ARG_NONE:
			if (!op->read(x, obj, NULL, &v))
				nt_state_set(st, k[i], obj, NULL, v, (struct nt_mark){0});
			break;
		case NT_ARG_NAMED:
			for (a = kd->args; *a; a++) {
				/* one refusal is the device's answer for the others */
				int r = op->read(x, obj, *a, &v);

				if (r == -ENOENT && a == kd->args)
					break;
				if (!r)
					nt_state_set(st, k[i], obj, *a, v, (struct nt_mark){0});
			}
			break;
		case NT_ARG_OPEN:
			op->all(x, obj, st);
			break;
		default:
			break;
		}
	}
}
