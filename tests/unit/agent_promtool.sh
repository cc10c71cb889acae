#!/bin/sh
# promtool check metrics (Prometheus' own parser and linter) on the
# textfile the agent's metrics writer makes from awkward label values
# (quotes, backslashes, newlines, invalid UTF-8, braces); and no series
# twice, which promtool does not check but the collector refuses.
# Usage: agent_promtool.sh TEST_AGENT_METRICS
set -eu
exe=${1:?usage: agent_promtool.sh TEST_AGENT_METRICS}
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! command -v promtool >/dev/null; then
	[ "${CI:-}" != true ] || fail "promtool missing in CI (scripts/deps.sh test installs prometheus)"
	echo "SKIP: promtool missing (Debian package prometheus)"
	exit 77
fi
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT INT TERM
"$exe" --write "$W/nettune.prom" || fail "the writer failed"
[ -s "$W/nettune.prom" ] || fail "empty file"
promtool check metrics < "$W/nettune.prom" > "$W/out" 2>&1 ||
	{ cat "$W/out" >&2; fail "promtool check metrics"; }
# silent on a good file; anything it says is a lint finding
[ ! -s "$W/out" ] || { cat "$W/out" >&2; fail "promtool check metrics printed findings"; }
grep -v '^#' "$W/nettune.prom" | sed 's/ [^ ]*$//' | sort | uniq -d > "$W/dups"
[ ! -s "$W/dups" ] || { cat "$W/dups" >&2; fail "series written twice"; }
# the awkward values are there, escaped
grep -qF 'interface="a\"b"' "$W/nettune.prom" || fail "no escaped double quote"
grep -qF 'interface="new\nline"' "$W/nettune.prom" || fail "no escaped newline"
grep -qF 'interface="back\\slash"' "$W/nettune.prom" || fail "no escaped backslash"
# each histogram: buckets never decrease, +Inf equals _count (promtool
# does not look)
awk -F'[{}]' '
/^nettune_agent_correction_latency_seconds_bucket/ {
	split($2, l, "\""); v = $3 + 0
	if (l[2] == c && v < last) { print "decreasing: " $0; bad = 1 }
	c = l[2]; last = v; if (l[4] == "+Inf") inf[c] = v
}
/^nettune_agent_correction_latency_seconds_count/ {
	split($2, l, "\""); n++
	if (!(l[2] in inf) || inf[l[2]] != $3 + 0) { print "+Inf is not _count: " $0; bad = 1 }
}
END { if (n != 7) { print n " histograms, not 7"; bad = 1 } exit bad }' "$W/nettune.prom" ||
	fail "histogram"
echo "ok: promtool check metrics, $(grep -vc '^#' "$W/nettune.prom") samples"
