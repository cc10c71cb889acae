#!/bin/sh
# A profile names its host (metadata.name): a live plan or apply of it on
# another host is refused, naming both, before anything is observed as
# pending or changed.  --any-host overrides it once; metadata.host: any says
# so for good (lab and fleet-wide profiles: the bundled veth lab).  The plan
# header shows the host and the profile apart, and a per-host RSS key comes
# from the name of the host planned for, not from a profile that names
# another.
. "$(dirname "$0")/lib.sh"
veth_pair hva0 hvb0
H=$(uname -n)
OTHER="db-prod-07"
[ "$H" != "$OTHER" ] || OTHER="db-prod-08"
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: $OTHER}
target: linux
interfaces:
  - {name: hva0, nic: veth, mtu: 4000}
YAML
before=$(full_state hva0)
want="$WORK/p.yaml:3:18: error: profile for another host: metadata.name is $OTHER, this host is $H (plan it on $OTHER; a profile meant for any host, a lab or a fleet-wide one, says metadata.host: any, or pass --any-host)"
for cmd in "plan" "plan --check" "apply --yes"; do
	rc=0
	# shellcheck disable=SC2086
	nt $cmd "$WORK/p.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
	expect_eq "$rc" 1 "$cmd of a profile for $OTHER on $H: exit status"
	grep -qxF "$want" "$WORK/err" || { cat "$WORK/out" "$WORK/err"; fail "$cmd: not refused with both names"; }
	grep -q "mtu" "$WORK/out" && fail "$cmd: planned changes for another host"
done
expect_eq "$(full_state hva0)" "$before" "refused apply changed the namespace"
[ -z "$(ls "$NETTUNE_STATE_DIR/journal" 2>/dev/null)" ] || fail "refused apply journaled"
# host names compare as DNS names: case and a short against a qualified name
up=$(echo "$H" | tr '[:lower:]' '[:upper:]')
sed "s/name: $OTHER}/name: $up.example.test}/" "$WORK/p.yaml" > "$WORK/same.yaml"
rc=0; nt plan "$WORK/same.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 2 "plan of $up.example.test on $H: exit status $(cat "$WORK/err")"

# --any-host: planned and applied; the header names the host and the profile
rc=0; nt plan --any-host "$WORK/p.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 2 "plan --any-host: exit status $(cat "$WORK/err")"
expect_eq "$(head -n 1 "$WORK/out")" "Host $H (linux), profile $OTHER, against the live host" "plan header"
nt plan --json --any-host "$WORK/p.yaml" 2> /dev/null | python3 -c '
import json, sys
p = json.load(sys.stdin)
assert p["host"] == sys.argv[1] and p["profile"] == sys.argv[2], p' "$H" "$OTHER" ||
	fail "plan --json: host and profile"
rc=0; "$NETTUNE" --any-host --netns "$NS" apply --yes "$WORK/p.yaml" > "$WORK/out" 2>&1 || rc=$?
expect_eq "$rc" 0 "apply --any-host: exit status $(cat "$WORK/out")"
expect_eq "$(mtu hva0)" 4000 "apply --any-host: mtu"

# metadata.host: any in the profile: no flag needed
sed "s/name: $OTHER}/name: $OTHER, host: any}/; s/mtu: 4000/mtu: 4100/" "$WORK/p.yaml" > "$WORK/any.yaml"
"$NETTUNE" validate "$WORK/any.yaml" > /dev/null 2>&1 || fail "validate metadata.host: any"
rc=0; nt apply --yes "$WORK/any.yaml" > "$WORK/out" 2>&1 || rc=$?
expect_eq "$rc" 0 "apply of metadata.host: any: exit status $(cat "$WORK/out")"
expect_eq "$(mtu hva0)" 4100 "metadata.host: any: mtu"
sed "s/host: any/host: all/" "$WORK/any.yaml" > "$WORK/bad.yaml"
rc=0; "$NETTUNE" validate "$WORK/bad.yaml" > /dev/null 2>&1 || rc=$?
expect_eq "$rc" 1 "metadata.host: all is invalid"

# the bundled veth lab runs as the README says, on any host
ip -n "$NS" link add ntlab0 type veth peer name ntlab1
ip -n "$NS" link set ntlab0 up
ip -n "$NS" link set ntlab1 up
rc=0; nt plan "$SRCROOT/examples/veth-lab.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 2 "veth lab plan: exit status $(cat "$WORK/err")"
rc=0; nt apply --yes "$SRCROOT/examples/veth-lab.yaml" > "$WORK/out" 2>&1 || rc=$?
expect_eq "$rc" 0 "veth lab apply: exit status $(cat "$WORK/out")"

# per-host RSS keys: from the host planned for (a snapshot of sg-gw-02 here)
# when the profile is for any host, never from the profile's name
X="$SRCROOT/examples/x710-wireguard-gateway.yaml"
XS="$SRCROOT/examples/states/x710-wireguard-gateway.json"
sed 's/"name": "sg-gw-01"/"name": "sg-gw-02"/' "$XS" > "$WORK/gw2.json"
grep -q '"sg-gw-02"' "$WORK/gw2.json" || fail "snapshot host name not replaced"
sed 's/^  name: sg-gw-01$/  name: sg-gw-01\n  host: any/' "$X" > "$WORK/host-any.yaml"
sed 's/^  name: sg-gw-01$/  name: sg-gw-02/' "$X" > "$WORK/gw2.yaml"
key() { "$NETTUNE" --profile-path "$SRCROOT/profiles" plan --json "$1" --state "$2" 2> /dev/null | python3 -c '
import json, sys
print([a["to"] for a in json.load(sys.stdin)["actions"] if a["attribute"] == "rss-key"])'; }
k1=$(key "$X" "$XS"); ka=$(key "$WORK/host-any.yaml" "$WORK/gw2.json")
k2=$(key "$WORK/gw2.yaml" "$WORK/gw2.json")
[ "$k1" != "[]" ] || fail "no rss-key action in the x710 plan"
expect_eq "$ka" "$k2" "the key of a metadata.host: any profile planned for sg-gw-02"
[ "$ka" != "$k1" ] || fail "the key came from the profile's name, not the host's"
echo "ok: a profile for another host is refused unless --any-host or metadata.host: any"
