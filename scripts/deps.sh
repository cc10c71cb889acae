#!/bin/sh
# Installs the Debian packages nettune needs to build and test, if missing.
# Usage: scripts/deps.sh [build|test]
set -eu
build_pkgs="meson ninja-build pkg-config gcc libyaml-dev libcyaml-dev libnl-3-dev libnl-genl-3-dev libnl-route-3-dev libssl-dev libcunit1-dev"
# chromium (and a font for its text): watch-render draws the --svg map
# headless and checks the PNG; it fails in CI (CI=true) without it;
# prometheus: promtool checks the agent's metrics textfile (agent_promtool),
# which fails in CI without it too
test_pkgs="ethtool iproute2 shellcheck python3-jsonschema python3-yaml openssl procps ansible-core groff-base man-db strace valgrind clang osslsigncode pre-commit yamllint debhelper dpkg-dev lintian chromium fonts-dejavu-core prometheus"
want="$build_pkgs"
[ "${1:-build}" = test ] && want="$want $test_pkgs"
# emit tests: tree-sitter-powershell (a real PowerShell grammar) for the .ps1
# syntax check, installed once into tests/.node
if [ "${1:-build}" = test ] && [ ! -d tests/.node/node_modules/tree-sitter-powershell ] &&
	command -v npm >/dev/null 2>&1; then
	mkdir -p tests/.node
	(cd tests/.node && npm install --no-audit --no-fund --silent web-tree-sitter tree-sitter-powershell >/dev/null) ||
		echo "nettune: npm install of tree-sitter-powershell failed; the ps1 parse test will be skipped" >&2
fi
# ci tests: the YAML 1.2 parser and JSON Schema validator editors use
if [ "${1:-build}" = test ] && [ ! -d tests/.node/node_modules/ajv ] &&
	command -v npm >/dev/null 2>&1; then
	mkdir -p tests/.node
	(cd tests/.node && npm install --no-audit --no-fund --silent yaml ajv >/dev/null) ||
		echo "nettune: npm install of yaml and ajv failed; the editor schema tests will fail" >&2
fi
missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "nettune: missing Debian packages:$missing (run as root or install them)" >&2
	exit 1
fi
echo "nettune: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
