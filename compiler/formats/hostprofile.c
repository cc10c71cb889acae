/* SPDX-License-Identifier: MIT */
/* observe --profile: a HostProfile (portable vocabulary) of an observed
 * Linux state, without the values that are known defaults. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostprofile.h"
#include "../model/names.h"
#include "../model/offloads.h"
#include "../model/tunnel.h"

/* Link kinds (IFLA_INFO_KIND) of tunnels: those of the overhead table
 * (tunnel.c) and a few it has no row for. */
static const char *const other_tunnel_kinds[] = {
	"erspan", "ip6erspan", "bareudp", NULL,
};

static bool is_tunnel(const char *kind)
{
	size_t k;

	if (nt_tunnel_link_kind(kind))
		return true;
	for (k = 0; kind && other_tunnel_kinds[k]; k++)
		if (!strcmp(kind, other_tunnel_kinds[k]))
			return true;
	return false;
}

bool nt_hostprofile_default_iface(const struct nt_iface_facts *i)
{
	return strcmp(i->name, "lo") && (i->driver || is_tunnel(i->kind));
}

/*
 * The MTU a device gets when it is created, where the kernel fixes it:
 * ether_setup() (net/ethernet/eth.c) gives ETH_DATA_LEN 1500 to Ethernet
 * NICs and veth; WireGuard starts at ETH_DATA_LEN - overhead = 1420
 * (drivers/net/wireguard/device.c wg_setup: MESSAGE_MINIMUM_LENGTH +
 * sizeof(struct udphdr) + max(sizeof(ipv6hdr), sizeof(iphdr))).  0: not known.
 */
static uint32_t default_mtu(const struct nt_iface_facts *i)
{
	if (i->driver || (i->kind && !strcmp(i->kind, "veth")))
		return 1500;
	if (i->kind && !strcmp(i->kind, "wireguard")) {
		struct nt_tunnel t = {.kind = NT_TUNNEL_WIREGUARD};
		enum nt_outer v6 = NT_OUTER_IPV6;
		struct nt_overhead o;

		t.outer = &v6;
		nt_tunnel_overhead(&t, &o);
		return 1500 - o.fixed;	/* 1420 */
	}
	return 0;
}

static const struct nt_setting *get(const struct nt_state *st, enum nt_kind_id k, const char *obj,
				    const char *arg)
{
	return nt_state_get(st, k, obj, arg);
}

/* One key of a flow mapping: ", key: value" after the first. */
static void flow(struct nt_buf *b, bool *first, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void flow(struct nt_buf *b, bool *first, const char *key, const char *fmt, ...)
{
	va_list ap;

	nt_buf_printf(b, "%s%s: ", *first ? "{" : ", ", key);
	va_start(ap, fmt);
	nt_buf_vprintf(b, fmt, ap);
	va_end(ap);
	*first = false;
}

static void flow_end(struct nt_buf *b, bool first)
{
	if (!first)
		nt_buf_puts(b, "}\n");
}

/* offloads: one portable key per group whose changeable features agree;
 * the features of a mixed group, and changeable features no portable key
 * covers, go to linux.features (their driver defaults are not known). */
/* The kind a plain key of ifkeys.def lowers to (kinds.def NT_LOWER). */
static enum nt_kind_id kind_of(size_t lower_at)
{
	size_t k;

	for (k = 0; k < NT_K__COUNT && nt_kinds[k].lower_at != lower_at; k++)
		;
	return (enum nt_kind_id)k;
}

/* What ether_setup gives NICs and veth (kinds.def NT_LINK_ROW), 0: none. */
static uint32_t ether_default(enum nt_kind_id k)
{
	static const struct {
		enum nt_kind_id k;
		uint32_t v;
	} d[] = {
#define NT_KIND(...)
#define NT_LINK_ROW(id, name, ifla, file, rflags, ether_default, setter) {NT_K_##id, ether_default},
#include "../model/kinds.def"
#undef NT_KIND
#undef NT_LINK_ROW
	};

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++)
		if (d[i].k == k)
			return d[i].v;
	return 0;
}

/* A number key: the device's value within the key's range, unless it is
 * the kernel's default for this kind of device. */
