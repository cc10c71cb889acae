#!/bin/sh
# The six tunables of the kind rows end to end, written from the issue text
# rather than from the code: offloads.udp_gro_forwarding, offloads.gro_list
# and txqueuelen on veth (plan with from/to, apply read back with ethtool -k
# and ip -d link, apply twice, re-plan, rollback, the emitted sh script run
# twice and rolled back, observe --profile round trip); pause,
# linux.private_flags and rss.flow_hash, which veth lacks (apply fails with
# the kernel's reason and changes nothing; plans against a snapshot that
# records them; a snapshot with hostile values for them is refused with a
# location; the emitted script converges them against an ethtool stand-in);
# hostile private flag names never reach a script.
. "$(dirname "$0")/lib.sh"
A=te$$a; B=te$$b; C=te$$c; D=te$$d
veth_pair "$A" "$B"
veth_pair "$C" "$D"
qlen() { ip -n "$NS" -d -o link show "$1" | sed -n 's/.* qlen \([0-9]*\).*/\1/p'; }
show() { cat "$1" >&2; }

cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: e2e, host: any}
target: linux
interfaces:
  - name: $A
    txqueuelen: 3333
    offloads:
      udp_gro_forwarding: on
      gro_list: on
  - name: $C
    txqueuelen: 1
YAML
"$NETTUNE" validate "$WORK/p.yaml" > /dev/null 2>&1 || fail "profile does not validate"
before=$(full_state "$A" "$C")

# plan: every change with its from and to, located in the profile
rc=0; nt plan "$WORK/p.yaml" > "$WORK/plan" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { show "$WORK/plan"; fail "plan exit $rc, expected 2"; }
grep -Eq "^ +[0-9]+  txqueuelen +1000 -> 3333  .*p\.yaml:7:17$" "$WORK/plan" || { show "$WORK/plan"; fail "plan: txqueuelen of $A"; }
grep -Eq "feature rx-udp-gro-forwarding +off -> on  .*p\.yaml:9:27$" "$WORK/plan" || { show "$WORK/plan"; fail "plan: rx-udp-gro-forwarding"; }
grep -Eq "feature rx-gro-list +off -> on  .*p\.yaml:10:17$" "$WORK/plan" || { show "$WORK/plan"; fail "plan: rx-gro-list"; }
grep -Eq "txqueuelen +1000 -> 1  .*p\.yaml:12:17$" "$WORK/plan" || { show "$WORK/plan"; fail "plan: txqueuelen of $C"; }
grep -q "disruptive\]" "$WORK/plan" && { show "$WORK/plan"; fail "plan marks one of the three disruptive"; }
grep -q "Plan: 4 changes, 0 disruptive." "$WORK/plan" || { show "$WORK/plan"; fail "plan size"; }
nt plan --json "$WORK/p.yaml" > "$WORK/plan.json" || [ $? -eq 2 ] || fail "plan --json"
python3 - "$WORK/plan.json" "$A" <<'PY'
import json, sys
acts = {(a["object"], a["attribute"]): (a["from"], a["to"]) for a in json.load(open(sys.argv[1]))["actions"]}
a = sys.argv[2]
assert acts[(a, "txqueuelen")] == (1000, 3333), acts
assert acts[(a, "feature rx-udp-gro-forwarding")] == (False, True), acts
assert acts[(a, "feature rx-gro-list")] == (False, True), acts
PY
[ "$(full_state "$A" "$C")" = "$before" ] || fail "plan changed the host"

# apply, read back with the kernel's own tools
rc=0; nt apply --yes "$WORK/p.yaml" > "$WORK/apply" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { show "$WORK/apply"; fail "apply exit $rc"; }
expect_eq "$(qlen "$A")" 3333 "$A qlen (ip -d link)"
expect_eq "$(qlen "$C")" 1 "$C qlen (ip -d link)"
expect_eq "$(feature "$A" rx-udp-gro-forwarding)" on "$A rx-udp-gro-forwarding (ethtool -k)"
expect_eq "$(feature "$A" rx-gro-list)" on "$A rx-gro-list (ethtool -k)"
expect_eq "$(feature "$C" rx-gro-list)" off "$C rx-gro-list untouched"
expect_eq "$(qlen "$B")" 1000 "peer $B untouched"
converged=$(full_state "$A" "$C")
journals=$(ls "$NETTUNE_STATE_DIR/journal" | wc -l)

