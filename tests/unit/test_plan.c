/* SPDX-License-Identifier: MIT */
/* Diff and plan: each ordering rule asserted on the action order, the
 * flags, and re-planning a converged host yields nothing. */
#include "nt_test.h"

#define HEAD \
	"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h}\n" \
	"target: linux\ninterfaces:\n"

struct planned {
	struct nt_loaded l;
	struct nt_facts f;
	struct nt_state obs, des;
	struct nt_diags d;
	struct nt_plan p;
	size_t errors;
};

static void px_init(struct planned *x)
{
	memset(x, 0, sizeof(*x));
	nt_facts_init(&x->f);
}

static void px_plan(struct planned *x, const char *yaml)
{
	if (t_load("plan.yaml", yaml, &x->l))
		return;
	x->errors = t_lower(&x->l, &x->f, &x->obs, &x->des, &x->d, NULL);
	CU_ASSERT_EQUAL(x->errors, 0);
	t_plan(&x->l, &x->f, &x->obs, &x->des, &x->p);
}

static void px_free(struct planned *x)
{
	nt_plan_free(&x->p);
	nt_state_free(&x->des);
	nt_state_free(&x->obs);
	nt_facts_free(&x->f);
	nt_loaded_free(&x->l);
	nt_diags_free(&x->d);
}

static void obs_u32(struct planned *x, enum nt_kind_id k, const char *obj, const char *arg,
		    uint32_t v)
{
	nt_state_set(&x->obs, k, obj, arg, nt_v_u32(v), (struct nt_mark){0});
}

static void obs_bool(struct planned *x, const char *obj, const char *feature, bool v)
{
	nt_state_set(&x->obs, NT_K_FEATURE, obj, feature, nt_v_bool(v), (struct nt_mark){0});
}

static void obs_indir(struct planned *x, const char *obj, size_t size, uint32_t queues)
{
	uint32_t *l = nt_xmalloc(size * sizeof(*l));
	size_t i;

	for (i = 0; i < size; i++)
		l[i] = (uint32_t)(i % queues);
	nt_state_set(&x->obs, NT_K_RSS_INDIR, obj, NULL, nt_v_list(l, size), (struct nt_mark){0});
	free(l);
}

/* Position of (obj, attr) in the plan; fails the test when absent. */
static int at(struct planned *x, const char *obj, const char *attr)
{
	int i = t_find(&x->p, obj, attr);

	if (i < 0)
		fprintf(stderr, "\n  no action %s %s\n", obj, attr);
	CU_ASSERT_FATAL(i >= 0);
	return i;
}

static void nic8(struct planned *x)
{
	t_topo(&x->f, 1, 8, false);
	t_nic(&x->f, "eth0", 0, 8, 60);
}

static void test_channels_first(void)
{
	struct planned x;
	int ch, q;
	char attr[32];

	px_init(&x);
	nic8(&x);
	obs_u32(&x, NT_K_CHANNELS, "eth0", "combined", 4);
	px_plan(&x, HEAD "  - name: eth0\n    nic: intel-x710\n    channels: {combined: 8}\n"
		"    rss: {spread: equal}\n    irq: {policy: all-cpus, irqbalance: ignore}\n"
		"    rps: {cpus: \"1-3\"}\n    xps: {cpus: follow-irq}\n");
	ch = at(&x, "eth0", "channels combined");
	CU_ASSERT(ch < at(&x, "eth0", "rss-indir"));
	for (q = 0; q < 8; q++) {
		snprintf(attr, sizeof(attr), "irq-affinity %d", q);
		CU_ASSERT(ch < at(&x, "eth0", attr));
		snprintf(attr, sizeof(attr), "rps-cpus %d", q);
		CU_ASSERT(ch < at(&x, "eth0", attr));
		CU_ASSERT(at(&x, "eth0", "rss-indir") < at(&x, "eth0", attr));
		snprintf(attr, sizeof(attr), "xps-cpus %d", q);
		CU_ASSERT(ch < at(&x, "eth0", attr));
		snprintf(attr, sizeof(attr), "irq-affinity %d", q);
		CU_ASSERT(at(&x, "eth0", attr) < at(&x, "eth0", "rps-cpus 0"));
	}
	/* growing the queue count needs no RSS reset */
	CU_ASSERT_FALSE(x.p.v[at(&x, "eth0", "rss-indir")].flags & NT_SF_RESET);
	px_free(&x);
}

