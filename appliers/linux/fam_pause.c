/* SPDX-License-Identifier: MIT */
/* ethtool pause (flow control): ETHTOOL_MSG_PAUSE_GET/SET, u8 flags
 * (net/ethtool/pause.c); read per device, and a write renegotiates the
 * link. */
#include <linux/ethtool_netlink.h>

#include "family.h"

static const struct nt_ethnl_arg args[] = {
	{.kind = NT_K_PAUSE, .name = "autoneg", .attr = ETHTOOL_A_PAUSE_AUTONEG, .width = 1,
	 .sh_label = "Autonegotiate"},
	{.kind = NT_K_PAUSE, .name = "rx", .attr = ETHTOOL_A_PAUSE_RX, .width = 1, .sh_label = "RX"},
	{.kind = NT_K_PAUSE, .name = "tx", .attr = ETHTOOL_A_PAUSE_TX, .width = 1, .sh_label = "TX"},
	{.name = NULL},
};

const struct nt_ethnl_family nt_fam_pause = {
	.name = "pause",
	.what = "pause",
	.get_msg = ETHTOOL_MSG_PAUSE_GET,
	.set_msg = ETHTOOL_MSG_PAUSE_SET,
	.hdr_attr = ETHTOOL_A_PAUSE_HEADER,
	.max_attr = ETHTOOL_A_PAUSE_MAX,
	.get_req = NT_IO_PAUSE_GET,
	.set_req = NT_IO_PAUSE_SET,
	.per_device = true,
	.present = NT_EP_ATTR,
	.args = args,
};
