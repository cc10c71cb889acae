#!/bin/sh
# One command for every benchmark (bench/README.md): builds nettune and the
# floor programs (bench/floor_apply.c for (a) and (b), floor_plan.c for (c),
# floor_batch.c for (d)), checks the tools, runs bench/bench.py and writes
# bench/RESULTS.md.  The baseline of (a) is the per-change script (one
# ethtool/ip command per change) run by one shell inside the namespace.
# usage: bench/run.sh [--runs N] [--only a,b,c,d,e] [--profiles N]
#                     [--series 16,64,256,1024] [--series-runs N]
# (e) is the scaling series (N veth devices; NT_BENCH_SERIES=16,64 for a
# quick run, --only e for the series alone).
# (a), (b) and (e) need root (private network namespaces, deleted at exit
# or interrupt); (c) and (d) do not.
set -eu
cd "$(dirname "$0")/.."
only=a,b,c,d,e
prev=
for a in "$@"; do
	[ "$prev" = --only ] && only=$a
	case $a in --only=*) only=${a#--only=} ;; esac
	prev=$a
done
case ",$only," in
*,a,*|*,b,*|*,e,*)
	[ "$(id -u)" -eq 0 ] || { echo "bench/run.sh: (a), (b) and (e) need root (a private network namespace)" >&2; exit 1; } ;;
esac
missing=
for t in ip ethtool strace python3 /usr/bin/time cc pkg-config; do
	command -v "$t" >/dev/null 2>&1 || missing="$missing $t"
done
# the baseline is Debian's python3-jsonschema, run by the system python
/usr/bin/python3 -c 'import jsonschema, yaml' 2>/dev/null || missing="$missing python3-jsonschema/python3-yaml"
pkg-config --exists yaml-0.1 libcrypto 2>/dev/null || missing="$missing libyaml-dev/libssl-dev"
[ -z "$missing" ] || { echo "bench/run.sh: missing:$missing (apt-get install iproute2 ethtool strace time gcc pkg-config python3-jsonschema python3-yaml libyaml-dev libssl-dev)" >&2; exit 1; }
# nettune with libyaml, libcyaml, libnl-3 and libcrypto linked in
# (-Dstatic_deps=true: issue 19 counts static linking in (b)'s start-up;
# glibc stays dynamic, as for the floors), in a build directory of its own
[ -d build-bench ] || meson setup build-bench -Dstatic_deps=true -Dtests=false >/dev/null
ninja -C build-bench nettune >/dev/null
# the floors: only the unavoidable work of each benchmark
mkdir -p build
cc -O2 -o build/floor_apply bench/floor_apply.c $(pkg-config --cflags --libs yaml-0.1)
cc -O2 -o build/floor_plan bench/floor_plan.c
cc -O2 -o build/floor_batch bench/floor_batch.c $(pkg-config --cflags --libs yaml-0.1 libcrypto)
export FLOOR_APPLY="$PWD/build/floor_apply" FLOOR_PLAN="$PWD/build/floor_plan" FLOOR_BATCH="$PWD/build/floor_batch"
NETTUNE=${NETTUNE:-$PWD/build-bench/nettune} exec python3 bench/bench.py "$@"
