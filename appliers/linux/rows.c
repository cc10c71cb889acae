/* SPDX-License-Identifier: MIT */
/* The Linux kind rows: how each kind is read and written, and its sh getter and setter. */
#include <string.h>

#include "rows.h"

/* Only a round robin over queues 0..N-1 is what ethtool -X equal N writes. */
static const char *refuse_indir(const struct nt_value *v)
{
	uint32_t max = 0;
	size_t i;

	for (i = 0; i < v->n; i++)
		if (v->list[i] > max)
			max = v->list[i];
	for (i = 0; i < v->n; i++)
		if (v->list[i] != i % (max + 1))
			break;
	if (v->n && i == v->n)
		return NULL;
	return "ethtool(8) can only write a round-robin indirection table ('equal N'); "
	       "this table is custom, which only 'nettune apply' can write";
}

/* rx-flow-hash words and ethtool letters for the sh setter: the pairs of
 * nt_rxh_fields (test_kinds.c checks that they agree) */
#define RXH_SH "l2da m vlan v l3-proto t src-ip s dst-ip d src-port f dst-port n discard r"

/*
 * The sh bodies: the getter prints the current value in the form
 * nt_value_format() prints the desired one (sh_value says otherwise); the
 * script compares the two strings, writes only on a difference and reads
 * back.  Every name and value reaches them as a quoted argument.
 */
