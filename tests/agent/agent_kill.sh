#!/bin/sh
# kill -9 in the middle of a correction (a -Dfault_injection=true build:
# NETTUNE_SIGNAL_STEP=1 NETTUNE_SIGNAL=9 kills the agent right after the
# first write of its first transaction): the journal is left 'applying'
# with the host half-applied; the next start rolls it back, then
# converges, and the host ends exactly as the profile says.
. "$(dirname "$0")/../linux/lib.sh"
. "$(dirname "$0")/lib.sh"
veth_pair kla0 klb0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: agent-kill, host: any}
target: linux
interfaces:
  - {name: kla0, mtu: 1400, offloads: {gro: on}}
  - {name: klb0, mtu: 1300}
YAML
rc=0
NETTUNE_SIGNAL_STEP=1 NETTUNE_SIGNAL=9 "$NETTUNE" --netns "$NS" agent "$WORK/p.yaml" \
	> /dev/null 2> "$WORK/agent.log" || rc=$?
expect_eq "$rc" 137 "exit of the agent killed mid-correction"
expect_eq "$(jr state)" applying "journal left by the killed agent"
expect_eq "$(jr open)" true "its open marker"
killed=$(jr id)
# half-applied: the first write was made, the rest not
expect_eq "$(mtu klb0)" 1500 "a later step was made before the kill"
start_agent --interval 60s "$WORK/p.yaml"
log_has "journal $killed of an agent that was stopped mid-correction" || fail "the restart did not say it rolls back"
python3 "$SRCROOT/tests/linux/journal.py" "$NETTUNE_STATE_DIR" count > /dev/null
st=$(python3 - "$NETTUNE_STATE_DIR" "$killed" <<'PY'
import json, os, sys
print(json.load(open(os.path.join(sys.argv[1], "journal", sys.argv[2] + ".json")))["state"])
PY
)
expect_eq "$st" rolled-back "state of the killed agent's journal after the restart"
[ ! -e "$NETTUNE_STATE_DIR/journal/$killed.open" ] || fail "its open marker stayed"
until_ok 10 "converged after the restart (kla0)" mtu_is kla0 1400
until_ok 10 "converged after the restart (klb0)" mtu_is klb0 1300
expect_eq "$(feature kla0 generic-receive-offload)" on "gro after the restart"
expect_eq "$(status_field converged)" True "converged"
# another apply killed mid-way while the agent runs: it took the lock in
# between, so the agent looks at the journals again and its corrections
# wait for that open journal, which they never override
cat > "$WORK/q.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: agent-kill-other, host: any}
target: linux
interfaces:
  - {name: kla0, mtu: 1600}
  - {name: klb0, mtu: 1600}
YAML
rc=0
NETTUNE_SIGNAL_STEP=1 NETTUNE_SIGNAL=9 nt apply --yes "$WORK/q.yaml" > /dev/null 2>&1 || rc=$?
expect_eq "$rc" 137 "exit of the apply killed mid-way"
expect_eq "$(jr state)" applying "journal left by the killed apply"
other=$(jr id)
until_ok 10 "the agent says its corrections wait for the killed apply's journal" \
	log_has "journal $other is applying (apply): corrections wait"
expect_eq "$(for d in kla0 klb0; do mtu "$d"; done | grep -c 1600)" 1 \
	"the killed apply's one write, not corrected over its open journal"
status_field waiting | grep -q "journal $other is applying" || fail "status does not say why corrections wait"
nt rollback "$other" > /dev/null || fail "rollback of the killed apply"
# nothing drifted now (the rollback restored the agent's values): status
# still stops waiting within the retry
until_ok 10 "the agent says corrections go on" log_has "no journal is open any more"
expect_eq "$(status_field waiting)" None "status after the journal closed"
ip -n "$NS" link set kla0 mtu 1500
until_ok 10 "corrected again once the journal is closed" mtu_is kla0 1400
stop_agent
echo "ok: an agent killed mid-correction is rolled back and converged by the next start; a killed apply's journal holds the agent"
