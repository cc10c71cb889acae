#!/bin/sh
# An apply --confirm-timeout made while the agent runs: the agent does not
# fight the open journal (corrections wait, and it says why), and when
# nobody confirms it reverts the apply at the deadline itself, even with
# the apply's watcher gone (no systemd timer here either); then it goes
# on keeping its own profile.
. "$(dirname "$0")/../linux/lib.sh"
. "$(dirname "$0")/lib.sh"
veth_pair cfa0 cfb0
prof() {
	cat > "$1" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: agent-confirm, host: any}
target: linux
interfaces:
  - {name: cfa0, mtu: $2}
YAML
}
prof "$WORK/p.yaml" 1400
prof "$WORK/q.yaml" 1280
start_agent --interval 60s "$WORK/p.yaml"
expect_eq "$(mtu cfa0)" 1400 "mtu at start"
nt apply --yes --confirm-timeout 3 "$WORK/q.yaml" > /dev/null
expect_eq "$(jr state)" pending-confirm "the apply awaits confirmation"
expect_eq "$(mtu cfa0)" 1280 "mtu of the apply awaiting confirmation"
watcher=$(jr pid)
kill -9 "$watcher"
until_ok 5 "the agent waits for the open journal" log_has "corrections wait until it is confirmed"
expect_eq "$(mtu cfa0)" 1280 "the agent overrode an apply awaiting confirmation"
until_ok 15 "the agent reverted the unconfirmed apply" log_has "was not confirmed in time: reverting it"
[ "$(jr state 1)" = reverted-unconfirmed ] || [ "$(jr state)" = reverted-unconfirmed ] || fail "journal not reverted-unconfirmed: $(jr state) / $(jr state 1)"
until_ok 10 "the agent's profile kept after the revert" mtu_is cfa0 1400
# what the revert restored is not corrected again: no journal of the agent
# records a change that changed nothing (a plan made before the revert)
same=$(python3 - "$NETTUNE_STATE_DIR/journal" <<'PY'
import json, os, sys
d = sys.argv[1]
for n in sorted(os.listdir(d)):
    if n.endswith(".json") and not n.startswith("."):
        j = json.load(open(os.path.join(d, n)))
        for e in j.get("entries", []) if j.get("command") == "agent" else []:
            if e.get("before") == e.get("after"):
                print(j["id"], e)
PY
)
[ -z "$same" ] || fail "an agent journal records a change from a value to itself: $same"
# a confirm window held by a live watcher: the agent waits without
# stalling its loop on the lock the watcher holds (it answers at once)
nt apply --yes --confirm-timeout 8 "$WORK/q.yaml" > /dev/null
expect_eq "$(jr state)" pending-confirm "the second apply awaits confirmation"
i=0
while [ $i -lt 6 ]; do
	timeout 1.5 "$NETTUNE" --netns "$NS" agent status > /dev/null ||
		fail "the agent did not answer within 1.5 s during the confirm window"
	i=$((i + 1))
	sleep 0.25
done
until_ok 5 "the agent waits for the journal of the watcher" sh -c "'$NETTUNE' --netns $NS agent status | grep -q '^waiting:'"
! log_has "did not release it in time" || fail "the agent waited for the watcher's lock"
nt confirm > /dev/null
until_ok 10 "corrected once the apply is confirmed" mtu_is cfa0 1400
stop_agent
echo "ok: the agent waits for an open journal and reverts it at its deadline"
