#!/bin/sh
# A vxlan tunnel on a veth underlay: observe reports its kind, the MTU is
# derived from the underlay minus the VXLAN overhead (50 over IPv4), raised
# after the underlay (the kernel refuses more than underlay - 50), read
# back with ip -d link; a wrong kind and a tunnel MTU one byte too large
# are located errors that change nothing.  A vxlan over that vxlan, listed
# first, is derived down the chain and raised after it.
. "$(dirname "$0")/lib.sh"
veth_pair tva0 tvb0
ip -n "$NS" link add tvx0 type vxlan id 42 dstport 4789 local 127.0.0.1 dev tva0 2>/dev/null ||
	{ echo "SKIP: no vxlan module"; exit 77; }
ip -n "$NS" link set tvx0 up
expect_eq "$(mtu tvx0)" 1450 "vxlan created on a 1500 underlay"

# observe: the live kind (IFLA_INFO_KIND)
nt observe --json > "$WORK/obs.json"
python3 - "$WORK/obs.json" <<'PY' || fail "observe does not report tvx0 as kind vxlan"
import json, sys
d = json.load(open(sys.argv[1]))
k = {i["name"]: i.get("kind") for i in d["interfaces"]}
sys.exit(0 if k.get("tvx0") == "vxlan" and k.get("tva0") == "veth" else 1)
PY

profile() {	# profile UNDERLAY_MTU_LINE TUNNEL_EXTRA KIND
	cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: vxlan-lab, host: any}
target: linux
interfaces:
  - name: tva0
$1
  - name: tvx0
$2
    tunnel: {kind: $3, underlay: tva0, outer: ipv4}
YAML
}

# jumbo underlay, tunnel MTU derived: 9000 - 50
profile "    mtu: 9000" "" vxlan
rc=0; nt plan "$WORK/p.yaml" > "$WORK/plan" || rc=$?
expect_eq "$rc" 2 "plan exit with changes"
grep -q "derived: tva0 mtu 9000 - VXLAN overhead 50 (ipv4 outer)" "$WORK/plan" ||
	fail "plan does not show the derivation: $(cat "$WORK/plan")"
# the action number of an object's mtu change
step() { awk -v o="$1" '/^[^ ]/ {cur = $1} cur == o && $2 == "mtu" {print $1}' "$WORK/plan"; }
a=$(step tva0); b=$(step tvx0)
[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] || fail "underlay not raised before the tunnel (lines $a, $b)"
nt apply --yes "$WORK/p.yaml" > "$WORK/apply" || fail "apply: $(cat "$WORK/apply")"
expect_eq "$(mtu tva0)" 9000 "underlay mtu"
expect_eq "$(mtu tvx0)" 8950 "derived vxlan mtu"
ip -n "$NS" -d -o link show tvx0 | grep -q "vxlan id 42 local 127.0.0.1 dev tva0" ||
	fail "ip -d link: not the vxlan device: $(ip -n "$NS" -d -o link show tvx0)"
rc=0; nt plan "$WORK/p.yaml" > "$WORK/plan2" || rc=$?
expect_eq "$rc" 0 "plan after apply: nothing to do"

# the exact fit passes; one byte more is a located error and changes nothing
profile "" "    mtu: 8950" vxlan
rc=0; nt plan "$WORK/p.yaml" > "$WORK/plan3" 2>&1 || rc=$?
expect_eq "$rc" 0 "explicit 8950 over 9000 fits"
profile "" "    mtu: 8951" vxlan
rc=0; nt apply --yes "$WORK/p.yaml" > "$WORK/out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 2 ] || fail "8951 over 9000 accepted (rc $rc)"
grep -q "p.yaml:9:10: .*tunnel tvx0 mtu 8951 + VXLAN overhead 50 (ipv4 outer) = 9001 exceeds underlay tva0 mtu 9000; at most 8950 fits" "$WORK/out" ||
	fail "no located fit error: $(cat "$WORK/out")"
expect_eq "$(mtu tvx0)" 8950 "a refused apply changed the tunnel"

# the profile says geneve, the host has a vxlan device
profile "    mtu: 9000" "" geneve
rc=0; nt apply --yes "$WORK/p.yaml" > "$WORK/out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -ne 2 ] || fail "geneve profile on a vxlan device accepted (rc $rc)"
grep -q "p.yaml:10:20: .*tvx0 is a vxlan device on this host; the profile says tunnel kind geneve" "$WORK/out" ||
	fail "no located kind error: $(cat "$WORK/out")"

# back down: 1500 underlay, tunnel derived 1450 (lowered before the underlay)
profile "    mtu: 1500" "" vxlan
nt apply --yes "$WORK/p.yaml" > "$WORK/apply" || fail "apply down: $(cat "$WORK/apply")"
expect_eq "$(mtu tva0)" 1500 "underlay lowered"
expect_eq "$(mtu tvx0)" 1450 "tunnel lowered"
# a tunnel over a tunnel, listed before the one it rides on: tvx1 over tvx0
# over tva0.  Raised from the NIC up (the kernel refuses a vxlan MTU above
# its lower device's - 50), derived down the chain, lowered from the top.
ip -n "$NS" link add tvx1 type vxlan id 43 dstport 4790 local 127.0.0.1 dev tvx0 ||
	fail "cannot create a vxlan over tvx0"
ip -n "$NS" link set tvx1 up
expect_eq "$(mtu tvx1)" 1400 "vxlan over vxlan created"
nested() {	# nested UNDERLAY_MTU
	cat > "$WORK/n.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: vxlan-lab, host: any}
target: linux
interfaces:
  - name: tvx1
    tunnel: {kind: vxlan, underlay: tvx0, inner: ipv4}
  - name: tvx0
    tunnel: {kind: vxlan, underlay: tva0}
  - name: tva0
    mtu: $1
YAML
}
nested 9000
rc=0; nt plan "$WORK/n.yaml" > "$WORK/plan" || rc=$?
expect_eq "$rc" 2 "nested plan exit with changes"
grep -q "derived: tvx0 mtu 8950 - VXLAN overhead 50 (ipv4 outer)" "$WORK/plan" ||
	fail "tvx1 not derived from tvx0's new MTU: $(cat "$WORK/plan")"
a=$(step tva0); b=$(step tvx0); c=$(step tvx1)
[ -n "$c" ] && [ "$a" -lt "$b" ] && [ "$b" -lt "$c" ] ||
	fail "not raised from the NIC up (steps $a, $b, $c): $(cat "$WORK/plan")"
nt apply --yes "$WORK/n.yaml" > "$WORK/apply" || fail "nested apply: $(cat "$WORK/apply")"
expect_eq "$(mtu tva0)" 9000 "nested: underlay"
expect_eq "$(mtu tvx0)" 8950 "nested: first tunnel"
expect_eq "$(mtu tvx1)" 8900 "nested: tunnel over the tunnel"
nested 1500
rc=0; nt plan "$WORK/n.yaml" > "$WORK/plan" || rc=$?
a=$(step tva0); b=$(step tvx0); c=$(step tvx1)
[ -n "$a" ] && [ "$c" -lt "$b" ] && [ "$b" -lt "$a" ] ||
	fail "not lowered from the top down (steps $a, $b, $c): $(cat "$WORK/plan")"
nt apply --yes "$WORK/n.yaml" > "$WORK/apply" || fail "nested apply down: $(cat "$WORK/apply")"
expect_eq "$(mtu tvx1)" 1400 "nested: tunnel over the tunnel lowered"
echo "ok: vxlan tunnel MTU derived, ordered, checked and read back; nested too"
