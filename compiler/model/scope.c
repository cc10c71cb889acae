/* SPDX-License-Identifier: MIT */
/* Scope of each setting under --netns, and the refusal of host-wide ones. */
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "scope.h"

/*
 * The net.* sysctls that hold one value for the whole host.  Every other
 * net.* key is registered per network namespace (register_net_sysctl() for
 * each struct net); keys outside net.* (vm, kernel, fs, dev, user, abi)
 * are host-wide.  Sources, Linux 6.18:
 *   net/core/sysctl_net_core.c   net_core_table, registered for init_net
 *                                only; {r,w}mem_{default,max} are also in
 *                                netns_core_table but read-only outside
 *                                init_net (commit 19249c0724f2, 2024)
 *   net/ipv4/sysctl_net_ipv4.c   ipv4_table (init_net only; tcp_mem,
 *                                udp_mem, cipso_*, inet_peer_*, ...);
 *                                tcp_allowed_congestion_control is
 *                                read-only outside init_net
 *   net/ipv4/route.c             ipv4_route_table (init_net only; the
 *                                per-netns keys are ipv4_route_netns_table)
 *   net/ipv4/ip_fragment.c       ip4_frags_ctl_table (ipfrag_secret_interval)
 *   net/ipv6/sysctl_net_ipv6.c   ipv6_rotable (mld_*, calipso_*)
 *   net/ipv6/reassembly.c        ip6frag_secret_interval
 *   net/netfilter/nf_conntrack_standalone.c (nf_conntrack_max, _buckets,
 *                                _expect_max read-only outside init_net),
 *   net/netfilter/nf_log.c       nf_log_all_netns
 * Checked on the running kernel by tests/linux/netns_scope.sh: a key
 * listed here is absent or read-only in a new namespace, the others are
 * writable there.  Kernels older than the commit that namespaced a key
 * (optmem_max; tcp_rmem/tcp_wmem in 356d1833b638, Linux 4.15) do not show
 * it inside a namespace at all, so a write fails instead of reaching the
 * host.
 * Sorted (strcmp) for bsearch.
 */
static const char *const host_wide_net[] = {
	"net.core.bpf_jit_enable",
	"net.core.bpf_jit_harden",
	"net.core.bpf_jit_kallsyms",
	"net.core.bpf_jit_limit",
	"net.core.busy_poll",
	"net.core.busy_read",
	"net.core.default_qdisc",
	"net.core.dev_weight",
	"net.core.dev_weight_rx_bias",
	"net.core.dev_weight_tx_bias",
	"net.core.devconf_inherit_init_net",
	"net.core.fb_tunnels_only_for_init_net",
	"net.core.flow_limit_cpu_bitmap",
	"net.core.flow_limit_table_len",
	"net.core.gro_normal_batch",
	"net.core.high_order_alloc_disable",
	"net.core.max_skb_frags",
	"net.core.mem_pcpu_rsv",
	"net.core.message_burst",
	"net.core.message_cost",
	"net.core.netdev_budget",
	"net.core.netdev_budget_usecs",
	"net.core.netdev_max_backlog",
	"net.core.netdev_rss_key",
	"net.core.netdev_tstamp_prequeue",
	"net.core.netdev_unregister_timeout_secs",
	"net.core.rmem_default",
	"net.core.rmem_max",
	"net.core.rps_sock_flow_entries",
	"net.core.skb_defer_max",
	"net.core.warnings",
	"net.core.wmem_default",
	"net.core.wmem_max",
	"net.ipv4.cipso_cache_bucket_size",
	"net.ipv4.cipso_cache_enable",
	"net.ipv4.cipso_rbm_optfmt",
	"net.ipv4.cipso_rbm_strictvalid",
	"net.ipv4.fib_sync_mem",
	"net.ipv4.inet_peer_maxttl",
	"net.ipv4.inet_peer_minttl",
	"net.ipv4.inet_peer_threshold",
	"net.ipv4.ipfrag_secret_interval",
	"net.ipv4.route.error_burst",
	"net.ipv4.route.error_cost",
	"net.ipv4.route.gc_elasticity",
	"net.ipv4.route.gc_interval",
	"net.ipv4.route.gc_min_interval",
	"net.ipv4.route.gc_min_interval_ms",
	"net.ipv4.route.gc_thresh",
	"net.ipv4.route.gc_timeout",
	"net.ipv4.route.max_size",
	"net.ipv4.route.redirect_load",
	"net.ipv4.route.redirect_number",
	"net.ipv4.route.redirect_silence",
	"net.ipv4.tcp_allowed_congestion_control",
	"net.ipv4.tcp_available_ulp",
	"net.ipv4.tcp_low_latency",
	"net.ipv4.tcp_max_orphans",
	"net.ipv4.tcp_mem",
	"net.ipv4.udp_mem",
	"net.ipv6.calipso_cache_bucket_size",
	"net.ipv6.calipso_cache_enable",
	"net.ipv6.ip6frag_secret_interval",
	"net.ipv6.mld_max_msf",
	"net.ipv6.mld_qrv",
	"net.netfilter.nf_conntrack_buckets",
	"net.netfilter.nf_conntrack_expect_max",
	"net.netfilter.nf_conntrack_max",
	"net.netfilter.nf_log_all_netns",
	"net.nf_conntrack_max",
};