const struct nt_linux_row nt_linux_rows[NT_K__COUNT] = {
	[NT_K_SYSCTL] = {NT_K_SYSCTL,
	 {NT_IO_PROCFS, "/proc/sys/KEY, dots read as slashes (sysctl(8))"},
	 {NT_IO_PROCFS, "/proc/sys/KEY"},
	 NULL, "sysctl", 0, NT_SHV_FOLDED,
	 "nt_f=\"/proc/sys/$(nt_sysctl_path \"$2\")\"\n"
	 "\ttr -s '\\t ' '  ' <\"$nt_f\" | sed 's/^ //; s/ $//'",
	 "nt_f=\"/proc/sys/$(nt_sysctl_path \"$2\")\"\n"
	 "\tprintf '%s\\n' \"$3\" >\"$nt_f\"",
	 {NULL}, NULL},
	[NT_K_MTU] = {NT_K_MTU,
	 {NT_IO_RTNL, "RTM_GETLINK IFLA_MTU (under --root: the row's path)"},
	 {NT_IO_RTNL, "RTM_NEWLINK IFLA_MTU"},
	 "/sys/class/net/%s/mtu", "mtu", 0, NT_SHV_TEXT,
	 "cat \"@PATH@\"",
	 "ip link set dev \"$1\" mtu \"$3\"",
	 {NULL}, NULL},
	[NT_K_TXQLEN] = {NT_K_TXQLEN,
	 {NT_IO_SYSFS, "the row's path"},
	 {NT_IO_RTNL, "RTM_NEWLINK IFLA_TXQLEN"},
	 "/sys/class/net/%s/tx_queue_len", "txqueuelen", 0, NT_SHV_TEXT,
	 "cat \"@PATH@\"",
	 "ip link set dev \"$1\" txqueuelen \"$3\"",
	 {NULL}, NULL},
	[NT_K_FEATURE] = {NT_K_FEATURE,
	 {NT_IO_ETHNL, "ETHTOOL_MSG_FEATURES_GET ETHTOOL_A_FEATURES_ACTIVE"},
	 {NT_IO_ETHNL, "ETHTOOL_MSG_FEATURES_SET ETHTOOL_A_FEATURES_WANTED"},
	 NULL, "feature", 0, NT_SHV_TEXT,
	 "# ethtool -k prints some features under their legacy names\n"
	 "\tcase \"$2\" in\n"
	 "\trx-checksum) nt_l=rx-checksumming ;;\n"
	 "\ttx-generic-segmentation) nt_l=generic-segmentation-offload ;;\n"
	 "\trx-gro) nt_l=generic-receive-offload ;;\n"
	 "\trx-lro) nt_l=large-receive-offload ;;\n"
	 "\trx-hashing) nt_l=receive-hashing ;;\n"
	 "\trx-ntuple-filter) nt_l=ntuple-filters ;;\n"
	 "\trx-vlan-hw-parse) nt_l=rx-vlan-offload ;;\n"
	 "\ttx-vlan-hw-insert) nt_l=tx-vlan-offload ;;\n"
	 "\t*) nt_l=\"$2\" ;;\n"
	 "\tesac\n"
	 "\tethtool -k \"$1\" | awk -v a=\"$2:\" -v b=\"$nt_l:\" '\n"
	 "\t\t($1 == a || $1 == b) { print $2; f = 1; exit }\n"
	 "\t\tEND { if (!f) exit 1 }'",
	 "ethtool -K \"$1\" \"$2\" \"$3\"",
	 {NULL}, NULL},
	[NT_K_PAUSE] = {NT_K_PAUSE,
	 {NT_IO_ETHNL, "ETHTOOL_MSG_PAUSE_GET ETHTOOL_A_PAUSE_{AUTONEG,RX,TX}"},
	 {NT_IO_ETHNL, "ETHTOOL_MSG_PAUSE_SET ETHTOOL_A_PAUSE_{AUTONEG,RX,TX}"},
	 NULL, "pause", 0, NT_SHV_TEXT,
	 "case \"$2\" in\n"
	 "\tautoneg) nt_l=Autonegotiate ;; rx) nt_l=RX ;; tx) nt_l=TX ;;\n"
	 "\t*) return 1 ;;\n"
	 "\tesac\n"
	 "\tethtool -a \"$1\" | awk -v k=\"$nt_l:\" '$1 == k { print $2; f = 1; exit }\n"
	 "\t\tEND { if (!f) exit 1 }'",
	 "ethtool -A \"$1\" \"$2\" \"$3\"",
	 {NULL}, NULL},
	[NT_K_PRIV_FLAG] = {NT_K_PRIV_FLAG,
	 {NT_IO_ETHNL, "ETHTOOL_MSG_PRIVFLAGS_GET ETHTOOL_A_PRIVFLAGS_FLAGS (a bitset by name)"},
	 {NT_IO_ETHNL, "ETHTOOL_MSG_PRIVFLAGS_SET ETHTOOL_A_PRIVFLAGS_FLAGS (the named bit only)"},
	 NULL, "private_flag", 0, NT_SHV_TEXT,
	 "# \"legacy-rx      : off\"\n"
	 "\tethtool --show-priv-flags \"$1\" | awk -v k=\"$2\" -F: 'NR > 1 { n = $1; sub(/[ \\t]+$/, \"\", n)\n"
	 "\t\tif (n == k) { v = $2; gsub(/[ \\t]/, \"\", v); print v; f = 1; exit } }\n"
	 "\t\tEND { if (!f) exit 1 }'",
	 "ethtool --set-priv-flags \"$1\" \"$2\" \"$3\"",
	 {NULL}, NULL},
	[NT_K_CHANNELS] = {NT_K_CHANNELS,
	 {NT_IO_ETHNL, "ETHTOOL_MSG_CHANNELS_GET ETHTOOL_A_CHANNELS_*_COUNT"},
	 {NT_IO_ETHNL, "ETHTOOL_MSG_CHANNELS_SET ETHTOOL_A_CHANNELS_*_COUNT"},
	 NULL, "channels", 0, NT_SHV_TEXT,
	 "case \"$2\" in\n"
	 "\tcombined) nt_l=Combined ;; rx) nt_l=RX ;; tx) nt_l=TX ;; other) nt_l=Other ;;\n"
	 "\t*) return 1 ;;\n"
	 "\tesac\n"
	 "\tethtool -l \"$1\" | nt_current \"$nt_l\"",
	 "ethtool -L \"$1\" \"$2\" \"$3\"",
	 {NULL}, NULL},
	[NT_K_RING] = {NT_K_RING,
	 {NT_IO_ETHNL, "ETHTOOL_MSG_RINGS_GET ETHTOOL_A_RINGS_{RX,TX,RX_MINI,RX_JUMBO}"},
	 {NT_IO_ETHNL, "ETHTOOL_MSG_RINGS_SET ETHTOOL_A_RINGS_{RX,TX,RX_MINI,RX_JUMBO}"},
	 NULL, "ring", 0, NT_SHV_TEXT,
	 "case \"$2\" in\n"
	 "\trx) nt_l=RX ;; tx) nt_l=TX ;; rx-mini) nt_l='RX Mini' ;; rx-jumbo) nt_l='RX Jumbo' ;;\n"
	 "\t*) return 1 ;;\n"
	 "\tesac\n"
	 "\tethtool -g \"$1\" | nt_current \"$nt_l\"",
	 "ethtool -G \"$1\" \"$2\" \"$3\"",
	 {NULL}, NULL},
	[NT_K_COALESCE] = {NT_K_COALESCE,
	 {NT_IO_ETHNL, "ETHTOOL_MSG_COALESCE_GET ETHTOOL_A_COALESCE_{RX,TX}_{USECS,MAX_FRAMES}"},
	 {NT_IO_ETHNL, "ETHTOOL_MSG_COALESCE_SET ETHTOOL_A_COALESCE_{RX,TX}_{USECS,MAX_FRAMES}"},
	 NULL, "coalesce", 0, NT_SHV_TEXT,
	 "ethtool -c \"$1\" | awk -v k=\"$2:\" '$1 == k { print $2; f = 1; exit }\n"
	 "\t\tEND { if (!f) exit 1 }'",
	 "ethtool -C \"$1\" \"$2\" \"$3\"",
	 {NULL}, NULL},
	[NT_K_COALESCE_ADAPTIVE] = {NT_K_COALESCE_ADAPTIVE,
	 {NT_IO_ETHNL, "ETHTOOL_MSG_COALESCE_GET ETHTOOL_A_COALESCE_USE_ADAPTIVE_{RX,TX}"},
	 {NT_IO_ETHNL, "ETHTOOL_MSG_COALESCE_SET ETHTOOL_A_COALESCE_USE_ADAPTIVE_{RX,TX}"},
	 NULL, "coalesce_adaptive", 0, NT_SHV_TEXT,
	 "# \"Adaptive RX: on  TX: off\"\n"
	 "\tethtool -c \"$1\" | awk -v q=\"$2\" '$1 == \"Adaptive\" && $2 == \"RX:\" {\n"
	 "\t\tprint (q == \"rx\" ? $3 : $5); f = 1; exit }\n"
	 "\t\tEND { if (!f) exit 1 }'",
	 "ethtool -C \"$1\" \"adaptive-$2\" \"$3\"",
	 {NULL}, NULL},
	[NT_K_RSS_HFUNC] = {NT_K_RSS_HFUNC,
	 {NT_IO_IOCTL, "ETHTOOL_GRSSH .hfunc (netlink RSS_GET is missing from 6.1 uapi headers)"},
	 {NT_IO_IOCTL, "ETHTOOL_SRSSH .hfunc (netlink RSS_SET needs v6.17)"},
	 NULL, "rss_hfunc", 0, NT_SHV_TEXT,
	 "ethtool -x \"$1\" | awk '/^RSS hash function:/ { h = 1; next }\n"
	 "\t\th && $2 == \"on\" { sub(/:$/, \"\", $1); print $1; f = 1; exit }\n"
	 "\t\tEND { if (!f) exit 1 }'",
	 "ethtool -X \"$1\" hfunc \"$3\"",
	 {NULL}, NULL},
	[NT_K_RSS_KEY] = {NT_K_RSS_KEY,
	 {NT_IO_IOCTL, "ETHTOOL_GRSSH .key_size, key (netlink RSS_GET is missing from 6.1 uapi headers)"},
	 {NT_IO_IOCTL, "ETHTOOL_SRSSH key (netlink RSS_SET needs v6.17)"},
	 NULL, "rss_key", 0, NT_SHV_TEXT,
	 "ethtool -x \"$1\" | awk '/^RSS hash key:/ { k = 1; next }\n"
	 "\t\tk && /^[0-9a-fA-F:]+$/ { s = s (s == \"\" ? \"\" : \":\") $0; next }\n"
	 "\t\tk { exit }\n"
	 "\t\tEND { gsub(/::/, \":\", s); if (s == \"\") exit 1; print tolower(s) }'",
	 "ethtool -X \"$1\" hkey \"$3\"",
	 {NULL}, NULL},
	[NT_K_RSS_INDIR] = {NT_K_RSS_INDIR,
	 {NT_IO_IOCTL, "ETHTOOL_GRSSH .indir_size, ring_index (netlink RSS_GET is missing from 6.1 uapi headers)"},
	 {NT_IO_IOCTL, "ETHTOOL_SRSSH ring_index (netlink RSS_SET needs v6.17)"},
	 NULL, "rss_indir", 0, NT_SHV_TEXT,
	 "ethtool -x \"$1\" | awk '/^RX flow hash indirection table/ { t = 1; next }\n"
	 "\t\tt && $1 ~ /^[0-9]+:$/ { for (i = 2; i <= NF; i++) s = s (s == \"\" ? \"\" : \" \") $i; next }\n"
	 "\t\tt && NF { exit }\n"
	 "\t\tEND { if (s == \"\") exit 1; print s }'",
	 "# only a round robin over queues 0..N-1 can be written: ethtool -X equal N\n"
	 "\tnt_n=\"$(printf '%s\\n' \"$3\" | awk '{ for (i = 1; i <= NF; i++) if ($i + 0 > m) m = $i + 0\n"
	 "\t\tfor (i = 1; i <= NF; i++) if ($i + 0 != (i - 1) % (m + 1)) exit 1; print m + 1 }')\" || {\n"
	 "\t\techo \"not a round robin table; ethtool can only write 'equal N'\" >&2; return 1; }\n"
	 "\tethtool -X \"$1\" equal \"$nt_n\"",
	 {NULL}, refuse_indir},
	[NT_K_FLOW_HASH] = {NT_K_FLOW_HASH,
	 {NT_IO_IOCTL, "ETHTOOL_GRXFH (struct ethtool_rxnfc .flow_type, .data: RXH_* bits)"},
	 {NT_IO_IOCTL, "ETHTOOL_SRXFH (struct ethtool_rxnfc): no ethtool netlink message for it in the 6.1 uapi headers"},
	 NULL, "rx_flow_hash", 0, NT_SHV_TEXT,
	 "# the fields as ethtool(8) unparse_rxfhashopts prints them, one a line\n"
	 "\tethtool -n \"$1\" rx-flow-hash \"$2\" | awk '/ flows / { f = 1 } / discarded on RX/ { d = 1 }\n"
	 "\t\t/^L2DA/ { s = s \" l2da\" } /^VLAN tag/ { s = s \" vlan\" } /^L3 proto/ { s = s \" l3-proto\" }\n"
	 "\t\t/^IP SA/ { s = s \" src-ip\" } /^IP DA/ { s = s \" dst-ip\" }\n"
	 "\t\t/^L4 bytes 0 & 1/ { s = s \" src-port\" } /^L4 bytes 2 & 3/ { s = s \" dst-port\" }\n"
	 "\t\tEND { if (!f) exit 1; if (d) s = s \" discard\"; sub(/^ /, \"\", s); print (s == \"\" ? \"none\" : s) }'",
	 "# field words -> ethtool letters (nt_rxh_fields, compiler/model/settings.c)\n"
	 "\tnt_x=\"$(printf '%s\\n' \"$3\" | awk 'BEGIN { n = split(\"" RXH_SH "\", a, \" \")\n"
	 "\t\tfor (i = 1; i < n; i += 2) m[a[i]] = a[i + 1] }\n"
	 "\t\t{ for (i = 1; i <= NF; i++) { if ($i == \"none\") continue; if (!($i in m)) exit 1; s = s m[$i] } }\n"
	 "\t\tEND { print s }')\" || { echo \"unknown rx-flow-hash field in '$3'\" >&2; return 1; }\n"
	 "\tethtool -N \"$1\" rx-flow-hash \"$2\" \"$nt_x\"",
	 {NULL}, NULL},
	[NT_K_IRQ_AFFINITY] = {NT_K_IRQ_AFFINITY,
	 {NT_IO_PROCFS, "the row's path, for the IRQ of the queue (facts)"},
	 {NT_IO_PROCFS, "the row's path, for the IRQ of the queue (facts)"},
	 "/proc/irq/%s/smp_affinity_list", "irq_affinity", NT_SH_ARG_IRQ, NT_SHV_TEXT,
	 "nt_i=\"$(nt_irq \"$1\" \"$2\")\" || return 1\n"
	 "\tcat \"@PATH@\"",
	 "nt_i=\"$(nt_irq \"$1\" \"$2\")\" || return 1\n"
	 "\tprintf '%s\\n' \"$3\" >\"@PATH@\"",
	 {"$nt_i"}, NULL},
	[NT_K_RPS_CPUS] = {NT_K_RPS_CPUS,
	 {NT_IO_SYSFS, "the row's path (a hex CPU bitmap)"},
	 {NT_IO_SYSFS, "the row's path (a hex CPU bitmap)"},
	 "/sys/class/net/%s/queues/rx-%s/rps_cpus", "rps_cpus", 0, NT_SHV_HEXMASK,
	 "nt_hexmask <\"@PATH@\"",
	 "nt_hexwrite \"$3\" >\"@PATH@\"",
	 {NULL}, NULL},
	[NT_K_RPS_FLOW_CNT] = {NT_K_RPS_FLOW_CNT,
	 {NT_IO_SYSFS, "the row's path"},
	 {NT_IO_SYSFS, "the row's path"},
	 "/sys/class/net/%s/queues/rx-%s/rps_flow_cnt", "rps_flow_cnt", 0, NT_SHV_TEXT,
	 "cat \"@PATH@\"",
	 "printf '%s\\n' \"$3\" >\"@PATH@\"",
	 {NULL}, NULL},
	[NT_K_XPS_CPUS] = {NT_K_XPS_CPUS,
	 {NT_IO_SYSFS, "the row's path (a hex CPU bitmap)"},
	 {NT_IO_SYSFS, "the row's path (a hex CPU bitmap)"},
	 "/sys/class/net/%s/queues/tx-%s/xps_cpus", "xps_cpus", 0, NT_SHV_HEXMASK,
	 "nt_hexmask <\"@PATH@\"",
	 "nt_hexwrite \"$3\" >\"@PATH@\"",
	 {NULL}, NULL},
	[NT_K_IRQBALANCE_BAN] = {NT_K_IRQBALANCE_BAN,
	 {NT_IO_OTHER, "--banirq= of the systemd drop-in irqbalance.service.d/50-nettune.conf: irqbalance has no kernel interface"},
	 {NT_IO_OTHER, "rewrites that drop-in, then systemctl daemon-reload and try-restart irqbalance"},
	 NULL, "banned_irqs", 0, NT_SHV_TEXT,
	 "# the IRQs banned by the systemd drop-in nettune apply also writes, comma separated; none: empty\n"
	 "\t[ -f \"$NT_BANIRQ_DROPIN\" ] || { echo; return 0; }\n"
	 "\ttr ' ' '\\n' <\"$NT_BANIRQ_DROPIN\" | sed -n 's/^--banirq=//p' | paste -sd, -",
	 "if [ -z \"$3\" ]; then\n"
	 "\t\trm -f -- \"$NT_BANIRQ_DROPIN\"\n"
	 "\telse\n"
	 "\t\tmkdir -p -- \"${NT_BANIRQ_DROPIN%/*}\"\n"
	 "\t\t{\n"
	 "\t\t\techo '# Written by nettune: keep irqbalance away from IRQs nettune pins.'\n"
	 "\t\t\tprintf '[Service]\\nExecStart=\\nExecStart=/usr/sbin/irqbalance --foreground %s' \"\\$IRQBALANCE_ARGS\"\n"
	 "\t\t\tprintf '%s\\n' \"$3\" | tr ',' '\\n' | sed 's/^/ --banirq=/' | tr -d '\\n'\n"
	 "\t\t\techo\n"
	 "\t\t} >\"$NT_BANIRQ_DROPIN\"\n"
	 "\tfi\n"
	 "\tsystemctl daemon-reload && systemctl try-restart irqbalance.service",
	 {NULL}, NULL},
	[NT_K_IRQBALANCE_SERVICE] = {NT_K_IRQBALANCE_SERVICE,
	 {NT_IO_OTHER, "whether irqbalance runs (facts): a service, not a kernel interface"},
	 {NT_IO_OTHER, "systemctl start or stop irqbalance.service"},
	 NULL, "service", 0, NT_SHV_TEXT,
	 "if systemctl is-active --quiet irqbalance.service; then echo running; else echo stopped; fi",
	 "case \"$3\" in\n"
	 "\trunning) systemctl start irqbalance.service ;;\n"
	 "\tstopped) systemctl stop irqbalance.service ;;\n"
	 "\t*) return 1 ;;\n"
	 "\tesac",
	 {NULL}, NULL},
	[NT_K_PROCESS_CPUS] = {NT_K_PROCESS_CPUS,
	 {NT_IO_PROCFS, "Cpus_allowed_list of /proc/PID/status"},
	 {NT_IO_OTHER, "sched_setaffinity(2) of every task of the process: a system call, not a file"},
	 NULL, "cpus", 0, NT_SHV_TEXT,
	 "nt_p=\"$(nt_pids \"$1\" | head -n 1)\"\n"
	 "\t[ -n \"$nt_p\" ] || { echo \"no running process for $1\" >&2; return 1; }\n"
	 "\ttaskset -pc \"$nt_p\" | sed 's/.*: //'",
	 "nt_p=\"$(nt_pids \"$1\")\"\n"
	 "\t[ -n \"$nt_p\" ] || return 1\n"
	 "\tprintf '%s\\n' \"$nt_p\" | while read -r nt_q; do\n"
	 "\t\ttaskset -apc \"$3\" \"$nt_q\" >/dev/null || exit 1\n"
	 "\tdone",
	 {NULL}, NULL},
};

const struct nt_linux_row *nt_linux_row(enum nt_kind_id k)
{
	if ((unsigned)k >= NT_K__COUNT || !nt_linux_rows[k].sh_fn)
		return NULL;
	return &nt_linux_rows[k];
}

void nt_linux_row_sh(const struct nt_linux_row *r, const char *body, struct nt_buf *o)
{
	const char *p = body, *at;

	while ((at = strstr(p, "@PATH@"))) {
		const char *t = r->path;
		int n = 0;

		nt_buf_putn(o, p, (size_t)(at - p));
		for (; t && *t; t++) {
			if (t[0] == '%' && t[1] == 's') {
				const char *a = r->sh_path_args[n] ? r->sh_path_args[n] :
						n ? "$2" : "$1";

				nt_buf_puts(o, a);
				n++;
				t++;
			} else {
				nt_buf_putc(o, *t);
			}
		}
		p = at + 6;
	}
	nt_buf_puts(o, p);
}

const char *nt_io_name(enum nt_io how)
{
	static const char *const n[] = {"none", "ethtool netlink", "rtnetlink", "sysfs", "procfs",
					"ioctl", "other"};

	return (unsigned)how < sizeof(n) / sizeof(n[0]) ? n[how] : "?";
}
