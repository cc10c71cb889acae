#!/bin/sh
# Notifications the kernel drops (a -Dfault_injection=true build:
# NETTUNE_AGENT_RCVBUF shrinks the agent's receive buffers): a burst of
# 32 new interfaces overflows them (ENOBUFS); the agent says so and checks
# every interface, and all 32 end converged anyway.
. "$(dirname "$0")/../linux/lib.sh"
. "$(dirname "$0")/lib.sh"
{
	cat <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: agent-overflow, host: any}
target: linux
interfaces:
YAML
	i=0
	while [ $i -lt 32 ]; do
		echo "  - {name: ovf$i, mtu: $((1300 + i))}"
		i=$((i + 1))
	done
} > "$WORK/p.yaml"
export NETTUNE_AGENT_RCVBUF=1
start_agent --interval 60s "$WORK/p.yaml"
i=0
while [ $i -lt 32 ]; do
	echo "link add ovf$i type veth peer name ovp$i"
	i=$((i + 1))
done > "$WORK/batch"
ip -n "$NS" -batch "$WORK/batch"
check_all() {
	i=0
	while [ $i -lt 32 ]; do
		[ "$(mtu "ovf$i")" = $((1300 + i)) ] || return 1
		i=$((i + 1))
	done
}
until_ok 30 "32 interfaces converged after lost notifications" check_all
log_has "notifications were lost" || fail "the overflow was not seen (the test tests nothing)"
stop_agent
echo "ok: lost notifications lead to a full check"
