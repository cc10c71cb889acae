#!/bin/sh
# One command for every benchmark (bench/README.md): builds nettune,
# checks the tools, runs bench/bench.py and writes bench/RESULTS.md.
# usage (as root): bench/run.sh [--runs N] [--only a,b,c,d] [--profiles N]
set -eu
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "bench/run.sh: run as root (a private network namespace)" >&2; exit 1; }
missing=
for t in ip ethtool strace python3 /usr/bin/time; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
python3 -c 'import jsonschema, yaml' 2>/dev/null || missing="$missing python3-jsonschema/python3-yaml"
[ -z "$missing" ] || { echo "bench/run.sh: missing:$missing (apt-get install iproute2 ethtool strace time python3-jsonschema python3-yaml)" >&2; exit 1; }
[ -d build ] || meson setup build >/dev/null
ninja -C build nettune >/dev/null
NETTUNE=${NETTUNE:-$PWD/build/nettune} exec python3 bench/bench.py "$@"
