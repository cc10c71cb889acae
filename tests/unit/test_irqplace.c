/* SPDX-License-Identifier: MIT */
/* IRQ placement: the placement primitives and the irq policies through
 * Linux lowering, with the exact CPU of every queue. */
#include "nt_test.h"

static void cands_of(struct nt_cpuset *s, const char *list)
{
	const char *err;

	CU_ASSERT_TRUE_FATAL(nt_cpuset_parse(list, s, &err));
}

static void test_one_node_no_smt(void)
{
	struct nt_facts f;
	struct nt_placement p;
	struct nt_cpuset c;
	unsigned q;

	nt_facts_init(&f);
	t_topo(&f, 1, 8, false);
	cands_of(&c, "1-7");		/* CPU 0 reserved */
	nt_placement_init(&p, &c, &f);
	CU_ASSERT_EQUAL(p.ncores, 7);
	CU_ASSERT_EQUAL(p.nsiblings, 0);
	for (q = 0; q < 7; q++)
		CU_ASSERT_EQUAL(nt_placement_spread(&p, q), (int)q + 1);
	/* more queues than cores: wrap to the first core again */
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 7), 1);
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 9), 3);
	nt_facts_free(&f);
}

static void test_one_node_smt(void)
{
	struct nt_facts f;
	struct nt_placement p;
	struct nt_cpuset c;

	nt_facts_init(&f);
	t_topo(&f, 1, 4, true);		/* cores 0-3, siblings 4-7 */
	cands_of(&c, "0-7");
	nt_placement_init(&p, &c, &f);
	CU_ASSERT_EQUAL(p.ncores, 4);
	CU_ASSERT_EQUAL(p.nsiblings, 4);
	CU_ASSERT_EQUAL(p.cores[0], 0);
	CU_ASSERT_EQUAL(p.cores[3], 3);
	CU_ASSERT_EQUAL(p.siblings[0], 4);
	CU_ASSERT_EQUAL(p.siblings[3], 7);
	/* every core first, then the siblings, then wrap (nettune-profile(5)) */
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 3), 3);
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 4), 4);
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 7), 7);
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 8), 0);
	/* reserving a core's first thread leaves its sibling a sibling */
	cands_of(&c, "1-3,5-7");
	nt_placement_init(&p, &c, &f);
	CU_ASSERT_EQUAL(p.ncores, 3);
	CU_ASSERT_EQUAL(p.cores[0], 1);
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 3), 5);
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 6), 1);
	/* a candidate set of siblings only: the sibling stands for its core */
	cands_of(&c, "5,6");
	nt_placement_init(&p, &c, &f);
	CU_ASSERT_EQUAL(p.ncores, 2);
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 1), 6);
	nt_facts_free(&f);
}

static void test_two_nodes(void)
{
	struct nt_facts f;
	struct nt_placement p;
	struct nt_cpuset c;
	unsigned q;

	nt_facts_init(&f);
	t_topo(&f, 2, 14, true);	/* the seed 001 host */
	c = f.node_cpus[0];
	CU_ASSERT_EQUAL(nt_cpuset_count(&c), 28);
	nt_cpuset_clear(&c);
	cands_of(&c, "1-13,29-41");
	nt_placement_init(&p, &c, &f);
	CU_ASSERT_EQUAL(p.ncores, 13);
	CU_ASSERT_EQUAL(p.nsiblings, 13);
	for (q = 0; q < 13; q++)
		CU_ASSERT_EQUAL(nt_placement_spread(&p, q), (int)q + 1);
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 13), 29);	/* the siblings next */
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 25), 41);
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 26), 1);	/* then wrap */
	c = f.node_cpus[1];
	nt_placement_init(&p, &c, &f);
	CU_ASSERT_EQUAL(p.ncores, 14);
	for (q = 0; q < 14; q++)
		CU_ASSERT_EQUAL(nt_placement_spread(&p, q), (int)q + 14);
	nt_facts_free(&f);
}

