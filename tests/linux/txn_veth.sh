#!/bin/sh
# Transaction safety outside the confirm window: rollback targets the
# journal's namespace (never the host's or another namespace's devices of
# the same names), "newest" is by recorded time, finished journals are not
# rolled back twice, unusable journals change nothing, the state directory
# cannot be turned against root, SIGPIPE does not stop an apply, and eight
# concurrent --only applies (a multi-port hotplug burst) all converge.
. "$(dirname "$0")/lib.sh"
NS2="${NS}b"
cleanup2() { ip netns del "$NS2" 2>/dev/null || true; cleanup; }
trap cleanup2 EXIT INT TERM
ip netns add "$NS2"
veth_pair nta0 ntb0
ip -n "$NS2" link add nta0 type veth peer name ntb0
ip -n "$NS2" link set nta0 up
ip -n "$NS2" link set ntb0 up
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-txn, host: any}
target: linux
interfaces:
  - {name: nta0, mtu: 1300, offloads: {gro: on}}
YAML
ns2_state() { ip netns exec "$NS2" ethtool -k nta0; ip -n "$NS2" -d -o link show nta0 | sed 's/ state [A-Z]* / /'; }
before=$(full_state nta0 ntb0)
before2=$(ns2_state)

# 1. rollback from the host enters the journal's namespace
nt apply --yes "$WORK/p.yaml" > /dev/null
expect_eq "$(jr netns)" "$NS" "journal target netns"
case "$(jr profile)" in /*p.yaml) ;; *) fail "journal profile is not absolute: $(jr profile)";; esac
expect_eq "$(mtu nta0)" 1300 "applied in the namespace"
rc=0; "$NETTUNE" --netns "$NS2" rollback > "$WORK/o" 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "rollback from another namespace"
grep -q "was applied in network namespace $NS; this command runs in another one" "$WORK/e" || { cat "$WORK/e"; fail "wrong-namespace message"; }
"$NETTUNE" rollback > "$WORK/o"
grep -q "in network namespace $NS" "$WORK/o" || { cat "$WORK/o"; fail "rollback does not say where"; }
now=$(full_state nta0 ntb0); [ "$now" = "$before" ] || fail "rollback from the host did not restore the namespace"
[ "$(ns2_state)" = "$before2" ] || fail "rollback touched the other namespace"
rc=0; "$NETTUNE" rollback "$(jr id)" 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "second rollback"
grep -q "was already rolled back at [0-9-]* [0-9:]* [+-][0-9]*" "$WORK/e" || { cat "$WORK/e"; fail "already rolled back message"; }
# a bare one skips rolled-back journals: none is left
rc=0; "$NETTUNE" rollback 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "bare rollback with nothing to roll back"
grep -q "no journal in .* can be rolled back" "$WORK/e" || { cat "$WORK/e"; fail "nothing-left message"; }

# 2. the namespace deleted and created again with the same name: refused
#    (a bare rollback skips the journal, with a note); its journal can only
#    be discarded
nt apply --yes "$WORK/p.yaml" > /dev/null
ip netns del "$NS"; ip netns add "$NS"; veth_pair nta0 ntb0
fresh=$(full_state nta0 ntb0)
rc=0; "$NETTUNE" rollback "$(jr id)" 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "rollback into a recreated namespace"
grep -q "network namespace $NS was deleted and created again since journal" "$WORK/e" || { cat "$WORK/e"; fail "recreated namespace message"; }
rc=0; "$NETTUNE" rollback 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "bare rollback with only a recreated namespace's journal"
grep -q "note: skipping journal $(jr id): its network namespace $NS was deleted and created again" "$WORK/e" ||
	{ cat "$WORK/e"; fail "no note for the recreated namespace"; }
[ "$(full_state nta0 ntb0)" = "$fresh" ] || fail "the recreated namespace was changed"
nt rollback --discard "$(jr id)" > /dev/null || fail "discard of a recreated namespace's journal"
expect_eq "$(jr state)" discarded "state after the discard"
[ "$(full_state nta0 ntb0)" = "$fresh" ] || fail "the discard changed the recreated namespace"

# 3. newest is by recorded time: a journal whose name sorts last but that
#    was created earlier is not the newest
nt apply --yes "$WORK/p.yaml" > /dev/null
newest=$(jr id)
python3 - "$NETTUNE_STATE_DIR/journal" "$newest" <<'PY'
import json, os, sys
d, newest = sys.argv[1], sys.argv[2]
j = json.load(open(os.path.join(d, newest + ".json")))
j["id"] = "99991231T235959.999999999Z-9-0"
j["created_ns"] -= 10**9
j["state"] = "applied"
fd = os.open(os.path.join(d, j["id"] + ".json"), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
os.write(fd, json.dumps(j).encode()); os.close(fd)
PY
nt rollback > "$WORK/o"
grep -q "Rolling back $newest " "$WORK/o" || { cat "$WORK/o"; fail "rollback did not pick the newest by time"; }
rm -f "$NETTUNE_STATE_DIR/journal/99991231T235959.999999999Z-9-0.json"

# 4. unusable journals: a traversal object, an unknown attribute, nothing
#    restorable; each refused with its position, nothing changed
nt apply --yes "$WORK/p.yaml" > /dev/null
id=$(jr id)
for bad in '"object": "../../../tmp/x"' '"attribute": "feature rx/../../x"' '"attribute": "frobnicate"'; do
	python3 - "$NETTUNE_STATE_DIR/journal/$id.json" "$bad" <<'PY'
import json, sys
p, bad = sys.argv[1], sys.argv[2]
j = json.load(open(p))
k, v = json.loads("{" + bad + "}").popitem()
j["entries"][0][k] = v
j.setdefault("orig", None)
open(p + ".bad", "w").write(json.dumps(j, indent=1))
PY
	cp "$NETTUNE_STATE_DIR/journal/$id.json" "$WORK/good.json"
	python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); j.pop("orig"); open(sys.argv[2],"w").write(json.dumps(j, indent=1))' \
		"$NETTUNE_STATE_DIR/journal/$id.json.bad" "$NETTUNE_STATE_DIR/journal/$id.json"
	rm -f "$NETTUNE_STATE_DIR/journal/$id.json.bad"
	rc=0; nt rollback "$id" 2> "$WORK/e" || rc=$?
	expect_eq "$rc" 1 "rollback of an unusable journal ($bad)"
	grep -q "journal/$id.json:[0-9]*:[0-9]*: error: .*entry 0" "$WORK/e" || { cat "$WORK/e"; fail "no located error for $bad"; }
	grep -q "is unusable; nothing was changed" "$WORK/e" || fail "no 'nothing was changed' for $bad"
	expect_eq "$(mtu nta0)" 1300 "unusable journal changed the host ($bad)"
	cp "$WORK/good.json" "$NETTUNE_STATE_DIR/journal/$id.json"
done
[ ! -e /tmp/x ] || fail "a traversal object wrote /tmp/x"
nt rollback "$NETTUNE_STATE_DIR/journal/$id.json" > /dev/null
expect_eq "$(mtu nta0)" 1500 "rollback by path"
rc=0; nt rollback "$WORK/good.json" 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "rollback of a journal outside the state directory"
grep -q "is not in .*/journal" "$WORK/e" || { cat "$WORK/e"; fail "outside journal message"; }

