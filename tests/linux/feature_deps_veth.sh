#!/bin/sh
# A feature that reads as the profile wants but stays requested the other
# way: 'ethtool -K DEV tso on sg off tx off' leaves TSO requested on (it
# reads off only while SG is off).  An apply that turns SG and TX checksums
# back on sets TSO off in the same request, so the kernel does not bring
# TSO back; before, the read-back found TSO on and the apply rolled back,
# every time (and so did every correction of the agent).
. "$(dirname "$0")/lib.sh"
veth_pair fda0 fdb0
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: feature-deps, host: any}
target: linux
interfaces:
  - {name: fda0, offloads: {gro: on, gso: on, tso: off, sg: on, checksum: on, uso: off}}
YAML
nt apply --yes "$WORK/p.yaml" > "$WORK/a1" 2>&1 || { cat "$WORK/a1"; fail "first apply"; }
expect_eq "$(feature fda0 tcp-segmentation-offload)" off "tso after the first apply"
nsx ethtool -K fda0 tso on sg off tx off > /dev/null 2>&1 || true
expect_eq "$(feature fda0 scatter-gather)" off "sg after ethtool -K"
# TSO is requested on: ethtool -k shows it as "[requested on]" or on
nsx ethtool -k fda0 | grep -q '^tcp-segmentation-offload: .*on' ||
	fail "ethtool -K did not leave tso requested on: $(nsx ethtool -k fda0 | grep '^tcp-seg')"
rc=0; nt apply --yes "$WORK/p.yaml" > "$WORK/a2" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/a2"; fail "apply after the dependency drift: exit $rc"; }
expect_eq "$(feature fda0 scatter-gather)" on "sg after the apply"
expect_eq "$(feature fda0 tx-checksumming)" on "tx checksums after the apply"
expect_eq "$(feature fda0 tcp-segmentation-offload)" off "tso after the apply (not brought back by sg)"
nsx ethtool -k fda0 | grep -q '^tcp-segmentation-offload: off$' ||
	fail "tso still requested on: $(nsx ethtool -k fda0 | grep '^tcp-seg')"
rc=0; nt plan --check "$WORK/p.yaml" > "$WORK/c" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/c"; fail "plan --check after the apply: exit $rc"; }
echo "ok: a feature requested against the profile is set with its dependencies"
