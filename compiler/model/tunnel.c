/* SPDX-License-Identifier: MIT */
/*
 * Tunnel overheads in one table.  Each row is one tunnel kind over one
 * outer family with no options set; the options a profile may set add
 * the bytes given beside them.  Sources: Linux mainline (v6.x); the older
 * name of a symbol in parentheses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/buf.h"
#include "../language/schema.h"
#include "tunnel.h"

#define V4 (1u << NT_OUTER_IPV4)
#define V6 (1u << NT_OUTER_IPV6)
#define DUAL (1u << NT_OUTER_DUAL)

const struct nt_tunnel_row nt_tunnel_rows[] = {
	{NT_TUNNEL_WIREGUARD, NT_OUTER_IPV4, 60,
	 "IPv4 20 + UDP 8 + WireGuard data header 16 + Poly1305 tag 16",
	 "drivers/net/wireguard/messages.h MESSAGE_MINIMUM_LENGTH (message_data_len(0) = 32); "
	 "drivers/net/wireguard/device.c wg_setup adds sizeof(struct udphdr) and the IP header"},
	{NT_TUNNEL_WIREGUARD, NT_OUTER_IPV6, 80,
	 "IPv6 40 + UDP 8 + WireGuard data header 16 + Poly1305 tag 16",
	 "drivers/net/wireguard/device.c wg_setup: MESSAGE_MINIMUM_LENGTH + sizeof(struct udphdr) + "
	 "max(sizeof(struct ipv6hdr), sizeof(struct iphdr)) = 80 (default MTU 1420)"},
	{NT_TUNNEL_VXLAN, NT_OUTER_IPV4, 50,
	 "IPv4 20 + UDP 8 + VXLAN 8 + inner Ethernet 14",
	 "include/net/vxlan.h vxlan_headroom() (VXLAN_HEADROOM before v6.5); "
	 "drivers/net/vxlan/vxlan_core.c vxlan_change_mtu refuses more than lowerdev mtu - headroom"},
	{NT_TUNNEL_VXLAN, NT_OUTER_IPV6, 70,
	 "IPv6 40 + UDP 8 + VXLAN 8 + inner Ethernet 14",
	 "include/net/vxlan.h vxlan_headroom() with VXLAN_F_IPV6 (VXLAN6_HEADROOM before v6.5)"},
	{NT_TUNNEL_GENEVE, NT_OUTER_IPV4, 50,
	 "IPv4 20 + UDP 8 + Geneve 8 + inner Ethernet 14, + options_length",
	 "drivers/net/geneve.c GENEVE_IPV4_HLEN; geneve_xmit_skb checks the path MTU against "
	 "GENEVE_IPV4_HLEN + info->options_len (include/net/geneve.h genevehdr.opt_len: 4-byte units)"},
	{NT_TUNNEL_GENEVE, NT_OUTER_IPV6, 70,
	 "IPv6 40 + UDP 8 + Geneve 8 + inner Ethernet 14, + options_length",
	 "drivers/net/geneve.c GENEVE_IPV6_HLEN; geneve6_xmit_skb: GENEVE_IPV6_HLEN + info->options_len"},
	{NT_TUNNEL_GRE, NT_OUTER_IPV4, 24,
	 "IPv4 20 + GRE 4 (no key, sequence or checksum; +4 each)",
	 "include/net/gre.h gre_calc_hlen (4, +4 for each of TUNNEL_CSUM, TUNNEL_KEY, TUNNEL_SEQ); "
	 "net/ipv4/ip_tunnel.c ip_tunnel_bind_dev: mtu -= hlen + sizeof(struct iphdr)"},
	{NT_TUNNEL_GRETAP, NT_OUTER_IPV4, 38,
	 "IPv4 20 + GRE 4 + inner Ethernet 14 (no key, sequence or checksum; +4 each)",
	 "net/ipv4/ip_tunnel.c ip_tunnel_bind_dev: also dev->hard_header_len (ETH_HLEN) for "
	 "ARPHRD_ETHER; include/net/gre.h gre_calc_hlen"},
	{NT_TUNNEL_IPIP, NT_OUTER_IPV4, 20, "IPv4 20",
	 "net/ipv4/ipip.c ipip_tunnel_init: tun_hlen = 0; net/ipv4/ip_tunnel.c ip_tunnel_bind_dev"},
	{NT_TUNNEL_SIT, NT_OUTER_IPV4, 20, "IPv4 20 (inner IPv6: at least 1280)",
	 "net/ipv6/sit.c ipip6_tunnel_bind_dev: mtu = tdev->mtu - (hlen + sizeof(struct iphdr)), "
	 "at least IPV6_MIN_MTU; ipip6_tunnel_setup: dev->min_mtu = IPV6_MIN_MTU"},
	{NT_TUNNEL_IP6TNL, NT_OUTER_IPV6, 48,
	 "IPv6 40 + encapsulation limit destination option 8 (encap_limit: off saves it)",
	 "net/ipv6/ip6_tunnel.c ip6_tnl_link_config: mtu - sizeof(struct ipv6hdr), -8 unless "
	 "IP6_TNL_F_IGN_ENCAP_LIMIT (default limit IPV6_DEFAULT_TNL_ENCAP_LIMIT 4)"},
	{NT_TUNNEL_IP6GRE, NT_OUTER_IPV6, 52,
	 "IPv6 40 + GRE 4 + encapsulation limit option 8 (no key, sequence or checksum; +4 each)",
	 "net/ipv6/ip6_gre.c ip6gre_tnl_link_config_route: mtu - (gre_calc_hlen + "
	 "sizeof(struct ipv6hdr)), -8 unless IP6_TNL_F_IGN_ENCAP_LIMIT"},
	{NT_TUNNEL_IP6GRETAP, NT_OUTER_IPV6, 66,
	 "IPv6 40 + GRE 4 + encapsulation limit option 8 + inner Ethernet 14",
	 "net/ipv6/ip6_gre.c ip6gre_tnl_link_config_route: also ETH_HLEN for ARPHRD_ETHER"},
	{NT_TUNNEL_ESP, NT_OUTER_IPV4, 28,
	 "IPv4 20 + ESP header 8, + the cipher's IV, ICV and padding, + UDP 8 with nat_traversal",
	 "net/ipv4/esp4.c esp_init_state: header_len = sizeof(struct ip_esp_hdr) + ivsize + "
	 "sizeof(struct iphdr) (tunnel mode) + sizeof(struct udphdr) (UDP_ENCAP_ESPINUDP); "
	 "net/xfrm/xfrm_state.c xfrm_state_mtu: ((mtu - header_len - authsize) & ~(blksize - 1)) - 2"},
	{NT_TUNNEL_ESP, NT_OUTER_IPV6, 48,
	 "IPv6 40 + ESP header 8, + the cipher's IV, ICV and padding, + UDP 8 with nat_traversal",
	 "net/ipv6/esp6.c esp6_init_state: sizeof(struct ipv6hdr) in tunnel mode; "
	 "net/xfrm/xfrm_state.c xfrm_state_mtu"},
};
const size_t nt_tunnel_nrows = sizeof(nt_tunnel_rows) / sizeof(nt_tunnel_rows[0]);

static const char *const lk_wg[] = {"wireguard", NULL};
static const char *const lk_vxlan[] = {"vxlan", NULL};
static const char *const lk_geneve[] = {"geneve", NULL};
static const char *const lk_gre[] = {"gre", NULL};
static const char *const lk_gretap[] = {"gretap", NULL};
static const char *const lk_ipip[] = {"ipip", NULL};
static const char *const lk_sit[] = {"sit", NULL};
static const char *const lk_ip6tnl[] = {"ip6tnl", NULL};
static const char *const lk_ip6gre[] = {"ip6gre", NULL};
static const char *const lk_ip6gretap[] = {"ip6gretap", NULL};
/* route-based IPsec: XFRM interfaces and VTIs (policy-based has no device) */
static const char *const lk_esp[] = {"xfrm", "vti", "vti6", NULL};