# 5. the state directory: planted symlinks, foreign owner, loose modes
echo precious > "$WORK/victim"
mv "$NETTUNE_STATE_DIR/lock" "$WORK/lock.saved"
ln -s "$WORK/victim" "$NETTUNE_STATE_DIR/lock"
rc=0; nt apply --yes "$WORK/p.yaml" > /dev/null 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "apply with a symlinked lock"
expect_eq "$(cat "$WORK/victim")" precious "the lock symlink target was written"
expect_eq "$(mtu nta0)" 1500 "applied despite the lock symlink"
rm "$NETTUNE_STATE_DIR/lock"
chmod 0777 "$NETTUNE_STATE_DIR"
rc=0; nt apply --yes "$WORK/p.yaml" > /dev/null 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "apply with a world-writable state dir"
grep -q "is world-writable (mode 0777)" "$WORK/e" || { cat "$WORK/e"; fail "world-writable message"; }
chmod 0700 "$NETTUNE_STATE_DIR"
chown nobody "$NETTUNE_STATE_DIR"
rc=0; nt apply --yes "$WORK/p.yaml" > /dev/null 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "apply with a foreign-owned state dir"
grep -q "is owned by uid [0-9]*, not root" "$WORK/e" || { cat "$WORK/e"; fail "owner message"; }
chown root "$NETTUNE_STATE_DIR"
mv "$NETTUNE_STATE_DIR/journal" "$WORK/journal.saved"
ln -s "$WORK" "$NETTUNE_STATE_DIR/journal"
rc=0; nt apply --yes "$WORK/p.yaml" > /dev/null 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "apply with a symlinked journal dir"
grep -q "journal is a symbolic link or not a directory: refusing" "$WORK/e" || { cat "$WORK/e"; fail "journal symlink message"; }
rm "$NETTUNE_STATE_DIR/journal"; mv "$WORK/journal.saved" "$NETTUNE_STATE_DIR/journal"
expect_eq "$(mtu nta0)" 1500 "nothing applied with an unsafe state dir"
# a parent that others may write is refused too (sticky /tmp is fine)
mkdir -m 0775 "$WORK/gw"
rc=0; NETTUNE_STATE_DIR="$WORK/gw/state" nt apply --yes "$WORK/p.yaml" > /dev/null 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "apply with a group-writable parent of the state dir"
grep -q "state directory $WORK/gw/state: parent $WORK/gw is group-writable (mode 0775)" "$WORK/e" || { cat "$WORK/e"; fail "parent message"; }
# a fresh state dir is made 0700
rm -rf "$NETTUNE_STATE_DIR"
nt apply --yes "$WORK/p.yaml" > /dev/null
expect_eq "$(stat -c %a "$NETTUNE_STATE_DIR")" 700 "mode of a new state dir"
expect_eq "$(stat -c %a "$NETTUNE_STATE_DIR/journal")" 700 "mode of a new journal dir"
nt rollback > /dev/null

