/* SPDX-License-Identifier: MIT */
/*
 * The tunnel overhead table (compiler/model/tunnel.c): its rows, the MTU every
 * kind derives from an underlay, the exact-fit boundary of each kind in
 * validation (fits, one byte more fails with the located arithmetic), the
 * option and outer-family rules, and the live device kind at plan time.
 */
#include "nt_test.h"
#include "schema.h"
#include "tunnel.h"

#define HEAD \
	"apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h1}\n" \
	"target: linux\ninterfaces:\n"		/* lines 1-5 */

/* Every diagnostic of validating text, "LINE:COL: message\n" each. */
static char *validate_text(const char *text)
{
	struct nt_diags d = {0};
	struct nt_loaded l;
	struct nt_buf out = {0};
	size_t i;

	if (nt_load_profile_data("t.yaml", text, strlen(text), NULL, &l, &d) == 0) {
		nt_validate(&l, NULL, &d);
		nt_loaded_free(&l);
	}
	for (i = 0; i < d.n; i++)
		nt_buf_printf(&out, "%u:%u: %s\n", d.v[i].mark.line, d.v[i].mark.col, d.v[i].msg);
	nt_diags_free(&d);
	return out.p ? nt_buf_take(&out) : nt_xstrdup("");
}

#define EXPECT(text, want) do {					\
	char *got_ = validate_text(text);			\
	CU_ASSERT_STRING_EQUAL(got_, want);			\
	if (strcmp(got_, want))					\
		fprintf(stderr, "\n  want: %s  got:  %s", (const char *)(want), got_); \
	free(got_);						\
} while (0)

/* One kind and its options over an underlay of 1500: the MTU that fits
 * exactly, and the overhead of a packet one byte larger. */
static const struct kase {
	const char *tunnel;		/* the flow mapping's keys after kind/underlay */
	const char *label, *what;
	unsigned fit, oh_next;
} cases[] = {
	{"kind: wireguard", "WireGuard", "ipv4 outer", 1440, 60},
	{"kind: wireguard, outer: ipv6", "WireGuard", "ipv6 outer", 1420, 80},
	{"kind: wireguard, outer: dual", "WireGuard", "dual outer", 1420, 80},
	{"kind: vxlan", "VXLAN", "ipv4 outer", 1450, 50},
	{"kind: vxlan, outer: ipv6", "VXLAN", "ipv6 outer", 1430, 70},
	{"kind: geneve", "Geneve", "ipv4 outer", 1450, 50},
	{"kind: geneve, options_length: 8", "Geneve", "ipv4 outer, 8 option bytes", 1442, 58},
	{"kind: geneve, outer: ipv6, options_length: 252, inner: ipv4", "Geneve", "ipv6 outer, 252 option bytes",
	 1178, 322},
	{"kind: gre", "GRE", "ipv4 outer", 1476, 24},
	{"kind: gre, key: on, sequence: on, checksum: on", "GRE",
	 "ipv4 outer, key, sequence, checksum", 1464, 36},
	{"kind: gretap, key: on", "GRETAP", "ipv4 outer, key", 1458, 42},
	{"kind: ipip", "IPIP", "ipv4 outer", 1480, 20},
	{"kind: sit", "SIT", "ipv4 outer", 1480, 20},
	{"kind: ip6tnl", "ip6tnl", "ipv6 outer", 1452, 48},
	{"kind: ip6tnl, encap_limit: off", "ip6tnl", "ipv6 outer, no encapsulation limit", 1460, 40},
	{"kind: ip6gre", "ip6gre", "ipv6 outer", 1448, 52},
	{"kind: ip6gretap", "ip6gretap", "ipv6 outer", 1434, 66},
	/* ESP: the padding makes the overhead depend on the packet: 1447 + 2
	 * pads to 1452 (blocks of 4), 52 + 1452 - 1447 = 57 */
	{"kind: esp", "ESP", "ipv4 outer, aes-gcm", 1446, 57},
	{"kind: esp, cipher: chacha20-poly1305, outer: ipv6", "ESP", "ipv6 outer, chacha20-poly1305",
	 1426, 77},
	/* xfrm_state_mtu: ((1500 - 44 - 12) & ~15) - 2 = 1438; 1439 + 2 pads to 1456 */
	{"kind: esp, cipher: aes-cbc-sha1", "ESP", "ipv4 outer, aes-cbc-sha1", 1438, 73},
	{"kind: esp, cipher: aes-cbc-sha256, nat_traversal: on", "ESP",
	 "ipv4 outer, aes-cbc-sha256, NAT-T", 1422, 85},
	{"kind: esp, nat_traversal: on", "ESP", "ipv4 outer, aes-gcm, NAT-T", 1438, 65},
};

