/* SPDX-License-Identifier: MIT */
/* Observing a Linux host: topology, NIC identity, queue -> IRQ map, and the
 * current value of every setting kind, through netlink, /proc and /sys: the
 * device cache (devcache.h), the IRQ map (irqmap.h) and the read functions
 * of the kind rows (kinds.c) the profile uses. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "../../compiler/base/buf.h"
#include "../../compiler/base/strindex.h"
#include "../../compiler/model/names.h"
#include "../../compiler/model/offloads.h"
#include "devcache.h"
#include "irqmap.h"
#include "link.h"
#include "linux.h"
#include "rss.h"
#include "sysio.h"

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void observe_topology(struct nt_facts *f)
{
	char *p = nt_sys_path("/sys/devices/system/cpu/online"), *s = nt_sys_read(p);
	const char *err;
	int keys[NT_MAX_CPUS], nkeys = 0, c, n, nodes[64], nnodes = 0;

	free(p);
	if (!s || !nt_cpuset_parse(s, &f->online, &err)) {
		free(s);
		return;
	}
	free(s);
	f->topo_known = true;
	for (c = nt_cpuset_next(&f->online, 0); c >= 0; c = nt_cpuset_next(&f->online, (unsigned)c + 1)) {
		char *cp, *pp, *cs, *ps;
		int key, k;

		f->ncpus = (uint32_t)c + 1;
		cp = nt_sys_path("/sys/devices/system/cpu/cpu%d/topology/core_id", c);
		pp = nt_sys_path("/sys/devices/system/cpu/cpu%d/topology/physical_package_id", c);
		cs = nt_sys_read(cp);
		ps = nt_sys_read(pp);
		key = cs ? (ps ? atoi(ps) : 0) * 65536 + atoi(cs) : 1 << 30 | c;
		for (k = 0; k < nkeys; k++)
			if (keys[k] == key)
				break;
		if (k == nkeys)
			keys[nkeys++] = key;
		f->cpu_core[c] = k;
		free(cp);
		free(pp);
		free(cs);
		free(ps);
	}
	/* the nodes that exist (a directory listing, not 64 probes) */
	{
		char *dp = nt_sys_path("/sys/devices/system/node");
		struct nt_dir *dd = nt_sys_opendir(dp);
		struct dirent *de;

		free(dp);
		while (dd && (de = nt_sys_readdir(dd)))
			if (!strncmp(de->d_name, "node", 4) && isdigit((unsigned char)de->d_name[4]) &&
			    strtoul(de->d_name + 4, NULL, 10) < 64 && nnodes < 64)
				nodes[nnodes++] = atoi(de->d_name + 4);
		if (dd)
			nt_sys_closedir(dd);
		qsort(nodes, (size_t)nnodes, sizeof(int), cmp_int);
	}
	for (int kn = 0; kn < nnodes; kn++) {
		char *np, *ns;
		struct nt_cpuset cs;

		n = nodes[kn];
		np = nt_sys_path("/sys/devices/system/node/node%d/cpulist", n);
		ns = nt_sys_read(np);
		free(np);
		if (!ns)
			continue;
		if (nt_cpuset_parse(ns, &cs, &err)) {
			f->node_cpus[n] = cs;
			f->nnodes = n + 1;
			for (c = nt_cpuset_next(&cs, 0); c >= 0; c = nt_cpuset_next(&cs, (unsigned)c + 1))
				f->cpu_node[c] = n;
		}
		free(ns);
	}
	if (!f->nnodes) {	/* no NUMA in sysfs: one node */
		f->node_cpus[0] = f->online;
		f->nnodes = 1;
		for (c = nt_cpuset_next(&f->online, 0); c >= 0; c = nt_cpuset_next(&f->online, (unsigned)c + 1))
			f->cpu_node[c] = 0;
	}
}

/* rx-N and tx-N entries of the queues directory, in one listing */
static void count_queues(const char *iface, uint32_t *rx, uint32_t *tx)
{
	char *p = nt_sys_path("/sys/class/net/%s/queues", iface);
	struct nt_dir *d = nt_sys_opendir(p);
	struct dirent *de;

	free(p);
	*rx = *tx = 0;
	while (d && (de = nt_sys_readdir(d))) {
		if (!strncmp(de->d_name, "rx-", 3))
			(*rx)++;
		else if (!strncmp(de->d_name, "tx-", 3))
			(*tx)++;
	}
	if (d)
		nt_sys_closedir(d);
}

/* The target of a symbolic link below /sys/class/net/NAME (fmt names the
 * file), its last component in *last; false when it is no link. */
