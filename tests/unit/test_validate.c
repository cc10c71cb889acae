/* SPDX-License-Identifier: MIT */
/* Validation rules through nt_validate, with their exact located messages,
 * and the name/overhead/key helpers the emitters share. */
#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "caps.h"
#include "load.h"
#include "profile.h"
#include "validate.h"

static struct nt_capsdb db;

static int suite_init(void)
{
	struct nt_diags d = {0};
	const char *root = getenv("SRCROOT");
	char *dir = nt_xasprintf("%s/schema/nics", root && *root ? root : "../..");
	int r = nt_capsdb_load(&db, dir, &d);

	free(dir);
	r = r || d.errors;
	nt_diags_free(&d);
	return r;
}

static int suite_clean(void)
{
	nt_capsdb_free(&db);
	return 0;
}

#define LINUX_HEAD \
	"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h1}\n" \
	"target: linux\ninterfaces:\n"		/* lines 1-5 */

/* Loads text as "t.yaml" and validates it against db (or no tables);
 * returns every diagnostic as "LINE:COL: message\n" in order found. */
static char *run(const char *text, const struct nt_capsdb *caps, size_t *errors)
{
	struct nt_diags d = {0};
	struct nt_loaded l;
	struct nt_buf out = {0};
	size_t i;

	if (nt_load_profile_data("t.yaml", text, strlen(text), NULL, &l, &d) == 0) {
		size_t n = nt_validate(&l, caps, &d);

		CU_ASSERT_EQUAL(n, d.errors);
		nt_loaded_free(&l);
	}
	for (i = 0; i < d.n; i++)
		nt_buf_printf(&out, "%u:%u: %s\n", d.v[i].mark.line, d.v[i].mark.col, d.v[i].msg);
	if (errors)
		*errors = d.errors;
	nt_diags_free(&d);
	return out.p ? nt_buf_take(&out) : nt_xstrdup("");
}

#define EXPECT(text, caps, want) do {				\
	size_t errs_;						\
	char *got_ = run(text, caps, &errs_);			\
	CU_ASSERT_STRING_EQUAL(got_, want);			\
	if (strcmp(got_, want))					\
		fprintf(stderr, "\n  got:  %s", got_);		\
	CU_ASSERT_TRUE(errs_ > 0 || !*(want));			\
	free(got_);						\
} while (0)

static void test_tunnel_mtu(void)
{
	EXPECT(LINUX_HEAD
	       "  - {name: eth0, mtu: 1500}\n"
	       "  - name: wg0\n"
	       "    mtu: 1421\n"
	       "    tunnel: {kind: wireguard, underlay: eth0, outer: ipv6}\n", &db,
	       "8:10: tunnel wg0 mtu 1421 + WireGuard overhead 80 (ipv6 outer) = 1501 exceeds "
	       "underlay eth0 mtu 1500; at most 1420 fits\n");
	/* 1440 over IPv4 fits exactly */
	EXPECT(LINUX_HEAD
	       "  - {name: eth0, mtu: 1500}\n"
	       "  - name: wg0\n"
	       "    mtu: 1440\n"
	       "    tunnel: {kind: wireguard, underlay: eth0}\n", &db, "");
	EXPECT(LINUX_HEAD
	       "  - {name: eth0}\n"
	       "  - name: wg0\n"
	       "    tunnel: {kind: wireguard, underlay: eth1}\n", NULL,
	       "8:41: underlay 'eth1' names no interface in this profile; did you mean 'eth0'?\n");
}

