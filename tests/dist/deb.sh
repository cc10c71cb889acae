#!/bin/sh
# The Debian package from a clean copy of the tree: dpkg-buildpackage -b
# builds ../nettune_VERSION_ARCH.deb with every file it must carry, lintian
# reports no error; then (root, no nettune installed) dpkg -i, nettune
# --version, validate an example, plan a veth pair in a network namespace,
# the packaged Ansible module, and dpkg --purge leaves none of its files.
set -eu
: "${SRCROOT:?}" "${VERSION:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
for t in dpkg-buildpackage dh lintian; do
	command -v "$t" >/dev/null || { echo "SKIP: $t missing (scripts/deps.sh test installs it)"; exit 77; }
done
dpkg-checkbuilddeps "$SRCROOT/debian/control" 2>/dev/null ||
	{ echo "SKIP: build dependencies missing: $(dpkg-checkbuilddeps "$SRCROOT/debian/control" 2>&1)"; exit 77; }
W=$(mktemp -d)
NS="ntdeb$$"
installed=""
cleanup() {
	[ -z "$installed" ] || dpkg --purge nettune > /dev/null 2>&1 || true
	ip netns del "$NS" 2>/dev/null || true
	rm -rf "$W"
}
trap cleanup EXIT INT TERM

# a clean checkout: the tracked and new (not ignored) files, no build trees
mkdir "$W/nettune"
if git -C "$SRCROOT" rev-parse --git-dir > /dev/null 2>&1; then
	# (files deleted but not yet committed are left out)
	(cd "$SRCROOT" && git ls-files -co --exclude-standard -z |
		python3 -c 'import os, sys; sys.stdout.write("".join(f + "\0" for f in sys.stdin.read().split("\0") if f and os.path.lexists(f)))' |
		tar --null -cf - -T -) | tar -xf - -C "$W/nettune"
else
	(cd "$SRCROOT" && tar --exclude='./build*' --exclude=./tests/.node -cf - .) | tar -xf - -C "$W/nettune"
fi
[ ! -e "$W/nettune/build" ] || fail "the copy holds a build tree"
(cd "$W/nettune" && dpkg-buildpackage -b -us -uc) > "$W/build.log" 2>&1 ||
	{ tail -40 "$W/build.log" >&2; fail "dpkg-buildpackage"; }
arch=$(dpkg --print-architecture)
deb="$W/nettune_${VERSION}_$arch.deb"
[ -f "$deb" ] || { ls "$W" >&2; fail "no nettune_${VERSION}_$arch.deb"; }

dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' > "$W/contents"
for f in /usr/bin/nettune /usr/share/man/man1/nettune.1.gz /usr/share/man/man5/nettune-profile.5.gz \
	/usr/share/bash-completion/completions/nettune /lib/systemd/system/nettune.service \
	/lib/systemd/system/nettune@.service /lib/systemd/system/nettune-drift.service \
	/lib/systemd/system/nettune-drift.timer /lib/systemd/system/nettune-agent.service \
	/lib/udev/rules.d/80-nettune.rules \
	/usr/share/nettune/nettune.schema.json /usr/share/ansible/plugins/modules/nettune.yml \
	/usr/share/ansible/plugins/modules/nettune /usr/lib/nettune/ansible/nettune; do
	grep -qx "$f" "$W/contents" || fail "the package lacks $f"