static void u32_key(const struct nt_iface_facts *i, const struct nt_state *st, const char *key,
		    size_t lower_at, uint32_t min, uint32_t max, struct nt_buf *b)
{
	enum nt_kind_id k = kind_of(lower_at);
	const struct nt_setting *s = k < NT_K__COUNT ? get(st, k, i->name, NULL) : NULL;
	uint32_t dflt = k < NT_K__COUNT ? ether_default(k) : 0;

	if (s && s->val.u >= min && s->val.u <= max &&
	    !(dflt && s->val.u == dflt && default_mtu(i) == 1500))
		nt_buf_printf(b, "    %s: %u\n", key, s->val.u);
}

/* A map of flags as the device reports them (no kernel default to leave out). */
static void flags_key(const struct nt_state *st, const char *name, const char *key,
		      size_t lower_at, struct nt_buf *b)
{
	enum nt_kind_id k = kind_of(lower_at);
	const char *const *a = k < NT_K__COUNT ? nt_kinds[k].args : NULL;
	size_t j, n = 0;

	for (j = 0; a && a[j]; j++) {
		const struct nt_setting *s = get(st, k, name, a[j]);

		if (!s)
			continue;
		if (n++)
			nt_buf_puts(b, ", ");
		else
			nt_buf_printf(b, "    %s: {", key);
		nt_buf_printf(b, "%s: %s", a[j], s->val.b ? "on" : "off");
	}
	if (n)
		nt_buf_puts(b, "}\n");
}

static void offloads(const struct nt_iface_facts *i, const struct nt_state *st, struct nt_buf *b)
{
	struct nt_buf lf = {0};
	bool first = true, lfirst = true;
	size_t g, k;

	for (g = 0; nt_linux_offload(g); g++) {
		size_t on = 0, off = 0;

		for (k = 0; k < i->nfeatures; k++) {
			const struct nt_setting *s;
			const char *grp = nt_linux_offload_of(i->features[k].name);

			if (i->features[k].fixed || !grp || strcmp(grp, nt_linux_offload(g)))
				continue;
			s = get(st, NT_K_FEATURE, i->name, i->features[k].name);
			if (s)
				*(s->val.b ? &on : &off) += 1;
		}
		if (!on && !off)
			continue;
		if (on && off) {
			for (k = 0; k < i->nfeatures; k++) {
				const char *grp = nt_linux_offload_of(i->features[k].name);
				const struct nt_setting *s = get(st, NT_K_FEATURE, i->name,
								 i->features[k].name);

				if (!i->features[k].fixed && grp && !strcmp(grp, nt_linux_offload(g)) && s)
					flow(&lf, &lfirst, i->features[k].name, "%s", s->val.b ? "on" : "off");
			}
			continue;
		}
		if (first)
			nt_buf_puts(b, "    offloads: ");
		flow(b, &first, nt_linux_offload(g), "%s", on ? "on" : "off");
	}
	flow_end(b, first);
	for (k = 0; k < i->nfeatures; k++) {
		const struct nt_setting *s = get(st, NT_K_FEATURE, i->name, i->features[k].name);

		if (!i->features[k].fixed && !nt_linux_offload_of(i->features[k].name) && s)
			flow(&lf, &lfirst, i->features[k].name, "%s", s->val.b ? "on" : "off");
	}
	if (!lfirst) {
		nt_buf_puts(b, "    linux:\n      features: ");
		nt_buf_puts(b, lf.p);
		nt_buf_puts(b, "}\n");
	}
	nt_buf_free(&lf);
}

/* A group of U32 settings as "    key: {a: 1, b: 2}" within [lo, hi]. */
static void u32_group(const struct nt_state *st, const char *name, enum nt_kind_id k,
		      const char *key, const char *const *args, const char *const *keys,
		      uint32_t lo, uint32_t hi, struct nt_buf *b)
{
	bool first = true;
	size_t n;

	for (n = 0; args[n]; n++) {
		const struct nt_setting *s = get(st, k, name, args[n]);

		if (!s || s->val.u < lo || s->val.u > hi)
			continue;
		if (first)
			nt_buf_printf(b, "    %s: ", key);
		flow(b, &first, keys[n], "%u", s->val.u);
	}
	flow_end(b, first);
}

