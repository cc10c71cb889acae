#!/bin/sh
# Respect for people: a loop that keeps undoing a setting makes the agent
# back off and report the conflict (log, status, metrics); hold stops all
# corrections (drift still reported) until resume or until it expires;
# --mode report never writes.
. "$(dirname "$0")/../linux/lib.sh"
. "$(dirname "$0")/lib.sh"
veth_pair dma0 dmb0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: agent-damp, host: any}
target: linux
interfaces:
  - {name: dma0, mtu: 1400}
  - {name: dmb0, mtu: 1300}
YAML
start_agent --metrics "$WORK/nettune.prom" --interval 60s --damp 3/30s --backoff 5s "$WORK/p.yaml"
expect_eq "$(mtu dma0)" 1400 "mtu at start"
# another manager fights: each undo waits for the agent's correction
k=0
while [ $k -lt 3 ]; do
	ip -n "$NS" link set dma0 mtu 1500
	until_ok 10 "correction $k of the fight" mtu_is dma0 1400
	k=$((k + 1))
done
# the 4th undo within 30 s: not corrected any more
ip -n "$NS" link set dma0 mtu 1500
until_ok 10 "the conflict is logged" log_has "conflict: dma0 mtu undone 4 times"
expect_eq "$(mtu dma0)" 1500 "mtu corrected during the back-off"
nt agent status > "$WORK/st"
grep -q "conflicts: *1" "$WORK/st" || fail "status does not count the conflict: $(cat "$WORK/st")"
grep -q "dma0 mtu: undone more than 3 times" "$WORK/st" || fail "status does not name the setting"
expect_eq "$(status_field converged)" False "converged while a conflict leaves a setting drifted"
until_ok 5 "the conflict in the metrics" grep -q '^nettune_agent_conflict{interface="dma0",setting="mtu"} 1' "$WORK/nettune.prom"
until_ok 5 "converged 0 in the metrics" grep -q '^nettune_agent_converged 0' "$WORK/nettune.prom"
# other settings are still corrected during the back-off
ip -n "$NS" link set dmb0 mtu 1500
until_ok 10 "another setting corrected during the back-off" mtu_is dmb0 1300
# the back-off ends: corrected again
until_ok 15 "corrected after the back-off" mtu_is dma0 1400
until_ok 5 "the conflict ends in the metrics" grep -q '^nettune_agent_conflict{interface="dma0",setting="mtu"} 0' "$WORK/nettune.prom"
# hold: drift is reported, not corrected, until resume
nt agent hold > "$WORK/h" || fail "hold"
expect_eq "$(status_field held)" True "held"
ip -n "$NS" link set dmb0 mtu 1500
until_ok 10 "drift reported while held" log_has "drift dmb0 mtu: 1500, wanted 1300 .*held"
expect_eq "$(mtu dmb0)" 1500 "corrected while held"
until_ok 5 "held 1 in the metrics" grep -q '^nettune_agent_held 1' "$WORK/nettune.prom"
nt agent resume > /dev/null
until_ok 10 "corrected after resume" mtu_is dmb0 1300
expect_eq "$(status_field held)" False "held after resume"
# hold --for: ends by itself
nt agent hold --for 2s > /dev/null
ip -n "$NS" link set dmb0 mtu 1500
until_ok 10 "drift reported during the timed hold" sh -c "grep -c 'drift dmb0 mtu' '$WORK/agent.log' | grep -q 2"
expect_eq "$(mtu dmb0)" 1500 "corrected during the timed hold"
until_ok 10 "corrected when the hold expired" mtu_is dmb0 1300
log_has "hold expired" || fail "the expiry was not logged"
# a bad hold duration is a usage error, and nothing changes
rc=0; nt agent hold --for 0s 2>/dev/null || rc=$?
expect_eq "$rc" 64 "hold --for 0s"
stop_agent
# report mode: drift is reported and counted, never corrected
start_agent --mode report --metrics "$WORK/r.prom" --interval 60s "$WORK/p.yaml"
n0=$(jr count)
ip -n "$NS" link set dma0 mtu 1450
until_ok 10 "drift reported in report mode" log_has "drift dma0 mtu: 1450, wanted 1400"
expect_eq "$(mtu dma0)" 1450 "report mode corrected"
expect_eq "$(jr count)" "$n0" "report mode wrote a journal"
until_ok 5 "drift counted in report mode" grep -q 'nettune_agent_drift_events_total{.*interface="dma0".*setting="mtu"' "$WORK/r.prom"
expect_eq "$(status_field mode)" report "mode in status"
stop_agent
echo "ok: damping, hold, resume, hold expiry and report mode"