static void test_rows(void)
{
	size_t i, n;
	enum nt_tunnel_kind k;

	/* each row says what its bytes are and where the kernel fixes them */
	for (i = 0; i < nt_tunnel_nrows; i++) {
		CU_ASSERT_TRUE(nt_tunnel_rows[i].bytes > 0);
		CU_ASSERT_TRUE(strlen(nt_tunnel_rows[i].layout) > 4);
		CU_ASSERT_PTR_NOT_NULL(strchr(nt_tunnel_rows[i].source, '/'));
	}
	/* one row per kind and outer family it allows */
	for (k = NT_TUNNEL_WIREGUARD; k <= NT_TUNNEL_ESP; k++) {
		const struct nt_tunnel_kind_info *ki = nt_tunnel_kind(k);

		CU_ASSERT_PTR_NOT_NULL_FATAL(ki->name);
		for (n = 0, i = 0; i < nt_tunnel_nrows; i++)
			if (nt_tunnel_rows[i].kind == k) {
				n++;
				CU_ASSERT_TRUE(ki->outers & (1u << nt_tunnel_rows[i].outer));
			}
		CU_ASSERT_EQUAL(n, (ki->outers & (1u << NT_OUTER_IPV4) ? 1u : 0u) +
				   (ki->outers & (1u << NT_OUTER_IPV6) ? 1u : 0u));
		CU_ASSERT_TRUE(nt_tunnel_link_is(k, ki->link_kinds[0]));
	}
	CU_ASSERT_TRUE(nt_tunnel_link_kind("vxlan"));
	CU_ASSERT_TRUE(nt_tunnel_link_is(NT_TUNNEL_ESP, "xfrm"));
	CU_ASSERT_FALSE(nt_tunnel_link_kind("veth"));
	CU_ASSERT_FALSE(nt_tunnel_link_is(NT_TUNNEL_VXLAN, "geneve"));
	CU_ASSERT_EQUAL(nt_esp_cipher(NT_ESP_AES_CBC_SHA1)->icv, 12);
	/* the profile's spellings and the table's: one per enum value, the same */
	CU_ASSERT_EQUAL(nt_tunnel_kind_nstrings, nt_tunnel_nkinds);
	CU_ASSERT_EQUAL(nt_tunnel_nkinds, NT_TUNNEL_ESP + 1);
	for (i = 0; i < nt_tunnel_kind_nstrings; i++)
		CU_ASSERT_STRING_EQUAL(nt_tunnel_kind_strings[i].str,
				       nt_tunnel_kind((enum nt_tunnel_kind)nt_tunnel_kind_strings[i].val)->name);
	CU_ASSERT_EQUAL(nt_esp_cipher_nstrings, nt_esp_nciphers);
	CU_ASSERT_EQUAL(nt_esp_nciphers, NT_ESP_AES_CBC_SHA256 + 1);
	for (i = 0; i < nt_esp_cipher_nstrings; i++)
		CU_ASSERT_STRING_EQUAL(nt_esp_cipher_strings[i].str,
				       nt_esp_cipher((enum nt_esp_cipher)nt_esp_cipher_strings[i].val)->name);
	CU_ASSERT_EQUAL(nt_esp_cipher(NT_ESP_AES_GCM)->iv, 8);
	/* the key documentation (JSON Schema descriptions) names every kind,
	 * and the mtu key does not describe WireGuard's overhead as the only one */
	for (i = 0; i < nt_tunnel_kind_nstrings; i++) {
		const char *kn = nt_tunnel_kind_strings[i].str;

		CU_ASSERT_PTR_NOT_NULL(strstr(nt_key_doc(nt_iface_fields, "tunnel"), kn));
		if (!strstr(nt_key_doc(nt_iface_fields, "tunnel"), kn))
			fprintf(stderr, "\n  the tunnel key's doc lacks %s", kn);
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(nt_key_doc(nt_iface_fields, "mtu"), "nettune-profile(5)"));
}

