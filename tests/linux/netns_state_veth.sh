#!/bin/sh
# plan --netns X --state SNAPSHOT plans against the snapshot, not the
# namespace: unless the snapshot was taken in X, a warning says so (and
# that --netns only refuses host-wide settings there); the plan itself is
# the snapshot's.
. "$(dirname "$0")/lib.sh"
veth_pair nsta0 nstb0
H=$(uname -n)
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: $H}
target: linux
interfaces:
  - {name: nsta0, nic: veth, mtu: 4000}
YAML
nt observe --json > "$WORK/in-ns.json"
python3 - "$WORK/in-ns.json" "$WORK/host.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
del s["host"]["netns"]
json.dump(s, open(sys.argv[2], "w"))
PY
ip -n "$NS" link set nsta0 mtu 4000
want="$WORK/host.json: warning: the snapshot was taken in the host's own namespace, not in network namespace $NS: the plan is of its values, and --netns with --state only refuses host-wide settings (take the snapshot with 'nettune --netns $NS observe --json', or plan without --state)"
rc=0; nt plan "$WORK/p.yaml" --state "$WORK/host.json" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 2 "plan --netns --state of another namespace's snapshot: exit status"
grep -qxF "$want" "$WORK/err" || { cat "$WORK/err"; fail "no warning that the namespace is not looked at"; }
grep -q "mtu  *1500 -> 4000" "$WORK/out" || { cat "$WORK/out"; fail "not the snapshot's plan"; }
# a snapshot of that namespace: no warning
rc=0; nt plan "$WORK/p.yaml" --state "$WORK/in-ns.json" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 2 "plan --netns --state of its own snapshot: exit status"
[ ! -s "$WORK/err" ] || { cat "$WORK/err"; fail "a warning for the namespace's own snapshot"; }
echo "ok: plan --netns X --state Y warns unless Y was taken in X"