static void test_rss_reset_before_shrink(void)
{
	struct planned x;
	const struct nt_action *a;
	size_t i;

	/* the profile's own table moves before the shrink */
	px_init(&x);
	t_topo(&x.f, 1, 8, false);
	t_nic(&x.f, "eth0", 0, 16, 60);
	obs_u32(&x, NT_K_CHANNELS, "eth0", "combined", 16);
	obs_indir(&x, "eth0", 512, 16);
	px_plan(&x, HEAD "  - name: eth0\n    nic: intel-x710\n    channels: {combined: 8}\n"
		"    rss: {spread: equal}\n");
	CU_ASSERT(at(&x, "eth0", "rss-indir") < at(&x, "eth0", "channels combined"));
	a = &x.p.v[at(&x, "eth0", "rss-indir")];
	CU_ASSERT_TRUE(a->flags & NT_SF_RESET);
	CU_ASSERT_STRING_EQUAL(a->note, "before channels: the current table uses queue 15, which "
			       "shrinking to 8 removes");
	px_free(&x);

	/* no table in the profile: a reset to the new queue count is inserted */
	px_init(&x);
	t_topo(&x.f, 1, 8, false);
	t_nic(&x.f, "eth0", 0, 16, 60);
	obs_u32(&x, NT_K_CHANNELS, "eth0", "combined", 16);
	obs_indir(&x, "eth0", 128, 16);
	px_plan(&x, HEAD "  - name: eth0\n    nic: intel-x710\n    channels: {combined: 4}\n");
	CU_ASSERT_EQUAL(x.p.n, 2);
	CU_ASSERT(at(&x, "eth0", "rss-indir") < at(&x, "eth0", "channels combined"));
	a = &x.p.v[at(&x, "eth0", "rss-indir")];
	CU_ASSERT_TRUE(a->flags & NT_SF_RESET);
	CU_ASSERT_TRUE(a->has_from);
	CU_ASSERT_EQUAL(a->to.n, 128);
	for (i = 0; i < a->to.n; i++)
		CU_ASSERT(a->to.list[i] < 4);
	CU_ASSERT_STRING_EQUAL(a->note, "reset before shrinking channels: the current table uses queue 15");
	px_free(&x);

	/* the current table already fits the smaller count: nothing inserted */
	px_init(&x);
	t_topo(&x.f, 1, 8, false);
	t_nic(&x.f, "eth0", 0, 16, 60);
	obs_u32(&x, NT_K_CHANNELS, "eth0", "combined", 16);
	obs_indir(&x, "eth0", 128, 4);
	px_plan(&x, HEAD "  - name: eth0\n    nic: intel-x710\n    channels: {combined: 8}\n");
	CU_ASSERT_EQUAL(x.p.n, 1);
	px_free(&x);
}

static void mtu_facts(struct planned *x)
{
	struct nt_iface_facts *w;

	t_topo(&x->f, 1, 4, false);
	t_nic(&x->f, "enp1s0f0", 0, 4, 60);
	w = nt_facts_add_iface(&x->f, "wg0");
	w->kind = nt_xstrdup("wireguard");
}