/* Validation: the fit passes, one byte more fails at the tunnel's mtu. */
static void test_boundaries(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct kase *c = &cases[i];
		char *ok = nt_xasprintf(HEAD "  - {name: eth0, mtu: 1500}\n  - name: t0\n    mtu: %u\n"
					"    tunnel: {%s, underlay: eth0}\n", c->fit, c->tunnel);
		char *bad = nt_xasprintf(HEAD "  - {name: eth0, mtu: 1500}\n  - name: t0\n    mtu: %u\n"
					 "    tunnel: {%s, underlay: eth0}\n", c->fit + 1, c->tunnel);
		char *want = nt_xasprintf("8:10: tunnel t0 mtu %u + %s overhead %u (%s) = %u exceeds "
					  "underlay eth0 mtu 1500; at most %u fits\n", c->fit + 1,
					  c->label, c->oh_next, c->what, c->fit + 1 + c->oh_next, c->fit);

		EXPECT(ok, "");
		EXPECT(bad, want);
		free(ok);
		free(bad);
		free(want);
	}
}

/* Lowering: the derived MTU is the fit, with its arithmetic in the note. */
static void test_derived(void)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct kase *c = &cases[i];
		char *yaml = nt_xasprintf(HEAD "  - {name: eth0, mtu: 1500}\n  - name: t0\n"
					  "    tunnel: {%s, underlay: eth0}\n", c->tunnel);
		char *note = nt_xasprintf("derived: eth0 mtu 1500 - %s overhead %u (%s)", c->label,
					  1500 - c->fit, c->what);
		struct lowered x;
		const struct nt_setting *s;

		memset(&x, 0, sizeof(x));
		nt_facts_init(&x.f);
		if (t_load("t.yaml", yaml, &x.l) == 0) {
			x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
			CU_ASSERT_EQUAL(x.errors, 0);
			s = nt_state_get(&x.des, NT_K_MTU, "t0", NULL);
			CU_ASSERT_PTR_NOT_NULL(s);
			if (s) {
				CU_ASSERT_EQUAL(s->val.u, c->fit);
				CU_ASSERT_STRING_EQUAL(s->note ? s->note : "", note);
			}
		}
		t_lowered_free(&x);
		free(yaml);
		free(note);
	}
}

static void test_rules(void)
{
	/* outer families a kind does not have */
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n"
	       "    tunnel: {kind: sit, underlay: eth0, outer: ipv6}\n",
	       "8:48: outer: ipv6 does not fit kind sit, whose outer header is IPv4 (ip6tnl "
	       "carries over IPv6)\n");
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n"
	       "    tunnel: {kind: ip6gre, underlay: eth0, outer: ipv4}\n",
	       "8:51: outer: ipv4 does not fit kind ip6gre, whose outer header is IPv6 (gre "
	       "carries over IPv4)\n");
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n"
	       "    tunnel: {kind: vxlan, underlay: eth0, outer: dual}\n",
	       "8:50: a vxlan device has one outer family: say ipv4 or ipv6, not dual (dual is "
	       "for wireguard and esp, whose peers may be of both)\n");
	/* options of another kind, a bad cipher, bad option lengths */
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n"
	       "    tunnel: {kind: vxlan, underlay: eth0, cipher: aes-gcm}\n",
	       "8:43: tunnel.cipher applies to esp tunnels; t0 is vxlan\n");
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n"
	       "    tunnel: {kind: esp, underlay: eth0, key: on}\n",
	       "8:41: tunnel.key applies to gre, gretap, ip6gre and ip6gretap tunnels; t0 is esp\n");
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n"
	       "    tunnel: {kind: gre, underlay: eth0, encap_limit: off}\n",
	       "8:41: tunnel.encap_limit applies to ip6tnl, ip6gre and ip6gretap tunnels; t0 is gre\n");
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n"
	       "    tunnel: {kind: geneve, underlay: eth0, options_length: 6}\n",
	       "8:60: interfaces[1].tunnel.options_length = 6 is not a multiple of 4\n");
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n"
	       "    tunnel: {kind: geneve, underlay: eth0, options_length: 256}\n",
	       "8:60: interfaces[1].tunnel.options_length = 256 is out of range 0..252\n");
	/* the inner packets of sit are IPv6 */
	EXPECT(HEAD "  - {name: eth0, mtu: 1299}\n  - name: t0\n"
	       "    tunnel: {kind: sit, underlay: eth0}\n",
	       "6:23: underlay eth0 mtu 1299 - SIT overhead 20 (ipv4 outer) = 1279 leaves tunnel t0 "
	       "below the IPv6 minimum mtu of 1280\n");
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n    mtu: 1279\n"
	       "    tunnel: {kind: sit, underlay: eth0}\n",
	       "8:10: tunnel t0 mtu 1279 is below 1280, the smallest MTU of the IPv6 packets a sit "
	       "tunnel carries\n");
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n"
	       "    tunnel: {kind: gretap, underlay: eth0, outer: ipv6}\n",
	       "8:51: outer: ipv6 does not fit kind gretap, whose outer header is IPv4 (ip6gretap "
	       "carries over IPv6)\n");
	EXPECT(HEAD "  - {name: eth0, mtu: 1300}\n  - name: t0\n"
	       "    tunnel: {kind: sit, underlay: eth0}\n", "");
	/* Windows tunes WireGuard adapters only */
	EXPECT("apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h1}\n"
	       "target: windows\ninterfaces:\n  - {name: Ethernet}\n  - name: t0\n"
	       "    tunnel: {kind: vxlan, underlay: Ethernet}\n",
	       "8:20: tunnel kind vxlan has no Windows adapter nettune tunes; this profile targets "
	       "windows, where only wireguard tunnels are tuned\n");
}

