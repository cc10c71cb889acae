#!/bin/sh
# The Ansible module under the fault build's test hook (-Dfault_injection=
# true; scripts/test.sh runs it in build-fault):
# - for every write k of the apply and SIGTERM, SIGHUP, SIGINT raised right
#   after it (NETTUNE_SIGNAL_STEP=k): exit 1, one result object with
#   outcome rolled-back, the signal, the journal id; the journal on disk
#   failed (a failed apply, rolled back); ethtool -k/-l, ip -d link and the sysctl exactly as before;
# - a signal before the profile is compiled: not-applied, no journal;
# - a signal after the apply returned: converged, with a warning;
# - a failed last write whose rollback cannot restore the sysctl (EIO
#   injected by strace into its writes after the first): outcome
#   rollback-incomplete naming the journal and exactly that setting with its
#   previous and present value; 'nettune rollback ID', as msg says, then
#   restores the host exactly.
. "$SRCROOT/tests/linux/lib.sh"
. "$SRCROOT/tests/ansible/modlib.sh"
command -v strace >/dev/null || { echo "SKIP: strace missing (scripts/deps.sh test installs it)"; exit 77; }
veth_pair nfa0 nfb0
veth_pair nfa1 nfb1
devs="nfa0 nfb0 nfa1 nfb1"
nsx ethtool -K nfb0 gro on
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: module-faults, host: any}
target: linux
sysctl:
  net.ipv4.ip_forward: "1"
interfaces:
  - {name: nfa0, nic: veth, mtu: 9000, offloads: {gro: on, tso: off}, channels: {rx: 2, tx: 3}}
  - {name: nfb0, nic: veth, mtu: 4000, offloads: {gro: off, gso: off}}
  - {name: nfa1, nic: veth, offloads: {rxvlan: off, gro: on}, channels: {rx: 1, tx: 1}}
YAML
margs "$WORK/args" profile "$WORK/p.yaml"
rc=0; nt plan --json "$WORK/p.yaml" > "$WORK/plan.json" || rc=$?
expect_eq "$rc" 2 "plan exit code"
n=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["changes"])' "$WORK/plan.json")
[ "$n" -ge 8 ] || fail "only $n actions planned"
before() { full_state $devs; sysctl_of net.ipv4.ip_forward; }
before > "$WORK/before"
same() {
	before > "$WORK/now"
	diff -u "$WORK/before" "$WORK/now" > "$WORK/diff" || { cat "$WORK/diff"; fail "$1: the host differs from before"; }
}

# 1. a signal right after every write
k=1
while [ "$k" -le "$n" ]; do
	for sig in 15 1 2; do
		at="signal $sig after write $k of $n"
		rc=0
		env NETTUNE_SIGNAL_STEP=$k NETTUNE_SIGNAL=$sig "$NETTUNE_ANSIBLE" "$WORK/args" \
			> "$WORK/res" 2> "$WORK/reserr" || rc=$?
		# the result and the newest journal, checked in one process
		python3 "$SRCROOT/tests/ansible/fault_case.py" "$WORK/res" "$NETTUNE_STATE_DIR" "$rc" "$sig" \
			> "$WORK/case" || { cat "$WORK/reserr" >&2; fail "$at: $(cat "$WORK/case")"; }
		same "$at"
	done
	k=$((k + 1))
done
count=$(journals)
expect_eq "$count" $((3 * n)) "journals after $n x 3 signals"

# 2. before the profile is compiled: nothing is applied
runm "$WORK/args" env NETTUNE_SIGNAL_STEP=before NETTUNE_SIGNAL=15
expect_eq "$rc" 1 "signal before: exit status"
expect_eq "$(res outcome)" '"not-applied"' "signal before: outcome"
expect_eq "$(res signal)" 15 "signal before: signal"
expect_eq "$(res journal)" null "signal before: journal"
res msg | grep -qF '"interrupted by signal 15 before the apply; nothing was changed' ||
	fail "signal before: msg $(res msg)"
expect_eq "$(journals)" "$count" "signal before: journals"
same "signal before"

# 3. after the apply returned: converged stays converged
runm "$WORK/args" env NETTUNE_SIGNAL_STEP=after NETTUNE_SIGNAL=15
expect_eq "$rc" 0 "signal after: exit status"
expect_eq "$(res outcome)" '"converged"' "signal after: outcome"
expect_eq "$(res changed)" true "signal after: changed"
expect_eq "$(res signal)" 15 "signal after: signal"
expect_eq "$(res journal)" "\"$(jr id)\"" "signal after: journal"
expect_eq "$(jr state)" applied "signal after: journal on disk"
res warnings | grep -qF "signal 15 arrived after the last change was verified; the host stays converged" ||
	fail "signal after: warnings $(res warnings)"
expect_eq "$(mtu nfa0)" 9000 "signal after: nfa0 MTU"
expect_eq "$(sysctl_of net.ipv4.ip_forward)" 1 "signal after: ip_forward"
nt rollback > /dev/null
same "rollback of the apply signalled after"

# 4. rollback incomplete: the last write fails (the hook), and every write
# of the sysctl after the apply's own fails with EIO (strace; LeakSanitizer
# cannot run under ptrace)
runm "$WORK/args" env ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" NETTUNE_FAIL_STEP="$n" \
	strace -qq -o /dev/null -P /proc/sys/net/ipv4/ip_forward -e trace=write -e inject=write:error=EIO:when=2+
id=$(jr id)
expect_eq "$rc" 1 "rollback incomplete: exit status"
expect_eq "$(res outcome)" '"rollback-incomplete"' "rollback incomplete: outcome"
expect_eq "$(res failed)" true "rollback incomplete: failed"
expect_eq "$(res changed)" true "rollback incomplete: changed"
expect_eq "$(res signal)" null "rollback incomplete: signal"
expect_eq "$(res journal)" "\"$id\"" "rollback incomplete: journal"
expect_eq "$(res journal_state)" '"rollback-incomplete"' "rollback incomplete: journal_state"
expect_eq "$(jr state)" rollback-incomplete "rollback incomplete: journal on disk"
expect_eq "$(res not_restored)" '[{"setting": "sysctl net.ipv4.ip_forward", "before": "0", "now": "1"}]' \
	"rollback incomplete: not_restored"
res msg | grep -q "^\"apply failed (.*: injected failure at step $n); rollback incomplete: 1 setting not restored (journal $id, left rollback-incomplete): sysctl net.ipv4.ip_forward; restore them with 'nettune rollback $id'" ||
	fail "rollback incomplete: msg $(res msg)"
expect_eq "$(sysctl_of net.ipv4.ip_forward)" 1 "rollback incomplete: ip_forward"
full_state $devs > "$WORK/devs-now"
sed '$d' "$WORK/before" | diff -u - "$WORK/devs-now" ||
	fail "rollback incomplete: a device setting besides the sysctl is not as before"
nt rollback "$id" > /dev/null
expect_eq "$(jr state)" failed "rollback incomplete, then nettune rollback: journal (a failed apply's)"
same "rollback incomplete, then nettune rollback"
echo "ok: $n writes x SIGTERM/SIGHUP/SIGINT rolled back and reported; before, after; rollback-incomplete names the setting"
