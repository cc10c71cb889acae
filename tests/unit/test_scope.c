/* SPDX-License-Identifier: MIT */
/* The scope of every setting kind and sysctl under --netns, and the refusal text. */
#include <CUnit/Basic.h>
#include <stdlib.h>
#include <string.h>

#include "scope.h"

/* The scope each kind must declare (settings.c), written out again so that
 * changing a row is a visible decision. */
static const enum nt_scope want_scope[NT_K__COUNT] = {
	[NT_K_SYSCTL] = NT_SCOPE_BY_KEY,
	[NT_K_MTU] = NT_SCOPE_NETNS,
	[NT_K_FEATURE] = NT_SCOPE_NETNS,
	[NT_K_CHANNELS] = NT_SCOPE_NETNS,
	[NT_K_RING] = NT_SCOPE_NETNS,
	[NT_K_COALESCE] = NT_SCOPE_NETNS,
	[NT_K_COALESCE_ADAPTIVE] = NT_SCOPE_NETNS,
	[NT_K_RSS_HFUNC] = NT_SCOPE_NETNS,
	[NT_K_RSS_KEY] = NT_SCOPE_NETNS,
	[NT_K_RSS_INDIR] = NT_SCOPE_NETNS,
	[NT_K_IRQ_AFFINITY] = NT_SCOPE_HOST,
	[NT_K_RPS_CPUS] = NT_SCOPE_NETNS,
	[NT_K_RPS_FLOW_CNT] = NT_SCOPE_NETNS,
	[NT_K_XPS_CPUS] = NT_SCOPE_NETNS,
	[NT_K_IRQBALANCE_BAN] = NT_SCOPE_HOST,
	[NT_K_IRQBALANCE_SERVICE] = NT_SCOPE_HOST,
	[NT_K_PROCESS_CPUS] = NT_SCOPE_HOST,
	[NT_K_TXQLEN] = NT_SCOPE_NETNS,
	[NT_K_PAUSE] = NT_SCOPE_NETNS,
	[NT_K_PRIV_FLAG] = NT_SCOPE_NETNS,
	[NT_K_FLOW_HASH] = NT_SCOPE_NETNS,
	/* Windows kinds: NT_SCOPE_HOST (zero), no network namespaces there */
};

static void test_kinds(void)
{
	size_t k;

	for (k = 0; k < NT_K__COUNT; k++) {
		CU_ASSERT_EQUAL(nt_kinds[k].scope, want_scope[k]);
		if (nt_kinds[k].flags & NT_KF_WINDOWS)
			CU_ASSERT_EQUAL(nt_kinds[k].scope, NT_SCOPE_HOST);
	}
	CU_ASSERT_EQUAL(nt_setting_scope(NT_K_SYSCTL, "net.ipv4.ip_forward"), NT_SCOPE_NETNS);
	CU_ASSERT_EQUAL(nt_setting_scope(NT_K_SYSCTL, "vm.swappiness"), NT_SCOPE_HOST);
	CU_ASSERT_EQUAL(nt_setting_scope(NT_K_SYSCTL, NULL), NT_SCOPE_HOST);
	CU_ASSERT_EQUAL(nt_setting_scope(NT_K_RPS_CPUS, "0"), NT_SCOPE_NETNS);
}

