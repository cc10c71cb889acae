#!/bin/sh
# Second README command: install test dependencies, build, run every test.
# Ends with the line "N passed, N failed" taken from meson's test summary.
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh test
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
log=$(mktemp)
blog=$(mktemp)
bpid=
trap 'rm -f "$log" "$blog"; [ -z "$bpid" ] || kill "$bpid" 2>/dev/null' EXIT
# The fault and fuzz builds compile on one core at the lowest priority
# while the main suite runs: many of its tests run alone (network
# namespaces, timed confirm windows) and leave the other core idle.
if [ $# -eq 0 ]; then
	(
		[ -d build-fault ] || meson setup build-fault -Dfault_injection=true \
			-Db_sanitize=address,undefined -Db_lundef=false >/dev/null
		nice -n 19 ninja -j1 -C build-fault nettune ansible/nettune >/dev/null
		if command -v clang >/dev/null; then
			[ -d build-fuzz ] || CC=clang meson setup build-fuzz -Dfuzzing=true \
				-Db_lundef=false -Dtests=false >/dev/null
			nice -n 19 ninja -j1 -C build-fuzz >/dev/null
		fi
	) > "$blog" 2>&1 &
	bpid=$!
fi
rc=0
meson test -C build --print-errorlogs "$@" > "$log" 2>&1 || rc=$?
if [ -n "$bpid" ]; then
	wait "$bpid" || { cat "$blog"; echo "the fault or fuzz build failed"; rc=1; }
	bpid=
fi
cat "$log"
grep -q '^Ok:' "$log" || rc=1
# Fault injection needs the test hook compiled in: a second build dir
# (tests/fault; the whole tree is not re-tested there).  It is built with
# ASan + UBSan, so every failed step, signal and rollback of that suite is
# also checked for memory errors and undefined behaviour.
if [ $# -eq 0 ]; then
	# built beside the main suite (above); anything left, on both cores
	ninja -C build-fault nettune ansible/nettune >/dev/null
	flog=$(mktemp)
	ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
	meson test -C build-fault --no-rebuild --suite fault --print-errorlogs > "$flog" 2>&1 || rc=$?
	cat "$flog"
	grep -q '^Ok:' "$flog" || rc=1
	cat "$flog" >> "$log"
	rm -f "$flog"
fi
# Fuzz smoke run (fuzz/README.md): each libFuzzer target for
# fuzz_smoke_seconds (12 s, so that CI stays under 20 minutes; set it
# higher for a longer run) from its seeds, in a clang build of its own.
if [ $# -eq 0 ] && command -v clang >/dev/null; then
	ninja -C build-fuzz >/dev/null
	flog=$(mktemp)
	meson test -C build-fuzz --no-rebuild --suite fuzz --print-errorlogs > "$flog" 2>&1 || rc=$?
	cat "$flog"
	grep -q '^Ok:' "$flog" || rc=1
	cat "$flog" >> "$log"
	rm -f "$flog"
elif [ $# -eq 0 ]; then
	echo "note: clang not installed; fuzz smoke run skipped (fuzz/README.md)"
fi
awk '/^Ok:/ {ok+=$2} /^Expected Fail:/ {xf+=$3} /^Fail:/ {f+=$2} /^Unexpected Pass:/ {up+=$3}
     /^Timeout:/ {t+=$2} /^Skipped:/ {s+=$2}
     END { printf "%d passed, %d failed", ok + xf, f + up + t; if (s) printf ", %d skipped", s; printf "\n" }' "$log"
exit "$rc"
