#!/bin/sh
# Second README command: install test dependencies, build, run every test.
# Ends with the line "N passed, N failed".
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh test
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
rc=0
meson test -C build --print-errorlogs "$@" || rc=$?
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
ok = bad = skip = 0
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    r = json.loads(line)["result"]
    if r in ("OK", "EXPECTEDFAIL"):
        ok += 1
    elif r == "SKIP":
        skip += 1
    else:
        bad += 1
print(f"{ok} passed, {bad} failed" + (f", {skip} skipped" if skip else ""))
PY
exit "$rc"
