/* SPDX-License-Identifier: MIT */
/* Lowering: tunnel MTU arithmetic, per-host RSS keys, indirection spread,
 * feature dependencies, and the Windows cmdlet settings. */
#include "nt_test.h"

#define HEAD(target) \
	"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: sg-gw-01}\n" \
	"target: " target "\ninterfaces:\n"

static void lx_init(struct lowered *x)
{
	memset(x, 0, sizeof(*x));
	nt_facts_init(&x->f);
}

static void lx_lower(struct lowered *x, const char *yaml)
{
	if (t_load("lower.yaml", yaml, &x->l))
		return;
	x->errors = t_lower(&x->l, &x->f, &x->obs, &x->des, &x->d, NULL);
}

static uint32_t u32_of(const struct nt_state *st, enum nt_kind_id k, const char *obj,
		       const char *arg)
{
	const struct nt_setting *s = nt_state_get(st, k, obj, arg);

	CU_ASSERT_PTR_NOT_NULL(s);
	return s ? s->val.u : 0;
}

/* --- MTU ----------------------------------------------------------------- */

static uint32_t tunnel_mtu(const char *outer, const char *extra)
{
	struct lowered x;
	char *yaml = nt_xasprintf(HEAD("linux")
				  "  - name: enp1s0f0\n    mtu: 1500\n"
				  "  - name: wg0\n"
				  "    tunnel: {kind: wireguard, underlay: enp1s0f0, outer: %s}\n%s",
				  outer, extra);
	uint32_t v;

	lx_init(&x);
	lx_lower(&x, yaml);
	CU_ASSERT_EQUAL(x.errors, 0);
	v = u32_of(&x.des, NT_K_MTU, "wg0", NULL);
	t_lowered_free(&x);
	free(yaml);
	return v;
}

static void test_mtu_overhead(void)
{
	CU_ASSERT_EQUAL(tunnel_mtu("ipv4", ""), 1440);
	CU_ASSERT_EQUAL(tunnel_mtu("ipv6", ""), 1420);
	CU_ASSERT_EQUAL(tunnel_mtu("dual", ""), 1420);
}

