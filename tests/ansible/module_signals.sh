#!/bin/sh
# The Ansible module has the CLI's signal semantics and always prints one
# result object (module run directly, as Ansible runs it: MODULE ARGSFILE),
# with real signals delivered at fixed system calls by strace (no sleeps):
# - SIGTERM, SIGHUP, SIGINT at the apply lock (before the first write):
#   outcome not-applied, no journal, the host as before;
# - SIGTERM at the first write (a sysctl in the namespace): the write
#   finishes, everything is rolled back: outcome rolled-back, journal
#   failed, ethtool -k/-l, ip -d link and the sysctl as before;
# - stdout a closed pipe: no SIGPIPE death; the apply converges and exits 0;
# - the outcomes planned (state=planned, check mode), converged, unchanged;
# - a file that is not a profile: "not a nettune profile (...)", none of its
#   content in msg.
# The same after write k of every step, and a rollback left incomplete, run
# in the fault build (module_faults.sh).
. "$SRCROOT/tests/linux/lib.sh"
. "$SRCROOT/tests/ansible/modlib.sh"
command -v strace >/dev/null || { echo "SKIP: strace missing (scripts/deps.sh test installs it)"; exit 77; }
# LeakSanitizer cannot run under ptrace (a -Db_sanitize build)
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
veth_pair nma0 nmb0
devs="nma0 nmb0"
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: module-signals, host: any}
target: linux
sysctl:
  net.ipv4.ip_forward: "1"
interfaces:
  - {name: nma0, nic: veth, mtu: 9000, offloads: {gro: on, tso: off}, channels: {rx: 2, tx: 3}}
  - {name: nmb0, nic: veth, mtu: 4000, offloads: {gro: off, gso: off}}
YAML
margs "$WORK/args" profile "$WORK/p.yaml"
before() { full_state $devs; sysctl_of net.ipv4.ip_forward; }
before > "$WORK/before"
expect_eq "$(sysctl_of net.ipv4.ip_forward)" 0 "ip_forward in a new namespace"
same() {
	before > "$WORK/now"
	diff -u "$WORK/before" "$WORK/now" > "$WORK/diff" || { cat "$WORK/diff"; fail "$1: the host differs from before"; }
}

# 1. a real signal at the lock, after the plan and before the first write
for sig in TERM HUP INT; do
	runm "$WORK/args" strace -qq -o /dev/null -e trace=flock -e inject=flock:signal=$sig:when=1
	case $sig in TERM) num=15 ;; HUP) num=1 ;; INT) num=2 ;; esac
	expect_eq "$rc" 1 "SIG$sig at the lock: exit status"
	expect_eq "$(res outcome)" '"not-applied"' "SIG$sig at the lock: outcome"
	expect_eq "$(res failed)" true "SIG$sig at the lock: failed"
	expect_eq "$(res changed)" false "SIG$sig at the lock: changed"
	expect_eq "$(res signal)" "$num" "SIG$sig at the lock: signal"
	expect_eq "$(res journal)" null "SIG$sig at the lock: journal"
	res msg | grep -qF "interrupted by signal $num before the first change; nothing was changed" ||
		fail "SIG$sig at the lock: msg $(res msg)"
	expect_eq "$(journals)" 0 "SIG$sig at the lock: journals"
	same "SIG$sig at the lock"
done

# 2. a real SIGTERM at the first write (the sysctl, the plan's first step)
runm "$WORK/args" strace -qq -o /dev/null -P /proc/sys/net/ipv4/ip_forward -e trace=write \
	-e inject=write:signal=TERM:when=1
expect_eq "$rc" 1 "SIGTERM at the first write: exit status"
expect_eq "$(res outcome)" '"rolled-back"' "SIGTERM at the first write: outcome"
expect_eq "$(res changed)" false "SIGTERM at the first write: changed"
expect_eq "$(res signal)" 15 "SIGTERM at the first write: signal"
expect_eq "$(res journal)" "\"$(jr id)\"" "SIGTERM at the first write: journal id"
expect_eq "$(res journal_state)" '"failed"' "SIGTERM at the first write: journal_state"
expect_eq "$(jr state)" failed "SIGTERM at the first write: journal on disk"
expect_eq "$(res not_restored)" "[]" "SIGTERM at the first write: not_restored"
res msg | grep -q '^"interrupted by signal 15; rolled back: the host is as before' ||
	fail "SIGTERM at the first write: msg $(res msg)"
same "SIGTERM at the first write"