done
for f in "$SRCROOT"/schema/nics/*.yaml "$SRCROOT"/profiles/*.yaml; do
	d=$(basename "$(dirname "$f")")
	grep -qx "/usr/share/nettune/$d/$(basename "$f")" "$W/contents" || fail "the package lacks $d/$(basename "$f")"
done
lintian "$W/nettune_${VERSION}_${arch}.changes" > "$W/lintian" 2>&1 || true
if grep -q '^E:' "$W/lintian"; then cat "$W/lintian" >&2; fail "lintian reports errors"; fi
grep '^W:' "$W/lintian" | sed 's/^/lintian /' || true

if [ "$(id -u)" -ne 0 ]; then echo "SKIP: built and checked; installing needs root"; exit 77; fi
# one install at a time on this machine: a second run (another checkout's
# meson test) waits here instead of installing over this one, or purging
# it, between the check below and our purge
exec 9> /run/lock/nettune-deb-test.lock
flock -w 900 9 || fail "another deb test held /run/lock/nettune-deb-test.lock for 15 minutes"
if dpkg-query -W nettune > /dev/null 2>&1 || [ -e /usr/bin/nettune ]; then
	echo "SKIP: built and checked; nettune is already installed here, not touched"
	exit 77
fi
installed=yes
dpkg -i "$deb" > "$W/install.log" 2>&1 || { cat "$W/install.log" >&2; fail "dpkg -i"; }
expect_ver=$(/usr/bin/nettune --version) || fail "nettune --version"
echo "$expect_ver" | grep -qF "$VERSION" || fail "nettune --version says '$expect_ver'"
# the example extends wireguard-gateway: from /usr/share/nettune/profiles
(cd "$SRCROOT/examples" && env -u NETTUNE_DATADIR /usr/bin/nettune validate x710-wireguard-gateway.yaml) ||
	fail "nettune validate of an example"
ip netns add "$NS"
ip -n "$NS" link add nda0 type veth peer name ndb0
printf 'apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: deb-test, host: any}\ntarget: linux\ninterfaces:\n  - {name: nda0, mtu: 1400}\n' > "$W/p.yaml"
rc=0
env -u NETTUNE_DATADIR /usr/bin/nettune --netns "$NS" plan "$W/p.yaml" > "$W/plan" 2>&1 || rc=$?
[ "$rc" -eq 2 ] || { cat "$W/plan" >&2; fail "nettune plan in $NS exited $rc, expected 2 (changes)"; }
if ! grep -qx 'nda0' "$W/plan" || ! grep -q '^ *1  mtu  *1500 -> 1400 ' "$W/plan"; then
	cat "$W/plan" >&2
	fail "plan does not show nda0 mtu 1500 -> 1400"
fi
printf '{"profile": "%s", "state": "planned", "netns": "%s", "_ansible_check_mode": false}\n' "$W/p.yaml" "$NS" > "$W/args"
/usr/share/ansible/plugins/modules/nettune "$W/args" > "$W/mod.json" || { cat "$W/mod.json" >&2; fail "packaged Ansible module"; }
grep -q '"changes": 1' "$W/mod.json" || fail "packaged module: $(cat "$W/mod.json")"

dpkg --purge nettune > "$W/purge.log" 2>&1 || { cat "$W/purge.log" >&2; fail "dpkg --purge"; }
installed=""
! dpkg-query -W nettune > /dev/null 2>&1 || [ "$(dpkg-query -W -f='${Status}' nettune)" = "not-installed" ] ||
	fail "nettune still known to dpkg: $(dpkg-query -W -f='${Status}' nettune)"
while read -r f; do
	case $f in */) continue ;; esac
	if [ -e "$f" ] || [ -L "$f" ]; then fail "$f is still there after dpkg --purge"; fi
done < "$W/contents"
if [ -e /usr/share/nettune ] || [ -e /usr/lib/nettune ]; then fail "nettune directories left after purge"; fi
# nettune.service (StateDirectory=nettune) and every apply create
# /var/lib/nettune: its journals and lock are the package's state, which a
# purge removes and a remove keeps.  The package's postrm is run on a scratch
# root (DPKG_ROOT), never on this host's /var/lib/nettune.
dpkg-deb -e "$deb" "$W/ctl"
[ -x "$W/ctl/postrm" ] || fail "the package has no postrm"
for act in remove purge; do
	mkdir -p "$W/root/var/lib/nettune/journal"
	echo '{}' > "$W/root/var/lib/nettune/journal/x.json"
	: > "$W/root/var/lib/nettune/lock"
	DPKG_ROOT="$W/root" DPKG_MAINTSCRIPT_NAME=postrm DPKG_MAINTSCRIPT_PACKAGE=nettune \
		"$W/ctl/postrm" "$act" > "$W/postrm.log" 2>&1 || { cat "$W/postrm.log" >&2; fail "postrm $act"; }
	case $act in
	remove) [ -e "$W/root/var/lib/nettune/journal/x.json" ] || fail "postrm remove deleted the journals" ;;
	purge) [ ! -e "$W/root/var/lib/nettune" ] || fail "postrm purge left /var/lib/nettune" ;;
	esac
done
[ ! -e "$W/root/etc" ] && [ ! -e "$W/root/usr" ] || fail "postrm wrote outside /var/lib/nettune: $(ls "$W/root")"
echo "ok: nettune_${VERSION}_$arch.deb built from a clean copy, lintian without errors, installed, ran, purged"
