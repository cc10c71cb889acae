#!/bin/sh
# Interfaces that come and go: deleted and created again, renamed into the
# profile's name, taken down and up, and 32 created at once, all converged
# by the running agent without a process per interface.
. "$(dirname "$0")/../linux/lib.sh"
. "$(dirname "$0")/lib.sh"
veth_pair lka0 lkb0
{
	cat <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: agent-links, host: any}
target: linux
interfaces:
  - {name: lka0, mtu: 1400, offloads: {gro: on}}
  - {name: lkn0, mtu: 1360, offloads: {tso: off}}
  - {name: lkn2, mtu: 1350}
  - {name: lkn3, mtu: 1340}
  - {name: lkn4, mtu: 1330}
YAML
	i=0
	while [ $i -lt 32 ]; do
		echo "  - {name: bst$i, mtu: $((1280 + i)), offloads: {gro: on}}"
		i=$((i + 1))
	done
} > "$WORK/p.yaml"
# a link that exists before the agent starts, renamed into the profile
# later: its old name is the cause (the agent learns the names at start)
ip -n "$NS" link add pre0 type veth peer name prp0
start_agent --interval 60s "$WORK/p.yaml"
expect_eq "$(mtu lka0)" 1400 "mtu at start"
ip -n "$NS" link set pre0 name lkn3
until_ok 10 "pre-existing interface renamed into the profile converged" mtu_is lkn3 1340
expect_eq "$(jr cause)" "link renamed from pre0 to lkn3" "the cause of a rename of a link older than the agent"
# a link added: said so (register_netdevice's RTM_NEWLINK, not "set down")
ip -n "$NS" link add lkn4 type veth peer name lkp4
until_ok 10 "added interface converged" mtu_is lkn4 1330
expect_eq "$(jr cause)" "link lkn4 added" "the cause of a new link"
# deleted and created again: a new ifindex, default settings
ip -n "$NS" link del lka0
veth_pair lka0 lkb0
until_ok 10 "re-created lka0 converged (mtu)" mtu_is lka0 1400
until_ok 10 "re-created lka0 converged (gro)" feature_is lka0 generic-receive-offload on
# renamed into a name of the profile
ip -n "$NS" link add tmpx0 type veth peer name tmpy0
ip -n "$NS" link set tmpx0 name lkn0
until_ok 10 "renamed interface converged" mtu_is lkn0 1360
until_ok 10 "renamed interface tso" feature_is lkn0 tcp-segmentation-offload off
log_has "link renamed from tmpx0 to lkn0" || fail "the rename was not named as the cause"
# a kernel name may hold any byte but '/', ':' and spaces: a control
# character reaches the log and the journal as \xHH, never raw
ctl=$(printf 'tq\001z')
ip -n "$NS" link add "$ctl" type veth peer name tqz1
ip -n "$NS" link set "$ctl" name lkn2
until_ok 10 "interface renamed from a control-character name converged" mtu_is lkn2 1350
grep -qF 'link renamed from tq\x01z to lkn2' "$WORK/agent.log" || fail "the odd name is not shown escaped"
! grep -q "$(printf '\001')" "$WORK/agent.log" || fail "a raw control character reached the log"
expect_eq "$(jr cause)" 'link renamed from tq\x01z to lkn2' "the journal's cause"
# down and up: settings changed while down are corrected; on up again
ip -n "$NS" link set lka0 down
ip -n "$NS" link set lka0 mtu 1500
until_ok 10 "mtu corrected while down" mtu_is lka0 1400
nsx ethtool -K lka0 gro off
ip -n "$NS" link set lka0 up
until_ok 10 "gro corrected after up" feature_is lka0 generic-receive-offload on
# 32 interfaces at once
i=0; pids=""
while [ $i -lt 32 ]; do
	ip -n "$NS" link add "bst$i" type veth peer name "bsp$i" &
	pids="$pids $!"
	i=$((i + 1))
done
# shellcheck disable=SC2086
wait $pids
check_all() {
	i=0
	while [ $i -lt 32 ]; do
		[ "$(mtu "bst$i")" = $((1280 + i)) ] || return 1
		[ "$(feature "bst$i" generic-receive-offload)" = on ] || return 1
		i=$((i + 1))
	done
}
until_ok 30 "32 interfaces created at once all converged" check_all
[ "$(status_field converged)" = True ] || fail "status not converged after the burst"
# no process per interface: the agent did it alone
[ "$(pgrep -c -f "nettune --netns $NS apply")" = 0 ] || fail "apply processes were started"
stop_agent
echo "ok: re-created, renamed, down/up and 32 new interfaces converged"
