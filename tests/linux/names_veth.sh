#!/bin/sh
# Interfaces named like nettune's pseudo-objects (sysctl, irqbalance) are
# planned with --out and applied from the plan manifest on the real kernel:
# the kind of each setting says which namespace its object is in.
. "$(dirname "$0")/lib.sh"
veth_pair sysctl irqbalance
nsx ethtool -K sysctl gro off
ip -n "$NS" link set sysctl mtu 1400
ip -n "$NS" link set irqbalance mtu 1400
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: pseudo-names, host: any}
target: linux
interfaces:
  - {name: sysctl, nic: veth, mtu: 9000, offloads: {gro: on}, channels: {rx: 2}}
  - {name: irqbalance, nic: veth, mtu: 4000, offloads: {tso: off}}
YAML
rc=0; nt plan "$WORK/p.yaml" --out "$WORK/plan.json" > "$WORK/plan" || rc=$?
expect_eq "$rc" 2 "plan --out exit code"
grep -q '"object": "sysctl", "attribute": "feature rx-gro"' "$WORK/plan.json" || fail "sysctl interface not in the manifest"
grep -q '"object": "irqbalance", "attribute": "mtu"' "$WORK/plan.json" || fail "irqbalance interface not in the manifest"
rc=0; nt apply --yes "$WORK/plan.json" > "$WORK/out" 2> "$WORK/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err"; fail "apply PLAN.json exit $rc"; }
grep -q "stale" "$WORK/err" && fail "plan refused as stale"
expect_eq "$(mtu sysctl)" 9000 "sysctl mtu"
expect_eq "$(feature sysctl generic-receive-offload)" on "sysctl gro"
expect_eq "$(chan sysctl RX)" 2 "sysctl rx channels"
expect_eq "$(mtu irqbalance)" 4000 "irqbalance mtu"
expect_eq "$(feature irqbalance tcp-segmentation-offload)" off "irqbalance tso"
rc=0; nt plan "$WORK/p.yaml" --out "$WORK/conv.json" > /dev/null || rc=$?
expect_eq "$rc" 0 "converged plan exit code"
nt apply --yes "$WORK/conv.json" > "$WORK/out2" 2>/dev/null || fail "converged plan"
grep -q "Nothing to do" "$WORK/out2" || fail "converged plan output"
# drift on the interface named sysctl makes the same plan stale, by name
# (two drifted values, one undone by hand: a plan held only in part)
nsx ethtool -K sysctl gro off
ip -n "$NS" link set sysctl mtu 1500
rc=0; nt plan "$WORK/p.yaml" --out "$WORK/p2.json" > /dev/null || rc=$?
expect_eq "$rc" 2 "drifted plan exit code"
nsx ethtool -K sysctl gro on
rc=0; nt apply --yes "$WORK/p2.json" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "stale plan exit code"
grep -q "  sysctl feature rx-gro: planned from off, the host now has on" "$WORK/err" ||
	{ cat "$WORK/err"; fail "stale difference of the sysctl interface"; }
grep -q "^  sysctl mtu: the host has 1500, the plan sets 9000$" "$WORK/err" ||
	{ cat "$WORK/err"; fail "value not held by the sysctl interface"; }
echo "ok: interfaces named sysctl and irqbalance through plan --out and apply PLAN.json"
