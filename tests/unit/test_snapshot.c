/* SPDX-License-Identifier: MIT */
/* Snapshots: write/load round trip of every bundled snapshot, and the
 * exact located rejection of untrusted input with nothing half-loaded. */
#include "nt_test.h"

static const char *const bundled[] = {
	"examples/states/x710-wireguard-gateway.json",
	"examples/states/windows-wireguard-host.json",
	"examples/states/windows-uro-workstation.json",
};

static bool str_eq(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static void same_facts(const struct nt_facts *a, const struct nt_facts *b)
{
	size_t i, k;
	int n;

	CU_ASSERT_EQUAL(a->known, b->known);
	CU_ASSERT_TRUE(str_eq(a->hostname, b->hostname));
	CU_ASSERT_TRUE(str_eq(a->target, b->target));
	CU_ASSERT_TRUE(str_eq(a->kernel, b->kernel));
	CU_ASSERT_EQUAL(a->topo_known, b->topo_known);
	CU_ASSERT_TRUE(nt_cpuset_equal(&a->online, &b->online));
	CU_ASSERT_EQUAL(a->nnodes, b->nnodes);
	for (n = 0; n < a->nnodes; n++)
		CU_ASSERT_TRUE(nt_cpuset_equal(&a->node_cpus[n], &b->node_cpus[n]));
	CU_ASSERT_EQUAL(memcmp(a->cpu_core, b->cpu_core, sizeof(a->cpu_core)), 0);
	CU_ASSERT_EQUAL(memcmp(a->cpu_node, b->cpu_node, sizeof(a->cpu_node)), 0);
	CU_ASSERT_EQUAL(a->irqbalance, b->irqbalance);
	CU_ASSERT_EQUAL(a->uro_disabled_mask, b->uro_disabled_mask);
	CU_ASSERT_EQUAL_FATAL(a->ndiagnosis, b->ndiagnosis);
	for (i = 0; i < a->ndiagnosis; i++)
		CU_ASSERT_STRING_EQUAL(a->diagnosis[i], b->diagnosis[i]);
	CU_ASSERT_EQUAL_FATAL(a->nifs, b->nifs);
	for (i = 0; i < a->nifs; i++) {
		const struct nt_iface_facts *x = &a->ifs[i], *y = &b->ifs[i];

		CU_ASSERT_STRING_EQUAL(x->name, y->name);
		CU_ASSERT_TRUE(str_eq(x->kind, y->kind) && str_eq(x->driver, y->driver) &&
			       str_eq(x->pci, y->pci) && str_eq(x->description, y->description) &&
			       str_eq(x->rsc_failure_ipv4, y->rsc_failure_ipv4) &&
			       str_eq(x->rsc_failure_ipv6, y->rsc_failure_ipv6));
		CU_ASSERT_EQUAL(x->numa_node, y->numa_node);
		CU_ASSERT_EQUAL(memcmp(x->max_chan, y->max_chan, sizeof(x->max_chan)), 0);
		CU_ASSERT_TRUE(x->ring_rx_max.known == y->ring_rx_max.known &&
			       x->ring_rx_max.v == y->ring_rx_max.v);
		CU_ASSERT_TRUE(x->rss_key_bytes.known == y->rss_key_bytes.known &&
			       x->rss_key_bytes.v == y->rss_key_bytes.v);
		CU_ASSERT_TRUE(x->rss_indir_size.known == y->rss_indir_size.known &&
			       x->rss_indir_size.v == y->rss_indir_size.v);
		CU_ASSERT_EQUAL(x->rx_queues, y->rx_queues);
		CU_ASSERT_EQUAL(x->tx_queues, y->tx_queues);
		CU_ASSERT_EQUAL_FATAL(x->nirqs, y->nirqs);
		for (k = 0; k < x->nirqs; k++) {
			CU_ASSERT_EQUAL(x->irqs[k].queue, y->irqs[k].queue);
			CU_ASSERT_EQUAL(x->irqs[k].irq, y->irqs[k].irq);
			CU_ASSERT_EQUAL(x->irqs[k].managed, y->irqs[k].managed);
			CU_ASSERT_TRUE(str_eq(x->irqs[k].name, y->irqs[k].name));
		}
		CU_ASSERT_EQUAL(x->features_known, y->features_known);
		CU_ASSERT_EQUAL_FATAL(x->nfeatures, y->nfeatures);
		for (k = 0; k < x->nfeatures; k++) {
			const struct nt_feature_fact *g = nt_facts_feature(y, x->features[k].name);

			CU_ASSERT_PTR_NOT_NULL_FATAL(g);
			CU_ASSERT_EQUAL(g->fixed, x->features[k].fixed);
		}
	}
}

static void same_state(const struct nt_state *a, const struct nt_state *b)
{
	size_t i;

	CU_ASSERT_EQUAL_FATAL(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		const struct nt_setting *s = &a->v[i], *t = &b->v[i];

		CU_ASSERT_EQUAL(s->kind, t->kind);
		CU_ASSERT_STRING_EQUAL(s->object, t->object);
		CU_ASSERT_TRUE(str_eq(s->arg, t->arg));
		CU_ASSERT_TRUE(nt_value_equal(&s->val, &t->val));
	}
}

static void round_trip(const char *rel)
{
	char *path = t_src(rel);
	struct nt_facts f1, f2;
	struct nt_state s1, s2;
	struct nt_diags d = {0};
	struct nt_buf w1 = {0}, w2 = {0};

	CU_ASSERT_EQUAL_FATAL(nt_snapshot_load(path, &f1, &s1, &d), 0);
	CU_ASSERT_EQUAL(d.n, 0);
	CU_ASSERT_TRUE(f1.known);
	CU_ASSERT(s1.n > 0);
	nt_snapshot_write(&f1, &s1, &w1);
	CU_ASSERT_EQUAL_FATAL(nt_snapshot_load_data("w1.json", w1.p, w1.n, &f2, &s2, &d), 0);
	same_facts(&f1, &f2);
	same_state(&s1, &s2);
	nt_snapshot_write(&f2, &s2, &w2);
	CU_ASSERT_EQUAL(w1.n, w2.n);
	CU_ASSERT_TRUE(w1.n == w2.n && !memcmp(w1.p, w2.p, w1.n));
	nt_buf_free(&w1);
	nt_buf_free(&w2);
	nt_facts_free(&f1);
	nt_facts_free(&f2);
	nt_state_free(&s1);
	nt_state_free(&s2);
	nt_diags_free(&d);
	free(path);
}

static void test_round_trip(void)
{
	size_t i;

	for (i = 0; i < sizeof(bundled) / sizeof(bundled[0]); i++)
		round_trip(bundled[i]);
}

static void test_bundled_facts(void)
{
	char *path = t_src(bundled[0]);
	struct nt_facts f;
	struct nt_state s;
	struct nt_diags d = {0};
	const struct nt_iface_facts *i;

	CU_ASSERT_EQUAL_FATAL(nt_snapshot_load(path, &f, &s, &d), 0);
	/* seed 001: 2 sockets, 56 CPUs, SMT siblings 28 apart, irqbalance running */
	CU_ASSERT_EQUAL(nt_cpuset_count(&f.online), 56);
	CU_ASSERT_EQUAL(f.nnodes, 2);
	CU_ASSERT_EQUAL(f.cpu_core[0], f.cpu_core[28]);
	CU_ASSERT_EQUAL(f.cpu_node[42], 1);
	CU_ASSERT_EQUAL(f.irqbalance, 1);
	i = nt_facts_iface(&f, "enp1s0f0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(i);
	CU_ASSERT_EQUAL(i->numa_node, 0);
	/* i40e on 56 CPUs: 56 queue IRQs, TxRx-0 at the seed's 135 */
	CU_ASSERT_EQUAL(i->nirqs, 56);
	CU_ASSERT_EQUAL(nt_facts_irq(i, 0)->irq, 135);
	CU_ASSERT_EQUAL(nt_facts_irq(i, 55)->irq, 190);
	CU_ASSERT_TRUE(nt_facts_feature(i, "rx-lro")->fixed);
	CU_ASSERT_FALSE(nt_facts_feature(i, "rx-gro")->fixed);
	CU_ASSERT_FALSE(nt_state_get(&s, NT_K_FEATURE, "enp1s0f0", "tx-tcp-segmentation")->val.b);
	/* wg0: wg_setup puts the TSO bits in hw_features, so they are changeable */
	i = nt_facts_iface(&f, "wg0");
	CU_ASSERT_PTR_NOT_NULL_FATAL(i);
	CU_ASSERT_PTR_NOT_NULL_FATAL(nt_facts_feature(i, "tx-tcp-segmentation"));
	CU_ASSERT_FALSE(nt_facts_feature(i, "tx-tcp-segmentation")->fixed);
	CU_ASSERT_TRUE(nt_facts_feature(i, "tx-lockless")->fixed);
	nt_facts_free(&f);
	nt_state_free(&s);
	nt_diags_free(&d);
	free(path);
}

struct bad {
	const char *json;
	const char *msg;	/* the first error, located */
};

#define SET(o, a, v) "{\"object\": " o ", \"attribute\": " a ", \"value\": " v "}"
#define SNAP "{\"format\": \"nettune-snapshot/1\",\n"
/* 256 key bytes, the most a snapshot or a plan may hold */
#define K8 "00:01:02:03:04:05:06:07"
#define K64 K8 ":" K8 ":" K8 ":" K8 ":" K8 ":" K8 ":" K8 ":" K8
#define K256 K64 ":" K64 ":" K64 ":" K64

static const struct bad bads[] = {
	{"{\"format\": ", "bad.json:1:12: unexpected end of input"},
	{"{\"format\": \"nettune-snapshot/1\",}", "bad.json:1:33: expected a string key"},
	{"{\"format\": \"nettune-snapshot/1\", \"format\": \"x\"}",
	 "bad.json:1:34: duplicate key \"format\""},
	{"[1, 2]", "bad.json:1:1: a snapshot is a JSON object"},
	{"{\"host\": {}}", "bad.json:1:1: missing \"format\" (a string)"},
	{"{\"format\": \"nettune-snapshot/2\"}", "bad.json:1:12: format must be \"nettune-snapshot/1\""},
	{"{\"format\": 1}", "bad.json:1:12: \"format\" must be a string"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"bogus 1\"", "1") "]}",
	 "bad.json:3:35: unknown attribute \"bogus 1\" (see nettune plan --help for the kinds)"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"feature\"", "true") "]}",
	 "bad.json:3:35: unknown attribute \"feature\" (see nettune plan --help for the kinds)"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"mtu\"", "\"1500\"") "]}",
	 "bad.json:3:51: value of eth0 mtu: must be a whole number 0..4294967295"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"mtu\"", "-1") "]}",
	 "bad.json:3:51: value of eth0 mtu: must be a whole number 0..4294967295"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"feature rx-gro\"", "1") "]}",
	 "bad.json:3:62: value of eth0 feature rx-gro: must be true or false"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"irq-affinity 0\"", "\"1-\"") "]}",
	 "bad.json:3:62: value of eth0 irq-affinity 0: expected a CPU number below 4096 after '-'"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"rss-indir\"", "[0, -1]") "]}",
	 "bad.json:3:57: value of eth0 rss-indir: entries must be queue numbers 0..65535"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"rx-flow-hash udp4\"", "\"src-ip sdfn\"") "]}",
	 "bad.json:3:65: value of eth0 rx-flow-hash udp4: is not a list of rx-flow-hash fields "
	 "(l2da vlan l3-proto src-ip dst-ip src-port dst-port discard, or none)"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"rx-flow-hash udp5\"", "\"src-ip\"") "]}",
	 "bad.json:3:35: eth0 rx-flow-hash udp5: argument \"udp5\" is not one of tcp4, udp4, "
	 "sctp4, ah4, esp4, tcp6, udp6, sctp6, ah6, esp6"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"pause rxx\"", "true") "]}",
	 "bad.json:3:35: eth0 pause rxx: argument \"rxx\" is not one of autoneg, rx, tx"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"mtu\"", "1500") ",\n  "
	      SET("\"eth0\"", "\"mtu\"", "9000") "]}",
	 "bad.json:4:3: eth0 mtu is listed twice"},
	{SNAP " \"settings\": [\n  " SET("\"eth\\u0001\"", "\"mtu\"", "1500") "]}",
	 "bad.json:3:14: object is empty or has control characters"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"feature rx\\tgro\"", "true") "]}",
	 "bad.json:3:35: attribute has control characters"},
	{SNAP " \"settings\": [\n  " SET("\"sysctl\"", "\"sysctl a\"", "\"x\\u001b[2J\"") "]}",
	 "bad.json:3:58: value of sysctl sysctl a: has control characters"},
	{SNAP " \"interfaces\": [{\"name\": \"eth\\n0\"}]}",
	 "bad.json:2:26: interface name contains whitespace"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"driver\": \"x\\u007f\"}]}",
	 "bad.json:2:44: \"driver\" has control characters"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\"}, {\"name\": \"eth0\"}]}",
	 "bad.json:2:44: interface \"eth0\" is listed twice"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"numa_nod\": 1}]}",
	 "bad.json:2:46: unknown key \"numa_nod\" in an interfaces entry; did you mean \"numa_node\"?"},
	{SNAP " \"hots\": {}}", "bad.json:2:10: unknown key \"hots\" in the snapshot; did you mean \"host\"?"},
	{SNAP " \"settings\": [\n  {\"object\": \"eth0\", \"attribute\": \"mtu\", \"value\": 1, \"why\": 1}]}",
	 "bad.json:3:61: unknown key \"why\" in a settings entry"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"kind\": 5}]}",
	 "bad.json:2:42: \"kind\" must be a string"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"numa_node\": 64}]}",
	 "bad.json:2:47: numa_node must be -1..63"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"irqs\": [{\"queue\": 0}]}]}",
	 "bad.json:2:43: missing \"irq\" (a number)"},
	{SNAP " \"interfaces\": {}}", "bad.json:2:16: \"interfaces\" must be a list"},
	{SNAP " \"irqbalance\": \"maybe\"}",
	 "bad.json:2:16: irqbalance must be \"active\", \"inactive\" or \"unknown\""},
	{SNAP " \"cpus\": {\"online\": \"0-3\", \"nodes\": {\"\": \"0-3\"}}}",
	 "bad.json:2:42: cpus.nodes[\"\"] must be a CPU list of node 0..63"},
	{SNAP " \"cpus\": {\"online\": \"0-3\", \"nodes\": {\"-0\": \"0-3\"}}}",
	 "bad.json:2:44: cpus.nodes[\"-0\"] must be a CPU list of node 0..63"},
	{SNAP " \"host\": {\"target\": \"bsd\"}}", "bad.json:2:21: host.target must be linux or windows"},
	{SNAP " \"windows\": {\"uro_disabled_mask\": \"48\"}}",
	 "bad.json:2:35: windows.uro_disabled_mask must be a whole number 0..2147483647"},
	/* sizes at and beyond every bound */
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"rss\": {\"key_bytes\": 0}}]}",
	 "bad.json:2:55: \"key_bytes\" is 0; a NIC with an RSS key has 1..256 bytes"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"rss\": {\"key_bytes\": 257}}]}",
	 "bad.json:2:55: \"key_bytes\" is 257; at most 256"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"rss\": {\"key_bytes\": 300}}]}",
	 "bad.json:2:55: \"key_bytes\" is 300; at most 256"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"rss\": {\"key_bytes\": 4096}}]}",
	 "bad.json:2:55: \"key_bytes\" is 4096; at most 256"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"rss\": {\"key_bytes\": 4294967296}}]}",
	 "bad.json:2:55: \"key_bytes\" must be a whole number 0..4294967295"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"rss\": {\"indir_size\": 65537}}]}",
	 "bad.json:2:56: \"indir_size\" is 65537; at most 65536"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"queues\": {\"rx\": 65537}}]}",
	 "bad.json:2:51: \"rx\" is 65537; at most 65536"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"max\": {\"combined\": 4294967295}}]}",
	 "bad.json:2:54: \"combined\" is 4294967295; at most 65536"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"irqs\": [{\"queue\": 65536, \"irq\": 1}]}]}",
	 "bad.json:2:53: queue 65536 is above 65535"},
	{SNAP " \"interfaces\": [{\"name\": \"eth0\", \"irqs\": [{\"queue\": 0, \"irq\": 1048576}]}]}",
	 "bad.json:2:63: irq 1048576 is above 1048575"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"rss-key\"", "\"" K256 ":ff\"") "]}",
	 "bad.json:3:55: value of eth0 rss-key: must be hex bytes such as \"6d:5a:56\""},
	/* names that would leave /sys/class/net or /proc */
	{SNAP " \"interfaces\": [{\"name\": \"../../x\"}]}",
	 "bad.json:2:26: interface name \"../../x\" contains '/'"},
	{SNAP " \"interfaces\": [{\"name\": \"..\"}]}",
	 "bad.json:2:26: interface name \"..\" is '.' or '..'"},
	{SNAP " \"interfaces\": [{\"name\": \"\"}]}", "bad.json:2:26: interface name \"\" is empty"},
	{SNAP " \"interfaces\": [{\"name\": \"abcdefghijklmnop\"}]}",
	 "bad.json:2:26: interface name \"abcdefghijklmnop\" is longer than 15 bytes (IFNAMSIZ 16 with the NUL)"},
	{SNAP " \"settings\": [\n  " SET("\"../../../x\"", "\"mtu\"", "1500") "]}",
	 "bad.json:3:14: ../../../x mtu: object \"../../../x\" contains '/'"},
	{SNAP " \"settings\": [\n  " SET("\"a/b\"", "\"rps-cpus 0\"", "\"0\"") "]}",
	 "bad.json:3:14: a/b rps-cpus 0: object \"a/b\" contains '/'"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"rps-cpus ../x\"", "\"0\"") "]}",
	 "bad.json:3:35: eth0 rps-cpus ../x: argument \"../x\" is not a queue number 0..65535"},
	{SNAP " \"settings\": [\n  " SET("\"sysctl\"", "\"sysctl net/../../etc/x\"", "\"1\"") "]}",
	 "bad.json:3:37: sysctl sysctl net/../../etc/x: argument \"net/../../etc/x\" has an empty "
	 "component ('..', '//', or a leading or trailing separator)"},
	{SNAP " \"settings\": [\n  " SET("\"eth0\"", "\"sysctl net.core.x\"", "\"1\"") "]}",
	 "bad.json:3:14: eth0 sysctl net.core.x: object \"eth0\" must be \"sysctl\" for a sysctl setting"},
	{SNAP " \"settings\": [\n  " SET("\"process ../x\"", "\"cpus\"", "\"0\"") "]}",
	 "bad.json:3:14: process ../x cpus: object \"process ../x\" contains '/' but is not an "
	 "absolute pidfile path"},
	{SNAP " \"settings\": [\n  " SET("\"abcdefghijklmnop\"", "\"mtu\"", "1500") "]}",
	 "bad.json:3:14: abcdefghijklmnop mtu: object \"abcdefghijklmnop\" is longer than 15 bytes "
	 "(IFNAMSIZ 16 with the NUL)"},
};

