#!/bin/sh
# The confirm window fails safe: reverted at the deadline by its watcher,
# kept by 'nettune confirm', refused to a late confirm ("too late"),
# reverted at once when the watcher gets SIGTERM, and reverted by the next
# nettune run when the watcher was SIGKILLed.  The lock names the watcher,
# not the apply that started it.  Every case compares ethtool -k/-l and
# ip -d link of both veth ends with the state before the apply.
. "$(dirname "$0")/lib.sh"
veth_pair nca0 ncb0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-confirm, host: any}
target: linux
interfaces:
  - {name: nca0, mtu: 1400, offloads: {gro: on}, channels: {rx: 2, tx: 2}}
YAML
before=$(full_state nca0 ncb0)
same_as_before() {
	now=$(full_state nca0 ncb0)
	[ "$before" = "$now" ] || { echo "$before" > "$WORK/b"; echo "$now" > "$WORK/a"; diff "$WORK/b" "$WORK/a" >&2; fail "$1: host differs from before the apply"; }
}

# 1. deadline passes: the watcher reverts (channels included: the revert
#    observes the host afresh instead of reusing the apply's memory)
# (windows of 4 s: a loaded machine must not see one end before the
# checks made inside it)
nt apply --yes --confirm-timeout 4 "$WORK/p.yaml" > "$WORK/out"
grep -q "Run 'nettune confirm' before .* (4 s), or they are reverted" "$WORK/out" || { cat "$WORK/out"; fail "no confirm hint"; }
expect_eq "$(mtu nca0)" 1400 "mtu applied before the deadline"
expect_eq "$(jr state)" pending-confirm "journal state in the window"
watcher=$(jr pid)
alive "$watcher" || fail "the journal names no live watcher"
grep -q "^pid $watcher (nettune apply --confirm-timeout, confirm watcher) since [0-9-]* [0-9:]* [+-][0-9]*$" "$NETTUNE_STATE_DIR/lock" ||
	{ cat "$NETTUNE_STATE_DIR/lock"; fail "the lock does not name the watcher"; }
rc=0; nt apply --yes "$WORK/p.yaml" > /dev/null 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "second apply exit code"
grep -q "another nettune holds .*/lock (pid $watcher (nettune apply --confirm-timeout" "$WORK/err" || { cat "$WORK/err"; fail "lock message"; }
jr wait reverted-unconfirmed 15 || fail "not reverted after the deadline"
same_as_before "deadline revert"
expect_eq "$(jr open)" false "reverted journal still open"
rc=0; nt confirm 2> "$WORK/late" || rc=$?
expect_eq "$rc" 1 "confirm after the revert"
grep -q "too late: the changes of $(jr id) were reverted at " "$WORK/late" || { cat "$WORK/late"; fail "late confirm message"; }
rc=0; nt rollback "$(jr id)" 2> "$WORK/rb" || rc=$?
expect_eq "$rc" 1 "rollback of a reverted journal"
grep -q "was already reverted (unconfirmed) at" "$WORK/rb" || { cat "$WORK/rb"; fail "reverted journal rolled back again"; }

# 2. confirmed in time: stays after the deadline; the watcher is gone
nt apply --yes --confirm-timeout 3 "$WORK/p.yaml" > /dev/null
watcher=$(jr pid)
nt confirm > "$WORK/c"
grep -q "Confirmed: the changes of $(jr id) stay" "$WORK/c" || fail "confirm output"
expect_eq "$(jr state)" confirmed "journal state after confirm"
alive "$watcher" && fail "watcher still running after confirm"
sleep 3.5
expect_eq "$(mtu nca0)" 1400 "confirmed mtu kept after the deadline"
rc=0; nt confirm 2>/dev/null || rc=$?
expect_eq "$rc" 1 "confirm with nothing pending"
nt rollback > "$WORK/rb"
same_as_before "rollback of a confirmed journal"
expect_eq "$(jr state)" rolled-back "state after rollback"

# 3. SIGTERM to the watcher reverts at once
nt apply --yes --confirm-timeout 60 "$WORK/p.yaml" > /dev/null
kill -TERM "$(jr pid)"
jr wait reverted-unconfirmed 15 || fail "SIGTERM to the watcher did not revert"
same_as_before "watcher SIGTERM"

# 4. SIGKILL to the watcher: nothing reverts by itself, but the next nettune
#    run after the deadline reverts first; confirm then is too late
nt apply --yes --confirm-timeout 4 "$WORK/p.yaml" > /dev/null
kill -KILL "$(jr pid)"
sleep 0.3
expect_eq "$(jr state)" pending-confirm "state with the watcher killed"
nt plan "$WORK/p.yaml" > /dev/null 2> "$WORK/warn" || true
grep -q "awaits confirmation until .* but its watcher (pid [0-9]*) is gone" "$WORK/warn" || { cat "$WORK/warn"; fail "no warning about the dead watcher"; }
sleep 4.2
nt plan "$WORK/p.yaml" > /dev/null 2> "$WORK/rec" || true
grep -q "were not confirmed by .*: reverting them first" "$WORK/rec" || { cat "$WORK/rec"; fail "next run did not revert"; }
expect_eq "$(jr state)" reverted-unconfirmed "state after the recovery revert"
same_as_before "recovery revert"
rc=0; nt confirm 2> "$WORK/late" || rc=$?
expect_eq "$rc" 1 "confirm after the recovery revert"
grep -q "too late" "$WORK/late" || fail "late confirm after recovery"

# 5. 'nettune rollback' during the window: the watcher reverts at once
nt apply --yes --confirm-timeout 60 "$WORK/p.yaml" > /dev/null
nt rollback > "$WORK/rbw"
grep -q "its confirm watcher reverted it" "$WORK/rbw" || { cat "$WORK/rbw"; fail "rollback during the window"; }
same_as_before "rollback during the window"

# 6. an outside lock holder is honoured; --wait waits for it
flock "$NETTUNE_STATE_DIR/lock" sleep 2 &
sleep 0.3
rc=0; nt apply --yes "$WORK/p.yaml" > /dev/null 2>&1 || rc=$?
expect_eq "$rc" 1 "apply while another process holds the lock"
same_as_before "nothing applied while locked"
nt apply --yes --wait 20 "$WORK/p.yaml" > /dev/null 2> "$WORK/w"
grep -q "waiting up to 20 s for the lock" "$WORK/w" || { cat "$WORK/w"; fail "no waiting message"; }
expect_eq "$(mtu nca0)" 1400 "applied after waiting"
wait
echo "ok: confirm window revert/confirm/late/SIGTERM/SIGKILL/rollback, lock naming and waiting"