# idempotent: a second apply writes nothing and journals nothing new
rc=0; nt apply --yes "$WORK/p.yaml" > "$WORK/apply2" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { show "$WORK/apply2"; fail "second apply exit $rc"; }
[ "$(full_state "$A" "$C")" = "$converged" ] || fail "second apply changed the host"
expect_eq "$(ls "$NETTUNE_STATE_DIR/journal" | wc -l)" "$journals" "journals after the no-op apply"
rc=0; nt plan "$WORK/p.yaml" > "$WORK/plan2" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { show "$WORK/plan2"; fail "re-plan exit $rc, expected 0"; }
grep -q -- "->" "$WORK/plan2" && { show "$WORK/plan2"; fail "re-plan shows a change"; }

# the live snapshot records them and plans nothing; observe --profile
# describes them and plans nothing either
nt observe --json > "$WORK/snap.json"
rc=0; "$NETTUNE" plan "$WORK/p.yaml" --state "$WORK/snap.json" > "$WORK/plan3" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { show "$WORK/plan3"; fail "plan against the converged snapshot exit $rc"; }
nt observe --profile "$A" "$C" > "$WORK/obs.yaml" || fail "observe --profile"
"$NETTUNE" validate "$WORK/obs.yaml" > /dev/null 2>&1 || { show "$WORK/obs.yaml"; fail "observe --profile does not validate"; }
python3 - "$WORK/obs.yaml" "$A" "$C" <<'PY'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
f = {i["name"]: i for i in d["interfaces"]}
a, c = f[sys.argv[2]], f[sys.argv[3]]
assert a.get("txqueuelen") == 3333, a
assert c.get("txqueuelen") == 1, c
assert a["offloads"].get("udp_gro_forwarding") is True, a["offloads"]
assert a["offloads"].get("gro_list") is True, a["offloads"]
assert "pause" not in a and "private_flags" not in a.get("linux", {}), a
PY
rc=0; nt plan "$WORK/obs.yaml" > "$WORK/plan4" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { show "$WORK/plan4"; fail "plan of observe --profile exit $rc"; }

# rollback restores every value, read back
nt rollback > "$WORK/rb" 2>&1 || { show "$WORK/rb"; fail "rollback"; }
[ "$(full_state "$A" "$C")" = "$before" ] || fail "rollback did not restore the state"
expect_eq "$(qlen "$A")" 1000 "$A qlen after rollback"
expect_eq "$(feature "$A" rx-udp-gro-forwarding)" off "$A rx-udp-gro-forwarding after rollback"

# pause, private flags, flow hash: veth has none; apply fails with the
# kernel's reason (or plan refuses), and whatever else it changed is undone
for what in "pause: {autoneg: off, rx: off, tx: off}" "linux: {private_flags: {legacy-rx: on}}" \
	"rss: {flow_hash: {udp4: [src-ip, dst-ip, src-port, dst-port]}}"; do
	cat > "$WORK/q.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: e2e, host: any}
target: linux
interfaces:
  - name: $A
    txqueuelen: 777
    offloads: {udp_gro_forwarding: on, gro_list: on}
    $what
YAML
	rc=0; nt apply --yes "$WORK/q.yaml" > "$WORK/qa" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] || { show "$WORK/qa"; fail "apply of '$what' on veth: exit $rc, expected 1"; }
	case $what in
	rss*) grep -q "q.yaml:9:5: error: veth (veth) has no RSS" "$WORK/qa" || { show "$WORK/qa"; fail "flow hash refusal not located"; } ;;
	*) grep -q "Operation not supported" "$WORK/qa" || { show "$WORK/qa"; fail "no kernel reason for '$what'"; }
	   grep -q "Rolled back: the host is as before." "$WORK/qa" || { show "$WORK/qa"; fail "no rollback for '$what'"; } ;;
	esac
	[ "$(full_state "$A" "$C")" = "$before" ] || fail "'$what' left a change behind"
done

# a snapshot that records pause, private flags and flow hash plans them
python3 - "$WORK/snap.json" "$WORK/rec.json" "$A" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a = sys.argv[3]
d["settings"] += [{"object": a, "attribute": "pause autoneg", "value": True},
                  {"object": a, "attribute": "pause rx", "value": True},
                  {"object": a, "attribute": "pause tx", "value": False},
                  {"object": a, "attribute": "private-flag legacy-rx", "value": False},
                  {"object": a, "attribute": "private-flag other-flag", "value": True}]
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
cat > "$WORK/r.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: e2e, host: any}
target: linux
interfaces:
  - name: $A
    pause: {autoneg: on, rx: off, tx: off}
    linux: {private_flags: {legacy-rx: on, other-flag: on}}