/* Indexed by enum nt_tunnel_kind. */
static const struct nt_tunnel_kind_info kinds[] = {
	[NT_TUNNEL_WIREGUARD] = {"wireguard", "WireGuard", lk_wg, V4 | V6 | DUAL, NT_OUTER_IPV4, 68, 0, true,
				 NULL},
	[NT_TUNNEL_VXLAN] = {"vxlan", "VXLAN", lk_vxlan, V4 | V6, NT_OUTER_IPV4, 68, 0, false, NULL},
	[NT_TUNNEL_GENEVE] = {"geneve", "Geneve", lk_geneve, V4 | V6, NT_OUTER_IPV4, 68, NT_TOPT_GENEVE,
			      false, NULL},
	[NT_TUNNEL_GRE] = {"gre", "GRE", lk_gre, V4, NT_OUTER_IPV4, 68, NT_TOPT_GRE, false, "ip6gre"},
	[NT_TUNNEL_GRETAP] = {"gretap", "GRETAP", lk_gretap, V4, NT_OUTER_IPV4, 68, NT_TOPT_GRE, false,
			      "ip6gretap"},
	[NT_TUNNEL_IPIP] = {"ipip", "IPIP", lk_ipip, V4, NT_OUTER_IPV4, 68, 0, false, "ip6tnl"},
	[NT_TUNNEL_SIT] = {"sit", "SIT", lk_sit, V4, NT_OUTER_IPV4, 1280, 0, false, "ip6tnl"},
	[NT_TUNNEL_IP6TNL] = {"ip6tnl", "ip6tnl", lk_ip6tnl, V6, NT_OUTER_IPV6, 68, NT_TOPT_ENCAP_LIMIT,
			      false, "ipip and sit"},
	[NT_TUNNEL_IP6GRE] = {"ip6gre", "ip6gre", lk_ip6gre, V6, NT_OUTER_IPV6, 68,
			      NT_TOPT_GRE | NT_TOPT_ENCAP_LIMIT, false, "gre"},
	[NT_TUNNEL_IP6GRETAP] = {"ip6gretap", "ip6gretap", lk_ip6gretap, V6, NT_OUTER_IPV6, 68,
				 NT_TOPT_GRE | NT_TOPT_ENCAP_LIMIT, false, "gretap"},
	[NT_TUNNEL_ESP] = {"esp", "ESP", lk_esp, V4 | V6 | DUAL, NT_OUTER_IPV4, 68, NT_TOPT_ESP, false,
			   NULL},
};