/* A plan against a host whose device is another tunnel kind. */
static void test_live_kind(void)
{
	struct lowered x;
	struct nt_iface_facts *F;
	char *e;

	memset(&x, 0, sizeof(x));
	nt_facts_init(&x.f);
	x.f.known = true;
	F = nt_facts_add_iface(&x.f, "eth0");
	F->kind = nt_xstrdup("veth");
	F = nt_facts_add_iface(&x.f, "vx0");
	F->kind = nt_xstrdup("vxlan");
	if (t_load("t.yaml", HEAD "  - {name: eth0, mtu: 1500}\n  - name: vx0\n"
		   "    tunnel: {kind: geneve, underlay: eth0}\n", &x.l) == 0) {
		x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
		e = t_first_error(&x.d);
		CU_ASSERT_STRING_EQUAL(e, "t.yaml:8:20: vx0 is a vxlan device on this host; the "
				       "profile says tunnel kind geneve");
		free(e);
	}
	t_lowered_free(&x);

	/* a veth, a NIC: no tunnel at all */
	for (int n = 0; n < 2; n++) {
		memset(&x, 0, sizeof(x));
		nt_facts_init(&x.f);
		x.f.known = true;
		nt_facts_add_iface(&x.f, "eth0")->kind = nt_xstrdup("veth");
		if (n)
			t_nic(&x.f, "vx0", 0, 1, 100);
		else
			nt_facts_add_iface(&x.f, "vx0")->kind = nt_xstrdup("veth");
		if (t_load("t.yaml", HEAD "  - {name: eth0, mtu: 1500}\n  - name: vx0\n"
			   "    tunnel: {kind: vxlan, underlay: eth0}\n", &x.l) == 0) {
			x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
			e = t_first_error(&x.d);
			CU_ASSERT_STRING_EQUAL(e, n ? "t.yaml:8:20: vx0 is a NIC on this host (driver i40e); "
					       "the profile says it is a vxlan tunnel" :
					       "t.yaml:8:20: vx0 is a veth device on this host; the profile "
					       "says tunnel kind vxlan");
			free(e);
		}
		t_lowered_free(&x);
	}
	/* ESP on a VTI (IPv4 outer only) with outer: ipv6; on a VTI6 with ipv6 */
	for (int n = 0; n < 2; n++) {
		memset(&x, 0, sizeof(x));
		nt_facts_init(&x.f);
		x.f.known = true;
		nt_facts_add_iface(&x.f, "eth0")->kind = nt_xstrdup("veth");
		nt_facts_add_iface(&x.f, "ipsec0")->kind = nt_xstrdup(n ? "vti6" : "vti");
		if (t_load("t.yaml", HEAD "  - {name: eth0, mtu: 1500}\n  - name: ipsec0\n"
			   "    tunnel: {kind: esp, underlay: eth0, outer: ipv6}\n", &x.l) == 0) {
			x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
			e = t_first_error(&x.d);
			CU_ASSERT_STRING_EQUAL(e, n ? "" : "t.yaml:8:5: ipsec0 is a vti device on this "
					       "host, whose outer header is IPv4; the profile says outer: ipv6");
			free(e);
		}
		t_lowered_free(&x);
	}
	/* userspace WireGuard on a tun device: no error */
	memset(&x, 0, sizeof(x));
	nt_facts_init(&x.f);
	x.f.known = true;
	nt_facts_add_iface(&x.f, "eth0")->kind = nt_xstrdup("veth");
	nt_facts_add_iface(&x.f, "wg0")->kind = nt_xstrdup("tun");
	if (t_load("t.yaml", HEAD "  - {name: eth0, mtu: 1500}\n  - name: wg0\n"
		   "    tunnel: {kind: wireguard, underlay: eth0}\n", &x.l) == 0) {
		x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
		CU_ASSERT_EQUAL(x.errors, 0);
	}
	t_lowered_free(&x);

	/* the same device as vxlan: no error */
	memset(&x, 0, sizeof(x));
	nt_facts_init(&x.f);
	x.f.known = true;
	F = nt_facts_add_iface(&x.f, "eth0");
	F->kind = nt_xstrdup("veth");
	F = nt_facts_add_iface(&x.f, "vx0");
	F->kind = nt_xstrdup("vxlan");
	if (t_load("t.yaml", HEAD "  - {name: eth0, mtu: 9000}\n  - name: vx0\n"
		   "    tunnel: {kind: vxlan, underlay: eth0}\n", &x.l) == 0) {
		x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
		CU_ASSERT_EQUAL(x.errors, 0);
		CU_ASSERT_EQUAL(nt_state_get(&x.des, NT_K_MTU, "vx0", NULL)->val.u, 8950);
	}
	t_lowered_free(&x);
}