static int cmp_key(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

enum nt_scope nt_sysctl_scope(const char *key)
{
	char *k = nt_xstrdup(key), *p;
	const char *kp;
	enum nt_scope s = NT_SCOPE_HOST;

	for (p = k; *p; p++)
		if (*p == '/')
			*p = '.';
	kp = k;
	if (!strncmp(k, "net.", 4) &&
	    !bsearch(&kp, host_wide_net, sizeof(host_wide_net) / sizeof(host_wide_net[0]),
		     sizeof(host_wide_net[0]), cmp_key))
		s = NT_SCOPE_NETNS;
	free(k);
	return s;
}

enum nt_scope nt_setting_scope(enum nt_kind_id k, const char *arg)
{
	if (nt_kinds[k].scope == NT_SCOPE_BY_KEY)
		return arg ? nt_sysctl_scope(arg) : NT_SCOPE_HOST;
	return nt_kinds[k].scope;
}

/* What the error names: "sysctl vm.swappiness", "IRQ affinity of eth0". */
static char *describe(enum nt_kind_id k, const char *object, const char *arg)
{
	switch (k) {
	case NT_K_SYSCTL:
		return nt_xasprintf("sysctl %s", arg ? arg : "");
	case NT_K_IRQ_AFFINITY:
		return nt_xasprintf("IRQ affinity of %s's queues (/proc/irq)", object);
	case NT_K_IRQBALANCE_BAN:
		return nt_xstrdup("the irqbalance ban (a drop-in of irqbalance.service)");
	case NT_K_IRQBALANCE_SERVICE:
		return nt_xstrdup("stopping irqbalance.service");
	case NT_K_PROCESS_CPUS:
		return nt_xasprintf("CPU affinity of %s", object);
	default:
		if (arg)
			return nt_xasprintf("%s %s %s", object, nt_kinds[k].name, arg);
		return nt_xasprintf("%s %s", object, nt_kinds[k].name);
	}
}

static bool same_mark(struct nt_mark a, struct nt_mark b)
{
	return a.file == b.file && a.line == b.line && a.col == b.col;
}

struct item {
	enum nt_kind_id kind;
	const char *object, *arg;
	struct nt_mark src;
};

static size_t refuse(const struct item *v, size_t n, const char *only, const char *netns,
		     struct nt_diags *d)
{
	size_t i, j, errs = 0;

	for (i = 0; i < n; i++) {
		char *what;

		if (nt_setting_scope(v[i].kind, v[i].arg) != NT_SCOPE_HOST ||
		    (only && strcmp(v[i].object, only)))
			continue;
		for (j = 0; j < i; j++)
			if (v[j].kind == v[i].kind && !strcmp(v[j].object, v[i].object) &&
			    same_mark(v[j].src, v[i].src))
				break;
		if (j < i && v[i].kind != NT_K_SYSCTL)
			continue;	/* the other queues of the same policy */
		what = describe(v[i].kind, v[i].object, v[i].arg);
		nt_error(d, v[i].src, "netns", "%s is host-wide: --netns %s would change the whole "
			 "host; remove it or apply without --netns", what, netns);
		free(what);
		errs++;
	}
	return errs;
}

size_t nt_netns_refuse_state(const struct nt_state *st, const char *only, const char *netns,
			     struct nt_diags *d)
{
	struct item *v = nt_xcalloc(st->n ? st->n : 1, sizeof(*v));
	size_t i, errs;

	for (i = 0; i < st->n; i++)
		v[i] = (struct item){st->v[i].kind, st->v[i].object, st->v[i].arg, st->v[i].src};
	errs = refuse(v, st->n, only, netns, d);
	free(v);
	return errs;
}

bool nt_netns_refuse_target(const char *target, struct nt_mark m, const char *netns,
			    struct nt_diags *d)
{
	if (!strcmp(target, "linux"))
		return false;
	nt_error(d, m, "netns", "--netns %s: a %s profile has no network namespace to act in; "
		 "plan it without --netns", netns, target);
	return true;
}

size_t nt_netns_refuse_plan(const struct nt_plan *p, const char *netns, struct nt_diags *d)
{
	struct item *v = nt_xcalloc(p->n ? p->n : 1, sizeof(*v));
	size_t i, errs;

	for (i = 0; i < p->n; i++)
		v[i] = (struct item){p->v[i].kind, p->v[i].object, p->v[i].arg, p->v[i].src};
	errs = refuse(v, p->n, NULL, netns, d);
	free(v);
	return errs;
}
