#!/bin/sh
# Under --root nothing outside the root is read or written: symlinks in a
# fixture that point outside it (absolute, relative, to /) lead nowhere,
# and the file they aim at keeps its content and access time; a profile
# or an unsigned plan manifest whose names would leave /sys/class/net or
# /proc/sys is refused before any write.
set -eu
: "${NETTUNE:?}" "${SRCROOT:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
export NETTUNE_STATE_DIR="$WORK/state"
# unsigned manifests are accepted only without any trust directory: the
# default one must not exist (a configured one that is missing is an error)
unset NETTUNE_TRUST_DIR
[ ! -e /etc/nettune/trusted.d ] || { echo "SKIP: /etc/nettune/trusted.d exists"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
R="$WORK/root"
python3 "$SRCROOT/tests/fixtures/mkroot.py" "$R" --queues 4 --node 0
printf 'secret\n' > "$WORK/outside"
touch -d '2001-01-01 00:00:00' "$WORK/outside"
Q="$R/sys/class/net/enp1s0f0/queues"
# rx-0/rps_cpus -> the outside file (absolute); rx-1/rps_cpus climbs out
rm "$Q/rx-0/rps_cpus" "$Q/rx-1/rps_cpus"
ln -s "$WORK/outside" "$Q/rx-0/rps_cpus"
ln -s ../../../../../../../outside "$Q/rx-1/rps_cpus"
# the IRQ of queue 1 (202) -> / : its smp_affinity_list would be the real /proc's
rm -r "$R/proc/irq/202"
ln -s / "$R/proc/irq/202"
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-escape}
target: linux
interfaces:
  - name: enp1s0f0
    rps: {cpus: "1"}
YAML
rc=0; "$NETTUNE" --root "$R" apply --yes "$WORK/p.yaml" > "$WORK/out" 2> "$WORK/err" || rc=$?
grep -q "rps_cpus of enp1s0f0 queue 0: No such file or directory" "$WORK/err" || { cat "$WORK/err"; fail "escaping link message"; }
[ "$rc" -eq 1 ] || { cat "$WORK/out" "$WORK/err"; fail "apply through escaping links exit $rc"; }
# access time first: checking the content reads the file
[ "$(stat -c %X "$WORK/outside")" = "$(date -d '2001-01-01 00:00:00' +%s)" ] ||
	fail "the file outside the root was read"
[ "$(cat "$WORK/outside")" = secret ] || fail "the file outside the root was written"
[ -L "$Q/rx-0/rps_cpus" ] && [ -L "$Q/rx-1/rps_cpus" ] || fail "a link was replaced"
[ ! -e "$R$WORK/outside" ] || fail "a file was created below the root"
# the IRQ whose directory links to / is not observed from the live /proc
"$NETTUNE" --root "$R" observe --json > "$WORK/obs.json" 2>/dev/null || true
grep -q '"irq-affinity 1"' "$WORK/obs.json" && fail "observed the live /proc through a link"
# a profile whose sysctl key climbs out of /proc/sys: refused, nothing written
cat > "$WORK/s.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-escape}
target: linux
sysctl:
  net/../../../../outside: "x"
YAML
rc=0; "$NETTUNE" --root "$R" apply --yes "$WORK/s.yaml" > /dev/null 2> "$WORK/err" || rc=$?
[ "$rc" -eq 1 ] || fail "sysctl traversal exit $rc"
grep -q "is not a sysctl name" "$WORK/err" || { cat "$WORK/err"; fail "sysctl traversal message"; }
[ "$(cat "$WORK/outside")" = secret ] || fail "sysctl traversal wrote outside"
# an unsigned plan manifest naming ../../../x: refused before any write
rm "$Q/rx-0/rps_cpus" "$Q/rx-1/rps_cpus"
printf '00000000,00000000\n' > "$Q/rx-0/rps_cpus"
printf '00000000,00000000\n' > "$Q/rx-1/rps_cpus"
rc=0; "$NETTUNE" --root "$R" plan "$WORK/p.yaml" --out "$WORK/plan.json" > /dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "plan --out exit $rc"
for obj in '../../../x' 'a/b' '' 'abcdefghijklmnop' '..'; do
	sed "s|\"object\": \"enp1s0f0\"|\"object\": \"$obj\"|" "$WORK/plan.json" > "$WORK/bad.json"
	rc=0; "$NETTUNE" --root "$R" apply --yes "$WORK/bad.json" > /dev/null 2> "$WORK/err" || rc=$?
	[ "$rc" -eq 1 ] || fail "manifest object '$obj' exit $rc"
	grep -q "bad.json:[0-9]*:[0-9]*: error: .*object" "$WORK/err" || { cat "$WORK/err"; fail "manifest object '$obj' message"; }
	grep -q "is not a valid plan manifest; nothing was changed" "$WORK/err" || fail "manifest object '$obj' refusal"
	[ "$(cat "$Q/rx-0/rps_cpus")" = "00000000,00000000" ] || fail "manifest object '$obj' wrote"