/* Tunnels over tunnels: a loop of underlays is refused, MTUs are derived
 * down the chain whatever the order of the list, and a plan raises them
 * from the NIC up and lowers them from the top down. */
static void test_nested(void)
{
	static const char *const names[] = {"eth0", "g0", "v0", "e0"};
	static const char *const lk[] = {"veth", "gre", "vxlan", "xfrm"};
	/* listed top first: e0 over v0 over g0 over eth0 */
	static const char *const chain =
		HEAD "  - name: e0\n    tunnel: {kind: esp, underlay: v0}\n"
		"  - name: v0\n    tunnel: {kind: vxlan, underlay: g0}\n"
		"  - name: g0\n    tunnel: {kind: gre, underlay: eth0}\n"
		"  - {name: eth0, mtu: %u}\n";
	static const unsigned small[] = {1500, 1476, 1426, 1370}, big[] = {9000, 8976, 8926, 8870};
	struct lowered x;
	struct nt_plan pl;
	char text[512];
	size_t i;

	EXPECT(HEAD "  - name: a0\n    tunnel: {kind: gre, underlay: b0}\n"
	       "  - name: b0\n    tunnel: {kind: ipip, underlay: a0}\n"
	       "  - name: c0\n    tunnel: {kind: vxlan, underlay: a0}\n",
	       "7:35: the underlays of tunnel a0 come back to it (a0 -> b0 -> a0): a tunnel's "
	       "packets must leave by a device that is not carried inside it\n"
	       "9:36: the underlays of tunnel b0 come back to it (b0 -> a0 -> b0): a tunnel's "
	       "packets must leave by a device that is not carried inside it\n");
	/* eth0 150 - 38 = 112 for g0, 112 - 50 = 62 for v0: below 68 */
	EXPECT(HEAD "  - {name: eth0, mtu: 150}\n"
	       "  - name: g0\n    tunnel: {kind: gretap, underlay: eth0, inner: ipv4}\n"
	       "  - name: v0\n    tunnel: {kind: vxlan, underlay: g0}\n",
	       "10:37: underlay g0 mtu 112 (derived) - VXLAN overhead 50 (ipv4 outer) = 62 "
	       "leaves tunnel v0 below the IPv4 minimum mtu of 68\n");
	EXPECT(HEAD "  - {name: eth0, mtu: 1500}\n"
	       "  - name: g0\n    tunnel: {kind: gre, underlay: eth0}\n"
	       "  - name: v0\n    mtu: 1427\n    tunnel: {kind: vxlan, underlay: g0}\n",
	       "10:10: tunnel v0 mtu 1427 + VXLAN overhead 50 (ipv4 outer) = 1477 exceeds "
	       "underlay g0 mtu 1476 (derived); at most 1426 fits\n");
	snprintf(text, sizeof(text), chain, 9000u);
	EXPECT(text, "");

	/* the host at 1500 and its tunnels derived from it; the profile
	 * raises eth0 to 9000: every tunnel follows, NIC first */
	memset(&x, 0, sizeof(x));
	nt_facts_init(&x.f);
	x.f.known = true;
	for (i = 0; i < 4; i++) {
		nt_facts_add_iface(&x.f, names[i])->kind = nt_xstrdup(lk[i]);
		nt_state_set(&x.obs, NT_K_MTU, names[i], NULL, nt_v_u32(small[i]), (struct nt_mark){0});
	}
	if (t_load("t.yaml", text, &x.l) == 0) {
		x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
		CU_ASSERT_EQUAL(x.errors, 0);
		for (i = 0; i < 4; i++)
			CU_ASSERT_EQUAL(nt_state_get(&x.des, NT_K_MTU, names[i], NULL)->val.u, big[i]);
		t_plan(&x.l, &x.f, &x.obs, &x.des, &pl);
		CU_ASSERT_EQUAL(pl.n, 4);
		for (i = 0; i < 4 && pl.n == 4; i++)
			CU_ASSERT_STRING_EQUAL(pl.v[i].object, names[i]);
		nt_plan_free(&pl);
	}
	t_lowered_free(&x);

	/* and back down to 1500: the top tunnel first */
	memset(&x, 0, sizeof(x));
	nt_facts_init(&x.f);
	x.f.known = true;
	for (i = 0; i < 4; i++) {
		nt_facts_add_iface(&x.f, names[i])->kind = nt_xstrdup(lk[i]);
		nt_state_set(&x.obs, NT_K_MTU, names[i], NULL, nt_v_u32(big[i]), (struct nt_mark){0});
	}
	snprintf(text, sizeof(text), chain, 1500u);
	if (t_load("t.yaml", text, &x.l) == 0) {
		x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
		CU_ASSERT_EQUAL(x.errors, 0);
		for (i = 0; i < 4; i++)
			CU_ASSERT_EQUAL(nt_state_get(&x.des, NT_K_MTU, names[i], NULL)->val.u, small[i]);
		t_plan(&x.l, &x.f, &x.obs, &x.des, &pl);
		CU_ASSERT_EQUAL(pl.n, 4);
		for (i = 0; i < 4 && pl.n == 4; i++)
			CU_ASSERT_STRING_EQUAL(pl.v[i].object, names[3 - i]);
		nt_plan_free(&pl);
	}
	t_lowered_free(&x);
}