/* A sysctl value of n bytes ('1's), as a snapshot settings entry. */
static char *sysctl_snapshot(size_t n)
{
	char *v = malloc(n + 1), *j;

	memset(v, '1', n);
	v[n] = '\0';
	j = nt_xasprintf(SNAP " \"settings\": [\n  " SET("\"sysctl\"", "\"sysctl net.x\"", "\"%s\"")
			 "]}", v);
	free(v);
	return j;
}

/* Sysctl values: a page (4096 bytes) loads, one byte more is a located
 * error; "net/core/x" is the key "net.core.x" (as in profiles). */
static void test_sysctl_values(void)
{
	struct nt_facts f;
	struct nt_state s;
	struct nt_diags d = {0};
	char *j = sysctl_snapshot(NT_SYSCTL_VALUE_MAX), *e;
	static const char canon[] = SNAP " \"settings\": [" SET("\"sysctl\"",
		"\"sysctl net/core/somaxconn\"", "\"4096\"") ", "
		SET("\"sysctl\"", "\"sysctl net/ipv4/conf/eth0.10/rp_filter\"", "\"1\"") "]}";
	static const char dup[] = SNAP " \"settings\": [" SET("\"sysctl\"",
		"\"sysctl net/core/somaxconn\"", "\"4096\"") ",\n "
		SET("\"sysctl\"", "\"sysctl net.core.somaxconn\"", "\"1\"") "]}";

	CU_ASSERT_EQUAL(nt_snapshot_load_data("ok.json", j, strlen(j), &f, &s, &d), 0);
	CU_ASSERT_EQUAL(s.n, 1);
	nt_facts_free(&f);
	nt_state_free(&s);
	free(j);
	j = sysctl_snapshot(NT_SYSCTL_VALUE_MAX + 1);
	CU_ASSERT_EQUAL(nt_snapshot_load_data("bad.json", j, strlen(j), &f, &s, &d), -1);
	e = t_first_error(&d);
	CU_ASSERT_STRING_EQUAL(e, "bad.json:3:62: value of sysctl net.x is 4097 bytes; at most 4096");
	CU_ASSERT_EQUAL(s.n, 0);
	free(e);
	free(j);
	nt_diags_free(&d);
	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL_FATAL(nt_snapshot_load_data("ok.json", canon, strlen(canon), &f, &s, &d), 0);
	CU_ASSERT_PTR_NOT_NULL(nt_state_get(&s, NT_K_SYSCTL, "sysctl", "net.core.somaxconn"));
	CU_ASSERT_PTR_NOT_NULL(nt_state_get(&s, NT_K_SYSCTL, "sysctl",
					    "net/ipv4/conf/eth0.10/rp_filter"));
	nt_facts_free(&f);
	nt_state_free(&s);
	CU_ASSERT_EQUAL(nt_snapshot_load_data("bad.json", dup, strlen(dup), &f, &s, &d), -1);
	e = t_first_error(&d);
	CU_ASSERT_STRING_EQUAL(e, "bad.json:3:2: sysctl sysctl net.core.somaxconn is listed twice");
	free(e);
	nt_diags_free(&d);
}

