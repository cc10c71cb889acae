#!/bin/sh
# A /proc/interrupts far over any fixed read size (96 CPUs, 8 NICs x 128
# IRQs: over 128 KiB) is read whole: the plan observes every queue IRQ,
# none is "(not observed)", and every affinity action starts from the
# file's value.
set -eu
: "${NETTUNE:?}" "${SRCROOT:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
export NETTUNE_STATE_DIR="$WORK/state"
fail() { echo "FAIL: $*" >&2; exit 1; }
R="$WORK/root"
python3 "$SRCROOT/tests/fixtures/mkroot.py" "$R" --cpus 96 --nics 8 --queues 127
size=$(wc -c < "$R/proc/interrupts")
[ "$size" -gt 131072 ] || fail "fixture /proc/interrupts is only $size bytes"
{
	printf 'apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: big-irq}\ntarget: linux\ninterfaces:\n'
	for k in 1 2 3 4 5 6 7 8; do
		echo "  - {name: enp${k}s0f0, irq: {policy: numa-local-spread}}"
	done
} > "$WORK/p.yaml"
rc=0; "$NETTUNE" --root "$R" plan "$WORK/p.yaml" > "$WORK/plan" 2>"$WORK/err" || rc=$?
[ "$rc" -eq 2 ] || { cat "$WORK/err"; fail "plan exit $rc"; }
! grep -q "not observed" "$WORK/plan" || { grep -m3 "not observed" "$WORK/plan"; fail "IRQs not observed"; }
n=$(grep -c "irq-affinity [0-9]* *0-95 -> " "$WORK/plan" || true)
[ "$n" -eq 1016 ] || { grep -m3 affinity "$WORK/plan"; fail "expected 1016 observed queue IRQs, got $n"; }
# the last IRQ of the last NIC (near the end of the file) is among them
grep -q "# irq 1223$" "$WORK/plan" || fail "the last queue IRQ of the last NIC (1223) is missing"
grep -q "Plan: 1016 changes, 0 disruptive." "$WORK/plan" || { tail -1 "$WORK/plan"; fail "plan size"; }
echo "ok: /proc/interrupts of $size bytes read whole, 1016 queue IRQs observed"
