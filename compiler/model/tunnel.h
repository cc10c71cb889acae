/* SPDX-License-Identifier: MIT */
/*
 * Tunnel overheads in one table (tunnel.c): one row per tunnel kind and
 * outer family with the bytes a packet grows by and where the kernel
 * fixes them.  The validator, both lowerings and the PowerShell emitter
 * derive and check tunnel MTUs through this file only.
 */
#ifndef NT_TUNNEL_H
#define NT_TUNNEL_H

#include <stdbool.h>
#include <stddef.h>

#include "../language/profile.h"

/* One row: a kind over one outer family, with no options set. */
struct nt_tunnel_row {
	enum nt_tunnel_kind kind;
	enum nt_outer outer;
	unsigned bytes;
	const char *layout;		/* what the bytes are */
	const char *source;		/* kernel file + symbol */
};
extern const struct nt_tunnel_row nt_tunnel_rows[];
extern const size_t nt_tunnel_nrows;

/* What a kind allows. */
enum nt_tunnel_opt {
	NT_TOPT_GENEVE = 1,		/* options_length */
	NT_TOPT_GRE = 2,		/* key, sequence, checksum */
	NT_TOPT_ENCAP_LIMIT = 4,	/* encap_limit */
	NT_TOPT_ESP = 8,		/* cipher, nat_traversal */
};
struct nt_tunnel_kind_info {
	const char *name;		/* profile spelling: "vxlan" */
	const char *label;		/* in messages: "VXLAN" */
	const char *const *link_kinds;	/* IFLA_INFO_KIND of its devices, NULL-ended */
	unsigned outers;		/* allowed outer families: 1 << NT_OUTER_* */
	enum nt_outer dflt;		/* the outer family when the profile names none */
	unsigned min_inner;		/* smallest MTU the inner packets allow */
	unsigned opts;			/* NT_TOPT_* */
	bool windows;			/* an adapter nettune tunes on Windows */
	const char *other_family;	/* the kinds that carry over the other family */
};
const struct nt_tunnel_kind_info *nt_tunnel_kind(enum nt_tunnel_kind k);
extern const size_t nt_tunnel_nkinds;		/* entries of the kind table */

/* One ESP transform: IV, ICV and padding block in bytes. */
struct nt_esp_cipher_row {
	const char *name;
	unsigned iv, icv, block;
	const char *source;
};
const struct nt_esp_cipher_row *nt_esp_cipher(enum nt_esp_cipher c);
extern const size_t nt_esp_nciphers;

/* A profile tunnel resolved against the table. */
struct nt_overhead {
	const struct nt_tunnel_kind_info *k;
	const struct nt_tunnel_row *row;
	enum nt_outer outer;
	unsigned fixed;			/* every byte but ESP's padding */
	unsigned block;			/* ESP: payload + trailer padded to this; else 1 */
	unsigned trailer;		/* ESP: pad length + next header = 2; else 0 */
	char what[96];			/* "ipv4 outer, key" for messages */
};
/* The smallest MTU the tunnel may have: 1280 when it carries IPv6 (inner:
 * ipv6 or dual, or a kind whose inner packets are IPv6), else 68. */
unsigned nt_tunnel_min_mtu(const struct nt_tunnel *t);
/* Whether a tunnel MTU below 1280 deserves a warning: the profile does not
 * say whether IPv6 runs over it. */
bool nt_tunnel_inner_unsaid(const struct nt_tunnel *t);
/* The outer family the tunnel uses (its own, or the kind's default). */
enum nt_outer nt_tunnel_outer(const struct nt_tunnel *t);
void nt_tunnel_overhead(const struct nt_tunnel *t, struct nt_overhead *o);
/* Bytes added to one packet of an inner MTU of mtu (ESP: with its padding). */
unsigned nt_overhead_at(const struct nt_overhead *o, unsigned mtu);
/* in[i] (of p->interfaces_count) set for the entries of interface name
 * and of the underlays it rides on, whose MTU and NUMA node its settings
 * derive from (a chain is as long as the profile at most). */
void nt_tunnel_chain(const struct nt_profile *p, const char *name, bool *in);
/* The largest tunnel MTU whose packets fit an underlay MTU (taken as at
 * most 65535); 0 if none. */
unsigned nt_overhead_fit(const struct nt_overhead *o, unsigned underlay);
/* Whether a device of link kind (IFLA_INFO_KIND) is a tunnel of any kind;
 * whether it is one of kind k. */
bool nt_tunnel_link_kind(const char *link_kind);
bool nt_tunnel_link_is(enum nt_tunnel_kind k, const char *link_kind);
/* The outer family a device of link kind is bound to, or -1 when it takes
 * either (an XFRM interface carries SAs of both; a VTI is IPv4, a VTI6
 * IPv6: net/ipv4/ip_vti.c, net/ipv6/ip6_vti.c). */
int nt_tunnel_link_outer(const char *link_kind);

/*
 * Tunnels over tunnels (vxlan over wireguard, gre over an ESP interface),
 * resolved once per profile in linear time (a chain may be as long as the
 * 1024 interfaces a profile can list).  The depth of an interface is 0
 * when it is no tunnel, 1 for a tunnel over a NIC, one more for each
 * tunnel beneath.  Lowering derives and a plan raises MTUs in that order
 * (lowers them in the reverse).  Underlays that come back to a tunnel (a0
 * over b0 over a0) loop: the validator refuses them; their depth is 1.
 */
struct nt_tunnel_map {
	size_t n;			/* the profile's interfaces */
	long *under;			/* index of each one's underlay, -1: none */
	unsigned *depth;
	bool *loops;			/* its chain of underlays loops */
	/* its MTU as the profile fixes it: its mtu, or for a tunnel without
	 * one the MTU derived down the chain; 0 when the profile leaves it to
	 * the host, when a tunnel of the chain would be below its minimum, or
	 * when the chain loops */
	unsigned *mtu;
	unsigned max_depth;
};
void nt_tunnel_map(const struct nt_profile *p, struct nt_tunnel_map *m);
void nt_tunnel_map_free(struct nt_tunnel_map *m);
/* The depth of the interface called name; 0 when there is none. */
unsigned nt_tunnel_map_depth(const struct nt_profile *p, const struct nt_tunnel_map *m,
			     const char *name);

#endif
