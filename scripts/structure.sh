#!/bin/sh
# SPDX-License-Identifier: MIT
# Structure measures of the tree (docs/HACKING.md): function lengths of the
# non-test C sources (Universal Ctags), exported functions nobody outside
# their own file calls, and the tunable file counts.  Run from the source root.
set -eu
cd "$(dirname "$0")/.."
command -v ctags >/dev/null || { echo "structure.sh: needs Universal Ctags (apt-get install universal-ctags)" >&2; exit 2; }
files=$(git ls-files '*.c' | grep -v -e '^tests/' -e '^fuzz/' -e '^bench/')
lens=$(ctags --c-kinds=f --fields=+ne -o - $files | awk -F'\t' '$4=="f" {
	l = ""; e = ""
	for (i = 5; i <= NF; i++) { if ($i ~ /^line:/) l = substr($i, 6); if ($i ~ /^end:/) e = substr($i, 5) }
	if (e != "") print e - l + 1, $2 ":" $1 }' | sort -rn)
echo "functions over 150 lines: $(echo "$lens" | awk '$1 > 150' | wc -l)"
echo "functions over 80 lines: $(echo "$lens" | awk '$1 > 80' | wc -l)"
echo "$lens" | awk '$1 > 80 { print "  " $0 }'
none=0; own=0
for f in $(ctags --c-kinds=f --fields=+K -o - $files | awk -F'\t' '$0 !~ /\tfile:/ { print $1 ":" $2 }' | sort -u); do
	name=${f%%:*}; def=${f#*:}
	git grep -qw "$name" -- '*.c' '*.h' '*.in' ':!tests' ':!fuzz' ':!bench' ":!$def" ":!${def%.c}.h" && continue
	if git grep -qw "$name" -- tests fuzz; then
		echo "  called only by tests or fuzz targets (kept: a tested interface): $name ($def)"
	elif [ "$(git grep -cw "$name" -- "$def" | cut -d: -f2)" -gt 1 ]; then
		own=$((own + 1)); echo "  called only in its own file: $name ($def)"
	else
		none=$((none + 1)); echo "  no caller: $name ($def)"
	fi
done
echo "exported functions with no caller: $none; called only in their own file: $own"