static void test_mtu_order(void)
{
	static const char yaml[] = HEAD
		"  - name: wg0\n    tunnel: {kind: wireguard, underlay: enp1s0f0, outer: ipv4}\n"
		"  - name: enp1s0f0\n    mtu: %u\n";
	struct planned x;
	char *y;

	/* raising: underlay first */
	px_init(&x);
	mtu_facts(&x);
	obs_u32(&x, NT_K_MTU, "enp1s0f0", NULL, 1500);
	obs_u32(&x, NT_K_MTU, "wg0", NULL, 1440);
	y = nt_xasprintf(yaml, 9000);
	px_plan(&x, y);
	free(y);
	CU_ASSERT_EQUAL(x.p.n, 2);
	CU_ASSERT(at(&x, "enp1s0f0", "mtu") < at(&x, "wg0", "mtu"));
	CU_ASSERT_EQUAL(x.p.v[at(&x, "wg0", "mtu")].to.u, 8940);
	/* a physical link's MTU flaps it; the tunnel's does not */
	CU_ASSERT_TRUE(x.p.v[at(&x, "enp1s0f0", "mtu")].flags & NT_SF_DISRUPTIVE);
	CU_ASSERT_FALSE(x.p.v[at(&x, "wg0", "mtu")].flags & NT_SF_DISRUPTIVE);
	CU_ASSERT_EQUAL(x.p.disruptive, 1);
	px_free(&x);

	/* lowering: tunnel first */
	px_init(&x);
	mtu_facts(&x);
	obs_u32(&x, NT_K_MTU, "enp1s0f0", NULL, 9000);
	obs_u32(&x, NT_K_MTU, "wg0", NULL, 8940);
	y = nt_xasprintf(yaml, 1500);
	px_plan(&x, y);
	free(y);
	CU_ASSERT_EQUAL(x.p.n, 2);
	CU_ASSERT(at(&x, "wg0", "mtu") < at(&x, "enp1s0f0", "mtu"));
	CU_ASSERT_EQUAL(x.p.v[at(&x, "wg0", "mtu")].to.u, 1440);
	px_free(&x);
}

static const char *const tx_feats[] = {
	"rx-checksum", "tx-checksum-ip-generic", "tx-scatter-gather", "tx-tcp-segmentation",
	"tx-tcp6-segmentation", "tx-generic-segmentation", "tx-udp-segmentation",
};

static void feature_host(struct planned *x, bool on)
{
	size_t k;

	mtu_facts(x);
	for (k = 0; k < sizeof(tx_feats) / sizeof(tx_feats[0]); k++)
		obs_bool(x, "enp1s0f0", tx_feats[k], on);
}

static void test_feature_order(void)
{
	static const char yaml[] = HEAD "  - name: enp1s0f0\n"
		"    offloads: {uso: %s, tso: %s, checksum: %s, sg: %s}\n";
	struct planned x;
	char *y;
	int tso, uso, csum, sg, rxcsum;

	/* enabling: prerequisites (checksum, sg) before what needs them */
	px_init(&x);
	feature_host(&x, false);
	y = nt_xasprintf(yaml, "on", "on", "on", "on");
	px_plan(&x, y);
	free(y);
	tso = at(&x, "enp1s0f0", "feature tx-tcp-segmentation");
	uso = at(&x, "enp1s0f0", "feature tx-udp-segmentation");
	csum = at(&x, "enp1s0f0", "feature tx-checksum-ip-generic");
	rxcsum = at(&x, "enp1s0f0", "feature rx-checksum");
	sg = at(&x, "enp1s0f0", "feature tx-scatter-gather");
	CU_ASSERT(csum < tso && sg < tso && csum < uso && rxcsum < tso);
	px_free(&x);

	/* disabling: dependents before their prerequisites */
	px_init(&x);
	feature_host(&x, true);
	y = nt_xasprintf(yaml, "off", "off", "off", "off");
	px_plan(&x, y);
	free(y);
	tso = at(&x, "enp1s0f0", "feature tx-tcp-segmentation");
	uso = at(&x, "enp1s0f0", "feature tx-udp-segmentation");
	csum = at(&x, "enp1s0f0", "feature tx-checksum-ip-generic");
	sg = at(&x, "enp1s0f0", "feature tx-scatter-gather");
	CU_ASSERT(tso < csum && tso < sg && uso < csum);
	px_free(&x);

	/* implied prerequisites come first too */
	px_init(&x);
	feature_host(&x, false);
	px_plan(&x, HEAD "  - name: enp1s0f0\n    offloads: {tso: on}\n");
	tso = at(&x, "enp1s0f0", "feature tx-tcp-segmentation");
	CU_ASSERT(at(&x, "enp1s0f0", "feature tx-checksum-ip-generic") < tso);
	CU_ASSERT(at(&x, "enp1s0f0", "feature tx-scatter-gather") < tso);
	CU_ASSERT_TRUE(x.p.v[at(&x, "enp1s0f0", "feature tx-scatter-gather")].flags & NT_SF_IMPLIED);
	px_free(&x);
}