static bool iface_link(const char *fmt, const char *name, char *link, size_t n,
		       const char **last)
{
	char *p = nt_sys_path(fmt, name), *slash;
	ssize_t len = p ? nt_sys_readlink(p, link, n - 1) : -1;

	free(p);
	if (len <= 0)
		return false;
	link[len] = '\0';
	slash = strrchr(link, '/');
	*last = slash ? slash + 1 : link;
	return true;
}

/* The bus device of a NIC: driver, PCI ids, NUMA node and queue IRQs.
 * A virtio NIC's device is virtioN (virtio ids: 1af4:0001 = net) below
 * its PCI function (1af4:1041, legacy 1af4:1000): the PCI ids and NUMA
 * node are the function's (drivers/virtio/virtio_pci_common.c
 * virtio_pci_probe registers vp_dev->vdev with the PCI device as parent). */
static void observe_bus_device(struct nt_facts *f, struct nt_iface_facts *i, const char *name)
{
	char *p, *s, link[PATH_MAX];
	const char *last;
	bool virtio;

	if (iface_link("/sys/class/net/%s/device/driver", name, link, sizeof(link), &last)) {
		i->driver = nt_xstrdup(last);
		i->kind = nt_xstrdup("physical");
	}
	virtio = iface_link("/sys/class/net/%s/device", name, link, sizeof(link), &last) &&
		 !strncmp(last, "virtio", 6);
	p = nt_sys_path(virtio ? "/sys/class/net/%s/device/../vendor" :
			"/sys/class/net/%s/device/vendor", name);
	s = nt_sys_read(p);
	free(p);
	if (s) {
		char *dp = nt_sys_path(virtio ? "/sys/class/net/%s/device/../device" :
				       "/sys/class/net/%s/device/device", name);
		char *ds = nt_sys_read(dp);

		if (ds && !strncmp(s, "0x", 2) && !strncmp(ds, "0x", 2))
			i->pci = nt_xasprintf("%s:%s", s + 2, ds + 2);
		free(dp);
		free(ds);
		free(s);
	}
	p = nt_sys_path(virtio ? "/sys/class/net/%s/device/../numa_node" :
			"/sys/class/net/%s/device/numa_node", name);
	s = nt_sys_read(p);
	free(p);
	if (s) {
		i->numa_node = atoi(s);
		free(s);
	}
	nt_irqmap_refresh(f, name);
}

/* What ethtool netlink says of the device: channel and ring maxima, and
 * every feature with whether it can change. */
static void observe_ethtool_facts(struct nt_lctx *x, struct nt_iface_facts *i, const char *name,
				  unsigned skip)
{
	struct nt_ethnl_vals ch;
	struct nt_ethnl_vals r;
	const struct nt_features *ft;
	size_t k;

	if (!nt_lctx_channels(x, name, &ch))
		for (k = 0; k < 4; k++)
			if (ch.have[k] || ch.max[k])
				i->max_chan[k] = (struct nt_num){true, ch.max[k]};
	if (!(skip & NT_OBS_RINGS) && !nt_devcache_vals(&nt_fam_rings, name, &r)) {
		if (r.have[0])
			i->ring_rx_max = (struct nt_num){true, r.max[0]};
		if (r.have[1])
			i->ring_tx_max = (struct nt_num){true, r.max[1]};
	}
	if (!nt_devcache_features(name, &ft)) {
		size_t nf = nt_features_count(ft);

		i->features_known = true;
		i->features = nt_xcalloc(nf + 1, sizeof(*i->features));
		for (k = 0; k < nf; k++) {
			struct nt_feature_state st;
			const char *fname = nt_features_name(ft, k);

			if (!fname || !nt_features_at(ft, k, &st))
				continue;
			i->features[i->nfeatures].name = nt_strpool_dup(&i->feature_names, fname);
			i->features[i->nfeatures].requested = 1 + st.wanted;
			i->features[i->nfeatures++].fixed = !st.hw || st.nochange;
		}
	}
}

static void observe_rss_facts(struct nt_iface_facts *i, const char *name)
{
	const struct nt_rss_state *rs;
	int rc = nt_devcache_rss(name, &rs);

	if (!rc) {
		/* 0: the device has no RSS key (virtio_net without RSS),
		 * as a snapshot records it: no key size, not 0 */
		if (rs->key_size)
			i->rss_key_bytes = (struct nt_num){true, (uint32_t)rs->key_size};
		i->rss_indir_size = (struct nt_num){true, (uint32_t)rs->indir_size};
	} else if (rc == -EOPNOTSUPP) {
		/* ETHTOOL_GRSSH refused (veth, bridge: no get_rxfh): the
		 * device has no RSS, which is known, not unknown */
		i->rss_indir_size = (struct nt_num){true, 0};
	}
}

