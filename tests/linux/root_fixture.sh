#!/bin/sh
# IRQ affinity, RPS, XPS, sysctl and the irqbalance ban land in a --root
# fixture of a two-node host with a 64-queue X710 and are verified by
# reading the files back; re-planning finds nothing; a kernel-managed IRQ
# is refused before any write.
set -eu
: "${NETTUNE:?}" "${SRCROOT:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
export NETTUNE_STATE_DIR="$WORK/state"
fail() { echo "FAIL: $*" >&2; exit 1; }
R="$WORK/root"
python3 "$SRCROOT/tests/fixtures/mkroot.py" "$R" --queues 64 --node 1 --irqbalance
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-x710}
target: linux
host:
  numa:
    - {node: 0, cpus: "0-13,28-41"}
    - {node: 1, cpus: "14-27,42-55"}
  reserved_cpus: "0,28"
interfaces:
  - name: enp1s0f0
    irq: {policy: numa-local-spread, irqbalance: ban}
    rps: {cpus: numa-local, flow_cnt: 500}
    xps: {cpus: follow-irq}
sysctl:
  net.core.rps_sock_flow_entries: "32768"
YAML
rc=0; "$NETTUNE" --root "$R" plan "$WORK/p.yaml" > "$WORK/plan" 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "plan exit $rc"
grep -q "Plan: 258 changes, 0 disruptive." "$WORK/plan" || { tail -3 "$WORK/plan"; fail "plan size"; }
"$NETTUNE" --root "$R" apply --yes "$WORK/p.yaml" > "$WORK/apply" 2>/dev/null || fail "apply failed"
# node 1: physical cores 14..27, then their SMT siblings 42..55 (no
# reserved CPU there), then wrap: queue q -> the (q % 28)-th of them
q=0
while [ $q -lt 64 ]; do
	irq=$((201 + q))
	if [ $((q % 28)) -lt 14 ]; then want=$((14 + q % 28)); else want=$((42 + q % 28 - 14)); fi
	got=$(cat "$R/proc/irq/$irq/smp_affinity_list")
	[ "$got" = "$want" ] || fail "queue $q (irq $irq) affinity $got, want $want"
	[ "$(cat "$R/sys/class/net/enp1s0f0/queues/rx-$q/rps_cpus")" = "00fffc00,0fffc000" ] ||
		fail "rx-$q rps_cpus $(cat "$R/sys/class/net/enp1s0f0/queues/rx-$q/rps_cpus")"
	[ "$(cat "$R/sys/class/net/enp1s0f0/queues/rx-$q/rps_flow_cnt")" = 512 ] || fail "rps_flow_cnt not rounded to 512"
	q=$((q + 1))
done
[ "$(cat "$R/sys/class/net/enp1s0f0/queues/tx-5/xps_cpus")" = "00000000,00080000" ] ||
	fail "tx-5 xps_cpus $(cat "$R/sys/class/net/enp1s0f0/queues/tx-5/xps_cpus")"
[ "$(cat "$R/proc/sys/net/core/rps_sock_flow_entries")" = 32768 ] || fail "sysctl"
[ "$(cat "$R/proc/irq/200/smp_affinity_list")" = "0-55" ] || fail "the misc IRQ was touched"
grep -q -- "--banirq=201 --banirq=202" "$R/etc/systemd/system/irqbalance.service.d/50-nettune.conf" || fail "irqbalance drop-in"
grep -q -- "--banirq=200" "$R/etc/systemd/system/irqbalance.service.d/50-nettune.conf" && fail "misc IRQ banned"
rc=0; "$NETTUNE" --root "$R" plan "$WORK/p.yaml" > "$WORK/plan2" 2>/dev/null || rc=$?
[ "$rc" -eq 0 ] || fail "re-plan exit $rc"
# a snapshot of the converged fixture carries IRQ affinity, RPS, XPS, the
# irqbalance ban and the sysctl: plan --check against it is in sync
"$NETTUNE" --root "$R" observe --json > "$WORK/snap.json" || fail "observe --json"
rc=0; "$NETTUNE" plan --check "$WORK/p.yaml" --state "$WORK/snap.json" > "$WORK/check" 2>/dev/null || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/check"; fail "plan --check against the fixture's snapshot exit $rc"; }
grep -q '"attribute": "sysctl net.core.rps_sock_flow_entries", "value": "32768"' "$WORK/snap.json" ||
	fail "snapshot sysctl"