static void test_capabilities(void)
{
	EXPECT(LINUX_HEAD
	       "  - name: eth0\n"
	       "    nic: intel-i350\n"
	       "    channels: {combined: 9, other: 1}\n"
	       "    rss: {hash: xor}\n", &db,
	       "8:26: channels.combined = 9 exceeds the intel-i350 maximum of 8 (Linux v6.18 "
	       "drivers/net/ethernet/intel/igb/igb_ethtool.c igb_get_channels: max_combined = "
	       "igb_max_channels() = igb_get_max_rss_queues() = IGB_MAX_RX_QUEUES 8 for I350 "
	       "(igb.h; 82575/i210 4, i211 2); max_other = other_count = NON_Q_VECTORS (1) when "
	       "MSI-X is in use)\n"
	       "9:17: intel-i350 (igb) does not support the xor hash function; it has toeplitz\n");
	EXPECT(LINUX_HEAD
	       "  - name: eth0\n"
	       "    nic: intel-x710\n"
	       "    offloads: {lro: on, uso: on, lso: on}\n", &db,
	       "8:21: intel-x710 (i40e) has no lro; it cannot be turned on\n");
	/* lro: off on a NIC without LRO asserts the state; it is fine */
	EXPECT(LINUX_HEAD
	       "  - name: eth0\n"
	       "    nic: intel-x710\n"
	       "    offloads: {lro: off}\n", &db, "");
	/* without capability tables the same profile passes the other rules */
	EXPECT(LINUX_HEAD
	       "  - name: eth0\n"
	       "    nic: intel-x710\n"
	       "    offloads: {lro: on}\n", NULL, "");
}

static void test_target_keys(void)
{
	EXPECT("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h1}\n"
	       "target: windows\n"
	       "interfaces:\n"
	       "  - name: Ethernet\n"
	       "    irq: {policy: none}\n"
	       "    offloads: {uso: {ipv4: on, ipv6: on}, gso: on}\n", NULL,
	       "7:5: irq is a Linux setting; this profile targets windows\n"
	       "8:43: offloads.gso is a Linux (ethtool) setting; this profile targets windows\n");
	EXPECT(LINUX_HEAD
	       "  - name: eth0\n"
	       "    offloads: {uro: on}\n"
	       "global: {uro: enabled}\n", NULL,
	       "7:16: offloads.uro is a Windows setting (Get-NetAdapterUro); this profile "
	       "targets linux\n"
	       "8:1: global (NetOffloadGlobalSetting, software URO) is a Windows setting; this "
	       "profile targets linux\n");
}

static void test_kernel_wireguard(void)
{
	static const char base[] = LINUX_HEAD
		"  - name: eth0\n"
		"  - name: wg0\n"
		"    tunnel: {kind: wireguard, underlay: eth0}\n"
		"processes:\n";
	char *t;

	t = nt_xasprintf("%s  - {match: {systemd_unit: wg-quick@wg0}, cpus: \"1\"}\n", base);
	EXPECT(t, NULL,
	       "10:28: wg0 is kernel WireGuard: it has no process to pin. Its crypto runs in "
	       "the per-CPU workqueue wg-crypt-wg0 on every online CPU, and wg-quick exits after "
	       "setup. Pin a userspace implementation (wireguard-go, boringtun) by comm or "
	       "pidfile instead, or place the underlay's IRQs with irq.policy\n");
	free(t);
	/* wg-quick@wg01 is another interface, and not a tunnel of this profile */
	t = nt_xasprintf("%s  - {match: {systemd_unit: wg-quick@wg01.service}, cpus: \"1\"}\n",
			 base);
	EXPECT(t, NULL, "");
	free(t);
	/* a userspace implementation can be pinned */
	t = nt_xasprintf("%s  - {match: {comm: boringtun}, cpus: numa-local-of eth0}\n", base);
	EXPECT(t, NULL, "");
	free(t);
}

