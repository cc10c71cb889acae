#!/bin/sh
# First README command: install what is missing, build, and run nettune on the
# bundled X710 WireGuard gateway example (no NIC needed: it plans against a
# snapshot of that host).  Each step says what it does and what it showed.
set -eu
cd "$(dirname "$0")/.."
step() { printf '\n==> %s\n' "$*"; }

step "Installing the Debian packages nettune needs to build (skipped when present)"
scripts/deps.sh build
step "Building into build/ (meson + ninja)"
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
echo "built build/nettune ($(build/nettune --version))"

step "Validating every example and policy profile against the schema and the NIC tables"
build/nettune validate examples/*.yaml profiles/*.yaml

step "The capability table of the Intel X710 (first lines; every number cites its source)"
build/nettune caps intel-x710 | head -n 12

step "Planning the X710 WireGuard gateway against a snapshot of that host"
rc=0
build/nettune plan examples/x710-wireguard-gateway.yaml \
	--state examples/states/x710-wireguard-gateway.json || rc=$?
case $rc in
0) echo "plan: exit 0, the host already matches" ;;
2) echo "plan: exit 2, changes pending (what you see above) - as expected for this host" ;;
*) echo "plan failed with exit $rc" >&2; exit "$rc" ;;
esac

cat <<'NEXT'

==> What to try next: the veth lab (as root; no NIC needed)
  ip netns add ntlab
  ip -n ntlab link add ntlab0 type veth peer name ntlab1
  ip -n ntlab link set ntlab0 up; ip -n ntlab link set ntlab1 up
  build/nettune --netns ntlab plan examples/veth-lab.yaml          # exit 2: changes pending
  build/nettune --netns ntlab apply --yes examples/veth-lab.yaml   # converge, journaled
  ip netns exec ntlab ethtool -K ntlab0 gro off                    # drift by hand
  build/nettune --netns ntlab plan --check examples/veth-lab.yaml  # shows the drift, exit 2
  build/nettune rollback                                           # back to before the apply
  build/nettune history                                            # what happened, newest first
  ip netns del ntlab
Run every test with: scripts/test.sh
NEXT
