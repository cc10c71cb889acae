/* SPDX-License-Identifier: MIT */
/* The words of rss.flow_hash: the profile language spells them, the
 * settings model carries their bits (settings.h nt_rxh_fields). */
#ifndef NT_RXH_H
#define NT_RXH_H

/* rx-flow-hash fields: RXH_* bits of include/uapi/linux/ethtool.h (Linux
 * v2.6.30+; RXH_DISCARD is 1 << 31), in the order ethtool(8) prints them. */
/* X-macro of the fields: profile word, bit, ethtool letter */
#define NT_RXH_FIELDS(X) \
	X("l2da", 1u << 1, 'm')		/* RXH_L2DA */ \
	X("vlan", 1u << 2, 'v')		/* RXH_VLAN */ \
	X("l3-proto", 1u << 3, 't')	/* RXH_L3_PROTO */ \
	X("src-ip", 1u << 4, 's')	/* RXH_IP_SRC */ \
	X("dst-ip", 1u << 5, 'd')	/* RXH_IP_DST */ \
	X("src-port", 1u << 6, 'f')	/* RXH_L4_B_0_1 */ \
	X("dst-port", 1u << 7, 'n')	/* RXH_L4_B_2_3 */ \
	X("discard", 1u << 31, 'r')	/* RXH_DISCARD */
#endif
