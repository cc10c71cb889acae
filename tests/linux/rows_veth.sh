#!/bin/sh
# The tunables added as kind rows, on veth: txqueuelen (rtnetlink
# IFLA_TXQLEN), offloads.udp_gro_forwarding and offloads.gro_list (ethtool
# features) are applied and read back with ip -d link and ethtool -k; the
# emitted sh script does the same and is idempotent; observe --json records
# them; pause and private flags, which veth lacks, make apply fail with the
# kernel's reason and roll the other changes back; rx-flow-hash on veth is
# refused at plan time (the veth table has no RSS).
. "$(dirname "$0")/lib.sh"
veth_pair nra0 nrb0
veth_pair nra1 nrb1
qlen() { ip -n "$NS" -d -o link show "$1" | sed -n 's/.* qlen \([0-9]*\).*/\1/p'; }
expect_eq "$(qlen nra0)" 1000 "nra0 txqueuelen before"
expect_eq "$(feature nra0 rx-udp-gro-forwarding)" off "nra0 rx-udp-gro-forwarding before"
expect_eq "$(feature nra0 rx-gro-list)" off "nra0 rx-gro-list before"
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: rows-test, host: any}
target: linux
interfaces:
  - name: nra0
    nic: veth
    txqueuelen: 2500
    offloads: {udp_gro_forwarding: on, gro_list: on}
YAML
rc=0; nt plan "$WORK/p.yaml" > "$WORK/plan.txt" || rc=$?
expect_eq "$rc" 2 "plan exit code"
grep -Eq "txqueuelen +1000 -> 2500" "$WORK/plan.txt" || { cat "$WORK/plan.txt"; fail "plan txqueuelen line"; }
grep -Eq "feature rx-udp-gro-forwarding +off -> on" "$WORK/plan.txt" || fail "plan udp_gro_forwarding line"
rc=0; nt apply --yes "$WORK/p.yaml" > "$WORK/apply.txt" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/apply.txt"; fail "apply exit $rc"; }
expect_eq "$(qlen nra0)" 2500 "nra0 txqueuelen (ip -d link)"
expect_eq "$(feature nra0 rx-udp-gro-forwarding)" on "nra0 rx-udp-gro-forwarding (ethtool -k)"
expect_eq "$(feature nra0 rx-gro-list)" on "nra0 rx-gro-list (ethtool -k)"
rc=0; nt plan "$WORK/p.yaml" > "$WORK/plan2.txt" || rc=$?
expect_eq "$rc" 0 "plan exit code when converged"
# the snapshot records the observed values
nt observe --json > "$WORK/snap.json"
python3 - "$WORK/snap.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = {(s["object"], s["attribute"]): s["value"] for s in d["settings"]}
assert got[("nra0", "txqueuelen")] == 2500, got.get(("nra0", "txqueuelen"))
assert got[("nra1", "txqueuelen")] == 1000, got.get(("nra1", "txqueuelen"))
assert got[("nra0", "feature rx-udp-gro-forwarding")] is True
assert got[("nra0", "feature rx-gro-list")] is True
# veth has no pause, private flags or flow hash: nothing is invented
assert not [k for k in got if k[1].split()[0] in ("pause", "private-flag", "rx-flow-hash")], got
PY
# rollback restores the values before the apply
nt rollback > "$WORK/rb.txt" 2>&1 || { cat "$WORK/rb.txt"; fail "rollback"; }
expect_eq "$(qlen nra0)" 1000 "nra0 txqueuelen after rollback"
expect_eq "$(feature nra0 rx-udp-gro-forwarding)" off "nra0 rx-udp-gro-forwarding after rollback"
expect_eq "$(feature nra0 rx-gro-list)" off "nra0 rx-gro-list after rollback"