static void test_names(void)
{
	EXPECT(LINUX_HEAD "  - name: enp1s0f0-uplink0\n", NULL,
	       "6:11: interface name 'enp1s0f0-uplink0' is longer than 15 bytes (IFNAMSIZ 16 "
	       "with the NUL); the kernel would refuse it\n");
	CU_ASSERT_PTR_NULL(nt_linux_ifname_problem("enp1s0f0-uplink"));	/* 15 bytes */
	CU_ASSERT_STRING_EQUAL(nt_linux_ifname_problem("a/b"), "contains '/'");
	CU_ASSERT_STRING_EQUAL(nt_linux_ifname_problem("a b"), "contains whitespace");
	CU_ASSERT_STRING_EQUAL(nt_linux_ifname_problem(".."), "is '.' or '..'");
	CU_ASSERT_STRING_EQUAL(nt_linux_ifname_problem(""), "is empty");
	CU_ASSERT_PTR_NULL(nt_windows_name_problem("vEthernet (WSL) 2"));
	CU_ASSERT_STRING_EQUAL(nt_windows_name_problem("Ethernet`"),
			       "contains a backtick, PowerShell's escape character");
	CU_ASSERT_PTR_NOT_NULL(nt_windows_name_problem("Ether[n]et"));
	CU_ASSERT_PTR_NOT_NULL(nt_windows_name_problem("Eth\r\nernet"));
}

static void test_numa_irq(void)
{
	EXPECT("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h1}\n"
	       "target: linux\n"
	       "host:\n"
	       "  numa:\n"
	       "    - {node: 0, cpus: \"0-3\"}\n"
	       "    - {node: 1, cpus: \"3-7\"}\n"
	       "  reserved_cpus: \"0-3,9\"\n"
	       "interfaces:\n"
	       "  - name: eth0\n"
	       "    irq: {policy: explicit, cpus: \"1-2\"}\n", NULL,
	       "8:23: NUMA nodes 0 and 1 overlap on CPUs 3\n"
	       "9:18: reserved CPUs 9 are in no NUMA node of host.numa\n"
	       "12:35: irq.cpus '1-2' leaves no usable CPU: every CPU in it is reserved "
	       "(0-3,9)\n");
}

static void test_rss_key(void)
{
	unsigned char key[64];
	bool per_host;

	CU_ASSERT_EQUAL(nt_parse_rss_key("per-host", key, sizeof(key), &per_host), 0);
	CU_ASSERT_TRUE(per_host);
	CU_ASSERT_EQUAL(nt_parse_rss_key("6d:5a:56:DA", key, sizeof(key), &per_host), 4);
	CU_ASSERT_FALSE(per_host);
	CU_ASSERT_EQUAL(key[0], 0x6d);
	CU_ASSERT_EQUAL(key[3], 0xda);
	CU_ASSERT_EQUAL(nt_parse_rss_key("6d5a", key, sizeof(key), &per_host), -1);	/* bytes need ':' */
	CU_ASSERT_EQUAL(nt_parse_rss_key("6d:5", key, sizeof(key), &per_host), -1);
	CU_ASSERT_EQUAL(nt_parse_rss_key("6d:5a:", key, 1, &per_host), -1);	/* too long */
	CU_ASSERT_EQUAL(nt_parse_rss_key("", key, sizeof(key), &per_host), -1);
	EXPECT(LINUX_HEAD
	       "  - name: eth0\n"
	       "    nic: intel-e810\n"
	       "    rss: {key: \"01:02:03:04\"}\n", &db,
	       "8:16: RSS key is 4 bytes; intel-e810 takes exactly 52 (Linux v6.18 "
	       "drivers/net/ethernet/intel/ice/ice.h: ICE_VSIQF_HKEY_ARRAY_SIZE = "
	       "(VSIQF_HKEY_MAX_INDEX 12 + 1) * 4 = 52 (VSIQF_HKEY_MAX_INDEX in "
	       "ice_hw_autogen.h); PF indirection size comes from firmware (func_caps "
	       "rss_table_size), not a driver constant; hash: ice_get_rxfh reports "
	       "ETH_RSS_HASH_TOP and RXH_XFRM_SYM_XOR "
	       "(ice_ethtool_ops.supported_input_xfrm), ice_set_rxfh refuses any other "
	       "hfunc (Linux 6.12 drivers/net/ethernet/intel/ice/ice_ethtool.c))\n");
}