# 6. SIGPIPE: the reader goes away first; the apply still converges, exit 0
rc=$( { nt apply --yes "$WORK/p.yaml"; echo $? > "$WORK/rc"; } | true; cat "$WORK/rc")
expect_eq "$rc" 0 "apply into a closed pipe"
expect_eq "$(mtu nta0)" 1300 "apply into a closed pipe converged"
expect_eq "$(jr state)" applied "journal of the piped apply"
nt rollback > /dev/null

# 7. a multi-port hotplug burst: 8 --only applies at once all converge
ports="nth0 nth1 nth2 nth3 nth4 nth5 nth6 nth7"
{ printf 'apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: hotplug, host: any}\ntarget: linux\ninterfaces:\n'
  for p in $ports; do printf '  - {name: %s, mtu: 1280, offloads: {gro: on}}\n' "$p"; done; } > "$WORK/h.yaml"
for p in $ports; do ip -n "$NS" link add "$p" type veth peer name "x$p"; done
for p in $ports; do nt apply --yes --only "$p" "$WORK/h.yaml" > "$WORK/h.$p" 2>&1 & done
wait
for p in $ports; do
	expect_eq "$(mtu "$p")" 1280 "mtu of $p after the concurrent burst"
	expect_eq "$(feature "$p" generic-receive-offload)" on "gro of $p after the burst"
done
expect_eq "$(jr count)" "$(ls "$NETTUNE_STATE_DIR"/journal/*.json | wc -l)" "journal count"
for p in $ports; do grep -q "Applied 2 changes" "$WORK/h.$p" || { cat "$WORK/h.$p"; fail "--only $p"; }; done
echo "ok: rollback targets, newest by time, unusable journals, state dir, SIGPIPE, hotplug burst"

