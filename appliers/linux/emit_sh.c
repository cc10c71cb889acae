/* SPDX-License-Identifier: MIT */
/* nettune emit --format sh: the desired state as an idempotent POSIX sh script. */
#include <stdlib.h>
#include <string.h>

#include "../../compiler/base/version.h"
#include "../../compiler/language/profile.h"
#include "../../compiler/model/offloads.h"
#include "../emit.h"
#include "rows.h"

/*
 * The sh getter and setter of each Linux kind are rows of nt_linux_rows[]
 * (kinds.c); this file only strings them together.  A kind without a row
 * cannot be emitted (error at emit time).
 */
static const struct nt_linux_row *row(enum nt_kind_id k)
{
	return nt_linux_row(k);
}

const char *nt_emit_sh_row(enum nt_kind_id k)
{
	const struct nt_linux_row *r = row(k);

	return r ? r->sh_fn : NULL;
}

/* Whether feature setting s is one of its interface's linux.features: lowering
 * puts those after the offload groups, over a member's value. */
static bool escape_hatch(const struct nt_emit_input *in, const char *object, const char *feature)
{
	const struct nt_profile *p = in->loaded ? in->loaded->p : NULL;
	unsigned i, k;

	for (i = 0; p && i < p->interfaces_count; i++) {
		const struct nt_iface *f = &p->interfaces[i];

		if (strcmp(f->name, object) || !f->linux_opts)
			continue;
		for (k = 0; k < f->linux_opts->features_count; k++)
			if (!strcmp(f->linux_opts->features[k].key, feature))
				return true;
	}
	return false;
}

const char *nt_emit_sh_group(const struct nt_emit_input *in, const struct nt_setting *s)
{
	if (s->kind != NT_K_FEATURE || !s->arg || escape_hatch(in, s->object, s->arg))
		return NULL;
	return nt_linux_offload_of(s->arg);
}

/* The linux.features of object in offload group g, space separated: the
 * members the group's step leaves to their own steps; malloc'd. */
static char *group_except(const struct nt_emit_input *in, const char *object, const char *g)
{
	const struct nt_profile *p = in->loaded ? in->loaded->p : NULL;
	struct nt_buf o = {0};
	unsigned i, k;

	for (i = 0; p && i < p->interfaces_count; i++) {
		const struct nt_iface *f = &p->interfaces[i];

		if (strcmp(f->name, object) || !f->linux_opts)
			continue;
		for (k = 0; k < f->linux_opts->features_count; k++) {
			const char *key = f->linux_opts->features[k].key;
			const char *kg = nt_linux_offload_of(key);

			if (kg && !strcmp(kg, g))
				nt_buf_printf(&o, "%s%s", o.n ? " " : "", key);
		}
	}
	return o.p ? nt_buf_take(&o) : nt_xstrdup("");
}

static const char prelude[] =
	"set -eu\n"
	"# no pathname expansion anywhere: no name or value is ever a pattern\n"
	"set -f\n"
	"umask 077\n"
	"\n"
	"NT_STATE_DIR=\"${NETTUNE_STATE_DIR:-/var/lib/nettune}\"\n"
	"NT_BANIRQ_DROPIN=\"${NETTUNE_BANIRQ_DROPIN:-/etc/systemd/system/irqbalance.service.d/50-nettune.conf}\"\n"
	"NT_FAILED=0\n"
	"NT_CHANGED=0\n"
	"\n"
	"nt_die() {\n"
	"\tprintf 'nettune: %s\\n' \"$*\" >&2\n"
	"\texit 1\n"
	"}\n"
	"\n"
	"# \"net.core.rmem_max\" -> net/core/rmem_max, as sysctl(8) does\n"
	"nt_sysctl_path() {\n"
	"\tcase \"$1\" in\n"
	"\t*/*) printf '%s\\n' \"$1\" ;;\n"
	"\t*) printf '%s\\n' \"$1\" | tr . / ;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"# value of LABEL in the \"Current hardware settings\" block of ethtool -l/-g\n"
	"nt_current() {\n"
	"\tawk -v k=\"$1\" -F':' '/^Current hardware settings/ { c = 1; next }\n"
	"\t\tc && $1 == k { v = $2; gsub(/[ \\t]/, \"\", v); print v; f = 1; exit }\n"
	"\t\tEND { if (!f) exit 1 }'\n"
	"}\n"
	"\n"
	"# sysfs CPU bitmap \"00000000,0000000f\" -> \"f\" (\"0\" for none)\n"
	"nt_hexmask() {\n"
	"\ttr -d ',\\n' | sed 's/^0*//; s/^$/0/'\n"
	"}\n"
	"\n"
	"# \"f0000000f\" -> \"f,0000000f\": 32-bit groups, as the kernel prints them\n"
	"nt_hexwrite() {\n"
	"\tprintf '%s\\n' \"$1\" | awk '{ s = $0; o = \"\"\n"
	"\t\twhile (length(s) > 8) { o = \",\" substr(s, length(s) - 7) o; s = substr(s, 1, length(s) - 8) }\n"
	"\t\tprint s o }'\n"
	"}\n"
	"\n"
	"# IRQ of queue Q of DEV.  \"Q@IRQ\" when the snapshot knew it; otherwise the\n"
	"# Q-th line of /proc/interrupts whose name contains \"DEV-\" (i40e DEV-TxRx-Q,\n"
	"# ice/ixgbe/igb DEV-TxRx-Q, bnxt DEV-TxRx-Q, virtio via its own names).\n"
	"nt_irq() {\n"
	"\tcase \"$2\" in\n"
	"\t*@*) printf '%s\\n' \"${2#*@}\"; return 0 ;;\n"
	"\tesac\n"
	"\tawk -v d=\"$1-\" -v q=\"$2\" 'NR > 1 && index($NF, d) { if (n++ == q) { sub(/:$/, \"\", $1)\n"
	"\t\tprint $1; f = 1; exit } } END { if (!f) exit 1 }' /proc/interrupts || {\n"
	"\t\techo \"cannot find the IRQ of $1 queue $2 in /proc/interrupts\" >&2; return 1; }\n"
	"}\n"
	"\n"
	"# PIDs of \"process WHO\": a pidfile (has a /), a systemd unit, or a comm name\n"
	"nt_pids() {\n"
	"\tnt_w=\"${1#process }\"\n"
	"\tcase \"$nt_w\" in\n"
	"\t*/*) cat -- \"$nt_w\" ;;\n"
	"\t*.service | *.scope) systemctl show -p MainPID --value -- \"$nt_w\" | grep -v '^0$' || true ;;\n"
	"\t*) pgrep -x -- \"$nt_w\" || true ;;\n"
	"\tesac\n"
	"}\n"
	"\n";

