#!/bin/sh
# A change the kernel accepts but undoes as a side effect (SG off drops TSO)
# fails the apply, and every veth ends exactly as before, including the
# settings changed before the failing step; a fixed feature (LRO on veth)
# is refused before anything is written.
. "$(dirname "$0")/lib.sh"
veth_pair nra0 nrb0
veth_pair nra1 nrb1
nsx ethtool -K nra0 gro on
before=$(state_of nra0 nrb0 nra1 nrb1)
cat > "$WORK/side.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-side-effect, host: any}
target: linux
interfaces:
  - name: nra1
    mtu: 4000
    offloads: {gro: on}
  - name: nra0
    mtu: 2000
    offloads: {gro: off, tso: on}
    linux: {features: {tx-scatter-gather: off}}
YAML
rc=0; nt apply --yes "$WORK/side.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "apply exit code after a side effect"
grep -q "nra0 feature tx-tcp-segmentation: accepted but not effective" "$WORK/err" ||
	{ cat "$WORK/err"; fail "missing 'accepted but not effective' message"; }
grep -q "Rolled back: the host is as before." "$WORK/err" || fail "no rollback report"
grep -q "changed  nra1 mtu: 1500 -> 4000" "$WORK/out" || fail "earlier steps were not applied first"
after=$(state_of nra0 nrb0 nra1 nrb1)
[ "$before" = "$after" ] || { echo "$before" > "$WORK/b"; echo "$after" > "$WORK/a"; diff "$WORK/b" "$WORK/a"; fail "state differs after rollback"; }
# a fixed feature is refused before any write
cat > "$WORK/lro.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-lro, host: any}
target: linux
interfaces:
  - {name: nra0, mtu: 3000, offloads: {lro: on}}
YAML
rc=0; nt apply --yes "$WORK/lro.yaml" > "$WORK/out2" 2> "$WORK/err2" || rc=$?
expect_eq "$rc" 1 "apply exit code for a fixed feature"
grep -q "feature rx-lro .*\[cannot change\]" "$WORK/out2" || { cat "$WORK/out2"; fail "plan does not flag rx-lro"; }
grep -q "1 action cannot be applied on this host; nothing was changed" "$WORK/err2" || { cat "$WORK/err2"; fail "message"; }
expect_eq "$(mtu nra0)" 1500 "mtu untouched after a refused plan"
after=$(state_of nra0 nrb0 nra1 nrb1)
[ "$before" = "$after" ] || fail "state changed by a refused apply"
echo "ok: side-effect rollback and fixed-feature refusal"