/* Indexed by enum nt_esp_cipher.  The padding block is
 * ALIGN(crypto_aead_blocksize, 4) (net/ipv4/esp4.c esp_output). */
static const struct nt_esp_cipher_row ciphers[] = {
	[NT_ESP_AES_GCM] = {"aes-gcm", 8, 16, 4,
		"rfc4106(gcm(aes)): include/crypto/gcm.h GCM_RFC4106_IV_SIZE 8; net/xfrm/xfrm_algo.c "
		"icv_truncbits 128 (the 16-byte ICV); block size 1, padded to 4"},
	[NT_ESP_CHACHA20_POLY1305] = {"chacha20-poly1305", 8, 16, 4,
		"rfc7539esp(chacha20,poly1305): crypto/chacha20poly1305.c rfc7539esp_create ivsize 8; "
		"net/xfrm/xfrm_algo.c "
		"icv_truncbits 128; block size 1, padded to 4"},
	[NT_ESP_AES_CBC_SHA1] = {"aes-cbc-sha1", 16, 12, 16,
		"cbc(aes) IV and block AES_BLOCK_SIZE 16; hmac(sha1) net/xfrm/xfrm_algo.c "
		"icv_truncbits 96"},
	[NT_ESP_AES_CBC_SHA256] = {"aes-cbc-sha256", 16, 16, 16,
		"cbc(aes) IV and block 16; hmac(sha256) truncated to 128 bits (RFC 4868, as IKE "
		"daemons set it through XFRMA_ALG_AUTH_TRUNC; xfrm_algo.c's own default is 96)"},
};

#define LEN(a) (sizeof(a) / sizeof((a)[0]))
const size_t nt_tunnel_nkinds = LEN(kinds);
const size_t nt_esp_nciphers = LEN(ciphers);

const struct nt_tunnel_kind_info *nt_tunnel_kind(enum nt_tunnel_kind k)
{
	return &kinds[k];
}

const struct nt_esp_cipher_row *nt_esp_cipher(enum nt_esp_cipher c)
{
	return &ciphers[c];
}

enum nt_outer nt_tunnel_outer(const struct nt_tunnel *t)
{
	return t->outer ? *t->outer : kinds[t->kind].dflt;
}

unsigned nt_tunnel_min_mtu(const struct nt_tunnel *t)
{
	/* net/ipv6/addrconf.c addrconf_notify: NETDEV_CHANGEMTU below
	 * IPV6_MIN_MTU takes IPv6 off the device */
	if (t->inner && *t->inner != NT_OUTER_IPV4 && kinds[t->kind].min_inner < 1280)
		return 1280;
	return kinds[t->kind].min_inner;
}

bool nt_tunnel_inner_unsaid(const struct nt_tunnel *t)
{
	return !t->inner && kinds[t->kind].min_inner < 1280;
}

static void add_what(struct nt_overhead *o, const char *s)
{
	size_t n = strlen(o->what);

	snprintf(o->what + n, sizeof(o->what) - n, ", %s", s);
}