/* Every Linux kind a profile can set survives observe's writer and the
 * loader: a snapshot never drops a kind (table coverage, as
 * test_settings does for the appliers). */
static void test_every_linux_kind(void)
{
	struct nt_state st = {0}, back;
	struct nt_facts f, f2;
	struct nt_diags d = {0};
	struct nt_buf w = {0};
	struct nt_cpuset cs;
	static const uint8_t key[4] = {0x6d, 0x5a, 0x56, 0xda};
	static const uint32_t indir[4] = {0, 1, 0, 1};
	const char *err;
	size_t k, nlinux = 0;

	nt_facts_init(&f);
	nt_cpuset_parse("1-2", &cs, &err);
	for (k = 0; k < NT_K__COUNT; k++) {
		const struct nt_kinddef *kd = &nt_kinds[k];
		const char *obj = k == NT_K_SYSCTL ? "sysctl" :
				  k == NT_K_IRQBALANCE_BAN || k == NT_K_IRQBALANCE_SERVICE ? "irqbalance" :
				  k == NT_K_PROCESS_CPUS ? "process wg-quick@wg0.service" : "eth0";
		const char *arg = !(kd->flags & NT_KF_HAS_ARG) ? NULL :
				  k == NT_K_SYSCTL ? "net.core.somaxconn" :
				  kd->flags & NT_KF_PER_QUEUE ? "3" :
				  k == NT_K_FEATURE ? "rx-gro" : k == NT_K_CHANNELS ? "combined" :
				  k == NT_K_RING ? "rx" : k == NT_K_COALESCE ? "rx-usecs" :
				  k == NT_K_FLOW_HASH ? "udp4" : k == NT_K_PRIV_FLAG ? "legacy-rx" : "rx";
		struct nt_value v;

		if (kd->flags & NT_KF_WINDOWS)
			continue;
		nlinux++;
		switch (kd->vtype) {
		case NT_V_BOOL: v = nt_v_bool(true); break;
		case NT_V_U32: v = nt_v_u32(4096); break;
		case NT_V_STR: v = nt_v_str(k == NT_K_IRQBALANCE_SERVICE ? "stopped" :
					     k == NT_K_FLOW_HASH ? "src-ip dst-ip" : "1 2"); break;
		case NT_V_CPUS: v = nt_v_cpus(&cs); break;
		case NT_V_BYTES: v = nt_v_bytes(key, sizeof(key)); break;
		case NT_V_U32LIST: v = nt_v_list(indir, 4); break;
		}
		nt_state_set(&st, (enum nt_kind_id)k, obj, arg, v, (struct nt_mark){0});
	}
	CU_ASSERT_EQUAL(st.n, nlinux);
	nt_snapshot_write(&f, &st, &w);
	CU_ASSERT_EQUAL_FATAL(nt_snapshot_load_data("w.json", w.p, w.n, &f2, &back, &d), 0);
	same_state(&st, &back);
	nt_buf_free(&w);
	nt_state_free(&st);
	nt_state_free(&back);
	nt_facts_free(&f);
	nt_facts_free(&f2);
	nt_diags_free(&d);
}

