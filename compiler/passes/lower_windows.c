/* SPDX-License-Identifier: MIT */
/*
 * Lowering for target windows: NetAdapter cmdlet settings (USO, RSC, LSO,
 * checksum offload, RSS, advanced properties, hardware URO), IP interface
 * MTU per address family (tunnel MTU derived the same way as on Linux),
 * and the global offload switches (receive segment coalescing, software URO).
 */
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "../language/profile.h"
#include "../language/schema.h"
#include "../model/tunnel.h"
#include "validate.h"

static struct nt_mark mkw(struct nt_lower *L, size_t i, const char *sub)
{
	char path[512];

	snprintf(path, sizeof(path), "/interfaces/%zu%s%s", i, *sub ? "/" : "", sub);
	return nt_loaded_mark(L->l, path, false);
}

static void put(struct nt_lower *L, const char *obj, enum nt_kind_id k, const char *arg,
		struct nt_value v, struct nt_mark m, const char *note)
{
	struct nt_setting *s = nt_state_set(L->desired, k, obj, arg, v, m);

	if (note) {
		free(s->note);
		s->note = nt_xstrdup(note);
	}
}

/* ipv4/ipv6 values of a toggle: family keys override "all". */
static void fam(const struct nt_toggle *t, int out[2])
{
	out[0] = out[1] = -1;
	if (!t)
		return;
	if (t->all)
		out[0] = out[1] = *t->all;
	if (t->ipv4)
		out[0] = *t->ipv4;
	if (t->ipv6)
		out[1] = *t->ipv6;
}

static void per_family(struct nt_lower *L, size_t i, const char *obj, enum nt_kind_id k,
		       const struct nt_toggle *t, const char *path)
{
	static const char *const fams[] = {"ipv4", "ipv6"};
	int v[2];
	int f;

	fam(t, v);
	for (f = 0; f < (int)NT_ARRAY_SIZE(fams); f++)
		if (v[f] >= 0)
			put(L, obj, k, fams[f], nt_v_bool(v[f]), mkw(L, i, path), NULL);
}

/* Set-NetAdapterChecksumOffload values: Disabled, TxEnabled, RxEnabled, RxTxEnabled. */
static void checksum(struct nt_lower *L, size_t i, const struct nt_iface *f)
{
	static const struct { const char *arg; int family; } fields[] = {
		{"IpIPv4", 0}, {"TcpIPv4", 0}, {"TcpIPv6", 1}, {"UdpIPv4", 0}, {"UdpIPv6", 1},
	};
	const struct nt_offloads *o = f->offloads;
	int both[2], rx[2], tx[2];
	size_t k;

	if (!o || (!o->checksum && !o->rx_checksum && !o->tx_checksum))
		return;
	fam(o->checksum, both);
	fam(o->rx_checksum, rx);
	fam(o->tx_checksum, tx);
	for (k = 0; k < NT_ARRAY_SIZE(fields); k++) {
		int fm = fields[k].family;
		int r = rx[fm] >= 0 ? rx[fm] : both[fm];
		int t = tx[fm] >= 0 ? tx[fm] : both[fm];
		const char *v;
		const char *path = o->rx_checksum && rx[fm] >= 0 ? "offloads/rx_checksum" :
				   o->tx_checksum && tx[fm] >= 0 ? "offloads/tx_checksum" :
				   "offloads/checksum";

		if (r < 0 && t < 0)
			continue;
		if (r < 0 || t < 0) {
			L->errs++;
			nt_error(L->d, mkw(L, i, path), "plan",
				 "Windows sets receive and transmit checksum offload together; give both "
				 "rx_checksum and tx_checksum (or checksum) for %s",
				 fm ? "IPv6" : "IPv4");
			return;
		}
		v = r && t ? "RxTxEnabled" : r ? "RxEnabled" : t ? "TxEnabled" : "Disabled";
		put(L, f->name, NT_K_WIN_CHECKSUM, fields[k].arg, nt_v_str(v), mkw(L, i, path), NULL);
	}
}

static const char *const rss_profile_names[] = {
	"Closest", "ClosestStatic", "NUMA", "NUMAStatic", "Conservative",
};

static void rss(struct nt_lower *L, size_t i, const struct nt_iface *f)
{
	const struct nt_rss *r = f->rss;
	char num[16];

	if (!r)
		return;
	if (r->enabled)
		put(L, f->name, NT_K_WIN_RSS, "enabled", nt_v_str(*r->enabled ? "True" : "False"),
		    mkw(L, i, "rss/enabled"), NULL);
	if (r->profile)
		put(L, f->name, NT_K_WIN_RSS, "profile", nt_v_str(rss_profile_names[*r->profile]),
		    mkw(L, i, "rss/profile"), NULL);
#define NUM(field, arg, path) \
	if (r->field) { \
		snprintf(num, sizeof(num), "%u", *r->field); \
		put(L, f->name, NT_K_WIN_RSS, arg, nt_v_str(num), mkw(L, i, path), NULL); \
	}
	NUM(base_processor, "base-processor", "rss/base_processor");
	NUM(max_processor, "max-processor", "rss/max_processor");
	NUM(max_processors, "max-processors", "rss/max_processors");
	NUM(queues, "receive-queues", "rss/queues");
#undef NUM
}

