#!/bin/sh
# Snapshots carry what a profile sets: a profile with a sysctl: section
# (per-namespace keys, one spelled as a path) and interface settings is
# applied to veth in a private network namespace, 'observe --json' records
# the namespace, and 'plan --check --state' against that snapshot is in
# sync; a sysctl changed in the snapshot is reported as drift.
. "$(dirname "$0")/lib.sh"
veth_pair sna0 snb0
# a device name with a dot: its sysctl keys are paths (net/ipv4/conf/sn.1/...)
ip -n "$NS" link add sn.1 type veth peer name snd0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: snapshot-veth, host: any}
target: linux
interfaces:
  - {name: sna0, nic: veth, mtu: 4000, offloads: {gro: on, tso: off}, channels: {rx: 2}}
sysctl:
  net.core.somaxconn: "3000"
  net.ipv4.tcp_rmem: "4096 87380 4000000"
  net/ipv4/conf/sna0/rp_filter: "2"
  net/ipv4/conf/sn.1/rp_filter: "2"
YAML
rc=0; nt apply --yes "$WORK/p.yaml" > "$WORK/out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/out"; fail "apply exit $rc"; }
expect_eq "$(nsx cat /proc/sys/net/core/somaxconn)" 3000 "somaxconn applied"
expect_eq "$(nsx cat /proc/sys/net/ipv4/conf/sna0/rp_filter)" 2 "rp_filter applied"
expect_eq "$(nsx cat /proc/sys/net/ipv4/conf/sn.1/rp_filter)" 2 "rp_filter of sn.1 applied"
# the live host is converged too: a key spelled as a path is read back
# under the key the plan compares (no "(not observed)", no second write)
rc=0; nt plan --check "$WORK/p.yaml" > "$WORK/check" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/check"; fail "live plan --check after apply exit $rc"; }
rc=0; nt apply --yes "$WORK/p.yaml" > "$WORK/out" 2>&1 || rc=$?
expect_eq "$rc" 0 "second apply"
grep -q "^Nothing to do" "$WORK/out" || { cat "$WORK/out"; fail "second apply wrote again"; }
nt observe --json > "$WORK/snap.json" || fail "observe --json"
# the snapshot holds the namespace's sysctls, not only the profile's
python3 - "$WORK/snap.json" <<'PY' || fail "snapshot contents"
import json, sys
s = json.load(open(sys.argv[1]))
kv = {x["attribute"]: x["value"] for x in s["settings"] if x["object"] == "sysctl"}
assert kv["sysctl net.core.somaxconn"] == "3000", kv.get("sysctl net.core.somaxconn")
assert kv["sysctl net.ipv4.conf.sna0.rp_filter"] == "2"
assert kv["sysctl net/ipv4/conf/sn.1/rp_filter"] == "2", [k for k in kv if "sn.1" in k][:3]
assert "sysctl net.ipv4.ip_forward" in kv and len(kv) > 100, len(kv)
assert not any(k.endswith("stable_secret") or k.endswith("tcp_fastopen_key") for k in kv), "secret recorded"
PY
rc=0; "$NETTUNE" plan --check "$WORK/p.yaml" --state "$WORK/snap.json" > "$WORK/check" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/check"; fail "plan --check against the snapshot of a converged host exit $rc"; }
grep -q "^in sync: $WORK/snap.json matches" "$WORK/check" || { cat "$WORK/check"; fail "in sync line"; }
rc=0; "$NETTUNE" plan "$WORK/p.yaml" --state "$WORK/snap.json" > "$WORK/plan" 2>&1 || rc=$?
expect_eq "$rc" 0 "plan against the snapshot"
# a sysctl that differs in the snapshot is drift, named with both values
python3 - "$WORK/snap.json" "$WORK/drift.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for x in s["settings"]:
    if x["attribute"] == "sysctl net.core.somaxconn":
        x["value"] = "128"
json.dump(s, open(sys.argv[2], "w"))
PY
rc=0; "$NETTUNE" plan --check "$WORK/p.yaml" --state "$WORK/drift.json" > "$WORK/check" 2>&1 || rc=$?
expect_eq "$rc" 2 "drift in a snapshot sysctl"
grep -q "^drift: 1 setting of $WORK/drift.json differs" "$WORK/check" || { cat "$WORK/check"; fail "drift count"; }
grep -q "^  sysctl net.core.somaxconn: 128 (want 3000)$" "$WORK/check" || { cat "$WORK/check"; fail "drift line"; }
# a key spelled as a path is located at its own line (not at "sysctl:")
python3 - "$WORK/snap.json" "$WORK/drift2.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for x in s["settings"]:
    if x["attribute"] == "sysctl net.ipv4.conf.sna0.rp_filter":
        x["value"] = "0"
json.dump(s, open(sys.argv[2], "w"))
PY
rc=0; "$NETTUNE" plan "$WORK/p.yaml" --state "$WORK/drift2.json" > "$WORK/plan" 2>&1 || rc=$?
expect_eq "$rc" 2 "plan against a drifted path-spelled sysctl"
grep -q "sysctl net.ipv4.conf.sna0.rp_filter 0 -> 2  $WORK/p.yaml:10:33$" "$WORK/plan" ||
	{ cat "$WORK/plan"; fail "location of a path-spelled sysctl key"; }
# a live change of an interface setting shows up in a new snapshot
nsx ethtool -K sna0 gro off
nt observe --json > "$WORK/snap2.json"
rc=0; "$NETTUNE" plan --check "$WORK/p.yaml" --state "$WORK/snap2.json" > "$WORK/check" 2>&1 || rc=$?
expect_eq "$rc" 2 "drift after a live change"
grep -q "^  sna0 feature rx-gro: off (want on)$" "$WORK/check" || { cat "$WORK/check"; fail "live drift line"; }
# the host's own namespace (its real NICs: virtio_net reports an RSS key of
# 0 bytes) gives a snapshot that loads back; reading it changes nothing
"$NETTUNE" observe --json > "$WORK/host.json" || fail "observe --json of the host"
cat > "$WORK/empty.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: host-snapshot, host: any}
target: linux
YAML
rc=0; "$NETTUNE" plan --check "$WORK/empty.yaml" --state "$WORK/host.json" > "$WORK/check" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/check"; fail "the host's own snapshot does not load (exit $rc)"; }
echo "ok: snapshot of a converged namespace is in sync; snapshot and live drift reported"
