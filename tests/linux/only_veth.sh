#!/bin/sh
# --only IFACE touches one interface; --dry-run touches none.
. "$(dirname "$0")/lib.sh"
veth_pair noa0 nob0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-only, host: any}
target: linux
interfaces:
  - {name: noa0, mtu: 1300}
  - {name: nob0, mtu: 1200}
YAML
rc=0; nt apply --yes --dry-run "$WORK/p.yaml" > "$WORK/d" || rc=$?
expect_eq "$rc" 2 "dry-run exit with changes pending (like plan)"
grep -q "Dry run: 2 changes would be made" "$WORK/d" || fail "dry-run output"
expect_eq "$(mtu noa0)" 1500 "dry run changed noa0"
nt apply --yes --only nob0 "$WORK/p.yaml" > /dev/null
expect_eq "$(mtu noa0)" 1500 "--only touched another interface"
expect_eq "$(mtu nob0)" 1200 "--only did not apply its interface"
nt apply --yes "$WORK/p.yaml" > /dev/null
rc=0; nt apply --yes --dry-run "$WORK/p.yaml" > "$WORK/d" || rc=$?
expect_eq "$rc" 0 "dry-run exit with nothing to do"
echo "ok: --only and --dry-run"