static void test_mtu_derived_note(void)
{
	struct lowered x;
	const struct nt_setting *s;

	lx_init(&x);
	lx_lower(&x, HEAD("linux") "  - name: enp1s0f0\n    mtu: 1500\n"
		 "  - name: wg0\n    tunnel: {kind: wireguard, underlay: enp1s0f0, outer: ipv4}\n");
	s = nt_state_get(&x.des, NT_K_MTU, "wg0", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(s->note, "derived: enp1s0f0 mtu 1500 - WireGuard overhead 60 (ipv4 outer)");
	CU_ASSERT_EQUAL(s->src.line, 9);	/* the tunnel's underlay */
	t_lowered_free(&x);
}

static void test_mtu_from_observed(void)
{
	struct lowered x;
	size_t i;
	bool warned = false;

	/* the underlay's MTU is not in the profile: derive from the host's */
	lx_init(&x);
	nt_state_set(&x.obs, NT_K_MTU, "enp1s0f0", NULL, nt_v_u32(9000), (struct nt_mark){0});
	lx_lower(&x, HEAD("linux") "  - name: enp1s0f0\n    channels: {combined: 4}\n"
		 "  - name: wg0\n    tunnel: {kind: wireguard, underlay: enp1s0f0, outer: ipv6}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	CU_ASSERT_EQUAL(u32_of(&x.des, NT_K_MTU, "wg0", NULL), 8920);
	CU_ASSERT_PTR_NULL(nt_state_get(&x.des, NT_K_MTU, "enp1s0f0", NULL));
	t_lowered_free(&x);

	/* neither in the profile nor observed: not derived, and said so */
	lx_init(&x);
	lx_lower(&x, HEAD("linux") "  - name: enp1s0f0\n    channels: {combined: 4}\n"
		 "  - name: wg0\n    tunnel: {kind: wireguard, underlay: enp1s0f0}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	CU_ASSERT_PTR_NULL(nt_state_get(&x.des, NT_K_MTU, "wg0", NULL));
	for (i = 0; i < x.d.n; i++)
		warned |= x.d.v[i].sev == NT_WARNING &&
			  !strcmp(x.d.v[i].msg, "MTU of wg0 is not derived: the MTU of its underlay "
				  "enp1s0f0 is neither in the profile nor observed");
	CU_ASSERT_TRUE(warned);
	t_lowered_free(&x);
}

static void test_mtu_explicit_does_not_fit(void)
{
	static const char yaml[] = HEAD("linux")
		"  - name: enp1s0f0\n    mtu: 1500\n"
		"  - name: wg0\n    mtu: 1441\n"
		"    tunnel: {kind: wireguard, underlay: enp1s0f0, outer: ipv4}\n";
	struct nt_loaded l;
	struct nt_diags d = {0};
	struct lowered x;
	char *e;

	/* underlay in the profile: the validator refuses it */
	CU_ASSERT_EQUAL_FATAL(nt_load_profile_data("mtu.yaml", yaml, strlen(yaml), NULL, &l, &d), 0);
	CU_ASSERT_EQUAL(nt_validate(&l, nt_capsdb_default(&d), &d), 1);
	e = t_first_error(&d);
	CU_ASSERT_STRING_EQUAL(e, "mtu.yaml:9:10: tunnel wg0 mtu 1441 + WireGuard overhead 60 (ipv4 "
			       "outer) = 1501 exceeds underlay enp1s0f0 mtu 1500; at most 1440 fits");
	free(e);
	nt_loaded_free(&l);
	nt_diags_free(&d);

	/* underlay only observed: lowering refuses it, naming both numbers */
	lx_init(&x);
	nt_state_set(&x.obs, NT_K_MTU, "enp1s0f0", NULL, nt_v_u32(9000), (struct nt_mark){0});
	lx_lower(&x, HEAD("linux") "  - name: enp1s0f0\n    channels: {combined: 4}\n"
		 "  - name: wg0\n    mtu: 8941\n"
		 "    tunnel: {kind: wireguard, underlay: enp1s0f0, outer: ipv4}\n");
	CU_ASSERT_EQUAL(x.errors, 1);
	e = t_first_error(&x.d);
	CU_ASSERT_STRING_EQUAL(e, "lower.yaml:9:10: tunnel wg0 mtu 8941 + WireGuard overhead 60 (ipv4 "
			       "outer) = 9001 exceeds underlay enp1s0f0 mtu 9000; at most 8940 fits");
	free(e);
	t_lowered_free(&x);

	/* 1440 fits exactly */
	lx_init(&x);
	nt_state_set(&x.obs, NT_K_MTU, "enp1s0f0", NULL, nt_v_u32(1500), (struct nt_mark){0});
	lx_lower(&x, HEAD("linux") "  - name: enp1s0f0\n    channels: {combined: 4}\n"
		 "  - name: wg0\n    mtu: 1440\n"
		 "    tunnel: {kind: wireguard, underlay: enp1s0f0, outer: ipv4}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	CU_ASSERT_EQUAL(u32_of(&x.des, NT_K_MTU, "wg0", NULL), 1440);
	t_lowered_free(&x);
}

/* --- RSS ----------------------------------------------------------------- */

/* HMAC-SHA256 with key "nettune rss key v1" over "sg-gw-01\0enp1s0f0\0" "0",
 * then "1": pinned so that a change of the derivation (which would churn
 * every deployed key) fails here first. */
static const uint8_t sg_gw_key[52] = {
	0x5d, 0xb2, 0x58, 0x65, 0x78, 0xed, 0x15, 0x43, 0x18, 0xad, 0xa9, 0xff, 0x89,
	0x92, 0xe5, 0xd9, 0xb5, 0x00, 0x2c, 0xac, 0x8f, 0x32, 0xf8, 0xbf, 0xe2, 0x5e,
	0x76, 0x76, 0xea, 0x4e, 0x77, 0x18, 0x78, 0x5e, 0x6e, 0x9a, 0x9a, 0xdb, 0xcd,
	0x93, 0x23, 0x65, 0x93, 0x6d, 0x8d, 0xcf, 0x90, 0x79, 0xa3, 0x8c, 0xd1, 0x05,
};

static void test_rss_key_stable(void)
{
	uint8_t a[52], b[52], c[52], e[40];

	CU_ASSERT_EQUAL(nt_rss_key_per_host("sg-gw-01", "enp1s0f0", a, sizeof(a)), 0);
	CU_ASSERT_EQUAL(nt_rss_key_per_host("sg-gw-01", "enp1s0f0", b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(memcmp(a, b, sizeof(a)), 0);
	CU_ASSERT_EQUAL(memcmp(a, sg_gw_key, sizeof(a)), 0);
	CU_ASSERT_EQUAL(nt_rss_key_per_host("sg-gw-02", "enp1s0f0", c, sizeof(c)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, c, sizeof(a)), 0);
	CU_ASSERT_EQUAL(nt_rss_key_per_host("sg-gw-01", "enp1s0f1", c, sizeof(c)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(a, c, sizeof(a)), 0);
	/* host and interface are separated: "ab"+"c" is not "a"+"bc" */
	CU_ASSERT_EQUAL(nt_rss_key_per_host("ab", "c", b, sizeof(b)), 0);
	CU_ASSERT_EQUAL(nt_rss_key_per_host("a", "bc", c, sizeof(c)), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(b, c, sizeof(b)), 0);
	CU_ASSERT_EQUAL(nt_rss_key_per_host("sg-gw-01", "enp1s0f0", e, sizeof(e)), 0);
	CU_ASSERT_EQUAL(memcmp(e, sg_gw_key, sizeof(e)), 0);
}

static const struct nt_setting *lower_key(struct lowered *x, const char *nic, int facts_bytes,
					  const char *host)
{
	char *yaml = nt_xasprintf(HEAD("linux") "  - name: enp1s0f0\n%s%s%s"
				  "    channels: {combined: 4}\n    rss: {key: per-host}\n",
				  nic ? "    nic: " : "", nic ? nic : "", nic ? "\n" : "");

	lx_init(x);
	if (facts_bytes > 0) {
		struct nt_iface_facts *F;

		t_topo(&x->f, 1, 4, false);
		F = t_nic(&x->f, "enp1s0f0", 0, 4, 50);
		F->rss_key_bytes = (struct nt_num){true, (uint32_t)facts_bytes};
	} else if (facts_bytes < 0) {
		/* observed without a key: an indirection size, no key size
		 * (virtio_net without VIRTIO_NET_F_RSS reports 0 and 0) */
		struct nt_iface_facts *F;

		t_topo(&x->f, 1, 4, false);
		F = t_nic(&x->f, "enp1s0f0", 0, 4, 50);
		free(F->driver);
		F->driver = nt_xstrdup("virtio_net");
		F->rss_indir_size = (struct nt_num){true, 0};
	}
	if (t_load("lower.yaml", yaml, &x->l) == 0)
		x->errors = t_lower(&x->l, &x->f, &x->obs, &x->des, &x->d, host);
	free(yaml);
	return nt_state_get(&x->des, NT_K_RSS_KEY, "enp1s0f0", NULL);
}

static void test_rss_key_lowering(void)
{
	struct lowered x;
	const struct nt_setting *s;
	uint8_t other[52];
	char *e;

	/* key size from the capability table (i40e: 52) */
	s = lower_key(&x, "intel-x710", 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->val.n, 52);
	CU_ASSERT_EQUAL(memcmp(s->val.bytes, sg_gw_key, 52), 0);
	CU_ASSERT_STRING_EQUAL(s->note, "per-host: HMAC-SHA256 of sg-gw-01/enp1s0f0");
	t_lowered_free(&x);
	/* mlx5: 40 */
	s = lower_key(&x, "mellanox-cx5", 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->val.n, 40);
	CU_ASSERT_EQUAL(memcmp(s->val.bytes, sg_gw_key, 40), 0);
	t_lowered_free(&x);
	/* the host's observed key size wins over the table */
	s = lower_key(&x, "intel-x710", 40, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->val.n, 40);
	t_lowered_free(&x);
	/* the lowering host name seeds it */
	s = lower_key(&x, "intel-x710", 0, "sg-gw-02");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	nt_rss_key_per_host("sg-gw-02", "enp1s0f0", other, sizeof(other));
	CU_ASSERT_EQUAL(memcmp(s->val.bytes, other, 52), 0);
	CU_ASSERT_NOT_EQUAL(memcmp(s->val.bytes, sg_gw_key, 52), 0);
	t_lowered_free(&x);
	/* unknown size: an error, never a guessed length */
	s = lower_key(&x, NULL, 0, NULL);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(x.errors, 1);
	e = t_first_error(&x.d);
	CU_ASSERT_STRING_EQUAL(e, "lower.yaml:8:16: the RSS key size of enp1s0f0 is unknown; name the "
			       "NIC model (nic:) or plan against the live host or a snapshot");
	free(e);
	t_lowered_free(&x);
	/* a device that has no key: said so, with its driver, not "unknown" */
	s = lower_key(&x, NULL, -1, NULL);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(x.errors, 1);
	e = t_first_error(&x.d);
	CU_ASSERT_STRING_EQUAL(e, "lower.yaml:8:16: enp1s0f0 has no RSS key (driver virtio_net, "
			       "observed: no key and no indirection table); remove rss.key");
	free(e);
	t_lowered_free(&x);
	/* a named table that does not know the size: no advice to name one */
	s = lower_key(&x, "virtio-net", 0, NULL);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(x.errors, 1);
	e = t_first_error(&x.d);
	CU_ASSERT_STRING_EQUAL(e, "lower.yaml:9:16: the RSS key size of enp1s0f0 is unknown: the "
			       "virtio-net table (driver virtio_net) does not know it; plan against "
			       "the live host or a snapshot");
	free(e);
	t_lowered_free(&x);
	/* facts that bypassed the loaders' bounds: refused, never copied */
	s = lower_key(&x, "intel-x710", 256, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->val.n, 256);
	t_lowered_free(&x);
	s = lower_key(&x, "intel-x710", 300, NULL);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(x.errors, 1);
	e = t_first_error(&x.d);
	CU_ASSERT_STRING_EQUAL(e, "lower.yaml:9:16: the RSS key size of enp1s0f0 is 300 bytes; nettune "
			       "handles at most 256");
	free(e);
	t_lowered_free(&x);
	s = lower_key(&x, NULL, 4096, NULL);
	CU_ASSERT_PTR_NULL(s);
	CU_ASSERT_EQUAL(x.errors, 1);
	t_lowered_free(&x);
}

/* Counts how often each queue appears; checks floor/ceil of size/queues. */
static void check_spread(const struct nt_setting *s, uint32_t size, uint32_t queues)
{
	uint32_t count[64] = {0};
	size_t i;
	uint32_t q;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL_FATAL(s->val.n, size);
	for (i = 0; i < s->val.n; i++) {
		CU_ASSERT_FATAL(s->val.list[i] < queues);
		count[s->val.list[i]]++;
	}
	for (q = 0; q < queues; q++)
		CU_ASSERT(count[q] == size / queues || count[q] == (size + queues - 1) / queues);
}

static void test_rss_spread(void)
{
	struct lowered x;
	const struct nt_setting *s;
	uint32_t count0 = 0;
	size_t i;

	lx_init(&x);
	lx_lower(&x, HEAD("linux") "  - name: enp1s0f0\n    nic: intel-x710\n"
		 "    channels: {combined: 13}\n    rss: {spread: equal}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	s = nt_state_get(&x.des, NT_K_RSS_INDIR, "enp1s0f0", NULL);
	check_spread(s, 512, 13);
	for (i = 0; s && i < s->val.n; i++)
		count0 += s->val.list[i] == 0;
	CU_ASSERT_EQUAL(count0, 40);	/* 512 = 13 x 39 + 5: queues 0-4 get 40 */
	CU_ASSERT_STRING_EQUAL(s->note, "512 entries, each of 13 queues gets 39 or 40");
	t_lowered_free(&x);

	/* rss.queues: spread over the first N queues only */
	lx_init(&x);
	lx_lower(&x, HEAD("linux") "  - name: enp1s0f0\n    nic: intel-x710\n"
		 "    channels: {combined: 13}\n    rss: {spread: equal, queues: 4}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	check_spread(nt_state_get(&x.des, NT_K_RSS_INDIR, "enp1s0f0", NULL), 512, 4);
	t_lowered_free(&x);

	/* queue count from the host when the profile does not set channels;
	 * table size from the host (overrides the table's 512) */
	lx_init(&x);
	t_topo(&x.f, 1, 8, false);
	t_nic(&x.f, "enp1s0f0", 0, 16, 40)->rss_indir_size = (struct nt_num){true, 128};
	nt_state_set(&x.obs, NT_K_CHANNELS, "enp1s0f0", "combined", nt_v_u32(6), (struct nt_mark){0});
	lx_lower(&x, HEAD("linux") "  - name: enp1s0f0\n    nic: intel-x710\n"
		 "    rss: {spread: equal}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	check_spread(nt_state_get(&x.des, NT_K_RSS_INDIR, "enp1s0f0", NULL), 128, 6);
	t_lowered_free(&x);
}

/* --- features -------------------------------------------------------- */

static const struct nt_setting *feat(struct lowered *x, const char *name)
{
	return nt_state_get(&x->des, NT_K_FEATURE, "eth0", name);
}

static void expect_feat(struct lowered *x, const char *name, bool on, bool implied)
{
	const struct nt_setting *s = feat(x, name);

	if (!s)
		fprintf(stderr, "\n  no feature %s\n", name);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(s->val.b, on);
	CU_ASSERT_EQUAL(!!(s->flags & NT_SF_IMPLIED), implied);
}

static void test_feature_deps(void)
{
	struct lowered x;

	lx_init(&x);
	lx_lower(&x, HEAD("linux") "  - name: eth0\n    offloads: {tso: on}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	expect_feat(&x, "tx-tcp-segmentation", true, false);
	expect_feat(&x, "tx-scatter-gather", true, true);
	expect_feat(&x, "tx-checksum-ip-generic", true, true);
	CU_ASSERT_STRING_EQUAL(feat(&x, "tx-scatter-gather")->note, "implied: tso needs scatter-gather");
	CU_ASSERT_STRING_EQUAL(feat(&x, "tx-checksum-ip-generic")->note, "implied: tso needs tx checksum");
	CU_ASSERT_PTR_NULL(feat(&x, "rx-checksum"));
	t_lowered_free(&x);

	lx_init(&x);
	lx_lower(&x, HEAD("linux") "  - name: eth0\n    offloads: {uso: on}\n");
	expect_feat(&x, "tx-udp-segmentation", true, false);
	expect_feat(&x, "tx-checksum-ip-generic", true, true);
	CU_ASSERT_STRING_EQUAL(feat(&x, "tx-checksum-ip-generic")->note, "implied: uso needs tx checksum");
	CU_ASSERT_PTR_NULL(feat(&x, "tx-scatter-gather"));
	t_lowered_free(&x);

	lx_init(&x);
	lx_lower(&x, HEAD("linux") "  - name: eth0\n    offloads: {gro_hw: on, lro: on}\n");
	expect_feat(&x, "rx-gro-hw", true, false);
	expect_feat(&x, "rx-checksum", true, true);
	CU_ASSERT_STRING_EQUAL(feat(&x, "rx-checksum")->note, "implied: rx-gro-hw needs rx checksum");
	/* LRO is dropped beside GRO_HW (netdev_fix_features) */
	expect_feat(&x, "rx-lro", false, false);
	CU_ASSERT_STRING_EQUAL(feat(&x, "rx-lro")->note,
			       "off: rx-gro-hw is on and the kernel drops LRO beside it");
	t_lowered_free(&x);

	/* what the profile says explicitly is not overridden or marked implied */
	lx_init(&x);
	lx_lower(&x, HEAD("linux") "  - name: eth0\n    offloads: {tso: on, sg: on, checksum: on}\n");
	expect_feat(&x, "tx-scatter-gather", true, false);
	expect_feat(&x, "tx-checksum-ip-generic", true, false);
	expect_feat(&x, "rx-checksum", true, false);
	t_lowered_free(&x);
}

static struct nt_iface_facts *feat_facts(struct lowered *x, const char *const *names,
					 const bool *fixed, size_t n)
{
	struct nt_iface_facts *F;
	size_t k;

	t_topo(&x->f, 1, 4, false);
	F = t_nic(&x->f, "eth0", 0, 4, 50);
	F->features_known = true;
	F->features = nt_xcalloc(n, sizeof(*F->features));
	for (k = 0; k < n; k++) {
		F->features[k].name = nt_strpool_dup(&F->feature_names, names[k]);
		F->features[k].fixed = fixed[k];
	}
	F->nfeatures = n;
	return F;
}

static void test_feature_facts(void)
{
	static const char *const names[] = {
		"tx-checksum-ipv4", "tx-checksum-ipv6", "tx-checksum-fcoe-crc", "rx-checksum",
		"tx-scatter-gather", "tx-tcp-segmentation", "rx-lro", "rx-udp-gro-forwarding",
	};
	static const bool fixed[] = {false, false, true, false, false, false, true, false};
	struct lowered x;
	char *e;

	/* only the names the device has; a fixed bit beside changeable ones is left alone */
	lx_init(&x);
	feat_facts(&x, names, fixed, 8);
	nt_state_set(&x.obs, NT_K_FEATURE, "eth0", "rx-lro", nt_v_bool(false), (struct nt_mark){0});
	lx_lower(&x, HEAD("linux") "  - name: eth0\n    offloads: {checksum: on, lro: off}\n"
		 "    linux: {features: {rx-udp-gro-forwarding: on}}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	expect_feat(&x, "tx-checksum-ipv4", true, false);
	expect_feat(&x, "tx-checksum-ipv6", true, false);
	CU_ASSERT_PTR_NULL(feat(&x, "tx-checksum-ip-generic"));
	CU_ASSERT_PTR_NULL(feat(&x, "tx-checksum-fcoe-crc"));
	expect_feat(&x, "rx-udp-gro-forwarding", true, false);
	/* fixed off and wanted off: fine */
	CU_ASSERT_FALSE(feat(&x, "rx-lro")->flags & NT_SF_CANNOT_CHANGE);
	t_lowered_free(&x);

	/* fixed off and wanted on: cannot change */
	lx_init(&x);
	feat_facts(&x, names, fixed, 8);
	nt_state_set(&x.obs, NT_K_FEATURE, "eth0", "rx-lro", nt_v_bool(false), (struct nt_mark){0});
	lx_lower(&x, HEAD("linux") "  - name: eth0\n    offloads: {lro: on}\n");
	CU_ASSERT_TRUE(feat(&x, "rx-lro")->flags & NT_SF_CANNOT_CHANGE);
	CU_ASSERT_STRING_EQUAL(feat(&x, "rx-lro")->note, "fixed on this device (not in hw_features)");
	t_lowered_free(&x);

	/* a feature the device does not have at all */
	lx_init(&x);
	feat_facts(&x, names, fixed, 8);
	lx_lower(&x, HEAD("linux") "  - name: eth0\n    offloads: {uso: on}\n");
	CU_ASSERT_EQUAL(x.errors, 1);
	e = t_first_error(&x.d);
	CU_ASSERT_STRING_EQUAL(e, "lower.yaml:7:21: eth0 has no uso feature (tx-udp-segmentation); "
			       "it cannot be turned on");
	free(e);
	t_lowered_free(&x);
}

/* --- Windows ------------------------------------------------------------- */

static const char *str_of(const struct nt_state *st, enum nt_kind_id k, const char *obj,
			  const char *arg)
{
	const struct nt_setting *s = nt_state_get(st, k, obj, arg);

	CU_ASSERT_PTR_NOT_NULL(s);
	return s && s->val.s ? s->val.s : "";
}

static bool bool_of(const struct nt_state *st, enum nt_kind_id k, const char *obj,
		    const char *arg)
{
	const struct nt_setting *s = nt_state_get(st, k, obj, arg);

	CU_ASSERT_PTR_NOT_NULL(s);
	return s && s->val.b;
}

static void test_windows(void)
{
	static const char *const fields[] = {"IpIPv4", "TcpIPv4", "TcpIPv6", "UdpIPv4", "UdpIPv6"};
	struct lowered x;
	size_t k;

	lx_init(&x);
	lx_lower(&x, HEAD("windows")
		 "  - name: \"Ethernet 2\"\n    nic: intel-x710\n    mtu: 1500\n"
		 "    offloads:\n      uso: {ipv4: on, ipv6: off}\n      rsc: on\n"
		 "      checksum: on\n      lso: on\n"
		 "    rss: {enabled: true, profile: numa-static, base_processor: 2, "
		 "max_processors: 8, queues: 4}\n"
		 "  - name: wg0\n    tunnel: {kind: wireguard, underlay: \"Ethernet 2\", outer: dual}\n"
		 "global: {receive_segment_coalescing: enabled, uro: disabled}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	CU_ASSERT_TRUE(bool_of(&x.des, NT_K_WIN_USO, "Ethernet 2", "ipv4"));
	CU_ASSERT_FALSE(bool_of(&x.des, NT_K_WIN_USO, "Ethernet 2", "ipv6"));
	CU_ASSERT_TRUE(bool_of(&x.des, NT_K_WIN_RSC, "Ethernet 2", "ipv4"));
	CU_ASSERT_TRUE(bool_of(&x.des, NT_K_WIN_RSC, "Ethernet 2", "ipv6"));
	CU_ASSERT_TRUE(bool_of(&x.des, NT_K_WIN_LSO, "Ethernet 2", "ipv4"));
	CU_ASSERT_TRUE(bool_of(&x.des, NT_K_WIN_LSO, "Ethernet 2", "ipv6"));
	for (k = 0; k < 5; k++)
		CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_CHECKSUM, "Ethernet 2", fields[k]),
				       "RxTxEnabled");
	CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_RSS, "Ethernet 2", "enabled"), "True");
	CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_RSS, "Ethernet 2", "profile"), "NUMAStatic");
	CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_RSS, "Ethernet 2", "base-processor"), "2");
	CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_RSS, "Ethernet 2", "max-processors"), "8");
	CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_RSS, "Ethernet 2", "receive-queues"), "4");
	CU_ASSERT_EQUAL(u32_of(&x.des, NT_K_WIN_IP_MTU, "Ethernet 2", "ipv4"), 1500);
	CU_ASSERT_EQUAL(u32_of(&x.des, NT_K_WIN_IP_MTU, "Ethernet 2", "ipv6"), 1500);
	/* outer dual: 1500 - 80, the seed's 1420, for both families */
	CU_ASSERT_EQUAL(u32_of(&x.des, NT_K_WIN_IP_MTU, "wg0", "ipv4"), 1420);
	CU_ASSERT_EQUAL(u32_of(&x.des, NT_K_WIN_IP_MTU, "wg0", "ipv6"), 1420);
	CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_GLOBAL, "global", "receive-segment-coalescing"),
			       "Enabled");
	CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_GLOBAL, "global", "uro"), "Disabled");
	t_lowered_free(&x);
}

