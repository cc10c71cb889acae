#!/bin/sh
# A plan manifest names the network namespace it was planned in (--netns),
# and apply PLAN.json refuses it in any other namespace, before it says
# "already converged" or "stale": values read in one namespace say nothing
# about another.  Snapshots taken with --netns carry the name to plans made
# against them.  Expired and tampered plans are refused before a converged
# host is reported.
. "$(dirname "$0")/lib.sh"
NS2="${NS}b"
trap 'ip netns del "$NS2" 2>/dev/null || true; cleanup' EXIT INT TERM
ip netns add "$NS2"
veth_pair pna0 pnb0
ip -n "$NS2" link add pna0 numrxqueues 4 numtxqueues 4 type veth peer name pnb0 numrxqueues 4 numtxqueues 4
ip -n "$NS2" link set pna0 up
ip -n "$NS2" link set pnb0 up
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: plan-netns, host: any}
target: linux
interfaces:
  - {name: pna0, nic: veth, mtu: 4000, offloads: {gro: on}}
sysctl:
  net.core.somaxconn: "2345"
YAML
rc=0; nt plan "$WORK/p.yaml" --out "$WORK/plan.json" > /dev/null || rc=$?
expect_eq "$rc" 2 "plan --out in $NS"
python3 - "$WORK/plan.json" "$NS" <<'PY' || fail "manifest host.netns"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["host"].get("netns") == sys.argv[2], m["host"]
PY
# the other namespace holds every value the plan sets
rc=0; "$NETTUNE" --netns "$NS2" apply --yes "$WORK/p.yaml" > /dev/null 2>&1 || rc=$?
expect_eq "$rc" 0 "profile applied in $NS2"
ip netns exec "$NS2" ethtool -K pna0 gro on
before=$(full_state pna0; nsx cat /proc/sys/net/core/somaxconn)
want="nettune apply: error: plan for another network namespace: $WORK/plan.json was made in namespace $NS (--netns), this apply is in namespace $NS2 (--netns); nothing was changed"
rc=0; "$NETTUNE" --netns "$NS2" apply --yes "$WORK/plan.json" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "apply PLAN.json in another namespace: exit status"
grep -qxF "$want" "$WORK/err" || { cat "$WORK/out" "$WORK/err"; fail "other namespace: not refused"; }
grep -q "Already converged" "$WORK/out" "$WORK/err" && fail "converged reported for another namespace"
want="nettune apply: error: plan for another network namespace: $WORK/plan.json was made in namespace $NS (--netns), this apply is for the host's own namespace (no --netns); nothing was changed"
rc=0; "$NETTUNE" apply --yes "$WORK/plan.json" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "apply PLAN.json without --netns: exit status"
grep -qxF "$want" "$WORK/err" || { cat "$WORK/out" "$WORK/err"; fail "own namespace: not refused"; }
expect_eq "$(full_state pna0; nsx cat /proc/sys/net/core/somaxconn)" "$before" "refusals changed $NS"
# in its own namespace it applies, and a re-run is already converged
rc=0; nt apply --yes "$WORK/plan.json" > "$WORK/out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out"; fail "apply PLAN.json in $NS exit $rc"; }
expect_eq "$(mtu pna0)" 4000 "mtu applied"
expect_eq "$(nsx cat /proc/sys/net/core/somaxconn)" 2345 "somaxconn applied"
rc=0; nt apply --yes "$WORK/plan.json" > "$WORK/out" 2>&1 || rc=$?
expect_eq "$rc" 0 "re-apply in $NS"
grep -q "^Already converged: " "$WORK/out" || { cat "$WORK/out"; fail "re-apply not converged"; }
# show names the namespace (text and --json)
"$NETTUNE" show "$WORK/plan.json" | grep -qx "  netns      $NS" || fail "show: no netns line"
"$NETTUNE" show --json "$WORK/plan.json" | python3 -c "import json,sys; assert json.load(sys.stdin)['netns'] == sys.argv[1]" "$NS" ||
	fail "show --json netns"
# a snapshot taken with --netns carries the namespace to its plans
nt observe --json > "$WORK/snap.json"
ip -n "$NS" link set pna0 mtu 1500
nt observe --json > "$WORK/snap2.json"
rc=0; "$NETTUNE" plan "$WORK/p.yaml" --state "$WORK/snap2.json" --out "$WORK/splan.json" > /dev/null 2>&1 || rc=$?
expect_eq "$rc" 2 "plan --state of the namespace snapshot"
rc=0; "$NETTUNE" --netns "$NS2" apply --yes "$WORK/splan.json" > /dev/null 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "snapshot plan in another namespace: exit status"
grep -q "plan for another network namespace: $WORK/splan.json was made in namespace $NS (--netns)" "$WORK/err" ||
	{ cat "$WORK/err"; fail "snapshot plan: not refused"; }
rc=0; nt apply --yes "$WORK/splan.json" > /dev/null 2>&1 || rc=$?
expect_eq "$rc" 0 "snapshot plan in its namespace"
expect_eq "$(mtu pna0)" 4000 "snapshot plan applied"
# an expired plan of a converged namespace is refused as expired
rc=0; nt plan "$WORK/p.yaml" --state "$WORK/snap2.json" --out "$WORK/old.json" --created @1000000000 > /dev/null 2>&1 || rc=$?
expect_eq "$rc" 2 "old plan written"
rc=0; nt apply --yes "$WORK/old.json" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "expired plan: exit status"
grep -q "error: expired plan" "$WORK/err" || { cat "$WORK/out" "$WORK/err"; fail "expired plan not refused"; }
grep -q "Already converged" "$WORK/out" && fail "expired plan said converged"
# a signed plan changed after signing is refused before converged is said
"$NETTUNE" keygen --out "$WORK/k" > /dev/null 2>&1 || fail "keygen"
"$NETTUNE" sign --key "$WORK/k" "$WORK/splan.json" > /dev/null 2>&1 || fail "sign"
sed -i 's/"name": "plan-netns"/"name": "plan-netnz"/' "$WORK/splan.json"
rc=0; mkdir -p "$WORK/trust"; NETTUNE_TRUST_DIR="$WORK/trust" nt apply --yes --trust "$WORK/k.pub" "$WORK/splan.json" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "tampered plan: exit status"
grep -q "bad signature" "$WORK/err" || { cat "$WORK/out" "$WORK/err"; fail "tampered plan not refused"; }
grep -q "Already converged" "$WORK/out" && fail "tampered plan said converged"
echo "ok: plans name their namespace; another namespace, expired and tampered plans are refused"