/* An observed underlay MTU beyond 65535 (a snapshot may say anything):
 * the derived MTU stays within what an outer packet can carry. */
static void test_huge_underlay(void)
{
	static const uint32_t huge[] = {65536, 70000, 4294967295u};
	struct lowered x;
	size_t n;

	for (n = 0; n < 3; n++) {
		memset(&x, 0, sizeof(x));
		nt_facts_init(&x.f);
		x.f.known = true;
		nt_facts_add_iface(&x.f, "eth0")->kind = nt_xstrdup("veth");
		nt_facts_add_iface(&x.f, "g0")->kind = nt_xstrdup("gre");
		nt_facts_add_iface(&x.f, "e0")->kind = nt_xstrdup("xfrm");
		nt_state_set(&x.obs, NT_K_MTU, "eth0", NULL, nt_v_u32(huge[n]), (struct nt_mark){0});
		if (t_load("t.yaml", HEAD "  - {name: eth0}\n"
			   "  - name: g0\n    tunnel: {kind: gre, underlay: eth0}\n"
			   "  - name: e0\n    tunnel: {kind: esp, underlay: eth0, cipher: aes-cbc-sha1}\n",
			   &x.l) == 0) {
			x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
			CU_ASSERT_EQUAL(x.errors, 0);
			CU_ASSERT_EQUAL(nt_state_get(&x.des, NT_K_MTU, "g0", NULL)->val.u, 65511);
			/* ((65535 - 44 - 12) & ~15) - 2 */
			CU_ASSERT_EQUAL(nt_state_get(&x.des, NT_K_MTU, "e0", NULL)->val.u, 65470);
		}
		t_lowered_free(&x);
	}
}

/* The longest chain a profile can list (1024 interfaces: eth0 and 1023
 * tunnels, each over the next, listed top first), and the same chain
 * closed into a loop: resolved once per profile, not per tunnel and step
 * (that took minutes). */