# 3. planned and check mode: outcome planned, nothing written
margs "$WORK/args-planned" profile "$WORK/p.yaml" state planned
runm "$WORK/args-planned"
expect_eq "$rc" 0 "planned: exit status"
expect_eq "$(res outcome)" '"planned"' "planned: outcome"
expect_eq "$(res changed)" false "planned: changed"
sed 's/"_ansible_check_mode": false/"_ansible_check_mode": true/' "$WORK/args" > "$WORK/args-check"
runm "$WORK/args-check"
expect_eq "$(res outcome)" '"planned"' "check mode: outcome"
expect_eq "$(res changed)" true "check mode: changed"
expect_eq "$(journals)" 1 "planned and check mode wrote a journal"
same "planned and check mode"

# 4. stdout a pipe whose reader is gone: SIGPIPE is ignored, the apply
# converges, the exit status is the result's, and stderr says what was lost
rc=0
python3 - "$NETTUNE_ANSIBLE" "$WORK/args" "$WORK/pipeerr" <<'PY' || rc=$?
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
with open(sys.argv[3], "wb") as err:
    p = subprocess.run([sys.argv[1], sys.argv[2]], stdout=w, stderr=err)
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)
PY
expect_eq "$rc" 0 "closed stdout: exit status"
grep -q "the result (outcome converged) could not be written to stdout: Broken pipe" "$WORK/pipeerr" ||
	{ cat "$WORK/pipeerr"; fail "closed stdout: stderr does not say the result was lost"; }
expect_eq "$(jr state)" applied "closed stdout: journal"
expect_eq "$(mtu nma0)" 9000 "closed stdout: nma0 MTU"
expect_eq "$(feature nma0 generic-receive-offload)" on "closed stdout: nma0 GRO"
expect_eq "$(sysctl_of net.ipv4.ip_forward)" 1 "closed stdout: ip_forward"

# 5. converged already: unchanged, no journal
runm "$WORK/args"
expect_eq "$rc" 0 "second run: exit status"
expect_eq "$(res outcome)" '"unchanged"' "second run: outcome"
expect_eq "$(res changed)" false "second run: changed"
expect_eq "$(res journal)" null "second run: journal"
expect_eq "$(journals)" 2 "second run wrote a journal"
# back to the start, then converged with the result on stdout
"$NETTUNE" --netns "$NS" rollback > /dev/null
same "rollback of the closed-stdout apply"
runm "$WORK/args"
expect_eq "$rc" 0 "apply: exit status"
expect_eq "$(res outcome)" '"converged"' "apply: outcome"
expect_eq "$(res changed)" true "apply: changed"
expect_eq "$(res journal)" "\"$(jr id)\"" "apply: journal"
expect_eq "$(res journal_state)" '"applied"' "apply: journal_state"
expect_eq "$(res signal)" null "apply: signal"
"$NETTUNE" --netns "$NS" rollback > /dev/null

# 6. files that are not profiles: why, without a byte of them
# shellcheck disable=SC2016 # a literal $6$ hash, as in /etc/shadow
printf 'root:$6$SeCrEtHaSh:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n' > "$WORK/shadow"
printf 'token: SeCrEtHaSh\n' > "$WORK/map"
printf -- '- SeCrEtHaSh\n' > "$WORK/seq"
printf 'SeCrEtHaSh\000\001' > "$WORK/bin"
printf 'a: SeCrEtHaSh\na: SeCrEtHaSh\n' > "$WORK/dup"
: > "$WORK/empty"
for bad in shadow map seq bin dup empty; do
	margs "$WORK/args-$bad" profile "$WORK/$bad" state planned
	runm "$WORK/args-$bad"
	expect_eq "$rc" 1 "$bad: exit status"
	expect_eq "$(res outcome)" '"not-applied"' "$bad: outcome"
	! grep -q SeCrEtHaSh "$WORK/res" || fail "$bad: the result quotes the file: $(res msg)"
	res msg | grep -q "^\"$WORK/$bad: not a nettune profile ([^)]*)\"\$" || fail "$bad: msg $(res msg)"
done
res msg | grep -qF "(the file is empty)" || fail "empty: msg $(res msg)"
# a profile with a YAML error keeps its located diagnostic
printf 'apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: [x\n' > "$WORK/broken.yaml"
margs "$WORK/args-broken" profile "$WORK/broken.yaml" state planned
runm "$WORK/args-broken"
res msg | grep -qF "\"$WORK/broken.yaml:4:1: error: " || fail "broken profile: msg $(res msg)"
same "the refused files"
echo "ok: SIGTERM/SIGHUP/SIGINT at the lock and SIGTERM at the first write reported and undone; closed stdout; outcomes; no file content in errors"