/* Whether the device's channels give its receive queue count (combined +
 * rx, as lowering counts them): then RSS alone needs no queues/ listing,
 * one directory per device (a no-op apply of 1024 devices listed 1025). */
static bool channels_say_queues(struct nt_lctx *x, const char *name)
{
	struct nt_ethnl_vals ch;

	if (*nt_sys_root || nt_lctx_channels(x, name, &ch))
		return false;
	return (ch.have[NT_CH_COMBINED] && ch.cur[NT_CH_COMBINED]) ||
	       (ch.have[NT_CH_RX] && ch.cur[NT_CH_RX]);
}

static void observe_iface_facts(struct nt_lctx *x, const char *name, unsigned skip)
{
	struct nt_facts *f = x->facts;
	struct nt_iface_facts *i = nt_facts_iface(f, name);
	struct nt_dc_link l = {0};
	bool virt = false;
	char *p;

	if (!i)
		i = nt_facts_add_iface(f, name);
	if (!*nt_sys_root && !nt_devcache_link(name, &l))
		virt = l.kind != NULL;	/* veth, vxlan...: no bus device below it */
	p = virt ? NULL : nt_sys_path("/sys/class/net/%s/device", name);
	if (p && nt_sys_exists(p))
		observe_bus_device(f, i, name);
	free(p);
	if (!*nt_sys_root && !i->kind)
		i->kind = nt_xstrdup(l.kind ? l.kind : "virtual");
	if (x->nl)
		observe_ethtool_facts(x, i, name, skip);
	/* the queue counts: for the per-queue files, and as the queue count
	 * of RSS when the channels do not say it (lower_linux.c) */
	if (!(skip & NT_OBS_QUEUES) || (!(skip & NT_OBS_RSS) && !channels_say_queues(x, name)))
		count_queues(name, &i->rx_queues, &i->tx_queues);
	if (!*nt_sys_root && !(skip & NT_OBS_RSS))
		observe_rss_facts(i, name);
}

/* Adds the current value of (kind, obj, arg) to st when it exists. */
/* The decimal digits of v in out (at least 11 bytes): queue numbers, a few
 * thousand per observation of a big host, without printf. */
static void utoa(char *out, unsigned v)
{
	char t[12];
	size_t n = 0;

	do
		t[n++] = (char)('0' + v % 10);
	while ((v /= 10));
	while (n)
		*out++ = t[--n];
	*out = '\0';
}

static void grab(struct nt_lctx *x, struct nt_state *st, enum nt_kind_id k, const char *obj,
		 const char *arg)
{
	struct nt_value v;

	if (nt_linux_read(x, k, obj, arg, &v))
		return;
	nt_state_set(st, k, obj, arg, v, (struct nt_mark){0});
}

/* The features worth observing on one device: its entry of the request
 * (none: no feature), found through a hash index of the request's
 * interface names built once per observation. */
static struct nt_strindex fw_index;

static const char *fwant_key(const void *arr, size_t i)
{
	return ((const struct nt_feature_want *)arr)[i].iface;
}

static const struct nt_feature_want *fwant_of(const struct nt_observe_req *req, const char *name)
{
	size_t at = nt_strindex_find(&fw_index, req->features, req->nfeatures, fwant_key, name);

	return at == SIZE_MAX ? NULL : &req->features[at];
}

static bool feature_named(const struct nt_feature_want *w, const char *feature)
{
	size_t k;

	for (k = 0; w && k < w->nnames; k++)
		if (!strcmp(w->names[k], feature))
			return true;
	return false;
}

/* Which of the kernel's feature names (ft's, the same STRSET_GET names for
 * every device) are in the groups of mask: kept for the last mask asked. */
static struct {
	uint64_t mask;
	const char *first;
	size_t n;
	bool *in;
} fw_cache;

static const bool *fwant_names(const struct nt_features *ft, size_t nf, uint64_t mask)
{
	const char *first = nf ? nt_features_name(ft, 0) : NULL;
	size_t k;

	if (fw_cache.in && fw_cache.mask == mask && fw_cache.first == first && fw_cache.n == nf)
		return fw_cache.in;
	free(fw_cache.in);
	fw_cache.in = nt_xcalloc(nf + 1, sizeof(bool));
	fw_cache.mask = mask;
	fw_cache.first = first;
	fw_cache.n = nf;
	for (k = 0; k < nf; k++) {
		const char *fname = nt_features_name(ft, k);

		fw_cache.in[k] = fname && nt_linux_feature_in_groups(mask, fname);
	}
	return fw_cache.in;
}

