#!/bin/sh
# observe --profile: a HostProfile of veth in a private network namespace
# whose MTU, offloads and channels were changed by hand with ip and ethtool
# validates, says exactly those values in the portable vocabulary (known
# defaults left out), and plan of it on the same namespace has no changes;
# the default selection leaves out veth (saying so, in a closing comment) and
# lo; a hostile device name stays
# inside a quoted YAML string.
. "$(dirname "$0")/lib.sh"
veth_pair opa0 opb0
ip -n "$NS" link set opa0 mtu 4000
nsx ethtool -K opa0 gro on tso off rx-udp-gro-forwarding on
nsx ethtool -L opa0 rx 2
nt observe --profile opa0 opb0 > "$WORK/p.yaml" || fail "observe --profile exit $?"
"$NETTUNE" validate "$WORK/p.yaml" > "$WORK/v" 2>&1 || { cat "$WORK/v" "$WORK/p.yaml"; fail "the profile does not validate"; }
rc=0; nt plan "$WORK/p.yaml" > "$WORK/plan" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/p.yaml" "$WORK/plan"; fail "plan of the observed profile exit $rc"; }
grep -q "^No changes" "$WORK/plan" || fail "plan says changes"
python3 - "$WORK/p.yaml" <<'PY' || { cat "$WORK/p.yaml"; fail "profile contents"; }
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
assert p["apiVersion"] == "nettune/v1" and p["kind"] == "HostProfile" and p["target"] == "linux"
a, b = p["interfaces"]
assert a["name"] == "opa0" and b["name"] == "opb0" and a["nic"] == "veth"
# MTU 1500 is ether_setup's default: left out for opb0, said for opa0
assert a["mtu"] == 4000 and "mtu" not in b, (a.get("mtu"), b.get("mtu"))
assert a["offloads"]["gro"] is True and a["offloads"]["tso"] is False, a["offloads"]
assert b["offloads"]["gro"] is False and b["offloads"]["tso"] is True, b["offloads"]
# rx-udp-gro-forwarding has a portable name
assert a["offloads"]["udp_gro_forwarding"] is True, a["offloads"]
assert b["offloads"]["udp_gro_forwarding"] is False, b["offloads"]
assert "rx-udp-gro-forwarding" not in a["linux"]["features"]
assert a["channels"] == {"rx": 2, "tx": 4} and b["channels"] == {"rx": 4, "tx": 4}, (a["channels"], b["channels"])
# veth has no IRQs, rings or RSS; RPS/XPS are at the kernel's defaults
for k in ("irq", "rings", "rss", "rps", "xps"):
    assert k not in a, k
PY
# a changed RPS set on one queue: the queues differ, a comment says so
nsx sh -c 'echo 1 > /sys/class/net/opa0/queues/rx-0/rps_cpus'
nt observe --profile opa0 > "$WORK/p2.yaml"
grep -q "^    # rps: the receive queues differ" "$WORK/p2.yaml" || { cat "$WORK/p2.yaml"; fail "rps comment"; }
nsx sh -c 'for q in /sys/class/net/opa0/queues/rx-*; do echo 3 > $q/rps_cpus; done'
nt observe --profile opa0 > "$WORK/p3.yaml"
grep -q '^    rps: {cpus: "0-1"}$' "$WORK/p3.yaml" || { cat "$WORK/p3.yaml"; fail "uniform rps"; }
rc=0; nt plan "$WORK/p3.yaml" > "$WORK/plan" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/p3.yaml" "$WORK/plan"; fail "plan with rps exit $rc"; }
# default: physical NICs and tunnels only (none in the namespace)
nt observe --profile > "$WORK/none.yaml"
grep -qx "interfaces: \[\]" "$WORK/none.yaml" || { cat "$WORK/none.yaml"; fail "default selection"; }
# ... and says so: the veth left out, with the command that includes them
grep -qx "# Left out: virtual devices (veth, bridges, ...) are described only when named:" "$WORK/none.yaml" &&
	grep -qx "#   nettune --netns $NS observe --profile opa0 opb0" "$WORK/none.yaml" ||
	{ cat "$WORK/none.yaml"; fail "the left-out veth are not said"; }