/*
 * Seed 002: "never assume an offload is running because the API accepted it".
 * Software URO can be enabled in netsh and still vetoed by the global disable
 * mask (msquic troubleshooting guide: 0 ok, 2 incompatible WFP callout,
 * 48 IPSNPI clients winnat/FSE, which WSL and Hyper-V enable).
 */
static void diagnose(struct nt_lower *L)
{
	const struct nt_profile *p = L->l->p;
	size_t i, k;

	if (p->global && p->global->uro && *p->global->uro && L->facts->uro_disabled_mask > 0) {
		struct nt_buf why = {0};
		int m = L->facts->uro_disabled_mask;

		if (m & 48)
			nt_buf_puts(&why, "48 = incompatible IPSNPI clients (winnat / FSE, enabled with WSL, "
				    "Hyper-V, Windows Sandbox or Docker Desktop); only removing those "
				    "features and rebooting clears it");
		if (m & 2)
			nt_buf_printf(&why, "%s2 = an incompatible WFP callout driver is registered",
				      why.n ? "; " : "");
		for (k = 0; k < L->facts->ndiagnosis; k++)
			nt_buf_printf(&why, "; observed: %s", L->facts->diagnosis[k]);
		nt_warn(L->d, nt_loaded_mark(L->l, "/global/uro", false), "uro-vetoed",
			"software URO is set to enabled, but the host reports UDP software URO global "
			"disabled mask %d, so no datagram is coalesced: %s", m, why.p ? why.p : "");
		nt_buf_free(&why);
	}
	for (i = 0; i < p->interfaces_count; i++) {
		const struct nt_iface *f = &p->interfaces[i];
		const struct nt_iface_facts *F = nt_facts_iface(L->facts, f->name);
		const char *r[2] = {F ? F->rsc_failure_ipv4 : NULL, F ? F->rsc_failure_ipv6 : NULL};
		int v[2];

		if (!f->offloads || !f->offloads->rsc)
			continue;
		fam(f->offloads->rsc, v);
		for (k = 0; k < NT_ARRAY_SIZE(r); k++)
			if (v[k] > 0 && r[k] && strcmp(r[k], "NoFailure") &&
			    strcmp(r[k], "NicPropertyDisabled"))
				nt_warn(L->d, mkw(L, i, "offloads/rsc"), "rsc-failure",
					"RSC on %s (%s) reports FailureReason %s: enabling it will not make it "
					"operational until that cause is removed", f->name,
					k ? "IPv6" : "IPv4", r[k]);
	}
}

/* A tunnel's MTU derived from its underlay's (0 when it cannot be); the
 * note says how. */
static uint32_t win_tunnel_mtu(struct nt_lower *L, size_t i, const struct nt_iface *f,
			       char *note, size_t n)
{
	const struct nt_setting *u = nt_state_get(L->desired, NT_K_WIN_IP_MTU,
						  f->tunnel->underlay, "ipv4");
	struct nt_overhead o;
	uint32_t mtu;

	nt_tunnel_overhead(f->tunnel, &o);
	if (!u)
		u = nt_state_get(L->observed, NT_K_WIN_IP_MTU, f->tunnel->underlay, "ipv4");
	if (u && nt_overhead_fit(&o, u->val.u) >= nt_tunnel_min_mtu(f->tunnel)) {
		mtu = nt_overhead_fit(&o, u->val.u);
		snprintf(note, n,
			 "derived: %s mtu %u - %s overhead %u (%s); also put "
			 "MTU = %u in the tunnel config, or the service resets it",
			 f->tunnel->underlay, u->val.u, o.k->label, u->val.u - mtu, o.what, mtu);
		return mtu;
	}
	if (u) {
		unsigned fit = nt_overhead_fit(&o, u->val.u);

		L->errs++;
		unsigned oh = fit ? u->val.u - fit : o.fixed + o.trailer;
		unsigned min = nt_tunnel_min_mtu(f->tunnel);

		nt_error(L->d, mkw(L, i, "tunnel"), "tunnel-mtu",
			 "underlay %s mtu %u - %s overhead %u (%s) = %d leaves "
			 "tunnel %s below the %s minimum mtu of %u",
			 f->tunnel->underlay, u->val.u, o.k->label, oh, o.what,
			 (int)u->val.u - (int)oh, f->name, min > 68 ? "IPv6" : "IPv4",
			 min);
	} else if (!L->facts->known) {
		nt_warn(L->d, mkw(L, i, "tunnel"), "tunnel-mtu",
			"MTU of %s is not derived offline: the MTU of its underlay %s is "
			"not in the profile; the PowerShell playbook derives it on the "
			"host at run time", f->name, f->tunnel->underlay);
	} else {
		nt_warn(L->d, mkw(L, i, "tunnel"), "tunnel-mtu",
			"MTU of %s is not derived: the MTU of its underlay %s is neither "
			"in the profile nor in the snapshot", f->name, f->tunnel->underlay);
	}
	return 0;
}