YAML
rc=0; "$NETTUNE" plan --json "$WORK/r.yaml" --state "$WORK/rec.json" > "$WORK/rplan.json" 2> "$WORK/rplan.err" || rc=$?
[ "$rc" -eq 2 ] || { show "$WORK/rplan.err"; fail "plan against the recording snapshot exit $rc"; }
python3 - "$WORK/rplan.json" <<'PY'
import json, sys
acts = {(a["attribute"], json.dumps(a["from"]), json.dumps(a["to"]), a["disruptive"])
        for a in json.load(open(sys.argv[1]))["actions"]}
want = {("pause rx", "true", "false", True), ("private-flag legacy-rx", "false", "true", True)}
assert acts == want, acts ^ want
PY
# a private flag the snapshot's device does not report is a located error
sed 's/other-flag: on/no-such-flag: on/' "$WORK/r.yaml" > "$WORK/r2.yaml"
rc=0; "$NETTUNE" plan "$WORK/r2.yaml" --state "$WORK/rec.json" > /dev/null 2> "$WORK/r2.err" || rc=$?
expect_eq "$rc" 1 "plan of an unreported private flag"
grep -q "r2.yaml:8:.*no-such-flag" "$WORK/r2.err" || { show "$WORK/r2.err"; fail "unreported private flag: no located error"; }