static void fwant_free(void)
{
	free(fw_cache.in);
	memset(&fw_cache, 0, sizeof(fw_cache));
	nt_strindex_reset(&fw_index);
}

/* The device's features: every one (snapshots), or the wanted ones in
 * the order of its facts (the kernel's feature names); which names the
 * groups take is worked out once per set of groups, not per device. */
static void observe_features(struct nt_lctx *x, const char *name, struct nt_state *st,
			     const struct nt_observe_req *req, const struct nt_iface_facts *i)
{
	const struct nt_feature_want *w;
	const struct nt_features *ft;
	const bool *in;
	size_t k, nf;

	if (!req->want_features) {
		for (k = 0; i && k < i->nfeatures; k++)
			grab(x, st, NT_K_FEATURE, name, i->features[k].name);
		return;
	}
	if (!i || !i->features_known || !x->nl || nt_devcache_features(name, &ft))
		return;
	w = fwant_of(req, name);
	nf = nt_features_count(ft);
	in = fwant_names(ft, nf, w ? w->groups : 0);
	for (k = 0; k < nf; k++) {
		struct nt_feature_state fs;
		const char *fname = nt_features_name(ft, k);

		if (!fname || (!in[k] && !feature_named(w, fname)) ||
		    !nt_features_at(ft, k, &fs))
			continue;
		grab(x, st, NT_K_FEATURE, name, fname);
	}
}

/* Channels, rings, coalescing and RSS: the groups the request reads. */
static void observe_ethtool_state(struct nt_lctx *x, const char *name, struct nt_state *st,
				  unsigned skip, const struct nt_iface_facts *i)
{
	const char *const *chans = nt_kinds[NT_K_CHANNELS].args;
	const char *const *rings = nt_kinds[NT_K_RING].args;
	const char *const *coal = nt_kinds[NT_K_COALESCE].args;
	size_t k;

	for (k = 0; k < 4; k++)
		if (i && i->max_chan[k].known && i->max_chan[k].v)
			grab(x, st, NT_K_CHANNELS, name, chans[k]);
	for (k = 0; k < 4 && !(skip & NT_OBS_RINGS); k++)
		grab(x, st, NT_K_RING, name, rings[k]);
	if (!(skip & NT_OBS_COALESCE)) {
		for (k = 0; k < 4; k++)
			grab(x, st, NT_K_COALESCE, name, coal[k]);
		grab(x, st, NT_K_COALESCE_ADAPTIVE, name, "rx");
		grab(x, st, NT_K_COALESCE_ADAPTIVE, name, "tx");
	}
}

static void observe_rss_state(struct nt_lctx *x, const char *name, struct nt_state *st)
{
	grab(x, st, NT_K_RSS_HFUNC, name, NULL);
	grab(x, st, NT_K_RSS_KEY, name, NULL);
	grab(x, st, NT_K_RSS_INDIR, name, NULL);
}

/* IRQ affinity of each queue IRQ, RPS and XPS of each queue. */
static void observe_queue_state(struct nt_lctx *x, const char *name, struct nt_state *st,
				const struct nt_iface_facts *i)
{
	char arg[16];
	uint32_t q;
	size_t k;

	for (k = 0; i && k < i->nirqs; k++) {
		utoa(arg, i->irqs[k].queue);
		grab(x, st, NT_K_IRQ_AFFINITY, name, arg);
	}
	for (q = 0; i && q < i->rx_queues; q++) {
		utoa(arg, q);
		grab(x, st, NT_K_RPS_CPUS, name, arg);
		grab(x, st, NT_K_RPS_FLOW_CNT, name, arg);
	}
	for (q = 0; i && q < i->tx_queues; q++) {
		utoa(arg, q);
		grab(x, st, NT_K_XPS_CPUS, name, arg);
	}
}

static void observe_iface_state(struct nt_lctx *x, const char *name, struct nt_state *st,
				const struct nt_observe_req *req)
{
	const struct nt_iface_facts *i = nt_facts_iface(x->facts, name);

	grab(x, st, NT_K_MTU, name, NULL);
	observe_features(x, name, st, req, i);
	observe_ethtool_state(x, name, st, req->skip, i);
	nt_linux_observe_rows(x, name, st, req->skip_rows);
	if (!(req->skip & NT_OBS_RSS))
		observe_rss_state(x, name, st);
	if (!(req->skip & NT_OBS_QUEUES))
		observe_queue_state(x, name, st, i);
}

