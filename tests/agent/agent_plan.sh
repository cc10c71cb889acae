#!/bin/sh
# A profile the host cannot take whole: one interface asks for more
# channels than its device has.  The agent plans and corrects every other
# interface on its own, and says the truth: not converged (status, its
# JSON, the converged metric, systemd's STATUS), naming the interface and
# the located error.  Once the device can take it (re-created with more
# queues), everything converges, the host-wide settings too.
. "$(dirname "$0")/../linux/lib.sh"
. "$(dirname "$0")/lib.sh"
# pla0: one queue, so channels rx 2 cannot be planned for it
ip -n "$NS" link add pla0 numrxqueues 1 numtxqueues 1 type veth peer name plb0
ip -n "$NS" link set pla0 up
ip -n "$NS" link set plb0 up
ip -n "$NS" link add ple0 numrxqueues 1 numtxqueues 1 type veth peer name plf0
veth_pair plc0 pld0
nsx sysctl -qw net.ipv4.tcp_ecn=0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: agent-plan, host: any}
target: linux
sysctl:
  net.ipv4.tcp_ecn: 1
interfaces:
  - {name: pla0, mtu: 1400, channels: {rx: 2, tx: 2}}
  - {name: plc0, mtu: 1300}
  - {name: ple0, channels: {rx: 2, tx: 2}}
YAML
ecn() { nsx sysctl -n net.ipv4.tcp_ecn; }
start_agent --metrics "$WORK/m/nettune.prom" --interval 2s "$WORK/p.yaml"
# the other interface is converged although the profile could not be planned whole
until_ok 10 "plc0 converged beside pla0's error" mtu_is plc0 1300
log_has "the profile could not be planned" || fail "the failed plan was not logged"
log_has "p.yaml:.*exceeds" || fail "the located error was not logged"
expect_eq "$(status_field converged)" False "status --json converged"
unplanned() { nt agent status --json | python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin)["not_planned"])))'; }
expect_eq "$(unplanned)" "pla0 ple0" "status --json not_planned"
# the same errors are logged once, not at every check (every 2 s here)
n1=$(grep -c "could not be planned" "$WORK/agent.log")
c1=$(status_field checks)
until_ok 10 "two more checks" sh -c "[ \$('$NETTUNE' --netns $NS agent status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"checks\"])') -ge $((c1 + 2)) ]"
expect_eq "$(grep -c "could not be planned" "$WORK/agent.log")" "$n1" "plan errors logged again at each check"
# an interface the reloaded profile no longer names is no longer 'not planned'
sed -i '/name: ple0/d' "$WORK/p.yaml"
kill -HUP "$AGENT_PID"
until_ok 10 "ple0 gone from not_planned after the reload" sh -c "[ \"\$('$NETTUNE' --netns $NS agent status --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"not_planned\"])')\" = \"['pla0']\" ]"
until_ok 10 "the reloaded profile's errors are logged" log_has "could not be planned (profile reloaded)"
expect_eq "$(status_field host_settings_planned)" False "status --json host_settings_planned"
status_field plan_error | grep -q 'p.yaml:[0-9]*:[0-9]*: .*exceeds' || fail "plan_error: $(status_field plan_error)"
nt agent status > "$WORK/status.txt"
grep -q '^state: *not planned' "$WORK/status.txt" || fail "status text: $(cat "$WORK/status.txt")"
grep -q '^not planned: *pla0; the profile' "$WORK/status.txt" || fail "status text: $(cat "$WORK/status.txt")"
until_ok 5 "the metrics say not converged" grep -q '^nettune_agent_converged 0' "$WORK/m/nettune.prom"
# nothing of the failing interface or the host-wide part was changed
expect_eq "$(mtu pla0)" 1500 "pla0 (not planned) left alone"
expect_eq "$(ecn)" 0 "the host-wide sysctl waits for a plan of the whole profile"
# a drift of the plannable interface is still corrected, by its event
ip -n "$NS" link set plc0 mtu 1500
until_ok 10 "plc0 drift corrected" mtu_is plc0 1300
# the device fixed: pla0 again, with four queues
ip -n "$NS" link del pla0
veth_pair pla0 plb0
until_ok 10 "pla0 converged once it can be planned" mtu_is pla0 1400
until_ok 10 "pla0 channels" chan_is pla0 RX 2
until_ok 10 "the host-wide sysctl applied by the next full check" sh -c "[ \"\$(ip netns exec $NS sysctl -n net.ipv4.tcp_ecn)\" = 1 ]"
until_ok 10 "status converged" sh -c "'$NETTUNE' --netns $NS agent status --json | grep -q '\"converged\": true'"
expect_eq "$(status_field not_planned)" '[]' "status --json not_planned after the fix"
expect_eq "$(status_field plan_error)" None "status --json plan_error after the fix"
until_ok 5 "the metrics say converged" grep -q '^nettune_agent_converged 1' "$WORK/m/nettune.prom"
promtool check metrics < "$WORK/m/nettune.prom" > /dev/null || fail "promtool refused the metrics"
stop_agent
echo "ok: one interface's plan error leaves the others converged and the agent not converged"