static void test_flags(void)
{
	struct planned x;
	const struct nt_action *a;

	px_init(&x);
	t_topo(&x.f, 1, 8, false);
	t_nic(&x.f, "eth0", 0, 4, 60);
	obs_u32(&x, NT_K_CHANNELS, "eth0", "combined", 4);
	obs_u32(&x, NT_K_RING, "eth0", "rx", 512);
	obs_u32(&x, NT_K_COALESCE, "eth0", "rx-usecs", 50);
	px_plan(&x, HEAD "  - name: eth0\n    nic: intel-x710\n    channels: {combined: 4}\n"
		"    rings: {rx: 1024}\n    coalesce: {rx_usecs: 50}\n    rss: {key: per-host}\n"
		"sysctl: {net.core.rmem_max: 16777216}\n");
	/* equal values produce no action */
	CU_ASSERT_EQUAL(t_find(&x.p, "eth0", "channels combined"), -1);
	CU_ASSERT_EQUAL(t_find(&x.p, "eth0", "coalesce rx-usecs"), -1);
	CU_ASSERT_EQUAL(x.p.n, 3);
	a = &x.p.v[at(&x, "eth0", "ring rx")];
	CU_ASSERT_TRUE(a->has_from);
	CU_ASSERT_EQUAL(a->from.u, 512);
	CU_ASSERT_EQUAL(a->to.u, 1024);
	CU_ASSERT_TRUE(a->flags & NT_SF_DISRUPTIVE);
	CU_ASSERT_FALSE(a->flags & NT_SF_NOT_OBSERVED);
	a = &x.p.v[at(&x, "eth0", "rss-key")];
	CU_ASSERT_FALSE(a->has_from);
	CU_ASSERT_TRUE(a->flags & NT_SF_NOT_OBSERVED);
	CU_ASSERT_FALSE(a->flags & NT_SF_DISRUPTIVE);
	a = &x.p.v[at(&x, "sysctl", "sysctl net.core.rmem_max")];
	CU_ASSERT_TRUE(a->flags & NT_SF_NOT_OBSERVED);
	CU_ASSERT_FALSE(a->flags & NT_SF_DISRUPTIVE);
	CU_ASSERT_EQUAL(at(&x, "sysctl", "sysctl net.core.rmem_max"), 0);
	CU_ASSERT_EQUAL(x.p.disruptive, 1);
	CU_ASSERT_EQUAL(x.p.cannot, 0);
	CU_ASSERT_STRING_EQUAL(x.p.profile, "h");
	CU_ASSERT_STRING_EQUAL(x.p.target, "linux");
	px_free(&x);
}

/* Plans an example against its snapshot, then against the snapshot with
 * every desired value applied: the second plan must be empty. */
/* observe --profile of a Linux state: the HostProfile it prints loads,
 * validates and plans with no action against that same state. */