/* Sysctls a snapshot leaves out: secrets (the TCP Fast Open key, IPv6
 * stable privacy secrets), per-read random values, a read that flushes
 * per-CPU statistics (vm.stat_refresh), and binfmt_misc, whose directory
 * is an automount point that a read would mount. */
static bool sysctl_skipped(const char *rel, const char *name)
{
	size_t n = strlen(name);

	return !strcmp(rel, "fs/binfmt_misc") || !strcmp(rel, "kernel/random") ||
	       !strcmp(rel, "vm/stat_refresh") || !strcmp(name, "stable_secret") ||
	       (n > 4 && !strcmp(name + n - 4, "_key"));
}

#define SYSCTL_DEPTH_MAX 8
#define SNAPSHOT_PROCESSES_MAX 4096

static void walk_sysctls(struct nt_lctx *x, struct nt_state *st, const char *rel, int depth);

/* One /proc/sys file, when a snapshot can carry it and load it back. */
static void grab_sysctl(struct nt_lctx *x, struct nt_state *st, const char *rel)
{
	char *key = nt_sysctl_key_canon(rel);
	const char *part, *c;
	struct nt_value v;
	bool ok;

	if (nt_setting_problem(NT_K_SYSCTL, "sysctl", key, &part) ||
	    nt_linux_read(x, NT_K_SYSCTL, "sysctl", key, &v)) {
		free(key);
		return;
	}
	ok = strlen(v.s) <= NT_SYSCTL_VALUE_MAX;
	for (c = v.s; ok && *c; c++)
		ok = !(((unsigned char)*c < 0x20 && *c != '\t' && *c != '\n') || *c == 0x7f);
	if (ok)
		nt_state_set(st, NT_K_SYSCTL, "sysctl", key, v, (struct nt_mark){0});
	else
		nt_value_free(&v);
	free(key);
}

struct sysctl_entry {
	char *name;
	unsigned char type;
};

static int cmp_sysctl_entry(const void *a, const void *b)
{
	return strcmp(((const struct sysctl_entry *)a)->name, ((const struct sysctl_entry *)b)->name);
}