# processes: a user process and a service are recorded with their CPU
# affinity, a kernel thread (child of kthreadd) is not
mkdir -p "$R/proc/4243" "$R/proc/4244" "$R/sys/fs/cgroup/system.slice/wg-quick@wg0.service"
printf 'wgworker\n' > "$R/proc/4243/comm"
printf 'Name:\twgworker\nPPid:\t1\nCpus_allowed_list:\t2-3\n' > "$R/proc/4243/status"
printf 'kthr\n' > "$R/proc/4244/comm"
printf 'Name:\tkthr\nPPid:\t2\nCpus_allowed_list:\t0-55\n' > "$R/proc/4244/status"
printf '4243\n' > "$R/sys/fs/cgroup/system.slice/wg-quick@wg0.service/cgroup.procs"
"$NETTUNE" --root "$R" observe --json > "$WORK/snap2.json" || fail "observe --json (processes)"
grep -q '"object": "process wgworker", "attribute": "cpus", "value": "2-3"' "$WORK/snap2.json" || fail "process comm"
grep -q '"object": "process wg-quick@wg0.service", "attribute": "cpus", "value": "2-3"' "$WORK/snap2.json" || fail "process unit"
grep -q '"process kthr"' "$WORK/snap2.json" && fail "a kernel thread was recorded"
cat > "$WORK/procs.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-x710}
target: linux
processes:
  - {match: {comm: wgworker}, cpus: "2-3"}
  - {match: {systemd_unit: wg-quick@wg0.service}, cpus: "2-3"}
YAML
rc=0; "$NETTUNE" plan --check "$WORK/procs.yaml" --state "$WORK/snap2.json" > "$WORK/check" 2>/dev/null || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/check"; fail "processes against the snapshot exit $rc"; }
sed 's/cpus: "2-3"}$/cpus: "4"}/' "$WORK/procs.yaml" > "$WORK/procs2.yaml"
rc=0; "$NETTUNE" plan --check "$WORK/procs2.yaml" --state "$WORK/snap2.json" > "$WORK/check" 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || { cat "$WORK/check"; fail "process drift exit $rc"; }
grep -q "^  process wgworker cpus: 2-3 (want 4)$" "$WORK/check" || { cat "$WORK/check"; fail "process drift line"; }
# observe --profile of the tuned fixture: explicit per-queue IRQ sets, the
# RPS set and flow count, XPS following the IRQs; plan of it: no changes
"$NETTUNE" --root "$R" observe --profile > "$WORK/o.yaml" || fail "observe --profile"
"$NETTUNE" validate "$WORK/o.yaml" > "$WORK/v" 2>&1 || { cat "$WORK/v" "$WORK/o.yaml"; fail "observed profile invalid"; }
grep -q '^    nic: intel-x710$' "$WORK/o.yaml" || { cat "$WORK/o.yaml"; fail "nic id"; }
grep -q '^    irq: {policy: explicit, irqbalance: ignore, per_queue: \["14", "15", ' "$WORK/o.yaml" || { cat "$WORK/o.yaml"; fail "irq"; }
grep -q '^    rps: {cpus: "14-27,42-55", flow_cnt: 512}$' "$WORK/o.yaml" || { cat "$WORK/o.yaml"; fail "rps"; }
grep -q '^    xps: {cpus: follow-irq}$' "$WORK/o.yaml" || { cat "$WORK/o.yaml"; fail "xps"; }
rc=0; "$NETTUNE" --root "$R" plan "$WORK/o.yaml" > "$WORK/plan3" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || { cat "$WORK/o.yaml" "$WORK/plan3"; fail "plan of the observed profile exit $rc"; }
# a managed IRQ: refused at plan time, nothing written
R2="$WORK/root2"
python3 "$SRCROOT/tests/fixtures/mkroot.py" "$R2" --queues 8 --managed 3
rc=0; "$NETTUNE" --root "$R2" apply --yes "$WORK/p.yaml" > "$WORK/m.out" 2> "$WORK/m.err" || rc=$?
[ "$rc" -eq 1 ] || fail "managed IRQ apply exit $rc"
grep -q "irq-affinity 3 .*\[cannot change\]" "$WORK/m.out" || { cat "$WORK/m.out"; fail "managed IRQ not flagged"; }
grep -q "# irq 204, kernel-managed" "$WORK/m.out" || fail "managed IRQ note"
[ "$(cat "$R2/proc/irq/201/smp_affinity_list")" = "0-55" ] || fail "write before refusal"
echo "ok: fixture IRQ/RPS/XPS/sysctl/irqbalance, re-plan, managed IRQ"
