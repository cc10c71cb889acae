#!/bin/sh
# fuzz/run.sh FUZZER SECONDS SEED... : runs a libFuzzer target for SECONDS
# (0: until stopped) from its seed corpora.  New inputs go to $FUZZ_CORPUS
# (default: a temporary directory, removed at the end), crashes to
# $FUZZ_ARTIFACTS (default: the current directory).  Extra libFuzzer flags
# in $FUZZ_FLAGS.  Exits non-zero on a crash, leak or timeout.
set -eu
fuzzer=$1 secs=$2
shift 2
tmp=
if [ -z "${FUZZ_CORPUS:-}" ]; then
	tmp=$(mktemp -d)
	FUZZ_CORPUS=$tmp
	trap 'rm -rf "$tmp"' EXIT INT TERM
fi
mkdir -p "$FUZZ_CORPUS"
seeds=
for s in "$@"; do
	[ -e "$s" ] && seeds="$seeds $s"
done
dict=$(dirname "$0")/$(basename "$fuzzer" | sed 's/^fuzz-//').dict
[ -f "$dict" ] && dict="-dict=$dict" || dict=
art=${FUZZ_ARTIFACTS:-$PWD}
mkdir -p "$art"
rc=0
# shellcheck disable=SC2086
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=16384 $dict \
	-print_final_stats=1 -artifact_prefix="$art/" ${FUZZ_FLAGS:-} "$FUZZ_CORPUS" $seeds || rc=$?
exit $rc