static void hostprofile_round_trip(const struct nt_facts *f, const struct nt_state *st,
				   const char *what)
{
	const struct nt_capsdb *db;
	const char **names = nt_xcalloc(f->nifs + 1, sizeof(char *));
	struct nt_buf y = {0};
	struct nt_loaded l;
	struct nt_diags d = {0};
	struct nt_state des = {0};
	struct nt_plan p;
	size_t i;

	db = nt_capsdb_default(&d);
	for (i = 0; i < f->nifs; i++)
		names[i] = f->ifs[i].name;
	nt_hostprofile_linux(f, st, db, names, f->nifs, &y);
	CU_ASSERT_EQUAL_FATAL(t_load("observed.yaml", y.p, &l), 0);
	CU_ASSERT_EQUAL(nt_validate(&l, db, &d), 0);
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_EQUAL(t_lower(&l, f, st, &des, &d, NULL), 0);
	t_plan(&l, f, st, &des, &p);
	for (i = 0; i < p.n; i++) {
		char *a = nt_action_attr(&p.v[i]);

		fprintf(stderr, "\n  observe --profile of %s: plan has %s %s", what, p.v[i].object, a);
		free(a);
	}
	if (p.n || d.errors || getenv("NT_SHOW_HOSTPROFILE"))
		fprintf(stderr, "\n%s", y.p);
	CU_ASSERT_EQUAL(p.n, 0);
	nt_plan_free(&p);
	nt_state_free(&des);
	nt_loaded_free(&l);
	nt_diags_free(&d);
	nt_buf_free(&y);
	free(names);
}

static void converge(const char *example, const char *snapshot)
{
	char *ypath = t_src(example), *spath = t_src(snapshot);
	struct planned x;
	struct nt_state conv = {0}, des2 = {0};
	struct nt_plan p2;
	size_t i;

	px_init(&x);
	CU_ASSERT_EQUAL_FATAL(nt_load_profile(ypath, NULL, &x.l, &x.d), 0);
	CU_ASSERT_EQUAL_FATAL(nt_validate(&x.l, nt_capsdb_default(&x.d), &x.d), 0);
	CU_ASSERT_EQUAL_FATAL(nt_snapshot_load(spath, &x.f, &x.obs, &x.d), 0);
	CU_ASSERT_EQUAL_FATAL(t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL), 0);
	t_plan(&x.l, &x.f, &x.obs, &x.des, &x.p);
	CU_ASSERT(x.p.n > 0);
	for (i = 0; i < x.obs.n; i++) {
		struct nt_value v;

		nt_value_copy(&v, &x.obs.v[i].val);
		nt_state_set(&conv, x.obs.v[i].kind, x.obs.v[i].object, x.obs.v[i].arg, v,
			     x.obs.v[i].src);
	}
	for (i = 0; i < x.p.n; i++) {
		struct nt_value v;

		nt_value_copy(&v, &x.p.v[i].to);
		nt_state_set(&conv, x.p.v[i].kind, x.p.v[i].object, x.p.v[i].arg, v, x.p.v[i].src);
	}
	CU_ASSERT_EQUAL(t_lower(&x.l, &x.f, &conv, &des2, &x.d, NULL), 0);
	t_plan(&x.l, &x.f, &conv, &des2, &p2);
	for (i = 0; i < p2.n; i++) {
		char *a = nt_action_attr(&p2.v[i]);

		fprintf(stderr, "\n  %s: still %s %s", example, p2.v[i].object, a);
		free(a);
	}
	CU_ASSERT_EQUAL(p2.n, 0);
	if (x.f.target && !strcmp(x.f.target, "linux")) {
		/* before (offloads mixed, IRQs spread by irqbalance) and after */
		hostprofile_round_trip(&x.f, &x.obs, snapshot);
		hostprofile_round_trip(&x.f, &conv, "the converged host");
	}
	nt_plan_free(&p2);
	nt_state_free(&des2);
	nt_state_free(&conv);
	px_free(&x);
	free(ypath);
	free(spath);
}

