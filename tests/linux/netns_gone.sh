#!/bin/sh
# Journals of a vanished target can be retired: after the network
# namespace of an apply is deleted (or deleted and created again under the
# same name), or its --root removed, history shows the target "(gone)", a
# bare rollback skips the journal with a note and reaches the one before,
# and rollback --discard accepts it (an applied journal) saying the target
# is gone.  show prints the empty irqbalance ban of a --root apply as "".
. "$(dirname "$0")/lib.sh"
G1="${NS}g1"; G2="${NS}g2"
trap 'ip netns del "$G1" 2>/dev/null || true; ip netns del "$G2" 2>/dev/null || true; cleanup' EXIT INT TERM
veth_pair nga0 ngb0
for g in "$G1" "$G2"; do
	ip netns add "$g"
	ip -n "$g" link add ngx0 type veth peer name ngy0
	ip -n "$g" link set ngx0 up
done
prof() {
	cat > "$WORK/$1.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-gone, host: any}
target: linux
interfaces:
  - {name: $2, mtu: 3000}
YAML
}
prof here nga0
prof there ngx0
nt apply --yes "$WORK/here.yaml" > /dev/null
here=$(jr id)
"$NETTUNE" --netns "$G1" apply --yes "$WORK/there.yaml" > /dev/null
deleted=$(jr id)
"$NETTUNE" --netns "$G2" apply --yes "$WORK/there.yaml" > /dev/null
recreated=$(jr id)
ip netns del "$G1"
ip netns del "$G2"
ip netns add "$G2"

# history: both targets gone; the journal in the live namespace is not
"$NETTUNE" history > "$WORK/h.txt"
grep -q "netns $G1 (gone)" "$WORK/h.txt" || { cat "$WORK/h.txt"; fail "deleted namespace not shown gone"; }
grep -q "netns $G2 (gone)" "$WORK/h.txt" || { cat "$WORK/h.txt"; fail "recreated namespace not shown gone"; }
grep -q "netns $NS (gone)" "$WORK/h.txt" && fail "a live namespace shown gone"
"$NETTUNE" history --json > "$WORK/h.json"
python3 - "$WORK/h.json" "$G1" "$G2" <<'PY'
import json, sys
h = {j["netns"]: j for j in json.load(open(sys.argv[1]))}
assert "no longer exists" in h[sys.argv[2]]["target_gone"], h
assert "deleted and created again" in h[sys.argv[3]]["target_gone"], h
PY

# a bare rollback skips both with a note and rolls back the one before
"$NETTUNE" rollback > "$WORK/out" 2> "$WORK/err" || { cat "$WORK/err"; fail "bare rollback"; }
grep -q "note: skipping journal $recreated: its network namespace $G2 was deleted and created again ('nettune rollback --discard $recreated' retires it)" "$WORK/err" ||
	{ cat "$WORK/err"; fail "no note for the recreated namespace"; }
grep -q "note: skipping journal $deleted: its network namespace $G1 no longer exists" "$WORK/err" ||
	{ cat "$WORK/err"; fail "no note for the deleted namespace"; }
grep -q "Rolling back $here" "$WORK/out" || { cat "$WORK/out"; fail "did not reach the journal before"; }
expect_eq "$(mtu nga0)" 1500 "the live namespace rolled back"

# naming one: refused with the way out; --discard retires it
rc=0; "$NETTUNE" rollback "$deleted" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "rollback of a journal whose namespace is gone"
grep -q "'nettune rollback --discard $deleted' retires the journal" "$WORK/err" || { cat "$WORK/err"; fail "no hint to discard"; }
for id in "$deleted" "$recreated"; do
	"$NETTUNE" rollback --discard "$id" > "$WORK/out" 2> "$WORK/err" || { cat "$WORK/err"; fail "discard of $id"; }
	grep -q "Discarded journal $id: its network namespace .* there is nothing to restore" "$WORK/out" ||
		{ cat "$WORK/out"; fail "discard does not say the target is gone"; }
done
expect_eq "$(jr state 0)" discarded "the recreated namespace's journal"
expect_eq "$(jr state 1)" discarded "the deleted namespace's journal"
# an applied journal whose target is there is still not discarded
nt apply --yes "$WORK/here.yaml" > /dev/null
rc=0; nt rollback --discard "$(jr id)" 2> /dev/null || rc=$?
expect_eq "$rc" 1 "discard of an applied journal whose target exists"

# --root removed; its show prints the empty irqbalance ban as ""
R="$WORK/root"
python3 "$SRCROOT/tests/fixtures/mkroot.py" "$R" --queues 2 --node 0 --irqbalance
cat > "$WORK/root.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-gone, host: any}
target: linux
interfaces:
  - name: enp1s0f0
    irq: {policy: numa-local-spread, irqbalance: ban}
YAML
"$NETTUNE" --root "$R" apply --yes "$WORK/root.yaml" > /dev/null 2>&1 || fail "apply to the --root fixture"
rooted=$(jr id)
"$NETTUNE" show "$rooted" > "$WORK/show"
grep -q "(null)" "$WORK/show" && { cat "$WORK/show"; fail "show prints (null)"; }
grep -q 'irqbalance.*: "" -> ' "$WORK/show" || { cat "$WORK/show"; fail "the empty ban is not shown as \"\""; }
rm -rf "$R"
"$NETTUNE" history > "$WORK/h.txt"
grep -q "root $R (gone)" "$WORK/h.txt" || { cat "$WORK/h.txt"; fail "removed --root not shown gone"; }
"$NETTUNE" rollback --discard "$rooted" > "$WORK/out" || fail "discard of a --root journal"
grep -q "its --root $R no longer exists" "$WORK/out" || { cat "$WORK/out"; fail "discard message for --root"; }
echo "ok: journals of a deleted or recreated namespace or a removed --root: shown gone, skipped, discarded"