static char *deep_chain(bool loop)
{
	struct nt_buf b = {0};
	unsigned i;

	nt_buf_puts(&b, HEAD);
	for (i = 1023; i >= 1; i--)
		nt_buf_printf(&b, "  - name: t%u\n    tunnel: {kind: ipip, underlay: t%u, inner: ipv4}\n",
			      i, i == 1 && loop ? 1023 : i - 1);
	nt_buf_puts(&b, "  - {name: t0, mtu: 65535}\n");
	return nt_buf_take(&b);
}

static void test_deep_chain(void)
{
	char *text = deep_chain(false), *got;
	struct lowered x;
	size_t n = 0;

	got = validate_text(text);
	CU_ASSERT_STRING_EQUAL(got, "");
	free(got);
	memset(&x, 0, sizeof(x));
	if (t_load("t.yaml", text, &x.l) == 0) {
		x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
		CU_ASSERT_EQUAL(x.errors, 0);
		CU_ASSERT_EQUAL(nt_state_get(&x.des, NT_K_MTU, "t1023", NULL)->val.u, 65535 - 1023 * 20);
		CU_ASSERT_EQUAL(nt_state_get(&x.des, NT_K_MTU, "t1", NULL)->val.u, 65515);
	}
	t_lowered_free(&x);
	free(text);
	/* t1 over t1023 instead of t0: one loop of 1023, each reported */
	text = deep_chain(true);
	got = validate_text(text);
	for (char *q = got; (q = strstr(q, "come back to it")); q++)
		n++;
	CU_ASSERT_EQUAL(n, 1023);
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "the underlays of tunnel t1 come back to it (t1 -> "
				      "t1023 -> t1022 -> t1021 -> t1020 -> t1019 -> t1018 -> "
				      "t1017 -> t1016 -> t1015 -> ... -> t1)"));
	free(got);
	free(text);
}

/* Windows: an observed underlay too small for the tunnel is an error, not
 * a warning that its MTU is unknown. */
static void test_windows_small(void)
{
	struct lowered x;
	char *e;

	memset(&x, 0, sizeof(x));
	nt_facts_init(&x.f);
	x.f.known = true;
	nt_facts_add_iface(&x.f, "Ethernet");
	nt_facts_add_iface(&x.f, "wg0");
	nt_state_set(&x.obs, NT_K_WIN_IP_MTU, "Ethernet", "ipv4", nt_v_u32(100), (struct nt_mark){0});
	if (t_load("t.yaml", "apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: h1}\n"
		   "target: windows\ninterfaces:\n  - {name: Ethernet}\n  - name: wg0\n"
		   "    tunnel: {kind: wireguard, underlay: Ethernet}\n", &x.l) == 0) {
		x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
		CU_ASSERT_EQUAL(x.errors, 1);
		e = t_first_error(&x.d);
		CU_ASSERT_STRING_EQUAL(e, "t.yaml:8:13: underlay Ethernet mtu 100 - WireGuard overhead "
				       "60 (ipv4 outer) = 40 leaves tunnel wg0 below the IPv4 minimum "
				       "mtu of 68");
		free(e);
		CU_ASSERT_PTR_NULL(nt_state_get(&x.des, NT_K_WIN_IP_MTU, "wg0", "ipv4"));
	}
	t_lowered_free(&x);
}

/* The IPv6 minimum: a tunnel that carries IPv6 (inner: ipv6 or dual) needs
 * 1280, Linux turning IPv6 off below it; unsaid, below 1280 is a warning. */