static void test_windows_checksum_dirs(void)
{
	struct lowered x;

	lx_init(&x);
	lx_lower(&x, HEAD("windows") "  - name: \"Ethernet 2\"\n"
		 "    offloads: {rx_checksum: on, tx_checksum: off}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_CHECKSUM, "Ethernet 2", "TcpIPv6"), "RxEnabled");
	t_lowered_free(&x);
	lx_init(&x);
	lx_lower(&x, HEAD("windows") "  - name: \"Ethernet 2\"\n"
		 "    offloads: {rx_checksum: off, tx_checksum: on}\n");
	CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_CHECKSUM, "Ethernet 2", "UdpIPv4"), "TxEnabled");
	t_lowered_free(&x);
	lx_init(&x);
	lx_lower(&x, HEAD("windows") "  - name: \"Ethernet 2\"\n    offloads: {checksum: off}\n");
	CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_CHECKSUM, "Ethernet 2", "IpIPv4"), "Disabled");
	t_lowered_free(&x);
}

static void test_windows_rss_profiles(void)
{
	static const struct { const char *yaml, *cmdlet; } m[] = {
		{"closest", "Closest"}, {"closest-static", "ClosestStatic"}, {"numa", "NUMA"},
		{"numa-static", "NUMAStatic"}, {"conservative", "Conservative"},
	};
	size_t k;

	for (k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		struct lowered x;
		char *yaml = nt_xasprintf(HEAD("windows") "  - name: \"Ethernet 2\"\n"
					  "    rss: {profile: %s}\n", m[k].yaml);

		lx_init(&x);
		lx_lower(&x, yaml);
		CU_ASSERT_STRING_EQUAL(str_of(&x.des, NT_K_WIN_RSS, "Ethernet 2", "profile"), m[k].cmdlet);
		t_lowered_free(&x);
		free(yaml);
	}
}