# hostile values in a snapshot are refused with their location
for bad in 'pause rx|"yes"' 'pause rx|null' 'pause rxx|true' 'private-flag legacy-rx|1' \
	'private-flag a$(touch${IFS}pwned)|true' 'private-flag a b|true' \
	'rx-flow-hash udp4|5' 'rx-flow-hash udp4|""' 'rx-flow-hash udp4|"src-ip $(reboot)"' \
	'rx-flow-hash udp9|"src-ip"' 'txqueuelen|-1' 'txqueuelen|4294967296' 'txqueuelen|"1000"' \
	'feature rx-gro-list|"on"'; do
	attr=${bad%%|*}; val=${bad#*|}
	python3 - "$WORK/snap.json" "$WORK/h.json" "$A" "$attr" "$val" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["settings"] = [s for s in d["settings"] if not (s["object"] == sys.argv[3] and s["attribute"] == sys.argv[4])]
d["settings"].append({"object": sys.argv[3], "attribute": sys.argv[4], "value": json.loads(sys.argv[5])})
json.dump(d, open(sys.argv[2], "w"), indent=1)
PY
	rc=0; (cd "$WORK" && "$NETTUNE" plan "$WORK/p.yaml" --state h.json) > "$WORK/h.out" 2> "$WORK/h.err" || rc=$?
	expect_eq "$rc" 1 "plan against a snapshot with $attr = $val"
	grep -Eq "^h\.json:[0-9]+:[0-9]+: error: " "$WORK/h.err" || { show "$WORK/h.err"; fail "snapshot with $attr = $val: no located error"; }
	[ ! -e "$WORK/pwned" ] || fail "a snapshot value ran as a command"
done

# the emitted sh script: the six tunables in one script, shellcheck-clean;
# on veth the first three converge, a second run changes nothing, rollback
# restores
"$NETTUNE" emit --format sh "$SRCROOT/examples/x710-udp-gateway.yaml" -o "$WORK/x.sh" || fail "emit of the x710 gateway"
for w in "txqueuelen" "rx-udp-gro-forwarding" "rx-gro-list" "-A" "rx-flow-hash" "priv-flags"; do
	grep -q -- "$w" "$WORK/x.sh" || fail "emitted script lacks $w"
done
command -v shellcheck > /dev/null || fail "shellcheck missing (scripts/deps.sh test installs it)"
shellcheck -s sh "$WORK/x.sh" || fail "x710 script is not shellcheck-clean"
"$NETTUNE" emit --format sh "$WORK/p.yaml" -o "$WORK/p.sh" || fail "emit"
shellcheck -s sh "$WORK/p.sh" || fail "veth script is not shellcheck-clean"
rc=0; NETTUNE_STATE_DIR="$WORK/sh" nsx sh "$WORK/p.sh" > "$WORK/s1" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { show "$WORK/s1"; fail "script exit $rc"; }
expect_eq "$(qlen "$A")" 3333 "$A qlen after the script"
expect_eq "$(qlen "$C")" 1 "$C qlen after the script"
expect_eq "$(feature "$A" rx-udp-gro-forwarding)" on "rx-udp-gro-forwarding after the script"
expect_eq "$(feature "$A" rx-gro-list)" on "rx-gro-list after the script"
expect_eq "$(grep -c '^changed ' "$WORK/s1")" 4 "script: changed lines"
[ "$(full_state "$A" "$C")" = "$converged" ] || fail "script and apply converge differently"
rc=0; NETTUNE_STATE_DIR="$WORK/sh" nsx sh "$WORK/p.sh" > "$WORK/s2" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { show "$WORK/s2"; fail "second script run exit $rc"; }
grep -q "^changed\|^FAILED" "$WORK/s2" && { show "$WORK/s2"; fail "second script run changed something"; }
expect_eq "$(grep -c '^ok ' "$WORK/s2")" 4 "second script run: ok lines"
rc=0; nt plan "$WORK/p.yaml" > /dev/null 2>&1 || rc=$?
expect_eq "$rc" 0 "plan after the script"
NETTUNE_STATE_DIR="$WORK/sh" nsx sh "$WORK/p.sh" rollback > "$WORK/s3" 2>&1 || { show "$WORK/s3"; fail "script rollback"; }
[ "$(full_state "$A" "$C")" = "$before" ] || fail "script rollback did not restore the state"

# hostile private flag names: refused before any script exists, located
mkdir "$WORK/cwd"
for name in 'a$(touch pwned)' 'a$(touch${IFS}pwned)' 'a`touch${IFS}pwned`' "a'b" 'a"b' 'a;touch${IFS}pwned' \
	'a b' 'a/b' "$(printf 'a\tb')" "$(printf 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx')"; do
	n=$(printf '%s' "$name" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
	cat > "$WORK/cwd/h.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: e2e, host: any}
target: linux
interfaces:
  - name: $A
    linux:
      private_flags:
        $n: on
YAML
	rm -f "$WORK/cwd/h.sh"
	rc=0; (cd "$WORK/cwd" && "$NETTUNE" emit --format sh h.yaml -o h.sh) > "$WORK/he" 2>&1 || rc=$?
	expect_eq "$rc" 1 "emit with private flag $n"
	grep -q "^h.yaml:9:9: error: private flag" "$WORK/he" || { show "$WORK/he"; fail "private flag $n: no located error"; }
	[ ! -e "$WORK/cwd/h.sh" ] || fail "a script was written for private flag $n"
	rc=0; (cd "$WORK/cwd" && nt apply --yes h.yaml) > "$WORK/ha" 2>&1 || rc=$?
	expect_eq "$rc" 1 "apply with private flag $n"
	grep -q "^h.yaml:9:9: error: private flag" "$WORK/ha" || { show "$WORK/ha"; fail "apply, private flag $n: no located error"; }
	[ ! -e "$WORK/cwd/pwned" ] || fail "private flag $n ran as a command"
done
[ "$(full_state "$A" "$C")" = "$before" ] || fail "the refused profiles changed the host"
# pause, private flags and flow hash through the emitted script's own
# get/put functions, against an ethtool stand-in that prints what ethtool(8)
# prints (dump_rxfhash/unparse_rxfhashopts, -a, --show-priv-flags) and
# keeps the values in files: the script converges, then changes nothing
ip -n "$NS" link add enp1s0f0 type veth peer name "te$$x"
mkdir -p "$WORK/fake/bin" "$WORK/fake/st"
printf 'on\n' > "$WORK/fake/st/autoneg"; printf 'on\n' > "$WORK/fake/st/rx"; printf 'on\n' > "$WORK/fake/st/tx"
printf 'off\n' > "$WORK/fake/st/disable-fw-lldp"; printf 'off\n' > "$WORK/fake/st/legacy-rx"
printf 'sd\n' > "$WORK/fake/st/udp4"
cat > "$WORK/fake/bin/ethtool" <<FAKE
#!/bin/sh
S="$WORK/fake/st"
echo "\$*" >> "\$S/log"
case "\$1" in
-a) printf 'Pause parameters for %s:\nAutonegotiate:\t%s\nRX:\t\t%s\nTX:\t\t%s\nRX negotiated: off\nTX negotiated: off\n\n' "\$2" "\$(cat "\$S/autoneg")" "\$(cat "\$S/rx")" "\$(cat "\$S/tx")" ;;
-A) shift 1; shift 1; while [ \$# -ge 2 ]; do echo "\$2" > "\$S/\$1"; shift 2; done ;;
--show-priv-flags) printf 'Private flags for %s:\n' "\$2"; for f in legacy-rx disable-fw-lldp; do printf '%-22s: %s\n' "\$f" "\$(cat "\$S/\$f")"; done ;;
--set-priv-flags) [ -e "\$S/\$3" ] || { echo "netlink error: Invalid argument" >&2; exit 1; }; echo "\$4" > "\$S/\$3" ;;
-n) [ "\$3" = rx-flow-hash ] && [ "\$4" = udp4 ] || exit 1
    echo "UDP over IPV4 flows use these fields for computing Hash flow key:"
    v=\$(cat "\$S/\$4"); [ -n "\$v" ] || { echo None; exit 0; }
    case \$v in *s*) echo "IP SA" ;; esac; case \$v in *d*) echo "IP DA" ;; esac
    case \$v in *f*) echo "L4 bytes 0 & 1 [TCP/UDP src port]" ;; esac
    case \$v in *n*) echo "L4 bytes 2 & 3 [TCP/UDP dst port]" ;; esac; echo ;;