done
sed 's|"attribute": "rps-cpus 0"|"attribute": "rps-cpus ../../x"|' "$WORK/plan.json" > "$WORK/bad.json"
rc=0; "$NETTUNE" --root "$R" apply --yes "$WORK/bad.json" > /dev/null 2> "$WORK/err" || rc=$?
[ "$rc" -eq 1 ] || fail "manifest queue traversal exit $rc"
grep -q 'argument "../../x" of rps-cpus ../../x is not a queue number 0..65535' "$WORK/err" ||
	{ cat "$WORK/err"; fail "manifest queue traversal message"; }
# the plan itself applies below the root
"$NETTUNE" --root "$R" apply --yes "$WORK/plan.json" > /dev/null 2>&1 || fail "good plan"
[ "$(cat "$Q/rx-0/rps_cpus")" = "00000000,00000002" ] || fail "rps_cpus not applied: $(cat "$Q/rx-0/rps_cpus")"
[ "$(cat "$WORK/outside")" = secret ] || fail "outside changed"
# a FIFO in the tree fails at once instead of hanging; a hardlink to a file
# outside the tree is not written; process affinity is never applied under
# --root (its PIDs are not this host's processes)
mkfifo "$R/proc/sys/net/core/somaxconn.fifo"
rm -f "$R/proc/sys/net/core/somaxconn"
mv "$R/proc/sys/net/core/somaxconn.fifo" "$R/proc/sys/net/core/somaxconn"
cat > "$WORK/f.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-escape}
target: linux
sysctl: {net.core.somaxconn: 4096}
YAML
rc=0; timeout 20 "$NETTUNE" --root "$R" plan "$WORK/f.yaml" > /dev/null 2>&1 || rc=$?
[ "$rc" -ne 124 ] || fail "a FIFO in the --root tree hung plan"
rm "$R/proc/sys/net/core/somaxconn"
printf '212992\n' > "$WORK/hostfile"
ln "$WORK/hostfile" "$R/proc/sys/net/core/rmem_max"
cat > "$WORK/h.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-escape}
target: linux
sysctl: {net.core.rmem_max: 1000}
YAML
rc=0; "$NETTUNE" --root "$R" apply --yes "$WORK/h.yaml" > /dev/null 2>&1 || rc=$?
[ "$rc" -eq 1 ] || fail "apply through a hardlink exit $rc"
[ "$(cat "$WORK/hostfile")" = 212992 ] || fail "a hardlinked file outside the tree was written"
sleep 300 & victim=$!
before_aff=$(taskset -p "$victim" | sed 's/.*: //')
mkdir -p "$R/proc/$victim/task/$victim"
printf 'nt-victim\n' > "$R/proc/$victim/comm"
printf 'Name:\tnt-victim\nCpus_allowed_list:\t0-1\n' > "$R/proc/$victim/status"
cat > "$WORK/pp.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-escape}
target: linux
processes:
  - {match: {comm: nt-victim}, cpus: "1"}
YAML
"$NETTUNE" --root "$R" apply --yes "$WORK/pp.yaml" > /dev/null 2>&1 || true
after_aff=$(taskset -p "$victim" | sed 's/.*: //')
kill "$victim"
[ "$before_aff" = "$after_aff" ] || fail "apply under --root pinned a real host process ($before_aff -> $after_aff)"
echo "ok: symlink escapes under --root, traversal names in profiles and unsigned manifests, FIFO, hardlink, host PIDs"
