#!/bin/sh
# First README command: install what is missing, build, and run nettune on the
# bundled X710 WireGuard gateway example (no NIC needed: it plans against a
# snapshot of that host).
set -eu
cd "$(dirname "$0")/.."
scripts/deps.sh build
[ -d build ] || meson setup build >/dev/null
ninja -C build >/dev/null
set -x
build/nettune validate examples/*.yaml profiles/*.yaml
build/nettune caps intel-x710 | head -n 12
build/nettune plan examples/x710-wireguard-gateway.yaml --state examples/states/x710-wireguard-gateway.json || [ $? -eq 2 ]
