/* SPDX-License-Identifier: MIT */
/* rx-flow-hash: the RSS hash fields of a flow type over SIOCETHTOOL
 * ETHTOOL_GRXFH / ETHTOOL_SRXFH with struct ethtool_rxnfc
 * (include/uapi/linux/ethtool.h; no ethtool netlink message for it in
 * the 6.1 uapi headers), and the kind's row, which has no other file in
 * the applier.  Its words and their RXH_* bits are the profile key's
 * (language/ifkeys.def), reached through the kind (settings.h). */
#include <errno.h>
#include <linux/ethtool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../compiler/model/names.h"
#include "ethnl.h"
#include "linux.h"
#include "rows.h"
#include "rss.h"
#include "sysio.h"

/* flow types as ethtool(8) rxflow_str_to_type maps them */
static uint32_t flow_type(const char *name)
{
	static const struct {
		const char *name;
		uint32_t type;
	} t[] = {
		{"tcp4", TCP_V4_FLOW}, {"udp4", UDP_V4_FLOW}, {"sctp4", SCTP_V4_FLOW},
		{"ah4", AH_ESP_V4_FLOW}, {"esp4", AH_ESP_V4_FLOW}, {"tcp6", TCP_V6_FLOW},
		{"udp6", UDP_V6_FLOW}, {"sctp6", SCTP_V6_FLOW}, {"ah6", AH_ESP_V6_FLOW},
		{"esp6", AH_ESP_V6_FLOW},
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(t[i].name, name))
			return t[i].type;
	return 0;
}

static int rxfh_read(struct nt_lctx *x, const char *obj, const char *arg, struct nt_value *out)
{
	struct ethtool_rxnfc nfc = {.cmd = ETHTOOL_GRXFH, .flow_type = flow_type(arg)};
	char *s;
	int r;

	(void)x;
	if (*nt_sys_root)
		return -ENOENT;
	if (!nfc.flow_type)
		return -ENOENT;
	nt_io.netlink_gets++;
	r = nt_ethtool_ioctl(obj, &nfc);
	if (r)
		return nt_row_absent(r);
	s = nt_kind_words_format(NT_K_FLOW_HASH, (uint32_t)nfc.data);
	*out = nt_v_str(s);
	free(s);
	return 0;
}

static int rxfh_write(struct nt_lctx *x, const char *obj, const char *arg, const struct nt_value *v)
{
	struct ethtool_rxnfc nfc = {.cmd = ETHTOOL_SRXFH, .flow_type = flow_type(arg)};
	uint32_t bits;
	int r;

	if (!nt_kind_words_parse(NT_K_FLOW_HASH, v->s, &bits)) {
		snprintf(x->err, sizeof(x->err), "rx-flow-hash %s: '%s' is not a list of hash fields",
			 arg, v->s);
		return -EINVAL;
	}
	nfc.data = bits;
	r = -EINVAL;
	if (nfc.flow_type) {
		nt_io.ioctl_sets++;
		r = nt_ethtool_ioctl(obj, &nfc);
	}
	if (r)
		snprintf(x->err, sizeof(x->err), "SIOCETHTOOL ETHTOOL_SRXFH %s: %s", arg, strerror(-r));
	return r;
}

/* the words and ethtool(8)'s letters for them (ethtool -N DEV
 * rx-flow-hash FLOW LETTERS) for the sh setter; test_kinds.c checks that
 * they are the profile key's words */
#define RXH_SH "l2da m vlan v l3-proto t src-ip s dst-ip d src-port f dst-port n discard r"

const struct nt_linux_row nt_row_FLOW_HASH = {
	.kind = NT_K_FLOW_HASH,
	.get = {NT_IO_IOCTL, "ETHTOOL_GRXFH (struct ethtool_rxnfc .flow_type, .data: RXH_* bits)"},
	.set = {NT_IO_IOCTL, "ETHTOOL_SRXFH (struct ethtool_rxnfc): no ethtool netlink message for it in the 6.1 uapi headers"},
	.sh_fn = "rx_flow_hash",
	.sh_get = "# the fields as ethtool(8) unparse_rxfhashopts prints them, one a line\n"
		"\tethtool -n \"$1\" rx-flow-hash \"$2\" | awk '/ flows / { f = 1 } / discarded on RX/ { d = 1 }\n"
		"\t\t/^L2DA/ { s = s \" l2da\" } /^VLAN tag/ { s = s \" vlan\" } /^L3 proto/ { s = s \" l3-proto\" }\n"
		"\t\t/^IP SA/ { s = s \" src-ip\" } /^IP DA/ { s = s \" dst-ip\" }\n"
		"\t\t/^L4 bytes 0 & 1/ { s = s \" src-port\" } /^L4 bytes 2 & 3/ { s = s \" dst-port\" }\n"
		"\t\tEND { if (!f) exit 1; if (d) s = s \" discard\"; sub(/^ /, \"\", s); print (s == \"\" ? \"none\" : s) }'",
	.sh_put = "# field words -> ethtool -N letters (ethtool(8) parse_rxfhashopts)\n"
		"\tnt_x=\"$(printf '%s\\n' \"$3\" | awk 'BEGIN { n = split(\"" RXH_SH "\", a, \" \")\n"
		"\t\tfor (i = 1; i < n; i += 2) m[a[i]] = a[i + 1] }\n"
		"\t\t{ for (i = 1; i <= NF; i++) { if ($i == \"none\") continue; if (!($i in m)) exit 1; s = s m[$i] } }\n"
		"\t\tEND { print s }')\" || { echo \"unknown rx-flow-hash field in '$3'\" >&2; return 1; }\n"
		"\tethtool -N \"$1\" rx-flow-hash \"$2\" \"$nt_x\"",
	.read = rxfh_read,
	.write = rxfh_write,
	.flags = NT_LR_OBSERVE,
};