static void test_sysctls(void)
{
	static const struct {
		const char *key;
		enum nt_scope want;
	} cases[] = {
		/* outside net.*: one value for the host */
		{"vm.swappiness", NT_SCOPE_HOST},
		{"kernel.sched_autogroup_enabled", NT_SCOPE_HOST},
		{"fs.file-max", NT_SCOPE_HOST},
		{"netfoo.bar", NT_SCOPE_HOST},
		/* net_core_table, registered for init_net only */
		{"net.core.netdev_max_backlog", NT_SCOPE_HOST},
		{"net.core.netdev_budget", NT_SCOPE_HOST},
		{"net.core.netdev_budget_usecs", NT_SCOPE_HOST},
		{"net.core.dev_weight", NT_SCOPE_HOST},
		{"net.core.rps_sock_flow_entries", NT_SCOPE_HOST},
		{"net.core.default_qdisc", NT_SCOPE_HOST},
		{"net.core.busy_poll", NT_SCOPE_HOST},
		/* read-only outside init_net (commit 19249c0724f2) */
		{"net.core.rmem_max", NT_SCOPE_HOST},
		{"net.core.wmem_max", NT_SCOPE_HOST},
		{"net.core.rmem_default", NT_SCOPE_HOST},
		{"net.core.wmem_default", NT_SCOPE_HOST},
		{"net/core/rmem_max", NT_SCOPE_HOST},
		{"net.ipv4.tcp_mem", NT_SCOPE_HOST},
		{"net.ipv4.udp_mem", NT_SCOPE_HOST},
		{"net.ipv4.route.max_size", NT_SCOPE_HOST},
		{"net.ipv6.mld_max_msf", NT_SCOPE_HOST},
		{"net.netfilter.nf_conntrack_max", NT_SCOPE_HOST},
		/* netns_core_table and the per-namespace ipv4/ipv6 tables */
		{"net.core.somaxconn", NT_SCOPE_NETNS},
		{"net.core.optmem_max", NT_SCOPE_NETNS},
		{"net.core.xfrm_larval_drop", NT_SCOPE_NETNS},
		{"net.ipv4.ip_forward", NT_SCOPE_NETNS},
		{"net/ipv4/ip_forward", NT_SCOPE_NETNS},
		{"net.ipv4.tcp_rmem", NT_SCOPE_NETNS},
		{"net.ipv4.tcp_wmem", NT_SCOPE_NETNS},
		{"net.ipv4.tcp_congestion_control", NT_SCOPE_NETNS},
		{"net.ipv4.conf.all.rp_filter", NT_SCOPE_NETNS},
		{"net.ipv4.route.min_pmtu", NT_SCOPE_NETNS},
		{"net.ipv6.conf.default.mtu", NT_SCOPE_NETNS},
		{"net.ipv4.udp_rmem_min", NT_SCOPE_NETNS},
		{"net.netfilter.nf_conntrack_tcp_timeout_established", NT_SCOPE_NETNS},
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		enum nt_scope got = nt_sysctl_scope(cases[i].key);

		if (got != cases[i].want)
			fprintf(stderr, "  %s: scope %d, want %d\n", cases[i].key, got, cases[i].want);
		CU_ASSERT_EQUAL(got, cases[i].want);
	}
}

static char *diag_text(const struct nt_diags *d, size_t i)
{
	return nt_xasprintf("%s:%u:%u: %s", d->v[i].mark.file, d->v[i].mark.line,
			    d->v[i].mark.col, d->v[i].msg);
}