void nt_tunnel_overhead(const struct nt_tunnel *t, struct nt_overhead *o)
{
	enum nt_outer fam;
	size_t i;

	memset(o, 0, sizeof(*o));
	o->k = &kinds[t->kind];
	o->outer = nt_tunnel_outer(t);
	/* dual: the larger, IPv6 row */
	fam = o->outer == NT_OUTER_DUAL ? NT_OUTER_IPV6 : o->outer;
	for (i = 0; i < nt_tunnel_nrows; i++)
		if (nt_tunnel_rows[i].kind == t->kind && nt_tunnel_rows[i].outer == fam)
			o->row = &nt_tunnel_rows[i];
	if (!o->row) {
		/* a family the kind does not have (the validator says so): the
		 * kind's own family, so the arithmetic stays defined */
		for (i = 0; i < nt_tunnel_nrows; i++)
			if (nt_tunnel_rows[i].kind == t->kind && !o->row)
				o->row = &nt_tunnel_rows[i];
	}
	o->fixed = o->row->bytes;
	o->block = 1;
	snprintf(o->what, sizeof(o->what), "%s outer", nt_outer_strings[o->outer].str);
	if ((o->k->opts & NT_TOPT_GENEVE) && t->options_length && *t->options_length) {
		char b[40];

		o->fixed += *t->options_length;
		snprintf(b, sizeof(b), "%u option bytes", *t->options_length);
		add_what(o, b);
	}
	if (o->k->opts & NT_TOPT_GRE) {
		const bool *f[] = {t->key, t->sequence, t->checksum};
		static const char *const fn[] = {"key", "sequence", "checksum"};

		for (i = 0; i < LEN(f); i++)
			if (f[i] && *f[i]) {
				o->fixed += 4;
				add_what(o, fn[i]);
			}
	}
	if ((o->k->opts & NT_TOPT_ENCAP_LIMIT) && t->encap_limit && !*t->encap_limit) {
		o->fixed -= 8;
		add_what(o, "no encapsulation limit");
	}
	if (o->k->opts & NT_TOPT_ESP) {
		const struct nt_esp_cipher_row *c = &ciphers[t->cipher ? *t->cipher : NT_ESP_AES_GCM];

		o->fixed += c->iv + c->icv;
		o->block = c->block;
		o->trailer = 2;
		add_what(o, c->name);
		if (t->nat_traversal && *t->nat_traversal) {
			o->fixed += 8;
			add_what(o, "NAT-T");
		}
	}
}

unsigned nt_overhead_at(const struct nt_overhead *o, unsigned mtu)
{
	unsigned padded = (mtu + o->trailer + o->block - 1) / o->block * o->block;

	return o->fixed + padded - mtu;
}

unsigned nt_overhead_fit(const struct nt_overhead *o, unsigned underlay)
{
	unsigned room;

	/* a snapshot may say more (lo: 65536, or anything): no outer packet
	 * is longer than IP_MAX_MTU 65535, IPv4's 16-bit total length */
	if (underlay > 65535)
		underlay = 65535;
	if (underlay <= o->fixed + o->trailer)
		return 0;
	room = (underlay - o->fixed) / o->block * o->block;
	return room > o->trailer ? room - o->trailer : 0;
}

bool nt_tunnel_link_is(enum nt_tunnel_kind k, const char *link_kind)
{
	const char *const *p;

	for (p = kinds[k].link_kinds; link_kind && *p; p++)
		if (!strcmp(*p, link_kind))
			return true;
	return false;
}

int nt_tunnel_link_outer(const char *link_kind)
{
	if (link_kind && !strcmp(link_kind, "vti"))
		return NT_OUTER_IPV4;
	if (link_kind && !strcmp(link_kind, "vti6"))
		return NT_OUTER_IPV6;
	return -1;
}

bool nt_tunnel_link_kind(const char *link_kind)
{
	size_t k;

	for (k = 0; k < LEN(kinds); k++)
		if (nt_tunnel_link_is((enum nt_tunnel_kind)k, link_kind))
			return true;
	return false;
}

/* Interface names sorted, for one binary search per underlay. */
struct named {
	const char *name;
	size_t i;
};

static int cmp_named(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->i > y->i) - (x->i < y->i);
}