/* A device that reports an RSS key of 0 bytes (virtio_net without RSS)
 * has no key: the snapshot leaves key_bytes out, so observe --json of such
 * a host loads back (the loader refuses "key_bytes": 0). */
static void test_no_rss_key(void)
{
	struct nt_state st = {0}, back;
	struct nt_facts f, f2;
	struct nt_diags d = {0};
	struct nt_buf w = {0};
	struct nt_iface_facts *i;

	nt_facts_init(&f);
	f.known = true;
	i = nt_facts_add_iface(&f, "eth0");
	i->rss_key_bytes = (struct nt_num){true, 0};
	i->rss_indir_size = (struct nt_num){true, 0};
	nt_snapshot_write(&f, &st, &w);
	CU_ASSERT_PTR_NULL(strstr(w.p, "key_bytes"));
	CU_ASSERT_EQUAL_FATAL(nt_snapshot_load_data("w.json", w.p, w.n, &f2, &back, &d), 0);
	CU_ASSERT_EQUAL(d.errors, 0);
	CU_ASSERT_FALSE(nt_facts_iface(&f2, "eth0")->rss_key_bytes.known);
	nt_buf_free(&w);
	nt_state_free(&back);
	nt_facts_free(&f);
	nt_facts_free(&f2);
	nt_diags_free(&d);
}

