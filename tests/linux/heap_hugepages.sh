#!/bin/sh
# cli/heap.c: a one-shot command marks the top of its heap MADV_HUGEPAGE
# (one madvise, seen with strace), not under MALLOC_PERTURB_ (meson's test
# runner sets it; glibc then writes every block), not for --version, not
# on a host that does not overcommit; and what the command prints is the
# same either way.
set -eu
: "${NETTUNE:?}" "${SRCROOT:?}"
if ! command -v strace >/dev/null; then
	[ "${CI:-}" = true ] && { echo "FAIL: strace missing (scripts/deps.sh installs it)" >&2; exit 1; }
	echo "SKIP: strace missing"; exit 77
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT INT TERM
export NETTUNE_STATE_DIR="$WORK/state"
fail() { echo "FAIL: $*" >&2; exit 1; }
R="$WORK/root"
python3 "$SRCROOT/tests/fixtures/mkroot.py" "$R" --queues 64 --node 1 >/dev/null
cat > "$WORK/p.yaml" <<YAML
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: fixture-x710}
target: linux
host:
  numa:
    - {node: 0, cpus: "0-13,28-41"}
    - {node: 1, cpus: "14-27,42-55"}
interfaces:
  - name: enp1s0f0
    irq: {policy: numa-local-spread, irqbalance: ban}
    rps: {cpus: numa-local, flow_cnt: 500}
    xps: {cpus: follow-irq}
YAML
want=1
[ "$(cat /proc/sys/vm/overcommit_memory 2>/dev/null)" = 2 ] && want=0
run() { # $1: MALLOC_PERTURB_ or "", then the nettune arguments; prints rc
	p=$1; shift
	rc=0
	if [ -n "$p" ]; then
		MALLOC_PERTURB_=$p strace -f -qq -o "$WORK/trace" -e trace=madvise \
			"$NETTUNE" "$@" > "$WORK/out.$p" 2>&1 || rc=$?
	else
		env -u MALLOC_PERTURB_ strace -f -qq -o "$WORK/trace" -e trace=madvise \
			"$NETTUNE" "$@" > "$WORK/out.none" 2>&1 || rc=$?
	fi
	echo "$rc"
}
calls() { grep -c 'MADV_HUGEPAGE' "$WORK/trace" || true; }

rc=$(run "" --root "$R" plan "$WORK/p.yaml")
[ "$rc" = 2 ] || fail "plan exited $rc, not 2 (changes)"
grep -q 'irq-affinity' "$WORK/out.none" || fail "plan printed no IRQ affinity: $(head -3 "$WORK/out.none")"
[ "$(calls)" = "$want" ] || fail "plan: $(calls) MADV_HUGEPAGE calls, want $want: $(cat "$WORK/trace")"
# the reservation starts at a 2 MiB boundary and is a whole number of them
if [ "$want" = 1 ]; then
	grep 'MADV_HUGEPAGE' "$WORK/trace" | python3 -c '
import re, sys
m = re.search(r"madvise\((0x[0-9a-f]+), (\d+), MADV_HUGEPAGE\)", sys.stdin.read())
assert m, "no madvise line"
a, n = int(m.group(1), 16), int(m.group(2))
assert a % (2 << 20) == 0 and n % (2 << 20) == 0 and n >= (2 << 20), (hex(a), n)
' || fail "the MADV_HUGEPAGE range is not whole 2 MiB pages: $(cat "$WORK/trace")"
fi

rc=$(run 165 --root "$R" plan "$WORK/p.yaml")
[ "$rc" = 2 ] || fail "plan under MALLOC_PERTURB_ exited $rc"
[ "$(calls)" = 0 ] || fail "MALLOC_PERTURB_ set, yet $(calls) MADV_HUGEPAGE calls"
cmp -s "$WORK/out.none" "$WORK/out.165" || fail "plan's output differs with the heap in huge pages"

rc=$(run "" validate "$WORK/p.yaml")
[ "$rc" = 0 ] || fail "validate exited $rc"
[ "$(calls)" = "$want" ] || fail "validate: $(calls) MADV_HUGEPAGE calls, want $want"

rc=$(run "" --version)
[ "$rc" = 0 ] || fail "--version exited $rc"
[ "$(calls)" = 0 ] || fail "--version made $(calls) MADV_HUGEPAGE calls"
echo "ok: one MADV_HUGEPAGE ($want) for plan and validate, none under MALLOC_PERTURB_ or for --version, same output"
