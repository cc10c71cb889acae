#!/bin/sh
# apply converges veth pairs (checked with ethtool and ip), a second apply
# makes zero write requests, and plan reports drift made with ethtool
# exactly.  The write requests are counted twice: by nettune itself
# (NETTUNE_STATS=1) and, independently, from an strace log
# (count_writes.py); the first apply's count must be positive and the
# two must agree, so that a parser that sees nothing cannot pass.
. "$(dirname "$0")/lib.sh"
veth_pair nva0 nvb0
veth_pair nva1 nvb1
veth_pair nva2 nvb2
# drift from the profile below
nsx ethtool -K nva0 gro off tso on
nsx ethtool -K nva1 gro off gso on
ip -n "$NS" link set nva2 mtu 1400
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: veth-test, host: any}
target: linux
interfaces:
  - {name: nva0, nic: veth, mtu: 9000, offloads: {gro: on, tso: off, uso: off}, channels: {rx: 2, tx: 3}}
  - {name: nva1, nic: veth, offloads: {gro: on, gso: off, checksum: on}}
  - {name: nva2, nic: veth, mtu: 1500, offloads: {gro: on}}
YAML
rc=0; nt plan "$WORK/p.yaml" > "$WORK/plan.txt" || rc=$?
expect_eq "$rc" 2 "plan exit code with pending changes"
grep -q "nva0" "$WORK/plan.txt" || fail "plan does not mention nva0"
# counted_apply OUT: apply --yes with NETTUNE_STATS=1 (stdout and stderr in
# OUT), under strace when it is installed (required in CI): the strace
# count in $WORK/writes; sets_of OUT: nettune's own count of set requests
counted_apply() {
	if command -v strace >/dev/null; then
		# LeakSanitizer cannot run under ptrace (scripts/sanitize.sh builds)
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" NETTUNE_STATS=1 \
		strace -f -qq -e trace=socket,sendmsg,sendto,openat,ioctl -o "$WORK/st" \
			"$NETTUNE" --netns "$NS" apply --yes "$WORK/p.yaml" > "$1" 2>&1 || return
		python3 "$SRCROOT/tests/linux/count_writes.py" "$WORK/st" > "$WORK/writes"
	else
		[ "${CI:-}" != true ] || fail "strace missing in CI (scripts/deps.sh test installs it)"
		NETTUNE_STATS=1 nt apply --yes "$WORK/p.yaml" > "$1" 2>&1 || return
		: > "$WORK/writes"
	fi
}
sets_of() { sed -n 's/^nettune stats: netlink [0-9]* (sets \([0-9]*\)),.* file writes \([0-9]*\);.*/\1 set requests, \2 file writes/p' "$1"; }
rc=0; counted_apply "$WORK/apply.txt" || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/apply.txt"; fail "apply exit $rc"; }
first=$(sets_of "$WORK/apply.txt")
case $first in
[1-9]*" set requests, 0 file writes") ;;
*) cat "$WORK/apply.txt"; fail "first apply: NETTUNE_STATS counts '$first', expected some set requests" ;;
esac
[ ! -s "$WORK/writes" ] || expect_eq "$(cat "$WORK/writes")" "$first" "first apply: strace count against NETTUNE_STATS"
# independent oracles
expect_eq "$(feature nva0 generic-receive-offload)" on "nva0 gro"
expect_eq "$(feature nva0 tcp-segmentation-offload)" off "nva0 tso"
expect_eq "$(feature nva0 tx-udp-segmentation)" off "nva0 uso"
expect_eq "$(mtu nva0)" 9000 "nva0 mtu"
expect_eq "$(chan nva0 RX)" 2 "nva0 rx channels"
expect_eq "$(chan nva0 TX)" 3 "nva0 tx channels"
expect_eq "$(feature nva1 generic-receive-offload)" on "nva1 gro"
expect_eq "$(feature nva1 generic-segmentation-offload)" off "nva1 gso"
expect_eq "$(feature nva1 tx-checksum-ip-generic)" on "nva1 tx checksum"
expect_eq "$(mtu nva2)" 1500 "nva2 mtu"
grep -q "journal" "$WORK/apply.txt" || fail "apply did not name its journal"
# converged: plan says nothing, and a second apply sends no set request
rc=0; nt plan "$WORK/p.yaml" > "$WORK/plan2.txt" || rc=$?
expect_eq "$rc" 0 "plan exit code when converged"
grep -q "No changes" "$WORK/plan2.txt" || fail "converged plan output"
counted_apply "$WORK/apply2.txt"
expect_eq "$(sets_of "$WORK/apply2.txt")" "0 set requests, 0 file writes" "second apply: NETTUNE_STATS"
[ ! -s "$WORK/writes" ] || expect_eq "$(cat "$WORK/writes")" "0 set requests, 0 file writes" "second apply: strace count"
grep -q "Nothing to do" "$WORK/apply2.txt" || fail "second apply output"
# drift made by hand shows up as exactly that action
nsx ethtool -K nva1 gro off
rc=0; nt plan --json "$WORK/p.yaml" > "$WORK/drift.json" || rc=$?
expect_eq "$rc" 2 "plan exit code after drift"
python3 - "$WORK/drift.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
acts = [(a["object"], a["attribute"], a["from"], a["to"]) for a in p["actions"]]
assert acts == [("nva1", "feature rx-gro", False, True)], acts
PY
echo "ok: apply, oracles, zero-write re-apply, drift"
