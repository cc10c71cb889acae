/* SPDX-License-Identifier: MIT */
/* ethtool pause (flow control): ETHTOOL_MSG_PAUSE_GET/SET, u8 flags
 * (net/ethtool/pause.c); read per device, and a write renegotiates the
 * link.  The family and the kind's row: the kind has no other file in the
 * applier. */
#include <linux/ethtool_netlink.h>

#include "family.h"
#include "linux.h"

static const struct nt_ethnl_arg args[] = {
	{.kind = NT_K_PAUSE, .name = "autoneg", .attr = ETHTOOL_A_PAUSE_AUTONEG, .width = 1,
	 .sh_label = "Autonegotiate"},
	{.kind = NT_K_PAUSE, .name = "rx", .attr = ETHTOOL_A_PAUSE_RX, .width = 1, .sh_label = "RX"},
	{.kind = NT_K_PAUSE, .name = "tx", .attr = ETHTOOL_A_PAUSE_TX, .width = 1, .sh_label = "TX"},
	{.name = NULL},
};

static const struct nt_ethnl_family fam = {
	.name = "pause",
	.what = "pause",
	.get_msg = ETHTOOL_MSG_PAUSE_GET,
	.set_msg = ETHTOOL_MSG_PAUSE_SET,
	.hdr_attr = ETHTOOL_A_PAUSE_HEADER,
	.max_attr = ETHTOOL_A_PAUSE_MAX,
	.named_reqs = true,
	.per_device = true,
	.present = NT_EP_ATTR,
	.args = args,
};

const struct nt_linux_row nt_row_PAUSE = {
	.kind = NT_K_PAUSE,
	.get = {NT_IO_ETHNL, "ETHTOOL_MSG_PAUSE_GET ETHTOOL_A_PAUSE_{AUTONEG,RX,TX}"},
	.set = {NT_IO_ETHNL, "ETHTOOL_MSG_PAUSE_SET ETHTOOL_A_PAUSE_{AUTONEG,RX,TX}"},
	.sh_fn = "pause",
	.sh_get = "case \"$2\" in\n"
		"\tautoneg) nt_l=Autonegotiate ;; rx) nt_l=RX ;; tx) nt_l=TX ;;\n"
		"\t*) return 1 ;;\n"
		"\tesac\n"
		"\tethtool -a \"$1\" | awk -v k=\"$nt_l:\" '$1 == k { print $2; f = 1; exit }\n"
		"\t\tEND { if (!f) exit 1 }'",
	.sh_put = "ethtool -A \"$1\" \"$2\" \"$3\"",
	.read = nt_rw_ethnl_read,
	.write = nt_rw_ethnl_write,
	.flags = NT_LR_OBSERVE,
	.fam = &fam,
};