# the emitted sh script: converges, then prints only "ok", checked with ip and ethtool
"$NETTUNE" emit --format sh "$WORK/p.yaml" -o "$WORK/p.sh"
NETTUNE_STATE_DIR="$WORK/shstate" nsx sh "$WORK/p.sh" > "$WORK/sh1.txt" 2>&1 || { cat "$WORK/sh1.txt"; fail "emitted script"; }
grep -q "changed  nra0 txqueuelen: 1000 -> 2500" "$WORK/sh1.txt" || { cat "$WORK/sh1.txt"; fail "script txqueuelen line"; }
expect_eq "$(qlen nra0)" 2500 "nra0 txqueuelen after the script"
expect_eq "$(feature nra0 rx-udp-gro-forwarding)" on "rx-udp-gro-forwarding after the script"
expect_eq "$(feature nra0 rx-gro-list)" on "rx-gro-list after the script"
NETTUNE_STATE_DIR="$WORK/shstate" nsx sh "$WORK/p.sh" > "$WORK/sh2.txt" 2>&1 || { cat "$WORK/sh2.txt"; fail "script second run"; }
expect_eq "$(grep -c '^ok ' "$WORK/sh2.txt")" 3 "second run: ok lines"
grep -q "^changed\|^FAILED" "$WORK/sh2.txt" && fail "second run changed something"
grep -q "nettune: 0 changed" "$WORK/sh2.txt" || fail "second run summary"
NETTUNE_STATE_DIR="$WORK/shstate" nsx sh "$WORK/p.sh" rollback > "$WORK/sh3.txt" 2>&1 || { cat "$WORK/sh3.txt"; fail "script rollback"; }
expect_eq "$(qlen nra0)" 1000 "nra0 txqueuelen after the script's rollback"
expect_eq "$(feature nra0 rx-gro-list)" off "rx-gro-list after the script's rollback"

# pause and private flags: veth has neither; apply fails with the kernel's
# reason and rolls back the txqueuelen it had already changed
for what in "pause: {rx: on}" "linux: {private_flags: {legacy-rx: on}}"; do
	cat > "$WORK/q.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: rows-test, host: any}
target: linux
interfaces:
  - name: nra1
    txqueuelen: 4000
    $what
YAML
	before=$(full_state nra1)
	rc=0; nt plan "$WORK/q.yaml" > "$WORK/qplan.txt" 2>&1 || rc=$?
	expect_eq "$rc" 2 "plan of '$what'"
	grep -q "(not observed) -> on" "$WORK/qplan.txt" || { cat "$WORK/qplan.txt"; fail "plan of '$what'"; }
	rc=0; nt apply --yes "$WORK/q.yaml" > "$WORK/qapply.txt" 2>&1 || rc=$?
	[ "$rc" -ne 0 ] || { cat "$WORK/qapply.txt"; fail "apply of '$what' succeeded on veth"; }
	grep -q "Operation not supported" "$WORK/qapply.txt" || { cat "$WORK/qapply.txt"; fail "no kernel reason for '$what'"; }
	grep -q "Rolled back: the host is as before." "$WORK/qapply.txt" || { cat "$WORK/qapply.txt"; fail "no rollback for '$what'"; }
	expect_eq "$(qlen nra1)" 1000 "nra1 txqueuelen after the failed apply of '$what'"
	after=$(full_state nra1)
	[ "$before" = "$after" ] || fail "state of nra1 differs after the failed apply of '$what'"
done

# a hostile private flag name is refused, located, before any script exists
mkdir "$WORK/cwd"
cat > "$WORK/h.yaml" <<'YAML'
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: rows-test, host: any}
target: linux
interfaces:
  - name: nra1
    linux: {private_flags: {"$(touch${IFS}C1)`touch${IFS}C2`": on}}
YAML
rc=0; (cd "$WORK/cwd" && "$NETTUNE" emit --format sh "$WORK/h.yaml" -o "$WORK/h.sh") > "$WORK/h.txt" 2>&1 || rc=$?
expect_eq "$rc" 1 "emit of a hostile private flag name"
grep -q "h.yaml:7:29: error: private flag" "$WORK/h.txt" || { cat "$WORK/h.txt"; fail "hostile name: no located error"; }
[ ! -e "$WORK/h.sh" ] || fail "a script was written for a hostile private flag name"
[ ! -e "$WORK/cwd/C1" ] && [ ! -e "$WORK/cwd/C2" ] || fail "a private flag name ran as a command"

# rx-flow-hash: the veth table has no RSS, so plan refuses it, located
cat > "$WORK/r.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: rows-test, host: any}
target: linux
interfaces:
  - name: nra1
    rss: {flow_hash: {udp4: [src-ip, dst-ip, src-port, dst-port]}}
YAML
rc=0; nt apply --yes "$WORK/r.yaml" > "$WORK/rapply.txt" 2>&1 || rc=$?
expect_eq "$rc" 1 "apply of rx-flow-hash on veth"
grep -q "r.yaml:7:5: error: veth (veth) has no RSS" "$WORK/rapply.txt" || { cat "$WORK/rapply.txt"; fail "flow hash refusal"; }
echo "ok: txqueuelen, udp_gro_forwarding, gro_list applied, emitted and rolled back; pause and private flags refused by veth and rolled back"
