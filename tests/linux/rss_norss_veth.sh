#!/bin/sh
# rss.key on a device the kernel shows has no RSS (ETHTOOL_GRSSH refused with
# EOPNOTSUPP: no get_rxfh) says so, not "the key size is unknown; name the
# NIC model (nic:) or plan against the live host": a bridge (no capability
# table) and veth without nic: (its table says no RSS).
. "$(dirname "$0")/lib.sh"
veth_pair rka0 rkb0
ip -n "$NS" link add rkbr0 type bridge 2>/dev/null || { echo "SKIP: no bridge support"; exit 77; }
for dev in rkbr0 rka0; do
	cat > "$WORK/$dev.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: lab, host: any}
target: linux
interfaces:
  - name: $dev
    rss: {key: per-host}
YAML
	rc=0; nt plan "$WORK/$dev.yaml" > "$WORK/out" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] || { cat "$WORK/out"; fail "$dev: plan exit $rc, expected 1"; }
	! grep -q "unknown" "$WORK/out" || { cat "$WORK/out"; fail "$dev: says the key size is unknown"; }
done
nt plan "$WORK/rkbr0.yaml" 2>&1 | grep -qx "$WORK/rkbr0.yaml:7:16: error: rkbr0 has no RSS key (kind bridge, observed: no key and no indirection table); remove rss.key" ||
	{ nt plan "$WORK/rkbr0.yaml"; fail "bridge message"; }
nt plan "$WORK/rka0.yaml" 2>&1 | grep -qx "$WORK/rka0.yaml:7:5: error: veth (veth) has no RSS: rka0 has no RSS key or indirection table to set" ||
	{ nt plan "$WORK/rka0.yaml"; fail "veth message"; }
echo ok