static void walk_sysctls(struct nt_lctx *x, struct nt_state *st, const char *rel, int depth)
{
	char *dp = *rel ? nt_sys_path_rel("/proc/sys", rel, '/') : nt_sys_path("/proc/sys");
	struct nt_dir *d = dp ? nt_sys_opendir(dp) : NULL;
	struct sysctl_entry *v = NULL;
	struct dirent *de;
	size_t n = 0, k;

	free(dp);
	if (!d)
		return;
	while ((de = nt_sys_readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		v = nt_xgrow(v, n, sizeof(*v));
		v[n].type = de->d_type;
		v[n++].name = nt_xstrdup(de->d_name);
	}
	nt_sys_closedir(d);
	/* readdir order is the kernel's: sorted, snapshots are stable */
	if (n > 1)
		qsort(v, n, sizeof(*v), cmp_sysctl_entry);
	for (k = 0; k < n; k++) {
		char *sub = *rel ? nt_xasprintf("%s/%s", rel, v[k].name) : nt_xstrdup(v[k].name);

		if (!sysctl_skipped(sub, v[k].name)) {
			if (v[k].type == DT_DIR && depth < SYSCTL_DEPTH_MAX)
				walk_sysctls(x, st, sub, depth + 1);
			else if (v[k].type == DT_REG || v[k].type == DT_UNKNOWN)
				grab_sysctl(x, st, sub);
		}
		free(sub);
		free(v[k].name);
	}
	free(v);
}

/* The CPU affinity of every systemd service and of every user-space
 * process name (the first process of a name, as the applier reads it):
 * the objects a profile's processes: can name, except pidfiles. */
static void grab_processes(struct nt_lctx *x, struct nt_state *st)
{
	char *p = nt_sys_path("/sys/fs/cgroup/system.slice");
	struct nt_dir *d = nt_sys_opendir(p);
	struct dirent *de;
	const char *part;
	size_t n = 0;

	free(p);
	while (d && (de = nt_sys_readdir(d)) && n < SNAPSHOT_PROCESSES_MAX) {
		size_t l = strlen(de->d_name);
		char *obj;

		if (l <= 8 || strcmp(de->d_name + l - 8, ".service"))
			continue;
		obj = nt_xasprintf("process %s", de->d_name);
		if (!nt_setting_problem(NT_K_PROCESS_CPUS, obj, NULL, &part)) {
			grab(x, st, NT_K_PROCESS_CPUS, obj, NULL);
			n++;
		}
		free(obj);
	}
	if (d)
		nt_sys_closedir(d);
	p = nt_sys_path("/proc");
	d = nt_sys_opendir(p);
	free(p);
	while (d && (de = nt_sys_readdir(d)) && n < SNAPSHOT_PROCESSES_MAX) {
		char *cp, *comm, *sp, *status, *line, *obj;
		struct nt_cpuset cs;
		const char *err;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		cp = nt_sys_path("/proc/%s/comm", de->d_name);
		sp = nt_sys_path("/proc/%s/status", de->d_name);
		comm = nt_sys_read(cp);
		status = comm ? nt_sys_read(sp) : NULL;
		free(cp);
		free(sp);
		obj = comm ? nt_xasprintf("process %s", comm) : NULL;
		/* kernel threads (children of kthreadd) are not pinned by profiles */
		line = status ? strstr(status, "\nPPid:") : NULL;
		if (obj && line && strtol(line + 6, NULL, 10) != 2 && strcmp(de->d_name, "2") &&
		    !nt_state_get(st, NT_K_PROCESS_CPUS, obj, NULL) &&
		    !nt_setting_problem(NT_K_PROCESS_CPUS, obj, NULL, &part) &&
		    (line = strstr(status, "Cpus_allowed_list:"))) {
			line += strlen("Cpus_allowed_list:");
			while (*line == '\t' || *line == ' ')
				line++;
			*strchrnul(line, '\n') = '\0';
			if (nt_cpuset_parse(line, &cs, &err)) {
				nt_state_set(st, NT_K_PROCESS_CPUS, obj, NULL, nt_v_cpus(&cs),
					     (struct nt_mark){0});
				n++;
			}
		}
		free(obj);
		free(comm);
		free(status);
	}
	if (d)
		nt_sys_closedir(d);
}

static int all_ifaces(char ***out, size_t *n)
{
	char *p = nt_sys_path("/sys/class/net");
	struct nt_dir *d = nt_sys_opendir(p);
	struct dirent *de;

	free(p);
	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = nt_sys_readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "bonding_masters") ||
		    nt_linux_ifname_problem(de->d_name))
			continue;
		*out = nt_xrealloc(*out, (*n + 1) * sizeof(char *));
		(*out)[(*n)++] = nt_xstrdup(de->d_name);
	}
	nt_sys_closedir(d);
	return 0;
}

/* The first line of a file below --root (p, from nt_sys_path, freed here)
 * without surrounding blanks, or NULL when the file is absent or that line
 * is empty (the host name and kernel release of an image:
 * /proc/sys/kernel/hostname, osrelease, /etc/hostname). */
