#!/bin/sh
# systemd-analyze verify on the built units (their nettune path pointed at
# the build's binary, which must exist for verify), instances of the
# template included; the udev rule starts that template on add/move/bind.
# nettune-agent.service: the notify/watchdog/reload contract and its
# hardening, directive by directive.
set -eu
: "${NETTUNE:?}" "${SRCROOT:?}" "${UNITDIR:?}"
command -v systemd-analyze >/dev/null || { echo "SKIP: systemd-analyze missing"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT INT TERM
for u in nettune.service nettune@.service nettune-drift.service nettune-agent.service; do
	grep -q "^ExecStart=/.*/nettune " "$UNITDIR/$u" || fail "$u: ExecStart is not an absolute nettune path"
	sed "s|^ExecStart=/[^ ]*/nettune |ExecStart=$NETTUNE |" "$UNITDIR/$u" > "$W/$u"
done
cp "$SRCROOT/dist/systemd/nettune-drift.timer" "$W/"
(cd "$W" && systemd-analyze verify --man=no ./nettune.service ./nettune@enp1s0f0.service \
	./nettune@wg-0.service ./nettune-drift.service ./nettune-drift.timer ./nettune-agent.service) > "$W/out" 2>&1 ||
	{ cat "$W/out" >&2; fail "systemd-analyze verify"; }
# verify is silent on good units; anything it says is a finding
[ ! -s "$W/out" ] || { cat "$W/out" >&2; fail "systemd-analyze verify printed warnings"; }
# and it does catch a broken unit (the check is not vacuous)
sed 's/^ExecStart=.*/ExecStart=relative\/nettune apply/' "$W/nettune.service" > "$W/broken.service"
(cd "$W" && systemd-analyze verify --man=no ./broken.service) >/dev/null 2>&1 &&
	fail "systemd-analyze verify accepted a relative ExecStart"

grep -q '^ExecStart=.* apply --yes --skip-missing --wait 120 /etc/nettune/host.yaml$' "$W/nettune.service" ||
	fail "nettune.service does not apply /etc/nettune/host.yaml with --yes --skip-missing"
grep -q '^ExecStart=.* apply --yes --only %i --wait 120 /etc/nettune/host.yaml$' "$W/nettune@.service" ||
	fail "nettune@.service does not apply --yes --only %i"
grep -q '^Before=network-pre.target' "$W/nettune.service" || fail "nettune.service not before network-pre"
grep -q '^Wants=network-pre.target' "$W/nettune.service" || fail "nettune.service does not pull in network-pre"
grep -q '^After=.*nettune.service' "$W/nettune@.service" || fail "nettune@ not ordered after nettune.service"
grep -qx "ExecCondition=/bin/sh -c '! systemctl -q is-active nettune-agent.service'" "$W/nettune@.service" ||
	fail "nettune@.service does not stand aside while nettune-agent.service is active"

# the agent unit: one directive's values, every line of it joined
a="$W/nettune-agent.service"
val() { sed -n "s/^$1=//p" "$a" | tr '\n' ' ' | sed 's/ *$//'; }
has() { [ "$(val "$1")" = "$2" ] || fail "nettune-agent.service: $1 is '$(val "$1")', want '$2'"; }
grep -q '^ExecStart=/[^ ]*/nettune agent --metrics /var/lib/prometheus/node-exporter/nettune.prom /etc/nettune/host.yaml$' "$a" ||
	fail "nettune-agent.service does not run the agent on /etc/nettune/host.yaml"
has Type notify
has NotifyAccess main
has WatchdogSec 30s
# shellcheck disable=SC2016 # the literal $MAINPID systemd expands
has ExecReload '/bin/kill -HUP $MAINPID'
has Restart on-failure
has StateDirectory nettune
has StateDirectoryMode 0700
has Environment NETTUNE_STATE_DIR=/var/lib/nettune
has ConditionPathExists /etc/nettune/host.yaml
has DefaultDependencies no
has WantedBy multi-user.target
has NoNewPrivileges yes
has ProtectSystem strict
has ProtectHome yes
has PrivateTmp yes
has RestrictAddressFamilies 'AF_UNIX AF_NETLINK AF_INET'
for d in LockPersonality MemoryDenyWriteExecute ProtectClock ProtectHostname RestrictRealtime \
	RestrictSUIDSGID ProtectControlGroups ProtectKernelModules; do
	has "$d" yes
done
has SystemCallArchitectures native
caps=$(val CapabilityBoundingSet | tr ' ' '\n' | sort | tr '\n' ' ')
[ "$caps" = "CAP_NET_ADMIN CAP_SYS_NICE " ] ||
	fail "nettune-agent.service: CapabilityBoundingSet is '$caps', want exactly CAP_NET_ADMIN CAP_SYS_NICE"
rw=" $(val ReadWritePaths) "
for p in /var/lib/nettune -/var/lib/prometheus/node-exporter -/etc/systemd/system/irqbalance.service.d; do
	case $rw in *" $p "*) ;; *) fail "nettune-agent.service: ReadWritePaths lacks $p" ;; esac
done
# it writes /proc/sys and /sys: ProtectKernelTunables= would make them read-only
! grep -q '^ProtectKernelTunables=' "$a" || fail "nettune-agent.service sets ProtectKernelTunables"
case " $(val Before) " in *" network-pre.target "*) ;; *) fail "nettune-agent.service not before network-pre" ;; esac

rule="$SRCROOT/dist/udev/80-nettune.rules"
n=$(grep -v '^#' "$rule" | grep -c .)
[ "$n" -eq 1 ] || fail "80-nettune.rules: expected one rule line, found $n"
line=$(grep -v '^#' "$rule" | grep .)
for want in 'ACTION=="add|move|bind"' 'SUBSYSTEM=="net"' 'KERNEL!="lo"' 'TAG+="systemd"' \
	'ENV{SYSTEMD_WANTS}+="nettune@%k.service"'; do
	case $line in *"$want"*) ;; *) fail "80-nettune.rules lacks $want" ;; esac
done
echo "ok: units verify, udev rule starts nettune@%k.service, agent unit as specified"
