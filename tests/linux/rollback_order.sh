#!/bin/sh
# Rollbacks go newest first: a journal under a newer one that changed the
# same setting is refused, naming it (apply A 1500 -> 9000, apply B 9000 ->
# 8000, rollback A would leave 9000 once B is rolled back); a value changed
# by hand since the apply is not overwritten without --force.  Neither
# holds back what restores its own fresh changes: the confirm watcher's
# revert, or the resume of an interrupted rollback (some values back to
# before, the rest still as applied).
. "$(dirname "$0")/lib.sh"
veth_pair noa0 nob0
prof() {
	cat > "$WORK/$1.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-order, host: any}
target: linux
interfaces:
  - {name: noa0, mtu: $2${3-}}
YAML
}
prof a 9000
prof b 8000
prof c 4000 ", offloads: {gro: on}"
nt apply --yes "$WORK/a.yaml" > /dev/null
a=$(jr id)
nt apply --yes "$WORK/b.yaml" > /dev/null
b=$(jr id)
expect_eq "$(mtu noa0)" 8000 "after B"

# 1. rollback A under B: refused, naming B; nothing changed
rc=0; nt rollback "$a" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "rollback of A under B"
grep -q "journal $b (applied, [0-9-]* [0-9:]* [+-][0-9]*) is newer than $a and changed the same settings: noa0 mtu" "$WORK/err" ||
	{ cat "$WORK/err"; fail "refusal does not name the newer journal and the setting"; }
grep -q "nothing was changed" "$WORK/err" || fail "refusal does not say nothing was changed"
expect_eq "$(mtu noa0)" 8000 "mtu after the refused rollback"
expect_eq "$(jr state 1)" applied "A after the refused rollback"
# newest first: B, then A, ends at the original value
nt rollback > "$WORK/out" || fail "rollback of B"
grep -q "Rolling back $b" "$WORK/out" || { cat "$WORK/out"; fail "bare rollback did not take B"; }
expect_eq "$(mtu noa0)" 9000 "after rolling back B"
nt rollback > "$WORK/out" 2> "$WORK/err" || { cat "$WORK/err"; fail "rollback of A after B"; }
grep -q "Rolling back $a" "$WORK/out" || { cat "$WORK/out"; fail "bare rollback did not take A"; }
expect_eq "$(mtu noa0)" 1500 "after rolling back A"

# 2. --force rolls back out of order
nt apply --yes "$WORK/a.yaml" > /dev/null
a=$(jr id)
nt apply --yes "$WORK/b.yaml" > /dev/null
b=$(jr id)
nt rollback --force "$a" > /dev/null || fail "rollback --force A under B"
expect_eq "$(mtu noa0)" 1500 "after --force"
# which leaves B's value changed since B: its rollback is refused in turn
rc=0; nt rollback 2> "$WORK/err" > /dev/null || rc=$?
expect_eq "$rc" 1 "rollback of B after A was forced under it"
grep -q "^  noa0 mtu: applied 8000, reads 1500$" "$WORK/err" || { cat "$WORK/err"; fail "B not refused"; }
nt rollback --force "$b" > /dev/null || fail "rollback --force B"
ip -n "$NS" link set noa0 mtu 1500

# 3. changed by hand since the apply: refused with the setting, then --force
mtu0=$(mtu noa0)
nt apply --yes "$WORK/a.yaml" > /dev/null
ip -n "$NS" link set noa0 mtu 7000
rc=0; nt rollback > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "rollback of a value changed by hand"
grep -q "1 setting of journal $(jr id) changed since the apply" "$WORK/err" || { cat "$WORK/err"; fail "no 'changed since'"; }
grep -q "^  noa0 mtu: applied 9000, reads 7000$" "$WORK/err" || { cat "$WORK/err"; fail "the changed setting is not shown"; }
expect_eq "$(mtu noa0)" 7000 "hand-set value after the refusal"
expect_eq "$(jr state)" applied "journal after the refusal"
nt rollback --force > /dev/null || fail "rollback --force of a value changed by hand"
expect_eq "$(mtu noa0)" "$mtu0" "after rollback --force"
expect_eq "$(jr state)" rolled-back "journal after rollback --force"

# 4. a value already back to its previous one is fine
nt apply --yes "$WORK/c.yaml" > /dev/null
ip -n "$NS" link set noa0 mtu 1500
nt rollback > /dev/null 2> "$WORK/err" || { cat "$WORK/err"; fail "rollback with a value back to before"; }
expect_eq "$(feature noa0 generic-receive-offload)" off "gro after the rollback"

# 5. the resume of an interrupted rollback (mtu restored, gro still on)
nt apply --yes "$WORK/c.yaml" > /dev/null
ip -n "$NS" link set noa0 mtu 1500
python3 - "$NETTUNE_STATE_DIR/journal" "$(jr id)" <<'PY'
import json, os, sys, time
d, i = sys.argv[1], sys.argv[2]
p = os.path.join(d, i + ".json")
j = json.load(open(p))
j["state"] = "rolling-back"
j["transitions"].append({"state": "rolling-back", "at": "x", "at_ns": time.time_ns(), "pid": 999999})
j["pid"] = 999999
json.dump(j, open(p, "w"))
open(os.path.join(d, i + ".open"), "w").close()
PY
nt rollback > "$WORK/out" 2> "$WORK/err" || { cat "$WORK/err"; fail "resume of an interrupted rollback"; }
grep -q "Finishing the interrupted rollback" "$WORK/out" || { cat "$WORK/out"; fail "not a resume"; }
expect_eq "$(feature noa0 generic-receive-offload)" off "gro after the resume"
expect_eq "$(jr state)" rolled-back "journal after the resume"

# 6. the confirm watcher reverts its own change even when changed by hand
nt apply --yes --confirm-timeout 4 "$WORK/a.yaml" > /dev/null
ip -n "$NS" link set noa0 mtu 7000
jr wait reverted-unconfirmed 15 || fail "the watcher did not revert"
expect_eq "$(mtu noa0)" 1500 "after the watcher's revert"
echo "ok: rollback order, changed since, --force, resume and watcher not held back"