/* At the bounds: accepted. */
static void test_bounds(void)
{
	static const char *const ok[] = {
		SNAP " \"interfaces\": [{\"name\": \"abcdefghijklmno\", \"rss\": {\"key_bytes\": 256, "
		"\"indir_size\": 65536}, \"queues\": {\"rx\": 65536, \"tx\": 65536}, "
		"\"irqs\": [{\"queue\": 65535, \"irq\": 1048575}]}]}",
		SNAP " \"interfaces\": [{\"name\": \"sysctl\"}, {\"name\": \"irqbalance\"}],\n"
		" \"settings\": [" SET("\"sysctl\"", "\"mtu\"", "1500") ", "
		SET("\"sysctl\"", "\"sysctl net.core.somaxconn\"", "\"4096\"") ", "
		SET("\"irqbalance\"", "\"feature rx-gro\"", "true") ", "
		SET("\"process /run/x.pid\"", "\"cpus\"", "\"0\"") "]}",
		SNAP " \"settings\": [" SET("\"eth0\"", "\"rss-key\"", "\"" K256 "\"") "]}",
	};
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		struct nt_facts f;
		struct nt_state s;
		struct nt_diags d = {0};

		CU_ASSERT_EQUAL(nt_snapshot_load_data("ok.json", ok[i], strlen(ok[i]), &f, &s, &d), 0);
		if (d.errors) {
			char *e = t_first_error(&d);

			fprintf(stderr, "\n  ok %zu: %s", i, e);
			free(e);
		}
		nt_facts_free(&f);
		nt_state_free(&s);
		nt_diags_free(&d);
	}
}