static char *root_word(char *p)
{
	char *t = nt_sys_read(p), *a, *e;

	free(p);
	if (!t)
		return NULL;
	for (a = t; *a == ' ' || *a == '\t'; a++)
		;
	e = a + strcspn(a, "\n");
	while (e > a && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	*e = '\0';
	if (!*a) {
		free(t);
		return NULL;
	}
	memmove(t, a, (size_t)(e - a) + 1);
	return t;
}

/* The key beside a missing sysctl key whose last name is closest to its
 * own (net.core.rmem_mx: net.core.rmem_max), or NULL. */
static char *sysctl_near(const char *key)
{
	char sep = strchr(key, '/') ? '/' : '.';
	const char *last = strrchr(key, sep);
	char *dir, *path, *r = NULL;
	const char **names = NULL;
	const char *best;
	size_t n = 0, k;
	struct dirent *de;
	struct nt_dir *d;

	if (!last || !last[1])
		return NULL;
	dir = nt_xasprintf("%.*s", (int)(last - key), key);
	path = nt_linux_sysctl_path(dir);
	d = path ? nt_sys_opendir(path) : NULL;
	while (d && (de = nt_sys_readdir(d)))
		if (de->d_name[0] != '.' && !strchr(de->d_name, sep)) {
			names = nt_xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = nt_xstrdup(de->d_name);
		}
	if (d)
		nt_sys_closedir(d);
	best = n ? nt_suggest(last + 1, names, n) : NULL;
	if (best)
		r = nt_xasprintf("%s%c%s", dir, sep, best);
	for (k = 0; k < n; k++)
		free((char *)names[k]);
	free(names);
	free(path);
	free(dir);
	return r;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Host name, kernel release, machine id and namespace: the image's under
 * --root, never the running machine's (unknown when absent). */
static void observe_host(struct nt_facts *f)
{
	struct utsname u;
	char host[256], *mp;

	if (*nt_sys_root) {
		f->hostname = root_word(nt_sys_path("/proc/sys/kernel/hostname"));
		if (!f->hostname)
			f->hostname = root_word(nt_sys_path("/etc/hostname"));
		f->kernel = root_word(nt_sys_path("/proc/sys/kernel/osrelease"));
	} else {
		if (!gethostname(host, sizeof(host))) {
			host[sizeof(host) - 1] = '\0';
			f->hostname = nt_xstrdup(host);
		}
		if (!uname(&u))
			f->kernel = nt_xstrdup(u.release);
	}
	mp = nt_sys_path("/etc/machine-id");
	f->machine_id = nt_sys_read(mp);
	free(mp);
	if (nt_sys_netns)
		f->netns = nt_xstrdup(nt_sys_netns);
}

/* The interfaces to observe: those of the request that exist, or every
 * one in name order; malloc'd names in *out. */
static size_t observed_ifaces(const struct nt_observe_req *req, char ***out)
{
	char **names = NULL;
	size_t n = 0, k;

	if (!req->ifaces) {
		all_ifaces(out, &n);
		qsort(*out, n, sizeof(**out), cmp_str);
		return n;
	}
	for (k = 0; k < req->nifaces; k++) {
		char *p = nt_sys_path("/sys/class/net/%s", req->ifaces[k]);

		if ((!*nt_sys_root && !nt_devcache_link(req->ifaces[k], &(struct nt_dc_link){0})) ||
		    (*nt_sys_root && nt_sys_exists(p))) {
			names = nt_xrealloc(names, (n + 1) * sizeof(char *));
			names[n++] = nt_xstrdup(req->ifaces[k]);
		}
		free(p);
	}
	*out = names;
	return n;
}

/* The sysctls of the request, recorded under the key the plan compares
 * (net/core/x is net.core.x, as in profiles and snapshots), with whether
 * each exists and can be written. */
static void observe_sysctls(struct nt_lctx *x, const struct nt_observe_req *req,
			    struct nt_facts *f, struct nt_state *st)
{
	size_t k;

	for (k = 0; k < req->nsysctls; k++) {
		char *key = nt_sysctl_key_canon(req->sysctls[k]);
		char *path = nt_linux_sysctl_path(key);
		int mode = nt_sys_mode(path);

		/* lowering checks the profile's keys against these: a
		 * misspelt or read-only key is an error of the plan, not of
		 * the apply */
		bool exists = mode != -ENOENT && mode != -ENOTDIR;

		if (exists)
			grab(x, st, NT_K_SYSCTL, "sysctl", key);
		/* a file that could not be looked at is not refused */
		nt_facts_add_sysctl(f, key, exists, mode < 0 || (mode & 0222))->suggest =
			exists ? NULL : sysctl_near(key);
		free(path);
		free(key);
	}
	if (req->all_sysctls)
		walk_sysctls(x, st, "", 0);
}

static void observe_processes(struct nt_lctx *x, const struct nt_observe_req *req,
			      struct nt_state *st)
{
	size_t k;

	for (k = 0; k < req->nprocesses; k++)
		grab(x, st, NT_K_PROCESS_CPUS, req->processes[k], NULL);
	if (req->all_processes)
		grab_processes(x, st);
	if (req->irqbalance) {
		grab(x, st, NT_K_IRQBALANCE_BAN, "irqbalance", NULL);
		grab(x, st, NT_K_IRQBALANCE_SERVICE, "irqbalance", NULL);
	}
}

/* A plan from a partial view would plan what is already so, or miss what
 * is not: a failed read of the kernel is an error. */
static int observe_failure(const struct nt_facts *f, struct nt_diags *d)
{
	char why[320];
	int nf = nt_devcache_failure(why, sizeof(why));

	if (!nf)
		return 0;
	nt_error(d, ((struct nt_mark){nt_intern(f->hostname ? f->hostname : "host"), 0, 0}),
		 "observe", "cannot read the host: %s%s", why, nf > 1 ? " (and more)" : "");
	return -EIO;
}

/* The host-wide facts of the last whole observation (CPU topology, NUMA
 * nodes, machine id, kernel release), which a narrow one reuses: the
 * agent corrects one interface at a time, many times a second, and reads
 * these afresh at its periodic check. */
static struct {
	bool valid;
	char *root;			/* of nt_sys_root */
	struct nt_facts f;		/* host fields only */
	size_t ncpu_slots;		/* cpu_node/cpu_core entries set (the rest -1) */
} host_cache;

static void host_cache_put(const struct nt_facts *f)
{
	if (host_cache.valid) {
		nt_facts_free(&host_cache.f);
		free(host_cache.root);
	}
	nt_facts_init(&host_cache.f);
	host_cache.f.kernel = f->kernel ? nt_xstrdup(f->kernel) : NULL;
	host_cache.f.machine_id = f->machine_id ? nt_xstrdup(f->machine_id) : NULL;
	host_cache.f.online = f->online;
	host_cache.f.topo_known = f->topo_known;
	host_cache.f.ncpus = f->ncpus;
	memcpy(host_cache.f.cpu_node, f->cpu_node, sizeof(f->cpu_node));
	memcpy(host_cache.f.cpu_core, f->cpu_core, sizeof(f->cpu_core));
	memcpy(host_cache.f.node_cpus, f->node_cpus, sizeof(f->node_cpus));
	host_cache.f.nnodes = f->nnodes;
	host_cache.ncpu_slots = NT_MAX_CPUS;
	while (host_cache.ncpu_slots && f->cpu_node[host_cache.ncpu_slots - 1] < 0 &&
	       f->cpu_core[host_cache.ncpu_slots - 1] < 0)
		host_cache.ncpu_slots--;
	host_cache.root = nt_xstrdup(nt_sys_root);
	host_cache.valid = true;
}

/* false when there is none to reuse */
static bool host_cache_get(struct nt_facts *f)
{
	const struct nt_facts *c = &host_cache.f;
	char host[256];

	if (!host_cache.valid || strcmp(host_cache.root, nt_sys_root) || *nt_sys_root)
		return false;
	/* the host name may change at any time: asked again (one syscall) */
	if (!gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		f->hostname = nt_xstrdup(host);
	}
	f->kernel = c->kernel ? nt_xstrdup(c->kernel) : NULL;
	f->machine_id = c->machine_id ? nt_xstrdup(c->machine_id) : NULL;
	if (nt_sys_netns)
		f->netns = nt_xstrdup(nt_sys_netns);
	f->online = c->online;
	f->topo_known = c->topo_known;
	f->ncpus = c->ncpus;
	/* the CPUs and nodes that exist (the rest is -1 and empty, as
	 * nt_facts_init left it and the cache has it) */
	memcpy(f->cpu_node, c->cpu_node, host_cache.ncpu_slots * sizeof(c->cpu_node[0]));
	memcpy(f->cpu_core, c->cpu_core, host_cache.ncpu_slots * sizeof(c->cpu_core[0]));
	memcpy(f->node_cpus, c->node_cpus, (size_t)c->nnodes * sizeof(c->node_cpus[0]));
	f->nnodes = c->nnodes;
	return true;
}

int nt_linux_observe(const struct nt_observe_req *req, struct nt_facts *f,
		     struct nt_state *st, struct nt_diags *d)
{
	struct nt_lctx x;
	char **names = NULL;
	size_t n, k;

	nt_sys_hold_root();
	/* every observation reads the host afresh (watch and the Ansible
	 * module observe more than once per process): one dump per family */
	nt_devcache_stale_all();
	nt_devcache_narrow(req->narrow ? req->ifaces : NULL, req->narrow && req->ifaces ?
			   req->nifaces : 0);
	nt_irqmap_stale();
	nt_facts_init(f);
	memset(st, 0, sizeof(*st));
	f->known = true;
	f->target = nt_xstrdup("linux");
	if (!req->narrow || !host_cache_get(f)) {
		observe_host(f);
		observe_topology(f);
		if (!req->narrow)
			host_cache_put(f);
	}
	/* a walk of every process: only for the requests that use it */
	if (req->irqbalance || req->all_processes) {
		int *pids = NULL;

		f->irqbalance = nt_linux_pids_by_comm("irqbalance", &pids, 1) > 0 ? 1 : 0;
		free(pids);
	}
	nt_lctx_open(&x, f);
	f->ifaces_known = true;
	n = observed_ifaces(req, &names);
	for (k = 0; k < n; k++)
		observe_iface_facts(&x, names[k], req->skip);
	for (k = 0; k < n; k++)
		observe_iface_state(&x, names[k], st, req);
	observe_sysctls(&x, req, f, st);
	observe_processes(&x, req, st);
	for (k = 0; k < n; k++)
		free(names[k]);
	free(names);
	nt_lctx_close(&x);
	nt_sys_release_root();
	fwant_free();
	return observe_failure(f, d);
}
