/* SPDX-License-Identifier: MIT */
/* ethtool channels: ETHTOOL_MSG_CHANNELS_GET/SET (net/ethtool/channels.c);
 * the arguments in the order of enum nt_chan. */
#include <linux/ethtool_netlink.h>

#include "family.h"

static const struct nt_ethnl_arg args[] = {
	{.kind = NT_K_CHANNELS, .name = "combined", .attr = ETHTOOL_A_CHANNELS_COMBINED_COUNT,
	 .max_attr = ETHTOOL_A_CHANNELS_COMBINED_MAX, .width = 4, .sh_label = "Combined"},
	{.kind = NT_K_CHANNELS, .name = "rx", .attr = ETHTOOL_A_CHANNELS_RX_COUNT,
	 .max_attr = ETHTOOL_A_CHANNELS_RX_MAX, .width = 4, .sh_label = "RX"},
	{.kind = NT_K_CHANNELS, .name = "tx", .attr = ETHTOOL_A_CHANNELS_TX_COUNT,
	 .max_attr = ETHTOOL_A_CHANNELS_TX_MAX, .width = 4, .sh_label = "TX"},
	{.kind = NT_K_CHANNELS, .name = "other", .attr = ETHTOOL_A_CHANNELS_OTHER_COUNT,
	 .max_attr = ETHTOOL_A_CHANNELS_OTHER_MAX, .width = 4, .sh_label = "Other"},
	{.name = NULL},
};

const struct nt_ethnl_family nt_fam_channels = {
	.name = "channels",
	.what = "channels",
	.get_msg = ETHTOOL_MSG_CHANNELS_GET,
	.set_msg = ETHTOOL_MSG_CHANNELS_SET,
	.hdr_attr = ETHTOOL_A_CHANNELS_HEADER,
	.max_attr = ETHTOOL_A_CHANNELS_MAX,
	.get_req = NT_IO_CHANNELS_GET,
	.dump_req = NT_IO_CHANNELS_DUMP,
	.set_req = NT_IO_CHANNELS_SET,
	.present = NT_EP_MAX_OR_CUR,
	.args = args,
};
