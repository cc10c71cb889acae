#!/bin/sh
# txqueuelen in a --root fixture: observed from tx_queue_len (plan, observe
# --json), written there by apply, and re-planned to nothing; a plan against
# the bundled snapshot that records pause, private flags and rx-flow-hash
# shows them (no root needed).
set -eu
: "${NETTUNE:?}" "${SRCROOT:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
export NETTUNE_STATE_DIR="$WORK/state"
fail() { echo "FAIL: $*" >&2; exit 1; }
R="$WORK/root"
python3 "$SRCROOT/tests/fixtures/mkroot.py" "$R" --queues 4 > /dev/null
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-x710}
target: linux
interfaces:
  - {name: enp1s0f0, txqueuelen: 5000}
YAML
rc=0; "$NETTUNE" --root "$R" plan "$WORK/p.yaml" > "$WORK/plan" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat "$WORK/plan"; fail "plan exit $rc"; }
grep -Eq "^ +1  txqueuelen +1000 -> 5000 " "$WORK/plan" || { cat "$WORK/plan"; fail "plan line"; }
grep -q "Plan: 1 change, 0 disruptive." "$WORK/plan" || { cat "$WORK/plan"; fail "plan size"; }
"$NETTUNE" --root "$R" apply --yes "$WORK/p.yaml" > "$WORK/apply" 2>&1 || { cat "$WORK/apply"; fail "apply"; }
[ "$(cat "$R/sys/class/net/enp1s0f0/tx_queue_len")" = 5000 ] || fail "tx_queue_len not written"
rc=0; "$NETTUNE" --root "$R" plan "$WORK/p.yaml" > "$WORK/plan2" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/plan2"; fail "re-plan exit $rc"; }
"$NETTUNE" --root "$R" observe --json > "$WORK/snap.json"
python3 - "$WORK/snap.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = {(s["object"], s["attribute"]): s["value"] for s in d["settings"]}
assert got[("enp1s0f0", "txqueuelen")] == 5000, got.get(("enp1s0f0", "txqueuelen"))
PY
# the snapshot of the X710 gateway records the kinds veth lacks
rc=0; (cd "$SRCROOT" && "$NETTUNE" plan --json examples/x710-udp-gateway.yaml \
	--state examples/states/x710-udp-gateway.json) > "$WORK/x.json" || rc=$?
[ "$rc" -eq 2 ] || fail "x710-udp-gateway plan exit $rc"
python3 - "$WORK/x.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
acts = {(a["attribute"], json.dumps(a["from"]), json.dumps(a["to"]), a["disruptive"])
        for a in p["actions"]}
want = {("txqueuelen", "1000", "10000", False),
        ("feature rx-udp-gro-forwarding", "false", "true", False),
        ("pause rx", "true", "false", True), ("pause tx", "true", "false", True),
        ("private-flag disable-fw-lldp", "false", "true", True),
        ("rx-flow-hash udp4", '"src-ip dst-ip"', '"src-ip dst-ip src-port dst-port"', False)}
assert acts == want, acts ^ want
PY
# a snapshot's field list is compared as a set: the converged udp4 in
# another order plans nothing; a repeated field is the same set
for v in "dst-port src-port dst-ip src-ip" "src-ip dst-ip src-port dst-port src-ip"; do
	python3 - "$SRCROOT/examples/states/x710-udp-gateway.json" "$WORK/o.json" "$v" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["settings"]:
    if s["object"] == "enp1s0f0" and s["attribute"] == "rx-flow-hash udp4":
        s["value"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
	rc=0; (cd "$SRCROOT" && "$NETTUNE" plan --json examples/x710-udp-gateway.yaml \
		--state "$WORK/o.json") > "$WORK/o.plan" || rc=$?
	[ "$rc" -eq 2 ] || fail "plan against '$v' exit $rc"
	python3 -c 'import json,sys; a=[x for x in json.load(open(sys.argv[1]))["actions"] if x["attribute"].startswith("rx-flow-hash")]; assert not a, a' "$WORK/o.plan" || fail "udp4 '$v' planned a change"
done
echo "ok: txqueuelen through a --root fixture; pause, private flags and rx-flow-hash from a snapshot"