static void test_no_topology(void)
{
	struct nt_placement p;
	struct nt_cpuset c;

	/* without topology every CPU counts as a core of its own */
	cands_of(&c, "2,4,6");
	nt_placement_init(&p, &c, NULL);
	CU_ASSERT_EQUAL(p.ncores, 3);
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 4), 4);
	nt_cpuset_clear(&c);
	nt_placement_init(&p, &c, NULL);
	CU_ASSERT_EQUAL(nt_placement_spread(&p, 0), -1);
}

/* --- through nt_lower_linux ------------------------------------------ */

static void lower_yaml(struct lowered *x, const char *yaml)
{
	x->errors = 0;
	memset(&x->d, 0, sizeof(x->d));
	memset(&x->obs, 0, sizeof(x->obs));
	memset(&x->des, 0, sizeof(x->des));
	if (t_load("irq.yaml", yaml, &x->l))
		return;
	x->errors = t_lower(&x->l, &x->f, &x->obs, &x->des, &x->d, NULL);
}

/* Asserts queue q of ifname is placed on exactly `want`. */
static void expect_irq(struct lowered *x, const char *ifname, unsigned q, const char *want)
{
	char arg[16], *got;

	snprintf(arg, sizeof(arg), "%u", q);
	got = t_cpus(&x->des, ifname, NT_K_IRQ_AFFINITY, arg);
	if (strcmp(got, want))
		fprintf(stderr, "\n  %s queue %u: got '%s', want '%s'\n", ifname, q, got, want);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

static size_t count_kind(const struct nt_state *st, enum nt_kind_id k)
{
	size_t i, n = 0;

	for (i = 0; i < st->n; i++)
		n += st->v[i].kind == k;
	return n;
}

#define PROFILE_2NODE(extra_iface)                                      \
	"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\n" \
	"target: linux\nhost:\n"                                           \
	"  numa:\n    - {node: 0, cpus: \"0-13,28-41\"}\n"                 \
	"    - {node: 1, cpus: \"14-27,42-55\"}\n"                         \
	"  reserved_cpus: \"0,28\"\ninterfaces:\n"                         \
	"  - name: enp1s0f0\n    nic: intel-x710\n" extra_iface

static void test_lower_node0_reserved(void)
{
	struct lowered x;
	const struct nt_setting *ban;
	unsigned q;

	nt_facts_init(&x.f);
	t_topo(&x.f, 2, 14, true);
	t_nic(&x.f, "enp1s0f0", 0, 13, 135);
	lower_yaml(&x, PROFILE_2NODE(
		"    channels: {combined: 13}\n"
		"    irq: {policy: numa-local-spread, irqbalance: ban}\n"));
	CU_ASSERT_EQUAL(x.errors, 0);
	CU_ASSERT_EQUAL(count_kind(&x.des, NT_K_IRQ_AFFINITY), 13);
	for (q = 0; q < 13; q++) {
		char want[8];

		snprintf(want, sizeof(want), "%u", q + 1);
		expect_irq(&x, "enp1s0f0", q, want);
	}
	ban = nt_state_get(&x.des, NT_K_IRQBALANCE_BAN, "irqbalance", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ban);
	CU_ASSERT_STRING_EQUAL(ban->val.s, "135,136,137,138,139,140,141,142,143,144,145,146,147");
	t_lowered_free(&x);
}

static void test_lower_node1(void)
{
	struct lowered x;
	unsigned q;

	nt_facts_init(&x.f);
	t_topo(&x.f, 2, 14, true);
	t_nic(&x.f, "enp1s0f0", 1, 14, 200);
	lower_yaml(&x, PROFILE_2NODE(
		"    channels: {combined: 14}\n"
		"    irq: {policy: numa-local-spread}\n"));
	CU_ASSERT_EQUAL(x.errors, 0);
	for (q = 0; q < 14; q++) {
		char want[8];

		snprintf(want, sizeof(want), "%u", q + 14);
		expect_irq(&x, "enp1s0f0", q, want);
	}
	t_lowered_free(&x);
}

static void test_lower_wrap(void)
{
	struct lowered x;
	size_t i;
	bool warned = false;

	nt_facts_init(&x.f);
	t_topo(&x.f, 2, 14, true);
	t_nic(&x.f, "enp1s0f0", 0, 16, 135);
	lower_yaml(&x, PROFILE_2NODE(
		"    channels: {combined: 16}\n"
		"    irq: {policy: numa-local-spread}\n"));
	CU_ASSERT_EQUAL(x.errors, 0);
	expect_irq(&x, "enp1s0f0", 12, "13");
	expect_irq(&x, "enp1s0f0", 13, "29");	/* the first core's sibling, */
	expect_irq(&x, "enp1s0f0", 14, "30");	/* not a core twice or node 1 */
	expect_irq(&x, "enp1s0f0", 15, "31");
	for (i = 0; i < x.d.n; i++)
		if (x.d.v[i].sev == NT_WARNING && strstr(x.d.v[i].msg, "share cores"))
			warned = !strcmp(x.d.v[i].msg, "enp1s0f0 has 16 queues but node 0 has 13 usable "
					 "physical cores; queues 13 and later share cores: on the SMT siblings");
	CU_ASSERT_TRUE(warned);
	t_lowered_free(&x);
}

static void test_lower_one_node_no_smt(void)
{
	struct lowered x;

	nt_facts_init(&x.f);
	t_topo(&x.f, 1, 8, false);
	/* virtual NIC without a NUMA node: a single-node host has only node 0 */
	t_nic(&x.f, "eth0", -1, 4, 30);
	lower_yaml(&x,
		"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\n"
		"target: linux\nhost:\n  numa:\n    - {node: 0, cpus: \"0-7\"}\n"
		"  reserved_cpus: \"0\"\ninterfaces:\n  - name: eth0\n"
		"    channels: {combined: 4}\n    irq: {policy: numa-local-spread}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	expect_irq(&x, "eth0", 0, "1");
	expect_irq(&x, "eth0", 1, "2");
	expect_irq(&x, "eth0", 2, "3");
	expect_irq(&x, "eth0", 3, "4");
	t_lowered_free(&x);
}

static void test_lower_unknown_node_two_nodes(void)
{
	struct lowered x;
	char *e;

	nt_facts_init(&x.f);
	t_topo(&x.f, 2, 4, false);
	t_nic(&x.f, "eth0", -1, 2, 30);
	lower_yaml(&x,
		"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\n"
		"target: linux\ninterfaces:\n  - name: eth0\n"
		"    channels: {combined: 2}\n    irq: {policy: numa-local-spread}\n");
	CU_ASSERT_EQUAL(x.errors, 1);
	e = t_first_error(&x.d);
	CU_ASSERT_STRING_EQUAL(e, "irq.yaml:8:19: the NUMA node of eth0 is unknown (numa_node -1); "
			       "numa-local-spread needs it: use all-cpus or explicit");
	free(e);
	t_lowered_free(&x);
}

static void test_lower_all_cpus(void)
{
	struct lowered x;

	nt_facts_init(&x.f);
	t_topo(&x.f, 1, 4, true);	/* cores 0-3, siblings 4-7 */
	t_nic(&x.f, "eth0", 0, 8, 40);
	lower_yaml(&x,
		"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\n"
		"target: linux\nhost:\n  numa:\n    - {node: 0, cpus: \"0-7\"}\n"
		"  reserved_cpus: \"0,4\"\ninterfaces:\n  - name: eth0\n"
		"    channels: {combined: 8}\n    irq: {policy: all-cpus}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	/* physical cores first, then their siblings, reserved never */
	expect_irq(&x, "eth0", 0, "1");
	expect_irq(&x, "eth0", 1, "2");
	expect_irq(&x, "eth0", 2, "3");
	expect_irq(&x, "eth0", 3, "5");
	expect_irq(&x, "eth0", 4, "6");
	expect_irq(&x, "eth0", 5, "7");
	expect_irq(&x, "eth0", 6, "1");
	expect_irq(&x, "eth0", 7, "2");
	t_lowered_free(&x);
}

static void test_lower_all_cpus_list(void)
{
	struct lowered x;

	nt_facts_init(&x.f);
	t_topo(&x.f, 1, 8, false);
	t_nic(&x.f, "eth0", 0, 3, 40);
	lower_yaml(&x,
		"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\n"
		"target: linux\ninterfaces:\n  - name: eth0\n"
		"    channels: {combined: 3}\n    irq: {policy: all-cpus, cpus: \"4-5\"}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	expect_irq(&x, "eth0", 0, "4");
	expect_irq(&x, "eth0", 1, "5");
	expect_irq(&x, "eth0", 2, "4");
	t_lowered_free(&x);
}

static void test_lower_explicit(void)
{
	struct lowered x;

	nt_facts_init(&x.f);
	t_topo(&x.f, 1, 8, false);
	t_nic(&x.f, "eth0", 0, 2, 40);
	x.f.ifs[0].irqs[1].managed = true;
	lower_yaml(&x,
		"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\n"
		"target: linux\ninterfaces:\n  - name: eth0\n"
		"    channels: {combined: 2}\n"
		"    irq: {policy: explicit, per_queue: [\"2\", \"3-4\"]}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	expect_irq(&x, "eth0", 0, "2");
	expect_irq(&x, "eth0", 1, "3-4");
	/* a kernel-managed IRQ refuses affinity writes */
	CU_ASSERT_FALSE(nt_state_get(&x.des, NT_K_IRQ_AFFINITY, "eth0", "0")->flags &
			NT_SF_CANNOT_CHANGE);
	CU_ASSERT_TRUE(nt_state_get(&x.des, NT_K_IRQ_AFFINITY, "eth0", "1")->flags &
		       NT_SF_CANNOT_CHANGE);
	t_lowered_free(&x);

	nt_facts_init(&x.f);
	t_topo(&x.f, 1, 8, false);
	t_nic(&x.f, "eth0", 0, 3, 40);
	lower_yaml(&x,
		"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\n"
		"target: linux\ninterfaces:\n  - name: eth0\n"
		"    channels: {combined: 3}\n"
		"    irq: {policy: explicit, cpus: \"6-7\"}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	expect_irq(&x, "eth0", 0, "6-7");
	expect_irq(&x, "eth0", 2, "6-7");
	t_lowered_free(&x);
}

static void test_lower_all_reserved(void)
{
	struct lowered x;
	char *e;

	nt_facts_init(&x.f);
	t_topo(&x.f, 1, 2, true);
	t_nic(&x.f, "eth0", 0, 2, 40);
	lower_yaml(&x,
		"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\n"
		"target: linux\nhost:\n  reserved_cpus: \"0-3\"\ninterfaces:\n  - name: eth0\n"
		"    channels: {combined: 2}\n    irq: {policy: numa-local-spread}\n");
	CU_ASSERT_EQUAL(x.errors, 1);
	CU_ASSERT_EQUAL(count_kind(&x.des, NT_K_IRQ_AFFINITY), 0);
	e = t_first_error(&x.d);
	CU_ASSERT_STRING_EQUAL(e, "irq.yaml:10:19: numa-local-spread leaves no usable CPU for eth0 "
			       "after reserved CPUs are removed");
	free(e);
	t_lowered_free(&x);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("irqplace", NULL, NULL);
	CU_add_test(s, "1 node, no SMT, reserved CPU, wrap", test_one_node_no_smt);
	CU_add_test(s, "1 node with SMT siblings", test_one_node_smt);
	CU_add_test(s, "2 nodes (seed 001 host)", test_two_nodes);
	CU_add_test(s, "no topology", test_no_topology);
	CU_add_test(s, "lower: node 0, reserved 0/28, 13 queues", test_lower_node0_reserved);
	CU_add_test(s, "lower: NIC on node 1", test_lower_node1);
	CU_add_test(s, "lower: more queues than cores", test_lower_wrap);
	CU_add_test(s, "lower: 1 node, no SMT", test_lower_one_node_no_smt);
	CU_add_test(s, "lower: unknown NIC node on 2 nodes", test_lower_unknown_node_two_nodes);
	CU_add_test(s, "lower: all-cpus", test_lower_all_cpus);
	CU_add_test(s, "lower: all-cpus with a list", test_lower_all_cpus_list);
	CU_add_test(s, "lower: explicit", test_lower_explicit);
	CU_add_test(s, "lower: every CPU reserved", test_lower_all_reserved);
	return t_run(s);
}