static void coalesce(const struct nt_state *st, const char *name, struct nt_buf *b)
{
	static const char *const args[] = {"rx-usecs", "tx-usecs", "rx-frames", "tx-frames", NULL};
	static const char *const keys[] = {"rx_usecs", "tx_usecs", "rx_frames", "tx_frames"};
	static const uint32_t max[] = {1000000, 1000000, 65535, 65535};
	bool first = true;
	size_t n;

	_Static_assert(NT_ARRAY_SIZE(args) == NT_ARRAY_SIZE(keys) + 1 &&
		       NT_ARRAY_SIZE(keys) == NT_ARRAY_SIZE(max), "keys[n] and max[n] pair with args[n]");
	for (n = 0; n < 2; n++) {
		const struct nt_setting *s = get(st, NT_K_COALESCE_ADAPTIVE, name, n ? "tx" : "rx");

		if (!s)
			continue;
		if (first)
			nt_buf_puts(b, "    coalesce: ");
		flow(b, &first, n ? "adaptive_tx" : "adaptive_rx", "%s", s->val.b ? "on" : "off");
	}
	for (n = 0; args[n]; n++) {
		const struct nt_setting *s = get(st, NT_K_COALESCE, name, args[n]);

		if (!s || s->val.u > max[n])
			continue;
		if (first)
			nt_buf_puts(b, "    coalesce: ");
		flow(b, &first, keys[n], "%u", s->val.u);
	}
	flow_end(b, first);
}

/* The same CPU set on every queue 0..n-1 of a per-queue kind?  *out is
 * that set; false when a queue differs or is not observed. */
static bool uniform_cpus(const struct nt_state *st, const char *name, enum nt_kind_id k,
			 uint32_t n, struct nt_cpuset *out)
{
	uint32_t q;

	nt_cpuset_clear(out);
	for (q = 0; q < n; q++) {
		char arg[16];
		const struct nt_setting *s;

		snprintf(arg, sizeof(arg), "%u", q);
		s = get(st, k, name, arg);
		if (!s)
			return false;
		if (q && !nt_cpuset_equal(out, s->val.cpus))
			return false;
		*out = *s->val.cpus;
	}
	return n > 0;
}

static void cpus_value(struct nt_buf *b, const struct nt_cpuset *c)
{
	char *s = nt_cpuset_empty(c) ? nt_xstrdup("none") : nt_cpuset_str(c);

	nt_buf_json_str(b, s);
	free(s);
}

/*
 * RPS and XPS: the kernel creates every queue without an RPS map, with
 * rps_flow_cnt 0 and without an XPS map (net/core/net-sysfs.c), so "none"
 * and 0 are known defaults and left out.  A driver may set XPS at probe
 * (netif_set_xps_queue); then the per-queue sets differ and have no
 * portable form (a comment says so).
 */
/* Is every transmit queue's XPS set its queue's IRQ affinity (xps:
 * follow-irq, which needs the irq: the profile describes)? */
static bool xps_follows_irq(const struct nt_iface_facts *i, const struct nt_state *st)
{
	uint32_t q;

	if (!i->tx_queues || i->tx_queues != i->nirqs)
		return false;
	for (q = 0; q < i->tx_queues; q++) {
		char arg[16];
		const struct nt_setting *x, *a;

		snprintf(arg, sizeof(arg), "%u", q);
		x = get(st, NT_K_XPS_CPUS, i->name, arg);
		a = get(st, NT_K_IRQ_AFFINITY, i->name, arg);
		if (!x || !a || !nt_cpuset_equal(x->val.cpus, a->val.cpus))
			return false;
	}
	return true;
}

static void rps_xps(const struct nt_iface_facts *i, const struct nt_state *st, bool irq_described,
		    struct nt_buf *b)
{
	struct nt_cpuset c;
	uint32_t q, flow_cnt = 0;
	bool same_cnt = true, any_cnt = false;

