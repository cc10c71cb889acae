#!/bin/sh
# Signals during an apply (build with -Dfault_injection=true): for every
# write k of an apply of n actions, NETTUNE_SIGNAL_STEP=k raises a signal
# right after that write.
# - SIGTERM, SIGINT, SIGHUP: the apply rolls back what it wrote and exits 1;
#   the journal ends failed, its error "interrupted by signal N ..."; ethtool -k/-l and ip -d link of every
#   device are exactly as before.
# - SIGKILL: the journal stays 'applying'; every later command warns; apply
#   refuses; 'nettune rollback' restores exactly; a second rollback is
#   refused; 'rollback --discard' accepts a half-applied host instead.
# - SIGKILL before the confirm watcher starts: the deadline recorded in the
#   journal makes the next nettune run revert.
. "$(dirname "$0")/../linux/lib.sh"
veth_pair nsa0 nsb0
veth_pair nsa1 nsb1
devs="nsa0 nsb0 nsa1 nsb1"
nsx ethtool -K nsb0 gro on
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: signal-test, host: any}
target: linux
interfaces:
  - {name: nsa0, nic: veth, mtu: 9000, offloads: {gro: on, tso: off}, channels: {rx: 2, tx: 3}}
  - {name: nsb0, nic: veth, mtu: 4000, offloads: {gro: off, gso: off}}
  - {name: nsa1, nic: veth, offloads: {rxvlan: off, gro: on}, channels: {rx: 1, tx: 1}}
YAML
rc=0; nt plan --json "$WORK/p.yaml" > "$WORK/plan.json" || rc=$?
expect_eq "$rc" 2 "plan exit code"
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["changes"])' "$WORK/plan.json")
[ "$n" -ge 8 ] || fail "only $n actions planned"
full_state $devs > "$WORK/before"
same() {
	full_state $devs > "$WORK/now"
	diff -u "$WORK/before" "$WORK/now" > "$WORK/diff" || { cat "$WORK/diff"; fail "$1: the host differs from before the apply"; }
}
k=1
while [ "$k" -le "$n" ]; do
	for sig in 15 2 1; do
		rc=0
		NETTUNE_SIGNAL_STEP=$k NETTUNE_SIGNAL=$sig nt apply --yes "$WORK/p.yaml" > "$WORK/out" 2>&1 || rc=$?
		[ "$rc" -eq 1 ] || { cat "$WORK/out"; fail "signal $sig at step $k of $n: exit $rc, expected 1"; }
		grep -q "interrupted by signal $sig" "$WORK/out" || { cat "$WORK/out"; fail "signal $sig at step $k: not reported"; }
		expect_eq "$(jr state)" failed "journal after signal $sig at step $k"
		jr error | grep -q "^interrupted by signal $sig " || { jr error; fail "signal $sig at step $k: journal error"; }
		same "signal $sig at step $k"
	done
	k=$((k + 1))
done
# SIGKILL half-way: nothing can run in the process; the next runs see it
k=$(( (n + 1) / 2 ))
rc=0; NETTUNE_SIGNAL_STEP=$k NETTUNE_SIGNAL=9 nt apply --yes "$WORK/p.yaml" > /dev/null 2>&1 || rc=$?
expect_eq "$rc" 137 "SIGKILL exit status"
expect_eq "$(jr state)" applying "journal after SIGKILL"
expect_eq "$(jr open)" true "open marker after SIGKILL"
id=$(jr id)
rc=0; nt plan "$WORK/p.yaml" > /dev/null 2> "$WORK/warn" || rc=$?
grep -q "journal $id was left applying at .* by pid [0-9]*, which is gone: the host may be half-applied" "$WORK/warn" ||
	{ cat "$WORK/warn"; fail "no warning after SIGKILL"; }
rc=0; nt apply --yes "$WORK/p.yaml" > /dev/null 2> "$WORK/refuse" || rc=$?
expect_eq "$rc" 1 "apply after an interrupted apply"
grep -q "restore it with 'nettune rollback $id'" "$WORK/refuse" || { cat "$WORK/refuse"; fail "refusal message"; }
nt rollback > "$WORK/rb"
grep -q "Rolled back." "$WORK/rb" || { cat "$WORK/rb"; fail "rollback after SIGKILL"; }
expect_eq "$(jr state)" rolled-back "journal after the rollback"
same "rollback after SIGKILL"
rc=0; nt rollback 2> /dev/null || rc=$?
expect_eq "$rc" 1 "second rollback after SIGKILL"
# the same, accepted as it is
rc=0; NETTUNE_SIGNAL_STEP=$k NETTUNE_SIGNAL=9 nt apply --yes "$WORK/p.yaml" > /dev/null 2>&1 || rc=$?
id=$(jr id)
nt rollback --discard "$id" > "$WORK/disc"
grep -q "Discarded journal $id" "$WORK/disc" || fail "discard output"
expect_eq "$(jr state)" discarded "journal after discard"
rc=0; nt rollback "$id" 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "rollback of a discarded journal"
grep -q "was discarded at" "$WORK/e" || { cat "$WORK/e"; fail "discarded message"; }
# the half-applied host is now the baseline that a rollback returns to
full_state $devs > "$WORK/before"
nt apply --yes "$WORK/p.yaml" > /dev/null
nt rollback > /dev/null
same "apply and rollback after a discard"
# SIGKILL at the last write of a confirm-timeout apply (before the watcher
# exists): the recorded deadline still reverts it on the next run
rc=0; nt plan --json "$WORK/p.yaml" > "$WORK/plan.json" || rc=$?
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["changes"])' "$WORK/plan.json")
rc=0; NETTUNE_SIGNAL_STEP=$n NETTUNE_SIGNAL=9 nt apply --yes --confirm-timeout 1 "$WORK/p.yaml" > /dev/null 2>&1 || rc=$?
expect_eq "$rc" 137 "SIGKILL before the watcher"
expect_eq "$(jr state)" applying "journal before the watcher"
sleep 1.2
nt plan "$WORK/p.yaml" > /dev/null 2> "$WORK/rec" || true
grep -q "were not confirmed by .*: reverting them first" "$WORK/rec" || { cat "$WORK/rec"; fail "no revert of the killed confirm apply"; }
expect_eq "$(jr state)" reverted-unconfirmed "journal after the recovery"
same "recovery of a confirm apply killed before its watcher"
echo "ok: $n steps x SIGTERM/SIGINT/SIGHUP rolled back; SIGKILL recovered by rollback, discard and deadline"