static void test_examples_clean(void)
{
	static const char *const ex[] = {
		"examples/x710-wireguard-gateway.yaml", "examples/windows-wireguard-host.yaml",
		"examples/windows-uro-workstation.yaml", "examples/veth-lab.yaml",
		"examples/overlay-tunnels.yaml",
	};
	const char *root = getenv("SRCROOT");
	size_t i;

	for (i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		struct nt_diags d = {0};
		struct nt_loaded l;
		char *p = nt_xasprintf("%s/%s", root && *root ? root : "../..", ex[i]);

		CU_ASSERT_EQUAL_FATAL(nt_load_profile(p, NULL, &l, &d), 0);
		CU_ASSERT_EQUAL(nt_validate(&l, &db, &d), 0);
		CU_ASSERT_EQUAL(d.n, 0);
		nt_loaded_free(&l);
		nt_diags_free(&d);
		free(p);
	}
}

/* The one rule for setting names that snapshots, manifests, lowered
 * profiles and journals share. */
static void test_setting_names(void)
{
	static const struct {
		enum nt_kind_id k;
		const char *obj, *arg, *why;	/* why NULL: accepted */
		char part;
	} c[] = {
		{NT_K_MTU, "eth0", NULL, NULL, 0},
		{NT_K_MTU, "sysctl", NULL, NULL, 0},
		{NT_K_FEATURE, "irqbalance", "rx-gro", NULL, 0},
		{NT_K_MTU, "abcdefghijklmno", NULL, NULL, 0},
		{NT_K_MTU, "abcdefghijklmnop", NULL, "is longer than 15 bytes (IFNAMSIZ 16 with the NUL)", 'o'},
		{NT_K_MTU, "../../../x", NULL, "contains '/'", 'o'},
		{NT_K_MTU, "a/b", NULL, "contains '/'", 'o'},
		{NT_K_MTU, "", NULL, "is empty", 'o'},
		{NT_K_MTU, "..", NULL, "is '.' or '..'", 'o'},
		{NT_K_MTU, "eth0", "x", "takes no argument", 'a'},
		{NT_K_RPS_CPUS, "eth0", "65535", NULL, 0},
		{NT_K_RPS_CPUS, "eth0", "65536", "is not a queue number 0..65535", 'a'},
		{NT_K_RPS_CPUS, "eth0", "../0", "is not a queue number 0..65535", 'a'},
		{NT_K_RPS_CPUS, "eth0", "01", "is not a queue number 0..65535", 'a'},
		{NT_K_RPS_CPUS, "eth0", NULL, "needs an argument", 'a'},
		{NT_K_FEATURE, "eth0", "rx/gro", "contains '/', white space or a control character", 'a'},
		{NT_K_SYSCTL, "sysctl", "net.core.somaxconn", NULL, 0},
		{NT_K_SYSCTL, "sysctl", "net/ipv4/conf/eth0/rp_filter", NULL, 0},
		{NT_K_SYSCTL, "sysctl", "net..x", "has an empty component ('..', '//', or a leading or "
		 "trailing separator)", 'a'},
		{NT_K_SYSCTL, "sysctl", "net/*/x", "has a character other than letters, digits, '_', '-', "
		 "'.', '/'", 'a'},
		{NT_K_SYSCTL, "eth0", "net.core.somaxconn", "must be \"sysctl\" for a sysctl setting", 'o'},
		{NT_K_IRQBALANCE_BAN, "irqbalance", NULL, NULL, 0},
		{NT_K_IRQBALANCE_BAN, "eth0", NULL, "must be \"irqbalance\" for an irqbalance setting", 'o'},
		{NT_K_PROCESS_CPUS, "process wg.service", NULL, NULL, 0},
		{NT_K_PROCESS_CPUS, "process /run/x.pid", NULL, NULL, 0},
		{NT_K_PROCESS_CPUS, "process ..", NULL, "is '.' or '..'", 'o'},
		{NT_K_PROCESS_CPUS, "process /run/../x", NULL, "is a pidfile path with an empty, '.' or "
		 "'..' component", 'o'},
		{NT_K_PROCESS_CPUS, "eth0", NULL, "must be \"process WHO\"", 'o'},
		{NT_K_WIN_USO, "Ethernet 2", "ipv6", NULL, 0},
		{NT_K_WIN_USO, "Eth*", "ipv6", "contains a wildcard character (* ? [ ]), which -Name would "
		 "match as a pattern", 'o'},
		{NT_K_WIN_GLOBAL, "global", "uro", NULL, 0},
		/* the names of a map of driver-given names (ifkeys.def NT_LINUX_NAMES) */
		{NT_K_PRIV_FLAG, "eth0", "disable-fw-lldp", NULL, 0},
		{NT_K_PRIV_FLAG, "eth0", "rx_cqe_compress.v2", NULL, 0},
		{NT_K_PRIV_FLAG, "eth0", "abcdefghijklmnopqrstuvwxyz01234", NULL, 0},
		{NT_K_PRIV_FLAG, "eth0", "abcdefghijklmnopqrstuvwxyz012345",
		 "is longer than a private flag name (31 bytes)", 'a'},
		{NT_K_PRIV_FLAG, "eth0", "a$(id)", "has a character other than a letter, digit, '-', "
		 "'_' or '.'", 'a'},
		{NT_K_PRIV_FLAG, "eth0", "a b", "has a character other than a letter, digit, '-', "
		 "'_' or '.'", 'a'},
		{NT_K_PRIV_FLAG, "eth0", NULL, "needs an argument", 'a'},
		/* an open kind without such a map keeps the generic rule */
		{NT_K_WIN_ADVPROP, "Ethernet 2", "*Jumbo Packet", NULL, 0},
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		const char *part = NULL, *why = nt_setting_problem(c[i].k, c[i].obj, c[i].arg, &part);

		if (!c[i].why != !why || (why && strcmp(why, c[i].why)))
			fprintf(stderr, "\n  case %zu (%s): got '%s'", i, c[i].obj, why ? why : "(ok)");
		if (!c[i].why) {
			CU_ASSERT_PTR_NULL(why);
			continue;
		}
		CU_ASSERT_PTR_NOT_NULL_FATAL(why);
		CU_ASSERT_STRING_EQUAL(why, c[i].why);
		CU_ASSERT_EQUAL(*part, c[i].part);
	}
	CU_ASSERT_PTR_NULL(nt_path_component_problem("eth0"));
	CU_ASSERT_STRING_EQUAL(nt_path_component_problem("a/b"), "contains '/'");
}

