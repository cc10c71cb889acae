#!/bin/sh
# A declared nic: that contradicts the live device is an error naming both
# and the table that matches; nic: auto takes the veth table from the host.
# The veth table's coalesce params [] is what the kernel does: ethtool -C on
# the live veth fails, and nettune refuses coalesce settings before applying.
. "$(dirname "$0")/lib.sh"
veth_pair ntc0 ntc1
cat > "$WORK/wrong.yaml" <<Y
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: h1, host: any}
target: linux
interfaces:
  - name: ntc0
    nic: intel-e810
    mtu: 1500
Y
rc=0
nt plan "$WORK/wrong.yaml" >"$WORK/out" 2>"$WORK/err" || rc=$?
expect_eq "$rc" 1 "plan with nic: intel-e810 on a veth"
grep -q "error: nic: intel-e810 (driver ice, PCI 8086:1591, 8086:1592, 8086:1593, 8086:1599, 8086:159a or 8086:159b) contradicts ntc0 as observed: driver veth; the table that matches is 'veth'" "$WORK/err" ||
	{ cat "$WORK/err" >&2; fail "no declared-vs-observed error"; }
sed 's/nic: intel-e810/nic: auto/' "$WORK/wrong.yaml" > "$WORK/auto.yaml"
rc=0
nt plan "$WORK/auto.yaml" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" -ne 1 ] || { cat "$WORK/err" >&2; fail "nic: auto on a veth failed"; }
! grep -q "error" "$WORK/err" || { cat "$WORK/err" >&2; fail "nic: auto printed an error"; }
# the kernel refuses coalescing on a veth (no get/set_coalesce)
! nsx ethtool -C ntc0 rx-usecs 10 2>"$WORK/eterr" ||
	fail "ethtool -C on a veth succeeded: the veth table's coalesce params [] is wrong"
grep -q "Operation not supported" "$WORK/eterr" || { cat "$WORK/eterr" >&2; fail "ethtool -C: unexpected error"; }
sed 's/    mtu: 1500/    coalesce: {rx_usecs: 10}/' "$WORK/auto.yaml" > "$WORK/coal.yaml"
rc=0
nt plan "$WORK/coal.yaml" >"$WORK/out" 2>"$WORK/err" || rc=$?
expect_eq "$rc" 1 "plan with coalesce on a veth"
grep -q "coal.yaml:8:26: error: coalesce.rx_usecs: veth (veth) has no interrupt coalescing settings" "$WORK/err" ||
	{ cat "$WORK/err" >&2; fail "no located coalesce error for the veth"; }
echo "ok: declared nic against a live veth; coalescing refused as the kernel does"