static void test_inner(void)
{
	struct lowered x;
	char *e;

	EXPECT(HEAD "  - {name: eth0, mtu: 1300}\n  - name: t0\n"
	       "    tunnel: {kind: vxlan, underlay: eth0, inner: ipv6}\n",
	       "6:23: underlay eth0 mtu 1300 - VXLAN overhead 50 (ipv4 outer) = 1250 leaves tunnel "
	       "t0 below the IPv6 minimum mtu of 1280\n");
	EXPECT(HEAD "  - {name: eth0, mtu: 1330}\n  - name: t0\n"
	       "    tunnel: {kind: vxlan, underlay: eth0, inner: dual}\n", "");
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n    mtu: 1279\n"
	       "    tunnel: {kind: wireguard, underlay: eth0, inner: dual}\n",
	       "8:10: tunnel t0 mtu 1279 is below 1280, the IPv6 minimum, and it carries dual "
	       "(tunnel.inner): Linux turns IPv6 off on such a device\n");
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n    mtu: 1279\n"
	       "    tunnel: {kind: wireguard, underlay: eth0}\n",
	       "8:10: tunnel t0 mtu 1279 is below 1280: Linux turns IPv6 off on it; say "
	       "tunnel.inner: ipv4 if it carries IPv4 only\n");
	EXPECT(HEAD "  - {name: eth0, mtu: 1300}\n  - name: t0\n"
	       "    tunnel: {kind: esp, underlay: eth0}\n",
	       "8:35: tunnel t0 derives mtu 1246 (underlay eth0 mtu 1300 - ESP overhead 54), below "
	       "1280: Linux turns IPv6 off on it; say tunnel.inner: ipv4 if it carries IPv4 only\n");
	EXPECT(HEAD "  - {name: eth0, mtu: 1300}\n  - name: t0\n    mtu: 1000\n"
	       "    tunnel: {kind: gre, underlay: eth0, inner: ipv4}\n", "");
	/* sit's inner packets are IPv6 whatever inner says (ipip6_tunnel_setup),
	 * and inner: ipv4 contradicts it */
	EXPECT(HEAD "  - {name: eth0}\n  - name: t0\n    mtu: 1279\n"
	       "    tunnel: {kind: sit, underlay: eth0, inner: ipv4}\n",
	       "9:48: tunnel t0: a sit tunnel carries IPv6 in IPv4 (6in4); inner: ipv4 would be "
	       "ipip\n"
	       "8:10: tunnel t0 mtu 1279 is below 1280, the smallest MTU of the IPv6 packets a sit "
	       "tunnel carries\n");

	/* at plan time, from the observed underlay */
	memset(&x, 0, sizeof(x));
	nt_facts_init(&x.f);
	x.f.known = true;
	nt_facts_add_iface(&x.f, "eth0")->kind = nt_xstrdup("veth");
	nt_facts_add_iface(&x.f, "t0")->kind = nt_xstrdup("vxlan");
	nt_facts_add_iface(&x.f, "t1")->kind = nt_xstrdup("vxlan");
	nt_state_set(&x.obs, NT_K_MTU, "eth0", NULL, nt_v_u32(1300), (struct nt_mark){0});
	if (t_load("t.yaml", HEAD "  - {name: eth0}\n"
		   "  - name: t0\n    tunnel: {kind: vxlan, underlay: eth0, inner: ipv6}\n"
		   "  - name: t1\n    tunnel: {kind: vxlan, underlay: eth0}\n", &x.l) == 0) {
		x.errors = t_lower(&x.l, &x.f, &x.obs, &x.des, &x.d, NULL);
		CU_ASSERT_EQUAL(x.errors, 1);
		e = t_first_error(&x.d);
		CU_ASSERT_STRING_EQUAL(e, "t.yaml:8:5: underlay eth0 mtu 1300 - VXLAN overhead 50 "
				       "(ipv4 outer) = 1250 leaves tunnel t0 below the IPv6 minimum mtu "
				       "of 1280");
		free(e);
		CU_ASSERT_PTR_NULL(nt_state_get(&x.des, NT_K_MTU, "t0", NULL));
		CU_ASSERT_EQUAL(nt_state_get(&x.des, NT_K_MTU, "t1", NULL)->val.u, 1250);
		CU_ASSERT_EQUAL(x.d.n, 2);
		if (x.d.n == 2) {
			e = t_diag(&x.d, 1);
			CU_ASSERT_PTR_NOT_NULL(strstr(e, "tunnel t1 derives mtu 1250, below 1280"));
			free(e);
		}
	}
	t_lowered_free(&x);
}

int main(void)
{
	CU_pSuite s;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 1;
	s = CU_add_suite("tunnel", NULL, NULL);
	CU_add_test(s, "overhead table rows", test_rows);
	CU_add_test(s, "every kind: exact fit passes, one byte more fails", test_boundaries);
	CU_add_test(s, "every kind: MTU derived from the underlay", test_derived);
	CU_add_test(s, "outer families, options, ciphers, targets", test_rules);
	CU_add_test(s, "the live device's kind", test_live_kind);
	CU_add_test(s, "tunnels over tunnels", test_nested);
	CU_add_test(s, "windows: an underlay too small", test_windows_small);
	CU_add_test(s, "inner IPv6: at least 1280", test_inner);
	CU_add_test(s, "an observed underlay beyond 65535", test_huge_underlay);
	CU_add_test(s, "a chain of 1023 tunnels, and a loop of them", test_deep_chain);
	return t_run(s);
}