/* A one-table directory with linux.rings and linux.coalesce as given; loads
 * it and returns the diagnostics as "LINE:COL: message\n" (table lines:
 * 1-7 fixed, the rings text from 8, the coalesce text after it). */
#define TABLE_HEAD \
	"id: t\nname: T\npci_ids: {value: [], source: none}\nlinux:\n  driver: tdrv\n" \
	"  channels: {kinds: []}\n  rings:\n"
static char *load_table(const char *rings_coal, struct nt_capsdb *out)
{
	char dir[] = "/tmp/nt-caps-XXXXXX";
	struct nt_diags d = {0};
	struct nt_buf b = {0};
	char *path;
	FILE *f;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	path = nt_xasprintf("%s/t.yaml", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(TABLE_HEAD, f);
	fputs(rings_coal, f);
	fclose(f);
	nt_capsdb_load(out, dir, &d);
	for (i = 0; i < d.n; i++)
		nt_buf_printf(&b, "%u:%u: %s\n", d.v[i].mark.line, d.v[i].mark.col, d.v[i].msg);
	nt_diags_free(&d);
	unlink(path);
	rmdir(dir);
	free(path);
	return b.p ? nt_buf_take(&b) : nt_xstrdup("");
}

#define TABLE_EXPECT(text, want) do {				\
	struct nt_capsdb t_;					\
	char *got_ = load_table(text, &t_);			\
	CU_ASSERT_STRING_EQUAL(got_, want);			\
	if (strcmp(got_, want))					\
		fprintf(stderr, "\n  got:  %s", got_);		\
	free(got_);						\
	nt_capsdb_free(&t_);					\
} while (0)

