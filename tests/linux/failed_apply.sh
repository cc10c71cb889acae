#!/bin/sh
# A failed apply is not a rollback: its journal ends "failed" with the
# apply's first error, which show, history and history --json print; a bare
# rollback skips it (and says which journal it took) to reach the last good
# apply; rollback --help points to history.  A journal written before
# errors were recorded still loads; a malformed error is refused, located.
. "$(dirname "$0")/lib.sh"
veth_pair nfa0 nfb0
nsx ethtool -K nfa0 gro on
cat > "$WORK/good.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-good, host: any}
target: linux
interfaces:
  - {name: nfa0, mtu: 4000}
YAML
# SG off drops TSO: accepted but not effective, so the apply rolls back
cat > "$WORK/bad.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-bad, host: any}
target: linux
interfaces:
  - name: nfa0
    mtu: 2000
    offloads: {gro: off, tso: on}
    linux: {features: {tx-scatter-gather: off}}
YAML
nt apply --yes "$WORK/good.yaml" > /dev/null
good=$(jr id)
rc=0; nt apply --yes "$WORK/bad.yaml" > /dev/null 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "failed apply"
bad=$(jr id)
expect_eq "$(jr state)" failed "journal of the failed apply"
jr error | grep -q "^nfa0 feature tx-tcp-segmentation: accepted but not effective: after the changes it reads off instead of on" ||
	{ jr error; fail "error not recorded"; }
expect_eq "$(jr state 1)" applied "the good apply"
expect_eq "$(mtu nfa0)" 4000 "mtu after the failed apply"

# show and history say why it failed
nt show "$bad" > "$WORK/show"
grep -q "^  state    failed$" "$WORK/show" || { cat "$WORK/show"; fail "show state"; }
grep -q "^  error    nfa0 feature tx-tcp-segmentation: accepted but not effective" "$WORK/show" ||
	{ cat "$WORK/show"; fail "show lacks the error"; }
nt history > "$WORK/h.txt"
grep -q "  failed  " "$WORK/h.txt" || { cat "$WORK/h.txt"; fail "history state"; }
grep -q "^ *error: nfa0 feature tx-tcp-segmentation" "$WORK/h.txt" || { cat "$WORK/h.txt"; fail "history error"; }
nt history --json > "$WORK/h.json"
python3 - "$WORK/h.json" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
assert [j["state"] for j in h] == ["failed", "applied"], h
assert h[0]["error"].startswith("nfa0 feature tx-tcp-segmentation: accepted but not effective"), h
assert h[1]["error"] is None and h[1]["target_gone"] is None, h
PY

# a bare rollback skips the failed apply, says so, and restores the good one
rc=0; nt rollback "$bad" 2> "$WORK/err" > /dev/null || rc=$?
expect_eq "$rc" 1 "rollback of the failed apply"
grep -q "journal $bad is a failed apply, already rolled back at .*: nfa0 feature" "$WORK/err" ||
	{ cat "$WORK/err"; fail "refusal of the failed journal"; }
nt rollback > "$WORK/out" 2> "$WORK/err" || { cat "$WORK/err"; fail "bare rollback"; }
grep -q "The newest journal that can be rolled back is $good (applied, [0-9-]* [0-9:]* [+-][0-9]*; 1 newer skipped" "$WORK/out" ||
	{ cat "$WORK/out"; fail "bare rollback does not say which journal it took"; }
expect_eq "$(mtu nfa0)" 1500 "mtu after the bare rollback"
expect_eq "$(jr state 1)" rolled-back "the good apply after the operator's rollback"
rc=0; nt rollback 2> "$WORK/err" > /dev/null || rc=$?
expect_eq "$rc" 1 "rollback with nothing left"
grep -q "no journal in .* can be rolled back" "$WORK/err" || { cat "$WORK/err"; fail "nothing-left message"; }

"$NETTUNE" rollback --help > "$WORK/help"
grep -q "nettune history" "$WORK/help" || fail "rollback --help does not point to history"
grep -q 'ls \$NETTUNE_STATE_DIR' "$WORK/help" && fail "rollback --help still points to ls"
grep -q "failed" "$WORK/help" || fail "rollback --help lacks the failed state"
"$NETTUNE" history --help | grep -q "failed" || fail "history --help lacks the failed state"

# an old journal without "error" loads; a malformed one is refused, located
python3 - "$NETTUNE_STATE_DIR/journal" "$good" "$bad" <<'PY'
import json, os, sys
d, good, bad = sys.argv[1:]
p = os.path.join(d, good + ".json")
j = json.load(open(p)); del j["error"]; json.dump(j, open(p, "w"))
p = os.path.join(d, bad + ".json")
j = json.load(open(p)); j["error"] = 7; json.dump(j, open(p, "w"))
PY
nt show "$good" > /dev/null || fail "a journal without error does not load"
rc=0; nt show "$bad" 2> "$WORK/err" > /dev/null || rc=$?
expect_eq "$rc" 1 "show of a journal with a malformed error"
grep -q "error: \"error\" must be a string" "$WORK/err" || { cat "$WORK/err"; fail "malformed error message"; }
echo "ok: failed state, error in show/history, bare rollback skips failed applies"
