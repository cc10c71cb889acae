#!/bin/sh
# A signed plan made against veth in a private network namespace is applied
# exactly (checked with ethtool and ip); drift made by hand makes the same
# signed plan stale (refused, showing the difference); a trust directory
# refuses unsigned plans; a converged signed plan applies with zero changes.
. "$(dirname "$0")/../linux/lib.sh"
command -v openssl >/dev/null || { echo "SKIP: openssl missing"; exit 77; }
export NETTUNE_TRUST_DIR="$WORK/trusted.d"
veth_pair nsa0 nsb0
nsx ethtool -K nsa0 gro off tso on
ip -n "$NS" link set nsa0 mtu 1400
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: signed-veth, host: any}
target: linux
interfaces:
  - {name: nsa0, nic: veth, mtu: 9000, offloads: {gro: on, tso: off}, channels: {rx: 2}}
YAML
"$NETTUNE" keygen --out "$WORK/ci.key" > /dev/null
mkdir "$NETTUNE_TRUST_DIR"
cp "$WORK/ci.key.pub" "$NETTUNE_TRUST_DIR/ci.pub"
rc=0; nt plan "$WORK/p.yaml" --out "$WORK/plan.json" > /dev/null || rc=$?
expect_eq "$rc" 2 "plan --out exit code"
# unsigned: refused because the trust directory exists
rc=0; nt apply --yes "$WORK/plan.json" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "unsigned plan exit code"
grep -q "error: missing signature: .* is not signed" "$WORK/err" || { cat "$WORK/err"; fail "unsigned message"; }
expect_eq "$(mtu nsa0)" 1400 "unsigned plan changed the mtu"
"$NETTUNE" sign --key "$WORK/ci.key" "$WORK/plan.json" > /dev/null
openssl pkeyutl -verify -pubin -inkey "$WORK/ci.key.pub" -rawin -in "$WORK/plan.json" \
	-sigfile "$WORK/plan.json.sig" > /dev/null || fail "openssl does not verify the plan"
cp "$WORK/plan.json" "$WORK/plan-copy.json"
cp "$WORK/plan.json.sig" "$WORK/plan-copy.json.sig"
# drift after signing: the plan is stale and nothing changes
nsx ethtool -K nsa0 gro on
rc=0; nt apply --yes "$WORK/plan.json" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "stale plan exit code"
grep -q "error: stale plan: 1 setting of this host changed" "$WORK/err" || { cat "$WORK/err"; fail "stale message"; }
grep -q "  nsa0 feature rx-gro: planned from off, the host now has on" "$WORK/err" || { cat "$WORK/err"; fail "stale difference"; }
expect_eq "$(mtu nsa0)" 1400 "stale plan changed the mtu"
nsx ethtool -K nsa0 gro off
# the signed plan applies exactly
rc=0; nt apply --yes "$WORK/plan.json" > "$WORK/out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out"; fail "apply of the signed plan exit $rc"; }
expect_eq "$(mtu nsa0)" 9000 "nsa0 mtu"
expect_eq "$(feature nsa0 generic-receive-offload)" on "nsa0 gro"
expect_eq "$(feature nsa0 tcp-segmentation-offload)" off "nsa0 tso"
expect_eq "$(chan nsa0 RX)" 2 "nsa0 rx channels"
grep -q "journal" "$WORK/out" || fail "apply did not name its journal"
# applying the same plan again: the host holds every "to" value
njournals=$(ls "$NETTUNE_STATE_DIR/journal" | wc -l)
rc=0; nt apply --yes "$WORK/plan-copy.json" > "$WORK/out" 2> "$WORK/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out" "$WORK/err"; fail "re-applied plan exit $rc"; }
grep -q "^Already converged: this host already holds every value .*plan-copy.json sets ([0-9]* actions); nothing was changed.$" "$WORK/out" \
	|| { cat "$WORK/out"; fail "re-applied plan does not say already converged"; }
expect_eq "$(ls "$NETTUNE_STATE_DIR/journal" | wc -l)" "$njournals" "journals after a converged re-apply"
rc=0; nt apply --yes --dry-run "$WORK/plan-copy.json" > "$WORK/out" 2>&1 || rc=$?
expect_eq "$rc" 0 "dry run of a converged plan"
grep -q "^Already converged" "$WORK/out" || { cat "$WORK/out"; fail "dry run: already converged"; }
# partly undone by hand: stale, naming the value the host no longer holds
nsx ethtool -K nsa0 gro off
rc=0; nt apply --yes "$WORK/plan-copy.json" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "partly converged plan exit code"
grep -q "error: stale plan: [0-9]* settings of this host changed" "$WORK/err" || { cat "$WORK/err"; fail "partial: stale message"; }
grep -q "  nsa0 mtu: planned from 1400, the host now has 9000 (the planned value)" "$WORK/err" || { cat "$WORK/err"; fail "partial: held value"; }
grep -q "^the host holds [0-9]* of the [0-9]* values the plan sets; not held:" "$WORK/err" || { cat "$WORK/err"; fail "partial: count"; }
grep -q "^  nsa0 feature rx-gro: the host has off, the plan sets on$" "$WORK/err" || { cat "$WORK/err"; fail "partial: missing value"; }
expect_eq "$(feature nsa0 generic-receive-offload)" off "stale partial plan changed gro"
nsx ethtool -K nsa0 gro on
# converged: a new signed plan has no actions and applies with no changes
rc=0; nt plan "$WORK/p.yaml" --out "$WORK/conv.json" > /dev/null || rc=$?
expect_eq "$rc" 0 "converged plan exit code"
"$NETTUNE" sign --key "$WORK/ci.key" "$WORK/conv.json" > /dev/null
nt apply --yes "$WORK/conv.json" > "$WORK/out2" || fail "converged signed plan"
grep -q "Nothing to do" "$WORK/out2" || fail "converged signed plan output"
rc=0; nt plan --check "$WORK/p.yaml" > /dev/null || rc=$?
expect_eq "$rc" 0 "drift check after apply"
nsx ethtool -K nsa0 gro off
rc=0; nt plan --check "$WORK/p.yaml" > "$WORK/drift" || rc=$?
expect_eq "$rc" 2 "drift check after drift"
grep -q "  nsa0 feature rx-gro: off (want on)" "$WORK/drift" || fail "drift line"
echo "ok: signed plan applied on veth; unsigned and stale refused; drift check"