static void test_caps_coalesce_format(void)
{
	struct nt_capsdb t;
	const struct nt_caps *c;
	char *got;

	/* every new key, read back */
	got = load_table("    rx_max: 2047\n    rx_max_no_agg: 8191\n    no_agg_mtu_max: 3690\n"
			 "    source: s\n"
			 "  coalesce:\n    params: [rx_usecs, tx_frames, adaptive_rx]\n"
			 "    usecs_max: 10000\n    usecs_min: 10\n    usecs_modes: [0, 1, 3]\n"
			 "    frames_max: 128\n    usecs_with_adaptive: false\n    source: s2\n", &t);
	CU_ASSERT_STRING_EQUAL(got, "");
	free(got);
	c = nt_caps_find(&t, "t");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_TRUE(c->ring_rx_max_no_agg.known && c->ring_rx_max_no_agg.v == 8191);
	CU_ASSERT_TRUE(c->no_agg_mtu_max.known && c->no_agg_mtu_max.v == 3690);
	CU_ASSERT_TRUE(c->coal_params_known);
	CU_ASSERT_EQUAL(c->coal_params, (1u << NT_CO_RX_USECS) | (1u << NT_CO_TX_FRAMES) |
			(1u << NT_CO_ADAPTIVE_RX));
	CU_ASSERT_TRUE(c->coal_usecs_max.known && c->coal_usecs_max.v == 10000);
	CU_ASSERT_TRUE(c->coal_usecs_min.known && c->coal_usecs_min.v == 10);
	CU_ASSERT_EQUAL(c->coal_usecs_modes, 0xbu);
	CU_ASSERT_TRUE(c->coal_frames_max.known && c->coal_frames_max.v == 128);
	CU_ASSERT_EQUAL(c->coal_usecs_with_adaptive, NT_TRI_NO);
	CU_ASSERT_STRING_EQUAL(c->src_coalesce, "s2");
	nt_capsdb_free(&t);

	/* older tables: no coalesce group, params unknown, [] = no coalescing */
	got = load_table("    rx_max: 512\n    source: s\n", &t);
	CU_ASSERT_STRING_EQUAL(got, "");
	free(got);
	c = nt_caps_find(&t, "t");
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_FALSE(c->coal_params_known);
	CU_ASSERT_FALSE(c->ring_rx_max_no_agg.known);
	CU_ASSERT_EQUAL(c->coal_usecs_with_adaptive, NT_TRI_UNKNOWN);
	nt_capsdb_free(&t);
	got = load_table("    rx_max: 512\n    source: s\n  coalesce:\n    params: unknown\n"
			 "    usecs_max: 64\n    source: s\n", &t);
	CU_ASSERT_STRING_EQUAL(got, "");
	free(got);
	CU_ASSERT_FALSE(nt_caps_find(&t, "t")->coal_params_known);
	nt_capsdb_free(&t);
	got = load_table("    rx_max: 512\n    source: s\n  coalesce:\n    params: []\n"
			 "    source: s\n", &t);
	CU_ASSERT_STRING_EQUAL(got, "");
	free(got);
	CU_ASSERT_TRUE(nt_caps_find(&t, "t")->coal_params_known);
	CU_ASSERT_EQUAL(nt_caps_find(&t, "t")->coal_params, 0u);
	nt_capsdb_free(&t);

	/* located format errors */
	TABLE_EXPECT("    rx_max: 512\n    source: s\n  coalesce:\n    params: [rx_usecs, rx_msecs]\n"
		     "    source: s\n",
		     "11:24: coalesce.params: unknown parameter (rx_usecs, tx_usecs, rx_frames, "
		     "tx_frames, adaptive_rx or adaptive_tx)\n");
	TABLE_EXPECT("    rx_max: 512\n    source: s\n  coalesce:\n    params: all\n    source: s\n",
		     "11:13: /linux/coalesce/params must be a list of parameters or 'unknown'\n");
	TABLE_EXPECT("    rx_max: 512\n    source: s\n  coalesce:\n    usecs_min: 10\n"
		     "    usecs_modes: [0, 12]\n    source: s\n",
		     "12:22: coalesce.usecs_modes: each value is a number below usecs_min\n");
	TABLE_EXPECT("    rx_max: 512\n    source: s\n  coalesce:\n    frames_max: many\n"
		     "    source: s\n",
		     "11:17: /linux/coalesce/frames_max must be a number or 'unknown', not 'many'\n");
	TABLE_EXPECT("    rx_max: 512\n    source: s\n  coalesce:\n    usecs_with_adaptive: no\n"
		     "    source: s\n",
		     "11:26: /linux/coalesce/usecs_with_adaptive must be true, false or unknown\n");
	TABLE_EXPECT("    rx_max: 512\n    source: s\n  coalesce:\n    frames_max: 60\n",
		     "10:3: /linux/coalesce has known values but no source: every number cites "
		     "where it was read\n");
	TABLE_EXPECT("    rx_max: 2047\n    rx_max_no_agg: 8191\n    source: s\n",
		     "7:3: rings.rx_max_no_agg and rings.no_agg_mtu_max go together, with a known "
		     "rx_max\n");
}

