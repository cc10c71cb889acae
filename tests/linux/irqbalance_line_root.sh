#!/bin/sh
# The irqbalance ban's step line in apply output says "from -> to" and ends
# with a newline, and show prints its old value (no ban: "") instead of a C
# "(null)": a --root fixture with irqbalance, nothing banned before.
set -eu
: "${NETTUNE:?}" "${SRCROOT:?}"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
export NETTUNE_STATE_DIR="$WORK/state"
fail() { echo "FAIL: $*" >&2; exit 1; }
R="$WORK/root"
python3 "$SRCROOT/tests/fixtures/mkroot.py" "$R" --queues 2 --node 0 --irqbalance
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-x710}
target: linux
interfaces:
  - name: enp1s0f0
    irq: {policy: numa-local-spread, irqbalance: ban}
YAML
"$NETTUNE" --root "$R" apply --yes "$WORK/p.yaml" > "$WORK/apply" 2>&1 || { cat "$WORK/apply"; fail "apply failed"; }
grep -Eq '^  \[[0-9]+/[0-9]+ \+[0-9.]+s\] changed  irqbalance banned-irqs: "" -> 201,202$' "$WORK/apply" ||
	{ cat "$WORK/apply"; fail "the irqbalance step line"; }
grep -q '^Applied ' "$WORK/apply" || { cat "$WORK/apply"; fail "the summary is not on its own line"; }
id=$(ls "$NETTUNE_STATE_DIR/journal" | sed -n 's/\.json$//p' | head -1)
"$NETTUNE" show "$id" > "$WORK/show" 2>&1 || { cat "$WORK/show"; fail "show exit $?"; }
! grep -q "(null)" "$WORK/show" || { cat "$WORK/show"; fail "show prints (null)"; }
grep -Eq '^ +[0-9]+  irqbalance banned-irqs: "" -> 201,202$' "$WORK/show" || { cat "$WORK/show"; fail "show's line"; }
echo ok
