/* SPDX-License-Identifier: MIT */
/* ethtool interrupt coalescing: ETHTOOL_MSG_COALESCE_GET/SET
 * (net/ethtool/coalesce.c), for two kinds: coalesce (u32) and
 * coalesce-adaptive (u8 flags). */
#include <linux/ethtool_netlink.h>

#include "family.h"

static const struct nt_ethnl_arg args[] = {
	{.kind = NT_K_COALESCE, .name = "rx-usecs", .attr = ETHTOOL_A_COALESCE_RX_USECS,
	 .width = 4, .sh_label = "rx-usecs"},
	{.kind = NT_K_COALESCE, .name = "tx-usecs", .attr = ETHTOOL_A_COALESCE_TX_USECS,
	 .width = 4, .sh_label = "tx-usecs"},
	{.kind = NT_K_COALESCE, .name = "rx-frames", .attr = ETHTOOL_A_COALESCE_RX_MAX_FRAMES,
	 .width = 4, .sh_label = "rx-frames"},
	{.kind = NT_K_COALESCE, .name = "tx-frames", .attr = ETHTOOL_A_COALESCE_TX_MAX_FRAMES,
	 .width = 4, .sh_label = "tx-frames"},
	{.kind = NT_K_COALESCE_ADAPTIVE, .name = "rx", .attr = ETHTOOL_A_COALESCE_USE_ADAPTIVE_RX,
	 .width = 1, .sh_label = "Adaptive RX"},
	{.kind = NT_K_COALESCE_ADAPTIVE, .name = "tx", .attr = ETHTOOL_A_COALESCE_USE_ADAPTIVE_TX,
	 .width = 1, .sh_label = "TX"},
	{.name = NULL},
};

const struct nt_ethnl_family nt_fam_coalesce = {
	.name = "coalesce",
	.what = "coalescing",
	.get_msg = ETHTOOL_MSG_COALESCE_GET,
	.set_msg = ETHTOOL_MSG_COALESCE_SET,
	.hdr_attr = ETHTOOL_A_COALESCE_HEADER,
	.max_attr = ETHTOOL_A_COALESCE_MAX,
	.get_req = NT_IO_COALESCE_GET,
	.dump_req = NT_IO_COALESCE_DUMP,
	.set_req = NT_IO_COALESCE_SET,
	.present = NT_EP_ATTR,
	.args = args,
};