static void test_untrusted(void)
{
	size_t i;

	for (i = 0; i < sizeof(bads) / sizeof(bads[0]); i++) {
		struct nt_facts f;
		struct nt_state s;
		struct nt_diags d = {0};
		int r = nt_snapshot_load_data("bad.json", bads[i].json, strlen(bads[i].json), &f, &s, &d);
		char *e = t_first_error(&d);

		CU_ASSERT_EQUAL(r, -1);
		if (strcmp(e, bads[i].msg))
			fprintf(stderr, "\n  case %zu: got '%s'\n          want '%s'", i, e, bads[i].msg);
		CU_ASSERT_STRING_EQUAL(e, bads[i].msg);
		/* nothing half-loaded */
		CU_ASSERT_FALSE(f.known);
		CU_ASSERT_EQUAL(f.nifs, 0);
		CU_ASSERT_PTR_NULL(f.ifs);
		CU_ASSERT_PTR_NULL(f.hostname);
		CU_ASSERT_EQUAL(s.n, 0);
		CU_ASSERT_PTR_NULL(s.v);
		free(e);
		nt_diags_free(&d);
	}
}

static void test_missing_file(void)
{
	struct nt_facts f;
	struct nt_state s;
	struct nt_diags d = {0};
	char *e;

	CU_ASSERT_EQUAL(nt_snapshot_load("no-such-snapshot.json", &f, &s, &d), -1);
	e = t_first_error(&d);
	CU_ASSERT_STRING_EQUAL(e, "no-such-snapshot.json: cannot open: No such file or directory");
	CU_ASSERT_EQUAL(s.n, 0);
	CU_ASSERT_FALSE(f.known);
	free(e);
	nt_diags_free(&d);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("snapshot", NULL, NULL);
	CU_add_test(s, "round trip of the bundled snapshots", test_round_trip);
	CU_add_test(s, "seed 001 snapshot facts", test_bundled_facts);
	CU_add_test(s, "untrusted input: located rejections", test_untrusted);
	CU_add_test(s, "missing file", test_missing_file);
	CU_add_test(s, "values at the bounds", test_bounds);
	CU_add_test(s, "sysctl values: bound and key spelling", test_sysctl_values);
	CU_add_test(s, "every Linux kind round-trips", test_every_linux_kind);
	CU_add_test(s, "a device without an RSS key round-trips", test_no_rss_key);
	return t_run(s);
}
