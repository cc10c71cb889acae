#!/bin/sh
# cli/heap.c: a one-shot command marks the top of its heap MADV_HUGEPAGE
# (one madvise of whole 2 MiB pages, seen with strace), not under
# MALLOC_PERTURB_ (meson's test runner sets it; glibc then writes every
# block), not for --version, not on a host that does not overcommit; when
# the heap cannot grow (RLIMIT_DATA below the reservation) the command
# runs as before; and what it prints is the same in every case.
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
E="$SRCROOT/examples"
PLAN="--any-host plan --state $E/states/x710-udp-gateway.json $E/x710-udp-gateway.yaml"
want=1
[ "$(cat /proc/sys/vm/overcommit_memory 2>/dev/null)" = 2 ] && want=0
# run TAG PERTURB DATA-LIMIT-KB ARGS...: output in $WORK/out.TAG, the
# madvise calls in $WORK/trace; prints the exit code
# shellcheck disable=SC2086 # $lim is empty or one word
run() {
	tag=$1 p=$2 d=$3
	shift 3
	rc=0
	lim=
	[ "$d" = - ] || lim="--data=$((d * 1024))"
	if [ "$p" = - ]; then
		env -u MALLOC_PERTURB_ prlimit $lim strace -f -qq -o "$WORK/trace" -e trace=madvise \
			"$NETTUNE" "$@" > "$WORK/out.$tag" 2>&1 || rc=$?
	else
		MALLOC_PERTURB_=$p prlimit $lim strace -f -qq -o "$WORK/trace" -e trace=madvise \
			"$NETTUNE" "$@" > "$WORK/out.$tag" 2>&1 || rc=$?
	fi
	echo "$rc"
}
calls() { grep -c 'MADV_HUGEPAGE' "$WORK/trace" || true; }

# shellcheck disable=SC2086 # PLAN is words
rc=$(run huge - - $PLAN)
[ "$rc" = 2 ] || fail "plan exited $rc, not 2 (changes): $(head -3 "$WORK/out.huge")"
grep -q 'rx-flow-hash udp4' "$WORK/out.huge" || fail "plan lacks its changes: $(head -3 "$WORK/out.huge")"
[ "$(calls)" = "$want" ] || fail "plan: $(calls) MADV_HUGEPAGE calls, want $want: $(cat "$WORK/trace")"
if [ "$want" = 1 ]; then
	python3 - "$WORK/trace" <<'PY' || fail "the MADV_HUGEPAGE range is not whole 2 MiB pages: $(cat "$WORK/trace")"
import re, sys
m = re.search(r"madvise\((0x[0-9a-f]+), (\d+), MADV_HUGEPAGE\)", open(sys.argv[1]).read())
assert m, "no madvise line"
a, n = int(m.group(1), 16), int(m.group(2))
assert a % (2 << 20) == 0 and n % (2 << 20) == 0 and n >= (2 << 20), (hex(a), n)
PY
fi

# shellcheck disable=SC2086
rc=$(run perturb 165 - $PLAN)
[ "$rc" = 2 ] || fail "plan under MALLOC_PERTURB_ exited $rc"
[ "$(calls)" = 0 ] || fail "MALLOC_PERTURB_ set, yet $(calls) MADV_HUGEPAGE calls"
cmp -s "$WORK/out.huge" "$WORK/out.perturb" || fail "plan's output differs under MALLOC_PERTURB_"

# the 30 MiB reservation cannot be had under a 20 MB data limit (the plan
# itself runs in 6 MB): no madvise, the same plan
# shellcheck disable=SC2086
rc=$(run small - 20000 $PLAN)
[ "$rc" = 2 ] || fail "plan under RLIMIT_DATA 20 MB exited $rc: $(head -3 "$WORK/out.small")"
[ "$(calls)" = 0 ] || fail "RLIMIT_DATA 20 MB, yet $(calls) MADV_HUGEPAGE calls"
cmp -s "$WORK/out.huge" "$WORK/out.small" || fail "plan's output differs when the heap cannot be reserved"

rc=$(run validate - - validate "$E/x710-udp-gateway.yaml")
[ "$rc" = 0 ] || fail "validate exited $rc"
[ "$(calls)" = "$want" ] || fail "validate: $(calls) MADV_HUGEPAGE calls, want $want"

rc=$(run version - - --version)
[ "$rc" = 0 ] || fail "--version exited $rc"
[ "$(calls)" = 0 ] || fail "--version made $(calls) MADV_HUGEPAGE calls"
echo "ok: $want MADV_HUGEPAGE for plan and validate; none under MALLOC_PERTURB_, RLIMIT_DATA 20 MB or for --version; the same plan in all three"
