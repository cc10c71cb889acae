#!/bin/sh
# Fault injection (build with -Dfault_injection=true): for an apply of n
# actions on veth pairs, make write k fail for every k in 1..n
# (NETTUNE_FAIL_STEP=k) and check that the apply reports the failure, exits
# 1 (rolled back: the journal failed, with the error) and leaves every
# device exactly as before: the full output of ethtool -k, ethtool -l and
# ip link is compared.  Then the same
# apply without a fault converges.
. "$(dirname "$0")/../linux/lib.sh"
veth_pair nfa0 nfb0
veth_pair nfa1 nfb1
devs="nfa0 nfb0 nfa1 nfb1"
# drift that the profile below undoes, some of it on purpose
nsx ethtool -K nfb0 gro on
ip -n "$NS" link set nfa1 mtu 1400
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fault-test, host: any}
target: linux
interfaces:
  - {name: nfa0, nic: veth, mtu: 9000, offloads: {gro: on, tso: off, uso: off}, channels: {rx: 2, tx: 3}}
  - {name: nfb0, nic: veth, mtu: 4000, offloads: {gro: off, gso: off, txvlan: off}}
  - {name: nfa1, nic: veth, mtu: 1500, offloads: {rxvlan: off, gro: on}, channels: {rx: 1, tx: 1}}
  - {name: nfb1, nic: veth, channels: {rx: 3, tx: 2}, offloads: {uso: off, tso: off}}
YAML
rc=0; nt plan --json "$WORK/p.yaml" > "$WORK/plan.json" || rc=$?
expect_eq "$rc" 2 "plan exit code"
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["changes"])' "$WORK/plan.json")
[ "$n" -ge 10 ] || fail "only $n actions planned"
state_of $devs > "$WORK/before"
k=1
while [ "$k" -le "$n" ]; do
	rc=0
	NETTUNE_FAIL_STEP=$k nt apply --yes "$WORK/p.yaml" > "$WORK/out.$k" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] || { cat "$WORK/out.$k"; fail "step $k of $n: apply exit $rc, expected 1 (rolled back)"; }
	grep -q "injected failure at step $k\b" "$WORK/out.$k" || { cat "$WORK/out.$k"; fail "step $k: the injected failure was not reported"; }
	expect_eq "$(jr state)" failed "step $k: journal"
	jr error | grep -q ": injected failure at step $k\b" || { jr error; fail "step $k: the journal's error"; }
	state_of $devs > "$WORK/after.$k"
	if ! diff -u "$WORK/before" "$WORK/after.$k" > "$WORK/diff.$k"; then
		cat "$WORK/out.$k" "$WORK/diff.$k"
		fail "step $k of $n: the host differs from before the apply"
	fi
	k=$((k + 1))
done
# beyond the last step nothing fails: the same apply converges
rc=0; NETTUNE_FAIL_STEP=$((n + 1)) nt apply --yes "$WORK/p.yaml" > "$WORK/out.ok" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out.ok"; fail "apply without a fault: exit $rc"; }
rc=0; nt plan "$WORK/p.yaml" > /dev/null || rc=$?
expect_eq "$rc" 0 "plan after the apply without a fault"
state_of $devs > "$WORK/converged"
! cmp -s "$WORK/before" "$WORK/converged" || fail "the converged state equals the drifted one"
echo "ok: $n steps each failed and rolled back to the exact previous state"