-N) echo "\$5" > "\$S/\$4" ;;
*) exec "$(command -v ethtool)" "\$@" ;;
esac
FAKE
chmod +x "$WORK/fake/bin/ethtool"
cat > "$WORK/f.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: e2e, host: any}
target: linux
interfaces:
  - name: enp1s0f0
    nic: intel-x710
    pause: {autoneg: off, rx: off, tx: on}
    rss: {flow_hash: {udp4: [src-ip, dst-ip, src-port, dst-port]}}
    linux: {private_flags: {disable-fw-lldp: on}}
YAML
"$NETTUNE" emit --format sh "$WORK/f.yaml" -o "$WORK/f.sh" || fail "emit of pause, private flags, flow hash"
if command -v shellcheck > /dev/null; then
	shellcheck -s sh "$WORK/f.sh" || fail "f.sh is not shellcheck-clean"
fi
fx() { NETTUNE_STATE_DIR="$WORK/fsh" nsx env PATH="$WORK/fake/bin:$PATH" sh "$WORK/f.sh" "$@"; }
rc=0; fx > "$WORK/f1" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { show "$WORK/f1"; fail "script with the ethtool stand-in exit $rc"; }
expect_eq "$(cat "$WORK/fake/st/autoneg") $(cat "$WORK/fake/st/rx") $(cat "$WORK/fake/st/tx")" "off off on" "pause after the script"
expect_eq "$(cat "$WORK/fake/st/disable-fw-lldp")" on "private flag after the script"
expect_eq "$(cat "$WORK/fake/st/legacy-rx")" off "other private flag after the script"
expect_eq "$(cat "$WORK/fake/st/udp4")" sdfn "rx-flow-hash udp4 after the script"
expect_eq "$(grep -c '^changed ' "$WORK/f1")" 4 "script: changed lines"
grep -q "changed  enp1s0f0 rx_flow_hash udp4: src-ip dst-ip -> src-ip dst-ip src-port dst-port" "$WORK/f1" || { show "$WORK/f1"; fail "flow hash change line"; }
: > "$WORK/fake/st/log"
rc=0; fx > "$WORK/f2" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { show "$WORK/f2"; fail "second run with the ethtool stand-in exit $rc"; }
grep -q "^changed\|^FAILED" "$WORK/f2" && { show "$WORK/f2"; fail "second run changed something"; }
expect_eq "$(grep -c '^ok ' "$WORK/f2")" 5 "second run: ok lines"
grep -Eq -- "^(-A|--set-priv-flags|-N) " "$WORK/fake/st/log" && { cat "$WORK/fake/st/log" >&2; fail "second run wrote"; }
rc=0; fx rollback > "$WORK/f3" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { show "$WORK/f3"; fail "rollback with the ethtool stand-in exit $rc"; }
expect_eq "$(cat "$WORK/fake/st/autoneg") $(cat "$WORK/fake/st/rx") $(cat "$WORK/fake/st/tx")" "on on on" "pause after rollback"
expect_eq "$(cat "$WORK/fake/st/disable-fw-lldp")" off "private flag after rollback"
expect_eq "$(cat "$WORK/fake/st/udp4")" sd "rx-flow-hash udp4 after rollback"
echo "ok: udp_gro_forwarding, gro_list, txqueuelen planned, applied twice, observed, emitted and rolled back on veth; pause, private flags and flow hash refused by veth, planned from a snapshot, converged by the emitted script against an ethtool stand-in; hostile values refused"
