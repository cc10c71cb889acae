#!/bin/sh
# A declared nic: that contradicts the live device is an error naming both
# and the table that matches; nic: auto takes the veth table from the host.
. "$(dirname "$0")/lib.sh"
veth_pair ntc0 ntc1
cat > "$WORK/wrong.yaml" <<Y
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: h1}
target: linux
interfaces:
  - name: ntc0
    nic: intel-e810
    mtu: 1500
Y
rc=0
nt plan "$WORK/wrong.yaml" >"$WORK/out" 2>"$WORK/err" || rc=$?
expect_eq "$rc" 1 "plan with nic: intel-e810 on a veth"
grep -q "error: nic: intel-e810 (driver ice, PCI 8086:1591) contradicts ntc0 as observed: driver veth; the table that matches is 'veth'" "$WORK/err" ||
	{ cat "$WORK/err" >&2; fail "no declared-vs-observed error"; }
sed 's/nic: intel-e810/nic: auto/' "$WORK/wrong.yaml" > "$WORK/auto.yaml"
rc=0
nt plan "$WORK/auto.yaml" >"$WORK/out" 2>"$WORK/err" || rc=$?
[ "$rc" -ne 1 ] || { cat "$WORK/err" >&2; fail "nic: auto on a veth failed"; }
! grep -q "error" "$WORK/err" || { cat "$WORK/err" >&2; fail "nic: auto printed an error"; }
echo "ok: declared nic against a live veth"
