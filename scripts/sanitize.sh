#!/bin/sh
# Runs the whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer:
# configures build-san (-Db_sanitize=address,undefined), builds, runs every
# test with leak detection on and any UB finding fatal.
# usage: scripts/sanitize.sh [meson test args...]   (e.g. --suite unit)
set -eu
cd "$(dirname "$0")/.."
dir=${SANITIZE_BUILD_DIR:-build-san}
[ -d "$dir" ] || meson setup "$dir" -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
ninja -C "$dir" >/dev/null
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# valgrind cannot run sanitized binaries; it has its own run in the normal build
rc=0
meson test -C "$dir" --print-errorlogs --timeout-multiplier 5 --no-suite valgrind "$@" || rc=$?
exit "$rc"