static void assert_diag(const struct nt_diags *d, size_t i, const char *want)
{
	char *got;

	CU_ASSERT_FATAL(i < d->n);
	got = diag_text(d, i);
	if (strcmp(got, want))
		fprintf(stderr, "  got:  %s\n  want: %s\n", got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	CU_ASSERT_EQUAL(d->v[i].sev, NT_ERROR);
	free(got);
}

/* One error per host-wide setting, one per interface for its queue IRQs,
 * none for what the namespace owns. */
static void test_refuse(void)
{
	const char *f = nt_intern("p.yaml");
	struct nt_mark swap = {f, 6, 18}, fwd = {f, 7, 24}, irq = {f, 12, 10}, mtu = {f, 11, 10};
	struct nt_mark ban = {f, 12, 40}, proc = {f, 20, 11};
	struct nt_cpuset c;
	struct nt_state st = {0};
	struct nt_diags d = {0};
	const char *why = "would change the whole host; remove it or apply without --netns";
	char *w;

	nt_cpuset_clear(&c);
	nt_cpuset_set(&c, 1);
	nt_state_set(&st, NT_K_SYSCTL, "sysctl", "vm.swappiness", nt_v_str("10"), swap);
	nt_state_set(&st, NT_K_SYSCTL, "sysctl", "net.ipv4.ip_forward", nt_v_str("1"), fwd);
	nt_state_set(&st, NT_K_MTU, "eth0", NULL, nt_v_u32(9000), mtu);
	nt_state_set(&st, NT_K_IRQ_AFFINITY, "eth0", "0", nt_v_cpus(&c), irq);
	nt_state_set(&st, NT_K_IRQ_AFFINITY, "eth0", "1", nt_v_cpus(&c), irq);
	nt_state_set(&st, NT_K_RPS_CPUS, "eth0", "0", nt_v_cpus(&c), irq);
	nt_state_set(&st, NT_K_IRQBALANCE_SERVICE, "irqbalance", NULL, nt_v_str("stopped"), ban);
	nt_state_set(&st, NT_K_PROCESS_CPUS, "process nginx", NULL, nt_v_cpus(&c), proc);

	CU_ASSERT_EQUAL(nt_netns_refuse_state(&st, NULL, "lab", &d), 4);
	CU_ASSERT_EQUAL(d.n, 4);
	w = nt_xasprintf("p.yaml:6:18: sysctl vm.swappiness is host-wide: --netns lab %s", why);
	assert_diag(&d, 0, w);
	free(w);
	w = nt_xasprintf("p.yaml:12:10: IRQ affinity of eth0's queues (/proc/irq) is host-wide: "
			 "--netns lab %s", why);
	assert_diag(&d, 1, w);
	free(w);
	w = nt_xasprintf("p.yaml:12:40: stopping irqbalance.service is host-wide: --netns lab %s",
			 why);
	assert_diag(&d, 2, w);
	free(w);
	w = nt_xasprintf("p.yaml:20:11: CPU affinity of process nginx is host-wide: --netns lab %s",
			 why);
	assert_diag(&d, 3, w);
	free(w);
	nt_diags_free(&d);

	/* apply --only eth0 writes eth0's settings only: its IRQs are refused */
	CU_ASSERT_EQUAL(nt_netns_refuse_state(&st, "eth0", "lab", &d), 1);
	CU_ASSERT_EQUAL(d.n, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(d.v[0].msg, "IRQ affinity of eth0's queues"));
	nt_diags_free(&d);
	CU_ASSERT_EQUAL(nt_netns_refuse_state(&st, "eth1", "lab", &d), 0);
	nt_diags_free(&d);
	nt_state_free(&st);

	/* what the namespace owns passes */
	nt_state_set(&st, NT_K_SYSCTL, "sysctl", "net.core.somaxconn", nt_v_str("1024"), fwd);
	nt_state_set(&st, NT_K_XPS_CPUS, "eth0", "0", nt_v_cpus(&c), irq);
	CU_ASSERT_EQUAL(nt_netns_refuse_state(&st, NULL, "lab", &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	nt_diags_free(&d);
	nt_state_free(&st);
}

/* A PLAN.json's actions carry their profile positions: refused alike. */
static void test_refuse_plan_target(void)
{
	const char *f = nt_intern("p.yaml");
	struct nt_action a[3] = {
		{.kind = NT_K_IRQ_AFFINITY, .object = "eth0", .arg = "0", .src = {f, 9, 14}},
		{.kind = NT_K_IRQ_AFFINITY, .object = "eth0", .arg = "1", .src = {f, 9, 14}},
		{.kind = NT_K_SYSCTL, .object = "sysctl", .arg = "net.core.netdev_budget",
		 .src = {f, 5, 27}},
	};
	struct nt_plan p = {.v = a, .n = 3};
	struct nt_diags d = {0};
	char *w;

	CU_ASSERT_EQUAL(nt_netns_refuse_plan(&p, "lab", &d), 2);
	CU_ASSERT_EQUAL(d.n, 2);
	w = nt_xasprintf("p.yaml:9:14: IRQ affinity of eth0's queues (/proc/irq) is host-wide: "
			 "--netns lab would change the whole host; remove it or apply without "
			 "--netns");
	assert_diag(&d, 0, w);
	free(w);
	w = nt_xasprintf("p.yaml:5:27: sysctl net.core.netdev_budget is host-wide: --netns lab "
			 "would change the whole host; remove it or apply without --netns");
	assert_diag(&d, 1, w);
	free(w);
	nt_diags_free(&d);

	CU_ASSERT_FALSE(nt_netns_refuse_target("linux", (struct nt_mark){f, 4, 9}, "lab", &d));
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_TRUE(nt_netns_refuse_target("windows", (struct nt_mark){f, 4, 9}, "lab", &d));
	assert_diag(&d, 0, "p.yaml:4:9: --netns lab: a windows profile has no network namespace "
		    "to act in; plan it without --netns");
	nt_diags_free(&d);
}

int main(void)
{
	CU_pSuite s;
	unsigned fails;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("scope", NULL, NULL);
	CU_add_test(s, "every kind declares its scope", test_kinds);
	CU_add_test(s, "sysctl scope by key, from the kernel's tables", test_sysctls);
	CU_add_test(s, "--netns refusals: located, one per policy", test_refuse);
	CU_add_test(s, "--netns refusals of a plan and of a windows target", test_refuse_plan_target);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_failure_records();
	CU_cleanup_registry();
	nt_intern_free();
	return fails ? 1 : 0;
}
