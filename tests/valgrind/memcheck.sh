#!/bin/sh
# valgrind memcheck of validate, plan, emit (sh and ps1) on every example
# against its snapshot, and
# (as root) apply + no-op re-apply + rollback on a veth pair: no memory
# error and no definite leak.  Skips (77) without valgrind.
set -eu
: "${NETTUNE:?}" "${SRCROOT:?}"
command -v valgrind >/dev/null || { echo "SKIP: valgrind missing"; exit 77; }
WORK=$(mktemp -d)
NS=
cleanup() {
	[ -z "$NS" ] || ip netns del "$NS" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
export NETTUNE_STATE_DIR="$WORK/state"
fail() { echo "FAIL: $*" >&2; exit 1; }
# vg EXPECTED_EXIT CMD...: memcheck errors exit 99, anything else must match
vg() {
	want=$1
	shift
	rc=0
	valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=99 \
		--log-file="$WORK/vg.log" "$@" > "$WORK/out" 2>&1 || rc=$?
	if [ "$rc" -eq 99 ] || [ -s "$WORK/vg.log" ]; then
		cat "$WORK/vg.log"
		fail "memcheck: $*"
	fi
	case " $want " in *" $rc "*) ;; *) cat "$WORK/out"; fail "exit $rc (expected $want): $*" ;; esac
	n=$((n + 1))
}
n=0
E="$SRCROOT/examples"
vg 0 "$NETTUNE" validate "$E"/*.yaml
vg 1 "$NETTUNE" validate --format sarif "$SRCROOT/tests/bad/bad-enum.yaml" "$SRCROOT/tests/bad/alias.yaml"
for p in "$E"/*.yaml; do
	s="$E/states/$(basename "$p" .yaml).json"
	[ -f "$s" ] || continue
	vg "0 2" "$NETTUNE" plan "$p" --state "$s"
	vg "0 2" "$NETTUNE" plan --json "$p" --state "$s"
	case $(sed -n 's/^target: *//p' "$p") in
	windows) vg 0 "$NETTUNE" emit --format ps1 "$p" --state "$s" -o "$WORK/x.ps1" ;;
	*) vg 0 "$NETTUNE" emit --format sh "$p" --state "$s" -o "$WORK/x.sh" ;;
	esac
done
if [ "$(id -u)" -eq 0 ] && command -v ethtool >/dev/null; then
	NS="ntvg$$"
	ip netns add "$NS"
	ip -n "$NS" link add vga0 numrxqueues 4 numtxqueues 4 type veth peer name vgb0 numrxqueues 4 numtxqueues 4
	ip -n "$NS" link set vga0 up
	cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: vg-test, host: any}
target: linux
interfaces:
  - {name: vga0, nic: veth, mtu: 9000, offloads: {gro: on, tso: off}, channels: {rx: 2, tx: 2}}
YAML
	vg 0 "$NETTUNE" --netns "$NS" apply --yes "$WORK/p.yaml"
	vg 0 "$NETTUNE" --netns "$NS" apply --yes "$WORK/p.yaml"
	grep -q "Nothing to do" "$WORK/out" || fail "second apply: $(cat "$WORK/out")"
	vg 0 "$NETTUNE" --netns "$NS" rollback
	vg 0 "$NETTUNE" --netns "$NS" observe --json
else
	echo "note: not root, apply on veth not checked"
fi
echo "ok: $n commands clean under memcheck"
