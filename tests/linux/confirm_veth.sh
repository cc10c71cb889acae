#!/bin/sh
# --confirm-timeout reverts unless confirmed; 'nettune confirm' keeps the
# change; a second apply while one awaits confirmation is refused with the
# lock holder named; 'nettune rollback' restores the newest journal.
. "$(dirname "$0")/lib.sh"
veth_pair nca0 ncb0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-confirm}
target: linux
interfaces:
  - {name: nca0, mtu: 1400, offloads: {gro: on}}
YAML
nt apply --confirm-timeout 2 "$WORK/p.yaml" > "$WORK/out"
grep -q "Run 'nettune confirm' within 2 s" "$WORK/out" || fail "no confirm hint"
expect_eq "$(mtu nca0)" 1400 "mtu applied before the deadline"
# concurrent apply while the first holds the lock
rc=0; nt apply "$WORK/p.yaml" > /dev/null 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "second apply exit code"
grep -q "another nettune holds .*/lock (pid [0-9]*" "$WORK/err" || { cat "$WORK/err"; fail "lock message"; }
i=0; while [ -e "$NETTUNE_STATE_DIR/pending-confirm" ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i+1)); done
expect_eq "$(mtu nca0)" 1500 "mtu reverted after the deadline"
expect_eq "$(feature nca0 generic-receive-offload)" off "gro reverted after the deadline"
# confirmed in time: stays
nt apply --confirm-timeout 3 "$WORK/p.yaml" > /dev/null
nt confirm > "$WORK/c"
grep -q "Confirmed" "$WORK/c" || fail "confirm output"
sleep 4
expect_eq "$(mtu nca0)" 1400 "confirmed mtu kept after the deadline"
rc=0; nt confirm 2>/dev/null || rc=$?
expect_eq "$rc" 1 "confirm with nothing pending"
# rollback of the newest journal
nt rollback > "$WORK/rb"
expect_eq "$(mtu nca0)" 1500 "mtu after nettune rollback"
expect_eq "$(feature nca0 generic-receive-offload)" off "gro after nettune rollback"
# an outside lock holder is honoured too
mkdir -p "$NETTUNE_STATE_DIR"
flock "$NETTUNE_STATE_DIR/lock" sleep 3 &
sleep 0.5
rc=0; nt apply "$WORK/p.yaml" > /dev/null 2>&1 || rc=$?
expect_eq "$rc" 1 "apply while another process holds the lock"
wait
expect_eq "$(mtu nca0)" 1500 "nothing applied while locked"
echo "ok: confirm-timeout revert, confirm, lock, rollback"