/* rings.power_of_two: the three words, unknown, and the located refusals. */
static void test_caps_ring_pow2(void)
{
	struct nt_capsdb t;
	static const struct { const char *word; enum nt_ring_pow2 want; } w[] = {
		{"round-down", NT_POW2_DOWN}, {"round-up", NT_POW2_UP},
		{"refused", NT_POW2_REFUSED}, {"unknown", NT_POW2_NONE},
	};
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		char text[128];
		char *got;

		snprintf(text, sizeof(text), "    rx_max: 512\n    power_of_two: %s\n"
			 "    source: s\n", w[i].word);
		got = load_table(text, &t);
		CU_ASSERT_STRING_EQUAL(got, "");
		free(got);
		CU_ASSERT_PTR_NOT_NULL_FATAL(nt_caps_find(&t, "t"));
		CU_ASSERT_EQUAL(nt_caps_find(&t, "t")->ring_pow2, w[i].want);
		nt_capsdb_free(&t);
	}
	TABLE_EXPECT("    rx_max: 512\n    power_of_two: true\n    source: s\n",
		     "9:19: rings.power_of_two is round-down, round-up, refused or unknown\n");
	TABLE_EXPECT("    rx_max: 512\n    step: 8\n    power_of_two: round-up\n    source: s\n",
		     "10:19: rings.power_of_two and a rings.step above 1 cannot both hold\n");
	TABLE_EXPECT("    power_of_two: round-down\n",
		     "7:3: /linux/rings has known values but no source: every number cites "
		     "where it was read\n");

	CU_ASSERT_EQUAL(nt_pow2_down(3000), 2048u);
	CU_ASSERT_EQUAL(nt_pow2_up(3000), 4096u);
	CU_ASSERT_EQUAL(nt_pow2_down(4096), 4096u);
	CU_ASSERT_EQUAL(nt_pow2_up(4096), 4096u);
	CU_ASSERT_EQUAL(nt_pow2_down(1), 1u);
	CU_ASSERT_EQUAL(nt_pow2_up(0), 1u);
	CU_ASSERT_EQUAL(nt_pow2_down(UINT32_MAX), 0x80000000u);
	CU_ASSERT_EQUAL(nt_pow2_up(0x80000001u), 0u);
}

