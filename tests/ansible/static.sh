#!/bin/sh
# The Ansible module is self-contained: ldd lists only glibc's libraries,
# and it runs (a profile that extends a bundled policy, planned against the
# loopback device of a private network namespace) with every nettune file
# hidden: the source and build trees and the configured data directory
# under empty tmpfs mounts in a private mount namespace.  state=planned
# reads the live host and writes nothing (the policy's sysctls and IRQ
# affinity are host-wide, which a netns run refuses, located in the
# built-in policy: that is checked too).  The same for the
# statically linked CLI the persist role ships.
set -eu
: "${NETTUNE_ANSIBLE:?}" "${NETTUNE_STATIC:?}" "${SRCROOT:?}" "${BUILDDIR:?}" "${DATADIR:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
W=$(mktemp -d)
NS="ntst$$"
cleanup() { ip netns del "$NS" 2>/dev/null || true; rm -rf "$W"; }
trap cleanup EXIT INT TERM

# only glibc: libc, libm, libpthread, libdl, the dynamic loader, the vDSO
# (and, in a -Db_sanitize build, the sanitizer runtimes and what they need)
allowed='linux-vdso\.so\.1|linux-gate\.so\.1|libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|/lib(64)?/ld-linux[-a-z0-9_.]*\.so\.[0-9]+'
case ${B_SANITIZE:-none} in
none | '') ;;
*) allowed="$allowed|lib(a|ub|l|t)san\.so\.[0-9]+|libstdc\+\+\.so\.6|libgcc_s\.so\.1" ;;
esac
for b in "$NETTUNE_ANSIBLE" "$NETTUNE_STATIC"; do
	ldd "$b" > "$W/ldd" || fail "ldd $b"
	other=$(awk '{print $1}' "$W/ldd" | grep -Ev "^($allowed)\$" || true)
	[ -z "$other" ] || { cat "$W/ldd" >&2; fail "$(basename "$b") needs non-glibc libraries: $other"; }
	grep -q 'libc\.so\.6' "$W/ldd" || fail "$(basename "$b"): ldd shows no libc (not a dynamic glibc binary?)"
done

if [ "$(id -u)" -ne 0 ] || ! command -v unshare >/dev/null; then
	echo "SKIP: ldd checked; the hidden-files run needs root and unshare"
	exit 77
fi
mkdir -p "$W/bin"
cp "$NETTUNE_ANSIBLE" "$W/bin/module"
cp "$NETTUNE_STATIC" "$W/bin/nettune"
cat > "$W/host.yaml" <<'YAML'
apiVersion: nettune/v1
kind: HostProfile
metadata: {name: static-test, host: any}
target: linux
extends: [low-latency]
interfaces:
  - {name: lo, mtu: 65000}
YAML
printf '{"profile": "%s", "state": "planned", "state_dir": "%s", "_ansible_check_mode": false, "_ansible_diff": false}\n' \
	"$W/host.yaml" "$W/state" > "$W/args"
printf '{"profile": "%s", "state": "planned", "netns": "%s", "state_dir": "%s", "_ansible_check_mode": false, "_ansible_diff": false}\n' \
	"$W/host.yaml" "$NS" "$W/state" > "$W/args-ns"
sed 's/low-latency/low-latncy/' "$W/host.yaml" > "$W/typo.yaml"
# a copy of the module or CLI (Ansible's temp directory, the collection, the
# persist role's CLI, a package) never reads the tree it was built from: with
# the source tree still visible and no data directory, the policy comes from
# the built-in copy, not from $SRCROOT/profiles
if [ ! -d "$DATADIR/profiles" ]; then
	env -u NETTUNE_DATADIR "$W/bin/module" "$W/args" > "$W/mod-src.json" || fail "module: $(cat "$W/mod-src.json")"
	! grep -qF "$SRCROOT/profiles/" "$W/mod-src.json" ||
		fail "a copied module read the source tree's policies: $(grep -oF "$SRCROOT/profiles/low-latency.yaml" "$W/mod-src.json" | head -1)"
	grep -qF '<built-in>/profiles/low-latency.yaml:' "$W/mod-src.json" || fail "module: no built-in policy: $(cat "$W/mod-src.json")"
	# the CLI: planning the policy's host-wide sysctls in a namespace is
	# refused, located in the policy it read
	ip netns add "$NS"
	env -u NETTUNE_DATADIR "$W/bin/nettune" --netns "$NS" plan "$W/host.yaml" > "$W/cli-src" 2>&1 || true
	grep -qF '<built-in>/profiles/low-latency.yaml:56:23: error: sysctl net.core.busy_poll is host-wide' "$W/cli-src" ||
		fail "a copied CLI did not use the built-in policy: $(cat "$W/cli-src")"
fi
[ -e "/run/netns/$NS" ] || ip netns add "$NS"
cat > "$W/run.sh" <<SH
set -eu
unset NETTUNE_DATADIR NETTUNE_CAPS_DIR
for d in "$SRCROOT" "$BUILDDIR" "$DATADIR"; do
	[ -d "\$d" ] && mount -t tmpfs none "\$d"
done
[ ! -e "$SRCROOT/profiles" ] && [ ! -e "$DATADIR/profiles" ] || { echo "data still visible"; exit 1; }
cd /
"$W/bin/module" "$W/args" > "$W/mod.json" || { cat "$W/mod.json"; exit 1; }
"$W/bin/module" "$W/args-ns" > "$W/mod-ns.json" && { echo "netns run did not refuse host-wide settings"; exit 1; }
"$W/bin/nettune" validate "$W/host.yaml" > "$W/validate" 2>&1 || { cat "$W/validate"; exit 1; }
"$W/bin/nettune" caps | wc -l > "$W/ncaps"
cd "$W"
"$W/bin/nettune" validate typo.yaml > "$W/typo" 2>&1 && { echo "a misspelt policy validated"; exit 1; }
cd /
SH
unshare -m sh "$W/run.sh" || fail "run with every nettune file hidden"
python3 - "$W/mod.json" "$W/host.yaml" <<'PY' || fail "module result: $(cat "$W/mod.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["failed"] is False and r["changed"] is False, r
assert r["host"] == "static-test", r
# the MTU from the profile (lo has 65536); the rest may already match
assert any(a["attribute"] == "mtu" and a["to"] == 65000 for a in r["actions"]), r["actions"]
assert not [a for a in r["actions"] if not (a["source"].startswith("<built-in>/profiles/low-latency.yaml:")
            or a["source"].startswith(sys.argv[2]))], r["actions"]
PY
python3 - "$W/mod-ns.json" <<'PY' || fail "netns module result: $(cat "$W/mod-ns.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["failed"] is True and r["changed"] is False, r
assert "<built-in>/profiles/low-latency.yaml:56:23: error: sysctl net.core.busy_poll is host-wide" in r["msg"], r["msg"]
PY
[ "$(cat "$W/ncaps")" -eq "$(find "$SRCROOT/schema/nics" -name '*.yaml' | wc -l)" ] ||
	fail "static CLI lists $(cat "$W/ncaps") built-in tables"
grep -qxF "typo.yaml:5:11: error: policy profile 'low-latncy' not found; did you mean 'low-latency'? (searched ., <built-in>/profiles)" "$W/typo" ||
	fail "misspelt policy: $(cat "$W/typo")"
echo "ok: ldd shows only glibc; module and static CLI run with no nettune files (built-in policies and tables)"