/* The IP interface MTU, IPv6 too when it is at least 1280. */
static void win_mtu(struct nt_lower *L, size_t i, const struct nt_iface *f)
{
	uint32_t mtu = 0;
	const char *note = NULL;
	char notebuf[256];
	const char *mpath = "mtu";

	if (f->mtu) {
		mtu = *f->mtu;
	} else if (f->tunnel) {
		mtu = win_tunnel_mtu(L, i, f, notebuf, sizeof(notebuf));
		if (mtu) {
			note = notebuf;
			mpath = "tunnel/underlay";
		}
	}
	if (mtu) {
		put(L, f->name, NT_K_WIN_IP_MTU, "ipv4", nt_v_u32(mtu), mkw(L, i, mpath), note);
		if (mtu >= 1280)
			put(L, f->name, NT_K_WIN_IP_MTU, "ipv6", nt_v_u32(mtu), mkw(L, i, mpath), note);
	}
}

static void win_offloads(struct nt_lower *L, size_t i, const struct nt_iface *f)
{
	const struct nt_offloads *o = f->offloads;

	per_family(L, i, f->name, NT_K_WIN_USO, o->uso, "offloads/uso");
	per_family(L, i, f->name, NT_K_WIN_RSC, o->rsc, "offloads/rsc");
	per_family(L, i, f->name, NT_K_WIN_LSO, o->tso ? o->tso : o->lso,
		   o->tso ? "offloads/tso" : "offloads/lso");
	if (o->uro && o->uro->all)
		put(L, f->name, NT_K_WIN_URO, NULL, nt_v_bool(*o->uro->all),
		    mkw(L, i, "offloads/uro"), NULL);
}

static void win_advprops(struct nt_lower *L, size_t i, const struct nt_iface *f)
{
	size_t k;

	for (k = 0; k < f->windows_opts->advanced_properties_count; k++) {
		const struct nt_kv *kv = &f->windows_opts->advanced_properties[k];
		char path[300];

		snprintf(path, sizeof(path), "windows/advanced_properties/%s", kv->key);
		put(L, f->name, NT_K_WIN_ADVPROP, kv->key, nt_v_str(kv->value),
		    mkw(L, i, path), NULL);
	}
}

/* Adapter i, unless the snapshot does not have it. */
static void win_iface(struct nt_lower *L, size_t i)
{
	const struct nt_iface *f = &L->l->p->interfaces[i];

	if (L->facts->known && L->facts->nifs && !nt_facts_iface(L->facts, f->name)) {
		L->errs++;
		nt_error(L->d, mkw(L, i, "name"), "plan",
			 "adapter '%s' is not in the snapshot%s", f->name,
			 f->tunnel ? "; a WireGuard tunnel adapter exists only while the "
				     "tunnel is up" : "");
		return;
	}
	win_mtu(L, i, f);
	if (f->offloads)
		win_offloads(L, i, f);
	checksum(L, i, f);
	rss(L, i, f);
	if (f->windows_opts)
		win_advprops(L, i, f);
}

static void win_global(struct nt_lower *L)
{
	const struct nt_profile *p = L->l->p;

	if (p->global && p->global->receive_segment_coalescing)
		put(L, "global", NT_K_WIN_GLOBAL, "receive-segment-coalescing",
		    nt_v_str(*p->global->receive_segment_coalescing ? "Enabled" : "Disabled"),
		    nt_loaded_mark(L->l, "/global/receive_segment_coalescing", false), NULL);
	if (p->global && p->global->uro)
		put(L, "global", NT_K_WIN_GLOBAL, "uro",
		    nt_v_str(*p->global->uro ? "Enabled" : "Disabled"),
		    nt_loaded_mark(L->l, "/global/uro", false),
		    "software URO (netsh int udp set global uro=...); a global disable mask can "
		    "still veto it");
}

size_t nt_lower_windows(struct nt_lower *L)
{
	const struct nt_profile *p = L->l->p;
	size_t i;
	struct nt_tunnel_map tm;

	L->errs = 0;
	/* underlays first, a tunnel over a tunnel after the one it rides on */
	nt_tunnel_map(p, &tm);
	for (unsigned pass = 0; pass <= tm.max_depth; pass++)
		for (i = 0; i < p->interfaces_count; i++)
			if (tm.depth[i] == pass)
				win_iface(L, i);
	nt_tunnel_map_free(&tm);
	win_global(L);
	diagnose(L);
	return L->errs;
}

size_t nt_lower(struct nt_lower *L)
{
	if (L->l->p->target && *L->l->p->target == NT_TARGET_WINDOWS)
		return nt_lower_windows(L);
	return nt_lower_linux(L);
}