# 8. review findings, each a class
# 8a. an open journal that does not load (no transitions): every command
#     warns (no crash), apply and rollback without a JOURNAL refuse
nt apply --yes "$WORK/p.yaml" > /dev/null
good=$(jr id)
python3 - "$NETTUNE_STATE_DIR/journal" "$good" <<'PY'
import json, os, sys
d, good = sys.argv[1], sys.argv[2]
j = json.load(open(os.path.join(d, good + ".json")))
j["id"] = "20000101T000000.000000000Z-1-0"
j["transitions"] = []
open(os.path.join(d, j["id"] + ".json"), "w").write(json.dumps(j))
open(os.path.join(d, j["id"] + ".open"), "w").close()
PY
nt validate "$WORK/p.yaml" 2> "$WORK/e" || fail "validate with an unusable open journal"
grep -q "journal 20000101T000000.000000000Z-1-0 is open but unusable" "$WORK/e" || { cat "$WORK/e"; fail "no warning for an unusable open journal"; }
rc=0; nt apply --yes "$WORK/h.yaml" > /dev/null 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "apply with an unusable open journal"
rc=0; nt rollback 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "rollback without JOURNAL beside an unusable one"
grep -q "cannot tell which journal is the newest; name the one to roll back" "$WORK/e" || { cat "$WORK/e"; fail "unusable journal message"; }
rm "$NETTUNE_STATE_DIR/journal/20000101T000000.000000000Z-1-0".*
nt rollback "$good" > /dev/null
# 8b. a stale marker beside a finished journal neither warns nor blocks
: > "$NETTUNE_STATE_DIR/journal/$good.open"
nt apply --yes "$WORK/p.yaml" > /dev/null 2> "$WORK/e" || { cat "$WORK/e"; fail "apply refused by a stale marker"; }
[ ! -s "$WORK/e" ] || { cat "$WORK/e"; fail "warnings for a stale marker"; }
[ ! -e "$NETTUNE_STATE_DIR/journal/$good.open" ] || fail "stale marker not swept"
# 8c. a no-op apply waits for the lock like any apply (hotplug)
flock "$NETTUNE_STATE_DIR/lock" sleep 1 &
sleep 0.3
nt apply --yes --only nta0 "$WORK/p.yaml" > "$WORK/o" 2>&1 || { cat "$WORK/o"; fail "no-op --only did not wait for the lock"; }
grep -q "Nothing to do" "$WORK/o" || fail "no-op --only output"
wait
# 8d. SIGTERM while waiting for the lock stops at once, nothing changed
nt rollback > /dev/null
flock "$NETTUNE_STATE_DIR/lock" sleep 5 &
holder=$!
sleep 0.3
"$NETTUNE" --netns "$NS" apply --yes --wait 30 "$WORK/p.yaml" > /dev/null 2> "$WORK/e" &
waiter=$!
sleep 0.5
kill -TERM "$waiter"
rc=0; wait "$waiter" || rc=$?
expect_eq "$rc" 1 "SIGTERM while waiting for the lock"
grep -q "interrupted (signal 15) while waiting for the lock; nothing was changed" "$WORK/e" || { cat "$WORK/e"; fail "lock wait signal message"; }
alive "$holder" || fail "the lock wait took the holder's full 5 s"
expect_eq "$(mtu nta0)" 1500 "nothing applied after the interrupted wait"
wait
# 8e. the confirm watcher does not hold the caller's other descriptors:
#     a pipe on fd 3 closes when the apply returns, not at the deadline
export NS WORK
rc=0; timeout 3 sh -c '("$NETTUNE" --netns "$NS" apply --yes --confirm-timeout 6 "$WORK/p.yaml" 3>&1 >/dev/null) | cat >/dev/null' || rc=$?
expect_eq "$rc" 0 "the watcher kept a caller's pipe open"
expect_eq "$(jr state)" pending-confirm "the piped confirm-timeout apply"
# 8f. --discard of a journal whose watcher is alive is refused, no revert
rc=0; nt rollback --discard "$(jr id)" 2> "$WORK/e" || rc=$?
expect_eq "$rc" 1 "discard with a live watcher"
grep -q "awaits confirmation (watcher pid" "$WORK/e" || { cat "$WORK/e"; fail "discard message"; }
expect_eq "$(mtu nta0)" 1300 "discard reverted the change"
nt confirm > /dev/null
# 8g. a PID means nothing on another boot: a journal claiming a live
#     process of this host as its watcher (other boot_id) is not signalled
sleep 30 & victim=$!
python3 - "$NETTUNE_STATE_DIR/journal" "$(jr id)" "$victim" <<'PY'
import json, os, sys
d, jid, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
p = os.path.join(d, jid + ".json")
j = json.load(open(p))
st = open("/proc/%d/stat" % pid).read()
j["pid"], j["pid_start"] = pid, int(st[st.rindex(")") + 2:].split()[19])
j["state"] = "pending-confirm"
j["host"]["boot_id"] = "00000000-0000-0000-0000-000000000000"
open(p, "w").write(json.dumps(j))
PY
nt rollback "$(jr id)" > /dev/null 2>&1 || true
alive "$victim" || fail "rollback signalled a process named by a journal of another boot"
kill "$victim"
expect_eq "$(mtu nta0)" 1500 "rollback of the foreign-boot journal restores"
# 8h. a journal a crash left empty beside its marker (the agent makes its
#     journals durable after the correction; the machine died before):
#     never written, so neither open nor unusable: history skips it, the
#     next apply removes both and goes on
#     (or its size reached the disk and its data did not: zeros)
empty=20261206T000000.000000001Z-1-0
zeros=20261206T000000.000000002Z-1-0
: > "$NETTUNE_STATE_DIR/journal/$empty.open"
: > "$NETTUNE_STATE_DIR/journal/$empty.json"
: > "$NETTUNE_STATE_DIR/journal/$zeros.open"
head -c 900 /dev/zero > "$NETTUNE_STATE_DIR/journal/$zeros.json"
nt history > "$WORK/h" 2>&1 || fail "history with an empty journal: $(cat "$WORK/h")"
grep -q "$empty\|$zeros" "$WORK/h" && fail "history lists the empty or zero journal"
ip -n "$NS" link set nta0 mtu 1500
nt apply --yes "$WORK/p.yaml" > "$WORK/o" 2>&1 || fail "apply blocked by an empty journal: $(cat "$WORK/o")"
expect_eq "$(mtu nta0)" 1300 "apply beside an empty journal"
for id in "$empty" "$zeros"; do
	[ ! -e "$NETTUNE_STATE_DIR/journal/$id.open" ] || fail "the marker of $id stayed"
	[ ! -e "$NETTUNE_STATE_DIR/journal/$id.json" ] || fail "the never-written journal $id stayed"
done
echo "ok: unusable, stale and empty journals, no-op lock wait, signal during the wait, watcher fds, discard, foreign boot"
