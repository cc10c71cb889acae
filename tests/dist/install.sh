#!/bin/sh
# meson install into a DESTDIR: every expected file is there, then the
# tree is moved elsewhere and the INSTALLED binary runs with
# NETTUNE_DATADIR unset and (as root) the source tree hidden under an
# empty tmpfs, so it can only find its data relative to itself.
set -eu
: "${BUILDDIR:?}" "${SRCROOT:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT INT TERM
meson install -C "$BUILDDIR" --no-rebuild --destdir "$W/dest" --quiet > "$W/log" 2>&1 ||
	{ cat "$W/log" >&2; fail "meson install"; }
prefix=$(meson introspect --buildoptions "$BUILDDIR" |
	python3 -c 'import json,sys; print([o["value"] for o in json.load(sys.stdin) if o["name"]=="prefix"][0])')
P="$W/dest$prefix"
# where meson says each file goes, then that it is there
meson introspect --installed "$BUILDDIR" | python3 -c '
import json, sys
for src, dst in json.load(sys.stdin).items():
    print(dst)' > "$W/installed"
want() { # want SUFFIX: one installed path ends with SUFFIX and exists
	p=$(grep -E "$1\$" "$W/installed" | head -1)
	[ -n "$p" ] || fail "meson does not install anything ending in $1"
	[ -e "$W/dest$p" ] || fail "$p is not in the DESTDIR tree"
	echo "$W/dest$p"
}
bin=$(want "/bin/nettune")
[ -x "$bin" ] || fail "installed nettune is not executable"
mod=$(want "/share/ansible/plugins/modules/nettune")
[ -x "$mod" ] || fail "installed Ansible module is not executable"
want "/share/ansible/plugins/modules/nettune.yml" > /dev/null
want "/share/nettune/nettune.schema.json" > /dev/null
want "/share/man/man1/nettune.1" > /dev/null
want "/share/man/man5/nettune-profile.5" > /dev/null
want "/bash-completion/completions/nettune" > /dev/null
want "/systemd/system/nettune.service" > /dev/null
want "/systemd/system/nettune@.service" > /dev/null
want "/systemd/system/nettune-drift.service" > /dev/null
want "/systemd/system/nettune-drift.timer" > /dev/null
want "/systemd/system/nettune-agent.service" > /dev/null
want "/udev/rules.d/80-nettune.rules" > /dev/null
grep -q "^ExecStart=$prefix/bin/nettune apply" "$(want /systemd/system/nettune.service)" ||
	fail "installed nettune.service does not run $prefix/bin/nettune"
grep -q "^ExecStart=$prefix/bin/nettune agent" "$(want /systemd/system/nettune-agent.service)" ||
	fail "installed nettune-agent.service does not run $prefix/bin/nettune agent"
for f in "$SRCROOT"/schema/nics/*.yaml; do
	[ -f "$P/share/nettune/nics/$(basename "$f")" ] || fail "capability table $(basename "$f") not installed"
done
[ ! -e "$P/share/nettune/nics/README.md" ] || fail "nics/README.md installed as data"
for f in "$SRCROOT"/profiles/*.yaml; do
	[ -f "$P/share/nettune/profiles/$(basename "$f")" ] || fail "policy profile $(basename "$f") not installed"
done
cmp -s "$SRCROOT/schema/nettune.schema.json" "$P/share/nettune/nettune.schema.json" ||
	fail "installed JSON Schema differs"
command -v groff >/dev/null || fail "groff missing (scripts/deps.sh test installs groff-base)"
for m in man1/nettune.1 man5/nettune-profile.5; do
	groff -man -Tutf8 -ww "$P/share/man/$m" 2>"$W/groff" >/dev/null
	[ ! -s "$W/groff" ] || { cat "$W/groff" >&2; fail "groff warnings in $m"; }
done
bash -n "$(want /bash-completion/completions/nettune)" || fail "bash completion has syntax errors"

# relocate: the installed tree moved to a place no path was compiled for
R="$W/elsewhere/opt/nt"
mkdir -p "$W/elsewhere/opt"
cp -a "$P" "$R"
rm -rf "$W/dest"
cp "$SRCROOT/examples/x710-wireguard-gateway.yaml" "$SRCROOT/examples/states/x710-wireguard-gateway.json" "$W/"
ntables=$(ls "$SRCROOT"/schema/nics/*.yaml | wc -l)
cat > "$W/run.sh" <<SH
set -eu
unset NETTUNE_DATADIR
cd /
# every table, compiled in: no data directory is needed
n=\$("$R/bin/nettune" caps | wc -l)
[ "\$n" -eq $ntables ] || { echo "caps lists \$n tables, expected $ntables"; exit 1; }
"$R/bin/nettune" caps intel-x710 | grep -q "from  *built-in" ||
	{ echo "caps did not use the built-in table:"; "$R/bin/nettune" caps intel-x710 | sed -n 2,3p; exit 1; }
# extends: wireguard-gateway resolved from the relocated profiles/
"$R/bin/nettune" validate "$W/x710-wireguard-gateway.yaml"
rc=0
"$R/bin/nettune" plan "$W/x710-wireguard-gateway.yaml" --state "$W/x710-wireguard-gateway.json" > "$W/plan" || rc=\$?
[ "\$rc" -eq 2 ] || { echo "plan exited \$rc, expected 2"; exit 1; }
grep -q "wg0" "$W/plan" || { echo "plan does not mention wg0"; exit 1; }
SH
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
	unshare -m sh -c "mount -t tmpfs none '$SRCROOT' && [ ! -e '$SRCROOT/schema' ] && sh '$W/run.sh'" ||
		fail "the relocated binary (source tree hidden) failed"
	hidden="source tree hidden"
else
	sh "$W/run.sh" || fail "the relocated binary failed"
	hidden="source tree visible (not root)"
fi
# the installed Ansible module, data named explicitly as on a managed host
printf '{"profile": "%s", "state": "planned", "datadir": "%s", "_ansible_check_mode": false}\n' \
	"$W/lo.yaml" "$R/share/nettune" > "$W/args"
printf 'apiVersion: nettune/v1\nkind: HostProfile\nmetadata: {name: lo, host: any}\ntarget: linux\ninterfaces:\n  - {name: lo}\n' > "$W/lo.yaml"
env -u NETTUNE_DATADIR "$R/share/ansible/plugins/modules/nettune" "$W/args" > "$W/mod.json" ||
	{ cat "$W/mod.json" >&2; fail "installed module failed"; }
python3 - "$W/mod.json" <<'PY' || fail "installed module output"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["failed"] is False and r["changed"] is False, r
assert r["msg"] == "0 changes pending", r
PY
echo "ok: DESTDIR tree complete; relocated binary finds its data ($hidden)"