static void test_converged(void)
{
	converge("examples/x710-wireguard-gateway.yaml", "examples/states/x710-wireguard-gateway.json");
	converge("examples/veth-lab.yaml", "examples/states/veth-lab.json");
	converge("examples/x710-udp-gateway.yaml", "examples/states/x710-udp-gateway.json");
	converge("examples/windows-wireguard-host.yaml", "examples/states/windows-wireguard-host.json");
	converge("examples/windows-uro-workstation.yaml",
		 "examples/states/windows-uro-workstation.json");
}

static void test_seed_gateway_order(void)
{
	char *ypath = t_src("examples/x710-wireguard-gateway.yaml");
	char *spath = t_src("examples/states/x710-wireguard-gateway.json");
	struct planned x;
	int ch;

	px_init(&x);
	CU_ASSERT_EQUAL_FATAL(nt_load_profile(ypath, NULL, &x.l, &x.d), 0);
	CU_ASSERT_EQUAL_FATAL(nt_snapshot_load(spath, &x.f, &x.obs, &x.d), 0);
	CU_ASSERT_EQUAL_FATAL(t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL), 0);
	t_plan(&x.l, &x.f, &x.obs, &x.des, &x.p);
	/* 16 -> 13 queues: the table over 0-15 must go first */
	ch = at(&x, "enp1s0f0", "channels combined");
	CU_ASSERT(at(&x, "enp1s0f0", "rss-indir") < ch);
	CU_ASSERT(ch < at(&x, "enp1s0f0", "irq-affinity 0"));
	CU_ASSERT(ch < at(&x, "enp1s0f0", "irq-affinity 12"));
	CU_ASSERT(at(&x, "enp1s0f0", "feature tx-checksum-ipv4") <
		  at(&x, "enp1s0f0", "feature tx-tcp-segmentation"));
	CU_ASSERT(at(&x, "enp1s0f0", "irq-affinity 12") < at(&x, "irqbalance", "banned-irqs"));
	px_free(&x);
	free(ypath);
	free(spath);
}

/* observe --profile of the UDP gateway snapshot: pause as observed, the
 * default txqueuelen left out, then as changed by hand */
static void test_hostprofile_rows(void)
{
	char *spath = t_src("examples/states/x710-udp-gateway.json");
	const char *names[] = {"enp1s0f0"};
	struct nt_facts f;
	struct nt_state st = {0};
	struct nt_diags d = {0};
	struct nt_buf y = {0};

	CU_ASSERT_EQUAL_FATAL(nt_snapshot_load(spath, &f, &st, &d), 0);
	nt_hostprofile_linux(&f, &st, NULL, names, 1, &y);
	CU_ASSERT_PTR_NOT_NULL(strstr(y.p, "\n    pause: {autoneg: off, rx: on, tx: on}\n"));
	CU_ASSERT_PTR_NULL(strstr(y.p, "txqueuelen"));
	nt_buf_free(&y);
	nt_state_set(&st, NT_K_TXQLEN, "enp1s0f0", NULL, nt_v_u32(10000), (struct nt_mark){0});
	nt_hostprofile_linux(&f, &st, NULL, names, 1, &y);
	CU_ASSERT_PTR_NOT_NULL(strstr(y.p, "\n    txqueuelen: 10000\n"));
	nt_buf_free(&y);
	nt_state_free(&st);
	nt_facts_free(&f);
	nt_diags_free(&d);
	free(spath);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("plan", NULL, NULL);
	CU_add_test(s, "channels before RSS, IRQ affinity, RPS, XPS", test_channels_first);
	CU_add_test(s, "RSS table reset before shrinking channels", test_rss_reset_before_shrink);
	CU_add_test(s, "underlay/tunnel MTU order", test_mtu_order);
	CU_add_test(s, "feature dependency order", test_feature_order);
	CU_add_test(s, "not-observed and disruptive flags", test_flags);
	CU_add_test(s, "seed 001 plan order", test_seed_gateway_order);
	CU_add_test(s, "re-planning a converged host", test_converged);
	CU_add_test(s, "observe --profile: txqueuelen and pause", test_hostprofile_rows);
	return t_run(s);
}
