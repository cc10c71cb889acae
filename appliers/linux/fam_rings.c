/* SPDX-License-Identifier: MIT */
/* ethtool rings: ETHTOOL_MSG_RINGS_GET/SET (net/ethtool/rings.c). */
#include <linux/ethtool_netlink.h>

#include "family.h"

static const struct nt_ethnl_arg args[] = {
	{.kind = NT_K_RING, .name = "rx", .attr = ETHTOOL_A_RINGS_RX,
	 .max_attr = ETHTOOL_A_RINGS_RX_MAX, .width = 4, .sh_label = "RX"},
	{.kind = NT_K_RING, .name = "tx", .attr = ETHTOOL_A_RINGS_TX,
	 .max_attr = ETHTOOL_A_RINGS_TX_MAX, .width = 4, .sh_label = "TX"},
	{.kind = NT_K_RING, .name = "rx-mini", .attr = ETHTOOL_A_RINGS_RX_MINI,
	 .max_attr = ETHTOOL_A_RINGS_RX_MINI_MAX, .width = 4, .sh_label = "RX Mini"},
	{.kind = NT_K_RING, .name = "rx-jumbo", .attr = ETHTOOL_A_RINGS_RX_JUMBO,
	 .max_attr = ETHTOOL_A_RINGS_RX_JUMBO_MAX, .width = 4, .sh_label = "RX Jumbo"},
	{.name = NULL},
};

const struct nt_ethnl_family nt_fam_rings = {
	.name = "rings",
	.what = "rings",
	.get_msg = ETHTOOL_MSG_RINGS_GET,
	.set_msg = ETHTOOL_MSG_RINGS_SET,
	.hdr_attr = ETHTOOL_A_RINGS_HEADER,
	.max_attr = ETHTOOL_A_RINGS_MAX,
	.get_req = NT_IO_RINGS_GET,
	.dump_req = NT_IO_RINGS_DUMP,
	.set_req = NT_IO_RINGS_SET,
	.present = NT_EP_MAX,
	.args = args,
};