static long find_named(const struct named *v, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {	/* the first entry not below name */
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && !strcmp(v[lo].name, name) ? (long)v[lo].i : -1;
}

/* Each tunnel's underlay index (-1: a NIC, or an underlay not listed). */
static void map_underlays(const struct nt_profile *p, struct nt_tunnel_map *m)
{
	size_t n = p->interfaces_count, i, nn = 0;
	struct named *byname = nt_xcalloc(n + 1, sizeof(*byname));

	for (i = 0; i < n; i++)
		if (p->interfaces[i].name)
			byname[nn++] = (struct named){p->interfaces[i].name, i};
	qsort(byname, nn, sizeof(*byname), cmp_named);
	for (i = 0; i < n; i++) {
		const struct nt_iface *f = &p->interfaces[i];

		m->under[i] = f->tunnel && f->tunnel->underlay ?
			      find_named(byname, nn, f->tunnel->underlay) : -1;
	}
	free(byname);
}

/* Depth and MTU of the walk's interfaces, from the bottom (depth d, MTU mtu
 * below it) back up. */
static void map_resolve(const struct nt_profile *p, struct nt_tunnel_map *m, const size_t *stack,
			size_t top, unsigned char *state, unsigned d, unsigned mtu)
{
	while (top) {
		size_t j = stack[--top];
		const struct nt_iface *f = &p->interfaces[j];

		if (state[j] == 2)
			continue;
		state[j] = 2;
		if (!f->tunnel || m->under[j] < 0) {
			d = f->tunnel ? 1 : 0;
			mtu = f->mtu ? *f->mtu : 0;	/* unknown underlay: its own only */
		} else {
			struct nt_overhead o;
			unsigned fit;

			d = d + 1;
			nt_tunnel_overhead(f->tunnel, &o);
			fit = mtu ? nt_overhead_fit(&o, mtu) : 0;
			mtu = f->mtu ? *f->mtu : fit >= nt_tunnel_min_mtu(f->tunnel) ? fit : 0;
		}
		m->depth[j] = d;
		m->mtu[j] = mtu;
		if (d > m->max_depth)
			m->max_depth = d;
	}
}

/* The chain from interface i: down to a NIC, a resolved interface or one
 * already on this walk (a loop), then resolved on the way back up. */
static void map_walk(const struct nt_profile *p, struct nt_tunnel_map *m, size_t i, size_t *stack,
		     unsigned char *state)
{
	size_t top = 0, j = i, k;
	bool loop, end = false;
	unsigned d = 0, mtu = 0;

	while (state[j] == 0) {
		state[j] = 1;
		stack[top++] = j;
		if (!p->interfaces[j].tunnel || m->under[j] < 0) {
			end = true;	/* a NIC, or an underlay not listed */
			break;
		}
		j = (size_t)m->under[j];
	}
	/* not at an end, j is on this walk already: the chain came back */
	loop = state[j] == 1 && !end;
	if (state[j] == 2) {
		loop = m->loops[j];
		d = m->depth[j];
		mtu = m->mtu[j];
	}
	if (loop) {
		/* every interface of this walk loops or leads into a loop */
		for (k = 0; k < top; k++) {
			m->loops[stack[k]] = true;
			m->depth[stack[k]] = 1;
			state[stack[k]] = 2;
		}
		return;
	}
	map_resolve(p, m, stack, top, state, d, mtu);
}

void nt_tunnel_map(const struct nt_profile *p, struct nt_tunnel_map *m)
{
	size_t n = p->interfaces_count, i;
	size_t *stack = nt_xcalloc(n + 1, sizeof(*stack));
	unsigned char *state = nt_xcalloc(n + 1, 1);	/* 0 new, 1 on the walk, 2 done */

	memset(m, 0, sizeof(*m));
	m->n = n;
	m->under = nt_xcalloc(n + 1, sizeof(*m->under));
	m->depth = nt_xcalloc(n + 1, sizeof(*m->depth));
	m->loops = nt_xcalloc(n + 1, sizeof(*m->loops));
	m->mtu = nt_xcalloc(n + 1, sizeof(*m->mtu));
	map_underlays(p, m);
	/* each chain walked once */
	for (i = 0; i < n; i++)
		map_walk(p, m, i, stack, state);
	free(stack);
	free(state);
}

void nt_tunnel_map_free(struct nt_tunnel_map *m)
{
	free(m->under);
	free(m->depth);
	free(m->loops);
	free(m->mtu);
	memset(m, 0, sizeof(*m));
}

unsigned nt_tunnel_map_depth(const struct nt_profile *p, const struct nt_tunnel_map *m,
			     const char *name)
{
	size_t i;

	for (i = 0; p && name && i < m->n; i++)
		if (p->interfaces[i].name && !strcmp(p->interfaces[i].name, name))
			return m->depth[i];
	return 0;
}

void nt_tunnel_chain(const struct nt_profile *p, const char *name, bool *in)
{
	for (size_t hops = 0; name && hops <= p->interfaces_count; hops++) {
		const char *next = NULL;

		for (size_t i = 0; i < p->interfaces_count; i++) {
			const struct nt_iface *f = &p->interfaces[i];

			if (!f->name || strcmp(f->name, name))
				continue;
			in[i] = true;
			if (f->tunnel && f->tunnel->underlay)
				next = f->tunnel->underlay;
		}
		name = next;
	}
}