"$NETTUNE" validate "$WORK/none.yaml" > /dev/null 2>&1 || fail "empty profile does not validate"
rc=0; nt observe --profile lo 2> "$WORK/err" > /dev/null || rc=$?
expect_eq "$rc" 1 "observe --profile lo"
grep -q "lo is the loopback device" "$WORK/err" || fail "lo message"
rc=0; nt observe --profile nosuch0 2> "$WORK/err" > /dev/null || rc=$?
expect_eq "$rc" 1 "observe --profile of a missing interface"
rc=0; nt observe --profile --json 2> /dev/null > /dev/null || rc=$?
expect_eq "$rc" 64 "--profile with --json"
# a hostile name: quoted, and the profile still loads with that name
ip -n "$NS" link add 'q"#{x' type veth peer name opq1
nt observe --profile 'q"#{x' > "$WORK/h.yaml"
grep -q '^  - name: "q\\"#{x"$' "$WORK/h.yaml" || { cat "$WORK/h.yaml"; fail "hostile name quoting"; }
python3 -c 'import sys, yaml; assert yaml.safe_load(open(sys.argv[1]))["interfaces"][0]["name"] == "q\"#{x"' "$WORK/h.yaml" ||
	fail "hostile name does not round-trip"
# a name that starts with '-' (valid on Linux) is named after '--'
ip -n "$NS" link add name -op2 type veth peer name opq2
rc=0; nt observe --profile -- -op2 > "$WORK/d.yaml" 2> "$WORK/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/err"; fail "observe --profile -- -op2 exit $rc"; }
grep -qx '  - name: "-op2"' "$WORK/d.yaml" || { cat "$WORK/d.yaml"; fail "interface named -op2"; }
rc=0; nt observe --json -- -op2 > "$WORK/d.json" 2> "$WORK/err" || rc=$?
expect_eq "$rc" 0 "observe --json -- -op2"
rc=0; nt plan "$WORK/d.yaml" > "$WORK/plan" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/d.yaml" "$WORK/plan"; fail "plan of -op2 exit $rc"; }
# names the kernel takes but YAML and JSON cannot spell (not UTF-8, a
# control character): refused by name, left out of snapshots; UTF-8 is fine
ff=$(printf 'x\377y'); ctl=$(printf 'c\001d'); utf=$(printf 'u\303\251')
ip -n "$NS" link add name "$ff" type veth peer name opq3
ip -n "$NS" link add name "$ctl" type veth peer name opq4
ip -n "$NS" link add name "$utf" type veth peer name opq5
rc=0; nt observe --profile "$ff" > /dev/null 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "observe --profile of a non-UTF-8 name"
grep -qxF "nettune observe: error: interface name 'x\xffy' is not valid UTF-8; a profile or snapshot cannot name it" "$WORK/err" ||
	{ cat "$WORK/err"; fail "non-UTF-8 name message"; }
rc=0; nt observe --json "$ctl" > /dev/null 2> "$WORK/err" || rc=$?
expect_eq "$rc" 1 "observe --json of a name with a control character"
grep -qxF "nettune observe: error: interface name 'c\x01d' contains a control character; a profile or snapshot cannot name it" "$WORK/err" ||
	{ cat "$WORK/err"; fail "control character name message"; }
nt observe --json > "$WORK/all.json" || fail "observe --json with unnamable devices"
python3 - "$WORK/all.json" <<'PY' || fail "snapshot names"
import json, sys
names = [i["name"] for i in json.load(open(sys.argv[1], encoding="utf-8"))["interfaces"]]
assert "u\u00e9" in names and "opq3" in names, names
assert not any("\ufffd" in n or "\x01" in n for n in names), names
PY
"$NETTUNE" plan --check "$WORK/none.yaml" --state "$WORK/all.json" > /dev/null 2>&1 || fail "snapshot with unnamable devices does not load"
nt observe --profile "$utf" > "$WORK/u.yaml" || fail "observe --profile of a UTF-8 name"
rc=0; nt plan "$WORK/u.yaml" > "$WORK/plan" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/u.yaml" "$WORK/plan"; fail "plan of the UTF-8 name exit $rc"; }
echo "ok: observe --profile of veth validates and plans with no changes"