/* The row tunables: one setting each, canonical values, device names checked. */
static void test_rows(void)
{
	struct lowered x;
	const struct nt_setting *s;
	char *e;

	lx_init(&x);
	lx_lower(&x, HEAD("linux") "  - name: enp1s0f0\n    txqueuelen: 10000\n"
		 "    pause: {autoneg: off, tx: on}\n"
		 "    offloads: {udp_gro_forwarding: on, gro_list: off}\n"
		 "    rss: {flow_hash: {udp4: [dst-port, src-ip, src-port, dst-ip], tcp6: [l2da]}}\n"
		 "    linux: {private_flags: {legacy-rx: on}}\n");
	CU_ASSERT_EQUAL(x.errors, 0);
	CU_ASSERT_EQUAL(u32_of(&x.des, NT_K_TXQLEN, "enp1s0f0", NULL), 10000);
	s = nt_state_get(&x.des, NT_K_PAUSE, "enp1s0f0", "autoneg");
	CU_ASSERT_TRUE(s && !s->val.b);
	s = nt_state_get(&x.des, NT_K_PAUSE, "enp1s0f0", "tx");
	CU_ASSERT_TRUE(s && s->val.b);
	CU_ASSERT_PTR_NULL(nt_state_get(&x.des, NT_K_PAUSE, "enp1s0f0", "rx"));
	s = nt_state_get(&x.des, NT_K_FEATURE, "enp1s0f0", "rx-udp-gro-forwarding");
	CU_ASSERT_TRUE(s && s->val.b);
	s = nt_state_get(&x.des, NT_K_FEATURE, "enp1s0f0", "rx-gro-list");
	CU_ASSERT_TRUE(s && !s->val.b);
	/* the kernel's bit order, whatever the profile's order (validate refuses repeats) */
	s = nt_state_get(&x.des, NT_K_FLOW_HASH, "enp1s0f0", "udp4");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(s->val.s, "src-ip dst-ip src-port dst-port");
	CU_ASSERT_EQUAL(s->src.line, 10);
	s = nt_state_get(&x.des, NT_K_FLOW_HASH, "enp1s0f0", "tcp6");
	CU_ASSERT_TRUE(s && !strcmp(s->val.s, "l2da"));
	s = nt_state_get(&x.des, NT_K_PRIV_FLAG, "enp1s0f0", "legacy-rx");
	CU_ASSERT_TRUE(s && s->val.b);
	t_lowered_free(&x);

	/* a device that reports private flags: an unknown name is a located error */
	lx_init(&x);
	nt_state_set(&x.obs, NT_K_PRIV_FLAG, "enp1s0f0", "legacy-rx", nt_v_bool(false), (struct nt_mark){0});
	nt_state_set(&x.obs, NT_K_PRIV_FLAG, "enp1s0f0", "disable-fw-lldp", nt_v_bool(false),
		     (struct nt_mark){0});
	lx_lower(&x, HEAD("linux") "  - name: enp1s0f0\n"
		 "    linux: {private_flags: {legacy_rx: on}}\n");
	CU_ASSERT_EQUAL(x.errors, 1);
	e = t_first_error(&x.d);
	CU_ASSERT_STRING_EQUAL(e, "lower.yaml:7:29: enp1s0f0 has no private flag 'legacy_rx' (it has: "
			       "legacy-rx, disable-fw-lldp)");
	free(e);
	CU_ASSERT_PTR_NULL(nt_state_get(&x.des, NT_K_PRIV_FLAG, "enp1s0f0", "legacy_rx"));
	t_lowered_free(&x);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("lower", NULL, NULL);
	CU_add_test(s, "WireGuard overhead per outer family", test_mtu_overhead);
	CU_add_test(s, "derived tunnel MTU note and source", test_mtu_derived_note);
	CU_add_test(s, "tunnel MTU from the observed underlay", test_mtu_from_observed);
	CU_add_test(s, "explicit tunnel MTU that does not fit", test_mtu_explicit_does_not_fit);
	CU_add_test(s, "per-host RSS key is stable", test_rss_key_stable);
	CU_add_test(s, "per-host RSS key length", test_rss_key_lowering);
	CU_add_test(s, "indirection spread", test_rss_spread);
	CU_add_test(s, "feature dependencies", test_feature_deps);
	CU_add_test(s, "features against host facts", test_feature_facts);
	CU_add_test(s, "windows settings", test_windows);
	CU_add_test(s, "windows checksum directions", test_windows_checksum_dirs);
	CU_add_test(s, "windows RSS profile names", test_windows_rss_profiles);
	CU_add_test(s, "txqueuelen, pause, GRO forwarding, flow hash, private flags", test_rows);
	return t_run(s);
}