	for (q = 0; q < i->rx_queues; q++) {
		char arg[16];
		const struct nt_setting *s;

		snprintf(arg, sizeof(arg), "%u", q);
		s = get(st, NT_K_RPS_FLOW_CNT, i->name, arg);
		if (!s) {
			same_cnt = false;
			continue;
		}
		if (q && s->val.u != flow_cnt)
			same_cnt = false;
		flow_cnt = s->val.u;
		any_cnt = true;
	}
	if (uniform_cpus(st, i->name, NT_K_RPS_CPUS, i->rx_queues, &c) && same_cnt && any_cnt) {
		bool first = true;

		if (!nt_cpuset_empty(&c)) {
			nt_buf_puts(b, "    rps: ");
			flow(b, &first, "cpus", "%s", "");
			cpus_value(b, &c);
		}
		if (flow_cnt) {
			if (first)
				nt_buf_puts(b, "    rps: ");
			flow(b, &first, "flow_cnt", "%u", flow_cnt);
		}
		flow_end(b, first);
	} else if (i->rx_queues && get(st, NT_K_RPS_CPUS, i->name, "0")) {
		nt_buf_puts(b, "    # rps: the receive queues differ (CPU sets or flow counts); "
			    "a profile sets one value for all\n");
	}
	if (uniform_cpus(st, i->name, NT_K_XPS_CPUS, i->tx_queues, &c)) {
		if (!nt_cpuset_empty(&c)) {
			nt_buf_puts(b, "    xps: {cpus: ");
			cpus_value(b, &c);
			nt_buf_puts(b, "}\n");
		}
	} else if (irq_described && xps_follows_irq(i, st)) {
		nt_buf_puts(b, "    xps: {cpus: follow-irq}\n");
	} else if (i->tx_queues && get(st, NT_K_XPS_CPUS, i->name, "0")) {
		nt_buf_puts(b, "    # xps: the transmit queues have different CPU sets (set by the "
			    "driver or by hand); a profile sets one value for all\n");
	}
}

/*
 * IRQ affinity: the kernel's default is every CPU (default_smp_affinity,
 * unless the irqaffinity= boot parameter says otherwise), which is left
 * out.  Otherwise the explicit policy with one CPU set per queue, and
 * irqbalance left alone (irqbalance: ignore) as it was.
 */
static bool irqs(const struct nt_facts *f, const struct nt_iface_facts *i,
		 const struct nt_state *st, struct nt_buf *b)
{
	bool described = false;
	struct nt_buf l = {0};
	size_t k, n = 0;
	bool all_default = true;

	for (k = 0; k < i->nirqs; k++) {
		char arg[16];
		const struct nt_setting *s;

		if (i->irqs[k].queue != k)
			break;	/* a gap: queue k has no IRQ of its own */
		snprintf(arg, sizeof(arg), "%u", i->irqs[k].queue);
		s = get(st, NT_K_IRQ_AFFINITY, i->name, arg);
		if (!s || nt_cpuset_empty(s->val.cpus))
			break;
		if (!f->topo_known || !nt_cpuset_equal(s->val.cpus, &f->online))
			all_default = false;
		nt_buf_puts(&l, n ? ", " : "");
		cpus_value(&l, s->val.cpus);
		n++;
	}
	if (n && n == i->nirqs && !all_default) {
		nt_buf_printf(b, "    irq: {policy: explicit, irqbalance: ignore, per_queue: [%s]}\n",
			      l.p);
		described = true;
	}
	else if (n != i->nirqs)
		nt_buf_puts(b, "    # irq: the queue IRQs are not numbered 0..N-1 or not all "
			    "readable; left out\n");
	nt_buf_free(&l);
	return described;
}