static const char engine[] =
	"nt_get() {\n"
	"\tnt_k=\"$1\"\n"
	"\tshift\n"
	"\tcase \"$nt_k\" in\n"
	"@GETCASES@"
	"\t*) echo \"unknown kind $nt_k\" >&2; return 1 ;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"nt_put() {\n"
	"\tnt_k=\"$1\"\n"
	"\tshift\n"
	"\tcase \"$nt_k\" in\n"
	"@PUTCASES@"
	"\t*) echo \"unknown kind $nt_k\" >&2; return 1 ;;\n"
	"\tesac\n"
	"}\n"
	"\n"
	"# nt_step KIND OBJECT ARG WANT: one setting, in the mode of $NT_MODE.\n"
	"#   record:  append the current value to $NT_RECORD (before any write)\n"
	"#   check:   report, change nothing\n"
	"#   apply:   write only if it differs, read back, fail loudly\n"
	"#   restore: as apply, but a refused write goes to $NT_RETRY for a second\n"
	"#            pass (a feature another one must enable first, such as\n"
	"#            tx-tcp-mangleid-segmentation after tx-tcp-segmentation)\n"
	"nt_step() {\n"
	"\tnt_what=\"$2 $1${3:+ $3}\"\n"
	"\tcase \"$1\" in @IRQKINDS@) nt_what=\"${nt_what%@*}\" ;; esac\n"
	"\tif ! nt_cur=\"$(nt_get \"$1\" \"$2\" \"$3\" 2>&1)\"; then\n"
	"\t\tprintf 'FAILED   %s: cannot read the current value: %s\\n' \"$nt_what\" \"$nt_cur\"\n"
	"\t\tNT_FAILED=1\n"
	"\t\treturn 1\n"
	"\tfi\n"
	"\tcase \"$NT_MODE\" in\n"
	"\trecord)\n"
	"\t\t[ \"$nt_cur\" = \"$4\" ] || NT_CHANGED=\"$((NT_CHANGED + 1))\"\n"
	"\t\t# tab separated; an empty argument is \"-\" (read folds adjacent tabs)\n"
	"\t\tprintf '%s\\t%s\\t%s\\t%s\\n' \"$1\" \"$2\" \"${3:--}\" \"$nt_cur\" >>\"$NT_RECORD\"\n"
	"\t\treturn 0 ;;\n"
	"\tcheck)\n"
	"\t\tif [ \"$nt_cur\" = \"$4\" ]; then\n"
	"\t\t\tprintf 'ok       %s = %s\\n' \"$nt_what\" \"$4\"\n"
	"\t\telse\n"
	"\t\t\tprintf 'differs  %s: %s, want %s\\n' \"$nt_what\" \"$nt_cur\" \"$4\"\n"
	"\t\t\tNT_CHANGED=\"$((NT_CHANGED + 1))\"\n"
	"\t\tfi\n"
	"\t\treturn 0 ;;\n"
	"\tesac\n"
	"\tif [ \"$nt_cur\" = \"$4\" ]; then\n"
	"\t\tprintf 'ok       %s = %s\\n' \"$nt_what\" \"$4\"\n"
	"\t\treturn 0\n"
	"\tfi\n"
	"\tif ! nt_err=\"$(nt_put \"$1\" \"$2\" \"$3\" \"$4\" 2>&1)\"; then\n"
	"\t\t! nt_defer \"$@\" || return 0\n"
	"\t\tprintf 'FAILED   %s: %s -> %s refused: %s\\n' \"$nt_what\" \"$nt_cur\" \"$4\" \"$nt_err\"\n"
	"\t\tNT_FAILED=1\n"
	"\t\treturn 1\n"
	"\tfi\n"
	"\tnt_now=\"$(nt_get \"$1\" \"$2\" \"$3\" 2>&1)\" || true\n"
	"\tif [ \"$nt_now\" != \"$4\" ]; then\n"
	"\t\t! nt_defer \"$@\" || return 0\n"
	"\t\tprintf 'FAILED   %s: wrote %s, reads back %s (accepted but not effective)\\n' \\\n"
	"\t\t\t\"$nt_what\" \"$4\" \"$nt_now\"\n"
	"\t\tNT_FAILED=1\n"
	"\t\treturn 1\n"
	"\tfi\n"
	"\tprintf 'changed  %s: %s -> %s\\n' \"$nt_what\" \"$nt_cur\" \"$4\"\n"
	"\tNT_CHANGED=\"$((NT_CHANGED + 1))\"\n"
	"}\n"
	"\n"
	"nt_defer() {\n"
	"\t[ \"$NT_MODE\" = restore ] || return 1\n"
	"\tprintf '%s\\t%s\\t%s\\t%s\\n' \"$1\" \"$2\" \"${3:--}\" \"$4\" >>\"$NT_RETRY\"\n"
	"}\n"
	"\n"
	"# DEV's features as \"NAME FIXED\" lines (FIXED 1 for \"[fixed]\": not in\n"
	"# hw_features or never changeable), under the kernel's own names\n"
	"# (net/ethtool/common.c netdev_features_strings[]).  ethtool(8) prints\n"
	"# a feature under its off_flag_def[] long name when it is the only one\n"
	"# that name matches, and otherwise the name as a header (no tab) over\n"
	"# its members (a tab): ethtool netlink/features.c dump_features().\n"
	"nt_features() {\n"
	"\tnt_fk=\"$(ethtool -k \"$1\")\" || return 1\n"
	"\tprintf '%s\\n' \"$nt_fk\" | awk '\n"
	"\t\tfunction flush(  n) {\n"
	"\t\t\tif (p == \"\") return\n"
	"\t\t\tn = p; p = \"\"\n"
	"\t\t\tif (n in legacy) n = legacy[n]\n"
	"\t\t\telse if (n in header) { bad = n; return }\n"
	"\t\t\to = o n \" \" pf \"\\n\"\n"
	"\t\t}\n"
	"\t\tBEGIN {\n"
	"\t\t\tlegacy[\"rx-checksumming\"] = \"rx-checksum\"\n"
	"\t\t\tlegacy[\"udp-fragmentation-offload\"] = \"tx-udp-fragmentation\"\n"
	"\t\t\tlegacy[\"generic-segmentation-offload\"] = \"tx-generic-segmentation\"\n"
	"\t\t\tlegacy[\"generic-receive-offload\"] = \"rx-gro\"\n"
	"\t\t\tlegacy[\"large-receive-offload\"] = \"rx-lro\"\n"
	"\t\t\tlegacy[\"rx-vlan-offload\"] = \"rx-vlan-hw-parse\"\n"
	"\t\t\tlegacy[\"tx-vlan-offload\"] = \"tx-vlan-hw-insert\"\n"
	"\t\t\tlegacy[\"ntuple-filters\"] = \"rx-ntuple-filter\"\n"
	"\t\t\tlegacy[\"receive-hashing\"] = \"rx-hashing\"\n"
	"\t\t\t# patterns: alone, the name does not say which feature it is\n"
	"\t\t\theader[\"tx-checksumming\"] = 1; header[\"scatter-gather\"] = 1\n"
	"\t\t\theader[\"tcp-segmentation-offload\"] = 1\n"
	"\t\t}\n"
	"\t\tNR == 1 || !NF { next }\n"
	"\t\t{ n = $1; sub(/:$/, \"\", n); f = / \\[fixed\\]$/ ? 1 : 0 }\n"
	"\t\t/^\\t/ { p = \"\"; o = o n \" \" f \"\\n\"; next }\n"
	"\t\t{ flush(); p = n; pf = f }\n"
	"\t\tEND { flush(); if (bad == \"\") { printf \"%s\", o; exit 0 }\n"
	"\t\t\tprint \"ethtool -k prints \" bad \" without the features it stands for\"; exit 1 }'\n"
	"}\n"
	"\n"
	"# nt_in_group GROUP FEATURE: whether lowering puts FEATURE in the offload\n"
	"# group (compiler/language/offloads.def; compiler/passes/lower_linux.c\n"
	"# in_group_as)\n"
	"nt_in_group() {\n"
	"\tcase \"$1\" in\n"
	"@GROUPCASES@"
	"\tesac\n"
	"\treturn 1\n"
	"}\n"
	"\n"
	"# nt_group DEV GROUP WANT EXCEPT: an offload group as nettune apply expands\n"
	"# it, from the running kernel's feature list: the members DEV has, less\n"
	"# the fixed ones while any member is changeable (compiler/passes/lower_linux.c\n"
	"# lower_group), less EXCEPT (space separated: features with a step of\n"
	"# their own, from linux.features).  Each member is one nt_step, so\n"
	"# record, check, apply and rollback cover every member.\n"
	"nt_group() {\n"
	"\tnt_gd=\"$1\"\n"
	"\tnt_gg=\"$2\"\n"
	"\tnt_gw=\"$3\"\n"
	"\tnt_ge=\" $4 \"\n"
	"\tif ! nt_gl=\"$(nt_features \"$nt_gd\" 2>&1)\"; then\n"
	"\t\tprintf 'FAILED   %s offload %s: cannot list its features: %s\\n' \"$nt_gd\" \"$nt_gg\" \"$nt_gl\"\n"
	"\t\tNT_FAILED=1\n"
	"\t\treturn 1\n"
	"\tfi\n"
	"\tnt_gn=0\n"
	"\tnt_gc=0\n"
	"\twhile read -r nt_gx nt_gf; do\n"
	"\t\tnt_in_group \"$nt_gg\" \"$nt_gx\" || continue\n"
	"\t\tnt_gn=\"$((nt_gn + 1))\"\n"
	"\t\t[ \"$nt_gf\" = 1 ] || nt_gc=\"$((nt_gc + 1))\"\n"
	"\tdone <<EOF\n"
	"$nt_gl\n"
	"EOF\n"
	"\tif [ \"$nt_gn\" -eq 0 ] && [ \"$nt_gw\" = on ]; then\n"
	"\t\tprintf 'FAILED   %s offload %s: %s has no %s feature; it cannot be turned on\\n' \\\n"
	"\t\t\t\"$nt_gd\" \"$nt_gg\" \"$nt_gd\" \"$nt_gg\"\n"
	"\t\tNT_FAILED=1\n"
	"\t\treturn 1\n"
	"\tfi\n"
	"\tset --\n"
	"\twhile read -r nt_gx nt_gf; do\n"
	"\t\tnt_in_group \"$nt_gg\" \"$nt_gx\" || continue\n"
	"\t\t[ \"$nt_gf\" != 1 ] || [ \"$nt_gc\" -eq 0 ] || continue\n"
	"\t\tcase \"$nt_ge\" in *\" $nt_gx \"*) continue ;; esac\n"
	"\t\tset -- \"$@\" \"$nt_gx\"\n"
	"\tdone <<EOF\n"
	"$nt_gl\n"
	"EOF\n"
	"\tfor nt_gx; do\n"
	"\t\tnt_step feature \"$nt_gd\" \"$nt_gx\" \"$nt_gw\" || return 1\n"
	"\tdone\n"
	"}\n"
	"\n"
	"nt_preflight() {\n"
	"\t[ \"$(id -u)\" -eq 0 ] || nt_die \"run as root (this script changes network settings)\"\n"
	"\tfor nt_t in ethtool ip awk; do\n"
	"\t\tcommand -v \"$nt_t\" >/dev/null 2>&1 || nt_die \"$nt_t is not installed\"\n"
	"\tdone\n"
	"\tnt_missing=\n"
	"\tfor nt_d in \"$@\"; do\n"
	"\t\t[ ! -e \"/sys/class/net/$nt_d\" ] || continue\n"
	"\t\tcase \"$nt_missing\" in\n"
	"\t\t*\" '$nt_d'\"*) ;;\n"
	"\t\t*) nt_missing=\"$nt_missing '$nt_d'\" ;;\n"
	"\t\tesac\n"
	"\tdone\n"
	"\t[ -z \"$nt_missing\" ] || nt_die \"interface(s) not found:$nt_missing; nothing was changed\"\n"
	"}\n"
	"\n"
	"# The name of the newest rollback file of this host in $NT_STATE_DIR: by the\n"
	"# time its first line records, not by name or modification time.\n"
	"nt_newest() {\n"
	"\t[ -d \"$NT_STATE_DIR\" ] || return 1\n"
	"\tNT_H=\"$NT_HOST\" find \"$NT_STATE_DIR/.\" ! -name . -prune -name 'rollback-*.tsv' -type f \\\n"
	"\t\t-exec awk -F'\\t' 'FNR == 1 && $1 == \"#nettune-rollback\" && $3 == ENVIRON[\"NT_H\"] &&\n"
	"\t\t\tFILENAME !~ /\\n/ { split($2, t, \".\"); sub(/.*\\//, \"\", FILENAME)\n"
	"\t\t\tprint t[1] \"\\t\" t[2] \"\\t\" FILENAME }' {} + |\n"
	"\t\tawk -F'\\t' '!f || $1 + 0 > s || ($1 + 0 == s && $2 + 0 > n) {\n"
	"\t\t\ts = $1 + 0; n = $2 + 0; b = $0; sub(/^[^\\t]*\\t[^\\t]*\\t/, \"\", b); f = 1 }\n"
	"\t\t\tEND { if (!f) exit 1; print b }'\n"
	"}\n"
	"\n"
	"# The steps of a record file on stdin; nt_bad is set to an unknown kind.\n"
	"nt_restore() {\n"
	"\twhile IFS=\"$nt_tab\" read -r nt_rk nt_ro nt_ra nt_rv; do\n"
	"\t\tcase \"$nt_rk\" in\n"
	"\t\t'#'*) continue ;;\n"
	"@KINDLIST@) ;;\n"
	"\t\t*) nt_bad=\"$nt_rk\"; return 0 ;;\n"
	"\t\tesac\n"
	"\t\t[ \"$nt_ra\" != - ] || nt_ra=\n"
	"\t\tnt_step \"$nt_rk\" \"$nt_ro\" \"$nt_ra\" \"$nt_rv\" || true\n"
	"\tdone\n"
	"}\n"
	"\n"
	"# Restores a record file written by a previous run, last setting first.\n"
	"nt_rollback() {\n"
	"\tnt_file=\"$1\"\n"
	"\t[ -r \"$nt_file\" ] || nt_die \"cannot read rollback file $nt_file\"\n"
	"\tnt_tab=\"$(printf '\\t')\"\n"
	"\t# interfaces first, so a missing one stops us before any write\n"
	"\tset --\n"
	"\twhile IFS=\"$nt_tab\" read -r nt_rk nt_ro _; do\n"
	"\t\tcase \"$nt_rk\" in\n"
	"\t\t'#'*@HOSTKINDS@) ;;\n"
	"\t\t*) set -- \"$@\" \"$nt_ro\" ;;\n"
	"\t\tesac\n"
	"\tdone <\"$nt_file\"\n"
	"\tnt_preflight \"$@\"\n"
	"\tnt_rev=\"$(mktemp \"${TMPDIR:-/tmp}/nettune-rollback.XXXXXX\")\" || nt_die \"cannot create a temporary file\"\n"
	"\tNT_RETRY=\"$(mktemp \"${TMPDIR:-/tmp}/nettune-retry.XXXXXX\")\" || nt_die \"cannot create a temporary file\"\n"
	"\tawk '{ l[NR] = $0 } END { for (i = NR; i > 0; i--) print l[i] }' \"$nt_file\" >\"$nt_rev\"\n"
	"\tnt_bad=\n"
	"\tNT_MODE=restore\n"
	"\tnt_restore <\"$nt_rev\"\n"
	"\tNT_MODE=apply\n"
	"\t[ -n \"$nt_bad\" ] || nt_restore <\"$NT_RETRY\"\n"
	"\trm -f -- \"$nt_rev\" \"$NT_RETRY\"\n"
	"\t[ -z \"$nt_bad\" ] || nt_die \"$nt_file: unknown kind '$nt_bad'\"\n"
	"\t[ \"$NT_FAILED\" -eq 0 ] || nt_die \"rollback incomplete: see FAILED above\"\n"
	"\tprintf 'nettune: rolled back from %s (%s changed)\\n' \"$nt_file\" \"$NT_CHANGED\"\n"
	"}\n"
	"\n"
	"# A new rollback file: its own name per run (time, PID, counter), created\n"
	"# with noclobber, so that no run ever overwrites another's.  The name is\n"
	"# for people; nt_newest goes by the time in the first line.\n"
	"nt_new_rollback() {\n"
	"\tNT_NOW=\"$(date +%s.%N)\"\n"
	"\tcase \"$NT_NOW\" in\n"
	"\t[0-9]*.[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]) ;;\n"
	"\t*) NT_NOW=\"$(date +%s).000000000\" ;;\n"
	"\tesac\n"
	"\tif [ -n \"${NETTUNE_ROLLBACK:-}\" ]; then\n"
	"\t\tNT_ROLLBACK=\"$NETTUNE_ROLLBACK\"\n"
	"\t\tcase \"$NT_ROLLBACK\" in */*) mkdir -p -- \"${NT_ROLLBACK%/*}\" ;; esac\n"
	"\t\t(set -C && : >\"$NT_ROLLBACK\") 2>/dev/null ||\n"
	"\t\t\tnt_die \"NETTUNE_ROLLBACK=$NT_ROLLBACK exists or cannot be created; it is never overwritten\"\n"
	"\telse\n"
	"\t\tmkdir -p -- \"$NT_STATE_DIR\"\n"
	"\t\tnt_n=0\n"
	"\t\twhile :; do\n"
	"\t\t\tNT_ROLLBACK=\"$NT_STATE_DIR/rollback-$NT_HOST-$(date +%Y%m%dT%H%M%S)-$$-$nt_n.tsv\"\n"
	"\t\t\t! (set -C && : >\"$NT_ROLLBACK\") 2>/dev/null || break\n"
	"\t\t\tnt_n=\"$((nt_n + 1))\"\n"
	"\t\t\t[ \"$nt_n\" -lt 100 ] || nt_die \"cannot create a rollback file in $NT_STATE_DIR\"\n"
	"\t\tdone\n"
	"\tfi\n"
	"\t# recorded beside it, and renamed over the empty file once complete\n"
	"\tNT_RECORD=\"$NT_ROLLBACK.tmp\"\n"
	"\t(set -C && printf '#nettune-rollback\\t%s\\t%s\\t%s\\n' \"$NT_NOW\" \"$NT_HOST\" \"$$\" >\"$NT_RECORD\") 2>/dev/null || {\n"
	"\t\trm -f -- \"$NT_ROLLBACK\"\n"
	"\t\tnt_die \"cannot create $NT_RECORD\"\n"
	"\t}\n"
	"}\n"
	"\n";

static const char main_part[] =
	"nt_main() {\n"
	"\tcase \"${1:-apply}\" in\n"
	"\tapply | check) NT_ACTION=\"${1:-apply}\" ;;\n"
	"\trollback)\n"
	"\t\t[ \"$#\" -le 2 ] || nt_die \"usage: $0 rollback [FILE]\"\n"
	"\t\tif [ \"$#\" -eq 2 ]; then\n"
	"\t\t\tnt_rollback \"$2\"\n"
	"\t\telse\n"
	"\t\t\tnt_f=\"$(nt_newest)\" || nt_die \"no rollback file of host $NT_HOST in $NT_STATE_DIR\"\n"
	"\t\t\tnt_rollback \"$NT_STATE_DIR/$nt_f\"\n"
	"\t\tfi\n"
	"\t\treturn ;;\n"
	"\t-h | --help | help)\n"
	"\t\tprintf 'usage: %s [apply | check | rollback [FILE]]\\n' \"$0\"\n"
	"\t\techo \"  apply     converge (default); previous values go first to a new file,\"\n"
	"\t\techo \"            \\$NETTUNE_ROLLBACK or $NT_STATE_DIR/rollback-$NT_HOST-DATE-PID-N.tsv\"\n"
	"\t\techo \"  check     report differences, change nothing (exit 2 if any)\"\n"
	"\t\techo \"  rollback  restore the values recorded in FILE (default: the newest\"\n"
	"\t\techo \"            rollback file of this host in $NT_STATE_DIR)\"\n"
	"\t\treturn ;;\n"
	"\t*) nt_die \"unknown action '$1'; try $0 --help\" ;;\n"
	"\tesac\n"
	"\tnt_preflight@IFACES@\n"
	"\tif [ \"$NT_ACTION\" = check ]; then\n"
	"\t\tNT_MODE=check\n"
	"\t\tnt_settings\n"
	"\t\t[ \"$NT_FAILED\" -eq 0 ] || exit 1\n"
	"\t\t[ \"$NT_CHANGED\" -eq 0 ] || exit 2\n"
	"\t\treturn\n"
	"\tfi\n"
	"\t# 1. record every current value before the first write\n"
	"\tnt_new_rollback\n"
	"\tNT_MODE=record\n"
	"\tif ! nt_settings; then\n"
	"\t\trm -f -- \"$NT_RECORD\" \"$NT_ROLLBACK\"\n"
	"\t\tnt_die \"could not read every current value; nothing was changed\"\n"
	"\tfi\n"
	"\tif [ \"$NT_CHANGED\" -eq 0 ]; then\n"
	"\t\trm -f -- \"$NT_RECORD\" \"$NT_ROLLBACK\"\n"
	"\telse\n"
	"\t\tmv -f -- \"$NT_RECORD\" \"$NT_ROLLBACK\"\n"
	"\t\tprintf 'nettune: previous values saved in %s\\n' \"$NT_ROLLBACK\"\n"
	"\t\tprintf 'nettune: undo with: sh %s rollback %s\\n' \"$0\" \"$NT_ROLLBACK\"\n"
	"\tfi\n"
	"\t# 2. converge\n"
	"\tNT_CHANGED=0\n"
	"\tNT_MODE=apply\n"
	"\tif ! nt_settings; then\n"
	"\t\techo \"nettune: stopped at the first failure; $NT_CHANGED setting(s) were changed\" >&2\n"
	"\t\t[ ! -s \"$NT_ROLLBACK\" ] || printf 'nettune: undo with: sh %s rollback %s\\n' \"$0\" \"$NT_ROLLBACK\" >&2\n"
	"\t\texit 1\n"
	"\tfi\n"
	"\tprintf 'nettune: %s changed\\n' \"$NT_CHANGED\"\n"
	"}\n"
	"\n"
	"nt_main \"$@\"\n";

static bool value_ok(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* The value as the getter prints it. */
static char *want_text(const struct nt_setting *s)
{
	struct nt_buf b = {0};

	if (row(s->kind)->sh_value == NT_SHV_HEXMASK) {
		/* hex bitmap, no leading zeros */
		int top = -1, i;

		for (i = NT_MAX_CPUS - 1; i >= 0; i--)
			if (nt_cpuset_has(s->val.cpus, (unsigned)i)) {
				top = i;
				break;
			}
		if (top < 0)
			return nt_xstrdup("0");
		for (i = top / 4; i >= 0; i--) {
			unsigned nib = 0, k;

			for (k = 0; k < 4; k++)
				if (nt_cpuset_has(s->val.cpus, (unsigned)(i * 4 + (int)k)))
					nib |= 1u << k;
			nt_buf_putc(&b, "0123456789abcdef"[nib]);
		}
		return nt_buf_take(&b);
	}
	if (row(s->kind)->sh_value == NT_SHV_FOLDED) {
		/* runs of white space fold to one space (nt_value_equal does too) */
		const char *p = s->val.s ? s->val.s : "";
		bool sp = false;

		while (*p == ' ' || *p == '\t')
			p++;
		for (; *p; p++) {
			if (*p == ' ' || *p == '\t') {
				sp = true;
				continue;
			}
			if (sp)
				nt_buf_putc(&b, ' ');
			sp = false;
			nt_buf_putc(&b, *p);
		}
		return b.p ? nt_buf_take(&b) : nt_xstrdup("");
	}
	nt_value_format(&s->val, &b, true);
	return b.p ? nt_buf_take(&b) : nt_xstrdup("");
}

static void emit_fn(struct nt_buf *o, const char *verb, const struct nt_linux_row *r,
		    const char *body)
{
	nt_buf_printf(o, "nt_%s_%s() {\n\t", verb, r->sh_fn);
	nt_linux_row_sh(r, body, o);
	nt_buf_puts(o, "\n}\n\n");
}

/* @KEY@ of the header are comment text (nt_sh_comment), never raw. */
static const char header[] =
	"#!/bin/sh\n"
	"# Generated by nettune @VERSION@ from @PROFILE@ for host @HOST@ (target linux).\n"
	"# Converges this host to the profile's desired state: every setting is read,\n"
	"# written only when it differs, and read back.  Run it twice: the second run\n"
	"# prints only \"ok\".  Previous values are saved before the first write.\n"
	"#\n"
	"#   sh @HOST@.sh [apply]            converge (as root)\n"
	"#   sh @HOST@.sh check              report differences only (exit 2 if any)\n"
	"#   sh @HOST@.sh rollback [FILE]    restore the values saved by a run (default:\n"
	"#                                   the newest of this host's rollback files)\n"
	"#\n"
	"# Environment: NETTUNE_STATE_DIR (default /var/lib/nettune), where each run\n"
	"# saves the previous values in a new file, or NETTUNE_ROLLBACK=FILE (a file\n"
	"# that must not exist yet).\n";

static char *comment_text(const char *s)
{
	struct nt_buf b = {0};

	nt_sh_comment(&b, s);
	return b.p ? nt_buf_take(&b) : nt_xstrdup("");
}

static void emit_header(struct nt_buf *o, const struct nt_emit_input *in)
{
	char *profile = comment_text(in->profile_path);
	char *host = comment_text(in->host);
	const char *kv[] = {"VERSION", NT_VERSION, "PROFILE", profile, "HOST", host, NULL};

	nt_emit_tmpl(o, header, kv);
	if (in->against) {
		nt_buf_puts(o, "# Ordered against the snapshot ");
		nt_sh_comment(o, in->against);
		nt_buf_puts(o, "; values are read at run time.\n");
	}
	nt_buf_puts(o, "\n");
	free(profile);
	free(host);
}

static bool have_iface(char **v, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

int nt_emit_sh(const struct nt_emit_input *in, struct nt_buf *o, struct nt_diags *d)
{
	size_t n, i, nifs = 0;
	const struct nt_setting **ord = nt_emit_order(in, &n);
	char **ifs = nt_xcalloc(n + 1, sizeof(*ifs));
	struct nt_buf steps = {0}, gets = {0}, puts = {0}, kinds = {0}, iflist = {0};
	struct nt_buf irqk = {0}, hostk = {0}, gcases = {0};
	struct nt_state groups = {0};	/* (interface, group) -> its first member */
	const char *gname;
	size_t k, nk;
	int bad = 0;

	for (i = 0; i < n; i++) {
		const struct nt_setting *s = ord[i];
		const struct nt_linux_row *r = row(s->kind);
		char *want;
		const char *why = NULL, *g;

		if (!r) {
			nt_error(d, s->src, "emit",
				 "%s %s cannot be expressed in a sh script: no sh row for kind '%s' "
				 "(a Windows setting in a Linux profile?)", s->object,
				 s->arg ? s->arg : "", nt_kinds[s->kind].name);
			bad = -1;
			continue;
		}
		if (!(nt_kinds[s->kind].flags & NT_KF_HOST_OBJ) && s->object[0] == '-')
			why = "an interface name that starts with '-' would be read as an ethtool option";
		else if (!value_ok(s->object) || (s->arg && !value_ok(s->arg)) ||
			 (s->arg && strchr(s->arg, '@')))
			why = "the name has a control character or '@'";
		else if (r->sh_refuse)
			why = r->sh_refuse(&s->val);
		if (!why && (r->sh_flags & NT_SH_ARG_IRQ)) {
			const struct nt_iface_facts *F = nt_facts_iface(in->facts, s->object);

			if (F && F->vmbus)
				why = "its queues are VMBus channels (hv_netvsc), placed through "
				      "channels/RELID/cpu, which the script does not write; use nettune apply";
		}
		if (why) {
			nt_error(d, s->src, "emit", "%s %s%s%s cannot be expressed in a sh script: %s",
				 s->object, nt_kinds[s->kind].name, s->arg ? " " : "",
				 s->arg ? s->arg : "", why);
			bad = -1;
			continue;
		}
		want = want_text(s);
		if (!value_ok(want)) {
			nt_error(d, s->src, "emit", "%s %s: the value has a control character",
				 s->object, nt_kinds[s->kind].name);
			free(want);
			bad = -1;
			continue;
		}
		if (!(nt_kinds[s->kind].flags & NT_KF_HOST_OBJ) && !have_iface(ifs, nifs, s->object)) {
			ifs[nifs++] = s->object;
			nt_buf_putc(&iflist, ' ');
			nt_sh_quote(&iflist, s->object);
		}
		g = nt_emit_sh_group(in, s);
		if (g) {
			/* one step per group and interface, expanded at run time */
			const struct nt_setting *first = nt_state_get(&groups, NT_K_FEATURE, s->object, g);

			if (first) {
				if (first->val.b != s->val.b) {
					nt_error(d, s->src, "emit", "%s feature %s cannot be expressed in a sh "
						 "script: the members of offload group %s disagree (%s wants "
						 "%s)", s->object, s->arg, g, first->note,
						 first->val.b ? "on" : "off");
					bad = -1;
				}
				free(want);
				continue;
			}
			nt_state_set(&groups, NT_K_FEATURE, s->object, g, nt_v_bool(s->val.b),
				     s->src)->note = nt_xstrdup(s->arg);
		}
		if (s->note) {
			nt_buf_puts(&steps, "\t# ");
			nt_sh_comment(&steps, s->note);
			nt_buf_putc(&steps, '\n');
		}
		if (g) {
			char *except = group_except(in, s->object, g);

			nt_buf_puts(&steps, "\tnt_group ");
			nt_sh_quote(&steps, s->object);
			nt_buf_putc(&steps, ' ');
			nt_sh_quote(&steps, g);
			nt_buf_putc(&steps, ' ');
			nt_sh_quote(&steps, want);
			nt_buf_putc(&steps, ' ');
			nt_sh_quote(&steps, except);
			nt_buf_puts(&steps, " || return 1\n");
			free(except);
			free(want);
			continue;
		}
		nt_buf_printf(&steps, "\tnt_step %s ", r->sh_fn);
		nt_sh_quote(&steps, s->object);
		nt_buf_putc(&steps, ' ');
		if ((r->sh_flags & NT_SH_ARG_IRQ) && s->arg) {
			/* "Q@IRQ" when the facts know the IRQ of queue Q */
			const struct nt_iface_facts *F = nt_facts_iface(in->facts, s->object);
			const struct nt_irq_fact *q = F ? nt_facts_irq(F, (uint32_t)atoi(s->arg)) : NULL;
			char *a = q ? nt_xasprintf("%s@%u", s->arg, q->irq) : nt_xstrdup(s->arg);

			nt_sh_quote(&steps, a);
			free(a);
		} else {
			nt_sh_quote(&steps, s->arg ? s->arg : "");
		}
		nt_buf_putc(&steps, ' ');
		nt_sh_quote(&steps, want);
		nt_buf_printf(&steps, " || return 1\n");
		if ((r->sh_flags & NT_SH_ARG_IRQ) && s->arg) {
			/* the queue's TX-completion vectors take the same CPUs */
			const struct nt_iface_facts *F = nt_facts_iface(in->facts, s->object);
			size_t ntx, t;
			const struct nt_irq_fact *tx = F ? nt_facts_tx_irqs(F, (uint32_t)atoi(s->arg), &ntx) : NULL;

			for (t = 0; tx && t < ntx; t++) {
				char *a = nt_xasprintf("%s@%u", s->arg, tx[t].irq);

				nt_buf_printf(&steps, "\tnt_step %s ", r->sh_fn);
				nt_sh_quote(&steps, s->object);
				nt_buf_putc(&steps, ' ');
				nt_sh_quote(&steps, a);
				nt_buf_putc(&steps, ' ');
				nt_sh_quote(&steps, want);
				nt_buf_printf(&steps, " || return 1\n");
				free(a);
			}
		}
		free(want);
	}
	for (k = 0, nk = 0; k < NT_K__COUNT; k++) {
		const struct nt_linux_row *r = row((enum nt_kind_id)k);

		if (!r)
			continue;
		nt_buf_printf(&gets, "\t%s) nt_get_%s \"$@\" ;;\n", r->sh_fn, r->sh_fn);
		nt_buf_printf(&puts, "\t%s) nt_put_%s \"$@\" ;;\n", r->sh_fn, r->sh_fn);
		nt_buf_printf(&kinds, "%s%s", nk++ ? " | " : "\t\t", r->sh_fn);
		if (r->sh_flags & NT_SH_ARG_IRQ)
			nt_buf_printf(&irqk, "%s%s", irqk.n ? " | " : "", r->sh_fn);
		if (nt_kinds[k].flags & NT_KF_HOST_OBJ)
			nt_buf_printf(&hostk, " | %s", r->sh_fn);
	}
	for (k = 0; (gname = nt_linux_offload(k)); k++) {
		nt_buf_printf(&gcases, "\t%s) case \"$2\" in ", gname);
		nt_linux_offload_patterns(k, &gcases);
		nt_buf_puts(&gcases, ") return 0 ;; esac ;;\n");
	}
	if (bad)
		goto out;
	emit_header(o, in);
	nt_buf_puts(o, "NT_HOST=");
	nt_sh_quote(o, in->host);
	nt_buf_puts(o, "\n");
	nt_buf_puts(o, prelude);
	nt_buf_puts(o, "# One row per kind of setting: how to read it, how to write it.\n\n");
	for (k = 0; k < NT_K__COUNT; k++) {
		const struct nt_linux_row *r = row((enum nt_kind_id)k);

		if (!r)
			continue;
		emit_fn(o, "get", r, r->sh_get);
		emit_fn(o, "put", r, r->sh_put);
	}
	{
		const char *kv[] = {"GETCASES", gets.p, "PUTCASES", puts.p, "KINDLIST", kinds.p,
				    "IRQKINDS", irqk.p, "HOSTKINDS", hostk.p, "GROUPCASES", gcases.p,
				    NULL};

		nt_emit_tmpl(o, engine, kv);
	}
	nt_buf_puts(o, "# The desired state, in apply order.\nnt_settings() {\n");
	if (steps.p)
		nt_buf_puts(o, steps.p);
	else
		nt_buf_puts(o, "\t:\n");
	nt_buf_puts(o, "}\n\n");
	{
		const char *kv[] = {"IFACES", iflist.p, NULL};

		nt_emit_tmpl(o, main_part, kv);
	}
out:
	nt_buf_free(&steps);
	nt_buf_free(&gets);
	nt_buf_free(&puts);
	nt_buf_free(&kinds);
	nt_buf_free(&iflist);
	nt_buf_free(&irqk);
	nt_buf_free(&hostk);
	nt_buf_free(&gcases);
	nt_state_free(&groups);
	free(ifs);
	free(ord);
	return bad;
}