/* The build-time index of the built-in tables agrees with the tables it
 * stands for, and a table looked up through it is the parsed table. */
static void test_caps_index(void)
{
	struct nt_diags d = {0};
	struct nt_capsdb full;
	const struct nt_capsdb *lazy;
	size_t i, j;

	CU_ASSERT_EQUAL_FATAL(nt_caps_nbuiltin_index, nt_caps_nbuiltin);
	CU_ASSERT_EQUAL_FATAL(nt_capsdb_load_builtin(&full, &d), 0);
	nt_capsdb_default_free();
	lazy = nt_capsdb_default(&d);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lazy);
	CU_ASSERT_EQUAL_FATAL(lazy->n, full.n);
	for (i = 0; i < full.n; i++) {
		const struct nt_caps *f = &full.v[i], *x = &lazy->v[i];

		CU_ASSERT_STRING_EQUAL(x->id, f->id);
		CU_ASSERT_STRING_EQUAL(x->driver, f->driver);
		CU_ASSERT_EQUAL_FATAL(x->npci, f->npci);
		for (j = 0; j < f->npci; j++)
			CU_ASSERT_STRING_EQUAL(x->pci_ids[j], f->pci_ids[j]);
		CU_ASSERT(x->lazy != 0);
	}
	/* found by id: parsed in place, the same values as the full load */
	{
		const struct nt_caps *c = nt_caps_find(lazy, "intel-x710");
		const struct nt_caps *f = nt_caps_find(&full, "intel-x710");

		CU_ASSERT_PTR_NOT_NULL_FATAL(c);
		CU_ASSERT_EQUAL(c->lazy, 0);
		CU_ASSERT_STRING_EQUAL(c->name, f->name);
		CU_ASSERT_EQUAL(c->ring_rx_max.v, f->ring_rx_max.v);
		CU_ASSERT_STRING_EQUAL(c->src_rings, f->src_rings);
	}
	/* by driver (veth has no PCI id), and by PCI id */
	CU_ASSERT_PTR_NOT_NULL(nt_caps_match(lazy, "veth", NULL, NULL));
	CU_ASSERT_STRING_EQUAL(nt_caps_match(lazy, "i40e", "8086:1572", NULL)->name,
			       nt_caps_find(&full, "intel-x710")->name);
	CU_ASSERT_EQUAL(nt_capsdb_parse_all(lazy, &d), 0);
	for (i = 0; i < lazy->n; i++)
		CU_ASSERT_EQUAL(lazy->v[i].lazy, 0);
	CU_ASSERT_EQUAL(d.errors, 0);
	nt_capsdb_free(&full);
	nt_capsdb_default_free();
	nt_diags_free(&d);
}

int main(void)
{
	CU_pSuite s;
	unsigned fails;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("validate", suite_init, suite_clean);
	CU_add_test(s, "tunnel MTU and underlay", test_tunnel_mtu);
	CU_add_test(s, "capability tables", test_capabilities);
	CU_add_test(s, "target-specific keys", test_target_keys);
	CU_add_test(s, "kernel WireGuard has no process", test_kernel_wireguard);
	CU_add_test(s, "interface and adapter names", test_names);
	CU_add_test(s, "NUMA layout and IRQ CPUs", test_numa_irq);
	CU_add_test(s, "RSS keys", test_rss_key);
	CU_add_test(s, "setting names: one rule for every input", test_setting_names);
	CU_add_test(s, "examples have no findings", test_examples_clean);
	CU_add_test(s, "capability table coalesce and ring conditions", test_caps_coalesce_format);
	CU_add_test(s, "capability table rings.power_of_two", test_caps_ring_pow2);
	CU_add_test(s, "built-in capability tables: build-time index, parsed on lookup", test_caps_index);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	fails = CU_get_number_of_failures() + CU_get_number_of_failure_records();
	CU_cleanup_registry();
	nt_intern_free();
	return fails ? 1 : 0;
}