static void rss(const struct nt_iface_facts *i, const struct nt_state *st, struct nt_buf *b)
{
	const struct nt_setting *h = get(st, NT_K_RSS_HFUNC, i->name, NULL);
	const struct nt_setting *t = get(st, NT_K_RSS_INDIR, i->name, NULL);
	uint32_t max = 0;
	size_t k;
	bool equal = t && t->val.n, first = true;

	/* ethtool_rxfh_indir_default(): entry k is queue k mod the queue count,
	 * the kernel's default; a round robin over fewer queues is "queues: N" */
	for (k = 0; t && k < t->val.n; k++)
		if (t->val.list[k] > max)
			max = t->val.list[k];
	for (k = 0; t && k < t->val.n; k++)
		if (t->val.list[k] != k % (max + 1))
			equal = false;
	if (h && h->val.s && (!strcmp(h->val.s, "toeplitz") || !strcmp(h->val.s, "xor") ||
			      !strcmp(h->val.s, "crc32"))) {
		nt_buf_puts(b, "    rss: ");
		flow(b, &first, "hash", "%s", h->val.s);
	}
	if (equal && max + 1 < i->rx_queues && max + 1 <= 4096) {
		if (first)
			nt_buf_puts(b, "    rss: ");
		flow(b, &first, "spread", "%s", "equal");
		flow(b, &first, "queues", "%u", max + 1);
	} else if (t && !equal) {
		if (!first)
			nt_buf_puts(b, "}\n");
		first = true;
		nt_buf_puts(b, "    # rss: a custom indirection table has no portable form; left out\n");
	}
	flow_end(b, first);
}

/* metadata.name is a host name (validate.c); anything else becomes "host". */
static const char *host_name(const struct nt_facts *f)
{
	const char *h = f->hostname, *c;

	if (!h || !*h || strlen(h) > 253 || *h == '-' || *h == '.')
		return "host";
	for (c = h; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9') || *c == '.' || *c == '-' || *c == '_'))
			return "host";
	return h;
}

void nt_hostprofile_linux(const struct nt_facts *f, const struct nt_state *st,
			  const struct nt_capsdb *db, const char *const *ifaces, size_t n,
			  struct nt_buf *b)
{
	const char *const *chan_args = nt_kinds[NT_K_CHANNELS].args;
	const char *const *ring_args = nt_kinds[NT_K_RING].args;
	static const char *const ring_keys[] = {"rx", "tx", "rx_mini", "rx_jumbo"};
	size_t k;

	char *kernel = nt_xstrdup(f->kernel ? f->kernel : "?");

	/* a comment ends at a line break: the kernel string keeps to one line */
	for (char *c = kernel; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	nt_buf_printf(b, "# nettune observe --profile of host %s, kernel %s.\n"
		      "# Known kernel defaults are left out; see nettune(1), observe --profile.\n"
		      "apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: %s}\n"
		      "target: linux\n", host_name(f), kernel, host_name(f));
	free(kernel);
	nt_buf_puts(b, n ? "interfaces:\n" : "interfaces: []\n");
	for (k = 0; k < n; k++) {
		const struct nt_iface_facts *i = nt_facts_iface(f, ifaces[k]);
		const struct nt_caps *caps = NULL;
		const struct nt_setting *s;

		if (!i)
			continue;
		nt_buf_puts(b, "  - name: ");
		nt_buf_json_str(b, i->name);
		nt_buf_puts(b, "\n");
		if (db && (i->driver || i->kind))
			caps = nt_caps_match(db, i->driver ? i->driver : i->kind, i->pci, NULL);
		if (caps)
			nt_buf_printf(b, "    nic: %s\n", caps->id);
		s = get(st, NT_K_MTU, i->name, NULL);
		if (s && s->val.u != default_mtu(i) && s->val.u >= 68 && s->val.u <= 65535)
			nt_buf_printf(b, "    mtu: %u\n", s->val.u);
		/* the plain keys (ifkeys.def) */
#define NT_IFKEY_U32(member, min, max, doc) \
		u32_key(i, st, #member, NT_LOWER(member), min, max, b);
#define NT_IFKEY_FLAGS(member, doc, flags) flags_key(st, i->name, #member, NT_LOWER(member), b);
#include "../language/ifkeys.def"
#undef NT_IFKEY_U32
#undef NT_IFKEY_FLAGS
		offloads(i, st, b);
		u32_group(st, i->name, NT_K_CHANNELS, "channels", chan_args, chan_args, 0, 4096, b);
		u32_group(st, i->name, NT_K_RING, "rings", ring_args, ring_keys, 1, 1048576, b);
		coalesce(st, i->name, b);
		rss(i, st, b);
		rps_xps(i, st, irqs(f, i, st, b), b);
	}
}
